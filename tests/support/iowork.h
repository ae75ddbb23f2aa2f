/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The integrity workload every rig runs: random tagged reads and writes
 * (6/10/16-byte CDBs, 1..max_blocks blocks, a flat buffer or a 1-3 element
 * scatter-gather list) at a fixed depth per disk, checked against the
 * test's own reference copy of each disk. Every read is compared with the
 * reference; a write updates it when it completes. Commands in flight never
 * overlap, so the reference is exact whatever order the targets take them
 * in, and at the end the media must equal it byte for byte.
 *
 * Rig-neutral: the harness (simrig, cmdrig, chiprig) owns the tracked CCBs
 * and the stepping; it hands each slot its CCB and completion counter,
 * submits through iowork_cfg.submit and calls iowork_done() from its own
 * completion callback. Header-only, so each test program has its own copy.
 * It never asserts: it counts, and iowork_verify() says what differed.
 */
#ifndef PCAM_IOWORK_H
#define PCAM_IOWORK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccbfill.h"
#include "pcam/pcam.h"
#include "pcam/pcam_cdb.h"

/** CDB sizes the workload may pick (iowork_cfg.cdb_sizes). */
#define IOWORK_CDB6 1u
#define IOWORK_CDB10 2u
#define IOWORK_CDB16 4u

struct iowork;

/* One command slot: a disk's share of the depth. */
typedef struct iowork_slot {
    struct iowork *w;
    pcam_ccb *ccb;          /* the harness's CCB for this slot */
    unsigned *done_count;   /* the harness's count of the CCB's completions */
    uint8_t disk;           /* target ID; LUN 0 */
    bool write;
    uint64_t lba;
    uint32_t blocks;
    uint8_t *buf;           /* max_blocks * 512 */
    pcam_sg sg[3];
    uint8_t sense[18];
    unsigned uses;          /* commands issued from this slot */
} iowork_slot;

typedef struct iowork_cfg {
    const char *name;       /* for messages */
    unsigned disks;         /* at IDs 0..disks-1, LUN 0 */
    unsigned depth;         /* slots per disk */
    uint32_t blocks;        /* per disk */
    uint32_t max_blocks;    /* per command */
    unsigned cdb_sizes;     /* IOWORK_CDB* mask; 0 = 10 only */
    bool sense;             /* give each command an autosense buffer */
    uint64_t commands;      /* stop issuing after this many */
    uint64_t seed;          /* nonzero */
    void *rig;              /* the harness, for submit */
    void (*submit)(void *rig, iowork_slot *s); /* submit s->ccb */
} iowork_cfg;

typedef struct iowork {
    iowork_cfg cfg;
    iowork_slot *slots;     /* disks * depth */
    uint8_t **ref;          /* the reference copy of each disk */
    uint8_t *busy;          /* disks * blocks: covered by a command in flight */
    uint64_t rng;
    uint64_t submitted, completed, mismatches, errors, double_done;
} iowork;

static inline uint32_t iowork_rnd(iowork *w, uint32_t n)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return (uint32_t)(w->rng % n);
}

/* Sets up the slots and the references (copies of `media[d]`, the disks'
 * contents now). The harness then points each slot's ccb and done_count at
 * its tracked CCB. Returns false when out of memory. */
static inline bool iowork_init(iowork *w, const iowork_cfg *cfg, uint8_t *const *media)
{
    size_t bytes = (size_t)cfg->blocks * 512u;

    memset(w, 0, sizeof *w);
    w->cfg = *cfg;
    w->rng = cfg->seed != 0 ? cfg->seed : 0x9E3779B97F4A7C15ull;
    w->slots = calloc((size_t)cfg->disks * cfg->depth, sizeof *w->slots);
    w->ref = calloc(cfg->disks, sizeof *w->ref);
    w->busy = calloc((size_t)cfg->disks * cfg->blocks, 1);
    if (w->slots == NULL || w->ref == NULL || w->busy == NULL)
        return false;
    for (unsigned d = 0; d < cfg->disks; d++) {
        w->ref[d] = malloc(bytes);
        if (w->ref[d] == NULL)
            return false;
        memcpy(w->ref[d], media[d], bytes);
    }
    for (unsigned i = 0; i < cfg->disks * cfg->depth; i++) {
        iowork_slot *s = &w->slots[i];
        s->w = w;
        s->disk = (uint8_t)(i % cfg->disks);
        s->buf = malloc((size_t)cfg->max_blocks * 512u);
        if (s->buf == NULL)
            return false;
    }
    return true;
}

/* Points slot i at the harness's tracked CCB rcs[i] and makes that CCB's
 * completion come back to the slot. Any tracked-CCB type with the members
 * ccb, done_count, test and on_done (simrig's rig_ccb, chiprig_ccb) fits;
 * on_done must call iowork_done(rc->test). */
#define IOWORK_BIND(w, rcs, done_fn)                                          \
    for (unsigned iowork_i_ = 0; iowork_i_ < (w)->cfg.disks * (w)->cfg.depth; iowork_i_++) { \
        (w)->slots[iowork_i_].ccb = &(rcs)[iowork_i_].ccb;                   \
        (w)->slots[iowork_i_].done_count = &(rcs)[iowork_i_].done_count;     \
        (rcs)[iowork_i_].test = &(w)->slots[iowork_i_];                      \
        (rcs)[iowork_i_].on_done = (done_fn);                                \
    }

static inline void iowork_fini(iowork *w)
{
    if (w->slots != NULL)
        for (unsigned i = 0; i < w->cfg.disks * w->cfg.depth; i++)
            free(w->slots[i].buf);
    if (w->ref != NULL)
        for (unsigned d = 0; d < w->cfg.disks; d++)
            free(w->ref[d]);
    free(w->slots);
    free(w->ref);
    free(w->busy);
    memset(w, 0, sizeof *w);
}

static inline unsigned iowork_cdb_size(iowork *w, uint64_t lba, uint32_t blocks)
{
    static const unsigned sizes[3] = {6, 10, 16};
    unsigned mask = w->cfg.cdb_sizes != 0 ? w->cfg.cdb_sizes : IOWORK_CDB10;
    unsigned size = sizes[iowork_rnd(w, 3)];
    while ((mask & (size == 6 ? IOWORK_CDB6 : size == 10 ? IOWORK_CDB10 : IOWORK_CDB16)) == 0)
        size = size == 6 ? 10 : size == 10 ? 16 : 6;
    /* READ(6) carries 21 bits of LBA and at most 256 blocks. */
    if (size == 6 && (lba > 0x1FFFFF || blocks > 256))
        size = 10;
    return size;
}

/* Builds and submits the slot's next command. */
static inline void iowork_issue(iowork_slot *s)
{
    iowork *w = s->w;
    uint8_t *busy = w->busy + (size_t)s->disk * w->cfg.blocks;
    uint8_t cdb[16];
    uint64_t lba;
    uint32_t blocks, total, off = 0;
    unsigned nsg;
    int len;
    pcam_ccb *c = s->ccb;

    for (;;) { /* a range no command in flight touches */
        bool clash = false;
        blocks = 1 + iowork_rnd(w, w->cfg.max_blocks);
        lba = iowork_rnd(w, w->cfg.blocks - blocks + 1);
        for (uint32_t i = 0; i < blocks && !clash; i++)
            clash = busy[lba + i] != 0;
        if (!clash)
            break;
    }
    memset(busy + lba, 1, blocks);
    s->write = iowork_rnd(w, 2) == 0;
    s->lba = lba;
    s->blocks = blocks;
    total = blocks * 512u;
    unsigned size = iowork_cdb_size(w, lba, blocks);
    if (s->write) {
        for (uint32_t i = 0; i < total; i++)
            s->buf[i] = (uint8_t)iowork_rnd(w, 256);
        len = pcam_cdb_write(cdb, sizeof cdb, size, lba, blocks, 0);
    } else {
        memset(s->buf, 0xEE, total);
        len = pcam_cdb_read(cdb, sizeof cdb, size, lba, blocks, 0);
    }
    if (len <= 0) { /* the workload's own bug: say so, never submit garbage */
        fprintf(stderr, "%s: no %u-byte CDB for lba %llu blocks %u\n", w->cfg.name, size,
                (unsigned long long)lba, blocks);
        w->errors++;
        return;
    }
    ccbfill_io(c, s->disk, 0, cdb, (uint8_t)len, s->write ? PCAM_DIR_OUT : PCAM_DIR_IN, s->buf, total);
    c->flags = PCAM_CCB_TAGGED;
    c->u.io.tag_action = PCAM_TAG_SIMPLE;
    if (w->cfg.sense) {
        c->u.io.sense = s->sense;
        c->u.io.sense_len = (uint8_t)sizeof s->sense;
    }
    nsg = iowork_rnd(w, 4); /* 0 = the flat buffer, else that many elements */
    if (nsg > 0) {
        for (unsigned i = 0; i < nsg; i++) {
            uint32_t left = total - off;
            uint32_t piece = i + 1 == nsg ? left : (left > 1 ? 1 + iowork_rnd(w, left - 1) : left);
            s->sg[i].addr = s->buf + off;
            s->sg[i].len = piece;
            off += piece;
        }
        c->u.io.sg = s->sg;
        c->u.io.sg_count = (uint16_t)nsg;
    }
    *s->done_count = 0;
    s->uses++;
    w->submitted++;
    w->cfg.submit(w->cfg.rig, s);
}

/* Issues every slot (fewer when the run is shorter than the depth), slot
 * by slot across the disks (disk 0's first, disk 1's first, ...), so each
 * disk's queue fills from the start. */
static inline void iowork_start(iowork *w)
{
    for (unsigned i = 0; i < w->cfg.disks * w->cfg.depth && w->submitted < w->cfg.commands; i++)
        iowork_issue(&w->slots[i]);
}

/* The harness's completion callback calls this for the slot's CCB. */
static inline void iowork_done(iowork_slot *s)
{
    iowork *w = s->w;
    const pcam_ccb *c = s->ccb;
    size_t at = (size_t)s->lba * 512u, bytes = (size_t)s->blocks * 512u;

    if (*s->done_count != 1)
        w->double_done++;
    if ((c->status & PCAM_STATUS_MASK) != PCAM_REQ_CMP || c->u.io.resid != 0) {
        w->errors++;
        fprintf(stderr, "%s: disk %u lba %llu blocks %u failed: %s (0x%x), resid %u\n", w->cfg.name,
                s->disk, (unsigned long long)s->lba, s->blocks, pcam_status_name(c->status), c->status,
                c->u.io.resid);
    } else if (s->write) {
        memcpy(w->ref[s->disk] + at, s->buf, bytes);
    } else if (memcmp(w->ref[s->disk] + at, s->buf, bytes) != 0) {
        w->mismatches++;
        fprintf(stderr, "%s: disk %u lba %llu blocks %u read wrong data\n", w->cfg.name, s->disk,
                (unsigned long long)s->lba, s->blocks);
    }
    memset(w->busy + (size_t)s->disk * w->cfg.blocks + s->lba, 0, s->blocks);
    w->completed++;
    if (w->submitted < w->cfg.commands)
        iowork_issue(s);
}

/* After the run: true when every command completed exactly once with good
 * data and each disk's medium equals its reference. Prints what differs. */
static inline bool iowork_verify(const iowork *w, uint8_t *const *media)
{
    bool ok = true;

    fprintf(stderr, "%s: %llu of %llu commands, %llu mismatches, %llu errors, %llu double completions\n",
            w->cfg.name, (unsigned long long)w->completed, (unsigned long long)w->cfg.commands,
            (unsigned long long)w->mismatches, (unsigned long long)w->errors,
            (unsigned long long)w->double_done);
    if (w->completed != w->cfg.commands || w->mismatches != 0 || w->errors != 0 || w->double_done != 0)
        ok = false;
    for (unsigned d = 0; d < w->cfg.disks; d++)
        if (memcmp(media[d], w->ref[d], (size_t)w->cfg.blocks * 512u) != 0) {
            fprintf(stderr, "%s: disk %u's medium differs from the reference\n", w->cfg.name, d);
            ok = false;
        }
    for (unsigned i = 0; i < w->cfg.disks * w->cfg.depth; i++)
        if (w->slots[i].uses > 0 && *w->slots[i].done_count != 1) {
            fprintf(stderr, "%s: slot %u's last command completed %u times\n", w->cfg.name, i,
                    *w->slots[i].done_count);
            ok = false;
        }
    return ok;
}

#endif /* PCAM_IOWORK_H */
