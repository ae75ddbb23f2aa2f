/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/mpt with the core on QEMU's mptsas1068 (label qemu), the error paths:
 * write and read errors injected by blkdebug reach the CCB as CHECK
 * CONDITION with the IOC's autosense; an absent target answers DEVICE NOT
 * THERE (a selection timeout to the core); a bus reset (RESET BUS task
 * management) with 16 tagged reads in flight, after which every CCB has
 * completed exactly once with the image's bytes; a target reset and a
 * LOGICAL UNIT RESET after which I/O goes on; ABORT TASK of a read held in
 * the block layer by a blkdebug break point; hot removal of a disk with
 * device_del; and an IOC fault, made by posting a request of an unknown
 * function (the model faults on it), which the core's ladder ends with a
 * chip reset: a message unit reset and a new bring-up, after which the
 * disk reads right again.
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
#include "qemu_bus.h" /* built with QBUS_MPT */

#define BLOCKS 4096u
#define SALT 0x41000u
#define SALT2 0x42000u

static pcam_qemu_drive drives[2];

static void scan(qbus *b, uint8_t t)
{
    qccb c;
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SCAN_LUN, t, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
}

static void io(qccb *c, uint8_t t, bool write, uint32_t lba, uint16_t n, uint8_t *buf, bool tagged)
{
    uint8_t cdb[10];
    cdb_rw10(cdb, write, lba, n);
    qccb_io(c, t, 0, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * 512u);
    if (tagged) {
        c->ccb.flags |= PCAM_CCB_TAGGED;
        c->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    }
}

static void read_check(qbus *b, uint8_t t, uint32_t lba, uint32_t salt)
{
    uint8_t buf[512], want[512];
    qccb c;
    memset(buf, 0, sizeof buf);
    io(&c, t, false, lba, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, lba, salt);
    assert_memory_equal(buf, want, 512);
}

static void test_media_errors_and_absent(void **state)
{
    uint8_t buf[4096];
    pcam_mpt_stats st;
    qbus b;
    qccb c;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    scan(&b, 0);
    /* blkdebug fails writes of sector 16 with EIO: scsi-disk reports
     * ABORTED COMMAND (0B); the IOC's autosense carries it. */
    memset(buf, 0x3c, sizeof buf);
    io(&c, 0, true, 16, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(c.sense[0] & 0x7f, 0x70);
    assert_int_equal(c.sense[2] & 0x0f, 0x0b);
    assert_int_equal(c.sense[12], 0x00); /* I/O PROCESS TERMINATED */
    assert_int_equal(c.sense[13], 0x06);
    /* Reads of sector 40 fail the same way. */
    memset(c.sense, 0, sizeof c.sense);
    io(&c, 0, false, 40, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.sense[2] & 0x0f, 0x0b);
    assert_int_equal(c.sense[13], 0x06);
    /* Its neighbours are fine. */
    io(&c, 0, true, 17, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    memset(buf, 0, 512);
    io(&c, 0, false, 17, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(buf[0], 0x3c);
    assert_int_equal(buf[511], 0x3c);
    read_check(&b, 0, 41, SALT);
    /* Nobody at ID 5: the IOC says DEVICE NOT THERE. */
    static const uint8_t tur[6] = {0};
    qccb_io(&c, 5, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SEL_TIMEOUT);
    pcam_mpt_get_stats(b.sc, &st);
    assert_int_equal(st.bad_replies, 0);
    qbus_stop(&b);
}

#define N 16
static unsigned ndone;
static void count_cb(qccb *c)
{
    (void)c;
    ndone++;
}

static void test_bus_reset_in_flight(void **state)
{
    qccb *c = calloc(N, sizeof *c);
    uint8_t *buf = malloc(N * 4096), want[512];
    pcam_mpt_stats st;
    qbus b;
    qccb r;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    scan(&b, 0);
    ndone = 0;
    for (unsigned i = 0; i < N; i++) {
        io(&c[i], 0, false, 200 + 8 * i, 8, buf + 4096 * i, true);
        c[i].on_done = count_cb;
        qbus_submit(&b, &c[i]);
    }
    memset(&r, 0, sizeof r);
    assert_int_equal(qbus_func(&b, &r, PCAM_FN_RESET_BUS, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(&b, &ndone, N, 30000));
    unsigned lost = 0;
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(c[i].done_count, 1);
        assert_int_equal(c[i].ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
        if (c[i].ccb.u.io.resid == 4096) {
            lost++; /* met the reset's UNIT ATTENTION with its sense gone (tests/sym's absorb_ua) */
            continue;
        }
        assert_int_equal(c[i].ccb.u.io.resid, 0);
        for (unsigned k = 0; k < 8; k++) {
            qrig_sector(want, 200 + 8 * i + k, SALT);
            assert_memory_equal(buf + 4096 * i + 512 * k, want, 512);
        }
    }
    assert_true(lost <= 1);
    read_check(&b, 0, 250, SALT);
    pcam_mpt_get_stats(b.sc, &st);
    assert_true(st.bus_resets >= 1);
    assert_true(st.task_mgmt >= 1);
    free(c);
    free(buf);
    qbus_stop(&b);
}

/* qbus_func() clears the flags, and the LUN reset is one. */
static uint32_t reset_dev(qbus *b, uint8_t t, bool lun_reset)
{
    qccb r;
    memset(&r, 0, sizeof r);
    r.ccb.func = PCAM_FN_RESET_DEV;
    r.ccb.target = t;
    r.ccb.flags = lun_reset ? PCAM_CCB_LUN_RESET : 0;
    return qbus_sync(b, &r, 15000) & PCAM_STATUS_MASK;
}

static void test_device_resets(void **state)
{
    pcam_counters c0, c1;
    pcam_mpt_stats st;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    scan(&b, 0);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    assert_int_equal(reset_dev(&b, 0, false), PCAM_REQ_CMP);
    read_check(&b, 0, 300, SALT);
    assert_int_equal(reset_dev(&b, 0, true), PCAM_REQ_CMP);
    read_check(&b, 0, 301, SALT);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.resets, c0.resets + 2);
    /* A LUN reset where no device is: the IOC says so. */
    uint32_t rs = reset_dev(&b, 5, true);
    printf("LUN reset at ID 5: 0x%x\n", rs);
    assert_int_not_equal(rs, PCAM_REQ_CMP);
    pcam_mpt_get_stats(b.sc, &st);
    assert_true(st.task_mgmt >= 3);
    qbus_stop(&b);
}

static void test_abort_held(void **state)
{
    uint8_t buf[512];
    char out[256];
    pcam_counters c0, c1;
    qbus b;
    qccb c, a;
    (void)state;
    qbus_start_monitor(&b, drives, 1, NULL);
    scan(&b, 0);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    /* Hold the next read in the block layer: the IOC keeps the task. */
    assert_int_equal(pcam_qemu_hmp(b.q, "qemu-io d0 \"break read_aio A\"", out, sizeof out), 0);
    io(&c, 0, false, 400, 1, buf, true);
    qbus_submit(&b, &c);
    for (int i = 0; i < 20; i++)
        qbus_step(&b, 10);
    assert_int_equal(c.done_count, 0);
    /* QEMU's model answers ABORT TASK once the block layer has let go of
     * the request (scsi_req_cancel_async): the break point is resumed
     * while the abort is outstanding, and the read ends as aborted. */
    memset(&a, 0, sizeof a);
    a.ccb.func = PCAM_FN_ABORT;
    a.ccb.u.abort.victim = &c.ccb;
    qbus_submit(&b, &a);
    for (int i = 0; i < 10; i++)
        qbus_step(&b, 10);
    assert_int_equal(c.done_count, 0);
    assert_int_equal(pcam_qemu_hmp(b.q, "qemu-io d0 \"resume A\"", out, sizeof out), 0);
    assert_true(qbus_run_until(&b, &a.done_count, 1, 15000));
    assert_int_equal(a.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(&b, &c.done_count, 1, 15000));
    qbus_expect(&c, PCAM_REQ_ABORTED);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.aborts, c0.aborts + 1);
    read_check(&b, 0, 401, SALT);
    assert_int_equal(c.done_count, 1);
    qbus_stop(&b);
}

/* Lost-device events per target at LUN 0 (test_hot_removal). */
static unsigned lost_at[16];

static void on_lost(void *arg, uint32_t code, uint8_t t, uint8_t l)
{
    (void)arg;
    if (code == PCAM_AC_LOST_DEVICE && t < 16 && l == 0)
        lost_at[t]++;
}

static void test_hot_removal(void **state)
{
    char out[512];
    uint8_t buf[512];
    pcam_mpt_stats st;
    qbus b;
    qccb c;
    (void)state;
    qbus_start_monitor(&b, drives, 2, NULL);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    memset(&c, 0, sizeof c);
    memset(lost_at, 0, sizeof lost_at);
    c.ccb.u.async.events = PCAM_AC_LOST_DEVICE;
    c.ccb.u.async.cb = on_lost;
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SET_ASYNC, 0, 0, 1000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    read_check(&b, 2, 10, SALT2);
    assert_int_equal(pcam_qemu_hmp(b.q, "device_del hd2", out, sizeof out), 0);
    /* The disk is gone from QEMU's bus once its unplug ran. */
    for (int i = 0; i < 20; i++)
        qbus_step(&b, 10);
    io(&c, 2, false, 11, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SEL_TIMEOUT);
    /* QEMU 7.2's model sends no device status event for it (docs/mpt.md),
     * so nothing calls pcam_bus_hal_device_changed(): the disk stays in the
     * table until a scan looks (the event path runs on the scriptable IOC,
     * test_mptmodel_lies.c). */
    pcam_mpt_get_stats(b.sc, &st);
    assert_int_equal(st.dev_changes, 0);
    assert_int_equal(lost_at[2], 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    assert_int_equal(lost_at[2], 1);
    assert_int_equal(lost_at[0], 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_GET_DEV, 2, 0, 1000) & PCAM_STATUS_MASK, PCAM_DEV_NOT_THERE);
    /* The other disk is untouched. */
    read_check(&b, 0, 12, SALT);
    qbus_stop(&b);
}

static void test_ioc_fault(void **state)
{
    pcam_bus_config cfg;
    pcam_mpt_stats s0, s1;
    uint8_t frame[64], buf[512], want[512];
    uint64_t gpa = 0;
    qbus b;
    qccb c;
    (void)state;
    pcam_bus_config_defaults(&cfg);
    cfg.abort_timeout_ms = 300;
    cfg.reset_settle_ms = 100;
    qbus_start(&b, drives, 1, &cfg, NULL);
    scan(&b, 0);
    read_check(&b, 0, 500, SALT);
    pcam_mpt_get_stats(b.sc, &s0);
    /* A request of function 0x7F (none) makes QEMU's model fault
     * (mptsas_process_message: INVALID_FUNCTION). Posted from outside the
     * back-end, as a broken IOC would fault on its own. */
    assert_int_equal(pcam_qemu_guest_alloc_gpa(b.q, sizeof frame, &gpa), 0);
    memset(frame, 0, sizeof frame);
    frame[3] = 0x7F;
    assert_int_equal(pcam_qemu_memwrite(b.q, gpa, frame, sizeof frame), 0);
    assert_int_equal(pcam_qemu_out(b.q, (uint32_t)b.pci.bar[0].addr + 0x40, 4, (uint32_t)gpa), 0);
    for (int i = 0; i < 10; i++)
        qbus_step(&b, 10);
    uint32_t db = 0;
    assert_int_equal(pcam_qemu_in(b.q, (uint32_t)b.pci.bar[0].addr, 4, &db), 0);
    assert_int_equal(db & 0xF0000000u, 0x40000000u); /* FAULT */
    assert_int_equal(db & 0xFFFFu, 0x0001u);         /* INVALID_FUNCTION */
    /* A read now is never answered: the timeout walks the ladder (abort,
     * device reset, bus reset: none reaches a faulted IOC) to the chip
     * reset, which brings the IOC back. The read completes exactly once. */
    memset(buf, 0, sizeof buf);
    io(&c, 0, false, 501, 1, buf, true);
    c.ccb.timeout_ms = 1000;
    qbus_sync(&b, &c, 30000);
    assert_int_equal(c.done_count, 1);
    uint32_t s = c.ccb.status & PCAM_STATUS_MASK;
    printf("read across the fault: status 0x%x\n", s);
    if (s == PCAM_REQ_CMP) {
        qrig_sector(want, 501, SALT);
        assert_memory_equal(buf, want, 512);
    }
    pcam_mpt_get_stats(b.sc, &s1);
    printf("fault: %llu faults seen (last code 0x%x), %llu message unit resets\n",
           (unsigned long long)s1.faults, s1.last_fault, (unsigned long long)s1.ioc_resets);
    assert_true(s1.faults > s0.faults);
    assert_int_equal(s1.last_fault, 0x0001);
    assert_true(s1.ioc_resets > s0.ioc_resets);
    assert_int_equal(pcam_qemu_in(b.q, (uint32_t)b.pci.bar[0].addr, 4, &db), 0);
    assert_int_equal(db & 0xF0000000u, 0x20000000u); /* OPERATIONAL again */
    /* The IOC is back: the disk reads right. */
    scan(&b, 0);
    read_check(&b, 0, 502, SALT);
    (void)pcam_qemu_guest_free(b.q, gpa);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_media_errors_and_absent),
        cmocka_unit_test(test_bus_reset_in_flight),
        cmocka_unit_test(test_device_resets),
        cmocka_unit_test(test_abort_held),
        cmocka_unit_test(test_hot_removal),
        cmocka_unit_test(test_ioc_fault),
    };
    qrig_require_qemu();
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("mptf.img", BLOCKS, SALT);
    drives[0].scsi_id = 0;
    drives[0].blkdebug = qrig_text_file("mpt-blkdebug.cfg",
                                        "[inject-error]\nevent = \"write_aio\"\nerrno = \"5\"\nsector = \"16\"\n"
                                        "[inject-error]\nevent = \"read_aio\"\nerrno = \"5\"\nsector = \"40\"\n");
    drives[1].image = qrig_image("mptf2.img", BLOCKS, SALT2);
    drives[1].scsi_id = 2;
    drives[1].device_props = "id=hd2";
    return cmocka_run_group_tests(tests, NULL, NULL);
}
