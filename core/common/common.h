/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layer 1 of the core (docs/design.md, "Layers inside the core"): what
 * core/common owns and every layer above may use. The CCB's private state
 * and flags, the device table's flags, lookups and deadlines every concern
 * shares, the intrusive CCB lists, completion delivery, async events, the
 * event ring, the log and the per-target counters. Everything here runs with
 * the bus lock held.
 * It must never include a header of a folder above it (tests/layering/check.sh
 * follows the #include chains): the only core header below it is pcam_util.h.
 * Nothing outside core/common touches bus->ev or writes a LUN's or target's
 * dev; the others write the device table only through the inlines here.
 */
#ifndef PCAM_COMMON_H
#define PCAM_COMMON_H

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

/* ---- target flags (pcam_target.dev.flags) ---- */
enum {
    PCAM_TGTF_PRESENT = 1u << 0,
    PCAM_TGTF_NO_TAGS = 1u << 1,  /* the target rejected a tag message */
    PCAM_TGTF_BLOCKED = 1u << 2,  /* recovery in progress: issue nothing */
    PCAM_TGTF_RESET_UA = 1u << 3, /* we reset it (bus reset, BDR, LUN reset) and renegotiate: its
                                     next UNIT ATTENTION 29/xx reports that reset, not a new
                                     one (cleared by that report or by a GOOD status) */
    PCAM_TGTF_RESCAN = 1u << 4    /* the back-end said a device came (or something changed):
                                     the core's own scan visits this target next (scan.c) */
};
/* ---- LUN flags (pcam_lun.dev.flags) ---- */
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

/* Per-target statistics, compiled out with PCAM_CFG_COUNTERS 0. */
#if PCAM_CFG_COUNTERS
#define PCAM_COUNT(tgt, field) ((void)((tgt).counters.field++))
#define PCAM_UNCOUNT(tgt, field) ((void)((tgt).counters.field--)) /* take back a count */
#else
#define PCAM_COUNT(tgt, field) ((void)sizeof(tgt)) /* uses tgt, evaluates nothing */
#define PCAM_UNCOUNT(tgt, field) ((void)sizeof(tgt))
#endif

/* ---- intrusive queues (ccbq.c) ---- */
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

/* ---- events, async, completion, log (events.c, complete.c) ---- */
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
/* Are completions waiting for their callbacks? */
static inline bool pcam_core_has_done(const pcam_bus *bus)
{
    return bus->ev.done_q.head != NULL;
}
/* PCAM_FN_SET_ASYNC: register, update or drop an async callback. */
uint32_t pcam_core_set_async(pcam_bus *bus, const pcam_ccb *ccb);

/* ---- the device table, written for the scan, the engine and retry ---- */
/* Set then clear PCAM_LUNF_* bits of a LUN. */
static inline void pcam_dev_lun_flags(pcam_lun *l, uint8_t set, uint8_t clear)
{
    l->dev.flags &= (uint8_t)~clear;
    l->dev.flags |= set;
}
/* Set then clear PCAM_TGTF_* bits of a target. */
static inline void pcam_dev_tgt_flags(pcam_target *t, uint8_t set, uint8_t clear)
{
    t->dev.flags &= (uint8_t)~clear;
    t->dev.flags |= set;
}
/* What a LUN says it is: qualifier and type, and the first `len` bytes of
 * its standard INQUIRY data kept (0: none). */
static inline void pcam_dev_lun_id(pcam_lun *l, uint8_t qualifier, uint8_t type, const uint8_t *inq, uint32_t len)
{
    l->dev.qualifier = qualifier;
    l->dev.type = type;
    l->dev.inquiry_len = (uint8_t)(len < PCAM_INQ_BYTES ? len : PCAM_INQ_BYTES);
    if (l->dev.inquiry_len != 0)
        memcpy(l->dev.inquiry, inq, l->dev.inquiry_len);
}
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

#endif /* PCAM_COMMON_H */
