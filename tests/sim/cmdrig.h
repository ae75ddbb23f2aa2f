/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core on the simulated bus through the command-level adapter
 * (hal/sim/sim_cmdlevel.c) instead of the phase-level chip: the shared
 * simrig drives it (its stepping only needs the bus and the sim), this
 * header only builds it with the adapter's back-end. Shared by the
 * test_core_cmdlevel*.c scenarios.
 */
#ifndef PCAM_CMDRIG_H
#define PCAM_CMDRIG_H

#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "simrig.h"

typedef struct cmdrig {
    simrig r;
    pcam_simcmd *a;
} cmdrig;

static inline int cmdrig_init(cmdrig *c, const pcam_sim_config *scfg, const pcam_bus_config *bcfg,
                              const pcam_simcmd_config *acfg, bool polled)
{
    pcam_hal hal;
    pcam_platform plat;
    pcam_hal_caps caps;
    pcam_bus_config cfg;
    simrig *r = &c->r;

    memset(c, 0, sizeof *c);
    r->sim = pcam_sim_create(scfg);
    if (r->sim == NULL)
        return PCAM_ERR_RANGE;
    c->a = pcam_simcmd_create(r->sim, acfg);
    if (c->a == NULL)
        return PCAM_ERR_RANGE;
    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = polled;
    r->polled = polled;
    pcam_simcmd_get_hal(c->a, &hal);
    pcam_sim_get_platform(r->sim, &plat);
    hal.ops->get_caps(hal.sc, &caps);
    r->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    r->luns = calloc(r->nluns, sizeof *r->luns);
    if (r->luns == NULL)
        return PCAM_ERR_NOSPACE;
    /* The invariant walk is most of a Valgrind run: every 16th step there. */
    r->check_every = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 16 : 1;
    int rc = pcam_bus_init(&r->bus, &cfg, &hal, &plat, r->luns, r->nluns);
    r->deadline = pcam_bus_next_deadline(&r->bus);
    return rc;
}

static inline void cmdrig_fini(cmdrig *c)
{
    pcam_simcmd *a = c->a;
    simrig_fini(&c->r); /* shuts the bus down while the adapter still exists */
    pcam_simcmd_destroy(a);
}

static inline pcam_simcmd_stats cmdrig_stats(const cmdrig *c)
{
    pcam_simcmd_stats s;
    pcam_simcmd_stats_get(c->a, &s);
    return s;
}

static inline uint32_t cmdrig_scan(cmdrig *c)
{
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    return rig_sync(&c->r, &scan, RIG_S(60));
}

/* A READ(10) or WRITE(10) of `blocks` 512-byte blocks at `lba`. */
static inline void cmdrig_rw(rig_ccb *rc, bool write, uint8_t target, uint8_t lun, uint32_t lba,
                             uint32_t blocks, void *buf)
{
    uint8_t cdb[16];
    memset(rc, 0, sizeof *rc); /* no stale on_done / test from the stack */
    int n = write ? pcam_cdb_write(cdb, sizeof cdb, 10, lba, blocks, 0)
                  : pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    rig_ccb_io(rc, target, lun, cdb, (uint8_t)n, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, blocks * 512u);
}

/* Byte i of a medium simrig_add_disk made for (target, lun). */
static inline uint8_t cmdrig_pattern(uint8_t target, uint8_t lun, size_t i)
{
    return (uint8_t)(i * 7u + target * 13u + lun);
}

static inline bool cmdrig_under_memcheck(void)
{
    return getenv("PCAM_UNDER_MEMCHECK") != NULL;
}

#endif /* PCAM_CMDRIG_H */
