/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the queue concern's files (queue.c: the per-LUN queues
 * and tags; sched.c: the bus scheduler and aging). Not part of the core's
 * interface: nothing outside core/queue includes this.
 *
 * Vocabulary used across both files:
 *   priv.seq   0 while a CCB has never been issued; its issue number on its
 *              LUN (lun->q.issue_count at issue, never 0) once it has been.
 *              A pending CCB with seq != 0 therefore came back by requeue.
 *   pending    [requeued, in issue order][HEAD OF QUEUE, in submission
 *              order][everything else, FIFO]
 */
#ifndef PCAM_QUEUE_INT_H
#define PCAM_QUEUE_INT_H

#include "queue.h"

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
    return (lun->q.tags_in_use[tag / 32u] >> (tag % 32u)) & 1u;
}

/* Index of the lowest set bit of a nonzero word. The scheduler walks its
 * bitmaps with this instead of testing every ID and LUN, so a look costs
 * the number of candidates, not the width of the bus. The portable form is
 * the de Bruijn multiply (a standard table, not a loop). */
static inline unsigned pcam_q_ctz32(uint32_t x)
{
/* The builtin only where the target has the instruction: ARMv6-M and
 * RISC-V without Zbb would call libgcc's __ctzsi2 on every command. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__ARM_ARCH_6M__) && \
    !(defined(__riscv) && !defined(__riscv_zbb))
    return (unsigned)__builtin_ctz(x);
#else
    static const uint8_t db[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20, 15, 25, 17, 4,  8,
                                   31, 27, 13, 23, 21, 19, 16, 7,  26, 12, 18, 6,  11, 5,  10, 9};
    return db[((x & (0u - x)) * 0x077CB531u) >> 27];
#endif
}

static inline unsigned pcam_q_ctz64(uint64_t x)
{
    uint32_t lo = (uint32_t)x;
    return lo != 0 ? pcam_q_ctz32(lo) : 32u + pcam_q_ctz32((uint32_t)(x >> 32));
}

/* The tag index bucket of (target, LUN, tag): a LUN's 256 tags map to 256
 * distinct buckets, and the LUN's offset spreads LUNs apart, so a chain
 * holds at most one command per LUN. */
static inline unsigned pcam_q_tag_bucket(unsigned target, unsigned lun, unsigned tag)
{
    return (tag + (target & 15u) * 97u + (lun & 63u) * 13u) & (PCAM_TAG_HASH - 1u);
}
/* A tagged CCB just issued / about to leave the active queue. */
void pcam_q_index_add(pcam_bus *bus, pcam_ccb *ccb);

/* Targets the LUN storage (and the chip, once the bus is up) covers. The
 * scheduler asks on every look: the common case (storage exactly as
 * pcam_bus_init sized it) inline and without a division. */
unsigned pcam_q_ntargets_slow(const pcam_bus *bus);
static inline unsigned pcam_q_ntargets(const pcam_bus *bus)
{
    unsigned lpt = bus->cfg.luns_per_target;
    if (lpt == 0 || bus->luns == NULL)
        return 0;
    unsigned mt = bus->caps.max_targets;
    if (mt != 0 && mt <= PCAM_MAX_TARGETS && bus->nluns >= (size_t)mt * lpt)
        return mt;
    return pcam_q_ntargets_slow(bus);
}
/* Would this CCB go out tagged right now (rule: tagged only when the CCB
 * asks, the LUN claims CmdQue and the target has not rejected tags)?
 * Inline: asked once per issue. */
static inline bool pcam_q_wants_tag(const pcam_bus *bus, uint8_t target, const pcam_lun *lun,
                                    const pcam_ccb *ccb)
{
    if ((ccb->flags & PCAM_CCB_TAGGED) == 0)
        return false;
    /* A target that answered a tag message with MESSAGE REJECT gets none,
     * nor one whose user limits say no tags (PCAM_FN_SET_TRAN, a card's
     * NVRAM: the limit is the embedder's word, not a hint). */
    if (target < PCAM_MAX_TARGETS && ((bus->targets[target].dev.flags & PCAM_TGTF_NO_TAGS) != 0 ||
                                      !bus->targets[target].nego.user.tagged))
        return false;
    /* Without CmdQue in INQUIRY a tag message is a protocol error. */
    return (lun->dev.flags & PCAM_LUNF_TAGGED) != 0;
}
/* A free tag, searching from lun->q.next_tag; -1 when all are in use. */
int pcam_q_tag_alloc(pcam_lun *lun);
/* The tag message to send for a tagged CCB, as asked (SIMPLE if garbage). */
static inline uint8_t pcam_q_asked_tag_msg(const pcam_ccb *ccb)
{
    uint8_t a = ccb->u.io.tag_action;
    /* xpt rejects other values; an internal CCB that forgot to set one
     * still needs a legal message on the wire. */
    if (a == PCAM_TAG_HEAD_OF_QUEUE || a == PCAM_TAG_ORDERED)
        return a;
    return PCAM_TAG_SIMPLE;
}

#endif /* PCAM_QUEUE_INT_H */
