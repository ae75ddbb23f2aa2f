/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers of the sim_lu tests (test_simlu.c, test_simlu_more.c):
 * the disk they test, run one CDB against an LU with a canary after the
 * buffer, and check the outcome byte for byte.
 */
#ifndef SIMLU_TEST_H
#define SIMLU_TEST_H

#include <string.h>

#include "sim_lu.h"

#define TEST_BUF 150000u /* larger than WRITE(6) of 256 blocks of 512 */
#define TEST_CANARY 0xEEu
#define TEST_GUARD 16u

static uint8_t test_buf[TEST_BUF + TEST_GUARD];

/* The disk both files test: 1000 blocks of 512 bytes with a known pattern. */
static uint8_t store[1000 * 512];
static pcam_simlu lu;

static int setup_disk(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof store; i++)
        store[i] = (uint8_t)(i * 7 + (i >> 9));
    pcam_simlu_init_disk(&lu, store, 1000, 512, "PCAM", "SIMDISK", "SN0001");
    lu.ua_pending = false; /* most tests are not about the power-on UA */
    return 0;
}

/* Prepare `cdb` with a `cap`-byte buffer and check nothing beyond `cap` moved. */
static inline pcam_simlu_cmd run_cdb(pcam_simlu *lu, const uint8_t *cdb, size_t len, uint32_t cap,
                                     uint64_t now)
{
    pcam_simlu_cmd c;

    memset(&c, 0, sizeof c);
    memset(test_buf, TEST_CANARY, (size_t)cap + TEST_GUARD);
    c.cdb = cdb;
    c.cdb_len = (uint8_t)len;
    c.buf = test_buf;
    c.cap = cap;
    assert_int_equal(pcam_simlu_prepare(lu, &c, now), 0);
    assert_true(c.xfer_len <= cap);
    assert_true(c.status == 0 || c.status == 2);
    for (size_t i = 0; i < TEST_GUARD; i++)
        assert_int_equal(test_buf[cap + i], TEST_CANARY);
    return c;
}

#define RUN(lu, ...) \
    run_cdb((lu), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }), \
            TEST_BUF, 0)

/* GOOD with exactly these data-in bytes. */
static inline void expect_data(const pcam_simlu_cmd *c, const uint8_t *want, size_t n)
{
    assert_int_equal(c->status, 0);
    assert_int_equal(c->xfer_len, n);
    assert_int_equal(c->dir, n != 0 ? PCAM_DIR_IN : PCAM_DIR_NONE);
    assert_memory_equal(test_buf, want, n);
}

/* CHECK CONDITION, no data phase, and current fixed-format sense
 * (70h, additional length 10) with this key/ASC/ASCQ pending. */
static inline void expect_cc(const pcam_simlu *lu, const pcam_simlu_cmd *c, uint8_t key,
                                uint8_t asc, uint8_t ascq)
{
    assert_int_equal(c->status, 2);
    assert_int_equal(c->xfer_len, 0);
    assert_int_equal(c->dir, PCAM_DIR_NONE);
    assert_true(lu->sense_valid);
    assert_int_equal(lu->sense[0] & 0x7F, 0x70);
    assert_int_equal(lu->sense[2] & 0x0F, key);
    assert_int_equal(lu->sense[7], 10);
    assert_int_equal(lu->sense[12], asc);
    assert_int_equal(lu->sense[13], ascq);
}

#endif /* SIMLU_TEST_H */
