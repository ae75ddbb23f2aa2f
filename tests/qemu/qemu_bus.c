/*
 * A pcam bus on QEMU's AM53C974 (see qemu_bus.h).
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

/* The bus a test left running when an assertion jumped out of it: stopped
 * before the next one starts (its images stay locked while QEMU lives). */
static pcam_qemu *live_q;
static pcam_lun *live_luns;

static void kill_live(void)
{
    if (live_q != NULL)
        pcam_qemu_stop(live_q);
    free(live_luns);
    live_q = NULL;
    live_luns = NULL;
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
    pcam_qemu_opts o;
    pcam_esp_config ec;
    pcam_bus_config cfg;
    pcam_hal_caps caps;
    char err[2048];
    int rc;
    static bool registered;

    if (!registered)
        registered = atexit(kill_live) == 0;
    kill_live();
    memset(b, 0, sizeof *b);
    memset(&o, 0, sizeof o);
    o.drives = drives;
    o.ndrives = ndrives;
    o.ram_mb = 64;
    o.extra_args = extra;
    o.monitor = monitor;
    o.log_file = stderr;
    o.log_level = log_level();
    rc = pcam_qemu_start(&b->q, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("pcam_qemu_start: %d: %s", rc, err);
    live_q = b->q;
    rc = pcam_qemu_find_pci(b->q, 0x1022, 0x2020, 0, 11, &b->pci);
    if (rc != 0)
        fail_msg("AM53C974 not found: %d %s", rc, pcam_qemu_error(b->q));
    b->irq = b->pci.irq;
    pcam_qemu_platform(b->q, &b->plat);

    memset(&ec, 0, sizeof ec);
    ec.chip = PCAM_ESP_AUTO;
    ec.base = (uintptr_t)b->pci.bar[0].addr;
    ec.stride = 4;
    ec.clock_khz = 40000;
    ec.initiator_id = 7;
    ec.use_dma = true;
    /* QEMU's model treats SELECT WITH ATN3 as a no-op (QEMU.md). */
    ec.flags = PCAM_ESP_F_NO_SELATN3;
    rc = pcam_esp_attach(&b->esp, &ec, &b->plat, &b->hal);
    if (rc != PCAM_OK)
        fail_msg("pcam_esp_attach: %s", pcam_strerror(rc));
    assert_int_equal(pcam_esp_get_chip(&b->esp), PCAM_ESP_AM53C974);

    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = false;
    b->hal.ops->get_caps(b->hal.sc, &caps);
    b->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    b->luns = calloc(b->nluns, sizeof *b->luns);
    assert_non_null(b->luns);
    live_luns = b->luns;
    rc = pcam_bus_init(&b->bus, &cfg, &b->hal, &b->plat, b->luns, b->nluns);
    if (rc != PCAM_OK)
        fail_msg("pcam_bus_init: %s", pcam_strerror(rc));
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
    nlive = pcam_qemu_guest_live(b->q);
    rc = pcam_qemu_stop(b->q);
    free(b->luns);
    b->q = NULL;
    live_q = NULL;
    live_luns = NULL;
    if (b->violation != NULL)
        fail_msg("core invariant violated: %s", b->violation);
    assert_int_equal(nlive, 0); /* every dma_map was unmapped */
    assert_int_equal(rc, 0);
}

static void check(qbus *b)
{
    if (b->violation == NULL)
        b->violation = pcam_bus_check_invariants(&b->bus);
}

void qbus_step(qbus *b, uint32_t max_wait_ms)
{
    uint64_t now, d;

    if (pcam_qemu_irq(b->q, b->irq)) {
        pcam_bus_intr(&b->bus);
        b->intrs++;
        check(b);
        return;
    }
    now = pcam_posix_now_ns();
    d = pcam_bus_next_deadline(&b->bus);
    if (d <= now) {
        pcam_bus_tick(&b->bus);
        b->ticks++;
        check(b);
        return;
    }
    if (d != UINT64_MAX && (d - now) / 1000000u < max_wait_ms)
        max_wait_ms = (uint32_t)((d - now + 999999u) / 1000000u);
    if (pcam_qemu_wait_irq(b->q, b->irq, max_wait_ms) < 0)
        fail_msg("QEMU failed: %s", pcam_qemu_error(b->q));
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
