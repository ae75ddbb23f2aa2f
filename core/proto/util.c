/* SPDX-License-Identifier: BSD-2-Clause */
/* Result-code text and the bounded text builder (see pcam_util.h). */
#include "pcam/pcam_err.h"
#include "pcam_util.h"

/* The texts of PCAM_OK, PCAM_ERR_NULL (-1) ... PCAM_ERR_ABI (-9) in
 * that order, then the text of any other value: one string, no pointer table. */
static const char err_texts[] =
    "success\0"
    "required pointer argument is NULL\0"
    "input is truncated\0"
    "length does not match the format\0"
    "value out of range for its field\0"
    "output buffer too small\0"
    "unknown or invalid format\0"
    "reserved or undefined code\0"
    "not supported\0"
    "caller and library configurations differ\0"
    "unknown error";

const char *pcam_strerror(int err)
{
    const char *p = err_texts;
    unsigned skip = err <= 0 && err >= PCAM_ERR_ABI ? (unsigned)-err : 10u;
    while (skip-- > 0)
        while (*p++ != '\0')
            ;
    return p;
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
