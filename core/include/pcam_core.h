/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core's internal interfaces between its concerns, top layer first
 * (a folder calls only the ones below it; docs/design.md, "Layers inside
 * the core", and tests/layering/check.sh):
 *   xpt     the entry points: CCB dispatch, device table, the bus scan
 *   engine  the phase-level state machine, how a command's turn ends, the
 *           timeout ladder (ladder.c), the script/command-level path
 *   retry   what to do with a finished command (retry, delay, fail)
 *   queue   per-LUN pending/active queues, tags, depth control, aging, the
 *           bus scheduler that picks what to issue next
 *   nego    per-target user/goal/current agreements and SDTR/WDTR/PPR
 *   common  CCB lists, completion delivery, async events, the event ring, log
 *   proto   codecs and texts
 * Each pcam_bus sub-struct is written only by its folder; others read it
 * through the accessors here. Everything here runs with the bus lock held.
 */
#ifndef PCAM_CORE_H
#define PCAM_CORE_H

#include "pcam/pcam.h"
#include "pcam_util.h"

/* ---- CCB private state (ccb->priv.state) ---- */
enum {
    PCAM_CS_FREE = 0,     /* not in the core */
    PCAM_CS_PENDING,      /* on a LUN's pending queue */
    PCAM_CS_ACTIVE,       /* issued: selecting, connected or disconnected */
    PCAM_CS_MGMT,         /* on the bus management queue */
    PCAM_CS_DONE          /* on done_q, callback not yet run */
};
/* ccb->priv.flags */
enum {
    PCAM_CF_SENSE = 1u << 0,      /* running its autosense REQUEST SENSE */
    PCAM_CF_DISCONNECTED = 1u << 1,
    PCAM_CF_TIMED_OUT = 1u << 2,
    PCAM_CF_ABORT = 1u << 3,      /* abort requested: send ABORT TASK at next connection */
    PCAM_CF_NEGO = 1u << 4,       /* carried a negotiation message on selection */
    PCAM_CF_PARITY = 1u << 5,     /* a parity error hit this command */
    PCAM_CF_WIRE_UNTAGGED = 1u << 6, /* the target rejected its tag: it runs untagged on the wire */
    PCAM_CF_BUS_SENSE = 1u << 7   /* its autosense went to the bus's own buffer (no sense buffer given) */
};
#define PCAM_CCB_MAGIC 0x5CA5u

/* ---- target flags (pcam_target.flags) ---- */
enum {
    PCAM_TGTF_PRESENT = 1u << 0,
    PCAM_TGTF_NO_TAGS = 1u << 1,  /* the target rejected a tag message */
    PCAM_TGTF_BLOCKED = 1u << 2,  /* recovery in progress: issue nothing */
    PCAM_TGTF_RESET_UA = 1u << 3  /* we reset it (bus reset, BDR, LUN reset) and renegotiate: its
                                     next UNIT ATTENTION 29/xx reports that reset, not a new
                                     one (cleared by that report or by a GOOD status) */
};
/* ---- LUN flags (pcam_lun.flags) ---- */
enum {
    PCAM_LUNF_PRESENT = 1u << 0,
    PCAM_LUNF_TAGGED = 1u << 1,   /* INQUIRY said CmdQue */
    PCAM_LUNF_RESET_UA = 1u << 2  /* the core reset or saw the reset of this LUN: its next UNIT
                                     ATTENTION 29/xx is that reset's, already reported as an
                                     event, and costs no retry (cleared by it or by GOOD) */
};
/* ---- lookups ---- */
static inline pcam_lun *pcam_core_lun(pcam_bus *bus, uint8_t target, uint8_t lun)
{
    if (target >= PCAM_MAX_TARGETS || lun >= bus->cfg.luns_per_target)
        return NULL;
    size_t i = (size_t)target * bus->cfg.luns_per_target + lun;
    return i < bus->nluns ? &bus->luns[i] : NULL;
}
static inline uint64_t pcam_core_now(const pcam_bus *bus)
{
    return bus->plat.now_ns(bus->plat.ctx);
}
#define PCAM_MS(ms) ((uint64_t)(ms) * 1000000u)

/* A command's timeout (its own, or the bus default). */
static inline uint32_t pcam_core_timeout_ms(const pcam_bus *bus, const pcam_ccb *ccb)
{
    return ccb->timeout_ms != 0 ? ccb->timeout_ms : bus->cfg.default_timeout_ms;
}
/* How long a command may live in the core, in platform time: its timeout
 * runs afresh at each issue to the target, but requeues (QUEUE FULL, BUSY,
 * NOT READY polls, reset bystanders, retries) and waiting to be issued all
 * count against twice that timeout from submission. Past it a pending
 * command completes with CMD_TIMEOUT, and an issue gets only what is left. */
#define PCAM_LIFE_TIMEOUTS 2u
static inline uint64_t pcam_core_life_end(const pcam_bus *bus, const pcam_ccb *ccb)
{
    return ccb->priv.queued_ns + PCAM_MS((uint64_t)PCAM_LIFE_TIMEOUTS * pcam_core_timeout_ms(bus, ccb));
}

/* ---- intrusive queues (core/common/ccbq.c) ---- */
/* Append: inline, as every command is appended to three lists (pending,
 * active, completions) on its way through. */
static inline void pcam_ccbq_push_tail(pcam_ccb_queue *q, pcam_ccb *ccb)
{
    ccb->priv.next = NULL;
    ccb->priv.prev = q->tail;
    if (q->tail != NULL)
        q->tail->priv.next = ccb;
    else
        q->head = ccb;
    q->tail = ccb;
    q->count++;
}
void pcam_ccbq_push_head(pcam_ccb_queue *q, pcam_ccb *ccb);
void pcam_ccbq_remove(pcam_ccb_queue *q, pcam_ccb *ccb);
pcam_ccb *pcam_ccbq_pop_head(pcam_ccb_queue *q);

#include "../queue/queue_inline.h"
#include "../engine/engine_inline.h"

/* Drop one freeze count the core took (autosense, recovery). */
static inline void pcam_core_unfreeze(pcam_bus *bus, pcam_lun *l)
{
    if (l != NULL && pcam_q_thaw(l))
        pcam_q_touch(bus);
}

/* ---- events, async, completion, log (core/common) ---- */
void pcam_core_event(pcam_bus *bus, uint16_t code, uint8_t target, uint8_t lun, uint32_t arg);
void pcam_core_async(pcam_bus *bus, uint32_t code, uint8_t target, uint8_t lun);
void pcam_core_log(pcam_bus *bus, pcam_log_level level, const char *a, const char *b);
/* A log text passed on before it reaches pcam_core_log(). */
#if PCAM_CFG_LOG_TEXT
#define PCAM_LOG_TEXT(s) (s)
#else
#define PCAM_LOG_TEXT(s) NULL
/* The message texts are left out (pcam_config.h); the detail stays. */
#define pcam_core_log(bus, level, a, b) (pcam_core_log)((bus), (level), NULL, (b))
#endif
/* Finish a CCB: set its status and queue it for its callback. The
 * callbacks run when the core unwinds (never re-entering a half-updated
 * engine), each exactly once. */
void pcam_core_complete(pcam_bus *bus, pcam_ccb *ccb, uint32_t status);
void pcam_core_run_completions(pcam_bus *bus);
#include "../common/common_inline.h"
/* A reset the core did or saw reached `target` (0xFF: every target) and
 * `lun` (0xFF: every LUN): arm the per-LUN expectation of its UNIT ATTENTION. */
static inline void pcam_core_expect_reset_ua(pcam_bus *bus, uint8_t target, uint8_t lun)
{
    for (size_t i = 0; i < bus->nluns; i++) {
        uint8_t t = (uint8_t)(i / bus->cfg.luns_per_target);
        uint8_t u = (uint8_t)(i % bus->cfg.luns_per_target);
        if ((target == 0xFF || t == target) && (lun == 0xFF || u == lun))
            pcam_dev_lun_flags(&bus->luns[i], PCAM_LUNF_RESET_UA, 0);
    }
}

/* PCAM_FN_SET_ASYNC: register, update or drop an async callback. */
uint32_t pcam_core_set_async(pcam_bus *bus, const pcam_ccb *ccb);

/* ---- queue (core/queue) ---- */
void pcam_q_lun_init(pcam_bus *bus, pcam_lun *lun);
/* A new SCSI I/O: onto the LUN's pending queue (HEAD OF QUEUE at the front). */
void pcam_q_submit(pcam_bus *bus, pcam_lun *lun, pcam_ccb *ccb);
/* The scheduler: the next CCB to issue, or NULL. Applies depth, tag
 * exclusivity, freezes, holds, per-LUN and per-bus aging; on return the CCB
 * is on its LUN's active queue with priv.tag / priv.tag_msg chosen
 * (tag_msg 0 = untagged). */
pcam_ccb *pcam_q_next(pcam_bus *bus, uint64_t now);
/* An issued CCB goes back to the front of its pending queue, tag freed, as if
 * never issued (lost arbitration, QUEUE FULL, bystander of a reset); no
 * retry is spent. */
void pcam_q_requeue(pcam_bus *bus, pcam_ccb *ccb);
/* An issued CCB leaves the active queue for good; `good` feeds the depth ramp. */
void pcam_q_retire(pcam_bus *bus, pcam_ccb *ccb, bool good);
/* QUEUE FULL on `ccb`: the depth drops to what the target held (floor
 * applies), `ccb` is requeued at the front. Returns the new depth. */
uint16_t pcam_q_queue_full(pcam_bus *bus, pcam_ccb *ccb);
/* Timer: re-evaluate per-bus aging when it is due (it may release held targets). */
void pcam_q_tick(pcam_bus *bus, uint64_t now);
/* Find the active CCB for a reselection: tag < 0 means the untagged one. */
pcam_ccb *pcam_q_find(pcam_lun *lun, int tag);
/* The same answer from the bus's tag index: O(1) in the queue depth. */
pcam_ccb *pcam_q_find_tag(pcam_bus *bus, uint8_t target, uint8_t lun, int tag);
/* Earliest time a held LUN with work becomes issuable again, UINT64_MAX if
 * none. O(LUNs): for tests and diagnostics; the engine keeps bus->eng.hold_ns. */
uint64_t pcam_q_next_hold(const pcam_bus *bus);
const char *pcam_q_check(const pcam_bus *bus, const pcam_lun *lun);

/* ---- nego (core/nego) ---- */
void pcam_nego_init(pcam_bus *bus, uint8_t target);
/* Bus reset, UNIT ATTENTION, BDR: back to asynchronous narrow on both ends,
 * renegotiate on the next command. */
void pcam_nego_invalidate(pcam_bus *bus, uint8_t target);
/* Should the next selection of `target` carry a negotiation message? */
bool pcam_nego_wanted(const pcam_bus *bus, uint8_t target);
/* Write the negotiation message to send (PPR, WDTR or SDTR) into buf; marks
 * it in flight. Returns bytes written, 0 for none, negative on error. */
int pcam_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap);
/* A complete extended message (SDTR/WDTR/PPR bytes, starting 0x01) from
 * the target. Returns bytes of reply written to `reply` (our answer to a
 * target-initiated request, or our next message in the WDTR-then-SDTR
 * sequence), 0 when nothing is to be sent, or -1 when the engine must send
 * MESSAGE REJECT. */
int pcam_nego_msg_in(pcam_bus *bus, uint8_t target, const uint8_t *msg, size_t len,
                     uint8_t *reply, size_t cap);
/* Our in-flight negotiation message was answered with MESSAGE REJECT. */
void pcam_nego_rejected(pcam_bus *bus, uint8_t target);
/* The target left MESSAGE OUT without answering our negotiation. */
void pcam_nego_no_answer(pcam_bus *bus, uint8_t target);
/* A parity (or CRC) error on this target: count it, step down when due. */
void pcam_nego_parity(pcam_bus *bus, uint8_t target);
/* PCAM_FN_SET_TRAN / PCAM_FN_GET_TRAN. */
void pcam_nego_set_user(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *s);
void pcam_nego_get(const pcam_bus *bus, uint8_t target, pcam_tran_type type, pcam_xfer_settings *out);
/* The negotiation message pcam_nego_start wrote never reached the target
 * (lost arbitration, selection timeout, target left MESSAGE OUT early for
 * another reason): forget it was in flight, keep it wanted. */
void pcam_nego_cancel(pcam_bus *bus, uint8_t target);
/* Is a negotiation message of ours in flight (awaiting the target's answer)? */
bool pcam_nego_in_flight(const pcam_bus *bus, uint8_t target);

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

/* ---- retry policy (core/retry) ---- */
typedef enum pcam_retry_action {
    PCAM_RA_COMPLETE,      /* finish with the status already set */
    PCAM_RA_RETRY,         /* requeue, one retry spent */
    PCAM_RA_RETRY_DELAY,   /* requeue after *delay_ms, one retry spent */
    PCAM_RA_QUEUE_FULL,    /* lower the depth and requeue, no retry spent */
    PCAM_RA_REQUEUE        /* requeue after *delay_ms (may be 0), no retry spent */
} pcam_retry_action;
/* Decide what to do with a SCSI I/O whose status phase has passed (and
 * whose autosense, if any, is in). Sets ccb->status for PCAM_RA_COMPLETE.
 * Triggers renegotiation on UNIT ATTENTION for power-on/reset. */
pcam_retry_action pcam_retry_decide(pcam_bus *bus, pcam_ccb *ccb, uint32_t *delay_ms);
/* A transport failure (parity, unexpected bus free, illegal phase...): retry
 * within the budget, else complete with `status`. */
pcam_retry_action pcam_retry_transport(pcam_bus *bus, pcam_ccb *ccb, uint32_t status);

/* ---- scan (core/xpt/scan.c) ---- */
void pcam_scan_start(pcam_bus *bus, pcam_ccb *ccb);
/* PCAM_FN_ABORT of a scan request: false if the victim is none (the engine's). */
bool pcam_scan_abort(pcam_bus *bus, pcam_ccb *ccb);
/* Complete every scan request, waiting or running, with `status`. */
void pcam_scan_cancel(pcam_bus *bus, uint32_t status);

/* ---- engine (core/engine) ---- */
/* PCAM_FN_ABORT, PCAM_FN_RESET_BUS, shutdown. */
void pcam_engine_abort(pcam_bus *bus, pcam_ccb *ccb);
void pcam_engine_reset_bus(pcam_bus *bus, pcam_ccb *ccb);
void pcam_engine_reset_dev(pcam_bus *bus, pcam_ccb *ccb);
void pcam_engine_shutdown(pcam_bus *bus);
void pcam_engine_init(pcam_bus *bus);
/* pcam_bus_check_invariants()'s engine part: no orphan active CCB, sane
 * sense and abort lists. `nactive` is the number of active CCBs on the bus. */
const char *pcam_engine_check(const pcam_bus *bus, uint32_t nactive);
/* The nexus is a disconnected CCB we are selecting to abort or reset (it
 * stays marked disconnected: its reselection may still win the bus). */
bool pcam_engine_nexus_aborting(const pcam_bus *bus);
/* pcam_engine_kick() past its quick answer (below, after pcam_dec_active). */
void pcam_engine_kick_slow(pcam_bus *bus);
/* Process every chip event pending. Returns true if any. */
bool pcam_engine_events(pcam_bus *bus);
/* Timers: command deadlines, recovery steps. */
void pcam_engine_tick(pcam_bus *bus, uint64_t now);

/* Per-target statistics, compiled out with PCAM_CFG_COUNTERS 0. */
#if PCAM_CFG_COUNTERS
#define PCAM_COUNT(tgt, field) ((void)((tgt).counters.field++))
#define PCAM_UNCOUNT(tgt, field) ((void)((tgt).counters.field--)) /* take back a count */
#else
#define PCAM_COUNT(tgt, field) ((void)sizeof(tgt)) /* uses tgt, evaluates nothing */
#define PCAM_UNCOUNT(tgt, field) ((void)sizeof(tgt))
#endif

/* ---- decide: script-level and command-level back-ends (core/engine/decide.c) ---- */
/* The chip runs the phases: the core hands it whole commands and answers
 * its questions (pcam_hal.h, hal_cmd). */
/* Does `hal` have every op its profile needs? (Without PCAM_CFG_CMDLEVEL
 * only the phase-level profile is accepted.) */
bool pcam_dec_hal_ok(const pcam_hal *hal, pcam_hal_profile profile);
#if PCAM_CFG_CMDLEVEL
static inline bool pcam_dec_active(const pcam_bus *bus)
{
    return bus->caps.profile == PCAM_HAL_SCRIPT_LEVEL || bus->caps.profile == PCAM_HAL_COMMAND_LEVEL;
}
/* pcam_bus_init's last step: tell the back-end its bus. */
void pcam_dec_attach(pcam_bus *bus);
/* The pcam_bus_hal_*() entry points (pcam_hal.h) past core/xpt, which owns
 * the public names and checks `bus` (it notes that the back-end called). */
int pcam_dec_done(pcam_bus *bus, const void *handle, uint8_t target, uint8_t lun,
                  const pcam_hal_cmd_result *res);
int pcam_dec_reset_done(pcam_bus *bus, uint8_t target, uint8_t lun, bool lun_reset, uint32_t status);
int pcam_dec_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap);
void pcam_dec_nego_end(pcam_bus *bus, uint8_t target, bool sent);
int pcam_dec_msg_in(pcam_bus *bus, uint8_t target, uint8_t lun, const uint8_t *msg, size_t len,
                    uint8_t *reply, size_t cap);
int pcam_dec_msg_reject(pcam_bus *bus, uint8_t target, uint8_t rejected, uint8_t *next, size_t cap);
void pcam_dec_parity(pcam_bus *bus, uint8_t target);
/* pcam_engine_kick for these profiles: start autosense, recovery steps,
 * device resets and new commands at the back-end. */
void pcam_dec_kick(pcam_bus *bus);
#else
/* A constant false lets the compiler drop every script-level branch. */
static inline bool pcam_dec_active(const pcam_bus *bus)
{
    (void)bus;
    return false;
}
static inline void pcam_dec_attach(pcam_bus *bus) { (void)bus; }
static inline void pcam_dec_kick(pcam_bus *bus) { (void)bus; }
#endif

/* Start the next bus action if the bus is idle. Asked after every chip
 * event and on every way out of the core; most of the time the bus is busy
 * or nothing can have become startable, and that answer is inline (state 0
 * is the engine's idle state; a read only, the engine owns bus->eng). It
 * holds for the script/command-level kick (pcam_dec_kick) too: with no
 * autosense, abort, recovery step or device reset waiting, that one only
 * asks the scheduler, which has nothing until the queues change, and only
 * while the back-end has room. */
static inline void pcam_engine_kick(pcam_bus *bus)
{
    if (bus->eng.state != 0 || bus->eng.shut_down)
        return;
    if (bus->eng.sense_head == NULL && bus->lad.abort_head == NULL && bus->lad.step == 0 &&
        bus->eng.mgmt.head == NULL && (!pcam_q_dirty(bus) || pcam_engine_hal_no_room(bus)))
        return;
    pcam_engine_kick_slow(bus);
}

#endif /* PCAM_CORE_H */
