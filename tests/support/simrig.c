/* SPDX-License-Identifier: BSD-2-Clause */
/* Harness around pcam on the simulated bus (see simrig.h). */
#include "ccbfill.h"
#include "simrig.h"

#include <stdlib.h>
#include <string.h>

static void refresh(simrig *r);

int simrig_init(simrig *r, const pcam_sim_config *scfg, const pcam_bus_config *bcfg, bool polled)
{
    pcam_hal hal;
    pcam_platform plat;
    pcam_hal_caps caps;
    pcam_bus_config cfg;

    pcam_sim_config sc;
    const char *chain = getenv("PCAM_SIM_CHAIN");

    memset(r, 0, sizeof *r);
    if (scfg != NULL)
        sc = *scfg;
    else
        pcam_sim_config_defaults(&sc);
    /* The chip reads status and message bytes itself (pcam_hal.h, chained
     * endings) unless PCAM_SIM_CHAIN=0: CTest runs some suites both ways. */
    const char *level = getenv("PCAM_SIM_LEVEL");
    bool cmd = level != NULL && strcmp(level, "cmd") == 0;
    sc.chain_endings = !cmd && (chain == NULL || strcmp(chain, "0") != 0);
    r->sim = pcam_sim_create(&sc);
    r->chained = sc.chain_endings;
    if (r->sim == NULL)
        return PCAM_ERR_RANGE;
    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = polled;
    r->polled = polled;
    /* PCAM_SIM_LEVEL=cmd: the core's decision entry points behind hal/sim's
     * command-level (mailbox) adapter, which runs the phases itself (on a
     * chip that does not chain: the adapter reads each byte); so
     * scripts/bench.sh measures that path with the same workloads. */
    if (cmd) {
#if PCAM_CFG_CMDLEVEL
        pcam_simcmd_config ac;
        pcam_simcmd_config_defaults(&ac);
        r->cmd = pcam_simcmd_create(r->sim, &ac);
        if (r->cmd == NULL)
            return PCAM_ERR_NOSPACE;
        pcam_simcmd_get_hal(r->cmd, &hal);
#else
        return PCAM_ERR_UNSUPPORTED; /* a core built without the command-level profile */
#endif
    } else {
        pcam_sim_get_hal(r->sim, &hal);
    }
    pcam_sim_get_platform(r->sim, &plat);
    hal.ops->get_caps(hal.sc, &caps);
    r->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    r->luns = calloc(r->nluns, sizeof *r->luns);
    if (r->luns == NULL)
        return PCAM_ERR_NOSPACE;
    r->check_every = 1;
    int rc = pcam_bus_init(&r->bus, &cfg, &hal, &plat, r->luns, r->nluns);
    refresh(r);
    return rc;
}

void simrig_fini(simrig *r)
{
    pcam_bus_shutdown(&r->bus);
#if PCAM_CFG_CMDLEVEL
    if (r->cmd != NULL)
        pcam_simcmd_destroy(r->cmd);
#endif
    pcam_sim_destroy(r->sim);
    for (unsigned i = 0; i < PCAM_SIM_MAX_IDS; i++)
        for (unsigned l = 0; l < PCAM_SIM_LUNS; l++)
            free(r->stores[i][l]);
    free(r->luns);
    memset(r, 0, sizeof *r);
}

uint8_t *simrig_add_disk(simrig *r, uint8_t id, uint8_t lun, uint64_t blocks,
                         const pcam_sim_target_config *tc)
{
    if (pcam_sim_target_cfg(r->sim, id) == NULL && pcam_sim_add_target(r->sim, id, tc) != 0)
        return NULL;
    uint8_t *store = malloc((size_t)blocks * 512u);
    if (store == NULL)
        return NULL;
    for (size_t i = 0; i < (size_t)blocks * 512u; i++)
        store[i] = (uint8_t)(i * 7u + id * 13u + lun);
    char serial[21];
    serial[0] = 'S';
    serial[1] = (char)('0' + id / 10);
    serial[2] = (char)('0' + id % 10);
    serial[3] = (char)('0' + lun);
    serial[4] = '\0';
    pcam_simlu_init_disk(pcam_sim_lu(r->sim, id, lun), store, blocks, 512, "PCAMSIM", "DISK", serial);
    r->stores[id][lun] = store;
    return store;
}

/* The core's deadline only changes inside its entry points, so ask once
 * after each call instead of on every step (a shim does the same). */
static void refresh(simrig *r)
{
    r->deadline = pcam_bus_next_deadline(&r->bus);
}

static void verify(simrig *r)
{
    if (r->check_every == 0 || r->violation != NULL || r->steps % r->check_every != 0)
        return;
    r->violation = pcam_bus_check_invariants(&r->bus);
}

static void check(simrig *r)
{
    refresh(r);
    verify(r);
}

bool simrig_step(simrig *r)
{
    r->steps++;
    if (!r->polled && pcam_sim_event_pending(r->sim)) {
        pcam_bus_intr(&r->bus);
        check(r);
        return true;
    }
    if (r->polled && pcam_bus_poll(&r->bus)) {
        check(r);
        return true;
    }
    uint64_t now = pcam_sim_now(r->sim);
    uint64_t t = pcam_sim_next_time(r->sim);
    uint64_t d = r->deadline;
    if (d < t)
        t = d;
    if (t == UINT64_MAX) {
        /* A test may have called the core directly: ask before giving up. */
        refresh(r);
        d = r->deadline;
        t = d;
        if (t == UINT64_MAX)
            return false;
    }
    if (t < now)
        t = now;
    pcam_sim_advance(r->sim, t);
    if (!r->polled && d <= t) {
        pcam_bus_tick(&r->bus);
        check(r);
    } else {
        if (!r->lazy_deadline)
            refresh(r); /* a test may have called the core itself */
        verify(r);
    }
    return true;
}

bool simrig_run_until_flag(simrig *r, const bool *flag, uint64_t until_ns)
{
    while (!*flag) {
        if (pcam_sim_now(r->sim) > until_ns || !simrig_step(r))
            return *flag;
    }
    return true;
}

bool simrig_run_until_count(simrig *r, const uint64_t *count, uint64_t target, uint64_t until_ns)
{
    while (*count < target) {
        if (pcam_sim_now(r->sim) > until_ns || !simrig_step(r))
            return *count >= target;
    }
    return true;
}

static void rig_done(pcam_ccb *ccb)
{
    rig_ccb *rc = (rig_ccb *)ccb; /* ccb is the first member */
    rc->done_count++;
    if (rc->on_done != NULL)
        rc->on_done(rc);
}

void rig_ccb_io(rig_ccb *rc, uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len,
                pcam_dir dir, void *data, uint32_t len)
{
    ccbfill_io(&rc->ccb, target, lun, cdb, cdb_len, dir, data, len);
    rc->done_count = 0;
}

void rig_submit(simrig *r, rig_ccb *rc)
{
    rc->ccb.done = rig_done;
    rc->submit_ns = pcam_sim_now(r->sim);
    pcam_action(&r->bus, &rc->ccb);
    refresh(r);
}

static void sync_done(rig_ccb *rc)
{
    *(bool *)rc->test = true;
}

uint32_t rig_sync(simrig *r, rig_ccb *rc, uint64_t limit_ns)
{
    bool done = false;
    void *saved_test = rc->test;
    void (*saved_cb)(rig_ccb *) = rc->on_done;
    rc->test = &done;
    rc->on_done = sync_done;
    rig_submit(r, rc);
    simrig_run_until_flag(r, &done, pcam_sim_now(r->sim) + limit_ns);
    rc->test = saved_test;
    rc->on_done = saved_cb;
    return done ? rc->ccb.status : 0xFFFFFFFFu;
}
