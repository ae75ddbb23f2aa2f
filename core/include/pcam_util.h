/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private helpers shared by the core's C files: big-endian field access done
 * byte by byte (so the host's endianness and alignment never matter), and a
 * bounded text builder for formatters (no snprintf in a freestanding core).
 */
#ifndef PCAM_UTIL_H
#define PCAM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam/pcam_config.h"
#include "pcam/pcam_err.h"

/* A freestanding implementation must still provide these four; declaring
 * them here keeps the core free of <string.h>. The prototypes match ISO C,
 * so a hosted build that also sees <string.h> is fine. */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#define PCAM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The message builders' copy out: n, or PCAM_ERR_NULL for no buffer,
 * PCAM_ERR_NOSPACE when cap is short. Inline: IDENTIFY and the tag go
 * out through it on every command. */
static inline int pcam_put_bytes(uint8_t *buf, size_t cap, const uint8_t *src, size_t n)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (cap < n)
        return PCAM_ERR_NOSPACE;
    memcpy(buf, src, n);
    return (int)n;
}

static inline uint16_t pcam_get_be16(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}
static inline uint32_t pcam_get_be24(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}
static inline uint32_t pcam_get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t pcam_get_be64(const uint8_t *p)
{
    return ((uint64_t)pcam_get_be32(p) << 32) | pcam_get_be32(p + 4);
}
static inline void pcam_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void pcam_put_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}
static inline void pcam_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void pcam_put_be64(uint8_t *p, uint64_t v)
{
    pcam_put_be32(p, (uint32_t)(v >> 32));
    pcam_put_be32(p + 4, (uint32_t)v);
}
/* Little-endian fields: PCI chips' in-memory structures (hal/sym's SCRIPTS
 * and rings, hal/mpt's MPI frames) whatever the host's byte order. */
static inline uint16_t pcam_get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((unsigned)p[1] << 8));
}
static inline uint32_t pcam_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline void pcam_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/*
 * Bounded text builder. Appends never overflow: once the buffer is full the
 * text is cut (always NUL-terminated when cap > 0) and `overflow` is set, so
 * a formatter can report PCAM_ERR_NOSPACE while still giving a usable prefix.
 */
/* A CDB builder's common start (core/proto/cdb.c): fail with
 * PCAM_ERR_NOSPACE if cap < n, else zero the n bytes and return n. */
int pcam_cdb_claim(uint8_t *cdb, size_t cap, unsigned n);

/* 1 << n for a 64-bit mask (n < 64). A variable 64-bit shift is a libgcc
 * call (__ashldi3) on 32-bit targets without a funnel shift; two 32-bit
 * halves keep the per-command path free of runtime helpers. */
static inline uint64_t pcam_bit64(unsigned n)
{
    return n < 32u ? (uint64_t)(1u << n) : (uint64_t)(1u << (n - 32u)) << 32;
}

typedef struct pcam_strbuf {
    char *buf;
    size_t cap;
    size_t len;
    bool overflow;
} pcam_strbuf;

void pcam_sb_init(pcam_strbuf *sb, char *buf, size_t cap);
void pcam_sb_putc(pcam_strbuf *sb, char c);
void pcam_sb_puts(pcam_strbuf *sb, const char *s);
/* Unsigned decimal. */
void pcam_sb_putu(pcam_strbuf *sb, uint64_t v);
/* Hex without prefix, upper case, at least `min_digits` digits. */
void pcam_sb_puthex(pcam_strbuf *sb, uint64_t v, unsigned min_digits);

#endif /* PCAM_UTIL_H */
