/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Intrusive doubly linked CCB queues. The links live in the CCB itself
 * (priv.next / priv.prev) so queueing never allocates; a CCB is on at most
 * one queue at a time, which is why removal clears its links.
 */
#include "common.h"

void pcam_ccbq_push_head(pcam_ccb_queue *q, pcam_ccb *ccb)
{
    ccb->priv.prev = NULL;
    ccb->priv.next = q->head;
    if (q->head != NULL)
        q->head->priv.prev = ccb;
    else
        q->tail = ccb;
    q->head = ccb;
    q->count++;
}

void pcam_ccbq_remove(pcam_ccb_queue *q, pcam_ccb *ccb)
{
    if (ccb->priv.prev != NULL)
        ccb->priv.prev->priv.next = ccb->priv.next;
    else
        q->head = ccb->priv.next;
    if (ccb->priv.next != NULL)
        ccb->priv.next->priv.prev = ccb->priv.prev;
    else
        q->tail = ccb->priv.prev;
    /* Stale links on a dequeued CCB would let a later double removal corrupt
     * whatever queue its old neighbours are on now. */
    ccb->priv.next = NULL;
    ccb->priv.prev = NULL;
    if (q->count > 0)
        q->count--;
}

pcam_ccb *pcam_ccbq_pop_head(pcam_ccb_queue *q)
{
    pcam_ccb *ccb = q->head;
    if (ccb != NULL)
        pcam_ccbq_remove(q, ccb);
    return ccb;
}
