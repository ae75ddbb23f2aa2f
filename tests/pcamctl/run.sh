#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pcamctl tests: each case runs the real binary and checks its output
# against an expectation worked out independently of pcamctl's code: the
# topology given on the command line (sizes, IDs, injected faults), the
# simulated LU model's INQUIRY data (hal/sim/sim_lu.c: revision "1.00",
# VPD pages 00h/80h/83h), SPC/SBC field layouts for hand-made sense bytes,
# and files compared with cmp.
#
# usage: run.sh CASE   with PCAMCTL, WORK, SRC set (and EMBED, BUILD, VALGRIND
# where the case needs them); tests/pcamctl/CMakeLists.txt passes them.
set -u
. "${SRC:?}/tests/pcamctl/lib.sh"

TOPO="0:disk:64M,2:disk:1G:fast10,3:cd,5:disk:16M:luns=3"

case $case_ in
devlist)
    run 0 "$P" --sim "$TOPO" devlist
    # The table rows for exactly the configured LUs, nothing else.
    for row in "0:0     disk   PCAMSIM  SIMDISK" "2:0     disk" "3:0     cd     PCAMSIM  SIMCD" \
               "5:0     disk" "5:1     disk" "5:2     disk" "6 devices"; do
        has out "$row"
    done
    hasnt out "1:0"
    hasnt out "5:3"
    run 0 "$P" --sim "$TOPO" devlist -l
    # 1G / 512 = 2097152 blocks; 16M / 512 = 32768; a 64M CD / 2048 = 32768.
    has out "1 GiB (2097152 x 512)"
    has out "16 MiB (32768 x 512)"
    has out "64 MiB (32768 x 2048)"
    # fast10 = period factor 0x19 (100 ns), wide: 20 MB/s.
    grep "^2:0" out | grep -F -q "0x19 (100.00 ns) offset 16 wide 20.0 MB/s" || fail "2:0 not at Fast-10 wide"
    run 0 "$P" --json --sim "$TOPO,bus:seed=7" devlist
    jeq out .count 6
    jeq out '.devices#' 6
    jeq out '.devices[5].target' 5
    jeq out '.devices[5].lun' 2
    jeq out '.devices[2].type' 5
    jeq out .bus.initiator_id 7
    # A narrow bus: IDs 0..7 only; polled mode gives the same table.
    run 0 "$P" --sim "bus:narrow,1:disk:vendor=ACME:product=ROADRUNNER,6:cd" devlist
    cp out intr
    has out "1:0     disk   ACME     ROADRUNNER"
    has out "targets 0..7"
    run 0 "$P" --polled --sim "bus:narrow,1:disk:vendor=ACME:product=ROADRUNNER,6:cd" devlist
    cmp out intr || fail "polled devlist differs from interrupt-driven"
    ;;
inquiry)
    S="0:disk:vendor=ACME:product=WIDGET,3:cd,5:disk:luns=3"
    run 0 "$P" --sim "$S" inquiry 0
    # sim_lu.c: revision "1.00", version 5 (SPC-3), CmdQue on for disks.
    has out "0:0: <ACME WIDGET 1.00> Direct-access block device, SCSI version 5 (SPC-3)"
    has out "tagged queuing yes"
    run 0 "$P" --json --sim "$S" inquiry 3
    jeq out .type 5
    jeq out .removable true
    jeq out .cmdque false
    jeq out .product SIMCD
    jeq out .length 36
    run 0 "$P" --sim "$S" inquiry 0 --hex
    # Byte 8 starts the vendor field: "ACME    " in hex.
    has out "0000  00 00 05 02 1f 00 00"
    has out "41 43 4d 45 20 20 20 20"
    # VPD: supported pages 00h, 80h, 83h; serial PCS + 2-digit ID + LUN.
    run 0 "$P" --json --sim "$S" inquiry 5:2 --vpd 0
    jeq out '.pages#' 3
    jeq out '.pages[1]' 128
    jeq out '.pages[2]' 131
    run 0 "$P" --sim "$S" inquiry 5:2 --vpd 0x80
    has out "unit serial number: PCS052"
    run 0 "$P" --json --sim "$S" inquiry 0 --vpd 0x83
    jeq out '.designators[0].type_name' "T10 vendor ID"
    jeq out '.designators[0].value' "ACME    PCS000"
    run 5 "$P" --sim "$S" inquiry 0 --vpd 0xb0
    has err "CHECK CONDITION: ILLEGAL REQUEST: Invalid field in cdb (5/24/00)"
    run 42 "$P" --sim "$S" inquiry 5:3
    has err "no device at 5:3"
    ;;
readcap)
    run 0 "$P" --sim "0:disk:64M,1:disk:8M:bs=4096,3:cd:32M,4:cd:empty" readcap 0
    # 64 MiB = 131072 blocks of 512: last LBA 131071.
    has out "0:0: last LBA 131071, block size 512, 131072 blocks, 67108864 bytes (64 MiB)"
    run 0 "$P" --json --sim "0:disk:64M,1:disk:8M:bs=4096,3:cd:32M,4:cd:empty" readcap 1
    jeq out .last_lba 2047
    jeq out .block_size 4096
    jeq out .bytes 8388608
    run 0 "$P" --json --sim "0:disk:64M,1:disk:8M:bs=4096,3:cd:32M,4:cd:empty" readcap 3
    jeq out .blocks 16384
    jeq out .block_size 2048
    run 2 "$P" --sim "0:disk:64M,1:disk:8M:bs=4096,3:cd:32M,4:cd:empty" readcap 4
    has err "NOT READY: Medium not present (2/3A/00)"
    run 0 "$P" --sim "0:disk:1536K" readcap 0
    has out "3072 blocks, 1572864 bytes (1.5 MiB)"
    # Over 2 TiB: READ CAPACITY(10) answers FFFFFFFFh, (16) the size.
    # 3 TiB = 6442450944 blocks of 512.
    run 0 "$P" --sim "0:disk:3T" readcap 0
    has out "0:0: last LBA 6442450943, block size 512, 6442450944 blocks, 3298534883328 bytes (3 TiB)"
    ;;
tur)
    run 0 "$P" --sim "0:disk,4:cd:empty" tur 0
    has out "0:0: ready"
    run 2 "$P" --sim "0:disk,4:cd:empty" tur 4
    has err "TEST UNIT READY failed: CHECK CONDITION: NOT READY: Medium not present (2/3A/00)"
    run 42 "$P" --sim "0:disk,4:cd:empty" tur 6
    has err "no device at 6:0"
    # BUSY twice, then GOOD: the core's retries absorb it.
    run 0 "$P" --json --sim "0:disk:busy=2" tur 0
    jeq out .ready true
    run 1 "$P" tur
    has err "takes one device path"
    ;;
readwrite)
    # 64 KiB of known bytes, written at LBA 100 of a disk whose medium is a file.
    awk 'BEGIN { for (i = 0; i < 65536; i++) printf "%c", 65 + (i * 7) % 26 }' >in.bin
    S="0:disk:4M:file=$WORK/disk.img"
    run 0 "$P" --sim "$S" write 0 --lba 100 -i in.bin
    has out "wrote 128 blocks (65536 bytes) to 0:0 LBA 100..227 from in.bin"
    [ "$(wc -c <disk.img)" -eq 4194304 ] || fail "disk.img is not 4 MiB"
    # Where the bytes landed, read without pcamctl: blocks 100..227 of the file.
    dd if=disk.img bs=512 skip=100 count=128 2>/dev/null | cmp - in.bin || fail "medium file differs"
    # A new run (a new bus) reads them back.
    run 0 "$P" --json --sim "$S" read 0 --lba 100 --count 128 -o back.bin
    jeq out .bytes 65536
    cmp in.bin back.bin || fail "read back differs"
    # Part of it to stdout.
    "$P" --sim "$S" read 0 --lba 101 --count 1 -o - >one.bin 2>err || fail "read to stdout"
    dd if=in.bin bs=512 skip=1 count=1 2>/dev/null | cmp - one.bin || fail "stdout read differs"
    # From stdin: the first two blocks of in.bin land at LBA 300.
    "$P" --sim "$S" write 0 --lba 300 --count 2 -i - <in.bin >out 2>err || fail "write from stdin"
    head -c 1024 in.bin >two.bin
    dd if=disk.img bs=512 skip=300 count=2 2>/dev/null | cmp - two.bin || fail "stdin write differs"
    run 1 "$P" --sim "$S" write 0 --lba 300 -i -
    has err "reading stdin needs --count"
    # A fresh in-memory disk reads as zeros.
    run 0 "$P" --sim "0:disk:1M" read 0 --lba 7 --count 8 -o z.bin
    head -c 4096 /dev/zero | cmp - z.bin || fail "fresh disk is not zeros"
    # An injected medium error: LBA 1000 = 0x3E8 in the sense INFORMATION field.
    run 3 "$P" --sim "0:disk:merr=1000" read 0 --lba 996 --count 8 -o m.bin
    has err "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x3E8"
    # Bad requests change nothing and say why.
    head -c 700 in.bin >odd.bin
    run 1 "$P" --sim "$S" write 0 --lba 0 -i odd.bin
    has err "not a whole number of 512-byte blocks"
    run 22 "$P" --sim "0:disk:1M" read 0 --lba 2047 --count 2 -o x.bin
    has err "beyond the last block of 0:0 (2047)"
    run 1 "$P" --sim "0:disk:1M" read 0 --lba 0 -o x.bin
    has err "usage: pcamctl read"
    # A 3 TiB disk on a sparse file: 8 blocks written across LBA 2^32
    # (4294967296) land there in the file, not 2^32 blocks lower, and read
    # back; VERIFY across it passes.
    B="0:disk:3T:file=$WORK/big.img"
    head -c 4096 in.bin >eight.bin
    run 0 "$P" --sim "$B" write 0 --lba 4294967292 -i eight.bin
    has out "wrote 8 blocks (4096 bytes) to 0:0 LBA 4294967292..4294967299 from eight.bin"
    [ "$(wc -c <big.img)" = 3298534883328 ] || fail "big.img is not 3 TiB"
    dd if=big.img bs=512 skip=4294967292 count=8 2>/dev/null | cmp - eight.bin || fail "3 TiB file: blocks 2^32-4.. differ"
    dd if=big.img bs=512 count=8 2>/dev/null | cmp - z.bin || fail "3 TiB file: a write across 2^32 reached block 0"
    run 0 "$P" --sim "$B" read 0 --lba 4294967292 --count 8 -o big8.bin
    cmp eight.bin big8.bin || fail "3 TiB disk: read back across 2^32 differs"
    run 0 "$P" --sim "$B" verify 0 --lba 4294967290 --count 16
    has out "verified 16 blocks (8192 bytes) of 0:0 LBA 4294967290..4294967305: no error"
    # The target sees the whole LBA: a medium error at 2^32 + 4 fails the
    # READ(16) over it, one at block 4 does not (no wrap), and a read of
    # blocks 0..15 passes the one at 2^32 + 4.
    # pcamctl's read keeps the good blocks and names the bad one (3: medium
    # error, sg3_utils' category), which must be 2^32 + 4 itself.
    run 3 "$P" --sim "0:disk:3T:merr=4294967300" read 0 --lba 4294967292 --count 16 -o m.bin
    has err "READ(16) of 1 block at LBA 4294967300 on 0:0 failed: CHECK CONDITION: MEDIUM ERROR"
    has err "8 good blocks (LBA 4294967292..4294967299, 4096 bytes) are in m.bin; the error is at LBA 4294967300"
    run 0 "$P" --sim "0:disk:3T:merr=4" read 0 --lba 4294967292 --count 16 -o m.bin
    run 0 "$P" --sim "0:disk:3T:merr=4294967300" read 0 --lba 0 --count 16 -o m.bin
    ;;
negotiate)
    S="0:disk,1:disk:async,2:disk:fast10,3:disk:narrow,4:disk:fast80"
    # SPI-4 period factors: 0x19 = 100 ns (Fast-10), 0x0C = 50 ns, 0x09 = 12.5 ns (DT only).
    run 0 "$P" --json --sim "$S" negotiate 2
    jeq out .current.period 25
    jeq out .current.offset 16
    jeq out .current.width 16
    jeq out .target_side.period 25
    run 0 "$P" --json --sim "$S" negotiate 1
    jeq out .current.offset 0
    run 0 "$P" --json --sim "$S" negotiate 3
    jeq out .current.width 8
    jeq out .current.period 12
    run 0 "$P" --json --sim "$S" negotiate 4
    jeq out .current.period 9
    jeq out .current.ppr_options 2
    # Lower the user limits: the next command renegotiates to them.
    run 0 "$P" --sim "$S" negotiate 0 --period 0x32 --offset 4 --width 8
    has out "user limits changed"
    grep "^  current" out | grep -F -q "0x32 (200.00 ns) offset 4 narrow 5.0 MB/s" || fail "user limits not in force"
    grep "^  target " out | grep -F -q "0x32 (200.00 ns) offset 4 narrow" || fail "target disagrees"
    run 0 "$P" --json --sim "$S" negotiate 0 --async
    jeq out .current.offset 0
    run 1 "$P" --sim "$S" negotiate 0:1
    run 1 "$P" --sim "$S" negotiate 0 --width 12
    run 42 "$P" --sim "$S" negotiate 9
    ;;
tags)
    # A target that holds 4 tasks: QUEUE FULL lowers the depth to 4.
    run 0 "$P" --json --sim "0:disk:qfull=4" tags 0 --load 200
    jeq out .depth 4
    jeq out .load.errors 0
    jeq out .tagged true
    [ "$(jval out .counters.queue_fulls)" -ge 1 ] || fail "no QUEUE FULL counted"
    run 0 "$P" --json --sim "1:disk:notags" tags 1 --load 20
    jeq out .tagged false
    run 0 "$P" --json --sim "0:disk" tags 0 --depth 8 --age-count 16 --age-ms 50 --starve-ms 30 --no-aging
    jeq out .depth 8
    jeq out .aging.enabled false
    jeq out .aging.age_count 16
    jeq out .aging.age_ms 50
    jeq out .aging.bus_starve_ms 30
    run 0 "$P" --sim "0:disk" tags 0
    # pcam.h defaults: depth 32, max 64, floor 2, ramp 128; aging 1000 ms / 20 ms.
    has out "0:0: tagged queuing on, depth 32 (start 32, max 64, floor 2, +1 after 128 successes)"
    has out "aging on: ORDERED after 1000 ms; bus starvation 20 ms"
    run 1 "$P" --sim "0:disk" tags 0 --depth 0
    ;;
reset)
    S="0:disk,5:disk:luns=2"
    run 0 "$P" --sim "$S" reset dev 0
    has out "BUS DEVICE RESET to 0:0: done; ready again"
    has out "BDR_SENT     target 0"
    run 0 "$P" --json --sim "$S" reset lun 5:1
    jeq out .status REQ_CMP
    jeq out .ready_after true
    grep -q '^.events\[[0-9]*\].event=LUN_RESET$' out.flat || fail "no LUN_RESET event"
    run 0 "$P" --sim "$S" reset bus
    has out "SCSI bus reset: done"
    has out "BUS_RESET"
    run 42 "$P" --sim "$S" reset dev 6
    run 1 "$P" --sim "$S" reset frob
    ;;
sense)
    # SPC-3 4.5.3 fixed format: F0 = VALID + 70h; key 3 (MEDIUM ERROR) in
    # byte 2; INFORMATION 000003E8h in bytes 3-6; additional length 0Ah;
    # ASC/ASCQ 11h/00h (Unrecovered read error) in bytes 12-13.
    run 0 "$P" sense f0 00 03 00 00 03 e8 0a 00 00 00 00 11 00 00 00 00 00
    has out "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x3E8"
    has out "information 1000 (0x3e8)"
    run 0 "$P" --json sense f00003000003e80a000000001100000000 00
    jeq out .sense.key 3
    jeq out .sense.asc 17
    jeq out .sense.ascq 0
    jeq out .sense.info 1000
    # SPC-3 4.5.2 descriptor format 72h: key 5, ASC 24h; a sense-key-specific
    # descriptor (02h, length 6) with SKSV|C/D|BPV|bit 7 = CFh, field 0002h.
    run 0 "$P" --json sense 72 05 24 00 00 00 00 08 02 06 00 00 cf 00 02 00
    jeq out .sense.key_name "ILLEGAL REQUEST"
    jeq out .sense.text "ILLEGAL REQUEST: Invalid field in cdb (5/24/00) field pointer byte 2 bit 7 in CDB"
    run 97 "$P" sense 12 34
    has err "invalid sense data"
    # One hex digit is a byte (07h, as sg_raw reads it): no valid sense.
    run 97 "$P" sense 7
    has err "invalid sense data"
    run 1 "$P" sense 123
    has err "is not a byte"
    run 1 "$P" sense zz
    run 1 "$P" sense
    ;;
trace)
    run 0 "$P" --sim "0:disk" trace -o t.vcd read 0 --lba 0 --count 1 -o o.bin
    has out "VCD trace of the bus written to t.vcd"
    has t.vcd '$timescale 1ns $end'
    has t.vcd 'BSY $end'
    has t.vcd 'REQ $end'
    grep -q '^#[0-9]' t.vcd || fail "no time steps in t.vcd"
    # The phase log of a TEST UNIT READY: opcode 00h, then GOOD status.
    run 0 "$P" --sim "0:disk:noua" trace -o t2.vcd --phases tur 0
    has out "COMMAND 6 bytes, opcode 0x00"
    has out "STATUS 0x00"
    hasnt out "opcode 0x12"
    # devlist's trace holds the scan: INQUIRY (12h) is on the bus.
    run 0 "$P" --sim "0:disk" trace -o t3.vcd --phases devlist
    has out "opcode 0x12"
    run 1 "$P" trace
    run 1 "$P" trace -o x.vcd sense 70
    run 1 "$P" --backend qemu-esp trace -o x.vcd tur 0
    has err "trace needs the sim back-end"
    ;;
bench)
    run 0 "$P" --json bench --targets 2 --commands 300 --disk-mb 8
    jeq out .targets 2
    jeq out .commands 300
    jeq out .errors 0
    jeq out '.per_target#' 2
    run 0 "$P" bench --targets 1 --depth 4 --commands 100 --disk-mb 8
    has out "rand4k, 1 targets x depth 4 (4 outstanding)"
    run 1 "$P" bench --pattern nonsense
    ;;
json)
    # Every command's --json output parses; a failed command's too.
    for args in "devlist -l" "inquiry 0" "inquiry 0 --vpd 0x83" "readcap 0" "tur 0" \
                "negotiate 0" "tags 0" "reset bus" "sense 70 00 06 00 00 00 00 0a 00 00 00 00 29 00"; do
        # shellcheck disable=SC2086
        "$P" --json --sim "0:disk,3:cd" $args >j.out 2>j.err || fail "$args failed"
        $J <j.out >/dev/null || { cat j.out; fail "$args: invalid JSON"; }
    done
    run 3 "$P" --json --sim "0:disk:merr=1000" read 0 --lba 1000 --count 1 -o m.bin
    jeq out .ok false
    jeq out .status SCSI_STATUS_ERROR
    jeq out .scsi_status 2
    jeq out .sense.key 3
    jeq out .sense.info 1000
    has err "MEDIUM ERROR"
    # The checker itself rejects what is not JSON.
    printf '{"a":1,}' | $J >/dev/null 2>&1 && fail "checker accepted a trailing comma"
    printf '[1 2]' | $J >/dev/null 2>&1 && fail "checker accepted a missing comma"
    true
    ;;
errors)
    run 1 "$P" frobnicate
    has err "unknown command 'frobnicate'"
    run 1 "$P"
    has err "missing the command"
    run 1 "$P" --bogus devlist
    run 1 "$P" --sim "0:tape" devlist
    has err "bad --sim topology: '0:tape': unknown kind 'tape' (disk or cd)"
    run 1 "$P" --sim "7:disk" devlist
    has err "target 7 is the initiator's ID"
    run 1 "$P" --sim "bus:narrow,9:disk" devlist
    has err "does not fit on a narrow bus"
    run 1 "$P" --sim "bus:id=9:narrow,0:disk" devlist
    has err "the initiator's ID 9 does not fit on a narrow bus (IDs 0..7)"
    run 1 "$P" --sim "bus:narrow:id=9,0:disk" devlist
    has err "the initiator's ID 9 does not fit on a narrow bus (IDs 0..7)"
    run 1 "$P" --sim "0:disk:1M:merr=5000" devlist
    has err "beyond the last block (2047)"
    run 1 "$P" --sim "0:disk,0:cd" devlist
    has err "given twice"
    run 1 "$P" --sim "0:disk:3X" devlist
    run 1 "$P" --sim "" devlist
    run 15 "$P" --sim @nonexistent.cfg devlist
    has err "cannot open nonexistent.cfg"
    run 42 "$P" --sim "0:disk" inquiry 4
    has err "no device at 4:0"
    run 1 "$P" --sim "0:disk" inquiry 7
    # qemu-esp without QEMU: back-end not available (4), saying what to install.
    run 43 env PCAM_QEMU=/nonexistent/qemu-system-x86_64 "$P" --backend qemu-esp devlist
    has err "apt-get install qemu-system-x86"
    run 1 "$P" --backend scsi-over-carrier-pigeon devlist
    # A topology file with comments and one item per line.
    printf '# two disks\n0:disk:8M   # system\n\n1:disk:16M:product=DATA\n' >bus.cfg
    run 0 "$P" --sim @bus.cfg devlist
    has out "1:0     disk   PCAMSIM  DATA"
    has out "2 devices"
    # $PCAMCTL_SIM is the default topology.
    PCAMCTL_SIM="4:cd"
    export PCAMCTL_SIM
    run 0 "$P" devlist
    unset PCAMCTL_SIM
    has out "4:0     cd"
    has out "1 device"
    ;;
embed)
    run 0 "${EMBED:?}"
    has out 'read 512 bytes from target 0: "Hello from block 0 of the simulated disk."'
    has out "all static"
    ;;
demo)
    run 0 sh "$SRC/scripts/demo-run.sh" "${BUILD:?}"
    for section in "1. Scan" "2. INQUIRY" "3. Negotiation" "4. Write, read back, compare" \
                   "5. An injected MEDIUM ERROR" "6. A VCD trace"; do
        has out "$section"
    done
    has out "identical"
    has out "MEDIUM ERROR: Unrecovered read error (3/11/00)"
    vcd=$(sed -n 's/^VCD trace of the bus written to //p' out)
    [ -s "$vcd" ] || fail "the demo's VCD ($vcd) is missing"
    # Every block README.md quotes from the demo (between "<!-- demo output -->"
    # and "<!-- end of demo output -->", indented four spaces) stands in the
    # demo's output as it is, line for line and in one piece.
    awk '/^<!-- demo output -->$/ {n++; on = 1; next} /^<!-- end of demo output -->$/ {on = 0; next}
         on {sub(/^    /, ""); print n "\t" $0}' "$SRC/README.md" >quoted
    [ -s quoted ] || fail "README.md quotes no demo output (<!-- demo output --> block)"
    for k in $(cut -f1 quoted | sort -u); do
        awk -F '\t' -v k="$k" '$1 == k {sub(/^[^\t]*\t/, ""); print}' quoted >block
        awk 'NR == FNR {b[++n] = $0; next}
             {l[++m] = $0}
             END { for (i = 1; i + n - 1 <= m; i++) { for (j = 1; j <= n && l[i + j - 1] == b[j]; j++) ;
                                                      if (j > n) exit 0 }
                   exit 1 }' block out ||
            { sed 's/^/  README: /' block >&2; fail "README.md's demo block $k is not in the demo's output"; }
    done
    ;;
memcheck)
    # (error-exitcode 120: no exit status pcamctl gives, so a Valgrind error
    # cannot pass for an expected failure)
    V="${VALGRIND:?} --tool=memcheck --error-exitcode=120 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet"
    # shellcheck disable=SC2086
    run 0 $V "$P" --sim "0:disk:4M:merr=9,3:cd" devlist -l
    # shellcheck disable=SC2086
    run 3 $V "$P" --sim "0:disk:4M:merr=9" read 0 --lba 8 --count 2 -o x.bin
    head -c 1024 /dev/zero >z.bin
    # shellcheck disable=SC2086
    run 0 $V "$P" --sim "0:disk:4M:file=$WORK/m.img" write 0 --lba 3 -i z.bin
    # shellcheck disable=SC2086
    run 0 $V "$P" --json --sim "0:disk:4M:file=$WORK/m.img" read 0 --lba 3 --count 2 -o y.bin
    cmp z.bin y.bin || fail "memcheck read back differs"
    # shellcheck disable=SC2086
    run 0 $V "$P" --json --sim "0:disk:qfull=4" tags 0 --load 40
    # shellcheck disable=SC2086
    run 0 $V "$P" --sim "0:disk" trace -o v.vcd --phases reset dev 0
    # shellcheck disable=SC2086
    run 97 $V "$P" sense 12 34
    # The newer commands, in one script on one bus.
    printf '%s\n' "inquiry 3" "inquiry 3 --vpd 0x80" "cmd 0 12 00 00 00 24 00 -r 36" "requests 0" \
        "modepage 0 --page 8 --set 2=4 --yes" "--json modepage 0" "reportluns 0" "verify 0 --count 64" \
        "eject 3" "! tur 3" "rescan" "--json devlist -v" "negotiate 0 --period 0x19" "!42 tur 4" >s.txt
    # shellcheck disable=SC2086
    run 0 $V "$P" --sim "0:disk:4M,3:cd" script s.txt
    # shellcheck disable=SC2086
    run 97 $V "$P" --json vpd 00 b0 00 3c 00 08 00 01 00 00 10 00
    # shellcheck disable=SC2086
    run 1 $V "$P" --json read 0 --lba
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok ($case_)"
