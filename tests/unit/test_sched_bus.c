/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-bus aging in the bus scheduler (core/queue/sched.c): targets that beat
 * an owed one in arbitration and have been issued clearly more are held
 * back; the starving one goes first. The timelines are worked by hand from
 * docs/design.md ("Anti-starvation aging"), the rule as documented above
 * evaluate_aging() in sched.c, and the settings in pcam.h; SPI arbitration
 * priority is 7 highest ... 0, then 15 ... 8 lowest. Times are in ms on a
 * fake clock. Issue order and per-LUN aging are in test_sched.c.
 */
#include "sched_fixture.h"

/*
 * Per-bus aging (the comment above evaluate_aging() in sched.c), with the
 * fixture's settings: bus_starve_ms 500, so a target is owed once its
 * oldest command is older than 250 ms and starving past 500 ms; the slack
 * is tag_depth / 8 + 1 = 5 issues; the ages are looked at when
 * pcam_q_next() or pcam_q_tick() is called at or after the due time (the
 * first call looks at once). The next look is due 500 ms / 16 + 1 ns =
 * 31,250,001 ns after one that found fewer than two targets with work;
 * 500 ms / 2 + 1 ns = 250,000,001 ns after one that holds a target (or
 * after the issue that holds one, if sooner); after one that holds nobody,
 * when the first oldest command it saw crosses 250 or 500 ms, but 62.5 ms
 * after it at the soonest and 250 ms at the latest; and at once after the
 * retirement that leaves an owed target with nothing to do while another
 * is held. An issue to an owed target releases at once every held target
 * that no longer has more than the slack over an owed target it beats.
 * pcam_q_next() does nothing at all once it
 * has found nothing to issue, until something touches the queues (a
 * submission, a completion while work is waiting, a look, the engine's
 * tick): the engine's timer calls pcam_q_tick() when a look is due. The
 * per-target issue counts are what the rule compares; an issue that takes
 * its target more than the slack above a target owed at the last look,
 * which it beats in arbitration, holds it at once. A look that finds fewer
 * than two targets with work resets it all (one target cannot be starved
 * by another), so every scenario keeps a second target busy where a look
 * has to weigh targets against each other.
 */

/* n commands to target t, LUN 0, each issued and retired at once; nothing
 * else may be ready. */
static void burst(fx *f, unsigned slot, uint8_t t, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        pcam_ccb *c = sub(f, slot + i, t, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c);
        retire(f, c);
    }
}

/*
 *   t=0    X0, P0 for target 0 (LUN 0:0 at depth 1); X0 issued. The first
 *          look finds nobody owed: counts wiped, then X0 counts: 0 has 1.
 *          Bursts: 7 issues each to targets 1, 2, 3, 6 to target 4 and 5
 *          to target 5.
 *   t=300  a1..a5 and a8, b8 submitted. Look: X0 is 300 ms old, target 0
 *          is owed (nobody else is: their commands are 0 ms old); targets
 *          not owed are raised to 0's count, 1. Held: 1, 2, 3 (7 > 1 + 5;
 *          each beats 0 in arbitration); 4 is within the slack (6 = 1 + 5);
 *          8 loses to 0, so 0 cannot hold it. Not starving yet (300 ms).
 *          Round-robin from the cursor (6): a8, a4, a5, b8, then nothing.
 *          a4 takes 4 to 7 > 1 + 5: held at once; a5 takes 5 to 6 = 1 + 5:
 *          not held. 8 has 3. Next look due at 550.000001 ms (held).
 *   t=600  X0 retired (0 still has P0: no early look); c8 submitted. Look:
 *          P0 (queued at 0) is 600 ms old: target 0 is starving, one
 *          STARVE event (LUN 0, 600 ms). Owed now too: 1..3 (a's pending
 *          since 300), 4, 5 and 8 (a4, a5, a8 active since 300); smallest
 *          count among them 0's 1. Held: 1, 2, 3 and 4 (7 > 1 + 5). The
 *          cursor is put on 8, which has work: target 0 still goes first
 *          (P0). That issue takes 0, owed, to 2: no owed target 1..4 beats
 *          is now more than 5 below their 7 (8 has 3), so all four are
 *          released at once. a1, a2, a3 go, each taking its target to
 *          8 > 2 + 5: held again at once; then c8, then nothing.
 *   850.000001 ms: the next look (250 ms after the last; a tick 1 ns early
 *          changes nothing): 0 still starving (same episode: no new event),
 *          1..3 still 8 > 2 + 5, held; 4 (7) and 5 (6) not.
 */
static void holds_targets_ahead_of_an_owed_one(void **state)
{
    fx *f = *state;
    pcam_event ev[8];
    pcam_core_lun(&f->bus, 0, 0)->q.depth = 1;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p0 = sub(f, 1, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    burst(f, 10, 1, 7);
    burst(f, 20, 2, 7);
    burst(f, 30, 3, 7);
    burst(f, 40, 4, 6);
    burst(f, 60, 5, 5);

    at_ms(300);
    pcam_ccb *a[5];
    for (unsigned i = 0; i < 5; i++)
        a[i] = sub(f, 50 + i, (uint8_t)(1 + i), 0, PCAM_TAG_SIMPLE);
    pcam_ccb *a8 = sub(f, 55, 8, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *b8 = sub(f, 56, 8, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), a8);
    assert_int_equal(f->bus.q.throttled, 0x000E);
    assert_ptr_equal(next(f), a[3]); /* target 4: within the slack */
    assert_int_equal(f->bus.q.throttled, 0x001E); /* ... until now */
    assert_ptr_equal(next(f), a[4]);
    assert_int_equal(f->bus.q.throttled, 0x001E); /* 5 is at 1 + 5 */
    assert_ptr_equal(next(f), b8);
    assert_null(next(f)); /* a1..a3 held */
    assert_int_equal(f->bus.q.starving, 0);
    assert_int_equal(events(f, ev, 8), 0);

    at_ms(600);
    retire(f, x0);
    pcam_ccb *c8 = sub(f, 57, 8, 0, PCAM_TAG_SIMPLE);
    f->bus.q.rr_target = 8;
    assert_ptr_equal(next(f), p0); /* starving: first, whatever the cursor */
    assert_int_equal(f->bus.q.throttled, 0); /* released by P0's count */
    assert_int_equal(f->bus.targets[0].counters.starve_boosts, 1);
    assert_int_equal(events(f, ev, 8), 1);
    assert_int_equal(ev[0].code, PCAM_EV_STARVE);
    assert_int_equal(ev[0].target, 0);
    assert_int_equal(ev[0].lun, 0);
    assert_int_equal(ev[0].arg, 600);
    for (unsigned i = 0; i < 3; i++)
        assert_ptr_equal(next(f), a[i]);
    assert_ptr_equal(next(f), c8);
    assert_null(next(f));
    assert_int_equal(f->bus.q.throttled, 0x000E); /* 8 > 2 + 5 */
    assert_int_equal(f->bus.q.age_next_ns, PCAM_MS(850) + 1u);

    clock_ns = PCAM_MS(850);
    pcam_q_tick(&f->bus, clock_ns); /* 1 ns early */
    assert_int_equal(f->bus.q.age_next_ns, PCAM_MS(850) + 1u);
    clock_ns = PCAM_MS(850) + 1u;
    pcam_q_tick(&f->bus, clock_ns);
    assert_int_equal(f->bus.q.age_next_ns, PCAM_MS(1100) + 2u);
    assert_null(next(f));
    assert_int_equal(f->bus.q.throttled, 0x000E);
    assert_int_equal(f->bus.q.starving, 1); /* still target 0 */
    assert_int_equal(f->bus.targets[0].counters.starve_boosts, 1);
    assert_int_equal(events(f, ev, 8), 0);
    /* Held anew: 1..3 at the 300 ms look and again at their own issues at
     * 600 ms, 4 once (its own issue at 300 ms). */
    static const uint32_t holds[6] = {0, 2, 2, 2, 1, 0};
    for (unsigned t = 0; t < 6; t++)
        assert_int_equal(f->bus.targets[t].counters.bus_holds, holds[t]);
}

/*
 * Counts are wiped when a look finds nobody owed, so a run of issues in a
 * quiet period does not hold a target back in a later episode:
 *   t=0    X0 issued (0 has 1); 7 issues to target 1 (1 has 7).
 *   t=100  X0 retired; d1, d2 submitted. Look: nobody owed: all counts 0;
 *          d2 then d1 issued (cursor on 2 since the burst): 1 and 2 have 1.
 *   t=200  d1, d2 retired. Y0 issued; the look before it wipes again (no
 *          one is owed, and 0 is the only target with work): 0 has 1.
 *   t=500  a1 submitted. Look: Y0 is 300 ms old, 0 is owed with 1; target
 *          1 is raised from 0 to 1 and goes. Without the wipe it would
 *          have had 7 > 1 + 5 and been held.
 * And owed means strictly older than half the threshold:
 *   t=1000 Y0 and a1 retired; Z0 issued (0 has 1); 7 issues to target 1.
 *   t=1250 b1 submitted. Look: Z0 is exactly 250 ms old: nobody owed,
 *          wiped; b1 goes (1 has 1).
 */
static void counts_wiped_when_nobody_owed(void **state)
{
    fx *f = *state;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    burst(f, 10, 1, 7);
    assert_int_equal(f->bus.q.issued[1], 7);
    at_ms(100);
    retire(f, x0);
    pcam_ccb *d1 = sub(f, 5, 1, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *d2 = sub(f, 6, 2, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), d2);
    assert_ptr_equal(next(f), d1);
    assert_int_equal(f->bus.q.issued[0], 0);
    assert_int_equal(f->bus.q.issued[1], 1);
    assert_int_equal(f->bus.q.issued[2], 1);
    at_ms(200);
    retire(f, d1);
    retire(f, d2);
    pcam_ccb *y0 = sub(f, 1, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), y0);
    at_ms(500);
    pcam_ccb *a1 = sub(f, 2, 1, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), a1);
    assert_int_equal(f->bus.q.throttled, 0);
    assert_int_equal(f->bus.q.issued[0], 1);
    assert_int_equal(f->bus.q.issued[1], 2); /* raised to 1, then a1 */

    at_ms(1000);
    retire(f, y0);
    retire(f, a1);
    pcam_ccb *z0 = sub(f, 3, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), z0);
    burst(f, 20, 1, 7);
    at_ms(1250);
    pcam_ccb *b1 = sub(f, 4, 1, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), b1);
    assert_int_equal(f->bus.q.issued[1], 1);
}

/*
 * An idle target banks no credit: while someone is owed, the counts of
 * targets that are not are raised to the smallest owed count.
 *   t=0    X0 (LUN 0) and X0b (LUN 1) issued: 0 has 2. 7 issues to target
 *          6 (prio 14): 6 has 7, within 0's slack (7 = 2 + 5).
 *   t=300  e5 submitted. Look: 0 owed (300 ms); target 5, idle at 0 until
 *          now, is raised to 2; e5 issued: 5 has 3.
 *   t=600  f6 submitted. Look: owed 0 (2, starving) and 5 (e5 300 ms old,
 *          3). 6 beats both, but 7 <= 2 + 5 and 7 <= 3 + 5: f6 goes (and
 *          its 8 > 2 + 5 holds 6 at once). Had 5 kept its 0 it would have
 *          had 1, and 6 (7 > 1 + 5) would have been held before f6.
 */
static void idle_target_banks_no_credit(void **state)
{
    fx *f = *state;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *x0b = sub(f, 1, 0, 1, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    assert_ptr_equal(next(f), x0b);
    burst(f, 10, 6, 7);
    at_ms(300);
    pcam_ccb *e5 = sub(f, 2, 5, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), e5);
    assert_int_equal(f->bus.q.issued[5], 3);
    assert_int_equal(f->bus.q.issued[6], 7);
    at_ms(600);
    pcam_ccb *f6 = sub(f, 3, 6, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), f6);
    assert_int_equal(f->bus.q.throttled, 0x0040);
    assert_int_equal(f->bus.q.starving, 1);
}

/*
 * The timer looks too (pcam_q_tick(), from the engine's tick): a target
 * held while nothing else has work is released on time, and an episode
 * can start there. Nothing is ever issued by it.
 *   t=0    X0 issued (0 has 1); 7 issues to target 1.
 *   t=300  a1 submitted; the look (a pcam_q_next() that returns nothing)
 *          holds 1: 7 > 1 + 5; the next look is due at 550.000001 ms, and
 *          a tick 1 ns early changes nothing.
 *   t=550  X0 retired, nothing else outstanding but a1, which is held: 0,
 *          owed, has nothing left to do, so the look is due at once (the
 *          engine ticks for it while anyone is held); the queues are not
 *          touched by the retirement itself.
 *          The tick looks: only target 1 has work, nothing to even out:
 *          wiped, released. Y0 submitted; Y0 and a1 issued; a1 retired.
 *   t=1200 c2 submitted (a second busy target). Y0 is 650 ms old; a tick
 *          looks and starts the episode: STARVE (0, LUN 0, 650 ms).
 */
static void timer_tick_looks_when_due(void **state)
{
    fx *f = *state;
    pcam_event ev[4];
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    burst(f, 10, 1, 7);
    at_ms(300);
    pcam_ccb *a1 = sub(f, 1, 1, 0, PCAM_TAG_SIMPLE);
    assert_null(next(f));
    assert_int_equal(f->bus.q.throttled, 0x0002);
    assert_int_equal(f->bus.q.age_next_ns, PCAM_MS(550) + 1u);
    at_ms(550);
    pcam_q_tick(&f->bus, clock_ns); /* 1 ns early */
    assert_int_equal(f->bus.q.throttled, 0x0002);
    assert_int_equal(f->bus.q.issued[1], 7);
    retire(f, x0);
    assert_int_equal(f->bus.q.age_next_ns, 0);
    assert_false(pcam_q_dirty(&f->bus));
    pcam_q_tick(&f->bus, clock_ns);
    ok(f);
    assert_int_equal(f->bus.q.throttled, 0);
    assert_int_equal(f->bus.q.issued[1], 0);
    assert_int_equal(f->bus.targets[1].q.active, 0); /* the tick issued nothing */
    pcam_ccb *y0 = sub(f, 2, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), y0); /* the cursor is on 2 since the burst */
    assert_ptr_equal(next(f), a1);
    retire(f, a1);
    at_ms(1200);
    sub(f, 3, 2, 0, PCAM_TAG_SIMPLE);
    pcam_q_tick(&f->bus, clock_ns);
    ok(f);
    assert_int_equal(f->bus.q.starving, 1);
    assert_int_equal(f->bus.targets[0].counters.starve_boosts, 1);
    assert_int_equal(events(f, ev, 4), 1);
    assert_int_equal(ev[0].code, PCAM_EV_STARVE);
    assert_int_equal(ev[0].target, 0);
    assert_int_equal(ev[0].lun, 0);
    assert_int_equal(ev[0].arg, 650);
    assert_int_equal(ev[0].time_ns, PCAM_MS(1200));
}

/*
 * Which target is starving, every LUN at depth 1:
 *   t=0    X3, P3 for target 3; X3 issued.
 *   t=100  X1, P1 for target 1; X1 issued (the look finds nobody owed).
 *   t=700  X3 and X1 retired; the cursor is put on target 1. P3 is 700 ms
 *          old, P1 600: both starve, 3 is older and goes first (STARVE:
 *          target 3, LUN 0, 700 ms), then P1.
 *   t=1000 both retired; X2, P2, X9, P9 submitted at once; the look finds
 *          nobody owed (the episode ends); X2 and X9 issued.
 *   t=1600 X2 and X9 retired, cursor on 2: P2 and P9 are both 600 ms old;
 *          the tie goes to 9, which loses arbitration to 2: P9 first.
 *   t=2300 P9 retired; LUN 2:0 frozen; K5 submitted. P2 (queued at 1000)
 *          is 1300 ms old but recovery froze it on purpose: nobody
 *          starves; K5 goes.
 */
static void oldest_starving_target_wins(void **state)
{
    fx *f = *state;
    pcam_event ev[4];
    for (unsigned i = 0; i < NT * LPT; i++)
        f->luns[i].q.depth = 1;
    pcam_ccb *x3 = sub(f, 0, 3, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p3 = sub(f, 1, 3, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x3);
    at_ms(100);
    pcam_ccb *x1 = sub(f, 2, 1, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p1 = sub(f, 3, 1, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x1);
    at_ms(700);
    retire(f, x3);
    retire(f, x1);
    f->bus.q.rr_target = 1;
    assert_ptr_equal(next(f), p3);
    assert_ptr_equal(next(f), p1);
    assert_int_equal(events(f, ev, 4), 1);
    assert_int_equal(ev[0].code, PCAM_EV_STARVE);
    assert_int_equal(ev[0].target, 3);
    assert_int_equal(ev[0].lun, 0);
    assert_int_equal(ev[0].arg, 700);
    assert_int_equal(f->bus.targets[1].counters.starve_boosts, 0);
    assert_int_equal(f->bus.targets[3].counters.starve_boosts, 1);

    at_ms(1000);
    retire(f, p3);
    retire(f, p1);
    pcam_ccb *x2 = sub(f, 4, 2, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p2 = sub(f, 5, 2, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *x9 = sub(f, 6, 9, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p9 = sub(f, 7, 9, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x2);
    assert_ptr_equal(next(f), x9);
    assert_int_equal(f->bus.q.starving, 0);
    at_ms(1600);
    retire(f, x2);
    retire(f, x9);
    f->bus.q.rr_target = 2;
    assert_ptr_equal(next(f), p9);
    assert_ptr_equal(next(f), p2);
    assert_int_equal(events(f, ev, 4), 1);
    assert_int_equal(ev[0].target, 9);
    assert_int_equal(ev[0].arg, 600);
    assert_int_equal(f->bus.targets[9].counters.starve_boosts, 1);
    assert_int_equal(f->bus.targets[2].counters.starve_boosts, 0);

    at_ms(2300);
    retire(f, p9);
    pcam_core_lun(&f->bus, 2, 0)->q.freeze = 1;
    pcam_ccb *k5 = sub(f, 8, 5, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), k5);
    assert_int_equal(f->bus.q.starving, 0);
    assert_int_equal(events(f, ev, 4), 0);
    assert_int_equal(f->bus.targets[2].counters.starve_boosts, 0);
}

/*
 * A command whose timeout is above 4 x default_timeout_ms (10 s here, so
 * above 40,000 ms) is slow by nature: its age does not count. Exactly
 * 40,000 ms still counts.
 *   t=0    L0 and M0 (timeout 40,001 ms) on LUN 0:0 at depth 1: L0 issued,
 *          M0 pending behind it; 7 issues to target 1.
 *   t=600  a1 submitted. L0 and M0 are 600 ms old but both ignored: nobody
 *          owed, no STARVE, target 1 not held (its 7 are wiped). E0 (timeout
 *          40,000 ms) submitted on LUN 0:1 and issued.
 *   t=1200 Look: L0 still ignored, E0 is 600 ms old: target 0 starves,
 *          the event names E0's LUN. (a1, still active, is as old: the tie
 *          goes to 0, which loses arbitration to 1.)
 */
static void long_timeout_commands_do_not_starve(void **state)
{
    fx *f = *state;
    pcam_event ev[4];
    pcam_core_lun(&f->bus, 0, 0)->q.depth = 1;
    pcam_ccb *l0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *m0 = sub(f, 3, 0, 0, PCAM_TAG_SIMPLE);
    l0->timeout_ms = 40001;
    m0->timeout_ms = 40001;
    assert_ptr_equal(next(f), l0);
    burst(f, 10, 1, 7);
    at_ms(600);
    pcam_ccb *a1 = sub(f, 1, 1, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), a1);
    assert_int_equal(f->bus.q.starving, 0);
    assert_int_equal(events(f, ev, 4), 0);
    pcam_ccb *e0 = &f->ccb[2];
    memset(e0, 0, sizeof *e0);
    e0->func = PCAM_FN_SCSI_IO;
    e0->target = 0;
    e0->lun = 1;
    e0->flags = PCAM_CCB_TAGGED;
    e0->u.io.tag_action = PCAM_TAG_SIMPLE;
    e0->timeout_ms = 40000;
    pcam_q_submit(&f->bus, pcam_core_lun(&f->bus, 0, 1), e0);
    assert_ptr_equal(next(f), e0);
    at_ms(1200);
    assert_null(next(f));
    assert_int_equal(f->bus.q.starving, 1);
    assert_int_equal(events(f, ev, 4), 1);
    assert_int_equal(ev[0].code, PCAM_EV_STARVE);
    assert_int_equal(ev[0].target, 0);
    assert_int_equal(ev[0].lun, 1);
    assert_int_equal(ev[0].arg, 600);
}

/*
 * A HEAD OF QUEUE command at the head of a queue does not hide an older
 * command behind it from per-bus aging: behind a HEAD OF QUEUE head the
 * first command that is not one is looked at too (outside HEAD OF QUEUE,
 * issue order is submission order, so it is the oldest of the rest).
 * bus_starve_ms = 500. LUN 2:0 at depth 1:
 *   t=0    W and P submitted; W issued.
 *   t=550  W retired; H (HEAD OF QUEUE) and K9 (target 9) submitted:
 *          pending on 2:0 is H, P. Look: H is 0 ms old, but P behind it
 *          550 ms: target 2 starves (STARVE 2:0, 550 ms) and goes first,
 *          so H is issued before K9 (the look at heads only saw nobody
 *          starving and issued K9 first). Then K9.
 *          The depth is raised to 2: P issued behind H.
 *   t=650  Look: the active head H is 100 ms old, P behind it 650 ms: the
 *          episode goes on (still target 2, no second event).
 *   t=700  H retired. Look: P, the active head now, still starves it.
 */
static void hoq_does_not_hide_older(void **state)
{
    fx *f = *state;
    pcam_event ev[4];
    pcam_lun *lun = pcam_core_lun(&f->bus, 2, 0);
    lun->q.depth = 1;
    pcam_ccb *w = sub(f, 0, 2, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p = sub(f, 1, 2, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), w);
    at_ms(550);
    retire(f, w);
    pcam_ccb *h = sub(f, 2, 2, 0, PCAM_TAG_HEAD_OF_QUEUE);
    pcam_ccb *k9 = sub(f, 3, 9, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), h);
    assert_int_equal(f->bus.q.starving, 3);
    assert_int_equal(events(f, ev, 4), 1);
    assert_int_equal(ev[0].code, PCAM_EV_STARVE);
    assert_int_equal(ev[0].target, 2);
    assert_int_equal(ev[0].lun, 0);
    assert_int_equal(ev[0].arg, 550);
    assert_ptr_equal(next(f), k9);
    assert_null(next(f));
    lun->q.depth = 2;
    pcam_q_touch(&f->bus); /* as the depth ramp's retirement would */
    assert_ptr_equal(next(f), p);
    assert_ptr_equal(lun->q.active.head, h);
    at_ms(650);
    assert_null(next(f));
    assert_int_equal(f->bus.q.starving, 3);
    assert_int_equal(events(f, ev, 4), 0);
    at_ms(700);
    retire(f, h);
    assert_null(next(f));
    assert_int_equal(f->bus.q.starving, 3);
    assert_int_equal(events(f, ev, 4), 0);
}

/*
 * Waits that are deliberate are not starvation: a pending head held by a
 * BUSY delay (its LUN's or its own) is not aged until the delay is over,
 * nor is a target blocked for recovery.
 *   t=0    P on LUN 4:0 and Q on LUN 5:0 submitted; LUN 4:0 held until
 *          10 s, Q held until 10 s. R issued to target 6, then 6 blocked.
 *   t=600  Look: all three are 600 ms old, but held or blocked: nobody
 *          starves.
 *   t=10000 Look: both holds over; P and Q are 10 s old: tie, and 4 loses
 *          arbitration to 5, so 4 starves and P goes first.
 */
static void deliberate_waits_do_not_starve(void **state)
{
    fx *f = *state;
    pcam_event ev[4];
    pcam_ccb *p = sub(f, 0, 4, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *q = sub(f, 1, 5, 0, PCAM_TAG_SIMPLE);
    pcam_core_lun(&f->bus, 4, 0)->q.hold_until_ns = PCAM_MS(10000);
    q->priv.hold_until_ns = PCAM_MS(10000);
    pcam_ccb *r = sub(f, 2, 6, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), r);
    f->bus.targets[6].dev.flags |= PCAM_TGTF_BLOCKED;
    at_ms(600);
    assert_null(next(f));
    assert_int_equal(f->bus.q.starving, 0);
    assert_int_equal(events(f, ev, 4), 0);
    at_ms(10000);
    pcam_q_touch(&f->bus); /* the engine's tick, finding the holds over */
    f->bus.q.rr_target = 5;
    assert_ptr_equal(next(f), p);
    assert_ptr_equal(next(f), q);
    assert_int_equal(events(f, ev, 4), 1);
    assert_int_equal(ev[0].target, 4);
    assert_int_equal(ev[0].arg, 10000);
}

/* One target alone cannot be starved by another: with only target 0 busy
 * (X0 issued at 0, P0 waiting behind it at depth 1), X0 at 600 ms and P0
 * at 1200 ms are far past the threshold, yet nobody starves, nothing is
 * logged, and each look wipes the counts. */
static void lone_target_does_not_starve(void **state)
{
    fx *f = *state;
    pcam_event ev[4];
    pcam_core_lun(&f->bus, 0, 0)->q.depth = 1;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *p0 = sub(f, 1, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    at_ms(600);
    pcam_q_tick(&f->bus, clock_ns);
    assert_int_equal(f->bus.q.starving, 0);
    retire(f, x0);
    assert_ptr_equal(next(f), p0);
    at_ms(1200);
    pcam_q_tick(&f->bus, clock_ns);
    assert_int_equal(f->bus.q.starving, 0);
    assert_int_equal(f->bus.q.issued[0], 0);
    assert_int_equal(f->bus.targets[0].counters.starve_boosts, 0);
    assert_int_equal(events(f, ev, 4), 0);
}

/*
 * Bugs the fuzz model found and core/queue fixed: each test asserts what
 * the design says, and names the old bug if it comes back.
 */
static void known_bug(bool present, const char *what)
{
    if (present) {
        fail_msg("regression of a fixed bug: %s", what);
    }
}

/* A target blocked for recovery gets nothing new, even while it is the
 * starving one: target 0 starves at 600 ms (X0 600 ms old, P0 behind it at
 * depth 1; K8, issued at 400, keeps a second target busy), is then
 * blocked, and a command for its other LUN arrives before the next look. */
static void blocked_starving_target_gets_nothing(void **state)
{
    fx *f = *state;
    pcam_core_lun(&f->bus, 0, 0)->q.depth = 1;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    sub(f, 1, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    at_ms(400);
    pcam_ccb *k8 = sub(f, 3, 8, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), k8);
    at_ms(600);
    assert_null(next(f));
    assert_int_equal(f->bus.q.starving, 1);
    f->bus.targets[0].dev.flags |= PCAM_TGTF_BLOCKED;
    pcam_ccb *q0 = sub(f, 2, 0, 1, PCAM_TAG_SIMPLE);
    pcam_ccb *got = next(f);
    known_bug(got == q0, "sched.c pcam_q_next() serves q_starving without "
                         "target_usable(): a blocked target gets new work");
    assert_null(got);
}

/* A look that releases a held target wakes the scheduler, whoever made it:
 * target 1 is held at 300 ms (7 > 1 + 5 with 0 owed), X0 then completes,
 * which makes the look due at once but touches nothing, so a
 * pcam_q_next() finds nothing; the timer's look finds only target 1 with
 * work and releases it; a1 must then go. (Latent while pcam_engine_tick()
 * touches the queues after every tick.) */
static void tick_release_wakes_the_scheduler(void **state)
{
    fx *f = *state;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    burst(f, 10, 1, 7);
    at_ms(300);
    pcam_ccb *a1 = sub(f, 1, 1, 0, PCAM_TAG_SIMPLE);
    assert_null(next(f));
    retire(f, x0);
    assert_null(next(f));
    assert_int_equal(f->bus.q.throttled, 0x0002);
    pcam_q_tick(&f->bus, clock_ns);
    assert_int_equal(f->bus.q.throttled, 0);
    pcam_ccb *got = next(f);
    known_bug(got == NULL, "sched.c evaluate_aging(): the look that finds fewer "
                           "than two busy targets releases held ones without "
                           "pcam_q_touch()");
    assert_ptr_equal(got, a1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(holds_targets_ahead_of_an_owed_one, setup, teardown),
        cmocka_unit_test_setup_teardown(counts_wiped_when_nobody_owed, setup, teardown),
        cmocka_unit_test_setup_teardown(idle_target_banks_no_credit, setup, teardown),
        cmocka_unit_test_setup_teardown(timer_tick_looks_when_due, setup, teardown),
        cmocka_unit_test_setup_teardown(oldest_starving_target_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(long_timeout_commands_do_not_starve, setup, teardown),
        cmocka_unit_test_setup_teardown(hoq_does_not_hide_older, setup, teardown),
        cmocka_unit_test_setup_teardown(deliberate_waits_do_not_starve, setup, teardown),
        cmocka_unit_test_setup_teardown(lone_target_does_not_starve, setup, teardown),
        cmocka_unit_test_setup_teardown(blocked_starving_target_gets_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(tick_release_wakes_the_scheduler, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
