/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 2: integrity. Random reads and writes (6/10/16-byte CDBs, 1-64
 * blocks, flat buffers and 1-3 element scatter-gather lists) on 4 disks at
 * queue depth 32 each: the workload of tests/support/iowork.h, which the
 * command-level and chip-model tests run too. Every read is compared with the test's own reference
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

#include "iowork.h"
#include "simrig.h"

#define DISKS 4
#define DEPTH 32
#define BLOCKS 8192u /* 4 MiB per disk */

typedef struct run {
    simrig r;
    iowork w;
    rig_ccb rc[DISKS * DEPTH];
} run;

static void slot_done(rig_ccb *rc)
{
    iowork_done(rc->test);
}

static void submit(void *rig, iowork_slot *s)
{
    rig_submit(rig, (rig_ccb *)s->ccb);
}

static void integrity(bool polled)
{
    run *u = calloc(1, sizeof *u);
    uint8_t *media[DISKS];
    assert_non_null(u);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.seed = 0x5EED;
    assert_int_equal(simrig_init(&u->r, &sc, NULL, polled), 0);
    u->r.check_every = 97;
    for (uint8_t d = 0; d < DISKS; d++) {
        media[d] = simrig_add_disk(&u->r, d, 0, BLOCKS, NULL);
        assert_non_null(media[d]);
    }
    iowork_cfg wc = {.name = polled ? "integrity(polled)" : "integrity(interrupt)",
                     .disks = DISKS, .depth = DEPTH, .blocks = BLOCKS, .max_blocks = 64,
                     .cdb_sizes = IOWORK_CDB6 | IOWORK_CDB10 | IOWORK_CDB16,
                     .commands = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 4000 : 100000,
                     .rig = &u->r, .submit = submit};
    assert_true(iowork_init(&u->w, &wc, media));
    IOWORK_BIND(&u->w, u->rc, slot_done);
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&u->r, &scan, RIG_S(30)), PCAM_REQ_CMP);

    iowork_start(&u->w);
    bool ok = simrig_run_until_count(&u->r, &u->w.completed, wc.commands, RIG_S(3600));
    fprintf(stderr, "%s: sim time %.3f s\n", wc.name, (double)pcam_sim_now(u->r.sim) / 1e9);
    assert_true(ok);
    assert_true(iowork_verify(&u->w, media));
    assert_null(u->r.violation);
    assert_null(pcam_bus_check_invariants(&u->r.bus));
    for (uint8_t d = 0; d < DISKS; d++) {
#if PCAM_CFG_COUNTERS /* also built against the minimal core (tests/config) */
        pcam_counters c;
        assert_int_equal(pcam_bus_get_counters(&u->r.bus, d, &c), PCAM_OK);
        assert_true(c.disconnects > 0); /* the targets really disconnected */
#endif
        pcam_sim_target_stats ts;
        pcam_sim_target_stats_get(u->r.sim, d, &ts);
        assert_true(ts.simple > 0);     /* and really ran tagged */
    }
    iowork_fini(&u->w);
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
