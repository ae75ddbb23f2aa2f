/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 2: integrity. Random reads and writes (6/10/16-byte CDBs, 1-64
 * blocks, flat buffers and 1-4 element scatter-gather lists) on 4 disks at
 * queue depth 32 each. Every read is compared with the test's own reference
 * copy of each disk, every write updates it when it completes, and at the
 * end the simulated media must equal the reference byte for byte. Commands
 * in flight never overlap, so the reference is exact whatever order the
 * targets reorder them in. Every CCB must complete exactly once.
 * Also run in polled mode (scenario 8).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "simrig.h"

#define DISKS 4
#define DEPTH 32
#define BLOCKS 8192u /* 4 MiB per disk */
#define MAX_BLOCKS 64u

typedef struct slot {
    rig_ccb rc;
    uint8_t disk;
    bool write;
    uint64_t lba;
    uint32_t blocks;
    uint8_t *buf;    /* MAX_BLOCKS * 512 */
    pcam_sg sg[4];
    unsigned uses;
} slot;

typedef struct run {
    simrig r;
    uint8_t *ref[DISKS];
    uint8_t busy[DISKS][BLOCKS]; /* blocks covered by a command in flight */
    slot slots[DISKS][DEPTH];
    uint64_t rng;
    uint64_t submitted, completed, target;
    uint64_t mismatches, errors, double_done;
} run;

static uint32_t rnd(run *u, uint32_t n)
{
    u->rng ^= u->rng << 13;
    u->rng ^= u->rng >> 7;
    u->rng ^= u->rng << 17;
    return (uint32_t)(u->rng % n);
}

static void issue(run *u, slot *s);

static void slot_done(rig_ccb *rc)
{
    slot *s = (slot *)rc;
    run *u = rc->test;
    uint32_t bytes = s->blocks * 512u;
    if (rc->done_count != 1)
        u->double_done++;
    if (rc->ccb.status != PCAM_REQ_CMP) {
        u->errors++;
        fprintf(stderr, "command failed: disk %u lba %llu status %s (0x%x)\n", s->disk,
                (unsigned long long)s->lba, pcam_status_name(rc->ccb.status), rc->ccb.status);
    } else if (s->write) {
        memcpy(u->ref[s->disk] + s->lba * 512u, s->buf, bytes);
    } else if (memcmp(u->ref[s->disk] + s->lba * 512u, s->buf, bytes) != 0) {
        u->mismatches++;
    }
    memset(&u->busy[s->disk][s->lba], 0, s->blocks);
    u->completed++;
    if (u->submitted < u->target)
        issue(u, s);
}

static void issue(run *u, slot *s)
{
    uint8_t cdb[16];
    int len;
    uint64_t lba;
    uint32_t blocks;
    /* Pick a range no command in flight touches. */
    for (;;) {
        blocks = 1 + rnd(u, MAX_BLOCKS);
        lba = rnd(u, BLOCKS - blocks + 1);
        bool clash = false;
        for (uint32_t i = 0; i < blocks && !clash; i++)
            clash = u->busy[s->disk][lba + i] != 0;
        if (!clash)
            break;
    }
    memset(&u->busy[s->disk][lba], 1, blocks);
    s->write = rnd(u, 2) == 0;
    s->lba = lba;
    s->blocks = blocks;
    unsigned sizes[3] = {6, 10, 16};
    unsigned size = sizes[rnd(u, 3)];
    if (size == 6 && (lba > 0x1FFFFF || blocks > 256))
        size = 10;
    if (s->write) {
        for (uint32_t i = 0; i < blocks * 512u; i++)
            s->buf[i] = (uint8_t)rnd(u, 256);
        len = pcam_cdb_write(cdb, sizeof cdb, size, lba, blocks, 0);
    } else {
        memset(s->buf, 0xEE, blocks * 512u);
        len = pcam_cdb_read(cdb, sizeof cdb, size, lba, blocks, 0);
    }
    assert_true(len > 0);
    rig_ccb_io(&s->rc, s->disk, 0, cdb, (uint8_t)len, s->write ? PCAM_DIR_OUT : PCAM_DIR_IN, s->buf,
               blocks * 512u);
    unsigned nsg = rnd(u, 4); /* 0 = flat buffer, else that many elements */
    if (nsg > 0) {
        uint32_t total = blocks * 512u, off = 0;
        for (unsigned i = 0; i < nsg; i++) {
            uint32_t left = total - off;
            uint32_t piece = i + 1 == nsg ? left : (left > 1 ? 1 + rnd(u, left - 1) : left);
            s->sg[i].addr = s->buf + off;
            s->sg[i].len = piece;
            off += piece;
        }
        s->rc.ccb.u.io.sg = s->sg;
        s->rc.ccb.u.io.sg_count = (uint16_t)nsg;
    }
    s->rc.ccb.flags = PCAM_CCB_TAGGED;
    s->rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    s->rc.test = u;
    s->rc.on_done = slot_done;
    s->uses++;
    u->submitted++;
    rig_submit(&u->r, &s->rc);
}

static void integrity(bool polled)
{
    run *u = calloc(1, sizeof *u);
    assert_non_null(u);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.seed = 0x5EED;
    assert_int_equal(simrig_init(&u->r, &sc, NULL, polled), 0);
    u->r.check_every = 97;
    u->rng = 0x9E3779B97F4A7C15ull;
    u->target = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 4000 : 100000;
    for (uint8_t d = 0; d < DISKS; d++) {
        uint8_t *m = simrig_add_disk(&u->r, d, 0, BLOCKS, NULL);
        assert_non_null(m);
        u->ref[d] = malloc(BLOCKS * 512u);
        memcpy(u->ref[d], m, BLOCKS * 512u);
    }
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&u->r, &scan, RIG_S(30)), PCAM_REQ_CMP);

    for (uint8_t d = 0; d < DISKS; d++)
        for (unsigned i = 0; i < DEPTH; i++) {
            u->slots[d][i].disk = d;
            u->slots[d][i].buf = malloc(MAX_BLOCKS * 512u);
            issue(u, &u->slots[d][i]);
        }
    bool ok = simrig_run_until_count(&u->r, &u->completed, u->target, RIG_S(3600));
    fprintf(stderr, "integrity(%s): %llu commands, %llu mismatches, %llu errors, sim time %.3f s\n",
            polled ? "polled" : "interrupt", (unsigned long long)u->completed,
            (unsigned long long)u->mismatches, (unsigned long long)u->errors,
            (double)pcam_sim_now(u->r.sim) / 1e9);
    assert_true(ok);
    assert_int_equal(u->completed, u->target);
    assert_int_equal(u->mismatches, 0);
    assert_int_equal(u->errors, 0);
    assert_int_equal(u->double_done, 0);
    assert_null(u->r.violation);
    assert_null(pcam_bus_check_invariants(&u->r.bus));
    for (uint8_t d = 0; d < DISKS; d++) {
        assert_memory_equal(u->r.stores[d][0], u->ref[d], BLOCKS * 512u);
#if PCAM_CFG_COUNTERS /* also built against the minimal core (tests/config) */
        pcam_counters c;
        assert_int_equal(pcam_bus_get_counters(&u->r.bus, d, &c), PCAM_OK);
        assert_true(c.disconnects > 0); /* the targets really disconnected */
#endif
        pcam_sim_target_stats ts;
        pcam_sim_target_stats_get(u->r.sim, d, &ts);
        assert_true(ts.simple > 0);     /* and really ran tagged */
    }
    for (uint8_t d = 0; d < DISKS; d++) {
        for (unsigned i = 0; i < DEPTH; i++) {
            assert_int_equal(u->slots[d][i].rc.done_count, 1);
            free(u->slots[d][i].buf);
        }
        free(u->ref[d]);
    }
    simrig_fini(&u->r);
    free(u);
}

static void integrity_interrupt(void **state)
{
    (void)state;
    integrity(false);
}

static void integrity_polled(void **state)
{
    (void)state;
    integrity(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrity_interrupt),
        cmocka_unit_test(integrity_polled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
