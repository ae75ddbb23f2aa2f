/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's AM53C974 as a pcam_qemu_chip entry (pcam_qemu_esp.h): how hal/esp
 * is configured for the model. The bring-up itself is qemu_chipbus.c.
 */
#include <string.h>

#include "pcam_qemu_esp.h"

static pcam_err esp_attach(pcam_qemu_chipbus *b)
{
    pcam_esp_config ec;

    memset(&ec, 0, sizeof ec);
    ec.chip = PCAM_ESP_AUTO;
    ec.base = (uintptr_t)b->pci.bar[0].addr;
    ec.stride = 4;
    ec.clock_khz = 40000;
    ec.initiator_id = 7;
    ec.use_dma = true;
    /* The model treats SELECT WITH ATN3 as a no-op (QEMU.md). */
    ec.flags = PCAM_ESP_F_NO_SELATN3;
    return pcam_esp_attach(b->sc, &ec, &b->plat, &b->hal);
}

/* hal/esp probes the chip variant; anything but the AM53C974 means the
 * register window is not the one QEMU models. */
static bool esp_identified(const pcam_qemu_chipbus *b)
{
    return pcam_esp_get_chip(b->sc) == PCAM_ESP_AM53C974;
}

const pcam_qemu_chip pcam_qemu_chip_am53c974 = {
    "AM53C974", "am53c974", 0x1022, 0x2020, sizeof(pcam_esp), 0, esp_attach, esp_identified,
};
