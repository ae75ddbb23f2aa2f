/* SPDX-License-Identifier: BSD-2-Clause */
/* Status names and the invariant check tests and fuzzers call after every step. */
#include "pcam_core.h"

const char *pcam_status_name(uint32_t status)
{
    switch (status & PCAM_STATUS_MASK) {
    case PCAM_REQ_INPROG: return "REQ_INPROG";
    case PCAM_REQ_CMP: return "REQ_CMP";
    case PCAM_REQ_ABORTED: return "REQ_ABORTED";
    case PCAM_REQ_CMP_ERR: return "REQ_CMP_ERR";
    case PCAM_BUSY: return "BUSY";
    case PCAM_REQ_INVALID: return "REQ_INVALID";
    case PCAM_PATH_INVALID: return "PATH_INVALID";
    case PCAM_DEV_NOT_THERE: return "DEV_NOT_THERE";
    case PCAM_SEL_TIMEOUT: return "SEL_TIMEOUT";
    case PCAM_CMD_TIMEOUT: return "CMD_TIMEOUT";
    case PCAM_SCSI_STATUS_ERROR: return "SCSI_STATUS_ERROR";
    case PCAM_SCSI_BUS_RESET: return "SCSI_BUS_RESET";
    case PCAM_UNCOR_PARITY: return "UNCOR_PARITY";
    case PCAM_AUTOSENSE_FAIL: return "AUTOSENSE_FAIL";
    case PCAM_NO_HBA: return "NO_HBA";
    case PCAM_DATA_RUN_ERR: return "DATA_RUN_ERR";
    case PCAM_UNEXP_BUSFREE: return "UNEXP_BUSFREE";
    case PCAM_SEQUENCE_FAIL: return "SEQUENCE_FAIL";
    case PCAM_BDR_SENT: return "BDR_SENT";
    case PCAM_REQ_TOO_BIG: return "REQ_TOO_BIG";
    case PCAM_REQUEUE_REQ: return "REQUEUE_REQ";
    case PCAM_MSG_REJECT_REC: return "MSG_REJECT_REC";
    case PCAM_RESRC_UNAVAIL: return "RESRC_UNAVAIL";
    case PCAM_FUNC_NOTAVAIL: return "FUNC_NOTAVAIL";
    default: return "UNKNOWN_STATUS";
    }
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
