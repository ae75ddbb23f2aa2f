#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The benchmark, on demand (not part of the test suite): builds pcambench and
# prints the figures the README quotes, the core's instructions per command
# with a breakdown by entry point, and what aging costs with it off and on.
#  1. bus utilisation: 4 targets reading 32 KiB sequentially on Fast-20 wide;
#  2. fairness: the starvation workload (Fast-10 narrow, IDs 0-3), aging on/off;
#  2c. QEMU's controllers (pcambench --qemu --chip am53c974|lsi53c895a, one
#     front end): commands/s, interrupts, register reads and writes and
#     qtest round trips per command, 4 KiB and 64 KiB at each chip's depths;
#  3. host instructions per 4 KiB command spent in the core (callgrind,
#     counting only while control is inside the core's API, simulator and
#     callbacks excluded), for 1, 16, 256 and 1,024 outstanding commands:
#     once with the warm-up (scan, negotiation, 256 commands) spread over
#     the 4,000 measured commands, once in steady state (only the measured
#     commands), and by entry point; on hal/sim's phase-level chip and
#     behind its command-level (mailbox) adapter.
#  3b. the back-ends' own instructions per command: hal/sim's
#     command-level adapter, hal/esp and hal/sym (on QEMU over qtest).
#  4. what aging costs: the starvation workloads with aging off and on.
#  5. the fairness sweep (pcambench --sweep, docs/bench.md): every disk
#     timing model, 4/7/15 targets, narrow and wide, Fast-10 to Fast-80,
#     depths 8/32/64, 3 seeds, default settings; about 12 minutes.
#     PCAM_BENCH_SWEEP=short runs the CI subset instead, =0 skips it.
# PCAM_BENCH_SECTIONS="3 3b 4" runs only the sections named (default: all).
# usage: scripts/bench.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
b=${1:-build/bench}
if [ ! -x "$b/bench/pcambench" ]; then
  sh scripts/deps.sh test
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCAM_BUILD_TESTS=OFF >/dev/null
  cmake --build "$b" -j "$(nproc 2>/dev/null || echo 2)" --target pcambench >/dev/null
fi
B="$b/bench/pcambench"
# want SECTION: is it one of PCAM_BENCH_SECTIONS (or are they all wanted)?
want() {
  case " ${PCAM_BENCH_SECTIONS:-all} " in *" all "* | *" $1 "*) return 0 ;; esac
  return 1
}

if want 1; then
echo "== 1. sequential 32 KiB reads, 4 targets, Fast-20 wide"
"$B" --targets 4 --depth 32 --pattern seq32k --bus fast20 --seconds 10
echo
fi
if want 2; then
echo "== 2. the starvation workload (Fast-10 narrow, mixed 4-32 KiB random reads, fast disks)"
"$B" --targets 4 --depth 32 --pattern mixed --bus fast10 --narrow --fast-disks --seconds 60 --no-aging || true
"$B" --targets 4 --depth 32 --pattern mixed --bus fast10 --narrow --fast-disks --seconds 60
echo
fi
if want 2b; then
echo "== 2b. a file-server mix, 8 targets, Fast-20 wide"
"$B" --targets 8 --depth 16 --pattern fileserver --bus fast20 --seconds 10
echo
fi
if want 2c; then
echo "== 2c. QEMU's controllers over qtest: 4 KiB and 64 KiB random reads (skipped without QEMU)"
if command -v "${PCAM_QEMU:-qemu-system-x86_64}" >/dev/null 2>&1; then
  # One VM at a time on this machine: each run holds the VM lock.
  for chip in am53c974 lsi53c895a; do
    flock /tmp/pcam-vm.lock "$B" --qemu --chip "$chip" --seconds 5
  done
else
  echo "  qemu-system-x86_64 not installed: apt-get install qemu-system-x86"
fi
echo
fi
if ! command -v valgrind >/dev/null 2>&1 && { want 3 || want 3b; }; then
  echo "valgrind not installed: apt-get install valgrind" >&2
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if want 3; then
echo "== 3. core/ instructions per 4 KiB random read (callgrind)"
# Collection is switched on when control enters the core through its API
# (pcam_action, pcam_bus_intr/poll/tick/next_deadline, and the
# pcam_bus_hal_* callbacks a command-level back-end makes) and off again
# while the core calls out (the simulated chip's ops and clock, the
# command-level adapter's ops, completion callbacks); a callback that
# re-enters the core switches it on again. So the count is the core's own
# work, whatever file a function lives in. (The adapter's poll is not in the
# list: it runs inside pcambench's hal_adapter_counting_poll, which is.)
toggles=""
for f in pcam_action pcam_bus_intr pcam_bus_poll pcam_bus_tick pcam_bus_next_deadline \
         'pcam_bus_hal_*' 'hal_*' plat_now plat_log rig_done \
         op_get_caps op_reset_chip op_reset_bus op_set_xfer \
         op_attach op_start op_abort op_reset_dev; do
  toggles="$toggles --toggle-collect=$f"
done
# Both of hal/sim's levels: the phase-level chip the core drives phase by
# phase, and the command-level (mailbox) adapter that runs the phases and
# calls the core's decision entry points (PCAM_SIM_LEVEL, tests/support/simrig.c).
for level in phase cmd; do
  echo "  hal/sim $level level:"
  for cfg in "1 1" "4 4" "8 32" "8 128"; do
    set -- $cfg
    n=$(( $1 * $2 ))
    cmds=4000
    # shellcheck disable=SC2086
    PCAM_SIM_LEVEL=$level valgrind --tool=callgrind --collect-atstart=no $toggles \
      --callgrind-out-file="$out" \
      "$B" --targets "$1" --depth "$2" --pattern rand4k --bus fast20 --commands $cmds --disk-mb 16 \
      >/dev/null 2>&1
    # The total, then each entry point's inclusive share (a completion
    # callback that re-enters the core is counted in both, so the parts can
    # add up to a little more than the total). callgrind_annotate may list
    # a function more than once (code inlined from a header is named by that
    # header, a line may lack the binary's name): the largest is the whole.
    callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$out" 2>/dev/null |
      awk -v n="$n" -v c=$cmds '
        function num(s) { gsub(",", "", s); return s + 0 }
        /PROGRAM TOTALS/ { total = num($1) }
        / [^ ]*:pcam_(action|bus_intr|bus_poll|bus_tick|bus_next_deadline|bus_hal_[a-z_]*)( |$)/ {
          f = $0; sub(/.*:/, "", f); sub(/ .*/, "", f); if (num($1) > part[f]) part[f] = num($1) }
        /pcambench.c:bench_steady_state / { steady = num($1) }
        END {
          printf "  %5d outstanding: %6.0f core instructions per command, %.0f in steady state (", n,
                 total / c, steady / c
          sep = ""
          for (f in part) { printf "%s%s %.0f", sep, f, part[f] / c; sep = ", " }
          printf ")\n" }'
  done
done
echo
fi

if want 3b; then
echo "== 3b. the back-ends' own instructions per command (callgrind self cost of the"
echo "   functions defined in each back-end's folder; register accesses and the"
echo "   simulator or qtest behind them not counted), warm-up included, and the"
echo "   core's own on the same run (self cost of the functions in core/: on a"
echo "   script-level chip such as hal/sym, the pcam_bus_hal_* callbacks included;"
echo "   also the core's CDB helpers the benchmark calls itself, so a little high)"
# backend OUT COMMANDS LABEL: the instructions per command in hal/ folders
backend() {
  callgrind_annotate --auto=no --inclusive=no --threshold=100 "$1" 2>/dev/null |
    awk -v c="$2" -v label="$3" '
      function num(s) { gsub(",", "", s); return s + 0 }
      /hal\/sim\/sim_cmdlevel[^ ]*:/ { k["hal/sim command-level adapter"] += num($1) }
      /hal\/esp\/[^ ]*:/ { k["hal/esp"] += num($1) }
      /hal\/sym\/[^ ]*:/ { k["hal/sym"] += num($1) }
      /(^|[ /])core\/[^ ]*:/ { k["core/"] += num($1) }
      END { for (f in k) printf "  %-56s %s: %6.0f\n", label, f, k[f] / c }'
}
PCAM_SIM_LEVEL=cmd valgrind --tool=callgrind --callgrind-out-file="$out" \
  "$B" --targets 4 --depth 4 --pattern rand4k --bus fast20 --commands 4000 --disk-mb 16 >/dev/null 2>&1
backend "$out" 4000 "hal/sim, 4 KiB reads, 16 outstanding"
if command -v "${PCAM_QEMU:-qemu-system-x86_64}" >/dev/null 2>&1; then
  for chip in am53c974 lsi53c895a; do
    n=500
    js=$(flock /tmp/pcam-vm.lock valgrind --tool=callgrind --callgrind-out-file="$out" \
           "$B" --qemu --chip $chip --commands $n --json 2>/dev/null)
    # its six cells (4 and 64 KiB reads at three depths) and the 8 KiB overhead run
    total=$(echo "$js" | grep -o '"commands":[0-9]*' | awk -F: -v n=$n '{ s += $2 } END { print s + n }')
    backend "$out" "$total" "QEMU $chip over qtest, 4/64 KiB reads, depth 1-16"
  done
else
  echo "  QEMU back-ends skipped: qemu-system-x86_64 not installed"
fi
echo
fi

if want 4; then
echo "== 4. what aging costs: the same workload with aging off and on (60 s simulated each)"
echo "   (no one starves in the last two; the first three are the starvation workloads)"
printf '  %-74s %8s %8s %6s %5s %8s %7s %6s\n' workload "IOPS off" "IOPS on" ratio share "worst on" ORDERED starve
for w in "--targets 4 --depth 32 --pattern mixed --bus fast10 --narrow --fast-disks" \
         "--targets 7 --depth 64 --pattern mixed --bus fast20 --narrow --fast-disks" \
         "--targets 15 --depth 32 --pattern mixed --bus fast20 --fast-disks" \
         "--targets 7 --depth 64 --pattern mixed --bus fast20 --narrow --seed 31337" \
         "--targets 8 --depth 16 --pattern fileserver --bus fast20"; do
  # shellcheck disable=SC2086
  off=$("$B" $w --seconds 60 --no-aging 2>&1 || true) # starving runs end with errors
  # shellcheck disable=SC2086
  on=$("$B" $w --seconds 60 2>&1 || true)
  printf '%s\n%s\n' "$off" "====" "$on" | awk -v w="$w" 'BEGIN { side = 0 }
    /^====/ { side = 1; next }
    /throughput/ { iops[side] = $2 }
    /per-target share/ { share[side] = $NF; sub(/\)/, "", share[side]) }
    /latency/ { worst[side] = $(NF - 1) / 1e6 }
    /core counters/ { n = split($0, a, "ordered "); for (i = 2; i <= n; i++) ord += a[i] + 0
                      n = split($0, b, "starve "); for (i = 2; i <= n; i++) st += b[i] + 0 }
    END { printf "  %-74s %8s %8s %6.3f %5s %7.2fs %7d %6d\n", w, iops[0], iops[1],
                 iops[1] / iops[0], share[1], worst[1], ord, st }'
done
echo
fi

want 5 || exit 0
echo "== 5. the fairness sweep (pcambench --sweep; the goal and the table: docs/bench.md)"
case ${PCAM_BENCH_SWEEP:-full} in
  0) echo "  skipped (PCAM_BENCH_SWEEP=0)" ;;
  short) "$B" --sweep --short || true ;; # a miss is a finding to print, not a script failure
  *) "$B" --sweep || true ;;
esac
