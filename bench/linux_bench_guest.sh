#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of bench/linux-side-by-side.sh's guest: loads one driver for the
# controller QEMU has (drv=pcam: pcam.ko; drv=am53c974: Linux's esp_scsi +
# am53c974; drv=sym53c8xx: Linux's sym53c8xx; drv=mptsas: Linux's mptsas),
# runs the same workloads and
# prints "PCAMB: name value" lines. Measures, asserts nothing; every loop is
# bounded.
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
say() { echo "PCAMB: $*"; }
drv=pcam
for w in $(cat /proc/cmdline); do case $w in drv=*) drv=${w#drv=} ;; esac; done
for m in $(cat /etc/modules); do insmod "$M/$m" 2>/dev/null; done
if [ "$drv" = pcam ]; then
  # pcam.NAME=VALUE words on the kernel command line become parameters
  args=""
  for w in $(cat /proc/cmdline); do case $w in pcam.*) args="$args ${w#pcam.}" ;; esac; done
  insmod "$M/pcam.ko" $args
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
say "driver $drv disks $A $B depth $(cat /sys/block/$A/device/queue_depth) type $(cat /sys/block/$A/device/queue_type)"
# (mptsas's interrupt is named after its IOC, ioc0)
irqs() { awk '/pcam|am53c974|sym53c8xx|ioc[0-9]/ {s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s}' /proc/interrupts; }
# terse fields: 6 KiB read, 8 IOPS, 9 runtime ms, 40 mean latency us
fiot() { fio --output-format=terse --name=b --direct=1 "$@" 2>/dev/null | tail -1; }
field() { echo "$1" | cut -d';' -f"$2"; }

# warm up (first reads after attach, QEMU's host cache)
fiot --filename=/dev/$A --ioengine=psync --rw=read --bs=64k --size=8M > /dev/null

# busy and idle jiffies of the one vCPU (idle includes iowait): how much of
# the time the guest itself was running, against waiting for the device
cpu() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $5 + $6}' /proc/stat; }
for qd in 1 "$(cat /sys/block/$A/device/queue_depth)"; do
  i0=$(irqs); c0=$(cpu)
  r=$(fiot --filename=/dev/$A --ioengine=libaio --iodepth=$qd --rw=randread --bs=4k --size=64M \
      --norandommap --runtime=10 --time_based)
  i1=$(irqs); c1=$(cpu)
  busy=$(echo "$c0 $c1" | awk '{b = $3 - $1; i = $4 - $2; printf "%.0f", (b + i) ? 100 * b / (b + i) : 0}')
  say "randread4k qd=$qd iops $(field "$r" 8) ios $(( $(field "$r" 6) / 4 )) irqs $((i1 - i0)) busy% $busy"
done

# 1999: 2,000 re-reads at offset 0 of 4 KiB and of 8 KiB, one process, pread
for bs in 4 8; do
  for rep in 1 2 3 4 5; do
    i0=$(irqs)
    r=$(fiot --filename=/dev/$A --ioengine=psync --rw=randread --bs=${bs}k --size=${bs}k \
        --io_size=$((2000 * bs))k)
    i1=$(irqs)
    say "reread${bs}k rep=$rep lat_us $(field "$r" 40) runtime_ms $(field "$r" 9) irqs $((i1 - i0))"
  done
done

r=$(fio --output-format=terse --group_reporting --direct=1 --ioengine=psync --rw=read --bs=1k \
    --runtime=10 --time_based --size=16M --name=a --filename=/dev/$A --name=b --filename=/dev/$B \
    2>/dev/null | tail -1)
say "seq1k-two-disks iops $(field "$r" 8)"

# register accesses: the host traces the chip between two marker reads
say "REGS-READY"
sleep 5
dd if=/dev/$A of=/dev/null bs=512 skip=7777 count=1 iflag=direct 2>/dev/null
fiot --filename=/dev/$A --ioengine=psync --rw=randread --bs=4k --size=4k --io_size=4000k > /dev/null
dd if=/dev/$A of=/dev/null bs=512 skip=8888 count=1 iflag=direct 2>/dev/null
say "REGS-DONE ios 1000"
sleep 2
say "DONE"
poweroff -f
