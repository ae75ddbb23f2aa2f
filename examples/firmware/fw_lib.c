/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_lib.c: the few C library pieces a freestanding pcam needs (memcpy,
 * memset, memmove, memcmp: the compiler may emit calls to them for struct
 * copies even in -ffreestanding code) and the firmware's console printf.
 * No libc is linked. It must never divide 64-bit numbers with the '/'
 * operator: on 32-bit CPUs that is a call into a runtime library the
 * MIPS toolchain does not have.
 */
#include <stdarg.h>

#include "fw.h"

void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    while (n-- > 0)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if (d < s) {
        while (n-- > 0)
            *d++ = *s++;
    } else {
        while (n-- > 0)
            d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;

    while (n-- > 0)
        *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

size_t fw_strlen(const char *s)
{
    size_t n = 0;

    while (s[n] != '\0')
        n++;
    return n;
}

/* q = n / d, returns n % d; shift-and-subtract, so no runtime helper. */
uint64_t fw_divmod(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0, r = 0;

    for (int i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d) {
            r -= d;
            q |= (uint64_t)1 << i;
        }
    }
    if (rem != NULL)
        *rem = r;
    return q;
}

void fw_puts(const char *s)
{
    while (*s != '\0') {
        if (*s == '\n')
            board_putc('\r');
        board_putc(*s++);
    }
}

static void put_num(uint64_t v, unsigned base, int width, char pad, bool neg)
{
    char buf[24];
    int n = 0;

    do {
        uint64_t r;
        v = fw_divmod(v, base, &r);
        buf[n++] = "0123456789abcdef"[r];
    } while (v != 0);
    if (neg)
        buf[n++] = '-';
    while (width-- > n)
        board_putc(pad);
    while (n > 0)
        board_putc(buf[--n]);
}

/* %s %c %d %u %x with an optional 0 flag, width, and l/ll/z length. */
void fw_printf(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    for (; *fmt != '\0'; fmt++) {
        if (*fmt != '%') {
            if (*fmt == '\n')
                board_putc('\r');
            board_putc(*fmt);
            continue;
        }
        char pad = ' ';
        int width = 0, lng = 0;
        fmt++;
        if (*fmt == '0')
            pad = '0';
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        while (*fmt == 'l' || *fmt == 'z') {
            lng += *fmt == 'z' ? (sizeof(size_t) > 4 ? 2 : 0) : 1;
            fmt++;
        }
        switch (*fmt) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            int len = (int)fw_strlen(s);
            while (width-- > len)
                board_putc(' ');
            fw_puts(s);
            break;
        }
        case 'c':
            board_putc((char)va_arg(ap, int));
            break;
        case 'd': {
            long long v = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
            put_num(v < 0 ? (uint64_t)-v : (uint64_t)v, 10, width, pad, v < 0);
            break;
        }
        case 'u':
        case 'x': {
            uint64_t v = lng >= 2 ? va_arg(ap, unsigned long long)
                         : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            put_num(v, *fmt == 'x' ? 16 : 10, width, pad, false);
            break;
        }
        case '%':
            board_putc('%');
            break;
        default:
            board_putc('?');
            break;
        }
    }
    va_end(ap);
}
