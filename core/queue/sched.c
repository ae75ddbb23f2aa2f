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
 *    is served first and every target that would beat it in arbitration
 *    gets no new work until it has caught up.
 */
#include "queue_int.h"

/* Can the head of this LUN's pending queue go out now? Only the head is
 * ever considered, so nothing overtakes a command that has to wait. */
static bool lun_ready(const pcam_bus *bus, uint8_t t, const pcam_lun *lun, uint64_t now)
{
    const pcam_ccb *h = lun->pending.head;
    if (h == NULL || lun->freeze != 0)
        return false;
    /* BUSY / NOT READY delays: the LUN's and the head command's own. */
    if (now < lun->hold_until_ns || now < h->priv.hold_until_ns)
        return false;
    if (pcam_q_wants_tag(bus, t, lun, h)) {
        /* Tagged: never beside an untagged command, within the depth, and
         * with a tag free (depth is clamped to the tag count, the second
         * test only guards a depth set past it from outside). */
        return lun->active_untagged == 0 && lun->active.count < lun->depth &&
               lun->active.count < PCAM_TAGS;
    }
    /* Untagged: SCSI allows no other task beside an untagged one on the
     * LUN (a reselection without a tag could not say which it is), so it
     * waits for the LUN to drain; being the head it also holds back every
     * tagged command behind it, so they cannot starve it. */
    return lun->active.count == 0;
}

/* The issue number the LUN's next command gets; 0 is skipped because it
 * marks a CCB that was never issued. */
static uint32_t next_issue(const pcam_lun *lun)
{
    uint32_t n = lun->issue_count + 1u;
    return n == 0 ? 1u : n;
}

/*
 * Per-LUN aging: the tag message a tagged command numbered `seq` goes out
 * with. lun->age_fence is the issue number of the latest ORDERED command
 * sent (asked or forced): every command issued up to it must finish before
 * anything after the barrier runs, so it needs no barrier of its own.
 */
static uint8_t age_tag(pcam_bus *bus, uint8_t t, uint8_t l, pcam_lun *lun, uint8_t msg,
                       uint8_t tag, uint32_t seq, uint64_t now)
{
    const pcam_bus_config *c = &bus->cfg;
    const pcam_ccb *old = lun->active.head; /* issued first, still outstanding */
    if (old == NULL) {
        /* Nothing outstanding, nothing to fence; moving the fence up keeps
         * it within the wrap window of the issue numbers. */
        lun->age_fence = seq - 1u;
        return msg;
    }
    if (msg == PCAM_TAG_ORDERED) {
        /* Asked for ORDERED anyway: that barrier fences everything before it. */
        lun->age_fence = seq;
        return msg;
    }
    if (!c->aging_enabled || !pcam_q_seq_before(lun->age_fence, old->priv.seq))
        return msg;
    /* HEAD OF QUEUE is a request to overtake; as a barrier it would defeat
     * its purpose, so the next SIMPLE one carries the fence instead. */
    if (msg == PCAM_TAG_HEAD_OF_QUEUE)
        return msg;
    /* A zero threshold turns that form of aging off rather than ordering
     * every command. */
    bool by_count = c->age_count != 0 && lun->issue_count - old->priv.seq >= c->age_count;
    bool by_time = c->age_ms != 0 && now > old->priv.queued_ns &&
                   now - old->priv.queued_ns > PCAM_MS(c->age_ms);
    if (!by_count && !by_time)
        return msg;
    /* Once per oldest command: one barrier is enough to make the target
     * finish it; more would only serialise the queue. */
    lun->age_fence = seq;
    bus->targets[t].counters.ordered_forced++;
    pcam_core_event(bus, PCAM_EV_ORDERED, t, l, tag);
    return PCAM_TAG_ORDERED;
}

/* Move the head of a ready LUN to its active queue with its tag chosen. */
static pcam_ccb *issue(pcam_bus *bus, uint8_t t, uint8_t l, pcam_lun *lun, uint64_t now)
{
    pcam_ccb *ccb = pcam_ccbq_pop_head(&lun->pending);
    uint32_t seq = next_issue(lun);
    uint8_t msg = 0;
    uint8_t tag = 0;
    if (pcam_q_wants_tag(bus, t, lun, ccb)) {
        int got = pcam_q_tag_alloc(lun);
        if (got < 0) {
            /* Cannot happen while the bitmap matches the active queue; if it
             * does, leave the command where it was rather than reuse a tag. */
            pcam_ccbq_push_head(&lun->pending, ccb);
            return NULL;
        }
        tag = (uint8_t)got;
        msg = age_tag(bus, t, l, lun, pcam_q_asked_tag_msg(ccb), tag, seq, now);
    } else {
        lun->active_untagged++;
    }
    lun->issue_count = seq;
    ccb->priv.seq = seq;
    ccb->priv.tag = tag;
    ccb->priv.tag_msg = msg;
    ccb->priv.state = PCAM_CS_ACTIVE;
    pcam_ccbq_push_tail(&lun->active, ccb);
    bus->targets[t].active++;
    return ccb;
}

/* Issue from one target, its LUNs taken round-robin. */
static pcam_ccb *from_target(pcam_bus *bus, unsigned nt, uint8_t t, uint64_t now)
{
    unsigned lpt = bus->cfg.luns_per_target;
    unsigned start = bus->q_rr_lun[t] % lpt;
    for (unsigned j = 0; j < lpt; j++) {
        uint8_t l = (uint8_t)((start + j) % lpt);
        pcam_lun *lun = pcam_core_lun(bus, t, l);
        if (lun == NULL || !lun_ready(bus, t, lun, now))
            continue;
        pcam_ccb *ccb = issue(bus, t, l, lun, now);
        if (ccb == NULL)
            continue;
        bus->q_rr_lun[t] = (uint8_t)((l + 1u) % lpt);
        bus->rr_target = (uint8_t)((t + 1u) % nt);
        return ccb;
    }
    return NULL;
}

static bool target_usable(const pcam_bus *bus, unsigned t)
{
    /* Our own ID is never a target; a target in recovery gets nothing new. */
    return t != bus->caps.initiator_id && (bus->targets[t].flags & PCAM_TGTF_BLOCKED) == 0;
}

/* Round-robin over targets from the cursor. With a starving target, only
 * targets that lose arbitration to it (rank below `below`) may get work. */
static pcam_ccb *round_robin(pcam_bus *bus, unsigned nt, unsigned below, uint64_t now)
{
    unsigned start = bus->rr_target % nt;
    for (unsigned i = 0; i < nt; i++) {
        uint8_t t = (uint8_t)((start + i) % nt);
        if (!target_usable(bus, t) || pcam_q_prio(t) >= below)
            continue;
        pcam_ccb *ccb = from_target(bus, nt, t, now);
        if (ccb != NULL)
            return ccb;
    }
    return NULL;
}

/*
 * The target's oldest outstanding command (queued_ns), UINT64_MAX if none.
 * Frozen LUNs are left out, and pending work on held LUNs: those waits are
 * deliberate (recovery, BUSY, upper-layer freeze), not lost arbitration,
 * and counting them could throttle the rest of the bus indefinitely.
 */
static uint64_t oldest_of(const pcam_bus *bus, unsigned t, uint64_t now, uint8_t *which)
{
    unsigned lpt = bus->cfg.luns_per_target;
    uint64_t best = UINT64_MAX;
    for (unsigned l = 0; l < lpt; l++) {
        size_t i = (size_t)t * lpt + l;
        if (i >= bus->nluns)
            break;
        const pcam_lun *lun = &bus->luns[i];
        if (lun->freeze != 0)
            continue;
        /* Issue order is not age order (requeues, HEAD OF QUEUE), and the
         * active queue is bounded by the depth: look at all of it. */
        for (const pcam_ccb *c = lun->active.head; c != NULL; c = c->priv.next) {
            if (c->priv.queued_ns < best) {
                best = c->priv.queued_ns;
                *which = (uint8_t)l;
            }
        }
        const pcam_ccb *h = lun->pending.head;
        if (h == NULL || now < lun->hold_until_ns || now < h->priv.hold_until_ns)
            continue;
        /* Requeued and HEAD OF QUEUE CCBs sit in front in their own order;
         * behind them the queue is FIFO, so its first CCB is its oldest. */
        for (const pcam_ccb *c = h; c != NULL; c = c->priv.next) {
            if (c->priv.queued_ns < best) {
                best = c->priv.queued_ns;
                *which = (uint8_t)l;
            }
            if (c->priv.seq == 0 && !pcam_q_is_hoq(c))
                break;
        }
    }
    return best;
}

/* The starving target (oldest command past bus_starve_ms), or -1. */
static int find_starving(const pcam_bus *bus, unsigned nt, uint64_t now, uint64_t *age,
                         uint8_t *lun_out)
{
    uint64_t limit = PCAM_MS(bus->cfg.bus_starve_ms);
    uint64_t best = UINT64_MAX;
    int who = -1;
    /* Visit IDs lowest arbitration priority first, so that on a tie the one
     * that loses arbitration to the other wins the boost. */
    for (unsigned rank = 0; rank < PCAM_MAX_TARGETS; rank++) {
        unsigned t = rank < 8u ? rank + 8u : rank - 8u; /* inverse of pcam_q_prio */
        if (t >= nt || !target_usable(bus, t))
            continue;
        uint8_t l = 0;
        uint64_t old = oldest_of(bus, t, now, &l);
        if (old == UINT64_MAX || now <= old || now - old <= limit || old >= best)
            continue;
        best = old;
        who = (int)t;
        *age = now - old;
        *lun_out = l;
    }
    return who;
}

pcam_ccb *pcam_q_next(pcam_bus *bus, uint64_t now)
{
    unsigned nt = pcam_q_ntargets(bus);
    if (nt == 0)
        return NULL;
    int s = -1;
    uint64_t age = 0;
    uint8_t slun = 0;
    /* A zero threshold means per-bus aging is off (it would boost everyone). */
    if (bus->cfg.aging_enabled && bus->cfg.bus_starve_ms != 0)
        s = find_starving(bus, nt, now, &age, &slun);
    if (s < 0) {
        bus->q_starving = 0;
        return round_robin(bus, nt, PCAM_MAX_TARGETS, now);
    }
    if (bus->q_starving != (uint8_t)(s + 1)) {
        /* Count and log an episode once, not on every scheduling pass. */
        bus->q_starving = (uint8_t)(s + 1);
        bus->targets[s].counters.starve_boosts++;
        uint64_t ms = age / 1000000u;
        pcam_core_event(bus, PCAM_EV_STARVE, (uint8_t)s, slun,
                        ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms);
    }
    pcam_ccb *ccb = from_target(bus, nt, (uint8_t)s, now);
    if (ccb != NULL)
        return ccb;
    /* Nothing issuable there (depth, drain, freeze): lower-priority targets
     * may still go, they do not beat the starving one in arbitration. */
    return round_robin(bus, nt, pcam_q_prio((unsigned)s), now);
}

uint64_t pcam_q_next_hold(const pcam_bus *bus)
{
    uint64_t now = bus->plat.now_ns != NULL ? pcam_core_now(bus) : 0;
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; bus->luns != NULL && i < bus->nluns; i++) {
        const pcam_lun *lun = &bus->luns[i];
        const pcam_ccb *h = lun->pending.head;
        /* A frozen LUN is released by an explicit call that kicks the
         * engine; waking for its hold would find nothing to do. */
        if (h == NULL || lun->freeze != 0)
            continue;
        uint64_t at = lun->hold_until_ns > h->priv.hold_until_ns ? lun->hold_until_ns
                                                                  : h->priv.hold_until_ns;
        if (at > now && at < best)
            best = at;
    }
    return best;
}
