/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A data overrun (the target wants to send more than the buffer holds) ends
 * as PCAM_DATA_RUN_ERR with the residual of what really moved, whether the
 * target takes the ABORT TASK the core sends to stop it or ignores it and
 * completes the command (QEMU's AM53C974 model does the latter; the UEFI
 * driver's boot test found the core reporting that case as REQ_ABORTED,
 * the status a caller's own abort gets).
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
#include "recov_fixture.h"

/* READ(10) of 2 blocks into a 1-block buffer, LBA 40. */
static void overrun(bool polled, bool deaf)
{
    fx *f = fx_new(polled, NULL, 1, PCAM_SIM_DISC_NEVER);
    static uint8_t buf[2 * 512];
    rig_ccb c, next;
    pcam_sim_target_config *tc = pcam_sim_target_cfg(f->r.sim, 0);
    tc->refuse_abort = deaf;

    unsigned reads_before = cdbs_seen(f, 0, 0x28);
    pcam_counters before = ctr(f, 0);
    read10(&c, 0, 40, 2, buf, NULL, 0);
    c.ccb.u.io.data_len = 512; /* the buffer ends after one block */
    c.ccb.u.io.retries = 0;
    assert_int_equal(sync1(f, &c), PCAM_DATA_RUN_ERR);
    assert_int_equal(c.done_count, 1);
    /* The block that fitted moved and is the medium's; nothing past it. */
    assert_int_equal(c.ccb.u.io.resid, 0);
    assert_true(media_ok(0, 0, 40, buf, 512));
    assert_int_equal(buf[512], 0xEE);
    /* Sent once: an overrun is the caller's mistake, never retried. */
    assert_int_equal(cdbs_seen(f, 0, 0x28), reads_before + 1);
    assert_int_equal(ctr(f, 0).errors, before.errors + 1);
    if (deaf)
        assert_true(tstats(f, 0).refused >= 1); /* it really ignored the abort */
    /* The bus and the target go on. */
    read10(&next, 0, 41, 1, buf, NULL, 0);
    assert_int_equal(sync1(f, &next), PCAM_REQ_CMP);
    assert_true(media_ok(0, 0, 41, buf, 512));
    idle(f, RIG_S(1));
    assert_int_equal(c.done_count, 1);
    fx_free(f);
}

/* The fixture's event helpers are for the other scenarios. */
static void (*const unused_helpers[])(void) = {(void (*)(void))ev_count, (void (*)(void))ev_first};

static void overrun_abort_taken(bool polled) { overrun(polled, false); }
static void overrun_abort_refused(bool polled) { overrun(polled, true); }
BOTH_MODES(overrun_abort_taken)
BOTH_MODES(overrun_abort_refused)

int main(void)
{
    (void)unused_helpers;
    const struct CMUnitTest tests[] = {
        BOTH_TESTS(overrun_abort_taken),
        BOTH_TESTS(overrun_abort_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
