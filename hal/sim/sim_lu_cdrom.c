/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CD-ROM-like logical unit: what differs from the disk. 2048-byte
 * blocks, removable (RMB), read-only, one data track. Commands it shares
 * with the disk (INQUIRY, REQUEST SENSE, TEST UNIT READY, READ(6/10/12),
 * READ CAPACITY(10), REPORT LUNS) run in sim_lu.c; the ones here are
 * START STOP UNIT with LOEJ (eject and load), PREVENT ALLOW MEDIUM REMOVAL,
 * READ TOC/PMA/ATIP formats 0 and 1, and writes (refused).
 *
 * Layouts: MMC-2 / SFF-8020i (READ TOC, MSF addresses with the 150-frame
 * (2 s) pre-gap before LBA 0), SPC-3 (PREVENT ALLOW MEDIUM REMOVAL), SBC-3
 * (START STOP UNIT). ASC/ASCQ from the SPC-3 list: 27/00 WRITE PROTECTED,
 * 28/00 NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED, 3A/00 MEDIUM NOT
 * PRESENT, 53/02 MEDIUM REMOVAL PREVENTED.
 */
#include <string.h>

#include "sim_lu.h"
#include "pcam/pcam_sense.h"
#include "pcam_util.h"

#define CD_BLOCK 2048u
#define CD_PREGAP_FRAMES 150u
#define CD_LEADOUT 0xAAu
#define CD_CONTROL_DATA 0x14u /* ADR 1 (current position), CONTROL 4 (data track) */

void pcam_simlu_cdrom_timing(pcam_simlu_timing *t)
{
    if (t == NULL)
        return;
    /* A 1995 quad-speed drive: 1 ms command overhead, 20 ms for a short
     * seek, 250 ms across the disc, about 1,600 rpm at 4x CLV (37.5 ms per
     * revolution), 600 KB/s (4 x 150 KB/s) off the disc, and a 128 KiB
     * (64-block) read-ahead buffer. */
    t->overhead_ns = 1000000u;
    t->seek_min_ns = 20000000u;
    t->seek_max_ns = 250000000u;
    t->rotation_ns = 37500000u;
    t->media_kbps = 600u;
    t->cache_blocks = 64u;
}

void pcam_simlu_init_cdrom(pcam_simlu *lu, uint8_t *store, uint64_t blocks, const char *vendor,
                           const char *product)
{
    if (lu == NULL)
        return;
    pcam_simlu_init_disk(lu, store, blocks, CD_BLOCK, vendor, product, NULL);
    lu->kind = PCAM_SIMLU_CDROM;
    /* CD-ROM drives of the period did not queue commands. */
    lu->cmdque = false;
    pcam_simlu_cdrom_timing(&lu->timing);
    memset(lu->mode_caching, 0, sizeof lu->mode_caching);
    memset(lu->mode_disconnect, 0, sizeof lu->mode_disconnect);
}

void pcam_simlu_cdrom_load(pcam_simlu *lu, uint8_t *store, uint64_t blocks)
{
    if (lu == NULL || lu->kind != PCAM_SIMLU_CDROM)
        return;
    lu->ejected_store = NULL;
    lu->store = store;
    if (store == NULL)
        return;
    lu->blocks = blocks;
    lu->stopped = false;
    lu->head_lba = 0;
    lu->last_end_lba = UINT64_MAX;
    pcam_simlu_unit_attention(lu, 0x28, 0x00);
}

static void start_stop(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    uint8_t b4 = cmd->cdb[4];
    bool start = b4 & 0x01, loej = b4 & 0x02;

    if ((b4 >> 4) != 0) /* power conditions: accepted, not modelled */
        return;
    if (loej && !start) {
        if (lu->prevent_removal) {
            pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x53, 0x02);
            return;
        }
        if (lu->store != NULL) {
            lu->ejected_store = lu->store;
            lu->store = NULL;
        }
        lu->stopped = false;
        return;
    }
    if (loej && lu->store == NULL && lu->ejected_store != NULL) {
        lu->store = lu->ejected_store;
        lu->ejected_store = NULL;
        lu->head_lba = 0;
        lu->last_end_lba = UINT64_MAX;
        pcam_simlu_unit_attention(lu, 0x28, 0x00);
    }
    lu->stopped = !start;
}

static void put_address(uint8_t *p, uint64_t lba, bool msf)
{
    uint64_t f;

    if (!msf) {
        pcam_put_be32(p, (uint32_t)(lba > 0xFFFFFFFFu ? 0xFFFFFFFFu : lba));
        return;
    }
    f = lba + CD_PREGAP_FRAMES;
    p[0] = 0;
    p[1] = (uint8_t)(f / (60u * 75u) > 0xFFu ? 0xFFu : f / (60u * 75u));
    p[2] = (uint8_t)(f / 75u % 60u);
    p[3] = (uint8_t)(f % 75u);
}

static void read_toc(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    bool msf = c[1] & 0x02;
    unsigned fmt = c[2] & 0x0Fu;
    uint8_t track = c[6];
    uint8_t d[4 + 2 * 8];
    size_t n = 4;

    /* SFF-8020i put the format in the top bits of the last byte. */
    if (fmt == 0)
        fmt = c[9] >> 6;
    memset(d, 0, sizeof d);
    d[2] = 1; /* first track, or first session */
    d[3] = 1; /* last track, or last session */
    if (fmt == 0) {
        if (track > 1 && track != CD_LEADOUT) {
            pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x24, 0x00);
            return;
        }
        if (track <= 1) {
            d[n + 1] = CD_CONTROL_DATA;
            d[n + 2] = 1;
            put_address(d + n + 4, 0, msf);
            n += 8;
        }
        d[n + 1] = CD_CONTROL_DATA;
        d[n + 2] = CD_LEADOUT;
        put_address(d + n + 4, lu->blocks, msf);
        n += 8;
    } else if (fmt == 1) {
        /* Session information: the first track of the last session. */
        d[n + 1] = CD_CONTROL_DATA;
        d[n + 2] = 1;
        put_address(d + n + 4, 0, msf);
        n += 8;
    } else {
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    pcam_put_be16(d, (uint16_t)(n - 2));
    pcam_simlu_data_in(cmd, d, (uint32_t)n, pcam_get_be16(c + 7));
}

bool pcam_simlu_cdrom_command(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    switch (cmd->cdb[0]) {
    case 0x1B: /* START STOP UNIT */
        start_stop(lu, cmd);
        return true;
    case 0x1E: /* PREVENT ALLOW MEDIUM REMOVAL: bit 0 prevents, bit 1 is MMC's persistent flag */
        if ((cmd->cdb[4] & 0xFCu) != 0)
            pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x24, 0x00);
        else
            lu->prevent_removal = cmd->cdb[4] & 0x01;
        return true;
    case 0x43: /* READ TOC/PMA/ATIP */
        read_toc(lu, cmd);
        return true;
    case 0x0A: /* WRITE(6/10/12/16): read-only medium */
    case 0x2A:
    case 0xAA:
    case 0x8A:
        pcam_simlu_fail(lu, cmd, PCAM_SK_DATA_PROTECT, 0x27, 0x00);
        return true;
    default:
        return false;
    }
}
