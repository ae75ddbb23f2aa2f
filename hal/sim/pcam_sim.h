/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_sim.h
 * @brief The simulated parallel SCSI bus: a phase-level chip back-end,
 *        targets with task sets and injectable faults, simulated time, a
 *        timing model, statistics, a trace ring, a phase log and a VCD writer.
 *
 * Host-only (it uses the C library). Nothing here runs in real time: the
 * bus keeps its own clock in nanoseconds, which only moves when the caller
 * calls pcam_sim_advance(). A run is a loop of the form
 *
 *     while (!done) {
 *         if (pcam_sim_event_pending(sim)) { core handles the interrupt }
 *         else pcam_sim_advance(sim, min(pcam_sim_next_time(sim), core timer));
 *     }
 *
 * Every random choice (parity-error injection) comes from one PRNG seeded
 * by pcam_sim_config::seed, so one seed reproduces a run exactly.
 *
 * Layers: the bus and its targets (sim_bus.c, sim_target.c, sim_task.c,
 * sim_nego.c) are driven through the function-level initiator interface
 * pcam_sim_i_*(), which mirrors pcam_hal_ops action for action; sim_hal.c
 * only adapts that interface to a ::pcam_hal, so a register-level chip model
 * can later sit on the same bus and targets.
 *
 * @section sim_contract How this back-end reads pcam_hal.h
 * Where the contract leaves room, the simulated chip does what a real
 * phase-level chip (NCR53C9x-like) would:
 * - Any action may end in #PCAM_HAL_EV_BUS_FREE when the target releases
 *   the bus (after COMMAND COMPLETE, DISCONNECT, an abort/reset message, or
 *   an unexpected drop). Its count (and count2 for select) are the bytes the
 *   action moved before that. A select whose message bytes were a TARGET
 *   RESET or an abort therefore ends in BUS_FREE, not SELECT_DONE.
 * - ATN is released by the chip before the last byte of a message-out
 *   action, and whenever the target leaves MESSAGE OUT; bytes the target did
 *   not take are not sent.
 * - set_atn() between actions, while the target requests in a data, command,
 *   status or reserved phase: the target switches to MESSAGE OUT when the
 *   core next calls msg_out() (the chip waits for the phase), abandoning the
 *   rest of the phase; it resumes it after the messages if nothing ends it.
 *   A transfer() instead completes (up to its length) and then the target
 *   goes to MESSAGE OUT.
 * - A select() issued while an unpolled RESELECTED or BUS_RESET event is
 *   queued, or while a reselection holds the bus (the chip taking one on
 *   its own with chain_endings included), does not happen: the
 *   pending event is its outcome, and no second event is queued. If the
 *   initiator loses arbitration to a reselecting target (only when its ID is
 *   not the highest), the select also turns into that RESELECTED.
 * - A select while the chip is connected, any action while another is in
 *   progress, and any action in the wrong phase are call-order violations:
 *   the call returns a negative ::pcam_err and a #PCAM_HAL_EV_GROSS_ERROR
 *   event is queued (its target is 0xFF when not connected).
 * - A DATA IN byte with bad parity sets parity_error on XFER_DONE and, when
 *   the chip checks parity (PCAM_HAL_CAP_PARITY), the chip raises ATN
 *   itself (as the 53C9x does), so the target goes to MESSAGE OUT when the
 *   transfer ends: XFER_DONE then reports phase MESSAGE OUT and the core
 *   sends INITIATOR DETECTED ERROR (the target answers RESTORE POINTERS and
 *   sends the data again from the saved pointer). A message-in byte with
 *   bad parity is held like any other (MSG_BYTE with parity_error); the core
 *   accepts it with ATN and sends MESSAGE PARITY ERROR (the target sends the
 *   whole message again).
 * - reset_chip() drops the chip's action, queued events, ATN and held ACK,
 *   and the per-target modes set with set_xfer(); a target that was
 *   connected keeps holding the bus until a bus reset.
 * - BUS_RESET is queued when RST is asserted (ours or another device's);
 *   the bus is free #pcam_sim_config::reset_ns later.
 * - Mode mismatch: when pcam_sim_config::strict_xfer is set, a DATA phase
 *   transfer whose chip mode (set_xfer) differs from the target's agreement
 *   in offset, width or DT ends in GROSS_ERROR, as a real chip loses the
 *   REQ/ACK count. The period used is the slower of the two.
 */
#ifndef PCAM_SIM_H
#define PCAM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcam/pcam_hal.h"
#include "pcam/pcam_msg.h"
#include "pcam/pcam_platform.h"
#include "sim_lu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most IDs on one simulated bus. */
#define PCAM_SIM_MAX_IDS 16
/** LUNs per simulated target (IDENTIFY carries 3 LUN bits). */
#define PCAM_SIM_LUNS 8

/** An opaque simulated bus with its targets and its chip. */
typedef struct pcam_sim pcam_sim;

/**
 * Bus, chip and timing configuration. Fill with pcam_sim_config_defaults()
 * and change what the test needs. Times are integer nanoseconds.
 */
typedef struct pcam_sim_config {
    uint8_t width;            /**< IDs on the bus: 8 (narrow) or 16 (wide). Default 16. */
    uint8_t initiator_id;     /**< The chip's ID. Default 7. */
    uint64_t seed;            /**< PRNG seed; one seed reproduces a run. Default 1. */
    uint64_t sel_timeout_ns;  /**< Selection timeout from arbitration won. Default 250 ms. */
    const char *chip_name;    /**< Reported by get_caps. Default "pcam-sim". */
    uint32_t cap_flags;       /**< PCAM_HAL_CAP_* reported by get_caps. Default SYNC|WIDE|DT|TAGS|PARITY (no WIDE when width is 8). */
    uint8_t cap_min_period;   /**< Fastest period factor the chip does. Default 0x09. */
    uint8_t cap_max_offset;   /**< Largest offset the chip does. Default 31. */
    uint16_t cap_max_sg;      /**< Most scatter-gather elements. Default 64. */
    uint32_t cap_max_xfer;    /**< Most bytes per data phase. Default 16 MiB. */
    uint32_t cap_align_mask;  /**< DMA alignment. Default 0 (bytes). */
    uint32_t async_ns;        /**< One asynchronous REQ/ACK transfer (messages, CDB, status, async data). Default 200. */
    uint32_t arb_sel_ns;      /**< Arbitration won until the selected target answers. Default 4000. */
    uint32_t resel_ns;        /**< Arbitration won until the RESELECTED event (IDENTIFY latched). Default 4000. */
    uint32_t phase_ns;        /**< Target changes phase (also the release of BSY). Default 400. */
    uint32_t bus_free_ns;     /**< Bus-free settle before anyone may arbitrate. Default 800. */
    uint32_t reset_ns;        /**< RST pulse; the bus is free after it. Default 25000. */
    size_t trace_entries;     /**< Trace ring size (0: no ring). Default 4096. */
    bool verbose;             /**< Platform log lines go to stderr. Default false. */
    bool strict_xfer;         /**< Data transfer with chip mode != target agreement is a gross error. Default true. */
    bool chain_endings;       /**< The chip reads the status byte and the first message-in byte itself
                                   before it reports an action (pcam_hal.h, chained endings), as a
                                   53C9x's ICCS does, and on a reselection accepts the IDENTIFY and
                                   takes the tag message (chained reselection). Default false; the
                                   core's test rig turns it on. */
} pcam_sim_config;

/** How a target answers one kind of negotiation message. */
typedef enum pcam_sim_nego {
    PCAM_SIM_NEGO_ACCEPT = 0,  /**< Answer with the request clamped to the target's limits. */
    PCAM_SIM_NEGO_COUNTER = 1, /**< Answer no faster than the counter limits (slower/smaller/narrower than asked). */
    PCAM_SIM_NEGO_IGNORE = 2,  /**< Leave MESSAGE OUT for COMMAND without answering (agreement unchanged). */
    PCAM_SIM_NEGO_REJECT = 3   /**< Answer MESSAGE REJECT (agreement falls back to async/narrow). */
} pcam_sim_nego;

/** When a target disconnects from a command that uses the mechanism. */
typedef enum pcam_sim_disc {
    PCAM_SIM_DISC_ON_SEEK = 0, /**< When the mechanism is busy, other tasks wait, or a seek is needed. */
    PCAM_SIM_DISC_ALWAYS = 1,  /**< For every command that uses the mechanism. */
    PCAM_SIM_DISC_NEVER = 2    /**< Never; holds the bus while the mechanism works. */
} pcam_sim_disc;

/**
 * Decision points where a target asks its oracle (pcam_sim_target_config::oracle)
 * before doing what its model would do. They exist so a fuzzer can play an
 * adversarial target while the bus, the timing and the task bookkeeping stay
 * the real ones.
 */
typedef enum pcam_sim_decision {
    PCAM_SIM_DEC_NEXT = 0,       /**< A phase ended: what the connected target does next (answer in
                                      pcam_sim_oracle_query::action). Not asked while it answers ATN. */
    PCAM_SIM_DEC_MESSAGE = 1,    /**< A queued message-in is about to go out: its bytes and len may be
                                      rewritten. The target still acts as if it had sent the original
                                      (a rewritten DISCONNECT still frees the bus when accepted). */
    PCAM_SIM_DEC_STATUS = 2,     /**< The status byte about to be sent, in value. */
    PCAM_SIM_DEC_DATA_LEN = 3,   /**< Data-phase length of a command just received, in value; an answer
                                      is clamped to the target's buffer for the command. */
    PCAM_SIM_DEC_DISCONNECT = 4, /**< Whether a command handed to the mechanism disconnects (value 0 or
                                      1); 1 is honoured even without disconnect privilege. */
    PCAM_SIM_DEC_RESELECT = 5    /**< The IDENTIFY byte a reselection sends, in value (any byte). */
} pcam_sim_decision;

/** What a target does next, answered at #PCAM_SIM_DEC_NEXT. */
typedef enum pcam_sim_next_action {
    PCAM_SIM_NEXT_REQ = 0,  /**< Request in pcam_sim_oracle_query::phase (0..7). In a DATA phase with no
                                 data of the command left, up to value bytes (1 to 256) of filler move. */
    PCAM_SIM_NEXT_MSG = 1,  /**< Send bytes[0..len) in MESSAGE IN now. 0x00 completes the task and 0x04
                                 disconnects when accepted, 0x02 saves the pointer; others do nothing. */
    PCAM_SIM_NEXT_FREE = 2, /**< Release the bus now (a task still connected is forgotten). */
    PCAM_SIM_NEXT_HANG = 3  /**< Keep the bus and never request again (until a message or a reset ends it). */
} pcam_sim_next_action;

/** One question to the oracle, and its answer. */
typedef struct pcam_sim_oracle_query {
    pcam_sim_decision what;         /**< The decision point. */
    uint8_t target;                 /**< Target ID asking. */
    uint8_t lun;                    /**< LUN of the nexus (0 when none). */
    uint32_t value;                 /**< In: the model's answer (see ::pcam_sim_decision). Out: the oracle's. */
    pcam_sim_next_action action;    /**< Out, #PCAM_SIM_DEC_NEXT: what to do. */
    pcam_phase phase;               /**< In, #PCAM_SIM_DEC_NEXT: phase the target was in. Out: for NEXT_REQ. */
    uint8_t bytes[PCAM_MSG_MAX_LEN];/**< In/out: message bytes (#PCAM_SIM_DEC_MESSAGE, NEXT_MSG). */
    uint8_t len;                    /**< In/out: their count; answers are clamped to 1..#PCAM_MSG_MAX_LEN. */
} pcam_sim_oracle_query;

/**
 * An oracle: called synchronously from inside the bus model at each decision
 * point; it must not call back into the bus.
 * @param ctx pcam_sim_target_config::oracle_ctx.
 * @param q the question; fill the answer fields to give an opinion.
 * @return true to use the answer, false for "no opinion" (the model decides).
 */
typedef bool (*pcam_sim_oracle_fn)(void *ctx, pcam_sim_oracle_query *q);

/**
 * Behaviour of one target. Counters named *_next apply to the next that
 * many commands and count down. Change them at any time through
 * pcam_sim_target_cfg().
 */
typedef struct pcam_sim_target_config {
    uint8_t min_period;       /**< Fastest period factor (0: asynchronous only). Default 0x0C (Fast-20). */
    uint8_t max_offset;       /**< Largest REQ/ACK offset (0: asynchronous only). Default 16. */
    bool wide;                /**< Can do 16-bit transfers. Default true. */
    uint8_t ppr_options;      /**< PPR options it supports (PCAM_PPR_* bits). Default 0. */
    pcam_sim_nego sdtr;       /**< Answer to SDTR. Default ACCEPT. */
    pcam_sim_nego wdtr;       /**< Answer to WDTR. Default ACCEPT. */
    pcam_sim_nego ppr;        /**< Answer to PPR. Default REJECT (an SPI-2 device). */
    uint8_t counter_period;   /**< COUNTER answers use a period factor no smaller than this. Default 0x32 (200 ns). */
    uint8_t counter_offset;   /**< COUNTER answers use an offset no larger than this. Default 8. */
    bool initiate_wdtr;       /**< Send WDTR itself after the CDB of the first command after power-on/reset. Default false. */
    bool initiate_sdtr;       /**< Same for SDTR (after WDTR if both). Default false. */
    bool reject_tags;         /**< Answer tag messages with MESSAGE REJECT; the command runs untagged. Default false. */
    uint16_t task_set_limit;  /**< Tasks per LU before TASK SET FULL (0x28); 0 = 256. Default 0. */
    uint32_t busy_next;       /**< Answer BUSY (0x08) to the next N commands. */
    pcam_sim_disc disconnect; /**< Disconnect policy. Default ON_SEEK. */
    bool ua_power_on;         /**< Report UNIT ATTENTION 29/00 on the first command to each LU. Default true. */
    bool ua_after_reset;      /**< Raise UNIT ATTENTION 29/00 on every LU at a bus reset. Default true. */
    uint32_t hang_next;       /**< Accept the next N commands and never finish them (disconnected, or holding the bus without disconnect privilege). */
    uint32_t unexpected_free_next; /**< Drop the bus in the middle of the next N commands (half-way through the data, or after the CDB). */
    uint32_t illegal_phase_next;   /**< After the CDB of the next N commands, request in reserved phase @ref illegal_phase. */
    uint8_t illegal_phase;    /**< 4 or 5. Default 4. */
    uint32_t lie_tag_next;    /**< Reselect the next N tagged tasks with a tag that is not in use. */
    uint32_t lie_lun_next;    /**< Reselect the next N tasks with the IDENTIFY of the next LUN. */
    uint32_t parity_data_ppm; /**< Parity errors per million data bytes (DATA IN to the chip, DATA OUT to the target). */
    uint32_t parity_msg_ppm;  /**< Parity errors per million message-in bytes (IDENTIFY included). */
    bool wide_residue;        /**< On a 16-bit agreement, end an odd-length DATA IN with IGNORE WIDE RESIDUE (1); the chip's XFER_DONE count then includes the pad byte (written as 0 if the buffer has room). Default false: counts are exact and no such message is sent. */
    bool refuse_abort;        /**< Deaf to aborts: answer ABORT TASK, ABORT TASK SET and CLEAR TASK SET with MESSAGE REJECT and keep the tasks; with no task connected it then goes bus free. Default false. */
    bool refuse_reset;        /**< Deaf to device resets: the same for TARGET RESET (BUS DEVICE RESET) and LOGICAL UNIT RESET. Default false. */
    uint32_t phantom_resel_next; /**< Reselect the next N times with no task ready (IDENTIFY of LUN 0, then bus free unless the oracle decides otherwise). */
    bool off_bus;             /**< Answers no selection, as a device pulled from the bus (set it after the scan: a selection of it times out). Default false. */
    pcam_sim_oracle_fn oracle; /**< Adversary consulted at each ::pcam_sim_decision; NULL (default) = none. */
    void *oracle_ctx;         /**< Passed to @ref oracle. */
} pcam_sim_target_config;

/** What one target saw and did (all counts since it was added). */
typedef struct pcam_sim_target_stats {
    uint32_t selections;       /**< Times it was selected. */
    uint32_t commands;         /**< CDBs received. */
    uint32_t untagged;         /**< Commands without a (kept) tag. */
    uint32_t simple;           /**< SIMPLE tagged commands. */
    uint32_t ordered;          /**< ORDERED tagged commands. */
    uint32_t head_of_queue;    /**< HEAD OF QUEUE tagged commands. */
    uint32_t tags_rejected;    /**< Tag messages answered with MESSAGE REJECT. */
    uint32_t disconnects;      /**< DISCONNECT messages accepted. */
    uint32_t reselections;     /**< Reselections won. */
    uint32_t task_set_full;    /**< TASK SET FULL statuses sent. */
    uint32_t busy;             /**< BUSY statuses sent. */
    uint32_t check_conditions; /**< CHECK CONDITION statuses sent. */
    uint32_t completed;        /**< COMMAND COMPLETE messages accepted. */
    uint32_t parity_injected;  /**< Parity errors injected on its bytes. */
    uint32_t nego_received;    /**< SDTR/WDTR/PPR messages received. */
    uint32_t nego_initiated;   /**< SDTR/WDTR messages it started itself. */
    uint32_t aborted_tasks;    /**< Tasks dropped by abort, clear, reset messages or bus reset. */
    uint32_t lu_resets;        /**< LOGICAL UNIT RESET messages. */
    uint32_t refused;          /**< Abort and reset messages refused (refuse_abort / refuse_reset). */
    uint32_t target_resets;    /**< TARGET RESET messages. */
    uint32_t max_tasks;        /**< Deepest task set seen on one LU. */
    uint64_t bytes_in;         /**< Data bytes sent to the initiator. */
    uint64_t bytes_out;        /**< Data bytes received from the initiator. */
} pcam_sim_target_stats;

/** Bus-wide figures for benchmarks. */
typedef struct pcam_sim_bus_stats {
    uint64_t data_bytes;       /**< Data-phase bytes moved. */
    uint64_t busy_ns;          /**< Time the bus was not BUS FREE (arbitration through release). */
    uint64_t data_ns;          /**< Time spent moving data-phase bytes. */
    uint64_t target_bytes[PCAM_SIM_MAX_IDS]; /**< Data bytes per target ID. */
    uint32_t arbitrations;     /**< Arbitrations held. */
    uint32_t selections;       /**< Selections that reached a target. */
    uint32_t sel_timeouts;     /**< Selections that timed out. */
    uint32_t reselections;     /**< Reselections. */
    uint32_t bus_resets;       /**< Bus resets (either side). */
    uint32_t gross_errors;     /**< GROSS_ERROR events queued. */
} pcam_sim_bus_stats;

/* ------------------------------------------------------------------ */
/** @name Life cycle and configuration */
/** @{ */

/**
 * @brief Fill @p cfg with the documented defaults.
 * @param cfg configuration to fill; ignored if NULL.
 */
void pcam_sim_config_defaults(pcam_sim_config *cfg);

/**
 * @brief Create a bus with no targets, at time 0, bus free.
 * @param cfg configuration; NULL means the defaults.
 * @return the bus, or NULL on a bad configuration (width not 8/16,
 *         initiator ID outside the bus) or when out of memory.
 */
pcam_sim *pcam_sim_create(const pcam_sim_config *cfg);

/**
 * @brief Destroy a bus, its targets and tasks; closes an open VCD file.
 * @param sim bus; ignored if NULL.
 */
void pcam_sim_destroy(pcam_sim *sim);

/**
 * @brief Fill @p tc with the documented target defaults.
 * @param tc configuration to fill; ignored if NULL.
 */
void pcam_sim_target_config_defaults(pcam_sim_target_config *tc);

/**
 * @brief Put a target on the bus. All its LUNs start absent: initialise the
 *        ones wanted through pcam_sim_lu() before the first command.
 * @param sim bus.
 * @param id its ID (not the initiator's, below the bus width).
 * @param tc behaviour; NULL means the defaults.
 * @return 0, PCAM_ERR_NULL, PCAM_ERR_RANGE (bad or taken ID), PCAM_ERR_NOSPACE (no memory).
 */
int pcam_sim_add_target(pcam_sim *sim, uint8_t id, const pcam_sim_target_config *tc);

/**
 * @brief A target's live configuration, to change behaviours mid-run.
 * @param sim bus.
 * @param id target ID.
 * @return the configuration, or NULL if there is no such target.
 */
pcam_sim_target_config *pcam_sim_target_cfg(pcam_sim *sim, uint8_t id);

/**
 * @brief A logical unit model of a target, for pcam_simlu_init_disk() and
 *        friends, and for checking the medium afterwards.
 * @param sim bus.
 * @param id target ID.
 * @param lun LUN 0..7.
 * @return the LU, or NULL if there is no such target or LUN.
 */
pcam_simlu *pcam_sim_lu(pcam_sim *sim, uint8_t id, uint8_t lun);

/**
 * @brief A chip back-end over this bus.
 * @param sim bus.
 * @param out receives the ops table and softc.
 */
void pcam_sim_get_hal(pcam_sim *sim, pcam_hal *out);

/**
 * @brief Platform services for the core: now_ns is simulated time; log
 *        goes to stderr only when pcam_sim_config::verbose; register and DMA
 *        entries are NULL.
 * @param sim bus.
 * @param out receives the table.
 */
void pcam_sim_get_platform(pcam_sim *sim, pcam_platform *out);
/** @} */

/* ------------------------------------------------------------------ */
/** @name Simulated time */
/** @{ */

/**
 * @brief Simulated time now.
 * @param sim bus.
 * @return nanoseconds since creation.
 */
uint64_t pcam_sim_now(const pcam_sim *sim);

/**
 * @brief When the next internal happening is due (a bus step, arbitration,
 *        a mechanism finishing).
 * @param sim bus.
 * @return its time (never before pcam_sim_now()), or UINT64_MAX if none.
 */
uint64_t pcam_sim_next_time(const pcam_sim *sim);

/**
 * @brief Process every happening due up to @p t, in time order, then set
 *        the clock to @p t (never backwards).
 * @param sim bus.
 * @param t target time in ns.
 */
void pcam_sim_advance(pcam_sim *sim, uint64_t t);

/**
 * @brief Whether an event waits for poll: the chip's interrupt line.
 * @param sim bus.
 * @return true if poll would return one.
 */
bool pcam_sim_event_pending(const pcam_sim *sim);

/**
 * @brief Another device asserts RST now: targets drop their tasks, revert to
 *        asynchronous narrow and raise UNIT ATTENTION; the chip sees BUS_RESET.
 * @param sim bus.
 */
void pcam_sim_bus_reset(pcam_sim *sim);

/**
 * @brief A chip whose bus reset does not complete: the next @p n reset_bus
 *        requests are taken (they return success) but RST is never driven
 *        and no BUS_RESET event follows, as with a wedged chip. A
 *        reset_chip() clears what is left, so the reset after a chip reset
 *        works (the ladder's last step).
 * @param sim bus.
 * @param n requests to swallow (0 cancels).
 */
void pcam_sim_chip_stall_bus_reset(pcam_sim *sim, uint32_t n);
/** @} */

/* ------------------------------------------------------------------ */
/** @name Function-level initiator interface (what sim_hal.c wraps)
 * Same semantics as the pcam_hal_ops of the same names (see the file
 * comment for how the gaps are read). Each returns 0 or a negative
 * ::pcam_err: PCAM_ERR_NULL for a missing pointer, PCAM_ERR_RANGE for an
 * argument out of range, PCAM_ERR_UNSUPPORTED for a call the bus state does
 * not allow; every failure also queues a GROSS_ERROR event. */
/** @{ */

/**
 * @brief Capabilities of the simulated chip.
 * @param sim bus.
 * @param caps receives them.
 */
void pcam_sim_i_caps(const pcam_sim *sim, pcam_hal_caps *caps);
/**
 * @brief Reset the chip (synchronous).
 * @param sim bus.
 * @return 0.
 */
int pcam_sim_i_reset_chip(pcam_sim *sim);
/**
 * @brief Assert RST (action: BUS_RESET).
 * @param sim bus.
 * @return 0.
 */
int pcam_sim_i_reset_bus(pcam_sim *sim);
/**
 * @brief Arbitrate and select (action: SELECT_DONE, SEL_TIMEOUT,
 *        RESELECTED, BUS_FREE or BUS_RESET). Message and CDB bytes are copied.
 * @param sim bus.
 * @param sel what to select and send.
 * @return 0 or negative.
 */
int pcam_sim_i_select(pcam_sim *sim, const pcam_hal_select *sel);
/**
 * @brief Move bytes in the current DATA, COMMAND or STATUS phase (action:
 *        XFER_DONE or BUS_FREE). Buffers are read or written during the call.
 * @param sim bus.
 * @param xfer phase, buffer list, offset and length.
 * @return 0 or negative.
 */
int pcam_sim_i_transfer(pcam_sim *sim, const pcam_hal_xfer *xfer);
/**
 * @brief Send message bytes (action: MSGOUT_DONE or BUS_FREE). Copied.
 * @param sim bus.
 * @param msg bytes.
 * @param len 1..255.
 * @return 0 or negative.
 */
int pcam_sim_i_msg_out(pcam_sim *sim, const uint8_t *msg, size_t len);
/**
 * @brief Take one message-in byte and hold ACK (action: MSG_BYTE).
 * @param sim bus.
 * @return 0 or negative.
 */
int pcam_sim_i_msg_in(pcam_sim *sim);
/**
 * @brief Release ACK on the held byte, raising ATN first when @p atn
 *        (action: PHASE or BUS_FREE).
 * @param sim bus.
 * @param atn raise ATN before releasing ACK.
 * @return 0 or negative.
 */
int pcam_sim_i_msg_accept(pcam_sim *sim, bool atn);
/**
 * @brief Raise ATN (synchronous).
 * @param sim bus.
 * @return 0.
 */
int pcam_sim_i_set_atn(pcam_sim *sim);
/**
 * @brief Select with ATN and stop (the NCR53C9x SELECT WITH ATN AND STOP):
 *        as pcam_sim_i_select(), but ATN stays asserted after the last
 *        message byte, so the target stays in MESSAGE OUT and the select
 *        ends there (SELECT_DONE, phase MESSAGE OUT) for msg_out() to go on.
 * @param sim bus.
 * @param sel what to select and send (the CDB, if any, is not sent while
 *            the target stays in MESSAGE OUT).
 * @return 0 or negative.
 */
int pcam_sim_i_select_stop(pcam_sim *sim, const pcam_hal_select *sel);
/**
 * @brief Drop ATN (synchronous; the NCR53C9x RESET ATN command).
 * @param sim bus.
 * @return 0.
 */
int pcam_sim_i_reset_atn(pcam_sim *sim);
/**
 * @brief Change the selection timeout for later selections (a register-level
 *        chip model programs it from its timeout register).
 * @param sim bus.
 * @param ns timeout from arbitration won, in ns (0 is ignored).
 */
void pcam_sim_set_sel_timeout(pcam_sim *sim, uint64_t ns);

/**
 * @brief Switch pcam_sim_config::chain_endings on or off from the next action
 *        on (a scenario that needs to stop between a DISCONNECT byte and the
 *        bus free needs a chip that reports the byte on its own).
 * @param sim the bus. @param on chain or not.
 * @return the setting before (false for a NULL bus).
 */
bool pcam_sim_set_chain(pcam_sim *sim, bool on);
/**
 * @brief Program the chip's mode for @p target (synchronous).
 * @param sim bus.
 * @param target target ID.
 * @param params mode.
 * @return 0 or negative.
 */
int pcam_sim_i_set_xfer(pcam_sim *sim, uint8_t target, const pcam_hal_xfer_params *params);
/**
 * @brief Fetch the next event.
 * @param sim bus.
 * @param ev receives it.
 * @return 1 if filled, 0 if none, negative on a NULL argument.
 */
int pcam_sim_i_poll(pcam_sim *sim, pcam_hal_event *ev);
/** @} */

/* ------------------------------------------------------------------ */
/** @name What the targets recorded */
/** @{ */

/**
 * @brief The mode a target agreed (period, offset, width, PPR options).
 * @param sim bus.
 * @param id target ID.
 * @param out receives it; zeroed if there is no such target.
 */
void pcam_sim_target_agreement(const pcam_sim *sim, uint8_t id, pcam_hal_xfer_params *out);

/**
 * @brief The mode the chip was programmed with for @p id (set_xfer).
 * @param sim bus.
 * @param id target ID.
 * @param out receives it; zeroed for a bad ID.
 */
void pcam_sim_chip_xfer(const pcam_sim *sim, uint8_t id, pcam_hal_xfer_params *out);

/**
 * @brief Whether a target has accepted a tagged command since its last reset.
 * @param sim bus.
 * @param id target ID.
 * @return true if tags are in use.
 */
bool pcam_sim_target_tags_in_use(const pcam_sim *sim, uint8_t id);

/**
 * @brief A target's counters.
 * @param sim bus.
 * @param id target ID.
 * @param out receives them; zeroed if there is no such target.
 */
void pcam_sim_target_stats_get(const pcam_sim *sim, uint8_t id, pcam_sim_target_stats *out);

/**
 * @brief Tasks in a LU's task set now (queued, working, waiting to
 *        reselect, hung, or connected).
 * @param sim bus.
 * @param id target ID.
 * @param lun LUN.
 * @return the count; 0 if there is no such target.
 */
unsigned pcam_sim_task_count(const pcam_sim *sim, uint8_t id, uint8_t lun);

/**
 * @brief Bus-wide statistics.
 * @param sim bus.
 * @param out receives them (busy_ns includes a busy period still running).
 */
void pcam_sim_bus_stats_get(const pcam_sim *sim, pcam_sim_bus_stats *out);
/** @} */

/* ------------------------------------------------------------------ */
/** @name Trace ring, phase log and VCD */
/** @{ */

/** Kinds of trace entries. */
typedef enum pcam_sim_trace_kind {
    PCAM_SIM_TR_ARBITRATION = 0, /**< Arbitration: target = winner, value = mask of contender IDs. */
    PCAM_SIM_TR_SELECTION,       /**< Initiator selects target; value = 1 with ATN. */
    PCAM_SIM_TR_SEL_TIMEOUT,     /**< Nobody answered. */
    PCAM_SIM_TR_RESELECTION,     /**< target reselects; byte = IDENTIFY. */
    PCAM_SIM_TR_PHASE,           /**< Target requests in phase. */
    PCAM_SIM_TR_MSG_OUT,         /**< One message byte to the target. */
    PCAM_SIM_TR_MSG_IN,          /**< One message byte from the target (latched). */
    PCAM_SIM_TR_COMMAND,         /**< CDB bytes: count, byte = opcode. */
    PCAM_SIM_TR_DATA,            /**< Data bytes: phase, count, value = ns taken. */
    PCAM_SIM_TR_STATUS,          /**< Status byte. */
    PCAM_SIM_TR_ATN,             /**< ATN raised (value 1) or dropped (0). */
    PCAM_SIM_TR_BUS_FREE,        /**< BSY released. */
    PCAM_SIM_TR_BUS_RESET,       /**< RST asserted; value = 1 if by the initiator. */
    PCAM_SIM_TR_PARITY,          /**< Parity error injected: phase, byte = position in the action (low 8 bits). */
    PCAM_SIM_TR_EVENT,           /**< Event queued for the chip: value = pcam_hal_event_type, phase, count. */
    PCAM_SIM_TR_GROSS_ERROR,     /**< Call refused: value = the ::pcam_sim_call, count = -(pcam_err returned). */
    PCAM_SIM_TR_TASK             /**< Target task note: value = ::pcam_sim_task_note, lun, byte = tag, tag_type, count = opcode. */
} pcam_sim_trace_kind;

/** Which initiator call a #PCAM_SIM_TR_GROSS_ERROR entry refused. */
typedef enum pcam_sim_call {
    PCAM_SIM_CALL_SELECT = 1,     /**< pcam_sim_i_select(). */
    PCAM_SIM_CALL_TRANSFER = 2,   /**< pcam_sim_i_transfer() (also a mode mismatch when strict_xfer). */
    PCAM_SIM_CALL_MSG_OUT = 3,    /**< pcam_sim_i_msg_out(). */
    PCAM_SIM_CALL_MSG_IN = 4,     /**< pcam_sim_i_msg_in(). */
    PCAM_SIM_CALL_MSG_ACCEPT = 5, /**< pcam_sim_i_msg_accept(). */
    PCAM_SIM_CALL_SET_XFER = 6    /**< pcam_sim_i_set_xfer(). */
} pcam_sim_call;

/** What a #PCAM_SIM_TR_TASK entry notes. */
typedef enum pcam_sim_task_note {
    PCAM_SIM_TN_QUEUED = 0,    /**< Task entered the task set. */
    PCAM_SIM_TN_START = 1,     /**< Mechanism started it. */
    PCAM_SIM_TN_READY = 2,     /**< Mechanism finished; wants to reselect. */
    PCAM_SIM_TN_DONE = 3,      /**< COMMAND COMPLETE accepted. */
    PCAM_SIM_TN_ABORTED = 4,   /**< Dropped by a message or reset. */
    PCAM_SIM_TN_DROPPED = 5    /**< Dropped by an injected unexpected bus free. */
} pcam_sim_task_note;

/** One trace entry. */
typedef struct pcam_sim_trace_entry {
    uint64_t t_ns;             /**< Simulated time. */
    pcam_sim_trace_kind kind;  /**< What happened. */
    uint8_t target;            /**< Target ID concerned (0xFF: none). */
    uint8_t lun;               /**< LUN, for task notes. */
    uint8_t byte;              /**< Message, status or first byte; the tag for task notes. */
    uint8_t tag_type;          /**< Task notes: tag message code (0x20 SIMPLE, 0x21 HEAD OF QUEUE, 0x22 ORDERED), 0 untagged. */
    pcam_phase phase;          /**< Phase concerned. */
    uint32_t count;            /**< Byte count. */
    uint32_t value;            /**< Kind-specific value (see ::pcam_sim_trace_kind). */
} pcam_sim_trace_entry;

/**
 * @brief Entries held in the ring (the oldest are overwritten when full).
 *
 * Entries are in the order the bus produced them. A byte run (message-out
 * bytes, a CDB) is traced when it starts, each byte with its own time, so
 * times within the ring never go backwards except that a run's later bytes
 * may be followed by a note of another target's mechanism made during it.
 * @param sim bus.
 * @return count.
 */
size_t pcam_sim_trace_count(const pcam_sim *sim);

/**
 * @brief One entry, 0 = the oldest held.
 * @param sim bus.
 * @param index entry index.
 * @param out receives it.
 * @return true if @p index was valid.
 */
bool pcam_sim_trace_get(const pcam_sim *sim, size_t index, pcam_sim_trace_entry *out);

/**
 * @brief Entries overwritten since the last clear.
 * @param sim bus.
 * @return count.
 */
uint64_t pcam_sim_trace_dropped(const pcam_sim *sim);

/**
 * @brief Empty the ring.
 * @param sim bus.
 */
void pcam_sim_trace_clear(pcam_sim *sim);

/**
 * @brief One readable line for an entry (no newline), as the phase log
 *        writes it: "  1234.567 us  T3  MSG IN 0x04 DISCONNECT".
 * @param e entry.
 * @param buf output, always NUL-terminated when @p cap > 0.
 * @param cap size of @p buf.
 * @return characters written, or negative (PCAM_ERR_NULL, PCAM_ERR_NOSPACE when cut).
 */
int pcam_sim_trace_format(const pcam_sim_trace_entry *e, char *buf, size_t cap);

/**
 * @brief Write every trace event as one line to @p f (NULL stops).
 * @param sim bus.
 * @param f open stream, not closed by the bus.
 */
void pcam_sim_set_log(pcam_sim *sim, FILE *f);

/**
 * @brief Start writing the bus signals to a VCD file (GTKWave-readable:
 *        $timescale 1ns, one scope "scsi", wires BSY SEL ATN RST C_D I_O
 *        MSG REQ ACK DB[15:0] DBP DBP1, asserted = 1). Data phases longer
 *        than 32 transfers are summarised: the first and last 16 REQ/ACK
 *        pairs are byte-exact, DB is x in the gap between.
 * @param sim bus.
 * @param path file to create.
 * @return 0, PCAM_ERR_NULL, PCAM_ERR_UNSUPPORTED (already open), PCAM_ERR_NOSPACE (cannot create).
 */
int pcam_sim_vcd_open(pcam_sim *sim, const char *path);

/**
 * @brief Flush everything up to now and close the VCD file.
 * @param sim bus.
 * @return 0, or PCAM_ERR_NOSPACE if a write failed.
 */
int pcam_sim_vcd_close(pcam_sim *sim);
/** @} */

/* ------------------------------------------------------------------ */
/** @name Command-level adapter (sim_cmdlevel.c)
 * A mailbox-style adapter (or, with #PCAM_HAL_SCRIPT_LEVEL, a SCRIPTS-style
 * chip) on the same bus and targets, written over the pcam_sim_i_*()
 * interface: it runs whole commands itself and asks the core for every
 * decision pcam_hal.h's hal_cmd contract lists. Give its ::pcam_hal to
 * pcam_bus_init() instead of pcam_sim_get_hal()'s; do not mix the two on
 * one bus. */
/** @{ */

/** An opaque simulated adapter. */
typedef struct pcam_simcmd pcam_simcmd;

/** Adapter configuration (pcam_simcmd_config_defaults()). */
typedef struct pcam_simcmd_config {
    pcam_hal_profile profile; /**< #PCAM_HAL_COMMAND_LEVEL (default) or #PCAM_HAL_SCRIPT_LEVEL, which
                                   also hands the core every message it does not recognise. */
    bool autosense;           /**< Fetch sense itself after CHECK CONDITION (reports
                                   #PCAM_HAL_CAP_AUTOSENSE). Default true. */
    uint16_t max_cmds;        /**< Commands it holds at once; start answers PCAM_ERR_NOSPACE beyond. Default 64. */
} pcam_simcmd_config;

/** What the adapter did (counts since creation). */
typedef struct pcam_simcmd_stats {
    uint32_t started;      /**< Commands accepted from the core. */
    uint32_t completed;    /**< Commands reported back. */
    uint32_t full;         /**< Starts refused for want of a free slot. */
    uint32_t selections;   /**< Command selections begun. */
    uint32_t reconnects;   /**< Reselections matched to a command. */
    uint32_t autosense;    /**< REQUEST SENSEs it ran itself. */
    uint32_t aborts;       /**< Abort requests from the core. */
    uint32_t resets;       /**< Device resets it delivered. */
    uint32_t nego_asked;   /**< Times it asked the core whether to negotiate. */
    uint32_t msgs_to_core; /**< Messages from targets it handed to the core. */
} pcam_simcmd_stats;

/**
 * @brief Fill @p cfg with the documented defaults.
 * @param cfg configuration to fill; ignored if NULL.
 */
void pcam_simcmd_config_defaults(pcam_simcmd_config *cfg);

/**
 * @brief Create an adapter on @p sim (which it does not own).
 * @param sim the bus.
 * @param cfg configuration; NULL for the defaults.
 * @return the adapter, or NULL on a bad configuration or no memory.
 */
pcam_simcmd *pcam_simcmd_create(pcam_sim *sim, const pcam_simcmd_config *cfg);

/**
 * @brief Destroy an adapter (after pcam_bus_shutdown()).
 * @param a adapter; ignored if NULL.
 */
void pcam_simcmd_destroy(pcam_simcmd *a);

/**
 * @brief The adapter's back-end: ops, softc and command-level ops.
 * @param a adapter.
 * @param out receives them.
 */
void pcam_simcmd_get_hal(pcam_simcmd *a, pcam_hal *out);

/**
 * @brief The adapter's counters.
 * @param a adapter.
 * @param out receives them; zeroed if @p a is NULL.
 */
void pcam_simcmd_stats_get(const pcam_simcmd *a, pcam_simcmd_stats *out);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* PCAM_SIM_H */
