#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The benchmark's pictures (docs/plots.md shows them): runs pcambench for
# the data and gnuplot (bench/plots.gp) for the PNGs. On demand, not part of
# the suite (docs.plots runs it in --quick mode to prove it works).
#  1. the BYTE starvation workload (4 fast disks on a Fast-10 narrow bus,
#     depth 32 each, mixed 4-32 KiB random reads), 60 simulated seconds with
#     aging off and on: share of completions per target, second by second;
#  2. the latency distribution of the same two runs (fraction of commands
#     slower than x);
#  3. IOPS against queue depth: 4 KiB random reads, 4 disks, Fast-20 wide;
#  4. host instructions per command spent in core/ against the number of
#     outstanding commands (callgrind, counted only inside the core's API,
#     as scripts/bench.sh does);
#  5. the fairness sweep (pcambench --sweep, issue 25): worst wait as a
#     share of the command timeout and min/max completion share for every
#     cell, default settings (about 12 minutes on one core; --quick runs
#     the CI subset, --sweep --short).
# usage: bench/plots.sh [--quick] [BUILD_DIR [OUT_DIR]]
#   OUT_DIR defaults to docs/img (PNGs) with the data in OUT_DIR/data.
#   --quick: short runs and fewer points (seconds, for the test).
set -eu
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
b=${1:-build/bench}
out=${2:-docs/img}
data="$out/data"
for t in gnuplot valgrind callgrind_annotate; do
  command -v $t >/dev/null 2>&1 || { echo "plots: $t is not installed (sh scripts/deps.sh test)" >&2; exit 1; }
done
if [ ! -x "$b/bench/pcambench" ]; then
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCAM_BUILD_TESTS=OFF >/dev/null
  cmake --build "$b" -j "$(nproc 2>/dev/null || echo 2)" --target pcambench >/dev/null
fi
B="$b/bench/pcambench"
mkdir -p "$out" "$data"

if [ $quick = 1 ]; then
  secs=10 dsecs=1 depths="1 4 32" cgcmds=300 cgcfg="1:1 4:4 4:32" sweep=--short
else
  sweep=
  secs=60 dsecs=10 depths="1 2 4 8 16 32 64 128 255" cgcmds=4000
  cgcfg="1:1 2:1 4:1 4:2 4:4 4:8 4:16 4:32 8:32 8:64 8:128"
fi

echo "plots: 1-2. starvation workload, ${secs} s with aging off and on"
starve="--targets 4 --depth 32 --pattern mixed --bus fast10 --narrow --fast-disks --seconds $secs"
for a in off on; do
  flag=""
  [ $a = off ] && flag=--no-aging
  # Without aging the starved targets' commands time out: errors are the
  # point of the picture, so the exit status is not.
  # shellcheck disable=SC2086
  "$B" $starve $flag --series-csv "$data/starve-$a-series.csv" \
       --latency-csv "$data/starve-$a-latency.csv" --json-file "$data/starve-$a.json" >/dev/null || true
  [ -s "$data/starve-$a-series.csv" ] || { echo "plots: pcambench wrote no series" >&2; exit 1; }
done

echo "plots: 3. IOPS against queue depth (${dsecs} s per point)"
rm -f "$data/depth.csv"
for d in $depths; do
  "$B" --targets 4 --depth "$d" --pattern rand4k --bus fast20 --seconds "$dsecs" \
       --csv "$data/depth.csv" >/dev/null
done

echo "plots: 4. core instructions per command (callgrind, $cgcmds commands per point)"
toggles=""
for f in pcam_action pcam_bus_intr pcam_bus_poll pcam_bus_tick pcam_bus_next_deadline \
         'hal_*' plat_now plat_log rig_done; do
  toggles="$toggles --toggle-collect=$f"
done
cg=$(mktemp)
echo "outstanding,targets,depth,core_instructions_per_cmd" >"$data/instructions.csv"
for c in $cgcfg; do
  t=${c%:*} d=${c#*:}
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --collect-atstart=no $toggles --callgrind-out-file="$cg" \
    "$B" --targets "$t" --depth "$d" --pattern rand4k --bus fast20 --commands "$cgcmds" --disk-mb 16 \
    >/dev/null 2>&1
  callgrind_annotate "$cg" 2>/dev/null |
    awk -v t="$t" -v d="$d" -v c="$cgcmds" '/PROGRAM TOTALS/ { v = $1; gsub(",", "", v);
      printf "%d,%d,%d,%.0f\n", t * d, t, d, v / c }' >>"$data/instructions.csv"
done
rm -f "$cg"
[ "$(wc -l <"$data/instructions.csv")" -gt 1 ] || { echo "plots: callgrind gave no counts" >&2; exit 1; }

echo "plots: 5. the fairness sweep (pcambench --sweep $sweep)"
# A cell that misses the goal makes the exit status 1: the table and the
# picture are the point here, so only a sweep that wrote nothing fails.
"$B" --sweep $sweep --csv "$data/sweep.csv" >"$data/sweep.txt" || true
[ "$(wc -l <"$data/sweep.csv")" -gt 1 ] || { echo "plots: the sweep wrote no cells" >&2; exit 1; }

gnuplot -e "data='$data'; out='$out'" bench/plots.gp
for p in starvation-share latency iops-depth instructions-depth sweep-wait; do
  [ -s "$out/$p.png" ] || { echo "plots: $out/$p.png was not made" >&2; exit 1; }
done
echo "plots: wrote $out/starvation-share.png latency.png iops-depth.png instructions-depth.png sweep-wait.png (data in $data)"
