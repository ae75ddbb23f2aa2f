#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pcamctl --backend qemu-mpt against QEMU's SAS1068 (mptsas1068; labels
# pcamctl and qemu): the same front end as qemu-esp on the other chip-table
# entry. Expectations come from the command line: a 2 MiB raw image (4096
# blocks: last LBA 4095) at ID 0 and a 1 MiB one at ID 5, QEMU 7.2's scsi-hd
# strings, the model's facts (docs/mpt.md: 8 devices, the port's own ID 8,
# hal/mpt addressing 16 IDs), data compared with the image files by cmp.
# Exit 77 (skipped) when qemu-system-x86_64 is not installed.
#
# usage: qemu_mpt.sh qemu-mpt   with PCAMCTL, SRC and WORK set.
. "${SRC:?}/tests/pcamctl/lib.sh"
if ! command -v "${PCAM_QEMU:-qemu-system-x86_64}" >/dev/null 2>&1; then
    echo "SKIPPED: qemu-system-x86_64 not found (apt-get install qemu-system-x86)" >&2
    exit 77
fi
head -c 2097152 /dev/urandom >d0.img || fail "cannot make the image"
head -c 1048576 /dev/urandom >d5.img || fail "cannot make the image"
cp d0.img orig.img
Q="$P --backend qemu-mpt --qemu-drive 0:hd:$WORK/d0.img --qemu-drive 5:hd:$WORK/d5.img"

run 0 $Q devlist -l
has out "bus 0 (mpt0): SAS1068 (qemu-mpt back-end), initiator ID 8, targets 0..15"
has out "0:0     disk   QEMU     QEMU HARDDISK"
has out "5:0     disk   QEMU     QEMU HARDDISK"
has out "4096 x 512"
has out "2048 x 512"
has out "2 devices"
run 0 $Q --json devlist
jeq out .bus.name mpt0
jeq out .bus.initiator_id 8

# The bus's name in a path; a target past the model's 8 (hal/mpt has 16
# IDs: DEVICE NOT THERE), an empty ID, the initiator's own.
run 0 $Q inquiry mpt0:5
has out "5:0: <QEMU QEMU HARDDISK"
run 42 $Q inquiry 12
run 42 $Q inquiry 3
run 1 $Q inquiry 8
has err "initiator"
run 1 $P --backend qemu-mpt --qemu-drive 8:hd:$WORK/d0.img devlist
has err "QEMU's mptsas1068 takes target IDs 0..7"

run 0 $Q readcap 5
has out "last LBA 2047, block size 512, 2048 blocks, 1048576 bytes"
# 300 blocks (more than one 64 KiB command) match the image.
run 0 $Q read 0 --lba 100 --count 300 -o r.bin
dd if=orig.img of=want.bin bs=512 skip=100 count=300 2>/dev/null
cmp r.bin want.bin || fail "read data differ from the image"
# 130 KiB at LBA 2000 lands in the image file, the rest untouched, and
# reads back through the bus.
head -c 133120 /dev/urandom >w.bin
run 0 $Q write 0 --lba 2000 -i w.bin
dd if=d0.img of=got.bin bs=512 skip=2000 count=260 2>/dev/null
cmp w.bin got.bin || fail "written data not in the image"
dd if=orig.img of=a.bin bs=512 count=2000 2>/dev/null
dd if=d0.img of=b.bin bs=512 count=2000 2>/dev/null
cmp a.bin b.bin || fail "blocks before the write changed"
run 0 $Q read 0 --lba 2000 --count 260 -o rb.bin
cmp w.bin rb.bin || fail "read-back differs"

# Script mode, one QEMU: a blkdebug EIO on sector 100 fails the read with
# sense (autosense through the IOC), RESET BUS, and the disk answers again.
printf '[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "100"\n' >eio.conf
printf '%s\n' "read 0 --lba 99 --count 1 -o a.bin" "! read 0 --lba 100 --count 1 -o b.bin" "reset bus" \
    "tur 0" "read 0 --lba 101 --count 1 -o c.bin" >repro.txt
run 0 $P --backend qemu-mpt --qemu-drive 0:hd:$WORK/d0.img --qemu-fault 0:$WORK/eio.conf script repro.txt
has err "READ(10) of 1 block at LBA 100 on 0:0 failed: CHECK CONDITION: ABORTED COMMAND"
has out "SCSI bus reset: done"
has out "0:0: ready"
dd if=d0.img of=want.bin bs=512 skip=101 count=1 2>/dev/null
cmp c.bin want.bin || fail "the read after the reset differs"

# The benchmark runs on the back-end's chip (pcambench --qemu --chip mptsas1068).
run 0 $Q bench --commands 200
has out "QEMU SAS1068 over qtest, hal/mpt"
echo "pcamctl qemu-mpt: all cases passed"
