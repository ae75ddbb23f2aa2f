/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 7 (recovery), part 3: the upper rungs of the timeout ladder
 * ABORT TASK -> BUS DEVICE RESET -> bus reset -> chip reset, each rung
 * reached because the one below it failed:
 *  - a target deaf to aborts (refuse_abort): ABORT TASK is answered with
 *    MESSAGE REJECT, so after abort_timeout_ms the core sends BUS DEVICE
 *    RESET, which the target takes;
 *  - a target deaf to aborts and device resets (refuse_reset too): the BUS
 *    DEVICE RESET is refused as well, so after another abort_timeout_ms the
 *    core resets the bus;
 *  - the same with a chip whose bus reset never completes
 *    (pcam_sim_chip_stall_bus_reset): after a third abort_timeout_ms the
 *    core resets the chip, then the bus.
 * Each case checks the order of the rungs in the event ring, that exactly
 * the timed-out command fails (CMD_TIMEOUT) while the bystanders the resets
 * took down (a hung command with a long timeout on the deaf target, and one
 * on another target for the bus reset) are requeued without spending a
 * retry and complete with the right data, that every CCB completes exactly
 * once, and that data verifies after recovery. Each runs with interrupts
 * and polled (scenario 8).
 *
 * Also (brief item 3): after the bus reset, the core renegotiates on the
 * first command and not again on that command's UNIT ATTENTION 29/00: the
 * target sees one WDTR and one SDTR (2 negotiation messages), not 4.
 *
 * Expectations: SPI-3 message codes (ABORT TASK 0Dh, TARGET RESET 0Ch,
 * MESSAGE REJECT 07h); SPC-3 UNIT ATTENTION 29/00 after a bus reset and
 * 29/03 after TARGET RESET (requeued without a retry, as the core did
 * those resets itself: test_core_recovery2.c documents it); the defaults abort_timeout_ms = 2000 ms; the media pattern
 * simrig_add_disk writes (byte i of target t, LUN l is i * 7 + t * 13 + l).
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

/* Position of the first event `code` with argument `arg` (any if
 * arg == UINT32_MAX) at or after position `from`, or -1. */
static int ev_at(fx *f, uint16_t code, uint32_t arg, int from)
{
    fx_read_events(f);
    for (size_t i = from < 0 ? 0u : (size_t)from; i < f->nev; i++)
        if (f->ev[i].code == code && (arg == UINT32_MAX || f->ev[i].arg == arg))
            return (int)i;
    return -1;
}

enum rung { TO_BDR, TO_BUS_RESET, TO_CHIP_RESET };

/*
 * Target 0 is deaf to aborts (and, from TO_BUS_RESET up, to device resets).
 * On it: V, a READ that hangs with a 500 ms timeout (the victim), and B0, a
 * READ that hangs with a 60 s timeout (a bystander). On target 1: B1, a
 * READ that hangs with a 60 s timeout (a bystander only a bus reset takes
 * down; with TO_BDR a plain READ the BUS DEVICE RESET must not touch). Both targets disconnect always, so all three are disconnected
 * when V times out.
 *   t = 0.5 s  V times out: ABORT TASK, refused (MESSAGE REJECT 0Dh).
 *   t = 2.5 s  BUS DEVICE RESET: taken (TO_BDR), or refused (MESSAGE REJECT
 *              0Ch), then
 *   t = 4.5 s  bus reset: done, or swallowed by the wedged chip, then
 *   t = 6.5 s  chip reset and bus reset.
 * The reset takes V and B0 (and B1 with a bus reset) off the targets: V
 * completes with CMD_TIMEOUT, the bystanders are requeued, go out again
 * (hang_next is spent by then), meet the reset's UNIT ATTENTION once per
 * target (one retry) and complete with the data.
 */
static void climb(bool polled, enum rung want)
{
    fx *f = fx_new(polled, NULL, 2, PCAM_SIM_DISC_ALWAYS);
    static uint8_t bv[4 * 512], b0[8 * 512], b1[8 * 512];
    rig_ccb victim, by0, by1;
    rig_ccb *v[] = {&victim, &by0, &by1};
    pcam_counters c0 = ctr(f, 0), c1 = ctr(f, 1);
    pcam_sim_target_stats s0 = tstats(f, 0), s1 = tstats(f, 1);
    pcam_sim_target_config *t0 = pcam_sim_target_cfg(f->r.sim, 0);

    t0->refuse_abort = true;
    t0->refuse_reset = want != TO_BDR;
    t0->hang_next = 2;
    if (want != TO_BDR)
        pcam_sim_target_cfg(f->r.sim, 1)->hang_next = 1;
    if (want == TO_CHIP_RESET)
        pcam_sim_chip_stall_bus_reset(f->r.sim, 1);

    read10(&victim, 0, 10, 4, bv, NULL, 0);
    victim.ccb.timeout_ms = 500;
    read10(&by0, 0, 200, 8, b0, NULL, 0);
    read10(&by1, 1, 300, 8, b1, NULL, 0);
    by0.ccb.timeout_ms = by1.ccb.timeout_ms = 60000;
    by0.ccb.u.io.retries = by1.ccb.u.io.retries = 1; /* the UNIT ATTENTION's */
    uint64_t t_start = pcam_sim_now(f->r.sim);
    for (unsigned i = 0; i < 3; i++)
        rig_submit(&f->r, v[i]);
    assert_true(run_all(f, v, 3, RIG_S(20)));
    uint64_t took = pcam_sim_now(f->r.sim) - t_start;
    idle(f, RIG_S(1));

    /* Exactly once each; the victim failed, the bystanders did not. */
    assert_int_equal(victim.done_count, 1);
    assert_int_equal(victim.ccb.status, PCAM_CMD_TIMEOUT);
    assert_int_equal(by0.done_count, 1);
    assert_int_equal(by0.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 200, b0, sizeof b0));
    assert_int_equal(by1.done_count, 1);
    assert_int_equal(by1.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(1, 0, 300, b1, sizeof b1));
    /* Each rung waits abort_timeout_ms (2 s) for the one below; a bus
     * reset is followed by reset_settle_ms (2 s: the bystanders' 60 s
     * timeouts do not cap it). */
    uint64_t rungs = want == TO_BDR ? 1 : want == TO_BUS_RESET ? 2 : 3;
    uint64_t expect = RIG_MS(500) + rungs * RIG_MS(2000) + (want == TO_BDR ? 0 : RIG_MS(2000));
    assert_true(took >= expect);
    assert_true(took < expect + RIG_MS(500));

    /* The ring: the timeout, ABORT TASK refused, then the next rungs in order. */
    int it = ev_at(f, PCAM_EV_TIMEOUT, UINT32_MAX, 0);
    int ia = ev_at(f, PCAM_EV_MSG_REJECT, PCAM_MSG_ABORT_TASK, it);
    assert_true(it >= 0 && f->ev[it].target == 0);
    assert_ptr_equal(ev_first(f, PCAM_EV_TIMEOUT), &f->ev[it]); /* only V timed out */
    assert_int_equal(ev_count(f, PCAM_EV_TIMEOUT), 1);
    assert_true(ia > it && f->ev[ia].target == 0);
    assert_int_equal(ev_count(f, PCAM_EV_ABORT_SENT), 0); /* it never took */
    if (want == TO_BDR) {
        int ib = ev_at(f, PCAM_EV_BDR_SENT, UINT32_MAX, ia);
        assert_true(ib > ia && f->ev[ib].target == 0);
        assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 0);
        assert_int_equal(ev_count(f, PCAM_EV_CHIP_RESET), 0);
    } else {
        int ir = ev_at(f, PCAM_EV_MSG_REJECT, PCAM_MSG_TARGET_RESET, ia);
        assert_true(ir > ia && f->ev[ir].target == 0);
        assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0); /* refused, so never "sent" */
        int ic = ev_at(f, PCAM_EV_CHIP_RESET, UINT32_MAX, ir);
        int ie = ev_at(f, PCAM_EV_BUS_RESET, UINT32_MAX, ir);
        assert_true(ie > ir);
        assert_int_equal(f->ev[ie].arg, 1); /* ours */
        if (want == TO_CHIP_RESET) {
            assert_true(ic > ir && ic < ie);
            assert_int_equal(ev_count(f, PCAM_EV_CHIP_RESET), 1);
        } else {
            assert_int_equal(ic, -1);
        }
        assert_int_equal(ev_count(f, PCAM_EV_BUS_RESET), 1);
    }

    /* The wire: one ABORT TASK and one TARGET RESET went to target 0. */
    assert_int_equal(msgs_out(f, 0, PCAM_MSG_ABORT_TASK), 1);
    assert_int_equal(msgs_out(f, 0, PCAM_MSG_TARGET_RESET), 1);
    pcam_sim_target_stats d0s = tstats(f, 0), d1s = tstats(f, 1);
    assert_int_equal(d0s.refused - s0.refused, want == TO_BDR ? 1 : 2);
    assert_int_equal(d0s.target_resets - s0.target_resets, want == TO_BDR ? 1 : 0);
    pcam_sim_bus_stats bs;
    pcam_sim_bus_stats_get(f->r.sim, &bs);
    assert_int_equal(pcam_sim_task_count(f->r.sim, 0, 0), 0);

    /* Counters: one timeout; the bystanders requeued, not retried for the
     * reset; the reset's UNIT ATTENTION is requeued without a retry on
     * each target it hit (the core did that reset itself: issue 16). */
    pcam_counters d0 = ctr(f, 0), d1 = ctr(f, 1);
    assert_int_equal(d0.timeouts - c0.timeouts, 1);
    assert_int_equal(d0.aborts - c0.aborts, 0);
    assert_int_equal(d0.errors - c0.errors, 1);
    assert_int_equal(d0.retries - c0.retries, 0);
    assert_true(d0.requeues - c0.requeues >= 1 + 1); /* B0 by the reset, then its UA requeue */
    if (want != TO_BDR) {
        assert_int_equal(d1.retries - c1.retries, 0);
        assert_true(d1.requeues - c1.requeues >= 2);
        assert_int_equal(d1.errors - c1.errors, 0);
        /* Item 3: one renegotiation after the bus reset (WDTR + SDTR; PPR
         * stays off the ladder learnt at the scan), not a second one for
         * the UNIT ATTENTION 29/00 that reports the same reset. */
        assert_int_equal(d1s.nego_received - s1.nego_received, 2);
    } else {
        /* A BUS DEVICE RESET to target 0 leaves target 1 alone. */
        assert_int_equal(d1.requeues - c1.requeues, 0);
        assert_int_equal(d1.retries - c1.retries, 0);
        assert_int_equal(d1s.aborted_tasks - s1.aborted_tasks, 0);
    }

    /* After recovery, both targets read right at their agreement. */
    for (uint8_t t = 0; t < 2; t++) {
        uint8_t buf[16 * 512];
        rig_ccb rc;
        read10(&rc, t, 500, 16, buf, NULL, 0);
        assert_int_equal(sync1(f, &rc), PCAM_REQ_CMP);
        assert_true(media_ok(t, 0, 500, buf, sizeof buf));
    }
    idle(f, RIG_S(1));
    assert_int_equal(victim.done_count, 1);
    assert_int_equal(by0.done_count, 1);
    assert_int_equal(by1.done_count, 1);
    fx_free(f);
}

static void deaf_to_abort(bool polled)
{
    climb(polled, TO_BDR);
}
static void deaf_to_abort_and_reset(bool polled)
{
    climb(polled, TO_BUS_RESET);
}
static void deaf_target_wedged_chip(bool polled)
{
    climb(polled, TO_CHIP_RESET);
}

/*
 * A caller's BUS DEVICE RESET (PCAM_FN_RESET_DEV) that the deaf target
 * refuses completes with MSG_REJECT_REC, exactly once, and leaves the
 * target's tasks (and the core's view of them) alone: a READ disconnected
 * there completes afterwards with its data.
 */
static void caller_reset_refused(bool polled)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_ALWAYS);
    static uint8_t b[8 * 512];
    rig_ccb rd, rst;
    pcam_sim_target_cfg(f->r.sim, 0)->refuse_reset = true;
    read10(&rd, 0, 40, 8, b, NULL, 0);
    rig_submit(&f->r, &rd);
    memset(&rst, 0, sizeof rst);
    rst.ccb.func = PCAM_FN_RESET_DEV;
    rst.ccb.target = 0;
    rig_ccb *v[] = {&rd, &rst};
    rig_submit(&f->r, &rst);
    assert_true(run_all(f, v, 2, RIG_S(5)));
    idle(f, RIG_S(1));
    assert_int_equal(rst.done_count, 1);
    assert_int_equal(rst.ccb.status, PCAM_MSG_REJECT_REC);
    assert_int_equal(rd.done_count, 1);
    assert_int_equal(rd.ccb.status, PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 40, b, sizeof b));
    assert_int_equal(tstats(f, 0).target_resets, 0);
    assert_int_equal(tstats(f, 0).refused, 1);
    assert_int_equal(ev_count(f, PCAM_EV_BDR_SENT), 0);
    assert_int_equal(cdbs_seen(f, 0, 0x28), 1); /* the READ was kept, not sent again */
    fx_free(f);
}

BOTH_MODES(deaf_to_abort)
BOTH_MODES(deaf_to_abort_and_reset)
BOTH_MODES(deaf_target_wedged_chip)
BOTH_MODES(caller_reset_refused)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_TESTS(deaf_to_abort),
        BOTH_TESTS(deaf_to_abort_and_reset),
        BOTH_TESTS(deaf_target_wedged_chip),
        BOTH_TESTS(caller_reset_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
