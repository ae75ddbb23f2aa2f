/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several client threads at once on a threaded host: each submits READs to
 * both disks and checks the data, using posting, events and polling in
 * turn; the totals prove one notification per request. A posting routine
 * that submits the next command from the service thread, and a polling
 * client that reads the results the moment the status changes (results
 * are stored before the status).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "aspi_test.h"

static aspi_simhost H;

static int setup(void **state)
{
    (void)state;
    return fix_setup(&H, NULL, true, 8);
}

static int teardown(void **state)
{
    (void)state;
    fix_teardown(&H);
    return 0;
}

static const BYTE cdb_tur[6] = {0x00, 0, 0, 0, 0, 0};

static uint8_t pattern(unsigned id, size_t i)
{
    return (uint8_t)(i * 7u + id * 13u);
}

static void clear_ua(BYTE target)
{
    SRB_ExecSCSICmd s;
    for (int i = 0; i < 3; i++) {
        fix_exec(&s, 0, target, 0, 0, NULL, 0, cdb_tur, 6, SENSE_LEN);
        if (SendASPI32Command(&s) == SS_PENDING && fix_wait(&H, &s.SRB_Status) == SS_COMP)
            return;
    }
    fail_msg("target %u stays in error", target);
}

typedef struct worker {
    unsigned id;
    unsigned iterations;
    unsigned posted, evented, polled;
    unsigned errors;
    aspi_sim_event ev;
} worker;

static bool wait_posts(const void *srb, unsigned want)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (fix_post_count(srb) < want) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 60)
            return false;
        sched_yield();
    }
    return true;
}

static void *work(void *arg)
{
    worker *w = arg;
    SRB_ExecSCSICmd s;
    BYTE buf[4096];
    for (unsigned i = 0; i < w->iterations; i++) {
        unsigned target = (w->id + i) % 2 ? 2 : 0;
        uint32_t lba = (w->id * 97u + i * 13u) % (DISK_BLOCKS - 8);
        uint8_t blocks = (uint8_t)(1 + (i + w->id) % 8);
        BYTE cdb[10] = {0x28, 0, (BYTE)(lba >> 24), (BYTE)(lba >> 16), (BYTE)(lba >> 8), (BYTE)lba,
                        0, 0, blocks, 0};
        unsigned mode = (w->id + i) % 3;
        BYTE flags = SRB_DIR_IN | (mode == 0 ? SRB_POSTING : mode == 1 ? SRB_EVENT_NOTIFY : 0);
        memset(buf, 0, sizeof buf);
        fix_exec(&s, 0, (BYTE)target, 0, flags, buf, blocks * 512u, cdb, 10, SENSE_LEN);
        if (mode == 1)
            s.SRB_PostProc = &w->ev;
        unsigned posts_before = fix_post_count(&s);
        DWORD rc = SendASPI32Command(&s);
        if (rc != SS_PENDING) {
            w->errors++;
            continue;
        }
        BYTE st;
        if (mode == 0) {
            if (!wait_posts(&s, posts_before + 1)) {
                w->errors++;
                continue;
            }
            st = fix_status(&s);
            w->posted++;
        } else if (mode == 1) {
            if (!aspi_sim_event_wait(&w->ev, 60000)) {
                w->errors++;
                continue;
            }
            st = fix_status(&s);
            w->evented++;
        } else {
            st = fix_wait(&H, &s.SRB_Status);
            w->polled++;
        }
        /* The data is there the moment the status says so. */
        if (st != SS_COMP || s.SRB_HaStat != 0 || s.SRB_TargStat != 0) {
            w->errors++;
            continue;
        }
        for (size_t b = 0; b < blocks * 512u; b++) {
            if (buf[b] != pattern(target, (size_t)lba * 512u + b)) {
                w->errors++;
                break;
            }
        }
    }
    return NULL;
}

static void concurrent_submitters(void **state)
{
    (void)state;
    clear_ua(0);
    clear_ua(2);
    enum { THREADS = 4 };
    unsigned iters = fix_memcheck() ? 12 : 150;
    worker w[THREADS];
    pthread_t th[THREADS];
    unsigned posts_before = fix_post_total();
    for (unsigned i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        w[i].iterations = iters;
        aspi_sim_event_init(&w[i].ev);
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    unsigned posted = 0, evented = 0, polled = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(w[i].errors, 0);
        assert_int_equal(w[i].posted + w[i].evented + w[i].polled, iters);
        posted += w[i].posted;
        evented += w[i].evented;
        polled += w[i].polled;
    }
    assert_true(fix_idle(&H));
    /* Exactly one notification each: no extra posting, no extra signal. */
    assert_int_equal(fix_post_total() - posts_before, posted);
    unsigned signals = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        signals += aspi_sim_event_count(&w[i].ev);
        aspi_sim_event_destroy(&w[i].ev);
    }
    assert_int_equal(signals, evented);
    assert_true(polled > 0 && posted > 0 && evented > 0);
    H.ad.ops.lock(H.ad.ctx);
    assert_null(pcam_bus_check_invariants(&H.bus));
    H.ad.ops.unlock(H.ad.ctx);
}

/* ---- a posting routine that submits the next command ---- */

#define CHAIN 20
static SRB_ExecSCSICmd chain_srb[CHAIN];
static unsigned chain_next;
static unsigned chain_done;
static BYTE chain_bad;

static void ASPI_CDECL chain_post(void *srb)
{
    SRB_ExecSCSICmd *s = srb;
    if (s->SRB_Status != SS_COMP)
        chain_bad = s->SRB_Status;
    __atomic_add_fetch(&chain_done, 1, __ATOMIC_SEQ_CST);
    if (chain_next < CHAIN) {
        SRB_ExecSCSICmd *n = &chain_srb[chain_next++];
        /* From the service thread: must not deadlock on the adapter lock. */
        if (SendASPI32Command(n) != SS_PENDING)
            chain_bad = 0xEE;
    }
}

static void posting_routine_submits(void **state)
{
    (void)state;
    clear_ua(0);
    chain_next = 1;
    chain_done = 0;
    chain_bad = 0;
    for (unsigned i = 0; i < CHAIN; i++) {
        fix_exec(&chain_srb[i], 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
        fix_set_proc(&chain_srb[i].SRB_PostProc, chain_post);
    }
    assert_int_equal(SendASPI32Command(&chain_srb[0]), SS_PENDING);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__atomic_load_n(&chain_done, __ATOMIC_SEQ_CST) < CHAIN) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        assert_true(t.tv_sec - t0.tv_sec < 60);
        sched_yield();
    }
    assert_true(fix_idle(&H));
    assert_int_equal(chain_done, CHAIN);
    assert_int_equal(chain_bad, 0);
}

/* ---- a posting routine that waits (a rescan) on the service thread ---- */

static unsigned rescan_status;

static void ASPI_CDECL rescan_post(void *srb)
{
    (void)srb;
    SRB_RescanPort r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESCAN_SCSI_BUS;
    __atomic_store_n(&rescan_status, SendASPI32Command(&r) + 0x100u, __ATOMIC_SEQ_CST);
}

static void posting_routine_waits(void **state)
{
    (void)state;
    rescan_status = 0;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    fix_set_proc(&s.SRB_PostProc, rescan_post);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__atomic_load_n(&rescan_status, __ATOMIC_SEQ_CST) == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        assert_true(t.tv_sec - t0.tv_sec < 60);
        sched_yield();
    }
    assert_int_equal(rescan_status, 0x100u + SS_COMP);
    assert_true(fix_idle(&H));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(concurrent_submitters, setup, teardown),
        cmocka_unit_test_setup_teardown(posting_routine_submits, setup, teardown),
        cmocka_unit_test_setup_teardown(posting_routine_waits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
