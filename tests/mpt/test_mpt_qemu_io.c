/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/mpt with the core on QEMU's mptsas1068 (label qemu): the bring-up
 * facts, the bus scan (disks at IDs 0 and 2; absent IDs answer DEVICE NOT
 * THERE), the power-on UNIT ATTENTION absorbed through autosense, READ/WRITE
 * 10 and 16 compared byte for byte with the image file on the host, a
 * scatter-gather list long enough to need a chain buffer, a short INQUIRY's
 * residual from an address reply, and commands at depth 32 with simple,
 * ordered and head-of-queue attributes through a throttled disk, so the
 * model holds many at once (counted from QEMU's own trace): every CCB
 * completes exactly once with the right data.
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

#define BLOCKS 8192u
#define SALT 0x21000u
#define SALT2 0x31000u
#define SALT3 0x51000u

static const char *image, *image2, *image3;
static pcam_qemu_drive drives[2];

static void test_scan(void **state)
{
    qbus b;
    pcam_mpt_stats st;
    pcam_mpt_facts f;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    pcam_mpt_get_facts(b.sc, &f);
    /* What QEMU's model reports (hw/scsi/mptsas.c): MPI 1.5, SAS port, 8 devices. */
    assert_int_equal(f.msg_version, 0x0105);
    assert_int_equal(f.port_type, 0x30);
    assert_int_equal(f.port_max_devices, 8);
    assert_true(f.replies_posted >= 64);
    assert_true(f.credits_used >= 32);
    qbus_check_scan_two_disks(&b, 8); /* 8: the port's own ID */
    pcam_mpt_get_stats(b.sc, &st);
    printf("scan: %llu commands, %llu context replies, %llu address replies, %llu interrupts\n",
           (unsigned long long)st.completed, (unsigned long long)st.context_replies,
           (unsigned long long)st.address_replies, (unsigned long long)st.interrupts);
    /* Absent IDs end in address replies (DEVICE NOT THERE); GOOD commands
     * that moved every byte end in context replies. */
    assert_true(st.context_replies >= 2);
    assert_true(st.address_replies >= 13);
    assert_int_equal(st.bad_replies, 0);
    qbus_stop(&b);
}

static void test_read_write(void **state)
{
    qbus b;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    qbus_check_read_write(&b, image, 2, SALT2);
    qbus_stop(&b);
}

/* 20 uneven segments: 9 in the request frame, 11 in its chain buffer; the
 * INQUIRY's residual comes from an address reply's transfer count. */
static void test_chained_sg_and_short_read(void **state)
{
    qbus b;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    qbus_check_sg_and_short_inquiry(&b, image);
    qbus_stop(&b);
}

#define DEPTH 32
static void test_tagged_depth(void **state)
{
    uint8_t buf[512];
    pcam_mpt_stats st;
    qbus b;
    qccb sc;
    (void)state;
    static char tracefile[512];
    snprintf(tracefile, sizeof tracefile, "%s/mpt-trace.log", qrig_dir());
    /* A third disk, at ID 3, behind QEMU's I/O throttling: its reads wait
     * in the block layer, so the model really holds many commands. */
    static char drv[700];
    snprintf(drv, sizeof drv, "if=none,id=dthr,file=%s,format=raw,throttling.iops-total=200", image3);
    const char *extra[] = {"-trace", "mptsas_process_scsi_io_request", "-trace", "mptsas_command_complete",
                           "-D", tracefile, "-drive", drv, "-device", "scsi-hd,drive=dthr,bus=scsi0.0,scsi-id=3",
                           NULL};
    qbus_start(&b, drives, 2, NULL, extra);
    memset(&sc, 0, sizeof sc);
    assert_int_equal(qbus_func(&b, &sc, PCAM_FN_SCAN_LUN, 3, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    qbus_rw(&b, 3, false, false, 0, 1, buf, NULL, 0);
    qbus_check_tagged_depth(&b, 3, image3, DEPTH, 3);
    pcam_mpt_get_stats(b.sc, &st);
    printf("depth %d: %llu commands, max %u held by the IOC, %llu interrupts, %llu context replies\n",
           DEPTH, (unsigned long long)st.completed, st.max_outstanding,
           (unsigned long long)st.interrupts, (unsigned long long)st.context_replies);
    assert_true(st.max_outstanding >= 16);
    assert_true(st.interrupts < st.completed); /* several replies per interrupt */
    qbus_stop(&b);
    /* From QEMU's side: how many commands its model held at once. */
    int queued = 0, most = 0;
    qbus_trace_depth(tracefile, "mptsas_process_scsi_io_request", "mptsas_command_complete", &queued, &most);
    printf("QEMU trace: %d requests, at most %d in the model at once\n", queued, most);
    assert_true(queued >= 3 * DEPTH);
    assert_true(most >= 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_chained_sg_and_short_read),
        cmocka_unit_test(test_tagged_depth),
    };
    qrig_require_qemu();
    image = qrig_image("mpt0.img", BLOCKS, SALT);
    image2 = qrig_image("mpt2.img", BLOCKS, SALT2);
    image3 = qrig_image("mpt3.img", BLOCKS, SALT3);
    memset(drives, 0, sizeof drives);
    drives[0].image = image;
    drives[0].scsi_id = 0;
    drives[1].image = image2;
    drives[1].scsi_id = 2;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
