/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sense data from a target is untrusted input: decode any bytes, format the
 * result into buffers of many sizes, and check that the text always ends
 * inside the buffer and never writes past it. The first two bytes also go
 * through the ASC/ASCQ formatter, and three bytes through a build/decode
 * round trip.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_sense.h"

#define CANARY 0x5A

static void check_text(int n, const char *line, size_t cap, size_t room)
{
    const char *nul = memchr(line, '\0', cap);
    if (cap == 0) {
        if (n != PCAM_ERR_NOSPACE || line[0] != CANARY)
            abort();
        return;
    }
    if (nul == NULL)
        abort(); /* not terminated within cap */
    if (cap < room && line[cap] != CANARY)
        abort(); /* wrote past cap */
    if (n >= 0) {
        if ((size_t)n != (size_t)(nul - line) || (size_t)n >= cap)
            abort();
    } else if (n != PCAM_ERR_NOSPACE || (size_t)(nul - line) != cap - 1) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t caps[] = {0, 1, 2, 5, 16, 33, 64, 100, 300};
    char line[300];
    pcam_sense s;
    pcam_err rc = pcam_sense_decode(data, size, &s);

    if (rc != PCAM_OK && rc != PCAM_ERR_TRUNCATED && rc != PCAM_ERR_FORMAT)
        abort();
    if (s.used > size || (s.asc_valid && !s.key_valid) || (s.sks_valid && !s.key_valid))
        abort();
    if (s.format == PCAM_SENSE_FIXED && rc == PCAM_OK &&
        ((s.asc_valid && s.used < 14) || (s.sks_valid && s.used < 18)))
        abort();
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        memset(line, CANARY, sizeof line);
        check_text(pcam_sense_format(&s, line, caps[i]), line, caps[i], sizeof line);
    }
    /* A full-size line must never be cut. */
    if (pcam_sense_format(&s, line, sizeof line) < 0)
        abort();

    if (size >= 2) {
        for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
            memset(line, CANARY, sizeof line);
            check_text(pcam_asc_format(data[0], data[1], line, caps[i]), line, caps[i], sizeof line);
        }
    }

    if (size >= 3) {
        uint8_t b[32];
        uint8_t key = (uint8_t)(data[0] & 0x0F);
        bool info = (data[0] & 0x10) != 0;
        int n = (data[0] & 0x20) ? pcam_sense_build_descriptor(b, sizeof b, key, data[1], data[2], info, 0x0102030405060708ull)
                                 : pcam_sense_build_fixed(b, sizeof b, key, data[1], data[2], info, 0x01020304u);
        if (n <= 0 || pcam_sense_decode(b, (size_t)n, &s) != PCAM_OK)
            abort();
        if (!s.key_valid || s.key != key || !s.asc_valid || s.asc != data[1] || s.ascq != data[2] ||
            s.info_valid != info || s.truncated)
            abort();
    }
    return 0;
}
