/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench --soak: a long randomized run of verified reads and writes with
 * faults drawn from everything hal/sim can inject, on one of three paths
 * (soak_path.c builds them). Host-only test tooling; never part of the core.
 */
#ifndef PCAM_SOAK_H
#define PCAM_SOAK_H

#include <stdbool.h>
#include <stdint.h>

#include "pcam/pcam.h"
#include "pcam_sim.h"

typedef enum soak_kind {
    SOAK_PHASE = 0, /* the core's engine on hal/sim's phase-level chip */
    SOAK_CMD = 1,   /* the command-level adapter (hal/sim/sim_cmdlevel) */
    SOAK_ESP = 2    /* hal/esp on the register-level ESP model (tests/esp/model) */
} soak_kind;

/* One bus of the soak, whatever drives it. */
typedef struct soak_path {
    soak_kind kind;
    pcam_sim *sim;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    uint64_t deadline;
    void *extra;       /* the adapter or the ESP model and back-end */
} soak_path;

/* Build the path with `cfg` for the core; false (with a message) on error. */
bool soak_path_init(soak_path *p, soak_kind kind, uint64_t seed, const pcam_bus_config *cfg);
void soak_path_fini(soak_path *p);
/* One shim step: interrupt, due tick, or advance simulated time. False when
 * nothing at all is pending. */
bool soak_path_step(soak_path *p);
const char *soak_kind_name(soak_kind k);

/* The pcambench --soak entry point. */
int soak_main(int argc, char **argv, const char *prog);

#endif /* PCAM_SOAK_H */
