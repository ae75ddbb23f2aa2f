/* SPDX-License-Identifier: BSD-2-Clause */
/* Status names and the invariant check tests and fuzzers call after every step
 * (compiled only with PCAM_CFG_INVARIANTS; without it the size here is the
 * status names). */
#include "pcam_core.h"

/* The names in one string, in the order of status_codes, then the name of
 * every other code: one byte per code and no pointer table (a switch
 * returning literals cost a 54-entry pointer table, 216 bytes on a 32-bit
 * target, for 25 names). */
static const uint8_t status_codes[] = {
    PCAM_REQ_INPROG,     PCAM_REQ_CMP,         PCAM_REQ_ABORTED,       PCAM_REQ_CMP_ERR,
    PCAM_BUSY,           PCAM_REQ_INVALID,     PCAM_PATH_INVALID,      PCAM_DEV_NOT_THERE,
    PCAM_SEL_TIMEOUT,    PCAM_CMD_TIMEOUT,     PCAM_SCSI_STATUS_ERROR, PCAM_SCSI_BUS_RESET,
    PCAM_UNCOR_PARITY,   PCAM_AUTOSENSE_FAIL,  PCAM_NO_HBA,            PCAM_DATA_RUN_ERR,
    PCAM_UNEXP_BUSFREE,  PCAM_SEQUENCE_FAIL,   PCAM_BDR_SENT,          PCAM_REQ_TOO_BIG,
    PCAM_REQUEUE_REQ,    PCAM_MSG_REJECT_REC,  PCAM_RESRC_UNAVAIL,     PCAM_FUNC_NOTAVAIL};
static const char status_names[] =
    "REQ_INPROG\0REQ_CMP\0REQ_ABORTED\0REQ_CMP_ERR\0"
    "BUSY\0REQ_INVALID\0PATH_INVALID\0DEV_NOT_THERE\0"
    "SEL_TIMEOUT\0CMD_TIMEOUT\0SCSI_STATUS_ERROR\0SCSI_BUS_RESET\0"
    "UNCOR_PARITY\0AUTOSENSE_FAIL\0NO_HBA\0DATA_RUN_ERR\0"
    "UNEXP_BUSFREE\0SEQUENCE_FAIL\0BDR_SENT\0REQ_TOO_BIG\0"
    "REQUEUE_REQ\0MSG_REJECT_REC\0RESRC_UNAVAIL\0FUNC_NOTAVAIL\0"
    "UNKNOWN_STATUS";

const char *pcam_status_name(uint32_t status)
{
    const char *p = status_names;
    uint32_t code = status & PCAM_STATUS_MASK;
    /* Skip one name per code that is not it; past the last, UNKNOWN_STATUS. */
    for (size_t i = 0; i < sizeof status_codes && status_codes[i] != code; i++)
        while (*p++ != '\0')
            ;
    return p;
}

#if PCAM_CFG_INVARIANTS
/* Is `c` the last CCB of the sense list (the one member whose link2 is NULL)? */
static bool sense_tail(const pcam_bus *bus, const pcam_ccb *c)
{
    const pcam_ccb *p = bus->sense_head;
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
        if (((bus->q_act_targets >> t) & 1u) == 0)
            continue;
        if (t == bus->caps.initiator_id)
            return "commands active on the initiator's own ID";
        uint64_t mask = bus->q_act_luns[t];
        for (uint8_t u = 0; mask != 0 && u < bus->cfg.luns_per_target; u++, mask >>= 1) {
            if ((mask & 1u) == 0)
                continue;
            const pcam_lun *l = &bus->luns[(size_t)t * bus->cfg.luns_per_target + u];
            uint16_t sensing = 0;
            for (const pcam_ccb *c = l->active.head; c != NULL; c = c->priv.next) {
                total++;
                if (c->target != t || c->lun != u)
                    return "active CCB on the wrong LUN";
                if (c->priv.magic != PCAM_CCB_MAGIC)
                    return "active CCB lost its magic";
                if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
                    sensing++;
                    if (bus->nexus != c && c->priv.link2 == NULL && !sense_tail(bus, c))
                        return "CCB awaiting sense is neither on the bus nor queued for it";
                }
            }
            if (l->freeze < sensing)
                return "LUN running autosense is not frozen";
        }
    }
    for (const pcam_ccb *c = bus->sense_head; c != NULL; c = c->priv.link2)
        if (c->priv.state != PCAM_CS_ACTIVE || (c->priv.flags & PCAM_CF_SENSE) == 0)
            return "sense list holds a CCB that is not awaiting sense";
    if (bus->nexus != NULL && bus->nexus->priv.state != PCAM_CS_ACTIVE)
        return "nexus CCB is not active";
    if (bus->nexus != NULL && (bus->nexus->priv.flags & PCAM_CF_DISCONNECTED) != 0 &&
        !pcam_engine_nexus_aborting(bus))
        return "nexus CCB is marked disconnected";
    return pcam_engine_check(bus, total);
#endif
}
