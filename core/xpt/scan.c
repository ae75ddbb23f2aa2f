/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bus scan: INQUIRY on LUN 0 of every ID, REPORT LUNS where the device
 * claims SPC-3 or later (else LUNs 1-7), INQUIRY on each LUN found, and
 * device found / lost events as the table changes. It runs on the bus's own
 * internal CCB through the ordinary queues, so scanning obeys every rule
 * (depth, recovery, timeouts) a normal command does. One scan at a time;
 * later requests wait their turn.
 */
#include "pcam_core.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_inquiry.h"

enum { SCAN_INQ0 = 1, SCAN_RLUNS = 2, SCAN_INQ = 3 };
#define SCAN_ONE_LUN 0x80u /* PCAM_FN_SCAN_LUN: only the requested path */

static void scan_issue(pcam_bus *bus);

static void set_lun_absent(pcam_bus *bus, uint8_t t, uint8_t l)
{
    pcam_lun *lun = pcam_core_lun(bus, t, l);
    if (lun == NULL)
        return;
    bool was = (lun->flags & PCAM_LUNF_PRESENT) != 0;
    lun->flags &= (uint8_t)~(PCAM_LUNF_PRESENT | PCAM_LUNF_TAGGED);
    lun->inquiry_len = 0;
    lun->qualifier = 3;
    lun->type = 0x1F;
    if (was) {
        pcam_core_event(bus, PCAM_EV_LOST, t, l, 0);
        pcam_core_async(bus, PCAM_AC_LOST_DEVICE, t, l);
    }
}

static void record_inquiry(pcam_bus *bus, uint8_t t, uint8_t l, const uint8_t *buf, uint32_t len)
{
    pcam_lun *lun = pcam_core_lun(bus, t, l);
    pcam_inquiry inq;
    if (lun == NULL)
        return;
    if (pcam_inquiry_parse(buf, len, &inq) != PCAM_OK || inq.qualifier != 0 ||
        inq.device_type == 0x1F) {
        /* Qualifier 1 (capable but not connected) and 3 (no LU) are not devices. */
        set_lun_absent(bus, t, l);
        if (pcam_inquiry_parse(buf, len, &inq) == PCAM_OK) {
            lun->qualifier = inq.qualifier;
            lun->type = inq.device_type;
        }
        return;
    }
    bool was = (lun->flags & PCAM_LUNF_PRESENT) != 0;
    lun->qualifier = inq.qualifier;
    lun->type = inq.device_type;
    lun->inquiry_len = (uint8_t)(len < PCAM_INQ_BYTES ? len : PCAM_INQ_BYTES);
    memcpy(lun->inquiry, buf, lun->inquiry_len);
    lun->flags |= PCAM_LUNF_PRESENT;
    if (inq.cmdque)
        lun->flags |= PCAM_LUNF_TAGGED;
    else
        lun->flags &= (uint8_t)~PCAM_LUNF_TAGGED;
    bus->targets[t].flags |= PCAM_TGTF_PRESENT;
    if (!was) {
        pcam_core_event(bus, PCAM_EV_FOUND, t, l, inq.device_type);
        pcam_core_async(bus, PCAM_AC_FOUND_DEVICE, t, l);
    }
}

static void lunmask_from_report(pcam_bus *bus, const uint8_t *buf, uint32_t len)
{
    uint32_t list_bytes = 0, count = 0;
    pcam_report_luns_header(buf, len, &list_bytes, &count);
    bus->scan_lunmask = 0;
    for (uint32_t i = 0; i < count; i++) {
        pcam_lun_addr a;
        if (pcam_report_luns_get(buf, len, i, &a) != PCAM_OK || !a.has_lun || a.has_next_level)
            continue;
        if (a.lun != 0 && a.lun < bus->cfg.luns_per_target && a.lun < 64)
            bus->scan_lunmask |= pcam_bit64(a.lun);
    }
}

static void default_lunmask(pcam_bus *bus)
{
    unsigned n = bus->cfg.luns_per_target < 8 ? bus->cfg.luns_per_target : 8;
    bus->scan_lunmask = 0;
    for (unsigned l = 1; l < n; l++)
        bus->scan_lunmask |= pcam_bit64(l);
}

/* Move the cursor to the next LUN to probe, or the next target; false when done. */
static bool scan_advance(pcam_bus *bus)
{
    uint8_t t = bus->scan_target;
    if ((bus->scan_flags & SCAN_ONE_LUN) != 0)
        return false;
    /* LUNs of the current target that the new mask leaves out are gone. */
    while (bus->scan_flags != 0 && (bus->scan_flags & 0x7F) == SCAN_INQ) {
        unsigned l = (unsigned)bus->scan_lun + 1;
        for (; l < bus->cfg.luns_per_target; l++) {
            if (l < 64 && (bus->scan_lunmask & pcam_bit64(l)) != 0)
                break;
            set_lun_absent(bus, t, (uint8_t)l);
        }
        if (l < bus->cfg.luns_per_target) {
            bus->scan_lun = (uint8_t)l;
            return true;
        }
        break;
    }
    for (unsigned nt = (unsigned)t + 1; nt < bus->caps.max_targets; nt++) {
        if (nt == bus->caps.initiator_id)
            continue;
        bus->scan_target = (uint8_t)nt;
        bus->scan_lun = 0;
        bus->scan_flags = SCAN_INQ0;
        return true;
    }
    return false;
}

static void scan_finish(pcam_bus *bus, uint32_t status)
{
    pcam_ccb *req = bus->scan_ccb;
    bus->scan_ccb = NULL;
    bus->scan_flags = 0;
    pcam_core_complete(bus, req, status);
    pcam_ccb *next = pcam_ccbq_pop_head(&bus->scan_q);
    if (next != NULL)
        pcam_scan_start(bus, next);
}

static void scan_done(pcam_ccb *ic)
{
    pcam_bus *bus = ic->user;
    uint8_t t = bus->scan_target, l = bus->scan_lun;
    uint32_t st = ic->status & PCAM_STATUS_MASK;
    uint32_t got = ic->u.io.data_len - ic->u.io.resid;
    uint8_t stage = bus->scan_flags & 0x7F;

    if (bus->scan_ccb == NULL)
        return; /* shut down while the probe was in flight */
    if (stage == SCAN_INQ0 || stage == SCAN_INQ) {
        if (st == PCAM_REQ_CMP) {
            record_inquiry(bus, t, l, bus->internal_buf, got);
        } else {
            set_lun_absent(bus, t, l);
            if (stage == SCAN_INQ0) {
                /* Nobody at this ID (or it cannot answer INQUIRY): every LUN is gone. */
                for (uint8_t x = 1; x < bus->cfg.luns_per_target; x++)
                    set_lun_absent(bus, t, x);
                bus->targets[t].flags &= (uint8_t)~PCAM_TGTF_PRESENT;
            }
        }
        if (stage == SCAN_INQ0 && st == PCAM_REQ_CMP && (bus->scan_flags & SCAN_ONE_LUN) == 0) {
            const pcam_lun *lun0 = pcam_core_lun(bus, t, 0);
            uint8_t version = got > 2 ? bus->internal_buf[2] : 0;
            bool report = bus->cfg.scan_report_luns && version >= 5 && lun0 != NULL;
            if (report) {
                bus->scan_flags = SCAN_RLUNS;
                scan_issue(bus);
                return;
            }
            default_lunmask(bus);
            bus->scan_flags = SCAN_INQ;
            bus->scan_lun = 0;
        } else if (stage == SCAN_INQ0 && (bus->scan_flags & SCAN_ONE_LUN) == 0) {
            bus->scan_flags = SCAN_INQ;
            bus->scan_lunmask = 0;
            bus->scan_lun = 0;
        }
    } else if (stage == SCAN_RLUNS) {
        if (st == PCAM_REQ_CMP)
            lunmask_from_report(bus, bus->internal_buf, got);
        else
            default_lunmask(bus);
        bus->scan_flags = SCAN_INQ;
        bus->scan_lun = 0;
    }
    if (!scan_advance(bus)) {
        scan_finish(bus, PCAM_REQ_CMP);
        return;
    }
    scan_issue(bus);
}

static void scan_issue(pcam_bus *bus)
{
    pcam_ccb *ic = &bus->internal;
    uint8_t stage = bus->scan_flags & 0x7F;
    memset(ic, 0, sizeof *ic);
    ic->func = PCAM_FN_SCSI_IO;
    ic->target = bus->scan_target;
    ic->lun = stage == SCAN_INQ ? bus->scan_lun : 0;
    if ((bus->scan_flags & SCAN_ONE_LUN) != 0)
        ic->lun = bus->scan_lun;
    ic->done = scan_done;
    ic->user = bus;
    ic->u.io.dir = PCAM_DIR_IN;
    ic->u.io.data = bus->internal_buf;
    ic->u.io.retries = bus->cfg.default_retries;
    if (stage == SCAN_RLUNS) {
        ic->u.io.data_len = sizeof bus->internal_buf;
        ic->u.io.cdb_len = (uint8_t)pcam_cdb_report_luns(ic->u.io.cdb, sizeof ic->u.io.cdb, 0,
                                                         (uint32_t)sizeof bus->internal_buf);
    } else {
        ic->u.io.data_len = PCAM_INQ_BYTES;
        ic->u.io.cdb_len = (uint8_t)pcam_cdb_inquiry(ic->u.io.cdb, sizeof ic->u.io.cdb, false, 0,
                                                     PCAM_INQ_BYTES);
    }
    pcam_action(bus, ic);
}

void pcam_scan_start(pcam_bus *bus, pcam_ccb *ccb)
{
    if (bus->scan_ccb != NULL) {
        ccb->priv.state = PCAM_CS_MGMT;
        pcam_ccbq_push_tail(&bus->scan_q, ccb);
        return;
    }
    ccb->priv.state = PCAM_CS_MGMT;
    bus->scan_ccb = ccb;
    if (ccb->func == PCAM_FN_SCAN_LUN) {
        bus->scan_target = ccb->target;
        bus->scan_lun = ccb->lun;
        bus->scan_flags = (uint8_t)((ccb->lun == 0 ? SCAN_INQ0 : SCAN_INQ) | SCAN_ONE_LUN);
    } else {
        uint8_t first = bus->caps.initiator_id == 0 ? 1 : 0;
        bus->scan_target = first;
        bus->scan_lun = 0;
        bus->scan_flags = SCAN_INQ0;
    }
    scan_issue(bus);
}
