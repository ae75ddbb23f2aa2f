/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The 53C8xx interrupt path: the done ring (many commands per interrupt),
 * and every script stop: phase mismatch inside a data move (residual and
 * pointer fix-up), messages for the core, untagged reselection, selection
 * timeout, parity, resets and chip errors. Each stop ends by restarting the
 * script at the place that fits. No policy here: the core decides through
 * the pcam_bus_hal_*() entry points.
 */
#include "sym_internal.h"

/* Restart the stopped script at `label`, unless a call into the core
 * reset the chip meanwhile (its script is already running again). */
static void restart(sym_sc *s, unsigned label)
{
    s->conn = 0xFF;
    if (s->gen != s->stop_gen)
        return;
    sym_wr32(s, R_DSP, s->lbl[label]);
}

static void drain_done(sym_sc *s)
{
    for (unsigned n = 0; n < 256; n++) {
        uint8_t e = s->dma[A_DQ + s->dq_idx];
        if (e == 0xFF)
            break;
        s->dma[A_DQ + s->dq_idx] = 0xFF;
        s->dq_idx++;
        if (e >= SYM_SLOTS)
            continue;
        if (s->slot[e].state == SS_ZOMBIE) {
            sym_free_slot(s, e);
            continue;
        }
        if (s->slot[e].state == SS_LIVE && s->slot[e].kind == SK_CMD)
            sym_report_slot(s, e);
    }
}

/* The slot DSA names, or -1. */
static int dsa_slot(sym_sc *s)
{
    uint32_t dsa = sym_rd32(s, R_DSA);
    uint32_t base = sym_blk_bus(s, 0);
    if (dsa < base || dsa >= base + SYM_SLOTS * B_SIZE || ((dsa - base) & (B_SIZE - 1)) != 0)
        return -1;
    return (int)((dsa - base) / B_SIZE);
}

/* A phase change in the middle of a data move: what moved, and where the
 * move continues when the target comes back to data. */
static void data_mismatch(sym_sc *s, int i, uint32_t insn)
{
    sym_slot *sl = &s->slot[i];
    uint8_t *b = sym_blk(s, (unsigned)i);
    bool out = insn >= s->lbl[L_CHAIN_OUT] && insn < s->lbl[L_CHAIN_OUT_END];
    uint32_t chain = out ? s->lbl[L_CHAIN_OUT] : s->lbl[L_CHAIN_IN];
    unsigned k = (insn - chain) / 8u;
    unsigned first = PCAM_SYM_MAX_SG - sl->nseg;
    uint32_t rem = sym_rd32(s, R_DBC) & 0xFFFFFFu;
    if (out) {
        /* Bytes the chip fetched but the target never took. */
        bool big = (s->chip->flags & PCAM_SYM_F_BIGFIFO) != 0;
        uint32_t fifo = sym_rd8(s, R_DFIFO);
        if (big)
            fifo |= (uint32_t)(sym_rd8(s, R_CTEST5) & 3u) << 8;
        rem += (fifo - (rem & (big ? 0x3FFu : 0x7Fu))) & (big ? 0x3FFu : 0x7Fu);
        uint8_t ss0 = sym_rd8(s, R_SSTAT0);
        rem += (ss0 & SSTAT0_OLF) != 0 ? 1u : 0u;
        rem += (ss0 & SSTAT0_ORF) != 0 ? 1u : 0u;
        sym_wr8(s, R_CTEST3, CTEST3_CLF);
        sym_wr8(s, R_STEST3, STEST3_CSF);
    }
    s->st.mismatches++;
    if (k < first || k >= PCAM_SYM_MAX_SG || (sl->dir == PCAM_DIR_OUT) != out) {
        sl->err = PCAM_DATA_RUN_ERR;
        return;
    }
    uint32_t cnt = pcam_get_le32(b + B_SG + 8u * k) & 0xFFFFFFu;
    uint32_t addr = pcam_get_le32(b + B_SG + 8u * k + 4u);
    if (rem > cnt)
        rem = cnt;
    uint32_t moved = 0;
    for (unsigned j = first; j < k; j++)
        moved += sl->seg_len[j - first];
    moved += sl->seg_len[k - first] - rem;
    sl->progress = moved;
    sl->mismatch = true;
    pcam_put_le32(b + B_SG + 8u * k, rem);
    pcam_put_le32(b + B_SG + 8u * k + 4u, addr + (cnt - rem));
    pcam_put_le32(b + (out ? B_OUT : B_IN), rem != 0 ? chain + 8u * k : chain + 8u * (k + 1u));
    if (rem == 0 && k + 1u == PCAM_SYM_MAX_SG)
        pcam_put_le32(b + (out ? B_OUT : B_IN), s->lbl[out ? L_OVR_OUT : L_OVR_IN]);
}

/* Send `n` message bytes from the block's message-out buffer, in this connection. */
static void reply(sym_sc *s, int i, const uint8_t *m, int n, unsigned label)
{
    uint8_t *b = sym_blk(s, (unsigned)i);
    uint32_t bb = sym_blk_bus(s, (unsigned)i);
    if (n > 16)
        n = 16;
    memcpy(b + B_MSGOUT, m, (size_t)n);
    pcam_put_le32(b + B_T_MSGOUT, (uint32_t)n);
    pcam_put_le32(b + B_T_MSGOUT + 4, bb + B_MSGOUT);
    s->slot[i].last_msg = m[0];
    restart(s, label);
}

/* Fail the connected command and take it off the bus with ABORT TASK. */
static void abort_connected(sym_sc *s, int i, uint32_t err)
{
    static const uint8_t abt = PCAM_MSG_ABORT_TASK;
    s->slot[i].err = err;
    reply(s, i, &abt, 1, L_REPLY_ABORT);
}

static void resel_untagged(sym_sc *s)
{
    uint8_t t = sym_rd8(s, R_SSID) & 0x0F;
    uint8_t lun = s->dma[A_RESEL] & 7u;
    for (unsigned i = 0; i < PCAM_SYM_MAX_CMDS; i++) {
        const sym_slot *sl = &s->slot[i];
        if ((sl->state == SS_LIVE || sl->state == SS_ZOMBIE) && sl->kind == SK_CMD &&
            sl->target == t && sl->lun == lun && sl->tag_msg == 0) {
            s->st.resel_host++;
            sym_wr32(s, R_DSA, sym_blk_bus(s, i));
            sym_wr8(s, R_SCNTL3, s->t_scntl3[t]);
            sym_wr8(s, R_SXFER, s->t_sxfer[t]);
            restart(s, L_DISPATCH);
            return;
        }
    }
    sym_internal_bus_reset(s); /* a reselection nobody asked for */
}

/* The script stopped with INT code. */
static void script_int(sym_sc *s, uint32_t code)
{
    int i = dsa_slot(s);
    uint8_t next[16];
    if (code == SIR_RESEL_UNTAGGED) {
        resel_untagged(s);
        return;
    }
    if (i < 0 || s->slot[i].state == SS_FREE) {
        sym_internal_bus_reset(s);
        return;
    }
    sym_slot *sl = &s->slot[i];
    uint8_t *b = sym_blk(s, (unsigned)i);
    s->conn = sl->target;
    switch (code) {
    case SIR_NEGO_NOANSWER:
        sl->nego = false;
        pcam_bus_hal_nego_end(s->bus, sl->target, true);
        restart(s, L_CMD);
        return;
    case SIR_EXT: {
        uint8_t len = b[B_MSGIN + 1];
        int n = pcam_bus_hal_msg_in(s->bus, sl->target, sl->lun, b + B_MSGIN, (size_t)len + 2u, next,
                                    sizeof next);
        sl->nego = false;
        if (n > 0)
            reply(s, i, next, n, L_REPLY);
        else
            restart(s, L_ACK_GO);
        return;
    }
    case SIR_REJECT: {
        uint8_t rej = sl->last_msg;
        int n = pcam_bus_hal_msg_reject(s->bus, sl->target, rej, next, sizeof next);
        if (rej == PCAM_MSG_EXTENDED)
            sl->nego = false;
        if (rej >= PCAM_MSG_SIMPLE_TAG && rej <= PCAM_MSG_ORDERED_TAG)
            sl->tag_msg = 0; /* the target runs it untagged and reselects so */
        if (n > 0)
            reply(s, i, next, n, L_REPLY);
        else
            restart(s, L_ACK_GO);
        return;
    }
    case SIR_IWR:
        sl->iwr = (uint8_t)(sl->iwr + 1u);
        s->st.wide_residues++;
        restart(s, L_ACK_GO);
        return;
    case SIR_RESTORE: {
        /* Back to the pointer the command started with: pcam keeps no
         * saved pointer apart from the current one (see README). */
        unsigned first = PCAM_SYM_MAX_SG - sl->nseg;
        for (unsigned k = 0; k < sl->nseg; k++) {
            pcam_put_le32(b + B_SG + 8u * (first + k), sl->seg_len[k]);
            pcam_put_le32(b + B_SG + 8u * (first + k) + 4u, sl->seg_bus[k]);
        }
        if (sl->nseg != 0) {
            unsigned chain = sl->dir == PCAM_DIR_OUT ? L_CHAIN_OUT : L_CHAIN_IN;
            pcam_put_le32(b + (sl->dir == PCAM_DIR_OUT ? B_OUT : B_IN), s->lbl[chain] + 8u * first);
        }
        sl->mismatch = false;
        sl->progress = 0;
        restart(s, L_ACK_GO);
        return;
    }
    case SIR_MSGIN_OTHER: {
        int n = pcam_bus_hal_msg_in(s->bus, sl->target, sl->lun, b + B_MSGIN, 1, next, sizeof next);
        if (n > 0)
            reply(s, i, next, n, L_REPLY);
        else
            restart(s, L_ACK_GO);
        return;
    }
    case SIR_MGMT_DONE:
        if (sl->kind == SK_ABORT) {
            unsigned v = sl->victim;
            sym_free_slot(s, (unsigned)i);
            drain_done(s); /* it may have finished before the abort got there */
            if (s->slot[v].state == SS_LIVE)
                sym_report(s, v, PCAM_REQ_ABORTED, 0, s->slot[v].data_len);
        } else if (sl->kind == SK_RESET) {
            sym_mgmt_reset_done(s, PCAM_REQ_CMP);
        }
        restart(s, L_IDLE);
        return;
    case SIR_MGMT_REJECTED:
        /* The target kept its tasks: the core's ladder goes on (a device
         * reset after a refused abort, a bus reset after a refused reset). */
        if (sl->kind == SK_RESET)
            sym_mgmt_reset_done(s, PCAM_MSG_REJECT_REC);
        else
            sym_free_slot(s, (unsigned)i);
        restart(s, L_IDLE);
        return;
    case SIR_ABORTED:
        if (sl->kind == SK_CMD)
            sym_report_slot(s, (unsigned)i);
        else
            sym_free_slot(s, (unsigned)i);
        restart(s, L_IDLE);
        return;
    case SIR_EXT_BAD:
    case SIR_RESEL_BAD:
    case SIR_BAD_PHASE:
    default:
        sym_internal_bus_reset(s);
        return;
    }
}

static void sel_timeout(sym_sc *s)
{
    int i = dsa_slot(s);
    s->st.sel_timeouts++;
    if (i >= 0) {
        sym_slot *sl = &s->slot[i];
        if (sl->kind == SK_RESET && sl->state == SS_LIVE) {
            sym_mgmt_reset_done(s, PCAM_SEL_TIMEOUT); /* no such device, not a refusal */
        } else if (sl->kind == SK_CMD && sl->state == SS_LIVE) {
            if (sl->nego)
                pcam_bus_hal_nego_end(s->bus, sl->target, false);
            sym_report(s, (unsigned)i, PCAM_SEL_TIMEOUT, 0, sl->data_len);
        } else {
            sym_free_slot(s, (unsigned)i);
        }
    }
    sym_wr8(s, R_CTEST3, CTEST3_CLF);
    restart(s, L_IDLE);
}

static void scsi_int(sym_sc *s, uint8_t sist0, uint8_t sist1)
{
    if ((sist0 & SIST0_RST) != 0) {
        /* Ours or another device's: every task is gone. */
        sym_forget_all(s);
        sym_chip_init(s, true);
        s->st.bus_resets++;
        s->ev_reset = true;
        return;
    }
    if ((sist1 & SIST1_STO) != 0) {
        sel_timeout(s);
        return;
    }
    if ((sist0 & SIST0_SGE) != 0) {
        s->ev_gross = true;
        return;
    }
    int i = dsa_slot(s);
    if ((sist0 & SIST0_UDC) != 0) {
        if (i >= 0 && s->slot[i].kind == SK_CMD)
            sym_report(s, (unsigned)i, PCAM_UNEXP_BUSFREE, 0, s->slot[i].data_len);
        else if (i >= 0)
            sym_free_slot(s, (unsigned)i);
        restart(s, L_IDLE);
        return;
    }
    if (i < 0 || s->slot[i].state == SS_FREE) {
        sym_internal_bus_reset(s);
        return;
    }
    if ((sist0 & SIST0_PAR) != 0) {
        uint32_t at = sym_rd32(s, R_DSP);
        if (at > s->lbl[L_RESEL] && at <= s->lbl[L_RESEL_BAD] + 8u) {
            /* Bad parity on a reselection's IDENTIFY or tag: which task
             * this is cannot be known, so nothing can be aborted. */
            pcam_bus_hal_parity(s->bus, (uint8_t)(sym_rd8(s, R_SSID) & 0x0F));
            sym_internal_bus_reset(s);
            return;
        }
        pcam_bus_hal_parity(s->bus, s->slot[i].target);
        uint8_t dcmd = sym_rd8(s, R_DCMD);
        if ((dcmd & 0xC0u) == 0 && (dcmd & 7u) == PCAM_PHASE_MSG_IN) {
            /* In a message: MESSAGE PARITY ERROR, and the target sends the
             * whole message again (an SDTR answer must not be half-taken). */
            static const uint8_t mpe = PCAM_MSG_MESSAGE_PARITY_ERROR;
            reply(s, i, &mpe, 1, L_REPLY);
            return;
        }
        abort_connected(s, i, PCAM_UNCOR_PARITY);
        return;
    }
    if ((sist0 & SIST0_MA) != 0) {
        uint32_t insn = sym_rd32(s, R_DSP) - 8u;
        s->conn = s->slot[i].target;
        if (insn >= s->lbl[L_CHAIN_IN] && insn < s->lbl[L_CHAIN_OUT_END] &&
            !(insn >= s->lbl[L_CHAIN_IN_END] && insn < s->lbl[L_CHAIN_OUT]))
            data_mismatch(s, i, insn);
        if (s->slot[i].err != 0) {
            abort_connected(s, i, s->slot[i].err);
            return;
        }
        /* Wherever it was, the dispatcher follows the target's new phase. */
        sym_wr8(s, R_CTEST3, CTEST3_CLF);
        restart(s, L_DISPATCH);
    }
}

static int take_event(sym_sc *s, pcam_hal_event *ev)
{
    if (!s->ev_reset && !s->ev_gross)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->type = s->ev_reset ? PCAM_HAL_EV_BUS_RESET : PCAM_HAL_EV_GROSS_ERROR;
    ev->phase = PCAM_PHASE_BUS_FREE;
    ev->target = 0xFF;
    s->ev_reset = false;
    s->ev_gross = false;
    return 1;
}

/* One pass per call: the interrupt line is level-triggered, so a cause that
 * arrives while this one is handled keeps it raised and brings the shim
 * back; not re-reading ISTAT saves a register access per interrupt. */
int sym_poll(void *sc, pcam_hal_event *ev)
{
    sym_sc *s = (sym_sc *)sc;
    if (take_event(s, ev))
        return 1;
    uint8_t istat = sym_rd8(s, R_ISTAT);
    if ((istat & (ISTAT_DIP | ISTAT_SIP | ISTAT_INTF)) == 0)
        return 0;
    s->st.interrupts++;
    if ((istat & ISTAT_INTF) != 0) {
        /* An ISTAT write replaces SIGP too (QEMU's model does): keep a
         * signal the script has not taken yet, as read above (only this
         * side sets SIGP, under the bus lock, so it cannot appear between
         * the read and the write). Setting it unasked would wake a waiting
         * script to look at an empty start ring: about 9 SCRIPTS
         * instructions run inside this write on every interrupt. */
        sym_wr8(s, R_ISTAT, (uint8_t)(ISTAT_INTF | (istat & ISTAT_SIGP)));
        uint64_t before = s->st.completed;
        drain_done(s);
        if (s->st.completed != before)
            s->st.done_batches++;
    }
    if ((istat & (ISTAT_DIP | ISTAT_SIP)) != 0) {
        s->st.script_irqs++;
        s->stop_gen = s->gen;
        drain_done(s); /* completions before the stop are reported first */
        uint8_t dstat = 0, sist0 = 0, sist1 = 0;
        if ((istat & ISTAT_SIP) != 0) {
            sist0 = sym_rd8(s, R_SIST0);
            sist1 = sym_rd8(s, R_SIST1);
        }
        if ((istat & ISTAT_DIP) != 0)
            dstat = sym_rd8(s, R_DSTAT);
        if ((sist0 | sist1) != 0)
            scsi_int(s, sist0, sist1);
        else if ((dstat & DSTAT_SIR) != 0)
            script_int(s, sym_rd32(s, R_DSPS));
        else if ((dstat & (DSTAT_IID | DSTAT_BF | DSTAT_MDPE | DSTAT_ABRT)) != 0)
            s->ev_gross = true;
    }
    return take_event(s, ev);
}
