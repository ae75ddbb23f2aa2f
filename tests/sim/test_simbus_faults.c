/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Injected behaviours of the simulated targets and the recovery messages,
 * one test each, driven through the raw chip contract. Message codes from
 * SPI-3 (ABORT TASK 0Dh, ABORT TASK SET 06h, CLEAR TASK SET 0Eh, LOGICAL
 * UNIT RESET 17h, TARGET RESET 0Ch, INITIATOR DETECTED ERROR 05h, MESSAGE
 * PARITY ERROR 09h, RESTORE POINTERS 03h); sense codes from SPC-3 (29/00,
 * 29/03, 04/01, 11/00, 47/00).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "simraw.h"
#include "pcam/pcam_msg.h"

#define T 4

static const uint8_t tur[6] = {0};
static const uint8_t rd1[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
static const uint8_t rd8[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0};

typedef struct fixture {
    pcam_sim *sim;
    simraw r;
    uint8_t *store;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pcam_sim_target_config tc;

    assert_non_null(f);
    f->sim = pcam_sim_create(NULL);
    assert_non_null(f->sim);
    simraw_init(&f->r, f->sim);
    f->r.wait_limit_ns = 1000000000ull; /* 1 s: "never" for these tests */
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    f->store = simraw_add_disk(f->sim, T, 0, &tc, 256, 500000);
    assert_non_null(f->store);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;

    pcam_sim_destroy(f->sim);
    free(f->store);
    free(f);
    return 0;
}

static pcam_sim_target_config *cfg(fixture *f)
{
    return pcam_sim_target_cfg(f->sim, T);
}

static pcam_sim_target_stats stats(fixture *f)
{
    pcam_sim_target_stats st;

    pcam_sim_target_stats_get(f->sim, T, &st);
    return st;
}

static void queue_tagged(fixture *f, simraw_cmd *c, uint8_t *buf, uint8_t tag)
{
    simraw_cmd_init(c, T, 0, rd1, 10, buf, 512);
    c->disc = true;
    c->tag_type = PCAM_MSG_SIMPLE_TAG;
    c->tag = tag;
    assert_int_equal(simraw_start(&f->r, c), 0);
    assert_true(c->disconnected);
}

/* ---- hang ---- */

static void hung_command_disconnects_and_never_returns(void **state)
{
    fixture *f = *state;
    static const uint8_t abort_msg[4] = {0x80, PCAM_MSG_SIMPLE_TAG, 9, PCAM_MSG_ABORT_TASK};
    uint8_t buf[512];
    simraw_cmd c;

    cfg(f)->hang_next = 1;
    queue_tagged(f, &c, buf, 9);
    assert_int_equal(simraw_serve(&f->r), 0);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 1);
    /* ABORT TASK on the I_T_L_Q nexus: the target goes BUS FREE after it. */
    assert_int_equal(simraw_select(&f->r, T, true, abort_msg, 4, NULL, 0), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(f->r.ev.count, 4);
    assert_int_equal(f->r.ev.count2, 0);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    assert_int_equal(stats(f).aborted_tasks, 1);
    assert_int_equal(cfg(f)->hang_next, 0);
}

static void hung_command_without_disconnect_holds_the_bus(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80;
    uint8_t sense[18];
    simraw_cmd c;

    cfg(f)->hang_next = 1;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, rd1, 10), PCAM_HAL_EV_NONE);
    assert_true(pcam_sim_next_time(f->sim) == UINT64_MAX);
    assert_int_equal(f->r.hal.ops->reset_bus(f->r.hal.sc), 0);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_BUS_RESET);
    simraw_cmd_init(&c, T, 0, tur, 6, NULL, 0);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[2] & 0x0F, 0x06);
    assert_int_equal(sense[12], 0x29);
    assert_int_equal(sense[13], 0x00);
}

/* ---- unexpected bus free ---- */

static void unexpected_bus_free_half_way_through_the_data(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80;
    uint8_t buf[4096];
    simraw_cmd c;

    cfg(f)->unexpected_free_next = 1;
    cfg(f)->disconnect = PCAM_SIM_DISC_NEVER;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, rd8, 10), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 4096), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(f->r.ev.count, 2048);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_BUS_FREE);
    assert_memory_equal(buf, f->store, 2048);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    /* A command without data drops right after its CDB. */
    cfg(f)->unexpected_free_next = 1;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, tur, 6), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(f->r.ev.count, 1);
    assert_int_equal(f->r.ev.count2, 6);
    /* And the next one is fine. */
    assert_int_equal(simraw_simple(&f->r, T, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0);
}

/* ---- reserved phases ---- */

static void illegal_phase_after_the_cdb(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80, abort_msg = PCAM_MSG_ABORT_TASK;
    uint8_t b = 0;

    cfg(f)->illegal_phase_next = 2;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_RESERVED4);
    /* No transfer in a reserved phase: refused, and a GROSS_ERROR event. */
    {
        pcam_sg sg = {&b, 1};
        pcam_hal_xfer x = {PCAM_PHASE_RESERVED4, &sg, 1, 0, 1, false};

        assert_true(f->r.hal.ops->transfer(f->r.hal.sc, &x) < 0);
        assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_GROSS_ERROR);
    }
    /* The target honours ATN there: ABORT TASK ends it. */
    assert_int_equal(f->r.hal.ops->set_atn(f->r.hal.sc), 0);
    assert_int_equal(simraw_msg_out(&f->r, &abort_msg, 1), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    cfg(f)->illegal_phase = 5;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_RESERVED5);
}

/* ---- parity ---- */

static void data_in_parity_error_is_answered_by_restore_pointers(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80, ide = PCAM_MSG_INITIATOR_DETECTED_ERROR;
    uint8_t buf[512];

    cfg(f)->disconnect = PCAM_SIM_DISC_NEVER;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, rd1, 10), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    cfg(f)->parity_data_ppm = 1000000; /* every byte */
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 512), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.count, 512);
    assert_true(f->r.ev.parity_error);
    /* The chip raised ATN itself: the target went to MESSAGE OUT. */
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_OUT);
    assert_memory_not_equal(buf, f->store, 512);
    assert_int_equal(stats(f).parity_injected, 512);
    cfg(f)->parity_data_ppm = 0;
    assert_int_equal(simraw_msg_out(&f->r, &ide, 1), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_RESTORE_POINTERS);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 512), PCAM_HAL_EV_XFER_DONE);
    assert_false(f->r.ev.parity_error);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    assert_memory_equal(buf, f->store, 512);
}

static void message_parity_error_gets_the_message_again(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80, mpe = PCAM_MSG_MESSAGE_PARITY_ERROR;
    uint8_t st = 0xFF;

    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    cfg(f)->parity_msg_ppm = 1000000;
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_true(f->r.ev.parity_error);
    assert_int_not_equal(f->r.ev.byte, PCAM_MSG_COMMAND_COMPLETE); /* one bit flipped */
    cfg(f)->parity_msg_ppm = 0;
    assert_int_equal(simraw_accept(&f->r, true), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_OUT);
    assert_int_equal(simraw_msg_out(&f->r, &mpe, 1), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_false(f->r.ev.parity_error);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_COMMAND_COMPLETE);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(stats(f).completed, 1);
}

static void data_out_parity_retries_then_fails(void **state)
{
    fixture *f = *state;
    static const uint8_t wr[10] = {0x2A, 0, 0, 0, 0, 5, 0, 0, 1, 0};
    uint8_t out[512], sense[18];
    simraw_cmd c;
    int i, rp = 0;

    memset(out, 0xA5, sizeof out);
    cfg(f)->disconnect = PCAM_SIM_DISC_NEVER;
    cfg(f)->parity_data_ppm = 1000000;
    simraw_cmd_init(&c, T, 0, wr, 10, out, sizeof out);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    /* Three RESTORE POINTERS and resends, then ABORTED COMMAND 47/00. */
    for (i = 0; i < c.nmsgs; i++)
        rp += c.msgs[i] == PCAM_MSG_RESTORE_POINTERS;
    assert_int_equal(rp, 3);
    assert_int_equal(c.status, 2);
    cfg(f)->parity_data_ppm = 0;
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[2] & 0x0F, 0x0B);
    assert_int_equal(sense[12], 0x47);
    assert_int_not_equal(f->store[5 * 512], 0xA5);
    /* Once the errors stop, the write goes through. */
    simraw_cmd_init(&c, T, 0, wr, 10, out, sizeof out);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 0);
    assert_memory_equal(f->store + 5 * 512, out, 512);
}

static void parity_on_reselection_identify(void **state)
{
    fixture *f = *state;
    static const uint8_t mpe = PCAM_MSG_MESSAGE_PARITY_ERROR;
    uint8_t buf[512];
    simraw_cmd c;

    simraw_cmd_init(&c, T, 0, rd1, 10, buf, sizeof buf);
    c.disc = true;
    assert_int_equal(simraw_start(&f->r, &c), 0);
    cfg(f)->parity_msg_ppm = 1000000;
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_RESELECTED);
    assert_true(f->r.ev.parity_error);
    assert_int_not_equal(f->r.ev.byte, 0x80);
    cfg(f)->parity_msg_ppm = 0;
    assert_int_equal(simraw_accept(&f->r, true), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_OUT);
    assert_int_equal(simraw_msg_out(&f->r, &mpe, 1), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, 0x80);
    assert_false(f->r.ev.parity_error);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
}

static void parity_rate_is_reproducible_from_the_seed(void **state)
{
    uint32_t injected[3];
    int run;

    (void)state;
    for (run = 0; run < 3; run++) {
        pcam_sim_config sc;
        pcam_sim_target_config tc;
        pcam_sim *sim;
        uint8_t *store, buf[4096];
        simraw r;
        simraw_cmd c;
        pcam_sim_target_stats st;
        int i;

        pcam_sim_config_defaults(&sc);
        sc.seed = run < 2 ? 42 : 43;
        sim = pcam_sim_create(&sc);
        pcam_sim_target_config_defaults(&tc);
        tc.ua_power_on = false;
        tc.parity_data_ppm = 500; /* about 2 per 4 KiB */
        store = simraw_add_disk(sim, 1, 0, &tc, 64, 1000);
        simraw_init(&r, sim);
        for (i = 0; i < 8; i++) {
            assert_int_equal(simraw_simple(&r, 1, rd8, 10, buf, sizeof buf, &c), 0);
            assert_int_equal(c.status, 0);
            assert_memory_equal(buf, store, sizeof buf);
        }
        pcam_sim_target_stats_get(sim, 1, &st);
        injected[run] = st.parity_injected;
        pcam_sim_destroy(sim);
        free(store);
    }
    assert_true(injected[0] > 0);
    assert_int_equal(injected[0], injected[1]);
    assert_int_not_equal(injected[0], injected[2]);
}

/* ---- reselection lies ---- */

static void reselection_with_an_unknown_tag(void **state)
{
    fixture *f = *state;
    uint8_t buf[512];
    simraw_cmd c;

    cfg(f)->lie_tag_next = 1;
    queue_tagged(f, &c, buf, 3);
    assert_int_equal(simraw_serve(&f->r), 1);
    assert_int_equal(f->r.unknown_reselections, 1);
    assert_false(c.done);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    assert_int_equal(stats(f).aborted_tasks, 1);
}

static void reselection_with_an_unknown_lun(void **state)
{
    fixture *f = *state;
    uint8_t buf[512];
    simraw_cmd c;
    pcam_sim_trace_entry e;
    size_t i;
    bool seen = false;

    cfg(f)->lie_lun_next = 1;
    queue_tagged(f, &c, buf, 3);
    assert_int_equal(simraw_serve(&f->r), 1);
    assert_int_equal(f->r.unknown_reselections, 1);
    for (i = 0; i < pcam_sim_trace_count(f->sim); i++) {
        assert_true(pcam_sim_trace_get(f->sim, i, &e));
        if (e.kind == PCAM_SIM_TR_RESELECTION) {
            assert_int_equal(e.byte, 0x81);
            seen = true;
        }
    }
    assert_true(seen);
}

/* ---- recovery messages ---- */

static void abort_task_set_and_clear_task_set(void **state)
{
    fixture *f = *state;
    static const uint8_t ats[2] = {0x80, PCAM_MSG_ABORT_TASK_SET};
    static const uint8_t cts[2] = {0x80, PCAM_MSG_CLEAR_TASK_SET};
    uint8_t buf[3][512];
    simraw_cmd c[3];

    cfg(f)->hang_next = 3;
    queue_tagged(f, &c[0], buf[0], 1);
    queue_tagged(f, &c[1], buf[1], 2);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 2);
    assert_int_equal(simraw_select(&f->r, T, true, ats, 2, NULL, 0), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(f->r.ev.count, 2);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    queue_tagged(f, &c[2], buf[2], 3);
    assert_int_equal(simraw_select(&f->r, T, true, cts, 2, NULL, 0), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    assert_int_equal(stats(f).aborted_tasks, 3);
}

static void logical_unit_reset_raises_29_03(void **state)
{
    fixture *f = *state;
    static const uint8_t lur[2] = {0x80, PCAM_MSG_LOGICAL_UNIT_RESET};
    uint8_t buf[512], sense[18];
    simraw_cmd c;

    cfg(f)->hang_next = 1;
    queue_tagged(f, &c, buf, 1);
    assert_int_equal(simraw_select(&f->r, T, true, lur, 2, NULL, 0), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    assert_int_equal(stats(f).lu_resets, 1);
    simraw_cmd_init(&c, T, 0, tur, 6, NULL, 0);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[2] & 0x0F, 0x06);
    assert_int_equal(sense[12], 0x29);
    assert_int_equal(sense[13], 0x03);
}

static void target_reset_drops_everything_and_the_agreement(void **state)
{
    fixture *f = *state;
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    static const uint8_t bdr = PCAM_MSG_TARGET_RESET;
    pcam_hal_xfer_params a;
    uint8_t buf[512], sense[18];
    simraw_cmd c;

    simraw_cmd_init(&c, T, 0, tur, 6, NULL, 0);
    c.extra_msg = sdtr;
    c.extra_len = 5;
    assert_int_equal(simraw_run(&f->r, &c), 0);
    pcam_sim_target_agreement(f->sim, T, &a);
    assert_int_equal(a.offset, 16);
    cfg(f)->hang_next = 1;
    queue_tagged(f, &c, buf, 7);
    assert_true(pcam_sim_target_tags_in_use(f->sim, T));
    /* TARGET RESET alone, without IDENTIFY. */
    assert_int_equal(simraw_select(&f->r, T, true, &bdr, 1, NULL, 0), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(f->r.ev.count, 1);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    pcam_sim_target_agreement(f->sim, T, &a);
    assert_int_equal(a.offset, 0);
    assert_int_equal(a.period, 0);
    assert_false(pcam_sim_target_tags_in_use(f->sim, T));
    assert_int_equal(stats(f).target_resets, 1);
    {
        pcam_hal_xfer_params async = {0, 0, 0, 0};
        assert_int_equal(f->r.hal.ops->set_xfer(f->r.hal.sc, T, &async), 0);
    }
    simraw_cmd_init(&c, T, 0, tur, 6, NULL, 0);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[12], 0x29);
    assert_int_equal(sense[13], 0x03);
}

static void bus_reset_by_another_device(void **state)
{
    fixture *f = *state;
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_hal_xfer_params a;
    pcam_hal_event ev;
    uint8_t buf[2][512];
    simraw_cmd c[2], t0;

    simraw_cmd_init(&t0, T, 0, tur, 6, NULL, 0);
    t0.extra_msg = sdtr;
    t0.extra_len = 5;
    assert_int_equal(simraw_run(&f->r, &t0), 0);
    queue_tagged(f, &c[0], buf[0], 1);
    queue_tagged(f, &c[1], buf[1], 2);
    pcam_sim_bus_reset(f->sim);
    /* The chip sees it at once, unasked. */
    assert_true(pcam_sim_event_pending(f->sim));
    assert_int_equal(f->r.hal.ops->poll(f->r.hal.sc, &ev), 1);
    assert_int_equal(ev.type, PCAM_HAL_EV_BUS_RESET);
    assert_int_equal(f->r.hal.ops->poll(f->r.hal.sc, &ev), 0);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    pcam_sim_target_agreement(f->sim, T, &a);
    assert_int_equal(a.offset, 0);
    assert_int_equal(stats(f).aborted_tasks, 2);
    assert_true(pcam_sim_lu(f->sim, T, 0)->ua_pending);
    assert_int_equal(pcam_sim_lu(f->sim, T, 0)->ua_asc, 0x29);
    assert_int_equal(pcam_sim_lu(f->sim, T, 0)->ua_ascq, 0x00);
    /* Nothing comes back from the dropped tasks. */
    assert_int_equal(simraw_serve(&f->r), 0);
}

static void initiator_reset_during_data_and_bus_free_after_it(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80;
    uint64_t t0;

    cfg(f)->disconnect = PCAM_SIM_DISC_NEVER;
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, rd1, 10), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    t0 = pcam_sim_now(f->sim);
    assert_int_equal(f->r.hal.ops->reset_bus(f->r.hal.sc), 0);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_BUS_RESET);
    assert_int_equal(pcam_sim_now(f->sim), t0);
    /* RST lasts 25 us, then the 800 ns settle, then arbitration. */
    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(pcam_sim_now(f->sim), t0 + 25000 + 800 + 4000 + 400 + 200 + 400 + 1200 + 400);
}

static void initiator_detected_error_after_status_resends_it(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80, ide = PCAM_MSG_INITIATOR_DETECTED_ERROR, nop = PCAM_MSG_NO_OPERATION;
    uint8_t st = 0xFF;

    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    /* ATN during the status byte: MESSAGE OUT comes after it. */
    assert_int_equal(f->r.hal.ops->set_atn(f->r.hal.sc), 0);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_OUT);
    assert_int_equal(simraw_msg_out(&f->r, &ide, 1), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_RESTORE_POINTERS);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    st = 0xFF;
    assert_int_equal(f->r.hal.ops->set_atn(f->r.hal.sc), 0);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(st, 0);
    /* NO OPERATION: nothing to do, on to COMMAND COMPLETE. */
    assert_int_equal(simraw_msg_out(&f->r, &nop, 1), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_COMMAND_COMPLETE);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
}

static void rejected_disconnect_keeps_the_target_on_the_bus(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0xC0, rej = PCAM_MSG_MESSAGE_REJECT;
    uint8_t buf[512];
    uint64_t t_cdb;

    assert_int_equal(simraw_select(&f->r, T, true, &ident, 1, rd1, 10), PCAM_HAL_EV_SELECT_DONE);
    t_cdb = pcam_sim_now(f->sim) - 400; /* the mechanism started at the end of the CDB */
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_DISCONNECT);
    assert_int_equal(simraw_accept(&f->r, true), PCAM_HAL_EV_PHASE);
    assert_int_equal(simraw_msg_out(&f->r, &rej, 1), PCAM_HAL_EV_MSGOUT_DONE);
    /* It stayed connected and requests DATA IN when the 500 us are over. */
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(pcam_sim_now(f->sim), t_cdb + 500000 + 400);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 512), PCAM_HAL_EV_XFER_DONE);
    assert_memory_equal(buf, f->store, 512);
    assert_int_equal(stats(f).disconnects, 0);
}

/* ---- LU conditions through the target ---- */

static void not_ready_then_becoming_ready(void **state)
{
    fixture *f = *state;
    uint8_t sense[18];
    simraw_cmd c;

    pcam_simlu_not_ready_until(pcam_sim_lu(f->sim, T, 0), 2000000);
    assert_int_equal(simraw_simple(&f->r, T, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[2] & 0x0F, 0x02);
    assert_int_equal(sense[12], 0x04);
    assert_int_equal(sense[13], 0x01);
    pcam_sim_advance(f->sim, 2000000);
    assert_int_equal(simraw_simple(&f->r, T, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0);
}

static void medium_error_at_a_chosen_lba(void **state)
{
    fixture *f = *state;
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 48, 0, 0, 4, 0};
    uint8_t buf[2048], sense[18];
    simraw_cmd c;

    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(f->sim, T, 0), 50), 0);
    assert_int_equal(simraw_simple(&f->r, T, rd, 10, buf, sizeof buf, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    /* Fixed format with VALID and INFORMATION = the bad LBA (50 = 0x32). */
    assert_int_equal(sense[0], 0xF0);
    assert_int_equal(sense[2] & 0x0F, 0x03);
    assert_int_equal(sense[3], 0);
    assert_int_equal(sense[6], 0x32);
    assert_int_equal(sense[12], 0x11);
}

/* ---- call order ---- */

static void call_order_violations_are_gross_errors(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80, nop = PCAM_MSG_NO_OPERATION;
    uint8_t b[4];
    pcam_sg sg = {b, 4};
    pcam_hal_xfer x = {PCAM_PHASE_DATA_IN, &sg, 1, 0, 4, false};
    pcam_sim_bus_stats bs;

    assert_true(f->r.hal.ops->transfer(f->r.hal.sc, &x) < 0);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_GROSS_ERROR);
    assert_int_equal(f->r.ev.target, 0xFF);
    assert_true(f->r.hal.ops->msg_accept(f->r.hal.sc, false) < 0);
    assert_true(f->r.hal.ops->msg_in(f->r.hal.sc) < 0);
    assert_true(f->r.hal.ops->msg_out(f->r.hal.sc, &nop, 1) < 0);
    assert_true(f->r.hal.ops->msg_out(f->r.hal.sc, NULL, 1) < 0);
    assert_true(f->r.hal.ops->transfer(f->r.hal.sc, NULL) < 0);
    assert_true(f->r.hal.ops->set_xfer(f->r.hal.sc, 16, NULL) < 0);
    pcam_sim_bus_stats_get(f->sim, &bs);
    assert_int_equal(bs.gross_errors, 7);
    while (pcam_sim_event_pending(f->sim))
        assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_GROSS_ERROR);
    /* An action while another is in progress. */
    {
        pcam_hal_select sel = {T, true, &ident, 1, tur, 6, false};

        assert_int_equal(f->r.hal.ops->select(f->r.hal.sc, &sel), 0);
        assert_true(f->r.hal.ops->select(f->r.hal.sc, &sel) < 0);
        assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_GROSS_ERROR);
        assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_SELECT_DONE);
        assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    }
    /* Wrong phase: DATA IN while the target wants STATUS. */
    assert_true(f->r.hal.ops->transfer(f->r.hal.sc, &x) < 0);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_GROSS_ERROR);
    assert_int_equal(f->r.ev.target, T);
    /* Message out without ATN in STATUS. */
    assert_true(f->r.hal.ops->msg_out(f->r.hal.sc, &nop, 1) < 0);
}

static void mode_mismatch_is_a_gross_error(void **state)
{
    fixture *f = *state;
    static const uint8_t msg[6] = {0x80, 0x01, 0x03, 0x01, 0x0C, 0x10};
    uint8_t buf[512], b;
    int i;

    cfg(f)->disconnect = PCAM_SIM_DISC_NEVER;
    /* Negotiate but leave the chip asynchronous. */
    assert_int_equal(simraw_select(&f->r, T, true, msg, 6, rd1, 10), PCAM_HAL_EV_SELECT_DONE);
    for (i = 0; i < 5; i++) {
        assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
        b = f->r.ev.byte;
        assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    }
    (void)b;
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_COMMAND, (void *)rd1, 0, 10), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 512), PCAM_HAL_EV_GROSS_ERROR);
}

static void select_loses_to_a_reselection_already_won(void **state)
{
    fixture *f = *state;
    static const uint8_t ident = 0x80;
    pcam_hal_select sel = {T, true, &ident, 1, tur, 6, false};
    pcam_hal_event ev;
    uint8_t buf[512];
    simraw_cmd c;

    simraw_cmd_init(&c, T, 0, rd1, 10, buf, sizeof buf);
    c.disc = true;
    assert_int_equal(simraw_start(&f->r, &c), 0);
    /* The mechanism finishes and the target wins arbitration at the same
     * instant (the bus has been free long enough); RESELECTED is 4 us away. */
    pcam_sim_advance(f->sim, pcam_sim_next_time(f->sim));
    assert_false(pcam_sim_event_pending(f->sim));
    assert_int_equal(f->r.hal.ops->select(f->r.hal.sc, &sel), 0);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_RESELECTED);
    assert_int_equal(f->r.hal.ops->poll(f->r.hal.sc, &ev), 0);
    /* With RESELECTED queued and unpolled, a select does not happen either. */
    pcam_sim_destroy(f->sim);
    free(f->store);
    f->sim = pcam_sim_create(NULL);
    f->store = simraw_add_disk(f->sim, T, 0, NULL, 256, 500000);
    pcam_sim_target_cfg(f->sim, T)->disconnect = PCAM_SIM_DISC_ALWAYS;
    simraw_init(&f->r, f->sim);
    simraw_cmd_init(&c, T, 0, rd1, 10, buf, sizeof buf);
    c.disc = true;
    assert_int_equal(simraw_start(&f->r, &c), 0);
    while (!pcam_sim_event_pending(f->sim))
        pcam_sim_advance(f->sim, pcam_sim_next_time(f->sim));
    assert_int_equal(f->r.hal.ops->select(f->r.hal.sc, &sel), 0);
    assert_int_equal(f->r.hal.ops->poll(f->r.hal.sc, &ev), 1);
    assert_int_equal(ev.type, PCAM_HAL_EV_RESELECTED);
    assert_int_equal(f->r.hal.ops->poll(f->r.hal.sc, &ev), 0);
    assert_int_equal(pcam_sim_next_time(f->sim), UINT64_MAX);
}

/* With the initiator at 6, a target at 7 ready at the same bus free wins
 * and the select turns into its RESELECTED. */
static void initiator_below_a_reselecting_target_loses(void **state)
{
    static const uint8_t ident = 0x80;
    pcam_hal_select sel = {2, true, &ident, 1, tur, 6, false};
    pcam_sim_config sc;
    pcam_sim *sim;
    uint8_t *s7, *s2, buf[512], b2[512];
    simraw r;
    simraw_cmd c, hog;

    (void)state;
    pcam_sim_config_defaults(&sc);
    sc.initiator_id = 6;
    sim = pcam_sim_create(&sc);
    s7 = simraw_add_disk(sim, 7, 0, NULL, 16, 100000);
    s2 = simraw_add_disk(sim, 2, 0, NULL, 16, 1000000);
    pcam_sim_target_cfg(sim, 7)->disconnect = PCAM_SIM_DISC_ALWAYS;
    pcam_sim_target_cfg(sim, 2)->disconnect = PCAM_SIM_DISC_NEVER;
    simraw_init(&r, sim);
    simraw_cmd_init(&c, 7, 0, rd1, 10, buf, sizeof buf);
    c.disc = true;
    assert_int_equal(simraw_start(&r, &c), 0);
    simraw_cmd_init(&hog, 2, 0, rd1, 10, b2, sizeof b2);
    assert_int_equal(simraw_start(&r, &hog), 0); /* holds the bus 1 ms; 7 gets ready */
    assert_true(hog.done);
    assert_int_equal(r.hal.ops->select(r.hal.sc, &sel), 0);
    assert_int_equal(simraw_wait(&r), PCAM_HAL_EV_RESELECTED);
    assert_int_equal(r.ev.target, 7);
    pcam_sim_destroy(sim);
    free(s7);
    free(s2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hung_command_disconnects_and_never_returns, setup, teardown),
        cmocka_unit_test_setup_teardown(hung_command_without_disconnect_holds_the_bus, setup, teardown),
        cmocka_unit_test_setup_teardown(unexpected_bus_free_half_way_through_the_data, setup, teardown),
        cmocka_unit_test_setup_teardown(illegal_phase_after_the_cdb, setup, teardown),
        cmocka_unit_test_setup_teardown(data_in_parity_error_is_answered_by_restore_pointers, setup, teardown),
        cmocka_unit_test_setup_teardown(message_parity_error_gets_the_message_again, setup, teardown),
        cmocka_unit_test_setup_teardown(data_out_parity_retries_then_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(parity_on_reselection_identify, setup, teardown),
        cmocka_unit_test(parity_rate_is_reproducible_from_the_seed),
        cmocka_unit_test_setup_teardown(reselection_with_an_unknown_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(reselection_with_an_unknown_lun, setup, teardown),
        cmocka_unit_test_setup_teardown(abort_task_set_and_clear_task_set, setup, teardown),
        cmocka_unit_test_setup_teardown(logical_unit_reset_raises_29_03, setup, teardown),
        cmocka_unit_test_setup_teardown(target_reset_drops_everything_and_the_agreement, setup, teardown),
        cmocka_unit_test_setup_teardown(bus_reset_by_another_device, setup, teardown),
        cmocka_unit_test_setup_teardown(initiator_reset_during_data_and_bus_free_after_it, setup, teardown),
        cmocka_unit_test_setup_teardown(initiator_detected_error_after_status_resends_it, setup, teardown),
        cmocka_unit_test_setup_teardown(rejected_disconnect_keeps_the_target_on_the_bus, setup, teardown),
        cmocka_unit_test_setup_teardown(not_ready_then_becoming_ready, setup, teardown),
        cmocka_unit_test_setup_teardown(medium_error_at_a_chosen_lba, setup, teardown),
        cmocka_unit_test_setup_teardown(call_order_violations_are_gross_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(mode_mismatch_is_a_gross_error, setup, teardown),
        cmocka_unit_test_setup_teardown(select_loses_to_a_reselection_already_won, setup, teardown),
        cmocka_unit_test(initiator_below_a_reselecting_target_loses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
