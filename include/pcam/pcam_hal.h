/**
 * @file pcam_hal.h
 * @brief The contract between the core and a chip back-end.
 *
 * A back-end is an ops table plus an opaque softc. This header describes the
 * phase-level profile (ESP/NCR53C9x, AM53C974, PIO chips and the simulated
 * bus), where the core's engine decides every phase.
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
 */
#ifndef PCAM_HAL_H
#define PCAM_HAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam_platform.h"

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

/** One decoded chip event. */
typedef struct pcam_hal_event {
    pcam_hal_event_type type; /**< What happened. */
    pcam_phase phase;         /**< The bus phase now (REQ asserted in it), or #PCAM_PHASE_BUS_FREE. */
    uint32_t count;           /**< Bytes moved by the action (see the event type). */
    uint32_t count2;          /**< CDB bytes sent, for #PCAM_HAL_EV_SELECT_DONE. */
    uint8_t target;           /**< Target ID the event concerns. */
    uint8_t byte;             /**< Message byte or reselection IDENTIFY. */
    bool parity_error;        /**< A parity error was detected on bytes received by this action. */
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
} pcam_hal_select;

/** Arguments of pcam_hal_ops::transfer. */
typedef struct pcam_hal_xfer {
    pcam_phase phase;   /**< DATA IN, DATA OUT, COMMAND or STATUS: the phase the bus is in. */
    const pcam_sg *sg;  /**< Buffer list; for COMMAND and STATUS a single element. */
    uint16_t sg_count;  /**< Elements in @c sg. */
    uint32_t offset;    /**< Byte offset into the list where the transfer starts (the data pointer). */
    uint32_t len;       /**< Most bytes to move; the transfer stops earlier when the target changes phase. */
} pcam_hal_xfer;

/** An agreed transfer mode for one target, as programmed into the chip. */
typedef struct pcam_hal_xfer_params {
    uint8_t period;      /**< Period factor (0 = asynchronous). */
    uint8_t offset;      /**< REQ/ACK offset (0 = asynchronous). */
    uint8_t width;       /**< Width exponent: 0 = 8 bit, 1 = 16 bit. */
    uint8_t ppr_options; /**< PPR protocol options in force (DT, IU, QAS bits), 0 for ST. */
} pcam_hal_xfer_params;

/** Back-end profiles (see DESIGN.md). */
typedef enum pcam_hal_profile {
    PCAM_HAL_PHASE_LEVEL = 1,  /**< The core's engine drives every phase. */
    PCAM_HAL_SCRIPT_LEVEL = 2, /**< The chip runs phases, the core decides (not yet supported). */
    PCAM_HAL_COMMAND_LEVEL = 3 /**< Mailbox adapters (not yet supported). */
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
    PCAM_HAL_CAP_DMA = 1u << 7     /**< Data moves by DMA (buffers must be mappable). */
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

/** A back-end instance: its ops and its softc. */
typedef struct pcam_hal {
    const pcam_hal_ops *ops; /**< The back-end's operations. */
    void *sc;                /**< The back-end's private state. */
} pcam_hal;

/**
 * A short name for a phase ("DATA IN", "BUS FREE", "RESERVED(4)"...).
 * @param phase any value. @return static text ("INVALID" for values outside the enum).
 */
const char *pcam_phase_name(pcam_phase phase);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_HAL_H */
