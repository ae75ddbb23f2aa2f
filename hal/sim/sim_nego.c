/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How a simulated target answers SDTR, WDTR and PPR, and the negotiation it
 * starts itself. Rules from SPI-3 (4.11-4.13):
 * - an answer is never faster, wider or with a larger offset than asked;
 * - WDTR resets the synchronous agreement to asynchronous;
 * - SDTR is ST only: factors below 0x0A need PPR with DT;
 * - DT needs a wide bus; factor 0x09 needs DT, 0x08 needs IU (and DT);
 * - offset 0 means asynchronous, whatever the period.
 * The agreement takes effect when the answer goes out; a MESSAGE REJECT of
 * it (or no answer to the target's own request) falls back to
 * asynchronous / narrow, which is what both sides then use.
 */
#include <string.h>

#include "sim_internal.h"

static uint8_t max8(uint8_t a, uint8_t b)
{
    return a > b ? a : b;
}

static uint8_t min8(uint8_t a, uint8_t b)
{
    return a < b ? a : b;
}

void simn_reset(sim_target *t)
{
    memset(&t->agreed, 0, sizeof t->agreed);
}

static void set_sync(sim_target *t, uint8_t period, uint8_t offset, uint8_t options)
{
    t->agreed.offset = offset;
    t->agreed.period = offset != 0 ? period : 0;
    t->agreed.ppr_options = offset != 0 ? options : 0;
}

static void build(sim_msg *m, int len, sim_msg_kind kind)
{
    m->len = len > 0 ? (uint8_t)len : 0;
    m->kind = (uint8_t)kind;
}

static void reject(sim_msg *m)
{
    memset(m, 0, sizeof *m);
    m->b[0] = PCAM_MSG_MESSAGE_REJECT;
    m->len = 1;
    m->kind = MK_REJECT;
}

static bool can_sync(const sim_target *t)
{
    return t->cfg.min_period != 0 && t->cfg.max_offset != 0;
}

bool simn_answer(sim_target *t, const pcam_msg *m, bool bus_wide, sim_msg *reply)
{
    const pcam_sim_target_config *c = &t->cfg;
    pcam_sim_nego how;
    uint8_t period, offset, width, opts;

    memset(reply, 0, sizeof *reply);
    how = m->kind == PCAM_MSGK_SDTR ? c->sdtr : m->kind == PCAM_MSGK_WDTR ? c->wdtr : c->ppr;
    if (how == PCAM_SIM_NEGO_IGNORE)
        return false;
    if (how == PCAM_SIM_NEGO_REJECT) {
        if (m->kind == PCAM_MSGK_SDTR)
            set_sync(t, 0, 0, 0);
        else
            simn_reset(t);
        reject(reply);
        return true;
    }
    switch (m->kind) {
    case PCAM_MSGK_SDTR:
        period = max8(max8(m->sdtr.period, c->min_period), 0x0A);
        offset = min8(m->sdtr.offset, c->max_offset);
        if (how == PCAM_SIM_NEGO_COUNTER) {
            period = max8(period, c->counter_period);
            offset = min8(offset, c->counter_offset);
        }
        if (!can_sync(t))
            offset = 0;
        set_sync(t, period, offset, 0);
        build(reply, pcam_msg_build_sdtr(reply->b, sizeof reply->b, period, offset), MK_NEGO_REPLY);
        return true;
    case PCAM_MSGK_WDTR:
        width = min8(m->wdtr_width_exp, PCAM_WIDTH_16BIT);
        if (!c->wide || !bus_wide || how == PCAM_SIM_NEGO_COUNTER)
            width = PCAM_WIDTH_8BIT;
        simn_reset(t);
        t->agreed.width = width;
        build(reply, pcam_msg_build_wdtr(reply->b, sizeof reply->b, width), MK_NEGO_REPLY);
        return true;
    default: /* PPR */
        width = min8(m->ppr.width_exp, PCAM_WIDTH_16BIT);
        if (!c->wide || !bus_wide)
            width = PCAM_WIDTH_8BIT;
        opts = m->ppr.options & c->ppr_options;
        period = max8(m->ppr.period, c->min_period);
        offset = min8(m->ppr.offset, c->max_offset);
        if (how == PCAM_SIM_NEGO_COUNTER) {
            period = max8(period, c->counter_period);
            offset = min8(offset, c->counter_offset);
            opts &= PCAM_PPR_DT_REQ;
        }
        if (width == PCAM_WIDTH_8BIT)
            opts &= (uint8_t)~(PCAM_PPR_DT_REQ | PCAM_PPR_IU_REQ);
        if (!(opts & PCAM_PPR_DT_REQ))
            opts &= (uint8_t)~PCAM_PPR_IU_REQ;
        if (!(opts & PCAM_PPR_DT_REQ) && period < 0x0A)
            period = 0x0A;
        if (period < 0x09)
            period = (opts & PCAM_PPR_IU_REQ) ? 0x08 : 0x09;
        if (!can_sync(t))
            offset = 0;
        if (offset == 0)
            opts = 0;
        t->agreed.width = width;
        set_sync(t, period, offset, opts);
        build(reply, pcam_msg_build_ppr(reply->b, sizeof reply->b, period, offset, width, opts),
              MK_NEGO_REPLY);
        return true;
    }
}

void simn_build_init(const sim_target *t, uint8_t ext, bool bus_wide, sim_msg *out)
{
    const pcam_sim_target_config *c = &t->cfg;

    memset(out, 0, sizeof *out);
    if (ext == PCAM_EXT_WDTR) {
        uint8_t w = c->wide && bus_wide ? PCAM_WIDTH_16BIT : PCAM_WIDTH_8BIT;
        build(out, pcam_msg_build_wdtr(out->b, sizeof out->b, w), MK_NEGO_INIT);
        return;
    }
    build(out,
          pcam_msg_build_sdtr(out->b, sizeof out->b, max8(c->min_period, 0x0A),
                              can_sync(t) ? c->max_offset : 0),
          MK_NEGO_INIT);
}

bool simn_take_answer(sim_target *t, uint8_t asked, const pcam_msg *m)
{
    const pcam_sim_target_config *c = &t->cfg;

    if (asked == PCAM_EXT_WDTR && m->kind == PCAM_MSGK_WDTR) {
        if (m->wdtr_width_exp > (c->wide ? PCAM_WIDTH_16BIT : PCAM_WIDTH_8BIT)) {
            simn_reset(t);
            return false;
        }
        simn_reset(t);
        t->agreed.width = m->wdtr_width_exp;
        return true;
    }
    if (asked == PCAM_EXT_SDTR && m->kind == PCAM_MSGK_SDTR) {
        /* The answer may be slower or smaller, never faster or larger. */
        if (m->sdtr.offset > c->max_offset ||
            (m->sdtr.offset != 0 && m->sdtr.period < max8(c->min_period, 0x0A))) {
            set_sync(t, 0, 0, 0);
            return false;
        }
        set_sync(t, m->sdtr.period, m->sdtr.offset, 0);
        return true;
    }
    return false;
}

void simn_rejected(sim_target *t, uint8_t ext)
{
    if (ext == PCAM_EXT_SDTR)
        set_sync(t, 0, 0, 0);
    else
        simn_reset(t);
}
