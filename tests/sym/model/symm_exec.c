/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model's SCRIPTS interpreter and its bus side: block moves with phase
 * mismatch, SELECT (carried out with the MESSAGE OUT move that follows it,
 * since hal/sim selects with the message bytes; a script that does
 * anything else after SELECT is reported as a mistake), WAIT DISCONNECT /
 * RESELECT, SET / CLEAR, register moves, transfer control, LOAD / STORE,
 * and the hal/sim events that end each bus action.
 */
#include "symm_internal.h"

/* ---- bus actions ---- */

static void begin_select(symm *m, const uint8_t *msg, uint32_t n)
{
    pcam_hal_select sel;
    memset(&sel, 0, sizeof sel); /* may_accept and any field added later: off */
    memset(&sel, 0, sizeof sel);
    sel.target = m->sel_target;
    sel.atn = true;
    sel.msg = msg;
    sel.msg_len = (uint8_t)n;
    m->sel_lazy = false;
    m->st.selections++;
    if (pcam_sim_i_select(m->sim, &sel) < 0) {
        symm_err(m, "select of %u refused by the bus", m->sel_target);
        symm_dma_int(m, 0x01);
        return;
    }
    m->target = m->sel_target;
    m->pend = P_SELECT;
    m->run = R_WAIT;
}

static void move_done(symm *m)
{
    symm_w32(m, 0x24, (symm_r32(m, 0x24) & 0xFF000000u) | ((m->mv_count - m->mv_done) & 0xFFFFFFu));
    m->pend = P_NONE;
    if (m->mv_done < m->mv_count) {
        symm_scsi_int(m, 0x80, 0); /* phase mismatch */
        return;
    }
    m->run = R_RUN;
}

static void msgin_next(symm *m)
{
    if (pcam_sim_i_msg_in(m->sim) < 0) {
        symm_err(m, "msg_in refused");
        symm_dma_int(m, 0x01);
        return;
    }
    m->pend = P_MSGIN;
    m->run = R_WAIT;
}

static void block_move(symm *m, uint32_t w0, uint32_t w1)
{
    uint32_t count, addr;
    unsigned ph = (w0 >> 24) & 7u;
    if ((w0 & 0x20000000u) != 0) {
        symm_err(m, "indirect block move (not used by hal/sym)");
        symm_dma_int(m, 0x01);
        return;
    }
    if ((w0 & 0x10000000u) != 0) {
        const uint8_t *t = symm_mem(m, symm_r32(m, 0x10) + (uint32_t)symm_sext24(w1), 8);
        if (t == NULL) {
            symm_err(m, "table entry outside memory (DSA %08x)", symm_r32(m, 0x10));
            symm_dma_int(m, 0x01);
            return;
        }
        count = ((uint32_t)t[0] | ((uint32_t)t[1] << 8) | ((uint32_t)t[2] << 16));
        addr = (uint32_t)t[4] | ((uint32_t)t[5] << 8) | ((uint32_t)t[6] << 16) | ((uint32_t)t[7] << 24);
    } else {
        count = w0 & 0xFFFFFFu;
        addr = w1;
    }
    uint8_t *p = symm_mem(m, addr, count);
    if (p == NULL || count == 0) {
        symm_err(m, "block move of %u bytes at %08x outside memory or empty", count, addr);
        symm_dma_int(m, 0x01);
        return;
    }
    m->mv_phase = (int)ph;
    m->mv_count = count;
    m->mv_done = 0;
    m->mv_bus = addr;
    symm_w32(m, 0x24, (symm_r32(m, 0x24) & 0xFF000000u) | count);
    if (m->sel_lazy) {
        if (ph != PCAM_PHASE_MSG_OUT) {
            symm_err(m, "SELECT not followed by a MESSAGE OUT move");
            symm_dma_int(m, 0x01);
            return;
        }
        begin_select(m, p, count);
        return;
    }
    if (!m->connected) {
        symm_scsi_int(m, 0x04, 0); /* nobody there: unexpected disconnect */
        return;
    }
    if (m->phase != (int)ph) {
        symm_scsi_int(m, 0x80, 0);
        return;
    }
    pcam_hal_xfer x;
    memset(&x, 0, sizeof x); /* may_accept and any field added later: off */
    pcam_sg sg;
    switch (ph) {
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT:
    case PCAM_PHASE_COMMAND:
    case PCAM_PHASE_STATUS:
        if (m->held) {
            symm_err(m, "information phase move with ACK held");
            symm_dma_int(m, 0x01);
            return;
        }
        sg.addr = p;
        sg.len = count;
        x.phase = (pcam_phase)ph;
        x.sg = &sg;
        x.sg_count = 1;
        x.offset = 0;
        x.len = count;
        if (pcam_sim_i_transfer(m->sim, &x) < 0) {
            symm_err(m, "transfer refused");
            symm_dma_int(m, 0x01);
            return;
        }
        m->pend = P_XFER;
        m->run = R_WAIT;
        return;
    case PCAM_PHASE_MSG_OUT:
        if (m->held) {
            symm_err(m, "MESSAGE OUT move with ACK held");
            symm_dma_int(m, 0x01);
            return;
        }
        if (pcam_sim_i_msg_out(m->sim, p, count) < 0) {
            symm_err(m, "msg_out refused");
            symm_dma_int(m, 0x01);
            return;
        }
        m->pend = P_MSGOUT;
        m->run = R_WAIT;
        return;
    case PCAM_PHASE_MSG_IN:
        if (m->resel_byte_pending) {
            m->resel_byte_pending = false;
            p[0] = m->resel_byte;
            m->reg[0x08] = m->resel_byte;
            m->mv_done = 1;
            if (m->resel_parity) {
                m->resel_parity = false;
                symm_w32(m, 0x24, (symm_r32(m, 0x24) & 0xFF000000u) | (count - 1u));
                symm_scsi_int(m, 0x01, 0);
                return;
            }
            if (count == 1) {
                move_done(m);
                return;
            }
            (void)pcam_sim_i_msg_accept(m->sim, false);
            m->held = false;
            m->pend = P_ACCEPT_MV;
            m->run = R_WAIT;
            return;
        }
        if (m->held) {
            symm_err(m, "MESSAGE IN move with ACK still held (no CLEAR ACK)");
            symm_dma_int(m, 0x01);
            return;
        }
        msgin_next(m);
        return;
    default:
        symm_err(m, "move in reserved phase %u", ph);
        symm_dma_int(m, 0x01);
        return;
    }
}

static void io_insn(symm *m, uint32_t w0, uint32_t w1)
{
    unsigned op = (w0 >> 27) & 7u;
    if (op >= 5) {
        unsigned reg = ((w0 >> 16) & 0x7Fu) | (w0 & 0x80u);
        uint8_t data = (uint8_t)(w0 >> 8), op0 = 0, op1 = 0;
        unsigned oper = (w0 >> 24) & 7u;
        if (op == 5) {
            op0 = m->reg[0x08];
            op1 = data;
        } else {
            if (oper != 0)
                op0 = symm_reg_read(m, reg, false);
            op1 = (op == 7 && (w0 & 0x800000u) != 0) ? m->reg[0x08] : data;
        }
        unsigned t;
        switch (oper) {
        case 0: op0 = op1; break;
        case 1: t = op0 >> 7; op0 = (uint8_t)((op0 << 1) | (m->carry ? 1 : 0)); m->carry = t != 0; break;
        case 2: op0 |= op1; break;
        case 3: op0 ^= op1; break;
        case 4: op0 &= op1; break;
        case 5: t = op0 & 1u; op0 = (uint8_t)((op0 >> 1) | (m->carry ? 0x80 : 0)); m->carry = t != 0; break;
        case 6: t = (unsigned)op0 + op1; op0 = (uint8_t)t; m->carry = t > 0xFF; break;
        default: t = (unsigned)op0 + op1 + (m->carry ? 1u : 0u); op0 = (uint8_t)t; m->carry = t > 0xFF; break;
        }
        if (op == 6)
            m->reg[0x08] = op0;
        else
            symm_reg_write(m, reg, op0, false);
        return;
    }
    switch (op) {
    case 0: { /* SELECT */
        if (m->connected) {
            symm_w32(m, 0x2C, w1); /* reselected first: the alternate address */
            return;
        }
        uint32_t word = w0;
        if ((w0 & 0x02000000u) != 0) {
            const uint8_t *t = symm_mem(m, symm_r32(m, 0x10) + (uint32_t)symm_sext24(w0), 4);
            if (t == NULL) {
                symm_err(m, "select table outside memory");
                symm_dma_int(m, 0x01);
                return;
            }
            word = (uint32_t)t[0] | ((uint32_t)t[1] << 8) | ((uint32_t)t[2] << 16) | ((uint32_t)t[3] << 24);
            m->reg[0x03] = (uint8_t)(word >> 24);
            m->reg[0x05] = (uint8_t)(word >> 8);
        }
        if ((w0 & 0x01000000u) == 0)
            symm_err(m, "SELECT without ATN (hal/sym always sends IDENTIFY)");
        m->sel_target = (uint8_t)((word >> 16) & 0x0Fu);
        m->reg[0x06] = m->sel_target;
        if (m->sel_target == 7 || m->sel_target >= 16) {
            symm_err(m, "select of own or invalid ID %u", m->sel_target);
            symm_dma_int(m, 0x01);
            return;
        }
        symm_apply_xfer(m, m->sel_target);
        m->sel_alt = w1;
        m->sel_lazy = true;
        return;
    }
    case 1: /* WAIT DISCONNECT */
        if (m->connected) {
            m->pend = P_WAITDISC;
            m->run = R_WAIT;
        }
        return;
    case 2: /* WAIT RESELECT */
        if (m->connected)
            return;
        if (m->sigp) {
            symm_w32(m, 0x2C, w1);
            return;
        }
        symm_w32(m, 0x28, w1); /* DNAD holds the alternate address */
        m->run = R_RESEL;
        return;
    case 3: /* SET */
        if ((w0 & 0x08) != 0) {
            m->atn = true;
            if (m->connected && !m->held)
                (void)pcam_sim_i_set_atn(m->sim);
        }
        if ((w0 & 0x40) != 0)
            symm_err(m, "SET ACK (not used by an initiator script)");
        if ((w0 & 0x400) != 0)
            m->carry = true;
        return;
    case 4: /* CLEAR */
        if ((w0 & 0x400) != 0)
            m->carry = false;
        if ((w0 & 0x08) != 0) {
            m->atn = false;
            if (m->connected)
                (void)pcam_sim_i_reset_atn(m->sim);
        }
        if ((w0 & 0x40) != 0 && m->held) {
            if (m->resel_byte_pending)
                symm_err(m, "CLEAR ACK before the reselection IDENTIFY was read");
            m->resel_byte_pending = false;
            if (pcam_sim_i_msg_accept(m->sim, m->atn) < 0) {
                symm_err(m, "msg_accept refused");
                symm_dma_int(m, 0x01);
                return;
            }
            m->held = false;
            m->pend = P_ACCEPT;
            m->run = R_WAIT;
        }
        return;
    default:
        symm_err(m, "I/O opcode %u", op);
        symm_dma_int(m, 0x01);
        return;
    }
}

static void transfer_control(symm *m, uint32_t w0, uint32_t w1)
{
    if ((w0 & 0x002E0000u) == 0)
        return;
    bool jmp = (w0 & 0x80000u) != 0, cond = jmp;
    if (cond == jmp && (w0 & 0x200000u) != 0)
        cond = m->carry;
    if (cond == jmp && (w0 & 0x20000u) != 0) {
        if ((w0 & 0x10000u) != 0 && !m->connected) {
            symm_scsi_int(m, 0x04, 0); /* WHEN on a free bus */
            return;
        }
        cond = m->connected && m->phase == (int)((w0 >> 24) & 7u);
    }
    if (cond == jmp && (w0 & 0x40000u) != 0) {
        uint8_t mask = (uint8_t)~(w0 >> 8);
        cond = (m->reg[0x08] & mask) == (w0 & mask);
    }
    if (cond != jmp)
        return;
    uint32_t addr = (w0 & 0x800000u) != 0 ? symm_r32(m, 0x2C) + (uint32_t)symm_sext24(w1) : w1;
    switch ((w0 >> 27) & 7u) {
    case 0:
        symm_w32(m, 0x2C, addr);
        return;
    case 1:
        symm_w32(m, 0x1C, symm_r32(m, 0x2C));
        symm_w32(m, 0x2C, addr);
        return;
    case 2:
        symm_w32(m, 0x2C, symm_r32(m, 0x1C));
        return;
    case 3:
        if ((w0 & 0x100000u) != 0) {
            m->intf = true;
            m->st.intfly++;
        } else {
            m->st.int_stops++;
            symm_dma_int(m, 0x04);
        }
        return;
    default:
        symm_err(m, "transfer control opcode");
        symm_dma_int(m, 0x01);
        return;
    }
}

static void load_store(symm *m, uint32_t w0, uint32_t w1)
{
    if ((w0 & 0x20000000u) == 0) {
        symm_err(m, "memory move (not used by hal/sym)");
        symm_dma_int(m, 0x01);
        return;
    }
    unsigned n = w0 & 7u, reg = (w0 >> 16) & 0xFFu;
    uint32_t a = (w0 & 0x10000000u) != 0 ? symm_r32(m, 0x10) + (uint32_t)symm_sext24(w1) : w1;
    uint8_t *p = symm_mem(m, a, n);
    if (p == NULL || n == 0 || n > 4 || reg + n > 256) {
        symm_err(m, "LOAD/STORE of %u bytes at %08x", n, a);
        symm_dma_int(m, 0x01);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        if ((w0 & 0x01000000u) != 0)
            symm_reg_write(m, reg + i, p[i], false);
        else
            p[i] = symm_reg_read(m, reg + i, false);
    }
}

void symm_run_script(symm *m)
{
    unsigned budget = BUDGET;
    while (m->run == R_RUN) {
        if (budget-- == 0) {
            symm_err(m, "script ran %u instructions without waiting for the bus", BUDGET);
            symm_dma_int(m, 0x01);
            return;
        }
        uint32_t dsp = symm_r32(m, 0x2C);
        const uint8_t *p = symm_mem(m, dsp, 8);
        if (p == NULL) {
            symm_err(m, "instruction fetch outside memory at %08x", dsp);
            symm_dma_int(m, 0x01);
            return;
        }
        uint32_t w0 = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        uint32_t w1 = (uint32_t)p[4] | ((uint32_t)p[5] << 8) | ((uint32_t)p[6] << 16) | ((uint32_t)p[7] << 24);
        symm_w32(m, 0x2C, dsp + 8);
        symm_w32(m, 0x30, w1);
        m->reg[0x27] = (uint8_t)(w0 >> 24);
        m->st.insns++;
        if (m->sel_lazy && (w0 >> 30) != 0) {
            symm_err(m, "SELECT not followed by a MESSAGE OUT move");
            symm_dma_int(m, 0x01);
            return;
        }
        switch (w0 >> 30) {
        case 0: block_move(m, w0, w1); break;
        case 1: io_insn(m, w0, w1); break;
        case 2: transfer_control(m, w0, w1); break;
        default: load_store(m, w0, w1); break;
        }
    }
}

/* ---- events from the bus ---- */

static void on_event(symm *m, const pcam_hal_event *ev)
{
    switch (ev->type) {
    case PCAM_HAL_EV_BUS_RESET:
        m->connected = m->held = m->resel_byte_pending = m->atn = false;
        m->phase = PCAM_PHASE_BUS_FREE;
        m->pend = P_NONE;
        m->sel_lazy = false;
        symm_scsi_int(m, 0x02, 0);
        return;
    case PCAM_HAL_EV_RESELECTED:
        m->connected = true;
        m->target = ev->target;
        m->phase = PCAM_PHASE_MSG_IN;
        m->held = true;
        m->resel_byte_pending = true;
        m->resel_byte = ev->byte;
        /* A bad IDENTIFY is seen when the script reads it, as on the chip. */
        m->resel_parity = ev->parity_error;
        m->st.reselections++;
        if (m->pend == P_SELECT) {
            m->pend = P_NONE;
            symm_w32(m, 0x2C, m->sel_alt);
            m->run = R_RUN;
        } else if (m->run == R_RESEL) {
            m->run = R_RUN;
        } else if (m->pend != P_NONE) {
            symm_err(m, "reselected while an action was pending (%d)", m->pend);
        }
        return;
    case PCAM_HAL_EV_SEL_TIMEOUT:
        m->connected = false;
        m->pend = P_NONE;
        m->phase = PCAM_PHASE_BUS_FREE;
        symm_scsi_int(m, 0, 0x04);
        return;
    case PCAM_HAL_EV_SELECT_DONE:
        if (m->pend != P_SELECT)
            break;
        m->connected = true;
        m->atn = false;
        m->phase = (int)ev->phase;
        m->mv_done = ev->count;
        move_done(m);
        return;
    case PCAM_HAL_EV_XFER_DONE:
    case PCAM_HAL_EV_MSGOUT_DONE:
        if (m->pend != P_XFER && m->pend != P_MSGOUT)
            break;
        if (m->pend == P_MSGOUT)
            m->atn = false;
        m->phase = (int)ev->phase;
        /* A wide bus may bring one byte past an odd count (IGNORE WIDE
         * RESIDUE follows); the chip keeps it in SWIDE, not in memory. */
        m->mv_done = ev->count < m->mv_count ? ev->count : m->mv_count;
        if (ev->count > 0 && (m->mv_phase == PCAM_PHASE_DATA_IN || m->mv_phase == PCAM_PHASE_STATUS))
            m->reg[0x08] = symm_mem(m, m->mv_bus, 1)[0];
        if (ev->parity_error) {
            symm_w32(m, 0x24, m->mv_count - m->mv_done);
            m->pend = P_NONE;
            symm_scsi_int(m, 0x01, 0);
            return;
        }
        move_done(m);
        return;
    case PCAM_HAL_EV_MSG_BYTE:
        if (m->pend != P_MSGIN)
            break;
        m->held = true;
        symm_mem(m, m->mv_bus, m->mv_count)[m->mv_done] = ev->byte;
        if (m->mv_done == 0)
            m->reg[0x08] = ev->byte;
        m->reg[0x50] = ev->byte; /* SIDL */
        m->mv_done++;
        if (ev->parity_error) {
            m->pend = P_NONE;
            symm_scsi_int(m, 0x01, 0);
            return;
        }
        if (m->mv_done < m->mv_count) {
            (void)pcam_sim_i_msg_accept(m->sim, false);
            m->held = false;
            m->pend = P_ACCEPT_MV;
            return;
        }
        move_done(m);
        return;
    case PCAM_HAL_EV_PHASE:
        if (m->pend != P_ACCEPT && m->pend != P_ACCEPT_MV)
            break;
        m->phase = (int)ev->phase;
        if (m->pend == P_ACCEPT) {
            m->pend = P_NONE;
            m->run = R_RUN;
            return;
        }
        if (m->phase != PCAM_PHASE_MSG_IN) {
            move_done(m);
            return;
        }
        msgin_next(m);
        return;
    case PCAM_HAL_EV_BUS_FREE:
        m->connected = m->held = m->atn = false;
        m->phase = PCAM_PHASE_BUS_FREE;
        if ((m->pend == P_SELECT || m->pend == P_MSGOUT) && ev->count >= m->mv_count) {
            /* The last message (ABORT TASK, TARGET RESET) sent the target
             * away: the move completed and WAIT DISCONNECT will not wait. */
            m->mv_done = m->mv_count;
            move_done(m);
            return;
        }
        if (m->pend == P_ACCEPT || m->pend == P_WAITDISC) {
            m->pend = P_NONE;
            m->run = R_RUN;
            return;
        }
        m->pend = P_NONE;
        symm_scsi_int(m, 0x04, 0);
        return;
    case PCAM_HAL_EV_GROSS_ERROR:
        symm_err(m, "hal/sim reported a gross error (the script misused the bus)");
        m->pend = P_NONE;
        symm_scsi_int(m, 0x08, 0);
        return;
    default:
        break;
    }
    symm_err(m, "unexpected bus event %d while %d pending", (int)ev->type, m->pend);
}

void symm_poll_bus(symm *m)
{
    pcam_hal_event ev;
    while (pcam_sim_i_poll(m->sim, &ev) == 1) {
        on_event(m, &ev);
        symm_run_script(m);
    }
}

