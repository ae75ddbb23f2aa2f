/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Messages of the simulated targets: the message-in queue and what an
 * accepted (or rejected) message does, and everything the target does with
 * the bytes it receives in MESSAGE OUT.
 *
 * Message codes and the rules followed (SPI-2/SPI-3): the target stays in
 * MESSAGE OUT while ATN is asserted; it answers SDTR/WDTR/PPR and rejects
 * what it does not know in MESSAGE IN right after the message; a message
 * the initiator accepts with ATN raised is not acted on until the MESSAGE
 * OUT phase that follows shows why (MESSAGE PARITY ERROR: send it again;
 * MESSAGE REJECT: undo it; anything else: it stands).
 */
#include <string.h>

#include "sim_internal.h"

static bool bus_wide(const pcam_sim *s)
{
    return s->cfg.width == 16;
}

/* ---- message-in queue ---- */

void simm_msg1(sim_msg *m, uint8_t code, sim_msg_kind kind)
{
    memset(m, 0, sizeof *m);
    m->b[0] = code;
    m->len = 1;
    m->kind = (uint8_t)kind;
}

void simm_push(sim_conn *c, const sim_msg *m)
{
    if (c->mi_count < SIM_MI_MAX)
        c->mi[c->mi_count++] = *m;
}

/* Only at a message boundary (no byte of mi[0] accepted yet). */
static void mi_push_front(sim_conn *c, const sim_msg *m)
{
    if (c->mi_count >= SIM_MI_MAX || c->mi_pos != 0)
        return;
    memmove(&c->mi[1], &c->mi[0], c->mi_count * sizeof c->mi[0]);
    c->mi[0] = *m;
    c->mi_count++;
}

void simm_push_front(sim_conn *c, const sim_msg *m)
{
    mi_push_front(c, m);
}

static void mi_pop(sim_conn *c)
{
    if (c->mi_count == 0)
        return;
    c->mi_count--;
    memmove(&c->mi[0], &c->mi[1], c->mi_count * sizeof c->mi[0]);
    c->mi_pos = 0;
}

/* ---- negotiation the target starts ---- */

void simm_start_nego(pcam_sim *s, sim_target *t, uint8_t ext)
{
    sim_conn *c = &t->conn;
    sim_msg m;

    simn_build_init(t, ext, bus_wide(s), &m);
    c->tinit = ext;
    t->stats.nego_initiated++;
    mi_push_front(c, &m);
}

static void own_nego_over(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;

    c->tinit = 0;
    if (c->tinit_sdtr_next) {
        c->tinit_sdtr_next = false;
        simm_start_nego(s, t, PCAM_EXT_SDTR);
    }
}

/* ---- message commit / reject ---- */

static void complete_task(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;

    if (c->task != NULL) {
        uint8_t lun = c->task->lun;

        t->stats.completed++;
        sim_trace_task(s, t, c->task, PCAM_SIM_TN_DONE);
        simk_free(t, c->task);
        c->task = NULL;
        /* Leaving the set may lift an ORDERED barrier. */
        simk_kick(s, t, lun);
    }
    c->stage = CS_FREE;
}

static void commit(pcam_sim *s, sim_target *t, const sim_msg *m)
{
    sim_conn *c = &t->conn;

    switch ((sim_msg_kind)m->kind) {
    case MK_CC:
        complete_task(s, t);
        break;
    case MK_DISC:
        t->stats.disconnects++;
        c->stage = CS_FREE;
        break;
    case MK_REFUSE:
        if (c->task == NULL)
            c->stage = CS_FREE; /* an abort selection: nothing else to do here */
        break;
    case MK_SDP:
        if (c->task != NULL)
            c->task->saved_pos = c->task->data_pos;
        break;
    case MK_NEGO_INIT:
        /* No answer with ATN: SPI says both sides fall back (async / narrow). */
        simn_rejected(t, m->b[2]);
        own_nego_over(s, t);
        break;
    default:
        break;
    }
}

/* The initiator rejected the target's last message. */
static void rejected(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;
    sim_task *k = c->task;

    if (!c->last_valid)
        return;
    c->last_pending = false;
    switch ((sim_msg_kind)c->last.kind) {
    case MK_NEGO_INIT:
    case MK_NEGO_REPLY:
        simn_rejected(t, c->last.b[2]);
        if (c->tinit != 0)
            own_nego_over(s, t);
        break;
    case MK_DISC:
        /* Not allowed to disconnect: stay on the bus while the work is done. */
        if (k != NULL && k->state == TK_HUNG) {
            c->stage = CS_HANG;
        } else if (k != NULL && (k->state == TK_QUEUED || k->state == TK_SERVICE)) {
            k->hold = true;
            c->stage = CS_HOLD;
        } else if (k != NULL && k->state == TK_READY) {
            k->state = TK_CONNECTED;
            c->stage = k->cmd.dir == PCAM_DIR_IN && k->data_len != 0 && k->status == SIM_ST_GOOD
                           ? CS_DATA_IN
                           : CS_STATUS;
        }
        break;
    case MK_CC:
        complete_task(s, t);
        break;
    default:
        break;
    }
}

void simm_resolve_pending(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;

    if (!c->last_pending)
        return;
    c->last_pending = false;
    if (c->last_partial) {
        if (c->last.kind == MK_NEGO_INIT || c->last.kind == MK_NEGO_REPLY) {
            simn_rejected(t, c->last.b[2]);
            if (c->tinit != 0)
                own_nego_over(s, t);
        }
        return;
    }
    commit(s, t, &c->last);
}

static bool reply_reject(sim_conn *c)
{
    sim_msg m;

    simm_msg1(&m, PCAM_MSG_MESSAGE_REJECT, MK_REJECT);
    mi_push_front(c, &m);
    c->leave = true;
    return false;
}

void simm_ua_all(sim_target *t, uint8_t asc, uint8_t ascq)
{
    unsigned i;

    for (i = 0; i < PCAM_SIM_LUNS; i++)
        if (t->lu[i].kind != PCAM_SIMLU_ABSENT)
            pcam_simlu_unit_attention(&t->lu[i], asc, ascq);
}

/* ---- MESSAGE OUT ---- */

static uint8_t nexus_lun(const sim_conn *c)
{
    return c->task != NULL ? c->task->lun : c->lun;
}

static void abort_task(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;
    sim_task *k = c->task;

    if (k == NULL && c->identified)
        k = c->have_tag ? simk_find_tag(t, c->lun, c->tag) : simk_find_untagged(t, c->lun);
    if (k != NULL)
        simk_drop(s, t, k, PCAM_SIM_TN_ABORTED);
}

/* Deaf to an abort or reset (refuse_abort / refuse_reset): MESSAGE REJECT,
 * the tasks stay; committed, it ends a connection that holds no task. */
static bool refuse(sim_target *t)
{
    sim_msg m;

    simm_msg1(&m, PCAM_MSG_MESSAGE_REJECT, MK_REFUSE);
    mi_push_front(&t->conn, &m);
    t->conn.leave = true;
    t->stats.refused++;
    return false;
}

static bool going_free(sim_conn *c)
{
    c->stage = CS_FREE;
    c->mi_count = 0;
    c->mi_pos = 0;
    c->last_pending = false;
    c->leave = true;
    return false;
}

static bool initiator_detected_error(sim_conn *c)
{
    sim_task *k = c->task;
    sim_msg m;

    switch (c->last_info) {
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT:
    case PCAM_PHASE_STATUS:
        if (k == NULL && c->last_info != PCAM_PHASE_STATUS)
            return reply_reject(c);
        if (k != NULL)
            k->data_pos = k->saved_pos;
        c->stage = c->last_info == PCAM_PHASE_DATA_IN    ? CS_DATA_IN
                   : c->last_info == PCAM_PHASE_DATA_OUT ? CS_DATA_OUT
                                                         : CS_STATUS;
        simm_msg1(&m, PCAM_MSG_RESTORE_POINTERS, MK_RP);
        mi_push_front(c, &m);
        c->last_pending = false;
        c->leave = true;
        return false;
    case PCAM_PHASE_MSG_IN:
        if (!c->last_valid)
            return reply_reject(c);
        mi_push_front(c, &c->last);
        c->last_pending = false;
        c->leave = true;
        return false;
    default:
        return reply_reject(c);
    }
}

static bool negotiation(pcam_sim *s, sim_target *t, const pcam_msg *m)
{
    sim_conn *c = &t->conn;
    sim_msg reply;

    t->stats.nego_received++;
    c->nego_seen = true;
    t->nego_needed = false;
    if (c->tinit != 0) {
        uint8_t asked = c->tinit;

        c->last_pending = false;
        if (m->ext_code == asked) {
            bool ok = simn_take_answer(t, asked, m);

            own_nego_over(s, t);
            return ok ? true : reply_reject(c);
        }
        /* Answered with another message: ours failed; treat theirs as a request. */
        simn_rejected(t, asked);
        c->tinit = 0;
        c->tinit_sdtr_next = false;
    }
    if (!simn_answer(t, m, bus_wide(s), &reply)) {
        c->leave = true; /* IGNORE: on to COMMAND without a word */
        return false;
    }
    mi_push_front(c, &reply);
    c->leave = true;
    return false;
}

static bool handle_msgout(pcam_sim *s, sim_target *t, const pcam_msg *m)
{
    sim_conn *c = &t->conn;
    bool first = c->sel_msgs && !c->identified && !c->have_tag && c->task == NULL;

    switch (m->kind) {
    case PCAM_MSGK_IDENTIFY:
        if (!first || c->reselect)
            return reply_reject(c);
        c->identified = true;
        c->lun = m->identify.lun;
        c->disc_ok = m->identify.disconnect_ok;
        return true;
    case PCAM_MSGK_SIMPLE_TAG:
    case PCAM_MSGK_HEAD_OF_QUEUE_TAG:
    case PCAM_MSGK_ORDERED_TAG:
        if (!c->sel_msgs || !c->identified || c->have_tag || c->task != NULL)
            return reply_reject(c);
        if (t->cfg.reject_tags) {
            t->stats.tags_rejected++;
            return reply_reject(c);
        }
        c->have_tag = true;
        c->tag_type = m->code;
        c->tag = m->tag;
        return true;
    case PCAM_MSGK_SDTR:
    case PCAM_MSGK_WDTR:
    case PCAM_MSGK_PPR:
        return negotiation(s, t, m);
    case PCAM_MSGK_MESSAGE_REJECT:
        rejected(s, t);
        return true;
    case PCAM_MSGK_MESSAGE_PARITY_ERROR:
        if (!c->last_valid || c->last_info != PCAM_PHASE_MSG_IN)
            return reply_reject(c);
        mi_push_front(c, &c->last);
        c->last_pending = false;
        c->leave = true;
        return false;
    case PCAM_MSGK_INITIATOR_DETECTED_ERROR:
        return initiator_detected_error(c);
    case PCAM_MSGK_NO_OPERATION:
        simm_resolve_pending(s, t);
        return true;
    case PCAM_MSGK_ABORT_TASK:
        if (t->cfg.refuse_abort)
            return refuse(t);
        abort_task(s, t);
        return going_free(c);
    case PCAM_MSGK_ABORT_TASK_SET:
    case PCAM_MSGK_CLEAR_TASK_SET:
        if (t->cfg.refuse_abort)
            return refuse(t);
        if (c->identified || c->task != NULL)
            simk_drop_lu(s, t, nexus_lun(c));
        return going_free(c);
    case PCAM_MSGK_LOGICAL_UNIT_RESET:
        if (t->cfg.refuse_reset)
            return refuse(t);
        if (c->identified || c->task != NULL) {
            uint8_t lun = nexus_lun(c);

            simk_drop_lu(s, t, lun);
            if (t->lu[lun].kind != PCAM_SIMLU_ABSENT)
                pcam_simlu_unit_attention(&t->lu[lun], 0x29, 0x03);
            t->stats.lu_resets++;
        }
        return going_free(c);
    case PCAM_MSGK_TARGET_RESET:
        if (t->cfg.refuse_reset)
            return refuse(t);
        simk_drop_all(s, t);
        c->task = NULL;
        simn_reset(t);
        t->tags_used = false;
        t->nego_needed = true;
        simm_ua_all(t, 0x29, 0x03);
        t->stats.target_resets++;
        return going_free(c);
    default:
        return reply_reject(c);
    }
}

bool simt_msgout_byte(pcam_sim *s, sim_target *t, uint8_t b, bool atn)
{
    sim_conn *c = &t->conn;
    pcam_msg m;
    int r;

    (void)atn;
    r = pcam_msg_parser_feed(&c->parser, b, &m);
    if (r > 0)
        return true;
    if (r < 0)
        return reply_reject(c);
    return handle_msgout(s, t, &m);
}

void simt_atn_switch(sim_target *t)
{
    sim_conn *c = &t->conn;

    c->last_info = c->phase;
    c->phase = PCAM_PHASE_MSG_OUT;
    pcam_msg_parser_init(&c->parser);
}

/* ---- MESSAGE IN ---- */

uint8_t simt_msgin_peek(const sim_target *t)
{
    const sim_conn *c = &t->conn;

    if (c->mi_count == 0 || c->mi_pos >= c->mi[0].len)
        return PCAM_MSG_NO_OPERATION;
    return c->mi[0].b[c->mi_pos];
}

void simt_msgin_ack(pcam_sim *s, sim_target *t, bool atn)
{
    sim_conn *c = &t->conn;
    bool complete;
    sim_msg m;

    if (c->mi_count == 0)
        return;
    m = c->mi[0];
    c->mi_pos++;
    complete = c->mi_pos >= m.len;
    if (!complete && !atn)
        return;
    mi_pop(c);
    c->last = m;
    c->last_valid = true;
    c->last_partial = !complete;
    if (atn) {
        /* ATN before the last byte abandons the message; on the last it defers it. */
        c->last_pending = true;
        return;
    }
    c->last_pending = false;
    commit(s, t, &m);
}
