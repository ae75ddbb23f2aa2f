/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scriptable virtio-scsi device for host tests and fuzz_virtio. It lives
 * in the platform's register hooks (the common, notify, ISR and device
 * regions at VIOM_*) and a heap DMA area of exactly PCAM_VIRTIO_DMA_BYTES
 * at VIOM_DMA_BUS. Bring-up answers as QEMU's virtio-scsi-pci (7.2) does
 * unless told to lie; a doorbell makes the device take what was made
 * available, and every descriptor the back-end wrote is checked against
 * memory it owns (the DMA area, buffers it mapped): a back-end that points
 * the device anywhere else aborts the run. What comes back (used entries,
 * responses, events) is whatever the caller says. The clock moves 50 us at
 * every look, so every bounded wait ends. One model per process (globals).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viom.h"

#define MAPS 256u
#define MAP_BUS 0x40000000ull
#define MAP_SPAN 0x100000ull

typedef struct vq {
    uint16_t max, size, last_avail, used_idx;
    bool enabled;
    uint64_t desc, avail, used;
    uint16_t pend[256];
    unsigned npend;
} vq;

typedef struct map {
    void *va;
    size_t len;
    bool live;
} map;

static struct {
    const uint8_t *in;
    size_t len, pos;
    uint8_t lie, status, isr, gen;
    uint32_t dfsel, gfsel, sense_size, cdb_size, seg_max, max_sectors, ev_info;
    uint16_t max_target, qsel;
    uint64_t offered, driver, now;
    vq q[3];
    uint8_t *dma;
    map maps[MAPS];
    unsigned resets;
} g;
static viom_log_fn log_fn;

static void die(const char *why)
{
    fprintf(stderr, "viom: the back-end %s\n", why);
    abort();
}

size_t viom_left(void)
{
    return g.len - g.pos;
}

uint8_t viom_in8(void)
{
    return g.pos < g.len ? g.in[g.pos++] : 0;
}

uint8_t *viom_dma(void)
{
    return g.dma;
}

/* Host memory behind [bus, bus + len), or NULL when it is not the back-end's. */
static uint8_t *at(uint64_t bus, uint64_t len)
{
    if (bus >= VIOM_DMA_BUS && len <= PCAM_VIRTIO_DMA_BYTES && bus - VIOM_DMA_BUS <= PCAM_VIRTIO_DMA_BYTES - len)
        return g.dma + (bus - VIOM_DMA_BUS);
    if (bus >= MAP_BUS && bus < MAP_BUS + MAPS * MAP_SPAN) {
        const map *m = &g.maps[(bus - MAP_BUS) / MAP_SPAN];
        uint64_t off = (bus - MAP_BUS) % MAP_SPAN;
        if (m->live && len <= m->len && off <= m->len - len)
            return (uint8_t *)m->va + off;
    }
    return NULL;
}

static uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}
static void st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void st32(uint8_t *p, uint32_t v)
{
    st16(p, (uint16_t)v);
    st16(p + 2, (uint16_t)(v >> 16));
}

/* ---- descriptors the back-end wrote ---- */

typedef struct chain {
    uint64_t addr[40];
    uint32_t len[40];
    bool wr[40];
    unsigned n;
} chain;

/* The chain at head (through an indirect table when flagged); aborts on
 * a descriptor that is not the back-end's memory or breaks the rules. */
static void walk(const vq *q, uint16_t head, chain *c)
{
    const uint8_t *d = at(q->desc + 16u * head, 16);
    if (d == NULL)
        die("made a descriptor available outside its table");
    memset(c, 0, sizeof *c);
    const uint8_t *tab = at(q->desc, 16u * q->size);
    unsigned tabn = q->size, i = 0;
    if ((ld16(d + 12) & 4u) != 0) {
        uint32_t l = ld32(d + 8);
        if (l == 0 || l % 16u != 0 || l / 16u > 40u || (tab = at(ld64(d), l)) == NULL)
            die("wrote an indirect descriptor outside its memory");
        tabn = l / 16u;
    } else {
        i = head;
    }
    bool seen_wr = false;
    for (unsigned steps = 0;; steps++) {
        if (steps >= 40 || i >= tabn)
            die("wrote a descriptor chain that loops or leaves its table");
        const uint8_t *e = tab + 16u * i;
        uint16_t fl = ld16(e + 12);
        c->addr[c->n] = ld64(e);
        c->len[c->n] = ld32(e + 8);
        c->wr[c->n] = (fl & 2u) != 0;
        if (at(c->addr[c->n], c->len[c->n]) == NULL || c->len[c->n] == 0)
            die("pointed a descriptor at memory that is not its own");
        if (seen_wr && !c->wr[c->n])
            die("put a device-readable descriptor after a writable one");
        seen_wr |= c->wr[c->n];
        c->n++;
        if ((fl & 1u) == 0)
            break;
        i = ld16(e + 14);
    }
}

static void take_avail(unsigned qi)
{
    vq *q = &g.q[qi];
    if (!q->enabled)
        die("rang the doorbell of a queue it did not enable");
    const uint8_t *av = at(q->avail, 4u + 2u * q->size);
    if (av == NULL)
        die("put its available ring outside its memory");
    uint16_t idx = ld16(av + 2);
    if ((uint16_t)(idx - q->last_avail) > q->size)
        die("made more heads available than its ring holds");
    while (q->last_avail != idx) {
        uint16_t head = ld16(av + 4u + 2u * (q->last_avail % q->size));
        q->last_avail++;
        if (head >= q->size)
            die("made a head available past its table");
        chain c;
        walk(q, head, &c);
        if (qi == VIOM_REQ && (c.n < 2 || c.len[0] != 51 || c.wr[0]))
            die("sent a request without its 51-byte header");
        for (unsigned k = 0; k < q->npend; k++)
            if (q->pend[k] == head)
                die("made a head available twice");
        if (q->npend < 256)
            q->pend[q->npend++] = head;
    }
}

/* ---- the device's side ---- */

static void reset(void)
{
    g.resets++;
    g.status = 0;
    g.isr = 0;
    g.driver = 0;
    g.sense_size = 96;
    g.cdb_size = 32;
    for (unsigned k = 0; k < 3; k++) {
        uint16_t max = g.q[k].max;
        memset(&g.q[k], 0, sizeof g.q[k]);
        g.q[k].max = max;
        g.q[k].size = max;
    }
}

/* A head the device holds is given back by a used entry naming it, lie or not. */
static void give_back(vq *q, uint32_t id)
{
    for (unsigned k = 0; k < q->npend; k++) {
        if (q->pend[k] == id) {
            memmove(q->pend + k, q->pend + k + 1, (q->npend - k - 1u) * sizeof q->pend[0]);
            q->npend--;
            return;
        }
    }
}

void viom_push_used(unsigned qi, uint32_t id, uint32_t len)
{
    vq *q = &g.q[qi % 3u];
    if (q->size == 0)
        return;
    give_back(q, id);
    uint8_t *u = at(q->used, 4u + 8u * q->size);
    if (u == NULL)
        return;
    uint8_t *e = u + 4u + 8u * (q->used_idx % q->size);
    st32(e, id);
    st32(e + 4, len);
    q->used_idx++;
    st16(u + 2, q->used_idx);
    g.isr |= 1;
}

void viom_bump_used(unsigned qi, uint16_t n)
{
    vq *q = &g.q[qi % 3u];
    uint8_t *u = q->size != 0 ? at(q->used, 4u + 8u * q->size) : NULL;
    if (u == NULL)
        return;
    for (unsigned k = 0; k < n && k < q->size; k++) /* whatever the entries there say */
        give_back(q, ld32(u + 4u + 8u * ((q->used_idx + k) % q->size)));
    q->used_idx = (uint16_t)(q->used_idx + n);
    st16(u + 2, q->used_idx);
    g.isr |= 1;
}

unsigned viom_pending(unsigned qi)
{
    return g.q[qi % 3u].npend;
}

uint16_t viom_pending_head(unsigned qi, unsigned k)
{
    const vq *q = &g.q[qi % 3u];
    return q->npend != 0 ? q->pend[k % q->npend] : 0;
}

static uint16_t unpend(unsigned qi, unsigned k)
{
    vq *q = &g.q[qi];
    k %= q->npend;
    uint16_t h = q->pend[k];
    memmove(q->pend + k, q->pend + k + 1, (q->npend - k - 1u) * sizeof q->pend[0]);
    q->npend--;
    return h;
}

void viom_request(unsigned k, uint8_t *op, int *dir, uint32_t *len)
{
    vq *q = &g.q[VIOM_REQ];
    chain c;
    *op = 0;
    *dir = 0;
    *len = 0;
    if (q->npend == 0)
        return;
    walk(q, q->pend[k % q->npend], &c);
    *op = at(c.addr[0], 51)[19];
    for (unsigned i = 1; i < c.n; i++) {
        bool resp = c.wr[i] && (i == 1 || !c.wr[i - 1]);
        if (resp)
            continue;
        *dir = c.wr[i] ? 1 : 2;
        *len += c.len[i];
    }
}

void viom_complete(unsigned k, uint8_t response, uint8_t status, uint32_t resid, uint32_t sense_len,
                   uint8_t fill, long id, long len)
{
    vq *q = &g.q[VIOM_REQ];
    if (q->npend == 0)
        return;
    uint16_t head = unpend(VIOM_REQ, k);
    chain c;
    walk(q, head, &c);
    uint32_t total = 0;
    bool done_resp = false;
    for (unsigned i = 1; i < c.n; i++) {
        uint8_t *p = at(c.addr[i], c.len[i]);
        if (c.wr[i] && !done_resp) {
            if (c.len[i] < 108)
                die("gave a response buffer shorter than 108 bytes");
            memset(p, 0, c.len[i]);
            st32(p, sense_len);
            st32(p + 4, resid);
            p[10] = status;
            p[11] = response;
            p[12] = 0x70;
            p[14] = 0x05;
            p[19] = 10;
            p[24] = 0x24;
            done_resp = true;
        } else if (c.wr[i]) {
            memset(p, fill, c.len[i]);
        }
        total += c.len[i];
    }
    viom_push_used(VIOM_REQ, id < 0 ? head : (uint32_t)id, len < 0 ? total : (uint32_t)len);
}

void viom_ctl_answer(unsigned k, uint8_t resp)
{
    vq *q = &g.q[VIOM_CTL];
    if (q->npend == 0)
        return;
    uint16_t head = unpend(VIOM_CTL, k);
    chain c;
    walk(q, head, &c);
    if (c.n != 2 || !c.wr[1])
        die("sent a control request that is not request + response");
    uint8_t *p = at(c.addr[1], c.len[1]);
    p[0] = resp;
    if (c.len[1] >= 5)
        p[4] = resp; /* an asynchronous-notification answer: event_actual, response */
    viom_push_used(VIOM_CTL, head, c.len[1]);
}

bool viom_event(uint32_t event, const uint8_t lun[8], uint32_t reason, long len)
{
    vq *q = &g.q[VIOM_EVT];
    if (q->npend == 0)
        return false;
    uint16_t head = unpend(VIOM_EVT, 0);
    chain c;
    walk(q, head, &c);
    if (c.n != 1 || !c.wr[0] || c.len[0] < 16)
        die("lent an event buffer that cannot hold an event");
    uint8_t *p = at(c.addr[0], 16);
    st32(p, event);
    memcpy(p + 4, lun, 8);
    st32(p + 12, reason);
    viom_push_used(VIOM_EVT, head, len < 0 ? 16u : (uint32_t)len);
    return true;
}

void viom_needs_reset(void)
{
    g.status |= 0x40;
    g.isr |= 2;
}

bool viom_irq(void)
{
    return g.isr != 0;
}

void viom_advance(uint64_t ns)
{
    g.now += ns;
}

unsigned viom_mapped(void)
{
    unsigned n = 0;
    for (unsigned k = 0; k < MAPS; k++)
        n += g.maps[k].live;
    return n;
}

unsigned viom_resets(void)
{
    return g.resets;
}

/* ---- registers ---- */

static uint32_t cc_read(unsigned off)
{
    vq *q = &g.q[g.qsel < 3 ? g.qsel : 0];
    bool none = g.qsel >= 3;
    switch (off) {
    case 4: return g.dfsel == 0 ? (uint32_t)g.offered : g.dfsel == 1 ? (uint32_t)(g.offered >> 32) : 0;
    case 12: return g.gfsel == 0 ? (uint32_t)g.driver : (uint32_t)(g.driver >> 32);
    case 18: return 3;
    case 20: return g.lie == VIOM_NEVER_RESETS ? (uint32_t)(g.status | 1u) : g.status;
    case 21: return g.gen;
    case 22: return g.qsel;
    case 24: return none ? 0 : q->size;
    case 26: return 0xFFFF;
    case 28: return none ? 0 : q->enabled;
    case 30: return none ? 0 : g.qsel;
    default: return 0;
    }
}

static void set64(uint64_t *v, bool hi, uint32_t x)
{
    *v = hi ? ((*v & 0xFFFFFFFFu) | (uint64_t)x << 32) : ((*v & ~(uint64_t)0xFFFFFFFFu) | x);
}

static void cc_write(unsigned off, uint32_t v)
{
    vq *q = g.qsel < 3 ? &g.q[g.qsel] : NULL;
    switch (off) {
    case 0: g.dfsel = v; break;
    case 8: g.gfsel = v; break;
    case 12: set64(&g.driver, g.gfsel == 1, v); break;
    case 20:
        if (v == 0) {
            reset();
            break;
        }
        if ((v & 8u) != 0 && ((g.driver & ~g.offered) != 0 || g.lie == VIOM_REFUSES))
            v &= ~8u;
        g.status = (uint8_t)v;
        break;
    case 22: g.qsel = (uint16_t)v; break;
    case 24: if (q != NULL) q->size = (uint16_t)v; break;
    case 28:
        if (q != NULL && v == 1) {
            if (q->size == 0 || q->size > q->max || (q->size & (q->size - 1u)) != 0)
                die("enabled a queue of a size the device did not allow");
            if (at(q->desc, 16u * q->size) == NULL || at(q->avail, 6u + 2u * q->size) == NULL ||
                at(q->used, 6u + 8u * q->size) == NULL || (q->desc & 15u) != 0 || (q->used & 3u) != 0)
                die("put a ring outside its memory or misaligned");
            q->enabled = true;
        }
        break;
    case 32: case 36: if (q != NULL) set64(&q->desc, off == 36, v); break;
    case 40: case 44: if (q != NULL) set64(&q->avail, off == 44, v); break;
    case 48: case 52: if (q != NULL) set64(&q->used, off == 52, v); break;
    default: break;
    }
}

static uint32_t dc_read(unsigned off)
{
    switch (off) {
    case 0: return 1;
    case 4: return g.seg_max;
    case 8: return g.max_sectors;
    case 12: return 128;
    case 16: return g.ev_info;
    case 20: return g.sense_size;
    case 24: return g.cdb_size;
    case 28: return 0;
    case 30: return g.max_target;
    case 32: return 16383;
    default: return 0;
    }
}

static uint32_t reg_read(uintptr_t a)
{
    if (a >= VIOM_COMMON && a < VIOM_COMMON + 0x100)
        return cc_read((unsigned)(a - VIOM_COMMON));
    if (a == VIOM_ISR) {
        uint8_t v = g.isr;
        g.isr = 0;
        return v;
    }
    if (a >= VIOM_DEVICE && a < VIOM_DEVICE + 0x100)
        return dc_read((unsigned)(a - VIOM_DEVICE));
    return 0xFFFFFFFFu;
}

static void reg_write(uintptr_t a, uint32_t v)
{
    if (a >= VIOM_COMMON && a < VIOM_COMMON + 0x100) {
        cc_write((unsigned)(a - VIOM_COMMON), v);
    } else if (a >= VIOM_NOTIFY && a < VIOM_NOTIFY + 0x100) {
        if ((a - VIOM_NOTIFY) != 4u * v || v >= 3)
            die("rang a doorbell that is not its queue's");
        if ((g.status & 4u) == 0)
            die("rang a doorbell before DRIVER_OK");
        take_avail(v);
    } else if (a == VIOM_DEVICE + 20) {
        g.sense_size = v;
    } else if (a == VIOM_DEVICE + 24) {
        g.cdb_size = v;
    }
}

static uint8_t f_rd8(void *c, uintptr_t a) { (void)c; return (uint8_t)reg_read(a); }
static uint16_t f_rd16(void *c, uintptr_t a) { (void)c; return (uint16_t)reg_read(a); }
static uint32_t f_rd32(void *c, uintptr_t a) { (void)c; return reg_read(a); }
static void f_wr8(void *c, uintptr_t a, uint8_t v) { (void)c; reg_write(a, v); }
static void f_wr16(void *c, uintptr_t a, uint16_t v) { (void)c; reg_write(a, v); }
static void f_wr32(void *c, uintptr_t a, uint32_t v) { (void)c; reg_write(a, v); }

static uint64_t f_now(void *ctx)
{
    (void)ctx;
    g.now += 50000u; /* every look at the clock is 50 us later: bounded waits end */
    return g.now;
}

static void f_delay(void *ctx, uint32_t us)
{
    (void)ctx;
    g.now += (uint64_t)us * 1000u;
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
    if (len == 0 || len > MAP_SPAN)
        return -1;
    for (unsigned k = 0; k < MAPS; k++) {
        if (!g.maps[k].live) {
            g.maps[k].va = va;
            g.maps[k].len = len;
            g.maps[k].live = true;
            *bus = MAP_BUS + k * MAP_SPAN;
            return 0;
        }
    }
    return -1;
}

static void f_unmap(void *ctx, void *va, size_t len, pcam_dma_dir d, uint64_t bus)
{
    (void)ctx;
    (void)d;
    unsigned k = (unsigned)((bus - MAP_BUS) / MAP_SPAN);
    if (bus < MAP_BUS || k >= MAPS || !g.maps[k].live || g.maps[k].va != va || g.maps[k].len != len)
        die("unmapped what it never mapped");
    g.maps[k].live = false;
}

void viom_start(const uint8_t *in, size_t len, uint8_t lie, pcam_platform *plat, pcam_virtio_config *cfg,
                viom_log_fn fn)
{
    memset(&g, 0, sizeof g);
    g.in = in;
    g.len = len;
    g.lie = lie;
    log_fn = fn;
    g.dma = calloc(1, PCAM_VIRTIO_DMA_BYTES); /* exact size: ASan sees a write past it */
    g.offered = (1ull << 32) | (1ull << 28) | (1ull << 29) | (1ull << 1) | (1ull << 2);
    g.seg_max = 126;
    g.max_sectors = 0xFFFF;
    g.ev_info = 16;
    g.max_target = 255;
    for (unsigned k = 0; k < 3; k++)
        g.q[k].max = 128;
    if (lie == VIOM_LIE_CONFIG) {
        for (unsigned k = 0; k < 8; k++)
            g.offered ^= (uint64_t)viom_in8() << (8u * k);
        for (unsigned k = 0; k < 3; k++)
            g.q[k].max = (uint16_t)(viom_in8() * 2u);
        g.seg_max = viom_in8();
        g.max_target = viom_in8();
        g.ev_info = viom_in8();
        g.max_sectors = (uint32_t)viom_in8() << 8;
    }
    reset();
    g.resets = 0;
    memset(plat, 0, sizeof *plat);
    plat->now_ns = f_now;
    plat->log = f_log;
    plat->read8 = f_rd8;
    plat->read16 = f_rd16;
    plat->read32 = f_rd32;
    plat->write8 = f_wr8;
    plat->write16 = f_wr16;
    plat->write32 = f_wr32;
    plat->dma_map = f_map;
    plat->dma_unmap = f_unmap;
    plat->delay_us = f_delay;
    memset(cfg, 0, sizeof *cfg);
    cfg->common = VIOM_COMMON;
    cfg->notify = VIOM_NOTIFY;
    cfg->notify_mult = 4;
    cfg->notify_len = 0x100;
    cfg->isr = VIOM_ISR;
    cfg->device = VIOM_DEVICE;
    cfg->dma_va = g.dma;
    cfg->dma_bus = VIOM_DMA_BUS;
    cfg->dma_len = PCAM_VIRTIO_DMA_BYTES;
}

void viom_end(void)
{
    free(g.dma);
    g.dma = NULL;
}

void viom_cfgspace(uint8_t cfg[256])
{
    static const struct { uint8_t at, type, len; uint32_t off, size; } caps[4] = {
        {0x40, 1, 16, 0x0000, 0x38}, {0x50, 3, 16, 0x1000, 0x1}, {0x60, 4, 16, 0x2000, 0x24},
        {0x70, 2, 20, 0x3000, 0x1000},
    };
    memset(cfg, 0, 256);
    st16(cfg, 0x1AF4);
    st16(cfg + 2, 0x1048);
    st16(cfg + 6, 0x0010);
    cfg[0x34] = 0x40;
    for (unsigned k = 0; k < 4; k++) {
        uint8_t *c = cfg + caps[k].at;
        c[0] = 0x09;
        c[1] = k + 1 < 4 ? caps[k + 1].at : 0;
        c[2] = caps[k].len;
        c[3] = caps[k].type;
        c[4] = 4;
        st32(c + 8, caps[k].off);
        st32(c + 12, caps[k].size);
        if (caps[k].type == 2)
            st32(c + 16, 4);
    }
}
