/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The chip-test rig (tests/support/chiprig.h) on hal/esp: its chip entry
 * for the register-level ESP model (tests/esp/model), and the init that
 * creates the model for one of the family's chips and attaches pcam_esp
 * to it. Header-only so each test program carries its own copy.
 */
#ifndef PCAM_ESP_RIG_H
#define PCAM_ESP_RIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "chiprig.h"
#include "espmodel.h"
#include "pcam_sim.h"

typedef struct erig_opts {
    espm_chip chip;
    pcam_esp_chip want;     /* what the back-end is told (AUTO = identify) */
    uint32_t clock_khz;
    bool use_dma;
    bool polled;
    uint32_t esp_flags;
} erig_opts;

static inline void erig_opts_default(erig_opts *o, espm_chip chip)
{
    memset(o, 0, sizeof *o);
    o->chip = chip;
    o->want = PCAM_ESP_AUTO;
    o->clock_khz = chip == ESPM_AM53C974 || chip == ESPM_FAS216 || chip == ESPM_FAS236 ? 40000u : 25000u;
    o->use_dma = chip == ESPM_AM53C974;
}

/* The ESP family's chips are narrow (8 IDs). */
CHIPRIG_CHIP(erig_chip, espm, espm, "E%u%u", 8);

/* Returns 0 or a negative pcam_err (from attach or bus init). */
static inline int erig_init_cfg(chiprig *r, const erig_opts *o, const pcam_bus_config *bcfg)
{
    espm_config mc;
    pcam_esp_config ec;
    pcam_platform plat;
    int rc;

    rc = chiprig_begin(r, &erig_chip, 1);
    if (rc != PCAM_OK)
        return rc;
    memset(&mc, 0, sizeof mc);
    mc.chip = o->chip;
    mc.clock_khz = o->clock_khz;
    mc.initiator_id = 7;
    r->model = espm_create(r->sim, &mc);
    if (r->model == NULL)
        return PCAM_ERR_RANGE;
    r->sc = calloc(1, sizeof(pcam_esp));
    if (r->sc == NULL)
        return PCAM_ERR_NOSPACE;
    espm_get_platform(r->model, &plat);
    memset(&ec, 0, sizeof ec);
    ec.chip = o->want;
    ec.base = espm_base(r->model);
    ec.stride = (uint8_t)espm_stride(r->model);
    ec.clock_khz = o->clock_khz;
    ec.initiator_id = 7;
    ec.use_dma = o->use_dma;
    ec.flags = o->esp_flags;
    rc = pcam_esp_attach(r->sc, &ec, &plat, &r->hal);
    if (rc != PCAM_OK)
        return rc;
    return chiprig_bus_up(r, bcfg, o->polled, &plat);
}

static inline int erig_init(chiprig *r, const erig_opts *o)
{
    return erig_init_cfg(r, o, NULL);
}

/* Fail loudly with the model's last complaint. */
static inline void erig_print_model_errors(const chiprig *r)
{
    if (espm_errors(r->model) != 0)
        fprintf(stderr, "model: %llu protocol errors, last: %s\n",
                (unsigned long long)espm_errors(r->model), espm_last_error(r->model));
}

#endif /* PCAM_ESP_RIG_H */
