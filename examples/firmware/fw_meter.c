/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_meter.c: an ops table that stands between the core and a phase-level
 * back-end (hal/esp) and counts the instructions spent inside the
 * back-end's ops, so the figures can give the core's own share: pcam's
 * instructions minus these. A phase-level back-end never calls back into
 * the core, so the split is exact there; a script-level one (hal/sym) does
 * (its poll completes commands through pcam_bus_hal_done()), so it is not
 * wrapped. It must only forward: no op is changed, added or dropped.
 */
#include "fw.h"

uint64_t fw_backend_insns;
static const pcam_hal_ops *real;

#define METER(expr)                                      \
    do {                                                 \
        uint64_t t0_ = board_instret();                  \
        expr;                                            \
        fw_backend_insns += (uint32_t)(board_instret() - t0_); \
    } while (0)

static void m_get_caps(void *sc, pcam_hal_caps *caps) { METER(real->get_caps(sc, caps)); }
static int m_reset_chip(void *sc) { int r; METER(r = real->reset_chip(sc)); return r; }
static int m_reset_bus(void *sc) { int r; METER(r = real->reset_bus(sc)); return r; }
static int m_select(void *sc, const pcam_hal_select *s) { int r; METER(r = real->select(sc, s)); return r; }
static int m_transfer(void *sc, const pcam_hal_xfer *x) { int r; METER(r = real->transfer(sc, x)); return r; }
static int m_msg_out(void *sc, const uint8_t *m, size_t n) { int r; METER(r = real->msg_out(sc, m, n)); return r; }
static int m_msg_in(void *sc) { int r; METER(r = real->msg_in(sc)); return r; }
static int m_msg_accept(void *sc, bool atn) { int r; METER(r = real->msg_accept(sc, atn)); return r; }
static int m_set_atn(void *sc) { int r; METER(r = real->set_atn(sc)); return r; }
static int m_set_xfer(void *sc, uint8_t t, const pcam_hal_xfer_params *p)
{
    int r;
    METER(r = real->set_xfer(sc, t, p));
    return r;
}
static int m_poll(void *sc, pcam_hal_event *ev) { int r; METER(r = real->poll(sc, ev)); return r; }

static const pcam_hal_ops metered = {
    m_get_caps, m_reset_chip, m_reset_bus, m_select, m_transfer, m_msg_out,
    m_msg_in, m_msg_accept, m_set_atn, m_set_xfer, m_poll,
};

void fw_meter_wrap(pcam_hal *hal)
{
    real = hal->ops;
    hal->ops = &metered;
}
