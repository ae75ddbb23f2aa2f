#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# One firmware boot (examples/firmware) under QEMU, checked from the host.
# usage: run.sh BOARD CASE SRC WORK FWCHECK
#   BOARD  riscv64-virt | riscv32-virt | arm-virt | mips-malta
#   CASE   am53c974 | lsi53c895a  the chip with two disks: target 0 plain,
#                                 target 1 blkdebug with sector 8 failing
#                                 (ENODATA on reads for the AM53C974, on
#                                 writes for the LSI, whose model loses the
#                                 status of a failed disconnected read)
#          absent                 no SCSI controller: must fail, clearly
#          empty                  an AM53C974 with no disk: must fail, clearly
# Passes when QEMU exits 0, the UART shows RESULT PASS and every PROOF the
# case needs, and fwcheck finds both patterns in the disk image with their
# neighbours untouched; for absent/empty, when the exit is non-zero with
# the expected message. Skips (77) only when the board's compiler or QEMU
# is not installed. Each QEMU run holds /tmp/pcam-vm.lock.
# FW_QEMU_EXTRA adds QEMU options (examples/firmware/bench.sh: -icount).
set -eu
board=$1 case=$2 src=$3 work=$4 fwcheck=$5
fw=$work/build-$board
log=$work/$board-$case.log
mkdir -p "$work"

case $board in
  riscv64-virt) cc=riscv64-unknown-elf-gcc qemu=qemu-system-riscv64
    machine="-M virt -bios none" ;;
  riscv32-virt) cc=riscv64-unknown-elf-gcc qemu=qemu-system-riscv32
    machine="-M virt -bios none" ;;
  arm-virt) cc=arm-none-eabi-gcc qemu=qemu-system-arm
    machine="-M virt,highmem=off -cpu cortex-a15 -semihosting" ;;
  mips-malta) cc=ld.lld qemu=qemu-system-mips
    machine="-M malta -semihosting" ;;
  *) echo "run.sh: unknown board $board" >&2; exit 2 ;;
esac
for tool in $cc $qemu; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed (sh scripts/deps.sh firmware)"
    exit 77
  fi
done

# One build per board, shared by its cases (ctest -j may run them together).
mkdir -p "$fw"
flock "$fw.lock" nice -n 10 make -s -j2 -f "$src/examples/firmware/Makefile" BOARD="$board" OUT="$fw" \
  >"$fw.make.log" 2>&1 || { cat "$fw.make.log"; echo "run.sh: firmware build failed"; exit 1; }

img0=$work/$board-$case-d0.img img1=$work/$board-$case-d1.img cfg=$work/$board-$case-blkdebug.cfg
rm -f "$img0" "$img1"
truncate -s 8M "$img0"
truncate -s 1M "$img1"
event=read_aio
[ "$case" = lsi53c895a ] && event=write_aio
printf '[inject-error]\nevent = "%s"\nerrno = "61"\nsector = "8"\n' $event >"$cfg"

disks="-drive if=none,id=d0,file=$img0,format=raw -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0
  -drive if=none,id=d1,driver=raw,file.driver=blkdebug,file.config=$cfg,file.image.filename=$img1
  -device scsi-hd,drive=d1,bus=scsi0.0,scsi-id=1"
trace=$work/$board-$case.trace
rm -f "$trace"
case $case in
  am53c974) devs="-device $case,id=scsi0 $disks" ;;
  # QEMU's own view of the tags: each SIMPLE QUEUE message the model takes
  # and each command it completes.
  lsi53c895a) devs="-device $case,id=scsi0 $disks -D $trace
    -trace enable=lsi_do_msgout_simplequeue -trace enable=lsi_command_complete" ;;
  absent) devs="" ;;
  empty) devs="-device am53c974,id=scsi0" ;;
  *) echo "run.sh: unknown case $case" >&2; exit 2 ;;
esac

set +e
# shellcheck disable=SC2086
# The boot's own time (lock wait excluded) goes to $log.time.
flock /tmp/pcam-vm.lock sh -c 't0=$(date +%s.%N); timeout 150 "$@"; rc=$?
  echo "$t0 $(date +%s.%N)" | awk "{ printf \"%.1f\n\", \$2 - \$1 }" >"$0"; exit $rc' \
  "$log.time" $qemu $machine -m 128M -nodefaults -display none \
  -serial stdio -kernel "$fw/fw.elf" ${FW_QEMU_EXTRA:-} $devs </dev/null >"$log" 2>&1
rc=$?
set -e
tr -d '\r' <"$log" | sed "s/^/[$board $case] /"
echo "run.sh: QEMU exit status $rc after $(cat "$log.time" 2>/dev/null || echo '?') s"

fail() { echo "FAIL: $board $case: $*"; exit 1; }
[ $rc -ne 124 ] || fail "QEMU was killed after 150 s: the firmware hung past its watchdog"
case $case in
  absent)
    [ $rc -ne 0 ] || fail "exit status 0 without a controller"
    grep -q "FATAL firmware: no SCSI controller on PCI" "$log" || fail "no clear message"
    echo "PASS: $board without a controller: clear message, exit status $rc"; exit 0 ;;
  empty)
    [ $rc -ne 0 ] || fail "exit status 0 with no disk"
    grep -q "PROOF FAIL am53c974 scan: no disk at target 0" "$log" || fail "no clear message"
    echo "PASS: $board with an empty bus: clear message, exit status $rc"; exit 0 ;;
esac
[ $rc -eq 0 ] || fail "QEMU exit status $rc"
grep -q "^RESULT PASS" "$log" || fail "no RESULT PASS line"
! grep -q "PROOF FAIL" "$log" || fail "a PROOF failed"
need="scan pattern-polled pattern-irq bus-reset irq"
if [ "$case" = lsi53c895a ]; then need="$need medium-error-write tagged"; else need="$need medium-error-read"; fi
for p in $need; do
  grep -q "^PROOF ok $case $p:" "$log" || fail "proof $p missing"
done
if [ "$case" = lsi53c895a ]; then
  # Most tagged commands in the model at once, by QEMU's trace: tags taken
  # minus commands completed (untagged completions only lower it).
  most=$(awk '/lsi_do_msgout_simplequeue/ { n++; if (n > m) m = n }
              /lsi_command_complete/ { if (n > 0) n-- } END { print m + 0 }' "$trace")
  echo "run.sh: QEMU's trace: up to $most tagged commands in the LSI model at once"
  # How many overlap depends on how fast the host's disk I/O finishes
  # against the guest (usually all 16; once 2 under -icount on a loaded
  # host), so the test asks for overlap itself: 2 or more at once.
  [ "$most" -ge 2 ] || fail "QEMU's trace shows no two tagged commands in flight at once"
fi
"$fwcheck" "$img0" 1000 64 0x11 2000 64 0x22 || fail "the disk image does not hold the patterns"
echo "PASS: $board $case: $(grep -c '^PROOF ok' "$log") proofs, patterns found in the image"
