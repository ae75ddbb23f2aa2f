/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ESP model's selection side: clock-derived values (clock conversion
 * check, selection timeout, the synchronous registers turned into the bus
 * mode), the four selection commands with their sequence steps, and
 * reselection as the chip presents it (see espm_cmd.c for the interrupt
 * values and espm_internal.h for the fact sources).
 */
#include <string.h>

#include "espm_internal.h"

/* ---- clock-derived values ---- */

static unsigned ccf_value(const espm *m)
{
    unsigned c = m->ccf & 7u;

    return c == 0 ? 8u : c;
}

/* Clock conversion must match the input clock (2: up to 10 MHz, then one
 * step per 5 MHz, 0 = 8 for 35.01-40 MHz). */
void espm_check_clock(espm *m)
{
    unsigned need = (unsigned)((m->cfg.clock_khz + 4999u) / 5000u);

    if (need < 2)
        need = 2;
    if (ccf_value(m) != need)
        espm_error(m, "clock conversion %u does not match a %lu kHz clock (needs %u)", ccf_value(m),
                   (unsigned long)m->cfg.clock_khz, need);
    if ((m->cfg1 & CFG1_ID) != m->cfg.initiator_id)
        espm_error(m, "CFG1 own ID %u, but the chip is ID %u on this bus", m->cfg1 & CFG1_ID,
                   m->cfg.initiator_id);
}

/* Selection timeout = value x 8192 x CCF input clocks (0 taken as 256). */
static uint64_t sel_timeout_ns(const espm *m)
{
    uint64_t v = m->timeout != 0 ? m->timeout : 256u;

    return v * 8192u * ccf_value(m) * 1000000u / m->cfg.clock_khz;
}

/* Program the bus with the mode STP/SOFF give for the connected target, so
 * hal/sim's strict mode and timing see what the registers say. The period
 * register counts input clocks per byte (5 bits; 0-3 stand for 32-35). */
void espm_apply_sync(espm *m)
{
    pcam_hal_xfer_params p;
    unsigned off = m->soff & 0x0Fu;

    memset(&p, 0, sizeof p);
    if (off != 0) {
        unsigned clocks = m->stp & 0x1Fu, min = espm_is_fas(m) ? 4u : 5u;
        uint64_t ps;

        if (clocks < 4)
            clocks += 32;
        if (clocks < min)
            espm_error(m, "sync period %u clocks is below this chip's minimum %u", clocks, min);
        ps = (uint64_t)clocks * 1000000000u / m->cfg.clock_khz;
        if (ps < 200000u) {
            if (!espm_is_fas(m))
                espm_error(m, "sync period %llu ps needs fast SCSI, which this chip lacks",
                           (unsigned long long)ps);
            else if (!(m->cfg3 & CFG3_FSCSI))
                espm_error(m, "sync period %llu ps without CFG3 fast SCSI", (unsigned long long)ps);
        }
        p.period = (uint8_t)((ps + 3999u) / 4000u);
        p.offset = (uint8_t)off;
    }
    if (pcam_sim_i_set_xfer(m->sim, m->target, &p) < 0)
        espm_error(m, "bus refused the sync mode for target %u", m->target);
}

/* ---- selection ---- */

static uint8_t sel_step(const espm *m, uint32_t msent, uint32_t csent, pcam_phase ph)
{
    if (m->sel_kind == C_SEL) {
        if (csent >= m->sel_cdb_len)
            return 4;
        return (csent != 0 || ph == PCAM_PHASE_COMMAND) ? 3 : 2;
    }
    if (msent == 0)
        return 0;
    if (m->sel_kind == C_SELATNS)
        return 1;
    if (msent < m->sel_msg_len || (csent == 0 && m->sel_cdb_len != 0 && ph != PCAM_PHASE_COMMAND))
        return 2;
    return csent >= m->sel_cdb_len ? 4 : 3;
}

void espm_present_resel(espm *m, const pcam_hal_event *ev)
{
    m->connected = true;
    m->target = ev->target;
    m->phase = PCAM_PHASE_MSG_IN;
    m->ack_held = true;
    m->resel_enabled = false;
    m->held_resel = false;
    if (ev->target >= 8)
        espm_error(m, "reselection by ID %u on a narrow chip", ev->target);
    /* The FIFO holds just the reselection's bytes (Linux's esp_reconnect
     * reads the ID bits first, also after a selection lost to it). */
    m->fifo_n = 0;
    espm_fifo_push(m, (uint8_t)((1u << m->cfg.initiator_id) | (1u << (ev->target & 7u))));
    espm_fifo_push(m, ev->byte);
    espm_finish(m, IN_RSEL | IN_FC, -1, (ev->parity_error && (m->cfg1 & CFG1_PARITY)) ? ST_PE : 0);
}

void espm_do_select(espm *m, uint8_t cmd)
{
    uint8_t c = cmd & 0x7Fu, tgt = m->busid & 7u;
    bool dma = (cmd & C_DMA) != 0;
    uint16_t n, want = c == C_SEL ? 0 : (c == C_SELATN3 ? 3 : 1);
    pcam_hal_select sel;
    memset(&sel, 0, sizeof sel); /* may_accept and any field added later: off */
    int rc;

    if (m->connected) {
        espm_illegal(m, "selection while connected", cmd);
        return;
    }
    if (c == C_SELATN3 && m->cfg.chip == ESPM_NCR53C90) {
        espm_illegal(m, "the 53C90 has no SELECT WITH ATN3", cmd);
        return;
    }
    if (tgt == m->cfg.initiator_id) {
        espm_illegal(m, "bus ID register names the chip itself", cmd);
        return;
    }
    espm_check_clock(m);
    if (m->held_resel) {
        /* A target already won the bus: the selection never starts. */
        m->op = OP_SELECT;
        m->sel_kind = c;
        espm_present_resel(m, &m->held_ev);
        return;
    }
    if (dma) {
        uint32_t len = espm_tc_len(m);
        uint8_t *src;

        if (c == C_SELATNS)
            len = 1;
        if (len > sizeof m->sel_buf) {
            espm_error(m, "DMA selection of %lu bytes: longer than any message + CDB", (unsigned long)len);
            len = sizeof m->sel_buf;
        }
        src = espm_dma_buf(m, len, false);
        if (src == NULL) {
            espm_finish(m, IN_DC, 0, ST_GE);
            return;
        }
        memcpy(m->sel_buf, src, len);
        n = (uint16_t)len;
        m->op_addr = m->dreg[D_WAC];
    } else {
        n = (uint16_t)m->fifo_n;
        if (c == C_SELATNS && n > 1)
            n = 1;
        memcpy(m->sel_buf, m->fifo, n);
        memmove(m->fifo, m->fifo + n, m->fifo_n - n);
        m->fifo_n -= n;
    }
    if (n < want) {
        espm_illegal(m, "fewer bytes than the selection's message bytes", cmd);
        return;
    }
    m->sel_kind = c;
    m->sel_msg_len = want;
    m->sel_cdb_len = (uint16_t)(n - want);
    m->op_len = n;
    m->op_dma = dma;
    m->resel_enabled = false;
    pcam_sim_set_sel_timeout(m->sim, sel_timeout_ns(m));
    memset(&sel, 0, sizeof sel);
    sel.target = tgt;
    sel.atn = c != C_SEL;
    sel.msg = m->sel_buf;
    sel.msg_len = (uint8_t)want;
    sel.cdb = m->sel_buf + want;
    sel.cdb_len = (uint8_t)(n - want);
    m->target = tgt;
    m->op = OP_SELECT;
    rc = c == C_SELATNS ? pcam_sim_i_select_stop(m->sim, &sel) : pcam_sim_i_select(m->sim, &sel);
    if (rc < 0)
        espm_error(m, "bus refused the selection of target %u (%d)", tgt, rc);
}

/* Bytes of the selection not sent go back to the FIFO (or the counter). */
static void sel_leftover(espm *m, uint32_t msent, uint32_t csent)
{
    uint32_t sent = msent < m->sel_msg_len ? msent : m->sel_msg_len + csent;

    if (m->op_dma) {
        espm_dma_out_done(m, m->sel_buf, m->op_len, sent);
        return;
    }
    if (sent < m->op_len)
        espm_fifo_unshift(m, m->sel_buf + sent, m->op_len - sent);
}

void espm_ev_select(espm *m, const pcam_hal_event *ev)
{
    switch (ev->type) {
    case PCAM_HAL_EV_SELECT_DONE:
        m->connected = true;
        m->target = ev->target;
        m->phase = ev->phase;
        m->ack_held = false;
        sel_leftover(m, ev->count, ev->count2);
        espm_finish(m, IN_FC | IN_BS, sel_step(m, ev->count, ev->count2, ev->phase), 0);
        break;
    case PCAM_HAL_EV_SEL_TIMEOUT:
        espm_disconnected(m);
        sel_leftover(m, 0, 0);
        espm_finish(m, IN_DC, 0, 0);
        break;
    case PCAM_HAL_EV_BUS_FREE:
        espm_disconnected(m);
        sel_leftover(m, ev->count, ev->count2);
        espm_finish(m, IN_DC, sel_step(m, ev->count, ev->count2, PCAM_PHASE_BUS_FREE), 0);
        break;
    case PCAM_HAL_EV_RESELECTED:
        if (m->op_dma)
            m->tc = m->op_len;
        espm_present_resel(m, ev);
        break;
    default:
        break;
    }
}

