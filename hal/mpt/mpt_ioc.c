/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IOC bring-up and reset for the Fusion-MPT back-end: the doorbell
 * handshake (a request written a dword at a time, the reply read back 16
 * bits at a time), IOC FACTS, PORT FACTS, IOC INIT, the reply free queue,
 * PORT ENABLE, event notification; message unit reset and hard reset.
 * Every wait is bounded by the platform clock; nothing here may spin on
 * the IOC without a deadline, and nothing is read past the caller's buffer
 * whatever length the IOC claims.
 */
#include "mpt_internal.h"

/* Deadlines (ms). Real IOCs take seconds to come out of reset; QEMU's
 * model answers at once. */
enum { T_WORD = 500, T_STATE = 10000, T_HARD = 30000, T_EVENT = 10 };

static uint64_t now(mpt_sc *s)
{
    return s->p.now_ns(s->p.ctx);
}

static void pause_us(mpt_sc *s, uint32_t us)
{
    if (s->p.delay_us != NULL)
        s->p.delay_us(s->p.ctx, us);
}

/* Wait until (reg & mask) == want, for at most ms. */
static bool wait_reg(mpt_sc *s, unsigned reg, uint32_t mask, uint32_t want, uint32_t ms)
{
    uint64_t end = now(s) + (uint64_t)ms * 1000000u;
    for (;;) {
        if ((mpt_rd(s, reg) & mask) == want)
            return true;
        if (now(s) > end)
            return false;
        pause_us(s, 10);
    }
}

static bool wait_state(mpt_sc *s, uint32_t state, uint32_t ms)
{
    return wait_reg(s, R_DOORBELL, DB_STATE_MASK, state, ms);
}

static bool msg_unit_reset(mpt_sc *s)
{
    s->st.ioc_resets++;
    mpt_wr(s, R_DOORBELL, (uint32_t)F_MSG_UNIT_RESET << DB_FUNC_SHIFT);
    return wait_state(s, DB_READY, T_STATE);
}

/* The diagnostic register is write-protected behind a five-key sequence. */
static bool hard_reset(mpt_sc *s)
{
    static const uint8_t keys[] = {0x0F, 0x04, 0x0B, 0x02, 0x07, 0x0D};
    s->st.hard_resets++;
    mpt_log(s, PCAM_LOG_WARN, "hard reset of the IOC, doorbell", mpt_rd(s, R_DOORBELL));
    for (unsigned k = 0; k < sizeof keys; k++)
        mpt_wr(s, R_WRSEQ, keys[k]);
    uint32_t diag = mpt_rd(s, R_DIAG);
    mpt_wr(s, R_DIAG, diag | DIAG_RESET_ADAPTER);
    pause_us(s, 1000);
    mpt_wr(s, R_WRSEQ, 0); /* any write closes the diagnostic register again */
    return wait_state(s, DB_READY, T_HARD);
}

/* Bring the IOC to READY from whatever state it is in. */
static int make_ready(mpt_sc *s)
{
    uint32_t db = mpt_rd(s, R_DOORBELL);
    if ((db & DB_STATE_MASK) == DB_READY && (db & DB_ACTIVE) == 0)
        return PCAM_OK;
    if ((db & DB_STATE_MASK) == DB_FAULT) {
        s->st.faults++;
        s->st.last_fault = db & DB_DATA_MASK;
        mpt_log(s, PCAM_LOG_WARN, "IOC in FAULT at reset, code", db & DB_DATA_MASK);
    }
    if ((db & DB_STATE_MASK) != DB_RESET && msg_unit_reset(s))
        return PCAM_OK;
    if (hard_reset(s))
        return PCAM_OK;
    mpt_log(s, PCAM_LOG_ERROR, "IOC never became ready, doorbell", mpt_rd(s, R_DOORBELL));
    return PCAM_ERR_UNSUPPORTED;
}

/*
 * One doorbell handshake: the request (dwords), then its reply into
 * reply[0..cap) (cap even). Returns the reply's length in bytes as the IOC
 * stated it (its excess words are read and dropped), or a negative error.
 */
static int handshake(mpt_sc *s, const uint8_t *req, unsigned dwords, uint8_t *reply, unsigned cap)
{
    if ((mpt_rd(s, R_DOORBELL) & DB_ACTIVE) != 0) {
        mpt_log(s, PCAM_LOG_ERROR, "doorbell busy before a handshake, function", req[M_FUNCTION]);
        return PCAM_ERR_UNSUPPORTED;
    }
    mpt_wr(s, R_HIS, 0);
    mpt_wr(s, R_DOORBELL, ((uint32_t)F_HANDSHAKE << DB_FUNC_SHIFT) | (dwords << DB_DWORDS_SHIFT));
    if (!wait_reg(s, R_HIS, HIS_DOORBELL, HIS_DOORBELL, T_WORD))
        goto timeout;
    mpt_wr(s, R_HIS, 0);
    for (unsigned k = 0; k < dwords; k++) {
        if (!wait_reg(s, R_HIS, HIS_IOP_DOORBELL, 0, T_WORD))
            goto timeout;
        mpt_wr(s, R_DOORBELL, pcam_get_le32(req + 4u * k));
    }
    memset(reply, 0, cap);
    unsigned words = 2; /* until the length byte (byte 2) has been read */
    for (unsigned w = 0; w < words; w++) {
        if (!wait_reg(s, R_HIS, HIS_DOORBELL, HIS_DOORBELL, T_WORD))
            goto timeout;
        uint16_t v = (uint16_t)(mpt_rd(s, R_DOORBELL) & DB_DATA_MASK);
        mpt_wr(s, R_HIS, 0);
        if (2u * w + 1u < cap) {
            reply[2u * w] = (uint8_t)v;
            reply[2u * w + 1u] = (uint8_t)(v >> 8);
        }
        if (w == 1) {
            words = 2u * reply[M_CHAIN_OR_LEN];
            if (words < 2)
                words = 2;
        }
    }
    /* The IOC signals once more when it has let go of the doorbell. */
    if (!wait_reg(s, R_HIS, HIS_DOORBELL, HIS_DOORBELL, T_WORD))
        goto timeout;
    mpt_wr(s, R_HIS, 0);
    return (int)(words * 2u);
timeout:
    mpt_log(s, PCAM_LOG_ERROR, "handshake timed out, function", req[M_FUNCTION]);
    return PCAM_ERR_UNSUPPORTED;
}

/* A handshake whose reply must be at least `need` bytes, for `func`, with
 * IOCStatus SUCCESS. */
static int request(mpt_sc *s, const uint8_t *req, unsigned dwords, uint8_t *reply, unsigned cap,
                   unsigned need)
{
    int n = handshake(s, req, dwords, reply, cap);
    if (n < 0)
        return n;
    if ((unsigned)n < need || reply[M_FUNCTION] != req[M_FUNCTION]) {
        mpt_log(s, PCAM_LOG_ERROR, "malformed bring-up reply, function", reply[M_FUNCTION]);
        return PCAM_ERR_FORMAT;
    }
    uint16_t st = (uint16_t)(pcam_get_le16(reply + M_IOCSTATUS) & IOC_STATUS_MASK);
    if (st != IOC_SUCCESS) {
        mpt_log(s, PCAM_LOG_ERROR, "bring-up message refused, IOCStatus", st);
        return PCAM_ERR_UNSUPPORTED;
    }
    return PCAM_OK;
}

static int ioc_facts(mpt_sc *s)
{
    uint8_t req[12], r[80];
    memset(req, 0, sizeof req);
    req[M_FUNCTION] = F_IOC_FACTS;
    int rc = request(s, req, 3, r, sizeof r, 0x30);
    if (rc != PCAM_OK)
        return rc;
    pcam_mpt_facts *f = &s->facts;
    f->msg_version = pcam_get_le16(r + 0);
    f->max_chain_depth = r[0x14];
    f->reply_queue_depth = pcam_get_le16(r + 0x18);
    f->request_frame_words = pcam_get_le16(r + 0x1A);
    f->product_id = pcam_get_le16(r + 0x1E);
    f->global_credits = pcam_get_le16(r + 0x24);
    f->number_of_ports = r[0x26];
    f->fw_version = pcam_get_le32(r + 0x38);
    if (f->request_frame_words * 4u < FRAME_BYTES || f->global_credits < 8u ||
        f->reply_queue_depth < 8u || f->number_of_ports == 0) {
        mpt_log(s, PCAM_LOG_ERROR, "IOC FACTS out of range, credits", f->global_credits);
        return PCAM_ERR_UNSUPPORTED;
    }
    return PCAM_OK;
}

static int port_facts(mpt_sc *s)
{
    uint8_t req[12], r[40];
    memset(req, 0, sizeof req);
    req[M_FUNCTION] = F_PORT_FACTS;
    int rc = request(s, req, 3, r, sizeof r, 0x1C);
    if (rc != PCAM_OK)
        return rc;
    s->facts.port_type = r[0x15];
    s->facts.port_max_devices = pcam_get_le16(r + 0x16);
    s->facts.port_scsi_id = pcam_get_le16(r + 0x18);
    if ((pcam_get_le16(r + 0x1A) & 0x08u) == 0) { /* ProtocolFlags: initiator */
        mpt_log(s, PCAM_LOG_ERROR, "port 0 is not an initiator, protocol flags", pcam_get_le16(r + 0x1A));
        return PCAM_ERR_UNSUPPORTED;
    }
    s->ntargets = s->want_targets;
    /* The port's own ID is outside the addressed range on QEMU's SAS model
     * (8 with 8 devices); pcam needs one: the highest ID then stands in. */
    s->id = s->facts.port_scsi_id < s->ntargets ? (uint8_t)s->facts.port_scsi_id
                                                 : (uint8_t)(s->ntargets - 1u);
    return PCAM_OK;
}

static int ioc_init(mpt_sc *s)
{
    uint8_t req[44], r[20];
    memset(req, 0, sizeof req);
    req[0] = 0x04; /* WhoInit: host driver */
    req[M_FUNCTION] = F_IOC_INIT;
    req[5] = s->ntargets; /* MaxDevices */
    req[6] = 1;           /* MaxBuses */
    req[0x0C] = (uint8_t)REPLY_BYTES;
    req[0x0D] = (uint8_t)(REPLY_BYTES >> 8);
    pcam_put_le32(req + 0x10, (uint32_t)(s->dma_bus >> 32)); /* frames */
    pcam_put_le32(req + 0x14, (uint32_t)(s->dma_bus >> 32)); /* sense buffers */
    req[0x28] = (uint8_t)s->facts.msg_version;
    req[0x29] = (uint8_t)(s->facts.msg_version >> 8);
    int rc = request(s, req, 11, r, sizeof r, REPLY_MIN);
    if (rc != PCAM_OK)
        return rc;
    if (!wait_state(s, DB_OPERATIONAL, T_STATE)) {
        mpt_log(s, PCAM_LOG_ERROR, "IOC not operational after IOC INIT, doorbell", mpt_rd(s, R_DOORBELL));
        return PCAM_ERR_UNSUPPORTED;
    }
    return PCAM_OK;
}

static int port_enable(mpt_sc *s)
{
    uint8_t req[12], r[20];
    memset(req, 0, sizeof req);
    req[M_FUNCTION] = F_PORT_ENABLE;
    return request(s, req, 3, r, sizeof r, REPLY_MIN);
}

/* Switch event notification on. Its frame stays the IOC's: each event
 * comes back as an address reply naming its context. */
static void event_notify(mpt_sc *s)
{
    mpt_slot *e = &s->slot[S_EVENT];
    uint8_t *f = mpt_frame(s, S_EVENT);
    memset(f, 0, FRAME_BYTES);
    f[0] = 1; /* Switch on */
    f[M_FUNCTION] = F_EVENT_NOTIFY;
    e->state = SL_LIVE;
    pcam_put_le32(f + M_CONTEXT, CTX(S_EVENT, e->gen));
    mpt_post(s, S_EVENT);
}

int mpt_ioc_bringup(mpt_sc *s)
{
    int rc = make_ready(s);
    if (rc != PCAM_OK)
        return rc;
    mpt_wr(s, R_HIM, HIM_DIM | HIM_RIM);
    s->fault_logged = false;
    if ((rc = ioc_facts(s)) != PCAM_OK || (rc = port_facts(s)) != PCAM_OK ||
        (rc = ioc_init(s)) != PCAM_OK)
        return rc;
    unsigned nrep = s->facts.reply_queue_depth < PCAM_MPT_REPLY_FRAMES ? s->facts.reply_queue_depth
                                                                      : PCAM_MPT_REPLY_FRAMES;
    memset(s->lent, 0, sizeof s->lent);
    s->nback = 0;
    for (unsigned k = 0; k < nrep; k++) {
        s->lent[k / 8u] |= (uint8_t)(1u << (k % 8u));
        mpt_wr(s, R_REPLY_FIFO, (uint32_t)(s->dma_bus + A_REPLIES + REPLY_BYTES * k));
    }
    s->facts.replies_posted = (uint16_t)nrep;
    /* Every outstanding command and management frame must find a reply
     * frame: the credits are what both queues allow. */
    unsigned cr = s->facts.global_credits - (MPT_SLOTS - PCAM_MPT_MAX_CMDS);
    if (cr > nrep - (MPT_SLOTS - PCAM_MPT_MAX_CMDS))
        cr = nrep - (MPT_SLOTS - PCAM_MPT_MAX_CMDS);
    s->credits = (uint16_t)(cr < PCAM_MPT_MAX_CMDS ? cr : PCAM_MPT_MAX_CMDS);
    s->facts.credits_used = s->credits;
    if ((rc = port_enable(s)) != PCAM_OK)
        return rc;
    mpt_wr(s, R_HIS, 0);
    mpt_wr(s, R_HIM, HIM_DIM); /* reply interrupts on; the doorbell is polled */
    event_notify(s);
    /* Its answer (EVENT CHANGE) comes at once: take it here, so that the
     * interrupt line is not left high from the bring-up. An embedder
     * installs its handler after attach, and a level line that is already
     * up then may never reach it (pcam.ko on QEMU: the first command's
     * reply waited for the core's timeout and a chip reset). Bounded; an
     * IOC that answers later is served by poll. */
    uint64_t end = now(s) + (uint64_t)T_EVENT * 1000000u;
    while (!mpt_drain(s) && now(s) <= end)
        pause_us(s, 10);
    return PCAM_OK;
}

void mpt_ioc_quiesce(mpt_sc *s)
{
    mpt_wr(s, R_HIM, HIM_DIM | HIM_RIM);
    (void)msg_unit_reset(s);
}
