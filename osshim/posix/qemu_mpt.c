/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's LSI SAS1068 as a pcam_qemu_chip entry (pcam_qemu_mpt.h): how
 * hal/mpt is configured for the model, its DMA area in shared guest RAM.
 * The bring-up itself is qemu_chipbus.c.
 */
#include <string.h>

#include "pcam_qemu_mpt.h"

static pcam_err mpt_attach(pcam_qemu_chipbus *b)
{
    pcam_mpt_config mc;

    memset(&mc, 0, sizeof mc);
    mc.base = (uintptr_t)b->pci.bar[0].addr; /* the I/O BAR: the same registers as BAR 1 */
    mc.dma_va = b->dma;
    mc.dma_bus = b->dma_gpa;
    mc.dma_len = PCAM_MPT_DMA_BYTES;
    /* 16 IDs: the port's own ID on the model is 8 (past its 8 devices), so
     * all of 0..7 stay addressable; 9..15 answer DEVICE NOT THERE. */
    mc.max_targets = 16;
    return pcam_mpt_attach(b->sc, &mc, &b->plat, &b->hal);
}

const pcam_qemu_chip pcam_qemu_chip_mptsas1068 = {
    "SAS1068", "mptsas1068", 0x1000, 0x0054, sizeof(pcam_mpt), PCAM_MPT_DMA_BYTES, mpt_attach, NULL,
    NULL, NULL,
};
