/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The two data patterns of the FreeBSD guest test, shared by the guest
 * program (init.c) and the host's image check (imgcheck.c), so that each
 * side checks the other's bytes by a rule, not by anything pcam computed.
 * - host pattern (tests/uefi/mkpattern.c's rule): byte j of 512-byte block
 *   n is n's big-endian bytes for j < 4, else (n * 13 + j) mod 256;
 * - guest pattern, what the guest writes: 'W', 'R', then n's low 16 bits
 *   big-endian, else (n * 29 + j + 0x5a) mod 256;
 * - soak sectors (the sustained-load boot): self-identifying, "PCAMSOAK",
 *   the disk's unit, the LBA (8 bytes, little-endian), a 16-bit generation,
 *   then (j * 31 + n * 7 + gen * 13 + unit) mod 256.
 */
#ifndef PCAM_FBSD_GUEST_PATTERN_H
#define PCAM_FBSD_GUEST_PATTERN_H

/* Where and how much the guest writes on each data disk (512-byte blocks). */
#define PAT_WRITE_LBA 2048u
#define PAT_WRITE_BLOCKS 128u

/* The block the host makes fail on one disk (blkdebug, MEDIUM ERROR): the
 * guest reads it and writes it back with its host pattern content. */
#define PAT_FAULT_LBA 20000u

/* A disk over 2 TiB (sparse image): the host pattern only in the
 * PAT_BIG_BLOCKS blocks from PAT_BIG_BASE (block 2^32, where READ(10)'s
 * 32-bit LBA ends), the guest's write at PAT_BIG_BASE + PAT_WRITE_LBA. */
#define PAT_BIG_BASE 0x100000000ull
#define PAT_BIG_BLOCKS 64u

static inline unsigned char pat_host(unsigned long n, unsigned j)
{
    return j < 4 ? (unsigned char)(n >> (24 - 8 * j)) : (unsigned char)(n * 13u + j);
}

static inline unsigned char pat_guest(unsigned long n, unsigned j)
{
    switch (j) {
    case 0: return 'W';
    case 1: return 'R';
    case 2: return (unsigned char)(n >> 8);
    case 3: return (unsigned char)n;
    default: return (unsigned char)(n * 29u + j + 0x5au);
    }
}

/* Byte j of a soak sector for block n of da<unit>, generation gen (1..65535). */
static inline unsigned char pat_soak(unsigned unit, unsigned long n, unsigned gen, unsigned j)
{
    static const char tag[8] = {'P', 'C', 'A', 'M', 'S', 'O', 'A', 'K'};
    if (j < 8)
        return (unsigned char)tag[j];
    if (j == 8)
        return (unsigned char)unit;
    if (j < 17)
        return (unsigned char)(n >> (8 * (j - 9)));
    if (j < 19)
        return (unsigned char)(gen >> (8 * (j - 17)));
    return (unsigned char)(j * 31u + n * 7u + gen * 13u + unit);
}

#endif
