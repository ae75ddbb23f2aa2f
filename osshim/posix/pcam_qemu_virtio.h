/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_virtio.h
 * @brief QEMU's virtio-scsi-pci driven by hal/virtio: the chip's entries
 *        for the one bring-up in pcam_qemu_chip.h,
 *        pcam_qemu_chipbus_open(&b, &pcam_qemu_chip_virtio_scsi, ...).
 *
 * hal/virtio's DMA area (the virtqueues, request and response headers,
 * indirect tables, event buffers) is placed in shared guest RAM, so the bus
 * cannot open with pcam_qemu_chipbus_opts::no_shared_ram. The bus's `sc` is
 * a ::pcam_virtio. The controller's drives sit on its bus `scsi0.0`.
 */
#ifndef PCAM_QEMU_VIRTIO_H
#define PCAM_QEMU_VIRTIO_H

#include "pcam/pcam_virtio.h"
#include "pcam_qemu_chip.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QEMU's virtio-scsi-pci as it comes on a PCI bus: transitional (PCI 1AF4:1004), driven through its modern interface. */
extern const pcam_qemu_chip pcam_qemu_chip_virtio_scsi;

/** The same with `disable-legacy=on`: modern only (PCI 1AF4:1048), no legacy I/O BAR. */
extern const pcam_qemu_chip pcam_qemu_chip_virtio_scsi_modern;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_VIRTIO_H */
