#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark aid (not a test): what one 64 KiB O_DIRECT write costs on QEMU's
# AM53C974 with pcam.ko and with Linux's esp_scsi + am53c974, counted from
# QEMU's esp trace events. Boots Debian's kernel under TCG once per driver
# (bench/linux-esp-trace-guest.sh), traces esp_*, espdma_*, scsi_req_* and
# scsi_disk_* from boot, and counts per WRITE command (N written by dd, N by
# fio, N by fio from a buffer in one huge page, so physically contiguous;
# each set between two marker reads): DMA transfer-information commands
# and their lengths, chip interrupts, chip and DMA-engine register accesses,
# chip commands by name, and the traced time from CDB to command complete.
# usage: sh bench/linux-esp-trace.sh [WORK_DIR]   (default build/linux-esp-trace)
#   LINUX_ESP_TRACE_N=writes per boot (default 3); each boot holds flock
#   PCAM_VM_LOCK (default /tmp/pcam-vm.lock); the raw traces stay in WORK_DIR
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$SRC/build/linux-esp-trace}
mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
. "$SRC/tests/linux/vm_lib.sh"
vm_setup vm
vm_pattern_image "$W/disk0.img" 16
vm_initramfs "$SRC/bench/linux-esp-trace-guest.sh" "$W/initrd.cpio"
N=${LINUX_ESP_TRACE_N:-3}
for drv in pcam am53c974; do
  d=$W/$drv; mkdir -p "$d"
  echo "linux-esp-trace: $drv, host load $(cut -d' ' -f1-3 /proc/loadavg)"
  flock "${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}" timeout 1200 qemu-system-x86_64 -M pc -accel tcg -m 1024 -smp 1 \
    -display none -no-reboot -nodefaults -nic none -serial "file:$d/serial.log" -msg timestamp=on \
    -D "$d/trace.log" -trace 'esp*' -trace 'scsi_req*' -trace 'scsi_disk*' \
    -kernel "$KIMG" -initrd "$W/initrd.cpio" -append "console=ttyS0 panic=-1 quiet drv=$drv n=$N" \
    -device am53c974,id=scsi0 \
    -drive "if=none,id=d0,file=$W/disk0.img,format=raw,snapshot=on" \
    -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0 > "$d/qemu.out" 2>&1 ||
    echo "linux-esp-trace: qemu for $drv exited with $?"
  grep -aq 'PCAMT: DONE' "$d/serial.log" || echo "linux-esp-trace: $drv did not finish (see $d/serial.log)"
  # Windows: dd's writes (LBA 7777 to 8888 marker reads, one write each)
  # fio's (6666 to 9999, N writes) and fio's from a huge page (5555 to
  # 9998). Counted per WRITE command in the
  # window; the log backend's lines are PID@SEC.USEC:EVENT ...
  for win in "dd 7777 8888" "fio 6666 9999" "fio-hugepage 5555 9998"; do
    set -- $win
    awk -v drv=$drv -v tool=$1 -v m0=$2 -v m1=$3 '
      { split($1, a, ":"); split(a[1], t, "@"); ts = t[2] * 1e6; ev = a[2] }
      $0 ~ ("scsi_req_parsed_lba.* lba " m0 "$") {on = 1; next}
      $0 ~ ("scsi_req_parsed_lba.* lba " m1 "$") {on = 0}
      !on {next}
      ev == "scsi_req_parsed_lba" && / command 42 / {w++; inw = 1; t0 = ts}
      !inw {next}
      ev == "esp_mem_readb" {r++} ev == "esp_mem_writeb" {wr++}
      ev ~ /^esp_mem_writeb_cmd_/ {c[substr(ev, 16)]++}
      ev == "esp_pci_dma_read" {dr++} ev == "esp_pci_dma_write" {dw++}
      ev == "esp_raise_irq" {irq++}
      ev == "esp_handle_ti" {ti[$NF]++; nti++}
      ev == "esp_command_complete" {tt += ts - t0}
      ev ~ /cmd_ensel/ {inw = 0}
      END {if (!w) {print drv " " tool ": no WRITE seen"; exit}
        printf "%s %s: per 64 KiB WRITE (mean of %d): TI with DMA %.1f (bytes:", drv, tool, w, nti / w
        for (k in ti) printf " %s x%.1f", k, ti[k] / w
        printf "), chip irqs %.1f, chip reg reads %.1f writes %.1f, DMA-engine reads %.1f writes %.1f,",
          irq / w, r / w, wr / w, dr / w, dw / w
        printf " CDB to complete %.0f us (traced)\n  commands:", tt / w
        for (k in c) printf " %s %.1f", k, c[k] / w
        printf "\n"}' "$d/trace.log"
  done | tee "$d/summary.txt"
done
