/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The compressed ASC/ASCQ table against the plain T10 list, on all 65,536
 * pairs: the text, its length, and cutting at every buffer size for the
 * longest entries. The expectation is built here from the list by a plain
 * linear search (asc_ref.h is generated from asc_list.txt at build time by
 * awk), independent of the generator that compressed it.
 *
 * Built twice: against the default core, and against the minimal
 * configuration (PCAM_CFG_SENSE_TEXT 0), where every pair must print as
 * codes only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pcam/pcam_err.h"
#include "pcam/pcam_sense.h"
#include "asc_ref.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void expected(unsigned asc, unsigned ascq, char *out, size_t cap)
{
#if PCAM_CFG_SENSE_TEXT
    for (size_t i = 0; i < ARRAY_LEN(asc_ref_exact); i++) {
        if (asc_ref_exact[i].code == (asc << 8 | ascq)) {
            snprintf(out, cap, "%s", asc_ref_exact[i].text);
            return;
        }
    }
    for (size_t i = 0; i < ARRAY_LEN(asc_ref_range); i++) {
        const char *t = asc_ref_range[i].text, *nn = strstr(t, "NN");
        if (asc_ref_range[i].asc == asc && ascq >= asc_ref_range[i].lo &&
            ascq <= asc_ref_range[i].hi) {
            snprintf(out, cap, "%.*s%02X%s", (int)(nn - t), t, ascq, nn + 2);
            return;
        }
    }
    if (asc >= 0x80 || ascq >= 0x80)
        snprintf(out, cap, "ASC 0x%02X ASCQ 0x%02X (vendor specific)", asc, ascq);
    else
        snprintf(out, cap, "Unknown ASC/ASCQ");
#else
    snprintf(out, cap, "ASC 0x%02X ASCQ 0x%02X%s", asc, ascq,
             (asc >= 0x80 || ascq >= 0x80) ? " (vendor specific)" : "");
#endif
}

static void every_pair(void **state)
{
    char want[160], got[160];
    unsigned known = 0;
    (void)state;
    for (unsigned code = 0; code < 0x10000u; code++) {
        unsigned asc = code >> 8, ascq = code & 0xFFu;
        expected(asc, ascq, want, sizeof want);
        memset(got, 0x5A, sizeof got);
        int n = pcam_asc_format((uint8_t)asc, (uint8_t)ascq, got, sizeof got);
        if (n != (int)strlen(want) || strcmp(got, want) != 0)
            fail_msg("%02X/%02X: got %d \"%s\", want \"%s\"", asc, ascq, n, got, want);
        known += pcam_asc_known((uint8_t)asc, (uint8_t)ascq);
    }
#if PCAM_CFG_SENSE_TEXT
    /* Every exact entry plus every code a range covers. */
    unsigned want_known = (unsigned)ARRAY_LEN(asc_ref_exact);
    for (size_t i = 0; i < ARRAY_LEN(asc_ref_range); i++)
        for (unsigned q = asc_ref_range[i].lo; q <= asc_ref_range[i].hi; q++) {
            int exact = 0;
            for (size_t j = 0; j < ARRAY_LEN(asc_ref_exact); j++)
                exact |= asc_ref_exact[j].code == (asc_ref_range[i].asc << 8 | q);
            want_known += !exact;
        }
    assert_int_equal(known, want_known);
    assert_true(ARRAY_LEN(asc_ref_exact) > 700);
#else
    assert_int_equal(known, 0);
#endif
}

/* A short buffer gets a clean prefix and PCAM_ERR_NOSPACE, never more. */
static void cut_at_every_size(void **state)
{
    static const uint8_t pairs[][2] = {{0x00, 0x00}, {0x04, 0x1C}, {0x28, 0x00},
                                       {0x40, 0x85}, {0x5D, 0x6C}, {0x74, 0x79}};
    char want[160], got[160];
    (void)state;
    for (size_t p = 0; p < ARRAY_LEN(pairs); p++) {
        expected(pairs[p][0], pairs[p][1], want, sizeof want);
        size_t len = strlen(want);
        for (size_t cap = 1; cap <= len + 1; cap++) {
            memset(got, 0x5A, sizeof got);
            int n = pcam_asc_format(pairs[p][0], pairs[p][1], got, cap);
            assert_int_equal(got[cap - 1 < len ? cap - 1 : len], '\0');
            assert_int_equal((unsigned char)got[cap], 0x5A);
            if (cap <= len) {
                assert_int_equal(n, PCAM_ERR_NOSPACE);
                assert_memory_equal(got, want, cap - 1);
            } else {
                assert_int_equal(n, (int)len);
                assert_string_equal(got, want);
            }
        }
    }
    assert_int_equal(pcam_asc_format(0x11, 0x00, NULL, 8), PCAM_ERR_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_pair),
        cmocka_unit_test(cut_at_every_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
