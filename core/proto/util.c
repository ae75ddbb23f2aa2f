/* SPDX-License-Identifier: BSD-2-Clause */
/* Result-code text and the bounded text builder (see pcam_util.h). */
#include "pcam/pcam_err.h"
#include "pcam_util.h"

const char *pcam_strerror(int err)
{
    switch (err) {
    case PCAM_OK: return "success";
    case PCAM_ERR_NULL: return "required pointer argument is NULL";
    case PCAM_ERR_TRUNCATED: return "input is truncated";
    case PCAM_ERR_LENGTH: return "length does not match the format";
    case PCAM_ERR_RANGE: return "value out of range for its field";
    case PCAM_ERR_NOSPACE: return "output buffer too small";
    case PCAM_ERR_FORMAT: return "unknown or invalid format";
    case PCAM_ERR_RESERVED: return "reserved or undefined code";
    case PCAM_ERR_UNSUPPORTED: return "not supported";
    default: return "unknown error";
    }
}

void pcam_sb_init(pcam_strbuf *sb, char *buf, size_t cap)
{
    sb->buf = buf;
    sb->cap = cap;
    sb->len = 0;
    sb->overflow = (buf == NULL || cap == 0);
    if (buf != NULL && cap > 0)
        buf[0] = '\0';
}

void pcam_sb_putc(pcam_strbuf *sb, char c)
{
    if (sb->buf == NULL || sb->len + 1 >= sb->cap) {
        sb->overflow = true;
        return;
    }
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = '\0';
}

void pcam_sb_puts(pcam_strbuf *sb, const char *s)
{
    if (s == NULL)
        s = "(null)";
    while (*s != '\0')
        pcam_sb_putc(sb, *s++);
}

void pcam_sb_putu(pcam_strbuf *sb, uint64_t v)
{
    char tmp[20];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + (unsigned)(v % 10u));
        v /= 10u;
    } while (v != 0 && n < sizeof tmp);
    while (n > 0)
        pcam_sb_putc(sb, tmp[--n]);
}

void pcam_sb_puthex(pcam_strbuf *sb, uint64_t v, unsigned min_digits)
{
    static const char digits[] = "0123456789ABCDEF";
    char tmp[16];
    unsigned n = 0;
    do {
        tmp[n++] = digits[v & 0xFu];
        v >>= 4;
    } while (v != 0 && n < sizeof tmp);
    while (n < min_digits && n < sizeof tmp)
        tmp[n++] = '0';
    while (n > 0)
        pcam_sb_putc(sb, tmp[--n]);
}
