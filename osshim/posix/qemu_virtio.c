/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's virtio-scsi-pci as pcam_qemu_chip entries (pcam_qemu_virtio.h):
 * the transitional function QEMU gives a PCI bus by default and the
 * modern-only one (disable-legacy=on), both driven through the modern
 * interface. The function's capabilities are read here (the back-end has
 * no configuration-space access) and their BAR windows turned into
 * addresses the qtest platform reaches. The bring-up itself is
 * qemu_chipbus.c.
 */
#include <string.h>

#include "pcam_qemu_virtio.h"

static uintptr_t where(const pcam_qemu_chipbus *b, const pcam_virtio_region *r)
{
    return (uintptr_t)(b->pci.bar[r->bar].addr + r->offset);
}

static pcam_err virtio_attach(pcam_qemu_chipbus *b)
{
    uint8_t cfg[256];
    pcam_virtio_caps caps;
    pcam_virtio_config vc;
    pcam_err rc;

    for (unsigned off = 0; off < sizeof cfg; off += 4) {
        uint32_t v = 0;
        if (pcam_qemu_pci_cfg_read(b->q, &b->pci, (uint8_t)off, 4, &v) != 0)
            return PCAM_ERR_UNSUPPORTED;
        memcpy(cfg + off, &v, 4); /* the harness is little-endian like PCI */
    }
    rc = pcam_virtio_parse_caps(cfg, sizeof cfg, &caps);
    if (rc != PCAM_OK)
        return rc;
    const pcam_virtio_region *need[4] = {&caps.common, &caps.notify, &caps.isr, &caps.device};
    for (unsigned k = 0; k < 4; k++)
        if (b->pci.bar[need[k]->bar].addr == 0 || b->pci.bar[need[k]->bar].io ||
            (uint64_t)need[k]->offset + need[k]->length > b->pci.bar[need[k]->bar].size)
            return PCAM_ERR_RANGE;
    memset(&vc, 0, sizeof vc);
    vc.common = where(b, &caps.common);
    vc.notify = where(b, &caps.notify);
    vc.notify_mult = caps.notify_mult;
    vc.notify_len = caps.notify.length;
    vc.isr = where(b, &caps.isr);
    vc.device = where(b, &caps.device);
    vc.dma_va = b->dma;
    vc.dma_bus = b->dma_gpa;
    vc.dma_len = PCAM_VIRTIO_DMA_BYTES;
    vc.max_targets = 16;
    return pcam_virtio_attach(b->sc, &vc, &b->plat, &b->hal);
}

const pcam_qemu_chip pcam_qemu_chip_virtio_scsi = {
    "virtio-scsi", "virtio-scsi-pci", 0x1AF4, 0x1004, sizeof(pcam_virtio), PCAM_VIRTIO_DMA_BYTES,
    virtio_attach, NULL,
};

const pcam_qemu_chip pcam_qemu_chip_virtio_scsi_modern = {
    "virtio-scsi (modern only)", "virtio-scsi-pci,disable-legacy=on", 0x1AF4, 0x1048, sizeof(pcam_virtio),
    PCAM_VIRTIO_DMA_BYTES, virtio_attach, NULL,
};
