/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The recovery ladder (not the retry policy, which is core/retry): command
 * timeouts and aborts escalate ABORT TASK -> BUS DEVICE
 * RESET -> bus reset -> chip reset, each step with its own timer; resets
 * seen on the bus; shutdown. Only the commands a step is for (timed out or
 * aborted) fail; every bystander a reset takes down is requeued without
 * spending a retry.
 */
#include "engine_internal.h"

static uint32_t victim_status(const pcam_ccb *c)
{
    if ((c->priv.flags & PCAM_CF_TIMED_OUT) != 0)
        return PCAM_CMD_TIMEOUT;
    uint32_t st = c->status & PCAM_STATUS_MASK;
    if (st == PCAM_DATA_RUN_ERR || st == PCAM_SEQUENCE_FAIL)
        return st;
    return PCAM_REQ_ABORTED;
}

static bool is_victim(const pcam_ccb *c)
{
    return (c->priv.flags & (PCAM_CF_TIMED_OUT | PCAM_CF_ABORT)) != 0;
}

static void unlink_abort(pcam_bus *bus, pcam_ccb *c)
{
    for (pcam_ccb **pp = &bus->lad.abort_head; *pp != NULL; pp = &(*pp)->priv.link2) {
        if (*pp == c) {
            *pp = c->priv.link2;
            c->priv.link2 = NULL;
            return;
        }
    }
}

static void unlink_sense(pcam_bus *bus, pcam_ccb *c)
{
    for (pcam_ccb **pp = &bus->eng.sense_head; *pp != NULL; pp = &(*pp)->priv.link2) {
        if (*pp == c) {
            *pp = c->priv.link2;
            c->priv.link2 = NULL;
            return;
        }
    }
}

/* Take an active CCB down: victims complete, bystanders are requeued. */
/* `rcv`: the PCAM_RCV_* step that took it down, recorded on victims. */
static void take_down(pcam_bus *bus, pcam_ccb *c, uint32_t victim_override, uint16_t rcv)
{
    pcam_lun *l = pcam_core_lun(bus, c->target, c->lun);
    unlink_abort(bus, c);
    if ((c->priv.flags & PCAM_CF_SENSE) != 0) {
        unlink_sense(bus, c);
        pcam_core_unfreeze(bus, l);
        c->priv.flags &= (uint8_t)~PCAM_CF_SENSE;
    }
    if (bus->lad.ccb == c)
        bus->lad.ccb = NULL;
    if (is_victim(c)) {
        c->u.io.recovery |= rcv;
        pcam_eng_retire(bus, c, victim_override != 0 ? victim_override : victim_status(c));
        return;
    }
    if ((c->priv.flags & PCAM_CF_PARITY) != 0 && c->status == PCAM_SEQUENCE_FAIL) {
        /* The command whose illegal phase forced this reset is no bystander:
         * it spends a retry, or a target that always does it would have the
         * bus reset forever. */
        if (pcam_retry_transport(bus, c, PCAM_SEQUENCE_FAIL) == PCAM_RA_COMPLETE) {
            pcam_eng_retire(bus, c, PCAM_SEQUENCE_FAIL);
            return;
        }
    }
    pcam_eng_requeue(bus, c);
}

/* Every active CCB on (target, lun); 0xFF is a wildcard. */
static void take_down_all(pcam_bus *bus, uint8_t target, uint8_t lun, uint16_t rcv)
{
    for (uint8_t t = 0; t < bus->caps.max_targets; t++) {
        if (target != 0xFF && t != target)
            continue;
        for (uint8_t u = 0; u < bus->cfg.luns_per_target; u++) {
            if (lun != 0xFF && u != lun)
                continue;
            pcam_lun *l = pcam_core_lun(bus, t, u);
            /* Requeued CCBs go to the pending front; take from the tail so
             * the oldest ends up first again. */
            while (l != NULL && l->q.active.tail != NULL)
                take_down(bus, l->q.active.tail, 0, rcv);
        }
    }
}

static void recovery_done(pcam_bus *bus)
{
    bus->lad.step = RS_NONE;
    bus->lad.ccb = NULL;
    bus->lad.deadline_ns = 0;
}

/* A target may take the reset message of a management CCB and then never
 * let go of the bus (found by fuzz_engine: corpus/engine/bdr_then_hang);
 * with no command of ours on the bus no command timeout would ever fire.
 * The step gets a deadline like recovery's own BDR (RS_BDR_SENT with no
 * victim marks it) and escalates to a bus reset like that one, failing the
 * CCB so a target that always hangs cannot loop us. The deadline starts at
 * the selection, so it also allows the SPI selection time-out (250 ms),
 * which a target that is not there takes to be reported. */
#define PCAM_SEL_TIMEOUT_MS 250u
void pcam_eng_mgmt_step_start(pcam_bus *bus)
{
    if (bus->lad.step != RS_NONE)
        return;
    bus->lad.step = RS_BDR_SENT;
    bus->lad.ccb = NULL;
    bus->lad.deadline_ns =
        pcam_core_now(bus) + PCAM_MS((uint64_t)bus->cfg.abort_timeout_ms + PCAM_SEL_TIMEOUT_MS);
}

/* The command an abort step (or the BDR that would follow it) was for
 * finished on its own, e.g. a command that timed out while its selection
 * was still going on and then completed: the step is moot, and must not go
 * on to select with a CCB its caller owns again (found by fuzz_engine:
 * corpus/engine/timeout_then_completes). Later steps only need the pointer
 * gone. */
void pcam_eng_recov_ccb_gone(pcam_bus *bus, pcam_ccb *ccb)
{
    /* Leaving the active queue (finished after all, or requeued) while it
     * waited for its ABORT TASK selection: off the abort list, or its owner
     * resubmitting it would clear the link and cut off every victim queued
     * behind it, whose timeouts are already spent (found by the checker's
     * stale-link rule, test_core_starvation without aging). */
    if (bus->lad.abort_head != NULL)
        unlink_abort(bus, ccb);
    if (bus->lad.ccb != ccb)
        return;
    if (bus->lad.step == RS_ABORT || bus->lad.step == RS_BDR)
        recovery_done(bus);
    else
        bus->lad.ccb = NULL;
}

/* A reselecting target may never name a command of ours and never let go
 * (a bogus IDENTIFY, then our ABORT TASK SET ignored: found by fuzz_engine,
 * corpus/engine/bogus_reselect_then_hang); no command deadline covers that
 * time. It gets an abort step with no victim, whose deadline escalates to a
 * bus reset; the step ends as soon as a command is reconnected or the bus
 * goes free. A step already in progress has its own deadline. */
void pcam_eng_watch_start(pcam_bus *bus)
{
    if (bus->lad.step != RS_NONE)
        return;
    bus->lad.step = RS_ABORT;
    bus->lad.ccb = NULL;
    bus->lad.deadline_ns = pcam_core_now(bus) + PCAM_MS(bus->cfg.abort_timeout_ms);
}

void pcam_eng_watch_over(pcam_bus *bus)
{
    /* An abort step whose victim is gone has nothing left but that deadline. */
    if (bus->lad.step == RS_ABORT && bus->lad.ccb == NULL)
        recovery_done(bus);
}

void pcam_eng_mgmt_step_over(pcam_bus *bus)
{
    if (bus->lad.step == RS_BDR_SENT && bus->lad.ccb == NULL)
        recovery_done(bus);
}

void pcam_eng_recovery_success(pcam_bus *bus, uint8_t msg_sent, uint8_t target, uint8_t lun,
                               pcam_ccb *victim)
{
    switch (msg_sent) {
    case PCAM_MSG_ABORT_TASK:
        if (victim != NULL) {
            uint8_t tag = victim->priv.tag; /* take_down frees it */
            if (!is_victim(victim))
                victim->priv.flags |= PCAM_CF_ABORT;
            victim->u.io.recovery |= PCAM_RCV_ABORT;
            take_down(bus, victim, 0, PCAM_RCV_ABORT_OK);
            PCAM_COUNT(bus->targets[victim->target], aborts);
            pcam_core_event(bus, PCAM_EV_ABORT_SENT, victim->target, victim->lun, tag);
        }
        if (bus->lad.step == RS_ABORT && (bus->lad.ccb == NULL || bus->lad.ccb == victim))
            recovery_done(bus);
        return;
    case PCAM_MSG_ABORT_TASK_SET:
    case PCAM_MSG_CLEAR_TASK_SET:
        /* The target dropped every task of ours on that LUN, if it had any. */
        if (target < PCAM_MAX_TARGETS)
            take_down_all(bus, target, lun, PCAM_RCV_ABORT | PCAM_RCV_ABORT_OK);
        return;
    case PCAM_MSG_LOGICAL_UNIT_RESET:
    case PCAM_MSG_TARGET_RESET: {
        bool whole = msg_sent == PCAM_MSG_TARGET_RESET;
        if (target >= PCAM_MAX_TARGETS)
            return;
        take_down_all(bus, target, whole ? 0xFF : lun, PCAM_RCV_DEV_RESET | PCAM_RCV_DEV_RESET_OK);
        if (whole)
            pcam_nego_invalidate(bus, target); /* a BDR resets the agreement too */
        pcam_dev_tgt_flags(&bus->targets[target], PCAM_TGTF_RESET_UA, 0);
        pcam_core_expect_reset_ua(bus, target, whole ? 0xFF : lun);
        PCAM_COUNT(bus->targets[target], resets);
        pcam_core_event(bus, whole ? PCAM_EV_BDR_SENT : PCAM_EV_LUN_RESET, target,
                        whole ? 0xFF : lun, 0);
        pcam_core_async(bus, PCAM_AC_SENT_BDR, target, whole ? PCAM_WILDCARD : lun);
        if (bus->lad.step == RS_BDR_SENT)
            recovery_done(bus);
        return;
    }
    default:
        return;
    }
}

void pcam_eng_request_abort(pcam_bus *bus, pcam_ccb *victim)
{
    for (pcam_ccb *c = bus->lad.abort_head; c != NULL; c = c->priv.link2)
        if (c == victim)
            return;
    /* Waiting for its REQUEST SENSE slot, its link2 is the sense list's:
     * queuing it here would splice the two lists (found by fuzz_decide,
     * corpus/decide/timeout_while_awaiting_sense). It is not at the target,
     * and completes as aborted when its sense comes back. */
    for (const pcam_ccb *c = bus->eng.sense_head; c != NULL; c = c->priv.link2)
        if (c == victim)
            return;
    victim->priv.link2 = bus->lad.abort_head;
    bus->lad.abort_head = victim;
}

bool pcam_engine_nexus_aborting(const pcam_bus *bus)
{
    return bus->eng.nexus != NULL && bus->eng.sel_kind == SK_ABORT;
}

/* Called when the bus is idle: start the recovery selection that is due. */
bool pcam_eng_start_recovery_io(pcam_bus *bus)
{
    if (bus->lad.step == RS_NONE && bus->lad.abort_head == NULL)
        return false; /* the common case, asked after every chip event */
    uint64_t now = pcam_core_now(bus);
    if (bus->lad.step == RS_BDR) {
        pcam_ccb *v = bus->lad.ccb;
        if (v == NULL) {
            recovery_done(bus);
            return false;
        }
        bus->lad.step = RS_BDR_SENT;
        bus->lad.deadline_ns = now + PCAM_MS(bus->cfg.abort_timeout_ms);
        v->u.io.recovery |= PCAM_RCV_DEV_RESET;
        pcam_eng_select(bus, v, SK_ABORT, PCAM_MSG_TARGET_RESET);
        return true;
    }
    if (bus->lad.step != RS_NONE && bus->lad.step != RS_ABORT)
        return false;
    while (bus->lad.abort_head != NULL) {
        pcam_ccb *v = bus->lad.abort_head;
        if (bus->lad.step == RS_ABORT && bus->lad.ccb != NULL && bus->lad.ccb != v)
            return false; /* one step at a time */
        bus->lad.abort_head = v->priv.link2;
        v->priv.link2 = NULL;
        if (v->priv.state != PCAM_CS_ACTIVE || (v->priv.flags & PCAM_CF_DISCONNECTED) == 0)
            continue; /* already finished or back in the queue */
        bus->lad.step = RS_ABORT;
        bus->lad.ccb = v;
        bus->lad.deadline_ns = now + PCAM_MS(bus->cfg.abort_timeout_ms);
        v->u.io.recovery |= PCAM_RCV_ABORT;
        pcam_eng_select(bus, v, SK_ABORT, PCAM_MSG_ABORT_TASK);
        return true;
    }
    return false;
}

static void start_bus_reset(pcam_bus *bus, uint8_t step)
{
    bus->lad.step = step;
    bus->lad.deadline_ns = pcam_core_now(bus) + PCAM_MS(bus->cfg.abort_timeout_ms);
    bus->eng.state = ES_RESETTING;
    pcam_eng_set_action(bus, ACT_RESET, bus->hal.ops->reset_bus(bus->hal.sc));
}

static void kill_everything(pcam_bus *bus, uint32_t status);

void pcam_eng_escalate(pcam_bus *bus)
{
    switch (bus->lad.step) {
    case RS_ABORT:
        if (bus->lad.ccb != NULL && bus->eng.state == ES_IDLE) {
            bus->lad.step = RS_BDR;
            pcam_core_log(bus, PCAM_LOG_WARN, "abort did not finish; sending BUS DEVICE RESET", NULL);
            return;
        }
        /* A target holding the bus cannot be selected: only RST reaches it.
         * Said on the console, or a host sees a bus reset with no step of
         * the ladder before it (QEMU's AM53C974, which never disconnects). */
        pcam_core_log(bus, PCAM_LOG_WARN, "abort did not finish and the target holds the bus; resetting the bus",
                      NULL);
        start_bus_reset(bus, RS_BUS_RESET);
        return;
    case RS_BDR:
    case RS_BDR_SENT:
        pcam_core_log(bus, PCAM_LOG_WARN, "device reset did not finish; resetting the bus", NULL);
        if (bus->lad.ccb == NULL && bus->eng.mgmt_ccb != NULL && !pcam_dec_active(bus)) {
            pcam_ccb *m = bus->eng.mgmt_ccb; /* a user's reset: failed, not requeued by the bus reset */
            bus->eng.mgmt_ccb = NULL;
            pcam_core_complete(bus, m, PCAM_CMD_TIMEOUT);
        }
        start_bus_reset(bus, RS_BUS_RESET);
        return;
    case RS_BUS_RESET:
        pcam_core_log(bus, PCAM_LOG_ERROR, "bus reset did not finish; resetting the chip", NULL);
        pcam_core_event(bus, PCAM_EV_CHIP_RESET, 0xFF, 0xFF, 0);
        bus->hal.ops->reset_chip(bus->hal.sc);
        start_bus_reset(bus, RS_CHIP_RESET);
        return;
    case RS_CHIP_RESET:
    default:
        pcam_core_log(bus, PCAM_LOG_ERROR, "chip does not recover; failing every command", NULL);
        kill_everything(bus, PCAM_NO_HBA);
        bus->eng.state = ES_DEAD;
        bus->eng.shut_down = true;
        recovery_done(bus);
        return;
    }
}

void pcam_eng_fail_chip(pcam_bus *bus)
{
    pcam_core_event(bus, PCAM_EV_CHIP_RESET, bus->eng.conn_target, 0xFF, 0);
    pcam_core_log(bus, PCAM_LOG_WARN, "chip reported a condition it cannot continue from; resetting", NULL);
    if (bus->lad.step == RS_CHIP_RESET) {
        pcam_eng_escalate(bus);
        return;
    }
    bus->hal.ops->reset_chip(bus->hal.sc);
    start_bus_reset(bus, RS_CHIP_RESET);
}

void pcam_eng_bus_reset_seen(pcam_bus *bus)
{
    uint64_t now = pcam_core_now(bus);
    uint32_t settle_ms = bus->cfg.reset_settle_ms;

    pcam_core_event(bus, PCAM_EV_BUS_RESET, 0xFF, 0xFF, bus->eng.state == ES_RESETTING);
    /* Whatever was on the bus is gone; a management CCB on it goes back. */
    if (bus->eng.mgmt_ccb != NULL) {
        bus->eng.mgmt_ccb->priv.state = PCAM_CS_MGMT;
        pcam_ccbq_push_head(&bus->eng.mgmt, bus->eng.mgmt_ccb);
    }
    pcam_eng_connected_idle(bus);
    take_down_all(bus, 0xFF, 0xFF,
                  (uint16_t)(PCAM_RCV_BUS_RESET | (bus->lad.step == RS_CHIP_RESET ? PCAM_RCV_CHIP_RESET : 0)));
    bus->lad.abort_head = NULL;
    for (uint8_t t = 0; t < bus->caps.max_targets; t++) {
        if (t == bus->caps.initiator_id)
            continue;
        pcam_nego_invalidate(bus, t);
        pcam_dev_tgt_flags(&bus->targets[t], PCAM_TGTF_RESET_UA, 0);
        if ((bus->targets[t].dev.flags & PCAM_TGTF_PRESENT) != 0)
            PCAM_COUNT(bus->targets[t], resets);
    }
    pcam_core_expect_reset_ua(bus, 0xFF, 0xFF);
    recovery_done(bus);
    /* Settle, but never so long that a waiting command's budget is spent
     * waiting: cap it at a quarter of the shortest timeout queued. */
    for (uint8_t t = 0; t < bus->caps.max_targets; t++) {
        for (uint8_t u = 0; u < bus->cfg.luns_per_target; u++) {
            const pcam_lun *l = pcam_core_lun(bus, t, u);
            for (const pcam_ccb *c = l != NULL ? l->q.pending.head : NULL; c != NULL; c = c->priv.next) {
                uint32_t to = c->timeout_ms != 0 ? c->timeout_ms : bus->cfg.default_timeout_ms;
                if (to / 4 < settle_ms)
                    settle_ms = to / 4;
            }
        }
    }
    bus->lad.settle_until_ns = now + PCAM_MS(settle_ms);
    while (bus->lad.reset_ccb != NULL) {
        pcam_ccb *r = bus->lad.reset_ccb;
        bus->lad.reset_ccb = r->priv.link2;
        r->priv.link2 = NULL;
        pcam_core_complete(bus, r, PCAM_REQ_CMP);
    }
    pcam_core_async(bus, PCAM_AC_BUS_RESET, PCAM_WILDCARD, PCAM_WILDCARD);
}

/* ---- timers ---- */

static void command_timed_out(pcam_bus *bus, pcam_ccb *c)
{
    c->priv.flags |= PCAM_CF_TIMED_OUT | PCAM_CF_ABORT;
    PCAM_COUNT(bus->targets[c->target], timeouts);
    pcam_core_event(bus, PCAM_EV_TIMEOUT, c->target, c->lun, c->priv.tag);
    if (bus->lad.step != RS_NONE) {
        pcam_eng_request_abort(bus, c); /* after the step in progress */
        return;
    }
    bus->lad.step = RS_ABORT;
    bus->lad.ccb = c;
    bus->lad.deadline_ns = pcam_core_now(bus) + PCAM_MS(bus->cfg.abort_timeout_ms);
    if (bus->eng.nexus == c && bus->eng.state == ES_CONNECTED) {
        /* Connected: ask it to let go at its next phase change. */
        c->u.io.recovery |= PCAM_RCV_ABORT;
        pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK);
    } else if ((c->priv.flags & PCAM_CF_DISCONNECTED) != 0) {
        pcam_eng_request_abort(bus, c);
    }
    /* Selecting or waiting for its sense: the deadline of the step covers it. */
}

static void scan_deadlines(pcam_bus *bus, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < bus->nluns; i++) {
        pcam_lun *l = &bus->luns[i];
        /* Waiting to be issued past its life in the core: it never reached
         * the target this time, so nothing is to be aborted. */
        for (pcam_ccb *c = l->q.pending.head, *n; c != NULL; c = n) {
            uint64_t life = pcam_core_life_end(bus, c);
            n = c->priv.next;
            if (life <= now) {
                pcam_q_unpend(l, c);
                PCAM_COUNT(bus->targets[c->target], timeouts);
                pcam_core_event(bus, PCAM_EV_TIMEOUT, c->target, c->lun, 0xFFFF);
                c->u.io.recovery |= PCAM_RCV_NOT_ISSUED;
                pcam_eng_end_unissued(bus, c, PCAM_CMD_TIMEOUT);
                pcam_q_touch(bus);
            } else if (life < next) {
                next = life;
            }
        }
        for (pcam_ccb *c = l->q.active.head; c != NULL; c = c->priv.next) {
            if ((c->priv.flags & PCAM_CF_TIMED_OUT) != 0)
                continue;
            if (c->priv.deadline_ns <= now)
                command_timed_out(bus, c);
            else if (c->priv.deadline_ns < next)
                next = c->priv.deadline_ns;
        }
    }
    bus->eng.timer_ns = next;
}

/* Clear the holds and the settle delay that have passed, and find the
 * earliest hold still to come. Runs only when the earliest hold is due, so
 * the scan over every LUN is rare (BUSY and NOT READY delays), and until it
 * has run pcam_engine_next_deadline() keeps reporting the hold as due: a tick
 * that lands exactly on it is not missed, and nothing stale is reported after. */
static void expire_waits(pcam_bus *bus, uint64_t now)
{
    if (bus->lad.settle_until_ns != 0 && now >= bus->lad.settle_until_ns) {
        bus->lad.settle_until_ns = 0;
        pcam_q_touch(bus);
    }
    if (now < bus->eng.hold_ns)
        return;
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < bus->nluns; i++) {
        pcam_lun *l = &bus->luns[i];
        if (l->q.hold_until_ns == 0)
            continue;
        if (now >= l->q.hold_until_ns) {
            pcam_q_hold_end(l);
            pcam_q_touch(bus);
        }
        else if (l->q.hold_until_ns < next)
            next = l->q.hold_until_ns;
    }
    bus->eng.hold_ns = next;
}

void pcam_engine_tick(pcam_bus *bus, uint64_t now)
{
    if (bus->eng.shut_down)
        return;
    expire_waits(bus, now);
    pcam_q_tick(bus, now);
    pcam_q_touch(bus); /* ticks are rare; a look costs less than a missed issue */
    if (bus->lad.step != RS_NONE && now >= bus->lad.deadline_ns)
        pcam_eng_escalate(bus);
    if (now >= bus->eng.timer_ns)
        scan_deadlines(bus, now);
}

uint64_t pcam_engine_next_deadline_slow(const pcam_bus *bus, uint64_t t)
{
    if (bus->eng.shut_down)
        return UINT64_MAX;
    if (bus->lad.step != RS_NONE && bus->lad.deadline_ns < t)
        t = bus->lad.deadline_ns;
    if (bus->lad.settle_until_ns != 0 && bus->lad.settle_until_ns < t)
        t = bus->lad.settle_until_ns; /* cleared by the tick once it has passed */
    return t;
}

/* ---- requests ---- */

/* Every RESET_BUS CCB waiting for the reset event, not only the first
 * (an abort of a later one completed it, and the reset completed it again:
 * found by fuzz_engine, corpus/engine/abort_second_reset_bus). */
static bool waiting_for_reset(const pcam_bus *bus, const pcam_ccb *v)
{
    for (const pcam_ccb *r = bus->lad.reset_ccb; r != NULL; r = r->priv.link2)
        if (r == v)
            return true;
    return false;
}

void pcam_engine_abort(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_ccb *v = ccb->u.abort.victim;
    if (v == NULL || v == ccb || v->priv.magic != PCAM_CCB_MAGIC) {
        pcam_core_complete(bus, ccb, PCAM_REQ_INVALID);
        return;
    }
    switch (v->priv.state) {
    case PCAM_CS_PENDING: {
        pcam_lun *l = pcam_core_lun(bus, v->target, v->lun);
        if (l != NULL)
            pcam_q_unpend(l, v);
        pcam_eng_end_unissued(bus, v, PCAM_REQ_ABORTED);
        break;
    }
    case PCAM_CS_MGMT:
        /* (A scan request core/xpt took before calling here: pcam_scan_abort.) */
        if (v->func != PCAM_FN_RESET_DEV || v == bus->eng.mgmt_ccb || waiting_for_reset(bus, v)) {
            pcam_core_complete(bus, ccb, PCAM_REQ_INVALID); /* already on the bus */
            return;
        }
        pcam_ccbq_remove(&bus->eng.mgmt, v);
        pcam_core_complete(bus, v, PCAM_REQ_ABORTED);
        break;
    case PCAM_CS_ACTIVE:
        if ((v->priv.flags & PCAM_CF_ABORT) != 0)
            break; /* already being aborted */
        v->priv.flags |= PCAM_CF_ABORT;
        if (bus->eng.nexus == v && bus->eng.state == ES_CONNECTED) {
            v->u.io.recovery |= PCAM_RCV_ABORT;
            pcam_eng_abandon_nexus(bus, PCAM_MSG_ABORT_TASK);
        }
        else if ((v->priv.flags & PCAM_CF_DISCONNECTED) != 0 || pcam_dec_active(bus))
            pcam_eng_request_abort(bus, v); /* (at a script/command-level back-end: its abort op) */
        /* Selecting or awaiting sense: it completes as aborted when it comes back. */
        break;
    default:
        pcam_core_complete(bus, ccb, PCAM_REQ_INVALID); /* finished already */
        return;
    }
    pcam_core_complete(bus, ccb, PCAM_REQ_CMP);
}

void pcam_engine_reset_bus(pcam_bus *bus, pcam_ccb *ccb)
{
    ccb->priv.state = PCAM_CS_MGMT;
    ccb->priv.link2 = bus->lad.reset_ccb;
    bus->lad.reset_ccb = ccb;
    if (bus->eng.state == ES_RESETTING)
        return; /* the reset under way serves this request too */
    start_bus_reset(bus, RS_BUS_RESET);
}

static void kill_everything(pcam_bus *bus, uint32_t status)
{
    pcam_ccb *c;
    bus->eng.nexus = NULL;
    bus->eng.sense_head = NULL;
    bus->lad.abort_head = NULL;
    bus->lad.ccb = NULL;
    for (size_t i = 0; i < bus->nluns; i++) {
        pcam_lun *l = &bus->luns[i];
        while ((c = l->q.active.head) != NULL) {
            if ((c->priv.flags & PCAM_CF_SENSE) != 0)
                (void)pcam_q_thaw(l);
            pcam_eng_retire(bus, c, status);
        }
        while ((c = pcam_q_pop_pending(l)) != NULL)
            pcam_eng_end_unissued(bus, c, status);
    }
    if (bus->eng.mgmt_ccb != NULL)
        pcam_core_complete(bus, bus->eng.mgmt_ccb, status);
    bus->eng.mgmt_ccb = NULL;
    while ((c = pcam_ccbq_pop_head(&bus->eng.mgmt)) != NULL)
        pcam_core_complete(bus, c, status);
    /* The scan's requests are core/xpt's: pcam_bus_shutdown() cancels them,
     * and after a chip death the scan's probe (failed above) does. */
    while (bus->lad.reset_ccb != NULL) {
        c = bus->lad.reset_ccb;
        bus->lad.reset_ccb = c->priv.link2;
        c->priv.link2 = NULL;
        pcam_core_complete(bus, c, status);
    }
}

void pcam_engine_reset_dev(pcam_bus *bus, pcam_ccb *ccb)
{
    ccb->priv.state = PCAM_CS_MGMT;
    pcam_ccbq_push_tail(&bus->eng.mgmt, ccb);
}

void pcam_engine_shutdown(pcam_bus *bus)
{
    bus->eng.shut_down = true;
    kill_everything(bus, PCAM_REQ_ABORTED);
    bus->hal.ops->reset_chip(bus->hal.sc);
    bus->eng.state = ES_DEAD;
    bus->eng.action = ACT_NONE;
    recovery_done(bus);
}
