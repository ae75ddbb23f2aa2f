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

/**
 * The bus's `sc` for the DC-390 entry: the back-end first (so it is a
 * ::pcam_esp as for the AM53C974), then what the EEPROM said.
 */
typedef struct pcam_qemu_dc390 {
    pcam_esp esp;               /**< hal/esp's state. */
    pcam_dc390_settings nvram;  /**< The decoded EEPROM (defaults when it was not valid). */
    pcam_err nvram_read;        /**< pcam_dc390_read_eeprom()'s result. */
    pcam_err nvram_parse;       /**< pcam_dc390_parse()'s result. */
} pcam_qemu_dc390;

/**
 * QEMU's Tekram DC-390 (`-device dc390`: an AM53C974, the same PCI IDs,
 * with a 93C46 EEPROM): the AM53C974's attach after the EEPROM is read
 * and decoded (pcam_dc390_read_eeprom(), pcam_dc390_parse()); its host ID,
 * parity and tag count go into the attach and the bus configuration
 * (pcam_dc390_apply()), its per-target limits to the bus with
 * #PCAM_FN_SET_TRAN. A blank or corrupt EEPROM, or impossible settings,
 * leave the AM53C974's defaults with a warning in the log.
 */
extern const pcam_qemu_chip pcam_qemu_chip_dc390;

/**
 * The DC-390 EEPROM pins of the bus's PCI function over qtest (for tests
 * that read or write the EEPROM themselves).
 * @param b an open bus (or one in pcam_qemu_chipbus_opts::before_attach).
 * @param io filled.
 */
void pcam_qemu_dc390_cfg_io(pcam_qemu_chipbus *b, pcam_dc390_cfg_io *io);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_ESP_H */
