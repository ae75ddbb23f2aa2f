/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pcam bus on QEMU's LSI53C895A (pcam_qemu_sym.h): bring-up, the
 * interrupt-mode service step, and a synchronous helper. Translation only:
 * no SCSI policy lives here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam_qemu_sym.h"

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

static void cleanup(pcam_qemu_sym *b)
{
    if (b->q != NULL && b->dma_gpa != 0)
        (void)pcam_qemu_guest_free(b->q, b->dma_gpa);
    pcam_qemu_stop(b->q);
    free(b->luns);
    free(b->sym);
    memset(b, 0, sizeof *b);
}

int pcam_qemu_sym_open(pcam_qemu_sym *b, const pcam_qemu_sym_opts *opts, char *errbuf, size_t errlen)
{
    pcam_qemu_sym_opts none;
    pcam_qemu_opts o;
    pcam_sym_config sc;
    pcam_bus_config cfg;
    pcam_hal_caps caps;
    uint32_t rev = 0;
    void *dma;
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
    o.controller = "lsi53c895a";
    o.drives = opts->drives;
    o.ndrives = opts->ndrives;
    o.ram_mb = opts->ram_mb != 0 ? opts->ram_mb : 64;
    o.extra_args = opts->extra_args;
    o.monitor = opts->monitor;
    o.log_file = opts->log_file;
    o.log_level = opts->log_level;
    rc = pcam_qemu_start(&b->q, &o, errbuf, errlen);
    if (rc != 0) {
        b->q = NULL;
        return rc;
    }
    rc = pcam_qemu_find_pci(b->q, 0x1000, 0x0012, 0, 11, &b->pci);
    if (rc != 0) {
        rc = fail(errbuf, errlen, rc, "LSI53C895A (PCI 1000:0012) not found: %s",
                  rc == -ENODEV ? "no such function" : pcam_qemu_error(b->q));
        goto out;
    }
    (void)pcam_qemu_pci_cfg_read(b->q, &b->pci, 0x08, 1, &rev);
    b->irq = b->pci.irq;
    pcam_qemu_platform(b->q, &b->plat);
    b->sym = calloc(1, sizeof *b->sym);
    dma = pcam_qemu_guest_alloc(b->q, PCAM_SYM_DMA_BYTES, &b->dma_gpa);
    if (b->sym == NULL || dma == NULL) {
        rc = fail(errbuf, errlen, -ENOMEM, "no memory for hal/sym (the DMA area needs shared guest RAM)");
        goto out;
    }
    memset(&sc, 0, sizeof sc);
    sc.base = (uintptr_t)b->pci.bar[0].addr; /* the I/O BAR */
    sc.pci_device = b->pci.device;
    sc.pci_revision = (uint8_t)rev;
    sc.initiator_id = 7;
    sc.dma_va = dma;
    sc.dma_bus = b->dma_gpa;
    sc.dma_len = PCAM_SYM_DMA_BYTES;
    perr = pcam_sym_attach(b->sym, &sc, &b->plat, &b->hal);
    if (perr != PCAM_OK) {
        rc = fail(errbuf, errlen, -EIO, "pcam_sym_attach: %s", pcam_strerror(perr));
        goto out;
    }
    if (opts->bus_config != NULL)
        cfg = *opts->bus_config;
    else
        pcam_bus_config_defaults(&cfg);
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
    cleanup(b);
    return rc;
}

int pcam_qemu_sym_close(pcam_qemu_sym *b)
{
    int rc = 0;

    if (b == NULL)
        return 0;
    if (b->bus_up)
        pcam_bus_shutdown(&b->bus);
    if (b->q != NULL && b->dma_gpa != 0)
        (void)pcam_qemu_guest_free(b->q, b->dma_gpa);
    if (b->q != NULL)
        rc = pcam_qemu_stop(b->q);
    free(b->luns);
    free(b->sym);
    memset(b, 0, sizeof *b);
    return rc;
}

int pcam_qemu_sym_step(pcam_qemu_sym *b, uint32_t max_wait_ms)
{
    return pcam_qemu_bus_step(b->q, b->irq, &b->bus, &b->intrs, &b->ticks, max_wait_ms);
}

uint32_t pcam_qemu_sym_sync(pcam_qemu_sym *b, pcam_ccb *ccb, uint32_t timeout_ms)
{
    return pcam_qemu_bus_sync(b->q, b->irq, &b->bus, &b->intrs, &b->ticks, &b->sync, ccb,
                              timeout_ms);
}
