/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's LSI53C895A (and its 53C810) as pcam_qemu_chip entries (pcam_qemu_sym.h): how
 * hal/sym is configured for the model, its DMA area (script, rings,
 * command blocks) in shared guest RAM. The bring-up itself is
 * qemu_chipbus.c.
 */
#include <string.h>

#include "pcam_qemu_sym.h"

static pcam_err sym_attach(pcam_qemu_chipbus *b)
{
    pcam_sym_config sc;
    uint32_t rev = 0;

    (void)pcam_qemu_pci_cfg_read(b->q, &b->pci, 0x08, 1, &rev);
    memset(&sc, 0, sizeof sc);
    sc.base = (uintptr_t)b->pci.bar[0].addr; /* the I/O BAR */
    sc.pci_device = b->pci.device;
    sc.pci_revision = (uint8_t)rev;
    sc.initiator_id = 7;
    sc.dma_va = b->dma;
    sc.dma_bus = b->dma_gpa;
    sc.dma_len = PCAM_SYM_DMA_BYTES;
    return pcam_sym_attach(b->sc, &sc, &b->plat, &b->hal);
}

const pcam_qemu_chip pcam_qemu_chip_lsi53c895a = {
    "LSI53C895A", "lsi53c895a", 0x1000, 0x0012, sizeof(pcam_sym), PCAM_SYM_DMA_BYTES, sym_attach, NULL,
    NULL, NULL,
};

/* QEMU's lsi53c810 is the same model under PCI ID 0x0001 with revision 0:
 * a pre-A 53C810 by hal/sym's chip table, refused at attach (docs/sym.md,
 * "The plain 53C810"). */
const pcam_qemu_chip pcam_qemu_chip_lsi53c810 = {
    "53C810", "lsi53c810", 0x1000, 0x0001, sizeof(pcam_sym), PCAM_SYM_DMA_BYTES, sym_attach, NULL,
    NULL, NULL,
};
