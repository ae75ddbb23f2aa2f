#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of bench/linux-esp-trace.sh's guest: loads one driver for QEMU's
# AM53C974 (drv=pcam or drv=am53c974), warms up with O_DIRECT 64 KiB writes,
# then does N single 64 KiB O_DIRECT writes with dd, each between two
# 512-byte marker reads (LBA 7777 before, 8888 after) that the host finds in
# QEMU's trace, then N with fio (libaio, depth 1) between LBA 6666 and 9999,
# then N more from a buffer in a huge page (physically contiguous) between
# LBA 5555 and 9998.
# Measures, asserts nothing.
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
drv=pcam n=3
for w in $(cat /proc/cmdline); do case $w in drv=*) drv=${w#drv=} ;; n=*) n=${w#n=} ;; esac; done
for m in $(cat /etc/modules); do insmod "$M/$m" 2>/dev/null; done
if [ "$drv" = pcam ]; then
  insmod "$M/pcam.ko"
else
  for m in $(cat /etc/modules.$drv); do insmod "$M/$m"; done
fi
i=0 A=
while [ $i -lt 600 ] && [ -z "$A" ]; do
  for d in /sys/class/scsi_disk/*:0:0:0/device/block/*; do [ -e "$d" ] && A=$(basename "$d"); done
  sleep 0.1; i=$((i + 1))
done
echo "PCAMT: driver $drv disk $A"
dd if=/dev/zero of=/dev/$A bs=64k count=16 oflag=direct 2>/dev/null
k=0
while [ $k -lt "$n" ]; do
  dd if=/dev/$A of=/dev/null bs=512 skip=7777 count=1 iflag=direct 2>/dev/null
  dd if=/dev/zero of=/dev/$A bs=64k seek=$((k + 32)) count=1 oflag=direct 2>/dev/null
  dd if=/dev/$A of=/dev/null bs=512 skip=8888 count=1 iflag=direct 2>/dev/null
  k=$((k + 1))
done
# the same writes as fio's sequential-write job makes them (its buffers)
dd if=/dev/$A of=/dev/null bs=512 skip=6666 count=1 iflag=direct 2>/dev/null
fio --name=w --filename=/dev/$A --ioengine=libaio --iodepth=1 --direct=1 --rw=write --bs=64k \
  --offset=4m --size=$((n * 64))k > /dev/null 2>&1
dd if=/dev/$A of=/dev/null bs=512 skip=9999 count=1 iflag=direct 2>/dev/null
# and from a buffer in one 2 MiB huge page: physically contiguous for sure
echo 2 > /proc/sys/vm/nr_hugepages
mkdir -p /mnt/huge && mount -t hugetlbfs none /mnt/huge
dd if=/dev/$A of=/dev/null bs=512 skip=5555 count=1 iflag=direct 2>/dev/null
fio --name=w --filename=/dev/$A --ioengine=libaio --iodepth=1 --direct=1 --rw=write --bs=64k \
  --offset=8m --size=$((n * 64))k --iomem=mmaphuge:/mnt/huge/buf > /dev/null 2>&1 || echo "PCAMT: fio huge failed"
dd if=/dev/$A of=/dev/null bs=512 skip=9998 count=1 iflag=direct 2>/dev/null
echo "PCAMT: DONE"
poweroff -f
