/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Fusion-MPT back-end (pcam_mpt.h): attach, the ops tables, and the
 * hal_cmd operations that turn the core's commands into MPI request frames.
 *
 * What a back-end of this kind must do (pcam_hal.h, hal_cmd), and where
 * this one does it:
 *  1. Bring the adapter up and say what it can do (get_caps): the doorbell
 *     handshake for IOC FACTS, PORT FACTS and IOC INIT, the reply free
 *     queue, PORT ENABLE and event notification (mpt_ioc.c), in the
 *     embedder's DMA area, sized and checked at attach.
 *  2. Reset the adapter to a known state (reset_chip): a message unit
 *     reset, a hard reset when that does not bring it back, then the whole
 *     bring-up again, forgetting every command without reporting it.
 *  3. Reset the SCSI bus on request (reset_bus: a RESET BUS task
 *     management request) and report each reset once from poll, the IOC's
 *     own bus reset events included.
 *  4. Take whole commands (start): map the data, build the SCSI IO frame
 *     (target, LUN, the task attribute the core chose, CDB up to 16 bytes,
 *     scatter-gather in the frame and a chain buffer, a sense buffer) and
 *     post it to the request FIFO.
 *  5. Report every command exactly once with pcam_bus_hal_done(), from a
 *     context reply or an address reply (status, residual, autosense);
 *     replies that name no live command, lie about their length or come in
 *     frames that are not ours are refused with a log line (mpt_reply.c).
 *  6. Abort one command with ABORT TASK and reset a device with TARGET
 *     RESET / LOGICAL UNIT RESET task management (abort, reset_dev),
 *     reporting with pcam_bus_hal_done / pcam_bus_hal_reset_done.
 *  7. Find a faulted IOC and make the core reset it (poll's GROSS_ERROR);
 *     wait for nothing unboundedly: a silent IOC is the core's timer's
 *     business, whose ladder ends in reset_chip.
 *  8. Hand the core what events say: bus resets as BUS_RESET; a device
 *     added or not responding, and the IOC's rescan request, with
 *     pcam_bus_hal_device_changed(), which marks it lost or scans it.
 *  9. Touch the IOC only through pcam_platform; never block, never decide
 *     policy (retries, depth, sense use and escalation are the core's).
 */
#include "mpt_internal.h"

typedef char mpt_sc_fits[(sizeof(mpt_sc) <= sizeof(((pcam_mpt *)0)->priv)) ? 1 : -1];
typedef char mpt_area_fits[(A_END + 128u <= PCAM_MPT_DMA_BYTES) ? 1 : -1];
typedef char mpt_chain_fits[((PCAM_MPT_MAX_SG - (FRAME_SGES - 1u)) * SGE_BYTES <= CHAIN_BYTES) ? 1 : -1];

static mpt_sc *SC(void *v)
{
    return (mpt_sc *)v;
}

/* ---- registers, fields, log ---- */

uint32_t mpt_rd(mpt_sc *s, unsigned reg)
{
    s->st.reg_reads++;
    return s->p.read32(s->p.ctx, s->base + reg);
}

void mpt_wr(mpt_sc *s, unsigned reg, uint32_t v)
{
    s->st.reg_writes++;
    s->p.write32(s->p.ctx, s->base + reg, v);
}

void mpt_log(mpt_sc *s, pcam_log_level lv, const char *what, uint32_t value)
{
    char line[128];
    pcam_strbuf sb;
    if (s->p.log == NULL)
        return;
    pcam_sb_init(&sb, line, sizeof line);
    pcam_sb_puts(&sb, "mpt: ");
    pcam_sb_puts(&sb, what);
    pcam_sb_puts(&sb, " 0x");
    pcam_sb_puthex(&sb, value, 1);
    s->p.log(s->p.ctx, lv, line);
}

uint8_t *mpt_frame(mpt_sc *s, unsigned slot)
{
    return s->dma + A_FRAMES + FRAME_BYTES * slot;
}

uint32_t mpt_frame_bus(const mpt_sc *s, unsigned slot)
{
    return (uint32_t)(s->dma_bus + A_FRAMES + FRAME_BYTES * slot);
}

/* ---- slots ---- */

void mpt_free_slot(mpt_sc *s, unsigned i)
{
    mpt_slot *sl = &s->slot[i];
    uint16_t gen = sl->gen;
    if (sl->state != SL_FREE && s->p.dma_unmap != NULL) {
        pcam_dma_dir d = sl->dir == PCAM_DIR_OUT ? PCAM_DMA_TO_DEVICE : PCAM_DMA_FROM_DEVICE;
        for (unsigned k = 0; k < sl->nseg; k++)
            s->p.dma_unmap(s->p.ctx, sl->seg_va[k], sl->seg_len[k], d, sl->seg_bus[k]);
    }
    if (sl->state != SL_FREE && i < PCAM_MPT_MAX_CMDS && s->live > 0)
        s->live--;
    memset(sl, 0, sizeof *sl);
    /* A reply still on its way for the old use names the old generation. */
    sl->gen = (uint16_t)((gen + 1u) & CTX_GEN_MASK);
}

void mpt_forget_all(mpt_sc *s)
{
    for (unsigned i = 0; i < MPT_SLOTS; i++)
        mpt_free_slot(s, i);
    s->live = 0;
    s->ack_pending = false;
}

void mpt_post(mpt_sc *s, unsigned slot)
{
    mpt_wr(s, R_REQ_FIFO, mpt_frame_bus(s, slot));
}

/* ---- the ops ---- */

static void op_get_caps(void *sc, pcam_hal_caps *c)
{
    mpt_sc *s = SC(sc);
    memset(c, 0, sizeof *c);
    c->name = "SAS1068";
    c->profile = PCAM_HAL_COMMAND_LEVEL;
    c->flags = PCAM_HAL_CAP_TAGS | PCAM_HAL_CAP_DMA | PCAM_HAL_CAP_AUTOSENSE;
    c->max_targets = s->ntargets;
    c->initiator_id = s->id;
    c->max_sg = s->facts.max_chain_depth != 0 ? PCAM_MPT_MAX_SG : FRAME_SGES;
    c->max_xfer = SGE_LEN_MASK;
    c->align_mask = 0;
}

static int op_reset_chip(void *sc)
{
    mpt_sc *s = SC(sc);
    mpt_forget_all(s);
    s->ev_reset = false;
    s->ev_gross = false;
    return mpt_ioc_bringup(s);
}

static bool ioc_operational(mpt_sc *s)
{
    uint32_t db = mpt_rd(s, R_DOORBELL);
    if ((db & DB_STATE_MASK) == DB_OPERATIONAL)
        return true;
    if ((db & DB_STATE_MASK) == DB_FAULT) {
        s->st.last_fault = db & DB_DATA_MASK;
        if (!s->fault_logged) {
            s->st.faults++;
            mpt_log(s, PCAM_LOG_ERROR, "IOC faulted, code", db & DB_DATA_MASK);
        }
        s->fault_logged = true;
    } else {
        mpt_log(s, PCAM_LOG_ERROR, "IOC not operational, doorbell", db);
    }
    return false;
}

/* A task management frame (52 bytes). */
static void tm_frame(mpt_sc *s, unsigned slot, uint8_t target, uint8_t lun, uint8_t type,
                     uint32_t task_ctx)
{
    uint8_t *f = mpt_frame(s, slot);
    memset(f, 0, FRAME_BYTES);
    f[IO_TARGET] = target;
    f[M_FUNCTION] = F_TASK_MGMT;
    f[TM_TYPE] = type;
    pcam_put_le32(f + M_CONTEXT, CTX(slot, s->slot[slot].gen));
    f[TM_LUN + 1] = lun;
    pcam_put_le32(f + TM_TASK_CONTEXT, task_ctx);
    s->st.task_mgmt++;
}

static int op_reset_bus(void *sc)
{
    mpt_sc *s = SC(sc);
    mpt_slot *r = &s->slot[S_BUSRESET];
    /* A faulted IOC takes no request: the core's timer goes on to reset_chip. */
    if (r->state != SL_FREE || !ioc_operational(s))
        return PCAM_OK;
    r->state = SL_LIVE;
    tm_frame(s, S_BUSRESET, 0, 0, TM_RESET_BUS, 0);
    mpt_post(s, S_BUSRESET);
    return PCAM_OK;
}

static int op_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *pp)
{
    /* The IOC negotiates the link itself: nothing to program. */
    if (target >= SC(sc)->ntargets || pp == NULL)
        return PCAM_ERR_RANGE;
    return PCAM_OK;
}

static void op_attach(void *sc, struct pcam_bus *bus)
{
    SC(sc)->bus = bus;
}

/* Round robin, so a slot that just ended is the last to be reused. */
static int alloc_slot(mpt_sc *s)
{
    if (s->live >= s->credits)
        return -1;
    for (unsigned n = 0; n < PCAM_MPT_MAX_CMDS; n++) {
        unsigned i = (s->next_slot + n) % PCAM_MPT_MAX_CMDS;
        if (s->slot[i].state == SL_FREE) {
            s->next_slot = (uint8_t)((i + 1u) % PCAM_MPT_MAX_CMDS);
            return (int)i;
        }
    }
    return -1;
}

static int map_data(mpt_sc *s, mpt_slot *sl, const pcam_hal_cmd *cmd, unsigned max_sg)
{
    pcam_sg one;
    const pcam_sg *sg = cmd->sg;
    unsigned n = cmd->sg_count;
    pcam_dma_dir d = cmd->dir == PCAM_DIR_OUT ? PCAM_DMA_TO_DEVICE : PCAM_DMA_FROM_DEVICE;
    if (cmd->dir == PCAM_DIR_NONE || cmd->data_len == 0)
        return PCAM_OK;
    if (cmd->data_len > SGE_LEN_MASK)
        return PCAM_ERR_RANGE;
    if (n == 0) {
        one.addr = cmd->data;
        one.len = cmd->data_len;
        sg = &one;
        n = 1;
    }
    if (sg == NULL)
        return PCAM_ERR_NULL;
    uint32_t left = cmd->data_len;
    for (unsigned k = 0; k < n && left > 0; k++) {
        uint32_t len = sg[k].len < left ? sg[k].len : left;
        uint64_t bus = 0;
        if (len == 0)
            continue;
        if (sl->nseg >= max_sg || sg[k].addr == NULL)
            return PCAM_ERR_RANGE;
        if (s->p.dma_map(s->p.ctx, sg[k].addr, len, d, &bus) != 0)
            return PCAM_ERR_RANGE;
        /* Counted even when out of reach, so the unmap below undoes it. */
        sl->seg_va[sl->nseg] = sg[k].addr;
        sl->seg_len[sl->nseg] = len;
        sl->seg_bus[sl->nseg] = (uint32_t)bus;
        sl->nseg++;
        if (bus > 0xFFFFFFFFu - len)
            return PCAM_ERR_RANGE;
        left -= len;
    }
    return left == 0 ? PCAM_OK : PCAM_ERR_RANGE; /* the list is shorter than data_len */
}

static void put_sge(uint8_t *p, uint32_t flags_len, uint32_t addr)
{
    pcam_put_le32(p, flags_len);
    pcam_put_le32(p + 4, addr);
}

/* The scatter-gather list: in the frame while it fits, else the first
 * FRAME_SGES - 1 there, the last of them ending the segment, then a chain
 * element at the frame's end pointing at the slot's chain buffer. */
static void build_sgl(mpt_sc *s, unsigned i, uint8_t *f)
{
    const mpt_slot *sl = &s->slot[i];
    uint32_t dirf = sl->dir == PCAM_DIR_OUT ? SGE_HOST_TO_IOC : 0;
    const uint32_t end = SGE_LAST | SGE_EOB | SGE_EOL;
    if (sl->nseg == 0) {
        put_sge(f + IO_SGL, SGE_SIMPLE | end, 0); /* an empty list still has one element */
        return;
    }
    unsigned in_frame = sl->nseg <= FRAME_SGES ? sl->nseg : FRAME_SGES - 1u;
    for (unsigned k = 0; k < in_frame; k++) {
        uint32_t fl = SGE_SIMPLE | dirf | sl->seg_len[k];
        if (k + 1u == sl->nseg)
            fl |= end;
        else if (k + 1u == in_frame)
            fl |= SGE_LAST;
        put_sge(f + IO_SGL + SGE_BYTES * k, fl, sl->seg_bus[k]);
    }
    if (in_frame == sl->nseg)
        return;
    uint8_t *c = s->dma + A_CHAINS + CHAIN_BYTES * i;
    uint32_t cbus = (uint32_t)(s->dma_bus + A_CHAINS + CHAIN_BYTES * i);
    unsigned rest = sl->nseg - in_frame;
    unsigned at = IO_SGL + SGE_BYTES * in_frame;
    f[IO_CHAIN_OFFSET] = (uint8_t)(at / 4u);
    put_sge(f + at, SGE_CHAIN | (rest * SGE_BYTES), cbus);
    for (unsigned k = 0; k < rest; k++) {
        uint32_t fl = SGE_SIMPLE | dirf | sl->seg_len[in_frame + k];
        if (k + 1u == rest)
            fl |= end;
        put_sge(c + SGE_BYTES * k, fl, sl->seg_bus[in_frame + k]);
    }
}

static uint32_t task_attr(const pcam_hal_cmd *cmd)
{
    if ((cmd->flags & PCAM_HAL_CMD_CORE_SENSE) != 0)
        return CTL_UNTAGGED;
    switch (cmd->tag_msg) {
    case 0x20: return CTL_SIMPLEQ;
    case 0x21: return CTL_HEADOFQ;
    case 0x22: return CTL_ORDEREDQ;
    default: return CTL_UNTAGGED;
    }
}

static int op_start(void *sc, const pcam_hal_cmd *cmd)
{
    mpt_sc *s = SC(sc);
    if (cmd == NULL || cmd->cdb == NULL)
        return PCAM_ERR_NULL;
    if (cmd->target >= s->ntargets || cmd->target == s->id || cmd->cdb_len == 0 ||
        cmd->cdb_len > 16)
        return PCAM_ERR_RANGE;
    int i = alloc_slot(s);
    if (i < 0)
        return PCAM_ERR_NOSPACE;
    mpt_slot *sl = &s->slot[i];
    sl->state = SL_LIVE;
    sl->handle = cmd->handle;
    sl->target = cmd->target;
    sl->lun = cmd->lun;
    sl->dir = (uint8_t)cmd->dir;
    sl->data_len = cmd->dir == PCAM_DIR_NONE ? 0 : cmd->data_len;
    sl->autosense = (cmd->flags & PCAM_HAL_CMD_AUTOSENSE) != 0 && cmd->sense != NULL;
    sl->sense = cmd->sense;
    sl->sense_cap = cmd->sense_len;
    s->live++;
    if (s->live > s->st.max_outstanding)
        s->st.max_outstanding = s->live;
    pcam_hal_caps caps;
    op_get_caps(s, &caps);
    int rc = map_data(s, sl, cmd, caps.max_sg);
    if (rc != PCAM_OK) {
        mpt_free_slot(s, (unsigned)i);
        return rc;
    }
    uint8_t *f = mpt_frame(s, (unsigned)i);
    memset(f, 0, FRAME_BYTES);
    f[IO_TARGET] = cmd->target;
    f[M_FUNCTION] = F_SCSI_IO;
    f[IO_CDB_LEN] = cmd->cdb_len;
    f[IO_SENSE_LEN] = SENSE_BYTES;
    pcam_put_le32(f + M_CONTEXT, CTX(i, sl->gen));
    f[IO_LUN + 1] = cmd->lun; /* single-level LUN */
    uint32_t ctl = task_attr(cmd);
    if (sl->data_len != 0)
        ctl |= sl->dir == PCAM_DIR_OUT ? CTL_WRITE : CTL_READ;
    pcam_put_le32(f + IO_CONTROL, ctl);
    memcpy(f + IO_CDB, cmd->cdb, cmd->cdb_len);
    pcam_put_le32(f + IO_DATA_LEN, sl->data_len);
    pcam_put_le32(f + IO_SENSE_LO, (uint32_t)(s->dma_bus + A_SENSE + SENSE_BYTES * (unsigned)i));
    build_sgl(s, (unsigned)i, f);
    s->st.started++;
    mpt_post(s, (unsigned)i);
    return PCAM_OK;
}

static int find_handle(const mpt_sc *s, const void *h)
{
    for (unsigned i = 0; i < PCAM_MPT_MAX_CMDS; i++)
        if (s->slot[i].state == SL_LIVE && s->slot[i].handle == h)
            return (int)i;
    return -1;
}

static int op_abort(void *sc, const void *handle)
{
    mpt_sc *s = SC(sc);
    int v = find_handle(s, handle);
    if (v < 0)
        return PCAM_ERR_RANGE;
    mpt_slot *a = &s->slot[S_ABORT];
    /* One at a time, and none to a faulted IOC: the core's timer escalates. */
    if (a->state != SL_FREE || !ioc_operational(s))
        return PCAM_OK;
    mpt_slot *vs = &s->slot[v];
    a->state = SL_LIVE;
    a->victim = (uint8_t)v;
    a->target = vs->target;
    a->lun = vs->lun;
    vs->abort_asked = true;
    tm_frame(s, S_ABORT, vs->target, vs->lun, TM_ABORT_TASK, CTX(v, vs->gen));
    mpt_post(s, S_ABORT);
    return PCAM_OK;
}

static int op_reset_dev(void *sc, uint8_t target, uint8_t lun, bool lun_reset)
{
    mpt_sc *s = SC(sc);
    if (target >= s->ntargets)
        return PCAM_ERR_RANGE;
    mpt_slot *r = &s->slot[S_RESET];
    if (r->state != SL_FREE)
        return PCAM_ERR_NOSPACE;
    if (!ioc_operational(s))
        return PCAM_OK;
    r->state = SL_LIVE;
    r->target = target;
    r->lun = lun;
    r->lun_reset = lun_reset;
    tm_frame(s, S_RESET, target, lun, lun_reset ? TM_LUN_RESET : TM_TARGET_RESET, 0);
    mpt_post(s, S_RESET);
    return PCAM_OK;
}

static const pcam_hal_ops mpt_ops = {
    .get_caps = op_get_caps,
    .reset_chip = op_reset_chip,
    .reset_bus = op_reset_bus,
    .set_xfer = op_set_xfer,
    .poll = mpt_poll,
};

static const pcam_hal_cmd_ops mpt_cmd_ops = {
    .attach = op_attach,
    .start = op_start,
    .abort = op_abort,
    .reset_dev = op_reset_dev,
};

pcam_err pcam_mpt_attach_abi(size_t sc_size, pcam_mpt *storage, const pcam_mpt_config *cfg,
                             const pcam_platform *plat, pcam_hal *out)
{
    if (sc_size != sizeof(pcam_mpt))
        return PCAM_ERR_ABI; /* storage from other headers: not ours to write */
    if (storage == NULL || cfg == NULL || plat == NULL || out == NULL || cfg->dma_va == NULL)
        return PCAM_ERR_NULL;
    if (plat->now_ns == NULL || plat->read32 == NULL || plat->write32 == NULL || plat->dma_map == NULL)
        return PCAM_ERR_NULL;
    if (cfg->max_targets != 0 && cfg->max_targets != 8 && cfg->max_targets != 16)
        return PCAM_ERR_RANGE;
    uint64_t pad = (128u - (cfg->dma_bus & 0x7Fu)) & 0x7Fu;
    uint64_t first = cfg->dma_bus + pad, last = first + A_END - 1u;
    /* Frames and sense buffers share the high 32 bits the IOC is told once. */
    if (cfg->dma_len < PCAM_MPT_DMA_BYTES || last < first || (first >> 32) != (last >> 32))
        return PCAM_ERR_RANGE;

    mpt_sc *s = (mpt_sc *)(void *)storage;
    memset(storage, 0, sizeof *storage);
    s->p = *plat;
    s->base = cfg->base;
    s->dma = (uint8_t *)((uintptr_t)cfg->dma_va + (uintptr_t)pad);
    s->dma_bus = first;
    s->want_targets = cfg->max_targets != 0 ? cfg->max_targets : 16;
    memset(s->dma, 0, A_END);
    int rc = mpt_ioc_bringup(s);
    if (rc != PCAM_OK)
        return (pcam_err)rc;
    s->attached = true;
    out->ops = &mpt_ops;
    out->cmd = &mpt_cmd_ops;
    out->sc = s;
    return PCAM_OK;
}

void pcam_mpt_get_facts(const pcam_mpt *sc, pcam_mpt_facts *out)
{
    const mpt_sc *s = (const mpt_sc *)(const void *)sc;
    if (out == NULL)
        return;
    if (s == NULL || !s->attached) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->facts;
}

void pcam_mpt_get_stats(const pcam_mpt *sc, pcam_mpt_stats *out)
{
    const mpt_sc *s = (const mpt_sc *)(const void *)sc;
    if (out == NULL)
        return;
    if (s == NULL) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->st;
}

void pcam_mpt_stop(pcam_mpt *sc)
{
    mpt_sc *s = (mpt_sc *)(void *)sc;
    if (s == NULL || !s->attached)
        return;
    mpt_ioc_quiesce(s);
    mpt_forget_all(s);
    s->attached = false;
}
