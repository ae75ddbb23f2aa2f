/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CAM status to EFI_STATUS plus HostAdapterStatus: the one table (DESIGN.md
 * rule 2). TargetStatus is always the target's own status byte, passed
 * through. Sources: the UEFI specification's EXT_SCSI_PASS_THRU.PassThru()
 * return codes and HostAdapterStatus values, and what EDK2's ScsiBusDxe /
 * ScsiDiskDxe do with them (they read HostAdapterStatus and TargetStatus
 * "in case of EFI_DEVICE_ERROR", retry on NOT_READY, and give up on
 * INVALID_PARAMETER / UNSUPPORTED).
 */
#include "uefi_internal.h"

typedef struct status_row {
    UINT8 cam;
    UINT8 ha;
    EFI_STATUS efi;
} status_row;

static const status_row rows[] = {
    {PCAM_REQ_CMP, PCAM_EXT_SCSI_HA_OK, EFI_SUCCESS},
    /* Killed by Stop or a shutdown: the request did not run to an end. */
    {PCAM_REQ_ABORTED, PCAM_EXT_SCSI_HA_OTHER, EFI_DEVICE_ERROR},
    {PCAM_REQ_CMP_ERR, PCAM_EXT_SCSI_HA_OTHER, EFI_DEVICE_ERROR},
    /* The target stayed BUSY past the core's retries; TargetStatus says so. */
    {PCAM_BUSY, PCAM_EXT_SCSI_HA_OK, EFI_DEVICE_ERROR},
    {PCAM_REQ_INVALID, PCAM_EXT_SCSI_HA_OK, EFI_INVALID_PARAMETER},
    {PCAM_PATH_INVALID, PCAM_EXT_SCSI_HA_OK, EFI_INVALID_PARAMETER},
    /* Absent devices: ScsiBus takes a selection timeout as "nobody there". */
    {PCAM_DEV_NOT_THERE, PCAM_EXT_SCSI_HA_SELECTION_TIMEOUT, EFI_DEVICE_ERROR},
    {PCAM_SEL_TIMEOUT, PCAM_EXT_SCSI_HA_SELECTION_TIMEOUT, EFI_DEVICE_ERROR},
    /* Packet->Timeout ran out; the core's recovery ladder has already run. */
    {PCAM_CMD_TIMEOUT, PCAM_EXT_SCSI_HA_TIMEOUT_COMMAND, EFI_TIMEOUT},
    /* CHECK CONDITION and friends: TargetStatus and SenseData carry it. */
    {PCAM_SCSI_STATUS_ERROR, PCAM_EXT_SCSI_HA_OK, EFI_DEVICE_ERROR},
    {PCAM_SCSI_BUS_RESET, PCAM_EXT_SCSI_HA_BUS_RESET, EFI_DEVICE_ERROR},
    {PCAM_UNCOR_PARITY, PCAM_EXT_SCSI_HA_PARITY_ERROR, EFI_DEVICE_ERROR},
    {PCAM_AUTOSENSE_FAIL, PCAM_EXT_SCSI_HA_REQUEST_SENSE_FAILED, EFI_DEVICE_ERROR},
    {PCAM_NO_HBA, PCAM_EXT_SCSI_HA_OTHER, EFI_DEVICE_ERROR},
    /* The target wanted more than the buffer: the spec's "bad buffer size". */
    {PCAM_DATA_RUN_ERR, PCAM_EXT_SCSI_HA_DATA_OVERRUN_UNDERRUN, EFI_BAD_BUFFER_SIZE},
    {PCAM_UNEXP_BUSFREE, PCAM_EXT_SCSI_HA_BUS_FREE, EFI_DEVICE_ERROR},
    {PCAM_SEQUENCE_FAIL, PCAM_EXT_SCSI_HA_PHASE_ERROR, EFI_DEVICE_ERROR},
    /* Lost to a device or LUN reset: the spec's nearest code is bus reset. */
    {PCAM_BDR_SENT, PCAM_EXT_SCSI_HA_BUS_RESET, EFI_DEVICE_ERROR},
    {PCAM_REQ_TOO_BIG, PCAM_EXT_SCSI_HA_OK, EFI_BAD_BUFFER_SIZE},
    /* Not run: "too many requests queued, try again" is EFI_NOT_READY. */
    {PCAM_REQUEUE_REQ, PCAM_EXT_SCSI_HA_OK, EFI_NOT_READY},
    {PCAM_MSG_REJECT_REC, PCAM_EXT_SCSI_HA_MESSAGE_REJECT, EFI_DEVICE_ERROR},
    {PCAM_RESRC_UNAVAIL, PCAM_EXT_SCSI_HA_OK, EFI_NOT_READY},
    {PCAM_FUNC_NOTAVAIL, PCAM_EXT_SCSI_HA_OK, EFI_UNSUPPORTED},
};

EFI_STATUS pcam_uefi_map_status(uint32_t cam_status, UINT8 *host_adapter_status)
{
    UINT32 st = cam_status & PCAM_STATUS_MASK;

    for (UINTN i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].cam == st) {
            if (host_adapter_status != NULL)
                *host_adapter_status = rows[i].ha;
            return rows[i].efi;
        }
    }
    /* Unknown or still in progress: never reported as success. */
    if (host_adapter_status != NULL)
        *host_adapter_status = PCAM_EXT_SCSI_HA_OTHER;
    return EFI_DEVICE_ERROR;
}
