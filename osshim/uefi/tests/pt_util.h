/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the shell applications that exercise an EXT_SCSI_PASS_THRU
 * (pcamtest, pcambench): find a controller's pass-thru by PCI ID, send one
 * packet, name an EFI_STATUS the way the host-side harness matches it, the
 * test-disk pattern, a clock. Test code only: never linked into the driver.
 */
#ifndef PCAM_PT_UTIL_H
#define PCAM_PT_UTIL_H

#include <efi.h>
#include <efilib.h>

#include "pcam_uefi_proto.h"

extern EFI_GUID pt_guid;

/* The first pass-thru on a PCI function with these IDs (device 0: any). */
EFI_STATUS pt_find(UINT16 vendor, UINT16 device, EFI_HANDLE *h, PCAM_EXT_SCSI_PASS_THRU **pt);

typedef struct pt_cmd {
    UINT8 target;
    UINT64 lun;
    UINT8 cdb[16];
    UINT8 cdb_len;
    UINT8 dir;
    VOID *buf;
    UINT32 len;
    UINT8 sense[32];
    UINT64 timeout; /* 100 ns units */
    PCAM_EXT_SCSI_PACKET p; /* as it came back */
} pt_cmd;

/* Fill, send blocking, return the PassThru status. */
EFI_STATUS pt_send(PCAM_EXT_SCSI_PASS_THRU *pt, pt_cmd *c);
void pt_read10(pt_cmd *c, UINT8 target, UINT64 lun, UINT32 lba, UINT16 blocks, VOID *buf,
               UINT32 len);
const CHAR16 *pt_stname(EFI_STATUS st);

/* Byte j of LBA n on the pattern disks (the host harness writes the same). */
UINT8 pt_pattern(UINT32 lba, UINT32 j);
/* Whether a 512-byte block holds the pattern of lba. */
BOOLEAN pt_check_block(const UINT8 *b, UINT32 lba);

UINT64 pt_now_us(void);
/* Wait for a key on the console for up to ms; TRUE if one came. */
BOOLEAN pt_wait_key(UINTN ms);
/* Page-aligned pool buffer (IoAlign never exceeds a page here). */
VOID *pt_alloc(UINTN len);
void pt_free(VOID *p, UINTN len);

#endif /* PCAM_PT_UTIL_H */
