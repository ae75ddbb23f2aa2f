/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_cdb.h
 * @brief SCSI command descriptor blocks: length rules, builders, a decoder
 *        and a one-line formatter.
 *
 * The length of a CDB is fixed by the group code in the top three bits of its
 * operation code (SAM/SPC): group 0 is 6 bytes, groups 1 and 2 are 10, group 4
 * is 16 and group 5 is 12. Group 3 holds the variable-length form (opcode
 * 0x7F), whose length is 8 plus its ADDITIONAL CDB LENGTH byte. Groups 6 and
 * 7 are vendor specific, so their length cannot be known from the opcode.
 *
 * The builders write a complete CDB (control byte zero) and return its
 * length; the decoder tells what a CDB asks for (name, LBA, transfer length,
 * data direction), which a transport needs to set up the data phase and a
 * trace needs to be readable.
 *
 * Where SPC and MMC give one opcode two meanings (0x42 UNMAP / READ
 * SUB-CHANNEL, 0xA1 ATA PASS-THROUGH(12) / BLANK, 0xA3 MAINTENANCE IN / SEND
 * KEY, 0xA4 MAINTENANCE OUT / REPORT KEY, 0xA2 SECURITY PROTOCOL IN / SEND
 * EVENT) the decoder reports the SPC/SBC meaning, because it has no device
 * type to tell them apart.
 */
#ifndef PCAM_CDB_H
#define PCAM_CDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_err.h"
#include "pcam/pcam_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest fixed-length CDB (group 4, 16 bytes). */
#define PCAM_CDB_MAX 16
/** Largest variable-length (0x7F) CDB: 8 + the largest ADDITIONAL CDB LENGTH that is a multiple of 4 (252). */
#define PCAM_CDB_VARLEN_MAX 260
/** Opcode of the variable-length CDB form. */
#define PCAM_CDB_VARLEN_OPCODE 0x7F

/** Byte 1 bit of READ/WRITE(10/12/16): force unit access (bypass the write cache / re-read the medium). */
#define PCAM_CDB_FUA 0x08
/** Byte 1 bit of READ/WRITE/VERIFY(10/12/16): disable page out (do not keep the data in the cache). */
#define PCAM_CDB_DPO 0x10

/**
 * @brief CDB length implied by an operation code's group.
 * @param opcode byte 0 of the CDB.
 * @return 6, 10, 12 or 16; 0 when the group does not fix the length (group 3,
 *         the variable-length and reserved opcodes, and vendor groups 6 and 7).
 */
int pcam_cdb_len_for_opcode(uint8_t opcode);

/**
 * @brief Check that a CDB's length matches its opcode.
 *
 * Variable-length CDBs (0x7F) must be at least 8 bytes, carry an ADDITIONAL
 * CDB LENGTH that is a nonzero multiple of 4 (there is always a service
 * action), and be exactly 8 + that many bytes. Vendor groups 6 and 7 accept
 * any length from 6 to 16.
 *
 * @param cdb the CDB bytes.
 * @param len number of bytes in @p cdb.
 * @return PCAM_OK; PCAM_ERR_NULL if @p cdb is NULL; PCAM_ERR_LENGTH if @p len
 *         is 0 or does not match the opcode; PCAM_ERR_RESERVED for the
 *         reserved group 3 opcodes 0x60..0x7D; PCAM_ERR_UNSUPPORTED for 0x7E
 *         (extended CDB), whose length this codec does not work out.
 */
pcam_err pcam_cdb_check(const uint8_t *cdb, size_t len);

/**
 * @name Builders
 * Each builder writes one CDB at @p cdb (the whole CDB, reserved bytes and the
 * control byte zeroed) and returns its length. On any error nothing is
 * written. Errors are checked in the order NULL, value (RANGE/RESERVED), then
 * room (NOSPACE).
 * @{
 */

/**
 * @brief TEST UNIT READY (0x00).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @return 6, or a negative ::pcam_err (NULL, NOSPACE).
 */
int pcam_cdb_test_unit_ready(uint8_t *cdb, size_t cap);

/**
 * @brief INQUIRY (0x12), standard data or a vital product data page.
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param evpd true to ask for the VPD page @p page.
 * @param page VPD page code; must be 0 when @p evpd is false (SPC).
 * @param alloc_len allocation length (bytes 3-4).
 * @return 6, or a negative ::pcam_err (NULL; RANGE for a page without EVPD; NOSPACE).
 */
int pcam_cdb_inquiry(uint8_t *cdb, size_t cap, bool evpd, uint8_t page, uint16_t alloc_len);

/**
 * @brief REQUEST SENSE (0x03).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param alloc_len allocation length (byte 4).
 * @param desc true to ask for descriptor-format sense data.
 * @return 6, or a negative ::pcam_err (NULL, NOSPACE).
 */
int pcam_cdb_request_sense(uint8_t *cdb, size_t cap, uint8_t alloc_len, bool desc);

/**
 * @brief REPORT LUNS (0xA0).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param select_report SELECT REPORT code (0 = all logical units with a
 *        peripheral device; SPC lists the others).
 * @param alloc_len allocation length (bytes 6-9). SPC lets a device reject
 *        values below 16; the builder does not second-guess it.
 * @return 12, or a negative ::pcam_err (NULL, NOSPACE).
 */
int pcam_cdb_report_luns(uint8_t *cdb, size_t cap, uint8_t select_report, uint32_t alloc_len);

/**
 * @brief READ CAPACITY(10) (0x25); the device returns 8 bytes.
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @return 10, or a negative ::pcam_err (NULL, NOSPACE).
 */
int pcam_cdb_read_capacity10(uint8_t *cdb, size_t cap);

/**
 * @brief READ CAPACITY(16) (SERVICE ACTION IN(16) 0x9E, service action 0x10).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param alloc_len allocation length (bytes 10-13); 32 covers the SBC-3 data.
 * @return 16, or a negative ::pcam_err (NULL, NOSPACE).
 */
int pcam_cdb_read_capacity16(uint8_t *cdb, size_t cap, uint32_t alloc_len);

/**
 * @brief READ(6/10/12/16) (0x08, 0x28, 0xA8, 0x88).
 *
 * With @p cdb_size 0 the smallest form that can carry the values is used:
 * 6 (only when @p flags is 0), then 10, then 12, then 16. Devices older than
 * SBC may lack READ(12), and SBC-3 made READ(6) obsolete; pass an explicit
 * size when the device's command set is known.
 *
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param cdb_size 6, 10, 12, 16, or 0 for the smallest that fits.
 * @param lba first logical block; at most 0x1FFFFF for 6 and 0xFFFFFFFF for 10 and 12.
 * @param blocks number of blocks; 1..256 for 6 (where 256 is sent as 0),
 *        at most 0xFFFF for 10.
 * @param flags byte 1 for 10/12/16, copied as given (::PCAM_CDB_FUA,
 *        ::PCAM_CDB_DPO, RDPROTECT ...); must be 0 for 6, which has no such byte.
 * @return the CDB length, or a negative ::pcam_err (NULL; RANGE for a bad
 *         size or a value the form cannot carry; NOSPACE).
 */
int pcam_cdb_read(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                  uint8_t flags);

/**
 * @brief WRITE(6/10/12/16) (0x0A, 0x2A, 0xAA, 0x8A); arguments as pcam_cdb_read().
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param cdb_size 6, 10, 12, 16, or 0 for the smallest that fits.
 * @param lba first logical block.
 * @param blocks number of blocks (1..256 for 6).
 * @param flags byte 1 for 10/12/16 (WRPROTECT, DPO, FUA); must be 0 for 6.
 * @return the CDB length, or a negative ::pcam_err (NULL, RANGE, NOSPACE).
 */
int pcam_cdb_write(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                   uint8_t flags);

/**
 * @brief MODE SENSE(6) (0x1A) or MODE SENSE(10) (0x5A).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param cdb_size 6 or 10 (the two return different header layouts, so the
 *        caller must choose).
 * @param dbd true to ask for no block descriptors.
 * @param pc page control: 0 current, 1 changeable, 2 default, 3 saved.
 * @param page page code, 0..0x3F (0x3F = all pages).
 * @param subpage subpage code (0xFF = all subpages).
 * @param alloc_len allocation length; at most 255 for 6.
 * @return the CDB length, or a negative ::pcam_err (NULL, RANGE, NOSPACE).
 */
int pcam_cdb_mode_sense(uint8_t *cdb, size_t cap, unsigned cdb_size, bool dbd, uint8_t pc,
                        uint8_t page, uint8_t subpage, uint16_t alloc_len);

/**
 * @brief MODE SELECT(6) (0x15) or MODE SELECT(10) (0x55).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param cdb_size 6 or 10.
 * @param pf page format: the pages follow the SPC format.
 * @param sp save pages: make the change persistent.
 * @param param_len parameter list length; at most 255 for 6.
 * @return the CDB length, or a negative ::pcam_err (NULL, RANGE, NOSPACE).
 */
int pcam_cdb_mode_select(uint8_t *cdb, size_t cap, unsigned cdb_size, bool pf, bool sp,
                         uint16_t param_len);

/**
 * @brief START STOP UNIT (0x1B).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param immed true to get status before the operation completes.
 * @param power_condition POWER CONDITION field, 0..15 (0 = use START/LOEJ;
 *        when nonzero SBC says the device ignores START and LOEJ).
 * @param loej load (with @p start) or eject (without) the medium.
 * @param start spin up (true) or stop (false).
 * @return 6, or a negative ::pcam_err (NULL, RANGE, NOSPACE).
 */
int pcam_cdb_start_stop_unit(uint8_t *cdb, size_t cap, bool immed, uint8_t power_condition,
                             bool loej, bool start);

/**
 * @brief SYNCHRONIZE CACHE(10) (0x35) or (16) (0x91).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param cdb_size 10, 16, or 0 for the smallest that fits.
 * @param lba first logical block to flush.
 * @param blocks number of blocks; 0 means from @p lba to the end of the medium.
 *        At most 0xFFFF for 10.
 * @param immed true to get status before the flush completes.
 * @return the CDB length, or a negative ::pcam_err (NULL, RANGE, NOSPACE).
 */
int pcam_cdb_synchronize_cache(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba,
                               uint32_t blocks, bool immed);

/**
 * @brief VERIFY(10/12/16) (0x2F, 0xAF, 0x8F).
 * @param cdb output buffer.
 * @param cap size of @p cdb in bytes.
 * @param cdb_size 10, 12, 16, or 0 for the smallest that fits.
 * @param lba first logical block.
 * @param blocks verification length in blocks; at most 0xFFFF for 10.
 * @param bytchk BYTCHK (SBC-3): 0 = medium check only, no data; 1 = compare
 *        with @p blocks blocks of data-out; 3 = compare every block with one
 *        block of data-out. 2 is reserved.
 * @return the CDB length, or a negative ::pcam_err (NULL; RANGE; RESERVED for
 *         @p bytchk 2; NOSPACE).
 */
int pcam_cdb_verify(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                    uint8_t bytchk);

/** @} */

/** What a CDB asks for, as worked out by pcam_cdb_decode(). */
typedef struct pcam_cdb_info {
    /** Operation code (byte 0). */
    uint8_t opcode;
    /** True when the command carries a service action (byte 1 bits 4-0, or bytes 8-9 of a 0x7F CDB). */
    bool has_service_action;
    /** The service action, when pcam_cdb_info::has_service_action. */
    uint16_t service_action;
    /**
     * Command name, e.g. "READ(10)", "REPORT SUPPORTED OPERATION CODES";
     * the generic opcode name (e.g. "MAINTENANCE IN") when the service action
     * is not known; "unknown" for an unknown opcode; "invalid" after an error;
     * "CDB" for every known opcode when #PCAM_CFG_CDB_NAMES is 0.
     * Never NULL; points to static storage.
     */
    const char *name;
    /** Length of the CDB in bytes (0 after an error). */
    uint16_t cdb_len;
    /** True when the command addresses a logical block. */
    bool has_lba;
    /** Logical block address, when pcam_cdb_info::has_lba. */
    uint64_t lba;
    /** True when the command carries a count of logical blocks. */
    bool has_blocks;
    /**
     * Number of logical blocks, when pcam_cdb_info::has_blocks. A 0 in READ(6)/WRITE(6)
     * is reported as 256, as SBC defines it.
     */
    uint32_t blocks;
    /**
     * True when pcam_cdb_info::xfer_bytes is known: block commands when a block size was
     * given (or the count is 0), commands with an allocation or parameter
     * list length, and commands without data.
     */
    bool xfer_known;
    /**
     * Expected data-phase length in bytes, when pcam_cdb_info::xfer_known. For commands
     * with an allocation length it is the most the device may return.
     */
    uint64_t xfer_bytes;
    /** Direction of the data phase; ::PCAM_DIR_NONE when the length is known to be 0. */
    pcam_dir dir;
    /** FUA bit of READ/WRITE(10/12/16/32) and COMPARE AND WRITE. */
    bool fua;
    /** DPO bit of READ/WRITE/VERIFY/WRITE AND VERIFY. */
    bool dpo;
    /** IMMED bit of START STOP UNIT, SYNCHRONIZE CACHE, PRE-FETCH and a few MMC commands. */
    bool immed;
} pcam_cdb_info;

/**
 * @brief Decode a CDB.
 *
 * The length is checked first (see pcam_cdb_check()). An opcode this codec
 * does not know, with a valid length, decodes successfully with name
 * "unknown", ::PCAM_DIR_UNKNOWN and pcam_cdb_info::xfer_known false.
 *
 * @param cdb the CDB bytes.
 * @param len number of bytes in @p cdb.
 * @param block_size logical block size in bytes, used to turn block counts
 *        into pcam_cdb_info::xfer_bytes; 0 if not known.
 * @param out filled in on success; on error zeroed, with name "invalid",
 *        ::PCAM_DIR_UNKNOWN, and the opcode when @p len > 0.
 * @return PCAM_OK, or the error of pcam_cdb_check(), or PCAM_ERR_NULL if
 *         @p out is NULL.
 */
pcam_err pcam_cdb_decode(const uint8_t *cdb, size_t len, uint32_t block_size, pcam_cdb_info *out);

/**
 * @brief Describe a CDB in one line.
 *
 * A valid CDB gives e.g. "READ(10) lba=4660 blocks=8 bytes=4096 dir=in fua"
 * (fields appear when known; "opcode=0xNN len=N" for an unknown opcode;
 * "sa=0xNN" when the service action has no name here). A CDB that fails
 * pcam_cdb_check() gives the reason, e.g. "invalid CDB: length does not match
 * the format (opcode 0x28 needs 10 bytes, got 6)".
 *
 * @param cdb the CDB bytes.
 * @param len number of bytes in @p cdb.
 * @param block_size logical block size for the "bytes=" field; 0 if not known.
 * @param buf output text, always NUL-terminated when @p cap > 0.
 * @param cap size of @p buf in bytes.
 * @return characters written (without the NUL), for a valid or an invalid
 *         CDB alike; PCAM_ERR_NOSPACE if the line was cut (@p buf then holds
 *         the prefix that fits); PCAM_ERR_NULL if @p buf is NULL.
 */
int pcam_cdb_format(const uint8_t *cdb, size_t len, uint32_t block_size, char *buf, size_t cap);

/**
 * @brief Name of a data direction.
 * @param d a direction.
 * @return "none", "in", "out" or "unknown" (also for values outside ::pcam_dir).
 */
const char *pcam_dir_name(pcam_dir d);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_CDB_H */
