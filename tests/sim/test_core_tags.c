/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 3: tagged queuing. Four checks, each against something the core
 * does not compute itself (the targets' task sets as the simulated bus
 * records them, the test's own reference copy of the media, and the order in
 * which the test's CCBs complete):
 *
 *  (a) sustained tagged load: three LUNs (two on one target) at queue depth
 *      32, thousands of random reads and writes with disconnects, the core's
 *      invariants checked after every step, and every (target, LUN, tag) the
 *      targets hold tracked from the bus trace: a tag must never be handed
 *      out while the target still holds a task with it;
 *  (b) untagged beside tagged: N tagged, one untagged, N tagged to one LUN
 *      complete in that order (the untagged one waits for the tagged ones to
 *      drain and holds the later ones back); and under a sustained tagged
 *      stream an untagged command still completes, before every tagged one
 *      submitted after it;
 *  (c) ORDERED is a barrier (everything before it completes first,
 *      everything after it later), and HEAD OF QUEUE overtakes both the
 *      core's pending queue and the target's task set;
 *  (d) a target that rejects tag messages gets untagged commands and a
 *      random read/write run on it still verifies; so does a target whose
 *      user limits (PCAM_FN_SET_TRAN, as a card's NVRAM sets them) allow
 *      neither tags nor disconnection, and it is never offered either.
 *
 * Where an expectation comes from: SAM-2 task attributes (an untagged task
 * is alone in the task set of its LU, an ORDERED task is a barrier, a HEAD
 * OF QUEUE task goes first) and SPI-2 (a MESSAGE REJECT of a queue tag
 * message means the target does not do tagged queuing). The simulated
 * target's task set model is in hal/sim/sim_task.c.
 *
 * Under Valgrind (PCAM_UNDER_MEMCHECK set) the long runs are shortened.
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
#define BLOCKS 4096u /* 2 MiB per disk */
#define MAX_BLOCKS 32u
#define MAX_DISKS 3

static bool under_memcheck(void)
{
    return getenv("PCAM_UNDER_MEMCHECK") != NULL;
}

/* ------------------------------------------------------------------ */
/* The targets' task sets, rebuilt from the trace ring's task notes. A task
 * is "live" from the moment the target queues it for its mechanism until
 * it leaves the set (COMMAND COMPLETE, abort, dropped). */

#define NOTE_LOG 256

typedef struct note {
    uint8_t target, lun, tag, type; /* type: tag message, 0 untagged */
    uint8_t what;                   /* a pcam_sim_task_note */
} note;

typedef struct tracker {
    uint8_t live[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS][256];
    unsigned live_tagged[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
    bool live_untagged[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
    unsigned max_live[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
    uint64_t dup_tags;      /* a tag queued while a live task held it */
    uint64_t mixed;         /* untagged beside any other task on one LU */
    uint64_t queued_tagged, queued_untagged;
    uint64_t trace_lost;    /* ring entries overwritten before we read them */
    note log[NOTE_LOG];     /* QUEUED/START/DONE notes, in order, while logging */
    unsigned nlog;
    bool logging;
} tracker;

static void track_entry(tracker *k, const pcam_sim_trace_entry *e)
{
    if (e->kind != PCAM_SIM_TR_TASK || e->target >= PCAM_SIM_MAX_IDS || e->lun >= PCAM_SIM_LUNS)
        return;
    uint8_t t = e->target, l = e->lun, tag = e->byte;
    uint8_t type = e->tag_type; /* the tag message, 0 when untagged */
    if (k->logging && k->nlog < NOTE_LOG &&
        (e->value == PCAM_SIM_TN_QUEUED || e->value == PCAM_SIM_TN_START ||
         e->value == PCAM_SIM_TN_DONE)) {
        note n = {t, l, tag, type, (uint8_t)e->value};
        k->log[k->nlog++] = n;
    }
    switch (e->value) {
    case PCAM_SIM_TN_QUEUED:
        if (type != 0) {
            k->queued_tagged++;
            if (k->live[t][l][tag] != 0)
                k->dup_tags++;
            else
                k->live_tagged[t][l]++;
            k->live[t][l][tag] = 1;
            if (k->live_untagged[t][l])
                k->mixed++;
        } else {
            k->queued_untagged++;
            if (k->live_untagged[t][l] || k->live_tagged[t][l] != 0)
                k->mixed++;
            k->live_untagged[t][l] = true;
        }
        {
            unsigned n = k->live_tagged[t][l] + (k->live_untagged[t][l] ? 1u : 0u);
            if (n > k->max_live[t][l])
                k->max_live[t][l] = n;
        }
        break;
    case PCAM_SIM_TN_DONE:
    case PCAM_SIM_TN_ABORTED:
    case PCAM_SIM_TN_DROPPED:
        /* Commands that never reached the mechanism (INQUIRY, TASK SET
         * FULL) leave without having been queued: nothing to drop. */
        if (type != 0) {
            if (k->live[t][l][tag] != 0) {
                k->live[t][l][tag] = 0;
                k->live_tagged[t][l]--;
            }
        } else {
            k->live_untagged[t][l] = false;
        }
        break;
    default:
        break;
    }
}

static void track_drain(tracker *k, pcam_sim *sim)
{
    size_t n = pcam_sim_trace_count(sim);
    k->trace_lost += pcam_sim_trace_dropped(sim);
    for (size_t i = 0; i < n; i++) {
        pcam_sim_trace_entry e;
        if (pcam_sim_trace_get(sim, i, &e))
            track_entry(k, &e);
    }
    pcam_sim_trace_clear(sim);
}

/* ------------------------------------------------------------------ */
/* A bus with disks, a tracker, and a record of the order CCBs complete in. */

typedef struct disk {
    uint8_t t, l;
    uint8_t *ref;             /* the test's copy of the medium */
    uint8_t busy[BLOCKS];     /* blocks covered by a command in flight */
} disk;

typedef struct world world;

typedef struct slot {
    rig_ccb rc;
    world *w;
    disk *d;
    bool write;
    uint64_t lba;
    uint32_t blocks;
    uint8_t *buf;
    uint64_t serial;          /* submission number */
    bool open;                /* submitted and not completed */
    unsigned id;              /* the test's name for it (ordering tests) */
} slot;

struct world {
    simrig r;
    tracker k;
    disk disks[MAX_DISKS];
    unsigned ndisks;
    uint64_t rng;
    uint64_t submitted, completed, target;
    uint64_t mismatches, errors, double_done;
    bool refill;              /* completion of a workload slot issues the next command */
    unsigned order[NOTE_LOG]; /* ids in completion order (ordering tests) */
    unsigned norder;
    /* Untagged injection into a tagged stream (test b, sustained). */
    uint64_t untagged_every;  /* inject one after this many completions; 0 = never */
    slot *inject;             /* the untagged slot, NULL when idle */
    uint64_t inj_serial;      /* its submission number */
    uint64_t inj_done, inj_early, inj_late, inj_passed, inj_max_passed;
    uint64_t inj_max_ns;
    slot inj;                 /* storage for the injected command */
    slot *stream;             /* the tagged stream's slots */
    unsigned nstream;
    pcam_sim_target_stats ts0[PCAM_SIM_MAX_IDS]; /* targets' stats after warm_up */
    pcam_counters c0[PCAM_SIM_MAX_IDS];          /* core's counters after warm_up */
};

static uint32_t rnd(world *w, uint32_t n)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return (uint32_t)(w->rng % n);
}

static void step(world *w)
{
    (void)simrig_step(&w->r);
    track_drain(&w->k, w->r.sim);
}

/* Step until *count reaches want. Bounded by simulated time and by steps
 * (a normal run takes some tens of steps per command): a core that spins
 * without letting simulated time move fails here quickly instead of running
 * for an hour of simulated time. */
static bool run_count(world *w, const uint64_t *count, uint64_t want, uint64_t limit_ns)
{
    uint64_t until = pcam_sim_now(w->r.sim) + limit_ns;
    uint64_t max_steps = w->r.steps + 1000u * (want - *count) + 100000u;
    while (*count < want && pcam_sim_now(w->r.sim) <= until && w->r.steps < max_steps)
        step(w);
    if (*count < want)
        fprintf(stderr, "run stopped at %llu of %llu (sim time %.3f s, %llu steps)\n",
                (unsigned long long)*count, (unsigned long long)want,
                (double)pcam_sim_now(w->r.sim) / 1e9, (unsigned long long)w->r.steps);
    return *count >= want;
}

/* A TEST UNIT READY per disk, as an OS does after a scan: it takes the
 * power-on UNIT ATTENTION (INQUIRY does not report it), so that the checks
 * below see only the test's own commands. Then snapshot the counters. */
static void warm_up(world *w)
{
    for (unsigned i = 0; i < w->ndisks; i++) {
        static const uint8_t tur[6] = {0x00, 0, 0, 0, 0, 0};
        rig_ccb rc;
        memset(&rc, 0, sizeof rc);
        rig_ccb_io(&rc, w->disks[i].t, w->disks[i].l, tur, 6, PCAM_DIR_NONE, NULL, 0);
        assert_int_equal(rig_sync(&w->r, &rc, RIG_S(5)), PCAM_REQ_CMP);
    }
    pcam_sim_trace_clear(w->r.sim);
    assert_null(w->r.violation);
    for (uint8_t t = 0; t < PCAM_SIM_MAX_IDS; t++) {
        pcam_sim_target_stats_get(w->r.sim, t, &w->ts0[t]);
        (void)pcam_bus_get_counters(&w->r.bus, t, &w->c0[t]);
    }
}

/* tcs: one target configuration per disk, or NULL for the defaults. */
static void world_init(world *w, bool polled, const pcam_bus_config *bc,
                       const pcam_sim_target_config *tcs, const uint8_t (*paths)[2], unsigned n)
{
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.seed = 0x7A65;
    assert_int_equal(simrig_init(&w->r, &sc, bc, polled), 0);
    w->r.check_every = 1;
    w->rng = 0x243F6A8885A308D3ull;
    w->ndisks = n;
    for (unsigned i = 0; i < n; i++) {
        disk *d = &w->disks[i];
        d->t = paths[i][0];
        d->l = paths[i][1];
        uint8_t *m = simrig_add_disk(&w->r, d->t, d->l, BLOCKS, tcs != NULL ? &tcs[i] : NULL);
        assert_non_null(m);
        d->ref = malloc(BLOCKS * 512u);
        assert_non_null(d->ref);
        memcpy(d->ref, m, BLOCKS * 512u);
    }
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&w->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    warm_up(w);
}

static void world_fini(world *w)
{
    for (unsigned i = 0; i < w->ndisks; i++)
        free(w->disks[i].ref);
    simrig_fini(&w->r);
}

static void slot_done(rig_ccb *rc);

/* Fill a slot's CCB for a READ or WRITE of `blocks` at `lba`; a write's data
 * is random. Tagged with `tag_action`, or untagged when it is 0. */
static void prep_io(world *w, slot *s, bool write, uint64_t lba, uint32_t blocks, uint8_t tag_action)
{
    uint8_t cdb[16];
    int len;
    s->w = w;
    s->write = write;
    s->lba = lba;
    s->blocks = blocks;
    if (write) {
        for (uint32_t i = 0; i < blocks * 512u; i++)
            s->buf[i] = (uint8_t)rnd(w, 256);
        len = pcam_cdb_write(cdb, sizeof cdb, 10, lba, blocks, 0);
    } else {
        memset(s->buf, 0xEE, blocks * 512u);
        len = pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    }
    assert_int_equal(len, 10);
    rig_ccb_io(&s->rc, s->d->t, s->d->l, cdb, (uint8_t)len, write ? PCAM_DIR_OUT : PCAM_DIR_IN,
               s->buf, blocks * 512u);
    if (tag_action != 0) {
        s->rc.ccb.flags = PCAM_CCB_TAGGED;
        s->rc.ccb.u.io.tag_action = tag_action;
    }
    s->rc.test = w;
    s->rc.on_done = slot_done;
    memset(&s->d->busy[lba], 1, blocks);
}

static void submit(world *w, slot *s)
{
    s->serial = ++w->submitted;
    s->open = true;
    rig_submit(&w->r, &s->rc);
}

/* A random command on a range no command in flight touches, so the
 * reference stays exact whatever order the target runs them in. */
static void issue_random(world *w, slot *s, uint8_t tag_action)
{
    uint64_t lba;
    uint32_t blocks;
    for (;;) {
        blocks = 1 + rnd(w, MAX_BLOCKS);
        lba = rnd(w, BLOCKS - blocks + 1);
        bool clash = false;
        for (uint32_t i = 0; i < blocks && !clash; i++)
            clash = s->d->busy[lba + i] != 0;
        if (!clash)
            break;
    }
    prep_io(w, s, rnd(w, 2) == 0, lba, blocks, tag_action);
    submit(w, s);
}

static void maybe_inject(world *w);

static void slot_done(rig_ccb *rc)
{
    slot *s = (slot *)rc;
    world *w = s->w;
    uint32_t bytes = s->blocks * 512u;
    rc->done_ns = pcam_sim_now(w->r.sim);
    s->open = false;
    if (rc->done_count != 1)
        w->double_done++;
    if (rc->ccb.status != PCAM_REQ_CMP) {
        w->errors++;
        fprintf(stderr, "command failed: %u:%u lba %llu status %s (0x%x)\n", s->d->t, s->d->l,
                (unsigned long long)s->lba, pcam_status_name(rc->ccb.status), rc->ccb.status);
    } else if (s->write) {
        memcpy(s->d->ref + s->lba * 512u, s->buf, bytes);
    } else if (memcmp(s->d->ref + s->lba * 512u, s->buf, bytes) != 0) {
        w->mismatches++;
    }
    memset(&s->d->busy[s->lba], 0, s->blocks);
    w->completed++;
    if (w->norder < NOTE_LOG)
        w->order[w->norder++] = s->id;
    if (s == w->inject) {
        /* Every tagged command submitted before it must have completed, and
         * none submitted after it. */
        w->inj_done++;
        for (unsigned i = 0; i < w->nstream; i++)
            if (w->stream[i].open && w->stream[i].serial < s->serial)
                w->inj_early++;
        if (rc->done_ns - rc->submit_ns > w->inj_max_ns)
            w->inj_max_ns = rc->done_ns - rc->submit_ns;
        if (w->inj_passed > w->inj_max_passed)
            w->inj_max_passed = w->inj_passed;
        w->inject = NULL;
        return;
    }
    if (w->inject != NULL) {
        if (s->serial > w->inj_serial)
            w->inj_late++;
        w->inj_passed++;
    }
    if (w->refill && w->submitted < w->target) {
        issue_random(w, s, PCAM_TAG_SIMPLE);
        maybe_inject(w);
    }
}

/* ------------------------------------------------------------------ */
/* (a) sustained tagged load */

static void tagged_load(bool polled)
{
    static const uint8_t paths[3][2] = {{0, 0}, {0, 1}, {1, 0}};
    world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    world_init(w, polled, NULL, NULL, paths, 3);
    /* world_init set check_every = 1: the invariants (tag uniqueness among
     * them) are checked after every step of this run. */
    w->target = under_memcheck() ? 200 : 5000;
    w->refill = true;
    pcam_sim_target_stats before[2];
    pcam_sim_target_stats_get(w->r.sim, 0, &before[0]);
    pcam_sim_target_stats_get(w->r.sim, 1, &before[1]);

    slot *slots = calloc(3 * DEPTH, sizeof *slots);
    assert_non_null(slots);
    for (unsigned i = 0; i < 3 * DEPTH; i++) {
        slots[i].d = &w->disks[i / DEPTH];
        slots[i].buf = malloc(MAX_BLOCKS * 512u);
        assert_non_null(slots[i].buf);
    }
    for (unsigned i = 0; i < 3 * DEPTH; i++)
        issue_random(w, &slots[i], PCAM_TAG_SIMPLE);
    bool ok = run_count(w, &w->completed, w->target, RIG_S(600));
    fprintf(stderr,
            "tagged load (%s): %llu commands, %llu tagged tasks queued, max live %u/%u/%u, "
            "sim time %.3f s, %llu steps\n",
            polled ? "polled" : "interrupt", (unsigned long long)w->completed,
            (unsigned long long)w->k.queued_tagged, w->k.max_live[0][0], w->k.max_live[0][1],
            w->k.max_live[1][0], (double)pcam_sim_now(w->r.sim) / 1e9,
            (unsigned long long)w->r.steps);
    assert_true(ok);
    assert_null(w->r.violation);
    assert_null(pcam_bus_check_invariants(&w->r.bus));
    assert_int_equal(w->completed, w->target);
    assert_int_equal(w->errors, 0);
    assert_int_equal(w->mismatches, 0);
    assert_int_equal(w->double_done, 0);
    /* Target side: every task the targets queued was tagged, none reused a
     * tag a live task held, and the trace saw every note. */
    assert_int_equal(w->k.trace_lost, 0);
    assert_int_equal(w->k.dup_tags, 0);
    assert_int_equal(w->k.mixed, 0);
    assert_int_equal(w->k.queued_untagged, 0);
    assert_int_equal(w->k.queued_tagged, w->target);
    /* The queues really were deep: many tasks per LU at once. */
    assert_true(w->k.max_live[0][0] > 8);
    assert_true(w->k.max_live[1][0] > 8);
    for (uint8_t t = 0; t < 2; t++) {
        pcam_sim_target_stats ts;
        pcam_sim_target_stats_get(w->r.sim, t, &ts);
        /* The target's own overlapped-command check (SAM: a tag reused
         * while in the task set aborts both) never fired. */
        assert_int_equal(ts.aborted_tasks - before[t].aborted_tasks, 0);
        assert_int_equal(ts.check_conditions - before[t].check_conditions, 0);
        assert_int_equal(ts.untagged - before[t].untagged, 0);
        assert_int_equal(ts.tags_rejected, 0);
        assert_true(ts.simple - before[t].simple > 0);
        assert_true(pcam_sim_target_tags_in_use(w->r.sim, t));
        pcam_counters c;
        assert_int_equal(pcam_bus_get_counters(&w->r.bus, t, &c), PCAM_OK);
        assert_true(c.disconnects > 0);
        assert_true(c.reselections > 0);
        assert_int_equal(c.retries - w->c0[t].retries, 0);
    }
    for (unsigned i = 0; i < w->ndisks; i++)
        assert_memory_equal(w->r.stores[w->disks[i].t][w->disks[i].l], w->disks[i].ref,
                            BLOCKS * 512u);
    for (unsigned i = 0; i < 3 * DEPTH; i++) {
        assert_int_equal(slots[i].rc.done_count, 1);
        free(slots[i].buf);
    }
    free(slots);
    world_fini(w);
    free(w);
}

static void tagged_load_interrupt(void **state)
{
    (void)state;
    tagged_load(false);
}

static void tagged_load_polled(void **state)
{
    (void)state;
    tagged_load(true);
}

/* ------------------------------------------------------------------ */
/* Ordering tests: a handful of slots on one LUN, ids = submission order. */

typedef struct fixed {
    world *w;
    slot s[40];
} fixed;

static fixed *fixed_new(bool polled, const pcam_bus_config *bc, const pcam_sim_target_config *tc)
{
    static const uint8_t paths[1][2] = {{0, 0}};
    fixed *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->w = calloc(1, sizeof *f->w);
    assert_non_null(f->w);
    world_init(f->w, polled, bc, tc, paths, 1);
    for (unsigned i = 0; i < 40; i++) {
        f->s[i].d = &f->w->disks[0];
        f->s[i].id = i;
        f->s[i].buf = malloc(MAX_BLOCKS * 512u);
        assert_non_null(f->s[i].buf);
    }
    f->w->k.logging = true;
    return f;
}

static void fixed_free(fixed *f)
{
    for (unsigned i = 0; i < 40; i++)
        free(f->s[i].buf);
    world_fini(f->w);
    free(f->w);
    free(f);
}

static unsigned position_of(const world *w, unsigned id)
{
    for (unsigned i = 0; i < w->norder; i++)
        if (w->order[i] == id)
            return i;
    return UINT32_MAX;
}

static void fixed_common_asserts(fixed *f, unsigned n)
{
    world *w = f->w;
    assert_int_equal(w->completed, n);
    assert_int_equal(w->norder, n);
    assert_int_equal(w->errors, 0);
    assert_int_equal(w->mismatches, 0);
    assert_int_equal(w->double_done, 0);
    assert_null(w->r.violation);
    assert_null(pcam_bus_check_invariants(&w->r.bus));
    assert_int_equal(w->k.trace_lost, 0);
    assert_int_equal(w->k.dup_tags, 0);
    assert_int_equal(w->k.mixed, 0);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(f->s[i].rc.done_count, 1);
    assert_memory_equal(w->r.stores[0][0], w->disks[0].ref, BLOCKS * 512u);
}

/* The configuration the ordering tests share: the target disconnects from
 * every command, so each one lands in its task set, and per-LUN aging is
 * off so that no ORDERED tag appears that the test did not ask for. */
static void ordering_config(pcam_bus_config *bc, pcam_sim_target_config *tc)
{
    pcam_bus_config_defaults(bc);
    bc->aging_enabled = false;
    pcam_sim_target_config_defaults(tc);
    tc->disconnect = PCAM_SIM_DISC_ALWAYS;
}

/* (b) N tagged, one untagged, N tagged, all submitted before the bus runs. */
static void untagged_between(bool polled)
{
    enum { N = 8 };
    pcam_bus_config bc;
    pcam_sim_target_config tc;
    ordering_config(&bc, &tc);
    fixed *f = fixed_new(polled, &bc, &tc);
    world *w = f->w;
    pcam_sim_target_stats before, after;
    pcam_sim_target_stats_get(w->r.sim, 0, &before);
    for (unsigned i = 0; i < 2 * N + 1; i++) {
        /* Spread over the disk so the target has seeks to reorder. */
        uint64_t lba = ((uint64_t)(i * 7u) % 16u) * 200u;
        prep_io(w, &f->s[i], i % 2 == 0, lba, 4, i == N ? 0 : PCAM_TAG_SIMPLE);
        submit(w, &f->s[i]);
    }
    assert_true(run_count(w, &w->completed, 2 * N + 1, RIG_S(60)));
    fixed_common_asserts(f, 2 * N + 1);
    /* The untagged one is the N-th to complete: after every earlier tagged
     * command, before every later one. */
    assert_int_equal(position_of(w, N), N);
    for (unsigned i = 0; i < N; i++)
        assert_true(position_of(w, i) < N);
    pcam_sim_target_stats_get(w->r.sim, 0, &after);
    assert_int_equal(after.untagged - before.untagged, 1);
    assert_int_equal(after.simple - before.simple, 2 * N);
    assert_int_equal(w->k.queued_untagged, 1);
    /* Alone in the task set (tracker.mixed is 0), and the target held
     * several tagged tasks at once on either side of it. */
    assert_true(w->k.max_live[0][0] >= N / 2);
    fixed_free(f);
}

static void untagged_between_interrupt(void **state)
{
    (void)state;
    untagged_between(false);
}

static void untagged_between_polled(void **state)
{
    (void)state;
    untagged_between(true);
}

/* (b) An untagged command every so often in a stream that keeps 32 tagged
 * commands outstanding: each must complete (not starved), after every tagged
 * command submitted before it and before every one submitted after it. */

static void maybe_inject(world *w)
{
    if (w->untagged_every == 0 || w->inject != NULL || w->completed % w->untagged_every != 0)
        return;
    w->inject = &w->inj;
    w->inj_passed = 0;
    issue_random(w, &w->inj, 0);
    w->inj_serial = w->inj.serial;
}

static void untagged_stream(bool polled)
{
    static const uint8_t paths[1][2] = {{0, 0}};
    world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    world_init(w, polled, NULL, NULL, paths, 1);
    /* The invariant check dominates the run time; every step is done in
     * (a), here every few steps is enough. */
    w->r.check_every = 7;
    w->target = under_memcheck() ? 200 : 3000;
    w->refill = true;
    w->untagged_every = 97;
    pcam_sim_target_stats before, after;
    pcam_sim_target_stats_get(w->r.sim, 0, &before);
    slot *slots = calloc(DEPTH, sizeof *slots);
    assert_non_null(slots);
    w->stream = slots;
    w->nstream = DEPTH;
    w->inj.d = &w->disks[0];
    w->inj.buf = malloc(MAX_BLOCKS * 512u);
    assert_non_null(w->inj.buf);
    for (unsigned i = 0; i < DEPTH; i++) {
        slots[i].d = &w->disks[0];
        slots[i].buf = malloc(MAX_BLOCKS * 512u);
        assert_non_null(slots[i].buf);
    }
    for (unsigned i = 0; i < DEPTH; i++)
        issue_random(w, &slots[i], PCAM_TAG_SIMPLE);
    /* Run until the stream has stopped and everything is back. */
    bool ok = run_count(w, &w->completed, w->target, RIG_S(600));
    ok = ok && run_count(w, &w->completed, w->submitted, RIG_S(60));
    fprintf(stderr,
            "untagged in a tagged stream (%s): %llu commands, %llu untagged, worst wait %.3f ms "
            "(%llu commands completed meanwhile)\n",
            polled ? "polled" : "interrupt", (unsigned long long)w->completed,
            (unsigned long long)w->inj_done, (double)w->inj_max_ns / 1e6,
            (unsigned long long)w->inj_max_passed);
    assert_true(ok);
    assert_int_equal(w->completed, w->submitted);
    assert_null(w->r.violation);
    assert_int_equal(w->errors, 0);
    assert_int_equal(w->mismatches, 0);
    assert_int_equal(w->double_done, 0);
    assert_int_equal(w->k.trace_lost, 0);
    assert_int_equal(w->k.dup_tags, 0);
    assert_int_equal(w->k.mixed, 0);
    assert_null(w->inject);
    /* One injected per untagged_every completions while the stream ran. */
    assert_true(w->inj_done >= w->target / 97 - 1);
    assert_int_equal(w->inj_early, 0);
    assert_int_equal(w->inj_late, 0);
    /* At most the 32 tagged commands outstanding when it was submitted
     * complete before it. */
    assert_true(w->inj_max_passed <= DEPTH);
    pcam_sim_target_stats_get(w->r.sim, 0, &after);
    assert_int_equal(after.untagged - before.untagged, w->inj_done);
    assert_int_equal(w->k.queued_untagged, w->inj_done);
    assert_int_equal(after.aborted_tasks - before.aborted_tasks, 0);
    assert_memory_equal(w->r.stores[0][0], w->disks[0].ref, BLOCKS * 512u);
    for (unsigned i = 0; i < DEPTH; i++)
        free(slots[i].buf);
    free(slots);
    free(w->inj.buf);
    world_fini(w);
    free(w);
}

static void untagged_stream_interrupt(void **state)
{
    (void)state;
    untagged_stream(false);
}

static void untagged_stream_polled(void **state)
{
    (void)state;
    untagged_stream(true);
}

/* (c) SIMPLE x N, ORDERED, SIMPLE x N. */
static void ordered_barrier(bool polled)
{
    enum { N = 6 };
    pcam_bus_config bc;
    pcam_sim_target_config tc;
    ordering_config(&bc, &tc);
    fixed *f = fixed_new(polled, &bc, &tc);
    world *w = f->w;
    pcam_sim_target_stats before, after;
    pcam_sim_target_stats_get(w->r.sim, 0, &before);
    /* The first SIMPLE command starts at once at LBA 100; the next ones lie
     * far from it in descending LBA order, so a seek-optimising target runs
     * them in reverse; the ORDERED one is at the far end; the later SIMPLE
     * ones lie right next to LBA 100, so a target that ignored the barrier
     * would run them before all the earlier ones. */
    for (unsigned i = 0; i < 2 * N + 1; i++) {
        uint64_t lba;
        uint8_t ta = PCAM_TAG_SIMPLE;
        if (i == 0)
            lba = 100;
        else if (i < N)
            lba = 3000u - (uint64_t)(i - 1u) * 400u;
        else if (i == N) {
            lba = 4000;
            ta = PCAM_TAG_ORDERED;
        } else
            lba = 100u + (uint64_t)(i - N) * 8u;
        prep_io(w, &f->s[i], i % 3 == 0, lba, 4, ta);
        submit(w, &f->s[i]);
    }
    assert_true(run_count(w, &w->completed, 2 * N + 1, RIG_S(60)));
    fixed_common_asserts(f, 2 * N + 1);
    assert_int_equal(position_of(w, N), N);
    bool reordered = false;
    for (unsigned i = 0; i < N; i++) {
        assert_true(position_of(w, i) < N);
        if (position_of(w, i) != i)
            reordered = true;
    }
    /* The target did reorder SIMPLE tasks, so the barrier was what kept
     * the order around the ORDERED one. */
    assert_true(reordered);
    pcam_sim_target_stats_get(w->r.sim, 0, &after);
    assert_int_equal(after.ordered - before.ordered, 1);
    assert_int_equal(after.simple - before.simple, 2 * N);
    assert_int_equal(after.head_of_queue - before.head_of_queue, 0);
    fixed_free(f);
}

static void ordered_barrier_interrupt(void **state)
{
    (void)state;
    ordered_barrier(false);
}

static void ordered_barrier_polled(void **state)
{
    (void)state;
    ordered_barrier(true);
}

/* (c) HEAD OF QUEUE: with the LUN's depth at 4, eight SIMPLE commands leave
 * four pending in the core; a HEAD OF QUEUE command then goes ahead of
 * those four in the core, and ahead of the SIMPLE tasks still waiting in
 * the target's task set. */
static void head_of_queue(bool polled)
{
    enum { N = 8 };
    pcam_bus_config bc;
    pcam_sim_target_config tc;
    ordering_config(&bc, &tc);
    bc.tag_depth = 4;
    fixed *f = fixed_new(polled, &bc, &tc);
    world *w = f->w;
    pcam_sim_target_stats before, after;
    pcam_sim_target_stats_get(w->r.sim, 0, &before);
    for (unsigned i = 0; i < N; i++) {
        prep_io(w, &f->s[i], i % 2 == 1, 200u + (uint64_t)i * 300u, 4, PCAM_TAG_SIMPLE);
        submit(w, &f->s[i]);
    }
    /* Run until the first four are all in the target's task set. */
    uint64_t max_steps = w->r.steps + 100000u;
    while (pcam_sim_task_count(w->r.sim, 0, 0) < 4 && pcam_sim_now(w->r.sim) < RIG_S(10) &&
           w->r.steps < max_steps)
        step(w);
    assert_int_equal(pcam_sim_task_count(w->r.sim, 0, 0), 4);
    assert_int_equal(w->completed, 0);
    prep_io(w, &f->s[N], false, 3900, 4, PCAM_TAG_HEAD_OF_QUEUE);
    submit(w, &f->s[N]);
    assert_true(run_count(w, &w->completed, N + 1, RIG_S(60)));
    fixed_common_asserts(f, N + 1);
    unsigned hoq = position_of(w, N);
    /* Core side: the four still pending in the core when it arrived (ids
     * 4..7, submitted before it) complete after it. */
    for (unsigned i = 4; i < N; i++)
        assert_true(position_of(w, i) > hoq);
    /* Target side: when it reached the task set, the mechanism was busy with
     * one task and the others were queued; it must be the very next task
     * the mechanism starts. */
    unsigned q = UINT32_MAX;
    for (unsigned i = 0; i < w->k.nlog; i++)
        if (w->k.log[i].what == PCAM_SIM_TN_QUEUED && w->k.log[i].type == PCAM_TAG_HEAD_OF_QUEUE)
            q = i;
    assert_true(q != UINT32_MAX);
    unsigned next_start = UINT32_MAX;
    for (unsigned i = q + 1; i < w->k.nlog && next_start == UINT32_MAX; i++)
        if (w->k.log[i].what == PCAM_SIM_TN_START)
            next_start = i;
    assert_true(next_start != UINT32_MAX);
    assert_int_equal(w->k.log[next_start].type, PCAM_TAG_HEAD_OF_QUEUE);
    /* Worked by hand from the task-set model: the first SIMPLE task
     * finishes, the mechanism starts the next at once, the first one's
     * completion frees an opening that the HEAD OF QUEUE command takes, and
     * it runs as soon as the second finishes: it completes third. */
    assert_int_equal(hoq, 2);
    pcam_sim_target_stats_get(w->r.sim, 0, &after);
    assert_int_equal(after.head_of_queue - before.head_of_queue, 1);
    assert_int_equal(after.simple - before.simple, N);
    assert_int_equal(after.ordered - before.ordered, 0);
    assert_int_equal(pcam_lun_depth(&w->r.bus, 0, 0), 4);
    fixed_free(f);
}

static void head_of_queue_interrupt(void **state)
{
    (void)state;
    head_of_queue(false);
}

static void head_of_queue_polled(void **state)
{
    (void)state;
    head_of_queue(true);
}

/* ------------------------------------------------------------------ */
/* (d) a target that rejects tag messages. Target 0 rejects them, target 1
 * (a control) does not; both run the same random verified workload. With
 * by_user, target 0 would take tags but its user limits forbid tags and
 * disconnection: the core must offer neither (no tag message, IDENTIFY
 * without DiscPriv, so the target never disconnects: SPI-2). */

static void user_limits(simrig *r, uint8_t t, bool tagged, bool disconnect)
{
    rig_ccb tran;
    memset(&tran, 0, sizeof tran);
    tran.ccb.func = PCAM_FN_GET_TRAN;
    tran.ccb.target = t;
    tran.ccb.u.tran.type = PCAM_TRAN_USER;
    assert_int_equal(rig_sync(r, &tran, RIG_S(1)), PCAM_REQ_CMP);
    tran.ccb.func = PCAM_FN_SET_TRAN;
    tran.ccb.u.tran.settings.tagged = tagged;
    tran.ccb.u.tran.settings.disconnect = disconnect;
    assert_int_equal(rig_sync(r, &tran, RIG_S(1)), PCAM_REQ_CMP);
}

static void reject_tags(bool polled, bool by_user)
{
    static const uint8_t paths[2][2] = {{0, 0}, {1, 0}};
    pcam_sim_target_config tcs[2];
    pcam_sim_target_config_defaults(&tcs[0]);
    pcam_sim_target_config_defaults(&tcs[1]);
    tcs[0].reject_tags = !by_user;
    world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    world_init(w, polled, NULL, tcs, paths, 2);
    if (by_user)
        user_limits(&w->r, 0, false, true);
    w->r.check_every = 7;
    pcam_sim_target_stats before[2];
    pcam_sim_target_stats_get(w->r.sim, 0, &before[0]);
    pcam_sim_target_stats_get(w->r.sim, 1, &before[1]);
    /* Nothing has offered a tag yet: the scan runs untagged. */
    assert_int_equal(before[0].tags_rejected, 0);

    w->target = under_memcheck() ? 150 : 2000;
    w->refill = true;
    slot *slots = calloc(2 * DEPTH, sizeof *slots);
    assert_non_null(slots);
    for (unsigned i = 0; i < 2 * DEPTH; i++) {
        slots[i].d = &w->disks[i / DEPTH];
        slots[i].buf = malloc(MAX_BLOCKS * 512u);
        assert_non_null(slots[i].buf);
    }
    for (unsigned i = 0; i < 2 * DEPTH; i++)
        issue_random(w, &slots[i], PCAM_TAG_SIMPLE);
    bool ok = run_count(w, &w->completed, w->target, RIG_S(600));
    pcam_sim_target_stats ts0, ts1;
    pcam_sim_target_stats_get(w->r.sim, 0, &ts0);
    pcam_sim_target_stats_get(w->r.sim, 1, &ts1);
    fprintf(stderr,
            "reject tags (%s): %llu commands; target 0: %u untagged, %u tags rejected, max tasks "
            "%u; target 1: %u simple, max tasks %u\n",
            polled ? "polled" : "interrupt", (unsigned long long)w->completed,
            ts0.untagged - before[0].untagged, ts0.tags_rejected, ts0.max_tasks,
            ts1.simple - before[1].simple, ts1.max_tasks);
    assert_true(ok);
    assert_null(w->r.violation);
    assert_null(pcam_bus_check_invariants(&w->r.bus));
    assert_int_equal(w->errors, 0);
    assert_int_equal(w->mismatches, 0);
    assert_int_equal(w->double_done, 0);
    assert_int_equal(w->k.trace_lost, 0);
    assert_int_equal(w->k.dup_tags, 0);
    assert_int_equal(w->k.mixed, 0);
    /* Target 0: every command ran untagged. The core offered a tag once and,
     * rejected, never again (SPI-2: a rejected queue tag message means no
     * tagged queuing on that target). */
    assert_int_equal(ts0.tags_rejected, by_user ? 0 : 1);
    assert_true(ts0.untagged - before[0].untagged > 0);
    assert_int_equal(ts0.simple + ts0.ordered + ts0.head_of_queue, 0);
    assert_false(pcam_sim_target_tags_in_use(w->r.sim, 0));
    assert_int_equal(w->k.max_live[0][0], 1);
    assert_int_equal(ts0.aborted_tasks - before[0].aborted_tasks, 0);
    pcam_counters c0;
    assert_int_equal(pcam_bus_get_counters(&w->r.bus, 0, &c0), PCAM_OK);
    assert_int_equal(c0.retries - w->c0[0].retries, 0);
    rig_ccb tran;
    memset(&tran, 0, sizeof tran);
    tran.ccb.func = PCAM_FN_GET_TRAN;
    tran.ccb.target = 0;
    tran.ccb.u.tran.type = PCAM_TRAN_CURRENT;
    assert_int_equal(rig_sync(&w->r, &tran, RIG_S(1)), PCAM_REQ_CMP);
    assert_false(tran.ccb.u.tran.settings.tagged);
    /* Target 1 kept its tags. */
    assert_int_equal(ts1.tags_rejected, 0);
    assert_true(ts1.simple - before[1].simple > 0);
    assert_int_equal(ts1.untagged - before[1].untagged, 0);
    assert_true(pcam_sim_target_tags_in_use(w->r.sim, 1));
    assert_true(w->k.max_live[1][0] > 1);
    for (unsigned i = 0; i < 2; i++)
        assert_memory_equal(w->r.stores[w->disks[i].t][w->disks[i].l], w->disks[i].ref,
                            BLOCKS * 512u);
    for (unsigned i = 0; i < 2 * DEPTH; i++)
        assert_int_equal(slots[i].rc.done_count, 1);
    if (by_user) {
        /* Untagged, target 0 still disconnected; without disconnect
         * privilege in its user limits it never does (the IDENTIFY goes
         * without DiscPriv), and its data stays right. */
        pcam_sim_target_stats_get(w->r.sim, 0, &before[0]);
        assert_true(ts0.disconnects > 0);
        user_limits(&w->r, 0, false, false);
        w->refill = false;
        uint64_t done0 = w->completed;
        for (unsigned i = 0; i < 8; i++)
            issue_random(w, &slots[i], PCAM_TAG_SIMPLE);
        assert_true(run_count(w, &w->completed, done0 + 8, RIG_S(60)));
        pcam_sim_target_stats_get(w->r.sim, 0, &ts0);
        assert_int_equal(ts0.untagged - before[0].untagged, 8);
        assert_int_equal(ts0.disconnects - before[0].disconnects, 0);
        assert_int_equal(w->errors, 0);
        assert_int_equal(w->mismatches, 0);
        assert_memory_equal(w->r.stores[w->disks[0].t][w->disks[0].l], w->disks[0].ref, BLOCKS * 512u);
    }
    for (unsigned i = 0; i < 2 * DEPTH; i++)
        free(slots[i].buf);
    free(slots);
    world_fini(w);
    free(w);
}

static void reject_tags_interrupt(void **state)
{
    (void)state;
    reject_tags(false, false);
}

static void reject_tags_polled(void **state)
{
    (void)state;
    reject_tags(true, false);
}

static void user_no_tags_interrupt(void **state)
{
    (void)state;
    reject_tags(false, true);
}

static void user_no_tags_polled(void **state)
{
    (void)state;
    reject_tags(true, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tagged_load_interrupt),
        cmocka_unit_test(tagged_load_polled),
        cmocka_unit_test(untagged_between_interrupt),
        cmocka_unit_test(untagged_between_polled),
        cmocka_unit_test(untagged_stream_interrupt),
        cmocka_unit_test(untagged_stream_polled),
        cmocka_unit_test(ordered_barrier_interrupt),
        cmocka_unit_test(ordered_barrier_polled),
        cmocka_unit_test(head_of_queue_interrupt),
        cmocka_unit_test(head_of_queue_polled),
        cmocka_unit_test(reject_tags_interrupt),
        cmocka_unit_test(reject_tags_polled),
        cmocka_unit_test(user_no_tags_interrupt),
        cmocka_unit_test(user_no_tags_polled),
    };
    /* PCAM_TEST_FILTER=reject_tags* runs one scenario while diagnosing. */
    if (getenv("PCAM_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("PCAM_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
