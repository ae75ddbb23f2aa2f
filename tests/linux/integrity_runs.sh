#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# On demand, not in CI: the whole-disk integrity question of docs/linux.md
# ("Whole-disk reads under host load"). Boots test_linux_boot.sh's VM on one
# chip N times with pcam.ko (the whole linux.boot sequence) and N times with
# Linux's own driver for the chip (attach and the whole-disk read only),
# alternately, and prints one line per boot: whether the whole-disk
# dd | md5sum matched the host image, and the wrong sectors sectcheck found
# in that very stream, in the page cache afterwards and on the disk
# (O_DIRECT), with dd's record counts and the host's load average.
# Every boot's serial log stays in WORK as run-I-DRIVER.txt.
# PCAM_VM_LOCK=FILE: each boot holds flock FILE (one VM at a time on a
# shared machine); PCAM_DRIVERS="pcam" (or the native one alone): only
# those boots; PCAM_BESIDE="command": started beside each boot and
# stopped after it (another guest, a CPU hog), to load the host on purpose.
# usage: integrity_runs.sh SOURCE_DIR WORK_DIR N [esp|sym]
set -u
SRC=$(cd "$1" && pwd)
WORK=$2
N=$3
CHIP=${4:-esp}
case $CHIP in esp) NATIVE=am53c974 ;; sym) NATIVE=sym53c8xx ;; *) echo "chip: esp or sym" >&2; exit 2 ;; esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
i=1
while [ "$i" -le "$N" ]; do
  for drv in ${PCAM_DRIVERS:-pcam $NATIVE}; do
    bpid=""
    if [ -n "${PCAM_BESIDE:-}" ]; then
      sh -c "$PCAM_BESIDE" > "$WORK/beside.log" 2>&1 &
      bpid=$!
    fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s)
    if [ -n "${PCAM_VM_LOCK:-}" ]; then
      PCAM_LINUX_DRIVER=$drv flock "$PCAM_VM_LOCK" sh "$SRC/tests/linux/test_linux_boot.sh" "$SRC" \
        "$WORK/vm" "$CHIP" > "$WORK/run-$i-$drv.out" 2>&1
    else
      PCAM_LINUX_DRIVER=$drv sh "$SRC/tests/linux/test_linux_boot.sh" "$SRC" "$WORK/vm" "$CHIP" \
        > "$WORK/run-$i-$drv.out" 2>&1
    fi
    rc=$?
    [ -n "$bpid" ] && { kill "$bpid" 2>/dev/null; wait "$bpid" 2>/dev/null; }
    cp "$WORK/vm/boot/serial.txt" "$WORK/run-$i-$drv.txt" 2>/dev/null || : > "$WORK/run-$i-$drv.txt"
    md5=$(grep -q '^PASS: whole-disk checksum' "$WORK/run-$i-$drv.out" && echo ok || echo WRONG)
    wrong() { sed -n "s/.*PCAMT-SECTCHECK$1: sectcheck: 65536 sectors read, \([0-9]*\) wrong.*/\1/p" \
      "$WORK/run-$i-$drv.txt" | head -1; }
    dd=$(sed -n 's/.*PCAMT-DD-WHOLE: \(.*records out\).*/\1/p' "$WORK/run-$i-$drv.txt" | head -1)
    ws=$(wrong -STREAM) wp=$(wrong "") wd=$(wrong -DIRECT)
    echo "run $i $drv: test rc=$rc md5 $md5, wrong sectors: stream ${ws:-?} page-cache ${wp:-?}" \
      "direct ${wd:-?}; dd: ${dd:-?}; load $load; $(($(date +%s) - t0)) s"
  done
  i=$((i + 1))
done
