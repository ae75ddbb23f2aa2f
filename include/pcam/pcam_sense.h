/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_sense.h
 * @brief Sense data codec: fixed (70h/71h) and descriptor (72h/73h) formats,
 *        sense-key names, the T10 ASC/ASCQ table and a one-line formatter.
 *
 * Decoding never trusts the target: the additional sense length and every
 * descriptor length are checked against the bytes actually received, and a
 * field is reported only when all of its bytes are there (see
 * ::pcam_sense_decode). Layouts follow SPC-5 clause 4.4 (sense data).
 */
#ifndef PCAM_SENSE_H
#define PCAM_SENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_config.h"
#include "pcam_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Sense data response codes (byte 0, bits 6..0)
 *  @{ */
#define PCAM_SENSE_RC_FIXED_CURRENT 0x70u  /**< Fixed format, current error. */
#define PCAM_SENSE_RC_FIXED_DEFERRED 0x71u /**< Fixed format, deferred error. */
#define PCAM_SENSE_RC_DESC_CURRENT 0x72u   /**< Descriptor format, current error. */
#define PCAM_SENSE_RC_DESC_DEFERRED 0x73u  /**< Descriptor format, deferred error. */
#define PCAM_SENSE_RC_VENDOR 0x7Fu         /**< Vendor-specific sense data format. */
/** @} */

/** @name Sizes
 *  @{ */
#define PCAM_SENSE_FIXED_LEN 18u   /**< Fixed sense data with additional length 10 (through the SKS bytes). */
#define PCAM_SENSE_HEADER_LEN 8u   /**< Bytes before the additional sense bytes, in both formats. */
#define PCAM_SENSE_MAX_LEN 252u    /**< Largest sense data SPC allows (REQUEST SENSE allocation length). */
/** @} */

/** Sense keys (SPC-5, sense key descriptions). */
typedef enum pcam_sense_key {
    PCAM_SK_NO_SENSE = 0x0,        /**< No specific sense key; may carry FILEMARK/EOM/ILI or progress. */
    PCAM_SK_RECOVERED_ERROR = 0x1, /**< Command completed with recovery action. */
    PCAM_SK_NOT_READY = 0x2,       /**< Logical unit not accessible. */
    PCAM_SK_MEDIUM_ERROR = 0x3,    /**< Non-recovered error from a medium flaw. */
    PCAM_SK_HARDWARE_ERROR = 0x4,  /**< Non-recovered hardware failure. */
    PCAM_SK_ILLEGAL_REQUEST = 0x5, /**< Illegal CDB or parameter data. */
    PCAM_SK_UNIT_ATTENTION = 0x6,  /**< Reset, medium change, parameter change, ... */
    PCAM_SK_DATA_PROTECT = 0x7,    /**< Access blocked (write protect, security). */
    PCAM_SK_BLANK_CHECK = 0x8,     /**< Blank or non-blank medium where the other was expected. */
    PCAM_SK_VENDOR_SPECIFIC = 0x9, /**< Vendor-specific condition. */
    PCAM_SK_COPY_ABORTED = 0xA,    /**< A copy command was aborted. */
    PCAM_SK_ABORTED_COMMAND = 0xB, /**< The device server aborted the command. */
    PCAM_SK_EQUAL = 0xC,           /**< SCSI-2 SEARCH DATA matched; obsolete in SPC. */
    PCAM_SK_VOLUME_OVERFLOW = 0xD, /**< End of partition reached with data still buffered. */
    PCAM_SK_MISCOMPARE = 0xE,      /**< Source and medium data differ (VERIFY, COMPARE AND WRITE). */
    PCAM_SK_COMPLETED = 0xF        /**< Completed command reporting sense (SPC-5). */
} pcam_sense_key;

/** Which layout the sense data used. */
typedef enum pcam_sense_fmt {
    PCAM_SENSE_FIXED = 0,      /**< Response code 70h or 71h. */
    PCAM_SENSE_DESCRIPTOR = 1, /**< Response code 72h or 73h. */
    PCAM_SENSE_VENDOR = 2      /**< Response code 7Fh: nothing past byte 0 is defined. */
} pcam_sense_fmt;

/** How the three sense-key specific bytes were interpreted (chosen by sense key). */
typedef enum pcam_sks_kind {
    PCAM_SKS_RAW = 0,             /**< No interpretation for this key; see pcam_sense_sks::raw. */
    PCAM_SKS_FIELD_POINTER = 1,   /**< ILLEGAL REQUEST: the byte (and bit) in error. */
    PCAM_SKS_PROGRESS = 2,        /**< NO SENSE / NOT READY: progress of a long operation. */
    PCAM_SKS_RETRY_COUNT = 3,     /**< RECOVERED/MEDIUM/HARDWARE ERROR: actual retry count. */
    PCAM_SKS_SEGMENT_POINTER = 4  /**< COPY ABORTED: the byte (and bit) in error in a copy. */
} pcam_sks_kind;

/** Decoded sense-key specific information. Fields not used by @c kind are zero. */
typedef struct pcam_sense_sks {
    pcam_sks_kind kind;     /**< Interpretation applied. */
    uint8_t raw[3];         /**< The three bytes as received, SKSV bit included. */
    bool c_d;               /**< FIELD_POINTER: true = error is in the CDB, false = in parameter data. */
    bool sd;                /**< SEGMENT_POINTER: true = field pointer is relative to a segment descriptor, false = to the parameter list. */
    bool bpv;               /**< FIELD/SEGMENT_POINTER: bit_pointer is valid. */
    uint8_t bit_pointer;    /**< FIELD/SEGMENT_POINTER: bit (0..7) within the byte in error. */
    uint16_t field_pointer; /**< FIELD/SEGMENT_POINTER: byte offset of the field in error. */
    uint16_t progress;      /**< PROGRESS: fraction done, out of 65536. */
    uint16_t retry_count;   /**< RETRY_COUNT: retries the device actually made. */
} pcam_sense_sks;

/**
 * Decoded sense data. Every @c *_valid flag is false unless all bytes of
 * that field were received and fell inside the additional sense length; a
 * value whose flag is false is zero.
 */
typedef struct pcam_sense {
    uint8_t response_code;    /**< Byte 0 bits 6..0 (70h..73h, 7Fh). */
    pcam_sense_fmt format;    /**< Layout implied by response_code. */
    bool deferred;            /**< Response code 71h/73h: the error belongs to an earlier command. */
    bool key_valid;           /**< The sense key byte was received (false only for vendor format). */
    uint8_t key;              /**< Sense key (::pcam_sense_key), 0..15. */
    bool asc_valid;           /**< Both the ASC and the ASCQ bytes were received. */
    uint8_t asc;              /**< Additional sense code. */
    uint8_t ascq;             /**< Additional sense code qualifier. */
    bool info_valid;          /**< INFORMATION present with its VALID bit set (fixed byte 0 bit 7, or descriptor 00h). */
    uint64_t info;            /**< INFORMATION field (32 bits in fixed format, 64 in descriptor 00h). */
    bool csi_valid;           /**< COMMAND-SPECIFIC INFORMATION present: descriptor 01h, or a non-zero fixed-format field (fixed format has no valid bit, and zero means "none"). */
    uint64_t csi;             /**< COMMAND-SPECIFIC INFORMATION field. */
    bool sks_valid;           /**< Sense-key specific bytes present with SKSV set. */
    pcam_sense_sks sks;       /**< Sense-key specific information. */
    bool fru_valid;           /**< A non-zero FIELD REPLACEABLE UNIT code was reported (zero means none). */
    uint8_t fru;              /**< Field replaceable unit code. */
    bool filemark;            /**< FILEMARK bit (fixed byte 2, or descriptor 04h). */
    bool eom;                 /**< EOM bit: end of medium (fixed byte 2, or descriptor 04h). */
    bool ili;                 /**< ILI bit: incorrect length (fixed byte 2, or descriptor 04h/05h). */
    bool sdat_ovfl;           /**< SDAT_OVFL: the device had more sense than fitted its buffer. */
    bool progress_valid;      /**< A progress indication descriptor (0Ah, descriptor format only) was received whole. */
    uint8_t progress_key;     /**< Progress descriptor: sense key of the operation in progress. */
    uint8_t progress_asc;     /**< Progress descriptor: its additional sense code. */
    uint8_t progress_ascq;    /**< Progress descriptor: its additional sense code qualifier. */
    uint16_t progress;        /**< Progress descriptor: fraction done, out of 65536. */
    uint8_t additional_length; /**< Byte 7 as received (0 when byte 7 was missing). */
    uint16_t used;            /**< Bytes decoded: the smaller of the buffer and 8 + additional_length. */
    bool truncated;           /**< The buffer ended before the header or the additional length, or a descriptor ran past the end. */
} pcam_sense;

/**
 * @brief Name of a sense key, in T10's capitals ("MEDIUM ERROR").
 * @param key sense key; only the low four bits are used.
 * @return a static string; never NULL.
 */
const char *pcam_sense_key_name(uint8_t key);

/**
 * @brief Whether the T10 list names this ASC/ASCQ pair (exactly or as a
 *        parameterised entry such as 40/NN).
 * @param asc additional sense code.
 * @param ascq additional sense code qualifier.
 * @return true if pcam_asc_format() gives a T10 text for it; always false
 *         when #PCAM_CFG_SENSE_TEXT is 0.
 */
bool pcam_asc_known(uint8_t asc, uint8_t ascq);

/**
 * @brief Describe an ASC/ASCQ pair in words.
 *
 * In order: the exact entry's text; else a ranged entry with "NN" replaced
 * by the ASCQ in hex ("Diagnostic failure on component 85h"); else
 * "ASC 0xAA ASCQ 0xQQ (vendor specific)" when either code is 80h or more;
 * else "Unknown ASC/ASCQ". The texts are kept compressed and expanded
 * straight into @p buf, so no other buffer is used. With
 * #PCAM_CFG_SENSE_TEXT 0 every pair is written as "ASC 0xAA ASCQ 0xQQ"
 * (with " (vendor specific)" where it applies).
 * @param asc additional sense code.
 * @param ascq additional sense code qualifier.
 * @param buf output; always NUL-terminated when cap > 0.
 * @param cap size of @p buf in bytes.
 * @return characters written (excluding the NUL); PCAM_ERR_NOSPACE if the
 *         text was cut; PCAM_ERR_NULL if @p buf is NULL.
 */
int pcam_asc_format(uint8_t asc, uint8_t ascq, char *buf, size_t cap);

/**
 * @brief Decode sense data of any supported format.
 *
 * @p out is cleared first and then filled with whatever the bytes hold,
 * also when an error is returned. Only bytes below both @p len and
 * 8 + additional sense length are read; a descriptor whose length runs past
 * that end stops the walk and sets pcam_sense::truncated. Unknown descriptor
 * types are skipped; for a type that appears twice the first one counts.
 * @param buf sense bytes as received (may be NULL only if @p len is 0).
 * @param len number of valid bytes in @p buf (the transfer length, not the
 *        buffer size).
 * @param out decoded result.
 * @return PCAM_OK (possibly with pcam_sense::truncated set);
 *         PCAM_ERR_TRUNCATED when even the sense key is missing;
 *         PCAM_ERR_FORMAT for a response code other than 70h-73h and 7Fh;
 *         PCAM_ERR_NULL for a NULL @p out, or NULL @p buf with @p len > 0.
 */
pcam_err pcam_sense_decode(const uint8_t *buf, size_t len, pcam_sense *out);

/**
 * @brief One-line description of decoded sense data.
 *
 * For example "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x1234",
 * followed where present by ", deferred", " csi=0x..", " fru=0x..",
 * " field pointer byte 2 bit 5 in CDB", " progress 50%", " retries=N",
 * " progress 25% of NOT READY: <ASC text> (2/04/04)" (a progress
 * indication descriptor, which names the operation it measures),
 * " sks=0x......", " FILEMARK", " EOM", " ILI", " SDAT_OVFL" and
 * " (truncated)".
 * @param s decoded sense data.
 * @param buf output; always NUL-terminated when cap > 0.
 * @param cap size of @p buf in bytes.
 * @return characters written (excluding the NUL); PCAM_ERR_NOSPACE if the
 *         line was cut; PCAM_ERR_NULL if @p s or @p buf is NULL.
 */
int pcam_sense_format(const pcam_sense *s, char *buf, size_t cap);

/**
 * @brief Build current, fixed-format sense data (response code 70h).
 *
 * Writes ::PCAM_SENSE_FIXED_LEN bytes with additional sense length 10.
 * @param buf output buffer.
 * @param cap size of @p buf; at least ::PCAM_SENSE_FIXED_LEN.
 * @param key sense key, 0..15.
 * @param asc additional sense code.
 * @param ascq additional sense code qualifier.
 * @param info_valid set the VALID bit and store @p info.
 * @param info INFORMATION field (ignored unless @p info_valid).
 * @return bytes written (18); PCAM_ERR_NULL, PCAM_ERR_NOSPACE, or
 *         PCAM_ERR_RANGE for a key above 15.
 */
int pcam_sense_build_fixed(uint8_t *buf, size_t cap, uint8_t key, uint8_t asc,
                           uint8_t ascq, bool info_valid, uint32_t info);

/**
 * @brief Build current, descriptor-format sense data (response code 72h).
 *
 * Writes the 8-byte header, plus a 12-byte information descriptor (type
 * 00h, VALID set) when @p info_valid.
 * @param buf output buffer.
 * @param cap size of @p buf; at least 8, or 20 with @p info_valid.
 * @param key sense key, 0..15.
 * @param asc additional sense code.
 * @param ascq additional sense code qualifier.
 * @param info_valid append the information descriptor.
 * @param info INFORMATION field (ignored unless @p info_valid).
 * @return bytes written (8 or 20); PCAM_ERR_NULL, PCAM_ERR_NOSPACE, or
 *         PCAM_ERR_RANGE for a key above 15.
 */
int pcam_sense_build_descriptor(uint8_t *buf, size_t cap, uint8_t key, uint8_t asc,
                                uint8_t ascq, bool info_valid, uint64_t info);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_SENSE_H */
