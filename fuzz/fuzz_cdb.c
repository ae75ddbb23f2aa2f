/*
 * Fuzz target for the CDB codec. The input is a raw CDB. It is checked,
 * decoded under several block sizes and formatted into roomy and tight
 * buffers; decoded block commands are rebuilt with the builders and must
 * decode to the same LBA, block count and flags. Any disagreement aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"

static void same_or_die(const pcam_cdb_info *a, const pcam_cdb_info *b)
{
    if (a->has_lba != b->has_lba || a->lba != b->lba || a->has_blocks != b->has_blocks ||
        a->blocks != b->blocks || a->fua != b->fua || a->dpo != b->dpo || a->immed != b->immed ||
        a->dir != b->dir || a->xfer_known != b->xfer_known || a->xfer_bytes != b->xfer_bytes ||
        strcmp(a->name, b->name) != 0)
        abort();
}

/* Rebuilds a decoded block command with its builder, at the same size and
 * at size 0 (smallest that fits), and compares the decodes. */
static void rebuild(const uint8_t *data, size_t size, const pcam_cdb_info *in)
{
    uint8_t cdb[PCAM_CDB_MAX];
    pcam_cdb_info out;
    int n;
    uint8_t op = data[0];
    uint8_t byte1 = size == 6 ? 0 : data[1];

    switch (op) {
    case 0x08: case 0x28: case 0xA8: case 0x88:
        n = pcam_cdb_read(cdb, sizeof cdb, in->cdb_len, in->lba, in->blocks, byte1);
        break;
    case 0x0A: case 0x2A: case 0xAA: case 0x8A:
        n = pcam_cdb_write(cdb, sizeof cdb, in->cdb_len, in->lba, in->blocks, byte1);
        break;
    case 0x2F: case 0xAF: case 0x8F: {
        uint8_t bytchk = (uint8_t)((data[1] >> 1) & 3u);
        n = pcam_cdb_verify(cdb, sizeof cdb, in->cdb_len, in->lba, in->blocks, bytchk);
        if (bytchk == 2) {
            if (n != PCAM_ERR_RESERVED)
                abort();
            return;
        }
        /* The builder has no DPO argument; compare without it. */
        byte1 = 0;
        break;
    }
    case 0x35: case 0x91:
        n = pcam_cdb_synchronize_cache(cdb, sizeof cdb, in->cdb_len, in->lba, in->blocks,
                                       in->immed);
        break;
    default:
        return;
    }
    if (n != (int)size)
        abort();
    if (pcam_cdb_decode(cdb, (size_t)n, 512, &out) != PCAM_OK)
        abort();
    pcam_cdb_info want = *in;
    if (op == 0x2F || op == 0xAF || op == 0x8F)
        want.dpo = false;
    same_or_die(&want, &out);

    /* Same values through the size-picking path: the form may differ, the
     * meaning may not (except READ(6), which has no flag byte to carry). */
    switch (op) {
    case 0x08: case 0x28: case 0xA8: case 0x88:
        n = pcam_cdb_read(cdb, sizeof cdb, 0, in->lba, in->blocks, byte1);
        break;
    case 0x0A: case 0x2A: case 0xAA: case 0x8A:
        n = pcam_cdb_write(cdb, sizeof cdb, 0, in->lba, in->blocks, byte1);
        break;
    case 0x2F: case 0xAF: case 0x8F:
        n = pcam_cdb_verify(cdb, sizeof cdb, 0, in->lba, in->blocks, (data[1] >> 1) & 3u);
        break;
    default:
        n = pcam_cdb_synchronize_cache(cdb, sizeof cdb, 0, in->lba, in->blocks, in->immed);
        break;
    }
    if (n <= 0 || (size_t)n > size)
        abort();
    if (pcam_cdb_decode(cdb, (size_t)n, 512, &out) != PCAM_OK)
        abort();
    if (out.lba != in->lba || out.blocks != in->blocks || out.dir != want.dir ||
        out.xfer_bytes != want.xfer_bytes || out.immed != in->immed)
        abort();
}

static void format_bounded(const uint8_t *data, size_t size, uint32_t bs, size_t cap)
{
    char buf[256 + 8];
    memset(buf, 0x5A, sizeof buf);
    int rc = pcam_cdb_format(data, size, bs, buf, cap);
    for (size_t i = cap; i < sizeof buf; i++)
        if (buf[i] != 0x5A)
            abort();
    if (cap == 0) {
        if (rc != PCAM_ERR_NOSPACE)
            abort();
        return;
    }
    size_t len = 0;
    while (len < cap && buf[len] != '\0')
        len++;
    if (len >= cap)
        abort(); /* not terminated inside cap */
    if (rc >= 0 ? (size_t)rc != len : rc != PCAM_ERR_NOSPACE)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t sizes[] = {0, 512, 2352, 4096, 0xFFFFFFFFu};
    pcam_cdb_info info, first;
    memset(&first, 0, sizeof first);
    pcam_err chk = pcam_cdb_check(data, size);

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        pcam_err rc = pcam_cdb_decode(data, size, sizes[k], &info);
        if (rc != chk || info.name == NULL || (unsigned)info.dir > PCAM_DIR_UNKNOWN)
            abort();
        if (rc != PCAM_OK)
            continue;
        if (info.cdb_len != size || info.opcode != data[0])
            abort();
        if (info.xfer_known && info.xfer_bytes == 0 && info.dir != PCAM_DIR_NONE)
            abort();
        if (k == 0)
            first = info;
        else if (first.lba != info.lba || first.blocks != info.blocks)
            abort(); /* the block size must only change byte counts */
        format_bounded(data, size, sizes[k], 256);
    }
    format_bounded(data, size, 512, size % 48);

    if (chk == PCAM_OK && pcam_cdb_decode(data, size, 512, &info) == PCAM_OK && info.has_blocks)
        rebuild(data, size, &info);
    return 0;
}
