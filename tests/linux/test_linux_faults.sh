#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest linux.faults (esp) and linux.faults.sym (sym): one boot of Debian's
# kernel under QEMU TCG with pcam.ko, faults and hot removal under a verified
# load (tests/linux/guest_faults.sh runs them in the guest). Disks:
#   A 0:0  64 MiB sector-pattern image, the verified disk (fio verify=crc32c
#          over 16-64 MiB, sectcheck over 0-16 MiB, the whole run);
#   B 3:0  32 MiB pattern image behind blkdebug: ENODATA on reads (esp) or
#          writes (sym, see guest_faults.sh) of sector 8192 (QEMU answers
#          MEDIUM ERROR 3/11/00), EIO on writes of sector
#          16384 (QEMU's default for an errno it does not map: ABORTED COMMAND
#          0B/00/06, which Linux retries, then fails); later its reads are
#          throttled to 4 KiB/s past a 4 s timeout (Linux's error handler),
#          then it is removed with QMP device_del during a read (between
#          two commands or during one, as it falls; PCAM_FAULTS_UNPLUG=held
#          throttles B's reads again first, so that a read is certainly on
#          the bus when it goes);
#   E 5:0  8 MiB pattern image, added with QMP device_add after the removal.
# This script drives QMP (a pipe chardev, mode=control) on the guest's cues
# and asserts the guest's facts against what it knows: the images, QEMU's
# errno-to-sense mapping, the disks it added and removed, the images after
# the VM exits. Each check greps for a positive line. QEMU runs under
# flock /tmp/pcam-vm.lock (the script takes it itself, for QEMU only).
# MODE=soak SECONDS (tests/linux/soak.sh, not in CI): the same load for
# SECONDS with B's faults in rounds; no hold, no removal.
# usage: test_linux_faults.sh SOURCE_DIR WORK_DIR [esp|sym] [faults|soak SECONDS]
set -eu
SRC=$(cd "$1" && pwd)
WORK=$2
CHIP=${3:-esp}
MODE=${4:-faults}
SOAK=${5:-0}
case $CHIP in esp|sym) ;; *) echo "usage: $0 SOURCE_DIR WORK_DIR [esp|sym] [faults|soak SECONDS]" >&2; exit 2 ;; esac
case $MODE in faults) SOAK=0 ;; soak) [ "$SOAK" -gt 0 ] || { echo "soak needs SECONDS" >&2; exit 2; } ;;
  *) echo "usage: $0 SOURCE_DIR WORK_DIR [esp|sym] [faults|soak SECONDS]" >&2; exit 2 ;; esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
. "$SRC/tests/linux/vm_lib.sh"
t_start=$(date +%s)
vm_setup faults
vm_pattern_image "$W/a.img" 64
vm_pattern_image "$W/b.img" 32
vm_pattern_image "$W/e.img" 8
gcc -O2 -o "$W/sectcheck" "$SRC/tests/linux/sectcheck.c" || vm_die "cannot build sectcheck for the host"
if [ $CHIP = sym ]; then ev=write_aio; else ev=read_aio; fi
cat > "$W/blkdebug.conf" <<EOF
[inject-error]
event = "$ev"
errno = "61"
sector = "8192"

[inject-error]
event = "write_aio"
errno = "5"
sector = "16384"
EOF
vm_initramfs "$SRC/tests/linux/guest_faults.sh" "$W/initrd.cpio"

# The AM53C974 side runs on QEMU's Tekram DC-390 (the same chip and IDs
# with an EEPROM; linux.boot keeps the plain AM53C974): pcam.ko reads the
# EEPROM QEMU fills itself (host ID 7, 32 tags, every target synchronous).
if [ $CHIP = sym ]; then CTRL=lsi53c895a; else CTRL=dc390; fi
mkfifo "$W/qmp.in" "$W/qmp.out"
LOG=$W/serial.log
: > "$LOG"
cat "$W/qmp.out" > "$W/qmp.log" &
catpid=$!
tmo=$((900 + SOAK))
# Only the QEMU run holds the VM lock (PCAM_VM_LOCK=none: the caller
# already holds it).
lock=${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}
if [ "$lock" = none ]; then set --; else set -- flock "$lock"; fi
# log_buf_len: the guest reads each phase's kernel messages by line count,
# which a soak's log would overrun in the default 128 KiB ring.
"$@" nice -n 5 timeout $tmo qemu-system-x86_64 -M pc -accel tcg -m 1024 -smp 1 -display none \
  -no-reboot -nodefaults -nic none -serial "file:$LOG" \
  -chardev "pipe,id=qmp0,path=$W/qmp" -mon chardev=qmp0,mode=control \
  -kernel "$KIMG" -initrd "$W/initrd.cpio" \
  -append "console=ttyS0 panic=-1 quiet log_buf_len=16M pcamchip=$CHIP pcamsoak=$SOAK" \
  -device $CTRL,id=scsi0 \
  -drive "if=none,id=da,file=$W/a.img,format=raw" \
  -device scsi-hd,id=hda,drive=da,bus=scsi0.0,scsi-id=0,lun=0,serial=PCAM-A \
  -drive "if=none,id=db,driver=raw,file.driver=blkdebug,file.config=$W/blkdebug.conf,file.image.filename=$W/b.img" \
  -device scsi-hd,id=hdb,drive=db,bus=scsi0.0,scsi-id=3,lun=0,serial=PCAM-B \
  -drive "if=none,id=de,file=$W/e.img,format=raw" \
  > "$W/qemu.out" 2>&1 &
qpid=$!
# (bounded: opening the FIFO would wait forever if QEMU had just exited)
qmp() { timeout 20 sh -c 'printf "%s\n" "$1" > "$2"' sh "$1" "$W/qmp.in"; vm_log "qmp: $1"; }
thr() {  # B's read throttle, bytes/s (0 = off)
  qmp "{\"execute\":\"block_set_io_throttle\",\"arguments\":{\"id\":\"hdb\",\"bps\":0,\"bps_rd\":$1,\"bps_wr\":0,\"iops\":0,\"iops_rd\":0,\"iops_wr\":0}}"
}
state=wait-qmp
while kill -0 $qpid 2>/dev/null; do
  case $state in
    # (QEMU may first wait for the VM lock: negotiate once it greets)
    wait-qmp) grep -q '"QMP"' "$W/qmp.log" 2>/dev/null && { qmp '{"execute":"qmp_capabilities"}'
      if [ $MODE = faults ]; then state=wait-hold; else state=done; fi; } ;;
    wait-hold) grep -q 'PCAMT: HOLD-READY' "$LOG" && { thr 4096; state=wait-held; } ;;
    wait-held) grep -qE 'PCAMT: (EH-ABORT-SEEN|HOLD-DONE)' "$LOG" && { thr 0; state=wait-unplug; } ;;
    wait-unplug) grep -q 'PCAMT: UNPLUG-READY' "$LOG" && {
      if [ "${PCAM_FAULTS_UNPLUG:-}" = held ]; then thr 4096; sleep 2; fi
      qmp '{"execute":"device_del","arguments":{"id":"hdb"}}'; state=wait-deleted; t_del=$(date +%s); } ;;
    wait-deleted)
      if grep -q '"DEVICE_DELETED".*"hdb"' "$W/qmp.log" || [ $(($(date +%s) - t_del)) -gt 120 ]; then
        qmp '{"execute":"device_add","arguments":{"driver":"scsi-hd","id":"hde","drive":"de","bus":"scsi0.0","scsi-id":5,"lun":0,"serial":"PCAM-E"}}'
        state=done
      fi ;;
  esac
  sleep 0.3
done
wait $qpid && qrc=0 || qrc=$?
kill $catpid 2>/dev/null || true
tr -d '\r' < "$LOG" > "$W/serial.txt"
vm_log "qemu rc=$qrc, wall $(($(date +%s) - t_start)) s ($CTRL, $MODE)"

fails=0
ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
has() { grep -aqE "$2" "$W/serial.txt" && ok "$1" || bad "$1 (no line matching: $2)"; }
val() { grep -a "PCAMT: $1" "$W/serial.txt" | head -1 | sed "s/.*PCAMT: $1//" | awk '{print $1}'; }
eq() { [ "$2" = "$3" ] && ok "$1 ($2)" || bad "$1: got '$2', want '$3'"; }
none() { if grep -aqE "$2" "$W/serial.txt"; then bad "$1"; grep -aE "$2" "$W/serial.txt" | head -5; else ok "$1"; fi; }

has "guest finished" 'PCAMT: DONE'
has "pcam.ko loaded" 'PCAMT: insmod pcam rc=0'
has "disks A (0:0) and B (3:0) attached" 'PCAMT: disks A=sd[a-z]+ B=sd[a-z]+ '
if [ $CHIP = esp ]; then
  has "pcam.ko read the DC-390's EEPROM" 'PCAMT-DMESG-DC390: .*Tekram DC-390 EEPROM: host ID 7, 32 tags per LUN'
fi
A=$(sed -n 's/.*PCAMT: disks A=\(sd[a-z]*\) .*/\1/p' "$W/serial.txt" | head -1)
# ---- B's faults and the sense each carried (QEMU 7.2 scsi_sense_from_errno)
has "medium error failed the ${ev%_aio}" 'PCAMT: medium-error rc=[1-9]'
has "medium error: Medium Error sense in the log" 'PCAMT-DMESG-MEDIUM: .*Sense Key : Medium Error'
has "medium error: ASC 11/00" 'PCAMT-DMESG-MEDIUM: .*Unrecovered read error'
has "write error failed the write" 'PCAMT: write-error rc=[1-9]'
has "write error: Aborted Command sense in the log" 'PCAMT-DMESG-WRITEERR: .*Sense Key : Aborted Command'
has "write error: ASC 00/06" 'PCAMT-DMESG-WRITEERR: .*I/O process terminated'
none "no fault reported without its sense (a host byte instead)" 'PCAMT-DMESG-(MEDIUM|WRITEERR): .*hostbyte=DID_[A-NP-Z]'
for how in -d -b; do
  has "sg_reset $how, then B reads right" "PCAMT: sg_reset $how rc=0 then sectcheck: 8192 sectors read, 0 wrong"
done
if [ $MODE = faults ]; then
  has "a read on B outlived its timeout under the throttle" 'PCAMT: HOLD-DONE .* held=1 '
  has "the held read, retried by the EH, came back right" 'PCAMT: HOLD-DONE .* held=1 rc=0 .*sectcheck: 128 sectors read, 0 wrong'
  has "Linux's EH asked pcam to abort it" 'PCAMT-DMESG-EH: .*pcam: eh_abort: asking the core'
  has "the EH ended with a pcam handler's SUCCESS" 'PCAMT-DMESG-EH: .*pcam: (eh_abort|device reset|bus reset|host reset).*SUCCESS'
  none "the EH did not offline B" 'PCAMT-DMESG-EH: .*(offlin|Device offlined)'
  has "B reads right after the EH, running" 'PCAMT: after-eh sectcheck: 8192 sectors read, 0 wrong state running'
  # ---- removal
  grep -q '"DEVICE_DELETED".*"hdb"' "$W/qmp.log" && ok "QEMU reported B deleted" || bad "no DEVICE_DELETED for hdb in qmp.log"
  has "the reader on the removed disk ended" 'PCAMT: reader-on-removed ended=yes'
  has "its last read failed (not wrong data)" 'PCAMT: reader-on-removed .*(Input/output error|No such device|read)'
  none "the removed disk never returned wrong data" 'PCAMT: reader-on-removed .*sector [0-9]+ holds'
  has "a read after the removal fails" 'PCAMT: read-after-removal rc=[1-9]'
  # Where QEMU drops the disk decides how its I/O ends. Between commands,
  # the next selection times out: DID_NO_CONNECT at once. During a command
  # on the bus, QEMU 7.2's models drop the request with no bus event at all
  # (esp_request_cancelled only forgets it; the chip waits in the data
  # phase), so that command can only time out: Linux's EH then goes through
  # pcam's handlers to a bus reset, which frees the bus, and offlines the
  # disk. Both are clean ends; each is checked for what it must show.
  if grep -aqE 'PCAMT-DMESG-REMOVE: .*(DID_NO_CONNECT|Sense Key)' "$W/serial.txt"; then
    vm_log "B was removed between commands"
    ok "the removed disk's failures name DID_NO_CONNECT or the target's sense"
  else
    vm_log "B was removed during a command on the bus"
    has "removed mid-command: pcam's bus reset freed the bus" 'PCAMT-DMESG-REMOVE: .*pcam: (bus|host) reset.*SUCCESS'
    has "removed mid-command: Linux offlined the disk after its EH" 'PCAMT-DMESG-REMOVE: .*Device offlined'
  fi
  # Either way a new read fails at once: DID_NO_CONNECT without the EH
  # (Linux does not offline the device for it), or the offline device
  # after a mid-command removal; the disk goes when it is deleted
  has "the removed disk's I/O fails at once, no timeout" 'PCAMT: read-after-removal rc=[1-9] in [0-2] s'
  has "the removed disk deleted from Linux" 'PCAMT: delete rc=0 then gone'
  # ---- the new disk
  has "rescan found the disk added at 5:0" 'PCAMT: rescan E=sd[a-z]+ '
  eq "new disk's size" "$(grep -a 'PCAMT: size-E' "$W/serial.txt" | awk '{print $NF}')" 16384
  has "new disk's serial" 'PCAMT-SG-VPD-E: +Unit serial number: PCAM-E'
  has "new disk reads, every sector its own" 'PCAMT-E-READ: sectcheck: 16384 sectors read, 0 wrong'
  has "new disk takes a write" 'PCAMT-E-WRITE: sectcheck: 2048 sectors written'
  o=$("$W/sectcheck" -b 0x7063616d00000000 "$W/e.img" 1000 2048 2>&1 | tail -1)
  eq "new disk's write is in its image" "$o" "sectcheck: 2048 sectors read, 0 wrong"
else
  has "soak rounds of B's faults" 'PCAMT: soak rounds=[1-9]'
fi
# ---- the verified disk: no error, no wrong data, the whole time
runs=$(grep -a 'PCAMT: fio-loop runs,failed' "$W/serial.txt" | awk '{print $(NF-1)}')
eq "fio runs that failed" "$(grep -a 'PCAMT: fio-loop runs,failed' "$W/serial.txt" | awk '{print $NF}')" 0
has "fio and sectcheck on A still running when B's faults were over" 'PCAMT: load-running-at-end fio=yes sectcheck=yes'
none "no fio job reported an error" 'PCAMT-FIO: [0-9]+ .*err= *[1-9]'
none "no fio verify complaint" 'PCAMT-FIO: [0-9]+ .*(verify:|crc32c|bad magic|fio: )'
eq "sectcheck passes on A with a wrong sector" "$(grep -a 'PCAMT: sectcheck-loop passes,bad' "$W/serial.txt" | awk '{print $NF}')" 0
none "no failed command on A in the whole run's kernel log" 'PCAMT-DMESG-A: .*(FAILED Result|I/O error|Sense Key|hostbyte=)'
fr=$(grep -a 'PCAMT-FIO: .*issued rwts' "$W/serial.txt" | sed -E 's/.*total=([0-9]+),([0-9]+).*/\1 \2/' |
  awk '{r += $1; w += $2} END {print r + 0, w + 0}')
vm_log "fio on A: $runs runs, $fr reads and writes issued (fio's own counts)"
# ---- every request completed once: block layer, pcam.ko, the core
has "A's block queue empty at the end" 'PCAMT: ios A start=[0-9]+ end=[0-9]+ inflight=0$'
has "pcam: no CCB left in the core before rmmod" 'PCAMT-COUNTERS-END: submitted [0-9]+ completed [0-9]+ in_core 0$'
sc=$(sed -n 's/.*PCAMT-COUNTERS-END: submitted \([0-9]*\) completed \([0-9]*\) .*/\1 \2/p' "$W/serial.txt")
eq "pcam: CCBs handed to the core = CCBs back ($sc)" "$(echo "$sc" | awk '$1 > 0 && $1 == $2 {print "equal"}')" equal
has "rmmod: every command in came back" 'PCAMT-DMESG-RMMOD: .*commands in, [0-9]+ completed, no command left'
inout=$(sed -n 's/.*PCAMT-DMESG-RMMOD: .* \([0-9]*\) commands in, \([0-9]*\) completed.*/\1 \2/p' "$W/serial.txt" | head -1)
eq "rmmod: in = completed ($inout)" "$(echo "$inout" | awk '$1 > 0 && $1 == $2 {print "equal"}')" equal
# The core's target-0 count of finished commands against the block layer's
# requests on A over the load (reads + writes + flushes), both read after
# the load stopped and before the hot add's rescan (which sends REPORT LUNS
# to A). Each request reached the core at least once, and at most once more
# per error completion the midlayer retried (the UNIT ATTENTION after a
# reset, a bystander of a reset, a command the EH aborted) plus once per EH
# abort on A (a round of Linux's EH sends the device a TEST UNIT READY of
# its own): A's commands time out when B holds the bus, as a disk removed
# mid-command does (above). The whole run's log has no failed command on A.
k() { sed -n "s/.*PCAMT-COUNTERS-$1: target 0 commands \([0-9]*\) errors \([0-9]*\) .*/\1 \2/p" "$W/serial.txt"; }
io=$(sed -n 's/.*PCAMT: ios A start=\([0-9]*\) end=\([0-9]*\) .*/\1 \2/p' "$W/serial.txt")
eh_a=$(grep -ac 'PCAMT-DMESG-A: .*pcam: eh_abort: asking the core' "$W/serial.txt" || true)
cmp=$(echo "$(k START) $(k END) $io $eh_a" | awk 'NF == 7 {print $3 - $1, $4 - $2, $6 - $5, $7}')
vm_log "A over the load: core commands, error completions, block-layer requests, EH aborts: $cmp"
eq "A: block requests <= core's commands <= block requests + error completions + EH aborts ($cmp)" \
  "$(echo "$cmp" | awk 'NF == 4 && $3 > 0 && $1 >= $3 && $1 <= $3 + $2 + $4 {print "yes"}')" yes
grep -a 'PCAMT-COUNTERS-END' "$W/serial.txt" || true
eq "no kernel WARNING/BUG/Oops/hung task" "$(val 'kernel-bugs ')" 0
# the host images: A's pattern below fio's region intact; B untouched by the
# failed write (the injected error, nothing reached the image)
o=$("$W/sectcheck" "$W/a.img" 0 32768 2>&1 | tail -1)
eq "A's image: sectors 0-32767 still the host's pattern" "$o" "sectcheck: 32768 sectors read, 0 wrong"
o=$("$W/sectcheck" "$W/b.img" 0 65536 2>&1 | tail -1)
eq "B's image: unchanged by the failed writes" "$o" "sectcheck: 65536 sectors read, 0 wrong"

vm_log "$(($(date +%s) - t_start)) s in all, 1 boot ($MODE), $fails failure(s)"
[ $fails -eq 0 ] && [ "$qrc" -eq 0 ] && exit 0
[ "$qrc" -eq 0 ] || echo "FAIL: qemu rc=$qrc"
# what CI keeps of a failure is its end: the timeline of the faults last
tail -30 "$W/serial.txt"
grep -aE 'PCAMT: |PCAMT-DMESG-(EH|REMOVE|A|RESET):' "$W/serial.txt" | grep -avE 'PCAMT: (fio|sectcheck)-' | tail -80
exit 1
