/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MODE SENSE(6/10) and MODE SELECT(6/10) of the simulated disk: the caching
 * page (08h, SBC-3 6.3.4) and the disconnect-reconnect page (02h, SPC-3 /
 * SPI-2), page 3Fh for both, and the short or long LBA block descriptor
 * (SBC-3 6.3.2). Nothing is savable: page control 3 (saved values) gives
 * 39/00 SAVING PARAMETERS NOT SUPPORTED and SP=1 gives 24/00.
 *
 * MODE SELECT is applied only after the whole parameter list has been
 * checked, so a list that is bad anywhere changes nothing (26/00 INVALID
 * FIELD IN PARAMETER LIST for an unknown page, a wrong page length, a
 * subpage, a changed non-changeable bit or another block length; 1A/00
 * PARAMETER LIST LENGTH ERROR when a header, descriptor or page is cut).
 */
#include <string.h>

#include "sim_lu.h"
#include "pcam/pcam_sense.h"
#include "pcam_util.h"


/* Mode pages (SBC-3 6.3.4 caching, SPC-3/SPI-2 disconnect-reconnect). */
#define PAGE_DISCONNECT 0x02u
#define PAGE_CACHING 0x08u
#define PAGE_ALL 0x3Fu
#define MODE_DSP_DPOFUA 0x10u /* device-specific parameter: DPO and FUA accepted */

static const uint8_t caching_default[20] = {
    PAGE_CACHING, 0x12, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0xFF, 0xFF,
    0xFF, 0xFF, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
};
/* Only WCE (bit 2) and RCD (bit 0) of byte 2 may be changed. */
static const uint8_t caching_mask[20] = {
    PAGE_CACHING, 0x12, 0x05
};
static const uint8_t disconnect_default[16] = {
    PAGE_DISCONNECT, 0x0E, 0x80, 0x80
};
/* Ratios, the three time limits, maximum and first burst size are changeable. */
static const uint8_t disconnect_mask[16] = {
    PAGE_DISCONNECT, 0x0E, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0xFF, 0xFF
};

static uint32_t room(const pcam_simlu_cmd *cmd)
{
    return cmd->buf != NULL ? cmd->cap : 0;
}

void pcam_simlu_mode_defaults(pcam_simlu *lu)
{
    memcpy(lu->mode_caching, caching_default, sizeof lu->mode_caching);
    memcpy(lu->mode_disconnect, disconnect_default, sizeof lu->mode_disconnect);
}

static const uint8_t *mode_page(const pcam_simlu *lu, uint8_t code, unsigned pc, size_t *len)
{
    if (code == PAGE_CACHING) {
        *len = sizeof caching_default;
        return pc == 1 ? caching_mask : pc == 2 ? caching_default : lu->mode_caching;
    }
    if (code == PAGE_DISCONNECT) {
        *len = sizeof disconnect_default;
        return pc == 1 ? disconnect_mask : pc == 2 ? disconnect_default : lu->mode_disconnect;
    }
    return NULL;
}

void pcam_simlu_mode_sense(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    bool ten = c[0] == 0x5A;
    bool dbd = c[1] & 0x08;
    bool llbaa = ten && (c[1] & 0x10);
    unsigned pc = c[2] >> 6;
    uint8_t page = c[2] & 0x3Fu;
    uint32_t alloc = ten ? pcam_get_be16(c + 7) : c[4];
    uint8_t d[8 + 16 + 16 + 20];
    size_t hdr = ten ? 8 : 4, pos = hdr, bdl = 0, len = 0;
    const uint8_t *p;
    static const uint8_t order[2] = { PAGE_DISCONNECT, PAGE_CACHING };
    unsigned i;

    if (pc == 3) { /* saved values: nothing is saved */
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x39, 0x00);
        return;
    }
    if ((c[3] != 0 && c[3] != 0xFF) ||
        (page != PAGE_ALL && mode_page(lu, page, pc, &len) == NULL)) {
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    memset(d, 0, sizeof d);
    if (!dbd) {
        /* SBC-3 short (8) or long (16) LBA block descriptor; no changeable bits. */
        bdl = llbaa ? 16 : 8;
        if (pc != 1 && llbaa) {
            pcam_put_be64(d + pos, lu->blocks);
            pcam_put_be32(d + pos + 12, lu->block_size);
        } else if (pc != 1) {
            pcam_put_be32(d + pos, (uint32_t)(lu->blocks < 0xFFFFFFFFu ? lu->blocks : 0xFFFFFFFFu));
            pcam_put_be24(d + pos + 5, lu->block_size);
        }
        pos += bdl;
    }
    for (i = 0; i < 2; i++) {
        if (page != PAGE_ALL && page != order[i])
            continue;
        p = mode_page(lu, order[i], pc, &len);
        memcpy(d + pos, p, len);
        d[pos] = order[i]; /* PS = 0: no page is savable */
        d[pos + 1] = (uint8_t)(len - 2);
        pos += len;
    }
    if (ten) {
        pcam_put_be16(d, (uint16_t)(pos - 2));
        d[3] = MODE_DSP_DPOFUA;
        d[4] = llbaa && !dbd ? 0x01 : 0x00; /* LONGLBA */
        pcam_put_be16(d + 6, (uint16_t)bdl);
    } else {
        d[0] = (uint8_t)(pos - 1);
        d[2] = MODE_DSP_DPOFUA;
        d[3] = (uint8_t)bdl;
    }
    pcam_simlu_data_in(cmd, d, (uint32_t)pos, alloc);
}

void pcam_simlu_mode_select(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    const uint8_t *c = cmd->cdb;
    uint32_t len = c[0] == 0x55 ? pcam_get_be16(c + 7) : c[4];

    /* SP: nothing can be saved. PF: only SPC-format pages are understood. */
    if ((c[1] & 0x01) || (len != 0 && !(c[1] & 0x10)) || len > room(cmd)) {
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    cmd->xfer_len = len;
    cmd->dir = len != 0 ? PCAM_DIR_OUT : PCAM_DIR_NONE;
}

/* Walk a MODE SELECT parameter list; check everything, and with `apply`
 * copy the changeable bits. Returns 0 or the ASC to fail with. */
static uint8_t mode_select_walk(pcam_simlu *lu, const uint8_t *d, size_t n, bool ten, bool apply)
{
    size_t hdr = ten ? 8 : 4, bdl, p, len, i;
    bool longlba = ten && n >= hdr && (d[4] & 0x01);
    uint32_t blen;
    uint8_t *cur;
    const uint8_t *mask;

    if (n < hdr)
        return 0x1A; /* PARAMETER LIST LENGTH ERROR */
    bdl = ten ? pcam_get_be16(d + 6) : d[3];
    if (bdl != 0 && bdl != (longlba ? 16u : 8u))
        return 0x26; /* INVALID FIELD IN PARAMETER LIST */
    if (bdl > n - hdr)
        return 0x1A;
    if (bdl != 0) {
        /* The block length cannot be changed; the block count is ignored. */
        blen = longlba ? pcam_get_be32(d + hdr + 12) : pcam_get_be24(d + hdr + 5);
        if (blen != lu->block_size)
            return 0x26;
    }
    for (p = hdr + bdl; p < n; p += 2 + len) {
        if (n - p < 2)
            return 0x1A;
        len = d[p + 1];
        if (d[p] & 0x40) /* SPF: no subpages here */
            return 0x26;
        if (len > n - p - 2)
            return 0x1A;
        if ((d[p] & 0x3Fu) == PAGE_CACHING) {
            cur = lu->mode_caching;
            mask = caching_mask;
        } else if ((d[p] & 0x3Fu) == PAGE_DISCONNECT) {
            cur = lu->mode_disconnect;
            mask = disconnect_mask;
        } else {
            return 0x26;
        }
        if (len + 2 != (size_t)mask[1] + 2)
            return 0x26;
        /* SPC-3 6.7: a non-changeable field must hold its current value. */
        for (i = 2; i < len + 2; i++) {
            if (((d[p + i] ^ cur[i]) & (uint8_t)~mask[i]) != 0)
                return 0x26;
            if (apply)
                cur[i] = (uint8_t)((cur[i] & (uint8_t)~mask[i]) | (d[p + i] & mask[i]));
        }
    }
    return 0;
}

void pcam_simlu_mode_select_data(pcam_simlu *lu, pcam_simlu_cmd *cmd)
{
    bool ten = cmd->cdb[0] == 0x55;
    uint8_t asc = mode_select_walk(lu, cmd->buf, cmd->xfer_len, ten, false);

    if (asc == 0)
        (void)mode_select_walk(lu, cmd->buf, cmd->xfer_len, ten, true);
    else
        pcam_simlu_fail(lu, cmd, PCAM_SK_ILLEGAL_REQUEST, asc, 0x00);
}
