/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A core built without wide transfers and without PPR (PCAM_CFG_WIDE 0,
 * PCAM_CFG_PPR 0: the minimal configuration) on a chip that could do
 * both. What it must still do (SPI-3 4.12): never send WDTR or PPR itself,
 * answer a target's WDTR with WDTR width 0 (8-bit), which leaves both ends
 * asynchronous narrow, answer a target's PPR with MESSAGE REJECT (the
 * engine sends it when pcam_nego_msg_in() returns -1), which by SPI leaves
 * both ends asynchronous narrow too, and after either negotiate sync with
 * its own SDTR. Two levels: the negotiation functions on a bare bus
 * (tests/unit/nego_fixture.h, the exact bytes), and the whole core on
 * hal/sim with a wide chip and a wide target that starts WDTR and SDTR
 * itself (the core, the target and the chip must agree, and data must move
 * at that rate). Built only against pcam_cfgmin and pcam_sim_min.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nego_fixture.h"
#include "simrig.h"

#if PCAM_CFG_WIDE || PCAM_CFG_PPR
#error "test_config_narrow.c is for a core without WDTR and PPR"
#endif

/* An Ultra160 chip (wide, DT, 0x09, offset 31) on the 8 IDs the build has. */
static void setup_u160_narrow(void)
{
    setup_bus(U160_FLAGS, 0x09, 31, 8);
}

/* 25 ns (the fastest ST factor: 0x09 needs DT), offset 31 */
static const uint8_t sdtr_0a_31[] = {0x01, 0x03, 0x01, 0x0A, 0x1F};
static const uint8_t wdtr_8bit[] = {0x01, 0x02, 0x03, 0x00};

/* Agree SDTR(0x0A, 31) the ordinary way: ours, answered in kind. */
static void reach_sync(void)
{
    uint8_t reply[PCAM_MSGOUT_BYTES];
    expect_start(sdtr_0a_31, sizeof sdtr_0a_31);
    assert_int_equal(msg_in(sdtr_0a_31, sizeof sdtr_0a_31, reply), 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0x0A, 31, PCAM_WIDTH_8BIT, 0);
}

/* The goal of a wide DT chip is narrow ST, and only SDTR says it. */
static void own_negotiation_is_sdtr_only(void **state)
{
    (void)state;
    setup_u160_narrow();
    assert_link(get(PCAM_TRAN_USER), 0x0A, 31, PCAM_WIDTH_8BIT, 0);
    assert_link(get(PCAM_TRAN_GOAL), 0x0A, 31, PCAM_WIDTH_8BIT, 0);
    /* Even a user asking for wide DT at 0x09 gets narrow ST. */
    pcam_xfer_settings u = get(PCAM_TRAN_USER);
    u.period = 0x09;
    u.width = PCAM_WIDTH_16BIT;
    u.ppr_options = PCAM_PPR_DT_REQ | PCAM_PPR_IU_REQ;
    pcam_nego_set_user(&bus, T, &u);
    assert_link(get(PCAM_TRAN_GOAL), 0x0A, 31, PCAM_WIDTH_8BIT, 0);
    reach_sync();
    assert_chip(1, 0x0A, 31, PCAM_WIDTH_8BIT, 0);
    assert_false(pcam_nego_wanted(&bus, T));
}

/* A target's WDTR(16-bit) while idle: WDTR(8-bit) back, both ends stay
 * asynchronous narrow (nothing to program), and our SDTR is still owed. */
static void target_wdtr_gets_8bit(void **state)
{
    uint8_t reply[PCAM_MSGOUT_BYTES];
    (void)state;
    setup_u160_narrow();
    memset(reply, 0xEE, sizeof reply);
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), (int)sizeof wdtr_8bit);
    assert_memory_equal(reply, wdtr_8bit, sizeof wdtr_8bit);
    assert_int_equal(reply[sizeof wdtr_8bit], 0xEE);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_int_equal(xf.calls, 0);
    assert_false(pcam_nego_in_flight(&bus, T));
    /* The target accepted (went on): the next selection carries our SDTR. */
    pcam_nego_no_answer(&bus, T);
    reach_sync();
}

/* A target's WDTR once sync is agreed: the answer is still 8-bit, and the
 * WDTR exchange resets sync (SPI), so the chip goes asynchronous and our
 * SDTR is owed again. A second WDTR in the same state is answered the same. */
static void target_wdtr_resets_sync(void **state)
{
    uint8_t reply[PCAM_MSGOUT_BYTES];
    (void)state;
    setup_u160_narrow();
    reach_sync();
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), (int)sizeof wdtr_8bit);
    assert_memory_equal(reply, wdtr_8bit, sizeof wdtr_8bit);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_chip(2, 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_true(pcam_nego_wanted(&bus, T));
    reach_sync();
    /* WDTR(8-bit) from the target is answered in kind too. */
    assert_int_equal(msg_in(wdtr_8bit, sizeof wdtr_8bit, reply), (int)sizeof wdtr_8bit);
    assert_memory_equal(reply, wdtr_8bit, sizeof wdtr_8bit);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
}

/* A target's PPR: MESSAGE REJECT (-1), both ends asynchronous narrow, and
 * our own negotiation (SDTR, never PPR) next. */
static void target_ppr_is_rejected(void **state)
{
    uint8_t reply[PCAM_MSGOUT_BYTES];
    (void)state;
    setup_u160_narrow();
    memset(reply, 0xEE, sizeof reply);
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), -1);
    assert_int_equal(reply[0], 0xEE);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_true(pcam_nego_wanted(&bus, T));
    reach_sync();
    /* Once sync is agreed a PPR still gets MESSAGE REJECT, and by SPI that
     * leaves asynchronous narrow: the chip is told. */
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_chip(2, 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_true(pcam_nego_wanted(&bus, T));
    reach_sync();
}

/* A WDTR or PPR as the answer to our SDTR is an answer we cannot accept:
 * MESSAGE REJECT, asynchronous narrow. A malformed PPR (bad length) is
 * rejected the same way. */
static void wdtr_or_ppr_answering_sdtr_is_refused(void **state)
{
    uint8_t reply[PCAM_MSGOUT_BYTES];
    static const uint8_t ppr_short[] = {0x01, 0x05, 0x04, 0x09, 0x00, 0x1F, 0x01};
    (void)state;
    setup_u160_narrow();
    expect_start(sdtr_0a_31, sizeof sdtr_0a_31);
    assert_int_equal(msg_in(wdtr_wide, sizeof wdtr_wide, reply), -1);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
    setup_u160_narrow();
    expect_start(sdtr_0a_31, sizeof sdtr_0a_31);
    assert_int_equal(msg_in(ppr_u160, sizeof ppr_u160, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_int_equal(msg_in(ppr_short, sizeof ppr_short, reply), -1);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
}

/* The ladder has one rung: a rejected SDTR means asynchronous for good (no
 * WDTR or PPR to fall back to). */
static void rejected_sdtr_ends_the_ladder(void **state)
{
    (void)state;
    setup_u160_narrow();
    expect_start(sdtr_0a_31, sizeof sdtr_0a_31);
    pcam_nego_rejected(&bus, T);
    assert_false(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));
    assert_link(get(PCAM_TRAN_GOAL), 0, 0, PCAM_WIDTH_8BIT, 0);
    assert_link(get(PCAM_TRAN_CURRENT), 0, 0, PCAM_WIDTH_8BIT, 0);
}

/* ---- the whole core on hal/sim ---- */

#define TID 3
#define BLOCKS 256u

static void tran(simrig *r, uint32_t func, pcam_tran_type type, pcam_xfer_settings *s)
{
    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = func;
    rc.ccb.target = TID;
    rc.ccb.u.tran.type = type;
    rc.ccb.u.tran.settings = *s;
    assert_int_equal(rig_sync(r, &rc, RIG_S(1)), PCAM_REQ_CMP);
    *s = rc.ccb.u.tran.settings;
}

/* Core (GET_TRAN CURRENT), target and chip hold the same agreement. */
static void agreed(simrig *r, uint8_t period, uint8_t offset)
{
    pcam_xfer_settings cur;
    pcam_hal_xfer_params tgt, chip;
    memset(&cur, 0, sizeof cur);
    tran(r, PCAM_FN_GET_TRAN, PCAM_TRAN_CURRENT, &cur);
    assert_link(cur, period, offset, PCAM_WIDTH_8BIT, 0);
    pcam_sim_target_agreement(r->sim, TID, &tgt);
    assert_int_equal(tgt.period, period);
    assert_int_equal(tgt.offset, offset);
    assert_int_equal(tgt.width, PCAM_WIDTH_8BIT);
    assert_int_equal(tgt.ppr_options, 0);
    pcam_sim_chip_xfer(r->sim, TID, &chip);
    assert_int_equal(chip.period, period);
    assert_int_equal(chip.offset, offset);
    assert_int_equal(chip.width, PCAM_WIDTH_8BIT);
    assert_int_equal(chip.ppr_options, 0);
}

static void read_check(simrig *r, const uint8_t *medium)
{
    static uint8_t buf[16 * 512];
    for (uint32_t lba = 0; lba < BLOCKS; lba += 16) {
        rig_ccb rc;
        uint8_t cdb[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 16, 0};
        cdb[2] = (uint8_t)(lba >> 24);
        cdb[3] = (uint8_t)(lba >> 16);
        cdb[4] = (uint8_t)(lba >> 8);
        cdb[5] = (uint8_t)lba;
        memset(buf, 0, sizeof buf);
        rig_ccb_io(&rc, TID, 0, cdb, sizeof cdb, PCAM_DIR_IN, buf, sizeof buf);
        assert_int_equal(rig_sync(r, &rc, RIG_S(5)), PCAM_REQ_CMP);
        assert_memory_equal(buf, medium + (size_t)lba * 512u, sizeof buf);
    }
}

/*
 * A wide chip (Ultra160 defaults: 0x09, offset 31, wide, DT) on a wide
 * simulated bus, driven narrow by this build; the target (0x0C, offset 16,
 * wide) starts WDTR and SDTR itself after its first CDB, on a connection
 * where the core sent none: so the core's user limits are asynchronous
 * first, leaving it nothing to ask. The target's WDTR(16-bit) gets
 * WDTR(8-bit), its SDTR(0x0C, 16) gets offset 0: asynchronous narrow on
 * all three records; the target started 2 and received 2. Then the user
 * limits go back to the chip's: the core's own SDTR(0x0A, 31) is answered
 * SDTR(0x0C, 16) and that is the agreement, narrow, with no WDTR or PPR
 * ever sent (3 received in all). Reads compare with the medium each time.
 */
static void sim_target_starts_wdtr_and_sdtr(void **state)
{
    simrig r;
    pcam_sim_config sc;
    pcam_sim_target_config tc;
    pcam_sim_target_stats ts;
    pcam_xfer_settings user, async;
    rig_ccb scan;
    (void)state;

    pcam_sim_config_defaults(&sc);
    sc.width = 16;
    assert_true((sc.cap_flags & PCAM_HAL_CAP_WIDE) != 0 && (sc.cap_flags & PCAM_HAL_CAP_DT) != 0);
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.initiate_wdtr = true;
    tc.initiate_sdtr = true;
    tc.ppr = PCAM_SIM_NEGO_ACCEPT;
    tc.ppr_options = PCAM_PPR_DT_REQ;
    assert_int_equal(simrig_init(&r, &sc, NULL, false), 0);
    r.check_every = 0;
    assert_int_equal(r.bus.caps.max_targets, 8);
    const uint8_t *medium = simrig_add_disk(&r, TID, 0, BLOCKS, &tc);
    assert_non_null(medium);

    memset(&user, 0, sizeof user);
    tran(&r, PCAM_FN_GET_TRAN, PCAM_TRAN_USER, &user);
    assert_link(user, 0x0A, 31, PCAM_WIDTH_8BIT, 0);
    async = user;
    async.period = 0;
    async.offset = 0;
    tran(&r, PCAM_FN_SET_TRAN, PCAM_TRAN_USER, &async);

    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    agreed(&r, 0, 0);
    pcam_sim_target_stats_get(r.sim, TID, &ts);
    assert_int_equal(ts.nego_initiated, 2);
    assert_int_equal(ts.nego_received, 2);
    read_check(&r, medium);

    tran(&r, PCAM_FN_SET_TRAN, PCAM_TRAN_USER, &user);
    read_check(&r, medium);
    agreed(&r, 0x0C, 16);
    pcam_sim_target_stats_get(r.sim, TID, &ts);
    assert_int_equal(ts.nego_initiated, 2);
    assert_int_equal(ts.nego_received, 3);
    assert_null(r.violation);
    simrig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_negotiation_is_sdtr_only),
        cmocka_unit_test(target_wdtr_gets_8bit),
        cmocka_unit_test(target_wdtr_resets_sync),
        cmocka_unit_test(target_ppr_is_rejected),
        cmocka_unit_test(wdtr_or_ppr_answering_sdtr_is_refused),
        cmocka_unit_test(rejected_sdtr_ends_the_ladder),
        cmocka_unit_test(sim_target_starts_wdtr_and_sdtr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
