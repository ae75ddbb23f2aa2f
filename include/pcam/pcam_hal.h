/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_hal.h
 * @brief The contract between the core and a chip back-end.
 *
 * A back-end is an ops table plus an opaque softc, and declares its profile
 * in pcam_hal_caps::profile. This header describes the phase-level profile
 * (ESP/NCR53C9x, AM53C974, PIO chips and the simulated bus), where the
 * core's engine decides every phase, and then (see @ref hal_cmd) the
 * script-level and command-level profiles, where the chip or the adapter's
 * firmware runs the phases and asks the core for the decisions it cannot make.
 *
 * The model is "start an action, get one event". Each action op starts one
 * bus action and returns at once; when the chip has finished it (or the
 * target did something else) the back-end reports exactly one event, which
 * the core fetches with pcam_hal_ops::poll, from pcam_bus_intr() in
 * interrupt mode or pcam_bus_poll() in polled mode. Synchronous ops
 * (reset_chip, set_atn, set_xfer, get_caps) produce no event. Between an
 * action and its event the core starts no other action, except
 * pcam_hal_ops::reset_bus and pcam_hal_ops::set_atn, which may be called at
 * any time. When the bus goes free the chip listens for reselection on its
 * own; a reselection is reported as #PCAM_HAL_EV_RESELECTED.
 *
 * A back-end never blocks waiting for the bus: timing is the core's job.
 *
 * Chained endings (optional). When an action ends with the target in
 * STATUS, the core's next step is always a one-byte status transfer; when
 * the target is in MESSAGE IN, it is always msg_in. A back-end may take
 * those steps itself before it reports the action, as chips do in hardware
 * (the 53C9x's Initiator Command Complete Sequence reads the status and the
 * message byte in one go; SCRIPTS run on until an interrupt): it reads the
 * status byte, then, if the target goes on to MESSAGE IN, the first message
 * byte (holding ACK), and reports them in the one event of the action with
 * pcam_hal_event::took, pcam_hal_event::status and pcam_hal_event::msg. The
 * event's phase is then the phase now: MESSAGE IN with TOOK_MSG, or where
 * the target went after the status byte (BUS FREE if it let go). Only
 * SELECT_DONE, XFER_DONE, MSGOUT_DONE and PHASE events may carry them; a
 * back-end that does not chain leaves pcam_hal_event::took 0. When the core
 * started the action with pcam_hal_select::may_accept or
 * pcam_hal_xfer::may_accept, it would accept a COMMAND COMPLETE or a
 * DISCONNECT taken that way at once: the back-end may then also accept it
 * (ATN off, only when the byte came without a parity error) and report
 * #PCAM_HAL_TOOK_ACCEPTED with the phase after it, BUS FREE when the target
 * let go, which ends the command's ending in one event.
 *
 * Chained reselection (optional). A reselecting target's IDENTIFY is
 * always followed by what the core would accept anyway: the back-end may
 * accept the IDENTIFY itself (ATN off; only a byte with bit 7 set that came
 * without a parity error) and report #PCAM_HAL_TOOK_IDENTIFY in the
 * RESELECTED event, with the phase the target went to next. If that is
 * MESSAGE IN it may go on as for a chained ending: take the first message
 * byte (#PCAM_HAL_TOOK_MSG, ACK held) and, when that byte is a tag message
 * code (20h-22h) without a parity error, accept it too and take the tag
 * byte (#PCAM_HAL_TOOK_TAG, the tag in pcam_hal_event::tag, ACK held on it;
 * #PCAM_HAL_TOOK_MSG_PARITY then concerns the tag byte). If the target
 * leaves MESSAGE IN after the accepted code it reports #PCAM_HAL_TOOK_MSG
 * and #PCAM_HAL_TOOK_ACCEPTED with the phase now instead. A core that
 * finds the reselection bogus answers the byte still held, with ATN, as it
 * would have answered the IDENTIFY.
 *
 * Each chained step saves a chip interrupt and a pass through the core: a
 * tagged 4 KiB read that disconnects takes 4 events on the simulated bus
 * instead of 13.
 */
#ifndef PCAM_HAL_H
#define PCAM_HAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam_platform.h"
#include "pcam_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * SCSI bus phases. The values are the MSG, C/D and I/O signals as a 3-bit
 * number (MSG = 4, C/D = 2, I/O = 1), so 4 and 5 are the reserved phases a
 * broken target may present.
 */
typedef enum pcam_phase {
    PCAM_PHASE_DATA_OUT = 0,   /**< Initiator to target data. */
    PCAM_PHASE_DATA_IN = 1,    /**< Target to initiator data. */
    PCAM_PHASE_COMMAND = 2,    /**< CDB bytes to the target. */
    PCAM_PHASE_STATUS = 3,     /**< One status byte from the target. */
    PCAM_PHASE_RESERVED4 = 4,  /**< Reserved (MSG without C/D): always an error. */
    PCAM_PHASE_RESERVED5 = 5,  /**< Reserved (MSG and I/O without C/D): always an error. */
    PCAM_PHASE_MSG_OUT = 6,    /**< Message bytes to the target. */
    PCAM_PHASE_MSG_IN = 7,     /**< Message bytes from the target. */
    PCAM_PHASE_BUS_FREE = 8    /**< No target is connected. */
} pcam_phase;

/** Event types a back-end reports through pcam_hal_ops::poll. */
typedef enum pcam_hal_event_type {
    PCAM_HAL_EV_NONE = 0,        /**< No event (not reported; placeholder). */
    PCAM_HAL_EV_SELECT_DONE = 1, /**< Selection finished: count = message bytes sent, count2 = CDB bytes sent, phase = where it stopped. */
    PCAM_HAL_EV_SEL_TIMEOUT = 2, /**< Nobody answered selection of @c target. */
    PCAM_HAL_EV_RESELECTED = 3,  /**< @c target reselected us; @c byte is its IDENTIFY, not yet accepted (use msg_accept). A pending select was not done. */
    PCAM_HAL_EV_XFER_DONE = 4,   /**< A transfer ended: count = bytes moved, phase = the phase now. */
    PCAM_HAL_EV_MSGOUT_DONE = 5, /**< Message-out ended: count = bytes sent, phase = the phase now. */
    PCAM_HAL_EV_MSG_BYTE = 6,    /**< One message-in byte in @c byte, ACK still held (accept or reject it). */
    PCAM_HAL_EV_PHASE = 7,       /**< After msg_accept: the target asserted REQ in @c phase. */
    PCAM_HAL_EV_BUS_FREE = 8,    /**< The target released the bus (expected after COMMAND COMPLETE or DISCONNECT, otherwise unexpected). */
    PCAM_HAL_EV_BUS_RESET = 9,   /**< A SCSI bus reset happened (ours or another device's). */
    PCAM_HAL_EV_GROSS_ERROR = 10 /**< The chip reports a condition it cannot continue from; the core resets the chip. */
} pcam_hal_event_type;

/** What a back-end did on its own after an action (pcam_hal_event::took; see chained endings above). */
enum {
    PCAM_HAL_TOOK_STATUS = 1u << 0,        /**< It read the status byte (in pcam_hal_event::status). */
    PCAM_HAL_TOOK_STATUS_PARITY = 1u << 1, /**< ... and the status byte came with a parity error. */
    PCAM_HAL_TOOK_MSG = 1u << 2,           /**< It took the first message-in byte (pcam_hal_event::msg), ACK held. */
    PCAM_HAL_TOOK_MSG_PARITY = 1u << 3,    /**< ... and that byte came with a parity error. */
    PCAM_HAL_TOOK_ACCEPTED = 1u << 4,      /**< ... and, allowed by may_accept (or a tag message code
                                                after a chained IDENTIFY), it accepted that byte:
                                                pcam_hal_event::phase is the phase after it. */
    PCAM_HAL_TOOK_IDENTIFY = 1u << 5,      /**< RESELECTED only: it accepted the IDENTIFY in
                                                pcam_hal_event::byte (see chained reselection). */
    PCAM_HAL_TOOK_TAG = 1u << 6            /**< With TOOK_IDENTIFY and TOOK_MSG: pcam_hal_event::msg was a tag
                                                message code, it accepted it and took the tag byte
                                                (pcam_hal_event::tag), ACK held. */
};

/** One decoded chip event. */
typedef struct pcam_hal_event {
    pcam_hal_event_type type; /**< What happened. */
    pcam_phase phase;         /**< The bus phase now (REQ asserted in it), or #PCAM_PHASE_BUS_FREE. */
    uint32_t count;           /**< Bytes moved by the action (see the event type). */
    uint32_t count2;          /**< CDB bytes sent, for #PCAM_HAL_EV_SELECT_DONE. */
    uint8_t target;           /**< Target ID the event concerns. */
    uint8_t byte;             /**< Message byte or reselection IDENTIFY. */
    bool parity_error;        /**< A parity error was detected on bytes received by this action. */
    uint8_t took;             /**< PCAM_HAL_TOOK_* steps the back-end took after the action; 0 when it does not chain. */
    uint8_t status;           /**< The status byte, with #PCAM_HAL_TOOK_STATUS. */
    uint8_t msg;              /**< The first message-in byte, with #PCAM_HAL_TOOK_MSG. */
    uint8_t tag;              /**< The tag byte of a tag message, with #PCAM_HAL_TOOK_TAG. */
} pcam_hal_event;

/** One scatter-gather element in the initiator's virtual address space. */
typedef struct pcam_sg {
    void *addr;   /**< Start of the segment. */
    uint32_t len; /**< Length in bytes. */
} pcam_sg;

/** Arguments of pcam_hal_ops::select. */
typedef struct pcam_hal_select {
    uint8_t target;      /**< Target ID to select. */
    bool atn;            /**< Select with ATN and send @c msg (IDENTIFY, tag, negotiation) first. */
    const uint8_t *msg;  /**< Message-out bytes, sent while the target stays in MESSAGE OUT. */
    uint8_t msg_len;     /**< Number of message bytes (0 when !atn). */
    const uint8_t *cdb;  /**< CDB, sent if the target enters COMMAND after the messages. */
    uint8_t cdb_len;     /**< CDB length. */
    bool may_accept;     /**< A chaining back-end may accept a COMMAND COMPLETE or DISCONNECT it takes
                              after this action (see chained endings); false otherwise. */
} pcam_hal_select;

/** Arguments of pcam_hal_ops::transfer. */
typedef struct pcam_hal_xfer {
    pcam_phase phase;   /**< DATA IN, DATA OUT, COMMAND or STATUS: the phase the bus is in. */
    const pcam_sg *sg;  /**< Buffer list; for COMMAND and STATUS a single element. */
    uint16_t sg_count;  /**< Elements in @c sg. */
    uint32_t offset;    /**< Byte offset into the list where the transfer starts (the data pointer). */
    uint32_t len;       /**< Most bytes to move; the transfer stops earlier when the target changes phase. */
    bool may_accept;    /**< As pcam_hal_select::may_accept. */
} pcam_hal_xfer;

/** An agreed transfer mode for one target, as programmed into the chip. */
typedef struct pcam_hal_xfer_params {
    uint8_t period;      /**< Period factor (0 = asynchronous). */
    uint8_t offset;      /**< REQ/ACK offset (0 = asynchronous). */
    uint8_t width;       /**< Width exponent: 0 = 8 bit, 1 = 16 bit. */
    uint8_t ppr_options; /**< PPR protocol options in force (DT, IU, QAS bits), 0 for ST. */
} pcam_hal_xfer_params;

/** Back-end profiles (see docs/design.md). */
typedef enum pcam_hal_profile {
    PCAM_HAL_PHASE_LEVEL = 1,  /**< The core's engine drives every phase. */
    PCAM_HAL_SCRIPT_LEVEL = 2, /**< The chip runs the phases from its script and asks the core for
                                    every message it does not know (see @ref hal_cmd). */
    PCAM_HAL_COMMAND_LEVEL = 3 /**< Mailbox adapters: firmware runs whole commands and asks the
                                    core for negotiation and message decisions (see @ref hal_cmd). */
} pcam_hal_profile;

/** Capability flags in pcam_hal_caps::flags. */
enum {
    PCAM_HAL_CAP_SYNC = 1u << 0,   /**< Synchronous transfers. */
    PCAM_HAL_CAP_WIDE = 1u << 1,   /**< 16-bit wide transfers. */
    PCAM_HAL_CAP_DT = 1u << 2,     /**< Double-transition clocking (PPR). */
    PCAM_HAL_CAP_IU = 1u << 3,     /**< Information units (PPR). */
    PCAM_HAL_CAP_QAS = 1u << 4,    /**< Quick arbitration (PPR). */
    PCAM_HAL_CAP_TAGS = 1u << 5,   /**< Sends tag messages after IDENTIFY in selection. */
    PCAM_HAL_CAP_PARITY = 1u << 6, /**< Checks parity on received bytes. */
    PCAM_HAL_CAP_DMA = 1u << 7,    /**< Data moves by DMA (buffers must be mappable). */
    PCAM_HAL_CAP_AUTOSENSE = 1u << 8 /**< Script/command level: the adapter fetches sense itself after
                                          CHECK CONDITION when a command carries #PCAM_HAL_CMD_AUTOSENSE. */
};

/** What the chip and its bus can do; the core clamps every agreement to it. */
typedef struct pcam_hal_caps {
    const char *name;      /**< Chip name for logs and path inquiry, e.g. "AM53C974". */
    pcam_hal_profile profile; /**< How phases are driven. */
    uint32_t flags;        /**< PCAM_HAL_CAP_* bits. */
    uint8_t max_targets;   /**< 8 or 16 IDs on the bus. */
    uint8_t initiator_id;  /**< The chip's own ID. */
    uint8_t min_period;    /**< Fastest period factor the chip can do (0 if no sync). */
    uint8_t max_offset;    /**< Largest REQ/ACK offset (0 if no sync). */
    uint16_t max_sg;       /**< Most scatter-gather elements in one transfer. */
    uint32_t max_xfer;     /**< Most bytes in one command's data phase. */
    uint32_t align_mask;   /**< Buffer address alignment the DMA needs (0 = byte, 3 = dword). */
} pcam_hal_caps;

/** The ops table of a back-end. All ops get the back-end's softc. */
typedef struct pcam_hal_ops {
    /** Capabilities; synchronous, may be called at any time. */
    void (*get_caps)(void *sc, pcam_hal_caps *caps);
    /** Reset the chip to a known idle state, dropping any action; synchronous. Returns 0 or negative. */
    int (*reset_chip)(void *sc);
    /** Assert SCSI RST. Action: reported as #PCAM_HAL_EV_BUS_RESET. */
    int (*reset_bus)(void *sc);
    /** Arbitrate and select. Action: SELECT_DONE, SEL_TIMEOUT, RESELECTED or BUS_RESET. */
    int (*select)(void *sc, const pcam_hal_select *sel);
    /** Move bytes in the current information phase. Action: XFER_DONE. */
    int (*transfer)(void *sc, const pcam_hal_xfer *xfer);
    /** Send message bytes in MESSAGE OUT (ATN dropped before the last). Action: MSGOUT_DONE. */
    int (*msg_out)(void *sc, const uint8_t *msg, size_t len);
    /** Take one message-in byte and hold ACK. Action: MSG_BYTE. */
    int (*msg_in)(void *sc);
    /** Release ACK for the held message byte, raising ATN first when @p atn. Action: PHASE or BUS_FREE. */
    int (*msg_accept)(void *sc, bool atn);
    /** Raise ATN now so the target goes to MESSAGE OUT at its next phase change; synchronous. */
    int (*set_atn)(void *sc);
    /** Program the agreed transfer mode for @p target; synchronous. */
    int (*set_xfer)(void *sc, uint8_t target, const pcam_hal_xfer_params *params);
    /** Fetch the next event: 1 = *ev filled, 0 = none pending, negative = chip failure. */
    int (*poll)(void *sc, pcam_hal_event *ev);
} pcam_hal_ops;

struct pcam_hal_cmd_ops;
struct pcam_bus;

/** A back-end instance: its ops and its softc. */
typedef struct pcam_hal {
    const pcam_hal_ops *ops; /**< The back-end's operations. */
    void *sc;                /**< The back-end's private state. */
    /** Script-level and command-level operations (see @ref hal_cmd). Read
     *  only when get_caps reports #PCAM_HAL_SCRIPT_LEVEL or
     *  #PCAM_HAL_COMMAND_LEVEL, so a phase-level back-end may leave it unset. */
    const struct pcam_hal_cmd_ops *cmd;
} pcam_hal;

/**
 * @defgroup hal_cmd Script-level and command-level back-ends
 * @brief Whole commands to the back-end, decisions back to the core.
 *
 * For #PCAM_HAL_SCRIPT_LEVEL and #PCAM_HAL_COMMAND_LEVEL back-ends the chip
 * (or the adapter's firmware) runs selection, messages, data, status and
 * reselection itself. The core keeps everything that is policy: the per-LUN
 * queues, tags, aging, the QUEUE FULL depth, retries, autosense, the
 * negotiation state and the recovery ladder, shared with the phase-level
 * path. The split:
 *
 * - The core hands the back-end whole commands (pcam_hal_cmd_ops::start)
 *   and the back-end reports each exactly once with pcam_bus_hal_done(),
 *   unless the core took the command back first (a bus reset, a device reset
 *   reported with pcam_bus_hal_reset_done(), reset_chip): after those the
 *   back-end forgets the commands concerned without reporting them.
 * - Decisions the chip cannot make are core calls that answer at once:
 *   pcam_bus_hal_nego_start() (which SDTR/WDTR/PPR to send when selecting),
 *   pcam_bus_hal_msg_in() (an extended or unknown message from the target:
 *   the bytes to send back), pcam_bus_hal_msg_reject() (the target rejected
 *   one of ours: the next rung of the negotiation ladder, or tags off),
 *   pcam_bus_hal_nego_end() and pcam_bus_hal_parity().
 * - What the adapter learns on its own about the devices (one came, one
 *   went) is pcam_bus_hal_device_changed(): the device table follows, and
 *   the core scans what came.
 * - QUEUE FULL, BUSY and CHECK CONDITION are reported as the status they
 *   are; the core requeues without spending a retry, lowers the depth,
 *   delays, retries or fails. The core fetches sense itself (a REQUEST SENSE
 *   command of its own, flagged #PCAM_HAL_CMD_CORE_SENSE) unless the back-end
 *   has #PCAM_HAL_CAP_AUTOSENSE and the command carries #PCAM_HAL_CMD_AUTOSENSE.
 * - Timeouts walk the core's ladder as back-end operations: abort the
 *   command (pcam_hal_cmd_ops::abort), reset the device
 *   (pcam_hal_cmd_ops::reset_dev), reset the bus (pcam_hal_ops::reset_bus),
 *   reset the chip (pcam_hal_ops::reset_chip), each with the core's timer.
 *
 * Such a back-end fills pcam_hal::cmd, and in pcam_hal::ops only get_caps,
 * reset_chip, reset_bus, set_xfer and poll (the phase actions may be NULL).
 * reset_chip, reset_bus and set_xfer mean what they mean for phase-level
 * chips; poll is where the back-end services its adapter (mailboxes, script
 * interrupts): it calls the pcam_bus_hal_*() entry points for what it
 * finds, and returns only #PCAM_HAL_EV_BUS_RESET (a reset happened: it has
 * already forgotten every command) and #PCAM_HAL_EV_GROSS_ERROR events.
 *
 * The entry points run under the bus lock, and are called only from inside
 * an op the core called (poll, start, abort...): the core delivers the
 * completions they cause when it unwinds, never inside them.
 * @{
 */

/** Flags in pcam_hal_cmd::flags. */
enum {
    PCAM_HAL_CMD_DISCONNECT = 1u << 0, /**< Grant disconnect privilege in IDENTIFY. */
    PCAM_HAL_CMD_AUTOSENSE = 1u << 1,  /**< On CHECK CONDITION, fetch sense into pcam_hal_cmd::sense
                                            (only set for #PCAM_HAL_CAP_AUTOSENSE back-ends). */
    PCAM_HAL_CMD_CORE_SENSE = 1u << 2  /**< The core's REQUEST SENSE for a contingent allegiance:
                                            untagged, run it before other commands of the I_T_L. */
};

/** One command for pcam_hal_cmd_ops::start. */
typedef struct pcam_hal_cmd {
    const void *handle;   /**< Names the command in pcam_bus_hal_done() and pcam_hal_cmd_ops::abort. */
    uint8_t target;       /**< Target ID. */
    uint8_t lun;          /**< LUN. */
    uint8_t tag_msg;      /**< Tag message code (0x20 SIMPLE, 0x21 HEAD OF QUEUE, 0x22 ORDERED), 0 = untagged. */
    uint8_t tag;          /**< Tag number when tagged. */
    const uint8_t *cdb;   /**< The CDB; copy it during start. */
    uint8_t cdb_len;      /**< CDB length. */
    pcam_dir dir;         /**< Data direction (NONE, IN, OUT). */
    void *data;           /**< Flat buffer when @c sg_count is 0. */
    const pcam_sg *sg;    /**< Scatter-gather list, valid until the command is reported. */
    uint16_t sg_count;    /**< Elements in @c sg; 0 means @c data. */
    uint32_t data_len;    /**< Bytes the command may move. */
    uint8_t *sense;       /**< Where autosense goes with #PCAM_HAL_CMD_AUTOSENSE (else NULL). */
    uint8_t sense_len;    /**< Size of @c sense. */
    uint32_t flags;       /**< PCAM_HAL_CMD_* bits. */
    uint32_t timeout_ms;  /**< The core's timeout; informational (the core runs the timer). */
} pcam_hal_cmd;

/** How a command ended, for pcam_bus_hal_done(). */
typedef struct pcam_hal_cmd_result {
    /** The transport outcome, a ::pcam_status: #PCAM_REQ_CMP when the
     *  status phase was reached (see @c scsi_status), #PCAM_REQ_ABORTED
     *  after pcam_hal_cmd_ops::abort, or the failure: #PCAM_SEL_TIMEOUT,
     *  #PCAM_UNEXP_BUSFREE, #PCAM_SEQUENCE_FAIL, #PCAM_UNCOR_PARITY,
     *  #PCAM_DATA_RUN_ERR, #PCAM_REQ_CMP_ERR. */
    uint32_t status;
    uint8_t scsi_status;  /**< SCSI status byte, with #PCAM_REQ_CMP. */
    uint32_t resid;       /**< Data bytes not moved (for the core's REQUEST SENSE: sense bytes not filled). */
    bool sense_done;      /**< The adapter ran REQUEST SENSE after CHECK CONDITION (#PCAM_HAL_CMD_AUTOSENSE). */
    uint8_t sense_len;    /**< Sense bytes it stored in pcam_hal_cmd::sense (0 when its REQUEST SENSE failed). */
    bool held_known;      /**< For QUEUE FULL: @c held is known. */
    uint16_t held;        /**< For QUEUE FULL: commands of this I_T_L the target held (sent, unfinished). */
} pcam_hal_cmd_result;

/** The script-level / command-level ops (pcam_hal::cmd). All get the softc. */
typedef struct pcam_hal_cmd_ops {
    /** The bus the back-end reports to; called once by pcam_bus_init(). */
    void (*attach)(void *sc, struct pcam_bus *bus);
    /** Queue a whole command. Returns 0, #PCAM_ERR_NOSPACE when the adapter
     *  is full (the core then starts one command per pcam_bus_hal_done() or
     *  device reset reported, and tries for more every 32 reports), or
     *  another negative ::pcam_err (the command fails). */
    int (*start)(void *sc, const pcam_hal_cmd *cmd);
    /** End a command (ABORT TASK if the target has it); report it with
     *  pcam_bus_hal_done() and #PCAM_REQ_ABORTED, or with its real outcome
     *  if it finished first. Negative when the handle is unknown. A
     *  back-end that cannot reach the target just does nothing: the core
     *  escalates when its timer runs out. */
    int (*abort)(void *sc, const void *handle);
    /** Send TARGET RESET (or LOGICAL UNIT RESET when @p lun_reset) and
     *  report it with pcam_bus_hal_reset_done(). One at a time. */
    int (*reset_dev)(void *sc, uint8_t target, uint8_t lun, bool lun_reset);
} pcam_hal_cmd_ops;

/**
 * A command ended.
 * @param bus the bus. @param handle pcam_hal_cmd::handle.
 * @param target its target. @param lun its LUN. @param res the outcome.
 * @return PCAM_OK, PCAM_ERR_NULL, or PCAM_ERR_RANGE when no such command is
 *         at the back-end (already reported or taken back): nothing changes.
 */
int pcam_bus_hal_done(struct pcam_bus *bus, const void *handle, uint8_t target, uint8_t lun,
                      const pcam_hal_cmd_result *res);

/**
 * A reset_dev finished. On #PCAM_REQ_CMP the target (or LUN) dropped every
 * task, and the back-end has forgotten the commands concerned.
 * @param bus the bus. @param target the target. @param lun the LUN.
 * @param lun_reset it was a LOGICAL UNIT RESET.
 * @param status #PCAM_REQ_CMP: the message was taken; #PCAM_SEL_TIMEOUT:
 *        nothing answered the selection (no such device);
 *        #PCAM_MSG_REJECT_REC or #PCAM_REQ_CMP_ERR: the target was selected
 *        but refused the message or dropped off the bus. Any other status is
 *        taken as #PCAM_REQ_CMP_ERR. A caller's reset CCB completes with it;
 *        a recovery step that is not #PCAM_REQ_CMP escalates.
 * @return PCAM_OK, PCAM_ERR_NULL or PCAM_ERR_RANGE (no reset was asked of that target).
 */
int pcam_bus_hal_reset_done(struct pcam_bus *bus, uint8_t target, uint8_t lun, bool lun_reset,
                            uint32_t status);

/**
 * The back-end is about to select @p target for a command: should the
 * selection carry a negotiation message? From then on the message is in
 * flight until the target answers or pcam_bus_hal_nego_end() is called.
 * @param bus the bus. @param target the target.
 * @param buf where the SDTR/WDTR/PPR bytes go (after IDENTIFY and tag).
 * @param cap size of @p buf (8 is enough).
 * @return bytes written, 0 for none, or a negative ::pcam_err.
 */
int pcam_bus_hal_nego_start(struct pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap);

/**
 * Our negotiation message did not get an answer.
 * @param bus the bus. @param target the target.
 * @param sent false: it never left (lost arbitration, selection timeout),
 *        it goes out again next time; true: the target took it and went on
 *        without a word, which SPI reads as a rejection.
 */
void pcam_bus_hal_nego_end(struct pcam_bus *bus, uint8_t target, bool sent);

/**
 * A complete message from the target that the back-end does not handle
 * itself: SDTR, WDTR, PPR (ours answered, or the target's request), or
 * anything it does not know.
 * @param bus the bus. @param target the connected target. @param lun its LUN.
 * @param msg the message bytes. @param len their count.
 * @param reply where the answer goes. @param cap size of @p reply (8 is enough).
 * @return bytes to send in MESSAGE OUT (raise ATN before releasing ACK;
 *         a single #PCAM_MSG_MESSAGE_REJECT byte when the core refuses it),
 *         0 when nothing is to be sent, or a negative ::pcam_err.
 */
int pcam_bus_hal_msg_in(struct pcam_bus *bus, uint8_t target, uint8_t lun, const uint8_t *msg,
                        size_t len, uint8_t *reply, size_t cap);

/**
 * The target answered MESSAGE REJECT to one of our messages.
 * @param bus the bus. @param target the target.
 * @param rejected first byte of the message rejected (0x01 for an extended
 *        message, 0x20-0x22 for a tag message: the command runs untagged and
 *        the core issues no more tags to the target).
 * @param next where the next negotiation message goes (the ladder's next
 *        rung, sent in the same connection), or NULL. @param cap its size.
 * @return bytes written to @p next (raise ATN), 0 for none, or negative.
 */
int pcam_bus_hal_msg_reject(struct pcam_bus *bus, uint8_t target, uint8_t rejected, uint8_t *next,
                            size_t cap);

/**
 * A parity (or CRC) error on bytes from @p target: counted, and repeated
 * errors step the agreed speed down (the core reprograms it with set_xfer).
 * @param bus the bus. @param target the target.
 */
void pcam_bus_hal_parity(struct pcam_bus *bus, uint8_t target);

/**
 * The adapter says a device came or went on its own (an IOC's device
 * status event), with no command of the core's to find out. Removed: each
 * logical unit concerned that was present is marked absent at once, with
 * #PCAM_EV_LOST and #PCAM_AC_LOST_DEVICE (the adapter fails the commands
 * it still holds for it as it would any to an absent device). Added: the
 * target is owed a scan, which the core runs on its own CCB as soon as no
 * scan is in progress (after the caller's scans), through the ordinary
 * queues like #PCAM_FN_SCAN_BUS; what it finds raises #PCAM_EV_FOUND and
 * #PCAM_AC_FOUND_DEVICE (and what it no longer finds, the lost events).
 * Reports for a target the scan has passed make another such scan.
 * @param bus the bus.
 * @param target the target ID, or #PCAM_WILDCARD with @p added true: the
 *        adapter knows only that something changed; every target is scanned.
 * @param lun the LUN that went, or #PCAM_WILDCARD for every LUN of the
 *        target; with @p added the whole target is scanned whatever it is.
 * @param added true: a device came (or may have); false: it went.
 * @return PCAM_OK, PCAM_ERR_NULL, or PCAM_ERR_RANGE (a target beyond the
 *         bus or the initiator's own ID, a LUN beyond the bus's LUN slots, or
 *         a wildcard target reported removed): nothing changes.
 */
int pcam_bus_hal_device_changed(struct pcam_bus *bus, uint8_t target, uint8_t lun, bool added);

/** @} */

/**
 * A short name for a phase ("DATA IN", "BUS FREE", "RESERVED(4)"...).
 * @param phase any value. @return static text ("INVALID" for values outside the enum).
 */
const char *pcam_phase_name(pcam_phase phase);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_HAL_H */
