/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The virtio-scsi back-end (pcam_virtio.h): attach, the ops tables, the
 * capability parser, and the hal_cmd operations that turn the core's
 * commands into virtqueue requests.
 *
 * What a back-end of this kind must do (pcam_hal.h, hal_cmd), and where
 * this one does it:
 *  1. Bring the device up and say what it can do (get_caps): reset it,
 *     negotiate VERSION_1, INDIRECT_DESC and HOTPLUG, set the control,
 *     event and first request queue in the embedder's DMA area (sized and
 *     checked at attach), lend the event buffers, DRIVER_OK
 *     (virtio_ring.c). Find the registers from the PCI capabilities
 *     (pcam_virtio_parse_caps, for the embedder).
 *  2. Reset the adapter to a known state (reset_chip): a device reset and
 *     the whole bring-up again, forgetting every command without reporting.
 *  3. Reset the SCSI bus on request (reset_bus): virtio has no bus reset
 *     function, and a device reset resets every logical unit behind it
 *     (QEMU's virtio_scsi_reset resets its SCSI bus), so it is that, then
 *     the bring-up, reported once from poll as BUS_RESET.
 *  4. Take whole commands (start): map the data, build the request header
 *     (LUN address, tag, the task attribute the core chose, CDB up to 16
 *     bytes), the slot's indirect table (header, data out, response, data
 *     in), one ring descriptor, the available ring, the doorbell.
 *  5. Report every command exactly once with pcam_bus_hal_done(), from its
 *     used entry (response code, status, residual, sense); entries that
 *     name no request in flight, carry a length that cannot be, or an
 *     index past what was made available are refused with a log line
 *     (virtio_ring.c).
 *  6. Abort one command with ABORT TASK and reset a device with I_T NEXUS
 *     RESET (virtio's target reset) or LOGICAL UNIT RESET on the control
 *     queue (abort, reset_dev), reporting with pcam_bus_hal_done /
 *     pcam_bus_hal_reset_done.
 *  7. Find a device that needs a reset or rings that went wrong and make
 *     the core reset it (poll's GROSS_ERROR); wait for nothing unboundedly.
 *  8. Hand the core what events say: hot add and removal are counted and
 *     logged (the contract has no entry point for device changes yet:
 *     docs/virtio.md), lost events likewise; each buffer is lent again.
 *  9. Touch the device only through pcam_platform; never block, never
 *     decide policy (retries, depth, sense use and escalation are the core's).
 */
#include "virtio_internal.h"

typedef char vio_sc_fits[(sizeof(vio_sc) <= sizeof(((pcam_virtio *)0)->priv)) ? 1 : -1];
typedef char vio_area_fits[(A_END + 64u <= PCAM_VIRTIO_DMA_BYTES) ? 1 : -1];
typedef char vio_slots_fit[(PCAM_VIRTIO_MAX_CMDS <= 256u) ? 1 : -1];
typedef char vio_req_fits[(REQ_BYTES <= S_RESP && S_RESP + RESP_BYTES <= S_IND) ? 1 : -1];
typedef char vio_events_fit[(QN_EVT <= 8u) ? 1 : -1]; /* one bit each in ev_lent */

static vio_sc *SC(void *v)
{
    return (vio_sc *)v;
}

void vio_log(vio_sc *s, pcam_log_level lv, const char *what, uint32_t value)
{
    char line[128];
    pcam_strbuf sb;
    if (s->p.log == NULL)
        return;
    pcam_sb_init(&sb, line, sizeof line);
    pcam_sb_puts(&sb, "virtio: ");
    pcam_sb_puts(&sb, what);
    pcam_sb_puts(&sb, " 0x");
    pcam_sb_puthex(&sb, value, 1);
    s->p.log(s->p.ctx, lv, line);
}

/* ---- capabilities ---- */

pcam_err pcam_virtio_parse_caps(const uint8_t *cfg, size_t len, pcam_virtio_caps *out)
{
    bool have[5] = {false, false, false, false, false};
    if (cfg == NULL || out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (len < 64)
        return PCAM_ERR_FORMAT;
    if ((pcam_get_le16(cfg + 6) & 0x10u) == 0) /* Status: capability list */
        return PCAM_ERR_UNSUPPORTED;
    unsigned at = cfg[0x34] & 0xFCu;
    /* A list has at most (256 - 64) / 4 entries: more is a loop. */
    for (unsigned n = 0; at != 0; n++) {
        if (n >= 48 || at < 0x40 || at + 2u > len)
            return PCAM_ERR_FORMAT;
        unsigned next = cfg[at + 1] & 0xFCu;
        if (cfg[at] == CAP_VNDR) {
            if (at + 16u > len || cfg[at + 2] < 16u)
                return PCAM_ERR_FORMAT;
            unsigned type = cfg[at + CAPF_TYPE];
            pcam_virtio_region r;
            r.bar = cfg[at + CAPF_BAR];
            r.offset = pcam_get_le32(cfg + at + CAPF_OFFSET);
            r.length = pcam_get_le32(cfg + at + CAPF_LENGTH);
            if (type >= CAP_COMMON && type <= CAP_DEVICE && r.bar <= 5 && !have[type]) {
                if (type == CAP_NOTIFY) {
                    if (cfg[at + 2] < 20u || at + 20u > len)
                        return PCAM_ERR_FORMAT;
                    out->notify_mult = pcam_get_le32(cfg + at + CAPF_MULT);
                }
                have[type] = true;
                if (type == CAP_COMMON)
                    out->common = r;
                else if (type == CAP_NOTIFY)
                    out->notify = r;
                else if (type == CAP_ISR)
                    out->isr = r;
                else
                    out->device = r;
            }
        }
        at = next;
    }
    if (!have[CAP_COMMON] || !have[CAP_NOTIFY] || !have[CAP_ISR] || !have[CAP_DEVICE])
        return PCAM_ERR_UNSUPPORTED;
    /* Regions too small for what is read from them. */
    if (out->common.length < CC_Q_USED + 8u || out->isr.length < 1u ||
        out->device.length < DC_MAX_LUN + 4u || out->notify.length < 2u)
        return PCAM_ERR_FORMAT;
    return PCAM_OK;
}

/* ---- slots ---- */

void vio_free_slot(vio_sc *s, unsigned i)
{
    vio_slot *sl = &s->slot[i];
    uint16_t gen = sl->gen;
    if (sl->state != SL_FREE && s->p.dma_unmap != NULL) {
        pcam_dma_dir d = sl->dir == PCAM_DIR_OUT ? PCAM_DMA_TO_DEVICE : PCAM_DMA_FROM_DEVICE;
        for (unsigned k = 0; k < sl->nseg; k++)
            s->p.dma_unmap(s->p.ctx, sl->seg_va[k], sl->seg_len[k], d, sl->seg_bus[k]);
    }
    if ((sl->state == SL_LIVE || sl->state == SL_HELD) && s->live > 0)
        s->live--;
    memset(sl, 0, sizeof *sl);
    /* A used entry still on its way for the old use names the old generation. */
    sl->gen = (uint16_t)(gen + 1u);
}

void vio_forget_all(vio_sc *s)
{
    for (unsigned i = 0; i < PCAM_VIRTIO_MAX_CMDS; i++)
        vio_free_slot(s, i);
    s->live = 0;
    memset(s->tm, 0, sizeof s->tm);
    s->reset_query = false;
}

/* ---- the ops ---- */

static void op_get_caps(void *sc, pcam_hal_caps *c)
{
    vio_sc *s = SC(sc);
    memset(c, 0, sizeof *c);
    c->name = "virtio-scsi";
    c->profile = PCAM_HAL_COMMAND_LEVEL;
    c->flags = PCAM_HAL_CAP_TAGS | PCAM_HAL_CAP_DMA | PCAM_HAL_CAP_AUTOSENSE;
    c->max_targets = s->ntargets;
    c->initiator_id = s->id;
    c->max_sg = (uint16_t)(s->facts.seg_max < PCAM_VIRTIO_MAX_SG ? s->facts.seg_max : PCAM_VIRTIO_MAX_SG);
    uint64_t mx = (uint64_t)s->facts.max_sectors * 512u;
    c->max_xfer = mx > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)mx;
    c->align_mask = 0;
}

static int op_reset_chip(void *sc)
{
    vio_sc *s = SC(sc);
    vio_forget_all(s);
    s->ev_reset = false;
    s->ev_gross = false;
    return vio_bringup(s);
}

static int op_reset_bus(void *sc)
{
    vio_sc *s = SC(sc);
    uint8_t rq[AN_BYTES];
    vio_log(s, PCAM_LOG_WARN, "bus reset: device reset, live commands", s->live);
    vio_forget_all(s);
    if (vio_bringup(s) != PCAM_OK) {
        s->ev_gross = true; /* the core's ladder goes on to reset_chip */
        return PCAM_OK;
    }
    /* A device reset raises no interrupt, and the core learns of the bus
     * reset from poll: the device's answer to a query (asynchronous
     * notification, nothing subscribed) is the interrupt that ends it. */
    memset(rq, 0, sizeof rq);
    pcam_put_le32(rq, T_AN_QUERY);
    vio_put_lun(rq + AN_LUN, 0, 0);
    s->reset_query = true;
    vio_send_ctl(s, TM_QUERY, rq, AN_BYTES, AN_RESP_BYTES);
    return PCAM_OK;
}

static int op_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *pp)
{
    /* There is no wire: nothing to program. */
    if (target >= SC(sc)->ntargets || pp == NULL)
        return PCAM_ERR_RANGE;
    return PCAM_OK;
}

static void op_attach(void *sc, struct pcam_bus *bus)
{
    SC(sc)->bus = bus;
}

/* Round robin, so a slot that just ended is the last to be reused. */
static int alloc_slot(vio_sc *s)
{
    for (unsigned n = 0; n < PCAM_VIRTIO_MAX_CMDS; n++) {
        unsigned i = (s->next_slot + n) % PCAM_VIRTIO_MAX_CMDS;
        if (s->slot[i].state == SL_FREE) {
            s->next_slot = (uint8_t)((i + 1u) % PCAM_VIRTIO_MAX_CMDS);
            return (int)i;
        }
    }
    return -1;
}

static int map_data(vio_sc *s, vio_slot *sl, const pcam_hal_cmd *cmd, unsigned max_sg)
{
    pcam_sg one;
    const pcam_sg *sg = cmd->sg;
    unsigned n = cmd->sg_count;
    pcam_dma_dir d = cmd->dir == PCAM_DIR_OUT ? PCAM_DMA_TO_DEVICE : PCAM_DMA_FROM_DEVICE;
    if (sl->data_len == 0)
        return PCAM_OK;
    if (n == 0) {
        one.addr = cmd->data;
        one.len = cmd->data_len;
        sg = &one;
        n = 1;
    }
    if (sg == NULL)
        return PCAM_ERR_NULL;
    uint32_t left = sl->data_len;
    for (unsigned k = 0; k < n && left > 0; k++) {
        uint32_t len = sg[k].len < left ? sg[k].len : left;
        uint64_t bus = 0;
        if (len == 0)
            continue;
        if (sl->nseg >= max_sg || sg[k].addr == NULL)
            return PCAM_ERR_RANGE;
        if (s->p.dma_map(s->p.ctx, sg[k].addr, len, d, &bus) != 0)
            return PCAM_ERR_RANGE;
        sl->seg_va[sl->nseg] = sg[k].addr;
        sl->seg_len[sl->nseg] = len;
        sl->seg_bus[sl->nseg] = bus;
        sl->nseg++;
        left -= len;
    }
    return left == 0 ? PCAM_OK : PCAM_ERR_RANGE; /* the list is shorter than data_len */
}

void vio_put_desc(uint8_t *d, uint64_t addr, uint32_t len, uint16_t flags, uint16_t next)
{
    pcam_put_le32(d + D_ADDR, (uint32_t)addr);
    pcam_put_le32(d + D_ADDR + 4, (uint32_t)(addr >> 32));
    pcam_put_le32(d + D_LEN, len);
    d[D_FLAGS] = (uint8_t)flags;
    d[D_FLAGS + 1] = (uint8_t)(flags >> 8);
    d[D_NEXT] = (uint8_t)next;
    d[D_NEXT + 1] = (uint8_t)(next >> 8);
}

/* The single-level LUN address of virtio-scsi: 1, target, flat LUN. */
void vio_put_lun(uint8_t *p, uint8_t target, uint8_t lun)
{
    memset(p, 0, 8);
    p[0] = 1;
    p[1] = target;
    p[2] = 0x40;
    p[3] = lun;
}

static uint8_t task_attr(const pcam_hal_cmd *cmd)
{
    /* virtio has no untagged task: SIMPLE is the nearest (and what the
     * device uses for the core's own REQUEST SENSE). */
    if ((cmd->flags & PCAM_HAL_CMD_CORE_SENSE) != 0)
        return ATTR_SIMPLE;
    switch (cmd->tag_msg) {
    case 0x21: return ATTR_HEAD;
    case 0x22: return ATTR_ORDERED;
    default: return ATTR_SIMPLE;
    }
}

/* Fill slot i's request header and indirect table; returns the table's entries. */
static unsigned build(vio_sc *s, unsigned i, const pcam_hal_cmd *cmd)
{
    vio_slot *sl = &s->slot[i];
    uint8_t *base = s->dma + A_SLOTS + SLOT_BYTES * i;
    uint64_t bbus = s->dma_bus + A_SLOTS + SLOT_BYTES * i;
    uint8_t *rq = base + S_REQ, *ind = base + S_IND;
    memset(base, 0, S_IND);
    vio_put_lun(rq + RQ_LUN, cmd->target, cmd->lun);
    pcam_put_le32(rq + RQ_TAG, TAG(i, sl->gen));
    rq[RQ_ATTR] = task_attr(cmd);
    memcpy(rq + RQ_CDB, cmd->cdb, cmd->cdb_len);
    /* Device-readable first (header, data out), then device-writable
     * (response, data in): the order 5.6.6 requires. */
    unsigned n = 0;
    uint16_t wr = sl->dir == PCAM_DIR_IN ? DF_WRITE : 0;
    vio_put_desc(ind + DESC_BYTES * n, bbus + S_REQ, REQ_BYTES, DF_NEXT, (uint16_t)(n + 1u));
    n++;
    if (sl->dir == PCAM_DIR_OUT)
        for (unsigned k = 0; k < sl->nseg; k++, n++)
            vio_put_desc(ind + DESC_BYTES * n, sl->seg_bus[k], sl->seg_len[k], DF_NEXT, (uint16_t)(n + 1u));
    bool more = sl->dir == PCAM_DIR_IN && sl->nseg != 0;
    vio_put_desc(ind + DESC_BYTES * n, bbus + S_RESP, RESP_BYTES, (uint16_t)(DF_WRITE | (more ? DF_NEXT : 0)),
             more ? (uint16_t)(n + 1u) : 0);
    n++;
    if (sl->dir == PCAM_DIR_IN)
        for (unsigned k = 0; k < sl->nseg; k++, n++)
            vio_put_desc(ind + DESC_BYTES * n, sl->seg_bus[k], sl->seg_len[k],
                     (uint16_t)(wr | (k + 1u < sl->nseg ? DF_NEXT : 0)), (uint16_t)(n + 1u));
    if (sl->dir == PCAM_DIR_IN && sl->nseg != 0) /* the last has no successor */
        ind[DESC_BYTES * (n - 1u) + D_NEXT] = 0;
    return n;
}

static int op_start(void *sc, const pcam_hal_cmd *cmd)
{
    vio_sc *s = SC(sc);
    if (cmd == NULL || cmd->cdb == NULL)
        return PCAM_ERR_NULL;
    if (cmd->target >= s->ntargets || cmd->target == s->id || cmd->cdb_len == 0 || cmd->cdb_len > 16)
        return PCAM_ERR_RANGE;
    if (s->q[Q_REQ].size == 0)
        return PCAM_ERR_RANGE; /* a bring-up failed: no ring to put it on */
    int i = alloc_slot(s);
    if (i < 0)
        return PCAM_ERR_NOSPACE;
    vio_slot *sl = &s->slot[i];
    sl->state = SL_LIVE;
    sl->handle = cmd->handle;
    sl->target = cmd->target;
    sl->lun = cmd->lun;
    sl->dir = (uint8_t)(cmd->data_len == 0 ? PCAM_DIR_NONE : cmd->dir);
    sl->data_len = sl->dir == PCAM_DIR_NONE ? 0 : cmd->data_len;
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
        vio_free_slot(s, (unsigned)i);
        return rc;
    }
    unsigned n = build(s, (unsigned)i, cmd);
    uint8_t *d = s->q[Q_REQ].ring + DESC_BYTES * (unsigned)i;
    vio_put_desc(d, s->dma_bus + A_SLOTS + SLOT_BYTES * (unsigned)i + S_IND, n * DESC_BYTES, DF_INDIRECT, 0);
    s->st.started++;
    vio_push(s, Q_REQ, (uint16_t)i);
    return PCAM_OK;
}

static int find_handle(const vio_sc *s, const void *h)
{
    for (unsigned i = 0; i < PCAM_VIRTIO_MAX_CMDS; i++)
        if (s->slot[i].state == SL_LIVE && s->slot[i].handle == h)
            return (int)i;
    return -1;
}

/* A control request k: head 2k, its request then its response (two descriptors). */
void vio_send_ctl(vio_sc *s, unsigned k, const uint8_t *req, uint32_t req_len, uint32_t resp_len)
{
    uint8_t *b = s->dma + A_TM + TM_BYTES * k;
    uint64_t bus = s->dma_bus + A_TM + TM_BYTES * k;
    uint8_t *ring = s->q[Q_CTL].ring;
    memset(b, 0, TM_BYTES);
    memcpy(b, req, req_len);
    b[TM_RESP] = 0xFF; /* no answer yet */
    vio_put_desc(ring + DESC_BYTES * (2u * k), bus, req_len, DF_NEXT, (uint16_t)(2u * k + 1u));
    vio_put_desc(ring + DESC_BYTES * (2u * k + 1u), bus + TM_RESP, resp_len, DF_WRITE, 0);
    s->tm[k].live = true;
    vio_push(s, Q_CTL, (uint16_t)(2u * k));
}

static void send_tmf(vio_sc *s, unsigned k, uint8_t subtype, uint8_t target, uint8_t lun, uint32_t tag)
{
    uint8_t rq[TMF_BYTES];
    memset(rq, 0, sizeof rq);
    pcam_put_le32(rq + TMF_TYPE, T_TMF);
    pcam_put_le32(rq + TMF_SUBTYPE, subtype);
    vio_put_lun(rq + TMF_LUN, target, lun);
    pcam_put_le32(rq + TMF_TAG, tag);
    s->tm[k].subtype = subtype;
    s->tm[k].target = target;
    s->tm[k].lun = lun;
    s->st.task_mgmt++;
    vio_send_ctl(s, k, rq, TMF_BYTES, 1);
}

static int op_abort(void *sc, const void *handle)
{
    vio_sc *s = SC(sc);
    int v = find_handle(s, handle);
    if (v < 0)
        return PCAM_ERR_RANGE;
    /* One at a time, and none to a device that needs a reset: the core's timer escalates. */
    if (s->tm[TM_ABORT].live || s->ev_gross)
        return PCAM_OK;
    vio_slot *vs = &s->slot[v];
    vs->abort_asked = true;
    s->tm[TM_ABORT].victim = (uint8_t)v;
    send_tmf(s, TM_ABORT, TMF_ABORT_TASK, vs->target, vs->lun, TAG(v, vs->gen));
    return PCAM_OK;
}

static int op_reset_dev(void *sc, uint8_t target, uint8_t lun, bool lun_reset)
{
    vio_sc *s = SC(sc);
    if (target >= s->ntargets)
        return PCAM_ERR_RANGE;
    if (s->tm[TM_RESET].live)
        return PCAM_ERR_NOSPACE;
    if (s->ev_gross)
        return PCAM_OK;
    send_tmf(s, TM_RESET, lun_reset ? TMF_LUN_RESET : TMF_I_T_NEXUS_RESET, target, lun, 0);
    return PCAM_OK;
}

static const pcam_hal_ops vio_ops = {
    .get_caps = op_get_caps,
    .reset_chip = op_reset_chip,
    .reset_bus = op_reset_bus,
    .set_xfer = op_set_xfer,
    .poll = vio_poll,
};

static const pcam_hal_cmd_ops vio_cmd_ops = {
    .attach = op_attach,
    .start = op_start,
    .abort = op_abort,
    .reset_dev = op_reset_dev,
};

pcam_err pcam_virtio_attach_abi(size_t sc_size, pcam_virtio *storage, const pcam_virtio_config *cfg,
                                const pcam_platform *plat, pcam_hal *out)
{
    if (sc_size != sizeof(pcam_virtio))
        return PCAM_ERR_ABI; /* storage from other headers: not ours to write */
    if (storage == NULL || cfg == NULL || plat == NULL || out == NULL || cfg->dma_va == NULL)
        return PCAM_ERR_NULL;
    if (plat->now_ns == NULL || plat->read8 == NULL || plat->read16 == NULL || plat->read32 == NULL ||
        plat->write8 == NULL || plat->write16 == NULL || plat->write32 == NULL || plat->dma_map == NULL)
        return PCAM_ERR_NULL;
    if (cfg->max_targets != 0 && cfg->max_targets != 8 && cfg->max_targets != 16)
        return PCAM_ERR_RANGE;
    uint64_t pad = (64u - (cfg->dma_bus & 0x3Fu)) & 0x3Fu;
    if (cfg->dma_len < PCAM_VIRTIO_DMA_BYTES || cfg->dma_bus + pad + A_END < cfg->dma_bus)
        return PCAM_ERR_RANGE;

    vio_sc *s = (vio_sc *)(void *)storage;
    memset(storage, 0, sizeof *storage);
    s->p = *plat;
    s->cfg = *cfg;
    s->dma = (uint8_t *)((uintptr_t)cfg->dma_va + (uintptr_t)pad);
    s->dma_bus = cfg->dma_bus + pad;
    memset(s->dma, 0, A_END);
    int rc = vio_bringup(s);
    if (rc != PCAM_OK) {
        vio_device_reset(s);
        return (pcam_err)rc;
    }
    s->attached = true;
    out->ops = &vio_ops;
    out->cmd = &vio_cmd_ops;
    out->sc = s;
    return PCAM_OK;
}

void pcam_virtio_get_facts(const pcam_virtio *sc, pcam_virtio_facts *out)
{
    const vio_sc *s = (const vio_sc *)(const void *)sc;
    if (out == NULL)
        return;
    if (s == NULL || !s->attached) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->facts;
}

void pcam_virtio_get_stats(const pcam_virtio *sc, pcam_virtio_stats *out)
{
    const vio_sc *s = (const vio_sc *)(const void *)sc;
    if (out == NULL)
        return;
    if (s == NULL) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->st;
}

void pcam_virtio_stop(pcam_virtio *sc)
{
    vio_sc *s = (vio_sc *)(void *)sc;
    if (s == NULL || !s->attached)
        return;
    vio_device_reset(s);
    vio_forget_all(s);
    s->attached = false;
}
