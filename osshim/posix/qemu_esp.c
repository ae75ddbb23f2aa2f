/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pcam bus on QEMU's AM53C974 (pcam_qemu_esp.h): bring-up, the
 * interrupt-mode service step, and a synchronous helper.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam_qemu_esp.h"

static int fail(char *errbuf, size_t errlen, int rc, const char *fmt, ...)
{
    va_list ap;

    if (errbuf != NULL && errlen != 0) {
        va_start(ap, fmt);
        vsnprintf(errbuf, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int pcam_qemu_esp_open(pcam_qemu_esp *b, const pcam_qemu_esp_opts *opts, char *errbuf, size_t errlen)
{
    pcam_qemu_esp_opts none;
    pcam_qemu_opts o;
    pcam_esp_config ec;
    pcam_bus_config cfg;
    pcam_hal_caps caps;
    int rc;
    pcam_err perr;

    if (b == NULL)
        return fail(errbuf, errlen, -EINVAL, "no bus");
    memset(b, 0, sizeof *b);
    if (opts == NULL) {
        memset(&none, 0, sizeof none);
        opts = &none;
    }
    if (errbuf != NULL && errlen != 0)
        errbuf[0] = '\0';
    memset(&o, 0, sizeof o);
    o.qemu = opts->qemu;
    o.drives = opts->drives;
    o.ndrives = opts->ndrives;
    o.ram_mb = opts->ram_mb != 0 ? opts->ram_mb : 64;
    o.extra_args = opts->extra_args;
    o.monitor = opts->monitor;
    o.no_shared_ram = opts->no_shared_ram;
    o.log_file = opts->log_file;
    o.log_level = opts->log_level;
    rc = pcam_qemu_start(&b->q, &o, errbuf, errlen);
    if (rc != 0) {
        b->q = NULL;
        return rc;
    }
    rc = pcam_qemu_find_pci(b->q, 0x1022, 0x2020, 0, 11, &b->pci);
    if (rc != 0) {
        fail(errbuf, errlen, rc, "AM53C974 (PCI 1022:2020) not found: %s",
             rc == -ENODEV ? "no such function" : pcam_qemu_error(b->q));
        goto out;
    }
    b->irq = b->pci.irq;
    pcam_qemu_platform(b->q, &b->plat);

    memset(&ec, 0, sizeof ec);
    ec.chip = PCAM_ESP_AUTO;
    ec.base = (uintptr_t)b->pci.bar[0].addr;
    ec.stride = 4;
    ec.clock_khz = 40000;
    ec.initiator_id = 7;
    ec.use_dma = true;
    /* The model treats SELECT WITH ATN3 as a no-op (QEMU.md). */
    ec.flags = PCAM_ESP_F_NO_SELATN3;
    perr = pcam_esp_attach(&b->esp, &ec, &b->plat, &b->hal);
    if (perr != PCAM_OK) {
        rc = fail(errbuf, errlen, -EIO, "pcam_esp_attach: %s", pcam_strerror(perr));
        goto out;
    }
    if (pcam_esp_get_chip(&b->esp) != PCAM_ESP_AM53C974) {
        rc = fail(errbuf, errlen, -ENODEV, "the chip did not identify as an AM53C974");
        goto out;
    }

    if (opts->bus_config != NULL)
        cfg = *opts->bus_config;
    else
        pcam_bus_config_defaults(&cfg);
    /* Interrupts arrive as intercepted IRQ lines; polling would only add
     * register round trips. */
    cfg.polled = false;
    b->hal.ops->get_caps(b->hal.sc, &caps);
    b->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    b->luns = calloc(b->nluns != 0 ? b->nluns : 1, sizeof *b->luns);
    if (b->luns == NULL) {
        rc = fail(errbuf, errlen, -ENOMEM, "out of memory for %zu LUNs", b->nluns);
        goto out;
    }
    perr = pcam_bus_init(&b->bus, &cfg, &b->hal, &b->plat, b->luns, b->nluns);
    if (perr != PCAM_OK) {
        rc = fail(errbuf, errlen, -EIO, "pcam_bus_init: %s", pcam_strerror(perr));
        goto out;
    }
    b->bus_up = true;
    return 0;

out:
    pcam_qemu_stop(b->q);
    free(b->luns);
    memset(b, 0, sizeof *b);
    return rc;
}

int pcam_qemu_esp_close(pcam_qemu_esp *b)
{
    int rc = 0;

    if (b == NULL)
        return 0;
    if (b->bus_up)
        pcam_bus_shutdown(&b->bus);
    if (b->q != NULL)
        rc = pcam_qemu_stop(b->q);
    free(b->luns);
    memset(b, 0, sizeof *b);
    return rc;
}

int pcam_qemu_esp_step(pcam_qemu_esp *b, uint32_t max_wait_ms)
{
    return pcam_qemu_bus_step(b->q, b->irq, &b->bus, &b->intrs, &b->ticks, max_wait_ms);
}

uint32_t pcam_qemu_esp_sync(pcam_qemu_esp *b, pcam_ccb *ccb, uint32_t timeout_ms)
{
    return pcam_qemu_bus_sync(b->q, b->irq, &b->bus, &b->intrs, &b->ticks, &b->sync, ccb,
                              timeout_ms);
}
