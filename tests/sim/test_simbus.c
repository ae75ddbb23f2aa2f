/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated bus driven through the raw chip contract (pcam_hal ops) by
 * a scripted initiator, without the core: a disk's answers, selection
 * timeout, the timing model's figures and arbitration by SCSI priority.
 *
 * Expected INQUIRY / READ CAPACITY / sense bytes are worked out from SPC-3
 * and SBC-3; expected times from the timing model documented in
 * hal/sim/pcam_sim.h and hal/sim/README.md (defaults: 200 ns per async
 * byte, 4 us arbitration+selection, 4 us arbitration+reselection, 400 ns
 * per phase change, 800 ns bus-free settle).
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

#define BLOCKS 2048u

typedef struct fixture {
    pcam_sim *sim;
    simraw r;
    uint8_t *store[PCAM_SIM_MAX_IDS];
} fixture;

/* A disk at `id` with `blocks` 512-byte blocks, pattern-filled; timing all
 * zero but a fixed controller overhead, so service time is exactly that. */
static pcam_simlu *add_disk(fixture *f, uint8_t id, const pcam_sim_target_config *tc, uint64_t overhead)
{
    pcam_simlu *lu;
    uint32_t i;

    assert_int_equal(pcam_sim_add_target(f->sim, id, tc), 0);
    f->store[id] = malloc(BLOCKS * 512u);
    assert_non_null(f->store[id]);
    for (i = 0; i < BLOCKS * 512u; i++)
        f->store[id][i] = (uint8_t)(i * 7u + id);
    lu = pcam_sim_lu(f->sim, id, 0);
    assert_non_null(lu);
    pcam_simlu_init_disk(lu, f->store[id], BLOCKS, 512, "PCAM", "SIMDISK", "SN0001");
    memset(&lu->timing, 0, sizeof lu->timing);
    lu->timing.overhead_ns = overhead;
    return lu;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);

    assert_non_null(f);
    f->sim = pcam_sim_create(NULL);
    assert_non_null(f->sim);
    simraw_init(&f->r, f->sim);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    unsigned i;

    pcam_sim_destroy(f->sim);
    for (i = 0; i < PCAM_SIM_MAX_IDS; i++)
        free(f->store[i]);
    free(f);
    return 0;
}

static void no_ua_config(pcam_sim_target_config *tc)
{
    pcam_sim_target_config_defaults(tc);
    tc->ua_power_on = false;
}

/* ---- the disk's answers ---- */

static void inquiry_answers_disk_identity(void **state)
{
    fixture *f = *state;
    static const uint8_t cdb[6] = {0x12, 0, 0, 0, 36, 0};
    uint8_t buf[64];
    simraw_cmd c;

    add_disk(f, 0, NULL, 1000);
    memset(buf, 0xEE, sizeof buf);
    assert_int_equal(simraw_simple(&f->r, 0, cdb, 6, buf, sizeof buf, &c), 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.ptr, 36);
    /* SPC-3 6.4.2: type 0 (disk), version 5, format 2, additional length 31,
     * byte 7 WBus16 (0x20) | Sync (0x10) | CmdQue (0x02). */
    assert_int_equal(buf[0], 0x00);
    assert_int_equal(buf[2], 0x05);
    assert_int_equal(buf[3], 0x02);
    assert_int_equal(buf[4], 31);
    assert_int_equal(buf[7], 0x32);
    assert_memory_equal(buf + 8, "PCAM    SIMDISK         ", 24);
    assert_int_equal(buf[36], 0xEE);
}

static void inquiry_of_absent_lun_says_qualifier_3(void **state)
{
    fixture *f = *state;
    static const uint8_t cdb[6] = {0x12, 0, 0, 0, 36, 0};
    uint8_t buf[36];
    simraw_cmd c;

    add_disk(f, 0, NULL, 1000);
    memset(&c, 0, sizeof c);
    c.target = 0;
    c.lun = 3;
    c.cdb = cdb;
    c.cdb_len = 6;
    c.buf = buf;
    c.len = sizeof buf;
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 0);
    /* Peripheral qualifier 3 (no LU), device type 1Fh. */
    assert_int_equal(buf[0], 0x7F);
    /* Any other command to it: ILLEGAL REQUEST, LOGICAL UNIT NOT SUPPORTED. */
    {
        static const uint8_t tur[6] = {0};
        static const uint8_t rs[6] = {0x03, 0, 0, 0, 18, 0};
        uint8_t sense[18];

        c.cdb = tur;
        c.buf = NULL;
        c.len = 0;
        c.done = false;
        assert_int_equal(simraw_run(&f->r, &c), 0);
        assert_int_equal(c.status, 2);
        c.cdb = rs;
        c.buf = sense;
        c.len = sizeof sense;
        c.done = false;
        assert_int_equal(simraw_run(&f->r, &c), 0);
        assert_int_equal(sense[2] & 0x0F, 0x05);
        assert_int_equal(sense[12], 0x25);
    }
}

static void power_on_unit_attention_then_good(void **state)
{
    fixture *f = *state;
    static const uint8_t tur[6] = {0};
    static const uint8_t rs[6] = {0x03, 0, 0, 0, 18, 0};
    uint8_t sense[18];
    simraw_cmd c;

    add_disk(f, 0, NULL, 1000);
    assert_int_equal(simraw_simple(&f->r, 0, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 2); /* CHECK CONDITION */
    /* The UA was reported with the status; the sense waits for REQUEST SENSE. */
    assert_int_equal(simraw_simple(&f->r, 0, rs, 6, sense, sizeof sense, &c), 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(sense[0], 0x70);
    assert_int_equal(sense[2] & 0x0F, 0x06); /* UNIT ATTENTION */
    assert_int_equal(sense[12], 0x29);       /* POWER ON, RESET, OR BUS DEVICE RESET OCCURRED */
    assert_int_equal(sense[13], 0x00);
    assert_int_equal(simraw_simple(&f->r, 0, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0);
}

static void power_on_unit_attention_can_be_off(void **state)
{
    fixture *f = *state;
    static const uint8_t tur[6] = {0};
    pcam_sim_target_config tc;
    simraw_cmd c;

    no_ua_config(&tc);
    add_disk(f, 0, &tc, 1000);
    assert_int_equal(simraw_simple(&f->r, 0, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0);
}

static void read_capacity_reports_size(void **state)
{
    fixture *f = *state;
    static const uint8_t cdb[10] = {0x25};
    static const uint8_t want[8] = {0x00, 0x00, 0x07, 0xFF, 0x00, 0x00, 0x02, 0x00};
    pcam_sim_target_config tc;
    uint8_t buf[8];
    simraw_cmd c;

    no_ua_config(&tc);
    add_disk(f, 0, &tc, 1000);
    assert_int_equal(simraw_simple(&f->r, 0, cdb, 10, buf, sizeof buf, &c), 0);
    assert_int_equal(c.status, 0);
    /* SBC-3: last LBA 2047 = 0x7FF, block length 512 = 0x200. */
    assert_memory_equal(buf, want, 8);
}

static void write_then_read_back(void **state)
{
    fixture *f = *state;
    uint8_t wcdb[10] = {0x2A, 0, 0, 0, 0, 100, 0, 0, 8, 0};
    uint8_t rcdb[10] = {0x28, 0, 0, 0, 0, 100, 0, 0, 8, 0};
    uint8_t out[4096], in[4096];
    pcam_sim_target_config tc;
    simraw_cmd c;
    unsigned i;

    no_ua_config(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    add_disk(f, 1, &tc, 500000);
    for (i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i ^ 0x5A);
    memset(&c, 0, sizeof c);
    c.target = 1;
    c.disc = true;
    c.cdb = wcdb;
    c.cdb_len = 10;
    c.buf = out;
    c.len = sizeof out;
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.ptr, 4096);
    assert_int_equal(c.disconnects, 1);
    assert_int_equal(c.reselections, 1);
    /* DATA OUT, then SAVE DATA POINTER + DISCONNECT, then on reselection
     * STATUS and COMMAND COMPLETE. */
    assert_int_equal(c.nmsgs, 3);
    assert_int_equal(c.msgs[0], PCAM_MSG_SAVE_DATA_POINTER);
    assert_int_equal(c.msgs[1], PCAM_MSG_DISCONNECT);
    assert_int_equal(c.msgs[2], PCAM_MSG_COMMAND_COMPLETE);
    assert_memory_equal(f->store[1] + 100 * 512, out, sizeof out);

    memset(in, 0, sizeof in);
    memset(&c, 0, sizeof c);
    c.target = 1;
    c.disc = true;
    c.cdb = rcdb;
    c.cdb_len = 10;
    c.buf = in;
    c.len = sizeof in;
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 0);
    assert_memory_equal(in, out, sizeof in);
    /* A read disconnects before any data: no SAVE DATA POINTER. */
    assert_int_equal(c.msgs[0], PCAM_MSG_DISCONNECT);
    assert_int_equal(c.msgs[1], PCAM_MSG_COMMAND_COMPLETE);
}

static void read_past_the_end_is_illegal_request(void **state)
{
    fixture *f = *state;
    uint8_t rcdb[10] = {0x28, 0, 0, 0, 0x07, 0xFF, 0, 0, 2, 0};
    static const uint8_t rs[6] = {0x03, 0, 0, 0, 18, 0};
    pcam_sim_target_config tc;
    uint8_t buf[1024], sense[18];
    simraw_cmd c;

    no_ua_config(&tc);
    add_disk(f, 0, &tc, 1000);
    assert_int_equal(simraw_simple(&f->r, 0, rcdb, 10, buf, sizeof buf, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(c.ptr, 0);
    assert_int_equal(simraw_simple(&f->r, 0, rs, 6, sense, sizeof sense, &c), 0);
    assert_int_equal(sense[2] & 0x0F, 0x05); /* ILLEGAL REQUEST */
    assert_int_equal(sense[12], 0x21);       /* LBA OUT OF RANGE */
}

/* IGNORE WIDE RESIDUE (SPI-3 4.14.x): INQUIRY for 5 bytes over a wide
 * agreement moves 3 words; the chip counts 6, the target says ignore 1. */
static void odd_wide_data_in_ends_with_ignore_wide_residue(void **state)
{
    fixture *f = *state;
    static const uint8_t msg[5] = {0x80, 0x01, 0x02, 0x03, 0x01};
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 5, 0};
    pcam_hal_xfer_params wide = {0, 0, 1, 0};
    pcam_sim_target_config tc;
    uint8_t buf[8];
    int i;

    no_ua_config(&tc);
    tc.wide_residue = true;
    add_disk(f, 6, &tc, 1000);
    assert_int_equal(simraw_select(&f->r, 6, true, msg, 5, inq, 6), PCAM_HAL_EV_SELECT_DONE);
    for (i = 0; i < 4; i++) {
        assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
        assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    }
    assert_int_equal(f->r.hal.ops->set_xfer(f->r.hal.sc, 6, &wide), 0);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_COMMAND, (void *)inq, 0, 6), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    memset(buf, 0xEE, sizeof buf);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, sizeof buf), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.count, 6);
    assert_int_equal(buf[0], 0x00);
    assert_int_equal(buf[4], 31);
    assert_int_equal(buf[5], 0x00); /* the pad byte */
    assert_int_equal(buf[6], 0xEE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_IGNORE_WIDE_RESIDUE);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, 1);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);

    /* Off (the default): exact count, straight to STATUS. */
    pcam_sim_target_cfg(f->sim, 6)->wide_residue = false;
    {
        uint8_t st;
        static const uint8_t ident = 0x80;

        assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
        assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
        assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
        assert_int_equal(simraw_select(&f->r, 6, true, &ident, 1, inq, 6), PCAM_HAL_EV_SELECT_DONE);
        assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, sizeof buf), PCAM_HAL_EV_XFER_DONE);
        assert_int_equal(f->r.ev.count, 5);
        assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    }
}

/* ---- selection timeout ---- */

static void absent_id_times_out_after_the_configured_time(void **state)
{
    fixture *f = *state;
    static const uint8_t tur[6] = {0};
    uint8_t id = 0x80;

    /* Arbitration at 0 + 800 ns bus-free settle; nobody answers for 250 ms. */
    assert_int_equal(simraw_select(&f->r, 3, true, &id, 1, tur, 6), PCAM_HAL_EV_SEL_TIMEOUT);
    assert_int_equal(f->r.ev.target, 3);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_BUS_FREE);
    assert_int_equal(pcam_sim_now(f->sim), 800u + 250000000u);
}

static void select_of_own_id_is_refused(void **state)
{
    fixture *f = *state;
    pcam_hal_select sel;
    memset(&sel, 0, sizeof sel); /* may_accept and any field added later: off */

    memset(&sel, 0, sizeof sel);
    sel.target = 7;
    assert_true(f->r.hal.ops->select(f->r.hal.sc, &sel) < 0);
    assert_true(pcam_sim_event_pending(f->sim));
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_GROSS_ERROR);
    sel.target = 16;
    assert_true(f->r.hal.ops->select(f->r.hal.sc, &sel) < 0);
    assert_true(f->r.hal.ops->select(f->r.hal.sc, NULL) < 0);
}

/* ---- timing model ---- */

/*
 * SDTR to Fast-10 (factor 0x19 = 100 ns, offset 15) with TEST UNIT READY,
 * then a 4 KiB READ(10) with no disconnect privilege, event by event.
 * The LU's service time is its 1 ms overhead (all other mechanism times 0).
 */
static void timing_of_sdtr_and_fast10_read(void **state)
{
    fixture *f = *state;
    static const uint8_t msg[6] = {0x80, 0x01, 0x03, 0x01, 0x19, 0x0F};
    static const uint8_t reply[5] = {0x01, 0x03, 0x01, 0x19, 0x0F};
    static const uint8_t tur[6] = {0};
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0};
    static const uint8_t ident = 0x80;
    pcam_hal_xfer_params xp = {0x19, 15, 0, 0}, agreed;
    pcam_sim_target_config tc;
    uint8_t buf[4096], st = 0xFF;
    unsigned i;

    no_ua_config(&tc);
    tc.min_period = 0x19;
    tc.max_offset = 15;
    tc.wide = false;
    tc.disconnect = PCAM_SIM_DISC_NEVER;
    add_disk(f, 2, &tc, 1000000);

    /* 800 arbitration, +4000 selected, +400 MESSAGE OUT, 6 x 200 bytes,
     * +400 MESSAGE IN with the SDTR answer. */
    assert_int_equal(simraw_select(&f->r, 2, true, msg, 6, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.count, 6);
    assert_int_equal(f->r.ev.count2, 0);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(pcam_sim_now(f->sim), 6800);
    /* Each message byte: 100 ns to latch, 100 ns after ACK is released. */
    for (i = 0; i < 5; i++) {
        assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
        assert_int_equal(f->r.ev.byte, reply[i]);
        assert_int_equal(pcam_sim_now(f->sim), 6900 + 200 * i);
        if (i < 4) {
            assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
            assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
            assert_int_equal(pcam_sim_now(f->sim), 7000 + 200 * i);
        }
    }
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_COMMAND);
    assert_int_equal(pcam_sim_now(f->sim), 7800 + 400);
    pcam_sim_target_agreement(f->sim, 2, &agreed);
    assert_int_equal(agreed.period, 0x19);
    assert_int_equal(agreed.offset, 15);
    assert_int_equal(f->r.hal.ops->set_xfer(f->r.hal.sc, 2, &xp), 0);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_COMMAND, (void *)tur, 0, 6), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.count, 6);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    assert_int_equal(pcam_sim_now(f->sim), 8200 + 1200 + 400);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(st, 0);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(pcam_sim_now(f->sim), 9800 + 200 + 400);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, 0x00);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_now(f->sim), 10400 + 200 + 400);

    /* READ: arbitration 11000 + 800, +4000, +400, 1 byte, +400, 10 CDB
     * bytes = 18800; the mechanism takes 1 ms while the target holds the
     * bus; +400 DATA IN at 1,019,200. */
    assert_int_equal(simraw_select(&f->r, 2, true, &ident, 1, rd, 10), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.count, 1);
    assert_int_equal(f->r.ev.count2, 10);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(pcam_sim_now(f->sim), 1019200);
    /* 4096 bytes at 100 ns each = 409,600 ns, then +400 to STATUS. */
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, sizeof buf), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(f->r.ev.count, 4096);
    assert_false(f->r.ev.parity_error);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_STATUS);
    assert_int_equal(pcam_sim_now(f->sim), 1019200 + 409600 + 400);
    assert_memory_equal(buf, f->store[2], sizeof buf);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_now(f->sim), 1429200 + 200 + 400 + 200 + 400);
}

/* Figures for the other clockings, through the bus statistics:
 * wide Fast-20 (0x0C = 50 ns, 2 bytes per transfer): 4096 B = 2048 x 50 ns;
 * asynchronous narrow: 4096 x 200 ns; wide DT at 0x09 (12.5 ns, 2 transfers
 * of 2 bytes per period): 4096 B = 1024 periods = 12,800 ns. */
static uint64_t data_ns_for(fixture *f, const pcam_hal_xfer_params *p, const uint8_t *nego, uint8_t nego_len,
                            uint8_t ppr_opts)
{
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0};
    pcam_sim_bus_stats before, after;
    pcam_sim_target_config tc;
    pcam_hal_xfer_params agreed;
    uint8_t buf[4096];
    simraw_cmd c;

    no_ua_config(&tc);
    tc.min_period = 0x09;
    tc.max_offset = 31;
    tc.ppr_options = ppr_opts;
    tc.ppr = PCAM_SIM_NEGO_ACCEPT;
    tc.disconnect = PCAM_SIM_DISC_NEVER;
    add_disk(f, 4, &tc, 1000);
    if (nego_len != 0) {
        static const uint8_t tur[6] = {0};

        memset(&c, 0, sizeof c);
        c.target = 4;
        c.extra_msg = nego;
        c.extra_len = nego_len;
        c.cdb = tur;
        c.cdb_len = 6;
        assert_int_equal(simraw_run(&f->r, &c), 0);
    }
    pcam_sim_target_agreement(f->sim, 4, &agreed);
    assert_int_equal(agreed.period, p->period);
    assert_int_equal(agreed.offset, p->offset);
    assert_int_equal(agreed.width, p->width);
    assert_int_equal(agreed.ppr_options, p->ppr_options);
    pcam_sim_bus_stats_get(f->sim, &before);
    assert_int_equal(simraw_simple(&f->r, 4, rd, 10, buf, sizeof buf, &c), 0);
    assert_int_equal(c.status, 0);
    assert_memory_equal(buf, f->store[4], sizeof buf);
    pcam_sim_bus_stats_get(f->sim, &after);
    assert_int_equal(after.data_bytes - before.data_bytes, 4096);
    return after.data_ns - before.data_ns;
}

static void timing_async_narrow(void **state)
{
    pcam_hal_xfer_params p = {0, 0, 0, 0};

    assert_int_equal(data_ns_for(*state, &p, NULL, 0, 0), 4096u * 200u);
}

/* WDTR first (it resets any synchronous agreement), then SDTR, in two commands. */
static void timing_wide_fast20(void **state)
{
    static const uint8_t wdtr[4] = {0x01, 0x02, 0x03, 0x01};
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x0C, 0x10};
    static const uint8_t tur[6] = {0};
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0};
    fixture *f = *state;
    pcam_hal_xfer_params want = {0x0C, 16, 1, 0}, agreed, chip;
    pcam_sim_bus_stats before, after;
    pcam_sim_target_config tc;
    uint8_t buf[4096];
    simraw_cmd c;

    no_ua_config(&tc);
    tc.disconnect = PCAM_SIM_DISC_NEVER;
    add_disk(f, 5, &tc, 1000);
    memset(&c, 0, sizeof c);
    c.target = 5;
    c.extra_msg = wdtr;
    c.extra_len = 4;
    c.cdb = tur;
    c.cdb_len = 6;
    assert_int_equal(simraw_run(&f->r, &c), 0);
    c.extra_msg = sdtr;
    c.extra_len = 5;
    c.done = false;
    c.nmsgs = 0;
    assert_int_equal(simraw_run(&f->r, &c), 0);
    pcam_sim_target_agreement(f->sim, 5, &agreed);
    assert_memory_equal(&agreed, &want, sizeof want);
    pcam_sim_chip_xfer(f->sim, 5, &chip);
    assert_memory_equal(&chip, &want, sizeof want);
    pcam_sim_bus_stats_get(f->sim, &before);
    assert_int_equal(simraw_simple(&f->r, 5, rd, 10, buf, sizeof buf, &c), 0);
    pcam_sim_bus_stats_get(f->sim, &after);
    assert_int_equal(after.data_ns - before.data_ns, 2048u * 50u);
    assert_memory_equal(buf, f->store[5], sizeof buf);
}

static void timing_wide_dt_fast80(void **state)
{
    static const uint8_t ppr[8] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x02};
    pcam_hal_xfer_params p = {0x09, 31, 1, PCAM_PPR_DT_REQ};

    assert_int_equal(data_ns_for(*state, &p, ppr, 8, PCAM_PPR_DT_REQ), 12800u);
}

/* Disconnect and reselection timing: READ with the ALWAYS policy. */
static void timing_of_disconnect_and_reselection(void **state)
{
    fixture *f = *state;
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    static const uint8_t ident = 0xC0; /* IDENTIFY with disconnect privilege, LUN 0 */
    pcam_sim_target_config tc;
    uint8_t buf[512];

    no_ua_config(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    add_disk(f, 3, &tc, 2000000);
    /* 800 + 4000 + 400 + 200 + 400 + 2000 = 7800: CDB in, mechanism starts;
     * DISCONNECT requested at 8200. */
    assert_int_equal(simraw_select(&f->r, 3, true, &ident, 1, rd, 10), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(pcam_sim_now(f->sim), 8200);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_DISCONNECT);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_now(f->sim), 8200 + 200 + 400);
    /* Ready at 7800 + 2 ms; the bus has been free long enough: arbitration
     * at once, RESELECTED 4 us later with IDENTIFY of LUN 0. */
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_RESELECTED);
    assert_int_equal(f->r.ev.target, 3);
    assert_int_equal(f->r.ev.byte, 0x80);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(pcam_sim_now(f->sim), 2007800 + 4000);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(pcam_sim_now(f->sim), 2011800 + 100 + 400);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, sizeof buf), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(pcam_sim_now(f->sim), 2012300 + 512 * 200 + 400);
    assert_memory_equal(buf, f->store[3], sizeof buf);
}

/* ---- arbitration ---- */

static int arbitration_winners(pcam_sim *sim, uint8_t *won, int max)
{
    size_t i, n = pcam_sim_trace_count(sim);
    int k = 0;

    for (i = 0; i < n && k < max; i++) {
        pcam_sim_trace_entry e;
        assert_true(pcam_sim_trace_get(sim, i, &e));
        if (e.kind == PCAM_SIM_TR_ARBITRATION)
            won[k++] = e.target;
    }
    return k;
}

/*
 * Targets 0 and 3 both finish their mechanism while target 5 holds the bus
 * for a long command; when the bus goes free both arbitrate and 3 wins, then
 * 0. A select issued at the moment the bus goes free beats both (ID 7).
 */
static void higher_id_reselects_first_and_initiator_beats_both(void **state)
{
    fixture *f = *state;
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    static const uint8_t tur[6] = {0};
    pcam_sim_target_config tc, hog;
    uint8_t b0[512], b3[512], b5[512], won[16];
    simraw_cmd c0, c3, c5, c5b;
    pcam_sim_trace_entry e;
    int n;

    no_ua_config(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    no_ua_config(&hog);
    hog.disconnect = PCAM_SIM_DISC_NEVER;
    add_disk(f, 0, &tc, 1000000);
    add_disk(f, 3, &tc, 1000000);
    add_disk(f, 5, &hog, 5000000);
    memset(&c0, 0, sizeof c0);
    c0.target = 0;
    c0.disc = true;
    c0.cdb = rd;
    c0.cdb_len = 10;
    c0.buf = b0;
    c0.len = sizeof b0;
    c3 = c0;
    c3.target = 3;
    c3.buf = b3;
    c5 = c0;
    c5.target = 5;
    c5.buf = b5;
    assert_int_equal(simraw_start(&f->r, &c0), 0);
    assert_int_equal(simraw_start(&f->r, &c3), 0);
    assert_true(c0.disconnected && c3.disconnected);
    pcam_sim_trace_clear(f->sim);
    /* Target 5 holds the bus 5 ms; 0 and 3 get ready meanwhile. */
    assert_int_equal(simraw_start(&f->r, &c5), 0);
    assert_true(c5.done);
    /* Select again right at bus free: the initiator (7) wins over 3 and 0. */
    memset(&c5b, 0, sizeof c5b);
    c5b.target = 5;
    c5b.cdb = tur;
    c5b.cdb_len = 6;
    assert_int_equal(simraw_start(&f->r, &c5b), 0);
    assert_true(c5b.done);
    assert_int_equal(simraw_drain(&f->r), 2);
    assert_true(c0.done && c3.done);
    assert_true(c3.done_ns < c0.done_ns);
    n = arbitration_winners(f->sim, won, 16);
    assert_int_equal(n, 4);
    assert_int_equal(won[0], 7);
    assert_int_equal(won[1], 7);
    assert_int_equal(won[2], 3);
    assert_int_equal(won[3], 0);
    /* The second arbitration had all three contenders. */
    {
        size_t i, k = 0;
        for (i = 0; i < pcam_sim_trace_count(f->sim); i++) {
            assert_true(pcam_sim_trace_get(f->sim, i, &e));
            if (e.kind == PCAM_SIM_TR_ARBITRATION && ++k == 2)
                assert_int_equal(e.value, (1u << 7) | (1u << 3) | (1u << 0));
        }
    }
}

/* On a wide bus ID 8..15 rank below 0: target 0 wins over target 8. */
static void id_8_ranks_below_id_0(void **state)
{
    fixture *f = *state;
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    pcam_sim_target_config tc, hog;
    uint8_t b0[512], b8[512], b5[512], won[8];
    simraw_cmd c0, c8, c5;
    int n;

    no_ua_config(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    no_ua_config(&hog);
    hog.disconnect = PCAM_SIM_DISC_NEVER;
    add_disk(f, 8, &tc, 1000000);
    add_disk(f, 0, &tc, 1000000);
    add_disk(f, 5, &hog, 5000000);
    memset(&c8, 0, sizeof c8);
    c8.target = 8;
    c8.disc = true;
    c8.cdb = rd;
    c8.cdb_len = 10;
    c8.buf = b8;
    c8.len = 512;
    c0 = c8;
    c0.target = 0;
    c0.buf = b0;
    c5 = c8;
    c5.target = 5;
    c5.buf = b5;
    assert_int_equal(simraw_start(&f->r, &c8), 0);
    assert_int_equal(simraw_start(&f->r, &c0), 0);
    pcam_sim_trace_clear(f->sim);
    assert_int_equal(simraw_start(&f->r, &c5), 0);
    assert_int_equal(simraw_drain(&f->r), 2);
    n = arbitration_winners(f->sim, won, 8);
    assert_int_equal(n, 3);
    assert_int_equal(won[1], 0);
    assert_int_equal(won[2], 8);
    assert_memory_equal(b8, f->store[8], 512);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(inquiry_answers_disk_identity, setup, teardown),
        cmocka_unit_test_setup_teardown(inquiry_of_absent_lun_says_qualifier_3, setup, teardown),
        cmocka_unit_test_setup_teardown(power_on_unit_attention_then_good, setup, teardown),
        cmocka_unit_test_setup_teardown(power_on_unit_attention_can_be_off, setup, teardown),
        cmocka_unit_test_setup_teardown(read_capacity_reports_size, setup, teardown),
        cmocka_unit_test_setup_teardown(write_then_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(read_past_the_end_is_illegal_request, setup, teardown),
        cmocka_unit_test_setup_teardown(odd_wide_data_in_ends_with_ignore_wide_residue, setup, teardown),
        cmocka_unit_test_setup_teardown(absent_id_times_out_after_the_configured_time, setup, teardown),
        cmocka_unit_test_setup_teardown(select_of_own_id_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(timing_of_sdtr_and_fast10_read, setup, teardown),
        cmocka_unit_test_setup_teardown(timing_async_narrow, setup, teardown),
        cmocka_unit_test_setup_teardown(timing_wide_fast20, setup, teardown),
        cmocka_unit_test_setup_teardown(timing_wide_dt_fast80, setup, teardown),
        cmocka_unit_test_setup_teardown(timing_of_disconnect_and_reselection, setup, teardown),
        cmocka_unit_test_setup_teardown(higher_id_reselects_first_and_initiator_beats_both, setup, teardown),
        cmocka_unit_test_setup_teardown(id_8_ranks_below_id_0, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
