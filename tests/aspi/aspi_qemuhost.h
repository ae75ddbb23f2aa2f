/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A second ASPI host, next to aspi/simhost: one adapter on QEMU's AM53C974
 * (osshim/posix/pcam_qemu_esp.h), single-threaded and polled. Whoever waits
 * runs the bus: the adapter's wait op takes one interrupt-mode step
 * (pcam_qemu_chipbus_step), and aspi_qemuhost_drain() steps and delivers until
 * nothing is in flight. The lock ops are no-ops because only the calling
 * thread ever touches the bus; a threaded embedder would put its bus lock
 * there and run pcam_qemu_chipbus_step() from a service thread instead.
 *
 * What an embedder writes to put ASPI applications on a real controller:
 * host services (pcam_aspi_host), the adapter ops, and a scan before
 * attach so SC_GET_DEV_TYPE knows the devices.
 */
#ifndef ASPI_QEMUHOST_H
#define ASPI_QEMUHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_aspi.h"
#include "pcam_qemu_esp.h"

#define ASPI_QEMUHOST_REQS 8

typedef struct aspi_qemuhost {
    pcam_qemu_chipbus qe;
    pcam_aspi_adapter ad;
    pcam_aspi_req reqs[ASPI_QEMUHOST_REQS];
    uint8_t ha_id;
    bool failed;            /* QEMU stopped answering: waits give up */
} aspi_qemuhost;

/* Host services: page-aligned buffers from the C library, no locking, no
 * events (a polled single-threaded host has nobody to signal). */
void aspi_qemuhost_services(pcam_aspi_host *out);

/* Start QEMU with the drives, bring the bus up and scan it (the manager
 * must be initialised first). 0, or a negative errno value with a message
 * in err (-ENOENT: QEMU is not installed). */
int aspi_qemuhost_open(aspi_qemuhost *h, const pcam_qemu_drive *drives, size_t ndrives, char *err,
                       size_t errlen);
/* Register the bus with the ASPI manager. 0 or a negative pcam_err. */
int aspi_qemuhost_attach(aspi_qemuhost *h);
/* Run the bus and deliver until nothing is in flight or timeout_ms of host
 * time passes. True when idle. */
bool aspi_qemuhost_drain(aspi_qemuhost *h, uint32_t timeout_ms);
/* Shut the bus down (pending requests complete and are delivered), stop
 * QEMU. Returns pcam_qemu_chipbus_close()'s answer. */
int aspi_qemuhost_close(aspi_qemuhost *h);

#endif /* ASPI_QEMUHOST_H */
