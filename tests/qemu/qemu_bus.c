/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pcam bus on QEMU's AM53C974, its LSI53C895A with QBUS_SYM or its
 * SAS1068 with QBUS_MPT (see qemu_bus.h): one harness for the chips' QEMU
 * tests.
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

static void start_on(qbus *b, const pcam_qemu_chip *chip, const pcam_qemu_drive *drives, size_t ndrives,
                     const pcam_bus_config *bcfg, const char *const *extra, bool monitor,
                     const qbus_opts *more)
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
    if (more != NULL) {
        o.before_attach = more->before_attach;
        o.before_attach_arg = more->before_attach_arg;
        if (more->log_file != NULL) {
            o.log_file = more->log_file;
            o.log_level = more->log_level;
        }
    }
    rc = pcam_qemu_chipbus_open(b, chip, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("opening the bus on QEMU's %s: %d: %s", chip->name, rc, err);
    live = b;
#if !defined(QBUS_SYM) && !defined(QBUS_MPT)
    assert_int_equal(pcam_esp_get_chip(b->sc), PCAM_ESP_AM53C974);
#endif
}

void qbus_start(qbus *b, const pcam_qemu_drive *drives, size_t ndrives, const pcam_bus_config *bcfg,
                const char *const *extra)
{
    start_on(b, &QBUS_ENTRY, drives, ndrives, bcfg, extra, false, NULL);
}

void qbus_start_monitor(qbus *b, const pcam_qemu_drive *drives, size_t ndrives,
                        const pcam_bus_config *bcfg)
{
    start_on(b, &QBUS_ENTRY, drives, ndrives, bcfg, NULL, true, NULL);
}

void qbus_start_chip(qbus *b, const pcam_qemu_chip *chip, const pcam_qemu_drive *drives, size_t ndrives,
                     const qbus_opts *more)
{
    start_on(b, chip, drives, ndrives, NULL, NULL, false, more);
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
#if defined(QBUS_SYM) || defined(QBUS_MPT)
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
