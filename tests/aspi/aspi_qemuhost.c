/* SPDX-License-Identifier: BSD-2-Clause */
/* The ASPI host over QEMU's AM53C974 (see aspi_qemuhost.h). */
#define _POSIX_C_SOURCE 200809L
#include "aspi_qemuhost.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *buf_alloc(void *ctx, size_t len, size_t align)
{
    void *p = NULL;
    (void)ctx;
    if (posix_memalign(&p, align, len) != 0)
        return NULL;
    return p;
}

static void buf_free(void *ctx, void *p, size_t len)
{
    (void)ctx;
    (void)len;
    free(p);
}

void aspi_qemuhost_services(pcam_aspi_host *out)
{
    memset(out, 0, sizeof *out);
    out->buf_alloc = buf_alloc;
    out->buf_free = buf_free;
}

static void op_nolock(void *ctx)
{
    (void)ctx;
}

/* The layer waits for the bus: run it one step here (there is no service
 * thread). A dead QEMU is remembered so the waits end. */
static void op_wait(void *ctx)
{
    aspi_qemuhost *h = ctx;
    if (h->failed || pcam_qemu_chipbus_step(&h->qe, 50) < 0) {
        if (!h->failed)
            fprintf(stderr, "aspi_qemuhost: QEMU failed: %s\n", pcam_qemu_error(h->qe.q));
        h->failed = true;
        /* Completing everything is the only way out of a wait that can
         * no longer be satisfied. */
        pcam_bus_shutdown(&h->qe.bus);
    }
}

static const pcam_aspi_adapter_ops host_ops = {
    op_nolock, op_nolock, op_wait, NULL, NULL, NULL, NULL,
};

int aspi_qemuhost_open(aspi_qemuhost *h, const pcam_qemu_drive *drives, size_t ndrives, char *err,
                       size_t errlen)
{
    pcam_qemu_chipbus_opts o;
    pcam_ccb scan;
    int rc;

    memset(h, 0, sizeof *h);
    memset(&o, 0, sizeof o);
    o.drives = drives;
    o.ndrives = ndrives;
    o.log_file = stderr;
    o.log_level = PCAM_LOG_WARN;
    rc = pcam_qemu_chipbus_open(&h->qe, &pcam_qemu_chip_am53c974, &o, err, errlen);
    if (rc != 0)
        return rc;
    memset(&scan, 0, sizeof scan);
    scan.func = PCAM_FN_SCAN_BUS;
    if (pcam_qemu_chipbus_sync(&h->qe, &scan, 30000) != PCAM_REQ_CMP) {
        snprintf(err, errlen, "bus scan failed: status 0x%x", scan.status);
        pcam_qemu_chipbus_close(&h->qe);
        return -EIO;
    }
    return 0;
}

int aspi_qemuhost_attach(aspi_qemuhost *h)
{
    return pcam_aspi_add_adapter(&h->ad, &h->qe.bus, &host_ops, h, h->reqs, ASPI_QEMUHOST_REQS,
                                 &h->ha_id);
}

bool aspi_qemuhost_drain(aspi_qemuhost *h, uint32_t timeout_ms)
{
    uint64_t end = pcam_posix_now_ns() + (uint64_t)timeout_ms * 1000000u;

    for (;;) {
        pcam_aspi_deliver(&h->ad);
        if (pcam_aspi_in_flight(&h->ad) == 0)
            return true;
        if (h->failed || pcam_posix_now_ns() > end)
            return false;
        if (pcam_qemu_chipbus_step(&h->qe, 50) < 0)
            h->failed = true;
    }
}

int aspi_qemuhost_close(aspi_qemuhost *h)
{
    int rc;
    pcam_bus_shutdown(&h->qe.bus);
    h->qe.bus_up = false;
    /* Shutdown completions queue notifications like any other. */
    pcam_aspi_deliver(&h->ad);
    rc = pcam_qemu_chipbus_close(&h->qe);
    return rc;
}
