#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The UEFI specification's compression algorithm (EFI 1.1 / UEFI
"Compression Algorithm Specification": LZ77 with static Huffman codes per
block), the encoder side, written from the specification's description of
the compressed stream. A PCI option ROM image with CompressionType 1 carries
its PE image in this form; the firmware's EFI_DECOMPRESS_PROTOCOL undoes it.

The stream, as the specification defines it (this file's own words):
- an 8-byte header: UINT32 compressed size (the bytes after the header),
  UINT32 original size, both little-endian;
- then bits, most significant bit of each byte first, in blocks. A block:
  * 16 bits: how many Char&Len symbols the block holds;
  * the Extra set (T): the code lengths of the 19-symbol alphabet that
    codes the Char&Len code lengths. TBIT (5) bits: how many lengths follow,
    n; n = 0 means one symbol only, whose value follows in 5 bits. Each
    length: 3 bits for 0..6; 7 or more as 3 one-bits, (length - 7) more
    one-bits and a zero. After the third length, 2 bits: how many zero
    lengths follow (0..3);
  * the Char&Len set (C, 510 symbols: 0..255 literal bytes, 256..509 match
    lengths 3..256): CBIT (9) bits of count n, 0 meaning one symbol whose
    value follows in 9 bits; otherwise n lengths coded with the T code:
    T symbol 0 = one zero length, 1 = 3..18 zeros (4 more bits, + 3),
    2 = 20..531 zeros (9 more bits, + 20), s >= 3 = the length s - 2;
  * the Position set (P): as the T set with PBIT (4 in EFI 1.1, 5 in the
    Tiano variant) bits of count and no zero-run field. Symbol v means a
    distance-minus-one of v (v < 2) or 2^(v-1) + (v-1 further bits);
  * the block's symbols: a C code; for a match its P code follows.
- Every code is canonical: codes of one length are consecutive in symbol
  order, shorter codes first, at most 16 bits, and a set's code must be
  complete (the firmware refuses a table whose lengths do not fill the code
  space), which is why a set with one symbol uses the n = 0 form.

The EFI 1.1 variant (PBIT 4) is what EFI_DECOMPRESS_PROTOCOL decodes; its
window is 8 KiB (position symbols 0..13). This encoder never emits a
distance past the start of the data or a length past its end.

It must never produce a stream it has not checked: compress() is pure, and
the tests decode its output with a decoder written separately from the same
specification (tests/uefi/efi_decompress.py); OVMF decoding the option ROM
is the real proof (tests/uefi's option-ROM boots).
usage: eficompress.py IN OUT
"""
import heapq
import struct
import sys

THRESHOLD = 3          # shortest match
MAXMATCH = 256         # longest match
NC = 256 + MAXMATCH + 2 - THRESHOLD   # 510 Char&Len symbols
NT = 19                # Extra-set symbols (16 lengths + 3 zero-run codes)
TBIT, CBIT, PBIT = 5, 9, 4
NP = 14                # position symbols of the EFI 1.1 variant
WINDOW = 1 << (NP - 1)  # farthest distance: 8192
MAXLEN = 16            # longest code
BLOCK_SYMBOLS = 0x4000  # symbols per block (the field holds up to 65535)
HASH_DEPTH = 48        # candidates tried per position


class _Bits:
    """Most-significant-bit-first writer."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, nbits, value):
        if nbits == 0:
            return
        assert 0 <= value < (1 << nbits), (nbits, value)
        self.acc = (self.acc << nbits) | value
        self.n += nbits
        while self.n >= 8:
            self.n -= 8
            self.out.append((self.acc >> self.n) & 0xFF)
        self.acc &= (1 << self.n) - 1

    def finish(self):
        if self.n:
            self.out.append((self.acc << (8 - self.n)) & 0xFF)
            self.acc = self.n = 0
        return bytes(self.out)


def _huffman_lengths(freq, limit=MAXLEN):
    """Code lengths of a Huffman code for freq (zero-frequency symbols get
    0), at most `limit` bits. A real Huffman tree is always complete; when
    it is too deep, the frequencies are flattened (halved, kept >= 1) and
    the tree built again, so the result is still a complete code."""
    used = [i for i, f in enumerate(freq) if f]
    lens = [0] * len(freq)
    if len(used) < 2:
        return lens
    f = list(freq)
    while True:
        heap = [(f[i], i, (i,)) for i in used]
        heapq.heapify(heap)
        depth = {i: 0 for i in used}
        tie = len(freq)
        while len(heap) > 1:
            fa, _, a = heapq.heappop(heap)
            fb, _, b = heapq.heappop(heap)
            for s in a + b:
                depth[s] += 1
            heapq.heappush(heap, (fa + fb, tie, a + b))
            tie += 1
        if max(depth.values()) <= limit:
            for i in used:
                lens[i] = depth[i]
            return lens
        f = [(x + 1) // 2 if x else 0 for x in f]


def _canonical(lens):
    """Codes for lens: consecutive in symbol order within a length, shorter
    lengths first (the order the specification's table builder assumes)."""
    codes = [0] * len(lens)
    code = 0
    for length in range(1, MAXLEN + 1):
        for s, l in enumerate(lens):
            if l == length:
                codes[s] = code
                code += 1
        code <<= 1
    return codes


def _put_pt(bits, lens, nbit, special, only):
    """A T or P set's lengths (`only`: the symbol when a single one is used)."""
    n = len(lens)
    while n and lens[n - 1] == 0:
        n -= 1
    if n == 0:
        bits.put(nbit, 0)
        bits.put(nbit, only)
        return
    bits.put(nbit, n)
    k = 0
    while k < n:
        ln = lens[k]
        k += 1
        if ln < 7:
            bits.put(3, ln)
        else:
            bits.put(ln - 3, (1 << (ln - 3)) - 2)  # 1...10: ln - 4 ones then a zero
        if k == special:
            z = 0
            while z < 3 and k + z < n and lens[k + z] == 0:
                z += 1
            bits.put(2, z)
            k += z


def _c_len_symbols(clens, n):
    """The C lengths 0..n-1 as T symbols: (symbol, extra bits, extra value)."""
    out = []
    i = 0
    while i < n:
        if clens[i]:
            out.append((clens[i] + 2, 0, 0))
            i += 1
            continue
        run = 0
        while i + run < n and clens[i + run] == 0:
            run += 1
        i += run
        while run:
            if run >= 20:
                take = min(run, 20 + 511)
                out.append((2, CBIT, take - 20))
            elif run == 19:
                take = 18
                out.append((1, 4, 15))
            elif run >= 3:
                take = run
                out.append((1, 4, run - 3))
            else:
                take = 1
                out.append((0, 0, 0))
            run -= take
    return out


def _pos_symbol(dist):
    """(symbol, extra bits, extra value) of a distance 1..WINDOW."""
    p = dist - 1
    if p < 2:
        return p, 0, 0
    v = p.bit_length()  # 2^(v-1) <= p < 2^v
    return v, v - 1, p - (1 << (v - 1))


def _matches(data):
    """Greedy LZ77 with one-step lazy evaluation over 3-byte hash chains:
    a list of literal ints and (length, distance) tuples."""
    n = len(data)
    head = {}
    prev = [-1] * n
    toks = []

    def insert(i):
        if i + 2 < n:
            h = data[i:i + 3]
            prev[i] = head.get(h, -1)
            head[h] = i

    def longest(i):
        if i + THRESHOLD > n:
            return 0, 0
        best, bdist = 0, 0
        limit = min(MAXMATCH, n - i)
        j = head.get(data[i:i + 3], -1)
        tries = HASH_DEPTH
        while j >= 0 and i - j <= WINDOW and tries:
            tries -= 1
            # Only a candidate that could beat the best so far is measured.
            if data[j + best] == data[i + best]:
                length = 3
                while length < limit and data[j + length] == data[i + length]:
                    length += 1
                if length > best:
                    best, bdist = length, i - j
                    if length == limit:
                        break
            j = prev[j]
        return (best, bdist) if best >= THRESHOLD else (0, 0)

    i = 0
    while i < n:
        length, dist = longest(i)
        if length and length < 32 and i + 1 < n:
            insert(i)
            l2, d2 = longest(i + 1)
            if l2 > length + 1:
                toks.append(data[i])
                i += 1
                length, dist = l2, d2
            else:
                toks.append((length, dist))
                for k in range(i + 1, i + length):
                    insert(k)
                i += length
                continue
        if length:
            toks.append((length, dist))
            for k in range(i, i + length):
                insert(k)
            i += length
        else:
            insert(i)
            toks.append(data[i])
            i += 1
    return toks


def _block(bits, toks):
    cfreq = [0] * NC
    pfreq = [0] * NP
    for t in toks:
        if isinstance(t, tuple):
            cfreq[t[0] - THRESHOLD + 256] += 1
            pfreq[_pos_symbol(t[1])[0]] += 1
        else:
            cfreq[t] += 1
    clens = _huffman_lengths(cfreq)
    plens = _huffman_lengths(pfreq)
    c_only = max(range(NC), key=lambda s: cfreq[s])
    p_only = max(range(NP), key=lambda s: pfreq[s])
    ccodes = _canonical(clens)
    pcodes = _canonical(plens)

    bits.put(16, len(toks))
    n = NC
    while n and clens[n - 1] == 0:
        n -= 1
    if n == 0:
        # One Char&Len symbol: the T set is still read first; send it as one
        # unused symbol, then the C set's single value.
        _put_pt(bits, [0] * NT, TBIT, 3, 0)
        bits.put(CBIT, 0)
        bits.put(CBIT, c_only)
    else:
        tsyms = _c_len_symbols(clens, n)
        tfreq = [0] * NT
        for s, _, _ in tsyms:
            tfreq[s] += 1
        tlens = _huffman_lengths(tfreq)
        t_only = max(range(NT), key=lambda s: tfreq[s])
        tcodes = _canonical(tlens)
        _put_pt(bits, tlens, TBIT, 3, t_only)
        bits.put(CBIT, n)
        for s, eb, ev in tsyms:
            bits.put(tlens[s], tcodes[s])
            bits.put(eb, ev)
    _put_pt(bits, plens, PBIT, -1, p_only)
    for t in toks:
        if isinstance(t, tuple):
            c = t[0] - THRESHOLD + 256
            bits.put(clens[c], ccodes[c])
            v, eb, ev = _pos_symbol(t[1])
            bits.put(plens[v], pcodes[v])
            bits.put(eb, ev)
        else:
            bits.put(clens[t], ccodes[t])


def compress(data):
    """data (bytes) in the EFI 1.1 compressed format, header included."""
    data = bytes(data)
    if len(data) > 0xFFFFFFFF:
        raise ValueError("input larger than a 32-bit original size")
    bits = _Bits()
    toks = _matches(data)
    for k in range(0, len(toks), BLOCK_SYMBOLS):
        _block(bits, toks[k:k + BLOCK_SYMBOLS])
    body = bits.finish()
    return struct.pack("<II", len(body), len(data)) + body


def main(argv):
    if len(argv) != 2:
        print("usage: eficompress.py IN OUT", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as f:
        data = f.read()
    out = compress(data)
    with open(argv[1], "wb") as f:
        f.write(out)
    print("eficompress: %s: %d -> %d bytes (%.1f%%)" %
          (argv[0], len(data), len(out), 100.0 * len(out) / max(1, len(data))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
