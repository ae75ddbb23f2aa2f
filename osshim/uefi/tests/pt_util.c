/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers of the pass-thru test and bench applications (see
 * pt_util.h). Test code only.
 */
#include "pt_util.h"

EFI_GUID pt_guid = PCAM_EXT_SCSI_PASS_THRU_GUID;
static EFI_GUID pci_guid = EFI_PCI_IO_PROTOCOL_GUID;

EFI_STATUS pt_find(UINT16 vendor, UINT16 device, EFI_HANDLE *h, PCAM_EXT_SCSI_PASS_THRU **pt)
{
    EFI_HANDLE *hs = NULL;
    UINTN n = 0;
    EFI_STATUS st = EFI_NOT_FOUND;

    if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &pt_guid, NULL, &n, &hs)))
        return EFI_NOT_FOUND;
    for (UINTN i = 0; i < n; i++) {
        EFI_PCI_IO *pci = NULL;
        UINT32 id = 0;
        if (EFI_ERROR(BS->HandleProtocol(hs[i], &pci_guid, (VOID **)&pci)))
            continue;
        pci->Pci.Read(pci, EfiPciIoWidthUint32, 0, 1, &id);
        if ((id & 0xFFFF) != vendor || (device != 0 && (id >> 16) != device))
            continue;
        if (!EFI_ERROR(BS->HandleProtocol(hs[i], &pt_guid, (VOID **)pt))) {
            *h = hs[i];
            st = EFI_SUCCESS;
            break;
        }
    }
    BS->FreePool(hs);
    return st;
}

EFI_STATUS pt_send(PCAM_EXT_SCSI_PASS_THRU *pt, pt_cmd *c)
{
    UINT8 tgt[16];

    SetMem(tgt, sizeof tgt, 0);
    tgt[0] = c->target;
    SetMem(&c->p, sizeof c->p, 0);
    c->p.Timeout = c->timeout;
    c->p.Cdb = c->cdb;
    c->p.CdbLength = c->cdb_len;
    c->p.DataDirection = c->dir;
    if (c->dir == PCAM_EXT_SCSI_DIR_READ) {
        c->p.InDataBuffer = c->buf;
        c->p.InTransferLength = c->len;
    } else {
        c->p.OutDataBuffer = c->buf;
        c->p.OutTransferLength = c->len;
    }
    c->p.SenseData = c->sense;
    c->p.SenseDataLength = sizeof c->sense;
    return pt->PassThru(pt, tgt, c->lun, &c->p, NULL);
}

void pt_read10(pt_cmd *c, UINT8 target, UINT64 lun, UINT32 lba, UINT16 blocks, VOID *buf,
               UINT32 len)
{
    SetMem(c, sizeof *c, 0);
    c->target = target;
    c->lun = lun;
    c->cdb[0] = 0x28;
    c->cdb[2] = (UINT8)(lba >> 24);
    c->cdb[3] = (UINT8)(lba >> 16);
    c->cdb[4] = (UINT8)(lba >> 8);
    c->cdb[5] = (UINT8)lba;
    c->cdb[7] = (UINT8)(blocks >> 8);
    c->cdb[8] = (UINT8)blocks;
    c->cdb_len = 10;
    c->dir = PCAM_EXT_SCSI_DIR_READ;
    c->buf = buf;
    c->len = len;
    c->timeout = 300000000ull; /* 30 s */
}

const CHAR16 *pt_stname(EFI_STATUS st)
{
    switch (st) {
    case EFI_SUCCESS: return L"SUCCESS";
    case EFI_INVALID_PARAMETER: return L"INVALID_PARAMETER";
    case EFI_UNSUPPORTED: return L"UNSUPPORTED";
    case EFI_NOT_READY: return L"NOT_READY";
    case EFI_DEVICE_ERROR: return L"DEVICE_ERROR";
    case EFI_TIMEOUT: return L"TIMEOUT";
    case EFI_BAD_BUFFER_SIZE: return L"BAD_BUFFER_SIZE";
    case EFI_NOT_FOUND: return L"NOT_FOUND";
    case EFI_OUT_OF_RESOURCES: return L"OUT_OF_RESOURCES";
    case EFI_ABORTED: return L"ABORTED";
    default: return L"OTHER";
    }
}

UINT8 pt_pattern(UINT32 lba, UINT32 j)
{
    if (j < 4)
        return (UINT8)(lba >> (24 - 8 * j));
    return (UINT8)(lba * 13u + j);
}

BOOLEAN pt_check_block(const UINT8 *b, UINT32 lba)
{
    for (UINT32 j = 0; j < 512; j++)
        if (b[j] != pt_pattern(lba, j))
            return FALSE;
    return TRUE;
}

static UINT64 tsc(void)
{
    UINT32 lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((UINT64)hi << 32) | lo;
}

UINT64 pt_now_us(void)
{
    static UINT64 per_us;

    if (per_us == 0) {
        UINT64 t0 = tsc();
        BS->Stall(20000);
        per_us = (tsc() - t0) / 20000u;
        if (per_us == 0)
            per_us = 1;
    }
    return tsc() / per_us;
}

BOOLEAN pt_wait_key(UINTN ms)
{
    EFI_INPUT_KEY k;

    for (UINTN i = 0; i < ms / 10; i++) {
        if (!EFI_ERROR(ST->ConIn->ReadKeyStroke(ST->ConIn, &k)))
            return TRUE;
        BS->Stall(10000);
    }
    return FALSE;
}

VOID *pt_alloc(UINTN len)
{
    EFI_PHYSICAL_ADDRESS a = 0;

    if (EFI_ERROR(BS->AllocatePages(AllocateAnyPages, EfiBootServicesData, (len + 4095) / 4096, &a)))
        return NULL;
    return (VOID *)(UINTN)a;
}

void pt_free(VOID *p, UINTN len)
{
    if (p != NULL)
        BS->FreePages((EFI_PHYSICAL_ADDRESS)(UINTN)p, (len + 4095) / 4096);
}
