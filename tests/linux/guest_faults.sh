#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of the faults-under-load guest (tests/linux/test_linux_faults.sh):
# pcam.ko under Debian's kernel; a verified load runs on disk A (0:0) the
# whole time (fio with verify=crc32c in a loop, plus sectcheck rereading the
# host's sector pattern below fio's region) while disk B (3:0, blkdebug on
# the host) gets a medium error, a write error, sg_reset -d and -b, a
# request held past its timeout (the host throttles B) and finally is
# removed from QEMU; then a new disk is added at 5:0 and found by a host
# rescan. pcamchip=esp|sym: the medium error is on a read on the AM53C974,
# on a write on the LSI53C895A (QEMU 7.2's LSI model never reselects for a
# disconnected read that failed, and the chip reset that Linux's error
# handler ends with then trips an assertion in the model: QEMU aborts).
# It prints facts as "PCAMT: ..." lines and decides nothing: the host
# asserts them. Every wait has a bound. Hand-offs with the host are lines
# the host waits for (PCAMT: HOLD-READY, ...) and files in /sys or results
# the guest polls for, never a fixed sleep.
# pcamsoak=SECONDS on the command line: the soak instead (tests/linux/soak.sh):
# the same load for SECONDS while B cycles through its medium error, write
# error and resets, no held request and no removal.
. /etc/guest_lib.sh  # busybox, /proc /sys /dev, KVER and M (tests/linux/guest_lib.sh)
say() { echo "PCAMT: $*"; }
pfx() { sed "s/^/PCAMT-$1: /"; }
up() { cut -d' ' -f1 /proc/uptime; }
secs() { cut -d. -f1 /proc/uptime; }
mark() { DM=$(dmesg | wc -l); }
since() { dmesg | tail -n +$((DM + 1)); }
soak=0 chip=esp
for w in $(cat /proc/cmdline); do
  case $w in pcamsoak=*) soak=${w#pcamsoak=} ;; pcamchip=*) chip=${w#pcamchip=} ;; esac
done
say "init kernel $(uname -r) uptime $(up) chip $chip soak $soak"
for m in $(cat /etc/modules); do insmod "$M/$m" || say "insmod $m FAILED"; done
insmod "$M/pcam.ko"; say "insmod pcam rc=$?"
dev_of() {
  for d in /sys/class/scsi_disk/*:0:"$1":"$2"/device/block/*; do
    [ -e "$d" ] && basename "$d"
  done
}
wait_dev() {  # TARGET: waits for the disk at TARGET:0, sets DEV
  i=0
  while [ $i -lt 600 ]; do
    DEV=$(dev_of "$1" 0); [ -n "$DEV" ] && [ -b "/dev/$DEV" ] && return 0
    sleep 0.1; i=$((i + 1))
  done
  DEV=""; return 1
}
wait_dev 0; A=$DEV; wait_dev 3; B=$DEV
say "disks A=${A:-none} B=${B:-none} uptime $(up)"
dmesg | grep -E 'DC-390' | pfx DMESG-DC390
for h in /sys/class/scsi_host/host*; do [ "$(cat $h/proc_name)" = pcam ] && HOST=$h; done
SGB=$(basename /sys/class/scsi_disk/*:0:3:0/device/scsi_generic/sg*)
# reads, writes and flushes the block layer completed, and in flight
ios() { awk '{print $1 + $5 + ($16 == "" ? 0 : $16)}' /sys/block/$1/stat; }
inflight() { awk '{print $9}' /sys/block/$1/stat; }
counters() { sed 's/^/PCAMT-COUNTERS-'"$1"': /' $HOST/pcam_counters; }
counters START
ios_a0=$(ios $A)
stat_a0=$(cat /sys/block/$A/stat)

# ---- the verified load on A: fio over 16-64 MiB, sectcheck over 0-16 MiB
cat > /tmp/verify.fio <<EOF
[global]
filename=/dev/$A
direct=1
ioengine=libaio
verify=crc32c
verify_fatal=1
do_verify=1
[rand]
rw=randwrite
bsrange=4k-64k
iodepth=8
offset=16M
size=24M
verify_backlog=64
[seq]
rw=write
bs=128k
iodepth=2
offset=40M
size=24M
EOF
rm -f /tmp/stop
(
  n=0; bad=0
  while [ ! -e /tmp/stop ]; do
    fio /tmp/verify.fio > /tmp/fio.$n 2>&1; r=$?
    [ $r -eq 0 ] || bad=$((bad + 1))
    n=$((n + 1))
  done
  echo "$n $bad" > /tmp/fio.done
) &
fiol=$!
(
  n=0; wrong=0
  while [ ! -e /tmp/stop ]; do
    sectcheck -d /dev/$A 0 32768 > /tmp/sc.out 2>&1
    grep -q 'sectcheck: 32768 sectors read, 0 wrong' /tmp/sc.out || { wrong=$((wrong + 1)); cat /tmp/sc.out >> /tmp/sc.bad; }
    n=$((n + 1))
  done
  echo "$n $wrong" > /tmp/sc.done
) &
scl=$!
say "load started uptime $(up)"

# ---- end of the load: results, counts (before the hot add: the rescan
# sends REPORT LUNS to A, which is no block request)
end_load() {
# (each loop looks for /tmp/stop only between passes: a loop not done yet
# was running through every fault above)
say "load-running-at-end fio=$([ -e /tmp/fio.done ] && echo no || echo yes) sectcheck=$([ -e /tmp/sc.done ] && echo no || echo yes)"
touch /tmp/stop
n=0; while [ $n -lt 3000 ] && { [ ! -e /tmp/fio.done ] || [ ! -e /tmp/sc.done ]; }; do sleep 0.2; n=$((n + 1)); done
say "fio-loop runs,failed $(cat /tmp/fio.done 2>/dev/null || echo 'none none')"
# each run's job lines (err=), issued counts, and any verify complaint
for f in /tmp/fio.[0-9]*; do
  grep -E 'err=|issued rwts|verify|crc32c|bad magic|fio: ' "$f" | sed "s|^|${f#/tmp/fio.} |"
done | pfx FIO
say "sectcheck-loop passes,bad $(cat /tmp/sc.done 2>/dev/null || echo 'none none')"
[ -e /tmp/sc.bad ] && head -20 /tmp/sc.bad | pfx SC-BAD
# every kernel line about A over the whole run, not only the fault windows
dmesg | grep -E "\\[$A\\]|dev $A," | pfx DMESG-A
counters END
say "ios A start=$ios_a0 end=$(ios $A) inflight=$(inflight $A)"
say "stat A start $stat_a0"
say "stat A end $(cat /sys/block/$A/stat)"
[ -e /sys/block/$B/stat ] && say "ios B end=$(ios $B) inflight=$(inflight $B)"
}

# ---- the faults on B, one after another
faults() {  # one round: medium error, write error, sg_reset -d, -b
  mark
  if [ "$chip" = sym ]; then
    dd if=/dev/zero of=/dev/$B bs=4k seek=1024 count=1 oflag=direct 2> /tmp/err; r=$?
  else
    dd if=/dev/$B of=/dev/null bs=4k skip=1024 count=1 iflag=direct 2> /tmp/err; r=$?
  fi
  say "medium-error rc=$r $(tr '\n' ' ' < /tmp/err)"
  since | pfx DMESG-MEDIUM
  mark
  dd if=/dev/zero of=/dev/$B bs=4k seek=2048 count=1 oflag=direct 2> /tmp/err; r=$?
  say "write-error rc=$r $(tr '\n' ' ' < /tmp/err)"
  since | pfx DMESG-WRITEERR
  mark
  for how in -d -b; do
    sg_reset $how /dev/$SGB > /tmp/o 2>&1; r=$?; pfx SG-RESET < /tmp/o
    say "sg_reset $how rc=$r then $(sectcheck -d /dev/$B 0 8192 | tail -1)"
  done
  since | pfx DMESG-RESET
}
if [ "$soak" -gt 0 ]; then
  end=$(( $(secs) + soak )); rounds=0
  while [ "$(secs)" -lt $end ]; do faults > /tmp/round 2>&1; rounds=$((rounds + 1)); cp /tmp/round /tmp/round.last; sleep 5; done
  say "soak rounds=$rounds"
  cat /tmp/round.last
  end_load
else
# several rounds: a reset that fails the verified disk's live I/O shows in
# a few rounds in ten under load (it did before the sg_reset fix in pcam.ko)
for r in 1 2 3 4 5; do faults; done
# ---- a request the host holds (it throttles B's reads to 4 KiB/s) past a
# 4 s timeout: Linux's error handler aborts it and escalates through pcam
echo 4 > /sys/block/$B/device/timeout
mark
# the host lifts the throttle once the abort is asked for, so the read the
# EH retries can finish
( n=0
  while [ $n -lt 1500 ] && [ ! -e /tmp/hold-over ]; do
    if since | grep -q 'pcam: eh_abort: asking the core'; then say "EH-ABORT-SEEN uptime $(up)"; break; fi
    sleep 0.2; n=$((n + 1))
  done ) &
watcher=$!
say "HOLD-READY uptime $(up)"
i=0; held=0; end=$(( $(secs) + 240 ))
while [ "$(secs)" -lt $end ]; do
  t0=$(up)
  sectcheck -d /dev/$B 4096 128 > /tmp/held 2>&1; r=$?
  t1=$(up)
  i=$((i + 1))
  if since | grep -q 'pcam: eh_abort'; then held=1; break; fi
done
touch /tmp/hold-over; wait $watcher
say "HOLD-DONE reads=$i held=$held rc=$r took $(echo "$t0 $t1" | awk '{printf "%.1f", $2-$1}') s: $(tail -1 /tmp/held)"
sleep 2
since | grep -iE 'pcam|abort|reset|timing out|timed out|offline' | pfx DMESG-EH
echo 30 > /sys/block/$B/device/timeout
say "after-eh $(sectcheck -d /dev/$B 0 8192 | tail -1) state $(cat /sys/block/$B/device/state)"

# ---- B removed from QEMU while a reader runs on it
mark
( n=0; while [ $n -lt 10000 ] && sectcheck -d /dev/$B 0 8192 > /tmp/rm.out 2>&1; do n=$((n + 1)); done
  echo "$n passes, then $(tail -2 /tmp/rm.out | tr '\n' ' ')" > /tmp/rm.done ) &
rdr=$!
sleep 1
say "UNPLUG-READY uptime $(up)"
n=0; while [ $n -lt 1200 ] && [ ! -e /tmp/rm.done ]; do sleep 0.1; n=$((n + 1)); done
say "reader-on-removed ended=$([ -e /tmp/rm.done ] && echo yes || echo no) after $(( n / 10 )) s: $(cat /tmp/rm.done 2>/dev/null)"
t0=$(secs)
dd if=/dev/$B of=/dev/null bs=4k count=1 iflag=direct 2> /tmp/err; r=$?
say "read-after-removal rc=$r in $(( $(secs) - t0 )) s: $(tr '\n' ' ' < /tmp/err)"
say "removed-state $(cat /sys/block/$B/device/state 2>/dev/null || echo gone)"
since | grep -vE 'PCAMT' | pfx DMESG-REMOVE
# what udev or a user does with a disk that answers no selection any more
echo 1 > /sys/block/$B/device/delete; r=$?
say "delete rc=$r then $([ -e /sys/block/$B ] && echo present || echo gone)"
end_load
# ---- a new disk at 5:0 (the host device_adds it after UNPLUG-READY's
# removal is done); the host rescan finds it
mark
n=0; E=""
while [ $n -lt 60 ] && [ -z "$E" ]; do
  echo "- - -" > $HOST/scan
  E=$(dev_of 5 0); [ -n "$E" ] && [ -b /dev/$E ] || { E=""; sleep 2; }
  n=$((n + 1))
done
say "rescan E=${E:-none} after $n scans"
if [ -n "$E" ]; then
  say "size-E $(cat /sys/block/$E/size)"
  sg_vpd -p sn /dev/$E 2>&1 | pfx SG-VPD-E
  sectcheck -d /dev/$E 0 16384 | tail -1 | pfx "E-READ"
  sectcheck -d -w -b 0x7063616d00000000 /dev/$E 1000 2048 | tail -1 | pfx "E-WRITE"
  sectcheck -d -b 0x7063616d00000000 /dev/$E 1000 2048 | tail -1 | pfx "E-REREAD"
fi
since | grep -vE 'PCAMT' | pfx DMESG-ADD
fi

mark
rmmod pcam; say "rmmod rc=$?"
since | grep -E 'pcam|WARNING|BUG' | pfx DMESG-RMMOD
say "kernel-bugs $(dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace|hung_task|blocked for more than')"
say "DONE uptime $(up)"
sync
poweroff -f
