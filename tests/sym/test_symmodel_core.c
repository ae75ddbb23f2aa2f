/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym with the core on the SCRIPTS-level model (tests/sym/model) over
 * hal/sim's bus and targets: what QEMU's lsi53c895a cannot show. The scan
 * finds disks on a wide bus (IDs above 7 included); the integrity workload
 * of tests/sim (random reads and writes, uneven scatter-gather, 4 disks x 8
 * tagged commands = 32 in flight) verifies every byte against a reference
 * copy with disconnects and SCRIPTS-resolved reselections, interrupt-driven
 * and in polled mode (pcam_bus_poll(), as UEFI runs it); and negotiation
 * by target behaviour (accept, counter-offer, reject, wide rejected,
 * ignored, target-initiated) ends with the core's, the target's and the
 * chip's agreement equal to the hand-worked expectation, data verified at
 * that rate. The model records every misuse of the chip; there must be none.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "pcam/pcam_cdb.h"
#include "sym_rig.h"

static void model_clean(const chiprig *r)
{
    if (symm_errors(r->model) != 0)
        fail_msg("model saw %llu driver mistakes, last: %s", (unsigned long long)symm_errors(r->model),
                 symm_last_error(r->model));
    assert_null(r->violation);
}

static void test_scan_wide(void **state)
{
    chiprig r;
    (void)state;
    assert_int_equal(srig_init(&r, NULL, 1), PCAM_OK);
    assert_non_null(chiprig_add_disk(&r, 0, 0, 256, NULL));
    assert_non_null(chiprig_add_disk(&r, 9, 0, 300, NULL));
    assert_non_null(chiprig_add_disk(&r, 9, 3, 310, NULL));
    assert_int_equal(chiprig_func(&r, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    for (uint8_t t = 0; t < 16; t++) {
        if (t == 7)
            continue;
        for (uint8_t l = 0; l < 4; l++) {
            chiprig_ccb c;
            memset(&c, 0, sizeof c);
            c.ccb.func = PCAM_FN_GET_DEV;
            c.ccb.target = t;
            c.ccb.lun = l;
            (void)chiprig_sync(&r, &c, CHIPRIG_S(1));
            bool want = (t == 0 && l == 0) || (t == 9 && (l == 0 || l == 3));
            assert_int_equal(c.ccb.u.dev.present, want);
        }
    }
    /* Data from a LUN above 0 on an ID above 7. */
    uint8_t buf[1024];
    assert_int_equal(chiprig_rw(&r, 9, 3, false, 5, 2, buf, true) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_memory_equal(buf, r.stores[9][3] + 5 * 512, 1024);
    model_clean(&r);
    chiprig_fini(&r);
}

/* ---- integrity ---- */

#define DISKS 4
#define DEPTH 8
#define BLOCKS 2048u
#define MAX_BLOCKS 64u

typedef struct slot {
    chiprig_ccb rc;
    uint8_t disk;
    bool write;
    uint64_t lba;
    uint32_t blocks;
    uint8_t *buf;
    pcam_sg sg[4];
} slot;

typedef struct run {
    chiprig r;
    uint8_t *ref[DISKS];
    uint8_t busy[DISKS][BLOCKS];
    slot slots[DISKS][DEPTH];
    uint64_t rng, submitted, completed, target, mismatches, errors, double_done;
} run;

static uint32_t rnd(run *u, uint32_t n)
{
    u->rng ^= u->rng << 13;
    u->rng ^= u->rng >> 7;
    u->rng ^= u->rng << 17;
    return (uint32_t)(u->rng % n);
}

static void issue(run *u, slot *s);

static void slot_done(chiprig_ccb *rc)
{
    slot *s = (slot *)rc;
    run *u = rc->test;
    uint32_t bytes = s->blocks * 512u;
    if (rc->done_count != 1)
        u->double_done++;
    if (rc->ccb.status != PCAM_REQ_CMP || rc->ccb.u.io.resid != 0) {
        u->errors++;
        fprintf(stderr, "command failed: disk %u lba %llu status %s (0x%x) resid %u\n", s->disk,
                (unsigned long long)s->lba, pcam_status_name(rc->ccb.status), rc->ccb.status,
                rc->ccb.u.io.resid);
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
    uint64_t lba;
    uint32_t blocks;
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
    int len;
    if (s->write) {
        for (uint32_t i = 0; i < blocks * 512u; i++)
            s->buf[i] = (uint8_t)rnd(u, 256);
        len = pcam_cdb_write(cdb, sizeof cdb, 10, lba, blocks, 0);
    } else {
        memset(s->buf, 0xEE, blocks * 512u);
        len = pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    }
    assert_true(len > 0);
    chiprig_io_sense(&s->rc, s->disk, 0, cdb, (uint8_t)len, s->write ? PCAM_DIR_OUT : PCAM_DIR_IN, s->buf,
            blocks * 512u);
    unsigned nsg = rnd(u, 4);
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
    u->submitted++;
    chiprig_submit(&u->r, &s->rc);
}

static bool run_until(chiprig *r, const uint64_t *count, uint64_t want, uint64_t limit_ns)
{
    uint64_t until = pcam_sim_now(r->sim) + limit_ns;
    while (*count < want)
        if (pcam_sim_now(r->sim) > until || !chiprig_step(r))
            return false;
    return true;
}

static void integrity(bool polled, uint64_t count)
{
    run *u = calloc(1, sizeof *u);
    assert_non_null(u);
    assert_int_equal(srig_init_mode(&u->r, NULL, 0xC0DE, polled), PCAM_OK);
    u->rng = 0x9E3779B97F4A7C15ull;
    u->target = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 400 : count;
    for (uint8_t d = 0; d < DISKS; d++) {
        uint8_t *m = chiprig_add_disk(&u->r, d, 0, BLOCKS, NULL);
        assert_non_null(m);
        u->ref[d] = malloc(BLOCKS * 512u);
        memcpy(u->ref[d], m, BLOCKS * 512u);
    }
    assert_int_equal(chiprig_func(&u->r, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    for (uint8_t d = 0; d < DISKS; d++)
        for (unsigned i = 0; i < DEPTH; i++) {
            u->slots[d][i].disk = d;
            u->slots[d][i].buf = malloc(MAX_BLOCKS * 512u);
            issue(u, &u->slots[d][i]);
        }
    bool ok = run_until(&u->r, &u->completed, u->target, CHIPRIG_S(3600));
    pcam_sym_stats st;
    symm_stats ms;
    pcam_sym_get_stats(u->r.sc, &st);
    symm_stats_get(u->r.model, &ms);
    fprintf(stderr, "sym integrity (%s): %llu commands, %llu mismatches, %llu errors; %llu interrupts, "
                    "%llu SCRIPTS instructions (%.1f per command), %llu reselections, max %u held, "
                    "sim %.3f s\n",
            polled ? "polled" : "interrupt", (unsigned long long)u->completed,
            (unsigned long long)u->mismatches, (unsigned long long)u->errors,
            (unsigned long long)st.interrupts,
            (unsigned long long)ms.insns, (double)ms.insns / (double)u->completed,
            (unsigned long long)ms.reselections, st.max_outstanding,
            (double)pcam_sim_now(u->r.sim) / 1e9);
    assert_true(ok);
    assert_int_equal(u->mismatches, 0);
    assert_int_equal(u->errors, 0);
    assert_int_equal(u->double_done, 0);
    model_clean(&u->r);
    assert_true(st.max_outstanding >= 24);
    assert_true(ms.reselections > 0);
    fprintf(stderr, "  script stops %llu (INT %llu, data phase mismatches %llu), done-ring interrupts %llu\n",
            (unsigned long long)st.script_irqs, (unsigned long long)ms.int_stops, (unsigned long long)st.mismatches,
            (unsigned long long)st.done_batches);
    /* About one interrupt per command (this rig services each at once, so
     * the done ring rarely holds more than one); the sim's disks sometimes
     * disconnect in the middle of data, and those phase mismatches are the
     * only script stops besides the scan's and the UNIT ATTENTIONs'. */
    assert_true(st.interrupts - st.script_irqs <= st.completed);
    assert_true(st.mismatches > 0);
    assert_true(st.script_irqs < 100);
    for (uint8_t d = 0; d < DISKS; d++) {
        pcam_sim_target_stats ts;
        pcam_sim_target_stats_get(u->r.sim, d, &ts);
        assert_true(ts.simple > 0);
        assert_true(ts.disconnects > 0);
        assert_true(ts.max_tasks > 1);
        pcam_hal_xfer_params tgt;
        pcam_sim_target_agreement(u->r.sim, d, &tgt);
        assert_int_equal(tgt.period, 0x0C);
        assert_int_equal(tgt.offset, 16);
        assert_int_equal(tgt.width, 1);
    }
    /* Drain, then the disks equal the reference copies. */
    u->target = u->submitted;
    assert_true(run_until(&u->r, &u->completed, u->submitted, CHIPRIG_S(60)));
    for (uint8_t d = 0; d < DISKS; d++) {
        assert_memory_equal(u->r.stores[d][0], u->ref[d], BLOCKS * 512u);
        for (unsigned i = 0; i < DEPTH; i++) {
            assert_int_equal(u->slots[d][i].rc.done_count, 1);
            free(u->slots[d][i].buf);
        }
        free(u->ref[d]);
    }
    assert_int_equal(symm_live_maps(u->r.model), 0);
    chiprig_fini(&u->r);
    free(u);
}

static void test_integrity_depth32(void **state)
{
    (void)state;
    integrity(false, 6000);
}

/* The same with no interrupts at all: pcam_bus_poll() drives the chip. */
static void test_integrity_polled(void **state)
{
    (void)state;
    integrity(true, 2000);
}

/* ---- negotiation ---- */

#define NTID 11

typedef struct ncase {
    pcam_sim_nego sdtr, wdtr;
    bool counter, initiate;
    uint8_t period, offset, width; /* expected */
} ncase;

static void nego_case(const ncase *k)
{
    chiprig r;
    assert_int_equal(srig_init(&r, NULL, 7), PCAM_OK);
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.sdtr = k->sdtr;
    tc.wdtr = k->wdtr;
    if (k->counter) {
        tc.counter_period = 0x19;
        tc.counter_offset = 8;
    }
    tc.initiate_wdtr = tc.initiate_sdtr = k->initiate;
    uint8_t *m = chiprig_add_disk(&r, NTID, 0, 256, &tc);
    assert_non_null(m);
    chiprig_ccb ut;
    memset(&ut, 0, sizeof ut);
    ut.ccb.func = PCAM_FN_GET_TRAN;
    ut.ccb.target = NTID;
    ut.ccb.u.tran.type = PCAM_TRAN_USER;
    assert_int_equal(chiprig_sync(&r, &ut, CHIPRIG_MS(1)), PCAM_REQ_CMP);
    pcam_xfer_settings user = ut.ccb.u.tran.settings;
    if (k->initiate) {
        /* Asynchronous narrow user limits: the core only answers the
         * target's own WDTR and SDTR (test_core_nego.c, target_initiated). */
        ut.ccb.func = PCAM_FN_SET_TRAN;
        ut.ccb.u.tran.settings.period = ut.ccb.u.tran.settings.offset = 0;
        ut.ccb.u.tran.settings.width = ut.ccb.u.tran.settings.ppr_options = 0;
        assert_int_equal(chiprig_sync(&r, &ut, CHIPRIG_MS(1)), PCAM_REQ_CMP);
    }
    assert_int_equal(chiprig_func(&r, PCAM_FN_SCAN_LUN, NTID, 0) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    if (k->initiate) {
        pcam_hal_xfer_params a0;
        pcam_sim_target_stats t0;
        pcam_sim_target_agreement(r.sim, NTID, &a0);
        pcam_sim_target_stats_get(r.sim, NTID, &t0);
        assert_int_equal(a0.offset, 0);
        assert_int_equal(a0.width, 0);
        assert_int_equal(t0.nego_initiated, 2);
        assert_int_equal(t0.nego_received, 2); /* our two answers */
        ut.ccb.func = PCAM_FN_SET_TRAN;
        ut.ccb.u.tran.settings = user;
        assert_int_equal(chiprig_sync(&r, &ut, CHIPRIG_MS(1)), PCAM_REQ_CMP);
    }
    static uint8_t wbuf[16 * 512], rbuf[16 * 512];
    for (size_t i = 0; i < sizeof wbuf; i++)
        wbuf[i] = (uint8_t)(i * 5u + 1u);
    assert_int_equal(chiprig_rw(&r, NTID, 0, true, 40, 16, wbuf, true), PCAM_REQ_CMP);
    assert_int_equal(chiprig_rw(&r, NTID, 0, false, 40, 16, rbuf, true), PCAM_REQ_CMP);
    assert_memory_equal(rbuf, wbuf, sizeof wbuf);
    assert_memory_equal(m + 40 * 512, wbuf, sizeof wbuf);
    pcam_hal_xfer_params tgt, chip;
    pcam_sim_target_agreement(r.sim, NTID, &tgt);
    pcam_sim_chip_xfer(r.sim, NTID, &chip);
    chiprig_ccb tr;
    memset(&tr, 0, sizeof tr);
    tr.ccb.func = PCAM_FN_GET_TRAN;
    tr.ccb.target = NTID;
    tr.ccb.u.tran.type = PCAM_TRAN_CURRENT;
    assert_int_equal(chiprig_sync(&r, &tr, CHIPRIG_MS(1)), PCAM_REQ_CMP);
    const pcam_xfer_settings *cur = &tr.ccb.u.tran.settings;
    uint8_t got[3][3] = {{cur->period, cur->offset, cur->width},
                         {tgt.period, tgt.offset, tgt.width},
                         {chip.period, chip.offset, chip.width}};
    uint8_t want[3] = {k->period, k->offset, k->width};
    for (unsigned i = 0; i < 3; i++)
        assert_memory_equal(got[i], want, 3);
    model_clean(&r);
    chiprig_fini(&r);
}

/* 53C895A limits 0x0A/31 wide; SPI-2 default target 0x0C/16 wide. */
static void test_nego_accept(void **s)
{
    (void)s;
    ncase k = {PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT, false, false, 0x0C, 16, 1};
    nego_case(&k);
}

static void test_nego_counter(void **s)
{
    (void)s;
    ncase k = {PCAM_SIM_NEGO_COUNTER, PCAM_SIM_NEGO_COUNTER, true, false, 0x19, 8, 0};
    nego_case(&k);
}

static void test_nego_reject(void **s)
{
    (void)s;
    ncase k = {PCAM_SIM_NEGO_REJECT, PCAM_SIM_NEGO_REJECT, false, false, 0, 0, 0};
    nego_case(&k);
}

static void test_nego_wide_rejected(void **s)
{
    (void)s;
    ncase k = {PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_REJECT, false, false, 0x0C, 16, 0};
    nego_case(&k);
}

static void test_nego_ignore(void **s)
{
    (void)s;
    ncase k = {PCAM_SIM_NEGO_IGNORE, PCAM_SIM_NEGO_IGNORE, false, false, 0, 0, 0};
    nego_case(&k);
}

static void test_nego_target_initiated(void **s)
{
    (void)s;
    ncase k = {PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT, false, true, 0x0C, 16, 1};
    nego_case(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_wide),
        cmocka_unit_test(test_integrity_depth32),
        cmocka_unit_test(test_integrity_polled),
        cmocka_unit_test(test_nego_accept),
        cmocka_unit_test(test_nego_counter),
        cmocka_unit_test(test_nego_reject),
        cmocka_unit_test(test_nego_wide_rejected),
        cmocka_unit_test(test_nego_ignore),
        cmocka_unit_test(test_nego_target_initiated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
