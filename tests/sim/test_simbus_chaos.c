/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Robustness of the simulated bus under arbitrary call sequences: seeded
 * random runs mixing sensible initiator steps (follow the phase of the last
 * event) with nonsense (wrong phases, bad arguments, resets at any time,
 * garbage messages and CDBs, behaviours switched mid-run). Whatever the
 * sequence, the bus must not crash, must not leak (ASan / Valgrind twins),
 * must keep time monotonic, must answer every accepted action with an event
 * or make progress, and must write a VCD whose times never go backwards.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simraw.h"
#include "pcam/pcam_msg.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return n != 0 ? (uint32_t)(z % n) : 0;
}

static const uint8_t cdbs[][16] = {
    {0x00},                                   /* TEST UNIT READY */
    {0x12, 0, 0, 0, 36, 0},                   /* INQUIRY */
    {0x03, 0, 0, 0, 18, 0},                   /* REQUEST SENSE */
    {0x25},                                   /* READ CAPACITY(10) */
    {0x28, 0, 0, 0, 0, 3, 0, 0, 4, 0},        /* READ(10) */
    {0x2A, 0, 0, 0, 0, 9, 0, 0, 2, 0},        /* WRITE(10) */
    {0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},  /* REPORT LUNS */
    {0x7F, 0, 0, 0, 0, 0, 0, 0xF8},           /* variable length, silly */
    {0xC5, 1, 2, 3, 4, 5},                    /* vendor */
    {0x28, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0}, /* READ far past the end */
};
static const uint8_t cdb_lens[] = {6, 6, 6, 10, 10, 10, 12, 16, 6, 10};

static const uint8_t msgs[][8] = {
    {0x01, 0x03, 0x01, 0x0C, 0x10},             /* SDTR */
    {0x01, 0x02, 0x03, 0x01},                   /* WDTR */
    {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x02}, /* PPR */
    {PCAM_MSG_ABORT_TASK},
    {PCAM_MSG_ABORT_TASK_SET},
    {PCAM_MSG_NO_OPERATION},
    {PCAM_MSG_MESSAGE_REJECT},
    {PCAM_MSG_MESSAGE_PARITY_ERROR},
    {PCAM_MSG_INITIATOR_DETECTED_ERROR},
    {PCAM_MSG_LOGICAL_UNIT_RESET},
    {PCAM_MSG_TARGET_RESET},
    {PCAM_MSG_CLEAR_TASK_SET},
    {0x01, 0x00},                               /* extended length 0: malformed */
    {0x01, 0x05, 0x7E, 1, 2, 3, 4},             /* unknown extended */
    {0x55},                                     /* QAS REQUEST */
    {0x23, 0x09},                               /* IGNORE WIDE RESIDUE from the initiator */
    {0x98},                                     /* IDENTIFY with reserved bits */
    {PCAM_MSG_SIMPLE_TAG, 3},
};
static const uint8_t msg_lens[] = {5, 4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 7, 1, 2, 1, 2};

static uint8_t data[65536];

static void random_target_cfg(pcam_sim_target_config *tc)
{
    pcam_sim_target_config_defaults(tc);
    tc->ua_power_on = rnd(2);
    tc->min_period = (uint8_t)(rnd(3) == 0 ? 0 : 0x09 + rnd(0x40));
    tc->max_offset = (uint8_t)rnd(32);
    tc->wide = rnd(2);
    tc->ppr_options = (uint8_t)rnd(8);
    tc->sdtr = (pcam_sim_nego)rnd(4);
    tc->wdtr = (pcam_sim_nego)rnd(4);
    tc->ppr = (pcam_sim_nego)rnd(4);
    tc->initiate_sdtr = rnd(3) == 0;
    tc->initiate_wdtr = rnd(3) == 0;
    tc->reject_tags = rnd(4) == 0;
    tc->task_set_limit = (uint16_t)rnd(5);
    tc->disconnect = rnd(2) ? PCAM_SIM_DISC_ALWAYS : (pcam_sim_disc)rnd(3);
    tc->illegal_phase = (uint8_t)(4 + rnd(2));
    tc->parity_data_ppm = rnd(3) == 0 ? rnd(3000) : 0;
    tc->parity_msg_ppm = rnd(3) == 0 ? rnd(100000) : 0;
}

static void poke_faults(pcam_sim_target_config *tc)
{
    switch (rnd(8)) {
    case 0:
        tc->hang_next = 1;
        break;
    case 1:
        tc->unexpected_free_next = 1;
        break;
    case 2:
        tc->illegal_phase_next = 1;
        break;
    case 3:
        tc->lie_tag_next = 1;
        break;
    case 4:
        tc->lie_lun_next = 1;
        break;
    case 5:
        tc->busy_next = 1;
        break;
    default:
        break;
    }
}

/* One sensible step from the phase of the last event. */
static void sensible(simraw *r, pcam_phase phase, bool held)
{
    const pcam_hal_ops *o = r->hal.ops;
    uint8_t m[8];

    if (held) {
        (void)o->msg_accept(r->hal.sc, rnd(5) == 0);
        return;
    }
    switch (phase) {
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT:
    case PCAM_PHASE_COMMAND:
    case PCAM_PHASE_STATUS: {
        pcam_sg sg[3];
        pcam_hal_xfer x;
        memset(&x, 0, sizeof x); /* may_accept and any field added later: off */
        uint32_t a = rnd(8192), b = rnd(8192);

        sg[0].addr = data;
        sg[0].len = a;
        sg[1].addr = data + 8192;
        sg[1].len = b;
        sg[2].addr = data + 16384;
        sg[2].len = 40000;
        memset(&x, 0, sizeof x);
        x.phase = phase;
        x.sg = sg;
        x.sg_count = (uint16_t)(1 + rnd(3));
        x.offset = rnd(4) == 0 ? rnd(1000) : 0;
        x.len = phase == PCAM_PHASE_COMMAND ? cdb_lens[rnd(sizeof cdb_lens)] : 1 + rnd(20000);
        if (phase == PCAM_PHASE_COMMAND)
            memcpy(data, cdbs[rnd(sizeof cdb_lens)], 16);
        (void)o->transfer(r->hal.sc, &x);
        break;
    }
    case PCAM_PHASE_MSG_IN:
        (void)o->msg_in(r->hal.sc);
        break;
    case PCAM_PHASE_MSG_OUT: {
        unsigned i = rnd(sizeof msg_lens);

        memcpy(m, msgs[i], sizeof m);
        (void)o->msg_out(r->hal.sc, m, msg_lens[i]);
        break;
    }
    default: {
        pcam_hal_select sel;
        memset(&sel, 0, sizeof sel); /* may_accept and any field added later: off */
        uint8_t sm[16];
        unsigned n = 0, i = rnd(2) ? 4 + rnd(2) : rnd(sizeof cdb_lens); /* mostly READ / WRITE */

        sm[n++] = (uint8_t)(0x80 | (rnd(4) ? 0x40 : 0) | (rnd(4) == 0 ? rnd(3) : 0));
        if (rnd(2)) {
            sm[n++] = (uint8_t)(PCAM_MSG_SIMPLE_TAG + rnd(3));
            sm[n++] = (uint8_t)rnd(6);
        }
        if (rnd(4) == 0) {
            unsigned k = rnd(sizeof msg_lens);

            memcpy(sm + n, msgs[k], msg_lens[k]);
            n += msg_lens[k];
        }
        memset(&sel, 0, sizeof sel);
        sel.target = (uint8_t)rnd(5);
        sel.atn = rnd(8) != 0;
        sel.msg = sm;
        sel.msg_len = (uint8_t)n;
        sel.cdb = cdbs[i];
        sel.cdb_len = rnd(8) == 0 ? (uint8_t)rnd(16) : cdb_lens[i];
        (void)o->select(r->hal.sc, &sel);
        break;
    }
    }
}

static void nonsense(simraw *r, pcam_sim *sim)
{
    const pcam_hal_ops *o = r->hal.ops;
    pcam_hal_xfer_params p;
    uint8_t m[8];

    switch (rnd(12)) {
    case 0:
        (void)o->reset_bus(r->hal.sc);
        break;
    case 1:
        (void)o->reset_chip(r->hal.sc);
        break;
    case 2:
        pcam_sim_bus_reset(sim);
        break;
    case 3:
        (void)o->set_atn(r->hal.sc);
        break;
    case 4:
        p.period = (uint8_t)rnd(256);
        p.offset = (uint8_t)rnd(64);
        p.width = (uint8_t)rnd(3);
        p.ppr_options = (uint8_t)rnd(256);
        (void)o->set_xfer(r->hal.sc, (uint8_t)rnd(20), rnd(10) == 0 ? NULL : &p);
        break;
    case 5:
        (void)o->msg_in(r->hal.sc);
        break;
    case 6:
        (void)o->msg_accept(r->hal.sc, rnd(2));
        break;
    case 7: {
        unsigned i = rnd(sizeof msg_lens);

        memcpy(m, msgs[i], sizeof m);
        (void)o->msg_out(r->hal.sc, rnd(10) == 0 ? NULL : m, rnd(10) == 0 ? 0 : msg_lens[i]);
        break;
    }
    case 8:
        sensible(r, (pcam_phase)rnd(9), false);
        break;
    case 9:
        (void)o->transfer(r->hal.sc, NULL);
        break;
    case 10: {
        pcam_sg sg = {NULL, 5};
        pcam_hal_xfer x = {(pcam_phase)rnd(9), &sg, 1, 0, 5, false};
        (void)o->transfer(r->hal.sc, &x);
        break;
    }
    default:
        pcam_sim_advance(sim, pcam_sim_now(sim) + rnd(3000000));
        break;
    }
}

static void check_vcd_monotonic(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[128];
    unsigned long long last = 0, t;
    bool first = true;

    assert_non_null(f);
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] != '#')
            continue;
        t = strtoull(line + 1, NULL, 10);
        if (!first)
            assert_true(t > last);
        first = false;
        last = t;
    }
    fclose(f);
}

static void one_run(uint64_t seed, int steps, bool vcd)
{
    pcam_sim_config sc;
    pcam_sim_target_config tc;
    pcam_sim *sim;
    uint8_t *stores[4];
    simraw r;
    pcam_phase phase = PCAM_PHASE_BUS_FREE;
    bool held = false;
    char path[] = "/tmp/pcam_simbus_chaos_XXXXXX";
    uint64_t last_now = 0;
    int i, fd = -1;

    rng_state = seed;
    pcam_sim_config_defaults(&sc);
    sc.seed = seed;
    sc.width = rnd(4) == 0 ? 8 : 16;
    sc.strict_xfer = rnd(2);
    sc.trace_entries = rnd(3) == 0 ? 0 : 64;
    sc.sel_timeout_ns = 1000000;
    sim = pcam_sim_create(&sc);
    assert_non_null(sim);
    for (i = 0; i < 4; i++) {
        random_target_cfg(&tc);
        stores[i] = simraw_add_disk(sim, (uint8_t)i, 0, &tc, 32, rnd(200000));
        assert_non_null(stores[i]);
    }
    if (vcd) {
        fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(pcam_sim_vcd_open(sim, path), 0);
    }
    simraw_init(&r, sim);
    for (i = 0; i < steps; i++) {
        pcam_hal_event ev;

        if (rnd(50) == 0)
            poke_faults(pcam_sim_target_cfg(sim, (uint8_t)rnd(4)));
        if (rnd(20) == 0)
            nonsense(&r, sim);
        else if (phase == PCAM_PHASE_BUS_FREE && !held && rnd(2) == 0)
            pcam_sim_advance(sim, pcam_sim_now(sim) + rnd(400000)); /* let targets reselect */
        else
            sensible(&r, phase, held);
        /* Let the bus run until it has something to say (bounded). */
        {
            int k;

            for (k = 0; k < 64 && !pcam_sim_event_pending(sim); k++) {
                uint64_t t = pcam_sim_next_time(sim);

                if (t == UINT64_MAX)
                    break;
                assert_true(t >= pcam_sim_now(sim));
                pcam_sim_advance(sim, t);
            }
        }
        while (r.hal.ops->poll(r.hal.sc, &ev) == 1) {
            assert_true(ev.type >= PCAM_HAL_EV_SELECT_DONE && ev.type <= PCAM_HAL_EV_GROSS_ERROR);
            if (ev.type == PCAM_HAL_EV_GROSS_ERROR) {
                /* What a core does: reset the chip, and often the bus. */
                if (rnd(4) == 0) {
                    (void)r.hal.ops->reset_chip(r.hal.sc);
                    (void)r.hal.ops->reset_bus(r.hal.sc);
                }
                continue;
            }
            phase = ev.phase;
            held = ev.type == PCAM_HAL_EV_MSG_BYTE || ev.type == PCAM_HAL_EV_RESELECTED;
            if (ev.type == PCAM_HAL_EV_BUS_FREE || ev.type == PCAM_HAL_EV_BUS_RESET ||
                ev.type == PCAM_HAL_EV_SEL_TIMEOUT)
                phase = PCAM_PHASE_BUS_FREE;
        }
        assert_true(pcam_sim_now(sim) >= last_now);
        last_now = pcam_sim_now(sim);
    }
    if (vcd) {
        assert_int_equal(pcam_sim_vcd_close(sim), 0);
        check_vcd_monotonic(path);
        remove(path);
    }
    pcam_sim_destroy(sim);
    for (i = 0; i < 4; i++)
        free(stores[i]);
}

static void random_sequences_never_break_the_bus(void **state)
{
    /* Valgrind is ~50x slower: a shorter run there (PCAM_UNDER_MEMCHECK). */
    bool short_run = getenv("PCAM_UNDER_MEMCHECK") != NULL;
    uint64_t seed, seeds = short_run ? 12 : 60;

    (void)state;
    for (seed = 1; seed <= seeds; seed++)
        one_run(seed, short_run ? 1000 : 2000, seed % 8 == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_sequences_never_break_the_bus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
