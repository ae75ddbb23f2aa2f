/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transfer negotiation, the message exchange (core/nego/nego.c): our
 * SDTR/WDTR/PPR and the target's answers, the MESSAGE REJECT ladder,
 * target-initiated requests and malformed input, on the fixture of
 * nego_fixture.h (zeroed bus, caps per test, a fake back-end that records
 * every set_xfer).
 *
 * Message bytes are worked out from SPI-3 4.3 (extended messages):
 *   SDTR = 01 03 01 period offset
 *   WDTR = 01 02 03 width-exponent
 *   PPR  = 01 06 04 period 00 offset width-exponent options
 * PPR options: IU 0x01, DT 0x02, QAS 0x04. Period factors: 0x09 12.5 ns
 * (DT only), 0x0A 25 ns, 0x0B 30.3 ns, 0x0C 50 ns, else factor x 4 ns, so
 * 0x19 = 100 ns (FAST-10) and 0x32 = 200 ns (FAST-5).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "nego_fixture.h"

/* ---------------------------------------------------------------- init */

static void init_takes_chip_limits(void **state)
{
    (void)state;
    setup_u160();
    pcam_xfer_settings u = get(PCAM_TRAN_USER);
    assert_link(u, 0x09, 31, 1, PCAM_PPR_DT_REQ);
    assert_true(u.disconnect);
    assert_true(u.tagged);
    assert_link(get(PCAM_TRAN_GOAL), 0x09, 31, 1, PCAM_PPR_DT_REQ);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_true(pcam_nego_wanted(&bus, T));
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_int_equal(xf.calls, 0);

    /* IU and QAS only when the chip has them. */
    setup_bus(U160_FLAGS | PCAM_HAL_CAP_IU | PCAM_HAL_CAP_QAS, 0x08, 127, 16);
    assert_link(get(PCAM_TRAN_USER), 0x08, 127, 1, 0x07);
}

static void init_wide_chip_on_narrow_bus(void **state)
{
    (void)state;
    /* WIDE but 8 IDs: narrow, so DT goes and 0x09 becomes 0x0A. */
    setup_bus(U160_FLAGS, 0x09, 31, 8);
    assert_link(get(PCAM_TRAN_USER), 0x0A, 31, 0, 0);
}

static void init_without_sync_or_tags(void **state)
{
    (void)state;
    setup_bus(PCAM_HAL_CAP_PARITY, 0x19, 15, 8);
    pcam_xfer_settings u = get(PCAM_TRAN_USER);
    assert_link(u, 0, 0, 0, 0);
    assert_false(u.tagged);
    assert_true(u.disconnect);
    /* Goal is asynchronous narrow already: nothing to negotiate. */
    assert_false(pcam_nego_wanted(&bus, T));
    uint8_t buf[8];
    assert_int_equal(pcam_nego_start(&bus, T, buf, sizeof buf), 0);
    assert_false(pcam_nego_in_flight(&bus, T));
}

/* ---------------------------------------------------------------- our SDTR */

static void sdtr_accepted(void **state)
{
    (void)state;
    setup_esp();
    expect_start(esp_sdtr, sizeof esp_sdtr);
    uint8_t reply[PCAM_MSGOUT_BYTES];
    assert_int_equal(msg_in(esp_sdtr, sizeof esp_sdtr, reply), 0);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));
    assert_link(get(PCAM_TRAN_CURRENT), 0x19, 15, 0, 0);
    assert_chip(1, 0x19, 15, 0, 0);
    /* arg = period | offset << 8 */
    assert_int_equal(last_event_arg(PCAM_EV_NEGOTIATED), 0x0F19u);
    assert_int_equal(async_calls, 1);
    assert_int_equal(async_code, PCAM_AC_TRANSFER_NEG);
    assert_int_equal(bus.targets[T].counters.negotiations, 1);
}

static void sdtr_counter_offer_slower_smaller(void **state)
{
    (void)state;
    setup_esp();
    static const uint8_t answer[] = {0x01, 0x03, 0x01, 0x32, 0x08};
    expect_start(esp_sdtr, sizeof esp_sdtr);
    assert_int_equal(msg_in(answer, sizeof answer, NULL), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x32, 8, 0, 0);
    assert_chip(1, 0x32, 8, 0, 0);
    /* The target said what it can do: no renegotiation loop. */
    assert_false(pcam_nego_wanted(&bus, T));
    assert_link(get(PCAM_TRAN_GOAL), 0x19, 15, 0, 0);
}

static void sdtr_answer_offset_zero_is_async(void **state)
{
    (void)state;
    setup_esp();
    static const uint8_t answer[] = {0x01, 0x03, 0x01, 0x0C, 0x00};
    expect_start(esp_sdtr, sizeof esp_sdtr);
    /* A faster period with offset 0 is still a valid "asynchronous". */
    assert_int_equal(msg_in(answer, sizeof answer, NULL), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_int_equal(xf.calls, 0); /* nothing changed */
    assert_false(pcam_nego_in_flight(&bus, T));
}

static void sdtr_more_aggressive_answer_rejected(void **state)
{
    (void)state;
    setup_esp();
    expect_start(esp_sdtr, sizeof esp_sdtr);
    assert_int_equal(msg_in(esp_sdtr, sizeof esp_sdtr, NULL), 0);
    assert_chip(1, 0x19, 15, 0, 0);

    /* User slows down to 0x32/8; the target answers 0x19/15: faster and
     * larger than asked, so MESSAGE REJECT and asynchronous. */
    pcam_xfer_settings s = get(PCAM_TRAN_USER);
    s.period = 0x32;
    s.offset = 8;
    pcam_nego_set_user(&bus, T, &s);
    static const uint8_t slow[] = {0x01, 0x03, 0x01, 0x32, 0x08};
    expect_start(slow, sizeof slow);
    assert_int_equal(msg_in(esp_sdtr, sizeof esp_sdtr, NULL), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_chip(2, 0, 0, 0, 0);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));

    /* Offset alone too large is as bad. */
    pcam_nego_invalidate(&bus, T);
    expect_start(slow, sizeof slow);
    static const uint8_t big[] = {0x01, 0x03, 0x01, 0x32, 0x09};
    assert_int_equal(msg_in(big, sizeof big, NULL), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
}

/* ---------------------------------------------------------------- WDTR, SDTR */

static void wdtr_then_sdtr(void **state)
{
    (void)state;
    setup_wide();
    expect_start(wdtr_wide, sizeof wdtr_wide);
    uint8_t reply[PCAM_MSGOUT_BYTES];
    /* The WDTR answer is accepted and our SDTR is the reply, same connection. */
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), 5);
    assert_memory_equal(reply, wide_sdtr, sizeof wide_sdtr);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 1, 0);
    assert_chip(1, 0, 0, 1, 0);
    assert_true(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));

    static const uint8_t answer[] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    assert_int_equal(msg_in(answer, sizeof answer, reply), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0C, 16, 1, 0);
    assert_chip(2, 0x0C, 16, 1, 0);
    assert_int_equal(last_event_arg(PCAM_EV_NEGOTIATED), 0x0C | 16u << 8 | 1u << 16);
    assert_int_equal(bus.targets[T].counters.negotiations, 2);
    assert_int_equal(async_calls, 2);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));
}

static void wdtr_counter_offer_narrow(void **state)
{
    (void)state;
    setup_wide();
    static const uint8_t narrow[] = {0x01, 0x02, 0x03, 0x00};
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(msg_in(narrow, sizeof narrow, reply), 5);
    assert_memory_equal(reply, wide_sdtr, sizeof wide_sdtr);
    assert_int_equal(xf.calls, 0); /* still narrow async */
    assert_int_equal(msg_in(wide_sdtr, sizeof wide_sdtr, reply), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0A, 31, 0, 0);
    assert_false(pcam_nego_wanted(&bus, T));
}

static void wdtr_wider_answer_rejected(void **state)
{
    (void)state;
    setup_wide();
    static const uint8_t w32[] = {0x01, 0x02, 0x03, 0x02};
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(msg_in(w32, sizeof w32, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));
}

static void wdtr_answer_without_reply_room_defers_sdtr(void **state)
{
    (void)state;
    setup_wide();
    uint8_t reply[4];
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(pcam_nego_msg_in(&bus, T, wdtr_wide, sizeof wdtr_wide, reply, sizeof reply), 0);
    assert_false(pcam_nego_in_flight(&bus, T));
    /* The SDTR goes out with the next selection instead. */
    expect_start(wide_sdtr, sizeof wide_sdtr);
}

/* ---------------------------------------------------------------- PPR */


static void ppr_for_fast80_with_dt(void **state)
{
    (void)state;
    setup_u160();
    expect_start(ppr_u160, sizeof ppr_u160);
    uint8_t reply[PCAM_MSGOUT_BYTES];
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x09, 31, 1, PCAM_PPR_DT_REQ);
    assert_chip(1, 0x09, 31, 1, PCAM_PPR_DT_REQ);
    assert_int_equal(last_event_arg(PCAM_EV_NEGOTIATED), 0x02011F09u);
    assert_false(pcam_nego_wanted(&bus, T));
}

static void ppr_counter_offer_st(void **state)
{
    (void)state;
    setup_u160();
    expect_start(ppr_u160, sizeof ppr_u160);
    /* 0x0A ST, offset 16, wide, no options: slower and a subset. */
    static const uint8_t answer[] = {0x01, 0x06, 0x04, 0x0A, 0x00, 0x10, 0x01, 0x00};
    assert_int_equal(msg_in(answer, sizeof answer, NULL), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0A, 16, 1, 0);
}

static void ppr_invalid_answers(void **state)
{
    (void)state;
    static const uint8_t bad[][8] = {
        {0x01, 0x06, 0x04, 0x08, 0x00, 0x1F, 0x01, 0x02}, /* faster than asked */
        {0x01, 0x06, 0x04, 0x09, 0x00, 0x20, 0x01, 0x02}, /* larger offset */
        {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x00}, /* 0x09 without DT */
        {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x00, 0x02}, /* DT on a narrow bus */
        {0x01, 0x06, 0x04, 0x0A, 0x00, 0x1F, 0x01, 0x03}, /* IU not asked for */
        {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x02, 0x02}, /* wider than asked */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setup_u160();
        /* Get to a sync agreement first so the fallback is visible. */
        expect_start(ppr_u160, sizeof ppr_u160);
        assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, NULL), 0);
        pcam_nego_invalidate(&bus, T);
        assert_chip(2, 0, 0, 0, 0);
        expect_start(ppr_u160, sizeof ppr_u160);
        assert_int_equal(msg_in(bad[i], 8, NULL), -1);
        assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
        assert_false(pcam_nego_in_flight(&bus, T));
        assert_false(pcam_nego_wanted(&bus, T));
    }
}

static void ppr_answer_async_with_options_is_async(void **state)
{
    (void)state;
    setup_u160();
    expect_start(ppr_u160, sizeof ppr_u160);
    static const uint8_t answer[] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x00, 0x01, 0x02};
    assert_int_equal(msg_in(answer, sizeof answer, NULL), 0);
    /* Offset 0: asynchronous; width still agreed, DT meaningless. */
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 1, 0);
}

/* ---------------------------------------------------------------- ladder */

static void ppr_rejected_then_wdtr_and_sdtr(void **state)
{
    (void)state;
    setup_u160();
    expect_start(ppr_u160, sizeof ppr_u160);
    pcam_nego_rejected(&bus, T);
    assert_false(pcam_nego_in_flight(&bus, T));
    /* Goal without PPR: ST, so 0x0A; the user limits are untouched. */
    assert_link(get(PCAM_TRAN_GOAL), 0x0A, 31, 1, 0);
    assert_link(get(PCAM_TRAN_USER), 0x09, 31, 1, PCAM_PPR_DT_REQ);
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), 5);
    assert_memory_equal(reply, wide_sdtr, sizeof wide_sdtr);
    assert_int_equal(msg_in(wide_sdtr, sizeof wide_sdtr, reply), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0A, 31, 1, 0);
    assert_false(pcam_nego_wanted(&bus, T));

    /* A target-initiated PPR is refused from now on. */
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    expect_start(wdtr_wide, sizeof wdtr_wide);
}

static void wdtr_rejected_then_sdtr_only(void **state)
{
    (void)state;
    setup_wide();
    expect_start(wdtr_wide, sizeof wdtr_wide);
    pcam_nego_rejected(&bus, T);
    assert_link(get(PCAM_TRAN_GOAL), 0x0A, 31, 0, 0);
    expect_start(wide_sdtr, sizeof wide_sdtr);
    assert_int_equal(msg_in(wide_sdtr, sizeof wide_sdtr, NULL), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0A, 31, 0, 0);
    assert_false(pcam_nego_wanted(&bus, T));
}

static void sdtr_rejected_goes_async(void **state)
{
    (void)state;
    setup_esp();
    expect_start(esp_sdtr, sizeof esp_sdtr);
    pcam_nego_rejected(&bus, T);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_link(get(PCAM_TRAN_GOAL), 0, 0, 0, 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_false(pcam_nego_wanted(&bus, T));
    /* Rejected with nothing in flight: nothing happens. */
    pcam_nego_rejected(&bus, T);
    assert_int_equal(xf.calls, 0);
}

static void sdtr_rejected_after_wide_keeps_wide(void **state)
{
    (void)state;
    setup_wide();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), 5);
    pcam_nego_rejected(&bus, T); /* our SDTR */
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 1, 0);
    assert_link(get(PCAM_TRAN_GOAL), 0, 0, 1, 0);
    assert_false(pcam_nego_wanted(&bus, T));
}

static void no_answer_steps_like_reject(void **state)
{
    (void)state;
    setup_u160();
    expect_start(ppr_u160, sizeof ppr_u160);
    pcam_nego_no_answer(&bus, T);
    expect_start(wdtr_wide, sizeof wdtr_wide);
    pcam_nego_no_answer(&bus, T);
    expect_start(wide_sdtr, sizeof wide_sdtr);
    pcam_nego_no_answer(&bus, T);
    assert_link(get(PCAM_TRAN_GOAL), 0, 0, 0, 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_false(pcam_nego_wanted(&bus, T));
    assert_false(pcam_nego_in_flight(&bus, T));
}

/* ---------------------------------------------------------------- target-initiated */

static void target_initiated_sdtr(void **state)
{
    (void)state;
    setup_esp();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    /* Asks 0x0C/32: we can do 0x19/15 at best. */
    static const uint8_t req[] = {0x01, 0x03, 0x01, 0x0C, 0x20};
    static const uint8_t ans[] = {0x01, 0x03, 0x01, 0x19, 0x0F};
    assert_int_equal(msg_in(req, sizeof req, reply), 5);
    assert_memory_equal(reply, ans, sizeof ans);
    assert_link(get(PCAM_TRAN_CURRENT), 0x19, 15, 0, 0);
    assert_chip(1, 0x19, 15, 0, 0);
    assert_false(pcam_nego_wanted(&bus, T));
    assert_false(pcam_nego_in_flight(&bus, T));

    /* Slower than our limits: echoed. */
    static const uint8_t slow[] = {0x01, 0x03, 0x01, 0x32, 0x04};
    assert_int_equal(msg_in(slow, sizeof slow, reply), 5);
    assert_memory_equal(reply, slow, sizeof slow);
    assert_link(get(PCAM_TRAN_CURRENT), 0x32, 4, 0, 0);

    /* Target then rejects our answer: asynchronous, ladder untouched. */
    pcam_nego_rejected(&bus, T);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_link(get(PCAM_TRAN_GOAL), 0x19, 15, 0, 0);
}

static void target_initiated_sdtr_when_async_only(void **state)
{
    (void)state;
    setup_bus(PCAM_HAL_CAP_TAGS, 0, 0, 8);
    uint8_t reply[PCAM_MSGOUT_BYTES];
    static const uint8_t req[] = {0x01, 0x03, 0x01, 0x19, 0x08};
    static const uint8_t ans[] = {0x01, 0x03, 0x01, 0x00, 0x00};
    assert_int_equal(msg_in(req, sizeof req, reply), 5);
    assert_memory_equal(reply, ans, sizeof ans);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
}

static void target_initiated_wdtr(void **state)
{
    (void)state;
    setup_wide();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    /* 32-bit asked; we answer 16-bit. */
    static const uint8_t req[] = {0x01, 0x02, 0x03, 0x02};
    static const uint8_t ans[] = {0x01, 0x02, 0x03, 0x01};
    assert_int_equal(msg_in(req, sizeof req, reply), 4);
    assert_memory_equal(reply, ans, sizeof ans);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 1, 0);
    assert_chip(1, 0, 0, 1, 0);
    /* Sync was reset by the WDTR: our SDTR goes next. */
    expect_start(wide_sdtr, sizeof wide_sdtr);

    /* On a narrow chip the answer is narrow. */
    setup_esp();
    assert_int_equal(msg_in(ans, sizeof ans, reply), 4);
    static const uint8_t narrow[] = {0x01, 0x02, 0x03, 0x00};
    assert_memory_equal(reply, narrow, sizeof narrow);
}

static void target_initiated_ppr(void **state)
{
    (void)state;
    setup_u160();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    /* 0x08, offset 127, wide, QAS|DT|IU: we do 0x09, 31, wide, DT. */
    static const uint8_t req[] = {0x01, 0x06, 0x04, 0x08, 0x00, 0x7F, 0x01, 0x07};
    assert_int_equal(msg_in(req, sizeof req, reply), 8);
    assert_memory_equal(reply, ppr_u160, sizeof ppr_u160);
    assert_link(get(PCAM_TRAN_CURRENT), 0x09, 31, 1, PCAM_PPR_DT_REQ);
    assert_false(pcam_nego_wanted(&bus, T));

    /* Narrow with DT: DT is wide-only, so ST, and 0x09 becomes 0x0A. */
    static const uint8_t nreq[] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x10, 0x00, 0x02};
    static const uint8_t nans[] = {0x01, 0x06, 0x04, 0x0A, 0x00, 0x10, 0x00, 0x00};
    assert_int_equal(msg_in(nreq, sizeof nreq, reply), 8);
    assert_memory_equal(reply, nans, sizeof nans);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0A, 16, 0, 0);
}

static void target_initiated_ppr_refused_by_chip(void **state)
{
    (void)state;
    setup_wide(); /* no DT/IU/QAS */
    uint8_t reply[PCAM_MSGOUT_BYTES];
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    expect_start(wdtr_wide, sizeof wdtr_wide);
}

static void mismatched_answer_rejected(void **state)
{
    (void)state;
    setup_wide();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(wdtr_wide, sizeof wdtr_wide);
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), 5);
    /* Our SDTR is in flight; the target answers with a WDTR. */
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);
    assert_false(pcam_nego_in_flight(&bus, T));
}

/* ---------------------------------------------------------------- malformed */

static void malformed_messages(void **state)
{
    (void)state;
    setup_esp();
    uint8_t reply[PCAM_MSGOUT_BYTES];
    static const uint8_t trunc[] = {0x01, 0x03, 0x01, 0x19};
    static const uint8_t badlen[] = {0x01, 0x02, 0x01, 0x19};
    static const uint8_t mdp[] = {0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x10};
    static const uint8_t extra[] = {0x01, 0x03, 0x01, 0x19, 0x0F, 0x00};
    static const uint8_t ok[] = {0x01, 0x03, 0x01, 0x19, 0x0F};

    assert_int_equal(pcam_nego_msg_in(NULL, T, ok, sizeof ok, reply, sizeof reply), -1);
    assert_int_equal(pcam_nego_msg_in(&bus, T, NULL, 5, reply, sizeof reply), -1);
    assert_int_equal(pcam_nego_msg_in(&bus, PCAM_MAX_TARGETS, ok, sizeof ok, reply, sizeof reply), -1);
    assert_int_equal(msg_in(ok, 0, reply), -1);
    assert_int_equal(msg_in(mdp, sizeof mdp, reply), -1);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_int_equal(xf.calls, 0);
    assert_int_equal(msg_in(trunc, sizeof trunc, reply), -1);
    assert_int_equal(msg_in(badlen, sizeof badlen, reply), -1);
    assert_int_equal(msg_in(extra, sizeof extra, reply), -1);
    /* A target-initiated SDTR we cannot answer for lack of room is rejected. */
    assert_int_equal(pcam_nego_msg_in(&bus, T, ok, sizeof ok, reply, 4), -1);
    assert_int_equal(pcam_nego_msg_in(&bus, T, ok, sizeof ok, NULL, 0), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, 0, 0);

    /* Our SDTR in flight and a truncated answer: reject, asynchronous. */
    expect_start(ok, sizeof ok);
    assert_int_equal(msg_in(trunc, sizeof trunc, reply), -1);
    assert_false(pcam_nego_in_flight(&bus, T));
}

static void start_errors(void **state)
{
    (void)state;
    setup_u160();
    uint8_t buf[PCAM_MSGOUT_BYTES];
    assert_int_equal(pcam_nego_start(NULL, T, buf, sizeof buf), PCAM_ERR_NULL);
    assert_int_equal(pcam_nego_start(&bus, T, NULL, 8), PCAM_ERR_NULL);
    assert_int_equal(pcam_nego_start(&bus, 16, buf, sizeof buf), PCAM_ERR_RANGE);
    /* PPR needs 8 bytes. */
    assert_int_equal(pcam_nego_start(&bus, T, buf, 7), PCAM_ERR_NOSPACE);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_true(pcam_nego_wanted(&bus, T));
    expect_start(ppr_u160, sizeof ppr_u160);
    /* One in flight: a second start writes nothing. */
    assert_int_equal(pcam_nego_start(&bus, T, buf, sizeof buf), 0);
    assert_false(pcam_nego_wanted(&bus, 16));
    assert_false(pcam_nego_in_flight(&bus, 16));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_takes_chip_limits),
        cmocka_unit_test(init_wide_chip_on_narrow_bus),
        cmocka_unit_test(init_without_sync_or_tags),
        cmocka_unit_test(sdtr_accepted),
        cmocka_unit_test(sdtr_counter_offer_slower_smaller),
        cmocka_unit_test(sdtr_answer_offset_zero_is_async),
        cmocka_unit_test(sdtr_more_aggressive_answer_rejected),
        cmocka_unit_test(wdtr_then_sdtr),
        cmocka_unit_test(wdtr_counter_offer_narrow),
        cmocka_unit_test(wdtr_wider_answer_rejected),
        cmocka_unit_test(wdtr_answer_without_reply_room_defers_sdtr),
        cmocka_unit_test(ppr_for_fast80_with_dt),
        cmocka_unit_test(ppr_counter_offer_st),
        cmocka_unit_test(ppr_invalid_answers),
        cmocka_unit_test(ppr_answer_async_with_options_is_async),
        cmocka_unit_test(ppr_rejected_then_wdtr_and_sdtr),
        cmocka_unit_test(wdtr_rejected_then_sdtr_only),
        cmocka_unit_test(sdtr_rejected_goes_async),
        cmocka_unit_test(sdtr_rejected_after_wide_keeps_wide),
        cmocka_unit_test(no_answer_steps_like_reject),
        cmocka_unit_test(target_initiated_sdtr),
        cmocka_unit_test(target_initiated_sdtr_when_async_only),
        cmocka_unit_test(target_initiated_wdtr),
        cmocka_unit_test(target_initiated_ppr),
        cmocka_unit_test(target_initiated_ppr_refused_by_chip),
        cmocka_unit_test(mismatched_answer_rejected),
        cmocka_unit_test(malformed_messages),
        cmocka_unit_test(start_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
