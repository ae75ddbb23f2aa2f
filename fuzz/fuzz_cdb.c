/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target for the CDB codec. The input is a raw CDB. It is checked,
 * decoded under several block sizes and formatted into roomy and tight
 * buffers; decoded block commands are rebuilt with the builders and must
 * decode to the same LBA, block count and flags. The other builders get
 * their arguments from the input and must build CDBs that decode to what
 * they were asked for (builders()). Any disagreement aborts.
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

/* The builders of the non-block commands, with arguments taken from the
 * input and a buffer whose room is also from the input: a builder either
 * fits and produces a CDB that checks, decodes to the same opcode, has the
 * length its opcode group gives and asks for the data it was told to, or
 * says NOSPACE/RANGE and writes nothing past its room. */
static uint32_t be(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static void built(int n, const uint8_t *cdb, size_t cap, const uint8_t *room, int want_len,
                  pcam_dir dir, uint32_t xfer)
{
    pcam_cdb_info info;

    for (size_t i = cap; i < 24; i++)
        if (room[i] != 0x5A)
            abort(); /* wrote past cap */
    if (n == PCAM_ERR_NOSPACE) {
        if (cap >= (size_t)want_len)
            abort();
        return;
    }
    if (n == PCAM_ERR_RANGE)
        return;
    if (n != want_len || (size_t)n > cap)
        abort();
    if (pcam_cdb_check(cdb, (size_t)n) != PCAM_OK || pcam_cdb_decode(cdb, (size_t)n, 512, &info) != PCAM_OK)
        abort();
    if (info.opcode != cdb[0] || info.cdb_len != n || pcam_cdb_len_for_opcode(cdb[0]) != n)
        abort();
    if (!info.xfer_known || info.xfer_bytes != xfer || info.dir != (xfer != 0 ? dir : PCAM_DIR_NONE))
        abort();
}

static void builders(const uint8_t *d, size_t size)
{
    uint8_t b[24], room[24];
    size_t cap;
    int n;

    if (size < 8)
        return;
    cap = d[0] % 18u;
#define FRESH() (memset(room, 0x5A, sizeof room), memcpy(b, room, sizeof b))
    FRESH();
    n = pcam_cdb_test_unit_ready(b, cap);
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, 6, PCAM_DIR_NONE, 0);
    FRESH();
    n = pcam_cdb_inquiry(b, cap, (d[1] & 1u) != 0, d[2], (uint16_t)be(d + 3, 2));
    memcpy(room, b, sizeof b);
    if ((d[1] & 1u) == 0 && d[2] != 0 && n != PCAM_ERR_RANGE && n != PCAM_ERR_NOSPACE)
        abort(); /* a page without EVPD */
    built(n, b, cap, room, 6, PCAM_DIR_IN, be(d + 3, 2));
    FRESH();
    n = pcam_cdb_request_sense(b, cap, d[4], (d[1] & 2u) != 0);
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, 6, PCAM_DIR_IN, d[4]);
    FRESH();
    n = pcam_cdb_report_luns(b, cap, d[5], be(d + 4, 4));
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, 12, PCAM_DIR_IN, be(d + 4, 4));
    FRESH();
    n = pcam_cdb_read_capacity10(b, cap);
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, 10, PCAM_DIR_IN, 8);
    FRESH();
    n = pcam_cdb_read_capacity16(b, cap, be(d + 4, 4));
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, 16, PCAM_DIR_IN, be(d + 4, 4));
    FRESH();
    unsigned ms = (d[1] & 4u) ? 10u : 6u;
    n = pcam_cdb_mode_sense(b, cap, ms, (d[1] & 8u) != 0, d[6] & 3u, d[7] & 0x3Fu, d[6], (uint16_t)be(d + 2, 2));
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, (int)ms, PCAM_DIR_IN, be(d + 2, 2));
    FRESH();
    n = pcam_cdb_mode_select(b, cap, ms, (d[1] & 16u) != 0, (d[1] & 32u) != 0, (uint16_t)be(d + 2, 2));
    memcpy(room, b, sizeof b);
    built(n, b, cap, room, (int)ms, PCAM_DIR_OUT, be(d + 2, 2));
#undef FRESH
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
    /* Whatever the group says a CDB's length is, a CDB that checks has it. */
    if (chk == PCAM_OK && data[0] != 0x7F && pcam_cdb_len_for_opcode(data[0]) > 0 &&
        (size_t)pcam_cdb_len_for_opcode(data[0]) != size)
        abort();
    builders(data, size);
    return 0;
}
