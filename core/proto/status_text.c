/* SPDX-License-Identifier: BSD-2-Clause */
/* The name of a CAM status code (pcam_status_name): text only, always compiled,
 * since every shim's log line and test message uses it. */
#include "pcam/pcam.h"

/* The names in one string, in the order of status_codes, then the name of
 * every other code: one byte per code and no pointer table (a switch
 * returning literals cost a 54-entry pointer table, 216 bytes on a 32-bit
 * target, for 25 names). */
static const uint8_t status_codes[] = {
    PCAM_REQ_INPROG,     PCAM_REQ_CMP,         PCAM_REQ_ABORTED,       PCAM_REQ_CMP_ERR,
    PCAM_BUSY,           PCAM_REQ_INVALID,     PCAM_PATH_INVALID,      PCAM_DEV_NOT_THERE,
    PCAM_SEL_TIMEOUT,    PCAM_CMD_TIMEOUT,     PCAM_SCSI_STATUS_ERROR, PCAM_SCSI_BUS_RESET,
    PCAM_UNCOR_PARITY,   PCAM_AUTOSENSE_FAIL,  PCAM_NO_HBA,            PCAM_DATA_RUN_ERR,
    PCAM_UNEXP_BUSFREE,  PCAM_SEQUENCE_FAIL,   PCAM_BDR_SENT,          PCAM_REQ_TOO_BIG,
    PCAM_REQUEUE_REQ,    PCAM_MSG_REJECT_REC,  PCAM_RESRC_UNAVAIL,     PCAM_FUNC_NOTAVAIL};
static const char status_names[] =
    "REQ_INPROG\0REQ_CMP\0REQ_ABORTED\0REQ_CMP_ERR\0"
    "BUSY\0REQ_INVALID\0PATH_INVALID\0DEV_NOT_THERE\0"
    "SEL_TIMEOUT\0CMD_TIMEOUT\0SCSI_STATUS_ERROR\0SCSI_BUS_RESET\0"
    "UNCOR_PARITY\0AUTOSENSE_FAIL\0NO_HBA\0DATA_RUN_ERR\0"
    "UNEXP_BUSFREE\0SEQUENCE_FAIL\0BDR_SENT\0REQ_TOO_BIG\0"
    "REQUEUE_REQ\0MSG_REJECT_REC\0RESRC_UNAVAIL\0FUNC_NOTAVAIL\0"
    "UNKNOWN_STATUS";

const char *pcam_status_name(uint32_t status)
{
    const char *p = status_names;
    uint32_t code = status & PCAM_STATUS_MASK;
    /* Skip one name per code that is not it; past the last, UNKNOWN_STATUS. */
    for (size_t i = 0; i < sizeof status_codes && status_codes[i] != code; i++)
        while (*p++ != '\0')
            ;
    return p;
}
