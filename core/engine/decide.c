/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Script-level and command-level back-ends (pcam_hal.h, hal_cmd): the chip
 * or the adapter's firmware runs the bus phases, so the core hands it whole
 * commands and answers the questions it cannot answer itself. Everything
 * that is policy stays where the phase-level engine has it: the queues and
 * tags (core/queue), the negotiation state (core/nego), the retry policy
 * (core/retry), autosense, the QUEUE FULL depth and the escalation ladder
 * (ending.c, ladder.c). This file only translates.
 *
 * How the engine's bus state is used here: bus->eng.state stays ES_IDLE except
 * while a bus reset is under way (ES_RESETTING) or the chip is dead;
 * bus->eng.nexus is the one command whose core-run REQUEST SENSE is at the
 * back-end (one at a time, since its bytes may land in bus->eng.sense_buf);
 * bus->eng.mgmt_ccb is the PCAM_FN_RESET_DEV whose reset_dev is at the
 * back-end. ccb->priv.recovery carries DEC_AT_HAL / DEC_ABORT_SENT.
 */
#include "engine_internal.h"

/* After a refusal for want of room the core starts commands only as
 * reports make room (each pcam_bus_hal_done() frees the slot it names),
 * instead of taking a command from the queues, being refused and putting
 * it back after every report. The refusal may have been a passing shortage
 * (the room can grow by other ways than reports), so after this many
 * reports the core tries past the count again; a bus reset (the back-end
 * forgets everything) or a device reset (what it held for that device)
 * ends the count at once. */
#define DEC_PROBE_DONES 32u

bool pcam_dec_hal_ok(const pcam_hal *hal, pcam_hal_profile profile)
{
    const pcam_hal_ops *o = hal->ops;
    if (o->get_caps == NULL || o->reset_chip == NULL || o->reset_bus == NULL ||
        o->set_xfer == NULL || o->poll == NULL)
        return false;
    if (profile == PCAM_HAL_SCRIPT_LEVEL || profile == PCAM_HAL_COMMAND_LEVEL) {
        if (!PCAM_CFG_CMDLEVEL)
            return false;
        const pcam_hal_cmd_ops *c = hal->cmd;
        return c != NULL && c->attach != NULL && c->start != NULL && c->abort != NULL &&
               c->reset_dev != NULL;
    }
    return o->select != NULL && o->transfer != NULL && o->msg_out != NULL && o->msg_in != NULL &&
           o->msg_accept != NULL && o->set_atn != NULL;
}

#if PCAM_CFG_CMDLEVEL
void pcam_dec_attach(pcam_bus *bus)
{
    if (pcam_dec_active(bus))
        bus->hal.cmd->attach(bus->hal.sc, bus);
}

static void dec_recovery_done(pcam_bus *bus)
{
    bus->lad.step = RS_NONE;
    bus->lad.ccb = NULL;
    bus->lad.deadline_ns = 0;
}

/* Hand `c` to the back-end. Returns false when it had no room (the caller
 * puts the command back where it came from). */
static bool dec_start(pcam_bus *bus, pcam_ccb *c, bool sense)
{
    pcam_hal_cmd d;
    memset(&d, 0, sizeof d);
    d.handle = c;
    d.target = c->target;
    d.lun = c->lun;
    d.timeout_ms = c->timeout_ms != 0 ? c->timeout_ms : bus->cfg.default_timeout_ms;
    if (sense) {
        bool own = (c->priv.flags & PCAM_CF_BUS_SENSE) != 0;
        uint8_t alloc = own ? (uint8_t)sizeof bus->eng.sense_buf : c->u.io.sense_len;
        bus->eng.sense_cdb[0] = 0x03; /* REQUEST SENSE (SPC) */
        bus->eng.sense_cdb[1] = 0;
        bus->eng.sense_cdb[2] = 0;
        bus->eng.sense_cdb[3] = 0;
        bus->eng.sense_cdb[4] = alloc;
        bus->eng.sense_cdb[5] = 0;
        d.cdb = bus->eng.sense_cdb;
        d.cdb_len = 6;
        d.dir = PCAM_DIR_IN;
        d.data = own ? bus->eng.sense_buf : c->u.io.sense;
        d.data_len = alloc;
        /* Contingent allegiance: untagged and connected throughout, as the
         * phase-level engine sends it. */
        d.flags = PCAM_HAL_CMD_CORE_SENSE;
    } else {
        d.tag_msg = c->priv.tag_msg;
        d.tag = c->priv.tag;
        d.cdb = c->u.io.cdb;
        d.cdb_len = c->u.io.cdb_len;
        d.dir = c->u.io.dir;
        d.data = c->u.io.data;
        d.sg = c->u.io.sg;
        d.sg_count = c->u.io.sg_count;
        d.data_len = c->u.io.data_len;
        if ((c->flags & PCAM_CCB_DIS_DISCONNECT) == 0 && bus->targets[c->target].nego.user.disconnect)
            d.flags |= PCAM_HAL_CMD_DISCONNECT;
        if ((bus->caps.flags & PCAM_HAL_CAP_AUTOSENSE) != 0 &&
            (c->flags & PCAM_CCB_DIS_AUTOSENSE) == 0 && c->u.io.sense_len != 0) {
            d.flags |= PCAM_HAL_CMD_AUTOSENSE;
            d.sense = c->u.io.sense;
            d.sense_len = c->u.io.sense_len;
        }
    }
    int rc = bus->hal.cmd->start(bus->hal.sc, &d);
    if (rc == PCAM_ERR_NOSPACE) {
        bus->eng.engine_flags |= EGF_HAL_FULL;
        bus->eng.hal_room = 0;
        bus->eng.hal_dones = 0;
        return false;
    }
    if (rc < 0) {
        /* The back-end refuses this command outright (it is malformed for
         * it, or the adapter is dead): it fails, nothing else does. */
        pcam_core_log(bus, PCAM_LOG_WARN, "back-end refused a command", NULL);
        if (sense) {
            bus->eng.status_byte = 0xFF; /* its sense cannot be fetched */
            c->priv.data_ptr = 0;
            pcam_eng_finish_io(bus, c);
        } else {
            pcam_eng_retire(bus, c, PCAM_REQ_CMP_ERR);
        }
        return true;
    }
    c->priv.recovery |= DEC_AT_HAL;
    if (sense)
        bus->eng.nexus = c;
    if ((bus->eng.engine_flags & EGF_HAL_FULL) != 0 && bus->eng.hal_room > 0)
        bus->eng.hal_room--;
    return true;
}

static void dec_issue(pcam_bus *bus, pcam_ccb *c, uint64_t now)
{
    c->priv.deadline_ns = pcam_eng_issue_deadline(bus, c, now);
    if (c->priv.deadline_ns == 0) {
        PCAM_COUNT(bus->targets[c->target], timeouts);
        pcam_core_event(bus, PCAM_EV_TIMEOUT, c->target, c->lun, c->priv.tag);
        c->u.io.recovery |= PCAM_RCV_NOT_ISSUED;
        pcam_eng_retire(bus, c, PCAM_CMD_TIMEOUT);
        return;
    }
    if (c->priv.deadline_ns < bus->eng.timer_ns)
        bus->eng.timer_ns = c->priv.deadline_ns;
    pcam_eng_reset_io_state(c); /* starts clean, as before every phase-level selection */
    if (!dec_start(bus, c, false))
        pcam_eng_requeue(bus, c); /* no room: as if never issued, no retry spent */
}

static void dec_send_abort(pcam_bus *bus, pcam_ccb *v)
{
    v->priv.recovery |= DEC_ABORT_SENT;
    v->u.io.recovery |= PCAM_RCV_ABORT;
    if ((v->priv.recovery & DEC_AT_HAL) != 0)
        (void)bus->hal.cmd->abort(bus->hal.sc, v);
    /* Not at the back-end (waiting for its REQUEST SENSE slot): it comes
     * back as aborted when it does; the step's timer covers the rest. */
}

/* The recovery step that is due, if any. True when it did something. */
static bool dec_recovery(pcam_bus *bus, uint64_t now)
{
    if (bus->lad.step == RS_BDR) {
        pcam_ccb *v = bus->lad.ccb;
        if (v == NULL) {
            dec_recovery_done(bus);
            return false;
        }
        if (bus->eng.mgmt_ccb != NULL)
            return false; /* one device reset at a time: the caller's goes first */
        bus->lad.step = RS_BDR_SENT;
        bus->lad.deadline_ns = now + PCAM_MS(bus->cfg.abort_timeout_ms);
        bus->lad.target = v->target;
        bus->lad.lun = v->lun;
        v->u.io.recovery |= PCAM_RCV_DEV_RESET;
        if (bus->hal.cmd->reset_dev(bus->hal.sc, v->target, v->lun, false) < 0)
            pcam_eng_escalate(bus);
        return true;
    }
    if (bus->lad.step == RS_ABORT) {
        pcam_ccb *v = bus->lad.ccb;
        if (v != NULL && (v->priv.recovery & DEC_ABORT_SENT) == 0) {
            dec_send_abort(bus, v);
            return true;
        }
        return false;
    }
    if (bus->lad.step != RS_NONE)
        return false;
    while (bus->lad.abort_head != NULL) {
        pcam_ccb *v = bus->lad.abort_head;
        bus->lad.abort_head = v->priv.link2;
        v->priv.link2 = NULL;
        if (v->priv.state != PCAM_CS_ACTIVE || (v->priv.recovery & DEC_ABORT_SENT) != 0)
            continue; /* finished meanwhile, or already asked */
        bus->lad.step = RS_ABORT;
        bus->lad.ccb = v;
        bus->lad.deadline_ns = now + PCAM_MS(bus->cfg.abort_timeout_ms);
        dec_send_abort(bus, v);
        return true;
    }
    return false;
}

static void dec_start_mgmt(pcam_bus *bus, pcam_ccb *m)
{
    bool lun_reset = (m->flags & PCAM_CCB_LUN_RESET) != 0;
    bus->eng.mgmt_ccb = m;
    if (bus->hal.cmd->reset_dev(bus->hal.sc, m->target, m->lun, lun_reset) < 0) {
        bus->eng.mgmt_ccb = NULL;
        pcam_core_complete(bus, m, PCAM_REQ_CMP_ERR);
    }
}

void pcam_dec_kick(pcam_bus *bus)
{
    for (;;) {
        if (bus->eng.state != ES_IDLE || bus->eng.shut_down)
            return;
        uint64_t now = pcam_core_now(bus);
        /* Autosense first: its LUN is frozen until the sense is in. */
        if (bus->eng.sense_head != NULL && bus->eng.nexus == NULL) {
            pcam_ccb *c = bus->eng.sense_head;
            bus->eng.sense_head = c->priv.link2;
            c->priv.link2 = NULL;
            c->priv.data_ptr = 0;
            if (!dec_start(bus, c, true)) {
                c->priv.link2 = bus->eng.sense_head;
                bus->eng.sense_head = c;
                return;
            }
            continue;
        }
        if (dec_recovery(bus, now))
            continue;
        if (bus->lad.step != RS_NONE)
            return; /* nothing new while a recovery step is under way */
        if (now < bus->lad.settle_until_ns)
            return;
        if (bus->eng.mgmt_ccb == NULL && bus->eng.mgmt.head != NULL) {
            dec_start_mgmt(bus, pcam_ccbq_pop_head(&bus->eng.mgmt));
            continue;
        }
        if (pcam_engine_hal_no_room(bus))
            return;
        pcam_ccb *c = pcam_q_next(bus, now);
        if (c == NULL)
            return;
        dec_issue(bus, c, now);
    }
}

/* ---- what the back-end reports and asks (core/xpt's pcam_bus_hal_*) ---- */

/* A reset or an abort taken through the shared recovery path may have taken
 * down the command whose REQUEST SENSE was at the back-end (requeued or
 * failed it): it no longer holds the one core-sense slot. */
static void dec_settle_nexus(pcam_bus *bus)
{
    const pcam_ccb *n = bus->eng.nexus;
    if (n != NULL && (n->priv.state != PCAM_CS_ACTIVE || (n->priv.flags & PCAM_CF_SENSE) == 0 ||
                      (n->priv.recovery & DEC_AT_HAL) == 0))
        bus->eng.nexus = NULL;
}

static pcam_ccb *dec_find(pcam_bus *bus, const void *handle, uint8_t target, uint8_t lun)
{
    pcam_lun *l = pcam_core_lun(bus, target, lun);
    if (l == NULL || target >= bus->caps.max_targets)
        return NULL;
    /* Walk the LUN rather than trust the pointer: a stale handle may name a
     * CCB its owner has since freed. */
    for (pcam_ccb *c = l->q.active.head; c != NULL; c = c->priv.next)
        if ((const void *)c == handle)
            return (c->priv.recovery & DEC_AT_HAL) != 0 ? c : NULL;
    return NULL;
}

/* CHECK CONDITION whose sense the adapter fetched itself. */
static void dec_adapter_sense(pcam_bus *bus, pcam_ccb *c, const pcam_hal_cmd_result *res)
{
    uint32_t delay = 0;
    uint8_t n = res->sense_len < c->u.io.sense_len ? res->sense_len : c->u.io.sense_len;
    c->u.io.scsi_status = res->scsi_status;
    c->u.io.resid = c->u.io.data_len - c->priv.data_ptr;
    c->status = 0;
    if (n > 0) {
        c->u.io.sense_resid = (uint8_t)(c->u.io.sense_len - n);
        c->status = PCAM_AUTOSNS_VALID;
    }
    pcam_retry_action a = pcam_eng_decide(bus, c, &delay);
    pcam_eng_apply(bus, c, a, delay);
}

int pcam_dec_done(pcam_bus *bus, const void *handle, uint8_t target, uint8_t lun,
                  const pcam_hal_cmd_result *res)
{
    if (handle == NULL || res == NULL)
        return PCAM_ERR_NULL;
    pcam_ccb *c = pcam_dec_active(bus) ? dec_find(bus, handle, target, lun) : NULL;
    if (c == NULL)
        return PCAM_ERR_RANGE;
    bool sense = (c->priv.flags & PCAM_CF_SENSE) != 0;
    uint32_t st = res->status & PCAM_STATUS_MASK;
    c->priv.recovery &= (uint8_t)~DEC_AT_HAL;
    if ((bus->eng.engine_flags & EGF_HAL_FULL) != 0) {
        if (++bus->eng.hal_dones >= DEC_PROBE_DONES)
            bus->eng.engine_flags &= (uint8_t)~EGF_HAL_FULL; /* try past the count */
        else if (bus->eng.hal_room < UINT8_MAX)
            bus->eng.hal_room++; /* room for one more */
    }
    if (bus->eng.nexus == c)
        bus->eng.nexus = NULL;
    if (!sense && st == PCAM_REQ_ABORTED && (c->priv.recovery & DEC_ABORT_SENT) != 0) {
        /* Our abort took: the shared path fails the victim, counts it and
         * ends the recovery step. */
        pcam_eng_recovery_success(bus, PCAM_MSG_ABORT_TASK, c->target, c->lun, c);
        dec_settle_nexus(bus);
        return PCAM_OK;
    }
    if (bus->lad.step == RS_ABORT && bus->lad.ccb == c)
        dec_recovery_done(bus); /* it finished before the abort reached it */

    if (st == PCAM_REQ_CMP) {
        uint32_t cap = c->u.io.data_len;
        if (sense)
            cap = (c->priv.flags & PCAM_CF_BUS_SENSE) != 0 ? (uint32_t)sizeof bus->eng.sense_buf
                                                           : c->u.io.sense_len;
        c->priv.data_ptr = res->resid < cap ? cap - res->resid : 0;
        bus->eng.status_byte = res->scsi_status;
        if (!sense && res->scsi_status == 0x02 && res->sense_done &&
            (c->priv.flags & PCAM_CF_ABORT) == 0) {
            dec_adapter_sense(bus, c, res);
            return PCAM_OK;
        }
        bool qfull = !sense && res->scsi_status == 0x28 && res->held_known;
        pcam_lun *l = qfull ? pcam_core_lun(bus, c->target, c->lun) : NULL;
        pcam_eng_finish_io(bus, c);
        if (l != NULL && c->priv.state == PCAM_CS_PENDING) {
            /* The queue took the depth from the commands it had issued, but
             * some of those were still waiting in the adapter: the target
             * held only what the back-end had sent it. */
            uint16_t d = res->held > bus->cfg.tag_depth_floor ? res->held : bus->cfg.tag_depth_floor;
            pcam_q_clamp_depth(l, d);
        }
        return PCAM_OK;
    }
    /* The command never reached its status phase. */
    c->priv.data_ptr = res->resid < c->u.io.data_len ? c->u.io.data_len - res->resid : 0;
    if (sense || (c->priv.flags & PCAM_CF_ABORT) != 0) {
        /* A failed REQUEST SENSE is decided without sense; an aborted or
         * timed-out command fails as such. */
        bus->eng.status_byte = 0xFF;
        if (sense)
            c->priv.data_ptr = 0;
        pcam_eng_finish_io(bus, c);
        return PCAM_OK;
    }
    c->u.io.resid = c->u.io.data_len - c->priv.data_ptr;
    switch (st) {
    case PCAM_SEL_TIMEOUT:
        /* Nobody at that ID: not worth a retry (as on the phase-level path). */
        pcam_core_event(bus, PCAM_EV_SEL_TIMEOUT, c->target, 0xFF, 0);
        pcam_eng_retire(bus, c, PCAM_SEL_TIMEOUT);
        return PCAM_OK;
    case PCAM_DATA_RUN_ERR:
        pcam_eng_retire(bus, c, PCAM_DATA_RUN_ERR);
        return PCAM_OK;
    case PCAM_UNEXP_BUSFREE:
        pcam_core_event(bus, PCAM_EV_UNEXP_FREE, c->target, 0xFF, 0);
        break;
    case PCAM_UNCOR_PARITY:
    case PCAM_SEQUENCE_FAIL:
    case PCAM_REQ_CMP_ERR:
        break;
    default:
        st = PCAM_REQ_CMP_ERR; /* a status the contract does not allow here */
        break;
    }
    pcam_eng_apply(bus, c, pcam_retry_transport(bus, c, st), 0);
    return PCAM_OK;
}

int pcam_dec_reset_done(pcam_bus *bus, uint8_t target, uint8_t lun, bool lun_reset, uint32_t status)
{
    /* Only these say something a caller can act on; "no such device" must
     * not read as "refused" (a UEFI caller gets EFI_INVALID_PARAMETER for
     * the one, EFI_UNSUPPORTED for the other). */
    if (status != PCAM_REQ_CMP && status != PCAM_SEL_TIMEOUT && status != PCAM_MSG_REJECT_REC)
        status = PCAM_REQ_CMP_ERR;
    bool ok = status == PCAM_REQ_CMP;
    pcam_ccb *m = bus->eng.mgmt_ccb;
    bool mine = m != NULL && m->target == target;
    bool step = bus->lad.step == RS_BDR_SENT && bus->lad.target == target;
    if (!pcam_dec_active(bus) || (!mine && !step))
        return PCAM_ERR_RANGE;
    if (mine) {
        bus->eng.mgmt_ccb = NULL;
        pcam_core_complete(bus, m, status);
    }
    if (ok) {
        /* The back-end forgot what it held for the device: room it did not
         * report. */
        bus->eng.engine_flags &= (uint8_t)~EGF_HAL_FULL;
        /* Shared with the phase-level path: tasks taken down (victims fail,
         * bystanders requeue without a retry), agreement reset, events. */
        pcam_eng_recovery_success(bus, lun_reset ? PCAM_MSG_LOGICAL_UNIT_RESET : PCAM_MSG_TARGET_RESET,
                                  target, lun, NULL);
        if (step)
            dec_recovery_done(bus);
    } else if (step) {
        pcam_eng_escalate(bus); /* cannot reach it: the bus reset is next */
    }
    dec_settle_nexus(bus);
    return PCAM_OK;
}

int pcam_dec_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (target >= bus->caps.max_targets || target == bus->caps.initiator_id)
        return PCAM_ERR_RANGE;
    if (!pcam_nego_wanted(bus, target) || pcam_nego_in_flight(bus, target))
        return 0;
    return pcam_nego_start(bus, target, buf, cap);
}

void pcam_dec_nego_end(pcam_bus *bus, uint8_t target, bool sent)
{
    if (target >= bus->caps.max_targets)
        return;
    /* Going on after our answer to its own request means it accepted;
     * nego tells the two cases apart. */
    if (!sent)
        pcam_nego_cancel(bus, target);
    else
        pcam_nego_no_answer(bus, target);
}

static int dec_reject(pcam_bus *bus, uint8_t target, uint8_t lun, uint8_t code, uint8_t *reply)
{
    pcam_core_event(bus, PCAM_EV_MSG_REJECT, target, lun, code);
    reply[0] = PCAM_MSG_MESSAGE_REJECT;
    return 1;
}

int pcam_dec_msg_in(pcam_bus *bus, uint8_t target, uint8_t lun, const uint8_t *msg, size_t len,
                    uint8_t *reply, size_t cap)
{
    if (msg == NULL || reply == NULL)
        return PCAM_ERR_NULL;
    if (target >= bus->caps.max_targets || len == 0)
        return PCAM_ERR_RANGE;
    if (cap < 1)
        return PCAM_ERR_NOSPACE;
    if (msg[0] == PCAM_MSG_EXTENDED) {
        /* SDTR, WDTR, PPR: the same exchange rules as on the phase-level
         * path (answers to ours, answers to the target's, the ladder). A
         * malformed one still tells nego which kind to fall back from. */
        int n = pcam_nego_msg_in(bus, target, msg, len, reply, cap);
        if (n >= 0)
            return n;
    }
    /* Anything else that reached the core is something pcam does not do
     * (linked commands, QAS, MODIFY DATA POINTER from an adapter that left
     * it to us, reserved codes). */
    return dec_reject(bus, target, lun, msg[0], reply);
}

int pcam_dec_msg_reject(pcam_bus *bus, uint8_t target, uint8_t rejected, uint8_t *next, size_t cap)
{
    if (target >= bus->caps.max_targets)
        return PCAM_ERR_RANGE;
    pcam_core_event(bus, PCAM_EV_MSG_REJECT, target, 0xFF, rejected);
    if (rejected >= PCAM_MSG_SIMPLE_TAG && rejected <= PCAM_MSG_ORDERED_TAG) {
        pcam_dev_tgt_flags(&bus->targets[target], PCAM_TGTF_NO_TAGS, 0);
        pcam_q_touch(bus);
        pcam_core_log(bus, PCAM_LOG_WARN, "target rejected a tag message; tagged queuing off", NULL);
        return 0;
    }
    if (rejected != PCAM_MSG_EXTENDED || !pcam_nego_in_flight(bus, target))
        return 0;
    pcam_nego_rejected(bus, target);
    /* The ladder's next rung goes out in the same connection. */
    if (next == NULL || !pcam_nego_wanted(bus, target))
        return 0;
    int n = pcam_nego_start(bus, target, next, cap);
    return n > 0 ? n : 0;
}

void pcam_dec_parity(pcam_bus *bus, uint8_t target)
{
    if (target >= bus->caps.max_targets)
        return;
    pcam_core_event(bus, PCAM_EV_PARITY, target, 0xFF, 0);
    pcam_nego_parity(bus, target);
}
#endif /* PCAM_CFG_CMDLEVEL */
