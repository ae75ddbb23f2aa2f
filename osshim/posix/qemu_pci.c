/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI bus 0 through configuration mechanism #1 (ports 0xCF8/0xCFC): the
 * harness plays firmware, so it sizes and places BARs, enables decoding and
 * bus mastering, and routes INTx through the PIIX3 itself.
 */
#include "qemu_internal.h"

#include <errno.h>
#include <string.h>

#define CFG_ADDR 0xcf8u
#define CFG_DATA 0xcfcu
/* The i440FX machine's PCI-to-ISA bridge, whose PIRQ route registers
 * (0x60-0x63, one per PIRQA-D, 0x80 = disabled at reset) pick the ISA IRQ. */
#define PIIX3_DEV 1u
#define PIIX3_PIRQRC 0x60u
#define PCI_COMMAND 0x04u
#define PCI_CMD_IO 0x1u
#define PCI_CMD_MEM 0x2u
#define PCI_CMD_MASTER 0x4u
#define PCI_BAR0 0x10u
#define PCI_INT_LINE 0x3cu
#define PCI_INT_PIN 0x3du

static uint32_t cfg_addr(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off)
{
    return 0x80000000u | ((uint32_t)bus << 16) | ((uint32_t)(dev & 31u) << 11) |
           ((uint32_t)(fn & 7u) << 8) | (off & 0xfcu);
}

static int cfg_read(pcam_qemu *q, uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off,
                    unsigned width, uint32_t *v)
{
    int rc;

    if ((width != 1 && width != 2 && width != 4) || (off & (width - 1u)) != 0)
        return -EINVAL;
    rc = pcam_qemu_out(q, CFG_ADDR, 4, cfg_addr(bus, dev, fn, off));
    if (rc == 0)
        rc = pcam_qemu_in(q, CFG_DATA + (off & 3u), width, v);
    return rc;
}

static int cfg_write(pcam_qemu *q, uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off,
                     unsigned width, uint32_t v)
{
    int rc;

    if ((width != 1 && width != 2 && width != 4) || (off & (width - 1u)) != 0)
        return -EINVAL;
    rc = pcam_qemu_out(q, CFG_ADDR, 4, cfg_addr(bus, dev, fn, off));
    if (rc == 0)
        rc = pcam_qemu_out(q, CFG_DATA + (off & 3u), width, v);
    return rc;
}

int pcam_qemu_pci_cfg_read(pcam_qemu *q, const pcam_qemu_pci_dev *d, uint8_t off, unsigned width,
                           uint32_t *value)
{
    return cfg_read(q, d->bus, d->dev, d->fn, off, width, value);
}

int pcam_qemu_pci_cfg_write(pcam_qemu *q, const pcam_qemu_pci_dev *d, uint8_t off, unsigned width,
                            uint32_t value)
{
    return cfg_write(q, d->bus, d->dev, d->fn, off, width, value);
}

int pcam_qemu_pci_scan(pcam_qemu *q, pcam_qemu_pci_dev *out, size_t max, size_t *count)
{
    uint8_t dev, fn;
    size_t n = 0;
    int rc;

    for (dev = 0; dev < 32; dev++) {
        for (fn = 0; fn < 8; fn++) {
            uint32_t id, cls, hdr;
            rc = cfg_read(q, 0, dev, fn, 0x00, 4, &id);
            if (rc != 0)
                return rc;
            if ((id & 0xffffu) == 0xffffu || id == 0) {
                if (fn == 0)
                    break;
                continue;
            }
            rc = cfg_read(q, 0, dev, fn, 0x08, 4, &cls);
            if (rc == 0)
                rc = cfg_read(q, 0, dev, fn, 0x0e, 1, &hdr);
            if (rc != 0)
                return rc;
            if (n < max) {
                pcam_qemu_pci_dev *d = &out[n];
                memset(d, 0, sizeof *d);
                d->bus = 0;
                d->dev = dev;
                d->fn = fn;
                d->vendor = (uint16_t)(id & 0xffffu);
                d->device = (uint16_t)(id >> 16);
                d->class_code = cls >> 8;
            }
            n++;
            /* Functions 1-7 exist only behind a multi-function header. */
            if (fn == 0 && (hdr & 0x80u) == 0)
                break;
        }
    }
    if (count != NULL)
        *count = n;
    return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1u) & ~(a - 1u);
}

/* Size one BAR by writing all-ones and reading back the mask. Decoding is
 * off while this runs, so the transient address does not matter. */
static int size_and_place_bar(pcam_qemu *q, pcam_qemu_pci_dev *d, unsigned i, unsigned *skip)
{
    uint8_t off = (uint8_t)(PCI_BAR0 + 4u * i);
    pcam_qemu_pci_bar *b = &d->bar[i];
    uint32_t orig, mask, hi_mask = 0;
    int rc;

    *skip = 0;
    rc = cfg_read(q, d->bus, d->dev, d->fn, off, 4, &orig);
    if (rc == 0)
        rc = cfg_write(q, d->bus, d->dev, d->fn, off, 4, 0xffffffffu);
    if (rc == 0)
        rc = cfg_read(q, d->bus, d->dev, d->fn, off, 4, &mask);
    if (rc == 0)
        rc = cfg_write(q, d->bus, d->dev, d->fn, off, 4, orig);
    if (rc != 0)
        return rc;
    if (mask == 0)
        return 0;
    if (mask & 1u) {
        b->io = true;
        b->size = (uint64_t)((~(mask & ~3u) & 0xffffu) + 1u);
        if (b->size < 4)
            b->size = 4;
        b->addr = align_up(q->next_io, b->size);
        if (b->addr + b->size > 0x10000u)
            return -ENOSPC;
        q->next_io = (uint32_t)(b->addr + b->size);
        return cfg_write(q, d->bus, d->dev, d->fn, off, 4, (uint32_t)b->addr | 1u);
    }
    if (((mask >> 1) & 3u) == 2u && i < 5) {
        uint8_t off_hi = (uint8_t)(off + 4u);
        uint32_t orig_hi;
        b->is64 = true;
        *skip = 1;
        rc = cfg_read(q, d->bus, d->dev, d->fn, off_hi, 4, &orig_hi);
        if (rc == 0)
            rc = cfg_write(q, d->bus, d->dev, d->fn, off_hi, 4, 0xffffffffu);
        if (rc == 0)
            rc = cfg_read(q, d->bus, d->dev, d->fn, off_hi, 4, &hi_mask);
        if (rc != 0)
            return rc;
    }
    {
        uint64_t m = ((uint64_t)hi_mask << 32) | (mask & ~0xfu);
        if (!b->is64)
            m |= 0xffffffff00000000ull;
        b->size = ~m + 1u;
    }
    /* Windows go below the I/O APIC, page aligned, in the 32-bit hole. */
    b->addr = align_up(q->next_mem, b->size < 4096u ? 4096u : b->size);
    if (b->size > 0x10000000u || b->addr + b->size > 0xfec00000u)
        return -ENOSPC;
    q->next_mem = b->addr + b->size;
    rc = cfg_write(q, d->bus, d->dev, d->fn, off, 4, (uint32_t)b->addr);
    if (rc == 0 && b->is64)
        rc = cfg_write(q, d->bus, d->dev, d->fn, (uint8_t)(off + 4u), 4, 0);
    return rc;
}

int pcam_qemu_find_pci(pcam_qemu *q, uint16_t vendor, uint16_t device, unsigned index,
                       unsigned irq, pcam_qemu_pci_dev *out)
{
    pcam_qemu_pci_dev all[64];
    size_t n = 0, i;
    unsigned seen = 0, b, skip;
    uint32_t cmd, pin;
    const char *reply;
    int rc;

    if (irq == 0)
        irq = 11;
    if (irq != 5 && irq != 9 && irq != 10 && irq != 11)
        return -EINVAL;
    rc = pcam_qemu_pci_scan(q, all, sizeof all / sizeof all[0], &n);
    if (rc != 0)
        return rc;
    if (n > sizeof all / sizeof all[0])
        n = sizeof all / sizeof all[0];
    for (i = 0; i < n; i++) {
        if (all[i].vendor == vendor && all[i].device == device && seen++ == index)
            break;
    }
    if (i == n)
        return -ENODEV;
    *out = all[i];

    rc = cfg_read(q, out->bus, out->dev, out->fn, PCI_COMMAND, 2, &cmd);
    if (rc == 0)
        rc = cfg_write(q, out->bus, out->dev, out->fn, PCI_COMMAND, 2,
                       cmd & ~(PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER));
    for (b = 0; rc == 0 && b < 6; b += 1u + skip)
        rc = size_and_place_bar(q, out, b, &skip);
    if (rc == 0)
        rc = cfg_write(q, out->bus, out->dev, out->fn, PCI_COMMAND, 2,
                       cmd | PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER);
    if (rc == 0)
        rc = cfg_read(q, out->bus, out->dev, out->fn, PCI_INT_PIN, 1, &pin);
    if (rc != 0)
        return rc;
    out->irq_pin = (uint8_t)pin;
    if (pin >= 1 && pin <= 4) {
        /* i440FX slot swizzle: PIRQ = (INTx + slot - 1) mod 4, INTA = 0. */
        unsigned pirq = (pin - 1u + out->dev - 1u) & 3u;
        rc = cfg_write(q, 0, PIIX3_DEV, 0, (uint8_t)(PIIX3_PIRQRC + pirq), 1, irq);
        if (rc == 0)
            rc = cfg_write(q, out->bus, out->dev, out->fn, PCI_INT_LINE, 1, irq);
        if (rc == 0 && !q->intercepted) {
            /* ISA IRQs reach the I/O APIC on the input of the same number. */
            rc = qemu_cmd(q, "irq_intercept_in ioapic", &reply);
            if (rc == 0)
                q->intercepted = true;
        }
        if (rc != 0)
            return rc;
        out->irq = (uint8_t)irq;
    }
    pcam_posix_logf(&q->px, PCAM_LOG_INFO,
                    "qemu: pci %02x:%02x.%u %04x:%04x BAR0 %s 0x%llx size 0x%llx, INT%c -> IRQ %u",
                    out->bus, out->dev, out->fn, out->vendor, out->device,
                    out->bar[0].io ? "io" : "mem", (unsigned long long)out->bar[0].addr,
                    (unsigned long long)out->bar[0].size, pin ? (char)('A' + pin - 1) : '-',
                    (unsigned)out->irq);
    return 0;
}
