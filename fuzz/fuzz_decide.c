/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The core's side of the script-level / command-level contract (pcam_hal.h,
 * hal_cmd; core/engine/decide.c) against an adversarial back-end. A fake
 * adapter holds the commands the core starts; the input decides what it
 * does with them and what it asks: completions with any transport outcome,
 * SCSI status, residual, adapter sense and QUEUE FULL count, stale or
 * repeated handles, refusals for want of room, messages from targets
 * (pcam_bus_hal_msg_in), MESSAGE REJECTs, negotiation starts and ends,
 * parity errors, device-reset reports asked for or not, bus resets and
 * gross errors; and it plays the upper layer (SCSI I/O with flat buffers or
 * scatter-gather lists, aborts, device and bus resets, queue releases) and
 * the clock (timeouts, the recovery ladder).
 *
 * Checked on every input: every CCB completes exactly once (after the
 * drain and pcam_bus_shutdown(), none left); buffers are exact-size heap
 * blocks the fake adapter fills through the descriptor (ASan, Valgrind);
 * message replies fit and are MESSAGE REJECT or an extended message;
 * pcam_bus_check_invariants() is NULL after every operation.
 *
 * Input: byte 0 configuration (bit 0 script level, bit 1 adapter
 * autosense, bit 2 polled, bits 3-5 adapter capacity 1..8), then
 * operations of one opcode byte and its argument bytes until the input ends.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/common/common.h"

#define NSLOT 16
#define MAXHELD 8

static void fail(const char *why)
{
    fprintf(stderr, "fuzz_decide: %s\n", why);
    abort();
}

#define CHECK(c, why)  \
    do {               \
        if (!(c))      \
            fail(why); \
    } while (0)

static const uint8_t *in;
static size_t in_len, in_pos;

static uint8_t next(void)
{
    return in_pos < in_len ? in[in_pos++] : 0;
}

/* ---- the fake adapter ---- */

typedef struct held {
    bool used;
    pcam_hal_cmd cmd;
} held;

static struct {
    pcam_bus *bus;
    pcam_hal_profile profile;
    bool autosense;
    unsigned cap;
    held h[MAXHELD];
    bool rd, rd_lun;
    bool rd_asked; /* the core's view: asked and neither reported nor ended by a bus reset */
    bool rd_unsure; /* the core reset the bus meanwhile: it may have given up on the reset */
    uint8_t rd_t, rd_l;
    pcam_hal_event ev[4];
    unsigned nev;
    uint64_t now;
    uint8_t action; /* what the next poll does: 0 nothing, else an op code below */
} fk;

static uint64_t plat_now(void *ctx)
{
    (void)ctx;
    return fk.now;
}

static void f_caps(void *sc, pcam_hal_caps *c)
{
    (void)sc;
    memset(c, 0, sizeof *c);
    c->name = "fuzz-adapter";
    c->profile = fk.profile;
    c->flags = PCAM_HAL_CAP_SYNC | PCAM_HAL_CAP_WIDE | PCAM_HAL_CAP_DT | PCAM_HAL_CAP_TAGS |
               (fk.autosense ? PCAM_HAL_CAP_AUTOSENSE : 0u);
    c->max_targets = 8;
    c->initiator_id = 7;
    c->min_period = 0x09;
    c->max_offset = 31;
    c->max_sg = 8;
    c->max_xfer = 1u << 20;
}

static void forget_all(void)
{
    memset(fk.h, 0, sizeof fk.h);
    fk.rd = false;
}

static int f_reset_chip(void *sc)
{
    (void)sc;
    forget_all();
    fk.nev = 0;
    return 0;
}

static void post(pcam_hal_event_type t)
{
    if (fk.nev < 4) {
        memset(&fk.ev[fk.nev], 0, sizeof fk.ev[0]);
        fk.ev[fk.nev].type = t;
        fk.ev[fk.nev].target = 0xFF;
        fk.nev++;
    }
}

static int f_reset_bus(void *sc)
{
    (void)sc;
    fk.rd_unsure = fk.rd_asked;
    if ((next() & 7u) != 7u) /* sometimes the reset never shows: the ladder's last step */
        post(PCAM_HAL_EV_BUS_RESET);
    return 0;
}

static int f_set_xfer(void *sc, uint8_t t, const pcam_hal_xfer_params *p)
{
    (void)sc;
    CHECK(t < 8 && p != NULL && p->width <= 1, "set_xfer out of range");
    return 0;
}

static void act(void);

static int f_poll(void *sc, pcam_hal_event *ev)
{
    (void)sc;
    if (fk.action != 0)
        act();
    if (fk.nev == 0)
        return 0;
    *ev = fk.ev[0];
    memmove(fk.ev, fk.ev + 1, (fk.nev - 1) * sizeof fk.ev[0]);
    fk.nev--;
    if (ev->type == PCAM_HAL_EV_BUS_RESET) {
        forget_all(); /* the contract: forgotten before the event is reported */
        fk.rd_asked = false;
        fk.rd_unsure = false;
    }
    return 1;
}

static void f_attach(void *sc, struct pcam_bus *b)
{
    (void)sc;
    fk.bus = b;
}

/* Touch every byte the descriptor lets the adapter move. */
static void touch(const pcam_hal_cmd *c)
{
    if (c->dir == PCAM_DIR_NONE)
        return;
    if (c->sg_count == 0) {
        CHECK(c->data != NULL, "no buffer");
        memset(c->data, 0x5A, c->data_len);
        return;
    }
    uint32_t left = c->data_len;
    for (uint16_t i = 0; i < c->sg_count && left > 0; i++) {
        uint32_t n = c->sg[i].len < left ? c->sg[i].len : left;
        memset(c->sg[i].addr, 0x5A, n);
        left -= n;
    }
    CHECK(left == 0, "sg list shorter than data_len");
}

static int f_start(void *sc, const pcam_hal_cmd *c)
{
    (void)sc;
    CHECK(c != NULL && c->handle != NULL && c->cdb != NULL, "bad descriptor");
    CHECK(c->cdb_len >= 1 && c->cdb_len <= 16 && c->target < 8 && c->target != 7, "bad descriptor");
    CHECK(c->dir <= PCAM_DIR_OUT, "bad direction");
    CHECK((c->flags & PCAM_HAL_CMD_AUTOSENSE) == 0 || (fk.autosense && c->sense != NULL),
          "autosense asked of an adapter without it");
    for (unsigned i = 0; i < MAXHELD; i++)
        CHECK(!fk.h[i].used || fk.h[i].cmd.handle != c->handle, "command started twice");
    unsigned used = 0;
    for (unsigned i = 0; i < MAXHELD; i++)
        used += fk.h[i].used;
    if (used >= fk.cap)
        return PCAM_ERR_NOSPACE;
    touch(c);
    for (unsigned i = 0; i < MAXHELD; i++) {
        if (!fk.h[i].used) {
            fk.h[i].used = true;
            fk.h[i].cmd = *c;
            return 0;
        }
    }
    return PCAM_ERR_NOSPACE;
}

static void complete(unsigned i, uint32_t status);

static int f_abort(void *sc, const void *handle)
{
    (void)sc;
    for (unsigned i = 0; i < MAXHELD; i++) {
        if (fk.h[i].used && fk.h[i].cmd.handle == handle) {
            if ((next() & 3u) == 0)
                complete(i, PCAM_REQ_ABORTED); /* at once, from inside the op */
            return 0;
        }
    }
    return PCAM_ERR_RANGE;
}

static int f_reset_dev(void *sc, uint8_t t, uint8_t l, bool lun_reset)
{
    (void)sc;
    CHECK(!fk.rd, "second device reset while one is out");
    fk.rd = true;
    fk.rd_asked = true;
    fk.rd_unsure = false;
    fk.rd_t = t;
    fk.rd_l = l;
    fk.rd_lun = lun_reset;
    return 0;
}

static const pcam_hal_ops ops = {
    .get_caps = f_caps, .reset_chip = f_reset_chip, .reset_bus = f_reset_bus,
    .set_xfer = f_set_xfer, .poll = f_poll,
};
static const pcam_hal_cmd_ops cmd_ops = {
    .attach = f_attach, .start = f_start, .abort = f_abort, .reset_dev = f_reset_dev,
};

/* ---- what the adapter reports ---- */

static const uint32_t STATUSES[] = {
    PCAM_REQ_CMP, PCAM_REQ_CMP, PCAM_REQ_CMP, PCAM_REQ_CMP, PCAM_SEL_TIMEOUT, PCAM_UNEXP_BUSFREE,
    PCAM_SEQUENCE_FAIL, PCAM_UNCOR_PARITY, PCAM_DATA_RUN_ERR, PCAM_REQ_ABORTED, PCAM_REQ_CMP_ERR, 0x3F,
};
static const uint8_t SCSI[] = {0x00, 0x00, 0x02, 0x02, 0x08, 0x28, 0x18, 0x40, 0x30, 0x04};

static void complete(unsigned i, uint32_t status)
{
    pcam_hal_cmd_result r;
    pcam_hal_cmd c = fk.h[i].cmd;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.scsi_status = SCSI[next() % sizeof SCSI];
    r.resid = next();
    if (r.resid > 200)
        r.resid = c.data_len + 1000u; /* nonsense the core must clamp */
    if ((c.flags & PCAM_HAL_CMD_AUTOSENSE) != 0 && r.scsi_status == 0x02 && (next() & 1u)) {
        uint8_t s[18] = {0x70, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        s[2] = next() & 0x0Fu;
        s[12] = next();
        s[13] = next();
        r.sense_done = true;
        r.sense_len = next();
        memcpy(c.sense, s, c.sense_len < sizeof s ? c.sense_len : sizeof s);
    }
    if ((c.flags & PCAM_HAL_CMD_CORE_SENSE) != 0 && c.data != NULL && c.data_len >= 14) {
        memset(c.data, 0, c.data_len);
        ((uint8_t *)c.data)[0] = 0x70;
        ((uint8_t *)c.data)[2] = next() & 0x0Fu;
        ((uint8_t *)c.data)[7] = 6;
        ((uint8_t *)c.data)[12] = next();
    }
    r.held_known = (next() & 1u) != 0;
    r.held = next();
    fk.h[i].used = false;
    CHECK(pcam_bus_hal_done(fk.bus, c.handle, c.target, c.lun, &r) == PCAM_OK, "done refused a held command");
    /* Twice is the back-end's bug, but the core must shrug it off. */
    if ((next() & 15u) == 0)
        CHECK(pcam_bus_hal_done(fk.bus, c.handle, c.target, c.lun, &r) == PCAM_ERR_RANGE,
              "done accepted a command twice");
}

static void check_reply(int n, const uint8_t *reply, size_t cap)
{
    CHECK(n >= 0 && (size_t)n <= cap, "reply length");
    if (n > 0)
        CHECK(reply[0] == 0x07 || (reply[0] == 0x01 && n >= 3 && reply[1] == n - 2), "reply form");
}

/* The adapter's move, run from inside poll as the contract wants. */
static void act(void)
{
    uint8_t op = fk.action, t = next() & 7u;
    uint8_t buf[16];
    fk.action = 0;
    switch (op) {
    case 1: {
        unsigned i = next() % MAXHELD;
        if (fk.h[i].used)
            complete(i, STATUSES[next() % (sizeof STATUSES / sizeof STATUSES[0])]);
        break;
    }
    case 2: {
        uint8_t m[16]; /* room beyond the 8 used: gcc -O3 sees a vectorised overrun otherwise */
        size_t len = 1 + (next() & 7u);
        for (size_t k = 0; k < len; k++)
            m[k] = next();
        if ((next() & 1u) == 0) {
            /* a well-formed extended message more often than chance would give */
            m[0] = 0x01;
            m[1] = (uint8_t)(len >= 2 ? len - 2 : 0);
        }
        size_t cap = 1 + (next() & 15u);
        int n = pcam_bus_hal_msg_in(fk.bus, t, 0, m, len, buf, cap);
        check_reply(n, buf, cap);
        break;
    }
    case 3: {
        static const uint8_t rej[] = {0x01, 0x20, 0x21, 0x22, 0x80, 0x0D, 0x07};
        size_t cap = next() & 15u;
        int n = pcam_bus_hal_msg_reject(fk.bus, t, rej[next() % sizeof rej], cap ? buf : NULL, cap);
        check_reply(n, buf, cap);
        break;
    }
    case 4: {
        size_t cap = next() & 15u;
        int n = pcam_bus_hal_nego_start(fk.bus, t, buf, cap);
        CHECK(n <= (int)cap, "nego message longer than the buffer");
        if (n > 0 && (next() & 1u))
            pcam_bus_hal_nego_end(fk.bus, t, (next() & 1u) != 0);
        break;
    }
    case 5:
        pcam_bus_hal_parity(fk.bus, t);
        break;
    case 6:
        if (fk.rd && (next() & 3u) != 0) {
            fk.rd = false;
            fk.rd_asked = false;
            for (unsigned i = 0; i < MAXHELD; i++)
                if (fk.h[i].used && fk.h[i].cmd.target == fk.rd_t &&
                    (!fk.rd_lun || fk.h[i].cmd.lun == fk.rd_l))
                    fk.h[i].used = false;
            /* Mostly taken; else no answer, a refusal, or a status the
             * contract does not name (the core must take it as an error). */
            static const uint32_t ends[4] = {PCAM_SEL_TIMEOUT, PCAM_MSG_REJECT_REC, PCAM_REQ_CMP_ERR, 0x7Fu};
            uint32_t end = (next() & 3u) != 0 ? PCAM_REQ_CMP : ends[next() & 3u];
            int rc = pcam_bus_hal_reset_done(fk.bus, fk.rd_t, fk.rd_l, fk.rd_lun, end);
            CHECK(rc == PCAM_OK || (fk.rd_unsure && rc == PCAM_ERR_RANGE),
                  "reset_done refused the reset it asked for");
        } else if (!fk.rd_asked && !fk.rd_unsure) {
            CHECK(pcam_bus_hal_reset_done(fk.bus, t, 0, false, PCAM_REQ_CMP) == PCAM_ERR_RANGE,
                  "reset_done accepted a reset nobody asked for");
        }
        break;
    case 7:
        post(PCAM_HAL_EV_BUS_RESET);
        break;
    case 8:
        post(PCAM_HAL_EV_GROSS_ERROR);
        break;
    case 9: /* the drain: everything held ends well */
        for (unsigned i = 0; i < MAXHELD; i++) {
            if (fk.h[i].used) {
                pcam_hal_cmd c = fk.h[i].cmd;
                pcam_hal_cmd_result r;
                memset(&r, 0, sizeof r);
                r.status = PCAM_REQ_CMP;
                fk.h[i].used = false;
                (void)pcam_bus_hal_done(fk.bus, c.handle, c.target, c.lun, &r);
            }
        }
        if (fk.rd) {
            fk.rd = false;
            fk.rd_asked = false;
            (void)pcam_bus_hal_reset_done(fk.bus, fk.rd_t, fk.rd_l, fk.rd_lun, PCAM_REQ_CMP);
        }
        break;
    default:
        break;
    }
}

/* ---- the upper layer ---- */

typedef struct slot {
    pcam_ccb ccb;
    bool used;
    unsigned done;
    uint8_t *data;
    pcam_sg *sg;
    uint8_t *sense;
} slot;

static slot slots[NSLOT];
static pcam_ccb mg[NSLOT];
static unsigned mg_used, mg_done;

static void slot_done(pcam_ccb *c)
{
    slot *s = (slot *)c;
    s->done++;
    CHECK(s->done == 1, "CCB completed twice");
    CHECK((c->status & PCAM_STATUS_MASK) != PCAM_REQ_INPROG, "completed in progress");
    if ((c->status & PCAM_STATUS_MASK) == PCAM_REQ_CMP)
        CHECK(c->u.io.resid <= c->u.io.data_len, "resid out of range");
    CHECK(c->u.io.sense_resid <= c->u.io.sense_len, "sense_resid out of range");
}

static void mg_fn(pcam_ccb *c)
{
    (void)c;
    mg_done++;
}

static void submit_io(pcam_bus *bus)
{
    unsigned i = next() % NSLOT;
    slot *s = &slots[i];
    if (s->used)
        return;
    uint8_t a = next(), b = next();
    memset(s, 0, sizeof *s);
    s->used = true;
    pcam_ccb *c = &s->ccb;
    c->func = PCAM_FN_SCSI_IO;
    c->target = a & 7u;
    c->lun = (a >> 3) & 1u;
    c->done = slot_done;
    c->timeout_ms = 100u + 50u * (b & 7u);
    c->u.io.retries = (b >> 3) & 3u;
    c->u.io.cdb_len = 10;
    c->u.io.cdb[0] = (b & 0x40u) ? 0x2A : 0x28; /* WRITE(10) / READ(10) */
    c->u.io.cdb[8] = 1;
    c->u.io.dir = (b & 0x40u) ? PCAM_DIR_OUT : PCAM_DIR_IN;
    uint32_t len = 1u + next();
    c->u.io.data_len = len;
    if (b & 0x80u) {
        s->data = malloc(len);
        s->sg = malloc(2 * sizeof *s->sg);
        s->sg[0].addr = s->data;
        s->sg[0].len = len / 2;
        s->sg[1].addr = s->data + len / 2;
        s->sg[1].len = len - len / 2;
        c->u.io.sg = s->sg;
        c->u.io.sg_count = 2;
    } else {
        s->data = malloc(len);
        c->u.io.data = s->data;
    }
    if (a & 0x10u) {
        s->sense = malloc(18);
        c->u.io.sense = s->sense;
        c->u.io.sense_len = 18;
    }
    if (a & 0x20u) {
        c->flags |= PCAM_CCB_TAGGED;
        c->u.io.tag_action = (a & 0x40u) ? PCAM_TAG_ORDERED : PCAM_TAG_SIMPLE;
    }
    if (a & 0x80u)
        c->flags |= (b & 1u) ? PCAM_CCB_FREEZE_ON_ERROR : PCAM_CCB_DIS_AUTOSENSE;
    pcam_action(bus, c);
}

static void mgmt(pcam_bus *bus, uint8_t func, uint8_t a)
{
    if (mg_used >= NSLOT)
        return;
    pcam_ccb *c = &mg[mg_used++];
    memset(c, 0, sizeof *c);
    c->func = func;
    c->target = a & 7u;
    c->done = mg_fn;
    if (func == PCAM_FN_ABORT)
        c->u.abort.victim = &slots[a % NSLOT].ccb;
    if (func == PCAM_FN_RESET_DEV && (a & 0x80u))
        c->flags |= PCAM_CCB_LUN_RESET;
    pcam_action(bus, c);
}

static void step_check(pcam_bus *bus)
{
    const char *why = pcam_bus_check_invariants(bus);
    if (why != NULL)
        fail(why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pcam_bus bus;
    static pcam_lun luns[16];
    pcam_bus_config cfg;
    pcam_platform plat;
    pcam_hal hal;

    in = data;
    in_len = size;
    in_pos = 0;
    memset(&fk, 0, sizeof fk);
    memset(slots, 0, sizeof slots);
    mg_used = mg_done = 0;
    uint8_t conf = next();
    fk.profile = (conf & 1u) ? PCAM_HAL_SCRIPT_LEVEL : PCAM_HAL_COMMAND_LEVEL;
    fk.autosense = (conf & 2u) != 0;
    fk.cap = 1u + ((conf >> 3) & 7u);
    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = 2;
    cfg.polled = (conf & 4u) != 0;
    cfg.abort_timeout_ms = 200;
    cfg.reset_settle_ms = 50;
    cfg.busy_delay_ms = 20;
    cfg.tag_depth = 4;
    cfg.tag_depth_floor = 1;
    cfg.qfull_ramp_successes = 4;
    memset(&plat, 0, sizeof plat);
    plat.now_ns = plat_now;
    hal.ops = &ops;
    hal.sc = &fk;
    hal.cmd = &cmd_ops;
    CHECK(pcam_bus_init(&bus, &cfg, &hal, &plat, luns, 16) == PCAM_OK, "init");
    /* Present, tagged LUNs without a scan: the fake adapter answers no INQUIRY. */
    for (unsigned i = 0; i < 16; i++)
        luns[i].dev.flags = PCAM_LUNF_PRESENT | PCAM_LUNF_TAGGED;

    while (in_pos < in_len) {
        uint8_t op = next();
        switch (op % 12u) {
        case 0:
        case 1:
        case 2:
            submit_io(&bus);
            break;
        case 3:
            fk.action = (uint8_t)(1u + next() % 8u);
            if (cfg.polled)
                (void)pcam_bus_poll(&bus);
            else
                pcam_bus_intr(&bus);
            break;
        case 4:
            fk.now += 1000000ull * (1u + next());
            pcam_bus_tick(&bus);
            break;
        case 5:
            mgmt(&bus, PCAM_FN_ABORT, next());
            break;
        case 6:
            mgmt(&bus, PCAM_FN_RESET_DEV, next());
            break;
        case 7:
            mgmt(&bus, (next() & 1u) ? PCAM_FN_RESET_BUS : PCAM_FN_REL_QUEUE, next());
            break;
        default:
            fk.action = 1; /* complete something: the common case */
            pcam_bus_intr(&bus);
            break;
        }
        step_check(&bus);
    }
    /* Drain: the adapter completes everything well; time moves on. */
    for (unsigned k = 0; k < 1000; k++) {
        bool left = mg_done != mg_used;
        for (unsigned i = 0; i < NSLOT && !left; i++)
            left = slots[i].used && slots[i].done == 0;
        if (!left)
            break;
        fk.action = 9;
        pcam_bus_intr(&bus);
        fk.now += 20000000ull;
        pcam_bus_tick(&bus);
        step_check(&bus);
    }
    pcam_bus_shutdown(&bus);
    for (unsigned i = 0; i < NSLOT; i++) {
        if (slots[i].used)
            CHECK(slots[i].done == 1, "CCB lost");
        free(slots[i].data);
        free(slots[i].sg);
        free(slots[i].sense);
    }
    CHECK(mg_done == mg_used, "management CCB lost");
    return 0;
}
