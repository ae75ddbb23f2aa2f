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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checker_flags_orphans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
