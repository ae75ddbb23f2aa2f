/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Numbers in the bounded text builder (see pcam_util.h). Only the
 * formatters write numbers, so the file compiles to nothing with
 * PCAM_CFG_TEXT 0.
 */
#include "pcam_util.h"

#if PCAM_CFG_TEXT

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
#endif /* PCAM_CFG_TEXT */
