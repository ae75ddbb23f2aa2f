/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * core/proto at its edges: what each codec does with a missing buffer
 * (PCAM_ERR_NULL, and the output still zeroed where the header says it is
 * zeroed first), and the texts and decodings no other test reaches: a
 * descriptor of a type SPC-5 leaves to vendors skipped for the next one,
 * a WDTR of 32 bits in words, a recovery report of a step not answered
 * and of a command whose time ran out before it was issued, a message
 * parser handed a state no parser could be in, NULL text put as
 * "(null)". Expected bytes are SPC-5 4.4.2 (descriptor sense), SPI-5
 * 4.15 (WDTR: 01h 02h 03h exponent), the texts pcam.h and pcam_msg.h give.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam.h"
#include "pcam/pcam_err.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_msg.h"
#include "pcam/pcam_sense.h"
#include "pcam_util.h"

static void test_null_buffers(void **state)
{
    (void)state;
    uint8_t b[16];
    pcam_capacity cap;
    memset(&cap, 0xAA, sizeof cap);
    assert_int_equal(pcam_read_capacity10_parse(NULL, 8, &cap), PCAM_ERR_NULL);
    assert_int_equal(cap.block_length, 0); /* zeroed first */
    assert_int_equal(pcam_read_capacity16_parse(b, 16, NULL), PCAM_ERR_NULL);
    memset(&cap, 0xAA, sizeof cap);
    assert_int_equal(pcam_read_capacity16_parse(NULL, 16, &cap), PCAM_ERR_NULL);
    assert_int_equal(cap.last_lba, 0);
    assert_int_equal(pcam_read_capacity16_build(NULL, 32, 0, 512), PCAM_ERR_NULL);

    assert_int_equal(pcam_msg_build_wdtr(NULL, 4, 1), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_build_ppr(NULL, 8, 9, 31, 1, 2), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_build_ignore_wide_residue(NULL, 2, 1), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_build_identify(NULL, 1, 0, true), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_build_tag(NULL, 2, PCAM_MSG_SIMPLE_TAG, 1), PCAM_ERR_NULL);

    pcam_lun_addr la;
    memset(&la, 0xAA, sizeof la);
    assert_int_equal(pcam_lun_decode(NULL, &la), PCAM_ERR_NULL);
    assert_int_equal(la.method, 0);
    uint32_t lb = 7, cp = 7;
    assert_int_equal(pcam_report_luns_header(NULL, 8, &lb, &cp), PCAM_ERR_NULL);
    assert_int_equal(lb, 0);
    assert_int_equal(cp, 0);
    assert_int_equal(pcam_report_luns_get(NULL, 16, 0, &la), PCAM_ERR_NULL);
    assert_int_equal(pcam_recovery_format(PCAM_RCV_ABORT, NULL, 8), PCAM_ERR_NULL);
}

static void test_descriptor_sense_vendor_skipped(void **state)
{
    (void)state;
    /* Descriptor format, current: key 0 NO SENSE, 00/01 filemark detected;
     * a vendor descriptor (80h, 2 bytes) first, then the stream commands
     * descriptor (04h, 2 bytes, byte 3 bit 7 FILEMARK). */
    static const uint8_t s[] = {0x72, 0x00, 0x00, 0x01, 0, 0, 0, 8,
                                0x80, 0x02, 0xDE, 0xAD,
                                0x04, 0x02, 0x00, 0x80};
    pcam_sense d;
    assert_int_equal(pcam_sense_decode(s, sizeof s, &d), PCAM_OK);
    assert_int_equal(d.key, 0);
    assert_int_equal(d.asc, 0x00);
    assert_int_equal(d.ascq, 0x01);
    assert_true(d.filemark);
    assert_false(d.eom);
    assert_false(d.ili);
}

static void test_wdtr_32_text(void **state)
{
    (void)state;
    uint8_t b[8];
    assert_int_equal(pcam_msg_build_wdtr(b, sizeof b, PCAM_WIDTH_32BIT), 4);
    static const uint8_t want[] = {0x01, 0x02, 0x03, 0x02};
    assert_memory_equal(b, want, 4);
    pcam_msg m;
    size_t used = 0;
    assert_int_equal(pcam_msg_decode(b, 4, &m, &used), PCAM_OK);
    assert_int_equal(used, 4);
    char t[PCAM_MSG_TEXT_MAX];
    assert_true(pcam_msg_format(&m, t, sizeof t) > 0);
    assert_non_null(strstr(t, "width_exp=2 (32 bit)"));
}

static void test_recovery_texts(void **state)
{
    (void)state;
    char t[160];
    assert_true(pcam_recovery_format(PCAM_RCV_ABORT, t, sizeof t) >= 0);
    assert_string_equal(t, "ABORT TASK not answered");
    assert_true(pcam_recovery_format(PCAM_RCV_NOT_ISSUED, t, sizeof t) >= 0);
    assert_string_equal(t, "its time ran out before it reached the target");
    assert_true(pcam_recovery_format(PCAM_RCV_NOT_ISSUED | PCAM_RCV_DEV_RESET | PCAM_RCV_DEV_RESET_OK, t,
                                     sizeof t) >= 0);
    assert_string_equal(t, "its time ran out before it reached the target, BUS DEVICE RESET taken");
}

static void test_parser_foreign_state(void **state)
{
    (void)state;
    pcam_msg_parser p;
    pcam_msg m;
    /* A state no parser reaches (more bytes than a message holds): the
     * parser starts afresh, so the byte is a whole COMMAND COMPLETE. */
    pcam_msg_parser_init(&p);
    p.have = 2 + 255;
    assert_int_equal(pcam_msg_parser_feed(&p, 0x00, &m), 0);
    assert_int_equal(m.code, PCAM_MSG_COMMAND_COMPLETE);
    pcam_msg_parser_init(&p);
    p.have = 5;
    p.total = 5; /* complete already, never fed on */
    assert_int_equal(pcam_msg_parser_feed(&p, 0x00, &m), 0);
    assert_int_equal(m.code, PCAM_MSG_COMMAND_COMPLETE);
}

static void test_strbuf_null_text(void **state)
{
    (void)state;
    char t[16];
    pcam_strbuf sb;
    pcam_sb_init(&sb, t, sizeof t);
    pcam_sb_puts(&sb, "a ");
    pcam_sb_puts(&sb, NULL);
    assert_string_equal(t, "a (null)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_buffers),
        cmocka_unit_test(test_descriptor_sense_vendor_skipped),
        cmocka_unit_test(test_wdtr_32_text),
        cmocka_unit_test(test_recovery_texts),
        cmocka_unit_test(test_parser_foreign_state),
        cmocka_unit_test(test_strbuf_null_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
