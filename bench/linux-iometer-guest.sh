#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of bench/linux-iometer.sh's guest: loads one driver (drv=pcam:
# pcam.ko; drv=am53c974 or drv=sym53c8xx: Linux's own), then runs every cell
# of the IOMeter-style matrix in this one boot: each job file of /fio at
# depths 1, 4, 16 and 64, on one disk and on both, and prints one
# "PCAMIO:" line per cell. Measures, asserts nothing; every fio run is
# time-bounded. The disks are scratch images: the write specs destroy them.
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
say() { echo "PCAMIO: $*"; }
drv=pcam RT=3 RAMP=1 SPECS="fileserver webserver database workstation seqread seqwrite" QDS="1 4 16 64"
for w in $(cat /proc/cmdline); do
  case $w in drv=*) drv=${w#drv=} ;; rt=*) RT=${w#rt=} ;; ramp=*) RAMP=${w#ramp=} ;;
    specs=*) SPECS=$(echo "${w#specs=}" | tr , ' ') ;; qds=*) QDS=$(echo "${w#qds=}" | tr , ' ') ;;
    huge=1) HUGE=1 ;; esac
done
# huge=1: fio's buffers in a 2 MiB huge page, physically contiguous, so each
# 64 KiB transfer can be one DMA segment for either driver; by default that
# depends on where the guest's allocator put fio's pages
IOMEM=
if [ -n "${HUGE:-}" ]; then
  echo 4 > /proc/sys/vm/nr_hugepages
  mkdir -p /mnt/huge && mount -t hugetlbfs none /mnt/huge && IOMEM=--iomem=mmaphuge:/mnt/huge/buf
fi
for m in $(cat /etc/modules); do insmod "$M/$m" 2>/dev/null; done
if [ "$drv" = pcam ]; then
  insmod "$M/pcam.ko"
else
  for m in $(cat /etc/modules.$drv); do insmod "$M/$m"; done
fi
dev_of() {
  for d in /sys/class/scsi_disk/*:0:"$1":0/device/block/*; do [ -e "$d" ] && basename "$d"; done
}
i=0
while [ $i -lt 600 ]; do
  A=$(dev_of 0); B=$(dev_of 3)
  [ -n "$A" ] && [ -n "$B" ] && [ -b "/dev/$A" ] && [ -b "/dev/$B" ] && break
  sleep 0.1; i=$((i + 1))
done
say "driver $drv iomem ${IOMEM:-default} disks $A $B depth $(cat /sys/block/$A/device/queue_depth) type $(cat /sys/block/$A/device/queue_type) rt $RT ramp $RAMP"
irqs() { awk '/pcam|am53c974|sym53c8xx/ {s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s}' /proc/interrupts; }
# busy and idle jiffies of the one vCPU (idle includes iowait)
cpu() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $5 + $6}' /proc/stat; }
export RT RAMP
# warm-up, not measured: the first writes to a fresh image and the first
# reads after attach are slower on the host
DEV=/dev/$A:/dev/$B QD=4 RT=2 RAMP=0 fio --output-format=terse /fio/database.fio > /dev/null 2>&1
for spec in $SPECS; do
  for nd in 1 2; do
    if [ $nd = 1 ]; then DEV=/dev/$A; else DEV=/dev/$A:/dev/$B; fi
    for qd in $QDS; do
      i0=$(irqs); c0=$(cpu)
      # terse v3: 8 read IOPS, 40 read mean latency (us), 49 and 81 the same for writes
      r=$(DEV=$DEV QD=$qd fio --output-format=terse $IOMEM "/fio/$spec.fio" 2>/dev/null | tail -1)
      i1=$(irqs); c1=$(cpu)
      echo "$r $c0 $c1 $((i1 - i0))" | awk -v s=$spec -v n=$nd -v q=$qd '{
        split($1, f, ";"); ri = f[8]; wi = f[49]; io = ri + wi
        lat = io ? (ri * f[40] + wi * f[81]) / io : 0
        b = $4 - $2; i = $5 - $3
        printf "PCAMIO: cell %s disks %d qd %d iops %d lat_us %.1f busy%% %.0f irqs %d err %s\n",
          s, n, q, io, lat, (b + i) ? 100 * b / (b + i) : 0, $6, (f[5] == "") ? "none" : f[5] }'
    done
  done
done
say "DONE"
poweroff -f
