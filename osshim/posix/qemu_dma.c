/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest memory: bulk copies (shared RAM, b64 or hex over the socket), the
 * guest RAM allocator behind in-place buffers and DMA bounce buffers, and the
 * pcam_platform a chip back-end runs on.
 */
#include "qemu_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef PCAM_HAVE_VALGRIND_H
#include <valgrind/memcheck.h>
/* QEMU writes guest RAM from another process, which Memcheck cannot see:
 * bytes primed from an uninitialised buffer would stay "undefined" after the
 * device overwrote them. What is in guest RAM is what the device made it. */
#define DEVICE_WROTE(p, n) VALGRIND_MAKE_MEM_DEFINED(p, n)
#else
#define DEVICE_WROTE(p, n) ((void)(p), (void)(n))
#endif

/* Bulk commands are cut into pieces this big so no line grows without bound. */
#define BULK_CHUNK 65536u
/* The legacy VGA and BIOS ROM window is not plain RAM in the guest's view. */
#define LOW_HOLE_START 0xa0000u

static const char b64tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64val(char c)
{
    const char *p;

    if (c == '\0')
        return -1;
    p = strchr(b64tab, c);
    return p ? (int)(p - b64tab) : -1;
}

static bool in_shared_ram(const pcam_qemu *q, uint64_t addr, size_t len)
{
    if (q->ram == NULL || addr + len < addr || addr + len > q->ram_size)
        return false;
    return addr >= QEMU_GUEST_POOL_START || addr + len <= LOW_HOLE_START;
}

static int grow_wbuf(pcam_qemu *q, size_t need)
{
    char *b;

    if (q->wcap >= need)
        return 0;
    b = realloc(q->wbuf, need);
    if (b == NULL)
        return qemu_fail(q, -ENOMEM, "out of memory for a qtest command");
    q->wbuf = b;
    q->wcap = need;
    return 0;
}

static int write_chunk(pcam_qemu *q, uint64_t addr, const uint8_t *p, size_t len)
{
    const char *reply;
    size_t n, i;
    int rc;

    rc = grow_wbuf(q, 64 + 2 * len + 4);
    if (rc != 0)
        return rc;
    n = (size_t)snprintf(q->wbuf, q->wcap, "%s 0x%llx 0x%zx ",
                         q->bulk == PCAM_QEMU_BULK_HEX ? "write" : "b64write",
                         (unsigned long long)addr, len);
    if (q->bulk == PCAM_QEMU_BULK_HEX) {
        static const char hex[] = "0123456789abcdef";
        q->wbuf[n++] = '0';
        q->wbuf[n++] = 'x';
        for (i = 0; i < len; i++) {
            q->wbuf[n++] = hex[p[i] >> 4];
            q->wbuf[n++] = hex[p[i] & 15u];
        }
    } else {
        for (i = 0; i < len; i += 3) {
            uint32_t v = (uint32_t)p[i] << 16;
            if (i + 1 < len)
                v |= (uint32_t)p[i + 1] << 8;
            if (i + 2 < len)
                v |= p[i + 2];
            q->wbuf[n++] = b64tab[(v >> 18) & 63u];
            q->wbuf[n++] = b64tab[(v >> 12) & 63u];
            q->wbuf[n++] = i + 1 < len ? b64tab[(v >> 6) & 63u] : '=';
            q->wbuf[n++] = i + 2 < len ? b64tab[v & 63u] : '=';
        }
    }
    q->wbuf[n++] = '\n';
    rc = qemu_cmd_big(q, q->wbuf, n, &reply);
    if (rc == 0)
        q->stats.bulk_bytes += len;
    return rc;
}

static int read_chunk(pcam_qemu *q, uint64_t addr, uint8_t *p, size_t len)
{
    char line[80];
    const char *r;
    size_t i, o = 0;
    int rc;

    snprintf(line, sizeof line, "%s 0x%llx 0x%zx", q->bulk == PCAM_QEMU_BULK_HEX ? "read" : "b64read",
             (unsigned long long)addr, len);
    rc = qemu_cmd(q, line, &r);
    if (rc != 0)
        return rc;
    if (q->bulk == PCAM_QEMU_BULK_HEX) {
        if (strncmp(r, "0x", 2) != 0 || strlen(r + 2) != 2 * len)
            return qemu_fail(q, -EPROTO, "hex read reply of the wrong size");
        r += 2;
        for (i = 0; i < len; i++) {
            int hi = r[2 * i], lo = r[2 * i + 1];
            hi = hi <= '9' ? hi - '0' : (hi | 0x20) - 'a' + 10;
            lo = lo <= '9' ? lo - '0' : (lo | 0x20) - 'a' + 10;
            if (hi < 0 || hi > 15 || lo < 0 || lo > 15)
                return qemu_fail(q, -EPROTO, "hex read reply has a bad digit");
            p[i] = (uint8_t)(hi << 4 | lo);
        }
    } else {
        size_t rl = strlen(r);
        if (rl != (len + 2) / 3 * 4)
            return qemu_fail(q, -EPROTO, "b64read reply of the wrong size");
        for (i = 0; i < rl; i += 4) {
            int a = b64val(r[i]), b = b64val(r[i + 1]), c = b64val(r[i + 2]), d = b64val(r[i + 3]);
            uint32_t v;
            if (a < 0 || b < 0 || (c < 0 && r[i + 2] != '=') || (d < 0 && r[i + 3] != '='))
                return qemu_fail(q, -EPROTO, "b64read reply is not base64");
            v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)(c < 0 ? 0 : c) << 6 |
                (uint32_t)(d < 0 ? 0 : d);
            if (o < len)
                p[o++] = (uint8_t)(v >> 16);
            if (o < len)
                p[o++] = (uint8_t)(v >> 8);
            if (o < len)
                p[o++] = (uint8_t)v;
        }
    }
    q->stats.bulk_bytes += len;
    return 0;
}

int qemu_bulk_read(pcam_qemu *q, uint64_t addr, void *buf, size_t len)
{
    uint8_t *p = buf;
    int rc;

    if (q->bulk == PCAM_QEMU_BULK_SHM && in_shared_ram(q, addr, len)) {
        DEVICE_WROTE(q->ram + addr, len);
        memcpy(buf, q->ram + addr, len);
        q->stats.shm_bytes += len;
        return 0;
    }
    while (len > 0) {
        size_t n = len < BULK_CHUNK ? len : BULK_CHUNK;
        rc = read_chunk(q, addr, p, n);
        if (rc != 0)
            return rc;
        addr += n;
        p += n;
        len -= n;
    }
    return 0;
}

int qemu_bulk_write(pcam_qemu *q, uint64_t addr, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    int rc;

    if (q->bulk == PCAM_QEMU_BULK_SHM && in_shared_ram(q, addr, len)) {
        memcpy(q->ram + addr, buf, len);
        q->stats.shm_bytes += len;
        return 0;
    }
    while (len > 0) {
        size_t n = len < BULK_CHUNK ? len : BULK_CHUNK;
        rc = write_chunk(q, addr, p, n);
        if (rc != 0)
            return rc;
        addr += n;
        p += n;
        len -= n;
    }
    return 0;
}

int pcam_qemu_memread(pcam_qemu *q, uint64_t addr, void *buf, size_t len)
{
    if (q->failed)
        return -EPIPE;
    return len ? qemu_bulk_read(q, addr, buf, len) : 0;
}

int pcam_qemu_memwrite(pcam_qemu *q, uint64_t addr, const void *buf, size_t len)
{
    if (q->failed)
        return -EPIPE;
    return len ? qemu_bulk_write(q, addr, buf, len) : 0;
}

int pcam_qemu_set_bulk(pcam_qemu *q, pcam_qemu_bulk mode)
{
    if (mode != PCAM_QEMU_BULK_SHM && mode != PCAM_QEMU_BULK_B64 && mode != PCAM_QEMU_BULK_HEX)
        return -EINVAL;
    if (mode == PCAM_QEMU_BULK_SHM && q->ram == NULL)
        return -EINVAL;
    q->bulk = mode;
    return 0;
}

void *pcam_qemu_ram(const pcam_qemu *q, size_t *size)
{
    if (size != NULL)
        *size = q->ram ? q->ram_size : 0;
    return q->ram;
}

/* First fit over the extents, which are kept sorted by address. */
static qemu_extent *extent_alloc(pcam_qemu *q, size_t len)
{
    uint64_t size = ((uint64_t)len + QEMU_GUEST_ALIGN - 1u) & ~(uint64_t)(QEMU_GUEST_ALIGN - 1u);
    uint64_t cur = QEMU_GUEST_POOL_START;
    size_t i;

    if (size == 0)
        size = QEMU_GUEST_ALIGN;
    if (q->next >= QEMU_MAX_EXTENTS)
        return NULL;
    for (i = 0; i < q->next; i++) {
        if (q->ext[i].gpa - cur >= size)
            break;
        cur = q->ext[i].gpa + q->ext[i].size;
    }
    if (i == q->next && (cur > q->ram_size || q->ram_size - cur < size))
        return NULL;
    memmove(&q->ext[i + 1], &q->ext[i], (q->next - i) * sizeof q->ext[0]);
    q->next++;
    memset(&q->ext[i], 0, sizeof q->ext[i]);
    q->ext[i].gpa = cur;
    q->ext[i].size = size;
    return &q->ext[i];
}

static qemu_extent *extent_find(pcam_qemu *q, uint64_t gpa)
{
    size_t lo = 0, hi = q->next;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (q->ext[mid].gpa == gpa)
            return &q->ext[mid];
        if (q->ext[mid].gpa < gpa)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void extent_free(pcam_qemu *q, qemu_extent *e)
{
    size_t i = (size_t)(e - q->ext);

    memmove(&q->ext[i], &q->ext[i + 1], (q->next - i - 1) * sizeof q->ext[0]);
    q->next--;
}

int pcam_qemu_guest_alloc_gpa(pcam_qemu *q, size_t len, uint64_t *gpa)
{
    qemu_extent *e = extent_alloc(q, len);

    if (e == NULL)
        return -ENOMEM;
    *gpa = e->gpa;
    return 0;
}

void *pcam_qemu_guest_alloc(pcam_qemu *q, size_t len, uint64_t *gpa)
{
    uint64_t a;

    if (q->ram == NULL || pcam_qemu_guest_alloc_gpa(q, len, &a) != 0)
        return NULL;
    if (gpa != NULL)
        *gpa = a;
    return q->ram + a;
}

int pcam_qemu_guest_free(pcam_qemu *q, uint64_t gpa)
{
    qemu_extent *e = extent_find(q, gpa);

    if (e == NULL)
        return -EINVAL;
    extent_free(q, e);
    return 0;
}

size_t pcam_qemu_guest_live(const pcam_qemu *q)
{
    return q->next;
}

/* ---- the platform ---------------------------------------------------- */

/* x86 port space is 64 KiB, so an address below it is an I/O BAR port. */
#define PORT_LIMIT 0x10000u

static uint64_t plat_read(pcam_qemu *q, uintptr_t addr, unsigned width)
{
    if (addr < PORT_LIMIT) {
        uint32_t v;
        pcam_qemu_in(q, (uint32_t)addr, width, &v);
        return v;
    } else {
        uint64_t v;
        pcam_qemu_mmio_read(q, addr, width, &v);
        return v;
    }
}

static void plat_write(pcam_qemu *q, uintptr_t addr, unsigned width, uint32_t v)
{
    if (addr < PORT_LIMIT)
        pcam_qemu_out(q, (uint32_t)addr, width, v);
    else
        pcam_qemu_mmio_write(q, addr, width, v);
}

static uint8_t p_read8(void *ctx, uintptr_t a) { return (uint8_t)plat_read(ctx, a, 1); }
static uint16_t p_read16(void *ctx, uintptr_t a) { return (uint16_t)plat_read(ctx, a, 2); }
static uint32_t p_read32(void *ctx, uintptr_t a) { return (uint32_t)plat_read(ctx, a, 4); }
static void p_write8(void *ctx, uintptr_t a, uint8_t v) { plat_write(ctx, a, 1, v); }
static void p_write16(void *ctx, uintptr_t a, uint16_t v) { plat_write(ctx, a, 2, v); }
static void p_write32(void *ctx, uintptr_t a, uint32_t v) { plat_write(ctx, a, 4, v); }

static uint64_t p_now(void *ctx)
{
    (void)ctx;
    return pcam_posix_now_ns();
}

static void p_log(void *ctx, pcam_log_level level, const char *line)
{
    pcam_qemu *q = ctx;
    pcam_posix_log(&q->px, level, line);
}

static void p_delay(void *ctx, uint32_t us)
{
    (void)ctx;
    pcam_posix_delay_us(us);
}

static int p_dma_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    pcam_qemu *q = ctx;
    qemu_extent *e;
    int rc;

    if (va == NULL || len == 0 || bus == NULL ||
        (dir != PCAM_DMA_TO_DEVICE && dir != PCAM_DMA_FROM_DEVICE))
        return -EINVAL;
    if (q->failed)
        return -EPIPE;
    /* A buffer already in guest RAM is the device's to use in place. */
    if (q->ram != NULL && (uint8_t *)va >= q->ram + QEMU_GUEST_POOL_START &&
        (uint8_t *)va < q->ram + q->ram_size && len <= (size_t)(q->ram + q->ram_size - (uint8_t *)va)) {
        *bus = (uint64_t)((uint8_t *)va - q->ram);
        q->stats.dma_maps++;
        return 0;
    }
    e = extent_alloc(q, len);
    if (e == NULL) {
        pcam_posix_logf(&q->px, PCAM_LOG_ERROR,
                        "qemu: DMA bounce space full (%zu live mappings, %zu bytes wanted)",
                        q->next, len);
        return -ENOMEM;
    }
    e->bounce = true;
    e->va = va;
    e->len = len;
    e->dir = dir;
    /* FROM_DEVICE is primed too, so bytes a short transfer leaves alone
     * come back unchanged instead of as stale bounce contents. */
    rc = qemu_bulk_write(q, e->gpa, va, len);
    if (rc != 0) {
        extent_free(q, e);
        return rc;
    }
    *bus = e->gpa;
    q->stats.dma_maps++;
    q->stats.dma_bounced++;
    return 0;
}

static void p_dma_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    pcam_qemu *q = ctx;
    qemu_extent *e = extent_find(q, bus);

    if (e == NULL || !e->bounce) {
        if (q->ram != NULL && (uint8_t *)va == q->ram + bus)
            return; /* in place: nothing to copy or free */
        pcam_posix_logf(&q->px, PCAM_LOG_ERROR, "qemu: dma_unmap of unknown mapping 0x%llx",
                        (unsigned long long)bus);
        return;
    }
    if (e->va != va || e->len != len || e->dir != dir)
        pcam_posix_logf(&q->px, PCAM_LOG_WARN,
                        "qemu: dma_unmap 0x%llx does not match its dma_map", (unsigned long long)bus);
    if (e->dir == PCAM_DMA_FROM_DEVICE && !q->failed)
        qemu_bulk_read(q, e->gpa, e->va, e->len);
    extent_free(q, e);
}

void pcam_qemu_platform(pcam_qemu *q, pcam_platform *out)
{
    out->ctx = q;
    out->now_ns = p_now;
    out->log = p_log;
    out->read8 = p_read8;
    out->read16 = p_read16;
    out->read32 = p_read32;
    out->write8 = p_write8;
    out->write16 = p_write16;
    out->write32 = p_write32;
    out->dma_map = p_dma_map;
    out->dma_unmap = p_dma_unmap;
    out->delay_us = p_delay;
}
