/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcam_platform over UEFI boot services: BAR0 I/O through
 * EFI_PCI_IO_PROTOCOL.Io, DMA through PciIo Map/Unmap (the root bridge
 * bounces only where it must, e.g. above 4 GiB for this 32-bit engine), a
 * monotonic clock from the CPU's counter calibrated against gBS->Stall, and
 * delays from gBS->Stall. It must never allocate or wait for an event: the
 * core calls it with the bus "lock" (TPL_CALLBACK) held.
 */
#include "uefi_internal.h"

/* The C library pieces the freestanding core needs and libefi lacks. */
void *memmove(void *dst, const void *src, size_t n)
{
    UINT8 *d = dst;
    const UINT8 *s = src;

    if (d < s) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        while (n-- > 0)
            d[n] = s[n];
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const UINT8 *x = a, *y = b;

    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static UINT64 cpu_counter(void)
{
#if defined(__x86_64__) || defined(__i386__)
    UINT32 lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((UINT64)hi << 32) | lo;
#elif defined(__aarch64__)
    UINT64 v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
#error "osshim/uefi: no monotonic counter for this architecture"
#endif
}

static uint64_t now_ns(void *ctx)
{
    pcam_uefi_ctrl *c = ctx;
    UINT64 t = cpu_counter();

    /* Split so that hours of uptime never overflow the product. */
    return (t / c->tsc_per_ms) * 1000000u + ((t % c->tsc_per_ms) * 1000000u) / c->tsc_per_ms;
}

static uint8_t rd8(void *ctx, uintptr_t addr)
{
    pcam_uefi_ctrl *c = ctx;
    UINT8 v = 0xFF;

    c->pci->Io.Read(c->pci, EfiPciIoWidthUint8, 0, addr, 1, &v);
    return v;
}

static uint16_t rd16(void *ctx, uintptr_t addr)
{
    pcam_uefi_ctrl *c = ctx;
    UINT16 v = 0xFFFF;

    c->pci->Io.Read(c->pci, EfiPciIoWidthUint16, 0, addr, 1, &v);
    return v;
}

static uint32_t rd32(void *ctx, uintptr_t addr)
{
    pcam_uefi_ctrl *c = ctx;
    UINT32 v = 0xFFFFFFFFu;

    c->pci->Io.Read(c->pci, EfiPciIoWidthUint32, 0, addr, 1, &v);
    return v;
}

static void wr8(void *ctx, uintptr_t addr, uint8_t value)
{
    pcam_uefi_ctrl *c = ctx;

    c->pci->Io.Write(c->pci, EfiPciIoWidthUint8, 0, addr, 1, &value);
}

static void wr16(void *ctx, uintptr_t addr, uint16_t value)
{
    pcam_uefi_ctrl *c = ctx;

    c->pci->Io.Write(c->pci, EfiPciIoWidthUint16, 0, addr, 1, &value);
}

static void wr32(void *ctx, uintptr_t addr, uint32_t value)
{
    pcam_uefi_ctrl *c = ctx;

    c->pci->Io.Write(c->pci, EfiPciIoWidthUint32, 0, addr, 1, &value);
}

static int dma_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus_addr)
{
    pcam_uefi_ctrl *c = ctx;
    UINTN n = len;
    EFI_PHYSICAL_ADDRESS dev = 0;
    VOID *mapping = NULL;
    EFI_STATUS st;
    pcam_uefi_map *m = NULL;

    for (UINTN i = 0; i < PCAM_UEFI_MAPS; i++) {
        if (c->maps[i].mapping == NULL) {
            m = &c->maps[i];
            break;
        }
    }
    if (m == NULL || c->quiesced)
        return -1;
    st = c->pci->Map(c->pci,
                     dir == PCAM_DMA_TO_DEVICE ? EfiPciIoOperationBusMasterRead
                                               : EfiPciIoOperationBusMasterWrite,
                     va, &n, &dev, &mapping);
    if (EFI_ERROR(st))
        return -1;
    if (n < len) {
        /* A partial mapping would move the wrong bytes: refuse it. */
        c->pci->Unmap(c->pci, mapping);
        return -1;
    }
    m->mapping = mapping;
    m->va = va;
    m->bus = dev;
    *bus_addr = dev;
    return 0;
}

static void dma_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus_addr)
{
    pcam_uefi_ctrl *c = ctx;

    (void)len;
    (void)dir;
    for (UINTN i = 0; i < PCAM_UEFI_MAPS; i++) {
        pcam_uefi_map *m = &c->maps[i];
        if (m->mapping != NULL && m->va == va && m->bus == bus_addr) {
            /* Unmap copies a bounce buffer back for bus-master writes. */
            c->pci->Unmap(c->pci, m->mapping);
            m->mapping = NULL;
            return;
        }
    }
}

static void delay_us(void *ctx, uint32_t us)
{
    (void)ctx;
    BS->Stall(us);
}

static void log_line(void *ctx, pcam_log_level level, const char *line)
{
    (void)ctx;
    /* Errors only: the console is the user's, and the serial log the tests'. */
    if (level == PCAM_LOG_ERROR && line != NULL)
        Print(L"pcam: %a\r\n", line);
}

void pcam_uefi_platform_init(pcam_uefi_ctrl *c)
{
    UINT64 t0, t1;

    t0 = cpu_counter();
    BS->Stall(20000);
    t1 = cpu_counter();
    c->tsc_per_ms = (t1 - t0) / 20u;
    if (c->tsc_per_ms == 0)
        c->tsc_per_ms = 1;

    c->plat.ctx = c;
    c->plat.now_ns = now_ns;
    c->plat.log = log_line;
    c->plat.read8 = rd8;
    c->plat.read16 = rd16;
    c->plat.read32 = rd32;
    c->plat.write8 = wr8;
    c->plat.write16 = wr16;
    c->plat.write32 = wr32;
    c->plat.dma_map = dma_map;
    c->plat.dma_unmap = dma_unmap;
    c->plat.delay_us = delay_us;
}
