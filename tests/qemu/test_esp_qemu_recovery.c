/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 16 on QEMU's AM53C974 with the core and hal/esp: recovery paths a
 * new user met, each against QEMU 7.2's own SCSI emulation (hw/scsi):
 *  - defect 2: the first failing command after power-on, INQUIRY of VPD
 *    page 80h on a disk with no serial (ILLEGAL REQUEST 5/24/00), ended in
 *    AUTOSENSE_FAIL: our REQUEST SENSE met the pending power-on UNIT
 *    ATTENTION, which QEMU reports to REQUEST SENSE as a CHECK CONDITION
 *    (scsi_req_new hands REQUEST SENSE to the unit-attention ops unless the
 *    stored sense already is that UA). The core asks for the sense once
 *    more, gets the UNIT ATTENTION, retries, and reports the real error:
 *    CHECK CONDITION with 5/24/00.
 *  - defect 3: a disk at LUN 3. QEMU 7.2 answers REQUEST SENSE at a LUN
 *    above 0 with ILLEGAL REQUEST 5/25/00 while the LU's UNIT ATTENTION is
 *    pending, so READ CAPACITY to 0:3 failed. The scan now clears each
 *    LU's power-on UNIT ATTENTION with a bounded TEST UNIT READY loop: the
 *    first READ CAPACITY and READ after the scan succeed with the image's
 *    size and bytes. After a bus reset the UA is back and meets a READ:
 *    the 5/25/00 from a LU the scan found is taken as that stale
 *    condition and retried, and the READ returns the image's bytes.
 *  - defect 1: a LOGICAL UNIT RESET (and a BUS DEVICE RESET) to the disk.
 *    hal/esp selects with ATN and stop and sends the reset message in
 *    MESSAGE OUT; QEMU 7.2's model does not act on it and goes on to
 *    COMMAND, taking the message bytes as the start of a CDB. The core
 *    must not report that reset as done: the RESET_DEV CCB fails with
 *    MSG_REJECT_REC, no BDR/LUN-reset event or async is given, and the
 *    disk still reads right afterwards.
 * Expectations: QEMU's behaviour (hw/scsi/scsi-bus.c, scsi-disk.c: no
 * serial property means no VPD page 80h, INVALID FIELD IN CDB), SPC-4
 * sense codes 24/00 and 29/00.
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

#include "pcam/pcam_sense.h"
#include "qemu_bus.h"
#include "qemu_rig.h"

#define BLOCKS 2048u

static pcam_qemu_drive drives[2];

static void setup_drives(void)
{
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("r0.img", BLOCKS, 0);
    drives[0].scsi_id = 0;
    drives[1].image = qrig_image("r0l3.img", BLOCKS, 500000);
    drives[1].scsi_id = 0;
    drives[1].lun = 3;
}

static void sense_of(const qccb *c, pcam_sense *s)
{
    size_t n = (size_t)(c->ccb.u.io.sense_len - c->ccb.u.io.sense_resid);
    assert_true((c->ccb.status & PCAM_AUTOSNS_VALID) != 0);
    assert_int_equal(pcam_sense_decode(c->sense, n, s), PCAM_OK);
}

static void test_first_failure_after_power_on(void **state)
{
    uint8_t cdb[6] = {0x12, 0x01, 0x80, 0x00, 0xFF, 0x00}; /* INQUIRY EVPD page 80h */
    uint8_t buf[255];
    pcam_sense s;
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    qccb_io(&c, 0, 0, cdb, 6, PCAM_DIR_IN, buf, sizeof buf);
    c.ccb.u.io.retries = 2;
    qbus_sync(&b, &c, 20000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    sense_of(&c, &s);
    assert_int_equal(s.key, PCAM_SK_ILLEGAL_REQUEST);
    assert_int_equal(s.asc, 0x24);
    assert_int_equal(s.ascq, 0x00);
    qbus_stop(&b);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void read_lun3(qbus *b, uint32_t lba)
{
    uint8_t cdb[10], buf[1024], want[512];
    qccb c;
    cdb_rw10(cdb, false, lba, 2);
    qccb_io(&c, 0, 3, cdb, 10, PCAM_DIR_IN, buf, sizeof buf);
    c.ccb.u.io.retries = 2;
    qbus_sync(b, &c, 20000);
    qbus_expect(&c, PCAM_REQ_CMP);
    for (uint32_t i = 0; i < 2; i++) {
        qrig_sector(want, lba + i, 500000);
        assert_memory_equal(buf + 512 * i, want, 512);
    }
}

static void test_lun3_ready_after_scan(void **state)
{
    static const uint8_t rc10[10] = {0x25};
    uint8_t buf[8];
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 30000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_GET_DEV, 0, 3, 1000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    /* The user's first command: no retry allowed, so a UA left over would show. */
    memset(buf, 0xEE, sizeof buf);
    qccb_io(&c, 0, 3, rc10, 10, PCAM_DIR_IN, buf, sizeof buf);
    c.ccb.u.io.retries = 0;
    qbus_sync(&b, &c, 20000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(be32(buf), BLOCKS - 1);
    assert_int_equal(be32(buf + 4), 512);
    read_lun3(&b, 7);

    /* A bus reset raises the UA again; the READ's REQUEST SENSE meets 5/25/00. */
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_RESET_BUS, 0, 0, 10000) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    read_lun3(&b, 100);
    qbus_stop(&b);
}

static unsigned events_of(qbus *b, uint16_t code)
{
    pcam_event ev[64];
    unsigned n = 0;
    size_t got;
    while ((got = pcam_bus_read_events(&b->bus, ev, 64)) != 0)
        for (size_t i = 0; i < got; i++)
            n += ev[i].code == code;
    return n;
}

static void test_reset_not_taken_is_not_done(void **state)
{
    static const uint8_t tur[6] = {0};
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 30000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    qccb_io(&c, 0, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    (void)events_of(&b, 0);
    for (int lun_reset = 1; lun_reset >= 0; lun_reset--) {
        memset(&c, 0, sizeof c);
        c.ccb.flags = lun_reset ? PCAM_CCB_LUN_RESET : 0;
        uint32_t st = qbus_func(&b, &c, PCAM_FN_RESET_DEV, 0, lun_reset ? 3 : 0, 20000);
        printf("%s on QEMU's AM53C974: %s\n", lun_reset ? "LOGICAL UNIT RESET" : "BUS DEVICE RESET",
               pcam_status_name(st));
        assert_int_equal(c.done_count, 1);
        assert_int_equal(st & PCAM_STATUS_MASK, PCAM_MSG_REJECT_REC);
        assert_int_equal(events_of(&b, lun_reset ? PCAM_EV_LUN_RESET : PCAM_EV_BDR_SENT), 0);
        read_lun3(&b, 20);
    }
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_failure_after_power_on),
        cmocka_unit_test(test_lun3_ready_after_scan),
        cmocka_unit_test(test_reset_not_taken_is_not_done),
    };
    qrig_require_qemu();
    setup_drives();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
