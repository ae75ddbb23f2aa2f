/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ(6) of a bad block on QEMU's AM53C974: with IDENTIFY its selection
 * is 7 bytes, short enough for the FIFO. QEMU 7.2 loses the interrupt of a
 * FIFO-loaded selection whose command goes to STATUS without moving data,
 * so hal/esp loads every selection by DMA when the DMA engine is in use;
 * the read must then end in CHECK CONDITION 3/11/00, not a timeout.
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

#define BLOCKS 256u
#define SALT 0x600000u

static pcam_qemu_drive drive;

static void test_read6_bad_block_is_medium_error(void **state)
{
    static const uint8_t tur[6] = { 0 };
    uint8_t cdb[6], buf[1024], want[512];
    pcam_esp_stats s0, s1;
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    qccb_io(&c, 2, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);

    /* blkdebug fails reads of sector 5 with ENODATA: scsi-disk answers
     * MEDIUM ERROR, UNRECOVERED READ ERROR (QEMU.md). */
    pcam_esp_get_stats(b.sc, &s0);
    cdb_rw6(cdb, false, 5, 1);
    qccb_io(&c, 2, 0, cdb, 6, PCAM_DIR_IN, buf, 512);
    assert_int_not_equal(qbus_sync(&b, &c, 8000), 0xFFFFFFFFu);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.sense[2] & 0x0f, 0x3);
    assert_int_equal(c.sense[12], 0x11);
    assert_int_equal(c.sense[13], 0x00);
    pcam_esp_get_stats(b.sc, &s1);
    /* The selection went by DMA, and so did REQUEST SENSE's: no data byte
     * was moved, so only the 7 + 7 selection bytes could have used the FIFO. */
    assert_true(s1.dma_transfers >= s0.dma_transfers + 2);
    assert_true(s1.pio_bytes - s0.pio_bytes < 14);

    /* The neighbours read by READ(6) as well, and match the image. */
    cdb_rw6(cdb, false, 4, 1);
    qccb_io(&c, 2, 0, cdb, 6, PCAM_DIR_IN, buf, 512);
    qbus_sync(&b, &c, 8000);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, 4, SALT);
    assert_memory_equal(buf, want, 512);
    cdb_rw6(cdb, false, 6, 2);
    qccb_io(&c, 2, 0, cdb, 6, PCAM_DIR_IN, buf, 1024);
    qbus_sync(&b, &c, 8000);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, 7, SALT);
    assert_memory_equal(buf + 512, want, 512);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read6_bad_block_is_medium_error),
    };

    qrig_require_qemu();
    memset(&drive, 0, sizeof drive);
    drive.image = qrig_image("read6.img", BLOCKS, SALT);
    drive.scsi_id = 2;
    drive.blkdebug = qrig_text_file("blkdebug.cfg",
                                    "[inject-error]\n"
                                    "event = \"read_aio\"\n"
                                    "errno = \"61\"\n"
                                    "sector = \"5\"\n");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
