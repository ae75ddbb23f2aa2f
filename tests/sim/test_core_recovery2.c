/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 7 (recovery), part 2: timeouts and the escalation ladder,
 * reselection with an unknown tag, and the recovery functions a caller asks
 * for (PCAM_FN_ABORT, PCAM_FN_RESET_DEV, PCAM_FN_RESET_BUS) with commands in
 * flight. Every case runs with interrupts and polled (scenario 8).
 *
 * The ladder is ABORT TASK -> BUS DEVICE RESET -> bus reset -> chip reset,
 * each step with abort_timeout_ms. Reached here with the simulator's
 * hang_next: a hung command that disconnected is ended by ABORT TASK at the
 * first step; a hung command holding the bus (no disconnect privilege)
 * cannot be sent a message, so the core must get to the bus reset. The
 * BUS DEVICE RESET and chip reset steps are not reached: a simulated target
 * always takes ABORT TASK (there is no "ignore abort" behaviour) and the
 * simulated chip always completes a bus reset, so nothing here drives the
 * core past those steps; BUS DEVICE RESET and LOGICAL UNIT RESET are
 * exercised as caller requests instead.
 *
 * Expectations: the media pattern simrig_add_disk writes (byte i of target
 * t, LUN l is i * 7 + t * 13 + l), SPI-3 message codes (ABORT TASK 0Dh,
 * TARGET RESET 0Ch, LOGICAL UNIT RESET 17h), SPC-3 UNIT ATTENTION 29/00
 * (reset) and 29/03 (BDR), the simulated targets' statistics and the bus
 * trace. Set PCAM_RECOV_LOG=1 for the phase log, PCAM_RECOV_FILTER=name to
 * run one case.
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
#include "pcam/pcam_msg.h"
#include "simrig.h"

#include "recov_fixture.h"

/* ---- part 2 helpers ---- */

/* Position of the first event `code` (for target t, 0xFF = any), or -1. */
static int ev_index(fx *f, uint16_t code, uint8_t t)
{
    fx_read_events(f);
    for (size_t i = 0; i < f->nev; i++)
        if (f->ev[i].code == code && (t == 0xFF || f->ev[i].target == t))
            return (int)i;
    return -1;
}

/* Step until the core has counted `n` more DISCONNECT messages from target t. */
static void run_until_disconnects(fx *f, uint8_t t, uint32_t n)
{
    uint32_t want = ctr(f, t).disconnects + n;
    uint64_t end = pcam_sim_now(f->r.sim) + RIG_S(5);
    while (ctr(f, t).disconnects < want && pcam_sim_now(f->r.sim) < end && simrig_step(&f->r))
        ;
    assert_true(ctr(f, t).disconnects >= want);
}

/* Time of the first CDB on the bus at or after `from`, from the trace. */
static uint64_t first_cdb_after(fx *f, uint64_t from)
{
    pcam_sim_trace_entry e;
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &e); i++)
        if (e.kind == PCAM_SIM_TR_COMMAND && e.t_ns >= from)
            return e.t_ns;
    return UINT64_MAX;
}

/*
 * Drive the core as simrig_step() does, but never move simulated time past
 * `end` (simrig_step jumps straight to the next happening, which may be a
 * reselection milliseconds away), and stop there.
 */
static void run_to(fx *f, uint64_t end)
{
    simrig *r = &f->r;
    for (unsigned guard = 0;; guard++) {
        assert_true(guard < 1000000u); /* the core keeps asking for "now" */
        if (!r->polled && pcam_sim_event_pending(r->sim)) {
            pcam_bus_intr(&r->bus);
        } else if (!(r->polled && pcam_bus_poll(&r->bus))) {
            uint64_t t = pcam_sim_next_time(r->sim), d = pcam_bus_next_deadline(&r->bus);
            if (d < t)
                t = d;
            if (t > end)
                break;
            if (t > pcam_sim_now(r->sim))
                pcam_sim_advance(r->sim, t);
            if (!r->polled && pcam_bus_next_deadline(&r->bus) <= t)
                pcam_bus_tick(&r->bus);
        }
        assert_null(pcam_bus_check_invariants(&r->bus));
    }
    pcam_sim_advance(r->sim, end);
}

static void mgmt(rig_ccb *rc, uint8_t func, uint8_t t)
{
    memset(rc, 0, sizeof *rc);
    rc->ccb.func = func;
    rc->ccb.target = t;
}

/* ---- timeouts ---- */

/*
 * A READ the target takes, disconnects from and never finishes (500 ms
 * timeout), among READs on the same LUN and on another target. The first
 * step of the ladder is enough: ABORT TASK with the command's tag, at
 * the timeout; nothing else is touched (no requeue, no reset).
 */
static void timeout_disconnected(bool polled)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ON_SEEK);
    static uint8_t bv[4 * 512], b[4][8 * 512];
    rig_ccb victim, by[4];
    rig_ccb *v[] = {&victim, &by[0], &by[1], &by[2], &by[3]};
    pcam_counters c0 = ctr(f, 0), c1 = ctr(f, 1);
    pcam_sim_target_stats s0 = tstats(f, 0);

    pcam_sim_target_cfg(f->r.sim, 0)->hang_next = 1;
    read10(&victim, 0, 10, 4, bv, NULL, 0);
    victim.ccb.timeout_ms = 500;
    for (unsigned i = 0; i < 4; i++)
        read10(&by[i], (uint8_t)(i & 1), 100 + 50 * i, 8, b[i], NULL, 0);
    uint64_t t0 = pcam_sim_now(f->r.sim);
    for (unsigned i = 0; i < 5; i++)
        rig_submit(&f->r, v[i]);
    assert_true(run_all(f, v, 5, RIG_S(10)));
    uint64_t took = pcam_sim_now(f->r.sim) - t0;
    idle(f, RIG_S(1));

    assert_int_equal(victim.ccb.status, PCAM_CMD_TIMEOUT);
    assert_true(took >= RIG_MS(500) && took < RIG_MS(510));
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(by[i].ccb.status, PCAM_REQ_CMP);
        assert_true(media_ok((uint8_t)(i & 1), 0, 100 + 50 * i, b[i], sizeof b[i]));
    }
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(v[i]->done_count, 1);

    /* Events: the timeout, then ABORT TASK naming the same tag; no reset. */
    int it = ev_index(f, PCAM_EV_TIMEOUT, 0), ia = ev_index(f, PCAM_EV_ABORT_SENT, 0);
    assert_true(it >= 0 && ia > it);
    assert_int_not_equal(f->ev[it].arg, 0); /* fx_new moved the tag cursor */
    assert_int_equal(f->ev[ia].arg, f->ev[it].arg);
    assert_int_equal(ev_count(f, PCAM_EV_ABORT_SENT), 1);
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0);
    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 0);
    /* The wire: one ABORT TASK to target 0, and the target dropped one task. */
    assert_int_equal(msgs_out(f, 0, PCAM_MSG_ABORT_TASK), 1);
    pcam_sim_target_stats s1 = tstats(f, 0);
    assert_int_equal(s1.aborted_tasks - s0.aborted_tasks, 1);
    assert_int_equal(pcam_sim_task_count(f->r.sim, 0, 0), 0);
    /* Counters. */
    pcam_counters d0 = ctr(f, 0), d1 = ctr(f, 1);
    assert_int_equal(d0.timeouts - c0.timeouts, 1);
    assert_int_equal(d0.aborts - c0.aborts, 1);
    assert_int_equal(d0.resets - c0.resets, 0);
    assert_int_equal(d0.retries - c0.retries, 0);
    assert_int_equal(d0.requeues - c0.requeues, 0);
    assert_int_equal(d0.errors - c0.errors, 1);
    assert_int_equal(d1.requeues - c1.requeues, 0);
    assert_int_equal(d1.errors - c1.errors, 0);
    fx_free(f);
}

/*
 * A READ without disconnect privilege that the target never finishes: it
 * takes the CDB and then holds the bus without changing phase (the
 * selection the CDB went with never even completes), so no ABORT TASK can
 * reach it. After
 * abort_timeout_ms (2 s) the core resets the bus. The two READs target 1
 * had disconnected with are requeued without spending a retry (they have
 * none: retries 0) and one queued behind the victim on its LUN goes out
 * after the reset; all complete with the right data. These targets raise no
 * UNIT ATTENTION after a reset, so no retry is spent on one either.
 */
static void timeout_holding_bus(bool polled)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ALWAYS);
    static uint8_t bv[4 * 512], b[3][8 * 512];
    rig_ccb victim, by[3];
    rig_ccb *v[] = {&victim, &by[0], &by[1], &by[2]};
    pcam_sim_target_cfg(f->r.sim, 0)->ua_after_reset = false;
    pcam_sim_target_cfg(f->r.sim, 1)->ua_after_reset = false;
    pcam_counters c0 = ctr(f, 0), c1 = ctr(f, 1);
    pcam_sim_target_stats s1 = tstats(f, 1);
    pcam_sim_bus_stats bs0, bs1;
    pcam_sim_bus_stats_get(f->r.sim, &bs0);

    read10(&by[0], 1, 300, 8, b[0], NULL, 0);
    read10(&by[1], 1, 600, 8, b[1], NULL, 0);
    by[0].ccb.u.io.retries = by[1].ccb.u.io.retries = 0;
    rig_submit(&f->r, &by[0]);
    rig_submit(&f->r, &by[1]);
    run_until_disconnects(f, 1, 2);
    assert_int_equal(by[0].done_count + by[1].done_count, 0);

    pcam_sim_target_cfg(f->r.sim, 0)->hang_next = 1;
    read10(&victim, 0, 10, 4, bv, NULL, 0);
    victim.ccb.flags |= PCAM_CCB_DIS_DISCONNECT;
    victim.ccb.timeout_ms = 500;
    read10(&by[2], 0, 700, 8, b[2], NULL, 0);
    by[2].ccb.u.io.retries = 0;
    uint64_t t0 = pcam_sim_now(f->r.sim);
    rig_submit(&f->r, &victim);
    rig_submit(&f->r, &by[2]);
    assert_true(run_all(f, v, 4, RIG_S(20)));
    idle(f, RIG_S(1));

    /* Timed out at 500 ms, the ABORT step ran its 2 s, then the bus reset. */
    assert_int_equal(victim.ccb.status, PCAM_CMD_TIMEOUT);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(by[i].ccb.status, PCAM_REQ_CMP);
        assert_int_equal(by[i].done_count, 1);
    }
    assert_int_equal(victim.done_count, 1);
    assert_true(media_ok(1, 0, 300, b[0], sizeof b[0]));
    assert_true(media_ok(1, 0, 600, b[1], sizeof b[1]));
    assert_true(media_ok(0, 0, 700, b[2], sizeof b[2]));

    int it = ev_index(f, PCAM_EV_TIMEOUT, 0), ir = ev_index(f, PCAM_EV_BUS_RESET, 0xFF);
    assert_true(it >= 0 && ir > it);
    assert_int_equal(f->ev[ir].arg, 1); /* our reset */
    uint64_t t_reset = f->ev[ir].time_ns;
    assert_true(t_reset - t0 >= RIG_MS(2500) && t_reset - t0 < RIG_MS(2510));
    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 1);
    assert_int_equal(ev_count(f, PCAM_EV_ABORT_SENT), 0); /* never delivered */
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0);
    assert_int_equal(f->reset_async, 1);
    /* No message reached the target after the CDB. */
    assert_int_equal(msgs_out(f, 0, PCAM_MSG_ABORT_TASK), 0);
    pcam_sim_bus_stats_get(f->r.sim, &bs1);
    assert_int_equal(bs1.bus_resets - bs0.bus_resets, 1);
    assert_int_equal(tstats(f, 1).aborted_tasks - s1.aborted_tasks, 2);
    /* Nothing goes out before the settle delay (2 s) has passed. */
    assert_true(first_cdb_after(f, t_reset) >= t_reset + RIG_MS(2000));

    pcam_counters d0 = ctr(f, 0), d1 = ctr(f, 1);
    assert_int_equal(d0.timeouts - c0.timeouts, 1);
    assert_int_equal(d0.aborts - c0.aborts, 0);
    assert_int_equal(d0.resets - c0.resets, 1);
    assert_int_equal(d0.retries - c0.retries, 0);
    assert_int_equal(d1.resets - c1.resets, 1);
    assert_int_equal(d1.requeues - c1.requeues, 2);
    assert_int_equal(d1.retries - c1.retries, 0);
    assert_int_equal(d1.errors - c1.errors, 0);
    fx_free(f);
}

/* ---- reselection with an unknown tag ---- */

/*
 * The target reselects one of four disconnected READs with a tag that is
 * not in use. The core answers ABORT TASK on that nexus (the target drops
 * the task it was reselecting for), the other three complete, the fourth
 * times out (1 s) and is aborted by tag, and the bus takes commands again.
 */
static void unknown_tag(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ALWAYS);
    static uint8_t b[4][8 * 512], bn[512];
    rig_ccb rd[4], next;
    rig_ccb *v[] = {&rd[0], &rd[1], &rd[2], &rd[3]};
    pcam_counters c0 = ctr(f, 0);
    pcam_sim_target_stats s0 = tstats(f, 0);

    for (unsigned i = 0; i < 4; i++) {
        read10(&rd[i], 0, 100 * (i + 1), 8, b[i], NULL, 0);
        rd[i].ccb.timeout_ms = 1000;
    }
    for (unsigned i = 0; i < 4; i++)
        rig_submit(&f->r, &rd[i]);
    run_until_disconnects(f, 0, 4);
    pcam_sim_target_cfg(f->r.sim, 0)->lie_tag_next = 1;
    assert_true(run_all(f, v, 4, RIG_S(10)));
    idle(f, RIG_S(1));

    unsigned ok = 0, timed_out = 0;
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(rd[i].done_count, 1);
        if (rd[i].ccb.status == PCAM_REQ_CMP) {
            ok++;
            assert_true(media_ok(0, 0, 100 * (i + 1), b[i], sizeof b[i]));
        } else {
            assert_int_equal(rd[i].ccb.status, PCAM_CMD_TIMEOUT);
            timed_out++;
        }
    }
    assert_int_equal(ok, 3);
    assert_int_equal(timed_out, 1);

    int ib = ev_index(f, PCAM_EV_BAD_RESELECT, 0), it = ev_index(f, PCAM_EV_TIMEOUT, 0),
        ia = ev_index(f, PCAM_EV_ABORT_SENT, 0);
    assert_true(ib >= 0 && it > ib && ia > it);
    /* The lying tag is none of ours; the abort at the timeout names the real one. */
    assert_int_not_equal(f->ev[ib].arg, f->ev[it].arg);
    assert_int_equal(f->ev[ia].arg, f->ev[it].arg);
    assert_int_equal(msgs_out(f, 0, PCAM_MSG_ABORT_TASK), 2);
    assert_int_equal(tstats(f, 0).aborted_tasks - s0.aborted_tasks, 1);
    /* The task the target dropped on the first ABORT TASK is the one that
     * timed out: the lie cost exactly that command. */
    pcam_sim_trace_entry te;
    unsigned dropped = 0;
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &te); i++)
        if (te.kind == PCAM_SIM_TR_TASK && te.value == PCAM_SIM_TN_ABORTED) {
            assert_int_equal(te.byte, f->ev[it].arg);
            dropped++;
        }
    assert_int_equal(dropped, 1);
    pcam_counters d0 = ctr(f, 0);
    assert_int_equal(d0.timeouts - c0.timeouts, 1);
    assert_int_equal(d0.aborts - c0.aborts, 1);
    assert_int_equal(d0.resets - c0.resets, 0);
    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 0);

    read10(&next, 0, 3, 1, bn, NULL, 0);
    assert_int_equal(sync1(f, &next), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 3, bn, sizeof bn));
    fx_free(f);
}

/* ---- recovery the caller asks for ---- */

/*
 * BUS DEVICE RESET (and LOGICAL UNIT RESET) while four READs are
 * disconnected on the target and two on another: the reset completes, the
 * four are requeued (no retry spent on the reset) and complete; the UNIT
 * ATTENTION the reset leaves (29/03) costs exactly one retry; the other
 * target is not touched.
 */
static void user_reset_dev(bool polled, bool lun_reset)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ALWAYS);
    static uint8_t b[6][8 * 512];
    rig_ccb rd[6], rst;
    rig_ccb *v[] = {&rd[0], &rd[1], &rd[2], &rd[3], &rd[4], &rd[5]};
    pcam_counters c0 = ctr(f, 0), c1 = ctr(f, 1);
    pcam_sim_target_stats s0 = tstats(f, 0), s1 = tstats(f, 1);

    for (unsigned i = 0; i < 6; i++) {
        read10(&rd[i], i < 4 ? 0 : 1, 64 * (i + 1), 8, b[i], NULL, 0);
        rd[i].ccb.u.io.retries = 1;
    }
    for (unsigned i = 0; i < 6; i++)
        rig_submit(&f->r, &rd[i]);
    run_until_disconnects(f, 0, 4);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(rd[i].done_count, 0);

    mgmt(&rst, PCAM_FN_RESET_DEV, 0);
    if (lun_reset)
        rst.ccb.flags = PCAM_CCB_LUN_RESET;
    rig_ccb *w[] = {&rst};
    rig_submit(&f->r, &rst);
    assert_true(run_all(f, w, 1, RIG_S(5)));
    assert_int_equal(rst.ccb.status, PCAM_REQ_CMP);
    assert_true(run_all(f, v, 6, RIG_S(10)));
    idle(f, RIG_S(1));
    assert_int_equal(rst.done_count, 1);
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(rd[i].done_count, 1);
        assert_int_equal(rd[i].ccb.status, PCAM_REQ_CMP);
        assert_true(media_ok(i < 4 ? 0 : 1, 0, 64 * (i + 1), b[i], sizeof b[i]));
    }

    uint16_t code = lun_reset ? PCAM_EV_LUN_RESET : PCAM_EV_BDR_SENT;
    assert_int_equal(ev_count(f, code), 1);
    assert_int_equal(ev_first(f, code)->target, 0);
    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 0);
    assert_int_equal(f->bdr_async, 1);
    assert_int_equal(msgs_out(f, 0, lun_reset ? PCAM_MSG_LOGICAL_UNIT_RESET : PCAM_MSG_TARGET_RESET),
                     1);
    const pcam_event *cc = ev_first(f, PCAM_EV_CHECK_COND);
    assert_non_null(cc);
    assert_int_equal(cc->arg, 0x062903u);
    pcam_sim_target_stats t0s = tstats(f, 0), t1s = tstats(f, 1);
    assert_int_equal(t0s.aborted_tasks - s0.aborted_tasks, 4);
    assert_int_equal(lun_reset ? t0s.lu_resets - s0.lu_resets : t0s.target_resets - s0.target_resets,
                     1);
    assert_int_equal(t1s.aborted_tasks - s1.aborted_tasks, 0);

    pcam_counters d0 = ctr(f, 0), d1 = ctr(f, 1);
    assert_int_equal(d0.resets - c0.resets, 1);
    assert_int_equal(d0.requeues - c0.requeues, 4 + 1); /* the bystanders, then the UA requeue */
    assert_int_equal(d0.retries - c0.retries, 0); /* the UA of our own reset costs none (issue 16) */
    assert_int_equal(d0.errors - c0.errors, 0);
    assert_int_equal(d1.resets - c1.resets, 0);
    assert_int_equal(d1.requeues - c1.requeues, 0);
    fx_free(f);
}

static void user_bdr(bool polled)
{
    user_reset_dev(polled, false);
}

static void user_lun_reset(bool polled)
{
    user_reset_dev(polled, true);
}

/*
 * A bus reset asked for with READs disconnected on two targets: it
 * completes, everything in flight is requeued and completes after the
 * settle delay (2 s). The READs have no retries at all (issue 16, defect
 * 4): the UNIT ATTENTION 29/00 the caller's own reset leaves on each LU is
 * that reset's report, which the caller already had (the reset CCB, the
 * bus-reset event): it is requeued without a retry, and every READ
 * completes with its data instead of failing with the reset's side effect.
 */
static void user_reset_bus(bool polled)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ALWAYS);
    static uint8_t b[6][8 * 512];
    rig_ccb rd[6], rst;
    rig_ccb *v[] = {&rd[0], &rd[1], &rd[2], &rd[3], &rd[4], &rd[5]};
    pcam_counters c[2] = {ctr(f, 0), ctr(f, 1)};
    pcam_sim_target_stats s[2] = {tstats(f, 0), tstats(f, 1)};

    for (unsigned i = 0; i < 6; i++) {
        read10(&rd[i], (uint8_t)(i & 1), 64 * (i + 1), 8, b[i], NULL, 0);
        rd[i].ccb.u.io.retries = 0;
    }
    for (unsigned i = 0; i < 6; i++)
        rig_submit(&f->r, &rd[i]);
    run_until_disconnects(f, 1, 3);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(rd[i].done_count, 0);

    mgmt(&rst, PCAM_FN_RESET_BUS, 0);
    rig_ccb *w[] = {&rst};
    rig_submit(&f->r, &rst);
    assert_true(run_all(f, w, 1, RIG_S(5)));
    assert_int_equal(rst.ccb.status, PCAM_REQ_CMP);
    assert_true(run_all(f, v, 6, RIG_S(10)));
    idle(f, RIG_S(1));
    assert_int_equal(rst.done_count, 1);
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(rd[i].done_count, 1);
        assert_int_equal(rd[i].ccb.status, PCAM_REQ_CMP);
        assert_true(media_ok((uint8_t)(i & 1), 0, 64 * (i + 1), b[i], sizeof b[i]));
    }

    assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 1);
    const pcam_event *er = ev_first(f, PCAM_EV_BUS_RESET);
    assert_int_equal(er->arg, 1);
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0);
    assert_int_equal(f->reset_async, 1);
    assert_true(first_cdb_after(f, er->time_ns) >= er->time_ns + RIG_MS(2000));
    for (uint8_t t = 0; t < 2; t++) {
        pcam_counters d = ctr(f, t);
        pcam_sim_target_stats ts = tstats(f, t);
        assert_int_equal(ts.aborted_tasks - s[t].aborted_tasks, 3);
        assert_int_equal(d.resets - c[t].resets, 1);
        assert_int_equal(d.requeues - c[t].requeues, 3 + 1);
        assert_int_equal(d.retries - c[t].retries, 0);
        assert_int_equal(d.check_conditions - c[t].check_conditions, 1); /* the UA, met once */
        assert_int_equal(d.errors - c[t].errors, 0);
    }
    fx_free(f);
}

/* Abort `victim` with a PCAM_FN_ABORT CCB; it completes at once. */
static uint32_t abort_ccb(fx *f, rig_ccb *victim)
{
    rig_ccb ab;
    mgmt(&ab, PCAM_FN_ABORT, 0);
    ab.ccb.u.abort.victim = &victim->ccb;
    rig_submit(&f->r, &ab);
    assert_int_equal(ab.done_count, 1);
    return ab.ccb.status;
}

/*
 * Abort a READ once it is disconnected (`window` false: the bus is free
 * again) or in the window between its DISCONNECT message and the bus free
 * (`window` true: ATN while the target is still connected). Either way the
 * target gets ABORT TASK for that tag and drops the task, the READ
 * completes PCAM_REQ_ABORTED once, and a READ beside it on the LUN
 * completes with its data.
 */
static void abort_one(fx *f, bool window)
{
    static uint8_t bc[8 * 512], bd[8 * 512];
    rig_ccb cc, d;
    pcam_counters c0 = ctr(f, 0);
    pcam_sim_target_stats s0 = tstats(f, 0);

    fx_mark(f);
    /* The window exists only on a chip that reports the DISCONNECT byte
     * itself; one that chains (pcam_hal.h) accepts it and the bus goes free. */
    bool chained = pcam_sim_set_chain(f->r.sim, false);
    (void)pcam_sim_set_chain(f->r.sim, chained && !window);
    read10(&cc, 0, 300, 8, bc, NULL, 0);
    read10(&d, 0, 400, 8, bd, NULL, 0);
    rig_submit(&f->r, &cc);
    rig_submit(&f->r, &d);
    if (window) {
        run_until_disconnects(f, 0, 1); /* stops on the DISCONNECT byte */
    } else {
        run_until_disconnects(f, 0, 2);
        /* 100 us: the bus goes free, the mechanism (milliseconds) is not done. */
        run_to(f, pcam_sim_now(f->r.sim) + 100000);
    }
    assert_int_equal(cc.done_count, 0);
    assert_int_equal(abort_ccb(f, &cc), PCAM_REQ_CMP);
    rig_ccb *v[] = {&cc, &d};
    assert_true(run_all(f, v, 2, RIG_S(5)));
    idle(f, RIG_S(1));
    assert_int_equal(cc.done_count, 1);
    assert_int_equal(d.done_count, 1);
    assert_int_equal(cc.ccb.status, PCAM_REQ_ABORTED);
    assert_int_equal(d.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 400, bd, sizeof bd));

    const pcam_event *e = ev_first(f, PCAM_EV_ABORT_SENT);
    assert_non_null(e);
    assert_int_equal(ev_count(f, PCAM_EV_ABORT_SENT), 1);
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT) + ev_count(f, PCAM_EV_BUS_RESET), 0);
    assert_int_equal(msgs_out(f, 0, PCAM_MSG_ABORT_TASK), 1);
    assert_int_equal(tstats(f, 0).aborted_tasks - s0.aborted_tasks, 1);
    assert_int_equal(pcam_sim_task_count(f->r.sim, 0, 0), 0);
    /* The tag the event names is the one of the task the target dropped,
     * and the ABORT TASK went in a selection of its own only when the
     * READ was disconnected. */
    pcam_sim_trace_entry te;
    unsigned dropped = 0, selections_before_abort = 0, sel = 0;
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &te); i++) {
        if (te.kind == PCAM_SIM_TR_SELECTION && te.target == 0)
            sel++;
        if (te.kind == PCAM_SIM_TR_MSG_OUT && te.byte == PCAM_MSG_ABORT_TASK)
            selections_before_abort = sel;
        if (te.kind == PCAM_SIM_TR_TASK && te.value == PCAM_SIM_TN_ABORTED) {
            assert_int_equal(te.byte, e->arg);
            dropped++;
        }
    }
    assert_int_equal(dropped, 1);
    assert_int_equal(selections_before_abort, window ? 1 : 3);
    (void)pcam_sim_set_chain(f->r.sim, chained);

    pcam_counters d0 = ctr(f, 0);
    assert_int_equal(d0.aborts - c0.aborts, 1);
    assert_int_equal(d0.resets - c0.resets, 0);
    assert_int_equal(d0.retries - c0.retries, 0);
    assert_int_equal(d0.requeues - c0.requeues, 0);

    /* Finished: the abort is refused and nothing completes twice. */
    assert_int_equal(abort_ccb(f, &cc), PCAM_REQ_INVALID);
    idle(f, RIG_S(1));
    assert_int_equal(cc.done_count, 1);
}

/*
 * PCAM_FN_ABORT of a pending CCB (an untagged READ waiting behind another
 * untagged one: it never reaches the target), of a disconnected one, of
 * one caught between DISCONNECT and bus free, and of finished ones.
 */
static void user_abort(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ALWAYS);
    static uint8_t ba[8 * 512], bb[8 * 512];
    rig_ccb a, b;
    pcam_sim_target_stats s0 = tstats(f, 0);

    read10(&a, 0, 100, 8, ba, NULL, 0);
    read10(&b, 0, 200, 8, bb, NULL, 0);
    a.ccb.flags = b.ccb.flags = 0; /* untagged: b waits for a to finish */
    pcam_counters c0 = ctr(f, 0);
    rig_submit(&f->r, &a);
    rig_submit(&f->r, &b);
    assert_int_equal(abort_ccb(f, &b), PCAM_REQ_CMP);
    assert_int_equal(b.done_count, 1);
    assert_int_equal(b.ccb.status, PCAM_REQ_ABORTED);
    /* b ended, though never issued: one command, one error */
    assert_int_equal(ctr(f, 0).commands - c0.commands, 1);
    assert_int_equal(ctr(f, 0).errors - c0.errors, 1);
    rig_ccb *v1[] = {&a};
    assert_true(run_all(f, v1, 1, RIG_S(5)));
    assert_int_equal(a.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 100, ba, sizeof ba));
    assert_int_equal(cdbs_seen(f, 0, 0x28), 1); /* b never went out */
    assert_int_equal(tstats(f, 0).commands - s0.commands, 1);
    assert_int_equal(tstats(f, 0).aborted_tasks, s0.aborted_tasks);
    assert_int_equal(abort_ccb(f, &b), PCAM_REQ_INVALID);

    abort_one(f, false);
    abort_one(f, true);
    idle(f, RIG_S(1));
    assert_int_equal(a.done_count, 1);
    assert_int_equal(b.done_count, 1);
    fx_free(f);
}

BOTH_MODES(timeout_disconnected)
BOTH_MODES(timeout_holding_bus)
BOTH_MODES(unknown_tag)
BOTH_MODES(user_bdr)
BOTH_MODES(user_lun_reset)
BOTH_MODES(user_reset_bus)
BOTH_MODES(user_abort)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_TESTS(timeout_disconnected),
        BOTH_TESTS(timeout_holding_bus),
        BOTH_TESTS(unknown_tag),
        BOTH_TESTS(user_bdr),
        BOTH_TESTS(user_lun_reset),
        BOTH_TESTS(user_reset_bus),
        BOTH_TESTS(user_abort),
    };
    if (getenv("PCAM_RECOV_FILTER") != NULL) /* run one case while diagnosing */
        cmocka_set_test_filter(getenv("PCAM_RECOV_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
