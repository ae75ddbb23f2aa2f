/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated logical units (hal/sim/sim_lu*.c) driven command by command,
 * with no bus. Expected bytes are worked out by hand from SPC-3 (INQUIRY,
 * VPD pages, REQUEST SENSE fixed format, REPORT LUNS, MODE SENSE headers),
 * SBC-3 (READ CAPACITY, block descriptors, caching page) and MMC-2 (READ
 * TOC); each test says which layout it follows. CD-ROM, timing and
 * robustness tests are in test_simlu_more.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sim_lu.h"
#include "pcam/pcam_err.h"
#include "simlu_test.h"


static void init_defaults(void **state)
{
    (void)state;
    pcam_simlu_init_disk(&lu, store, 1000, 512, "PCAM", "SIMDISK", "SN0001");
    assert_int_equal(lu.kind, PCAM_SIMLU_DISK);
    assert_int_equal(lu.version, 5);
    assert_true(lu.cmdque);
    assert_true(lu.ua_pending);
    assert_int_equal(lu.ua_asc, 0x29);
    assert_int_equal(lu.ua_ascq, 0x00);
    assert_int_equal(lu.luns_on_target, 1);
    assert_int_equal(lu.timing.overhead_ns, 500000);
    assert_int_equal(lu.timing.seek_min_ns, 1000000);
    assert_int_equal(lu.timing.seek_max_ns, 16000000);
    assert_int_equal(lu.timing.rotation_ns, 8333333);
    assert_int_equal(lu.timing.media_kbps, 10000);
    /* Over-long identification strings are cut to their field. */
    pcam_simlu_init_disk(&lu, store, 1000, 512, "VENDORTOOLONG", "P", "012345678901234567890123");
    assert_string_equal(lu.vendor, "VENDORTO");
    assert_string_equal(lu.serial, "01234567890123456789");
}

/* SPC-3 6.4.2 standard INQUIRY data: type 0, version 5, response format 2,
 * additional length 31, byte 7 = WBus16 (20h) | Sync (10h) | CmdQue (02h). */
static const uint8_t disk_inquiry[36] = {
    0x00, 0x00, 0x05, 0x02, 0x1F, 0x00, 0x00, 0x32,
    'P', 'C', 'A', 'M', ' ', ' ', ' ', ' ',
    'S', 'I', 'M', 'D', 'I', 'S', 'K', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    '1', '.', '0', '0'
};

static void inquiry_standard(void **state)
{
    (void)state;
    pcam_simlu_cmd c = RUN(&lu, 0x12, 0, 0, 0, 0xFF, 0);
    expect_data(&c, disk_inquiry, sizeof disk_inquiry);
    lu.cmdque = false;
    lu.version = 3;
    c = RUN(&lu, 0x12, 0, 0, 0, 0xFF, 0);
    assert_int_equal(test_buf[2], 3);
    assert_int_equal(test_buf[7], 0x30);
}

static void inquiry_clipped_to_allocation_and_cap(void **state)
{
    (void)state;
    pcam_simlu_cmd c = RUN(&lu, 0x12, 0, 0, 0, 5, 0);
    expect_data(&c, disk_inquiry, 5);
    c = RUN(&lu, 0x12, 0, 0, 0, 0, 0); /* allocation length 0: no data, not an error */
    assert_int_equal(c.status, 0);
    assert_int_equal(c.xfer_len, 0);
    assert_int_equal(c.dir, PCAM_DIR_NONE);
    /* Allocation 0xFFFF but only 10 bytes of buffer: 10 bytes, nothing past them. */
    c = run_cdb(&lu, (const uint8_t[]){ 0x12, 0, 0, 0xFF, 0xFF, 0 }, 6, 10, 0);
    expect_data(&c, disk_inquiry, 10);
    assert_int_equal(test_buf[10], TEST_CANARY);
    c = run_cdb(&lu, (const uint8_t[]){ 0x12, 0, 0, 0xFF, 0xFF, 0 }, 6, 0, 0);
    assert_int_equal(c.xfer_len, 0);
    assert_int_equal(test_buf[0], TEST_CANARY);
}

static void inquiry_vpd_pages(void **state)
{
    (void)state;
    /* Page 00h: supported pages 00 80 83. */
    static const uint8_t p00[] = { 0x00, 0x00, 0x00, 0x03, 0x00, 0x80, 0x83 };
    /* Page 80h: page length 6, serial "SN0001". */
    static const uint8_t p80[] = { 0x00, 0x80, 0x00, 0x06, 'S', 'N', '0', '0', '0', '1' };
    /* Page 83h: one designator, code set 2 (ASCII), association 0, type 1
     * (T10 vendor ID), length 8 + 6; page length 4 + 14 = 18. */
    static const uint8_t p83[] = {
        0x00, 0x83, 0x00, 0x12, 0x02, 0x01, 0x00, 0x0E,
        'P', 'C', 'A', 'M', ' ', ' ', ' ', ' ', 'S', 'N', '0', '0', '0', '1'
    };
    pcam_simlu_cmd c = RUN(&lu, 0x12, 0x01, 0x00, 0, 0xFF, 0);
    expect_data(&c, p00, sizeof p00);
    c = RUN(&lu, 0x12, 0x01, 0x80, 0, 0xFF, 0);
    expect_data(&c, p80, sizeof p80);
    c = RUN(&lu, 0x12, 0x01, 0x83, 0, 0xFF, 0);
    expect_data(&c, p83, sizeof p83);
    c = RUN(&lu, 0x12, 0x01, 0x83, 0, 9, 0);
    expect_data(&c, p83, 9);
    c = RUN(&lu, 0x12, 0x01, 0xB0, 0, 0xFF, 0); /* not supported */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x12, 0x00, 0x80, 0, 0xFF, 0); /* page code without EVPD */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x12, 0x02, 0x00, 0, 0xFF, 0); /* CmdDt */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
}

/* SPC-3 4.5.3 fixed format: 70h, key in byte 2, additional length 10,
 * ASC/ASCQ in bytes 12-13. */
static void request_sense_no_sense_and_clipping(void **state)
{
    (void)state;
    uint8_t want[18] = { 0x70, 0, 0x00, 0, 0, 0, 0, 0x0A };
    pcam_simlu_cmd c = RUN(&lu, 0x03, 0, 0, 0, 0xFF, 0);
    expect_data(&c, want, 18);
    c = RUN(&lu, 0x03, 0, 0, 0, 4, 0);
    expect_data(&c, want, 4);
    c = RUN(&lu, 0x03, 0x01, 0, 0, 0xFF, 0); /* descriptor format not implemented */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    /* The pending sense is returned once, then NO SENSE again. */
    c = RUN(&lu, 0xC0, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 2);
    c = RUN(&lu, 0x03, 0, 0, 0, 0xFF, 0);
    want[2] = 0x05;
    want[12] = 0x20;
    expect_data(&c, want, 18);
    c = RUN(&lu, 0x03, 0, 0, 0, 0xFF, 0);
    assert_int_equal(test_buf[2], 0);
    assert_int_equal(test_buf[12], 0);
}

static void unit_attention_ordering(void **state)
{
    (void)state;
    pcam_simlu_cmd c;

    pcam_simlu_unit_attention(&lu, 0x29, 0x00);
    /* INQUIRY and REPORT LUNS run normally and leave the UA pending. */
    c = RUN(&lu, 0x12, 0, 0, 0, 36, 0);
    expect_data(&c, disk_inquiry, 36);
    c = RUN(&lu, 0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0);
    assert_int_equal(c.status, 0);
    assert_true(lu.ua_pending);
    /* The next other command reports it, once. */
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x6, 0x29, 0x00);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    /* A pending 29/00 is not replaced by 29/03; other UAs replace each other. */
    pcam_simlu_unit_attention(&lu, 0x29, 0x00);
    pcam_simlu_unit_attention(&lu, 0x29, 0x03);
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x6, 0x29, 0x00);
    pcam_simlu_unit_attention(&lu, 0x29, 0x03);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0);
    expect_cc(&lu, &c, 0x6, 0x29, 0x03);
    assert_false(c.media);
    /* REQUEST SENSE returns the failed command's sense first; with none
     * pending it reports and clears a UA (SPC-3 5.9.7). */
    pcam_simlu_unit_attention(&lu, 0x2A, 0x01);
    c = RUN(&lu, 0x03, 0, 0, 0, 18, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(test_buf[2], 0x06);
    assert_int_equal(test_buf[12], 0x29);
    assert_int_equal(test_buf[13], 0x03);
    assert_true(lu.ua_pending);
    c = RUN(&lu, 0x03, 0, 0, 0, 18, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(test_buf[2], 0x06);
    assert_int_equal(test_buf[12], 0x2A);
    assert_int_equal(test_buf[13], 0x01);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    /* A UA beats an unknown opcode: it is what the initiator must learn first. */
    pcam_simlu_unit_attention(&lu, 0x29, 0x02);
    c = RUN(&lu, 0xC0, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x6, 0x29, 0x02);
}

static void report_luns(void **state)
{
    (void)state;
    /* SPC-3 6.21: list length 16, then LUN 0 and LUN 2 (peripheral addressing). */
    static const uint8_t want[24] = { 0, 0, 0, 0x10, 0, 0, 0, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0,
                                      0, 2, 0, 0, 0, 0, 0, 0 };
    static const uint8_t none[8] = { 0 };
    pcam_simlu_cmd c;

    lu.luns_on_target = 0x05;
    c = RUN(&lu, 0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    expect_data(&c, want, sizeof want);
    c = RUN(&lu, 0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0); /* clipped to 16 */
    expect_data(&c, want, 16);
    c = RUN(&lu, 0xA0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0); /* well-known LUs only: none */
    expect_data(&c, none, 8);
    c = RUN(&lu, 0xA0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    expect_data(&c, want, sizeof want);
    c = RUN(&lu, 0xA0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0); /* below 16 */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    lu.luns_on_target = 0xFFFFFFFFu; /* 32 LUNs: 8 + 256 bytes, last is LUN 31 */
    c = RUN(&lu, 0xA0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0);
    assert_int_equal(c.xfer_len, 264);
    assert_int_equal(test_buf[3], 0x00);
    assert_int_equal(test_buf[2], 0x01);
    assert_int_equal(test_buf[8 + 31 * 8 + 1], 31);
}

static void read_capacity(void **state)
{
    (void)state;
    /* SBC-3 5.10: last LBA 999 = 3E7h, block length 512. */
    static const uint8_t rc10[8] = { 0, 0, 0x03, 0xE7, 0, 0, 0x02, 0x00 };
    static const uint8_t rc16[32] = { 0, 0, 0, 0, 0, 0, 0x03, 0xE7, 0, 0, 0x02, 0x00 };
    static const uint8_t rc10_big[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x02, 0x00 };
    static const uint8_t rc16_big[12] = { 0, 0, 0, 0x01, 0, 0, 0, 0x04, 0, 0, 0x02, 0x00 };
    pcam_simlu_cmd c = RUN(&lu, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_data(&c, rc10, sizeof rc10);
    c = RUN(&lu, 0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0);
    expect_data(&c, rc16, sizeof rc16);
    c = RUN(&lu, 0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0);
    expect_data(&c, rc16, 12);
    c = run_cdb(&lu, (const uint8_t[]){ 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 10, 3, 0);
    expect_data(&c, rc10, 3);
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 5, 0, 0, 0, 0); /* LBA without PMI */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 5, 0, 0, 1, 0); /* with PMI it is allowed */
    expect_data(&c, rc10, sizeof rc10);
    c = RUN(&lu, 0x9E, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0); /* other SA */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    /* 2^32 + 5 blocks: (10) says FFFFFFFFh, (16) gives 1_0000_0004h. */
    lu.blocks = 0x100000005ull;
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_data(&c, rc10_big, sizeof rc10_big);
    c = RUN(&lu, 0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0);
    expect_data(&c, rc16_big, sizeof rc16_big);
}

static void write_then_read_every_size(void **state)
{
    (void)state;
    uint8_t pat[1024];
    pcam_simlu_cmd c;

    for (size_t i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)(0xA5 ^ i);
    /* WRITE(10) LBA 5, 2 blocks. */
    c = RUN(&lu, 0x2A, 0, 0, 0, 0, 5, 0, 0, 2, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.dir, PCAM_DIR_OUT);
    assert_int_equal(c.xfer_len, 1024);
    assert_true(c.media);
    assert_int_equal(c.lba, 5);
    assert_int_equal(c.blocks, 2);
    assert_memory_not_equal(store + 5 * 512, pat, 1024); /* prepare does not write */
    memcpy(test_buf, pat, sizeof pat);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    assert_int_equal(c.status, 0);
    assert_memory_equal(store + 5 * 512, pat, 1024);
    assert_int_equal(store[4 * 512 + 511], (uint8_t)((4 * 512 + 511) * 7 + 4));
    assert_int_equal(store[7 * 512], (uint8_t)(7 * 512 * 7 + 7));
    /* Read it back with each READ size. */
    c = RUN(&lu, 0x08, 0, 0, 5, 2, 0);
    expect_data(&c, pat, 1024);
    assert_int_equal(c.lba, 5);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 5, 0, 0, 2, 0);
    expect_data(&c, pat, 1024);
    c = RUN(&lu, 0xA8, 0, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0);
    expect_data(&c, pat + 512, 512);
    c = RUN(&lu, 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2, 0, 0);
    expect_data(&c, pat, 1024);
    /* WRITE(6) with length 0 means 256 blocks; WRITE(12) and (16). */
    c = RUN(&lu, 0x0A, 0, 0x01, 0x00, 0, 0);
    assert_int_equal(c.xfer_len, 256 * 512);
    assert_int_equal(c.lba, 256);
    memset(test_buf, 0x3C, 256 * 512);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    assert_int_equal(store[256 * 512], 0x3C);
    assert_int_equal(store[512 * 512 - 1], 0x3C);
    assert_int_not_equal(store[512 * 512], 0x3C);
    c = RUN(&lu, 0xAA, 0, 0, 0, 0x03, 0xE7, 0, 0, 0, 1, 0, 0);
    memset(test_buf, 0x11, 512);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    c = RUN(&lu, 0x8A, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xE6, 0, 0, 0, 1, 0, 0);
    memset(test_buf, 0x22, 512);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    c = RUN(&lu, 0x28, 0, 0, 0, 0x03, 0xE6, 0, 0, 2, 0);
    assert_int_equal(c.xfer_len, 1024);
    assert_int_equal(test_buf[0], 0x22);
    assert_int_equal(test_buf[1023], 0x11);
}

static void zero_length_and_range(void **state)
{
    (void)state;
    pcam_simlu_cmd c = RUN(&lu, 0x28, 0, 0, 0, 0, 5, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.xfer_len, 0);
    assert_false(c.media);
    c = RUN(&lu, 0x2A, 0, 0, 0, 0, 5, 0, 0, 0, 0);
    assert_int_equal(c.dir, PCAM_DIR_NONE);
    c = RUN(&lu, 0x28, 0, 0, 0, 0x03, 0xE7, 0, 0, 2, 0); /* 999 + 2 > 1000 */
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    assert_false(c.media);
    c = RUN(&lu, 0x28, 0, 0, 0, 0x03, 0xE8, 0, 0, 0, 0); /* LBA 1000, no blocks */
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    c = RUN(&lu, 0x88, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0); /* 2^63 */
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    c = RUN(&lu, 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    c = RUN(&lu, 0x08, 0x1F, 0xFF, 0xFF, 1, 0);
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    c = RUN(&lu, 0x0A, 0, 0x03, 0xE7, 2, 0);
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    /* More than the target's buffer: refused whole (24/00), never cut. */
    c = run_cdb(&lu, (const uint8_t[]){ 0x28, 0, 0, 0, 0, 0, 0, 0, 2, 0 }, 10, 1023, 0);
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    assert_int_equal(test_buf[0], TEST_CANARY);
    c = run_cdb(&lu, (const uint8_t[]){ 0x2A, 0, 0, 0, 0, 0, 0, 0, 1, 0 }, 10, 511, 0);
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
}

static void cdb_field_checks(void **state)
{
    (void)state;
    pcam_simlu_cmd c = RUN(&lu, 0x28, 0x20, 0, 0, 0, 0, 0, 0, 1, 0); /* RDPROTECT */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x2A, 0x01, 0, 0, 0, 0, 0, 0, 1, 0); /* RelAdr */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x28, 0x18, 0, 0, 0, 0, 0, 0, 1, 0); /* DPO+FUA are fine */
    assert_int_equal(c.status, 0);
    lu.version = 2; /* SCSI-2: byte 1 bits 7-5 are the LUN, ignored */
    c = RUN(&lu, 0x28, 0x20, 0, 0, 0, 0, 0, 0, 1, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.xfer_len, 512);
    c = RUN(&lu, 0xC0, 0, 0, 0, 0, 0); /* vendor opcode */
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = RUN(&lu, 0x02, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 0, 0, 12, 0); /* READ TOC is not a disk command */
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = run_cdb(&lu, (const uint8_t[]){ 0 }, 0, TEST_BUF, 0);
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = run_cdb(&lu, NULL, 6, TEST_BUF, 0);
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 0); /* READ(10) in 6 bytes */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x12, 0, 0, 0, 36, 0, 0); /* INQUIRY in 7 bytes */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0x04); /* NACA */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0x01); /* LINK */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0xC0); /* vendor bits of the control byte */
    assert_int_equal(c.status, 0);
}

static void medium_error(void **state)
{
    (void)state;
    /* Fixed sense with VALID (80h) and INFORMATION = LBA 10: 3/11/00. */
    static const uint8_t want[18] = { 0xF0, 0, 0x03, 0, 0, 0, 0x0A, 0x0A,
                                      0, 0, 0, 0, 0x11, 0x00 };
    pcam_simlu_cmd c;

    assert_int_equal(pcam_simlu_add_medium_error(&lu, 10), 0);
    assert_int_equal(pcam_simlu_add_medium_error(&lu, 1000), PCAM_ERR_RANGE);
    assert_int_equal(pcam_simlu_add_medium_error(NULL, 1), PCAM_ERR_NULL);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 8, 0, 0, 4, 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(c.xfer_len, 0);
    assert_true(c.media); /* the head went there to find out */
    assert_int_equal(c.lba, 8);
    assert_int_equal(c.blocks, 3);
    c = RUN(&lu, 0x03, 0, 0, 0, 0xFF, 0);
    expect_data(&c, want, sizeof want);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 11, 0, 0, 4, 0); /* past it */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 0, 0, 0, 10, 0); /* ends just before */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x2A, 0, 0, 0, 0, 10, 0, 0, 1, 0); /* writes are not affected */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x2F, 0, 0, 0, 0, 9, 0, 0, 2, 0); /* VERIFY reads the medium */
    expect_cc(&lu, &c, 0x3, 0x11, 0x00);
    /* The lowest failing LBA in the range is the one reported. */
    assert_int_equal(pcam_simlu_add_medium_error(&lu, 9), 0);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 0, 0, 0, 20, 0);
    assert_int_equal(lu.sense[6], 9);
    for (int i = 0; i < 6; i++)
        assert_int_equal(pcam_simlu_add_medium_error(&lu, (uint64_t)(100 + i)), 0);
    assert_int_equal(pcam_simlu_add_medium_error(&lu, 200), PCAM_ERR_NOSPACE);
}

static void not_ready_windows(void **state)
{
    (void)state;
    pcam_simlu_cmd c;

    pcam_simlu_not_ready_until(&lu, 1000);
    c = run_cdb(&lu, (const uint8_t[]){ 0, 0, 0, 0, 0, 0 }, 6, TEST_BUF, 999);
    expect_cc(&lu, &c, 0x2, 0x04, 0x01);
    c = run_cdb(&lu, (const uint8_t[]){ 0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0 }, 10, TEST_BUF, 0);
    expect_cc(&lu, &c, 0x2, 0x04, 0x01);
    assert_false(c.media);
    c = run_cdb(&lu, (const uint8_t[]){ 0x12, 0, 0, 0, 36, 0 }, 6, TEST_BUF, 10);
    assert_int_equal(c.status, 0);
    /* REQUEST SENSE with nothing pending describes the state, with GOOD status. */
    c = run_cdb(&lu, (const uint8_t[]){ 0x03, 0, 0, 0, 18, 0 }, 6, TEST_BUF, 10);
    assert_int_equal(c.status, 0);
    assert_int_equal(test_buf[2], 0x02);
    assert_int_equal(test_buf[12], 0x04);
    assert_int_equal(test_buf[13], 0x01);
    c = run_cdb(&lu, (const uint8_t[]){ 0, 0, 0, 0, 0, 0 }, 6, TEST_BUF, 1000);
    assert_int_equal(c.status, 0);
    pcam_simlu_not_ready_until(&lu, 0); /* RUN() is at time 0 */
    /* START STOP UNIT: stopped means 04/02 until started. */
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x00, 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x04, 0x02);
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x04, 0x02);
    c = RUN(&lu, 0x1A, 0x08, 0x08, 0, 0xFF, 0); /* MODE SENSE still works */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x1B, 0x01, 0, 0, 0x01, 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x20, 0); /* power condition IDLE: accepted, no change */
    assert_int_equal(c.status, 0);
    assert_false(lu.stopped);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x50, 0); /* power condition 5: reserved */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    lu.store = NULL; /* a disk without media */
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x3A, 0x00);
}

static void sync_cache_and_verify(void **state)
{
    (void)state;
    pcam_simlu_cmd c = RUN(&lu, 0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    assert_false(c.media);
    c = RUN(&lu, 0x35, 0x02, 0, 0, 0x03, 0xE8, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    c = RUN(&lu, 0x91, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xE0, 0, 0, 0, 8, 0, 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x91, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xE0, 0, 0, 0, 9, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    /* VERIFY(10) BYTCHK 0: medium check only. */
    c = RUN(&lu, 0x2F, 0, 0, 0, 0, 3, 0, 0, 4, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.dir, PCAM_DIR_NONE);
    assert_int_equal(c.xfer_len, 0);
    assert_true(c.media);
    assert_int_equal(c.blocks, 4);
    /* BYTCHK 1: compare data-out with the medium. */
    c = RUN(&lu, 0x2F, 0x02, 0, 0, 0, 3, 0, 0, 1, 0);
    assert_int_equal(c.dir, PCAM_DIR_OUT);
    assert_int_equal(c.xfer_len, 512);
    memcpy(test_buf, store + 3 * 512, 512);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0xAF, 0x02, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0);
    memcpy(test_buf, store + 3 * 512, 512);
    test_buf[100] ^= 1;
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    expect_cc(&lu, &c, 0xE, 0x1D, 0x00);
    c = RUN(&lu, 0x8F, 0x04, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0); /* BYTCHK 2 */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_defaults),
        cmocka_unit_test_setup(inquiry_standard, setup_disk),
        cmocka_unit_test_setup(inquiry_clipped_to_allocation_and_cap, setup_disk),
        cmocka_unit_test_setup(inquiry_vpd_pages, setup_disk),
        cmocka_unit_test_setup(request_sense_no_sense_and_clipping, setup_disk),
        cmocka_unit_test_setup(unit_attention_ordering, setup_disk),
        cmocka_unit_test_setup(report_luns, setup_disk),
        cmocka_unit_test_setup(read_capacity, setup_disk),
        cmocka_unit_test_setup(write_then_read_every_size, setup_disk),
        cmocka_unit_test_setup(zero_length_and_range, setup_disk),
        cmocka_unit_test_setup(cdb_field_checks, setup_disk),
        cmocka_unit_test_setup(medium_error, setup_disk),
        cmocka_unit_test_setup(not_ready_windows, setup_disk),
        cmocka_unit_test_setup(sync_cache_and_verify, setup_disk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
