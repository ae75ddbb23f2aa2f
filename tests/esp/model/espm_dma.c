/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AM53C974 (PCscsi) DMA engine and the host-memory side of DMA.
 *
 * Registers (AMD PCscsi datasheet, as QEMU 7.2's esp-pci.c and Linux's
 * am53c974.c use them): at +0x40 + 4k: CMD, STC (start count), SPA (start
 * address), WBC (working count), WAC (working address), STATUS, SMDLA,
 * WMAC. Writing START copies STC/SPA/SMDLA to the working registers and
 * clears the status; the ESP core's DMA command then moves bytes between
 * the SCSI bus and memory at WAC, counting WBC down. DONE is set when WBC
 * reaches zero. Status bits clear on read when SBAC bit 24 is set, else by
 * writing ones (QEMU 7.2 behaviour).
 *
 * Every DMA access is checked against the live dma_map mappings, so a
 * back-end that DMAs to memory it has not mapped, or unmapped too early, or
 * in the wrong direction, is caught instead of corrupting the test.
 */
#include <string.h>

#include "espm_internal.h"

void espm_dma_reset(espm *m)
{
    m->dreg[D_CMD] = 0;
    m->dreg[D_WBC] = 0;
    m->dreg[D_STAT] = 0;
}

bool espm_dma_ready(const espm *m)
{
    return m->cfg.chip == ESPM_AM53C974 && (m->dreg[D_CMD] & DC_MASK) == DC_START;
}

uint32_t espm_dma_read32(espm *m, unsigned k)
{
    uint32_t v;

    if (k > D_WMAC)
        return 0;
    v = m->dreg[k];
    if (k == D_STAT) {
        if (m->irq)
            v |= DS_SCSIINT;
        if (m->sbac & SBAC_STATUS)
            m->dreg[D_STAT] &= ~(uint32_t)(DS_ERROR | DS_ABORT | DS_DONE);
    }
    return v;
}

void espm_dma_write32(espm *m, unsigned k, uint32_t v)
{
    switch (k) {
    case D_CMD:
        m->dreg[D_CMD] = v;
        if (v & DC_MDL)
            espm_error(m, "DMA CMD 0x%02lx: MDL (scatter-gather list) mode is not modelled", (unsigned long)v);
        if (v & DC_DIAG)
            espm_error(m, "DMA CMD 0x%02lx: diagnostic mode", (unsigned long)v);
        switch (v & DC_MASK) {
        case DC_START:
            m->dreg[D_WBC] = m->dreg[D_STC];
            m->dreg[D_WAC] = m->dreg[D_SPA];
            m->dreg[D_WMAC] = m->dreg[D_SMDLA];
            m->dreg[D_STAT] &= ~(uint32_t)(DS_BCMPLT | DS_DONE | DS_ABORT | DS_ERROR | DS_PWDN);
            /* Linux's am53c974 driver never lets a run cross a 16 MiB
             * boundary of bus space; the model holds back-ends to the same. */
            if ((m->dreg[D_WAC] & 0xFFFFFFu) + (uint64_t)m->dreg[D_WBC] > 0x1000000u)
                espm_error(m, "DMA run of %lu bytes at bus 0x%lx crosses a 16 MiB boundary",
                           (unsigned long)m->dreg[D_WBC], (unsigned long)m->dreg[D_WAC]);
            espm_dma_started(m);
            break;
        case DC_BLAST:
            /* The model moves bytes exactly: nothing is left to blast. */
            m->dreg[D_STAT] |= DS_BCMPLT;
            break;
        case DC_ABORT:
            m->dreg[D_STAT] |= DS_ABORT;
            break;
        default:
            break;
        }
        break;
    case D_STC:
    case D_SPA:
    case D_SMDLA:
        m->dreg[k] = v;
        break;
    case D_STAT:
        if (!(m->sbac & SBAC_STATUS))
            m->dreg[D_STAT] &= ~(v & (uint32_t)(DS_ERROR | DS_ABORT | DS_DONE));
        break;
    default:
        espm_error(m, "write to read-only DMA register %u", k);
        break;
    }
}

/* Is [addr, addr+len) inside one live mapping usable in this direction? */
bool espm_dma_check(espm *m, uint64_t addr, uint32_t len, bool to_mem, void **host)
{
    unsigned i;

    *host = NULL;
    for (i = 0; i < ESPM_MAPS; i++) {
        const espm_map *p = &m->maps[i];

        if (p->len == 0 || addr < p->bus || addr - p->bus > p->len || len > p->len - (addr - p->bus))
            continue;
        if (to_mem && p->dir != PCAM_DMA_FROM_DEVICE) {
            espm_error(m, "DMA writes memory at bus 0x%llx mapped TO_DEVICE", (unsigned long long)addr);
            m->dreg[D_STAT] |= DS_ERROR;
            return false;
        }
        if (!to_mem && p->dir != PCAM_DMA_TO_DEVICE) {
            espm_error(m, "DMA reads memory at bus 0x%llx mapped FROM_DEVICE", (unsigned long long)addr);
            m->dreg[D_STAT] |= DS_ERROR;
            return false;
        }
        *host = (uint8_t *)p->va + (size_t)(addr - p->bus);
        return true;
    }
    espm_error(m, "DMA of %lu bytes at bus 0x%llx: not inside a live dma_map mapping", (unsigned long)len,
               (unsigned long long)addr);
    m->dreg[D_STAT] |= DS_ERROR;
    return false;
}

void espm_dma_advance(espm *m, uint32_t n)
{
    if (n > m->dreg[D_WBC]) {
        espm_error(m, "DMA moved %lu bytes with only %lu left in the engine's count", (unsigned long)n,
                   (unsigned long)m->dreg[D_WBC]);
        n = m->dreg[D_WBC];
    }
    m->dreg[D_WBC] -= n;
    m->dreg[D_WAC] += n;
    m->stats.dma_bytes += n;
    if (m->dreg[D_WBC] == 0)
        m->dreg[D_STAT] |= DS_DONE;
}

/*
 * The engine's address registers are 32 bits and host buffers on a 64-bit
 * host are not, so dma_map works like an IOMMU: each live mapping gets its
 * own 16 MiB window of 32-bit bus space (keeping the offset within a 4 KiB
 * page, so alignment is what the buffer's is). A back-end that programs a
 * virtual address instead of the one dma_map gave is caught by the check.
 */
int espm_dma_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    espm *m = ctx;
    unsigned i;

    if (m == NULL || va == NULL || bus == NULL || len == 0)
        return -1;
    if (dir != PCAM_DMA_TO_DEVICE && dir != PCAM_DMA_FROM_DEVICE) {
        espm_error(m, "dma_map with direction %d", (int)dir);
        return -1;
    }
    if (len > ESPM_WINDOW - 4096u) {
        espm_error(m, "dma_map of %lu bytes: more than the model's window", (unsigned long)len);
        return -1;
    }
    if (m->cfg.chip != ESPM_AM53C974)
        espm_error(m, "dma_map on a chip without a modelled DMA engine");
    for (i = 0; i < ESPM_MAPS; i++) {
        espm_map *p = &m->maps[i];

        if (p->len == 0) {
            p->va = va;
            p->len = len;
            p->dir = dir;
            if (m->map_skew == 0)
                p->bus = ESPM_BUS0 + (uint64_t)i * ESPM_WINDOW + ((uintptr_t)va & 0xFFFu);
            else
                p->bus = ESPM_BUS0 + (uint64_t)i * 2u * ESPM_WINDOW + m->map_skew + ((uintptr_t)va & 0xFFFu);
            *bus = p->bus;
            return 0;
        }
    }
    espm_error(m, "dma_map: more than %u live mappings (leak?)", ESPM_MAPS);
    return -1;
}

void espm_set_map_skew(espm *m, uint32_t skew)
{
    if (m != NULL)
        m->map_skew = skew & (ESPM_WINDOW - 4096u);
}

void espm_dma_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    espm *m = ctx;
    unsigned i;

    if (m == NULL)
        return;
    for (i = 0; i < ESPM_MAPS; i++) {
        espm_map *p = &m->maps[i];

        if (p->len != 0 && p->bus == bus && p->len == len && p->dir == dir && p->va == va) {
            p->len = 0;
            return;
        }
    }
    espm_error(m, "dma_unmap of %p len %lu bus 0x%llx: no such mapping", va, (unsigned long)len,
               (unsigned long long)bus);
}

unsigned espm_dma_live_maps(const espm *m)
{
    unsigned i, n = 0;

    for (i = 0; i < ESPM_MAPS; i++)
        if (m->maps[i].len != 0)
            n++;
    return n;
}
