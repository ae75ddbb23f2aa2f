/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The phase-level controller state machine. The engine starts one chip
 * action at a time and reacts to the one event it yields (pcam_hal.h);
 * every bus phase, including the unexpected ones, is decided here. How a
 * command's turn ends (status, autosense, bus free) is ending.c's, the
 * messages msgin.c's, the timeout ladder ladder.c's.
 */
#include "engine_internal.h"

void pcam_engine_init(pcam_bus *bus)
{
    bus->eng.state = ES_IDLE;
    bus->eng.action = ACT_NONE;
    bus->eng.conn_target = 0xFF;
    bus->eng.timer_ns = UINT64_MAX;
    bus->eng.hold_ns = UINT64_MAX;
    bus->hal.ops->reset_chip(bus->hal.sc);
}

/* ---- helpers shared by the engine files ---- */

uint64_t pcam_eng_issue_deadline(const pcam_bus *bus, const pcam_ccb *ccb, uint64_t now)
{
    uint64_t life = pcam_core_life_end(bus, ccb);
    uint64_t deadline = now + PCAM_MS(pcam_core_timeout_ms(bus, ccb));
    if (life <= now)
        return 0;
    return deadline < life ? deadline : life;
}

/* ---- starting work ---- */

static void add_msg(uint8_t *len, int n)
{
    if (n > 0)
        *len = (uint8_t)(*len + n);
}

void pcam_eng_select(pcam_bus *bus, pcam_ccb *ccb, uint8_t kind, uint8_t extra_msg)
{
    uint8_t *m = bus->eng.msgout;
    uint8_t len = 0;
    bool sense = (ccb->priv.flags & PCAM_CF_SENSE) != 0;
    /* Disconnect privilege only where the CCB and the user's limits for the
     * target (PCAM_FN_SET_TRAN, a card's NVRAM) both allow it. */
    bool disc = kind == SK_IO && !sense && (ccb->flags & PCAM_CCB_DIS_DISCONNECT) == 0 &&
                bus->targets[ccb->target].nego.user.disconnect;
    pcam_hal_select sel;

    add_msg(&len, pcam_msg_build_identify(m, PCAM_MSGOUT_BYTES, ccb->lun, disc));
    /* The tag names the nexus for the target; REQUEST SENSE for a contingent
     * allegiance goes untagged, as the standard wants. */
    bool wire_tagged = ccb->priv.tag_msg != 0 && (ccb->priv.flags & PCAM_CF_WIRE_UNTAGGED) == 0;
    if (wire_tagged && !sense && (kind == SK_IO || extra_msg == PCAM_MSG_ABORT_TASK))
        add_msg(&len, pcam_msg_build_tag(m + len, (size_t)(PCAM_MSGOUT_BYTES - len),
                                              ccb->priv.tag_msg, ccb->priv.tag));
    bus->eng.msg_tag_end = len;
    if (kind == SK_IO && !sense && pcam_nego_wanted(bus, ccb->target)) {
        int n = pcam_nego_start(bus, ccb->target, m + len, (size_t)(PCAM_MSGOUT_BYTES - len));
        if (n > 0) {
            len = (uint8_t)(len + n);
            ccb->priv.flags |= PCAM_CF_NEGO;
        }
    }
    if (extra_msg != 0)
        m[len++] = extra_msg;
    bus->eng.msg_end = len;

    sel.target = ccb->target;
    sel.atn = true;
    sel.msg = m;
    sel.msg_len = len;
    if (kind != SK_IO) {
        sel.cdb = NULL;
        sel.cdb_len = 0;
    } else if (sense) {
        sel.cdb = bus->eng.sense_cdb;
        sel.cdb_len = 6;
    } else {
        sel.cdb = ccb->u.io.cdb;
        sel.cdb_len = ccb->u.io.cdb_len;
    }
    /* With a nexus the core accepts COMMAND COMPLETE and DISCONNECT as
     * they come: a chaining back-end may do it itself (pcam_hal.h). */
    sel.may_accept = kind != SK_MGMT;
    bus->eng.sel_kind = kind;
    bus->eng.zero_xfers = 0;
    bus->eng.state = ES_SELECTING;
    bus->eng.conn_target = ccb->target;
    bus->eng.conn_lun = ccb->lun;
    bus->eng.last_msgout = 0;
    if (kind == SK_MGMT)
        bus->eng.mgmt_ccb = ccb;
    else
        bus->eng.nexus = ccb;
    pcam_eng_set_action(bus, ACT_SELECT, bus->hal.ops->select(bus->hal.sc, &sel));
}

static void start_sense(pcam_bus *bus, pcam_ccb *ccb)
{
    uint8_t alloc = ccb->u.io.sense_len;
    if ((ccb->priv.flags & PCAM_CF_BUS_SENSE) != 0)
        alloc = (uint8_t)sizeof bus->eng.sense_buf;
    bus->eng.sense_cdb[0] = 0x03; /* REQUEST SENSE */
    bus->eng.sense_cdb[1] = 0;
    bus->eng.sense_cdb[2] = 0;
    bus->eng.sense_cdb[3] = 0;
    bus->eng.sense_cdb[4] = alloc;
    bus->eng.sense_cdb[5] = 0;
    ccb->priv.data_ptr = 0;
    ccb->priv.saved_ptr = 0;
    ccb->priv.cdb_sent = 0;
    pcam_eng_select(bus, ccb, SK_IO, 0);
}

static void issue_io(pcam_bus *bus, pcam_ccb *ccb, uint64_t now)
{
    uint64_t deadline = pcam_eng_issue_deadline(bus, ccb, now);
    if (deadline == 0) {
        /* Its life in the core is over before it reached the target. */
        PCAM_COUNT(bus->targets[ccb->target], timeouts);
        pcam_core_event(bus, PCAM_EV_TIMEOUT, ccb->target, ccb->lun, ccb->priv.tag);
        ccb->u.io.recovery |= PCAM_RCV_NOT_ISSUED;
        pcam_eng_retire(bus, ccb, PCAM_CMD_TIMEOUT);
        return;
    }
    ccb->priv.deadline_ns = deadline;
    if (deadline < bus->eng.timer_ns)
        bus->eng.timer_ns = deadline;
    pcam_eng_reset_io_state(ccb);
    pcam_eng_select(bus, ccb, SK_IO, 0);
}

static void start_mgmt(pcam_bus *bus, pcam_ccb *ccb)
{
    uint8_t msg = (ccb->flags & PCAM_CCB_LUN_RESET) != 0 ? PCAM_MSG_LOGICAL_UNIT_RESET
                                                          : PCAM_MSG_TARGET_RESET;
    ccb->priv.tag_msg = 0;
    pcam_eng_mgmt_step_start(bus);
    pcam_eng_select(bus, ccb, SK_MGMT, msg);
}

/* Kept out of line so the quick "nothing to start" answer does not pay for
 * the loop's register saves on every chip event. */
#if defined(__GNUC__) || defined(__clang__)
#define ENG_NOINLINE __attribute__((__noinline__)) /* reserved spelling: kernels define noinline */
#else
#define ENG_NOINLINE
#endif
static ENG_NOINLINE void kick_loop(pcam_bus *bus);

/* pcam_engine_kick (engine.h) tests ES_IDLE and RS_NONE as 0. */
typedef char pcam_eng_idle_is_0[(ES_IDLE == 0 && RS_NONE == 0) ? 1 : -1];

void pcam_engine_kick_slow(pcam_bus *bus)
{
    if (pcam_dec_active(bus)) {
        pcam_dec_kick(bus); /* the chip runs the phases: whole commands go to it */
        return;
    }
    kick_loop(bus); /* it checks again that the bus is idle */
}

static ENG_NOINLINE void kick_loop(pcam_bus *bus)
{
    for (;;) {
        if (bus->eng.state != ES_IDLE || bus->eng.shut_down)
            return;
        /* Pending autosense first: the LUN is frozen until it is done. */
        if (bus->eng.sense_head != NULL) {
            pcam_ccb *c = bus->eng.sense_head;
            bus->eng.sense_head = c->priv.link2;
            c->priv.link2 = NULL;
            start_sense(bus, c);
            continue;
        }
        if (pcam_eng_start_recovery_io(bus))
            continue;
        if (bus->lad.step != RS_NONE)
            return; /* nothing new while a recovery step owns the bus */
        /* The kick runs after every chip event: when nothing can have
         * become issuable, answer without asking the clock. */
        if (bus->eng.mgmt.head == NULL && !pcam_q_dirty(bus))
            return;
        uint64_t now = pcam_core_now(bus);
        if (now < bus->lad.settle_until_ns)
            return;
        pcam_ccb *m = pcam_ccbq_pop_head(&bus->eng.mgmt);
        if (m != NULL) {
            start_mgmt(bus, m);
            continue;
        }
        pcam_ccb *c = pcam_q_next(bus, now);
        if (c == NULL)
            return;
        issue_io(bus, c, now);
    }
}

/* ---- phases ---- */

static const pcam_sg *io_sg(pcam_bus *bus, pcam_ccb *ccb, uint16_t *count)
{
    if (ccb->u.io.sg_count != 0) {
        *count = ccb->u.io.sg_count;
        return ccb->u.io.sg;
    }
    bus->eng.data_sg.addr = ccb->u.io.data;
    bus->eng.data_sg.len = ccb->u.io.data_len;
    *count = 1;
    return &bus->eng.data_sg;
}

static void start_xfer(pcam_bus *bus, pcam_phase phase, uint8_t kind, const pcam_sg *sg,
                       uint16_t count, uint32_t offset, uint32_t len)
{
    pcam_hal_xfer x;
    x.phase = phase;
    x.sg = sg;
    x.sg_count = count;
    x.offset = offset;
    x.len = len;
    x.may_accept = bus->eng.nexus != NULL && bus->eng.msgin_len == 0 && kind != XK_BUCKET;
    bus->eng.xfer_kind = kind;
    bus->eng.xfer_phase = (uint8_t)phase;
    pcam_eng_set_action(bus, ACT_XFER, bus->hal.ops->transfer(bus->hal.sc, &x));
}

/* Take or give bytes nobody wants so the target reaches MESSAGE OUT, where
 * the message queued with ATN (abort, reject) ends the nexus cleanly. */
static void bit_bucket(pcam_bus *bus, pcam_phase phase)
{
    bus->eng.cmd_sg.addr = bus->eng.scratch;
    bus->eng.cmd_sg.len = 1;
    bus->eng.scratch[0] = 0;
    start_xfer(bus, phase, XK_BUCKET, &bus->eng.cmd_sg, 1, 0, 1);
}

void pcam_eng_abandon_nexus(pcam_bus *bus, uint8_t msg)
{
    pcam_eng_queue_msgout(bus, &msg, 1);
    bus->hal.ops->set_atn(bus->hal.sc);
}

static void reset_for_phase(pcam_bus *bus, pcam_phase phase, const char *why);

static void data_phase(pcam_bus *bus, pcam_phase phase)
{
    pcam_ccb *c = bus->eng.nexus;
    if (c == NULL || (bus->eng.engine_flags & EGF_AWAIT_TAG) != 0) {
        if (phase == PCAM_PHASE_DATA_OUT) {
            /* It wants data for a task that is not ours (one we aborted
             * and it kept, or a lie): bytes from the bit bucket would be
             * written to its medium. Only RST ends it without (found by
             * pcambench --soak with targets deaf to ABORT TASK). */
            reset_for_phase(bus, phase, PCAM_LOG_TEXT("data out for a task that is not ours; resetting the bus"));
            return;
        }
        /* Data in with no nexus: a lying target. End it and keep the bus alive. */
        if (bus->eng.msgout_len == 0)
            pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK_SET);
        bit_bucket(bus, phase);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        bool own = (c->priv.flags & PCAM_CF_BUS_SENSE) != 0;
        uint32_t cap = own ? (uint32_t)sizeof bus->eng.sense_buf : c->u.io.sense_len;
        if (phase == PCAM_PHASE_DATA_IN && c->priv.data_ptr < cap) {
            bus->eng.cmd_sg.addr = own ? bus->eng.sense_buf : c->u.io.sense;
            bus->eng.cmd_sg.len = cap;
            start_xfer(bus, phase, XK_SENSE, &bus->eng.cmd_sg, 1, c->priv.data_ptr, cap - c->priv.data_ptr);
            return;
        }
    } else {
        pcam_phase want = c->u.io.dir == PCAM_DIR_IN ? PCAM_PHASE_DATA_IN : PCAM_PHASE_DATA_OUT;
        if (c->u.io.dir != PCAM_DIR_NONE && phase == want && c->priv.data_ptr < c->u.io.data_len) {
            uint16_t n;
            const pcam_sg *sg = io_sg(bus, c, &n);
            start_xfer(bus, phase, XK_DATA, sg, n, c->priv.data_ptr,
                       c->u.io.data_len - c->priv.data_ptr);
            return;
        }
        /* Wrong direction is a protocol error; the right one past the end is an overrun. */
        c->status = (c->u.io.dir != PCAM_DIR_NONE && phase == want) ? PCAM_DATA_RUN_ERR
                                                                     : PCAM_SEQUENCE_FAIL;
        c->priv.flags |= PCAM_CF_ABORT;
    }
    if (bus->eng.msgout_len == 0)
        pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK);
    bit_bucket(bus, phase);
}

static void reset_for_phase(pcam_bus *bus, pcam_phase phase, const char *why)
{
    pcam_core_event(bus, PCAM_EV_BAD_PHASE, bus->eng.conn_target, bus->eng.conn_lun, (uint32_t)phase);
    (pcam_core_log)(bus, PCAM_LOG_WARN, why, pcam_phase_name(phase)); /* why: PCAM_LOG_TEXT() */
    if (bus->eng.nexus != NULL && (bus->eng.nexus->priv.flags & PCAM_CF_ABORT) == 0) {
        bus->eng.nexus->priv.flags |= PCAM_CF_PARITY; /* reuse: "transport error, retry" */
        bus->eng.nexus->status = PCAM_SEQUENCE_FAIL;
    }
    /* A target in a reserved phase cannot be talked out of it: only RST ends it. */
    bus->lad.step = RS_BUS_RESET;
    bus->lad.ccb = NULL;
    bus->lad.deadline_ns = pcam_core_now(bus) + PCAM_MS(bus->cfg.abort_timeout_ms);
    bus->eng.state = ES_RESETTING;
    pcam_eng_set_action(bus, ACT_RESET, bus->hal.ops->reset_bus(bus->hal.sc));
}

static void illegal_phase(pcam_bus *bus, pcam_phase phase)
{
    reset_for_phase(bus, phase, PCAM_LOG_TEXT("illegal bus phase; resetting the bus"));
}

/* ---- chained endings: steps the back-end took after the action ---- */

static void on_xfer_done(pcam_bus *bus, const pcam_hal_event *ev);
static void msg_taken(pcam_bus *bus);

/* The phase the action itself ended in, before the back-end went on. */
static pcam_phase action_end_phase(const pcam_hal_event *ev)
{
    if ((ev->took & PCAM_HAL_TOOK_STATUS) != 0)
        return PCAM_PHASE_STATUS;
    if ((ev->took & PCAM_HAL_TOOK_MSG) != 0)
        return PCAM_PHASE_MSG_IN;
    return ev->phase;
}

void pcam_eng_after_action(pcam_bus *bus, const pcam_hal_event *ev)
{
    bus->eng.took = ev->took;
    if ((ev->took & PCAM_HAL_TOOK_MSG) == 0)
        bus->eng.took &= PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_STATUS_PARITY; /* nothing else without a byte */
    if (ev->took != 0) {
        bus->eng.took_status = (ev->took & PCAM_HAL_TOOK_TAG) != 0 ? ev->tag : ev->status;
        bus->eng.took_msg = ev->msg;
        bus->eng.took_phase = (uint8_t)ev->phase;
        if ((ev->took & (PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_MSG)) == PCAM_HAL_TOOK_MSG) {
            /* MESSAGE IN: of what pcam_eng_on_phase() does first only the
             * state applies there, so go straight to the byte. */
            bus->eng.state = ES_CONNECTED;
            msg_taken(bus);
            return;
        }
    }
    pcam_eng_on_phase(bus, action_end_phase(ev));
}

/* The status byte the back-end read: handled as the end of the status
 * transfer the core would have started, so nothing differs after it. */
static void status_taken(pcam_bus *bus)
{
    pcam_hal_event x = {
        .type = PCAM_HAL_EV_XFER_DONE,
        .phase = (pcam_phase)bus->eng.took_phase,
        .count = 1,
        .parity_error = (bus->eng.took & PCAM_HAL_TOOK_STATUS_PARITY) != 0,
        .took = (uint8_t)(bus->eng.took & (PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_MSG_PARITY |
                                       PCAM_HAL_TOOK_ACCEPTED)),
        .msg = bus->eng.took_msg,
    };
    bus->eng.took = 0;
    bus->eng.status_byte = bus->eng.took_status;
    bus->eng.xfer_kind = XK_STATUS;
    bus->eng.xfer_phase = (uint8_t)PCAM_PHASE_STATUS;
    on_xfer_done(bus, &x);
}

/* The first message byte the back-end took, ACK held: as if msg_in had
 * run. If the back-end also accepted it, the core's own accept of it (the
 * only answer it has to a COMMAND COMPLETE or DISCONNECT with a nexus) goes
 * on from where the back-end left the bus: pcam_eng_accepted(). */
static void msg_taken(pcam_bus *bus)
{
    pcam_hal_event x = {
        .type = PCAM_HAL_EV_MSG_BYTE,
        .phase = PCAM_PHASE_MSG_IN,
        .count = 1,
        .byte = bus->eng.took_msg,
        .parity_error = (bus->eng.took & PCAM_HAL_TOOK_MSG_PARITY) != 0,
    };
    if ((bus->eng.took & PCAM_HAL_TOOK_TAG) != 0) {
        /* A reselection's tag message: its code byte is accepted already,
         * so it goes where the core's own accept would have put it, and the
         * tag byte is the one held. */
        bus->eng.msgin[0] = bus->eng.took_msg;
        bus->eng.msgin_len = 1;
        x.byte = bus->eng.took_status;
    }
    bus->eng.took &= PCAM_HAL_TOOK_ACCEPTED;
    pcam_eng_msg_byte(bus, &x);
    if ((bus->eng.took & PCAM_HAL_TOOK_ACCEPTED) != 0) {
        /* It accepted a byte the core does not accept as it is: it broke
         * the contract, and the target has gone on without us. */
        bus->eng.took = 0;
        pcam_core_log(bus, PCAM_LOG_ERROR, "back-end accepted a message byte the core would not",
                      NULL);
        pcam_eng_fail_chip(bus);
    }
}

static void on_phase_event(pcam_bus *bus, const pcam_hal_event *ev);

void pcam_eng_accepted(pcam_bus *bus, bool atn)
{
    uint8_t took = bus->eng.took;
    pcam_hal_event x = {
        .type = PCAM_HAL_EV_PHASE,
        .phase = (pcam_phase)bus->eng.took_phase,
        .target = bus->eng.conn_target,
    };
    bus->eng.took = 0;
    bus->eng.action = ACT_NONE;
    if ((took & PCAM_HAL_TOOK_IDENTIFY) != 0 && (took & PCAM_HAL_TOOK_MSG) != 0) {
        /* A chained reselection: the target went on to a message after the
         * IDENTIFY. With the nexus known, that message is handled as if
         * the core's accept of the IDENTIFY had brought it. Refused (ATN),
         * the byte still held is answered with ATN instead, as the IDENTIFY
         * would have been, and the message is dropped unread. */
        if (!atn) {
            x.took = (uint8_t)(took & (PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_MSG_PARITY |
                                       PCAM_HAL_TOOK_TAG | PCAM_HAL_TOOK_ACCEPTED));
            x.msg = bus->eng.took_msg;
            x.tag = bus->eng.took_status;
            pcam_eng_after_action(bus, &x);
            return;
        }
        bus->eng.msgin_len = 0;
        /* A byte is held unless the back-end accepted a tag code and the
         * target then left MESSAGE IN. */
        if ((took & PCAM_HAL_TOOK_TAG) != 0 || (took & PCAM_HAL_TOOK_ACCEPTED) == 0) {
            pcam_eng_set_action(bus, ACT_ACCEPT, bus->hal.ops->msg_accept(bus->hal.sc, true));
            return;
        }
    }
    if (x.phase == PCAM_PHASE_BUS_FREE) {
        pcam_eng_on_bus_free(bus);
        return;
    }
    /* Still connected: ATN now takes the target to MESSAGE OUT as an
     * accept with ATN would have. */
    if (atn)
        (void)bus->hal.ops->set_atn(bus->hal.sc);
    on_phase_event(bus, &x);
}

void pcam_eng_on_phase(pcam_bus *bus, pcam_phase phase)
{
    pcam_ccb *c = bus->eng.nexus;
    bus->eng.state = ES_CONNECTED;
    if (phase != PCAM_PHASE_MSG_IN)
        bus->eng.engine_flags &= (uint8_t)~EGF_TAG_MAY_FOLLOW; /* no tag came: the guess stands */
    /* The target moved on past our negotiation message without a word. */
    if (c != NULL && (c->priv.flags & PCAM_CF_NEGO) != 0 && phase != PCAM_PHASE_MSG_IN &&
        phase != PCAM_PHASE_MSG_OUT && pcam_nego_in_flight(bus, c->target)) {
        c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        pcam_nego_no_answer(bus, c->target);
    }
    if (bus->eng.sel_kind != SK_IO && (bus->eng.engine_flags & EGF_REFUSED) == 0 &&
        (phase == PCAM_PHASE_COMMAND || phase == PCAM_PHASE_STATUS ||
         phase == PCAM_PHASE_DATA_IN || phase == PCAM_PHASE_DATA_OUT)) {
        /* A selection made only for an abort or a reset, and the target
         * goes on to a command instead of releasing the bus: it did not
         * act on the message, whatever bytes it took (QEMU 7.2's AM53C974
         * takes the message bytes after SELECT WITH ATN AND STOP as the
         * start of a CDB). Refused: a caller's reset fails, a recovery
         * step's timer takes the ladder up; the bus free that ends this
         * connection proves nothing. */
        bus->eng.engine_flags |= EGF_REFUSED;
        bus->eng.expect_free = EF_NONE;
        if (c != NULL)
            c->u.io.recovery |= (uint16_t)(bus->lad.step == RS_BDR_SENT ? PCAM_RCV_DEV_RESET_REFUSED
                                                                        : PCAM_RCV_ABORT_REFUSED);
        pcam_core_log(bus, PCAM_LOG_WARN, "target went on to a command instead of acting on our "
                      "abort or reset message", pcam_phase_name(phase));
    }
    switch (phase) {
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT:
        data_phase(bus, phase);
        return;
    case PCAM_PHASE_COMMAND: {
        const uint8_t *cdb;
        uint8_t len;
        if (c == NULL || bus->eng.sel_kind != SK_IO) {
            if (bus->eng.msgout_len == 0)
                pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK_SET);
            bit_bucket(bus, phase);
            return;
        }
        if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
            cdb = bus->eng.sense_cdb;
            len = 6;
        } else {
            cdb = c->u.io.cdb;
            len = c->u.io.cdb_len;
        }
        if (c->priv.cdb_sent >= len) {
            /* It already has the whole CDB and asks again: a protocol error. */
            c->status = PCAM_SEQUENCE_FAIL;
            c->priv.flags |= PCAM_CF_ABORT;
            if (bus->eng.msgout_len == 0)
                pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK);
            bit_bucket(bus, phase);
            return;
        }
        bus->eng.cmd_sg.addr = (void *)(uintptr_t)(cdb + c->priv.cdb_sent);
        bus->eng.cmd_sg.len = (uint32_t)(len - c->priv.cdb_sent);
        start_xfer(bus, phase, XK_COMMAND, &bus->eng.cmd_sg, 1, 0, bus->eng.cmd_sg.len);
        return;
    }
    case PCAM_PHASE_STATUS:
        if ((bus->eng.took & PCAM_HAL_TOOK_STATUS) != 0) {
            status_taken(bus);
            return;
        }
        bus->eng.status_byte = 0xFF;
        bus->eng.cmd_sg.addr = &bus->eng.status_byte;
        bus->eng.cmd_sg.len = 1;
        start_xfer(bus, phase, XK_STATUS, &bus->eng.cmd_sg, 1, 0, 1);
        return;
    case PCAM_PHASE_MSG_IN:
        if ((bus->eng.took & PCAM_HAL_TOOK_MSG) != 0) {
            msg_taken(bus);
            return;
        }
        pcam_eng_set_action(bus, ACT_MSGIN, bus->hal.ops->msg_in(bus->hal.sc));
        return;
    case PCAM_PHASE_MSG_OUT:
        if (bus->eng.msgout_len == 0) {
            /* ATN raised for nothing we still want to say (or the target's own idea). */
            bus->eng.msgout[0] = PCAM_MSG_NO_OPERATION;
            bus->eng.msgout_len = 1;
        }
        pcam_eng_set_action(bus, ACT_MSGOUT,
                            bus->hal.ops->msg_out(bus->hal.sc, bus->eng.msgout, bus->eng.msgout_len));
        return;
    case PCAM_PHASE_BUS_FREE:
        pcam_eng_on_bus_free(bus);
        return;
    default:
        illegal_phase(bus, phase);
        return;
    }
}

/* ---- events ---- */

/* Which message of the selection's message-out went last, so a MESSAGE
 * REJECT (or a bus free after an abort) can be matched to it. */
static void note_select_msgs(pcam_bus *bus, const pcam_hal_event *ev)
{
    if (ev->count > 0 && ev->count <= bus->eng.msg_end) {
        /* Name the last message that got out, so a MESSAGE REJECT can be matched to it. */
        if (ev->count > bus->eng.msg_tag_end)
            bus->eng.last_msgout = bus->eng.msgout[bus->eng.msg_tag_end];
        else if (ev->count > 1)
            bus->eng.last_msgout = bus->eng.msgout[1];
        else
            bus->eng.last_msgout = bus->eng.msgout[0];
    }
    if (bus->eng.sel_kind != SK_IO && ev->count >= bus->eng.msg_end)
        bus->eng.expect_free = EF_ABORT;
}

/*
 * The two chained events every disconnecting command brings: the selection
 * that ends in an accepted DISCONNECT, and the data transfer that ends in
 * its status and an accepted COMMAND COMPLETE, both with the bus free.
 * The general path replays them as the steps a non-chaining chip reports
 * (status transfer, message byte, accept), a dozen calls deep; these do in
 * one step what those leave behind, and only when nothing else is in play
 * (no parity error, no negotiation in flight, a command of ours). The
 * tests run every case on chips that chain and that do not and compare.
 */
static bool fast_disconnect(pcam_bus *bus, const pcam_hal_event *ev)
{
    pcam_ccb *c = bus->eng.nexus;
    if (ev->took != (PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_ACCEPTED) || ev->msg != PCAM_MSG_DISCONNECT ||
        ev->phase != PCAM_PHASE_BUS_FREE || c == NULL || bus->eng.sel_kind != SK_IO ||
        bus->eng.msgin_len != 0)
        return false;
    PCAM_COUNT(bus->targets[c->target], disconnects);
    bus->eng.expect_free = EF_DISCONNECT;
    bus->eng.took = 0;
    pcam_eng_on_bus_free(bus);
    return true;
}

static bool fast_complete(pcam_bus *bus, const pcam_hal_event *ev)
{
    pcam_ccb *c = bus->eng.nexus;
    if (ev->took != (PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_ACCEPTED) ||
        ev->msg != PCAM_MSG_COMMAND_COMPLETE || ev->phase != PCAM_PHASE_BUS_FREE ||
        ev->parity_error || ev->count == 0 || c == NULL || bus->eng.xfer_kind != XK_DATA ||
        bus->eng.sel_kind != SK_IO || bus->eng.msgin_len != 0 || (c->priv.flags & PCAM_CF_NEGO) != 0)
        return false;
    c->priv.data_ptr += ev->count;
    bus->eng.zero_xfers = 0;
    bus->eng.engine_flags &= (uint8_t)~EGF_TAG_MAY_FOLLOW;
    bus->eng.status_byte = ev->status;
    bus->eng.expect_free = EF_COMPLETE;
    bus->eng.took = 0;
    bus->eng.state = ES_CONNECTED;
    pcam_eng_on_bus_free(bus);
    return true;
}

static ENG_NOINLINE void on_select_done(pcam_bus *bus, const pcam_hal_event *ev)
{
    pcam_ccb *c = bus->eng.nexus;
    bus->eng.state = ES_CONNECTED;
    note_select_msgs(bus, ev);
    if (c != NULL && bus->eng.sel_kind == SK_IO) {
        c->priv.cdb_sent = (uint8_t)ev->count2;
        if (ev->count < bus->eng.msg_end)
            pcam_eng_nego_unsent(bus, c); /* the negotiation message never left */
    }
    if (fast_disconnect(bus, ev))
        return;
    pcam_eng_after_action(bus, ev);
}

static ENG_NOINLINE void on_sel_timeout(pcam_bus *bus)
{
    pcam_ccb *c = bus->eng.nexus;
    pcam_ccb *m = bus->eng.mgmt_ccb;
    uint8_t kind = bus->eng.sel_kind;
    uint8_t target = bus->eng.conn_target;
    pcam_eng_connected_idle(bus);
    if (target < PCAM_MAX_TARGETS)
        pcam_core_event(bus, PCAM_EV_SEL_TIMEOUT, target, 0xFF, 0);
    if (kind == SK_MGMT) {
        pcam_eng_mgmt_step_over(bus);
        if (m != NULL)
            pcam_core_complete(bus, m, PCAM_SEL_TIMEOUT);
        return;
    }
    if (kind == SK_ABORT) {
        /* The target will not even answer: straight to the next step. */
        pcam_eng_escalate(bus);
        return;
    }
    if (c == NULL)
        return;
    pcam_eng_nego_unsent(bus, c);
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        pcam_eng_sense_failed(bus, c);
        return;
    }
    /* Nobody at that ID: not worth a retry, the caller learns at once. */
    pcam_eng_retire(bus, c, PCAM_SEL_TIMEOUT);
}

/* Transfers in a row that may move nothing and leave the phase as it was
 * before the engine gives up on the connection. A chip reports a short
 * count when the target changes phase; zero bytes with the phase unchanged,
 * again and again, is a back-end (or a target) that will never move: the
 * core would spin with it forever. */
#define PCAM_ZERO_XFER_LIMIT 32u

static ENG_NOINLINE void on_xfer_done(pcam_bus *bus, const pcam_hal_event *ev)
{
    pcam_ccb *c = bus->eng.nexus;
    if (fast_complete(bus, ev))
        return;
    pcam_phase end = action_end_phase(ev);
    if (ev->count == 0 && (uint8_t)end == bus->eng.xfer_phase && !ev->parity_error) {
        if (++bus->eng.zero_xfers >= PCAM_ZERO_XFER_LIMIT) {
            /* The command spends a retry (or fails with SEQUENCE_FAIL), as
             * for an illegal phase: only RST gets the bus back. */
            bus->eng.zero_xfers = 0;
            reset_for_phase(bus, end, PCAM_LOG_TEXT("transfers make no progress; resetting the bus"));
            return;
        }
    } else {
        bus->eng.zero_xfers = 0;
    }
    switch (bus->eng.xfer_kind) {
    case XK_DATA:
    case XK_SENSE:
        if (c != NULL) {
            c->priv.data_ptr += ev->count;
            if (ev->parity_error) {
                /* pcam_nego_parity counts it in the target's counters. */
                pcam_core_event(bus, PCAM_EV_PARITY, c->target, c->lun, PCAM_PHASE_DATA_IN);
                c->priv.flags |= PCAM_CF_PARITY;
                pcam_nego_parity(bus, c->target);
                /* Tell the target: it answers RESTORE POINTERS and sends the
                 * data again (a chip that detects parity raises ATN itself;
                 * raising it again is harmless). */
                /* Bounded: a link that corrupts every resend must not keep
                 * the bus forever; past the bound the command is retried
                 * whole (or fails) on the retry budget. */
                if (bus->eng.msgout_len == 0 && (c->priv.recovery & 0x1Fu) < PCAM_IDE_LIMIT) {
                    c->priv.recovery++;
                    pcam_eng_abandon_nexus(bus, PCAM_MSG_INITIATOR_DETECTED_ERROR);
                }
            }
        }
        break;
    case XK_COMMAND:
        if (c != NULL)
            c->priv.cdb_sent = (uint8_t)(c->priv.cdb_sent + ev->count);
        break;
    case XK_STATUS:
        if (ev->parity_error && c != NULL) {
            c->priv.flags |= PCAM_CF_PARITY;
            pcam_nego_parity(bus, c->target);
        }
        break;
    default:
        break;
    }
    pcam_eng_after_action(bus, ev);
}

/* After msg_accept: the target asserted REQ in ev->phase. */
static void on_phase_event(pcam_bus *bus, const pcam_hal_event *ev)
{
    if (ev->phase == PCAM_PHASE_MSG_IN && bus->eng.msgin_len > 0 && ev->took == 0) {
        pcam_eng_set_action(bus, ACT_MSGIN, bus->hal.ops->msg_in(bus->hal.sc));
        return;
    }
    if (bus->eng.state == ES_IDLE && ev->phase != PCAM_PHASE_BUS_FREE) {
        pcam_eng_fail_chip(bus);
        return;
    }
    pcam_eng_after_action(bus, ev);
}

bool pcam_engine_events(pcam_bus *bus)
{
    pcam_hal_event ev;
    bool any = false;
    int guard = 0;
    int rc;
    /* A chip that never stops reporting must not wedge the caller. */
    while (guard++ < 256 && (rc = bus->hal.ops->poll(bus->hal.sc, &ev)) != 0) {
        if (rc < 0) {
            pcam_eng_fail_chip(bus);
            return true;
        }
        any = true;
        uint8_t act = bus->eng.action;
        bus->eng.action = ACT_NONE;
        switch (ev.type) {
        case PCAM_HAL_EV_BUS_RESET:
            pcam_eng_bus_reset_seen(bus);
            break;
        case PCAM_HAL_EV_GROSS_ERROR:
            pcam_eng_fail_chip(bus);
            break;
        case PCAM_HAL_EV_RESELECTED:
            if (bus->eng.state == ES_SELECTING)
                pcam_eng_lost_select(bus);
            if (bus->eng.state != ES_IDLE) {
                pcam_eng_fail_chip(bus); /* reselected while connected: the chip lost track */
                break;
            }
            pcam_eng_reselected(bus, &ev);
            break;
        case PCAM_HAL_EV_SELECT_DONE:
            if (act != ACT_SELECT || bus->eng.state != ES_SELECTING) {
                pcam_eng_fail_chip(bus);
                break;
            }
            on_select_done(bus, &ev);
            break;
        case PCAM_HAL_EV_SEL_TIMEOUT:
            if (bus->eng.state != ES_SELECTING) {
                pcam_eng_fail_chip(bus);
                break;
            }
            on_sel_timeout(bus);
            break;
        case PCAM_HAL_EV_XFER_DONE:
            on_xfer_done(bus, &ev);
            break;
        case PCAM_HAL_EV_MSGOUT_DONE:
            pcam_eng_msgout_done(bus, &ev);
            break;
        case PCAM_HAL_EV_MSG_BYTE:
            pcam_eng_msg_byte(bus, &ev);
            break;
        case PCAM_HAL_EV_PHASE:
            on_phase_event(bus, &ev);
            break;
        case PCAM_HAL_EV_BUS_FREE:
            if (bus->eng.state == ES_IDLE)
                break; /* nothing was connected */
            if (bus->eng.state == ES_SELECTING) {
                /* The selection ended the nexus at once (an abort or reset
                 * message taken, or the target simply dropped off). */
                bus->eng.state = ES_CONNECTED;
                note_select_msgs(bus, &ev);
                if (bus->eng.nexus != NULL && bus->eng.sel_kind == SK_IO)
                    bus->eng.nexus->priv.cdb_sent = (uint8_t)ev.count2;
            } else if (act == ACT_MSGOUT) {
                /* The target obeyed our message (an abort raised with ATN
                 * while it was, say, disconnecting) by going free at once:
                 * that free is the abort's, not the one expected before. */
                pcam_eng_msgout_taken(bus, ev.count);
            }
            pcam_eng_on_bus_free(bus);
            break;
        default:
            pcam_eng_fail_chip(bus);
            break;
        }
        (void)act;
    }
    /* Nothing is started between events: the way out of the core
     * (core/xpt's leave) kicks once they are all taken, so a reselection
     * already reported is served before a new selection is tried. */
    return any;
}

const char *pcam_phase_name(pcam_phase phase)
{
    switch (phase) {
    case PCAM_PHASE_DATA_OUT: return "DATA OUT";
    case PCAM_PHASE_DATA_IN: return "DATA IN";
    case PCAM_PHASE_COMMAND: return "COMMAND";
    case PCAM_PHASE_STATUS: return "STATUS";
    case PCAM_PHASE_RESERVED4: return "RESERVED(4)";
    case PCAM_PHASE_RESERVED5: return "RESERVED(5)";
    case PCAM_PHASE_MSG_OUT: return "MESSAGE OUT";
    case PCAM_PHASE_MSG_IN: return "MESSAGE IN";
    case PCAM_PHASE_BUS_FREE: return "BUS FREE";
    default: return "INVALID";
    }
}
