/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The INI reader of wnaspi32.dll (syntax in w32_ini.h and docs/aspi.md).
 * Untrusted input: every limit is checked before a byte is copied, and
 * each refusal says what is wrong and where.
 */
#include "w32_ini.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int w32_ini_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* The line a byte offset is on, for messages about the raw file. */
static unsigned line_of(const unsigned char *p, size_t n, size_t unit, size_t lo)
{
    unsigned line = 1;
    for (size_t i = 0; i + unit <= n; i += unit)
        if (p[i + lo] == '\n' && (unit == 1 || p[i + 1 - lo] == 0))
            line++;
    return line;
}

static int decode_utf16(const unsigned char *in, size_t len, int be, char *out, char *err, size_t cap)
{
    size_t hi = be ? 0 : 1, lo = be ? 1 : 0, n = 0;
    if (len % 2 != 0)
        return w32_ini_fail(err, cap, "the file is UTF-16 (it starts with a UTF-16 byte-order mark) but has an "
                              "odd number of bytes: it is cut short");
    for (size_t i = 2; i < len; i += 2) {
        unsigned u = (unsigned)in[i + hi] << 8 | in[i + lo];
        if (u == 0)
            return w32_ini_fail(err, cap, "line %u: a NUL character in a UTF-16 file",
                        line_of(in + 2, i - 2, 2, lo));
        if (u >= 0x80)
            return w32_ini_fail(err, cap,
                        "line %u: the file is UTF-16 (Notepad's \"Unicode\") and holds U+%04X, which is not "
                        "ASCII: wnaspi32.dll reads UTF-16 files of ASCII characters only; save it as "
                        "ANSI or UTF-8",
                        line_of(in + 2, i - 2, 2, lo), u);
        out[n++] = (char)u;
    }
    out[n] = '\0';
    return 0;
}

int w32_ini_decode(const unsigned char *in, size_t len, char *out, size_t outcap, char *err, size_t cap)
{
    if (len > W32_INI_MAX_FILE)
        return w32_ini_fail(err, cap, "the file has %lu bytes, more than the %u a wnaspi32.ini may have",
                    (unsigned long)len, W32_INI_MAX_FILE);
    if (outcap < len + 1)
        return w32_ini_fail(err, cap, "internal: decode buffer too small");
    if (len >= 2 && in[0] == 0xFF && in[1] == 0xFE)
        return decode_utf16(in, len, 0, out, err, cap);
    if (len >= 2 && in[0] == 0xFE && in[1] == 0xFF)
        return decode_utf16(in, len, 1, out, err, cap);
    size_t start = len >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF ? 3 : 0;
    for (size_t i = start; i < len; i++) {
        if (in[i] != 0)
            continue;
        /* ASCII text as UTF-16 without its mark has every other byte 0. */
        if (len - start >= 4 && (in[start + 1] == 0 || in[start] == 0))
            return w32_ini_fail(err, cap, "the file looks like UTF-16 without a byte-order mark: save it as ANSI "
                                  "or UTF-8 (or as Notepad's \"Unicode\", which writes the mark)");
        return w32_ini_fail(err, cap, "line %u: a NUL byte: this is not a text file", line_of(in + start, i - start, 1, 0));
    }
    memcpy(out, in + start, len - start);
    out[len - start] = '\0';
    return 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Trim blanks from both ends of [*b, *e). */
static void trim(const char **b, const char **e)
{
    while (*b < *e && is_blank(**b))
        (*b)++;
    while (*e > *b && is_blank((*e)[-1]))
        (*e)--;
}

/* Where the line's comment starts (a ';' or '#' first on the line or after
 * a blank, outside double quotes), or e; *open_quote says whether a '"'
 * was left open. */
static const char *comment_at(const char *b, const char *e, int *open_quote)
{
    int quoted = 0;
    for (const char *p = b; p < e; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && (*p == ';' || *p == '#') && (p == b || is_blank(p[-1])))
            return p;
    }
    *open_quote = quoted;
    return e;
}

static int one_line(const char *b, const char *e, unsigned line, char *section, size_t seccap, w32_ini_fn fn,
                    void *ctx, char *err, size_t cap)
{
    char key[W32_INI_MAX_LINE + 1], value[W32_INI_MAX_LINE + 1], comment[W32_INI_MAX_LINE + 1], why[400];
    for (const char *p = b; p < e; p++)
        if ((unsigned char)*p < 0x20 ? *p != '\t' : *p == 0x7F)
            return w32_ini_fail(err, cap, "line %u: a control character (code %u)", line, (unsigned)(unsigned char)*p);
    int open_quote = 0;
    const char *line_end = e;
    e = comment_at(b, e, &open_quote);
    const char *cb = e, *ce = line_end;
    trim(&cb, &ce);
    memcpy(comment, cb, (size_t)(ce - cb));
    comment[ce - cb] = '\0';
    trim(&b, &e);
    if (b == e)
        return 0;
    if (open_quote)
        return w32_ini_fail(err, cap, "line %u: a '\"' without its closing one", line);
    why[0] = '\0';
    if (*b == '[') {
        const char *close = memchr(b, ']', (size_t)(e - b));
        if (close == NULL)
            return w32_ini_fail(err, cap, "line %u: a section header without its ']'", line);
        if (close + 1 != e)
            return w32_ini_fail(err, cap, "line %u: text after the section header's ']'", line);
        const char *nb = b + 1, *ne = close;
        trim(&nb, &ne);
        if (nb == ne)
            return w32_ini_fail(err, cap, "line %u: an empty section name", line);
        if ((size_t)(ne - nb) >= seccap)
            return w32_ini_fail(err, cap, "line %u: a section name longer than %u characters", line,
                        (unsigned)seccap - 1);
        memcpy(section, nb, (size_t)(ne - nb));
        section[ne - nb] = '\0';
        if (fn(ctx, line, section, NULL, NULL, NULL, why, sizeof why) != 0)
            return w32_ini_fail(err, cap, "line %u: %s", line, why);
        return 0;
    }
    const char *eq = memchr(b, '=', (size_t)(e - b));
    if (eq == NULL)
        return w32_ini_fail(err, cap, "line %u: '%.*s' is not a [section], a key = value or a comment%s", line,
                    (int)(e - b > 60 ? 60 : e - b), b,
                    memchr(b, ':', (size_t)(e - b)) != NULL
                        ? " (the one-line format of earlier versions? devices go under [topology], one per "
                          "line as ID = KIND:OPTIONS)"
                        : "");
    const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
    trim(&kb, &ke);
    trim(&vb, &ve);
    if (kb == ke)
        return w32_ini_fail(err, cap, "line %u: '=' without a key before it", line);
    memcpy(key, kb, (size_t)(ke - kb));
    key[ke - kb] = '\0';
    memcpy(value, vb, (size_t)(ve - vb));
    value[ve - vb] = '\0';
    if (fn(ctx, line, section, key, value, comment[0] != '\0' ? comment : NULL, why, sizeof why) != 0)
        return w32_ini_fail(err, cap, "line %u: %s", line, why);
    return 0;
}

int w32_ini_parse(const char *text, w32_ini_fn fn, void *ctx, char *err, size_t cap)
{
    char section[64] = "";
    unsigned line = 1;
    const char *p = text;
    for (;;) {
        const char *e = p;
        while (*e != '\0' && *e != '\n' && *e != '\r')
            e++;
        if ((size_t)(e - p) > W32_INI_MAX_LINE)
            return w32_ini_fail(err, cap, "line %u is longer than %u characters", line, W32_INI_MAX_LINE);
        if (one_line(p, e, line, section, sizeof section, fn, ctx, err, cap) != 0)
            return -1;
        if (*e == '\0')
            return 0;
        p = e + (e[0] == '\r' && e[1] == '\n' ? 2 : 1);
        line++;
    }
}
