#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (not a test): the deterministic disklate comparison on FreeBSD
# 13.2, pcam.ko against FreeBSD's own sym.ko on QEMU's LSI53C895A (and
# pcam.ko alone on the AM53C974, which FreeBSD's esp(4) does not drive on
# PCI). Each boot is tests/freebsd/boot.sh's MODE bench: -icount shift=0, a
# null-co disk whose reads complete 1 ms of host time later, and the
# guest's busy (not idle) guest time per read, which under that clock is
# guest instructions (osshim/freebsd/README.md, "Deterministic benchmark").
# usage: sh bench/freebsd-icount.sh [WORK_DIR]   (default build/freebsd-icount)
#   FBSD_BENCH_REPS=N: boots per driver (default 3), pcam and sym.ko in turn
#   FBSD_BENCH_ESP=1: also N boots of pcam.ko on the AM53C974
#   FBSD_BENCH_TABLE_ONLY=1: no boots, the table again from WORK's logs
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$SRC/build/freebsd-icount}
mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
REPS=${FBSD_BENCH_REPS:-3}
LOCK=${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}
runs="sym:pcam sym:sym"
[ -n "${FBSD_BENCH_ESP:-}" ] && runs="$runs esp:pcam"
if [ -z "${FBSD_BENCH_TABLE_ONLY:-}" ]; then
  cc -O2 -o "$WORK/imgcheck" "$SRC/tests/freebsd/guest/imgcheck.c"
  r=1
  while [ $r -le "$REPS" ]; do
    for cd in $runs; do
      c=${cd%:*} d=${cd#*:}
      echo "freebsd-icount: $d on $c, run $r, host load $(cut -d' ' -f1-3 /proc/loadavg)"
      flock "$LOCK" sh "$SRC/tests/freebsd/boot.sh" "$SRC" "$WORK/$c-$d-$r" "$c" "$WORK/imgcheck" "$d" bench |
        grep -a 'PCAMTEST icount\|PASS\|FAIL' || true
    done
    r=$((r + 1))
  done
fi
# stat CHIP DRIVER AWK: "median min max" of AWK's number over the runs
stat() {
  for f in "$WORK/$1-$2"-*/icount.txt; do [ -f "$f" ] && awk "$3" "$f"; echo; done | awk 'NF {v[n++] = $1 + 0}
    END {if (!n) {print "- - -"; exit}
      for (i = 1; i < n; i++) {x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x}
      printf "%s %s %s %d\n", (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1], n}'
}
row() {  # label, awk program over one run's icount.txt printing one number
  p=$(stat sym pcam "$2"); s=$(stat sym sym "$2"); e=$(stat esp pcam "$2")
  echo "$p $s $e" | awk -v l="$1" 'function sp(m, a, b) {return (m + 0 != 0) ? sprintf("%.2f%%", 100 * (b - a) / m) : "-"}
    {r = ($5 + 0 != 0) ? sprintf("%.2fx", $1 / $5) : "-"
     printf "| %s | %s (%s) | %s (%s) | %s | %s (%s) |\n", l, $1, sp($1, $2, $3), $5, sp($5, $6, $7), r, $9, sp($9, $10, $11)}'
}
b() { echo "/icount $1 / {printf \"%.2f\", \$7 / \$5 / 1000}"; }  # busy us per read
ovh='/icount reread4096 / {a = $7 / $5} /icount reread8192 / {c = $7 / $5}'
{
  echo "| FreeBSD 13.2, -icount shift=0, one vCPU, null-co disk, $(date -u +%Y-%m-%d): median of the boots (spread) | pcam.ko, LSI53C895A | sym.ko, LSI53C895A | pcam / sym | pcam.ko, AM53C974 |"
  echo "|---|---|---|---|---|"
  echo "| boots | $(stat sym pcam '{print 1; exit}' | cut -d' ' -f4) | $(stat sym sym '{print 1; exit}' | cut -d' ' -f4) | - | $(stat esp pcam '{print 1; exit}' | cut -d' ' -f4) |"
  row "busy guest time per 4 KiB re-read, us (b4; 1 us = 1,000 guest instructions)" "$(b reread4096)"
  row "busy guest time per 8 KiB re-read, us (b8)" "$(b reread8192)"
  row "command overhead 2*b4 - b8, us" "$ovh"' END {printf "%.2f", (2 * a - c) / 1000}'
  row "implied transactions/s (10^6 / overhead)" "$ovh"' END {printf "%.0f", 1e9 / (2 * a - c)}'
  row "busy guest time per random 4 KiB read, depth 1, us" "$(b rand1)"
  row "random 4 KiB reads/s the guest CPU allows, depth 1" '/icount rand1 / {printf "%.0f", $5 * 1e9 / $7}'
  row "elapsed guest time per 4 KiB re-read, us (noisy: host completion + 1 ms)" '/icount reread4096 / {printf "%.1f", $9 / $5 / 1000}'
} | tee "$WORK/table.md"
