#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Time from QEMU's start to the Linux kernel's first line ("Linux version")
# on COM1, booting the same disk image (tests/bios/linux_boot.sh's WORK:
# disk.img, rom/pcam-bios.rom) through pcam's legacy ROM and through
# SeaBIOS's own driver for the chip (no pcam ROM). SYSLINUX reads the
# kernel and the initramfs through whichever INT 13h owns drive 80h.
# Figures only, asserts nothing (docs/bios.md). Each run holds
# /tmp/pcam-vm.lock; stop after the first line (the guest is killed).
# usage: bios_linux_time.sh WORK lsi53c895a|am53c974 [RUNS]
set -eu
work=$1 chip=$2 runs=${3:-3}
[ -f "$work/disk.img" ] && [ -f "$work/rom/pcam-bios.rom" ] || { echo "run tests/bios/linux_boot.sh first" >&2; exit 1; }
one() {  # WHO ROMARG...: prints seconds to "Linux version"
  who=$1; shift
  cp "$work/disk.img" "$work/bench.img"
  flock /tmp/pcam-vm.lock python3 - "$work/bench.img" "$chip" "$@" <<'EOF'
import subprocess, sys, time
img, chip, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
cmd = ["qemu-system-x86_64", "-M", "pc", "-accel", "tcg", "-m", "512", "-nodefaults",
       "-display", "none", "-no-reboot", "-global", "apic-common.vapic=off",
       "-device", chip + ",id=scsi0", "-device", "scsi-hd,drive=d0,bus=scsi0.0,scsi-id=3,lun=0",
       "-drive", "if=none,id=d0,file=%s,format=raw" % img, "-serial", "stdio",
       "-monitor", "none"] + extra
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
t = None
for line in p.stdout:
    if b"Linux version" in line:
        t = time.monotonic() - t0
        break
    if time.monotonic() - t0 > 600:
        break
p.kill()
p.wait()
print("%.2f" % t if t is not None else "none")
EOF
}
for who in pcam seabios; do
  all=""
  i=0
  while [ $i -lt "$runs" ]; do
    if [ $who = pcam ]; then s=$(one pcam -option-rom "$work/rom/pcam-bios.rom,bootindex=0")
    else s=$(one seabios); fi
    echo "$chip $who run $((i + 1)): $s s to the kernel's first line"
    all="$all $s"
    i=$((i + 1))
  done
  echo "$chip $who median:$(echo "$all" | tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 } END { print " " a[int((NR + 1) / 2)] " s" }')"
done
rm -f "$work/bench.img"
