/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's AM53C974 and its Tekram DC-390 as pcam_qemu_chip entries
 * (pcam_qemu_esp.h): how hal/esp is configured for the model, and for the
 * DC-390 the EEPROM read through the function's configuration space, its
 * settings folded into the attach, the bus configuration and the core's
 * per-target limits. The bring-up itself is qemu_chipbus.c.
 */
#include <stdio.h>
#include <string.h>

#include "pcam_qemu_esp.h"

static void esp_config(const pcam_qemu_chipbus *b, pcam_esp_config *ec)
{
    memset(ec, 0, sizeof *ec);
    ec->chip = PCAM_ESP_AUTO;
    ec->base = (uintptr_t)b->pci.bar[0].addr;
    ec->stride = 4;
    ec->clock_khz = 40000;
    ec->initiator_id = 7;
    ec->use_dma = true;
    /* The model treats SELECT WITH ATN3 as a no-op (QEMU.md). */
    ec->flags = PCAM_ESP_F_NO_SELATN3;
}

static pcam_err esp_attach(pcam_qemu_chipbus *b)
{
    pcam_esp_config ec;

    esp_config(b, &ec);
    return pcam_esp_attach(b->sc, &ec, &b->plat, &b->hal);
}

/* hal/esp probes the chip variant; anything but the AM53C974 means the
 * register window is not the one QEMU models. */
static bool esp_identified(const pcam_qemu_chipbus *b)
{
    return pcam_esp_get_chip(b->sc) == PCAM_ESP_AM53C974;
}

const pcam_qemu_chip pcam_qemu_chip_am53c974 = {
    "AM53C974", "am53c974", 0x1022, 0x2020, sizeof(pcam_esp), 0, esp_attach, esp_identified, NULL, NULL,
};

/* ---- the DC-390 ---- */

static uint8_t cfg_rd(void *ctx, uint8_t off)
{
    pcam_qemu_chipbus *b = ctx;
    uint32_t v = 0xFF;

    (void)pcam_qemu_pci_cfg_read(b->q, &b->pci, off, 1, &v);
    return (uint8_t)v;
}

static void cfg_wr(void *ctx, uint8_t off, uint8_t v)
{
    pcam_qemu_chipbus *b = ctx;

    (void)pcam_qemu_pci_cfg_write(b->q, &b->pci, off, 1, v);
}

void pcam_qemu_dc390_cfg_io(pcam_qemu_chipbus *b, pcam_dc390_cfg_io *io)
{
    memset(io, 0, sizeof *io);
    io->ctx = b;
    io->cfg_read8 = cfg_rd;
    io->cfg_write8 = cfg_wr;
}

static void say(const pcam_qemu_chipbus *b, pcam_log_level lv, const char *line)
{
    if (b->plat.log != NULL)
        b->plat.log(b->plat.ctx, lv, line);
}

static pcam_err dc390_attach(pcam_qemu_chipbus *b)
{
    pcam_qemu_dc390 *d = b->sc;
    pcam_dc390_cfg_io io;
    pcam_esp_config ec;
    uint8_t raw[PCAM_DC390_EEPROM_BYTES];
    const char *why = "no EEPROM answers";
    char line[160];

    pcam_qemu_dc390_cfg_io(b, &io);
    d->nvram_read = pcam_dc390_read_eeprom(&io, raw);
    if (d->nvram_read == PCAM_OK)
        d->nvram_parse = pcam_dc390_parse(raw, sizeof raw, &d->nvram, &why);
    else
        d->nvram_parse = pcam_dc390_parse(NULL, 0, &d->nvram, NULL);
    if (d->nvram.valid)
        snprintf(line, sizeof line, "DC-390 EEPROM: host ID %u, %u tags per LUN", d->nvram.host_id,
                 d->nvram.max_tags);
    else
        snprintf(line, sizeof line, "DC-390 EEPROM: %s; AM53C974 defaults", why);
    say(b, d->nvram.valid ? PCAM_LOG_INFO : PCAM_LOG_WARN, line);
    esp_config(b, &ec);
    pcam_dc390_apply(&d->nvram, &ec, NULL);
    return pcam_esp_attach(&d->esp, &ec, &b->plat, &b->hal);
}

static void dc390_bus_config(const pcam_qemu_chipbus *b, pcam_bus_config *cfg)
{
    const pcam_qemu_dc390 *d = b->sc;

    pcam_dc390_apply(&d->nvram, NULL, cfg);
}

static pcam_err dc390_configure(pcam_qemu_chipbus *b)
{
    const pcam_qemu_dc390 *d = b->sc;

    return pcam_dc390_set_limits(&b->bus, &d->nvram);
}

const pcam_qemu_chip pcam_qemu_chip_dc390 = {
    "DC-390", "dc390", 0x1022, 0x2020, sizeof(pcam_qemu_dc390), 0, dc390_attach, esp_identified,
    dc390_bus_config, dc390_configure,
};
