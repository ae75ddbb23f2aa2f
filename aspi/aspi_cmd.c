/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SendASPI32Command and the synchronous commands: host adapter inquiry,
 * device type, disk information, rescan and timeouts. Each stores its
 * result in SRB_Status and returns the same value.
 */
#include "aspi_internal.h"

/* HA_ManagerId: the name clients print for the manager. It says whose
 * manager answers (not Adaptec's "ASPI for WIN32"): device lists show it. */
static const char manager_id[] = "pcam ASPI Win32";

static DWORD done(SRB_Header *h, BYTE st)
{
    aspi_store_status(&h->SRB_Status, st);
    return st;
}

/* Space-padded, not terminated, as the fixed-width fields are. */
static void pad_copy(BYTE *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; i < cap && src[i] != '\0'; i++)
        dst[i] = (BYTE)src[i];
    for (; i < cap; i++)
        dst[i] = ' ';
}

static void put_le16(BYTE *p, uint32_t v)
{
    p[0] = (BYTE)v;
    p[1] = (BYTE)(v >> 8);
}

static void put_le32(BYTE *p, uint32_t v)
{
    put_le16(p, v);
    put_le16(p + 2, v >> 16);
}

static DWORD ha_inquiry(SRB_HAInquiry *srb)
{
    srb->HA_Count = pcam_aspi_mgr.count;
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return done((SRB_Header *)srb, SS_INVALID_HA);
    const pcam_pathinq *pi = &ad->pathinq;
    srb->HA_SCSI_ID = pi->initiator_id;
    pad_copy(srb->HA_ManagerId, sizeof srb->HA_ManagerId, manager_id);
    pad_copy(srb->HA_Identifier, sizeof srb->HA_Identifier, pi->chip_name);
    memset(srb->HA_Unique, 0, sizeof srb->HA_Unique);
    /* HA_Unique: alignment mask, residual support, targets, max transfer
     * (a back-end without a limit reports the largest DWORD). */
    put_le16(&srb->HA_Unique[0], pi->align_mask);
    srb->HA_Unique[2] = pi->residuals ? 1 : 0;
    srb->HA_Unique[3] = (BYTE)(pi->max_target + 1u);
    put_le32(&srb->HA_Unique[4], pi->max_xfer != 0 ? pi->max_xfer : 0xFFFFFFFFu);
    srb->HA_Rsvd1 = 0;
    return done((SRB_Header *)srb, SS_COMP);
}

/* Whether target/LUN name a device slot of the bus (the initiator is none). */
static bool path_ok(const pcam_aspi_adapter *ad, uint8_t target, uint8_t lun)
{
    const pcam_pathinq *pi = &ad->pathinq;
    return target <= pi->max_target && target != pi->initiator_id && lun <= pi->max_lun;
}

/* The device table's answer for a path: SS_COMP with the type, or why not. */
static BYTE dev_type(pcam_aspi_adapter *ad, uint8_t target, uint8_t lun, uint8_t *type)
{
    *type = DTYPE_UNKNOWN;
    if (!path_ok(ad, target, lun))
        return SS_NO_DEVICE;
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_GET_DEV;
    ccb.target = target;
    ccb.lun = lun;
    ad->ops.lock(ad->ctx);
    uint32_t st = pcam_aspi_run_ccb(ad, &ccb) & PCAM_STATUS_MASK;
    ad->ops.unlock(ad->ctx);
    if (st == PCAM_REQ_CMP) {
        const pcam_dev *d = &ccb.u.dev;
        /* Qualifier 1 or 3, or type 1Fh, is not a device (phantom LUNs). */
        if (!d->present || d->qualifier != 0 || d->type == 0x1F)
            return SS_NO_DEVICE;
        *type = d->type;
        return SS_COMP;
    }
    uint8_t ss;
    pcam_aspi_map_status(st, &ss, NULL);
    return ss;
}

static DWORD get_dev_type(SRB_GDEVBlock *srb)
{
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return done((SRB_Header *)srb, SS_INVALID_HA);
    uint8_t type;
    BYTE st = dev_type(ad, srb->SRB_Target, srb->SRB_Lun, &type);
    srb->SRB_DeviceType = type;
    return done((SRB_Header *)srb, st);
}

static DWORD get_disk_info(SRB_GetDiskInfo *srb)
{
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return done((SRB_Header *)srb, SS_INVALID_HA);
    uint8_t type;
    BYTE st = dev_type(ad, srb->SRB_Target, srb->SRB_Lun, &type);
    srb->SRB_DriveFlags = DISK_INVALID;
    srb->SRB_Int13HDriveInfo = 0;
    srb->SRB_Heads = 0;
    srb->SRB_Sectors = 0;
    memset(srb->SRB_Rsvd1, 0, sizeof srb->SRB_Rsvd1);
    if (st != SS_COMP)
        return done((SRB_Header *)srb, st);
    /* Only a direct-access device is a disk; without a BIOS behind the
     * adapter no disk is reachable through INT 13h. */
    if (type == DTYPE_DASD) {
        pcam_aspi_disk_info di = {DISK_NOT_INT13, 0, 0, 0};
        if (ad->ops.disk_info != NULL && !ad->ops.disk_info(ad->ctx, srb->SRB_Target, srb->SRB_Lun, &di))
            di = (pcam_aspi_disk_info){DISK_NOT_INT13, 0, 0, 0};
        srb->SRB_DriveFlags = di.drive_flags;
        srb->SRB_Int13HDriveInfo = di.int13_drive;
        srb->SRB_Heads = di.heads;
        srb->SRB_Sectors = di.sectors;
    }
    return done((SRB_Header *)srb, SS_COMP);
}

static DWORD rescan(SRB_RescanPort *srb)
{
    pcam_aspi_adapter *ad = pcam_aspi_adapter_for(srb->SRB_HaId);
    if (ad == NULL)
        return done((SRB_Header *)srb, SS_INVALID_HA);
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCAN_BUS;
    ad->ops.lock(ad->ctx);
    uint32_t st = pcam_aspi_run_ccb(ad, &ccb);
    ad->ops.unlock(ad->ctx);
    uint8_t ss;
    pcam_aspi_map_status(st, &ss, NULL);
    return done((SRB_Header *)srb, ss);
}

static void set_timeouts(pcam_aspi_adapter *ad, uint8_t target, uint8_t lun, uint32_t secs)
{
    ad->ops.lock(ad->ctx);
    for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++) {
        if (target != 0xFF && t != target)
            continue;
        for (unsigned l = 0; l < PCAM_ASPI_TIMEOUT_LUNS; l++)
            if (lun == 0xFF || l == lun)
                ad->timeout_s[t][l] = secs;
    }
    ad->ops.unlock(ad->ctx);
}

/* SRB_DIR_IN reads one path's timeout; SRB_DIR_OUT sets it, with 0xFF
 * wildcards. 0 stands for the bus's own default. */
static DWORD getset_timeouts(SRB_GetSetTimeouts *srb)
{
    BYTE dir = srb->SRB_Flags & (SRB_DIR_IN | SRB_DIR_OUT);
    uint8_t ha = srb->SRB_HaId, target = srb->SRB_Target, lun = srb->SRB_Lun;
    if (dir != SRB_DIR_IN && dir != SRB_DIR_OUT)
        return done((SRB_Header *)srb, SS_INVALID_SRB);
    bool set = dir == SRB_DIR_OUT;
    if (!set && (ha == 0xFF || target == 0xFF || lun == 0xFF))
        return done((SRB_Header *)srb, SS_INVALID_SRB);
    if (ha != 0xFF && pcam_aspi_adapter_for(ha) == NULL)
        return done((SRB_Header *)srb, SS_INVALID_HA);
    if ((target != 0xFF && target >= PCAM_MAX_TARGETS) ||
        (lun != 0xFF && lun >= PCAM_ASPI_TIMEOUT_LUNS))
        return done((SRB_Header *)srb, SS_NO_DEVICE);
    if (!set) {
        pcam_aspi_adapter *ad = pcam_aspi_adapter_for(ha);
        ad->ops.lock(ad->ctx);
        srb->SRB_Timeout = ad->timeout_s[target][lun];
        ad->ops.unlock(ad->ctx);
        return done((SRB_Header *)srb, SS_COMP);
    }
    uint32_t secs = srb->SRB_Timeout;
    if (secs > PCAM_ASPI_TIMEOUT_MAX_S)
        return done((SRB_Header *)srb, SS_INVALID_SRB);
    for (uint8_t i = 0; i < pcam_aspi_mgr.count; i++)
        if (ha == 0xFF || i == ha)
            set_timeouts(pcam_aspi_mgr.ad[i], target, lun, secs);
    return done((SRB_Header *)srb, SS_COMP);
}

DWORD ASPI_CDECL SendASPI32Command(LPSRB p)
{
    SRB_Header *h = p;
    if (h == NULL)
        return SS_INVALID_SRB;
    if (h->SRB_Cmd == SC_EXEC_SCSI_CMD)
        return pcam_aspi_exec(p);
    if (h->SRB_Cmd == SC_RESET_DEV)
        return pcam_aspi_reset_dev(p);
    if (!pcam_aspi_mgr.up)
        return done(h, SS_NO_ASPI);
    switch (h->SRB_Cmd) {
    case SC_HA_INQUIRY:
        return ha_inquiry(p);
    case SC_GET_DEV_TYPE:
        return get_dev_type(p);
    case SC_ABORT_SRB:
        return done(h, (BYTE)pcam_aspi_abort(p));
    case SC_GET_DISK_INFO:
        return get_disk_info(p);
    case SC_RESCAN_SCSI_BUS:
        return rescan(p);
    case SC_GETSET_TIMEOUTS:
        return getset_timeouts(p);
    default:
        /* SC_SET_HA_PARMS is DOS ASPI; anything else is unknown. */
        return done(h, SS_INVALID_CMD);
    }
}
