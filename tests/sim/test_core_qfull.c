/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 4: QUEUE FULL (TASK SET FULL, status 28h). A disk whose task set
 * holds at most 5 tasks per LU, under a load that keeps 32 tagged commands
 * outstanding:
 *
 *  phase 1 (limit 5): the core's depth drops to 5 at the first TASK SET FULL
 *      and stays there, probing one deeper after every
 *      cfg.qfull_ramp_successes successes and coming straight back to 5;
 *      no command fails, no retry is spent (QUEUE FULL requeues), the
 *      target never holds more than 5 tasks;
 *  phase 2 (limit lifted): no more TASK SET FULL, and the depth climbs by
 *      one per cfg.qfull_ramp_successes successes, exactly.
 *
 * Every read is compared with the test's reference copy of the medium and
 * the medium must equal it at the end. Run in interrupt and polled mode.
 *
 * The expected depth comes from a model the test keeps itself (docs/design.md's
 * rule: QUEUE FULL lowers the depth to what the target held, requeues
 * without spending a retry, keeps a floor, ramps back up by one after
 * qfull_ramp_successes successes; pcam.h documents the settings). The model
 * sees a QUEUE FULL through the core's queue_fulls counter, read in every
 * completion callback, and each one must set the depth to 5: with commands
 * issued one selection at a time, the target held exactly 5 tasks whenever
 * it refused one (SAM-2: TASK SET FULL when the task set is at its limit).
 *
 * Under Valgrind (PCAM_UNDER_MEMCHECK set) both phases are shortened.
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

#define DEPTH 32
#define BLOCKS 4096u /* 2 MiB */
#define MAX_BLOCKS 32u
#define LIMIT 5
#define RAMP 16 /* cfg.qfull_ramp_successes, lowered from 128 to keep the run short */

typedef struct run run;

typedef struct slot {
    rig_ccb rc;
    run *u;
    bool write;
    uint64_t lba;
    uint32_t blocks;
    uint8_t *buf;
} slot;

struct run {
    simrig r;
    uint8_t *ref;
    uint8_t busy[BLOCKS];
    slot slots[DEPTH];
    uint64_t rng;
    uint64_t submitted, completed, phase1_target, target;
    uint64_t mismatches, errors, double_done;
    /* The depth model. */
    bool model_on;            /* from the first QUEUE FULL on */
    uint32_t last_qf;         /* core queue_fulls at the last callback */
    unsigned m_depth, m_ramp;
    uint64_t model_errors;    /* callbacks where the core's depth != the model's */
    uint64_t rampups[3];      /* per phase */
    uint64_t out_of_band;     /* phase 1, after the first QUEUE FULL: depth not 5 or 6 */
    /* Phases. */
    int phase;                /* 1 limited, 2 lifted */
    uint64_t qf_phase[3];     /* QUEUE FULLs seen per phase */
    uint64_t switch_completed;
    unsigned switch_depth, switch_ramp;
    pcam_sim_target_stats switch_stats;
    uint64_t successes2;
    /* Event ring. */
    uint64_t qf_events, qf_event_bad;
};

static uint32_t rnd(run *u, uint32_t n)
{
    u->rng ^= u->rng << 13;
    u->rng ^= u->rng >> 7;
    u->rng ^= u->rng << 17;
    return (uint32_t)(u->rng % n);
}

static void issue(run *u, slot *s);

/* The ramp as pcam.h describes it: +1 per RAMP successes, back to 0 on a
 * failure or a QUEUE FULL; a QUEUE FULL sets the depth to what the target
 * held (LIMIT here). */
static void model(run *u, bool good)
{
    pcam_counters c;
    assert_int_equal(pcam_bus_get_counters(&u->r.bus, 0, &c), PCAM_OK);
    if (c.queue_fulls != u->last_qf) {
        u->qf_phase[u->phase] += c.queue_fulls - u->last_qf;
        u->last_qf = c.queue_fulls;
        u->model_on = true;
        u->m_depth = LIMIT;
        u->m_ramp = 0;
    }
    if (!u->model_on)
        return;
    if (good) {
        u->m_ramp++;
        if (u->m_ramp >= RAMP) {
            u->m_depth++;
            u->m_ramp = 0;
            u->rampups[u->phase]++;
        }
    } else {
        u->m_ramp = 0;
    }
    unsigned d = pcam_lun_depth(&u->r.bus, 0, 0);
    if (d != u->m_depth) {
        if (u->model_errors == 0)
            fprintf(stderr, "depth %u, model says %u (phase %d, completion %llu)\n", d, u->m_depth,
                    u->phase, (unsigned long long)u->completed);
        u->model_errors++;
    }
    if (u->phase == 1 && d != LIMIT && d != LIMIT + 1)
        u->out_of_band++;
}

static void slot_done(rig_ccb *rc)
{
    slot *s = (slot *)rc;
    run *u = s->u;
    uint32_t bytes = s->blocks * 512u;
    bool good = rc->ccb.status == PCAM_REQ_CMP;
    if (rc->done_count != 1)
        u->double_done++;
    if (!good) {
        u->errors++;
        fprintf(stderr, "command failed: lba %llu status %s (0x%x)\n", (unsigned long long)s->lba,
                pcam_status_name(rc->ccb.status), rc->ccb.status);
    } else if (s->write) {
        memcpy(u->ref + s->lba * 512u, s->buf, bytes);
    } else if (memcmp(u->ref + s->lba * 512u, s->buf, bytes) != 0) {
        u->mismatches++;
    }
    memset(&u->busy[s->lba], 0, s->blocks);
    u->completed++;
    uint64_t qf_before = u->qf_phase[1];
    model(u, good);
    if (u->phase == 2 && good)
        u->successes2++;
    /* Lift the limit right after a QUEUE FULL brought the depth back to 5
     * (this completion is the first one since), once phase 1 has run long
     * enough: the depth is then known to be 5 and the ramp at 1. */
    if (u->phase == 1 && u->completed >= u->phase1_target && u->qf_phase[1] != qf_before) {
        u->phase = 2;
        u->switch_completed = u->completed;
        u->switch_depth = pcam_lun_depth(&u->r.bus, 0, 0);
        u->switch_ramp = u->m_ramp;
        pcam_sim_target_stats_get(u->r.sim, 0, &u->switch_stats);
        pcam_sim_target_cfg(u->r.sim, 0)->task_set_limit = 0; /* 0 = the model's 256 */
    }
    if (u->submitted < u->target)
        issue(u, s);
}

static void issue(run *u, slot *s)
{
    uint8_t cdb[16];
    int len;
    uint64_t lba;
    uint32_t blocks;
    for (;;) {
        blocks = 1 + rnd(u, MAX_BLOCKS);
        lba = rnd(u, BLOCKS - blocks + 1);
        bool clash = false;
        for (uint32_t i = 0; i < blocks && !clash; i++)
            clash = u->busy[lba + i] != 0;
        if (!clash)
            break;
    }
    memset(&u->busy[lba], 1, blocks);
    s->write = rnd(u, 2) == 0;
    s->lba = lba;
    s->blocks = blocks;
    if (s->write) {
        for (uint32_t i = 0; i < blocks * 512u; i++)
            s->buf[i] = (uint8_t)rnd(u, 256);
        len = pcam_cdb_write(cdb, sizeof cdb, 10, lba, blocks, 0);
    } else {
        memset(s->buf, 0xEE, blocks * 512u);
        len = pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    }
    assert_int_equal(len, 10);
    rig_ccb_io(&s->rc, 0, 0, cdb, (uint8_t)len, s->write ? PCAM_DIR_OUT : PCAM_DIR_IN, s->buf,
               blocks * 512u);
    s->rc.ccb.flags = PCAM_CCB_TAGGED;
    s->rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    s->rc.test = u;
    s->rc.on_done = slot_done;
    u->submitted++;
    rig_submit(&u->r, &s->rc);
}

static void drain_events(run *u)
{
    pcam_event ev[16];
    size_t n;
    while ((n = pcam_bus_read_events(&u->r.bus, ev, 16)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (ev[i].code != PCAM_EV_QUEUE_FULL)
                continue;
            u->qf_events++;
            if (ev[i].arg != LIMIT || ev[i].target != 0 || ev[i].lun != 0)
                u->qf_event_bad++;
        }
    }
}

static void qfull(bool polled)
{
    run *u = calloc(1, sizeof *u);
    assert_non_null(u);
    bool memcheck = getenv("PCAM_UNDER_MEMCHECK") != NULL;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.seed = 0x0F11;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.qfull_ramp_successes = RAMP;
    /* The starting depth is the default 32; the ceiling (default 64) stays
     * out of reach of phase 2 so every ramp step shows. */
    assert_int_equal(bc.tag_depth, 32);
    assert_true(bc.tag_depth_max >= 64);
    assert_true(bc.tag_depth_floor < LIMIT);
    assert_int_equal(simrig_init(&u->r, &sc, &bc, polled), 0);
    u->r.check_every = 3;
    u->rng = 0xB7E151628AED2A6Bull;
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.task_set_limit = LIMIT;
    uint8_t *m = simrig_add_disk(&u->r, 0, 0, BLOCKS, &tc);
    assert_non_null(m);
    u->ref = malloc(BLOCKS * 512u);
    assert_non_null(u->ref);
    memcpy(u->ref, m, BLOCKS * 512u);

    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&u->r, &rc, RIG_S(30)), PCAM_REQ_CMP);
    /* TEST UNIT READY takes the power-on UNIT ATTENTION (INQUIRY does not
     * report it), so its retry is not counted against the run. */
    static const uint8_t tur[6] = {0x00, 0, 0, 0, 0, 0};
    rig_ccb_io(&rc, 0, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    assert_int_equal(rig_sync(&u->r, &rc, RIG_S(5)), PCAM_REQ_CMP);
    assert_int_equal(pcam_lun_depth(&u->r.bus, 0, 0), 32);
    u->qf_events = 0; /* the scan's events are not part of the run */
    drain_events(u);
    u->qf_events = 0;
    pcam_counters c0, c1;
    pcam_sim_target_stats t0, t1;
    assert_int_equal(pcam_bus_get_counters(&u->r.bus, 0, &c0), PCAM_OK);
    pcam_sim_target_stats_get(u->r.sim, 0, &t0);
    u->last_qf = c0.queue_fulls;
    assert_int_equal(c0.queue_fulls, 0);

    uint64_t phase2 = memcheck ? 48 : 400;
    u->phase1_target = memcheck ? 60 : 2000;
    u->target = u->phase1_target + phase2;
    u->phase = 1;
    for (unsigned i = 0; i < DEPTH; i++) {
        u->slots[i].u = u;
        u->slots[i].buf = malloc(MAX_BLOCKS * 512u);
        assert_non_null(u->slots[i].buf);
    }
    for (unsigned i = 0; i < DEPTH; i++)
        issue(u, &u->slots[i]);
    /* The run takes about 27 s of simulated time (5 s under Valgrind) and
     * some tens of steps per command; the bounds stop a core that loops on
     * QUEUE FULL, or spins, soon rather than after an hour. */
    while (u->completed < u->submitted || u->submitted < u->target) {
        if (pcam_sim_now(u->r.sim) > RIG_S(120) || u->qf_events > u->target ||
            u->r.steps > 1000u * u->target + 100000u || !simrig_step(&u->r))
            break;
        drain_events(u);
    }
    drain_events(u);
    assert_int_equal(pcam_bus_get_counters(&u->r.bus, 0, &c1), PCAM_OK);
    pcam_sim_target_stats_get(u->r.sim, 0, &t1);
    unsigned depth = pcam_lun_depth(&u->r.bus, 0, 0);
    fprintf(stderr,
            "qfull (%s): %llu commands; phase 1: %llu QUEUE FULL, %llu ramp-ups, max tasks %u, "
            "depth %u at the switch; phase 2: %llu successes, %llu ramp-ups, depth %u, max tasks "
            "%u; retries %u, requeues %u; sim time %.3f s\n",
            polled ? "polled" : "interrupt", (unsigned long long)u->completed,
            (unsigned long long)u->qf_phase[1], (unsigned long long)u->rampups[1],
            u->switch_stats.max_tasks, u->switch_depth, (unsigned long long)u->successes2,
            (unsigned long long)u->rampups[2], depth, t1.max_tasks, c1.retries - c0.retries,
            c1.requeues - c0.requeues, (double)pcam_sim_now(u->r.sim) / 1e9);

    /* Every command completed once, without error, and the data verifies. */
    assert_int_equal(u->completed, u->target);
    assert_int_equal(u->errors, 0);
    assert_int_equal(u->mismatches, 0);
    assert_int_equal(u->double_done, 0);
    assert_null(u->r.violation);
    assert_null(pcam_bus_check_invariants(&u->r.bus));
    assert_memory_equal(u->r.stores[0][0], u->ref, BLOCKS * 512u);
    for (unsigned i = 0; i < DEPTH; i++)
        assert_int_equal(u->slots[i].rc.done_count, 1);

    /* Phase 1. */
    assert_int_equal(u->phase, 2);
    assert_int_equal(u->switch_depth, LIMIT);
    assert_int_equal(u->switch_ramp, 1);
    assert_true(u->qf_phase[1] > 0);
    /* The first QUEUE FULL, then one per ramp-up probe; never a second one
     * for the same probe (which would mean the depth was not lowered). */
    assert_int_equal(u->qf_phase[1], 1 + u->rampups[1]);
    assert_true(u->rampups[1] > 0);
    assert_int_equal(u->out_of_band, 0);
    assert_int_equal(u->switch_stats.task_set_full - t0.task_set_full, u->qf_phase[1]);
    assert_int_equal(u->switch_stats.max_tasks, LIMIT);
    /* Phase 2: no QUEUE FULL, and the depth rose by one per RAMP successes
     * from where the ramp stood at the switch. */
    assert_int_equal(u->qf_phase[2], 0);
    assert_int_equal(u->successes2, u->target - u->switch_completed);
    assert_int_equal(depth, LIMIT + (u->switch_ramp + u->successes2) / RAMP);
    assert_true(depth > LIMIT);
    assert_true(t1.max_tasks > LIMIT);
    assert_int_equal(t1.task_set_full, u->switch_stats.task_set_full);
    /* The model agreed with the core at every completion since the first
     * QUEUE FULL, and every QUEUE FULL event named depth 5. */
    assert_int_equal(u->model_errors, 0);
    assert_int_equal(u->qf_events, u->qf_phase[1]);
    assert_int_equal(u->qf_event_bad, 0);
    /* The core's counters: every TASK SET FULL seen as a QUEUE FULL, each
     * requeued once, and no retry spent on any of them. */
    assert_int_equal(c1.queue_fulls - c0.queue_fulls, u->qf_phase[1]);
    assert_int_equal(c1.queue_fulls - c0.queue_fulls, t1.task_set_full - t0.task_set_full);
    assert_int_equal(c1.retries - c0.retries, 0);
    assert_int_equal(c1.requeues - c0.requeues, c1.queue_fulls - c0.queue_fulls);
    assert_int_equal(c1.errors - c0.errors, 0);
    assert_int_equal(c1.commands - c0.commands, u->target);

    for (unsigned i = 0; i < DEPTH; i++)
        free(u->slots[i].buf);
    free(u->ref);
    simrig_fini(&u->r);
    free(u);
}

static void qfull_interrupt(void **state)
{
    (void)state;
    qfull(false);
}

static void qfull_polled(void **state)
{
    (void)state;
    qfull(true);
}

/*
 * A target whose task set holds fewer tasks than cfg.tag_depth_floor (here 1
 * against the default floor of 2). Expected: both commands complete, and
 * QUEUE FULL costs at most a few reselection-free round trips, because a
 * refused command is not sent again before the target has had a chance to
 * finish what it holds.
 *
 * This was a livelock before the fix: the depth went to max(held, floor)
 * = 2, the refused command was re-issued at once with 1 active, the target
 * answered TASK SET FULL again, and the initiator (ID 7) won every
 * arbitration so the target (ID 0) never reselected to finish its task. The
 * core now holds the LUN for busy_delay_ms when the floor keeps the depth
 * above what the target holds.
 */
static void qfull_limit_below_floor(void **state)
{
    (void)state;
    simrig r;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    assert_int_equal(bc.tag_depth_floor, 2);
    assert_int_equal(simrig_init(&r, NULL, &bc, false), 0);
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.task_set_limit = 1;
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    uint8_t *m = simrig_add_disk(&r, 0, 0, 1024, &tc);
    assert_non_null(m);
    rig_ccb rc[2];
    memset(rc, 0, sizeof rc);
    rc[0].ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &rc[0], RIG_S(30)), PCAM_REQ_CMP);
    static uint8_t buf[2][512];
    for (unsigned i = 0; i < 2; i++) {
        uint8_t cdb[10];
        assert_int_equal(pcam_cdb_read(cdb, sizeof cdb, 10, 100u + i * 500u, 1, 0), 10);
        rig_ccb_io(&rc[i], 0, 0, cdb, 10, PCAM_DIR_IN, buf[i], 512);
        rc[i].ccb.flags = PCAM_CCB_TAGGED;
        rc[i].ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
        rig_submit(&r, &rc[i]);
    }
    /* Each read takes a few ms of mechanism time: 200 ms is plenty. */
    uint64_t until = pcam_sim_now(r.sim) + RIG_MS(200);
    while ((rc[0].done_count == 0 || rc[1].done_count == 0) && pcam_sim_now(r.sim) < until)
        simrig_step(&r);
    pcam_counters c;
    assert_int_equal(pcam_bus_get_counters(&r.bus, 0, &c), PCAM_OK);
    assert_int_equal(rc[0].done_count, 1);
    assert_int_equal(rc[1].done_count, 1);
    assert_int_equal(rc[0].ccb.status, PCAM_REQ_CMP);
    assert_int_equal(rc[1].ccb.status, PCAM_REQ_CMP);
    assert_memory_equal(buf[0], m + 100u * 512u, 512);
    assert_memory_equal(buf[1], m + 600u * 512u, 512);
    assert_true(c.queue_fulls >= 1 && c.queue_fulls <= 4);
    assert_int_equal(c.retries, 0);
    assert_null(r.violation);
    simrig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qfull_interrupt),
        cmocka_unit_test(qfull_polled),
        cmocka_unit_test(qfull_limit_below_floor),
    };
    /* PCAM_TEST_FILTER=qfull_polled runs one scenario while diagnosing. */
    if (getenv("PCAM_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("PCAM_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
