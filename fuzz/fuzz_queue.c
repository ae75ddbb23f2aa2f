/*
 * The tag queues and the scheduler under random operation sequences on a
 * small bus: submit, next, requeue, retire, QUEUE FULL, find, time passing,
 * freezes, holds, target and LUN flag changes. After every step the core's
 * own invariant check must pass, and every scheduling decision is compared
 * with an independent model of the rules (readiness of each LUN's head,
 * per-bus starvation and throttling, tag choice). Any disagreement aborts.
 *
 * Input: 5 bytes of settings, then operations of 3 bytes (op, a, b).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam_core.h"

#define NT 8 /* narrow bus; the initiator is ID 7 */
#define LPT 2
#define NC 24

static pcam_bus bus;
static pcam_lun luns[NT * LPT];
static pcam_ccb pool[NC];
static uint64_t now;

static uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return now;
}

static void must(int cond)
{
    if (!cond)
        abort();
}

static unsigned prio(unsigned id)
{
    return id < 8u ? id + 8u : id - 8u;
}

static pcam_lun *lun_at(unsigned t, unsigned l)
{
    return &luns[t * LPT + l];
}

static bool usable(unsigned t)
{
    return t != bus.caps.initiator_id && (bus.targets[t].flags & PCAM_TGTF_BLOCKED) == 0;
}

static bool tagged(unsigned t, const pcam_lun *lun, const pcam_ccb *c)
{
    return (c->flags & PCAM_CCB_TAGGED) != 0 && (bus.targets[t].flags & PCAM_TGTF_NO_TAGS) == 0 &&
           (lun->flags & PCAM_LUNF_TAGGED) != 0;
}

/* The model of "can this LUN's head go out now". */
static bool ready(unsigned t, const pcam_lun *lun)
{
    const pcam_ccb *h = lun->pending.head;
    if (h == NULL || lun->freeze != 0 || now < lun->hold_until_ns || now < h->priv.hold_until_ns)
        return false;
    if (tagged(t, lun, h))
        return lun->active_untagged == 0 && lun->active.count < lun->depth;
    return lun->active.count == 0;
}

/* The model of per-bus starvation, by brute force over every CCB. */
static int starving(void)
{
    if (!bus.cfg.aging_enabled || bus.cfg.bus_starve_ms == 0)
        return -1;
    uint64_t best = UINT64_MAX;
    int who = -1;
    unsigned best_prio = 0;
    for (unsigned t = 0; t < NT; t++) {
        if (!usable(t))
            continue;
        uint64_t old = UINT64_MAX;
        for (unsigned l = 0; l < LPT; l++) {
            const pcam_lun *lun = lun_at(t, l);
            if (lun->freeze != 0)
                continue;
            for (const pcam_ccb *c = lun->active.head; c != NULL; c = c->priv.next)
                old = c->priv.queued_ns < old ? c->priv.queued_ns : old;
            const pcam_ccb *h = lun->pending.head;
            if (h == NULL || now < lun->hold_until_ns || now < h->priv.hold_until_ns)
                continue;
            for (const pcam_ccb *c = h; c != NULL; c = c->priv.next)
                old = c->priv.queued_ns < old ? c->priv.queued_ns : old;
        }
        if (old == UINT64_MAX || now <= old || now - old <= PCAM_MS(bus.cfg.bus_starve_ms))
            continue;
        if (old < best || (old == best && prio(t) < best_prio)) {
            best = old;
            who = (int)t;
            best_prio = prio(t);
        }
    }
    return who;
}

static pcam_ccb *pick(uint8_t a, uint8_t state)
{
    for (unsigned i = 0; i < NC; i++) {
        pcam_ccb *c = &pool[(a + i) % NC];
        if (c->priv.state == state)
            return c;
    }
    return NULL;
}

static void op_next(void)
{
    const pcam_ccb *heads[NT * LPT];
    bool rdy[NT * LPT];
    int s = starving();
    bool any_allowed = false, s_ready = false;
    for (unsigned t = 0; t < NT; t++) {
        for (unsigned l = 0; l < LPT; l++) {
            const pcam_lun *lun = lun_at(t, l);
            heads[t * LPT + l] = lun->pending.head;
            rdy[t * LPT + l] = usable(t) && ready(t, lun);
            if (!rdy[t * LPT + l])
                continue;
            if (s < 0 || (int)t == s || prio(t) < prio((unsigned)s))
                any_allowed = true;
            if ((int)t == s)
                s_ready = true;
        }
    }
    pcam_ccb *c = pcam_q_next(&bus, now);
    if (c == NULL) {
        must(!any_allowed); /* something could have gone and nothing did */
        return;
    }
    unsigned t = c->target, l = c->lun, i = t * LPT + l;
    must(t < NT && l < LPT);
    must(heads[i] == c && rdy[i]); /* only a ready LUN's head */
    if (s >= 0) {
        if (s_ready)
            must((int)t == s); /* the starving target goes first */
        else
            must(prio(t) < prio((unsigned)s)); /* those that beat it wait */
    }
    const pcam_lun *lun = lun_at(t, l);
    must(c->priv.state == PCAM_CS_ACTIVE && lun->active.tail == c);
    if (c->priv.tag_msg == 0) {
        must(lun->active.count == 1 && lun->active_untagged == 1);
        must(!tagged(t, lun, c));
    } else {
        must(tagged(t, lun, c) && lun->active.count <= lun->depth);
        uint8_t asked = c->u.io.tag_action;
        must(c->priv.tag_msg == asked || c->priv.tag_msg == PCAM_TAG_ORDERED);
        /* Aging only ever turns SIMPLE into ORDERED. */
        if (!bus.cfg.aging_enabled || asked != PCAM_TAG_SIMPLE)
            must(c->priv.tag_msg == asked);
    }
}

static void op_find(uint8_t a, uint8_t b)
{
    unsigned t = a % NT, l = (a >> 4) % LPT;
    int tag = (int)b - 1;
    pcam_ccb *want = NULL;
    for (unsigned i = 0; i < NC; i++) {
        pcam_ccb *c = &pool[i];
        if (c->priv.state != PCAM_CS_ACTIVE || c->target != t || c->lun != l)
            continue;
        if (tag < 0 ? c->priv.tag_msg == 0 : (c->priv.tag_msg != 0 && c->priv.tag == tag))
            want = c;
    }
    must(pcam_q_find(lun_at(t, l), tag) == want);
}

static void op_next_hold(void)
{
    uint64_t want = UINT64_MAX;
    for (unsigned i = 0; i < NT * LPT; i++) {
        const pcam_lun *lun = &luns[i];
        const pcam_ccb *h = lun->pending.head;
        if (h == NULL || lun->freeze != 0)
            continue;
        uint64_t at = lun->hold_until_ns;
        if (h->priv.hold_until_ns > at)
            at = h->priv.hold_until_ns;
        if (at > now && at < want)
            want = at;
    }
    must(pcam_q_next_hold(&bus) == want);
}

static void step(uint8_t op, uint8_t a, uint8_t b)
{
    pcam_ccb *c;
    switch (op % 14) {
    case 0:
    case 1: /* submit */
        if ((c = pick(a, PCAM_CS_FREE)) == NULL)
            break;
        memset(c, 0, sizeof *c);
        c->func = PCAM_FN_SCSI_IO;
        c->target = (uint8_t)(b % NT);
        c->lun = (uint8_t)((b >> 3) % LPT);
        if ((b & 0x40) != 0) {
            c->flags = PCAM_CCB_TAGGED;
            c->u.io.tag_action = (uint8_t)(PCAM_TAG_SIMPLE + (a >> 5) % 3);
        }
        pcam_q_submit(&bus, lun_at(c->target, c->lun), c);
        must(c->priv.state == PCAM_CS_PENDING);
        break;
    case 2:
    case 3:
    case 4: /* schedule */
        op_next();
        break;
    case 5: /* retire */
        if ((c = pick(a, PCAM_CS_ACTIVE)) != NULL) {
            pcam_q_retire(&bus, c, (b & 1) != 0);
            must(c->priv.state == PCAM_CS_FREE);
        }
        break;
    case 6: /* requeue */
        if ((c = pick(a, PCAM_CS_ACTIVE)) != NULL) {
            pcam_q_requeue(&bus, c);
            must(c->priv.state == PCAM_CS_PENDING);
        }
        break;
    case 7: /* QUEUE FULL */
        if ((c = pick(a, PCAM_CS_ACTIVE)) != NULL) {
            pcam_lun *lun = lun_at(c->target, c->lun);
            uint32_t held = lun->active.count - 1u;
            uint32_t want = held > bus.cfg.tag_depth_floor ? held : bus.cfg.tag_depth_floor;
            must(pcam_q_queue_full(&bus, c) == want && lun->depth == want);
            must(c->priv.state == PCAM_CS_PENDING);
        }
        break;
    case 8:
        op_find(a, b);
        break;
    case 9: /* time passes */
        now += (uint64_t)a * 1000000u * (1u + (b & 15u));
        break;
    case 10: { /* freeze / hold a LUN, or hold a pending CCB (BUSY delay) */
        pcam_lun *lun = lun_at(a % NT, (a >> 4) % LPT);
        if ((b & 3) == 0)
            lun->freeze = (uint16_t)!lun->freeze;
        else if ((b & 3) == 1)
            lun->hold_until_ns = now + PCAM_MS(b >> 2);
        else if (lun->pending.head != NULL)
            lun->pending.head->priv.hold_until_ns = now + PCAM_MS(b >> 2);
        break;
    }
    case 11: /* target rejects tags / enters recovery; LUN loses or gains CmdQue */
        if ((b & 3) == 0)
            bus.targets[a % NT].flags ^= PCAM_TGTF_BLOCKED;
        else if ((b & 3) == 1)
            bus.targets[a % NT].flags ^= PCAM_TGTF_NO_TAGS;
        else
            lun_at(a % NT, (a >> 4) % LPT)->flags ^= PCAM_LUNF_TAGGED;
        break;
    case 12:
        op_next_hold();
        break;
    default: /* drain: schedule until nothing goes */
        for (unsigned i = 0; i < NC + 1; i++)
            op_next();
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    memset(&bus, 0, sizeof bus);
    memset(luns, 0, sizeof luns);
    memset(pool, 0, sizeof pool);
    now = 0;
    pcam_bus_config *cfg = &bus.cfg;
    cfg->luns_per_target = LPT;
    cfg->tag_depth = (uint16_t)(1u + data[0] % 8u);
    cfg->tag_depth_floor = (uint16_t)(1u + (data[0] >> 3) % cfg->tag_depth);
    cfg->tag_depth_max = (uint16_t)(cfg->tag_depth + (data[0] >> 6));
    cfg->qfull_ramp_successes = (uint16_t)(data[1] % 6u);
    cfg->age_count = (uint16_t)((data[1] >> 3) % 8u);
    cfg->age_ms = data[2] % 64u;
    cfg->bus_starve_ms = data[3] % 128u;
    cfg->aging_enabled = (data[4] & 1) != 0;
    bus.caps.max_targets = NT;
    bus.caps.initiator_id = 7;
    bus.plat.now_ns = fake_now;
    bus.luns = luns;
    bus.nluns = NT * LPT;
    for (unsigned i = 0; i < NT * LPT; i++) {
        pcam_q_lun_init(&bus, &luns[i]);
        luns[i].flags = (uint8_t)(PCAM_LUNF_PRESENT | ((data[4] >> (1 + i % 7)) & 1 ? 0 : PCAM_LUNF_TAGGED));
    }
    for (size_t i = 5; i + 3 <= size; i += 3) {
        step(data[i], data[i + 1], data[i + 2]);
        must(pcam_q_check(&bus, NULL) == NULL);
        /* Every CCB the queue holds is on exactly the queue its state says. */
        uint32_t held = 0, linked = 0;
        for (unsigned k = 0; k < NC; k++)
            held += pool[k].priv.state == PCAM_CS_PENDING || pool[k].priv.state == PCAM_CS_ACTIVE;
        for (unsigned k = 0; k < NT * LPT; k++)
            linked += luns[k].pending.count + luns[k].active.count;
        must(held == linked);
    }
    return 0;
}
