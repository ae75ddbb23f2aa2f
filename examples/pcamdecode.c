/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamdecode: decode SCSI bytes from the command line with pcam's codecs.
 *
 *   pcamdecode cdb   28 00 00 00 12 34 00 00 08 00
 *   pcamdecode sense 70 00 03 00 00 12 34 0a 00 00 00 00 11 00 00 00 00 00
 *   pcamdecode msg   80 01 03 01 0c 0f 04
 *   pcamdecode asc   11 00
 *
 * Bytes are hex, one per argument or run together ("2800000012340000 0800").
 * A malformed input is reported with the codec's reason and exit status 1.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"
#include "pcam/pcam_sense.h"

#define MAX_BYTES 512

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Parse hex bytes from argv; returns count, or -1 with a message. */
static int parse_bytes(int argc, char **argv, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            s += 2;
        size_t len = strlen(s);
        if (len == 0 || len % 2 != 0) {
            fprintf(stderr, "pcamdecode: '%s' is not a whole number of hex bytes\n", argv[i]);
            return -1;
        }
        for (size_t k = 0; k < len; k += 2) {
            int hi = hexval((unsigned char)s[k]), lo = hexval((unsigned char)s[k + 1]);
            if (hi < 0 || lo < 0) {
                fprintf(stderr, "pcamdecode: '%s' is not hex\n", argv[i]);
                return -1;
            }
            if (n == cap) {
                fprintf(stderr, "pcamdecode: more than %zu bytes\n", cap);
                return -1;
            }
            out[n++] = (uint8_t)(hi << 4 | lo);
        }
    }
    return (int)n;
}

static int do_cdb(const uint8_t *b, size_t n, uint32_t block_size)
{
    char line[256];
    pcam_cdb_info info;
    pcam_err e = pcam_cdb_decode(b, n, block_size, &info);
    pcam_cdb_format(b, n, block_size, line, sizeof line);
    printf("%s\n", line);
    return e == PCAM_OK ? 0 : 1;
}

static int do_sense(const uint8_t *b, size_t n)
{
    char line[512];
    pcam_sense s;
    pcam_err e = pcam_sense_decode(b, n, &s);
    if (e != PCAM_OK) {
        printf("invalid sense data: %s\n", pcam_strerror(e));
        return 1;
    }
    pcam_sense_format(&s, line, sizeof line);
    printf("%s\n", line);
    return 0;
}

static int do_msg(const uint8_t *b, size_t n)
{
    size_t off = 0;
    int rc = 0;
    while (off < n) {
        pcam_msg m;
        size_t used = 0;
        char line[PCAM_MSG_TEXT_MAX];
        int r = pcam_msg_decode(b + off, n - off, &m, &used);
        if (r > 0) {
            printf("incomplete message: %d more byte(s) needed\n", r);
            return 1;
        }
        pcam_msg_format(&m, line, sizeof line);
        if (r < 0) {
            printf("%s -> MESSAGE REJECT (%s)\n", line, pcam_strerror(r));
            rc = 1;
        } else {
            printf("%s\n", line);
        }
        off += used != 0 ? used : 1;
    }
    return rc;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: pcamdecode cdb [--block-size N] HEX...\n"
            "       pcamdecode sense HEX...\n"
            "       pcamdecode msg HEX...       (one or more SPI messages in a row)\n"
            "       pcamdecode asc ASC ASCQ\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint8_t b[MAX_BYTES];
    uint32_t block_size = 512;
    if (argc < 3)
        return usage();
    const char *what = argv[1];
    int first = 2;
    if (strcmp(what, "cdb") == 0 && argc > 3 && strcmp(argv[2], "--block-size") == 0) {
        char *end;
        const char *num = argv[3];
        int base = 10;
        /* Decimal unless 0x: base 0 would take "0512" as octal. */
        if (num[0] == '0' && (num[1] == 'x' || num[1] == 'X')) {
            base = 16;
            num += 2;
        }
        errno = 0;
        unsigned long v = strtoul(num, &end, base);
        if (!isxdigit((unsigned char)num[0]) || *end != '\0' || errno != 0 || v > UINT32_MAX) {
            fprintf(stderr, "pcamdecode: bad block size '%s'\n", argv[3]);
            return 2;
        }
        block_size = (uint32_t)v;
        first = 4;
    }
    int n = parse_bytes(argc - first, argv + first, b, sizeof b);
    if (n < 0)
        return 2;
    if (strcmp(what, "cdb") == 0)
        return do_cdb(b, (size_t)n, block_size);
    if (strcmp(what, "sense") == 0)
        return do_sense(b, (size_t)n);
    if (strcmp(what, "msg") == 0)
        return do_msg(b, (size_t)n);
    if (strcmp(what, "asc") == 0) {
        char line[160];
        if (n != 2)
            return usage();
        pcam_asc_format(b[0], b[1], line, sizeof line);
        printf("%02X/%02X: %s\n", b[0], b[1], line);
        return 0;
    }
    return usage();
}
