/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_inquiry.h
 * @brief Parsers for standard INQUIRY data, REPORT LUNS parameter data and
 *        READ CAPACITY(10)/(16) parameter data, plus the few encoders a
 *        simulated target needs.
 *
 * Layouts are SPC-3/SPC-4 (INQUIRY, REPORT LUNS), SAM-4/SAM-5 (the 8-byte
 * LUN) and SBC-3/SBC-4 (READ CAPACITY). Every parser reads only the bytes
 * it is given and says which fields were present, because devices commonly
 * return less than the allocation length, and some lie about lengths.
 */
#ifndef PCAM_INQUIRY_H
#define PCAM_INQUIRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Peripheral qualifier values (INQUIRY byte 0, bits 7-5)
 *  @{ */
#define PCAM_INQ_QUAL_CONNECTED 0     /**< A device of this type is connected to this LUN. */
#define PCAM_INQ_QUAL_NOT_CONNECTED 1 /**< Supported, but no device is connected now. */
#define PCAM_INQ_QUAL_NO_LUN 3        /**< The target cannot support a device at this LUN. */
/** @} */

/** @name Peripheral device types (INQUIRY byte 0, bits 4-0; a selection)
 *  @{ */
#define PCAM_TYPE_DISK 0x00      /**< Direct-access block device. */
#define PCAM_TYPE_TAPE 0x01      /**< Sequential-access device. */
#define PCAM_TYPE_PRINTER 0x02   /**< Printer device. */
#define PCAM_TYPE_PROCESSOR 0x03 /**< Processor device. */
#define PCAM_TYPE_WORM 0x04      /**< Write-once device. */
#define PCAM_TYPE_CDROM 0x05     /**< CD/DVD device. */
#define PCAM_TYPE_SCANNER 0x06   /**< Scanner device (obsolete). */
#define PCAM_TYPE_OPTICAL 0x07   /**< Optical memory device. */
#define PCAM_TYPE_CHANGER 0x08   /**< Medium changer device. */
#define PCAM_TYPE_ENCLOSURE 0x0D /**< Enclosure services device. */
#define PCAM_TYPE_RBC 0x0E       /**< Simplified direct-access device. */
#define PCAM_TYPE_WLUN 0x1E      /**< Well known logical unit. */
#define PCAM_TYPE_NONE 0x1F      /**< Unknown or no device type. */
/** @} */

/** @name SPI CLOCKING field values (INQUIRY byte 56, bits 3-2)
 *  @{ */
#define PCAM_INQ_CLOCKING_ST 0    /**< ST clocking only. */
#define PCAM_INQ_CLOCKING_DT 1    /**< DT clocking only. */
#define PCAM_INQ_CLOCKING_ST_DT 3 /**< Both ST and DT clocking (2 is reserved). */
/** @} */

/** Size of the longest standard INQUIRY data (additional length 255). */
#define PCAM_INQUIRY_MAX_LEN 260

/**
 * Standard INQUIRY data. A field group is only filled when all of its
 * bytes lie within pcam_inquiry::bytes_valid; absent fields are zero / empty.
 */
typedef struct pcam_inquiry {
    uint16_t bytes_valid;    /**< Bytes used: min(buffer length, additional length + 5). */
    uint8_t qualifier;       /**< Peripheral qualifier (PCAM_INQ_QUAL_*). */
    uint8_t device_type;     /**< Peripheral device type (PCAM_TYPE_*). */
    bool rmb;                /**< Removable medium. */
    bool lu_cong;            /**< LU_CONG (SPC-5; byte 1 bit 6). */
    uint8_t version;         /**< VERSION (claimed standard: 3 SPC, 4 SPC-2, 5 SPC-3, 6 SPC-4, 7 SPC-5). */
    bool normaca;            /**< NORMACA: normal ACA supported. */
    bool hisup;              /**< HISUP: hierarchical LUN addressing. */
    uint8_t response_format; /**< RESPONSE DATA FORMAT (2 for SCSI-2 and later). */
    uint8_t additional_length; /**< ADDITIONAL LENGTH as reported (n - 4). */

    bool have_flags;         /**< Bytes 5-7 present: the fields below up to pcam_inquiry::cmdque. */
    bool sccs;               /**< SCCS: embedded storage array controller. */
    bool acc;                /**< ACC: access controls coordinator. */
    uint8_t tpgs;            /**< TPGS: target port group support (2 bits). */
    bool threepc;            /**< 3PC: third-party copy. */
    bool protect;            /**< PROTECT: protection information supported. */
    bool encserv;            /**< ENCSERV: embedded enclosure services. */
    bool multip;             /**< MULTIP: multiple ports. */
    bool mchngr;             /**< MCHNGR: embedded medium changer (obsolete). */
    bool addr16;             /**< ADDR16: 16-bit wide SCSI addresses (SPI). */
    bool wbus16;             /**< WBUS16: 16-bit wide data transfers (SPI). */
    bool sync;               /**< SYNC: synchronous transfers (SPI). */
    bool linked;             /**< LINKED: linked commands (obsolete in SPC-4). */
    bool trandis;            /**< TRANDIS: CONTINUE TASK and TARGET TRANSFER DISABLE (SPI-2). */
    bool cmdque;             /**< CMDQUE: tagged command queuing. */

    bool have_vendor;        /**< Bytes 8-15 present. */
    bool have_product;       /**< Bytes 16-31 present. */
    bool have_revision;      /**< Bytes 32-35 present. */
    char vendor[9];          /**< T10 VENDOR IDENTIFICATION: trailing spaces/NULs trimmed, non-printables as '?'. */
    char product[17];        /**< PRODUCT IDENTIFICATION, cleaned as pcam_inquiry::vendor. */
    char revision[5];        /**< PRODUCT REVISION LEVEL, cleaned as pcam_inquiry::vendor. */

    bool have_spi;           /**< Byte 56 present: pcam_inquiry::clocking, pcam_inquiry::qas, pcam_inquiry::ius. */
    uint8_t clocking;        /**< CLOCKING (PCAM_INQ_CLOCKING_*). */
    bool qas;                /**< QAS: quick arbitration and selection. */
    bool ius;                /**< IUS: information units. */

    uint8_t version_desc_count; /**< How many VERSION DESCRIPTOR slots (bytes 58-73) were present, 0..8. */
    uint16_t version_desc[8];   /**< VERSION DESCRIPTORs as sent (0 = unused slot). */
} pcam_inquiry;

/**
 * @brief Parse standard INQUIRY data (EVPD = 0).
 *
 * Decodes whatever the response format claims; a response format below 2
 * (SCSI-1/CCS) may carry vendor-specific bytes 5-7, which the caller can
 * ignore by looking at pcam_inquiry::response_format.
 *
 * @param buf the data-in bytes.
 * @param len bytes actually transferred.
 * @param out decoded fields; zeroed first.
 * @return ::PCAM_OK; ::PCAM_ERR_TRUNCATED for fewer than 5 bytes (no
 *         additional length) with the bytes present still decoded;
 *         ::PCAM_ERR_NULL.
 */
pcam_err pcam_inquiry_parse(const uint8_t *buf, size_t len, pcam_inquiry *out);

/**
 * @brief Text for a peripheral device type.
 * @param type device type (only bits 4-0 are used).
 * @return a static string such as "Direct-access block device"; never NULL.
 */
const char *pcam_device_type_name(uint8_t type);

/** @name REPORT LUNS parameter data
 *  @{ */
#define PCAM_REPORT_LUNS_HEADER_LEN 8 /**< Header before the first LUN entry. */
#define PCAM_LUN_LEN 8                /**< Bytes per LUN entry. */
/** @} */

/** ADDRESS METHOD of a LUN's first level (byte 0, bits 7-6). */
typedef enum pcam_lun_method {
    PCAM_LUN_PERIPHERAL = 0,   /**< 00b peripheral device addressing. */
    PCAM_LUN_FLAT = 1,         /**< 01b flat space addressing. */
    PCAM_LUN_LOGICAL_UNIT = 2, /**< 10b logical unit addressing. */
    PCAM_LUN_EXTENDED = 3      /**< 11b extended logical unit addressing. */
} pcam_lun_method;

/** The precise form of a LUN's first level. */
typedef enum pcam_lun_form {
    PCAM_LUNF_PERIPHERAL = 0,    /**< Peripheral: bus identifier + target or LUN. */
    PCAM_LUNF_FLAT,              /**< Flat space: 14-bit LUN. */
    PCAM_LUNF_LOGICAL_UNIT,      /**< Logical unit: target, bus number, 5-bit LUN. */
    PCAM_LUNF_WELL_KNOWN,        /**< Extended, 2 bytes, method 1h: well known LUN. */
    PCAM_LUNF_EXTENDED_FLAT,     /**< Extended, 4 bytes, method 2h: 24-bit LUN. */
    PCAM_LUNF_LONG_EXTENDED_FLAT,/**< Extended, 6 bytes, method 2h: 40-bit LUN. */
    PCAM_LUNF_NOT_SPECIFIED,     /**< Extended, 8 bytes, method Fh: logical unit not specified. */
    PCAM_LUNF_EXTENDED_RESERVED  /**< Any other extended length/method: see pcam_lun_addr::raw. */
} pcam_lun_form;

/** One decoded 8-byte LUN (first level only). */
typedef struct pcam_lun_addr {
    uint8_t raw[8];         /**< The entry exactly as sent. */
    pcam_lun_method method; /**< Address method of the first level. */
    pcam_lun_form form;     /**< Precise form of the first level. */
    uint8_t level_bytes;    /**< Bytes the first level occupies: 2, 4, 6 or 8. */
    uint8_t bus;            /**< Peripheral: BUS IDENTIFIER (6 bits); logical unit: BUS NUMBER (3 bits). */
    uint8_t target;         /**< Peripheral with bus != 0 or logical unit addressing: target. */
    uint8_t ext_length;     /**< Extended: LENGTH field (0..3). */
    uint8_t ext_method;     /**< Extended: EXTENDED ADDRESS METHOD (4 bits). */
    uint64_t ext_value;     /**< Extended: well known LUN, or the 24/40-bit flat LUN. */
    bool has_lun;           /**< pcam_lun_addr::lun is meaningful. */
    uint32_t lun;           /**< LUN at this level: peripheral with bus 0 (8 bits), flat
                                 (14 bits, method bits removed), logical unit (5 bits),
                                 extended flat (24 bits). */
    bool has_next_level;    /**< Some byte after the first level is nonzero. */
} pcam_lun_addr;

/**
 * @brief Read the REPORT LUNS header and count the complete entries present.
 * @param buf the data-in bytes.
 * @param len bytes actually transferred.
 * @param list_bytes receives LUN LIST LENGTH as claimed by the device.
 * @param count_present receives the number of complete 8-byte entries that
 *        are both claimed and inside @p len.
 * @return ::PCAM_OK; ::PCAM_ERR_LENGTH if the list length is not a multiple
 *         of 8; ::PCAM_ERR_TRUNCATED if the list is longer than the buffer
 *         (normal when the allocation length was short: ask again with
 *         @p list_bytes + 8). In both error cases the outputs are still set
 *         and the counted entries are usable. ::PCAM_ERR_TRUNCATED with
 *         outputs zero if @p len < 8; ::PCAM_ERR_NULL.
 */
pcam_err pcam_report_luns_header(const uint8_t *buf, size_t len, uint32_t *list_bytes,
                                 uint32_t *count_present);

/**
 * @brief Decode one entry of a REPORT LUNS list.
 * @param buf the data-in bytes.
 * @param len bytes actually transferred.
 * @param index entry number from 0.
 * @param out decoded entry; zeroed first.
 * @return ::PCAM_OK; ::PCAM_ERR_RANGE if @p index is not below the number
 *         of complete entries the header claims; ::PCAM_ERR_TRUNCATED if
 *         the header or the entry lies beyond @p len; ::PCAM_ERR_NULL.
 */
pcam_err pcam_report_luns_get(const uint8_t *buf, size_t len, uint32_t index, pcam_lun_addr *out);

/**
 * @brief Decode one 8-byte LUN (e.g. from a CCB path or a sense descriptor).
 * @param lun8 the 8 bytes.
 * @param out decoded LUN; zeroed first.
 * @return ::PCAM_OK or ::PCAM_ERR_NULL.
 */
pcam_err pcam_lun_decode(const uint8_t lun8[8], pcam_lun_addr *out);

/**
 * @brief Encode a single-level LUN the way SAM-4 recommends: peripheral
 *        device addressing below 256, flat space below 16384.
 * @param lun LUN value.
 * @param out the 8 bytes (levels 2-4 zero).
 * @return ::PCAM_OK, ::PCAM_ERR_RANGE (lun >= 16384), ::PCAM_ERR_NULL.
 */
int pcam_lun_encode(uint32_t lun, uint8_t out[8]);

/**
 * READ CAPACITY(10) or (16) data. Fields past what the buffer held are
 * zero with their @c have_ flag false.
 */
typedef struct pcam_capacity {
    uint64_t last_lba;        /**< RETURNED LOGICAL BLOCK ADDRESS: the last LBA, not the count. */
    uint32_t block_length;    /**< LOGICAL BLOCK LENGTH IN BYTES. */
    bool use_rc16;            /**< READ CAPACITY(10) returned 0xFFFFFFFF: ask READ CAPACITY(16). */
    bool zero_block_length;   /**< Block length 0: not usable as is; the caller decides (retry, assume 512, or fail). */
    bool have_protection;     /**< READ CAPACITY(16) bytes 12-15 present: the fields below. */
    uint8_t rc_basis;         /**< RC BASIS (SBC-4; byte 12 bits 5-4). */
    uint8_t p_type;           /**< P_TYPE: protection type minus one when pcam_capacity::prot_en. */
    bool prot_en;             /**< PROT_EN: protection information enabled. */
    uint8_t p_i_exponent;     /**< P_I_EXPONENT. */
    uint8_t lbppb_exponent;   /**< LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT. */
    bool lbpme;               /**< LBPME: logical block provisioning management enabled. */
    bool lbprz;               /**< LBPRZ: unmapped blocks read as zero. */
    uint16_t lowest_aligned_lba; /**< LOWEST ALIGNED LOGICAL BLOCK ADDRESS (14 bits). */
} pcam_capacity;

/** Length of READ CAPACITY(10) parameter data. */
#define PCAM_READ_CAPACITY10_LEN 8
/** Length of READ CAPACITY(16) parameter data. */
#define PCAM_READ_CAPACITY16_LEN 32

/**
 * @brief Parse READ CAPACITY(10) data.
 * @param buf the data-in bytes.
 * @param len bytes transferred; 8 are needed.
 * @param out decoded; zeroed first. A block length of 0 is reported with
 *        pcam_capacity::zero_block_length set, not as an error.
 * @return ::PCAM_OK, ::PCAM_ERR_TRUNCATED, ::PCAM_ERR_NULL.
 */
pcam_err pcam_read_capacity10_parse(const uint8_t *buf, size_t len, pcam_capacity *out);

/**
 * @brief Parse READ CAPACITY(16) data.
 * @param buf the data-in bytes.
 * @param len bytes transferred; 12 (LBA and block length) are needed, 16
 *        for the protection/provisioning fields.
 * @param out decoded; zeroed first (see pcam_read_capacity10_parse about
 *        block length 0).
 * @return ::PCAM_OK, ::PCAM_ERR_TRUNCATED, ::PCAM_ERR_NULL.
 */
pcam_err pcam_read_capacity16_parse(const uint8_t *buf, size_t len, pcam_capacity *out);

/**
 * @brief Build READ CAPACITY(10) data (for simulated targets).
 * @param buf output.
 * @param cap size of @p buf, at least 8.
 * @param last_lba last LBA (0xFFFFFFFF tells the initiator to use (16)).
 * @param block_len block length in bytes.
 * @return 8, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_read_capacity10_build(uint8_t *buf, size_t cap, uint32_t last_lba, uint32_t block_len);

/**
 * @brief Build READ CAPACITY(16) data (for simulated targets); bytes 12-31
 *        are zero (no protection, one logical block per physical block).
 * @param buf output.
 * @param cap size of @p buf, at least 32.
 * @param last_lba last LBA.
 * @param block_len block length in bytes.
 * @return 32, ::PCAM_ERR_NOSPACE, ::PCAM_ERR_NULL.
 */
int pcam_read_capacity16_build(uint8_t *buf, size_t cap, uint64_t last_lba, uint32_t block_len);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_INQUIRY_H */
