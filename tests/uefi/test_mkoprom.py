#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Checks osshim/uefi/mkoprom.py's option-ROM layout byte by byte against
offsets and values worked out by hand from the UEFI specification's EFI PCI
Expansion ROM Header and the PCI Firmware Specification 3.0's PCI Data
Structure (the expectation is written out here as literal bytes, not
computed with the script's own constants). Then the same for the real
driver when its path is given. Never boots anything.
usage: test_mkoprom.py MKOPROM.py [pcamscsi.efi]
"""
import importlib.util
import struct
import subprocess
import sys
import tempfile
import os

fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1


def fake_pe(subsystem=11, machine=0x8664, size=700):
    """A minimal PE32+ header: MZ, e_lfanew = 0x80, PE\\0\\0, COFF, optional header."""
    b = bytearray(size)
    b[0:2] = b"MZ"
    b[0x3C:0x40] = (0x80).to_bytes(4, "little")
    b[0x80:0x84] = b"PE\0\0"
    b[0x84:0x86] = machine.to_bytes(2, "little")
    b[0x98:0x9A] = (0x20B).to_bytes(2, "little")  # optional header at 0x80 + 24
    b[0x98 + 68:0x98 + 70] = subsystem.to_bytes(2, "little")
    b[size - 1] = 0xA5  # the image's last byte, to find it in the ROM
    return bytes(b)


def main():
    spec = importlib.util.spec_from_file_location("mkoprom", sys.argv[1])
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)

    pe = fake_pe()
    rom = m.build(pe, 0x1000, 0x0012, 0x010000)
    # 0x40 + 700 = 764 bytes: two 512-byte units, 1024 bytes.
    check(len(rom) == 1024, "ROM length 1024 (64-byte header area + 700-byte image, in 512s)")
    want_hdr = bytes([
        0x55, 0xAA,              # 0x00 signature
        0x02, 0x00,              # 0x02 InitializationSize: 2 units
        0xF1, 0x0E, 0x00, 0x00,  # 0x04 EfiSignature 0x0EF1
        0x0B, 0x00,              # 0x08 EfiSubsystem 11 (boot-service driver)
        0x64, 0x86,              # 0x0A EfiMachineType 0x8664
        0x00, 0x00,              # 0x0C CompressionType 0
        0, 0, 0, 0, 0, 0, 0, 0,  # 0x0E reserved
        0x40, 0x00,              # 0x16 EfiImageHeaderOffset
        0x1C, 0x00,              # 0x18 PcirOffset
        0x00, 0x00,              # 0x1A padding up to the PCIR
    ])
    check(rom[:0x1C] == want_hdr, "EFI expansion ROM header bytes 0x00-0x1B")
    want_pcir = bytes([
        0x50, 0x43, 0x49, 0x52,  # "PCIR"
        0x00, 0x10,              # vendor 0x1000
        0x12, 0x00,              # device 0x0012
        0x00, 0x00,              # device list pointer: none
        0x1C, 0x00,              # structure length 28
        0x03,                    # revision 3
        0x00, 0x00, 0x01,        # class: interface 0, subclass 0 (SCSI), base 1 (storage)
        0x02, 0x00,              # image length: 2 units
        0x00, 0x00,              # code revision
        0x03,                    # code type 3: EFI
        0x80,                    # indicator: last image
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  # runtime length, config utility, DMTF CLP
    ])
    check(rom[0x1C:0x38] == want_pcir, "PCI data structure bytes 0x1C-0x37")
    check(rom[0x38:0x40] == bytes(8), "zeros between the PCIR and the image")
    check(rom[0x40:0x40 + 700] == pe, "the PE image unchanged at 0x40")
    check(rom[0x40 + 700:] == bytes(1024 - 764), "zero padding after the image")

    # --compress: CompressionType 1 at 0x0C, the image at 0x40 in the UEFI
    # compressed form (decoded by the tests' own decoder, written apart from
    # the encoder), lengths covering the compressed image; every other
    # header byte as above.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import efi_decompress
    crom = m.build(pe, 0x1000, 0x0012, 0x010000, compress=True)
    clen = struct.unpack_from("<I", crom, 0x40)[0] + 8
    cunits = (0x40 + clen + 511) // 512
    check(crom[0x0C:0x0E] == bytes([0x01, 0x00]), "--compress: CompressionType 1 at 0x0C")
    check(crom[:0x0C] == want_hdr[:2] + bytes([cunits, 0]) + want_hdr[4:0x0C] and
          crom[0x0E:0x1C] == want_hdr[0x0E:], "--compress: the other header bytes as uncompressed")
    check(len(crom) == cunits * 512 and struct.unpack_from("<H", crom, 0x2C)[0] == cunits,
          "--compress: both lengths %d units for a %d-byte compressed image" % (cunits, clen))
    check(efi_decompress.decompress(crom[0x40:0x40 + clen]) == pe,
          "--compress: the image decodes back to the PE image")

    # The AM53C974's IDs land in the same places.
    rom2 = m.build(pe, 0x1022, 0x2020, 0x010000)
    check(rom2[0x20:0x24] == bytes([0x22, 0x10, 0x20, 0x20]), "vendor/device 1022:2020 at 0x20")

    # Refusals: an application, a PE32 image, not a PE at all.
    for what, img in (("an application (subsystem 10)", fake_pe(subsystem=10)),
                      ("not a PE image", b"\0" * 600)):
        try:
            m.build(img, 0x1000, 0x0012, 0x010000)
            check(False, "refuses " + what)
        except ValueError:
            check(True, "refuses " + what)
    pe32 = bytearray(pe)
    pe32[0x98:0x9A] = (0x10B).to_bytes(2, "little")
    try:
        m.build(bytes(pe32), 0x1000, 0x0012, 0x010000)
        check(False, "refuses a PE32 (not PE32+) image")
    except ValueError:
        check(True, "refuses a PE32 (not PE32+) image")

    # --legacy: a hand-made code-type-0 image (2 units, PCIR at 0x20 for
    # 1000:0012, last-image bit set, last byte making the sum zero) goes
    # first; only its indicator (0x35: 0x80 -> 0x00) and its last byte
    # (+0x80, the sum kept zero) change, and the EFI image follows at 1024.
    leg = bytearray(1024)
    leg[0:3] = bytes([0x55, 0xAA, 0x02])
    leg[0x18:0x1A] = bytes([0x20, 0x00])
    leg[0x20:0x3C] = (b"PCIR" + bytes([0x00, 0x10, 0x12, 0x00, 0, 0, 0x1C, 0, 3, 0, 0, 1]) +
                      bytes([0x02, 0x00, 1, 0, 0x00, 0x80, 0, 0, 0, 0, 0, 0]))
    leg[1023] = -sum(leg) & 0xFF
    both = m.prepend_legacy(bytes(leg), rom, 0x1000, 0x0012)
    want = bytearray(leg)
    want[0x35] = 0x00
    want[1023] = (leg[1023] + 0x80) & 0xFF
    check(both[:1024] == bytes(want) and sum(both[:1024]) & 0xFF == 0,
          "--legacy: the legacy image first, not last, its bytes still summing to zero")
    check(both[1024:] == rom and both[1024 + 0x1C + 0x15] == 0x80,
          "--legacy: the EFI image after it at 1024, still the last")
    def changed(off, byte, keep_sum=True):
        b = bytearray(leg)
        b[off] = byte
        if keep_sum:
            b[1023] = (b[1023] - byte + leg[off]) & 0xFF
        return bytes(b)
    for what, bad in (("a legacy image for another device", changed(0x26, 0x21)),
                      ("a legacy image of code type 3", changed(0x34, 3)),
                      ("a legacy image with a bad checksum", changed(0x100, 1, False)),
                      ("a legacy image whose size byte is wrong", changed(2, 3))):
        try:
            m.prepend_legacy(bad, rom, 0x1000, 0x0012)
            check(False, "--legacy refuses " + what)
        except ValueError:
            check(True, "--legacy refuses " + what)

    # The command line, the corrupt variants, and the real driver.
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.efi")
        with open(src, "wb") as f:
            f.write(pe)
        for kind, off, byte in (("sig", 0, 0x56), ("efisig", 4, 0xF0)):
            out = os.path.join(d, kind + ".rom")
            r = subprocess.run([sys.executable, sys.argv[1], "--vendor", "0x1000", "--device",
                                "0x12", "--corrupt", kind, src, out])
            with open(out, "rb") as f:
                bad = f.read()
            check(r.returncode == 0 and bad[off] == byte and bad[:off] + bad[off + 1:] ==
                  rom[:off] + rom[off + 1:], "--corrupt %s changes byte 0x%x only" % (kind, off))
        if len(sys.argv) > 2:
            out = os.path.join(d, "pcam.rom")
            r = subprocess.run([sys.executable, sys.argv[1], "--vendor", "0x1000", "--device",
                                "0x0012", sys.argv[2], out])
            with open(sys.argv[2], "rb") as f:
                drv = f.read()
            with open(out, "rb") as f:
                real = f.read()
            units = (0x40 + len(drv) + 511) // 512
            check(r.returncode == 0 and len(real) == units * 512 and
                  struct.unpack_from("<H", real, 2)[0] == units and
                  struct.unpack_from("<H", real, 0x2C)[0] == units and
                  real[0x40:0x40 + len(drv)] == drv,
                  "pcamscsi.efi (%d bytes): a %d-byte ROM, both lengths %d units" %
                  (len(drv), len(real), units))
            out = os.path.join(d, "pcamz.rom")
            r = subprocess.run([sys.executable, sys.argv[1], "--vendor", "0x1000", "--device",
                                "0x0012", "--compress", sys.argv[2], out])
            with open(out, "rb") as f:
                z = f.read()
            zlen = struct.unpack_from("<I", z, 0x40)[0] + 8
            check(r.returncode == 0 and z[0x0C] == 1 and
                  efi_decompress.decompress(z[0x40:0x40 + zlen]) == drv,
                  "pcamscsi.efi --compress: a %d-byte ROM (%d uncompressed) that decodes back" %
                  (len(z), len(real)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
