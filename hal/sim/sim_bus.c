/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated bus: life cycle, simulated time, arbitration, and the bus
 * steps that carry an action from its start to its event. The chip's
 * actions themselves (select, transfer, messages) are in sim_chip.c.
 *
 * Time moves only in pcam_sim_advance(), one happening at a time, in this
 * order at equal times: mechanism completions (they may make a target a
 * contender), then the bus step, then arbitration. So every contender ready
 * at an arbitration instant takes part in it.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "pcam/pcam_err.h"

/* ---- configuration ---- */

void pcam_sim_config_defaults(pcam_sim_config *cfg)
{
    if (cfg == NULL)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->width = 16;
    cfg->initiator_id = 7;
    cfg->seed = 1;
    cfg->sel_timeout_ns = 250000000u;
    cfg->chip_name = "pcam-sim";
    cfg->cap_flags = PCAM_HAL_CAP_SYNC | PCAM_HAL_CAP_WIDE | PCAM_HAL_CAP_DT | PCAM_HAL_CAP_TAGS |
                     PCAM_HAL_CAP_PARITY;
    cfg->cap_min_period = 0x09;
    cfg->cap_max_offset = 31;
    cfg->cap_max_sg = 64;
    cfg->cap_max_xfer = 16u << 20;
    cfg->cap_align_mask = 0;
    cfg->async_ns = 200;
    cfg->arb_sel_ns = 4000;
    cfg->resel_ns = 4000;
    cfg->phase_ns = 400;
    cfg->bus_free_ns = 800;
    cfg->reset_ns = 25000;
    cfg->trace_entries = 4096;
    cfg->verbose = false;
    cfg->strict_xfer = true;
}

void pcam_sim_target_config_defaults(pcam_sim_target_config *tc)
{
    if (tc == NULL)
        return;
    memset(tc, 0, sizeof *tc);
    tc->min_period = 0x0C;
    tc->max_offset = 16;
    tc->wide = true;
    tc->ppr_options = 0;
    tc->sdtr = PCAM_SIM_NEGO_ACCEPT;
    tc->wdtr = PCAM_SIM_NEGO_ACCEPT;
    tc->ppr = PCAM_SIM_NEGO_REJECT;
    tc->counter_period = 0x32;
    tc->counter_offset = 8;
    tc->disconnect = PCAM_SIM_DISC_ON_SEEK;
    tc->ua_power_on = true;
    tc->ua_after_reset = true;
    tc->illegal_phase = 4;
}

pcam_sim *pcam_sim_create(const pcam_sim_config *cfg)
{
    pcam_sim_config def;
    pcam_sim *s;

    if (cfg == NULL) {
        pcam_sim_config_defaults(&def);
        cfg = &def;
    }
    if ((cfg->width != 8 && cfg->width != 16) || cfg->initiator_id >= cfg->width)
        return NULL;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->cfg = *cfg;
    if (cfg->width == 8)
        s->cfg.cap_flags &= ~(uint32_t)PCAM_HAL_CAP_WIDE;
    s->rng = cfg->seed;
    s->bus = BUS_FREE;
    s->phase = PCAM_PHASE_BUS_FREE;
    s->conn_id = SIM_NO_ID;
    s->free_since = 0;
    if (cfg->trace_entries != 0) {
        s->ring = calloc(cfg->trace_entries, sizeof *s->ring);
        if (s->ring == NULL) {
            free(s);
            return NULL;
        }
        s->ring_cap = cfg->trace_entries;
    }
    return s;
}

void pcam_sim_destroy(pcam_sim *s)
{
    unsigned i;

    if (s == NULL)
        return;
    if (s->vcd != NULL)
        (void)pcam_sim_vcd_close(s);
    for (i = 0; i < PCAM_SIM_MAX_IDS; i++) {
        if (s->tgt[i] != NULL) {
            simt_destroy(s->tgt[i]);
            free(s->tgt[i]);
        }
    }
    sim_trace_free(s);
    free(s);
}

int pcam_sim_add_target(pcam_sim *s, uint8_t id, const pcam_sim_target_config *tc)
{
    pcam_sim_target_config def;
    sim_target *t;

    if (s == NULL)
        return PCAM_ERR_NULL;
    if (id >= s->cfg.width || id == s->cfg.initiator_id || s->tgt[id] != NULL)
        return PCAM_ERR_RANGE;
    if (tc == NULL) {
        pcam_sim_target_config_defaults(&def);
        tc = &def;
    }
    t = calloc(1, sizeof *t);
    if (t == NULL)
        return PCAM_ERR_NOSPACE;
    simt_init(t, id, tc);
    s->tgt[id] = t;
    return PCAM_OK;
}

pcam_sim_target_config *pcam_sim_target_cfg(pcam_sim *s, uint8_t id)
{
    if (s == NULL || id >= PCAM_SIM_MAX_IDS || s->tgt[id] == NULL)
        return NULL;
    return &s->tgt[id]->cfg;
}

pcam_simlu *pcam_sim_lu(pcam_sim *s, uint8_t id, uint8_t lun)
{
    if (s == NULL || id >= PCAM_SIM_MAX_IDS || s->tgt[id] == NULL || lun >= PCAM_SIM_LUNS)
        return NULL;
    return &s->tgt[id]->lu[lun];
}

/* ---- PRNG: splitmix64, one stream for every random choice ---- */

uint64_t sim_rand(pcam_sim *s)
{
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

bool sim_chance_ppm(pcam_sim *s, uint32_t ppm)
{
    if (ppm == 0)
        return false;
    return sim_rand(s) % 1000000u < ppm;
}

uint32_t sim_period_ps(uint8_t factor)
{
    uint32_t ps = pcam_period_factor_to_ps(factor);

    return ps != 0 ? ps : (uint32_t)factor * 4000u;
}

/* ---- trace ---- */

void sim_trace_at(pcam_sim *s, uint64_t t, pcam_sim_trace_kind kind, uint8_t target, pcam_phase phase,
                  uint8_t byte, uint32_t count, uint32_t value)
{
    pcam_sim_trace_entry e;

    if (s->ring_cap == 0 && s->log == NULL)
        return;
    memset(&e, 0, sizeof e);
    e.t_ns = t;
    e.kind = kind;
    e.target = target;
    e.phase = phase;
    e.byte = byte;
    e.count = count;
    e.value = value;
    sim_ring_push(s, &e);
}

void sim_trace(pcam_sim *s, pcam_sim_trace_kind kind, uint8_t target, pcam_phase phase, uint8_t byte,
               uint32_t count, uint32_t value)
{
    sim_trace_at(s, s->now, kind, target, phase, byte, count, value);
}

void sim_trace_task(pcam_sim *s, const sim_target *t, const sim_task *k, pcam_sim_task_note note)
{
    pcam_sim_trace_entry e;

    if (s->ring_cap == 0 && s->log == NULL)
        return;
    memset(&e, 0, sizeof e);
    e.t_ns = s->now;
    e.kind = PCAM_SIM_TR_TASK;
    e.target = t->id;
    e.lun = k->lun;
    e.byte = k->tagged ? k->tag : 0;
    e.tag_type = k->tagged ? k->tag_type : 0;
    e.phase = PCAM_PHASE_BUS_FREE;
    e.count = k->cdb_len != 0 ? k->cdb[0] : 0;
    e.value = note;
    sim_ring_push(s, &e);
}

/* ---- time ---- */

uint64_t pcam_sim_now(const pcam_sim *s)
{
    return s != NULL ? s->now : 0;
}

static unsigned prio(uint8_t id)
{
    /* SCSI arbitration priority: 7 highest ... 0, then 15 ... 8 lowest. */
    return id < 8 ? id + 8u : id - 8u;
}

/* When arbitration happens next, and who takes part; SIM_NEVER if nobody. */
static uint64_t arb_time(const pcam_sim *s)
{
    uint64_t earliest = SIM_NEVER, r, a;
    unsigned i;

    if (s->bus != BUS_FREE)
        return SIM_NEVER;
    if (s->sel_pending)
        earliest = s->sel_ready;
    for (i = 0; i < s->cfg.width; i++)
        if (s->tgt[i] != NULL && simt_resel_ready(s->tgt[i], &r) && r < earliest)
            earliest = r;
    if (earliest == SIM_NEVER)
        return SIM_NEVER;
    a = s->free_since + s->cfg.bus_free_ns;
    if (a < earliest)
        a = earliest;
    return a < s->now ? s->now : a;
}

uint64_t pcam_sim_next_time(const pcam_sim *s)
{
    uint64_t best = SIM_NEVER, x;
    unsigned i;

    if (s == NULL)
        return SIM_NEVER;
    for (i = 0; i < PCAM_SIM_MAX_IDS; i++)
        if (s->tgt[i] != NULL && (x = simk_next_time(s->tgt[i])) < best)
            best = x;
    if (s->step != ST_NONE && s->step_t < best)
        best = s->step_t;
    x = arb_time(s);
    if (x < best)
        best = x;
    if (best != SIM_NEVER && best < s->now)
        best = s->now;
    return best;
}

bool pcam_sim_event_pending(const pcam_sim *s)
{
    return s != NULL && s->ev_count != 0;
}

/* ---- events ---- */

void sim_post(pcam_sim *s, pcam_hal_event_type type, uint32_t count, uint32_t count2, uint8_t target,
              uint8_t byte, bool parity)
{
    pcam_hal_event *ev;

    if (s->ev_count == SIM_EVQ) {
        s->ev_dropped++;
        return;
    }
    ev = &s->evq[(s->ev_head + s->ev_count) % SIM_EVQ];
    s->ev_count++;
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    ev->phase = s->phase;
    ev->count = count;
    ev->count2 = count2;
    ev->target = target;
    ev->byte = byte;
    ev->parity_error = parity;
    if (type == PCAM_HAL_EV_GROSS_ERROR)
        s->bstats.gross_errors++;
    sim_trace(s, PCAM_SIM_TR_EVENT, target, s->phase, byte, count, (uint32_t)type);
}

bool sim_event_queued(const pcam_sim *s, pcam_hal_event_type type)
{
    unsigned i;

    for (i = 0; i < s->ev_count; i++)
        if (s->evq[(s->ev_head + i) % SIM_EVQ].type == type)
            return true;
    return false;
}

void sim_clear_events(pcam_sim *s)
{
    s->ev_head = 0;
    s->ev_count = 0;
}

/* ---- VCD helpers for bus-level pictures ---- */

void sim_vcd_phase(pcam_sim *s, uint64_t t, pcam_phase p)
{
    unsigned v = p == PCAM_PHASE_BUS_FREE ? 0u : (unsigned)p;

    if (s->vcd == NULL)
        return;
    sim_vcd_set(s, t, V_MSG, (v >> 2) & 1u);
    sim_vcd_set(s, t, V_CD, (v >> 1) & 1u);
    sim_vcd_set(s, t, V_IO, v & 1u);
}

static uint32_t odd_parity(uint32_t byte)
{
    uint32_t p = 1;

    while (byte != 0) {
        p ^= byte & 1u;
        byte >>= 1;
    }
    return p;
}

/* One REQ/ACK transfer of `word` (low byte on DB7-0) in [t, t + d). When
 * hold_ack, ACK stays asserted (a message-in byte held by the chip). */
static void vcd_handshake(pcam_sim *s, uint64_t t, uint64_t d, uint32_t word, bool wide, bool bad,
                          bool hold_ack)
{
    sim_vcd_set(s, t, V_DB, word);
    sim_vcd_set(s, t, V_DBP, odd_parity(word & 0xFFu) ^ (bad ? 1u : 0u));
    if (wide)
        sim_vcd_set(s, t, V_DBP1, odd_parity((word >> 8) & 0xFFu));
    sim_vcd_set(s, t, V_REQ, 1);
    sim_vcd_set(s, t + d / 4, V_ACK, 1);
    sim_vcd_set(s, t + d / 2, V_REQ, 0);
    if (!hold_ack)
        sim_vcd_set(s, t + (3 * d) / 4, V_ACK, 0);
}

/* Handshakes for `n` bytes starting at t0 and taking `dur` ns; bytes
 * outside the first and last 16 transfers are summarised as DB = x. */
void sim_vcd_bytes(pcam_sim *s, uint64_t t0, uint64_t dur, const uint8_t *b, uint32_t n, bool wide,
                   uint32_t bad_index)
{
    uint32_t per = wide ? 2u : 1u;
    uint32_t transfers = (n + per - 1) / per, i;

    if (s->vcd == NULL || n == 0 || b == NULL)
        return;
    for (i = 0; i < transfers; i++) {
        uint64_t ti = t0 + dur * i / transfers;
        uint64_t d = dur / transfers;
        uint32_t word;

        if (transfers > 32 && i >= 16 && i < transfers - 16) {
            if (i == 16)
                sim_vcd_set(s, ti, V_DB, SIM_VCD_X);
            continue;
        }
        word = b[i * per];
        if (wide && i * per + 1 < n)
            word |= (uint32_t)b[i * per + 1] << 8;
        vcd_handshake(s, ti, d, word, wide, bad_index / per == i && bad_index != UINT32_MAX, false);
    }
}

void sim_vcd_msgin_byte(pcam_sim *s, uint64_t t, uint8_t byte, bool bad)
{
    if (s->vcd == NULL)
        return;
    vcd_handshake(s, t, s->cfg.async_ns, byte, false, bad, true);
}

static void vcd_release(pcam_sim *s, uint64_t t)
{
    unsigned sig;

    if (s->vcd == NULL)
        return;
    for (sig = 0; sig < V_NSIG; sig++)
        if (sig != V_RST)
            sim_vcd_set(s, t, sig, 0);
}

/* ---- busy accounting ---- */

static void bus_taken(pcam_sim *s, uint64_t t)
{
    s->busy_since = t;
}

void sim_bus_released(pcam_sim *s, uint64_t t)
{
    if (t > s->busy_since)
        s->bstats.busy_ns += t - s->busy_since;
    s->bus = BUS_FREE;
    s->free_since = t;
    s->phase = PCAM_PHASE_BUS_FREE;
}

void pcam_sim_bus_stats_get(const pcam_sim *s, pcam_sim_bus_stats *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (s == NULL)
        return;
    *out = s->bstats;
    if (s->bus != BUS_FREE && s->now > s->busy_since)
        out->busy_ns += s->now - s->busy_since;
}

/* ---- steps ---- */

void sim_schedule(pcam_sim *s, sim_step st, uint64_t t, pcam_phase ph)
{
    s->step = st;
    s->step_t = t;
    s->step_phase = ph;
}

sim_target *sim_conn_target(pcam_sim *s)
{
    return s->conn_id < PCAM_SIM_MAX_IDS ? s->tgt[s->conn_id] : NULL;
}

static void post_chain(pcam_sim *s, pcam_phase phase)
{
    if (s->ev_count == SIM_EVQ) {
        s->ev_dropped++;
        return;
    }
    s->chain_active = false;
    s->chain_tag_code = false;
    s->chain_ev.phase = phase;
    s->evq[(s->ev_head + s->ev_count) % SIM_EVQ] = s->chain_ev;
    s->ev_count++;
    sim_trace(s, PCAM_SIM_TR_EVENT, s->chain_ev.target, phase, s->chain_ev.msg, s->chain_ev.count,
              (uint32_t)s->chain_ev.type);
}

/*
 * Chained endings (pcam_hal.h): the action ended in STATUS or MESSAGE IN,
 * so the chip reads the status byte, then the first message byte, before
 * it reports the action, as a 53C9x's Initiator Command Complete Sequence
 * does. False when the event is to be posted as it is.
 */
static bool chain(pcam_sim *s, pcam_hal_event_type type, uint32_t c1, uint32_t c2, bool parity)
{
    sim_target *t = sim_conn_target(s);

    if (s->chain_active && s->chain_ev.type == PCAM_HAL_EV_RESELECTED) {
        /* After a chained IDENTIFY only message bytes are taken: the first,
         * and the tag byte after an accepted tag code (chained_msgin_byte). */
        if (t != NULL && s->phase == PCAM_PHASE_MSG_IN &&
            ((s->chain_ev.took & PCAM_HAL_TOOK_MSG) == 0 || s->chain_tag_code)) {
            sim_run_msgin(s, t);
            return true;
        }
        s->action = A_NONE;
        post_chain(s, s->phase);
        return true;
    }
    if (!s->chain_active) {
        if (!s->cfg.chain_endings || t == NULL ||
            (s->phase != PCAM_PHASE_STATUS && s->phase != PCAM_PHASE_MSG_IN))
            return false;
        memset(&s->chain_ev, 0, sizeof s->chain_ev);
        s->chain_ev.type = type;
        s->chain_ev.count = c1;
        s->chain_ev.count2 = c2;
        s->chain_ev.target = s->conn_id;
        s->chain_ev.parity_error = parity;
        s->chain_active = true;
        s->chain_may_accept = s->may_accept &&
                              (type == PCAM_HAL_EV_SELECT_DONE || type == PCAM_HAL_EV_XFER_DONE);
    }
    if ((s->chain_ev.took & PCAM_HAL_TOOK_MSG) == 0) {
        if (t != NULL && s->phase == PCAM_PHASE_STATUS &&
            (s->chain_ev.took & PCAM_HAL_TOOK_STATUS) == 0) {
            s->action = A_CHAIN;
            s->chain_ev.status = sim_run_status(s, t);
            s->chain_ev.took |= PCAM_HAL_TOOK_STATUS;
            return true;
        }
        if (t != NULL && s->phase == PCAM_PHASE_MSG_IN) {
            sim_run_msgin(s, t);
            return true;
        }
    }
    s->action = A_NONE;
    post_chain(s, s->phase);
    return true;
}

/* The target asserts REQ in s->phase: the action goes on or ends. */
static void on_req(pcam_sim *s)
{
    sim_trace(s, PCAM_SIM_TR_PHASE, s->conn_id, s->phase, 0, 0, 0);
    switch (s->action) {
    case A_SELECT:
        if (s->phase == PCAM_PHASE_MSG_OUT && s->sel_msg_sent < s->sel_msg_len) {
            sim_run_msgout(s, s->sel_msg + s->sel_msg_sent, (uint16_t)(s->sel_msg_len - s->sel_msg_sent));
            return;
        }
        if (s->phase == PCAM_PHASE_COMMAND && s->sel_cdb_sent < s->sel_cdb_len) {
            sim_run_cdb(s, s->sel_cdb + s->sel_cdb_sent, (uint16_t)(s->sel_cdb_len - s->sel_cdb_sent));
            return;
        }
        if (chain(s, PCAM_HAL_EV_SELECT_DONE, s->sel_msg_sent, s->sel_cdb_sent, s->act_parity))
            return;
        s->action = A_NONE;
        sim_post(s, PCAM_HAL_EV_SELECT_DONE, s->sel_msg_sent, s->sel_cdb_sent, s->conn_id, 0,
                 s->act_parity);
        break;
    case A_MSGOUT:
        if (s->phase == PCAM_PHASE_MSG_OUT && s->mo_sent < s->mo_len) {
            sim_run_msgout(s, s->mo_buf + s->mo_sent, (uint16_t)(s->mo_len - s->mo_sent));
            return;
        }
        if (chain(s, PCAM_HAL_EV_MSGOUT_DONE, s->mo_sent, 0, false))
            return;
        s->action = A_NONE;
        sim_post(s, PCAM_HAL_EV_MSGOUT_DONE, s->mo_sent, 0, s->conn_id, 0, false);
        break;
    case A_TRANSFER:
        if (chain(s, PCAM_HAL_EV_XFER_DONE, s->act_count, 0, s->act_parity))
            return;
        s->action = A_NONE;
        sim_post(s, PCAM_HAL_EV_XFER_DONE, s->act_count, 0, s->conn_id, 0, s->act_parity);
        break;
    case A_ACCEPT:
        if (chain(s, PCAM_HAL_EV_PHASE, 0, 0, false))
            return;
        s->action = A_NONE;
        sim_post(s, PCAM_HAL_EV_PHASE, 0, 0, s->conn_id, 0, false);
        break;
    case A_CHAIN:
        (void)chain(s, s->chain_ev.type, 0, 0, false);
        break;
    default:
        break;
    }
}

/* A phase (or a part of one) ended: ask the target what it does next. */
void sim_decide(pcam_sim *s)
{
    sim_target *t = sim_conn_target(s);
    sim_next n;

    s->step = ST_NONE;
    if (t == NULL)
        return;
    n = simt_next(s, t, s->atn);
    if (s->phase == PCAM_PHASE_MSG_OUT && !(n.kind == SN_REQ && n.phase == PCAM_PHASE_MSG_OUT) &&
        s->atn) {
        /* The chip lets go of ATN when the target leaves MESSAGE OUT. */
        s->atn = false;
        sim_trace(s, PCAM_SIM_TR_ATN, s->conn_id, s->phase, 0, 0, 0);
        sim_vcd_set(s, s->now, V_ATN, 0);
    }
    switch (n.kind) {
    case SN_REQ:
        if (n.phase == s->phase) {
            on_req(s);
        } else {
            sim_vcd_set(s, s->now, V_REQ, 0);
            sim_vcd_phase(s, s->now + s->cfg.phase_ns / 2, n.phase);
            sim_schedule(s, ST_REQ, s->now + s->cfg.phase_ns, n.phase);
        }
        break;
    case SN_FREE:
        sim_schedule(s, ST_FREE, s->now + s->cfg.phase_ns, PCAM_PHASE_BUS_FREE);
        break;
    case SN_HOLD:
    case SN_HANG:
        break;
    }
}

void sim_bus_target_ready(pcam_sim *s, sim_target *t)
{
    if (s->bus != BUS_CONNECTED || s->conn_id != t->id || s->step != ST_NONE)
        return;
    sim_schedule(s, ST_DECIDE, s->now, s->phase);
}

static void step_free(pcam_sim *s)
{
    sim_target *t = sim_conn_target(s);
    uint8_t id = s->conn_id;
    sim_action act = s->action;
    uint32_t c1 = s->act_count, c2 = s->act_count2;

    if (act == A_SELECT) {
        c1 = s->sel_msg_sent;
        c2 = s->sel_cdb_sent;
    } else if (act == A_MSGOUT) {
        c1 = s->mo_sent;
    }
    if (t != NULL)
        simt_bus_free(s, t);
    sim_bus_released(s, s->now);
    s->chip_connected = false;
    s->conn_id = SIM_NO_ID;
    s->atn = false;
    s->ack_held = false;
    s->action = A_NONE;
    sim_trace(s, PCAM_SIM_TR_BUS_FREE, id, PCAM_PHASE_BUS_FREE, 0, 0, 0);
    vcd_release(s, s->now);
    if (s->chain_active) /* it let go after the status byte: the chained event says so */
        post_chain(s, PCAM_PHASE_BUS_FREE);
    else if (act != A_NONE)
        sim_post(s, PCAM_HAL_EV_BUS_FREE, c1, c2, id, 0, s->act_parity);
}

static void step_sel_resp(pcam_sim *s)
{
    sim_target *t = s->tgt[s->sel_target];

    s->bus = BUS_CONNECTED;
    s->chip_connected = true;
    s->conn_id = s->sel_target;
    s->phase = PCAM_PHASE_BUS_FREE;
    s->bstats.selections++;
    sim_vcd_set(s, s->now, V_BSY, 1);
    sim_vcd_set(s, s->now, V_SEL, 0);
    sim_vcd_set(s, s->now, V_DB, 0);
    simt_selected(s, t);
    sim_decide(s);
}

static void step_sel_timeout(pcam_sim *s)
{
    sim_bus_released(s, s->now);
    s->bstats.sel_timeouts++;
    s->action = A_NONE;
    s->atn = false;
    sim_trace(s, PCAM_SIM_TR_SEL_TIMEOUT, s->sel_target, PCAM_PHASE_BUS_FREE, 0, 0, 0);
    vcd_release(s, s->now);
    sim_post(s, PCAM_HAL_EV_SEL_TIMEOUT, 0, 0, s->sel_target, 0, false);
}

/* Release ACK of the held message byte on the chip's own (ATN off), with
 * the chained event held back until the target's next request. */
static void chain_accept(pcam_sim *s)
{
    s->ack_held = false;
    s->action = A_CHAIN;
    sim_vcd_set(s, s->now, V_ACK, 0);
    sim_schedule(s, ST_ACK, s->now + s->cfg.async_ns / 2, s->phase);
}

static void step_resel_done(pcam_sim *s)
{
    sim_target *t = sim_conn_target(s);
    uint8_t byte = s->held_byte;
    bool bad;

    s->bus = BUS_CONNECTED;
    s->chip_connected = true;
    s->phase = PCAM_PHASE_MSG_IN;
    s->ack_held = true;
    s->atn = false;
    bad = sim_msgin_parity(s, t, &byte);
    s->held_byte = byte;
    s->held_parity = bad;
    sim_trace(s, PCAM_SIM_TR_MSG_IN, s->conn_id, PCAM_PHASE_MSG_IN, byte, 1, 0);
    sim_vcd_msgin_byte(s, s->now - s->cfg.async_ns / 2, byte, bad);
    if (s->cfg.chain_endings && t != NULL && !bad && (byte & PCAM_MSG_IDENTIFY) != 0) {
        /* Chained reselection (pcam_hal.h): accept a clean IDENTIFY and go
         * on to the tag message before reporting. */
        memset(&s->chain_ev, 0, sizeof s->chain_ev);
        s->chain_ev.type = PCAM_HAL_EV_RESELECTED;
        s->chain_ev.target = s->conn_id;
        s->chain_ev.byte = byte;
        s->chain_ev.took = PCAM_HAL_TOOK_IDENTIFY;
        s->chain_active = true;
        s->chain_may_accept = false;
        s->chain_tag_code = false;
        chain_accept(s);
        return;
    }
    sim_post(s, PCAM_HAL_EV_RESELECTED, 0, 0, s->conn_id, byte, bad);
}

/* A message byte the chip took on its own (chained endings or reselection). */
static void chained_msgin_byte(pcam_sim *s)
{
    if (s->chain_ev.type == PCAM_HAL_EV_RESELECTED) {
        if (s->chain_tag_code) {
            /* The tag byte of the accepted tag code: held for the core. */
            s->chain_ev.took = (uint8_t)((s->chain_ev.took & ~PCAM_HAL_TOOK_ACCEPTED) | PCAM_HAL_TOOK_TAG);
            if (s->held_parity)
                s->chain_ev.took |= PCAM_HAL_TOOK_MSG_PARITY;
            s->chain_ev.tag = s->held_byte;
            post_chain(s, PCAM_PHASE_MSG_IN);
            return;
        }
        s->chain_ev.took |= PCAM_HAL_TOOK_MSG;
        s->chain_ev.msg = s->held_byte;
        if (s->held_parity) {
            s->chain_ev.took |= PCAM_HAL_TOOK_MSG_PARITY;
        } else if (s->held_byte >= PCAM_MSG_SIMPLE_TAG && s->held_byte <= PCAM_MSG_ORDERED_TAG) {
            /* ACCEPTED stands until the tag byte comes (then TAG replaces
             * it): a target that leaves MESSAGE IN instead is reported so. */
            s->chain_ev.took |= PCAM_HAL_TOOK_ACCEPTED;
            s->chain_tag_code = true;
            chain_accept(s);
            return;
        }
        post_chain(s, PCAM_PHASE_MSG_IN);
        return;
    }
    s->chain_ev.took |= PCAM_HAL_TOOK_MSG;
    if (s->held_parity)
        s->chain_ev.took |= PCAM_HAL_TOOK_MSG_PARITY;
    s->chain_ev.msg = s->held_byte;
    if (s->chain_may_accept && !s->held_parity &&
        (s->held_byte == PCAM_MSG_COMMAND_COMPLETE || s->held_byte == PCAM_MSG_DISCONNECT)) {
        /* Accepted here, ATN off, as the core would: the event waits for
         * where the target goes, BUS FREE usually. */
        s->chain_ev.took |= PCAM_HAL_TOOK_ACCEPTED;
        chain_accept(s);
        return;
    }
    post_chain(s, PCAM_PHASE_MSG_IN);
}

static void run_step(pcam_sim *s)
{
    sim_step st = s->step;

    s->step = ST_NONE;
    switch (st) {
    case ST_SEL_RESP:
        step_sel_resp(s);
        break;
    case ST_SEL_TIMEOUT:
        step_sel_timeout(s);
        break;
    case ST_RESEL_DONE:
        step_resel_done(s);
        break;
    case ST_DECIDE:
        sim_decide(s);
        break;
    case ST_REQ:
        s->phase = s->step_phase;
        sim_vcd_set(s, s->now, V_REQ, 0);
        on_req(s);
        break;
    case ST_MSGIN_BYTE:
        s->ack_held = true;
        s->action = A_NONE;
        sim_trace(s, PCAM_SIM_TR_MSG_IN, s->conn_id, s->phase, s->held_byte, 1, 0);
        if (s->chain_active) {
            chained_msgin_byte(s);
            break;
        }
        sim_post(s, PCAM_HAL_EV_MSG_BYTE, 1, 0, s->conn_id, s->held_byte, s->held_parity);
        break;
    case ST_ACK:
        if (sim_conn_target(s) != NULL)
            simt_msgin_ack(s, sim_conn_target(s), s->atn);
        sim_decide(s);
        break;
    case ST_FREE:
        step_free(s);
        break;
    case ST_RESET_END:
        sim_vcd_set(s, s->now, V_RST, 0);
        sim_bus_released(s, s->now);
        break;
    case ST_NONE:
        break;
    }
}

/* Arbitration among everyone ready now; the highest priority wins. */
static void arbitrate(pcam_sim *s)
{
    uint64_t a = s->now, r;
    uint32_t mask = 0;
    int best = -1;
    unsigned i;

    if (s->sel_pending && s->sel_ready <= a) {
        mask |= 1u << s->cfg.initiator_id;
        best = s->cfg.initiator_id;
    }
    for (i = 0; i < s->cfg.width; i++) {
        if (s->tgt[i] == NULL || !simt_resel_ready(s->tgt[i], &r) || r > a)
            continue;
        mask |= 1u << i;
        if (best < 0 || prio((uint8_t)i) > prio((uint8_t)best))
            best = (int)i;
    }
    if (best < 0)
        return;
    s->bstats.arbitrations++;
    bus_taken(s, a);
    sim_trace(s, PCAM_SIM_TR_ARBITRATION, (uint8_t)best, PCAM_PHASE_BUS_FREE, 0, 0, mask);
    sim_vcd_set(s, a, V_BSY, 1);
    sim_vcd_set(s, a, V_DB, mask);
    if (best == s->cfg.initiator_id) {
        uint8_t id = s->sel_target;
        uint32_t bits = (1u << s->cfg.initiator_id) | (1u << id);

        s->sel_pending = false;
        s->bus = BUS_ARB_SEL;
        s->atn = s->sel_atn;
        sim_trace(s, PCAM_SIM_TR_SELECTION, id, PCAM_PHASE_BUS_FREE, 0, 0, s->sel_atn ? 1u : 0u);
        sim_vcd_set(s, a + s->cfg.arb_sel_ns / 4, V_SEL, 1);
        sim_vcd_set(s, a + s->cfg.arb_sel_ns / 2, V_DB, bits);
        sim_vcd_set(s, a + s->cfg.arb_sel_ns / 2, V_ATN, s->sel_atn ? 1u : 0u);
        sim_vcd_set(s, a + s->cfg.arb_sel_ns / 2, V_BSY, 0);
        if (s->tgt[id] != NULL && !s->tgt[id]->cfg.off_bus)
            sim_schedule(s, ST_SEL_RESP, a + s->cfg.arb_sel_ns, PCAM_PHASE_BUS_FREE);
        else
            sim_schedule(s, ST_SEL_TIMEOUT, a + s->cfg.sel_timeout_ns, PCAM_PHASE_BUS_FREE);
        return;
    }
    /* A target won: a select not yet on the bus turns into this reselection. */
    if (s->sel_pending || s->action == A_SELECT) {
        s->sel_pending = false;
        s->action = A_NONE;
    }
    s->bus = BUS_RESEL;
    s->conn_id = (uint8_t)best;
    s->held_byte = simt_reselect(s, s->tgt[best]);
    s->bstats.reselections++;
    sim_trace(s, PCAM_SIM_TR_RESELECTION, (uint8_t)best, PCAM_PHASE_MSG_IN, s->held_byte, 0, 0);
    sim_vcd_set(s, a + s->cfg.resel_ns / 4, V_SEL, 1);
    sim_vcd_set(s, a + s->cfg.resel_ns / 2, V_DB, (1u << s->cfg.initiator_id) | (1u << best));
    sim_vcd_set(s, a + s->cfg.resel_ns / 2, V_IO, 1);
    sim_vcd_set(s, a + s->cfg.resel_ns / 2, V_BSY, 0);
    sim_vcd_set(s, a + (3 * s->cfg.resel_ns) / 4, V_BSY, 1);
    sim_vcd_set(s, a + (3 * s->cfg.resel_ns) / 4, V_SEL, 0);
    sim_vcd_phase(s, a + (3 * s->cfg.resel_ns) / 4, PCAM_PHASE_MSG_IN);
    sim_schedule(s, ST_RESEL_DONE, a + s->cfg.resel_ns, PCAM_PHASE_MSG_IN);
}

void pcam_sim_advance(pcam_sim *s, uint64_t t)
{
    if (s == NULL)
        return;
    for (;;) {
        uint64_t tm = SIM_NEVER, tb, ta, m, x;
        sim_target *mt = NULL;
        unsigned i;

        for (i = 0; i < PCAM_SIM_MAX_IDS; i++)
            if (s->tgt[i] != NULL && (x = simk_next_time(s->tgt[i])) < tm) {
                tm = x;
                mt = s->tgt[i];
            }
        tb = s->step != ST_NONE ? s->step_t : SIM_NEVER;
        ta = arb_time(s);
        m = tm < tb ? tm : tb;
        if (ta < m)
            m = ta;
        if (m == SIM_NEVER || m > t)
            break;
        if (m > s->now)
            s->now = m;
        if (tm == m)
            simk_advance(s, mt, s->now);
        else if (tb == m)
            run_step(s);
        else
            arbitrate(s);
    }
    if (t > s->now && t != SIM_NEVER)
        s->now = t;
    sim_vcd_flush(s, s->now);
}

/* ---- bus reset (either side) ---- */

void sim_do_reset(pcam_sim *s, bool by_initiator)
{
    unsigned i;

    sim_vcd_drop_after(s, s->now);
    if (s->bus == BUS_FREE)
        bus_taken(s, s->now);
    s->bstats.bus_resets++;
    sim_trace(s, PCAM_SIM_TR_BUS_RESET, SIM_NO_ID, PCAM_PHASE_BUS_FREE, 0, 0, by_initiator ? 1u : 0u);
    for (i = 0; i < PCAM_SIM_MAX_IDS; i++)
        if (s->tgt[i] != NULL)
            simt_reset(s, s->tgt[i]);
    s->action = A_NONE;
    s->chain_active = false;
    s->sel_pending = false;
    s->chip_connected = false;
    s->conn_id = SIM_NO_ID;
    s->atn = false;
    s->ack_held = false;
    s->bus = BUS_RESETTING;
    s->phase = PCAM_PHASE_BUS_FREE;
    sim_clear_events(s);
    vcd_release(s, s->now);
    sim_vcd_set(s, s->now, V_RST, 1);
    sim_schedule(s, ST_RESET_END, s->now + s->cfg.reset_ns, PCAM_PHASE_BUS_FREE);
    sim_post(s, PCAM_HAL_EV_BUS_RESET, 0, 0, SIM_NO_ID, 0, false);
}

void pcam_sim_bus_reset(pcam_sim *s)
{
    if (s == NULL)
        return;
    sim_do_reset(s, false);
    sim_vcd_flush(s, s->now);
}
