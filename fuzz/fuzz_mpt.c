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

#define DMA_BUS 0x10000000u
#define NCCB 24
#define MAXPOST 512

typedef struct ioc {
    const uint8_t *in;
    size_t len, pos;
    uint8_t lie;
    uint32_t state;     /* doorbell state bits */
    uint32_t his;
    int hs;             /* 0 none, 1 taking dwords, 2 giving words */
    unsigned hs_need, hs_got, rd_idx, rd_len;
    uint32_t hs_msg[16];
    uint16_t hs_reply[64];
    uint32_t posted[MAXPOST]; /* request frame bus addresses, in order */
    unsigned nposted;
    uint32_t freeq[256];      /* reply frames lent, a ring */
    unsigned fhead, ftail;
    uint32_t outq[64];        /* reply FIFO words waiting */
    unsigned ohead, otail;
    uint8_t *dma;
    uint64_t now;
    uint64_t map_next;
} ioc;

static ioc g;

static uint8_t in8(void)
{
    return g.pos < g.len ? g.in[g.pos++] : 0;
}

static uint64_t f_now(void *ctx)
{
    (void)ctx;
    g.now += 50000u; /* every look at the clock is 50 us later: bounded waits end */
    return g.now;
}

static void f_log(void *ctx, pcam_log_level lv, const char *line)
{
    (void)ctx;
    if (getenv("PCAM_FUZZ_TRACE") != NULL)
        fprintf(stderr, "[%d] %s\n", (int)lv, line);
}

static int f_map(void *ctx, void *va, size_t len, pcam_dma_dir d, uint64_t *bus)
{
    (void)ctx;
    (void)va;
    (void)d;
    *bus = 0x40000000u + g.map_next;
    g.map_next += (len + 15u) & ~(size_t)15u;
    return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* The handshake reply to the request in hs_msg, as QEMU's model gives it. */
static void hs_answer(void)
{
    uint8_t r[128];
    uint8_t func = (uint8_t)(g.hs_msg[0] >> 24);
    unsigned words = 5;
    memset(r, 0, sizeof r);
    r[3] = func;
    put32(r + 8, g.hs_msg[2]);
    switch (func) {
    case 0x03: /* IOC FACTS */
        words = 20;
        put16(r + 0, 0x0105);
        r[0x14] = 0x22;
        put16(r + 0x18, 128);
        put16(r + 0x1A, 128);
        put16(r + 0x24, 128);
        r[0x26] = 8;
        break;
    case 0x05: /* PORT FACTS */
        words = 10;
        r[0x15] = 0x30;
        put16(r + 0x16, 8);
        put16(r + 0x18, 8);
        put16(r + 0x1A, 0x09);
        break;
    case 0x02: /* IOC INIT */
        g.state = 0x20000000u;
        break;
    default:
        break;
    }
    if (g.lie == 1) { /* the input rewrites the reply */
        unsigned n = in8() % 40u;
        for (unsigned k = 0; k < n; k++)
            r[in8() % sizeof r] = in8();
        words = r[2] != 0 ? r[2] : words;
    }
    r[2] = (uint8_t)words;
    g.rd_len = words * 2u > 64u ? 64u : words * 2u;
    for (unsigned k = 0; k < g.rd_len; k++)
        g.hs_reply[k] = (uint16_t)(r[2 * k] | (r[2 * k + 1] << 8));
    g.rd_idx = 0;
    g.hs = 2;
    g.his |= 1u;
}

static uint32_t f_rd32(void *ctx, uintptr_t a)
{
    (void)ctx;
    switch (a & 0xFF) {
    case 0x00:
        if (g.lie == 2)
            return 0x00000000u; /* stuck in RESET */
        if (g.hs == 2)
            return g.state | 0x08000000u | (g.rd_idx < g.rd_len ? g.hs_reply[g.rd_idx++] : 0);
        return g.state | (g.hs == 1 ? 0x08000000u : 0);
    case 0x30:
        return g.his | (g.ohead != g.otail ? 8u : 0u);
    case 0x44:
        if (g.ohead == g.otail)
            return 0xFFFFFFFFu;
        return g.outq[g.ohead++ % 64u];
    default:
        return 0;
    }
}

static void f_wr32(void *ctx, uintptr_t a, uint32_t v)
{
    (void)ctx;
    switch (a & 0xFF) {
    case 0x00:
        if (g.hs == 1) {
            if (g.hs_got < 16)
                g.hs_msg[g.hs_got] = v;
            if (++g.hs_got == g.hs_need)
                hs_answer();
            return;
        }
        if ((v >> 24) == 0x40) {
            g.state = 0x10000000u;
            g.hs = 0;
            g.ohead = g.otail = 0;
            g.fhead = g.ftail = 0;
        } else if ((v >> 24) == 0x42 && g.lie != 3) {
            g.hs = 1;
            g.hs_need = (v >> 16) & 0xFF;
            g.hs_got = 0;
            g.his |= 1u;
            if (g.hs_need == 0)
                hs_answer();
        }
        return;
    case 0x08:
        if ((v & 4u) != 0) {
            g.state = 0x10000000u;
            g.hs = 0;
        }
        return;
    case 0x30:
        if (g.hs == 2 && g.rd_idx >= g.rd_len)
            g.hs = 0;
        else if (g.hs != 2)
            g.his &= ~1u;
        return;
    case 0x40:
        if (g.nposted < MAXPOST)
            g.posted[g.nposted++] = v;
        return;
    case 0x44:
        g.freeq[g.ftail++ % 256u] = v;
        return;
    default:
        return;
    }
}

static void push(uint32_t w)
{
    if (g.otail - g.ohead < 64u)
        g.outq[g.otail++ % 64u] = w;
}

/* The context of the k-th posted request, read from its frame. */
static uint32_t posted_ctx(unsigned k, uint8_t *func)
{
    uint32_t a = g.posted[k % g.nposted];
    if (a < DMA_BUS || a + 16u > DMA_BUS + PCAM_MPT_DMA_BYTES) {
        *func = 0;
        return 0;
    }
    const uint8_t *f = g.dma + (a - DMA_BUS);
    *func = f[3];
    return get32(f + 8);
}

static void address_reply(uint8_t a, uint8_t b, uint8_t c)
{
    uint32_t frame;
    if ((a & 0x80) != 0 || g.fhead == g.ftail) {
        frame = DMA_BUS + ((uint32_t)b << 8 | c); /* anywhere: a lie */
    } else {
        frame = g.freeq[g.fhead++ % 256u];
    }
    if (frame >= DMA_BUS && frame + 128u <= DMA_BUS + PCAM_MPT_DMA_BYTES) {
        uint8_t *r = g.dma + (frame - DMA_BUS);
        uint8_t func = 0;
        uint32_t ctx = g.nposted != 0 ? posted_ctx(b, &func) : in8();
        memset(r, 0, 128);
        r[3] = (a & 0x40) != 0 ? in8() : func;
        r[2] = (a & 0x20) != 0 ? in8() : (func == 0x01 ? 6 : func == 0x07 ? (uint8_t)(7 + (c & 3)) : 9);
        put32(r + 8, (a & 0x10) != 0 ? get32((const uint8_t[4]){in8(), in8(), in8(), in8()}) : ctx);
        put16(r + 14, (uint16_t)((a & 0x08) != 0 ? (in8() | in8() << 8) : (c & 1 ? 0x45 : 0)));
        if (r[3] == 0x07) {
            put16(r + 0, (uint16_t)(c & 7));
            r[6] = (uint8_t)(c >> 7);
            put32(r + 20, in8());
            for (unsigned k = 0; k < 12; k++)
                r[28 + k] = in8();
        } else {
            r[4] = in8();  /* TM ResponseCode */
            r[12] = in8(); /* SCSI status */
            r[13] = in8(); /* SCSI state */
            put32(r + 20, (uint32_t)in8() << (c & 0x18));
            put32(r + 24, in8());
        }
    }
    push(0x80000000u | (frame >> 1));
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
    memset(&g, 0, sizeof g);
    g.in = data;
    g.len = size;
    g.pos = 1;
    g.lie = data[0] & 3u;
    g.state = 0x10000000u; /* READY */
    g.dma = malloc(PCAM_MPT_DMA_BYTES);
    memset(&plat, 0, sizeof plat);
    plat.now_ns = f_now;
    plat.log = f_log;
    plat.read32 = f_rd32;
    plat.write32 = f_wr32;
    plat.dma_map = f_map;
    memset(&cfg, 0, sizeof cfg);
    cfg.dma_va = g.dma;
    cfg.dma_bus = DMA_BUS;
    cfg.dma_len = PCAM_MPT_DMA_BYTES;
    memset(ccbs, 0, sizeof ccbs);
    memset(busy, 0, sizeof busy);
    memset(done_count, 0, sizeof done_count);
    mbusy = false;
    if (pcam_mpt_attach(&sc, &cfg, &plat, &hal) != PCAM_OK) {
        free(g.dma);
        return 0;
    }
    pcam_bus_config_defaults(&bcfg);
    bcfg.luns_per_target = 2;
    bcfg.abort_timeout_ms = 200;
    bcfg.reset_settle_ms = 50;
    if (pcam_bus_init(&bus, &bcfg, &hal, &plat, luns, PCAM_BUS_LUNS(16, 2)) != PCAM_OK) {
        free(g.dma);
        return 0;
    }
    unsigned steps = 0;
    while (g.pos + 4 <= g.len && steps++ < 2000) {
        uint8_t op = in8(), a = in8(), b = in8(), c = in8();
        switch (op % 8u) {
        case 0:
        case 1:
            submit(&bus, a, b, c);
            break;
        case 2: { /* a context reply */
            uint8_t func = 0;
            uint32_t ctx = (a & 1) != 0 || g.nposted == 0 ? ((uint32_t)b << 8 | c) : posted_ctx(b, &func);
            push(ctx & 0x7FFFFFFFu);
            break;
        }
        case 3:
            address_reply(a, b, c);
            break;
        case 4:
            if ((a & 7) == 0)
                g.state = 0x40000000u | b; /* FAULT */
            break;
        case 5:
            misc(&bus, a, b);
            break;
        case 6:
            g.now += (uint64_t)(a + 1) * 20000000u;
            pcam_bus_tick(&bus);
            break;
        default:
            break;
        }
        if (g.ohead != g.otail || (op & 0x10) != 0)
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
    free(g.dma);
    return 0;
}
