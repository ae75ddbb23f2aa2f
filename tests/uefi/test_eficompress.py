#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""osshim/uefi/eficompress.py against the UEFI specification's compressed
format: two streams worked out bit by bit by hand from the specification's
block layout (written out below as bit strings, not computed with the
encoder's code), then round trips through tests/uefi/efi_decompress.py (a
decoder written apart from the encoder) on data chosen to reach every part
of the format (single-symbol sets, zero runs of every length class, long
matches, distances up to the 8 KiB window, several blocks), the real driver
when its path is given, and the decoder's refusal of broken streams.
usage: test_eficompress.py ECOMPRESS.py [pcamscsi.efi]
"""
import importlib.util
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import efi_decompress  # noqa: E402

fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1


def bits_to_bytes(s):
    s = s.replace(" ", "")
    s += "0" * (-len(s) % 8)
    return bytes(int(s[i:i + 8], 2) for i in range(0, len(s), 8))


def main():
    spec = importlib.util.spec_from_file_location("eficompress", sys.argv[1])
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)

    # "A": one block of one symbol. Every set is a single symbol (n = 0).
    body = bits_to_bytes(
        "0000000000000001"      # 1 symbol in the block
        " 00000 00000"          # T set: n = 0, the (unused) symbol 0
        " 000000000 001000001"  # C set: n = 0, the symbol 0x41
        " 0000 0000"            # P set: n = 0, symbol 0
        "")                     # 'A' costs no bits: its set has one symbol
    want = struct.pack("<II", len(body), 1) + body
    got = m.compress(b"A")
    check(got == want, "'A' is %s (by hand), got %s" % (want.hex(), got.hex()))

    # "aaaa": literal 'a', then a match of 3 at distance 1. C uses 97 and
    # 256 (length 1 each: codes 0 and 1); its 257 lengths are 97 zeros, 1,
    # 158 zeros, 1, coded with T symbols 2 (a run of 20..531), 3 (length 1):
    # T lengths [0, 0, 1, 1] (codes: 2 -> 0, 3 -> 1). P has one symbol, 0.
    body = bits_to_bytes(
        "0000000000000010"            # 2 symbols
        " 00100 000 000 001 00 001"   # T: n = 4; 0, 0, 1, zero run 0, 1
        " 100000001"                  # C: n = 257 lengths
        " 0 001001101"                # T2: 77 + 20 = 97 zeros
        " 1"                          # T3: length 1 (symbol 97)
        " 0 010001010"                # T2: 138 + 20 = 158 zeros
        " 1"                          # T3: length 1 (symbol 256)
        " 0000 0000"                  # P: one symbol, 0 (distance 1)
        " 0"                          # 'a'
        " 1")                         # length 3 (symbol 256), distance 1 (no bits)
    want = struct.pack("<II", len(body), 4) + body
    got = m.compress(b"aaaa")
    check(got == want, "'aaaa' is %s (by hand), got %s" % (want.hex(), got.hex()))

    check(m.compress(b"") == struct.pack("<II", 0, 0), "empty input: the header alone, sizes 0")

    rnd = random.Random(20261203)
    cases = {
        "one byte": b"\x00",
        "two symbols": b"ab",
        "zeros 64 KiB (matches of 256)": bytes(65536),
        "random 40 KiB (literals only, 3 blocks)": bytes(rnd.getrandbits(8) for _ in range(40960)),
        "text": b"".join(b"line %d: the quick brown fox jumps over the lazy dog\n" % i
                         for i in range(3000)),
        "far repeats (distance 8192 and just past it)":
            (lambda blk: blk + blk + bytes(1) + blk)(bytes(rnd.getrandbits(8) for _ in range(8191))),
        "skewed bytes":
            bytes(min(255, int(rnd.expovariate(0.05))) for _ in range(50000)),
        "every byte value": bytes(range(256)) * 40,
    }
    if len(sys.argv) > 2:
        with open(sys.argv[2], "rb") as f:
            cases["pcamscsi.efi"] = f.read()
    for name, data in cases.items():
        blob = m.compress(data)
        try:
            back = efi_decompress.decompress(blob)
        except efi_decompress.DecodeError as e:
            check(False, "%s: decoder refused the stream: %s" % (name, e))
            continue
        check(back == data, "%s: %d bytes -> %d -> back identical" % (name, len(data), len(blob)))
        check(struct.unpack_from("<II", blob) == (len(blob) - 8, len(data)),
              "%s: header sizes" % name)
    if "pcamscsi.efi" in cases:
        n = len(cases["pcamscsi.efi"])
        c = len(m.compress(cases["pcamscsi.efi"]))
        check(c < n * 0.75, "pcamscsi.efi compresses to %d of %d bytes (%.1f%%)" % (c, n, 100.0 * c / n))

    # Codes deeper than 16 bits: Fibonacci frequencies make a Huffman tree
    # as deep as it can be (21 levels for 22 symbols), so the encoder must
    # limit it and still give a complete code. One block of such literals
    # (46,367 symbols) through the separate decoder.
    fib = [1, 1]
    while len(fib) < 22:
        fib.append(fib[-1] + fib[-2])
    freq = fib + [0] * (m.NC - len(fib))
    lens = m._huffman_lengths(freq)
    check(max(lens) <= 16 and sum(1 << (16 - l) for l in lens if l) == 1 << 16,
          "Fibonacci frequencies: longest code %d bits (unlimited: 21), complete code" % max(lens))
    toks = [sym for sym, n in enumerate(fib) for _ in range(n)]
    rnd.shuffle(toks)
    bits = m._Bits()
    m._block(bits, toks)
    body = bits.finish()
    blob = struct.pack("<II", len(body), len(toks)) + body
    try:
        back = efi_decompress.decompress(blob)
        check(back == bytes(toks), "a block coded with 16-bit-limited codes decodes back")
    except efi_decompress.DecodeError as e:
        check(False, "a block coded with 16-bit-limited codes was refused: %s" % e)

    # The decoder is the tests' only witness: it must refuse what the
    # firmware would, and never fail other than with DecodeError.
    blob = m.compress(cases["text"])
    for cut in (0, 7, 9, len(blob) // 2):
        try:
            efi_decompress.decompress(blob[:cut])
            check(False, "a stream cut at %d bytes was accepted" % cut)
        except efi_decompress.DecodeError as e:
            check(True, "cut at %d: %s" % (cut, e))
    incomplete = struct.pack("<II", 4, 1) + bits_to_bytes("0000000000000001 00011 001 001 001 00")
    try:
        efi_decompress.decompress(incomplete)
        check(False, "an incomplete T code (three 1-bit lengths) was accepted")
    except efi_decompress.DecodeError as e:
        check("complete" in str(e), "three 1-bit T lengths refused: %s" % e)
    other = 0
    for k in range(300):
        b = bytearray(blob)
        for _ in range(1 + k % 4):
            b[8 + rnd.randrange(len(b) - 8)] ^= 1 << rnd.randrange(8)
        try:
            efi_decompress.decompress(bytes(b))
        except efi_decompress.DecodeError:
            pass
        except Exception as e:  # noqa: BLE001 - any other failure is the finding
            other += 1
            print("  flipped stream %d: %r" % (k, e))
    check(other == 0, "300 streams with flipped bits: each decoded or refused with DecodeError")

    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
