#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pcamctl tests, part 2 (issue 11): the command line as camcontrol and
# sg3_utils users type it, the newer commands, progress, what is shown
# against what the bus did, failures that are never silent, exit codes and
# JSON on every path, script mode, the man page and the completion.
# Expectations come from outside pcamctl's code: the topology on the
# command line, the SPC/SBC/SAT/SPI byte layouts (hand-made pages below),
# sim_lu.c's INQUIRY bytes (byte 7 = 32h: WBus16, Sync, CmdQue), files
# compared with dd and cmp, and pcamdecode's rendering of the same bytes.
#
# usage: cli.sh CASE   with PCAMCTL, PCAMDECODE, WORK, SRC, BUILD set
# (tests/pcamctl/CMakeLists.txt passes them).
set -u
. "${SRC:?}/tests/pcamctl/lib.sh"

case $case_ in
numbers)
    # A leading zero is decimal: LBA 0100 is block 100, not 64 (octal).
    S="0:disk:1M:file=$WORK/d.img"
    awk 'BEGIN { for (i = 0; i < 512; i++) printf "%c", 65 + i % 26 }' >blk.bin
    run 0 "$P" --sim "$S" write 0 --lba 0100 -i blk.bin
    has out "LBA 100..100"
    dd if=d.img bs=512 skip=100 count=1 2>/dev/null | cmp - blk.bin || fail "LBA 0100 did not land at 100"
    head -c 512 /dev/zero >zero.bin
    dd if=d.img bs=512 skip=64 count=1 2>/dev/null | cmp - zero.bin || fail "LBA 64 was written"
    # --count 010 is ten blocks; 0x10 is sixteen.
    run 0 "$P" --sim "$S" read 0 --lba 0 --count 010 -o ten.bin
    [ "$(wc -c <ten.bin)" -eq 5120 ] || fail "--count 010 did not read 10 blocks"
    run 0 "$P" --sim "$S" read 0 --lba 0x10 --count 0x10 -o hex.bin
    [ "$(wc -c <hex.bin)" -eq 8192 ] || fail "--count 0x10 did not read 16 blocks"
    # Target 010 is 10, not 8.
    run 0 "$P" --sim "8:disk:product=EIGHT,10:disk:product=TEN" inquiry 010
    has out "<PCAMSIM TEN 1.00>"
    # 08 and 09 are numbers (octal would reject them).
    run 0 "$P" --sim "8:disk:product=EIGHT" inquiry 08
    has out "<PCAMSIM EIGHT 1.00>"
    run 1 "$P" --sim "$S" read 0 --lba 1e3 --count 1 -o x.bin
    run 1 "$P" --sim "$S" read 0 --lba 0x --count 1 -o x.bin
    # The topology's numbers too: luns=03 is three LUNs.
    run 0 "$P" --sim "5:disk:luns=03" devlist
    has out "3 devices"
    # pcamdecode's --block-size: 0512 is 512 bytes, not 330 (octal).
    run 0 "${PCAMDECODE:?}" cdb --block-size 0512 28 00 00 00 00 00 00 00 01 00
    has out "bytes=512"
    run 0 "$PCAMDECODE" cdb --block-size 0x200 28 00 00 00 00 00 00 00 01 00
    has out "bytes=512"
    run 2 "$PCAMDECODE" cdb --block-size 51x 28 00 00 00 00 00 00 00 01 00
    # bench's numbers are checked before pcambench sees them.
    run 0 "$P" --json bench --targets 02 --commands 0100 --disk-mb 8
    jeq out .targets 2
    jeq out .commands 100
    ;;
paths)
    S="0:disk,3:cd,5:disk:luns=3"
    # BUS:TARGET:LUN with bus 0 or its name; BUS:TARGET with the name.
    run 0 "$P" --sim "$S" inquiry 0:5:2
    has out "5:2: <PCAMSIM SIMDISK"
    run 0 "$P" --sim "$S" inquiry sim0:3
    has out "3:0: <PCAMSIM SIMCD"
    run 0 "$P" --sim "$S" inquiry sim0:5:1
    has out "5:1: <"
    run 0 "$P" --sim "$S" inquiry 0x5:0x1
    has out "5:1: <"
    run 0 "$P" --sim "$S" inquiry 05:02
    has out "5:2: <"
    run 1 "$P" --sim "$S" inquiry 1:5:2
    has err "no bus '1': the sim back-end has one bus, 0 (sim0)"
    run 1 "$P" --sim "$S" inquiry esp0:3
    has err "one bus, 0 (sim0)"
    run 1 "$P" --sim "$S" inquiry 16
    has err "bad target '16' (valid: 0..15, not 7"
    run 1 "$P" --sim "bus:narrow,0:disk" inquiry 8
    has err "(valid: 0..7"
    run 1 "$P" --sim "$S" inquiry 5:8
    has err "bad LUN '8' (valid: 0..7)"
    run 1 "$P" --sim "$S" inquiry 0:0:0:0
    has err "[BUS:]TARGET[:LUN]"
    run 1 "$P" --sim "$S" negotiate 5:1
    has err "takes a target, not a LUN"
    run 0 "$P" --sim "$S" negotiate sim0:5
    has out "target 5 transfer agreement"
    ;;
options)
    # Options anywhere, --opt=value, a missing value named, a short usage line.
    run 0 "$P" --sim "0:disk,3:cd" devlist --json
    jeq out .count 2
    run 0 "$P" readcap 0 --json --sim=0:disk:8M
    jeq out .blocks 16384
    run 0 "$P" --sim "0:disk:1M" read 0 --lba=7 --count=2 -o two.bin --backend=sim
    [ "$(wc -c <two.bin)" -eq 1024 ] || fail "--lba=7 --count=2 did not read 2 blocks"
    run 1 "$P" --sim "0:disk" read 0 --lba
    has err "read: option --lba needs a value"
    has err "usage: pcamctl read PATH --lba N"
    hasnt err "global options:"
    run 1 "$P" --sim "0:disk" read 0 --lba --count 2 -o x.bin
    has err "option --lba needs a value"
    run 1 "$P" --sim
    has err "option --sim needs a value"
    run 1 "$P" tur 0 --frob
    has err "tur: unknown option '--frob'"
    has err "usage: pcamctl tur PATH"
    # --version: the project's one version (include/pcam/pcam_version.h).
    ver=$(sed -n 's/^#define PCAM_VERSION_STRING "\([0-9.]*\)"$/\1/p' "$SRC/include/pcam/pcam_version.h")
    [ -n "$ver" ] || fail "no PCAM_VERSION_STRING in include/pcam/pcam_version.h"
    run 0 "$P" --version
    has out "pcamctl $ver "
    run 0 "$P" --json --version
    jeq out .version "$ver"
    # help CMD and CMD --help exit 0 with the command's usage.
    run 0 "$P" help tur
    has out "usage: pcamctl tur PATH"
    run 0 "$P" tur --help
    has out "usage: pcamctl tur PATH"
    run 0 "$P" trace --help
    has out "usage: pcamctl trace"
    run 0 "$P" help bench
    has out "--seconds"
    run 0 "$P" help
    has out "commands:"
    run 0 "$P" --help
    has out "exit status, in sg3_utils' categories:"
    run 1 "$P" help frobnicate
    ;;
newcmds)
    S="0:disk:1M:file=$WORK/d.img,3:cd,5:disk:luns=3"
    # cmd: a raw INQUIRY (12h, allocation 36): sim_lu.c's bytes, vendor at byte 8.
    run 0 "$P" --sim "$S" cmd 0 12 00 00 00 24 00 -r 36
    has out "INQUIRY"
    has out "0000  00 00 05 02 1f 00 00 32 50 43 41 4d 53 49 4d 20"
    run 0 "$P" --json --sim "$S" cmd 0 12 00 00 00 24 00 -r 36 -o inq.bin
    jeq out .transferred 36
    [ "$(head -c 16 inq.bin | tail -c 8)" = "PCAMSIM " ] || fail "cmd -o: vendor not at bytes 8-15"
    # A raw WRITE(10) of block 5 from a file lands at block 5 of the medium.
    awk 'BEGIN { for (i = 0; i < 512; i++) printf "%c", 97 + i % 26 }' >blk.bin
    run 0 "$P" --sim "$S" cmd 0 2a 00 00 00 00 05 00 00 01 00 -s 512 -i blk.bin
    dd if=d.img bs=512 skip=5 count=1 2>/dev/null | cmp - blk.bin || fail "cmd WRITE(10) did not land at block 5"
    run 0 "$P" --sim "$S" cmd 0 00 00 00 00 00 00
    has out "GOOD"
    # --retries 0 sends the command once, as sg_raw does; the scan already
    # cleared the power-on UNIT ATTENTION (docs/reliability.md), so a
    # TEST UNIT READY right after it is GOOD even without retries.
    run 0 "$P" --sim "$S" cmd 0 00 00 00 00 00 00 --retries 0
    has out "GOOD"
    # VPD B0h is not on the simulated LU: ILLEGAL REQUEST, Invalid field in CDB.
    run 5 "$P" --sim "$S" cmd 0 12 01 b0 00 ff 00 -r 255
    has err "ILLEGAL REQUEST: Invalid field in cdb (5/24/00)"
    run 1 "$P" --sim "$S" cmd 0 12 00 00
    has err "6 to 16 bytes"
    run 1 "$P" --sim "$S" cmd 0 12 00 00 00 24 00 -r 36 -s 4
    # reportluns: luns=3 is LUNs 0, 1, 2 (SAM-2 single-level: 00 0L 00...).
    run 0 "$P" --json --sim "$S" reportluns 5
    jeq out .count 3
    jeq out '.luns[2].lun' 2
    jeq out '.luns[1].raw' 0001000000000000
    # requests: after a bus reset the LU reports its UNIT ATTENTION and
    # clears it (SPC-3 REQUEST SENSE); asked again on the same bus, NO SENSE.
    # (The power-on one is already cleared by the scan.)
    printf 'reset bus\nrequests 0\nrequests 0\n' >rq.txt
    run 0 "$P" --sim "$S" script rq.txt
    has out "0:0: UNIT ATTENTION: Power on, reset, or bus device reset occurred (6/29/00)"
    has out "0:0: NO SENSE"
    run 0 "$P" --sim "0:disk:noua" requests 0
    has out "NO SENSE"
    # modepage: caching page 08h (SBC-3): WCE off; --set 2=4 sets WCE, but
    # only with a confirmation (exit 6 without one, nothing changed).
    run 0 "$P" --sim "$S" modepage 0 --page 8
    has out "WCE=0"
    has out "block descriptor: 2048 blocks of 512 bytes"
    run 44 "$P" --sim "$S" modepage 0 --page 8 --set 2=4 </dev/null
    has err "not confirmed"
    printf 'modepage 0 --page 8 --set 2=0x04 --yes\nmodepage 0 --page 8 --json\n' >mp.txt
    run 0 "$P" --sim "$S" script mp.txt
    has out '"wce":true'
    run 1 "$P" --sim "$S" --yes modepage 0 --page 8 --set 2=0x80
    has err "bits 0x80 are not changeable (mask 0x05)"
    run 1 "$P" --sim "$S" modepage 0 --set 2=4
    # start/stop/eject/load, seen through TEST UNIT READY on the same bus.
    printf 'stop 0\n! tur 0\nstart 0\ntur 0\neject 3\n! tur 3\nload 3\ntur 3\n' >ss.txt
    run 0 "$P" --sim "$S" script ss.txt
    has err "Logical unit not ready, initializing command required (2/04/02)"
    has err "NOT READY: Medium not present (2/3A/00)"
    has out "3:0: ready"
    # verify: the whole 1M medium is 2048 blocks; a MEDIUM ERROR at 1000 shows.
    run 0 "$P" --sim "$S" verify 0
    has out "verified 2048 blocks (1048576 bytes) of 0:0 LBA 0..2047: no error"
    run 3 "$P" --sim "0:disk:merr=1000" verify 0 --lba 996 --count 8
    has err "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x3E8"
    # rescan finds what a hung scan missed.
    printf '!45 devlist\nrescan\n' >rs.txt   # the first scan is incomplete (45)
    run 0 "$P" --sim "0:disk:hang=1,3:cd" script rs.txt
    has out "1 device;"
    has out "rescan: 2 devices (before: 1); found: 0:0; lost: none"
    # devlist -v: the chip's limits and every ID.
    run 0 "$P" --sim "0:disk,3:cd" devlist -v
    has out "chip limits: 0x09 (12.50 ns) offset 31 wide"
    has out "1       (no device)"
    ;;
inquiry)
    S="0:disk,3:cd"
    # sim_lu.c's standard INQUIRY: byte 2 = 05h (SPC-3), byte 7 = 32h.
    run 0 "$P" --sim "$S" inquiry 0
    has out "version=0x05  [SPC-3]"
    has out "WBus16=1  Sync=1  [Linked=0]  [TranDis=0]  CmdQue=1"
    has out "commands to this LU go tagged"
    run 0 "$P" --sim "$S" inquiry 3
    has out "RMB=1"
    has out "CmdQue=0"
    has out "commands to this LU go untagged: the LU's INQUIRY says CmdQue=0"
    run 0 "$P" --json --sim "$S" inquiry 3
    jeq out .tagged_in_use false
    jeq out .sync true
    # Every LU has a serial number, the CD too: PCS + ID + LUN.
    run 0 "$P" --sim "$S" inquiry 3 --vpd 0x80
    has out "unit serial number: PCS030"
    run 0 "$P" --json --sim "$S" inquiry 3 --vpd 0x83
    jeq out '.designators[0].value' "PCAMSIM PCS030"
    # Hand-made pages (SBC-3 6.6.2 B1h: rotation 1C20h = 7200 rpm, form factor 2 = 3.5 inch).
    # Those shorter than their header's length decode, then fail (97).
    run 97 "$P" vpd 00 b1 00 3c 1c 20 00 02 00
    has out "7200 rpm"
    has out "3.5 inch"
    # B0h: max COMPARE AND WRITE 8, granularity 1, max transfer 4096, optimal 128.
    run 97 "$P" --json vpd 00b0003c 00 08 0001 00001000 00000080
    jeq out .max_compare_write 8
    jeq out .opt_xfer_granularity 1
    jeq out .max_xfer 4096
    jeq out .opt_xfer 128
    # 86h (SPC-4 7.8.7): byte 4 = 07h GRD/APP/REF_CHK, byte 5 = 07h HEADSUP/ORDSUP/SIMPSUP.
    run 97 "$P" --json vpd 00 86 00 3c 07 07 00 00
    jeq out .grd_chk 1
    jeq out .ref_chk 1
    jeq out .headsup 1
    jeq out .simpsup 1
    jeq out .uask_sup 0
    # B2h (SBC-3 6.6.5): byte 5 = C0h LBPU and LBPWS, byte 6 = 02h thin.
    run 0 "$P" --json vpd 00 b2 00 04 00 c0 02 00
    jeq out .lbpu 1
    jeq out .lbpws 1
    jeq out .lbpws10 0
    jeq out .provisioning_type "thin provisioned"
    # 89h (SAT-2 12.4.2): SAT strings at 8/16/32, command code ECh at 56,
    # IDENTIFY data from 60 with ATA strings two characters a word, the
    # first in the high byte (so "SN1234" is sent "NS2143").
    awk 'function pad(s, n) { while (length(s) < n) s = s " "; return s }
         function str(s, n,   i) { s = pad(s, n); for (i = 1; i <= n; i++) printf "%02x", ord[substr(s, i, 1)] }
         function ata(s, n,   i) { s = pad(s, n); for (i = 1; i <= n; i += 2) printf "%02x%02x", ord[substr(s, i + 1, 1)], ord[substr(s, i, 1)] }
         function zeros(n,   i) { for (i = 0; i < n; i++) printf "00" }
         BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i
                 printf "00890238"; zeros(4); str("PCAMSAT", 8); str("SATBRIDGE", 16); str("0001", 4)
                 printf "34"; zeros(19); printf "ec"; zeros(3)
                 zeros(20); ata("SN1234", 20); zeros(6); ata("FW01", 8); ata("PCAM TEST DISK", 40); zeros(512 - 94)
                 print "" }' >p89.hex
    run 0 "$P" --json vpd "$(cat p89.hex)"
    jeq out .length 568
    jeq out .sat_vendor PCAMSAT
    jeq out .sat_product SATBRIDGE
    jeq out .command_name "IDENTIFY DEVICE"
    jeq out .ata_serial SN1234
    jeq out .ata_firmware FW01
    jeq out .ata_model "PCAM TEST DISK"
    # A page cut short decodes what it holds and no more.
    run 97 "$P" --json vpd 00 b0 00 3c 01
    jeq out .wsnz 1
    jeq out .truncated true
    if grep -q max_xfer out; then fail "a 1-byte B0h page showed max_xfer"; fi
    run 1 "$P" vpd 00 b0
    ;;
progress)
    # 16 MiB: progress only with --progress (stderr is a file here), then a
    # throughput summary like sg_dd time=1 in every case.
    run 0 "$P" --sim "0:disk:16M" read 0 --lba 0 --count 32768 -o /dev/null
    hasnt err "ETA"
    has err "time to transfer data: "
    has err "MB/sec; "
    has err "secs of simulated bus time at "
    # On a terminal (script(1) of bsdutils, Essential in Debian, gives one)
    # progress shows by itself, rewritten in place with carriage returns.
    script -qec "$P --sim 0:disk:16M read 0 --lba 0 --count 32768 -o /dev/null" /dev/null >tty.out 2>&1 ||
        { cat tty.out; fail "read on a terminal failed"; }
    has tty.out "16.0 of 16.0 MiB (100%)"
    has tty.out " MB/s ETA "
    tr '\r' '\n' <tty.out | grep -q '^read [0-9.]* of 16.0 MiB' || fail "progress is not rewritten in place"
    run 0 "$P" --sim "0:disk:16M" read 0 --lba 0 --count 32768 -o /dev/null --progress
    has err "ETA"
    has err "16.0 of 16.0 MiB (100%)"
    run 0 "$P" --json --sim "0:disk:16M" read 0 --lba 0 --count 32768 -o /dev/null
    [ "$(jval out .time.bus_us)" -gt 0 ] || fail "no bus time"
    head -c 1048576 /dev/zero >m.bin
    run 0 "$P" --sim "0:disk:16M" write 0 --lba 0 -i m.bin --progress
    has err "1.0 of 1.0 MiB (100%)"
    run 0 "$P" --sim "0:disk:16M" verify 0 --no-progress
    has err "1 VERIFY command in "
    ;;
shown)
    # What is shown is what the bus did. The CD (CmdQue=0): tags off, and
    # its commands carry no SIMPLE QUEUE TAG (20h) in the phase log.
    run 0 "$P" --sim "0:disk,3:cd" tags 3
    has out "3:0: tagged queuing off: the LU's INQUIRY says CmdQue=0"
    run 0 "$P" --sim "0:disk,3:cd" negotiate 3
    has out "lun 0    commands go untagged: the LU's INQUIRY says CmdQue=0"
    run 0 "$P" --json --sim "0:disk,3:cd" negotiate 0
    jeq out .lun0_tagged true
    run 0 "$P" --sim "0:disk,3:cd:noua" trace -o cd.vcd --phases read 3 --lba 0 --count 1 -o c.bin
    hasnt out "MSG OUT 0x20"
    run 0 "$P" --sim "0:disk:noua,3:cd" trace -o d.vcd --phases read 0 --lba 0 --count 1 -o d.bin
    has out "MSG OUT 0x20 0x"
    # notags: the target rejects the tag message; the load goes untagged.
    run 0 "$P" --sim "1:disk:notags" tags 1 --load 20
    has out "sent untagged"
    hasnt out "20 tagged"
    has out "tagged queuing off: the target rejected a tag message"
    run 0 "$P" --json --sim "1:disk:notags" tags 1 --load 20
    jeq out .tagged false
    jeq out .untagged_because "the target rejected a tag message"
    # The phase log: a PPR is one line decoded as pcamdecode msg decodes it.
    # SPI-4 PPR: 01h, length 06h, code 04h, period 09h, 00h, offset 1Fh
    # (the simulated chip's 31), width 01h (16 bit), options 02h (DT).
    run 0 "$P" --sim "0:disk:fast80:noua" trace -o p.vcd --scan --phases tur 0
    cp out log
    "${PCAMDECODE:?}" msg 01 06 04 09 00 1f 01 02 >want || fail "pcamdecode msg failed"
    grep -F "MSG OUT 01 06 04 09 00 1F 01 02  $(cat want)" log >/dev/null || { cat log; fail "PPR not one decoded line"; }
    has log "MSG IN 01 06 04 09 00"
    hasnt log "(message byte)"
    # SDTR and WDTR on a narrow Fast-10 target that rejects PPR.
    run 0 "$P" --sim "0:disk:narrow:fast10:noua" trace -o s.vcd --scan --phases tur 0
    "$PCAMDECODE" msg 01 02 03 00 >want
    has out "MSG IN 01 02 03 00  $(cat want)"
    has out "SDTR period=0x19"
    ;;
failures)
    # A target that hangs during the scan: said, not silent.
    run 45 "$P" --sim "0:disk:hang=1,3:cd" devlist
    has err "warning: scan: target 0: it accepted a command and did not finish it in time (event TIMEOUT)"
    has out "1 device; the scan is incomplete, it could not finish with target 0"
    run 45 "$P" --json --sim "0:disk:hang=1,3:cd" devlist
    jeq out '.scan_failed_targets[0].target' 0
    # A BUSY target is there: a failure saying BUSY (26), not "no device" (42).
    run 26 "$P" --sim "0:disk:busy=20" tur 0
    has err "0:0 is not in the scan's table: the target answers BUSY (SCSI status 0x08)"
    hasnt err "no device"
    # A target that hung at the scan and answers now: said, with what to do.
    run 99 "$P" --sim "0:disk:hang=1" tur 0
    has err "INQUIRY answers now: run the command again"
    run 42 "$P" --sim "0:disk" tur 4
    has err "no device at 4:0 (selection timeout: nothing answers at that ID)"
    # Out-of-range limits are refused with the range; nothing is changed.
    run 1 "$P" --sim "0:disk" negotiate 0 --period 0
    has err "valid 0x09..0xff on pcam-sim"
    hasnt out "user limits changed"
    run 1 "$P" --sim "0:disk" negotiate 0 --offset 200
    has err "valid 0..31 on pcam-sim"
    run 1 "$P" --sim "bus:narrow,0:disk" negotiate 0 --width 16
    # SPI-4: factor 09h is a 12.5 ns transfer period (DT), wide: 160 MB/s (Ultra160).
    run 0 "$P" --sim "0:disk:fast80" negotiate 0
    grep "^  current" out | grep -F -q "0x09 (12.50 ns) offset 16 wide DT 160.0 MB/s" || fail "Ultra160 not 160 MB/s"
    # What did change is said; a no-op says so.
    run 0 "$P" --sim "0:disk" negotiate 0 --period 0x32
    has out "user limits changed: period 9 -> 50"
    run 0 "$P" --sim "0:disk" negotiate 0 --period 9
    has out "user limits unchanged (they were already so)"
    # bench --seconds abc / 0 / -1 is refused, with a JSON error object.
    for v in abc 0 -1 nan; do
        run 1 "$P" --json bench --seconds "$v"
        jeq out .ok false
        has err "bad --seconds"
    done
    ;;
exitcodes)
    # Each exit status with --json: stdout is one JSON error object whose
    # exit_status is the process's status.
    mkdir -p ro
    check() {
        want=$1
        shift
        run "$want" "$@"
        jeq out .ok false
        jeq out .exit_status "$want"
        [ -s err ] || fail "'$*': nothing on stderr"
    }
    check 1 "$P" --json --sim 0:disk read 0 --lba
    check 1 "$P" --json frobnicate
    check 1 "$P" --json --frob devlist
    check 1 "$P" --frob devlist --json
    check 1 "$P" --json --qemu-drive 0:tape:x devlist
    check 1 "$P" --json devlist --sim
    check 1 "$P" --json
    check 1 "$P" --json --sim 0:tape devlist
    check 1 "$P" --json --sim 0:disk inquiry 1:0:0
    check 42 "$P" --json --sim 0:disk inquiry 4
    check 2 "$P" --json --sim 4:cd:empty tur 4
    jeq out .kind not_ready
    check 3 "$P" --json --sim 0:disk:merr=1000 verify 0 --lba 996 --count 8
    check 97 "$P" --json sense 12 34
    check 43 env PCAM_QEMU=/nonexistent/qemu "$P" --json --backend qemu-esp devlist
    jeq out .kind backend
    check 15 "$P" --json --sim 0:disk read 0 --lba 0 --count 1 -o "$WORK/nonexistent/x.bin"
    jeq out .kind file
    check 15 "$P" --json --sim 0:disk write 0 --lba 0 -i "$WORK/nonexistent.bin"
    check 44 "$P" --json --sim 0:disk modepage 0 --page 8 --set 2=4 </dev/null
    jeq out .kind not_confirmed
    # Without --json: nothing on stdout for a usage error.
    run 1 "$P" --sim 0:disk read 0 --lba
    [ ! -s out ] || fail "a usage error printed on stdout"
    ;;
jsonall)
    # Every subcommand's --json output parses (json.awk), and so does a
    # script's with --json on each line.
    S="0:disk:4M:file=$WORK/d.img,3:cd,5:disk:luns=2"
    head -c 4096 /dev/zero >z.bin
    while read -r args; do
        # shellcheck disable=SC2086
        "$P" --json --yes --sim "$S" $args >j.out 2>j.err </dev/null || { cat j.err; fail "$args failed"; }
        $J <j.out >/dev/null || { cat j.out; fail "$args: invalid JSON"; }
        [ "$(wc -l <j.out)" -eq 1 ] || { cat j.out; fail "$args: not one JSON document"; }
    done <<EOF
devlist
devlist -l
devlist -v
inquiry 0
inquiry 3
inquiry 0 --vpd 0
inquiry 0 --vpd 0x80
inquiry 3 --vpd 0x83
readcap 0
tur 0
requests 0
reportluns 5
read 0 --lba 0 --count 8 -o r.bin
write 0 --lba 8 -i z.bin
verify 0 --lba 0 --count 64
cmd 0 12 00 00 00 24 00 -r 36
cmd 0 00 00 00 00 00 00
modepage 0
modepage 0 --page 8 --set 2=4
start 0
stop 0
eject 3
load 3
rescan
negotiate 0
negotiate 0 --period 0x19
tags 0 --load 10
reset dev 0
reset lun 5:1
reset bus
sense 70 00 06 00 00 00 00 0a 00 00 00 00 29 00
vpd 00 b1 00 05 1c 20 00 02 00
bench --targets 1 --commands 50 --disk-mb 8
trace -o t.vcd tur 0
help
EOF
    printf 'tur 0\n--json readcap 0\n--json inquiry 0\n' >s.txt
    run 0 "$P" --sim "$S" script s.txt
    tail -n 2 out | head -n 1 | $J >/dev/null || { cat out; fail "script --json line: invalid JSON"; }
    ;;
script)
    # One bus across the lines: a write then a read of the same in-memory
    # disk (a fresh bus would read zeros), a '!' line that must fail, and
    # the script's exit status.
    awk 'BEGIN { for (i = 0; i < 1024; i++) printf "%c", 48 + i % 10 }' >two.bin
    cat >s.txt <<EOF
# comment lines and blank lines are skipped

write 0 --lba 10 -i two.bin
read 0 --lba 10 --count 2 -o back.bin
! read 0 --lba 9999999 --count 1 -o x.bin
reset bus
"tur" '0'
EOF
    run 0 "$P" --sim "0:disk:1M" script s.txt
    cmp two.bin back.bin || fail "the script's read did not see its write"
    has out "SCSI bus reset: done"
    has out "0:0: ready"
    # From stdin; a failing line gives the script that status.
    printf 'tur 0\ntur 4\ntur 0\n' | "$P" --sim "0:disk,4:cd:empty" script >out 2>err
    [ $? -eq 2 ] || fail "a failing line did not fail the script"
    has err "script line 2 exited 2"
    [ "$(grep -c ready out)" -eq 2 ] || fail "the lines after a failure did not run"
    printf 'tur 0\n' >ok.txt
    printf '! tur 0\n' >bad.txt
    run 46 "$P" --sim "0:disk" script bad.txt
    has err "expected to fail and did not"
    printf 'trace tur 0\n' >tr.txt
    run 1 "$P" --sim "0:disk" script tr.txt
    has err "builds its own bus"
    printf 'tags 0 --no-aging\n' >tg.txt
    printf 'tur 0\ntags 0 --no-aging\n' >tg.txt
    run 1 "$P" --sim "0:disk" script tg.txt
    has err "configure the bus when it is built"
    # Interactive on a terminal (script(1)): a prompt per line, errors said,
    # the session goes on until quit.
    printf 'tur 0\ntur 4\nreadcap 0\nquit\n' | script -qec "$P --sim 0:disk:1M script" /dev/null >tty.out 2>&1 ||
        { cat tty.out; fail "interactive script failed"; }
    [ "$(grep -o 'pcamctl> ' tty.out | wc -l)" -ge 3 ] || { cat tty.out; fail "no prompt per line"; }
    has tty.out "no device at 4:0"
    has tty.out "last LBA 2047"
    run 1 "$P" --sim "0:disk" script "$WORK/none.txt" extra
    run 15 "$P" --sim "0:disk" script "$WORK/none.txt"
    run 1 "$P" --sim "0:disk" hmp info block
    has err "needs --backend qemu-esp"
    ;;
manpage)
    # The man pages and the completion name every command the binary has,
    # and pcamctl.1 every exit status ctl.h defines.
    M="$SRC/examples/pcamctl/pcamctl.1"
    C="$SRC/examples/pcamctl/pcamctl.bash-completion"
    run 0 "$P" help
    sed -n '/^commands:/,/^$/p' out | awk 'NF && $1 != "commands:" { print $1 }' >cmds
    [ "$(wc -l <cmds)" -ge 25 ] || { cat out; fail "too few commands in help"; }
    sed -n '/^_pcamctl_commands="/,/"$/p' "$C" | sed 's/^_pcamctl_commands="//; s/"$//' >ccmds
    while read -r cmd; do
        grep -q "^\.SS $cmd\$" "$M" || fail "pcamctl.1 has no .SS section for '$cmd'"
        grep -q -w -- "$cmd" ccmds || fail "the completion's command list lacks '$cmd'"
    done <cmds
    sed -n 's/^ *CTL_[A-Z]* = \([0-9]*\),.*/\1/p; s/^ *CTL_[A-Z]* = \([0-9]*\) .*/\1/p' \
        "$SRC/examples/pcamctl/ctl.h" | sort -u >codes
    [ "$(wc -l <codes)" -ge 7 ] || { cat codes; fail "exit codes not found in ctl.h"; }
    while read -r code; do
        grep -q "^\.IP $code\$" "$M" || fail "pcamctl.1 does not list exit status $code"
    done <codes
    # Every global option in the help text is in the man page (roff's "\-" read as "-").
    sed 's/\\-/-/g; s/\\f[BIRP]//g' "$M" >man.txt
    for opt in $(sed -n 's/^  \(--[a-z-]*\).*/\1/p' out); do
        grep -q -w -- "$opt" man.txt || fail "pcamctl.1 lacks $opt"
    done
    sed 's/\\-/-/g; s/\\f[BIRP]//g' "$SRC/examples/pcamctl/pcamdecode.1" >dman.txt
    for w in cdb sense msg asc --block-size; do
        grep -q -w -- "$w" dman.txt || fail "pcamdecode.1 lacks $w"
    done
    # The completion is valid bash and completes a command and an option.
    bash -n "$C" || fail "the completion is not valid bash"
    out=$(bash -c ". '$C'; COMP_WORDS=(pcamctl rea); COMP_CWORD=1; _pcamctl; echo \"\${COMPREPLY[*]}\"")
    echo "$out" | grep -qw read || fail "completion of 'rea' lacks read: $out"
    echo "$out" | grep -qw readcap || fail "completion of 'rea' lacks readcap: $out"
    out=$(bash -c ". '$C'; COMP_WORDS=(pcamctl read 0 --l); COMP_CWORD=3; _pcamctl; echo \"\${COMPREPLY[*]}\"")
    echo "$out" | grep -qw -- --lba || fail "completion of 'read 0 --l' lacks --lba: $out"
    # Installed with the tool: run examples/pcamctl's own install script
    # into a scratch prefix (the tool, the two man pages, the completion).
    cmake -DCMAKE_INSTALL_PREFIX="$WORK/prefix" -P "${BUILD:?}/examples/pcamctl/cmake_install.cmake" >inst.log 2>&1 ||
        { cat inst.log; fail "installing examples/pcamctl failed"; }
    for f in bin/pcamctl share/man/man1/pcamctl.1 share/man/man1/pcamdecode.1 \
             share/bash-completion/completions/pcamctl; do
        [ -f "$WORK/prefix/$f" ] || { find "$WORK/prefix"; fail "$f is not installed"; }
    done
    cmp "$WORK/prefix/share/man/man1/pcamctl.1" "$M" || fail "the installed man page differs"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok ($case_)"
