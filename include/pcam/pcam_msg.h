/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_msg.h
 * @brief SCSI Parallel Interface messages: codes, an incremental parser,
 *        builders, text, and the transfer-period-factor table.
 *
 * Message codes and layouts are those of SPI-2 through SPI-5 (the same
 * values appear in FreeBSD's cam/scsi/scsi_message.h and Linux's
 * include/scsi/scsi_proto.h). Message bytes arrive one REQ/ACK at a time
 * in MESSAGE IN, so the parser takes one byte per call and says exactly how
 * many more it needs; the engine can then decide, per byte, whether to
 * assert ATN and answer MESSAGE REJECT.
 *
 * Message format by first byte (SPI-3 "message format" table):
 * - 0x00, 0x02..0x1F: one byte;
 * - 0x01: extended: 0x01, length L (bytes that follow), extended code,
 *   L - 1 argument bytes;
 * - 0x20..0x2F: two bytes;
 * - 0x30..0x7F: reserved except QAS REQUEST (0x55, one byte); SPI gives
 *   no length for the reserved ones, so pcam takes them as one byte;
 * - 0x80..0xFF: IDENTIFY.
 */
#ifndef PCAM_MSG_H
#define PCAM_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name One-byte message codes
 *  @{ */
#define PCAM_MSG_COMMAND_COMPLETE 0x00           /**< COMMAND COMPLETE (TASK COMPLETE in SPI-3 terms). */
#define PCAM_MSG_EXTENDED 0x01                   /**< First byte of every extended message. */
#define PCAM_MSG_SAVE_DATA_POINTER 0x02          /**< SAVE DATA POINTER. */
#define PCAM_MSG_RESTORE_POINTERS 0x03           /**< RESTORE POINTERS. */
#define PCAM_MSG_DISCONNECT 0x04                 /**< DISCONNECT. */
#define PCAM_MSG_INITIATOR_DETECTED_ERROR 0x05   /**< INITIATOR DETECTED ERROR. */
#define PCAM_MSG_ABORT_TASK_SET 0x06             /**< ABORT TASK SET (ABORT in SCSI-2). */
#define PCAM_MSG_MESSAGE_REJECT 0x07             /**< MESSAGE REJECT. */
#define PCAM_MSG_NO_OPERATION 0x08               /**< NO OPERATION. */
#define PCAM_MSG_MESSAGE_PARITY_ERROR 0x09       /**< MESSAGE PARITY ERROR. */
#define PCAM_MSG_LINKED_COMMAND_COMPLETE 0x0A    /**< LINKED COMMAND COMPLETE. */
#define PCAM_MSG_LINKED_COMMAND_COMPLETE_FLAG 0x0B /**< LINKED COMMAND COMPLETE (WITH FLAG). */
#define PCAM_MSG_TARGET_RESET 0x0C               /**< TARGET RESET. */
#define PCAM_MSG_BUS_DEVICE_RESET 0x0C           /**< SCSI-2 name of TARGET RESET. */
#define PCAM_MSG_ABORT_TASK 0x0D                 /**< ABORT TASK. */
#define PCAM_MSG_ABORT_TAG 0x0D                  /**< SCSI-2 name of ABORT TASK. */
#define PCAM_MSG_CLEAR_TASK_SET 0x0E             /**< CLEAR TASK SET (CLEAR QUEUE in SCSI-2). */
#define PCAM_MSG_CLEAR_ACA 0x16                  /**< CLEAR ACA. */
#define PCAM_MSG_LOGICAL_UNIT_RESET 0x17         /**< LOGICAL UNIT RESET. */
#define PCAM_MSG_QAS_REQUEST 0x55                /**< QAS REQUEST (SPI-3 and later). */
/** @} */

/** @name Two-byte message codes (second byte is the argument)
 *  @{ */
#define PCAM_MSG_SIMPLE_TAG 0x20          /**< SIMPLE (queue tag) + tag byte. */
#define PCAM_MSG_HEAD_OF_QUEUE_TAG 0x21   /**< HEAD OF QUEUE (tag) + tag byte. */
#define PCAM_MSG_ORDERED_TAG 0x22         /**< ORDERED (queue tag) + tag byte. */
#define PCAM_MSG_IGNORE_WIDE_RESIDUE 0x23 /**< IGNORE WIDE RESIDUE + byte count (1..3). */
#define PCAM_MSG_ACA_TAG 0x24             /**< ACA (tag) + tag byte. */
/** @} */

/** @name IDENTIFY (first byte 0x80..0xFF)
 *  @{ */
#define PCAM_MSG_IDENTIFY 0x80          /**< Bit that makes a byte an IDENTIFY message. */
#define PCAM_MSG_IDENTIFY_DISCPRIV 0x40 /**< Disconnect privilege granted by the initiator. */
#define PCAM_MSG_IDENTIFY_LUNTAR 0x20   /**< LUNTAR: addresses a target routine (obsolete; pcam rejects it). */
#define PCAM_MSG_IDENTIFY_RESERVED 0x18 /**< Reserved bits 4-3; nonzero makes the message malformed. */
#define PCAM_MSG_IDENTIFY_LUN_MASK 0x07 /**< LUN (bits 2-0). */
/** @} */

/** @name Extended message codes (third byte) and their length bytes
 *  @{ */
#define PCAM_EXT_MODIFY_DATA_POINTER 0x00 /**< MODIFY DATA POINTER. */
#define PCAM_EXT_SDTR 0x01                /**< SYNCHRONOUS DATA TRANSFER REQUEST. */
#define PCAM_EXT_WDTR 0x03                /**< WIDE DATA TRANSFER REQUEST. */
#define PCAM_EXT_PPR 0x04                 /**< PARALLEL PROTOCOL REQUEST. */
#define PCAM_EXT_MODIFY_DATA_POINTER_LEN 5 /**< Length byte of MODIFY DATA POINTER. */
#define PCAM_EXT_SDTR_LEN 3               /**< Length byte of SDTR. */
#define PCAM_EXT_WDTR_LEN 2               /**< Length byte of WDTR. */
#define PCAM_EXT_PPR_LEN 6                /**< Length byte of PPR. */
/** @} */

/** @name WDTR / PPR transfer width exponents (bus width = 8 << exponent bits)
 *  @{ */
#define PCAM_WIDTH_8BIT 0  /**< Narrow, 8-bit. */
#define PCAM_WIDTH_16BIT 1 /**< Wide, 16-bit. */
#define PCAM_WIDTH_32BIT 2 /**< 32-bit (obsolete since SPI-3, still a defined code). */
/** @} */

/** @name PPR protocol options (last byte of PPR)
 *  @{ */
#define PCAM_PPR_IU_REQ 0x01   /**< Information units. */
#define PCAM_PPR_DT_REQ 0x02   /**< Double-transition clocking. */
#define PCAM_PPR_QAS_REQ 0x04  /**< Quick arbitration and selection. */
#define PCAM_PPR_HOLD_MCS 0x08 /**< Hold margin control settings. */
#define PCAM_PPR_WR_FLOW 0x10  /**< Write flow control. */
#define PCAM_PPR_RD_STRM 0x20  /**< Read streaming. */
#define PCAM_PPR_RTI 0x40      /**< Retain training information. */
#define PCAM_PPR_PCOMP_EN 0x80 /**< Precompensation enable. */
/** @} */

/** Longest message pcam decodes into fields or builds (PPR: 8 bytes). */
#define PCAM_MSG_MAX_LEN 8

/** A ::pcam_msg_format buffer of this size always holds the whole text. */
#define PCAM_MSG_TEXT_MAX 160

/** What a decoded message is. */
typedef enum pcam_msg_kind {
    PCAM_MSGK_MALFORMED = 0,            /**< Bad length or bad bits; answer MESSAGE REJECT. */
    PCAM_MSGK_RESERVED,                 /**< Reserved, obsolete or unknown code; answer MESSAGE REJECT. */
    PCAM_MSGK_IDENTIFY,                 /**< IDENTIFY; see pcam_msg::identify. */
    PCAM_MSGK_COMMAND_COMPLETE,         /**< COMMAND COMPLETE. */
    PCAM_MSGK_SAVE_DATA_POINTER,        /**< SAVE DATA POINTER. */
    PCAM_MSGK_RESTORE_POINTERS,         /**< RESTORE POINTERS. */
    PCAM_MSGK_DISCONNECT,               /**< DISCONNECT. */
    PCAM_MSGK_INITIATOR_DETECTED_ERROR, /**< INITIATOR DETECTED ERROR. */
    PCAM_MSGK_ABORT_TASK_SET,           /**< ABORT TASK SET. */
    PCAM_MSGK_MESSAGE_REJECT,           /**< MESSAGE REJECT. */
    PCAM_MSGK_NO_OPERATION,             /**< NO OPERATION. */
    PCAM_MSGK_MESSAGE_PARITY_ERROR,     /**< MESSAGE PARITY ERROR. */
    PCAM_MSGK_LINKED_COMMAND_COMPLETE,  /**< LINKED COMMAND COMPLETE, with or without flag (pcam_msg::linked_flag). */
    PCAM_MSGK_TARGET_RESET,             /**< TARGET RESET (BUS DEVICE RESET). */
    PCAM_MSGK_ABORT_TASK,               /**< ABORT TASK (ABORT TAG). */
    PCAM_MSGK_CLEAR_TASK_SET,           /**< CLEAR TASK SET. */
    PCAM_MSGK_CLEAR_ACA,                /**< CLEAR ACA. */
    PCAM_MSGK_LOGICAL_UNIT_RESET,       /**< LOGICAL UNIT RESET. */
    PCAM_MSGK_QAS_REQUEST,              /**< QAS REQUEST. */
    PCAM_MSGK_SIMPLE_TAG,               /**< SIMPLE tag; see pcam_msg::tag. */
    PCAM_MSGK_HEAD_OF_QUEUE_TAG,        /**< HEAD OF QUEUE tag; see pcam_msg::tag. */
    PCAM_MSGK_ORDERED_TAG,              /**< ORDERED tag; see pcam_msg::tag. */
    PCAM_MSGK_ACA_TAG,                  /**< ACA tag; see pcam_msg::tag. */
    PCAM_MSGK_IGNORE_WIDE_RESIDUE,      /**< IGNORE WIDE RESIDUE; see pcam_msg::residue. */
    PCAM_MSGK_SDTR,                     /**< SDTR; see pcam_msg::sdtr. */
    PCAM_MSGK_WDTR,                     /**< WDTR; see pcam_msg::wdtr_width_exp. */
    PCAM_MSGK_PPR,                      /**< PPR; see pcam_msg::ppr. */
    PCAM_MSGK_MODIFY_DATA_POINTER       /**< MODIFY DATA POINTER; see pcam_msg::mdp_argument. */
} pcam_msg_kind;

/** IDENTIFY fields. */
typedef struct pcam_msg_identify {
    uint8_t lun;        /**< Logical unit, 0..7 (bits 2-0). */
    bool disconnect_ok; /**< DiscPriv (bit 6): the target may disconnect. */
} pcam_msg_identify;

/** SDTR arguments. */
typedef struct pcam_msg_sdtr {
    uint8_t period; /**< Transfer period factor (see ::pcam_period_factor_to_ps). */
    uint8_t offset; /**< REQ/ACK offset; 0 means asynchronous. */
} pcam_msg_sdtr;

/** PPR arguments (the reserved byte is ignored on decode and sent as 0). */
typedef struct pcam_msg_ppr {
    uint8_t period;    /**< Transfer period factor. */
    uint8_t offset;    /**< REQ/ACK offset; 0 means asynchronous. */
    uint8_t width_exp; /**< Transfer width exponent (PCAM_WIDTH_*). */
    uint8_t options;   /**< Protocol options (PCAM_PPR_* bits). */
} pcam_msg_ppr;

/**
 * A decoded message. Only the fields named by pcam_msg::kind carry meaning; the
 * decoder zeroes the rest so a struct compare of two decodes is stable.
 */
typedef struct pcam_msg {
    pcam_msg_kind kind; /**< What the message is. */
    uint8_t code;       /**< First byte on the wire (0x01 for extended messages). */
    uint8_t ext_code;   /**< Extended code (third byte); 0 unless pcam_msg::code is 0x01 and it arrived. */
    uint8_t ext_length; /**< Extended length byte; 0 unless pcam_msg::code is 0x01 and it arrived. */
    uint16_t length;    /**< Bytes the parser consumed for this message, including on errors. */
    pcam_msg_identify identify; /**< IDENTIFY fields. */
    uint8_t tag;        /**< Tag value of a SIMPLE / HEAD OF QUEUE / ORDERED / ACA tag message. */
    uint8_t residue;    /**< IGNORE WIDE RESIDUE: number of bytes to ignore (1..3; also kept when out of range and the message is malformed). */
    pcam_msg_sdtr sdtr; /**< SDTR arguments. */
    uint8_t wdtr_width_exp; /**< WDTR transfer width exponent (PCAM_WIDTH_*). */
    pcam_msg_ppr ppr;   /**< PPR arguments. */
    int32_t mdp_argument; /**< MODIFY DATA POINTER: signed byte offset to add to the data pointer. */
    bool linked_flag;   /**< LINKED COMMAND COMPLETE: true for the WITH FLAG form (0x0B). */
} pcam_msg;

/**
 * Incremental parser state. Treat as opaque; initialise with
 * ::pcam_msg_parser_init. Holds only the bytes it must decode, so an
 * unknown extended message of any length costs no storage.
 */
typedef struct pcam_msg_parser {
    uint8_t buf[PCAM_MSG_MAX_LEN]; /**< First bytes of the message in progress. */
    uint16_t have;                 /**< Bytes of the message received so far. */
    uint16_t total;                /**< Total message length once known, else 0. */
} pcam_msg_parser;

/**
 * @brief Reset a parser to expect the first byte of a message.
 * @param p parser; ignored if NULL.
 */
void pcam_msg_parser_init(pcam_msg_parser *p);

/**
 * @brief Whether a message is partly received (the engine needs this on an
 *        unexpected phase change in the middle of a message).
 * @param p parser.
 * @return true if at least one byte of an unfinished message is held.
 */
bool pcam_msg_parser_busy(const pcam_msg_parser *p);

/**
 * @brief Feed one received message byte.
 *
 * The count returned while a message is incomplete is exact as soon as it
 * can be: 1 after a two-byte-group first byte, 1 after 0x01 (to learn the
 * length), then the length byte's value, counting down by one per byte.
 *
 * Errors are reported as early as the bytes allow (an extended length of 0
 * at the length byte, a wrong length for SDTR/WDTR/PPR/MODIFY DATA POINTER
 * at the code byte), so the engine can raise ATN before the target sends
 * more. An extended length of 0 meant 256 bytes in SCSI-2 but no defined
 * message has one; pcam treats it as malformed. Unknown extended codes are
 * consumed to their end and then reported as reserved, so a target that
 * ignores ATN does not desynchronise the parser.
 *
 * @param p parser.
 * @param byte the byte received.
 * @param out receives the message on 0 or a negative return (kind
 *        ::PCAM_MSGK_MALFORMED or ::PCAM_MSGK_RESERVED on errors); left
 *        untouched while more bytes are needed.
 * @return >0: that many more bytes are needed; 0: a complete message is in
 *         @p out; negative ::pcam_err: ::PCAM_ERR_LENGTH (bad extended
 *         length), ::PCAM_ERR_FORMAT (reserved IDENTIFY bits),
 *         ::PCAM_ERR_RANGE (IGNORE WIDE RESIDUE count outside 1..3),
 *         ::PCAM_ERR_RESERVED (reserved, obsolete or unknown code, or
 *         IDENTIFY with LUNTAR), ::PCAM_ERR_NULL. After 0 or an error the
 *         parser is ready for the next message.
 */
int pcam_msg_parser_feed(pcam_msg_parser *p, uint8_t byte, pcam_msg *out);

/**
 * @brief Decode the first message of a buffer (same rules as the parser).
 * @param buf bytes; may be NULL when @p len is 0.
 * @param len bytes available.
 * @param out receives the message on 0 or a negative return.
 * @param consumed receives the bytes the message (or the error) used; 0
 *        while more bytes are needed. May be NULL.
 * @return 0, >0 (more bytes needed beyond @p len), or a negative ::pcam_err
 *         as for ::pcam_msg_parser_feed.
 */
int pcam_msg_decode(const uint8_t *buf, size_t len, pcam_msg *out, size_t *consumed);

/**
 * @brief How many more bytes the message starting at @p buf needs.
 * @param buf the first @p have bytes of a message; may be NULL if @p have is 0.
 * @param have bytes available.
 * @return >0 more bytes needed, 0 if a complete message is within @p have,
 *         or a negative ::pcam_err if the bytes so far are already invalid.
 */
int pcam_msg_bytes_needed(const uint8_t *buf, size_t have);

/**
 * @brief Build a one-byte message: any code 0x00, 0x02..0x1F or 0x30..0x7F.
 *
 * Reserved codes in those ranges are accepted so that a simulated target
 * can provoke MESSAGE REJECT; IDENTIFY has its own builder
 * (::pcam_msg_build_identify).
 *
 * @param buf output.
 * @param cap size of @p buf.
 * @param code message code, e.g. ::PCAM_MSG_ABORT_TASK.
 * @return 1, ::PCAM_ERR_RANGE for 0x01, 0x20..0x2F and 0x80..0xFF,
 *         ::PCAM_ERR_NOSPACE, or ::PCAM_ERR_NULL.
 */
int pcam_msg_build_byte(uint8_t *buf, size_t cap, uint8_t code);

/**
 * @brief Build IDENTIFY.
 * @param buf output.
 * @param cap size of @p buf.
 * @param lun logical unit 0..7.
 * @param disconnect_ok grant the disconnect privilege.
 * @return 1, ::PCAM_ERR_RANGE (lun > 7), ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_identify(uint8_t *buf, size_t cap, uint8_t lun, bool disconnect_ok);

/**
 * @brief Build a tag message.
 * @param buf output.
 * @param cap size of @p buf.
 * @param code ::PCAM_MSG_SIMPLE_TAG, ::PCAM_MSG_HEAD_OF_QUEUE_TAG,
 *        ::PCAM_MSG_ORDERED_TAG or ::PCAM_MSG_ACA_TAG.
 * @param tag tag value.
 * @return 2, ::PCAM_ERR_RANGE (other code), ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_tag(uint8_t *buf, size_t cap, uint8_t code, uint8_t tag);

/**
 * @brief Build IGNORE WIDE RESIDUE (sent by targets; for simulated ones).
 * @param buf output.
 * @param cap size of @p buf.
 * @param count bytes to ignore, 1..3.
 * @return 2, ::PCAM_ERR_RANGE, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_ignore_wide_residue(uint8_t *buf, size_t cap, uint8_t count);

/**
 * @brief Build SDTR.
 * @param buf output.
 * @param cap size of @p buf.
 * @param period transfer period factor.
 * @param offset REQ/ACK offset (0 = asynchronous).
 * @return 5, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_sdtr(uint8_t *buf, size_t cap, uint8_t period, uint8_t offset);

/**
 * @brief Build WDTR.
 * @param buf output.
 * @param cap size of @p buf.
 * @param width_exp transfer width exponent 0..2.
 * @return 4, ::PCAM_ERR_RANGE, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_wdtr(uint8_t *buf, size_t cap, uint8_t width_exp);

/**
 * @brief Build PPR.
 * @param buf output.
 * @param cap size of @p buf.
 * @param period transfer period factor.
 * @param offset REQ/ACK offset.
 * @param width_exp transfer width exponent 0..2.
 * @param options protocol options (PCAM_PPR_* bits).
 * @return 8, ::PCAM_ERR_RANGE, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_ppr(uint8_t *buf, size_t cap, uint8_t period, uint8_t offset,
                       uint8_t width_exp, uint8_t options);

/**
 * @brief Build MODIFY DATA POINTER.
 * @param buf output.
 * @param cap size of @p buf.
 * @param argument signed byte count to add to the data pointer.
 * @return 7, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_msg_build_modify_data_pointer(uint8_t *buf, size_t cap, int32_t argument);

/**
 * @brief Name of a message by its first byte.
 * @param code first message byte (any value 0x80..0xFF is "IDENTIFY").
 * @return a static upper-case name, "EXTENDED MESSAGE" for 0x01, or
 *         "RESERVED" for reserved codes; never NULL.
 */
const char *pcam_msg_name(uint8_t code);

/**
 * @brief Name of an extended message by its extended code.
 * @param ext_code third byte of an extended message.
 * @return a static name ("SDTR", "WDTR", "PPR", "MODIFY DATA POINTER", the
 *         obsolete ones with a suffix) or "RESERVED"; never NULL.
 */
const char *pcam_msg_ext_name(uint8_t ext_code);

/**
 * @brief One-line text of a decoded message, e.g.
 *        "SDTR period=0x0C (50.00 ns) offset=15".
 * @param m message.
 * @param buf output; always NUL-terminated when @p cap > 0.
 * @param cap size of @p buf.
 * @return characters written (excluding the NUL), ::PCAM_ERR_NOSPACE if
 *         the text was cut (the prefix is kept), or ::PCAM_ERR_NULL.
 */
int pcam_msg_format(const pcam_msg *m, char *buf, size_t cap);

/**
 * @brief Transfer period of a period factor, in picoseconds.
 *
 * 0x07 3.125 ns (SPI-5 FAST-320), 0x08 6.25 ns, 0x09 12.5 ns, 0x0A 25 ns,
 * 0x0B 30.3 ns, 0x0C 50 ns, 0x0D..0xFF factor x 4 ns. For ST transfers one
 * byte (or word) moves per period; DT clocking moves data on both edges,
 * so the data rate doubles at the same factor.
 *
 * @param factor transfer period factor.
 * @return period in ps; 0 for factors 0x00..0x06, which are reserved (an
 *         SDTR with offset 0 means asynchronous whatever the factor).
 */
uint32_t pcam_period_factor_to_ps(uint8_t factor);

/**
 * @brief The period factor to ask for a period of at least @p ps.
 * @param ps wanted period in picoseconds.
 * @return the smallest factor whose period is >= @p ps (never faster than
 *         asked); 0x07 for ps <= 3125. Periods above 1020 ns (factor 0xFF)
 *         saturate at 0xFF: no slower synchronous period exists, so a
 *         caller needing slower must use asynchronous transfers (offset 0).
 */
uint8_t pcam_period_ps_to_factor(uint32_t ps);

/**
 * @brief Transfer rate of a period factor in kHz (transfers per ms) for
 *        ST clocking: 10^9 / ps, truncated. DT clocking doubles it; a
 *        16-bit bus doubles the bytes per transfer.
 * @param factor transfer period factor.
 * @return rate in kHz, 0 for reserved factors.
 */
uint32_t pcam_period_factor_to_khz(uint8_t factor);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_MSG_H */
