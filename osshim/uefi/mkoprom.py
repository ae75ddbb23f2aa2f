#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Wraps a UEFI driver (PE32+) in a PCI expansion ROM image, so a card's ROM
BAR (QEMU: -device ...,romfile=FILE) carries pcamscsi.efi and the firmware's
PCI bus driver loads it at boot.

Layouts, written from the specifications (never from EDK2's EfiRom):
- UEFI specification, "PCI Option ROMs" (EFI PCI Expansion ROM Header):
  0x00 u16 0xAA55, 0x02 u16 InitializationSize (512-byte units),
  0x04 u32 EfiSignature 0x0EF1, 0x08 u16 EfiSubsystem, 0x0A u16
  EfiMachineType, 0x0C u16 CompressionType, 0x0E 8 reserved bytes,
  0x16 u16 EfiImageHeaderOffset, 0x18 u16 PcirOffset (where a legacy ROM
  keeps its PCIR pointer too).
- PCI Firmware Specification 3.0, PCI Data Structure ("PCIR", 0x1C bytes):
  0x00 "PCIR", 0x04 u16 vendor, 0x06 u16 device, 0x08 u16 device list
  pointer, 0x0A u16 structure length, 0x0C u8 revision (3), 0x0D u8[3]
  class code (interface, subclass, base class), 0x10 u16 image length
  (512-byte units), 0x12 u16 code revision, 0x14 u8 code type (3: EFI),
  0x15 u8 indicator (bit 7: last image), 0x16 u16 max runtime image
  length, 0x18 u16 configuration utility pointer, 0x1A u16 DMTF CLP pointer.

--compress stores the PE image in the UEFI specification's compressed form
(CompressionType 1, eficompress.py beside this file): about half the size,
as a real card's ROM needs; the firmware's decompressor undoes it before
loading (the option-ROM boots in tests/uefi use it). Without it the image
is stored as it is (CompressionType 0). No checksum: the legacy byte-sum rule applies to code type 0 (x86 BIOS)
images; for EFI images the firmware checks the signatures and fields, so
the image is only padded with zeros to a 512-byte multiple.

--legacy LEGACY.rom puts a legacy BIOS image (code type 0, osshim/bios's
pcam-bios.rom) first and the EFI image after it, one PCI ROM for both
firmware kinds as a card carries them (PCI Firmware 3.0: images follow
each other at their image lengths, the last one's indicator has bit 7).
The legacy image must be for the same vendor and device; its indicator
loses the last-image bit, and its last byte, which mkbiosrom.py keeps
free for it, takes the change so that its bytes still sum to zero.

It must never guess: the subsystem and machine type are read from the PE
header and refused unless they are a boot-service or runtime driver for
x86-64 (or what --machine says).
usage: mkoprom.py --vendor 0x1000 --device 0x0012 [--class 0x010000]
                  [--compress] [--legacy LEGACY.rom] [--corrupt sig|efisig] IN.efi OUT.rom
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eficompress  # noqa: E402

ROM_SIG = 0xAA55
EFI_SIG = 0x0EF1
PCIR_OFF = 0x1C
PCIR_LEN = 0x1C
IMAGE_ALIGN = 0x40  # where the PE image starts: past both, 64-byte aligned
CODE_TYPE_EFI = 3
CODE_TYPE_X86 = 0
COMPRESSED = 1  # CompressionType: the UEFI specification's algorithm
LAST_IMAGE = 0x80
SUBSYS_BS_DRIVER, SUBSYS_RT_DRIVER = 11, 12
MACHINE_X64 = 0x8664


def pe_info(pe):
    """(machine, subsystem) of a PE32+ image; ValueError if it is not one."""
    if len(pe) < 0x40 or pe[:2] != b"MZ":
        raise ValueError("not a PE image (no MZ header)")
    off = struct.unpack_from("<I", pe, 0x3C)[0]
    if off + 24 + 70 > len(pe) or pe[off:off + 4] != b"PE\0\0":
        raise ValueError("not a PE image (no PE signature)")
    machine = struct.unpack_from("<H", pe, off + 4)[0]
    opt = off + 24
    magic = struct.unpack_from("<H", pe, opt)[0]
    if magic != 0x20B:
        raise ValueError("not PE32+ (optional header magic 0x%x)" % magic)
    subsystem = struct.unpack_from("<H", pe, opt + 68)[0]
    return machine, subsystem


def build(pe, vendor, device, class_code, code_rev=0, compress=False):
    machine, subsystem = pe_info(pe)
    if subsystem not in (SUBSYS_BS_DRIVER, SUBSYS_RT_DRIVER):
        raise ValueError("PE subsystem %d is not a UEFI driver (11 or 12)" % subsystem)
    image = eficompress.compress(pe) if compress else pe
    total = IMAGE_ALIGN + len(image)
    units = (total + 511) // 512
    if units > 0xFFFF:
        raise ValueError("image too large for a 16-bit length in 512-byte units")
    rom = bytearray(units * 512)
    struct.pack_into("<HHIHHH", rom, 0, ROM_SIG, units, EFI_SIG, subsystem, machine,
                     COMPRESSED if compress else 0)
    struct.pack_into("<HH", rom, 0x16, IMAGE_ALIGN, PCIR_OFF)
    struct.pack_into("<4sHHHHB", rom, PCIR_OFF, b"PCIR", vendor, device, 0, PCIR_LEN, 3)
    rom[PCIR_OFF + 0x0D:PCIR_OFF + 0x10] = bytes(
        [class_code & 0xFF, (class_code >> 8) & 0xFF, (class_code >> 16) & 0xFF])
    struct.pack_into("<HHBBHHH", rom, PCIR_OFF + 0x10, units, code_rev, CODE_TYPE_EFI,
                     LAST_IMAGE, 0, 0, 0)
    rom[IMAGE_ALIGN:IMAGE_ALIGN + len(image)] = image
    return bytes(rom)


def prepend_legacy(legacy, rom, vendor, device):
    """The legacy image, no longer the last, followed by the EFI ROM."""
    img = bytearray(legacy)
    if len(img) < 0x1A or struct.unpack_from("<H", img, 0)[0] != ROM_SIG:
        raise ValueError("legacy image has no 0xAA55 signature")
    if len(img) != img[2] * 512 or len(img) == 0:
        raise ValueError("legacy image is %d bytes, its header says %d" % (len(img), img[2] * 512))
    if sum(img) & 0xFF:
        raise ValueError("legacy image's bytes do not sum to zero")
    pcir = struct.unpack_from("<H", img, 0x18)[0]
    if pcir + PCIR_LEN > len(img) or img[pcir:pcir + 4] != b"PCIR":
        raise ValueError("legacy image has no PCI data structure")
    lv, ld = struct.unpack_from("<HH", img, pcir + 4)
    if (lv, ld) != (vendor, device):
        raise ValueError("legacy image is for %04x:%04x, not %04x:%04x" % (lv, ld, vendor, device))
    if img[pcir + 0x14] != CODE_TYPE_X86:
        raise ValueError("legacy image has code type %d, not 0" % img[pcir + 0x14])
    if struct.unpack_from("<H", img, pcir + 0x10)[0] * 512 != len(img):
        raise ValueError("legacy image's PCIR image length is not its size")
    was = img[pcir + 0x15]
    img[pcir + 0x15] = was & ~LAST_IMAGE & 0xFF
    img[-1] = (img[-1] + was - img[pcir + 0x15]) & 0xFF
    return bytes(img) + rom


def main(argv):
    ap = argparse.ArgumentParser(description="PCI expansion ROM from a UEFI driver")
    num = lambda s: int(s, 0)
    ap.add_argument("--vendor", type=num, required=True)
    ap.add_argument("--device", type=num, required=True)
    ap.add_argument("--class", dest="class_code", type=num, default=0x010000,
                    help="24-bit class code (default 0x010000, SCSI bus controller)")
    ap.add_argument("--compress", action="store_true",
                    help="store the image compressed (UEFI compression, CompressionType 1)")
    ap.add_argument("--legacy", metavar="LEGACY.rom",
                    help="a legacy BIOS image (code type 0) to put before the EFI image")
    ap.add_argument("--corrupt", choices=("sig", "efisig"),
                    help="test images only: a wrong 0xAA55 or 0x0EF1 signature")
    ap.add_argument("input")
    ap.add_argument("output")
    a = ap.parse_args(argv)
    with open(a.input, "rb") as f:
        pe = f.read()
    try:
        rom = bytearray(build(pe, a.vendor, a.device, a.class_code, compress=a.compress))
        # --corrupt breaks the EFI image, wherever it ends up.
        if a.corrupt == "sig":
            rom[0] = 0x56
        elif a.corrupt == "efisig":
            rom[4] = 0xF0
        if a.legacy:
            with open(a.legacy, "rb") as f:
                rom = bytearray(prepend_legacy(f.read(), bytes(rom), a.vendor, a.device))
    except (ValueError, OSError) as e:
        print("mkoprom: %s: %s" % (a.input, e), file=sys.stderr)
        return 1
    with open(a.output, "wb") as f:
        f.write(rom)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
