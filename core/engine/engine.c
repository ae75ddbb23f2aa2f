/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The phase-level controller state machine. The engine starts one chip
 * action at a time and reacts to the one event it yields (pcam_hal.h);
 * every bus phase, including the unexpected ones, is decided here.
 */
#include "engine_internal.h"

void pcam_engine_init(pcam_bus *bus)
{
    bus->state = ES_IDLE;
    bus->action = ACT_NONE;
    bus->conn_target = 0xFF;
    bus->timer_ns = UINT64_MAX;
    bus->hold_ns = UINT64_MAX;
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

/* Undo everything an issue did so the CCB can be issued again. */
static void reset_io_state(pcam_ccb *ccb)
{
    ccb->priv.data_ptr = 0;
    ccb->priv.saved_ptr = 0;
    ccb->priv.cdb_sent = 0;
    ccb->priv.recovery = 0;
    ccb->priv.flags &= (uint8_t)(PCAM_CF_ABORT | PCAM_CF_TIMED_OUT);
    /* (PCAM_CF_WIRE_UNTAGGED is dropped: the requeued command is issued
     * untagged anyway, since its target is now marked PCAM_TGTF_NO_TAGS.) */
    ccb->u.io.scsi_status = 0;
    ccb->u.io.resid = ccb->u.io.data_len;
    ccb->u.io.sense_resid = ccb->u.io.sense_len;
    ccb->status = PCAM_REQ_INPROG;
}

void pcam_eng_requeue(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_eng_recov_ccb_gone(bus, ccb); /* not at the target any more: nothing to abort */
    reset_io_state(ccb);
    pcam_q_requeue(bus, ccb);
}

/* Byte `off` of a command's data, through its buffer or its S/G list. */
static bool io_byte(const pcam_scsiio *io, uint32_t off, uint8_t *out)
{
    if (io->sg_count == 0) {
        *out = ((const uint8_t *)io->data)[off];
        return true;
    }
    for (uint16_t i = 0; i < io->sg_count; off -= io->sg[i].len, i++)
        if (off < io->sg[i].len) {
            *out = ((const uint8_t *)io->sg[i].addr)[off];
            return true;
        }
    return false;
}

/* A standard INQUIRY the caller ran itself (an OS that scans on its own,
 * as CAM and Linux do) tells the core whether the LUN takes tags, as its
 * own scan would: without CmdQue a tag message is a protocol error. */
static void note_inquiry(pcam_bus *bus, const pcam_ccb *ccb)
{
    const pcam_scsiio *io = &ccb->u.io;
    pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
    uint8_t b0, b7;
    if (l == NULL || io->cdb[0] != 0x12 || (io->cdb[1] & 0x01) != 0 || io->dir != PCAM_DIR_IN ||
        io->data_len - io->resid < 8 || !io_byte(io, 0, &b0) || !io_byte(io, 7, &b7))
        return;
    if ((b0 >> 5) == 0 && (b0 & 0x1Fu) != 0x1Fu && (b7 & 0x02u) != 0)
        l->flags |= PCAM_LUNF_TAGGED;
    else
        l->flags &= (uint8_t)~PCAM_LUNF_TAGGED;
}

/* The CCB leaves the core for good with `status`. */
void pcam_eng_retire(pcam_bus *bus, pcam_ccb *ccb, uint32_t status)
{
    pcam_target *t = &bus->targets[ccb->target];
    uint32_t code = status & PCAM_STATUS_MASK;
    pcam_eng_recov_ccb_gone(bus, ccb);
    pcam_q_retire(bus, ccb, code == PCAM_REQ_CMP);
    PCAM_COUNT(*t, commands);
    if (code != PCAM_REQ_CMP) {
        PCAM_COUNT(*t, errors);
        if ((ccb->flags & PCAM_CCB_FREEZE_ON_ERROR) != 0) {
            pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
            if (l != NULL)
                l->freeze++;
            status |= PCAM_DEV_QFRZN;
        }
    }
    /* An overrun filled the buffer before the target went on: the residual
     * says what moved (data_ptr counts data bytes here, never sense). */
    if (code == PCAM_REQ_CMP || code == PCAM_DATA_RUN_ERR)
        ccb->u.io.resid = ccb->u.io.data_len - ccb->priv.data_ptr;
    if (code == PCAM_REQ_CMP)
        note_inquiry(bus, ccb);
    pcam_core_complete(bus, ccb, status);
    if (code != PCAM_REQ_CMP && (ccb->flags & PCAM_CCB_RETURN_QUEUED) != 0) {
        /* Completions are delivered later, so a callback cannot refill the queue under this loop. */
        pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
        pcam_ccb *c;
        while (l != NULL && (c = pcam_ccbq_pop_head(&l->pending)) != NULL)
            pcam_core_complete(bus, c, PCAM_REQUEUE_REQ);
    }
}

static void set_connected_idle(pcam_bus *bus)
{
    bus->state = ES_IDLE;
    bus->action = ACT_NONE;
    bus->nexus = NULL;
    bus->mgmt_ccb = NULL;
    bus->conn_target = 0xFF;
    bus->expect_free = EF_NONE;
    bus->engine_flags = 0;
    bus->msgin_len = 0;
    bus->msgout_len = 0;
    bus->zero_xfers = 0;
    bus->took = 0;
}

/* ---- starting work ---- */

static void add_msg(uint8_t *len, int n)
{
    if (n > 0)
        *len = (uint8_t)(*len + n);
}

void pcam_eng_select(pcam_bus *bus, pcam_ccb *ccb, uint8_t kind, uint8_t extra_msg)
{
    uint8_t *m = bus->msgout;
    uint8_t len = 0;
    bool sense = (ccb->priv.flags & PCAM_CF_SENSE) != 0;
    bool disc = kind == SK_IO && !sense && (ccb->flags & PCAM_CCB_DIS_DISCONNECT) == 0;
    pcam_hal_select sel;

    add_msg(&len, pcam_msg_build_identify(m, PCAM_MSGOUT_BYTES, ccb->lun, disc));
    /* The tag names the nexus for the target; REQUEST SENSE for a contingent
     * allegiance goes untagged, as the standard wants. */
    bool wire_tagged = ccb->priv.tag_msg != 0 && (ccb->priv.flags & PCAM_CF_WIRE_UNTAGGED) == 0;
    if (wire_tagged && !sense && (kind == SK_IO || extra_msg == PCAM_MSG_ABORT_TASK))
        add_msg(&len, pcam_msg_build_tag(m + len, (size_t)(PCAM_MSGOUT_BYTES - len),
                                              ccb->priv.tag_msg, ccb->priv.tag));
    bus->msg_tag_end = len;
    if (kind == SK_IO && !sense && pcam_nego_wanted(bus, ccb->target)) {
        int n = pcam_nego_start(bus, ccb->target, m + len, (size_t)(PCAM_MSGOUT_BYTES - len));
        if (n > 0) {
            len = (uint8_t)(len + n);
            ccb->priv.flags |= PCAM_CF_NEGO;
        }
    }
    if (extra_msg != 0)
        m[len++] = extra_msg;
    bus->msg_end = len;

    sel.target = ccb->target;
    sel.atn = true;
    sel.msg = m;
    sel.msg_len = len;
    if (kind != SK_IO) {
        sel.cdb = NULL;
        sel.cdb_len = 0;
    } else if (sense) {
        sel.cdb = bus->sense_cdb;
        sel.cdb_len = 6;
    } else {
        sel.cdb = ccb->u.io.cdb;
        sel.cdb_len = ccb->u.io.cdb_len;
    }
    /* With a nexus the core accepts COMMAND COMPLETE and DISCONNECT as
     * they come: a chaining back-end may do it itself (pcam_hal.h). */
    sel.may_accept = kind != SK_MGMT;
    bus->sel_kind = kind;
    bus->zero_xfers = 0;
    bus->state = ES_SELECTING;
    bus->conn_target = ccb->target;
    bus->conn_lun = ccb->lun;
    bus->last_msgout = 0;
    if (kind == SK_MGMT)
        bus->mgmt_ccb = ccb;
    else
        bus->nexus = ccb;
    pcam_eng_set_action(bus, ACT_SELECT, bus->hal.ops->select(bus->hal.sc, &sel));
}

static void start_sense(pcam_bus *bus, pcam_ccb *ccb)
{
    uint8_t alloc = ccb->u.io.sense_len;
    if ((ccb->priv.flags & PCAM_CF_BUS_SENSE) != 0)
        alloc = (uint8_t)sizeof bus->sense_buf;
    bus->sense_cdb[0] = 0x03; /* REQUEST SENSE */
    bus->sense_cdb[1] = 0;
    bus->sense_cdb[2] = 0;
    bus->sense_cdb[3] = 0;
    bus->sense_cdb[4] = alloc;
    bus->sense_cdb[5] = 0;
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
    if (deadline < bus->timer_ns)
        bus->timer_ns = deadline;
    reset_io_state(ccb);
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

void pcam_engine_kick(pcam_bus *bus)
{
    if (pcam_dec_active(bus)) {
        pcam_dec_kick(bus); /* the chip runs the phases: whole commands go to it */
        return;
    }
    /* Asked after every chip event and entry point; most of the time the
     * bus is busy or nothing can have become startable: say so cheaply. */
    if (bus->state != ES_IDLE || bus->shut_down)
        return;
    if (bus->sense_head == NULL && bus->abort_head == NULL && bus->recovery == RS_NONE &&
        bus->mgmt.head == NULL && !bus->q_dirty)
        return;
    kick_loop(bus);
}

static ENG_NOINLINE void kick_loop(pcam_bus *bus)
{
    for (;;) {
        if (bus->state != ES_IDLE || bus->shut_down)
            return;
        /* Pending autosense first: the LUN is frozen until it is done. */
        if (bus->sense_head != NULL) {
            pcam_ccb *c = bus->sense_head;
            bus->sense_head = c->priv.link2;
            c->priv.link2 = NULL;
            start_sense(bus, c);
            continue;
        }
        if (pcam_eng_start_recovery_io(bus))
            continue;
        if (bus->recovery != RS_NONE)
            return; /* nothing new while a recovery step owns the bus */
        /* The kick runs after every chip event: when nothing can have
         * become issuable, answer without asking the clock. */
        if (bus->mgmt.head == NULL && !bus->q_dirty)
            return;
        uint64_t now = pcam_core_now(bus);
        if (now < bus->settle_until_ns)
            return;
        pcam_ccb *m = pcam_ccbq_pop_head(&bus->mgmt);
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
    bus->data_sg.addr = ccb->u.io.data;
    bus->data_sg.len = ccb->u.io.data_len;
    *count = 1;
    return &bus->data_sg;
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
    x.may_accept = bus->nexus != NULL && bus->msgin_len == 0 && kind != XK_BUCKET;
    bus->xfer_kind = kind;
    bus->xfer_phase = (uint8_t)phase;
    pcam_eng_set_action(bus, ACT_XFER, bus->hal.ops->transfer(bus->hal.sc, &x));
}

/* Take or give bytes nobody wants so the target reaches MESSAGE OUT, where
 * the message queued with ATN (abort, reject) ends the nexus cleanly. */
static void bit_bucket(pcam_bus *bus, pcam_phase phase)
{
    bus->cmd_sg.addr = bus->scratch;
    bus->cmd_sg.len = 1;
    bus->scratch[0] = 0;
    start_xfer(bus, phase, XK_BUCKET, &bus->cmd_sg, 1, 0, 1);
}

void pcam_eng_abandon_nexus(pcam_bus *bus, uint8_t msg)
{
    pcam_eng_queue_msgout(bus, &msg, 1);
    bus->hal.ops->set_atn(bus->hal.sc);
}

static void reset_for_phase(pcam_bus *bus, pcam_phase phase, const char *why);

static void data_phase(pcam_bus *bus, pcam_phase phase)
{
    pcam_ccb *c = bus->nexus;
    if (c == NULL || (bus->engine_flags & EGF_AWAIT_TAG) != 0) {
        if (phase == PCAM_PHASE_DATA_OUT) {
            /* It wants data for a task that is not ours (one we aborted
             * and it kept, or a lie): bytes from the bit bucket would be
             * written to its medium. Only RST ends it without (found by
             * pcambench --soak with targets deaf to ABORT TASK). */
            reset_for_phase(bus, phase, PCAM_LOG_TEXT("data out for a task that is not ours; resetting the bus"));
            return;
        }
        /* Data in with no nexus: a lying target. End it and keep the bus alive. */
        if (bus->msgout_len == 0)
            pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK_SET);
        bit_bucket(bus, phase);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        bool own = (c->priv.flags & PCAM_CF_BUS_SENSE) != 0;
        uint32_t cap = own ? (uint32_t)sizeof bus->sense_buf : c->u.io.sense_len;
        if (phase == PCAM_PHASE_DATA_IN && c->priv.data_ptr < cap) {
            bus->cmd_sg.addr = own ? bus->sense_buf : c->u.io.sense;
            bus->cmd_sg.len = cap;
            start_xfer(bus, phase, XK_SENSE, &bus->cmd_sg, 1, c->priv.data_ptr, cap - c->priv.data_ptr);
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
    if (bus->msgout_len == 0)
        pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK);
    bit_bucket(bus, phase);
}

static void reset_for_phase(pcam_bus *bus, pcam_phase phase, const char *why)
{
    pcam_core_event(bus, PCAM_EV_BAD_PHASE, bus->conn_target, bus->conn_lun, (uint32_t)phase);
    (pcam_core_log)(bus, PCAM_LOG_WARN, why, pcam_phase_name(phase)); /* why: PCAM_LOG_TEXT() */
    if (bus->nexus != NULL && (bus->nexus->priv.flags & PCAM_CF_ABORT) == 0) {
        bus->nexus->priv.flags |= PCAM_CF_PARITY; /* reuse: "transport error, retry" */
        bus->nexus->status = PCAM_SEQUENCE_FAIL;
    }
    /* A target in a reserved phase cannot be talked out of it: only RST ends it. */
    bus->recovery = RS_BUS_RESET;
    bus->recov_ccb = NULL;
    bus->recovery_deadline_ns = pcam_core_now(bus) + PCAM_MS(bus->cfg.abort_timeout_ms);
    bus->state = ES_RESETTING;
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
    bus->took = ev->took;
    if ((ev->took & PCAM_HAL_TOOK_MSG) == 0)
        bus->took &= PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_STATUS_PARITY; /* nothing else without a byte */
    if (ev->took != 0) {
        bus->took_status = ev->status;
        bus->took_msg = ev->msg;
        bus->took_phase = (uint8_t)ev->phase;
        if ((ev->took & (PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_MSG)) == PCAM_HAL_TOOK_MSG) {
            /* MESSAGE IN: of what pcam_eng_on_phase() does first only the
             * state applies there, so go straight to the byte. */
            bus->state = ES_CONNECTED;
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
        .phase = (pcam_phase)bus->took_phase,
        .count = 1,
        .parity_error = (bus->took & PCAM_HAL_TOOK_STATUS_PARITY) != 0,
        .took = (uint8_t)(bus->took & (PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_MSG_PARITY |
                                       PCAM_HAL_TOOK_ACCEPTED)),
        .msg = bus->took_msg,
    };
    bus->took = 0;
    bus->status_byte = bus->took_status;
    bus->xfer_kind = XK_STATUS;
    bus->xfer_phase = (uint8_t)PCAM_PHASE_STATUS;
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
        .byte = bus->took_msg,
        .parity_error = (bus->took & PCAM_HAL_TOOK_MSG_PARITY) != 0,
    };
    bus->took &= PCAM_HAL_TOOK_ACCEPTED;
    pcam_eng_msg_byte(bus, &x);
    if ((bus->took & PCAM_HAL_TOOK_ACCEPTED) != 0) {
        /* It accepted a byte the core does not accept as it is: it broke
         * the contract, and the target has gone on without us. */
        bus->took = 0;
        pcam_core_log(bus, PCAM_LOG_ERROR, "back-end accepted a message byte the core would not",
                      NULL);
        pcam_eng_fail_chip(bus);
    }
}

static void on_phase_event(pcam_bus *bus, const pcam_hal_event *ev);

void pcam_eng_accepted(pcam_bus *bus, bool atn)
{
    pcam_hal_event x = {
        .type = PCAM_HAL_EV_PHASE,
        .phase = (pcam_phase)bus->took_phase,
        .target = bus->conn_target,
    };
    bus->took = 0;
    bus->action = ACT_NONE;
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
    pcam_ccb *c = bus->nexus;
    bus->state = ES_CONNECTED;
    if (phase != PCAM_PHASE_MSG_IN)
        bus->engine_flags &= (uint8_t)~EGF_TAG_MAY_FOLLOW; /* no tag came: the guess stands */
    /* The target moved on past our negotiation message without a word. */
    if (c != NULL && (c->priv.flags & PCAM_CF_NEGO) != 0 && phase != PCAM_PHASE_MSG_IN &&
        phase != PCAM_PHASE_MSG_OUT && pcam_nego_in_flight(bus, c->target)) {
        c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        pcam_nego_no_answer(bus, c->target);
    }
    if (bus->sel_kind != SK_IO && (bus->engine_flags & EGF_REFUSED) == 0 &&
        (phase == PCAM_PHASE_COMMAND || phase == PCAM_PHASE_STATUS ||
         phase == PCAM_PHASE_DATA_IN || phase == PCAM_PHASE_DATA_OUT)) {
        /* A selection made only for an abort or a reset, and the target
         * goes on to a command instead of releasing the bus: it did not
         * act on the message, whatever bytes it took (QEMU 7.2's AM53C974
         * takes the message bytes after SELECT WITH ATN AND STOP as the
         * start of a CDB). Refused: a caller's reset fails, a recovery
         * step's timer takes the ladder up; the bus free that ends this
         * connection proves nothing. */
        bus->engine_flags |= EGF_REFUSED;
        bus->expect_free = EF_NONE;
        if (c != NULL)
            c->u.io.recovery |= (uint16_t)(bus->recovery == RS_BDR_SENT ? PCAM_RCV_DEV_RESET_REFUSED
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
        if (c == NULL || bus->sel_kind != SK_IO) {
            if (bus->msgout_len == 0)
                pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK_SET);
            bit_bucket(bus, phase);
            return;
        }
        if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
            cdb = bus->sense_cdb;
            len = 6;
        } else {
            cdb = c->u.io.cdb;
            len = c->u.io.cdb_len;
        }
        if (c->priv.cdb_sent >= len) {
            /* It already has the whole CDB and asks again: a protocol error. */
            c->status = PCAM_SEQUENCE_FAIL;
            c->priv.flags |= PCAM_CF_ABORT;
            if (bus->msgout_len == 0)
                pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK);
            bit_bucket(bus, phase);
            return;
        }
        bus->cmd_sg.addr = (void *)(uintptr_t)(cdb + c->priv.cdb_sent);
        bus->cmd_sg.len = (uint32_t)(len - c->priv.cdb_sent);
        start_xfer(bus, phase, XK_COMMAND, &bus->cmd_sg, 1, 0, bus->cmd_sg.len);
        return;
    }
    case PCAM_PHASE_STATUS:
        if ((bus->took & PCAM_HAL_TOOK_STATUS) != 0) {
            status_taken(bus);
            return;
        }
        bus->status_byte = 0xFF;
        bus->cmd_sg.addr = &bus->status_byte;
        bus->cmd_sg.len = 1;
        start_xfer(bus, phase, XK_STATUS, &bus->cmd_sg, 1, 0, 1);
        return;
    case PCAM_PHASE_MSG_IN:
        if ((bus->took & PCAM_HAL_TOOK_MSG) != 0) {
            msg_taken(bus);
            return;
        }
        pcam_eng_set_action(bus, ACT_MSGIN, bus->hal.ops->msg_in(bus->hal.sc));
        return;
    case PCAM_PHASE_MSG_OUT:
        if (bus->msgout_len == 0) {
            /* ATN raised for nothing we still want to say (or the target's own idea). */
            bus->msgout[0] = PCAM_MSG_NO_OPERATION;
            bus->msgout_len = 1;
        }
        pcam_eng_set_action(bus, ACT_MSGOUT,
                            bus->hal.ops->msg_out(bus->hal.sc, bus->msgout, bus->msgout_len));
        return;
    case PCAM_PHASE_BUS_FREE:
        pcam_eng_on_bus_free(bus);
        return;
    default:
        illegal_phase(bus, phase);
        return;
    }
}

/* ---- completion of a command's bus part ---- */

static void start_autosense(pcam_bus *bus, pcam_ccb *c)
{
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    c->priv.orig_status = c->u.io.scsi_status;
    c->priv.flags |= PCAM_CF_SENSE;
    if (l != NULL)
        l->freeze++; /* nothing else reaches the LUN before its sense is read */
    c->priv.link2 = NULL;
    pcam_ccb **pp = &bus->sense_head;
    while (*pp != NULL)
        pp = &(*pp)->priv.link2;
    *pp = c;
}

static void apply_decision(pcam_bus *bus, pcam_ccb *c, pcam_recov_action a, uint32_t delay_ms)
{
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    switch (a) {
    case PCAM_RA_COMPLETE:
        pcam_eng_retire(bus, c, c->status);
        return;
    case PCAM_RA_QUEUE_FULL: {
        reset_io_state(c);
        uint16_t depth = pcam_q_queue_full(bus, c);
        pcam_core_log(bus, PCAM_LOG_INFO, "QUEUE FULL: depth lowered", NULL);
        if (l != NULL && depth > l->active.count) {
            /* The floor keeps the depth above what the target holds (or it
             * holds nothing of ours: other initiators filled it). Resending
             * at once would meet QUEUE FULL again, and again, with the
             * initiator winning every arbitration so the target can never
             * reconnect: wait as for BUSY instead. */
            uint64_t until = pcam_core_now(bus) + PCAM_MS(bus->cfg.busy_delay_ms);
            if (until > l->hold_until_ns)
                l->hold_until_ns = until;
            pcam_core_note_hold(bus, until);
        }
        return;
    }
    case PCAM_RA_RETRY:
    case PCAM_RA_RETRY_DELAY:
    case PCAM_RA_REQUEUE:
        if (delay_ms != 0 && l != NULL) {
            /* Hold the whole LUN: a BUSY or becoming-ready device gains nothing from its other commands. */
            uint64_t until = pcam_core_now(bus) + PCAM_MS(delay_ms);
            if (until > l->hold_until_ns)
                l->hold_until_ns = until;
            pcam_core_note_hold(bus, until);
        }
        pcam_eng_requeue(bus, c);
        return;
    }
}

void pcam_eng_apply(pcam_bus *bus, pcam_ccb *c, pcam_recov_action a, uint32_t delay_ms)
{
    apply_decision(bus, c, a, delay_ms);
}

/* REQUEST SENSE itself failed: decide on the CHECK CONDITION without sense. */
static void sense_failed(pcam_bus *bus, pcam_ccb *c)
{
    uint32_t delay = 0;
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    pcam_core_unfreeze(bus, l);
    c->priv.flags &= (uint8_t)~(PCAM_CF_SENSE | PCAM_CF_BUS_SENSE);
    c->u.io.scsi_status = c->priv.orig_status;
    c->status = 0;
    apply_decision(bus, c, pcam_recov_decide(bus, c, &delay), delay);
}

void pcam_eng_finish_io(pcam_bus *bus, pcam_ccb *c)
{
    uint32_t delay = 0;
    pcam_recov_action a;

    if ((c->priv.flags & PCAM_CF_ABORT) != 0) {
        /* Completed after all despite the abort request: report the abort,
         * or the reason the engine itself aborted it (an overrun, a phase
         * in the wrong direction), which a target that ignored our ABORT
         * TASK must not turn into a caller's abort. */
        uint32_t st = (c->priv.flags & PCAM_CF_TIMED_OUT) != 0 ? PCAM_CMD_TIMEOUT : PCAM_REQ_ABORTED;
        if (st == PCAM_REQ_ABORTED && (c->status == PCAM_DATA_RUN_ERR || c->status == PCAM_SEQUENCE_FAIL))
            st = c->status;
        if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
            pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
            pcam_core_unfreeze(bus, l);
        }
        pcam_eng_retire(bus, c, st);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0 && bus->status_byte == 0x02 &&
        (c->priv.recovery & PCAM_REC_SENSE_AGAIN) == 0 && (c->priv.flags & PCAM_CF_PARITY) == 0) {
        /* Our REQUEST SENSE met CHECK CONDITION itself: the target reported
         * a condition of its own in place of the sense (QEMU 7.2 answers it
         * with a pending power-on UNIT ATTENTION, which SAM forbids), and in
         * doing so handed that condition over. Ask once more, LUN still
         * frozen: what it says then is what the command is decided on (the
         * UNIT ATTENTION, retried as policy says), instead of failing with
         * AUTOSENSE_FAIL and nothing the caller could act on. */
        c->priv.recovery |= PCAM_REC_SENSE_AGAIN;
        c->priv.link2 = bus->sense_head;
        bus->sense_head = c;
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
        pcam_core_unfreeze(bus, l);
        c->priv.flags &= (uint8_t)~PCAM_CF_SENSE;
        c->u.io.scsi_status = c->priv.orig_status;
        /* Sense bytes that came with bad parity are not sense: the
         * CHECK CONDITION is decided as if REQUEST SENSE had failed. */
        if (bus->status_byte == 0x00 && c->priv.data_ptr > 0 &&
            (c->priv.flags & PCAM_CF_PARITY) == 0) {
            if ((c->priv.flags & PCAM_CF_BUS_SENSE) != 0)
                bus->sense_got = (uint8_t)c->priv.data_ptr;
            else
                c->u.io.sense_resid = (uint8_t)(c->u.io.sense_len - c->priv.data_ptr);
            c->status = PCAM_AUTOSNS_VALID;
        } else {
            c->status = 0;
        }
        c->priv.data_ptr = c->priv.saved_ptr = (uint32_t)(c->u.io.data_len - c->u.io.resid);
        a = pcam_recov_decide(bus, c, &delay);
        if ((c->priv.flags & PCAM_CF_BUS_SENSE) != 0) {
            /* The caller gave no buffer: recovery saw the sense, the caller gets none. */
            c->status &= ~PCAM_AUTOSNS_VALID;
            c->priv.flags &= (uint8_t)~PCAM_CF_BUS_SENSE;
        }
        apply_decision(bus, c, a, delay);
        return;
    }
    c->u.io.scsi_status = bus->status_byte;
    c->u.io.resid = c->u.io.data_len - c->priv.data_ptr;
    if ((c->priv.flags & PCAM_CF_PARITY) != 0) {
        uint32_t st = c->status == PCAM_SEQUENCE_FAIL ? PCAM_SEQUENCE_FAIL : PCAM_UNCOR_PARITY;
        apply_decision(bus, c, pcam_recov_transport(bus, c, st), 0);
        return;
    }
    if (c->u.io.scsi_status == 0x02 && (c->flags & PCAM_CCB_DIS_AUTOSENSE) == 0) {
        if (c->u.io.sense_len == 0)
            c->priv.flags |= PCAM_CF_BUS_SENSE;
        start_autosense(bus, c);
        return;
    }
    c->status = 0;
    a = pcam_recov_decide(bus, c, &delay);
    apply_decision(bus, c, a, delay);
}

void pcam_eng_on_bus_free(pcam_bus *bus)
{
    uint8_t ef = bus->expect_free;
    pcam_ccb *c = bus->nexus;
    pcam_ccb *m = bus->mgmt_ccb;
    uint8_t kind = bus->sel_kind;
    uint8_t last = bus->last_msgout;
    uint8_t target = bus->conn_target;
    uint8_t lun = bus->conn_lun;
    bool refused = (bus->engine_flags & EGF_REFUSED) != 0;

    set_connected_idle(bus);
    pcam_eng_watch_over(bus);
    if (refused && kind != SK_IO) {
        /* A selection made only for an abort or reset that the target
         * refused: a caller's reset fails; a recovery step is left to its
         * timer, which escalates (the victim is still active). */
        if (kind == SK_MGMT && m != NULL) {
            pcam_eng_mgmt_step_over(bus);
            pcam_core_complete(bus, m, PCAM_MSG_REJECT_REC);
        }
        return;
    }
    switch (ef) {
    case EF_COMPLETE:
        if (c != NULL)
            pcam_eng_finish_io(bus, c);
        return;
    case EF_DISCONNECT:
        if (c != NULL && (c->priv.flags & PCAM_CF_SENSE) != 0) {
            /* Our REQUEST SENSE goes without disconnect privilege: a target
             * that disconnects anyway has broken the contingent allegiance,
             * and nothing would reconnect it. The sense is lost. */
            sense_failed(bus, c);
            return;
        }
        if (c != NULL) {
            c->priv.flags |= PCAM_CF_DISCONNECTED;
            /* Aborted while selecting or while its DISCONNECT was in flight:
             * nothing else would send the ABORT TASK, it would wait for its timeout. */
            if ((c->priv.flags & PCAM_CF_ABORT) != 0 && kind == SK_IO)
                pcam_eng_request_abort(bus, c);
        }
        return;
    case EF_ABORT:
        if (kind == SK_MGMT && m != NULL) {
            pcam_eng_recovery_success(bus, last, target, lun, NULL);
            pcam_eng_mgmt_step_over(bus);
            pcam_core_complete(bus, m, PCAM_REQ_CMP);
            return;
        }
        pcam_eng_recovery_success(bus, last, target, lun, c);
        return;
    default:
        break;
    }
    /* Unexpected: the target dropped the nexus. */
    if (target < PCAM_MAX_TARGETS)
        pcam_core_event(bus, PCAM_EV_UNEXP_FREE, target, 0xFF, 0);
    if (kind == SK_MGMT && m != NULL) {
        pcam_eng_mgmt_step_over(bus);
        pcam_ccbq_push_head(&bus->mgmt, m);
        m->priv.state = PCAM_CS_MGMT;
        return;
    }
    if (c == NULL)
        return;
    if ((c->priv.flags & PCAM_CF_NEGO) != 0 && pcam_nego_in_flight(bus, c->target))
        pcam_nego_rejected(bus, c->target); /* some targets hang up on a message they dislike */
    if (kind == SK_ABORT || (c->priv.flags & PCAM_CF_ABORT) != 0) {
        /* Dropping the bus in answer to an abort selection is as good as a yes. */
        pcam_eng_recovery_success(bus, PCAM_MSG_ABORT_TASK, target, lun, c);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        sense_failed(bus, c);
        return;
    }
    apply_decision(bus, c, pcam_recov_transport(bus, c, PCAM_UNEXP_BUSFREE), 0);
}

/* Our selection lost arbitration to a reselection: undo it, nothing spent. */
void pcam_eng_lost_select(pcam_bus *bus)
{
    pcam_ccb *c = bus->nexus;
    pcam_ccb *m = bus->mgmt_ccb;
    uint8_t kind = bus->sel_kind;
    set_connected_idle(bus);
    if (kind == SK_MGMT && m != NULL) {
        pcam_eng_mgmt_step_over(bus);
        m->priv.state = PCAM_CS_MGMT;
        pcam_ccbq_push_head(&bus->mgmt, m);
        return;
    }
    if (c == NULL)
        return;
    if ((c->priv.flags & PCAM_CF_NEGO) != 0) {
        c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        pcam_nego_cancel(bus, c->target);
    }
    if (kind == SK_ABORT) {
        pcam_eng_request_abort(bus, c);
        return;
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        c->priv.link2 = bus->sense_head;
        bus->sense_head = c;
        return;
    }
    pcam_eng_requeue(bus, c);
}

/* ---- events ---- */

/* Which message of the selection's message-out went last, so a MESSAGE
 * REJECT (or a bus free after an abort) can be matched to it. */
static void note_select_msgs(pcam_bus *bus, const pcam_hal_event *ev)
{
    if (ev->count > 0 && ev->count <= bus->msg_end) {
        /* Name the last message that got out, so a MESSAGE REJECT can be matched to it. */
        if (ev->count > bus->msg_tag_end)
            bus->last_msgout = bus->msgout[bus->msg_tag_end];
        else if (ev->count > 1)
            bus->last_msgout = bus->msgout[1];
        else
            bus->last_msgout = bus->msgout[0];
    }
    if (bus->sel_kind != SK_IO && ev->count >= bus->msg_end)
        bus->expect_free = EF_ABORT;
}

static ENG_NOINLINE void on_select_done(pcam_bus *bus, const pcam_hal_event *ev)
{
    pcam_ccb *c = bus->nexus;
    bus->state = ES_CONNECTED;
    note_select_msgs(bus, ev);
    if (c != NULL && bus->sel_kind == SK_IO) {
        c->priv.cdb_sent = (uint8_t)ev->count2;
        if ((c->priv.flags & PCAM_CF_NEGO) != 0 && ev->count < bus->msg_end) {
            /* The negotiation message never left: it is not in flight after all. */
            c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
            pcam_nego_cancel(bus, c->target);
        }
    }
    pcam_eng_after_action(bus, ev);
}

static ENG_NOINLINE void on_sel_timeout(pcam_bus *bus)
{
    pcam_ccb *c = bus->nexus;
    pcam_ccb *m = bus->mgmt_ccb;
    uint8_t kind = bus->sel_kind;
    uint8_t target = bus->conn_target;
    set_connected_idle(bus);
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
    if ((c->priv.flags & PCAM_CF_NEGO) != 0) {
        c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        pcam_nego_cancel(bus, c->target);
    }
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        sense_failed(bus, c);
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
    pcam_ccb *c = bus->nexus;
    pcam_phase end = action_end_phase(ev);
    if (ev->count == 0 && (uint8_t)end == bus->xfer_phase && !ev->parity_error) {
        if (++bus->zero_xfers >= PCAM_ZERO_XFER_LIMIT) {
            /* The command spends a retry (or fails with SEQUENCE_FAIL), as
             * for an illegal phase: only RST gets the bus back. */
            bus->zero_xfers = 0;
            reset_for_phase(bus, end, PCAM_LOG_TEXT("transfers make no progress; resetting the bus"));
            return;
        }
    } else {
        bus->zero_xfers = 0;
    }
    switch (bus->xfer_kind) {
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
                if (bus->msgout_len == 0 && (c->priv.recovery & 0x1Fu) < PCAM_IDE_LIMIT) {
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
    if (ev->phase == PCAM_PHASE_MSG_IN && bus->msgin_len > 0 && ev->took == 0) {
        pcam_eng_set_action(bus, ACT_MSGIN, bus->hal.ops->msg_in(bus->hal.sc));
        return;
    }
    if (bus->state == ES_IDLE && ev->phase != PCAM_PHASE_BUS_FREE) {
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
        uint8_t act = bus->action;
        bus->action = ACT_NONE;
        switch (ev.type) {
        case PCAM_HAL_EV_BUS_RESET:
            pcam_eng_bus_reset_seen(bus);
            break;
        case PCAM_HAL_EV_GROSS_ERROR:
            pcam_eng_fail_chip(bus);
            break;
        case PCAM_HAL_EV_RESELECTED:
            if (bus->state == ES_SELECTING)
                pcam_eng_lost_select(bus);
            if (bus->state != ES_IDLE) {
                pcam_eng_fail_chip(bus); /* reselected while connected: the chip lost track */
                break;
            }
            pcam_eng_reselected(bus, &ev);
            break;
        case PCAM_HAL_EV_SELECT_DONE:
            if (act != ACT_SELECT || bus->state != ES_SELECTING) {
                pcam_eng_fail_chip(bus);
                break;
            }
            on_select_done(bus, &ev);
            break;
        case PCAM_HAL_EV_SEL_TIMEOUT:
            if (bus->state != ES_SELECTING) {
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
            if (bus->state == ES_IDLE)
                break; /* nothing was connected */
            if (bus->state == ES_SELECTING) {
                /* The selection ended the nexus at once (an abort or reset
                 * message taken, or the target simply dropped off). */
                bus->state = ES_CONNECTED;
                note_select_msgs(bus, &ev);
                if (bus->nexus != NULL && bus->sel_kind == SK_IO)
                    bus->nexus->priv.cdb_sent = (uint8_t)ev.count2;
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
        /* Most events leave a target connected: nothing can start then. */
        if (bus->state == ES_IDLE || pcam_dec_active(bus))
            pcam_engine_kick(bus);
    }
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
