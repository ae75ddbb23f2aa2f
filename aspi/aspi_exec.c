/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The asynchronous commands (SC_EXEC_SCSI_CMD, SC_RESET_DEV) and the abort
 * that quiesces them. The rules of ASPI.md, in the order they bite:
 *  1. SS_PENDING is in SRB_Status before the core can complete the request,
 *     and SS_PENDING is what the call returns;
 *  2. at completion data, residual, HaStat, TargStat and sense are written
 *     first and SRB_Status last, with release ordering; after that store
 *     the SRB is the client's again and is never read or written;
 *  3. exactly one notification, also for requests refused at once;
 *  7. an abort returns only once the SRB is quiet (completed and notified).
 */
#include "aspi_internal.h"

#include "pcam/pcam_cdb.h"

#define EXEC_FLAGS (SRB_POSTING | SRB_ENABLE_RESIDUAL_COUNT | SRB_DIR_IN | SRB_DIR_OUT | SRB_EVENT_NOTIFY)

/* POSTING and EVENT_NOTIFY together leave SRB_PostProc meaning two things;
 * calling a handle or signalling a function would be worse than silence,
 * so such an SRB (refused as invalid) is the one that is not notified. */
static uint8_t notify_mode(BYTE flags)
{
    bool post = (flags & SRB_POSTING) != 0, ev = (flags & SRB_EVENT_NOTIFY) != 0;
    if (post && ev)
        return NOTIFY_NONE;
    return post ? NOTIFY_POST : ev ? NOTIFY_EVENT : NOTIFY_NONE;
}

/* An event client whose host cannot signal would wait forever. */
static bool can_notify(uint8_t mode)
{
    return mode != NOTIFY_EVENT || pcam_aspi_mgr.host.signal_event != NULL;
}

/* In the client's call, before the final status can be stored: what the
 * request's notification will use. An event handle is the host's own
 * reference to it, taken now (pcam_aspi_host::hold_event): the signal
 * comes after the final status, when the client may have closed its
 * handle already. */
static void *notify_target(uint8_t mode, void *post)
{
    const pcam_aspi_host *h = &pcam_aspi_mgr.host;
    if (mode != NOTIFY_EVENT || post == NULL || h->hold_event == NULL)
        return post;
    return h->hold_event(h->ctx, post);
}

/* Refuse a request without the core: status, then the one notification
 * (through the host's own reference to an event too: signal_event
 * releases what it is given). */
static DWORD refuse(void *srb, BYTE *status, BYTE *hastat, BYTE *targstat, BYTE st,
                    uint8_t mode, void *post)
{
    *hastat = HASTAT_OK;
    *targstat = 0;
    void *target = notify_target(mode, post);
    aspi_store_status(status, st);
    pcam_aspi_notify(mode, target, srb);
    return st;
}

/* With the lock held: whether the core still runs this SRB here. One whose
 * status is final may be resubmitted while its last notification is still
 * on its way (a client that reuses its SRB as soon as the posting
 * routine ran does exactly that). */
static bool in_flight(const pcam_aspi_adapter *ad, const void *srb)
{
    for (size_t i = 0; i < ad->nreqs; i++)
        if (ad->reqs[i].state == REQ_CORE && ad->reqs[i].srb == srb)
            return true;
    return false;
}

static pcam_aspi_req *take_slot(pcam_aspi_adapter *ad)
{
    for (size_t i = 0; i < ad->nreqs; i++)
        if (ad->reqs[i].state == REQ_FREE)
            return &ad->reqs[i];
    return NULL;
}

/* With the lock held, after the final status store. */
static void finish(pcam_aspi_adapter *ad, pcam_aspi_req *r)
{
    if (r->notify == NOTIFY_NONE || r->post == NULL) {
        r->state = REQ_FREE;
        r->srb = NULL;
        r->post = NULL;
        r->gen++;
    } else {
        r->state = REQ_QUEUED;
        r->next = NULL;
        if (ad->nq_tail != NULL)
            ad->nq_tail->next = r;
        else
            ad->nq_head = r;
        ad->nq_tail = r;
    }
    if (ad->ops.wake != NULL)
        ad->ops.wake(ad->ctx);
}

static uint32_t timeout_ms(const pcam_aspi_adapter *ad, uint8_t target, uint8_t lun)
{
    if (target >= PCAM_MAX_TARGETS || lun >= PCAM_ASPI_TIMEOUT_LUNS)
        return 0;
    return ad->timeout_s[target][lun] * 1000u;
}

static void exec_done(pcam_ccb *ccb)
{
    pcam_aspi_req *r = ccb->user;
    SRB_ExecSCSICmd *srb = r->srb;
    uint8_t ss, hastat;
    pcam_aspi_map_status(ccb->status, &ss, &hastat);
    if (ss == SS_COMP) {
        srb->SRB_HaStat = HASTAT_OK;
        srb->SRB_TargStat = 0;
    } else {
        srb->SRB_HaStat = hastat;
        srb->SRB_TargStat = ccb->u.io.scsi_status;
    }
    if (r->residual) {
        /* Bytes the client offered that did not move: a CDB without a data
         * phase moved none of them. */
        srb->SRB_BufLen = r->buflen - (ccb->u.io.data_len - ccb->u.io.resid);
    }
    aspi_store_status(&srb->SRB_Status, ss);
    finish(r->ad, r);
}

static void reset_done(pcam_ccb *ccb)
{
    pcam_aspi_req *r = ccb->user;
    SRB_BusDeviceReset *srb = r->srb;
    uint8_t ss, hastat;
    pcam_aspi_map_status(ccb->status, &ss, &hastat);
    srb->SRB_HaStat = ss == SS_COMP ? HASTAT_OK : hastat;
    srb->SRB_TargStat = 0;
    aspi_store_status(&srb->SRB_Status, ss);
    finish(r->ad, r);
}

/* Direction of the data phase, or -1 when the SRB cannot say. */
static int exec_dir(const SRB_ExecSCSICmd *srb, BYTE flags)
{
    if (srb->SRB_BufLen == 0)
        return PCAM_DIR_NONE;
    if ((flags & (SRB_DIR_IN | SRB_DIR_OUT)) == SRB_DIR_IN)
        return PCAM_DIR_IN;
    if ((flags & (SRB_DIR_IN | SRB_DIR_OUT)) == SRB_DIR_OUT)
        return PCAM_DIR_OUT;
    pcam_cdb_info info;
    if (pcam_cdb_decode(srb->CDBByte, srb->SRB_CDBLen, 0, &info) != PCAM_OK)
        return -1;
    if (info.dir == PCAM_DIR_UNKNOWN)
        return -1;
    return (int)info.dir;
}

/* With the lock held: whether the last scan found no logical unit at any
 * LUN of the target. Such an ID is answered SS_NO_DEVICE without selecting
 * it, as ASPI managers answer for devices their scan did not install
 * (docs/aspi.md, "An empty ID"). A path the core cannot hold a device at
 * (the adapter's own ID, LUN 8) is left to the core, which refuses it. */
static bool target_empty(pcam_aspi_adapter *ad, uint8_t target, uint8_t lun)
{
    const pcam_pathinq *pi = &ad->pathinq;
    if (target > pi->max_target || target == pi->initiator_id || lun > pi->max_lun)
        return false;
    for (unsigned l = 0; l <= pi->max_lun; l++) {
        pcam_ccb ccb;
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_GET_DEV;
        ccb.target = target;
        /* The LUN asked for first: a present one answers at once. */
        ccb.lun = (uint8_t)(l == 0 ? lun : l == lun ? 0 : l);
        uint32_t st = pcam_aspi_run_ccb(ad, &ccb) & PCAM_STATUS_MASK;
        /* Present, or a bus the core cannot ask (shut down): not the
         * table's to answer. */
        if (st != PCAM_DEV_NOT_THERE)
            return false;
    }
    return true;
}

/* Submit a prepared slot with the lock held, and return SS_PENDING. */
static DWORD submit(pcam_aspi_adapter *ad, pcam_aspi_req *r, BYTE *status)
{
    /* Rule 1: pending before the core can complete it (it may, inside
     * pcam_action, and then the final status overwrites this one). */
    *status = SS_PENDING;
    pcam_action(ad->bus, &r->ccb);
    if (ad->ops.kick != NULL)
        ad->ops.kick(ad->ctx);
    bool deliver = pcam_aspi_may_deliver(ad);
    ad->ops.unlock(ad->ctx);
    if (deliver)
        pcam_aspi_deliver(ad);
    return SS_PENDING;
}

DWORD pcam_aspi_exec(SRB_ExecSCSICmd *srb)
{
    BYTE flags = srb->SRB_Flags;
    uint8_t mode = notify_mode(flags);
    void *post = srb->SRB_PostProc;
#define REFUSE(st) refuse(srb, &srb->SRB_Status, &srb->SRB_HaStat, &srb->SRB_TargStat, (st), mode, post)
    if (!pcam_aspi_mgr.up)
        return REFUSE(SS_NO_ASPI);
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return REFUSE(SS_INVALID_HA);
    if ((flags & ~EXEC_FLAGS) != 0 || (flags & SRB_POSTING && flags & SRB_EVENT_NOTIFY) ||
        (flags & SRB_DIR_IN && flags & SRB_DIR_OUT) || !can_notify(mode))
        return REFUSE(SS_INVALID_SRB);
    if (srb->SRB_CDBLen == 0 || srb->SRB_CDBLen > 16)
        return REFUSE(SS_INVALID_SRB);
    DWORD len = srb->SRB_BufLen;
    BYTE *buf = srb->SRB_BufPointer;
    if (len != 0 && buf == NULL)
        return REFUSE(SS_INVALID_SRB);
    if (len != 0 && ((uintptr_t)buf & ad->pathinq.align_mask) != 0)
        return REFUSE(SS_BUFFER_ALIGN);
    if (ad->pathinq.max_xfer != 0 && len > ad->pathinq.max_xfer)
        return REFUSE(SS_BUFFER_TO_BIG);
    int dir = exec_dir(srb, flags);
    if (dir < 0)
        return REFUSE(SS_INVALID_SRB);

    ad->ops.lock(ad->ctx);
    if (in_flight(ad, srb)) {
        /* Its own completion will notify; this call must not touch it. */
        ad->ops.unlock(ad->ctx);
        return SS_INVALID_SRB;
    }
    if (target_empty(ad, srb->SRB_Target, srb->SRB_Lun)) {
        ad->ops.unlock(ad->ctx);
        return REFUSE(SS_NO_DEVICE);
    }
    pcam_aspi_req *r = take_slot(ad);
    if (r == NULL) {
        ad->ops.unlock(ad->ctx);
        return REFUSE(SS_ASPI_IS_BUSY);
    }
    r->state = REQ_CORE;
    r->srb = srb;
    r->post = notify_target(mode, post);
    r->notify = mode;
    r->cmd = SC_EXEC_SCSI_CMD;
    r->residual = (flags & SRB_ENABLE_RESIDUAL_COUNT) != 0 && ad->pathinq.residuals;
    r->buflen = len;

    pcam_ccb *c = &r->ccb;
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    c->target = srb->SRB_Target;
    c->lun = srb->SRB_Lun;
    /* ASPI is a pass-through: no retries and no recovery (the client sees
     * UNIT ATTENTION, also the one of a reset it asked for, and BUSY
     * itself); tags only where the LUN takes them, so QUEUE FULL
     * stays the core's business; a CDB whose length does not match its
     * opcode group goes to the target, which judges it (tools send such
     * CDBs on purpose). */
    c->flags = PCAM_CCB_TAGGED | PCAM_CCB_PASSTHRU | PCAM_CCB_NO_RECOVERY;
    if (srb->SRB_SenseLen == 0)
        c->flags |= PCAM_CCB_DIS_AUTOSENSE;
    c->timeout_ms = timeout_ms(ad, srb->SRB_Target, srb->SRB_Lun);
    c->done = exec_done;
    c->user = r;
    memcpy(c->u.io.cdb, srb->CDBByte, srb->SRB_CDBLen);
    c->u.io.cdb_len = srb->SRB_CDBLen;
    c->u.io.dir = (pcam_dir)dir;
    if (dir != PCAM_DIR_NONE) {
        c->u.io.data = buf;
        c->u.io.data_len = len;
    }
    /* Autosense lands straight in the SRB, however long the client made
     * its SenseArea. */
    c->u.io.sense = srb->SRB_SenseLen != 0 ? srb->SenseArea : NULL;
    c->u.io.sense_len = srb->SRB_SenseLen;
    c->u.io.tag_action = PCAM_TAG_SIMPLE;
    c->u.io.retries = PCAM_HOST_RETRIES; /* ASPI applications retry themselves */
    srb->SRB_HaStat = HASTAT_OK;
    srb->SRB_TargStat = 0;
    return submit(ad, r, &srb->SRB_Status);
#undef REFUSE
}

DWORD pcam_aspi_reset_dev(SRB_BusDeviceReset *srb)
{
    BYTE flags = srb->SRB_Flags;
    uint8_t mode = notify_mode(flags);
    void *post = srb->SRB_PostProc;
#define REFUSE(st) refuse(srb, &srb->SRB_Status, &srb->SRB_HaStat, &srb->SRB_TargStat, (st), mode, post)
    if (!pcam_aspi_mgr.up)
        return REFUSE(SS_NO_ASPI);
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return REFUSE(SS_INVALID_HA);
    if (((flags & SRB_POSTING) != 0 && (flags & SRB_EVENT_NOTIFY) != 0) || !can_notify(mode))
        return REFUSE(SS_INVALID_SRB);

    ad->ops.lock(ad->ctx);
    if (in_flight(ad, srb)) {
        ad->ops.unlock(ad->ctx);
        return SS_INVALID_SRB;
    }
    if (target_empty(ad, srb->SRB_Target, srb->SRB_Lun)) {
        ad->ops.unlock(ad->ctx);
        return REFUSE(SS_NO_DEVICE);
    }
    pcam_aspi_req *r = take_slot(ad);
    if (r == NULL) {
        ad->ops.unlock(ad->ctx);
        return REFUSE(SS_ASPI_IS_BUSY);
    }
    r->state = REQ_CORE;
    r->srb = srb;
    r->post = notify_target(mode, post);
    r->notify = mode;
    r->cmd = SC_RESET_DEV;
    r->residual = 0;
    r->buflen = 0;
    pcam_ccb *c = &r->ccb;
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_RESET_DEV;
    c->target = srb->SRB_Target;
    c->lun = srb->SRB_Lun;
    c->done = reset_done;
    c->user = r;
    srb->SRB_HaStat = HASTAT_OK;
    srb->SRB_TargStat = 0;
    return submit(ad, r, &srb->SRB_Status);
#undef REFUSE
}

typedef struct quiet_wait {
    const pcam_aspi_req *r;
    uint32_t gen;
} quiet_wait;

static bool slot_quiet(void *arg)
{
    const quiet_wait *q = arg;
    return q->r->gen != q->gen;
}

DWORD pcam_aspi_abort(SRB_Abort *srb)
{
    if (!pcam_aspi_mgr.up)
        return SS_NO_ASPI;
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return SS_INVALID_HA;
    void *victim = srb->SRB_ToAbort;
    if (victim == NULL)
        return SS_INVALID_SRB;

    ad->ops.lock(ad->ctx);
    /* Every slot that still holds the SRB: at most one in the core, and
     * earlier uses of it whose notification is still on its way. */
    for (;;) {
        pcam_aspi_req *r = NULL;
        for (size_t i = 0; i < ad->nreqs && r == NULL; i++)
            if (ad->reqs[i].state != REQ_FREE && ad->reqs[i].srb == victim)
                r = &ad->reqs[i];
        if (r == NULL)
            break;
        quiet_wait q = {r, r->gen};
        if (r->state == REQ_CORE) {
            pcam_ccb ab;
            memset(&ab, 0, sizeof ab);
            ab.func = PCAM_FN_ABORT;
            ab.u.abort.victim = &r->ccb;
            /* The core refuses only a victim that already finished or is on
             * the bus as a reset; either way it completes by itself. */
            (void)pcam_aspi_run_ccb(ad, &ab);
        }
        /* Completed and notified: only then may the client reuse it. */
        pcam_aspi_wait_until(ad, slot_quiet, &q);
    }
    ad->ops.unlock(ad->ctx);
    /* The outcome is in the aborted SRB (SS_ABORTED, or how it ended). */
    return SS_COMP;
}
