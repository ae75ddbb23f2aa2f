#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of bench/linux-profile.sh's guest: loads one driver (drv=pcam or
# Linux's own), then, during 4 KiB O_DIRECT random reads at depth 1 and at
# the device's deepest depth, takes the kernel's function profile of the
# drivers' entry points (calls, time per call) and, when perf is in the
# initramfs, perf's cpu-clock samples of the whole vCPU (TCG has no PMU).
# Prints them between "PCAMP:" markers. Measures, asserts nothing; every run
# is time-bounded.
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
say() { echo "PCAMP: $*"; }
drv=pcam deep=0 secs=8
for w in $(cat /proc/cmdline); do case $w in drv=*) drv=${w#drv=} ;; prof=deep) deep=1 secs=2 ;; esac; done
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
  A=$(dev_of 0)
  [ -n "$A" ] && [ -b "/dev/$A" ] && break
  sleep 0.1; i=$((i + 1))
done
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
cd /tmp
say "driver $drv disk $A depth $(cat /sys/block/$A/device/queue_depth)"
fiorun() {  # depth
  fio --name=b --direct=1 --filename=/dev/$A --ioengine=libaio --iodepth=$1 --rw=randread --bs=4k \
    --size=64M --norandommap --runtime=$secs --time_based --output-format=terse > /tmp/fio.out 2>/dev/null
  say "qd=$1 iops $(tail -1 /tmp/fio.out | cut -d';' -f8) ios $(( $(tail -1 /tmp/fio.out | cut -d';' -f6) / 4 ))"
}
# The graph tracer on the drivers' entry points only: calls and mean time
# per call of each, the time inside included (interrupts off or not:
# cpu-clock sampling cannot look inside a spinlock_irqsave section). This
# kernel has no function profiler, so the trace itself is summed here.
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fns="scsi_queue_rq scsi_done"
if [ "$drv" = pcam ]; then
  fns="$fns plx_queuecommand plx_irq plx_io_done plx_dma_map pcam_action pcam_bus_intr"
else
  fns="$fns sym53c8xx_queue_command sym53c8xx_intr sym_interrupt sym_queue_scsiio sym_xpt_done"
fi
: > $T/set_ftrace_filter
# prof=deep: every function of the driver's module (its register accessors
# included, where the chip's emulation runs), 2 s runs
if [ $deep = 1 ]; then
  if [ "$drv" = pcam ]; then fns=":mod:pcam"; else fns=":mod:sym53c8xx :mod:esp_scsi :mod:am53c974"; fi
fi
for f in $fns; do echo "$f" >> $T/set_ftrace_filter 2>/dev/null || say "no traceable $f"; done
echo 32768 > $T/buffer_size_kb
echo function_graph > $T/current_tracer
echo 1 > $T/options/funcgraph-tail 2>/dev/null
for qd in 1 "$(cat /sys/block/$A/device/queue_depth)"; do
  echo > $T/trace
  echo 1 > $T/tracing_on
  fiorun $qd
  echo 0 > $T/tracing_on
  say "BEGIN graph qd=$qd"
  awk -v pfx=PCAMP -f /etc/fgraph_sum.awk $T/trace
  say "lost $(grep -c LOST $T/trace) overrun $(awk '/overrun/ {print $NF}' $T/per_cpu/cpu0/stats)"
  say "END graph qd=$qd"
done
echo nop > $T/current_tracer
# the same without tracing, for the undisturbed rates
for qd in 1 "$(cat /sys/block/$A/device/queue_depth)"; do fiorun $qd; done
if [ -x /usr/bin/perf ]; then
  for qd in 1 "$(cat /sys/block/$A/device/queue_depth)"; do
    fiorun $qd &
    perf record -q -a -g -e cpu-clock -F 2000 -o /tmp/p.data -- sleep 7 2>/dev/null
    wait
    say "BEGIN perf qd=$qd"
    perf report -i /tmp/p.data --stdio --children --sort sym -g none --percent-limit 2 2>/dev/null | grep -v '^[#]' | grep -v '^$'
    say "END perf qd=$qd"
  done
fi
say "DONE"
poweroff -f
