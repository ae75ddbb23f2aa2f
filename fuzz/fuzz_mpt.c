/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/mpt against a lying IOC. The IOC is played in the platform's
 * register hooks: it goes through the doorbell handshake like the real
 * thing (QEMU's mptsas1068 is the model) unless the input makes it lie
 * there too, and then answers the requests the back-end posts with reply
 * FIFO words and reply frames taken from the input: context replies for
 * live, finished, or made-up contexts; address replies in frames of its
 * own choosing (lent or not, aligned or not) with any function, length,
 * IOCStatus, SCSI state, transfer and sense count; events with any code and
 * data length; faults. The core above it is real, and the input also
 * plays the upper layer (I/O with and without data, scatter-gather, sense
 * buffers, tags; aborts and resets), and time (timeouts walk the ladder).
 *
 * Checked on every input: every CCB completes exactly once (at once if
 * twice; after pcam_bus_shutdown() none is left); the DMA area, data and
 * sense buffers are exact-size heap blocks (ASan and Valgrind see a write
 * outside them); pcam_bus_check_invariants() holds after each step; the
 * run ends (every wait in the back-end is bounded by the fake clock).
 *
 * Input layout:
 *   byte 0   bits 0-1: how the bring-up lies (0 honest, 1 facts from the
 *            input, 2 never ready, 3 a handshake that stalls); bits 2-7 seed
 *   then     4-byte operations (op, a, b, c) until the input ends
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_mpt.h"
#include "mptm.h"

#define NCCB 24

static void address_reply(uint8_t a, uint8_t b, uint8_t c)
{
    uint32_t frame;
    if ((a & 0x80) != 0 || mptm_free_count() == 0)
        frame = MPTM_DMA_BUS + ((uint32_t)b << 8 | c); /* anywhere: a lie */
    else
        frame = mptm_take_free();
    uint8_t *r = mptm_at(frame, 128);
    if (r != NULL) {
        uint8_t func = 0;
        uint32_t ctx = mptm_nposted() != 0 ? mptm_posted_ctx(b, &func) : mptm_in8();
        memset(r, 0, 128);
        r[3] = (a & 0x40) != 0 ? mptm_in8() : func;
        r[2] = (a & 0x20) != 0 ? mptm_in8() : (func == 0x01 ? 6 : func == 0x07 ? (uint8_t)(7 + (c & 3)) : 9);
        mptm_put32(r + 8, (a & 0x10) != 0 ? mptm_get32((const uint8_t[4]){mptm_in8(), mptm_in8(), mptm_in8(), mptm_in8()}) : ctx);
        mptm_put16(r + 14, (uint16_t)((a & 0x08) != 0 ? (mptm_in8() | mptm_in8() << 8) : (c & 1 ? 0x45 : 0)));
        if (r[3] == 0x07) {
            mptm_put16(r + 0, (uint16_t)(c & 7));
            r[6] = (uint8_t)(c >> 7);
            mptm_put32(r + 20, mptm_in8());
            for (unsigned k = 0; k < 12; k++)
                r[28 + k] = mptm_in8();
        } else {
            r[4] = mptm_in8();  /* TM ResponseCode */
            r[12] = mptm_in8(); /* SCSI status */
            r[13] = mptm_in8(); /* SCSI state */
            mptm_put32(r + 20, (uint32_t)mptm_in8() << (c & 0x18));
            mptm_put32(r + 24, mptm_in8());
        }
    }
    mptm_push(0x80000000u | (frame >> 1));
}

static unsigned done_count[NCCB];
static pcam_ccb ccbs[NCCB];
static bool busy[NCCB];

static void on_done(pcam_ccb *c)
{
    unsigned i = (unsigned)(c - ccbs);
    if (++done_count[i] > 1) {
        fprintf(stderr, "CCB %u completed twice\n", i);
        abort();
    }
    busy[i] = false;
    free(c->u.io.data);
    free(c->u.io.sense);
    c->u.io.data = NULL;
    c->u.io.sense = NULL;
}

static void check(pcam_bus *bus)
{
    const char *v = pcam_bus_check_invariants(bus);
    if (v != NULL) {
        fprintf(stderr, "invariant: %s\n", v);
        abort();
    }
}

static void submit(pcam_bus *bus, uint8_t a, uint8_t b, uint8_t c)
{
    unsigned i = a % NCCB;
    pcam_ccb *k = &ccbs[i];
    if (busy[i])
        return;
    memset(k, 0, sizeof *k);
    done_count[i] = 0;
    k->func = PCAM_FN_SCSI_IO;
    k->target = (uint8_t)(b & 0x0F);
    k->lun = (uint8_t)((b >> 4) & 1);
    k->done = on_done;
    k->timeout_ms = 100u * (1u + (c & 0x1F));
    uint32_t len = (c & 0x20) != 0 ? 512u * (1u + (a >> 5)) : 0;
    uint8_t cdb[10] = {len != 0 ? 0x28 : 0x00};
    if (len != 0) {
        cdb[8] = (uint8_t)(len / 512u);
        k->u.io.dir = (c & 0x40) != 0 ? PCAM_DIR_OUT : PCAM_DIR_IN;
        if (k->u.io.dir == PCAM_DIR_OUT)
            cdb[0] = 0x2A;
        k->u.io.data = calloc(1, len);
        k->u.io.data_len = len;
    }
    memcpy(k->u.io.cdb, cdb, 10);
    k->u.io.cdb_len = len != 0 ? 10 : 6;
    k->u.io.sense_len = (uint8_t)(18u + (b & 0x0E));
    k->u.io.sense = calloc(1, k->u.io.sense_len); /* a lying IOC may claim sense it never wrote */
    if ((c & 0x80) != 0) {
        k->flags |= PCAM_CCB_TAGGED;
        k->u.io.tag_action = (uint8_t)(0x20 + (a & 1) + ((b & 1) << 1) % 3);
    }
    busy[i] = true;
    pcam_action(bus, k);
}

static pcam_ccb mccb;
static unsigned mdone;
static bool mbusy;

static void misc_done(pcam_ccb *c)
{
    (void)c;
    if (++mdone > 1) {
        fprintf(stderr, "management CCB completed twice\n");
        abort();
    }
    mbusy = false;
}

/* Abort, device reset, bus reset or a LUN scan: one at a time. */
static void misc(pcam_bus *bus, uint8_t a, uint8_t b)
{
    if (mbusy)
        return;
    memset(&mccb, 0, sizeof mccb);
    mccb.target = (uint8_t)(b & 0x0F);
    mccb.done = misc_done;
    switch (a % 4u) {
    case 0:
        if (!busy[b % NCCB])
            return;
        mccb.func = PCAM_FN_ABORT;
        mccb.u.abort.victim = &ccbs[b % NCCB];
        break;
    case 1:
        mccb.func = PCAM_FN_RESET_DEV;
        mccb.flags = (b & 0x80) != 0 ? PCAM_CCB_LUN_RESET : 0;
        break;
    case 2:
        mccb.func = PCAM_FN_RESET_BUS;
        break;
    default:
        mccb.func = PCAM_FN_SCAN_LUN;
        break;
    }
    mdone = 0;
    mbusy = true;
    pcam_action(bus, &mccb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pcam_mpt sc;
    pcam_platform plat;
    pcam_mpt_config cfg;
    pcam_hal hal;
    pcam_bus_config bcfg;
    static pcam_bus bus;
    static pcam_lun luns[PCAM_BUS_LUNS(16, 2)];

    if (size < 1)
        return 0;
    mptm_start(data + 1, size - 1, data[0] & 3u, &plat, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.dma_va = mptm_dma();
    cfg.dma_bus = MPTM_DMA_BUS;
    cfg.dma_len = PCAM_MPT_DMA_BYTES;
    memset(ccbs, 0, sizeof ccbs);
    memset(busy, 0, sizeof busy);
    memset(done_count, 0, sizeof done_count);
    mbusy = false;
    if (pcam_mpt_attach(&sc, &cfg, &plat, &hal) != PCAM_OK) {
        mptm_end();
        return 0;
    }
    pcam_bus_config_defaults(&bcfg);
    bcfg.luns_per_target = 2;
    bcfg.abort_timeout_ms = 200;
    bcfg.reset_settle_ms = 50;
    if (pcam_bus_init(&bus, &bcfg, &hal, &plat, luns, PCAM_BUS_LUNS(16, 2)) != PCAM_OK) {
        mptm_end();
        return 0;
    }
    unsigned steps = 0;
    while (mptm_left() >= 4 && steps++ < 2000) {
        uint8_t op = mptm_in8(), a = mptm_in8(), b = mptm_in8(), c = mptm_in8();
        switch (op % 8u) {
        case 0:
        case 1:
            submit(&bus, a, b, c);
            break;
        case 2: { /* a context reply */
            uint8_t func = 0;
            uint32_t ctx = (a & 1) != 0 || mptm_nposted() == 0 ? ((uint32_t)b << 8 | c) : mptm_posted_ctx(b, &func);
            mptm_push(ctx & 0x7FFFFFFFu);
            break;
        }
        case 3:
            address_reply(a, b, c);
            break;
        case 4:
            if ((a & 7) == 0)
                mptm_set_state(MPTM_FAULT | b);
            break;
        case 5:
            misc(&bus, a, b);
            break;
        case 6:
            mptm_advance((uint64_t)(a + 1) * 20000000u);
            pcam_bus_tick(&bus);
            break;
        default:
            break;
        }
        if (mptm_pending() || (op & 0x10) != 0)
            pcam_bus_intr(&bus);
        check(&bus);
    }
    pcam_bus_shutdown(&bus);
    if (mbusy) {
        fprintf(stderr, "management CCB never completed\n");
        abort();
    }
    for (unsigned i = 0; i < NCCB; i++) {
        if (busy[i]) {
            fprintf(stderr, "CCB %u never completed\n", i);
            abort();
        }
    }
    pcam_mpt_stop(&sc);
    mptm_end();
    return 0;
}
