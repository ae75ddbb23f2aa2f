#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (not a test): boots Debian's kernel under QEMU TCG on one
# controller and the same disk images twice, once with pcam.ko and once with
# Linux's own driver for that chip, runs the same workloads
# (linux_bench_guest.sh) and prints both columns and their ratio.
#   esp: QEMU's am53c974; pcam.ko (hal/esp) against esp_scsi + am53c974
#   sym: QEMU's lsi53c895a; pcam.ko (hal/sym) against sym53c8xx
#   mpt: QEMU's mptsas1068; pcam.ko (hal/mpt) against mptsas (Fusion-MPT)
# Register accesses per I/O are QEMU's trace events counted on the host
# between two marker reads, with tracing switched on through the monitor only
# for that window (tracing slows TCG, so every timed figure comes from
# untraced parts of the boot). On the LSI53C895A the SCRIPTS processor reads
# and writes registers too: only accesses outside a SCRIPTS run (from an
# lsi_execute_script event to lsi_execute_script_stop) are the CPU's, and the
# lsi_execute_script events are the instructions executed.
# usage: sh bench/linux-side-by-side.sh esp|sym|mpt [WORK_DIR]  (default build/linux-bench-CHIP)
#        (bench/linux-vs-am53c974.sh and bench/linux-vs-sym53c8xx.sh call this)
#        LINUX_BENCH_ONLY=pcam|theirs: one boot, its facts only
#        LINUX_BENCH_ARGS="pcam.aging=0 ...": module parameters for pcam.ko
#        LINUX_BENCH_REPS=N: boots per driver (default 5), pcam and the native
#        driver in turn (A B A B ...) so the host's load hits both alike; each
#        row is the median of the N boots with its spread (min-max)
#        PCAM_VM_LOCK=FILE: each boot holds flock FILE for that boot only
#        (default /tmp/pcam-vm.lock); the host's load average is printed
#        beside each boot
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
CHIP=${1:-}
case $CHIP in
  esp) CTRL=am53c974 THEIRS=am53c974 ;;
  sym) CTRL=lsi53c895a THEIRS=sym53c8xx ;;
  mpt) CTRL=mptsas1068 THEIRS=mptsas ;;
  *) echo "usage: $0 esp|sym|mpt [WORK_DIR]" >&2; exit 2 ;;
esac
WORK=${2:-$SRC/build/linux-bench-$CHIP}
mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
. "$SRC/tests/linux/vm_lib.sh"
vm_setup vm
vm_pattern_image "$W/disk0.img" 64
vm_pattern_image "$W/disk1.img" 16
vm_initramfs "$SRC/bench/linux_bench_guest.sh" "$W/initrd.cpio"
if [ $CHIP = esp ]; then
  EVENTS="esp_mem_readb esp_mem_writeb esp_pci_dma_read esp_pci_dma_write"
elif [ $CHIP = mpt ]; then
  EVENTS="mptsas_mmio_read mptsas_mmio_write"  # the I/O BAR goes through them too
else
  EVENTS="lsi_reg_read lsi_reg_write lsi_execute_script lsi_execute_script_stop"
fi

LOCK=${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}
REPS=${LINUX_BENCH_REPS:-5}
boot() {  # $1 = pcam|theirs, $2 = run number
  d=$W/$1-$2
  if [ $1 = pcam ]; then drv=pcam; else drv=$THEIRS; fi
  rm -rf "$d"; mkdir -p "$d"
  mkfifo "$d/mon.in" "$d/mon.out"
  cat "$d/mon.out" > "$d/monitor.log" &
  cat_pid=$!
  l0=$(cut -d' ' -f1-3 /proc/loadavg)
  flock "$LOCK" timeout 1200 qemu-system-x86_64 -M pc -accel tcg -m 1024 -smp 1 -display none -no-reboot \
    -nodefaults -nic none -serial "file:$d/serial.log" -D "$d/trace.log" \
    -chardev "pipe,id=mon0,path=$d/mon" -mon chardev=mon0,mode=readline \
    -kernel "$KIMG" -initrd "$W/initrd.cpio" -append "console=ttyS0 panic=-1 quiet drv=$drv ${LINUX_BENCH_ARGS:-}" \
    -device $CTRL,id=scsi0 \
    -drive "if=none,id=d0,file=$W/disk0.img,format=raw,snapshot=on" \
    -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0 \
    -drive "if=none,id=d1,file=$W/disk1.img,format=raw,snapshot=on" \
    -device scsi-hd,drive=d1,bus=scsi0.0,scsi-id=3 > "$d/qemu.out" 2>&1 &
  q=$!
  st=0
  while kill -0 $q 2>/dev/null; do
    if [ $st = 0 ] && grep -q 'PCAMB: REGS-READY' "$d/serial.log" 2>/dev/null; then
      for e in $EVENTS scsi_req_parsed_lba; do
        timeout 20 sh -c 'printf "trace-event %s on\n" "$1" > "$2"' sh "$e" "$d/mon.in"
      done
      st=1
    elif [ $st = 1 ] && grep -q 'PCAMB: REGS-DONE' "$d/serial.log" 2>/dev/null; then
      timeout 20 sh -c 'printf "trace-event * off\n" > "$1"' sh "$d/mon.in"
      st=2
    fi
    sleep 0.2
  done
  wait $q || echo "linux-bench: qemu for $drv exited with $?"
  kill $cat_pid 2>/dev/null || true
  tr -d '\r' < "$d/serial.log" | grep -a 'PCAMB' > "$d/facts" || true
  echo "PCAMB: host-load before $l0 after $(cut -d' ' -f1-3 /proc/loadavg)" >> "$d/facts"
  echo "linux-bench: $drv run $2"
  cat "$d/facts"
  # Between the marker reads of LBA 7777 and 8888. SCRIPTS runs: from an
  # lsi_execute_script to lsi_execute_script_stop; a run QEMU cuts at 100
  # instructions (re-armed by its timer) has no stop event and is closed by
  # the next run's start, so its tail is counted as the CPU's ("cut" says
  # how many runs were cut).
  awk '/scsi_req_parsed_lba.* lba 7777/ {on = 1; next} /scsi_req_parsed_lba.* lba 8888/ {on = 0}
       !on {next}
       /esp_mem_readb|esp_pci_dma_read|mptsas_mmio_read/ {r++}
       /esp_mem_writeb|esp_pci_dma_write|mptsas_mmio_write/ {w++}
       /lsi_execute_script_stop/ {run = 0; next}
       /lsi_execute_script / {if (run && n >= 100) cut++; if (!run) n = 0; run = 1; n++; ins++; next}
       /lsi_reg_read/ {if (run) sr++; else r++}
       /lsi_reg_write/ {if (run) sw++; else w++}
       END {printf "PCAMB: regs reads %d writes %d script-insns %d script-reads %d script-writes %d cut %d\n",
            r, w, ins, sr, sw, cut}' "$d/trace.log" >> "$d/facts"
}
# LINUX_BENCH_ONLY=pcam|theirs boots one driver and prints its facts only
case ${LINUX_BENCH_ONLY:-} in
  pcam|theirs) boot "$LINUX_BENCH_ONLY" 1; exit 0 ;;
esac
r=1
while [ $r -le "$REPS" ]; do
  boot pcam $r
  boot theirs $r
  r=$((r + 1))
done

# stat DRIVER AWK: the AWK program over each run's facts, one number per
# run; prints "median min max" over the runs that gave a number
stat() {
  for f in "$W/$1"-*/facts; do awk "$2" "$f"; echo; done | awk 'NF {v[n++] = $1 + 0}
    END {if (!n) {print "- - -"; exit}
      for (i = 1; i < n; i++) {x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x}
      printf "%s %s %s\n", (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]}'
}
row() {  # label, awk program printing one number per run
  p=$(stat pcam "$2"); e=$(stat theirs "$2")
  echo "$p $e" | awk -v l="$1" '{
    r = ($4 + 0 != 0) ? sprintf("%.2fx", $1 / $4) : "-"
    printf "| %s | %s (%s-%s) | %s (%s-%s) | %s |\n", l, $1, $2, $3, $4, $5, $6, r }'
}
get() {  # driver, awk program over its first run's facts
  awk "$2" "$W/$1-1/facts"
}
med='{v[n++] = $5} END {for (i = 1; i < n; i++) {x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x}; printf "%.1f", (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2}'
qd_deep='/randread4k qd=/ && !/qd=1 / {print $5; exit}'
# inside one boot, the median of its 5 repetitions: other load on the host
# skews single runs
lat4='/reread4k/ '"$med"
lat8='/reread8k/ '"$med"
ovh='/reread4k/ {a[n4++] = $5} /reread8k/ {b[n8++] = $5}
  END {for (i = 1; i < n4; i++) {x = a[i]; for (j = i - 1; j >= 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x}
       for (i = 1; i < n8; i++) {x = b[i]; for (j = i - 1; j >= 0 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x}
       if (n4 && n8) printf "%.1f", 2 * a[int(n4 / 2)] - b[int(n8 / 2)]}'
if [ $CHIP = esp ]; then regs="chip register"; else regs="CPU register"; fi
{
  echo "| per driver (TCG, one vCPU, $CTRL, $(date -u +%Y-%m-%d)): median of $REPS boots (min-max) | pcam.ko | $THEIRS | pcam / $THEIRS (medians) |"
  echo "|---|---|---|---|"
  get pcam '/driver/ {printf "| settings (queue_type, depth) | %s %s |", $10, $8}'
  get theirs '/driver/ {printf " %s %s | - |\n", $10, $8}'
  row "4 KiB O_DIRECT random reads/s, depth 1 (fio libaio)" '/randread4k qd=1 / {print $5}'
  row "the same at the deepest depth ($(get pcam '/randread4k/ && !/qd=1 / {print $3}') / $(get theirs '/randread4k/ && !/qd=1 / {print $3}'))" "$qd_deep"
  row "time of a 4 KiB re-read at offset 0, us (t4, median of 5 x 2,000)" "$lat4"
  row "time of an 8 KiB re-read at offset 0, us (t8, median of 5 x 2,000)" "$lat8"
  row "command overhead 2*t4 - t8, us" "$ovh"
  row "1 KiB sequential reads/s, two disks at once" '/seq1k-two-disks/ {print $4}'
  row "interrupts per 4 KiB read (2,000 re-reads)" '/reread4k/ {s += $9; n++} END {printf "%.2f", s / n / 2000}'
  row "interrupts per 8 KiB read" '/reread8k/ {s += $9; n++} END {printf "%.2f", s / n / 2000}'
  row "interrupts per random 4 KiB read, depth 1" '/randread4k qd=1 / {printf "%.2f", $9 / $7}'
  row "guest CPU busy during the depth-1 random reads, %" '/randread4k qd=1 / {print $11}'
  row "guest CPU busy during the deepest-depth random reads, %" '/randread4k/ && !/qd=1 / {print $11}'
  row "guest CPU time per random read at the deepest depth, us (busy% x 10,000 / reads/s)" '/randread4k/ && !/qd=1 / {printf "%.1f", $11 * 10000 / $5}'
  row "interrupts per random 4 KiB read, deepest depth" '/randread4k/ && !/qd=1 / {printf "%.2f", $9 / $7}'
  row "$regs reads per 4 KiB read" '/regs reads/ {printf "%.1f", $4 / 1000}'
  row "$regs writes per 4 KiB read" '/regs reads/ {printf "%.1f", $6 / 1000}'
  row "all $regs accesses per 4 KiB read" '/regs reads/ {printf "%.1f", ($4 + $6) / 1000}'
  if [ $CHIP = sym ]; then
    row "SCRIPTS instructions executed per 4 KiB read" '/regs reads/ {printf "%.1f", $8 / 1000}'
    row "register accesses by SCRIPTS per 4 KiB read" '/regs reads/ {printf "%.1f", ($10 + $12) / 1000}'
    row "SCRIPTS runs cut at 100 instructions (1,000 reads)" '/regs reads/ {print $14}'
  fi
  echo
  echo "host load average (1, 5, 15 min) before and after each boot:"
  for f in "$W"/*-*/facts; do
    printf '%s: %s\n' "$(basename "$(dirname "$f")")" "$(awk '/host-load/ {print $4, $5, $6, "->", $8, $9, $10}' "$f")"
  done
} | tee "$WORK/table.md"
