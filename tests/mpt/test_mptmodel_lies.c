/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/mpt and the core against the scriptable IOC (model/mptm.c, label
 * sim): each lie an IOC can tell gets the outcome docs/mpt.md promises,
 * checked one at a time with hand-made replies: an IOC that never becomes
 * ready or stalls in the handshake, a DMA area too small; context replies
 * for live, finished and unknown commands; address replies with a
 * residual, a transfer count beyond the command, a length beyond the frame,
 * another target, in a frame not lent or not ours; autosense longer than
 * the CCB's buffer; events for a target outside the bus and a bus reset;
 * device added and not responding events and a rescan request, which the
 * core follows (pcam_bus_hal_device_changed(): lost at once, or scanned);
 * a lost reply (the core's timer sends ABORT TASK for it); a fault, after
 * which the IOC is reset and brought up again. Every CCB
 * completes exactly once, and the log says what was refused.
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
#include "pcam/pcam_mpt.h"
#include "mptm.h"

static char logbuf[8192];

static void log_line(pcam_log_level lv, const char *line)
{
    (void)lv;
    size_t n = strlen(logbuf);
    if (n + strlen(line) + 2 < sizeof logbuf) {
        strcat(logbuf, line);
        strcat(logbuf, "\n");
    }
}

typedef struct rig {
    pcam_mpt sc;
    pcam_platform plat;
    pcam_hal hal;
    pcam_bus bus;
    pcam_lun luns[PCAM_BUS_LUNS(16, 1)];
} rig;

typedef struct tccb {
    pcam_ccb ccb;
    unsigned done;
    uint8_t *data;
    uint8_t *sense;
} tccb;

static void on_done(pcam_ccb *c)
{
    ((tccb *)(void *)c)->done++;
}

static pcam_err attach(rig *r, uint8_t lie, size_t dma_len)
{
    pcam_mpt_config cfg;
    logbuf[0] = '\0';
    mptm_start(NULL, 0, lie, &r->plat, log_line);
    memset(&cfg, 0, sizeof cfg);
    cfg.dma_va = mptm_dma();
    cfg.dma_bus = MPTM_DMA_BUS;
    cfg.dma_len = dma_len;
    return pcam_mpt_attach(&r->sc, &cfg, &r->plat, &r->hal);
}

static rig *up(void)
{
    rig *r = calloc(1, sizeof *r);
    pcam_bus_config bc;
    assert_int_equal(attach(r, MPTM_HONEST, PCAM_MPT_DMA_BYTES), PCAM_OK);
    pcam_bus_config_defaults(&bc);
    bc.luns_per_target = 1;
    assert_int_equal(pcam_bus_init(&r->bus, &bc, &r->hal, &r->plat, r->luns, PCAM_BUS_LUNS(16, 1)), PCAM_OK);
    assert_int_equal(mptm_state() & 0xF0000000u, MPTM_OPERATIONAL);
    return r;
}

static void down(rig *r)
{
    pcam_bus_shutdown(&r->bus);
    pcam_mpt_stop(&r->sc);
    mptm_end();
    free(r);
}

static void intr(rig *r)
{
    pcam_bus_intr(&r->bus);
    assert_null(pcam_bus_check_invariants(&r->bus));
}

static uint32_t last_ctx(void)
{
    uint8_t func = 0;
    return mptm_posted_ctx(mptm_nposted() - 1, &func);
}

/* A one-block READ(10) of target t, no retries; returns the context the
 * back-end posted it with. */
static uint32_t read1(rig *r, tccb *c, uint8_t t)
{
    memset(c, 0, sizeof *c);
    c->data = calloc(1, 512);
    c->sense = calloc(1, 18);
    c->ccb.func = PCAM_FN_SCSI_IO;
    c->ccb.target = t;
    c->ccb.done = on_done;
    c->ccb.u.io.cdb[0] = 0x28;
    c->ccb.u.io.cdb[8] = 1;
    c->ccb.u.io.cdb_len = 10;
    c->ccb.u.io.dir = PCAM_DIR_IN;
    c->ccb.u.io.data = c->data;
    c->ccb.u.io.data_len = 512;
    c->ccb.u.io.sense = c->sense;
    c->ccb.u.io.sense_len = 18;
    unsigned before = mptm_nposted();
    pcam_action(&r->bus, &c->ccb);
    assert_int_equal(mptm_nposted(), before + 1);
    uint8_t func = 0xFF;
    uint32_t ctx = mptm_posted_ctx(before, &func);
    assert_int_equal(func, 0x00); /* SCSI IO */
    return ctx;
}

static void release(tccb *c)
{
    free(c->data);
    free(c->sense);
}

/* A SCSI IO address reply in the next lent frame (len: its MsgLength). */
static void io_reply(uint32_t ctx, uint8_t target, uint8_t len, uint16_t ioc, uint8_t status,
                     uint8_t state, uint32_t xfer, uint32_t sense_count)
{
    uint32_t f = mptm_take_free();
    uint8_t *p = mptm_at(f, 128);
    assert_non_null(p);
    memset(p, 0, 128);
    p[0] = target;
    p[2] = len;
    p[3] = 0x00;
    mptm_put32(p + 8, ctx);
    p[12] = status;
    p[13] = state;
    mptm_put16(p + 14, ioc);
    mptm_put32(p + 20, xfer);
    mptm_put32(p + 24, sense_count);
    mptm_push(0x80000000u | (f >> 1));
}

/* An event notification reply: event, data words, the first data bytes. */
static void event_reply(uint32_t event, uint16_t words, uint8_t len, const uint8_t *data, size_t n)
{
    uint32_t f = mptm_take_free();
    uint8_t *p = mptm_at(f, 128);
    assert_non_null(p);
    memset(p, 0, 128);
    mptm_put16(p + 0, words);
    p[2] = len;
    p[3] = 0x07;
    mptm_put32(p + 20, event);
    if (n != 0)
        memcpy(p + 28, data, n);
    mptm_push(0x80000000u | (f >> 1));
}

static void test_bringup_lies(void **state)
{
    rig *r = calloc(1, sizeof *r);
    (void)state;
    assert_int_equal(attach(r, MPTM_HONEST, PCAM_MPT_DMA_BYTES - 1), PCAM_ERR_RANGE);
    mptm_end();
    assert_int_equal(attach(r, MPTM_NEVER_READY, PCAM_MPT_DMA_BYTES), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logbuf, "never became ready"));
    mptm_end();
    assert_int_equal(attach(r, MPTM_STALL, PCAM_MPT_DMA_BYTES), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logbuf, "handshake timed out"));
    mptm_end();
    free(r);
}

static void test_context_replies(void **state)
{
    rig *r = up();
    pcam_mpt_stats st;
    tccb c;
    (void)state;
    uint32_t ctx = read1(r, &c, 0);
    assert_int_equal(ctx & 0x80000000u, 0);
    mptm_push(0x00400000u); /* bits no context of ours has */
    mptm_push(0x000000FFu); /* a slot that does not exist */
    mptm_push(ctx + 0x100u); /* the slot's next generation, not yet used */
    intr(r);
    assert_int_equal(c.done, 0);
    assert_non_null(strstr(logbuf, "unknown context"));
    mptm_push(ctx);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 0);
    mptm_push(ctx); /* the same command again */
    intr(r);
    assert_int_equal(c.done, 1);
    pcam_mpt_get_stats(&r->sc, &st);
    assert_int_equal(st.bad_replies, 2);
    assert_int_equal(st.stale_replies, 2);
    release(&c);
    down(r);
}

/* Answer whatever the core sent last until c has completed. */
static void settle(rig *r, tccb *c)
{
    for (int k = 0; k < 8 && c->done == 0; k++) {
        mptm_push(last_ctx());
        intr(r);
    }
    assert_int_equal(c->done, 1);
}

static void test_address_replies(void **state)
{
    rig *r = up();
    pcam_mpt_stats st;
    tccb c;
    (void)state;
    /* A short read: 256 of 512 bytes. */
    uint32_t ctx = read1(r, &c, 0);
    io_reply(ctx, 0, 9, 0x45, 0x00, 0x00, 256, 0);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 256);
    release(&c);
    /* More moved than asked. */
    ctx = read1(r, &c, 0);
    io_reply(ctx, 0, 9, 0x00, 0x00, 0x00, 4096, 0);
    intr(r);
    assert_non_null(strstr(logbuf, "more data than asked"));
    settle(r, &c);
    printf("transfer count beyond the command: status 0x%x\n", c.ccb.status & PCAM_STATUS_MASK);
    release(&c);
    /* A length beyond the frame: refused, the command ends with an error
     * (which the core may retry). */
    ctx = read1(r, &c, 0);
    io_reply(ctx, 0, 0x40, 0x00, 0x00, 0x00, 512, 0);
    intr(r);
    assert_non_null(strstr(logbuf, "malformed reply frame"));
    settle(r, &c);
    release(&c);
    /* A reply naming another target. */
    ctx = read1(r, &c, 2);
    io_reply(ctx, 5, 9, 0x00, 0x00, 0x00, 512, 0);
    intr(r);
    assert_non_null(strstr(logbuf, "names another target"));
    settle(r, &c);
    release(&c);
    /* Frames that are not the IOC's to give: a request frame, a misaligned
     * one, then one of ours given back twice. */
    ctx = read1(r, &c, 0);
    uint32_t f = mptm_take_free();
    mptm_push(0x80000000u | (MPTM_DMA_BUS >> 1));
    mptm_push(0x80000000u | ((f + 4u) >> 1));
    intr(r);
    assert_non_null(strstr(logbuf, "outside the reply frames"));
    assert_int_equal(c.done, 0);
    uint8_t *p = mptm_at(f, 128);
    memset(p, 0, 128);
    p[2] = 9;
    mptm_put32(p + 8, ctx);
    unsigned lent = mptm_free_count();
    mptm_push(0x80000000u | (f >> 1));
    mptm_push(0x80000000u | (f >> 1)); /* again in the same drain: no longer the IOC's */
    intr(r);
    assert_int_equal(c.done, 1);
    assert_non_null(strstr(logbuf, "does not hold"));
    assert_int_equal(mptm_free_count(), lent + 1); /* lent once again, not twice */
    pcam_mpt_get_stats(&r->sc, &st);
    assert_int_equal(st.bad_replies, 5); /* length, target, request frame, misaligned, not held */
    release(&c);
    down(r);
}

static void test_autosense_clamped(void **state)
{
    rig *r = up();
    tccb c;
    (void)state;
    uint32_t ctx = read1(r, &c, 0);
    /* The IOC wrote 64 bytes of sense and claims 200: the CCB has 18. */
    uint32_t fbus = 0; /* its request frame, found by its context */
    for (unsigned k = 0; k < 65 && fbus == 0; k++) {
        const uint8_t *q = mptm_at(MPTM_DMA_BUS + 128u * k, 48);
        if (q != NULL && mptm_get32(q + 8) == ctx && q[3] == 0x00)
            fbus = MPTM_DMA_BUS + 128u * k;
    }
    assert_int_not_equal(fbus, 0);
    uint8_t *sense = mptm_at(mptm_get32(mptm_at(fbus, 48) + 44), 64);
    assert_non_null(sense);
    for (unsigned k = 0; k < 64; k++)
        sense[k] = (uint8_t)(0x40 + k);
    sense[0] = 0x70;
    sense[2] = 0x03; /* MEDIUM ERROR */
    sense[7] = 10;
    sense[12] = 0x11;
    sense[13] = 0x00;
    io_reply(ctx, 0, 9, 0x45, 0x02, 0x01, 0, 200);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_memory_equal(c.sense, sense, 18);
    assert_int_equal(c.ccb.u.io.sense_resid, 0);
    release(&c);
    down(r);
}

static void test_events(void **state)
{
    static const uint8_t far_target[4] = {32, 0, 0x04, 0};
    rig *r = up();
    pcam_mpt_stats st;
    tccb c;
    (void)state;
    uint32_t ctx = read1(r, &c, 0);
    event_reply(0x0F, 3, 10, far_target, sizeof far_target); /* device status, target 32 */
    intr(r);
    assert_non_null(strstr(logbuf, "outside the bus"));
    event_reply(0x0F, 200, 10, far_target, sizeof far_target); /* data past its reply */
    intr(r);
    assert_non_null(strstr(logbuf, "malformed reply frame"));
    assert_int_equal(c.done, 0);
    /* A bus reset event: the command is forgotten, the core sends it again. */
    unsigned before = mptm_nposted();
    event_reply(0x04, 0, 7, NULL, 0);
    intr(r);
    mptm_push(ctx); /* the old command's late answer: stale */
    for (int k = 0; k < 200 && mptm_nposted() == before; k++) {
        mptm_advance(100000000u);
        pcam_bus_tick(&r->bus);
    }
    assert_true(mptm_nposted() > before);
    intr(r);
    assert_int_equal(c.done, 0);
    settle(r, &c);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    pcam_mpt_get_stats(&r->sc, &st);
    assert_int_equal(st.bus_resets, 1);
    assert_int_equal(st.stale_replies, 1);
    release(&c);
    down(r);
}

/* Device events (pcam_bus_hal_device_changed()): the async callbacks per
 * target at LUN 0, and a run of the core's own scan answered with a disk at
 * one ID (a made-up INQUIRY: SCSI-2, direct access) and DEVICE NOT THERE
 * everywhere else, counting the INQUIRYs each target got. */
static unsigned found[16], lost[16], inquiries[16];

static void on_async(void *arg, uint32_t code, uint8_t t, uint8_t l)
{
    (void)arg;
    if (t < 16 && l == 0) {
        found[t] += code == PCAM_AC_FOUND_DEVICE;
        lost[t] += code == PCAM_AC_LOST_DEVICE;
    }
}

static uint32_t func_ccb(rig *r, uint8_t func, uint8_t t)
{
    tccb c;
    memset(&c, 0, sizeof c);
    c.ccb.func = func;
    c.ccb.target = t;
    c.ccb.done = on_done;
    c.ccb.u.async.events = PCAM_AC_FOUND_DEVICE | PCAM_AC_LOST_DEVICE;
    c.ccb.u.async.cb = on_async;
    if (func == PCAM_FN_GET_DEV)
        memset(&c.ccb.u.dev, 0, sizeof c.ccb.u.dev);
    pcam_action(&r->bus, &c.ccb);
    assert_int_equal(c.done, 1);
    return c.ccb.status & PCAM_STATUS_MASK;
}

static void answer_scan(rig *r, unsigned *next, uint8_t disk)
{
    static const uint8_t inq[36] = {0x00, 0x00, 0x02, 0x02, 31, 0, 0, 0, 'P', 'C', 'A', 'M'};
    memset(inquiries, 0, sizeof inquiries);
    for (int round = 0; round < 200 && *next < mptm_nposted(); round++) {
        while (*next < mptm_nposted()) {
            const uint8_t *f = mptm_posted_frame((*next)++);
            assert_non_null(f);
            if (f[3] != 0x00)
                continue;
            uint32_t ctx = mptm_get32(f + 8);
            assert_true(f[0] < 16);
            if (f[24] == 0x12)
                inquiries[f[0]]++;
            if (f[0] != disk) {
                io_reply(ctx, f[0], 9, 0x0043, 0, 0, 0, 0);
                continue;
            }
            if (f[24] == 0x12) {
                uint8_t *d = mptm_mapped(mptm_get32(f + 52), sizeof inq);
                assert_non_null(d);
                memcpy(d, inq, sizeof inq);
            }
            mptm_push(ctx); /* GOOD, every byte */
        }
        intr(r);
    }
}

static void test_device_events(void **state)
{
    static const uint8_t added[4] = {3, 0, 0x03, 0}, gone[4] = {3, 0, 0x04, 0};
    rig *r = up();
    pcam_mpt_stats st;
    (void)state;
    memset(found, 0, sizeof found);
    memset(lost, 0, sizeof lost);
    assert_int_equal(func_ccb(r, PCAM_FN_SET_ASYNC, 0), PCAM_REQ_CMP);
    assert_int_equal(func_ccb(r, PCAM_FN_GET_DEV, 3), PCAM_DEV_NOT_THERE);
    /* A device added at ID 3: the core scans that target, and only it. */
    unsigned next = mptm_nposted();
    event_reply(0x0F, 3, 10, added, sizeof added);
    intr(r);
    assert_true(mptm_nposted() > next);
    assert_int_equal(mptm_posted_frame(next)[24], 0x12);
    answer_scan(r, &next, 3);
    assert_int_equal(found[3], 1);
    assert_int_equal(func_ccb(r, PCAM_FN_GET_DEV, 3), PCAM_REQ_CMP);
    for (unsigned t = 0; t < 16; t++)
        assert_int_equal(inquiries[t], t == 3 ? 1 : 0);
    /* Not responding: lost at once, nothing sent to ask. */
    event_reply(0x0F, 3, 10, gone, sizeof gone);
    intr(r);
    assert_int_equal(lost[3], 1);
    assert_int_equal(mptm_nposted(), next);
    assert_int_equal(func_ccb(r, PCAM_FN_GET_DEV, 3), PCAM_DEV_NOT_THERE);
    /* The IOC asks for a rescan: every ID but the initiator's (8) is
     * probed, and the disk is back. */
    event_reply(0x06, 0, 7, NULL, 0);
    intr(r);
    answer_scan(r, &next, 3);
    assert_int_equal(found[3], 2);
    for (unsigned t = 0; t < 16; t++)
        assert_int_equal(inquiries[t], t == 8 ? 0 : 1);
    pcam_mpt_get_stats(&r->sc, &st);
    assert_int_equal(st.dev_changes, 3);
    /* What the entry point refuses, changing nothing. */
    assert_int_equal(pcam_bus_hal_device_changed(NULL, 3, 0, true), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_hal_device_changed(&r->bus, 16, 0, true), PCAM_ERR_RANGE);
    assert_int_equal(pcam_bus_hal_device_changed(&r->bus, 8, 0, true), PCAM_ERR_RANGE);
    assert_int_equal(pcam_bus_hal_device_changed(&r->bus, 3, 1, false), PCAM_ERR_RANGE);
    assert_int_equal(pcam_bus_hal_device_changed(&r->bus, PCAM_WILDCARD, 0, false), PCAM_ERR_RANGE);
    assert_int_equal(mptm_nposted(), next);
    assert_int_equal(lost[3], 1);
    down(r);
}

/* A task management reply in the next lent frame. */
static void tm_reply(uint32_t ctx, uint8_t type, uint8_t response, uint16_t ioc)
{
    uint32_t f = mptm_take_free();
    uint8_t *p = mptm_at(f, 128);
    assert_non_null(p);
    memset(p, 0, 128);
    p[2] = 6;
    p[3] = 0x01;
    p[4] = response;
    p[5] = type;
    mptm_put32(p + 8, ctx);
    mptm_put16(p + 14, ioc);
    mptm_push(0x80000000u | (f >> 1));
}

static void test_lost_reply(void **state)
{
    rig *r = up();
    tccb c;
    (void)state;
    uint32_t ctx = read1(r, &c, 0);
    /* The IOC never answers: the core's timer (10 s by default) sends
     * ABORT TASK for it. */
    unsigned before = mptm_nposted();
    for (int k = 0; k < 400 && mptm_nposted() == before; k++) {
        mptm_advance(50000000u);
        pcam_bus_tick(&r->bus);
    }
    assert_int_equal(mptm_nposted(), before + 1);
    uint8_t func = 0;
    uint32_t tm_ctx = mptm_posted_ctx(before, &func);
    assert_int_equal(func, 0x01);
    const uint8_t *tm = NULL;
    for (unsigned k = 0; k < 65 && tm == NULL; k++) {
        const uint8_t *q = mptm_at(MPTM_DMA_BUS + 128u * k, 52);
        if (q != NULL && q[3] == 0x01 && mptm_get32(q + 8) == tm_ctx)
            tm = q;
    }
    assert_non_null(tm);
    assert_int_equal(tm[5], 0x01);                /* ABORT TASK */
    assert_int_equal(mptm_get32(tm + 48), ctx);   /* of our read */
    assert_int_equal(c.done, 0);
    /* The IOC terminates it, then answers the abort. */
    io_reply(ctx, 0, 9, 0x48, 0x00, 0x04, 0, 0);
    tm_reply(tm_ctx, 0x01, 0x00, 0x0000);
    intr(r);
    for (int k = 0; k < 50 && c.done == 0; k++) {
        if (mptm_nposted() > before + 1) /* sent again: answer it */
            mptm_push(last_ctx());
        mptm_advance(50000000u);
        pcam_bus_tick(&r->bus);
        intr(r);
    }
    assert_int_equal(c.done, 1);
    printf("lost reply: status 0x%x, recovery 0x%x\n", c.ccb.status & PCAM_STATUS_MASK, c.ccb.u.io.recovery);
    assert_true(c.ccb.u.io.recovery & PCAM_RCV_ABORT);
    release(&c);
    down(r);
}

static void test_fault(void **state)
{
    rig *r = up();
    pcam_mpt_stats st;
    tccb c;
    (void)state;
    (void)read1(r, &c, 0);
    mptm_set_state(MPTM_FAULT | 0x0006u);
    mptm_push(0x00400000u); /* any interrupt: the poll finds the fault */
    intr(r);
    pcam_mpt_get_stats(&r->sc, &st);
    assert_true(st.faults >= 1);
    assert_int_equal(st.last_fault, 0x0006);
    assert_true(st.ioc_resets >= 1);
    assert_int_equal(mptm_state() & 0xF0000000u, MPTM_OPERATIONAL); /* brought up again */
    assert_non_null(strstr(logbuf, "left the operational state"));
    assert_true(c.done <= 1);
    pcam_bus_shutdown(&r->bus);
    assert_int_equal(c.done, 1); /* at the latest at shutdown */
    pcam_mpt_stop(&r->sc);
    mptm_end();
    free(r);
    release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bringup_lies),
        cmocka_unit_test(test_context_replies),
        cmocka_unit_test(test_address_replies),
        cmocka_unit_test(test_autosense_clamped),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_device_events),
        cmocka_unit_test(test_lost_reply),
        cmocka_unit_test(test_fault),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
