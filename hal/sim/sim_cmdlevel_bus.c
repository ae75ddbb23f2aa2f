/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated command-level adapter once it is on the bus: phases,
 * messages (its own, and the ones it hands the core), bus free and the
 * chip events that drive it. State, selection and the ops are in
 * sim_cmdlevel.c.
 */
#include "sim_cmdlevel.h"

/* ---- phases ---- */

static int find_untagged(const pcam_simcmd *a)
{
    for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
        const sc_slot *s = &a->slots[k];
        if (s->state == SL_DISC && s->cmd.target == a->t && s->cmd.lun == a->l && !sc_wire_tagged(s))
            return k;
    }
    return -1;
}

static void reconnect(pcam_simcmd *a, int i)
{
    sc_slot *s = &a->slots[i];
    s->state = SL_ACTIVE;
    s->ptr = s->saved; /* an implied RESTORE POINTERS (SPI) */
    a->cur = i;
    a->st.reconnects++;
    if (s->abort_req && a->msgout_len == 0)
        sc_abandon(a, PCAM_MSG_ABORT_TASK);
}

static void on_bus_free(pcam_simcmd *a);

static void on_phase(pcam_simcmd *a, pcam_phase ph)
{
    a->conn = CN_CONNECTED;
    if (a->nego_pending && ph != PCAM_PHASE_MSG_IN && ph != PCAM_PHASE_MSG_OUT) {
        a->nego_pending = false;
        pcam_bus_hal_nego_end(a->bus, a->t, true);
    }
    if (a->cur < 0 && a->sel_kind == SK_CMD && !a->stray && ph != PCAM_PHASE_MSG_IN &&
        ph != PCAM_PHASE_MSG_OUT && ph != PCAM_PHASE_BUS_FREE) {
        int i = find_untagged(a);
        if (i >= 0)
            reconnect(a, i);
    }
    sc_slot *s = a->cur >= 0 && a->sel_kind == SK_CMD ? &a->slots[a->cur] : NULL;
    switch (ph) {
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT: {
        if (s == NULL) {
            if (ph == PCAM_PHASE_DATA_OUT) {
                /* Data out for a task that is not ours (one we aborted and
                 * the target kept): filler bytes would be written to its
                 * medium. Only RST ends it without. */
                a->conn = CN_RESETTING;
                (void)pcam_sim_i_reset_bus(a->sim);
                return;
            }
            if (a->msgout_len == 0)
                sc_abandon(a, PCAM_MSG_ABORT_TASK_SET);
            sc_bucket(a, ph);
            return;
        }
        pcam_dir dir = s->sensing ? PCAM_DIR_IN : s->cmd.dir;
        uint32_t len = s->sensing ? s->cmd.sense_len : s->cmd.data_len;
        pcam_phase want = dir == PCAM_DIR_IN ? PCAM_PHASE_DATA_IN : PCAM_PHASE_DATA_OUT;
        if (dir != PCAM_DIR_NONE && ph == want && s->ptr < len) {
            const pcam_sg *sg = &s->flat;
            uint16_t n = 1;
            if (s->sensing) {
                sg = &s->sense_sg;
            } else if (s->cmd.sg_count != 0) {
                sg = s->cmd.sg;
                n = s->cmd.sg_count;
            }
            sc_xfer(a, ph, XK_DATA, sg, n, s->ptr, len - s->ptr);
            return;
        }
        s->err = (dir != PCAM_DIR_NONE && ph == want) ? PCAM_DATA_RUN_ERR : PCAM_SEQUENCE_FAIL;
        if (a->msgout_len == 0)
            sc_abandon(a, PCAM_MSG_ABORT_TASK);
        sc_bucket(a, ph);
        return;
    }
    case PCAM_PHASE_COMMAND: {
        const uint8_t *cdb = s == NULL ? NULL : s->sensing ? s->sense_cdb : s->cdb;
        uint8_t len = s == NULL ? 0 : s->sensing ? 6 : s->cmd.cdb_len;
        if (s == NULL || s->cdb_sent >= len) {
            if (s != NULL)
                s->err = PCAM_SEQUENCE_FAIL;
            if (a->msgout_len == 0)
                sc_abandon(a, s == NULL ? PCAM_MSG_ABORT_TASK_SET : PCAM_MSG_ABORT_TASK);
            sc_bucket(a, ph);
            return;
        }
        a->cmd_sg.addr = (void *)(uintptr_t)(cdb + s->cdb_sent);
        a->cmd_sg.len = (uint32_t)(len - s->cdb_sent);
        sc_xfer(a, ph, XK_CMD, &a->cmd_sg, 1, 0, a->cmd_sg.len);
        return;
    }
    case PCAM_PHASE_STATUS:
        if (s == NULL) {
            if (a->msgout_len == 0)
                sc_abandon(a, PCAM_MSG_ABORT_TASK_SET);
            sc_bucket(a, ph);
            return;
        }
        s->status = 0xFF;
        a->cmd_sg.addr = &s->status;
        a->cmd_sg.len = 1;
        sc_xfer(a, ph, XK_STATUS, &a->cmd_sg, 1, 0, 1);
        return;
    case PCAM_PHASE_MSG_IN:
        (void)pcam_sim_i_msg_in(a->sim);
        return;
    case PCAM_PHASE_MSG_OUT:
        if (a->msgout_len == 0) {
            a->msgout[0] = PCAM_MSG_NO_OPERATION;
            a->msgout_len = 1;
        }
        (void)pcam_sim_i_msg_out(a->sim, a->msgout, a->msgout_len);
        return;
    case PCAM_PHASE_BUS_FREE:
        on_bus_free(a);
        return;
    default:
        /* A reserved phase: the command failed, and only RST ends it. */
        if (s != NULL)
            sc_report_status(a, a->cur, PCAM_SEQUENCE_FAIL);
        a->conn = CN_RESETTING;
        (void)pcam_sim_i_reset_bus(a->sim);
        return;
    }
}

/* ---- messages ---- */

static void to_core(pcam_simcmd *a, const uint8_t *m, size_t len)
{
    uint8_t reply[SC_MSG];
    a->st.msgs_to_core++;
    a->nego_pending = false;
    int n = pcam_bus_hal_msg_in(a->bus, a->t, a->l, m, len, reply, sizeof reply);
    if (n > 0) {
        sc_queue_out(a, reply, (size_t)n);
        a->nego_pending = reply[0] == PCAM_MSG_EXTENDED;
        sc_accept(a, true);
        return;
    }
    sc_accept(a, false);
}

static void reject_here(pcam_simcmd *a)
{
    uint8_t m = PCAM_MSG_MESSAGE_REJECT;
    sc_queue_out(a, &m, 1);
    sc_accept(a, true);
}

static void message(pcam_simcmd *a, const pcam_msg *m)
{
    sc_slot *s = a->cur >= 0 && a->sel_kind == SK_CMD ? &a->slots[a->cur] : NULL;
    size_t len = a->msgin_len;
    a->msgin_len = 0;
    switch (m->kind) {
    case PCAM_MSGK_COMMAND_COMPLETE:
        if (s == NULL)
            break;
        a->expect = EX_COMPLETE;
        sc_accept(a, false);
        return;
    case PCAM_MSGK_DISCONNECT:
        if (s == NULL)
            break;
        a->expect = EX_DISC;
        sc_accept(a, false);
        return;
    case PCAM_MSGK_SAVE_DATA_POINTER:
        if (s != NULL)
            s->saved = s->ptr;
        sc_accept(a, false);
        return;
    case PCAM_MSGK_RESTORE_POINTERS:
        if (s != NULL)
            s->ptr = s->saved;
        sc_accept(a, false);
        return;
    case PCAM_MSGK_NO_OPERATION:
        sc_accept(a, false);
        return;
    case PCAM_MSGK_IGNORE_WIDE_RESIDUE:
        if (s != NULL && s->ptr >= m->residue)
            s->ptr -= m->residue;
        sc_accept(a, false);
        return;
    case PCAM_MSGK_SIMPLE_TAG:
    case PCAM_MSGK_HEAD_OF_QUEUE_TAG:
    case PCAM_MSGK_ORDERED_TAG:
        if (a->cur < 0 && a->sel_kind == SK_CMD) {
            for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
                sc_slot *o = &a->slots[k];
                if (o->state == SL_DISC && o->cmd.target == a->t && o->cmd.lun == a->l &&
                    sc_wire_tagged(o) && o->cmd.tag == m->tag) {
                    reconnect(a, k);
                    sc_accept(a, a->msgout_len != 0);
                    return;
                }
            }
            /* A tag we do not have out: end that nexus, keep the rest. A
             * target deaf to the ABORT TASK goes on with that task's data:
             * it must not land in an untagged command's buffer (found by
             * pcambench --soak on this adapter). */
            a->stray = true;
            uint8_t ab = PCAM_MSG_ABORT_TASK;
            sc_queue_out(a, &ab, 1);
            sc_accept(a, true);
            return;
        }
        break;
    case PCAM_MSGK_IDENTIFY:
        if (a->cur < 0) {
            a->l = m->identify.lun; /* sent again after our MESSAGE PARITY ERROR */
            sc_accept(a, false);
            return;
        }
        break;
    case PCAM_MSGK_MESSAGE_REJECT: {
        uint8_t next[SC_MSG];
        uint8_t last = a->last_msg;
        if (s != NULL && sc_is_tag_msg(last))
            s->untagged_wire = true; /* this command runs untagged */
        if (last == PCAM_MSG_ABORT_TASK || last == PCAM_MSG_ABORT_TASK_SET ||
            last == PCAM_MSG_CLEAR_TASK_SET || last == PCAM_MSG_TARGET_RESET ||
            last == PCAM_MSG_LOGICAL_UNIT_RESET) {
            /* Refused: the task is still there, so the bus free that follows
             * proves nothing (found by pcambench --soak: a write reported
             * aborted ran later and overwrote newer data). */
            a->refused = true;
            a->expect = EX_NONE;
        }
        if (last == PCAM_MSG_EXTENDED)
            a->nego_pending = false;
        int n = pcam_bus_hal_msg_reject(a->bus, a->t, last, next, sizeof next);
        if (n > 0) {
            sc_queue_out(a, next, (size_t)n);
            a->nego_pending = true;
            sc_accept(a, true);
            return;
        }
        sc_accept(a, false);
        return;
    }
    case PCAM_MSGK_SDTR:
    case PCAM_MSGK_WDTR:
    case PCAM_MSGK_PPR:
        to_core(a, a->msgin + 0, len);
        return;
    case PCAM_MSGK_MODIFY_DATA_POINTER:
        if (a->cfg.profile == PCAM_HAL_COMMAND_LEVEL && s != NULL) {
            /* Pointers are the firmware's business. */
            int64_t np = (int64_t)s->ptr + m->mdp_argument;
            if (np >= 0 && np <= (int64_t)s->cmd.data_len) {
                s->ptr = (uint32_t)np;
                sc_accept(a, false);
                return;
            }
            break;
        }
        to_core(a, a->msgin + 0, len);
        return;
    default:
        if (a->cfg.profile == PCAM_HAL_SCRIPT_LEVEL) {
            to_core(a, a->msgin + 0, len);
            return;
        }
        break;
    }
    reject_here(a);
}

static void msg_byte(pcam_simcmd *a, const pcam_hal_event *ev)
{
    if (ev->parity_error) {
        uint8_t m = PCAM_MSG_MESSAGE_PARITY_ERROR;
        a->msgin_len = 0;
        pcam_bus_hal_parity(a->bus, a->t);
        sc_queue_out(a, &m, 1);
        sc_accept(a, true);
        return;
    }
    if (a->msgin_len >= SC_MSG) {
        a->msgin_len = 0;
        reject_here(a);
        return;
    }
    a->msgin[a->msgin_len++] = ev->byte;
    pcam_msg m;
    int need = pcam_msg_decode(a->msgin, a->msgin_len, &m, NULL);
    if (need > 0) {
        sc_accept(a, false);
        return;
    }
    if (need < 0) {
        size_t len = a->msgin_len;
        a->msgin_len = 0;
        /* A malformed negotiation still tells the core what to fall back from. */
        if (a->msgin[0] == PCAM_MSG_EXTENDED || a->cfg.profile == PCAM_HAL_SCRIPT_LEVEL)
            to_core(a, a->msgin, len);
        else
            reject_here(a);
        return;
    }
    message(a, &m);
}

/* ---- bus free ---- */

static void on_bus_free(pcam_simcmd *a)
{
    uint8_t ex = a->expect, kind = a->sel_kind;
    int i = a->cur, si = a->sel_slot;
    bool nego = a->nego_pending;
    bool refused = a->refused;
    uint8_t t = a->t;

    a->conn = CN_IDLE;
    a->expect = EX_NONE;
    a->msgin_len = 0;
    a->msgout_len = 0;
    a->nego_pending = false;
    a->cur = -1;
    a->sel_slot = -1;
    a->refused = false;
    if (kind == SK_RESET && refused) {
        a->reset_pending = false; /* the core escalates (or fails the caller's reset) */
        (void)pcam_bus_hal_reset_done(a->bus, a->rs_t, a->rs_l, a->rs_lun, PCAM_MSG_REJECT_REC);
        return;
    }
    if (kind == SK_ABORT && refused) {
        /* The task stays disconnected at the target; the core's recovery
         * step times out and takes the ladder up. Not asked again. */
        if (si >= 0)
            a->slots[si].abort_req = false;
        return;
    }
    if (kind == SK_RESET) {
        /* Taken (or the target hung up on it, which is as good): every task
         * of that target or LUN is gone, and so is our record of them. */
        a->reset_pending = false;
        for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
            sc_slot *o = &a->slots[k];
            if (o->state != SL_FREE && o->cmd.target == a->rs_t && (!a->rs_lun || o->cmd.lun == a->rs_l))
                memset(o, 0, sizeof *o);
        }
        a->st.resets++;
        (void)pcam_bus_hal_reset_done(a->bus, a->rs_t, a->rs_l, a->rs_lun, PCAM_REQ_CMP);
        return;
    }
    if (kind == SK_ABORT) {
        if (si >= 0 && a->slots[si].state != SL_FREE)
            sc_report_status(a, si, PCAM_REQ_ABORTED);
        return;
    }
    if (i < 0)
        return; /* the nexus was never ours (a reselection we aborted) */
    sc_slot *s = &a->slots[i];
    switch (ex) {
    case EX_COMPLETE:
        sc_finish_slot(a, i);
        return;
    case EX_DISC:
        s->state = SL_DISC;
        return;
    case EX_ABORT:
        sc_report_status(a, i, s->err != 0 ? s->err : PCAM_REQ_ABORTED);
        return;
    default:
        if (nego) /* some targets hang up on a message they dislike */
            (void)pcam_bus_hal_msg_reject(a->bus, t, PCAM_MSG_EXTENDED, NULL, 0);
        sc_report_status(a, i, s->err != 0 ? s->err : PCAM_UNEXP_BUSFREE);
        return;
    }
}

static void msgout_taken(pcam_simcmd *a, uint32_t count)
{
    if (count > 0 && a->msgout_len > 0) {
        a->last_msg = a->msgout[0];
        switch (a->msgout[0]) {
        case PCAM_MSG_ABORT_TASK:
        case PCAM_MSG_ABORT_TASK_SET:
        case PCAM_MSG_CLEAR_TASK_SET:
        case PCAM_MSG_TARGET_RESET:
        case PCAM_MSG_LOGICAL_UNIT_RESET:
            a->expect = EX_ABORT;
            break;
        default:
            break;
        }
    }
    a->msgout_len = 0;
}

/* ---- events ---- */

static void undo_select(pcam_simcmd *a)
{
    if (a->sel_kind == SK_CMD && a->sel_slot >= 0) {
        a->slots[a->sel_slot].state = SL_QUEUED;
        if (a->nego_end != 0)
            pcam_bus_hal_nego_end(a->bus, a->t, false);
    }
    a->nego_end = 0;
    a->conn = CN_IDLE;
    a->cur = -1;
    a->sel_slot = -1;
}

void sc_on_event(pcam_simcmd *a, const pcam_hal_event *ev)
{
    sc_slot *s = a->cur >= 0 ? &a->slots[a->cur] : NULL;
    switch (ev->type) {
    case PCAM_HAL_EV_SELECT_DONE:
        if (a->conn != CN_SELECTING)
            return;
        a->conn = CN_CONNECTED;
        sc_note_sel_msgs(a, ev->count);
        if (s != NULL && a->sel_kind == SK_CMD) {
            s->cdb_sent = (uint8_t)ev->count2;
            if (s->abort_req && a->msgout_len == 0)
                sc_abandon(a, PCAM_MSG_ABORT_TASK);
        }
        on_phase(a, ev->phase);
        return;
    case PCAM_HAL_EV_SEL_TIMEOUT: {
        uint8_t kind = a->sel_kind;
        int si = a->sel_slot;
        if (a->conn != CN_SELECTING)
            return;
        if (kind == SK_CMD && a->nego_end != 0)
            pcam_bus_hal_nego_end(a->bus, a->t, false);
        a->nego_end = 0;
        a->conn = CN_IDLE;
        a->cur = -1;
        a->sel_slot = -1;
        if (kind == SK_RESET) {
            a->reset_pending = false;
            (void)pcam_bus_hal_reset_done(a->bus, a->rs_t, a->rs_l, a->rs_lun, PCAM_SEL_TIMEOUT);
        } else if (kind == SK_CMD && si >= 0) {
            sc_report_status(a, si, PCAM_SEL_TIMEOUT);
        }
        /* An abort selection nobody answers: the core's timer escalates. */
        return;
    }
    case PCAM_HAL_EV_RESELECTED:
        if (a->conn == CN_SELECTING)
            undo_select(a);
        a->conn = CN_CONNECTED;
        a->t = ev->target;
        a->l = ev->byte & PCAM_MSG_IDENTIFY_LUN_MASK;
        a->sel_kind = SK_CMD;
        a->cur = -1;
        a->stray = false;
        a->refused = false;
        a->expect = EX_NONE;
        a->msgin_len = 0;
        a->msgout_len = 0;
        if (ev->parity_error) {
            uint8_t m = PCAM_MSG_MESSAGE_PARITY_ERROR;
            sc_queue_out(a, &m, 1);
            sc_accept(a, true);
            return;
        }
        sc_accept(a, false);
        return;
    case PCAM_HAL_EV_XFER_DONE:
        if (s != NULL && a->sel_kind == SK_CMD) {
            if (a->xk == XK_DATA) {
                s->ptr += ev->count;
                if (ev->parity_error) {
                    /* The chip raised ATN: ask for the data again. */
                    pcam_bus_hal_parity(a->bus, a->t);
                    if (a->msgout_len == 0) {
                        uint8_t m = PCAM_MSG_INITIATOR_DETECTED_ERROR;
                        sc_queue_out(a, &m, 1);
                    }
                }
            } else if (a->xk == XK_CMD) {
                s->cdb_sent = (uint8_t)(s->cdb_sent + ev->count);
            }
        }
        on_phase(a, ev->phase);
        return;
    case PCAM_HAL_EV_MSGOUT_DONE:
        msgout_taken(a, ev->count);
        on_phase(a, ev->phase);
        return;
    case PCAM_HAL_EV_MSG_BYTE:
        msg_byte(a, ev);
        return;
    case PCAM_HAL_EV_PHASE:
        if (ev->phase == PCAM_PHASE_MSG_IN && a->msgin_len > 0) {
            (void)pcam_sim_i_msg_in(a->sim);
            return;
        }
        on_phase(a, ev->phase);
        return;
    case PCAM_HAL_EV_BUS_FREE:
        if (a->conn == CN_IDLE)
            return;
        if (a->conn == CN_SELECTING) {
            sc_note_sel_msgs(a, ev->count);
            if (s != NULL && a->sel_kind == SK_CMD)
                s->cdb_sent = (uint8_t)ev->count2;
        } else if (a->msgout_len > 0) {
            msgout_taken(a, ev->count);
        }
        on_bus_free(a);
        return;
    default:
        return;
    }
}

