/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Messages: reselection and the nexus it names, every message-in the
 * engine understands (and MESSAGE REJECT for the rest), and what follows a
 * message-out.
 */
#include "engine_internal.h"

void pcam_eng_queue_msgout(pcam_bus *bus, const uint8_t *msg, uint8_t len)
{
    if (len > PCAM_MSGOUT_BYTES)
        len = PCAM_MSGOUT_BYTES;
    memcpy(bus->eng.msgout, msg, len);
    bus->eng.msgout_len = len;
}

static void accept(pcam_bus *bus, bool atn)
{
    if ((bus->eng.took & (PCAM_HAL_TOOK_ACCEPTED | PCAM_HAL_TOOK_IDENTIFY)) != 0) {
        pcam_eng_accepted(bus, atn); /* the back-end did it already */
        return;
    }
    pcam_eng_set_action(bus, ACT_ACCEPT, bus->hal.ops->msg_accept(bus->hal.sc, atn));
}

static void reject_and_accept(pcam_bus *bus)
{
    uint8_t m = PCAM_MSG_MESSAGE_REJECT;
    pcam_core_event(bus, PCAM_EV_MSG_REJECT, bus->eng.conn_target, bus->eng.conn_lun,
                    bus->eng.msgin_len > 0 ? bus->eng.msgin[0] : 0);
    pcam_eng_queue_msgout(bus, &m, 1);
    bus->eng.msgin_len = 0;
    accept(bus, true);
}

/* Establish `c` as the reconnected nexus; the data pointer reverts to the
 * saved one (an implied RESTORE POINTERS, per SPI). */
static void reconnect(pcam_bus *bus, pcam_ccb *c)
{
    pcam_eng_watch_over(bus); /* c's own deadline covers the rest */
    bus->eng.nexus = c;
    bus->eng.sel_kind = SK_IO;
    bus->eng.engine_flags &= (uint8_t)~EGF_AWAIT_TAG;
    c->priv.flags &= (uint8_t)~PCAM_CF_DISCONNECTED;
    c->priv.data_ptr = c->priv.saved_ptr;
    PCAM_COUNT(bus->targets[c->target], reselections);
}

/* IDENTIFY from a reselecting target (on the RESELECTED event, or in
 * MESSAGE IN after we asked for it again). Returns true when handled with
 * an accept already started. */
static void identify_in(pcam_bus *bus, uint8_t target, uint8_t byte)
{
    uint8_t lun_id = byte & PCAM_MSG_IDENTIFY_LUN_MASK;
    pcam_lun *l = NULL;
    pcam_ccb *only_untagged = NULL;
    bool any_tagged = false;
    bool tagged_left = false; /* NO_TAGS target: a command still tagged on the wire is out */

    bus->eng.state = ES_CONNECTED;
    bus->eng.conn_target = target;
    bus->eng.conn_lun = lun_id;
    bus->eng.sel_kind = SK_IO;
    bus->eng.nexus = NULL;
    if ((byte & PCAM_MSG_IDENTIFY) != 0 &&
        (byte & (PCAM_MSG_IDENTIFY_RESERVED | PCAM_MSG_IDENTIFY_LUNTAR)) == 0)
        l = pcam_core_lun(bus, target, lun_id);
    if (l != NULL) {
        /* Counts, not a walk, on the common path: a deep queue must not make
         * every reselection slower. Tagged commands mean the tag message
         * names the nexus (tag_in checks it is one of ours and disconnected). */
        bool wire_untagged = (bus->targets[target].dev.flags & PCAM_TGTF_NO_TAGS) != 0;
        any_tagged = !wire_untagged && l->q.active.count > l->q.active_untagged;
        if (!any_tagged && l->q.active.count > 0) {
            for (pcam_ccb *c = l->q.active.head; c != NULL; c = c->priv.next) {
                if ((c->priv.flags & PCAM_CF_DISCONNECTED) == 0)
                    continue;
                if (c->priv.tag_msg == 0 || (c->priv.flags & PCAM_CF_WIRE_UNTAGGED) != 0) {
                    if (only_untagged == NULL)
                        only_untagged = c;
                } else {
                    /* Issued with a tag before the target rejected tags: its
                     * reselection still sends the tag (found by the soak on
                     * hal/esp: such a command's data went into the untagged
                     * one's buffer). */
                    tagged_left = true;
                }
                if (only_untagged != NULL && (tagged_left || !wire_untagged))
                    break;
            }
        }
        if (only_untagged == NULL && tagged_left)
            any_tagged = true;
    }
    if (l == NULL || (only_untagged == NULL && !any_tagged)) {
        /* Nothing of ours is disconnected on that I_T_L: the target lies. */
        uint8_t m = PCAM_MSG_ABORT_TASK_SET;
        pcam_core_event(bus, PCAM_EV_BAD_RESELECT, target, lun_id, 0xFFFF);
        pcam_eng_queue_msgout(bus, &m, 1);
        bus->eng.expect_free = EF_NONE;
        accept(bus, true);
        return;
    }
    if (any_tagged) {
        bus->eng.engine_flags |= EGF_AWAIT_TAG;
    } else {
        reconnect(bus, only_untagged);
        if (tagged_left)
            bus->eng.engine_flags |= EGF_TAG_MAY_FOLLOW;
    }
    accept(bus, false);
}

/* A chained reselection (IDENTIFY, tag message, tag byte held) naming a
 * disconnected tagged command of ours: what identify_in() and tag_in()
 * would do on the general path, without replaying each byte through the
 * message decoder. Anything else goes the general way. */
static bool fast_tagged_reselect(pcam_bus *bus, const pcam_hal_event *ev)
{
    uint8_t target = ev->target;
    uint8_t lun = ev->byte & PCAM_MSG_IDENTIFY_LUN_MASK;
    if (ev->took != (PCAM_HAL_TOOK_IDENTIFY | PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_TAG) ||
        ev->phase != PCAM_PHASE_MSG_IN || ev->msg < PCAM_MSG_SIMPLE_TAG ||
        ev->msg > PCAM_MSG_ORDERED_TAG ||
        (ev->byte & (PCAM_MSG_IDENTIFY_RESERVED | PCAM_MSG_IDENTIFY_LUNTAR)) != 0 ||
        (bus->targets[target].dev.flags & PCAM_TGTF_NO_TAGS) != 0)
        return false;
    const pcam_lun *l = pcam_core_lun(bus, target, lun);
    if (l == NULL || l->q.active.count <= l->q.active_untagged)
        return false;
    pcam_ccb *c = pcam_q_find_tag(bus, target, lun, ev->tag);
    if (c == NULL || (c->priv.flags & PCAM_CF_DISCONNECTED) == 0)
        return false;
    bus->eng.state = ES_CONNECTED;
    bus->eng.conn_target = target;
    bus->eng.conn_lun = lun;
    reconnect(bus, c);
    pcam_eng_set_action(bus, ACT_ACCEPT, bus->hal.ops->msg_accept(bus->hal.sc, false));
    return true;
}

void pcam_eng_reselected(pcam_bus *bus, const pcam_hal_event *ev)
{
    if (ev->target >= bus->caps.max_targets || ev->target == bus->caps.initiator_id) {
        /* No such ID can reselect us: the chip or the bus is confused. */
        pcam_eng_fail_chip(bus);
        return;
    }
    bus->eng.msgin_len = 0;
    bus->eng.engine_flags = 0;
    bus->eng.zero_xfers = 0;
    pcam_eng_watch_start(bus);
    bus->eng.took = 0;
    if ((ev->took & PCAM_HAL_TOOK_IDENTIFY) != 0) {
        if (ev->parity_error || (ev->byte & PCAM_MSG_IDENTIFY) == 0) {
            /* The target went on after a byte the core would have asked for
             * again (or refused): nothing it says now can be trusted. */
            pcam_core_log(bus, PCAM_LOG_ERROR, "back-end accepted a reselection byte the core would not",
                          NULL);
            pcam_eng_fail_chip(bus);
            return;
        }
        /* Chained reselection: what came after the IDENTIFY is applied once
         * the nexus is known, where its accept would have gone on
         * (pcam_eng_accepted). */
        if (fast_tagged_reselect(bus, ev))
            return;
        bus->eng.took = ev->took;
        bus->eng.took_msg = ev->msg;
        bus->eng.took_status = ev->tag; /* no status byte in a reselection */
        bus->eng.took_phase = (uint8_t)ev->phase;
    }
    if (ev->parity_error) {
        uint8_t m = PCAM_MSG_MESSAGE_PARITY_ERROR;
        bus->eng.state = ES_CONNECTED;
        bus->eng.conn_target = ev->target;
        bus->eng.nexus = NULL;
        PCAM_COUNT(bus->targets[ev->target], parity_errors);
        pcam_eng_queue_msgout(bus, &m, 1);
        accept(bus, true);
        return;
    }
    identify_in(bus, ev->target, ev->byte);
}

static void tag_in(pcam_bus *bus, const pcam_msg *m)
{
    pcam_lun *l = pcam_core_lun(bus, bus->eng.conn_target, bus->eng.conn_lun);
    pcam_ccb *c = NULL;
    if ((bus->eng.engine_flags & EGF_TAG_MAY_FOLLOW) != 0 && l != NULL && bus->eng.nexus != NULL) {
        /* The reselection was for a command still tagged on the wire, not
         * for the untagged one taken as the nexus at the IDENTIFY: nothing
         * has moved yet, so put that one back and take the tagged one. */
        bus->eng.engine_flags &= (uint8_t)~EGF_TAG_MAY_FOLLOW;
        c = pcam_q_find_tag(bus, bus->eng.conn_target, bus->eng.conn_lun, m->tag);
        if (c != NULL && c != bus->eng.nexus && (c->priv.flags & PCAM_CF_DISCONNECTED) != 0 &&
            (c->priv.flags & PCAM_CF_WIRE_UNTAGGED) == 0) {
            pcam_ccb *guess = bus->eng.nexus;
            guess->priv.flags |= PCAM_CF_DISCONNECTED;
            guess->priv.data_ptr = guess->priv.saved_ptr;
            PCAM_UNCOUNT(bus->targets[guess->target], reselections);
            reconnect(bus, c);
            accept(bus, false);
            return;
        }
    }
    if ((bus->eng.engine_flags & EGF_AWAIT_TAG) == 0 || l == NULL) {
        reject_and_accept(bus);
        return;
    }
    c = pcam_q_find_tag(bus, bus->eng.conn_target, bus->eng.conn_lun, m->tag);
    if (c == NULL || (c->priv.flags & PCAM_CF_DISCONNECTED) == 0) {
        /* An unknown tag: abort that nexus at the target, keep everything else. */
        uint8_t a = PCAM_MSG_ABORT_TASK;
        pcam_core_event(bus, PCAM_EV_BAD_RESELECT, bus->eng.conn_target, bus->eng.conn_lun, m->tag);
        bus->eng.engine_flags &= (uint8_t)~EGF_AWAIT_TAG;
        pcam_eng_queue_msgout(bus, &a, 1);
        accept(bus, true);
        return;
    }
    reconnect(bus, c);
    accept(bus, false);
}

/* extended_in() maps SDTR, WDTR, PPR to their EGF_ANSWERED_* bit by offset. */
typedef char pcam_answered_bits_in_kind_order[PCAM_MSGK_WDTR == PCAM_MSGK_SDTR + 1 &&
                                                      PCAM_MSGK_PPR == PCAM_MSGK_SDTR + 2 &&
                                                      EGF_ANSWERED_WDTR == EGF_ANSWERED_SDTR << 1 &&
                                                      EGF_ANSWERED_PPR == EGF_ANSWERED_SDTR << 2
                                                  ? 1
                                                  : -1];

static void extended_in(pcam_bus *bus, const pcam_msg *m)
{
    pcam_ccb *c = bus->eng.nexus;
    uint8_t reply[PCAM_MSGOUT_BYTES];
    if (m->kind == PCAM_MSGK_MODIFY_DATA_POINTER) {
        int64_t np = c != NULL ? (int64_t)c->priv.data_ptr + m->mdp_argument : -1;
        if (c == NULL || np < 0 || np > (int64_t)c->u.io.data_len) {
            reject_and_accept(bus);
            return;
        }
        c->priv.data_ptr = (uint32_t)np;
        accept(bus, false);
        return;
    }
    if (bus->eng.conn_target >= PCAM_MAX_TARGETS) {
        reject_and_accept(bus);
        return;
    }
    /* A target that takes our answer to its request for a new request of the
     * same kind, and answers that, would go round until the command times out
     * (found by fuzz_engine: corpus/engine/nego_ping_pong). SPI gives it
     * MESSAGE REJECT to disagree with, so a second request of a kind we
     * already answered in this connection is refused (both ends go async or
     * narrow for it). */
    unsigned k = (unsigned)m->kind - PCAM_MSGK_SDTR; /* SDTR, WDTR, PPR: 0, 1, 2 */
    uint8_t once = k < 3u ? (uint8_t)(EGF_ANSWERED_SDTR << k) : 0u;
    bool theirs = !pcam_nego_in_flight(bus, bus->eng.conn_target);
    if (theirs && once != 0 && (bus->eng.engine_flags & once) != 0) {
        (void)pcam_nego_msg_in(bus, bus->eng.conn_target, bus->eng.msgin, bus->eng.msgin_len, NULL, 0);
        if (c != NULL)
            c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        reject_and_accept(bus);
        return;
    }
    int n = pcam_nego_msg_in(bus, bus->eng.conn_target, bus->eng.msgin, bus->eng.msgin_len, reply, sizeof reply);
    if (c != NULL)
        c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
    if (n < 0) {
        reject_and_accept(bus);
        return;
    }
    bus->eng.msgin_len = 0;
    if (n > 0) {
        if (theirs)
            bus->eng.engine_flags |= once;
        pcam_eng_queue_msgout(bus, reply, (uint8_t)n);
        if (c != NULL && pcam_nego_in_flight(bus, bus->eng.conn_target))
            c->priv.flags |= PCAM_CF_NEGO;
        accept(bus, true);
        return;
    }
    accept(bus, false);
}

static void message_reject_in(pcam_bus *bus)
{
    pcam_ccb *c = bus->eng.nexus;
    uint8_t last = bus->eng.last_msgout;
    pcam_core_event(bus, PCAM_EV_MSG_REJECT, bus->eng.conn_target, bus->eng.conn_lun, last);
    if (last >= PCAM_MSG_SIMPLE_TAG && last <= PCAM_MSG_ORDERED_TAG && c != NULL) {
        /* No tags on this target: this command runs untagged, later ones are issued untagged. */
        pcam_dev_tgt_flags(&bus->targets[c->target], PCAM_TGTF_NO_TAGS, 0);
        c->priv.flags |= PCAM_CF_WIRE_UNTAGGED;
        pcam_q_touch(bus);
        pcam_core_log(bus, PCAM_LOG_WARN, "target rejected a tag message; tagged queuing off", NULL);
    } else if (last == PCAM_MSG_ABORT_TASK || last == PCAM_MSG_ABORT_TASK_SET ||
               last == PCAM_MSG_CLEAR_TASK_SET || last == PCAM_MSG_TARGET_RESET ||
               last == PCAM_MSG_LOGICAL_UNIT_RESET) {
        /* Refused: whatever it was to end is still there, so the bus free
         * that follows is no sign of success. The recovery step's timer
         * takes the ladder a rung up. */
        bus->eng.engine_flags |= EGF_REFUSED;
        bus->eng.expect_free = EF_NONE;
        if (c != NULL)
            c->u.io.recovery |= (uint16_t)(last == PCAM_MSG_TARGET_RESET ||
                                                   last == PCAM_MSG_LOGICAL_UNIT_RESET
                                               ? PCAM_RCV_DEV_RESET_REFUSED
                                               : PCAM_RCV_ABORT_REFUSED);
        pcam_core_log(bus, PCAM_LOG_WARN, "target refused an abort or reset message", NULL);
    } else if (last == PCAM_MSG_EXTENDED && bus->eng.conn_target < PCAM_MAX_TARGETS &&
               pcam_nego_in_flight(bus, bus->eng.conn_target)) {
        if (c != NULL)
            c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        pcam_nego_rejected(bus, bus->eng.conn_target);
        uint8_t buf[PCAM_MSGOUT_BYTES];
        /* The ladder's next rung goes out at once, in the same connection. */
        if (pcam_nego_wanted(bus, bus->eng.conn_target)) {
            int n = pcam_nego_start(bus, bus->eng.conn_target, buf, sizeof buf);
            if (n > 0) {
                pcam_eng_queue_msgout(bus, buf, (uint8_t)n);
                if (c != NULL)
                    c->priv.flags |= PCAM_CF_NEGO;
                bus->eng.msgin_len = 0;
                accept(bus, true);
                return;
            }
        }
    }
    bus->eng.msgin_len = 0;
    accept(bus, false);
}

static void message_in(pcam_bus *bus, const pcam_msg *m)
{
    pcam_ccb *c = bus->eng.nexus;
    switch (m->kind) {
    case PCAM_MSGK_COMMAND_COMPLETE:
        if (c == NULL) {
            reject_and_accept(bus);
            return;
        }
        bus->eng.expect_free = EF_COMPLETE;
        break;
    case PCAM_MSGK_DISCONNECT:
        if (c == NULL) {
            reject_and_accept(bus);
            return;
        }
        PCAM_COUNT(bus->targets[c->target], disconnects);
        bus->eng.expect_free = EF_DISCONNECT;
        break;
    case PCAM_MSGK_SAVE_DATA_POINTER:
        if (c != NULL)
            c->priv.saved_ptr = c->priv.data_ptr;
        break;
    case PCAM_MSGK_RESTORE_POINTERS:
        if (c != NULL) {
            c->priv.data_ptr = c->priv.saved_ptr;
            /* The answer to our INITIATOR DETECTED ERROR: the bad bytes come
             * again, so the command need not be retried for them. */
            if (bus->eng.last_msgout == PCAM_MSG_INITIATOR_DETECTED_ERROR &&
                (c->priv.recovery & 0x1Fu) <= PCAM_IDE_LIMIT)
                c->priv.flags &= (uint8_t)~PCAM_CF_PARITY;
        }
        break;
    case PCAM_MSGK_MESSAGE_REJECT:
        message_reject_in(bus);
        return;
    case PCAM_MSGK_NO_OPERATION:
        break;
    case PCAM_MSGK_SIMPLE_TAG:
    case PCAM_MSGK_HEAD_OF_QUEUE_TAG:
    case PCAM_MSGK_ORDERED_TAG:
        bus->eng.msgin_len = 0;
        tag_in(bus, m);
        return;
    case PCAM_MSGK_IDENTIFY:
        if (c == NULL && (bus->eng.engine_flags & EGF_AWAIT_TAG) == 0 && bus->eng.sel_kind == SK_IO &&
            bus->eng.mgmt_ccb == NULL) {
            /* The IDENTIFY again, after our MESSAGE PARITY ERROR. (On a
             * connection of our own for a reset there is no nexus either,
             * but an IDENTIFY there is the target's confusion: reject it.) */
            bus->eng.msgin_len = 0;
            identify_in(bus, bus->eng.conn_target, m->code);
            return;
        }
        reject_and_accept(bus);
        return;
    case PCAM_MSGK_IGNORE_WIDE_RESIDUE:
        if (c != NULL && c->priv.data_ptr >= m->residue)
            c->priv.data_ptr -= m->residue;
        break;
    case PCAM_MSGK_SDTR:
    case PCAM_MSGK_WDTR:
    case PCAM_MSGK_PPR:
    case PCAM_MSGK_MODIFY_DATA_POINTER:
        extended_in(bus, m);
        return;
    default:
        /* Linked commands, QAS, anything reserved: we do not do it. */
        reject_and_accept(bus);
        return;
    }
    bus->eng.msgin_len = 0;
    accept(bus, false);
}

/* The messages of every command (the tag of a reselection, SAVE DATA
 * POINTER, DISCONNECT, COMMAND COMPLETE) are known from their first byte
 * (and the tag byte): take them without the general decoder, which costs
 * far more per byte. Everything else goes the long way. */
static bool fast_message(pcam_bus *bus, uint8_t byte)
{
    pcam_msg m;
    if (bus->eng.msgin_len == 1) {
        uint8_t code = bus->eng.msgin[0];
        if (code < PCAM_MSG_SIMPLE_TAG || code > PCAM_MSG_ORDERED_TAG)
            return false;
        m.kind = code == PCAM_MSG_SIMPLE_TAG      ? PCAM_MSGK_SIMPLE_TAG
                 : code == PCAM_MSG_ORDERED_TAG   ? PCAM_MSGK_ORDERED_TAG
                                                  : PCAM_MSGK_HEAD_OF_QUEUE_TAG;
        m.code = code;
        m.tag = byte;
        bus->eng.msgin[bus->eng.msgin_len++] = byte;
        message_in(bus, &m);
        return true;
    }
    if (bus->eng.msgin_len != 0)
        return false;
    switch (byte) {
    case PCAM_MSG_COMMAND_COMPLETE: m.kind = PCAM_MSGK_COMMAND_COMPLETE; break;
    case PCAM_MSG_SAVE_DATA_POINTER: m.kind = PCAM_MSGK_SAVE_DATA_POINTER; break;
    case PCAM_MSG_RESTORE_POINTERS: m.kind = PCAM_MSGK_RESTORE_POINTERS; break;
    case PCAM_MSG_DISCONNECT: m.kind = PCAM_MSGK_DISCONNECT; break;
    case PCAM_MSG_SIMPLE_TAG:
    case PCAM_MSG_HEAD_OF_QUEUE_TAG:
    case PCAM_MSG_ORDERED_TAG:
        bus->eng.msgin[bus->eng.msgin_len++] = byte;
        accept(bus, false); /* the tag byte follows */
        return true;
    default:
        return false;
    }
    m.code = byte;
    bus->eng.msgin[bus->eng.msgin_len++] = byte;
    message_in(bus, &m);
    return true;
}

void pcam_eng_msg_byte(pcam_bus *bus, const pcam_hal_event *ev)
{
    if (ev->parity_error) {
        /* Ask for the whole message again. */
        uint8_t m = PCAM_MSG_MESSAGE_PARITY_ERROR;
        if (bus->eng.conn_target < PCAM_MAX_TARGETS) {
            pcam_core_event(bus, PCAM_EV_PARITY, bus->eng.conn_target, bus->eng.conn_lun, PCAM_PHASE_MSG_IN);
            pcam_nego_parity(bus, bus->eng.conn_target);
        }
        bus->eng.msgin_len = 0;
        pcam_eng_queue_msgout(bus, &m, 1);
        accept(bus, true);
        return;
    }
    if (bus->eng.msgin_len >= PCAM_MSGIN_BYTES) {
        reject_and_accept(bus);
        return;
    }
    if (fast_message(bus, ev->byte))
        return;
    bus->eng.msgin[bus->eng.msgin_len++] = ev->byte;
    pcam_msg m;
    int need = pcam_msg_decode(bus->eng.msgin, bus->eng.msgin_len, &m, NULL);
    if (need > 0) {
        accept(bus, false);
        return;
    }
    if (need < 0) {
        reject_and_accept(bus);
        return;
    }
    message_in(bus, &m);
}

void pcam_eng_msgout_taken(pcam_bus *bus, uint32_t count)
{
    uint8_t first = bus->eng.msgout_len > 0 ? bus->eng.msgout[0] : 0;
    if (count > 0) {
        /* Once an abort or reset went out, the bus free it asks for is
         * matched to it: a MESSAGE REJECT we send afterwards (to a target
         * that kept talking) must not make that bus free look unexpected. */
        if (bus->eng.expect_free != EF_ABORT)
            bus->eng.last_msgout = first;
        switch (first) {
        case PCAM_MSG_ABORT_TASK:
        case PCAM_MSG_ABORT_TASK_SET:
        case PCAM_MSG_CLEAR_TASK_SET:
        case PCAM_MSG_TARGET_RESET:
        case PCAM_MSG_LOGICAL_UNIT_RESET:
            bus->eng.expect_free = EF_ABORT;
            break;
        default:
            break;
        }
    }
    bus->eng.msgout_len = 0;
}

void pcam_eng_msgout_done(pcam_bus *bus, const pcam_hal_event *ev)
{
    pcam_eng_msgout_taken(bus, ev->count);
    pcam_eng_after_action(bus, ev);
}
