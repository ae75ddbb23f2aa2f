/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture both recovery scenario files share: a bus of scanned disks
 * with a known media pattern, helpers to run CCBs, read the core's event
 * ring and counters, and the target's own records (statistics, the bus
 * trace). Included by the recovery scenario files (test_core_recovery*.c)
 * and by test_core_overrun.c and test_core_reliability.c.
 */
#ifndef PCAM_RECOV_FIXTURE_H
#define PCAM_RECOV_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simrig.h"


#define DISK_BLOCKS 1024u
#define MAX_EV 512

typedef struct fx {
    simrig r;
    pcam_event ev[MAX_EV]; /* events read since fx_mark() */
    size_t nev;
    unsigned ua_async;     /* PCAM_AC_UNIT_ATTENTION callbacks */
    unsigned bdr_async;    /* PCAM_AC_SENT_BDR callbacks */
    unsigned reset_async;  /* PCAM_AC_BUS_RESET callbacks */
} fx;

/* The byte simrig_add_disk put at `off` of target t, LUN l. */
static uint8_t media_byte(uint8_t t, uint8_t l, size_t off)
{
    return (uint8_t)(off * 7u + t * 13u + l);
}

static bool media_ok(uint8_t t, uint8_t l, uint32_t lba, const uint8_t *buf, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (buf[i] != media_byte(t, l, (size_t)lba * 512u + i))
            return false;
    return true;
}

static void on_async(void *arg, uint32_t code, uint8_t target, uint8_t lun)
{
    fx *f = arg;
    (void)target;
    (void)lun;
    if (code == PCAM_AC_UNIT_ATTENTION)
        f->ua_async++;
    if (code == PCAM_AC_SENT_BDR)
        f->bdr_async++;
    if (code == PCAM_AC_BUS_RESET)
        f->reset_async++;
}

static void read10(rig_ccb *rc, uint8_t t, uint32_t lba, uint16_t blocks, uint8_t *buf,
                   uint8_t *sense, uint8_t sense_len)
{
    uint8_t cdb[16];
    int n = pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    assert_int_equal(n, 10);
    memset(rc, 0, sizeof *rc);
    memset(buf, 0xEE, (size_t)blocks * 512u);
    rig_ccb_io(rc, t, 0, cdb, 10, PCAM_DIR_IN, buf, (uint32_t)blocks * 512u);
    rc->ccb.flags = PCAM_CCB_TAGGED;
    rc->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    rc->ccb.u.io.sense = sense;
    rc->ccb.u.io.sense_len = sense_len;
}

static bool all_done(rig_ccb *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i]->done_count == 0)
            return false;
    return true;
}

/* Step until every CCB in v completed, `limit` of simulated time passed or
 * nothing is left to happen. */
static bool run_all(fx *f, rig_ccb *const *v, size_t n, uint64_t limit)
{
    uint64_t end = pcam_sim_now(f->r.sim) + limit;
    while (!all_done(v, n)) {
        if (pcam_sim_now(f->r.sim) > end || !simrig_step(&f->r))
            break;
    }
    return all_done(v, n);
}

/* Let `ns` of simulated time pass (or until nothing is pending), so a
 * second completion or a command that should not run would show. */
static void idle(fx *f, uint64_t ns)
{
    uint64_t end = pcam_sim_now(f->r.sim) + ns;
    while (pcam_sim_now(f->r.sim) < end && simrig_step(&f->r))
        ;
}

static uint32_t sync1(fx *f, rig_ccb *rc)
{
    rig_ccb *v[1] = {rc};
    rig_submit(&f->r, rc);
    assert_true(run_all(f, v, 1, RIG_S(60)));
    return rc->ccb.status;
}

static void fx_read_events(fx *f)
{
    f->nev += pcam_bus_read_events(&f->r.bus, f->ev + f->nev, MAX_EV - f->nev);
}

/* Forget the events and the bus trace so far. */
static void fx_mark(fx *f)
{
    pcam_event junk[64];
    while (pcam_bus_read_events(&f->r.bus, junk, 64) != 0)
        ;
    f->nev = 0;
    pcam_sim_trace_clear(f->r.sim);
}

static unsigned ev_count(fx *f, uint16_t code)
{
    unsigned n = 0;
    fx_read_events(f);
    for (size_t i = 0; i < f->nev; i++)
        n += f->ev[i].code == code;
    return n;
}

static const pcam_event *ev_first(fx *f, uint16_t code)
{
    fx_read_events(f);
    for (size_t i = 0; i < f->nev; i++)
        if (f->ev[i].code == code)
            return &f->ev[i];
    return NULL;
}

static pcam_counters ctr(fx *f, uint8_t t)
{
    pcam_counters c;
    assert_int_equal(pcam_bus_get_counters(&f->r.bus, t, &c), PCAM_OK);
    return c;
}

static pcam_sim_target_stats tstats(fx *f, uint8_t t)
{
    pcam_sim_target_stats s;
    pcam_sim_target_stats_get(f->r.sim, t, &s);
    return s;
}

/* Entries of `kind` for target `t` with byte `byte` in the bus trace
 * (which must have dropped none). */
static unsigned trace_count(fx *f, pcam_sim_trace_kind kind, uint8_t t, uint8_t byte)
{
    unsigned n = 0;
    pcam_sim_trace_entry e;
    assert_int_equal(pcam_sim_trace_dropped(f->r.sim), 0);
    for (size_t i = 0; pcam_sim_trace_get(f->r.sim, i, &e); i++)
        n += e.kind == kind && e.target == t && e.byte == byte;
    return n;
}
/* CDBs with opcode `op` the target `t` received. */
static unsigned cdbs_seen(fx *f, uint8_t t, uint8_t op)
{
    return trace_count(f, PCAM_SIM_TR_COMMAND, t, op);
}
/* Message-out bytes `msg` sent to target t (inline: not every file that
 * includes this asks). */
static inline unsigned msgs_out(fx *f, uint8_t t, uint8_t msg)
{
    return trace_count(f, PCAM_SIM_TR_MSG_OUT, t, msg);
}


/*
 * A bus with disks (1024 blocks, LUN 0) at IDs 0..ndisks-1, scanned, then
 * one tagged READ per disk so negotiation is done and the tag cursors have
 * moved off 0. No power-on UNIT ATTENTION: the cases raise their own.
 */
static fx *fx_new(bool polled, const pcam_bus_config *bc, unsigned ndisks, pcam_sim_disc disc)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.seed = 0x7EC0;
    sc.trace_entries = 1u << 16; /* parity injection traces every byte */
    assert_int_equal(simrig_init(&f->r, &sc, bc, polled), 0);
    /* Every step natively; under Valgrind (PCAM_UNDER_MEMCHECK) every 16th,
     * which keeps the memcheck twin near 10 s with the same cases. */
    f->r.check_every = getenv("PCAM_UNDER_MEMCHECK") != NULL ? 16 : 1;
    if (getenv("PCAM_RECOV_LOG") != NULL)
        pcam_sim_set_log(f->r.sim, stderr);
    for (uint8_t t = 0; t < ndisks; t++) {
        pcam_sim_target_config tc;
        pcam_sim_target_config_defaults(&tc);
        tc.ua_power_on = false;
        tc.disconnect = disc;
        assert_non_null(simrig_add_disk(&f->r, t, 0, DISK_BLOCKS, &tc));
    }
    rig_ccb c;
    memset(&c, 0, sizeof c);
    c.ccb.func = PCAM_FN_SET_ASYNC;
    c.ccb.u.async.events = PCAM_AC_UNIT_ATTENTION | PCAM_AC_SENT_BDR | PCAM_AC_BUS_RESET;
    c.ccb.u.async.cb = on_async;
    c.ccb.u.async.arg = f;
    assert_int_equal(sync1(f, &c), PCAM_REQ_CMP);
    memset(&c, 0, sizeof c);
    c.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(sync1(f, &c), PCAM_REQ_CMP);
    for (uint8_t t = 0; t < ndisks; t++) {
        uint8_t buf[512];
        read10(&c, t, 1, 1, buf, NULL, 0);
        assert_int_equal(sync1(f, &c), PCAM_REQ_CMP);
        assert_true(media_ok(t, 0, 1, buf, 512));
    }
    fx_mark(f);
    return f;
}

static void fx_free(fx *f)
{
    if (f->r.violation != NULL)
        fprintf(stderr, "core invariant broken: %s\n", f->r.violation);
    assert_null(f->r.violation);
    assert_null(pcam_bus_check_invariants(&f->r.bus));
    simrig_fini(&f->r);
    free(f);
}

#define BOTH_MODES(name)                                                                           \
    static void name##_interrupt(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        name(false);                                                                               \
    }                                                                                              \
    static void name##_polled(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        name(true);                                                                                \
    }
#define BOTH_TESTS(name) cmocka_unit_test(name##_interrupt), cmocka_unit_test(name##_polled)

#endif /* PCAM_RECOV_FIXTURE_H */
