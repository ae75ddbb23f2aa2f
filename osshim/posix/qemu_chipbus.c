/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pcam bus on a QEMU controller (pcam_qemu_chip.h): the one bring-up
 * every chip shares, driven by the chip's table entry, the interrupt-mode
 * service step and a synchronous helper. Translation only: no SCSI policy
 * lives here, and nothing chip-specific beyond what the entry says.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam_qemu_chip.h"

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

/* Frees what open() and the bus own, in the reverse order of taking it;
 * shared by a failed open and close. */
static int release(pcam_qemu_chipbus *b)
{
    int rc = 0;

    if (b->bus_up)
        pcam_bus_shutdown(&b->bus);
    if (b->q != NULL && b->dma_gpa != 0)
        (void)pcam_qemu_guest_free(b->q, b->dma_gpa);
    if (b->q != NULL)
        rc = pcam_qemu_stop(b->q);
    free(b->luns);
    free(b->sc);
    memset(b, 0, sizeof *b);
    return rc;
}

int pcam_qemu_chipbus_open(pcam_qemu_chipbus *b, const pcam_qemu_chip *chip,
                           const pcam_qemu_chipbus_opts *opts, char *errbuf, size_t errlen)
{
    pcam_qemu_chipbus_opts none;
    pcam_qemu_opts o;
    pcam_bus_config cfg;
    pcam_hal_caps caps;
    int rc;
    pcam_err perr;

    if (b == NULL || chip == NULL)
        return fail(errbuf, errlen, -EINVAL, b == NULL ? "no bus" : "no chip");
    memset(b, 0, sizeof *b);
    if (opts == NULL) {
        memset(&none, 0, sizeof none);
        opts = &none;
    }
    if (errbuf != NULL && errlen != 0)
        errbuf[0] = '\0';
    memset(&o, 0, sizeof o);
    o.qemu = opts->qemu;
    o.controller = chip->controller;
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
    b->chip = chip;
    rc = pcam_qemu_find_pci(b->q, chip->vendor, chip->device, 0, 11, &b->pci);
    if (rc != 0) {
        fail(errbuf, errlen, rc, "%s (PCI %04x:%04x) not found: %s", chip->name, chip->vendor,
             chip->device, rc == -ENODEV ? "no such function" : pcam_qemu_error(b->q));
        goto out;
    }
    b->irq = b->pci.irq;
    pcam_qemu_platform(b->q, &b->plat);
    b->sc = calloc(1, chip->sc_size != 0 ? chip->sc_size : 1);
    if (chip->dma_bytes != 0)
        b->dma = pcam_qemu_guest_alloc(b->q, chip->dma_bytes, &b->dma_gpa);
    if (b->sc == NULL || (chip->dma_bytes != 0 && b->dma == NULL)) {
        rc = fail(errbuf, errlen, -ENOMEM, "no memory for the %s back-end%s", chip->name,
                  chip->dma_bytes != 0 ? " (its DMA area needs shared guest RAM)" : "");
        goto out;
    }
    if (opts->before_attach != NULL) {
        rc = opts->before_attach(b, opts->before_attach_arg);
        if (rc != 0) {
            fail(errbuf, errlen, rc, "preparing the %s failed", chip->name);
            goto out;
        }
    }
    perr = chip->attach(b);
    if (perr != PCAM_OK) {
        rc = fail(errbuf, errlen, -EIO, "attaching the %s back-end: %s", chip->name,
                  pcam_strerror(perr));
        goto out;
    }
    if (chip->identified != NULL && !chip->identified(b)) {
        rc = fail(errbuf, errlen, -ENODEV, "the chip did not identify as an %s", chip->name);
        goto out;
    }

    if (opts->bus_config != NULL)
        cfg = *opts->bus_config;
    else
        pcam_bus_config_defaults(&cfg);
    /* Interrupts arrive as intercepted IRQ lines; polling would only add
     * register round trips. */
    cfg.polled = false;
    if (chip->bus_config != NULL)
        chip->bus_config(b, &cfg);
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
    if (chip->configure != NULL && (perr = chip->configure(b)) != PCAM_OK) {
        rc = fail(errbuf, errlen, -EIO, "configuring the %s: %s", chip->name, pcam_strerror(perr));
        goto out;
    }
    return 0;

out:
    (void)release(b);
    return rc;
}

int pcam_qemu_chipbus_close(pcam_qemu_chipbus *b)
{
    if (b == NULL)
        return 0;
    return release(b);
}

int pcam_qemu_chipbus_step(pcam_qemu_chipbus *b, uint32_t max_wait_ms)
{
    return pcam_qemu_bus_step(b->q, b->irq, &b->bus, &b->intrs, &b->ticks, max_wait_ms);
}

uint32_t pcam_qemu_chipbus_sync(pcam_qemu_chipbus *b, pcam_ccb *ccb, uint32_t timeout_ms)
{
    return pcam_qemu_bus_sync(b->q, b->irq, &b->bus, &b->intrs, &b->ticks, &b->sync, ccb,
                              timeout_ms);
}
