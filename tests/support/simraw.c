/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * simraw: the scripted initiator of the simulated bus's own tests (see
 * simraw.h). It is deliberately simple and trusting: it is here to drive
 * the bus, not to be a second core.
 */
#include <stdlib.h>
#include <string.h>

#include "simraw.h"
#include "pcam/pcam_msg.h"

void simraw_init(simraw *r, pcam_sim *sim)
{
    memset(r, 0, sizeof *r);
    r->sim = sim;
    pcam_sim_get_hal(sim, &r->hal);
    r->wait_limit_ns = 10000000000ull;
}

int simraw_wait(simraw *r)
{
    uint64_t limit = pcam_sim_now(r->sim) + r->wait_limit_ns;

    memset(&r->ev, 0, sizeof r->ev);
    while (!pcam_sim_event_pending(r->sim)) {
        uint64_t t = pcam_sim_next_time(r->sim);

        if (t == UINT64_MAX || t > limit) {
            pcam_sim_advance(r->sim, limit);
            if (!pcam_sim_event_pending(r->sim))
                return PCAM_HAL_EV_NONE;
            break;
        }
        pcam_sim_advance(r->sim, t);
    }
    if (r->hal.ops->poll(r->hal.sc, &r->ev) != 1)
        return PCAM_HAL_EV_NONE;
    if (r->ev.type == PCAM_HAL_EV_GROSS_ERROR)
        r->gross_errors++;
    return r->ev.type;
}

int simraw_select(simraw *r, uint8_t target, bool atn, const uint8_t *msg, uint8_t msg_len,
                  const uint8_t *cdb, uint8_t cdb_len)
{
    pcam_hal_select sel;
    memset(&sel, 0, sizeof sel); /* may_accept and any field added later: off */

    memset(&sel, 0, sizeof sel);
    sel.target = target;
    sel.atn = atn;
    sel.msg = msg;
    sel.msg_len = msg_len;
    sel.cdb = cdb;
    sel.cdb_len = cdb_len;
    if (r->hal.ops->select(r->hal.sc, &sel) < 0)
        return simraw_wait(r);
    return simraw_wait(r);
}

int simraw_xfer(simraw *r, pcam_phase phase, void *buf, uint32_t offset, uint32_t len)
{
    pcam_sg sg;
    pcam_hal_xfer x;
    memset(&x, 0, sizeof x); /* may_accept and any field added later: off */

    sg.addr = buf;
    sg.len = offset + len;
    memset(&x, 0, sizeof x);
    x.phase = phase;
    x.sg = &sg;
    x.sg_count = 1;
    x.offset = offset;
    x.len = len;
    (void)r->hal.ops->transfer(r->hal.sc, &x);
    return simraw_wait(r);
}

int simraw_msg_in(simraw *r)
{
    (void)r->hal.ops->msg_in(r->hal.sc);
    return simraw_wait(r);
}

int simraw_accept(simraw *r, bool atn)
{
    (void)r->hal.ops->msg_accept(r->hal.sc, atn);
    return simraw_wait(r);
}

int simraw_msg_out(simraw *r, const uint8_t *msg, size_t len)
{
    (void)r->hal.ops->msg_out(r->hal.sc, msg, len);
    return simraw_wait(r);
}

uint8_t simraw_build_msgs(const simraw_cmd *c, uint8_t *msg, size_t cap)
{
    size_t n = 0;

    if (cap < 3u + c->extra_len)
        return 0;
    msg[n++] = (uint8_t)(PCAM_MSG_IDENTIFY | (c->disc ? PCAM_MSG_IDENTIFY_DISCPRIV : 0) | (c->lun & 7u));
    if (c->tag_type != 0) {
        msg[n++] = c->tag_type;
        msg[n++] = c->tag;
    }
    if (c->extra_len != 0 && c->extra_msg != NULL) {
        memcpy(msg + n, c->extra_msg, c->extra_len);
        n += c->extra_len;
    }
    return (uint8_t)n;
}

/* ---- the phase follower ---- */

static void chip_mode(simraw *r, uint8_t target, const pcam_msg *m)
{
    pcam_hal_xfer_params p;

    pcam_sim_chip_xfer(r->sim, target, &p);
    switch (m->kind) {
    case PCAM_MSGK_SDTR:
        p.offset = m->sdtr.offset;
        p.period = m->sdtr.offset != 0 ? m->sdtr.period : 0;
        p.ppr_options = 0;
        break;
    case PCAM_MSGK_WDTR:
        memset(&p, 0, sizeof p);
        p.width = m->wdtr_width_exp;
        break;
    case PCAM_MSGK_PPR:
        p.offset = m->ppr.offset;
        p.period = m->ppr.offset != 0 ? m->ppr.period : 0;
        p.width = m->ppr.width_exp;
        p.ppr_options = m->ppr.offset != 0 ? m->ppr.options : 0;
        break;
    default:
        return;
    }
    (void)r->hal.ops->set_xfer(r->hal.sc, target, &p);
}

static void chip_fallback(simraw *r, uint8_t target, uint8_t ext)
{
    pcam_hal_xfer_params p;

    pcam_sim_chip_xfer(r->sim, target, &p);
    if (ext == PCAM_EXT_SDTR) {
        p.period = 0;
        p.offset = 0;
        p.ppr_options = 0;
    } else {
        memset(&p, 0, sizeof p);
    }
    (void)r->hal.ops->set_xfer(r->hal.sc, target, &p);
}

static void note_msg(simraw_cmd *c, uint8_t b)
{
    if (c != NULL && c->nmsgs < (int)sizeof c->msgs)
        c->msgs[c->nmsgs++] = b;
}

/* Read one whole message and act on it; r->ev then holds the next event. */
static int read_message(simraw *r, simraw_cmd *c, uint8_t target)
{
    pcam_msg_parser p;
    pcam_msg m;
    int rc;

    pcam_msg_parser_init(&p);
    for (;;) {
        uint8_t out[8];

        if (simraw_msg_in(r) != PCAM_HAL_EV_MSG_BYTE)
            return -1;
        if (r->ev.parity_error && !r->no_parity_recovery) {
            if (c != NULL)
                c->parity_errors++;
            if (simraw_accept(r, true) != PCAM_HAL_EV_PHASE)
                return -1;
            out[0] = PCAM_MSG_MESSAGE_PARITY_ERROR;
            (void)simraw_msg_out(r, out, 1);
            return 0;
        }
        rc = pcam_msg_parser_feed(&p, r->ev.byte, &m);
        if (rc > 0) {
            if (simraw_accept(r, false) != PCAM_HAL_EV_PHASE)
                return -1;
            continue;
        }
        if (rc < 0) {
            if (simraw_accept(r, true) != PCAM_HAL_EV_PHASE)
                return -1;
            out[0] = PCAM_MSG_MESSAGE_REJECT;
            (void)simraw_msg_out(r, out, 1);
            return 0;
        }
        note_msg(c, m.code);
        switch (m.kind) {
        case PCAM_MSGK_COMMAND_COMPLETE:
            if (c != NULL)
                c->done = true;
            (void)simraw_accept(r, false);
            return 0;
        case PCAM_MSGK_DISCONNECT:
            if (c != NULL) {
                c->disconnected = true;
                c->disconnects++;
            }
            (void)simraw_accept(r, false);
            return 0;
        case PCAM_MSGK_SAVE_DATA_POINTER:
            if (c != NULL)
                c->saved = c->ptr;
            break;
        case PCAM_MSGK_RESTORE_POINTERS:
            if (c != NULL)
                c->ptr = c->saved;
            break;
        case PCAM_MSGK_MESSAGE_REJECT:
            if (c != NULL)
                c->rejects++;
            if (r->nego_ext != 0) {
                chip_fallback(r, target, r->nego_ext);
                r->nego_ext = 0;
            }
            break;
        case PCAM_MSGK_SDTR:
        case PCAM_MSGK_WDTR:
        case PCAM_MSGK_PPR:
            if (r->nego_ext == m.ext_code) {
                r->nego_ext = 0;
                chip_mode(r, target, &m);
                break;
            }
            /* The target started it: answer with ATN raised before ACK goes. */
            if (simraw_accept(r, true) != PCAM_HAL_EV_PHASE)
                return -1;
            if (r->reject_target_nego) {
                out[0] = PCAM_MSG_MESSAGE_REJECT;
                chip_fallback(r, target, m.ext_code);
                (void)simraw_msg_out(r, out, 1);
            } else {
                uint8_t len = (uint8_t)m.length;
                uint8_t echo[8];

                if (m.kind == PCAM_MSGK_SDTR)
                    len = (uint8_t)pcam_msg_build_sdtr(echo, sizeof echo, m.sdtr.period, m.sdtr.offset);
                else
                    len = (uint8_t)pcam_msg_build_wdtr(echo, sizeof echo, m.wdtr_width_exp);
                chip_mode(r, target, &m);
                (void)simraw_msg_out(r, echo, len);
            }
            return 0;
        case PCAM_MSGK_IGNORE_WIDE_RESIDUE:
            if (c != NULL && c->ptr >= m.residue)
                c->ptr -= m.residue;
            break;
        default:
            break;
        }
        return simraw_accept(r, false) < 0 ? -1 : 0;
    }
}

static simraw_cmd *find_out(simraw *r, uint8_t target, uint8_t lun, bool tagged, uint8_t tag)
{
    int i;

    for (i = 0; i < r->nout; i++) {
        simraw_cmd *c = r->out[i];
        if (c->target == target && c->lun == lun && (c->tag_type != 0) == tagged &&
            (!tagged || c->tag == tag)) {
            r->out[i] = r->out[--r->nout];
            return c;
        }
    }
    return NULL;
}

/* Follow phases from the event in r->ev until BUS FREE. */
static int follow(simraw *r, simraw_cmd *c, uint8_t target)
{
    uint8_t nop = PCAM_MSG_NO_OPERATION, abort_msg = PCAM_MSG_ABORT_TASK;
    int guard;

    for (guard = 0; guard < 100000; guard++) {
        int t = r->ev.type;

        if (t == PCAM_HAL_EV_BUS_FREE) {
            if (c == NULL)
                return 0;
            if (c->done) {
                c->done_ns = pcam_sim_now(r->sim);
                return 0;
            }
            if (c->disconnected) {
                if (r->nout < SIMRAW_MAX_OUT)
                    r->out[r->nout++] = c;
                return 0;
            }
            c->failed = true;
            c->end_event = t;
            return -1;
        }
        if (t != PCAM_HAL_EV_SELECT_DONE && t != PCAM_HAL_EV_XFER_DONE && t != PCAM_HAL_EV_MSGOUT_DONE &&
            t != PCAM_HAL_EV_PHASE) {
            if (c != NULL) {
                c->failed = true;
                c->end_event = t;
            }
            return -1;
        }
        switch (r->ev.phase) {
        case PCAM_PHASE_DATA_IN:
        case PCAM_PHASE_DATA_OUT:
            if (c == NULL || c->ptr >= c->len) {
                (void)r->hal.ops->set_atn(r->hal.sc);
                (void)simraw_msg_out(r, &abort_msg, 1);
                break;
            }
            (void)simraw_xfer(r, r->ev.phase, c->buf, c->ptr, c->len - c->ptr);
            if (r->ev.type == PCAM_HAL_EV_XFER_DONE || r->ev.type == PCAM_HAL_EV_BUS_FREE)
                c->ptr += r->ev.count;
            if (r->ev.type == PCAM_HAL_EV_XFER_DONE && r->ev.parity_error) {
                uint8_t ide = PCAM_MSG_INITIATOR_DETECTED_ERROR;

                c->parity_errors++;
                if (!r->no_parity_recovery) {
                    (void)r->hal.ops->set_atn(r->hal.sc);
                    (void)simraw_msg_out(r, &ide, 1);
                }
            }
            break;
        case PCAM_PHASE_STATUS: {
            uint8_t st = 0xFF;

            if (simraw_xfer(r, PCAM_PHASE_STATUS, &st, 0, 1) == PCAM_HAL_EV_XFER_DONE && c != NULL)
                c->status = st;
            break;
        }
        case PCAM_PHASE_COMMAND:
            if (c == NULL) {
                (void)r->hal.ops->set_atn(r->hal.sc);
                (void)simraw_msg_out(r, &abort_msg, 1);
                break;
            }
            (void)simraw_xfer(r, PCAM_PHASE_COMMAND, (void *)c->cdb, 0, c->cdb_len);
            break;
        case PCAM_PHASE_MSG_IN:
            if (read_message(r, c, target) < 0) {
                if (c != NULL) {
                    c->failed = true;
                    c->end_event = r->ev.type;
                }
                return -1;
            }
            break;
        case PCAM_PHASE_MSG_OUT:
            (void)simraw_msg_out(r, &nop, 1);
            break;
        default: /* reserved phase or bus free without the event */
            if (c != NULL) {
                c->failed = true;
                c->end_event = -(int)r->ev.phase;
            }
            return -1;
        }
    }
    return -1;
}

/* After RESELECTED in r->ev: IDENTIFY, tag, then the command's phases. */
static int reselected(simraw *r)
{
    uint8_t target = r->ev.target, identify = r->ev.byte, lun = identify & 7u, tag = 0, abort_msg;
    bool tagged = false;
    simraw_cmd *c;

    if (r->ev.parity_error && !r->no_parity_recovery) {
        uint8_t mpe = PCAM_MSG_MESSAGE_PARITY_ERROR;

        if (simraw_accept(r, true) != PCAM_HAL_EV_PHASE)
            return -1;
        if (simraw_msg_out(r, &mpe, 1) != PCAM_HAL_EV_MSGOUT_DONE || simraw_msg_in(r) != PCAM_HAL_EV_MSG_BYTE)
            return -1;
        identify = r->ev.byte;
        lun = identify & 7u;
    }
    if (simraw_accept(r, false) != PCAM_HAL_EV_PHASE)
        return -1;
    if (r->ev.phase == PCAM_PHASE_MSG_IN) {
        if (simraw_msg_in(r) != PCAM_HAL_EV_MSG_BYTE)
            return -1;
        if (r->ev.byte >= PCAM_MSG_SIMPLE_TAG && r->ev.byte <= PCAM_MSG_ORDERED_TAG) {
            if (simraw_accept(r, false) != PCAM_HAL_EV_PHASE || simraw_msg_in(r) != PCAM_HAL_EV_MSG_BYTE)
                return -1;
            tagged = true;
            tag = r->ev.byte;
            c = find_out(r, target, lun, true, tag);
            if (c == NULL) {
                r->unknown_reselections++;
                abort_msg = PCAM_MSG_ABORT_TASK;
                (void)simraw_accept(r, true);
                (void)simraw_msg_out(r, &abort_msg, 1);
                return r->ev.type == PCAM_HAL_EV_BUS_FREE ? 1 : -1;
            }
            c->reselections++;
            c->disconnected = false;
            c->ptr = c->saved;
            if (simraw_accept(r, false) != PCAM_HAL_EV_PHASE)
                return -1;
            return follow(r, c, target) < 0 ? -1 : 1;
        }
        /* Not a tag: an untagged nexus; the byte is the next message. */
        c = find_out(r, target, lun, false, 0);
        if (c == NULL) {
            r->unknown_reselections++;
            abort_msg = PCAM_MSG_ABORT_TASK_SET;
            (void)simraw_accept(r, true);
            (void)simraw_msg_out(r, &abort_msg, 1);
            return r->ev.type == PCAM_HAL_EV_BUS_FREE ? 1 : -1;
        }
        /* Put the byte back the simple way: reject nothing, accept it as the first message. */
        c->reselections++;
        c->disconnected = false;
        c->ptr = c->saved;
        note_msg(c, r->ev.byte);
        if (r->ev.byte == PCAM_MSG_COMMAND_COMPLETE)
            c->done = true;
        if (simraw_accept(r, false) < 0)
            return -1;
        return follow(r, c, target) < 0 ? -1 : 1;
    }
    (void)tagged;
    c = find_out(r, target, lun, false, 0);
    if (c == NULL) {
        r->unknown_reselections++;
        abort_msg = PCAM_MSG_ABORT_TASK_SET;
        (void)r->hal.ops->set_atn(r->hal.sc);
        (void)simraw_msg_out(r, &abort_msg, 1);
        return r->ev.type == PCAM_HAL_EV_BUS_FREE ? 1 : -1;
    }
    c->reselections++;
    c->disconnected = false;
    c->ptr = c->saved;
    return follow(r, c, target) < 0 ? -1 : 1;
}

int simraw_start(simraw *r, simraw_cmd *c)
{
    uint8_t msg[64], n;
    int guard;

    c->status = -1;
    c->ptr = 0;
    c->saved = 0;
    n = simraw_build_msgs(c, msg, sizeof msg);
    if (c->extra_len >= 3 && c->extra_msg != NULL && c->extra_msg[0] == PCAM_MSG_EXTENDED)
        r->nego_ext = c->extra_msg[2];
    for (guard = 0; guard < 1000; guard++) {
        int t = simraw_select(r, c->target, true, msg, n, c->cdb, c->cdb_len);

        if (t == PCAM_HAL_EV_RESELECTED) {
            if (reselected(r) < 0)
                return -1;
            continue;
        }
        if (t == PCAM_HAL_EV_SEL_TIMEOUT || t == PCAM_HAL_EV_NONE || t == PCAM_HAL_EV_GROSS_ERROR ||
            t == PCAM_HAL_EV_BUS_RESET) {
            c->failed = true;
            c->end_event = t;
            return -1;
        }
        return follow(r, c, c->target);
    }
    return -1;
}

int simraw_serve(simraw *r)
{
    int t = simraw_wait(r);

    if (t == PCAM_HAL_EV_NONE)
        return 0;
    if (t != PCAM_HAL_EV_RESELECTED)
        return -1;
    return reselected(r);
}

int simraw_drain(simraw *r)
{
    int served = 0, rc;

    while (r->nout > 0) {
        rc = simraw_serve(r);
        if (rc <= 0)
            return rc < 0 ? -1 : served;
        served++;
    }
    return served;
}

int simraw_run(simraw *r, simraw_cmd *c)
{
    if (simraw_start(r, c) < 0)
        return -1;
    while (!c->done && !c->failed) {
        if (simraw_serve(r) <= 0)
            return -1;
    }
    return c->done ? 0 : -1;
}

int simraw_simple(simraw *r, uint8_t target, const uint8_t *cdb, uint8_t cdb_len, uint8_t *buf,
                  uint32_t len, simraw_cmd *out)
{
    memset(out, 0, sizeof *out);
    out->target = target;
    out->cdb = cdb;
    out->cdb_len = cdb_len;
    out->buf = buf;
    out->len = len;
    return simraw_run(r, out);
}

void simraw_cmd_init(simraw_cmd *c, uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len,
                     uint8_t *buf, uint32_t len)
{
    memset(c, 0, sizeof *c);
    c->target = target;
    c->lun = lun;
    c->cdb = cdb;
    c->cdb_len = cdb_len;
    c->buf = buf;
    c->len = len;
    c->status = -1;
}

uint8_t simraw_pattern(uint8_t id, uint8_t lun, uint32_t offset)
{
    return (uint8_t)(offset * 7u + id + lun * 13u + (offset >> 9));
}

uint8_t *simraw_add_disk(pcam_sim *sim, uint8_t id, uint8_t lun, const pcam_sim_target_config *tc,
                         uint32_t blocks, uint64_t overhead_ns)
{
    pcam_sim_target_config def;
    pcam_simlu *lu;
    uint8_t *store;
    uint32_t i;

    if (pcam_sim_target_cfg(sim, id) == NULL) {
        if (tc == NULL) {
            pcam_sim_target_config_defaults(&def);
            def.ua_power_on = false;
            tc = &def;
        }
        if (pcam_sim_add_target(sim, id, tc) != 0)
            return NULL;
    }
    store = malloc((size_t)blocks * 512u);
    if (store == NULL)
        return NULL;
    for (i = 0; i < blocks * 512u; i++)
        store[i] = simraw_pattern(id, lun, i);
    lu = pcam_sim_lu(sim, id, lun);
    if (lu == NULL) {
        free(store);
        return NULL;
    }
    pcam_simlu_init_disk(lu, store, blocks, 512, "PCAM", "SIMDISK", "SN0001");
    memset(&lu->timing, 0, sizeof lu->timing);
    lu->timing.overhead_ns = overhead_ns;
    return store;
}

int simraw_sense(simraw *r, uint8_t target, uint8_t lun, uint8_t sense[18])
{
    static const uint8_t rs[6] = {0x03, 0, 0, 0, 18, 0};
    simraw_cmd c;

    simraw_cmd_init(&c, target, lun, rs, 6, sense, 18);
    memset(sense, 0, 18);
    if (simraw_run(r, &c) != 0 || c.status != 0)
        return -1;
    return (int)c.ptr;
}
