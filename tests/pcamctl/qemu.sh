#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pcamctl --backend qemu-esp against QEMU's AM53C974 (labels pcamctl and
# qemu). Expectations come from what the command line sets up: a 2 MiB raw
# image (4096 blocks of 512 bytes: last LBA 4095) at ID 0, an empty CD-ROM at
# ID 3, QEMU 7.2's scsi-hd/scsi-cd INQUIRY strings ("QEMU", "QEMU HARDDISK",
# "QEMU CD-ROM"), and data compared with the image file by cmp.
# Exit 77 (skipped) when qemu-system-x86_64 is not installed.
#
# usage: qemu.sh   with PCAMCTL and WORK set (tests/pcamctl/CMakeLists.txt).
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
run 2 $Q read 0 --lba 4096 --count 1 -o past.bin
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

# The empty CD: NOT READY, MEDIUM NOT PRESENT (2/3A/00), exit 1.
run 1 $Q tur 3
has err "2/3A/00"
# No device at 5; the initiator's own ID.
run 3 $Q inquiry 5
run 3 $Q inquiry 7
has err "initiator"

# Sim-only features say so.
run 0 $Q negotiate 0
has out "only the simulated bus shows the target's side"
run 2 $Q trace devlist
has err "needs the sim back-end"
run 2 $Q --polled devlist
run 2 $P --qemu-drive 0:hd:d0.img devlist
has err "needs --backend qemu-esp"
run 2 $P --backend qemu-esp --qemu-drive 0:tape:x devlist
run 2 $P --backend qemu-esp --qemu-drive 7:hd:x devlist
run 2 $P --backend qemu-esp --qemu-drive 0:hd devlist

# A bus reset on the real model: the event is reported and the disk answers.
run 0 $Q reset bus
has out "BUS_RESET"
echo "pcamctl qemu-esp: all cases passed"
