/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 5 on QEMU's AM53C974 with the core and hal/esp: a medium error
 * injected by blkdebug reaches the CCB as CHECK CONDITION 3/11/00 with its
 * sense and is not retried; a CD-ROM drive with no medium says NOT READY
 * 2/3A/00 at once instead of being polled as "becoming ready".
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_bus.h"
#include "qemu_rig.h"

#define BLOCKS 1024u
#define SALT 0x300000u

static pcam_qemu_drive drives[2];

/*
 * READ(16) on purpose: with IDENTIFY its 17 selection bytes exceed the FIFO,
 * so hal/esp selects by DMA. For shorter CDBs it selects from the FIFO
 * (SELECT WITH ATN without DMA), and QEMU 7.2's model then never raises the
 * interrupt for a command that ends in STATUS without a data phase, as a
 * failed read does (its INTR register shows the cause, the line stays low):
 * READ(10) of the bad block times out. The Python probe with DMA selection
 * gets CHECK CONDITION at once, as here.
 */
static void read16(qbus *b, qccb *c, uint8_t target, uint32_t lba, uint16_t n, uint8_t *buf)
{
    uint8_t cdb[16];

    cdb_rw16(cdb, false, lba, n);
    qccb_io(c, target, 0, cdb, 16, PCAM_DIR_IN, buf, n * 512u);
    qbus_sync(b, c, 15000);
}

static void test_medium_error_no_retry_storm(void **state)
{
    static const uint8_t tur[6] = { 0 };
    uint8_t buf[1024], want[512], big[4096];
    pcam_counters c0, c1;
    uint64_t t0, t;
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    /* Use up the power-on UNIT ATTENTION. */
    qccb_io(&c, 1, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 1, &c0), PCAM_OK);

    /* blkdebug fails every read of sector 8 with ENODATA, which scsi-disk
     * reports as MEDIUM ERROR, UNRECOVERED READ ERROR (QEMU.md;
     * hw/scsi/scsi-disk.c maps the errno to sense 3/11/00). */
    t0 = pcam_posix_now_ns();
    read16(&b, &c, 1, 8, 1, buf);
    t = pcam_posix_now_ns() - t0;
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(c.sense[0] & 0x7f, 0x70);
    assert_int_equal(c.sense[2] & 0x0f, 0x3);
    assert_int_equal(c.sense[12], 0x11);
    assert_int_equal(c.sense[13], 0x00);
    assert_true(c.ccb.u.io.sense_resid < sizeof c.sense);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 1, &c1), PCAM_OK);
    /* One CHECK CONDITION, no retry: a bad block is not hammered. */
    assert_int_equal(c1.check_conditions, c0.check_conditions + 1);
    assert_int_equal(c1.retries, c0.retries);
    assert_int_equal(c1.errors, c0.errors + 1);
    printf("medium error reported in %.2f ms\n", t / 1e6);

    /* Its neighbours read fine and match the image. */
    read16(&b, &c, 1, 7, 1, buf);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, 7, SALT);
    assert_memory_equal(buf, want, 512);
    read16(&b, &c, 1, 9, 2, buf);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, 10, SALT);
    assert_memory_equal(buf + 512, want, 512);
    /* A multi-block read that covers the bad sector fails the same way. */
    read16(&b, &c, 1, 4, 8, big);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(c.sense[2] & 0x0f, 0x3);
    assert_int_equal(c.sense[12], 0x11);
    qbus_stop(&b);
}

static void test_cd_without_medium(void **state)
{
    static const uint8_t tur[6] = { 0 };
    static const uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
    uint8_t data[36];
    uint64_t t0, t;
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, &drives[1], 1, NULL, NULL);
    /* scsi-cd: peripheral type 5, removable (SPC-4 6.6.2). */
    qccb_io(&c, 3, 0, inq, 6, PCAM_DIR_IN, data, 36);
    qbus_sync(&b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(data[0] & 0x1f, 0x05);
    assert_true(data[1] & 0x80);

    t0 = pcam_posix_now_ns();
    qccb_io(&c, 3, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 20000);
    t = pcam_posix_now_ns() - t0;
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    /* NOT READY, MEDIUM NOT PRESENT (SPC-4 table of ASC/ASCQ: 3A/00). */
    assert_int_equal(c.sense[2] & 0x0f, 0x2);
    assert_int_equal(c.sense[12], 0x3a);
    assert_int_equal(c.sense[13], 0x00);
    printf("NOT READY 3A/00 reported in %.2f ms\n", t / 1e6);
    /* Not polled as "becoming ready" (that would take not_ready_wait_ms). */
    assert_true(t < 3000000000ull);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_medium_error_no_retry_storm),
        cmocka_unit_test(test_cd_without_medium),
    };

    qrig_require_qemu();
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("faults.img", BLOCKS, SALT);
    drives[0].scsi_id = 1;
    drives[0].blkdebug = qrig_text_file("blkdebug.cfg",
                                        "[inject-error]\n"
                                        "event = \"read_aio\"\n"
                                        "errno = \"61\"\n"
                                        "sector = \"8\"\n");
    drives[1].kind = PCAM_QEMU_CD;
    drives[1].image = NULL;
    drives[1].scsi_id = 3;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
