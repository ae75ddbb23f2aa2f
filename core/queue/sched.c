/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bus scheduler: which LUN's head command goes out next. Round-robin
 * over targets and, within a target, over LUNs, so issue is fair; with
 * aging on, two guards against starvation:
 *  - per LUN: a command the target keeps overtaking (by count of later
 *    issues, or by age) gets an ORDERED tag sent after it, which forces the
 *    target to finish it first;
 *  - per bus: SCSI arbitration always lets the highest-priority ID win, so
 *    a low-priority target with deep queues elsewhere on the bus may never
 *    get to reselect. A target whose oldest command is past bus_starve_ms
 *    is served first, and every target that beats it in arbitration while
 *    waiting much less gets no new work until the waits even out (see
 *    evaluate_aging).
 */
#include "queue_int.h"

/* Can the head of this LUN's pending queue go out now? Only the head is
 * ever considered, so nothing overtakes a command that has to wait. */
static bool lun_ready(const pcam_bus *bus, uint8_t t, const pcam_lun *lun, uint64_t now,
                      bool *tagged)
{
    const pcam_ccb *h = lun->q.pending.head;
    if (h == NULL || lun->q.freeze != 0)
        return false;
    /* BUSY / NOT READY delays: the LUN's and the head command's own. */
    if (now < lun->q.hold_until_ns || now < h->priv.hold_until_ns)
        return false;
    /* The answer issue() needs too: nothing changes in between. */
    *tagged = pcam_q_wants_tag(bus, t, lun, h);
    if (*tagged) {
        /* Tagged: never beside an untagged command, within the depth, and
         * with a tag free (depth is clamped to the tag count, the second
         * test only guards a depth set past it from outside). */
        return lun->q.active_untagged == 0 && lun->q.active.count < lun->q.depth &&
               lun->q.active.count < PCAM_TAGS;
    }
    /* Untagged: SCSI allows no other task beside an untagged one on the
     * LUN (a reselection without a tag could not say which it is), so it
     * waits for the LUN to drain; being the head it also holds back every
     * tagged command behind it, so they cannot starve it. */
    return lun->q.active.count == 0;
}

/* The issue number the LUN's next command gets; 0 is skipped because it
 * marks a CCB that was never issued. */
static uint32_t next_issue(const pcam_lun *lun)
{
    uint32_t n = lun->q.issue_count + 1u;
    return n == 0 ? 1u : n;
}

/*
 * Per-LUN aging: the tag message a tagged command numbered `seq` goes out
 * with. lun->q.age_fence is the issue number of the latest ORDERED command
 * sent (asked or forced): every command issued up to it must finish before
 * anything after the barrier runs, so it needs no barrier of its own.
 */
static uint8_t age_tag(pcam_bus *bus, uint8_t t, uint8_t l, pcam_lun *lun, uint8_t msg,
                       uint8_t tag, uint32_t seq, uint64_t now)
{
    const pcam_bus_config *c = &bus->cfg;
    const pcam_ccb *old = lun->q.active.head; /* issued first, still outstanding */
    if (old == NULL) {
        /* Nothing outstanding, nothing to fence; moving the fence up keeps
         * it within the wrap window of the issue numbers. */
        lun->q.age_fence = seq - 1u;
        return msg;
    }
    if (msg == PCAM_TAG_ORDERED) {
        /* Asked for ORDERED anyway: that barrier fences everything before it. */
        lun->q.age_fence = seq;
        return msg;
    }
    if (!c->aging_enabled || !pcam_q_seq_before(lun->q.age_fence, old->priv.seq))
        return msg;
    /* HEAD OF QUEUE is a request to overtake; as a barrier it would defeat
     * its purpose, so the next SIMPLE one carries the fence instead. */
    if (msg == PCAM_TAG_HEAD_OF_QUEUE)
        return msg;
    /* A zero threshold turns that form of aging off rather than ordering
     * every command. */
    bool by_count = c->age_count != 0 && lun->q.issue_count - old->priv.seq >= c->age_count;
    bool by_time = c->age_ms != 0 && now > old->priv.queued_ns &&
                   now - old->priv.queued_ns > PCAM_MS(c->age_ms);
    if (!by_count && !by_time)
        return msg;
    /* Once per oldest command: one barrier is enough to make the target
     * finish it; more would only serialise the queue. */
    lun->q.age_fence = seq;
    PCAM_COUNT(bus->targets[t], ordered_forced);
    pcam_core_event(bus, PCAM_EV_ORDERED, t, l, tag);
    return PCAM_TAG_ORDERED;
}

/* Move the head of a ready LUN to its active queue with its tag chosen
 * (`tagged`: lun_ready's answer for it). */
static pcam_ccb *issue(pcam_bus *bus, uint8_t t, uint8_t l, pcam_lun *lun, uint64_t now,
                       bool tagged)
{
    pcam_ccb *ccb = pcam_ccbq_pop_head(&lun->q.pending);
    uint32_t seq = next_issue(lun);
    uint8_t msg = 0;
    uint8_t tag = 0;
    if (tagged) {
        int got = pcam_q_tag_alloc(lun);
        if (got < 0) {
            /* Cannot happen while the bitmap matches the active queue; if it
             * does, leave the command where it was rather than reuse a tag. */
            pcam_ccbq_push_head(&lun->q.pending, ccb);
            return NULL;
        }
        tag = (uint8_t)got;
        msg = age_tag(bus, t, l, lun, pcam_q_asked_tag_msg(ccb), tag, seq, now);
    } else {
        lun->q.active_untagged++;
    }
    lun->q.issue_count = seq;
    ccb->priv.seq = seq;
    ccb->priv.tag = tag;
    ccb->priv.tag_msg = msg;
    ccb->priv.state = PCAM_CS_ACTIVE;
    pcam_ccbq_push_tail(&lun->q.active, ccb);
    if (msg != 0)
        pcam_q_index_add(bus, ccb);
    if (lun->q.active.count == 1u) {
        bus->q.act_luns[t & (PCAM_MAX_TARGETS - 1u)] |= pcam_bit64(l & 63u);
        bus->q.act_targets |= (uint16_t)(1u << (t & 15u));
    }
    bus->targets[t].q.active++;
    return ccb;
}

/* Split a hint mask at the round-robin cursor: the bits at or after it
 * come first, then the ones before it, which is the order the cursor
 * visits them in. */
static void split_at(uint64_t mask, unsigned start, uint64_t *first, uint64_t *then)
{
    uint64_t below = start >= 64u ? ~0ull : pcam_bit64(start) - 1u;
    *first = mask & ~below;
    *then = mask & below;
}

/* Issue from one target, its LUNs taken round-robin. Only the LUNs the
 * hint names are visited (a set-bit walk), so the cost is the number of
 * LUNs with pending work, not luns_per_target. */
static pcam_ccb *from_target(pcam_bus *bus, unsigned nt, uint8_t t, uint64_t now)
{
    unsigned lpt = bus->cfg.luns_per_target;
    unsigned start = bus->q.rr_lun[t];
    bool any = false;
    uint64_t mask = bus->q.pend_luns[t];
    uint64_t part[2];
    if (start >= lpt)
        start %= lpt;
    if (lpt < 64u)
        mask &= pcam_bit64(lpt) - 1u; /* LUNs past the storage are never visited */
    split_at(mask, start, &part[0], &part[1]);
    for (unsigned pass = 0; pass < 2u; pass++) {
        for (uint64_t m = part[pass]; m != 0; m &= m - 1u) {
            uint8_t l = (uint8_t)pcam_q_ctz64(m);
            pcam_lun *lun = pcam_core_lun(bus, t, l);
            if (lun == NULL || lun->q.pending.head == NULL) {
                bus->q.pend_luns[t] &= ~pcam_bit64(l); /* the hint is a superset */
                continue;
            }
            any = true;
            bool tagged = false;
            if (!lun_ready(bus, t, lun, now, &tagged))
                continue;
            pcam_ccb *ccb = issue(bus, t, l, lun, now, tagged);
            if (ccb == NULL)
                continue;
            if (lun->q.pending.head == NULL) {
                /* Drained: drop the hints now, so the next look (after the
                 * next completion, say) does not walk to an empty LUN. */
                bus->q.pend_luns[t] &= ~pcam_bit64(l);
                if (bus->q.pend_luns[t] == 0)
                    bus->q.pend_targets &= (uint16_t)~(1u << t);
            }
            bus->q.rr_lun[t] = (uint8_t)(l + 1u < lpt ? l + 1u : 0u);
            bus->q.rr_target = (uint8_t)(t + 1u < nt ? t + 1u : 0u);
            return ccb;
        }
    }
    if (!any) /* the hint is a superset; drop the target once it is empty */
        bus->q.pend_targets &= (uint16_t)~(1u << t);
    return NULL;
}

static bool target_usable(const pcam_bus *bus, unsigned t)
{
    /* Our own ID is never a target; a target in recovery gets nothing new. */
    return t != bus->caps.initiator_id && (bus->targets[t].dev.flags & PCAM_TGTF_BLOCKED) == 0;
}

/* Round-robin over targets from the cursor, skipping the ones per-bus
 * aging holds back; only targets hinted to have pending work are visited. */
static pcam_ccb *round_robin(pcam_bus *bus, unsigned nt, uint64_t now)
{
    unsigned start = bus->q.rr_target;
    uint32_t cand = (uint32_t)bus->q.pend_targets & ~(uint32_t)bus->q.throttled &
                    ((1u << nt) - 1u);
    uint64_t part[2];
    if (start >= nt)
        start %= nt;
    split_at(cand, start, &part[0], &part[1]);
    for (unsigned pass = 0; pass < 2u; pass++) {
        for (uint32_t m = (uint32_t)part[pass]; m != 0; m &= m - 1u) {
            uint8_t t = (uint8_t)pcam_q_ctz32(m);
            if (!target_usable(bus, t))
                continue;
            pcam_ccb *ccb = from_target(bus, nt, t, now);
            if (ccb != NULL)
                return ccb;
        }
    }
    return NULL;
}

/* Behind a head that is HEAD OF QUEUE (so may be newer than what it
 * overtook), the first command that is not: outside HEAD OF QUEUE, issue
 * order is submission order, so that one is the oldest of the rest. The
 * walk stops after PCAM_Q_AGE_WALK such heads, keeping a look O(LUNs) even
 * under a flood of them (a flood the heads' own ages then stand for). */
#define PCAM_Q_AGE_WALK 8u
static const pcam_ccb *hoq_walk(const pcam_ccb *c)
{
    for (unsigned n = 0; c != NULL && n <= PCAM_Q_AGE_WALK; n++, c = c->priv.next)
        if (!pcam_q_is_hoq(c))
            return c;
    return NULL;
}
/* One candidate for a target's oldest: older than the best so far and not
 * one of the slow-by-nature commands (see oldest_of). */
static inline void consider(const pcam_ccb *c, uint64_t long_ms, unsigned l, uint64_t *best,
                            uint8_t *which)
{
    if (c != NULL && c->priv.queued_ns < *best && c->timeout_ms <= long_ms) {
        *best = c->priv.queued_ns;
        *which = (uint8_t)l;
    }
}

/*
 * The target's oldest outstanding command (queued_ns), UINT64_MAX if none.
 * Frozen LUNs are left out, and pending work on held LUNs: those waits are
 * deliberate (recovery, BUSY, upper-layer freeze), not lost arbitration,
 * and counting them could throttle the rest of the bus indefinitely. So are
 * commands with a timeout far above the default (FORMAT, REWIND): they are
 * slow by nature, not starved, and must not hold every other target back.
 * Per queue the head is looked at and, when the head is HEAD OF QUEUE, the
 * first command behind it that is not (issue order is submission order but
 * for HEAD OF QUEUE and the rare requeue), which keeps this O(LUNs).
 */
static uint64_t oldest_of(const pcam_bus *bus, unsigned t, uint64_t now, uint8_t *which)
{
    unsigned lpt = bus->cfg.luns_per_target;
    uint64_t best = UINT64_MAX;
    uint64_t long_ms = (uint64_t)bus->cfg.default_timeout_ms * 4u;
    /* Only LUNs with work: the active mask is exact, the pending one a
     * superset; walked in LUN order so a tie still names the lowest LUN. */
    uint64_t work = bus->q.act_luns[t] | bus->q.pend_luns[t];
    if (lpt < 64u)
        work &= pcam_bit64(lpt) - 1u;
    for (; work != 0; work &= work - 1u) {
        unsigned l = pcam_q_ctz64(work);
        size_t i = (size_t)t * lpt + l;
        if (i >= bus->nluns)
            break;
        const pcam_lun *lun = &bus->luns[i];
        if (lun->q.freeze != 0)
            continue;
        /* The candidates in a fixed order, so a tie keeps the first; written
         * out rather than gathered in an array, which cost a third more. */
        const pcam_ccb *a = lun->q.active.head;
        if (a != NULL) {
            consider(a, long_ms, l, &best, which);
            if (pcam_q_is_hoq(a))
                consider(hoq_walk(a), long_ms, l, &best, which);
        }
        const pcam_ccb *h = lun->q.pending.head;
        if (h != NULL && now >= lun->q.hold_until_ns && now >= h->priv.hold_until_ns) {
            consider(h, long_ms, l, &best, which);
            if (pcam_q_is_hoq(h))
                consider(hoq_walk(h), long_ms, l, &best, which);
        }
    }
    return best;
}

static inline uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A target's issue count as per-bus aging weighs it: counts below the
 * floor of the last look stand for the floor (see evaluate_aging). */
static inline uint32_t raised(const pcam_bus *bus, unsigned t)
{
    uint32_t v = bus->q.issued[t];
    return v < bus->q.issued_floor ? bus->q.issued_floor : v;
}

/* Nobody is owed anything: every count back to 0 (they usually are). */
static void wipe_counts(pcam_bus *bus)
{
    if (bus->q.counted != 0)
        memset(bus->q.issued, 0, sizeof bus->q.issued);
    bus->q.counted = 0;
    bus->q.issued_floor = 0;
}

/*
 * Per-bus aging. SCSI arbitration always lets the higher-priority ID win,
 * so under load the low IDs wait while the high ones are served, however
 * fairly commands are issued. The core counts the commands it recently
 * issued to each target; a target is held back from new work while a
 * target it beats in arbitration is starving (its oldest command waiting
 * past bus_starve_ms / 2) and has been issued clearly fewer commands (by
 * more than an eighth of the queue depth). Held back, the winners drain,
 * the starved target gets the bus, and the counts (hence the shares of the
 * bus) even out. The most starved target past bus_starve_ms is also served
 * first. A look walks every busy target's LUNs, so looks are rationed:
 *  - while a target is held, every bus_starve_ms / 2 (an issue that holds
 *    one brings the look that far forward at the latest): the issues to
 *    owed targets end holds as the counts even out (release_by), so the
 *    look is only for what the counts cannot see, an owed target's old
 *    commands finishing; an owed target left with nothing to do makes it
 *    due at once (pcam_q_retire);
 *  - otherwise when the first oldest command seen crosses bus_starve_ms / 2
 *    or bus_starve_ms, but no sooner than bus_starve_ms / 8 and no later than
 *    bus_starve_ms / 2 (a command submitted since cannot be owed sooner; one
 *    a freeze or hold hid from this look waits at most that long);
 *  - with fewer than two targets busy, every bus_starve_ms / 16.
 */
static int evaluate_aging(pcam_bus *bus, unsigned nt, uint64_t now)
{
    uint64_t limit = PCAM_MS(bus->cfg.bus_starve_ms);
    uint8_t most_lun = 0;
    uint32_t slack = bus->cfg.tag_depth / 8u + 1u;
    int most = -1;
    uint64_t most_age = 0;
    uint16_t held = 0;
    uint16_t owed = 0;
    uint16_t all = (uint16_t)((1u << nt) - 1u);

    /* Busy: commands active (an exact mask) or maybe pending (the hint). */
    uint16_t busy = (uint16_t)((bus->q.act_targets | bus->q.pend_targets) & all);
    if ((busy & (busy - 1u)) == 0) {
        /* One target cannot be starved by another: nothing to even out. */
        bus->q.throttled = 0;
        bus->q.owed = 0;
        bus->q.starving = 0;
        wipe_counts(bus);
        bus->q.age_next_ns = now + limit / 16u + 1u;
        pcam_q_touch(bus); /* targets it held may go now */
        return -1;
    }
    /* Idle targets have age 0; only the busy ones are looked at, so a look
     * costs the LUNs with work, not the size of the bus. */
    uint64_t half = limit / 2u;
    /* When nobody is held, the next look: the first crossing of a threshold
     * (half: owed; limit: starving) by an oldest command seen now, half the
     * threshold from now at the latest. */
    uint64_t due = add_sat(now, half + 1u);
    for (uint32_t m = busy; m != 0; m &= m - 1u) {
        unsigned t = pcam_q_ctz32(m);
        uint8_t l = 0;
        uint64_t old = target_usable(bus, t) ? oldest_of(bus, t, now, &l) : UINT64_MAX;
        uint64_t age = (old == UINT64_MAX || old >= now) ? 0 : now - old;
        if (old != UINT64_MAX && age <= limit) {
            uint64_t at = add_sat(old, (age > half ? limit : half) + 1u);
            if (at < due)
                due = at;
        }
        if (age > half)
            owed |= (uint16_t)(1u << t);
        /* Ties go to the lower arbitration priority: it is the one losing. */
        if (age > limit && (age > most_age ||
                            (age == most_age && most >= 0 &&
                             pcam_q_prio(t) < pcam_q_prio((unsigned)most)))) {
            most = (int)t;
            most_age = age;
            most_lun = l;
        }
    }
    /* Only targets whose oldest command waits past half the threshold are
     * owed anything; the others may not bank credit while they idle, and
     * when nobody is owed anything the slate is wiped. */
    uint32_t floor = UINT32_MAX;
    for (uint32_t m = owed; m != 0; m &= m - 1u) {
        unsigned t = pcam_q_ctz32(m);
        uint32_t v = raised(bus, t);
        bus->q.issued[t] = v; /* compared as it is below and in counted() */
        if (v < floor)
            floor = v;
    }
    /* Only a target issued more than floor + slack can be held (the least
     * count it is compared with is never below the floor): note those. */
    uint32_t over = 0;
    if (floor == UINT32_MAX) {
        wipe_counts(bus);
    } else {
        /* Every count is raised to the floor (the floor only grows: each
         * owed count was at least the last one), but lazily: issued_floor
         * stands in for any count below it, so a look visits only the
         * targets issued to since the wipe, not every ID of the bus. A
         * target that was not has a count of at most the floor. */
        bus->q.issued_floor = floor;
        uint64_t top = (uint64_t)floor + slack;
        for (uint32_t m = bus->q.counted; m != 0; m &= m - 1u) {
            unsigned t = pcam_q_ctz32(m);
            if ((uint64_t)bus->q.issued[t] > top)
                over |= 1u << t;
        }
    }
    /* x is held when some owed y it beats in arbitration was issued more
     * than `slack` fewer: walking up the arbitration order with the least
     * count among the owed targets passed so far answers that for every x
     * in one pass. Only owed targets and those over the floor are visited:
     * bit p of `ranks` is the target of arbitration rank p (IDs 8-15 rank
     * below 0-7). */
    uint64_t least_below = UINT64_MAX; /* none passed yet */
    uint32_t visit = (owed | over) & 0xFFFFu;
    uint32_t ranks = ((visit & 0xFFu) << 8) | (visit >> 8);
    for (uint32_t m = ranks; m != 0; m &= m - 1u) {
        unsigned p = pcam_q_ctz32(m);
        unsigned x = p < 8u ? p + 8u : p - 8u; /* the ID of arbitration rank p */
        if (least_below != UINT64_MAX && (uint64_t)bus->q.issued[x] > least_below + slack)
            held |= (uint16_t)(1u << x);
        if ((owed & (1u << x)) != 0 && bus->q.issued[x] < least_below)
            least_below = bus->q.issued[x];
    }
    for (uint32_t m = held & ~(uint32_t)bus->q.throttled; m != 0; m &= m - 1u)
        PCAM_COUNT(bus->targets[pcam_q_ctz32(m)], bus_holds);
    bus->q.throttled = held;
    pcam_q_touch(bus);
    bus->q.owed = owed;
    /* The schedule above; a held target waits for its look (the engine
     * wakes for it). */
    uint64_t soonest = now + limit / 8u + 1u;
    bus->q.age_next_ns = held != 0 ? now + limit / 2u + 1u : (due > soonest ? due : soonest);
    if (most < 0) {
        bus->q.starving = 0;
    } else if (bus->q.starving != (uint8_t)(most + 1)) {
        /* Count and log an episode once, not on every evaluation. */
        bus->q.starving = (uint8_t)(most + 1);
        PCAM_COUNT(bus->targets[most], starve_boosts);
        uint64_t ms = most_age / 1000000u; /* once an episode: the one 64-bit division */
        pcam_core_event(bus, PCAM_EV_STARVE, (uint8_t)most, most_lun,
                        ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms);
    }
    return most;
}

/* The targets `x` beats in arbitration: for x in 0-7 the IDs below it and
 * all of 8-15, for x in 8-15 the IDs 8 up to x. */
static inline uint32_t beaten_by(unsigned x)
{
    uint32_t below = (1u << (x & 15u)) - 1u;
    return x < 8u ? (below | 0xFF00u) : (below & 0xFF00u);
}

/* An issue to owed target x raised its count to v: a target held because
 * it outnumbered x goes at once if no owed target it beats is still more
 * than the slack below it, instead of waiting for the next look. Between
 * looks the owed set is fixed and counts only grow, so every hold has a
 * reason (an owed target it beats, more than the slack below it) until
 * the issue that takes the last one away: only a held count of exactly
 * v + slack, which x stood below until now, can have lost one here. */
static void release_by(pcam_bus *bus, unsigned x, uint32_t v, uint32_t slack)
{
    uint64_t top = (uint64_t)v + slack;
    for (uint32_t m = bus->q.throttled; m != 0; m &= m - 1u) {
        unsigned h = pcam_q_ctz32(m);
        if ((uint64_t)bus->q.issued[h] != top || ((beaten_by(h) >> x) & 1u) == 0)
            continue;
        bool still = false;
        for (uint32_t o = bus->q.owed & beaten_by(h); o != 0 && !still; o &= o - 1u)
            still = (uint64_t)bus->q.issued[pcam_q_ctz32(o)] + slack < bus->q.issued[h];
        if (!still)
            bus->q.throttled &= (uint16_t)~(1u << h);
    }
}

/* Count an issue; if it went to an owed target, end the holds it evens
 * out; hold its target back at once if that takes it past an owed target
 * it beats in arbitration: waiting for the next evaluation would let it
 * overshoot by a whole evaluation period. */
static pcam_ccb *counted(pcam_bus *bus, pcam_ccb *ccb, uint64_t now)
{
    if (ccb == NULL)
        return NULL;
    unsigned x = ccb->target & 15u;
    uint32_t v = raised(bus, x);
    if (v < UINT32_MAX)
        v++;
    bus->q.issued[x] = v;
    bus->q.counted |= (uint16_t)(1u << x);
    uint32_t slack = bus->cfg.tag_depth / 8u + 1u;
    if ((bus->q.owed & (1u << x)) != 0 && bus->q.throttled != 0)
        release_by(bus, x, v, slack);
    /* Every owed count is at least the floor and only grows: within the
     * floor's slack, x beats none of them (the usual case, no walk). */
    if ((uint64_t)v <= (uint64_t)bus->q.issued_floor + slack)
        return ccb;
    for (uint32_t m = bus->q.owed & beaten_by(x); m != 0; m &= m - 1u) {
        unsigned y = pcam_q_ctz32(m);
        if (bus->q.issued[x] > bus->q.issued[y] + slack) {
            if ((bus->q.throttled & (1u << x)) == 0) {
                PCAM_COUNT(bus->targets[x], bus_holds);
                /* Held now: its look no later than the hold cadence
                 * (nobody was held, so it may have been due later). */
                uint64_t by = now + PCAM_MS(bus->cfg.bus_starve_ms) / 2u + 1u;
                if (by < bus->q.age_next_ns)
                    bus->q.age_next_ns = by;
            }
            bus->q.throttled |= (uint16_t)(1u << x);
            break;
        }
    }
    return ccb;
}

void pcam_q_tick(pcam_bus *bus, uint64_t now)
{
    unsigned nt = pcam_q_ntargets(bus);
    if (nt == 0 || !bus->cfg.aging_enabled || bus->cfg.bus_starve_ms == 0)
        return;
    if (now >= bus->q.age_next_ns)
        evaluate_aging(bus, nt, now);
}

/* After an issue with per-bus aging on: nothing hinted is left that may
 * go without a look, so the next call would find nothing until something
 * is touched (a submission, a completion with work pending, a released
 * freeze or hold, a tick) or a look falls due, and may wait for the
 * touch when the look cannot be missed: with one target busy there is
 * nothing to weigh; with a target held, the engine ticks at the look's
 * time (pcam_q_throttled()) and the tick touches. Otherwise the next call
 * still looks when the look is due: waiting for the next submission
 * instead moves every later look (the file-server mix of scripts/bench.sh
 * loses 0.3% of its IOPS at the default seed, though not on average over
 * seeds). */
static bool settled(const pcam_bus *bus)
{
    uint32_t busy = (uint32_t)(bus->q.act_targets | bus->q.pend_targets);
    return (bus->q.pend_targets & (uint16_t)~bus->q.throttled) == 0 &&
           (bus->q.throttled != 0 || (busy & (busy - 1u)) == 0);
}

pcam_ccb *pcam_q_next(pcam_bus *bus, uint64_t now)
{
    if (!bus->q.dirty)
        return NULL;
    /* Nothing hinted that may go and no look due: the full path would find
     * the same nothing (a target without its hint bit has no LUN bits). */
    if (bus->cfg.aging_enabled && bus->cfg.bus_starve_ms != 0 && now < bus->q.age_next_ns &&
        (bus->q.pend_targets & (uint16_t)~bus->q.throttled) == 0) {
        bus->q.dirty = 0;
        return NULL;
    }
    unsigned nt = pcam_q_ntargets(bus);
    if (nt == 0)
        return NULL;
    /* A zero threshold means per-bus aging is off (it would hold back everyone). */
    if (!bus->cfg.aging_enabled || bus->cfg.bus_starve_ms == 0) {
        bus->q.throttled = 0;
        bus->q.owed = 0;
        bus->q.starving = 0;
        pcam_ccb *plain = round_robin(bus, nt, now);
        if (plain == NULL || bus->q.pend_targets == 0)
            bus->q.dirty = 0;
        return plain;
    }
    if (now >= bus->q.age_next_ns)
        evaluate_aging(bus, nt, now);
    /* The starving target first, if it may have work to issue: once its
     * queue is drained it usually stays starving (its oldest command is
     * still out) and asking it again would find nothing. */
    pcam_ccb *ccb = NULL;
    if (bus->q.starving != 0 &&
        ((bus->q.pend_targets & ~bus->q.throttled) & (1u << (bus->q.starving - 1u))) != 0 &&
        target_usable(bus, bus->q.starving - 1u))
        ccb = from_target(bus, nt, (uint8_t)(bus->q.starving - 1u), now);
    /* A held target waits for the next evaluation, which the engine's next
     * deadline includes while anything is held, so it cannot be forgotten. */
    if (ccb == NULL)
        ccb = round_robin(bus, nt, now);
    /* Counted before settled() asks: the count may hold the target. */
    ccb = counted(bus, ccb, now);
    if (ccb == NULL || settled(bus))
        bus->q.dirty = 0; /* nothing issuable until something changes */
    return ccb;
}

uint64_t pcam_q_next_hold(const pcam_bus *bus)
{
    uint64_t now = bus->plat.now_ns != NULL ? pcam_core_now(bus) : 0;
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; bus->luns != NULL && i < bus->nluns; i++) {
        const pcam_lun *lun = &bus->luns[i];
        const pcam_ccb *h = lun->q.pending.head;
        /* A frozen LUN is released by an explicit call that kicks the
         * engine; waking for its hold would find nothing to do. */
        if (h == NULL || lun->q.freeze != 0)
            continue;
        uint64_t at = lun->q.hold_until_ns > h->priv.hold_until_ns ? lun->q.hold_until_ns
                                                                  : h->priv.hold_until_ns;
        if (at > now && at < best)
            best = at;
    }
    return best;
}
