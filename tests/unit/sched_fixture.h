/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the two scheduler test files add to queue_fixture.h: the clock in
 * milliseconds and the scheduler's calls checked against the invariants.
 * Included by test_sched.c and test_sched_bus.c only.
 */
#ifndef PCAM_SCHED_FIXTURE_H
#define PCAM_SCHED_FIXTURE_H

#include "queue_fixture.h"

static void at_ms(uint64_t ms)
{
    clock_ns = PCAM_MS(ms);
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
