/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion delivery: every concern finishes a CCB here, and the callbacks
 * run only when core/xpt drains the list at the outermost entry point
 * (pcam_core_run_completions), so no callback ever sees the engine
 * half-way through a step. Nothing here decides a status.
 */
#include "common.h"

void pcam_core_complete(pcam_bus *bus, pcam_ccb *ccb, uint32_t status)
{
    ccb->status = status;
    ccb->priv.state = PCAM_CS_DONE;
    pcam_ccbq_push_tail(&bus->ev.done_q, ccb); /* inline: one per command on every path */
}

void pcam_core_run_completions(pcam_bus *bus)
{
    pcam_ccb_queue *q = &bus->ev.done_q;
    pcam_ccb *ccb;
    /* A callback may complete more (a request refused at once): they are
     * delivered in this same loop, in order. */
    while ((ccb = q->head) != NULL) {
        q->head = ccb->priv.next;
        if (q->head != NULL)
            q->head->priv.prev = NULL;
        else
            q->tail = NULL;
        q->count--;
        ccb->priv.next = NULL;
        ccb->priv.state = PCAM_CS_FREE;
        ccb->priv.magic = 0;
        /* The callback may resubmit this very CCB, so nothing touches it after. */
        ccb->done(ccb);
    }
}
