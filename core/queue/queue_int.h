/*
 * Helpers shared by the queue concern's files (queue.c: the per-LUN queues
 * and tags; sched.c: the bus scheduler and aging). Not part of the core's
 * interface: nothing outside core/queue includes this.
 *
 * Vocabulary used across both files:
 *   priv.seq   0 while a CCB has never been issued; its issue number on its
 *              LUN (lun->issue_count at issue, never 0) once it has been.
 *              A pending CCB with seq != 0 therefore came back by requeue.
 *   pending    [requeued, in issue order][HEAD OF QUEUE, in submission
 *              order][everything else, FIFO]
 */
#ifndef PCAM_QUEUE_INT_H
#define PCAM_QUEUE_INT_H

#include "pcam_core.h"

/* SPI arbitration: ID 7 wins over 6 ... 0, which win over 15 ... 8. The
 * rank is larger for the ID that wins. */
static inline unsigned pcam_q_prio(unsigned id)
{
    return id < 8u ? id + 8u : id - 8u;
}

/* Issue numbers wrap; compare them as a window so a wrap keeps the order. */
static inline bool pcam_q_seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

static inline bool pcam_q_is_hoq(const pcam_ccb *ccb)
{
    return (ccb->flags & PCAM_CCB_TAGGED) != 0 && ccb->u.io.tag_action == PCAM_TAG_HEAD_OF_QUEUE;
}

static inline bool pcam_q_tag_busy(const pcam_lun *lun, unsigned tag)
{
    return (lun->tags_in_use[tag / 32u] >> (tag % 32u)) & 1u;
}

/* Targets the LUN storage (and the chip, once the bus is up) covers. */
unsigned pcam_q_ntargets(const pcam_bus *bus);
/* Would this CCB go out tagged right now (rule: tagged only when the CCB
 * asks, the LUN claims CmdQue and the target has not rejected tags)? */
bool pcam_q_wants_tag(const pcam_bus *bus, uint8_t target, const pcam_lun *lun,
                      const pcam_ccb *ccb);
/* A free tag, searching from lun->next_tag; -1 when all are in use. */
int pcam_q_tag_alloc(pcam_lun *lun);
/* The tag message to send for a tagged CCB, as asked (SIMPLE if garbage). */
uint8_t pcam_q_asked_tag_msg(const pcam_ccb *ccb);

#endif /* PCAM_QUEUE_INT_H */
