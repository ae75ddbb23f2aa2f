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
# icn=N: reads per icount run (2,000); icquick=1: those runs only (the
# smoke test, tests/linux/icount_smoke.sh); icgraph=F1,F2,...: more kernel
# functions for the graph tracer's run (their sums are in the facts)
drv=pcam clock=wall icn=2000 icquick=0 icgraph=""
for w in $(cat /proc/cmdline); do
  case $w in drv=*) drv=${w#drv=} ;; clock=*) clock=${w#clock=} ;; icn=*) icn=${w#icn=} ;;
    icquick=*) icquick=${w#icquick=} ;; icgraph=*) icgraph=$(echo "${w#icgraph=}" | tr , ' ') ;; esac
done
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
# clock=icount (PCAM_BENCH_CLOCK=icount on the host): the benchmark disk is
# QEMU's null-co disk at target 5 (no content, a fixed host-side latency)
if [ "$clock" = icount ]; then
  i=0
  while [ $i -lt 600 ]; do
    C=$(dev_of 5); [ -n "$C" ] && [ -b "/dev/$C" ] && break
    sleep 0.1; i=$((i + 1))
  done
fi
say "driver $drv disks $A $B depth $(cat /sys/block/$A/device/queue_depth) type $(cat /sys/block/$A/device/queue_type)"
# (mptsas's interrupt is named after its IOC, ioc0)
irqs() { awk '/pcam|am53c974|sym53c8xx|ioc[0-9]/ {s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s}' /proc/interrupts; }
# terse fields: 6 KiB read, 8 IOPS, 9 runtime ms, 40 mean latency us
fiot() { fio --output-format=terse --name=b --direct=1 "$@" 2>/dev/null | tail -1; }
field() { echo "$1" | cut -d';' -f"$2"; }

# The deterministic runs: busy guest time per read (linux_icbench), the
# interrupts counted around each; then the register trace as below.
if [ "$clock" = icount ]; then
  say "icount-disk $C depth $(cat /sys/block/$C/device/queue_depth)"
  ic() { linux_icbench "/dev/$C" "$@"; }
  n=$icn
  ic reread 4096 "$n"; ic reread 8192 "$n"; ic rand 1 "$n"
  ic rand "$(cat /sys/block/$C/device/queue_depth)" $((2 * n))
  [ "$icquick" = 1 ] && { say "DONE"; poweroff -f; }
  # The drivers' own share: the kernel's graph tracer on the command entry
  # point, the interrupt handler and scsi_done() (called inside the
  # handler) during 1,100 re-reads (100 of them warm-up); under icount a
  # traced duration is guest instructions (the tracer's own included)
  T=/sys/kernel/tracing
  mount -t tracefs nodev $T 2>/dev/null
  case $drv in
    pcam) fns="plx_queuecommand plx_irq" ;;
    sym53c8xx) fns="sym53c8xx_queue_command sym53c8xx_intr" ;;
    *) fns="esp_queuecommand scsi_esp_intr" ;;
  esac
  : > $T/set_ftrace_filter
  for f in $fns scsi_done $icgraph; do echo "$f" >> $T/set_ftrace_filter 2>/dev/null || say "no traceable $f"; done
  echo 8192 > $T/buffer_size_kb
  echo function_graph > $T/current_tracer
  echo 1 > $T/options/funcgraph-tail 2>/dev/null
  echo > $T/trace
  echo 1 > $T/tracing_on
  linux_icbench "/dev/$C" reread 4096 1000 > /dev/null
  echo 0 > $T/tracing_on
  awk -v pfx=PCAMB -f /etc/fgraph_sum.awk $T/trace | sed 's/^PCAMB: fn \(plx_queuecommand\|sym53c8xx_queue_command\|esp_queuecommand\) /PCAMB: fn queue \1 /; s/^PCAMB: fn \(plx_irq\|sym53c8xx_intr\|scsi_esp_intr\) /PCAMB: fn intr \1 /; s/^PCAMB: fn scsi_done /PCAMB: fn done scsi_done /'
  say "graph lost $(grep -c LOST $T/trace) overrun $(awk '/overrun/ {print $NF}' $T/per_cpu/cpu0/stats)"
  echo nop > $T/current_tracer
  A=$C
  say "REGS-READY"
  sleep 5
  dd if=/dev/$A of=/dev/null bs=512 skip=7777 count=1 iflag=direct 2>/dev/null
  linux_icbench "/dev/$A" reread 4096 900 > /dev/null  # + its 100 warm-up reads
  dd if=/dev/$A of=/dev/null bs=512 skip=8888 count=1 iflag=direct 2>/dev/null
  say "REGS-DONE ios 1000"
  sleep 2
  say "DONE"
  poweroff -f
fi

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
