/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ESP model's command engine (selection itself is in espm_sel.c): each
 * chip command becomes one or more function-level bus actions
 * (pcam_sim_i_*), and each bus event becomes the
 * interrupt, sequence step, FIFO contents and counter values the chip would
 * show (NCR53C9x/FAS/AM53C974 datasheet facts; see espm_internal.h).
 *
 * Interrupts the commands end with (what Linux's esp_scsi and NetBSD's
 * ncr53c9x expect):
 *   selection done          FC|BS (0x18), SEQSTEP = how far it got
 *   selection timeout       DC (0x20), SEQSTEP 0
 *   reselected              RSEL|FC (0x0C), FIFO = ID bits, IDENTIFY (only); ACK held
 *   TRANSFER INFO (data, command, status, message out)   BS (0x10)
 *   TRANSFER INFO (message in)   FC (0x08), ACK held on the (last) byte
 *   INITIATOR COMMAND COMPLETE   FC with status + message in the FIFO,
 *                                or BS with the status only if no MESSAGE IN
 *   MESSAGE ACCEPTED        BS in the next phase, or DC if the bus went free
 *   SCSI bus reset          SR (0x80) unless CFG1 disables it
 *   wrong command / state   IC (0x40)
 * Non-DMA TRANSFER INFORMATION in DATA IN, STATUS or MESSAGE IN moves one
 * byte (PIO data-in works on the real chip, unlike QEMU); in DATA OUT,
 * COMMAND or MESSAGE OUT it sends the FIFO. A DMA transfer towards SCSI
 * that ends early leaves the prefetched bytes in the FIFO, as the chip does.
 * Sequence steps after SELECT WITH ATN: 0 no MESSAGE OUT, 1 stopped after
 * the message (SELECT WITH ATN AND STOP), 2 message sent but no COMMAND
 * phase, 3 the CDB was cut short, 4 all sent.
 */
#include <stdlib.h>
#include <string.h>

#include "espm_internal.h"

void espm_illegal(espm *m, const char *why, uint8_t cmd)
{
    espm_error(m, "command 0x%02x refused: %s", cmd, why);
    espm_raise(m, IN_IC, -1, 0);
}

/* End the running operation with an interrupt and start a stacked command. */
void espm_finish(espm *m, uint8_t intr, int seq, uint8_t stat)
{
    m->op = OP_NONE;
    espm_raise(m, intr, seq, stat);
    if (m->have_stacked) {
        m->have_stacked = false;
        espm_start_cmd(m, m->stacked);
    }
}

void espm_disconnected(espm *m)
{
    m->connected = false;
    m->ack_held = false;
    m->phase = PCAM_PHASE_BUS_FREE;
}

uint32_t espm_tc_len(const espm *m)
{
    return m->tc != 0 ? m->tc : espm_tc_max(m);
}

/* Bytes a transfer towards the target did not send are still at the front
 * of the FIFO, ahead of any the driver wrote meanwhile; more than 16 in all
 * would have overflowed the real FIFO. */
void espm_fifo_unshift(espm *m, const uint8_t *b, uint32_t k)
{
    if (k > ESPM_FIFO)
        k = ESPM_FIFO;
    if (m->fifo_n + k > ESPM_FIFO) {
        espm_error(m, "FIFO overflow: %u bytes written while a transfer still held %lu", m->fifo_n,
                   (unsigned long)k);
        m->stat_err |= ST_GE;
        m->fifo_n = ESPM_FIFO - k;
    }
    memmove(m->fifo + k, m->fifo, m->fifo_n);
    memcpy(m->fifo, b, k);
    m->fifo_n += k;
}

/* ---- DMA plumbing ---- */

static bool dma_allowed(espm *m, uint8_t cmd)
{
    if (m->cfg.chip != ESPM_AM53C974) {
        espm_illegal(m, "DMA command on a chip without a modelled DMA engine", cmd);
        return false;
    }
    return true;
}

/* Host pointer for @p len bytes at the engine's working address, checking
 * direction bit and mapping; NULL (error recorded) if unusable. */
uint8_t *espm_dma_buf(espm *m, uint32_t len, bool to_mem)
{
    void *host;

    if (((m->dreg[D_CMD] & DC_DIR) != 0) != to_mem) {
        espm_error(m, "DMA direction bit %s but the transfer goes %s", (m->dreg[D_CMD] & DC_DIR) ? "to memory" : "from memory",
                   to_mem ? "to memory" : "from memory");
        m->dreg[D_STAT] |= DS_ERROR;
        return NULL;
    }
    if (m->dreg[D_WBC] < len)
        espm_error(m, "DMA engine count %lu is less than the ESP counter %lu: the chip would hang",
                   (unsigned long)m->dreg[D_WBC], (unsigned long)len);
    if (!espm_dma_check(m, m->dreg[D_WAC], len, to_mem, &host))
        return NULL;
    return host;
}

/* After a DMA operation towards SCSI that took @p sent of @p len bytes:
 * the chip has prefetched up to a FIFO's worth more from memory. */
void espm_dma_out_done(espm *m, const uint8_t *src, uint32_t len, uint32_t sent)
{
    uint32_t left = len - sent, pre = left < ESPM_FIFO ? left : ESPM_FIFO;

    if (pre > ESPM_FIFO - m->fifo_n)
        pre = ESPM_FIFO - m->fifo_n;
    memcpy(m->fifo + m->fifo_n, src + sent, pre);
    m->fifo_n += pre;
    m->tc = left - pre;
    m->tc_zero = m->tc == 0;
    espm_dma_advance(m, sent + pre);
}

void espm_dma_in_done(espm *m, uint32_t len, uint32_t got)
{
    m->tc = len - got;
    m->tc_zero = m->tc == 0;
    espm_dma_advance(m, got);
}

/* ---- TRANSFER INFORMATION and friends ---- */

static void do_msgout(espm *m, uint8_t cmd, bool dma)
{
    uint8_t *src;
    uint32_t n;

    if (dma) {
        n = espm_tc_len(m);
        if (n > 255) {
            espm_error(m, "DMA message-out of %lu bytes", (unsigned long)n);
            n = 255;
        }
        src = espm_dma_buf(m, n, false);
        if (src == NULL) {
            espm_finish(m, IN_BS, -1, ST_GE);
            return;
        }
    } else {
        n = m->fifo_n;
        if (n == 0) {
            espm_illegal(m, "message-out with an empty FIFO", cmd);
            return;
        }
        memcpy(m->xbuf, m->fifo, n);
        m->fifo_n = 0;
        src = m->xbuf;
    }
    m->op = OP_MSGOUT;
    m->op_len = n;
    m->op_dma = dma;
    if (dma)
        memcpy(m->sel_buf, src, n);
    if (pcam_sim_i_msg_out(m->sim, dma ? m->sel_buf : m->xbuf, n) < 0)
        espm_error(m, "bus refused message-out");
}

static void ev_msgout(espm *m, const pcam_hal_event *ev)
{
    uint32_t sent = ev->count;

    if (m->op_dma) {
        espm_dma_out_done(m, m->sel_buf, m->op_len, sent);
    } else if (sent < m->op_len) {
        espm_fifo_unshift(m, m->xbuf + sent, m->op_len - sent);
    }
    if (ev->type == PCAM_HAL_EV_BUS_FREE) {
        espm_disconnected(m);
        espm_finish(m, IN_DC, -1, 0);
        return;
    }
    m->phase = ev->phase;
    espm_finish(m, IN_BS, -1, 0);
}

static void do_msgin(espm *m, bool dma)
{
    m->op = OP_MSGIN;
    m->op_dma = dma;
    m->op_done = 0;
    m->op_len = 1;
    if (dma) {
        m->op_len = espm_tc_len(m);
        m->op_addr = m->dreg[D_WAC];
        if (espm_dma_buf(m, m->op_len, true) == NULL) {
            espm_finish(m, IN_FC, -1, ST_GE);
            return;
        }
    }
    if (pcam_sim_i_msg_in(m->sim) < 0)
        espm_error(m, "bus refused message-in");
}

static void ev_msgin(espm *m, const pcam_hal_event *ev)
{
    uint8_t pe = (ev->parity_error && (m->cfg1 & CFG1_PARITY)) ? ST_PE : 0;

    if (ev->type == PCAM_HAL_EV_BUS_FREE) {
        espm_disconnected(m);
        if (m->op_dma)
            espm_dma_in_done(m, m->op_len, m->op_done);
        espm_finish(m, IN_DC, -1, 0);
        return;
    }
    if (ev->type == PCAM_HAL_EV_PHASE) {
        /* Between two bytes of a DMA message-in. */
        m->ack_held = false;
        m->phase = ev->phase;
        if (ev->phase == PCAM_PHASE_MSG_IN) {
            m->op = OP_MSGIN;
            if (pcam_sim_i_msg_in(m->sim) < 0)
                espm_error(m, "bus refused message-in");
            return;
        }
        espm_dma_in_done(m, m->op_len, m->op_done);
        espm_finish(m, IN_BS, -1, 0);
        return;
    }
    if (ev->type != PCAM_HAL_EV_MSG_BYTE)
        return;
    m->ack_held = true;
    if (m->op_dma) {
        void *host;

        if (espm_dma_check(m, m->op_addr + m->op_done, 1, true, &host))
            *(uint8_t *)host = ev->byte;
    } else {
        espm_fifo_push(m, ev->byte);
    }
    m->op_done++;
    if (m->op_done < m->op_len && !pe) {
        m->op = OP_MSGIN_ACK;
        if (pcam_sim_i_msg_accept(m->sim, false) < 0)
            espm_error(m, "bus refused the ACK of a message byte");
        return;
    }
    if (m->op_dma)
        espm_dma_in_done(m, m->op_len, m->op_done);
    espm_finish(m, IN_FC, -1, pe);
}

static void do_xfer(espm *m, uint8_t cmd, bool dma, bool pad)
{
    pcam_phase ph = m->phase;
    bool in = (ph & 1u) != 0, data = ph == PCAM_PHASE_DATA_IN || ph == PCAM_PHASE_DATA_OUT;
    uint32_t len;
    uint8_t *buf;
    pcam_sg sg;
    pcam_hal_xfer x;
    memset(&x, 0, sizeof x); /* may_accept and any field added later: off */

    if (pad && !data) {
        espm_illegal(m, "TRANSFER PAD outside a DATA phase", cmd);
        return;
    }
    if (dma || pad) {
        len = espm_tc_len(m);
    } else if (in) {
        len = 1;
    } else {
        len = m->fifo_n;
        if (len == 0) {
            espm_illegal(m, "non-DMA transfer to the target with an empty FIFO", cmd);
            return;
        }
    }
    if (data)
        espm_apply_sync(m);
    if (pad) {
        m->padbuf = realloc(m->padbuf, len);
        if (m->padbuf == NULL) {
            espm_finish(m, IN_BS, -1, ST_GE);
            return;
        }
        memset(m->padbuf, 0, len);
        buf = m->padbuf;
    } else if (dma) {
        buf = espm_dma_buf(m, len, in);
        if (buf == NULL) {
            espm_finish(m, IN_BS, -1, ST_GE);
            return;
        }
    } else if (in) {
        buf = m->xbuf;
    } else {
        memcpy(m->xbuf, m->fifo, len);
        m->fifo_n = 0;
        buf = m->xbuf;
    }
    m->op = OP_XFER;
    m->op_phase = ph;
    m->op_len = len;
    m->op_dma = dma && !pad;
    m->op_pad = pad;
    m->op_buf = buf;
    sg.addr = buf;
    sg.len = len;
    memset(&x, 0, sizeof x);
    x.phase = ph;
    x.sg = &sg;
    x.sg_count = 1;
    x.len = len;
    if (pcam_sim_i_transfer(m->sim, &x) < 0)
        espm_error(m, "bus refused a %s transfer of %lu bytes", pcam_phase_name(ph), (unsigned long)len);
}

static void ev_xfer(espm *m, const pcam_hal_event *ev)
{
    bool in = (m->op_phase & 1u) != 0;
    uint32_t got = ev->count > m->op_len ? m->op_len : ev->count;
    uint8_t pe = (ev->parity_error && (m->cfg1 & CFG1_PARITY)) ? ST_PE : 0;
    uint32_t i;

    if (m->op_pad) {
        m->tc = m->op_len - got;
        m->tc_zero = m->tc == 0;
    } else if (m->op_dma) {
        if (in)
            espm_dma_in_done(m, m->op_len, got);
        else
            espm_dma_out_done(m, m->op_buf, m->op_len, got);
    } else if (in) {
        for (i = 0; i < got; i++)
            espm_fifo_push(m, m->xbuf[i]);
    } else if (got < m->op_len) {
        espm_fifo_unshift(m, m->xbuf + got, m->op_len - got);
    }
    if (ev->type == PCAM_HAL_EV_BUS_FREE) {
        espm_disconnected(m);
        espm_finish(m, IN_DC, -1, pe);
        return;
    }
    m->phase = ev->phase;
    espm_finish(m, IN_BS, -1, pe);
}

static void do_iccs(espm *m, uint8_t cmd, bool dma)
{
    pcam_sg sg;
    pcam_hal_xfer x;
    memset(&x, 0, sizeof x); /* may_accept and any field added later: off */

    if (m->phase != PCAM_PHASE_STATUS) {
        espm_illegal(m, "INITIATOR COMMAND COMPLETE outside STATUS phase", cmd);
        return;
    }
    m->op = OP_ICCS_ST;
    m->op_dma = dma;
    m->op_done = 0;
    if (dma) {
        m->op_len = espm_tc_len(m);
        m->op_addr = m->dreg[D_WAC];
        if (espm_dma_buf(m, m->op_len < 2 ? m->op_len : 2, true) == NULL) {
            espm_finish(m, IN_FC, -1, ST_GE);
            return;
        }
    }
    sg.addr = m->xbuf;
    sg.len = 1;
    memset(&x, 0, sizeof x);
    x.phase = PCAM_PHASE_STATUS;
    x.sg = &sg;
    x.sg_count = 1;
    x.len = 1;
    if (pcam_sim_i_transfer(m->sim, &x) < 0)
        espm_error(m, "bus refused the status byte");
}

/* One byte of the complete sequence arrived: FIFO or memory. */
static void iccs_byte(espm *m, uint8_t b)
{
    if (m->op_dma) {
        void *host;

        if (m->op_done < m->op_len && espm_dma_check(m, m->op_addr + m->op_done, 1, true, &host))
            *(uint8_t *)host = b;
        m->op_done++;
        espm_dma_in_done(m, 1, 1);
        m->tc = m->op_len > m->op_done ? m->op_len - m->op_done : 0;
        m->tc_zero = m->tc == 0;
    } else {
        espm_fifo_push(m, b);
    }
}

static void ev_iccs(espm *m, const pcam_hal_event *ev)
{
    uint8_t pe = (ev->parity_error && (m->cfg1 & CFG1_PARITY)) ? ST_PE : 0;

    if (ev->type == PCAM_HAL_EV_BUS_FREE) {
        if (m->op == OP_ICCS_ST && ev->count != 0)
            iccs_byte(m, m->xbuf[0]);
        espm_disconnected(m);
        espm_finish(m, IN_DC, -1, pe);
        return;
    }
    if (m->op == OP_ICCS_ST && ev->type == PCAM_HAL_EV_XFER_DONE) {
        if (ev->count != 0)
            iccs_byte(m, m->xbuf[0]);
        m->phase = ev->phase;
        if (ev->phase != PCAM_PHASE_MSG_IN) {
            espm_finish(m, IN_BS, -1, pe);
            return;
        }
        m->op = OP_ICCS_MSG;
        if (pcam_sim_i_msg_in(m->sim) < 0)
            espm_error(m, "bus refused message-in");
        return;
    }
    if (m->op == OP_ICCS_MSG && ev->type == PCAM_HAL_EV_MSG_BYTE) {
        m->ack_held = true;
        iccs_byte(m, ev->byte);
        espm_finish(m, IN_FC, -1, pe);
    }
}

static void do_mok(espm *m, uint8_t cmd)
{
    if (!m->ack_held) {
        espm_illegal(m, "MESSAGE ACCEPTED with no message byte held", cmd);
        return;
    }
    m->op = OP_MOK;
    if (pcam_sim_i_msg_accept(m->sim, false) < 0)
        espm_error(m, "bus refused MESSAGE ACCEPTED");
}

static void ev_mok(espm *m, const pcam_hal_event *ev)
{
    m->ack_held = false;
    if (ev->type == PCAM_HAL_EV_BUS_FREE) {
        espm_disconnected(m);
        espm_finish(m, IN_DC, -1, 0);
        return;
    }
    m->phase = ev->phase;
    espm_finish(m, IN_BS, -1, 0);
}

static void do_ti(espm *m, uint8_t cmd, bool dma)
{
    if (m->ack_held) {
        espm_illegal(m, "TRANSFER INFORMATION with ACK held: MESSAGE ACCEPTED first", cmd);
        return;
    }
    switch (m->phase) {
    case PCAM_PHASE_MSG_OUT:
        do_msgout(m, cmd, dma);
        break;
    case PCAM_PHASE_MSG_IN:
        do_msgin(m, dma);
        break;
    case PCAM_PHASE_DATA_OUT:
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_COMMAND:
    case PCAM_PHASE_STATUS:
        do_xfer(m, cmd, dma, false);
        break;
    default:
        espm_illegal(m, "TRANSFER INFORMATION in a reserved phase", cmd);
        break;
    }
}

/* ---- dispatch ---- */

void espm_start_cmd(espm *m, uint8_t cmd)
{
    uint8_t c = cmd & 0x7Fu;
    bool dma = (cmd & C_DMA) != 0;
    bool initiator = c == C_TI || c == C_ICCS || c == C_MOK || c == C_PAD;
    bool select = c == C_SEL || c == C_SELATN || c == C_SELATNS || c == C_SELATN3;

    /* TRANSFER PAD moves no memory: its DMA bit only means "use the counter". */
    if (dma && c != C_PAD && (initiator || select)) {
        if (!dma_allowed(m, cmd))
            return;
        if (!espm_dma_ready(m)) {
            /* The ESP core waits for the DMA engine (QEMU defers the same way). */
            m->op_waiting_dma = true;
            m->op_cmd = cmd;
            return;
        }
    }
    if (initiator && !m->connected) {
        espm_illegal(m, "initiator command while disconnected", cmd);
        return;
    }
    switch (c) {
    case C_TI:
        do_ti(m, cmd, dma);
        break;
    case C_ICCS:
        do_iccs(m, cmd, dma);
        break;
    case C_MOK:
        do_mok(m, cmd);
        break;
    case C_PAD:
        if (m->ack_held)
            espm_illegal(m, "TRANSFER PAD with ACK held", cmd);
        else
            do_xfer(m, cmd, dma, true);
        break;
    case C_SEL:
    case C_SELATN:
    case C_SELATNS:
    case C_SELATN3:
        espm_do_select(m, cmd);
        break;
    case C_ESEL:
        if (m->connected) {
            espm_illegal(m, "ENABLE SELECTION/RESELECTION while connected", cmd);
            break;
        }
        m->resel_enabled = true;
        if (m->held_resel)
            espm_present_resel(m, &m->held_ev);
        break;
    case C_DSEL:
        m->resel_enabled = false;
        espm_raise(m, IN_FC, -1, 0);
        break;
    default:
        if (c >= 0x20 && c <= 0x2F)
            espm_illegal(m, "target-mode command (target mode is not modelled)", cmd);
        else
            espm_illegal(m, "not a command", cmd);
        break;
    }
}

void espm_command(espm *m, uint8_t cmd)
{
    uint8_t c = cmd & 0x7Fu;

    if (cmd & C_DMA) {
        /* Every DMA command loads the counter from the start count. */
        m->tc = (uint32_t)m->w_tc[0] | ((uint32_t)m->w_tc[1] << 8);
        if (espm_has_tchi(m) && (m->cfg2 & CFG2_FEN))
            m->tc |= (uint32_t)m->w_tc[2] << 16;
        m->tc_zero = false;
    }
    espm_log(m, "command 0x%02x", cmd);
    switch (c) {
    case C_NOP:
        return;
    case C_FLUSH:
        m->fifo_n = 0;
        return;
    case C_RESET:
        espm_chip_reset(m);
        (void)pcam_sim_i_reset_chip(m->sim);
        return;
    case C_BUSRESET:
        m->op = OP_NONE;
        m->op_waiting_dma = false;
        m->have_stacked = false;
        (void)pcam_sim_i_reset_bus(m->sim);
        espm_poll_bus(m);
        return;
    case C_SATN:
        if (!m->connected && m->op != OP_SELECT)
            espm_error(m, "SET ATN while disconnected");
        (void)pcam_sim_i_set_atn(m->sim);
        /* Connected and idle in an information phase: the target answers
         * ATN at once by requesting MESSAGE OUT (hal/sim makes the switch
         * when the bytes go, on the TRANSFER INFORMATION that follows). */
        if (m->connected && m->op == OP_NONE && !m->op_waiting_dma && !m->ack_held &&
            m->phase != PCAM_PHASE_MSG_IN && m->phase != PCAM_PHASE_MSG_OUT)
            m->phase = PCAM_PHASE_MSG_OUT;
        return;
    case C_RATN:
        (void)pcam_sim_i_reset_atn(m->sim);
        return;
    default:
        break;
    }
    if (m->op != OP_NONE || m->op_waiting_dma) {
        if (m->have_stacked) {
            espm_error(m, "command 0x%02x written with two commands already queued", cmd);
            m->stat_err |= ST_GE;
            return;
        }
        m->have_stacked = true;
        m->stacked = cmd;
        return;
    }
    espm_start_cmd(m, cmd);
    espm_poll_bus(m);
}

void espm_dma_started(espm *m)
{
    if (m->op_waiting_dma) {
        m->op_waiting_dma = false;
        espm_start_cmd(m, m->op_cmd);
        espm_poll_bus(m);
    }
}

/* ---- bus events ---- */

static void bus_event(espm *m, const pcam_hal_event *ev)
{
    if (ev->type == PCAM_HAL_EV_BUS_RESET) {
        espm_disconnected(m);
        m->op = OP_NONE;
        m->op_waiting_dma = false;
        m->have_stacked = false;
        m->held_resel = false;
        espm_finish(m, IN_SR, -1, 0);
        return;
    }
    if (ev->type == PCAM_HAL_EV_GROSS_ERROR) {
        pcam_hal_xfer_params a, c;

        pcam_sim_target_agreement(m->sim, m->target, &a);
        pcam_sim_chip_xfer(m->sim, m->target, &c);
        if (m->op == OP_XFER && (a.offset != c.offset || a.width != c.width))
            espm_error(m, "data transfer lost: STP 0x%02x SOFF 0x%02x give offset %u, target %u agreed offset %u period 0x%02x",
                       m->stp, m->soff, c.offset, m->target, a.offset, a.period);
        else
            espm_error(m, "the bus refused an action of command 0x%02x", m->last_cmd);
        m->op = OP_NONE;
        espm_finish(m, IN_IC, -1, ST_GE);
        return;
    }
    switch (m->op) {
    case OP_SELECT:
        espm_ev_select(m, ev);
        return;
    case OP_MSGOUT:
        ev_msgout(m, ev);
        return;
    case OP_MSGIN:
    case OP_MSGIN_ACK:
        ev_msgin(m, ev);
        return;
    case OP_XFER:
        ev_xfer(m, ev);
        return;
    case OP_ICCS_ST:
    case OP_ICCS_MSG:
        ev_iccs(m, ev);
        return;
    case OP_MOK:
        ev_mok(m, ev);
        return;
    default:
        break;
    }
    /* Idle chip. */
    if (ev->type == PCAM_HAL_EV_RESELECTED) {
        if (m->resel_enabled) {
            espm_present_resel(m, ev);
        } else {
            /* The target keeps trying until the chip listens. */
            m->held_resel = true;
            m->held_ev = *ev;
        }
        return;
    }
    if (ev->type == PCAM_HAL_EV_BUS_FREE) {
        espm_disconnected(m);
        espm_finish(m, IN_DC, -1, 0);
        return;
    }
    espm_log(m, "bus event %d with no command running", (int)ev->type);
}

void espm_poll_bus(espm *m)
{
    pcam_hal_event ev;

    while (pcam_sim_i_poll(m->sim, &ev) == 1)
        bus_event(m, &ev);
}
