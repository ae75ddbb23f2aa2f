/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture the two scheduler test files share: a zeroed wide bus with a
 * fake clock and CCBs submitted straight to the queues. Included by
 * test_sched.c and test_sched_bus.c only.
 */
#ifndef PCAM_SCHED_FIXTURE_H
#define PCAM_SCHED_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../core/queue/queue.h"

#define NT 16  /* wide bus, initiator at 7 */
#define LPT 2
#define NCCB 96

typedef struct fx {
    pcam_bus bus;
    pcam_lun luns[NT * LPT];
    pcam_ccb ccb[NCCB];
} fx;

static uint64_t clock_ns;
static uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return clock_ns;
}

static void at_ms(uint64_t ms)
{
    clock_ns = PCAM_MS(ms);
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    clock_ns = 0;
    pcam_bus_config *c = &f->bus.cfg;
    /* pcam.h's documented defaults, by hand. */
    c->luns_per_target = LPT;
    c->default_timeout_ms = 10000;
    c->tag_depth = 32;
    c->tag_depth_max = 64;
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
    f->bus.nluns = NT * LPT;
    for (unsigned i = 0; i < NT * LPT; i++) {
        pcam_q_lun_init(&f->bus, &f->luns[i]);
        f->luns[i].dev.flags = PCAM_LUNF_PRESENT | PCAM_LUNF_TAGGED;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void ok(const fx *f)
{
    const char *e = pcam_q_check(&f->bus, NULL);
    if (e != NULL)
        fail_msg("invariant: %s", e);
}

static pcam_ccb *sub(fx *f, unsigned i, uint8_t t, uint8_t l, uint8_t action)
{
    pcam_ccb *c = &f->ccb[i];
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    c->target = t;
    c->lun = l;
    if (action != 0) {
        c->flags = PCAM_CCB_TAGGED;
        c->u.io.tag_action = action;
    }
    pcam_q_submit(&f->bus, pcam_core_lun(&f->bus, t, l), c);
    ok(f);
    return c;
}

static pcam_ccb *next(fx *f)
{
    pcam_ccb *c = pcam_q_next(&f->bus, clock_ns);
    ok(f);
    return c;
}

static void retire(fx *f, pcam_ccb *c)
{
    pcam_q_retire(&f->bus, c, true);
    ok(f);
}

static unsigned events(fx *f, pcam_event *ev, unsigned max)
{
    return (unsigned)pcam_bus_read_events(&f->bus, ev, max);
}

#endif /* PCAM_SCHED_FIXTURE_H */
