/* SPDX-License-Identifier: BSD-2-Clause */
/* The bounded text builder every formatter writes through (pcam_util.h): it
 * truncates and marks overflow, and never writes past the buffer. */
#include "pcam_util.h"

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
