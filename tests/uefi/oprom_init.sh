#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of the option-ROM boot's initramfs (tests/uefi/oprom_boot.sh): the
# kernel that systemd-boot loaded from the SCSI disk through pcam's UEFI
# driver loads a driver for the same chip (pcam.ko, or Linux's own with
# pcamdrv=sym53c8xx|am53c974 on the command line), finds the boot disk at
# pcamtgt:pcamlun, and prints facts as "PCAMU: ..." lines: the MD5 of the
# file systemd-boot rewrote in the firmware era (loader/random-seed), of
# the host's data, and of what it writes itself. It decides nothing; the
# host compares. Never waits without a bound.
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
say() { echo "PCAMU: $*"; }
md5() { md5sum | cut -d' ' -f1; }
drv=pcam T=3 L=1
for w in $(cat /proc/cmdline); do
  case $w in pcamdrv=*) drv=${w#pcamdrv=} ;; pcamtgt=*) T=${w#pcamtgt=} ;; pcamlun=*) L=${w#pcamlun=} ;; esac
done
say "init uptime $(cut -d' ' -f1 /proc/uptime) drv $drv"
for m in $(cat /etc/modules); do insmod "$M/$m" || say "insmod $m FAILED"; done
if [ "$drv" = pcam ]; then
  insmod "$M/pcam.ko"; say "insmod pcam rc=$?"
else
  for m in $(cat "/etc/modules.$drv"); do insmod "$M/$m" || say "insmod $m FAILED"; done
  say "insmod $drv done"
fi
D= i=0
while [ $i -lt 600 ] && [ -z "$D" ]; do
  for d in /sys/class/scsi_disk/*:0:"$T":"$L"/device/block/*; do
    [ -e "$d" ] && [ -b "/dev/$(basename "$d")2" ] && D=$(basename "$d")
  done
  [ -n "$D" ] || sleep 0.1
  i=$((i + 1))
done
if [ -z "$D" ]; then
  say "disk $T:$L MISSING"
  ls /sys/class/scsi_disk/ | sed 's/^/PCAMU: have /'
  poweroff -f
fi
say "disk $T:$L $D driver $(basename "$(readlink /sys/class/scsi_disk/*:0:$T:$L/device/../../../driver 2>/dev/null || readlink -f /sys/block/$D/device/../../../../driver)")"
say "host $(cat /sys/class/scsi_disk/*:0:$T:$L/device/../../scsi_host/*/proc_name 2>/dev/null)"
if mount -t vfat -o ro "/dev/${D}1" /mnt; then
  say "seed $(md5 < /mnt/loader/random-seed)"
  say "hostfile $(cat /mnt/fromhost.txt)"
  umount /mnt
else
  say "mount ${D}1 FAILED"
fi
say "data-read $(dd if="/dev/${D}2" bs=64k count=16 iflag=direct 2>/dev/null | md5)"
yes PCAM-LINUX-AFTER-UEFI | head -c 1048576 | dd of="/dev/${D}2" bs=64k seek=32 oflag=direct conv=fsync 2>/dev/null
say "data-write rc=$?"
say "data-reread $(dd if="/dev/${D}2" bs=64k skip=32 count=16 iflag=direct 2>/dev/null | md5)"
say "kernel-bugs $(dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace')"
dmesg | grep -iE 'pcam|sym0|esp|scsi host|sd [0-9]' | sed 's/^/PCAMU-DMESG: /' | head -40
say "DONE uptime $(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
