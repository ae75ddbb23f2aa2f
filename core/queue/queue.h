/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layer 2 of the core (docs/design.md, "Layers inside the core"): the
 * interface of core/queue, the per-LUN queues and tags, depth control, aging
 * and the bus scheduler. The queue's state as other concerns may see it: a
 * hint that something may have become issuable, the few per-LUN writes the
 * engine and xpt make (freezes, holds, depth, taking a command back), and
 * read-only answers. Nothing outside core/queue writes bus->q or a LUN's or
 * target's q (the others read a LUN's lists directly).
 * It includes only the layers below (common); core/nego, beside it, never
 * sees it (tests/layering/check.sh follows the #include chains).
 */
#ifndef PCAM_QUEUE_H
#define PCAM_QUEUE_H

#include "../common/common.h"

/* Something that can make a command issuable changed (a submission, a
 * completion, a released freeze or hold, new aging decisions): the
 * scheduler must look again. Until then pcam_q_next answers at once. */
static inline void pcam_q_touch(pcam_bus *bus)
{
    bus->q.dirty = 1;
}
/* Has anything changed since the scheduler last found nothing to issue? */
static inline bool pcam_q_dirty(const pcam_bus *bus)
{
    return bus->q.dirty != 0;
}
/* Targets per-bus aging holds back (bit per ID), and when it looks again. */
static inline uint16_t pcam_q_throttled(const pcam_bus *bus)
{
    return bus->q.throttled;
}
static inline uint64_t pcam_q_age_next_ns(const pcam_bus *bus)
{
    return bus->q.age_next_ns;
}
/* LUNs of `target` with commands active (bit per LUN; exact). */
static inline uint64_t pcam_q_active_luns(const pcam_bus *bus, uint8_t target)
{
    return ((bus->q.act_targets >> target) & 1u) != 0 ? bus->q.act_luns[target] : 0;
}

/* ---- a LUN's queue, written for the engine and xpt ---- */
/* Take a freeze count (autosense, an error with FREEZE_ON_ERROR): nothing
 * issues to the LUN until it is dropped. */
static inline void pcam_q_freeze(pcam_lun *l)
{
    l->q.freeze++;
}
/* Drop one freeze count if the LUN holds any; false if it held none. */
static inline bool pcam_q_thaw(pcam_lun *l)
{
    if (l->q.freeze == 0)
        return false;
    l->q.freeze--;
    return true;
}
/* Release a freeze as RELEASE QUEUE asks: `n` counts (0: all) but never
 * the `keep` the core holds for autosense. */
static inline void pcam_q_release(pcam_lun *l, uint32_t n, uint16_t keep)
{
    if (keep > l->q.freeze)
        keep = l->q.freeze;
    if (n == 0 || n > (uint32_t)(l->q.freeze - keep))
        l->q.freeze = keep;
    else
        l->q.freeze = (uint16_t)(l->q.freeze - n);
}
/* Issue nothing to the LUN before `until` (a later hold already set wins). */
static inline void pcam_q_hold(pcam_lun *l, uint64_t until)
{
    if (until > l->q.hold_until_ns)
        l->q.hold_until_ns = until;
}
/* The LUN's hold has run out. */
static inline void pcam_q_hold_end(pcam_lun *l)
{
    l->q.hold_until_ns = 0;
}
/* Openings set from outside (RELEASE QUEUE with openings): the ramp restarts. */
static inline void pcam_q_set_depth(pcam_lun *l, uint16_t depth)
{
    l->q.depth = depth;
    l->q.ramp = 0;
}
/* The target held fewer commands than the queue counted: no more than `d` openings. */
static inline void pcam_q_clamp_depth(pcam_lun *l, uint16_t d)
{
    if (d < l->q.depth)
        l->q.depth = d;
}
/* Take a command that was never issued back off the LUN's pending list. */
static inline void pcam_q_unpend(pcam_lun *l, pcam_ccb *c)
{
    pcam_ccbq_remove(&l->q.pending, c);
}
/* The oldest command still pending on the LUN, taken off it (NULL: none). */
static inline pcam_ccb *pcam_q_pop_pending(pcam_lun *l)
{
    return pcam_ccbq_pop_head(&l->q.pending);
}

/* Drop one freeze count the core took (autosense, recovery). */
static inline void pcam_core_unfreeze(pcam_bus *bus, pcam_lun *l)
{
    if (l != NULL && pcam_q_thaw(l))
        pcam_q_touch(bus);
}

/* ---- the queue's functions (queue.c, sched.c) ---- */
void pcam_q_lun_init(pcam_bus *bus, pcam_lun *lun);
/* A new SCSI I/O: onto the LUN's pending queue (HEAD OF QUEUE at the front). */
void pcam_q_submit(pcam_bus *bus, pcam_lun *lun, pcam_ccb *ccb);
/* The scheduler: the next CCB to issue, or NULL. Applies depth, tag
 * exclusivity, freezes, holds, per-LUN and per-bus aging; on return the CCB
 * is on its LUN's active queue with priv.tag / priv.tag_msg chosen
 * (tag_msg 0 = untagged). */
pcam_ccb *pcam_q_next(pcam_bus *bus, uint64_t now);
/* An issued CCB goes back to the front of its pending queue, tag freed, as if
 * never issued (lost arbitration, QUEUE FULL, bystander of a reset); no
 * retry is spent. */
void pcam_q_requeue(pcam_bus *bus, pcam_ccb *ccb);
/* An issued CCB leaves the active queue for good; `good` feeds the depth ramp. */
void pcam_q_retire(pcam_bus *bus, pcam_ccb *ccb, bool good);
/* QUEUE FULL on `ccb`: the depth drops to what the target held (floor
 * applies), `ccb` is requeued at the front. Returns the new depth. */
uint16_t pcam_q_queue_full(pcam_bus *bus, pcam_ccb *ccb);
/* Timer: re-evaluate per-bus aging when it is due (it may release held targets). */
void pcam_q_tick(pcam_bus *bus, uint64_t now);
/* Find the active CCB for a reselection: tag < 0 means the untagged one. */
pcam_ccb *pcam_q_find(pcam_lun *lun, int tag);
/* The same answer from the bus's tag index: O(1) in the queue depth. */
pcam_ccb *pcam_q_find_tag(pcam_bus *bus, uint8_t target, uint8_t lun, int tag);
/* Earliest time a held LUN with work becomes issuable again, UINT64_MAX if
 * none. O(LUNs): for tests and diagnostics; the engine keeps its own earliest hold. */
uint64_t pcam_q_next_hold(const pcam_bus *bus);
const char *pcam_q_check(const pcam_bus *bus, const pcam_lun *lun);

#endif /* PCAM_QUEUE_H */
