/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_pci.c: bus-0 PCI enumeration as boot firmware does it. Size every BAR
 * of every function (host bridges excepted), place it naturally aligned in
 * the board's I/O or memory window, then enable decoding and bus
 * mastering. Configuration cycles go through the board (ECAM, or a
 * bridge's address/data pair). It never touches a device's own registers:
 * that is the chip back-ends' job.
 */
#include "fw.h"

#define MAX_FNS 16

static fw_pci_fn fns[MAX_FNS];
static unsigned nfns;
static uint32_t next_io, next_mem;

static uint32_t place(uint32_t *next, const fw_pci_window *w, uint32_t size)
{
    uint32_t at = (*next + size - 1u) & ~(size - 1u);

    if (at < w->pci || at - w->pci + size > w->size)
        return 0; /* window full: the BAR stays unassigned */
    *next = at + size;
    return at;
}

static void size_bars(fw_pci_fn *f)
{
    for (unsigned i = 0; i < 6; i++) {
        unsigned off = 0x10 + 4 * i;
        uint32_t old = board_pci_cfg_read(f->dev, f->fn, off);
        board_pci_cfg_write(f->dev, f->fn, off, 0xFFFFFFFFu);
        uint32_t probe = board_pci_cfg_read(f->dev, f->fn, off);
        board_pci_cfg_write(f->dev, f->fn, off, old);
        if (probe == 0 || probe == 0xFFFFFFFFu)
            continue;
        bool io = (probe & 1u) != 0;
        uint32_t mask = io ? (probe & 0xFFFFFFFCu) | 0xFFFF0000u : probe & 0xFFFFFFF0u;
        uint32_t size = ~mask + 1u;
        const fw_pci_window *w = io ? &board_info.io : &board_info.mem;
        uint32_t at = place(io ? &next_io : &next_mem, w, size);
        if (at == 0)
            continue;
        board_pci_cfg_write(f->dev, f->fn, off, at);
        if (!io && ((probe >> 1) & 3u) == 2u) /* 64-bit BAR: upper half 0 */
            board_pci_cfg_write(f->dev, f->fn, off + 4, 0);
        f->bar_io[i] = io;
        f->bar_pci[i] = at;
        f->bar_size[i] = size;
        f->bar_cpu[i] = w->cpu + (at - w->pci);
        if (!io && ((probe >> 1) & 3u) == 2u)
            i++;
    }
}

unsigned fw_pci_enumerate(void)
{
    next_io = board_info.io.pci;
    next_mem = board_info.mem.pci;
    nfns = 0;
    for (unsigned dev = 0; dev < 32; dev++) {
        for (unsigned fn = 0; fn < 8 && nfns < MAX_FNS; fn++) {
            uint32_t id = board_pci_cfg_read(dev, fn, 0);
            if ((id & 0xFFFFu) == 0xFFFFu) {
                if (fn == 0)
                    break;
                continue;
            }
            uint32_t cls = board_pci_cfg_read(dev, fn, 8);
            uint32_t hdr = board_pci_cfg_read(dev, fn, 0x0C) >> 16;
            fw_pci_fn *f = &fns[nfns++];
            memset(f, 0, sizeof *f);
            f->dev = dev;
            f->fn = fn;
            f->vendor = (uint16_t)id;
            f->device = (uint16_t)(id >> 16);
            f->revision = (uint8_t)cls;
            /* Bridges are the board's business (their windows are fixed by
             * the board); everything else gets its BARs and bus mastering. */
            if ((cls >> 24) != 0x06 && (hdr & 0x7Fu) == 0) {
                uint32_t cmd = board_pci_cfg_read(dev, fn, 4);
                board_pci_cfg_write(dev, fn, 4, cmd & ~7u & 0xFFFFu);
                size_bars(f);
                board_pci_cfg_write(dev, fn, 4, (cmd & 0xFFFFu) | 7u); /* I/O, memory, bus master */
            }
            fw_printf("pci 00:%02u.%u %04x:%04x class %06x", dev, fn, f->vendor, f->device,
                      (unsigned)(cls >> 8));
            for (unsigned i = 0; i < 6; i++)
                if (f->bar_size[i] != 0)
                    fw_printf(" bar%u %s 0x%x+0x%x", i, f->bar_io[i] ? "io" : "mem",
                              (unsigned)f->bar_pci[i], (unsigned)f->bar_size[i]);
            fw_printf("\n");
            if (fn == 0 && (hdr & 0x80u) == 0)
                break; /* single-function device */
        }
    }
    return nfns;
}

const fw_pci_fn *fw_pci_find(uint16_t vendor, uint16_t device, unsigned n)
{
    for (unsigned i = 0; i < nfns; i++)
        if (fns[i].vendor == vendor && fns[i].device == device && n-- == 0)
            return &fns[i];
    return NULL;
}
