/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The INI reader of wnaspi32.dll (docs/aspi.md, "wnaspi32.ini"): plain C,
 * no Windows call, so the host build unit-tests it (tests/aspi) and fuzzes
 * it (fuzz/fuzz_wnaspi32_ini.c) exactly as the DLL runs it.
 *
 * Syntax: "[section]" lines, "key = value" lines, ";" or "#" comment lines,
 * blank lines; a ";" or "#" after a blank (outside double quotes) ends a
 * line early. Spaces and tabs around names and values are dropped. Lines end
 * in LF, CR LF or CR. A UTF-8 byte-order mark is skipped; UTF-16 (with its
 * mark, as Notepad's "Unicode" writes it) is read when every character is
 * ASCII and refused with a message otherwise.
 */
#ifndef PCAM_W32_INI_H
#define PCAM_W32_INI_H

#include <stddef.h>

/* Longest file (bytes as stored) and longest line (characters). */
#define W32_INI_MAX_FILE (64u * 1024u)
#define W32_INI_MAX_LINE 1023u

/*
 * Turn the file's bytes into NUL-terminated 8-bit text in out (outcap at
 * least len + 1): BOM dropped, UTF-16 narrowed. 0, or -1 with the reason
 * in err ("UTF-16 ...", "a NUL byte ...", "larger than ...").
 */
int w32_ini_decode(const unsigned char *in, size_t len, char *out, size_t outcap, char *err, size_t errcap);

/*
 * Called for every section header (key and value NULL) and every key=value
 * line, in file order; section is "" before the first header. comment is
 * the comment at the end of the line from its ';' or '#' (NULL: none), so
 * that a value can refuse one that cut it short. Returns 0 to go on, or -1
 * with a message in err (the parser adds "line N: ").
 */
typedef int (*w32_ini_fn)(void *ctx, unsigned line, const char *section, const char *key,
                          const char *value, const char *comment, char *err, size_t errcap);

/* Write a refusal's reason into err (printf-style, truncated to errcap) and
 * return -1: the one way the reader and its users say what is wrong. */
int w32_ini_fail(char *err, size_t errcap, const char *fmt, ...);

/* Parse decoded text. 0, or -1 with "line N: why" in err. */
int w32_ini_parse(const char *text, w32_ini_fn fn, void *ctx, char *err, size_t errcap);

#endif /* PCAM_W32_INI_H */
