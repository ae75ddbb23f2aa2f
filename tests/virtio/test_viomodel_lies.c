/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/virtio and the core against the scriptable device (model/viom.c,
 * label sim): each lie a device can tell gets the outcome docs/virtio.md
 * promises, one at a time: capability lists that are missing a region,
 * loop or point outside the space; a DMA area too small, a device that
 * never resets, one that refuses the features, one without VERSION_1;
 * completions for a request never sent, for an id past the ring, with a
 * length no buffer has; a residual larger than the transfer; sense longer
 * than the CCB's buffer; a used index moved past what was made available;
 * events for an address outside the bus, too short, and one buffer named
 * twice in one drain; a device reset answered BAD_TARGET; a device that
 * needs a reset; and the embedder's and the core's mistakes handed straight
 * to the ops (bad commands, lists that do not add up, one reset too many).
 * Every CCB completes exactly once, the device model aborts
 * the run if the back-end points it at memory that is not its own, and
 * the log says what was refused.
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
#include "pcam/pcam_virtio.h"
#include "viom.h"

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
    pcam_virtio sc;
    pcam_platform plat;
    pcam_virtio_config cfg;
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

static rig *up(void)
{
    rig *r = calloc(1, sizeof *r);
    pcam_bus_config bc;
    logbuf[0] = '\0';
    viom_start(NULL, 0, VIOM_HONEST, &r->plat, &r->cfg, log_line);
    assert_int_equal(pcam_virtio_attach(&r->sc, &r->cfg, &r->plat, &r->hal), PCAM_OK);
    pcam_bus_config_defaults(&bc);
    bc.luns_per_target = 1;
    bc.abort_timeout_ms = 200;
    bc.reset_settle_ms = 10;
    assert_int_equal(pcam_bus_init(&r->bus, &bc, &r->hal, &r->plat, r->luns, PCAM_BUS_LUNS(16, 1)), PCAM_OK);
    assert_int_equal(viom_pending(VIOM_EVT), PCAM_VIRTIO_EVENTS);
    return r;
}

static void down(rig *r)
{
    pcam_bus_shutdown(&r->bus);
    pcam_virtio_stop(&r->sc);
    assert_int_equal(viom_mapped(), 0);
    viom_end();
    free(r);
}

static void intr(rig *r)
{
    pcam_bus_intr(&r->bus);
    assert_null(pcam_bus_check_invariants(&r->bus));
}

static pcam_virtio_stats stats(rig *r)
{
    pcam_virtio_stats st;
    pcam_virtio_get_stats(&r->sc, &st);
    return st;
}

/* A one-block READ(10) of target t, no retries, handed to the device. */
static void read1(rig *r, tccb *c, uint8_t t)
{
    memset(c, 0, sizeof *c);
    c->data = calloc(1, 512);
    c->sense = calloc(1, 18);
    c->ccb.func = PCAM_FN_SCSI_IO;
    c->ccb.target = t;
    c->ccb.done = on_done;
    c->ccb.timeout_ms = 1000;
    c->ccb.u.io.cdb[0] = 0x28;
    c->ccb.u.io.cdb[8] = 1;
    c->ccb.u.io.cdb_len = 10;
    c->ccb.u.io.dir = PCAM_DIR_IN;
    c->ccb.u.io.data = c->data;
    c->ccb.u.io.data_len = 512;
    c->ccb.u.io.sense = c->sense;
    c->ccb.u.io.sense_len = 18;
    unsigned before = viom_pending(VIOM_REQ);
    pcam_action(&r->bus, &c->ccb);
    assert_int_equal(viom_pending(VIOM_REQ), before + 1);
    uint8_t op;
    int dir;
    uint32_t len;
    viom_request(before, &op, &dir, &len);
    assert_int_equal(op, 0x28);
    assert_int_equal(dir, 1);
    assert_int_equal(len, 512);
}

static void release(tccb *c)
{
    free(c->data);
    free(c->sense);
}

static void test_caps(void **state)
{
    uint8_t cfg[256];
    pcam_virtio_caps caps;
    (void)state;
    viom_cfgspace(cfg);
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_OK);
    assert_int_equal(caps.common.bar, 4);
    assert_int_equal(caps.isr.offset, 0x1000);
    assert_int_equal(caps.device.offset, 0x2000);
    assert_int_equal(caps.notify.offset, 0x3000);
    assert_int_equal(caps.notify_mult, 4);
    /* Without the notify capability (the list ends at the device one): a legacy-only device. */
    viom_cfgspace(cfg);
    cfg[0x61] = 0;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_ERR_UNSUPPORTED);
    /* A list that loops. */
    viom_cfgspace(cfg);
    cfg[0x71] = 0x40;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_ERR_FORMAT);
    /* A pointer into the header, and one past a 128-byte copy. */
    viom_cfgspace(cfg);
    cfg[0x34] = 0x10;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_ERR_FORMAT);
    viom_cfgspace(cfg);
    assert_int_equal(pcam_virtio_parse_caps(cfg, 0x78, &caps), PCAM_ERR_FORMAT);
    /* A notify capability too short for its multiplier. */
    viom_cfgspace(cfg);
    cfg[0x72] = 16;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_ERR_FORMAT);
    /* A common region too small for the queue registers. */
    viom_cfgspace(cfg);
    cfg[0x4C] = 0x20;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_ERR_FORMAT);
    /* No capability list at all. */
    viom_cfgspace(cfg);
    cfg[6] = 0;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps), PCAM_ERR_UNSUPPORTED);
    assert_int_equal(pcam_virtio_parse_caps(NULL, 256, &caps), PCAM_ERR_NULL);
}

static void test_attach_refusals(void **state)
{
    static pcam_virtio sc;
    pcam_platform plat;
    pcam_virtio_config cfg;
    pcam_hal hal;
    static const uint8_t no_v1[8] = {0, 0, 0, 0, 1, 0, 0, 0}; /* XOR: VERSION_1 off */
    (void)state;
    viom_start(NULL, 0, VIOM_HONEST, &plat, &cfg, log_line);
    cfg.dma_len = PCAM_VIRTIO_DMA_BYTES - 1;
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_RANGE);
    cfg.dma_len = PCAM_VIRTIO_DMA_BYTES;
    cfg.max_targets = 7;
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_RANGE);
    cfg.max_targets = 0;
    assert_int_equal(pcam_virtio_attach_abi(sizeof sc - 8, &sc, &cfg, &plat, &hal), PCAM_ERR_ABI);
    plat.read16 = NULL;
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_NULL);
    viom_end();
    logbuf[0] = '\0';
    viom_start(NULL, 0, VIOM_NEVER_RESETS, &plat, &cfg, log_line);
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logbuf, "did not reset"));
    viom_end();
    logbuf[0] = '\0';
    viom_start(NULL, 0, VIOM_REFUSES, &plat, &cfg, log_line);
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logbuf, "refused the features"));
    viom_end();
    logbuf[0] = '\0';
    uint8_t in[16];
    memset(in, 0, sizeof in);
    memcpy(in, no_v1, 8);
    in[8] = in[9] = in[10] = 64; /* queue sizes 128 */
    in[11] = 126;
    in[12] = 255;
    in[13] = 16;
    in[14] = 255;
    viom_start(in, sizeof in, VIOM_LIE_CONFIG, &plat, &cfg, log_line);
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logbuf, "VERSION_1"));
    viom_end();
    /* Queues smaller than the back-end's. */
    logbuf[0] = '\0';
    memset(in, 0, 8);
    in[8] = in[9] = in[10] = 2; /* 4 entries */
    viom_start(in, sizeof in, VIOM_LIE_CONFIG, &plat, &cfg, log_line);
    assert_int_equal(pcam_virtio_attach(&sc, &cfg, &plat, &hal), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logbuf, "queue too small"));
    viom_end();
}

static void test_honest_and_sense(void **state)
{
    rig *r = up();
    tccb c;
    (void)state;
    read1(r, &c, 0);
    viom_complete(0, 0, 0, 0, 0, 0x5A, -1, -1);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(c.data[0], 0x5A);
    assert_int_equal(c.data[511], 0x5A);
    release(&c);
    /* CHECK CONDITION claiming 200 sense bytes: 18 land in the CCB's buffer (exact heap size). */
    read1(r, &c, 0);
    viom_complete(0, 0, 0x02, 0, 200, 0, -1, -1);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.sense[2], 0x05);
    assert_int_equal(c.sense[12], 0x24);
    release(&c);
    /* A residual larger than the transfer. */
    read1(r, &c, 0);
    viom_complete(0, 0, 0, 4096, 0, 0, -1, -1);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_DATA_RUN_ERR);
    assert_non_null(strstr(logbuf, "residual larger"));
    release(&c);
    /* BAD_TARGET: nobody there. */
    read1(r, &c, 5);
    viom_complete(0, 3, 0, 0, 0, 0, -1, -1);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_SEL_TIMEOUT);
    release(&c);
    assert_int_equal(stats(r).bad_used, 0);
    down(r);
}

/* Time passes and the device answers whatever is asked (fill 0x22, task
 * management FUNCTION COMPLETE) until the CCB completes or 20 steps pass;
 * then the core's settle time after a reset. */
static void settle(rig *r, tccb *c)
{
    for (int k = 0; k < 20 && c->done == 0; k++) {
        viom_advance(100000000u);
        pcam_bus_tick(&r->bus);
        intr(r);
        if (viom_pending(VIOM_REQ) != 0)
            viom_complete(0, 0, 0, 0, 0, 0x22, -1, -1);
        if (viom_pending(VIOM_CTL) != 0)
            viom_ctl_answer(0, 0);
        intr(r);
    }
    viom_advance(3000000000u);
    pcam_bus_tick(&r->bus);
    intr(r);
}

static void test_used_lies(void **state)
{
    rig *r = up();
    tccb c;
    (void)state;
    read1(r, &c, 0);
    uint16_t head = viom_pending_head(VIOM_REQ, 0);
    /* A completion for a request never sent (another slot): refused, the read goes on. */
    viom_push_used(VIOM_REQ, (uint32_t)(head + 1u) % 64u, 120);
    intr(r);
    assert_int_equal(stats(r).bad_used, 1);
    assert_non_null(strstr(logbuf, "not in flight"));
    assert_int_equal(c.done, 0);
    /* It used up the one entry one head allows: the real one is now past
     * what was made available, the ring is refused and the core resets;
     * the read completes once. */
    viom_complete(0, 0, 0, 0, 0, 0x11, -1, -1);
    intr(r);
    assert_int_equal(stats(r).bad_index, 1);
    settle(r, &c);
    assert_int_equal(c.done, 1);
    release(&c);
    /* An id past the ring. */
    read1(r, &c, 0);
    viom_complete(0, 0, 0, 0, 0, 0x11, 200, -1);
    intr(r);
    assert_int_equal(stats(r).bad_used, 2);
    assert_int_equal(c.done, 0);
    settle(r, &c);
    assert_int_equal(c.done, 1);
    release(&c);
    /* A length shorter than a response header: the command ends, once. */
    read1(r, &c, 0);
    viom_complete(0, 0, 0, 0, 0, 0, -1, 4);
    intr(r);
    assert_int_equal(stats(r).bad_used, 3);
    assert_non_null(strstr(logbuf, "used length impossible"));
    assert_int_equal(c.done, 1);
    assert_int_equal(c.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP_ERR);
    release(&c);
    /* A length past the buffers. */
    read1(r, &c, 0);
    viom_complete(0, 0, 0, 0, 0, 0, -1, 108 + 512 + 1);
    intr(r);
    assert_int_equal(stats(r).bad_used, 4);
    assert_int_equal(c.done, 1);
    release(&c);
    down(r);
}

static void test_index_past_ring(void **state)
{
    rig *r = up();
    tccb c;
    (void)state;
    read1(r, &c, 0);
    unsigned resets = viom_resets();
    viom_bump_used(VIOM_REQ, 5); /* five entries where one was made available */
    intr(r);
    assert_int_equal(stats(r).bad_index, 1);
    assert_non_null(strstr(logbuf, "used index past"));
    settle(r, &c);
    assert_true(viom_resets() > resets); /* the core reset the device */
    assert_int_equal(c.done, 1);
    release(&c);
    down(r);
}

static void test_events(void **state)
{
    rig *r = up();
    (void)state;
    static const uint8_t far[8] = {1, 20, 0x40, 0, 0, 0, 0, 0};
    static const uint8_t bad[8] = {2, 3, 0x40, 0, 0, 0, 0, 0};
    static const uint8_t ok[8] = {1, 3, 0x40, 0, 0, 0, 0, 0};
    assert_true(viom_event(1, far, 2, -1));
    intr(r);
    assert_true(viom_event(1, bad, 2, -1));
    intr(r);
    assert_true(viom_event(1, ok, 2, 8)); /* too short */
    intr(r);
    assert_int_equal(stats(r).bad_events, 3);
    assert_non_null(strstr(logbuf, "outside the bus"));
    assert_true(viom_event(1, ok, 2, -1));
    intr(r);
    assert_true(viom_event(1, ok, 1, -1));
    intr(r);
    pcam_virtio_stats st = stats(r);
    assert_int_equal(st.dev_removed, 1);
    assert_int_equal(st.dev_added, 1);
    assert_int_equal(st.events, 5);
    /* Every buffer was lent again. */
    assert_int_equal(viom_pending(VIOM_EVT), PCAM_VIRTIO_EVENTS);
    /* One buffer named twice in one drain: the second is refused, the
     * buffer lent once (the model aborts on a head made available twice). */
    uint16_t h = viom_pending_head(VIOM_EVT, 0);
    assert_true(viom_event(0x80000000u, ok, 0, -1));
    viom_push_used(VIOM_EVT, h, 16);
    intr(r);
    assert_int_equal(stats(r).bad_used, 1);
    assert_int_equal(stats(r).events_missed, 1);
    assert_int_equal(viom_pending(VIOM_EVT), PCAM_VIRTIO_EVENTS);
    down(r);
}

static void test_reset_answers_and_needs_reset(void **state)
{
    rig *r = up();
    tccb rs;
    (void)state;
    memset(&rs, 0, sizeof rs);
    rs.ccb.func = PCAM_FN_RESET_DEV;
    rs.ccb.target = 4;
    rs.ccb.flags = PCAM_CCB_LUN_RESET;
    rs.ccb.done = on_done;
    pcam_action(&r->bus, &rs.ccb);
    assert_int_equal(viom_pending(VIOM_CTL), 1);
    viom_ctl_answer(0, 3); /* BAD_TARGET */
    intr(r);
    assert_int_equal(rs.done, 1);
    assert_int_equal(rs.ccb.status & PCAM_STATUS_MASK, PCAM_SEL_TIMEOUT);
    /* A device that needs a reset: the core resets it. */
    unsigned resets = viom_resets();
    viom_needs_reset();
    intr(r);
    for (int k = 0; k < 10; k++) {
        viom_advance(100000000u);
        pcam_bus_tick(&r->bus);
        if (viom_pending(VIOM_CTL) != 0)
            viom_ctl_answer(0, 0);
        intr(r);
    }
    assert_true(viom_resets() > resets);
    assert_non_null(strstr(logbuf, "needs a reset"));
    tccb c;
    read1(r, &c, 0);
    viom_complete(0, 0, 0, 0, 0, 0x33, -1, -1);
    intr(r);
    assert_int_equal(c.done, 1);
    assert_int_equal(c.data[100], 0x33);
    release(&c);
    down(r);
}

/* The embedder's and the core's mistakes, refused with an error and no
 * write: bad commands handed straight to the ops, a scatter-gather list
 * that does not add up, management requests out of range or one too many,
 * and the capability parser's remaining refusals. */
static void test_refusals(void **state)
{
    rig *r = up();
    const pcam_hal_cmd_ops *ops = r->hal.cmd;
    uint8_t cdb[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0}, buf[1024];
    pcam_sg sg[40];
    pcam_hal_cmd c;
    pcam_hal_caps caps;
    (void)state;
    r->hal.ops->get_caps(r->hal.sc, &caps);
    assert_int_equal(caps.max_targets, 16);
    assert_int_equal(caps.initiator_id, 15);
    assert_int_equal(caps.max_sg, PCAM_VIRTIO_MAX_SG);
    assert_int_equal(r->hal.ops->set_xfer(r->hal.sc, 16, NULL), PCAM_ERR_RANGE);
    memset(&c, 0, sizeof c);
    assert_int_equal(ops->start(r->hal.sc, NULL), PCAM_ERR_NULL);
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_NULL); /* no CDB */
    c.cdb = cdb;
    c.cdb_len = 10;
    c.target = 15; /* the stand-in initiator */
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_RANGE);
    c.target = 16;
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_RANGE);
    c.target = 0;
    c.cdb_len = 17;
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_RANGE);
    c.cdb_len = 10;
    c.dir = PCAM_DIR_IN;
    c.data_len = 1024;
    c.sg_count = 2; /* a list shorter than data_len */
    c.sg = sg;
    sg[0].addr = buf;
    sg[0].len = 512;
    sg[1].addr = buf + 512;
    sg[1].len = 0;
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_RANGE);
    c.sg = NULL;
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_NULL);
    for (unsigned k = 0; k < 40; k++) {
        sg[k].addr = buf + 16u * k;
        sg[k].len = 16;
    }
    c.sg = sg;
    c.sg_count = 40; /* more segments than a command takes */
    c.data_len = 640;
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_RANGE);
    sg[3].addr = NULL;
    c.sg_count = 8;
    c.data_len = 128;
    assert_int_equal(ops->start(r->hal.sc, &c), PCAM_ERR_RANGE);
    assert_int_equal(viom_pending(VIOM_REQ), 0); /* none of them reached the device */
    assert_int_equal(viom_mapped(), 0);          /* and every mapping was undone */
    assert_int_equal(ops->abort(r->hal.sc, &c), PCAM_ERR_RANGE); /* never started */
    assert_int_equal(ops->reset_dev(r->hal.sc, 16, 0, false), PCAM_ERR_RANGE);
    assert_int_equal(ops->reset_dev(r->hal.sc, 1, 0, false), PCAM_OK);
    assert_int_equal(ops->reset_dev(r->hal.sc, 2, 0, false), PCAM_ERR_NOSPACE); /* one at a time */
    viom_ctl_answer(0, 0);
    intr(r);
    /* The counters and facts of nothing are zero; stop of nothing does nothing. */
    pcam_virtio_stats st;
    pcam_virtio_facts f;
    pcam_virtio_get_stats(NULL, &st);
    assert_int_equal(st.started, 0);
    pcam_virtio_get_facts(NULL, &f);
    assert_int_equal(f.offered, 0);
    pcam_virtio_get_facts(&r->sc, &f);
    assert_int_equal(f.max_target, 255);
    pcam_virtio_get_stats(&r->sc, NULL);
    pcam_virtio_get_facts(&r->sc, NULL);
    pcam_virtio_stop(NULL);
    down(r);

    uint8_t cfg[256];
    pcam_virtio_caps caps2;
    viom_cfgspace(cfg);
    assert_int_equal(pcam_virtio_parse_caps(cfg, 63, &caps2), PCAM_ERR_FORMAT);
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, NULL), PCAM_ERR_NULL);
    /* A capability shorter than 16 bytes. */
    viom_cfgspace(cfg);
    cfg[0x52] = 8;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps2), PCAM_ERR_FORMAT);
    /* The ISR capability in a BAR that does not exist, and a second common
     * one, both passed over: the ISR region is then missing. */
    viom_cfgspace(cfg);
    cfg[0x54] = 6;
    cfg[0x53] = 1;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps2), PCAM_ERR_UNSUPPORTED);
    /* A non-virtio capability (MSI-X, 11h) in the chain is walked past. */
    viom_cfgspace(cfg);
    cfg[0x34] = 0x80;
    cfg[0x80] = 0x11;
    cfg[0x81] = 0x40;
    assert_int_equal(pcam_virtio_parse_caps(cfg, sizeof cfg, &caps2), PCAM_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_attach_refusals),
        cmocka_unit_test(test_honest_and_sense),
        cmocka_unit_test(test_used_lies),
        cmocka_unit_test(test_index_past_ring),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_reset_answers_and_needs_reset),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
