/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core driving a command-level adapter (and its script-level flavour)
 * on the simulated bus, part 1: scan, data integrity at depth, and
 * negotiation by target behaviour. The adapter (hal/sim/sim_cmdlevel.c)
 * runs the phases; the core keeps the queues, tags, negotiation and
 * recovery and answers the adapter's questions (pcam_hal.h, hal_cmd).
 *
 * Expectations: the scan configuration below; the media pattern
 * simrig_add_disk writes (byte i of target t, LUN l is i * 7 + t * 13 + l)
 * and the test's own reference copy; the negotiated agreements worked out by
 * hand in test_core_nego.c (SPI-3 4.11-4.13: WDTR before SDTR, PPR only when
 * the goal needs it, answers never faster than asked, the MESSAGE REJECT
 * ladder), which must come out the same whoever runs the phases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdrig.h"
#include "iowork.h"

/* ------------------------------------------------------------------ */
/* Scan: disks at IDs 1 and 4 (ID 4 with LUNs 0 and 2), nothing elsewhere. */

static void scan_case(bool polled, pcam_hal_profile profile)
{
    cmdrig c;
    pcam_simcmd_config ac;
    pcam_simcmd_config_defaults(&ac);
    ac.profile = profile;
    assert_int_equal(cmdrig_init(&c, NULL, NULL, &ac, polled), PCAM_OK);
    assert_non_null(simrig_add_disk(&c.r, 1, 0, 256, NULL));
    assert_non_null(simrig_add_disk(&c.r, 4, 0, 256, NULL));
    assert_non_null(simrig_add_disk(&c.r, 4, 2, 128, NULL));
    assert_int_equal(cmdrig_scan(&c), PCAM_REQ_CMP);

    for (uint8_t t = 0; t < 16; t++) {
        if (t == 7)
            continue;
        for (uint8_t l = 0; l < 8; l++) {
            rig_ccb d;
            memset(&d, 0, sizeof d);
            d.ccb.func = PCAM_FN_GET_DEV;
            d.ccb.target = t;
            d.ccb.lun = l;
            uint32_t st = rig_sync(&c.r, &d, RIG_MS(1));
            bool want = (t == 1 && l == 0) || (t == 4 && (l == 0 || l == 2));
            assert_int_equal(st, want ? PCAM_REQ_CMP : PCAM_DEV_NOT_THERE);
            assert_int_equal(d.ccb.u.dev.present, want);
            if (want) {
                assert_int_equal(d.ccb.u.dev.type, 0x00); /* direct access */
                assert_memory_equal(d.ccb.u.dev.inquiry + 8, "PCAMSIM ", 8);
            }
        }
    }
    /* Path inquiry tells which kind of back-end runs the bus. */
    rig_ccb pi;
    memset(&pi, 0, sizeof pi);
    pi.ccb.func = PCAM_FN_PATH_INQ;
    assert_int_equal(rig_sync(&c.r, &pi, RIG_MS(1)), PCAM_REQ_CMP);
    assert_string_equal(pi.ccb.u.pathinq.chip_name,
                        profile == PCAM_HAL_SCRIPT_LEVEL ? "pcam-sim-script" : "pcam-sim-mailbox");
    assert_true((pi.ccb.u.pathinq.hal_flags & PCAM_HAL_CAP_AUTOSENSE) != 0);
    /* The adapter ran the commands; the core asked nothing of a phase-level chip. */
    pcam_simcmd_stats s = cmdrig_stats(&c);
    assert_true(s.started > 0);
    assert_int_equal(s.started, s.completed);
    assert_true(s.nego_asked > 0);
    assert_null(c.r.violation);
    cmdrig_fini(&c);
}

static void scan_cmd(void **state)
{
    (void)state;
    scan_case(false, PCAM_HAL_COMMAND_LEVEL);
}

static void scan_script_polled(void **state)
{
    (void)state;
    scan_case(true, PCAM_HAL_SCRIPT_LEVEL);
}

/* ------------------------------------------------------------------ */
/* Integrity: random READ/WRITE(6/10/16) of 1-64 blocks, flat buffers and
 * 1-3 element scatter-gather lists, on 4 disks at depth 32 each (128
 * commands in flight against an adapter that holds 64, so the core also
 * waits for room), tagged; checked against a reference copy, every CCB
 * exactly once. */

#define DISKS 4
#define DEPTH 32
#define BLOCKS 4096u

typedef struct run {
    cmdrig c;
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

static void integrity(bool polled, pcam_hal_profile profile, bool autosense, uint64_t count)
{
    run *u = calloc(1, sizeof *u);
    uint8_t *media[DISKS];
    char name[64];
    assert_non_null(u);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.seed = 0xC0DE;
    pcam_simcmd_config ac;
    pcam_simcmd_config_defaults(&ac);
    ac.profile = profile;
    ac.autosense = autosense;
    assert_int_equal(cmdrig_init(&u->c, &sc, NULL, &ac, polled), PCAM_OK);
    u->c.r.check_every = 97;
    for (uint8_t d = 0; d < DISKS; d++) {
        media[d] = simrig_add_disk(&u->c.r, d, 0, BLOCKS, NULL);
        assert_non_null(media[d]);
    }
    snprintf(name, sizeof name, "cmdlevel integrity(%s, %s)",
             profile == PCAM_HAL_SCRIPT_LEVEL ? "script" : "command", polled ? "polled" : "interrupt");
    iowork_cfg wc = {.name = name, .disks = DISKS, .depth = DEPTH, .blocks = BLOCKS, .max_blocks = 64,
                     .cdb_sizes = IOWORK_CDB6 | IOWORK_CDB10 | IOWORK_CDB16, .sense = true,
                     .commands = cmdrig_under_memcheck() ? count / 20 : count,
                     .seed = 0x9E3779B97F4A7C15ull, .rig = &u->c.r, .submit = submit};
    assert_true(iowork_init(&u->w, &wc, media));
    IOWORK_BIND(&u->w, u->rc, slot_done);
    assert_int_equal(cmdrig_scan(&u->c), PCAM_REQ_CMP);
    iowork_start(&u->w);
    bool ok = simrig_run_until_count(&u->c.r, &u->w.completed, wc.commands, RIG_S(3600));
    pcam_simcmd_stats st = cmdrig_stats(&u->c);
    fprintf(stderr, "%s: adapter full %u times, sim %.3f s\n", name, st.full,
            (double)pcam_sim_now(u->c.r.sim) / 1e9);
    assert_true(ok);
    assert_true(iowork_verify(&u->w, media));
    assert_null(u->c.r.violation);
    assert_null(pcam_bus_check_invariants(&u->c.r.bus));
    /* 128 in flight against 64 slots: the core waited for room. */
    assert_true(st.full > 0);
    assert_true(st.reconnects > 0);
    for (uint8_t d = 0; d < DISKS; d++) {
        pcam_sim_target_stats ts;
        pcam_sim_target_stats_get(u->c.r.sim, d, &ts);
        assert_true(ts.simple > 0);      /* tags from the core's allocator */
        assert_true(ts.disconnects > 0); /* and the adapter reconnected them */
        assert_true(ts.max_tasks > 1);
        /* The power-on UNIT ATTENTION came as CHECK CONDITION and was retried. */
        assert_true(ts.check_conditions > 0);
        /* The agreement both ends hold: the core's and the target's. */
        pcam_hal_xfer_params tgt, chip;
        pcam_sim_target_agreement(u->c.r.sim, d, &tgt);
        pcam_sim_chip_xfer(u->c.r.sim, d, &chip);
        rig_ccb tr;
        memset(&tr, 0, sizeof tr);
        tr.ccb.func = PCAM_FN_GET_TRAN;
        tr.ccb.target = d;
        tr.ccb.u.tran.type = PCAM_TRAN_CURRENT;
        assert_int_equal(rig_sync(&u->c.r, &tr, RIG_MS(1)), PCAM_REQ_CMP);
        assert_int_equal(tr.ccb.u.tran.settings.period, tgt.period);
        assert_int_equal(tr.ccb.u.tran.settings.offset, tgt.offset);
        assert_int_equal(tr.ccb.u.tran.settings.width, tgt.width);
        assert_int_equal(chip.offset, tgt.offset);
        /* Default target (SPI-2) and chip: wide 0x0C/16 (test_core_nego.c BASE). */
        assert_int_equal(tgt.period, 0x0C);
        assert_int_equal(tgt.offset, 16);
        assert_int_equal(tgt.width, 1);
    }
    if (autosense)
        assert_true(st.autosense > 0);
    else
        assert_int_equal(st.autosense, 0);
    iowork_fini(&u->w);
    cmdrig_fini(&u->c);
    free(u);
}

static void integrity_cmd_interrupt(void **state)
{
    (void)state;
    integrity(false, PCAM_HAL_COMMAND_LEVEL, true, 20000);
}

static void integrity_cmd_polled(void **state)
{
    (void)state;
    integrity(true, PCAM_HAL_COMMAND_LEVEL, true, 10000);
}

static void integrity_script_core_sense(void **state)
{
    (void)state;
    integrity(false, PCAM_HAL_SCRIPT_LEVEL, false, 10000);
}

/* ------------------------------------------------------------------ */
/* Negotiation by target behaviour (cases and hand-worked agreements from
 * test_core_nego.c): the core's CURRENT agreement, the target's and the
 * chip mode the core programmed through set_xfer must all equal the
 * expectation, and data must then verify at that rate. */

#define NTID 3
#define CAPS_ST (PCAM_HAL_CAP_WIDE | PCAM_HAL_CAP_TAGS | PCAM_HAL_CAP_PARITY | PCAM_HAL_CAP_SYNC)
#define CAPS_DT (CAPS_ST | PCAM_HAL_CAP_DT)
#define DT PCAM_PPR_DT_REQ

typedef struct ncase {
    uint8_t cap_min_period, cap_max_offset;
    uint32_t cap_flags;
    pcam_sim_nego sdtr, wdtr, ppr;
    bool counter, ppr_target, initiate;
    uint8_t period, offset, width, opts; /* expected */
} ncase;

static void nego_case(const ncase *k, bool polled)
{
    cmdrig c;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.cap_min_period = k->cap_min_period;
    sc.cap_max_offset = k->cap_max_offset;
    sc.cap_flags = k->cap_flags;
    assert_int_equal(cmdrig_init(&c, &sc, NULL, NULL, polled), PCAM_OK);
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.sdtr = k->sdtr;
    tc.wdtr = k->wdtr;
    tc.ppr = k->ppr;
    if (k->counter) {
        tc.counter_period = 0x19;
        tc.counter_offset = 8;
    }
    if (k->ppr_target) {
        tc.min_period = 0x09;
        tc.max_offset = 24;
        tc.ppr_options = DT;
    }
    tc.initiate_wdtr = tc.initiate_sdtr = k->initiate;
    uint8_t *m = simrig_add_disk(&c.r, NTID, 0, 256, &tc);
    assert_non_null(m);
    rig_ccb ut;
    memset(&ut, 0, sizeof ut);
    ut.ccb.func = PCAM_FN_GET_TRAN;
    ut.ccb.target = NTID;
    ut.ccb.u.tran.type = PCAM_TRAN_USER;
    assert_int_equal(rig_sync(&c.r, &ut, RIG_MS(1)), PCAM_REQ_CMP);
    pcam_xfer_settings user = ut.ccb.u.tran.settings;
    if (k->initiate) {
        /* The simulated target starts only on a connection where we sent
         * nothing: user limits asynchronous narrow leave the core nothing to
         * ask, so it answers the target's WDTR(16) with WDTR(8) and its
         * SDTR with offset 0 (test_core_nego.c, target_initiated). */
        ut.ccb.func = PCAM_FN_SET_TRAN;
        ut.ccb.u.tran.settings.period = ut.ccb.u.tran.settings.offset = 0;
        ut.ccb.u.tran.settings.width = ut.ccb.u.tran.settings.ppr_options = 0;
        assert_int_equal(rig_sync(&c.r, &ut, RIG_MS(1)), PCAM_REQ_CMP);
    }
    assert_int_equal(cmdrig_scan(&c), PCAM_REQ_CMP);
    if (k->initiate) {
        pcam_hal_xfer_params a0;
        pcam_sim_target_stats t0;
        pcam_sim_target_agreement(c.r.sim, NTID, &a0);
        pcam_sim_target_stats_get(c.r.sim, NTID, &t0);
        assert_int_equal(a0.offset, 0);
        assert_int_equal(a0.width, 0);
        assert_int_equal(t0.nego_initiated, 2);
        assert_int_equal(t0.nego_received, 2); /* our two answers */
        assert_true(cmdrig_stats(&c).msgs_to_core >= 2);
        /* Back to the chip's limits: the next command carries our own. */
        ut.ccb.func = PCAM_FN_SET_TRAN;
        ut.ccb.u.tran.settings = user;
        assert_int_equal(rig_sync(&c.r, &ut, RIG_MS(1)), PCAM_REQ_CMP);
    }

    /* A write then a read-back of 16 blocks at the agreed rate. */
    static uint8_t wbuf[16 * 512], rbuf[16 * 512];
    for (size_t i = 0; i < sizeof wbuf; i++)
        wbuf[i] = (uint8_t)(i * 5u + 1u);
    rig_ccb w, r;
    cmdrig_rw(&w, true, NTID, 0, 40, 16, wbuf);
    assert_int_equal(rig_sync(&c.r, &w, RIG_S(5)), PCAM_REQ_CMP);
    cmdrig_rw(&r, false, NTID, 0, 40, 16, rbuf);
    assert_int_equal(rig_sync(&c.r, &r, RIG_S(5)), PCAM_REQ_CMP);
    assert_memory_equal(rbuf, wbuf, sizeof wbuf);
    assert_memory_equal(m + 40 * 512, wbuf, sizeof wbuf);

    pcam_hal_xfer_params tgt, chip;
    pcam_sim_target_agreement(c.r.sim, NTID, &tgt);
    pcam_sim_chip_xfer(c.r.sim, NTID, &chip);
    rig_ccb tr;
    memset(&tr, 0, sizeof tr);
    tr.ccb.func = PCAM_FN_GET_TRAN;
    tr.ccb.target = NTID;
    tr.ccb.u.tran.type = PCAM_TRAN_CURRENT;
    assert_int_equal(rig_sync(&c.r, &tr, RIG_MS(1)), PCAM_REQ_CMP);
    const pcam_xfer_settings *cur = &tr.ccb.u.tran.settings;
    uint8_t got[3][4] = {{cur->period, cur->offset, cur->width, cur->ppr_options},
                         {tgt.period, tgt.offset, tgt.width, tgt.ppr_options},
                         {chip.period, chip.offset, chip.width, chip.ppr_options}};
    uint8_t want[4] = {k->period, k->offset, k->width, k->opts};
    for (unsigned i = 0; i < 3; i++)
        assert_memory_equal(got[i], want, 4);
    pcam_simcmd_stats s = cmdrig_stats(&c);
    pcam_sim_target_stats ts;
    pcam_sim_target_stats_get(c.r.sim, NTID, &ts);
    /* The target's negotiation messages reached the core through the adapter. */
    if (ts.nego_received > 0 && (k->sdtr != PCAM_SIM_NEGO_IGNORE || k->wdtr != PCAM_SIM_NEGO_IGNORE))
        assert_true(s.msgs_to_core > 0 || k->sdtr == PCAM_SIM_NEGO_REJECT);
    if (k->initiate)
        assert_true(ts.nego_initiated > 0);
    assert_null(c.r.violation);
    cmdrig_fini(&c);
}

/* accept: chip ST 0x0A/31: WDTR(16) then SDTR answered 0x0C/16. */
static void nego_accept(void **state)
{
    (void)state;
    ncase k = {0x0A, 31, CAPS_ST, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_REJECT,
               false, false, false, 0x0C, 16, 1, 0};
    nego_case(&k, false);
}

/* PPR rejected (SPI-2 target) -> WDTR+SDTR in the same connection. */
static void nego_ppr_rejected(void **state)
{
    (void)state;
    ncase k = {0x19, 12, CAPS_DT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_REJECT,
               false, false, false, 0x19, 12, 1, 0};
    nego_case(&k, true);
}

/* PPR accepted by a DT target: 0x09/24 wide DT. */
static void nego_ppr_accepted(void **state)
{
    (void)state;
    ncase k = {0x09, 31, CAPS_DT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT,
               false, true, false, 0x09, 24, 1, DT};
    nego_case(&k, false);
}

/* Counter-offers: WDTR answered 8-bit, SDTR answered 0x19/8. */
static void nego_counter(void **state)
{
    (void)state;
    ncase k = {0x09, 31, CAPS_DT, PCAM_SIM_NEGO_COUNTER, PCAM_SIM_NEGO_COUNTER, PCAM_SIM_NEGO_REJECT,
               true, false, false, 0x19, 8, 0, 0};
    nego_case(&k, false);
}

/* Everything rejected: the bottom of the ladder, narrow async. */
static void nego_reject(void **state)
{
    (void)state;
    ncase k = {0x09, 31, CAPS_DT, PCAM_SIM_NEGO_REJECT, PCAM_SIM_NEGO_REJECT, PCAM_SIM_NEGO_REJECT,
               false, false, false, 0, 0, 0, 0};
    nego_case(&k, true);
}

/* Wide rejected, sync only: narrow 0x0C/16. */
static void nego_wide_rejected(void **state)
{
    (void)state;
    ncase k = {0x09, 31, CAPS_DT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_REJECT, PCAM_SIM_NEGO_REJECT,
               false, false, false, 0x0C, 16, 0, 0};
    nego_case(&k, false);
}

/* Ignored everywhere: SPI reads silence as a reject; narrow async. */
static void nego_ignore(void **state)
{
    (void)state;
    ncase k = {0x09, 31, CAPS_DT, PCAM_SIM_NEGO_IGNORE, PCAM_SIM_NEGO_IGNORE, PCAM_SIM_NEGO_IGNORE,
               false, false, false, 0, 0, 0, 0};
    nego_case(&k, false);
}

/* The target starts WDTR and SDTR itself; the core answers through the
 * adapter and the result is the same wide 0x0C/16 (test_core_nego.c). */
static void nego_target_initiated(void **state)
{
    (void)state;
    ncase k = {0x09, 31, CAPS_DT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_ACCEPT, PCAM_SIM_NEGO_REJECT,
               false, false, true, 0x0C, 16, 1, 0};
    nego_case(&k, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scan_cmd),
        cmocka_unit_test(scan_script_polled),
        cmocka_unit_test(nego_accept),
        cmocka_unit_test(nego_ppr_rejected),
        cmocka_unit_test(nego_ppr_accepted),
        cmocka_unit_test(nego_counter),
        cmocka_unit_test(nego_reject),
        cmocka_unit_test(nego_wide_rejected),
        cmocka_unit_test(nego_ignore),
        cmocka_unit_test(nego_target_initiated),
        cmocka_unit_test(integrity_cmd_interrupt),
        cmocka_unit_test(integrity_cmd_polled),
        cmocka_unit_test(integrity_script_core_sense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
