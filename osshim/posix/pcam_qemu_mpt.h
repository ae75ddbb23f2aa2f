/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_mpt.h
 * @brief QEMU's LSI SAS1068 (Fusion-MPT) driven by hal/mpt: the chip's
 *        entry for the one bring-up in pcam_qemu_chip.h,
 *        pcam_qemu_chipbus_open(&b, &pcam_qemu_chip_mptsas1068, ...).
 *
 * hal/mpt's DMA area (request frames, chain and sense buffers, reply
 * frames) is placed in shared guest RAM, so the bus cannot open with
 * pcam_qemu_chipbus_opts::no_shared_ram. The bus's `sc` is a ::pcam_mpt.
 */
#ifndef PCAM_QEMU_MPT_H
#define PCAM_QEMU_MPT_H

#include "pcam/pcam_mpt.h"
#include "pcam_qemu_chip.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QEMU's LSI SAS1068 (`-device mptsas1068`, PCI 1000:0054) driven by hal/mpt. */
extern const pcam_qemu_chip pcam_qemu_chip_mptsas1068;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_MPT_H */
