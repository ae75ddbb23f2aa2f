/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pcam bus on QEMU's AM53C974, its LSI53C895A with QBUS_SYM, its
 * SAS1068 with QBUS_MPT or its virtio-scsi-pci with QBUS_VIRTIO (see
 * qemu_bus.h): one harness for the chips' QEMU tests.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_bus.h"
#include "qemu_rig.h"

/* The bus a test left running when an assertion jumped out of it: closed
 * before the next one starts (its images stay locked while QEMU lives). */
static qbus *live;
/* The first core invariant violation seen on the live bus. */
static const char *violation;

static void kill_live(void)
{
    if (live != NULL)
        pcam_qemu_chipbus_close(live);
    live = NULL;
}

static pcam_log_level log_level(void)
{
    const char *s = getenv("PCAM_QEMU_LOG");

    if (s == NULL)
        return PCAM_LOG_WARN;
    if (strcmp(s, "debug") == 0)
        return PCAM_LOG_DEBUG;
    if (strcmp(s, "info") == 0)
        return PCAM_LOG_INFO;
    return PCAM_LOG_WARN;
}

static void start(qbus *b, const pcam_qemu_drive *drives, size_t ndrives, const pcam_bus_config *bcfg,
                  const char *const *extra, bool monitor)
{
    qbus_opts o;
    char err[2048];
    int rc;
    static bool registered;

    if (!registered)
        registered = atexit(kill_live) == 0;
    kill_live();
    violation = NULL;
    memset(&o, 0, sizeof o);
    o.drives = drives;
    o.ndrives = ndrives;
    o.bus_config = bcfg;
    o.ram_mb = 64;
    o.extra_args = extra;
    o.monitor = monitor;
    o.log_file = stderr;
    o.log_level = log_level();
    rc = pcam_qemu_chipbus_open(b, &QBUS_ENTRY, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("opening the bus on QEMU's " QBUS_CHIP ": %d: %s", rc, err);
    live = b;
#if !defined(QBUS_SYM) && !defined(QBUS_MPT) && !defined(QBUS_VIRTIO)
    assert_int_equal(pcam_esp_get_chip(b->sc), PCAM_ESP_AM53C974);
#endif
}

void qbus_start(qbus *b, const pcam_qemu_drive *drives, size_t ndrives, const pcam_bus_config *bcfg,
                const char *const *extra)
{
    start(b, drives, ndrives, bcfg, extra, false);
}

void qbus_start_monitor(qbus *b, const pcam_qemu_drive *drives, size_t ndrives,
                        const pcam_bus_config *bcfg)
{
    start(b, drives, ndrives, bcfg, NULL, true);
}

void qbus_stop(qbus *b)
{
    size_t nlive;
    int rc;

    pcam_bus_shutdown(&b->bus);
    b->bus_up = false; /* shut down once: the close below must not repeat it */
    nlive = pcam_qemu_guest_live(b->q);
    rc = pcam_qemu_chipbus_close(b);
    live = NULL;
    if (violation != NULL)
        fail_msg("core invariant violated: %s", violation);
#if defined(QBUS_SYM) || defined(QBUS_MPT) || defined(QBUS_VIRTIO)
    assert_int_equal(nlive, 1); /* every dma_map was unmapped; the back-end's DMA area is the one left */
#else
    assert_int_equal(nlive, 0); /* every dma_map was unmapped */
#endif
    assert_int_equal(rc, 0);
}

static void check(qbus *b)
{
    if (violation == NULL)
        violation = pcam_bus_check_invariants(&b->bus);
}

void qbus_step(qbus *b, uint32_t max_wait_ms)
{
    int rc = pcam_qemu_chipbus_step(b, max_wait_ms);

    if (rc < 0)
        fail_msg("QEMU failed: %s", pcam_qemu_error(b->q));
    if (rc > 0)
        check(b);
}

bool qbus_run_until(qbus *b, const unsigned *count, unsigned target, uint32_t timeout_ms)
{
    uint64_t end = pcam_posix_now_ns() + (uint64_t)timeout_ms * 1000000u;

    while (*count < target) {
        if (pcam_posix_now_ns() > end)
            return false;
        qbus_step(b, 50);
    }
    return true;
}

static void qccb_done(pcam_ccb *ccb)
{
    qccb *c = (qccb *)ccb; /* ccb is the first member */

    c->done_count++;
    c->done_ns = pcam_posix_now_ns();
    if (c->on_done != NULL)
        c->on_done(c);
}

void qccb_io(qccb *c, uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len, pcam_dir dir,
             void *data, uint32_t len)
{
    memset(c, 0, sizeof *c);
    c->ccb.func = PCAM_FN_SCSI_IO;
    c->ccb.target = target;
    c->ccb.lun = lun;
    memcpy(c->ccb.u.io.cdb, cdb, cdb_len);
    c->ccb.u.io.cdb_len = cdb_len;
    c->ccb.u.io.dir = dir;
    c->ccb.u.io.data = data;
    c->ccb.u.io.data_len = len;
    c->ccb.u.io.sense = c->sense;
    c->ccb.u.io.sense_len = sizeof c->sense;
    c->ccb.u.io.retries = 4;
    c->ccb.timeout_ms = 5000;
}

void qbus_submit(qbus *b, qccb *c)
{
    c->ccb.done = qccb_done;
    c->done_count = 0;
    pcam_action(&b->bus, &c->ccb);
    check(b);
}

uint32_t qbus_sync(qbus *b, qccb *c, uint32_t timeout_ms)
{
    qbus_submit(b, c);
    if (!qbus_run_until(b, &c->done_count, 1, timeout_ms))
        return 0xFFFFFFFFu;
    return c->ccb.status;
}

uint32_t qbus_func(qbus *b, qccb *c, uint8_t func, uint8_t target, uint8_t lun, uint32_t timeout_ms)
{
    pcam_ccb keep = c->ccb;

    memset(c, 0, sizeof *c);
    c->ccb.u = keep.u; /* the caller may have filled the body */
    c->ccb.func = func;
    c->ccb.target = target;
    c->ccb.lun = lun;
    return qbus_sync(b, c, timeout_ms);
}

void qbus_image_blocks(const char *image, uint32_t lba, uint32_t n, uint8_t *out)
{
    assert_true(qrig_read_file(image, (uint64_t)lba * 512u, out, (size_t)n * 512u));
}

void qbus_fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 9)) ^ (seed >> 3));
}

void qbus_rw(qbus *b, uint8_t t, bool write, bool c16, uint32_t lba, uint32_t n, void *buf,
             const pcam_sg *sg, uint16_t nsg)
{
    uint8_t cdb[16];
    qccb c;

    if (c16)
        cdb_rw16(cdb, write, lba, n);
    else
        cdb_rw10(cdb, write, lba, (uint16_t)n);
    qccb_io(&c, t, 0, cdb, c16 ? 16 : 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * 512u);
    c.ccb.u.io.sg = sg;
    c.ccb.u.io.sg_count = nsg;
    if (nsg > 0)
        c.ccb.u.io.data = NULL;
    qbus_sync(b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 0);
}

void qbus_check_read_write(qbus *b, const char *image, uint8_t t2, uint32_t salt2)
{
    uint8_t *buf = malloc(128 * 512), *want = malloc(128 * 512);
    pcam_counters cnt;

    assert_non_null(buf);
    assert_non_null(want);
    for (unsigned k = 0; k < 2; k++) {
        uint32_t base = 100 + 400 * k;
        memset(buf, 0xa5, 512);
        qbus_rw(b, 0, false, k == 1, base, 1, buf, NULL, 0);
        qbus_image_blocks(image, base, 1, want);
        assert_memory_equal(buf, want, 512);
        qbus_rw(b, 0, false, k == 1, base + 1, 128, buf, NULL, 0);
        qbus_image_blocks(image, base + 1, 128, want);
        assert_memory_equal(buf, want, 128 * 512);
        qbus_fill(buf, 17 * 512, k + 10);
        qbus_rw(b, 0, true, k == 1, base + 200, 17, buf, NULL, 0);
        qbus_image_blocks(image, base + 200, 17, want);
        assert_memory_equal(want, buf, 17 * 512);
        memset(buf, 0, 17 * 512);
        qbus_rw(b, 0, false, k == 1, base + 200, 17, buf, NULL, 0);
        assert_memory_equal(want, buf, 17 * 512);
    }
    /* The other disk holds its own pattern. */
    qbus_rw(b, t2, false, false, 77, 2, buf, NULL, 0);
    qrig_sector(want, 77, salt2);
    qrig_sector(want + 512, 78, salt2);
    assert_memory_equal(buf, want, 1024);
    assert_int_equal(pcam_bus_get_counters(&b->bus, 0, &cnt), PCAM_OK);
    assert_int_equal(cnt.check_conditions, 1); /* the power-on UNIT ATTENTION, retried away */
    assert_int_equal(cnt.errors, 0);
    free(buf);
    free(want);
}

void qbus_scan_lun0(qbus *b, uint8_t t)
{
    qccb c;
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SCAN_LUN, t, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
}

void qbus_io10(qccb *c, uint8_t t, bool write, uint32_t lba, uint16_t n, uint8_t *buf, bool tagged)
{
    uint8_t cdb[10];
    cdb_rw10(cdb, write, lba, n);
    qccb_io(c, t, 0, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * 512u);
    if (tagged) {
        c->ccb.flags |= PCAM_CCB_TAGGED;
        c->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    }
}

void qbus_read_check(qbus *b, uint8_t t, uint32_t lba, uint32_t salt)
{
    uint8_t buf[512], want[512];
    qccb c;
    memset(buf, 0, sizeof buf);
    qbus_io10(&c, t, false, lba, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, lba, salt);
    assert_memory_equal(buf, want, 512);
}

/* qbus_func() clears the flags, and the LUN reset is one. */
uint32_t qbus_reset_dev(qbus *b, uint8_t t, bool lun_reset)
{
    qccb r;
    memset(&r, 0, sizeof r);
    r.ccb.func = PCAM_FN_RESET_DEV;
    r.ccb.target = t;
    r.ccb.flags = lun_reset ? PCAM_CCB_LUN_RESET : 0;
    return qbus_sync(b, &r, 15000) & PCAM_STATUS_MASK;
}

/* ---- the command-level chips' shared scenarios (qemu_bus.h) ---- */

#define SG_NSEG 20
void qbus_check_sg_and_short_inquiry(qbus *b, const char *image)
{
    uint32_t seg[SG_NSEG], total = 0, off = 0;
    uint8_t *mem = malloc(16384), *want = malloc(16384);
    pcam_sg sg[SG_NSEG];
    qccb c;
    uint8_t cdb[16];
    assert_non_null(mem);
    assert_non_null(want);
    for (unsigned i = 0; i < SG_NSEG; i++) {
        seg[i] = i + 1 < SG_NSEG ? 100u + 37u * i : 0;
        total += seg[i];
    }
    seg[SG_NSEG - 1] = 24u * 512u - total;
    memset(mem, 0xee, 16384);
    for (unsigned i = 0; i < SG_NSEG; i++) {
        sg[i].addr = mem + off + 16u * i;
        sg[i].len = seg[i];
        off += seg[i];
    }
    qbus_rw(b, 0, false, false, 3000, 24, NULL, sg, SG_NSEG);
    qbus_image_blocks(image, 3000, 24, want);
    off = 0;
    for (unsigned i = 0; i < SG_NSEG; i++) {
        assert_memory_equal(sg[i].addr, want + off, seg[i]);
        if (i + 1 < SG_NSEG)
            assert_int_equal(mem[off + 16u * i + seg[i]], 0xee); /* nothing past a segment */
        off += seg[i];
    }
    for (unsigned i = 0; i < SG_NSEG; i++)
        qbus_fill(sg[i].addr, sg[i].len, 40 + i);
    qbus_rw(b, 0, true, false, 3100, 24, NULL, sg, SG_NSEG);
    qbus_image_blocks(image, 3100, 24, want);
    off = 0;
    for (unsigned i = 0; i < SG_NSEG; i++) {
        assert_memory_equal(sg[i].addr, want + off, seg[i]);
        off += seg[i];
    }
    memset(cdb, 0, 6);
    cdb[0] = 0x12;
    cdb[4] = 200;
    memset(mem, 0, 256);
    qccb_io(&c, 0, 0, cdb, 6, PCAM_DIR_IN, mem, 200);
    qbus_sync(b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 200u - (5u + mem[4]));
    free(mem);
    free(want);
}

void qbus_check_media_errors(qbus *b, uint32_t salt)
{
    uint8_t buf[4096];
    qccb c;
    qbus_scan_lun0(b, 0);
    memset(buf, 0x3c, sizeof buf);
    qbus_io10(&c, 0, true, 16, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(c.sense[0] & 0x7f, 0x70);
    assert_int_equal(c.sense[2] & 0x0f, 0x0b);
    assert_int_equal(c.sense[12], 0x00); /* I/O PROCESS TERMINATED */
    assert_int_equal(c.sense[13], 0x06);
    memset(c.sense, 0, sizeof c.sense);
    qbus_io10(&c, 0, false, 40, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.sense[2] & 0x0f, 0x0b);
    assert_int_equal(c.sense[13], 0x06);
    qbus_io10(&c, 0, true, 17, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    memset(buf, 0, 512);
    qbus_io10(&c, 0, false, 17, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(buf[0], 0x3c);
    assert_int_equal(buf[511], 0x3c);
    qbus_read_check(b, 0, 41, salt);
    static const uint8_t tur[6] = {0};
    qccb_io(&c, 5, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_SEL_TIMEOUT);
}

#define RESET_N 16
static unsigned reset_done;
static void reset_count(qccb *c)
{
    (void)c;
    reset_done++;
}

void qbus_check_bus_reset_in_flight(qbus *b, uint32_t salt)
{
    qccb *c = calloc(RESET_N, sizeof *c);
    uint8_t *buf = malloc(RESET_N * 4096), want[512];
    qccb r;
    assert_non_null(c);
    assert_non_null(buf);
    qbus_scan_lun0(b, 0);
    reset_done = 0;
    for (unsigned i = 0; i < RESET_N; i++) {
        qbus_io10(&c[i], 0, false, 200 + 8 * i, 8, buf + 4096 * i, true);
        c[i].on_done = reset_count;
        qbus_submit(b, &c[i]);
    }
    memset(&r, 0, sizeof r);
    assert_int_equal(qbus_func(b, &r, PCAM_FN_RESET_BUS, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(b, &reset_done, RESET_N, 30000));
    unsigned lost = 0;
    for (unsigned i = 0; i < RESET_N; i++) {
        assert_int_equal(c[i].done_count, 1);
        assert_int_equal(c[i].ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
        if (c[i].ccb.u.io.resid == 4096) {
            lost++; /* met the reset's UNIT ATTENTION with its sense gone (tests/sym's absorb_ua) */
            continue;
        }
        assert_int_equal(c[i].ccb.u.io.resid, 0);
        for (unsigned k = 0; k < 8; k++) {
            qrig_sector(want, 200 + 8 * i + k, salt);
            assert_memory_equal(buf + 4096 * i + 512 * k, want, 512);
        }
    }
    assert_true(lost <= 1);
    qbus_read_check(b, 0, 250, salt);
    free(c);
    free(buf);
}

void qbus_check_abort_held(qbus *b, uint32_t salt)
{
    uint8_t buf[512];
    char out[256];
    pcam_counters c0, c1;
    qccb c, a;
    qbus_scan_lun0(b, 0);
    assert_int_equal(pcam_bus_get_counters(&b->bus, 0, &c0), PCAM_OK);
    /* Hold the next read in the block layer: the adapter keeps the task. */
    assert_int_equal(pcam_qemu_hmp(b->q, "qemu-io d0 \"break read_aio A\"", out, sizeof out), 0);
    qbus_io10(&c, 0, false, 400, 1, buf, true);
    qbus_submit(b, &c);
    for (int i = 0; i < 20; i++)
        qbus_step(b, 10);
    assert_int_equal(c.done_count, 0);
    /* QEMU answers ABORT TASK once the block layer has let go of the
     * request (scsi_req_cancel_async): the break point is resumed while the
     * abort is outstanding, and the read ends as aborted. */
    memset(&a, 0, sizeof a);
    a.ccb.func = PCAM_FN_ABORT;
    a.ccb.u.abort.victim = &c.ccb;
    qbus_submit(b, &a);
    for (int i = 0; i < 10; i++)
        qbus_step(b, 10);
    assert_int_equal(c.done_count, 0);
    assert_int_equal(pcam_qemu_hmp(b->q, "qemu-io d0 \"resume A\"", out, sizeof out), 0);
    assert_true(qbus_run_until(b, &a.done_count, 1, 15000));
    assert_int_equal(a.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(b, &c.done_count, 1, 15000));
    qbus_expect(&c, PCAM_REQ_ABORTED);
    assert_int_equal(pcam_bus_get_counters(&b->bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.aborts, c0.aborts + 1);
    qbus_read_check(b, 0, 401, salt);
    assert_int_equal(c.done_count, 1);
}

void qbus_check_hot_removal(qbus *b, const char *dev, uint8_t t, uint32_t salt0)
{
    char cmd[128], out[512];
    uint8_t buf[512];
    qccb c;
    snprintf(cmd, sizeof cmd, "device_del %s", dev);
    assert_int_equal(pcam_qemu_hmp(b->q, cmd, out, sizeof out), 0);
    /* The disk is gone from QEMU's bus once its unplug ran. */
    for (int i = 0; i < 20; i++)
        qbus_step(b, 10);
    qbus_io10(&c, t, false, 11, 1, buf, true);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_SEL_TIMEOUT);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_GET_DEV, t, 0, 1000) & PCAM_STATUS_MASK, PCAM_DEV_NOT_THERE);
    qbus_read_check(b, 0, 12, salt0);
}

void qbus_check_scan_two_disks(qbus *b, uint8_t skip)
{
    qccb c;
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    for (uint8_t t = 0; t < 16; t++) {
        if (t == skip)
            continue;
        bool want = t == 0 || t == 2;
        memset(&c, 0, sizeof c);
        uint32_t s = qbus_func(b, &c, PCAM_FN_GET_DEV, t, 0, 1000) & PCAM_STATUS_MASK;
        assert_int_equal(s, want ? PCAM_REQ_CMP : PCAM_DEV_NOT_THERE);
        if (want) {
            assert_int_equal(c.ccb.u.dev.type, 0);
            assert_memory_equal(c.ccb.u.dev.inquiry + 8, "QEMU    ", 8);
        }
    }
}

uint32_t qbus_check_device_resets(qbus *b, uint32_t salt)
{
    pcam_counters c0, c1;
    qbus_scan_lun0(b, 0);
    assert_int_equal(pcam_bus_get_counters(&b->bus, 0, &c0), PCAM_OK);
    assert_int_equal(qbus_reset_dev(b, 0, false), PCAM_REQ_CMP);
    qbus_read_check(b, 0, 300, salt);
    assert_int_equal(qbus_reset_dev(b, 0, true), PCAM_REQ_CMP);
    qbus_read_check(b, 0, 301, salt);
    assert_int_equal(pcam_bus_get_counters(&b->bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.resets, c0.resets + 2);
    uint32_t rs = qbus_reset_dev(b, 5, true);
    printf("LUN reset at ID 5: 0x%x\n", rs);
    return rs;
}

static unsigned depth_done;
static void depth_count(qccb *c)
{
    (void)c;
    depth_done++;
}

void qbus_check_tagged_depth(qbus *b, uint8_t t, const char *image, unsigned depth, unsigned rounds)
{
    static const uint8_t attr[3] = {PCAM_TAG_SIMPLE, PCAM_TAG_ORDERED, PCAM_TAG_HEAD_OF_QUEUE};
    qccb *c = calloc(depth, sizeof *c);
    uint8_t *buf = malloc((size_t)depth * 4096), *want = malloc(4096);
    pcam_counters cnt, before;
    assert_non_null(c);
    assert_non_null(buf);
    assert_non_null(want);
    assert_int_equal(pcam_bus_get_counters(&b->bus, t, &before), PCAM_OK);
    depth_done = 0;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < depth; i++) {
            uint8_t cdb[10];
            cdb_rw10(cdb, false, 1000 + (r * depth + i) * 8u, 8);
            qccb_io(&c[i], t, 0, cdb, 10, PCAM_DIR_IN, buf + (size_t)i * 4096, 4096);
            c[i].ccb.flags |= PCAM_CCB_TAGGED;
            c[i].ccb.u.io.tag_action = attr[(i + r) % 3];
            c[i].on_done = depth_count;
            qbus_submit(b, &c[i]);
        }
        assert_true(qbus_run_until(b, &depth_done, (r + 1) * depth, 60000));
        for (unsigned i = 0; i < depth; i++) {
            qbus_expect(&c[i], PCAM_REQ_CMP);
            qbus_image_blocks(image, 1000 + (r * depth + i) * 8u, 8, want);
            assert_memory_equal(buf + (size_t)i * 4096, want, 4096);
        }
    }
    assert_int_equal(pcam_bus_get_counters(&b->bus, t, &cnt), PCAM_OK);
    assert_int_equal(cnt.errors - before.errors, 0);
    free(c);
    free(buf);
    free(want);
}

void qbus_trace_depth(const char *path, const char *in_event, const char *out_event, int *entered,
                      int *most)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int held = 0, nl = 0;

    assert_non_null(f);
    *entered = 0;
    *most = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (getenv("QBUS_TRACE_DUMP") != NULL && nl++ < 60)
            fputs(line, stdout);
        if (strstr(line, in_event) != NULL) {
            held++;
            (*entered)++;
        } else if (strstr(line, out_event) != NULL) {
            held--;
        }
        if (held > *most)
            *most = held;
    }
    fclose(f);
}

void cdb_rw6(uint8_t *c, bool write, uint32_t lba, uint8_t blocks)
{
    memset(c, 0, 6);
    c[0] = write ? 0x0a : 0x08;
    c[1] = (uint8_t)((lba >> 16) & 0x1fu);
    c[2] = (uint8_t)(lba >> 8);
    c[3] = (uint8_t)lba;
    c[4] = blocks; /* 0 means 256 */
}

void cdb_rw10(uint8_t *c, bool write, uint32_t lba, uint16_t blocks)
{
    memset(c, 0, 10);
    c[0] = write ? 0x2a : 0x28;
    c[2] = (uint8_t)(lba >> 24);
    c[3] = (uint8_t)(lba >> 16);
    c[4] = (uint8_t)(lba >> 8);
    c[5] = (uint8_t)lba;
    c[7] = (uint8_t)(blocks >> 8);
    c[8] = (uint8_t)blocks;
}

void cdb_rw16(uint8_t *c, bool write, uint64_t lba, uint32_t blocks)
{
    unsigned i;

    memset(c, 0, 16);
    c[0] = write ? 0x8a : 0x88;
    for (i = 0; i < 8; i++)
        c[2 + i] = (uint8_t)(lba >> (56 - 8 * i));
    for (i = 0; i < 4; i++)
        c[10 + i] = (uint8_t)(blocks >> (24 - 8 * i));
}

void qbus_expect(const qccb *c, uint32_t want)
{
    const pcam_scsiio *io = &c->ccb.u.io;

    if (c->done_count == 1 && (c->ccb.status & PCAM_STATUS_MASK) == want)
        return;
    fail_msg("CCB %02x to %u:%u: done %u times, status 0x%x (%s), want %s; scsi status 0x%02x, "
             "sense %02x/%02x/%02x (%u bytes short), resid %u",
             io->cdb[0], c->ccb.target, c->ccb.lun, c->done_count, c->ccb.status,
             pcam_status_name(c->ccb.status), pcam_status_name(want), io->scsi_status,
             c->sense[2] & 0x0f, c->sense[12], c->sense[13], io->sense_resid, io->resid);
}

void qbus_absorb_lun_ua(qbus *b, uint8_t target, uint8_t lun)
{
    static const uint8_t tur[6] = { 0 };
    qccb c;

    qccb_io(&c, target, lun, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(b, &c, 10000);
    if ((c.ccb.status & PCAM_STATUS_MASK) == PCAM_REQ_CMP)
        return;
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.sense[2] & 0x0f, 0x5);
    assert_int_equal(c.sense[12], 0x25);
    assert_int_equal(c.sense[13], 0x00);
}
