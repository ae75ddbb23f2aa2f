/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EFI_EXT_SCSI_PASS_THRU_PROTOCOL over the CCB API. A packet becomes one
 * SCSI I/O CCB; the core validates it (CDB length against opcode group,
 * direction, buffers, path) and runs it in polled mode: blocking calls poll
 * until their CCB completes, non-blocking ones are polled by the periodic
 * timer event and signal their event once. The bus "lock" is TPL_CALLBACK,
 * the TPL of that timer. This file translates only; it must never retry,
 * reorder or time anything itself.
 */
#include "uefi_internal.h"

EFI_GUID pcam_uefi_pt_guid = PCAM_EXT_SCSI_PASS_THRU_GUID;

EFI_TPL pcam_uefi_lock(void)
{
    return BS->RaiseTPL(TPL_CALLBACK);
}

void pcam_uefi_unlock(EFI_TPL old)
{
    BS->RestoreTPL(old);
}

/* Signal finished non-blocking requests (outside the core, lock held). */
void pcam_uefi_deliver(pcam_uefi_ctrl *c)
{
    for (UINTN i = 0; i < PCAM_UEFI_SLOTS; i++) {
        pcam_uefi_req *r = &c->slots[i];
        if (r->state == SLOT_DONE && r->event != NULL) {
            EFI_EVENT ev = r->event;
            r->event = NULL;
            r->state = SLOT_FREE;
            if (!c->quiesced)
                BS->SignalEvent(ev);
        }
    }
}

void pcam_uefi_run(pcam_uefi_ctrl *c, volatile UINT8 *until, volatile BOOLEAN *until_flag)
{
    for (;;) {
        pcam_bus_poll(&c->bus);
        pcam_uefi_deliver(c);
        if (until != NULL && *until == SLOT_DONE)
            return;
        if (until_flag != NULL && *until_flag)
            return;
    }
}

void EFIAPI pcam_uefi_timer(EFI_EVENT ev, VOID *ctx)
{
    pcam_uefi_ctrl *c = ctx;
    EFI_TPL old;

    (void)ev;
    if (c == NULL || !c->bus_up || c->quiesced)
        return;
    old = pcam_uefi_lock();
    /* Bounded: a busy bus must not keep the firmware's callbacks waiting. */
    for (UINTN i = 0; i < 64 && pcam_bus_poll(&c->bus); i++)
        ;
    pcam_uefi_deliver(c);
    pcam_uefi_unlock(old);
}

static void mgmt_done(pcam_ccb *ccb)
{
    pcam_uefi_ctrl *c = ccb->user;

    c->mgmt_done = TRUE;
}

/* A management CCB (scan, reset), run to completion. Lock taken here. */
uint32_t pcam_uefi_mgmt(pcam_uefi_ctrl *c, UINT8 func, UINT8 target, UINT8 lun, UINT32 flags)
{
    EFI_TPL old = pcam_uefi_lock();
    uint32_t st;

    if (c->mgmt.user != NULL && !c->mgmt_done) {
        pcam_uefi_unlock(old);
        return PCAM_RESRC_UNAVAIL;
    }
    SetMem(&c->mgmt, sizeof c->mgmt, 0);
    c->mgmt.func = func;
    c->mgmt.target = target;
    c->mgmt.lun = lun;
    c->mgmt.flags = flags | PCAM_CCB_POLLED;
    c->mgmt.done = mgmt_done;
    c->mgmt.user = c;
    c->mgmt_done = FALSE;
    pcam_action(&c->bus, &c->mgmt);
    pcam_uefi_run(c, NULL, &c->mgmt_done);
    st = c->mgmt.status;
    pcam_uefi_unlock(old);
    return st;
}

static void noop_done(pcam_ccb *ccb)
{
    (void)ccb;
}

/* Whether the core's device table has a logical unit at (target, lun). */
static BOOLEAN lun_present(pcam_uefi_ctrl *c, UINTN target, UINT64 lun)
{
    pcam_ccb q;
    EFI_TPL old;

    if (target >= c->ntargets || lun >= PCAM_UEFI_LUNS)
        return FALSE;
    SetMem(&q, sizeof q, 0);
    q.func = PCAM_FN_GET_DEV;
    q.target = (uint8_t)target;
    q.lun = (uint8_t)lun;
    q.done = noop_done;
    old = pcam_uefi_lock();
    pcam_action(&c->bus, &q); /* completes before it returns */
    pcam_uefi_unlock(old);
    return (q.status & PCAM_STATUS_MASK) == PCAM_REQ_CMP && q.u.dev.present;
}

/* The target address format: byte 0 is the SCSI ID, the rest zero. */
static BOOLEAN target_id(const UINT8 *t, UINT8 *id)
{
    for (UINTN i = 1; i < PCAM_EXT_SCSI_TARGET_BYTES; i++)
        if (t[i] != 0)
            return FALSE;
    *id = t[0];
    return TRUE;
}

static BOOLEAN all_ff(const UINT8 *t)
{
    for (UINTN i = 0; i < PCAM_EXT_SCSI_TARGET_BYTES; i++)
        if (t[i] != 0xFF)
            return FALSE;
    return TRUE;
}

static void put_target(UINT8 *t, UINT8 id)
{
    SetMem(t, PCAM_EXT_SCSI_TARGET_BYTES, 0);
    t[0] = id;
}

static void req_done(pcam_ccb *ccb)
{
    pcam_uefi_req *r = ccb->user;
    PCAM_EXT_SCSI_PACKET *p = r->packet;
    const pcam_scsiio *io = &ccb->u.io;
    UINT32 moved = io->resid <= io->data_len ? io->data_len - io->resid : 0;
    UINT8 ha = PCAM_EXT_SCSI_HA_OTHER;

    r->result = pcam_uefi_map_status(ccb->status, &ha);
#ifdef PCAM_UEFI_DEBUG
    Print(L"pcam: st=%a resid=%d\r\n", pcam_status_name(ccb->status), io->resid);
#endif
    p->HostAdapterStatus = ha;
    p->TargetStatus = io->scsi_status;
    if (io->dir == PCAM_DIR_IN)
        p->InTransferLength = moved;
    else if (io->dir == PCAM_DIR_OUT)
        p->OutTransferLength = moved;
    if ((ccb->status & PCAM_AUTOSNS_VALID) != 0 && io->sense_resid <= io->sense_len)
        p->SenseDataLength = (UINT8)(io->sense_len - io->sense_resid);
    else
        p->SenseDataLength = 0;
    r->state = SLOT_DONE;
}

/* 100 ns units to the core's milliseconds; 0 ("wait forever") is the
 * longest timeout a CCB can carry, since 0 there means the bus default. */
static UINT32 timeout_ms(UINT64 t)
{
    UINT64 ms;

    if (t == 0)
        return 0xFFFFFFFFu;
    ms = (t + 9999u) / 10000u;
    return ms >= 0xFFFFFFFFu ? 0xFFFFFFFFu : (UINT32)ms;
}

/* Rejections that happen before anything is queued: returned, not signalled. */
static BOOLEAN is_rejection(EFI_STATUS st)
{
    return st == EFI_INVALID_PARAMETER || st == EFI_UNSUPPORTED || st == EFI_NOT_READY ||
           st == EFI_BAD_BUFFER_SIZE;
}

static EFI_STATUS EFIAPI pt_passthru(PCAM_EXT_SCSI_PASS_THRU *This, UINT8 *Target, UINT64 Lun,
                                     PCAM_EXT_SCSI_PACKET *Packet, EFI_EVENT Event)
{
    pcam_uefi_ctrl *c;
    pcam_uefi_req *r = NULL;
    pcam_scsiio *io;
    EFI_TPL old;
    EFI_STATUS st;
    UINT8 id;
    pcam_dir dir;
    VOID *buf;
    UINT32 len;

    if (This == NULL || Target == NULL || Packet == NULL)
        return EFI_INVALID_PARAMETER;
    c = PCAM_UEFI_FROM_PT(This);
    /* What a CCB cannot carry at all; everything else the core judges. */
    if (!target_id(Target, &id) || Lun > 0xFF || Packet->Cdb == NULL ||
        Packet->CdbLength > PCAM_CDB_BYTES)
        return EFI_INVALID_PARAMETER;
    switch (Packet->DataDirection) {
    case PCAM_EXT_SCSI_DIR_READ:
        dir = PCAM_DIR_IN;
        buf = Packet->InDataBuffer;
        len = Packet->InTransferLength;
        break;
    case PCAM_EXT_SCSI_DIR_WRITE:
        dir = PCAM_DIR_OUT;
        buf = Packet->OutDataBuffer;
        len = Packet->OutTransferLength;
        break;
    case PCAM_EXT_SCSI_DIR_BIDIRECTIONAL:
        /* The spec's code for a bidirectional command the adapter cannot do. */
        return EFI_UNSUPPORTED;
    default:
        return EFI_INVALID_PARAMETER;
    }
    if (len == 0)
        dir = PCAM_DIR_NONE;
    if (c->mode.IoAlign > 1 && buf != NULL && ((UINTN)buf & (c->mode.IoAlign - 1)) != 0)
        return EFI_INVALID_PARAMETER;
    /* Only what GetNextTargetLun hands out is a valid address (docs/uefi.md,
     * "Addresses with no device"); after the packet's own checks, so a
     * malformed packet is refused the same way wherever it is aimed. */
    if (!lun_present(c, id, Lun))
        return EFI_INVALID_PARAMETER;

    old = pcam_uefi_lock();
    if (!c->bus_up || c->quiesced) {
        pcam_uefi_unlock(old);
        return EFI_DEVICE_ERROR;
    }
    for (UINTN i = 0; i < PCAM_UEFI_SLOTS; i++) {
        if (c->slots[i].state == SLOT_FREE) {
            r = &c->slots[i];
            break;
        }
    }
    if (r == NULL) {
        pcam_uefi_unlock(old);
        return EFI_NOT_READY;
    }
    SetMem(&r->ccb, sizeof r->ccb, 0);
    r->ctrl = c;
    r->packet = Packet;
    r->event = Event;
    r->state = SLOT_BUSY;
    r->ccb.func = PCAM_FN_SCSI_IO;
    r->ccb.target = id;
    r->ccb.lun = (uint8_t)Lun;
    /* UEFI requests are independent of each other: SIMPLE. Whether a tag
     * really goes out (CmdQue, a target that rejects tags) is the core's call. */
    r->ccb.flags = PCAM_CCB_POLLED | PCAM_CCB_TAGGED;
    r->ccb.timeout_ms = timeout_ms(Packet->Timeout);
    r->ccb.done = req_done;
    r->ccb.user = r;
    io = &r->ccb.u.io;
    CopyMem(io->cdb, Packet->Cdb, Packet->CdbLength);
    io->cdb_len = Packet->CdbLength;
    io->dir = dir;
    io->data = dir == PCAM_DIR_NONE ? NULL : buf;
    io->data_len = dir == PCAM_DIR_NONE ? 0 : len;
    io->sense = Packet->SenseData;
    io->sense_len = Packet->SenseData != NULL ? Packet->SenseDataLength : 0;
    io->tag_action = PCAM_TAG_SIMPLE;
    io->retries = c->bus.cfg.default_retries;
    if (Packet->DataDirection == PCAM_EXT_SCSI_DIR_READ)
        Packet->OutTransferLength = 0;
    else
        Packet->InTransferLength = 0;

    pcam_action(&c->bus, &r->ccb);
    if (r->state == SLOT_DONE && is_rejection(r->result)) {
        st = r->result;
        r->event = NULL;
        r->state = SLOT_FREE;
        pcam_uefi_unlock(old);
        return st;
    }
    if (Event != NULL) {
        /* Start it now; the timer event finishes it. */
        pcam_bus_poll(&c->bus);
        pcam_uefi_deliver(c);
        pcam_uefi_unlock(old);
        return EFI_SUCCESS;
    }
    pcam_uefi_run(c, &r->state, NULL);
    st = r->result;
    r->state = SLOT_FREE;
    pcam_uefi_unlock(old);
    return st;
}

static EFI_STATUS EFIAPI pt_get_next_target_lun(PCAM_EXT_SCSI_PASS_THRU *This, UINT8 **Target,
                                                UINT64 *Lun)
{
    pcam_uefi_ctrl *c;
    UINTN t = 0, l = 0;
    UINT8 id;

    if (This == NULL || Target == NULL || *Target == NULL || Lun == NULL)
        return EFI_INVALID_PARAMETER;
    c = PCAM_UEFI_FROM_PT(This);
    if (!all_ff(*Target)) {
        if (!target_id(*Target, &id) || *Lun >= PCAM_UEFI_LUNS || !lun_present(c, id, (UINTN)*Lun))
            return EFI_INVALID_PARAMETER;
        t = id;
        l = (UINTN)*Lun + 1;
    }
    for (; t < c->ntargets; t++, l = 0) {
        for (; l < PCAM_UEFI_LUNS; l++) {
            if (lun_present(c, t, l)) {
                put_target(*Target, (UINT8)t);
                *Lun = l;
                return EFI_SUCCESS;
            }
        }
    }
    return EFI_NOT_FOUND;
}

static BOOLEAN target_present(pcam_uefi_ctrl *c, UINTN t)
{
    for (UINTN l = 0; l < PCAM_UEFI_LUNS; l++)
        if (lun_present(c, t, l))
            return TRUE;
    return FALSE;
}

static EFI_STATUS EFIAPI pt_get_next_target(PCAM_EXT_SCSI_PASS_THRU *This, UINT8 **Target)
{
    pcam_uefi_ctrl *c;
    UINTN t = 0;
    UINT8 id;

    if (This == NULL || Target == NULL || *Target == NULL)
        return EFI_INVALID_PARAMETER;
    c = PCAM_UEFI_FROM_PT(This);
    if (!all_ff(*Target)) {
        if (!target_id(*Target, &id) || !target_present(c, id))
            return EFI_INVALID_PARAMETER;
        t = (UINTN)id + 1;
    }
    for (; t < c->ntargets; t++) {
        if (target_present(c, t)) {
            put_target(*Target, (UINT8)t);
            return EFI_SUCCESS;
        }
    }
    return EFI_NOT_FOUND;
}

/* An address GetNextTargetLun would return: in range and found by the
 * last scan (Start's, so a reconnect finds devices added since). */
static BOOLEAN path_valid(pcam_uefi_ctrl *c, UINTN t, UINT64 l)
{
    return t < c->ntargets && t != c->mode.AdapterId && lun_present(c, t, l);
}

static EFI_STATUS EFIAPI pt_build_device_path(PCAM_EXT_SCSI_PASS_THRU *This, UINT8 *Target,
                                              UINT64 Lun, EFI_DEVICE_PATH **DevicePath)
{
    pcam_uefi_ctrl *c;
    SCSI_DEVICE_PATH *n;
    UINT8 id;

    if (This == NULL || Target == NULL || DevicePath == NULL)
        return EFI_INVALID_PARAMETER;
    c = PCAM_UEFI_FROM_PT(This);
    if (!target_id(Target, &id) || !path_valid(c, id, Lun))
        return EFI_NOT_FOUND;
    /* A single node, as the spec asks; callers append it to the controller's path. */
    if (EFI_ERROR(BS->AllocatePool(EfiBootServicesData, sizeof *n, (VOID **)&n)))
        return EFI_OUT_OF_RESOURCES;
    n->Header.Type = MESSAGING_DEVICE_PATH;
    n->Header.SubType = MSG_SCSI_DP;
    n->Header.Length[0] = (UINT8)sizeof *n;
    n->Header.Length[1] = 0;
    n->Pun = id;
    n->Lun = (UINT16)Lun;
    *DevicePath = (EFI_DEVICE_PATH *)n;
    return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI pt_get_target_lun(PCAM_EXT_SCSI_PASS_THRU *This,
                                           EFI_DEVICE_PATH *DevicePath, UINT8 **Target,
                                           UINT64 *Lun)
{
    pcam_uefi_ctrl *c;
    const SCSI_DEVICE_PATH *n = (const SCSI_DEVICE_PATH *)DevicePath;

    if (This == NULL || DevicePath == NULL || Target == NULL || *Target == NULL || Lun == NULL)
        return EFI_INVALID_PARAMETER;
    c = PCAM_UEFI_FROM_PT(This);
    if (DevicePath->Type != MESSAGING_DEVICE_PATH || DevicePath->SubType != MSG_SCSI_DP ||
        DevicePath->Length[0] != sizeof *n || DevicePath->Length[1] != 0)
        return EFI_UNSUPPORTED;
    if (!path_valid(c, n->Pun, n->Lun))
        return EFI_NOT_FOUND;
    put_target(*Target, (UINT8)n->Pun);
    *Lun = n->Lun;
    return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI pt_reset_channel(PCAM_EXT_SCSI_PASS_THRU *This)
{
    uint32_t st;

    if (This == NULL)
        return EFI_INVALID_PARAMETER;
    st = pcam_uefi_mgmt(PCAM_UEFI_FROM_PT(This), PCAM_FN_RESET_BUS, 0, 0, 0);
    return (st & PCAM_STATUS_MASK) == PCAM_REQ_CMP ? EFI_SUCCESS : EFI_DEVICE_ERROR;
}

static EFI_STATUS EFIAPI pt_reset_target_lun(PCAM_EXT_SCSI_PASS_THRU *This, UINT8 *Target,
                                             UINT64 Lun)
{
    pcam_uefi_ctrl *c;
    uint32_t st;
    UINT8 id;

    if (This == NULL || Target == NULL)
        return EFI_INVALID_PARAMETER;
    c = PCAM_UEFI_FROM_PT(This);
    if (!target_id(Target, &id) || !path_valid(c, id, Lun))
        return EFI_INVALID_PARAMETER;
    st = pcam_uefi_mgmt(c, PCAM_FN_RESET_DEV, id, (UINT8)Lun, PCAM_CCB_LUN_RESET) & PCAM_STATUS_MASK;
    if (st == PCAM_REQ_CMP)
        return EFI_SUCCESS;
    /* REQ_CMP_ERR / MSG_REJECT_REC: the reset did not happen because the
     * target refused it (MESSAGE REJECT of LOGICAL UNIT RESET, as QEMU's
     * LSI model does; a command phase in its place, as QEMU's AM53C974
     * does) or never answered; the core's ladder has already gone on. To the caller
     * that is a reset this device does not support: EFI_UNSUPPORTED, which
     * ScsiDiskDxe's Reset accepts, where EFI_DEVICE_ERROR makes DiskIoDxe's
     * Stop (it resets through BlockIo2) fail and the controller can never
     * be disconnected. */
    if (st == PCAM_FUNC_NOTAVAIL || st == PCAM_REQ_CMP_ERR || st == PCAM_MSG_REJECT_REC)
        return EFI_UNSUPPORTED;
    /* Nobody answered the selection: no such device (it left since the
     * scan), the same answer as for an address the scan never found. */
    if (st == PCAM_PATH_INVALID || st == PCAM_SEL_TIMEOUT || st == PCAM_DEV_NOT_THERE)
        return EFI_INVALID_PARAMETER;
    return EFI_DEVICE_ERROR;
}

void pcam_uefi_pt_init(pcam_uefi_ctrl *c)
{
    pcam_ccb q;

    SetMem(&q, sizeof q, 0);
    q.func = PCAM_FN_PATH_INQ;
    q.done = noop_done;
    pcam_action(&c->bus, &q);
    c->mode.AdapterId = q.u.pathinq.initiator_id;
    c->ntargets = (UINT8)(q.u.pathinq.max_target + 1u);
    if (c->ntargets > PCAM_UEFI_TARGETS || q.u.pathinq.max_target >= PCAM_UEFI_TARGETS)
        c->ntargets = PCAM_UEFI_TARGETS;
    c->mode.Attributes =
        PCAM_EXT_SCSI_ATTR_PHYSICAL | PCAM_EXT_SCSI_ATTR_LOGICAL | PCAM_EXT_SCSI_ATTR_NONBLOCKIO;
    c->mode.IoAlign = q.u.pathinq.align_mask + 1u;
    c->pt.Mode = &c->mode;
    c->pt.PassThru = pt_passthru;
    c->pt.GetNextTargetLun = pt_get_next_target_lun;
    c->pt.BuildDevicePath = pt_build_device_path;
    c->pt.GetTargetLun = pt_get_target_lun;
    c->pt.ResetChannel = pt_reset_channel;
    c->pt.ResetTargetLun = pt_reset_target_lun;
    c->pt.GetNextTarget = pt_get_next_target;
}
