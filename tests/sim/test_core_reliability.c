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
#include "pcam_core.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checker_flags_orphans),
        cmocka_unit_test(zero_byte_transfers_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
