/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_sym.h
 * @brief QEMU's LSI53C895A driven by hal/sym: the chip's entry for the one
 *        bring-up in pcam_qemu_chip.h, pcam_qemu_chipbus_open(&b,
 *        &pcam_qemu_chip_lsi53c895a, ...).
 *
 * hal/sym's DMA area (script, rings, command blocks) is placed in shared
 * guest RAM, so the bus cannot open with pcam_qemu_chipbus_opts::no_shared_ram.
 * The bus's `sc` is a ::pcam_sym.
 */
#ifndef PCAM_QEMU_SYM_H
#define PCAM_QEMU_SYM_H

#include "pcam/pcam_sym.h"
#include "pcam_qemu_chip.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QEMU's LSI53C895A (`-device lsi53c895a`, PCI 1000:0012) driven by hal/sym. */
extern const pcam_qemu_chip pcam_qemu_chip_lsi53c895a;

/**
 * QEMU's 53C810 (`-device lsi53c810`, PCI 1000:0001, revision 0): QEMU's
 * LSI53C895A model under the 53C810's ID. Revision 0 is a pre-A 53C810,
 * without LOAD/STORE, so hal/sym refuses it (#PCAM_ERR_UNSUPPORTED, with a
 * log line naming the part) and the open fails with -EIO.
 */
extern const pcam_qemu_chip pcam_qemu_chip_lsi53c810;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_SYM_H */
