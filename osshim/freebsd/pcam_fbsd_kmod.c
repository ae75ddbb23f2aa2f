/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcam.ko: the FreeBSD kernel glue of the CAM SIM. A newbus PCI driver for
 * the AMD Am53C974 (1022:2020, hal/esp) and the 53C8xx SCRIPTS chips with
 * LOAD/STORE (1000:xxxx in hal/sym's chip table, e.g. the LSI53C895A) that
 * runs core/ and the back-end under the SIM mutex and hands every CAM CCB
 * to the portable translator (fbsd_xlate.c).
 *
 * This file only moves data between FreeBSD and the translator: the real
 * union ccb <-> our pcam_fbsd_ccb view, bus_space for the chip's registers,
 * one bus_dma area for DMA, a callout for the core's deadlines, the
 * interrupt handler. It must never translate statuses or make a recovery
 * decision of its own (those are fbsd_xlate.c's and the core's). Built on
 * FreeBSD with bsd.kmod.mk (Makefile here), and in CI against FreeBSD
 * 13.2's headers by kmod_build.sh (tests/freebsd: freebsd.kmod builds it,
 * freebsd-vm boots it).
 */
#include <sys/param.h>
#include <sys/systm.h>
#include <sys/bus.h>
#include <sys/kernel.h>
#include <sys/lock.h>
#include <sys/malloc.h>
#include <sys/module.h>
#include <sys/mutex.h>
#include <sys/callout.h>
#include <sys/time.h>
#include <sys/rman.h>
#include <machine/bus.h>
#include <machine/resource.h>
#include <dev/pci/pcireg.h>
#include <dev/pci/pcivar.h>

#include <cam/cam.h>
#include <cam/cam_ccb.h>
#include <cam/cam_periph.h>
#include <cam/cam_sim.h>
#include <cam/cam_xpt_sim.h>
#include <cam/cam_debug.h>
#include <cam/scsi/scsi_all.h>

#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "pcam/pcam_sym.h"
#include "pcam/pcam_mpt.h"
#include "pcam_fbsd.h"

#define PCAM_FBSD_REQS 64        /* requests in flight; also the SIM queue's openings */
#define PCAM_FBSD_SYM_REQS 32    /* the same on a 53C8xx, where each has a DMA window */
#define PCAM_FBSD_BOUNCE 65536   /* one DMA window; path inquiry's maxio */
#define PCAM_FBSD_LUNS 8

struct pcam_fbsd_softc {
    device_t dev;
    struct mtx mtx;              /* the SIM mutex: the pcam bus lock */
    struct resource *io_res, *irq_res;
    int io_rid, irq_rid;
    void *ih;
    /* One DMA area below 4 GiB, physically contiguous: the data windows
     * (one on the Am53C974, whose hal/esp maps one run at a time; one per
     * request on a 53C8xx, which runs several commands at once), then the
     * requests (the core's sense buffers live in them), then hal/sym's
     * script area. */
    bus_dma_tag_t dtag;
    bus_dmamap_t dmap;
    uint8_t *area;
    bus_addr_t area_bus;
    size_t area_len;
    uint8_t *bounce;             /* the Am53C974's window */
    bool bounce_busy;
    const struct pcam_fbsd_chip *chip;
    struct callout timer;
    uint64_t armed;              /* the deadline the callout is set for (UINT64_MAX: none) */
    struct cam_sim *sim;
    struct cam_path *path;
    bool registered;
    bool bus_up;                 /* pcam_bus_init() succeeded */
    bool simq_frozen;            /* we froze the SIM queue when out of requests */
    pcam_platform plat;
    pcam_dc390_settings nvram;   /* a Tekram DC-390's EEPROM (valid false: none) */
    union {
        pcam_esp esp;
        pcam_sym sym;
        pcam_mpt mpt;
    } be;
    pcam_hal hal;
    pcam_bus bus;
    pcam_lun *luns;
    pcam_fbsd_sim xs;
    struct pcam_fbsd_kreq *reqs;  /* nreqs of them, in the DMA area */
    int nreqs;
    struct pcam_fbsd_kreq *free_reqs[PCAM_FBSD_REQS];
    int nfree;
    struct timeval refused_last; /* ppsratecheck() state of the refused-CCB line */
    int refused_pps;
};

/* One request: the translator's, the S/G list in our layout, and on a
 * 53C8xx the data window the I/O runs through. */
struct pcam_fbsd_kreq {
    pcam_fbsd_req r;              /* first: the translator hands this back */
    pcam_fbsd_seg segs[PCAM_FBSD_MAX_SEGS];
    uint8_t *win;                 /* NULL on the Am53C974 */
    bool bounced;                 /* data_ptr was replaced by win */
};

/* The kinds of chip this driver attaches to (hal/esp, hal/sym, hal/mpt). */
struct pcam_fbsd_chip {
    const char *hba_vid;
    int nreqs;                    /* requests, each with a window if per_req_win */
    bool per_req_win;
    size_t hal_area;              /* the back-end's own DMA bytes, last in the area */
    void (*stop)(struct pcam_fbsd_softc *sc); /* before the area goes, or NULL */
    int (*attach_hal)(struct pcam_fbsd_softc *sc);
    int (*dma_map)(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus);
    void (*dma_unmap)(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus);
};

/* ---- platform services for core/ and hal/esp (called with the mutex held) ---- */

static uint64_t plat_now(void *ctx)
{
    (void)ctx;
    return (uint64_t)sbttons(sbinuptime());
}

static void plat_log(void *ctx, pcam_log_level level, const char *line)
{
    struct pcam_fbsd_softc *sc = ctx;
    if (level <= PCAM_LOG_WARN || bootverbose)
        device_printf(sc->dev, "%s\n", line);
}

static uint8_t plat_r8(void *ctx, uintptr_t a) { return bus_read_1(((struct pcam_fbsd_softc *)ctx)->io_res, a); }
static uint16_t plat_r16(void *ctx, uintptr_t a) { return bus_read_2(((struct pcam_fbsd_softc *)ctx)->io_res, a); }
static uint32_t plat_r32(void *ctx, uintptr_t a) { return bus_read_4(((struct pcam_fbsd_softc *)ctx)->io_res, a); }
static void plat_w8(void *ctx, uintptr_t a, uint8_t v) { bus_write_1(((struct pcam_fbsd_softc *)ctx)->io_res, a, v); }
static void plat_w16(void *ctx, uintptr_t a, uint16_t v) { bus_write_2(((struct pcam_fbsd_softc *)ctx)->io_res, a, v); }
static void plat_w32(void *ctx, uintptr_t a, uint32_t v) { bus_write_4(((struct pcam_fbsd_softc *)ctx)->io_res, a, v); }

/* hal/esp maps one run at a time; it goes through the bounce window. */
static int plat_esp_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    struct pcam_fbsd_softc *sc = ctx;
    if (sc->bounce_busy || len > PCAM_FBSD_BOUNCE)
        return -1;
    sc->bounce_busy = true;
    if (dir == PCAM_DMA_TO_DEVICE) {
        memcpy(sc->bounce, va, len);
        bus_dmamap_sync(sc->dtag, sc->dmap, BUS_DMASYNC_PREWRITE);
    } else {
        /* A short read must not hand the last transfer's bytes to this caller. */
        memset(sc->bounce, 0, len);
        bus_dmamap_sync(sc->dtag, sc->dmap, BUS_DMASYNC_PREREAD);
    }
    *bus = sc->area_bus + (bus_addr_t)(sc->bounce - sc->area);
    return 0;
}

static void plat_esp_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    struct pcam_fbsd_softc *sc = ctx;
    (void)bus;
    if (dir == PCAM_DMA_FROM_DEVICE) {
        bus_dmamap_sync(sc->dtag, sc->dmap, BUS_DMASYNC_POSTREAD);
        memcpy(va, sc->bounce, len);
    } else {
        bus_dmamap_sync(sc->dtag, sc->dmap, BUS_DMASYNC_POSTWRITE);
    }
    sc->bounce_busy = false;
}

/* hal/sym maps the requests' windows and their sense buffers, which all lie
 * in the DMA area (bounce_in() below puts the data there): a lookup only. */
static int plat_sym_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    struct pcam_fbsd_softc *sc = ctx;
    uintptr_t p = (uintptr_t)va, a = (uintptr_t)sc->area;
    if (p < a || len > sc->area_len || p - a > sc->area_len - len)
        return -1;
    bus_dmamap_sync(sc->dtag, sc->dmap, dir == PCAM_DMA_TO_DEVICE ? BUS_DMASYNC_PREWRITE : BUS_DMASYNC_PREREAD);
    *bus = sc->area_bus + (p - a);
    return 0;
}

static void plat_sym_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    struct pcam_fbsd_softc *sc = ctx;
    (void)va, (void)len, (void)bus;
    bus_dmamap_sync(sc->dtag, sc->dmap, dir == PCAM_DMA_TO_DEVICE ? BUS_DMASYNC_POSTWRITE : BUS_DMASYNC_POSTREAD);
}

static void plat_delay(void *ctx, uint32_t us)
{
    (void)ctx;
    DELAY(us);
}

/* ---- the core's timer ---- */

static void pcam_fbsd_timeout(void *arg);

/* After every core entry: have the callout fire by the core's next
 * deadline. A later deadline leaves an earlier callout set: it fires,
 * ticks a core with nothing due and re-arms. Resetting the callout on every
 * command and stopping it on every completion cost about 750 guest
 * instructions per read (osshim/freebsd/README.md, "Deterministic
 * benchmark"). */
static void pcam_fbsd_rearm(struct pcam_fbsd_softc *sc)
{
    uint64_t when = pcam_bus_next_deadline(&sc->bus), now;
    if (when == UINT64_MAX || when >= sc->armed)
        return;
    now = plat_now(sc);
    sc->armed = when;
    callout_reset_sbt(&sc->timer, nstosbt(when > now ? when - now : 0), 0, pcam_fbsd_timeout, sc, 0);
}

static void pcam_fbsd_timeout(void *arg)
{
    struct pcam_fbsd_softc *sc = arg;
    mtx_assert(&sc->mtx, MA_OWNED);
    sc->armed = UINT64_MAX;
    pcam_bus_tick(&sc->bus);
    pcam_fbsd_rearm(sc);
}

static void pcam_fbsd_intr(void *arg)
{
    struct pcam_fbsd_softc *sc = arg;
    mtx_lock(&sc->mtx);
    pcam_bus_intr(&sc->bus);
    pcam_fbsd_rearm(sc);
    mtx_unlock(&sc->mtx);
}

/* ---- union ccb <-> the translator's view ---- */

static void copy_in(struct pcam_fbsd_softc *sc, struct pcam_fbsd_kreq *k, union ccb *ccb)
{
    pcam_fbsd_ccb *c = &k->r.cc;
    memset(c, 0, sizeof(*c));
    c->ccb_h.func_code = ccb->ccb_h.func_code;
    c->ccb_h.target_id = ccb->ccb_h.target_id;
    c->ccb_h.target_lun = ccb->ccb_h.target_lun > UINT32_MAX ? UINT32_MAX : (uint32_t)ccb->ccb_h.target_lun;
    c->ccb_h.flags = ccb->ccb_h.flags;
    c->ccb_h.timeout = ccb->ccb_h.timeout;
    switch (ccb->ccb_h.func_code) {
    case XPT_SCSI_IO: {
        struct ccb_scsiio *cs = &ccb->csio;
        if (ccb->ccb_h.flags & CAM_CDB_POINTER)
            c->u.csio.cdb_ptr = cs->cdb_io.cdb_ptr;
        else
            memcpy(c->u.csio.cdb_bytes, cs->cdb_io.cdb_bytes, sizeof(c->u.csio.cdb_bytes));
        c->u.csio.cdb_len = cs->cdb_len;
        c->u.csio.data_ptr = cs->data_ptr;
        c->u.csio.dxfer_len = cs->dxfer_len;
        c->u.csio.sglist_cnt = cs->sglist_cnt;
        c->u.csio.sense_len = cs->sense_len;
        c->u.csio.tag_action = cs->tag_action;
        if ((ccb->ccb_h.flags & CAM_DATA_MASK) == CAM_DATA_SG) {
            /* bus_dma_segment_t's layout is not ours: copy the list (the
             * translator refuses more than it holds before reading it). */
            const bus_dma_segment_t *seg = (const bus_dma_segment_t *)(const void *)cs->data_ptr;
            for (uint16_t i = 0; seg != NULL && i < cs->sglist_cnt && i < PCAM_FBSD_MAX_SEGS; i++) {
                k->segs[i].ds_addr = (uintptr_t)seg[i].ds_addr;
                k->segs[i].ds_len = (size_t)seg[i].ds_len;
            }
            c->u.csio.data_ptr = seg != NULL ? (uint8_t *)k->segs : NULL;
        }
        break;
    }
    case XPT_GET_TRAN_SETTINGS:
    case XPT_SET_TRAN_SETTINGS: {
        struct ccb_trans_settings *ts = &ccb->cts;
        struct ccb_trans_settings_scsi *scsi = &ts->proto_specific.scsi;
        struct ccb_trans_settings_spi *spi = &ts->xport_specific.spi;
        c->u.cts.type = ts->type;
        c->u.cts.scsi_valid = scsi->valid;
        c->u.cts.scsi_flags = scsi->flags;
        c->u.cts.spi_valid = spi->valid;
        c->u.cts.spi_flags = spi->flags;
        c->u.cts.sync_period = spi->sync_period;
        c->u.cts.sync_offset = spi->sync_offset;
        c->u.cts.bus_width = spi->bus_width;
        c->u.cts.ppr_options = spi->ppr_options;
        break;
    }
    case XPT_CALC_GEOMETRY:
        c->u.ccg.block_size = ccb->ccg.block_size;
        c->u.ccg.volume_size = ccb->ccg.volume_size;
        break;
    case XPT_ABORT: {
        union ccb *v = ccb->cab.abort_ccb;
        uintptr_t p = v != NULL ? (uintptr_t)v->ccb_h.spriv_ptr0 : 0, base = (uintptr_t)sc->reqs;
        /* Only a CCB this SIM still holds is ours to name: check the pointer
         * is one of our requests before reading through it. */
        if (p >= base && p < base + (size_t)sc->nreqs * sizeof(*sc->reqs) && (p - base) % sizeof(*sc->reqs) == 0 &&
            ((struct pcam_fbsd_kreq *)p)->r.os == v && (v->ccb_h.status & CAM_SIM_QUEUED) != 0)
            c->u.abort_req = &((struct pcam_fbsd_kreq *)p)->r;
        break;
    }
    default:
        break;
    }
}

/* The data of a SCSI I/O between the caller's buffer (virtual address or a
 * list of them) and the request's window, which hal/sym can map: out-data
 * before the command, in-data after it. */
static void bounce_copy(struct pcam_fbsd_kreq *k, union ccb *ccb, uint32_t len, bool to_win)
{
    struct ccb_scsiio *cs = &ccb->csio;
    if ((ccb->ccb_h.flags & CAM_DATA_MASK) == CAM_DATA_VADDR) {
        if (to_win)
            memcpy(k->win, cs->data_ptr, len);
        else
            memcpy(cs->data_ptr, k->win, len);
        return;
    }
    for (uint32_t i = 0, off = 0; i < cs->sglist_cnt && off < len; i++) {
        uint32_t n = k->segs[i].ds_len < len - off ? (uint32_t)k->segs[i].ds_len : len - off;
        if (to_win)
            memcpy(k->win + off, (void *)k->segs[i].ds_addr, n);
        else
            memcpy((void *)k->segs[i].ds_addr, k->win + off, n);
        off += n;
    }
}

/* Only a request the translator would take is bounced: anything it refuses
 * (no data, too long, too many segments, physical or bio data, a short
 * list) reaches it unchanged so that it gives the CAM status it promises. */
static void bounce_in(struct pcam_fbsd_kreq *k, union ccb *ccb)
{
    struct ccb_scsiio *cs = &ccb->csio;
    pcam_fbsd_ccb *c = &k->r.cc;
    uint32_t dir = ccb->ccb_h.flags & CAM_DIR_MASK, kind = ccb->ccb_h.flags & CAM_DATA_MASK;
    k->bounced = false;
    if (k->win == NULL || ccb->ccb_h.func_code != XPT_SCSI_IO || (dir != CAM_DIR_IN && dir != CAM_DIR_OUT) ||
        cs->dxfer_len == 0 || cs->dxfer_len > PCAM_FBSD_BOUNCE || cs->data_ptr == NULL)
        return;
    if (kind == CAM_DATA_SG) {
        uint64_t total = 0;
        if (cs->sglist_cnt == 0 || cs->sglist_cnt > PCAM_FBSD_MAX_SEGS)
            return;
        for (uint16_t i = 0; i < cs->sglist_cnt; i++) {
            if (k->segs[i].ds_addr == 0)
                return;
            total += k->segs[i].ds_len;
        }
        if (total < cs->dxfer_len)
            return;
    } else if (kind != CAM_DATA_VADDR) {
        return;
    }
    if (dir == CAM_DIR_OUT)
        bounce_copy(k, ccb, cs->dxfer_len, true);
    c->ccb_h.flags = (c->ccb_h.flags & ~(uint32_t)CAM_DATA_MASK) | CAM_DATA_VADDR;
    c->u.csio.data_ptr = k->win;
    c->u.csio.sglist_cnt = 0;
    k->bounced = true;
}

static void cts_out(const pcam_fbsd_cts *t, struct ccb_trans_settings *ts)
{
    struct ccb_trans_settings_spi *spi = &ts->xport_specific.spi;
    ts->protocol = (cam_proto)t->protocol;
    ts->protocol_version = t->protocol_version;
    ts->transport = (cam_xport)t->transport;
    ts->transport_version = t->transport_version;
    ts->proto_specific.scsi.valid = t->scsi_valid;
    ts->proto_specific.scsi.flags = t->scsi_flags;
    spi->valid = t->spi_valid;
    spi->flags = t->spi_flags;
    spi->sync_period = t->sync_period;
    spi->sync_offset = t->sync_offset;
    spi->bus_width = t->bus_width;
    spi->ppr_options = t->ppr_options;
}

static void copy_out(const pcam_fbsd_req *r, union ccb *ccb)
{
    const pcam_fbsd_ccb *c = &r->cc;
    switch (ccb->ccb_h.func_code) {
    case XPT_SCSI_IO: {
        struct ccb_scsiio *cs = &ccb->csio;
        cs->scsi_status = c->u.csio.scsi_status;
        cs->resid = c->u.csio.resid;
        cs->sense_resid = c->u.csio.sense_resid;
        if ((c->ccb_h.status & CAM_AUTOSNS_VALID) != 0) {
            size_t n = cs->sense_len < sizeof(cs->sense_data) ? cs->sense_len : sizeof(cs->sense_data);
            memcpy(&cs->sense_data, c->u.csio.sense_data, n);
        }
        break;
    }
    case XPT_PATH_INQ: {
        struct ccb_pathinq *cpi = &ccb->cpi;
        const pcam_fbsd_cpi *p = &c->u.cpi;
        cpi->version_num = p->version_num;
        cpi->hba_inquiry = p->hba_inquiry;
        cpi->target_sprt = p->target_sprt;
        cpi->hba_misc = p->hba_misc;
        cpi->hba_eng_cnt = 0;
        cpi->max_target = p->max_target;
        cpi->max_lun = p->max_lun;
        cpi->initiator_id = p->initiator_id;
        strlcpy(cpi->sim_vid, p->sim_vid, SIM_IDLEN);
        strlcpy(cpi->hba_vid, p->hba_vid, HBA_IDLEN);
        strlcpy(cpi->dev_name, p->dev_name, DEV_IDLEN);
        cpi->unit_number = p->unit_number;
        cpi->bus_id = p->bus_id;
        cpi->base_transfer_speed = p->base_transfer_speed;
        cpi->protocol = (cam_proto)p->protocol;
        cpi->protocol_version = p->protocol_version;
        cpi->transport = (cam_xport)p->transport;
        cpi->transport_version = p->transport_version;
        cpi->xport_specific.spi.ppr_options = p->spi_ppr_options;
        cpi->maxio = p->maxio;
        cpi->hba_vendor = p->hba_vendor;
        cpi->hba_device = p->hba_device;
        cpi->hba_subvendor = pci_get_subvendor(((struct pcam_fbsd_softc *)r->sim->ctx)->dev);
        cpi->hba_subdevice = pci_get_subdevice(((struct pcam_fbsd_softc *)r->sim->ctx)->dev);
        break;
    }
    case XPT_GET_TRAN_SETTINGS:
        cts_out(&c->u.cts, &ccb->cts);
        break;
    case XPT_CALC_GEOMETRY:
        ccb->ccg.cylinders = c->u.ccg.cylinders;
        ccb->ccg.heads = c->u.ccg.heads;
        ccb->ccg.secs_per_track = c->u.ccg.secs_per_track;
        break;
    default:
        break;
    }
}

/* ---- translator services: xpt_done, xpt_freeze_devq, xpt_async ---- */

static void op_done(void *ctx, pcam_fbsd_req *r)
{
    struct pcam_fbsd_softc *sc = ctx;
    union ccb *ccb = r->os;
    struct pcam_fbsd_kreq *k = (struct pcam_fbsd_kreq *)r;
    copy_out(r, ccb);
    if (k->bounced && (ccb->ccb_h.flags & CAM_DIR_MASK) == CAM_DIR_IN) {
        uint32_t len = ccb->csio.dxfer_len, resid = (uint32_t)ccb->csio.resid;
        bounce_copy(k, ccb, resid < len ? len - resid : 0, false);
    }
    k->bounced = false;
    ccb->ccb_h.status = r->cc.ccb_h.status & ~CAM_SIM_QUEUED;
    ccb->ccb_h.spriv_ptr0 = NULL;
    r->os = NULL;
    if (sc->simq_frozen) {
        /* A request is free again: let xpt send what it held back. */
        sc->simq_frozen = false;
        ccb->ccb_h.status |= CAM_RELEASE_SIMQ;
    }
    sc->free_reqs[sc->nfree++] = (struct pcam_fbsd_kreq *)r;
    xpt_done(ccb);
}

static void op_freeze(void *ctx, pcam_fbsd_req *r)
{
    (void)ctx;
    xpt_freeze_devq(((union ccb *)r->os)->ccb_h.path, 1);
}

static void op_async(void *ctx, uint32_t code, uint32_t target, uint32_t lun, const pcam_fbsd_cts *t)
{
    struct pcam_fbsd_softc *sc = ctx;
    struct cam_path *path;
    struct ccb_trans_settings cts;

    if (!sc->registered)
        return;
    if (xpt_create_path(&path, NULL, cam_sim_path(sc->sim),
                        target == PCAM_FBSD_CAM_TARGET_WILDCARD ? CAM_TARGET_WILDCARD : target,
                        lun == PCAM_FBSD_CAM_LUN_WILDCARD ? CAM_LUN_WILDCARD : lun) != CAM_REQ_CMP)
        return;
    switch (code) {
    case AC_TRANSFER_NEG:
        memset(&cts, 0, sizeof(cts));
        cts.type = CTS_TYPE_CURRENT_SETTINGS;
        cts_out(t, &cts);
        xpt_async(AC_TRANSFER_NEG, path, &cts);
        break;
    case AC_FOUND_DEVICE: {
        /* A SIM reports a new device by asking xpt to probe it. */
        union ccb *ccb = xpt_alloc_ccb_nowait();
        if (ccb != NULL) {
            ccb->ccb_h.path = path;
            xpt_rescan(ccb); /* takes the path and the CCB */
            return;
        }
        break;
    }
    default:
        xpt_async(code, path, NULL);
        break;
    }
    xpt_free_path(path);
}

/* A CCB CAM never sends in normal operation, refused before the bus: one
 * console line each, at most 5 a second (pass(4) lets root send them). */
static void op_refused(void *ctx, const pcam_fbsd_req *r, uint32_t cam_status)
{
    struct pcam_fbsd_softc *sc = ctx;
    const union ccb *ccb = r->os;
    if (ppsratecheck(&sc->refused_last, &sc->refused_pps, 5))
        device_printf(sc->dev, "refused CCB: function 0x%02x target %u lun %ju, CAM status 0x%02x\n",
                      (unsigned)ccb->ccb_h.func_code, (unsigned)ccb->ccb_h.target_id,
                      (uintmax_t)ccb->ccb_h.target_lun, (unsigned)cam_status);
}

/* ---- the SIM's action and poll routines ---- */

static void pcam_fbsd_sim_action(struct cam_sim *sim, union ccb *ccb)
{
    struct pcam_fbsd_softc *sc = cam_sim_softc(sim);
    struct pcam_fbsd_kreq *k;

    mtx_assert(&sc->mtx, MA_OWNED);
    if (sc->nfree == 0) {
        /* CAM's way out of a full SIM: requeue and hold the SIM queue. */
        xpt_freeze_simq(sim, 1);
        sc->simq_frozen = true;
        ccb->ccb_h.status = CAM_REQUEUE_REQ;
        xpt_done(ccb);
        return;
    }
    k = sc->free_reqs[--sc->nfree];
    copy_in(sc, k, ccb);
    bounce_in(k, ccb);
    k->r.os = ccb;
    ccb->ccb_h.spriv_ptr0 = &k->r;
    ccb->ccb_h.status |= CAM_SIM_QUEUED;
    pcam_fbsd_action(&sc->xs, &k->r);
    pcam_fbsd_rearm(sc);
}

/* Crash dumps and early boot: CAM calls this with interrupts off. */
static void pcam_fbsd_sim_poll(struct cam_sim *sim)
{
    struct pcam_fbsd_softc *sc = cam_sim_softc(sim);
    mtx_assert(&sc->mtx, MA_OWNED);
    pcam_fbsd_poll(&sc->xs);
    pcam_fbsd_rearm(sc); /* for when interrupts come back (early boot) */
}

/* ---- newbus ---- */

static int pcam_fbsd_attach_esp(struct pcam_fbsd_softc *sc);
static int pcam_fbsd_attach_sym(struct pcam_fbsd_softc *sc);
static int pcam_fbsd_attach_mpt(struct pcam_fbsd_softc *sc);
static void pcam_fbsd_stop_sym(struct pcam_fbsd_softc *sc);
static void pcam_fbsd_stop_mpt(struct pcam_fbsd_softc *sc);
static const struct pcam_fbsd_chip pcam_fbsd_esp_chip = {
    "AMD", PCAM_FBSD_REQS, false, 0, NULL, pcam_fbsd_attach_esp, plat_esp_map, plat_esp_unmap};
static const struct pcam_fbsd_chip pcam_fbsd_sym_chip = {"LSI", PCAM_FBSD_SYM_REQS, true, PCAM_SYM_DMA_BYTES,
    pcam_fbsd_stop_sym, pcam_fbsd_attach_sym, plat_sym_map, plat_sym_unmap};
/* The SAS1068 runs several commands at once, each through its window, and
 * keeps its frames in its own area (the same lookup as hal/sym's). */
static const struct pcam_fbsd_chip pcam_fbsd_mpt_chip = {"LSI", PCAM_FBSD_SYM_REQS, true, PCAM_MPT_DMA_BYTES,
    pcam_fbsd_stop_mpt, pcam_fbsd_attach_mpt, plat_sym_map, plat_sym_unmap};

/* The Am53C974, a 53C8xx from hal/sym's table whose script it can run, or
 * the Fusion-MPT SAS1068 (1000:0054, QEMU's mptsas1068). */
static const struct pcam_fbsd_chip *pcam_fbsd_match(device_t dev, const char **name)
{
    const pcam_sym_chip_info *ci;
    if (pci_get_vendor(dev) == 0x1022 && pci_get_device(dev) == 0x2020) {
        *name = "AMD Am53C974";
        return &pcam_fbsd_esp_chip;
    }
    if (pci_get_vendor(dev) != 0x1000)
        return NULL;
    if (pci_get_device(dev) == 0x0054) {
        *name = "SAS1068";
        return &pcam_fbsd_mpt_chip;
    }
    ci = pcam_sym_chip_lookup(pci_get_device(dev), pci_get_revid(dev));
    if (ci == NULL || (ci->flags & PCAM_SYM_F_LDSTR) == 0)
        return NULL;
    *name = ci->name;
    return &pcam_fbsd_sym_chip;
}

static int pcam_fbsd_probe(device_t dev)
{
    char desc[64];
    const char *name;
    const struct pcam_fbsd_chip *c = pcam_fbsd_match(dev, &name);
    if (c == NULL)
        return ENXIO;
    snprintf(desc, sizeof(desc), "%s%s SCSI (pcam)", c->per_req_win ? "LSI " : "", name);
    device_set_desc_copy(dev, desc);
    /* Below esp(4)'s and sym(4)'s default, so the stock driver wins unless it is absent. */
    return BUS_PROBE_LOW_PRIORITY;
}

static void pcam_fbsd_dma_cb(void *arg, bus_dma_segment_t *segs, int nseg, int error)
{
    if (error == 0 && nseg == 1)
        *(bus_addr_t *)arg = segs[0].ds_addr;
}

/* A Tekram DC-390 has the Am53C974's IDs; its 93C46 answers on pins in
 * configuration space (pcam_esp.h), a plain Am53C974's do not. */
static uint8_t dc390_rd(void *ctx, uint8_t off)
{
    return (uint8_t)pci_read_config(((struct pcam_fbsd_softc *)ctx)->dev, off, 1);
}

static void dc390_wr(void *ctx, uint8_t off, uint8_t v)
{
    pci_write_config(((struct pcam_fbsd_softc *)ctx)->dev, off, v, 1);
}

static void dc390_delay(void *ctx, uint32_t us)
{
    (void)ctx;
    DELAY(us);
}

static void pcam_fbsd_dc390(struct pcam_fbsd_softc *sc)
{
    const pcam_dc390_cfg_io io = {sc, dc390_rd, dc390_wr, dc390_delay};
    uint8_t raw[PCAM_DC390_EEPROM_BYTES];
    const char *why = "no EEPROM answers";

    sc->nvram.valid = false;
    if (pcam_dc390_read_eeprom(&io, raw) != PCAM_OK)
        return; /* a plain Am53C974 */
    if (pcam_dc390_parse(raw, sizeof(raw), &sc->nvram, &why) == PCAM_OK)
        device_printf(sc->dev, "Tekram DC-390 EEPROM: host ID %u, %u tags per LUN\n", sc->nvram.host_id,
                      sc->nvram.max_tags);
    else
        device_printf(sc->dev, "DC-390 EEPROM: %s; Am53C974 defaults\n", why);
}

static int pcam_fbsd_attach_esp(struct pcam_fbsd_softc *sc)
{
    pcam_esp_config ec;
    sc->bounce = sc->area;
    memset(&ec, 0, sizeof(ec));
    ec.chip = PCAM_ESP_AM53C974;
    ec.base = 0;          /* bus_read_*() take offsets into BAR 0 */
    ec.stride = 4;
    ec.clock_khz = 40000; /* the Am53C974's 40 MHz clock */
    ec.initiator_id = 7;
    ec.use_dma = true;
    pcam_fbsd_dc390(sc);
    pcam_dc390_apply(&sc->nvram, &ec, NULL);
    return pcam_esp_attach(&sc->be.esp, &ec, &sc->plat, &sc->hal) == PCAM_OK ? 0 : ENXIO;
}

static int pcam_fbsd_attach_sym(struct pcam_fbsd_softc *sc)
{
    pcam_sym_config c;
    size_t off = sc->area_len - PCAM_SYM_DMA_BYTES; /* the script area is last */
    memset(&c, 0, sizeof(c));
    c.base = 0;           /* bus_read_*() take offsets into BAR 0 (I/O) */
    c.pci_device = pci_get_device(sc->dev);
    c.pci_revision = pci_get_revid(sc->dev);
    c.initiator_id = 7;
    c.clock_khz = 40000;  /* the 53C8xx's 40 MHz input; hal/sym knows the doublers */
    c.dma_va = sc->area + off;
    c.dma_bus = sc->area_bus + off;
    c.dma_len = PCAM_SYM_DMA_BYTES;
    for (int i = 0; i < sc->nreqs; i++)
        sc->reqs[i].win = sc->area + (size_t)i * PCAM_FBSD_BOUNCE;
    return pcam_sym_attach(&sc->be.sym, &c, &sc->plat, &sc->hal) == PCAM_OK ? 0 : ENXIO;
}

static int pcam_fbsd_attach_mpt(struct pcam_fbsd_softc *sc)
{
    pcam_mpt_config c;
    size_t off = sc->area_len - PCAM_MPT_DMA_BYTES; /* the frames are last */
    memset(&c, 0, sizeof(c));
    c.base = 0;           /* bus_read_*() take offsets into BAR 0 (I/O) */
    c.dma_va = sc->area + off;
    c.dma_bus = sc->area_bus + off;
    c.dma_len = PCAM_MPT_DMA_BYTES;
    for (int i = 0; i < sc->nreqs; i++)
        sc->reqs[i].win = sc->area + (size_t)i * PCAM_FBSD_BOUNCE;
    return pcam_mpt_attach(&sc->be.mpt, &c, &sc->plat, &sc->hal) == PCAM_OK ? 0 : ENXIO;
}

/* SCRIPTS halted, or the IOC reset with interrupts masked, before the DMA area goes. */
static void pcam_fbsd_stop_sym(struct pcam_fbsd_softc *sc)
{
    pcam_sym_stop(&sc->be.sym);
}

static void pcam_fbsd_stop_mpt(struct pcam_fbsd_softc *sc)
{
    pcam_mpt_stop(&sc->be.mpt);
}

static int pcam_fbsd_detach(device_t dev);

static int pcam_fbsd_attach(device_t dev)
{
    struct pcam_fbsd_softc *sc = device_get_softc(dev);
    const char *name;
    const struct pcam_fbsd_chip *chip = pcam_fbsd_match(dev, &name);
    static const pcam_fbsd_ops ops = {op_done, op_freeze, op_async, op_refused};
    size_t wins, reqs_off;
    pcam_fbsd_ident id;
    pcam_bus_config cfg;
    int tagged_open;
    pcam_hal_caps caps;
    struct cam_devq *devq;
    int error;

    sc->dev = dev;
    sc->chip = chip;
    sc->nreqs = chip->nreqs;
    mtx_init(&sc->mtx, device_get_nameunit(dev), "pcam", MTX_DEF);
    callout_init_mtx(&sc->timer, &sc->mtx, 0);
    sc->armed = UINT64_MAX;
    pci_enable_busmaster(dev);
    sc->io_rid = PCIR_BAR(0);
    sc->io_res = bus_alloc_resource_any(dev, SYS_RES_IOPORT, &sc->io_rid, RF_ACTIVE);
    sc->irq_rid = 0;
    sc->irq_res = bus_alloc_resource_any(dev, SYS_RES_IRQ, &sc->irq_rid, RF_ACTIVE | RF_SHAREABLE);
    if (sc->io_res == NULL || sc->irq_res == NULL) {
        device_printf(dev, "cannot map registers or interrupt\n");
        error = ENXIO;
        goto fail;
    }
    /* The DMA area (see the softc): 32-bit, physically contiguous, one segment. */
    wins = chip->per_req_win ? (size_t)sc->nreqs : 1;
    reqs_off = wins * PCAM_FBSD_BOUNCE;
    sc->area_len = reqs_off + sizeof(*sc->reqs) * (size_t)sc->nreqs + chip->hal_area;
    error = bus_dma_tag_create(bus_get_dma_tag(dev), PAGE_SIZE, 0, BUS_SPACE_MAXADDR_32BIT, BUS_SPACE_MAXADDR,
                               NULL, NULL, sc->area_len, 1, sc->area_len, 0, NULL, NULL, &sc->dtag);
    if (error == 0)
        error = bus_dmamem_alloc(sc->dtag, (void **)&sc->area, BUS_DMA_NOWAIT | BUS_DMA_ZERO | BUS_DMA_COHERENT,
                                 &sc->dmap);
    if (error == 0)
        error = bus_dmamap_load(sc->dtag, sc->dmap, sc->area, sc->area_len, pcam_fbsd_dma_cb, &sc->area_bus,
                                BUS_DMA_NOWAIT);
    if (error != 0 || sc->area_bus == 0) {
        device_printf(dev, "cannot set up DMA (%d)\n", error);
        error = ENOMEM;
        goto fail;
    }
    sc->reqs = (struct pcam_fbsd_kreq *)(void *)(sc->area + reqs_off);
    sc->plat = (pcam_platform){.ctx = sc, .now_ns = plat_now, .log = plat_log, .read8 = plat_r8,
        .read16 = plat_r16, .read32 = plat_r32, .write8 = plat_w8, .write16 = plat_w16, .write32 = plat_w32,
        .dma_map = chip->dma_map, .dma_unmap = chip->dma_unmap, .delay_us = plat_delay};
    if ((error = chip->attach_hal(sc)) != 0) {
        device_printf(dev, "chip not recognised\n");
        goto fail;
    }
    sc->hal.ops->get_caps(sc->hal.sc, &caps);
    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = PCAM_FBSD_LUNS;
    pcam_dc390_apply(&sc->nvram, NULL, &cfg); /* a DC-390's tag count */
    sc->luns = malloc(sizeof(*sc->luns) * PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target), M_DEVBUF,
                      M_WAITOK | M_ZERO);
    for (sc->nfree = 0; sc->nfree < sc->nreqs; sc->nfree++)
        sc->free_reqs[sc->nfree] = &sc->reqs[sc->nfree];
    id = (pcam_fbsd_ident){.sim_vid = "FreeBSD", .hba_vid = chip->hba_vid, .dev_name = "pcam",
        .unit_number = (uint32_t)device_get_unit(dev), .maxio = PCAM_FBSD_BOUNCE,
        .hba_vendor = pci_get_vendor(dev), .hba_device = pci_get_device(dev)};
    mtx_lock(&sc->mtx);
    error = pcam_bus_init(&sc->bus, &cfg, &sc->hal, &sc->plat, sc->luns,
                          PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target)) == PCAM_OK ? 0 : ENXIO;
    sc->bus_up = error == 0;
    if (error == 0 && pcam_dc390_set_limits(&sc->bus, &sc->nvram) != PCAM_OK)
        error = ENXIO;
    if (error == 0 && pcam_fbsd_sim_init(&sc->xs, &sc->bus, &ops, sc, &id) != 0)
        error = ENXIO;
    mtx_unlock(&sc->mtx);
    if (error != 0)
        goto fail;
    error = bus_setup_intr(dev, sc->irq_res, INTR_TYPE_CAM | INTR_MPSAFE | INTR_ENTROPY, NULL, pcam_fbsd_intr,
                           sc, &sc->ih);
    if (error != 0)
        goto fail;
    devq = cam_simq_alloc((u_int)sc->nreqs);
    if (devq == NULL) {
        error = ENOMEM;
        goto fail;
    }
    /* Openings per device as the core answers them for a host (pcam.h,
     * "Policies for a host"): untagged, and tagged up to the core's
     * starting depth, never more than this SIM has requests. */
    tagged_open = pcam_host_queue_depth(&sc->bus, true, cfg.tag_depth);
    sc->sim = cam_sim_alloc(pcam_fbsd_sim_action, pcam_fbsd_sim_poll, "pcam", sc, device_get_unit(dev), &sc->mtx,
                            PCAM_HOST_UNTAGGED_DEPTH, tagged_open < sc->nreqs ? tagged_open : sc->nreqs, devq);
    if (sc->sim == NULL) {
        cam_simq_free(devq);
        error = ENOMEM;
        goto fail;
    }
    mtx_lock(&sc->mtx);
    if (xpt_bus_register(sc->sim, dev, 0) != CAM_SUCCESS ||
        xpt_create_path(&sc->path, NULL, cam_sim_path(sc->sim), CAM_TARGET_WILDCARD, CAM_LUN_WILDCARD) !=
            CAM_REQ_CMP) {
        mtx_unlock(&sc->mtx);
        error = ENXIO;
        goto fail;
    }
    sc->registered = true;
    mtx_unlock(&sc->mtx);
    return 0;
fail:
    pcam_fbsd_detach(dev);
    return error;
}

/* Is a disk, CD or pass device on our bus open (or busy with a probe or a
 * task of its own)? Then detaching would invalidate it under its user and
 * cam_sim_free() would sleep until the last close: refuse instead. An
 * open holds a reference on the periph until the close (daopen, cdopen,
 * passopen: cam_periph_acquire); idle, FreeBSD 13.2's da(4) and cd(4)
 * hold 2 (the periph's own and their GEOM disk's) and pass(4) 3, as
 * measured in freebsd-vm.dump.* (a periph of another kind is not judged). */
static bool pcam_fbsd_in_use(struct pcam_fbsd_softc *sc)
{
    static const struct { const char *name; u_int idle_refs; } kinds[] = {{"da", 2}, {"cd", 2}, {"pass", 3}};
    bool busy = false;
    xpt_lock_buses(); /* guards the periph lists and their refcounts */
    for (struct periph_driver **d = periph_drivers; *d != NULL && !busy; d++) {
        struct cam_periph *p;
        TAILQ_FOREACH(p, &(*d)->units, unit_links) {
            for (size_t i = 0; i < nitems(kinds) && !busy; i++)
                busy = p->sim == sc->sim && (p->flags & CAM_PERIPH_INVALID) == 0 &&
                       strcmp(p->periph_name, kinds[i].name) == 0 && p->refcount > kinds[i].idle_refs;
            if (busy) {
                device_printf(sc->dev, "detach refused: %s%u is open\n", p->periph_name, p->unit_number);
                break;
            }
        }
    }
    xpt_unlock_buses();
    return busy;
}

static int pcam_fbsd_detach(device_t dev)
{
    struct pcam_fbsd_softc *sc = device_get_softc(dev);

    if (sc->registered && pcam_fbsd_in_use(sc))
        return EBUSY; /* kldunload and devctl detach report it */
    mtx_lock(&sc->mtx);
    if (sc->registered) {
        xpt_async(AC_LOST_DEVICE, sc->path, NULL);
        xpt_free_path(sc->path);
        xpt_bus_deregister(cam_sim_path(sc->sim));
        sc->registered = false;
    }
    if (sc->bus_up)
        pcam_bus_shutdown(&sc->bus); /* every CCB still in the core completes */
    if (sc->chip != NULL && sc->chip->stop != NULL)
        sc->chip->stop(sc);
    sc->bus_up = false;
    mtx_unlock(&sc->mtx);
    /* The interrupt goes only once the bus is down: a CCB CAM sent during
     * the deregistration still completes. */
    if (sc->ih != NULL)
        bus_teardown_intr(dev, sc->irq_res, sc->ih);
    sc->ih = NULL;
    mtx_lock(&sc->mtx);
    if (sc->sim != NULL)
        cam_sim_free(sc->sim, TRUE); /* with the SIM mutex held, as cam_sim.c asserts; waits for the
                                      * last periph of the bus to go */
    sc->sim = NULL;
    mtx_unlock(&sc->mtx);
    callout_drain(&sc->timer);
    if (sc->area_bus != 0)
        bus_dmamap_unload(sc->dtag, sc->dmap);
    if (sc->area != NULL)
        bus_dmamem_free(sc->dtag, sc->area, sc->dmap);
    if (sc->dtag != NULL)
        bus_dma_tag_destroy(sc->dtag);
    if (sc->irq_res != NULL)
        bus_release_resource(dev, SYS_RES_IRQ, sc->irq_rid, sc->irq_res);
    if (sc->io_res != NULL)
        bus_release_resource(dev, SYS_RES_IOPORT, sc->io_rid, sc->io_res);
    free(sc->luns, M_DEVBUF);
    mtx_destroy(&sc->mtx);
    return 0;
}

static device_method_t pcam_fbsd_methods[] = {
    DEVMETHOD(device_probe, pcam_fbsd_probe),
    DEVMETHOD(device_attach, pcam_fbsd_attach),
    DEVMETHOD(device_detach, pcam_fbsd_detach),
    DEVMETHOD_END
};

static driver_t pcam_fbsd_driver = {"pcam", pcam_fbsd_methods, sizeof(struct pcam_fbsd_softc)};

#if __FreeBSD_version >= 1400058
DRIVER_MODULE(pcam, pci, pcam_fbsd_driver, NULL, NULL);
#else
static devclass_t pcam_fbsd_devclass;
DRIVER_MODULE(pcam, pci, pcam_fbsd_driver, pcam_fbsd_devclass, NULL, NULL);
#endif
MODULE_DEPEND(pcam, cam, 1, 1, 1);
MODULE_DEPEND(pcam, pci, 1, 1, 1);
