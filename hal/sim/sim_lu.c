/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logical-unit models for the simulated bus: command decoding, the pending
 * conditions (UNIT ATTENTION, NOT READY, sense), the direct-access disk's
 * command set. The CD-ROM's own commands are in
 * sim_lu_cdrom.c.
 *
 * Sources for codes and layouts: SPC-3 (INQUIRY, VPD 00h/80h/83h, REQUEST
 * SENSE, REPORT LUNS, sense data, ASC/ASCQ list), SBC-2/3 (READ/WRITE/VERIFY,
 * READ CAPACITY, SYNCHRONIZE CACHE, START STOP UNIT). Mode pages are in sim_lu_mode.c,
 * the timing model in sim_lu_timing.c.
 *
 * Everything a command needs is built in small buffers on the stack; nothing
 * is allocated per command. Every CDB field is checked before it is used and
 * every copy is clipped to the allocation length and to the target's buffer.
 */
#include <string.h>

#include "sim_lu.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_sense.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_err.h"
#include "pcam_util.h"

/* SCSI status bytes (SAM). */
#define ST_GOOD 0x00u
#define ST_CHECK 0x02u

/* Operation codes (SPC-3 / SBC-3). */
enum {
    OP_TEST_UNIT_READY = 0x00,
    OP_REQUEST_SENSE = 0x03,
    OP_READ6 = 0x08,
    OP_WRITE6 = 0x0A,
    OP_INQUIRY = 0x12,
    OP_MODE_SELECT6 = 0x15,
    OP_MODE_SENSE6 = 0x1A,
    OP_START_STOP = 0x1B,
    OP_PREVENT_ALLOW = 0x1E,
    OP_READ_CAPACITY10 = 0x25,
    OP_READ10 = 0x28,
    OP_WRITE10 = 0x2A,
    OP_VERIFY10 = 0x2F,
    OP_SYNC_CACHE10 = 0x35,
    OP_READ_TOC = 0x43,
    OP_MODE_SELECT10 = 0x55,
    OP_MODE_SENSE10 = 0x5A,
    OP_READ16 = 0x88,
    OP_WRITE16 = 0x8A,
    OP_VERIFY16 = 0x8F,
    OP_SYNC_CACHE16 = 0x91,
    OP_SERVICE_ACTION_IN16 = 0x9E,
    OP_REPORT_LUNS = 0xA0,
    OP_READ12 = 0xA8,
    OP_WRITE12 = 0xAA,
    OP_VERIFY12 = 0xAF
};
#define SA_READ_CAPACITY16 0x10u

/* INQUIRY byte 7 (SPC-3 / SPI-2). */
#define INQ_WBUS16 0x20u
#define INQ_SYNC 0x10u
#define INQ_CMDQUE 0x02u
#define STD_INQUIRY_LEN 36u

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint32_t room(const pcam_simlu_cmd *cmd)
{
    return cmd->buf != NULL ? cmd->cap : 0;
}

void pcam_simlu_copy_id(char *dst, size_t cap, const char *src)
{
    size_t i = 0;

    if (dst == NULL || cap == 0)
        return;
    if (src != NULL)
        for (; i + 1 < cap && src[i] != '\0'; i++)
            dst[i] = src[i];
    dst[i] = '\0';
}

/* Space-padded ASCII field, as INQUIRY's identification fields are. */
static void put_padded(uint8_t *dst, const char *src, size_t width)
{
    size_t i = 0;

    for (; i < width && src[i] != '\0'; i++)
        dst[i] = (uint8_t)src[i];
    for (; i < width; i++)
        dst[i] = ' ';
}

void pcam_simlu_fail(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint8_t key, uint8_t asc, uint8_t ascq)
{
    if (lu == NULL || cmd == NULL)
        return;
    (void)pcam_sense_build_fixed(lu->sense, sizeof lu->sense, (uint8_t)(key & 0x0Fu), asc, ascq,
                                 false, 0);
    lu->sense_valid = true;
    cmd->status = ST_CHECK;
    cmd->dir = PCAM_DIR_NONE;
    cmd->xfer_len = 0;
}

static void fail_info(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint8_t key, uint8_t asc, uint8_t ascq,
                      uint64_t info)
{
    pcam_simlu_fail(lu, cmd, key, asc, ascq);
    /* The fixed format's INFORMATION holds 32 bits; a larger LBA leaves VALID clear (SPC-3 4.5.3). */
    if (info <= 0xFFFFFFFFu)
        (void)pcam_sense_build_fixed(lu->sense, sizeof lu->sense, key, asc, ascq, true,
                                     (uint32_t)info);
}

static void bad_cdb(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x24, 0x00);
}

void pcam_simlu_data_in(pcam_simlu_cmd *cmd, const uint8_t *data, uint32_t len, uint32_t alloc)
{
    uint32_t n = (uint32_t)min64(min64(len, alloc), room(cmd));

    if (n != 0)
        memcpy(cmd->buf, data, n);
    cmd->xfer_len = n;
    cmd->dir = n != 0 ? PCAM_DIR_IN : PCAM_DIR_NONE;
}

/* ---- set-up and conditions ---- */

void pcam_simlu_default_timing(pcam_simlu_timing *t)
{
    if (t == NULL)
        return;
    /* A mid-1990s 3.5" 7,200 rpm SCSI disk: 0.5 ms controller overhead,
     * 1 ms track-to-track, 16 ms full stroke, 60 s / 7,200 = 8,333,333 ns per
     * revolution, 10 MB/s off the media (100 ns per byte, 51.2 us per
     * 512-byte block), and 64 KiB (128 blocks of 512) of read-ahead. */
    t->overhead_ns = 500000u;
    t->seek_min_ns = 1000000u;
    t->seek_max_ns = 16000000u;
    t->rotation_ns = 8333333u;
    t->media_kbps = 10000u;
    t->cache_blocks = 128u;
}

static void init_common(pcam_simlu *lu, pcam_simlu_kind kind)
{
    memset(lu, 0, sizeof *lu);
    lu->kind = kind;
    lu->version = 5;
    lu->last_end_lba = UINT64_MAX;
    lu->luns_on_target = 1u;
    pcam_simlu_copy_id(lu->revision, sizeof lu->revision, "1.00");
}

void pcam_simlu_init_absent(pcam_simlu *lu)
{
    if (lu == NULL)
        return;
    init_common(lu, PCAM_SIMLU_ABSENT);
    lu->revision[0] = '\0';
}

void pcam_simlu_init_disk(pcam_simlu *lu, uint8_t *store, uint64_t blocks, uint32_t block_size,
                          const char *vendor, const char *product, const char *serial)
{
    if (lu == NULL)
        return;
    init_common(lu, PCAM_SIMLU_DISK);
    lu->store = store;
    lu->blocks = blocks;
    lu->block_size = block_size != 0 ? block_size : 512u;
    pcam_simlu_copy_id(lu->vendor, sizeof lu->vendor, vendor);
    pcam_simlu_copy_id(lu->product, sizeof lu->product, product);
    pcam_simlu_copy_id(lu->serial, sizeof lu->serial, serial);
    lu->cmdque = true;
    pcam_simlu_default_timing(&lu->timing);
    lu->ua_pending = true;
    lu->ua_asc = 0x29;
    lu->ua_ascq = 0x00;
    pcam_simlu_mode_defaults(lu);
}

void pcam_simlu_set_serial(pcam_simlu *lu, const char *serial)
{
    if (lu == NULL)
        return;
    pcam_simlu_copy_id(lu->serial, sizeof lu->serial, serial);
}

void pcam_simlu_unit_attention(pcam_simlu *lu, uint8_t asc, uint8_t ascq)
{
    if (lu == NULL)
        return;
    if (lu->ua_pending && lu->ua_asc == 0x29 && lu->ua_ascq == 0x00 && asc == 0x29)
        return;
    lu->ua_pending = true;
    lu->ua_asc = asc;
    lu->ua_ascq = ascq;
}

void pcam_simlu_not_ready_until(pcam_simlu *lu, uint64_t until_ns)
{
    if (lu != NULL)
        lu->not_ready_until_ns = until_ns;
}

int pcam_simlu_add_medium_error(pcam_simlu *lu, uint64_t lba)
{
    if (lu == NULL)
        return PCAM_ERR_NULL;
    if (lba >= lu->blocks)
        return PCAM_ERR_RANGE;
    if (lu->medium_errors >= PCAM_ARRAY_SIZE(lu->medium_error_lba))
        return PCAM_ERR_NOSPACE;
    lu->medium_error_lba[lu->medium_errors++] = lba;
    return PCAM_OK;
}

/* Why the medium cannot be used now, as a NOT READY ASC/ASCQ; false if ready. */
static bool not_ready(const pcam_simlu *lu, uint64_t now, uint8_t *asc, uint8_t *ascq)
{
    if (lu->store == NULL) {
        *asc = 0x3A; /* MEDIUM NOT PRESENT */
        *ascq = 0x00;
    } else if (now < lu->not_ready_until_ns) {
        *asc = 0x04; /* LOGICAL UNIT IS IN PROCESS OF BECOMING READY */
        *ascq = 0x01;
    } else if (lu->stopped) {
        *asc = 0x04; /* INITIALIZING COMMAND REQUIRED */
        *ascq = 0x02;
    } else {
        return false;
    }
    return true;
}

/* ---- INQUIRY, REQUEST SENSE, REPORT LUNS ---- */

static uint8_t peripheral_byte(const pcam_simlu *lu)
{
    if (lu->kind == PCAM_SIMLU_DISK)
        return PCAM_TYPE_DISK;
    if (lu->kind == PCAM_SIMLU_CDROM)
        return PCAM_TYPE_CDROM;
    return (uint8_t)(PCAM_INQ_QUAL_NO_LUN << 5 | 0x1Fu);
}

static void std_inquiry(const pcam_simlu *lu, uint8_t d[STD_INQUIRY_LEN])
{
    memset(d, 0, STD_INQUIRY_LEN);
    d[0] = peripheral_byte(lu);
    d[1] = lu->kind == PCAM_SIMLU_CDROM ? 0x80 : 0x00; /* RMB */
    d[2] = lu->version;
    d[3] = 0x02; /* response data format 2 */
    d[4] = (uint8_t)(STD_INQUIRY_LEN - 5);
    if (lu->kind == PCAM_SIMLU_DISK || lu->kind == PCAM_SIMLU_CDROM)
        d[7] = (uint8_t)(INQ_SYNC | (lu->kind == PCAM_SIMLU_DISK ? INQ_WBUS16 : 0u) |
                         (lu->cmdque ? INQ_CMDQUE : 0u));
    put_padded(d + 8, lu->vendor, 8);
    put_padded(d + 16, lu->product, 16);
    put_padded(d + 32, lu->revision, 4);
}

static void cmd_inquiry(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    uint8_t d[64];
    uint32_t alloc = pcam_get_be16(c + 3);
    size_t n;

    if (c[1] & 0x02) { /* CmdDt: obsolete, not supported */
        bad_cdb(lu, cmd);
        return;
    }
    if (!(c[1] & 0x01)) {
        if (c[2] != 0) {
            bad_cdb(lu, cmd);
            return;
        }
        std_inquiry(lu, d);
        pcam_simlu_data_in(cmd, d, STD_INQUIRY_LEN, alloc);
        return;
    }
    memset(d, 0, sizeof d);
    d[0] = peripheral_byte(lu);
    d[1] = c[2];
    switch (c[2]) {
    case 0x00: /* supported pages */
        d[3] = 3;
        d[4] = 0x00;
        d[5] = 0x80;
        d[6] = 0x83;
        break;
    case 0x80: /* unit serial number */
        n = strlen(lu->serial);
        d[3] = (uint8_t)n;
        memcpy(d + 4, lu->serial, n);
        break;
    case 0x83: /* device identification: one T10 vendor ID designator, vendor + serial */
        n = strlen(lu->serial);
        d[4] = 0x02;              /* code set ASCII */
        d[5] = 0x01;              /* association LU, type T10 vendor ID */
        d[7] = (uint8_t)(8 + n);
        put_padded(d + 8, lu->vendor, 8);
        memcpy(d + 16, lu->serial, n);
        d[3] = (uint8_t)(4 + 8 + n);
        break;
    default:
        bad_cdb(lu, cmd);
        return;
    }
    pcam_simlu_data_in(cmd, d, (uint32_t)d[3] + 4u, alloc);
}

static void cmd_request_sense(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint64_t now)
{
    uint8_t s[PCAM_SENSE_FIXED_LEN];
    uint8_t asc, ascq;

    if (cmd->cdb[1] & 0x01) { /* DESC: only the fixed format is implemented */
        bad_cdb(lu, cmd);
        return;
    }
    if (lu->sense_valid) {
        memcpy(s, lu->sense, sizeof s);
    } else if (lu->kind != PCAM_SIMLU_DISK && lu->kind != PCAM_SIMLU_CDROM) {
        (void)pcam_sense_build_fixed(s, sizeof s, PCAM_SK_ILLEGAL_REQUEST, 0x25, 0x00, false, 0);
    } else if (lu->ua_pending) {
        /* SPC-3 5.9.7: REQUEST SENSE reports the unit attention and clears it. */
        (void)pcam_sense_build_fixed(s, sizeof s, PCAM_SK_UNIT_ATTENTION, lu->ua_asc,
                                     lu->ua_ascq, false, 0);
        lu->ua_pending = false;
    } else if (not_ready(lu, now, &asc, &ascq)) {
        (void)pcam_sense_build_fixed(s, sizeof s, PCAM_SK_NOT_READY, asc, ascq, false, 0);
    } else {
        (void)pcam_sense_build_fixed(s, sizeof s, PCAM_SK_NO_SENSE, 0, 0, false, 0);
    }
    lu->sense_valid = false;
    pcam_simlu_data_in(cmd, s, sizeof s, cmd->cdb[4]);
}

static void cmd_report_luns(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    uint8_t d[8 + 32 * 8];
    uint32_t alloc = pcam_get_be32(c + 6);
    uint32_t n = 0;
    unsigned lun;

    /* SELECT REPORT 0 and 2 list the LUs; 1 (well-known LUs only) lists none.
     * SPC-3 6.21 requires an allocation length of at least 16. */
    if (c[2] > 2 || alloc < 16) {
        bad_cdb(lu, cmd);
        return;
    }
    memset(d, 0, sizeof d);
    if (c[2] != 1)
        for (lun = 0; lun < 32; lun++)
            if (lu->luns_on_target & (1u << lun))
                (void)pcam_lun_encode(lun, d + 8 + 8 * n++);
    pcam_put_be32(d, n * 8);
    pcam_simlu_data_in(cmd, d, 8 + n * 8, alloc);
}

/* ---- READ CAPACITY, READ, WRITE, VERIFY, SYNCHRONIZE CACHE ---- */

static void cmd_read_capacity(pcam_simlu *lu, pcam_simlu_cmd *cmd, bool sixteen)
{
    const uint8_t *c = cmd->cdb;
    uint8_t d[PCAM_READ_CAPACITY16_LEN];
    uint64_t last = lu->blocks != 0 ? lu->blocks - 1 : 0;
    uint64_t lba;
    bool pmi;

    if (sixteen) {
        if ((c[1] & 0x1Fu) != SA_READ_CAPACITY16) {
            bad_cdb(lu, cmd);
            return;
        }
        lba = pcam_get_be64(c + 2);
        pmi = c[14] & 0x01;
    } else {
        lba = pcam_get_be32(c + 2);
        pmi = c[8] & 0x01;
    }
    /* SBC-3: the LBA field must be zero unless PMI is set. */
    if (!pmi && lba != 0) {
        bad_cdb(lu, cmd);
        return;
    }
    if (sixteen) {
        (void)pcam_read_capacity16_build(d, sizeof d, last, lu->block_size);
        pcam_simlu_data_in(cmd, d, PCAM_READ_CAPACITY16_LEN, pcam_get_be32(c + 10));
    } else {
        (void)pcam_read_capacity10_build(d, sizeof d, (uint32_t)min64(last, 0xFFFFFFFFu),
                                         lu->block_size);
        pcam_simlu_data_in(cmd, d, PCAM_READ_CAPACITY10_LEN, PCAM_READ_CAPACITY10_LEN);
    }
}

/* LBA range check shared by every block command: SBC-3 21/00 when the LBA
 * is past the last one or the blocks run past the end. */
static bool lba_ok(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint64_t lba, uint64_t n)
{
    if (lba >= lu->blocks || n > lu->blocks - lba) {
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x21, 0x00);
        return false;
    }
    return true;
}

static bool medium_error_in(const pcam_simlu *lu, uint64_t lba, uint32_t n, uint64_t *bad)
{
    bool found = false;
    unsigned i;

    *bad = 0;
    for (i = 0; i < lu->medium_errors && i < PCAM_ARRAY_SIZE(lu->medium_error_lba); i++) {
        uint64_t e = lu->medium_error_lba[i];
        if (e >= lba && e - lba < n && (!found || e < *bad)) {
            *bad = e;
            found = true;
        }
    }
    return found;
}

/* READ, WRITE and VERIFY: field layout per CDB size (SBC-3 5.x). */
static void cmd_block_io(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    uint8_t op = c[0];
    bool write = op == OP_WRITE6 || op == OP_WRITE10 || op == OP_WRITE12 || op == OP_WRITE16;
    bool verify = op == OP_VERIFY10 || op == OP_VERIFY12 || op == OP_VERIFY16;
    uint8_t flags = 0, bytchk = 0;
    uint64_t lba, bytes, bad;
    uint32_t n;

    switch (cmd->cdb_len) {
    case 6:
        lba = ((uint32_t)(c[1] & 0x1Fu) << 16) | pcam_get_be16(c + 2);
        n = c[4] != 0 ? c[4] : 256u;
        break;
    case 10:
        lba = pcam_get_be32(c + 2);
        n = pcam_get_be16(c + 7);
        flags = c[1];
        break;
    case 12:
        lba = pcam_get_be32(c + 2);
        n = pcam_get_be32(c + 6);
        flags = c[1];
        break;
    default:
        lba = pcam_get_be64(c + 2);
        n = pcam_get_be32(c + 10);
        flags = c[1];
        break;
    }
    /* SCSI-2 devices carry the LUN in byte 1 bits 7-5; later ones put
     * RD/WR/VRPROTECT there, which this model does not support. Bit 0 is
     * SCSI-2's RelAdr (linked commands), not supported either. */
    if (lu->version <= 2)
        flags &= 0x1Fu;
    if (verify) {
        bytchk = (uint8_t)((flags >> 1) & 0x03u);
        if ((flags & 0xE1u) != 0 || bytchk > 1) {
            bad_cdb(lu, cmd);
            return;
        }
    } else if ((flags & 0xE1u) != 0) {
        bad_cdb(lu, cmd);
        return;
    }
    if (!lba_ok(lu, cmd, lba, n))
        return;
    bytes = (uint64_t)n * lu->block_size;
    if (verify && bytchk == 0)
        bytes = 0;
    if (bytes > room(cmd)) { /* more than the target can hold: refuse rather than move part of it */
        bad_cdb(lu, cmd);
        return;
    }
    cmd->lba = lba;
    cmd->blocks = n;
    if (n == 0)
        return; /* SBC: a transfer length of zero is not an error */
    cmd->media = true;
    if (!write && medium_error_in(lu, lba, n, &bad)) {
        cmd->blocks = (uint32_t)(bad - lba + 1);
        fail_info(lu, cmd, PCAM_SK_MEDIUM_ERROR, 0x11, 0x00, bad);
        return;
    }
    cmd->xfer_len = (uint32_t)bytes;
    if (write || verify) {
        cmd->dir = bytes != 0 ? PCAM_DIR_OUT : PCAM_DIR_NONE;
    } else {
        memcpy(cmd->buf, lu->store + (size_t)lba * lu->block_size, (size_t)bytes);
        cmd->dir = PCAM_DIR_IN;
    }
}

static void cmd_sync_cache(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    uint64_t lba;
    uint32_t n;

    if (c[0] == OP_SYNC_CACHE10) {
        lba = pcam_get_be32(c + 2);
        n = pcam_get_be16(c + 7);
    } else {
        lba = pcam_get_be64(c + 2);
        n = pcam_get_be32(c + 10);
    }
    /* A count of zero means "to the end of the medium". */
    (void)lba_ok(lu, cmd, lba, n);
}

/* ---- START STOP UNIT ---- */

static void cmd_start_stop(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    uint8_t b4 = cmd->cdb[4];
    unsigned pcond = b4 >> 4;

    /* SBC-3: with a POWER CONDITION the START and LOEJ bits are ignored;
     * the power states are accepted and not modelled. */
    if (pcond != 0) {
        if (pcond != 1 && pcond != 2 && pcond != 3 && pcond != 7 && pcond != 0xA && pcond != 0xB)
            bad_cdb(lu, cmd);
        return;
    }
    lu->stopped = !(b4 & 0x01);
}

/* ---- dispatch ---- */

enum { OPF_KNOWN = 1, OPF_READY = 2 };

static unsigned op_flags(const pcam_simlu *lu, uint8_t op)
{
    bool cd = lu->kind == PCAM_SIMLU_CDROM;

    switch (op) {
    case OP_REQUEST_SENSE:
    case OP_INQUIRY:
    case OP_REPORT_LUNS:
    case OP_START_STOP:
        return OPF_KNOWN;
    case OP_TEST_UNIT_READY:
    case OP_READ6:
    case OP_READ10:
    case OP_READ12:
    case OP_READ_CAPACITY10:
    case OP_WRITE6:
    case OP_WRITE10:
    case OP_WRITE12:
    case OP_WRITE16:
        return OPF_KNOWN | OPF_READY;
    case OP_READ16:
    case OP_SERVICE_ACTION_IN16:
    case OP_VERIFY10:
    case OP_VERIFY12:
    case OP_VERIFY16:
    case OP_SYNC_CACHE10:
    case OP_SYNC_CACHE16:
        return cd ? 0u : (unsigned)(OPF_KNOWN | OPF_READY);
    case OP_MODE_SENSE6:
    case OP_MODE_SENSE10:
    case OP_MODE_SELECT6:
    case OP_MODE_SELECT10:
        return cd ? 0u : (unsigned)OPF_KNOWN;
    case OP_PREVENT_ALLOW:
        return cd ? (unsigned)OPF_KNOWN : 0u;
    case OP_READ_TOC:
        return cd ? (unsigned)(OPF_KNOWN | OPF_READY) : 0u;
    default:
        return 0;
    }
}

/* An absent LU answers INQUIRY and REQUEST SENSE, and nothing else (SPC-3 6.4.2). */
static void absent_command(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint64_t now)
{
    const uint8_t *c = cmd->cdb;

    if (cmd->cdb_len == 6 && (c[5] & 0x05) == 0) {
        if (c[0] == OP_INQUIRY && (c[1] & 0x03) == 0 && c[2] == 0) {
            cmd_inquiry(lu, cmd);
            return;
        }
        if (c[0] == OP_REQUEST_SENSE && !(c[1] & 0x01)) {
            cmd_request_sense(lu, cmd, now);
            return;
        }
    }
    pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x25, 0x00);
}

int pcam_simlu_prepare(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint64_t now)
{
    uint8_t op, asc, ascq;
    unsigned flags;
    int need;

    if (lu == NULL || cmd == NULL)
        return PCAM_ERR_NULL;
    cmd->dir = PCAM_DIR_NONE;
    cmd->xfer_len = 0;
    cmd->status = ST_GOOD;
    cmd->media = false;
    cmd->lba = 0;
    cmd->blocks = 0;
    if (cmd->cdb == NULL || cmd->cdb_len == 0) {
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x20, 0x00);
        return PCAM_OK;
    }
    if (lu->kind != PCAM_SIMLU_DISK && lu->kind != PCAM_SIMLU_CDROM) {
        absent_command(lu, cmd, now);
        return PCAM_OK;
    }
    op = cmd->cdb[0];
    /* SPC-3 5.9.7: INQUIRY, REPORT LUNS and REQUEST SENSE do not report a UA. */
    if (lu->ua_pending && op != OP_INQUIRY && op != OP_REPORT_LUNS && op != OP_REQUEST_SENSE) {
        lu->ua_pending = false;
        pcam_simlu_fail(lu, cmd, PCAM_SK_UNIT_ATTENTION, lu->ua_asc, lu->ua_ascq);
        return PCAM_OK;
    }
    flags = op_flags(lu, op);
    if (!(flags & OPF_KNOWN)) {
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x20, 0x00);
        return PCAM_OK;
    }
    /* The length must match the group; the control byte's NACA and LINK
     * bits ask for ACA and linked commands, which are not supported. */
    need = pcam_cdb_len_for_opcode(op);
    if (need == 0 || cmd->cdb_len != (unsigned)need || (cmd->cdb[need - 1] & 0x05) != 0) {
        bad_cdb(lu, cmd);
        return PCAM_OK;
    }
    if ((flags & OPF_READY) && not_ready(lu, now, &asc, &ascq)) {
        pcam_simlu_fail(lu, cmd, PCAM_SK_NOT_READY, asc, ascq);
        return PCAM_OK;
    }
    if (lu->kind == PCAM_SIMLU_CDROM && pcam_simlu_cdrom_command(lu, cmd))
        return PCAM_OK;
    switch (op) {
    case OP_TEST_UNIT_READY:
        break;
    case OP_REQUEST_SENSE:
        cmd_request_sense(lu, cmd, now);
        break;
    case OP_INQUIRY:
        cmd_inquiry(lu, cmd);
        break;
    case OP_REPORT_LUNS:
        cmd_report_luns(lu, cmd);
        break;
    case OP_READ_CAPACITY10:
    case OP_SERVICE_ACTION_IN16:
        cmd_read_capacity(lu, cmd, op == OP_SERVICE_ACTION_IN16);
        break;
    case OP_SYNC_CACHE10:
    case OP_SYNC_CACHE16:
        cmd_sync_cache(lu, cmd);
        break;
    case OP_MODE_SENSE6:
    case OP_MODE_SENSE10:
        pcam_simlu_mode_sense(lu, cmd);
        break;
    case OP_MODE_SELECT6:
    case OP_MODE_SELECT10:
        pcam_simlu_mode_select(lu, cmd);
        break;
    case OP_START_STOP:
        cmd_start_stop(lu, cmd);
        break;
    default: /* READ, WRITE, VERIFY */
        cmd_block_io(lu, cmd);
        break;
    }
    return PCAM_OK;
}

int pcam_simlu_finish_out(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    uint8_t op;
    uint64_t bytes;
    size_t off;

    if (lu == NULL || cmd == NULL)
        return PCAM_ERR_NULL;
    if (cmd->status != ST_GOOD || cmd->dir != PCAM_DIR_OUT)
        return PCAM_OK;
    /* The command may have been altered since prepare: check it again
     * before touching the media. */
    if (cmd->cdb == NULL || cmd->cdb_len == 0 || cmd->xfer_len > room(cmd))
        return PCAM_ERR_RANGE;
    op = cmd->cdb[0];
    if (op == OP_MODE_SELECT6 || op == OP_MODE_SELECT10) {
        pcam_simlu_mode_select_data(lu, cmd);
        return PCAM_OK;
    }
    bytes = (uint64_t)cmd->blocks * lu->block_size;
    if (lu->kind != PCAM_SIMLU_DISK || lu->store == NULL || cmd->lba >= lu->blocks ||
        cmd->blocks > lu->blocks - cmd->lba || bytes != cmd->xfer_len)
        return PCAM_ERR_RANGE;
    off = (size_t)cmd->lba * lu->block_size;
    if (op == OP_VERIFY10 || op == OP_VERIFY12 || op == OP_VERIFY16) {
        if (memcmp(lu->store + off, cmd->buf, (size_t)bytes) != 0)
            pcam_simlu_fail(lu, cmd, PCAM_SK_MISCOMPARE, 0x1D, 0x00);
        return PCAM_OK;
    }
    if (op != OP_WRITE6 && op != OP_WRITE10 && op != OP_WRITE12 && op != OP_WRITE16)
        return PCAM_ERR_RANGE;
    memcpy(lu->store + off, cmd->buf, (size_t)bytes);
    return PCAM_OK;
}
