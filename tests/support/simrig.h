/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test harness: a pcam bus on the simulated SCSI bus, driven the way a shim
 * would drive it (interrupts or polling), with simulated time advanced only
 * when the core and the bus are both waiting. Shared by the sim scenarios,
 * the benchmark and the examples' tests.
 */
#ifndef PCAM_SIMRIG_H
#define PCAM_SIMRIG_H

#include <stdbool.h>
#include <stdint.h>
#include "pcam/pcam.h"
#include "pcam_sim.h"

typedef struct simrig {
    pcam_sim *sim;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    bool polled;
    uint64_t steps;
    uint64_t check_every;    /* run pcam_bus_check_invariants every N steps (0 = never) */
    /* The core's deadline is asked for only after the rig's own calls into
     * it, not after every step: right when nothing else calls the core
     * directly (pcambench), as a shim does; tests leave it false. */
    bool lazy_deadline;
    bool chained;            /* the simulated chip chains its endings (PCAM_SIM_CHAIN) */
    pcam_simcmd *cmd;        /* hal/sim's command-level adapter between core and chip
                                (PCAM_SIM_LEVEL=cmd), or NULL: the phase level */
    const char *violation;   /* first invariant violation seen, or NULL */
    uint64_t deadline;       /* the core's next deadline, as of its last entry point */
    uint8_t *stores[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS]; /* disk media the rig allocated */
} simrig;

/* A tracked CCB: the rig's completion callback counts calls, so tests can
 * assert every CCB completed exactly once. */
typedef struct rig_ccb {
    pcam_ccb ccb;
    unsigned done_count;
    uint64_t done_ns;
    uint64_t submit_ns;
    void *test;              /* the test's own pointer */
    void (*on_done)(struct rig_ccb *rc);
} rig_ccb;

/* scfg/bcfg NULL = defaults. Returns 0 or a negative pcam_err. */
int simrig_init(simrig *r, const pcam_sim_config *scfg, const pcam_bus_config *bcfg, bool polled);
void simrig_fini(simrig *r);

/* Add a target (tc NULL = defaults) with a disk of `blocks` 512-byte blocks
 * at `lun`; returns the medium (owned by the rig), filled with a pattern. */
uint8_t *simrig_add_disk(simrig *r, uint8_t id, uint8_t lun, uint64_t blocks,
                         const pcam_sim_target_config *tc);

/* One scheduling step: deliver an interrupt / poll, else advance simulated
 * time to the next happening. Returns false when nothing at all is pending. */
bool simrig_step(simrig *r);
/* Step until *flag becomes true or simulated time passes `until_ns`. */
bool simrig_run_until_flag(simrig *r, const bool *flag, uint64_t until_ns);
/* Step until `count` reaches `target` or simulated time passes `until_ns`. */
bool simrig_run_until_count(simrig *r, const uint64_t *count, uint64_t target, uint64_t until_ns);

/* Fill a rig_ccb for a SCSI command. */
void rig_ccb_io(rig_ccb *rc, uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len,
                pcam_dir dir, void *data, uint32_t len);
/* Submit and run until it completes (or `limit_ns` of simulated time passes).
 * Returns the CCB status, or 0xFFFFFFFF if it never completed. */
uint32_t rig_sync(simrig *r, rig_ccb *rc, uint64_t limit_ns);
/* Submit a prepared rig_ccb (done callback installed by the rig). */
void rig_submit(simrig *r, rig_ccb *rc);

#define RIG_MS(x) ((uint64_t)(x) * 1000000ull)
#define RIG_S(x) ((uint64_t)(x) * 1000000000ull)

#endif /* PCAM_SIMRIG_H */
