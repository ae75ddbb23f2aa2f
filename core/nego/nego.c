/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transfer negotiation, the message half: which SDTR/WDTR/PPR to send, how
 * to judge the target's answer, how to answer a target that starts, and the
 * MESSAGE REJECT ladder (PPR -> WDTR+SDTR -> narrow -> asynchronous).
 * Limits and goals are in nego_policy.c. With PCAM_CFG_PPR 0 no PPR, and
 * with PCAM_CFG_WIDE 0 no WDTR, is sent or checked as an answer; what a
 * target that starts one of them is answered is in answer_request().
 */
#include "nego_internal.h"

static pcam_nego *nego_of(pcam_bus *bus, uint8_t target)
{
    return &bus->targets[target].nego;
}

static uint8_t ns_of_ext(uint8_t ext_code)
{
    switch (ext_code) {
    case PCAM_EXT_SDTR: return PCAM_NS_SDTR;
    case PCAM_EXT_WDTR: return PCAM_NS_WDTR;
    case PCAM_EXT_PPR: return PCAM_NS_PPR;
    default: return PCAM_NS_IDLE;
    }
}

#if PCAM_CFG_WIDE
/* Which fallback covers both sides when two message kinds are involved: if
 * either was a WDTR or a PPR the target may have dropped to narrow. (A
 * narrow build is narrow whatever the kinds.) */
static uint8_t merge_fallback(uint8_t a, uint8_t b)
{
    bool a_sync_only = a == PCAM_NS_SDTR || a == PCAM_NS_IDLE;
    bool b_sync_only = b == PCAM_NS_SDTR || b == PCAM_NS_IDLE;
    return a_sync_only && b_sync_only ? PCAM_NS_SDTR : PCAM_NS_PPR;
}
#endif

static void record_sent(pcam_nego *n, uint8_t ns, uint8_t period, uint8_t offset, uint8_t width,
                        uint8_t options)
{
    n->state = ns;
    n->sent.period = period;
    n->sent.offset = offset;
    n->sent.width = width;
    n->sent.ppr_options = options;
}

int pcam_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap)
{
    pcam_nego *n;
    pcam_xfer_settings g;
    int rc;

    if (bus == NULL || buf == NULL)
        return PCAM_ERR_NULL;
    if (target >= PCAM_MAX_TARGETS)
        return PCAM_ERR_RANGE;
    if (!pcam_nego_wanted(bus, target))
        return 0;
    n = nego_of(bus, target);
    g = n->goal;
#if PCAM_CFG_PPR
    if (pcam_nego_needs_ppr(&g)) {
        /* PPR settles width, speed and options in one exchange. */
        rc = pcam_msg_build_ppr(buf, cap, g.period, g.offset, g.width, g.ppr_options);
        if (rc > 0)
            record_sent(n, PCAM_NS_PPR, g.period, g.offset, g.width, g.ppr_options);
    } else
#endif
#if PCAM_CFG_WIDE
    if (g.width != n->current.width) {
        /* WDTR first: its answer resets any sync agreement (SPI), so an SDTR
         * sent before it would be wasted. */
        rc = pcam_msg_build_wdtr(buf, cap, g.width);
        if (rc > 0)
            record_sent(n, PCAM_NS_WDTR, 0, 0, g.width, 0);
    } else
#endif
    {
        rc = pcam_msg_build_sdtr(buf, cap, g.period, g.offset);
        if (rc > 0)
            record_sent(n, PCAM_NS_SDTR, g.period, g.offset, n->current.width, 0);
    }
    if (rc <= 0)
        return rc < 0 ? rc : PCAM_ERR_NOSPACE;
    n->flags &= (uint8_t)~PCAM_NF_NEEDED;
    n->replied = 0;
    return rc;
}

/* Our message got an answer we cannot accept: the engine rejects it, and
 * by SPI a rejected negotiation message leaves both ends at the fallback.
 * Not renegotiated on its own: a target that answers wrongly once will
 * again, so it waits for the next reset or new user limits. */
static int bad_answer(pcam_bus *bus, uint8_t target, uint8_t their_ns)
{
    pcam_nego *n = nego_of(bus, target);
#if PCAM_CFG_WIDE
    uint8_t ours = n->state;

    n->state = PCAM_NS_IDLE;
    pcam_nego_fall_back(bus, target, merge_fallback(ours, their_ns));
#else
    n->state = PCAM_NS_IDLE;
    pcam_nego_fall_back(bus, target, their_ns);
#endif
    return -1;
}

/* We reject a request the target started: it falls back, and we start our
 * own negotiation next time with messages we can stand behind. */
static int refuse_request(pcam_bus *bus, uint8_t target, uint8_t their_ns)
{
    pcam_nego *n = nego_of(bus, target);

    pcam_nego_fall_back(bus, target, their_ns);
    n->flags |= PCAM_NF_NEEDED;
    return -1;
}

static bool sdtr_answer_ok(const pcam_nego *n, const pcam_msg_sdtr *a)
{
    /* Offset 0 is always a valid answer: it means asynchronous. */
    if (a->offset == 0)
        return true;
    return a->period >= n->sent.period && a->offset <= n->sent.offset;
}

#if PCAM_CFG_PPR
static bool ppr_answer_ok(const pcam_nego *n, const pcam_msg_ppr *a)
{
    /* No wider, and no option we did not ask for. */
    if (a->width_exp > n->sent.width || (a->options & (uint8_t)~n->sent.ppr_options) != 0)
        return false;
    if (a->offset == 0)
        return true;
    if (a->period < n->sent.period || a->offset > n->sent.offset)
        return false;
    /* 0x08 and 0x09 exist only as DT transfer periods (SPI-3 period table). */
    if (a->period < PCAM_NEGO_FAST40 && (a->options & PCAM_PPR_DT_REQ) == 0)
        return false;
    /* DT is defined on wide buses only; IU and QAS need DT. */
    if (a->options != 0 && (a->width_exp == PCAM_WIDTH_8BIT || (a->options & PCAM_PPR_DT_REQ) == 0))
        return false;
    return true;
}
#endif

/* The target answered our message of the same kind (m->kind matches n->state). */
static int take_answer(pcam_bus *bus, uint8_t target, const pcam_msg *m, uint8_t *reply,
                       size_t cap)
{
    pcam_nego *n = nego_of(bus, target);
    pcam_xfer_settings next = n->current;
#if PCAM_CFG_WIDE
    int rc;
#else
    (void)reply;
    (void)cap;
#endif

    switch (n->state) {
    case PCAM_NS_SDTR:
        if (!sdtr_answer_ok(n, &m->sdtr))
            return bad_answer(bus, target, PCAM_NS_SDTR);
        next.period = m->sdtr.period;
        next.offset = m->sdtr.offset;
        /* SDTR agreements are ST: any PPR options in force end here (SPI-3). */
        next.ppr_options = 0;
        n->state = PCAM_NS_IDLE;
        pcam_nego_apply(bus, target, &next, true);
        return 0;
#if PCAM_CFG_PPR
    case PCAM_NS_PPR:
        if (!ppr_answer_ok(n, &m->ppr))
            return bad_answer(bus, target, PCAM_NS_PPR);
        next.period = m->ppr.period;
        next.offset = m->ppr.offset;
        next.width = m->ppr.width_exp;
        next.ppr_options = m->ppr.options;
        n->state = PCAM_NS_IDLE;
        pcam_nego_apply(bus, target, &next, true);
        return 0;
#endif
#if PCAM_CFG_WIDE
    default: /* PCAM_NS_WDTR */
        if (m->wdtr_width_exp > n->sent.width)
            return bad_answer(bus, target, PCAM_NS_WDTR);
        /* A WDTR exchange resets the sync agreement to asynchronous (SPI). */
        next.width = m->wdtr_width_exp;
        next.period = 0;
        next.offset = 0;
        next.ppr_options = 0;
        n->state = PCAM_NS_IDLE;
        pcam_nego_apply(bus, target, &next, true);
        break;
#else
    default: /* no other message of ours is ever in flight */
        return bad_answer(bus, target, n->state);
#endif
    }
#if PCAM_CFG_WIDE
    /* Still wanting sync: our SDTR goes out in the same connection, so the
     * target never runs a command asynchronous in between. A goal that now
     * needs PPR (new user limits meanwhile) waits for the next selection. */
    if (n->goal.offset == 0 || pcam_nego_needs_ppr(&n->goal))
        return 0;
    rc = reply != NULL ? pcam_msg_build_sdtr(reply, cap, n->goal.period, n->goal.offset) : -1;
    if (rc <= 0) {
        n->flags |= PCAM_NF_NEEDED;
        return 0;
    }
    record_sent(n, PCAM_NS_SDTR, n->goal.period, n->goal.offset, n->current.width, 0);
    return rc;
#endif
}

#if !PCAM_CFG_WIDE
static int narrow_wdtr(uint8_t *buf, size_t cap)
{
    static const uint8_t b[4] = {PCAM_MSG_EXTENDED, PCAM_EXT_WDTR_LEN, PCAM_EXT_WDTR,
                                 PCAM_WIDTH_8BIT};
    if (cap < sizeof b)
        return PCAM_ERR_NOSPACE;
    memcpy(buf, b, sizeof b);
    return (int)sizeof b;
}
#endif

static uint8_t min_u8(uint8_t a, uint8_t b)
{
    return a < b ? a : b;
}

static uint8_t max_u8(uint8_t a, uint8_t b)
{
    return a > b ? a : b;
}

/* The target started: answer with the same message kind, clamped to our goal
 * (which is already within the user limits, the chip, the ladder and the
 * step-down), and take that as current. Our answer is never more aggressive
 * than the request, so by SPI the target must accept it. */
static int answer_request(pcam_bus *bus, uint8_t target, const pcam_msg *m, uint8_t ns,
                          uint8_t *reply, size_t cap)
{
    pcam_nego *n = nego_of(bus, target);
    const pcam_xfer_settings *g = &n->goal;
    pcam_xfer_settings next = n->current;
    int rc;

    if (reply == NULL)
        return refuse_request(bus, target, ns);
    switch (ns) {
    case PCAM_NS_SDTR:
        next.period = max_u8(m->sdtr.period, g->period);
        next.offset = min_u8(m->sdtr.offset, g->offset);
        next.ppr_options = 0;
        pcam_nego_normalize(&next);
        rc = pcam_msg_build_sdtr(reply, cap, next.period, next.offset);
        break;
    case PCAM_NS_WDTR:
        next.period = 0;
        next.offset = 0;
        next.ppr_options = 0;
#if PCAM_CFG_WIDE
        next.width = min_u8(m->wdtr_width_exp, g->width);
        rc = pcam_msg_build_wdtr(reply, cap, next.width);
#else
        /* A narrow initiator answers every WDTR with 8-bit (SPI-3): the
         * width stays narrow and, as after any WDTR, sync is reset. */
        rc = narrow_wdtr(reply, cap);
#endif
        break;
    default: /* PCAM_NS_PPR */
#if PCAM_CFG_PPR
        /* A target refused PPR once, or the chip has no PPR option: answer
         * with MESSAGE REJECT and let the target fall back to WDTR/SDTR. */
        if ((n->ladder & PCAM_NL_NO_PPR) != 0 || !pcam_nego_chip_ppr(bus))
            return refuse_request(bus, target, PCAM_NS_PPR);
        next.period = max_u8(m->ppr.period, g->period);
        next.offset = min_u8(m->ppr.offset, g->offset);
        next.width = min_u8(m->ppr.width_exp, g->width);
        next.ppr_options = (uint8_t)(m->ppr.options & g->ppr_options);
        pcam_nego_normalize(&next);
        rc = pcam_msg_build_ppr(reply, cap, next.period, next.offset, next.width,
                                next.ppr_options);
        break;
#else
        /* No PPR in this build: answered as a chip without DT, IU and QAS
         * answers it, MESSAGE REJECT; the target falls back to WDTR/SDTR. */
        return refuse_request(bus, target, PCAM_NS_PPR);
#endif
    }
    if (rc <= 0)
        return refuse_request(bus, target, ns);
    pcam_nego_apply(bus, target, &next, true);
    n->replied = ns;
    /* The target has said what it wants; asking again would get the same.
     * Only a WDTR, which reset sync, leaves an SDTR of ours to send. */
    if (ns == PCAM_NS_WDTR && g->offset != 0)
        n->flags |= PCAM_NF_NEEDED;
    else
        n->flags &= (uint8_t)~PCAM_NF_NEEDED;
    return rc;
}

int pcam_nego_msg_in(pcam_bus *bus, uint8_t target, const uint8_t *msg, size_t len,
                     uint8_t *reply, size_t cap)
{
    pcam_nego *n;
    pcam_msg m;
    size_t used = 0;
    uint8_t hint = PCAM_NS_IDLE;
    uint8_t ns = PCAM_NS_IDLE;
    int rc;

    if (bus == NULL || msg == NULL || target >= PCAM_MAX_TARGETS)
        return -1;
    n = nego_of(bus, target);
    n->replied = 0;
    /* The kind the target meant, even when the bytes are malformed, decides
     * what it falls back to after our MESSAGE REJECT. */
    if (len >= 3 && msg[0] == PCAM_MSG_EXTENDED)
        hint = ns_of_ext(msg[2]);
    rc = pcam_msg_decode(msg, len, &m, &used);
    /* Decoded whole, an extended message is of a kind the decoder knows, so
     * its code says which (MODIFY DATA POINTER and the rest: none). */
    if (rc == 0 && used == len)
        ns = hint;
    if (n->state != PCAM_NS_IDLE) {
        /* SPI: the target's next negotiation message is its answer; one of
         * another kind, or unreadable, is an answer we cannot accept. */
        if (ns != n->state)
            return bad_answer(bus, target, ns != PCAM_NS_IDLE ? ns : hint);
        return take_answer(bus, target, &m, reply, cap);
    }
    if (ns == PCAM_NS_IDLE)
        return hint != PCAM_NS_IDLE ? refuse_request(bus, target, hint) : -1;
    return answer_request(bus, target, &m, ns, reply, cap);
}

/* One step down the ladder for our message of kind n->state that the target
 * rejected or ignored. */
static void ladder_step(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n = nego_of(bus, target);
    uint8_t ours = n->state;

    n->state = PCAM_NS_IDLE;
    switch (ours) {
#if PCAM_CFG_PPR
    case PCAM_NS_PPR:
        /* Never PPR again (until new user limits); WDTR and SDTR next. */
        n->ladder |= PCAM_NL_NO_PPR;
        n->flags |= PCAM_NF_NEEDED;
        break;
#endif
#if PCAM_CFG_WIDE
    case PCAM_NS_WDTR:
        /* Narrow it is; sync may still work, so SDTR next. */
        n->ladder |= PCAM_NL_NO_WIDE;
        n->flags |= PCAM_NF_NEEDED;
        break;
#endif
    default: /* PCAM_NS_SDTR: the bottom of the ladder, nothing more to ask. */
        n->ladder |= PCAM_NL_NO_SYNC;
        break;
    }
    pcam_nego_compute_goal(bus, target);
    pcam_nego_fall_back(bus, target, ours);
}

void pcam_nego_rejected(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n;

    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    if (n->state != PCAM_NS_IDLE) {
        ladder_step(bus, target);
    } else if (n->replied != PCAM_NS_IDLE) {
        /* It rejected our answer to its own request: both ends fall back
         * (SPI), and the ladder is untouched since it was not our request. */
        pcam_nego_fall_back(bus, target, n->replied);
        n->replied = 0;
    }
}

void pcam_nego_no_answer(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n;

    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    /* SPI: a target that goes on without answering is taken to be
     * asynchronous narrow for that message, exactly as if it had rejected it. */
    if (n->state != PCAM_NS_IDLE)
        ladder_step(bus, target);
    /* After our answer to its request, going on means it accepted. */
    n->replied = 0;
}

void pcam_nego_cancel(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n;
    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    /* It never reached the target, so nothing was agreed or refused: the
     * same message goes out with the next selection. */
    if (n->state != PCAM_NS_IDLE) {
        n->state = PCAM_NS_IDLE;
        n->flags |= PCAM_NF_NEEDED;
    }
}
