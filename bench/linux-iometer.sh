#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (not a test): the IOMeter method through Linux. Boots Debian's
# kernel under QEMU TCG (one vCPU) with the same kernel, initramfs and fresh
# scratch disks for every boot, once per driver: pcam.ko and Linux's own
# driver for the chip, and runs every cell of bench/fio/*.fio (file server,
# web server, database, workstation, sequential read and write) at depths
# 1, 4, 16 and 64 on one disk and on two inside that one boot
# (bench/linux-iometer-guest.sh). Prints a table per chip (IOPS and mean
# latency, pcam / native) and draws IOPS and latency against depth.
#   esp: QEMU's am53c974 (pcam.ko against esp_scsi + am53c974)
#   sym: QEMU's lsi53c895a (pcam.ko against sym53c8xx)
# Each boot holds flock PCAM_VM_LOCK (default /tmp/pcam-vm.lock) for that
# boot only; the host's load average is recorded beside each boot.
# usage: sh bench/linux-iometer.sh [esp|sym|both [WORK_DIR [IMG_DIR]]]
#   (defaults: both, build/linux-iometer, docs/img)
#   LINUX_IOMETER_RT=s / LINUX_IOMETER_RAMP=s: seconds per cell (3 / 1)
#   LINUX_IOMETER_GUEST="specs=database,seqread qds=1,64": a subset;
#     add huge=1 for fio's buffers in a huge page (physically contiguous)
#   LINUX_IOMETER_REPORT=1: no boots, table and plot from WORK_DIR's data
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
CHIPS=${1:-both}
[ "$CHIPS" = both ] && CHIPS="esp sym"
for c in $CHIPS; do case $c in esp|sym) ;; *) echo "usage: $0 [esp|sym|both [WORK_DIR [IMG_DIR]]]" >&2; exit 2 ;; esac; done
WORK=${2:-$SRC/build/linux-iometer}
IMG=${3:-$SRC/docs/img}
mkdir -p "$WORK" "$IMG"; WORK=$(cd "$WORK" && pwd)
W=$WORK/vm
LOCK=${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}
DATA=$WORK/iometer.dat

boot() {  # chip driver
  case $1 in esp) ctrl=am53c974 ;; sym) ctrl=lsi53c895a ;; esac
  d=$W/$1-$2
  rm -rf "$d"; mkdir -p "$d"
  # fresh scratch disks from the zero-filled templates: every boot starts alike
  cp "$W/scratch.img" "$d/disk0.img"; cp "$W/scratch.img" "$d/disk1.img"
  l0=$(cut -d' ' -f1-3 /proc/loadavg)
  flock "$LOCK" timeout 2400 qemu-system-x86_64 -M pc -accel tcg -m 1024 -smp 1 -display none -no-reboot \
    -nodefaults -nic none -serial "file:$d/serial.log" \
    -kernel "$KIMG" -initrd "$W/initrd.cpio" \
    -append "console=ttyS0 panic=-1 quiet drv=$2 rt=${LINUX_IOMETER_RT:-3} ramp=${LINUX_IOMETER_RAMP:-1} ${LINUX_IOMETER_GUEST:-}" \
    -device $ctrl,id=scsi0 \
    -drive "if=none,id=d0,file=$d/disk0.img,format=raw,cache=writeback" \
    -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0 \
    -drive "if=none,id=d1,file=$d/disk1.img,format=raw,cache=writeback" \
    -device scsi-hd,drive=d1,bus=scsi0.0,scsi-id=3 > "$d/qemu.out" 2>&1 ||
    echo "linux-iometer: qemu for $1/$2 exited with $?"
  l1=$(cut -d' ' -f1-3 /proc/loadavg)
  rm -f "$d/disk0.img" "$d/disk1.img"
  tr -d '\r' < "$d/serial.log" | grep -a 'PCAMIO' > "$d/facts" || true
  grep -q 'PCAMIO: DONE' "$d/facts" || echo "linux-iometer: $1/$2 did not finish (see $d/serial.log)"
  echo "linux-iometer: $1/$2 done, host load before $l0, after $l1"
  echo "# $1 $2 load-before $l0 load-after $l1" >> "$DATA.new"
  awk -v c=$1 -v v=$2 '/PCAMIO: cell/ {print c, v, $3, $5, $7, $9, $11, $13, $15}' "$d/facts" >> "$DATA.new"
}

if [ -z "${LINUX_IOMETER_REPORT:-}" ]; then
  . "$SRC/tests/linux/vm_lib.sh"
  vm_kernel
  vm_module
  rm -rf "$W"; mkdir -p "$W/extra/fio"
  cp "$SRC"/bench/fio/*.fio "$W/extra/fio/"
  vm_initramfs "$SRC/bench/linux-iometer-guest.sh" "$W/initrd.cpio" "$W/extra"
  dd if=/dev/zero of="$W/scratch.img" bs=1M count=128 status=none
  : > "$DATA.new"
  # pcam and native in turn, so that the host's load hits both alike
  for c in $CHIPS; do
    case $c in esp) native=am53c974 ;; sym) native=sym53c8xx ;; esac
    boot $c pcam
    boot $c $native
  done
  mv "$DATA.new" "$DATA"
fi

# columns: chip driver spec disks qd iops lat_us busy% irqs
for c in $CHIPS; do
  case $c in esp) native=am53c974 ;; sym) native=sym53c8xx ;; esac
  echo
  echo "| $c: spec | disks | depth | pcam.ko IOPS | $native IOPS | pcam / $native | pcam.ko mean lat, us | $native mean lat, us | busy % pcam / $native |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk -v c=$c -v n=$native '/^#/ {next} $1 == c {k = $3 " " $4 " " $5; if (!(k in seen)) {seen[k] = 1; order[m++] = k}
      io[$2, k] = $6; lat[$2, k] = $7; busy[$2, k] = $8}
    END {for (i = 0; i < m; i++) {k = order[i]; split(k, f, " ")
      p = io["pcam", k]; e = io[n, k]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", f[1], f[2], f[3], p, e,
        (e > 0) ? sprintf("%.2fx", p / e) : "-", lat["pcam", k], lat[n, k], busy["pcam", k], busy[n, k]}}' "$DATA"
done | tee "$WORK/table.md"

command -v gnuplot >/dev/null 2>&1 || { echo "linux-iometer: gnuplot not installed, no plot" >&2; exit 0; }
for c in $CHIPS; do
  case $c in esp) native=am53c974 ctrl=AM53C974 ;; sym) native=sym53c8xx ctrl=LSI53C895A ;; esac
  for s in fileserver webserver database workstation seqread seqwrite; do
    for v in pcam $native; do
      for n in 1 2; do
        awk -v c=$c -v v=$v -v s=$s -v n=$n '$1 == c && $2 == v && $3 == s && $4 == n {print $5, $6, $7}' "$DATA" \
          > "$WORK/plot-$c-$s-$v-$n.dat"
      done
    done
  done
  gnuplot <<GP
set terminal pngcairo size 1500,700 font ",9"
set output "$IMG/linux-iometer-$c.png"
set multiplot layout 2,6 title "IOMeter specifications through Linux on QEMU's $ctrl (TCG, one vCPU): pcam.ko against $native"
set logscale x 2
set xtics (1, 4, 16, 64)
set xrange [0.8:80]
set xlabel "queue depth"
set key top left font ",7"
set grid
do for [s in "fileserver webserver database workstation seqread seqwrite"] {
  set title s
  set ylabel "IOPS"
  plot "$WORK/plot-$c-".s."-pcam-1.dat" u 1:2 w lp lc 1 pt 7 t "pcam, 1 disk", \
       "$WORK/plot-$c-".s."-pcam-2.dat" u 1:2 w lp lc 1 pt 5 dt 2 t "pcam, 2 disks", \
       "$WORK/plot-$c-".s."-$native-1.dat" u 1:2 w lp lc 3 pt 6 t "$native, 1 disk", \
       "$WORK/plot-$c-".s."-$native-2.dat" u 1:2 w lp lc 3 pt 4 dt 2 t "$native, 2 disks"
}
set logscale y 10
do for [s in "fileserver webserver database workstation seqread seqwrite"] {
  set title s
  set ylabel "mean latency, us (log)"
  plot "$WORK/plot-$c-".s."-pcam-1.dat" u 1:3 w lp lc 1 pt 7 t "pcam, 1 disk", \
       "$WORK/plot-$c-".s."-pcam-2.dat" u 1:3 w lp lc 1 pt 5 dt 2 t "pcam, 2 disks", \
       "$WORK/plot-$c-".s."-$native-1.dat" u 1:3 w lp lc 3 pt 6 t "$native, 1 disk", \
       "$WORK/plot-$c-".s."-$native-2.dat" u 1:3 w lp lc 3 pt 4 dt 2 t "$native, 2 disks"
}
unset multiplot
GP
  echo "linux-iometer: $IMG/linux-iometer-$c.png"
done
