/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the core's entry points refuse (core/xpt/xpt.c), one mistake at a
 * time, against the codes pcam.h documents for it:
 *  - pcam_bus_init(): PCAM_ERR_NULL for a missing bus, back-end, op the
 *    profile needs, platform, clock or LUN array; PCAM_ERR_RANGE for a
 *    chip that is neither 8 nor 16 IDs wide, an initiator ID outside it,
 *    LUNs per target 0 or above PCAM_MAX_LUNS, a LUN array shorter than
 *    PCAM_BUS_LUNS(), tag depths out of order or above PCAM_TAGS - 1, a
 *    default timeout of 0; PCAM_ERR_ABI with a log line for storage of
 *    another build; a NULL configuration means the defaults; a chip wider
 *    than the build is driven at the build's width, without WIDE;
 *  - pcam_action(): a SCSI I/O with a CDB of no length, of a length its
 *    opcode group does not have, a direction past OUT, a length with no
 *    direction, a buffer the DMA cannot align, a
 *    scatter-gather entry with no address, a list shorter than data_len or
 *    adding up past 4 GiB, more than the chip's max_xfer, sense length
 *    without a sense buffer is PCAM_REQ_INVALID or PCAM_REQ_TOO_BIG; a
 *    path outside the bus is PCAM_PATH_INVALID for GET_DEV, REL_QUEUE,
 *    SCAN_LUN and RESET_DEV; openings above tag_depth_max and a GET_TRAN
 *    type past CURRENT are PCAM_REQ_INVALID; an unknown function is
 *    PCAM_FUNC_NOTAVAIL; NOOP completes PCAM_REQ_CMP at once;
 *  - a CCB with no callback, or no bus, is left alone (nothing to complete
 *    through); a CCB handed in again while the core holds it is dropped,
 *    so it still completes exactly once, with its data;
 *  - the back-end's calls and the LUN queries with no bus or a LUN
 *    outside it answer PCAM_ERR_NULL, 0 or false;
 *  - async registrations: the same callback and argument again replaces
 *    the mask, a NULL callback removes it (PCAM_REQ_INVALID when there is
 *    none), PCAM_RESRC_UNAVAIL past PCAM_ASYNC_SLOTS;
 *  - a scan waiting behind another can be aborted, the one on the bus not
 *    (PCAM_REQ_INVALID); a shutdown ends the waiting ones, REQ_ABORTED.
 * Every refused CCB completes once, at once, with nothing transferred
 * (resid = data_len).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_cdb.h"
#include "pcam_sim.h"
#include "simrig.h"

/* ---- pcam_bus_init() ---- */

typedef struct initfx {
    pcam_sim *sim;
    pcam_hal hal;          /* the sim's, with ops pointing at `ops` */
    pcam_hal_ops ops;      /* a copy the cases break */
    pcam_platform plat;
    pcam_bus_config cfg;
    pcam_lun luns[PCAM_MAX_TARGETS * PCAM_MAX_LUNS];
    pcam_bus bus;
} initfx;

static const pcam_hal_ops *sim_ops;
static pcam_hal_caps caps_over; /* what the wrapped get_caps reports */
static bool caps_overridden;

static void caps_wrap(void *sc, pcam_hal_caps *caps)
{
    sim_ops->get_caps(sc, caps);
    if (caps_overridden) {
        caps->max_targets = caps_over.max_targets;
        caps->initiator_id = caps_over.initiator_id;
    }
}

static initfx *initfx_new(void)
{
    initfx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    f->sim = pcam_sim_create(&sc);
    assert_non_null(f->sim);
    pcam_sim_get_hal(f->sim, &f->hal);
    sim_ops = f->hal.ops;
    f->ops = *f->hal.ops;
    f->ops.get_caps = caps_wrap;
    f->hal.ops = &f->ops;
    pcam_sim_get_platform(f->sim, &f->plat);
    pcam_bus_config_defaults(&f->cfg);
    f->cfg.luns_per_target = 2;
    caps_overridden = false;
    return f;
}

static int init_with(initfx *f, size_t nluns)
{
    return pcam_bus_init(&f->bus, &f->cfg, &f->hal, &f->plat, f->luns, nluns);
}

static void initfx_free(initfx *f)
{
    pcam_sim_destroy(f->sim);
    free(f);
}

static void test_init_null(void **state)
{
    (void)state;
    initfx *f = initfx_new();
    size_t n = PCAM_BUS_LUNS(16, 2);
    assert_int_equal(pcam_bus_init(NULL, &f->cfg, &f->hal, &f->plat, f->luns, n), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_init(&f->bus, &f->cfg, NULL, &f->plat, f->luns, n), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_init(&f->bus, &f->cfg, &f->hal, NULL, f->luns, n), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_init(&f->bus, &f->cfg, &f->hal, &f->plat, NULL, n), PCAM_ERR_NULL);
    pcam_platform noclock = f->plat;
    noclock.now_ns = NULL;
    assert_int_equal(pcam_bus_init(&f->bus, &f->cfg, &f->hal, &noclock, f->luns, n), PCAM_ERR_NULL);
    pcam_hal noops = f->hal;
    noops.ops = NULL;
    assert_int_equal(pcam_bus_init(&f->bus, &f->cfg, &noops, &f->plat, f->luns, n), PCAM_ERR_NULL);
    /* Each op is taken away alone: the first three every profile needs,
     * the last the phase level's own. */
    static const size_t which[] = {offsetof(pcam_hal_ops, get_caps), offsetof(pcam_hal_ops, reset_chip),
                                   offsetof(pcam_hal_ops, poll), offsetof(pcam_hal_ops, select)};
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        pcam_hal_ops broken = f->ops;
        void (*none)(void) = NULL;
        memcpy((char *)&broken + which[i], &none, sizeof none);
        f->hal.ops = &broken;
        assert_int_equal(init_with(f, n), PCAM_ERR_NULL);
        f->hal.ops = &f->ops;
    }
    assert_int_equal(init_with(f, n), PCAM_OK);
    pcam_bus_shutdown(&f->bus);
    initfx_free(f);
}

static void test_init_range(void **state)
{
    (void)state;
    initfx *f = initfx_new();
    size_t n = PCAM_BUS_LUNS(16, 2);
    /* The chip's width and ID. */
    caps_overridden = true;
    caps_over.max_targets = 12;
    caps_over.initiator_id = 7;
    assert_int_equal(init_with(f, n), PCAM_ERR_RANGE);
    caps_over.max_targets = 8;
    caps_over.initiator_id = 8;
    assert_int_equal(init_with(f, n), PCAM_ERR_RANGE);
    caps_overridden = false;
    /* LUNs per target and the array's length. */
    f->cfg.luns_per_target = 0;
    assert_int_equal(init_with(f, n), PCAM_ERR_RANGE);
    f->cfg.luns_per_target = PCAM_MAX_LUNS + 1;
    assert_int_equal(init_with(f, sizeof f->luns / sizeof f->luns[0]), PCAM_ERR_RANGE);
    f->cfg.luns_per_target = 2;
    assert_int_equal(init_with(f, n - 1), PCAM_ERR_RANGE);
    /* Tag depths: floor <= depth <= max <= PCAM_TAGS - 1, none 0. */
    static const uint16_t bad[][3] = {{0, 1, 4}, {4, 0, 4}, {2, 3, 4}, {5, 1, 4}, {4, 1, PCAM_TAGS}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pcam_bus_config_defaults(&f->cfg);
        f->cfg.luns_per_target = 2;
        f->cfg.tag_depth = bad[i][0];
        f->cfg.tag_depth_floor = bad[i][1];
        f->cfg.tag_depth_max = bad[i][2];
        assert_int_equal(init_with(f, n), PCAM_ERR_RANGE);
    }
    pcam_bus_config_defaults(&f->cfg);
    f->cfg.luns_per_target = 2;
    f->cfg.default_timeout_ms = 0;
    assert_int_equal(init_with(f, n), PCAM_ERR_RANGE);
    initfx_free(f);
}

static unsigned pi_done;

static void count_done(pcam_ccb *c)
{
    (void)c;
    pi_done++;
}

/* PATH_INQ finishes inside pcam_action(). */
static pcam_pathinq path_inq(pcam_bus *bus)
{
    pcam_ccb c;
    memset(&c, 0, sizeof c);
    c.func = PCAM_FN_PATH_INQ;
    c.done = count_done;
    pi_done = 0;
    pcam_action(bus, &c);
    assert_int_equal(pi_done, 1);
    assert_int_equal(c.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    return c.u.pathinq;
}

static void test_init_defaults_and_width(void **state)
{
    (void)state;
    initfx *f = initfx_new();
    /* NULL settings: the defaults, 8 LUNs per target. */
    pcam_bus_config def;
    pcam_bus_config_defaults(&def);
    pcam_bus_config_defaults(NULL); /* no settings to fill: nothing happens */
    assert_int_equal(pcam_bus_init(&f->bus, NULL, &f->hal, &f->plat, f->luns, PCAM_BUS_LUNS(16, def.luns_per_target)),
                     PCAM_OK);
    pcam_pathinq pi = path_inq(&f->bus);
    assert_int_equal(pi.max_lun, def.luns_per_target - 1);
    assert_int_equal(pi.max_target, 15);
    pcam_bus_shutdown(&f->bus);
    initfx_free(f);

    /* A chip with more IDs than the build has: driven at the build's
     * width, and not as a wide one when that is narrower than it. */
    f = initfx_new();
    caps_overridden = true;
    caps_over.max_targets = PCAM_MAX_TARGETS * 2;
    caps_over.initiator_id = 7;
    assert_int_equal(init_with(f, PCAM_BUS_LUNS(PCAM_MAX_TARGETS, 2)), PCAM_OK);
    pi = path_inq(&f->bus);
    assert_int_equal(pi.max_target, PCAM_MAX_TARGETS - 1);
    assert_int_equal(pi.hal_flags & PCAM_HAL_CAP_WIDE, 0);
    pcam_bus_shutdown(&f->bus);
    caps_overridden = false;
    initfx_free(f);
}

static char logged[256];

static void log_cap(void *ctx, pcam_log_level level, const char *msg)
{
    (void)ctx;
    if (level == PCAM_LOG_ERROR)
        snprintf(logged, sizeof logged, "%s", msg);
}

static void test_init_abi(void **state)
{
    (void)state;
    initfx *f = initfx_new();
    pcam_abi other = PCAM_ABI_INITIALIZER;
    other.ccb_size += 8; /* a program whose CCB is not the library's */
    f->plat.log = log_cap;
    logged[0] = '\0';
    memset(&f->bus, 0x5A, sizeof f->bus);
    assert_int_equal(pcam_bus_init_abi(&other, &f->bus, &f->cfg, &f->hal, &f->plat, f->luns, PCAM_BUS_LUNS(16, 2)),
                     PCAM_ERR_ABI);
    assert_non_null(strstr(logged, "bus storage refused, configurations differ"));
    /* Nothing written. */
    const uint8_t *b = (const uint8_t *)&f->bus;
    for (size_t i = 0; i < sizeof f->bus; i++)
        assert_int_equal(b[i], 0x5A);
    initfx_free(f);
}

/* ---- pcam_action() on a running bus ---- */

typedef struct busfx {
    simrig r;
} busfx;

static busfx *busfx_new(void)
{
    busfx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.cap_align_mask = 1;
    sc.cap_max_xfer = 4096;
    sc.cap_max_sg = 4;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.luns_per_target = 2;
    assert_int_equal(simrig_init(&f->r, &sc, &bc, false), PCAM_OK);
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    assert_non_null(simrig_add_disk(&f->r, 0, 0, 64, &tc));
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&f->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    return f;
}

static void busfx_free(busfx *f)
{
    assert_null(f->r.violation);
    assert_null(pcam_bus_check_invariants(&f->r.bus));
    simrig_fini(&f->r);
    free(f);
}

/* A CCB the core must refuse at once: it completes before pcam_action()
 * returns, exactly once, with `want` and nothing transferred. */
static void refused(busfx *f, rig_ccb *rc, uint32_t want)
{
    rc->done_count = 0;
    rig_submit(&f->r, rc);
    assert_int_equal(rc->done_count, 1);
    assert_int_equal(rc->ccb.status & PCAM_STATUS_MASK, want);
    if (rc->ccb.func == PCAM_FN_SCSI_IO)
        assert_int_equal(rc->ccb.u.io.resid, rc->ccb.u.io.data_len);
}

static void read10(rig_ccb *rc, void *buf, uint32_t len)
{
    uint8_t cdb[16];
    int n = pcam_cdb_read(cdb, sizeof cdb, 10, 0, len / 512u, 0);
    memset(rc, 0, sizeof *rc);
    rig_ccb_io(rc, 0, 0, cdb, (uint8_t)n, PCAM_DIR_IN, buf, len);
}

static void test_scsiio_refusals(void **state)
{
    (void)state;
    busfx *f = busfx_new();
    static uint16_t words[2048 + 2]; /* 2-byte aligned */
    uint8_t *buf = (uint8_t *)words;
    uint8_t sense[18];
    rig_ccb rc;

    read10(&rc, buf, 512);
    rc.ccb.u.io.cdb_len = 0;
    refused(f, &rc, PCAM_REQ_INVALID);
    read10(&rc, buf, 512);
    rc.ccb.u.io.cdb_len = PCAM_CDB_BYTES + 1;
    refused(f, &rc, PCAM_REQ_INVALID);
    read10(&rc, buf, 512);
    rc.ccb.u.io.cdb_len = 6; /* READ(10) is group 1: 10 bytes */
    refused(f, &rc, PCAM_REQ_INVALID);
    read10(&rc, buf, 512);
    rc.ccb.u.io.dir = (pcam_dir)(PCAM_DIR_OUT + 1);
    refused(f, &rc, PCAM_REQ_INVALID);
    read10(&rc, buf, 512);
    rc.ccb.u.io.dir = PCAM_DIR_NONE; /* with a data length */
    refused(f, &rc, PCAM_REQ_INVALID);
    read10(&rc, buf + 1, 512); /* the chip wants 2-byte alignment */
    refused(f, &rc, PCAM_REQ_INVALID);
    read10(&rc, buf, 4096 + 512); /* past max_xfer */
    refused(f, &rc, PCAM_REQ_TOO_BIG);
    read10(&rc, buf, 512);
    rc.ccb.u.io.sense_len = sizeof sense; /* and no sense buffer */
    refused(f, &rc, PCAM_REQ_INVALID);

    pcam_sg sg[5];
    read10(&rc, NULL, 1024);
    sg[0].addr = buf;
    sg[0].len = 512;
    sg[1].addr = NULL; /* a segment with length and no address */
    sg[1].len = 512;
    rc.ccb.u.io.sg = sg;
    rc.ccb.u.io.sg_count = 2;
    refused(f, &rc, PCAM_REQ_INVALID);
    sg[1].addr = buf + 512;
    sg[1].len = 256; /* the list holds less than data_len */
    refused(f, &rc, PCAM_REQ_INVALID);
    sg[0].len = 0xFFFFFFFFu; /* together past what a CCB can say */
    sg[1].len = 0xFFFFFFFFu;
    refused(f, &rc, PCAM_REQ_TOO_BIG);
    for (unsigned i = 0; i < 5; i++) {
        sg[i].addr = buf + i * 256;
        sg[i].len = 256;
    }
    rc.ccb.u.io.sg_count = 5; /* more than the chip's max_sg (4) */
    refused(f, &rc, PCAM_REQ_TOO_BIG);
    rc.ccb.u.io.sg = NULL;
    refused(f, &rc, PCAM_REQ_INVALID);

    /* The same READ, well formed, reads the rig's pattern. */
    read10(&rc, buf, 512);
    assert_int_equal(rig_sync(&f->r, &rc, RIG_S(5)), PCAM_REQ_CMP);
    assert_int_equal(rc.ccb.u.io.resid, 0);
    const uint8_t *medium = f->r.stores[0][0];
    assert_memory_equal(buf, medium, 512);
    busfx_free(f);
}

static void test_other_refusals(void **state)
{
    (void)state;
    busfx *f = busfx_new();
    rig_ccb rc;
    static const uint8_t funcs[] = {PCAM_FN_GET_DEV, PCAM_FN_REL_QUEUE, PCAM_FN_SCAN_LUN, PCAM_FN_RESET_DEV};
    for (size_t i = 0; i < sizeof funcs; i++) {
        memset(&rc, 0, sizeof rc);
        rc.ccb.func = funcs[i];
        rc.ccb.target = 0;
        rc.ccb.lun = 2; /* the bus tracks 2 LUNs per target */
        refused(f, &rc, PCAM_PATH_INVALID);
        rc.ccb.target = 16;
        rc.ccb.lun = 0;
        refused(f, &rc, PCAM_PATH_INVALID);
    }
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_REL_QUEUE;
    rc.ccb.u.relq.openings = 65; /* above tag_depth_max (64) */
    refused(f, &rc, PCAM_REQ_INVALID);
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_GET_TRAN;
    rc.ccb.target = 0;
    rc.ccb.u.tran.type = (pcam_tran_type)(PCAM_TRAN_CURRENT + 1);
    refused(f, &rc, PCAM_REQ_INVALID);
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = 0x7E;
    refused(f, &rc, PCAM_FUNC_NOTAVAIL);
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_NOOP;
    refused(f, &rc, PCAM_REQ_CMP);

    /* Nothing to complete through: left as it was. */
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_NOOP;
    rc.ccb.status = 0x77;
    pcam_action(&f->r.bus, &rc.ccb); /* no done callback */
    assert_int_equal(rc.ccb.status, 0x77);
    pcam_action(NULL, &rc.ccb);
    pcam_action(&f->r.bus, NULL);
    assert_int_equal(rc.ccb.status, 0x77);
    busfx_free(f);
}

static void test_resubmit_while_held(void **state)
{
    (void)state;
    busfx *f = busfx_new();
    static uint16_t words[256];
    rig_ccb rc;
    read10(&rc, words, 512);
    bool done = false;
    rc.test = &done;
    rig_submit(&f->r, &rc);
    assert_int_equal(rc.done_count, 0);
    pcam_action(&f->r.bus, &rc.ccb); /* again, while the core holds it */
    for (unsigned i = 0; i < 100000 && rc.done_count == 0 && simrig_step(&f->r); i++)
        ;
    while (simrig_step(&f->r))
        ;
    assert_int_equal(rc.done_count, 1);
    assert_int_equal(rc.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_memory_equal(words, f->r.stores[0][0], 512);
    busfx_free(f);
}

static void test_null_bus_calls(void **state)
{
    (void)state;
    pcam_hal_cmd_result res;
    uint8_t b[8];
    memset(&res, 0, sizeof res);
    assert_int_equal(pcam_bus_hal_done(NULL, NULL, 0, 0, &res), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_hal_reset_done(NULL, 0, 0, false, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_hal_nego_start(NULL, 0, b, sizeof b), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_hal_msg_in(NULL, 0, 0, b, 1, b, sizeof b), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_hal_msg_reject(NULL, 0, 0, b, sizeof b), PCAM_ERR_NULL);
    pcam_bus_hal_nego_end(NULL, 0, true);
    pcam_bus_hal_parity(NULL, 0);
    assert_int_equal(pcam_lun_depth(NULL, 0, 0), 0);
    assert_false(pcam_lun_tagged(NULL, 0, 0));

    busfx *f = busfx_new();
    assert_int_not_equal(pcam_lun_depth(&f->r.bus, 0, 0), 0);
    assert_int_equal(pcam_lun_depth(&f->r.bus, 0, 2), 0);
    assert_int_equal(pcam_lun_depth(&f->r.bus, PCAM_MAX_TARGETS, 0), 0);
    assert_false(pcam_lun_tagged(&f->r.bus, 0, 2));
    assert_false(pcam_lun_tagged(&f->r.bus, PCAM_MAX_TARGETS, 0));
    busfx_free(f);
}

static unsigned resets_seen[5];

static void on_async(void *arg, uint32_t code, uint8_t target, uint8_t lun)
{
    (void)target;
    (void)lun;
    if (code == PCAM_AC_BUS_RESET)
        resets_seen[(uintptr_t)arg]++;
}

static uint32_t set_async(busfx *f, pcam_async_fn cb, uintptr_t arg, uint32_t events)
{
    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_SET_ASYNC;
    rc.ccb.u.async.cb = cb;
    rc.ccb.u.async.arg = (void *)arg;
    rc.ccb.u.async.events = events;
    rig_submit(&f->r, &rc);
    assert_int_equal(rc.done_count, 1);
    return rc.ccb.status & PCAM_STATUS_MASK;
}

static void reset_bus(busfx *f)
{
    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_RESET_BUS;
    assert_int_equal(rig_sync(&f->r, &rc, RIG_S(10)), PCAM_REQ_CMP);
}

/* PCAM_FN_SET_ASYNC (pcam.h): a registration again with the same callback
 * and argument replaces its mask, a NULL callback removes it (and removing
 * one never made is PCAM_REQ_INVALID), PCAM_ASYNC_SLOTS at most. */
static void test_async_registrations(void **state)
{
    (void)state;
    busfx *f = busfx_new();
    memset(resets_seen, 0, sizeof resets_seen);
    assert_int_equal(set_async(f, on_async, 1, PCAM_AC_BUS_RESET), PCAM_REQ_CMP);
    reset_bus(f);
    assert_int_equal(resets_seen[1], 1);
    assert_int_equal(set_async(f, on_async, 1, PCAM_AC_LOST_DEVICE), PCAM_REQ_CMP);
    reset_bus(f);
    assert_int_equal(resets_seen[1], 1);
    assert_int_equal(set_async(f, on_async, 1, PCAM_AC_BUS_RESET), PCAM_REQ_CMP);
    for (uintptr_t a = 2; a <= PCAM_ASYNC_SLOTS; a++)
        assert_int_equal(set_async(f, on_async, a, PCAM_AC_BUS_RESET), PCAM_REQ_CMP);
    assert_int_equal(set_async(f, on_async, PCAM_ASYNC_SLOTS + 1, PCAM_AC_BUS_RESET), PCAM_RESRC_UNAVAIL);
    reset_bus(f);
    for (unsigned a = 2; a <= PCAM_ASYNC_SLOTS; a++)
        assert_int_equal(resets_seen[a], 1);
    assert_int_equal(resets_seen[1], 2);
    assert_int_equal(set_async(f, NULL, 1, 0), PCAM_REQ_CMP);
    assert_int_equal(set_async(f, NULL, 1, 0), PCAM_REQ_INVALID);
    reset_bus(f);
    assert_int_equal(resets_seen[1], 2);
    assert_int_equal(resets_seen[2], 2);

    pcam_counters c;
    pcam_event ev;
    assert_int_equal(pcam_bus_get_counters(NULL, 0, &c), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_get_counters(&f->r.bus, 0, NULL), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_get_counters(&f->r.bus, PCAM_MAX_TARGETS, &c), PCAM_ERR_RANGE);
    assert_int_equal(pcam_bus_read_events(NULL, &ev, 1), 0);
    assert_int_equal(pcam_bus_read_events(&f->r.bus, NULL, 1), 0);
    busfx_free(f);
}

/* A scan waiting behind another can be aborted (it completes
 * PCAM_REQ_ABORTED, the abort PCAM_REQ_CMP); the one on the bus cannot
 * (PCAM_REQ_INVALID: it is already asking the targets) and finishes; a
 * shutdown ends the scans still waiting with PCAM_REQ_ABORTED. */
static void test_scan_abort_and_shutdown(void **state)
{
    (void)state;
    busfx *f = busfx_new();
    rig_ccb s1, s2, s3, ab;
    memset(&s1, 0, sizeof s1);
    memset(&s2, 0, sizeof s2);
    memset(&s3, 0, sizeof s3);
    s1.ccb.func = s2.ccb.func = s3.ccb.func = PCAM_FN_SCAN_BUS;
    rig_submit(&f->r, &s1);
    rig_submit(&f->r, &s2);
    assert_int_equal(s1.done_count + s2.done_count, 0);
    memset(&ab, 0, sizeof ab);
    ab.ccb.func = PCAM_FN_ABORT;
    ab.ccb.u.abort.victim = &s1.ccb;
    refused(f, &ab, PCAM_REQ_INVALID);
    memset(&ab, 0, sizeof ab);
    ab.ccb.func = PCAM_FN_ABORT;
    ab.ccb.u.abort.victim = &s2.ccb;
    refused(f, &ab, PCAM_REQ_CMP);
    assert_int_equal(s2.done_count, 1);
    assert_int_equal(s2.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_ABORTED);
    for (unsigned i = 0; i < 1000000 && s1.done_count == 0 && simrig_step(&f->r); i++)
        ;
    assert_int_equal(s1.done_count, 1);
    assert_int_equal(s1.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    /* Two more, and the bus shut down under them. */
    memset(&s1, 0, sizeof s1);
    s1.ccb.func = PCAM_FN_SCAN_BUS;
    rig_submit(&f->r, &s1);
    rig_submit(&f->r, &s3);
    pcam_bus_shutdown(&f->r.bus);
    while (simrig_step(&f->r))
        ;
    assert_int_equal(s1.done_count, 1);
    assert_int_equal(s3.done_count, 1);
    assert_int_equal(s3.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_ABORTED);
    busfx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_null),
        cmocka_unit_test(test_init_range),
        cmocka_unit_test(test_init_defaults_and_width),
        cmocka_unit_test(test_init_abi),
        cmocka_unit_test(test_scsiio_refusals),
        cmocka_unit_test(test_other_refusals),
        cmocka_unit_test(test_resubmit_while_held),
        cmocka_unit_test(test_null_bus_calls),
        cmocka_unit_test(test_async_registrations),
        cmocka_unit_test(test_scan_abort_and_shutdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
