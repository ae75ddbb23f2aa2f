/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layer 4 of the core (docs/design.md, "Layers inside the core"): the
 * interface of core/engine, the phase-level state machine, the timeout
 * ladder and the script/command-level path, as core/xpt above it calls
 * them. The engine's state as xpt may see it: read-only answers, and the one
 * deadline xpt hands in. Nothing outside core/engine touches bus->eng or
 * bus->lad. It includes only the layers below (tests/layering/check.sh
 * follows the #include chains); the engine's own files share more through
 * engine_internal.h.
 */
#ifndef PCAM_ENGINE_H
#define PCAM_ENGINE_H

#include "../queue/queue.h"

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

/* PCAM_FN_ABORT, PCAM_FN_RESET_BUS, shutdown. */
void pcam_engine_abort(pcam_bus *bus, pcam_ccb *ccb);
void pcam_engine_reset_bus(pcam_bus *bus, pcam_ccb *ccb);
void pcam_engine_reset_dev(pcam_bus *bus, pcam_ccb *ccb);
void pcam_engine_shutdown(pcam_bus *bus);
void pcam_engine_init(pcam_bus *bus);
/* pcam_bus_check_invariants()'s engine part: no orphan active CCB, sane
 * sense and abort lists. `nactive` is the number of active CCBs on the bus. */
const char *pcam_engine_check(const pcam_bus *bus, uint32_t nactive);
/* The nexus is a disconnected CCB we are selecting to abort or reset (it
 * stays marked disconnected: its reselection may still win the bus). */
bool pcam_engine_nexus_aborting(const pcam_bus *bus);
/* pcam_engine_kick() past its quick answer (below, after pcam_dec_active). */
void pcam_engine_kick_slow(pcam_bus *bus);
/* Process every chip event pending. Returns true if any. */
bool pcam_engine_events(pcam_bus *bus);
/* Timers: command deadlines, recovery steps. */
void pcam_engine_tick(pcam_bus *bus, uint64_t now);

/* ---- decide: script-level and command-level back-ends (decide.c) ---- */
/* The chip runs the phases: the core hands it whole commands and answers
 * its questions (pcam_hal.h, hal_cmd). */
/* Does `hal` have every op its profile needs? (Without PCAM_CFG_CMDLEVEL
 * only the phase-level profile is accepted.) */
bool pcam_dec_hal_ok(const pcam_hal *hal, pcam_hal_profile profile);
#if PCAM_CFG_CMDLEVEL
static inline bool pcam_dec_active(const pcam_bus *bus)
{
    return bus->caps.profile == PCAM_HAL_SCRIPT_LEVEL || bus->caps.profile == PCAM_HAL_COMMAND_LEVEL;
}
/* pcam_bus_init's last step: tell the back-end its bus. */
void pcam_dec_attach(pcam_bus *bus);
/* The pcam_bus_hal_*() entry points (pcam_hal.h) past core/xpt, which owns
 * the public names and checks `bus` (it notes that the back-end called). */
int pcam_dec_done(pcam_bus *bus, const void *handle, uint8_t target, uint8_t lun,
                  const pcam_hal_cmd_result *res);
int pcam_dec_reset_done(pcam_bus *bus, uint8_t target, uint8_t lun, bool lun_reset, uint32_t status);
int pcam_dec_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap);
void pcam_dec_nego_end(pcam_bus *bus, uint8_t target, bool sent);
int pcam_dec_msg_in(pcam_bus *bus, uint8_t target, uint8_t lun, const uint8_t *msg, size_t len,
                    uint8_t *reply, size_t cap);
int pcam_dec_msg_reject(pcam_bus *bus, uint8_t target, uint8_t rejected, uint8_t *next, size_t cap);
void pcam_dec_parity(pcam_bus *bus, uint8_t target);
/* pcam_engine_kick for these profiles: start autosense, recovery steps,
 * device resets and new commands at the back-end. */
void pcam_dec_kick(pcam_bus *bus);
#else
/* A constant false lets the compiler drop every script-level branch. */
static inline bool pcam_dec_active(const pcam_bus *bus)
{
    (void)bus;
    return false;
}
static inline void pcam_dec_attach(pcam_bus *bus) { (void)bus; }
static inline void pcam_dec_kick(pcam_bus *bus) { (void)bus; }
#endif

/* Start the next bus action if the bus is idle. Asked after every chip
 * event and on every way out of the core; most of the time the bus is busy
 * or nothing can have become startable, and that answer is inline (state 0
 * is the engine's idle state). It holds for the script/command-level kick
 * (pcam_dec_kick) too: with no autosense, abort, recovery step or device
 * reset waiting, that one only asks the scheduler, which has nothing until
 * the queues change, and only while the back-end has room. */
static inline void pcam_engine_kick(pcam_bus *bus)
{
    if (bus->eng.state != 0 || bus->eng.shut_down)
        return;
    if (bus->eng.sense_head == NULL && bus->lad.abort_head == NULL && bus->lad.step == 0 &&
        bus->eng.mgmt.head == NULL && (!pcam_q_dirty(bus) || pcam_engine_hal_no_room(bus)))
        return;
    pcam_engine_kick_slow(bus);
}

#endif /* PCAM_ENGINE_H */
