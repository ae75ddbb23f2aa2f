/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tag queues and the scheduler under random operation sequences on a
 * small bus: submit, next, requeue, retire, QUEUE FULL, find, time passing,
 * freezes, holds, target and LUN flag changes. After every step the core's
 * own invariant check must pass, and every scheduling decision is compared
 * with an independent model of the rules (readiness of each LUN's head,
 * round-robin order, per-bus aging with its evaluation cadence, tag
 * choice). Any disagreement aborts.
 *
 * Input: 5 bytes of settings, then operations of 3 bytes (op, a, b); op
 * % 14 picks the operation, op / 14 is spare entropy (a submitted CCB's
 * timeout class; whether the engine touches the queues after changing a
 * freeze, hold or flag).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/engine/engine.h" /* the queue, and pcam_engine_tick */

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
    return t != bus.caps.initiator_id && (bus.targets[t].dev.flags & PCAM_TGTF_BLOCKED) == 0;
}

static bool tagged(unsigned t, const pcam_lun *lun, const pcam_ccb *c)
{
    return (c->flags & PCAM_CCB_TAGGED) != 0 && (bus.targets[t].dev.flags & PCAM_TGTF_NO_TAGS) == 0 &&
           bus.targets[t].nego.user.tagged && (lun->dev.flags & PCAM_LUNF_TAGGED) != 0;
}

/* The model of "can this LUN's head go out now". */
static bool ready(unsigned t, const pcam_lun *lun)
{
    const pcam_ccb *h = lun->q.pending.head;
    if (h == NULL || lun->q.freeze != 0 || now < lun->q.hold_until_ns || now < h->priv.hold_until_ns)
        return false;
    if (tagged(t, lun, h))
        return lun->q.active_untagged == 0 && lun->q.active.count < lun->q.depth;
    return lun->q.active.count == 0;
}

/*
 * The model of per-bus aging, written from the rule as documented above
 * evaluate_aging() in core/queue/sched.c, not from its code:
 *  - a target's age is that of the oldest of the heads of its LUNs' active
 *    and pending queues (a held pending head does not count, a frozen LUN
 *    not at all, nor a command whose timeout exceeds 4 x the default); an
 *    unusable target (the initiator, blocked) has age 0;
 *  - a look that finds fewer than two busy targets (with commands active,
 *    or pending as far as the code's hint knows) resets everything: no
 *    one held, owed or starving, counts wiped; a target that is not busy
 *    is not aged;
 *  - the ages are looked at only when the evaluation time has come. After
 *    an evaluation that finds fewer than two busy, the next one is due
 *    bus_starve_ms / 16 + 1 ns later; after one that holds a target,
 *    bus_starve_ms / 2 + 1 ns later (a held target waits for it even when
 *    nothing else can go: the engine wakes up for it); after one that
 *    holds nobody, when the first busy target's oldest command (as seen
 *    then) becomes older than the next threshold it has not passed
 *    (bus_starve_ms / 2, then bus_starve_ms), but not sooner than
 *    bus_starve_ms / 8 + 1 ns and not later than bus_starve_ms / 2 + 1 ns
 *    after it. An issue that holds its target anew brings it forward to
 *    bus_starve_ms / 2 + 1 ns after the issue at the latest; a retirement
 *    that leaves an owed target with nothing active or hinted pending while
 *    someone is held makes it due at once;
 *  - "owed" targets are those older than bus_starve_ms / 2; nobody owed:
 *    every count is wiped and nobody is held; otherwise the counts of the
 *    targets not owed are raised to the smallest count of an owed one, and
 *    a target is held while an owed target that it beats in arbitration
 *    has been issued more than tag_depth / 8 + 1 fewer commands than it;
 *  - the oldest target older than bus_starve_ms (ties: the lower
 *    arbitration priority) is served first unless held; a new one is
 *    counted and logged once;
 *  - every issue while aging is on counts one for its target; an issue to a
 *    target owed at the last evaluation then releases every held target
 *    that is no longer more than the slack above some owed target it
 *    beats in arbitration; and the issue holds its own target at once if
 *    it is now more than the slack above an owed target it beats;
 *  - pcam_q_tick() evaluates when due, like pcam_q_next(), and issues
 *    nothing;
 *  - once pcam_q_next() has found nothing to issue, or has issued the
 *    last command any target not held was hinted to have pending (with
 *    aging on: and a target is held or at most one target has work), it
 *    answers NULL at once, looking at nothing, until the queues are
 *    touched: by a submit, requeue, QUEUE FULL, a retirement while some
 *    target not held is hinted to have pending work, by a look, or by the
 *    engine (its tick, a released freeze or hold: here the harness says
 *    when); then no ready LUN is on a usable target that is not held.
 * The model predicts the exact CCB pcam_q_next() returns (round-robin
 * cursors included) and the scheduler's state after it.
 */

/* Three places where the code once departed from the rule, all fixed; the
 * switches (now 0) let the model follow the old code again to show what
 * each fix changed:
 *  - the starving target is served first from the state of the last
 *    evaluation, without asking whether it is still usable, so a target
 *    blocked for recovery since then gets new work;
 *  - bus->q.pend_targets / q.pend_luns (the hints of which targets and
 *    LUNs have pending work) are set on submit and pcam_q_requeue() but
 *    not when pcam_q_queue_full() puts the refused command back, so once
 *    the hint was dropped that command waits until something else is
 *    submitted to its LUN. With the switch at 0 the model has QUEUE FULL
 *    set them, and checks they always cover every pending command;
 *  - a look that finds fewer than two busy targets releases every held
 *    one without touching the queues, so after a pcam_q_tick() that did
 *    so pcam_q_next() still answers NULL (latent: pcam_engine_tick()
 *    touches after every tick). */
#define SCHED_BOOSTS_BLOCKED_TARGET 0
#define SCHED_QFULL_LOSES_PENDING_HINT 0
#define SCHED_RESET_LOOK_NO_TOUCH 0

typedef struct starve_ev {
    uint8_t target, lun;
    uint32_t ms;
} starve_ev;

static struct {
    uint32_t issued[NT];
    uint32_t boosts[NT];
    uint32_t holds[NT]; /* times a target's held bit was set anew */
    uint64_t next_eval;
    uint16_t held;
    uint16_t held_at_pick; /* the held set the last pick was made with */
    uint16_t owed; /* at the last evaluation */
    int starving; /* -1: none */
    uint8_t rr_target;
    uint8_t rr_lun[NT];
    uint16_t pend_hint;       /* the code's hints of pending work, kept */
    uint8_t pend_luns[NT];    /* as the code keeps them (lazily cleared) */
    bool dirty;         /* touched since pcam_q_next() last found nothing */
    starve_ev owed_ev[4]; /* STARVE events the ring must show next */
    unsigned n_owed_ev;
} m;

static bool m_hoq(const pcam_ccb *c)
{
    return (c->flags & PCAM_CCB_TAGGED) != 0 && c->u.io.tag_action == PCAM_TAG_HEAD_OF_QUEUE;
}

static const pcam_ccb *m_behind_hoq(const pcam_ccb *c)
{
    if (c == NULL || !m_hoq(c))
        return NULL;
    for (unsigned n = 0; c != NULL && n <= 8; n++, c = c->priv.next)
        if (!m_hoq(c))
            return c;
    return NULL;
}

static uint64_t m_age(unsigned t, unsigned *lun_out, uint64_t *oldest_out)
{
    *lun_out = 0;
    *oldest_out = UINT64_MAX;
    if (!usable(t))
        return 0;
    uint64_t too_long = (uint64_t)bus.cfg.default_timeout_ms * 4u;
    uint64_t oldest = UINT64_MAX;
    for (unsigned l = 0; l < LPT; l++) {
        const pcam_lun *lun = lun_at(t, l);
        if (lun->q.freeze != 0)
            continue;
        const pcam_ccb *h = lun->q.pending.head;
        bool h_held = h != NULL && (now < lun->q.hold_until_ns || now < h->priv.hold_until_ns);
        /* Each queue's head, and behind a HEAD OF QUEUE head the first
         * command that is not one (looking past at most 8 of them). */
        const pcam_ccb *cand[4] = {lun->q.active.head, m_behind_hoq(lun->q.active.head),
                                   h_held ? NULL : h, h_held ? NULL : m_behind_hoq(h)};
        for (unsigned k = 0; k < 4; k++) {
            const pcam_ccb *c = cand[k];
            /* Strictly older: on a tie the LUN seen first is named. */
            if (c != NULL && c->timeout_ms <= too_long && c->priv.queued_ns < oldest) {
                oldest = c->priv.queued_ns;
                *lun_out = l;
            }
        }
    }
    *oldest_out = oldest;
    return oldest < now ? now - oldest : 0;
}

static bool busy(unsigned t)
{
    for (unsigned l = 0; l < LPT; l++)
        if (lun_at(t, l)->q.active.count != 0)
            return true;
    return (m.pend_hint & (1u << t)) != 0;
}

static void m_evaluate(void)
{
    uint64_t limit = PCAM_MS(bus.cfg.bus_starve_ms), half = limit / 2u;
    uint32_t slack = bus.cfg.tag_depth / 8u + 1u;
    uint64_t age[NT];
    unsigned lun_of[NT];
    bool owed[NT], anyone_owed = false;
    uint32_t least = UINT32_MAX;
    unsigned nbusy = 0;
    m.next_eval = now + limit / 16u + 1u;
    for (unsigned t = 0; t < NT; t++)
        nbusy += busy(t);
    if (nbusy < 2) {
        if (!SCHED_RESET_LOOK_NO_TOUCH)
            m.dirty = true;
        memset(m.issued, 0, sizeof m.issued);
        m.held = 0;
        m.owed = 0;
        m.starving = -1;
        return;
    }
    /* Nobody held: the next look when a target's oldest command crosses
     * the threshold ahead of it, and half the threshold from now at the
     * latest. */
    uint64_t due = now + half + 1u;
    for (unsigned t = 0; t < NT; t++) {
        uint64_t oldest = UINT64_MAX;
        age[t] = busy(t) ? m_age(t, &lun_of[t], &oldest) : 0;
        if (!busy(t))
            lun_of[t] = 0;
        if (oldest != UINT64_MAX && age[t] <= half && oldest + half + 1u < due)
            due = oldest + half + 1u;
        else if (oldest != UINT64_MAX && age[t] > half && age[t] <= limit &&
                 oldest + limit + 1u < due)
            due = oldest + limit + 1u;
        owed[t] = age[t] > half;
        if (owed[t]) {
            anyone_owed = true;
            least = m.issued[t] < least ? m.issued[t] : least;
        }
    }
    uint16_t held_before = m.held;
    m.held = 0;
    m.owed = 0;
    for (unsigned t = 0; t < NT; t++) {
        if (owed[t])
            m.owed |= (uint16_t)(1u << t);
        if (!anyone_owed)
            m.issued[t] = 0;
        else if (!owed[t] && m.issued[t] < least)
            m.issued[t] = least;
    }
    for (unsigned x = 0; x < NT && anyone_owed; x++)
        for (unsigned y = 0; y < NT; y++)
            if (owed[y] && prio(y) < prio(x) && m.issued[x] > m.issued[y] + slack)
                m.held |= (uint16_t)(1u << x);
    for (unsigned t = 0; t < NT; t++)
        if ((m.held & ~held_before & (1u << t)) != 0)
            m.holds[t]++;
    /* While anyone is held, every bus_starve_ms / 2; otherwise at the first
     * crossing, but never sooner than bus_starve_ms / 8 from now. */
    if (m.held != 0)
        m.next_eval = now + half + 1u;
    else
        m.next_eval = due > now + limit / 8u + 1u ? due : now + limit / 8u + 1u;
    m.dirty = true;
    /* Walk from the lowest arbitration priority up, taking only a strictly
     * older one: a tie stays with the lower priority. */
    int most = -1;
    uint64_t most_age = limit;
    for (unsigned rank = 0; rank < 16u; rank++) {
        unsigned t = rank < 8u ? rank + 8u : rank - 8u;
        if (t < NT && age[t] > most_age) {
            most = (int)t;
            most_age = age[t];
        }
    }
    if (most < 0) {
        m.starving = -1;
    } else if (most != m.starving) {
        m.starving = most;
        m.boosts[most]++;
        must(m.n_owed_ev < 4);
        starve_ev *e = &m.owed_ev[m.n_owed_ev++];
        e->target = (uint8_t)most;
        e->lun = (uint8_t)lun_of[most];
        e->ms = most_age / 1000000u > UINT32_MAX ? UINT32_MAX : (uint32_t)(most_age / 1000000u);
    }
}

static void hint(unsigned t, unsigned l)
{
    m.pend_hint |= (uint16_t)(1u << t);
    m.pend_luns[t] |= (uint8_t)(1u << l);
}

/* The LUN of t the scheduler takes from, from its cursor; -1 if none. Only
 * LUNs in the hint are looked at; one found empty leaves the hint, and the
 * target leaves it when none of its hinted LUNs had pending work. */
static int m_lun_of(unsigned t)
{
    uint8_t hinted = m.pend_luns[t];
    bool any = false;
    for (unsigned j = 0; j < LPT; j++) {
        unsigned l = (m.rr_lun[t] + j) % LPT;
        if ((hinted & (1u << l)) == 0)
            continue;
        if (lun_at(t, l)->q.pending.head == NULL) {
            m.pend_luns[t] &= (uint8_t)~(1u << l);
            continue;
        }
        any = true;
        if (ready(t, lun_at(t, l)))
            return (int)l;
    }
    if (!any)
        m.pend_hint &= (uint16_t)~(1u << t);
    return -1;
}

static int m_round_robin(unsigned *t_out)
{
    for (unsigned i = 0; i < NT; i++) {
        unsigned t = (m.rr_target + i) % NT;
        if (!usable(t) || (m.held & (1u << t)) != 0)
            continue;
        if ((m.pend_hint & (1u << t)) == 0)
            continue;
        int l = m_lun_of(t);
        if (l >= 0) {
            *t_out = t;
            return l;
        }
    }
    return -1;
}

static void m_count(unsigned x)
{
    uint32_t slack = bus.cfg.tag_depth / 8u + 1u;
    uint16_t before = m.held;
    if (m.issued[x] < UINT32_MAX)
        m.issued[x]++;
    /* An issue to an owed target decides every hold again, on the counts
     * as they are now and the owed set of the last evaluation. */
    if ((m.owed & (1u << x)) != 0) {
        for (unsigned h = 0; h < NT; h++) {
            bool still = false;
            for (unsigned y = 0; y < NT; y++)
                still = still || ((m.owed & (1u << y)) != 0 && prio(y) < prio(h) &&
                                  m.issued[h] > m.issued[y] + slack);
            if (!still)
                m.held &= (uint16_t)~(1u << h);
        }
        before = m.held;
    }
    for (unsigned y = 0; y < NT; y++)
        if ((m.owed & (1u << y)) != 0 && prio(y) < prio(x) && m.issued[x] > m.issued[y] + slack)
            m.held |= (uint16_t)(1u << x);
    if ((m.held & ~before & (1u << x)) != 0) {
        m.holds[x]++;
        /* Held anew: released by a look no later than the hold cadence. */
        uint64_t by = now + PCAM_MS(bus.cfg.bus_starve_ms) / 2u + 1u;
        if (by < m.next_eval)
            m.next_eval = by;
    }
}

/* What pcam_q_next() must return now: the LUN (-1 for nothing) and its
 * target; the model's state moves on as the scheduler's must. */
static int m_next(unsigned *t)
{
    int l = -1;
    bool on = bus.cfg.aging_enabled && bus.cfg.bus_starve_ms != 0;
    if (!m.dirty)
        return -1;
    if (!on) {
        m.held = 0;
        m.owed = 0;
        m.starving = -1;
        m.held_at_pick = 0;
        l = m_round_robin(t);
    } else {
        if (now >= m.next_eval)
            m_evaluate();
        if (m.starving >= 0 && (m.held & (1u << m.starving)) == 0 &&
            (SCHED_BOOSTS_BLOCKED_TARGET || usable((unsigned)m.starving))) {
            *t = (unsigned)m.starving;
            l = m_lun_of(*t);
        }
        if (l < 0)
            l = m_round_robin(t);
        m.held_at_pick = m.held;
        if (l >= 0)
            m_count(*t);
    }
    if (l >= 0) {
        m.rr_lun[*t] = (uint8_t)((unsigned)(l + 1) % LPT);
        m.rr_target = (uint8_t)((*t + 1u) % NT);
    } else {
        m.dirty = false;
    }
    return l;
}

/* The STARVE events in the ring are exactly those the model expects; the
 * rest (ORDERED, QUEUE FULL) are other checks' business. Drained after
 * every scheduling call so the ring cannot wrap. */
static void check_events(void)
{
    pcam_event ev[PCAM_EVENT_RING];
    size_t n = pcam_bus_read_events(&bus, ev, PCAM_EVENT_RING);
    unsigned k = 0;
    must(bus.ev.ring_dropped == 0);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].code != PCAM_EV_STARVE)
            continue;
        must(k < m.n_owed_ev);
        must(ev[i].target == m.owed_ev[k].target && ev[i].lun == m.owed_ev[k].lun);
        must(ev[i].arg == m.owed_ev[k].ms && ev[i].time_ns == now);
        k++;
    }
    must(k == m.n_owed_ev);
    m.n_owed_ev = 0;
}

/* A target's count as the scheduler weighs it: the code raises counts to
 * the floor of the last look lazily. */
static uint32_t eff(unsigned t)
{
    return bus.q.issued[t] < bus.q.issued_floor ? bus.q.issued_floor : bus.q.issued[t];
}

/* The scheduler's state is the model's. */
static void check_state(void)
{
    must(bus.q.throttled == m.held && bus.q.owed == m.owed);
    must(bus.q.starving == (uint8_t)(m.starving + 1));
    must(bus.q.rr_target == m.rr_target);
    must(bus.q.pend_targets == m.pend_hint);
    must(bus.q.age_next_ns == m.next_eval);
    must((bus.q.dirty != 0) == m.dirty);
    for (unsigned t = 0; t < NT; t++) {
        must(bus.q.pend_luns[t] == m.pend_luns[t]);
        must(bus.q.rr_lun[t] % LPT == m.rr_lun[t]);
        must(eff(t) == m.issued[t]);
        must(bus.targets[t].counters.starve_boosts == m.boosts[t]);
        must(bus.targets[t].counters.bus_holds == m.holds[t]);
    }
    check_events();
}

/* The timer's look at per-bus aging: due or not, it issues nothing. The
 * engine's tick touches the queues after it, whatever it found. */
static void op_tick(bool engine)
{
    uint32_t active = 0;
    for (unsigned t = 0; t < NT; t++)
        active += bus.targets[t].q.active;
    if (bus.cfg.aging_enabled && bus.cfg.bus_starve_ms != 0 && now >= m.next_eval)
        m_evaluate();
    pcam_q_tick(&bus, now);
    if (engine) {
        pcam_q_touch(&bus);
        m.dirty = true;
    }
    check_state();
    uint32_t after = 0;
    for (unsigned t = 0; t < NT; t++)
        after += bus.targets[t].q.active;
    must(after == active);
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
    uint32_t before[NT];
    uint16_t held_before = bus.q.throttled;
    bool look_due = now >= bus.q.age_next_ns;
    bool was_dirty = bus.q.dirty != 0;
    uint64_t hinted[NT];
    for (unsigned t = 0; t < NT; t++)
        hinted[t] = bus.q.pend_luns[t];
    uint64_t eval_before = bus.q.age_next_ns;
    for (unsigned t = 0; t < NT; t++) {
        before[t] = eff(t);
        for (unsigned l = 0; l < LPT; l++) {
            heads[t * LPT + l] = lun_at(t, l)->q.pending.head;
            rdy[t * LPT + l] = ready(t, lun_at(t, l));
        }
    }
    unsigned mt = 0;
    int ml = m_next(&mt);
    pcam_ccb *c = pcam_q_next(&bus, now);
    /* An issue that drains its LUN drops the LUN's hint (and the target's
     * when it was the last) at once. */
    if (ml >= 0 && lun_at(mt, (unsigned)ml)->q.pending.head == NULL) {
        m.pend_luns[mt] &= (uint8_t)~(1u << (unsigned)ml);
        if (m.pend_luns[mt] == 0)
            m.pend_hint &= (uint16_t)~(1u << mt);
    }
    if (ml >= 0 && (m.pend_hint & ~m.held) == 0) {
        /* Nothing hinted is left to find but on held targets, which wait
         * for a look: the next call may do nothing, but with aging on only
         * while a target is held or at most one target has work. */
        unsigned nbusy = 0;
        for (unsigned t = 0; t < NT; t++)
            nbusy += busy(t);
        if (!(bus.cfg.aging_enabled && bus.cfg.bus_starve_ms != 0) || m.held != 0 || nbusy < 2)
            m.dirty = false;
    }

    /* The exact prediction, and the state the next decision depends on. */
    if (ml < 0) {
        must(c == NULL);
    } else {
        must(c != NULL && c->target == mt && c->lun == (unsigned)ml);
        must(heads[mt * LPT + (unsigned)ml] == c && rdy[mt * LPT + (unsigned)ml]);
    }
    check_state();
    /* A call that looked and left the queues untouched leaves nothing
     * waiting that could go now (held targets wait for the next look). */
    for (unsigned t = 0; t < NT && was_dirty && bus.q.dirty == 0; t++) {
        for (unsigned l = 0; l < LPT && usable(t) && (bus.q.throttled & (1u << t)) == 0; l++)
            must(!ready(t, lun_at(t, l)));
    }

    /* Invariants that hold whatever the cadence, checked on the core's own
     * state as far as it shows them: counts only grow, but for the wipe
     * (all to 0, then the one issue counted); a held target gets nothing
     * (held before the call if no look was due; a look's verdict is only
     * the model's to tell, the issue may add its target to it); the
     * starving target, if not held and ready, goes first. */
    bool wiped = true;
    for (unsigned t = 0; t < NT; t++)
        wiped = wiped && eff(t) == (c != NULL && c->target == t ? 1u : 0u);
    for (unsigned t = 0; t < NT && !wiped; t++)
        must(eff(t) >= before[t]);
    if (!was_dirty) {
        must(c == NULL && bus.q.age_next_ns == eval_before && bus.q.throttled == held_before);
        return;
    }
    int s = (int)bus.q.starving - 1;
    /* (Held as the pick was made: the issue itself may release it.) */
    if (s >= 0 && usable((unsigned)s) && ((bus.q.throttled | m.held_at_pick) & (1u << s)) == 0) {
        bool s_ready = false;
        for (unsigned k = 0; k < LPT; k++) {
            bool seen = !SCHED_QFULL_LOSES_PENDING_HINT || ((hinted[s] >> k) & 1u) != 0;
            s_ready = s_ready || (rdy[(unsigned)s * LPT + k] && seen);
        }
        must(!s_ready || (c != NULL && (int)c->target == s));
    }
    if (c == NULL)
        return;
    unsigned t = c->target, l = c->lun;
    must((m.held_at_pick & (1u << t)) == 0);
    must(look_due || (held_before & (1u << t)) == 0);
    must(SCHED_BOOSTS_BLOCKED_TARGET || usable(t));

    const pcam_lun *lun = lun_at(t, l);
    must(c->priv.state == PCAM_CS_ACTIVE && lun->q.active.tail == c);
    if (c->priv.tag_msg == 0) {
        must(lun->q.active.count == 1 && lun->q.active_untagged == 1);
        must(!tagged(t, lun, c));
    } else {
        must(tagged(t, lun, c) && lun->q.active.count <= lun->q.depth);
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
        const pcam_ccb *h = lun->q.pending.head;
        if (h == NULL || lun->q.freeze != 0)
            continue;
        uint64_t at = lun->q.hold_until_ns;
        if (h->priv.hold_until_ns > at)
            at = h->priv.hold_until_ns;
        if (at > now && at < want)
            want = at;
    }
    must(pcam_q_next_hold(&bus) == want);
}

/* Per-bus aging leaves out commands with a timeout above 4 x the default
 * (slow by nature, not starved); classes on both sides of that line. */
static uint32_t timeout_class(unsigned k)
{
    uint64_t line = (uint64_t)bus.cfg.default_timeout_ms * 4u;
    uint64_t v = 0; /* the default */
    switch (k % 4u) {
    case 1:
        v = line;
        break;
    case 2:
        v = line + 1u;
        break;
    case 3:
        v = UINT32_MAX;
        break;
    default:
        break;
    }
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The engine touches the queues when it changes what may be issuable;
 * op / 14 odd plays an engine that forgets (the model knows either way). */
static void engine_touch(uint8_t op)
{
    if ((op / 14u) % 2u == 0) {
        pcam_q_touch(&bus);
        m.dirty = true;
    }
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
        c->timeout_ms = timeout_class(op / 14u);
        c->target = (uint8_t)(b % NT);
        c->lun = (uint8_t)((b >> 3) % LPT);
        if ((b & 0x40) != 0) {
            c->flags = PCAM_CCB_TAGGED;
            c->u.io.tag_action = (uint8_t)(PCAM_TAG_SIMPLE + (a >> 5) % 3);
        }
        pcam_q_submit(&bus, lun_at(c->target, c->lun), c);
        hint(c->target, c->lun);
        m.dirty = true;
        must(c->priv.state == PCAM_CS_PENDING);
        break;
    case 2:
    case 3:
    case 4: /* schedule */
        op_next();
        break;
    case 5: /* retire */
        if ((c = pick(a, PCAM_CS_ACTIVE)) != NULL) {
            bool pend = (m.pend_hint & ~m.held) != 0;
            unsigned t = c->target;
            pcam_q_retire(&bus, c, (b & 1) != 0);
            if (pend)
                m.dirty = true; /* a freed slot matters only to waiting work */
            /* An owed target with nothing left to do while someone is held:
             * the look is due at once. */
            if (m.held != 0 && (m.owed & (1u << t)) != 0 && !busy(t))
                m.next_eval = 0;
            must(c->priv.state == PCAM_CS_FREE);
        }
        break;
    case 6: /* requeue */
        if ((c = pick(a, PCAM_CS_ACTIVE)) != NULL) {
            pcam_q_requeue(&bus, c);
            hint(c->target, c->lun);
            m.dirty = true;
            must(c->priv.state == PCAM_CS_PENDING);
        }
        break;
    case 7: /* QUEUE FULL */
        if ((c = pick(a, PCAM_CS_ACTIVE)) != NULL) {
            pcam_lun *lun = lun_at(c->target, c->lun);
            uint32_t held = lun->q.active.count - 1u;
            uint32_t want = held > bus.cfg.tag_depth_floor ? held : bus.cfg.tag_depth_floor;
            must(pcam_q_queue_full(&bus, c) == want && lun->q.depth == want);
            m.dirty = true;
            if (!SCHED_QFULL_LOSES_PENDING_HINT)
                hint(c->target, c->lun);
            must(c->priv.state == PCAM_CS_PENDING);
        }
        break;
    case 8:
        op_find(a, b);
        break;
    case 9: /* time passes: in ms, in us, or to just around the next evaluation */
        if ((b & 0x80) == 0)
            now += (uint64_t)a * 1000000u * (1u + (b & 15u));
        else if ((b & 0x40) == 0)
            now += (uint64_t)a * 1000u * (1u + (b & 15u));
        else if (m.next_eval + (a & 3u) > now + 2u)
            now = m.next_eval + (a & 3u) - 2u;
        break;
    case 10: { /* freeze / hold a LUN, or hold a pending CCB (BUSY delay) */
        pcam_lun *lun = lun_at(a % NT, (a >> 4) % LPT);
        if ((b & 3) == 0)
            lun->q.freeze = (uint16_t)!lun->q.freeze;
        else if ((b & 3) == 1)
            lun->q.hold_until_ns = now + PCAM_MS(b >> 2);
        else if (lun->q.pending.head != NULL)
            lun->q.pending.head->priv.hold_until_ns = now + PCAM_MS(b >> 2);
        engine_touch(op);
        break;
    }
    case 11: /* target rejects tags / enters recovery / user limits forbid
              * tags (PCAM_FN_SET_TRAN); LUN loses or gains CmdQue */
        if ((b & 3) == 0)
            bus.targets[a % NT].dev.flags ^= PCAM_TGTF_BLOCKED;
        else if ((b & 3) == 1)
            bus.targets[a % NT].dev.flags ^= PCAM_TGTF_NO_TAGS;
        else if ((b & 7) == 7)
            bus.targets[a % NT].nego.user.tagged = !bus.targets[a % NT].nego.user.tagged;
        else
            lun_at(a % NT, (a >> 4) % LPT)->dev.flags ^= PCAM_LUNF_TAGGED;
        engine_touch(op);
        break;
    case 12: /* timers */
        if ((a & 1) != 0)
            op_tick((a & 2) != 0);
        else
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
    memset(&m, 0, sizeof m);
    m.starving = -1;
    now = 0;
    pcam_bus_config *cfg = &bus.cfg;
    static const uint32_t timeouts[4] = {10000, 1, 250, UINT32_MAX};
    cfg->default_timeout_ms = timeouts[data[2] >> 6];
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
    for (unsigned t = 0; t < NT; t++)
        bus.targets[t].nego.user.tagged = true; /* as pcam_nego_init() leaves it */
    for (unsigned i = 0; i < NT * LPT; i++) {
        pcam_q_lun_init(&bus, &luns[i]);
        luns[i].dev.flags = (uint8_t)(PCAM_LUNF_PRESENT | ((data[4] >> (1 + i % 7)) & 1 ? 0 : PCAM_LUNF_TAGGED));
    }
    for (size_t i = 5; i + 3 <= size; i += 3) {
        step(data[i], data[i + 1], data[i + 2]);
        must(pcam_q_check(&bus, NULL) == NULL);
        /* Every CCB the queue holds is on exactly the queue its state says. */
        uint32_t held = 0, linked = 0;
        for (unsigned k = 0; k < NC; k++)
            held += pool[k].priv.state == PCAM_CS_PENDING || pool[k].priv.state == PCAM_CS_ACTIVE;
        for (unsigned k = 0; k < NT * LPT; k++)
            linked += luns[k].q.pending.count + luns[k].q.active.count;
        must(held == linked);
        /* The scheduler's hints of pending work may be stale the other
         * way, never this way. */
        for (unsigned t = 0; t < NT && !SCHED_QFULL_LOSES_PENDING_HINT; t++) {
            for (unsigned l = 0; l < LPT; l++) {
                if (lun_at(t, l)->q.pending.head == NULL)
                    continue;
                must((bus.q.pend_targets & (1u << t)) != 0);
                must((bus.q.pend_luns[t] & (1ull << l)) != 0);
            }
        }
    }
    return 0;
}
