/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CAM status to ASPI status: the one table (docs/design.md rule 2). Sources:
 * the CAM-to-ASPI mapping of X3.232 "ASPI by conversion" and the SS_ /
 * HASTAT_ meanings of the ASPI for Win32 reference (see ASPI.md). Where ASPI
 * has no code of its own, the row says which one is nearest and why.
 */
#include "aspi_internal.h"

typedef struct status_row {
    uint8_t cam;
    uint8_t ss;
    uint8_t hastat;
} status_row;

static const status_row rows[] = {
    {PCAM_REQ_CMP, SS_COMP, HASTAT_OK},
    {PCAM_REQ_ABORTED, SS_ABORTED, HASTAT_OK},
    /* An error the core has no better name for: the client sees SS_ERR and
     * looks at TargStat, which is what it has. */
    {PCAM_REQ_CMP_ERR, SS_ERR, HASTAT_OK},
    /* BUSY / RESERVATION CONFLICT: an error with the status in TargStat,
     * never success. */
    {PCAM_BUSY, SS_ERR, HASTAT_OK},
    {PCAM_REQ_INVALID, SS_INVALID_SRB, HASTAT_OK},
    /* The layer checks SRB_HaId itself, so a path the core refuses on a
     * valid adapter names a target or LUN that cannot hold a device (the
     * adapter's own ID, LUN 8): "no device", as SC_GET_DEV_TYPE answers.
     * SS_INVALID_HA would make a scanner give up on the whole adapter. */
    {PCAM_PATH_INVALID, SS_NO_DEVICE, HASTAT_OK},
    {PCAM_DEV_NOT_THERE, SS_NO_DEVICE, HASTAT_OK},
    /* Nobody answered selection: a device the scan found has gone away.
     * "No device" is the truth for both kinds of client (docs/aspi.md, "An
     * empty ID"): libscg takes SS_ERR as retryable and keeps a phantom in
     * its scan, SS_NO_DEVICE as final; HaStat still says what happened. */
    {PCAM_SEL_TIMEOUT, SS_NO_DEVICE, HASTAT_SEL_TO},
    /* The core starts a command's clock when it is issued, so its timeouts
     * are all "while running"; HASTAT_TIMEOUT (queued) never arises. */
    {PCAM_CMD_TIMEOUT, SS_ERR, HASTAT_COMMAND_TIMEOUT},
    {PCAM_SCSI_STATUS_ERROR, SS_ERR, HASTAT_OK},
    {PCAM_SCSI_BUS_RESET, SS_ERR, HASTAT_BUS_RESET},
    {PCAM_UNCOR_PARITY, SS_ERR, HASTAT_PARITY_ERROR},
    {PCAM_AUTOSENSE_FAIL, SS_ERR, HASTAT_REQUEST_SENSE_FAILED},
    /* The bus is shut down or its chip is dead: the adapter is unusable. */
    {PCAM_NO_HBA, SS_INVALID_HA, HASTAT_OK},
    {PCAM_DATA_RUN_ERR, SS_ERR, HASTAT_DO_DU},
    {PCAM_UNEXP_BUSFREE, SS_ERR, HASTAT_BUS_FREE},
    {PCAM_SEQUENCE_FAIL, SS_ERR, HASTAT_PHASE_ERR},
    /* Lost to a device reset: ASPI has only the bus-reset code for that. */
    {PCAM_BDR_SENT, SS_ERR, HASTAT_BUS_RESET},
    {PCAM_REQ_TOO_BIG, SS_BUFFER_TO_BIG, HASTAT_OK},
    /* Not run: the client may submit again, which is what "busy" tells it. */
    {PCAM_REQUEUE_REQ, SS_ASPI_IS_BUSY, HASTAT_OK},
    {PCAM_MSG_REJECT_REC, SS_ERR, HASTAT_MESSAGE_REJECT},
    {PCAM_RESRC_UNAVAIL, SS_ASPI_IS_BUSY, HASTAT_OK},
    {PCAM_FUNC_NOTAVAIL, SS_INVALID_CMD, HASTAT_OK},
};

void pcam_aspi_map_status(uint32_t cam_status, uint8_t *ss, uint8_t *hastat)
{
    uint32_t st = cam_status & PCAM_STATUS_MASK;
    uint8_t s = SS_ERR, h = HASTAT_OK; /* unknown or still in progress */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].cam == st) {
            s = rows[i].ss;
            h = rows[i].hastat;
            break;
        }
    }
    if (ss != NULL)
        *ss = s;
    if (hastat != NULL)
        *hastat = h;
}
