/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's half of pcam_bus_check_invariants(): every active command
 * must be somewhere the engine will come back to it — on the bus (being
 * selected or connected), disconnected at its target, waiting for its
 * REQUEST SENSE, the command a recovery step works on or waiting for its
 * abort, or held by a script/command-level back-end. A command in none of
 * those places is an orphan: nothing would ever finish it (the fuzzer's
 * lost-command check found two). Linear in the commands active, so it can
 * run after every step of a fuzzer or a soak. Never changes anything.
 */
#include "engine_internal.h"

#if PCAM_CFG_INVARIANTS

/* Walk a link2 list: count its members that are active, find its tail.
 * Bounded, so a cycle is reported rather than followed. */
static const char *walk(const pcam_ccb *head, uint32_t limit, uint32_t *active, const pcam_ccb **tail)
{
    uint32_t n = 0;
    *active = 0;
    *tail = NULL;
    for (const pcam_ccb *c = head; c != NULL; c = c->priv.link2) {
        if (++n > limit)
            return "sense or abort list is cyclic";
        if (c->priv.state == PCAM_CS_ACTIVE)
            (*active)++;
        *tail = c;
    }
    return NULL;
}

const char *pcam_engine_check(const pcam_bus *bus, uint32_t nactive)
{
    uint32_t in_sense, in_abort, linked = 0, seen = 0;
    const pcam_ccb *stail, *atail;
    /* Every list member is a distinct CCB, so no list is longer than all of them could be. */
    uint32_t limit = nactive + 64u;
    const char *why = walk(bus->eng.sense_head, limit, &in_sense, &stail);
    if (why == NULL)
        why = walk(bus->lad.abort_head, limit, &in_abort, &atail);
    if (why != NULL)
        return why;
    bool dec = pcam_dec_active(bus);
    /* The active-LUN masks are exact (the queue check verified them). */
    for (uint8_t t = 0; t < bus->caps.max_targets; t++) {
        uint64_t mask = pcam_q_active_luns(bus, t);
        for (uint8_t u = 0; mask != 0 && u < bus->cfg.luns_per_target; u++, mask >>= 1) {
            if ((mask & 1u) == 0)
                continue;
            const pcam_lun *l = &bus->luns[(size_t)t * bus->cfg.luns_per_target + u];
            for (const pcam_ccb *c = l->q.active.head; c != NULL; c = c->priv.next) {
                /* link2 of an active command is only ever the sense or the abort list's. */
                bool on_list = c->priv.link2 != NULL || (c == stail && stail != NULL) ||
                               (c == atail && atail != NULL);
                seen++;
                if (on_list)
                    linked++;
                if (c == bus->eng.nexus || c == bus->lad.ccb || on_list)
                    continue;
                if ((c->priv.flags & PCAM_CF_DISCONNECTED) != 0)
                    continue;
                if (dec && (c->priv.recovery & DEC_AT_HAL) != 0)
                    continue;
                return "orphan active CCB: not on the bus, not disconnected, not awaiting sense, "
                       "not under recovery";
            }
        }
    }
    if (seen != nactive)
        return "active CCBs disagree with the LUN counts";
    /* A stale link2 would have let an orphan pass as "on a list". */
    if (linked != in_sense + in_abort)
        return "active CCB with a list link but on neither the sense nor the abort list";
    return NULL;
}
#endif /* PCAM_CFG_INVARIANTS */
