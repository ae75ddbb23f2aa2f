/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Regression scenarios for what fuzz/fuzz_engine.c found, rebuilt by hand
 * on the simulated bus with the target oracle hook (pcam_sim_target_config
 * ::oracle) so each shows the one misbehaviour that mattered:
 *
 * - nego_ping_pong (corpus/engine/nego_ping_pong): the target sends SDTR
 *   after the CDB; the core answers; the target takes that answer for a new
 *   request and answers it with SDTR, which the core answered again, and so
 *   on until the command timed out. SPI-3 4.12: a target that disagrees
 *   with the initiator's answer sends MESSAGE REJECT; a second request of a
 *   kind already answered in the connection is refused with MESSAGE REJECT,
 *   and both ends then go asynchronous for it (SPI-3: a rejected SDTR
 *   leaves asynchronous transfer).
 * - bdr_then_hang (corpus/engine/bdr_then_hang): a target takes TARGET
 *   RESET and never lets go of the bus. No command of ours is on the bus,
 *   so no command timeout fired and the RESET_DEV CCB never completed. The
 *   step now has a deadline (abort_timeout_ms plus the 250 ms SPI selection
 *   time-out), then the bus is reset and the CCB fails with CMD_TIMEOUT.
 * - timeout_then_completes (corpus/engine/timeout_then_completes): a
 *   command times out while its selection is still on the bus (the target
 *   holds the bus for the mechanism without disconnecting), so the abort
 *   step waits; then the command completes normally. The step kept its
 *   pointer to the finished CCB, and at its deadline went on to BUS DEVICE
 *   RESET with that CCB as the nexus, writing into a CCB the caller owned
 *   again. A command that finishes ends the step that was working on it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "simrig.h"

#define TID 2

typedef struct script {
    bool fired;
    pcam_phase after; /* answer once, at the first decision after this phase */
    pcam_sim_next_action action;
    uint8_t bytes[8];
    uint8_t len;
} script;

static bool once(void *ctx, pcam_sim_oracle_query *q)
{
    script *s = ctx;

    if (s->fired || q->what != PCAM_SIM_DEC_NEXT || q->phase != s->after)
        return false;
    s->fired = true;
    q->action = s->action;
    memcpy(q->bytes, s->bytes, sizeof q->bytes);
    q->len = s->len;
    return true;
}

static uint8_t *setup(simrig *r, script *s)
{
    pcam_sim_target_config tc;

    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.oracle = once;
    tc.oracle_ctx = s;
    assert_int_equal(simrig_init(r, NULL, NULL, false), 0);
    uint8_t *medium = simrig_add_disk(r, TID, 0, 64, &tc);
    assert_non_null(medium);
    return medium;
}

static uint32_t read10(simrig *r, uint8_t *buf, uint32_t lba, uint16_t blocks, uint64_t limit_ns)
{
    rig_ccb rc;
    uint8_t cdb[10];

    assert_int_equal(pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0), 10);
    rig_ccb_io(&rc, TID, 0, cdb, 10, PCAM_DIR_IN, buf, blocks * 512u);
    return rig_sync(r, &rc, limit_ns);
}

static void nego_ping_pong(void **state)
{
    (void)state;
    /* SDTR, period factor 0x0C (50 ns), offset 16: what the default target allows. */
    script s = {.after = PCAM_PHASE_COMMAND, .action = PCAM_SIM_NEXT_MSG,
                .bytes = {0x01, 0x03, 0x01, 0x0C, 0x10}, .len = 5};
    simrig r;
    uint8_t *medium = setup(&r, &s);
    uint8_t buf[2 * 512];
    pcam_hal_xfer_params target_side, chip_side;

    /* 20 ms of simulated time is ample for one read; the ping-pong would
     * fill it (and the 10 s command timeout) with SDTR exchanges. */
    uint32_t st = read10(&r, buf, 4, 2, RIG_MS(20));
    assert_true(s.fired);
    assert_int_equal(st & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_memory_equal(buf, medium + 4 * 512, sizeof buf);
    assert_null(r.violation);

    /* Refused on both sides: asynchronous everywhere, so the chip and the
     * target agree (the simulator's strict_xfer would fail the data phase
     * otherwise). */
    pcam_sim_target_agreement(r.sim, TID, &target_side);
    pcam_sim_chip_xfer(r.sim, TID, &chip_side);
    rig_ccb g;
    memset(&g, 0, sizeof g);
    g.ccb.func = PCAM_FN_GET_TRAN;
    g.ccb.target = TID;
    g.ccb.u.tran.type = PCAM_TRAN_CURRENT;
    rig_submit(&r, &g);
    assert_int_equal(g.done_count, 1);
    assert_int_equal(g.ccb.u.tran.settings.offset, 0);
    assert_int_equal(target_side.offset, 0);
    assert_int_equal(chip_side.offset, 0);
    simrig_fini(&r);
}

static void bdr_then_hang(void **state)
{
    (void)state;
    /* After IDENTIFY + TARGET RESET the target neither frees the bus nor
     * requests anything. */
    script s = {.after = PCAM_PHASE_MSG_OUT, .action = PCAM_SIM_NEXT_HANG};
    simrig r;
    uint8_t *medium = setup(&r, &s);
    rig_ccb rc;
    pcam_sim_bus_stats bs;
    uint8_t buf[512];

    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_RESET_DEV;
    rc.ccb.target = TID;
    uint32_t st = rig_sync(&r, &rc, RIG_S(30));
    assert_true(s.fired);
    assert_int_equal(rc.done_count, 1);
    assert_int_equal(st & PCAM_STATUS_MASK, PCAM_CMD_TIMEOUT);
    /* Deadline: abort_timeout_ms (default 2000) + 250 ms from the selection. */
    uint64_t t_done = pcam_sim_now(r.sim); /* rig_sync stops as the CCB completes */
    assert_true(t_done >= RIG_MS(2250) && t_done < RIG_MS(2260));
    pcam_sim_bus_stats_get(r.sim, &bs);
    assert_int_equal(bs.bus_resets, 1);
    assert_null(r.violation);

    /* The bus works afterwards (the reset leaves a UNIT ATTENTION the core
     * retries through). */
    assert_int_equal(read10(&r, buf, 1, 1, RIG_S(30)) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_memory_equal(buf, medium + 512, sizeof buf);
    simrig_fini(&r);
}

static void timeout_then_completes(void **state)
{
    (void)state;
    script s = {.after = PCAM_PHASE_DATA_OUT + 100}; /* never fires */
    simrig r;
    pcam_sim_target_config *tc;
    rig_ccb rc;
    pcam_sim_target_stats ts;
    pcam_sim_bus_stats bs;
    /* VERIFY(10) of LBA 40, one block, no data (SBC): it needs the
     * mechanism, which seeks for milliseconds. */
    static const uint8_t verify[10] = {0x2F, 0, 0, 0, 0, 40, 0, 0, 1, 0};

    setup(&r, &s);
    tc = pcam_sim_target_cfg(r.sim, TID);
    tc->disconnect = PCAM_SIM_DISC_NEVER;
    /* A first command gets the negotiation over with, so the VERIFY's
     * selection carries no message the target answers at once: the select
     * action is still in progress while the mechanism works. */
    static const uint8_t tur[6] = {0};
    rig_ccb_io(&rc, TID, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    assert_int_equal(rig_sync(&r, &rc, RIG_S(1)) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    rig_ccb_io(&rc, TID, 0, verify, 10, PCAM_DIR_NONE, NULL, 0);
    rc.ccb.timeout_ms = 1;
    uint32_t st = rig_sync(&r, &rc, RIG_S(1));
    assert_int_equal(rc.done_count, 1);
    assert_int_not_equal(st, 0xFFFFFFFFu);
    /* Run on past the abort step's deadline (abort_timeout_ms, 2 s). */
    bool never = false;
    simrig_run_until_flag(&r, &never, pcam_sim_now(r.sim) + RIG_S(5));
    assert_null(r.violation);
    pcam_sim_target_stats_get(r.sim, TID, &ts);
    pcam_sim_bus_stats_get(r.sim, &bs);
    assert_int_equal(ts.target_resets, 0);
    assert_int_equal(bs.bus_resets, 0);
    assert_int_equal(rc.done_count, 1);
    simrig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nego_ping_pong),
        cmocka_unit_test(bdr_then_hang),
        cmocka_unit_test(timeout_then_completes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
