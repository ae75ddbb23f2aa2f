/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The three buses the soak runs on, each driven the way an interrupt-mode
 * shim drives it (pcam_bus_intr() while an interrupt is pending,
 * pcam_bus_tick() at the core's deadlines, otherwise simulated time moves
 * on to the next happening):
 *   phase  the core's engine on hal/sim's phase-level chip;
 *   cmd    the core's decision entry points behind hal/sim's command-level
 *          adapter (sim_cmdlevel), which runs the phases itself;
 *   esp    hal/esp on the register-level ESP/AM53C974 model of tests/esp
 *          (compiled into pcambench from there), on the same bus and targets.
 * Test tooling only: it never decides anything the core should.
 */
#include "soak.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PCAMSOAK_HAVE_ESP
#include "pcam/pcam_esp.h"
#include "espmodel.h"

typedef struct soak_esp {
    espm *model;
    pcam_esp esp;
    pcam_hal hal;
} soak_esp;
#endif

const char *soak_kind_name(soak_kind k)
{
    switch (k) {
    case SOAK_PHASE: return "phase";
    case SOAK_CMD: return "cmd";
    case SOAK_ESP: return "esp";
    default: return "?";
    }
}

static bool bring_up(soak_path *p, const pcam_hal *hal, const pcam_platform *plat,
                     const pcam_bus_config *cfg)
{
    pcam_hal_caps caps;
    hal->ops->get_caps(hal->sc, &caps);
    p->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg->luns_per_target);
    p->luns = calloc(p->nluns, sizeof *p->luns);
    if (p->luns == NULL)
        return false;
    int rc = pcam_bus_init(&p->bus, cfg, hal, plat, p->luns, p->nluns);
    if (rc != PCAM_OK) {
        fprintf(stderr, "soak: pcam_bus_init failed (%d)\n", rc);
        return false;
    }
    p->deadline = pcam_bus_next_deadline(&p->bus);
    return true;
}

bool soak_path_init(soak_path *p, soak_kind kind, uint64_t seed, const pcam_bus_config *cfg)
{
    pcam_sim_config sc;
    pcam_hal hal;
    pcam_platform plat;

    memset(p, 0, sizeof *p);
    p->kind = kind;
    pcam_sim_config_defaults(&sc);
    sc.seed = seed;
    sc.trace_entries = 0;
    /* The ESP model is an 8-bit chip; the others run a narrow bus too, so
     * the three soaks see the same targets. */
    sc.width = 8;
    sc.initiator_id = 7;
    p->sim = pcam_sim_create(&sc);
    if (p->sim == NULL)
        return false;
    switch (kind) {
    case SOAK_PHASE:
        pcam_sim_get_hal(p->sim, &hal);
        pcam_sim_get_platform(p->sim, &plat);
        return bring_up(p, &hal, &plat, cfg);
    case SOAK_CMD: {
        pcam_simcmd_config ac;
        pcam_simcmd_config_defaults(&ac);
        pcam_simcmd *a = pcam_simcmd_create(p->sim, &ac);
        if (a == NULL)
            return false;
        p->extra = a;
        pcam_simcmd_get_hal(a, &hal);
        pcam_sim_get_platform(p->sim, &plat);
        return bring_up(p, &hal, &plat, cfg);
    }
    case SOAK_ESP: {
#ifdef PCAMSOAK_HAVE_ESP
        espm_config mc;
        pcam_esp_config ec;
        soak_esp *e = calloc(1, sizeof *e);
        if (e == NULL)
            return false;
        p->extra = e;
        memset(&mc, 0, sizeof mc);
        mc.chip = ESPM_AM53C974;
        mc.clock_khz = 40000;
        mc.initiator_id = 7;
        e->model = espm_create(p->sim, &mc);
        if (e->model == NULL)
            return false;
        espm_get_platform(e->model, &plat);
        memset(&ec, 0, sizeof ec);
        ec.chip = PCAM_ESP_AUTO;
        ec.base = espm_base(e->model);
        ec.stride = (uint8_t)espm_stride(e->model);
        ec.clock_khz = 40000;
        ec.initiator_id = 7;
        ec.use_dma = true;
        if (pcam_esp_attach(&e->esp, &ec, &plat, &e->hal) != PCAM_OK)
            return false;
        return bring_up(p, &e->hal, &plat, cfg);
#else
        fprintf(stderr, "soak: this pcambench was built without hal/esp and its model\n");
        return false;
#endif
    }
    default:
        return false;
    }
}

void soak_path_fini(soak_path *p)
{
    if (p->luns != NULL)
        pcam_bus_shutdown(&p->bus);
    if (p->kind == SOAK_CMD && p->extra != NULL)
        pcam_simcmd_destroy(p->extra);
#ifdef PCAMSOAK_HAVE_ESP
    if (p->kind == SOAK_ESP && p->extra != NULL) {
        soak_esp *e = p->extra;
        if (e->model != NULL)
            espm_destroy(e->model);
        free(e);
    }
#endif
    if (p->sim != NULL)
        pcam_sim_destroy(p->sim);
    free(p->luns);
    memset(p, 0, sizeof *p);
}

static bool irq_pending(const soak_path *p)
{
#ifdef PCAMSOAK_HAVE_ESP
    if (p->kind == SOAK_ESP)
        return espm_irq(((const soak_esp *)p->extra)->model);
#endif
    return pcam_sim_event_pending(p->sim);
}

static uint64_t next_time(const soak_path *p)
{
#ifdef PCAMSOAK_HAVE_ESP
    if (p->kind == SOAK_ESP)
        return espm_next_time(((const soak_esp *)p->extra)->model);
#endif
    return pcam_sim_next_time(p->sim);
}

static void advance(soak_path *p, uint64_t t)
{
#ifdef PCAMSOAK_HAVE_ESP
    if (p->kind == SOAK_ESP) {
        espm_advance(((soak_esp *)p->extra)->model, t);
        return;
    }
#endif
    pcam_sim_advance(p->sim, t);
}

bool soak_path_step(soak_path *p)
{
    if (irq_pending(p)) {
        pcam_bus_intr(&p->bus);
        p->deadline = pcam_bus_next_deadline(&p->bus);
        return true;
    }
    uint64_t now = pcam_sim_now(p->sim);
    uint64_t t = next_time(p);
    uint64_t d = pcam_bus_next_deadline(&p->bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        return false;
    if (t < now)
        t = now;
    advance(p, t);
    if (d <= t)
        pcam_bus_tick(&p->bus);
    p->deadline = pcam_bus_next_deadline(&p->bus);
    return true;
}
