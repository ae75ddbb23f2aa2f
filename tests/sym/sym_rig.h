/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The chip-test rig (tests/support/chiprig.h) on hal/sym: its chip entry
 * for the SCRIPTS-level model (tests/sym/model), and the init that creates
 * a 53C895A model on a wide bus and attaches pcam_sym to it, its DMA area
 * in the model's arena. Header-only, one copy per program.
 */
#ifndef SYM_RIG_H
#define SYM_RIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_sym.h"
#include "chiprig.h"
#include "pcam_sim.h"
#include "symm.h"

/* The 53C895A is wide (16 IDs). */
CHIPRIG_CHIP(srig_chip, symm, symm, "Y%02u%u", 16);

/* Returns 0 or a negative pcam_err. */
static inline int srig_init_mode(chiprig *r, const pcam_bus_config *bcfg, uint64_t seed, bool polled)
{
    pcam_sym_config yc;
    pcam_platform plat;
    uint64_t bus;
    int rc;

    /* SYMM_SEED replays a run with another seed (for hunting rare paths). */
    if (getenv("SYMM_SEED") != NULL)
        seed = strtoull(getenv("SYMM_SEED"), NULL, 0);
    rc = chiprig_begin(r, &srig_chip, seed);
    if (rc != PCAM_OK)
        return rc;
    r->model = symm_create(r->sim, 160000);
    r->sc = calloc(1, sizeof(pcam_sym));
    if (r->model == NULL || r->sc == NULL)
        return PCAM_ERR_NOSPACE;
    if (getenv("SYMM_VERBOSE") != NULL) {
        symm_set_verbose(r->model, true);
        pcam_sim_set_log(r->sim, stderr);
    }
    symm_get_platform(r->model, &plat);
    memset(&yc, 0, sizeof yc);
    yc.base = symm_base(r->model);
    yc.pci_device = 0x0012;
    yc.initiator_id = 7;
    yc.dma_va = symm_alloc(r->model, PCAM_SYM_DMA_BYTES, &bus);
    yc.dma_bus = bus;
    yc.dma_len = PCAM_SYM_DMA_BYTES;
    rc = pcam_sym_attach(r->sc, &yc, &plat, &r->hal);
    if (rc != PCAM_OK)
        return rc;
    return chiprig_bus_up(r, bcfg, polled, &plat);
}

static inline int srig_init(chiprig *r, const pcam_bus_config *bcfg, uint64_t seed)
{
    return srig_init_mode(r, bcfg, seed, false);
}

#endif /* SYM_RIG_H */
