/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core's shortcuts around a command-level back-end (core/xpt/xpt.c,
 * core/engine/decide.c), against a fake adapter whose room and reports the
 * test controls, with the clock in the test's hands:
 *  - the deadline pcam_bus_next_deadline() answers is worked out as each
 *    entry point returns; a pcam_bus_hal_done() made outside any entry
 *    point (which the contract does not ask for, but a harness or an
 *    adapter's own interrupt handler may do) must not leave it stale;
 *  - an interrupt or polling step with nothing reported skips that work,
 *    but not after such a report: its completion and room are used then;
 *  - after a start refused for want of room, the core starts commands only
 *    as reports make room, instead of being refused after every report;
 *  - that count is probed again, so room that grew without a report (the
 *    refusal was a passing shortage) is used;
 *  - a device reset reported as done frees what the adapter held for it.
 * Expectations: a BUSY status (SAM 08h) is retried after busy_delay_ms
 * (pcam.h); the other numbers are this file's own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/common/common.h"

#define NLUNS 16
#define MAXHELD 16
#define NCCB 24

typedef struct fake {
    pcam_bus *bus;
    uint64_t now;
    unsigned cap;               /* commands it has room for */
    pcam_hal_cmd held[MAXHELD]; /* handle NULL: free */
    unsigned nheld, max_held;
    unsigned started, refused, resets;
    unsigned report;            /* poll: report this many held commands GOOD */
} fake;

static fake fk;

typedef struct tccb {
    pcam_ccb ccb;
    uint8_t buf[512];
    unsigned done;
} tccb;

static uint64_t f_now(void *ctx)
{
    (void)ctx;
    return fk.now;
}

static void f_caps(void *sc, pcam_hal_caps *c)
{
    (void)sc;
    memset(c, 0, sizeof *c);
    c->name = "fake-adapter";
    c->profile = PCAM_HAL_COMMAND_LEVEL;
    c->flags = PCAM_HAL_CAP_TAGS;
    c->max_targets = 8;
    c->initiator_id = 7;
}

static int f_reset_chip(void *sc)
{
    (void)sc;
    memset(fk.held, 0, sizeof fk.held);
    fk.nheld = 0;
    return 0;
}

static int f_reset_bus(void *sc)
{
    (void)sc;
    return 0;
}

static int f_set_xfer(void *sc, uint8_t t, const pcam_hal_xfer_params *p)
{
    (void)sc;
    (void)t;
    (void)p;
    return 0;
}

static void report_one(unsigned i, uint8_t scsi_status)
{
    pcam_hal_cmd c = fk.held[i];
    pcam_hal_cmd_result r;
    memset(&r, 0, sizeof r);
    r.status = PCAM_REQ_CMP;
    r.scsi_status = scsi_status;
    memset(&fk.held[i], 0, sizeof fk.held[i]);
    fk.nheld--;
    assert_int_equal(pcam_bus_hal_done(fk.bus, c.handle, c.target, c.lun, &r), PCAM_OK);
}

/* Report the oldest-started held commands GOOD, from inside the core. */
static int f_poll(void *sc, pcam_hal_event *ev)
{
    (void)sc;
    (void)ev;
    for (unsigned i = 0; i < MAXHELD && fk.report > 0; i++) {
        if (fk.held[i].handle != NULL) {
            fk.report--;
            report_one(i, 0x00);
        }
    }
    return 0;
}

static void f_attach(void *sc, struct pcam_bus *b)
{
    (void)sc;
    fk.bus = b;
}

static int f_start(void *sc, const pcam_hal_cmd *c)
{
    (void)sc;
    if (fk.nheld >= fk.cap) {
        fk.refused++;
        return PCAM_ERR_NOSPACE;
    }
    for (unsigned i = 0; i < MAXHELD; i++) {
        if (fk.held[i].handle == NULL) {
            fk.held[i] = *c;
            fk.nheld++;
            fk.started++;
            if (fk.nheld > fk.max_held)
                fk.max_held = fk.nheld;
            return 0;
        }
    }
    fail_msg("more commands than the fake has slots");
    return PCAM_ERR_NOSPACE;
}

static int f_abort(void *sc, const void *handle)
{
    (void)sc;
    (void)handle;
    return 0;
}

static int f_reset_dev(void *sc, uint8_t t, uint8_t l, bool lun_reset)
{
    (void)sc;
    (void)t;
    (void)l;
    (void)lun_reset;
    fk.resets++;
    return 0;
}

static const pcam_hal_ops ops = {
    .get_caps = f_caps, .reset_chip = f_reset_chip, .reset_bus = f_reset_bus,
    .set_xfer = f_set_xfer, .poll = f_poll,
};
static const pcam_hal_cmd_ops cmd_ops = {
    .attach = f_attach, .start = f_start, .abort = f_abort, .reset_dev = f_reset_dev,
};

typedef struct rig {
    pcam_bus bus;
    pcam_lun luns[NLUNS];
    tccb c[NCCB];
    bool resubmit; /* a completed command goes in again at once */
    unsigned submitted, completed;
} rig;

static rig *g;

static void submit(tccb *t, uint8_t target);

static void on_done(pcam_ccb *ccb)
{
    tccb *t = (tccb *)ccb;
    t->done++;
    g->completed++;
    if (g->resubmit)
        submit(t, ccb->target);
}

static void submit(tccb *t, uint8_t target)
{
    pcam_ccb *c = &t->ccb;
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    c->target = target;
    c->flags = PCAM_CCB_TAGGED;
    c->done = on_done;
    c->u.io.tag_action = PCAM_TAG_SIMPLE;
    c->u.io.cdb[0] = 0x28; /* READ(10) of one block */
    c->u.io.cdb[8] = 1;
    c->u.io.cdb_len = 10;
    c->u.io.dir = PCAM_DIR_IN;
    c->u.io.data = t->buf;
    c->u.io.data_len = sizeof t->buf;
    c->u.io.retries = 4;
    g->submitted++;
    pcam_action(&g->bus, c);
}

static rig *rig_new(unsigned cap)
{
    pcam_bus_config cfg;
    pcam_platform plat;
    pcam_hal hal;
    memset(&fk, 0, sizeof fk);
    fk.now = PCAM_MS(1000);
    fk.cap = cap;
    g = calloc(1, sizeof *g);
    assert_non_null(g);
    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = 2;
    memset(&plat, 0, sizeof plat);
    plat.now_ns = f_now;
    memset(&hal, 0, sizeof hal);
    hal.ops = &ops;
    hal.sc = &fk;
    hal.cmd = &cmd_ops;
    assert_int_equal(pcam_bus_init(&g->bus, &cfg, &hal, &plat, g->luns, NLUNS), PCAM_OK);
    /* Present and tagged without a scan: the fake answers no INQUIRY. */
    for (unsigned i = 0; i < NLUNS; i++)
        pcam_dev_lun_flags(&g->luns[i], PCAM_LUNF_PRESENT | PCAM_LUNF_TAGGED, 0);
    return g;
}

/* Every CCB handed in came back exactly once, the last at shutdown. */
static void rig_free(rig *r)
{
    r->resubmit = false;
    pcam_bus_shutdown(&r->bus);
    assert_int_equal(r->completed, r->submitted);
    free(r);
    g = NULL;
}

/* One report of `n` GOOD completions from the adapter's interrupt. */
static void interrupt_reporting(rig *r, unsigned n)
{
    fk.report = n;
    pcam_bus_intr(&r->bus);
    assert_int_equal(fk.report, 0);
    assert_null(pcam_bus_check_invariants(&r->bus));
}

/* ------------------------------------------------------------------ */

static void deadline_after_outside_report(void **state)
{
    (void)state;
    rig *r = rig_new(8);
    submit(&r->c[0], 0);
    assert_int_equal(fk.nheld, 1);
    uint64_t before = pcam_bus_next_deadline(&r->bus);
    /* Nothing sooner than the command's own timeout is due. */
    assert_true(before >= fk.now + PCAM_MS(r->bus.cfg.default_timeout_ms));

    /* BUSY, reported from outside any entry point: the core holds the
     * command back busy_delay_ms, and the tick for that is sooner. */
    report_one(0, 0x08);
    uint64_t after = pcam_bus_next_deadline(&r->bus);
    assert_true(after <= fk.now + PCAM_MS(r->bus.cfg.busy_delay_ms));

    /* The tick at that deadline sends it again; GOOD ends it, once. */
    fk.now = after;
    pcam_bus_tick(&r->bus);
    assert_int_equal(fk.nheld, 1);
    assert_int_equal(fk.started, 2);
    interrupt_reporting(r, 1);
    assert_int_equal(r->c[0].done, 1);
    assert_int_equal(r->c[0].ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    rig_free(r);
}

/* An interrupt or a polling step in which the chip reports nothing and the
 * adapter calls nothing takes a short way out; a report made before it,
 * from outside the core, still gets its completion delivered and its room
 * used by that way out. */
static void outside_report_then_quiet_entry(bool polled)
{
    rig *r = rig_new(1);
    submit(&r->c[0], 0);
    submit(&r->c[1], 0);
    assert_int_equal(fk.nheld, 1);
    assert_int_equal(fk.refused, 1);
    assert_ptr_equal(fk.held[0].handle, &r->c[0].ccb);
    report_one(0, 0x00);
    assert_int_equal(r->c[0].done, 0); /* delivered when the core unwinds */
    if (polled)
        assert_true(pcam_bus_poll(&r->bus));
    else
        interrupt_reporting(r, 0);
    assert_int_equal(r->c[0].done, 1);
    assert_int_equal(fk.nheld, 1);
    assert_ptr_equal(fk.held[0].handle, &r->c[1].ccb);
    /* Nothing more happens: the short way, and nothing to say. */
    if (polled)
        assert_false(pcam_bus_poll(&r->bus));
    else
        interrupt_reporting(r, 0);
    assert_int_equal(fk.started, 2);
    rig_free(r);
}

static void outside_report_then_interrupt(void **state)
{
    (void)state;
    outside_report_then_quiet_entry(false);
}

static void outside_report_then_poll(void **state)
{
    (void)state;
    outside_report_then_quiet_entry(true);
}

static void full_adapter_refuses_once(void **state)
{
    (void)state;
    rig *r = rig_new(4);
    r->resubmit = true;
    for (unsigned i = 0; i < 16; i++)
        submit(&r->c[i], (uint8_t)(i % 2));
    assert_int_equal(fk.nheld, 4);
    assert_int_equal(fk.refused, 1);
    /* 24 rounds of one report, then 8 of two: each report's room is used
     * at once, and the adapter is not asked beyond it (fewer than the
     * probe interval, so no probe). */
    for (unsigned k = 0; k < 24; k++) {
        interrupt_reporting(r, 1);
        assert_int_equal(fk.nheld, 4);
    }
    for (unsigned k = 0; k < 3; k++) {
        interrupt_reporting(r, 2);
        assert_int_equal(fk.nheld, 4);
    }
    assert_int_equal(fk.refused, 1);
    assert_int_equal(fk.started, 4 + 24 + 6);
    rig_free(r);
}

static void passing_shortage_is_probed(void **state)
{
    (void)state;
    rig *r = rig_new(1);
    r->resubmit = true;
    for (unsigned i = 0; i < 16; i++)
        submit(&r->c[i], (uint8_t)(i % 2));
    assert_int_equal(fk.nheld, 1);
    assert_int_equal(fk.refused, 1);
    fk.cap = 8; /* room grew, and no report says so */
    unsigned k = 0;
    while (fk.nheld < 8 && k < 64) {
        interrupt_reporting(r, 1);
        k++;
    }
    assert_int_equal(fk.nheld, 8);
    assert_true(k <= 40);
    assert_int_equal(fk.refused, 2); /* the probe found the new limit */
    rig_free(r);
}

static void device_reset_frees_room(void **state)
{
    (void)state;
    rig *r = rig_new(4);
    for (unsigned i = 0; i < 8; i++)
        submit(&r->c[i], 0);
    assert_int_equal(fk.nheld, 4);
    assert_int_equal(fk.refused, 1);
    /* The caller resets target 0: the adapter forgets what it held for it
     * (as the contract has it) and reports the reset done. */
    tccb *m = &r->c[NCCB - 1];
    memset(&m->ccb, 0, sizeof m->ccb);
    m->ccb.func = PCAM_FN_RESET_DEV;
    m->ccb.target = 0;
    m->ccb.done = on_done;
    r->submitted++;
    pcam_action(&r->bus, &m->ccb);
    assert_int_equal(fk.resets, 1);
    memset(fk.held, 0, sizeof fk.held);
    fk.nheld = 0;
    assert_int_equal(pcam_bus_hal_reset_done(&r->bus, 0, 0, false, PCAM_REQ_CMP), PCAM_OK);
    /* The next way out of the core refills the adapter without a report. */
    interrupt_reporting(r, 0);
    assert_int_equal(m->done, 1);
    assert_int_equal(fk.nheld, 4);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deadline_after_outside_report),
        cmocka_unit_test(outside_report_then_interrupt),
        cmocka_unit_test(outside_report_then_poll),
        cmocka_unit_test(full_adapter_refuses_once),
        cmocka_unit_test(passing_shortage_is_probed),
        cmocka_unit_test(device_reset_frees_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
