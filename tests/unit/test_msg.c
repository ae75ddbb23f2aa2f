/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPI messages and period factors. Every expected byte below is worked out
 * by hand from the SPI-3/SPI-4 message tables (codes as in FreeBSD's
 * cam/scsi/scsi_message.h) and the SPI-4/SPI-5 period-factor table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam_msg.h"
#include "pcam/pcam_err.h"

/* Feed bytes one at a time and check every return value; the last one is
 * what the whole message produced. */
static void feed_expect(const uint8_t *bytes, const int *expect, size_t n, pcam_msg *out)
{
    pcam_msg_parser p;
    size_t i;
    pcam_msg_parser_init(&p);
    for (i = 0; i < n; i++) {
        int rc = pcam_msg_parser_feed(&p, bytes[i], out);
        if (rc != expect[i])
            fail_msg("byte %zu (0x%02X): got %d, want %d", i, bytes[i], rc, expect[i]);
    }
    /* Whether done or failed, the parser is ready for a new message. */
    assert_false(pcam_msg_parser_busy(&p));
}

static void one_byte_messages(void **state)
{
    (void)state;
    static const struct {
        uint8_t code;
        pcam_msg_kind kind;
        bool flag;
    } t[] = {
        {0x00, PCAM_MSGK_COMMAND_COMPLETE, false},
        {0x02, PCAM_MSGK_SAVE_DATA_POINTER, false},
        {0x03, PCAM_MSGK_RESTORE_POINTERS, false},
        {0x04, PCAM_MSGK_DISCONNECT, false},
        {0x05, PCAM_MSGK_INITIATOR_DETECTED_ERROR, false},
        {0x06, PCAM_MSGK_ABORT_TASK_SET, false},
        {0x07, PCAM_MSGK_MESSAGE_REJECT, false},
        {0x08, PCAM_MSGK_NO_OPERATION, false},
        {0x09, PCAM_MSGK_MESSAGE_PARITY_ERROR, false},
        {0x0A, PCAM_MSGK_LINKED_COMMAND_COMPLETE, false},
        {0x0B, PCAM_MSGK_LINKED_COMMAND_COMPLETE, true},
        {0x0C, PCAM_MSGK_TARGET_RESET, false},
        {0x0D, PCAM_MSGK_ABORT_TASK, false},
        {0x0E, PCAM_MSGK_CLEAR_TASK_SET, false},
        {0x16, PCAM_MSGK_CLEAR_ACA, false},
        {0x17, PCAM_MSGK_LOGICAL_UNIT_RESET, false},
        {0x55, PCAM_MSGK_QAS_REQUEST, false},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t b[1];
        pcam_msg m;
        size_t used = 99;
        assert_int_equal(pcam_msg_build_byte(b, sizeof b, t[i].code), 1);
        assert_int_equal(b[0], t[i].code);
        assert_int_equal(pcam_msg_decode(b, 1, &m, &used), 0);
        assert_int_equal(used, 1);
        assert_int_equal(m.kind, t[i].kind);
        assert_int_equal(m.code, t[i].code);
        assert_int_equal(m.length, 1);
        assert_int_equal(m.linked_flag, t[i].flag);
    }
    /* The aliases carry the same codes as the SPI-3 names. */
    assert_int_equal(PCAM_MSG_BUS_DEVICE_RESET, 0x0C);
    assert_int_equal(PCAM_MSG_ABORT_TAG, 0x0D);
}

static void reserved_one_byte_codes(void **state)
{
    (void)state;
    /* 0x0F..0x13 obsolete, 0x14/0x15 and 0x18..0x1F reserved, 0x30..0x7F
     * reserved except QAS REQUEST 0x55. */
    static const uint8_t codes[] = {0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x18,
                                    0x1F, 0x30, 0x54, 0x56, 0x7F};
    size_t i;
    for (i = 0; i < sizeof codes; i++) {
        pcam_msg m;
        size_t used = 0;
        assert_int_equal(pcam_msg_decode(&codes[i], 1, &m, &used), PCAM_ERR_RESERVED);
        assert_int_equal(used, 1);
        assert_int_equal(m.kind, PCAM_MSGK_RESERVED);
        assert_int_equal(m.code, codes[i]);
    }
    /* The generic builder sends any one-byte-format code, so a simulated
     * target can provoke MESSAGE REJECT; the other formats are refused. */
    uint8_t b[1] = {0xAA};
    assert_int_equal(pcam_msg_build_byte(b, 1, 0x14), 1);
    assert_int_equal(pcam_msg_build_byte(b, 1, 0x01), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_byte(b, 1, 0x20), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_byte(b, 1, 0x2F), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_byte(b, 1, 0x80), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_byte(b, 0, 0x00), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_msg_build_byte(NULL, 1, 0x00), PCAM_ERR_NULL);
}

static void identify_both_ways(void **state)
{
    (void)state;
    uint8_t lun;
    for (lun = 0; lun < 8; lun++) {
        int d;
        for (d = 0; d < 2; d++) {
            uint8_t b[1];
            pcam_msg m;
            /* 1 DiscPriv 0 00 LUN */
            uint8_t want = (uint8_t)(0x80 | (d ? 0x40 : 0) | lun);
            assert_int_equal(pcam_msg_build_identify(b, 1, lun, d != 0), 1);
            assert_int_equal(b[0], want);
            assert_int_equal(pcam_msg_decode(b, 1, &m, NULL), 0);
            assert_int_equal(m.kind, PCAM_MSGK_IDENTIFY);
            assert_int_equal(m.identify.lun, lun);
            assert_int_equal(m.identify.disconnect_ok, d != 0);
        }
    }
    uint8_t b[1];
    assert_int_equal(pcam_msg_build_identify(b, 1, 8, true), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_identify(b, 0, 0, true), PCAM_ERR_NOSPACE);

    pcam_msg m;
    /* Reserved bits 4-3 set: malformed. */
    b[0] = 0x88;
    assert_int_equal(pcam_msg_decode(b, 1, &m, NULL), PCAM_ERR_FORMAT);
    assert_int_equal(m.kind, PCAM_MSGK_MALFORMED);
    b[0] = 0xD0;
    assert_int_equal(pcam_msg_decode(b, 1, &m, NULL), PCAM_ERR_FORMAT);
    /* LUNTAR (target routine): not supported, rejected as reserved. */
    b[0] = 0xA0;
    assert_int_equal(pcam_msg_decode(b, 1, &m, NULL), PCAM_ERR_RESERVED);
    assert_int_equal(m.kind, PCAM_MSGK_RESERVED);
    assert_int_equal(m.code, 0xA0);
}

static void tag_messages_both_ways(void **state)
{
    (void)state;
    static const struct {
        uint8_t code, tag;
        pcam_msg_kind kind;
    } t[] = {
        {0x20, 0x05, PCAM_MSGK_SIMPLE_TAG},
        {0x21, 0xFF, PCAM_MSGK_HEAD_OF_QUEUE_TAG},
        {0x22, 0x00, PCAM_MSGK_ORDERED_TAG},
        {0x24, 0x80, PCAM_MSGK_ACA_TAG},
    };
    static const int seq[2] = {1, 0};
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t b[2];
        pcam_msg m;
        assert_int_equal(pcam_msg_build_tag(b, sizeof b, t[i].code, t[i].tag), 2);
        assert_int_equal(b[0], t[i].code);
        assert_int_equal(b[1], t[i].tag);
        feed_expect(b, seq, 2, &m);
        assert_int_equal(m.kind, t[i].kind);
        assert_int_equal(m.tag, t[i].tag);
        assert_int_equal(m.length, 2);
    }
    uint8_t b[2];
    assert_int_equal(pcam_msg_build_tag(b, 2, 0x23, 1), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_tag(b, 2, 0x25, 1), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_tag(b, 1, 0x20, 1), PCAM_ERR_NOSPACE);
}

static void ignore_wide_residue(void **state)
{
    (void)state;
    uint8_t b[2];
    pcam_msg m;
    uint8_t c;
    for (c = 1; c <= 3; c++) {
        assert_int_equal(pcam_msg_build_ignore_wide_residue(b, 2, c), 2);
        assert_int_equal(b[0], 0x23);
        assert_int_equal(b[1], c);
        assert_int_equal(pcam_msg_decode(b, 2, &m, NULL), 0);
        assert_int_equal(m.kind, PCAM_MSGK_IGNORE_WIDE_RESIDUE);
        assert_int_equal(m.residue, c);
    }
    assert_int_equal(pcam_msg_build_ignore_wide_residue(b, 2, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_ignore_wide_residue(b, 2, 4), PCAM_ERR_RANGE);
    /* Counts 00h and 04h..FFh are reserved. */
    static const uint8_t zero[2] = {0x23, 0x00}, four[2] = {0x23, 0x04};
    size_t used = 0;
    assert_int_equal(pcam_msg_decode(zero, 2, &m, &used), PCAM_ERR_RANGE);
    assert_int_equal(used, 2);
    assert_int_equal(m.kind, PCAM_MSGK_MALFORMED);
    assert_int_equal(pcam_msg_decode(four, 2, &m, NULL), PCAM_ERR_RANGE);
    assert_int_equal(m.residue, 4);
}

static void reserved_two_byte_codes(void **state)
{
    (void)state;
    uint8_t code;
    for (code = 0x25; code <= 0x2F; code++) {
        uint8_t b[2] = {code, 0x42};
        static const int seq[2] = {1, PCAM_ERR_RESERVED};
        pcam_msg m;
        feed_expect(b, seq, 2, &m);
        assert_int_equal(m.kind, PCAM_MSGK_RESERVED);
        assert_int_equal(m.length, 2);
    }
}

static void sdtr_both_ways(void **state)
{
    (void)state;
    /* 01h, length 03h, code 01h, period factor, offset. */
    static const uint8_t want[5] = {0x01, 0x03, 0x01, 0x0C, 0x0F};
    static const int seq[5] = {1, 3, 2, 1, 0};
    uint8_t b[8];
    pcam_msg m;
    char text[80];

    assert_int_equal(pcam_msg_build_sdtr(b, sizeof b, 0x0C, 15), 5);
    assert_memory_equal(b, want, 5);
    feed_expect(want, seq, 5, &m);
    assert_int_equal(m.kind, PCAM_MSGK_SDTR);
    assert_int_equal(m.code, 0x01);
    assert_int_equal(m.ext_code, 0x01);
    assert_int_equal(m.ext_length, 3);
    assert_int_equal(m.length, 5);
    assert_int_equal(m.sdtr.period, 0x0C);
    assert_int_equal(m.sdtr.offset, 15);
    assert_int_equal(pcam_msg_format(&m, text, sizeof text), 37);
    assert_string_equal(text, "SDTR period=0x0C (50.00 ns) offset=15");

    /* Offset 0 is the asynchronous answer. */
    static const uint8_t async[5] = {0x01, 0x03, 0x01, 0x19, 0x00};
    assert_int_equal(pcam_msg_decode(async, 5, &m, NULL), 0);
    assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
    assert_string_equal(text, "SDTR period=0x19 (100.00 ns) offset=0 (asynchronous)");

    assert_int_equal(pcam_msg_build_sdtr(b, 4, 0x0C, 15), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_msg_build_sdtr(NULL, 5, 0x0C, 15), PCAM_ERR_NULL);
}

static void wdtr_both_ways(void **state)
{
    (void)state;
    static const uint8_t want[4] = {0x01, 0x02, 0x03, 0x01};
    static const int seq[4] = {1, 2, 1, 0};
    uint8_t b[4];
    pcam_msg m;
    char text[64];

    assert_int_equal(pcam_msg_build_wdtr(b, sizeof b, PCAM_WIDTH_16BIT), 4);
    assert_memory_equal(b, want, 4);
    feed_expect(want, seq, 4, &m);
    assert_int_equal(m.kind, PCAM_MSGK_WDTR);
    assert_int_equal(m.wdtr_width_exp, 1);
    assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
    assert_string_equal(text, "WDTR width_exp=1 (16 bit)");
    assert_int_equal(pcam_msg_build_wdtr(b, sizeof b, 3), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_wdtr(b, 3, 0), PCAM_ERR_NOSPACE);

    /* A target may propose a reserved exponent; decoding keeps it for the
     * negotiator to refuse. */
    static const uint8_t odd[4] = {0x01, 0x02, 0x03, 0x07};
    assert_int_equal(pcam_msg_decode(odd, 4, &m, NULL), 0);
    assert_int_equal(m.wdtr_width_exp, 7);
    assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
    assert_string_equal(text, "WDTR width_exp=7 (reserved)");
}

static void ppr_both_ways(void **state)
{
    (void)state;
    /* 01h, 06h, 04h, period, reserved, offset, width, options. */
    static const uint8_t want[8] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x3E, 0x01, 0x06};
    static const int seq[8] = {1, 6, 5, 4, 3, 2, 1, 0};
    uint8_t b[8];
    pcam_msg m;
    char text[PCAM_MSG_TEXT_MAX];

    assert_int_equal(pcam_msg_build_ppr(b, sizeof b, 0x09, 62, 1,
                                        PCAM_PPR_DT_REQ | PCAM_PPR_QAS_REQ), 8);
    assert_memory_equal(b, want, 8);
    feed_expect(want, seq, 8, &m);
    assert_int_equal(m.kind, PCAM_MSGK_PPR);
    assert_int_equal(m.ppr.period, 0x09);
    assert_int_equal(m.ppr.offset, 62);
    assert_int_equal(m.ppr.width_exp, 1);
    assert_int_equal(m.ppr.options, 0x06);
    assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
    assert_string_equal(text, "PPR period=0x09 (12.50 ns) offset=62 width_exp=1 (16 bit) "
                              "options=0x06 (DT_REQ QAS_REQ)");

    /* The reserved byte is ignored on receipt. */
    static const uint8_t junk[8] = {0x01, 0x06, 0x04, 0x08, 0xAA, 0x7F, 0x01, 0xFF};
    assert_int_equal(pcam_msg_decode(junk, 8, &m, NULL), 0);
    assert_int_equal(m.ppr.period, 0x08);
    assert_int_equal(m.ppr.offset, 0x7F);
    assert_int_equal(m.ppr.options, 0xFF);
    assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
    assert_string_equal(text, "PPR period=0x08 (6.25 ns) offset=127 width_exp=1 (16 bit) "
                              "options=0xFF (IU_REQ DT_REQ QAS_REQ HOLD_MCS WR_FLOW "
                              "RD_STRM RTI PCOMP_EN)");

    /* The longest text any message can produce still fits. */
    static const uint8_t longest[8] = {0x01, 0x06, 0x04, 0xFF, 0x00, 0xFF, 0xFF, 0xFF};
    assert_int_equal(pcam_msg_decode(longest, 8, &m, NULL), 0);
    assert_int_equal(pcam_msg_format(&m, text, sizeof text), 139);

    assert_int_equal(pcam_msg_build_ppr(b, 8, 0x09, 62, 3, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_msg_build_ppr(b, 7, 0x09, 62, 1, 0), PCAM_ERR_NOSPACE);
}

static void modify_data_pointer_both_ways(void **state)
{
    (void)state;
    static const struct {
        int32_t arg;
        uint8_t be[4];
        const char *text;
    } t[] = {
        {-512, {0xFF, 0xFF, 0xFE, 0x00}, "MODIFY DATA POINTER argument=-512"},
        {0x12345678, {0x12, 0x34, 0x56, 0x78}, "MODIFY DATA POINTER argument=305419896"},
        {INT32_MIN, {0x80, 0x00, 0x00, 0x00}, "MODIFY DATA POINTER argument=-2147483648"},
        {INT32_MAX, {0x7F, 0xFF, 0xFF, 0xFF}, "MODIFY DATA POINTER argument=2147483647"},
        {0, {0, 0, 0, 0}, "MODIFY DATA POINTER argument=0"},
    };
    static const int seq[7] = {1, 5, 4, 3, 2, 1, 0};
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t b[7];
        pcam_msg m;
        char text[64];
        assert_int_equal(pcam_msg_build_modify_data_pointer(b, sizeof b, t[i].arg), 7);
        assert_int_equal(b[0], 0x01);
        assert_int_equal(b[1], 0x05);
        assert_int_equal(b[2], 0x00);
        assert_memory_equal(b + 3, t[i].be, 4);
        feed_expect(b, seq, 7, &m);
        assert_int_equal(m.kind, PCAM_MSGK_MODIFY_DATA_POINTER);
        assert_true(m.mdp_argument == t[i].arg);
        assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
        assert_string_equal(text, t[i].text);
    }
    uint8_t b[7];
    assert_int_equal(pcam_msg_build_modify_data_pointer(b, 6, 1), PCAM_ERR_NOSPACE);
}

static void malformed_extended_lengths(void **state)
{
    (void)state;
    pcam_msg m;

    /* Length 0: rejected at the length byte. */
    static const uint8_t zero[2] = {0x01, 0x00};
    static const int zseq[2] = {1, PCAM_ERR_LENGTH};
    feed_expect(zero, zseq, 2, &m);
    assert_int_equal(m.kind, PCAM_MSGK_MALFORMED);
    assert_int_equal(m.length, 2);
    assert_int_equal(m.ext_length, 0);

    /* Known codes with the wrong length: rejected at the code byte. */
    static const struct {
        uint8_t len, code;
    } t[] = {
        {2, 0x01}, {4, 0x01}, {1, 0x03}, {3, 0x03}, {5, 0x04}, {7, 0x04}, {4, 0x00}, {6, 0x00},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t b[3] = {0x01, t[i].len, t[i].code};
        int seq[3] = {1, t[i].len, PCAM_ERR_LENGTH};
        size_t used = 0;
        feed_expect(b, seq, 3, &m);
        assert_int_equal(m.kind, PCAM_MSGK_MALFORMED);
        assert_int_equal(m.ext_code, t[i].code);
        assert_int_equal(m.ext_length, t[i].len);
        assert_int_equal(m.length, 3);
        assert_int_equal(pcam_msg_decode(b, 3, &m, &used), PCAM_ERR_LENGTH);
        assert_int_equal(used, 3);
    }
}

static void unknown_extended_consumed_then_reserved(void **state)
{
    (void)state;
    pcam_msg m;

    /* EXTENDED IDENTIFY (SCSI-1, length 2): all four bytes are taken. */
    static const uint8_t xid[4] = {0x01, 0x02, 0x02, 0x11};
    static const int xseq[4] = {1, 2, 1, PCAM_ERR_RESERVED};
    feed_expect(xid, xseq, 4, &m);
    assert_int_equal(m.kind, PCAM_MSGK_RESERVED);
    assert_int_equal(m.ext_code, 0x02);
    assert_int_equal(m.length, 4);

    /* Length 1: the code byte is the last. */
    static const uint8_t one[3] = {0x01, 0x01, 0x7E};
    static const int oseq[3] = {1, 1, PCAM_ERR_RESERVED};
    feed_expect(one, oseq, 3, &m);
    assert_int_equal(m.length, 3);

    /* The longest possible: 255 bytes after the length, none stored. */
    pcam_msg_parser p;
    int i, rc;
    pcam_msg_parser_init(&p);
    assert_int_equal(pcam_msg_parser_feed(&p, 0x01, &m), 1);
    assert_int_equal(pcam_msg_parser_feed(&p, 0xFF, &m), 255);
    assert_int_equal(pcam_msg_parser_feed(&p, 0x7E, &m), 254);
    for (i = 253; i >= 1; i--) {
        rc = pcam_msg_parser_feed(&p, (uint8_t)i, &m);
        assert_int_equal(rc, i);
        assert_true(pcam_msg_parser_busy(&p));
    }
    assert_int_equal(pcam_msg_parser_feed(&p, 0x00, &m), PCAM_ERR_RESERVED);
    assert_int_equal(m.length, 257);
    assert_int_equal(m.ext_length, 255);
    assert_int_equal(m.ext_code, 0x7E);
    assert_false(pcam_msg_parser_busy(&p));
}

static void parser_recovers_after_error(void **state)
{
    (void)state;
    /* A bad extended header, then IDENTIFY, then a SIMPLE tag. */
    static const uint8_t s[] = {0x01, 0x00, 0xC2, 0x20, 0x09};
    static const int seq[] = {1, PCAM_ERR_LENGTH, 0, 1, 0};
    pcam_msg m;
    feed_expect(s, seq, 3, &m);
    assert_int_equal(m.kind, PCAM_MSGK_IDENTIFY);
    assert_int_equal(m.identify.lun, 2);
    feed_expect(s + 3, seq + 3, 2, &m);
    assert_int_equal(m.kind, PCAM_MSGK_SIMPLE_TAG);
    assert_int_equal(m.tag, 9);
}

static void decode_buffers_and_bytes_needed(void **state)
{
    (void)state;
    static const uint8_t s[] = {0xC0, 0x20, 0x07, 0x01, 0x03, 0x01, 0x0C, 0x0F, 0x00};
    static const size_t lens[] = {1, 2, 5, 1};
    static const pcam_msg_kind kinds[] = {PCAM_MSGK_IDENTIFY, PCAM_MSGK_SIMPLE_TAG,
                                          PCAM_MSGK_SDTR, PCAM_MSGK_COMMAND_COMPLETE};
    size_t pos = 0, i;
    pcam_msg m;
    for (i = 0; i < 4; i++) {
        size_t used = 0;
        assert_int_equal(pcam_msg_decode(s + pos, sizeof s - pos, &m, &used), 0);
        assert_int_equal(used, lens[i]);
        assert_int_equal(m.kind, kinds[i]);
        pos += used;
    }
    assert_int_equal(pos, sizeof s);

    /* Incomplete buffers: how many more, nothing consumed, out untouched. */
    size_t used = 77;
    m.kind = PCAM_MSGK_PPR;
    assert_int_equal(pcam_msg_decode(s + 3, 3, &m, &used), 2);
    assert_int_equal(used, 0);
    assert_int_equal(m.kind, PCAM_MSGK_PPR);
    assert_int_equal(pcam_msg_decode(NULL, 0, &m, &used), 1);

    static const uint8_t ppr[8] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x3E, 0x01, 0x06};
    static const int need[9] = {1, 1, 6, 5, 4, 3, 2, 1, 0};
    for (i = 0; i <= 8; i++)
        assert_int_equal(pcam_msg_bytes_needed(ppr, i), need[i]);
    assert_int_equal(pcam_msg_bytes_needed(s, 1), 0);
    assert_int_equal(pcam_msg_bytes_needed(s + 1, 1), 1);
    assert_int_equal(pcam_msg_bytes_needed(s, sizeof s), 0);
    static const uint8_t bad[2] = {0x01, 0x00};
    assert_int_equal(pcam_msg_bytes_needed(bad, 2), PCAM_ERR_LENGTH);

    assert_int_equal(pcam_msg_decode(s, 1, NULL, NULL), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_decode(NULL, 1, &m, NULL), PCAM_ERR_NULL);
    pcam_msg_parser p;
    pcam_msg_parser_init(&p);
    assert_int_equal(pcam_msg_parser_feed(NULL, 0, &m), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_parser_feed(&p, 0, NULL), PCAM_ERR_NULL);
    pcam_msg_parser_init(NULL);
    assert_false(pcam_msg_parser_busy(NULL));
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(pcam_msg_name(0x00), "COMMAND COMPLETE");
    assert_string_equal(pcam_msg_name(0x01), "EXTENDED MESSAGE");
    assert_string_equal(pcam_msg_name(0x06), "ABORT TASK SET");
    assert_string_equal(pcam_msg_name(0x0B), "LINKED COMMAND COMPLETE (WITH FLAG)");
    assert_string_equal(pcam_msg_name(0x0C), "TARGET RESET");
    assert_string_equal(pcam_msg_name(0x0F), "INITIATE RECOVERY (obsolete)");
    assert_string_equal(pcam_msg_name(0x14), "RESERVED");
    assert_string_equal(pcam_msg_name(0x17), "LOGICAL UNIT RESET");
    assert_string_equal(pcam_msg_name(0x18), "RESERVED");
    assert_string_equal(pcam_msg_name(0x21), "HEAD OF QUEUE TAG");
    assert_string_equal(pcam_msg_name(0x23), "IGNORE WIDE RESIDUE");
    assert_string_equal(pcam_msg_name(0x24), "ACA TAG");
    assert_string_equal(pcam_msg_name(0x25), "RESERVED");
    assert_string_equal(pcam_msg_name(0x55), "QAS REQUEST");
    assert_string_equal(pcam_msg_name(0x7F), "RESERVED");
    assert_string_equal(pcam_msg_name(0x80), "IDENTIFY");
    assert_string_equal(pcam_msg_name(0xFF), "IDENTIFY");
    assert_string_equal(pcam_msg_ext_name(0x00), "MODIFY DATA POINTER");
    assert_string_equal(pcam_msg_ext_name(0x01), "SDTR");
    assert_string_equal(pcam_msg_ext_name(0x03), "WDTR");
    assert_string_equal(pcam_msg_ext_name(0x04), "PPR");
    assert_string_equal(pcam_msg_ext_name(0x06), "RESERVED");
}

static void format_texts(void **state)
{
    (void)state;
    pcam_msg m;
    char text[96];
    static const struct {
        uint8_t bytes[3];
        size_t n;
        const char *text;
    } t[] = {
        {{0xC3}, 1, "IDENTIFY lun=3 disconnect=yes"},
        {{0x80}, 1, "IDENTIFY lun=0 disconnect=no"},
        {{0x22, 0x1F}, 2, "ORDERED TAG tag=0x1F"},
        {{0x23, 0x01}, 2, "IGNORE WIDE RESIDUE count=1"},
        {{0x0B}, 1, "LINKED COMMAND COMPLETE (WITH FLAG)"},
        {{0x04}, 1, "DISCONNECT"},
        {{0x14}, 1, "RESERVED code=0x14 (RESERVED)"},
        {{0x10}, 1, "RESERVED code=0x10 (RELEASE RECOVERY (obsolete))"},
        {{0x88}, 1, "MALFORMED code=0x88 (IDENTIFY)"},
        {{0x23, 0x09}, 2, "MALFORMED code=0x23 (IGNORE WIDE RESIDUE) count=9"},
        {{0x01, 0x00}, 2, "MALFORMED code=0x01 (EXTENDED MESSAGE) length=0"},
        {{0x01, 0x02, 0x01}, 3, "MALFORMED code=0x01 (EXTENDED MESSAGE) length=2 ext=0x01 (SDTR)"},
        {{0x01, 0x01, 0x05}, 3,
         "RESERVED code=0x01 (EXTENDED MESSAGE) length=1 ext=0x05 (MODIFY BIDIRECTIONAL DATA POINTER)"},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        int rc;
        (void)pcam_msg_decode(t[i].bytes, t[i].n, &m, NULL);
        rc = pcam_msg_format(&m, text, sizeof text);
        assert_string_equal(text, t[i].text);
        assert_int_equal(rc, (int)strlen(t[i].text));
    }

    /* Special periods print from ps with two decimals, rounded. */
    static const struct {
        uint8_t f;
        const char *text;
    } p[] = {
        {0x07, "SDTR period=0x07 (3.13 ns) offset=8"},
        {0x0A, "SDTR period=0x0A (25.00 ns) offset=8"},
        {0x0B, "SDTR period=0x0B (30.30 ns) offset=8"},
        {0x0D, "SDTR period=0x0D (52.00 ns) offset=8"},
        {0xFF, "SDTR period=0xFF (1020.00 ns) offset=8"},
        {0x05, "SDTR period=0x05 (reserved) offset=8"},
    };
    for (i = 0; i < sizeof p / sizeof p[0]; i++) {
        uint8_t b[5];
        assert_int_equal(pcam_msg_build_sdtr(b, sizeof b, p[i].f, 8), 5);
        assert_int_equal(pcam_msg_decode(b, 5, &m, NULL), 0);
        assert_true(pcam_msg_format(&m, text, sizeof text) > 0);
        assert_string_equal(text, p[i].text);
    }

    /* A short buffer keeps the prefix and says so. */
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x0F};
    assert_int_equal(pcam_msg_decode(sdtr, 5, &m, NULL), 0);
    assert_int_equal(pcam_msg_format(&m, text, 10), PCAM_ERR_NOSPACE);
    assert_string_equal(text, "SDTR peri");
    assert_int_equal(pcam_msg_format(&m, text, 0), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_msg_format(NULL, text, sizeof text), PCAM_ERR_NULL);
    assert_int_equal(pcam_msg_format(&m, NULL, 10), PCAM_ERR_NULL);
}

static void period_factor_to_ps_table(void **state)
{
    (void)state;
    /* SPI-5 table: 0x07 3.125 ns, 0x08 6.25, 0x09 12.5, 0x0A 25, 0x0B 30.3,
     * 0x0C 50, then factor x 4 ns; 0x00..0x06 reserved. */
    static const struct {
        uint8_t f;
        uint32_t ps, khz;
    } t[] = {
        {0x00, 0, 0},           {0x01, 0, 0},           {0x06, 0, 0},
        {0x07, 3125, 320000},   {0x08, 6250, 160000},   {0x09, 12500, 80000},
        {0x0A, 25000, 40000},   {0x0B, 30300, 33003},   {0x0C, 50000, 20000},
        {0x0D, 52000, 19230},   {0x0E, 56000, 17857},   {0x19, 100000, 10000},
        {0x32, 200000, 5000},   {0x3E, 248000, 4032},   {0xFF, 1020000, 980},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        assert_int_equal(pcam_period_factor_to_ps(t[i].f), t[i].ps);
        assert_int_equal(pcam_period_factor_to_khz(t[i].f), t[i].khz);
    }
}

static void period_ps_to_factor_boundaries(void **state)
{
    (void)state;
    static const struct {
        uint32_t ps;
        uint8_t f;
    } t[] = {
        {0, 0x07},        {3125, 0x07},     {3126, 0x08},     {6250, 0x08},
        {6251, 0x09},     {12500, 0x09},    {12501, 0x0A},    {25000, 0x0A},
        {25001, 0x0B},    {30300, 0x0B},    {30301, 0x0C},    {50000, 0x0C},
        {50001, 0x0D},    {52000, 0x0D},    {52001, 0x0E},    {100000, 0x19},
        {100001, 0x1A},   {1019999, 0xFF},  {1020000, 0xFF},  {1020001, 0xFF},
        {UINT32_MAX, 0xFF},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (pcam_period_ps_to_factor(t[i].ps) != t[i].f)
            fail_msg("ps %u: got 0x%02X want 0x%02X", (unsigned)t[i].ps,
                     pcam_period_ps_to_factor(t[i].ps), t[i].f);
    }
    /* Round trip for every defined factor, and never faster than asked. */
    unsigned f;
    for (f = 0x07; f <= 0xFF; f++)
        assert_int_equal(pcam_period_ps_to_factor(pcam_period_factor_to_ps((uint8_t)f)), f);
    uint32_t ps;
    for (ps = 0; ps <= 1020000; ps += 997) {
        uint8_t got = pcam_period_ps_to_factor(ps);
        assert_true(pcam_period_factor_to_ps(got) >= ps);
        /* ...and the next faster factor would be too fast. */
        if (got > 0x07)
            assert_true(pcam_period_factor_to_ps((uint8_t)(got - 1)) < ps);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_byte_messages),
        cmocka_unit_test(reserved_one_byte_codes),
        cmocka_unit_test(identify_both_ways),
        cmocka_unit_test(tag_messages_both_ways),
        cmocka_unit_test(ignore_wide_residue),
        cmocka_unit_test(reserved_two_byte_codes),
        cmocka_unit_test(sdtr_both_ways),
        cmocka_unit_test(wdtr_both_ways),
        cmocka_unit_test(ppr_both_ways),
        cmocka_unit_test(modify_data_pointer_both_ways),
        cmocka_unit_test(malformed_extended_lengths),
        cmocka_unit_test(unknown_extended_consumed_then_reserved),
        cmocka_unit_test(parser_recovers_after_error),
        cmocka_unit_test(decode_buffers_and_bytes_needed),
        cmocka_unit_test(names),
        cmocka_unit_test(format_texts),
        cmocka_unit_test(period_factor_to_ps_table),
        cmocka_unit_test(period_ps_to_factor_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
