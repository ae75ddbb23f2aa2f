/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated logical units, continued: mode pages, the CD-ROM, the absent
 * LU, the service-time model, and robustness (NULLs, tampered commands, and
 * a seeded stream of random CDBs with a canary after the buffer). Expected
 * bytes come from SPC-3 6.9/6.11/7.4 (MODE SENSE/SELECT headers and
 * parameters), SBC-3 6.3 (block descriptors, caching page), SPI-2
 * (disconnect-reconnect page) and MMC-2 5.x (READ TOC formats 0 and 1);
 * expected times are worked out in each test from the constants in
 * sim_lu.c / sim_lu_cdrom.c and the formulas in sim_lu_timing.c.
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

static uint8_t cdstore[100 * 2048];

/* Run a MODE SELECT with this parameter list; return the command after finish_out. */
static pcam_simlu_cmd mode_select(const uint8_t *cdb, size_t cdb_len, const uint8_t *list, size_t n)
{
    pcam_simlu_cmd c = run_cdb(&lu, cdb, cdb_len, TEST_BUF, 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.xfer_len, n);
    assert_int_equal(c.dir, n != 0 ? PCAM_DIR_OUT : PCAM_DIR_NONE);
    memcpy(test_buf, list, n);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    return c;
}

#define CACHING_PAGE 0x08, 0x12, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0xFF, 0xFF, \
                     0xFF, 0xFF, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
#define DISCONNECT_PAGE 0x02, 0x0E, 0x80, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

static void mode_sense_pages(void **state)
{
    (void)state;
    /* (6), page 08h with block descriptor: length 4 + 8 + 20 - 1 = 1Fh, DSP
     * DPOFUA, BD length 8; BD: 1000 = 3E8h blocks, 512 bytes. */
    static const uint8_t ms6_08[] = { 0x1F, 0x00, 0x10, 0x08, 0, 0, 0x03, 0xE8, 0, 0, 0x02, 0x00,
                                      CACHING_PAGE };
    /* (6), all pages, DBD: 4 + 16 + 20 - 1 = 27h; page 02h before 08h. */
    static const uint8_t ms6_all[] = { 0x27, 0x00, 0x10, 0x00, DISCONNECT_PAGE, CACHING_PAGE };
    /* (10), LLBAA, page 02h: 8 + 16 + 16 - 2 = 26h, LONGLBA, BD length 16. */
    static const uint8_t ms10_02[] = { 0x00, 0x26, 0x00, 0x10, 0x01, 0x00, 0x00, 0x10,
                                       0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0, 0, 0, 0, 0, 0, 0x02, 0x00,
                                       DISCONNECT_PAGE };
    /* (10), short BD, page 08h: 8 + 8 + 20 - 2 = 22h; first 10 bytes only. */
    static const uint8_t ms10_08[] = { 0x00, 0x22, 0x00, 0x10, 0x00, 0x00, 0x00, 0x08, 0, 0 };
    /* Changeable values of page 08h: only WCE and RCD (05h). */
    static const uint8_t ms6_chg[] = { 0x17, 0x00, 0x10, 0x00, 0x08, 0x12, 0x05, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    pcam_simlu_cmd c = RUN(&lu, 0x1A, 0x00, 0x08, 0, 0xFF, 0);
    expect_data(&c, ms6_08, sizeof ms6_08);
    c = RUN(&lu, 0x1A, 0x08, 0x3F, 0, 0xFF, 0);
    expect_data(&c, ms6_all, sizeof ms6_all);
    c = RUN(&lu, 0x1A, 0x08, 0x3F, 0xFF, 0xFF, 0); /* all subpages: same */
    expect_data(&c, ms6_all, sizeof ms6_all);
    c = RUN(&lu, 0x5A, 0x10, 0x02, 0, 0, 0, 0, 0, 0xFF, 0);
    expect_data(&c, ms10_02, sizeof ms10_02);
    c = RUN(&lu, 0x5A, 0x00, 0x08, 0, 0, 0, 0, 0, 10, 0);
    expect_data(&c, ms10_08, sizeof ms10_08);
    c = RUN(&lu, 0x1A, 0x08, 0x48, 0, 0xFF, 0);
    expect_data(&c, ms6_chg, sizeof ms6_chg);
    c = run_cdb(&lu, (const uint8_t[]){ 0x1A, 0x08, 0x3F, 0, 0xFF, 0 }, 6, 7, 0);
    expect_data(&c, ms6_all, 7);
    c = RUN(&lu, 0x1A, 0x08, 0xC8, 0, 0xFF, 0); /* saved values */
    expect_cc(&lu, &c, 0x5, 0x39, 0x00);
    c = RUN(&lu, 0x1A, 0x08, 0x1C, 0, 0xFF, 0); /* page not implemented */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x1A, 0x08, 0x08, 0x01, 0xFF, 0); /* subpage */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
}

static void mode_select_applies_changeable_bits(void **state)
{
    (void)state;
    static const uint8_t sel6[] = { 0x15, 0x10, 0, 0, 24, 0 };
    static const uint8_t wce[] = { 0, 0, 0, 0, 0x08, 0x12, 0x04, 0x00, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF,
                                   0xFF, 0xFF, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
    static const uint8_t sel10[] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0, 24, 0 };
    static const uint8_t disc[] = { 0, 0, 0, 0, 0, 0, 0, 0,
                                    0x02, 0x0E, 0x40, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    pcam_simlu_cmd c = mode_select(sel6, sizeof sel6, wce, sizeof wce);
    assert_int_equal(c.status, 0);
    assert_int_equal(lu.mode_caching[2], 0x04);
    c = RUN(&lu, 0x1A, 0x08, 0x08, 0, 0xFF, 0);
    assert_int_equal(test_buf[4 + 2], 0x04);
    c = RUN(&lu, 0x1A, 0x08, 0x88, 0, 0xFF, 0); /* defaults are unchanged */
    assert_int_equal(test_buf[4 + 2], 0x00);
    c = mode_select(sel10, sizeof sel10, disc, sizeof disc);
    assert_int_equal(c.status, 0);
    assert_int_equal(lu.mode_disconnect[2], 0x40);
    assert_int_equal(lu.mode_disconnect[3], 0x20);
    /* A block descriptor with the current block length is accepted (short and long). */
    {
        static const uint8_t cdb[] = { 0x15, 0x10, 0, 0, 32, 0 };
        static const uint8_t list[] = { 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0x02, 0x00,
                                        0x08, 0x12, 0x01, 0x00, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF,
                                        0xFF, 0xFF, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
        c = mode_select(cdb, sizeof cdb, list, sizeof list);
        assert_int_equal(c.status, 0);
        assert_int_equal(lu.mode_caching[2], 0x01); /* RCD on, WCE off */
    }
    {
        static const uint8_t cdb[] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0, 24, 0 };
        static const uint8_t list[] = { 0, 0, 0, 0, 0x01, 0, 0, 16,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00 };
        c = mode_select(cdb, sizeof cdb, list, sizeof list);
        assert_int_equal(c.status, 0);
    }
    c = RUN(&lu, 0x15, 0x10, 0, 0, 0, 0); /* empty list: nothing to do */
    assert_int_equal(c.status, 0);
    assert_int_equal(c.dir, PCAM_DIR_NONE);
}

/* Each bad list fails and leaves the current values exactly as they were. */
static void mode_select_rejects(void **state)
{
    (void)state;
    static const uint8_t sel6[] = { 0x15, 0x10, 0, 0, 24, 0 };
    static const uint8_t base[24] = { 0, 0, 0, 0, CACHING_PAGE };
    uint8_t list[40], before_c[20], before_d[16];
    struct { size_t at; uint8_t val; uint8_t asc; } bad[] = {
        { 7, 0x01, 0x26 },  /* byte 3 of the page is not changeable */
        { 4, 0x1C, 0x26 },  /* unknown page */
        { 4, 0x48, 0x26 },  /* SPF: subpage format */
        { 5, 0x11, 0x26 },  /* wrong page length */
        { 5, 0x13, 0x1A },  /* page runs past the list */
        { 3, 0x04, 0x26 },  /* block descriptor length 4 */
        { 3, 0x08, 0x26 },  /* an 8-byte BD over the page: block length FF0000h */
    };
    pcam_simlu_cmd c;

    memcpy(before_c, lu.mode_caching, sizeof before_c);
    memcpy(before_d, lu.mode_disconnect, sizeof before_d);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(list, base, sizeof base);
        list[6] = 0x05; /* a valid change that must not be applied */
        list[bad[i].at] = bad[i].val;
        c = mode_select(sel6, sizeof sel6, list, sizeof base);
        expect_cc(&lu, &c, 0x5, bad[i].asc, 0x00);
        assert_memory_equal(lu.mode_caching, before_c, sizeof before_c);
    }
    /* Cut lists: header only three bytes; a page cut after its length byte. */
    c = mode_select((const uint8_t[]){ 0x15, 0x10, 0, 0, 3, 0 }, 6, base, 3);
    expect_cc(&lu, &c, 0x5, 0x1A, 0x00);
    c = mode_select((const uint8_t[]){ 0x15, 0x10, 0, 0, 5, 0 }, 6, base, 5);
    expect_cc(&lu, &c, 0x5, 0x1A, 0x00);
    c = mode_select((const uint8_t[]){ 0x15, 0x10, 0, 0, 12, 0 }, 6,
                    (const uint8_t[]){ 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 2, 0 }, 12);
    expect_cc(&lu, &c, 0x5, 0x26, 0x00); /* 16 without LONGLBA in a (6) list */
    c = mode_select((const uint8_t[]){ 0x55, 0x10, 0, 0, 0, 0, 0, 0, 12, 0 }, 10,
                    (const uint8_t[]){ 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0 }, 12);
    expect_cc(&lu, &c, 0x5, 0x1A, 0x00); /* BD longer than the list */
    /* Two pages, the second bad: the first is not applied either. */
    {
        static const uint8_t cdb[] = { 0x15, 0x10, 0, 0, 40, 0 };
        static const uint8_t two[] = { 0, 0, 0, 0, 0x02, 0x0E, 0x11, 0x22, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0x08, 0x12, 0x04, 0x01, 0xFF, 0xFF, 0,
                                       0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
        c = mode_select(cdb, sizeof cdb, two, sizeof two);
        expect_cc(&lu, &c, 0x5, 0x26, 0x00);
        assert_memory_equal(lu.mode_disconnect, before_d, sizeof before_d);
    }
    /* CDB-level refusals. */
    c = RUN(&lu, 0x15, 0x11, 0, 0, 24, 0); /* SP */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x15, 0x00, 0, 0, 24, 0); /* PF = 0 */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = run_cdb(&lu, sel6, sizeof sel6, 23, 0); /* list larger than the buffer */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
}

static void finish_out_checks_the_command_again(void **state)
{
    (void)state;
    uint8_t before[512];
    pcam_simlu_cmd c = RUN(&lu, 0x2A, 0, 0, 0, 0, 5, 0, 0, 1, 0);

    memcpy(before, store + 5 * 512, sizeof before);
    memset(test_buf, 0x77, 512);
    c.lba = 999;
    c.blocks = 5;
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), PCAM_ERR_RANGE);
    c.lba = 5;
    c.blocks = 1;
    c.xfer_len = TEST_BUF + 1;
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), PCAM_ERR_RANGE);
    c.xfer_len = 511;
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), PCAM_ERR_RANGE);
    c.buf = NULL;
    c.xfer_len = 512;
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), PCAM_ERR_RANGE);
    assert_memory_equal(store + 5 * 512, before, sizeof before);
    /* Not a data-out command, or already failed: nothing happens. */
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 5, 0, 0, 1, 0);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    c = RUN(&lu, 0x2A, 0, 0, 0, 0x03, 0xE8, 0, 0, 1, 0);
    assert_int_equal(pcam_simlu_finish_out(&lu, &c), 0);
    assert_int_equal(c.status, 2);
    assert_memory_equal(store + 5 * 512, before, sizeof before);
    assert_int_equal(pcam_simlu_finish_out(NULL, &c), PCAM_ERR_NULL);
    assert_int_equal(pcam_simlu_finish_out(&lu, NULL), PCAM_ERR_NULL);
    assert_int_equal(pcam_simlu_prepare(NULL, &c, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_simlu_prepare(&lu, NULL, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_simlu_service(NULL, &c), 0);
    assert_int_equal(pcam_simlu_service(&lu, NULL), 0);
    assert_int_equal(pcam_simlu_seek_cost(NULL, 5), 0);
    pcam_simlu_init_disk(NULL, store, 1, 512, "", "", "");
    pcam_simlu_init_cdrom(NULL, NULL, 0, "", "");
    pcam_simlu_init_absent(NULL);
    pcam_simlu_unit_attention(NULL, 0x29, 0);
    pcam_simlu_not_ready_until(NULL, 1);
    pcam_simlu_default_timing(NULL);
    pcam_simlu_cdrom_timing(NULL);
    pcam_simlu_cdrom_load(NULL, NULL, 0);
    pcam_simlu_fail(NULL, &c, 5, 0x24, 0);
}

static void absent_lu(void **state)
{
    (void)state;
    /* Qualifier 3, type 1Fh, otherwise the usual 36-byte shape. */
    uint8_t want[36] = { 0x7F, 0x00, 0x05, 0x02, 0x1F, 0x00, 0x00, 0x00 };
    static const uint8_t sense[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x25, 0x00 };
    pcam_simlu_cmd c;

    memset(want + 8, ' ', 28);
    pcam_simlu_init_absent(&lu);
    assert_false(lu.ua_pending);
    c = RUN(&lu, 0x12, 0, 0, 0, 0xFF, 0);
    expect_data(&c, want, sizeof want);
    c = RUN(&lu, 0x12, 0, 0, 0, 1, 0);
    expect_data(&c, want, 1);
    c = RUN(&lu, 0x03, 0, 0, 0, 0xFF, 0);
    expect_data(&c, sense, sizeof sense);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x25, 0x00);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0);
    expect_cc(&lu, &c, 0x5, 0x25, 0x00);
    c = RUN(&lu, 0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x25, 0x00);
    c = RUN(&lu, 0x12, 0x01, 0x80, 0, 0xFF, 0); /* VPD */
    expect_cc(&lu, &c, 0x5, 0x25, 0x00);
    c = RUN(&lu, 0x12, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0); /* wrong length */
    expect_cc(&lu, &c, 0x5, 0x25, 0x00);
    c = RUN(&lu, 0x03, 0, 0, 0, 0xFF, 0);
    expect_data(&c, sense, sizeof sense);
    lu.kind = (pcam_simlu_kind)7; /* garbage kind behaves as absent */
    c = RUN(&lu, 0x12, 0, 0, 0, 0xFF, 0);
    assert_int_equal(test_buf[0], 0x7F);
}

static void cdrom(void **state)
{
    (void)state;
    /* Type 05h, RMB, Sync only (narrow, untagged). */
    static const uint8_t inq[36] = { 0x05, 0x80, 0x05, 0x02, 0x1F, 0x00, 0x00, 0x10,
                                     'P', 'C', 'A', 'M', ' ', ' ', ' ', ' ',
                                     'S', 'I', 'M', 'C', 'D', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                                     ' ', ' ', ' ', ' ', '1', '.', '0', '0' };
    static const uint8_t rc10[8] = { 0, 0, 0, 0x63, 0, 0, 0x08, 0x00 };
    pcam_simlu_cmd c;

    for (size_t i = 0; i < sizeof cdstore; i++)
        cdstore[i] = (uint8_t)(i / 2048 + i);
    pcam_simlu_init_cdrom(&lu, NULL, 0, "PCAM", "SIMCD");
    assert_int_equal(lu.block_size, 2048);
    c = RUN(&lu, 0x12, 0, 0, 0, 0xFF, 0);
    expect_data(&c, inq, sizeof inq);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x6, 0x29, 0x00);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x3A, 0x00);
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x3A, 0x00);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0);
    expect_cc(&lu, &c, 0x2, 0x3A, 0x00);
    c = RUN(&lu, 0x1A, 0x08, 0x3F, 0, 0xFF, 0); /* no mode pages on this model */
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    /* Insert a 100-block disc: UNIT ATTENTION 28/00, then ready. */
    pcam_simlu_cdrom_load(&lu, cdstore, 100);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x6, 0x28, 0x00);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_data(&c, rc10, sizeof rc10);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 1, 0, 0, 2, 0);
    expect_data(&c, cdstore + 2048, 4096);
    c = RUN(&lu, 0x08, 0, 0, 99, 1, 0);
    expect_data(&c, cdstore + 99 * 2048, 2048);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 99, 0, 0, 2, 0);
    expect_cc(&lu, &c, 0x5, 0x21, 0x00);
    c = RUN(&lu, 0x2A, 0, 0, 0, 0, 1, 0, 0, 1, 0);
    expect_cc(&lu, &c, 0x7, 0x27, 0x00);
    c = RUN(&lu, 0x0A, 0, 0, 1, 1, 0);
    expect_cc(&lu, &c, 0x7, 0x27, 0x00);
    c = RUN(&lu, 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = RUN(&lu, 0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
    c = RUN(&lu, 0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x5, 0x20, 0x00);
}

static void cdrom_toc(void **state)
{
    (void)state;
    /* Format 0, LBA: data length 18, tracks 1..1; track 1 at 0, lead-out (AAh) at 100. */
    static const uint8_t toc[] = { 0x00, 0x12, 0x01, 0x01, 0x00, 0x14, 0x01, 0x00, 0, 0, 0, 0,
                                   0x00, 0x14, 0xAA, 0x00, 0, 0, 0, 0x64 };
    /* MSF: LBA 0 + 150 frames = 00:02:00; 100 + 150 = 250 frames = 00:03:25 (19h). */
    static const uint8_t toc_msf[] = { 0x00, 0x12, 0x01, 0x01, 0x00, 0x14, 0x01, 0x00, 0, 0, 2, 0,
                                       0x00, 0x14, 0xAA, 0x00, 0, 0, 3, 0x19 };
    static const uint8_t leadout[] = { 0x00, 0x0A, 0x01, 0x01, 0x00, 0x14, 0xAA, 0x00, 0, 0, 0,
                                       0x64 };
    /* Format 1 (session info): one session, first track 1 at LBA 0. */
    static const uint8_t session[] = { 0x00, 0x0A, 0x01, 0x01, 0x00, 0x14, 0x01, 0x00, 0, 0, 0, 0 };
    pcam_simlu_cmd c;

    pcam_simlu_init_cdrom(&lu, cdstore, 100, "PCAM", "SIMCD");
    lu.ua_pending = false;
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0);
    expect_data(&c, toc, sizeof toc);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 1, 0, 0xFF, 0);
    expect_data(&c, toc, sizeof toc);
    c = RUN(&lu, 0x43, 0x02, 0, 0, 0, 0, 0, 0, 0xFF, 0);
    expect_data(&c, toc_msf, sizeof toc_msf);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 0xAA, 0, 0xFF, 0);
    expect_data(&c, leadout, sizeof leadout);
    c = RUN(&lu, 0x43, 0, 0x01, 0, 0, 0, 0, 0, 0xFF, 0);
    expect_data(&c, session, sizeof session);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0x40); /* SFF-8020i format field */
    expect_data(&c, session, sizeof session);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 0, 0, 4, 0);
    expect_data(&c, toc, 4);
    c = RUN(&lu, 0x43, 0, 0, 0, 0, 0, 2, 0, 0xFF, 0); /* no track 2 */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x43, 0, 0x02, 0, 0, 0, 0, 0, 0xFF, 0); /* full TOC: not modelled */
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
}

static void cdrom_eject_and_load(void **state)
{
    (void)state;
    pcam_simlu_cmd c;

    pcam_simlu_init_cdrom(&lu, cdstore, 100, "PCAM", "SIMCD");
    lu.ua_pending = false;
    c = RUN(&lu, 0x1E, 0, 0, 0, 0x01, 0); /* PREVENT */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x02, 0); /* eject refused */
    expect_cc(&lu, &c, 0x5, 0x53, 0x02);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x1E, 0, 0, 0, 0x04, 0);
    expect_cc(&lu, &c, 0x5, 0x24, 0x00);
    c = RUN(&lu, 0x1E, 0, 0, 0, 0x00, 0); /* ALLOW */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x02, 0); /* eject */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x3A, 0x00);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x03, 0); /* load */
    assert_int_equal(c.status, 0);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x6, 0x28, 0x00);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0);
    expect_data(&c, cdstore, 2048);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x00, 0); /* stop without eject */
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x04, 0x02);
    c = RUN(&lu, 0x1B, 0, 0, 0, 0x01, 0);
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(c.status, 0);
    pcam_simlu_cdrom_load(&lu, NULL, 0); /* removed by hand */
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    expect_cc(&lu, &c, 0x2, 0x3A, 0x00);
}

/* Disk of 1000 blocks of 512 with the default mechanism:
 * blocks per track = 8,333,333 * 10,000 / (10^6 * 512) = 162, so 7 tracks;
 * a block takes 512 * 10^6 / 10,000 = 51,200 ns; angle(s) = (s % 162) *
 * 8,333,333 / 162. */
static uint64_t timed_read(uint64_t lba, uint8_t n)
{
    pcam_simlu_cmd c = RUN(&lu, 0x28, 0, 0, 0, (uint8_t)(lba >> 8), (uint8_t)lba, 0, 0, n, 0);
    assert_int_equal(c.status, 0);
    assert_true(c.media);
    return pcam_simlu_service(&lu, &c);
}

static void service_times(void **state)
{
    (void)state;
    pcam_simlu_cmd c;

    /* Seek costs from track 0: same track 0; one track = track-to-track;
     * two tracks: f = 1 * 2^20 / 5 = 209,715, isqrt 457, 10^6 + 15 * 10^6 *
     * 457 / 1024 = 7,694,335; three: f = 419,430, isqrt 647 -> 10,477,539;
     * the last track (6): full stroke. */
    assert_int_equal(pcam_simlu_seek_cost(&lu, 0), 0);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 161), 0);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 162), 1000000);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 324), 7694335);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 486), 10477539);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 999), 16000000);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 5000), 16000000); /* clamped, no crash */
    /* Same track, head at 0: no seek; the platter turned 500,000 ns during the
     * overhead; sector 10 is at 514,403; latency 14,403. 500,000 + 14,403 + 51,200. */
    assert_int_equal(timed_read(10, 1), 565603);
    assert_int_equal(lu.head_lba, 11);
    assert_int_equal(lu.last_end_lba, 11);
    /* Continues the last read, 8 blocks <= 128: 500,000 + 8 * 51,200. */
    assert_int_equal(timed_read(11, 8), 909600);
    assert_int_equal(lu.head_lba, 19);
    /* Continues it but 129 blocks > 128: no cache. Sector 19 at 977,366 has
     * just passed (overhead): latency 8,333,333 - 500,000 = 7,833,333;
     * 500,000 + 7,833,333 + 129 * 51,200 = 14,938,133. */
    assert_int_equal(timed_read(19, 129), 14938133);
    /* Exactly 128 blocks continuing that read: a hit, 500,000 + 128 * 51,200. */
    assert_int_equal(timed_read(148, 128), 7053600);
    /* Full stroke from track 0 to sector 0 of track 6 (LBA 972): the platter
     * turned 500,000 + 16,000,000 = 8,166,667 mod a revolution; latency
     * 166,666. 500,000 + 16,000,000 + 166,666 + 51,200 = 16,717,866. */
    lu.head_lba = 0;
    assert_int_equal(timed_read(972, 1), 16717866);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 0), 16000000);
    /* A write right after a read gets no cache and empties it: sector 11
     * passed during the overhead (angle 565,843): 500,000 + 7,833,333 + 51,200. */
    lu.head_lba = 0;
    (void)timed_read(10, 1);
    c = RUN(&lu, 0x2A, 0, 0, 0, 0, 11, 0, 0, 1, 0);
    assert_int_equal(pcam_simlu_service(&lu, &c), 8384533);
    assert_int_equal(lu.last_end_lba, UINT64_MAX);
    /* RCD (read cache disable) turns the read-ahead off. */
    lu.head_lba = 0;
    (void)timed_read(10, 1);
    lu.mode_caching[2] |= 0x01;
    assert_int_equal(timed_read(11, 1), 8384533);
    /* Commands without media access cost nothing and leave the head. */
    c = RUN(&lu, 0x00, 0, 0, 0, 0, 0);
    assert_int_equal(pcam_simlu_service(&lu, &c), 0);
    assert_int_equal(lu.head_lba, 12);
    /* A medium error costs the trip to the failing block; the cache is empty after. */
    assert_int_equal(pcam_simlu_add_medium_error(&lu, 14), 0);
    c = RUN(&lu, 0x28, 0, 0, 0, 0, 12, 0, 0, 8, 0);
    assert_int_equal(c.status, 2);
    assert_true(pcam_simlu_service(&lu, &c) > 0);
    assert_int_equal(lu.head_lba, 15);
    assert_int_equal(lu.last_end_lba, UINT64_MAX);
}

static void service_odd_timings(void **state)
{
    (void)state;
    pcam_simlu_cmd c = RUN(&lu, 0x28, 0, 0, 0, 0, 10, 0, 0, 1, 0);
    pcam_simlu_cmd keep = c;

    /* Zeroed mechanism: no division by zero, every term 0. */
    memset(&lu.timing, 0, sizeof lu.timing);
    assert_int_equal(pcam_simlu_service(&lu, &c), 0);
    assert_int_equal(pcam_simlu_seek_cost(&lu, 999), 0);
    /* Huge values saturate rather than trap. */
    lu.timing.rotation_ns = UINT64_MAX;
    lu.timing.media_kbps = 1;
    lu.timing.seek_max_ns = UINT64_MAX / 2;
    lu.head_lba = 0;
    (void)pcam_simlu_service(&lu, &keep);
    (void)pcam_simlu_seek_cost(&lu, 999);
    /* The quad-speed CD-ROM's defaults (sim_lu_cdrom.c). */
    pcam_simlu_cdrom_timing(&lu.timing);
    assert_int_equal(lu.timing.overhead_ns, 1000000);
    assert_int_equal(lu.timing.seek_max_ns, 250000000);
    assert_int_equal(lu.timing.media_kbps, 600);
}

/* A seeded stream of mostly-malformed CDBs against every kind of LU, with
 * random buffer sizes: nothing may be written past the buffer (run_cdb's
 * canary), sense must stay fixed-format, and data-out must never reach
 * outside the store (Valgrind / ASan watch the memcpy). */
static void random_cdbs_never_overflow(void **state)
{
    (void)state;
    static const uint8_t ops[] = { 0x00, 0x03, 0x08, 0x0A, 0x12, 0x15, 0x1A, 0x1B, 0x1E, 0x25,
                                   0x28, 0x2A, 0x2F, 0x35, 0x43, 0x55, 0x5A, 0x88, 0x8A, 0x8F,
                                   0x91, 0x9E, 0xA0, 0xA8, 0xAA, 0xAF, 0x7F, 0xFF };
    uint64_t x = 0x9E3779B97F4A7C15ull;
    uint8_t cdb[16];

    for (int kind = 0; kind < 4; kind++) {
        if (kind == 0)
            setup_disk(NULL);
        else if (kind == 1)
            pcam_simlu_init_cdrom(&lu, cdstore, 100, "PCAM", "SIMCD");
        else if (kind == 2)
            pcam_simlu_init_cdrom(&lu, NULL, 0, "PCAM", "SIMCD");
        else
            pcam_simlu_init_absent(&lu);
        for (int i = 0; i < 6000; i++) {
            uint8_t len;
            uint32_t cap;
            pcam_simlu_cmd c;

            for (size_t b = 0; b < sizeof cdb; b++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                cdb[b] = (uint8_t)(x >> 24);
            }
            cdb[0] = ops[cdb[0] % sizeof ops];
            if (cdb[1] & 0x80) /* keep LBAs small half the time */
                memset(cdb + 2, 0, 6);
            /* Mostly the group's length, sometimes any length up to 16. */
            if (cdb[15] & 0x10)
                len = (uint8_t)(cdb[15] % 17);
            else
                len = cdb[0] < 0x20 ? 6 : cdb[0] < 0x60 ? 10 : cdb[0] < 0xA0 ? 16 : 12;
            cap = (uint32_t)(x >> 40) % 3 == 0 ? (uint32_t)(x % 40) : (uint32_t)(x % 5000);
            c = run_cdb(&lu, cdb, len, cap, x & 0xFFF);
            if (c.status == 2) {
                assert_int_equal(lu.sense[0] & 0x7F, 0x70);
            } else if (c.dir == PCAM_DIR_OUT) {
                for (uint32_t b = 0; b < c.xfer_len; b++)
                    test_buf[b] = (uint8_t)(x >> (b % 56));
                assert_true(pcam_simlu_finish_out(&lu, &c) <= 0);
                assert_true(c.status == 0 || c.status == 2);
            }
            (void)pcam_simlu_service(&lu, &c);
            if ((i & 63) == 0) {
                lu.ua_pending = (x & 1) != 0;
                lu.stopped = false;
                if (lu.kind == PCAM_SIMLU_CDROM && lu.store == NULL && kind == 1)
                    pcam_simlu_cdrom_load(&lu, cdstore, 100);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(mode_sense_pages, setup_disk),
        cmocka_unit_test_setup(mode_select_applies_changeable_bits, setup_disk),
        cmocka_unit_test_setup(mode_select_rejects, setup_disk),
        cmocka_unit_test_setup(finish_out_checks_the_command_again, setup_disk),
        cmocka_unit_test(absent_lu),
        cmocka_unit_test(cdrom),
        cmocka_unit_test(cdrom_toc),
        cmocka_unit_test(cdrom_eject_and_load),
        cmocka_unit_test_setup(service_times, setup_disk),
        cmocka_unit_test_setup(service_odd_timings, setup_disk),
        cmocka_unit_test(random_cdbs_never_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
