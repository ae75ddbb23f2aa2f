#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pcamctl tests, part 3 (issue 24): a pcamctl a storage engineer can trust.
# No silent data loss, no silent exit 0, sg3_utils' conventions where users
# bring them. One case per item of the issue; each runs the real binary and
# checks it against an expectation from outside pcamctl's code: bytes
# compared with dd and cmp, the topology given on the command line, the
# sg3_utils(8) exit-status table, the shell's own view of a full device.
#
# usage: trust.sh CASE   with PCAMCTL, WORK, SRC set (CMakeLists.txt here).
set -u
. "${SRC:?}/tests/pcamctl/lib.sh"

case $case_ in
stdin)
    # Item 1: cmd -s LEN without -i sends what standard input holds, as
    # sg_raw does; a terminal there is refused; zeros only when asked for.
    S="0:disk:1M:file=$WORK/d.img"
    head -c 512 /dev/urandom >r.bin
    "$P" --sim "$S" cmd 0 2a 00 00 00 00 00 00 00 01 00 -s 512 <r.bin >out 2>err ||
        { cat err; fail "cmd -s from stdin failed"; }
    has out "512 of 512 bytes out"
    dd if=d.img bs=512 count=1 2>/dev/null | cmp - r.bin || fail "the block is not what stdin held"
    # Too little on stdin: a file error, nothing sent (block 1 stays zero).
    head -c 100 r.bin | "$P" --sim "$S" cmd 0 2a 00 00 00 00 01 00 00 01 00 -s 512 >out 2>err
    [ $? -eq 15 ] || { cat err; fail "short stdin did not exit 15 (file error)"; }
    has err "standard input holds 100 bytes"
    head -c 512 /dev/zero >z.bin
    dd if=d.img bs=512 skip=1 count=1 2>/dev/null | cmp - z.bin || fail "a short stdin wrote the block"
    # Zeros when asked for: -i /dev/zero.
    run 0 "$P" --sim "$S" cmd 0 2a 00 00 00 00 00 00 00 01 00 -s 512 -i /dev/zero
    dd if=d.img bs=512 count=1 2>/dev/null | cmp - z.bin || fail "-i /dev/zero did not write zeros"
    # On a terminal: a usage error (1), nothing sent.
    cp r.bin blk0.bin
    "$P" --sim "$S" cmd 0 2a 00 00 00 00 00 00 00 01 00 -s 512 -i r.bin >/dev/null 2>&1 || fail "setup write"
    script -qec "$P --sim $S cmd 0 2a 00 00 00 00 00 00 00 01 00 -s 512; echo rc=\$?" /dev/null </dev/null >tty.out 2>&1
    has tty.out "which is a terminal"
    has tty.out "rc=1"
    dd if=d.img bs=512 count=1 2>/dev/null | cmp - r.bin || fail "the terminal case wrote the block"
    # In a script read from stdin, stdin is the script: refused.
    printf 'cmd 0 2a 00 00 00 00 00 00 00 01 00 -s 512\n' | "$P" --sim "$S" script >out 2>err
    [ $? -eq 1 ] || { cat err; fail "cmd -s in a stdin script did not fail as a usage error"; }
    has err "standard input holds the script"
    ;;
partial)
    # Item 2: a read that meets a bad block keeps what it read, says how many
    # blocks are good and where the error is (as sg_dd does), and fails.
    awk 'BEGIN { for (b = 0; b < 2048; b++) for (i = 0; i < 512; i++) printf "%c", 65 + (b + i) % 26 }' >d.img
    S="0:disk:1M:file=$WORK/d.img:merr=1000"
    run 3 "$P" --sim "$S" read 0 --lba 996 --count 8 -o out.bin
    dd if=d.img bs=512 skip=996 count=4 2>/dev/null >want.bin
    cmp out.bin want.bin || fail "out.bin is not blocks 996..999"
    has err "4 good blocks (LBA 996..999, 2048 bytes) are in out.bin; the error is at LBA 1000"
    has err "MEDIUM ERROR"
    # Across many chunks: every good block before the error is kept.
    run 3 "$P" --sim "$S" read 0 --lba 0 --count 2000 -o big.bin
    dd if=d.img bs=512 count=1000 2>/dev/null >want.bin
    cmp big.bin want.bin || fail "big.bin is not blocks 0..999"
    has err "1000 good blocks (LBA 0..999, 512000 bytes)"
    # To stdout as well, and in the JSON error object.
    "$P" --sim "$S" read 0 --lba 990 --count 20 -o - >so.bin 2>err
    [ $? -eq 3 ] || fail "read -o - past a bad block did not fail"
    dd if=d.img bs=512 skip=990 count=10 2>/dev/null | cmp - so.bin || fail "stdout lost the good blocks"
    has err "10 good blocks (LBA 990..999, 5120 bytes) are in standard output"
    run 3 "$P" --json --sim "$S" read 0 --lba 998 --count 4 -o j.bin
    jeq out .good_blocks 2
    jeq out .error_lba 1000
    jeq out .ok false
    # The error on the first block: nothing is good, and that is said.
    run 3 "$P" --sim "$S" read 0 --lba 1000 --count 3 -o none.bin
    has err "no good block before the error at LBA 1000"
    [ ! -s none.bin ] || fail "none.bin is not empty"
    # Issue 41 defect 1: a one-block READ whose sense has no valid
    # INFORMATION (the fixed format cannot hold an LBA past 2^32) is sent
    # once; the block-by-block salvage has nothing to split. The simulated
    # bus's phase log counts the READ(16)s (opcode 0x88) the target saw.
    run 3 "$P" --sim "0:disk:3T:merr=4294967300" trace --phases read 0 --lba 4294967300 --count 1 -o one.bin
    [ "$(grep -c 'COMMAND 16 bytes, opcode 0x88' out)" -eq 1 ] ||
        { grep 'opcode 0x88' out; fail "the failing 1-block READ(16) reached the target more than once"; }
    has err "no good block before the error at LBA 4294967300"
    # Two blocks, the second bad, no INFORMATION: the 2-block READ, then
    # block 1 alone (good) and block 2 alone (bad): three READs, one block kept.
    run 3 "$P" --sim "0:disk:3T:merr=4294967301" trace --phases read 0 --lba 4294967300 --count 2 -o two.bin
    [ "$(grep -c 'COMMAND 16 bytes, opcode 0x88' out)" -eq 3 ] ||
        { grep 'opcode 0x88' out; fail "a 2-block salvage did not take exactly three READs"; }
    [ "$(wc -c <two.bin)" -eq 512 ] || fail "two.bin does not hold the one good block"
    ;;
noopselect)
    # Item 3: a --set that changes nothing asks nothing and sends no MODE
    # SELECT (opcode 0x55 in the simulated bus's phase log). The simulated
    # disk's caching page (08h) has WCE (byte 2, 0x04) off.
    run 0 "$P" --sim 0:disk:1M trace --phases modepage 0 --page 8 --set 2=0x00 --yes
    hasnt out "opcode 0x55"
    hasnt out "MODE SELECT?"
    has out "the page already holds these values; nothing sent"
    has out "WCE=0"
    # Without --yes and without a terminal: still nothing to confirm, exit 0.
    run 0 "$P" --sim 0:disk:1M modepage 0 --page 8 --set 2=0
    # A real change is still asked about and sent; a no-op byte beside it
    # is not listed.
    run 0 "$P" --sim 0:disk:1M trace --phases modepage 0 --page 8 --set 2=0x04,3=0 --yes
    has out "opcode 0x55"
    has out "byte 2 0x00 -> 0x04; MODE SELECT?"
    hasnt out "byte 3"
    has out "WCE=1"
    ;;
exitstatus)
    # Item 9: sg3_utils(8)'s exit-status categories for the SCSI outcomes
    # (0 good, 1 syntax, 2 not ready, 3 medium, 5 illegal request, 9 invalid
    # opcode, 15 file, 22 LBA out of range, 26 busy, 33 timeout), pcamctl's
    # own in 42..46, the same number and its name in --json.
    st() {
        want=$1 kind=$2
        shift 2
        run "$want" "$@" --json
        jeq out .exit_status "$want"
        jeq out .kind "$kind"
        [ -s err ] || fail "'$*': no message on stderr"
    }
    st 1 usage "$P" --sim 0:disk read 0 --lba
    st 1 usage "$P" --sim 0:disk inquiry 16
    st 1 usage "$P" --sim 0:disk inquiry 7
    st 2 not_ready "$P" --sim 4:cd:empty tur 4
    st 3 medium_error "$P" --sim 0:disk:merr=5 read 0 --lba 0 --count 8 -o x.bin
    st 5 illegal_request "$P" --sim 0:disk cmd 0 12 01 b0 00 ff 00 -r 255
    st 9 invalid_opcode "$P" --sim 0:disk:1M cmd 0 ff 00 00 00 00 00
    st 22 lba_out_of_range "$P" --sim 0:disk:1M cmd 0 28 00 00 00 10 00 00 00 01 00 -r 512
    st 26 busy "$P" --sim 0:disk:busy=20 tur 0
    st 33 timeout "$P" --sim 0:disk:hang=5 tur 0
    st 42 no_device "$P" --sim 0:disk tur 4
    st 44 not_confirmed "$P" --sim 0:disk modepage 0 --page 8 --set 2=4
    st 97 bad_response "$P" sense 12 34
    # Files are file errors (15) with the reason, never usage or bus errors.
    st 15 file "$P" --sim 0:disk:1M write 0 --lba 0 -i /tmp
    has err "/tmp is a directory"
    hasnt err "9223372036854775807"
    st 15 file "$P" --sim 0:disk:1M trace -o "$WORK/nonexistent/x.vcd" tur 0
    has err "No such file or directory"
    st 15 file "$P" --sim "0:disk:1M:file=$WORK/nonexistent/d.img" tur 0
    has err "No such file or directory"
    st 15 file "$P" --sim @"$WORK/nonexistent.cfg" devlist
    st 15 file "$P" --sim 0:disk read 0 --lba 0 --count 1 -o "$WORK/nonexistent/x.bin"
    # A pipe has no size: --count is needed (usage), and then it is read.
    head -c 512 /dev/urandom >r.bin
    head -c 512 r.bin | "$P" --sim "0:disk:1M:file=$WORK/d.img" write 0 --lba 3 -i /dev/stdin >out 2>err
    [ $? -eq 1 ] || fail "a pipe without --count was not a usage error"
    has err "give --count"
    # The man page lists each status with the same kind name --json gives.
    for k in usage not_ready medium_error illegal_request invalid_opcode lba_out_of_range busy timeout \
             no_device not_confirmed bad_response file scan_incomplete expectation; do
        grep -q "($k)" "$SRC/examples/pcamctl/pcamctl.1" || grep -q "kind $k" "$SRC/examples/pcamctl/pcamctl.1" ||
            fail "pcamctl.1 does not name kind $k"
    done
    ;;
bang)
    # Item 4: a bare '!' expects a failure of the command on the bus or in
    # the device, '!N' exactly exit status N; a typo, an unknown option, no
    # device or a file error never pass as the expected failure (46).
    S="0:disk:merr=1000,4:cd:empty"
    line() {
        want=$1
        shift
        printf '%s\n' "$*" >l.txt
        run "$want" "$P" --sim "$S" script l.txt
    }
    line 46 '! reed 0 --lba 1'
    has err "usage error, never an expected failure"
    line 46 '! read 0 --lbaa 1'
    line 46 '! tur 1'
    has err "exited 42 (no_device), which is not a failure of the command on the bus"
    line 46 "! read 0 --lba 0 --count 1 -o $WORK/nonexistent/x"
    has err "exited 15 (file)"
    line 46 '!3 tur 4'
    has err "was expected to exit 3 (medium_error) and exited 2 (not_ready)"
    line 46 '!2 tur 0'
    has err "was expected to fail and did not"
    # What is expected passes.
    line 0 '! tur 4'
    line 0 '!2 tur 4'
    line 0 '!3 read 0 --lba 1000 --count 1 -o b.bin'
    line 0 '! read 0 --lba 996 --count 8 -o b.bin'
    line 0 '!42 tur 1'
    line 0 "!15 read 0 --lba 0 --count 1 -o $WORK/nonexistent/x"
    line 0 '!tur 4'
    # '!1' (a usage error) and malformed '!' lines are script syntax errors.
    line 1 '!1 tur 0'
    has err "never an expected failure"
    line 1 '!2tur 4'
    line 1 '!'
    # The lines after a met expectation run; an unmet one gives the script 46.
    printf '! tur 4\ntur 0\n! tur 1\ntur 0\n' >m.txt
    run 46 "$P" --sim "$S" script m.txt
    [ "$(grep -c 'ready' out)" -eq 2 ] || fail "the lines after did not run"
    has err "line 3: 'tur' exited 42"
    ;;
scanfail)
    # Item 5: a target the scan could not finish with is listed with the
    # reason, and the exit status (45) says the scan was incomplete.
    run 45 "$P" --sim 0:disk:busy=20 devlist
    has out "0       (not listed: the scan could not finish with it: it answered BUSY"
    has out "0 devices; the scan is incomplete, it could not finish with target 0"
    has err "the scan could not finish with 1 target"
    run 45 "$P" --json --sim 0:disk:busy=20,3:cd devlist
    jeq out .scan_complete false
    jeq out '.scan_failed_targets[0].target' 0
    jeq out '.count' 1
    jval out '.scan_failed_targets[0].reason' | grep -q BUSY || fail "the JSON reason does not say BUSY"
    # tur says the same of the target (26, BUSY), not "no device".
    run 26 "$P" --sim 0:disk:busy=20 tur 0
    has err "answers BUSY"
    # A hang: the timeout is the reason.
    run 45 "$P" --sim 0:disk:hang=1,3:cd devlist
    has out "(not listed: the scan could not finish with it: it accepted a command and did not finish it (timeout))"
    # A clean scan: complete, exit 0, nothing listed as failed.
    run 0 "$P" --json --sim 0:disk,3:cd devlist
    jeq out .scan_complete true
    hasnt out '"target":0,"reason"'
    run 0 "$P" --sim 0:disk,3:cd devlist
    hasnt out "incomplete"
    # A later scan that finds the target: it is listed, and not also named
    # as failed (the hang was for the first command only).
    printf 'devlist\nrescan\ndevlist\n' >s.txt
    run 45 "$P" --sim 0:disk:hang=1,3:cd script s.txt
    has err "script line 1 exited 45"
    hasnt err "script line 3"
    tail -n 1 out | grep -q '^2 devices$' || { cat out; fail "the last devlist is not clean"; }
    # rescan names what this scan could not finish.
    printf 'rescan\n' >r.txt
    run 45 "$P" --sim 0:disk:busy=20,3:cd script r.txt
    has out "not scanned: target 0 (it answered BUSY"
    ;;
stdout)
    # Item 6: output that cannot be written (/dev/full: ENOSPC on every
    # write) is a file error (15) with the reason, never exit 0.
    [ -w /dev/full ] || { echo "no /dev/full: skipped"; exit 0; }
    S="0:disk:1M,3:cd"
    full() {
        "$P" --sim "$S" "$@" >/dev/full 2>err
        rc=$?
        [ "$rc" -eq 15 ] || { cat err; fail "'$*' >/dev/full exited $rc, not 15"; }
        has err "writing standard output failed: No space left on device"
        [ "$(grep -c 'writing standard output failed' err)" -eq 1 ] || { cat err; fail "'$*': said more than once"; }
    }
    full devlist
    full --json devlist
    full inquiry 0
    full cmd 0 12 00 00 00 24 00 -r 36
    full sense 70 00 03 00 00 00 00 0a 00 00 00 00 11 00 00 00 00 00
    full read 0 --lba 0 --count 4 -o -
    full read 0 --lba 0 --count 1000 -o -
    full readcap 0
    full help
    full --version
    printf 'tur 0\ninquiry 0\n' >s.txt
    full script s.txt
    has err "line 1: writing standard output failed"
    # The same commands to a good stdout exit 0 (the check is not blind).
    run 0 "$P" --sim "$S" devlist
    run 0 "$P" --sim "$S" read 0 --lba 0 --count 4 -o -
    ;;
cdb)
    # Item 10: CDBs as camcontrol and sg_raw users type them; a length the
    # opcode's group does not have is one usage error, or sent as given
    # with --force (the simulated disk then judges the 10-byte INQUIRY);
    # sizes and VPD pages as sg3_utils takes them.
    S="0:disk:1M"
    for cdb in "0x12 0 0 0 0x24 0" "12 0 0 0 24 0" "12 00 00 00 24 00" "120000002400" "0x12 00 0 0x0 24 0"; do
        # shellcheck disable=SC2086
        run 0 "$P" --sim "$S" cmd 0 $cdb -r 36
        has out "INQUIRY bytes=36 dir=in: GOOD, 36 of 36 bytes in"
        has out "PCAMSIM"
    done
    run 1 "$P" --sim "$S" cmd 0 0x123 0 0 0 24 0 -r 36
    has err "is not a byte"
    run 1 "$P" --sim "$S" cmd 0 12 0 0 0 24 0 0 0 0 0 -r 36
    [ "$(grep -c '^pcamctl:' err)" -eq 1 ] || { cat err; fail "more than one message for a long CDB"; }
    has err "opcode 0x12 has a 6-byte CDB by its group, and 10 bytes are given; --force sends them"
    hasnt err "failed"
    run 0 "$P" --sim "$S" cmd 0 12 0 0 0 24 0 0 0 0 0 -r 36 --force
    has err "warning: opcode 0x12 has a 6-byte CDB by its group; sending the 10 bytes given"
    has out "GOOD"
    # -r 1k is 1024 bytes asked for (36 come back from INQUIRY's 0x24).
    run 0 "$P" --sim "$S" cmd 0 12 0 0 0 24 0 -r 1k
    has out "36 of 1024 bytes in"
    run 0 "$P" --json --sim "$S" cmd 0 12 0 0 0 24 0 -r 2KiB
    jeq out .requested 2048
    run 0 "$P" --json --sim "$S" cmd 0 12 0 0 0 24 0 -r 1KB
    jeq out .requested 1000
    run 1 "$P" --sim "$S" cmd 0 12 0 0 0 24 0 -r 1q
    # --vpd sn is page 80h, di 83h, bl B0h... as sg_vpd names them.
    run 0 "$P" --sim "$S" inquiry 0 --vpd 0x80
    cp out num.txt
    run 0 "$P" --sim "$S" inquiry 0 --vpd sn
    cmp out num.txt || fail "--vpd sn is not page 0x80"
    has out "VPD page 0x80 (Unit serial number)"
    run 0 "$P" --sim "$S" inquiry 0 --vpd di
    has out "VPD page 0x83"
    run 0 "$P" --sim "$S" inquiry 0 --vpd sv
    has out "VPD page 0x00"
    run 1 "$P" --sim "$S" inquiry 0 --vpd serial
    ;;
messages)
    # Item 11: failures are sentences saying what happened on the bus and
    # what to do, never a bare CAM status name.
    names='REQ_[A-Z_]*|SEQUENCE_FAIL|DATA_RUN_ERR|UNCOR_PARITY|CMD_TIMEOUT|SEL_TIMEOUT|UNEXP_BUSFREE'
    names="$names|SCSI_STATUS_ERROR|AUTOSENSE_FAIL|BDR_SENT|NOT_COMPLETED|MSG_REJECT_REC|SCSI_BUS_RESET"
    nonames() {
        if grep -E -w "$names" err; then fail "a status name instead of a sentence"; fi
    }
    # An overrun: INQUIRY sends 36 bytes into an 8-byte buffer.
    run 99 "$P" --sim 0:disk cmd 0 12 00 00 00 24 00 -r 8
    has err "the target moved more data than the command's buffer holds (a data overrun)"
    has err "(the core's recovery: ABORT TASK taken)"
    nonames
    # Parity errors on every byte: the cabling is named.
    run 99 "$P" --sim 0:disk:parity=1000000 tur 0
    has err "parity errors on the bus that retries and slower transfers did not cure: check cabling and termination"
    has err "scan: target 0: a parity error on its bytes"
    nonames
    # A hang: what happened, what the core did, what to try.
    run 33 "$P" --sim 0:disk:hang=5 tur 0
    has err "did not finish it in time, and the core stopped it"
    has err "allow more time"
    nonames
    # A target that goes to a reserved phase, or drops off the bus, every time.
    run 99 "$P" --sim 0:disk:badphase=20:afterscan tur 0
    has err "TEST UNIT READY failed: the target went to a bus phase the protocol does not allow"
    nonames
    run 99 "$P" --sim 0:disk:busfree=20:afterscan tur 0
    has err "the target let go of the bus in the middle of the command (an unexpected bus free)"
    nonames
    run 99 "$P" --json --sim 0:disk:badphase=20:afterscan tur 0
    jeq out .status SEQUENCE_FAIL
    # Once only: the core's retry gets through.
    run 0 "$P" --sim 0:disk:1M:busfree=1:afterscan read 0 --lba 0 --count 8 -o x.bin
    # BUSY to the end.
    run 26 "$P" --sim 0:disk:busy=20 tur 0
    has err "the target answers BUSY"
    nonames
    # A reset that worked says so in words.
    run 0 "$P" --sim 0:disk reset bus
    has out "SCSI bus reset: done"
    if grep -E -w "$names" out; then fail "reset printed a status name"; fi
    # --json keeps the machine name beside the sentence.
    run 99 "$P" --json --sim 0:disk cmd 0 12 00 00 00 24 00 -r 8
    jeq out .status DATA_RUN_ERR
    jval out .error | grep -q "data overrun" || fail "the JSON error is not the sentence"
    ;;
schema)
    # Item 12: one JSON schema (docs/pcamctl.schema.json) for every
    # subcommand's --json output, success and failure: "command" is the
    # subcommand's name and "ok" is there on every document, events carry
    # their argument decoded (never a bare "arg").
    V="python3 $SRC/tests/pcamctl/jschema.py $SRC/docs/pcamctl.schema.json"
    command -v python3 >/dev/null || { echo "no python3: skipped"; exit 0; }
    S="0:disk:1M:file=$WORK/d.img:merr=1000,3:cd,4:cd:empty,5:disk:luns=3"
    head -c 1024 /dev/urandom >two.bin
    : >all.jsonl
    j() { # j WANT_RC ARGS...: run with --json, keep its output
        want=$1
        shift
        run "$want" "$P" --json --sim "$S" "$@"
        [ "$(wc -l <out)" -ge 1 ] || fail "'$*' wrote no JSON"
        cat out >>all.jsonl
        $V out >v.txt || { cat out v.txt; fail "'$*': its JSON does not validate"; }
        ok=$([ "$want" -eq 0 ] && echo true || echo false)
        # (a script's lines each have their own; its last is the one that failed)
        tail -n 1 out | grep -q "^{\"command\":\"[a-z]*\",\"ok\":${ok}[,}]" ||
            { cat out; fail "'$*': its last document lacks \"ok\":$ok after \"command\""; }
    }
    j 0 devlist
    j 0 devlist -l -v
    j 0 inquiry 0
    j 0 inquiry 0 --vpd sv
    j 0 inquiry 0 --vpd sn
    j 0 inquiry 0 --vpd di
    j 0 inquiry 0 --hex
    j 0 readcap 0
    j 0 tur 0
    j 0 requests 0
    j 0 reportluns 5
    j 0 read 0 --lba 0 --count 2 -o r.bin
    jeq out .command read
    j 0 write 0 --lba 0 -i two.bin
    j 0 verify 0 --lba 0 --count 100
    j 0 cmd 0 12 0 0 0 24 0 -r 36
    j 0 cmd 0 0 0 0 0 0 0
    j 0 modepage 0
    j 0 modepage 0 --page 8 --set 2=4 --yes
    j 0 start 0
    j 0 stop 0
    j 0 eject 3
    j 0 load 3
    j 0 rescan
    j 0 negotiate 0
    j 0 tags 0
    j 0 reset bus
    j 0 reset dev 0
    hasnt out '"arg"'
    j 0 sense 70 00 03 00 00 00 00 0a 00 00 00 00 11 00 00 00 00 00
    j 0 vpd 00 80 00 06 50 43 53 30 30 30
    j 0 vpd 00 c7 00 02 12 34
    j 97 vpd 00 80 00 06 50 43 53
    j 0 help
    j 0 help read
    j 0 trace -o x.vcd tur 0
    jeq out .command tur
    j 1 trace -o x.vcd
    j 0 --version
    j 0 bench --targets 1 --commands 20 --disk-mb 8
    printf 'tur 0\n--json readcap 0\n' >s.txt
    j 0 script s.txt
    # Failures: the same envelope, "command" still the subcommand's name.
    j 3 read 0 --lba 996 --count 8 -o bad.bin
    jeq out .command read
    jeq out .operation "READ(10) of 8 blocks at LBA 996 on 0:0"
    jeq out .good_blocks 4
    j 3 verify 0 --lba 996 --count 8
    j 2 tur 4
    j 42 tur 6
    j 1 frobnicate
    j 1 read 0 --lba
    j 22 read 0 --lba 2040 --count 20 -o x.bin
    j 15 read 0 --lba 0 --count 1 -o "$WORK/nonexistent/x"
    j 97 sense 12 34
    j 5 inquiry 0 --vpd bl
    j 44 modepage 0 --page 8 --set 2=0x04
    j 99 cmd 0 12 00 00 00 24 00 -r 8
    printf 'tur 0\n--json tur 6\n' >f.txt
    j 15 script "$WORK/none.txt"
    j 42 script f.txt
    tail -n 1 out | grep -q '^{"command":"tur","ok":false' || fail "the failed script line is not named tur"
    "$P" --json --sim 0:disk:busy=20 devlist >out 2>/dev/null
    $V out || fail "devlist with a failed target does not validate"
    jeq out .ok false
    jeq out .exit_status 45
    # Every subcommand in the help table has been seen (bench, hmp and vpd
    # aside: hmp needs QEMU).
    for c in $("$P" help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" { print $1 }'); do
        case $c in hmp) continue ;; esac
        grep -q "\"command\":\"$c\"" all.jsonl || fail "no --json output of '$c' was checked"
    done
    # The validator is not blind: a bare event "arg", a missing "ok", a
    # failure without exit_status and a string where a count goes fail.
    for bad in '{"command":"reset","ok":true,"reset":"bus","status":"REQ_CMP","events":[{"time_ns":1,"event":"BDR_SENT","arg":0}]}' \
               '{"command":"tur","target":0,"lun":0,"ready":true}' \
               '{"command":"tur","ok":false,"error":"x","kind":"other"}' \
               '{"command":"readcap","ok":true,"target":0,"lun":0,"last_lba":1,"blocks":2,"block_size":512,"bytes":"1024"}' \
               '{"command":"read","ok":true,"target":0,"lun":0,"lba":0,"blocks":1,"block_size":512,"bytes":512,"file":"x"}'; do
        printf '%s\n' "$bad" >bad.json
        if $V bad.json >v.txt; then fail "the validator passed $bad"; fi
    done
    ;;
figures)
    # Item 13: figures called what they are. A verify moves no data: no
    # MB/sec (a 1T medium gave 5,521,915.50 MB/sec of "transfer"); read and
    # write say which time is wall time and which is simulated.
    run 0 "$P" --sim 0:disk:1T verify 0 --lba 0 --count 1000000
    hasnt err "MB/sec"
    has err "no data crosses the bus, so there is no transfer rate"
    has err "16 VERIFY commands in "
    has err "secs of simulated bus time"
    run 0 "$P" --json --sim 0:disk:1T verify 0 --lba 0 --count 1000000
    jeq out .time.commands 16
    jeq out .time.bus_time_kind simulated
    hasnt out "bytes_per_s"
    run 0 "$P" --sim 0:disk:16M read 0 --lba 0 --count 8192 -o /dev/null
    has err "secs of wall time at "
    has err "secs of simulated bus time at "
    run 0 "$P" --json --sim 0:disk:16M read 0 --lba 0 --count 8192 -o /dev/null
    jeq out .time.bus_time_kind simulated
    # The simulated bus rate is the bytes over the simulated time.
    b=$(jval out .time.data_bytes_per_s_bus)
    us=$(jval out .time.bus_us)
    awk -v b="$b" -v us="$us" 'BEGIN { r = 4194304 / (us / 1e6); exit !(b > r * 0.99 && b < r * 1.01) }' ||
        fail "data_bytes_per_s_bus $b is not 4 MiB over $us us"
    ;;
small)
    # Item 14: a truncated VPD page decodes what came, then fails (97) and
    # says so; README's command table is one table that names every command
    # (the QEMU start-up error said once is in qemu.sh).
    run 97 "$P" vpd 00 80 00 06 50 43 53
    has out "unit serial number: PCS"
    has err "VPD page 0x80 is truncated: its header says 6 bytes, 3 came"
    run 0 "$P" vpd 00 80 00 03 50 43 53
    run 97 "$P" --json vpd 00 b1 00 3c 1c 20
    jeq out .truncated true
    jeq out .page_length 60
    # The table: from its header row, every line up to the first blank one
    # is a row, and each command of 'pcamctl help' has one.
    R="$SRC/examples/pcamctl/README.md"
    awk '/^\| command \| what it does \|$/ { on = 1 } on && /^$/ { exit } on' "$R" >table.md
    [ -s table.md ] || fail "README.md has no command table"
    if grep -v '^|' table.md; then fail "README.md's command table is broken by a paragraph"; fi
    run 0 "$P" help
    for c in $(sed -n '/^commands:/,/^$/p' out | awk 'NF && $1 != "commands:" { print $1 }'); do
        grep -q "^| \`${c}[ \`]\|, \`${c} " table.md || fail "README.md's command table lacks $c"
    done
    ;;
hang)
    # Item 8: hang=N (and busy=N) reach a one-shot run's command with
    # afterscan; without it the scan takes the fault, and what to do is
    # said for a one-shot run (a new run scans again), not "rescan".
    run 0 "$P" --sim 0:disk:hang=1:afterscan devlist
    has out "0:0     disk"
    hasnt out "incomplete"
    run 33 "$P" --sim 0:disk:hang=1:afterscan tur 0
    has err "TEST UNIT READY failed: the target took the command but did not finish it in time"
    hasnt err "scan"
    run 33 "$P" --sim 0:disk:1M:hang=2:afterscan read 0 --lba 0 --count 1 -o x.bin
    run 26 "$P" --sim 0:disk:busy=20:afterscan tur 0
    has err "TEST UNIT READY failed: the target answered BUSY"
    # Only the first N commands: the second tur of a script works.
    printf 'tur 0\ntur 0\n' >s.txt
    run 33 "$P" --sim 0:disk:hang=1:afterscan script s.txt
    [ "$(grep -c '0:0: ready' out)" -eq 1 ] || fail "the command after the hung one did not work"
    # Without afterscan, a one-shot run is told to run again, not 'rescan'.
    run 99 "$P" --sim 0:disk:hang=1 tur 0
    has err "run the command again, which scans again"
    hasnt err "run 'rescan'"
    # In a script 'rescan' is the advice, and after it the target is listed
    # once, not also as failed.
    printf '!99 tur 0\nrescan\ndevlist\n' >r.txt
    run 0 "$P" --sim 0:disk:hang=1,3:cd script r.txt
    has err "run 'rescan'"
    tail -n 1 out | grep -q '^2 devices$' || { cat out; fail "devlist after rescan is not clean"; }
    hasnt out "not listed"
    run 1 "$P" --sim 0:disk:afterscan:frob devlist
    ;;
examples)
    # Items 7 and 14: every example of the man page and README.md on the
    # simulated bus runs as written and exits as its "# exit N" says (0
    # without one); the qemu-esp ones run in qemu.sh.
    head -c 512 /dev/urandom >boot.bin
    doc_examples | grep -v -- '--backend qemu-esp' >ex.txt
    [ "$(wc -l <ex.txt)" -ge 8 ] || { cat ex.txt; fail "too few examples found"; }
    while read -r ex; do
        want=$(printf '%s\n' "$ex" | sed -n 's/.*# exit \([0-9]*\).*/\1/p')
        eval "set -- ${ex%%#*}"
        run "${want:-0}" "$P" "$@" </dev/null
    done <ex.txt
    head -c 512 disk0.img | cmp - boot.bin || fail "the write example did not write"
    [ "$(wc -c <out.bin)" -eq 2048 ] || fail "the read example did not keep its 4 good blocks"
    [ -s read.vcd ] || fail "the trace example wrote no VCD"
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
