/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym with the core on QEMU's lsi53c895a (label qemu), the error paths:
 * a write error injected by blkdebug reaches the CCB as CHECK CONDITION
 * with its sense (fetched by the core's REQUEST SENSE through the script);
 * a selection timeout; a BUS DEVICE RESET after which I/O goes on; and
 * ABORT TASK of a read held disconnected by a blkdebug break point.
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

#include "qemu_rig.h"
#include "sym_qbus.h"

#define BLOCKS 4096u
#define SALT 0x40000u

static pcam_qemu_drive drive;

static void scan0(qbus *b)
{
    qccb c;
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SCAN_LUN, 0, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
}

static void io(qccb *c, bool write, uint32_t lba, uint16_t n, uint8_t *buf, bool tagged)
{
    uint8_t cdb[10];
    cdb_rw10(cdb, write, lba, n);
    qccb_io(c, 0, 0, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * 512u);
    if (tagged) {
        c->ccb.flags |= PCAM_CCB_TAGGED;
        c->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    }
}

static void test_write_error_and_sel_timeout(void **state)
{
    uint8_t buf[4096];
    qbus b;
    qccb c;
    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    scan0(&b);
    /* blkdebug fails writes of sector 16 with EIO: scsi-disk reports
     * ABORTED COMMAND, I/O PROCESS TERMINATED (0B/00/06). */
    memset(buf, 0x3c, sizeof buf);
    io(&c, true, 16, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(c.sense[0] & 0x7f, 0x70);
    assert_int_equal(c.sense[2] & 0x0f, 0x0b);
    /* Its neighbour writes fine and reads back. */
    io(&c, true, 17, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    memset(buf, 0, 512);
    io(&c, false, 17, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(buf[0], 0x3c);
    assert_int_equal(buf[511], 0x3c);
    /* Nobody at ID 5. */
    static const uint8_t tur[6] = {0};
    qccb_io(&c, 5, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SEL_TIMEOUT);
    qbus_stop(&b);
}

static void test_bdr(void **state)
{
    uint8_t buf[512], want[512];
    pcam_counters c0, c1;
    qbus b;
    qccb r, c;
    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    scan0(&b);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    memset(&r, 0, sizeof r);
    assert_int_equal(qbus_func(&b, &r, PCAM_FN_RESET_DEV, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.resets, c0.resets + 1);
    io(&c, false, 300, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, 300, SALT);
    assert_memory_equal(buf, want, 512);
    qbus_stop(&b);
}

static void test_abort_disconnected(void **state)
{
    uint8_t buf[512], want[512];
    char out[256];
    pcam_counters c0, c1;
    qbus b;
    qccb c, a, d;
    (void)state;
    qbus_start_monitor(&b, &drive, 1, NULL);
    scan0(&b);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    /* Hold the next read in the block layer: the target has disconnected
     * (SAVE DATA POINTER, DISCONNECT) and keeps the task. */
    assert_int_equal(pcam_qemu_hmp(b.q, "qemu-io d0 \"break read_aio A\"", out, sizeof out), 0);
    io(&c, false, 400, 1, buf, true);
    qbus_submit(&b, &c);
    for (int i = 0; i < 20; i++)
        qbus_step(&b, 10);
    assert_int_equal(c.done_count, 0);
    memset(&a, 0, sizeof a);
    a.ccb.u.abort.victim = &c.ccb;
    assert_int_equal(qbus_func(&b, &a, PCAM_FN_ABORT, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(&b, &c.done_count, 1, 15000));
    qbus_expect(&c, PCAM_REQ_ABORTED);
    (void)pcam_qemu_hmp(b.q, "qemu-io d0 \"resume A\"", out, sizeof out);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.aborts, c0.aborts + 1);
    /* The bus goes on. */
    io(&d, false, 401, 1, buf, true);
    qbus_sync(&b, &d, 15000);
    qbus_expect(&d, PCAM_REQ_CMP);
    qrig_sector(want, 401, SALT);
    assert_memory_equal(buf, want, 512);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_error_and_sel_timeout),
        cmocka_unit_test(test_bdr),
        cmocka_unit_test(test_abort_disconnected),
    };
    qrig_require_qemu();
    memset(&drive, 0, sizeof drive);
    drive.image = qrig_image("symf.img", BLOCKS, SALT);
    drive.scsi_id = 0;
    drive.blkdebug = qrig_text_file("blkdebug.cfg", "[inject-error]\nevent = \"write_aio\"\n"
                                                    "errno = \"5\"\nsector = \"16\"\n");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
