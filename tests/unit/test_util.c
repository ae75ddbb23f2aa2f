/* SPDX-License-Identifier: BSD-2-Clause */
/* The result-code table and the bounded text builder every formatter uses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam_err.h"
#include "pcam_util.h"

static void strerror_covers_every_code(void **state)
{
    (void)state;
    for (int e = PCAM_ERR_ABI; e <= PCAM_OK; e++)
        assert_string_not_equal(pcam_strerror(e), "unknown error");
    assert_string_equal(pcam_strerror(-1000), "unknown error");
    assert_string_equal(pcam_strerror(PCAM_ERR_TRUNCATED), "input is truncated");
}

static void strbuf_cuts_and_flags_overflow(void **state)
{
    (void)state;
    char buf[8];
    pcam_strbuf sb;
    pcam_sb_init(&sb, buf, sizeof buf);
    pcam_sb_puts(&sb, "abc");
    pcam_sb_putu(&sb, 1234);
    assert_string_equal(buf, "abc1234");
    assert_false(sb.overflow);
    pcam_sb_putc(&sb, 'x');
    assert_true(sb.overflow);
    assert_string_equal(buf, "abc1234");
}

static void strbuf_numbers(void **state)
{
    (void)state;
    char buf[64];
    pcam_strbuf sb;
    pcam_sb_init(&sb, buf, sizeof buf);
    pcam_sb_putu(&sb, 0);
    pcam_sb_putc(&sb, ' ');
    pcam_sb_putu(&sb, UINT64_MAX);
    pcam_sb_putc(&sb, ' ');
    pcam_sb_puthex(&sb, 0x3a, 2);
    pcam_sb_putc(&sb, ' ');
    pcam_sb_puthex(&sb, 0x5, 4);
    pcam_sb_putc(&sb, ' ');
    pcam_sb_puthex(&sb, UINT64_MAX, 1);
    assert_string_equal(buf, "0 18446744073709551615 3A 0005 FFFFFFFFFFFFFFFF");
}

static void be_accessors_are_bytewise(void **state)
{
    (void)state;
    uint8_t b[9] = {0xAA, 1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(pcam_get_be16(b + 1), 0x0102);
    assert_int_equal(pcam_get_be24(b + 1), 0x010203);
    assert_int_equal(pcam_get_be32(b + 1), 0x01020304u);
    assert_true(pcam_get_be64(b + 1) == 0x0102030405060708ull);
    uint8_t o[8] = {0};
    pcam_put_be64(o, 0x1122334455667788ull);
    uint8_t want[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    assert_memory_equal(o, want, 8);
    pcam_put_be24(o, 0xABCDEF);
    assert_int_equal(o[0], 0xAB);
    assert_int_equal(o[2], 0xEF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strerror_covers_every_code),
        cmocka_unit_test(strbuf_cuts_and_flags_overflow),
        cmocka_unit_test(strbuf_numbers),
        cmocka_unit_test(be_accessors_are_bytewise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
