/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-LUN tag queues: submission order, the tag allocator, requeue,
 * retirement with the QUEUE FULL depth ramp, reselection lookup, and the
 * invariant check the tests and fuzzers lean on. The choice of what to
 * issue next lives in sched.c.
 */
#include "queue_int.h"

/* A depth of 0 would wedge the LUN for good, and more openings than tags
 * would let the allocator run dry with the LUN still "issuable". */
static uint16_t clamp_depth(uint32_t d)
{
    if (d == 0)
        return 1;
    return d > PCAM_TAGS ? (uint16_t)PCAM_TAGS : (uint16_t)d;
}

unsigned pcam_q_ntargets_slow(const pcam_bus *bus)
{
    unsigned lpt = bus->cfg.luns_per_target;
    size_t n = bus->nluns / lpt;
    if (n > PCAM_MAX_TARGETS)
        n = PCAM_MAX_TARGETS;
    /* A bus that went through pcam_bus_init knows the chip's ID count; a
     * narrow chip's storage may still be sized for more. */
    if (bus->caps.max_targets != 0 && n > bus->caps.max_targets)
        n = bus->caps.max_targets;
    return (unsigned)n;
}

int pcam_q_tag_alloc(pcam_lun *lun)
{
    /* Search from the cursor, not from 0, so a tag just freed is the last
     * to be handed out again: a target answering late for a stale tag then
     * names a free tag (caught) rather than a new command's. */
    for (unsigned i = 0; i < PCAM_TAGS; i++) {
        unsigned t = (lun->q.next_tag + i) % PCAM_TAGS;
        if (!pcam_q_tag_busy(lun, t)) {
            lun->q.tags_in_use[t / 32u] |= (uint32_t)1u << (t % 32u);
            lun->q.next_tag = (uint8_t)(t + 1u);
            return (int)t;
        }
    }
    return -1;
}

static void tag_free(pcam_lun *lun, unsigned tag)
{
    lun->q.tags_in_use[(tag % PCAM_TAGS) / 32u] &= ~((uint32_t)1u << (tag % 32u));
}

static void insert_before(pcam_ccb_queue *q, pcam_ccb *pos, pcam_ccb *ccb)
{
    if (pos == NULL) {
        pcam_ccbq_push_tail(q, ccb);
        return;
    }
    if (pos->priv.prev == NULL) {
        pcam_ccbq_push_head(q, ccb);
        return;
    }
    ccb->priv.prev = pos->priv.prev;
    ccb->priv.next = pos;
    pos->priv.prev->priv.next = ccb;
    pos->priv.prev = ccb;
    q->count++;
}

void pcam_q_lun_init(pcam_bus *bus, pcam_lun *lun)
{
    memset(&lun->q.pending, 0, sizeof lun->q.pending);
    memset(&lun->q.active, 0, sizeof lun->q.active);
    memset(lun->q.tags_in_use, 0, sizeof lun->q.tags_in_use);
    lun->q.hold_until_ns = 0;
    lun->q.next_seq = 0;
    lun->q.issue_count = 0;
    lun->q.age_fence = 0;
    lun->q.depth = clamp_depth(bus->cfg.tag_depth);
    lun->q.ramp = 0;
    lun->q.active_untagged = 0;
    lun->q.freeze = 0;
    lun->q.next_tag = 0;
}

void pcam_q_submit(pcam_bus *bus, pcam_lun *lun, pcam_ccb *ccb)
{
    bus->q.pend_targets |= (uint16_t)(1u << (ccb->target & 15u));
    bus->q.pend_luns[ccb->target & (PCAM_MAX_TARGETS - 1u)] |= pcam_bit64(ccb->lun & 63u);
    pcam_q_touch(bus);
    ccb->priv.state = PCAM_CS_PENDING;
    /* seq 0 = never issued: keeps it out of the requeued zone at the front. */
    ccb->priv.seq = 0;
    ccb->priv.tag = 0;
    ccb->priv.tag_msg = 0;
    /* Stamped here too so internal CCBs that skip pcam_action() age right. */
    ccb->priv.queued_ns = pcam_core_now(bus);
    lun->q.next_seq++;
    if (!pcam_q_is_hoq(ccb)) {
        /* FIFO by submission: only the head is ever issued, so order here is
         * the order the LUN sees. */
        pcam_ccbq_push_tail(&lun->q.pending, ccb);
        return;
    }
    /* HEAD OF QUEUE overtakes ordinary work but not commands that were
     * already issued once (requeued) nor earlier HEAD OF QUEUE requests. */
    pcam_ccb *pos = lun->q.pending.head;
    while (pos != NULL && (pos->priv.seq != 0 || pcam_q_is_hoq(pos)))
        pos = pos->priv.next;
    insert_before(&lun->q.pending, pos, ccb);
}

void pcam_q_index_add(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_ccb **head = &bus->q.tags[pcam_q_tag_bucket(ccb->target, ccb->lun, ccb->priv.tag)];
    ccb->priv.tag_next = *head;
    *head = ccb;
}

static void index_remove(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_ccb **pp = &bus->q.tags[pcam_q_tag_bucket(ccb->target, ccb->lun, ccb->priv.tag)];
    for (; *pp != NULL; pp = &(*pp)->priv.tag_next) {
        if (*pp == ccb) {
            *pp = ccb->priv.tag_next;
            break;
        }
    }
    ccb->priv.tag_next = NULL;
}

/* Take an active CCB off its LUN: tag back, counts down. */
static void leave_active(pcam_bus *bus, pcam_lun *lun, pcam_ccb *ccb)
{
    pcam_ccbq_remove(&lun->q.active, ccb);
    if (ccb->priv.tag_msg != 0)
        index_remove(bus, ccb);
    if (lun->q.active.count == 0) {
        unsigned t = ccb->target & (PCAM_MAX_TARGETS - 1u);
        bus->q.act_luns[t] &= ~pcam_bit64(ccb->lun & 63u);
        if (bus->q.act_luns[t] == 0)
            bus->q.act_targets &= (uint16_t)~(1u << t);
    }
    if (ccb->priv.tag_msg != 0)
        tag_free(lun, ccb->priv.tag);
    else if (lun->q.active_untagged > 0)
        lun->q.active_untagged--;
    if (ccb->target < PCAM_MAX_TARGETS && bus->targets[ccb->target].q.active > 0)
        bus->targets[ccb->target].q.active--;
    ccb->priv.tag = 0;
    ccb->priv.tag_msg = 0;
}

static pcam_lun *active_lun_of(pcam_bus *bus, const pcam_ccb *ccb)
{
    if (ccb == NULL || ccb->priv.state != PCAM_CS_ACTIVE)
        return NULL;
    return pcam_core_lun(bus, ccb->target, ccb->lun);
}

static void requeue(pcam_bus *bus, pcam_lun *lun, pcam_ccb *ccb)
{
    bool was_fence = ccb->priv.tag_msg == PCAM_TAG_ORDERED && ccb->priv.seq == lun->q.age_fence;
    leave_active(bus, lun, ccb);
    if (was_fence) {
        /* The barrier never reached the target, so what it fenced is
         * unfenced again: aging may force a new one. */
        lun->q.age_fence = lun->q.active.head != NULL ? lun->q.active.head->priv.seq - 1u
                                                  : lun->q.issue_count;
    }
    ccb->priv.state = PCAM_CS_PENDING;
    /* Requeued CCBs go back in front, sorted by their issue numbers: a set
     * of bystanders requeued one by one then goes out again in the order it
     * went out first, whichever order the engine handed them back in. */
    pcam_ccb *pos = lun->q.pending.head;
    while (pos != NULL && pos->priv.seq != 0 && pcam_q_seq_before(pos->priv.seq, ccb->priv.seq))
        pos = pos->priv.next;
    insert_before(&lun->q.pending, pos, ccb);
    /* No retry is spent: the command never ran (lost arbitration, QUEUE
     * FULL, a bystander of someone else's reset). */
    PCAM_COUNT(bus->targets[ccb->target], requeues);
}

void pcam_q_requeue(pcam_bus *bus, pcam_ccb *ccb)
{
    bus->q.pend_targets |= (uint16_t)(1u << (ccb->target & 15u));
    bus->q.pend_luns[ccb->target & (PCAM_MAX_TARGETS - 1u)] |= pcam_bit64(ccb->lun & 63u);
    pcam_q_touch(bus);
    pcam_lun *lun = active_lun_of(bus, ccb);
    if (lun != NULL)
        requeue(bus, lun, ccb);
}

void pcam_q_retire(pcam_bus *bus, pcam_ccb *ccb, bool good)
{
    /* A freed slot or tag matters only to work that may go: with nothing
     * pending anywhere (the hint is a superset) but on targets per-bus
     * aging holds back, the next look would find nothing, and one per
     * completion is a good part of a command's cost. A held target waits
     * for the next evaluation, which the engine ticks for. */
    if ((bus->q.pend_targets & (uint16_t)~bus->q.throttled) != 0)
        pcam_q_touch(bus);
    pcam_lun *lun = active_lun_of(bus, ccb);
    if (lun == NULL)
        return;
    leave_active(bus, lun, ccb);
    ccb->priv.state = PCAM_CS_FREE;
    /* An owed target left with nothing to do can hold nobody back any
     * more: the look that releases them is due now, not at its cadence
     * (the engine ticks for it while a target is held; the look touches). */
    unsigned t = ccb->target & 15u;
    if (bus->q.throttled != 0 && ((bus->q.owed >> t) & 1u) != 0 &&
        (((bus->q.act_targets | bus->q.pend_targets) >> t) & 1u) == 0)
        bus->q.age_next_ns = 0;
    if (!good) {
        /* The ramp wants sustained success: any failure starts it over. */
        lun->q.ramp = 0;
        return;
    }
    if (lun->q.ramp < UINT16_MAX)
        lun->q.ramp++;
    /* Depth creeps back up one opening at a time after a run of successes,
     * so a target that hit QUEUE FULL once is not flooded again at once. */
    if (lun->q.ramp >= bus->cfg.qfull_ramp_successes &&
        lun->q.depth < clamp_depth(bus->cfg.tag_depth_max)) {
        lun->q.depth++;
        lun->q.ramp = 0;
    }
}

uint16_t pcam_q_queue_full(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_q_touch(bus);
    pcam_lun *lun = active_lun_of(bus, ccb);
    if (lun == NULL) {
        /* Not active: nothing to requeue; report the depth unchanged. */
        const pcam_lun *x = ccb != NULL ? pcam_core_lun(bus, ccb->target, ccb->lun) : NULL;
        return x != NULL ? x->q.depth : 0;
    }
    /* The target was holding every other active command of this LUN when it
     * refused this one: that is the depth it can take right now. */
    uint32_t held = lun->q.active.count > 0 ? lun->q.active.count - 1u : 0u;
    /* The floor keeps a target that reports QUEUE FULL spuriously (other
     * initiators, a firmware quirk) from being driven down to no queueing. */
    uint32_t floor = bus->cfg.tag_depth_floor;
    uint16_t depth = clamp_depth(held > floor ? held : floor);
    lun->q.depth = depth;
    lun->q.ramp = 0;
    requeue(bus, lun, ccb);
    /* Back on the pending queue: the scheduler's hints must show it, or a
     * LUN it already dropped from them would never be looked at again. */
    bus->q.pend_targets |= (uint16_t)(1u << (ccb->target & 15u));
    bus->q.pend_luns[ccb->target & (PCAM_MAX_TARGETS - 1u)] |= pcam_bit64(ccb->lun & 63u);
    PCAM_COUNT(bus->targets[ccb->target], queue_fulls);
    pcam_core_event(bus, PCAM_EV_QUEUE_FULL, ccb->target, ccb->lun, depth);
    return depth;
}

pcam_ccb *pcam_q_find(pcam_lun *lun, int tag)
{
    if (lun == NULL || tag >= PCAM_TAGS)
        return NULL;
    /* The bitmap answers "no such tag" without walking the queue. */
    if (tag >= 0 && !pcam_q_tag_busy(lun, (unsigned)tag))
        return NULL;
    for (pcam_ccb *c = lun->q.active.head; c != NULL; c = c->priv.next) {
        if (tag < 0 ? c->priv.tag_msg == 0 : (c->priv.tag_msg != 0 && c->priv.tag == tag))
            return c;
    }
    return NULL;
}

pcam_ccb *pcam_q_find_tag(pcam_bus *bus, uint8_t target, uint8_t lun, int tag)
{
    if (tag < 0)
        return pcam_q_find(pcam_core_lun(bus, target, lun), tag);
    if (tag >= PCAM_TAGS)
        return NULL;
    /* A bucket holds at most one command per LUN: a short walk whatever
     * the queue depth, where the active queue would be a long one. */
    for (pcam_ccb *c = bus->q.tags[pcam_q_tag_bucket(target, lun, (unsigned)tag)]; c != NULL;
         c = c->priv.tag_next) {
        if (c->priv.tag == tag && c->lun == lun && c->target == target)
            return c;
    }
    return NULL;
}

#if PCAM_CFG_INVARIANTS
/* ---- invariants ---- */

static const char *check_links(const pcam_ccb_queue *q)
{
    const pcam_ccb *prev = NULL;
    uint32_t n = 0;
    if ((q->head == NULL) != (q->tail == NULL))
        return "queue head and tail disagree";
    /* Bounded by the count so a cycle is reported, not followed forever. */
    for (const pcam_ccb *c = q->head; c != NULL; c = c->priv.next) {
        if (n >= q->count)
            return "queue longer than its count (or cyclic)";
        if (c->priv.prev != prev)
            return "queue back link broken";
        prev = c;
        n++;
    }
    if (n != q->count)
        return "queue shorter than its count";
    if (q->tail != prev)
        return "queue tail is not its last CCB";
    return NULL;
}

static bool path_ok(const pcam_ccb *c, int t, int l)
{
    return t < 0 || (c->target == t && c->lun == l);
}

static const char *check_pending(const pcam_lun *lun, int t, int l)
{
    int zone = 0; /* 0 requeued, 1 HEAD OF QUEUE, 2 ordinary */
    const pcam_ccb *last_requeued = NULL;
    for (const pcam_ccb *c = lun->q.pending.head; c != NULL; c = c->priv.next) {
        if (c->priv.state != PCAM_CS_PENDING)
            return "pending CCB not in PENDING state";
        if (!path_ok(c, t, l))
            return "pending CCB on another path's LUN";
        int z = c->priv.seq != 0 ? 0 : pcam_q_is_hoq(c) ? 1 : 2;
        if (z < zone)
            return "pending queue out of order (requeued, HEAD OF QUEUE, FIFO)";
        if (z == 0 && last_requeued != NULL &&
            !pcam_q_seq_before(last_requeued->priv.seq, c->priv.seq))
            return "requeued CCBs not in issue order";
        if (z == 0)
            last_requeued = c;
        zone = z;
    }
    return NULL;
}

static const char *check_active(const pcam_lun *lun, int t, int l)
{
    uint32_t seen[PCAM_TAGS / 32];
    unsigned untagged = 0;
    const pcam_ccb *prev = NULL;
    memset(seen, 0, sizeof seen);
    for (const pcam_ccb *c = lun->q.active.head; c != NULL; c = c->priv.next) {
        if (c->priv.state != PCAM_CS_ACTIVE)
            return "active CCB not in ACTIVE state";
        if (!path_ok(c, t, l))
            return "active CCB on another path's LUN";
        if (c->priv.seq == 0)
            return "active CCB without an issue number";
        if (prev != NULL && !pcam_q_seq_before(prev->priv.seq, c->priv.seq))
            return "active queue not in issue order";
        prev = c;
        if (c->priv.tag_msg == 0) {
            untagged++;
            continue;
        }
        if (c->priv.tag_msg != PCAM_TAG_SIMPLE && c->priv.tag_msg != PCAM_TAG_HEAD_OF_QUEUE &&
            c->priv.tag_msg != PCAM_TAG_ORDERED)
            return "active CCB with a bad tag message";
        unsigned tag = c->priv.tag, w = tag / 32u;
        uint32_t bit = (uint32_t)1u << (tag % 32u);
        if ((seen[w] & bit) != 0)
            return "two active CCBs share a tag";
        if ((lun->q.tags_in_use[w] & bit) == 0)
            return "active tag not marked in the bitmap";
        seen[w] |= bit;
    }
    if (untagged != lun->q.active_untagged)
        return "active untagged count wrong";
    if (untagged > 1)
        return "more than one untagged CCB active";
    if (untagged == 1 && lun->q.active.count != 1)
        return "untagged and tagged CCBs active together";
    for (unsigned w = 0; w < PCAM_TAGS / 32u; w++) {
        if ((lun->q.tags_in_use[w] & ~seen[w]) != 0)
            return "tag marked in use with no active owner";
    }
    return NULL;
}

/* Every active tagged CCB can be found through the tag index. */
static const char *check_index(const pcam_bus *bus, const pcam_lun *lun)
{
    for (const pcam_ccb *c = lun->q.active.head; c != NULL; c = c->priv.next) {
        if (c->priv.tag_msg == 0)
            continue;
        const pcam_ccb *x = bus->q.tags[pcam_q_tag_bucket(c->target, c->lun, c->priv.tag)];
        uint32_t guard = 0;
        while (x != NULL && x != c && guard++ < PCAM_MAX_TARGETS * PCAM_MAX_LUNS)
            x = x->priv.tag_next;
        if (x != c)
            return "active tagged CCB missing from the tag index";
    }
    return NULL;
}

static const char *check_lun(const pcam_bus *bus, const pcam_lun *lun, int t, int l)
{
    /* Most LUNs are idle: for them every check below reduces to "all empty"
     * and a sane depth, folded into one comparison (the invariant checker
     * runs after every fuzzer and soak step, under coverage instrumentation
     * that makes each comparison a call). */
    uintptr_t any = (uintptr_t)lun->q.pending.head | (uintptr_t)lun->q.pending.tail |
                    (uintptr_t)lun->q.active.head | (uintptr_t)lun->q.active.tail |
                    lun->q.pending.count | lun->q.active.count | lun->q.active_untagged;
    if (any == 0) {
        uint32_t tags = 0;
        for (unsigned w = 0; w < PCAM_TAGS / 32u; w++) /* a constant count: unrolled */
            tags |= lun->q.tags_in_use[w];
        if (tags != 0)
            return "tag marked in use with no active owner";
        if ((unsigned)(lun->q.depth - 1u) >= (unsigned)PCAM_TAGS)
            return "LUN depth out of range";
        return NULL;
    }
    const char *e = check_links(&lun->q.pending);
    if (e == NULL)
        e = check_links(&lun->q.active);
    if (e == NULL)
        e = check_pending(lun, t, l);
    if (e == NULL)
        e = check_active(lun, t, l);
    if (e == NULL && (lun->q.depth == 0 || lun->q.depth > PCAM_TAGS))
        e = "LUN depth out of range";
    if (e == NULL && t >= 0)
        e = check_index(bus, lun);
    (void)bus;
    return e;
}

const char *pcam_q_check(const pcam_bus *bus, const pcam_lun *lun)
{
    if (bus == NULL)
        return "no bus";
    unsigned lpt = bus->cfg.luns_per_target;
    if (lun != NULL) {
        /* Find its path so every CCB on it can be checked to belong there. */
        for (size_t i = 0; lpt != 0 && bus->luns != NULL && i < bus->nluns; i++) {
            if (&bus->luns[i] == lun)
                return check_lun(bus, lun, (int)(i / lpt), (int)(i % lpt));
        }
        return check_lun(bus, lun, -1, -1);
    }
    /* The whole bus: every LUN with work by the scheduler's own masks, and
     * each target's active count is the sum of those LUNs' (the engine's
     * per-target accounting depends on it). LUNs whose bits are clear are
     * not walked, which keeps the check linear in the LUNs with work (it
     * runs after every fuzzer and soak step): an active command on such a
     * LUN still shows, as a target count above the sum; pending work there
     * would be a command the scheduler never looks at, which the fuzzer's
     * and the soak's lost-command checks report. */
    unsigned nt = pcam_q_ntargets(bus);
    for (unsigned t = 0; t < nt; t++) {
        uint32_t sum = 0;
        uint64_t work = bus->q.act_luns[t] | bus->q.pend_luns[t];
        if (lpt < 64u)
            work &= pcam_bit64(lpt) - 1u;
        if ((((bus->q.act_targets >> t) & 1u) != 0) != (bus->q.act_luns[t] != 0))
            return "active-target mask disagrees with the active-LUN mask";
        for (unsigned l = 0; work != 0 && l < lpt; l++, work >>= 1) {
            if ((work & 1u) == 0)
                continue;
            const pcam_lun *x = &bus->luns[(size_t)t * lpt + l];
            const char *e = check_lun(bus, x, (int)t, (int)l);
            if (e != NULL)
                return e;
            sum += x->q.active.count;
            if (l < 64u && ((bus->q.act_luns[t] & pcam_bit64(l)) != 0) != (x->q.active.count != 0))
                return "active-LUN mask disagrees with the active queues";
        }
        if (sum != bus->targets[t].q.active)
            return "target active count is not the sum of its LUNs'";
    }
    return NULL;
}
#endif /* PCAM_CFG_INVARIANTS */
