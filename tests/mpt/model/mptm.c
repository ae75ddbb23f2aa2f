/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scriptable Fusion-MPT IOC for host tests and fuzz_mpt: it lives in the
 * platform's register hooks (read32/write32 at offsets from base 0) and a
 * heap DMA area at bus address MPTM_DMA_BUS. The doorbell handshake
 * answers IOC FACTS, PORT FACTS and IOC INIT with what QEMU's mptsas1068
 * says (hw/scsi/mptsas.c, 7.2) unless told to lie; the request FIFO records
 * what is posted, the reply free queue what is lent; replies are whatever
 * the caller pushes. The clock moves 50 us at every look, so every bounded
 * wait in the back-end ends. One model per process (globals).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mptm.h"

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
    struct { uint64_t bus; void *va; size_t len; } maps[16]; /* the last mappings, a ring */
    unsigned nmaps;
} ioc;

static ioc g;
static mptm_log_fn log_fn;

size_t mptm_left(void)
{
    return g.len - g.pos;
}

uint8_t mptm_in8(void)
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
    if (log_fn != NULL)
        log_fn(lv, line);
    if (getenv("PCAM_FUZZ_TRACE") != NULL)
        fprintf(stderr, "[%d] %s\n", (int)lv, line);
}

static int f_map(void *ctx, void *va, size_t len, pcam_dma_dir d, uint64_t *bus)
{
    (void)ctx;
    (void)d;
    *bus = 0x40000000u + g.map_next;
    g.map_next += (len + 15u) & ~(size_t)15u;
    g.maps[g.nmaps % 16u].bus = *bus;
    g.maps[g.nmaps % 16u].va = va;
    g.maps[g.nmaps % 16u].len = len;
    g.nmaps++;
    return 0;
}

void *mptm_mapped(uint64_t bus, size_t len)
{
    for (unsigned k = 0; k < 16u && k < g.nmaps; k++) {
        const unsigned i = (g.nmaps - 1u - k) % 16u;
        if (bus >= g.maps[i].bus && bus - g.maps[i].bus + len <= g.maps[i].len)
            return (uint8_t *)g.maps[i].va + (bus - g.maps[i].bus);
    }
    return NULL;
}

const uint8_t *mptm_posted_frame(unsigned k)
{
    uint32_t a = k < g.nposted ? g.posted[k] : 0;
    if (a < MPTM_DMA_BUS || a + 128u > MPTM_DMA_BUS + PCAM_MPT_DMA_BYTES)
        return NULL;
    return g.dma + (a - MPTM_DMA_BUS);
}

void mptm_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void mptm_put32(uint8_t *p, uint32_t v)
{
    mptm_put16(p, (uint16_t)v);
    mptm_put16(p + 2, (uint16_t)(v >> 16));
}

uint32_t mptm_get32(const uint8_t *p)
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
    mptm_put32(r + 8, g.hs_msg[2]);
    switch (func) {
    case 0x03: /* IOC FACTS */
        words = 20;
        mptm_put16(r + 0, 0x0105);
        r[0x14] = 0x22;
        mptm_put16(r + 0x18, 128);
        mptm_put16(r + 0x1A, 128);
        mptm_put16(r + 0x24, 128);
        r[0x26] = 8;
        break;
    case 0x05: /* PORT FACTS */
        words = 10;
        r[0x15] = 0x30;
        mptm_put16(r + 0x16, 8);
        mptm_put16(r + 0x18, 8);
        mptm_put16(r + 0x1A, 0x09);
        break;
    case 0x02: /* IOC INIT */
        g.state = 0x20000000u;
        break;
    default:
        break;
    }
    if (g.lie == 1) { /* the input rewrites the reply */
        unsigned n = mptm_in8() % 40u;
        for (unsigned k = 0; k < n; k++)
            r[mptm_in8() % sizeof r] = mptm_in8();
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

void mptm_push(uint32_t w)
{
    if (g.otail - g.ohead < 64u)
        g.outq[g.otail++ % 64u] = w;
}

/* The context of the k-th posted request, read from its frame. */
uint32_t mptm_posted_ctx(unsigned k, uint8_t *func)
{
    uint32_t a = g.posted[k % g.nposted];
    if (a < MPTM_DMA_BUS || a + 16u > MPTM_DMA_BUS + PCAM_MPT_DMA_BYTES) {
        *func = 0;
        return 0;
    }
    const uint8_t *f = g.dma + (a - MPTM_DMA_BUS);
    *func = f[3];
    return mptm_get32(f + 8);
}


void mptm_start(const uint8_t *in, size_t len, uint8_t lie, pcam_platform *plat, mptm_log_fn fn)
{
    memset(&g, 0, sizeof g);
    g.in = in;
    g.len = len;
    g.lie = lie;
    g.state = MPTM_READY;
    g.dma = malloc(PCAM_MPT_DMA_BYTES);
    log_fn = fn;
    memset(plat, 0, sizeof *plat);
    plat->now_ns = f_now;
    plat->log = f_log;
    plat->read32 = f_rd32;
    plat->write32 = f_wr32;
    plat->dma_map = f_map;
}

void mptm_end(void)
{
    free(g.dma);
    g.dma = NULL;
}

uint8_t *mptm_dma(void)
{
    return g.dma;
}

unsigned mptm_nposted(void)
{
    return g.nposted;
}

uint32_t mptm_take_free(void)
{
    return g.fhead == g.ftail ? 0 : g.freeq[g.fhead++ % 256u];
}

unsigned mptm_free_count(void)
{
    return g.ftail - g.fhead;
}

uint8_t *mptm_at(uint32_t bus, size_t len)
{
    if (bus < MPTM_DMA_BUS || bus - MPTM_DMA_BUS + len > PCAM_MPT_DMA_BYTES)
        return NULL;
    return g.dma + (bus - MPTM_DMA_BUS);
}

void mptm_set_state(uint32_t state)
{
    g.state = state;
}

uint32_t mptm_state(void)
{
    return g.state;
}

bool mptm_pending(void)
{
    return g.ohead != g.otail;
}

void mptm_advance(uint64_t ns)
{
    g.now += ns;
}
