/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The slim configuration's observable promises: with the text tables
 * switched off, decoding is unchanged (directions, LBAs, lengths, sense
 * fields) and the formatters print codes where the names were. Built only
 * against pcam_cfgslim (tests/config/CMakeLists.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_sense.h"

#if PCAM_CFG_SENSE_TEXT || PCAM_CFG_CDB_NAMES
#error "test_config_slim.c is for the slim configuration only"
#endif

static void cdb_decodes_without_names(void **state)
{
    static const uint8_t r10[10] = {0x28, 0x08, 0, 0, 0x12, 0x34, 0, 0, 0x08, 0};
    pcam_cdb_info info;
    char line[160];
    (void)state;
    assert_int_equal(pcam_cdb_decode(r10, sizeof r10, 512, &info), PCAM_OK);
    assert_string_equal(info.name, "CDB");
    assert_int_equal(info.dir, PCAM_DIR_IN);
    assert_int_equal(info.lba, 0x1234);
    assert_int_equal(info.xfer_bytes, 4096);
    assert_true(pcam_cdb_format(r10, sizeof r10, 512, line, sizeof line) > 0);
    assert_string_equal(line, "CDB opcode=0x28 len=10 lba=4660 blocks=8 bytes=4096 dir=in fua");
}

static void sense_prints_codes(void **state)
{
    static const uint8_t medium[18] = {0xF0, 0x00, 0x03, 0x00, 0x00, 0x12, 0x34, 0x0A, 0x00, 0x00,
                                       0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00};
    pcam_sense s;
    char line[160];
    (void)state;
    assert_int_equal(pcam_sense_decode(medium, sizeof medium, &s), PCAM_OK);
    assert_int_equal(s.key, 3);
    assert_int_equal(s.asc, 0x11);
    assert_true(pcam_sense_format(&s, line, sizeof line) > 0);
    assert_string_equal(line, "MEDIUM ERROR: ASC 0x11 ASCQ 0x00 (3/11/00) info=0x1234");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cdb_decodes_without_names),
        cmocka_unit_test(sense_prints_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
