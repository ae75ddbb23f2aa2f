/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layer 3 of the core (docs/design.md, "Layers inside the core"): the
 * interface of core/retry, what a finished command's status and sense mean.
 * It decides and never acts: the engine, above it, carries the decision out
 * and hands in what it alone holds (the sense bytes autosense fetched).
 * It includes only the layers below (tests/layering/check.sh follows the
 * #include chains).
 */
#ifndef PCAM_RETRY_H
#define PCAM_RETRY_H

#include "../common/common.h"

typedef enum pcam_retry_action {
    PCAM_RA_COMPLETE,      /* finish with the status already set */
    PCAM_RA_RETRY,         /* requeue, one retry spent */
    PCAM_RA_RETRY_DELAY,   /* requeue after *delay_ms, one retry spent */
    PCAM_RA_QUEUE_FULL,    /* lower the depth and requeue, no retry spent */
    PCAM_RA_REQUEUE        /* requeue after *delay_ms (may be 0), no retry spent */
} pcam_retry_action;
/* Decide what to do with a SCSI I/O whose status phase has passed (and
 * whose autosense, if any, is in: `sense`, `sense_len` bytes, wherever the
 * engine put them). Sets ccb->status for PCAM_RA_COMPLETE. Triggers
 * renegotiation on UNIT ATTENTION for power-on/reset. */
pcam_retry_action pcam_retry_decide(pcam_bus *bus, pcam_ccb *ccb, const uint8_t *sense,
                                    uint32_t sense_len, uint32_t *delay_ms);
/* A transport failure (parity, unexpected bus free, illegal phase...): retry
 * within the budget, else complete with `status`. */
pcam_retry_action pcam_retry_transport(pcam_bus *bus, pcam_ccb *ccb, uint32_t status);

#endif /* PCAM_RETRY_H */
