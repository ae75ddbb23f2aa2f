/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_platform.c: the pcam_platform of this firmware, the whole of what the
 * porting guide asks of a platform layer: a clock (the board's counter), a
 * log (the UART), register access (the BAR's CPU address, one volatile
 * access each; PCI is little-endian, so 16- and 32-bit values are swapped
 * on a big-endian CPU), DMA mapping (the board's CPU-to-bus offset) and a
 * busy-wait for chip-reset settle times. The "lock" is the CPU's interrupt
 * mask, taken in fw_main.c. Nothing here may allocate, sleep or decide
 * anything about the SCSI bus.
 */
#include "fw.h"

uint64_t fw_now_ns(void)
{
    return (board_ticks() * board_info.tick_mul) >> board_info.tick_shift;
}

uint64_t fw_ns_to_ticks(uint64_t ns)
{
    return fw_divmod(ns << board_info.tick_shift, board_info.tick_mul, NULL);
}

static uint64_t now_ns(void *ctx)
{
    (void)ctx;
    return fw_now_ns();
}

static void log_line(void *ctx, pcam_log_level level, const char *line)
{
    static const char *const lv[] = {"error", "warn", "info", "debug"};

    (void)ctx;
    if (level <= PCAM_LOG_INFO)
        fw_printf("pcam %s: %s\n", lv[level], line);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static uint16_t le16(uint16_t v) { return (uint16_t)((v >> 8) | (v << 8)); }
static uint32_t le32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}
#else
static uint16_t le16(uint16_t v) { return v; }
static uint32_t le32(uint32_t v) { return v; }
#endif

static uint8_t rd8(void *ctx, uintptr_t a)
{
    (void)ctx;
    return *(volatile uint8_t *)a;
}

static uint16_t rd16(void *ctx, uintptr_t a)
{
    (void)ctx;
    return le16(*(volatile uint16_t *)a);
}

static uint32_t rd32(void *ctx, uintptr_t a)
{
    (void)ctx;
    return le32(*(volatile uint32_t *)a);
}

/* A register write may start DMA from memory the CPU just wrote (hal/sym's
 * start ring, hal/esp's selection bytes): order those writes first. */
static void wr8(void *ctx, uintptr_t a, uint8_t v)
{
    (void)ctx;
    __sync_synchronize();
    *(volatile uint8_t *)a = v;
}

static void wr16(void *ctx, uintptr_t a, uint16_t v)
{
    (void)ctx;
    __sync_synchronize();
    *(volatile uint16_t *)a = le16(v);
}

static void wr32(void *ctx, uintptr_t a, uint32_t v)
{
    (void)ctx;
    __sync_synchronize();
    *(volatile uint32_t *)a = le32(v);
}

/* Caches: QEMU models none, and these boards run with the MMU and caches
 * off (or, on MIPS, buffers in KSEG0 whose cache QEMU does not model). On
 * hardware with caches this is where clean (to device) and invalidate
 * (from device) would go. Memory is identity- or offset-mapped, so there
 * is never a bounce buffer. */
static int dma_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    (void)ctx;
    (void)len;
    (void)dir;
    *bus = board_dma_addr(va);
    __sync_synchronize();
    return 0;
}

static void dma_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    (void)ctx;
    (void)va;
    (void)len;
    (void)dir;
    (void)bus;
    __sync_synchronize();
}

static void delay_us(void *ctx, uint32_t us)
{
    uint64_t end = fw_now_ns() + (uint64_t)us * 1000u;

    (void)ctx;
    while (fw_now_ns() < end)
        ;
}

void fw_platform_get(pcam_platform *p)
{
    memset(p, 0, sizeof *p);
    p->now_ns = now_ns;
    p->log = log_line;
    p->read8 = rd8;
    p->read16 = rd16;
    p->read32 = rd32;
    p->write8 = wr8;
    p->write16 = wr16;
    p->write32 = wr32;
    p->dma_map = dma_map;
    p->dma_unmap = dma_unmap;
    p->delay_us = delay_us;
}
