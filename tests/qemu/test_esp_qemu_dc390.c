/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 37 on QEMU's Tekram DC-390 (an AM53C974 with a 93C46 EEPROM,
 * hw/scsi/esp-pci.c): the EEPROM the test writes through the 93C46's own
 * write protocol (EWEN, ERAL, WRITE per word, EWDS) on the card's pins in
 * PCI configuration space becomes the core's per-target limits, its host ID
 * and its tag count; QEMU's own default image is decoded as QEMU's source
 * fills it; a bad checksum, a blank EEPROM and an impossible host ID leave
 * the AM53C974's defaults with a warning in the log; a plain AM53C974 has
 * no EEPROM to answer. Expectations are worked out here by hand from the
 * bytes written, not by the decoder under test.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "qemu_bus.h"
#include "qemu_rig.h"

static pcam_qemu_drive drives[2];

/* ---- the test's own 93C46 writer ---- */

static void pin(qbus *b, uint8_t v)
{
    assert_int_equal(pcam_qemu_pci_cfg_write(b->q, &b->pci, 0x80, 1, v), 0);
}

static void cs_low(qbus *b)
{
    assert_int_equal(pcam_qemu_pci_cfg_write(b->q, &b->pci, 0xC0, 1, 0), 0);
}

/* Clock `n` bits of `v`, most significant first (DI = 0x40, SK = 0x80). */
static void clock_bits(qbus *b, uint32_t v, unsigned n)
{
    while (n-- > 0) {
        uint8_t di = ((v >> n) & 1u) != 0 ? 0x40 : 0;
        pin(b, di);
        pin(b, (uint8_t)(di | 0x80));
        pin(b, di);
    }
}

/* One instruction: start bit, 2-bit opcode, 6-bit address, then data; CS
 * low afterwards starts the erase or write. */
static void instr(qbus *b, unsigned op, unsigned addr, int data)
{
    cs_low(b);
    clock_bits(b, 1u << 8 | (op & 3u) << 6 | (addr & 0x3Fu), 9);
    if (data >= 0)
        clock_bits(b, (uint32_t)data, 16);
    cs_low(b);
}

typedef struct image {
    uint8_t raw[128];
} image;

static int write_eeprom(qbus *b, void *arg)
{
    const image *im = arg;
    unsigned w;

    instr(b, 0, 0x30, -1); /* EWEN */
    instr(b, 0, 0x20, -1); /* ERAL: every word 0xFFFF */
    for (w = 0; w < 64; w++)
        instr(b, 1, w, im->raw[2 * w] | im->raw[2 * w + 1] << 8);
    instr(b, 0, 0x00, -1); /* EWDS */
    return 0;
}

/* Erased and left so: the blank part of a new card. */
static int blank_eeprom(qbus *b, void *arg)
{
    (void)arg;
    instr(b, 0, 0x30, -1);
    instr(b, 0, 0x20, -1);
    instr(b, 0, 0x00, -1);
    return 0;
}

static void seal(image *im)
{
    uint16_t sum = 0;
    unsigned i;

    im->raw[126] = im->raw[127] = 0;
    for (i = 0; i < 126; i += 2)
        sum = (uint16_t)(sum + (im->raw[i] | im->raw[i + 1] << 8));
    sum = (uint16_t)(0x1234u - sum);
    im->raw[126] = (uint8_t)sum;
    im->raw[127] = (uint8_t)(sum >> 8);
}

/* The written card: host ID 6, tag code 1 (4 tags), mode 2 0x08, and per
 * target (mode, speed): 0 sync 5.0 MB/s + disconnect + tags + parity;
 * 1 asynchronous, disconnect, no tags; 2 sync 2.0 MB/s, tags but no
 * disconnect; 3 start unit only; 7 (a disk, reachable now the host is 6)
 * sync 6.7 MB/s, disconnect, tags. */
static void card(image *im)
{
    memset(im, 0, sizeof *im);
    im->raw[0] = 0x17; im->raw[1] = 4;
    im->raw[4] = 0x05; im->raw[5] = 0;
    im->raw[8] = 0x13; im->raw[9] = 7;
    im->raw[12] = 0x08; im->raw[13] = 3;
    im->raw[28] = 0x16; im->raw[29] = 2;
    im->raw[64] = 6;
    im->raw[65] = 0x08;
    im->raw[66] = 3;
    im->raw[67] = 1;
    seal(im);
}

/* What the core's user limits must be: worked out from the bytes above with
 * SPI period factors (period / 4 ns: 200 ns = 50, 500 ns = 125, 150 ns =
 * 37), offset 15 (the chip's largest) when synchronous. */
typedef struct want {
    uint8_t target, period, offset;
    bool disconnect, tagged;
} want;

static const want card_wants[] = {
    {0, 50, 15, true, true},
    {1, 0, 0, true, false},
    {2, 125, 15, false, false},
    {3, 0, 0, false, false},
    {4, 0, 0, false, false},
    {7, 37, 15, true, true},
};

static void get_user(qbus *b, uint8_t t, pcam_xfer_settings *out, uint32_t *status)
{
    qccb c;

    memset(&c, 0, sizeof c);
    c.ccb.u.tran.type = PCAM_TRAN_USER;
    *status = qbus_func(b, &c, PCAM_FN_GET_TRAN, t, 0, 1000) & PCAM_STATUS_MASK;
    *out = c.ccb.u.tran.settings;
}

static uint8_t host_id(qbus *b)
{
    qccb c;

    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_PATH_INQ, 0, 0, 1000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    return c.ccb.u.pathinq.initiator_id;
}

static void start_dc390(qbus *b, int (*hook)(qbus *, void *), void *arg, FILE *log)
{
    qbus_opts o;

    memset(&o, 0, sizeof o);
    o.before_attach = hook;
    o.before_attach_arg = arg;
    o.log_file = log;
    o.log_level = PCAM_LOG_INFO;
    qbus_start_chip(b, &pcam_qemu_chip_dc390, drives, 2, &o);
}

static void slurp(FILE *f, char *buf, size_t cap)
{
    size_t n;

    fflush(f);
    rewind(f);
    n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
}

/* QEMU fills its EEPROM itself (dc390_scsi_realize): targets 0..15 mode
 * 0x57 at even bytes 0..30, so with four bytes a target, targets 0..7 have
 * mode 0x57 (parity, sync, disconnect, tags; 0x40 undefined) at speed 0
 * (10 MB/s, factor 25); host ID 7; tag code 4 (32 tags); checksum right. */
static void test_qemu_default_eeprom(void **state)
{
    qbus b;
    const pcam_qemu_dc390 *d;
    pcam_xfer_settings s;
    uint32_t st;
    uint8_t t;

    (void)state;
    start_dc390(&b, NULL, NULL, NULL);
    d = b.sc;
    assert_int_equal(d->nvram_read, PCAM_OK);
    assert_int_equal(d->nvram_parse, PCAM_OK);
    assert_true(d->nvram.valid);
    assert_int_equal(host_id(&b), 7);
    assert_int_equal(d->nvram.max_tags, 32);
    assert_int_equal(d->nvram.mode2, 0x0F);
    assert_int_equal(b.bus.cfg.tag_depth_max, 32);
    for (t = 0; t < 7; t++) {
        assert_int_equal(d->nvram.target[t].mode, 0x57);
        get_user(&b, t, &s, &st);
        assert_int_equal(st, PCAM_REQ_CMP);
        assert_int_equal(s.period, 25);
        assert_int_equal(s.offset, 15);
        assert_int_equal(s.width, 0);
        assert_true(s.disconnect);
        assert_true(s.tagged);
    }
    qbus_stop(&b);
}

static void test_written_eeprom_sets_the_limits(void **state)
{
    qbus b;
    image im;
    const pcam_qemu_dc390 *d;
    pcam_xfer_settings s;
    uint32_t st;
    size_t i;
    qccb c;
    uint8_t buf[512];
    uint8_t want_blk[512];

    (void)state;
    card(&im);
    start_dc390(&b, write_eeprom, &im, NULL);
    d = b.sc;
    assert_int_equal(d->nvram_read, PCAM_OK);
    assert_int_equal(d->nvram_parse, PCAM_OK);
    assert_int_equal(host_id(&b), 6);
    assert_int_equal(d->nvram.max_tags, 4);
    assert_int_equal(d->nvram.reset_delay_s, 3);
    assert_int_equal(b.bus.cfg.tag_depth, 4);
    assert_int_equal(b.bus.cfg.tag_depth_max, 4);
    assert_true(d->nvram.target[3].start_unit);
    assert_false(d->nvram.target[0].start_unit);
    for (i = 0; i < sizeof card_wants / sizeof card_wants[0]; i++) {
        const want *w = &card_wants[i];
        get_user(&b, w->target, &s, &st);
        assert_int_equal(st, PCAM_REQ_CMP);
        printf("target %u: period %u offset %u disconnect %d tags %d\n", w->target, s.period, s.offset,
               s.disconnect, s.tagged);
        assert_int_equal(s.period, w->period);
        assert_int_equal(s.offset, w->offset);
        assert_int_equal(s.width, 0);
        assert_int_equal(s.disconnect, w->disconnect);
        assert_int_equal(s.tagged, w->tagged);
    }
    /* ID 6 is ours now; 7 is a target. */
    get_user(&b, 6, &s, &st);
    assert_int_equal(st, PCAM_PATH_INVALID);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 30000) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    memset(&c, 0, sizeof c);
    c.ccb.u.dev.present = false;
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_GET_DEV, 7, 0, 1000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(c.ccb.u.dev.present);
    qbus_rw(&b, 7, false, false, 5, 1, buf, NULL, 0);
    qrig_sector(want_blk, 5, 7000);
    assert_memory_equal(buf, want_blk, sizeof buf);
    qbus_stop(&b);
}

/* One of the defaults' checks: the core's own limits for target t (the
 * AM53C974's fastest, 100 ns = factor 25, offset 15, disconnect, tags). */
static void assert_defaults(qbus *b)
{
    pcam_xfer_settings s;
    uint32_t st;
    uint8_t t;

    assert_int_equal(host_id(b), 7);
    for (t = 0; t < 7; t++) {
        get_user(b, t, &s, &st);
        assert_int_equal(st, PCAM_REQ_CMP);
        assert_int_equal(s.period, 25);
        assert_int_equal(s.offset, 15);
        assert_true(s.disconnect);
        assert_true(s.tagged);
    }
}

static void expect_fallback(int (*hook)(qbus *, void *), void *arg, pcam_err want_err, const char *want_line)
{
    qbus b;
    FILE *log = tmpfile();
    char text[8192];
    pcam_bus_config def;
    const pcam_qemu_dc390 *d;

    assert_non_null(log);
    start_dc390(&b, hook, arg, log);
    d = b.sc;
    assert_int_equal(d->nvram_read, PCAM_OK);
    assert_int_equal(d->nvram_parse, want_err);
    assert_false(d->nvram.valid);
    assert_defaults(&b);
    pcam_bus_config_defaults(&def);
    assert_int_equal(b.bus.cfg.tag_depth_max, def.tag_depth_max);
    qbus_stop(&b);
    slurp(log, text, sizeof text);
    fclose(log);
    if (strstr(text, want_line) == NULL)
        fail_msg("no \"%s\" in the log:\n%s", want_line, text);
}

static void test_bad_checksum_falls_back(void **state)
{
    image im;

    (void)state;
    card(&im);
    im.raw[4] ^= 0x04; /* target 1 loses disconnect; the checksum no longer adds up */
    expect_fallback(write_eeprom, &im, PCAM_ERR_FORMAT,
                    "W: DC-390 EEPROM: the EEPROM checksum is wrong (blank or corrupt); AM53C974 defaults");
}

static void test_blank_eeprom_falls_back(void **state)
{
    (void)state;
    expect_fallback(blank_eeprom, NULL, PCAM_ERR_FORMAT, "checksum is wrong (blank or corrupt); AM53C974 defaults");
}

static void test_impossible_host_id_falls_back(void **state)
{
    image im;

    (void)state;
    card(&im);
    im.raw[64] = 9;
    seal(&im);
    expect_fallback(write_eeprom, &im, PCAM_ERR_RANGE, "DC-390 EEPROM: the EEPROM's host ID is above 7; AM53C974 defaults");
}

/* The plain AM53C974 has the same PCI IDs; what tells them apart is that
 * no EEPROM answers on its pins (no dummy 0 bit before the data). */
static void test_plain_am53c974_has_no_eeprom(void **state)
{
    qbus b;
    pcam_dc390_cfg_io io;
    uint8_t raw[PCAM_DC390_EEPROM_BYTES];
    size_t i;

    (void)state;
    qbus_start_chip(&b, &pcam_qemu_chip_am53c974, drives, 1, NULL);
    pcam_qemu_dc390_cfg_io(&b, &io);
    assert_int_equal(pcam_dc390_read_eeprom(&io, raw), PCAM_ERR_UNSUPPORTED);
    for (i = 0; i < sizeof raw; i++)
        assert_int_equal(raw[i], 0xFF);
    assert_int_equal(host_id(&b), 7);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qemu_default_eeprom),
        cmocka_unit_test(test_written_eeprom_sets_the_limits),
        cmocka_unit_test(test_bad_checksum_falls_back),
        cmocka_unit_test(test_blank_eeprom_falls_back),
        cmocka_unit_test(test_impossible_host_id_falls_back),
        cmocka_unit_test(test_plain_am53c974_has_no_eeprom),
    };

    qrig_require_qemu();
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("dc390-t0.img", 2048, 0);
    drives[0].scsi_id = 0;
    drives[1].image = qrig_image("dc390-t7.img", 2048, 7000);
    drives[1].scsi_id = 7;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
