/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared between the engine's files (engine.c, ending.c, msgin.c, ladder.c,
 * decide.c, engine_check.c): states and the helpers they call. Never
 * included outside core/engine (tests/layering/check.sh). */
#ifndef PCAM_ENGINE_INTERNAL_H
#define PCAM_ENGINE_INTERNAL_H

#include "engine.h"
#include "../retry/retry.h"
#include "../queue/queue.h"
#include "../nego/nego.h"
#include "pcam/pcam_msg.h"

/* bus->eng.state */
enum { ES_IDLE = 0, ES_SELECTING, ES_CONNECTED, ES_RESETTING, ES_DEAD };
/* bus->eng.action: the chip action whose event is owed */
enum { ACT_NONE = 0, ACT_SELECT, ACT_XFER, ACT_MSGOUT, ACT_MSGIN, ACT_ACCEPT, ACT_RESET };
/* bus->eng.expect_free: why the next bus free is expected */
enum { EF_NONE = 0, EF_COMPLETE, EF_DISCONNECT, EF_ABORT };
/* bus->eng.sel_kind */
enum { SK_IO = 0, SK_MGMT, SK_ABORT };
/* bus->eng.xfer_kind */
enum { XK_DATA = 0, XK_SENSE, XK_COMMAND, XK_STATUS, XK_BUCKET };
/* bus->eng.engine_flags */
enum {
    EGF_AWAIT_TAG = 1u << 0,   /* reselected, nexus known once the tag message arrives */
    EGF_HAL_FULL = PCAM_ENG_HAL_FULL, /* decide.c: the back-end refused a command for want of
                                         room (engine.h reads it as PCAM_ENG_HAL_FULL)  */
    EGF_ANSWERED_SDTR = 1u << 2, /* this connection: we answered the target's own SDTR, */
    EGF_ANSWERED_WDTR = 1u << 3, /* ... its WDTR, */
    EGF_ANSWERED_PPR = 1u << 4,  /* ... its PPR (one answer per kind per connection) */
    EGF_REFUSED = 1u << 5,       /* the target rejected our abort or reset message */
    EGF_TAG_MAY_FOLLOW = 1u << 6 /* reselected: took the untagged command as the nexus, but a
                                    command sent tagged before the target rejected tags is
                                    disconnected too; a tag message now names that one */
};
/* decide.c: ccb->priv.recovery of a command handed to a script/command-level
 * back-end (the phase-level INITIATOR DETECTED ERROR count is unused there). */
enum {
    DEC_AT_HAL = 1u << 6,      /* the back-end holds it and owes a pcam_bus_hal_done() */
    DEC_ABORT_SENT = 1u << 7   /* pcam_hal_cmd_ops::abort was called for it */
};
/* ccb->priv.recovery, both paths: its REQUEST SENSE was sent again once
 * because the first one met CHECK CONDITION itself (ending.c). */
#define PCAM_REC_SENSE_AGAIN 0x20u
/* INITIATOR DETECTED ERRORs per command before a parity error is left to a retry. */
#define PCAM_IDE_LIMIT 3u
/* bus->lad.step: the escalation step in progress */
enum { RS_NONE = 0, RS_ABORT, RS_BDR, RS_BDR_SENT, RS_BUS_RESET, RS_CHIP_RESET };

/* engine.c */
/* The deadline an issue at `now` gets: its timeout, cut to what is left of
 * its life in the core (pcam_core_life_end); 0 when nothing is left. */
uint64_t pcam_eng_issue_deadline(const pcam_bus *bus, const pcam_ccb *ccb, uint64_t now);
void pcam_eng_on_phase(pcam_bus *bus, pcam_phase phase);
/* The action the event reports ended: go on from the phase it ended in,
 * applying first the steps a chaining back-end took after it (pcam_hal.h). */
void pcam_eng_after_action(pcam_bus *bus, const pcam_hal_event *ev);
/* The core accepts the message byte the back-end already accepted (chained
 * endings): go on from the phase the back-end reported after it. */
void pcam_eng_accepted(pcam_bus *bus, bool atn);
void pcam_eng_abandon_nexus(pcam_bus *bus, uint8_t msg);
/* ladder.c: a user device/LUN reset (management CCB) goes out under a
 * recovery-step deadline; this ends that step once the CCB left the bus. */
void pcam_eng_mgmt_step_start(pcam_bus *bus);
void pcam_eng_mgmt_step_over(pcam_bus *bus);
/* ladder.c: an I/O CCB is leaving the core; if a recovery step was
 * working on it, the step must forget it. */
void pcam_eng_recov_ccb_gone(pcam_bus *bus, pcam_ccb *ccb);
/* ladder.c: a reselection has no command of ours (with its deadline) on
 * the bus until it names one; these arm and end a deadline for that time. */
void pcam_eng_watch_start(pcam_bus *bus);
void pcam_eng_watch_over(pcam_bus *bus);
void pcam_eng_fail_chip(pcam_bus *bus);

/* ending.c: how a command's turn on the bus ends */
void pcam_eng_on_bus_free(pcam_bus *bus);
/* The REQUEST SENSE of `c` could not be done (selection timeout,
 * unexpected bus free): it finishes with what it has. */
void pcam_eng_sense_failed(pcam_bus *bus, pcam_ccb *c);
void pcam_eng_finish_io(pcam_bus *bus, pcam_ccb *ccb);
void pcam_eng_requeue(pcam_bus *bus, pcam_ccb *ccb);
void pcam_eng_retire(pcam_bus *bus, pcam_ccb *ccb, uint32_t status);
/* A SCSI I/O CCB taken off its pending queue ends with an error `status`,
 * counted in its target's commands and errors as any other ending is. */
void pcam_eng_end_unissued(pcam_bus *bus, pcam_ccb *ccb, uint32_t status);
void pcam_eng_lost_select(pcam_bus *bus);
/* Carry out a recovery decision for a finished command (complete, retry,
 * requeue after a delay, QUEUE FULL). */
void pcam_eng_apply(pcam_bus *bus, pcam_ccb *c, pcam_retry_action a, uint32_t delay_ms);
/* The sense bytes autosense fetched for `ccb`: its own buffer, or the bus's
 * when the caller gave none (recovery still needs to see a UNIT ATTENTION). */
static inline const uint8_t *pcam_core_sense(const pcam_bus *bus, const pcam_ccb *ccb, uint32_t *len)
{
    if ((ccb->priv.flags & PCAM_CF_BUS_SENSE) != 0) {
        *len = bus->eng.sense_got;
        return bus->eng.sense_buf;
    }
    *len = (uint32_t)ccb->u.io.sense_len - ccb->u.io.sense_resid;
    return ccb->u.io.sense;
}
/* The retry policy's decision on `c`, handed the sense bytes wherever
 * autosense put them (core/retry cannot see the engine's buffer); only a
 * command with valid autosense has any, and the policy reads them only then. */
static inline pcam_retry_action pcam_eng_decide(pcam_bus *bus, pcam_ccb *c, uint32_t *delay_ms)
{
    uint32_t n = 0;
    const uint8_t *sense = NULL;
    if ((c->status & PCAM_AUTOSNS_VALID) != 0)
        sense = pcam_core_sense(bus, c, &n);
    return pcam_retry_decide(bus, c, sense, n, delay_ms);
}

/* msgin.c */
void pcam_eng_msg_byte(pcam_bus *bus, const pcam_hal_event *ev);
void pcam_eng_reselected(pcam_bus *bus, const pcam_hal_event *ev);
void pcam_eng_msgout_done(pcam_bus *bus, const pcam_hal_event *ev);
/* `count` bytes of the queued message-out were taken: note what was said
 * (so the bus free an abort or reset causes is expected) and clear it. */
void pcam_eng_msgout_taken(pcam_bus *bus, uint32_t count);
void pcam_eng_queue_msgout(pcam_bus *bus, const uint8_t *msg, uint8_t len);

/* ladder.c */
bool pcam_eng_start_recovery_io(pcam_bus *bus);
void pcam_eng_bus_reset_seen(pcam_bus *bus);
void pcam_eng_recovery_success(pcam_bus *bus, uint8_t msg_sent, uint8_t target, uint8_t lun,
                               pcam_ccb *victim);
void pcam_eng_select(pcam_bus *bus, pcam_ccb *ccb, uint8_t kind, uint8_t extra_msg);
void pcam_eng_escalate(pcam_bus *bus);
void pcam_eng_request_abort(pcam_bus *bus, pcam_ccb *victim);

/* A LUN hold until `until` was set: the next deadline must cover it. */
static inline void pcam_core_note_hold(pcam_bus *bus, uint64_t until)
{
    if (until < bus->eng.hold_ns)
        bus->eng.hold_ns = until;
}
/* Undo everything an issue did so the CCB can be issued again. */
static inline void pcam_eng_reset_io_state(pcam_ccb *ccb)
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

/* The negotiation message `c` carried on its selection never reached the
 * target (lost arbitration, selection timeout, left MESSAGE OUT early):
 * not in flight after all, still wanted. */
static inline void pcam_eng_nego_unsent(pcam_bus *bus, pcam_ccb *c)
{
    if ((c->priv.flags & PCAM_CF_NEGO) != 0) {
        c->priv.flags &= (uint8_t)~PCAM_CF_NEGO;
        pcam_nego_cancel(bus, c->target);
    }
}
/* The bus is free of us: no connection, no action, nothing half-said. */
static inline void pcam_eng_connected_idle(pcam_bus *bus)
{
    bus->eng.state = ES_IDLE;
    bus->eng.action = ACT_NONE;
    bus->eng.nexus = NULL;
    bus->eng.mgmt_ccb = NULL;
    bus->eng.conn_target = 0xFF;
    bus->eng.expect_free = EF_NONE;
    bus->eng.engine_flags = 0;
    bus->eng.msgin_len = 0;
    bus->eng.msgout_len = 0;
    bus->eng.zero_xfers = 0;
    bus->eng.took = 0;
}

static inline void pcam_eng_set_action(pcam_bus *bus, uint8_t act, int rc)
{
    bus->eng.action = act;
    if (rc < 0)
        pcam_eng_fail_chip(bus);
}

#endif /* PCAM_ENGINE_INTERNAL_H */
