/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/virtio with the core on QEMU's virtio-scsi-pci (label qemu): the
 * capabilities and the features negotiated, the bus scan (disks at IDs 0
 * and 2; absent IDs answer BAD_TARGET, a selection timeout to the core),
 * the power-on UNIT ATTENTION absorbed through the response's sense,
 * READ/WRITE 10 and 16 compared byte for byte with the image file on the
 * host, a 20-segment scatter-gather list in one indirect table, a short
 * INQUIRY's residual, commands at depth 48 with simple, ordered and
 * head-of-queue attributes through a throttled disk so the device holds
 * many at once (counted from QEMU's own trace), and the modern-only
 * function (disable-legacy=on) reading the same image: every CCB completes
 * exactly once with the right data.
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
#include "qemu_bus.h" /* built with QBUS_VIRTIO */

#define BLOCKS 8192u
#define SALT 0x61000u
#define SALT2 0x62000u
#define SALT3 0x63000u

static const char *image, *image2, *image3;
static pcam_qemu_drive drives[2];

static void test_scan(void **state)
{
    qbus b;
    pcam_virtio_stats st;
    pcam_virtio_facts f;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    pcam_virtio_get_facts(b.sc, &f);
    printf("offered 0x%llx accepted 0x%llx, %u request queue(s), seg_max %u, max_sectors %u, "
           "max_target %u, queues %u/%u/%u\n",
           (unsigned long long)f.offered, (unsigned long long)f.accepted, f.num_queues, f.seg_max,
           f.max_sectors, f.max_target, f.queue_max[0], f.queue_max[1], f.queue_max[2]);
    /* What QEMU's model says (hw/scsi/virtio-scsi.c): VERSION_1, indirect
     * descriptors and hot plug offered; at most 255 targets. */
    assert_true((f.offered >> 32) & 1u);
    assert_true((f.offered >> 28) & 1u);
    assert_true((f.accepted >> 1) & 1u);
    assert_int_equal(f.max_target, 255);
    assert_true(f.num_queues >= 1);
    qbus_check_scan_two_disks(&b, 15); /* 15: the stand-in initiator ID; absent IDs answer BAD_TARGET */
    pcam_virtio_get_stats(b.sc, &st);
    printf("scan: %llu commands, %llu notifies, %llu interrupts\n", (unsigned long long)st.completed,
           (unsigned long long)st.notifies, (unsigned long long)st.interrupts);
    assert_true(st.completed >= 15);
    assert_int_equal(st.bad_used, 0);
    assert_int_equal(st.bad_index, 0);
    assert_int_equal(st.bad_events, 0);
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

/* 20 uneven segments in one indirect table; the INQUIRY's residual from the response. */
static void test_sg_and_short_read(void **state)
{
    qbus b;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    qbus_check_sg_and_short_inquiry(&b, image);
    qbus_stop(&b);
}

#define DEPTH 48
static void test_tagged_depth(void **state)
{
    pcam_virtio_stats st;
    pcam_bus_config cfg;
    uint8_t buf[512];
    qbus b;
    qccb sc;
    (void)state;
    static char tracefile[512];
    snprintf(tracefile, sizeof tracefile, "%s/virtio-trace.log", qrig_dir());
    /* A third disk, at ID 3, behind QEMU's I/O throttling: its reads wait
     * in the block layer, so the device really holds many commands. */
    static char drv[700];
    snprintf(drv, sizeof drv, "if=none,id=dthr,file=%s,format=raw,throttling.iops-total=200", image3);
    const char *extra[] = {"-trace", "virtio_scsi_cmd_req", "-trace", "virtio_scsi_cmd_resp", "-D", tracefile,
                           "-drive", drv, "-device", "scsi-hd,drive=dthr,bus=scsi0.0,scsi-id=3", NULL};
    pcam_bus_config_defaults(&cfg);
    cfg.tag_depth = DEPTH;
    qbus_start(&b, drives, 2, &cfg, extra);
    memset(&sc, 0, sizeof sc);
    assert_int_equal(qbus_func(&b, &sc, PCAM_FN_SCAN_LUN, 3, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    qbus_rw(&b, 3, false, false, 0, 1, buf, NULL, 0);
    qbus_check_tagged_depth(&b, 3, image3, DEPTH, 3);
    pcam_virtio_get_stats(b.sc, &st);
    printf("depth %d: %llu commands, max %u held by the device, %llu interrupts\n", DEPTH,
           (unsigned long long)st.completed, st.max_outstanding, (unsigned long long)st.interrupts);
    assert_true(st.max_outstanding >= 16);
    assert_true(st.interrupts < st.completed); /* several used entries per interrupt */
    assert_int_equal(st.bad_used, 0);
    qbus_stop(&b);
    int queued = 0, most = 0;
    qbus_trace_depth(tracefile, "virtio_scsi_cmd_req", "virtio_scsi_cmd_resp", &queued, &most);
    printf("QEMU trace: %d requests, at most %d in the device at once\n", queued, most);
    assert_true(queued >= 3 * DEPTH);
    assert_true(most >= 8);
}

/* The modern-only function (no legacy BAR, PCI 1AF4:1048) through the same entry's attach. */
static void test_modern_only(void **state)
{
    pcam_qemu_chipbus b;
    pcam_qemu_chipbus_opts o;
    char err[1024];
    uint8_t *buf, cdb[10], want[512];
    uint64_t gpa = 0;
    pcam_ccb ccb;
    (void)state;
    memset(&o, 0, sizeof o);
    o.drives = drives;
    o.ndrives = 1;
    o.log_file = stderr;
    o.log_level = PCAM_LOG_WARN;
    int rc = pcam_qemu_chipbus_open(&b, &pcam_qemu_chip_virtio_scsi_modern, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("modern-only virtio-scsi: %d: %s", rc, err);
    assert_int_equal(b.pci.device, 0x1048);
    assert_true(b.pci.bar[0].size == 0 || !b.pci.bar[0].io); /* no legacy I/O BAR */
    buf = pcam_qemu_guest_alloc(b.q, 512, &gpa);
    assert_non_null(buf);
    for (int attempt = 0; attempt < 2; attempt++) { /* the first meets the power-on UNIT ATTENTION */
        memset(&ccb, 0, sizeof ccb);
        cdb_rw10(cdb, false, 123, 1);
        ccb.func = PCAM_FN_SCSI_IO;
        ccb.target = 0;
        memcpy(ccb.u.io.cdb, cdb, 10);
        ccb.u.io.cdb_len = 10;
        ccb.u.io.dir = PCAM_DIR_IN;
        ccb.u.io.data = buf;
        ccb.u.io.data_len = 512;
        ccb.timeout_ms = 10000;
        uint32_t s = pcam_qemu_chipbus_sync(&b, &ccb, 15000) & PCAM_STATUS_MASK;
        if (s == PCAM_REQ_CMP)
            break;
        assert_int_equal(attempt, 0);
    }
    qbus_image_blocks(image, 123, 1, want);
    assert_memory_equal(buf, want, 512);
    (void)pcam_qemu_guest_free(b.q, gpa);
    assert_int_equal(pcam_qemu_chipbus_close(&b), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_sg_and_short_read),
        cmocka_unit_test(test_tagged_depth),
        cmocka_unit_test(test_modern_only),
    };
    qrig_require_qemu();
    image = qrig_image("vio0.img", BLOCKS, SALT);
    image2 = qrig_image("vio2.img", BLOCKS, SALT2);
    image3 = qrig_image("vio3.img", BLOCKS, SALT3);
    memset(drives, 0, sizeof drives);
    drives[0].image = image;
    drives[0].scsi_id = 0;
    drives[1].image = image2;
    drives[1].scsi_id = 2;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
