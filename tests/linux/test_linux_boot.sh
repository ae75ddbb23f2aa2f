#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest linux.boot (CHIP=esp) and linux.boot.sym (CHIP=sym): one boot of
# Debian's kernel under QEMU TCG with pcam.ko, each on one controller.
# esp: an AM53C974 with three disks (IDs 0 and 3, LUNs 0 and 2 on ID 3). The
# faulty disk (blkdebug) sits at LUN 0: QEMU 7.2 answers REQUEST SENSE at a
# LUN above 0 that has sense pending with LOGICAL UNIT NOT SUPPORTED, for
# every driver (the target-command path answers for the device). The
# guest (guest_init.sh) runs every check in sequence and prints facts; this
# script drives the QEMU monitor (a blkdebug breakpoint) and then asserts each
# fact against what it knows independently: the images it made, the serial
# numbers and sizes it gave QEMU, and the images after the VM exits.
# sym: an LSI53C895A (hal/sym) with disks at IDs 0, 3 and 5, LUN 0 (the model
# has no LUN above 0); tagged queuing on, the fio reader 16 deep, the medium
# error on a write, no held-request check (guest_init.sh says why); beside
# it a SAS1068 (mptsas1068, hal/mpt in the same pcam.ko) with a pattern disk
# at 1:0 and a disk written by the guest at 2:0.
# Both: a 3 TiB sparse disk at 4:0 (sd needs READ CAPACITY(16) and
# READ/WRITE(16)): its size, reads and writes above and across LBA 2^32,
# and the image checked afterwards with sectcheck built for the host.
# Never passes on a missing fact: each check greps for a positive line.
# PCAM_LINUX_DRIVER=am53c974|sym53c8xx (not in CI; tests/linux/integrity_runs.sh
# uses it) boots the same VM with Linux's own driver for the chip instead,
# runs only the attach and the whole-disk read, and asserts only those.
# PCAM_QEMU_ARGS (not in CI): more QEMU arguments, e.g. "-trace esp_* -D FILE".
# usage: test_linux_boot.sh SOURCE_DIR WORK_DIR [esp|sym]
set -eu
SRC=$(cd "$1" && pwd)
WORK=$2
CHIP=${3:-esp}
case $CHIP in esp|sym) ;; *) echo "usage: $0 SOURCE_DIR WORK_DIR [esp|sym]" >&2; exit 2 ;; esac
DRV=${PCAM_LINUX_DRIVER:-pcam}
case $CHIP/$DRV in */pcam|esp/am53c974|sym/sym53c8xx) ;;
  *) echo "PCAM_LINUX_DRIVER=$DRV does not drive $CHIP" >&2; exit 2 ;; esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
. "$SRC/tests/linux/vm_lib.sh"
t_start=$(date +%s)

vm_setup boot

# ---- images
mkdir -p "$W/fsroot"
vm_pattern_image "$W/disk0.img" 32
vm_pattern_image "$W/disk2.img" 8
head -c 300000 /dev/urandom > "$W/fsroot/host.bin"
mke2fs -q -F -t ext2 -d "$W/fsroot" "$W/disk1.img" 16M || vm_die "mke2fs -d failed"
# A 3 TiB sparse disk (over 2 TiB: sd needs READ CAPACITY(16) and 16-byte
# READ/WRITE). sectcheck's pattern at sectors 0-2047, across LBA 2^32 and at
# the end; the guest reads those, writes a second pattern (base BB) across
# 2^32 and at 5 Gi sectors, and this script checks the image afterwards with
# the same program built for the host.
gcc -O2 -o "$W/sectcheck" "$SRC/tests/linux/sectcheck.c" || vm_die "cannot build sectcheck for the host"
BIG=6442450944 G32=4294967296 BB=0x7063616d00000000
truncate -s $((BIG * 512)) "$W/big.img" || vm_die "cannot make a sparse 3 TiB image"
for r in "0 2048" "$((G32 - 2048)) 4096" "$((BIG - 2048)) 2048"; do
  "$W/sectcheck" -w "$W/big.img" $r > /dev/null || vm_die "cannot fill big.img at $r"
done
# ENODATA: QEMU answers MEDIUM ERROR 3/11/00 (on a write too)
if [ $CHIP = sym ]; then ev=write_aio; else ev=read_aio; fi
cat > "$W/blkdebug.conf" <<EOF
[inject-error]
event = "$ev"
errno = "61"
sector = "8192"
EOF
md5f() { md5sum | cut -d' ' -f1; }
exp_whole=$(md5f < "$W/disk0.img")
exp_pat=$(yes PCAM-GUEST-PATTERN | head -c 1048576 | md5f)
exp_file=$(md5f < "$W/fsroot/host.bin")
exp_region=$(dd if="$W/disk0.img" bs=64k skip=384 count=16 2>/dev/null | md5f)
exp_c_before=$(dd if="$W/disk2.img" bs=64k count=64 2>/dev/null | md5f)
exp_c_after=$(dd if="$W/disk2.img" bs=64k skip=65 count=63 2>/dev/null | md5f)
exp_held=$(dd if="$W/disk2.img" bs=4k skip=16 count=1 2>/dev/null | md5f)

# the SAS1068's disks (sym): the sector pattern, and one the guest writes
MPTDEV=
if [ $CHIP = sym ]; then
  vm_pattern_image "$W/mpt1.img" 16
  head -c 8388608 /dev/urandom > "$W/mpt2.img"
  exp_mpt_par=
  for k in 0 1 2 3; do
    exp_mpt_par="$exp_mpt_par$(dd if="$W/mpt1.img" bs=64k skip=$((k * 64)) count=64 2>/dev/null | md5f) "
  done
  exp_mpt_pat=$(yes PCAM-MPT-PATTERN | head -c 1048576 | md5f)
  exp_mpt_rest=$(dd if="$W/mpt2.img" bs=64k count=16 2>/dev/null | md5f)
  # first on the PCI bus, so the LSI53C895A stays the function the guest
  # unbinds (the last pcam device)
  MPTDEV="-device mptsas1068,id=scsi1
    -drive if=none,id=m1,file=$W/mpt1.img,format=raw -device scsi-hd,drive=m1,bus=scsi1.0,scsi-id=1,serial=PCAM-M1
    -drive if=none,id=m2,file=$W/mpt2.img,format=raw -device scsi-hd,drive=m2,bus=scsi1.0,scsi-id=2,serial=PCAM-M2"
fi

vm_initramfs "$SRC/tests/linux/guest_init.sh" "$W/initrd.cpio"

# ---- boot
if [ $CHIP = sym ]; then CTRL=lsi53c895a BT=5 BL=0; else CTRL=am53c974 BT=3 BL=2; fi
mkfifo "$W/mon.in" "$W/mon.out"
LOG=$W/serial.log
: > "$LOG"
cat "$W/mon.out" > "$W/monitor.log" &
catpid=$!
nice -n 5 timeout 900 qemu-system-x86_64 -M pc -accel tcg -m 1024 -smp 1 -display none \
  -no-reboot -nodefaults -nic none -serial "file:$LOG" \
  -chardev "pipe,id=mon0,path=$W/mon" -mon chardev=mon0,mode=readline \
  -kernel "$KIMG" -initrd "$W/initrd.cpio" -append "console=ttyS0 panic=-1 quiet pcamchip=$CHIP pcamdrv=$DRV" \
  $MPTDEV -device $CTRL,id=scsi0 \
  -drive "if=none,id=d0,file=$W/disk0.img,format=raw" \
  -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0,lun=0,serial=PCAM-D0 \
  -drive "if=none,id=d1,file=$W/disk1.img,format=raw" \
  -device scsi-hd,drive=d1,bus=scsi0.0,scsi-id=$BT,lun=$BL,serial=PCAM-D1 \
  -drive "if=none,id=d2,driver=raw,file.driver=blkdebug,file.config=$W/blkdebug.conf,file.image.filename=$W/disk2.img" \
  -device scsi-hd,drive=d2,bus=scsi0.0,scsi-id=3,lun=0,serial=PCAM-D2 \
  -drive "if=none,id=d3,file=$W/big.img,format=raw" \
  -device scsi-hd,drive=d3,bus=scsi0.0,scsi-id=4,lun=0,serial=PCAM-D3 ${PCAM_QEMU_ARGS:-} \
  > "$W/qemu.out" 2>&1 &
qpid=$!
# (bounded: opening the FIFO would wait forever if QEMU had just exited)
mon() { timeout 20 sh -c 'printf "%s\n" "$1" > "$2"' sh "$1" "$W/mon.in"; vm_log "monitor: $1"; }
state=wait-ready
[ $CHIP = esp ] && [ $DRV = pcam ] || state=done  # no held request on the LSI model
while kill -0 $qpid 2>/dev/null; do
  case $state in
    wait-ready) grep -q 'PCAMT: HOLD-READY' "$LOG" && { mon 'qemu-io d2 "break read_aio hold"'; state=wait-eh; } ;;
    # Held until Linux's handler has given up on the abort (the target
    # holds the bus, so ABORT TASK cannot go out) and asks for a reset. A
    # reset must not reach QEMU while blkdebug still holds the request: its
    # bus reset drains the drive and would wait forever.
    wait-eh) grep -q 'PCAMT: EH-ABORT-SEEN' "$LOG" && { state=wait-reset; t_abort=$(date +%s); } ;;
    wait-reset)
      if grep -q 'PCAMT: EH-RESET-SEEN' "$LOG" || [ $(($(date +%s) - t_abort)) -gt 120 ]; then
        mon 'qemu-io d2 "resume hold"'; state=done
      fi ;;
  esac
  sleep 0.3
done
wait $qpid && qrc=0 || qrc=$?
kill $catpid 2>/dev/null || true
t_boot=$(($(date +%s) - t_start))
tr -d '\r' < "$LOG" > "$W/serial.txt"
grep -a 'PCAMT' "$W/serial.txt" || true
vm_log "qemu rc=$qrc, wall $t_boot s since the test started (one boot, $CTRL)"

# ---- assertions
fails=0
ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
has() { grep -aqE "$2" "$W/serial.txt" && ok "$1" || bad "$1 (no line matching: $2)"; }
val() { grep -a "PCAMT: $1" "$W/serial.txt" | head -1 | sed "s/.*PCAMT: $1//" | awk '{print $1}'; }
eq() { [ "$2" = "$3" ] && ok "$1 ($2)" || bad "$1: got '$2', want '$3'"; }

# the whole first disk as dd | md5sum read it, every sector of that very
# stream, of the page cache afterwards and of the disk (O_DIRECT)
whole_checks() {
  eq "whole-disk checksum equals the host image" "$(val "md5 whole $A ")" "$exp_whole"
  for w in STREAM "" DIRECT; do
    has "every sector of the pattern disk in its place (sectcheck ${w:-PAGECACHE})" \
      "PCAMT-SECTCHECK${w:+-$w}: sectcheck: 65536 sectors read, 0 wrong"
    grep -a "PCAMT-SECTCHECK${w:+-$w}: sectcheck: sector" "$W/serial.txt" | head -8 >&2 || true
  done
}
has "guest finished every step" 'PCAMT: DONE'
if [ "$DRV" != pcam ]; then
  has "Linux's $DRV attached the disks" "PCAMT: disks A=sd[a-z] .* driver $DRV"
  A=$(sed -n 's/.*PCAMT: disks A=\(sd[a-z]*\) .*/\1/p' "$W/serial.txt" | head -1)
  whole_checks
  eq "no kernel WARNING/BUG/Oops" "$(val 'kernel-bugs ')" 0
  vm_log "$(($(date +%s) - t_start)) s in all, 1 boot with $DRV, $fails failure(s)"
  [ $fails -eq 0 ] && [ "$qrc" -eq 0 ] || { tail -50 "$W/serial.txt"; exit 1; }
  exit 0
fi
has "guest saw pcamchip=$CHIP" "PCAMT: chip $CHIP\$"
has "pcam.ko loaded" 'PCAMT: insmod pcam  rc=0'
if [ $CHIP = sym ]; then
  has "hal/sym attached the LSI53C895A, script in host memory" 'PCAMT-DMESG-ATTACH: .*53C895A rev [0-9]+, [0-9]+-byte script in host memory'
else
  has "hal/esp attached the AM53C974" 'PCAMT-DMESG-ATTACH: .*pcam AM53C974'
fi
has "sd attached at 0:0, 3:0, $BT:$BL and 4:0" 'PCAMT: disks A=sd[a-z] B=sd[a-z] C=sd[a-z] D=sd[a-z]'
A=$(sed -n 's/.*PCAMT: disks A=\(sd[a-z]*\) .*/\1/p' "$W/serial.txt" | head -1)
D=$(sed -n 's/.*PCAMT: disks A=.* D=\(sd[a-z]*\) .*/\1/p' "$W/serial.txt" | head -1)
eq "disk 0:0 size in sectors" "$(val "size $A ")" $((32 * 2048))
# ---- the disk over 2 TiB (16-byte CDBs only)
eq "3 TiB disk: sd's size in sectors (READ CAPACITY(16))" "$(val "size ${D:-none} ")" $BIG
has "sg_readcap -l: last LBA above 2^32" "PCAMT-BIG-READCAP: .*Last LBA=$((BIG - 1)) .*Number of logical blocks=$BIG"
has "sg_readcap -l: 512-byte blocks" 'PCAMT-BIG-READCAP: .*Logical block length=512'
for r in "0 2048" "$((G32 - 1000)) 2000" "$((G32 - 4)) 8" "$((BIG - 2048)) 2048"; do
  has "3 TiB disk: O_DIRECT read of sectors $r, every sector its own" "PCAMT-BIG-READ $r: sectcheck: ${r#* } sectors read, 0 wrong"
done
for r in "$((G32 - 1000)) 2000" "$((G32 * 5 / 4)) 2048"; do
  has "3 TiB disk: O_DIRECT write of sectors $r" "PCAMT-BIG-WRITE $r: sectcheck: ${r#* } sectors written"
  has "3 TiB disk: the write of $r read back in the guest" "PCAMT-BIG-REREAD $r: sectcheck: ${r#* } sectors read, 0 wrong"
done
has "3 TiB disk: sd sized it from READ CAPACITY(16)" "PCAMT-DMESG-BIG: .*\\[${D:-none}\\] $BIG 512-byte logical blocks"
if grep -aE 'PCAMT-DMESG-BIG: .*(Read Capacity\(16\) failed|DID_ABORT|hostbyte=)' "$W/serial.txt"; then
  bad "3 TiB disk: the kernel log has a failed command"
else ok "3 TiB disk: no failed command in the kernel log"; fi
grep -aE 'PCAMT-BIG-.*(sector [0-9]* holds|run:)' "$W/serial.txt" | head -12 >&2 || true
has "lsscsi lists 0:0:0 as a QEMU disk" 'PCAMT-LSSCSI: \[[0-9]+:0:0:0\][[:space:]]+disk[[:space:]]+QEMU'
has "lsscsi lists 3:0" 'PCAMT-LSSCSI: \[[0-9]+:0:3:0\][[:space:]]+disk'
has "lsscsi lists $BT:$BL" "PCAMT-LSSCSI: \\[[0-9]+:0:$BT:$BL\\][[:space:]]+disk"
# The model never answers SDTR/WDTR (QEMU.md): asynchronous, narrow, no PPR.
for t in 0 3; do
  for f in offset dt; do eq "spi target$t $f" "$(val "spi target$t $f=")" 0; done
  # factor 0 (asynchronous) is what the transport class prints as reserved
  eq "spi target$t period" "$(val "spi target$t period=")" reserved
  # hidden by the transport class for a target whose INQUIRY has neither
  # WBus16 nor PPR (QEMU's scsi-hd), even on the wide 53C895A
  for f in width iu qas; do eq "spi target$t $f" "$(val "spi target$t $f=")" absent; done
done
exp_first=$(dd if="$W/disk0.img" bs=64k count=16 2>/dev/null | md5f)
has "SPI writes accepted" 'PCAMT: spi write period rc=0 offset rc=0'
# the model swallows the SDTR the new limits ask for: still asynchronous
eq "after the SPI writes: still asynchronous, disk reads" "$(grep -a 'PCAMT: spi write' "$W/serial.txt" | sed 's/.*then //')" "offset=0 md5 $exp_first"
if [ $CHIP = sym ]; then
  # scsi-hd on the LSI bus reports CmdQue; the core's default depth is 32
  has "tagged (simple), core's depth 32" 'PCAMT: queue_type .*=simple depth=32'
else
  has "untagged (the model's bus has no TCQ), depth 2" 'PCAMT: queue_type .*=none depth=2'
fi
whole_checks
eq "pattern read back in the guest" "$(val 'md5 pattern-readback ')" "$exp_pat"
eq "ext2 file read in the guest" "$(val 'md5 ext2-file ')" "$exp_file"
has "ext2 mount, write, umount" 'PCAMT: umount rc=0'
# Linux 6.1 reports a medium error (BLK_STS_MEDIUM) to the reader as ENODATA.
has "medium error fails the $ev" 'PCAMT: medium-error rc=[1-9].*(No data available|Input/output error)'
has "decoded sense in the kernel log: Medium Error" 'PCAMT-DMESG-MEDIUM: .*Sense Key : Medium Error'
has "decoded sense in the kernel log: ASC 11/00" 'PCAMT-DMESG-MEDIUM: .*Unrecovered read error'
eq "the disk reads before the bad block" "$(val 'md5 before-bad ')" "$exp_c_before"
eq "the disk reads after the bad block" "$(val 'md5 after-bad ')" "$exp_c_after"
has "sg_inq: vendor" 'PCAMT-SG-INQ: +Vendor identification: QEMU'
has "sg_inq: product" 'PCAMT-SG-INQ: +Product identification: QEMU HARDDISK'
has "sg_vpd: serial number given to QEMU" 'PCAMT-SG-VPD: +Unit serial number: PCAM-D0'
has "sg_readcap: last LBA of a 32 MiB image" "PCAMT-SG-READCAP: .*Last LBA=$((32 * 2048 - 1))"
has "sg_readcap: 512-byte blocks" 'PCAMT-SG-READCAP: .*Logical block length=512'
has "sg_luns: LUN 0 on ID 3" 'PCAMT-SG-LUNS: +0000000000000000'
if [ $CHIP = esp ]; then
  has "sg_luns: LUN 2 on ID 3" 'PCAMT-SG-LUNS: +0002000000000000'
else
  if grep -aq 'PCAMT-SG-LUNS: +0002' "$W/serial.txt"; then bad "sg_luns: a LUN 2 the LSI bus does not have"; else ok "sg_luns: LUN 0 only on ID 3"; fi
fi
has "sg_turs: 5 TURs, no error" 'PCAMT: sg_turs rc=0'
has "sg_requests answers" 'PCAMT: sg_requests rc=0'
for how in -d -b -H; do
  eq "sg_reset $how, then the disk reads" "$(grep -a "PCAMT: sg_reset $how rc=0 then md5" "$W/serial.txt" | awk '{print $NF}')" "$exp_pat"
done
if [ $CHIP = esp ]; then
  # QEMU's AM53C974 takes the BUS DEVICE RESET byte after IDENTIFY as a CDB:
  # the core says it was refused, the handler FAILED, and Linux goes on to
  # the bus reset (sg_reset -d still ends rc=0 through it).
  has "device reset refused by the model, reported FAILED" 'PCAMT-DMESG-RESET: .*pcam: device reset: MSG_REJECT_REC -> FAILED'
else
  has "device reset went through pcam's handler" 'PCAMT-DMESG-RESET: .*pcam: device reset: REQ_CMP -> SUCCESS'
fi
has "bus reset went through pcam's handler" 'PCAMT-DMESG-RESET: .*pcam: bus reset: REQ_CMP -> SUCCESS'
has "host reset went through pcam's handler" 'PCAMT-DMESG-RESET: .*pcam: host reset.*REQ_CMP -> SUCCESS'
if [ $CHIP = esp ]; then
has "held request timed out into the EH" 'PCAMT-DMESG-EH: .*pcam: eh_abort: asking the core'
has "pcam's abort could not finish on a held bus" 'PCAMT-DMESG-EH: .*pcam: eh_abort FAILED'
has "the EH escalated to a reset through pcam" 'PCAMT-DMESG-EH: .*pcam: (device|bus|host) reset: asking the core'
has "a pcam reset brought the disk back" 'PCAMT-DMESG-EH: .*pcam: (device|bus|host) reset.*-> SUCCESS'
has "the held read came back" 'PCAMT: hold reads=[0-9]+ held=1 last-rc=0'
eq "the held read has the right data" "$(grep -a 'PCAMT: hold reads' "$W/serial.txt" | awk '{print $NF}')" "$exp_held"
eq "I/O goes on after the EH" "$(val 'md5 after-eh ')" "$exp_held"
else
  has "held-request check skipped on the LSI model (says why)" 'PCAMT: hold skipped on sym'
fi
if [ $CHIP = sym ]; then
  has "hal/mpt attached the SAS1068 (MPI 1.5)" 'PCAMT-DMESG-ATTACH: .*SAS1068: MPI 1\.05'
  # (a reply interrupt left up from the bring-up was never delivered: the
  # first command waited for the core's ladder, abort to chip reset)
  if grep -aE 'PCAMT-DMESG-ATTACH: .*pcam: (abort|device reset|bus reset) did not finish' "$W/serial.txt"; then
    bad "a command timed out into the core's recovery while the disks attached"
  else ok "no command timed out into the core's recovery while the disks attached"; fi
  has "sd attached the SAS1068's disks at 1:0 and 2:0" 'PCAMT: mpt disks E=sd[a-z]+ F=sd[a-z]+'
  has "lsscsi lists the SAS1068's 1:0" 'PCAMT-LSSCSI: \[[0-9]+:0:1:0\][[:space:]]+disk[[:space:]]+QEMU'
  has "SAS1068: tagged (simple), core's depth 32" 'PCAMT: mpt queue_type sd[a-z]+=simple depth=32'
  has "SAS1068: every sector of the pattern disk in its place (O_DIRECT)" 'PCAMT-MPT-SECTCHECK: sectcheck: 32768 sectors read, 0 wrong'
  eq "SAS1068: four readers at once, each region as in the image" \
    "$(grep -a 'PCAMT: md5 mpt-parallel ' "$W/serial.txt" | head -1 | sed 's/.*mpt-parallel //' | xargs)" "$(echo $exp_mpt_par)"
  eq "SAS1068: the guest's pattern read back" "$(val 'md5 mpt-readback ')" "$exp_mpt_pat"
fi
has "fio: writers and readers, verified, no error" 'PCAMT: fio rc=0'
if grep -aE 'PCAMT-FIO: .*err= *[1-9]' "$W/serial.txt"; then bad "a fio job reported an error"; else ok "no fio job error"; fi
has "unbind during I/O returned" 'PCAMT: unbind 0000:[0-9a-f:.]+ rc=0'
has "the reader during unbind ended" 'PCAMT: reader-during-unbind ended after'
has "remove left no command in the core" 'PCAMT-DMESG-RMMOD: .*pcam: bus shut down, chip reset, .*no command left'
inout=$(sed -n 's/.*PCAMT-DMESG-RMMOD: .*chip reset, \([0-9]*\) commands in, \([0-9]*\) completed.*/\1 \2/p' "$W/serial.txt" | head -1)
if [ $CHIP = sym ]; then
  # more commands on the wire at once than disks: only tags allow that
  mo=$(sed -n 's/.*PCAMT-DMESG-RMMOD: .*pcam: sym: .*at most \([0-9]*\) outstanding.*/\1/p' "$W/serial.txt" | head -1)
  eq "tagged: more than 3 commands outstanding on the chip at once (at most ${mo:-?})" "$(echo "${mo:-0}" | awk '$1 > 3 {print "yes"}')" yes
  has "fio reader (libaio, 16 deep): no error" 'PCAMT-FIO: +r: .*err= *0'
fi
eq "every command handed to the core came back exactly once" "$(echo "$inout" | awk '$1 > 0 && $1 == $2 {print "equal"}')" equal
if [ $CHIP = sym ]; then
  # the SAS1068 is let go at rmmod: its own line, and hal/mpt's counters
  eq "SAS1068: every command handed to the core came back exactly once" \
    "$(sed -n 's/.*PCAMT-DMESG-RMMOD: .*chip reset, \([0-9]*\) commands in, \([0-9]*\) completed.*/\1 \2/p' "$W/serial.txt" | awk '$1 > 0 && $1 == $2 {n++} END {print n + 0}')" 2
  has "SAS1068: hal/mpt's counters at remove" 'PCAMT-DMESG-RMMOD: .*pcam: mpt: [0-9]+ interrupts, [0-9]+ started, [0-9]+ completed, .* 0 refused'
fi
has "rmmod" 'PCAMT: rmmod rc=0'
has "insmod again with parameters" 'PCAMT: insmod pcam depth=8 max_depth=16 sync_offset=0 aging=0 rc=0'
eq "parameter depth" "$(val 'param depth=')" 8
eq "parameter aging" "$(val 'param aging=')" 0
has "insmod again finds the disks" 'PCAMT: disks-again A=sd'
# (sd may name the disks differently after the reload)
D2=$(sed -n 's/.*PCAMT: disks-again A=.* D=\(sd[a-z]*\).*/\1/p' "$W/serial.txt" | head -1)
eq "3 TiB disk sized again after reload" "$(val "size-again ${D2:-none} ")" $BIG
has "3 TiB disk: the guest's pattern across 2^32 after reload" 'PCAMT-BIG-AFTER-RELOAD: sectcheck: 2000 sectors read, 0 wrong'
eq "data after reload" "$(val 'md5 pattern-after-reload ')" "$exp_pat"
eq "no kernel WARNING/BUG/Oops" "$(val 'kernel-bugs ')" 0
# ---- the images after the VM exited
eq "guest pattern is in the host image" "$(dd if="$W/disk0.img" bs=64k skip=384 count=16 2>/dev/null | md5f)" "$exp_pat"
got=$(debugfs -R 'cat /guest.txt' "$W/disk1.img" 2>/dev/null || true)
eq "guest's ext2 file read back by debugfs" "$got" "written by the pcam guest through pcam.ko"
e2fsck -fn "$W/disk1.img" > "$W/e2fsck.log" 2>&1 && ok "e2fsck: file system clean" || bad "e2fsck -fn found errors"
# the 3 TiB image: the guest's writes are where their LBAs say (not 2^32
# lower, not beyond their end) and the host's pattern around them is intact
img() {  # WHAT BASE FIRST COUNT
  o=$("$W/sectcheck" -b "$2" "$W/big.img" "$3" "$4" 2>&1 | tail -1)
  eq "3 TiB image after the VM: $1" "$o" "sectcheck: $4 sectors read, 0 wrong"
}
img "guest's pattern across 2^32" $BB $((G32 - 1000)) 2000
img "guest's pattern at 5 Gi sectors" $BB $((G32 * 5 / 4)) 2048
img "host's pattern below the guest's write" 0 $((G32 - 2048)) 1048
img "host's pattern above the guest's write" 0 $((G32 + 1000)) 1048
img "sectors 0-2047 untouched (no write wrapped to 2^32 lower)" 0 0 2048
img "last 2048 sectors untouched" 0 $((BIG - 2048)) 2048
if [ $CHIP = sym ]; then
  eq "SAS1068: the guest's pattern is in the host image of 2:0" "$(dd if="$W/mpt2.img" bs=64k skip=16 count=16 2>/dev/null | md5f)" "$exp_mpt_pat"
  eq "SAS1068: the blocks before it untouched" "$(dd if="$W/mpt2.img" bs=64k count=16 2>/dev/null | md5f)" "$exp_mpt_rest"
fi
eq "3 TiB image: 1 MiB at 1 Gi sectors (5 Gi less 2^32) still a hole" \
  "$(dd if="$W/big.img" bs=1M skip=524288 count=1 2>/dev/null | md5f)" "$(head -c 1048576 /dev/zero | md5f)"

vm_log "$(($(date +%s) - t_start)) s in all, 1 boot, $fails failure(s)"
[ $fails -eq 0 ] && [ "$qrc" -eq 0 ] || { [ "$qrc" -eq 0 ] || echo "FAIL: qemu rc=$qrc"; tail -50 "$W/serial.txt"; exit 1; }
