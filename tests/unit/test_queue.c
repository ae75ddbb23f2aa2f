/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-LUN tag queues (core/queue/queue.c): the tag allocator, untagged
 * exclusion, HEAD OF QUEUE placement, QUEUE FULL depth control and ramp,
 * requeue order, reselection lookup, holds, and the invariant checker.
 * Every expectation is worked by hand from the rules in docs/design.md ("Tag
 * queues") and the settings documented in pcam.h; the bus is a zeroed
 * pcam_bus with just the fields the queue reads filled in.
 */
#define NT 8   /* narrow bus, initiator at 7 */
#define NCCB 300
#include "queue_fixture.h"

static pcam_lun *lun_of(fx *f, uint8_t t, uint8_t l)
{
    return pcam_core_lun(&f->bus, t, l);
}

/* These tests change freezes, holds and the clock directly, where the
 * engine goes through pcam_q_touch(); touch first so every call rescans.
 * scan_only_after_touch checks the touch contract itself. */
static pcam_ccb *next(fx *f)
{
    pcam_q_touch(&f->bus);
    pcam_ccb *c = pcam_q_next(&f->bus, clock_ns);
    ok(f);
    return c;
}

static void retire(fx *f, pcam_ccb *c, bool good)
{
    pcam_q_retire(&f->bus, c, good);
    ok(f);
}

/* With one command in flight at a time, tags come out 0, 1, ... 255, 0:
 * the cursor moves past each freed tag instead of handing it straight back. */
static void tags_cycle_through_all(void **state)
{
    fx *f = *state;
    for (unsigned i = 0; i < 600; i++) {
        pcam_ccb *c = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c);
        assert_int_equal(c->priv.tag, i % 256);
        assert_int_equal(c->priv.tag_msg, PCAM_TAG_SIMPLE);
        retire(f, c, true);
    }
}

/* Thousands of cycles with the LUN kept full and commands finishing in a
 * scrambled order: an issued tag is never one still in use, and never the
 * tag freed just before it. */
static void tags_never_reused_while_in_use(void **state)
{
    fx *f = *state;
    bool inuse[256] = {false};
    pcam_ccb *act[32];
    unsigned n = 0, ids = 0;
    uint32_t rng = 12345;
    int last_freed = -1;
    for (unsigned cycle = 0; cycle < 5000; cycle++) {
        while (n < 32) {
            pcam_ccb *c = sub(f, ids++ % NCCB, 0, 0, PCAM_TAG_SIMPLE);
            assert_ptr_equal(next(f), c);
            assert_false(inuse[c->priv.tag]);
            assert_int_not_equal(c->priv.tag, last_freed);
            inuse[c->priv.tag] = true;
            act[n++] = c;
        }
        assert_null(next(f)); /* nothing pending */
        rng = rng * 1103515245u + 12345u;
        unsigned k = (rng >> 16) % n;
        last_freed = act[k]->priv.tag;
        inuse[last_freed] = false;
        retire(f, act[k], true);
        act[k] = act[--n];
    }
}

/* All 256 tags in use: the LUN is full whatever its depth; freeing tag 100
 * makes 100 the only tag the next command can get. */
static void tags_exhausted(void **state)
{
    fx *f = *state;
    pcam_lun *l = lun_of(f, 0, 0);
    pcam_ccb *by_tag[256];
    l->q.depth = 256; /* past the configurable maximum, to reach the tag limit */
    for (unsigned i = 0; i < 256; i++) {
        pcam_ccb *c = sub(f, i, 0, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c);
        by_tag[c->priv.tag] = c;
    }
    pcam_ccb *extra = sub(f, 256, 0, 0, PCAM_TAG_SIMPLE);
    assert_null(next(f));
    retire(f, by_tag[100], true);
    assert_ptr_equal(next(f), extra);
    assert_int_equal(extra->priv.tag, 100);
}

/* An untagged command waits for the tagged ones to drain, holds back the
 * tagged ones behind it, and then runs alone. */
static void untagged_waits_and_blocks(void **state)
{
    fx *f = *state;
    pcam_ccb *t1 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *t2 = sub(f, 1, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), t1);
    assert_ptr_equal(next(f), t2);
    pcam_ccb *u = sub(f, 2, 0, 0, 0);
    pcam_ccb *t3 = sub(f, 3, 0, 0, PCAM_TAG_SIMPLE);
    assert_null(next(f));
    retire(f, t1, true);
    assert_null(next(f)); /* t2 still active */
    retire(f, t2, true);
    assert_ptr_equal(next(f), u);
    assert_int_equal(u->priv.tag_msg, 0);
    assert_int_equal(lun_of(f, 0, 0)->q.active_untagged, 1);
    assert_null(next(f)); /* t3 must not join the untagged one */
    assert_ptr_equal(pcam_q_find(lun_of(f, 0, 0), -1), u);
    retire(f, u, true);
    assert_ptr_equal(next(f), t3);
    assert_int_equal(t3->priv.tag_msg, PCAM_TAG_SIMPLE);
    /* Another LUN of the same target is independent. */
    pcam_ccb *u1 = sub(f, 4, 0, 1, 0);
    assert_ptr_equal(next(f), u1);
}

/* Only one untagged command per LUN. */
static void one_untagged_at_a_time(void **state)
{
    fx *f = *state;
    pcam_ccb *a = sub(f, 0, 1, 0, 0);
    pcam_ccb *b = sub(f, 1, 1, 0, 0);
    assert_ptr_equal(next(f), a);
    assert_null(next(f));
    retire(f, a, false);
    assert_ptr_equal(next(f), b);
    assert_int_equal(f->bus.targets[1].q.active, 1);
}

/* A tagged request still goes untagged when the target rejected tags or the
 * LUN lacks CmdQue. */
static void untagged_by_target_or_lun(void **state)
{
    fx *f = *state;
    f->bus.targets[2].dev.flags |= PCAM_TGTF_NO_TAGS;
    pcam_ccb *a = sub(f, 0, 2, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *b = sub(f, 1, 2, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), a);
    assert_int_equal(a->priv.tag_msg, 0);
    assert_null(next(f));
    lun_of(f, 3, 1)->dev.flags = PCAM_LUNF_PRESENT;
    pcam_ccb *c = sub(f, 2, 3, 1, PCAM_TAG_ORDERED);
    assert_ptr_equal(next(f), c);
    assert_int_equal(c->priv.tag_msg, 0);
    retire(f, a, true);
    assert_ptr_equal(next(f), b);
    assert_int_equal(b->priv.tag_msg, 0);
}

/* Pending order: HEAD OF QUEUE in front, among themselves by submission;
 * requeued commands ahead of both. */
static void head_of_queue_order(void **state)
{
    fx *f = *state;
    pcam_ccb *x = sub(f, 9, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x);
    f->luns[0].q.freeze = 1; /* collect everything first */
    pcam_ccb *a = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *b = sub(f, 1, 0, 0, PCAM_TAG_ORDERED);
    pcam_ccb *h1 = sub(f, 2, 0, 0, PCAM_TAG_HEAD_OF_QUEUE);
    pcam_ccb *c = sub(f, 3, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *h2 = sub(f, 4, 0, 0, PCAM_TAG_HEAD_OF_QUEUE);
    pcam_q_requeue(&f->bus, x);
    ok(f);
    pcam_ccb *h3 = sub(f, 5, 0, 0, PCAM_TAG_HEAD_OF_QUEUE);
    assert_null(next(f));
    f->luns[0].q.freeze = 0;
    pcam_ccb *want[] = {x, h1, h2, h3, a, b, c};
    for (unsigned i = 0; i < 7; i++)
        assert_ptr_equal(next(f), want[i]);
    assert_int_equal(h1->priv.tag_msg, PCAM_TAG_HEAD_OF_QUEUE);
    assert_int_equal(b->priv.tag_msg, PCAM_TAG_ORDERED);
    assert_int_equal(a->priv.tag_msg, PCAM_TAG_SIMPLE);
}

/* Requeue: tag back, counts down, front of the queue, no retry spent; a set
 * of bystanders comes back in the order it first went out, whichever order
 * the engine hands them back in. */
static void requeue_keeps_issue_order(void **state)
{
    fx *f = *state;
    pcam_lun *l = lun_of(f, 1, 1);
    pcam_ccb *c[6];
    for (unsigned i = 0; i < 4; i++)
        c[i] = sub(f, i, 1, 1, PCAM_TAG_SIMPLE);
    for (unsigned i = 0; i < 4; i++)
        assert_ptr_equal(next(f), c[i]);
    c[4] = sub(f, 4, 1, 1, PCAM_TAG_SIMPLE);
    c[5] = sub(f, 5, 1, 1, PCAM_TAG_HEAD_OF_QUEUE);
    l->q.freeze = 1;
    unsigned order[] = {2, 0, 3, 1};
    for (unsigned i = 0; i < 4; i++) {
        pcam_q_requeue(&f->bus, c[order[i]]);
        ok(f);
        assert_int_equal(c[order[i]]->priv.state, PCAM_CS_PENDING);
        assert_int_equal(c[order[i]]->priv.retries_left, 3);
    }
    assert_int_equal(l->q.active.count, 0);
    assert_int_equal(f->bus.targets[1].q.active, 0);
    assert_int_equal(f->bus.targets[1].counters.requeues, 4);
    for (unsigned w = 0; w < PCAM_TAGS / 32; w++)
        assert_int_equal(l->q.tags_in_use[w], 0);
    l->q.freeze = 0;
    pcam_ccb *want[] = {c[0], c[1], c[2], c[3], c[5], c[4]};
    for (unsigned i = 0; i < 6; i++)
        assert_ptr_equal(next(f), want[i]);
    /* The same set requeued in active order also comes back in it. */
    for (unsigned i = 0; i < 4; i++)
        pcam_q_requeue(&f->bus, c[i]);
    ok(f);
    assert_ptr_equal(l->q.pending.head, c[0]);
    assert_ptr_equal(l->q.pending.tail, c[3]);
    /* Requeue of a CCB not active is ignored. */
    pcam_q_requeue(&f->bus, c[0]);
    assert_int_equal(f->bus.targets[1].counters.requeues, 8);
}

static unsigned events(fx *f, pcam_event *ev, unsigned max)
{
    return (unsigned)pcam_bus_read_events(&f->bus, ev, max);
}

/* QUEUE FULL with six active: the target held five, so the depth drops to
 * 5 and the refused command goes back in front with no retry spent. Three
 * consecutive successes (setting) raise it by one; a failure restarts the
 * count; it stops at tag_depth_max. */
static void queue_full_and_ramp(void **state)
{
    fx *f = *state;
    pcam_event ev[8];
    pcam_lun *l = lun_of(f, 0, 0);
    pcam_ccb *c[12];
    f->bus.cfg.qfull_ramp_successes = 3;
    f->bus.cfg.tag_depth_max = 7;
    for (unsigned i = 0; i < 6; i++) {
        c[i] = sub(f, i, 0, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c[i]);
    }
    for (unsigned i = 6; i < 12; i++)
        c[i] = sub(f, i, 0, 0, PCAM_TAG_SIMPLE);
    assert_int_equal(pcam_q_queue_full(&f->bus, c[5]), 5);
    ok(f);
    assert_int_equal(l->q.depth, 5);
    assert_ptr_equal(l->q.pending.head, c[5]);
    assert_int_equal(c[5]->priv.state, PCAM_CS_PENDING);
    assert_int_equal(c[5]->priv.retries_left, 3);
    assert_int_equal(f->bus.targets[0].counters.queue_fulls, 1);
    assert_int_equal(f->bus.targets[0].counters.requeues, 1);
    assert_int_equal(events(f, ev, 8), 1);
    assert_int_equal(ev[0].code, PCAM_EV_QUEUE_FULL);
    assert_int_equal(ev[0].target, 0);
    assert_int_equal(ev[0].lun, 0);
    assert_int_equal(ev[0].arg, 5);
    assert_null(next(f)); /* 5 active = depth */

    retire(f, c[0], true); /* ramp 1 */
    assert_ptr_equal(next(f), c[5]);
    retire(f, c[1], true); /* ramp 2 */
    retire(f, c[2], false); /* ramp back to 0 */
    retire(f, c[3], true);
    retire(f, c[4], true);
    assert_int_equal(l->q.depth, 5);
    retire(f, c[5], true); /* third in a row */
    assert_int_equal(l->q.depth, 6);
    assert_int_equal(l->q.ramp, 0);
    for (unsigned i = 6; i < 12; i++)
        assert_ptr_equal(next(f), c[i]);
    assert_int_equal(l->q.active.count, 6);
    for (unsigned i = 6; i < 9; i++)
        retire(f, c[i], true);
    assert_int_equal(l->q.depth, 7);
    for (unsigned i = 9; i < 12; i++)
        retire(f, c[i], true);
    assert_int_equal(l->q.depth, 7); /* the ceiling */
}

/* The floor: QUEUE FULL with nothing else active would mean depth 0; the
 * floor (2 by default) holds. With floor 4 and three active, held = 2 -> 4. */
static void queue_full_floor(void **state)
{
    fx *f = *state;
    pcam_ccb *a = sub(f, 0, 4, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), a);
    assert_int_equal(pcam_q_queue_full(&f->bus, a), 2);
    ok(f);
    assert_int_equal(lun_of(f, 4, 0)->q.depth, 2);
    /* Once more with the floor above the current depth: QUEUE FULL sets
     * the floor even then (it is the least the design allows). */
    assert_ptr_equal(next(f), a);
    lun_of(f, 4, 0)->q.depth = 1;
    assert_int_equal(pcam_q_queue_full(&f->bus, a), 2);
    ok(f);
}

static void queue_full_floor_higher(void **state)
{
    fx *f = *state;
    f->bus.cfg.tag_depth_floor = 4;
    pcam_ccb *c[3];
    for (unsigned i = 0; i < 3; i++) {
        c[i] = sub(f, i, 4, 1, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c[i]);
    }
    assert_int_equal(pcam_q_queue_full(&f->bus, c[2]), 4);
    assert_int_equal(lun_of(f, 4, 1)->q.depth, 4);
    ok(f);
    assert_ptr_equal(next(f), c[2]); /* 2 active < 4 */
    /* Held 30 of 31: 30 is above the floor, so 30. */
    pcam_ccb *d[31];
    for (unsigned i = 0; i < 31; i++)
        d[i] = sub(f, 10 + i, 5, 0, PCAM_TAG_SIMPLE);
    for (unsigned i = 0; i < 31; i++)
        assert_ptr_equal(next(f), d[i]);
    assert_int_equal(pcam_q_queue_full(&f->bus, d[7]), 30);
    ok(f);
}

/* Reselection lookup by tag, and of the untagged command. */
static void find_by_tag(void **state)
{
    fx *f = *state;
    pcam_lun *l = lun_of(f, 6, 0);
    pcam_ccb *c[3];
    for (unsigned i = 0; i < 3; i++) {
        c[i] = sub(f, i, 6, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c[i]);
        assert_int_equal(c[i]->priv.tag, i);
    }
    assert_ptr_equal(pcam_q_find(l, 0), c[0]);
    assert_ptr_equal(pcam_q_find(l, 2), c[2]);
    assert_null(pcam_q_find(l, 3));
    assert_null(pcam_q_find(l, -1));
    assert_null(pcam_q_find(l, 256));
    assert_null(pcam_q_find(NULL, 0));
    retire(f, c[1], true);
    assert_null(pcam_q_find(l, 1));
    retire(f, c[0], true);
    retire(f, c[2], true);
    pcam_ccb *u = sub(f, 5, 6, 0, 0);
    assert_ptr_equal(next(f), u);
    assert_ptr_equal(pcam_q_find(l, -1), u);
    assert_null(pcam_q_find(l, 0)); /* untagged has no tag 0 */
}

/* After a scan that found nothing, the scheduler does not look again until
 * something is touched: a freeze dropped behind its back stays unseen, the
 * same drop through the touch is seen. */
static void scan_only_after_touch(void **state)
{
    fx *f = *state;
    pcam_lun *l0 = lun_of(f, 0, 0);
    l0->q.freeze = 1;
    pcam_ccb *a = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE); /* submitting touches */
    assert_null(pcam_q_next(&f->bus, clock_ns));
    l0->q.freeze = 0;                                 /* behind its back */
    assert_null(pcam_q_next(&f->bus, clock_ns));
    pcam_q_touch(&f->bus);
    assert_ptr_equal(pcam_q_next(&f->bus, clock_ns), a);
    ok(f);
}

/* Holds, freezes and blocked targets keep a LUN out of issue; next_hold
 * reports the earliest future hold of a LUN with work. */
static void holds_and_freezes(void **state)
{
    fx *f = *state;
    clock_ns = 1000;
    assert_int_equal(pcam_q_next_hold(&f->bus), UINT64_MAX);
    pcam_lun *l0 = lun_of(f, 0, 0);
    pcam_ccb *a = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *b = sub(f, 1, 1, 0, PCAM_TAG_SIMPLE);
    l0->q.hold_until_ns = 5000;
    b->priv.hold_until_ns = 3000;
    lun_of(f, 2, 0)->q.hold_until_ns = 2000; /* no work: does not count */
    assert_int_equal(pcam_q_next_hold(&f->bus), 3000);
    assert_null(next(f));
    clock_ns = 3000;
    assert_int_equal(pcam_q_next_hold(&f->bus), 5000);
    assert_ptr_equal(next(f), b);
    assert_int_equal(pcam_q_next_hold(&f->bus), 5000);
    l0->q.freeze = 1;
    assert_int_equal(pcam_q_next_hold(&f->bus), UINT64_MAX);
    clock_ns = 5000;
    assert_null(next(f));
    l0->q.freeze = 0;
    f->bus.targets[0].dev.flags |= PCAM_TGTF_BLOCKED;
    assert_null(next(f));
    f->bus.targets[0].dev.flags &= (uint8_t)~PCAM_TGTF_BLOCKED;
    assert_ptr_equal(next(f), a);
}

/* The checker finds each kind of damage. */
static void check_catches_corruption(void **state)
{
    fx *f = *state;
    pcam_lun *l = lun_of(f, 0, 0);
    pcam_ccb *c[3];
    for (unsigned i = 0; i < 3; i++) {
        c[i] = sub(f, i, 0, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), c[i]);
    }
    pcam_ccb *p = sub(f, 3, 0, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *h = sub(f, 4, 0, 0, PCAM_TAG_HEAD_OF_QUEUE);
    assert_null(pcam_q_check(&f->bus, l));
    assert_string_equal(pcam_q_check(NULL, l), "no bus");

#define EXPECT(msg) assert_string_equal(pcam_q_check(&f->bus, NULL), msg)
    c[1]->priv.prev = NULL;
    EXPECT("queue back link broken");
    c[1]->priv.prev = c[0];
    l->q.active.count = 4;
    EXPECT("queue shorter than its count");
    l->q.active.count = 2;
    EXPECT("queue longer than its count (or cyclic)");
    l->q.active.count = 3;
    c[2]->priv.next = c[0]; /* a cycle: must be reported, not followed */
    EXPECT("queue longer than its count (or cyclic)");
    c[2]->priv.next = NULL;
    l->q.active.tail = c[1];
    EXPECT("queue tail is not its last CCB");
    l->q.active.tail = c[2];
    assert_null(pcam_q_check(&f->bus, NULL));

    c[2]->priv.tag = 0;
    EXPECT("two active CCBs share a tag");
    c[2]->priv.tag = 9;
    EXPECT("active tag not marked in the bitmap");
    c[2]->priv.tag = 2;
    l->q.tags_in_use[1] |= 1u;
    EXPECT("tag marked in use with no active owner");
    l->q.tags_in_use[1] = 0;
    c[1]->priv.tag_msg = 0;
    EXPECT("active untagged count wrong");
    l->q.active_untagged = 1;
    EXPECT("untagged and tagged CCBs active together");
    l->q.active_untagged = 0;
    c[1]->priv.tag_msg = 0x23;
    EXPECT("active CCB with a bad tag message");
    c[1]->priv.tag_msg = PCAM_TAG_SIMPLE;
    c[1]->priv.state = PCAM_CS_PENDING;
    EXPECT("active CCB not in ACTIVE state");
    c[1]->priv.state = PCAM_CS_ACTIVE;
    c[1]->lun = 1;
    EXPECT("active CCB on another path's LUN");
    c[1]->lun = 0;
    f->bus.targets[0].q.active = 2;
    EXPECT("target active count is not the sum of its LUNs'");
    f->bus.targets[0].q.active = 3;

    /* Pending: HEAD OF QUEUE behind an ordinary command. */
    assert_ptr_equal(l->q.pending.head, h);
    pcam_ccbq_remove(&l->q.pending, h);
    pcam_ccbq_push_tail(&l->q.pending, h);
    EXPECT("pending queue out of order (requeued, HEAD OF QUEUE, FIFO)");
    pcam_ccbq_remove(&l->q.pending, h);
    pcam_ccbq_push_head(&l->q.pending, h);
    p->priv.state = PCAM_CS_DONE;
    EXPECT("pending CCB not in PENDING state");
    p->priv.state = PCAM_CS_PENDING;
    l->q.depth = 0;
    EXPECT("LUN depth out of range");
    l->q.depth = 32;
    assert_null(pcam_q_check(&f->bus, NULL));
#undef EXPECT
}

/*
 * Work left only on a target per-bus aging holds back waits for the next
 * look, which the engine ticks for (pcam_q_throttled() is set): neither the
 * issue that leaves it so nor a completion touches the queues, so the
 * kicks in between answer without reading the clock. (Settings: slack
 * 32 / 8 + 1 = 5, owed past 250 ms; a look 250 ms + 1 ns after one that
 * holds a target.)
 *   t=0    X0 issued (0 has 1), the first look (target 0 alone) at 0;
 *          7 issues to target 1 (1 has 7).
 *   t=300  a1, a2 submitted. Look: 0 owed (300 ms) with 1; 7 > 1 + 5
 *          holds 1; a2 issued. Only a1 is pending, held: untouched.
 *          a2 retired (2 is not owed): still untouched, nothing goes; the
 *          next look is due at 550 ms + 1 ns, and a tick 1 ns early does
 *          nothing.
 *   t=550  X0 retired: 0, owed, has nothing left, so the look is due at
 *          once; still untouched. The tick looks (nobody owed: released,
 *          touched), and a1 goes.
 */
static void held_work_waits_for_the_look_untouched(void **state)
{
    fx *f = *state;
    pcam_ccb *x0 = sub(f, 0, 0, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), x0);
    for (unsigned i = 0; i < 7; i++) {
        pcam_ccb *b = sub(f, 10 + i, 1, 0, PCAM_TAG_SIMPLE);
        assert_ptr_equal(next(f), b);
        retire(f, b, true);
    }
    clock_ns = PCAM_MS(300);
    pcam_ccb *a1 = sub(f, 1, 1, 0, PCAM_TAG_SIMPLE);
    pcam_ccb *a2 = sub(f, 2, 2, 0, PCAM_TAG_SIMPLE);
    assert_ptr_equal(next(f), a2);
    assert_int_equal(pcam_q_throttled(&f->bus), 0x0002);
    assert_false(pcam_q_dirty(&f->bus));
    retire(f, a2, true);
    assert_false(pcam_q_dirty(&f->bus));
    assert_null(pcam_q_next(&f->bus, clock_ns));
    uint64_t look = PCAM_MS(300) + PCAM_MS(500) / 2u + 1u;
    assert_int_equal(pcam_q_age_next_ns(&f->bus), look);
    clock_ns = look - 1u;
    pcam_q_tick(&f->bus, clock_ns);
    assert_false(pcam_q_dirty(&f->bus));
    assert_int_equal(pcam_q_throttled(&f->bus), 0x0002);
    retire(f, x0, true);
    assert_false(pcam_q_dirty(&f->bus));
    assert_int_equal(pcam_q_age_next_ns(&f->bus), 0);
    pcam_q_tick(&f->bus, clock_ns);
    assert_true(pcam_q_dirty(&f->bus));
    assert_int_equal(pcam_q_throttled(&f->bus), 0);
    assert_ptr_equal(pcam_q_next(&f->bus, clock_ns), a1);
    ok(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(tags_cycle_through_all, setup, teardown),
        cmocka_unit_test_setup_teardown(tags_never_reused_while_in_use, setup, teardown),
        cmocka_unit_test_setup_teardown(tags_exhausted, setup, teardown),
        cmocka_unit_test_setup_teardown(untagged_waits_and_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(one_untagged_at_a_time, setup, teardown),
        cmocka_unit_test_setup_teardown(untagged_by_target_or_lun, setup, teardown),
        cmocka_unit_test_setup_teardown(head_of_queue_order, setup, teardown),
        cmocka_unit_test_setup_teardown(requeue_keeps_issue_order, setup, teardown),
        cmocka_unit_test_setup_teardown(queue_full_and_ramp, setup, teardown),
        cmocka_unit_test_setup_teardown(queue_full_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(queue_full_floor_higher, setup, teardown),
        cmocka_unit_test_setup_teardown(find_by_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(scan_only_after_touch, setup, teardown),
        cmocka_unit_test_setup_teardown(holds_and_freezes, setup, teardown),
        cmocka_unit_test_setup_teardown(check_catches_corruption, setup, teardown),
        cmocka_unit_test_setup_teardown(held_work_waits_for_the_look_untouched, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
