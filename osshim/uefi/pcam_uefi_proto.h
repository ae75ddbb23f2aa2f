/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EFI_EXT_SCSI_PASS_THRU_PROTOCOL as the UEFI specification (2.x, "SCSI
 * Driver Models": Extended SCSI Pass Thru Protocol) defines it. gnu-efi
 * does not ship it. GUIDs, constants and layouts are facts taken from the
 * specification and written in pcam's form; no EDK2 header is copied.
 * Only types live here: no code, no policy.
 */
#ifndef PCAM_UEFI_PROTO_H
#define PCAM_UEFI_PROTO_H

#include <efi.h>

/* {143B7632-B81B-4CB7-ABD3-B625A5B9BFFE} */
#define PCAM_EXT_SCSI_PASS_THRU_GUID \
    { 0x143b7632, 0xb81b, 0x4cb7, { 0xab, 0xd3, 0xb6, 0x25, 0xa5, 0xb9, 0xbf, 0xfe } }

/* Bytes of a target address (the spec's TARGET_MAX_BYTES). */
#define PCAM_EXT_SCSI_TARGET_BYTES 16

/* Mode.Attributes bits. */
#define PCAM_EXT_SCSI_ATTR_PHYSICAL 0x0001
#define PCAM_EXT_SCSI_ATTR_LOGICAL 0x0002
#define PCAM_EXT_SCSI_ATTR_NONBLOCKIO 0x0004

/* Packet DataDirection. */
#define PCAM_EXT_SCSI_DIR_READ 0
#define PCAM_EXT_SCSI_DIR_WRITE 1
#define PCAM_EXT_SCSI_DIR_BIDIRECTIONAL 2

/* Packet HostAdapterStatus. */
#define PCAM_EXT_SCSI_HA_OK 0x00
#define PCAM_EXT_SCSI_HA_TIMEOUT_COMMAND 0x09
#define PCAM_EXT_SCSI_HA_TIMEOUT 0x0b
#define PCAM_EXT_SCSI_HA_MESSAGE_REJECT 0x0d
#define PCAM_EXT_SCSI_HA_BUS_RESET 0x0e
#define PCAM_EXT_SCSI_HA_PARITY_ERROR 0x0f
#define PCAM_EXT_SCSI_HA_REQUEST_SENSE_FAILED 0x10
#define PCAM_EXT_SCSI_HA_SELECTION_TIMEOUT 0x11
#define PCAM_EXT_SCSI_HA_DATA_OVERRUN_UNDERRUN 0x12
#define PCAM_EXT_SCSI_HA_BUS_FREE 0x13
#define PCAM_EXT_SCSI_HA_PHASE_ERROR 0x14
#define PCAM_EXT_SCSI_HA_OTHER 0x7f

/* Packet TargetStatus (the SAM status byte values). */
#define PCAM_EXT_SCSI_TS_GOOD 0x00
#define PCAM_EXT_SCSI_TS_CHECK_CONDITION 0x02

typedef struct {
    UINT32 AdapterId;
    UINT32 Attributes;
    UINT32 IoAlign;
} PCAM_EXT_SCSI_PASS_THRU_MODE;

typedef struct {
    UINT64 Timeout; /* 100 ns units; 0 = wait forever */
    VOID *InDataBuffer;
    VOID *OutDataBuffer;
    VOID *SenseData;
    VOID *Cdb;
    UINT32 InTransferLength;
    UINT32 OutTransferLength;
    UINT8 CdbLength;
    UINT8 DataDirection;
    UINT8 HostAdapterStatus;
    UINT8 TargetStatus;
    UINT8 SenseDataLength;
} PCAM_EXT_SCSI_PACKET;

struct _PCAM_EXT_SCSI_PASS_THRU;

typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_PASSTHRU_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This,
                                                       UINT8 *Target, UINT64 Lun,
                                                       PCAM_EXT_SCSI_PACKET *Packet,
                                                       EFI_EVENT Event);
typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_GET_NEXT_TARGET_LUN_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This,
                                                                  UINT8 **Target, UINT64 *Lun);
typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_BUILD_DEVICE_PATH_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This,
                                                                UINT8 *Target, UINT64 Lun,
                                                                EFI_DEVICE_PATH **DevicePath);
typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_GET_TARGET_LUN_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This,
                                                             EFI_DEVICE_PATH *DevicePath,
                                                             UINT8 **Target, UINT64 *Lun);
typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_RESET_CHANNEL_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This);
typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_RESET_TARGET_LUN_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This,
                                                               UINT8 *Target, UINT64 Lun);
typedef EFI_STATUS(EFIAPI *PCAM_EXT_SCSI_GET_NEXT_TARGET_FN)(struct _PCAM_EXT_SCSI_PASS_THRU *This,
                                                              UINT8 **Target);

/* The protocol interface, in the specification's member order. */
typedef struct _PCAM_EXT_SCSI_PASS_THRU {
    PCAM_EXT_SCSI_PASS_THRU_MODE *Mode;
    PCAM_EXT_SCSI_PASSTHRU_FN PassThru;
    PCAM_EXT_SCSI_GET_NEXT_TARGET_LUN_FN GetNextTargetLun;
    PCAM_EXT_SCSI_BUILD_DEVICE_PATH_FN BuildDevicePath;
    PCAM_EXT_SCSI_GET_TARGET_LUN_FN GetTargetLun;
    PCAM_EXT_SCSI_RESET_CHANNEL_FN ResetChannel;
    PCAM_EXT_SCSI_RESET_TARGET_LUN_FN ResetTargetLun;
    PCAM_EXT_SCSI_GET_NEXT_TARGET_FN GetNextTarget;
} PCAM_EXT_SCSI_PASS_THRU;

#endif /* PCAM_UEFI_PROTO_H */
