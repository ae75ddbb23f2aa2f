/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transfer negotiation policy (core/nego/nego_policy.c): the parity
 * step-down ladder, invalidation after resets, user limits and getters,
 * on the fixture of nego_fixture.h.
 *
 * Message bytes per SPI-3 4.3: SDTR = 01 03 01 period offset, WDTR = 01 02
 * 03 width-exponent. Period factors: 0x09 12.5 ns (DT only), 0x0A 25 ns,
 * 0x0B 30.3 ns, 0x0C 50 ns, else factor x 4 ns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "nego_fixture.h"

/* ---------------------------------------------------------------- parity */

static void parity_stepdown_ladder(void **state)
{
    (void)state;
    setup_u160();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(ppr_u160, sizeof ppr_u160);
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), 0);

    /* +1 below 0x0D (DT dropped from 0x0A), then x1.5 rounded up:
     * 13 -> 19.5 -> 20 (0x14), 20 -> 30 (0x1E), 30 -> 45 (0x2D),
     * 45 -> 67.5 -> 68 > 0x32: asynchronous. */
    static const uint8_t steps[] = {0x0A, 0x0B, 0x0C, 0x0D, 0x14, 0x1E, 0x2D, 0x00};
    for (size_t i = 0; i < sizeof steps; i++) {
        pcam_nego_parity(&bus, T);
        assert_false(pcam_nego_wanted(&bus, T)); /* 1 of 2 */
        pcam_nego_parity(&bus, T);
        assert_int_equal(last_event_arg(PCAM_EV_SPEED_DOWN), steps[i]);
        uint8_t off = steps[i] ? 31 : 0;
        assert_link(get(PCAM_TRAN_GOAL), steps[i], off, 1, 0);
        /* ST wide now, same width: SDTR only. */
        uint8_t sdtr[] = {0x01, 0x03, 0x01, steps[i], off};
        expect_start(sdtr, sizeof sdtr);
        assert_int_equal(msg_in(sdtr, sizeof sdtr, reply), 0);
        assert_link(get(PCAM_TRAN_CURRENT), steps[i], off, 1, 0);
    }
    assert_int_equal(bus.targets[T].counters.parity_errors, 16);
    /* Nothing slower than asynchronous. */
    int before = xf.calls;
    pcam_nego_parity(&bus, T);
    pcam_nego_parity(&bus, T);
    assert_false(pcam_nego_wanted(&bus, T));
    assert_int_equal(xf.calls, before);
}

static void parity_steps_from_current_speed(void **state)
{
    (void)state;
    setup_esp();
    bus.cfg.parity_stepdown = 0; /* read as 1 */
    static const uint8_t slow[] = {0x01, 0x03, 0x01, 0x20, 0x0F};
    expect_start(esp_sdtr, sizeof esp_sdtr);
    assert_int_equal(msg_in(slow, sizeof slow, NULL), 0);
    /* Errors at 0x20 (128 ns): 0x20 x 1.5 = 0x30, not 0x19 x 1.5. */
    pcam_nego_parity(&bus, T);
    assert_int_equal(last_event_arg(PCAM_EV_SPEED_DOWN), 0x30);
    assert_link(get(PCAM_TRAN_GOAL), 0x30, 15, 0, 0);
    /* More errors before the renegotiation do not step again. */
    pcam_nego_parity(&bus, T);
    assert_link(get(PCAM_TRAN_GOAL), 0x30, 15, 0, 0);
    assert_true(pcam_nego_wanted(&bus, T));
}

static void parity_while_async_does_nothing(void **state)
{
    (void)state;
    setup_esp();
    pcam_nego_parity(&bus, T);
    pcam_nego_parity(&bus, T);
    assert_link(get(PCAM_TRAN_GOAL), 0x19, 15, 0, 0);
    assert_int_equal(bus.ev.ring_count, 0);
}

/* ---------------------------------------------------------------- invalidate */

static void invalidate_keeps_ladder_and_stepdown(void **state)
{
    (void)state;
    setup_u160();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(ppr_u160, sizeof ppr_u160);
    pcam_nego_rejected(&bus, T);
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), 5);
    assert_int_equal(msg_in(wide_sdtr, sizeof wide_sdtr, reply), 0);
    pcam_nego_parity(&bus, T);
    pcam_nego_parity(&bus, T); /* 0x0A -> 0x0B */
    int calls = xf.calls;

    pcam_nego_invalidate(&bus, T);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_chip(calls + 1, 0, 0, 0, 0);
    /* WDTR, not PPR; then SDTR at the stepped-down 0x0B. */
    expect_start(wdtr_wide, sizeof wdtr_wide);
    static const uint8_t sdtr_b[] = {0x01, 0x03, 0x01, 0x0B, 0x1F};
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), 5);
    assert_memory_equal(reply, sdtr_b, sizeof sdtr_b);

    /* Invalidate with a message in flight drops it; and re-programs the
     * chip even when the record already says asynchronous narrow. */
    pcam_nego_invalidate(&bus, T);
    assert_false(pcam_nego_in_flight(&bus, T));
    calls = xf.calls;
    pcam_nego_invalidate(&bus, T);
    assert_chip(calls + 1, 0, 0, 0, 0);
}

/* ---------------------------------------------------------------- user limits */

static void set_user_clamps(void **state)
{
    (void)state;
    setup_u160();
    pcam_xfer_settings s = {.period = 0x05, .offset = 200, .width = 3, .ppr_options = 0xFF,
                            .disconnect = false, .tagged = true};
    pcam_nego_set_user(&bus, T, &s);
    pcam_xfer_settings u = get(PCAM_TRAN_USER);
    assert_link(u, 0x09, 31, 1, PCAM_PPR_DT_REQ);
    assert_false(u.disconnect);
    assert_true(u.tagged);

    /* 0x09 without DT is not a thing: 0x0A. */
    s = (pcam_xfer_settings){.period = 0x09, .offset = 8, .width = 1, .ppr_options = 0};
    pcam_nego_set_user(&bus, T, &s);
    assert_link(get(PCAM_TRAN_USER), 0x0A, 8, 1, 0);
    assert_link(get(PCAM_TRAN_GOAL), 0x0A, 8, 1, 0);
    assert_true(pcam_nego_wanted(&bus, T));

    /* Period 0 or offset 0 is asynchronous, whatever the other says. */
    s = (pcam_xfer_settings){.period = 0x19, .offset = 0, .width = 0};
    pcam_nego_set_user(&bus, T, &s);
    assert_link(get(PCAM_TRAN_USER), 0, 0, 0, 0);
    assert_false(pcam_nego_wanted(&bus, T)); /* goal == current */

    /* Narrow chip: no wide, no DT, no faster than 0x19; no tags without the cap. */
    setup_bus(PCAM_HAL_CAP_SYNC, 0x19, 15, 8);
    s = (pcam_xfer_settings){.period = 0x0A, .offset = 100, .width = 1,
                             .ppr_options = PCAM_PPR_DT_REQ, .tagged = true};
    pcam_nego_set_user(&bus, T, &s);
    u = get(PCAM_TRAN_USER);
    assert_link(u, 0x19, 15, 0, 0);
    assert_false(u.tagged);

    /* NULL and bad targets are ignored. */
    pcam_nego_set_user(&bus, T, NULL);
    pcam_nego_set_user(&bus, PCAM_MAX_TARGETS, &s);
    assert_link(get(PCAM_TRAN_USER), 0x19, 15, 0, 0);
}

static void set_user_resets_ladder_only_when_changed(void **state)
{
    (void)state;
    setup_u160();
    expect_start(ppr_u160, sizeof ppr_u160);
    pcam_nego_rejected(&bus, T);
    pcam_xfer_settings u = get(PCAM_TRAN_USER);
    /* Same limits again: the ladder stays. */
    pcam_nego_set_user(&bus, T, &u);
    assert_link(get(PCAM_TRAN_GOAL), 0x0A, 31, 1, 0);
    /* New limits: PPR is tried again. */
    u.offset = 16;
    pcam_nego_set_user(&bus, T, &u);
    assert_link(get(PCAM_TRAN_GOAL), 0x09, 16, 1, PCAM_PPR_DT_REQ);
    static const uint8_t ppr16[] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x10, 0x01, 0x02};
    expect_start(ppr16, sizeof ppr16);
}

static void get_reports_and_guards(void **state)
{
    (void)state;
    setup_u160();
    pcam_xfer_settings s;
    memset(&s, 0xAA, sizeof s);
    pcam_nego_get(&bus, PCAM_MAX_TARGETS, PCAM_TRAN_USER, &s);
    assert_link(s, 0, 0, 0, 0);
    pcam_nego_get(&bus, T, (pcam_tran_type)7, &s);
    assert_link(s, 0, 0, 0, 0);
    pcam_nego_get(&bus, T, PCAM_TRAN_USER, NULL); /* no crash */
    assert_true(get(PCAM_TRAN_CURRENT).tagged);
    bus.targets[T].dev.flags |= PCAM_TGTF_NO_TAGS;
    assert_false(get(PCAM_TRAN_CURRENT).tagged);
    assert_true(get(PCAM_TRAN_USER).tagged);
}

static void works_without_set_xfer(void **state)
{
    (void)state;
    setup_esp();
    bus.hal.ops = NULL;
    expect_start(esp_sdtr, sizeof esp_sdtr);
    assert_int_equal(msg_in(esp_sdtr, sizeof esp_sdtr, NULL), 0);
    pcam_nego_invalidate(&bus, T);
    assert_int_equal(xf.calls, 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parity_stepdown_ladder),
        cmocka_unit_test(parity_steps_from_current_speed),
        cmocka_unit_test(parity_while_async_does_nothing),
        cmocka_unit_test(invalidate_keeps_ladder_and_stepdown),
        cmocka_unit_test(set_user_clamps),
        cmocka_unit_test(set_user_resets_ladder_only_when_changed),
        cmocka_unit_test(get_reports_and_guards),
        cmocka_unit_test(works_without_set_xfer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
