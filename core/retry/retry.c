/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What to do with a SCSI I/O once its status (and autosense) is in: the
 * retry policy. Transient conditions are retried within the CCB's budget;
 * media and request errors fail at once, so a bad block never causes a retry
 * storm. It decides and never acts: the engine carries the decision out
 * (ending.c), and the timeout escalation ladder is core/engine/ladder.c,
 * with the engine, which owns the bus actions it needs.
 */
#include "retry.h"
#include "../nego/nego.h"
#include "pcam/pcam_sense.h"

/* SCSI status codes (SAM). */
enum {
    ST_GOOD = 0x00,
    ST_CHECK = 0x02,
    ST_CONDITION_MET = 0x04,
    ST_BUSY = 0x08,
    ST_RESERVATION_CONFLICT = 0x18,
    ST_TASK_SET_FULL = 0x28,
    ST_ACA_ACTIVE = 0x30,
    ST_TASK_ABORTED = 0x40
};

#define NOT_READY_POLL_MS 250u

static bool can_retry(const pcam_ccb *ccb)
{
    return (ccb->flags & PCAM_CCB_NO_RECOVERY) == 0 && ccb->priv.retries_left > 0;
}

static pcam_retry_action retry(pcam_bus *bus, pcam_ccb *ccb)
{
    ccb->priv.retries_left--;
    PCAM_COUNT(bus->targets[ccb->target], retries);
    return PCAM_RA_RETRY;
}

/* `l` is the command's LUN slot (NULL if it has none). */
static pcam_retry_action check_condition(pcam_bus *bus, pcam_ccb *ccb, pcam_lun *l,
                                         const uint8_t *sense, uint32_t got, uint32_t *delay_ms)
{
    uint32_t base = PCAM_SCSI_STATUS_ERROR;
    pcam_sense s;
    const pcam_scsiio *io = &ccb->u.io;

    PCAM_COUNT(bus->targets[ccb->target], check_conditions);
    if ((ccb->status & PCAM_AUTOSNS_VALID) == 0) {
        /* Autosense off, or REQUEST SENSE itself failed. */
        if ((ccb->flags & PCAM_CCB_DIS_AUTOSENSE) == 0)
            base = PCAM_AUTOSENSE_FAIL;
        ccb->status = base;
        return PCAM_RA_COMPLETE;
    }
    ccb->status = base | PCAM_AUTOSNS_VALID;
    (void)io;
    if (pcam_sense_decode(sense, got, &s) != PCAM_OK || !s.key_valid)
        return PCAM_RA_COMPLETE;
    pcam_core_event(bus, PCAM_EV_CHECK_COND, ccb->target, ccb->lun,
                    ((uint32_t)s.key << 16) | ((uint32_t)s.asc << 8) | s.ascq);
    switch (s.key) {
    case PCAM_SK_UNIT_ATTENTION:
        /* Power on, reset or BDR: the target forgot the agreement too,
         * unless this is the first report of the reset the core saw or sent
         * itself, after which it renegotiates already: once is enough. */
        if (s.asc_valid && s.asc == 0x29) {
            if ((bus->targets[ccb->target].dev.flags & PCAM_TGTF_RESET_UA) == 0)
                pcam_nego_invalidate(bus, ccb->target);
            pcam_dev_tgt_flags(&bus->targets[ccb->target], 0, PCAM_TGTF_RESET_UA);
            /* read after the call: nego writes no LUN's dev (unit.layering) */
            bool ours = l != NULL && (l->dev.flags & PCAM_LUNF_RESET_UA) != 0;
            if (ours)
                pcam_dev_lun_flags(l, 0, PCAM_LUNF_RESET_UA);
            /* The report of a reset the core did or saw itself (a caller's
             * RESET_BUS or RESET_DEV, recovery's, one from the other side):
             * already told as an event, so it costs no retry. A command the
             * reset took down is reissued as if it had never gone out, and
             * one issued after meets no different fate; either way the
             * caller sees its command's own outcome, not the reset's side
             * effect. PCAM_CCB_NO_RECOVERY still gets the UNIT ATTENTION. */
            if (ours && (ccb->flags & PCAM_CCB_NO_RECOVERY) == 0) {
                pcam_core_async(bus, PCAM_AC_UNIT_ATTENTION, ccb->target, ccb->lun);
                return PCAM_RA_REQUEUE;
            }
        }
        pcam_core_async(bus, PCAM_AC_UNIT_ATTENTION, ccb->target, ccb->lun);
        return can_retry(ccb) ? retry(bus, ccb) : PCAM_RA_COMPLETE;
    case PCAM_SK_NOT_READY: {
        /* "Becoming ready" and "not reportable" clear by themselves: poll, bounded by time, not by the retry count. */
        bool transient = s.asc_valid && s.asc == 0x04 && (s.ascq == 0x01 || s.ascq == 0x00);
        uint64_t now = pcam_core_now(bus);
        uint64_t waited = now - ccb->priv.queued_ns;
        /* Bounded by not_ready_wait_ms and by the command's life in the core. */
        if (transient && (ccb->flags & PCAM_CCB_NO_RECOVERY) == 0 &&
            waited < PCAM_MS(bus->cfg.not_ready_wait_ms) &&
            now + PCAM_MS(NOT_READY_POLL_MS) < pcam_core_life_end(bus, ccb)) {
            *delay_ms = NOT_READY_POLL_MS;
            return PCAM_RA_REQUEUE;
        }
        return PCAM_RA_COMPLETE;
    }
    case PCAM_SK_ABORTED_COMMAND:
        return can_retry(ccb) ? retry(bus, ccb) : PCAM_RA_COMPLETE;
    case PCAM_SK_ILLEGAL_REQUEST: {
        /* LOGICAL UNIT NOT SUPPORTED from a LU the scan found: not the LU's
         * answer but a stale condition reported in its place (QEMU 7.2 says
         * it to REQUEST SENSE at a LUN above 0 while a UNIT ATTENTION is
         * pending there). The CHECK CONDITION used the condition up: one
         * retry, within the budget, instead of a hard failure. */
        if (s.asc_valid && s.asc == 0x25 && s.ascq == 0x00 && l != NULL &&
            (l->dev.flags & PCAM_LUNF_PRESENT) != 0 && can_retry(ccb))
            return retry(bus, ccb);
        return PCAM_RA_COMPLETE;
    }
    case PCAM_SK_NO_SENSE:
        if (!s.filemark && !s.eom && !s.ili && (!s.asc_valid || (s.asc == 0 && s.ascq == 0))) {
            /* CHECK CONDITION, then nothing to say: the condition was lost
             * before our REQUEST SENSE came (QEMU drops a LUN's sense when
             * another of its tagged commands completes first; found by the
             * UEFI test on the 53C8xx across ResetChannel). The command may
             * not have done its work: it is retried, within the budget, and
             * fails as the CHECK CONDITION it was once the budget is spent. */
            return can_retry(ccb) ? retry(bus, ccb) : PCAM_RA_COMPLETE;
        }
        /* Filemark, end of medium, incorrect length: what the command did
         * is reported with it, as for a RECOVERED ERROR. */
        ccb->status = PCAM_REQ_CMP | PCAM_AUTOSNS_VALID;
        return PCAM_RA_COMPLETE;
    case PCAM_SK_RECOVERED_ERROR:
        /* The command did its work; report the sense but no failure. */
        ccb->status = PCAM_REQ_CMP | PCAM_AUTOSNS_VALID;
        return PCAM_RA_COMPLETE;
    default:
        /* MEDIUM ERROR, HARDWARE ERROR, ILLEGAL REQUEST, DATA PROTECT...:
         * retrying cannot help and would hammer a failing block. */
        return PCAM_RA_COMPLETE;
    }
}

pcam_retry_action pcam_retry_decide(pcam_bus *bus, pcam_ccb *ccb, const uint8_t *sense,
                                    uint32_t sense_len, uint32_t *delay_ms)
{
    pcam_target *tgt = &bus->targets[ccb->target];
    pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
    *delay_ms = 0;
    switch (ccb->u.io.scsi_status) {
    case ST_GOOD:
    case ST_CONDITION_MET:
        /* A good status: any UNIT ATTENTION for our reset has been had. */
        pcam_dev_tgt_flags(tgt, 0, PCAM_TGTF_RESET_UA);
        if (l != NULL)
            pcam_dev_lun_flags(l, 0, PCAM_LUNF_RESET_UA);
        ccb->status = PCAM_REQ_CMP;
        return PCAM_RA_COMPLETE;
    case ST_CHECK:
        return check_condition(bus, ccb, l, sense, sense_len, delay_ms);
    case ST_BUSY:
        PCAM_COUNT(*tgt, busy);
        ccb->status = PCAM_SCSI_STATUS_ERROR;
        if (!can_retry(ccb))
            return PCAM_RA_COMPLETE;
        *delay_ms = bus->cfg.busy_delay_ms;
        ccb->priv.retries_left--;
        PCAM_COUNT(*tgt, retries);
        return PCAM_RA_RETRY_DELAY;
    case ST_TASK_SET_FULL:
        ccb->status = PCAM_SCSI_STATUS_ERROR;
        if ((ccb->flags & PCAM_CCB_NO_RECOVERY) != 0)
            return PCAM_RA_COMPLETE;
        return PCAM_RA_QUEUE_FULL;
    case ST_ACA_ACTIVE:
    case ST_TASK_ABORTED:
        ccb->status = PCAM_SCSI_STATUS_ERROR;
        return can_retry(ccb) ? retry(bus, ccb) : PCAM_RA_COMPLETE;
    case ST_RESERVATION_CONFLICT:
    default:
        ccb->status = PCAM_SCSI_STATUS_ERROR;
        return PCAM_RA_COMPLETE;
    }
}

pcam_retry_action pcam_retry_transport(pcam_bus *bus, pcam_ccb *ccb, uint32_t status)
{
    ccb->status = status;
    if (can_retry(ccb))
        return retry(bus, ccb);
    return PCAM_RA_COMPLETE;
}
