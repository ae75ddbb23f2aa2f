#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Prints the firmware's figures for docs/firmware.md: image and pcam sizes
# per board (default configuration, and pcam alone in the minimal one),
# instructions spent inside pcam per 4 KiB READ under -icount shift=0
# (each CPU's own counter, see the boards), and 4 KiB READs per second of
# emulated time without -icount. Every boot is a full tests/firmware/run.sh
# boot, so the figures come only from boots whose proofs all passed.
# usage: [BOARDS="..."] examples/firmware/bench.sh [WORK_DIR]   (about 4 minutes, one VM at a time)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-/tmp/pcam-fw-bench}
mkdir -p "$work"
cc -O2 -o "$work/fwcheck" "$src/tests/firmware/fwcheck.c"
boards=${BOARDS:-riscv64-virt riscv32-virt arm-virt mips-malta}

echo "## Sizes (bytes; text includes read-only data)"
echo
echo "| board | image text | image data | image bss | pcam objects, default | pcam objects, minimal (core + hal/esp) |"
echo "|---|---:|---:|---:|---:|---:|"
for b in $boards; do
  nice -n 10 make -s -j2 -f "$src/examples/firmware/Makefile" BOARD=$b OUT="$work/build-$b" >/dev/null
  min=$(nice -n 10 make -s -j2 -f "$src/examples/firmware/Makefile" BOARD=$b OUT="$work/min-$b" \
        CONFIG="$src/cmake/configs/pcam_minimal.h" pcam-sizes | awk '{print $1 + $2}')
  set -- $(sed -n 2p "$work/build-$b/sizes.txt")
  img="$1 | $2 | $3"
  set -- $(sed -n 3p "$work/build-$b/sizes.txt")
  echo "| $b | $img | $(($1 + $2)) | $min |"
done
echo

run() { # board chip extra-qemu-args -> the boot's log
  FW_QEMU_EXTRA="$3" sh "$src/tests/firmware/run.sh" "$1" "$2" "$src" "$work" "$work/fwcheck" >"$work/$1-$2.out" 2>&1 ||
    { tail -n 20 "$work/$1-$2.out"; echo "bench: $1 $2 failed" >&2; exit 1; }
  tr -d '\r' <"$work/$1-$2.log"
}
fig() { # mode depth field, the log on stdin -> the number (field 3: the core's share, or -)
  grep "^FIGURE [a-z0-9]* $1 depth $2:" |
    sed 's/.*: \([0-9]*\) reads\/s, \([0-9]*\) pcam[^;]*\(; back-end ops [0-9]*, core \([0-9]*\)\)*$/\1 \2 \4/' |
    awk -v f="$3" '{print ($f == "" ? "-" : $f)}'
}

echo "## Per 4 KiB READ (interrupt mode; instructions under -icount shift=0, reads/s without)"
echo
echo "| board | chip | pcam instructions, depth 1 | depth 16 | of which the core, depth 1 | depth 16 | reads/s, depth 1 | depth 16 | polled reads/s, depth 1 |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for b in $boards; do
  for c in am53c974 lsi53c895a; do
    ic=$(run $b $c "-icount shift=0")
    rt=$(run $b $c "")
    echo "| $b | $c | $(echo "$ic" | fig irq 1 2) | $(echo "$ic" | fig irq 16 2) |" \
         "$(echo "$ic" | fig irq 1 3) | $(echo "$ic" | fig irq 16 3) |" \
         "$(echo "$rt" | fig irq 1 1) | $(echo "$rt" | fig irq 16 1) | $(echo "$rt" | fig polled 1 1) |"
  done
done
echo
grep -h "^FIGURE storage" "$work"/*-am53c974.log | tr -d '\r' | sed 's/^FIGURE /RAM, /' | sort -u
