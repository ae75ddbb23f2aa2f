/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transfer negotiation driven by an arbitrary target: the input picks the
 * chip's caps, then a sequence of events for one target of a zeroed bus
 * (our start, target SDTR/WDTR/PPR or raw bytes, MESSAGE REJECT, no answer,
 * parity errors, resets, new user limits). After every step the harness
 * checks the module's invariants:
 *  - every agreement programmed into the chip is within the chip caps, and
 *    the parts of it that changed are within the user limits (except an
 *    answer to a message sent before the user changed the limits);
 *  - offset 0 iff asynchronous (period 0, no options), everywhere;
 *  - goal within user within caps;
 *  - at most one message in flight: never "wanted" while one is, and a
 *    second start writes nothing;
 *  - every message written is one well-formed SDTR/WDTR/PPR, inside its
 *    buffer, within caps and user limits, and an answer to a target's
 *    request is never more aggressive than the request.
 *
 * Input: flags, min_period, max_offset, misc (bit 0: 16 IDs; bits 1-3:
 * parity step-down threshold), then operations (see the switch).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/nego/nego.h"
#include "pcam/pcam_msg.h"

#define T 5
#define CANARY 0xEE

static pcam_bus bus;
static struct {
    pcam_hal_xfer_params prog; /* last programmed */
    bool stale;                /* user changed while our message was in flight */
    bool in_call;              /* set_xfer expected only inside module calls */
} h;

static void check_caps_params(uint8_t period, uint8_t offset, uint8_t width, uint8_t options)
{
    const pcam_hal_caps *c = &bus.caps;
    uint8_t opt_caps = 0;
    uint8_t chip_min = c->min_period > 8 ? c->min_period : 8;

    if ((c->flags & PCAM_HAL_CAP_DT) != 0)
        opt_caps |= PCAM_PPR_DT_REQ;
    if ((c->flags & PCAM_HAL_CAP_IU) != 0)
        opt_caps |= PCAM_PPR_IU_REQ;
    if ((c->flags & PCAM_HAL_CAP_QAS) != 0)
        opt_caps |= PCAM_PPR_QAS_REQ;
    if ((offset == 0) != (period == 0))
        abort(); /* offset 0 iff asynchronous */
    if (offset == 0 && options != 0)
        abort();
    if (offset != 0) {
        if ((c->flags & PCAM_HAL_CAP_SYNC) == 0 || offset > c->max_offset || period < chip_min)
            abort();
        if (period < 0x0A && (options & PCAM_PPR_DT_REQ) == 0)
            abort();
    }
    if (width > 1 || (width == 1 && ((c->flags & PCAM_HAL_CAP_WIDE) == 0 || c->max_targets != 16)))
        abort();
    if ((options & (uint8_t)~opt_caps) != 0)
        abort();
    if (options != 0 && (width == 0 || (options & PCAM_PPR_DT_REQ) == 0))
        abort();
}

static void check_within_user(uint8_t period, uint8_t offset, uint8_t width, uint8_t options)
{
    pcam_xfer_settings u;
    pcam_nego_get(&bus, T, PCAM_TRAN_USER, &u);
    if (offset != 0 && (period < u.period || offset > u.offset))
        abort();
    if (width > u.width || (options & (uint8_t)~u.ppr_options) != 0)
        abort();
}

static int fake_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *p)
{
    (void)sc;
    if (target != T || !h.in_call)
        abort();
    check_caps_params(p->period, p->offset, p->width, p->ppr_options);
    if (!h.stale) {
        pcam_xfer_settings u;
        pcam_nego_get(&bus, T, PCAM_TRAN_USER, &u);
        if (p->offset != 0 && (p->period != h.prog.period || p->offset != h.prog.offset) &&
            (p->period < u.period || p->offset > u.offset))
            abort();
        if (p->width != h.prog.width && p->width > u.width)
            abort();
        if (p->ppr_options != 0 && (p->ppr_options & (uint8_t)~u.ppr_options) != 0 &&
            memcmp(p, &h.prog, sizeof *p) != 0)
            abort();
    }
    h.prog = *p;
    return 0;
}

static const pcam_hal_ops fake_ops = {.set_xfer = fake_set_xfer};

static uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return 0;
}

static void check_settings(const pcam_xfer_settings *s)
{
    check_caps_params(s->period, s->offset, s->width, s->ppr_options);
}

static void check_state(void)
{
    pcam_xfer_settings u, g, c;
    pcam_nego_get(&bus, T, PCAM_TRAN_USER, &u);
    pcam_nego_get(&bus, T, PCAM_TRAN_GOAL, &g);
    pcam_nego_get(&bus, T, PCAM_TRAN_CURRENT, &c);
    check_settings(&u);
    check_settings(&g);
    check_settings(&c);
    check_within_user(g.period, g.offset, g.width, g.ppr_options);
    if (c.period != h.prog.period || c.offset != h.prog.offset || c.width != h.prog.width ||
        c.ppr_options != h.prog.ppr_options)
        abort(); /* current changed without programming the chip */
    if (pcam_nego_in_flight(&bus, T) && pcam_nego_wanted(&bus, T))
        abort();
    if (!pcam_nego_in_flight(&bus, T))
        h.stale = false;
}

/* A message the module wrote: one well-formed negotiation message. */
static void check_written(const uint8_t *buf, int rc, size_t cap, size_t room, pcam_msg *out)
{
    size_t used = 0;
    if (rc <= 0)
        abort();
    if ((size_t)rc > cap)
        abort();
    for (size_t i = (size_t)rc; i < room; i++)
        if (buf[i] != CANARY)
            abort();
    if (pcam_msg_decode(buf, (size_t)rc, out, &used) != 0 || used != (size_t)rc)
        abort();
    switch (out->kind) {
    case PCAM_MSGK_SDTR:
        if (out->sdtr.offset != 0)
            check_caps_params(out->sdtr.period, out->sdtr.offset, 0, 0);
        else if (out->sdtr.period != 0)
            abort();
        check_within_user(out->sdtr.period, out->sdtr.offset, 0, 0);
        break;
    case PCAM_MSGK_WDTR:
        check_caps_params(0, 0, out->wdtr_width_exp, 0);
        check_within_user(0, 0, out->wdtr_width_exp, 0);
        break;
    case PCAM_MSGK_PPR:
        check_caps_params(out->ppr.period, out->ppr.offset, out->ppr.width_exp, out->ppr.options);
        check_within_user(out->ppr.period, out->ppr.offset, out->ppr.width_exp, out->ppr.options);
        break;
    default:
        abort();
    }
}

static void do_start(size_t cap)
{
    uint8_t buf[PCAM_MSGOUT_BYTES];
    pcam_msg m;
    bool was_in_flight = pcam_nego_in_flight(&bus, T);
    bool wanted = pcam_nego_wanted(&bus, T);
    int rc;

    memset(buf, CANARY, sizeof buf);
    h.in_call = true;
    rc = pcam_nego_start(&bus, T, buf, cap);
    h.in_call = false;
    if (rc == 0 || rc == PCAM_ERR_NOSPACE) {
        for (size_t i = 0; i < sizeof buf; i++)
            if (buf[i] != CANARY)
                abort();
        if (rc == 0 && wanted)
            abort();
        if (rc == PCAM_ERR_NOSPACE && (!wanted || pcam_nego_in_flight(&bus, T)))
            abort();
        return;
    }
    if (rc < 0 || was_in_flight || !wanted)
        abort();
    check_written(buf, rc, cap, sizeof buf, &m);
    if (!pcam_nego_in_flight(&bus, T))
        abort();
    h.stale = false;
}

static void do_msg_in(const uint8_t *msg, size_t len, size_t cap)
{
    uint8_t reply[PCAM_MSGOUT_BYTES];
    pcam_msg in, out;
    size_t used = 0;
    bool was_in_flight = pcam_nego_in_flight(&bus, T);
    int rc;

    memset(reply, CANARY, sizeof reply);
    h.in_call = true;
    rc = pcam_nego_msg_in(&bus, T, msg, len, reply, cap);
    h.in_call = false;
    if (rc < -1)
        abort();
    if (rc <= 0) {
        for (size_t i = 0; i < sizeof reply; i++)
            if (reply[i] != CANARY)
                abort();
        return;
    }
    check_written(reply, rc, cap, sizeof reply, &out);
    if (pcam_msg_decode(msg, len, &in, &used) != 0 || used != len)
        abort(); /* answered something unreadable */
    if (was_in_flight) {
        /* Only our SDTR after the target's WDTR answer. */
        if (in.kind != PCAM_MSGK_WDTR || out.kind != PCAM_MSGK_SDTR || !pcam_nego_in_flight(&bus, T))
            abort();
        h.stale = false;
        return;
    }
    if (in.kind != out.kind || pcam_nego_in_flight(&bus, T))
        abort();
    /* Never more aggressive than the request. */
    switch (in.kind) {
    case PCAM_MSGK_SDTR:
        if (out.sdtr.offset > in.sdtr.offset ||
            (out.sdtr.offset != 0 && out.sdtr.period < in.sdtr.period))
            abort();
        break;
    case PCAM_MSGK_WDTR:
        if (out.wdtr_width_exp > in.wdtr_width_exp)
            abort();
        break;
    default:
        if (out.ppr.offset > in.ppr.offset || out.ppr.width_exp > in.ppr.width_exp ||
            (out.ppr.options & (uint8_t)~in.ppr.options) != 0 ||
            (out.ppr.offset != 0 && out.ppr.period < in.ppr.period))
            abort();
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t i = 4;

    if (size < 4)
        return 0;
    memset(&bus, 0, sizeof bus);
    memset(&h, 0, sizeof h);
    bus.caps.flags = data[0];
    bus.caps.min_period = data[1];
    bus.caps.max_offset = data[2];
    bus.caps.max_targets = (data[3] & 1) ? 16 : 8;
    bus.cfg.parity_stepdown = (uint8_t)((data[3] >> 1) & 7);
    bus.hal.ops = &fake_ops;
    bus.plat.now_ns = fake_now;
    h.in_call = true;
    pcam_nego_init(&bus, T);
    h.in_call = false;
    check_state();

#define NEED(n) \
    do { \
        if (size - i < (n)) \
            return 0; \
    } while (0)

    while (i < size) {
        uint8_t op = data[i++];
        uint8_t m[12];
        switch (op % 12) {
        case 0: /* our start, into a buffer of 0..16 bytes */
            NEED(1);
            do_start(data[i++] % (PCAM_MSGOUT_BYTES + 1));
            break;
        case 1: /* target SDTR */
            NEED(2);
            m[0] = 0x01; m[1] = 0x03; m[2] = 0x01; m[3] = data[i]; m[4] = data[i + 1];
            i += 2;
            do_msg_in(m, 5, PCAM_MSGOUT_BYTES);
            break;
        case 2: /* target WDTR */
            NEED(1);
            m[0] = 0x01; m[1] = 0x02; m[2] = 0x03; m[3] = data[i++];
            do_msg_in(m, 4, PCAM_MSGOUT_BYTES);
            break;
        case 3: /* target PPR */
            NEED(4);
            m[0] = 0x01; m[1] = 0x06; m[2] = 0x04; m[3] = data[i]; m[4] = 0;
            m[5] = data[i + 1]; m[6] = data[i + 2]; m[7] = data[i + 3];
            i += 4;
            do_msg_in(m, 8, PCAM_MSGOUT_BYTES);
            break;
        case 4: { /* raw bytes */
            NEED(1);
            size_t n = data[i++] % 12;
            NEED(n);
            memcpy(m, data + i, n);
            i += n;
            do_msg_in(n ? m : data, n, PCAM_MSGOUT_BYTES);
            break;
        }
        case 5:
            h.in_call = true;
            pcam_nego_rejected(&bus, T);
            h.in_call = false;
            break;
        case 6:
            h.in_call = true;
            pcam_nego_no_answer(&bus, T);
            h.in_call = false;
            break;
        case 7:
            h.in_call = true;
            pcam_nego_parity(&bus, T);
            h.in_call = false;
            break;
        case 8:
            h.in_call = true;
            pcam_nego_invalidate(&bus, T);
            h.in_call = false;
            break;
        case 9: { /* new user limits */
            pcam_xfer_settings s;
            NEED(5);
            s.period = data[i];
            s.offset = data[i + 1];
            s.width = data[i + 2];
            s.ppr_options = data[i + 3];
            s.disconnect = (data[i + 4] & 1) != 0;
            s.tagged = (data[i + 4] & 2) != 0;
            i += 5;
            if (pcam_nego_in_flight(&bus, T))
                h.stale = true;
            h.in_call = true;
            pcam_nego_set_user(&bus, T, &s);
            h.in_call = false;
            break;
        }
        case 10: /* target SDTR with a small reply buffer */
            NEED(3);
            m[0] = 0x01; m[1] = 0x03; m[2] = 0x01; m[3] = data[i]; m[4] = data[i + 1];
            do_msg_in(m, 5, data[i + 2] % 9);
            i += 3;
            break;
        default: { /* the target echoes what we would send (an exact accept) */
            uint8_t buf[PCAM_MSGOUT_BYTES];
            pcam_msg dec;
            size_t used = 0;
            memset(buf, 0, sizeof buf);
            if (!pcam_nego_in_flight(&bus, T)) {
                do_start(PCAM_MSGOUT_BYTES);
                if (!pcam_nego_in_flight(&bus, T))
                    break;
            }
            /* Rebuild the message in flight from the goal it was made of. */
            {
                pcam_xfer_settings g, c;
                int n;
                pcam_nego_get(&bus, T, PCAM_TRAN_GOAL, &g);
                pcam_nego_get(&bus, T, PCAM_TRAN_CURRENT, &c);
                if (g.ppr_options != 0 || (g.offset != 0 && g.period < 0x0A))
                    n = pcam_msg_build_ppr(buf, sizeof buf, g.period, g.offset, g.width, g.ppr_options);
                else if (g.width != c.width)
                    n = pcam_msg_build_wdtr(buf, sizeof buf, g.width);
                else
                    n = pcam_msg_build_sdtr(buf, sizeof buf, g.period, g.offset);
                if (n > 0 && pcam_msg_decode(buf, (size_t)n, &dec, &used) == 0)
                    do_msg_in(buf, (size_t)n, PCAM_MSGOUT_BYTES);
            }
            break;
        }
        }
        check_state();
    }
    return 0;
}
