/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The chip-test rig: a pcam bus whose back-end (hal/esp, hal/sym) drives a
 * register-level model of its chip (tests/esp/model, tests/sym/model) on
 * hal/sim's bus and targets. Driven the way a shim would drive it:
 * pcam_bus_intr() while the model's line is up (pcam_bus_poll() in polled
 * mode), pcam_bus_tick() at the core's deadlines, simulated time advanced
 * only when the core and the model both wait.
 *
 * What differs per chip is a chiprig_chip entry (how to ask its model for
 * its line and its next event) and an init function that creates the
 * model and attaches the back-end, both in the chip's own rig header
 * (tests/esp/esp_rig.h, tests/sym/sym_rig.h); everything else is here, so
 * a third chip's tests cost an entry and an init, not a copy of the rig.
 * Header-only so each test program carries its own copy.
 */
#ifndef PCAM_CHIPRIG_H
#define PCAM_CHIPRIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccbfill.h"
#include "pcam/pcam.h"
#include "pcam_sim.h"

#define CHIPRIG_MS(x) ((uint64_t)(x) * 1000000ull)
#define CHIPRIG_S(x) ((uint64_t)(x) * 1000000000ull)

/* A chip's model, as the rig drives it (the model is the rig's `model`). */
typedef struct chiprig_chip {
    const char *serial_fmt; /* a disk's serial number from its id and LUN */
    unsigned width;         /* the bus: 8 (narrow) or 16 (wide) IDs */
    bool (*irq)(const void *model);
    uint64_t (*next_time)(const void *model);
    void (*advance)(void *model, uint64_t t);
    void (*destroy)(void *model);
} chiprig_chip;

/* Defines `static const chiprig_chip name` for a model whose API is
 * p##_irq, p##_next_time, p##_advance and p##_destroy on a `T *` (C cannot
 * call those through a void * hook without a wrapper, so this writes the
 * wrappers once for every chip). */
#define CHIPRIG_CHIP(name, p, T, serial_fmt, width)                                \
    static inline bool name##_irq(const void *m) { return p##_irq((const T *)m); } \
    static inline uint64_t name##_next(const void *m) { return p##_next_time((const T *)m); } \
    static inline void name##_advance(void *m, uint64_t t) { p##_advance((T *)m, t); } \
    static inline void name##_destroy(void *m) { p##_destroy((T *)m); }          \
    static const chiprig_chip name = {(serial_fmt), (width), name##_irq, name##_next, \
                                      name##_advance, name##_destroy}

typedef struct chiprig {
    const chiprig_chip *chip;
    pcam_sim *sim;
    void *model;            /* the chip's model (espm, symm) */
    void *sc;               /* the back-end's state (pcam_esp, pcam_sym), owned */
    pcam_hal hal;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    bool polled;
    uint64_t deadline;
    const char *violation;  /* the first core invariant broken, if any */
    uint64_t steps;
    uint8_t *stores[16][8];
    uint64_t blocks[16][8];
} chiprig;

/* The chip's init starts here: a zeroed rig on `chip`, hal/sim's bus as
 * wide as the chip with the initiator at ID 7, its PRNG seeded with `seed`
 * (hal/sim's default is 1). Returns 0 or a negative pcam_err. */
static inline int chiprig_begin(chiprig *r, const chiprig_chip *chip, uint64_t seed)
{
    pcam_sim_config sc;

    memset(r, 0, sizeof *r);
    r->chip = chip;
    pcam_sim_config_defaults(&sc);
    sc.width = (uint8_t)chip->width;
    sc.initiator_id = 7;
    sc.seed = seed;
    r->sim = pcam_sim_create(&sc);
    return r->sim != NULL ? PCAM_OK : PCAM_ERR_RANGE;
}

/* The chip's init ends here, once the back-end is attached to r->hal: init the bus
 * on `plat` with `bcfg` (NULL: the defaults) in interrupt or polled mode.
 * Returns 0 or a negative pcam_err. */
static inline int chiprig_bus_up(chiprig *r, const pcam_bus_config *bcfg, bool polled,
                                 const pcam_platform *plat)
{
    pcam_hal_caps caps;
    pcam_bus_config cfg;
    int rc;

    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = polled;
    r->polled = polled;
    r->hal.ops->get_caps(r->hal.sc, &caps);
    r->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    r->luns = calloc(r->nluns, sizeof *r->luns);
    if (r->luns == NULL)
        return PCAM_ERR_NOSPACE;
    rc = pcam_bus_init(&r->bus, &cfg, &r->hal, plat, r->luns, r->nluns);
    r->deadline = pcam_bus_next_deadline(&r->bus);
    return rc;
}

static inline void chiprig_fini(chiprig *r)
{
    pcam_bus_shutdown(&r->bus);
    if (r->model != NULL)
        r->chip->destroy(r->model);
    pcam_sim_destroy(r->sim);
    for (unsigned i = 0; i < 16; i++)
        for (unsigned l = 0; l < 8; l++)
            free(r->stores[i][l]);
    free(r->luns);
    free(r->sc);
    memset(r, 0, sizeof *r);
}

/* A disk of `blocks` 512-byte blocks at id/lun, filled with a pattern. */
static inline uint8_t *chiprig_add_disk(chiprig *r, uint8_t id, uint8_t lun, uint64_t blocks,
                                        const pcam_sim_target_config *tc)
{
    uint8_t *store;
    char serial[8];
    if (pcam_sim_target_cfg(r->sim, id) == NULL && pcam_sim_add_target(r->sim, id, tc) != 0)
        return NULL;
    store = malloc((size_t)blocks * 512u);
    if (store == NULL)
        return NULL;
    for (size_t i = 0; i < (size_t)blocks * 512u; i++)
        store[i] = (uint8_t)(i * 7u + id * 13u + lun + (i >> 9));
    snprintf(serial, sizeof serial, r->chip->serial_fmt, (unsigned)id, (unsigned)lun);
    pcam_simlu_init_disk(pcam_sim_lu(r->sim, id, lun), store, blocks, 512, "PCAMSIM", "DISK", serial);
    r->stores[id][lun] = store;
    r->blocks[id][lun] = blocks;
    return store;
}

static inline bool chiprig_step(chiprig *r)
{
    uint64_t now, t, d;
    if (!r->polled && r->chip->irq(r->model)) {
        pcam_bus_intr(&r->bus);
        r->deadline = pcam_bus_next_deadline(&r->bus);
        return true;
    }
    /* Polled mode (UEFI, crash dumps): the core asks the chip itself. */
    if (r->polled && pcam_bus_poll(&r->bus)) {
        r->deadline = pcam_bus_next_deadline(&r->bus);
        return true;
    }
    now = pcam_sim_now(r->sim);
    t = r->chip->next_time(r->model);
    d = r->deadline;
    if (d < t)
        t = d;
    if (t == UINT64_MAX) {
        r->deadline = pcam_bus_next_deadline(&r->bus);
        t = r->deadline;
        if (t == UINT64_MAX)
            return false;
        d = t;
    }
    if (t < now)
        t = now;
    r->chip->advance(r->model, t);
    if (!r->polled && d <= t)
        pcam_bus_tick(&r->bus);
    r->deadline = pcam_bus_next_deadline(&r->bus);
    if (r->violation == NULL && (++r->steps & 63u) == 0)
        r->violation = pcam_bus_check_invariants(&r->bus);
    return true;
}

static inline bool chiprig_run_until_flag(chiprig *r, const bool *flag, uint64_t limit_ns)
{
    uint64_t until = pcam_sim_now(r->sim) + limit_ns;
    while (!*flag) {
        if (pcam_sim_now(r->sim) > until || !chiprig_step(r))
            return *flag;
    }
    return true;
}

/* A tracked CCB. */
typedef struct chiprig_ccb {
    pcam_ccb ccb;
    uint8_t sense[32];      /* autosense lands here (chiprig_io_sense) */
    unsigned done_count;
    void *test;
    void (*on_done)(struct chiprig_ccb *rc);
} chiprig_ccb;

static inline void chiprig_done(pcam_ccb *ccb)
{
    chiprig_ccb *rc = (chiprig_ccb *)ccb;
    rc->done_count++;
    if (rc->on_done != NULL)
        rc->on_done(rc);
}

/* Builds the CCB only (test and on_done are kept), with no sense buffer:
 * the core's autosense then has nowhere to put the data. */
static inline void chiprig_io(chiprig_ccb *rc, uint8_t target, uint8_t lun, const uint8_t *cdb,
                              uint8_t cdb_len, pcam_dir dir, void *data, uint32_t len)
{
    ccbfill_io(&rc->ccb, target, lun, cdb, cdb_len, dir, data, len);
    rc->done_count = 0;
}

/* A fresh tracked CCB (all of it cleared) with autosense into rc->sense. */
static inline void chiprig_io_sense(chiprig_ccb *rc, uint8_t target, uint8_t lun, const uint8_t *cdb,
                                    uint8_t cdb_len, pcam_dir dir, void *data, uint32_t len)
{
    memset(rc, 0, sizeof *rc);
    chiprig_io(rc, target, lun, cdb, cdb_len, dir, data, len);
    rc->ccb.u.io.sense = rc->sense;
    rc->ccb.u.io.sense_len = sizeof rc->sense;
}

static inline void chiprig_submit(chiprig *r, chiprig_ccb *rc)
{
    rc->ccb.done = chiprig_done;
    pcam_action(&r->bus, &rc->ccb);
    r->deadline = pcam_bus_next_deadline(&r->bus);
}

static inline void chiprig_sync_done(chiprig_ccb *rc)
{
    *(bool *)rc->test = true;
}

/* Submit and run until done; the CCB status, or 0xFFFFFFFF if it never completed. */
static inline uint32_t chiprig_sync(chiprig *r, chiprig_ccb *rc, uint64_t limit_ns)
{
    bool done = false;
    rc->test = &done;
    rc->on_done = chiprig_sync_done;
    chiprig_submit(r, rc);
    chiprig_run_until_flag(r, &done, limit_ns);
    rc->test = NULL;
    rc->on_done = NULL;
    return done ? rc->ccb.status : 0xFFFFFFFFu;
}

/* A CCB with no payload (scan, resets, abort by path); its status. */
static inline uint32_t chiprig_func(chiprig *r, uint8_t func, uint8_t target, uint8_t lun)
{
    chiprig_ccb c;
    memset(&c, 0, sizeof c);
    c.ccb.func = func;
    c.ccb.target = target;
    c.ccb.lun = lun;
    return chiprig_sync(r, &c, CHIPRIG_S(60));
}

static inline uint32_t chiprig_scan(chiprig *r)
{
    return chiprig_func(r, PCAM_FN_SCAN_BUS, 0, 0);
}

static inline void chiprig_cdb_rw10(uint8_t *cdb, bool write, uint32_t lba, uint16_t blocks)
{
    memset(cdb, 0, 10);
    cdb[0] = write ? 0x2A : 0x28;
    cdb[2] = (uint8_t)(lba >> 24);
    cdb[3] = (uint8_t)(lba >> 16);
    cdb[4] = (uint8_t)(lba >> 8);
    cdb[5] = (uint8_t)lba;
    cdb[7] = (uint8_t)(blocks >> 8);
    cdb[8] = (uint8_t)blocks;
}

/* READ(10)/WRITE(10) of `blocks` at `lba`, with or without a sense buffer
 * (as chiprig_io_sense or chiprig_io); returns the CCB status. */
static inline uint32_t chiprig_rw(chiprig *r, uint8_t id, uint8_t lun, bool write, uint32_t lba,
                                  uint16_t blocks, void *buf, bool sense)
{
    uint8_t cdb[10];
    chiprig_ccb rc;
    chiprig_cdb_rw10(cdb, write, lba, blocks);
    if (sense)
        chiprig_io_sense(&rc, id, lun, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, blocks * 512u);
    else
        chiprig_io(&rc, id, lun, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, blocks * 512u);
    return chiprig_sync(r, &rc, CHIPRIG_S(10));
}

#endif /* PCAM_CHIPRIG_H */
