/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion delivery: every concern finishes a CCB here, and the callbacks
 * run only when core/xpt drains the list at the outermost entry point
 * (pcam_core_run_completions), so no callback ever sees the engine
 * half-way through a step. Nothing here decides a status.
 */
#include "pcam_core.h"

void pcam_core_complete(pcam_bus *bus, pcam_ccb *ccb, uint32_t status)
{
    ccb->status = status;
    ccb->priv.state = PCAM_CS_DONE;
    pcam_ccbq_push_tail(&bus->ev.done_q, ccb);
}

void pcam_core_run_completions(pcam_bus *bus)
{
    pcam_ccb *ccb;
    while ((ccb = pcam_ccbq_pop_head(&bus->ev.done_q)) != NULL) {
        ccb->priv.state = PCAM_CS_FREE;
        ccb->priv.magic = 0;
        /* The callback may resubmit this very CCB, so nothing touches it after. */
        ccb->done(ccb);
    }
}
