/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 5: BYTE's 1995 failure. Four disks at IDs 0-3 on a Fast-10
 * narrow bus, each able to stream far faster than a quarter of the bus (short
 * seeks, 25 MB/s media), so the bus is the bottleneck; queue depth 32 each,
 * mixed 4-32 KiB random reads; the targets reorder by seek and reselection
 * arbitration always favours the higher ID.
 *  - aging off: the ID-0 disk starves (its share of completions collapses);
 *    this proves the scenario has teeth;
 *  - defaults: over 60 s of simulated time the smallest per-disk share is at
 *    least 0.8 of the largest and no command waits longer than a quarter of
 *    its timeout.
 * Under Valgrind (PCAM_UNDER_MEMCHECK) the same workload runs for 3 s and
 * only exactly-once completion and the invariants are checked: the shares
 * need the full minute to settle.
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
#define DISK_BLOCKS (64u * 2048u) /* 64 MiB */

typedef struct job {
    rig_ccb rc;
    struct starve *s;
    uint8_t disk;
    uint8_t buf[32768];
} job;

typedef struct starve {
    simrig r;
    job jobs[DISKS][DEPTH];
    uint64_t rng;
    uint64_t done[DISKS];
    uint64_t worst_ns[DISKS];
    uint64_t errors, timeouts, twice;
    bool stop;
} starve;

static uint64_t rnd(starve *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

static void submit(starve *s, job *j);

static void job_done(rig_ccb *rc)
{
    job *j = (job *)rc;
    starve *s = j->s;
    uint64_t wait = pcam_sim_now(s->r.sim) - rc->submit_ns;
    if (rc->done_count != 1)
        s->twice++;
    if (s->stop)
        return;
    if ((rc->ccb.status & PCAM_STATUS_MASK) == PCAM_CMD_TIMEOUT)
        s->timeouts++;
    else if (rc->ccb.status != PCAM_REQ_CMP)
        s->errors++;
    s->done[j->disk]++;
    if (wait > s->worst_ns[j->disk])
        s->worst_ns[j->disk] = wait;
    submit(s, j);
}

static void submit(starve *s, job *j)
{
    uint8_t cdb[16];
    uint32_t blocks = 8u << (rnd(s) % 4u); /* 4, 8, 16 or 32 KiB */
    uint64_t lba = rnd(s) % (DISK_BLOCKS - blocks);
    int len = pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    rig_ccb_io(&j->rc, j->disk, 0, cdb, (uint8_t)len, PCAM_DIR_IN, j->buf, blocks * 512u);
    j->rc.ccb.flags = PCAM_CCB_TAGGED;
    j->rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    j->rc.on_done = job_done;
    rig_submit(&s->r, &j->rc);
}

/* Returns the smallest/largest share ratio; worst wait in *worst_ns. */
static double run(bool aging, uint64_t seconds, uint64_t *worst_ns, uint64_t *done0, uint64_t *total,
                  uint64_t *timeouts)
{
    starve *s = calloc(1, sizeof *s);
    assert_non_null(s);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    sc.seed = 1995;
    sc.cap_min_period = 0x19; /* Fast-10: 100 ns */
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.aging_enabled = aging;
    assert_int_equal(simrig_init(&s->r, &sc, &bc, false), 0);
    s->r.check_every = 1009;
    s->rng = 0x1995;
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.min_period = 0x19;
    tc.wide = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    tc.ua_power_on = false;
    for (uint8_t d = 0; d < DISKS; d++) {
        assert_non_null(simrig_add_disk(&s->r, d, 0, DISK_BLOCKS, &tc));
        pcam_simlu_timing *tm = &pcam_sim_lu(s->r.sim, d, 0)->timing;
        tm->overhead_ns = 100000;
        tm->seek_min_ns = 200000;
        tm->seek_max_ns = 2000000;
        tm->rotation_ns = 2000000;
        tm->media_kbps = 25000;
    }
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&s->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    for (uint8_t d = 0; d < DISKS; d++)
        for (unsigned i = 0; i < DEPTH; i++) {
            s->jobs[d][i].s = s;
            s->jobs[d][i].disk = d;
            submit(s, &s->jobs[d][i]);
        }
    /* One second to settle (negotiation, queues filling), then measure. */
    uint64_t t0 = pcam_sim_now(s->r.sim) + RIG_S(1);
    while (pcam_sim_now(s->r.sim) < t0 && simrig_step(&s->r))
        ;
    memset(s->done, 0, sizeof s->done);
    memset(s->worst_ns, 0, sizeof s->worst_ns);
    uint64_t end = t0 + RIG_S(seconds);
    while (pcam_sim_now(s->r.sim) < end && simrig_step(&s->r))
        ;
    uint64_t lo = UINT64_MAX, hi = 0, worst = 0, sum = 0;
    for (uint8_t d = 0; d < DISKS; d++) {
        lo = s->done[d] < lo ? s->done[d] : lo;
        hi = s->done[d] > hi ? s->done[d] : hi;
        worst = s->worst_ns[d] > worst ? s->worst_ns[d] : worst;
        sum += s->done[d];
    }
    fprintf(stderr, "aging %s: completions %llu %llu %llu %llu, worst wait %.3f s, %llu timeouts\n",
            aging ? "on " : "off", (unsigned long long)s->done[0], (unsigned long long)s->done[1],
            (unsigned long long)s->done[2], (unsigned long long)s->done[3], (double)worst / 1e9,
            (unsigned long long)s->timeouts);
    assert_int_equal(s->errors, 0);
    assert_null(s->r.violation);
    s->stop = true;
    simrig_fini(&s->r); /* aborts what is in flight: each still completes once */
    for (uint8_t d = 0; d < DISKS; d++)
        for (unsigned i = 0; i < DEPTH; i++)
            assert_int_equal(s->jobs[d][i].rc.done_count, 1);
    assert_int_equal(s->twice, 0);
    *worst_ns = worst;
    *timeouts = s->timeouts;
    *done0 = s->done[0];
    *total = sum;
    free(s);
    return hi ? (double)lo / (double)hi : 0.0;
}

static bool memcheck(void)
{
    return getenv("PCAM_UNDER_MEMCHECK") != NULL;
}

static void without_aging_id0_starves(void **state)
{
    (void)state;
    uint64_t worst, d0, total, timeouts;
    pcam_bus_config def;
    pcam_bus_config_defaults(&def);
    double ratio = run(false, memcheck() ? 3 : 60, &worst, &d0, &total, &timeouts);
    if (memcheck())
        return;
    /* ID 0 loses nearly every arbitration it contends in: it gets well under
     * a twentieth of a fair quarter, and its commands outwait their timeout. */
    assert_true(ratio < 0.2);
    assert_true(d0 * 80u < total);
    assert_true(worst > RIG_MS(def.default_timeout_ms));
    assert_true(timeouts > 0);
}

static void with_defaults_shares_are_fair(void **state)
{
    (void)state;
    uint64_t worst, d0, total, timeouts;
    pcam_bus_config def;
    pcam_bus_config_defaults(&def);
    double ratio = run(true, memcheck() ? 3 : 60, &worst, &d0, &total, &timeouts);
    if (memcheck())
        return;
    assert_int_equal(timeouts, 0);
    assert_true(ratio >= 0.8);
    assert_true(worst <= RIG_MS(def.default_timeout_ms) / 4u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_aging_id0_starves),
        cmocka_unit_test(with_defaults_shares_are_fair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
