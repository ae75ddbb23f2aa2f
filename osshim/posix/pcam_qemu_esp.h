/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_esp.h
 * @brief QEMU's AM53C974 driven by hal/esp: the chip's entry for the one
 *        bring-up in pcam_qemu_chip.h, pcam_qemu_chipbus_open(&b,
 *        &pcam_qemu_chip_am53c974, ...).
 *
 * hal/esp is attached with its DMA engine and ::PCAM_ESP_F_NO_SELATN3
 * (QEMU's model treats SELECT WITH ATN3 as a no-op); a chip that does not
 * identify as an AM53C974 fails the open with -ENODEV. The bus's `sc` is
 * a ::pcam_esp.
 */
#ifndef PCAM_QEMU_ESP_H
#define PCAM_QEMU_ESP_H

#include "pcam/pcam_esp.h"
#include "pcam_qemu_chip.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QEMU's AM53C974 (`-device am53c974`, PCI 1022:2020) driven by hal/esp. */
extern const pcam_qemu_chip pcam_qemu_chip_am53c974;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_ESP_H */
