#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""check_eddtest.py: judge one eddtest.S boot (tests/bios/run.sh).

Compares the "T ..." lines eddtest printed on COM1 with the disk image
the host prepared (the independent expectation: the bytes at each LBA,
the image's size) and with what the INT 13h and EDD 3.0 specifications
say each bad request must answer. It also requires that pcam served the
boot: pcam's init and its counters on the console, the boot drive being
pcam's (its own function 0FEh answered), every read eddtest made counted
by pcam, and SeaBIOS's log showing the boot from pcam's BCV.
usage: check_eddtest.py SERIAL_LOG DEBUGCON_LOG IMAGE
Exit 0 when every check holds; otherwise one line per failure.
"""
import os
import re
import struct
import sys

WPATTERN = b"PCAM-BIOS-WRITE-ABOVE-2TiB" + b"\x5a" * (512 - 26)
LBA_CHS = 16                 # eddtest's CHS read: C0 H0 S17
LBA_HI = 0x100000010         # eddtest's EDD read above 2^32
LBA_WHI = LBA_HI + 1         # ... and its EDD write


def main():
    serial, dbg, image = sys.argv[1:4]
    out = open(serial, "rb").read().decode("latin-1")
    log = open(dbg, "rb").read().decode("latin-1")
    img = open(image, "rb")
    blocks = os.path.getsize(image) // 512
    fails = []

    def check(ok, what):
        print("%s %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            fails.append(what)

    def block(lba, n=16):
        img.seek(lba * 512)
        return img.read(n)

    t = {}
    for line in out.splitlines():
        m = re.match(r"T (\w+) cf=(\d) ah=([0-9A-F]{2}) ?([0-9A-F]*)", line.strip())
        if m:
            t[m.group(1)] = (int(m.group(2)), int(m.group(3), 16), bytes.fromhex(m.group(4)))
    m = re.search(r"T hello drive=([0-9A-F]{2})", out)
    check(m is not None and "T end" in out, "eddtest ran to its end")
    check(re.search(r"pcam bios: disk 0: pcam: QEMU QEMU HARDDISK ID [1-9] LUN 0", out) is not None,
          "pcam's init offered the disk at a non-zero ID, named as the boot menu shows it")
    check(m is not None and m.group(1) == "80", "booted from drive 80h")

    def res(name):
        return t.get(name, (None, None, b""))

    cf, ah, d = res("pcam")
    check(cf == 0 and d[:2] == b"CP", "the boot drive is pcam's: its function FEh answered 'PC'")
    reads0 = struct.unpack("<I", d[4:6] + d[2:4])[0] if len(d) >= 8 else 0
    check(reads0 >= 16, "pcam's counter holds the boot's reads (MBR and the 15 sectors): %d" % reads0)
    cf, ah, d = res("edd41")
    check(cf == 0 and ah == 0x30 and d[:2] == b"\x55\xaa" and (d[2] & 5) == 5,
          "41h: EDD 3.0, fixed-disk access and 48h")
    cf, ah, d = res("edd48")
    ok = cf == 0 and len(d) == 26
    if ok:
        size, _, _, _, _, total, bps = struct.unpack("<HHIIIQH", d)
        ok = size == 0x1A and total == blocks and bps == 512
    check(ok, "48h: %d sectors of 512 bytes (the image's size)" % blocks)
    cf, ah, d = res("params08")
    check(cf == 0 and len(d) == 4 and (d[0] & 0x3F) == 63 and d[3] == 254, "08h: 63 sectors, 255 heads")
    cf, ah, d = res("chs")
    check(cf == 0 and d == block(LBA_CHS), "02h: CHS read of LBA %d matches the image" % LBA_CHS)
    cf, ah, d = res("readhi")
    check(cf == 0 and d == block(LBA_HI), "42h: read of LBA %#x (above 2^32) matches the image" % LBA_HI)
    cf, ah, d = res("writehi")
    check(cf == 0 and block(LBA_WHI, 512) == WPATTERN,
          "43h: write of LBA %#x is in the image" % LBA_WHI)
    cf, ah, d = res("past")
    check(cf == 1 and ah == 0x04, "42h at LBA %d (the end): CF, AH 04h sector not found" % blocks)
    cf, ah, d = res("ffff16")
    check(cf == 1 and ah == 0x01, "42h, FFFF:FFFF in a 16-byte packet: CF, AH 01h")
    cf, ah, d = res("ffff24")
    check(cf == 0 and d == block(LBA_HI), "42h, FFFF:FFFF and a 64-bit flat address: read there")
    cf, ah, d = res("cross")
    check(cf == 1 and ah == 0x09, "02h into a buffer crossing its segment: CF, AH 09h")
    cf, ah, d = res("baddrive")
    check(cf == 1 and ah != 0, "02h on drive F0h: an error status (not pcam's drive)")
    cf, ah, d = res("badfn")
    check(cf == 1 and ah == 0x01, "function 77h: CF, AH 01h")
    cf, ah, d = res("pcam2")
    reads1 = struct.unpack("<I", d[4:6] + d[2:4])[0] if len(d) >= 8 else 0
    writes = struct.unpack("<H", d[6:8])[0] if len(d) >= 8 else 0
    check(cf == 0 and reads1 - reads0 == 3 and writes == 1,
          "pcam counted eddtest's 3 good reads and 1 write (%d, %d)" % (reads1 - reads0, writes))
    check(re.search(r"Running option rom at [0-9a-f]{4}:(?!0003)[0-9a-f]{4}", log) is not None,
          "SeaBIOS called a BCV of pcam's ROM")
    check("Booting from Hard Disk..." in log and "Booting from 0000:7c00" in log,
          "SeaBIOS booted the hard disk (drive 80h)")
    if fails:
        print("%d check(s) failed" % len(fails))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
