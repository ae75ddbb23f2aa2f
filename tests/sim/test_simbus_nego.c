/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Negotiation on the simulated bus, byte by byte through the raw chip
 * contract: SDTR, WDTR and PPR answered with ACCEPT (clamped), COUNTER,
 * IGNORE and REJECT; negotiation the target starts itself; the initiator
 * rejecting an answer. Message layouts from SPI-3 (SDTR 01 03 01 period
 * offset; WDTR 01 02 03 width; PPR 01 06 04 period 00 offset width options).
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

static const uint8_t tur[6] = {0};

typedef struct fixture {
    pcam_sim *sim;
    simraw r;
    uint8_t *store;
} fixture;

static fixture *make(const pcam_sim_config *cfg, const pcam_sim_target_config *tc)
{
    fixture *f = calloc(1, sizeof *f);

    assert_non_null(f);
    f->sim = pcam_sim_create(cfg);
    assert_non_null(f->sim);
    simraw_init(&f->r, f->sim);
    f->store = simraw_add_disk(f->sim, 1, 0, tc, 64, 1000);
    assert_non_null(f->store);
    return f;
}

static void done(fixture *f)
{
    pcam_sim_destroy(f->sim);
    free(f->store);
    free(f);
}

static void base(pcam_sim_target_config *tc)
{
    pcam_sim_target_config_defaults(tc);
    tc->ua_power_on = false;
}

/* Read `n` message bytes, accepting all but the last; check them. */
static void expect_msg(fixture *f, const uint8_t *want, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
        assert_int_equal(f->r.ev.byte, want[i]);
        assert_false(f->r.ev.parity_error);
        if (i + 1 < n) {
            assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
            assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
        }
    }
}

static void agreement_is(fixture *f, uint8_t period, uint8_t offset, uint8_t width, uint8_t opts)
{
    pcam_hal_xfer_params a;

    pcam_sim_target_agreement(f->sim, 1, &a);
    assert_int_equal(a.period, period);
    assert_int_equal(a.offset, offset);
    assert_int_equal(a.width, width);
    assert_int_equal(a.ppr_options, opts);
}

/* Select with IDENTIFY + one negotiation message + TEST UNIT READY. */
static int select_with(fixture *f, const uint8_t *nego, uint8_t len)
{
    uint8_t msg[16];

    msg[0] = 0x80;
    memcpy(msg + 1, nego, len);
    return simraw_select(&f->r, 1, true, msg, (uint8_t)(len + 1), tur, 6);
}

/* Finish a TEST UNIT READY from the COMMAND phase on; expect GOOD. */
static void finish_tur(fixture *f)
{
    uint8_t st = 0xFF;

    assert_int_equal(f->r.ev.phase, PCAM_PHASE_COMMAND);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_COMMAND, (void *)tur, 0, 6), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(st, 0);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, 0);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
}

static void sdtr_accept_is_clamped_to_the_target(void **state)
{
    static const uint8_t ask[5] = {0x01, 0x03, 0x01, 0x0A, 0x1F};
    static const uint8_t ans[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_sim_target_config tc;
    fixture *f;
    pcam_sim_target_stats st;

    (void)state;
    base(&tc); /* min period 0x0C, max offset 16 */
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 5), PCAM_HAL_EV_SELECT_DONE);
    /* The answer comes right after the SDTR; the CDB was not sent. */
    assert_int_equal(f->r.ev.count, 6);
    assert_int_equal(f->r.ev.count2, 0);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    expect_msg(f, ans, 5);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0x0C, 16, 0, 0);
    finish_tur(f);
    pcam_sim_target_stats_get(f->sim, 1, &st);
    assert_int_equal(st.nego_received, 1);
    done(f);
}

static void sdtr_counter_offers_slower_and_smaller(void **state)
{
    static const uint8_t ask[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    static const uint8_t ans[5] = {0x01, 0x03, 0x01, 0x32, 0x08};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    tc.sdtr = PCAM_SIM_NEGO_COUNTER; /* counter limits 0x32 (200 ns), offset 8 */
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 5), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, ans, 5);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0x32, 8, 0, 0);
    finish_tur(f);
    done(f);
}

static void sdtr_ignored_goes_to_command(void **state)
{
    static const uint8_t ask[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_sim_target_config tc;
    uint8_t st = 0xFF;
    fixture *f;

    (void)state;
    base(&tc);
    tc.sdtr = PCAM_SIM_NEGO_IGNORE;
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 5), PCAM_HAL_EV_SELECT_DONE);
    /* No answer: the target went to COMMAND and took the whole CDB. */
    assert_int_equal(f->r.ev.count, 6);
    assert_int_equal(f->r.ev.count2, 6);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    agreement_is(f, 0, 0, 0, 0);
    done(f);
}

static void sdtr_rejected(void **state)
{
    static const uint8_t ask[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    static const uint8_t rej[1] = {PCAM_MSG_MESSAGE_REJECT};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    tc.sdtr = PCAM_SIM_NEGO_REJECT;
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 5), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.count, 6);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    expect_msg(f, rej, 1);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0, 0, 0, 0);
    finish_tur(f);
    done(f);
}

static void wdtr_accept_counter_reject_and_narrow_bus(void **state)
{
    static const uint8_t ask[4] = {0x01, 0x02, 0x03, 0x01};
    static const uint8_t wide[4] = {0x01, 0x02, 0x03, 0x01};
    static const uint8_t narrow[4] = {0x01, 0x02, 0x03, 0x00};
    static const uint8_t rej[1] = {PCAM_MSG_MESSAGE_REJECT};
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_sim_target_config tc;
    pcam_sim_config cfg;
    fixture *f;

    (void)state;
    base(&tc);
    f = make(NULL, &tc);
    /* First a synchronous agreement, which WDTR then resets (SPI-3 4.13). */
    assert_int_equal(select_with(f, sdtr, 5), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, sdtr, 5);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    finish_tur(f);
    agreement_is(f, 0x0C, 16, 0, 0);
    assert_int_equal(select_with(f, ask, 4), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, wide, 4);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0, 0, 1, 0);
    finish_tur(f);

    pcam_sim_target_cfg(f->sim, 1)->wdtr = PCAM_SIM_NEGO_COUNTER;
    assert_int_equal(select_with(f, ask, 4), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, narrow, 4);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0, 0, 0, 0);
    finish_tur(f);

    pcam_sim_target_cfg(f->sim, 1)->wdtr = PCAM_SIM_NEGO_REJECT;
    assert_int_equal(select_with(f, ask, 4), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, rej, 1);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    finish_tur(f);
    done(f);

    /* A wide target on a narrow (8-ID) bus answers 8 bits. */
    pcam_sim_config_defaults(&cfg);
    cfg.width = 8;
    f = make(&cfg, &tc);
    assert_int_equal(select_with(f, ask, 4), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, narrow, 4);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0, 0, 0, 0);
    done(f);
}

static void ppr_accept_keeps_only_supported_options(void **state)
{
    /* Ask Fast-160 (0x08) with IU|DT|QAS, offset 62, wide. The target does
     * DT only, 0x09 at best, offset 31: answer 0x09 / 31 / wide / DT. */
    static const uint8_t ask[8] = {0x01, 0x06, 0x04, 0x08, 0x00, 0x3E, 0x01, 0x07};
    static const uint8_t ans[8] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x02};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    tc.ppr = PCAM_SIM_NEGO_ACCEPT;
    tc.ppr_options = PCAM_PPR_DT_REQ;
    tc.min_period = 0x09;
    tc.max_offset = 31;
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 8), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.count, 9);
    expect_msg(f, ans, 8);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0x09, 31, 1, PCAM_PPR_DT_REQ);
    finish_tur(f);
    done(f);
}

static void ppr_to_a_narrow_target_drops_dt(void **state)
{
    /* DT needs a wide bus; without DT the fastest factor is 0x0A. */
    static const uint8_t ask[8] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x02};
    static const uint8_t ans[8] = {0x01, 0x06, 0x04, 0x0A, 0x00, 0x1F, 0x00, 0x00};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    tc.ppr = PCAM_SIM_NEGO_ACCEPT;
    tc.ppr_options = PCAM_PPR_DT_REQ;
    tc.min_period = 0x09;
    tc.max_offset = 31;
    tc.wide = false;
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 8), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, ans, 8);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0x0A, 31, 0, 0);
    done(f);
}

static void ppr_rejected_by_default(void **state)
{
    static const uint8_t ask[8] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x02};
    static const uint8_t rej[1] = {PCAM_MSG_MESSAGE_REJECT};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 8), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, rej, 1);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0, 0, 0, 0);
    finish_tur(f);
    done(f);
}

static void initiator_rejects_the_counter_offer(void **state)
{
    static const uint8_t ask[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    static const uint8_t ans[5] = {0x01, 0x03, 0x01, 0x32, 0x08};
    static const uint8_t rej[1] = {PCAM_MSG_MESSAGE_REJECT};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    tc.sdtr = PCAM_SIM_NEGO_COUNTER;
    f = make(NULL, &tc);
    assert_int_equal(select_with(f, ask, 5), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, ans, 5);
    /* ATN before ACK is released on the last byte, then MESSAGE REJECT. */
    assert_int_equal(simraw_accept(&f->r, true), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_OUT);
    assert_int_equal(simraw_msg_out(&f->r, rej, 1), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.count, 1);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_COMMAND);
    agreement_is(f, 0, 0, 0, 0);
    finish_tur(f);
    done(f);
}

static void negotiation_in_the_middle_of_a_connection(void **state)
{
    static const uint8_t ident = 0x80;
    static const uint8_t ask[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    f = make(NULL, &tc);
    /* No CDB in the select: it stops in COMMAND. */
    assert_int_equal(simraw_select(&f->r, 1, true, &ident, 1, NULL, 0), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_COMMAND);
    assert_int_equal(f->r.ev.count2, 0);
    /* ATN, then message out: the target goes to MESSAGE OUT for it. */
    assert_int_equal(f->r.hal.ops->set_atn(f->r.hal.sc), 0);
    assert_int_equal(simraw_msg_out(&f->r, ask, 5), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.count, 5);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    expect_msg(f, ask, 5);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    agreement_is(f, 0x0C, 16, 0, 0);
    finish_tur(f);
    done(f);
}

/* The target starts WDTR then SDTR after the CDB of the first command after
 * power-on; the initiator answers each with ATN raised on its last byte. */
static void target_initiated_wdtr_then_sdtr(void **state)
{
    static const uint8_t ident = 0x80;
    static const uint8_t wdtr[4] = {0x01, 0x02, 0x03, 0x01};
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_sim_target_config tc;
    pcam_sim_target_stats st;
    uint8_t s = 0xFF;
    fixture *f;
    simraw_cmd c;

    (void)state;
    base(&tc);
    tc.initiate_wdtr = true;
    tc.initiate_sdtr = true;
    f = make(NULL, &tc);
    assert_int_equal(simraw_select(&f->r, 1, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.count2, 6);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    expect_msg(f, wdtr, 4);
    assert_int_equal(simraw_accept(&f->r, true), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_OUT);
    assert_int_equal(simraw_msg_out(&f->r, wdtr, 4), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    agreement_is(f, 0, 0, 1, 0);
    expect_msg(f, sdtr, 5);
    assert_int_equal(simraw_accept(&f->r, true), PCAM_HAL_EV_PHASE);
    assert_int_equal(simraw_msg_out(&f->r, sdtr, 5), PCAM_HAL_EV_MSGOUT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    agreement_is(f, 0x0C, 16, 1, 0);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &s, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    pcam_sim_target_stats_get(f->sim, 1, &st);
    assert_int_equal(st.nego_initiated, 2);

    /* Only once: the next command goes straight to STATUS. */
    assert_int_equal(simraw_select(&f->r, 1, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &s, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);

    /* A bus reset reverts to async narrow and it negotiates again (the
     * runner answers and programs the chip). */
    pcam_sim_bus_reset(f->sim);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_BUS_RESET);
    agreement_is(f, 0, 0, 0, 0);
    simraw_cmd_init(&c, 1, 0, tur, 6, NULL, 0);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 2); /* the UNIT ATTENTION of the reset */
    agreement_is(f, 0x0C, 16, 1, 0);
    {
        pcam_hal_xfer_params chip;

        pcam_sim_chip_xfer(f->sim, 1, &chip);
        assert_int_equal(chip.width, 1);
        assert_int_equal(chip.offset, 16);
    }
    done(f);
}

static void target_initiated_answered_with_reject(void **state)
{
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    pcam_sim_target_config tc;
    pcam_sim_target_stats st;
    uint8_t buf[512];
    fixture *f;
    simraw_cmd c;

    (void)state;
    base(&tc);
    tc.initiate_wdtr = true;
    tc.initiate_sdtr = true;
    f = make(NULL, &tc);
    f->r.reject_target_nego = true;
    simraw_cmd_init(&c, 1, 0, rd, 10, buf, sizeof buf);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 0);
    assert_memory_equal(buf, f->store, 512);
    agreement_is(f, 0, 0, 0, 0);
    pcam_sim_target_stats_get(f->sim, 1, &st);
    assert_int_equal(st.nego_initiated, 2);
    done(f);
}

static void target_initiated_without_answer_falls_back(void **state)
{
    static const uint8_t ident = 0x80;
    static const uint8_t wdtr[4] = {0x01, 0x02, 0x03, 0x01};
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    pcam_sim_target_config tc;
    fixture *f;

    (void)state;
    base(&tc);
    tc.initiate_wdtr = true;
    tc.initiate_sdtr = true;
    f = make(NULL, &tc);
    assert_int_equal(simraw_select(&f->r, 1, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    expect_msg(f, wdtr, 4);
    /* ACK released without ATN: no answer, so narrow (SPI-3). */
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    agreement_is(f, 0, 0, 0, 0);
    expect_msg(f, sdtr, 5);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    agreement_is(f, 0, 0, 0, 0);
    done(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sdtr_accept_is_clamped_to_the_target),
        cmocka_unit_test(sdtr_counter_offers_slower_and_smaller),
        cmocka_unit_test(sdtr_ignored_goes_to_command),
        cmocka_unit_test(sdtr_rejected),
        cmocka_unit_test(wdtr_accept_counter_reject_and_narrow_bus),
        cmocka_unit_test(ppr_accept_keeps_only_supported_options),
        cmocka_unit_test(ppr_to_a_narrow_target_drops_dt),
        cmocka_unit_test(ppr_rejected_by_default),
        cmocka_unit_test(initiator_rejects_the_counter_offer),
        cmocka_unit_test(negotiation_in_the_middle_of_a_connection),
        cmocka_unit_test(target_initiated_wdtr_then_sdtr),
        cmocka_unit_test(target_initiated_answered_with_reject),
        cmocka_unit_test(target_initiated_without_answer_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
