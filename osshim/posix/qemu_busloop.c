/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The loop that drives a pcam bus on a QEMU controller (pcam_qemu.h): the
 * same for every chip's bring-up, so each one only attaches its back-end.
 * Never touches the chip itself; the core and its back-end do.
 */
#include <errno.h>
#include <stdbool.h>

#include "pcam_qemu.h"
#include "pcam_posix.h"

int pcam_qemu_bus_step(pcam_qemu *q, unsigned irq, pcam_bus *bus, uint64_t *intrs, uint64_t *ticks,
                       uint32_t max_wait_ms)
{
    uint64_t now, d;
    int rc;

    if (pcam_qemu_irq(q, irq)) {
        pcam_bus_intr(bus);
        (*intrs)++;
        return 1;
    }
    now = pcam_posix_now_ns();
    d = pcam_bus_next_deadline(bus);
    if (d <= now) {
        pcam_bus_tick(bus);
        (*ticks)++;
        return 1;
    }
    if (d != UINT64_MAX && (d - now) / 1000000u < max_wait_ms)
        max_wait_ms = (uint32_t)((d - now + 999999u) / 1000000u);
    rc = pcam_qemu_wait_irq(q, irq, max_wait_ms);
    if (rc < 0)
        return rc;
    /* A dead QEMU reads as a low line; say so instead of spinning. */
    if (pcam_qemu_error(q)[0] != '\0')
        return -EIO;
    return 0;
}

static void sync_done(pcam_ccb *ccb)
{
    pcam_qemu_waiter *w = ccb->user;

    if (w->ccb == ccb)
        w->done = true;
}

uint32_t pcam_qemu_bus_sync(pcam_qemu *q, unsigned irq, pcam_bus *bus, uint64_t *intrs,
                            uint64_t *ticks, pcam_qemu_waiter *w, pcam_ccb *ccb,
                            uint32_t timeout_ms)
{
    uint64_t end = pcam_posix_now_ns() + (uint64_t)timeout_ms * 1000000u;

    w->ccb = ccb;
    w->done = false;
    ccb->user = w;
    ccb->done = sync_done;
    pcam_action(bus, ccb);
    while (!w->done && pcam_posix_now_ns() <= end)
        if (pcam_qemu_bus_step(q, irq, bus, intrs, ticks, 50) < 0)
            break;
    if (!w->done)
        return 0xFFFFFFFFu;
    w->ccb = NULL;
    return ccb->status;
}
