/* SPDX-License-Identifier: BSD-2-Clause */
/* The queue's state as other concerns may see it: one write (a hint that
 * something may have become issuable) and read-only answers. Nothing
 * outside core/queue touches bus->q; included by pcam_core.h. */
#ifndef PCAM_QUEUE_INLINE_H
#define PCAM_QUEUE_INLINE_H

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

#endif /* PCAM_QUEUE_INLINE_H */
