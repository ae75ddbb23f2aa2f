/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-bus aging on the minimal core (cmake/configs/pcam_minimal.h), whose
 * storage has 8 target IDs. The hold pass walks the targets in arbitration
 * order; it once walked ranks 0-7 only, which are IDs 8-15, so a narrow
 * build never held anyone back. Worked by hand as test_sched_bus.c does
 * (bus_starve_ms 500: owed past 250 ms; slack tag_depth / 8 + 1 = 5; the
 * first call looks at once, the next look is due 31.25 ms later):
 *   t=0    X0 and P0 for target 0 (depth 1); X0 issued: the look finds one
 *          busy target and wipes the counts; 0 has 1. Then 7 commands to
 *          target 1, each issued and retired at once: 1 has 7.
 *   t=300  a1 (target 1) and a2 (target 2) submitted. Look: X0 is 300 ms
 *          old, target 0 is owed; the others are raised to its count, 1,
 *          so 1 keeps 7 > 1 + 5 and, beating 0 in arbitration, is held;
 *          2 (raised to 1) is not. a2 goes, then nothing: a1 waits.
 * And the log lines of a build without their texts (PCAM_CFG_LOG_TEXT 0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../core/queue/queue.h"

#define NT 8 /* narrow: the minimal storage */

typedef struct fx {
    pcam_bus bus;
    pcam_lun luns[NT];
    pcam_ccb ccb[16];
} fx;

static uint64_t clock_ns;

static uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return clock_ns;
}

static pcam_ccb *sub(fx *f, unsigned i, uint8_t t)
{
    pcam_ccb *c = &f->ccb[i];
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    c->target = t;
    c->flags = PCAM_CCB_TAGGED;
    c->u.io.tag_action = PCAM_TAG_SIMPLE;
    pcam_q_submit(&f->bus, pcam_core_lun(&f->bus, t, 0), c);
    return c;
}

static void narrow_bus_holds_a_target_ahead_of_an_owed_one(void **state)
{
    (void)state;
    static fx fxs;
    fx *f = &fxs;
    memset(f, 0, sizeof *f);
    assert_int_equal(PCAM_MAX_TARGETS, 8);
    pcam_bus_config *c = &f->bus.cfg;
    c->luns_per_target = 1;
    c->default_timeout_ms = 10000;
    c->tag_depth = 32;
    c->tag_depth_max = 31; /* below the minimal build's 32 tags */
    c->tag_depth_floor = 2;
    c->qfull_ramp_successes = 128;
    c->age_count = 64;
    c->age_ms = 1000;
    c->bus_starve_ms = 500;
    c->aging_enabled = true;
    f->bus.caps.max_targets = NT;
    f->bus.caps.initiator_id = 7;
    f->bus.plat.now_ns = fake_now;
    f->bus.luns = f->luns;
    f->bus.nluns = NT;
    for (unsigned i = 0; i < NT; i++) {
        pcam_q_lun_init(&f->bus, &f->luns[i]);
        f->luns[i].dev.flags = PCAM_LUNF_PRESENT | PCAM_LUNF_TAGGED;
    }
    pcam_core_lun(&f->bus, 0, 0)->q.depth = 1;

    clock_ns = 0;
    pcam_ccb *x0 = sub(f, 0, 0);
    (void)sub(f, 1, 0);
    assert_ptr_equal(pcam_q_next(&f->bus, clock_ns), x0);
    for (unsigned i = 0; i < 7; i++) {
        pcam_ccb *b = sub(f, 2 + i, 1);
        assert_ptr_equal(pcam_q_next(&f->bus, clock_ns), b);
        pcam_q_retire(&f->bus, b, true);
    }
    assert_int_equal(f->bus.q.issued[1], 7);

    clock_ns = PCAM_MS(300);
    pcam_ccb *a1 = sub(f, 10, 1);
    pcam_ccb *a2 = sub(f, 11, 2);
    assert_ptr_equal(pcam_q_next(&f->bus, clock_ns), a2);
    assert_int_equal(f->bus.q.owed, 0x01);
    assert_int_equal(f->bus.q.throttled, 0x02);
    assert_null(pcam_q_next(&f->bus, clock_ns));
    assert_int_equal(a1->priv.state, PCAM_CS_PENDING);
}

/* PCAM_CFG_LOG_TEXT 0: the line comes, without the core's text. */
static char logged[200];
static void take_log(void *ctx, pcam_log_level level, const char *line)
{
    (void)ctx;
    (void)level;
    strncpy(logged, line, sizeof logged - 1);
}

static void log_lines_without_their_texts(void **state)
{
    (void)state;
    static pcam_bus bus;
    memset(&bus, 0, sizeof bus);
    bus.plat.log = take_log;
    pcam_core_log(&bus, PCAM_LOG_WARN, "this text is not built in", "DATA IN");
    assert_string_equal(logged, "pcam: event (message texts not built in): DATA IN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(narrow_bus_holds_a_target_ahead_of_an_owed_one),
        cmocka_unit_test(log_lines_without_their_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
