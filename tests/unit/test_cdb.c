/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CDB lengths, builders, decoder and formatter.
 *
 * Every expected byte string below was worked out by hand from the field
 * layouts in SPC-4 (INQUIRY 6.6, REQUEST SENSE 6.39, REPORT LUNS 6.33, MODE
 * SENSE/SELECT 6.9-6.14), SBC-3 (READ/WRITE 5.x, READ CAPACITY 5.15/5.16,
 * START STOP UNIT 5.25, SYNCHRONIZE CACHE 5.22/5.23, VERIFY 5.33-5.35, WRITE
 * SAME, COMPARE AND WRITE, the 32-byte variable-length forms), SAT-3 (ATA
 * PASS-THROUGH byte 1/2 bits) and MMC-6 (READ CD): the comment on each vector
 * names the fields it places.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam_cdb.h"

#define EXPECT_CDB(rc, buf, ...)                                                    \
    do {                                                                            \
        const uint8_t want_[] = {__VA_ARGS__};                                      \
        assert_int_equal((rc), (int)sizeof want_);                                  \
        assert_memory_equal((buf), want_, sizeof want_);                            \
    } while (0)

/* ---------------------------------------------------------------- lengths */

static void len_for_opcode_by_group(void **state)
{
    (void)state;
    for (unsigned op = 0; op < 256; op++) {
        int want;
        switch (op >> 5) {
        case 0: want = 6; break;
        case 1: case 2: want = 10; break;
        case 4: want = 16; break;
        case 5: want = 12; break;
        default: want = 0; break;
        }
        assert_int_equal(pcam_cdb_len_for_opcode((uint8_t)op), want);
    }
    assert_int_equal(pcam_cdb_len_for_opcode(0x28), 10);
    assert_int_equal(pcam_cdb_len_for_opcode(0x5F), 10);
    assert_int_equal(pcam_cdb_len_for_opcode(0x7F), 0);
    assert_int_equal(pcam_cdb_len_for_opcode(0x88), 16);
    assert_int_equal(pcam_cdb_len_for_opcode(0xA0), 12);
    assert_int_equal(pcam_cdb_len_for_opcode(0xC0), 0);
}

static void check_fixed_groups_need_exact_length(void **state)
{
    (void)state;
    uint8_t cdb[PCAM_CDB_VARLEN_MAX + 4];
    memset(cdb, 0, sizeof cdb);
    static const uint8_t ops[] = {0x00, 0x1F, 0x28, 0x5A, 0x88, 0x9F, 0xA0, 0xBF};
    for (size_t i = 0; i < sizeof ops; i++) {
        cdb[0] = ops[i];
        size_t want = (size_t)pcam_cdb_len_for_opcode(ops[i]);
        for (size_t len = 1; len <= sizeof cdb; len++)
            assert_int_equal(pcam_cdb_check(cdb, len), len == want ? PCAM_OK : PCAM_ERR_LENGTH);
    }
}

static void check_vendor_groups_accept_6_to_16(void **state)
{
    (void)state;
    uint8_t cdb[20] = {0xC0};
    for (size_t len = 1; len <= sizeof cdb; len++)
        assert_int_equal(pcam_cdb_check(cdb, len),
                         len >= 6 && len <= 16 ? PCAM_OK : PCAM_ERR_LENGTH);
    cdb[0] = 0xFF;
    assert_int_equal(pcam_cdb_check(cdb, 6), PCAM_OK);
    assert_int_equal(pcam_cdb_check(cdb, 5), PCAM_ERR_LENGTH);
}

static void check_null_empty_and_reserved(void **state)
{
    (void)state;
    uint8_t cdb[16] = {0};
    assert_int_equal(pcam_cdb_check(NULL, 6), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_check(NULL, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_check(cdb, 0), PCAM_ERR_LENGTH);
    cdb[0] = 0x60;
    assert_int_equal(pcam_cdb_check(cdb, 6), PCAM_ERR_RESERVED);
    cdb[0] = 0x7D;
    assert_int_equal(pcam_cdb_check(cdb, 16), PCAM_ERR_RESERVED);
    cdb[0] = 0x7E;
    assert_int_equal(pcam_cdb_check(cdb, 16), PCAM_ERR_UNSUPPORTED);
}

static void check_variable_length(void **state)
{
    (void)state;
    uint8_t cdb[PCAM_CDB_VARLEN_MAX + 4];
    memset(cdb, 0, sizeof cdb);
    cdb[0] = 0x7F;
    cdb[7] = 0x18; /* 8 + 24 = 32 bytes */
    assert_int_equal(pcam_cdb_check(cdb, 32), PCAM_OK);
    assert_int_equal(pcam_cdb_check(cdb, 31), PCAM_ERR_LENGTH);
    assert_int_equal(pcam_cdb_check(cdb, 33), PCAM_ERR_LENGTH);
    assert_int_equal(pcam_cdb_check(cdb, 7), PCAM_ERR_LENGTH); /* no byte 7 */
    assert_int_equal(pcam_cdb_check(cdb, 1), PCAM_ERR_LENGTH);
    cdb[7] = 0x04; /* smallest: the 2-byte service action plus 2 more */
    assert_int_equal(pcam_cdb_check(cdb, 12), PCAM_OK);
    cdb[7] = 0x00; /* no room for the service action */
    assert_int_equal(pcam_cdb_check(cdb, 8), PCAM_ERR_LENGTH);
    cdb[7] = 0x17; /* not a multiple of 4, even with the matching length */
    assert_int_equal(pcam_cdb_check(cdb, 31), PCAM_ERR_LENGTH);
    cdb[7] = 0x06; /* even but still not a multiple of 4 */
    assert_int_equal(pcam_cdb_check(cdb, 14), PCAM_ERR_LENGTH);
    cdb[7] = 0xFC; /* 252: the largest, 260 bytes */
    assert_int_equal(pcam_cdb_check(cdb, 260), PCAM_OK);
    assert_int_equal(pcam_cdb_check(cdb, 261), PCAM_ERR_LENGTH);
    cdb[7] = 0xFF;
    assert_int_equal(pcam_cdb_check(cdb, 263), PCAM_ERR_LENGTH);
}

/* --------------------------------------------------------------- builders */

static void build_simple_commands(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    /* TEST UNIT READY: opcode 00h, all else zero. */
    EXPECT_CDB(pcam_cdb_test_unit_ready(b, sizeof b), b, 0x00, 0, 0, 0, 0, 0);
    /* INQUIRY standard: EVPD 0, page 0, allocation length 36 in bytes 3-4. */
    EXPECT_CDB(pcam_cdb_inquiry(b, sizeof b, false, 0, 36), b, 0x12, 0x00, 0x00, 0x00, 0x24,
               0x00);
    /* INQUIRY VPD 83h (device identification), EVPD = byte 1 bit 0, alloc 4096. */
    EXPECT_CDB(pcam_cdb_inquiry(b, sizeof b, true, 0x83, 0x1000), b, 0x12, 0x01, 0x83, 0x10,
               0x00, 0x00);
    /* REQUEST SENSE: DESC = byte 1 bit 0, allocation length byte 4. */
    EXPECT_CDB(pcam_cdb_request_sense(b, sizeof b, 252, true), b, 0x03, 0x01, 0, 0, 0xFC, 0);
    EXPECT_CDB(pcam_cdb_request_sense(b, sizeof b, 18, false), b, 0x03, 0x00, 0, 0, 0x12, 0);
    /* REPORT LUNS: SELECT REPORT byte 2, allocation length bytes 6-9. */
    EXPECT_CDB(pcam_cdb_report_luns(b, sizeof b, 0x02, 0x00012345u), b, 0xA0, 0, 0x02, 0, 0, 0,
               0x00, 0x01, 0x23, 0x45, 0, 0);
    /* READ CAPACITY(10): opcode 25h, LBA and PMI zero. */
    EXPECT_CDB(pcam_cdb_read_capacity10(b, sizeof b), b, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    /* READ CAPACITY(16): 9Eh, service action 10h, allocation length bytes 10-13. */
    EXPECT_CDB(pcam_cdb_read_capacity16(b, sizeof b, 32), b, 0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0,
               0, 0x00, 0x00, 0x00, 0x20, 0, 0);
}

static void build_inquiry_page_without_evpd_is_range(void **state)
{
    (void)state;
    uint8_t b[6];
    memset(b, 0xEE, sizeof b);
    assert_int_equal(pcam_cdb_inquiry(b, sizeof b, false, 0x80, 255), PCAM_ERR_RANGE);
    for (size_t i = 0; i < sizeof b; i++)
        assert_int_equal(b[i], 0xEE);
}

static void build_read_write_each_size(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    /* READ(6): LBA 21 bits over byte 1 bits 4-0 and bytes 2-3; 256 blocks sent as 0. */
    EXPECT_CDB(pcam_cdb_read(b, sizeof b, 6, 0x12345, 256, 0), b, 0x08, 0x01, 0x23, 0x45, 0x00,
               0x00);
    EXPECT_CDB(pcam_cdb_read(b, sizeof b, 6, 0x12345, 8, 0), b, 0x08, 0x01, 0x23, 0x45, 0x08,
               0x00);
    /* WRITE(6) at the largest 21-bit LBA. */
    EXPECT_CDB(pcam_cdb_write(b, sizeof b, 6, 0x1FFFFF, 1, 0), b, 0x0A, 0x1F, 0xFF, 0xFF, 0x01,
               0x00);
    /* READ(10): FUA (08h) in byte 1, LBA bytes 2-5, group 6, length 7-8. */
    EXPECT_CDB(pcam_cdb_read(b, sizeof b, 10, 0x12345678, 0x0100, PCAM_CDB_FUA), b, 0x28, 0x08,
               0x12, 0x34, 0x56, 0x78, 0x00, 0x01, 0x00, 0x00);
    /* WRITE(10) of zero blocks is legal in the 10-byte form. */
    EXPECT_CDB(pcam_cdb_write(b, sizeof b, 10, 0, 0, 0), b, 0x2A, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    /* READ(12): DPO (10h), LBA bytes 2-5, length bytes 6-9. */
    EXPECT_CDB(pcam_cdb_read(b, sizeof b, 12, 0xDEADBEEF, 0x00012345, PCAM_CDB_DPO), b, 0xA8,
               0x10, 0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x01, 0x23, 0x45, 0x00, 0x00);
    EXPECT_CDB(pcam_cdb_write(b, sizeof b, 12, 1, 2, 0), b, 0xAA, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0,
               0);
    /* READ(16): LBA bytes 2-9, length bytes 10-13. */
    EXPECT_CDB(pcam_cdb_read(b, sizeof b, 16, 0x0123456789ABCDEFull, 0xFEDCBA98u, 0x18), b,
               0x88, 0x18, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98,
               0x00, 0x00);
    EXPECT_CDB(pcam_cdb_write(b, sizeof b, 16, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFu, 0), b, 0x8A,
               0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0);
}

static void build_read_smallest_that_fits(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    assert_int_equal(pcam_cdb_read(b, sizeof b, 0, 0x1000, 8, 0), 6);
    assert_int_equal(b[0], 0x08);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 0, 0x1FFFFF, 256, 0), 6);
    /* Flags need byte 1, which READ(6) does not have. */
    assert_int_equal(pcam_cdb_read(b, sizeof b, 0, 0x1000, 8, PCAM_CDB_FUA), 10);
    assert_int_equal(b[0], 0x28);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 0, 0x200000, 8, 0), 10);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 0, 0, 257, 0), 10);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 0, 0, 0, 0), 10); /* 0 is 256 in READ(6) */
    assert_int_equal(pcam_cdb_write(b, sizeof b, 0, 0xFFFFFFFFu, 0x10000, 0), 12);
    assert_int_equal(b[0], 0xAA);
    assert_int_equal(pcam_cdb_write(b, sizeof b, 0, 0x100000000ull, 1, 0), 16);
    assert_int_equal(b[0], 0x8A);
}

static void build_read_write_range(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    assert_int_equal(pcam_cdb_read(b, sizeof b, 6, 0x200000, 1, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 6, 0, 257, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 6, 0, 0, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_write(b, sizeof b, 6, 0, 1, PCAM_CDB_FUA), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 10, 0x100000000ull, 1, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 10, 0, 0x10000, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_write(b, sizeof b, 12, 0x100000000ull, 1, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 8, 0, 1, 0), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_read(b, sizeof b, 32, 0, 1, 0), PCAM_ERR_RANGE);
}

static void build_mode_sense_select(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    /* MODE SENSE(6): DBD byte 1 bit 3; PC byte 2 bits 7-6, page 5-0; subpage 3; alloc 4. */
    EXPECT_CDB(pcam_cdb_mode_sense(b, sizeof b, 6, true, 0, 0x08, 0, 0xFF), b, 0x1A, 0x08, 0x08,
               0x00, 0xFF, 0x00);
    /* PC 2 (default) | page 3Fh = BFh; all subpages FFh. */
    EXPECT_CDB(pcam_cdb_mode_sense(b, sizeof b, 6, false, 2, 0x3F, 0xFF, 0x40), b, 0x1A, 0x00,
               0xBF, 0xFF, 0x40, 0x00);
    /* MODE SENSE(10): PC 1 | page 1Ch = 5Ch; alloc bytes 7-8. */
    EXPECT_CDB(pcam_cdb_mode_sense(b, sizeof b, 10, false, 1, 0x1C, 0x01, 0x1234), b, 0x5A,
               0x00, 0x5C, 0x01, 0, 0, 0, 0x12, 0x34, 0x00);
    /* MODE SELECT(6): PF byte 1 bit 4, SP bit 0; parameter list length byte 4. */
    EXPECT_CDB(pcam_cdb_mode_select(b, sizeof b, 6, true, true, 0x18), b, 0x15, 0x11, 0, 0, 0x18,
               0);
    /* MODE SELECT(10): parameter list length bytes 7-8. */
    EXPECT_CDB(pcam_cdb_mode_select(b, sizeof b, 10, true, false, 0x0100), b, 0x55, 0x10, 0, 0,
               0, 0, 0, 0x01, 0x00, 0);

    assert_int_equal(pcam_cdb_mode_sense(b, sizeof b, 6, false, 0, 0, 0, 256), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_mode_sense(b, sizeof b, 10, false, 4, 0, 0, 8), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_mode_sense(b, sizeof b, 10, false, 0, 0x40, 0, 8), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_mode_sense(b, sizeof b, 0, false, 0, 0, 0, 8), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_mode_select(b, sizeof b, 6, true, false, 256), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_mode_select(b, sizeof b, 12, true, false, 8), PCAM_ERR_RANGE);
}

static void build_start_stop_sync_verify(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    /* START STOP UNIT: IMMED byte 1 bit 0; byte 4 = POWER CONDITION<<4 | LOEJ<<1 | START. */
    EXPECT_CDB(pcam_cdb_start_stop_unit(b, sizeof b, true, 0, true, false), b, 0x1B, 0x01, 0, 0,
               0x02, 0); /* eject */
    EXPECT_CDB(pcam_cdb_start_stop_unit(b, sizeof b, false, 0, false, true), b, 0x1B, 0, 0, 0,
               0x01, 0); /* spin up */
    EXPECT_CDB(pcam_cdb_start_stop_unit(b, sizeof b, false, 3, false, false), b, 0x1B, 0, 0, 0,
               0x30, 0); /* power condition 3h */
    assert_int_equal(pcam_cdb_start_stop_unit(b, sizeof b, false, 16, false, false),
                     PCAM_ERR_RANGE);

    /* SYNCHRONIZE CACHE(10): IMMED byte 1 bit 1; LBA 2-5; blocks 7-8. */
    EXPECT_CDB(pcam_cdb_synchronize_cache(b, sizeof b, 10, 0x100, 0x20, true), b, 0x35, 0x02, 0,
               0, 0x01, 0x00, 0, 0x00, 0x20, 0);
    /* SYNCHRONIZE CACHE(16): LBA 2-9; blocks 10-13. */
    EXPECT_CDB(pcam_cdb_synchronize_cache(b, sizeof b, 16, 0x100000000ull, 0x10000, false), b,
               0x91, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0, 0);
    /* Whole medium: smallest form. */
    EXPECT_CDB(pcam_cdb_synchronize_cache(b, sizeof b, 0, 0, 0, false), b, 0x35, 0, 0, 0, 0, 0,
               0, 0, 0, 0);
    assert_int_equal(pcam_cdb_synchronize_cache(b, sizeof b, 0, 0, 0x10000, false), 16);
    assert_int_equal(pcam_cdb_synchronize_cache(b, sizeof b, 12, 0, 1, false), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_synchronize_cache(b, sizeof b, 6, 0, 1, false), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_synchronize_cache(b, sizeof b, 10, 0x100000000ull, 1, false),
                     PCAM_ERR_RANGE);

    /* VERIFY(10): BYTCHK byte 1 bits 2-1 (01b -> 02h); LBA 2-5; length 7-8. */
    EXPECT_CDB(pcam_cdb_verify(b, sizeof b, 10, 0x1234, 0x10, 1), b, 0x2F, 0x02, 0, 0, 0x12,
               0x34, 0, 0x00, 0x10, 0);
    /* VERIFY(12): BYTCHK 0; length bytes 6-9. */
    EXPECT_CDB(pcam_cdb_verify(b, sizeof b, 12, 7, 0x00010000, 0), b, 0xAF, 0x00, 0, 0, 0, 7,
               0x00, 0x01, 0x00, 0x00, 0, 0);
    /* VERIFY(16): BYTCHK 11b -> 06h. */
    EXPECT_CDB(pcam_cdb_verify(b, sizeof b, 16, 0x1122334455667788ull, 3, 3), b, 0x8F, 0x06,
               0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 3, 0, 0);
    assert_int_equal(pcam_cdb_verify(b, sizeof b, 0, 5, 5, 0), 10);
    assert_int_equal(pcam_cdb_verify(b, sizeof b, 0, 5, 0x10000, 0), 12);
    assert_int_equal(pcam_cdb_verify(b, sizeof b, 0, 0x100000000ull, 1, 0), 16);
    assert_int_equal(pcam_cdb_verify(b, sizeof b, 10, 0, 1, 2), PCAM_ERR_RESERVED);
    assert_int_equal(pcam_cdb_verify(b, sizeof b, 10, 0, 1, 4), PCAM_ERR_RANGE);
    assert_int_equal(pcam_cdb_verify(b, sizeof b, 6, 0, 1, 0), PCAM_ERR_RANGE);
}

/* Every builder, given one byte too few, says NOSPACE and writes nothing;
 * given NULL it says NULL. */
static void build_nospace_and_null(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
#define SHORT(call, need)                                                           \
    do {                                                                            \
        memset(b, 0xEE, sizeof b);                                                  \
        size_t cap = (need) - 1;                                                    \
        assert_int_equal(call, PCAM_ERR_NOSPACE);                                   \
        for (size_t k = 0; k < sizeof b; k++)                                       \
            assert_int_equal(b[k], 0xEE);                                           \
        (void)cap;                                                                  \
    } while (0)
    SHORT(pcam_cdb_test_unit_ready(b, cap), 6);
    SHORT(pcam_cdb_inquiry(b, cap, false, 0, 36), 6);
    SHORT(pcam_cdb_request_sense(b, cap, 18, false), 6);
    SHORT(pcam_cdb_report_luns(b, cap, 0, 16), 12);
    SHORT(pcam_cdb_read_capacity10(b, cap), 10);
    SHORT(pcam_cdb_read_capacity16(b, cap, 32), 16);
    SHORT(pcam_cdb_read(b, cap, 0, 0, 1, 0), 6);
    SHORT(pcam_cdb_read(b, cap, 16, 0, 1, 0), 16);
    SHORT(pcam_cdb_write(b, cap, 12, 0, 1, 0), 12);
    SHORT(pcam_cdb_mode_sense(b, cap, 10, false, 0, 0x3F, 0, 8), 10);
    SHORT(pcam_cdb_mode_select(b, cap, 6, true, false, 8), 6);
    SHORT(pcam_cdb_start_stop_unit(b, cap, false, 0, false, true), 6);
    SHORT(pcam_cdb_synchronize_cache(b, cap, 16, 0, 0, false), 16);
    SHORT(pcam_cdb_verify(b, cap, 12, 0, 1, 0), 12);
#undef SHORT
    /* A bad value wins over a short buffer. */
    assert_int_equal(pcam_cdb_read(b, 1, 6, 0x200000, 1, 0), PCAM_ERR_RANGE);

    assert_int_equal(pcam_cdb_test_unit_ready(NULL, 16), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_inquiry(NULL, 16, true, 0, 36), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_request_sense(NULL, 16, 18, false), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_report_luns(NULL, 16, 0, 16), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_read_capacity10(NULL, 16), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_read_capacity16(NULL, 16, 32), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_read(NULL, 16, 10, 0, 1, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_write(NULL, 16, 6, 0x200000, 1, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_mode_sense(NULL, 16, 6, false, 0, 0, 0, 8), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_mode_select(NULL, 16, 6, true, false, 8), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_start_stop_unit(NULL, 16, false, 0, false, true), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_synchronize_cache(NULL, 16, 10, 0, 0, false), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_verify(NULL, 16, 10, 0, 1, 0), PCAM_ERR_NULL);
}

/* --------------------------------------------------------------- decoding */

#define NO (-1) /* field absent / length unknown / no service action */
enum { F_FUA = 1, F_DPO = 2, F_IMMED = 4 };
#define DI PCAM_DIR_IN
#define DO PCAM_DIR_OUT
#define DN PCAM_DIR_NONE
#define DU PCAM_DIR_UNKNOWN

/* One decoding vector; `what` names the fields the bytes place. */
typedef struct dvec {
    const char *what;
    uint8_t cdb[32];
    size_t len;
    uint32_t bs;
    const char *name;
    int64_t lba, blocks, xfer;
    pcam_dir dir;
    unsigned flags;
    int32_t sa;
} dvec;

static const dvec vectors[] = {
    /* group 0 */
    {"READ(6) LBA 1FFFFFh, length 0 = 256 blocks", {0x08, 0x1F, 0xFF, 0xFF, 0x00, 0x00}, 6, 512,
     "READ(6)", 0x1FFFFF, 256, 131072, DI, 0, NO},
    {"WRITE(6): LUN bits 7-5 of byte 1 are not LBA; no block size", {0x0A, 0xE1, 0x23, 0x45, 0x10},
     6, 0, "WRITE(6)", 0x12345, 16, NO, DO, 0, NO},
    {"TEST UNIT READY", {0}, 6, 512, "TEST UNIT READY", NO, NO, 0, DN, 0, NO},
    {"REZERO UNIT", {0x01}, 6, 512, "REZERO UNIT", NO, NO, 0, DN, 0, NO},
    {"INQUIRY VPD 80h, alloc bytes 3-4 = FFh", {0x12, 0x01, 0x80, 0x00, 0xFF}, 6, 512, "INQUIRY",
     NO, NO, 255, DI, 0, NO},
    {"REQUEST SENSE alloc 0: no data phase", {0x03}, 6, 512, "REQUEST SENSE", NO, NO, 0, DN, 0, NO},
    {"START STOP UNIT IMMED (byte 1 bit 0)", {0x1B, 0x01, 0, 0, 0x01}, 6, 512, "START STOP UNIT",
     NO, NO, 0, DN, F_IMMED, NO},
    {"FORMAT UNIT FMTDATA (byte 1 bit 4): list length not in the CDB", {0x04, 0x10}, 6, 512,
     "FORMAT UNIT", NO, NO, NO, DO, 0, NO},
    {"FORMAT UNIT without FMTDATA", {0x04}, 6, 512, "FORMAT UNIT", NO, NO, 0, DN, 0, NO},
    {"SEND DIAGNOSTIC parameter list length bytes 3-4", {0x1D, 0x10, 0, 0x01, 0x02}, 6, 512,
     "SEND DIAGNOSTIC", NO, NO, 0x0102, DO, 0, NO},
    {"RECEIVE DIAGNOSTIC RESULTS alloc bytes 3-4", {0x1C, 0x01, 0x00, 0x00, 0x40}, 6, 512,
     "RECEIVE DIAGNOSTIC RESULTS", NO, NO, 64, DI, 0, NO},
    {"MODE SELECT(6) parameter list length byte 4", {0x15, 0x10, 0, 0, 0x18}, 6, 512,
     "MODE SELECT(6)", NO, NO, 24, DO, 0, NO},
    {"PREVENT ALLOW MEDIUM REMOVAL", {0x1E, 0, 0, 0, 0x01}, 6, 512,
     "PREVENT ALLOW MEDIUM REMOVAL", NO, NO, 0, DN, 0, NO},
    {"unknown group 0 opcode 02h", {0x02}, 6, 512, "unknown", NO, NO, NO, DU, 0, NO},
    /* groups 1 and 2 */
    {"READ(10) FUA, LBA 1234h, 8 blocks", {0x28, 0x08, 0, 0, 0x12, 0x34, 0, 0, 0x08, 0}, 10, 512,
     "READ(10)", 4660, 8, 4096, DI, F_FUA, NO},
    {"READ(10) of zero blocks moves nothing", {0x28, 0, 0, 0, 0, 1, 0, 0, 0, 0}, 10, 512,
     "READ(10)", 1, 0, 0, DN, 0, NO},
    {"READ CAPACITY(10) returns 8 bytes", {0x25}, 10, 0, "READ CAPACITY(10)", NO, NO, 8, DI, 0, NO},
    {"SEEK(10) LBA bytes 2-5", {0x2B, 0, 0, 0, 0x01, 0x00}, 10, 512, "SEEK(10)", 256, NO, 0, DN, 0,
     NO},
    {"WRITE SAME(10): 128 blocks but one block goes out", {0x41, 0, 0, 0, 0, 0x10, 0, 0, 0x80}, 10,
     4096, "WRITE SAME(10)", 16, 128, 4096, DO, 0, NO},
    {"SYNCHRONIZE CACHE(10) IMMED (byte 1 bit 1)", {0x35, 0x02, 0, 0, 0, 0x20, 0, 0, 0x40}, 10, 512,
     "SYNCHRONIZE CACHE(10)", 32, 64, 0, DN, F_IMMED, NO},
    {"VERIFY(10) BYTCHK 00b + DPO: no data", {0x2F, 0x10, 0, 0, 0, 5, 0, 0, 4}, 10, 512,
     "VERIFY(10)", 5, 4, 0, DN, F_DPO, NO},
    {"VERIFY(10) BYTCHK 01b: the blocks go out", {0x2F, 0x02, 0, 0, 0, 5, 0, 0, 4}, 10, 512,
     "VERIFY(10)", 5, 4, 2048, DO, 0, NO},
    {"VERIFY(10) BYTCHK 11b: one block goes out", {0x2F, 0x06, 0, 0, 0, 5, 0, 0, 4}, 10, 512,
     "VERIFY(10)", 5, 4, 512, DO, 0, NO},
    {"VERIFY(10) BYTCHK 10b is reserved", {0x2F, 0x04, 0, 0, 0, 5, 0, 0, 4}, 10, 512, "VERIFY(10)",
     5, 4, NO, DU, 0, NO},
    {"WRITE AND VERIFY(10)", {0x2E, 0x10, 0, 0, 0, 2, 0, 0, 3}, 10, 512, "WRITE AND VERIFY(10)", 2,
     3, 1536, DO, F_DPO, NO},
    {"WRITE BUFFER parameter list length bytes 6-8 (24 bits)", {0x3B, 0x02, 0, 0, 0, 0, 0x01},
     10, 512, "WRITE BUFFER", NO, NO, 65536, DO, 0, NO},
    {"READ BUFFER alloc bytes 6-8", {0x3C, 0x02, 0, 0, 0, 0, 0x00, 0x10, 0x00}, 10, 512,
     "READ BUFFER", NO, NO, 4096, DI, 0, NO},
    {"WRITE LONG(10) WR_UNCOR (byte 1 bit 6): nothing sent", {0x3F, 0x40, 0, 0, 0, 9, 0, 2, 8},
     10, 512, "WRITE LONG(10)", 9, NO, 0, DN, 0, NO},
    {"READ DEFECT DATA(10) alloc 7-8", {0x37, 0, 0x1D, 0, 0, 0, 0, 0x02, 0x00}, 10, 512,
     "READ DEFECT DATA(10)", NO, NO, 512, DI, 0, NO},
    {"MODE SENSE(10) alloc 7-8", {0x5A, 0x08, 0x3F, 0, 0, 0, 0, 0x10, 0x00}, 10, 512,
     "MODE SENSE(10)", NO, NO, 4096, DI, 0, NO},
    {"MODE SELECT(10) parameter list length 0: nothing sent", {0x55, 0x10}, 10, 512,
     "MODE SELECT(10)", NO, NO, 0, DN, 0, NO},
    {"PERSISTENT RESERVE IN, READ RESERVATION (SA 01h), alloc 32", {0x5E, 0x01, 0, 0, 0, 0, 0, 0,
     0x20}, 10, 512, "PERSISTENT RESERVE IN", NO, NO, 32, DI, 0, 1},
    {"PERSISTENT RESERVE OUT, 32-bit length bytes 5-8", {0x5F, 0x00, 0, 0, 0, 0, 0, 0, 0x18}, 10,
     512, "PERSISTENT RESERVE OUT", NO, NO, 24, DO, 0, 0},
    {"UNMAP parameter list length 7-8", {0x42, 0, 0, 0, 0, 0, 0, 0, 0x18}, 10, 512, "UNMAP", NO, NO,
     24, DO, 0, NO},
    {"LOG SENSE alloc 7-8", {0x4D, 0, 0x40, 0, 0, 0, 0, 0x01, 0x00}, 10, 512, "LOG SENSE", NO, NO,
     256, DI, 0, NO},
    {"GET EVENT STATUS NOTIFICATION alloc 7-8", {0x4A, 0x01, 0, 0, 0x10, 0, 0, 0, 0x08}, 10, 2048,
     "GET EVENT STATUS NOTIFICATION", NO, NO, 8, DI, 0, NO},
    {"READ TOC/PMA/ATIP alloc 7-8", {0x43, 0x02, 0, 0, 0, 0, 0, 0x03, 0x24}, 10, 2048,
     "READ TOC/PMA/ATIP", NO, NO, 804, DI, 0, NO},
    /* group 4 */
    {"READ(16) DPO, LBA 1_0000_0000h, 256 blocks of 4096", {0x88, 0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0,
     0, 0x01, 0x00}, 16, 4096, "READ(16)", 0x100000000ll, 256, 1048576, DI, F_DPO, NO},
    {"READ CAPACITY(16): SA 10h, alloc 10-13", {0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20},
     16, 512, "READ CAPACITY(16)", NO, NO, 32, DI, 0, 0x10},
    {"SERVICE ACTION IN(16) unnamed SA 1Fh keeps the generic layout", {0x9E, 0x1F, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0x01, 0x00}, 16, 512, "SERVICE ACTION IN(16)", NO, NO, 256, DI, 0, 0x1F},
    {"READ LONG(16): LBA 2-9, byte count 12-13", {0x9E, 0x11, 0, 0, 0, 0, 0, 0, 0, 0x07, 0, 0,
     0x02, 0x08}, 16, 512, "READ LONG(16)", 7, NO, 520, DI, 0, 0x11},
    {"ATA PASS-THROUGH(16) PIO in (proto 4), T_DIR|BYTE_BLOCK|T_LENGTH 2", {0x85, 0x08, 0x0E, 0,
     0, 0, 1, 0, 0, 0, 0, 0, 0, 0xA0, 0xEC}, 16, 512, "ATA PASS-THROUGH(16)", NO, NO, NO, DI, 0,
     NO},
    {"ATA PASS-THROUGH(16) PIO out (proto 5)", {0x85, 0x0A, 0x06}, 16, 512, "ATA PASS-THROUGH(16)",
     NO, NO, NO, DO, 0, NO},
    {"ATA PASS-THROUGH(16) non-data (proto 3)", {0x85, 0x06, 0x0E}, 16, 512,
     "ATA PASS-THROUGH(16)", NO, NO, 0, DN, 0, NO},
    {"ATA PASS-THROUGH(16) PIO in with T_LENGTH 0", {0x85, 0x08, 0x0C}, 16, 512,
     "ATA PASS-THROUGH(16)", NO, NO, 0, DN, 0, NO},
    {"WRITE SAME(16) NDOB (byte 1 bit 0): no data-out", {0x93, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 0x10}, 16, 512, "WRITE SAME(16)", 0, 16, 0, DN, 0, NO},
    {"COMPARE AND WRITE: 2 blocks (byte 13) -> 2 x 2 x 512 out", {0x89, 0x08, 0, 0, 0, 0, 0, 0, 0,
     0x64, 0, 0, 0, 0x02}, 16, 512, "COMPARE AND WRITE", 100, 2, 2048, DO, F_FUA, NO},
    {"SYNCHRONIZE CACHE(16)", {0x91, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x08}, 16, 512,
     "SYNCHRONIZE CACHE(16)", 16, 8, 0, DN, 0, NO},
    /* group 5 */
    {"REPORT LUNS alloc 6-9", {0xA0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x00}, 12, 512, "REPORT LUNS", NO,
     NO, 4096, DI, 0, NO},
    {"MAINTENANCE IN SA 0Ch", {0xA3, 0x0C, 0, 0, 0, 0, 0, 0, 0x02, 0x00}, 12, 512,
     "REPORT SUPPORTED OPERATION CODES", NO, NO, 512, DI, 0, 0x0C},
    {"MAINTENANCE IN SA 0Ah", {0xA3, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0x40}, 12, 512,
     "REPORT TARGET PORT GROUPS", NO, NO, 64, DI, 0, 0x0A},
    {"MAINTENANCE OUT SA 0Fh", {0xA4, 0x0F, 0, 0, 0, 0, 0, 0, 0, 0x0C}, 12, 512, "SET TIMESTAMP",
     NO, NO, 12, DO, 0, 0x0F},
    {"READ(12) FUA, LBA 1000h, 32 blocks", {0xA8, 0x08, 0, 0, 0x10, 0, 0, 0, 0, 0x20}, 12, 512,
     "READ(12)", 0x1000, 32, 16384, DI, F_FUA, NO},
    {"VERIFY(12) BYTCHK 01b", {0xAF, 0x02, 0, 0, 0, 1, 0, 0, 0, 2}, 12, 512, "VERIFY(12)", 1, 2,
     1024, DO, 0, NO},
    {"READ CD: LBA 2-5, 24-bit count 6-8, 2352-byte sectors", {0xBE, 0, 0, 0, 0, 0x10, 0, 0, 0x02,
     0xF8}, 12, 2352, "READ CD", 16, 2, 4704, DI, 0, NO},
    {"SECURITY PROTOCOL IN INC_512 (byte 4 bit 7): 4 x 512", {0xA2, 0xEF, 0, 0, 0x80, 0, 0, 0, 0,
     0x04}, 12, 0, "SECURITY PROTOCOL IN", NO, NO, 2048, DI, 0, NO},
    {"MECHANISM STATUS alloc 8-9", {0xBD, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x08}, 12, 0,
     "MECHANISM STATUS", NO, NO, 8, DI, 0, NO},
    {"SET CD SPEED", {0xBB, 0, 0xFF, 0xFF}, 12, 0, "SET CD SPEED", NO, NO, 0, DN, 0, NO},
    /* vendor groups 6 and 7 */
    {"vendor C0h, 10 bytes", {0xC0}, 10, 512, "unknown", NO, NO, NO, DU, 0, NO},
    {"vendor E5h, 16 bytes", {0xE5}, 16, 512, "unknown", NO, NO, NO, DU, 0, NO},
    /* group 3: variable length (SBC-3 32-byte layout) */
    {"READ(32): add. length 18h, SA 0009h, FUA byte 10, LBA 12-19, length 28-31",
     {0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x09, 0x08, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40}, 32, 512, "READ(32)", 0x12345678, 64, 32768, DI, F_FUA,
     0x0009},
    {"WRITE(32)", {0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x0B, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0x09,
     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, 32, 4096, "WRITE(32)", 9, 1, 4096, DO, F_DPO, 0x000B},
    {"shortened READ(32) (24 bytes): LBA but no length", {0x7F, 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0x09,
     0, 0, 0, 0, 0, 0, 0, 0, 0, 5}, 24, 512, "READ(32)", 5, NO, NO, DI, 0, 0x0009},
    {"unnamed variable-length SA 1800h", {0x7F, 0, 0, 0, 0, 0, 0, 0x04, 0x18, 0x00}, 12, 512,
     "VARIABLE LENGTH", NO, NO, NO, DU, 0, 0x1800},
};

static void decode_vectors(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
        const dvec *v = &vectors[k];
        pcam_cdb_info i;
        int rc = pcam_cdb_decode(v->cdb, v->len, v->bs, &i);
        unsigned flags = (i.fua ? F_FUA : 0u) | (i.dpo ? F_DPO : 0u) | (i.immed ? F_IMMED : 0u);
        bool ok = rc == PCAM_OK && i.opcode == v->cdb[0] && i.cdb_len == v->len &&
                  strcmp(i.name, v->name) == 0 &&
                  (v->lba == NO ? !i.has_lba : i.has_lba && i.lba == (uint64_t)v->lba) &&
                  (v->blocks == NO ? !i.has_blocks
                                   : i.has_blocks && i.blocks == (uint64_t)v->blocks) &&
                  (v->xfer == NO ? !i.xfer_known
                                 : i.xfer_known && i.xfer_bytes == (uint64_t)v->xfer) &&
                  i.dir == v->dir && flags == v->flags &&
                  (v->sa == NO ? !i.has_service_action
                               : i.has_service_action && i.service_action == v->sa);
        if (!ok) {
            print_error("vector \"%s\": rc=%d name=%s lba=%d/%llu blocks=%d/%lu xfer=%d/%llu "
                        "dir=%d flags=%u sa=%d/%u\n",
                        v->what, rc, i.name, i.has_lba, (unsigned long long)i.lba, i.has_blocks,
                        (unsigned long)i.blocks, i.xfer_known, (unsigned long long)i.xfer_bytes,
                        (int)i.dir, flags, i.has_service_action, i.service_action);
            fail();
        }
    }
}

static void decode_variable_length_errors(void **state)
{
    (void)state;
    uint8_t c[32] = {0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x09};
    pcam_cdb_info bad;
    assert_int_equal(pcam_cdb_decode(c, 32, 512, &bad), PCAM_OK);
    assert_int_equal(pcam_cdb_decode(c, 30, 512, &bad), PCAM_ERR_LENGTH);
    assert_string_equal(bad.name, "invalid");
    assert_int_equal(bad.opcode, 0x7F);
    assert_int_equal(bad.cdb_len, 0);
    assert_false(bad.has_service_action);
    c[7] = 0x17;
    assert_int_equal(pcam_cdb_decode(c, 31, 512, &bad), PCAM_ERR_LENGTH);
    assert_int_equal(pcam_cdb_decode(c, 5, 512, &bad), PCAM_ERR_LENGTH);
    c[7] = 0x00;
    assert_int_equal(pcam_cdb_decode(c, 8, 512, &bad), PCAM_ERR_LENGTH);
}

static void decode_rejects_bad_input(void **state)
{
    (void)state;
    const uint8_t r10[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    pcam_cdb_info i;
    assert_int_equal(pcam_cdb_decode(r10, 6, 512, &i), PCAM_ERR_LENGTH);
    assert_string_equal(i.name, "invalid");
    assert_int_equal(i.opcode, 0x28);
    assert_int_equal(i.dir, PCAM_DIR_UNKNOWN);
    assert_false(i.has_lba);
    assert_int_equal(pcam_cdb_decode(r10, 16, 512, &i), PCAM_ERR_LENGTH);
    assert_int_equal(pcam_cdb_decode(r10, 0, 512, &i), PCAM_ERR_LENGTH);
    assert_int_equal(i.opcode, 0);
    assert_int_equal(pcam_cdb_decode(NULL, 10, 512, &i), PCAM_ERR_NULL);
    assert_int_equal(pcam_cdb_decode(r10, 10, 512, NULL), PCAM_ERR_NULL);
    const uint8_t rsv[6] = {0x60};
    assert_int_equal(pcam_cdb_decode(rsv, 6, 512, &i), PCAM_ERR_RESERVED);
}

/* ------------------------------------------------------------- formatting */

static void fmt_expect(const uint8_t *cdb, size_t len, uint32_t bs, const char *want)
{
    char buf[160];
    int rc = pcam_cdb_format(cdb, len, bs, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(rc, (int)strlen(want));
}

static void format_lines(void **state)
{
    (void)state;
    const uint8_t r10[10] = {0x28, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x08, 0x00};
    fmt_expect(r10, 10, 512, "READ(10) lba=4660 blocks=8 bytes=4096 dir=in");
    fmt_expect(r10, 10, 0, "READ(10) lba=4660 blocks=8 dir=in");
    const uint8_t w10[10] = {0x2A, 0x18, 0, 0, 0, 1, 0, 0, 1, 0};
    fmt_expect(w10, 10, 4096, "WRITE(10) lba=1 blocks=1 bytes=4096 dir=out fua dpo");
    const uint8_t tur[6] = {0};
    fmt_expect(tur, 6, 512, "TEST UNIT READY dir=none");
    const uint8_t sc[10] = {0x35, 0x02, 0, 0, 0, 0, 0, 0, 0, 0};
    fmt_expect(sc, 10, 512, "SYNCHRONIZE CACHE(10) lba=0 blocks=0 dir=none immed");
    const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};
    fmt_expect(inq, 6, 512, "INQUIRY bytes=36 dir=in");
    const uint8_t rc16[16] = {0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0};
    fmt_expect(rc16, 16, 512, "READ CAPACITY(16) bytes=32 dir=in");
    const uint8_t mi[12] = {0xA3, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0};
    fmt_expect(mi, 12, 512, "MAINTENANCE IN sa=0x1F bytes=16 dir=in");
    const uint8_t unk[10] = {0xC0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    fmt_expect(unk, 10, 512, "unknown opcode=0xC0 len=10 dir=unknown");
    const uint8_t vl[12] = {0x7F, 0, 0, 0, 0, 0, 0, 0x04, 0x18, 0x00, 0, 0};
    fmt_expect(vl, 12, 512, "VARIABLE LENGTH sa=0x1800 len=12 dir=unknown");
}

static void format_errors(void **state)
{
    (void)state;
    const uint8_t r10[10] = {0x28};
    fmt_expect(r10, 6, 512,
               "invalid CDB: length does not match the format (opcode 0x28 needs 10 bytes, got 6)");
    const uint8_t v[20] = {0xC0};
    fmt_expect(v, 17, 512,
               "invalid CDB: length does not match the format (opcode 0xC0 needs 6 to 16 bytes, "
               "got 17)");
    uint8_t c[32] = {0x7F, 0, 0, 0, 0, 0, 0, 0x18};
    fmt_expect(c, 30, 512,
               "invalid CDB: length does not match the format (opcode 0x7F needs 32 bytes, got 30)");
    fmt_expect(c, 5, 512,
               "invalid CDB: length does not match the format (opcode 0x7F needs at least 8 "
               "bytes, got 5)");
    c[7] = 23;
    fmt_expect(c, 31, 512,
               "invalid CDB: length does not match the format (opcode 0x7F additional length 23 "
               "is not a nonzero multiple of 4)");
    fmt_expect(c, 0, 512, "invalid CDB: length does not match the format (empty CDB)");
    fmt_expect(NULL, 6, 512, "invalid CDB: required pointer argument is NULL");
    const uint8_t rsv[6] = {0x60};
    fmt_expect(rsv, 6, 512, "invalid CDB: reserved or undefined code (opcode 0x60)");
    const uint8_t x[6] = {0x7E};
    fmt_expect(x, 6, 512, "invalid CDB: not supported (opcode 0x7E)");
}

static void format_cuts_and_null(void **state)
{
    (void)state;
    const uint8_t r10[10] = {0x28, 0, 0, 0, 0x12, 0x34, 0, 0, 8, 0};
    char buf[16];
    memset(buf, 'X', sizeof buf);
    assert_int_equal(pcam_cdb_format(r10, 10, 512, buf, 8), PCAM_ERR_NOSPACE);
    assert_string_equal(buf, "READ(10");
    assert_int_equal(buf[9], 'X'); /* nothing past cap */
    assert_int_equal(pcam_cdb_format(r10, 10, 512, buf, 0), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_cdb_format(r10, 10, 512, NULL, 16), PCAM_ERR_NULL);
    /* Exactly enough room: the line plus its NUL. */
    char exact[sizeof "READ(10) lba=4660 blocks=8 dir=in"];
    assert_int_equal(pcam_cdb_format(r10, 10, 0, exact, sizeof exact), (int)sizeof exact - 1);
    assert_int_equal(pcam_cdb_format(r10, 10, 0, exact, sizeof exact - 1), PCAM_ERR_NOSPACE);
}

static void dir_names(void **state)
{
    (void)state;
    assert_string_equal(pcam_dir_name(PCAM_DIR_NONE), "none");
    assert_string_equal(pcam_dir_name(PCAM_DIR_IN), "in");
    assert_string_equal(pcam_dir_name(PCAM_DIR_OUT), "out");
    assert_string_equal(pcam_dir_name(PCAM_DIR_UNKNOWN), "unknown");
    assert_string_equal(pcam_dir_name((pcam_dir)42), "unknown");
}

/* ------------------------------------------------------------- round trip */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* A value of a random bit width, so small and boundary values both appear. */
static uint64_t rnd_bits(unsigned max_bits)
{
    unsigned bits = (unsigned)(rnd() % (max_bits + 1));
    return bits == 0 ? 0 : rnd() >> (64 - bits);
}

static bool fits(unsigned size, uint64_t lba, uint32_t blocks, uint8_t flags)
{
    switch (size) {
    case 6: return flags == 0 && lba <= 0x1FFFFF && blocks >= 1 && blocks <= 256;
    case 10: return lba <= 0xFFFFFFFFu && blocks <= 0xFFFF;
    case 12: return lba <= 0xFFFFFFFFu;
    default: return true;
    }
}

static void round_trip_read_write(void **state)
{
    (void)state;
    static const unsigned sizes[] = {0, 6, 10, 12, 16};
    unsigned built = 0, refused = 0;
    for (int n = 0; n < 20000; n++) {
        unsigned size = sizes[rnd() % 5];
        uint64_t lba = rnd_bits(64);
        uint32_t blocks = (uint32_t)rnd_bits(32);
        uint8_t flags = (rnd() & 1) ? 0 : (uint8_t)rnd();
        bool write = rnd() & 1;
        uint8_t cdb[PCAM_CDB_MAX];
        int rc = write ? pcam_cdb_write(cdb, sizeof cdb, size, lba, blocks, flags)
                       : pcam_cdb_read(cdb, sizeof cdb, size, lba, blocks, flags);
        bool any = fits(6, lba, blocks, flags) || fits(10, lba, blocks, flags) ||
                   fits(12, lba, blocks, flags) || fits(16, lba, blocks, flags);
        if (size == 0 ? !any : !fits(size, lba, blocks, flags)) {
            assert_int_equal(rc, PCAM_ERR_RANGE);
            refused++;
            continue;
        }
        if (size != 0)
            assert_int_equal(rc, (int)size);
        else
            assert_true(fits((unsigned)rc, lba, blocks, flags));
        pcam_cdb_info i;
        assert_int_equal(pcam_cdb_decode(cdb, (size_t)rc, 512, &i), PCAM_OK);
        assert_int_equal(i.cdb_len, rc);
        assert_int_equal(i.lba, lba);
        assert_int_equal(i.blocks, blocks);
        assert_int_equal(i.dir, blocks == 0 ? PCAM_DIR_NONE : write ? PCAM_DIR_OUT : PCAM_DIR_IN);
        assert_int_equal(i.xfer_bytes, (uint64_t)blocks * 512u);
        assert_int_equal(i.fua, (flags & PCAM_CDB_FUA) != 0);
        assert_int_equal(i.dpo, (flags & PCAM_CDB_DPO) != 0);
        built++;
    }
    /* Both outcomes must really have been exercised. */
    assert_true(built > 5000);
    assert_true(refused > 500);
}

static void round_trip_verify_sync(void **state)
{
    (void)state;
    static const unsigned sizes[] = {0, 10, 12, 16};
    for (int n = 0; n < 5000; n++) {
        unsigned size = sizes[rnd() % 4];
        uint64_t lba = rnd_bits(64);
        uint32_t blocks = (uint32_t)rnd_bits(32);
        uint8_t cdb[PCAM_CDB_MAX];
        pcam_cdb_info i;

        uint8_t bytchk = (uint8_t)(rnd() % 2 ? 1 : 3);
        int rc = pcam_cdb_verify(cdb, sizeof cdb, size, lba, blocks, bytchk);
        bool ok = size == 0 || fits(size, lba, blocks, 0);
        if (!ok) {
            assert_int_equal(rc, PCAM_ERR_RANGE);
        } else {
            assert_true(rc > 0);
            assert_int_equal(pcam_cdb_decode(cdb, (size_t)rc, 512, &i), PCAM_OK);
            assert_int_equal(i.lba, lba);
            assert_int_equal(i.blocks, blocks);
            uint64_t want = blocks == 0 ? 0 : bytchk == 1 ? (uint64_t)blocks * 512u : 512u;
            assert_int_equal(i.xfer_bytes, want);
        }

        unsigned ssize = size == 12 ? 16 : size;
        bool immed = rnd() & 1;
        rc = pcam_cdb_synchronize_cache(cdb, sizeof cdb, ssize, lba, blocks, immed);
        ok = ssize == 0 || fits(ssize, lba, blocks, 0);
        if (!ok) {
            assert_int_equal(rc, PCAM_ERR_RANGE);
        } else {
            assert_true(rc == 10 || rc == 16);
            assert_int_equal(pcam_cdb_decode(cdb, (size_t)rc, 512, &i), PCAM_OK);
            assert_int_equal(i.lba, lba);
            assert_int_equal(i.blocks, blocks);
            assert_int_equal(i.immed, immed);
            assert_int_equal(i.dir, PCAM_DIR_NONE);
        }
    }
}

/* Every builder's output passes the length check and decodes to its own name. */
static void builders_decode_to_their_names(void **state)
{
    (void)state;
    uint8_t b[PCAM_CDB_MAX];
    pcam_cdb_info i;
    size_t n = 0;
#define CASE(call, nm)                                                              \
    do {                                                                            \
        int rc_ = (call);                                                           \
        assert_true(rc_ > 0);                                                       \
        assert_int_equal(pcam_cdb_decode(b, (size_t)rc_, 512, &i), PCAM_OK);        \
        assert_string_equal(i.name, nm);                                            \
        n++;                                                                        \
    } while (0)
    CASE(pcam_cdb_test_unit_ready(b, sizeof b), "TEST UNIT READY");
    CASE(pcam_cdb_inquiry(b, sizeof b, true, 0, 255), "INQUIRY");
    CASE(pcam_cdb_request_sense(b, sizeof b, 18, false), "REQUEST SENSE");
    CASE(pcam_cdb_report_luns(b, sizeof b, 0, 16), "REPORT LUNS");
    CASE(pcam_cdb_read_capacity10(b, sizeof b), "READ CAPACITY(10)");
    CASE(pcam_cdb_read_capacity16(b, sizeof b, 32), "READ CAPACITY(16)");
    CASE(pcam_cdb_mode_sense(b, sizeof b, 6, false, 0, 0x3F, 0, 255), "MODE SENSE(6)");
    CASE(pcam_cdb_mode_sense(b, sizeof b, 10, false, 0, 0x3F, 0, 255), "MODE SENSE(10)");
    CASE(pcam_cdb_mode_select(b, sizeof b, 6, true, false, 12), "MODE SELECT(6)");
    CASE(pcam_cdb_mode_select(b, sizeof b, 10, true, false, 12), "MODE SELECT(10)");
    CASE(pcam_cdb_start_stop_unit(b, sizeof b, false, 0, false, true), "START STOP UNIT");
    CASE(pcam_cdb_synchronize_cache(b, sizeof b, 16, 0, 0, false), "SYNCHRONIZE CACHE(16)");
    CASE(pcam_cdb_verify(b, sizeof b, 12, 0, 1, 0), "VERIFY(12)");
    CASE(pcam_cdb_write(b, sizeof b, 6, 0, 1, 0), "WRITE(6)");
#undef CASE
    assert_int_equal(n, 14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(len_for_opcode_by_group),
        cmocka_unit_test(check_fixed_groups_need_exact_length),
        cmocka_unit_test(check_vendor_groups_accept_6_to_16),
        cmocka_unit_test(check_null_empty_and_reserved),
        cmocka_unit_test(check_variable_length),
        cmocka_unit_test(build_simple_commands),
        cmocka_unit_test(build_inquiry_page_without_evpd_is_range),
        cmocka_unit_test(build_read_write_each_size),
        cmocka_unit_test(build_read_smallest_that_fits),
        cmocka_unit_test(build_read_write_range),
        cmocka_unit_test(build_mode_sense_select),
        cmocka_unit_test(build_start_stop_sync_verify),
        cmocka_unit_test(build_nospace_and_null),
        cmocka_unit_test(decode_vectors),
        cmocka_unit_test(decode_variable_length_errors),
        cmocka_unit_test(decode_rejects_bad_input),
        cmocka_unit_test(format_lines),
        cmocka_unit_test(format_errors),
        cmocka_unit_test(format_cuts_and_null),
        cmocka_unit_test(dir_names),
        cmocka_unit_test(round_trip_read_write),
        cmocka_unit_test(round_trip_verify_sync),
        cmocka_unit_test(builders_decode_to_their_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
