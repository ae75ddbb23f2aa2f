/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The 53C8xx SCRIPTS back-end (pcam_sym.h): chip table, attach, chip and
 * bus reset, per-target transfer settings, and the hal_cmd operations that
 * hand commands to the script.
 *
 * What a back-end of this kind must do (pcam_hal.h, hal_cmd), and where
 * this one does it:
 *  1. Identify the chip and say what it can do (get_caps): the PCI ID and
 *     revision select an entry of the chip table below.
 *  2. Reset the chip to a known state and start its script (reset_chip,
 *     sym_chip_init), forgetting every command without reporting it.
 *  3. Reset the SCSI bus on request and on its own when a target breaks the
 *     protocol, and report each reset once from poll (reset_bus).
 *  4. Take whole commands (start): map the data, build the command block
 *     (select word, IDENTIFY + tag + the core's negotiation, CDB, the
 *     scatter-gather table), put the slot in the start ring, signal SIGP.
 *  5. Report every command exactly once with pcam_bus_hal_done(), from the
 *     done ring or from the interrupt that ended it (sym_intr.c).
 *  6. Hand every message and event the script cannot decide to the core:
 *     extended messages (pcam_bus_hal_msg_in), MESSAGE REJECT
 *     (pcam_bus_hal_msg_reject), unanswered negotiation
 *     (pcam_bus_hal_nego_end), parity (pcam_bus_hal_parity) (sym_intr.c).
 *  7. Abort one command with ABORT TASK and reset a device with TARGET
 *     RESET / LOGICAL UNIT RESET when the core's ladder asks (abort,
 *     reset_dev), reporting with pcam_bus_hal_done / pcam_bus_hal_reset_done.
 *  8. Program the agreed period, offset and width per target (set_xfer).
 *  9. Touch the chip only through pcam_platform; never block, never decide
 *     policy (retries, depth, sense and escalation are the core's).
 */
#include "sym_internal.h"

typedef char sym_sc_fits[(sizeof(sym_sc) <= sizeof(((pcam_sym *)0)->priv)) ? 1 : -1];
typedef char sym_area_fits[(A_END + 256u <= PCAM_SYM_DMA_BYTES) ? 1 : -1];
typedef char sym_sg_fits[(B_SG + 8u * PCAM_SYM_MAX_SG <= B_SIZE) ? 1 : -1];
typedef char sym_slots_fit[(SYM_SLOTS * B_SIZE == A_END - A_BLOCKS) ? 1 : -1];

/*
 * The chip table. PCI device IDs, revisions and features are facts from the
 * LSI/Symbios data manuals as collected in the BSD and Linux drivers' chip
 * lists; pcam's table has only what this back-end uses.
 */
#define W PCAM_SYM_F_WIDE
#define U PCAM_SYM_F_ULTRA
#define U2 PCAM_SYM_F_ULTRA2
#define DT PCAM_SYM_F_DT
#define DB PCAM_SYM_F_DBLR
#define QD PCAM_SYM_F_QUAD
#define LS PCAM_SYM_F_LDSTR
#define RM PCAM_SYM_F_RAM
#define BF PCAM_SYM_F_BIGFIFO
static const pcam_sym_chip_info sym_chips[] = {
    {"53C810", 0x0001, 0x00, 0x0F, 0, 8, 0, 64},
    {"53C810A", 0x0001, 0x10, 0xFF, LS, 8, 0, 64},
    {"53C815", 0x0004, 0x00, 0xFF, 0, 8, 0, 64},
    {"53C820", 0x0002, 0x00, 0xFF, W, 8, 0, 64},
    {"53C825", 0x0003, 0x00, 0x0F, W, 8, 0, 64},
    {"53C825A", 0x0003, 0x10, 0xFF, W | LS | RM, 8, 4096, 88},
    {"53C860", 0x0006, 0x00, 0xFF, U | DB | LS, 8, 0, 88},
    {"53C875", 0x000F, 0x00, 0x01, W | U | LS | RM | BF, 16, 4096, 536},
    {"53C875", 0x000F, 0x02, 0xFF, W | U | DB | LS | RM | BF, 16, 4096, 536},
    {"53C875J", 0x008F, 0x00, 0xFF, W | U | DB | LS | RM | BF, 16, 4096, 536},
    {"53C885", 0x000D, 0x00, 0xFF, W | U | DB | LS | RM | BF, 16, 4096, 536},
    {"53C895", 0x000C, 0x00, 0xFF, W | U | U2 | QD | LS | RM | BF, 31, 4096, 536},
    {"53C896", 0x000B, 0x00, 0xFF, W | U | U2 | QD | LS | RM | BF, 31, 8192, 536},
    {"53C895A", 0x0012, 0x00, 0xFF, W | U | U2 | QD | LS | RM | BF, 31, 8192, 536},
    {"53C875A", 0x0013, 0x00, 0xFF, W | U | DB | LS | RM | BF, 16, 4096, 536},
    {"53C1010-33", 0x0020, 0x00, 0xFF, W | U | U2 | DT | QD | LS | RM | BF, 62, 8192, 536},
    {"53C1010-66", 0x0021, 0x00, 0xFF, W | U | U2 | DT | QD | LS | RM | BF, 62, 8192, 536},
};
#undef W
#undef U
#undef U2
#undef DT
#undef DB
#undef QD
#undef LS
#undef RM
#undef BF

const pcam_sym_chip_info *pcam_sym_chip_lookup(uint16_t device, uint8_t revision)
{
    for (size_t i = 0; i < PCAM_ARRAY_SIZE(sym_chips); i++)
        if (sym_chips[i].device == device && revision >= sym_chips[i].rev_min &&
            revision <= sym_chips[i].rev_max)
            return &sym_chips[i];
    return NULL;
}

const pcam_sym_chip_info *pcam_sym_chip_table(size_t *count)
{
    if (count != NULL)
        *count = PCAM_ARRAY_SIZE(sym_chips);
    return sym_chips;
}

static sym_sc *SC(void *v)
{
    return (sym_sc *)v;
}

/* ---- register and memory helpers ---- */

uint8_t sym_rd8(sym_sc *s, unsigned reg)
{
    s->st.reg_reads++;
    return s->p.read8(s->p.ctx, s->base + reg);
}

void sym_wr8(sym_sc *s, unsigned reg, uint8_t v)
{
    s->st.reg_writes++;
    s->p.write8(s->p.ctx, s->base + reg, v);
}

uint32_t sym_rd32(sym_sc *s, unsigned reg)
{
    s->st.reg_reads++;
    return s->p.read32(s->p.ctx, s->base + reg);
}

void sym_wr32(sym_sc *s, unsigned reg, uint32_t v)
{
    s->st.reg_writes++;
    s->p.write32(s->p.ctx, s->base + reg, v);
}

uint8_t *sym_blk(sym_sc *s, unsigned slot)
{
    return s->dma + A_BLOCKS + B_SIZE * slot;
}

uint32_t sym_blk_bus(const sym_sc *s, unsigned slot)
{
    return s->dma_bus + A_BLOCKS + B_SIZE * slot;
}

static void put_tbl(uint8_t *b, unsigned off, uint32_t count, uint32_t addr)
{
    pcam_put_le32(b + off, count & 0xFFFFFFu);
    pcam_put_le32(b + off + 4, addr);
}

/* ---- chip reset and the script ---- */

static void rings_clear(sym_sc *s)
{
    memset(s->dma + A_SQ, 0xFF, 256);
    memset(s->dma + A_DQ, 0xFF, 256);
    s->sq_idx = 0;
    s->dq_idx = 0;
}

/* Soft reset, registers, script start at INIT. The rings are empty. */
void sym_chip_init(sym_sc *s, bool kick)
{
    sym_wr8(s, R_ISTAT, ISTAT_SRST);
    if (s->p.delay_us != NULL)
        s->p.delay_us(s->p.ctx, 10);
    sym_wr8(s, R_ISTAT, 0);
    rings_clear(s);
    memset(s->dma + A_RESEL, 0, 4);
    pcam_put_le32(s->dma + A_OVR_IN, s->lbl[L_OVR_IN]);
    pcam_put_le32(s->dma + A_OVR_OUT, s->lbl[L_OVR_OUT]);
    s->dma[A_NOP] = PCAM_MSG_NO_OPERATION;
    bool par = (s->cfg_flags & PCAM_SYM_CF_NO_PARITY) == 0;
    sym_wr8(s, R_SCNTL0, (uint8_t)(SCNTL0_ARB | (par ? SCNTL0_EPC | SCNTL0_AAP : 0)));
    sym_wr8(s, R_SCNTL1, 0);
    sym_wr8(s, R_SCNTL3, s->ccf);
    sym_wr8(s, R_SXFER, 0);
    sym_wr8(s, R_SCID, (uint8_t)(SCID_RRE | (s->id & 0x0F)));
    sym_wr8(s, R_RESPID0, s->id < 8 ? (uint8_t)(1u << s->id) : 0);
    sym_wr8(s, R_RESPID1, s->id >= 8 ? (uint8_t)(1u << (s->id - 8)) : 0);
    sym_wr8(s, R_STIME0, 0x0C); /* 204.8 ms selection timeout */
    sym_wr8(s, R_DMODE, 0x80);  /* burst 8 */
    sym_wr8(s, R_DCNTL, DCNTL_COM);
    sym_wr8(s, R_DIEN, DSTAT_MDPE | DSTAT_BF | DSTAT_ABRT | DSTAT_SIR | DSTAT_IID);
    sym_wr8(s, R_SIEN0, (uint8_t)(SIST0_MA | SIST0_SGE | SIST0_UDC | SIST0_RST | (par ? SIST0_PAR : 0)));
    sym_wr8(s, R_SIEN1, SIST1_STO);
    s->conn = 0xFF;
    s->gen++;
    sym_wr32(s, R_DSP, s->lbl[kick ? L_KICK : L_INIT]);
}

void sym_free_slot(sym_sc *s, unsigned i)
{
    sym_slot *sl = &s->slot[i];
    if (sl->state != SS_FREE && s->p.dma_unmap != NULL) {
        pcam_dma_dir d = sl->dir == PCAM_DIR_OUT ? PCAM_DMA_TO_DEVICE : PCAM_DMA_FROM_DEVICE;
        for (unsigned k = 0; k < sl->nseg; k++)
            s->p.dma_unmap(s->p.ctx, sl->seg_va[k], sl->seg_len[k], d, sl->seg_bus[k]);
    }
    if (sl->state != SS_FREE && i < PCAM_SYM_MAX_CMDS && s->live > 0)
        s->live--;
    memset(sl, 0, sizeof *sl);
    sym_blk(s, i)[B_TGT] = 0xFF;
}

void sym_forget_all(sym_sc *s)
{
    for (unsigned i = 0; i < SYM_SLOTS; i++)
        sym_free_slot(s, i);
    s->live = 0;
}

void sym_report(sym_sc *s, unsigned i, uint32_t status, uint8_t scsi_status, uint32_t resid)
{
    sym_slot *sl = &s->slot[i];
    pcam_hal_cmd_result r;
    const void *h = sl->handle;
    uint8_t t = sl->target, l = sl->lun;
    bool report = sl->state == SS_LIVE && sl->kind == SK_CMD;
    sym_free_slot(s, i);
    if (!report || s->bus == NULL)
        return;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.scsi_status = scsi_status;
    r.resid = resid;
    s->st.completed++;
    (void)pcam_bus_hal_done(s->bus, h, t, l, &r);
}

/* A command's end, from what the script left in its block. */
void sym_report_slot(sym_sc *s, unsigned i)
{
    sym_slot *sl = &s->slot[i];
    const uint8_t *b = sym_blk(s, i);
    if (sl->err != 0) {
        uint32_t resid = sl->mismatch ? sl->data_len - sl->progress : sl->data_len;
        sym_report(s, i, sl->err, 0, resid);
        return;
    }
    uint32_t resid = sl->data_len;
    uint32_t ovr = sl->dir == PCAM_DIR_OUT ? s->lbl[L_OVR_OUT] : s->lbl[L_OVR_IN];
    uint32_t ent = pcam_get_le32(b + (sl->dir == PCAM_DIR_OUT ? B_OUT : B_IN));
    if (sl->dir != PCAM_DIR_NONE && ent == ovr) {
        resid = 0; /* the chain ran to its end; a wide residue byte stayed in the chip */
    } else {
        if (sl->mismatch)
            resid = sl->data_len - sl->progress;
        /* IGNORE WIDE RESIDUE: the last byte the move counted was a pad. */
        resid += sl->iwr;
        if (resid > sl->data_len)
            resid = sl->data_len;
    }
    if (b[B_OVR] != 0) {
        sym_report(s, i, PCAM_DATA_RUN_ERR, 0, 0);
        return;
    }
    sym_report(s, i, PCAM_REQ_CMP, b[B_STATUS], resid);
}

/* Put a built block in the start ring and wake the script. */
void sym_enqueue(sym_sc *s, unsigned i)
{
    volatile uint8_t *e = s->dma + A_SQ + s->sq_idx;
    /* The address bytes first: the low byte makes the entry valid. */
    e[1] = (uint8_t)(sym_blk_bus(s, i) >> 8);
    e[2] = (uint8_t)(sym_blk_bus(s, i) >> 16);
    e[3] = (uint8_t)(sym_blk_bus(s, i) >> 24);
    e[0] = 0x00;
    s->sq_idx = (uint8_t)(s->sq_idx + 4u);
    s->st.started++;
    sym_wr8(s, R_ISTAT, ISTAT_SIGP);
}

/* Our own bus reset: the target broke the protocol or a reset was asked. */
void sym_internal_bus_reset(sym_sc *s)
{
    sym_wr8(s, R_SCNTL1, SCNTL1_RST);
    if (s->p.delay_us != NULL)
        s->p.delay_us(s->p.ctx, 25);
    sym_wr8(s, R_SCNTL1, 0);
    /* Every task is gone at the targets, so the chip may be reset cleanly. */
    sym_forget_all(s);
    sym_chip_init(s, true);
    s->st.bus_resets++;
    s->ev_reset = true;
}

/* ---- synchronous transfer settings ---- */

/*
 * Period factor to SCNTL3/SXFER. The SCSI clock is divided by SCF (1, 1.5,
 * 2, 3, 4) and a period lasts XFERP (4..11) divided clocks; Ultra timing
 * (SCNTL3 bit 7) halves it on Fast-20 parts. Everything in units of
 * 1/10 ns so the 12.5 and 30.3 ns factors stay exact enough.
 */
static uint32_t factor_tenth_ns(uint8_t f)
{
    switch (f) {
    case 0x09: return 125;
    case 0x0A: return 250;
    case 0x0B: return 303;
    case 0x0C: return 500;
    default: return (uint32_t)f * 40u;
    }
}

static void sync_regs(const sym_sc *s, uint8_t factor, uint8_t offset, uint8_t *scntl3, uint8_t *sxfer)
{
    static const uint8_t scf_half[] = {2, 3, 4, 6, 8}; /* SCF 1..5 as halves of the divisor */
    uint32_t want = factor_tenth_ns(factor);
    uint32_t best = UINT32_MAX;
    uint8_t bs = 1, bx = 4;
    bool ultra = (s->chip->flags & (PCAM_SYM_F_ULTRA | PCAM_SYM_F_ULTRA2)) != 0;
    for (unsigned k = 0; k < PCAM_ARRAY_SIZE(scf_half); k++) {
        for (uint8_t x = 4; x <= 11; x++) {
            /* tenth-ns = x * div / f_MHz; div = scf_half / 2; ultra halves it */
            uint64_t num = (uint64_t)x * scf_half[k] * 10000000u;
            uint64_t den = (uint64_t)2u * s->sclk_khz * (ultra ? 2u : 1u);
            uint32_t p = (uint32_t)(num / den);
            if (p >= want && p < best) {
                best = p;
                bs = (uint8_t)(k + 1);
                bx = x;
            }
        }
    }
    *scntl3 = (uint8_t)((ultra ? SCNTL3_ULTRA : 0) | (bs << 4) | s->ccf);
    *sxfer = (uint8_t)(((bx - 4u) << 5) | (offset & 0x1F));
}

static int op_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *pp)
{
    sym_sc *s = SC(sc);
    uint8_t scntl3 = s->ccf, sxfer = 0;
    if (target >= SYM_TARGETS || pp == NULL)
        return PCAM_ERR_RANGE;
    if (pp->offset != 0 && pp->period != 0)
        sync_regs(s, pp->period, pp->offset, &scntl3, &sxfer);
    if (pp->width != 0)
        scntl3 |= SCNTL3_EWS;
    s->t_scntl3[target] = scntl3;
    s->t_sxfer[target] = sxfer;
    /* Commands already built for the target carry its mode in their select
     * word, which a reselection loads too: bring them up to date. */
    for (unsigned i = 0; i < SYM_SLOTS; i++) {
        if (s->slot[i].state == SS_FREE || s->slot[i].target != target)
            continue;
        uint8_t *b = sym_blk(s, i);
        b[B_SEL + 3] = scntl3;
        b[B_SEL + 1] = sxfer;
    }
    if (s->conn == target) {
        /* Agreed inside a connection: it applies from the next byte. */
        sym_wr8(s, R_SCNTL3, scntl3);
        sym_wr8(s, R_SXFER, sxfer);
    }
    return PCAM_OK;
}

/* ---- the ops ---- */

static void op_get_caps(void *sc, pcam_hal_caps *c)
{
    sym_sc *s = SC(sc);
    uint32_t f = s->chip->flags;
    memset(c, 0, sizeof *c);
    c->name = s->chip->name;
    c->profile = PCAM_HAL_SCRIPT_LEVEL;
    c->flags = PCAM_HAL_CAP_TAGS | PCAM_HAL_CAP_DMA;
    if ((s->cfg_flags & PCAM_SYM_CF_NO_PARITY) == 0)
        c->flags |= PCAM_HAL_CAP_PARITY;
    if ((s->cfg_flags & PCAM_SYM_CF_ASYNC) == 0) {
        c->flags |= PCAM_HAL_CAP_SYNC;
        if ((f & PCAM_SYM_F_WIDE) != 0)
            c->flags |= PCAM_HAL_CAP_WIDE;
        c->min_period = (f & PCAM_SYM_F_ULTRA2) != 0 ? 0x0A : (f & PCAM_SYM_F_ULTRA) != 0 ? 0x0C : 0x19;
        c->max_offset = s->chip->max_offset;
    }
    c->max_targets = s->ntargets;
    c->initiator_id = s->id;
    c->max_sg = PCAM_SYM_MAX_SG;
    c->max_xfer = 0xFFFFFFu;
    c->align_mask = 0;
}

static int op_reset_chip(void *sc)
{
    sym_sc *s = SC(sc);
    /* A task left at a target would reselect a chip that no longer knows
     * it (QEMU's model even asserts on that): clear the bus as well. */
    if (s->live != 0) {
        sym_wr8(s, R_SCNTL1, SCNTL1_RST);
        if (s->p.delay_us != NULL)
            s->p.delay_us(s->p.ctx, 25);
        sym_wr8(s, R_SCNTL1, 0);
    }
    sym_forget_all(s);
    sym_chip_init(s, false);
    s->ev_reset = false;
    return PCAM_OK;
}

static int op_reset_bus(void *sc)
{
    sym_internal_bus_reset(SC(sc));
    return PCAM_OK;
}

static void op_attach(void *sc, struct pcam_bus *bus)
{
    SC(sc)->bus = bus;
}

/* Round robin, so the tag of a command that just ended (or was aborted)
 * is the last to go on the wire again: a target may still be dropping it. */
static int alloc_slot(sym_sc *s)
{
    for (unsigned n = 0; n < PCAM_SYM_MAX_CMDS; n++) {
        unsigned i = (s->next_slot + n) % PCAM_SYM_MAX_CMDS;
        if (s->slot[i].state == SS_FREE) {
            s->next_slot = (uint8_t)((i + 1u) % PCAM_SYM_MAX_CMDS);
            return (int)i;
        }
    }
    return -1;
}

/* Select word, message and status tables common to every block. */
static void block_header(sym_sc *s, unsigned i, uint8_t target, uint8_t msg_len, uint32_t after_mo)
{
    uint8_t *b = sym_blk(s, i);
    uint32_t bb = sym_blk_bus(s, i);
    pcam_put_le32(b + B_SEL, ((uint32_t)s->t_scntl3[target] << 24) | ((uint32_t)target << 16) |
                             ((uint32_t)s->t_sxfer[target] << 8));
    pcam_put_le32(b + B_AFTER_MO, after_mo);
    pcam_put_le32(b + B_IN, s->lbl[L_OVR_IN]);
    pcam_put_le32(b + B_OUT, s->lbl[L_OVR_OUT]);
    put_tbl(b, B_T_MSGOUT, msg_len, bb + B_MSGOUT);
    put_tbl(b, B_T_STATUS, 1, bb + B_STATUS);
    put_tbl(b, B_T_MSGIN, 1, bb + B_MSGIN);
    put_tbl(b, B_T_EXTLEN, 1, bb + B_MSGIN + 1);
    put_tbl(b, B_T_EXTBODY, 0, bb + B_MSGIN + 2);
    b[B_SLOT] = (uint8_t)i;
    b[B_TGT] = (uint8_t)(0x80u | target);
    b[B_OVR] = 0;
    b[B_STATUS] = 0xFF;
}

static int map_data(sym_sc *s, sym_slot *sl, const pcam_hal_cmd *cmd)
{
    pcam_sg one;
    const pcam_sg *sg = cmd->sg;
    unsigned n = cmd->sg_count;
    pcam_dma_dir d = cmd->dir == PCAM_DIR_OUT ? PCAM_DMA_TO_DEVICE : PCAM_DMA_FROM_DEVICE;
    if (cmd->dir == PCAM_DIR_NONE || cmd->data_len == 0)
        return PCAM_OK;
    if (n == 0) {
        one.addr = cmd->data;
        one.len = cmd->data_len;
        sg = &one;
        n = 1;
    }
    if (n > PCAM_SYM_MAX_SG || sg == NULL)
        return PCAM_ERR_RANGE;
    uint32_t left = cmd->data_len;
    for (unsigned k = 0; k < n && left > 0; k++) {
        uint32_t len = sg[k].len < left ? sg[k].len : left;
        uint64_t bus = 0;
        if (len == 0)
            continue;
        if (len > 0xFFFFFFu || sg[k].addr == NULL)
            return PCAM_ERR_RANGE;
        if (s->p.dma_map(s->p.ctx, sg[k].addr, len, d, &bus) != 0 || bus > 0xFFFFFFFFu - len)
            return PCAM_ERR_RANGE;
        sl->seg_va[sl->nseg] = sg[k].addr;
        sl->seg_len[sl->nseg] = len;
        sl->seg_bus[sl->nseg] = (uint32_t)bus;
        sl->nseg++;
        left -= len;
    }
    if (left != 0)
        return PCAM_ERR_RANGE; /* the list is shorter than data_len */
    return PCAM_OK;
}

static int op_start(void *sc, const pcam_hal_cmd *cmd)
{
    sym_sc *s = SC(sc);
    if (cmd == NULL || cmd->cdb == NULL)
        return PCAM_ERR_NULL;
    if (cmd->target >= s->ntargets || cmd->target == s->id || cmd->cdb_len == 0 ||
        cmd->cdb_len > 16 || cmd->lun > 7)
        return PCAM_ERR_RANGE;
    int i = alloc_slot(s);
    if (i < 0)
        return PCAM_ERR_NOSPACE;
    sym_slot *sl = &s->slot[i];
    memset(sl, 0, sizeof *sl);
    sl->state = SS_LIVE;
    sl->kind = SK_CMD;
    sl->handle = cmd->handle;
    sl->target = cmd->target;
    sl->lun = cmd->lun;
    sl->dir = (uint8_t)cmd->dir;
    sl->data_len = cmd->dir == PCAM_DIR_NONE ? 0 : cmd->data_len;
    s->live++;
    if (s->live > s->st.max_outstanding)
        s->st.max_outstanding = s->live;
    int rc = map_data(s, sl, cmd);
    if (rc != PCAM_OK) {
        sym_free_slot(s, (unsigned)i);
        return rc;
    }

    uint8_t *b = sym_blk(s, (unsigned)i);
    uint8_t msg[16];
    bool plain = (cmd->flags & PCAM_HAL_CMD_CORE_SENSE) != 0;
    bool disc = !plain && (cmd->flags & PCAM_HAL_CMD_DISCONNECT) != 0;
    int n = pcam_msg_build_identify(msg, sizeof msg, cmd->lun, disc);
    if (n < 0)
        n = 1, msg[0] = (uint8_t)(0x80u | cmd->lun);
    sl->last_msg = msg[0];
    if (!plain && cmd->tag_msg >= PCAM_MSG_SIMPLE_TAG && cmd->tag_msg <= PCAM_MSG_ORDERED_TAG) {
        msg[n++] = cmd->tag_msg;
        msg[n++] = (uint8_t)i; /* the slot is the wire tag */
        sl->tag_msg = cmd->tag_msg;
        sl->last_msg = cmd->tag_msg;
    }
    uint32_t after = s->lbl[L_CMD];
    if (!plain && s->bus != NULL) {
        int k = pcam_bus_hal_nego_start(s->bus, cmd->target, msg + n, sizeof msg - (size_t)n);
        if (k > 0) {
            n += k;
            sl->nego = true;
            sl->last_msg = PCAM_MSG_EXTENDED;
            after = s->lbl[L_NEGO_CHECK];
        }
    }
    block_header(s, (unsigned)i, cmd->target, (uint8_t)n, after);
    memcpy(b + B_MSGOUT, msg, (size_t)n);
    memcpy(b + B_CDB, cmd->cdb, cmd->cdb_len);
    put_tbl(b, B_T_CMD, cmd->cdb_len, sym_blk_bus(s, (unsigned)i) + B_CDB);
    /* The chain is entered at the element that makes the last one line up
     * with its end. */
    unsigned first = PCAM_SYM_MAX_SG - sl->nseg;
    for (unsigned k = 0; k < sl->nseg; k++)
        put_tbl(b, B_SG + 8u * (first + k), sl->seg_len[k], sl->seg_bus[k]);
    if (sl->nseg != 0) {
        unsigned chain = sl->dir == PCAM_DIR_OUT ? L_CHAIN_OUT : L_CHAIN_IN;
        pcam_put_le32(b + (sl->dir == PCAM_DIR_OUT ? B_OUT : B_IN), s->lbl[chain] + 8u * first);
    }
    sym_enqueue(s, (unsigned)i);
    return PCAM_OK;
}

static bool slot_in_ring(const sym_sc *s, unsigned i)
{
    uint32_t want = sym_blk_bus(s, i);
    for (unsigned k = 0; k < 256; k += 4)
        if (pcam_get_le32(s->dma + A_SQ + k) == want)
            return true;
    return false;
}

static int find_handle(const sym_sc *s, const void *h)
{
    for (unsigned i = 0; i < PCAM_SYM_MAX_CMDS; i++)
        if (s->slot[i].state == SS_LIVE && s->slot[i].handle == h)
            return (int)i;
    return -1;
}

/* A management block: IDENTIFY (+ the victim's tag) + one message, then bus free. */
static void mgmt_block(sym_sc *s, unsigned slot, uint8_t target, uint8_t lun, uint8_t tag_msg,
                       uint8_t tag, uint8_t m)
{
    uint8_t *b = sym_blk(s, slot);
    uint8_t n = 0;
    b[B_MSGOUT + n++] = (uint8_t)(0x80u | (lun & 7u));
    if (tag_msg != 0) {
        b[B_MSGOUT + n++] = PCAM_MSG_SIMPLE_TAG;
        b[B_MSGOUT + n++] = tag;
    }
    b[B_MSGOUT + n++] = m;
    block_header(s, slot, target, n, s->lbl[L_MGMT]);
}

static int op_abort(void *sc, const void *handle)
{
    sym_sc *s = SC(sc);
    int v = find_handle(s, handle);
    if (v < 0)
        return PCAM_ERR_RANGE;
    sym_slot *a = &s->slot[SYM_ABORT_SLOT];
    if (a->state != SS_FREE)
        return PCAM_OK; /* one at a time: the core's timer escalates */
    const sym_slot *vs = &s->slot[v];
    memset(a, 0, sizeof *a);
    a->state = SS_LIVE;
    a->kind = SK_ABORT;
    a->target = vs->target;
    a->lun = vs->lun;
    a->victim = (uint8_t)v;
    mgmt_block(s, SYM_ABORT_SLOT, vs->target, vs->lun, vs->tag_msg, (uint8_t)v, PCAM_MSG_ABORT_TASK);
    /* The victim went out before this block (the ring is in order): it is
     * disconnected at the target, or finished. */
    sym_enqueue(s, SYM_ABORT_SLOT);
    return PCAM_OK;
}

static int op_reset_dev(void *sc, uint8_t target, uint8_t lun, bool lun_reset)
{
    sym_sc *s = SC(sc);
    if (target >= s->ntargets || lun > 7)
        return PCAM_ERR_RANGE;
    sym_slot *r = &s->slot[SYM_RESET_SLOT];
    if (r->state != SS_FREE)
        return PCAM_ERR_NOSPACE;
    memset(r, 0, sizeof *r);
    r->state = SS_LIVE;
    r->kind = SK_RESET;
    r->target = target;
    r->lun = lun;
    r->lun_reset = lun_reset;
    mgmt_block(s, SYM_RESET_SLOT, target, lun, 0, 0,
               lun_reset ? PCAM_MSG_LOGICAL_UNIT_RESET : PCAM_MSG_TARGET_RESET);
    sym_enqueue(s, SYM_RESET_SLOT);
    return PCAM_OK;
}

/* The device reset went through: its tasks are gone. Commands of that
 * target still waiting in the start ring run later; the core has taken them
 * back, so they become zombies whose end is dropped. */
void sym_mgmt_reset_done(sym_sc *s, uint32_t status)
{
    bool ok = status == PCAM_REQ_CMP;
    sym_slot *r = &s->slot[SYM_RESET_SLOT];
    uint8_t t = r->target, l = r->lun;
    bool lr = r->lun_reset;
    sym_free_slot(s, SYM_RESET_SLOT);
    if (ok) {
        for (unsigned i = 0; i < PCAM_SYM_MAX_CMDS; i++) {
            sym_slot *sl = &s->slot[i];
            if (sl->state != SS_LIVE || sl->target != t || (lr && sl->lun != l))
                continue;
            if (slot_in_ring(s, i))
                sl->state = SS_ZOMBIE;
            else
                sym_free_slot(s, i);
        }
    }
    if (s->bus != NULL)
        (void)pcam_bus_hal_reset_done(s->bus, t, l, lr, status);
}

static const pcam_hal_ops sym_ops = {
    .get_caps = op_get_caps,
    .reset_chip = op_reset_chip,
    .reset_bus = op_reset_bus,
    .set_xfer = op_set_xfer,
    .poll = sym_poll,
};

static const pcam_hal_cmd_ops sym_cmd_ops = {
    .attach = op_attach,
    .start = op_start,
    .abort = op_abort,
    .reset_dev = op_reset_dev,
};

/* Say which part was refused and why: an embedder that bound a pre-A
 * 53C810 or 53C825 (their PCI IDs are the A parts') sees the reason, not
 * only PCAM_ERR_UNSUPPORTED. */
static void refuse_log(const pcam_platform *plat, const pcam_sym_chip_info *chip, const pcam_sym_config *cfg)
{
    char line[200];
    pcam_strbuf sb;

    if (plat->log == NULL)
        return;
    pcam_sb_init(&sb, line, sizeof line);
    pcam_sb_puts(&sb, "sym: ");
    pcam_sb_puts(&sb, chip != NULL ? chip->name : "unknown chip");
#if PCAM_CFG_TEXT
    pcam_sb_puts(&sb, " (PCI 1000:");
    pcam_sb_puthex(&sb, cfg->pci_device, 4);
    pcam_sb_puts(&sb, " rev 0x");
    pcam_sb_puthex(&sb, cfg->pci_revision, 2);
#else
    (void)cfg; /* no number formatting in this configuration */
    pcam_sb_puts(&sb, " (PCI 1000:?");
#endif
    pcam_sb_puts(&sb, chip != NULL ? ") has no LOAD/STORE, which pcam's SCRIPTS need (the A parts and later have them); not attached"
                                   : ") is not in hal/sym's chip table; not attached");
    plat->log(plat->ctx, PCAM_LOG_ERROR, line);
}

pcam_err pcam_sym_attach_abi(size_t sc_size, pcam_sym *storage, const pcam_sym_config *cfg,
                             const pcam_platform *plat, pcam_hal *out)
{
    if (sc_size != sizeof(pcam_sym))
        return PCAM_ERR_ABI; /* storage from other headers: not ours to write */
    if (storage == NULL || cfg == NULL || plat == NULL || out == NULL || cfg->dma_va == NULL)
        return PCAM_ERR_NULL;
    if (plat->now_ns == NULL || plat->read8 == NULL || plat->write8 == NULL ||
        plat->read32 == NULL || plat->write32 == NULL || plat->dma_map == NULL)
        return PCAM_ERR_NULL;
    const pcam_sym_chip_info *chip = pcam_sym_chip_lookup(cfg->pci_device, cfg->pci_revision);
    if (chip == NULL || (chip->flags & PCAM_SYM_F_LDSTR) == 0) {
        refuse_log(plat, chip, cfg);
        return PCAM_ERR_UNSUPPORTED; /* pcam's script needs LOAD and STORE */
    }
    uint8_t ntargets = (chip->flags & PCAM_SYM_F_WIDE) != 0 ? 16 : 8;
    uint32_t clk = cfg->clock_khz != 0 ? cfg->clock_khz : 40000u;
    if (cfg->initiator_id >= ntargets || clk < 20000u || clk > 80000u)
        return PCAM_ERR_RANGE;
    uintptr_t va = (uintptr_t)cfg->dma_va;
    uint64_t pad = (256u - (cfg->dma_bus & 0xFFu)) & 0xFFu;
    if (cfg->dma_len < PCAM_SYM_DMA_BYTES || cfg->dma_bus + pad + A_END > 0xFFFFFFFFull)
        return PCAM_ERR_RANGE;

    sym_sc *s = (sym_sc *)(void *)storage;
    memset(storage, 0, sizeof *storage);
    s->p = *plat;
    s->base = cfg->base;
    s->chip = chip;
    s->cfg_flags = cfg->flags;
    s->id = cfg->initiator_id;
    s->ntargets = ntargets;
    s->dma = (uint8_t *)(va + (uintptr_t)pad);
    s->dma_bus = (uint32_t)(cfg->dma_bus + pad);
    /* The doubler/quadrupler raise a 40 MHz input to the core clock. */
    s->sclk_khz = clk * ((chip->flags & PCAM_SYM_F_QUAD) != 0 ? 4u : (chip->flags & PCAM_SYM_F_DBLR) != 0 ? 2u : 1u);
    /* SCNTL3 CCF: the divider that brings the clock to 25..37.5 MHz for
     * asynchronous timing (1: /1 16.67-25, 2: /1.5, 3: /2, 4: /3, 5: /4, 6: /6, 7: /8). */
    s->ccf = s->sclk_khz <= 25000u ? 1 : s->sclk_khz <= 37500u ? 2 : s->sclk_khz <= 50000u ? 3
           : s->sclk_khz <= 75000u ? 4 : s->sclk_khz <= 100000u ? 5 : s->sclk_khz <= 150000u ? 6 : 7;
    for (unsigned t = 0; t < SYM_TARGETS; t++)
        s->t_scntl3[t] = s->ccf;
    memset(s->dma, 0, A_END);
    int rc = sym_script_build(s);
    if (rc != PCAM_OK)
        return (pcam_err)rc;
    for (unsigned i = 0; i < SYM_SLOTS; i++)
        sym_blk(s, i)[B_TGT] = 0xFF;
    s->attached = true;
    sym_chip_init(s, false);
    out->ops = &sym_ops;
    out->cmd = &sym_cmd_ops;
    out->sc = s;
    return PCAM_OK;
}

const pcam_sym_chip_info *pcam_sym_get_chip(const pcam_sym *sc)
{
    const sym_sc *s = (const sym_sc *)(const void *)sc;
    return s != NULL && s->attached ? s->chip : NULL;
}

void pcam_sym_get_stats(const pcam_sym *sc, pcam_sym_stats *out)
{
    const sym_sc *s = (const sym_sc *)(const void *)sc;
    if (out == NULL)
        return;
    if (s == NULL) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->st;
}

size_t pcam_sym_script_bytes(const pcam_sym *sc)
{
    const sym_sc *s = (const sym_sc *)(const void *)sc;
    return s != NULL && s->attached ? (size_t)s->script_words * 4u : 0;
}

void pcam_sym_stop(pcam_sym *sc)
{
    sym_sc *s = (sym_sc *)(void *)sc;
    if (s == NULL || !s->attached)
        return;
    /* A soft reset halts SCRIPTS and clears the interrupt enables, so the
     * chip neither fetches from nor writes into the DMA area any more. */
    sym_wr8(s, R_ISTAT, ISTAT_SRST);
    if (s->p.delay_us != NULL)
        s->p.delay_us(s->p.ctx, 10);
    sym_wr8(s, R_ISTAT, 0);
    s->attached = false;
}
