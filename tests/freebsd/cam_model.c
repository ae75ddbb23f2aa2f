/* SPDX-License-Identifier: BSD-2-Clause */
/* The CAM stand-in (cam_model.h): xpt's device queues, its done queue and
 * the generic part of a peripheral's completion handling. */
#include <stdlib.h>
#include <string.h>

#include "cam_model.h"

static cam_model *of(void *ctx)
{
    return (cam_model *)ctx;
}

static cm_dev *dev_of(cam_model *m, const cm_req *q)
{
    uint32_t t = q->r.cc.ccb_h.target_id, l = q->r.cc.ccb_h.target_lun;
    if (t >= CM_TARGETS || l >= CM_LUNS)
        return NULL;
    return &m->dev[t][l];
}

static void op_done(void *ctx, pcam_fbsd_req *r)
{
    cam_model *m = of(ctx);
    cm_req *q = (cm_req *)r;
    q->sim_done++;
    q->next = NULL;
    if (m->done_tail != NULL)
        m->done_tail->next = q;
    else
        m->done_head = q;
    m->done_tail = q;
}

static void op_freeze(void *ctx, pcam_fbsd_req *r)
{
    cam_model *m = of(ctx);
    cm_dev *d = dev_of(m, (cm_req *)r);
    m->freezes++;
    if (d != NULL)
        d->frozen++;
}

static void op_async(void *ctx, uint32_t code, uint32_t target, uint32_t lun, const pcam_fbsd_cts *cts)
{
    cam_model *m = of(ctx);
    if (m->nev >= CM_EVENTS)
        return;
    cm_event *e = &m->ev[m->nev++];
    e->code = code;
    e->target = target;
    e->lun = lun;
    e->has_cts = cts != NULL;
    if (cts != NULL)
        e->cts = *cts;
}

/* The console line the glue prints: recorded, and it must come while the
 * request is still the SIM's (before its done). */
static void op_refused(void *ctx, const pcam_fbsd_req *r, uint32_t cam_status)
{
    cam_model *m = of(ctx);
    const cm_req *q = (const cm_req *)r;
    m->refusals++;
    m->refused_status = cam_status;
    m->refused_func = r->cc.ccb_h.func_code;
    m->refused_before_done = m->refused_before_done && q->sim_done == 0;
}

void cm_init(cam_model *m, pcam_bus *bus, bool (*step)(void *), uint64_t (*now_ns)(void *), void *ctx)
{
    static const pcam_fbsd_ops ops = {op_done, op_freeze, op_async, op_refused};
    pcam_fbsd_ident id = {"FreeBSD", "pcam", "pcam", 0, 0, 65536, 0x1022, 0x2020};
    memset(m, 0, sizeof *m);
    m->bus = bus;
    m->step = step;
    m->now_ns = now_ns;
    m->step_ctx = ctx;
    m->refused_before_done = true;
    if (pcam_fbsd_sim_init(&m->sim, bus, &ops, m, &id) != 0)
        abort();
}

static void to_sim(cam_model *m, cm_req *q)
{
    m->sim_actions++;
    pcam_fbsd_action(&m->sim, &q->r);
}

void cm_action(cam_model *m, cm_req *q)
{
    cm_dev *d = dev_of(m, q);
    bool dev_queued = (q->r.cc.ccb_h.func_code & PCAM_FBSD_XPT_FC_DEV_QUEUED) == PCAM_FBSD_XPT_FC_DEV_QUEUED;
    q->finished = false;
    if (dev_queued && d != NULL && d->frozen > 0) {
        q->next = NULL;
        if (d->tail != NULL)
            d->tail->next = q;
        else
            d->head = q;
        d->tail = q;
        return;
    }
    to_sim(m, q);
}

void cm_release(cam_model *m, uint32_t target, uint32_t lun, uint32_t n)
{
    m->releases += n;
    if (target >= CM_TARGETS || lun >= CM_LUNS)
        return; /* a path xpt would not have: nothing queued there */
    cm_dev *d = &m->dev[target][lun];
    d->frozen = n >= d->frozen ? 0 : d->frozen - n;
    while (d->frozen == 0 && d->head != NULL) {
        cm_req *q = d->head;
        d->head = q->next;
        if (d->head == NULL)
            d->tail = NULL;
        to_sim(m, q);
    }
}

void cm_drain(cam_model *m)
{
    cm_req *q;
    while ((q = m->done_head) != NULL) {
        m->done_head = q->next;
        if (m->done_head == NULL)
            m->done_tail = NULL;
        uint32_t st = q->r.cc.ccb_h.status;
        bool frozen = (st & PCAM_FBSD_CAM_DEV_QFRZN) != 0;
        uint32_t t = q->r.cc.ccb_h.target_id, l = q->r.cc.ccb_h.target_lun;
        if ((st & PCAM_FBSD_CAM_STATUS_MASK) == PCAM_FBSD_CAM_REQUEUE_REQ) {
            /* cam_periph_error: ERESTART without spending a retry; the CCB goes
             * back through xpt first, then the freeze is released. */
            q->requeued++;
            cm_action(m, q);
            if (frozen)
                cm_release(m, t, l, 1);
            continue;
        }
        q->finished = true;
        q->status = st;
        q->order = ++m->completions;
        if (frozen && !m->manual_release)
            cm_release(m, t, l, 1);
    }
}

bool cm_wait_all(cam_model *m, cm_req *const *qs, unsigned n, uint32_t ms)
{
    uint64_t until = m->now_ns(m->step_ctx) + (uint64_t)ms * 1000000u;
    for (;;) {
        cm_drain(m);
        unsigned left = 0;
        for (unsigned i = 0; i < n; i++)
            left += qs[i]->finished ? 0u : 1u;
        if (left == 0)
            return true;
        if (m->now_ns(m->step_ctx) > until || !m->step(m->step_ctx))
            return false;
    }
}

bool cm_wait(cam_model *m, const cm_req *q, uint32_t ms)
{
    cm_req *one = (cm_req *)(uintptr_t)q;
    return cm_wait_all(m, &one, 1, ms);
}

uint32_t cm_sync(cam_model *m, cm_req *q, uint32_t ms)
{
    cm_action(m, q);
    return cm_wait(m, q, ms) ? q->status : 0xFFFFFFFFu;
}

void cm_func(cm_req *q, uint32_t func, uint32_t target, uint32_t lun)
{
    memset(q, 0, sizeof *q);
    q->r.cc.ccb_h.func_code = func;
    q->r.cc.ccb_h.target_id = target;
    q->r.cc.ccb_h.target_lun = lun;
}

void cm_csio(cm_req *q, uint32_t target, uint32_t lun, const uint8_t *cdb, uint8_t cdb_len,
             uint32_t flags, void *data, uint32_t dxfer_len, uint8_t tag_action, uint32_t timeout_ms)
{
    cm_func(q, PCAM_FBSD_XPT_SCSI_IO, target, lun);
    q->r.cc.ccb_h.flags = flags;
    q->r.cc.ccb_h.timeout = timeout_ms;
    if (cdb_len <= sizeof q->r.cc.u.csio.cdb_bytes)
        memcpy(q->r.cc.u.csio.cdb_bytes, cdb, cdb_len);
    q->r.cc.u.csio.cdb_len = cdb_len;
    q->r.cc.u.csio.data_ptr = (uint8_t *)data;
    q->r.cc.u.csio.dxfer_len = dxfer_len;
    q->r.cc.u.csio.sense_len = PCAM_FBSD_SSD_FULL_SIZE;
    q->r.cc.u.csio.tag_action = tag_action;
}

const cm_event *cm_event_find(const cam_model *m, uint32_t code, unsigned n)
{
    for (unsigned i = 0; i < m->nev; i++)
        if (m->ev[i].code == code && n-- == 0)
            return &m->ev[i];
    return NULL;
}

unsigned cm_event_count(const cam_model *m, uint32_t code)
{
    unsigned c = 0;
    for (unsigned i = 0; i < m->nev; i++)
        c += m->ev[i].code == code ? 1u : 0u;
    return c;
}

void cm_cdb_inquiry(uint8_t *c, uint8_t alloc)
{
    memset(c, 0, 6);
    c[0] = 0x12;
    c[4] = alloc;
}

void cm_cdb_rw10(uint8_t *c, bool write, uint32_t lba, uint16_t blocks)
{
    memset(c, 0, 10);
    c[0] = write ? 0x2A : 0x28;
    c[2] = (uint8_t)(lba >> 24);
    c[3] = (uint8_t)(lba >> 16);
    c[4] = (uint8_t)(lba >> 8);
    c[5] = (uint8_t)lba;
    c[7] = (uint8_t)(blocks >> 8);
    c[8] = (uint8_t)blocks;
}

void cm_cdb_readcap10(uint8_t *c)
{
    memset(c, 0, 10);
    c[0] = 0x25;
}

void cm_cdb_report_luns(uint8_t *c, uint32_t alloc)
{
    memset(c, 0, 12);
    c[0] = 0xA0;
    c[6] = (uint8_t)(alloc >> 24);
    c[7] = (uint8_t)(alloc >> 16);
    c[8] = (uint8_t)(alloc >> 8);
    c[9] = (uint8_t)alloc;
}
