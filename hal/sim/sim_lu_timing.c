/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mechanism timing of the simulated logical units, in integer nanoseconds.
 *
 * The medium is laid out as tracks of equal size: a track holds what passes
 * under the head in one revolution at the media rate,
 *
 *     blocks_per_track = rotation_ns * media_kbps / (10^6 * block_size)
 *
 * (8,333,333 ns at 10,000 KB/s with 512-byte blocks: 162 blocks). A command
 * that touches the media costs
 *
 *     overhead + seek(distance in tracks) + rotational latency + media time
 *
 * - seek(0) = 0; seek(1) = seek_min; beyond, it rises with the square root of
 *   the distance as a fraction of the full stroke, reaching seek_max at the
 *   last track: seek_min + (seek_max - seek_min) * isqrt(f) / 1024 with
 *   f = (d - 1) * 2^20 / (tracks - 2), so isqrt(f) runs from 0 to 1024.
 * - Rotation is deterministic. Sector s of a track sits at angle
 *   (s % blocks_per_track) * rotation_ns / blocks_per_track, expressed as the
 *   time the platter needs to turn that far. When the last command ended,
 *   the head was over the angle of head_lba (the block after the last one it
 *   moved over); overhead and seek later the platter has turned by that much
 *   more, and the latency is what remains until the first wanted sector comes
 *   round. Over random requests this averages half a revolution, and it is the
 *   same in every run.
 * - Media time is bytes * 10^6 / media_kbps (100 ns per byte at 10 MB/s).
 * - A read that starts exactly where the previous read ended, for no more
 *   than cache_blocks blocks, is served from the read-ahead buffer: overhead
 *   plus media time, no seek and no rotation. RCD in the caching mode page
 *   turns this off; a write or a failed read empties the buffer. WCE is
 *   recorded but writes are modelled as write-through.
 */
#include "sim_lu.h"

#define SEEK_FRACTION_BITS 20u /* f is a fraction of 2^20; its square root of 2^10 */

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* Largest r with r * r <= v (bit by bit, no floating point). */
static uint64_t isqrt64(uint64_t v)
{
    uint64_t r = 0, bit = (uint64_t)1 << 62;

    while (bit > v)
        bit >>= 2;
    while (bit != 0) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

static uint64_t blocks_per_track(const pcam_simlu *lu)
{
    uint64_t bs = lu->block_size != 0 ? lu->block_size : 512u;
    uint64_t bpt = sat_mul(lu->timing.rotation_ns, lu->timing.media_kbps) / sat_mul(1000000u, bs);

    return bpt != 0 ? bpt : 1;
}

static uint64_t track_of(const pcam_simlu *lu, uint64_t lba)
{
    if (lu->blocks != 0 && lba >= lu->blocks)
        lba = lu->blocks - 1;
    return lba / blocks_per_track(lu);
}

static uint64_t seek_time(const pcam_simlu *lu, uint64_t from_lba, uint64_t to_lba)
{
    const pcam_simlu_timing *t = &lu->timing;
    uint64_t a = track_of(lu, from_lba), b = track_of(lu, to_lba);
    uint64_t d = a > b ? a - b : b - a;
    uint64_t bpt = blocks_per_track(lu);
    uint64_t tracks = lu->blocks / bpt + (lu->blocks % bpt != 0);
    uint64_t span = t->seek_max_ns > t->seek_min_ns ? t->seek_max_ns - t->seek_min_ns : 0;
    uint64_t num, den, f;

    if (d == 0)
        return 0;
    if (d == 1 || tracks <= 2)
        return t->seek_min_ns;
    num = d - 1;
    den = tracks - 2;
    /* Keep num << 20 inside 64 bits on absurdly large media. */
    while (den >= ((uint64_t)1 << 40)) {
        num >>= 1;
        den >>= 1;
    }
    f = (num << SEEK_FRACTION_BITS) / den;
    if (f > ((uint64_t)1 << SEEK_FRACTION_BITS))
        f = (uint64_t)1 << SEEK_FRACTION_BITS;
    return t->seek_min_ns + sat_mul(span, isqrt64(f)) / (1u << (SEEK_FRACTION_BITS / 2));
}

/* Time for the platter to turn from sector 0 of a track to `lba`'s sector. */
static uint64_t angle(const pcam_simlu *lu, uint64_t lba)
{
    uint64_t bpt = blocks_per_track(lu);

    return sat_mul(lba % bpt, lu->timing.rotation_ns) / bpt;
}

uint64_t pcam_simlu_seek_cost(const pcam_simlu *lu, uint64_t lba)
{
    if (lu == NULL)
        return 0;
    return seek_time(lu, lu->head_lba, lba);
}

uint64_t pcam_simlu_service(pcam_simlu *lu, const pcam_simlu_cmd *cmd)
{
    const pcam_simlu_timing *t;
    uint64_t media, seek, rot, pos, target, latency = 0, total;
    bool read, hit;

    if (lu == NULL || cmd == NULL || !cmd->media || cmd->blocks == 0)
        return 0;
    t = &lu->timing;
    read = cmd->dir != PCAM_DIR_OUT;
    media = t->media_kbps != 0
                ? sat_mul(sat_mul(cmd->blocks, lu->block_size), 1000000u) / t->media_kbps
                : 0;
    hit = read && t->cache_blocks != 0 && cmd->lba == lu->last_end_lba &&
          cmd->blocks <= t->cache_blocks &&
          !(lu->kind == PCAM_SIMLU_DISK && (lu->mode_caching[2] & 0x01u));
    if (hit) {
        total = t->overhead_ns + media;
    } else {
        seek = seek_time(lu, lu->head_lba, cmd->lba);
        rot = t->rotation_ns;
        if (rot != 0) {
            pos = (angle(lu, lu->head_lba) + t->overhead_ns % rot + seek % rot) % rot;
            target = angle(lu, cmd->lba);
            latency = (target + rot - pos) % rot;
        }
        total = t->overhead_ns + seek + latency + media;
    }
    lu->head_lba = cmd->lba + cmd->blocks;
    lu->last_end_lba = read && cmd->status == 0 ? lu->head_lba : UINT64_MAX;
    return total;
}
