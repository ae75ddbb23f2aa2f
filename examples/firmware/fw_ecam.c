/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI configuration space and DMA addresses for boards whose host bridge is
 * a generic ECAM one with RAM at its CPU address on PCI (QEMU's RISC-V and
 * Arm virt): one copy of fw_board.h's PCI accessors, the board file gives
 * only where the ECAM window is (board_ecam_base). A board with another
 * bridge (Malta's GT-64120) implements them itself and leaves this file out.
 */
#include "fw_board.h"

static volatile uint32_t *ecam(unsigned dev, unsigned fn, unsigned off)
{
    return (volatile uint32_t *)(board_ecam_base + ((uintptr_t)dev << 15) + ((uintptr_t)fn << 12) +
                                 (off & 0xFFCu));
}

uint32_t board_pci_cfg_read(unsigned dev, unsigned fn, unsigned off)
{
    return *ecam(dev, fn, off);
}

void board_pci_cfg_write(unsigned dev, unsigned fn, unsigned off, uint32_t v)
{
    *ecam(dev, fn, off) = v;
}

uint64_t board_dma_addr(const void *va)
{
    return (uintptr_t)va; /* PCI sees RAM at its CPU address */
}
