/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 7 (recovery), part 1: what the core does with a non-GOOD status
 * and with a transport error, on the simulated bus. Every case runs with
 * interrupts and polled (scenario 8).
 *
 * Covered here: CHECK CONDITION with autosense (sense in the CCB, the LUN
 * frozen while REQUEST SENSE runs, then released by the core, or left
 * frozen with PCAM_CCB_FREEZE_ON_ERROR until PCAM_FN_REL_QUEUE), autosense
 * disabled and without a sense buffer, UNIT ATTENTION and ABORTED COMMAND
 * (one retry each), BUSY (a retry and the LUN held for busy_delay_ms), NOT
 * READY 04/01 (polled every 250 ms up to not_ready_wait_ms, no retry spent),
 * MEDIUM ERROR and ILLEGAL REQUEST (fail at once: the target sees the
 * command once), selection timeout, unexpected bus free and illegal phase.
 * Timeouts, aborts, resets and bad reselections are in
 * test_core_recovery2.c.
 *
 * The expectations come from three places that do not depend on the core:
 * the media pattern simrig_add_disk writes (byte i of target t, LUN l is
 * i * 7 + t * 13 + l), the SPC sense codes the simulated LU reports
 * (3/11/00 unrecovered read error with INFORMATION = LBA, 5/21/00 LBA out
 * of range, 6/29/00 power on or reset, 6/2A/01 mode parameters changed,
 * 2/04/01 becoming ready, B/47/00 parity error), and the target's own
 * records (its statistics and the bus trace of every CDB and status byte).
 * Set PCAM_RECOV_LOG=1 to get the phase log on stderr, PCAM_RECOV_FILTER=name
 * to run one case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_sense.h"
#include "simrig.h"

#include "recov_fixture.h"

static void decode(const rig_ccb *rc, pcam_sense *s)
{
    const pcam_scsiio *io = &rc->ccb.u.io;
    assert_true(io->sense_resid <= io->sense_len);
    assert_int_equal(pcam_sense_decode(io->sense, (size_t)(io->sense_len - io->sense_resid), s),
                     PCAM_OK);
    assert_true(s->key_valid);
    assert_true(s->asc_valid);
}

/* ---- CHECK CONDITION and autosense ---- */

/*
 * A READ over a bad block (LBA 100) with a 32-byte sense buffer, queued
 * with two more READs on the same LUN and one on another target. The core
 * must read the sense on the same nexus before anything else reaches that
 * LUN, hand it over in the CCB, release its freeze itself, and not retry a
 * medium error (the target sees the READ once even with retries left).
 */
static void check_condition_autosense(bool polled)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t b0[8 * 512], b1[8 * 512], b2[8 * 512], b3[8 * 512], after[512];
    uint8_t sense[32];
    rig_ccb bad, by1, by2, by3, next;
    rig_ccb *v[] = {&bad, &by1, &by2, &by3};
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 100), 0);
    pcam_counters c0 = ctr(f, 0), c1 = ctr(f, 1);
    pcam_sim_target_stats s0 = tstats(f, 0);

    memset(sense, 0xA5, sizeof sense);
    read10(&bad, 0, 96, 8, b0, sense, sizeof sense);
    read10(&by1, 0, 200, 8, b1, NULL, 0);
    read10(&by2, 0, 300, 8, b2, NULL, 0);
    read10(&by3, 1, 96, 8, b3, NULL, 0);
    for (size_t i = 0; i < 4; i++)
        rig_submit(&f->r, v[i]);
    assert_true(run_all(f, v, 4, RIG_S(10)));
    idle(f, RIG_MS(500));

    assert_int_equal(bad.ccb.status, PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID); /* no QFRZN */
    assert_int_equal(bad.ccb.u.io.scsi_status, 0x02);
    /* The LU returns 18 bytes of fixed-format sense (additional length 10). */
    assert_int_equal(bad.ccb.u.io.sense_resid, sizeof sense - 18);
    assert_int_equal(sense[18], 0xA5); /* nothing written past what came */
    pcam_sense s;
    decode(&bad, &s);
    assert_int_equal(s.format, PCAM_SENSE_FIXED);
    assert_int_equal(s.key, PCAM_SK_MEDIUM_ERROR);
    assert_int_equal(s.asc, 0x11);
    assert_int_equal(s.ascq, 0x00);
    assert_true(s.info_valid);
    assert_int_equal(s.info, 100);

    for (size_t i = 0; i < 4; i++)
        assert_int_equal(v[i]->done_count, 1);
    assert_int_equal(by1.ccb.status, PCAM_REQ_CMP);
    assert_int_equal(by2.ccb.status, PCAM_REQ_CMP);
    assert_int_equal(by3.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 200, b1, sizeof b1));
    assert_true(media_ok(0, 0, 300, b2, sizeof b2));
    assert_true(media_ok(1, 0, 96, b3, sizeof b3));

    /* The target's side: three READs and one REQUEST SENSE, one CHECK CONDITION. */
    pcam_sim_target_stats s1 = tstats(f, 0);
    assert_int_equal(s1.commands - s0.commands, 4);
    assert_int_equal(s1.check_conditions - s0.check_conditions, 1);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 3);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 1);
    /* Frozen while autosense runs: after the CHECK CONDITION status the next
     * CDB target 0 receives is the REQUEST SENSE, although READs for that
     * LUN were waiting. */
    pcam_sim_trace_entry e;
    bool after_cc = false, checked = false;
    unsigned reads_before = 0;
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &e) && !checked; i++) {
        if (e.target != 0)
            continue;
        if (e.kind == PCAM_SIM_TR_STATUS && e.byte == 0x02)
            after_cc = true;
        if (e.kind == PCAM_SIM_TR_COMMAND && !after_cc)
            reads_before++;
        if (e.kind == PCAM_SIM_TR_COMMAND && after_cc) {
            assert_int_equal(e.byte, 0x03);
            checked = true;
        }
    }
    assert_true(checked);
    assert_true(reads_before < 3); /* some READ of that LUN was still to go */
    /* The sense is also fetched with the allocation length of the buffer. */

    /* The core's side. */
    pcam_counters d0 = ctr(f, 0), d1 = ctr(f, 1);
    assert_int_equal(d0.commands - c0.commands, 3);
    assert_int_equal(d0.errors - c0.errors, 1);
    assert_int_equal(d0.check_conditions - c0.check_conditions, 1);
    assert_int_equal(d0.retries - c0.retries, 0);
    assert_int_equal(d0.requeues - c0.requeues, 0);
    assert_int_equal(d1.errors - c1.errors, 0);
    assert_int_equal(ev_count(f, PCAM_EV_CHECK_COND), 1);
    const pcam_event *cc = ev_first(f, PCAM_EV_CHECK_COND);
    assert_non_null(cc);
    assert_int_equal(cc->target, 0);
    assert_int_equal(cc->lun, 0);
    assert_int_equal(cc->arg, 0x031100u);

    /* The core released its freeze: the LUN takes commands again. */
    read10(&next, 0, 5, 1, after, NULL, 0);
    assert_int_equal(sync1(f, &next), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 5, after, 512));
    fx_free(f);
}

/*
 * The same error with PCAM_CCB_FREEZE_ON_ERROR: the status carries
 * PCAM_DEV_QFRZN and a READ submitted from the completion callback does not
 * reach the target until PCAM_FN_REL_QUEUE, while another target is not
 * held up.
 */
typedef struct frz {
    fx *f;
    rig_ccb *later, *other;
} frz;

static void frz_done(rig_ccb *rc)
{
    frz *z = rc->test;
    rig_submit(&z->f->r, z->later);
    rig_submit(&z->f->r, z->other);
}

static void freeze_on_error(bool polled)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t b0[8 * 512], b1[4 * 512], b2[4 * 512];
    uint8_t sense[18];
    rig_ccb bad, later, other, rel;
    frz z = {f, &later, &other};
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 100), 0);

    read10(&bad, 0, 96, 8, b0, sense, sizeof sense);
    bad.ccb.flags |= PCAM_CCB_FREEZE_ON_ERROR;
    bad.test = &z;
    bad.on_done = frz_done;
    read10(&later, 0, 400, 4, b1, NULL, 0);
    read10(&other, 1, 400, 4, b2, NULL, 0);
    rig_ccb *v[] = {&bad, &other};
    rig_submit(&f->r, &bad);
    assert_true(run_all(f, v, 2, RIG_S(10)));
    assert_int_equal(bad.ccb.status,
                     PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID | PCAM_DEV_QFRZN);
    pcam_sense s;
    decode(&bad, &s);
    assert_int_equal(s.key, PCAM_SK_MEDIUM_ERROR);
    assert_int_equal(s.asc, 0x11);
    assert_int_equal(other.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(1, 0, 400, b2, sizeof b2));

    /* Three seconds later the READ still waits and the target saw nothing. */
    pcam_sim_target_stats s0 = tstats(f, 0);
    idle(f, RIG_S(3));
    assert_int_equal(later.done_count, 0);
    assert_int_equal(tstats(f, 0).commands, s0.commands);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 1);

    memset(&rel, 0, sizeof rel);
    rel.ccb.func = PCAM_FN_REL_QUEUE;
    rel.ccb.target = 0;
    rel.ccb.lun = 0;
    rel.ccb.u.relq.count = 1;
    rig_submit(&f->r, &rel);
    assert_int_equal(rel.done_count, 1);
    assert_int_equal(rel.ccb.status, PCAM_REQ_CMP);
    rig_ccb *w[] = {&later};
    assert_true(run_all(f, w, 1, RIG_S(5)));
    assert_int_equal(later.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 400, b1, sizeof b1));
    assert_int_equal(tstats(f, 0).commands, s0.commands + 1);
    idle(f, RIG_MS(500));
    assert_int_equal(bad.done_count, 1);
    assert_int_equal(later.done_count, 1);
    assert_int_equal(other.done_count, 1);
    fx_free(f);
}

/*
 * Autosense off: the status alone, no REQUEST SENSE on the wire. Sense on,
 * but no buffer: the caller gets no sense, yet recovery still sees it (a
 * UNIT ATTENTION is retried).
 */
static void autosense_off_and_no_buffer(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t b0[8 * 512], b1[2 * 512];
    rig_ccb a, b;
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 100), 0);

    read10(&a, 0, 96, 8, b0, NULL, 0);
    a.ccb.flags |= PCAM_CCB_DIS_AUTOSENSE;
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(a.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 0);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 1);

    read10(&a, 0, 96, 8, b0, NULL, 0);
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 1);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 2); /* no retry of a medium error */

    pcam_counters c0 = ctr(f, 0);
    pcam_simlu_unit_attention(pcam_sim_lu(f->r.sim, 0, 0), 0x2A, 0x01);
    read10(&b, 0, 10, 2, b1, NULL, 0);
    assert_int_equal(sync1(f, &b), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 10, b1, sizeof b1));
    assert_int_equal(ctr(f, 0).retries - c0.retries, 1);
    assert_int_equal(f->ua_async, 1);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 4);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 2);
    fx_free(f);
}

/* ---- retried conditions ---- */

/*
 * UNIT ATTENTION spends one retry and reports the async event; without
 * retries, or with PCAM_CCB_NO_RECOVERY, it is the caller's.
 */
static void unit_attention(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t buf[4 * 512];
    uint8_t sense[18];
    rig_ccb a;
    pcam_simlu *lu = pcam_sim_lu(f->r.sim, 0, 0);

    pcam_counters c0 = ctr(f, 0);
    pcam_simlu_unit_attention(lu, 0x29, 0x00);
    read10(&a, 0, 50, 4, buf, sense, sizeof sense);
    assert_int_equal(sync1(f, &a), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 50, buf, sizeof buf));
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries - c0.retries, 1);
    assert_int_equal(c1.requeues - c0.requeues, 1);
    assert_int_equal(c1.check_conditions - c0.check_conditions, 1);
    assert_int_equal(c1.errors - c0.errors, 0);
    assert_int_equal(f->ua_async, 1);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 2);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 1);
    const pcam_event *cc = ev_first(f, PCAM_EV_CHECK_COND);
    assert_non_null(cc);
    assert_int_equal(cc->arg, 0x062900u);

    /* No retries left: the UNIT ATTENTION is the caller's, with its sense. */
    pcam_simlu_unit_attention(lu, 0x2A, 0x01);
    read10(&a, 0, 50, 4, buf, sense, sizeof sense);
    a.ccb.u.io.retries = 0;
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    pcam_sense s;
    decode(&a, &s);
    assert_int_equal(s.key, PCAM_SK_UNIT_ATTENTION);
    assert_int_equal(s.asc, 0x2A);
    assert_int_equal(s.ascq, 0x01);

    /* PCAM_CCB_NO_RECOVERY: the same, retries notwithstanding. */
    pcam_simlu_unit_attention(lu, 0x2A, 0x01);
    read10(&a, 0, 50, 4, buf, sense, sizeof sense);
    a.ccb.flags |= PCAM_CCB_NO_RECOVERY;
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    decode(&a, &s);
    assert_int_equal(s.key, PCAM_SK_UNIT_ATTENTION);
    assert_int_equal(ctr(f, 0).retries - c0.retries, 1); /* none spent since */
    assert_int_equal(f->ua_async, 3);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 4);
    fx_free(f);
}

/*
 * Parity errors on target 0's data bytes (both directions: the simulated
 * target applies parity_data_ppm to DATA IN and DATA OUT) only while the
 * last CDB it received has opcode `op`: the error can be aimed at the WRITE
 * or at the REQUEST SENSE alone. Runs until rc completes.
 */
static void run_parity_on(fx *f, rig_ccb *rc, uint8_t op)
{
    pcam_sim_target_config *tc = pcam_sim_target_cfg(f->r.sim, 0);
    uint64_t end = pcam_sim_now(f->r.sim) + RIG_S(30);
    rig_submit(&f->r, rc);
    while (rc->done_count == 0 && pcam_sim_now(f->r.sim) < end) {
        pcam_sim_trace_entry e;
        uint8_t last = 0;
        for (size_t i = pcam_sim_trace_count(f->r.sim); i-- > 0;) {
            if (pcam_sim_trace_get(f->r.sim, i, &e) && e.kind == PCAM_SIM_TR_COMMAND &&
                e.target == 0) {
                last = e.byte;
                break;
            }
        }
        tc->parity_data_ppm = last == op ? 1000000u : 0u;
        if (!simrig_step(&f->r))
            break;
    }
    tc->parity_data_ppm = 0;
    assert_int_equal(rc->done_count, 1);
}

/*
 * ABORTED COMMAND spends a retry. The target sees bad parity on every
 * DATA OUT byte of the WRITE, asks for the data three times (RESTORE
 * POINTERS) and then gives up with B/47/00; with two retries the WRITE
 * reaches it three times and the medium is untouched. Without parity
 * errors the same WRITE lands.
 */
static void aborted_command(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t data[512], back[512];
    uint8_t sense[18], cdb[16];
    rig_ccb w, r;
    pcam_counters c0 = ctr(f, 0);

    memset(&w, 0, sizeof w);
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0x5A ^ i);
    assert_int_equal(pcam_cdb_write(cdb, sizeof cdb, 10, 77, 1, 0), 10);
    rig_ccb_io(&w, 0, 0, cdb, 10, PCAM_DIR_OUT, data, sizeof data);
    w.ccb.u.io.sense = sense;
    w.ccb.u.io.sense_len = sizeof sense;
    w.ccb.u.io.retries = 2;
    run_parity_on(f, &w, 0x2A);
    assert_int_equal(w.ccb.status, PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    pcam_sense s;
    decode(&w, &s);
    assert_int_equal(s.key, PCAM_SK_ABORTED_COMMAND);
    assert_int_equal(s.asc, 0x47);
    assert_int_equal(s.ascq, 0x00);
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries - c0.retries, 2);
    assert_int_equal(c1.requeues - c0.requeues, 2);
    assert_int_equal(c1.check_conditions - c0.check_conditions, 3);
    assert_int_equal(cdbs_seen(f, 0, 0x2A), 3);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 3);
    assert_true(media_ok(0, 0, 77, f->r.stores[0][0] + 77 * 512, 512));

    rig_ccb_io(&w, 0, 0, cdb, 10, PCAM_DIR_OUT, data, sizeof data);
    assert_int_equal(sync1(f, &w), PCAM_REQ_CMP);
    assert_memory_equal(f->r.stores[0][0] + 77 * 512, data, sizeof data);
    read10(&r, 0, 77, 1, back, NULL, 0);
    assert_int_equal(sync1(f, &r), PCAM_REQ_CMP);
    assert_memory_equal(back, data, sizeof data);
    fx_free(f);
}

/*
 * The sense bytes themselves arrive with bad parity, every time: they must
 * not be handed over as valid sense. The core asks for them again with
 * INITIATOR DETECTED ERROR (the target restores its pointers and resends)
 * a bounded number of times, then gives up: the CHECK CONDITION is reported
 * as PCAM_AUTOSENSE_FAIL, and the LUN is not left frozen.
 */
static void sense_parity(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t buf[8 * 512];
    uint8_t sense[18];
    rig_ccb a;
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 100), 0);

    read10(&a, 0, 96, 8, buf, sense, sizeof sense);
    run_parity_on(f, &a, 0x03);
    assert_int_equal(a.ccb.status, PCAM_AUTOSENSE_FAIL);
    assert_int_equal(a.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 1);
    assert_true(ev_count(f, PCAM_EV_PARITY) >= 4); /* the first and three resends */
    assert_true(ev_count(f, PCAM_EV_PARITY) >= 1);
    read10(&a, 0, 200, 8, buf, NULL, 0);
    assert_int_equal(sync1(f, &a), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 200, buf, sizeof buf));
    fx_free(f);
}

/*
 * BUSY twice: two retries, and after each BUSY nothing reaches the LUN for
 * busy_delay_ms (100 ms), not even the other READ queued behind. Then BUSY
 * past the retries: the status is the caller's.
 */
static void busy(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t b0[4 * 512], b1[4 * 512];
    rig_ccb a, b;
    rig_ccb *v[] = {&a, &b};
    pcam_counters c0 = ctr(f, 0);
    pcam_sim_target_stats s0 = tstats(f, 0);

    pcam_sim_target_cfg(f->r.sim, 0)->busy_next = 2;
    read10(&a, 0, 20, 4, b0, NULL, 0);
    read10(&b, 0, 30, 4, b1, NULL, 0);
    uint64_t t0 = pcam_sim_now(f->r.sim);
    rig_submit(&f->r, &a);
    rig_submit(&f->r, &b);
    assert_true(run_all(f, v, 2, RIG_S(5)));
    assert_int_equal(a.ccb.status, PCAM_REQ_CMP);
    assert_int_equal(b.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 20, b0, sizeof b0));
    assert_true(media_ok(0, 0, 30, b1, sizeof b1));
    assert_true(pcam_sim_now(f->r.sim) - t0 >= RIG_MS(200));
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.busy - c0.busy, 2);
    assert_int_equal(c1.retries - c0.retries, 2);
    assert_int_equal(c1.requeues - c0.requeues, 2);
    assert_int_equal(c1.errors - c0.errors, 0);
    assert_int_equal(tstats(f, 0).busy - s0.busy, 2);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 4);
    /* From the trace: every CDB after a BUSY status comes >= 100 ms later. */
    pcam_sim_trace_entry e;
    uint64_t last_busy = 0;
    unsigned busies = 0;
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &e); i++) {
        if (e.target != 0)
            continue;
        if (e.kind == PCAM_SIM_TR_STATUS && e.byte == 0x08) {
            last_busy = e.t_ns;
            busies++;
        }
        if (e.kind == PCAM_SIM_TR_COMMAND && busies > 0)
            assert_true(e.t_ns - last_busy >= RIG_MS(100));
    }
    assert_int_equal(busies, 2);

    /* More BUSY than retries: one retry, then the BUSY status is returned. */
    pcam_sim_target_cfg(f->r.sim, 0)->busy_next = 10;
    read10(&a, 0, 20, 4, b0, NULL, 0);
    a.ccb.u.io.retries = 1;
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(a.ccb.u.io.scsi_status, 0x08);
    assert_int_equal(tstats(f, 0).busy - s0.busy, 4);
    assert_int_equal(ctr(f, 0).retries - c0.retries, 3);
    pcam_sim_target_cfg(f->r.sim, 0)->busy_next = 0;
    fx_free(f);
}

/*
 * NOT READY 04/01 for one second: polled every 250 ms (attempts at about
 * 0, 250, 500 and 750 ms fail, the one at 1000 ms succeeds), no retry spent
 * even with a budget of 0. Then a device that stays not ready past
 * not_ready_wait_ms (1 s here): the caller gets the 2/04/01 sense.
 */
static void not_ready(bool polled)
{
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.not_ready_wait_ms = 1000;
    fx *f = fx_new(polled, &bc, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t buf[2 * 512];
    uint8_t sense[18];
    rig_ccb a;
    pcam_simlu *lu = pcam_sim_lu(f->r.sim, 0, 0);
    pcam_counters c0 = ctr(f, 0);

    uint64_t t0 = pcam_sim_now(f->r.sim);
    pcam_simlu_not_ready_until(lu, t0 + RIG_S(1));
    read10(&a, 0, 60, 2, buf, sense, sizeof sense);
    a.ccb.u.io.retries = 0;
    assert_int_equal(sync1(f, &a), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 60, buf, sizeof buf));
    assert_true(pcam_sim_now(f->r.sim) >= t0 + RIG_S(1));
    assert_true(pcam_sim_now(f->r.sim) < t0 + RIG_MS(1100));
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries - c0.retries, 0);
    assert_int_equal(c1.check_conditions - c0.check_conditions, 4);
    assert_int_equal(c1.errors - c0.errors, 0);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 5);
    assert_int_equal(cdbs_seen(f, 0, 0x03), 4);
    pcam_sim_trace_entry e;
    uint64_t prev = 0;
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &e); i++) {
        if (e.kind != PCAM_SIM_TR_COMMAND || e.target != 0 || e.byte != 0x28)
            continue;
        if (prev != 0)
            assert_true(e.t_ns - prev >= RIG_MS(250));
        prev = e.t_ns;
    }
    const pcam_event *cc = ev_first(f, PCAM_EV_CHECK_COND);
    assert_non_null(cc);
    assert_int_equal(cc->arg, 0x020401u);

    /* Still not ready after not_ready_wait_ms: give up with the sense. */
    fx_mark(f);
    t0 = pcam_sim_now(f->r.sim);
    pcam_simlu_not_ready_until(lu, t0 + RIG_S(10));
    read10(&a, 0, 60, 2, buf, sense, sizeof sense);
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    uint64_t took = pcam_sim_now(f->r.sim) - t0;
    assert_true(took >= RIG_MS(1000) && took < RIG_MS(1300));
    pcam_sense s;
    decode(&a, &s);
    assert_int_equal(s.key, PCAM_SK_NOT_READY);
    assert_int_equal(s.asc, 0x04);
    assert_int_equal(s.ascq, 0x01);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 5);
    assert_int_equal(ctr(f, 0).retries - c0.retries, 0);
    fx_free(f);
}

/* ---- errors that fail at once ---- */

/*
 * MEDIUM ERROR and ILLEGAL REQUEST with a generous retry budget: each
 * reaches the target once (no retry storm on a bad block), and the caller
 * gets the sense: 3/11/00 with the bad LBA, 5/21/00 past the last block.
 */
static void fail_at_once(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t buf[16 * 512];
    uint8_t sense[18];
    rig_ccb a;
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 513), 0);
    pcam_counters c0 = ctr(f, 0);
    pcam_sim_target_stats s0 = tstats(f, 0);

    read10(&a, 0, 510, 16, buf, sense, sizeof sense);
    a.ccb.u.io.retries = 8;
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    pcam_sense s;
    decode(&a, &s);
    assert_int_equal(s.key, PCAM_SK_MEDIUM_ERROR);
    assert_int_equal(s.asc, 0x11);
    assert_true(s.info_valid);
    assert_int_equal(s.info, 513);
    assert_int_equal(tstats(f, 0).commands - s0.commands, 2); /* READ + REQUEST SENSE */
    assert_int_equal(cdbs_seen(f, 0, 0x28), 1);

    read10(&a, 0, DISK_BLOCKS - 2, 4, buf, sense, sizeof sense);
    a.ccb.u.io.retries = 8;
    assert_int_equal(sync1(f, &a), PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    decode(&a, &s);
    assert_int_equal(s.key, PCAM_SK_ILLEGAL_REQUEST);
    assert_int_equal(s.asc, 0x21);
    assert_int_equal(s.ascq, 0x00);
    assert_int_equal(tstats(f, 0).commands - s0.commands, 4);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 2);

    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries - c0.retries, 0);
    assert_int_equal(c1.requeues - c0.requeues, 0);
    assert_int_equal(c1.errors - c0.errors, 2);
    assert_int_equal(ev_count(f, PCAM_EV_CHECK_COND), 2);
    fx_free(f);
}

/* ---- transport errors ---- */

/*
 * Nobody at ID 5: PCAM_SEL_TIMEOUT after the bus's 250 ms selection
 * timeout, with one selection (no retry), and the scan left ID 5 absent.
 */
static void selection_timeout(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t buf[512];
    rig_ccb a, g;
    pcam_sim_bus_stats b0, b1;
    pcam_sim_bus_stats_get(f->r.sim, &b0);

    read10(&a, 5, 0, 1, buf, NULL, 0);
    uint64_t t0 = pcam_sim_now(f->r.sim);
    rig_submit(&f->r, &a);
    rig_ccb *v[] = {&a};
    assert_true(run_all(f, v, 1, RIG_S(5)));
    uint64_t took = pcam_sim_now(f->r.sim) - t0;
    assert_int_equal(a.ccb.status, PCAM_SEL_TIMEOUT);
    assert_true(took >= RIG_MS(250) && took < RIG_MS(251));
    pcam_sim_bus_stats_get(f->r.sim, &b1);
    assert_int_equal(b1.sel_timeouts - b0.sel_timeouts, 1);
    const pcam_event *e = ev_first(f, PCAM_EV_SEL_TIMEOUT);
    assert_non_null(e);
    assert_int_equal(e->target, 5);
    assert_int_equal(ev_count(f, PCAM_EV_SEL_TIMEOUT), 1);
    assert_int_equal(ctr(f, 5).retries, 0);

    memset(&g, 0, sizeof g);
    g.ccb.func = PCAM_FN_GET_DEV;
    g.ccb.target = 5;
    assert_int_equal(sync1(f, &g), PCAM_DEV_NOT_THERE);
    assert_false(g.ccb.u.dev.present);
    g.ccb.target = 0;
    assert_int_equal(sync1(f, &g), PCAM_REQ_CMP);
    assert_true(g.ccb.u.dev.present);
    idle(f, RIG_MS(300));
    assert_int_equal(a.done_count, 1);
    fx_free(f);
}

/*
 * The target drops the bus half-way through the data: one retry, the data
 * comes whole the second time. Without retries: PCAM_UNEXP_BUSFREE.
 */
static void unexpected_bus_free(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t buf[16 * 512];
    rig_ccb a;
    pcam_counters c0 = ctr(f, 0);

    pcam_sim_target_cfg(f->r.sim, 0)->unexpected_free_next = 1;
    read10(&a, 0, 40, 16, buf, NULL, 0);
    assert_int_equal(sync1(f, &a), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 40, buf, sizeof buf));
    assert_int_equal(a.ccb.u.io.resid, 0);
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries - c0.retries, 1);
    assert_int_equal(c1.requeues - c0.requeues, 1);
    assert_int_equal(c1.errors - c0.errors, 0);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 2);
    assert_int_equal(ev_count(f, PCAM_EV_UNEXP_FREE), 1);
    assert_int_equal(ev_first(f, PCAM_EV_UNEXP_FREE)->target, 0);

    pcam_sim_target_cfg(f->r.sim, 0)->unexpected_free_next = 1;
    read10(&a, 0, 40, 16, buf, NULL, 0);
    a.ccb.u.io.retries = 0;
    assert_int_equal(sync1(f, &a), PCAM_UNEXP_BUSFREE);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 3);
    /* And the bus is fine afterwards. */
    read10(&a, 0, 40, 16, buf, NULL, 0);
    assert_int_equal(sync1(f, &a), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 40, buf, sizeof buf));
    fx_free(f);
}

/*
 * The target goes to a reserved phase after the CDB: the core resets the
 * bus (nothing else gets a target out of a reserved phase) and runs the
 * command again. Once: it completes. Every time: it must not loop; the
 * retry budget ends it with PCAM_SEQUENCE_FAIL. The targets here do not
 * raise UNIT ATTENTION after a reset, so every retry counted is the phase's.
 */
static void illegal_phase(bool polled)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t b0[4 * 512], b1[4 * 512];
    rig_ccb a, by;
    pcam_sim_target_cfg(f->r.sim, 0)->ua_after_reset = false;
    pcam_sim_target_cfg(f->r.sim, 1)->ua_after_reset = false;
    pcam_counters c0 = ctr(f, 0);
    pcam_sim_bus_stats bs0, bs1;
    pcam_sim_bus_stats_get(f->r.sim, &bs0);

    pcam_sim_target_cfg(f->r.sim, 0)->illegal_phase_next = 1;
    read10(&a, 0, 70, 4, b0, NULL, 0);
    assert_int_equal(sync1(f, &a), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 70, b0, sizeof b0));
    pcam_sim_bus_stats_get(f->r.sim, &bs1);
    assert_int_equal(bs1.bus_resets - bs0.bus_resets, 1);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 2);
    const pcam_event *e = ev_first(f, PCAM_EV_BAD_PHASE);
    assert_non_null(e);
    assert_int_equal(e->target, 0);
    assert_int_equal(e->arg, PCAM_PHASE_RESERVED4);
    e = ev_first(f, PCAM_EV_BUS_RESET);
    assert_non_null(e);
    assert_int_equal(e->arg, 1); /* ours */
    assert_true(e > ev_first(f, PCAM_EV_BAD_PHASE));
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries - c0.retries, 1);
    assert_int_equal(c1.errors - c0.errors, 0);

    /* A target that always does it, with a bystander on another target. */
    fx_mark(f);
    pcam_sim_target_cfg(f->r.sim, 0)->illegal_phase_next = 1000;
    read10(&a, 0, 70, 4, b0, NULL, 0);
    a.ccb.u.io.retries = 2;
    read10(&by, 1, 70, 4, b1, NULL, 0);
    by.ccb.u.io.retries = 0;
    rig_ccb *v[] = {&a, &by};
    rig_submit(&f->r, &a);
    rig_submit(&f->r, &by);
    assert_true(run_all(f, v, 2, RIG_S(60)));
    assert_int_equal(a.ccb.status, PCAM_SEQUENCE_FAIL);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 3);
    assert_int_equal(ev_count(f, PCAM_EV_BAD_PHASE), 3);
    assert_int_equal(by.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(1, 0, 70, b1, sizeof b1));
    assert_int_equal(ctr(f, 0).retries - c1.retries, 2);
    pcam_sim_target_cfg(f->r.sim, 0)->illegal_phase_next = 0;
    idle(f, RIG_MS(500));
    assert_int_equal(a.done_count, 1);
    assert_int_equal(by.done_count, 1);
    fx_free(f);
}

BOTH_MODES(check_condition_autosense)
BOTH_MODES(freeze_on_error)
BOTH_MODES(autosense_off_and_no_buffer)
BOTH_MODES(unit_attention)
BOTH_MODES(aborted_command)
BOTH_MODES(sense_parity)
BOTH_MODES(busy)
BOTH_MODES(not_ready)
BOTH_MODES(fail_at_once)
BOTH_MODES(selection_timeout)
BOTH_MODES(unexpected_bus_free)
BOTH_MODES(illegal_phase)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_TESTS(check_condition_autosense),
        BOTH_TESTS(freeze_on_error),
        BOTH_TESTS(autosense_off_and_no_buffer),
        BOTH_TESTS(unit_attention),
        BOTH_TESTS(aborted_command),
        BOTH_TESTS(sense_parity),
        BOTH_TESTS(busy),
        BOTH_TESTS(not_ready),
        BOTH_TESTS(fail_at_once),
        BOTH_TESTS(selection_timeout),
        BOTH_TESTS(unexpected_bus_free),
        BOTH_TESTS(illegal_phase),
    };
    if (getenv("PCAM_RECOV_FILTER") != NULL) /* run one case while diagnosing */
        cmocka_set_test_filter(getenv("PCAM_RECOV_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
