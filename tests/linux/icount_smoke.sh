#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest linux.icount.sym: that the deterministic benchmark mode still works
# (bench/linux-side-by-side.sh with PCAM_BENCH_CLOCK=icount; docs/bench.md,
# "Deterministic guest benchmarks"): one short boot of pcam.ko on the
# LSI53C895A under -icount shift=0 with the null-co benchmark disk, 200
# reads per run (icn=200 icquick=1). Asserts that every run printed a busy
# guest time with 0 < busy < elapsed and that the depth-1 re-reads each
# ended with an interrupt of the controller; asserts no speed (the figures
# are the benchmark's to print).
# usage: icount_smoke.sh SOURCE_DIR WORK_DIR
set -eu
SRC=$(cd "$1" && pwd)
mkdir -p "$2"
WORK=$(cd "$2" && pwd)
t0=$(date +%s)
LINUX_BENCH_ONLY=pcam PCAM_BENCH_CLOCK=icount LINUX_BENCH_ARGS="icn=200 icquick=1" \
  sh "$SRC/bench/linux-side-by-side.sh" sym "$WORK" > "$WORK/bench.out" 2>&1 ||
  { cat "$WORK/bench.out"; echo "FAIL: the icount boot did not run"; exit 1; }
f=$WORK/vm/pcam-1/facts
cat "$f"
fail=0
# the deep run: rand at the queue depth (any but 1)
for w in reread4096 reread8192 rand1 'rand([02-9]|[1-9][0-9]+)'; do
  l=$(grep -aE "^PCAMB: ic $w n [0-9]+ busy_ns [0-9]+ elapsed_ns [0-9]+ irqs [0-9]+\$" "$f" | head -n 1)
  if [ -z "$l" ]; then echo "FAIL: no busy time for $w"; fail=1; continue; fi
  echo "$l" | awk -v w="$w" '{n = $5; b = $7; e = $9; q = $11
    if (!(b > 0 && b < e)) {print "FAIL: " w ": busy " b " ns not within (0, elapsed " e ")"; exit 1}
    if (w ~ /^reread/ && q < n) {print "FAIL: " w ": " q " interrupts for " n " reads at depth 1"; exit 1}
    printf "ok: %s: %.1f busy guest us per read, %d interrupts for %d reads\n", w, b / n / 1000, q, n}' || fail=1
done
[ $fail -eq 0 ] && echo "PASS: icount mode: busy guest time per read printed for every run, $(($(date +%s) - t0)) s"
exit $fail
