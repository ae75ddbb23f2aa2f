/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pcam_hal adapter of the simulated bus: each op is the function-level
 * initiator call of the same name (pcam_sim_i_*), and the platform services
 * give the core the simulated clock.
 */
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

static void hal_get_caps(void *sc, pcam_hal_caps *caps)
{
    pcam_sim_i_caps(sc, caps);
}

static int hal_reset_chip(void *sc)
{
    return pcam_sim_i_reset_chip(sc);
}

static int hal_reset_bus(void *sc)
{
    return pcam_sim_i_reset_bus(sc);
}

static int hal_select(void *sc, const pcam_hal_select *sel)
{
    return pcam_sim_i_select(sc, sel);
}

static int hal_transfer(void *sc, const pcam_hal_xfer *xfer)
{
    return pcam_sim_i_transfer(sc, xfer);
}

static int hal_msg_out(void *sc, const uint8_t *msg, size_t len)
{
    return pcam_sim_i_msg_out(sc, msg, len);
}

static int hal_msg_in(void *sc)
{
    return pcam_sim_i_msg_in(sc);
}

static int hal_msg_accept(void *sc, bool atn)
{
    return pcam_sim_i_msg_accept(sc, atn);
}

static int hal_set_atn(void *sc)
{
    return pcam_sim_i_set_atn(sc);
}

static int hal_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *params)
{
    return pcam_sim_i_set_xfer(sc, target, params);
}

static int hal_poll(void *sc, pcam_hal_event *ev)
{
    return pcam_sim_i_poll(sc, ev);
}

static const pcam_hal_ops sim_hal_ops = {
    hal_get_caps, hal_reset_chip, hal_reset_bus, hal_select,   hal_transfer, hal_msg_out,
    hal_msg_in,   hal_msg_accept, hal_set_atn,   hal_set_xfer, hal_poll,
};

void pcam_sim_get_hal(pcam_sim *s, pcam_hal *out)
{
    if (out == NULL)
        return;
    out->ops = &sim_hal_ops;
    out->sc = s;
    out->cmd = NULL; /* phase level: the core drives every phase */
}

/* ---- platform ---- */

static uint64_t plat_now(void *ctx)
{
    return pcam_sim_now(ctx);
}

void sim_log_line(pcam_sim *s, pcam_log_level level, const char *line)
{
    static const char *const lv[] = {"E", "W", "I", "D"};

    if (s == NULL || !s->cfg.verbose || line == NULL)
        return;
    fprintf(stderr, "%10llu.%03u us  [%s] %s\n", (unsigned long long)(s->now / 1000u),
            (unsigned)(s->now % 1000u), (unsigned)level < 4 ? lv[level] : "?", line);
}

static void plat_log(void *ctx, pcam_log_level level, const char *line)
{
    sim_log_line(ctx, level, line);
}

void pcam_sim_get_platform(pcam_sim *s, pcam_platform *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    out->ctx = s;
    out->now_ns = plat_now;
    out->log = plat_log;
}
