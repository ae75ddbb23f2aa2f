#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The demo itself, given a build directory. Kept apart from demo.sh so the
# test suite (tests/pcamctl, case "demo") can run it against its own build.
# Every step is a pcamctl command on one simulated bus; the bus lives for one
# command, so each command builds it, scans it and acts (disk 0 keeps its
# medium in a file, so what one command writes the next one reads).
set -eu
b=${1:-build/demo}
P="$b/examples/pcamctl/pcamctl"
w="$b/demo-work"
if [ ! -x "$P" ]; then
  echo "demo: $P is missing; run scripts/demo.sh (it builds it)" >&2
  exit 1
fi
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
echo "(exit status 1; 4242 = 0x1092, the INFORMATION field)"

say "6. A VCD trace of one tagged READ on the bus"
ctl trace -o "$w/read.vcd" read 0 --lba 2048 --count 8 -o "$w/traced.bin"
echo "open it with: gtkwave $w/read.vcd   (docs/trace.md shows such a picture)"
