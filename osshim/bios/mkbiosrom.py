#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""mkbiosrom.py: finish pcam's legacy option-ROM image (code type 0).

objcopy gives rom16.S followed by the payload; this pads the image to
512-byte blocks, writes the size byte (offset 2), the PCIR image length
and maximum run-time length, and makes all bytes sum to 0 mod 256 (the
last byte of the image is free for that: the payload ends padded).
It writes the chip's vendor:device into PCIR and its device list. It refuses an image over 64 KiB: two cards must fit the option-ROM area.
"""
import argparse
import struct
import sys

LIMIT = 64 * 1024


def finish(img, runtime, vendor, device):
    img = bytearray(img)
    img += b"\0" * (-(len(img) + 1) % 512 + 1)  # at least one free byte at the end
    if len(img) > LIMIT:
        sys.exit("mkbiosrom: legacy image is %d bytes, over %d" % (len(img), LIMIT))
    if img[0:2] != b"\x55\xaa":
        sys.exit("mkbiosrom: no 55 AA signature")
    img[2] = len(img) // 512
    pcir = struct.unpack_from("<H", img, 0x18)[0]
    if img[pcir:pcir + 4] != b"PCIR":
        sys.exit("mkbiosrom: no PCIR structure")
    struct.pack_into("<HH", img, pcir + 4, vendor, device)
    devlist = pcir + struct.unpack_from("<H", img, pcir + 8)[0]
    struct.pack_into("<H", img, devlist, device)
    struct.pack_into("<H", img, pcir + 0x10, len(img) // 512)
    struct.pack_into("<H", img, pcir + 0x16, runtime // 512)
    img[-1] = 0
    img[-1] = -sum(img) & 0xFF
    return bytes(img)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elf-syms", required=True, help="nm output of the ELF (for rom16_end)")
    ap.add_argument("--ids", required=True, help="vendor:device of the chip, hex")
    ap.add_argument("bin")
    ap.add_argument("out")
    a = ap.parse_args()
    syms = {l.split()[2]: int(l.split()[0], 16) for l in a.elf_syms.splitlines() if len(l.split()) == 3}
    with open(a.bin, "rb") as f:
        img = f.read()
    vendor, device = (int(x, 16) for x in a.ids.split(":"))
    out = finish(img, syms["rom16_end"], vendor, device)
    with open(a.out, "wb") as f:
        f.write(out)
    print("legacy image: %d bytes (%d KiB), run time %d bytes" % (len(out), len(out) // 1024,
                                                                  syms["rom16_end"]))


if __name__ == "__main__":
    main()
