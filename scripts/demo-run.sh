#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The demo itself, given a build directory. Kept apart from demo.sh so the
# test suite (tests/pcamctl, case "demo") can run it against its own build.
# Steps 1-6 are pcamctl commands on one simulated bus; the bus lives for one
# command, so each command builds it, scans it and acts (disk 0 keeps its
# medium in a file, so what one command writes the next one reads). Steps
# 7-9 are the core's headline behaviours on buses of their own: the BYTE
# starvation workload with aging off and on (bench/pcambench), QUEUE FULL
# and the recovery ladder (examples/scenes, which checks its own outcome).
set -eu
b=${1:-build/demo}
P="$b/examples/pcamctl/pcamctl"
BENCH="$b/bench/pcambench"
SCENES="$b/examples/scenes/scenes"
w="$b/demo-work"
for x in "$P" "$BENCH" "$SCENES"; do
  if [ ! -x "$x" ]; then
    echo "demo: $x is missing; run scripts/demo.sh (it builds it)" >&2
    exit 1
  fi
done
rm -rf "$w"
mkdir -p "$w"

# The bus: a 64 MiB disk at ID 0 (medium in a file, a bad block at LBA 4242),
# a 1 GiB Fast-10 disk at 2, a CD-ROM at 3, a narrow three-LUN disk at 5 and
# an Ultra160 (DT) disk at 6. pcamctl takes it from $PCAMCTL_SIM.
PCAMCTL_SIM="0:disk:64M:file=$w/disk0.img:merr=4242,2:disk:1G:fast10,3:cd,5:disk:16M:luns=3:narrow,6:disk:256M:fast80"
export PCAMCTL_SIM

say() { printf '\n== %s\n' "$*"; }
ctl() {
  printf '$ pcamctl %s\n' "$*"
  "$P" "$@"
}

echo "pcam demo: the pcam core (include/pcam/pcam.h) driving a simulated parallel"
echo "SCSI bus (hal/sim), through pcamctl. Every command below runs with"
echo "  PCAMCTL_SIM=\"$PCAMCTL_SIM\""

say "1. Scan: the device table"
ctl devlist -l

say "2. INQUIRY: standard data and the serial-number VPD page"
ctl inquiry 0
ctl inquiry 3
ctl inquiry 5:2 --vpd 0x80

say "3. Negotiation: user limits, goal and the agreement in force"
ctl negotiate 6
ctl negotiate 5

say "4. Write, read back, compare"
awk 'BEGIN { for (i = 0; i < 1048576; i++) printf "%c", 32 + (i * 31 + int(i / 512)) % 95 }' >"$w/pattern.bin"
ctl write 0 --lba 2048 -i "$w/pattern.bin"
ctl read 0 --lba 2048 --count 2048 -o "$w/readback.bin"
if cmp -s "$w/pattern.bin" "$w/readback.bin"; then
  echo "identical: 1 MiB written and read back through the core (cmp)"
else
  echo "demo: the data read back differs from what was written" >&2
  exit 1
fi

say "5. An injected MEDIUM ERROR at LBA 4242, its sense data decoded"
if ctl read 0 --lba 4240 --count 8 -o "$w/bad.bin" 2>"$w/err.txt"; then
  echo "demo: the read over the bad block succeeded" >&2
  exit 1
fi
cat "$w/err.txt"
echo "(exit status 3, a medium error, as sg3_utils says it; 4242 = 0x1092, the INFORMATION field; the 2 good blocks before it are kept)"

say "6. A VCD trace of one tagged READ on the bus"
ctl trace -o "$w/read.vcd" read 0 --lba 2048 --count 8 -o "$w/traced.bin"
echo "open it with: gtkwave $w/read.vcd   (docs/trace.md shows such a picture)"

say "7. The BYTE starvation workload: 4 disks, 32 tags each, Fast-10 narrow bus, 40 s"
# pcambench --json prints one line per run.
starve="--targets 4 --depth 32 --pattern mixed --bus fast10 --narrow --fast-disks --seconds 40 --json"
# Without aging the starved targets' commands time out: exit status 1 is expected.
# shellcheck disable=SC2086
"$BENCH" $starve --no-aging >"$w/starve-off.json" || true
[ -s "$w/starve-off.json" ] || { echo "demo: pcambench --no-aging printed nothing" >&2; exit 1; }
# shellcheck disable=SC2086
"$BENCH" $starve >"$w/starve-on.json"
# One awk over both JSON lines: per-target shares, failures, slowest command.
awk '
  function num(k) { return match($0, "\"" k "\":[0-9.]+") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 : -1 }
  { match($0, /"per_target":\[[0-9,]*\]/); n[NR] = split(substr($0, RSTART + 14, RLENGTH - 15), c, ",")
    for (i = 1; i <= n[NR]; i++) share[NR, i] = 100 * c[i] / num("commands")
    err[NR] = num("errors"); slow[NR] = num("lat_us_max") / 1000 }
  END { print "share of completions     aging off   aging on"
        for (i = 1; i <= n[1]; i++) printf "  ID %d               %8.1f%%  %8.1f%%\n", i - 1, share[1, i], share[2, i]
        printf "  commands failed        %8d   %8d\n", err[1], err[2]
        printf "  slowest command (ms)   %8.0f   %8.0f\n", slow[1], slow[2] }
' "$w/starve-off.json" "$w/starve-on.json"
grep -q '"errors":0,' "$w/starve-on.json" || { echo "demo: with aging on, commands failed" >&2; exit 1; }
echo "(without aging IDs 0 and 1 lose nearly every arbitration and their commands time out after 30 s;"
echo " docs/plots.md has the pictures: share per second and the latency distribution)"

say "8. QUEUE FULL: the depth settles at what the target holds, then climbs back"
"$SCENES" qfull

say "9. A timeout walks the recovery ladder"
"$SCENES" ladder
