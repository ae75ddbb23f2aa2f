/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The manager: global state, adapter registration, notification delivery,
 * waiting for the bus, and the exports that are not SRB commands
 * (GetASPI32SupportInfo, GetASPI32DLLVersion, TranslateASPI32Address and
 * the buffer calls).
 */
#include "aspi_internal.h"

aspi_mgr pcam_aspi_mgr;

/* GetASPI32DLLVersion is undocumented; pcam answers the ASPI level it
 * implements, 4.60, as major in bits 7..0 and minor in bits 15..8. */
#define ASPI_DLL_VERSION ((DWORD)(4u | (60u << 8)))

static void host_lock(void)
{
    if (pcam_aspi_mgr.host.lock != NULL)
        pcam_aspi_mgr.host.lock(pcam_aspi_mgr.host.ctx);
}

static void host_unlock(void)
{
    if (pcam_aspi_mgr.host.unlock != NULL)
        pcam_aspi_mgr.host.unlock(pcam_aspi_mgr.host.ctx);
}

pcam_err pcam_aspi_init(const pcam_aspi_host *host)
{
    if (host != NULL && ((host->lock == NULL) != (host->unlock == NULL) ||
                         (host->buf_alloc == NULL) != (host->buf_free == NULL)))
        return PCAM_ERR_NULL;
    memset(&pcam_aspi_mgr, 0, sizeof pcam_aspi_mgr);
    if (host != NULL)
        pcam_aspi_mgr.host = *host;
    pcam_aspi_mgr.up = true;
    return PCAM_OK;
}

void pcam_aspi_shutdown(void)
{
    if (!pcam_aspi_mgr.up)
        return;
    for (size_t i = 0; i < PCAM_ASPI_MAX_BUFFERS; i++) {
        aspi_buf *b = &pcam_aspi_mgr.bufs[i];
        if (b->p != NULL && pcam_aspi_mgr.host.buf_free != NULL)
            pcam_aspi_mgr.host.buf_free(pcam_aspi_mgr.host.ctx, b->p, b->len);
    }
    memset(&pcam_aspi_mgr, 0, sizeof pcam_aspi_mgr);
}

pcam_aspi_adapter *pcam_aspi_adapter_for(uint8_t ha_id)
{
    if (!pcam_aspi_mgr.up || ha_id >= pcam_aspi_mgr.count)
        return NULL;
    return pcam_aspi_mgr.ad[ha_id];
}

static void sync_done(pcam_ccb *ccb)
{
    pcam_aspi_adapter *ad = ccb->user;
    /* The waiter looks at ccb->status; wake it now that it is final. */
    if (ad->ops.wake != NULL)
        ad->ops.wake(ad->ctx);
}

static bool ccb_finished(void *arg)
{
    const pcam_ccb *ccb = arg;
    return ccb->status != PCAM_REQ_INPROG;
}

uint32_t pcam_aspi_run_ccb(pcam_aspi_adapter *ad, pcam_ccb *ccb)
{
    ccb->done = sync_done;
    ccb->user = ad;
    pcam_action(ad->bus, ccb);
    if (ccb->status == PCAM_REQ_INPROG && ad->ops.kick != NULL)
        ad->ops.kick(ad->ctx);
    pcam_aspi_wait_until(ad, ccb_finished, ccb);
    return ccb->status;
}

pcam_err pcam_aspi_add_adapter_abi(const pcam_abi *abi, size_t adapter_size, size_t req_size,
                                   pcam_aspi_adapter *ad, pcam_bus *bus,
                                   const pcam_aspi_adapter_ops *ops, void *ctx,
                                   pcam_aspi_req *reqs, size_t nreqs, uint8_t *ha_id)
{
    /* The adapter's timeout table is sized by PCAM_CFG_MAX_TARGETS: refuse
     * storage laid out by other switches before the memset below. */
    if (pcam_abi_check(abi, NULL, 0) != PCAM_OK || adapter_size != sizeof(pcam_aspi_adapter) ||
        req_size != sizeof(pcam_aspi_req))
        return PCAM_ERR_ABI;
    if (ad == NULL || bus == NULL || ops == NULL || reqs == NULL || ops->lock == NULL ||
        ops->unlock == NULL || ops->wait == NULL)
        return PCAM_ERR_NULL;
    if (nreqs == 0 || !pcam_aspi_mgr.up || pcam_aspi_mgr.count >= PCAM_ASPI_MAX_ADAPTERS)
        return PCAM_ERR_RANGE;
    memset(ad, 0, sizeof *ad);
    memset(reqs, 0, nreqs * sizeof *reqs);
    ad->bus = bus;
    ad->ops = *ops;
    ad->ctx = ctx;
    ad->reqs = reqs;
    ad->nreqs = nreqs;
    for (size_t i = 0; i < nreqs; i++)
        reqs[i].ad = ad;

    /* Path inquiry completes inside pcam_action; its answer never changes. */
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_PATH_INQ;
    ad->ops.lock(ad->ctx);
    uint32_t st = pcam_aspi_run_ccb(ad, &ccb);
    ad->ops.unlock(ad->ctx);
    if ((st & PCAM_STATUS_MASK) != PCAM_REQ_CMP)
        return PCAM_ERR_RANGE;
    ad->pathinq = ccb.u.pathinq;

    host_lock();
    ad->ha_id = pcam_aspi_mgr.count;
    pcam_aspi_mgr.ad[pcam_aspi_mgr.count] = ad;
    pcam_aspi_mgr.count++;
    host_unlock();
    if (ha_id != NULL)
        *ha_id = ad->ha_id;
    return PCAM_OK;
}

void pcam_aspi_notify(uint8_t mode, void *post, void *srb)
{
    if (post == NULL)
        return;
    if (mode == NOTIFY_POST) {
        /* The posting routine arrives in a data-pointer field; ISO C has no
         * cast between the two, so copy the bits (same size, asserted in
         * aspi_layout.c). */
        void(ASPI_CDECL * fn)(void *);
        memcpy(&fn, &post, sizeof fn);
        fn(srb);
    } else if (mode == NOTIFY_EVENT && pcam_aspi_mgr.host.signal_event != NULL) {
        pcam_aspi_mgr.host.signal_event(pcam_aspi_mgr.host.ctx, post);
    }
}

size_t pcam_aspi_deliver(pcam_aspi_adapter *ad)
{
    size_t n = 0;
    if (ad == NULL)
        return 0;
    for (;;) {
        ad->ops.lock(ad->ctx);
        pcam_aspi_req *r = ad->nq_head;
        if (r == NULL) {
            ad->ops.unlock(ad->ctx);
            return n;
        }
        ad->nq_head = r->next;
        if (ad->nq_head == NULL)
            ad->nq_tail = NULL;
        r->next = NULL;
        r->state = REQ_NOTIFYING;
        uint8_t mode = r->notify;
        void *post = r->post, *srb = r->srb;
        ad->ops.unlock(ad->ctx);

        pcam_aspi_notify(mode, post, srb);

        /* Only now is the SRB quiet: an abort waits for this. */
        ad->ops.lock(ad->ctx);
        r->state = REQ_FREE;
        r->srb = NULL;
        r->post = NULL;
        r->gen++;
        if (ad->ops.wake != NULL)
            ad->ops.wake(ad->ctx);
        ad->ops.unlock(ad->ctx);
        n++;
    }
}

void pcam_aspi_wait_until(pcam_aspi_adapter *ad, bool (*done)(void *arg), void *arg)
{
    while (!done(arg)) {
        if (ad->nq_head != NULL && pcam_aspi_may_deliver(ad)) {
            /* What we wait for may be a notification nobody else runs. */
            ad->ops.unlock(ad->ctx);
            pcam_aspi_deliver(ad);
            ad->ops.lock(ad->ctx);
            continue;
        }
        ad->ops.wait(ad->ctx);
    }
}

size_t pcam_aspi_in_flight(pcam_aspi_adapter *ad)
{
    size_t n = 0;
    if (ad == NULL)
        return 0;
    ad->ops.lock(ad->ctx);
    for (size_t i = 0; i < ad->nreqs; i++)
        if (ad->reqs[i].state != REQ_FREE)
            n++;
    ad->ops.unlock(ad->ctx);
    return n;
}

/* ---- exports other than SendASPI32Command ---- */

DWORD ASPI_CDECL GetASPI32SupportInfo(void)
{
    if (!pcam_aspi_mgr.up)
        return (DWORD)SS_FAILED_INIT << 8;
    if (pcam_aspi_mgr.count == 0)
        return (DWORD)SS_NO_ADAPTERS << 8;
    return ((DWORD)SS_COMP << 8) | pcam_aspi_mgr.count;
}

DWORD ASPI_CDECL GetASPI32DLLVersion(void)
{
    return ASPI_DLL_VERSION;
}

BOOL ASPI_CDECL TranslateASPI32Address(PDWORD path, PDWORD devnode)
{
    if (path == NULL || devnode == NULL || !pcam_aspi_mgr.up ||
        pcam_aspi_mgr.host.translate == NULL)
        return FALSE;
    uint32_t p = *path, d = *devnode;
    if (!pcam_aspi_mgr.host.translate(pcam_aspi_mgr.host.ctx, &p, &d))
        return FALSE;
    *path = p;
    *devnode = d;
    return TRUE;
}

BOOL ASPI_CDECL GetASPI32Buffer(PASPI32BUFF buf)
{
    if (buf == NULL)
        return FALSE;
    buf->AB_BufPointer = NULL;
    DWORD len = buf->AB_BufLen;
    if (!pcam_aspi_mgr.up || pcam_aspi_mgr.host.buf_alloc == NULL || len == 0 ||
        len > PCAM_ASPI_BUFFER_MAX)
        return FALSE;
    host_lock();
    aspi_buf *slot = NULL;
    for (size_t i = 0; i < PCAM_ASPI_MAX_BUFFERS && slot == NULL; i++)
        if (pcam_aspi_mgr.bufs[i].p == NULL)
            slot = &pcam_aspi_mgr.bufs[i];
    void *p = NULL;
    if (slot != NULL)
        p = pcam_aspi_mgr.host.buf_alloc(pcam_aspi_mgr.host.ctx, len, PCAM_ASPI_BUFFER_ALIGN);
    /* A host that ignores the alignment would break clients that rely on it. */
    if (p != NULL && ((uintptr_t)p & (PCAM_ASPI_BUFFER_ALIGN - 1u)) != 0) {
        pcam_aspi_mgr.host.buf_free(pcam_aspi_mgr.host.ctx, p, len);
        p = NULL;
    }
    if (p != NULL) {
        slot->p = p;
        slot->len = len;
    }
    host_unlock();
    if (p == NULL)
        return FALSE;
    if (buf->AB_ZeroFill != 0)
        memset(p, 0, len);
    buf->AB_BufPointer = p;
    return TRUE;
}

BOOL ASPI_CDECL FreeASPI32Buffer(PASPI32BUFF buf)
{
    if (buf == NULL || buf->AB_BufPointer == NULL || !pcam_aspi_mgr.up)
        return FALSE;
    aspi_buf found = {NULL, 0};
    host_lock();
    for (size_t i = 0; i < PCAM_ASPI_MAX_BUFFERS; i++) {
        if (pcam_aspi_mgr.bufs[i].p == (void *)buf->AB_BufPointer) {
            found = pcam_aspi_mgr.bufs[i];
            pcam_aspi_mgr.bufs[i].p = NULL;
            pcam_aspi_mgr.bufs[i].len = 0;
            break;
        }
    }
    host_unlock();
    /* Only buffers this manager handed out are given back. */
    if (found.p == NULL)
        return FALSE;
    pcam_aspi_mgr.host.buf_free(pcam_aspi_mgr.host.ctx, found.p, found.len);
    buf->AB_BufPointer = NULL;
    return TRUE;
}
