/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym with the core on the SCRIPTS-level model: the error paths and
 * queue semantics QEMU cannot show. QUEUE FULL (a target that holds 5
 * tasks) settles the depth without spending retries and ramps back up;
 * CHECK CONDITION brings the core's REQUEST SENSE (MEDIUM ERROR 3/11); a
 * read the target never finishes walks the ladder: ABORT TASK to the
 * disconnected task, then (target deaf to aborts) BUS DEVICE RESET, then
 * (deaf to resets as well) a bus reset, each only after the step before it
 * failed, bystanders completing; ORDERED and HEAD OF QUEUE tags reach the
 * target as such; IGNORE WIDE RESIDUE on a wide odd-length read gives the
 * exact residual; parity errors on data step the agreed speed down; parity
 * errors on message bytes are answered with MESSAGE PARITY ERROR (or, on a
 * reselection, a bus reset) and every read still verifies; BUSY is
 * counted and retried; a message pcam does not know is rejected by the core
 * and the command goes on; an unexpected bus free is retried. The model must see no driver mistakes.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sym_rig.h"

#define EVCAP 4096u

typedef struct fx {
    chiprig r;
    pcam_event ev[EVCAP];
    size_t nev;
} fx;

static fx *fx_new(unsigned targets, pcam_sim_disc disc, const pcam_bus_config *bc)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(srig_init(&f->r, bc, 3), PCAM_OK);
    for (uint8_t t = 0; t < targets; t++) {
        pcam_sim_target_config tc;
        pcam_sim_target_config_defaults(&tc);
        tc.disconnect = disc;
        tc.ua_power_on = false;
        assert_non_null(chiprig_add_disk(&f->r, t, 0, 2048, &tc));
    }
    for (uint8_t t = 0; t < targets; t++)
        assert_int_equal(chiprig_func(&f->r, PCAM_FN_SCAN_LUN, t, 0) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    return f;
}

static void fx_free(fx *f)
{
    if (symm_errors(f->r.model) != 0)
        fail_msg("model saw %llu driver mistakes, last: %s", (unsigned long long)symm_errors(f->r.model),
                 symm_last_error(f->r.model));
    assert_null(f->r.violation);
    assert_null(pcam_bus_check_invariants(&f->r.bus));
    chiprig_fini(&f->r);
    free(f);
}

static void drain(fx *f)
{
    size_t got;
    while (f->nev < EVCAP && (got = pcam_bus_read_events(&f->r.bus, f->ev + f->nev, EVCAP - f->nev)) > 0)
        f->nev += got;
}

static bool run_all(fx *f, chiprig_ccb **v, unsigned n, uint64_t limit)
{
    uint64_t until = pcam_sim_now(f->r.sim) + limit;
    for (;;) {
        drain(f);
        unsigned done = 0;
        for (unsigned i = 0; i < n; i++)
            done += v[i]->done_count != 0;
        if (done == n)
            return true;
        if (pcam_sim_now(f->r.sim) > until || !chiprig_step(&f->r))
            return false;
    }
}

static unsigned ev_count(const fx *f, uint16_t code)
{
    unsigned n = 0;
    for (size_t i = 0; i < f->nev; i++)
        n += f->ev[i].code == code;
    return n;
}

static pcam_counters ctr(fx *f, uint8_t t)
{
    pcam_counters c;
    assert_int_equal(pcam_bus_get_counters(&f->r.bus, t, &c), PCAM_OK);
    return c;
}

static void read_tagged(chiprig_ccb *rc, uint8_t t, uint32_t lba, uint16_t n, uint8_t *buf, uint8_t tag)
{
    uint8_t cdb[10];
    chiprig_cdb_rw10(cdb, false, lba, n);
    chiprig_io_sense(rc, t, 0, cdb, 10, PCAM_DIR_IN, buf, n * 512u);
    rc->ccb.flags |= PCAM_CCB_TAGGED;
    rc->ccb.u.io.tag_action = tag;
}

/* ---- QUEUE FULL ---- */

typedef struct qrun {
    fx *f;
    chiprig_ccb rc[32];
    uint8_t buf[32][8 * 512];
    uint64_t done, target;
    unsigned bad;
} qrun;

static void q_issue(qrun *q, unsigned i);

static void q_done(chiprig_ccb *rc)
{
    qrun *q = rc->test;
    unsigned i = (unsigned)(rc - q->rc);
    if (rc->ccb.status != PCAM_REQ_CMP || memcmp(q->buf[i], q->f->r.stores[0][0] + i * 40u * 512u, 8 * 512) != 0)
        q->bad++;
    q->done++;
    if (q->done + 32 <= q->target)
        q_issue(q, i);
}

static void q_issue(qrun *q, unsigned i)
{
    read_tagged(&q->rc[i], 0, i * 40u, 8, q->buf[i], PCAM_TAG_SIMPLE);
    q->rc[i].ccb.u.io.retries = 0; /* QUEUE FULL must not need any */
    q->rc[i].test = q;
    q->rc[i].on_done = q_done;
    chiprig_submit(&q->f->r, &q->rc[i]);
}

static bool run_count(chiprig *r, const uint64_t *count, uint64_t want, uint64_t limit)
{
    uint64_t until = pcam_sim_now(r->sim) + limit;
    while (*count < want)
        if (pcam_sim_now(r->sim) > until || !chiprig_step(r))
            return false;
    return true;
}

static void test_queue_full(void **state)
{
    (void)state;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.qfull_ramp_successes = 16;
    qrun *q = calloc(1, sizeof *q);
    assert_non_null(q);
    q->f = fx_new(1, PCAM_SIM_DISC_ALWAYS, &bc);
    fx *f = q->f;
    pcam_sim_target_cfg(f->r.sim, 0)->task_set_limit = 5;
    pcam_counters c0 = ctr(f, 0);
    q->target = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 400 : 2000;
    for (unsigned i = 0; i < 32; i++)
        q_issue(q, i);
    assert_true(run_count(&f->r, &q->done, q->target / 2, CHIPRIG_S(600)));
    uint16_t depth = pcam_lun_depth(&f->r.bus, 0, 0);
    pcam_counters c1 = ctr(f, 0);
    pcam_sim_target_stats ts;
    pcam_sim_target_stats_get(f->r.sim, 0, &ts);
    printf("QUEUE FULL: depth settled at %u (target holds 5), %u TASK SET FULL\n", depth, ts.task_set_full);
    assert_true(c1.queue_fulls > c0.queue_fulls);
    assert_int_equal(c1.retries, c0.retries); /* requeued, never retried */
    assert_true(ts.task_set_full > 0);
    assert_true(ts.max_tasks <= 5);
    assert_true(depth >= 1 && depth <= 8);
    pcam_sim_target_cfg(f->r.sim, 0)->task_set_limit = 0;
    assert_true(run_count(&f->r, &q->done, q->target, CHIPRIG_S(600)));
    assert_true(pcam_lun_depth(&f->r.bus, 0, 0) > depth);
    assert_int_equal(q->bad, 0);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(q->rc[i].done_count, 1);
    fx_free(f);
    free(q);
}

/* ---- CHECK CONDITION ---- */

static void test_check_condition(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->r.sim, 0, 0), 100), 0);
    static uint8_t buf[4 * 512];
    chiprig_ccb rd;
    read_tagged(&rd, 0, 99, 4, buf, PCAM_TAG_SIMPLE);
    uint32_t st = chiprig_sync(&f->r, &rd, CHIPRIG_S(5));
    assert_int_equal(st, PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID);
    assert_int_equal(rd.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(rd.sense[0] & 0x7F, 0x70);
    assert_int_equal(rd.sense[2] & 0x0F, 0x03);
    assert_int_equal(rd.sense[12], 0x11);
    /* and the next read is fine */
    chiprig_ccb ok;
    read_tagged(&ok, 0, 10, 2, buf, PCAM_TAG_SIMPLE);
    assert_int_equal(chiprig_sync(&f->r, &ok, CHIPRIG_S(5)), PCAM_REQ_CMP);
    assert_memory_equal(buf, f->r.stores[0][0] + 10 * 512, 1024);
    fx_free(f);
}

/* ---- the ladder ---- */

static void ladder(bool deaf_abort, bool deaf_reset)
{
    fx *f = fx_new(2, PCAM_SIM_DISC_ON_SEEK, NULL);
    static uint8_t bv[8 * 512], b[4][8 * 512];
    chiprig_ccb victim, by[4];
    chiprig_ccb *v[] = {&victim, &by[0], &by[1], &by[2], &by[3]};
    pcam_sim_target_config *tc0 = pcam_sim_target_cfg(f->r.sim, 0);
    tc0->refuse_abort = deaf_abort;
    tc0->refuse_reset = deaf_reset;
    tc0->ua_after_reset = false;
    pcam_sim_target_cfg(f->r.sim, 1)->ua_after_reset = false;
    tc0->hang_next = 1;
    read_tagged(&victim, 0, 10, 8, bv, PCAM_TAG_SIMPLE);
    victim.ccb.timeout_ms = 500;
    chiprig_submit(&f->r, &victim);
    for (unsigned i = 0; i < 4; i++) {
        read_tagged(&by[i], (uint8_t)(1u - (i & 1u) * 0u + 0u * i), 100 + 50 * i, 8, b[i], PCAM_TAG_SIMPLE);
        by[i].ccb.target = 1;
        chiprig_submit(&f->r, &by[i]);
    }
    assert_true(run_all(f, v, 5, CHIPRIG_S(30)));
    assert_int_equal(victim.ccb.status & PCAM_STATUS_MASK, PCAM_CMD_TIMEOUT);
    assert_int_equal(victim.done_count, 1);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(by[i].done_count, 1);
        assert_int_equal(by[i].ccb.status, PCAM_REQ_CMP);
        assert_memory_equal(b[i], f->r.stores[1][0] + (100 + 50 * i) * 512u, sizeof b[i]);
    }
    unsigned ab = ev_count(f, PCAM_EV_ABORT_SENT), bdr = ev_count(f, PCAM_EV_BDR_SENT),
             rst = ev_count(f, PCAM_EV_BUS_RESET);
    printf("ladder (deaf to aborts %d, to resets %d): ABORT TASK %u, BDR %u, bus resets %u\n", deaf_abort,
           deaf_reset, ab, bdr, rst);
    pcam_sim_target_stats t1;
    pcam_sim_target_stats_get(f->r.sim, 0, &t1);
    if (!deaf_abort) {
        assert_int_equal(ab, 1);
        assert_int_equal(bdr, 0);
        assert_int_equal(rst, 0);
        assert_int_equal(t1.aborted_tasks, 1);
    } else if (!deaf_reset) {
        assert_int_equal(bdr, 1);
        assert_int_equal(rst, 0);
    } else {
        assert_int_equal(bdr, 0);
        assert_int_equal(rst, 1);
    }
    assert_int_equal(pcam_sim_task_count(f->r.sim, 0, 0), 0);
    /* The bus goes on. */
    chiprig_ccb after;
    read_tagged(&after, 0, 20, 1, bv, PCAM_TAG_SIMPLE);
    assert_int_equal(chiprig_sync(&f->r, &after, CHIPRIG_S(10)), PCAM_REQ_CMP);
    assert_memory_equal(bv, f->r.stores[0][0] + 20 * 512, 512);
    fx_free(f);
}

static void test_ladder_abort(void **s)
{
    (void)s;
    ladder(false, false);
}

static void test_ladder_bdr(void **s)
{
    (void)s;
    ladder(true, false);
}

static void test_ladder_bus_reset(void **s)
{
    (void)s;
    ladder(true, true);
}

/* ---- tags ---- */

static void test_ordered_and_head_of_queue(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ALWAYS, NULL);
    static uint8_t b[12][4 * 512];
    chiprig_ccb c[12];
    chiprig_ccb *v[12];
    pcam_sim_target_stats t0, t1;
    pcam_sim_target_stats_get(f->r.sim, 0, &t0);
    for (unsigned i = 0; i < 12; i++) {
        uint8_t tag = i % 4 == 1 ? PCAM_TAG_ORDERED : i % 4 == 3 ? PCAM_TAG_HEAD_OF_QUEUE : PCAM_TAG_SIMPLE;
        read_tagged(&c[i], 0, 30 * i, 4, b[i], tag);
        v[i] = &c[i];
        chiprig_submit(&f->r, &c[i]);
    }
    assert_true(run_all(f, v, 12, CHIPRIG_S(10)));
    for (unsigned i = 0; i < 12; i++) {
        assert_int_equal(c[i].ccb.status, PCAM_REQ_CMP);
        assert_memory_equal(b[i], f->r.stores[0][0] + 30 * i * 512u, sizeof b[i]);
    }
    pcam_sim_target_stats_get(f->r.sim, 0, &t1);
    assert_int_equal(t1.ordered - t0.ordered, 3);
    assert_int_equal(t1.head_of_queue - t0.head_of_queue, 3);
    assert_int_equal(t1.simple - t0.simple, 6);
    fx_free(f);
}

/* ---- IGNORE WIDE RESIDUE ---- */

static void test_ignore_wide_residue(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    pcam_hal_xfer_params a;
    pcam_sim_target_agreement(f->r.sim, 0, &a);
    assert_int_equal(a.width, 1);
    pcam_sim_target_cfg(f->r.sim, 0)->wide_residue = true;
    /* INQUIRY with room for 35 and for 63 bytes: an odd DATA IN on a wide
     * bus ends with IGNORE WIDE RESIDUE. When the move ran to its end (35)
     * the pad stays in the chip; when the data ended early (63) the move
     * counted the pad and the residual must give it back. */
    uint8_t cdb[6] = {0x12, 0, 0, 0, 35, 0}, buf[80];
    chiprig_ccb c;
    pcam_sym_stats s0, s1;
    pcam_sym_get_stats(f->r.sc, &s0);
    memset(buf, 0xEE, sizeof buf);
    chiprig_io_sense(&c, 0, 0, cdb, 6, PCAM_DIR_IN, buf, 35);
    assert_int_equal(chiprig_sync(&f->r, &c, CHIPRIG_S(5)), PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 0);
    assert_int_equal(buf[35], 0xEE); /* nothing past the buffer */
    assert_memory_equal(buf + 8, "PCAMSIM ", 8);
    uint32_t len = (uint32_t)buf[4] + 5u;
    pcam_sym_get_stats(f->r.sc, &s1);
    assert_int_equal(s1.wide_residues - s0.wide_residues, 1);
    cdb[4] = 63;
    memset(buf, 0xEE, sizeof buf);
    chiprig_io_sense(&c, 0, 0, cdb, 6, PCAM_DIR_IN, buf, 63);
    assert_int_equal(chiprig_sync(&f->r, &c, CHIPRIG_S(5)), PCAM_REQ_CMP);
    uint32_t n = len < 63u ? len : 63u;
    printf("IGNORE WIDE RESIDUE: INQUIRY of %u bytes into 63: residual %u\n", len, c.ccb.u.io.resid);
    assert_int_equal(c.ccb.u.io.resid, 63u - n);
    pcam_sym_get_stats(f->r.sc, &s0);
    assert_int_equal(s0.wide_residues - s1.wide_residues, n % 2u);
    fx_free(f);
}

/* ---- parity ---- */

static void test_parity_step_down(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    pcam_hal_xfer_params a0, a1;
    pcam_sim_target_agreement(f->r.sim, 0, &a0);
    assert_int_equal(a0.period, 0x0C);
    pcam_sim_target_cfg(f->r.sim, 0)->parity_data_ppm = 200; /* about one error per 5,000 bytes */
    static uint8_t buf[8 * 512];
    unsigned ok = 0;
    for (unsigned i = 0; i < 60; i++) {
        chiprig_ccb c;
        read_tagged(&c, 0, 8 * i, 8, buf, PCAM_TAG_SIMPLE);
        c.ccb.u.io.retries = 8;
        uint32_t st = chiprig_sync(&f->r, &c, CHIPRIG_S(20));
        if (st == PCAM_REQ_CMP && memcmp(buf, f->r.stores[0][0] + 8 * i * 512u, sizeof buf) == 0)
            ok++;
    }
    pcam_sim_target_cfg(f->r.sim, 0)->parity_data_ppm = 0;
    pcam_counters c = ctr(f, 0);
    chiprig_ccb tr;
    memset(&tr, 0, sizeof tr);
    tr.ccb.func = PCAM_FN_GET_TRAN;
    tr.ccb.u.tran.type = PCAM_TRAN_CURRENT;
    assert_int_equal(chiprig_sync(&f->r, &tr, CHIPRIG_MS(1)), PCAM_REQ_CMP);
    /* One more command so the slower agreement is on the wire. */
    chiprig_ccb last;
    read_tagged(&last, 0, 0, 1, buf, PCAM_TAG_SIMPLE);
    assert_int_equal(chiprig_sync(&f->r, &last, CHIPRIG_S(5)), PCAM_REQ_CMP);
    pcam_sim_target_agreement(f->r.sim, 0, &a1);
    printf("parity: %u errors counted, %u/60 reads good, agreement 0x%02x/%u -> 0x%02x/%u (core: 0x%02x/%u)\n",
           c.parity_errors, ok, a0.period, a0.offset, a1.period, a1.offset, tr.ccb.u.tran.settings.period,
           tr.ccb.u.tran.settings.offset);
    assert_true(c.parity_errors >= 2);
    /* Stepped down: slower, or asynchronous. */
    assert_true(a1.offset == 0 || a1.period > a0.period);
    assert_int_equal(tr.ccb.u.tran.settings.offset, a1.offset);
    assert_true(ok >= 50);
    fx_free(f);
}

/* Parity errors on message-in bytes (IDENTIFY of reselections included):
 * every read still completes once with the right data. */
static void test_parity_messages(void **state)
{
    (void)state;
    fx *f = fx_new(2, PCAM_SIM_DISC_ALWAYS, NULL);
    for (uint8_t t = 0; t < 2; t++) {
        pcam_sim_target_cfg(f->r.sim, t)->parity_msg_ppm = 20000; /* 2% of message bytes */
        /* Bus resets follow some of them; their UNIT ATTENTION's REQUEST
         * SENSE could meet parity too, which the core (rightly) does not
         * retry: keep that out of this count. */
        pcam_sim_target_cfg(f->r.sim, t)->ua_after_reset = false;
    }
    enum { N = 16 };
    static uint8_t b[N][4 * 512];
    chiprig_ccb c[N];
    chiprig_ccb *v[N];
    unsigned good = 0, rounds = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 2 : 8;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < N; i++) {
            read_tagged(&c[i], (uint8_t)(i & 1u), 20 * i + r, 4, b[i], PCAM_TAG_SIMPLE);
            c[i].ccb.u.io.retries = 8;
            v[i] = &c[i];
            chiprig_submit(&f->r, &c[i]);
        }
        assert_true(run_all(f, v, N, CHIPRIG_S(120)));
        for (unsigned i = 0; i < N; i++) {
            assert_int_equal(c[i].done_count, 1);
            if (c[i].ccb.status == PCAM_REQ_CMP &&
                memcmp(b[i], f->r.stores[i & 1u][0] + (20 * i + r) * 512u, sizeof b[i]) == 0)
                good++;
            else
                printf("read %u/%u: status %s (0x%x), resid %u\n", r, i, pcam_status_name(c[i].ccb.status),
                       c[i].ccb.status, c[i].ccb.u.io.resid);
        }
    }
    pcam_sim_target_stats ts;
    pcam_sim_target_stats_get(f->r.sim, 0, &ts);
    printf("message parity: %u parity errors injected on target 0, %u/%u reads good\n", ts.parity_injected,
           good, rounds * N);
    assert_true(ts.parity_injected > 0);
    assert_int_equal(good, rounds * N);
    for (uint8_t t = 0; t < 2; t++)
        pcam_sim_target_cfg(f->r.sim, t)->parity_msg_ppm = 0;
    fx_free(f);
}

/* ---- BUSY, and a message pcam does not know ---- */

static void test_busy(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    pcam_counters c0 = ctr(f, 0);
    pcam_sim_target_cfg(f->r.sim, 0)->busy_next = 3;
    static uint8_t buf[4 * 512];
    chiprig_ccb c;
    read_tagged(&c, 0, 40, 4, buf, PCAM_TAG_SIMPLE);
    c.ccb.u.io.retries = 5;
    assert_int_equal(chiprig_sync(&f->r, &c, CHIPRIG_S(20)), PCAM_REQ_CMP);
    assert_memory_equal(buf, f->r.stores[0][0] + 40 * 512, sizeof buf);
    pcam_counters c1 = ctr(f, 0);
    pcam_sim_target_stats ts;
    pcam_sim_target_stats_get(f->r.sim, 0, &ts);
    assert_int_equal(ts.busy, 3);
    assert_int_equal(c1.busy - c0.busy, 3);
    fx_free(f);
}

typedef struct odd_msg {
    unsigned left;
} odd_msg;

/* After the CDB, send a reserved one-byte message (0x19) once. */
static bool odd_oracle(void *ctx, pcam_sim_oracle_query *q)
{
    odd_msg *o = ctx;
    if (q->what != PCAM_SIM_DEC_NEXT || q->phase != PCAM_PHASE_COMMAND || o->left == 0)
        return false;
    o->left--;
    q->action = PCAM_SIM_NEXT_MSG;
    q->bytes[0] = 0x19;
    q->len = 1;
    return true;
}

static void test_unknown_message(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    odd_msg o = {1};
    pcam_sim_target_cfg(f->r.sim, 0)->oracle = odd_oracle;
    pcam_sim_target_cfg(f->r.sim, 0)->oracle_ctx = &o;
    static uint8_t buf[2 * 512];
    chiprig_ccb c;
    read_tagged(&c, 0, 50, 2, buf, PCAM_TAG_SIMPLE);
    assert_int_equal(chiprig_sync(&f->r, &c, CHIPRIG_S(10)), PCAM_REQ_CMP);
    assert_memory_equal(buf, f->r.stores[0][0] + 50 * 512, sizeof buf);
    assert_int_equal(o.left, 0);
    drain(f);
    /* The core refused it: MESSAGE REJECT went out, the command went on. */
    bool rejected = false;
    for (size_t i = 0; i < f->nev; i++)
        if (f->ev[i].code == PCAM_EV_MSG_REJECT && f->ev[i].arg == 0x19)
            rejected = true;
    assert_true(rejected);
    pcam_sim_target_cfg(f->r.sim, 0)->oracle = NULL;
    fx_free(f);
}

/* ---- unexpected bus free ---- */

static void test_unexpected_free(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    pcam_sim_target_cfg(f->r.sim, 0)->unexpected_free_next = 1;
    static uint8_t buf[8 * 512];
    chiprig_ccb c;
    read_tagged(&c, 0, 64, 8, buf, PCAM_TAG_SIMPLE);
    assert_int_equal(chiprig_sync(&f->r, &c, CHIPRIG_S(10)), PCAM_REQ_CMP);
    assert_memory_equal(buf, f->r.stores[0][0] + 64 * 512, sizeof buf);
    drain(f);
    assert_true(ev_count(f, PCAM_EV_UNEXP_FREE) >= 1);
    assert_true(ctr(f, 0).retries >= 1);
    fx_free(f);
}

/* ---- a caller's device reset: nobody there, refused, taken ---- */

/* hal/sym tells the core why a reset did not happen: a selection nobody
 * answered is "no such device" (SEL_TIMEOUT), a target that refuses the
 * message is MSG_REJECT_REC; a caller (UEFI's ResetTargetLun) answers them
 * differently. */
static void test_reset_dev_outcomes(void **state)
{
    (void)state;
    fx *f = fx_new(1, PCAM_SIM_DISC_ON_SEEK, NULL);
    pcam_sim_target_stats ts;
    assert_int_equal(chiprig_func(&f->r, PCAM_FN_RESET_DEV, 9, 0) & PCAM_STATUS_MASK, PCAM_SEL_TIMEOUT);
    pcam_sim_target_cfg(f->r.sim, 0)->refuse_reset = true;
    assert_int_equal(chiprig_func(&f->r, PCAM_FN_RESET_DEV, 0, 0) & PCAM_STATUS_MASK, PCAM_MSG_REJECT_REC);
    pcam_sim_target_cfg(f->r.sim, 0)->refuse_reset = false;
    assert_int_equal(chiprig_func(&f->r, PCAM_FN_RESET_DEV, 0, 0) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    pcam_sim_target_stats_get(f->r.sim, 0, &ts);
    assert_int_equal(ts.refused, 1);
    assert_int_equal(ts.target_resets, 1);
    drain(f);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset_dev_outcomes),
        cmocka_unit_test(test_queue_full),
        cmocka_unit_test(test_check_condition),
        cmocka_unit_test(test_ladder_abort),
        cmocka_unit_test(test_ladder_bdr),
        cmocka_unit_test(test_ladder_bus_reset),
        cmocka_unit_test(test_ordered_and_head_of_queue),
        cmocka_unit_test(test_ignore_wide_residue),
        cmocka_unit_test(test_parity_step_down),
        cmocka_unit_test(test_parity_messages),
        cmocka_unit_test(test_busy),
        cmocka_unit_test(test_unknown_message),
        cmocka_unit_test(test_unexpected_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
