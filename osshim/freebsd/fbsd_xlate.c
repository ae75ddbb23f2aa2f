/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FreeBSD CAM translator (pcam_fbsd.h): CAM requests in, pcam CCBs to
 * the core, results and one status table back out, the core's async events
 * out as CAM async codes. It must stay translation only: no retries, no
 * queueing, no timers and no FreeBSD header. What CAM's contract asks of a
 * SIM and what it means here:
 * - CAM's peripheral drivers own retries and error recovery (cam_periph_error),
 *   so SCSI I/O goes to the core with no retry budget and
 *   PCAM_CCB_NO_RECOVERY; the core still fetches sense (CAM expects SIM
 *   autosense).
 * - A device-queued CCB (XPT_SCSI_IO, XPT_RESET_DEV) that completes with any
 *   status but CAM_REQ_CMP is returned with CAM_DEV_QFRZN after one
 *   xpt_freeze_devq() (unless the CCB says CAM_DEV_QFRZDIS); the peripheral
 *   releases it (XPT_REL_SIMQ, which xpt handles and no SIM ever sees).
 * - So that nothing queued behind an error overtakes it while the device
 *   queue is frozen, the core hands back the LUN's not yet issued CCBs with
 *   CAM_REQUEUE_REQ (PCAM_CCB_RETURN_QUEUED); xpt holds them in the frozen
 *   queue and sends them again after the release.
 */
#include <string.h>

#include "pcam_fbsd.h"

/* ---- the one status table ---- */

static const struct {
    uint8_t pcam;
    uint8_t cam;
} status_table[] = {
    {PCAM_REQ_INPROG, PCAM_FBSD_CAM_REQ_INPROG}, {PCAM_REQ_CMP, PCAM_FBSD_CAM_REQ_CMP},
    {PCAM_REQ_ABORTED, PCAM_FBSD_CAM_REQ_ABORTED}, {PCAM_REQ_CMP_ERR, PCAM_FBSD_CAM_REQ_CMP_ERR},
    {PCAM_BUSY, PCAM_FBSD_CAM_BUSY}, {PCAM_REQ_INVALID, PCAM_FBSD_CAM_REQ_INVALID},
    {PCAM_PATH_INVALID, PCAM_FBSD_CAM_PATH_INVALID}, {PCAM_DEV_NOT_THERE, PCAM_FBSD_CAM_DEV_NOT_THERE},
    {PCAM_SEL_TIMEOUT, PCAM_FBSD_CAM_SEL_TIMEOUT}, {PCAM_CMD_TIMEOUT, PCAM_FBSD_CAM_CMD_TIMEOUT},
    {PCAM_SCSI_STATUS_ERROR, PCAM_FBSD_CAM_SCSI_STATUS_ERROR}, {PCAM_SCSI_BUS_RESET, PCAM_FBSD_CAM_SCSI_BUS_RESET},
    {PCAM_UNCOR_PARITY, PCAM_FBSD_CAM_UNCOR_PARITY}, {PCAM_AUTOSENSE_FAIL, PCAM_FBSD_CAM_AUTOSENSE_FAIL},
    {PCAM_NO_HBA, PCAM_FBSD_CAM_NO_HBA}, {PCAM_DATA_RUN_ERR, PCAM_FBSD_CAM_DATA_RUN_ERR},
    {PCAM_UNEXP_BUSFREE, PCAM_FBSD_CAM_UNEXP_BUSFREE}, {PCAM_SEQUENCE_FAIL, PCAM_FBSD_CAM_SEQUENCE_FAIL},
    {PCAM_BDR_SENT, PCAM_FBSD_CAM_BDR_SENT}, {PCAM_REQ_TOO_BIG, PCAM_FBSD_CAM_REQ_TOO_BIG},
    {PCAM_REQUEUE_REQ, PCAM_FBSD_CAM_REQUEUE_REQ}, {PCAM_MSG_REJECT_REC, PCAM_FBSD_CAM_MSG_REJECT_REC},
    {PCAM_RESRC_UNAVAIL, PCAM_FBSD_CAM_RESRC_UNAVAIL}, {PCAM_FUNC_NOTAVAIL, PCAM_FBSD_CAM_FUNC_NOTAVAIL},
};

uint32_t pcam_fbsd_status(uint32_t pcam_status)
{
    uint32_t code = pcam_status & PCAM_STATUS_MASK;
    for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
        if (status_table[i].pcam == code)
            return status_table[i].cam;
    return PCAM_FBSD_CAM_REQ_CMP_ERR;
}

uint32_t pcam_fbsd_async_code(uint32_t pcam_code)
{
    switch (pcam_code) {
    case PCAM_AC_BUS_RESET: return PCAM_FBSD_AC_BUS_RESET;
    case PCAM_AC_FOUND_DEVICE: return PCAM_FBSD_AC_FOUND_DEVICE;
    case PCAM_AC_LOST_DEVICE: return PCAM_FBSD_AC_LOST_DEVICE;
    case PCAM_AC_TRANSFER_NEG: return PCAM_FBSD_AC_TRANSFER_NEG;
    case PCAM_AC_SENT_BDR: return PCAM_FBSD_AC_SENT_BDR;
    default: return 0; /* UNIT ATTENTION: CAM derives it from the sense itself */
    }
}

/* ---- completion ---- */

static bool dev_queued(uint32_t func)
{
    return (func & PCAM_FBSD_XPT_FC_DEV_QUEUED) == PCAM_FBSD_XPT_FC_DEV_QUEUED;
}

/* Every request leaves through here, exactly once. */
static void finish(pcam_fbsd_req *r, uint32_t pstatus)
{
    pcam_fbsd_sim *s = r->sim;
    pcam_fbsd_hdr *h = &r->cc.ccb_h;
    uint32_t st = pcam_fbsd_status(pstatus);

    if ((pstatus & PCAM_AUTOSNS_VALID) != 0 && h->func_code == PCAM_FBSD_XPT_SCSI_IO)
        st |= PCAM_FBSD_CAM_AUTOSNS_VALID;
    if (s->ops.refused != NULL && h->func_code != PCAM_FBSD_XPT_ABORT &&
        (st == PCAM_FBSD_CAM_REQ_INVALID || st == PCAM_FBSD_CAM_PATH_INVALID || st == PCAM_FBSD_CAM_REQ_TOO_BIG))
        s->ops.refused(s->ctx, r, st);
    if (dev_queued(h->func_code) && (st & PCAM_FBSD_CAM_STATUS_MASK) != PCAM_FBSD_CAM_REQ_CMP &&
        (h->flags & PCAM_FBSD_CAM_DEV_QFRZDIS) == 0) {
        st |= PCAM_FBSD_CAM_DEV_QFRZN;
        h->status = st;
        s->ops.freeze_devq(s->ctx, r);
    }
    h->status = st;
    s->ops.done(s->ctx, r);
}

static void start(pcam_fbsd_req *r, pcam_ccb *p, uint8_t func, pcam_done_fn done)
{
    memset(p, 0, sizeof *p);
    p->func = func;
    p->target = (uint8_t)r->cc.ccb_h.target_id;
    p->lun = (uint8_t)r->cc.ccb_h.target_lun;
    p->done = done;
    p->user = r;
}

/* pcam targets and LUNs are bytes: a CAM path beyond them must not alias. */
static bool path_ok(const pcam_fbsd_req *r)
{
    return r->cc.ccb_h.target_id <= 0xFFu && r->cc.ccb_h.target_lun <= 0xFFu;
}

static void plain_done(pcam_ccb *p)
{
    finish((pcam_fbsd_req *)p->user, p->status);
}

/* ---- XPT_SCSI_IO ---- */

static void io_done(pcam_ccb *p)
{
    pcam_fbsd_req *r = (pcam_fbsd_req *)p->user;
    pcam_fbsd_csio *c = &r->cc.u.csio;
    uint32_t got = (uint32_t)p->u.io.sense_len - p->u.io.sense_resid;

    c->scsi_status = p->u.io.scsi_status;
    c->resid = p->u.io.resid;
    c->sense_resid = (uint8_t)(c->sense_len > got ? c->sense_len - got : 0);
    finish(r, p->status);
}

/* Returns PCAM_REQ_CMP, or the status the request fails with. */
static uint32_t build_io(pcam_fbsd_req *r, pcam_ccb *p)
{
    const pcam_fbsd_hdr *h = &r->cc.ccb_h;
    pcam_fbsd_csio *c = &r->cc.u.csio;
    pcam_scsiio *io = &p->u.io;
    const uint8_t *cdb = c->cdb_bytes;

    if ((h->flags & PCAM_FBSD_CAM_CDB_POINTER) != 0) {
        if ((h->flags & PCAM_FBSD_CAM_CDB_PHYS) != 0 || c->cdb_ptr == NULL)
            return PCAM_REQ_INVALID;
        cdb = c->cdb_ptr;
    }
    if (c->cdb_len == 0 || c->cdb_len > PCAM_CDB_BYTES)
        return PCAM_REQ_INVALID;
    memcpy(io->cdb, cdb, c->cdb_len);
    io->cdb_len = c->cdb_len;
    switch (h->flags & PCAM_FBSD_CAM_DIR_MASK) {
    case PCAM_FBSD_CAM_DIR_IN: io->dir = PCAM_DIR_IN; break;
    case PCAM_FBSD_CAM_DIR_OUT: io->dir = PCAM_DIR_OUT; break;
    case PCAM_FBSD_CAM_DIR_NONE: io->dir = PCAM_DIR_NONE; break;
    default: return PCAM_REQ_INVALID; /* CAM_DIR_BOTH: no such SPI transfer */
    }
    io->data_len = io->dir == PCAM_DIR_NONE ? 0 : c->dxfer_len;
    if (r->sim->id.maxio != 0 && io->data_len > r->sim->id.maxio)
        return PCAM_REQ_TOO_BIG; /* beyond the maxio path inquiry announced */
    if (io->dir != PCAM_DIR_NONE) {
        switch (h->flags & PCAM_FBSD_CAM_DATA_MASK) {
        case PCAM_FBSD_CAM_DATA_VADDR:
            io->data = c->data_ptr;
            break;
        case PCAM_FBSD_CAM_DATA_SG: {
            const pcam_fbsd_seg *seg = (const pcam_fbsd_seg *)(const void *)c->data_ptr;
            if (c->sglist_cnt > PCAM_FBSD_MAX_SEGS)
                return PCAM_REQ_TOO_BIG;
            if (seg == NULL || c->sglist_cnt == 0)
                return PCAM_REQ_INVALID;
            for (uint16_t i = 0; i < c->sglist_cnt; i++) {
                /* A length the 32-bit segment list cannot hold; false by
                 * construction where size_t is 32 bits, written so that
                 * the compiler need not prove it (-Wtype-limits). */
                if (seg[i].ds_len != (size_t)(uint32_t)seg[i].ds_len)
                    return PCAM_REQ_TOO_BIG;
                r->sg[i].addr = (void *)seg[i].ds_addr;
                r->sg[i].len = (uint32_t)seg[i].ds_len;
            }
            io->sg = r->sg;
            io->sg_count = c->sglist_cnt;
            break;
        }
        default:
            return PCAM_REQ_INVALID; /* physical addresses, bios: not advertised */
        }
    }
    io->sense = c->sense_data;
    io->sense_len = c->sense_len < PCAM_FBSD_SSD_FULL_SIZE ? c->sense_len : PCAM_FBSD_SSD_FULL_SIZE;
    memset(c->sense_data, 0, sizeof c->sense_data);
    if ((h->flags & PCAM_FBSD_CAM_DIS_AUTOSENSE) != 0)
        p->flags |= PCAM_CCB_DIS_AUTOSENSE;
    if ((h->flags & PCAM_FBSD_CAM_DIS_DISCONNECT) != 0)
        p->flags |= PCAM_CCB_DIS_DISCONNECT;
    if ((h->flags & PCAM_FBSD_CAM_TAG_ACTION_VALID) != 0 && c->tag_action != PCAM_FBSD_CAM_TAG_ACTION_NONE) {
        p->flags |= PCAM_CCB_TAGGED;
        io->tag_action = c->tag_action; /* MSG_*_Q_TAG are the SPI codes; the core checks them */
    }
    /* CAM's peripherals retry and recover; with no freeze nothing needs handing back. */
    p->flags |= PCAM_CCB_NO_RECOVERY;
    if ((h->flags & PCAM_FBSD_CAM_DEV_QFRZDIS) == 0)
        p->flags |= PCAM_CCB_RETURN_QUEUED;
    io->retries = PCAM_HOST_RETRIES;
    p->timeout_ms = h->timeout; /* CAM_TIME_DEFAULT is 0, the core's default too */
    return PCAM_REQ_CMP;
}

static void scsi_io(pcam_fbsd_sim *s, pcam_fbsd_req *r)
{
    pcam_ccb *p = &r->pc;
    uint32_t st;

    r->cc.u.csio.scsi_status = 0;
    r->cc.u.csio.resid = r->cc.u.csio.dxfer_len;
    r->cc.u.csio.sense_resid = r->cc.u.csio.sense_len;
    start(r, p, PCAM_FN_SCSI_IO, io_done);
    st = build_io(r, p);
    if (st != PCAM_REQ_CMP) {
        finish(r, st);
        return;
    }
    pcam_action(s->bus, p);
}

/* ---- XPT_PATH_INQ ---- */

static void copy_str(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    if (src != NULL)
        for (; src[i] != '\0' && i + 1 < n; i++)
            dst[i] = src[i];
    dst[i] = '\0';
}

static void pathinq_done(pcam_ccb *p)
{
    pcam_fbsd_req *r = (pcam_fbsd_req *)p->user;
    const pcam_fbsd_ident *id = &r->sim->id;
    const pcam_pathinq *pi = &p->u.pathinq;
    pcam_fbsd_cpi *c = &r->cc.u.cpi;

    memset(c, 0, sizeof *c);
    c->version_num = 1;
    if ((pi->hal_flags & PCAM_HAL_CAP_SYNC) != 0)
        c->hba_inquiry |= PCAM_FBSD_PI_SDTR_ABLE;
    if ((pi->hal_flags & PCAM_HAL_CAP_WIDE) != 0)
        c->hba_inquiry |= PCAM_FBSD_PI_WIDE_16;
    if ((pi->hal_flags & PCAM_HAL_CAP_TAGS) != 0)
        c->hba_inquiry |= PCAM_FBSD_PI_TAG_ABLE;
    c->max_target = pi->max_target;
    c->max_lun = pi->max_lun;
    c->initiator_id = pi->initiator_id;
    copy_str(c->sim_vid, sizeof c->sim_vid, id->sim_vid);
    copy_str(c->hba_vid, sizeof c->hba_vid, id->hba_vid);
    copy_str(c->dev_name, sizeof c->dev_name, id->dev_name);
    c->unit_number = id->unit_number;
    c->bus_id = id->bus_id;
    c->base_transfer_speed = 3300; /* KB/s of narrow asynchronous SCSI, as CAM's SPI SIMs report */
    c->protocol = PCAM_FBSD_PROTO_SCSI;
    c->protocol_version = PCAM_FBSD_SCSI_REV_2;
    c->transport = PCAM_FBSD_XPORT_SPI;
    /* SPI-3 is the generation that brought PPR and DT clocking. */
    c->transport_version = (pi->hal_flags & PCAM_HAL_CAP_DT) != 0 ? 3 : 2;
    if ((pi->hal_flags & PCAM_HAL_CAP_DT) != 0)
        c->spi_ppr_options |= PCAM_FBSD_MSG_EXT_PPR_DT_REQ;
    if ((pi->hal_flags & PCAM_HAL_CAP_IU) != 0)
        c->spi_ppr_options |= PCAM_FBSD_MSG_EXT_PPR_IU_REQ;
    if ((pi->hal_flags & PCAM_HAL_CAP_QAS) != 0)
        c->spi_ppr_options |= PCAM_FBSD_MSG_EXT_PPR_QAS_REQ;
    c->maxio = pi->max_xfer;
    if (id->maxio != 0 && (c->maxio == 0 || id->maxio < c->maxio))
        c->maxio = id->maxio;
    c->hba_vendor = id->hba_vendor;
    c->hba_device = id->hba_device;
    finish(r, p->status);
}

/* ---- XPT_GET_TRAN_SETTINGS / XPT_SET_TRAN_SETTINGS ---- */

static void fill_cts(pcam_fbsd_cts *c, uint32_t type, const pcam_xfer_settings *x)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    c->protocol = PCAM_FBSD_PROTO_SCSI;
    c->protocol_version = PCAM_FBSD_SCSI_REV_2;
    c->transport = PCAM_FBSD_XPORT_SPI;
    c->transport_version = 2;
    c->scsi_valid = PCAM_FBSD_CTS_SCSI_VALID_TQ;
    c->scsi_flags = x->tagged ? PCAM_FBSD_CTS_SCSI_FLAGS_TAG_ENB : 0;
    c->spi_valid = PCAM_FBSD_CTS_SPI_VALID_SYNC_RATE | PCAM_FBSD_CTS_SPI_VALID_SYNC_OFFSET |
                   PCAM_FBSD_CTS_SPI_VALID_BUS_WIDTH | PCAM_FBSD_CTS_SPI_VALID_DISC |
                   PCAM_FBSD_CTS_SPI_VALID_PPR_OPTIONS;
    c->spi_flags = x->disconnect ? PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB : 0;
    /* pcam's period factor, width exponent and PPR bits are SPI's, as CAM's are. */
    c->sync_period = x->period;
    c->sync_offset = x->offset;
    c->bus_width = x->width;
    c->ppr_options = x->ppr_options;
}

static bool tran_type(uint32_t cts_type, pcam_tran_type *out)
{
    if (cts_type == PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS)
        *out = PCAM_TRAN_CURRENT;
    else if (cts_type == PCAM_FBSD_CTS_TYPE_USER_SETTINGS)
        *out = PCAM_TRAN_USER;
    else
        return false;
    return true;
}

static void get_tran_done(pcam_ccb *p)
{
    pcam_fbsd_req *r = (pcam_fbsd_req *)p->user;
    if ((p->status & PCAM_STATUS_MASK) == PCAM_REQ_CMP)
        fill_cts(&r->cc.u.cts, r->cc.u.cts.type, &p->u.tran.settings);
    finish(r, p->status);
}

/* Apply the fields CAM marked valid over the user limits in force. */
static uint32_t merge_cts(const pcam_fbsd_cts *c, pcam_xfer_settings *x)
{
    if ((c->spi_valid & PCAM_FBSD_CTS_SPI_VALID_SYNC_RATE) != 0) {
        if (c->sync_period > 0xFFu)
            return PCAM_REQ_INVALID;
        x->period = (uint8_t)c->sync_period;
    }
    if ((c->spi_valid & PCAM_FBSD_CTS_SPI_VALID_SYNC_OFFSET) != 0) {
        if (c->sync_offset > 0xFFu)
            return PCAM_REQ_INVALID;
        x->offset = (uint8_t)c->sync_offset;
    }
    if ((c->spi_valid & PCAM_FBSD_CTS_SPI_VALID_BUS_WIDTH) != 0) {
        if (c->bus_width > PCAM_FBSD_MSG_EXT_WDTR_BUS_16_BIT)
            return PCAM_REQ_INVALID; /* 32-bit SPI never shipped */
        x->width = (uint8_t)c->bus_width;
    }
    if ((c->spi_valid & PCAM_FBSD_CTS_SPI_VALID_PPR_OPTIONS) != 0) {
        if (c->ppr_options > 0xFFu)
            return PCAM_REQ_INVALID;
        x->ppr_options = (uint8_t)c->ppr_options;
    }
    if ((c->spi_valid & PCAM_FBSD_CTS_SPI_VALID_DISC) != 0)
        x->disconnect = (c->spi_flags & PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB) != 0;
    if ((c->scsi_valid & PCAM_FBSD_CTS_SCSI_VALID_TQ) != 0)
        x->tagged = (c->scsi_flags & PCAM_FBSD_CTS_SCSI_FLAGS_TAG_ENB) != 0;
    return PCAM_REQ_CMP;
}

static void set_tran_step2(pcam_ccb *p)
{
    pcam_fbsd_req *r = (pcam_fbsd_req *)p->user;
    pcam_ccb *q = &r->pc2;
    uint32_t st;

    if ((p->status & PCAM_STATUS_MASK) != PCAM_REQ_CMP) {
        finish(r, p->status);
        return;
    }
    start(r, q, PCAM_FN_SET_TRAN, plain_done);
    q->u.tran.type = PCAM_TRAN_USER;
    q->u.tran.settings = p->u.tran.settings;
    st = merge_cts(&r->cc.u.cts, &q->u.tran.settings);
    if (st != PCAM_REQ_CMP) {
        finish(r, st);
        return;
    }
    pcam_action(r->sim->bus, q);
}

/* CAM's CURRENT and USER settings both become the core's user limits: the
 * core negotiates towards them (clamped to chip and target) on the next
 * command, which is what a SIM does with a CURRENT request. */
static void tran(pcam_fbsd_sim *s, pcam_fbsd_req *r, bool set)
{
    pcam_ccb *p = &r->pc;
    pcam_tran_type t;

    if (!tran_type(r->cc.u.cts.type, &t)) {
        finish(r, PCAM_REQ_INVALID);
        return;
    }
    start(r, p, PCAM_FN_GET_TRAN, set ? set_tran_step2 : get_tran_done);
    p->u.tran.type = set ? PCAM_TRAN_USER : t;
    pcam_action(s->bus, p);
}

/* ---- XPT_CALC_GEOMETRY: the extended translation CAM's cam_calc_geometry() documents ---- */

static uint32_t calc_geometry(pcam_fbsd_ccg *g)
{
    uint32_t per_mb, heads, secs;
    uint64_t size_mb, cyl;

    if (g->block_size == 0 || g->block_size > 1024u * 1024u)
        return PCAM_REQ_INVALID;
    per_mb = (1024u * 1024u) / g->block_size;
    size_mb = g->volume_size / per_mb;
    heads = size_mb > 1024 ? 255 : 64;
    secs = size_mb > 1024 ? 63 : 32;
    cyl = g->volume_size / (heads * secs);
    g->heads = (uint8_t)heads;
    g->secs_per_track = (uint8_t)secs;
    g->cylinders = cyl > UINT32_MAX ? UINT32_MAX : (uint32_t)cyl;
    return PCAM_REQ_CMP;
}

/* ---- dispatch ---- */

void pcam_fbsd_action(pcam_fbsd_sim *s, pcam_fbsd_req *r)
{
    pcam_fbsd_hdr *h = &r->cc.ccb_h;
    pcam_ccb *p = &r->pc;
    uint32_t func = h->func_code;

    r->sim = s;
    h->status = PCAM_FBSD_CAM_REQ_INPROG;
    if ((func == PCAM_FBSD_XPT_SCSI_IO || func == PCAM_FBSD_XPT_RESET_DEV ||
         func == PCAM_FBSD_XPT_GET_TRAN_SETTINGS || func == PCAM_FBSD_XPT_SET_TRAN_SETTINGS) &&
        !path_ok(r)) {
        finish(r, PCAM_PATH_INVALID);
        return;
    }
    switch (func) {
    case PCAM_FBSD_XPT_SCSI_IO:
        scsi_io(s, r);
        return;
    case PCAM_FBSD_XPT_PATH_INQ:
        start(r, p, PCAM_FN_PATH_INQ, pathinq_done);
        pcam_action(s->bus, p);
        return;
    case PCAM_FBSD_XPT_GET_TRAN_SETTINGS:
    case PCAM_FBSD_XPT_SET_TRAN_SETTINGS:
        tran(s, r, func == PCAM_FBSD_XPT_SET_TRAN_SETTINGS);
        return;
    case PCAM_FBSD_XPT_RESET_BUS:
        start(r, p, PCAM_FN_RESET_BUS, plain_done);
        p->target = 0;
        p->lun = 0;
        pcam_action(s->bus, p);
        return;
    case PCAM_FBSD_XPT_RESET_DEV:
        start(r, p, PCAM_FN_RESET_DEV, plain_done);
        pcam_action(s->bus, p);
        return;
    case PCAM_FBSD_XPT_ABORT: {
        pcam_fbsd_req *v = r->cc.u.abort_req;
        if (v == NULL || v->sim != s || v == r || v->cc.ccb_h.func_code != PCAM_FBSD_XPT_SCSI_IO) {
            finish(r, PCAM_REQ_INVALID); /* only SCSI I/O is queued long enough to abort */
            return;
        }
        start(r, p, PCAM_FN_ABORT, plain_done);
        p->u.abort.victim = &v->pc;
        pcam_action(s->bus, p);
        return;
    }
    case PCAM_FBSD_XPT_CALC_GEOMETRY:
        finish(r, calc_geometry(&r->cc.u.ccg));
        return;
    default:
        finish(r, PCAM_REQ_INVALID); /* what CAM expects of a SIM for a function it lacks */
        return;
    }
}

bool pcam_fbsd_poll(pcam_fbsd_sim *s)
{
    return pcam_bus_poll(s->bus);
}

/* ---- async events ---- */

static uint32_t cam_id(uint8_t v)
{
    return v == PCAM_WILDCARD ? PCAM_FBSD_CAM_LUN_WILDCARD : v;
}

static void neg_start(pcam_fbsd_sim *s, uint8_t t);

static void neg_done(pcam_ccb *p)
{
    pcam_fbsd_sim *s = (pcam_fbsd_sim *)p->user;
    pcam_fbsd_cts cts;
    uint8_t t = p->target;

    s->neg_busy[t] = false;
    if ((p->status & PCAM_STATUS_MASK) == PCAM_REQ_CMP) {
        fill_cts(&cts, PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS, &p->u.tran.settings);
        s->ops.async(s->ctx, PCAM_FBSD_AC_TRANSFER_NEG, t, PCAM_FBSD_CAM_LUN_WILDCARD, &cts);
    }
    if (s->neg_again[t]) {
        s->neg_again[t] = false;
        neg_start(s, t);
    }
}

/* The new agreement is read with a GET_TRAN that completes after the core
 * has finished the step that raised the event (never from inside it). */
static void neg_start(pcam_fbsd_sim *s, uint8_t t)
{
    pcam_ccb *p = &s->neg[t];
    if (s->neg_busy[t]) {
        s->neg_again[t] = true;
        return;
    }
    s->neg_busy[t] = true;
    memset(p, 0, sizeof *p);
    p->func = PCAM_FN_GET_TRAN;
    p->target = t;
    p->u.tran.type = PCAM_TRAN_CURRENT;
    p->done = neg_done;
    p->user = s;
    pcam_action(s->bus, p);
}

static void on_async(void *arg, uint32_t code, uint8_t target, uint8_t lun)
{
    pcam_fbsd_sim *s = (pcam_fbsd_sim *)arg;
    uint32_t ac = pcam_fbsd_async_code(code);

    if (ac == PCAM_FBSD_AC_TRANSFER_NEG) {
        if (target < PCAM_MAX_TARGETS)
            neg_start(s, target);
        return;
    }
    if (ac != 0)
        s->ops.async(s->ctx, ac, cam_id(target), cam_id(lun), NULL);
}

static void reg_done(pcam_ccb *p)
{
    (void)p;
}

int pcam_fbsd_sim_init(pcam_fbsd_sim *s, pcam_bus *bus, const pcam_fbsd_ops *ops, void *ctx,
                       const pcam_fbsd_ident *id)
{
    if (s == NULL || bus == NULL || ops == NULL || ops->done == NULL || ops->freeze_devq == NULL ||
        ops->async == NULL)
        return -1;
    memset(s, 0, sizeof *s);
    s->bus = bus;
    s->ops = *ops;
    s->ctx = ctx;
    if (id != NULL)
        s->id = *id;
    s->async_reg.func = PCAM_FN_SET_ASYNC;
    s->async_reg.done = reg_done;
    s->async_reg.u.async.events = PCAM_AC_BUS_RESET | PCAM_AC_FOUND_DEVICE | PCAM_AC_LOST_DEVICE |
                                  PCAM_AC_TRANSFER_NEG | PCAM_AC_SENT_BDR;
    s->async_reg.u.async.cb = on_async;
    s->async_reg.u.async.arg = s;
    pcam_action(bus, &s->async_reg);
    return (s->async_reg.status & PCAM_STATUS_MASK) == PCAM_REQ_CMP ? 0 : -1;
}
