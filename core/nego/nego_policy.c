/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transfer agreements per target, the policy half: what the chip allows,
 * what the user allows, what the MESSAGE REJECT ladder and the parity
 * step-down still allow (the goal), and making an agreement current.
 * The message exchange itself is in nego.c. PCAM_CFG_WIDE 0 pins every
 * width to 8-bit and PCAM_CFG_PPR 0 every PPR option to none (and so every
 * period factor to 0x0A or slower), here, where the limits are made.
 */
#include "nego_internal.h"

static pcam_nego *nego_of(pcam_bus *bus, uint8_t target)
{
    return &bus->targets[target].nego;
}

bool pcam_nego_same_link(const pcam_xfer_settings *a, const pcam_xfer_settings *b)
{
    /* Every record compared is normalized: without wide or PPR, width and
     * options are always 0 on both sides. */
    return a->period == b->period && a->offset == b->offset
#if PCAM_CFG_WIDE
           && a->width == b->width
#endif
#if PCAM_CFG_PPR
           && a->ppr_options == b->ppr_options
#endif
        ;
}

void pcam_nego_normalize(pcam_xfer_settings *s)
{
#if PCAM_CFG_WIDE
    /* Only 8 and 16 bit exist on the buses pcam drives (32-bit is obsolete since SPI-3). */
    if (s->width > PCAM_WIDTH_16BIT)
        s->width = PCAM_WIDTH_16BIT;
#else
    s->width = PCAM_WIDTH_8BIT;
#endif
#if PCAM_CFG_PPR
    s->ppr_options &= PCAM_NEGO_OPTS;
    /* SPI-3 defines DT clocking, and so everything built on it, for wide buses only. */
    if (s->width == PCAM_WIDTH_8BIT)
        s->ppr_options = 0;
    /* IU and QAS are DT-phase features; without DT they cannot be in force. */
    if ((s->ppr_options & PCAM_PPR_DT_REQ) == 0)
        s->ppr_options = 0;
#else
    s->ppr_options = 0;
#endif
    if (s->offset == 0 || s->period == 0) {
        /* One spelling of asynchronous, so "offset 0 iff async" holds everywhere. */
        s->period = 0;
        s->offset = 0;
        s->ppr_options = 0;
        return;
    }
#if PCAM_CFG_PPR
    /* Factors below 0x08 are reserved or need SPI-5 paced transfers. */
    if (s->period < PCAM_NEGO_FASTEST)
        s->period = PCAM_NEGO_FASTEST;
    /* 0x08 and 0x09 exist only as DT transfer periods (SPI-3 period table). */
    if (s->period < PCAM_NEGO_FAST40 && (s->ppr_options & PCAM_PPR_DT_REQ) == 0)
#else
    /* Without DT, 0x0A is the fastest factor there is (SPI-3 period table). */
    if (s->period < PCAM_NEGO_FAST40)
#endif
        s->period = PCAM_NEGO_FAST40;
}

void pcam_nego_clamp_caps(const pcam_bus *bus, pcam_xfer_settings *s)
{
    const pcam_hal_caps *c = &bus->caps;

    if ((c->flags & PCAM_HAL_CAP_SYNC) == 0 || c->max_offset == 0) {
        s->offset = 0;
    } else {
        uint8_t chip_min = c->min_period > PCAM_NEGO_FASTEST ? c->min_period : PCAM_NEGO_FASTEST;
        if (s->offset > c->max_offset)
            s->offset = c->max_offset;
        if (s->period < chip_min)
            s->period = chip_min;
    }
#if PCAM_CFG_WIDE
    /* A wide chip on an 8-ID bus is cabled narrow: the upper byte lanes are not there. */
    if ((c->flags & PCAM_HAL_CAP_WIDE) == 0 || c->max_targets != 16)
        s->width = PCAM_WIDTH_8BIT;
#endif
#if PCAM_CFG_PPR
    {
        uint8_t opts = 0;
        if ((c->flags & PCAM_HAL_CAP_DT) != 0)
            opts |= PCAM_PPR_DT_REQ;
        if ((c->flags & PCAM_HAL_CAP_IU) != 0)
            opts |= PCAM_PPR_IU_REQ;
        if ((c->flags & PCAM_HAL_CAP_QAS) != 0)
            opts |= PCAM_PPR_QAS_REQ;
        s->ppr_options &= opts;
    }
#endif
    /* Tag messages after IDENTIFY are the chip's job during selection. */
    if ((c->flags & PCAM_HAL_CAP_TAGS) == 0)
        s->tagged = false;
    pcam_nego_normalize(s);
}

#if PCAM_CFG_PPR
bool pcam_nego_chip_ppr(const pcam_bus *bus)
{
    return (bus->caps.flags & (PCAM_HAL_CAP_DT | PCAM_HAL_CAP_IU | PCAM_HAL_CAP_QAS)) != 0;
}
#endif

bool pcam_nego_needs_ppr(const pcam_xfer_settings *s)
{
#if PCAM_CFG_PPR
    /* SDTR and WDTR cannot carry options, nor say DT for 0x08/0x09. */
    return s->ppr_options != 0 || (s->offset != 0 && s->period < PCAM_NEGO_FAST40);
#else
    (void)s; /* normalized settings never need PPR without it */
    return false;
#endif
}

void pcam_nego_compute_goal(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n = nego_of(bus, target);
    pcam_xfer_settings g = n->user;

#if PCAM_CFG_PPR
    /* A target that rejected PPR gets SDTR/WDTR, which carry no options and no DT factor. */
    if ((n->ladder & PCAM_NL_NO_PPR) != 0)
        g.ppr_options = 0;
#endif
#if PCAM_CFG_WIDE
    if ((n->ladder & PCAM_NL_NO_WIDE) != 0)
        g.width = PCAM_WIDTH_8BIT;
#endif
    if ((n->ladder & PCAM_NL_NO_SYNC) != 0 || (n->flags & PCAM_NF_STEP_ASYNC) != 0)
        g.offset = 0;
    if (n->step_period != 0 && g.offset != 0) {
        if (g.period < n->step_period)
            g.period = n->step_period;
        /* ST reaches every factor from 0x0A on, so past that point DT buys no
         * speed and dropping it takes the target back to the simpler SDTR. */
        if (g.period >= PCAM_NEGO_FAST40)
            g.ppr_options = 0;
    }
    pcam_nego_normalize(&g);
    n->goal = g;
    /* Disconnect and tagging are not negotiated by message: they hold as soon as set. */
    n->current.disconnect = g.disconnect;
    n->current.tagged = g.tagged;
}

static void program_chip(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *s)
{
    pcam_hal_xfer_params p;

    p.period = s->period;
    p.offset = s->offset;
    p.width = s->width;
    p.ppr_options = s->ppr_options;
    /* Unit tests and script-level back-ends may have no per-target registers to set. */
    if (bus->hal.ops != NULL && bus->hal.ops->set_xfer != NULL)
        (void)bus->hal.ops->set_xfer(bus->hal.sc, target, &p);
}

static bool apply_current(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *next,
                          bool exchange)
{
    pcam_nego *n = nego_of(bus, target);
    pcam_xfer_settings nx = *next;
    uint32_t arg;

    pcam_nego_normalize(&nx);
    nx.disconnect = n->current.disconnect;
    nx.tagged = n->current.tagged;
    if (pcam_nego_same_link(&nx, &n->current))
        return false;
    n->current = nx;
    program_chip(bus, target, &nx);
    arg = (uint32_t)nx.period | ((uint32_t)nx.offset << 8);
#if PCAM_CFG_WIDE
    arg |= (uint32_t)nx.width << 16;
#endif
#if PCAM_CFG_PPR
    arg |= (uint32_t)nx.ppr_options << 24;
#endif
    pcam_core_event(bus, PCAM_EV_NEGOTIATED, target, PCAM_WILDCARD, arg);
    pcam_core_async(bus, PCAM_AC_TRANSFER_NEG, target, PCAM_WILDCARD);
    /* A reset is not a negotiation: only agreements reached (or lost) by
     * message count, so the counter says how chatty the target was. */
    if (exchange)
        PCAM_COUNT(bus->targets[target], negotiations);
    return true;
}

void pcam_nego_apply(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *next, bool exchange)
{
    (void)apply_current(bus, target, next, exchange);
}

void pcam_nego_fall_back(pcam_bus *bus, uint8_t target, uint8_t ns)
{
    pcam_xfer_settings next = nego_of(bus, target)->current;

    /* SPI: a failed SDTR leaves asynchronous; a failed WDTR or PPR also
     * leaves narrow (and WDTR resets sync anyway). */
    next.period = 0;
    next.offset = 0;
    next.ppr_options = 0;
#if PCAM_CFG_WIDE
    if (ns != PCAM_NS_SDTR)
        next.width = PCAM_WIDTH_8BIT;
#else
    (void)ns; /* narrow already */
#endif
    pcam_nego_apply(bus, target, &next, true);
}

/* ---- the nego.h interface ---- */

/* New (clamped) user limits: the goal follows, and a negotiation is due
 * when it differs from what is in force. */
static void take_user(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *u)
{
    pcam_nego *n = nego_of(bus, target);

    n->user = *u;
    pcam_nego_compute_goal(bus, target);
    if (!pcam_nego_same_link(&n->goal, &n->current))
        n->flags |= PCAM_NF_NEEDED;
}

void pcam_nego_init(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n;
    pcam_xfer_settings u;

    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    memset(n, 0, sizeof *n);
    /* The user starts at whatever the chip can do; clamping removes what it cannot. */
    u.period = bus->caps.min_period;
    u.offset = bus->caps.max_offset;
    u.width = PCAM_WIDTH_16BIT;
    u.ppr_options = PCAM_NEGO_OPTS;
    u.disconnect = true;
    u.tagged = true;
    pcam_nego_clamp_caps(bus, &u);
    /* Both ends power up asynchronous narrow (SPI); no chip programming is
     * needed for that, the back-end's reset state is asynchronous. */
    take_user(bus, target, &u);
}

bool pcam_nego_wanted(const pcam_bus *bus, uint8_t target)
{
    const pcam_nego *n;

    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return false;
    n = &bus->targets[target].nego;
    /* One negotiation in flight per target: SPI has no way to tell two apart. */
    return n->state == PCAM_NS_IDLE && (n->flags & PCAM_NF_NEEDED) != 0 &&
           !pcam_nego_same_link(&n->goal, &n->current);
}

bool pcam_nego_in_flight(const pcam_bus *bus, uint8_t target)
{
    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return false;
    return bus->targets[target].nego.state != PCAM_NS_IDLE;
}

void pcam_nego_invalidate(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n;
    pcam_xfer_settings next;

    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    /* Whatever was in flight died with the reset. */
    n->state = PCAM_NS_IDLE;
    n->replied = 0;
    next = n->current;
    next.period = 0;
    next.offset = 0;
    next.width = PCAM_WIDTH_8BIT;
    next.ppr_options = 0;
    /* The chip may have kept its registers through a bus reset or BDR while
     * the target forgot: program it even when the record already says async. */
    if (!apply_current(bus, target, &next, false))
        program_chip(bus, target, &n->current);
    /* The ladder and the step-down stay: the target still cannot do what it refused. */
    pcam_nego_compute_goal(bus, target);
    n->flags |= PCAM_NF_NEEDED;
}

void pcam_nego_set_user(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *s)
{
    pcam_nego *n;
    pcam_xfer_settings u;

    if (bus == NULL || s == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    u = *s;
    pcam_nego_clamp_caps(bus, &u);
    if (!pcam_nego_same_link(&u, &n->user)) {
        /* New limits are the user asking to try again: give the target a
         * clean ladder and speed. Re-setting the same limits keeps both. */
        n->ladder = 0;
        n->step_period = 0;
        n->flags &= (uint8_t)~PCAM_NF_STEP_ASYNC;
        n->parity_errors = 0;
    }
    take_user(bus, target, &u);
}

void pcam_nego_get(const pcam_bus *bus, uint8_t target, pcam_tran_type type,
                   pcam_xfer_settings *out)
{
    const pcam_target *t;

    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    t = &bus->targets[target];
    switch (type) {
    case PCAM_TRAN_USER:
        *out = t->nego.user;
        break;
    case PCAM_TRAN_GOAL:
        *out = t->nego.goal;
        break;
    case PCAM_TRAN_CURRENT:
        *out = t->nego.current;
        /* A rejected tag message turned tagging off whatever the user wants. */
        if ((t->dev.flags & PCAM_TGTF_NO_TAGS) != 0)
            out->tagged = false;
        break;
    default:
        break;
    }
}

/* The next slower period factor: +1 through the special fast factors, then
 * x1.5 rounded up; 0 means "slower than worth doing synchronously". */
static uint8_t slower_period(uint8_t p)
{
    unsigned next = p < PCAM_NEGO_LINEAR ? p + 1u : (3u * p + 1u) / 2u;
    return next > PCAM_NEGO_SLOWEST_SYNC ? 0 : (uint8_t)next;
}

void pcam_nego_parity(pcam_bus *bus, uint8_t target)
{
    pcam_nego *n;
    uint8_t threshold;
    uint8_t next;

    if (bus == NULL || target >= PCAM_MAX_TARGETS)
        return;
    n = nego_of(bus, target);
    PCAM_COUNT(bus->targets[target], parity_errors);
    if (n->parity_errors < UINT8_MAX)
        n->parity_errors++;
    /* 0 would mean "already due before any error"; read it as 1. */
    threshold = bus->cfg.parity_stepdown != 0 ? bus->cfg.parity_stepdown : 1;
    if (n->parity_errors < threshold)
        return;
    n->parity_errors = 0;
    /* Asynchronous has nothing slower to go to, and an already-lowered goal
     * waits for its renegotiation before the errors at the old speed count again. */
    if (n->current.offset == 0 || (n->flags & PCAM_NF_STEP_ASYNC) != 0) {
        n->flags |= PCAM_NF_NEEDED;
        return;
    }
    /* Step from the speed the errors happened at, not from the goal. */
    next = slower_period(n->current.period);
    if (next == 0) {
        n->flags |= PCAM_NF_STEP_ASYNC;
    } else if (next > n->step_period) {
        n->step_period = next;
    } else {
        n->flags |= PCAM_NF_NEEDED;
        return;
    }
    pcam_nego_compute_goal(bus, target);
    pcam_core_event(bus, PCAM_EV_SPEED_DOWN, target, PCAM_WILDCARD, next);
    n->flags |= PCAM_NF_NEEDED;
}
