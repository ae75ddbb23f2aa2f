/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_bus_storage.h
 * @brief Storage types the embedder allocates for a bus.
 *
 * These structures are complete so an embedder can place them statically
 * (no allocation anywhere in pcam), but their fields are the core's private
 * state: read nothing here directly, use the getters in pcam.h. Included by
 * pcam.h; do not include it on its own.
 */
#ifndef PCAM_BUS_STORAGE_H
#define PCAM_BUS_STORAGE_H

/** Length of the event ring kept per bus (#PCAM_CFG_EVENT_RING; 0: no ring). */
#define PCAM_EVENT_RING PCAM_CFG_EVENT_RING
/** Most async registrations per bus. */
#define PCAM_ASYNC_SLOTS 4
/** Tags per LUN (#PCAM_CFG_TAGS; the SPI tag message carries 8 bits). */
#define PCAM_TAGS PCAM_CFG_TAGS
/** Longest message-out the engine composes (IDENTIFY, tag, PPR, slack). */
#define PCAM_MSGOUT_BYTES 16
/** Buckets of the per-bus index that finds an active command by (target, LUN, tag) on
 *  reselection; a power of two. Each LUN's tags land in distinct buckets, so a chain is
 *  about (commands active on the bus) / PCAM_TAG_HASH long. */
#define PCAM_TAG_HASH PCAM_CFG_TAG_HASH
/** Longest message-in the engine collects (extended messages are at most 8 here). */
#define PCAM_MSGIN_BYTES 16

/** Length of the LUN array for pcam_bus_init(): targets x LUNs per target. */
#define PCAM_BUS_LUNS(max_targets, luns_per_target) ((size_t)(max_targets) * (size_t)(luns_per_target))

/** A doubly linked CCB queue (private). */
typedef struct pcam_ccb_queue {
    struct pcam_ccb *head; /**< First (oldest) CCB. */
    struct pcam_ccb *tail; /**< Last CCB. */
    uint32_t count;        /**< CCBs linked. */
} pcam_ccb_queue;

/** A LUN's queue: what waits, what runs, when it may issue (private; written
 *  only by core/queue, the other folders through core/queue/queue.h). */
typedef struct pcam_lun_q {
    pcam_ccb_queue pending;   /**< Submitted, not yet issued. */
    pcam_ccb_queue active;    /**< Issued: connected or disconnected. */
    uint32_t tags_in_use[PCAM_TAGS / 32]; /**< Tag allocator bitmap. */
    uint64_t hold_until_ns;   /**< Issue nothing before this (BUSY, NOT READY delay). */
    uint32_t next_seq;        /**< Submission sequence counter. */
    uint32_t issue_count;     /**< Commands issued so far (per-LUN aging by count). */
    uint32_t age_fence;       /**< Issue number of the latest ORDERED command sent (commands issued up to it are fenced). */
    uint16_t depth;           /**< Current openings. */
    uint16_t ramp;            /**< Successes at the current depth. */
    uint16_t active_untagged; /**< Untagged commands active (0 or 1). */
    uint16_t freeze;          /**< Freeze count; nothing issues while nonzero. */
    uint8_t next_tag;         /**< Where the tag allocator looks first. */
} pcam_lun_q;

/** What is known of the device behind a LUN (private; written only by
 *  core/common, the other folders through core/common/common.h). */
typedef struct pcam_lun_dev {
    uint8_t flags;            /**< PCAM_LUNF_* (present, tagged, reset UA expected). */
    uint8_t qualifier;        /**< From INQUIRY. */
    uint8_t type;             /**< From INQUIRY. */
    uint8_t inquiry[PCAM_INQ_BYTES]; /**< Standard INQUIRY data. */
    uint8_t inquiry_len;      /**< Valid bytes in inquiry. */
} pcam_lun_dev;

/** Per-LUN state (private), split by concern like pcam_bus. */
typedef struct pcam_lun {
    pcam_lun_q q;     /**< Queue state (core/queue). */
    pcam_lun_dev dev; /**< Device table entry (core/common). */
} pcam_lun;

/** Per-target negotiation state (private). */
typedef struct pcam_nego {
    pcam_xfer_settings user;    /**< User limits. */
    pcam_xfer_settings goal;    /**< Negotiating towards. */
    pcam_xfer_settings current; /**< In force. */
    pcam_hal_xfer_params sent;  /**< What our message in flight asked for. */
    uint8_t state;              /**< Which message of ours is in flight, if any. */
    uint8_t ladder;             /**< What the target rejected on the MESSAGE REJECT ladder. */
    uint8_t parity_errors;      /**< Parity errors at the current speed. */
    uint8_t flags;              /**< Private flags. */
    uint8_t step_period;        /**< Parity step-down: fastest period factor still allowed (0 = none). */
    uint8_t replied;            /**< Our last answer to a target-initiated request (0 = none). */
} pcam_nego;

/** A target's share of the queue (private; written only by core/queue). */
typedef struct pcam_target_q {
    uint16_t active;         /**< Commands active on this target. */
} pcam_target_q;

/** What is known of a target (private; written only by core/common, the
 *  other folders through core/common/common.h). */
typedef struct pcam_target_dev {
    uint8_t flags;           /**< PCAM_TGTF_* (present, tags rejected...). */
} pcam_target_dev;

/** Per-target state (private), split by concern like pcam_bus. */
typedef struct pcam_target {
    pcam_nego nego;          /**< Transfer agreement (core/nego). */
#if PCAM_CFG_COUNTERS
    pcam_counters counters;  /**< Statistics (every folder, only through PCAM_COUNT). */
#endif
    pcam_target_q q;         /**< Queue share (core/queue). */
    pcam_target_dev dev;     /**< Device table entry (core/common). */
    uint8_t recovery;        /**< Recovery step pending for this target. */
} pcam_target;

/** Async registration slot (private). */
typedef struct pcam_async_slot {
    uint32_t events;   /**< Mask. */
    pcam_async_fn cb;  /**< Callback. */
    void *arg;         /**< Its argument. */
} pcam_async_slot;

/*
 * The bus is split by concern: each sub-struct below is written only by the
 * core/ folder named on it (docs/design.md, "Layers inside the core"; the
 * unit.layering test checks it), and other folders read it only through
 * the accessors in the owning folder's header (core/queue/queue.h, ...).
 */

/** Phase-level engine state: the connection, the messages and transfers on the
 *  bus, the management CCBs, the command deadlines (private; core/engine). */
typedef struct pcam_bus_engine {
    struct pcam_ccb *nexus;     /**< CCB connected or being selected. */
    struct pcam_ccb *sense_head;/**< CCBs waiting for their REQUEST SENSE (link2). */
    struct pcam_ccb *mgmt_ccb;  /**< The management CCB whose selection is on the bus. */
    pcam_ccb_queue mgmt;        /**< Management CCBs waiting (device and LUN resets). */
    pcam_sg cmd_sg;             /**< Single-element list for COMMAND / STATUS / sense. */
    pcam_sg data_sg;            /**< Single-element list for a flat buffer. */
    uint64_t timer_ns;          /**< Next time the active commands' deadlines are scanned. */
    uint64_t hold_ns;           /**< Earliest LUN hold (BUSY, NOT READY delay) not yet expired. */
    uint8_t state;              /**< Engine state. */
    uint8_t conn_target;        /**< Connected target, or 0xFF. */
    uint8_t conn_lun;           /**< Connected LUN. */
    uint8_t msgout_len;         /**< Length of msgout. */
    uint8_t msgout[PCAM_MSGOUT_BYTES]; /**< Message-out being sent. */
    uint8_t msgin[PCAM_MSGIN_BYTES];   /**< Message-in being collected. */
    uint8_t msgin_len;          /**< Length of msgin. */
    uint8_t status_byte;        /**< Status byte landing buffer. */
    uint8_t engine_flags;       /**< Private engine flags. */
    uint8_t action;             /**< Chip action in progress (one event owed). */
    uint8_t expect_free;        /**< Why a bus free is expected next. */
    uint8_t last_msgout;        /**< First byte of the last message we sent. */
    uint8_t sel_kind;           /**< What the selection on the bus is for (I/O, management, abort). */
    uint8_t msg_tag_end;        /**< Message-out layout of the selection: end of IDENTIFY + tag. */
    uint8_t msg_end;            /**< Message-out layout of the selection: total length. */
    uint8_t xfer_kind;          /**< What the transfer in progress is for. */
    uint8_t xfer_phase;         /**< Phase the transfer in progress was started in. */
    uint8_t zero_xfers;         /**< Transfers in a row that moved nothing and left the phase unchanged. */
    uint8_t took;               /**< Chained steps of the event being handled (PCAM_HAL_TOOK_*), not yet applied. */
    uint8_t took_status;        /**< Their status byte, or the tag byte of a chained reselection
                                     (#PCAM_HAL_TOOK_TAG; the two never come in one event). */
    uint8_t took_msg;           /**< Their first message-in byte. */
    uint8_t took_phase;         /**< The phase the back-end reported after them. */
    uint8_t sense_cdb[6];       /**< REQUEST SENSE CDB of the autosense on the bus. */
    uint8_t scratch[2];         /**< Bit bucket for an overrun the core refuses to take. */
    uint8_t hal_room;           /**< Script/command level, after a refusal for want of room: commands the back-end has room for. */
    uint8_t hal_dones;          /**< Script/command level: reports since that refusal (room is probed again after some). */
    uint8_t sense_got;          /**< Valid bytes in sense_buf. */
    bool shut_down;             /**< Shut down, or the chip is dead: nothing more is started. */
    uint8_t sense_buf[32];      /**< Autosense landing for CCBs without a sense buffer. */
} pcam_bus_engine;

/** The recovery ladder: ABORT TASK, BUS DEVICE RESET, bus reset, chip reset
 *  (private; core/engine/ladder.c). */
typedef struct pcam_bus_ladder {
    struct pcam_ccb *ccb;       /**< The command the recovery step is working on. */
    struct pcam_ccb *reset_ccb; /**< RESET_BUS CCBs waiting for the reset event (link2). */
    struct pcam_ccb *abort_head;/**< CCBs waiting for an ABORT TASK selection (link2). */
    uint64_t deadline_ns;       /**< Deadline of the step in progress. */
    uint64_t settle_until_ns;   /**< After a bus reset, issue nothing before this. */
    uint8_t step;               /**< Bus-level step in progress (none, abort, BDR, bus or chip reset). */
    uint8_t target;             /**< Target of the step. */
    uint8_t lun;                /**< LUN of the step. */
} pcam_bus_ladder;

/** Queue scheduler state: round robin, per-bus aging, the tag index (private; core/queue). */
typedef struct pcam_bus_sched {
    uint64_t age_next_ns;       /**< When per-bus aging next re-evaluates the ages. */
    uint64_t pend_luns[PCAM_MAX_TARGETS]; /**< Per target, LUNs that may have pending work (cleared lazily). */
    uint64_t act_luns[PCAM_MAX_TARGETS];  /**< Per target, LUNs with commands active (exact). */
    uint32_t issued[PCAM_MAX_TARGETS];    /**< Issues per target since starvation began (per-bus aging); a count below issued_floor stands for issued_floor. */
    uint32_t issued_floor;      /**< The least count an owed target had at the last look (per-bus aging). */
    struct pcam_ccb *tags[PCAM_TAG_HASH]; /**< Tag index: active tagged CCBs by (target, LUN, tag), chained through priv.tag_next. */
    uint8_t rr_lun[PCAM_MAX_TARGETS];     /**< Per-target LUN round-robin cursor. */
    uint8_t rr_target;          /**< Target round-robin cursor. */
    uint8_t starving;           /**< Target of the per-bus starvation episode in progress, plus 1 (0 = none). */
    uint8_t dirty;              /**< Something changed since the scheduler last found nothing to issue. */
    uint16_t throttled;         /**< Targets held back from new work by per-bus aging (bit per ID). */
    uint16_t owed;              /**< Targets starving at the last aging evaluation (bit per ID). */
    uint16_t pend_targets;      /**< Targets that may have pending work (bit per ID; cleared lazily). */
    uint16_t act_targets;       /**< Targets with commands active (bit per ID; exact). */
    uint16_t counted;           /**< Targets issued to since the counts were last wiped (bit per ID; per-bus aging). */
} pcam_bus_sched;

/** The bus scan (private; core/xpt/scan.c). */
typedef struct pcam_bus_scan {
    struct pcam_ccb *ccb;       /**< The scan in progress. */
    pcam_ccb_queue q;           /**< Scan requests waiting for the one in progress. */
    uint64_t lunmask;           /**< LUNs to probe on the scan target. */
    uint8_t target;             /**< Scan cursor. */
    uint8_t lun;                /**< Scan cursor. */
    uint8_t flags;              /**< Scan state. */
    uint8_t inq_got;            /**< INQUIRY bytes of the LU the scan's TEST UNIT READY loop is for. */
} pcam_bus_scan;

/** What the core hands back: completions, async events, the event ring (private; core/common). */
typedef struct pcam_bus_events {
    pcam_ccb_queue done_q;      /**< Completions to deliver once the engine is consistent. */
    pcam_async_slot async[PCAM_ASYNC_SLOTS]; /**< Async registrations. */
#if PCAM_EVENT_RING > 0
    pcam_event ring[PCAM_EVENT_RING];        /**< Event ring. */
#endif
    uint32_t ring_dropped;      /**< Entries overwritten unread. */
    uint16_t ring_head;         /**< Next slot to write. */
    uint16_t ring_count;        /**< Entries held. */
} pcam_bus_events;

/** Entry points and the core's own CCB (private; core/xpt). */
typedef struct pcam_bus_xpt {
    uint64_t next_deadline_ns;  /**< pcam_bus_next_deadline()'s answer, worked out once as each entry point returns. */
    bool in_core;               /**< Re-entrancy guard for completions. */
    bool deadline_cached;       /**< next_deadline_ns is current (outside the core, no back-end report since). */
    bool touched;               /**< A pcam_bus_hal_*() call came in since the core last worked out its next step. */
    uint8_t internal_buf[PCAM_CFG_SCAN_BUF]; /**< Data buffer of the internal CCB. */
    struct pcam_ccb internal;   /**< The core's own CCB (scan INQUIRY, REPORT LUNS...). */
} pcam_bus_xpt;

/** A bus (private fields; allocate it, pass it, never read it). */
typedef struct pcam_bus {
    /* Set by pcam_bus_init() (core/xpt), then read by every concern; the
     * per-target and per-LUN arrays are split by concern inside. */
    pcam_bus_config cfg;        /**< Settings. */
    pcam_hal hal;               /**< Back-end. */
    pcam_platform plat;         /**< Platform services. */
    pcam_hal_caps caps;         /**< Chip capabilities. */
    pcam_target targets[PCAM_MAX_TARGETS]; /**< Per target. */
    pcam_lun *luns;             /**< Embedder's LUN array. */
    size_t nluns;               /**< Its length. */
    pcam_bus_engine eng;        /**< core/engine: the phase-level state machine. */
    pcam_bus_ladder lad;        /**< core/engine/ladder.c: the recovery ladder. */
    pcam_bus_sched q;           /**< core/queue: the scheduler. */
    pcam_bus_scan scan;         /**< core/xpt/scan.c: the bus scan. */
    pcam_bus_events ev;         /**< core/common: completions, async events, event ring. */
    pcam_bus_xpt xpt;           /**< core/xpt: entry points, the core's own CCB. */
} pcam_bus;

#endif /* PCAM_BUS_STORAGE_H */
