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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_failure_after_power_on),
    };
    qrig_require_qemu();
    setup_drives();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
