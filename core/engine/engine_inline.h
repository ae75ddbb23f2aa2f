/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine's state as other concerns may see it: read-only answers, and
 * the one deadline core/xpt hands in. Nothing outside core/engine touches
 * bus->eng or bus->lad; included by pcam_core.h. */
#ifndef PCAM_ENGINE_INLINE_H
#define PCAM_ENGINE_INLINE_H

/* A command submitted at core/xpt must be looked at by `life` at the latest. */
static inline void pcam_engine_note_life(pcam_bus *bus, uint64_t life)
{
    if (life < bus->eng.timer_ns)
        bus->eng.timer_ns = life;
}
/* Shut down by the embedder, or the chip is dead: nothing more is started. */
static inline bool pcam_engine_shut_down(const pcam_bus *bus)
{
    return bus->eng.shut_down;
}
/* The CCB connected or being selected, or NULL. */
static inline const pcam_ccb *pcam_engine_nexus(const pcam_bus *bus)
{
    return bus->eng.nexus;
}
/* The first CCB waiting for its REQUEST SENSE (list through priv.link2). */
static inline const pcam_ccb *pcam_engine_sense_head(const pcam_bus *bus)
{
    return bus->eng.sense_head;
}
/* A script/command-level back-end refused a command for want of room and
 * has reported none since that would make room (decide.c): nothing new can
 * be started. The engine_flags bit; engine_internal.h names it EGF_HAL_FULL. */
#define PCAM_ENG_HAL_FULL 2u
static inline bool pcam_engine_hal_no_room(const pcam_bus *bus)
{
    return (bus->eng.engine_flags & PCAM_ENG_HAL_FULL) != 0 && bus->eng.hal_room == 0;
}
/* When the core next needs a tick (UINT64_MAX: never). Asked after every
 * entry point, so the usual answer (no settle delay, running) is inline;
 * `t` so far goes to the rest. */
uint64_t pcam_engine_next_deadline_slow(const pcam_bus *bus, uint64_t t);
static inline uint64_t pcam_engine_next_deadline(const pcam_bus *bus)
{
    uint64_t t = bus->eng.timer_ns;
    if (bus->eng.hold_ns < t)
        t = bus->eng.hold_ns;
    /* Targets held back by per-bus aging are re-evaluated on this schedule
     * (under load nearly always someone, so it stays on the short path). */
    if (pcam_q_throttled(bus) != 0 && pcam_q_age_next_ns(bus) < t)
        t = pcam_q_age_next_ns(bus);
    /* A recovery step's deadline is inline too: the phase-level engine
     * watches every reselection with one until the command is named
     * (pcam_eng_watch_start), a third of its events under load. */
    if (bus->lad.step != 0 && bus->lad.deadline_ns < t)
        t = bus->lad.deadline_ns;
    if ((bus->lad.settle_until_ns | (uint8_t)bus->eng.shut_down) == 0)
        return t;
    return pcam_engine_next_deadline_slow(bus, t);
}

#endif /* PCAM_ENGINE_INLINE_H */
