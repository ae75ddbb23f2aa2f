/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/virtio with the core on QEMU's virtio-scsi-pci (label qemu), the
 * error paths: write and read errors injected by blkdebug reach the CCB as
 * CHECK CONDITION with the response's sense; an absent target answers
 * BAD_TARGET (a selection timeout to the core); a bus reset (a device
 * reset: virtio has no bus reset function) with 16 tagged reads in flight,
 * after which every CCB has completed exactly once with the image's bytes;
 * I_T NEXUS RESET and LOGICAL UNIT RESET on the control queue, after which
 * I/O goes on; ABORT TASK of a read held in the block layer by a blkdebug
 * break point; hot removal (device_del) and hot add (drive_add +
 * device_add) reported on the event queue; and a lying device: a used
 * index moved past what was made available (the event queue's, written
 * into the ring from outside), which the back-end refuses with a GROSS
 * ERROR the core answers with a reset, after which the disk reads right.
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

#define BLOCKS 4096u
#define SALT 0x71000u
#define SALT2 0x72000u
#define SALT4 0x74000u

static pcam_qemu_drive drives[2];
static const char *image4;

static void test_media_errors_and_absent(void **state)
{
    pcam_virtio_stats st;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    /* The response carries the sense; nobody at ID 5 is BAD_TARGET. */
    qbus_check_media_errors(&b, SALT);
    pcam_virtio_get_stats(b.sc, &st);
    assert_int_equal(st.bad_used, 0);
    qbus_stop(&b);
}

static void test_bus_reset_in_flight(void **state)
{
    pcam_virtio_stats s0, s1;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    pcam_virtio_get_stats(b.sc, &s0);
    qbus_check_bus_reset_in_flight(&b, SALT); /* a device reset, ended by the query's answer */
    pcam_virtio_get_stats(b.sc, &s1);
    assert_int_equal(s1.device_resets, s0.device_resets + 1);
    assert_int_equal(s1.bad_used, 0);
    qbus_stop(&b);
}

static void test_device_resets(void **state)
{
    pcam_virtio_stats st;
    qbus b;
    (void)state;
    qbus_start(&b, drives, 1, NULL, NULL);
    /* I_T NEXUS RESET and LOGICAL UNIT RESET on the control queue; where no
     * device is, the device says BAD_TARGET. */
    assert_int_equal(qbus_check_device_resets(&b, SALT), PCAM_SEL_TIMEOUT);
    pcam_virtio_get_stats(b.sc, &st);
    assert_int_equal(st.task_mgmt, 3);
    assert_int_equal(st.bad_used, 0);
    qbus_stop(&b);
}

static void test_abort_held(void **state)
{
    pcam_virtio_stats st;
    qbus b;
    (void)state;
    qbus_start_monitor(&b, drives, 1, NULL);
    qbus_check_abort_held(&b, SALT);
    pcam_virtio_get_stats(b.sc, &st);
    assert_int_equal(st.task_mgmt, 1);
    qbus_stop(&b);
}

static void test_hot_remove_and_add(void **state)
{
    char out[512], cmd[800];
    pcam_virtio_stats st;
    qbus b;
    qccb c;
    (void)state;
    qbus_start_monitor(&b, drives, 2, NULL);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    qbus_read_check(&b, 2, 10, SALT2);
    qbus_check_hot_removal(&b, "hd2", 2, SALT);
    pcam_virtio_get_stats(b.sc, &st);
    assert_int_equal(st.dev_removed, 1); /* the event queue said so */
    assert_int_equal(st.bad_events, 0);
    /* A new disk at ID 4: a RESCAN event, then the scan finds it. */
    snprintf(cmd, sizeof cmd, "drive_add 0 if=none,id=dnew,file=%s,format=raw", image4);
    assert_int_equal(pcam_qemu_hmp(b.q, cmd, out, sizeof out), 0);
    assert_int_equal(pcam_qemu_hmp(b.q, "device_add scsi-hd,drive=dnew,bus=scsi0.0,scsi-id=4,id=hd4", out,
                                   sizeof out),
                     0);
    for (int i = 0; i < 20; i++)
        qbus_step(&b, 10);
    pcam_virtio_get_stats(b.sc, &st);
    assert_int_equal(st.dev_added, 1);
    qbus_scan_lun0(&b, 4);
    qbus_absorb_lun_ua(&b, 4, 0);
    qbus_read_check(&b, 4, 33, SALT4);
    qbus_read_check(&b, 0, 13, SALT);
    pcam_virtio_get_stats(b.sc, &st);
    assert_int_equal(st.events, 2);
    assert_int_equal(st.bad_events, 0);
    qbus_stop(&b);
}

/* Where the event queue's used index lies in the DMA area (64-aligned in
 * the bus's allocation), from the split-ring layout of virtio 1.0 2.4:
 * descriptors (16 bytes each), the available ring (6 + 2n), the used ring
 * 4-aligned after it; hal/virtio puts the request queue (64 entries), the
 * control queue (8) and the event queue (8) one after the other, each on a
 * 64-byte boundary. */
#define VQ_USED(n) ((16u * (n) + 6u + 2u * (n) + 3u) & ~3u)
#define VQ_BYTES(n) ((VQ_USED(n) + 6u + 8u * (n) + 63u) & ~63u)
#define EVT_USED_IDX (VQ_BYTES(64u) + VQ_BYTES(8u) + VQ_USED(8u) + 2u)

static void test_lying_used_index(void **state)
{
    pcam_bus_config cfg;
    pcam_virtio_stats s0, s1;
    uint8_t buf[512];
    qbus b;
    qccb c;
    (void)state;
    pcam_bus_config_defaults(&cfg);
    cfg.abort_timeout_ms = 300;
    cfg.reset_settle_ms = 100;
    qbus_start(&b, drives, 1, &cfg, NULL);
    qbus_scan_lun0(&b, 0);
    qbus_read_check(&b, 0, 500, SALT);
    pcam_virtio_get_stats(b.sc, &s0);
    assert_int_equal((uintptr_t)b.dma & 63u, 0);
    /* The device "returns" 40 event buffers where 8 were lent (QEMU
     * itself only writes that index when it has an event). */
    uint8_t *idx = (uint8_t *)b.dma + EVT_USED_IDX;
    uint16_t v = (uint16_t)(idx[0] | idx[1] << 8);
    v = (uint16_t)(v + 40u);
    idx[0] = (uint8_t)v;
    idx[1] = (uint8_t)(v >> 8);
    /* The read's interrupt makes the next poll see the lie: the back-end
     * refuses the ring and the core resets the chip. The read completes
     * exactly once, whether before the lie was seen or retried after. */
    memset(buf, 0, sizeof buf);
    qbus_io10(&c, 0, false, 501, 1, buf, true);
    c.ccb.timeout_ms = 2000;
    qbus_sync(&b, &c, 30000);
    assert_int_equal(c.done_count, 1);
    printf("read across the lie: status 0x%x\n", c.ccb.status & PCAM_STATUS_MASK);
    pcam_virtio_get_stats(b.sc, &s1);
    assert_int_equal(s1.bad_index, s0.bad_index + 1);
    assert_true(s1.device_resets > s0.device_resets);
    qbus_scan_lun0(&b, 0);
    qbus_read_check(&b, 0, 502, SALT);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_media_errors_and_absent),
        cmocka_unit_test(test_bus_reset_in_flight),
        cmocka_unit_test(test_device_resets),
        cmocka_unit_test(test_abort_held),
        cmocka_unit_test(test_hot_remove_and_add),
        cmocka_unit_test(test_lying_used_index),
    };
    qrig_require_qemu();
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("viof.img", BLOCKS, SALT);
    drives[0].scsi_id = 0;
    drives[0].blkdebug = qrig_text_file("virtio-blkdebug.cfg",
                                        "[inject-error]\nevent = \"write_aio\"\nerrno = \"5\"\nsector = \"16\"\n"
                                        "[inject-error]\nevent = \"read_aio\"\nerrno = \"5\"\nsector = \"40\"\n");
    drives[1].image = qrig_image("viof2.img", BLOCKS, SALT2);
    drives[1].scsi_id = 2;
    drives[1].device_props = "id=hd2";
    image4 = qrig_image("viof4.img", BLOCKS, SALT4);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
