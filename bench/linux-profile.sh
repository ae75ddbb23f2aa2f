#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark aid (not a test): where the guest's CPU goes, pcam.ko against
# Linux's own driver on the same VM and image. Boots Debian's kernel under
# QEMU TCG (one vCPU) once per driver and prints the kernel's function
# profile (ftrace, graph tracer: calls and time per call of the drivers'
# entry points, the inside included) of 4 KiB random reads at depth 1 and at
# the deepest depth, and optionally perf's (bench/linux-profile-guest.sh).
# Under TCG an MMIO access runs QEMU's device model inside the instruction,
# so that time is charged to the function making the access.
# usage: sh bench/linux-profile.sh esp|sym [WORK_DIR]   (default build/linux-profile-CHIP)
#   LINUX_PROFILE_DEEP=1: every function of the driver's module, 2 s runs
#   each boot holds flock PCAM_VM_LOCK (default /tmp/pcam-vm.lock)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
CHIP=${1:-}
case $CHIP in
  esp) CTRL=am53c974 THEIRS=am53c974 ;;
  sym) CTRL=lsi53c895a THEIRS=sym53c8xx ;;
  *) echo "usage: $0 esp|sym [WORK_DIR]" >&2; exit 2 ;;
esac
WORK=${2:-$SRC/build/linux-profile-$CHIP}
mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
. "$SRC/tests/linux/vm_lib.sh"
vm_setup vm
vm_pattern_image "$W/disk0.img" 64
vm_initramfs "$SRC/bench/linux-profile-guest.sh" "$W/initrd.cpio"
# LINUX_PROFILE_PERF=1: perf and its libraries too (a 90 MiB initramfs)
if [ -n "${LINUX_PROFILE_PERF:-}" ]; then
  vm_copy_bin perf
  (cd "$IRD" && find . | cpio -o -H newc -R 0:0 --quiet) > "$W/initrd.cpio"
fi
for drv in pcam $THEIRS; do
  d=$W/$drv; mkdir -p "$d"
  echo "linux-profile: $drv, host load $(cut -d' ' -f1-3 /proc/loadavg)"
  flock "${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}" timeout 1200 qemu-system-x86_64 -M pc -accel tcg -m 1024 -smp 1 \
    -display none -no-reboot -nodefaults -nic none -serial "file:$d/serial.log" \
    -kernel "$KIMG" -initrd "$W/initrd.cpio" -append "console=ttyS0 panic=-1 quiet drv=$drv ${LINUX_PROFILE_DEEP:+prof=deep}" \
    -device $CTRL,id=scsi0 \
    -drive "if=none,id=d0,file=$W/disk0.img,format=raw,snapshot=on" \
    -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0 > "$d/qemu.out" 2>&1 ||
    echo "linux-profile: qemu for $drv exited with $?"
  tr -d '\r' < "$d/serial.log" | sed -n '/PCAMP: driver/,/PCAMP: DONE/p' | tee "$d/profile.txt"
done
