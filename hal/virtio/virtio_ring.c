/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The virtio-scsi rings: device reset and bring-up (features, device
 * configuration, the three queues), the available ring and the doorbell,
 * and the used rings drained on each poll, with what their entries mean:
 * command outcomes (response code, status, residual, sense), task
 * management answers, events. Everything the device writes is distrusted:
 * a used index that moves past what was made available, an id that names
 * no request in flight, a length the buffers cannot hold, an event for an
 * address outside the bus: each gets a defined outcome and a log line, and
 * nothing is written outside the command's own buffers. Every wait is
 * bounded by the platform clock. No policy here.
 */
#include "virtio_internal.h"

/* Deadline (ms) for the device to come out of reset; QEMU's is at once. */
enum { T_RESET = 1000 };

/* ---- registers ---- */

/* Every register access of the back-end, counted. */
static uint32_t rd(vio_sc *s, uintptr_t a, unsigned w)
{
    s->st.reg_reads++;
    return w == 1 ? s->p.read8(s->p.ctx, a) : w == 2 ? s->p.read16(s->p.ctx, a) : s->p.read32(s->p.ctx, a);
}
static void wr(vio_sc *s, uintptr_t a, unsigned w, uint32_t v)
{
    s->st.reg_writes++;
    if (w == 1)
        s->p.write8(s->p.ctx, a, (uint8_t)v);
    else if (w == 2)
        s->p.write16(s->p.ctx, a, (uint16_t)v);
    else
        s->p.write32(s->p.ctx, a, v);
}
static uint8_t cc_rd8(vio_sc *s, unsigned off)
{
    return (uint8_t)rd(s, s->cfg.common + off, 1);
}
static uint16_t cc_rd16(vio_sc *s, unsigned off)
{
    return (uint16_t)rd(s, s->cfg.common + off, 2);
}
static uint32_t cc_rd32(vio_sc *s, unsigned off)
{
    return rd(s, s->cfg.common + off, 4);
}
static void cc_wr8(vio_sc *s, unsigned off, uint8_t v)
{
    wr(s, s->cfg.common + off, 1, v);
}
static void cc_wr16(vio_sc *s, unsigned off, uint16_t v)
{
    wr(s, s->cfg.common + off, 2, v);
}
static void cc_wr32(vio_sc *s, unsigned off, uint32_t v)
{
    wr(s, s->cfg.common + off, 4, v);
}
static void cc_wr64(vio_sc *s, unsigned off, uint64_t v)
{
    cc_wr32(s, off, (uint32_t)v);
    cc_wr32(s, off + 4u, (uint32_t)(v >> 32));
}
static uint32_t dc_rd32(vio_sc *s, unsigned off)
{
    return rd(s, s->cfg.device + off, 4);
}
static uint16_t dc_rd16(vio_sc *s, unsigned off)
{
    return (uint16_t)rd(s, s->cfg.device + off, 2);
}

/* ---- ring memory the device also writes: volatile, so the compiler
 * keeps the order the ring protocol needs (index after entries on the way
 * out, entries after index on the way in). ---- */

static uint16_t vld16(const uint8_t *p)
{
    const volatile uint8_t *v = p;
    return (uint16_t)(v[0] | (v[1] << 8));
}
static uint32_t vld32(const uint8_t *p)
{
    const volatile uint8_t *v = p;
    return (uint32_t)v[0] | ((uint32_t)v[1] << 8) | ((uint32_t)v[2] << 16) | ((uint32_t)v[3] << 24);
}
static void vst16(uint8_t *p, uint16_t x)
{
    volatile uint8_t *v = p;
    v[0] = (uint8_t)x;
    v[1] = (uint8_t)(x >> 8);
}
static void vcopy(uint8_t *dst, const uint8_t *src, size_t n)
{
    const volatile uint8_t *v = src;
    for (size_t k = 0; k < n; k++)
        dst[k] = v[k];
}

/* ---- bring-up ---- */

static bool wait_reset(vio_sc *s)
{
    uint64_t end = s->p.now_ns(s->p.ctx) + (uint64_t)T_RESET * 1000000u;
    for (;;) {
        if (cc_rd8(s, CC_STATUS) == 0)
            return true;
        if (s->p.now_ns(s->p.ctx) > end)
            return false;
        if (s->p.delay_us != NULL)
            s->p.delay_us(s->p.ctx, 10);
    }
}

void vio_device_reset(vio_sc *s)
{
    s->st.device_resets++;
    cc_wr8(s, CC_STATUS, 0);
    if (!wait_reset(s))
        vio_log(s, PCAM_LOG_ERROR, "device did not reset, status", cc_rd8(s, CC_STATUS));
}

static int refuse(vio_sc *s, const char *what, uint32_t value)
{
    vio_log(s, PCAM_LOG_ERROR, what, value);
    cc_wr8(s, CC_STATUS, (uint8_t)(cc_rd8(s, CC_STATUS) | ST_FAILED));
    return PCAM_ERR_UNSUPPORTED;
}

static int negotiate(vio_sc *s)
{
    cc_wr32(s, CC_DFSELECT, 0);
    uint64_t off = cc_rd32(s, CC_DF);
    cc_wr32(s, CC_DFSELECT, 1);
    off |= (uint64_t)cc_rd32(s, CC_DF) << 32;
    s->facts.offered = off;
    if ((off & FBIT(F_VERSION_1)) == 0)
        return refuse(s, "no VIRTIO_F_VERSION_1 (legacy-only device), features", (uint32_t)off);
    if ((off & FBIT(F_RING_INDIRECT)) == 0)
        return refuse(s, "no VIRTIO_RING_F_INDIRECT_DESC, features", (uint32_t)off);
    uint64_t acc = FBIT(F_VERSION_1) | FBIT(F_RING_INDIRECT) | (off & FBIT(F_SCSI_HOTPLUG));
    s->facts.accepted = acc;
    cc_wr32(s, CC_GFSELECT, 0);
    cc_wr32(s, CC_GF, (uint32_t)acc);
    cc_wr32(s, CC_GFSELECT, 1);
    cc_wr32(s, CC_GF, (uint32_t)(acc >> 32));
    cc_wr8(s, CC_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK);
    uint8_t st = cc_rd8(s, CC_STATUS);
    if ((st & ST_FEATURES_OK) == 0)
        return refuse(s, "device refused the features, status", st);
    return PCAM_OK;
}

static int device_config(vio_sc *s)
{
    /* The sizes the request layout is built for (the 1.0 defaults). */
    wr(s, s->cfg.device + DC_SENSE_SIZE, 4, SENSE_SIZE);
    wr(s, s->cfg.device + DC_CDB_SIZE, 4, CDB_SIZE);
    pcam_virtio_facts *f = &s->facts;
    uint32_t ev_size = 0, sense = 0, cdb = 0;
    unsigned tries = 0;
    uint8_t gen;
    do { /* a consistent snapshot: the generation did not move while reading */
        gen = cc_rd8(s, CC_CFGGEN);
        f->num_queues = dc_rd32(s, DC_NUM_QUEUES);
        f->seg_max = dc_rd32(s, DC_SEG_MAX);
        f->max_sectors = dc_rd32(s, DC_MAX_SECTORS);
        f->cmd_per_lun = dc_rd32(s, DC_CMD_PER_LUN);
        ev_size = dc_rd32(s, DC_EVENT_INFO);
        sense = dc_rd32(s, DC_SENSE_SIZE);
        cdb = dc_rd32(s, DC_CDB_SIZE);
        f->max_target = dc_rd16(s, DC_MAX_TARGET);
        f->max_lun = dc_rd32(s, DC_MAX_LUN);
    } while (gen != cc_rd8(s, CC_CFGGEN) && ++tries < 4);
    if (tries >= 4)
        return refuse(s, "device configuration never settled, generation", gen);
    if (f->num_queues == 0 || cc_rd16(s, CC_NUMQ) < NQ)
        return refuse(s, "no request queue, queues", cc_rd16(s, CC_NUMQ));
    if (sense != SENSE_SIZE || cdb != CDB_SIZE)
        return refuse(s, "device kept other sense/CDB sizes, sense", sense);
    if (ev_size > EVBUF_BYTES)
        return refuse(s, "event_info_size larger than the event buffers", ev_size);
    if (f->seg_max == 0)
        f->seg_max = 1;
    if (f->max_sectors == 0)
        f->max_sectors = 1;
    uint8_t want = s->cfg.max_targets != 0 ? s->cfg.max_targets : (f->max_target >= 15u ? 16 : 8);
    s->ntargets = want;
    /* virtio has no initiator on a wire; the core needs an ID: the highest stands in. */
    s->id = (uint8_t)(want - 1u);
    return PCAM_OK;
}

static int setup_queue(vio_sc *s, unsigned qi, unsigned size, unsigned area)
{
    vio_queue *q = &s->q[qi];
    cc_wr16(s, CC_Q_SELECT, (uint16_t)qi);
    uint16_t max = cc_rd16(s, CC_Q_SIZE);
    s->facts.queue_max[qi] = max;
    if (max < size)
        return refuse(s, "queue too small, queue/size", (uint32_t)qi << 16 | max);
    memset(q, 0, sizeof *q);
    q->ring = s->dma + area;
    q->bus = s->dma_bus + area;
    q->size = (uint16_t)size;
    memset(q->ring, 0, VQ_USED(size) + 6u + 8u * size);
    cc_wr16(s, CC_Q_SIZE, (uint16_t)size);
    cc_wr16(s, CC_Q_MSIX, NO_VECTOR);
    cc_wr64(s, CC_Q_DESC, q->bus);
    cc_wr64(s, CC_Q_AVAIL, q->bus + VQ_AVAIL(size));
    cc_wr64(s, CC_Q_USED, q->bus + VQ_USED(size));
    uint32_t noff = (uint32_t)cc_rd16(s, CC_Q_NOFF) * s->cfg.notify_mult;
    if (noff > s->cfg.notify_len || s->cfg.notify_len - noff < 2u)
        return refuse(s, "queue doorbell outside the notify region, offset", noff);
    q->notify_off = noff;
    cc_wr16(s, CC_Q_ENABLE, 1);
    return PCAM_OK;
}

void vio_push(vio_sc *s, unsigned qi, uint16_t head)
{
    vio_queue *q = &s->q[qi];
    uint8_t *av = q->ring + DESC_BYTES * q->size;
    vst16(av + R_RING + 2u * (q->avail_idx % q->size), head);
    q->avail_idx++;
    vst16(av + R_IDX, q->avail_idx);
    q->in_flight++;
    s->st.notifies++;
    wr(s, s->cfg.notify + q->notify_off, 2, qi);
}

static void lend_event(vio_sc *s, unsigned k)
{
    uint8_t *d = s->q[Q_EVT].ring + DESC_BYTES * k;
    uint64_t bus = s->dma_bus + A_EVBUF + EVBUF_BYTES * k;
    memset(s->dma + A_EVBUF + EVBUF_BYTES * k, 0, EVBUF_BYTES);
    memset(d, 0, DESC_BYTES);
    pcam_put_le32(d + D_ADDR, (uint32_t)bus);
    pcam_put_le32(d + D_ADDR + 4, (uint32_t)(bus >> 32));
    pcam_put_le32(d + D_LEN, EVBUF_BYTES);
    d[D_FLAGS] = DF_WRITE;
    s->ev_lent = (uint8_t)(s->ev_lent | (1u << k));
    vio_push(s, Q_EVT, (uint16_t)k);
}

int vio_bringup(vio_sc *s)
{
    int rc;
    s->st.device_resets++;
    cc_wr8(s, CC_STATUS, 0);
    if (!wait_reset(s)) {
        vio_log(s, PCAM_LOG_ERROR, "device did not reset, status", cc_rd8(s, CC_STATUS));
        return PCAM_ERR_UNSUPPORTED;
    }
    memset(s->q, 0, sizeof s->q);
    s->ev_lent = 0;
    s->ev_back = 0;
    cc_wr8(s, CC_STATUS, ST_ACK);
    cc_wr8(s, CC_STATUS, ST_ACK | ST_DRIVER);
    if ((rc = negotiate(s)) != PCAM_OK || (rc = device_config(s)) != PCAM_OK)
        return rc;
    cc_wr16(s, CC_MSIX, NO_VECTOR);
    if ((rc = setup_queue(s, Q_CTL, QN_CTL, A_VQ_CTL)) != PCAM_OK ||
        (rc = setup_queue(s, Q_EVT, QN_EVT, A_VQ_EVT)) != PCAM_OK ||
        (rc = setup_queue(s, Q_REQ, QN_REQ, A_VQ_REQ)) != PCAM_OK)
        return rc;
    cc_wr8(s, CC_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK | ST_DRIVER_OK);
    if ((cc_rd8(s, CC_STATUS) & (ST_NEEDS_RESET | ST_FAILED)) != 0)
        return refuse(s, "device failed at DRIVER_OK, status", cc_rd8(s, CC_STATUS));
    (void)rd(s, s->cfg.isr, 1); /* drop whatever was latched */
    for (unsigned k = 0; k < QN_EVT; k++)
        lend_event(s, k);
    return PCAM_OK;
}

/* ---- reporting ---- */

static void finish(vio_sc *s, unsigned i, const pcam_hal_cmd_result *r)
{
    vio_slot *sl = &s->slot[i];
    const void *h = sl->handle;
    uint8_t t = sl->target, l = sl->lun;
    vio_free_slot(s, i);
    if (s->bus == NULL)
        return;
    s->st.completed++;
    (void)pcam_bus_hal_done(s->bus, h, t, l, r);
}

static void finish_status(vio_sc *s, unsigned i, uint32_t status)
{
    pcam_hal_cmd_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.resid = s->slot[i].data_len;
    finish(s, i, &r);
}

/* Is a device reset of ours pending that covers slot i's command? */
static bool reset_covers(const vio_sc *s, const vio_slot *sl)
{
    const vio_tm *r = &s->tm[TM_RESET];
    return r->live && r->target == sl->target && (r->subtype != TMF_LUN_RESET || r->lun == sl->lun);
}

static void cmd_done(vio_sc *s, unsigned i, uint32_t len)
{
    vio_slot *sl = &s->slot[i];
    uint8_t rs[RESP_BYTES];
    pcam_hal_cmd_result r;
    /* The device writes the response and, for a read, the data; QEMU counts
     * the data buffers in either direction. Less than a response header, or
     * more than the buffers, is a lie. */
    if (len < RESP_MIN || (len > RESP_BYTES && len - RESP_BYTES > sl->data_len)) {
        s->st.bad_used++;
        vio_log(s, PCAM_LOG_ERROR, "used length impossible for its request, length", len);
        finish_status(s, i, PCAM_REQ_CMP_ERR);
        return;
    }
    vcopy(rs, s->dma + A_SLOTS + SLOT_BYTES * i + S_RESP, sizeof rs);
    memset(&r, 0, sizeof r);
    r.resid = sl->data_len;
    uint32_t resid = pcam_get_le32(rs + RS_RESID);
    switch (rs[RS_RESPONSE]) {
    case VS_OK:
        if (resid > sl->data_len) {
            vio_log(s, PCAM_LOG_ERROR, "residual larger than the transfer, residual", resid);
            r.status = PCAM_DATA_RUN_ERR;
            break;
        }
        r.status = PCAM_REQ_CMP;
        r.scsi_status = rs[RS_STATUS];
        r.resid = resid;
        if (sl->autosense && r.scsi_status == 0x02) {
            uint32_t n = pcam_get_le32(rs + RS_SENSE_LEN);
            if (n > SENSE_SIZE)
                n = SENSE_SIZE;
            if (n > sl->sense_cap)
                n = sl->sense_cap;
            memcpy(sl->sense, rs + RS_SENSE, n);
            r.sense_done = true;
            r.sense_len = (uint8_t)n;
        }
        break;
    case VS_OVERRUN:
        r.status = PCAM_DATA_RUN_ERR;
        break;
    case VS_BAD_TARGET:
        r.status = PCAM_SEL_TIMEOUT;
        break;
    case VS_ABORTED:
    case VS_RESET:
        if (reset_covers(s, sl)) {
            sl->state = SL_HELD; /* the reset's answer decides */
            return;
        }
        r.status = sl->abort_asked ? PCAM_REQ_ABORTED : PCAM_REQ_CMP_ERR;
        break;
    case VS_BUSY:
        /* The device has no room now: as the target's BUSY, the core waits and retries. */
        r.status = PCAM_REQ_CMP;
        r.scsi_status = 0x08;
        break;
    case VS_TRANSPORT_FAILURE:
    case VS_NEXUS_FAILURE:
        r.status = PCAM_UNEXP_BUSFREE;
        break;
    default:
        vio_log(s, PCAM_LOG_WARN, "command ended with response", rs[RS_RESPONSE]);
        r.status = PCAM_REQ_CMP_ERR;
        break;
    }
    finish(s, i, &r);
}

static uint32_t tmf_status(uint8_t resp)
{
    switch (resp) {
    case VS_OK:
    case VS_FUNCTION_SUCCEEDED:
        return PCAM_REQ_CMP;
    case VS_BAD_TARGET:
        return PCAM_SEL_TIMEOUT;
    case VS_FUNCTION_REJECTED:
    case VS_INCORRECT_LUN:
        return PCAM_MSG_REJECT_REC;
    default:
        return PCAM_REQ_CMP_ERR;
    }
}

/* A device reset's answer. On success the device has returned every
 * command it covered (QEMU cancels them before it answers), each held
 * here for this answer: they are forgotten, the core has taken them back.
 * A device that says FUNCTION COMPLETE but still holds one of them could
 * still write into its buffers, which the core would give back to their
 * owners: that is a failed reset (the core escalates to a bus reset, a
 * device reset, after which the device touches nothing). Otherwise the
 * ones it terminated end now. */
static void reset_done(vio_sc *s, uint32_t status)
{
    vio_tm *r = &s->tm[TM_RESET];
    uint8_t t = r->target, l = r->lun;
    bool lr = r->subtype == TMF_LUN_RESET;
    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < PCAM_VIRTIO_MAX_CMDS && status == PCAM_REQ_CMP; i++) {
        const vio_slot *sl = &s->slot[i];
        if (sl->state == SL_LIVE && sl->target == t && (!lr || sl->lun == l)) {
            vio_log(s, PCAM_LOG_ERROR, "device reset answered but a command is still out, tag",
                    TAG(i, sl->gen));
            status = PCAM_REQ_CMP_ERR;
        }
    }
    for (unsigned i = 0; i < PCAM_VIRTIO_MAX_CMDS; i++) {
        vio_slot *sl = &s->slot[i];
        if (sl->state != SL_HELD || sl->target != t || (lr && sl->lun != l))
            continue;
        if (status == PCAM_REQ_CMP)
            vio_free_slot(s, i);
        else
            finish_status(s, i, PCAM_REQ_CMP_ERR);
    }
    if (s->bus != NULL)
        (void)pcam_bus_hal_reset_done(s->bus, t, l, lr, status);
}

static void ctl_done(vio_sc *s, uint32_t id, uint32_t len)
{
    unsigned k = id / 2u;
    if ((id & 1u) != 0 || k > TM_QUERY || !s->tm[k].live) {
        s->st.bad_used++;
        vio_log(s, PCAM_LOG_ERROR, "control completion for no request, id", id);
        return;
    }
    if (k == TM_QUERY) {
        /* Whatever it says, the device is back: the bus reset is done. */
        memset(&s->tm[TM_QUERY], 0, sizeof s->tm[TM_QUERY]);
        if (s->reset_query)
            s->ev_reset = true;
        s->reset_query = false;
        return;
    }
    uint8_t resp = s->dma[A_TM + TM_BYTES * k + TM_RESP];
    if (len < 1u) {
        s->st.bad_used++;
        vio_log(s, PCAM_LOG_ERROR, "task management answer without a response, length", len);
        resp = VS_FAILURE;
    }
    if (k == TM_RESET) {
        reset_done(s, tmf_status(resp));
        return;
    }
    /* ABORT TASK: the victim's own used entry reports it; if the device
     * did not know it, the core's timer escalates. */
    if (resp != VS_OK)
        vio_log(s, PCAM_LOG_WARN, "ABORT TASK answered", resp);
    memset(&s->tm[TM_ABORT], 0, sizeof s->tm[TM_ABORT]);
}

static void event_done(vio_sc *s, uint32_t id, uint32_t len)
{
    if (id >= QN_EVT || (s->ev_lent & (1u << id)) == 0) {
        /* Not a buffer the device holds (or one it returned twice in this
         * drain): lending it again would give it twice. */
        s->st.bad_used++;
        vio_log(s, PCAM_LOG_ERROR, "event completion for a buffer not lent, id", id);
        return;
    }
    s->ev_lent = (uint8_t)(s->ev_lent & ~(1u << id));
    uint8_t e[EV_BYTES];
    vcopy(e, s->dma + A_EVBUF + EVBUF_BYTES * id, sizeof e);
    uint32_t ev = pcam_get_le32(e + EV_EVENT), reason = pcam_get_le32(e + EV_REASON);
    s->st.events++;
    if (len < EV_BYTES || len > EVBUF_BYTES) {
        s->st.bad_events++;
        vio_log(s, PCAM_LOG_ERROR, "event of impossible length", len);
    } else {
        if ((ev & E_MISSED) != 0) {
            s->st.events_missed++;
            vio_log(s, PCAM_LOG_WARN, "device dropped events: rescan the bus, event", ev);
        }
        ev &= ~E_MISSED;
        if (ev == E_TRANSPORT_RESET) {
            uint32_t lun = ((uint32_t)(e[EV_LUN + 2] & 0x3Fu) << 8) | e[EV_LUN + 3];
            if (e[EV_LUN] != 1 || e[EV_LUN + 1] >= s->ntargets || lun > 255u ||
                (e[EV_LUN + 2] != 0 && (e[EV_LUN + 2] & 0xC0u) != 0x40u)) {
                s->st.bad_events++;
                vio_log(s, PCAM_LOG_WARN, "event for an address outside the bus, LUN bytes",
                        pcam_get_le32(e + EV_LUN));
            } else if (reason == ER_RESCAN) {
                s->st.dev_added++;
                vio_log(s, PCAM_LOG_INFO, "device added, target", e[EV_LUN + 1]);
            } else if (reason == ER_REMOVED) {
                s->st.dev_removed++;
                vio_log(s, PCAM_LOG_INFO, "device removed, target", e[EV_LUN + 1]);
            } else {
                vio_log(s, PCAM_LOG_INFO, "transport reset event, reason", reason);
            }
        } else if (ev == E_PARAM_CHANGE || ev == E_ASYNC_NOTIFY || ev == E_NO_EVENT) {
            /* Not asked for (no CHANGE, no subscription) or empty: nothing to do. */
        } else {
            s->st.bad_events++;
            vio_log(s, PCAM_LOG_WARN, "unknown event", ev);
        }
    }
    s->ev_back = (uint8_t)(s->ev_back | (1u << id)); /* lent again after the drain */
}

void vio_drain(vio_sc *s, unsigned qi)
{
    vio_queue *q = &s->q[qi];
    if (q->size == 0)
        return;
    const uint8_t *used = q->ring + VQ_USED(q->size);
    uint16_t idx = vld16(used + R_IDX);
    uint16_t n = (uint16_t)(idx - q->used_seen);
    if (n == 0)
        return;
    if (n > q->in_flight) {
        /* Entries that were never made available: the ring is no longer
         * what we wrote. Nothing in it is believed; the core resets. */
        s->st.bad_index++;
        vio_log(s, PCAM_LOG_ERROR, "used index past what was made available, index", idx);
        s->ev_gross = true;
        return;
    }
    for (uint16_t k = 0; k < n; k++) {
        const uint8_t *e = used + R_RING + 8u * (q->used_seen % q->size);
        uint32_t id = vld32(e), len = vld32(e + 4);
        q->used_seen++;
        q->in_flight--;
        if (qi == Q_CTL) {
            ctl_done(s, id, len);
        } else if (qi == Q_EVT) {
            event_done(s, id, len);
        } else if (id >= QN_REQ || s->slot[id].state != SL_LIVE) {
            s->st.bad_used++;
            vio_log(s, PCAM_LOG_ERROR, "completion for a request not in flight, id", id);
        } else {
            cmd_done(s, id, len);
        }
        if (s->ev_gross)
            break;
    }
    /* Returned buffers go back after the whole drain, so one named twice
     * in it is caught as not lent. */
    for (unsigned k = 0; k < QN_EVT && qi == Q_EVT && !s->ev_gross; k++)
        if ((s->ev_back & (1u << k)) != 0)
            lend_event(s, k);
    s->ev_back = 0;
}

static int take_event(vio_sc *s, pcam_hal_event *ev)
{
    if (!s->ev_reset && !s->ev_gross)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->phase = PCAM_PHASE_BUS_FREE;
    if (s->ev_gross) {
        s->ev_gross = false;
        ev->type = PCAM_HAL_EV_GROSS_ERROR;
    } else {
        s->ev_reset = false;
        ev->type = PCAM_HAL_EV_BUS_RESET;
    }
    return 1;
}

int vio_poll(void *sc, pcam_hal_event *ev)
{
    vio_sc *s = (vio_sc *)sc;
    if (take_event(s, ev))
        return 1;
    uint8_t isr = (uint8_t)rd(s, s->cfg.isr, 1); /* reading lowers INTx */
    if (isr != 0)
        s->st.interrupts++;
    if ((isr & ISR_CONFIG) != 0) {
        uint8_t st = cc_rd8(s, CC_STATUS);
        if ((st & ST_NEEDS_RESET) != 0) {
            vio_log(s, PCAM_LOG_ERROR, "device needs a reset, status", st);
            s->ev_gross = true;
            return take_event(s, ev);
        }
    }
    /* The used rings are read on every poll, not only when the ISR says
     * so: an interrupt-mode shim and a polled one see the same thing. */
    vio_drain(s, Q_CTL);
    vio_drain(s, Q_REQ);
    vio_drain(s, Q_EVT);
    return take_event(s, ev);
}
