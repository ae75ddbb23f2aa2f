/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Recovery defects of issue 16, one case each, on the simulated bus:
 *  - the invariant checker flags an orphan: an active command that is not
 *    on the bus, not disconnected, not waiting for its sense and not under
 *    recovery (nothing would ever finish it), and a command whose list
 *    link points somewhere while it is on neither the sense nor the abort
 *    list (the shape the abort-list truncation left behind). The states are
 *    made by hand from a real disconnected command, then put back: the
 *    checker must name them, and accept the real state.
 *  - a back-end that answers every data transfer with zero bytes and the
 *    phase unchanged (a wrapper around hal/sim's ops, polled, so nothing
 *    but the core's own bound can end it): the core gives up on the
 *    connection and resets the bus; the command spends its retry and
 *    completes (the back-end works again after the reset), or with no
 *    retries fails with SEQUENCE_FAIL, and the run stays bounded in steps.
 *  - a command's time in the core is bounded (decision: its timeout runs
 *    from each issue to the target, and its whole life from submission is
 *    at most PCAM_LIFE_TIMEOUTS = 2 timeouts, plus the recovery ladder when
 *    it is at the target then): a target BUSY for ever, with 255 retries
 *    of 100 ms each, would keep a 2 s command 25 s in the core; it now
 *    completes CMD_TIMEOUT at 4 s. A deep tagged queue on a target that
 *    holds every command past its timeout: each completes within
 *    2 timeouts + 4 abort steps of its submission.
 *  - the recovery a command went through is reported with it
 *    (pcam_scsiio::recovery, pcam_recovery_format): a hung READ on a target
 *    that takes ABORT TASK reads "ABORT TASK taken"; on a target deaf to
 *    aborts and resets "ABORT TASK refused, BUS DEVICE RESET refused, bus
 *    reset"; a command that completes normally reports none.
 * Expectations: the rule itself (DESIGN.md: every CCB completes exactly
 * once, so every active one must be somewhere the engine returns to).
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
#include "../../core/common/common.h"
#include "simrig.h"

/* Not every helper of the shared fixture is used by every case here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "recov_fixture.h"

/* Step until `rc` is active and disconnected at its target. */
static bool until_disconnected(fx *f, rig_ccb *rc)
{
    uint64_t end = pcam_sim_now(f->r.sim) + RIG_S(5);
    while (pcam_sim_now(f->r.sim) < end && simrig_step(&f->r)) {
        if (rc->ccb.priv.state == PCAM_CS_ACTIVE && (rc->ccb.priv.flags & PCAM_CF_DISCONNECTED) != 0)
            return true;
    }
    return false;
}

static void checker_flags_orphans(void **state)
{
    (void)state;
    fx *f = fx_new(false, NULL, 1, PCAM_SIM_DISC_ALWAYS);
    pcam_sim_target_cfg(f->r.sim, 0)->hang_next = 1;
    rig_ccb rc, other;
    uint8_t buf[512];
    read10(&rc, 0, 2, 1, buf, NULL, 0);
    rc.ccb.timeout_ms = 1000;
    rig_submit(&f->r, &rc);
    assert_true(until_disconnected(f, &rc));
    assert_null(pcam_bus_check_invariants(&f->r.bus));

    /* Not disconnected, not the nexus, not awaiting sense, not under recovery. */
    rc.ccb.priv.flags &= (uint8_t)~PCAM_CF_DISCONNECTED;
    const char *why = pcam_bus_check_invariants(&f->r.bus);
    assert_non_null(why);
    assert_non_null(strstr(why, "orphan"));
    rc.ccb.priv.flags |= PCAM_CF_DISCONNECTED;
    assert_null(pcam_bus_check_invariants(&f->r.bus));

    /* A list link while on no list (disconnected, so not an orphan as such). */
    memset(&other, 0, sizeof other);
    rc.ccb.priv.link2 = &other.ccb;
    why = pcam_bus_check_invariants(&f->r.bus);
    assert_non_null(why);
    assert_non_null(strstr(why, "neither the sense nor the abort list"));
    rc.ccb.priv.link2 = NULL;
    assert_null(pcam_bus_check_invariants(&f->r.bus));

    /* The real thing goes on: it times out and is aborted, once. */
    rig_ccb *v[1] = {&rc};
    assert_true(run_all(f, v, 1, RIG_S(30)));
    assert_int_equal(rc.ccb.status & PCAM_STATUS_MASK, PCAM_CMD_TIMEOUT);
    idle(f, RIG_S(1));
    assert_int_equal(rc.done_count, 1);
    fx_free(f);
}

/* ---- zero-byte transfers forever ---- */

static const pcam_hal_ops *real_ops;
static pcam_hal_ops stuck_ops;
static bool stuck;          /* data transfers move nothing */
static bool stuck_forever;  /* ... also after a bus reset */
static bool fake_pending;
static pcam_phase fake_phase;
static unsigned zero_xfers;

static int stuck_transfer(void *sc, const pcam_hal_xfer *x)
{
    if (stuck && (x->phase == PCAM_PHASE_DATA_IN || x->phase == PCAM_PHASE_DATA_OUT)) {
        fake_pending = true;
        fake_phase = x->phase;
        zero_xfers++;
        return PCAM_OK;
    }
    return real_ops->transfer(sc, x);
}

static int stuck_poll(void *sc, pcam_hal_event *ev)
{
    if (fake_pending) {
        fake_pending = false;
        memset(ev, 0, sizeof *ev);
        ev->type = PCAM_HAL_EV_XFER_DONE;
        ev->phase = fake_phase;
        ev->count = 0;
        return 1;
    }
    return real_ops->poll(sc, ev);
}

static int stuck_reset_bus(void *sc)
{
    stuck = stuck_forever;
    fake_pending = false;
    return real_ops->reset_bus(sc);
}

static uint32_t run_stuck(bool forever, uint8_t retries, uint64_t *steps_out)
{
    fx *f = fx_new(true, NULL, 1, PCAM_SIM_DISC_NEVER);
    real_ops = f->r.bus.hal.ops;
    stuck_ops = *real_ops;
    stuck_ops.transfer = stuck_transfer;
    stuck_ops.poll = stuck_poll;
    stuck_ops.reset_bus = stuck_reset_bus;
    f->r.bus.hal.ops = &stuck_ops;
    stuck = true;
    stuck_forever = forever;
    zero_xfers = 0;
    rig_ccb rc;
    uint8_t buf[512];
    read10(&rc, 0, 3, 1, buf, NULL, 0);
    rc.ccb.u.io.retries = retries;
    rig_submit(&f->r, &rc);
    uint64_t steps = 0;
    while (rc.done_count == 0 && steps < 200000 && simrig_step(&f->r))
        steps++;
    *steps_out = steps;
    assert_int_equal(rc.done_count, 1);
    uint32_t st = rc.ccb.status & PCAM_STATUS_MASK;
    if (st == PCAM_REQ_CMP)
        assert_true(media_ok(0, 0, 3, buf, 512));
    assert_true(ev_count(f, PCAM_EV_BAD_PHASE) >= 1);
    stuck = false;
    f->r.bus.hal.ops = real_ops; /* the rig shuts the bus down through it */
    fx_free(f);
    return st;
}

static void zero_byte_transfers_bounded(void **state)
{
    (void)state;
    uint64_t steps;
    /* Retry after the reset: the back-end moves data again. */
    assert_int_equal(run_stuck(false, 1, &steps), PCAM_REQ_CMP);
    assert_true(zero_xfers >= 2 && zero_xfers <= 64);
    /* Stuck for good, no retries: a defined failure, in bounded work. */
    assert_int_equal(run_stuck(true, 0, &steps), PCAM_SEQUENCE_FAIL);
    assert_true(zero_xfers <= 64);
    assert_true(steps < 200000);
}

/* ---- a command's life in the core is bounded ---- */

static pcam_sim *clock_sim; /* the bus whose time completions are stamped with */
static void stamp(rig_ccb *rc)
{
    rc->done_ns = pcam_sim_now(clock_sim);
}

static void busy_forever_bounded(void **state)
{
    (void)state;
    fx *f = fx_new(false, NULL, 1, PCAM_SIM_DISC_ON_SEEK);
    pcam_sim_target_cfg(f->r.sim, 0)->busy_next = 100000;
    rig_ccb rc;
    uint8_t buf[512];
    read10(&rc, 0, 4, 1, buf, NULL, 0);
    rc.ccb.u.io.retries = 255;
    rc.ccb.timeout_ms = 2000;
    clock_sim = f->r.sim;
    rc.on_done = stamp;
    rig_ccb *v[1] = {&rc};
    uint64_t t0 = pcam_sim_now(f->r.sim);
    rig_submit(&f->r, &rc);
    assert_true(run_all(f, v, 1, RIG_S(60)));
    uint64_t took = rc.done_ns - t0;
    fprintf(stderr, "BUSY for ever: completed %s after %.3f s\n", pcam_status_name(rc.ccb.status),
            (double)took / 1e9);
    assert_int_equal(rc.ccb.status & PCAM_STATUS_MASK, PCAM_CMD_TIMEOUT);
    assert_true(took <= RIG_MS(2 * 2000 + 100));
    pcam_sim_target_cfg(f->r.sim, 0)->busy_next = 0;
    idle(f, RIG_S(1));
    assert_int_equal(rc.done_count, 1);
    fx_free(f);
}

#define DEEP 48
static void deep_queue_hung_bounded(void **state)
{
    (void)state;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.aging_enabled = false;
    fx *f = fx_new(false, &bc, 2, PCAM_SIM_DISC_ALWAYS);
    static rig_ccb rc[2][DEEP];
    static uint8_t buf[2][DEEP][512];
    rig_ccb *v[2 * DEEP];
    /* Target 0 takes every command and never finishes one (until the
     * resets recovery sends); target 1 works, keeping the bus busy. */
    pcam_sim_target_cfg(f->r.sim, 0)->hang_next = 100000;
    uint32_t to = 3000;
    clock_sim = f->r.sim;
    for (unsigned d = 0; d < 2; d++)
        for (unsigned i = 0; i < DEEP; i++) {
            read10(&rc[d][i], (uint8_t)d, 8 * i, 1, buf[d][i], NULL, 0);
            rc[d][i].ccb.timeout_ms = to;
            rc[d][i].ccb.u.io.retries = 2;
            rc[d][i].on_done = stamp;
            v[d * DEEP + i] = &rc[d][i];
            rig_submit(&f->r, &rc[d][i]);
        }
    assert_true(run_all(f, v, 2 * DEEP, RIG_S(600)));
    uint64_t worst = 0;
    for (unsigned d = 0; d < 2; d++)
        for (unsigned i = 0; i < DEEP; i++) {
            uint64_t took = rc[d][i].done_ns - rc[d][i].submit_ns;
            worst = took > worst ? took : worst;
            assert_int_equal(rc[d][i].done_count, 1);
            if (d == 1)
                assert_int_equal(rc[d][i].ccb.status, PCAM_REQ_CMP);
        }
    fprintf(stderr, "deep hung queue: worst completion %.3f s after submission (timeout %.1f s)\n",
            (double)worst / 1e9, to / 1e3);
    assert_true(worst <= RIG_MS(2 * to + 4 * bc.abort_timeout_ms + 500));
    pcam_sim_target_cfg(f->r.sim, 0)->hang_next = 0;
    fx_free(f);
}

/* ---- the recovery that ran, reported with the command ---- */

static void recovery_reported(void **state)
{
    (void)state;
    char text[160];
    for (int deaf = 0; deaf < 2; deaf++) {
        fx *f = fx_new(false, NULL, 1, PCAM_SIM_DISC_ALWAYS);
        pcam_sim_target_config *tc = pcam_sim_target_cfg(f->r.sim, 0);
        tc->hang_next = 1;
        tc->refuse_abort = deaf != 0;
        tc->refuse_reset = deaf != 0;
        rig_ccb rc, ok;
        uint8_t buf[512], buf2[512];
        read10(&rc, 0, 5, 1, buf, NULL, 0);
        rc.ccb.timeout_ms = 1000;
        rig_ccb *v[1] = {&rc};
        rig_submit(&f->r, &rc);
        assert_true(run_all(f, v, 1, RIG_S(30)));
        assert_int_equal(rc.ccb.status & PCAM_STATUS_MASK, PCAM_CMD_TIMEOUT);
        assert_true(pcam_recovery_format(rc.ccb.u.io.recovery, text, sizeof text) > 0);
        fprintf(stderr, "%s target: CMD_TIMEOUT after %s\n", deaf ? "deaf" : "ordinary", text);
        if (deaf) {
            assert_int_equal(rc.ccb.u.io.recovery,
                             PCAM_RCV_ABORT | PCAM_RCV_ABORT_REFUSED | PCAM_RCV_DEV_RESET |
                                 PCAM_RCV_DEV_RESET_REFUSED | PCAM_RCV_BUS_RESET);
            assert_string_equal(text, "ABORT TASK refused, BUS DEVICE RESET refused, bus reset");
        } else {
            assert_int_equal(rc.ccb.u.io.recovery, PCAM_RCV_ABORT | PCAM_RCV_ABORT_OK);
            assert_string_equal(text, "ABORT TASK taken");
        }
        tc->refuse_abort = tc->refuse_reset = false;
        read10(&ok, 0, 6, 1, buf2, NULL, 0);
        assert_int_equal(sync1(f, &ok), PCAM_REQ_CMP);
        assert_int_equal(ok.ccb.u.io.recovery, 0);
        assert_int_equal(pcam_recovery_format(0, text, sizeof text), 0);
        assert_string_equal(text, "none");
        fx_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checker_flags_orphans),
        cmocka_unit_test(zero_byte_transfers_bounded),
        cmocka_unit_test(busy_forever_bounded),
        cmocka_unit_test(deep_queue_hung_bounded),
        cmocka_unit_test(recovery_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
