/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test rig for hal/esp: a pcam bus whose back-end is pcam_esp, driving the
 * register-level ESP model (tests/esp/model) on hal/sim's bus and targets.
 * Driven the way a shim would: pcam_bus_intr() on the INTR line (or
 * pcam_bus_poll() in polled mode), simulated time advanced only when the
 * core and the model are both waiting. Header-only so each test program
 * carries its own copy.
 */
#ifndef PCAM_ESP_RIG_H
#define PCAM_ESP_RIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "espmodel.h"
#include "pcam_sim.h"

#define ERIG_MS(x) ((uint64_t)(x) * 1000000ull)
#define ERIG_S(x) ((uint64_t)(x) * 1000000000ull)

typedef struct erig {
    pcam_sim *sim;
    espm *model;
    pcam_esp esp;
    pcam_hal hal;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    bool polled;
    uint64_t deadline;
    const char *violation;
    uint64_t steps;
    uint8_t *stores[8][8];
    uint64_t blocks[8][8];
} erig;

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

/* Returns 0 or a negative pcam_err (from attach or bus init). */
static inline int erig_init_cfg(erig *r, const erig_opts *o, const pcam_bus_config *bcfg)
{
    pcam_sim_config sc;
    espm_config mc;
    pcam_esp_config ec;
    pcam_platform plat;
    pcam_hal_caps caps;
    pcam_bus_config cfg;
    int rc;

    memset(r, 0, sizeof *r);
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    sc.initiator_id = 7;
    r->sim = pcam_sim_create(&sc);
    if (r->sim == NULL)
        return PCAM_ERR_RANGE;
    memset(&mc, 0, sizeof mc);
    mc.chip = o->chip;
    mc.clock_khz = o->clock_khz;
    mc.initiator_id = 7;
    r->model = espm_create(r->sim, &mc);
    if (r->model == NULL)
        return PCAM_ERR_RANGE;
    espm_get_platform(r->model, &plat);
    memset(&ec, 0, sizeof ec);
    ec.chip = o->want;
    ec.base = espm_base(r->model);
    ec.stride = (uint8_t)espm_stride(r->model);
    ec.clock_khz = o->clock_khz;
    ec.initiator_id = 7;
    ec.use_dma = o->use_dma;
    ec.flags = o->esp_flags;
    rc = pcam_esp_attach(&r->esp, &ec, &plat, &r->hal);
    if (rc != PCAM_OK)
        return rc;
    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = o->polled;
    r->polled = o->polled;
    r->hal.ops->get_caps(r->hal.sc, &caps);
    r->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    r->luns = calloc(r->nluns, sizeof *r->luns);
    if (r->luns == NULL)
        return PCAM_ERR_NOSPACE;
    rc = pcam_bus_init(&r->bus, &cfg, &r->hal, &plat, r->luns, r->nluns);
    r->deadline = pcam_bus_next_deadline(&r->bus);
    return rc;
}

static inline int erig_init(erig *r, const erig_opts *o)
{
    return erig_init_cfg(r, o, NULL);
}

static inline void erig_fini(erig *r)
{
    pcam_bus_shutdown(&r->bus);
    espm_destroy(r->model);
    pcam_sim_destroy(r->sim);
    for (unsigned i = 0; i < 8; i++)
        for (unsigned l = 0; l < 8; l++)
            free(r->stores[i][l]);
    free(r->luns);
    memset(r, 0, sizeof *r);
}

/* A disk of `blocks` 512-byte blocks at id/lun, filled with a pattern. */
static inline uint8_t *erig_add_disk(erig *r, uint8_t id, uint8_t lun, uint64_t blocks,
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
    serial[0] = 'E';
    serial[1] = (char)('0' + id);
    serial[2] = (char)('0' + lun);
    serial[3] = '\0';
    pcam_simlu_init_disk(pcam_sim_lu(r->sim, id, lun), store, blocks, 512, "PCAMSIM", "DISK", serial);
    r->stores[id][lun] = store;
    r->blocks[id][lun] = blocks;
    return store;
}

static inline bool erig_step(erig *r)
{
    uint64_t now, t, d;
    if (!r->polled && espm_irq(r->model)) {
        pcam_bus_intr(&r->bus);
        r->deadline = pcam_bus_next_deadline(&r->bus);
        return true;
    }
    if (r->polled && pcam_bus_poll(&r->bus)) {
        r->deadline = pcam_bus_next_deadline(&r->bus);
        return true;
    }
    now = pcam_sim_now(r->sim);
    t = espm_next_time(r->model);
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
    espm_advance(r->model, t);
    if (!r->polled && d <= t)
        pcam_bus_tick(&r->bus);
    r->deadline = pcam_bus_next_deadline(&r->bus);
    if (r->violation == NULL && (++r->steps & 63u) == 0)
        r->violation = pcam_bus_check_invariants(&r->bus);
    return true;
}

static inline bool erig_run_until_flag(erig *r, const bool *flag, uint64_t limit_ns)
{
    uint64_t until = pcam_sim_now(r->sim) + limit_ns;
    while (!*flag) {
        if (pcam_sim_now(r->sim) > until || !erig_step(r))
            return *flag;
    }
    return true;
}

/* A tracked CCB. */
typedef struct erig_ccb {
    pcam_ccb ccb;
    unsigned done_count;
    void *test;
    void (*on_done)(struct erig_ccb *rc);
} erig_ccb;

static inline void erig_done(pcam_ccb *ccb)
{
    erig_ccb *rc = (erig_ccb *)ccb;
    rc->done_count++;
    if (rc->on_done != NULL)
        rc->on_done(rc);
}

static inline void erig_io(erig_ccb *rc, uint8_t target, uint8_t lun, const uint8_t *cdb,
                           uint8_t cdb_len, pcam_dir dir, void *data, uint32_t len)
{
    memset(&rc->ccb, 0, sizeof rc->ccb);
    rc->ccb.func = PCAM_FN_SCSI_IO;
    rc->ccb.target = target;
    rc->ccb.lun = lun;
    memcpy(rc->ccb.u.io.cdb, cdb, cdb_len);
    rc->ccb.u.io.cdb_len = cdb_len;
    rc->ccb.u.io.dir = dir;
    rc->ccb.u.io.data = data;
    rc->ccb.u.io.data_len = len;
    rc->ccb.u.io.retries = 4;
    rc->done_count = 0;
}

static inline void erig_submit(erig *r, erig_ccb *rc)
{
    rc->ccb.done = erig_done;
    pcam_action(&r->bus, &rc->ccb);
    r->deadline = pcam_bus_next_deadline(&r->bus);
}

static inline void erig_sync_done(erig_ccb *rc)
{
    *(bool *)rc->test = true;
}

/* Submit and run until done; the CCB status, or 0xFFFFFFFF if it never completed. */
static inline uint32_t erig_sync(erig *r, erig_ccb *rc, uint64_t limit_ns)
{
    bool done = false;
    rc->test = &done;
    rc->on_done = erig_sync_done;
    erig_submit(r, rc);
    erig_run_until_flag(r, &done, limit_ns);
    rc->test = NULL;
    rc->on_done = NULL;
    return done ? rc->ccb.status : 0xFFFFFFFFu;
}

static inline uint32_t erig_scan(erig *r)
{
    erig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    return erig_sync(r, &scan, ERIG_S(60));
}

/* READ(10)/WRITE(10) of `blocks` at `lba`; returns the CCB status. */
static inline uint32_t erig_rw(erig *r, uint8_t id, uint8_t lun, bool write, uint32_t lba,
                               uint16_t blocks, void *buf)
{
    uint8_t cdb[10];
    erig_ccb rc;
    memset(cdb, 0, sizeof cdb);
    cdb[0] = write ? 0x2A : 0x28;
    cdb[2] = (uint8_t)(lba >> 24);
    cdb[3] = (uint8_t)(lba >> 16);
    cdb[4] = (uint8_t)(lba >> 8);
    cdb[5] = (uint8_t)lba;
    cdb[7] = (uint8_t)(blocks >> 8);
    cdb[8] = (uint8_t)blocks;
    erig_io(&rc, id, lun, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, blocks * 512u);
    return erig_sync(r, &rc, ERIG_S(10));
}

/* Fail loudly with the model's last complaint. */
static inline void erig_print_model_errors(const erig *r)
{
    if (espm_errors(r->model) != 0)
        fprintf(stderr, "model: %llu protocol errors, last: %s\n",
                (unsigned long long)espm_errors(r->model), espm_last_error(r->model));
}

#endif /* PCAM_ESP_RIG_H */
