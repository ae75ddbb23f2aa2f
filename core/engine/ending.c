/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How a command's turn on the bus ends (phase level; decide.c shares the
 * outcome half): the status and its autosense, the retry decision carried
 * out (complete, retry, requeue, QUEUE FULL), a bus free expected or not,
 * a selection lost. It never starts a bus action except REQUEST SENSE's
 * selection; engine.c starts the rest.
 */
#include "engine_internal.h"

void pcam_eng_requeue(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_eng_recov_ccb_gone(bus, ccb); /* not at the target any more: nothing to abort */
    pcam_eng_reset_io_state(ccb);
    pcam_q_requeue(bus, ccb);
}

/* Byte `off` of a command's data, through its buffer or its S/G list. */
static bool io_byte(const pcam_scsiio *io, uint32_t off, uint8_t *out)
{
    if (io->sg_count == 0) {
        *out = ((const uint8_t *)io->data)[off];
        return true;
    }
    for (uint16_t i = 0; i < io->sg_count; off -= io->sg[i].len, i++)
        if (off < io->sg[i].len) {
            *out = ((const uint8_t *)io->sg[i].addr)[off];
            return true;
        }
    return false;
}

/* A standard INQUIRY the caller ran itself (an OS that scans on its own,
 * as CAM and Linux do) tells the core whether the LUN takes tags, as its
 * own scan would: without CmdQue a tag message is a protocol error. */
static void note_inquiry(pcam_bus *bus, const pcam_ccb *ccb)
{
    const pcam_scsiio *io = &ccb->u.io;
    pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
    uint8_t b0, b7;
    if (l == NULL || io->cdb[0] != 0x12 || (io->cdb[1] & 0x01) != 0 || io->dir != PCAM_DIR_IN ||
        io->data_len - io->resid < 8 || !io_byte(io, 0, &b0) || !io_byte(io, 7, &b7))
        return;
    if ((b0 >> 5) == 0 && (b0 & 0x1Fu) != 0x1Fu && (b7 & 0x02u) != 0)
        pcam_dev_lun_flags(l, PCAM_LUNF_TAGGED, 0);
    else
        pcam_dev_lun_flags(l, 0, PCAM_LUNF_TAGGED);
}

void pcam_eng_end_unissued(pcam_bus *bus, pcam_ccb *ccb, uint32_t status)
{
    /* Uncounted, a caller's abort or a shutdown would make the target's
     * "commands" fall short of what it was handed. */
    PCAM_COUNT(bus->targets[ccb->target], commands);
    PCAM_COUNT(bus->targets[ccb->target], errors);
    pcam_core_complete(bus, ccb, status);
}

/* The CCB leaves the core for good with `status`. */
void pcam_eng_retire(pcam_bus *bus, pcam_ccb *ccb, uint32_t status)
{
    pcam_target *t = &bus->targets[ccb->target];
    uint32_t code = status & PCAM_STATUS_MASK;
    pcam_eng_recov_ccb_gone(bus, ccb);
    pcam_q_retire(bus, ccb, code == PCAM_REQ_CMP);
    PCAM_COUNT(*t, commands);
    if (code != PCAM_REQ_CMP) {
        PCAM_COUNT(*t, errors);
        if ((ccb->flags & PCAM_CCB_FREEZE_ON_ERROR) != 0) {
            pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
            if (l != NULL)
                pcam_q_freeze(l);
            status |= PCAM_DEV_QFRZN;
        }
    }
    /* An overrun filled the buffer before the target went on: the residual
     * says what moved (data_ptr counts data bytes here, never sense). */
    if (code == PCAM_REQ_CMP || code == PCAM_DATA_RUN_ERR)
        ccb->u.io.resid = ccb->u.io.data_len - ccb->priv.data_ptr;
    if (code == PCAM_REQ_CMP)
        note_inquiry(bus, ccb);
    pcam_core_complete(bus, ccb, status);
    if (code != PCAM_REQ_CMP && (ccb->flags & PCAM_CCB_RETURN_QUEUED) != 0) {
        /* Completions are delivered later, so a callback cannot refill the queue under this loop. */
        pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
        pcam_ccb *c;
        while (l != NULL && (c = pcam_q_pop_pending(l)) != NULL)
            pcam_eng_end_unissued(bus, c, PCAM_REQUEUE_REQ);
    }
}

/* ---- completion of a command's bus part ---- */

static void start_autosense(pcam_bus *bus, pcam_ccb *c)
{
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    c->priv.orig_status = c->u.io.scsi_status;
    c->priv.flags |= PCAM_CF_SENSE;
    if (l != NULL)
        pcam_q_freeze(l); /* nothing else reaches the LUN before its sense is read */
    c->priv.link2 = NULL;
    pcam_ccb **pp = &bus->eng.sense_head;
    while (*pp != NULL)
        pp = &(*pp)->priv.link2;
    *pp = c;
}

static void apply_decision(pcam_bus *bus, pcam_ccb *c, pcam_retry_action a, uint32_t delay_ms)
{
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    switch (a) {
    case PCAM_RA_COMPLETE:
        pcam_eng_retire(bus, c, c->status);
        return;
    case PCAM_RA_QUEUE_FULL: {
        pcam_eng_reset_io_state(c);
        uint16_t depth = pcam_q_queue_full(bus, c);
        pcam_core_log(bus, PCAM_LOG_INFO, "QUEUE FULL: depth lowered", NULL);
        if (l != NULL && depth > l->q.active.count) {
            /* The floor keeps the depth above what the target holds (or it
             * holds nothing of ours: other initiators filled it). Resending
             * at once would meet QUEUE FULL again, and again, with the
             * initiator winning every arbitration so the target can never
             * reconnect: wait as for BUSY instead. */
            uint64_t until = pcam_core_now(bus) + PCAM_MS(bus->cfg.busy_delay_ms);
            pcam_q_hold(l, until);
            pcam_core_note_hold(bus, until);
        }
        return;
    }
    case PCAM_RA_RETRY:
    case PCAM_RA_RETRY_DELAY:
    case PCAM_RA_REQUEUE:
        if (delay_ms != 0 && l != NULL) {
            /* Hold the whole LUN: a BUSY or becoming-ready device gains nothing from its other commands. */
            uint64_t until = pcam_core_now(bus) + PCAM_MS(delay_ms);
            pcam_q_hold(l, until);
            pcam_core_note_hold(bus, until);
        }
        pcam_eng_requeue(bus, c);
        return;
    }
}

void pcam_eng_apply(pcam_bus *bus, pcam_ccb *c, pcam_retry_action a, uint32_t delay_ms)
{
    apply_decision(bus, c, a, delay_ms);
}

/* REQUEST SENSE itself failed: decide on the CHECK CONDITION without sense. */
void pcam_eng_sense_failed(pcam_bus *bus, pcam_ccb *c)
{
    uint32_t delay = 0;
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    pcam_core_unfreeze(bus, l);
    c->priv.flags &= (uint8_t)~(PCAM_CF_SENSE | PCAM_CF_BUS_SENSE);
    c->u.io.scsi_status = c->priv.orig_status;
    c->status = 0;
    apply_decision(bus, c, pcam_eng_decide(bus, c, &delay), delay);
}

void pcam_eng_finish_io(pcam_bus *bus, pcam_ccb *c)
{
    uint32_t delay = 0;
    pcam_retry_action a;

    if ((c->priv.flags & PCAM_CF_ABORT) != 0) {
        /* Completed after all despite the abort request: report the abort,
         * or the reason the engine itself aborted it (an overrun, a phase
         * in the wrong direction), which a target that ignored our ABORT
         * TASK must not turn into a caller's abort. */
        uint32_t st = (c->priv.flags & PCAM_CF_TIMED_OUT) != 0 ? PCAM_CMD_TIMEOUT : PCAM_REQ_ABORTED;
        if (st == PCAM_REQ_ABORTED && (c->status == PCAM_DATA_RUN_ERR || c->status == PCAM_SEQUENCE_FAIL))
            st = c->status;
        if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
            pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
            pcam_core_unfreeze(bus, l);
        }
        pcam_eng_retire(bus, c, st);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0 && bus->eng.status_byte == 0x02 &&
        (c->priv.recovery & PCAM_REC_SENSE_AGAIN) == 0 && (c->priv.flags & PCAM_CF_PARITY) == 0) {
        /* Our REQUEST SENSE met CHECK CONDITION itself: the target reported
         * a condition of its own in place of the sense (QEMU 7.2 answers it
         * with a pending power-on UNIT ATTENTION, which SAM forbids), and in
         * doing so handed that condition over. Ask once more, LUN still
         * frozen: what it says then is what the command is decided on (the
         * UNIT ATTENTION, retried as policy says), instead of failing with
         * AUTOSENSE_FAIL and nothing the caller could act on. */
        c->priv.recovery |= PCAM_REC_SENSE_AGAIN;
        c->priv.link2 = bus->eng.sense_head;
        bus->eng.sense_head = c;
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
        pcam_core_unfreeze(bus, l);
        c->priv.flags &= (uint8_t)~PCAM_CF_SENSE;
        c->u.io.scsi_status = c->priv.orig_status;
        /* Sense bytes that came with bad parity are not sense: the
         * CHECK CONDITION is decided as if REQUEST SENSE had failed. */
        if (bus->eng.status_byte == 0x00 && c->priv.data_ptr > 0 &&
            (c->priv.flags & PCAM_CF_PARITY) == 0) {
            if ((c->priv.flags & PCAM_CF_BUS_SENSE) != 0)
                bus->eng.sense_got = (uint8_t)c->priv.data_ptr;
            else
                c->u.io.sense_resid = (uint8_t)(c->u.io.sense_len - c->priv.data_ptr);
            c->status = PCAM_AUTOSNS_VALID;
        } else {
            c->status = 0;
        }
        c->priv.data_ptr = c->priv.saved_ptr = (uint32_t)(c->u.io.data_len - c->u.io.resid);
        a = pcam_eng_decide(bus, c, &delay);
        if ((c->priv.flags & PCAM_CF_BUS_SENSE) != 0) {
            /* The caller gave no buffer: recovery saw the sense, the caller gets none. */
            c->status &= ~PCAM_AUTOSNS_VALID;
            c->priv.flags &= (uint8_t)~PCAM_CF_BUS_SENSE;
        }
        apply_decision(bus, c, a, delay);
        return;
    }
    c->u.io.scsi_status = bus->eng.status_byte;
    c->u.io.resid = c->u.io.data_len - c->priv.data_ptr;
    if ((c->priv.flags & PCAM_CF_PARITY) != 0) {
        uint32_t st = c->status == PCAM_SEQUENCE_FAIL ? PCAM_SEQUENCE_FAIL : PCAM_UNCOR_PARITY;
        apply_decision(bus, c, pcam_retry_transport(bus, c, st), 0);
        return;
    }
    if (c->u.io.scsi_status == 0x02 && (c->flags & PCAM_CCB_DIS_AUTOSENSE) == 0) {
        if (c->u.io.sense_len == 0)
            c->priv.flags |= PCAM_CF_BUS_SENSE;
        start_autosense(bus, c);
        return;
    }
    c->status = 0;
    a = pcam_eng_decide(bus, c, &delay);
    apply_decision(bus, c, a, delay);
}

void pcam_eng_on_bus_free(pcam_bus *bus)
{
    uint8_t ef = bus->eng.expect_free;
    pcam_ccb *c = bus->eng.nexus;
    pcam_ccb *m = bus->eng.mgmt_ccb;
    uint8_t kind = bus->eng.sel_kind;
    uint8_t last = bus->eng.last_msgout;
    uint8_t target = bus->eng.conn_target;
    uint8_t lun = bus->eng.conn_lun;
    bool refused = (bus->eng.engine_flags & EGF_REFUSED) != 0;

    pcam_eng_connected_idle(bus);
    pcam_eng_watch_over(bus);
    if (refused && kind != SK_IO) {
        /* A selection made only for an abort or reset that the target
         * refused: a caller's reset fails; a recovery step is left to its
         * timer, which escalates (the victim is still active). */
        if (kind == SK_MGMT && m != NULL) {
            pcam_eng_mgmt_step_over(bus);
            pcam_core_complete(bus, m, PCAM_MSG_REJECT_REC);
        }
        return;
    }
    switch (ef) {
    case EF_COMPLETE:
        if (c != NULL)
            pcam_eng_finish_io(bus, c);
        return;
    case EF_DISCONNECT:
        if (c != NULL && (c->priv.flags & PCAM_CF_SENSE) != 0) {
            /* Our REQUEST SENSE goes without disconnect privilege: a target
             * that disconnects anyway has broken the contingent allegiance,
             * and nothing would reconnect it. The sense is lost. */
            pcam_eng_sense_failed(bus, c);
            return;
        }
        if (c != NULL) {
            c->priv.flags |= PCAM_CF_DISCONNECTED;
            /* Aborted while selecting or while its DISCONNECT was in flight:
             * nothing else would send the ABORT TASK, it would wait for its timeout. */
            if ((c->priv.flags & PCAM_CF_ABORT) != 0 && kind == SK_IO)
                pcam_eng_request_abort(bus, c);
        }
        return;
    case EF_ABORT:
        if (kind == SK_MGMT && m != NULL) {
            pcam_eng_recovery_success(bus, last, target, lun, NULL);
            pcam_eng_mgmt_step_over(bus);
            pcam_core_complete(bus, m, PCAM_REQ_CMP);
            return;
        }
        pcam_eng_recovery_success(bus, last, target, lun, c);
        return;
    default:
        break;
    }
    /* Unexpected: the target dropped the nexus. */
    if (target < PCAM_MAX_TARGETS)
        pcam_core_event(bus, PCAM_EV_UNEXP_FREE, target, 0xFF, 0);
    if (kind == SK_MGMT && m != NULL) {
        pcam_eng_mgmt_step_over(bus);
        pcam_ccbq_push_head(&bus->eng.mgmt, m);
        m->priv.state = PCAM_CS_MGMT;
        return;
    }
    if (c == NULL)
        return;
    if ((c->priv.flags & PCAM_CF_NEGO) != 0 && pcam_nego_in_flight(bus, c->target))
        pcam_nego_rejected(bus, c->target); /* some targets hang up on a message they dislike */
    if (kind == SK_ABORT || (c->priv.flags & PCAM_CF_ABORT) != 0) {
        /* Dropping the bus in answer to an abort selection is as good as a yes. */
        pcam_eng_recovery_success(bus, PCAM_MSG_ABORT_TASK, target, lun, c);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        pcam_eng_sense_failed(bus, c);
        return;
    }
    apply_decision(bus, c, pcam_retry_transport(bus, c, PCAM_UNEXP_BUSFREE), 0);
}

/* Our selection lost arbitration to a reselection: undo it, nothing spent. */
void pcam_eng_lost_select(pcam_bus *bus)
{
    pcam_ccb *c = bus->eng.nexus;
    pcam_ccb *m = bus->eng.mgmt_ccb;
    uint8_t kind = bus->eng.sel_kind;
    pcam_eng_connected_idle(bus);
    if (kind == SK_MGMT && m != NULL) {
        pcam_eng_mgmt_step_over(bus);
        m->priv.state = PCAM_CS_MGMT;
        pcam_ccbq_push_head(&bus->eng.mgmt, m);
        return;
    }
    if (c == NULL)
        return;
    pcam_eng_nego_unsent(bus, c);
    if (kind == SK_ABORT) {
        pcam_eng_request_abort(bus, c);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        c->priv.link2 = bus->eng.sense_head;
        bus->eng.sense_head = c;
        return;
    }
    pcam_eng_requeue(bus, c);
}
