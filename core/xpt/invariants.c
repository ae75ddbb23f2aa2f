/* SPDX-License-Identifier: BSD-2-Clause */
/* The invariant check tests and fuzzers call after every step (compiled only
 * with PCAM_CFG_INVARIANTS). It reads every concern's state and writes none. */
#include "xpt.h"

#if PCAM_CFG_INVARIANTS
/* Is `c` the last CCB of the sense list (the one member whose link2 is NULL)? */
static bool sense_tail(const pcam_bus *bus, const pcam_ccb *c)
{
    const pcam_ccb *p = pcam_engine_sense_head(bus);
    if (p == NULL)
        return false;
    for (unsigned guard = 0; p->priv.link2 != NULL && guard < 100000u; guard++)
        p = p->priv.link2;
    return p == c;
}

/* Linear in LUNs plus active commands: the queue layer checks the whole
 * bus in one pass (asking it LUN by LUN made it search the LUN array every
 * time), and the engine finds orphans with one walk of each list. */
#endif

const char *pcam_bus_check_invariants(const pcam_bus *bus)
{
#if !PCAM_CFG_INVARIANTS
    /* Compiled out: nothing is checked, and nothing is reported. */
    (void)bus;
    return NULL;
#else
    if (bus == NULL)
        return "NULL bus";
    const char *why = pcam_q_check(bus, NULL);
    if (why != NULL)
        return why;
    /* pcam_q_check verified the active-LUN masks, the queue links and
     * states and each target's count against its LUNs': only LUNs with
     * commands active are left to look at. */
    uint32_t total = 0;
    for (uint8_t t = 0; t < bus->caps.max_targets; t++) {
        uint64_t mask = pcam_q_active_luns(bus, t);
        if (mask == 0)
            continue;
        if (t == bus->caps.initiator_id)
            return "commands active on the initiator's own ID";
        for (uint8_t u = 0; mask != 0 && u < bus->cfg.luns_per_target; u++, mask >>= 1) {
            if ((mask & 1u) == 0)
                continue;
            const pcam_lun *l = &bus->luns[(size_t)t * bus->cfg.luns_per_target + u];
            uint16_t sensing = 0;
            for (const pcam_ccb *c = l->q.active.head; c != NULL; c = c->priv.next) {
                total++;
                if (c->target != t || c->lun != u)
                    return "active CCB on the wrong LUN";
                if (c->priv.magic != PCAM_CCB_MAGIC)
                    return "active CCB lost its magic";
                if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
                    sensing++;
                    if (pcam_engine_nexus(bus) != c && c->priv.link2 == NULL && !sense_tail(bus, c))
                        return "CCB awaiting sense is neither on the bus nor queued for it";
                }
            }
            if (l->q.freeze < sensing)
                return "LUN running autosense is not frozen";
        }
    }
    for (const pcam_ccb *c = pcam_engine_sense_head(bus); c != NULL; c = c->priv.link2)
        if (c->priv.state != PCAM_CS_ACTIVE || (c->priv.flags & PCAM_CF_SENSE) == 0)
            return "sense list holds a CCB that is not awaiting sense";
    if (pcam_engine_nexus(bus) != NULL && pcam_engine_nexus(bus)->priv.state != PCAM_CS_ACTIVE)
        return "nexus CCB is not active";
    if (pcam_engine_nexus(bus) != NULL && (pcam_engine_nexus(bus)->priv.flags & PCAM_CF_DISCONNECTED) != 0 &&
        !pcam_engine_nexus_aborting(bus))
        return "nexus CCB is marked disconnected";
    return pcam_engine_check(bus, total);
#endif
}
