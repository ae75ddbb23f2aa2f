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

static void test_media_errors_and_absent(void **state)
{
    pcam_mpt_stats st;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    /* The IOC's autosense carries the sense; nobody at ID 5 is DEVICE NOT THERE. */
    qbus_check_media_errors(&b, SALT);
    pcam_mpt_get_stats(b.sc, &st);
    assert_int_equal(st.bad_replies, 0);
    qbus_stop(&b);
}

static void test_bus_reset_in_flight(void **state)
{
    pcam_mpt_stats st;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    qbus_check_bus_reset_in_flight(&b, SALT); /* RESET BUS task management */
    pcam_mpt_get_stats(b.sc, &st);
    assert_true(st.bus_resets >= 1);
    assert_true(st.task_mgmt >= 1);
    qbus_stop(&b);
}

static void test_device_resets(void **state)
{
    pcam_mpt_stats st;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    /* TARGET RESET and LOGICAL UNIT RESET task management; where no device
     * is, the IOC says so. */
    assert_int_not_equal(qbus_check_device_resets(&b, SALT), PCAM_REQ_CMP);
    pcam_mpt_get_stats(b.sc, &st);
    assert_true(st.task_mgmt >= 3);
    qbus_stop(&b);
}

static void test_abort_held(void **state)
{
    qbus b;
    (void)state;
    qbus_start_monitor(&b, drives, 1, NULL);
    qbus_check_abort_held(&b, SALT);
    qbus_stop(&b);
}

static void test_hot_removal(void **state)
{
    qbus b;
    qccb c;
    (void)state;
    qbus_start_monitor(&b, drives, 2, NULL);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    qbus_read_check(&b, 2, 10, SALT2);
    qbus_check_hot_removal(&b, "hd2", 2, SALT); /* the IOC sends no event: DEVICE NOT THERE */
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
    qbus_scan_lun0(&b, 0);
    qbus_read_check(&b, 0, 500, SALT);
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
    qbus_io10(&c, 0, false, 501, 1, buf, true);
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
    qbus_scan_lun0(&b, 0);
    qbus_read_check(&b, 0, 502, SALT);
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
