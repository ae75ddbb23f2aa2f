/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam.h
 * @brief The CCB API: how a shim or an application talks to a pcam bus.
 *
 * pcam speaks CAM. A request is a CCB (CAM control block) owned by the
 * caller: fill it in, call pcam_action(), and its completion callback runs
 * exactly once with a status, whatever happens (invalid request, abort,
 * reset, shutdown). The core allocates nothing: the embedder provides the
 * bus, target and LUN storage (see pcam_bus_init()) and every CCB.
 *
 * Concurrency: the core is not thread-safe by itself. The shim holds one
 * lock per bus around every entry point (pcam_action(), pcam_bus_intr(),
 * pcam_bus_poll(), pcam_bus_tick() and the getters). Completion callbacks
 * run with that lock held; they may call pcam_action() again.
 */
#ifndef PCAM_H
#define PCAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam_types.h"
#include "pcam_err.h"
#include "pcam_platform.h"
#include "pcam_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most target IDs on one bus: 16 (a wide bus), or 8 in a narrow-only build (#PCAM_CFG_MAX_TARGETS). */
#define PCAM_MAX_TARGETS PCAM_CFG_MAX_TARGETS
/** Most LUNs per target the device table can track. */
#define PCAM_MAX_LUNS 64
/** Longest CDB a SCSI I/O CCB can carry. */
#define PCAM_CDB_BYTES 16
/** Bytes of standard INQUIRY data the device table keeps per LUN. */
#define PCAM_INQ_BYTES 36
/** Wildcard target or LUN in async registrations. */
#define PCAM_WILDCARD 0xFF

/* ------------------------------------------------------------------ */
/** CCB status codes: the low bits of pcam_ccb::status (mask #PCAM_STATUS_MASK). */
typedef enum pcam_status {
    PCAM_REQ_INPROG = 0x00,         /**< Still in the core. */
    PCAM_REQ_CMP = 0x01,            /**< Completed without error. */
    PCAM_REQ_ABORTED = 0x02,        /**< Aborted by request (abort CCB, reset, shutdown). */
    PCAM_REQ_CMP_ERR = 0x04,        /**< Completed with an error not covered below. */
    PCAM_BUSY = 0x05,               /**< The bus or device stayed busy past the retries. */
    PCAM_REQ_INVALID = 0x06,        /**< The CCB is malformed (bad CDB length, direction, buffer). */
    PCAM_PATH_INVALID = 0x07,       /**< Target or LUN outside the bus. */
    PCAM_DEV_NOT_THERE = 0x08,      /**< No device answers at that path. */
    PCAM_SEL_TIMEOUT = 0x0A,        /**< Selection timed out. */
    PCAM_CMD_TIMEOUT = 0x0B,        /**< The command timed out (recovery ran). */
    PCAM_SCSI_STATUS_ERROR = 0x0C,  /**< Target returned a non-GOOD status; see scsi_status and sense. */
    PCAM_SCSI_BUS_RESET = 0x0E,     /**< Lost to a bus reset. */
    PCAM_UNCOR_PARITY = 0x0F,       /**< Parity error the ladder could not recover from. */
    PCAM_AUTOSENSE_FAIL = 0x10,     /**< CHECK CONDITION, but REQUEST SENSE failed. */
    PCAM_NO_HBA = 0x11,             /**< The bus is shut down or the chip is dead. */
    PCAM_DATA_RUN_ERR = 0x12,       /**< Data overrun (target wanted more than the buffer). */
    PCAM_UNEXP_BUSFREE = 0x13,      /**< The target dropped off the bus unexpectedly. */
    PCAM_SEQUENCE_FAIL = 0x14,      /**< The target entered an illegal phase. */
    PCAM_BDR_SENT = 0x17,           /**< Lost to a BUS DEVICE RESET / LUN reset. */
    PCAM_REQ_TOO_BIG = 0x1A,        /**< Transfer larger than the chip can do. */
    PCAM_REQUEUE_REQ = 0x1B,        /**< Not run; submit again. */
    PCAM_MSG_REJECT_REC = 0x1D,     /**< The target rejected a message the command depends on. */
    PCAM_RESRC_UNAVAIL = 0x34,      /**< A resource (tag, storage) was not available. */
    PCAM_FUNC_NOTAVAIL = 0x35       /**< The function code is not implemented. */
} pcam_status;

/** Mask of the status code in pcam_ccb::status. */
#define PCAM_STATUS_MASK 0x3Fu
/** Flag in pcam_ccb::status: the LUN queue is frozen until released (a #PCAM_FN_REL_QUEUE CCB). */
#define PCAM_DEV_QFRZN 0x40u
/** Flag in pcam_ccb::status: sense data in the CCB is valid. */
#define PCAM_AUTOSNS_VALID 0x80u

/** Function codes (pcam_ccb::func). */
typedef enum pcam_func {
    PCAM_FN_NOOP = 0,        /**< Completes at once with #PCAM_REQ_CMP. */
    PCAM_FN_SCSI_IO = 1,     /**< Execute a SCSI command (pcam_ccb::io). */
    PCAM_FN_PATH_INQ = 2,    /**< Bus and chip capabilities (pcam_ccb::pathinq). */
    PCAM_FN_GET_TRAN = 3,    /**< Read a target's user/goal/current agreement (pcam_ccb::tran). */
    PCAM_FN_SET_TRAN = 4,    /**< Set a target's user limits (pcam_ccb::tran). */
    PCAM_FN_GET_DEV = 5,     /**< Device type and INQUIRY data of a path (pcam_ccb::dev). */
    PCAM_FN_SCAN_BUS = 6,    /**< Probe every target and LUN; device found/lost events follow. */
    PCAM_FN_SCAN_LUN = 7,    /**< Probe one path. */
    PCAM_FN_ABORT = 8,       /**< Abort another CCB (pcam_ccb::abort). */
    PCAM_FN_RESET_DEV = 9,   /**< BUS DEVICE RESET (or LOGICAL UNIT RESET with #PCAM_CCB_LUN_RESET). */
    PCAM_FN_RESET_BUS = 10,  /**< SCSI bus reset. */
    PCAM_FN_REL_QUEUE = 11,  /**< Release a frozen LUN queue (pcam_ccb::relq). */
    PCAM_FN_SET_ASYNC = 12   /**< Register an async event callback (pcam_ccb::async). */
} pcam_func;

/** Flags (pcam_ccb::flags). */
enum {
    PCAM_CCB_DIS_AUTOSENSE = 1u << 0,  /**< Do not fetch sense on CHECK CONDITION. */
    PCAM_CCB_DIS_DISCONNECT = 1u << 1, /**< Do not grant disconnect privilege. */
    PCAM_CCB_POLLED = 1u << 2,         /**< Caller will poll; informational (polled mode is per bus). */
    PCAM_CCB_TAGGED = 1u << 3,         /**< Use pcam_scsiio::tag_action (else untagged). */
    PCAM_CCB_NO_RECOVERY = 1u << 4,    /**< Report UNIT ATTENTION / BUSY / NOT READY without retrying. */
    PCAM_CCB_LUN_RESET = 1u << 5,      /**< With #PCAM_FN_RESET_DEV: LOGICAL UNIT RESET instead of BDR. */
    PCAM_CCB_FREEZE_ON_ERROR = 1u << 6, /**< On an error completion, leave the LUN queue frozen (status
                                            carries #PCAM_DEV_QFRZN) until #PCAM_FN_REL_QUEUE, as CAM
                                            peripheral drivers expect. Without it the core releases the
                                            freeze it took for autosense and recovery itself. */
    PCAM_CCB_PASSTHRU = 1u << 7,       /**< #PCAM_FN_SCSI_IO: hand the CDB to the target even when its
                                            length (still 1..#PCAM_CDB_BYTES) does not match its opcode
                                            group, as pass-through interfaces (ASPI, SG_IO, CAM's pass
                                            device) do; the target judges it. Buffers are still checked.
                                            Without it such a CDB is #PCAM_REQ_INVALID. */
    PCAM_CCB_RETURN_QUEUED = 1u << 8   /**< #PCAM_FN_SCSI_IO: on its error completion, every CCB of the same
                                            LUN not yet issued completes as well, with #PCAM_REQUEUE_REQ, in
                                            order, so a caller that keeps its own device queue (a FreeBSD CAM
                                            SIM freezing the devq) can hold them until it releases it. */
};

/** Tag actions for pcam_scsiio::tag_action (the SPI tag message codes). */
typedef enum pcam_tag_action {
    PCAM_TAG_SIMPLE = 0x20,        /**< SIMPLE: the target may reorder. */
    PCAM_TAG_HEAD_OF_QUEUE = 0x21, /**< HEAD OF QUEUE: run before any queued task. */
    PCAM_TAG_ORDERED = 0x22        /**< ORDERED: a barrier. */
} pcam_tag_action;

struct pcam_ccb;
/** Completion callback; runs exactly once per CCB, with the bus lock held. */
typedef void (*pcam_done_fn)(struct pcam_ccb *ccb);

/** SCSI I/O request and result (#PCAM_FN_SCSI_IO). */
typedef struct pcam_scsiio {
    uint8_t cdb[PCAM_CDB_BYTES]; /**< The CDB. */
    uint8_t cdb_len;             /**< Its length; must match its opcode group. */
    pcam_dir dir;                /**< Data direction (NONE, IN or OUT). */
    void *data;                  /**< Buffer when sg_count == 0. */
    const pcam_sg *sg;           /**< Scatter-gather list when sg_count > 0. */
    uint16_t sg_count;           /**< Elements in @c sg; 0 means use @c data. */
    uint32_t data_len;           /**< Total bytes to transfer. */
    uint8_t *sense;              /**< Sense buffer for autosense (may be NULL with sense_len 0). */
    uint8_t sense_len;           /**< Size of @c sense. */
    uint8_t tag_action;          /**< A ::pcam_tag_action, used with #PCAM_CCB_TAGGED. */
    uint8_t retries;             /**< Retries allowed for transient errors (UNIT ATTENTION, BUSY, parity...). */
    /* results */
    uint8_t scsi_status;         /**< SCSI status byte from the target. */
    uint32_t resid;              /**< Bytes not transferred. */
    uint8_t sense_resid;         /**< Sense bytes not filled. */
    uint16_t recovery;           /**< Error recovery the core ran for this command: PCAM_RCV_* bits
                                      (0 = none); pcam_recovery_format() says it in words. */
} pcam_scsiio;

/** Bits of pcam_scsiio::recovery: which recovery steps ran for the command, and how each went. */
enum {
    PCAM_RCV_ABORT = 1u << 0,         /**< ABORT TASK was sent (timeout or a caller's abort). */
    PCAM_RCV_ABORT_OK = 1u << 1,      /**< ... and the target took it. */
    PCAM_RCV_ABORT_REFUSED = 1u << 2, /**< ... and the target refused it (MESSAGE REJECT, or went on). */
    PCAM_RCV_DEV_RESET = 1u << 3,     /**< A BUS DEVICE RESET was sent for it. */
    PCAM_RCV_DEV_RESET_OK = 1u << 4,  /**< ... and the target took it. */
    PCAM_RCV_DEV_RESET_REFUSED = 1u << 5, /**< ... and the target refused it. */
    PCAM_RCV_BUS_RESET = 1u << 6,     /**< A bus reset ended it. */
    PCAM_RCV_CHIP_RESET = 1u << 7,    /**< The chip was reset too. */
    PCAM_RCV_NOT_ISSUED = 1u << 8     /**< Its time ran out before it reached the target. */
};

/** Path inquiry result (#PCAM_FN_PATH_INQ). */
typedef struct pcam_pathinq {
    char chip_name[24];        /**< The back-end's chip name. */
    uint32_t hal_flags;        /**< PCAM_HAL_CAP_* bits. */
    uint8_t initiator_id;      /**< Our ID on the bus. */
    uint8_t max_target;        /**< Highest target ID. */
    uint8_t max_lun;           /**< Highest LUN the device table tracks. */
    uint8_t min_period;        /**< Fastest period factor. */
    uint8_t max_offset;        /**< Largest sync offset. */
    uint16_t max_sg;           /**< Most scatter-gather elements per CCB. */
    uint32_t max_xfer;         /**< Most bytes per CCB. */
    uint32_t align_mask;       /**< Buffer alignment mask (0 = byte). */
    bool residuals;            /**< Residual counts are reported. */
} pcam_pathinq;

/** Which agreement #PCAM_FN_GET_TRAN reads. */
typedef enum pcam_tran_type {
    PCAM_TRAN_USER = 0,    /**< Limits set by the user (#PCAM_FN_SET_TRAN writes these). */
    PCAM_TRAN_GOAL = 1,    /**< What the core is negotiating towards. */
    PCAM_TRAN_CURRENT = 2  /**< What is in force on the wire now. */
} pcam_tran_type;

/** A transfer agreement. */
typedef struct pcam_xfer_settings {
    uint8_t period;       /**< Period factor (0 = asynchronous). */
    uint8_t offset;       /**< REQ/ACK offset (0 = asynchronous). */
    uint8_t width;        /**< Width exponent: 0 narrow, 1 wide. */
    uint8_t ppr_options;  /**< PPR protocol options (DT 0x02, IU 0x01, QAS 0x04). */
    bool disconnect;      /**< Disconnect privilege granted. In the user limits: false means
                               no command to the target is sent with DiscPriv. */
    bool tagged;          /**< Tagged queuing in use. In the user limits: false means no
                               command to the target carries a tag, whatever its CCB asks. */
} pcam_xfer_settings;

/** Transfer settings request (#PCAM_FN_GET_TRAN, #PCAM_FN_SET_TRAN). */
typedef struct pcam_tran {
    pcam_tran_type type;          /**< Which agreement (SET_TRAN always writes USER). */
    pcam_xfer_settings settings;  /**< In or out. */
} pcam_tran;

/** Device table entry (#PCAM_FN_GET_DEV). */
typedef struct pcam_dev {
    bool present;                   /**< A logical unit is there (qualifier 0). */
    uint8_t qualifier;              /**< Peripheral qualifier from INQUIRY. */
    uint8_t type;                   /**< Peripheral device type from INQUIRY. */
    uint8_t inquiry[PCAM_INQ_BYTES];/**< Standard INQUIRY data as received. */
    uint8_t inquiry_len;            /**< Valid bytes in @c inquiry. */
} pcam_dev;

/** Abort request (#PCAM_FN_ABORT). */
typedef struct pcam_abort {
    struct pcam_ccb *victim; /**< The CCB to abort; it completes with #PCAM_REQ_ABORTED. */
} pcam_abort;

/** Queue release (#PCAM_FN_REL_QUEUE). */
typedef struct pcam_relq {
    uint32_t count; /**< Freeze counts to drop (0 means all). */
    uint32_t openings; /**< If nonzero, also set the LUN's queue depth. */
} pcam_relq;

/** Async event codes (bit numbers for the registration mask). */
typedef enum pcam_async_code {
    PCAM_AC_BUS_RESET = 1u << 0,      /**< A bus reset happened. */
    PCAM_AC_FOUND_DEVICE = 1u << 1,   /**< Scan found a logical unit. */
    PCAM_AC_LOST_DEVICE = 1u << 2,    /**< A logical unit went away. */
    PCAM_AC_TRANSFER_NEG = 1u << 3,   /**< A transfer agreement changed. */
    PCAM_AC_SENT_BDR = 1u << 4,       /**< A BUS DEVICE RESET or LUN reset was sent. */
    PCAM_AC_UNIT_ATTENTION = 1u << 5  /**< A target reported UNIT ATTENTION. */
} pcam_async_code;

/** Async event callback: @p code is one ::pcam_async_code, @p arg the registration's. */
typedef void (*pcam_async_fn)(void *arg, uint32_t code, uint8_t target, uint8_t lun);

/** Async registration (#PCAM_FN_SET_ASYNC). Registering a NULL callback removes the registration. */
typedef struct pcam_async {
    uint32_t events;    /**< Mask of ::pcam_async_code. */
    pcam_async_fn cb;   /**< Callback (NULL to unregister). */
    void *arg;          /**< Passed to @c cb. */
} pcam_async;

/**
 * The core's per-CCB bookkeeping. Private: callers zero it (or leave it as
 * the previous completion left it) and never read it.
 */
typedef struct pcam_ccb_priv {
    struct pcam_ccb *next;  /**< Queue link. */
    struct pcam_ccb *prev;  /**< Queue link. */
    uint64_t queued_ns;     /**< When it entered the core. */
    uint64_t deadline_ns;   /**< Timeout deadline while active. */
    uint64_t hold_until_ns; /**< Not to be issued before this (BUSY delay). */
    uint32_t seq;           /**< Issue number on its LUN (0 until first issued). */
    uint32_t data_ptr;      /**< Current data pointer. */
    uint32_t saved_ptr;     /**< Saved data pointer (SAVE DATA POINTER). */
    uint8_t state;          /**< Core state. */
    uint8_t tag;            /**< Tag in use. */
    uint8_t tag_msg;        /**< Tag message used (0 = untagged). */
    uint8_t retries_left;   /**< Retries left. */
    uint8_t flags;          /**< Core flags. */
    uint8_t recovery;       /**< INITIATOR DETECTED ERRORs sent for this command. */
    uint16_t magic;         /**< Detects a CCB handed in twice. */
    uint8_t orig_status;    /**< SCSI status kept while autosense runs. */
    uint8_t cdb_sent;       /**< CDB bytes the target has taken. */
    struct pcam_ccb *link2; /**< Second link (sense and recovery lists). */
    struct pcam_ccb *tag_next; /**< Next CCB in its bucket of the bus's tag index while active and tagged. */
} pcam_ccb_priv;

/** A CAM control block: one request to a bus. */
typedef struct pcam_ccb {
    uint8_t func;            /**< A ::pcam_func. */
    uint8_t target;          /**< Target ID. */
    uint8_t lun;             /**< LUN. */
    uint32_t flags;          /**< PCAM_CCB_* flags. */
    uint32_t timeout_ms;     /**< Command timeout (0 = the bus default). */
    pcam_done_fn done;       /**< Completion callback; required. */
    void *user;              /**< Caller's pointer, untouched by the core. */
    uint32_t status;         /**< Result: a ::pcam_status plus PCAM_DEV_QFRZN / PCAM_AUTOSNS_VALID. */
    union {
        pcam_scsiio io;      /**< #PCAM_FN_SCSI_IO. */
        pcam_pathinq pathinq;/**< #PCAM_FN_PATH_INQ. */
        pcam_tran tran;      /**< #PCAM_FN_GET_TRAN / #PCAM_FN_SET_TRAN. */
        pcam_dev dev;        /**< #PCAM_FN_GET_DEV. */
        pcam_abort abort;    /**< #PCAM_FN_ABORT. */
        pcam_relq relq;      /**< #PCAM_FN_REL_QUEUE. */
        pcam_async async;    /**< #PCAM_FN_SET_ASYNC. */
    } u;                     /**< Per-function body. */
    pcam_ccb_priv priv;      /**< The core's bookkeeping; do not touch. */
} pcam_ccb;

/* ------------------------------------------------------------------ */
/**
 * Bus settings. pcam_bus_config_defaults() fills the documented defaults;
 * every threshold the core uses is here.
 */
typedef struct pcam_bus_config {
    uint8_t luns_per_target;     /**< LUN slots per target (1..#PCAM_MAX_LUNS). Default 8. */
    uint32_t default_timeout_ms; /**< Timeout for CCBs that give 0. Default 10000. */
    uint8_t default_retries;     /**< Default retry budget for internal commands. Default 4. */
    uint16_t tag_depth;          /**< Starting queue depth per LUN. Default 32 (PCAM_CFG_TAGS - 1 if that is less). */
    uint16_t tag_depth_max;      /**< Ceiling the ramp-up returns to. Default 64 (PCAM_CFG_TAGS - 1 if that is less). */
    uint16_t tag_depth_floor;    /**< QUEUE FULL never lowers the depth below this. Default 2. */
    uint16_t qfull_ramp_successes; /**< Successes at a depth before it rises by one. Default 128. */
    uint16_t age_count;          /**< Per LUN: after this many later commands were issued
                                      past an outstanding one, the next goes ORDERED. Default 0 (off:
                                      a seek-sorting disk overtakes most commands at depth, so a count
                                      fires with nobody starving). */
    uint32_t age_ms;             /**< Per LUN: same, by age of the oldest outstanding command. Default 1000. */
    uint32_t bus_starve_ms;      /**< Per bus: a target whose oldest command waits past half of this
                                      is owed service; targets that beat it in arbitration and were
                                      issued clearly more commands get no new work until it catches up;
                                      past the whole of it, it is also served first. Default 20. */
    uint32_t busy_delay_ms;      /**< Delay before retrying after BUSY. Default 100. */
    uint32_t not_ready_wait_ms;  /**< How long "becoming ready" is retried. Default 30000. */
    uint32_t abort_timeout_ms;   /**< Time an ABORT TASK / BDR / bus reset step gets. Default 2000. */
    uint32_t reset_settle_ms;    /**< Bus settle delay after a reset (capped by waiting deadlines). Default 2000. */
    uint8_t parity_stepdown;     /**< Parity errors at one speed before stepping down. Default 2. */
    bool scan_report_luns;       /**< Use REPORT LUNS when the device claims SPC-3 or later. Default true. */
    bool aging_enabled;          /**< Anti-starvation aging on (per LUN and per bus). Default true. */
    bool polled;                 /**< No interrupts: the shim calls pcam_bus_poll(). Default false. */
} pcam_bus_config;

/** Per-target counters (pcam_bus_get_counters()). */
typedef struct pcam_counters {
    uint32_t commands;      /**< SCSI I/O CCBs completed, including those that ended before they reached
                                 the target (aborted, timed out or returned while queued). */
    uint32_t errors;        /**< Of those, completed with a status other than #PCAM_REQ_CMP. */
    uint32_t disconnects;   /**< DISCONNECT messages received. */
    uint32_t reselections;  /**< Reselections by this target. */
    uint32_t queue_fulls;   /**< QUEUE FULL statuses. */
    uint32_t busy;          /**< BUSY statuses. */
    uint32_t check_conditions; /**< CHECK CONDITION statuses. */
    uint32_t parity_errors; /**< Parity errors on this target's bytes. */
    uint32_t timeouts;      /**< Command timeouts. */
    uint32_t aborts;        /**< ABORT TASK messages sent. */
    uint32_t resets;        /**< BDR / LUN resets sent, and bus resets seen. */
    uint32_t negotiations;  /**< Negotiations that changed the agreement in force (resets not counted). */
    uint32_t retries;       /**< Retries spent. */
    uint32_t requeues;      /**< Times a CCB went back to its queue (retries, QUEUE FULL, reset bystanders). */
    uint32_t ordered_forced;/**< ORDERED tags forced by per-LUN aging. */
    uint32_t starve_boosts; /**< Times per-bus aging gave this target priority. */
    uint32_t bus_holds;     /**< Times per-bus aging held this target back from new work, so that a
                                 starving target it beats in arbitration could catch up. */
} pcam_counters;

/** One entry of the event ring (pcam_bus_read_events()). */
typedef struct pcam_event {
    uint64_t time_ns;  /**< Platform time. */
    uint16_t code;     /**< A ::pcam_event_code. */
    uint8_t target;    /**< Target, or 0xFF. */
    uint8_t lun;       /**< LUN, or 0xFF. */
    uint32_t arg;      /**< Event-specific value (status, tag, message, period...). */
} pcam_event;

/** Event ring codes. */
typedef enum pcam_event_code {
    PCAM_EV_BUS_RESET = 1,   /**< Bus reset (arg: 1 = ours). */
    PCAM_EV_CHIP_RESET = 2,  /**< Chip reset. */
    PCAM_EV_SEL_TIMEOUT = 3, /**< Selection timeout. */
    PCAM_EV_NEGOTIATED = 4,  /**< Agreement: arg = period | offset << 8 | width << 16 | options << 24. */
    PCAM_EV_QUEUE_FULL = 5,  /**< QUEUE FULL: arg = new depth. */
    PCAM_EV_TIMEOUT = 6,     /**< Command timeout: arg = tag. */
    PCAM_EV_ABORT_SENT = 7,  /**< ABORT TASK sent: arg = tag. */
    PCAM_EV_BDR_SENT = 8,    /**< BUS DEVICE RESET sent. */
    PCAM_EV_LUN_RESET = 9,   /**< LOGICAL UNIT RESET sent. */
    PCAM_EV_PARITY = 10,     /**< Parity error: arg = phase. */
    PCAM_EV_UNEXP_FREE = 11, /**< Unexpected bus free. */
    PCAM_EV_BAD_PHASE = 12,  /**< Illegal phase: arg = phase. */
    PCAM_EV_BAD_RESELECT = 13, /**< Reselection with an unknown LUN or tag: arg = tag. */
    PCAM_EV_MSG_REJECT = 14, /**< MESSAGE REJECT sent or received: arg = message. */
    PCAM_EV_CHECK_COND = 15, /**< CHECK CONDITION: arg = key << 16 | asc << 8 | ascq. */
    PCAM_EV_FOUND = 16,      /**< Device found by scan. */
    PCAM_EV_LOST = 17,       /**< Device lost. */
    PCAM_EV_ORDERED = 18,    /**< ORDERED tag forced by aging. */
    PCAM_EV_STARVE = 19,     /**< Per-bus aging boosted a target. */
    PCAM_EV_SPEED_DOWN = 20  /**< Parity step-down: arg = new period factor. */
} pcam_event_code;

#include "pcam_bus_storage.h"

/** Fill @p cfg with the documented defaults. @param cfg the settings to fill. */
void pcam_bus_config_defaults(pcam_bus_config *cfg);

/* ------------------------------------------------------------------ */
/**
 * @brief Version of the storage layouts behind ::pcam_abi; bumped whenever
 * a storage type changes other than through a configuration switch.
 */
#define PCAM_ABI_VERSION 1u

/**
 * @brief The caller's view of the storage it hands the library.
 *
 * The storage types (::pcam_bus, ::pcam_lun, ::pcam_ccb and the back-ends'
 * and ASPI's) are complete in the headers so that the caller can allocate
 * them, and their sizes depend on the configuration switches
 * (pcam_config.h). A program compiled with other switches than the library
 * would hand it storage of the wrong size, which the library would
 * overwrite. So, as zlib's deflateInit_() takes ZLIB_VERSION and
 * sizeof(z_stream), every entry point that takes such storage gets the
 * caller's view, filled by #PCAM_ABI_INITIALIZER in the caller's own
 * translation unit (the inline wrappers pcam_bus_init() and
 * pcam_aspi_add_adapter() do it), and refuses a view other than the
 * library's with #PCAM_ERR_ABI before writing anything. pcam_abi_check()
 * says what differs. The switch values are the layout fingerprint: each
 * switch that changes a storage type's layout, as the caller saw it.
 */
typedef struct pcam_abi {
    uint32_t version;     /**< #PCAM_ABI_VERSION. */
    uint32_t abi_size;    /**< sizeof(pcam_abi). */
    uint32_t bus_size;    /**< sizeof(pcam_bus). */
    uint32_t ccb_size;    /**< sizeof(pcam_ccb). */
    uint32_t lun_size;    /**< sizeof(pcam_lun): one slot of the LUN array. */
    uint32_t target_size; /**< sizeof(pcam_target): one per-target slot of the bus. */
    uint32_t max_targets; /**< #PCAM_CFG_MAX_TARGETS. */
    uint32_t tags;        /**< #PCAM_CFG_TAGS. */
    uint32_t tag_hash;    /**< #PCAM_CFG_TAG_HASH. */
    uint32_t event_ring;  /**< #PCAM_CFG_EVENT_RING. */
    uint32_t scan_buf;    /**< #PCAM_CFG_SCAN_BUF. */
    uint32_t counters;    /**< #PCAM_CFG_COUNTERS. */
} pcam_abi;

/** A ::pcam_abi initializer: the view of the translation unit that expands it. */
#define PCAM_ABI_INITIALIZER                                                                    \
    { PCAM_ABI_VERSION, (uint32_t)sizeof(pcam_abi), (uint32_t)sizeof(pcam_bus),                 \
      (uint32_t)sizeof(pcam_ccb), (uint32_t)sizeof(pcam_lun), (uint32_t)sizeof(pcam_target),    \
      PCAM_CFG_MAX_TARGETS, PCAM_CFG_TAGS, PCAM_CFG_TAG_HASH, PCAM_CFG_EVENT_RING,              \
      PCAM_CFG_SCAN_BUF, PCAM_CFG_COUNTERS }

/**
 * Compare a caller's view of the storage with the library's.
 * @param caller the caller's view (#PCAM_ABI_INITIALIZER); NULL differs.
 * @param why    when not NULL, receives the first difference with both
 *               sides' values, e.g. "PCAM_CFG_MAX_TARGETS: caller 16,
 *               library 8", or "" when they agree; always NUL-terminated
 *               when @p cap > 0.
 * @param cap    size of @p why.
 * @return PCAM_OK when they agree, #PCAM_ERR_ABI when they do not.
 */
pcam_err pcam_abi_check(const pcam_abi *caller, char *why, size_t cap);

/**
 * Does this program's view of the storage agree with the library's? Call
 * it to explain a #PCAM_ERR_ABI: it says which switch or size differs,
 * with the program's and the library's values.
 * @param why receives the difference ("" when none); may be NULL.
 * @param cap size of @p why.
 * @return PCAM_OK or #PCAM_ERR_ABI.
 */
static inline pcam_err pcam_abi_compare(char *why, size_t cap)
{
    const pcam_abi mine = PCAM_ABI_INITIALIZER;
    return pcam_abi_check(&mine, why, cap);
}

/**
 * pcam_bus_init() with the caller's view of the storage: see there. Call
 * pcam_bus_init(), which passes the right view; a caller that fills its
 * own must use #PCAM_ABI_INITIALIZER.
 * @param abi the caller's view; a view other than the library's is
 *            refused with #PCAM_ERR_ABI and nothing is written (the
 *            platform's log, when given, says what differs).
 * @param bus  see pcam_bus_init(). @param cfg see pcam_bus_init().
 * @param hal  see pcam_bus_init(). @param plat see pcam_bus_init().
 * @param luns see pcam_bus_init(). @param nluns see pcam_bus_init().
 * @return as pcam_bus_init().
 */
pcam_err pcam_bus_init_abi(const pcam_abi *abi, pcam_bus *bus, const pcam_bus_config *cfg,
                           const pcam_hal *hal, const pcam_platform *plat, pcam_lun *luns,
                           size_t nluns);

/**
 * Bring up a bus.
 *
 * Storage: the embedder provides @p bus (a ::pcam_bus) and @p luns, an
 * array of `max_targets * cfg->luns_per_target` ::pcam_lun, where
 * max_targets is the chip's (8 or 16). In bytes:
 * `sizeof(pcam_bus) + max_targets * luns_per_target * sizeof(pcam_lun)`;
 * PCAM_BUS_LUNS() gives the array length. Nothing else is allocated; each
 * CCB carries its own state.
 *
 * The call is checked as zlib's deflateInit() is: this inline function
 * passes the caller's view of the storage (::pcam_abi: the sizes of
 * ::pcam_bus, ::pcam_ccb, ::pcam_lun and ::pcam_target, and the switches
 * that change them) to pcam_bus_init_abi(), which refuses a program built
 * with other switches than the library before it writes anything.
 *
 * @param bus       storage for the bus, overwritten.
 * @param cfg       settings (copied); NULL for the defaults.
 * @param hal       the chip back-end.
 * @param plat      platform services (copied); now_ns is required.
 * @param luns      LUN storage.
 * @param nluns     elements in @p luns.
 * @return PCAM_OK; #PCAM_ERR_ABI (nothing written) when this program was
 *         built with other configuration switches than the library
 *         (pcam_abi_compare() says which); PCAM_ERR_NULL; PCAM_ERR_RANGE
 *         when the storage is too small or a setting is out of range;
 *         PCAM_ERR_UNSUPPORTED for a script- or command-level back-end in a
 *         core built with #PCAM_CFG_CMDLEVEL 0 (the log names the switch).
 */
static inline pcam_err pcam_bus_init(pcam_bus *bus, const pcam_bus_config *cfg, const pcam_hal *hal,
                                     const pcam_platform *plat, pcam_lun *luns, size_t nluns)
{
    const pcam_abi mine = PCAM_ABI_INITIALIZER;
    return pcam_bus_init_abi(&mine, bus, cfg, hal, plat, luns, nluns);
}

/**
 * Hand a CCB to the core. It completes exactly once through ccb->done, maybe
 * before this call returns (invalid requests, synchronous functions).
 * @param bus the bus.
 * @param ccb the request, with func, path, done and the body filled in.
 */
void pcam_action(pcam_bus *bus, pcam_ccb *ccb);

/** The chip raised its interrupt: process every pending chip event. @param bus the bus. */
void pcam_bus_intr(pcam_bus *bus);

/**
 * Polled mode: process pending chip events and due timers. Call it in a
 * loop; it never waits. @param bus the bus.
 * @return true when it did something (so the caller may spin again at once).
 */
bool pcam_bus_poll(pcam_bus *bus);

/** Run due timers (timeouts, delays, aging). Interrupt-mode shims call it
 *  when pcam_bus_next_deadline() passes. @param bus the bus. */
void pcam_bus_tick(pcam_bus *bus);

/**
 * When the core next needs pcam_bus_tick(), in platform time.
 * @param bus the bus.
 * @return a time in ns, or UINT64_MAX when nothing is pending.
 */
uint64_t pcam_bus_next_deadline(const pcam_bus *bus);

/**
 * Stop the bus: every CCB in the core completes with #PCAM_REQ_ABORTED
 * and later CCBs with #PCAM_NO_HBA. @param bus the bus.
 */
void pcam_bus_shutdown(pcam_bus *bus);

/**
 * Read a target's counters. @param bus the bus. @param target the target ID.
 * @param out filled on success.
 * @return PCAM_OK; PCAM_ERR_RANGE for a bad target; PCAM_ERR_UNSUPPORTED
 *         (with @p out zeroed) in a build with #PCAM_CFG_COUNTERS 0.
 */
pcam_err pcam_bus_get_counters(const pcam_bus *bus, uint8_t target, pcam_counters *out);

/**
 * Copy events out of the ring, oldest first, and drop them from it.
 * @param bus the bus. @param out destination. @param max its capacity.
 * @return the number copied.
 */
size_t pcam_bus_read_events(pcam_bus *bus, pcam_event *out, size_t max);

/** The current queue depth (openings) of a LUN, or 0 for a bad path.
 *  @param bus the bus. @param target target ID. @param lun LUN. @return the depth. */
uint16_t pcam_lun_depth(const pcam_bus *bus, uint8_t target, uint8_t lun);

/**
 * @name Policies for a host with its own SCSI layer
 *
 * A shim only translates (docs/design.md, rule 2). Where the host's own
 * SCSI layer needs a number or a yes/no that is a policy (how long the
 * core's timer waits behind the host's, how deep an untagged LUN's queue
 * is, whether a LUN is tagged, how long an error handler waits for the
 * core's recovery), the shim asks the core here, so that every shim gives
 * the same answer and the simulated-bus tests prove it. tests/shims checks
 * that no shim reads INQUIRY bytes or makes such a number up itself.
 * @{
 */

/** Backstop: the core's timer on a command whose host times it out itself
 *  runs this many times the host's timeout ... */
#define PCAM_HOST_BACKSTOP_FACTOR 3u
/** ... plus this margin (ms), so that it only fires if the host's own
 *  error handling is stuck: two owners racing on one deadline would make
 *  either's recovery unpredictable. */
#define PCAM_HOST_BACKSTOP_MARGIN_MS 30000u
/** Retry budget of a command from a host whose own layer retries (Linux's
 *  midlayer, CAM's peripheral drivers, ASPI applications): none, so that a
 *  transient error is retried by one owner, not by both. */
#define PCAM_HOST_RETRIES 0u
/** Queue depth a host gives a LUN that runs untagged: one command on the
 *  wire and one waiting in the core's queue, so that the next is selected
 *  without a round trip through the host. */
#define PCAM_HOST_UNTAGGED_DEPTH 2u

/**
 * The core's timeout for a command the host times out itself:
 * @p host_timeout_ms x #PCAM_HOST_BACKSTOP_FACTOR + #PCAM_HOST_BACKSTOP_MARGIN_MS,
 * saturating at UINT32_MAX.
 * @param host_timeout_ms the host's timeout for the command.
 * @return pcam_ccb::timeout_ms to use.
 */
static inline uint32_t pcam_host_backstop_ms(uint32_t host_timeout_ms)
{
    uint64_t t = (uint64_t)host_timeout_ms * PCAM_HOST_BACKSTOP_FACTOR + PCAM_HOST_BACKSTOP_MARGIN_MS;
    return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

/**
 * The queue depth a host should use for a LUN: #PCAM_HOST_UNTAGGED_DEPTH
 * when it runs untagged, else @p want kept within 1 and
 * pcam_bus_config::tag_depth_max. A host starts a tagged LUN at
 * pcam_bus_config::tag_depth, and sets the core's depth to the same with a
 * #PCAM_FN_REL_QUEUE CCB (pcam_relq::openings).
 * @param bus the bus. @param tagged whether the host runs the LUN tagged
 *        (pcam_lun_tagged(), and the host's own consent).
 * @param want the depth the host asks for (any value: it is clamped).
 * @return the depth.
 */
static inline uint16_t pcam_host_queue_depth(const pcam_bus *bus, bool tagged, int32_t want)
{
    if (!tagged)
        return PCAM_HOST_UNTAGGED_DEPTH;
    if (want > (int32_t)bus->cfg.tag_depth_max)
        want = (int32_t)bus->cfg.tag_depth_max;
    return (uint16_t)(want < 1 ? 1 : want);
}

/**
 * How long a host's error handler waits for an abort or reset CCB to
 * complete: every rung of the recovery ladder (ABORT TASK, device reset,
 * bus reset, chip reset: 4 x pcam_bus_config::abort_timeout_ms), the
 * settle after a reset (pcam_bus_config::reset_settle_ms) and 2 s of slack.
 * @param bus the bus. @return milliseconds.
 */
static inline uint32_t pcam_host_recovery_wait_ms(const pcam_bus *bus)
{
    return 4u * bus->cfg.abort_timeout_ms + bus->cfg.reset_settle_ms + 2000u;
}

/**
 * Whether the core runs a LUN tagged: its standard INQUIRY (the scan's or
 * any later one) reported CmdQue, and its target did not reject a tag
 * message. A host tags a LUN's commands only when this says so; it never
 * reads the INQUIRY data itself. Call it with the bus lock held.
 * @param bus the bus. @param target target ID. @param lun LUN.
 * @return true when tagged; false for an untagged, absent or bad path.
 */
bool pcam_lun_tagged(const pcam_bus *bus, uint8_t target, uint8_t lun);

/** @} */

/** A short name for a status code ("REQ_CMP", "SEL_TIMEOUT"...).
 *  @param status a ::pcam_status, flags are ignored. @return static text. */
const char *pcam_status_name(uint32_t status);

/**
 * Say in words which recovery ran for a command and how each step went, e.g.
 * "ABORT TASK refused, BUS DEVICE RESET not answered, bus reset".
 * @param bits pcam_scsiio::recovery. @param buf output, always NUL-terminated when cap > 0.
 * @param cap size of @p buf.
 * @return characters written (excluding the NUL), 0 when @p bits is 0 ("none" is written),
 *         PCAM_ERR_NOSPACE when cut, PCAM_ERR_NULL for a NULL @p buf.
 */
int pcam_recovery_format(uint16_t bits, char *buf, size_t cap);

/**
 * Check the core's internal invariants (for tests and fuzzing): queue links,
 * tag ownership, counts. @param bus the bus.
 * @return NULL when consistent, else a static description of the first violation.
 */
const char *pcam_bus_check_invariants(const pcam_bus *bus);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_H */
