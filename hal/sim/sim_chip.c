/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated chip's actions: the function-level initiator interface
 * (pcam_sim_i_*) that sim_hal.c adapts to pcam_hal_ops, and the byte runs
 * they start. A run hands its bytes to the target at once and schedules the
 * target's decision for the instant the last byte's handshake ends, so
 * nothing observable happens before that instant.
 */
#include <string.h>

#include "sim_internal.h"
#include "pcam/pcam_err.h"

static int gross(pcam_sim *s, pcam_sim_call call, int err)
{
    sim_trace(s, PCAM_SIM_TR_GROSS_ERROR, s->conn_id, s->phase, 0, (uint32_t)-err, (uint32_t)call);
    sim_post(s, PCAM_HAL_EV_GROSS_ERROR, 0, 0, s->chip_connected ? s->conn_id : SIM_NO_ID, 0, false);
    sim_vcd_flush(s, s->now);
    return err;
}

static void atn_changed(pcam_sim *s, uint64_t t, bool on)
{
    s->atn = on;
    sim_trace_at(s, t, PCAM_SIM_TR_ATN, s->conn_id, s->phase, 0, 0, on ? 1u : 0u);
    sim_vcd_set(s, t, V_ATN, on ? 1u : 0u);
}

/* ---- byte runs ---- */

void sim_run_msgout(pcam_sim *s, const uint8_t *b, uint16_t n)
{
    sim_target *t = sim_conn_target(s);
    uint64_t t0 = s->now, a = s->cfg.async_ns;
    uint16_t i = 0;

    while (t != NULL && i < n) {
        uint64_t ti = t0 + a * i;
        bool stay;

        if (i + 1 == n && s->atn && !(s->action == A_SELECT && s->sel_keep_atn))
            atn_changed(s, ti, false); /* ATN goes before the last byte */
        sim_trace_at(s, ti, PCAM_SIM_TR_MSG_OUT, s->conn_id, PCAM_PHASE_MSG_OUT, b[i], 1, 0);
        sim_vcd_bytes(s, ti, a, &b[i], 1, false, UINT32_MAX);
        stay = simt_msgout_byte(s, t, b[i], s->atn);
        i++;
        if (!stay)
            break;
    }
    if (s->action == A_SELECT)
        s->sel_msg_sent = (uint16_t)(s->sel_msg_sent + i);
    else
        s->mo_sent = (uint16_t)(s->mo_sent + i);
    sim_schedule(s, ST_DECIDE, t0 + a * i, s->phase);
}

void sim_run_cdb(pcam_sim *s, const uint8_t *b, uint16_t n)
{
    sim_target *t = sim_conn_target(s);
    uint64_t a = s->cfg.async_ns;
    uint16_t i = 0;

    while (t != NULL && i < n && simt_cmd_need(t, b[i]) != 0)
        simt_cmd_byte(t, b[i++]);
    if (i != 0) {
        sim_trace(s, PCAM_SIM_TR_COMMAND, s->conn_id, PCAM_PHASE_COMMAND, b[0], i, 0);
        sim_vcd_bytes(s, s->now, a * i, b, i, false, UINT32_MAX);
    }
    if (s->action == A_SELECT)
        s->sel_cdb_sent = (uint16_t)(s->sel_cdb_sent + i);
    else
        s->act_count += i;
    sim_schedule(s, ST_DECIDE, s->now + a * i, s->phase);
}

/* The status byte's handshake; the target's decision comes when it ends. */
uint8_t sim_run_status(pcam_sim *s, sim_target *t)
{
    uint8_t st = simt_status_pick(t);

    sim_trace(s, PCAM_SIM_TR_STATUS, t->id, PCAM_PHASE_STATUS, st, 1, 0);
    sim_vcd_bytes(s, s->now, s->cfg.async_ns, &st, 1, false, UINT32_MAX);
    simt_status_done(s, t);
    sim_schedule(s, ST_DECIDE, s->now + s->cfg.async_ns, s->phase);
    return st;
}

/* The target's parity fault on a message-in byte, as configured: the byte
 * flipped in one bit. True when it struck. */
bool sim_msgin_parity(pcam_sim *s, sim_target *t, uint8_t *byte)
{
    if (t == NULL || !sim_chance_ppm(s, t->cfg.parity_msg_ppm))
        return false;
    *byte ^= (uint8_t)(1u << (sim_rand(s) % 8));
    t->stats.parity_injected++;
    sim_trace(s, PCAM_SIM_TR_PARITY, t->id, PCAM_PHASE_MSG_IN, 0, 0, 0);
    return true;
}

/* REQ of a message-in byte: the chip latches it and holds ACK. */
void sim_run_msgin(pcam_sim *s, sim_target *t)
{
    uint8_t byte = simt_msgin_peek(t);
    bool bad = sim_msgin_parity(s, t, &byte);

    s->held_byte = byte;
    s->held_parity = bad;
    s->action = A_MSGIN;
    sim_vcd_msgin_byte(s, s->now, byte, bad);
    sim_schedule(s, ST_MSGIN_BYTE, s->now + s->cfg.async_ns / 2, s->phase);
}

/* ---- scatter-gather ---- */

static bool sg_valid(const pcam_hal_xfer *x)
{
    uint16_t i;

    if (x->sg_count != 0 && x->sg == NULL)
        return false;
    for (i = 0; i < x->sg_count; i++)
        if (x->sg[i].len != 0 && x->sg[i].addr == NULL)
            return false;
    return true;
}

/* Copy up to n bytes between buf and the list at offset; returns bytes the list had room for. */
static uint32_t sg_copy(const pcam_hal_xfer *x, uint8_t *buf, uint32_t n, bool to_list)
{
    uint32_t off = x->offset, done = 0;
    uint16_t i;

    for (i = 0; i < x->sg_count && done < n; i++) {
        uint32_t len = x->sg[i].len, k;
        uint8_t *p = x->sg[i].addr;

        if (off >= len) {
            off -= len;
            continue;
        }
        k = len - off;
        if (k > n - done)
            k = n - done;
        if (to_list)
            memcpy(p + off, buf + done, k);
        else
            memcpy(buf + done, p + off, k);
        done += k;
        off = 0;
    }
    return done;
}

static uint8_t *sg_byte(const pcam_hal_xfer *x, uint32_t pos)
{
    uint32_t off = x->offset + pos;
    uint16_t i;

    for (i = 0; i < x->sg_count; i++) {
        if (off < x->sg[i].len)
            return (uint8_t *)x->sg[i].addr + off;
        off -= x->sg[i].len;
    }
    return NULL;
}

/* ---- data timing ---- */

static uint64_t data_ns(const pcam_sim *s, const sim_target *t, uint32_t n)
{
    const pcam_hal_xfer_params *a = &t->agreed, *c = &s->chip_xfer[t->id];
    uint64_t per = a->width != 0 ? 2u : 1u, transfers = (n + per - 1) / per, ps;

    if (a->offset == 0)
        return transfers * s->cfg.async_ns;
    ps = sim_period_ps(a->period);
    if (c->offset != 0 && sim_period_ps(c->period) > ps)
        ps = sim_period_ps(c->period);
    ps *= transfers;
    if (a->ppr_options & PCAM_PPR_DT_REQ)
        ps /= 2;
    return (ps + 999u) / 1000u;
}

static bool mode_mismatch(const pcam_sim *s, const sim_target *t)
{
    const pcam_hal_xfer_params *a = &t->agreed, *c = &s->chip_xfer[t->id];

    return a->offset != c->offset || a->width != c->width ||
           ((a->ppr_options ^ c->ppr_options) & PCAM_PPR_DT_REQ) != 0;
}

static int transfer_data(pcam_sim *s, sim_target *t, const pcam_hal_xfer *x)
{
    bool in = x->phase == PCAM_PHASE_DATA_IN, bad = false, pad = false;
    uint32_t avail = simt_data_avail(t), n = x->len < avail ? x->len : avail, i;
    uint32_t bad_index = UINT32_MAX;
    uint8_t *tb = simt_data_ptr(t);
    uint64_t dur;

    if (s->cfg.strict_xfer && mode_mismatch(s, t)) {
        s->action = A_NONE;
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_OK);
    }
    if (tb == NULL)
        n = 0;
    n = sg_copy(x, tb, n, in);
    pad = in && n != 0 && simt_data_pad(t, n);
    for (i = 0; i < n && t->cfg.parity_data_ppm != 0; i++) {
        if (!sim_chance_ppm(s, t->cfg.parity_data_ppm))
            continue;
        t->stats.parity_injected++;
        sim_trace(s, PCAM_SIM_TR_PARITY, t->id, x->phase, (uint8_t)i, i, 0);
        if (bad_index == UINT32_MAX)
            bad_index = i;
        bad = true;
        if (in) {
            uint8_t *p = sg_byte(x, i);
            if (p != NULL)
                *p ^= (uint8_t)(1u << (sim_rand(s) % 8));
        }
    }
    s->action = A_TRANSFER;
    s->act_count = n;
    s->act_parity = in && bad;
    if (pad) {
        /* The last word carried one valid byte: the chip counts both. */
        pcam_hal_xfer px = *x;
        uint8_t zero = 0;

        px.offset = x->offset + n;
        if (x->len > n)
            (void)sg_copy(&px, &zero, 1, true);
        s->act_count = n + 1;
    }
    /* Like the 53C9x, a chip that checks parity raises ATN itself on a bad
     * byte, so the target goes to MESSAGE OUT when the transfer ends and the
     * core can send INITIATOR DETECTED ERROR. */
    if (s->act_parity && (s->cfg.cap_flags & PCAM_HAL_CAP_PARITY) && !s->atn)
        atn_changed(s, s->now, true);
    if (n == 0) {
        s->action = A_NONE;
        sim_post(s, PCAM_HAL_EV_XFER_DONE, 0, 0, t->id, 0, false);
        return PCAM_OK;
    }
    dur = data_ns(s, t, n);
    sim_trace(s, PCAM_SIM_TR_DATA, t->id, x->phase, tb[0], n, (uint32_t)(dur > UINT32_MAX ? UINT32_MAX : dur));
    sim_vcd_bytes(s, s->now, dur, tb, n, t->agreed.width != 0, bad_index);
    simt_data_done(s, t, n, !in && bad);
    s->bstats.data_bytes += n;
    s->bstats.data_ns += dur;
    s->bstats.target_bytes[t->id] += n;
    if (in)
        t->stats.bytes_in += n;
    else
        t->stats.bytes_out += n;
    sim_schedule(s, ST_DECIDE, s->now + dur, s->phase);
    return PCAM_OK;
}

/* ---- the actions ---- */

void pcam_sim_i_caps(const pcam_sim *s, pcam_hal_caps *caps)
{
    if (caps == NULL)
        return;
    memset(caps, 0, sizeof *caps);
    if (s == NULL)
        return;
    caps->name = s->cfg.chip_name != NULL ? s->cfg.chip_name : "pcam-sim";
    caps->profile = PCAM_HAL_PHASE_LEVEL;
    caps->flags = s->cfg.cap_flags;
    caps->max_targets = s->cfg.width;
    caps->initiator_id = s->cfg.initiator_id;
    caps->min_period = (s->cfg.cap_flags & PCAM_HAL_CAP_SYNC) ? s->cfg.cap_min_period : 0;
    caps->max_offset = (s->cfg.cap_flags & PCAM_HAL_CAP_SYNC) ? s->cfg.cap_max_offset : 0;
    caps->max_sg = s->cfg.cap_max_sg;
    caps->max_xfer = s->cfg.cap_max_xfer;
    caps->align_mask = s->cfg.cap_align_mask;
}

int pcam_sim_i_reset_chip(pcam_sim *s)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    s->stall_reset_next = 0; /* a chip reset unwedges it */
    s->action = A_NONE;
    s->chain_active = false;
    s->sel_pending = false;
    sim_clear_events(s);
    if (s->atn)
        atn_changed(s, s->now, false);
    s->ack_held = false;
    memset(s->chip_xfer, 0, sizeof s->chip_xfer);
    if (s->bus == BUS_ARB_SEL) {
        s->step = ST_NONE;
        sim_bus_released(s, s->now);
        sim_vcd_drop_after(s, s->now);
    } else if (s->bus == BUS_CONNECTED) {
        /* The chip lets go; the target does not know and keeps the bus. */
        if (s->step == ST_MSGIN_BYTE || s->step == ST_ACK)
            s->step = ST_NONE;
        s->chip_connected = false;
    }
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

void pcam_sim_chip_stall_bus_reset(pcam_sim *s, uint32_t n)
{
    if (s != NULL)
        s->stall_reset_next = n;
}

int pcam_sim_i_reset_bus(pcam_sim *s)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (s->stall_reset_next > 0) {
        s->stall_reset_next--; /* wedged: taken, never driven */
        return PCAM_OK;
    }
    sim_do_reset(s, true);
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

static int do_select(pcam_sim *s, const pcam_hal_select *sel, bool keep_atn);

int pcam_sim_i_select(pcam_sim *s, const pcam_hal_select *sel)
{
    return do_select(s, sel, false);
}

int pcam_sim_i_select_stop(pcam_sim *s, const pcam_hal_select *sel)
{
    return do_select(s, sel, true);
}

static int do_select(pcam_sim *s, const pcam_hal_select *sel, bool keep_atn)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (sel == NULL)
        return gross(s, PCAM_SIM_CALL_SELECT, PCAM_ERR_NULL);
    /* A reselection (or a reset) got there first: the select never happens.
     * That includes one the chip is still taking on its own (chained
     * reselection): the core has not heard of it yet, so it may select. */
    if (s->bus == BUS_RESEL || sim_event_queued(s, PCAM_HAL_EV_RESELECTED) ||
        sim_event_queued(s, PCAM_HAL_EV_BUS_RESET) ||
        (s->chain_active && s->chain_ev.type == PCAM_HAL_EV_RESELECTED))
        return PCAM_OK;
    if (s->action != A_NONE)
        return gross(s, PCAM_SIM_CALL_SELECT, PCAM_ERR_UNSUPPORTED);
    if (s->chip_connected)
        return gross(s, PCAM_SIM_CALL_SELECT, PCAM_ERR_UNSUPPORTED);
    if (sel->target >= s->cfg.width || sel->target == s->cfg.initiator_id)
        return gross(s, PCAM_SIM_CALL_SELECT, PCAM_ERR_RANGE);
    if ((sel->atn && sel->msg_len != 0 && sel->msg == NULL) || (sel->cdb_len != 0 && sel->cdb == NULL))
        return gross(s, PCAM_SIM_CALL_SELECT, PCAM_ERR_NULL);
    s->sel_target = sel->target;
    s->sel_atn = sel->atn;
    s->sel_keep_atn = keep_atn && sel->atn;
    s->sel_msg_len = sel->atn ? sel->msg_len : 0;
    if (s->sel_msg_len != 0)
        memcpy(s->sel_msg, sel->msg, s->sel_msg_len);
    s->sel_cdb_len = sel->cdb_len;
    if (sel->cdb_len != 0)
        memcpy(s->sel_cdb, sel->cdb, sel->cdb_len);
    s->sel_msg_sent = 0;
    s->sel_cdb_sent = 0;
    s->may_accept = sel->may_accept;
    s->act_count = 0;
    s->act_count2 = 0;
    s->act_parity = false;
    s->action = A_SELECT;
    s->sel_pending = true;
    s->sel_ready = s->now;
    return PCAM_OK;
}

/* Common checks for actions that need the chip connected and idle. */
static int connected_idle(const pcam_sim *s)
{
    if (s->action != A_NONE || !s->chip_connected || s->bus != BUS_CONNECTED || s->step != ST_NONE)
        return PCAM_ERR_UNSUPPORTED;
    return PCAM_OK;
}

int pcam_sim_i_transfer(pcam_sim *s, const pcam_hal_xfer *x)
{
    sim_target *t;
    uint8_t cdb[256];
    uint32_t n;

    if (s == NULL)
        return PCAM_ERR_NULL;
    if (x == NULL)
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_ERR_NULL);
    if (connected_idle(s) != PCAM_OK || s->ack_held || x->phase != s->phase)
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_ERR_UNSUPPORTED);
    if (x->phase != PCAM_PHASE_DATA_IN && x->phase != PCAM_PHASE_DATA_OUT &&
        x->phase != PCAM_PHASE_COMMAND && x->phase != PCAM_PHASE_STATUS)
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_ERR_UNSUPPORTED);
    if (!sg_valid(x))
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_ERR_NULL);
    if (x->sg_count > s->cfg.cap_max_sg)
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_ERR_RANGE);
    t = sim_conn_target(s);
    if (t == NULL)
        return gross(s, PCAM_SIM_CALL_TRANSFER, PCAM_ERR_UNSUPPORTED);
    s->act_count = 0;
    s->act_count2 = 0;
    s->act_parity = false;
    s->may_accept = x->may_accept;
    if (x->phase == PCAM_PHASE_DATA_IN || x->phase == PCAM_PHASE_DATA_OUT) {
        int rc = transfer_data(s, t, x);
        sim_vcd_flush(s, s->now);
        return rc;
    }
    s->action = A_TRANSFER;
    if (x->phase == PCAM_PHASE_STATUS) {
        uint8_t st = simt_status_pick(t);

        n = x->len != 0 ? sg_copy(x, &st, 1, true) : 0;
        if (n == 0) {
            s->action = A_NONE;
            sim_post(s, PCAM_HAL_EV_XFER_DONE, 0, 0, t->id, 0, false);
            return PCAM_OK;
        }
        s->act_count = 1;
        (void)sim_run_status(s, t);
        sim_vcd_flush(s, s->now);
        return PCAM_OK;
    }
    /* COMMAND: the bytes the target still wants, from the list. */
    n = x->len < sizeof cdb ? x->len : (uint32_t)sizeof cdb;
    n = sg_copy(x, cdb, n, false);
    if (n == 0) {
        s->action = A_NONE;
        sim_post(s, PCAM_HAL_EV_XFER_DONE, 0, 0, t->id, 0, false);
        return PCAM_OK;
    }
    sim_run_cdb(s, cdb, (uint16_t)n);
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

int pcam_sim_i_msg_out(pcam_sim *s, const uint8_t *msg, size_t len)
{
    sim_target *t;

    if (s == NULL)
        return PCAM_ERR_NULL;
    if (msg == NULL)
        return gross(s, PCAM_SIM_CALL_MSG_OUT, PCAM_ERR_NULL);
    if (len == 0 || len > 255)
        return gross(s, PCAM_SIM_CALL_MSG_OUT, PCAM_ERR_RANGE);
    if (connected_idle(s) != PCAM_OK || s->ack_held)
        return gross(s, PCAM_SIM_CALL_MSG_OUT, PCAM_ERR_UNSUPPORTED);
    t = sim_conn_target(s);
    if (t == NULL)
        return gross(s, PCAM_SIM_CALL_MSG_OUT, PCAM_ERR_UNSUPPORTED);
    if (s->phase != PCAM_PHASE_MSG_OUT) {
        bool can_switch = s->atn && s->phase != PCAM_PHASE_MSG_IN && s->phase != PCAM_PHASE_BUS_FREE;

        if (!can_switch)
            return gross(s, PCAM_SIM_CALL_MSG_OUT, PCAM_ERR_UNSUPPORTED);
    }
    memcpy(s->mo_buf, msg, len);
    s->mo_len = (uint16_t)len;
    s->mo_sent = 0;
    s->act_count = 0;
    s->act_count2 = 0;
    s->act_parity = false;
    s->action = A_MSGOUT;
    if (s->phase == PCAM_PHASE_MSG_OUT) {
        sim_run_msgout(s, s->mo_buf, s->mo_len);
    } else {
        /* The chip waits for MESSAGE OUT; the target, seeing ATN, goes there now. */
        simt_atn_switch(t);
        sim_vcd_set(s, s->now, V_REQ, 0);
        sim_vcd_phase(s, s->now + s->cfg.phase_ns / 2, PCAM_PHASE_MSG_OUT);
        sim_schedule(s, ST_REQ, s->now + s->cfg.phase_ns, PCAM_PHASE_MSG_OUT);
    }
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

int pcam_sim_i_msg_in(pcam_sim *s)
{
    sim_target *t;

    if (s == NULL)
        return PCAM_ERR_NULL;
    if (connected_idle(s) != PCAM_OK || s->ack_held || s->phase != PCAM_PHASE_MSG_IN ||
        (t = sim_conn_target(s)) == NULL)
        return gross(s, PCAM_SIM_CALL_MSG_IN, PCAM_ERR_UNSUPPORTED);
    sim_run_msgin(s, t);
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

int pcam_sim_i_msg_accept(pcam_sim *s, bool atn)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (connected_idle(s) != PCAM_OK || !s->ack_held)
        return gross(s, PCAM_SIM_CALL_MSG_ACCEPT, PCAM_ERR_UNSUPPORTED);
    if (atn && !s->atn)
        atn_changed(s, s->now, true);
    s->ack_held = false;
    s->action = A_ACCEPT;
    s->act_count = 0;
    s->act_count2 = 0;
    s->act_parity = false;
    sim_vcd_set(s, s->now, V_ACK, 0);
    sim_schedule(s, ST_ACK, s->now + s->cfg.async_ns / 2, s->phase);
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

int pcam_sim_i_set_atn(pcam_sim *s)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (!s->atn)
        atn_changed(s, s->now, true);
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

int pcam_sim_i_reset_atn(pcam_sim *s)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (s->atn)
        atn_changed(s, s->now, false);
    sim_vcd_flush(s, s->now);
    return PCAM_OK;
}

bool pcam_sim_set_chain(pcam_sim *s, bool on)
{
    bool was;

    if (s == NULL)
        return false;
    was = s->cfg.chain_endings;
    s->cfg.chain_endings = on;
    return was;
}

void pcam_sim_set_sel_timeout(pcam_sim *s, uint64_t ns)
{
    if (s != NULL && ns != 0)
        s->cfg.sel_timeout_ns = ns;
}

int pcam_sim_i_set_xfer(pcam_sim *s, uint8_t target, const pcam_hal_xfer_params *p)
{
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (p == NULL)
        return gross(s, PCAM_SIM_CALL_SET_XFER, PCAM_ERR_NULL);
    if (target >= s->cfg.width || p->width > 1 || (p->width == 1 && s->cfg.width == 8))
        return gross(s, PCAM_SIM_CALL_SET_XFER, PCAM_ERR_RANGE);
    s->chip_xfer[target] = *p;
    return PCAM_OK;
}

int pcam_sim_i_poll(pcam_sim *s, pcam_hal_event *ev)
{
    if (s == NULL || ev == NULL)
        return PCAM_ERR_NULL;
    if (s->ev_count == 0)
        return 0;
    *ev = s->evq[s->ev_head];
    s->ev_head = (s->ev_head + 1) % SIM_EVQ;
    s->ev_count--;
    return 1;
}

void pcam_sim_chip_xfer(const pcam_sim *s, uint8_t id, pcam_hal_xfer_params *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (s != NULL && id < PCAM_SIM_MAX_IDS)
        *out = s->chip_xfer[id];
}
