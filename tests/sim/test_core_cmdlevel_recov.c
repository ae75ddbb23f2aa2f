/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core driving a command-level adapter on the simulated bus, part 2:
 * QUEUE FULL depth control, CHECK CONDITION with autosense by the adapter
 * and by the core, the timeout ladder expressed as adapter operations
 * (abort, device reset, bus reset), the caller's abort and device reset,
 * and selection timeout. Every case runs with interrupts and polled.
 *
 * Expectations: the media pattern simrig_add_disk writes (byte i of target
 * t, LUN l is i * 7 + t * 13 + l); SPC-3 sense for a medium error from the
 * simulated LU (fixed format, key 3h MEDIUM ERROR, ASC 11h); SAM status
 * TASK SET FULL (28h) from a target limited to 5 tasks, so the depth that
 * target held is 5; the ladder's steps from pcam.h's abort_timeout_ms (2 s
 * each): a command whose target holds the bus cannot be reached by ABORT
 * TASK or by a device reset, so the bus reset comes 0.5 + 2 + 2 s after it
 * was issued.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdrig.h"

#define EVCAP 4096u

typedef struct fx {
    cmdrig c;
    pcam_event ev[EVCAP];
    size_t nev;
} fx;

static fx *fx_new(bool polled, const pcam_bus_config *bc, const pcam_simcmd_config *ac,
                  unsigned targets, pcam_sim_disc disc)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(cmdrig_init(&f->c, NULL, bc, ac, polled), PCAM_OK);
    for (uint8_t t = 0; t < targets; t++) {
        pcam_sim_target_config tc;
        pcam_sim_target_config_defaults(&tc);
        tc.disconnect = disc;
        tc.ua_power_on = false; /* the retry counts below are the cases' own */
        assert_non_null(simrig_add_disk(&f->c.r, t, 0, 2048, &tc));
    }
    assert_int_equal(cmdrig_scan(&f->c), PCAM_REQ_CMP);
    return f;
}

static void fx_free(fx *f)
{
    assert_null(f->c.r.violation);
    assert_null(pcam_bus_check_invariants(&f->c.r.bus));
    cmdrig_fini(&f->c);
    free(f);
}

static void drain(fx *f)
{
    size_t got;
    while (f->nev < EVCAP &&
           (got = pcam_bus_read_events(&f->c.r.bus, f->ev + f->nev, EVCAP - f->nev)) > 0)
        f->nev += got;
}

/* Step until every CCB in `v` completed (or `limit` of simulated time). */
static bool run_all(fx *f, rig_ccb **v, unsigned n, uint64_t limit)
{
    uint64_t until = pcam_sim_now(f->c.r.sim) + limit;
    for (;;) {
        drain(f);
        unsigned done = 0;
        for (unsigned i = 0; i < n; i++)
            done += v[i]->done_count != 0;
        if (done == n)
            return true;
        if (pcam_sim_now(f->c.r.sim) > until || !simrig_step(&f->c.r))
            return false;
    }
}

static int ev_index(const fx *f, uint16_t code, uint8_t target)
{
    for (size_t i = 0; i < f->nev; i++)
        if (f->ev[i].code == code && (target == 0xFF || f->ev[i].target == target))
            return (int)i;
    return -1;
}

static unsigned ev_count(const fx *f, uint16_t code)
{
    unsigned n = 0;
    for (size_t i = 0; i < f->nev; i++)
        n += f->ev[i].code == code;
    return n;
}

static pcam_counters ctr(fx *f, uint8_t t)
{
    pcam_counters c;
    assert_int_equal(pcam_bus_get_counters(&f->c.r.bus, t, &c), PCAM_OK);
    return c;
}

static bool media_ok(const fx *f, uint8_t t, uint32_t lba, const uint8_t *buf, size_t len)
{
    (void)f;
    for (size_t i = 0; i < len; i++)
        if (buf[i] != cmdrig_pattern(t, 0, (size_t)lba * 512u + i))
            return false;
    return true;
}

/* ------------------------------------------------------------------ */
/* QUEUE FULL: a target that takes 5 tasks, 32 tagged reads kept in flight.
 * The depth settles at 5 (what the adapter had sent the target when it
 * answered TASK SET FULL) without spending a retry, every read verifies;
 * with the limit lifted and a short ramp (16 successes per step) the
 * depth climbs again. */

typedef struct qrun {
    fx *f;
    rig_ccb rc[32];
    uint8_t buf[32][8 * 512];
    uint64_t done, target;
    unsigned bad;
} qrun;

static void q_issue(qrun *q, unsigned i);

static void q_done(rig_ccb *rc)
{
    qrun *q = rc->test;
    unsigned i = (unsigned)(rc - q->rc);
    uint32_t lba = (uint32_t)(i * 40u);
    if (rc->ccb.status != PCAM_REQ_CMP || !media_ok(q->f, 0, lba, q->buf[i], sizeof q->buf[i]))
        q->bad++;
    q->done++;
    if (q->done + 32 <= q->target)
        q_issue(q, i);
}

static void q_issue(qrun *q, unsigned i)
{
    cmdrig_rw(&q->rc[i], false, 0, 0, i * 40u, 8, q->buf[i]);
    q->rc[i].ccb.flags = PCAM_CCB_TAGGED;
    q->rc[i].ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    q->rc[i].ccb.u.io.retries = 0; /* QUEUE FULL must not need any */
    q->rc[i].test = q;
    q->rc[i].on_done = q_done;
    rig_submit(&q->f->c.r, &q->rc[i]);
}

static void queue_full(bool polled)
{
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.qfull_ramp_successes = 16;
    qrun *q = calloc(1, sizeof *q);
    assert_non_null(q);
    q->f = fx_new(polled, &bc, NULL, 1, PCAM_SIM_DISC_ALWAYS);
    fx *f = q->f;
    pcam_sim_target_cfg(f->c.r.sim, 0)->task_set_limit = 5;
    pcam_counters c0 = ctr(f, 0);
    q->target = cmdrig_under_memcheck() ? 400 : 2000;
    for (unsigned i = 0; i < 32; i++)
        q_issue(q, i);
    assert_true(simrig_run_until_count(&f->c.r, &q->done, q->target / 2, RIG_S(600)));
    drain(f);
    assert_int_equal(pcam_lun_depth(&f->c.r.bus, 0, 0), 5);
    pcam_counters c1 = ctr(f, 0);
    assert_true(c1.queue_fulls > c0.queue_fulls);
    assert_int_equal(c1.retries, c0.retries); /* requeued, never retried */
    pcam_sim_target_stats ts;
    pcam_sim_target_stats_get(f->c.r.sim, 0, &ts);
    assert_true(ts.task_set_full > 0);
    assert_true(ts.max_tasks <= 5);
    int iq = ev_index(f, PCAM_EV_QUEUE_FULL, 0);
    assert_true(iq >= 0);

    /* Lift the limit: sustained success ramps the depth back up. */
    pcam_sim_target_cfg(f->c.r.sim, 0)->task_set_limit = 0;
    assert_true(simrig_run_until_count(&f->c.r, &q->done, q->target, RIG_S(600)));
    assert_true(pcam_lun_depth(&f->c.r.bus, 0, 0) > 5);
    assert_int_equal(q->bad, 0);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(q->rc[i].done_count, 1);
    fx_free(f);
    free(q);
}

static void queue_full_interrupt(void **state)
{
    (void)state;
    queue_full(false);
}

static void queue_full_polled(void **state)
{
    (void)state;
    queue_full(true);
}

/* ------------------------------------------------------------------ */
/* CHECK CONDITION: a READ of a block with a medium error. Whoever fetches
 * the sense (the adapter with PCAM_HAL_CAP_AUTOSENSE, else the core's own
 * REQUEST SENSE through the adapter), the CCB ends SCSI_STATUS_ERROR with
 * valid fixed-format sense 3h/11h, no retry is spent (a bad block is not
 * retried), and with PCAM_CCB_FREEZE_ON_ERROR the LUN stays frozen until
 * released. */

static void check_condition(bool polled, bool adapter_sense)
{
    pcam_simcmd_config ac;
    pcam_simcmd_config_defaults(&ac);
    ac.autosense = adapter_sense;
    fx *f = fx_new(polled, NULL, &ac, 1, PCAM_SIM_DISC_ON_SEEK);
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->c.r.sim, 0, 0), 100), 0);
    pcam_simcmd_stats s0 = cmdrig_stats(&f->c);
    pcam_counters c0 = ctr(f, 0);
    static uint8_t buf[4 * 512], buf2[512];
    uint8_t sense[32];
    rig_ccb rd, after;
    memset(sense, 0xAA, sizeof sense);
    cmdrig_rw(&rd, false, 0, 0, 99, 4, buf);
    rd.ccb.u.io.sense = sense;
    rd.ccb.u.io.sense_len = sizeof sense;
    rd.ccb.flags |= PCAM_CCB_FREEZE_ON_ERROR;
    uint32_t st = rig_sync(&f->c.r, &rd, RIG_S(5));
    assert_int_equal(st, PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID | PCAM_DEV_QFRZN);
    assert_int_equal(rd.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(sense[0] & 0x7F, 0x70);
    assert_int_equal(sense[2] & 0x0F, 0x03); /* MEDIUM ERROR */
    assert_int_equal(sense[12], 0x11);       /* UNRECOVERED READ ERROR */
    assert_true(rd.ccb.u.io.sense_resid < sizeof sense);
    pcam_simcmd_stats s1 = cmdrig_stats(&f->c);
    assert_int_equal(s1.autosense - s0.autosense, adapter_sense ? 1 : 0);
    /* The core's REQUEST SENSE was a command of its own at the adapter. */
    assert_int_equal(s1.started - s0.started, adapter_sense ? 1 : 2);
    pcam_counters c1 = ctr(f, 0);
    assert_int_equal(c1.retries, c0.retries);
    assert_int_equal(c1.check_conditions - c0.check_conditions, 1);
    drain(f);
    int ic = ev_index(f, PCAM_EV_CHECK_COND, 0);
    assert_true(ic >= 0);
    assert_int_equal(f->ev[ic].arg, 0x031100u);

    /* Frozen: the next read waits for the release. */
    cmdrig_rw(&after, false, 0, 0, 10, 1, buf2);
    rig_submit(&f->c.r, &after);
    rig_ccb *v[] = {&after};
    assert_false(run_all(f, v, 1, RIG_MS(200)));
    rig_ccb rel;
    memset(&rel, 0, sizeof rel);
    rel.ccb.func = PCAM_FN_REL_QUEUE;
    assert_int_equal(rig_sync(&f->c.r, &rel, RIG_MS(1)), PCAM_REQ_CMP);
    assert_true(run_all(f, v, 1, RIG_S(1)));
    assert_int_equal(after.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(f, 0, 10, buf2, sizeof buf2));

    /* No sense buffer: the core fetches the sense into its own buffer to
     * decide (here: fail, no retry) and the caller gets none. */
    rig_ccb nb;
    cmdrig_rw(&nb, false, 0, 0, 100, 1, buf2);
    assert_int_equal(rig_sync(&f->c.r, &nb, RIG_S(5)), PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(ctr(f, 0).retries, c0.retries);
    fx_free(f);
}

static void cc_adapter_sense(void **state)
{
    (void)state;
    check_condition(false, true);
}

static void cc_core_sense(void **state)
{
    (void)state;
    check_condition(false, false);
}

static void cc_core_sense_polled(void **state)
{
    (void)state;
    check_condition(true, false);
}

/* ------------------------------------------------------------------ */
/* The ladder. */

static void read8(rig_ccb *rc, uint8_t t, uint32_t lba, uint8_t *buf)
{
    cmdrig_rw(rc, false, t, 0, lba, 8, buf);
    rc->ccb.flags |= PCAM_CCB_TAGGED;
    rc->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
}

/* A READ the target disconnects from and never finishes (500 ms timeout),
 * among reads on two targets: the adapter's abort reaches it (ABORT TASK
 * by tag), it fails CMD_TIMEOUT at the timeout, nothing else is touched. */
static void hung_disconnected(bool polled)
{
    fx *f = fx_new(polled, NULL, NULL, 2, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t bv[8 * 512], b[4][8 * 512];
    rig_ccb victim, by[4];
    rig_ccb *v[] = {&victim, &by[0], &by[1], &by[2], &by[3]};
    pcam_sim_target_stats t0;
    pcam_sim_target_stats_get(f->c.r.sim, 0, &t0);
    pcam_counters c0 = ctr(f, 0), c1 = ctr(f, 1);

    pcam_sim_target_cfg(f->c.r.sim, 0)->hang_next = 1;
    read8(&victim, 0, 10, bv);
    victim.ccb.timeout_ms = 500;
    for (unsigned i = 0; i < 4; i++)
        read8(&by[i], (uint8_t)(i & 1), 100 + 50 * i, b[i]);
    uint64_t t_0 = pcam_sim_now(f->c.r.sim);
    for (unsigned i = 0; i < 5; i++)
        rig_submit(&f->c.r, v[i]);
    assert_true(run_all(f, v, 5, RIG_S(10)));
    uint64_t took = pcam_sim_now(f->c.r.sim) - t_0;

    assert_int_equal(victim.ccb.status, PCAM_CMD_TIMEOUT);
    assert_true(took >= RIG_MS(500) && took < RIG_MS(510));
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(by[i].ccb.status, PCAM_REQ_CMP);
        assert_true(media_ok(f, (uint8_t)(i & 1), 100 + 50 * i, b[i], sizeof b[i]));
    }
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(v[i]->done_count, 1);
    int it = ev_index(f, PCAM_EV_TIMEOUT, 0), ia = ev_index(f, PCAM_EV_ABORT_SENT, 0);
    assert_true(it >= 0 && ia > it);
    assert_int_equal(f->ev[ia].arg, f->ev[it].arg); /* the same tag */
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0);
    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 0);
    pcam_sim_target_stats t1;
    pcam_sim_target_stats_get(f->c.r.sim, 0, &t1);
    assert_int_equal(t1.aborted_tasks - t0.aborted_tasks, 1);
    assert_int_equal(pcam_sim_task_count(f->c.r.sim, 0, 0), 0);
    assert_int_equal(cmdrig_stats(&f->c).aborts, 1);
    pcam_counters d0 = ctr(f, 0), d1 = ctr(f, 1);
    assert_int_equal(d0.timeouts - c0.timeouts, 1);
    assert_int_equal(d0.aborts - c0.aborts, 1);
    assert_int_equal(d0.resets - c0.resets, 0);
    assert_int_equal(d0.retries - c0.retries, 0);
    assert_int_equal(d1.errors - c1.errors, 0);
    fx_free(f);
}

/* A READ without disconnect privilege the target never finishes: it holds
 * the bus, so neither the abort nor the device reset can be delivered. The
 * ladder runs its steps on the core's timers (timeout 0.5 s, ABORT 2 s,
 * device reset 2 s) and resets the bus at 4.5 s; the reads target 1 had
 * disconnected with are requeued without a retry (they have none) and
 * complete after the settle delay. */
static void hung_holding_bus(bool polled)
{
    fx *f = fx_new(polled, NULL, NULL, 2, PCAM_SIM_DISC_ALWAYS);
    static uint8_t bv[4 * 512], b[2][8 * 512];
    rig_ccb victim, by[2];
    rig_ccb *v[] = {&victim, &by[0], &by[1]};
    pcam_sim_target_cfg(f->c.r.sim, 0)->ua_after_reset = false;
    pcam_sim_target_cfg(f->c.r.sim, 1)->ua_after_reset = false;
    pcam_counters c1 = ctr(f, 1);

    read8(&by[0], 1, 300, b[0]);
    read8(&by[1], 1, 600, b[1]);
    by[0].ccb.u.io.retries = by[1].ccb.u.io.retries = 0;
    rig_submit(&f->c.r, &by[0]);
    rig_submit(&f->c.r, &by[1]);
    /* Let target 1 take both and disconnect. */
    for (unsigned i = 0; i < 2000 && pcam_sim_task_count(f->c.r.sim, 1, 0) < 2; i++)
        simrig_step(&f->c.r);
    assert_int_equal(pcam_sim_task_count(f->c.r.sim, 1, 0), 2);

    pcam_sim_target_cfg(f->c.r.sim, 0)->hang_next = 1;
    cmdrig_rw(&victim, false, 0, 0, 10, 4, bv);
    victim.ccb.flags |= PCAM_CCB_DIS_DISCONNECT;
    victim.ccb.timeout_ms = 500;
    uint64_t t_0 = pcam_sim_now(f->c.r.sim);
    rig_submit(&f->c.r, &victim);
    assert_true(run_all(f, v, 3, RIG_S(20)));

    assert_int_equal(victim.ccb.status, PCAM_CMD_TIMEOUT);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(by[i].ccb.status, PCAM_REQ_CMP);
        assert_int_equal(by[i].done_count, 1);
    }
    assert_int_equal(victim.done_count, 1);
    assert_true(media_ok(f, 1, 300, b[0], sizeof b[0]));
    assert_true(media_ok(f, 1, 600, b[1], sizeof b[1]));
    int it = ev_index(f, PCAM_EV_TIMEOUT, 0), ir = ev_index(f, PCAM_EV_BUS_RESET, 0xFF);
    assert_true(it >= 0 && ir > it);
    assert_int_equal(f->ev[ir].arg, 1); /* our reset */
    uint64_t t_reset = f->ev[ir].time_ns;
    assert_true(t_reset - t_0 >= RIG_MS(4500) && t_reset - t_0 < RIG_MS(4510));
    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 1);
    assert_int_equal(ev_count(f, PCAM_EV_ABORT_SENT), 0); /* never delivered */
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0);
    pcam_simcmd_stats s = cmdrig_stats(&f->c);
    assert_int_equal(s.aborts, 1);  /* the first step was asked of the adapter */
    assert_int_equal(s.resets, 0);  /* the second could not be delivered */
    pcam_counters d1 = ctr(f, 1);
    assert_int_equal(d1.requeues - c1.requeues, 2);
    assert_int_equal(d1.retries - c1.retries, 0);
    assert_int_equal(d1.errors - c1.errors, 0);
    fx_free(f);
}

static void hung_disconnected_interrupt(void **state)
{
    (void)state;
    hung_disconnected(false);
}

static void hung_disconnected_polled(void **state)
{
    (void)state;
    hung_disconnected(true);
}

static void hung_holding_bus_interrupt(void **state)
{
    (void)state;
    hung_holding_bus(false);
}

static void hung_holding_bus_polled(void **state)
{
    (void)state;
    hung_holding_bus(true);
}

/* ------------------------------------------------------------------ */
/* The caller's requests: PCAM_FN_ABORT of a hung disconnected command, and
 * PCAM_FN_RESET_DEV with reads in flight (they are bystanders: requeued
 * and completed); selection of an absent ID. */

static void caller_requests(bool polled)
{
    fx *f = fx_new(polled, NULL, NULL, 1, PCAM_SIM_DISC_ALWAYS);
    static uint8_t bv[8 * 512], b[3][8 * 512];
    rig_ccb victim, ab, by[3], rst, absent;
    pcam_sim_target_cfg(f->c.r.sim, 0)->hang_next = 1;
    read8(&victim, 0, 10, bv);
    rig_submit(&f->c.r, &victim);
    /* Until it has disconnected and the bus has nothing left to do (the
     * next step would jump to the command's timeout). */
    for (unsigned i = 0; i < 100000 && (pcam_sim_event_pending(f->c.r.sim) ||
                                        pcam_sim_next_time(f->c.r.sim) != UINT64_MAX); i++)
        simrig_step(&f->c.r);
    assert_int_equal(pcam_sim_task_count(f->c.r.sim, 0, 0), 1);
    assert_int_equal(victim.done_count, 0);
    memset(&ab, 0, sizeof ab);
    ab.ccb.func = PCAM_FN_ABORT;
    ab.ccb.u.abort.victim = &victim.ccb;
    assert_int_equal(rig_sync(&f->c.r, &ab, RIG_MS(1)), PCAM_REQ_CMP);
    rig_ccb *v[] = {&victim};
    assert_true(run_all(f, v, 1, RIG_S(1)));
    assert_int_equal(victim.ccb.status, PCAM_REQ_ABORTED);
    assert_int_equal(pcam_sim_task_count(f->c.r.sim, 0, 0), 0);

    /* A device reset with three reads in flight. */
    for (unsigned i = 0; i < 3; i++) {
        read8(&by[i], 0, 200 + 100 * i, b[i]);
        rig_submit(&f->c.r, &by[i]);
    }
    for (unsigned i = 0; i < 2000 && pcam_sim_task_count(f->c.r.sim, 0, 0) < 3; i++)
        simrig_step(&f->c.r);
    memset(&rst, 0, sizeof rst);
    rst.ccb.func = PCAM_FN_RESET_DEV;
    rst.ccb.target = 0;
    rig_submit(&f->c.r, &rst);
    rig_ccb *w[] = {&rst, &by[0], &by[1], &by[2]};
    assert_true(run_all(f, w, 4, RIG_S(10)));
    assert_int_equal(rst.ccb.status, PCAM_REQ_CMP);
    pcam_sim_target_stats ts;
    pcam_sim_target_stats_get(f->c.r.sim, 0, &ts);
    assert_int_equal(ts.target_resets, 1);
    assert_true(ev_index(f, PCAM_EV_BDR_SENT, 0) >= 0);
    assert_int_equal(cmdrig_stats(&f->c).resets, 1);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(by[i].ccb.status, PCAM_REQ_CMP);
        assert_int_equal(by[i].done_count, 1);
        assert_true(media_ok(f, 0, 200 + 100 * i, b[i], sizeof b[i]));
    }

    /* Nobody at ID 9: selection timeout, not retried. */
    cmdrig_rw(&absent, false, 9, 0, 0, 1, bv);
    assert_int_equal(rig_sync(&f->c.r, &absent, RIG_S(2)), PCAM_SEL_TIMEOUT);
    assert_int_equal(absent.done_count, 1);

    /* A device reset that nobody answers is "no such device", one the
     * target refuses is a refusal: the caller can tell them apart (UEFI's
     * ResetTargetLun answers EFI_INVALID_PARAMETER and EFI_UNSUPPORTED). */
    rig_ccb r2;
    memset(&r2, 0, sizeof r2);
    r2.ccb.func = PCAM_FN_RESET_DEV;
    r2.ccb.target = 9;
    assert_int_equal(rig_sync(&f->c.r, &r2, RIG_S(2)) & PCAM_STATUS_MASK, PCAM_SEL_TIMEOUT);
    pcam_sim_target_cfg(f->c.r.sim, 0)->refuse_reset = true;
    memset(&r2, 0, sizeof r2);
    r2.ccb.func = PCAM_FN_RESET_DEV;
    r2.ccb.target = 0;
    assert_int_equal(rig_sync(&f->c.r, &r2, RIG_S(2)) & PCAM_STATUS_MASK, PCAM_MSG_REJECT_REC);
    pcam_sim_target_stats_get(f->c.r.sim, 0, &ts);
    assert_int_equal(ts.target_resets, 1); /* the refused one did nothing */
    assert_int_equal(ts.refused, 1);
    fx_free(f);
}

static void caller_requests_interrupt(void **state)
{
    (void)state;
    caller_requests(false);
}

static void caller_requests_polled(void **state)
{
    (void)state;
    caller_requests(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queue_full_interrupt),
        cmocka_unit_test(queue_full_polled),
        cmocka_unit_test(cc_adapter_sense),
        cmocka_unit_test(cc_core_sense),
        cmocka_unit_test(cc_core_sense_polled),
        cmocka_unit_test(hung_disconnected_interrupt),
        cmocka_unit_test(hung_disconnected_polled),
        cmocka_unit_test(hung_holding_bus_interrupt),
        cmocka_unit_test(hung_holding_bus_polled),
        cmocka_unit_test(caller_requests_interrupt),
        cmocka_unit_test(caller_requests_polled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
