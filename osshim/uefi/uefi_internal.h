/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * osshim/uefi private state: one controller instance per chip the driver
 * binds (an AM53C974 through hal/esp or a 53C8xx through hal/sym), the
 * request slots PassThru hands to the core, and the functions the shim's
 * files share. The shim only translates between UEFI
 * and the CCB API; every decision about the bus is the core's.
 */
#ifndef PCAM_UEFI_INTERNAL_H
#define PCAM_UEFI_INTERNAL_H

#include <efi.h>
#include <efilib.h>

#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "pcam/pcam_sym.h"
#include "pcam/pcam_mpt.h"
#include "pcam_uefi_proto.h"

#define PCAM_UEFI_SIGNATURE 0x4d414350u /* "PCAM" */
/* Requests in the core at once (blocking and non-blocking together). */
#define PCAM_UEFI_SLOTS 16
/* LUNs per target in the device table: the core's documented default. */
#define PCAM_UEFI_LUNS 8
/* Device-table rows: wide chips (53C895A) have 16 IDs; the chip's own
 * count (Mode, PATH_INQ) bounds every address check. */
#define PCAM_UEFI_TARGETS 16
/* Live DMA mappings: hal/esp holds one at a time, hal/sym one per request
 * in flight (a PassThru buffer is one segment) plus autosense. */
#define PCAM_UEFI_MAPS (PCAM_UEFI_SLOTS + 8)

enum { SLOT_FREE = 0, SLOT_BUSY = 1, SLOT_DONE = 2 };

struct pcam_uefi_ctrl;
struct pcam_uefi_chip;

typedef struct pcam_uefi_req {
    pcam_ccb ccb;
    struct pcam_uefi_ctrl *ctrl;
    PCAM_EXT_SCSI_PACKET *packet;
    EFI_EVENT event; /* NULL: a blocking caller waits for SLOT_DONE */
    UINT8 state;
    EFI_STATUS result;
} pcam_uefi_req;

typedef struct pcam_uefi_map {
    VOID *mapping; /* NULL when the entry is unused */
    VOID *va;
    UINT64 bus;
} pcam_uefi_map;

typedef struct pcam_uefi_ctrl {
    UINT32 signature;
    EFI_HANDLE handle;
    EFI_PCI_IO *pci;
    const struct pcam_uefi_chip *chip; /* the attach-table entry that took it */
    CHAR16 name[48];                   /* COMPONENT_NAME2's controller name */
    UINT8 ntargets;                    /* the chip's SCSI IDs (8 or 16) */
    /* hal/sym's script and command blocks, hal/mpt's frames: a PciIo common buffer. */
    VOID *dma_va;
    UINTN dma_pages;
    VOID *dma_mapping;
    UINT64 dma_bus;
    UINT64 saved_attrs;
    BOOLEAN attrs_saved;
    BOOLEAN bus_up;
    BOOLEAN quiesced; /* ExitBootServices ran: touch nothing but the chip */
    UINT64 tsc_per_ms;
    PCAM_EXT_SCSI_PASS_THRU pt;
    PCAM_EXT_SCSI_PASS_THRU_MODE mode;
    EFI_EVENT timer;
    EFI_EVENT exit_bs;
    pcam_platform plat;
    pcam_hal hal;
    pcam_dc390_settings nvram; /* a Tekram DC-390's EEPROM (valid FALSE: none) */
    pcam_uefi_map maps[PCAM_UEFI_MAPS];
    pcam_uefi_req slots[PCAM_UEFI_SLOTS];
    pcam_ccb mgmt; /* scan, resets, device-table reads: one at a time */
    BOOLEAN mgmt_done;
    UINT8 target_buf[PCAM_EXT_SCSI_TARGET_BYTES];
    pcam_lun luns[PCAM_UEFI_TARGETS * PCAM_UEFI_LUNS];
    union {
        pcam_esp esp; /* the chip fetches selection bytes from here by DMA */
        pcam_sym sym;
        pcam_mpt mpt;
    } be;
    pcam_bus bus;
} pcam_uefi_ctrl;

#define PCAM_UEFI_FROM_PT(p) \
    ((pcam_uefi_ctrl *)((UINT8 *)(p) - __builtin_offsetof(pcam_uefi_ctrl, pt)))

extern EFI_GUID pcam_uefi_pt_guid;

/* uefi_platform.c */
void pcam_uefi_platform_init(pcam_uefi_ctrl *c);

/* uefi_chip.c: the per-chip attach table */
typedef struct pcam_uefi_chip {
    /* Whether this entry drives the PCI function (IDs from config space). */
    BOOLEAN (*match)(UINT16 vendor, UINT16 device, UINT8 revision);
    /* Attach the back-end into c->hal and name the controller; EFI_SUCCESS
     * or an error with nothing held. */
    EFI_STATUS (*attach)(pcam_uefi_ctrl *c, UINT16 device, UINT8 revision);
    /* After the bus is shut down: leave the chip idle, reading no memory
     * (ExitBootServices: nothing else may run). */
    void (*stop)(pcam_uefi_ctrl *c);
    /* Release what attach took, after stop. */
    void (*detach)(pcam_uefi_ctrl *c);
} pcam_uefi_chip;
const pcam_uefi_chip *pcam_uefi_chip_find(EFI_PCI_IO *pci, UINT16 *device, UINT8 *revision);

/* uefi_status.c */
EFI_STATUS pcam_uefi_map_status(uint32_t cam_status, UINT8 *host_adapter_status);

/* uefi_passthru.c */
void pcam_uefi_pt_init(pcam_uefi_ctrl *c);
EFI_TPL pcam_uefi_lock(void);
void pcam_uefi_unlock(EFI_TPL old);
void pcam_uefi_deliver(pcam_uefi_ctrl *c);
void pcam_uefi_run(pcam_uefi_ctrl *c, volatile UINT8 *until, volatile BOOLEAN *until_flag);
void EFIAPI pcam_uefi_timer(EFI_EVENT ev, VOID *ctx);
uint32_t pcam_uefi_mgmt(pcam_uefi_ctrl *c, UINT8 func, UINT8 target, UINT8 lun, UINT32 flags);

#endif /* PCAM_UEFI_INTERNAL_H */
