#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of the tests/linux guest: loads pcam.ko under Debian's kernel and
# runs every check of one boot in sequence, printing facts as
# "PCAMT: ..." lines on the serial console. It decides nothing: the host
# compares the facts with its own expectations (the images, QEMU's config).
# Must never wait without a bound: every loop has a limit.
# pcamchip=esp|sym on the kernel command line says which controller QEMU
# has (AM53C974 or LSI53C895A); only what the model cannot do differs:
#  - the ext2 disk is at 3:2 on the AM53C974, at 5:0 on the LSI53C895A
#    (that model has no LUN above 0);
#  - the medium error is a blkdebug read error on the AM53C974, a write error
#    on the LSI53C895A (a disconnected read that fails is never reselected
#    by the model);
#  - the held-request EH check runs on the AM53C974 only (on the LSI model the
#    ABORT TASK makes QEMU cancel the held request synchronously: a hang).
# Both have a 3 TiB sparse disk at 4:0 (D), used only by its own step.
# With pcamchip=sym QEMU also has a SAS1068 (mptsas1068, hal/mpt in the
# same pcam.ko) with disks at 1:0 (E, the sector pattern) and 2:0 (F):
# mpt_checks reads and writes them (IDs no disk of the LSI bus has).
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
say() { echo "PCAMT: $*"; }
pfx() { sed "s/^/PCAMT-$1: /"; }
up() { cut -d' ' -f1 /proc/uptime; }
say "init kernel $(uname -r) uptime $(up)"
chip=esp
for w in $(cat /proc/cmdline); do case $w in pcamchip=*) chip=${w#pcamchip=} ;; esac; done
if [ "$chip" = sym ]; then BT=5 BL=0; else BT=3 BL=2; fi
say "chip $chip"

for m in $(cat /etc/modules); do insmod "$M/$m" || say "insmod $m FAILED"; done
load_pcam() {
  insmod "$M/pcam.ko" "$@"; say "insmod pcam $* rc=$?"
}
# name of the sd disk at target $1 LUN $2 (sd probes asynchronously)
dev_of() {
  for d in /sys/class/scsi_disk/*:0:"$1":"$2"/device/block/*; do
    [ -e "$d" ] && basename "$d"
  done
}
wait_disks() {
  i=0
  while [ $i -lt 600 ]; do
    A=$(dev_of 0 0); B=$(dev_of $BT $BL); C=$(dev_of 3 0); D=$(dev_of 4 0)
    [ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$D" ] && [ -b "/dev/$A" ] && [ -b "/dev/$B" ] &&
      [ -b "/dev/$C" ] && [ -b "/dev/$D" ] && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
md5() { md5sum | cut -d' ' -f1; }
# kernel messages since the last mark
mark() { DM=$(dmesg | wc -l); }
since() { dmesg | tail -n +$((DM + 1)); }
secs() { cut -d. -f1 /proc/uptime; }

# The whole first disk read as dd reads it: the MD5 of the stream, the
# sectors in that very stream (sectcheck on a FIFO fed by tee), the page
# cache afterwards, and the disk again with O_DIRECT. Every sector of the
# pattern disk holds its own number, so a wrong one is named.
whole_disk() {
  rm -f /tmp/stream; mkfifo /tmp/stream
  sectcheck /tmp/stream > /tmp/sc.stream 2>&1 &
  scp=$!
  say "md5 whole $A $(dd if=/dev/$A bs=1M 2>/tmp/dd.whole | tee /tmp/stream | md5)"
  wait $scp
  pfx SECTCHECK-STREAM < /tmp/sc.stream
  pfx DD-WHOLE < /tmp/dd.whole
  sectcheck /dev/$A | pfx SECTCHECK
  sectcheck -d /dev/$A 0 65536 | pfx SECTCHECK-DIRECT
}

# pcamdrv=am53c974|sym53c8xx: Linux's own driver instead of pcam.ko, for the
# attach and the whole-disk read only (the control of an integrity run).
drv=pcam
for w in $(cat /proc/cmdline); do case $w in pcamdrv=*) drv=${w#pcamdrv=} ;; esac; done
if [ "$drv" != pcam ]; then
  for m in $(cat /etc/modules.$drv); do insmod "$M/$m" || say "insmod $m FAILED"; done
  if wait_disks; then say "disks A=$A B=$B C=$C D=$D driver $drv uptime $(up)"; else say "disks MISSING"; fi
  whole_disk
  say "kernel-bugs $(dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace')"
  say "DONE uptime $(up)"
  poweroff -f
fi

# ---- attach
load_pcam
if wait_disks; then say "disks A=$A B=$B C=$C D=$D uptime $(up)"; else say "disks MISSING"; fi
for d in $A $B $C $D; do say "size $d $(cat /sys/block/$d/size)"; done
lsscsi | pfx LSSCSI
for t in 0 3; do
  s=/sys/class/spi_transport/target*:0:$t
  for f in period offset width dt iu qas; do
    if [ -e $s/$f ]; then say "spi target$t $f=$(cat $s/$f)"; else say "spi target$t $f=absent"; fi
  done
done
# a write sets the core's user limit and renegotiates on the next command
for s in /sys/class/spi_transport/target*:0:0; do :; done  # (no glob in a redirection)
echo 50 > $s/period; r1=$?; echo 8 > $s/offset; r2=$?
say "spi write period rc=$r1 offset rc=$r2; then offset=$(cat $s/offset) md5 $(dd if=/dev/$A bs=64k count=16 iflag=direct 2>/dev/null | md5)"
say "queue_type $A=$(cat /sys/block/$A/device/queue_type) depth=$(cat /sys/block/$A/device/queue_depth)"
dmesg | grep -iE 'pcam|am53c974|esp|sym|53c8' | pfx DMESG-ATTACH

# ---- the SAS1068 (pcamchip=sym): whole-disk read sector by sector, four
# readers at once, a pattern written and read back (the host checks the
# image after the VM exits)
mpt_checks() {
  i=0
  while [ $i -lt 600 ]; do
    E=$(dev_of 1 0); F=$(dev_of 2 0)
    [ -n "$E" ] && [ -n "$F" ] && [ -b "/dev/$E" ] && [ -b "/dev/$F" ] && break
    sleep 0.1; i=$((i + 1))
  done
  say "mpt disks E=$E F=$F uptime $(up)"
  [ -n "$E" ] && [ -n "$F" ] || return 0
  say "mpt queue_type $E=$(cat /sys/block/$E/device/queue_type) depth=$(cat /sys/block/$E/device/queue_depth)"
  sectcheck -d /dev/$E 0 "$(cat /sys/block/$E/size)" | pfx MPT-SECTCHECK
  pids=
  for k in 0 1 2 3; do
    dd if=/dev/$E bs=64k skip=$((k * 64)) count=64 iflag=direct 2>/dev/null | md5 > /tmp/mpt-r$k &
    pids="$pids $!"
  done
  wait $pids
  say "md5 mpt-parallel $(cat /tmp/mpt-r0 /tmp/mpt-r1 /tmp/mpt-r2 /tmp/mpt-r3 | tr '\n' ' ')"
  yes PCAM-MPT-PATTERN | head -c 1048576 > /tmp/mptpat
  dd if=/tmp/mptpat of=/dev/$F bs=64k seek=16 oflag=direct conv=fsync 2>/dev/null; say "mpt write rc=$?"
  say "md5 mpt-readback $(dd if=/dev/$F bs=64k skip=16 count=16 iflag=direct 2>/dev/null | md5)"
  say "mpt checks done uptime $(up)"
}
[ "$chip" = sym ] && mpt_checks

# ---- whole disk read, then a pattern written in the guest
whole_disk
yes PCAM-GUEST-PATTERN | head -c 1048576 > /tmp/pat
dd if=/tmp/pat of=/dev/$A bs=64k seek=384 oflag=direct conv=fsync 2>/dev/null; say "pattern write rc=$?"
say "md5 pattern-readback $(dd if=/dev/$A bs=64k skip=384 count=16 iflag=direct 2>/dev/null | md5)"

# ---- a 3 TiB sparse disk at 4:0 (6442450944 sectors): sd needs READ
# CAPACITY(16) to size it and READ/WRITE(16) for every I/O. The host filled
# sectors 0-2047, 2^32-2048 .. 2^32+2047 and the last 2048 with the sector
# pattern; reads go one O_DIRECT request at a time from an unaligned start,
# so some requests straddle LBA 2^32 (the 8-sector one at 2^32-4 surely
# does). Then a second pattern (base 0x7063616d00000000) is written across
# 2^32 and at 5 Gi sectors; the host checks the image after the VM exits.
mark
sg_readcap -l /dev/$D 2>&1 | pfx BIG-READCAP
for r in "0 2048" "4294966296 2000" "4294967292 8" "6442448896 2048"; do
  sectcheck -d /dev/$D $r | pfx "BIG-READ $r"
done
BB=0x7063616d00000000
for r in "4294966296 2000" "5368709120 2048"; do
  sectcheck -d -w -b $BB /dev/$D $r | tail -1 | pfx "BIG-WRITE $r"
  sectcheck -d -b $BB /dev/$D $r | pfx "BIG-REREAD $r"
done
dmesg | grep -E "\\[$D\\]" | pfx DMESG-BIG  # from sd's attach on

# ---- ext2 made on the host
mount -t ext2 /dev/$B /mnt; say "mount rc=$?"
say "md5 ext2-file $(md5 < /mnt/host.bin)"
echo "written by the pcam guest through pcam.ko" > /mnt/guest.txt; say "ext2 write rc=$?"
umount /mnt; say "umount rc=$?"

# ---- medium error (blkdebug: ENODATA at sector 8192 of the disk at 3:0,
# on reads for the AM53C974, on writes for the LSI53C895A)
mark
if [ "$chip" = sym ]; then
  dd if=/dev/zero of=/dev/$C bs=4k seek=1024 count=1 oflag=direct 2> /tmp/err
else
  dd if=/dev/$C of=/dev/null bs=4k skip=1024 count=1 iflag=direct 2> /tmp/err
fi
say "medium-error rc=$? $(tr '\n' ' ' < /tmp/err)"
since | pfx DMESG-MEDIUM
say "md5 before-bad $(dd if=/dev/$C bs=64k count=64 iflag=direct 2>/dev/null | md5) rc=$?"
say "md5 after-bad $(dd if=/dev/$C bs=64k skip=65 count=63 iflag=direct 2>/dev/null | md5)"

# ---- the tools Linux users check a SCSI host with
sg_inq /dev/$A 2>&1 | pfx SG-INQ
sg_vpd -p sn /dev/$A 2>&1 | pfx SG-VPD
sg_readcap /dev/$A 2>&1 | pfx SG-READCAP
sg_luns /dev/$C 2>&1 | pfx SG-LUNS
sg_turs -n 5 /dev/$A > /tmp/o 2>&1; r=$?; pfx SG-TURS < /tmp/o; say "sg_turs rc=$r"
sg_requests /dev/$A > /tmp/o 2>&1; r=$?; pfx SG-REQUESTS < /tmp/o; say "sg_requests rc=$r"
SGA=$(basename /sys/class/scsi_disk/*:0:0:0/device/scsi_generic/sg*)
mark
for how in -d -b -H; do
  sg_reset $how /dev/$SGA > /tmp/o 2>&1; r=$?; pfx SG-RESET < /tmp/o
  say "sg_reset $how rc=$r then md5 $(dd if=/dev/$A bs=64k skip=384 count=16 iflag=direct 2>/dev/null | md5)"
done
since | grep -E 'pcam' | pfx DMESG-RESET

# ---- a request held in QEMU past a short timeout: Linux's error handler
mark
if [ "$chip" = esp ]; then
echo 4 > /sys/block/$C/device/timeout
(
  n=0; seen=""
  while [ $n -lt 1200 ]; do
    if [ -z "$seen" ] && since | grep -q 'pcam: eh_abort: asking the core'; then
      say "EH-ABORT-SEEN uptime $(up)"; seen=1
    fi
    if [ "$seen" = 1 ] && since | grep -q 'pcam: .* reset: asking the core'; then
      say "EH-RESET-SEEN uptime $(up)"; seen=2
    fi
    [ -e /tmp/hold-over ] && break
    sleep 0.2; n=$((n + 1))
  done
) &
watcher=$!
say "HOLD-READY uptime $(up)"
i=0; held=""; end=$(( $(secs) + 180 ))
while [ "$(secs)" -lt $end ]; do
  t0=$(up)
  dd if=/dev/$C of=/tmp/held bs=4k skip=16 count=1 iflag=direct 2>/dev/null; r=$?
  t1=$(up)
  if since | grep -q 'pcam: eh_abort'; then held=1; break; fi
  i=$((i + 1))
done
touch /tmp/hold-over; wait $watcher
say "hold reads=$i held=${held:-0} last-rc=$r took $(echo "$t0 $t1" | awk '{printf "%.1f", $2-$1}') s md5 $(md5 < /tmp/held)"
since | grep -iE 'pcam|abort|reset|timing out|timed out' | pfx DMESG-EH
say "md5 after-eh $(dd if=/dev/$C bs=4k skip=16 count=1 iflag=direct 2>/dev/null | md5)"
echo 30 > /sys/block/$C/device/timeout
else
  say "hold skipped on $chip (see the top of this file)"
fi

# ---- several readers and writers at once, verified (the reader stays
# below the bad block; LUN 2 is left alone after the resets: QEMU 7.2 loses
# the UNIT ATTENTION sense of a LUN above 0, see test_linux_boot.sh)
# the reader: one at a time on the AM53C974 (as before), 16 deep on the
# LSI53C895A, where tags let them all be outstanding at once
if [ "$chip" = sym ]; then RENG=libaio; else RENG=psync; fi
fio --name=w --filename=/dev/$A --direct=1 --ioengine=libaio --iodepth=4 --rw=randwrite \
  --bs=4k --size=2M --loops=3 --offset=4M --offset_increment=2M --numjobs=3 --verify=crc32c \
  --verify_fatal=1 --do_verify=1 --group_reporting=0 \
  --name=r --filename=/dev/$C --direct=1 --ioengine=$RENG --iodepth=16 --rw=randread \
  --bs=4k --size=4M --loops=3 > /tmp/fio 2>&1; say "fio rc=$?"
grep -E 'err=|verify|READ:|WRITE:' /tmp/fio | pfx FIO

# ---- unbind while reading, rmmod, insmod again
mark
for h in /sys/bus/pci/drivers/pcam/0000:*; do pci=$(basename "$h"); done
( n=0; while [ $n -lt 100 ] && dd if=/dev/$A of=/dev/null bs=64k iflag=direct 2>/tmp/dd-unbind; do n=$((n + 1)); done
  echo "$n passes, then $(tr '\n' ' ' < /tmp/dd-unbind)" > /tmp/dd-unbind.rc ) &
reader=$!
sleep 1
echo "$pci" > /sys/bus/pci/drivers/pcam/unbind; say "unbind $pci rc=$?"
wait $reader; say "reader-during-unbind ended after $(cat /tmp/dd-unbind.rc)"
rmmod pcam; say "rmmod rc=$?"
since | grep -E 'pcam|WARNING|BUG' | pfx DMESG-RMMOD
load_pcam depth=8 max_depth=16 sync_offset=0 aging=0
for p in depth max_depth sync_offset aging; do say "param $p=$(cat /sys/module/pcam/parameters/$p)"; done
if wait_disks; then say "disks-again A=$A B=$B C=$C D=$D"; else say "disks-again MISSING"; fi
say "size-again $D $(cat /sys/block/$D/size)"
sectcheck -d -b 0x7063616d00000000 /dev/$D 4294966296 2000 | pfx "BIG-AFTER-RELOAD"
say "md5 pattern-after-reload $(dd if=/dev/$A bs=64k skip=384 count=16 iflag=direct 2>/dev/null | md5)"

say "kernel-bugs $(dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace')"
say "DONE uptime $(up)"
sync
poweroff -f
