/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FreeBSD shim's translator over hal/esp on QEMU's own AM53C974 with a
 * scsi-hd (labels freebsd and qemu): CAM's call order from path inquiry and
 * the probe through da(4)'s first I/O, the power-on UNIT ATTENTION as CAM
 * sees it, S/G reads and writes checked against the image file, a
 * bus reset with its async event, and the dump path (the poll routine only).
 * Expectations come from QEMU's device model and the image, never from the
 * translator. Few cases, each with generous host-time limits.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cam_model.h"
#include "qemu_bus.h"
#include "qemu_rig.h"

#define BLOCKS 4096u
#define SALT 7000u
#define QFRZN PCAM_FBSD_CAM_DEV_QFRZN

static pcam_qemu_drive drives[1];
static const char *image;

typedef struct qfx {
    qbus b;
    cam_model m;
    bool poll_only;
} qfx;

static bool q_step(void *ctx)
{
    qfx *f = (qfx *)ctx;
    if (f->poll_only) {
        /* Interrupts off: only the SIM's poll routine, as a kernel dump runs it. */
        const char *v;
        pcam_fbsd_poll(&f->m.sim);
        if ((v = pcam_bus_check_invariants(&f->b.bus)) != NULL)
            fail_msg("core invariant violated: %s", v);
        return true;
    }
    qbus_step(&f->b, 20);
    return true;
}

static uint64_t q_now(void *ctx)
{
    (void)ctx;
    return pcam_posix_now_ns();
}

static void rw10(cm_req *q, bool write, uint32_t lba, uint16_t n, void *data, uint32_t flags)
{
    uint8_t cdb[10];
    cm_cdb_rw10(cdb, write, lba, n);
    cm_csio(q, 0, 0, cdb, 10, (write ? PCAM_FBSD_CAM_DIR_OUT : PCAM_FBSD_CAM_DIR_IN) | flags, data,
            (uint32_t)n * 512u, PCAM_FBSD_MSG_SIMPLE_Q_TAG, 30000);
}

static void tur(cm_req *q)
{
    uint8_t cdb[6] = {0};
    cm_csio(q, 0, 0, cdb, 6, PCAM_FBSD_CAM_DIR_NONE, NULL, 0, 0, 30000);
}

static void cam_order_on_qemu(void **state)
{
    static qfx f;
    static uint8_t inq[36], cap[8], buf[16 * 512], want[16 * 512], out[8 * 512], back[8 * 512];
    static pcam_fbsd_seg segs[3];
    uint8_t cdb[10];
    cm_req q;
    (void)state;

    memset(&f, 0, sizeof f);
    qbus_start(&f.b, drives, 1, NULL, NULL);
    cm_init(&f.m, &f.b.bus, q_step, q_now, &f);

    /* Path inquiry: the AM53C974 is narrow, synchronous, tag-capable, ID 7. */
    cm_func(&q, PCAM_FBSD_XPT_PATH_INQ, 0, 0);
    assert_int_equal(cm_sync(&f.m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.cpi.hba_inquiry, 0x10 | 0x02);
    assert_int_equal(q.r.cc.u.cpi.max_target, 7);
    assert_int_equal(q.r.cc.u.cpi.initiator_id, 7);
    assert_int_equal(q.r.cc.u.cpi.transport, 2);
    assert_int_equal(q.r.cc.u.cpi.transport_version, 2);

    /* The probe: INQUIRY at 0 answers, at 3 nobody does. */
    cm_cdb_inquiry(cdb, 36);
    cm_csio(&q, 0, 0, cdb, 6, PCAM_FBSD_CAM_DIR_IN, inq, 36, 0, 60000);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(inq[0] & 0x1F, 0x00);
    assert_memory_equal(inq + 8, "QEMU    ", 8);
    /* QEMU's ESP bus offers no TCQ, so its disks clear CmdQue: CAM will not tag. */
    assert_int_equal(inq[7] & 0x02, 0);
    cm_csio(&q, 3, 0, cdb, 6, PCAM_FBSD_CAM_DIR_IN, inq, 36, 0, 60000);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_SEL_TIMEOUT | QFRZN);
    cm_func(&q, PCAM_FBSD_XPT_SET_TRAN_SETTINGS, 0, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    q.r.cc.u.cts.spi_valid = PCAM_FBSD_CTS_SPI_VALID_DISC;
    q.r.cc.u.cts.spi_flags = PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB;
    assert_int_equal(cm_sync(&f.m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);

    /* The power-on UNIT ATTENTION reaches CAM sensed and frozen, once. */
    tur(&q);
    assert_int_equal(cm_sync(&f.m, &q, 30000),
                     PCAM_FBSD_CAM_SCSI_STATUS_ERROR | PCAM_FBSD_CAM_AUTOSNS_VALID | QFRZN);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x06);
    assert_int_equal(q.r.cc.u.csio.sense_data[12], 0x29);
    tur(&q);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);

    /* da(4)'s READ CAPACITY, then a read through a 3-segment list. */
    cm_cdb_readcap10(cdb);
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN, cap, 8, 0, 30000);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal((uint32_t)cap[0] << 24 | (uint32_t)cap[1] << 16 | (uint32_t)cap[2] << 8 | cap[3], BLOCKS - 1);
    assert_int_equal((uint32_t)cap[6] << 8 | cap[7], 512);
    for (uint32_t i = 0; i < 16; i++)
        qrig_sector(want + i * 512, 100 + i, SALT);
    segs[0].ds_addr = (uintptr_t)buf;
    segs[0].ds_len = 1536;
    segs[1].ds_addr = (uintptr_t)(buf + 1536);
    segs[1].ds_len = 4096;
    segs[2].ds_addr = (uintptr_t)(buf + 5632);
    segs[2].ds_len = sizeof buf - 5632;
    rw10(&q, false, 100, 16, segs, PCAM_FBSD_CAM_DATA_SG);
    q.r.cc.u.csio.sglist_cnt = 3;
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.csio.resid, 0);
    assert_memory_equal(buf, want, sizeof buf);

    /* A write lands in the image file; read back. */
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 13u + 1u);
    rw10(&q, true, 300, 8, out, 0);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);
    rw10(&q, false, 300, 8, back, 0);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);
    assert_memory_equal(back, out, sizeof out);

    /* XPT_RESET_BUS: completes, AC_BUS_RESET on the wildcard path, and the
     * disk reports the reset to the next command. */
    cm_func(&q, PCAM_FBSD_XPT_RESET_BUS, PCAM_FBSD_CAM_TARGET_WILDCARD, PCAM_FBSD_CAM_LUN_WILDCARD);
    assert_int_equal(cm_sync(&f.m, &q, 30000), PCAM_FBSD_CAM_REQ_CMP);
    const cm_event *e = cm_event_find(&f.m, PCAM_FBSD_AC_BUS_RESET, 0);
    assert_non_null(e);
    assert_int_equal(e->target, PCAM_FBSD_CAM_TARGET_WILDCARD);
    tur(&q);
    assert_int_equal(cm_sync(&f.m, &q, 30000) & ~QFRZN, PCAM_FBSD_CAM_SCSI_STATUS_ERROR | PCAM_FBSD_CAM_AUTOSNS_VALID);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x06);
    assert_int_equal(q.r.cc.u.csio.sense_data[12], 0x29);

    /* The dump path: interrupts off, the poll routine alone moves a read. */
    f.poll_only = true;
    memset(back, 0, sizeof back);
    rw10(&q, false, 300, 8, back, 0);
    assert_int_equal(cm_sync(&f.m, &q, 60000), PCAM_FBSD_CAM_REQ_CMP);
    assert_memory_equal(back, out, sizeof out);
    f.poll_only = false;
    assert_int_equal(f.m.freezes, f.m.releases);
    qbus_stop(&f.b);
    assert_true(qrig_read_file(image, 300u * 512u, back, sizeof back));
    assert_memory_equal(back, out, sizeof out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cam_order_on_qemu),
    };
    qrig_require_qemu();
    memset(drives, 0, sizeof drives);
    image = qrig_image("fbsd0.img", BLOCKS, SALT);
    drives[0].image = image;
    drives[0].scsi_id = 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
