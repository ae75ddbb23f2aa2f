/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test rig for hal/sym on the SCRIPTS-level model (tests/sym/model) over
 * hal/sim's bus and targets: a pcam bus whose back-end is pcam_sym, driven
 * the way an interrupt-mode shim drives it (pcam_bus_intr() while the
 * model's line is up, pcam_bus_tick() at the core's deadlines, simulated
 * time advanced only when both wait). Header-only, one copy per program.
 */
#ifndef SYM_RIG_H
#define SYM_RIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_sym.h"
#include "pcam_sim.h"
#include "symm.h"

#define SRIG_MS(x) ((uint64_t)(x) * 1000000ull)
#define SRIG_S(x) ((uint64_t)(x) * 1000000000ull)

typedef struct srig {
    pcam_sim *sim;
    symm *model;
    pcam_sym *sym;
    pcam_hal hal;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    uint64_t deadline;
    bool polled;
    const char *violation;
    uint64_t steps;
    uint8_t *stores[16][8];
    uint64_t blocks[16][8];
} srig;

/* Returns 0 or a negative pcam_err. */
static inline int srig_init_mode(srig *r, const pcam_bus_config *bcfg, uint64_t seed, bool polled)
{
    pcam_sim_config sc;
    pcam_sym_config yc;
    pcam_platform plat;
    pcam_hal_caps caps;
    pcam_bus_config cfg;
    uint64_t bus;
    int rc;

    memset(r, 0, sizeof *r);
    pcam_sim_config_defaults(&sc);
    sc.width = 16;
    sc.initiator_id = 7;
    /* SYMM_SEED replays a run with another seed (for hunting rare paths). */
    sc.seed = getenv("SYMM_SEED") != NULL ? strtoull(getenv("SYMM_SEED"), NULL, 0) : seed;
    r->sim = pcam_sim_create(&sc);
    if (r->sim == NULL)
        return PCAM_ERR_RANGE;
    r->model = symm_create(r->sim, 160000);
    r->sym = calloc(1, sizeof *r->sym);
    if (r->model == NULL || r->sym == NULL)
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
    rc = pcam_sym_attach(r->sym, &yc, &plat, &r->hal);
    if (rc != PCAM_OK)
        return rc;
    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = polled;
    r->hal.ops->get_caps(r->hal.sc, &caps);
    r->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    r->luns = calloc(r->nluns, sizeof *r->luns);
    if (r->luns == NULL)
        return PCAM_ERR_NOSPACE;
    rc = pcam_bus_init(&r->bus, &cfg, &r->hal, &plat, r->luns, r->nluns);
    r->polled = polled;
    r->deadline = pcam_bus_next_deadline(&r->bus);
    return rc;
}

static inline int srig_init(srig *r, const pcam_bus_config *bcfg, uint64_t seed)
{
    return srig_init_mode(r, bcfg, seed, false);
}

static inline void srig_fini(srig *r)
{
    pcam_bus_shutdown(&r->bus);
    symm_destroy(r->model);
    pcam_sim_destroy(r->sim);
    for (unsigned i = 0; i < 16; i++)
        for (unsigned l = 0; l < 8; l++)
            free(r->stores[i][l]);
    free(r->luns);
    free(r->sym);
    memset(r, 0, sizeof *r);
}

/* A disk of `blocks` 512-byte blocks at id/lun, filled with a pattern. */
static inline uint8_t *srig_add_disk(srig *r, uint8_t id, uint8_t lun, uint64_t blocks,
                                     const pcam_sim_target_config *tc)
{
    char serial[8];
    if (pcam_sim_target_cfg(r->sim, id) == NULL && pcam_sim_add_target(r->sim, id, tc) != 0)
        return NULL;
    uint8_t *store = malloc((size_t)blocks * 512u);
    if (store == NULL)
        return NULL;
    for (size_t i = 0; i < (size_t)blocks * 512u; i++)
        store[i] = (uint8_t)(i * 7u + id * 13u + lun + (i >> 9));
    snprintf(serial, sizeof serial, "Y%02u%u", id, lun);
    pcam_simlu_init_disk(pcam_sim_lu(r->sim, id, lun), store, blocks, 512, "PCAMSIM", "DISK", serial);
    r->stores[id][lun] = store;
    r->blocks[id][lun] = blocks;
    return store;
}

static inline bool srig_step(srig *r)
{
    uint64_t now, t, d;
    if (!r->polled && symm_irq(r->model)) {
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
    t = symm_next_time(r->model);
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
    symm_advance(r->model, t);
    if (!r->polled && d <= t)
        pcam_bus_tick(&r->bus);
    r->deadline = pcam_bus_next_deadline(&r->bus);
    if (r->violation == NULL && (++r->steps & 63u) == 0)
        r->violation = pcam_bus_check_invariants(&r->bus);
    return true;
}

static inline bool srig_run_until_flag(srig *r, const bool *flag, uint64_t limit_ns)
{
    uint64_t until = pcam_sim_now(r->sim) + limit_ns;
    while (!*flag)
        if (pcam_sim_now(r->sim) > until || !srig_step(r))
            return *flag;
    return true;
}

typedef struct srig_ccb {
    pcam_ccb ccb;
    uint8_t sense[32];
    unsigned done_count;
    void *test;
    void (*on_done)(struct srig_ccb *rc);
} srig_ccb;

static inline void srig_done(pcam_ccb *ccb)
{
    srig_ccb *rc = (srig_ccb *)ccb;
    rc->done_count++;
    if (rc->on_done != NULL)
        rc->on_done(rc);
}

static inline void srig_io(srig_ccb *rc, uint8_t target, uint8_t lun, const uint8_t *cdb,
                           uint8_t cdb_len, pcam_dir dir, void *data, uint32_t len)
{
    memset(rc, 0, sizeof *rc);
    rc->ccb.func = PCAM_FN_SCSI_IO;
    rc->ccb.target = target;
    rc->ccb.lun = lun;
    memcpy(rc->ccb.u.io.cdb, cdb, cdb_len);
    rc->ccb.u.io.cdb_len = cdb_len;
    rc->ccb.u.io.dir = dir;
    rc->ccb.u.io.data = data;
    rc->ccb.u.io.data_len = len;
    rc->ccb.u.io.sense = rc->sense;
    rc->ccb.u.io.sense_len = sizeof rc->sense;
    rc->ccb.u.io.retries = 4;
}

static inline void srig_submit(srig *r, srig_ccb *rc)
{
    rc->ccb.done = srig_done;
    pcam_action(&r->bus, &rc->ccb);
    r->deadline = pcam_bus_next_deadline(&r->bus);
}

static inline void srig_sync_done(srig_ccb *rc)
{
    *(bool *)rc->test = true;
}

static inline uint32_t srig_sync(srig *r, srig_ccb *rc, uint64_t limit_ns)
{
    bool done = false;
    rc->test = &done;
    rc->on_done = srig_sync_done;
    srig_submit(r, rc);
    srig_run_until_flag(r, &done, limit_ns);
    rc->test = NULL;
    rc->on_done = NULL;
    return done ? rc->ccb.status : 0xFFFFFFFFu;
}

static inline uint32_t srig_func(srig *r, uint8_t func, uint8_t target, uint8_t lun)
{
    srig_ccb c;
    memset(&c, 0, sizeof c);
    c.ccb.func = func;
    c.ccb.target = target;
    c.ccb.lun = lun;
    return srig_sync(r, &c, SRIG_S(60));
}

static inline void srig_cdb_rw10(uint8_t *cdb, bool write, uint32_t lba, uint16_t blocks)
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

static inline uint32_t srig_rw(srig *r, uint8_t id, uint8_t lun, bool write, uint32_t lba,
                               uint16_t blocks, void *buf)
{
    uint8_t cdb[10];
    srig_ccb rc;
    srig_cdb_rw10(cdb, write, lba, blocks);
    srig_io(&rc, id, lun, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, blocks * 512u);
    return srig_sync(r, &rc, SRIG_S(10));
}

#endif /* SYM_RIG_H */
