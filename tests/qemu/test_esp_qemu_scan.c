/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 5 on QEMU's AM53C974 with the core and hal/esp: bus scan (disks at
 * targets 0 and 2, and a LUN above 0), INQUIRY strings and READ CAPACITY as
 * QEMU reports them for the images, and an absent target timing out fast.
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

/* Distinct sizes so a swapped device would show. */
#define T0_BLOCKS 4096u
#define T2_BLOCKS 3000u
#define T2L1_BLOCKS 1234u

static pcam_qemu_drive drives[3];

static void setup_drives(void)
{
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("t0.img", T0_BLOCKS, 0);
    drives[0].scsi_id = 0;
    /* vendor/product/ver are scsi-hd properties (hw/scsi/scsi-disk.c). */
    drives[0].device_props = "vendor=PCAMQ,product=TARGET0 DISK,ver=1.23";
    drives[1].image = qrig_image("t2.img", T2_BLOCKS, 100000);
    drives[1].scsi_id = 2;
    drives[1].device_props = "product=TARGET2 LUN0";
    drives[2].image = qrig_image("t2l1.img", T2L1_BLOCKS, 200000);
    drives[2].scsi_id = 2;
    drives[2].lun = 1;
    drives[2].device_props = "product=TARGET2 LUN1";
}

/* INQUIRY text fields are space-padded (SPC-4 6.6.2). */
static void assert_field(const uint8_t *field, size_t len, const char *want)
{
    char buf[32];
    size_t n = strlen(want);

    assert_true(n <= len);
    memset(buf, ' ', len);
    memcpy(buf, want, n);
    assert_memory_equal(field, buf, len);
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_scan_finds_the_devices(void **state)
{
    qbus b;
    qccb c;
    uint64_t t0, t;
    uint8_t tg, l;
    unsigned found = 0;

    (void)state;
    qbus_start(&b, drives, 3, NULL, NULL);
    t0 = pcam_posix_now_ns();
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 30000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    t = pcam_posix_now_ns() - t0;
    printf("scan of 8 targets: %.1f ms, %llu interrupts\n", t / 1e6, (unsigned long long)b.intrs);
    /* Six absent targets must not each cost a long timeout. */
    assert_true(t < 10000000000ull);
    for (tg = 0; tg < 7; tg++) {
        for (l = 0; l < 8; l++) {
            bool want = (tg == 0 && l == 0) || (tg == 2 && l <= 1);
            uint32_t st;
            memset(&c, 0, sizeof c);
            st = qbus_func(&b, &c, PCAM_FN_GET_DEV, tg, l, 1000) & PCAM_STATUS_MASK;
            assert_int_equal(st, want ? PCAM_REQ_CMP : PCAM_DEV_NOT_THERE);
            if (c.ccb.u.dev.present != want)
                fail_msg("target %u lun %u: present=%d, expected %d", tg, l, c.ccb.u.dev.present, want);
            if (!want)
                continue;
            found++;
            assert_int_equal(c.ccb.u.dev.type, 0);
            assert_int_equal(c.ccb.u.dev.qualifier, 0);
            assert_true(c.ccb.u.dev.inquiry_len >= 36);
            if (tg == 0) {
                assert_field(c.ccb.u.dev.inquiry + 8, 8, "PCAMQ");
                assert_field(c.ccb.u.dev.inquiry + 16, 16, "TARGET0 DISK");
                assert_field(c.ccb.u.dev.inquiry + 32, 4, "1.23");
            } else {
                /* Default vendor "QEMU"; revision is QEMU's own version. */
                assert_field(c.ccb.u.dev.inquiry + 8, 8, "QEMU");
                assert_field(c.ccb.u.dev.inquiry + 16, 16, l == 0 ? "TARGET2 LUN0" : "TARGET2 LUN1");
            }
        }
    }
    assert_int_equal(found, 3);
    qbus_stop(&b);
}

static void read_capacity(qbus *b, uint8_t tg, uint8_t l, uint32_t blocks)
{
    static const uint8_t rc10[10] = { 0x25 };
    uint8_t rc16[16] = { 0x9e, 0x10 }; /* SERVICE ACTION IN(16) / READ CAPACITY(16) */
    uint8_t buf[32];
    qccb c;

    memset(buf, 0xee, sizeof buf);
    qccb_io(&c, tg, l, rc10, 10, PCAM_DIR_IN, buf, 8);
    qbus_sync(b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(c.done_count, 1);
    /* SBC-3 5.16: RETURNED LOGICAL BLOCK ADDRESS is the last LBA. */
    assert_int_equal(get_be32(buf), blocks - 1);
    assert_int_equal(get_be32(buf + 4), 512);
    assert_int_equal(c.ccb.u.io.resid, 0);

    rc16[13] = 32; /* allocation length */
    memset(buf, 0xee, sizeof buf);
    qccb_io(&c, tg, l, rc16, 16, PCAM_DIR_IN, buf, 32);
    assert_int_equal(qbus_sync(b, &c, 10000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(get_be32(buf), 0);
    assert_int_equal(get_be32(buf + 4), blocks - 1);
    assert_int_equal(get_be32(buf + 8), 512);
}

static void test_read_capacity_matches_images(void **state)
{
    pcam_counters cnt;
    qbus b;

    (void)state;
    qbus_start(&b, drives, 3, NULL, NULL);
    qbus_absorb_lun_ua(&b, 2, 1);
    /* The first media command on each LUN meets the power-on UNIT
     * ATTENTION; recovery absorbs it and the CCB still completes OK. */
    read_capacity(&b, 0, 0, T0_BLOCKS);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &cnt), PCAM_OK);
    assert_int_equal(cnt.check_conditions, 1);
    assert_int_equal(cnt.retries, 1);
    read_capacity(&b, 2, 0, T2_BLOCKS);
    read_capacity(&b, 2, 1, T2L1_BLOCKS);
    read_capacity(&b, 0, 0, T0_BLOCKS);
    qbus_stop(&b);
}

static void test_absent_target_times_out_fast(void **state)
{
    static const uint8_t tur[6] = { 0 };
    uint64_t t0, t;
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    t0 = pcam_posix_now_ns();
    qccb_io(&c, 5, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    c.ccb.u.io.retries = 0;
    assert_int_equal(qbus_sync(&b, &c, 10000) & PCAM_STATUS_MASK, PCAM_SEL_TIMEOUT);
    t = pcam_posix_now_ns() - t0;
    printf("selection of absent target 5: %.2f ms\n", t / 1e6);
    assert_int_equal(c.done_count, 1);
    assert_true(t < 1000000000ull);
    /* The bus still works afterwards. */
    qccb_io(&c, 0, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    assert_int_not_equal(qbus_sync(&b, &c, 10000), 0xFFFFFFFFu);
    assert_int_equal(c.done_count, 1);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_finds_the_devices),
        cmocka_unit_test(test_read_capacity_matches_images),
        cmocka_unit_test(test_absent_target_times_out_fast),
    };

    qrig_require_qemu();
    setup_drives();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
