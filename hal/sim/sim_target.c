/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Simulated targets: the protocol side of a connection (messages, command,
 * data, status), reselection, and the reactions to recovery messages. The
 * SCSI command set is in sim_lu*.c; task sets and the mechanism in
 * sim_task.c; negotiation answers in sim_nego.c; messages in sim_msg.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_err.h"
#include "pcam/pcam_sense.h"

static bool bus_wide(const pcam_sim *s)
{
    return s->cfg.width == 16;
}

/* Ask the target's oracle, if any; true means it gave an answer in *q. */
bool simt_ask(const sim_target *t, pcam_sim_oracle_query *q, pcam_sim_decision what)
{
    const sim_conn *c = &t->conn;

    if (t->cfg.oracle == NULL)
        return false;
    q->what = what;
    q->target = t->id;
    q->lun = c->task != NULL ? c->task->lun : c->lun;
    return t->cfg.oracle(t->cfg.oracle_ctx, q);
}

void simt_init(sim_target *t, uint8_t id, const pcam_sim_target_config *cfg)
{
    unsigned i;

    memset(t, 0, sizeof *t);
    t->id = id;
    t->cfg = *cfg;
    for (i = 0; i < PCAM_SIM_LUNS; i++)
        pcam_simlu_init_absent(&t->lu[i]);
    t->nego_needed = true;
    t->conn.phase = PCAM_PHASE_BUS_FREE;
}

void simt_destroy(sim_target *t)
{
    while (t->tasks != NULL)
        simk_free(t, t->tasks);
}

static void conn_open(sim_target *t)
{
    sim_conn *c = &t->conn;

    memset(c, 0, sizeof *c);
    c->active = true;
    c->phase = PCAM_PHASE_BUS_FREE;
    c->last_info = PCAM_PHASE_BUS_FREE;
    pcam_msg_parser_init(&c->parser);
}

void simt_selected(pcam_sim *s, sim_target *t)
{
    (void)s;
    conn_open(t);
    t->conn.sel_msgs = true;
    t->conn.stage = CS_NEED_CDB;
    t->stats.selections++;
}

/* ---- COMMAND ---- */

static uint16_t cdb_len_of(uint8_t op)
{
    int n = pcam_cdb_len_for_opcode(op);

    if (op == PCAM_CDB_VARLEN_OPCODE)
        return 8; /* until byte 7 gives the rest */
    return n > 0 ? (uint16_t)n : 6u;
}

uint32_t simt_cmd_need(const sim_target *t, uint8_t first)
{
    const sim_conn *c = &t->conn;

    if (c->stage != CS_NEED_CDB)
        return 0;
    if (c->cdb_have == 0)
        return cdb_len_of(first);
    return c->cdb_have < c->cdb_need ? (uint32_t)(c->cdb_need - c->cdb_have) : 0u;
}

void simt_cmd_byte(sim_target *t, uint8_t b)
{
    sim_conn *c = &t->conn;

    if (c->cdb_have >= SIM_CDB_MAX)
        return;
    c->cdb[c->cdb_have++] = b;
    if (c->cdb_have == 1)
        c->cdb_need = cdb_len_of(b);
    if (c->cdb[0] == PCAM_CDB_VARLEN_OPCODE && c->cdb_have == 8) {
        uint32_t need = 8u + b;
        c->cdb_need = (uint16_t)(need > SIM_CDB_MAX ? SIM_CDB_MAX : need);
    }
}

static bool model_disconnect(const sim_target *t, const sim_task *k)
{
    if (!k->disc_ok)
        return false;
    switch (t->cfg.disconnect) {
    case PCAM_SIM_DISC_NEVER:
        return false;
    case PCAM_SIM_DISC_ALWAYS:
        return true;
    default:
        return simk_mech_busy(t, k->lun) || simk_others_waiting(t, k->lun, k) ||
               pcam_simlu_seek_cost(&t->lu[k->lun], k->cmd.lba) != 0;
    }
}

static bool should_disconnect(const sim_target *t, const sim_task *k)
{
    pcam_sim_oracle_query q;

    memset(&q, 0, sizeof q);
    q.value = model_disconnect(t, k) ? 1u : 0u;
    (void)simt_ask(t, &q, PCAM_SIM_DEC_DISCONNECT);
    return q.value != 0;
}

/* A media task goes to the mechanism: disconnect (after SAVE DATA POINTER
 * if data moved) or hold the bus. */
static void to_mechanism(pcam_sim *s, sim_target *t, sim_task *k)
{
    sim_conn *c = &t->conn;
    sim_msg m;

    simk_enqueue(s, t, k);
    if (should_disconnect(t, k)) {
        if (k->data_pos != 0) {
            simm_msg1(&m, PCAM_MSG_SAVE_DATA_POINTER, MK_SDP);
            simm_push(c, &m);
        }
        simm_msg1(&m, PCAM_MSG_DISCONNECT, MK_DISC);
        simm_push(c, &m);
        c->stage = CS_DISCONNECTING;
    } else {
        k->hold = true;
        c->stage = CS_HOLD;
    }
    simk_kick(s, t, k->lun);
}

static uint32_t buffer_size(const sim_task *k, const pcam_simlu *lu, uint32_t max)
{
    pcam_cdb_info info;
    uint64_t n = SIM_DEFAULT_BUF;

    if (pcam_cdb_decode(k->cdb, k->cdb_len, lu->block_size, &info) == PCAM_OK && info.xfer_known) {
        n = info.xfer_bytes;
        /* A block command never moves more than the medium holds (it fails
         * first); the others' answers here are all small. */
        if (info.has_blocks && lu->blocks != 0 && n > lu->blocks * (uint64_t)lu->block_size)
            n = lu->blocks * (uint64_t)lu->block_size;
        if (!info.has_blocks && n > SIM_DEFAULT_BUF)
            n = SIM_DEFAULT_BUF;
    }
    if (n > max)
        n = max;
    return (uint32_t)n;
}

static void account_tag(sim_target *t, const sim_task *k)
{
    if (!k->tagged) {
        t->stats.untagged++;
        return;
    }
    t->tags_used = true;
    if (k->tag_type == PCAM_MSG_ORDERED_TAG)
        t->stats.ordered++;
    else if (k->tag_type == PCAM_MSG_HEAD_OF_QUEUE_TAG)
        t->stats.head_of_queue++;
    else
        t->stats.simple++;
}

/* Whether a checked command may enter the task set; sets the answer if not. */
static bool admit(pcam_sim *s, sim_target *t, sim_task *k)
{
    pcam_simlu *lu = &t->lu[k->lun];
    unsigned limit = t->cfg.task_set_limit != 0 ? t->cfg.task_set_limit : 256u;
    sim_task *old;

    if (t->cfg.busy_next != 0) {
        t->cfg.busy_next--;
        t->stats.busy++;
        k->status = SIM_ST_BUSY;
        return false;
    }
    if (simk_count(t, k->lun) >= limit) {
        t->stats.task_set_full++;
        k->status = SIM_ST_TASK_SET_FULL;
        return false;
    }
    /* Overlapped commands (SAM): the old task is aborted, the new one fails. */
    old = k->tagged ? simk_find_tag(t, k->lun, k->tag) : simk_find_untagged(t, k->lun);
    if (old != NULL) {
        simk_drop(s, t, old, PCAM_SIM_TN_ABORTED);
        k->cmd.cdb = k->cdb;
        k->cmd.cdb_len = (uint8_t)k->cdb_len;
        if (k->tagged)
            pcam_simlu_fail(lu, &k->cmd, PCAM_SK_ABORTED_COMMAND, 0x4D, k->tag);
        else
            pcam_simlu_fail(lu, &k->cmd, PCAM_SK_ABORTED_COMMAND, 0x4E, 0x00);
        k->status = SIM_ST_CHECK;
        return false;
    }
    return true;
}

static void command_received(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;
    uint8_t lun = c->identified ? c->lun : 0;
    pcam_simlu *lu = &t->lu[lun];
    uint32_t mask = 0;
    unsigned i, n;
    sim_task *k;

    t->stats.commands++;
    if (!t->lu_seen[lun]) {
        t->lu_seen[lun] = true;
        if (!t->cfg.ua_power_on && lu->ua_pending && lu->ua_asc == 0x29 && lu->ua_ascq == 0x00)
            lu->ua_pending = false;
    }
    for (i = 0; i < PCAM_SIM_LUNS; i++)
        if (t->lu[i].kind != PCAM_SIMLU_ABSENT)
            mask |= 1u << i;
    for (i = 0; i < PCAM_SIM_LUNS; i++)
        t->lu[i].luns_on_target = mask != 0 ? mask : 1u;

    k = simk_new(t, lun);
    if (k == NULL) {
        c->status = SIM_ST_BUSY;
        c->stage = CS_STATUS;
        return;
    }
    c->task = k;
    k->tagged = c->have_tag;
    k->tag_type = c->tag_type;
    k->tag = c->tag;
    k->disc_ok = c->disc_ok;
    memcpy(k->cdb, c->cdb, c->cdb_have);
    k->cdb_len = c->cdb_have;
    account_tag(t, k);
    c->stage = CS_STATUS;
    if (admit(s, t, k)) {
        k->in_set = true;
        n = simk_count(t, lun);
        if (n > t->stats.max_tasks)
            t->stats.max_tasks = n;
        k->cap = buffer_size(k, lu, s->cfg.cap_max_xfer);
        k->buf = k->cap != 0 ? malloc(k->cap) : NULL;
        if (k->buf == NULL)
            k->cap = 0;
        k->cmd.cdb = k->cdb;
        k->cmd.cdb_len = k->cdb_len > 255 ? 255 : (uint8_t)k->cdb_len;
        k->cmd.buf = k->buf;
        k->cmd.cap = k->cap;
        (void)pcam_simlu_prepare(lu, &k->cmd, s->now);
        k->status = k->cmd.status;
        k->data_len = k->cmd.xfer_len;
        {
            pcam_sim_oracle_query q;

            memset(&q, 0, sizeof q);
            q.value = k->data_len;
            if (simt_ask(t, &q, PCAM_SIM_DEC_DATA_LEN)) {
                uint32_t n = q.value < k->cap ? q.value : k->cap;

                /* Bytes the LU did not fill are sent as zeros, never as stale heap. */
                if (n > k->data_len && k->buf != NULL)
                    memset(k->buf + k->data_len, 0, n - k->data_len);
                k->data_len = n;
            }
        }
        k->media = k->cmd.media && k->status == SIM_ST_GOOD;
        if (t->cfg.illegal_phase_next != 0) {
            t->cfg.illegal_phase_next--;
            c->stage = CS_RESERVED;
        } else if (t->cfg.hang_next != 0) {
            t->cfg.hang_next--;
            if (k->disc_ok) {
                sim_msg m;

                k->state = TK_HUNG;
                simm_msg1(&m, PCAM_MSG_DISCONNECT, MK_DISC);
                simm_push(c, &m);
                c->stage = CS_DISCONNECTING;
            } else {
                c->stage = CS_HANG;
            }
        } else {
            if (t->cfg.unexpected_free_next != 0) {
                t->cfg.unexpected_free_next--;
                k->drop = true;
                k->drop_at = k->data_len / 2;
            }
            if (k->drop && k->data_len == 0) {
                simk_drop(s, t, k, PCAM_SIM_TN_DROPPED);
                c->stage = CS_FREE;
            } else if (k->status != SIM_ST_GOOD) {
                c->stage = CS_STATUS;
            } else if (k->cmd.dir == PCAM_DIR_OUT) {
                c->stage = CS_DATA_OUT;
            } else if (k->media) {
                to_mechanism(s, t, k);
            } else {
                c->stage = k->cmd.dir == PCAM_DIR_IN && k->data_len != 0 ? CS_DATA_IN : CS_STATUS;
            }
        }
    }
    if (t->nego_needed && !c->nego_seen && (t->cfg.initiate_wdtr || t->cfg.initiate_sdtr)) {
        bool wdtr = t->cfg.initiate_wdtr && t->cfg.wide && bus_wide(s);

        t->nego_needed = false;
        if (wdtr) {
            c->tinit_sdtr_next = t->cfg.initiate_sdtr;
            simm_start_nego(s, t, PCAM_EXT_WDTR);
        } else if (t->cfg.initiate_sdtr) {
            simm_start_nego(s, t, PCAM_EXT_SDTR);
        }
    }
}

/* ---- DATA and STATUS ---- */

static uint32_t task_data_avail(const sim_target *t)
{
    const sim_conn *c = &t->conn;
    const sim_task *k = c->task;
    uint32_t end;

    if (k == NULL || (c->stage != CS_DATA_IN && c->stage != CS_DATA_OUT))
        return 0;
    end = k->data_len;
    if (k->drop && k->drop_at < end)
        end = k->drop_at;
    return end > k->data_pos ? end - k->data_pos : 0;
}

/* An oracle-forced DATA phase with nothing of the task to move: filler. */
static bool use_filler(const sim_target *t)
{
    return t->conn.filler_left != 0 && task_data_avail(t) == 0;
}

uint32_t simt_data_avail(const sim_target *t)
{
    return use_filler(t) ? t->conn.filler_left : task_data_avail(t);
}

/* Whether moving n more DATA IN bytes ends an odd-length phase on a wide
 * agreement with a target that reports the pad byte. */
bool simt_data_pad(const sim_target *t, uint32_t n)
{
    const sim_task *k = t->conn.task;

    return k != NULL && t->conn.stage == CS_DATA_IN && t->cfg.wide_residue && t->agreed.width != 0 &&
           (k->data_len & 1u) != 0 && k->data_pos + n == k->data_len;
}

uint8_t *simt_data_ptr(sim_target *t)
{
    sim_task *k = t->conn.task;

    if (use_filler(t))
        return t->conn.filler;
    if (k == NULL || k->buf == NULL)
        return NULL;
    return k->buf + k->data_pos;
}

void simt_data_done(pcam_sim *s, sim_target *t, uint32_t n, bool parity)
{
    sim_task *k = t->conn.task;

    (void)s;
    if (use_filler(t)) {
        t->conn.filler_left = (uint16_t)(n < t->conn.filler_left ? t->conn.filler_left - n : 0u);
        return;
    }
    if (k == NULL)
        return;
    k->data_pos += n;
    if (parity)
        k->out_parity = true;
}

static void after_data_out(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;
    sim_task *k = c->task;
    pcam_simlu *lu = &t->lu[k->lun];
    sim_msg m;

    if (k->out_parity) {
        /* The target saw bad parity: have the initiator send it again (SPI), a few times. */
        k->out_parity = false;
        if (k->parity_retries < 3) {
            k->parity_retries++;
            k->data_pos = k->saved_pos;
            simm_msg1(&m, PCAM_MSG_RESTORE_POINTERS, MK_RP);
            simm_push(c, &m);
            return;
        }
        pcam_simlu_fail(lu, &k->cmd, PCAM_SK_ABORTED_COMMAND, 0x47, 0x00);
        k->status = SIM_ST_CHECK;
        k->media = false;
        c->stage = CS_STATUS;
        return;
    }
    if (k->media) {
        to_mechanism(s, t, k);
        return;
    }
    (void)pcam_simlu_finish_out(lu, &k->cmd);
    k->status = k->cmd.status;
    c->stage = CS_STATUS;
}

uint8_t simt_status_byte(const sim_target *t)
{
    return t->conn.task != NULL ? t->conn.task->status : t->conn.status;
}

uint8_t simt_status_pick(sim_target *t)
{
    pcam_sim_oracle_query q;

    memset(&q, 0, sizeof q);
    q.value = simt_status_byte(t);
    (void)simt_ask(t, &q, PCAM_SIM_DEC_STATUS);
    return (uint8_t)q.value;
}

void simt_status_done(pcam_sim *s, sim_target *t)
{
    (void)s;
    if (simt_status_byte(t) == SIM_ST_CHECK)
        t->stats.check_conditions++;
    t->conn.stage = CS_CC;
}

/* ---- the decision at the end of every phase ---- */

static sim_next req(sim_conn *c, pcam_phase p)
{
    sim_next n;

    c->holding = false;
    c->phase = p;
    n.kind = SN_REQ;
    n.phase = p;
    return n;
}

static sim_next other(sim_conn *c, sim_next_kind kind)
{
    sim_next n;

    c->holding = kind == SN_HOLD;
    n.kind = kind;
    n.phase = c->phase;
    return n;
}

static sim_msg_kind forced_kind(const sim_msg *m)
{
    if (m->len != 1)
        return MK_PLAIN;
    switch (m->b[0]) {
    case PCAM_MSG_COMMAND_COMPLETE:
        return MK_CC;
    case PCAM_MSG_DISCONNECT:
        return MK_DISC;
    case PCAM_MSG_SAVE_DATA_POINTER:
        return MK_SDP;
    default:
        return MK_PLAIN;
    }
}

/* The oracle's say on what the target does next; false when it has none. */
static bool oracle_next(sim_target *t, sim_next *out)
{
    sim_conn *c = &t->conn;
    pcam_sim_oracle_query q;
    sim_msg m;
    unsigned ph;

    memset(&q, 0, sizeof q);
    q.phase = c->phase;
    if (!simt_ask(t, &q, PCAM_SIM_DEC_NEXT))
        return false;
    switch (q.action) {
    case PCAM_SIM_NEXT_REQ:
        ph = (unsigned)q.phase;
        if (ph > (unsigned)PCAM_PHASE_MSG_IN)
            return false;
        /* A target requesting in a DATA phase moves at least one byte. */
        if (q.phase == PCAM_PHASE_DATA_IN || q.phase == PCAM_PHASE_DATA_OUT)
            c->filler_left = (uint16_t)(q.value == 0 ? 1u : q.value < SIM_FILLER ? q.value : SIM_FILLER);
        if (q.phase == PCAM_PHASE_MSG_OUT && c->phase != PCAM_PHASE_MSG_OUT) {
            /* Unasked-for MESSAGE OUT: a fresh message starts there. */
            c->last_info = c->phase;
            pcam_msg_parser_init(&c->parser);
        }
        *out = req(c, q.phase);
        return true;
    case PCAM_SIM_NEXT_MSG:
        if (c->mi_pos != 0 || c->mi_count >= SIM_MI_MAX)
            return false;
        memset(&m, 0, sizeof m);
        m.len = q.len == 0 ? 1u : (q.len > PCAM_MSG_MAX_LEN ? (uint8_t)PCAM_MSG_MAX_LEN : q.len);
        memcpy(m.b, q.bytes, m.len);
        m.kind = (uint8_t)forced_kind(&m);
        m.asked = true;
        simm_push_front(c, &m);
        *out = req(c, PCAM_PHASE_MSG_IN);
        return true;
    case PCAM_SIM_NEXT_FREE:
        /* A task waiting in the mechanism for this connection reselects later instead. */
        if (c->task != NULL)
            c->task->hold = false;
        c->stage = CS_FREE;
        c->mi_count = 0;
        c->mi_pos = 0;
        *out = other(c, SN_FREE);
        return true;
    case PCAM_SIM_NEXT_HANG:
        c->stage = CS_HANG;
        *out = other(c, SN_HANG);
        return true;
    default:
        return false;
    }
}

/* Before a queued message goes out, the oracle may rewrite its bytes. */
static void oracle_message(sim_target *t)
{
    sim_conn *c = &t->conn;
    sim_msg *m = &c->mi[0];
    pcam_sim_oracle_query q;

    if (c->mi_pos != 0 || m->asked)
        return;
    m->asked = true;
    memset(&q, 0, sizeof q);
    memcpy(q.bytes, m->b, sizeof q.bytes);
    q.len = m->len;
    if (!simt_ask(t, &q, PCAM_SIM_DEC_MESSAGE))
        return;
    m->len = q.len == 0 ? 1u : (q.len > PCAM_MSG_MAX_LEN ? (uint8_t)PCAM_MSG_MAX_LEN : q.len);
    memcpy(m->b, q.bytes, m->len);
}

sim_next simt_next(pcam_sim *s, sim_target *t, bool atn)
{
    sim_conn *c = &t->conn;
    sim_task *k;
    sim_msg m;
    sim_next forced;
    unsigned guard;

    if (c->stage == CS_HANG)
        return other(c, SN_HANG);
    if (c->phase == PCAM_PHASE_MSG_OUT) {
        if (!c->leave && (atn || pcam_msg_parser_busy(&c->parser)))
            return req(c, PCAM_PHASE_MSG_OUT);
        c->leave = false;
        c->sel_msgs = false;
        pcam_msg_parser_init(&c->parser);
        simm_resolve_pending(s, t);
    } else if (atn && c->stage != CS_FREE) {
        c->last_info = c->phase;
        c->phase = PCAM_PHASE_MSG_OUT;
        pcam_msg_parser_init(&c->parser);
        c->holding = false;
        return other(c, SN_REQ);
    }
    if (oracle_next(t, &forced))
        return forced;
    for (guard = 0; guard < 16; guard++) {
        if (c->stage == CS_FREE)
            return other(c, SN_FREE);
        if (c->mi_count != 0) {
            oracle_message(t);
            return req(c, PCAM_PHASE_MSG_IN);
        }
        k = c->task;
        switch (c->stage) {
        case CS_NEED_CDB:
            if (c->cdb_need != 0 && c->cdb_have >= c->cdb_need) {
                command_received(s, t);
                continue;
            }
            return req(c, PCAM_PHASE_COMMAND);
        case CS_DATA_IN:
        case CS_DATA_OUT:
            if (k == NULL) {
                c->stage = CS_STATUS;
                continue;
            }
            if (k->drop && k->data_pos >= k->drop_at) {
                simk_drop(s, t, k, PCAM_SIM_TN_DROPPED);
                c->stage = CS_FREE;
                continue;
            }
            if (k->data_pos < k->data_len)
                return req(c, c->stage == CS_DATA_IN ? PCAM_PHASE_DATA_IN : PCAM_PHASE_DATA_OUT);
            if (c->stage == CS_DATA_IN) {
                if (t->cfg.wide_residue && t->agreed.width != 0 && (k->data_len & 1u) != 0) {
                    memset(&m, 0, sizeof m);
                    m.len = (uint8_t)pcam_msg_build_ignore_wide_residue(m.b, sizeof m.b, 1);
                    m.kind = MK_PLAIN;
                    simm_push(c, &m);
                }
                c->stage = CS_STATUS;
            } else
                after_data_out(s, t);
            continue;
        case CS_STATUS:
            return req(c, PCAM_PHASE_STATUS);
        case CS_CC:
            simm_msg1(&m, PCAM_MSG_COMMAND_COMPLETE, MK_CC);
            simm_push(c, &m);
            continue;
        case CS_DISCONNECTING:
            simm_msg1(&m, PCAM_MSG_DISCONNECT, MK_DISC);
            simm_push(c, &m);
            continue;
        case CS_HOLD:
            return other(c, SN_HOLD);
        case CS_RESERVED:
            return req(c, t->cfg.illegal_phase == 5 ? PCAM_PHASE_RESERVED5 : PCAM_PHASE_RESERVED4);
        case CS_HANG:
            return other(c, SN_HANG);
        default:
            c->stage = CS_FREE;
            continue;
        }
    }
    c->stage = CS_FREE;
    return other(c, SN_FREE);
}

/* The mechanism finished the task this connection holds the bus for. */
void simt_mech_done_held(pcam_sim *s, sim_target *t, sim_task *k)
{
    sim_conn *c = &t->conn;

    k->hold = false;
    k->state = TK_CONNECTED;
    if (c->stage == CS_HOLD)
        c->stage = k->cmd.dir == PCAM_DIR_IN && k->data_len != 0 && k->status == SIM_ST_GOOD
                       ? CS_DATA_IN
                       : CS_STATUS;
    if (c->holding) {
        c->holding = false;
        sim_bus_target_ready(s, t);
    }
}

void simt_bus_free(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;

    /* A task left connected without disconnecting is gone with the connection. */
    if (c->task != NULL && c->task->state == TK_CONNECTED)
        simk_drop(s, t, c->task, PCAM_SIM_TN_DROPPED);
    c->task = NULL;
    c->active = false;
    c->phase = PCAM_PHASE_BUS_FREE;
    c->mi_count = 0;
    c->mi_pos = 0;
}

/* ---- reselection ---- */

static sim_task *first_ready(const sim_target *t)
{
    sim_task *k, *best = NULL;

    for (k = t->tasks; k != NULL; k = k->next)
        if (k->state == TK_READY &&
            (best == NULL || k->ready_at < best->ready_at ||
             (k->ready_at == best->ready_at && k->seq < best->seq)))
            best = k;
    return best;
}

bool simt_resel_ready(const sim_target *t, uint64_t *at)
{
    const sim_task *k;

    if (t->conn.active)
        return false;
    k = first_ready(t);
    if (k == NULL && t->cfg.phantom_resel_next != 0) {
        *at = 0; /* at once: arbitration waits for the bus-free settle anyway */
        return true;
    }
    if (k == NULL)
        return false;
    *at = k->ready_at;
    return true;
}

static uint8_t unused_tag(sim_target *t, uint8_t lun, uint8_t tag)
{
    unsigned i;

    for (i = 1; i < 256; i++) {
        uint8_t x = (uint8_t)(tag + i);
        if (simk_find_tag(t, lun, x) == NULL)
            return x;
    }
    return tag;
}

static uint8_t resel_identify(const sim_target *t, uint8_t identify)
{
    pcam_sim_oracle_query q;

    memset(&q, 0, sizeof q);
    q.value = identify;
    (void)simt_ask(t, &q, PCAM_SIM_DEC_RESELECT);
    return (uint8_t)q.value;
}

uint8_t simt_reselect(pcam_sim *s, sim_target *t)
{
    sim_conn *c = &t->conn;
    sim_task *k = first_ready(t);
    uint8_t lun, identify;
    sim_msg m;

    (void)s;
    conn_open(t);
    if (k == NULL && t->cfg.phantom_resel_next != 0) {
        /* Nothing to reselect for: IDENTIFY, then bus free (stage CS_NONE) unless the oracle says. */
        t->cfg.phantom_resel_next--;
        c->reselect = true;
        c->identified = true;
        identify = resel_identify(t, PCAM_MSG_IDENTIFY);
        c->lun = identify & 7u;
        simm_msg1(&m, identify, MK_IDENTIFY);
        m.asked = true;
        simm_push(c, &m);
        c->phase = PCAM_PHASE_MSG_IN;
        t->stats.reselections++;
        return identify;
    }
    if (k == NULL)
        return PCAM_MSG_IDENTIFY;
    c->reselect = true;
    c->identified = true;
    c->task = k;
    c->lun = k->lun;
    k->state = TK_CONNECTED;
    k->data_pos = k->saved_pos;
    lun = k->lun;
    if (t->cfg.lie_lun_next != 0) {
        t->cfg.lie_lun_next--;
        lun = (uint8_t)((lun + 1) & 7u);
    }
    identify = resel_identify(t, (uint8_t)(PCAM_MSG_IDENTIFY | lun));
    simm_msg1(&m, identify, MK_IDENTIFY);
    m.asked = true;
    simm_push(c, &m);
    if (k->tagged) {
        uint8_t tag = k->tag;

        if (t->cfg.lie_tag_next != 0) {
            t->cfg.lie_tag_next--;
            tag = unused_tag(t, k->lun, tag);
        }
        memset(&m, 0, sizeof m);
        m.b[0] = k->tag_type;
        m.b[1] = tag;
        m.len = 2;
        m.kind = MK_TAG;
        simm_push(c, &m);
    }
    c->stage = k->cmd.dir == PCAM_DIR_IN && k->data_len != 0 && k->status == SIM_ST_GOOD ? CS_DATA_IN
                                                                                         : CS_STATUS;
    c->phase = PCAM_PHASE_MSG_IN;
    t->stats.reselections++;
    return identify;
}

/* ---- bus reset ---- */

void simt_reset(pcam_sim *s, sim_target *t)
{
    simk_drop_all(s, t);
    memset(&t->conn, 0, sizeof t->conn);
    t->conn.phase = PCAM_PHASE_BUS_FREE;
    simn_reset(t);
    t->tags_used = false;
    t->nego_needed = true;
    if (t->cfg.ua_after_reset)
        simm_ua_all(t, 0x29, 0x00);
}

/* ---- queries ---- */

void pcam_sim_target_agreement(const pcam_sim *s, uint8_t id, pcam_hal_xfer_params *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (s != NULL && id < PCAM_SIM_MAX_IDS && s->tgt[id] != NULL)
        *out = s->tgt[id]->agreed;
}

bool pcam_sim_target_tags_in_use(const pcam_sim *s, uint8_t id)
{
    return s != NULL && id < PCAM_SIM_MAX_IDS && s->tgt[id] != NULL && s->tgt[id]->tags_used;
}

void pcam_sim_target_stats_get(const pcam_sim *s, uint8_t id, pcam_sim_target_stats *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (s != NULL && id < PCAM_SIM_MAX_IDS && s->tgt[id] != NULL)
        *out = s->tgt[id]->stats;
}

unsigned pcam_sim_task_count(const pcam_sim *s, uint8_t id, uint8_t lun)
{
    if (s == NULL || id >= PCAM_SIM_MAX_IDS || s->tgt[id] == NULL)
        return 0;
    return simk_count(s->tgt[id], lun);
}
