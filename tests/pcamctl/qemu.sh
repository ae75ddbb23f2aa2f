#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pcamctl --backend qemu-esp against QEMU's AM53C974 (labels pcamctl and
# qemu). Expectations come from what the command line sets up: a 2 MiB raw
# image (4096 blocks of 512 bytes: last LBA 4095) at ID 0, an empty CD-ROM at
# ID 3, QEMU 7.2's scsi-hd/scsi-cd INQUIRY strings ("QEMU", "QEMU HARDDISK",
# "QEMU CD-ROM"), and data compared with the image file by cmp.
# Exit 77 (skipped) when qemu-system-x86_64 is not installed.
#
# usage: qemu.sh   with PCAMCTL, SRC and WORK set (tests/pcamctl/CMakeLists.txt).
set -u
P=${PCAMCTL:?}
rm -rf "${WORK:?}"
mkdir -p "$WORK"
cd "$WORK" || exit 1
if ! command -v "${PCAM_QEMU:-qemu-system-x86_64}" >/dev/null 2>&1; then
    echo "SKIPPED: qemu-system-x86_64 not found (apt-get install qemu-system-x86)" >&2
    exit 77
fi

fail() {
    echo "FAIL (qemu): $*" >&2
    exit 1
}
run() {
    want=$1
    shift
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "--- stdout"; cat out; echo "--- stderr"; cat err
        fail "'$*' exited $rc, expected $want"
    fi
}
has() {
    grep -F -q -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1 lacks '$2'"; }
}

head -c 2097152 /dev/urandom >d0.img || fail "cannot make the image"
cp d0.img orig.img
Q="$P --backend qemu-esp --qemu-drive 0:hd:$WORK/d0.img --qemu-drive 3:cd"

# devlist: the two drives, nothing else, and the controller's ID 7.
run 0 $Q devlist -l
has out "0:0     disk   QEMU     QEMU HARDDISK"
has out "3:0     cd     QEMU     QEMU CD-ROM"
has out "4096 x 512"
has out "no medium"
has out "2 devices"

# inquiry: type 0 (direct access), QEMU's strings.
run 0 $Q inquiry 0
has out "0:0: <QEMU QEMU HARDDISK"
has out "Direct-access block device"
run 0 $Q --json inquiry 3:0
has out '"vendor":"QEMU"'

# readcap: 2 MiB / 512 = 4096 blocks, last LBA 4095.
run 0 $Q readcap 0
has out "last LBA 4095, block size 512, 4096 blocks, 2097152 bytes"

# read: 300 blocks from LBA 100 (more than one 64 KiB command) match the image.
run 0 $Q read 0 --lba 100 --count 300 -o r.bin
dd if=orig.img of=want.bin bs=512 skip=100 count=300 2>/dev/null
cmp r.bin want.bin || fail "read data differ from the image"
# The last block; one past the end is refused before it reaches the bus.
run 0 $Q read 0 --lba 4095 --count 1 -o last.bin
dd if=orig.img of=want.bin bs=512 skip=4095 count=1 2>/dev/null
cmp last.bin want.bin || fail "last block differs"
run 22 $Q read 0 --lba 4096 --count 1 -o past.bin
has err "beyond the last block of 0:0 (4095)"

# write: 130 KiB at LBA 2000 lands in the image file; the rest is untouched.
head -c 133120 /dev/urandom >w.bin
run 0 $Q write 0 --lba 2000 -i w.bin
dd if=d0.img of=got.bin bs=512 skip=2000 count=260 2>/dev/null
cmp w.bin got.bin || fail "written data not in the image"
dd if=orig.img of=a.bin bs=512 count=2000 2>/dev/null
dd if=d0.img of=b.bin bs=512 count=2000 2>/dev/null
cmp a.bin b.bin || fail "blocks before the write changed"
# and reads back through the bus
run 0 $Q read 0 --lba 2000 --count 260 -o rb.bin
cmp w.bin rb.bin || fail "read-back differs"

# The empty CD: NOT READY, MEDIUM NOT PRESENT (2/3A/00), exit 2 (not ready).
run 2 $Q tur 3
has err "2/3A/00"
# No device at 5; the initiator's own ID.
run 42 $Q inquiry 5
run 1 $Q inquiry 7
has err "initiator"

# Sim-only features say so.
run 0 $Q negotiate 0
has out "only the simulated bus shows the target's side"
run 1 $Q trace devlist
has err "needs the sim back-end"
run 1 $Q --polled devlist
run 1 $P --qemu-drive 0:hd:d0.img devlist
has err "needs --backend qemu-esp"
run 1 $P --backend qemu-esp --qemu-drive 0:tape:x devlist
run 1 $P --backend qemu-esp --qemu-drive 7:hd:x devlist
run 1 $P --backend qemu-esp --qemu-drive 0:hd devlist

# A bus reset on the real model: the event is reported and the disk answers.
run 0 $Q reset bus
has out "BUS_RESET"

# --qemu-arg reaches QEMU: -global scsi-hd.serial/rotation_rate give the disk
# a VPD 80h page and a B1h rotation rate (QEMU 7.2 scsi-disk), decoded.
QA="--qemu-arg -global --qemu-arg scsi-hd.serial=QSER01 --qemu-arg -global --qemu-arg scsi-hd.rotation_rate=7200"
run 0 $Q $QA inquiry 0 --vpd 0
has out "0x80  Unit serial number"
has out "0xb1  Block device characteristics"
run 0 $Q $QA --json inquiry 0 --vpd 0xb1
has out '"rotation_rate":7200'
run 0 $Q $QA inquiry 0 --vpd 0x80
has out "unit serial number: QSER01"

# Script mode: one QEMU across the lines. A blkdebug rule fails reads of
# sector 100 with EIO (QEMU answers ABORTED COMMAND, 0B/00/06); the read
# before it works, a bus reset follows, and the disk answers again. The CD
# ejected on one line is still ejected on the next: the same QEMU.
head -c 1048576 /dev/zero >cd.img
printf '[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "100"\n' >eio.conf
printf '%s\n' "read 0 --lba 99 --count 1 -o a.bin" "! read 0 --lba 100 --count 1 -o b.bin" "reset bus" \
    "tur 0" "read 0 --lba 101 --count 1 -o c.bin" "tur 3" "eject 3" "! tur 3" "hmp info block" >repro.txt
run 0 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/d0.img --qemu-drive 3:cd:$WORK/cd.img \
    --qemu-fault 0:$WORK/eio.conf script repro.txt
has err "READ(10) of 1 block at LBA 100 on 0:0 failed: CHECK CONDITION: ABORTED COMMAND"
has err "(B/00/06)"
has err "NOT READY: Medium not present (2/3A/00)"
has out "SCSI bus reset: done"
has out "0:0: ready"
has out "3:0: ready"
has out "blkdebug"
dd if=orig.img of=want.bin bs=512 skip=99 count=1 2>/dev/null
cmp a.bin want.bin || fail "the read before the fault differs"
dd if=d0.img of=want.bin bs=512 skip=101 count=1 2>/dev/null
cmp c.bin want.bin || fail "the read after the reset differs"
[ ! -s b.bin ] || fail "the failed read wrote data"
# Issue 41 defect 1: a one-block READ that fails with a sense whose
# INFORMATION is not valid (QEMU's ABORTED COMMAND for the EIO above) is not
# sent again by the salvage: QEMU's own trace (scsi_req_parsed, opcode 0x28
# = command 40) shows the READ(10) once plus the core's 4 retries (pcamctl's
# CCBs carry retries 4): 5, where the salvage's second run made it 10.
run 11 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/d0.img --qemu-fault 0:$WORK/eio.conf \
    --qemu-arg -trace --qemu-arg scsi_req_parsed --qemu-arg -D --qemu-arg $WORK/qtrace.log \
    read 0 --lba 100 --count 1 -o one.bin
n=$(grep -c 'scsi_req_parsed .* command 40 ' qtrace.log)
[ "$n" -eq 5 ] || fail "QEMU saw $n READ(10)s of the failing block, not 1 + 4 retries"
run 1 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/d0.img --qemu-fault 5:x devlist
has err "no --qemu-drive 5:0"
run 1 $P --qemu-arg -S devlist
has err "need --backend qemu-esp"
# Every qemu-esp example of the man page and the README runs as written
# (issue 24, items 7 and 14), with the files they name made here: the hmp
# ones alone, without a script or --qemu-fault for the monitor; the
# README's repro.txt and eio.conf from its own printf lines.
cp d0.img disk.img
cp d0.img lun0.img
cp d0.img lun1.img
grep '^    printf ' "${SRC:?}/examples/pcamctl/README.md" | sed 's/^ *//' >mk.sh
sh mk.sh || fail "the README's printf lines failed"
cp eio.conf faults.conf
{
    sed -n '/^\.SH EXAMPLES/,/^\.SH SEE/p' "$SRC/examples/pcamctl/pcamctl.1" |
        sed 's/\\-/-/g; s/\\e$/\\/' | awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }'
    grep '^    pcamctl ' "$SRC/examples/pcamctl/README.md"
} | sed -n 's/^ *pcamctl //p' | grep -- '--backend qemu-esp' >qemu-examples.txt
[ "$(wc -l <qemu-examples.txt)" -ge 8 ] || { cat qemu-examples.txt; fail "the qemu-esp examples were not found"; }
grep -q ' hmp ' qemu-examples.txt || fail "no hmp example"
while read -r ex; do
    want=$(printf '%s\n' "$ex" | sed -n 's/.*# exit \([0-9]*\).*/\1/p')
    eval "set -- ${ex%%#*}"
    run "${want:-0}" $P "$@" </dev/null
done <qemu-examples.txt
run 0 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/disk.img hmp info block
has out "disk.img"
run 99 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/disk.img hmp frobnicate
has err "QEMU answered \"unknown command: 'frobnicate'\""
printf '%s\n' 'hmp qemu-io d0 "break read_aio A"' 'hmp qemu-io d0 "remove_break A"' 'hmp info nosuchthing' 'tur 0' >h.txt
run 99 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/disk.img --qemu-fault 0 script h.txt
has err "script line 3 exited 99"
hasnt() { if grep -F -q -- "$2" "$1"; then cat "$1"; fail "$1 has '$2'"; fi; }
hasnt err "extraneous characters"
has out "0:0: ready"

# Figures called what they are (issue 24, item 13): on QEMU the back-end's
# clock is the wall clock, so there is one figure, not a "bus time".
run 0 $Q read 0 --lba 0 --count 64 -o f.bin
has err "secs of wall time at "
if grep -q "simulated\|bus time" err; then cat err; fail "QEMU's wall time shown as bus time"; fi
run 0 $Q --json read 0 --lba 0 --count 64 -o f.bin
has out '"bus_time_kind":"wall"'
if grep -q "data_bytes_per_s_bus" out; then fail "a bus rate on QEMU"; fi

# A QEMU start-up error is said once, by pcamctl, not again by the
# harness's log (issue 24, item 14).
run 43 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/nonexistent.img devlist
[ "$(grep -c "Could not open" err)" -eq 1 ] || { cat err; fail "the start-up error is not said exactly once"; }
run 43 $P --backend qemu-esp --qemu-drive 0:hd:$WORK/d0.img --qemu-arg -bogus devlist
[ "$(grep -c "invalid option" err)" -eq 1 ] || { cat err; fail "the bad option is not said exactly once"; }
echo "pcamctl qemu-esp: all cases passed"
