/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym with the core on the SCRIPTS-level model (tests/sym/model) over
 * hal/sim's bus and targets: what QEMU's lsi53c895a cannot show. The scan
 * finds disks on a wide bus (IDs above 7 included); the integrity workload
 * of tests/support/iowork.h (random reads and writes, uneven scatter-gather, 4 disks x 8
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

#include "iowork.h"
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

typedef struct run {
    chiprig r;
    iowork w;
    chiprig_ccb rc[DISKS * DEPTH];
} run;

static void slot_done(chiprig_ccb *rc)
{
    iowork_done(rc->test);
}

static void submit(void *rig, iowork_slot *s)
{
    chiprig_submit(rig, (chiprig_ccb *)s->ccb);
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
    uint8_t *media[DISKS];
    assert_non_null(u);
    assert_int_equal(srig_init_mode(&u->r, NULL, 0xC0DE, polled), PCAM_OK);
    for (uint8_t d = 0; d < DISKS; d++) {
        media[d] = chiprig_add_disk(&u->r, d, 0, BLOCKS, NULL);
        assert_non_null(media[d]);
    }
    iowork_cfg wc = {.name = polled ? "sym integrity (polled)" : "sym integrity (interrupt)",
                     .disks = DISKS, .depth = DEPTH, .blocks = BLOCKS, .max_blocks = 64, .sense = true,
                     .commands = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 400 : count,
                     .seed = 0x9E3779B97F4A7C15ull, .rig = &u->r, .submit = submit};
    assert_true(iowork_init(&u->w, &wc, media));
    IOWORK_BIND(&u->w, u->rc, slot_done);
    assert_int_equal(chiprig_func(&u->r, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    iowork_start(&u->w);
    bool ok = run_until(&u->r, &u->w.completed, wc.commands, CHIPRIG_S(3600));
    pcam_sym_stats st;
    symm_stats ms;
    pcam_sym_get_stats(u->r.sc, &st);
    symm_stats_get(u->r.model, &ms);
    fprintf(stderr, "%s: %llu interrupts, "
                    "%llu SCRIPTS instructions (%.1f per command), %llu reselections, max %u held, "
                    "sim %.3f s\n",
            wc.name, (unsigned long long)st.interrupts,
            (unsigned long long)ms.insns, (double)ms.insns / (double)u->w.completed,
            (unsigned long long)ms.reselections, st.max_outstanding,
            (double)pcam_sim_now(u->r.sim) / 1e9);
    assert_true(ok);
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
    /* Every command done exactly once and the disks equal the reference copies. */
    assert_true(iowork_verify(&u->w, media));
    iowork_fini(&u->w);
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
