/* SPDX-License-Identifier: BSD-2-Clause */
/* The hal/sim fixture for the FreeBSD shim tests (fbsd_simfx.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fbsd_simfx.h"

static bool fx_step(void *ctx)
{
    fbsd_fx *f = (fbsd_fx *)ctx;
    /* The model calls the translator directly, so the cached deadline may be stale. */
    f->r.deadline = pcam_bus_next_deadline(&f->r.bus);
    if (!f->poll_only)
        return simrig_step(&f->r);
    if (pcam_fbsd_poll(&f->m.sim)) {
        if (f->r.violation == NULL)
            f->r.violation = pcam_bus_check_invariants(&f->r.bus);
        return true;
    }
    uint64_t now = pcam_sim_now(f->r.sim);
    uint64_t t = pcam_sim_next_time(f->r.sim);
    uint64_t d = pcam_bus_next_deadline(&f->r.bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        return false;
    pcam_sim_advance(f->r.sim, t < now ? now : t);
    return true;
}

static uint64_t fx_now(void *ctx)
{
    return pcam_sim_now(((fbsd_fx *)ctx)->r.sim);
}

fbsd_fx *fx_new(const pcam_sim_config *scfg, const pcam_bus_config *bcfg)
{
    fbsd_fx *f = calloc(1, sizeof *f);
    if (f == NULL || simrig_init(&f->r, scfg, bcfg, false) != 0)
        abort();
    cm_init(&f->m, &f->r.bus, fx_step, fx_now, f);
    return f;
}

void fx_free(fbsd_fx *f)
{
    /* The core's own invariants held after every step the harness took. */
    if (f->r.violation != NULL)
        fail_msg("core invariant violated: %s", f->r.violation);
    simrig_fini(&f->r);
    free(f);
}

uint8_t *fx_disk(fbsd_fx *f, uint8_t id, uint8_t lun, uint64_t blocks, bool ua)
{
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    uint8_t *s = simrig_add_disk(&f->r, id, lun, blocks, &tc);
    if (s == NULL)
        abort();
    /* The target drops a LUN's power-on UNIT ATTENTION unless ua_power_on: keep it on and decide per LUN. */
    pcam_sim_target_cfg(f->r.sim, id)->ua_power_on = true;
    pcam_sim_lu(f->r.sim, id, lun)->ua_pending = ua;
    return s;
}

bool fx_media_ok(fbsd_fx *f, uint8_t id, uint8_t lun, uint32_t lba, const uint8_t *buf, size_t len)
{
    const uint8_t *s = f->r.stores[id][lun];
    return s != NULL && memcmp(s + (size_t)lba * 512u, buf, len) == 0;
}
