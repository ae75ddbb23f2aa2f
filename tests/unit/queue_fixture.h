/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture the queue and scheduler unit tests share: a zeroed bus (wide,
 * NT targets unless the file says otherwise) with pcam.h's documented
 * defaults set by hand, a fake clock, and CCBs submitted straight to the
 * queues, so the tests link against core/queue alone. Included by
 * test_queue.c and, through sched_fixture.h, test_sched.c and
 * test_sched_bus.c.
 */
#ifndef PCAM_QUEUE_FIXTURE_H
#define PCAM_QUEUE_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../core/queue/queue.h"

#ifndef NT
#define NT 16  /* wide bus, initiator at 7 */
#endif
#define LPT 2
#ifndef NCCB
#define NCCB 96
#endif

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
    /* The user's limits allow tags, as pcam_nego_init() leaves them. */
    for (unsigned t = 0; t < NT; t++)
        f->bus.targets[t].nego.user.tagged = true;
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
    c->priv.retries_left = 3; /* a requeue must leave it so */
    pcam_q_submit(&f->bus, pcam_core_lun(&f->bus, t, l), c);
    ok(f);
    return c;
}

#endif /* PCAM_QUEUE_FIXTURE_H */
