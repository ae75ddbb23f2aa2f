#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A decoder for the UEFI specification's compressed format (EFI 1.1
variant, PBIT 4; the Tiano variant with pbit=5), written for the tests from
the specification's description of the stream, apart from
osshim/uefi/eficompress.py and sharing no code with it, so that a mistake
in the encoder's reading of the specification does not cancel itself out.

It is strict where the firmware is (a code-length set that does not fill
its code space exactly) and stricter where the firmware would misbehave
quietly: a count larger than its alphabet, a code that matches no symbol,
a match reaching before the start of the data, a block of no symbols, or
running out of input all raise DecodeError, never an IndexError. The
firmware stops as soon as the original size is reached (even inside a
match); so does this.
"""
import struct


class DecodeError(ValueError):
    pass


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0  # in bits

    def bits(self, n):
        v = 0
        for _ in range(n):
            byte = self.pos >> 3
            if byte >= len(self.data):
                raise DecodeError("compressed data ends early (bit %d)" % self.pos)
            v = (v << 1) | ((self.data[byte] >> (7 - (self.pos & 7))) & 1)
            self.pos += 1
        return v


class _Code:
    """A canonical prefix code from code lengths (0 = unused)."""

    def __init__(self, lens, what):
        if any(l > 16 for l in lens):
            raise DecodeError("%s: a code longer than 16 bits" % what)
        kraft = sum(1 << (16 - l) for l in lens if l)
        if kraft != 1 << 16:
            raise DecodeError("%s: code lengths do not make a complete code (%d/65536)" % (what, kraft))
        self.map = {}
        code = 0
        for length in range(1, 17):
            for sym, l in enumerate(lens):
                if l == length:
                    self.map[(length, code)] = sym
                    code += 1
            code <<= 1
        self.what = what

    def read(self, r):
        code = 0
        for length in range(1, 17):
            code = (code << 1) | r.bits(1)
            sym = self.map.get((length, code))
            if sym is not None:
                return sym
        raise DecodeError("%s: no symbol for the next 16 bits" % self.what)


class _Single:
    def __init__(self, sym):
        self.sym = sym

    def read(self, r):
        return self.sym


def _pt_set(r, nsym, nbit, special, what):
    n = r.bits(nbit)
    if n == 0:
        v = r.bits(nbit)
        if v >= nsym:
            raise DecodeError("%s: single symbol %d out of range" % (what, v))
        return _Single(v)
    if n > nsym:
        raise DecodeError("%s: %d lengths for %d symbols" % (what, n, nsym))
    lens = []
    while len(lens) < n:
        ln = r.bits(3)
        if ln == 7:
            while r.bits(1):
                ln += 1
                if ln > 16:
                    raise DecodeError("%s: length over 16" % what)
        lens.append(ln)
        if len(lens) == special:
            for _ in range(r.bits(2)):
                lens.append(0)
    if len(lens) > nsym:
        raise DecodeError("%s: zero run past the alphabet" % what)
    return _Code(lens + [0] * (nsym - len(lens)), what)


def _c_set(r, tcode, nc, cbit):
    n = r.bits(cbit)
    if n == 0:
        v = r.bits(cbit)
        if v >= nc:
            raise DecodeError("Char&Len set: single symbol %d out of range" % v)
        return _Single(v)
    if n > nc:
        raise DecodeError("Char&Len set: %d lengths for %d symbols" % (n, nc))
    lens = []
    while len(lens) < n:
        t = tcode.read(r)
        if t == 0:
            lens.append(0)
        elif t == 1:
            lens.extend([0] * (r.bits(4) + 3))
        elif t == 2:
            lens.extend([0] * (r.bits(cbit) + 20))
        else:
            lens.append(t - 2)
    if len(lens) > nc:
        raise DecodeError("Char&Len set: zero run past the alphabet")
    return _Code(lens + [0] * (nc - len(lens)), "Char&Len set")


def decompress(blob, pbit=4):
    """The original bytes of a compressed blob (header included)."""
    if len(blob) < 8:
        raise DecodeError("shorter than the 8-byte header")
    comp, orig = struct.unpack_from("<II", blob, 0)
    if comp > len(blob) - 8:
        raise DecodeError("header says %d compressed bytes, %d present" % (comp, len(blob) - 8))
    r = _Reader(blob[8:8 + comp])
    nc, nt, np_max = 510, 19, (1 << pbit) - 1
    out = bytearray()
    while len(out) < orig:
        count = r.bits(16)
        tset = _pt_set(r, nt, 5, 3, "Extra set")
        cset = _c_set(r, tset, nc, 9)
        pset = _pt_set(r, np_max, pbit, -1, "Position set")
        if count == 0:
            raise DecodeError("a block of no symbols before the end of the data")
        for _ in range(count):
            c = cset.read(r)
            if c < 256:
                out.append(c)
            else:
                length = c - 253
                v = pset.read(r)
                p = v if v < 2 else (1 << (v - 1)) + r.bits(v - 1)
                start = len(out) - p - 1
                if start < 0:
                    raise DecodeError("a match %d bytes back at offset %d" % (p + 1, len(out)))
                for k in range(length):
                    out.append(out[start + k])
                    if len(out) >= orig:
                        break
            if len(out) >= orig:
                break
    return bytes(out[:orig])
