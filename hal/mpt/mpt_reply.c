/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Fusion-MPT reply path: the reply post FIFO drained on each poll,
 * context replies and address replies decoded and checked, SCSI IO
 * outcomes turned into the core's statuses (with residual and autosense),
 * task management answers, events. Everything the IOC says is distrusted:
 * a reply word that names no live command or no frame of ours, a length
 * beyond the frame, a transfer count beyond the command, a target outside
 * the bus: each gets a defined outcome and a log line, and nothing is
 * written outside the command's own buffers. No policy here.
 */
#include "mpt_internal.h"

int mpt_decode_reply(const uint8_t *f, size_t cap, mpt_reply *out)
{
    memset(out, 0, sizeof *out);
    if (cap < REPLY_MIN)
        return PCAM_ERR_TRUNCATED;
    out->function = f[M_FUNCTION];
    out->msg_len = f[M_CHAIN_OR_LEN];
    out->context = pcam_get_le32(f + M_CONTEXT);
    size_t len = (size_t)out->msg_len * 4u;
    if (len < REPLY_MIN || len > cap)
        return PCAM_ERR_LENGTH;
    out->ioc_status = (uint16_t)(pcam_get_le16(f + M_IOCSTATUS) & IOC_STATUS_MASK);
    out->log_info = pcam_get_le32(f + M_LOGINFO);
    switch (out->function) {
    case F_SCSI_IO:
        if (len < IOR_SIZE - 4u) /* up to ResponseInfo; TaskTag is unused */
            return PCAM_ERR_LENGTH;
        out->target = f[IO_TARGET];
        out->scsi_status = f[IOR_SCSI_STATUS];
        out->scsi_state = f[IOR_SCSI_STATE];
        out->xfer = pcam_get_le32(f + IOR_XFER);
        out->sense_count = pcam_get_le32(f + IOR_SENSE_COUNT);
        return PCAM_OK;
    case F_TASK_MGMT:
        if (len < TMR_SIZE)
            return PCAM_ERR_LENGTH;
        out->target = f[IO_TARGET];
        out->tm_response = f[TMR_RESPONSE];
        out->tm_type = f[TM_TYPE];
        out->term_count = pcam_get_le32(f + TMR_TERM_COUNT);
        return PCAM_OK;
    case F_EVENT_NOTIFY:
        if (len < EVR_DATA)
            return PCAM_ERR_LENGTH;
        out->data_words = pcam_get_le16(f + EVR_DATA_LEN);
        out->ack_required = f[EVR_ACK_REQUIRED] != 0;
        out->event = pcam_get_le32(f + EVR_EVENT);
        out->event_context = pcam_get_le32(f + EVR_CONTEXT);
        if ((size_t)EVR_DATA + 4u * out->data_words > len)
            return PCAM_ERR_LENGTH;
        out->data = f + EVR_DATA;
        return PCAM_OK;
    case F_EVENT_ACK:
    case F_CONFIG:
    case F_PORT_ENABLE:
        return PCAM_OK;
    default:
        return PCAM_ERR_RESERVED;
    }
}

/* ---- reporting ---- */

static void finish(mpt_sc *s, unsigned i, pcam_hal_cmd_result *r)
{
    mpt_slot *sl = &s->slot[i];
    const void *h = sl->handle;
    uint8_t t = sl->target, l = sl->lun;
    mpt_free_slot(s, i);
    if (s->bus == NULL)
        return;
    s->st.completed++;
    (void)pcam_bus_hal_done(s->bus, h, t, l, r);
}

static void finish_status(mpt_sc *s, unsigned i, uint32_t status, uint32_t resid)
{
    pcam_hal_cmd_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.resid = resid;
    finish(s, i, &r);
}

/* Is a reset of ours pending that covers slot i's command? Then a
 * termination is that reset's doing, and the command waits for it. */
static bool reset_covers(const mpt_sc *s, const mpt_slot *sl)
{
    const mpt_slot *r = &s->slot[S_RESET];
    if (s->slot[S_BUSRESET].state == SL_LIVE)
        return true;
    return r->state == SL_LIVE && r->target == sl->target && (!r->lun_reset || r->lun == sl->lun);
}

static void io_done(mpt_sc *s, unsigned i, const mpt_reply *rp)
{
    mpt_slot *sl = &s->slot[i];
    pcam_hal_cmd_result r;
    memset(&r, 0, sizeof r);
    r.resid = sl->data_len;
    bool have_status = (rp->scsi_state & SS_NO_STATUS) == 0;
    switch (rp->ioc_status) {
    case IOC_SUCCESS:
    case IOC_RECOVERED:
    case IOC_DATA_UNDERRUN:
    case IOC_RESIDUAL_MISMATCH:
        if (!have_status) {
            r.status = PCAM_REQ_CMP_ERR;
            break;
        }
        if (rp->xfer > sl->data_len) {
            mpt_log(s, PCAM_LOG_ERROR, "reply claims more data than asked, count", rp->xfer);
            r.status = PCAM_DATA_RUN_ERR;
            break;
        }
        r.status = PCAM_REQ_CMP;
        r.scsi_status = rp->scsi_status;
        r.resid = sl->data_len - rp->xfer;
        if (sl->autosense && (rp->scsi_state & (SS_AUTOSENSE_VALID | SS_AUTOSENSE_FAILED)) != 0) {
            uint32_t n = 0;
            if ((rp->scsi_state & SS_AUTOSENSE_VALID) != 0) {
                n = rp->sense_count;
                if (n > SENSE_BYTES)
                    n = SENSE_BYTES;
                if (n > sl->sense_cap)
                    n = sl->sense_cap;
                memcpy(sl->sense, s->dma + A_SENSE + SENSE_BYTES * i, n);
            }
            r.sense_done = true;
            r.sense_len = (uint8_t)n;
        }
        break;
    case IOC_DATA_OVERRUN:
        r.status = PCAM_DATA_RUN_ERR;
        break;
    case IOC_INVALID_BUS:
    case IOC_INVALID_TARGETID:
    case IOC_DEVICE_NOT_THERE:
        r.status = PCAM_SEL_TIMEOUT;
        break;
    case IOC_TASK_TERMINATED:
    case IOC_IOC_TERMINATED:
    case IOC_EXT_TERMINATED:
        /* A reset of ours comes after an abort that did not work: it
         * decides first. */
        if (reset_covers(s, sl)) {
            sl->state = SL_HELD; /* the reset's answer decides */
            return;
        } else if (sl->abort_asked) {
            r.status = PCAM_REQ_ABORTED;
        } else {
            r.status = PCAM_REQ_CMP_ERR;
        }
        break;
    case IOC_PROTOCOL_ERROR:
        r.status = PCAM_SEQUENCE_FAIL;
        break;
    case IOC_BUSY:
    case IOC_INSUFFICIENT:
        /* The IOC has no room now: as the target's BUSY, the core waits and retries. */
        r.status = PCAM_REQ_CMP;
        r.scsi_status = 0x08;
        break;
    default:
        mpt_log(s, PCAM_LOG_WARN, "SCSI IO ended with IOCStatus", rp->ioc_status);
        r.status = PCAM_REQ_CMP_ERR;
        break;
    }
    finish(s, i, &r);
}

static uint32_t tm_status(const mpt_reply *rp)
{
    if (rp->ioc_status == IOC_DEVICE_NOT_THERE || rp->ioc_status == IOC_INVALID_TARGETID ||
        rp->ioc_status == IOC_INVALID_BUS)
        return PCAM_SEL_TIMEOUT;
    if (rp->ioc_status != IOC_SUCCESS)
        return PCAM_REQ_CMP_ERR;
    if (rp->tm_response == TMR_COMPLETE || rp->tm_response == TMR_SUCCEEDED)
        return PCAM_REQ_CMP;
    return PCAM_MSG_REJECT_REC;
}

/* A device reset's answer: on success its commands are gone (forgotten,
 * the core has taken them back); otherwise the ones it terminated end now. */
static void reset_done(mpt_sc *s, uint32_t status)
{
    mpt_slot *r = &s->slot[S_RESET];
    uint8_t t = r->target, l = r->lun;
    bool lr = r->lun_reset;
    mpt_free_slot(s, S_RESET);
    for (unsigned i = 0; i < PCAM_MPT_MAX_CMDS; i++) {
        mpt_slot *sl = &s->slot[i];
        if (sl->state == SL_FREE || sl->target != t || (lr && sl->lun != l))
            continue;
        if (status == PCAM_REQ_CMP)
            mpt_free_slot(s, i);
        else if (sl->state == SL_HELD)
            finish_status(s, i, PCAM_REQ_CMP_ERR, sl->data_len);
    }
    if (s->bus != NULL)
        (void)pcam_bus_hal_reset_done(s->bus, t, l, lr, status);
}

static void bus_reset_seen(mpt_sc *s)
{
    mpt_slot *e = &s->slot[S_EVENT];
    uint8_t ev_state = e->state;
    uint16_t ev_gen = e->gen;
    /* The event frame stays with the IOC across a bus reset. */
    mpt_forget_all(s);
    e->state = ev_state;
    e->gen = ev_gen;
    s->st.bus_resets++;
    s->ev_reset = true;
}

static void tm_done(mpt_sc *s, unsigned slot, const mpt_reply *rp, bool context_only)
{
    uint32_t st = context_only ? PCAM_REQ_CMP : tm_status(rp);
    if (slot == S_RESET) {
        reset_done(s, st);
    } else if (slot == S_BUSRESET) {
        mpt_free_slot(s, S_BUSRESET);
        if (st == PCAM_REQ_CMP) {
            bus_reset_seen(s);
        } else {
            mpt_log(s, PCAM_LOG_ERROR, "bus reset refused, IOCStatus", rp->ioc_status);
            /* Held commands end now; the core's timer escalates the reset. */
            for (unsigned i = 0; i < PCAM_MPT_MAX_CMDS; i++)
                if (s->slot[i].state == SL_HELD)
                    finish_status(s, i, PCAM_REQ_CMP_ERR, s->slot[i].data_len);
        }
    } else {
        /* ABORT TASK: the victim's own reply (terminated or finished)
         * reports it; if the IOC did not know it, the core escalates. */
        mpt_free_slot(s, S_ABORT);
    }
}

static void send_ack(mpt_sc *s)
{
    mpt_slot *a = &s->slot[S_ACK];
    if (a->state != SL_FREE) {
        s->ack_pending = true;
        return;
    }
    uint8_t *f = mpt_frame(s, S_ACK);
    memset(f, 0, FRAME_BYTES);
    f[M_FUNCTION] = F_EVENT_ACK;
    pcam_put_le32(f + M_CONTEXT, CTX(S_ACK, a->gen));
    pcam_put_le32(f + 12, s->ack_event);
    pcam_put_le32(f + 16, s->ack_context);
    a->state = SL_LIVE;
    s->ack_pending = false;
    mpt_post(s, S_ACK);
}

static void event(mpt_sc *s, const mpt_reply *rp)
{
    s->st.events++;
    switch (rp->event) {
    case EV_EVENT_CHANGE:
        break;
    case EV_IOC_BUS_RESET:
    case EV_EXT_BUS_RESET:
        mpt_log(s, PCAM_LOG_WARN, "IOC reports a bus reset, event", rp->event);
        bus_reset_seen(s);
        break;
    case EV_SAS_DEVICE_STATUS:
        if (rp->data_words < 1u) {
            mpt_log(s, PCAM_LOG_WARN, "device status event without data, length", rp->data_words);
            break;
        }
        if (rp->data[0] >= s->ntargets || rp->data[1] != 0) {
            mpt_log(s, PCAM_LOG_WARN, "device status event for a target outside the bus", rp->data[0]);
            break;
        }
        if (rp->data[2] == DEV_RC_ADDED || rp->data[2] == DEV_RC_NOT_RESPONDING) {
            bool added = rp->data[2] == DEV_RC_ADDED;
            s->st.dev_changes++;
            mpt_log(s, PCAM_LOG_INFO, added ? "device added, target" : "device not responding, target",
                    rp->data[0]);
            (void)pcam_bus_hal_device_changed(s->bus, rp->data[0], 0xFFu, added);
        }
        break;
    case EV_RESCAN:
        s->st.dev_changes++;
        mpt_log(s, PCAM_LOG_INFO, "IOC asks for a rescan, event", rp->event);
        (void)pcam_bus_hal_device_changed(s->bus, 0xFFu, 0xFFu, true);
        break;
    default:
        break;
    }
    if (rp->ack_required) {
        s->ack_event = rp->event;
        s->ack_context = rp->event_context;
        send_ack(s);
    }
}

/* The live slot a context names, or -1 (logged). */
static int ctx_slot(mpt_sc *s, uint32_t ctx)
{
    unsigned i = ctx & 0xFFu;
    if ((ctx >> 22) != 0 || i >= MPT_SLOTS) {
        s->st.bad_replies++;
        mpt_log(s, PCAM_LOG_ERROR, "reply with an unknown context", ctx);
        return -1;
    }
    const mpt_slot *sl = &s->slot[i];
    if (sl->state == SL_FREE || sl->gen != ((ctx >> 8) & CTX_GEN_MASK)) {
        s->st.stale_replies++; /* a command forgotten at a reset, or a lie */
        mpt_log(s, PCAM_LOG_WARN, "reply for no live command, context", ctx);
        return -1;
    }
    return (int)i;
}

static void context_reply(mpt_sc *s, uint32_t ctx)
{
    s->st.context_replies++;
    int i = ctx_slot(s, ctx);
    if (i < 0)
        return;
    if (i < (int)PCAM_MPT_MAX_CMDS) {
        if (s->slot[i].state != SL_LIVE)
            return;
        finish_status(s, (unsigned)i, PCAM_REQ_CMP, 0);
    } else if (i == S_ABORT || i == S_RESET || i == S_BUSRESET) {
        tm_done(s, (unsigned)i, NULL, true);
    } else if (i == S_ACK) {
        mpt_free_slot(s, S_ACK);
    }
}

static void address_reply(mpt_sc *s, uint32_t word)
{
    uint32_t lo = word << 1;
    uint32_t base = (uint32_t)(s->dma_bus + A_REPLIES);
    s->st.address_replies++;
    if (lo < base || lo - base >= PCAM_MPT_REPLY_FRAMES * REPLY_BYTES || (lo - base) % REPLY_BYTES != 0) {
        /* Not one of our frames: nothing to read, nothing to give back. */
        s->st.bad_replies++;
        mpt_log(s, PCAM_LOG_ERROR, "address reply outside the reply frames", lo);
        return;
    }
    unsigned k = (lo - base) / REPLY_BYTES;
    if ((s->lent[k / 8u] & (1u << (k % 8u))) == 0) {
        /* Ours, but not lent: a frame given back twice. Giving it to the
         * IOC again would overfill its free queue. */
        s->st.bad_replies++;
        mpt_log(s, PCAM_LOG_ERROR, "address reply in a frame the IOC does not hold", lo);
        return;
    }
    s->lent[k / 8u] &= (uint8_t)~(1u << (k % 8u));
    const uint8_t *f = s->dma + A_REPLIES + (lo - base);
    mpt_reply rp;
    int rc = mpt_decode_reply(f, REPLY_BYTES, &rp);
    int i = rp.function == F_EVENT_NOTIFY ? -1 : ctx_slot(s, rp.context);
    if (rc != PCAM_OK) {
        s->st.bad_replies++;
        mpt_log(s, PCAM_LOG_ERROR, "malformed reply frame, function/length",
                ((uint32_t)rp.function << 8) | rp.msg_len);
        /* A command it names still ends, once, with a defined status. */
        if (i >= 0 && i < (int)PCAM_MPT_MAX_CMDS && rp.function == F_SCSI_IO)
            finish_status(s, (unsigned)i, PCAM_REQ_CMP_ERR, s->slot[i].data_len);
    } else if (rp.function == F_EVENT_NOTIFY) {
        event(s, &rp);
    } else if (i >= 0 && i < (int)PCAM_MPT_MAX_CMDS && rp.function == F_SCSI_IO) {
        if (s->slot[i].state != SL_LIVE) {
            /* held for a reset: the reset's answer decides */
        } else if (rp.target != s->slot[i].target) {
            s->st.bad_replies++;
            mpt_log(s, PCAM_LOG_ERROR, "SCSI IO reply names another target", rp.target);
            finish_status(s, (unsigned)i, PCAM_REQ_CMP_ERR, s->slot[i].data_len);
        } else {
            io_done(s, (unsigned)i, &rp);
        }
    } else if ((i == S_ABORT || i == S_RESET || i == S_BUSRESET) && rp.function == F_TASK_MGMT) {
        tm_done(s, (unsigned)i, &rp, false);
    } else if (i == S_ACK) {
        mpt_free_slot(s, S_ACK);
    } else if (i >= 0) {
        s->st.bad_replies++;
        mpt_log(s, PCAM_LOG_ERROR, "reply function does not match its request, function", rp.function);
    }
    /* The frame goes back to the IOC after this drain: a frame handed in
     * twice in one drain is then caught as not held. */
    if (s->nback < PCAM_MPT_REPLY_FRAMES)
        s->back[s->nback++] = (uint8_t)k;
}

static void lend_back(mpt_sc *s)
{
    for (unsigned n = 0; n < s->nback; n++) {
        unsigned k = s->back[n];
        s->lent[k / 8u] |= (uint8_t)(1u << (k % 8u));
        mpt_wr(s, R_REPLY_FIFO, (uint32_t)(s->dma_bus + A_REPLIES + REPLY_BYTES * k));
    }
    s->nback = 0;
}

void mpt_reply_word(mpt_sc *s, uint32_t word)
{
    if ((word & ADDRESS_REPLY_BIT) != 0)
        address_reply(s, word);
    else
        context_reply(s, word);
    if (s->ack_pending && s->slot[S_ACK].state == SL_FREE)
        send_ack(s);
}

static int take_event(mpt_sc *s, pcam_hal_event *ev)
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

bool mpt_drain(mpt_sc *s)
{
    uint32_t his = mpt_rd(s, R_HIS);
    if ((his & HIS_REPLY) == 0)
        return false;
    s->st.interrupts++;
    /* Bounded: an IOC that never says "empty" cannot hold us here. */
    for (unsigned n = 0; n < 2u * PCAM_MPT_REPLY_FRAMES + 64u; n++) {
        uint32_t w = mpt_rd(s, R_REPLY_FIFO);
        if (w == FIFO_EMPTY)
            break;
        mpt_reply_word(s, w);
    }
    lend_back(s);
    return true;
}

int mpt_poll(void *sc, pcam_hal_event *ev)
{
    mpt_sc *s = (mpt_sc *)sc;
    if (take_event(s, ev))
        return 1;
    (void)mpt_drain(s);
    uint32_t db = mpt_rd(s, R_DOORBELL);
    if ((db & DB_STATE_MASK) != DB_OPERATIONAL && !s->ev_gross) {
        if ((db & DB_STATE_MASK) == DB_FAULT) {
            s->st.faults++;
            s->st.last_fault = db & DB_DATA_MASK;
        }
        mpt_log(s, PCAM_LOG_ERROR, "IOC left the operational state, doorbell", db);
        s->ev_gross = true;
    }
    return take_event(s, ev);
}
