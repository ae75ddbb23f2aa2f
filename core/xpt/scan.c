/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bus scan: INQUIRY on LUN 0 of every ID, REPORT LUNS where the device
 * claims SPC-3 or later (else, and always with PCAM_CFG_REPORT_LUNS 0,
 * LUNs 1-7), INQUIRY on each LUN found, and
 * device found / lost events as the table changes. It runs on the bus's own
 * internal CCB through the ordinary queues, so scanning obeys every rule
 * (depth, recovery, timeouts) a normal command does. One scan at a time;
 * later requests wait their turn. A back-end's word that a device came or
 * went (pcam_bus_hal_device_changed()) marks it lost at once, or has the
 * core scan the targets concerned itself when no scan is running: the scan
 * the caller would otherwise have to ask for.
 */
#include "xpt.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_sense.h"

enum { SCAN_INQ0 = 1, SCAN_RLUNS = 2, SCAN_INQ = 3, SCAN_TUR = 4 };
#define SCAN_STAGE 0x07u   /* scan_flags: the stage */
#define SCAN_TUR_INQ0 0x08u /* SCAN_TUR: the LU was LUN 0's INQUIRY (REPORT LUNS may follow) */
#define SCAN_TUR_SHIFT 4   /* SCAN_TUR: TEST UNIT READYs sent so far, bits 4..6 */
#define SCAN_TUR_MAX 4u    /* at most this many per LU */
#define SCAN_ONE_LUN 0x80u /* PCAM_FN_SCAN_LUN: only the requested path */
/* Sense of the scan's TEST UNIT READY: in the internal buffer, right past
 * the INQUIRY data still needed (REPORT LUNS never runs at the same time),
 * 32 bytes or what the buffer has left (28 with the smallest, 64 bytes:
 * fixed-format sense with its sense-key specific bytes is 18). It was at
 * offset 200, past the end of a 64-byte buffer, where it overwrote the bus
 * fields after it. */
#define SCAN_SENSE_OFF ((uint32_t)PCAM_INQ_BYTES)
#define SCAN_SENSE_LEN \
    (PCAM_CFG_SCAN_BUF - SCAN_SENSE_OFF < 32u ? PCAM_CFG_SCAN_BUF - SCAN_SENSE_OFF : 32u)
/* Both must fit (a negative array size fails the build otherwise). */
typedef char pcam_scan_sense_fits[SCAN_SENSE_OFF + SCAN_SENSE_LEN <= PCAM_CFG_SCAN_BUF &&
                                          SCAN_SENSE_LEN >= 18u
                                      ? 1
                                      : -1];

static void scan_issue(pcam_bus *bus);

/* The core's own scan (after a back-end's device report) has no request
 * CCB to complete: its marker is the probe CCB, which no caller can name. */
#define SCAN_OWN(bus) ((bus)->scan.ccb == &(bus)->xpt.internal)

/* The scan reaches target t: a rescan it was owed is paid. */
static void scan_enter(pcam_bus *bus, uint8_t t)
{
    bus->scan.target = t;
    bus->scan.lun = 0;
    bus->scan.flags = SCAN_INQ0;
    pcam_dev_tgt_flags(&bus->targets[t], 0, PCAM_TGTF_RESCAN);
}

static void set_lun_absent(pcam_bus *bus, uint8_t t, uint8_t l)
{
    pcam_lun *lun = pcam_core_lun(bus, t, l);
    if (lun == NULL)
        return;
    bool was = (lun->dev.flags & PCAM_LUNF_PRESENT) != 0;
    pcam_dev_lun_flags(lun, 0, PCAM_LUNF_PRESENT | PCAM_LUNF_TAGGED);
    pcam_dev_lun_id(lun, 3, 0x1F, NULL, 0);
    if (was) {
        pcam_core_event(bus, PCAM_EV_LOST, t, l, 0);
        pcam_core_async(bus, PCAM_AC_LOST_DEVICE, t, l);
    }
}

/* What the scan keeps of standard INQUIRY data (SPC-4): the peripheral
 * qualifier and device type (byte 0) and CMDQUE (byte 7 bit 1, when the
 * ADDITIONAL LENGTH in byte 4 reaches it); fewer than 5 bytes is no answer.
 * Read here rather than through pcam_inquiry_parse(), which decodes every
 * field for tools and is compiled only with PCAM_CFG_CODEC_EXTRAS; the
 * rules are the same (tests/unit/test_inquiry.c for the parser, the scan
 * scenarios for this). */
static void record_inquiry(pcam_bus *bus, uint8_t t, uint8_t l, const uint8_t *buf, uint32_t len)
{
    pcam_lun *lun = pcam_core_lun(bus, t, l);
    if (lun == NULL)
        return;
    if (len < 5) {
        set_lun_absent(bus, t, l);
        return;
    }
    uint8_t qualifier = (uint8_t)(buf[0] >> 5);
    uint8_t type = (uint8_t)(buf[0] & 0x1Fu);
    uint32_t valid = (uint32_t)buf[4] + 5u < len ? (uint32_t)buf[4] + 5u : len;
    bool cmdque = valid >= 8 && (buf[7] & 0x02u) != 0;
    if (qualifier != 0 || type == 0x1F) {
        /* Qualifier 1 (capable but not connected) and 3 (no LU) are not
         * devices; what the LU said it is is kept all the same. */
        set_lun_absent(bus, t, l);
        pcam_dev_lun_id(lun, qualifier, type, NULL, 0);
        return;
    }
    bool was = (lun->dev.flags & PCAM_LUNF_PRESENT) != 0;
    pcam_dev_lun_id(lun, qualifier, type, buf, len);
    pcam_dev_lun_flags(lun, (uint8_t)(PCAM_LUNF_PRESENT | (cmdque ? PCAM_LUNF_TAGGED : 0)),
                       cmdque ? 0 : PCAM_LUNF_TAGGED);
    pcam_dev_tgt_flags(&bus->targets[t], PCAM_TGTF_PRESENT, 0);
    if (!was) {
        pcam_core_event(bus, PCAM_EV_FOUND, t, l, type);
        pcam_core_async(bus, PCAM_AC_FOUND_DEVICE, t, l);
    }
}

#if PCAM_CFG_REPORT_LUNS
static void lunmask_from_report(pcam_bus *bus, const uint8_t *buf, uint32_t len)
{
    uint32_t list_bytes = 0, count = 0;
    pcam_report_luns_header(buf, len, &list_bytes, &count);
    bus->scan.lunmask = 0;
    for (uint32_t i = 0; i < count; i++) {
        pcam_lun_addr a;
        if (pcam_report_luns_get(buf, len, i, &a) != PCAM_OK || !a.has_lun || a.has_next_level)
            continue;
        if (a.lun != 0 && a.lun < bus->cfg.luns_per_target && a.lun < 64)
            bus->scan.lunmask |= pcam_bit64(a.lun);
    }
}
#endif

/* LUNs 1-7 (those of them the bus has slots for). */
static void default_lunmask(pcam_bus *bus)
{
    unsigned n = bus->cfg.luns_per_target < 8 ? bus->cfg.luns_per_target : 8;
    bus->scan.lunmask = ((1u << n) - 1u) & ~1u;
}

/* Move the cursor to the next LUN to probe, or the next target; false when done. */
static bool scan_advance(pcam_bus *bus)
{
    uint8_t t = bus->scan.target;
    if ((bus->scan.flags & SCAN_ONE_LUN) != 0)
        return false;
    /* LUNs of the current target that the new mask leaves out are gone. */
    while (bus->scan.flags != 0 && (bus->scan.flags & SCAN_STAGE) == SCAN_INQ) {
        unsigned l = (unsigned)bus->scan.lun + 1;
        for (; l < bus->cfg.luns_per_target; l++) {
            if (l < 64 && (bus->scan.lunmask & pcam_bit64(l)) != 0)
                break;
            set_lun_absent(bus, t, (uint8_t)l);
        }
        if (l < bus->cfg.luns_per_target) {
            bus->scan.lun = (uint8_t)l;
            return true;
        }
        break;
    }
    for (unsigned nt = (unsigned)t + 1; nt < bus->caps.max_targets; nt++) {
        if (nt == bus->caps.initiator_id ||
            (SCAN_OWN(bus) && (bus->targets[nt].dev.flags & PCAM_TGTF_RESCAN) == 0))
            continue;
        scan_enter(bus, (uint8_t)nt);
        return true;
    }
    return false;
}

/* Start the core's own scan if a target is owed one and no scan runs. It
 * walks the owed targets in ID order; a report for one it has passed makes
 * the next such scan. */
static void scan_own_start(pcam_bus *bus)
{
    if (bus->scan.ccb != NULL || pcam_engine_shut_down(bus))
        return;
    for (unsigned t = 0; t < bus->caps.max_targets; t++) {
        if ((bus->targets[t].dev.flags & PCAM_TGTF_RESCAN) == 0)
            continue;
        bus->scan.ccb = &bus->xpt.internal;
        scan_enter(bus, (uint8_t)t);
        scan_issue(bus);
        return;
    }
}

static void scan_finish(pcam_bus *bus, uint32_t status)
{
    pcam_ccb *req = bus->scan.ccb;
    bool own = SCAN_OWN(bus);
    bus->scan.ccb = NULL;
    bus->scan.flags = 0;
    if (!own)
        pcam_core_complete(bus, req, status);
    pcam_ccb *next = pcam_ccbq_pop_head(&bus->scan.q);
    if (next != NULL)
        pcam_scan_start(bus, next);
    else
        scan_own_start(bus);
}

/* Is another TEST UNIT READY worth it? Only while the LU reports what a
 * pending UNIT ATTENTION looks like: the UA itself, or (QEMU 7.2 at a LUN
 * above 0, whose REQUEST SENSE the bus's target emulation answers) ILLEGAL
 * REQUEST 25/00 from a LU INQUIRY just found; each such CHECK CONDITION
 * uses one condition up. NOT READY and the rest are the device's state: the
 * user's first command will hear them itself. */
static bool scan_tur_again(pcam_bus *bus, const pcam_ccb *ic)
{
    pcam_sense s;
    if ((ic->status & PCAM_STATUS_MASK) != PCAM_SCSI_STATUS_ERROR || ic->u.io.scsi_status != 0x02)
        return false;
    if ((ic->status & PCAM_AUTOSNS_VALID) == 0)
        return true; /* the sense could not be had: try again, bounded */
    if (pcam_sense_decode(bus->xpt.internal_buf + SCAN_SENSE_OFF,
                          (size_t)(SCAN_SENSE_LEN - ic->u.io.sense_resid), &s) != PCAM_OK || !s.key_valid)
        return true;
    return s.key == PCAM_SK_UNIT_ATTENTION ||
           (s.key == PCAM_SK_ILLEGAL_REQUEST && s.asc_valid && s.asc == 0x25);
}

/* After INQUIRY found a LU: clear its power-on UNIT ATTENTION now, with a
 * bounded TEST UNIT READY loop as mature stacks do, so the user's first
 * command meets a ready device. */
static void scan_start_tur(pcam_bus *bus, bool after_inq0)
{
    bus->scan.flags = (uint8_t)((bus->scan.flags & SCAN_ONE_LUN) | SCAN_TUR |
                                (after_inq0 ? SCAN_TUR_INQ0 : 0u));
    scan_issue(bus);
}

static void scan_done(pcam_ccb *ic)
{
    pcam_bus *bus = ic->user;
    uint8_t t = bus->scan.target, l = bus->scan.lun;
    uint32_t st = ic->status & PCAM_STATUS_MASK;
    uint32_t got = ic->u.io.data_len - ic->u.io.resid;
    uint8_t stage = bus->scan.flags & SCAN_STAGE;

    if (bus->scan.ccb == NULL)
        return; /* shut down while the probe was in flight */
    if (pcam_engine_shut_down(bus)) {
        /* The chip died under the probe (the engine failed every command
         * with NO_HBA): the scan and every request behind it end so too. */
        pcam_scan_cancel(bus, PCAM_NO_HBA);
        return;
    }
    if (stage == SCAN_TUR) {
        unsigned n = ((unsigned)bus->scan.flags >> SCAN_TUR_SHIFT) & 7u;
        bool inq0 = (bus->scan.flags & SCAN_TUR_INQ0) != 0;
        if (++n < SCAN_TUR_MAX && scan_tur_again(bus, ic)) {
            bus->scan.flags = (uint8_t)((bus->scan.flags & ~(7u << SCAN_TUR_SHIFT)) | (n << SCAN_TUR_SHIFT));
            scan_issue(bus);
            return;
        }
        /* Go on where the INQUIRY left off (its data is still in the buffer). */
        bus->scan.flags = (uint8_t)((bus->scan.flags & SCAN_ONE_LUN) | (inq0 ? SCAN_INQ0 : SCAN_INQ));
        stage = inq0 ? SCAN_INQ0 : SCAN_INQ;
        st = PCAM_REQ_CMP;
        got = bus->scan.inq_got;
    } else if (stage == SCAN_INQ0 || stage == SCAN_INQ) {
        if (st == PCAM_REQ_CMP) {
            record_inquiry(bus, t, l, bus->xpt.internal_buf, got);
            pcam_lun *lu = pcam_core_lun(bus, t, l);
            if (lu != NULL && (lu->dev.flags & PCAM_LUNF_PRESENT) != 0) {
                bus->scan.inq_got = (uint8_t)(got < 255u ? got : 255u);
                scan_start_tur(bus, stage == SCAN_INQ0);
                return;
            }
        }
    }
    if (stage == SCAN_INQ0 || stage == SCAN_INQ) {
        if (st == PCAM_REQ_CMP) {
            /* recorded above */
        } else {
            set_lun_absent(bus, t, l);
            if (stage == SCAN_INQ0) {
                /* Nobody at this ID (or it cannot answer INQUIRY): every LUN is gone. */
                for (uint8_t x = 1; x < bus->cfg.luns_per_target; x++)
                    set_lun_absent(bus, t, x);
                pcam_dev_tgt_flags(&bus->targets[t], 0, PCAM_TGTF_PRESENT);
            }
        }
        if (stage == SCAN_INQ0 && st == PCAM_REQ_CMP && (bus->scan.flags & SCAN_ONE_LUN) == 0) {
#if PCAM_CFG_REPORT_LUNS
            const pcam_lun *lun0 = pcam_core_lun(bus, t, 0);
            uint8_t version = got > 2 ? bus->xpt.internal_buf[2] : 0;
            bool report = bus->cfg.scan_report_luns && version >= 5 && lun0 != NULL;
            if (report) {
                bus->scan.flags = SCAN_RLUNS;
                scan_issue(bus);
                return;
            }
#endif
            default_lunmask(bus);
            bus->scan.flags = SCAN_INQ;
            bus->scan.lun = 0;
        } else if (stage == SCAN_INQ0 && (bus->scan.flags & SCAN_ONE_LUN) == 0) {
            bus->scan.flags = SCAN_INQ;
            bus->scan.lunmask = 0;
            bus->scan.lun = 0;
        }
    }
#if PCAM_CFG_REPORT_LUNS
    else if (stage == SCAN_RLUNS) {
        if (st == PCAM_REQ_CMP)
            lunmask_from_report(bus, bus->xpt.internal_buf, got);
        else
            default_lunmask(bus);
        bus->scan.flags = SCAN_INQ;
        bus->scan.lun = 0;
    }
#endif
    if (!scan_advance(bus)) {
        scan_finish(bus, PCAM_REQ_CMP);
        return;
    }
    scan_issue(bus);
}

static void scan_issue(pcam_bus *bus)
{
    pcam_ccb *ic = &bus->xpt.internal;
    uint8_t stage = bus->scan.flags & SCAN_STAGE;
    memset(ic, 0, sizeof *ic);
    ic->func = PCAM_FN_SCSI_IO;
    ic->target = bus->scan.target;
    ic->lun = stage == SCAN_INQ ? bus->scan.lun : 0;
    if ((bus->scan.flags & SCAN_ONE_LUN) != 0)
        ic->lun = bus->scan.lun;
    ic->done = scan_done;
    ic->user = bus;
    ic->u.io.dir = PCAM_DIR_IN;
    ic->u.io.data = bus->xpt.internal_buf;
    ic->u.io.retries = bus->cfg.default_retries;
    if (stage == SCAN_TUR) {
        /* TEST UNIT READY: no data; the core's own retries are off, the loop
         * in scan_done counts them, and the sense tells it whether to go on. */
        ic->lun = bus->scan.lun;
        ic->flags = PCAM_CCB_NO_RECOVERY;
        ic->u.io.dir = PCAM_DIR_NONE;
        ic->u.io.data = NULL;
        ic->u.io.retries = 0;
        ic->u.io.sense = bus->xpt.internal_buf + SCAN_SENSE_OFF;
        ic->u.io.sense_len = SCAN_SENSE_LEN;
        ic->u.io.cdb_len = 6; /* all zero, like the data length: ic was cleared */
    }
#if PCAM_CFG_REPORT_LUNS
    else if (stage == SCAN_RLUNS) {
        ic->u.io.data_len = sizeof bus->xpt.internal_buf;
        ic->u.io.cdb_len = (uint8_t)pcam_cdb_report_luns(ic->u.io.cdb, sizeof ic->u.io.cdb, 0,
                                                         (uint32_t)sizeof bus->xpt.internal_buf);
    }
#endif
    else {
        ic->u.io.data_len = PCAM_INQ_BYTES;
        ic->u.io.cdb_len = (uint8_t)pcam_cdb_inquiry(ic->u.io.cdb, sizeof ic->u.io.cdb, false, 0,
                                                     PCAM_INQ_BYTES);
    }
    pcam_action(bus, ic);
}

bool pcam_scan_abort(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_ccb *v = ccb->u.abort.victim;
    if (v == NULL || v == ccb || v->priv.magic != PCAM_CCB_MAGIC || v->priv.state != PCAM_CS_MGMT ||
        (v->func != PCAM_FN_SCAN_BUS && v->func != PCAM_FN_SCAN_LUN))
        return false;
    if (v == bus->scan.ccb) {
        pcam_core_complete(bus, ccb, PCAM_REQ_INVALID); /* already on the bus */
        return true;
    }
    pcam_ccbq_remove(&bus->scan.q, v);
    pcam_core_complete(bus, v, PCAM_REQ_ABORTED);
    pcam_core_complete(bus, ccb, PCAM_REQ_CMP);
    return true;
}

void pcam_scan_cancel(pcam_bus *bus, uint32_t status)
{
    pcam_ccb *c;
    while ((c = pcam_ccbq_pop_head(&bus->scan.q)) != NULL)
        pcam_core_complete(bus, c, status);
    if (bus->scan.ccb != NULL) {
        c = bus->scan.ccb;
        bool own = SCAN_OWN(bus);
        bus->scan.ccb = NULL;
        bus->scan.flags = 0;
        if (!own)
            pcam_core_complete(bus, c, status);
    }
    for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++)
        pcam_dev_tgt_flags(&bus->targets[t], 0, PCAM_TGTF_RESCAN);
}

void pcam_scan_start(pcam_bus *bus, pcam_ccb *ccb)
{
    ccb->priv.state = PCAM_CS_MGMT;
    if (bus->scan.ccb != NULL) {
        pcam_ccbq_push_tail(&bus->scan.q, ccb);
        return;
    }
    bus->scan.ccb = ccb;
    if (ccb->func == PCAM_FN_SCAN_LUN) {
        bus->scan.target = ccb->target;
        bus->scan.lun = ccb->lun;
        bus->scan.flags = (uint8_t)((ccb->lun == 0 ? SCAN_INQ0 : SCAN_INQ) | SCAN_ONE_LUN);
    } else {
        scan_enter(bus, bus->caps.initiator_id == 0 ? 1 : 0);
    }
    scan_issue(bus);
}

int pcam_scan_device_changed(pcam_bus *bus, uint8_t target, uint8_t lun, bool added)
{
    if (target == PCAM_WILDCARD) {
        if (!added)
            return PCAM_ERR_RANGE;
        for (unsigned t = 0; t < bus->caps.max_targets; t++)
            if (t != bus->caps.initiator_id)
                pcam_dev_tgt_flags(&bus->targets[t], PCAM_TGTF_RESCAN, 0);
        scan_own_start(bus);
        return PCAM_OK;
    }
    if (target >= bus->caps.max_targets || target == bus->caps.initiator_id ||
        (lun != PCAM_WILDCARD && lun >= bus->cfg.luns_per_target))
        return PCAM_ERR_RANGE;
    if (added) {
        /* Which LUNs it has is the scan's to find (REPORT LUNS): the whole
         * target is scanned whatever LUN was named. */
        pcam_dev_tgt_flags(&bus->targets[target], PCAM_TGTF_RESCAN, 0);
        scan_own_start(bus);
        return PCAM_OK;
    }
    /* Gone: the back-end's word is enough, no probe is sent to ask. */
    for (uint8_t l = 0; l < bus->cfg.luns_per_target; l++)
        if (lun == PCAM_WILDCARD || l == lun)
            set_lun_absent(bus, target, l);
    if (lun == PCAM_WILDCARD)
        pcam_dev_tgt_flags(&bus->targets[target], 0, PCAM_TGTF_PRESENT);
    return PCAM_OK;
}
