/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FreeBSD shim's translator on the error paths CAM peripherals see
 * (label freebsd): tagged I/O with CAM's freeze/release protocol (the
 * failing CCB and everything requeued behind it carry CAM_DEV_QFRZN, xpt
 * holds what comes next until the peripheral releases), autosense and its
 * failure, XPT_ABORT of a queued and of a disconnected command, device and
 * bus resets with their async events, every transport failure as CAM's
 * status (no SIM retries: CAM's peripherals own them), tags and
 * disconnection as the CCB flags ask, S/G data integrity, and the dump
 * path (the poll routine only). Expectations are CAM's fields and the
 * simulated target's own counters and media.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fbsd_simfx.h"

#define QFRZN PCAM_FBSD_CAM_DEV_QFRZN
#define SNSV PCAM_FBSD_CAM_AUTOSNS_VALID
#define TAGGED (PCAM_FBSD_CAM_TAG_ACTION_VALID)

static void read10(cm_req *q, uint32_t t, uint32_t l, uint32_t lba, uint16_t n, uint8_t *buf, uint32_t flags,
                   uint8_t tag)
{
    uint8_t cdb[10];
    cm_cdb_rw10(cdb, false, lba, n);
    cm_csio(q, t, l, cdb, 10, PCAM_FBSD_CAM_DIR_IN | flags, buf, (uint32_t)n * 512u, tag, 10000);
}

static void write10(cm_req *q, uint32_t t, uint32_t l, uint32_t lba, uint16_t n, void *data, uint32_t flags)
{
    uint8_t cdb[10];
    cm_cdb_rw10(cdb, true, lba, n);
    cm_csio(q, t, l, cdb, 10, PCAM_FBSD_CAM_DIR_OUT | flags, data, (uint32_t)n * 512u, 0, 10000);
}

/* xpt's probe INQUIRY: the LUN says CmdQue, so CAM will set CAM_TAG_ACTION_VALID. */
static void probe(fbsd_fx *f, uint32_t t, uint32_t l)
{
    uint8_t cdb[6] = {0x12, 0, 0, 0, 36, 0}, inq[36];
    cm_req q;
    cm_csio(&q, t, l, cdb, 6, PCAM_FBSD_CAM_DIR_IN, inq, sizeof inq, 0, 60000);
    assert_int_equal(cm_sync(&f->m, &q, 70000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true((inq[7] & 0x02) != 0);
}

static void idle(fbsd_fx *f, uint64_t ns)
{
    uint64_t until = pcam_sim_now(f->r.sim) + ns;
    while (pcam_sim_now(f->r.sim) < until) {
        cm_drain(&f->m);
        if (!f->m.step(f->m.step_ctx))
            break;
    }
    cm_drain(&f->m);
}

static pcam_sim_target_stats tstats(fbsd_fx *f, uint8_t id)
{
    pcam_sim_target_stats s;
    pcam_sim_target_stats_get(f->r.sim, id, &s);
    return s;
}

/* Bytes of valid fixed-format sense: 8 plus the additional length (SPC). */
static uint32_t sense_bytes(const cm_req *q)
{
    return 8u + q->r.cc.u.csio.sense_data[7];
}

/*
 * Eight tagged reads on one LUN with two openings in the core; the first
 * hits a MEDIUM ERROR. It comes back sensed and frozen; the commands still
 * queued in the SIM come back as CAM_REQUEUE_REQ (frozen too), go back
 * through xpt and wait there: nothing reaches the target until the
 * peripheral releases the queue. Then every one completes with the media's
 * bytes, half of them through CAM_DATA_SG lists.
 */
static void freeze_and_requeue(void **state)
{
    (void)state;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.tag_depth = 2;
    fbsd_fx *f = fx_new(NULL, &bc);
    fx_disk(f, 0, 0, 2048, false);
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 100), 0);
    probe(f, 0, 0);
    static uint8_t bufs[8][8 * 512];
    static pcam_fbsd_seg segs[8][3];
    cm_req q[8];
    cm_req *all[8];

    f->m.manual_release = true;
    for (int i = 0; i < 8; i++) {
        uint32_t lba = i == 0 ? 100 : 200u + 8u * (uint32_t)i;
        read10(&q[i], 0, 0, lba, 8, bufs[i], TAGGED, PCAM_FBSD_MSG_SIMPLE_Q_TAG);
        if (i % 2 == 1) {
            /* 1 KiB, 2.5 KiB and 0.5 KiB */
            segs[i][0].ds_addr = (uintptr_t)bufs[i];
            segs[i][0].ds_len = 1024;
            segs[i][1].ds_addr = (uintptr_t)(bufs[i] + 1024);
            segs[i][1].ds_len = 2560;
            segs[i][2].ds_addr = (uintptr_t)(bufs[i] + 3584);
            segs[i][2].ds_len = 512;
            q[i].r.cc.ccb_h.flags |= PCAM_FBSD_CAM_DATA_SG;
            q[i].r.cc.u.csio.data_ptr = (uint8_t *)segs[i];
            q[i].r.cc.u.csio.sglist_cnt = 3;
        }
        all[i] = &q[i];
        cm_action(&f->m, &q[i]);
    }
    assert_true(cm_wait(&f->m, &q[0], 5000));
    assert_int_equal(q[0].status, PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q[0].r.cc.u.csio.scsi_status, 0x02);
    assert_int_equal(q[0].r.cc.u.csio.sense_data[0] & 0x7F, 0x70);
    assert_int_equal(q[0].r.cc.u.csio.sense_data[2] & 0x0F, 0x03); /* MEDIUM ERROR */
    assert_int_equal(q[0].r.cc.u.csio.sense_data[12], 0x11);
    assert_int_equal(q[0].r.cc.u.csio.sense_resid, PCAM_FBSD_SSD_FULL_SIZE - sense_bytes(&q[0]));
    idle(f, 500 * FX_MS);
    unsigned requeued = 0, held = 0;
    for (int i = 1; i < 8; i++) {
        requeued += q[i].requeued;
        held += q[i].finished ? 0u : 1u;
        if (q[i].finished)
            assert_int_equal(q[i].status, PCAM_FBSD_CAM_REQ_CMP); /* was at the target already */
    }
    assert_true(requeued >= 5); /* two openings: at most one other was issued */
    assert_int_equal(held, requeued);
    assert_true(f->m.dev[0][0].frozen >= 1);
    assert_non_null(f->m.dev[0][0].head);
    /* xpt holds them in the order they were first sent: none overtook another. */
    const cm_req *prev = NULL;
    for (const cm_req *h = f->m.dev[0][0].head; h != NULL; h = h->next) {
        assert_true(prev == NULL || prev < h);
        prev = h;
    }
    /* Frozen: the target sees nothing more, however long we wait. */
    uint32_t cmds = tstats(f, 0).commands;
    idle(f, 2000 * FX_MS);
    assert_int_equal(tstats(f, 0).commands, cmds);
    /* The peripheral has handled the error: cam_release_devq(). */
    cm_release(&f->m, 0, 0, 1);
    assert_true(cm_wait_all(&f->m, all + 1, 7, 10000));
    for (int i = 1; i < 8; i++) {
        assert_int_equal(q[i].status, PCAM_FBSD_CAM_REQ_CMP);
        assert_int_equal(q[i].r.cc.u.csio.resid, 0);
        assert_int_equal(q[i].sim_done, 1 + q[i].requeued);
        assert_true(fx_media_ok(f, 0, 0, 200u + 8u * (uint32_t)i, bufs[i], sizeof bufs[i]));
    }
    assert_int_equal(f->m.freezes, f->m.releases);
    assert_int_equal(f->m.dev[0][0].frozen, 0);
    fx_free(f);
}

/* REQUEST SENSE answered BUSY: the CHECK CONDITION without sense is CAM_AUTOSENSE_FAIL. */
typedef struct { int state; } busy_sense;
static bool sense_oracle(void *ctx, pcam_sim_oracle_query *q)
{
    busy_sense *b = (busy_sense *)ctx;
    if (q->what != PCAM_SIM_DEC_STATUS)
        return false;
    if (b->state == 0 && q->value == 0x02) {
        b->state = 1; /* the next status is REQUEST SENSE's */
        return false;
    }
    if (b->state == 1) {
        b->state = 2;
        q->value = 0x08;
        return true;
    }
    return false;
}

static void autosense(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 1, 0, 1024, false);
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 1, 0), 10), 0);
    static uint8_t buf[512];
    cm_req q;

    /* CAM_DIS_AUTOSENSE: the status alone, no sense touched. */
    read10(&q, 1, 0, 10, 1, buf, PCAM_FBSD_CAM_DIS_AUTOSENSE, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_SCSI_STATUS_ERROR | QFRZN);
    assert_int_equal(q.r.cc.u.csio.scsi_status, 0x02);
    assert_int_equal(q.r.cc.u.csio.sense_data[0], 0);
    assert_int_equal(q.r.cc.u.csio.sense_resid, PCAM_FBSD_SSD_FULL_SIZE);
    /* An 18-byte sense buffer is filled to its end. */
    read10(&q, 1, 0, 10, 1, buf, 0, 0);
    q.r.cc.u.csio.sense_len = 18;
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x03);
    assert_int_equal(q.r.cc.u.csio.sense_resid, 18 - (sense_bytes(&q) < 18 ? sense_bytes(&q) : 18));
    /* REQUEST SENSE itself fails. */
    busy_sense b = {0};
    pcam_sim_target_cfg(f->r.sim, 1)->oracle = sense_oracle;
    pcam_sim_target_cfg(f->r.sim, 1)->oracle_ctx = &b;
    read10(&q, 1, 0, 10, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_AUTOSENSE_FAIL | QFRZN);
    assert_int_equal(q.r.cc.u.csio.scsi_status, 0x02);
    assert_int_equal(b.state, 2);
    pcam_sim_target_cfg(f->r.sim, 1)->oracle = NULL;
    /* And a good read after it all. */
    read10(&q, 1, 0, 20, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(fx_media_ok(f, 1, 0, 20, buf, 512));
    assert_int_equal(f->m.freezes, f->m.releases);
    fx_free(f);
}

/* XPT_ABORT of a command still queued in the SIM and of one disconnected at the target. */
static void abort_queued_and_disconnected(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 1, 0, 1024, false);
    pcam_sim_target_cfg(f->r.sim, 1)->hang_next = 1;
    static uint8_t a_buf[4096], b_buf[4096];
    cm_req a, b, ab;

    read10(&a, 1, 0, 8, 8, a_buf, 0, 0); /* untagged: the next one waits in the SIM */
    read10(&b, 1, 0, 16, 8, b_buf, 0, 0);
    cm_action(&f->m, &a);
    cm_action(&f->m, &b);
    for (int i = 0; i < 100000 && tstats(f, 1).disconnects == 0; i++)
        f->m.step(f->m.step_ctx);
    assert_int_equal(tstats(f, 1).disconnects, 1);
    assert_int_equal(tstats(f, 1).commands, 1);

    cm_func(&ab, PCAM_FBSD_XPT_ABORT, 1, 0);
    ab.r.cc.u.abort_req = &b.r;
    assert_int_equal(cm_sync(&f->m, &ab, 1000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(cm_wait(&f->m, &b, 1000));
    assert_int_equal(b.status, PCAM_FBSD_CAM_REQ_ABORTED | QFRZN);
    assert_int_equal(b.sim_done, 1);

    cm_func(&ab, PCAM_FBSD_XPT_ABORT, 1, 0);
    ab.r.cc.u.abort_req = &a.r;
    assert_int_equal(cm_sync(&f->m, &ab, 1000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(cm_wait(&f->m, &a, 5000));
    assert_int_equal(a.status, PCAM_FBSD_CAM_REQ_ABORTED | QFRZN);
    assert_int_equal(a.sim_done, 1);
    assert_true(tstats(f, 1).aborted_tasks >= 1);
    assert_int_equal(tstats(f, 1).commands, 1); /* b never reached the target */
    /* Aborting what is finished: an invalid request, not device-queued, no freeze. */
    cm_func(&ab, PCAM_FBSD_XPT_ABORT, 1, 0);
    ab.r.cc.u.abort_req = &a.r;
    assert_int_equal(cm_sync(&f->m, &ab, 1000), PCAM_FBSD_CAM_REQ_INVALID);
    read10(&a, 1, 0, 8, 8, a_buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &a, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(fx_media_ok(f, 1, 0, 8, a_buf, sizeof a_buf));
    assert_int_equal(f->m.freezes, f->m.releases);
    fx_free(f);
}

/* A command that never finishes: the core's abort ends it as CAM_CMD_TIMEOUT. */
static void command_timeout(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 2, 0, 1024, false);
    pcam_sim_target_cfg(f->r.sim, 2)->hang_next = 1;
    static uint8_t buf[512];
    cm_req q;
    read10(&q, 2, 0, 1, 1, buf, 0, 0);
    q.r.cc.ccb_h.timeout = 300;
    assert_int_equal(cm_sync(&f->m, &q, 20000), PCAM_FBSD_CAM_CMD_TIMEOUT | QFRZN);
    assert_true(tstats(f, 2).aborted_tasks >= 1);
    read10(&q, 2, 0, 1, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    fx_free(f);
}

/*
 * XPT_RESET_DEV sends BUS DEVICE RESET (AC_SENT_BDR on the target), the
 * disconnected command it took down is run again by the core; XPT_RESET_BUS
 * resets the bus (AC_BUS_RESET on the wildcard path) and the targets then
 * report the reset as UNIT ATTENTION and renegotiate (AC_TRANSFER_NEG); a
 * target that rejects the reset message gives CAM_MSG_REJECT_REC.
 */
static void resets(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 2, 0, 1024, false);
    fx_disk(f, 4, 0, 1024, false);
    pcam_sim_target_cfg(f->r.sim, 2)->ua_after_reset = false;
    static uint8_t buf[4096];
    cm_req q, rs;

    assert_int_equal(cm_sync(&f->m, (read10(&q, 2, 0, 0, 1, buf, 0, 0), &q), 5000), PCAM_FBSD_CAM_REQ_CMP);
    pcam_sim_target_cfg(f->r.sim, 2)->hang_next = 1;
    read10(&q, 2, 0, 40, 8, buf, 0, 0);
    cm_action(&f->m, &q);
    for (int i = 0; i < 100000 && tstats(f, 2).disconnects == 0; i++)
        f->m.step(f->m.step_ctx);
    cm_func(&rs, PCAM_FBSD_XPT_RESET_DEV, 2, 0);
    assert_int_equal(cm_sync(&f->m, &rs, 5000), PCAM_FBSD_CAM_REQ_CMP);
    const cm_event *e = cm_event_find(&f->m, PCAM_FBSD_AC_SENT_BDR, 0);
    assert_non_null(e);
    assert_int_equal(e->target, 2);
    assert_int_equal(e->lun, PCAM_FBSD_CAM_LUN_WILDCARD);
    assert_int_equal(tstats(f, 2).target_resets, 1);
    assert_true(cm_wait(&f->m, &q, 10000));
    /* The bystander ran again after the reset: it completes once, with the data. */
    assert_int_equal(q.sim_done, 1);
    /* The target reports its BDR as UNIT ATTENTION to the command run again:
     * the SIM hands that to CAM (its peripheral retries), sense and all. */
    assert_int_equal(q.status, PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x06);
    assert_int_equal(q.r.cc.u.csio.sense_data[12], 0x29);
    assert_int_equal(tstats(f, 2).commands, 4); /* first read, the bystander twice, REQUEST SENSE */
    read10(&q, 2, 0, 40, 8, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(fx_media_ok(f, 2, 0, 40, buf, sizeof buf));

    unsigned neg = cm_event_count(&f->m, PCAM_FBSD_AC_TRANSFER_NEG);
    cm_func(&rs, PCAM_FBSD_XPT_RESET_BUS, PCAM_FBSD_CAM_TARGET_WILDCARD, PCAM_FBSD_CAM_LUN_WILDCARD);
    assert_int_equal(cm_sync(&f->m, &rs, 5000), PCAM_FBSD_CAM_REQ_CMP); /* not device-queued: no freeze */
    e = cm_event_find(&f->m, PCAM_FBSD_AC_BUS_RESET, 0);
    assert_non_null(e);
    assert_int_equal(e->target, PCAM_FBSD_CAM_TARGET_WILDCARD);
    assert_int_equal(e->lun, PCAM_FBSD_CAM_LUN_WILDCARD);
    read10(&q, 4, 0, 0, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x06);
    assert_int_equal(q.r.cc.u.csio.sense_data[12], 0x29);
    read10(&q, 4, 0, 0, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(cm_event_count(&f->m, PCAM_FBSD_AC_TRANSFER_NEG) > neg);

    pcam_sim_target_cfg(f->r.sim, 4)->refuse_reset = true;
    cm_func(&rs, PCAM_FBSD_XPT_RESET_DEV, 4, 0);
    assert_int_equal(cm_sync(&f->m, &rs, 10000), PCAM_FBSD_CAM_MSG_REJECT_REC | QFRZN);
    assert_int_equal(cm_event_count(&f->m, PCAM_FBSD_AC_SENT_BDR), 1);
    assert_int_equal(f->m.freezes, f->m.releases);
    fx_free(f);
}

/*
 * The core's async events as CAM's ac_codes (cam_ccb.h of FreeBSD 13.2:
 * AC_BUS_RESET 0x001, AC_SENT_BDR 0x010, AC_FOUND_DEVICE 0x080,
 * AC_LOST_DEVICE 0x100, AC_TRANSFER_NEG 0x200; UNIT ATTENTION has no code,
 * CAM reads it from the sense), and a bus reset the core did not ask for
 * (another initiator's RST): AC_BUS_RESET on the wildcard path, the
 * disconnected command completes once and the bus works afterwards.
 * (AC_LOST_DEVICE from the core's own scan: test_fbsd_cam's found_lost.)
 */
static void async_events(void **state)
{
    (void)state;
    static const struct { uint32_t pcam, cam; } codes[] = {
        {PCAM_AC_BUS_RESET, 0x001}, {PCAM_AC_SENT_BDR, 0x010}, {PCAM_AC_FOUND_DEVICE, 0x080},
        {PCAM_AC_LOST_DEVICE, 0x100}, {PCAM_AC_TRANSFER_NEG, 0x200}, {PCAM_AC_UNIT_ATTENTION, 0},
        {1u << 9, 0},
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        assert_int_equal(pcam_fbsd_async_code(codes[i].pcam), codes[i].cam);

    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 2, 0, 1024, false);
    fx_disk(f, 4, 0, 1024, false);
    static uint8_t buf[4096];
    cm_req q, q4;
    read10(&q, 2, 0, 40, 8, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    unsigned resets = cm_event_count(&f->m, PCAM_FBSD_AC_BUS_RESET);
    pcam_sim_target_cfg(f->r.sim, 2)->hang_next = 1;
    read10(&q, 2, 0, 40, 8, buf, 0, 0);
    cm_action(&f->m, &q);
    for (int i = 0; i < 100000 && tstats(f, 2).disconnects == 0; i++)
        f->m.step(f->m.step_ctx);
    assert_true(tstats(f, 2).disconnects > 0);
    pcam_sim_bus_reset(f->r.sim);
    for (int i = 0; i < 100000 && cm_event_count(&f->m, PCAM_FBSD_AC_BUS_RESET) == resets; i++)
        f->m.step(f->m.step_ctx);
    assert_int_equal(cm_event_count(&f->m, PCAM_FBSD_AC_BUS_RESET), resets + 1);
    const cm_event *e = cm_event_find(&f->m, PCAM_FBSD_AC_BUS_RESET, resets);
    assert_int_equal(e->target, PCAM_FBSD_CAM_TARGET_WILDCARD);
    assert_int_equal(e->lun, PCAM_FBSD_CAM_LUN_WILDCARD);
    assert_false(e->has_cts);
    /* The command the reset cut off completes once: run again by the core
     * (a reset is no error of the command's), it meets the target's UNIT
     * ATTENTION, which goes to CAM with its sense; CAM's retry reads. */
    assert_true(cm_wait(&f->m, &q, 10000));
    assert_int_equal(q.sim_done, 1);
    assert_int_equal(q.status, PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x06);
    assert_int_equal(q.r.cc.u.csio.sense_data[12], 0x29);
    read10(&q, 2, 0, 40, 8, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(fx_media_ok(f, 2, 0, 40, buf, sizeof buf));
    /* The idle target was reset too: its UNIT ATTENTION, then data. */
    read10(&q4, 4, 0, 0, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q4, 5000), PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q4.r.cc.u.csio.sense_data[12], 0x29);
    read10(&q4, 4, 0, 0, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q4, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(cm_event_count(&f->m, PCAM_FBSD_AC_BUS_RESET), resets + 1); /* one RST, one event */
    assert_int_equal(cm_event_count(&f->m, PCAM_FBSD_AC_LOST_DEVICE), 0);
    assert_int_equal(f->m.freezes, f->m.releases);
    assert_int_equal(f->m.refusals, 0);
    fx_free(f);
}

/* Transport failures reach CAM as themselves, once: the SIM does not retry. */
static void transport_errors(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 3, 0, 1024, false);
    pcam_sim_target_config *tc = pcam_sim_target_cfg(f->r.sim, 3);
    tc->ua_after_reset = false;
    static uint8_t buf[16 * 512];
    cm_req q;

    tc->unexpected_free_next = 1;
    read10(&q, 3, 0, 40, 16, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_UNEXP_BUSFREE | QFRZN);
    assert_int_equal(tstats(f, 3).commands, 1);

    unsigned resets = cm_event_count(&f->m, PCAM_FBSD_AC_BUS_RESET);
    tc->illegal_phase_next = 1;
    read10(&q, 3, 0, 40, 4, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10000), PCAM_FBSD_CAM_SEQUENCE_FAIL | QFRZN);
    assert_int_equal(cm_event_count(&f->m, PCAM_FBSD_AC_BUS_RESET), resets + 1); /* only RST ends a reserved phase */

    /* The target wants two blocks, the CCB has room for one. */
    read10(&q, 3, 0, 40, 2, buf, 0, 0);
    q.r.cc.u.csio.dxfer_len = 512;
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_DATA_RUN_ERR | QFRZN);

    tc->parity_data_ppm = 1000000;
    read10(&q, 3, 0, 40, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 20000), PCAM_FBSD_CAM_UNCOR_PARITY | QFRZN);
    tc->parity_data_ppm = 0;

    read10(&q, 3, 0, 40, 16, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(fx_media_ok(f, 3, 0, 40, buf, sizeof buf));
    assert_int_equal(f->m.freezes, f->m.releases);

    /* After detach (the core shut down), CAM_NO_HBA. */
    pcam_bus_shutdown(&f->r.bus);
    read10(&q, 3, 0, 40, 1, buf, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 100), PCAM_FBSD_CAM_NO_HBA | QFRZN);
    fx_free(f);
}

/*
 * TASK SET FULL goes to CAM as it is (scsi_status 0x28, no sense, frozen):
 * cam_periph_error() lowers the openings and sends it again; the core does
 * not change its own depth behind CAM's back.
 */
static void queue_full(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 6, 0, 1024, false);
    probe(f, 6, 0);
    pcam_sim_target_config *tc = pcam_sim_target_cfg(f->r.sim, 6);
    tc->task_set_limit = 2;
    tc->disconnect = PCAM_SIM_DISC_ALWAYS;
    static uint8_t bufs[6][512];
    cm_req q[6];
    cm_req *all[6];
    uint16_t depth = pcam_lun_depth(&f->r.bus, 6, 0);
    for (int i = 0; i < 6; i++) {
        read10(&q[i], 6, 0, 10u + (uint32_t)i, 1, bufs[i], TAGGED, PCAM_FBSD_MSG_SIMPLE_Q_TAG);
        all[i] = &q[i];
        cm_action(&f->m, &q[i]);
    }
    assert_true(cm_wait_all(&f->m, all, 6, 10000));
    unsigned full = 0;
    for (int i = 0; i < 6; i++) {
        if (q[i].status == PCAM_FBSD_CAM_REQ_CMP) {
            assert_true(fx_media_ok(f, 6, 0, 10u + (uint32_t)i, bufs[i], 512));
            continue;
        }
        assert_int_equal(q[i].status, PCAM_FBSD_CAM_SCSI_STATUS_ERROR | QFRZN);
        assert_int_equal(q[i].r.cc.u.csio.scsi_status, 0x28);
        full++;
        /* the peripheral's retry */
        read10(&q[i], 6, 0, 10u + (uint32_t)i, 1, bufs[i], TAGGED, PCAM_FBSD_MSG_SIMPLE_Q_TAG);
        assert_int_equal(cm_sync(&f->m, &q[i], 10000), PCAM_FBSD_CAM_REQ_CMP);
        assert_true(fx_media_ok(f, 6, 0, 10u + (uint32_t)i, bufs[i], 512));
    }
    assert_true(full >= 1);
    assert_true(tstats(f, 6).task_set_full >= full);
    assert_int_equal(pcam_lun_depth(&f->r.bus, 6, 0), depth);
    assert_int_equal(f->m.freezes, f->m.releases);
    fx_free(f);
}

/* Tag messages and disconnection as the CCB flags ask, seen by the target. */
static void tags_and_disconnect(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 5, 0, 1024, false);
    pcam_sim_target_cfg(f->r.sim, 5)->disconnect = PCAM_SIM_DISC_ALWAYS;
    probe(f, 5, 0);
    static uint8_t buf[512];
    cm_req q;
    pcam_sim_target_stats s0 = tstats(f, 5);

    read10(&q, 5, 0, 1, 1, buf, TAGGED, PCAM_FBSD_MSG_ORDERED_Q_TAG);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    read10(&q, 5, 0, 2, 1, buf, TAGGED, PCAM_FBSD_MSG_HEAD_OF_Q_TAG);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    read10(&q, 5, 0, 3, 1, buf, TAGGED, PCAM_FBSD_MSG_SIMPLE_Q_TAG);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    /* A tag action without CAM_TAG_ACTION_VALID is not used. */
    read10(&q, 5, 0, 4, 1, buf, 0, PCAM_FBSD_MSG_ORDERED_Q_TAG);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    pcam_sim_target_stats s1 = tstats(f, 5);
    assert_int_equal(s1.ordered - s0.ordered, 1);
    assert_int_equal(s1.head_of_queue - s0.head_of_queue, 1);
    assert_int_equal(s1.simple - s0.simple, 1);
    assert_int_equal(s1.untagged - s0.untagged, 1);
    assert_int_equal(s1.disconnects - s0.disconnects, 4);
    /* CAM_DIS_DISCONNECT: IDENTIFY without the privilege; the target holds the bus. */
    read10(&q, 5, 0, 5, 1, buf, PCAM_FBSD_CAM_DIS_DISCONNECT, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(tstats(f, 5).disconnects, s1.disconnects);
    assert_true(fx_media_ok(f, 5, 0, 5, buf, 512));
    fx_free(f);
}

/* Write 64 KiB through a 16-segment CAM_DATA_SG list, read it back flat. */
static void sg_integrity(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 6, 0, 1024, false);
    probe(f, 6, 0);
    static uint8_t out[65536], in[65536];
    static pcam_fbsd_seg segs[16];
    cm_req q;
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 31u + 7u);
    for (int i = 0; i < 16; i++) {
        /* uneven pieces covering the buffer in order */
        size_t start = (size_t)i * 4096u, len = 4096;
        segs[i].ds_addr = (uintptr_t)(out + start);
        segs[i].ds_len = len;
    }
    write10(&q, 6, 0, 300, 128, segs, PCAM_FBSD_CAM_DATA_SG | TAGGED);
    q.r.cc.u.csio.tag_action = PCAM_FBSD_MSG_SIMPLE_Q_TAG;
    q.r.cc.u.csio.sglist_cnt = 16;
    assert_int_equal(cm_sync(&f->m, &q, 10000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.csio.resid, 0);
    assert_memory_equal(f->r.stores[6][0] + 300u * 512u, out, sizeof out);
    read10(&q, 6, 0, 300, 128, in, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10000), PCAM_FBSD_CAM_REQ_CMP);
    assert_memory_equal(in, out, sizeof in);
    fx_free(f);
}

/*
 * The dump path: interrupts off, CAM calls only the SIM's poll routine. A
 * write and its read-back, and a CHECK CONDITION sensed, all by polling a
 * bus that was brought up for interrupts.
 */
static void dump_path_polled(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 0, 0, 1024, false);
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 900), 0);
    f->poll_only = true;
    probe(f, 0, 0);
    static uint8_t out[8192], in[8192];
    cm_req q;
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i ^ 0x5A);
    write10(&q, 0, 0, 64, 16, out, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    read10(&q, 0, 0, 64, 16, in, TAGGED, PCAM_FBSD_MSG_SIMPLE_Q_TAG);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_REQ_CMP);
    assert_memory_equal(in, out, sizeof in);
    read10(&q, 0, 0, 900, 1, in, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 5000), PCAM_FBSD_CAM_SCSI_STATUS_ERROR | SNSV | QFRZN);
    assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 0x03);
    pcam_sim_bus_stats bs;
    pcam_sim_bus_stats_get(f->r.sim, &bs);
    assert_true(bs.selections >= 5); /* INQUIRY, write, read, read, REQUEST SENSE */
    assert_int_equal(f->r.steps, 0); /* the rig's interrupt path never ran */
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(freeze_and_requeue),
        cmocka_unit_test(autosense),
        cmocka_unit_test(abort_queued_and_disconnected),
        cmocka_unit_test(command_timeout),
        cmocka_unit_test(resets),
        cmocka_unit_test(transport_errors),
        cmocka_unit_test(async_events),
        cmocka_unit_test(queue_full),
        cmocka_unit_test(tags_and_disconnect),
        cmocka_unit_test(sg_integrity),
        cmocka_unit_test(dump_path_polled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
