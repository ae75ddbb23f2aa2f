/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SCRIPTS-level 53C8xx model (symm.h). Register semantics follow the
 * 53C8xx data manuals as far as hal/sym uses them; where a detail is the
 * model's choice it says so. SELECT is carried out together with the MOVE
 * in MESSAGE OUT that follows it (hal/sim selects with the message bytes);
 * a script that does anything else after SELECT is reported as a mistake.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symm.h"

#define ARENA_BUS 0x10000000u
#define ARENA_SIZE (16u << 20)
#define MAX_MAPS 512
#define BASE 0xC000u
#define BUDGET 20000u

enum { R_STOP, R_RUN, R_WAIT, R_RESEL };
enum { P_NONE, P_SELECT, P_XFER, P_MSGOUT, P_MSGIN, P_ACCEPT_MV, P_ACCEPT, P_WAITDISC };

typedef struct map {
    uint32_t off, len;
    void *va;
    int dir;
    bool bounce, used;
} map;

struct symm {
    pcam_sim *sim;
    pcam_platform simplat;
    uint32_t sclk_khz;
    uint8_t reg[256];
    uint8_t *arena;
    map maps[MAX_MAPS];
    int run, pend;
    bool sigp, intf, carry;
    /* bus */
    bool connected, held, resel_byte_pending, resel_parity, atn;
    uint8_t target, resel_byte;
    int phase;
    /* the move or select in progress */
    int mv_phase;
    uint32_t mv_count, mv_done, mv_bus;
    bool sel_lazy;
    uint8_t sel_target;
    uint32_t sel_alt;
    uint64_t errors;
    char last[200];
    bool verbose;
    symm_stats st;
};

static void err(symm *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->last, sizeof m->last, fmt, ap);
    va_end(ap);
    m->errors++;
    if (m->verbose)
        fprintf(stderr, "symm: %s\n", m->last);
}

static uint32_t r32(const symm *m, unsigned r)
{
    return (uint32_t)m->reg[r] | ((uint32_t)m->reg[r + 1] << 8) | ((uint32_t)m->reg[r + 2] << 16) |
           ((uint32_t)m->reg[r + 3] << 24);
}

static void w32(symm *m, unsigned r, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        m->reg[r + i] = (uint8_t)(v >> (8 * i));
}

static int32_t sext24(uint32_t v)
{
    return (int32_t)((v & 0xFFFFFFu) ^ 0x800000u) - 0x800000;
}

/* ---- memory ---- */

static uint8_t *mem(symm *m, uint32_t bus, uint32_t len)
{
    if (bus < ARENA_BUS || len > ARENA_SIZE || bus - ARENA_BUS > ARENA_SIZE - len)
        return NULL;
    return m->arena + (bus - ARENA_BUS);
}

static int arena_get(symm *m, uint32_t len, uint32_t *off)
{
    uint32_t at = 0;
    len = (len + 63u) & ~63u;
    for (;;) {
        bool clash = false;
        for (int i = 0; i < MAX_MAPS; i++) {
            const map *p = &m->maps[i];
            if (p->used && at < p->off + p->len && p->off < at + len) {
                at = (p->off + p->len + 63u) & ~63u;
                clash = true;
            }
        }
        if (!clash)
            break;
    }
    if (at + len > ARENA_SIZE)
        return -1;
    for (int i = 0; i < MAX_MAPS; i++) {
        if (!m->maps[i].used) {
            m->maps[i].used = true;
            m->maps[i].off = at;
            m->maps[i].len = len;
            *off = at;
            return i;
        }
    }
    return -1;
}

void *symm_alloc(symm *m, size_t len, uint64_t *bus)
{
    uint32_t off;
    int i = arena_get(m, (uint32_t)len, &off);
    if (i < 0)
        return NULL;
    m->maps[i].va = NULL; /* permanent */
    *bus = ARENA_BUS + off;
    return m->arena + off;
}

/* ---- registers as the host sees them ---- */

static bool irq_level(const symm *m)
{
    return (m->reg[0x0C] & m->reg[0x39]) != 0 || (m->reg[0x42] & m->reg[0x40]) != 0 ||
           (m->reg[0x43] & m->reg[0x41]) != 0 || m->intf;
}

static void stop(symm *m)
{
    m->run = R_STOP;
}

static void scsi_int(symm *m, uint8_t s0, uint8_t s1)
{
    m->reg[0x42] |= s0;
    m->reg[0x43] |= s1;
    stop(m);
}

static void dma_int(symm *m, uint8_t d)
{
    m->reg[0x0C] |= d;
    stop(m);
}

static void apply_xfer(symm *m, uint8_t target)
{
    static const uint8_t scf_half[8] = {2, 2, 3, 4, 6, 8, 8, 8};
    uint8_t sc3 = m->reg[0x03], sx = m->reg[0x05];
    pcam_hal_xfer_params p;
    memset(&p, 0, sizeof p);
    p.width = (sc3 & 0x08) != 0 ? 1 : 0;
    p.offset = sx & 0x1F;
    if (p.offset != 0) {
        uint64_t x = (uint64_t)((sx >> 5) + 4u);
        uint64_t num = x * scf_half[(sc3 >> 4) & 7u] * 10000000u;
        uint64_t den = (uint64_t)2u * m->sclk_khz * ((sc3 & 0x80) != 0 ? 2u : 1u);
        uint32_t t = (uint32_t)(num / den); /* tenths of ns */
        p.period = t <= 125 ? 0x09 : t <= 250 ? 0x0A : t <= 303 ? 0x0B : t <= 500 ? 0x0C
                                                                      : (uint8_t)((t + 39u) / 40u);
    }
    (void)pcam_sim_i_set_xfer(m->sim, target, &p);
}

static void run_script(symm *m);

static void chip_reset(symm *m)
{
    memset(m->reg, 0, sizeof m->reg);
    m->reg[0x04] = 7;
    m->run = R_STOP;
    m->pend = P_NONE;
    m->sigp = m->intf = m->carry = false;
    m->sel_lazy = false;
    /* The bus is not touched: a connection the chip forgot stays with the target. */
    if (m->connected)
        err(m, "chip reset while connected to target %u", m->target);
}

static uint8_t reg_read(symm *m, unsigned r, bool host)
{
    uint8_t v;
    switch (r) {
    case 0x0A:
        return m->connected ? (uint8_t)(0x80u | m->target) : 0;
    case 0x0C:
        v = m->reg[0x0C] | 0x80; /* DFE */
        if (host)
            m->reg[0x0C] = 0;
        else
            err(m, "script read DSTAT");
        return v;
    case 0x0D:
    case 0x20:
    case 0x22:
        return 0; /* FIFOs empty: every byte counted moved */
    case 0x0E:
        return (uint8_t)(m->connected ? (m->phase & 7) : 0);
    case 0x14:
        return (uint8_t)((m->reg[0x0C] != 0 ? 0x01 : 0) | ((m->reg[0x42] | m->reg[0x43]) != 0 ? 0x02 : 0) |
                         (m->intf ? 0x04 : 0) | (m->connected ? 0x08 : 0) | (m->sigp ? 0x20 : 0));
    case 0x1A:
        v = (uint8_t)(m->reg[0x1A] | (m->sigp ? 0x40 : 0));
        m->sigp = false;
        return v;
    case 0x42:
    case 0x43:
        v = m->reg[r];
        if (host)
            m->reg[r] = 0;
        else
            err(m, "script read SIST");
        return v;
    default:
        return m->reg[r & 0xFF];
    }
}

static void reg_write(symm *m, unsigned r, uint8_t v, bool host)
{
    switch (r) {
    case 0x01:
        if ((v & 0x08) != 0 && (m->reg[0x01] & 0x08) == 0) {
            (void)pcam_sim_i_reset_bus(m->sim); /* BUS_RESET comes as an event */
            m->connected = m->held = m->resel_byte_pending = m->atn = false;
            m->sel_lazy = false;
            m->phase = PCAM_PHASE_BUS_FREE;
            if (m->run == R_WAIT || m->run == R_RESEL)
                m->run = R_STOP;
            m->pend = P_NONE;
        }
        m->reg[0x01] = v;
        return;
    case 0x03:
    case 0x05:
        m->reg[r] = v;
        if (m->connected)
            apply_xfer(m, m->target);
        return;
    case 0x08:
        if (host)
            err(m, "host wrote SFBR");
        m->reg[0x08] = v;
        return;
    case 0x0C:
    case 0x0D:
    case 0x0E:
    case 0x0F:
    case 0x42:
    case 0x43:
        err(m, "write to read-only register 0x%02x", r);
        return;
    case 0x14:
        if (!host) {
            err(m, "script wrote ISTAT");
            return;
        }
        if ((v & 0x40) != 0) {
            chip_reset(m);
            return;
        }
        if ((v & 0x04) != 0)
            m->intf = false;
        if ((v & 0x80) != 0)
            dma_int(m, 0x10);
        if ((v & 0x20) != 0) {
            m->sigp = true;
            if (m->run == R_RESEL) {
                w32(m, 0x2C, r32(m, 0x28)); /* WAIT RESELECT kept its alternate address in DNAD */
                m->run = R_RUN;
                run_script(m);
            }
        }
        return;
    case 0x2F:
        m->reg[0x2F] = v;
        if (!host)
            return;
        if (m->run != R_STOP) {
            err(m, "DSP written while the script runs (state %d)", m->run);
            return;
        }
        m->run = R_RUN;
        run_script(m);
        return;
    default:
        m->reg[r & 0xFF] = v;
        return;
    }
}

/* ---- bus actions ---- */

static void begin_select(symm *m, const uint8_t *msg, uint32_t n)
{
    pcam_hal_select sel;
    memset(&sel, 0, sizeof sel);
    sel.target = m->sel_target;
    sel.atn = true;
    sel.msg = msg;
    sel.msg_len = (uint8_t)n;
    m->sel_lazy = false;
    m->st.selections++;
    if (pcam_sim_i_select(m->sim, &sel) < 0) {
        err(m, "select of %u refused by the bus", m->sel_target);
        dma_int(m, 0x01);
        return;
    }
    m->target = m->sel_target;
    m->pend = P_SELECT;
    m->run = R_WAIT;
}

static void move_done(symm *m)
{
    w32(m, 0x24, (r32(m, 0x24) & 0xFF000000u) | ((m->mv_count - m->mv_done) & 0xFFFFFFu));
    m->pend = P_NONE;
    if (m->mv_done < m->mv_count) {
        scsi_int(m, 0x80, 0); /* phase mismatch */
        return;
    }
    m->run = R_RUN;
}

static void msgin_next(symm *m)
{
    if (pcam_sim_i_msg_in(m->sim) < 0) {
        err(m, "msg_in refused");
        dma_int(m, 0x01);
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
        err(m, "indirect block move (not used by hal/sym)");
        dma_int(m, 0x01);
        return;
    }
    if ((w0 & 0x10000000u) != 0) {
        const uint8_t *t = mem(m, r32(m, 0x10) + (uint32_t)sext24(w1), 8);
        if (t == NULL) {
            err(m, "table entry outside memory (DSA %08x)", r32(m, 0x10));
            dma_int(m, 0x01);
            return;
        }
        count = ((uint32_t)t[0] | ((uint32_t)t[1] << 8) | ((uint32_t)t[2] << 16));
        addr = (uint32_t)t[4] | ((uint32_t)t[5] << 8) | ((uint32_t)t[6] << 16) | ((uint32_t)t[7] << 24);
    } else {
        count = w0 & 0xFFFFFFu;
        addr = w1;
    }
    uint8_t *p = mem(m, addr, count);
    if (p == NULL || count == 0) {
        err(m, "block move of %u bytes at %08x outside memory or empty", count, addr);
        dma_int(m, 0x01);
        return;
    }
    m->mv_phase = (int)ph;
    m->mv_count = count;
    m->mv_done = 0;
    m->mv_bus = addr;
    w32(m, 0x24, (r32(m, 0x24) & 0xFF000000u) | count);
    if (m->sel_lazy) {
        if (ph != PCAM_PHASE_MSG_OUT) {
            err(m, "SELECT not followed by a MESSAGE OUT move");
            dma_int(m, 0x01);
            return;
        }
        begin_select(m, p, count);
        return;
    }
    if (!m->connected) {
        scsi_int(m, 0x04, 0); /* nobody there: unexpected disconnect */
        return;
    }
    if (m->phase != (int)ph) {
        scsi_int(m, 0x80, 0);
        return;
    }
    pcam_hal_xfer x;
    pcam_sg sg;
    switch (ph) {
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT:
    case PCAM_PHASE_COMMAND:
    case PCAM_PHASE_STATUS:
        if (m->held) {
            err(m, "information phase move with ACK held");
            dma_int(m, 0x01);
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
            err(m, "transfer refused");
            dma_int(m, 0x01);
            return;
        }
        m->pend = P_XFER;
        m->run = R_WAIT;
        return;
    case PCAM_PHASE_MSG_OUT:
        if (m->held) {
            err(m, "MESSAGE OUT move with ACK held");
            dma_int(m, 0x01);
            return;
        }
        if (pcam_sim_i_msg_out(m->sim, p, count) < 0) {
            err(m, "msg_out refused");
            dma_int(m, 0x01);
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
                w32(m, 0x24, (r32(m, 0x24) & 0xFF000000u) | (count - 1u));
                scsi_int(m, 0x01, 0);
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
            err(m, "MESSAGE IN move with ACK still held (no CLEAR ACK)");
            dma_int(m, 0x01);
            return;
        }
        msgin_next(m);
        return;
    default:
        err(m, "move in reserved phase %u", ph);
        dma_int(m, 0x01);
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
                op0 = reg_read(m, reg, false);
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
            reg_write(m, reg, op0, false);
        return;
    }
    switch (op) {
    case 0: { /* SELECT */
        if (m->connected) {
            w32(m, 0x2C, w1); /* reselected first: the alternate address */
            return;
        }
        uint32_t word = w0;
        if ((w0 & 0x02000000u) != 0) {
            const uint8_t *t = mem(m, r32(m, 0x10) + (uint32_t)sext24(w0), 4);
            if (t == NULL) {
                err(m, "select table outside memory");
                dma_int(m, 0x01);
                return;
            }
            word = (uint32_t)t[0] | ((uint32_t)t[1] << 8) | ((uint32_t)t[2] << 16) | ((uint32_t)t[3] << 24);
            m->reg[0x03] = (uint8_t)(word >> 24);
            m->reg[0x05] = (uint8_t)(word >> 8);
        }
        if ((w0 & 0x01000000u) == 0)
            err(m, "SELECT without ATN (hal/sym always sends IDENTIFY)");
        m->sel_target = (uint8_t)((word >> 16) & 0x0Fu);
        m->reg[0x06] = m->sel_target;
        if (m->sel_target == 7 || m->sel_target >= 16) {
            err(m, "select of own or invalid ID %u", m->sel_target);
            dma_int(m, 0x01);
            return;
        }
        apply_xfer(m, m->sel_target);
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
            w32(m, 0x2C, w1);
            return;
        }
        w32(m, 0x28, w1); /* DNAD holds the alternate address */
        m->run = R_RESEL;
        return;
    case 3: /* SET */
        if ((w0 & 0x08) != 0) {
            m->atn = true;
            if (m->connected && !m->held)
                (void)pcam_sim_i_set_atn(m->sim);
        }
        if ((w0 & 0x40) != 0)
            err(m, "SET ACK (not used by an initiator script)");
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
                err(m, "CLEAR ACK before the reselection IDENTIFY was read");
            m->resel_byte_pending = false;
            if (pcam_sim_i_msg_accept(m->sim, m->atn) < 0) {
                err(m, "msg_accept refused");
                dma_int(m, 0x01);
                return;
            }
            m->held = false;
            m->pend = P_ACCEPT;
            m->run = R_WAIT;
        }
        return;
    default:
        err(m, "I/O opcode %u", op);
        dma_int(m, 0x01);
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
            scsi_int(m, 0x04, 0); /* WHEN on a free bus */
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
    uint32_t addr = (w0 & 0x800000u) != 0 ? r32(m, 0x2C) + (uint32_t)sext24(w1) : w1;
    switch ((w0 >> 27) & 7u) {
    case 0:
        w32(m, 0x2C, addr);
        return;
    case 1:
        w32(m, 0x1C, r32(m, 0x2C));
        w32(m, 0x2C, addr);
        return;
    case 2:
        w32(m, 0x2C, r32(m, 0x1C));
        return;
    case 3:
        if ((w0 & 0x100000u) != 0) {
            m->intf = true;
            m->st.intfly++;
        } else {
            m->st.int_stops++;
            dma_int(m, 0x04);
        }
        return;
    default:
        err(m, "transfer control opcode");
        dma_int(m, 0x01);
        return;
    }
}

static void load_store(symm *m, uint32_t w0, uint32_t w1)
{
    if ((w0 & 0x20000000u) == 0) {
        err(m, "memory move (not used by hal/sym)");
        dma_int(m, 0x01);
        return;
    }
    unsigned n = w0 & 7u, reg = (w0 >> 16) & 0xFFu;
    uint32_t a = (w0 & 0x10000000u) != 0 ? r32(m, 0x10) + (uint32_t)sext24(w1) : w1;
    uint8_t *p = mem(m, a, n);
    if (p == NULL || n == 0 || n > 4 || reg + n > 256) {
        err(m, "LOAD/STORE of %u bytes at %08x", n, a);
        dma_int(m, 0x01);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        if ((w0 & 0x01000000u) != 0)
            reg_write(m, reg + i, p[i], false);
        else
            p[i] = reg_read(m, reg + i, false);
    }
}

static void run_script(symm *m)
{
    unsigned budget = BUDGET;
    while (m->run == R_RUN) {
        if (budget-- == 0) {
            err(m, "script ran %u instructions without waiting for the bus", BUDGET);
            dma_int(m, 0x01);
            return;
        }
        uint32_t dsp = r32(m, 0x2C);
        const uint8_t *p = mem(m, dsp, 8);
        if (p == NULL) {
            err(m, "instruction fetch outside memory at %08x", dsp);
            dma_int(m, 0x01);
            return;
        }
        uint32_t w0 = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        uint32_t w1 = (uint32_t)p[4] | ((uint32_t)p[5] << 8) | ((uint32_t)p[6] << 16) | ((uint32_t)p[7] << 24);
        w32(m, 0x2C, dsp + 8);
        w32(m, 0x30, w1);
        m->reg[0x27] = (uint8_t)(w0 >> 24);
        m->st.insns++;
        if (m->sel_lazy && (w0 >> 30) != 0) {
            err(m, "SELECT not followed by a MESSAGE OUT move");
            dma_int(m, 0x01);
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
        scsi_int(m, 0x02, 0);
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
            w32(m, 0x2C, m->sel_alt);
            m->run = R_RUN;
        } else if (m->run == R_RESEL) {
            m->run = R_RUN;
        } else if (m->pend != P_NONE) {
            err(m, "reselected while an action was pending (%d)", m->pend);
        }
        return;
    case PCAM_HAL_EV_SEL_TIMEOUT:
        m->connected = false;
        m->pend = P_NONE;
        m->phase = PCAM_PHASE_BUS_FREE;
        scsi_int(m, 0, 0x04);
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
            m->reg[0x08] = mem(m, m->mv_bus, 1)[0];
        if (ev->parity_error) {
            w32(m, 0x24, m->mv_count - m->mv_done);
            m->pend = P_NONE;
            scsi_int(m, 0x01, 0);
            return;
        }
        move_done(m);
        return;
    case PCAM_HAL_EV_MSG_BYTE:
        if (m->pend != P_MSGIN)
            break;
        m->held = true;
        mem(m, m->mv_bus, m->mv_count)[m->mv_done] = ev->byte;
        if (m->mv_done == 0)
            m->reg[0x08] = ev->byte;
        m->reg[0x50] = ev->byte; /* SIDL */
        m->mv_done++;
        if (ev->parity_error) {
            m->pend = P_NONE;
            scsi_int(m, 0x01, 0);
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
        scsi_int(m, 0x04, 0);
        return;
    case PCAM_HAL_EV_GROSS_ERROR:
        err(m, "hal/sim reported a gross error (the script misused the bus)");
        m->pend = P_NONE;
        scsi_int(m, 0x08, 0);
        return;
    default:
        break;
    }
    err(m, "unexpected bus event %d while %d pending", (int)ev->type, m->pend);
}

static void poll_bus(symm *m)
{
    pcam_hal_event ev;
    while (pcam_sim_i_poll(m->sim, &ev) == 1) {
        on_event(m, &ev);
        run_script(m);
    }
}

/* ---- platform ---- */

static uint64_t p_now(void *ctx)
{
    return pcam_sim_now(((symm *)ctx)->sim);
}

static void p_log(void *ctx, pcam_log_level l, const char *line)
{
    symm *m = ctx;
    if (m->simplat.log != NULL)
        m->simplat.log(m->simplat.ctx, l, line);
}

static uint8_t p_rd8(void *ctx, uintptr_t a)
{
    symm *m = ctx;
    m->st.reg_reads++;
    if (a < BASE || a >= BASE + 256) {
        err(m, "read8 outside the chip at %lx", (unsigned long)a);
        return 0xFF;
    }
    return reg_read(m, (unsigned)(a - BASE), true);
}

static void p_wr8(void *ctx, uintptr_t a, uint8_t v)
{
    symm *m = ctx;
    m->st.reg_writes++;
    if (a < BASE || a >= BASE + 256) {
        err(m, "write8 outside the chip at %lx", (unsigned long)a);
        return;
    }
    reg_write(m, (unsigned)(a - BASE), v, true);
}

static uint32_t p_rd32(void *ctx, uintptr_t a)
{
    symm *m = ctx;
    uint32_t v = 0;
    m->st.reg_reads++;
    if (a < BASE || a + 4 > BASE + 256 || (a & 3) != 0) {
        err(m, "read32 at %lx", (unsigned long)a);
        return 0xFFFFFFFFu;
    }
    for (unsigned i = 0; i < 4; i++)
        v |= (uint32_t)reg_read(m, (unsigned)(a - BASE) + i, true) << (8 * i);
    return v;
}

static void p_wr32(void *ctx, uintptr_t a, uint32_t v)
{
    symm *m = ctx;
    m->st.reg_writes++;
    if (a < BASE || a + 4 > BASE + 256 || (a & 3) != 0) {
        err(m, "write32 at %lx", (unsigned long)a);
        return;
    }
    for (unsigned i = 0; i < 4; i++)
        reg_write(m, (unsigned)(a - BASE) + i, (uint8_t)(v >> (8 * i)), true);
}

static int p_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    symm *m = ctx;
    uint8_t *p = va;
    if (p >= m->arena && p + len <= m->arena + ARENA_SIZE) {
        *bus = ARENA_BUS + (uint64_t)(p - m->arena);
        return 0;
    }
    uint32_t off;
    int i = arena_get(m, (uint32_t)len, &off);
    if (i < 0)
        return -1;
    m->maps[i].va = va;
    m->maps[i].dir = (int)dir;
    m->maps[i].bounce = true;
    if (dir == PCAM_DMA_TO_DEVICE)
        memcpy(m->arena + off, va, len);
    else
        memset(m->arena + off, 0xA5, len);
    *bus = ARENA_BUS + off;
    return 0;
}

static void p_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    symm *m = ctx;
    uint8_t *p = va;
    if (p >= m->arena && p + len <= m->arena + ARENA_SIZE)
        return;
    for (int i = 0; i < MAX_MAPS; i++) {
        map *mp = &m->maps[i];
        if (mp->used && mp->bounce && mp->va == va && ARENA_BUS + mp->off == bus) {
            if (dir == PCAM_DMA_FROM_DEVICE)
                memcpy(va, m->arena + mp->off, len);
            memset(mp, 0, sizeof *mp);
            return;
        }
    }
    err(m, "dma_unmap of a buffer that is not mapped");
}

static void p_delay(void *ctx, uint32_t us)
{
    symm *m = ctx;
    symm_advance(m, pcam_sim_now(m->sim) + (uint64_t)us * 1000u);
}

void symm_get_platform(symm *m, pcam_platform *out)
{
    memset(out, 0, sizeof *out);
    out->ctx = m;
    out->now_ns = p_now;
    out->log = p_log;
    out->read8 = p_rd8;
    out->write8 = p_wr8;
    out->read32 = p_rd32;
    out->write32 = p_wr32;
    out->dma_map = p_map;
    out->dma_unmap = p_unmap;
    out->delay_us = p_delay;
}

/* ---- public ---- */

symm *symm_create(pcam_sim *sim, uint32_t sclk_khz)
{
    pcam_hal_caps caps;
    if (sim == NULL || sclk_khz < 20000u)
        return NULL;
    pcam_sim_i_caps(sim, &caps);
    if (caps.max_targets != 16 || caps.initiator_id != 7)
        return NULL;
    symm *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->arena = calloc(1, ARENA_SIZE);
    if (m->arena == NULL) {
        free(m);
        return NULL;
    }
    m->sim = sim;
    m->sclk_khz = sclk_khz;
    m->phase = PCAM_PHASE_BUS_FREE;
    pcam_sim_get_platform(sim, &m->simplat);
    chip_reset(m);
    return m;
}

void symm_destroy(symm *m)
{
    if (m == NULL)
        return;
    free(m->arena);
    free(m);
}

uintptr_t symm_base(const symm *m)
{
    (void)m;
    return BASE;
}

bool symm_irq(const symm *m)
{
    return irq_level(m);
}

uint64_t symm_next_time(const symm *m)
{
    return pcam_sim_next_time(m->sim);
}

void symm_advance(symm *m, uint64_t t)
{
    poll_bus(m);
    for (;;) {
        uint64_t nt = pcam_sim_next_time(m->sim);
        if (nt == UINT64_MAX || nt > t)
            break;
        pcam_sim_advance(m->sim, nt);
        poll_bus(m);
    }
    pcam_sim_advance(m->sim, t);
    poll_bus(m);
}

void symm_stats_get(const symm *m, symm_stats *out)
{
    *out = m->st;
}

uint64_t symm_errors(const symm *m)
{
    return m->errors;
}

const char *symm_last_error(const symm *m)
{
    return m->last;
}

unsigned symm_live_maps(const symm *m)
{
    unsigned n = 0;
    for (int i = 0; i < MAX_MAPS; i++)
        if (m->maps[i].used && m->maps[i].bounce)
            n++;
    return n;
}

void symm_set_verbose(symm *m, bool on)
{
    m->verbose = on;
}
