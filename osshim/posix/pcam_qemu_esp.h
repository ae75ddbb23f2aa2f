/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_esp.h
 * @brief A pcam bus on QEMU's AM53C974, brought up in one call, and the
 *        interrupt-mode service step a userspace shim runs it with.
 *
 * This is the glue every host-side user of the emulated controller needs
 * (the QEMU tests, pcamctl's qemu-esp back-end, pcambench's QEMU mode, the
 * ASPI host over QEMU): start QEMU with the drives, find and enable the PCI
 * function, attach hal/esp with its DMA engine, and init the core's bus.
 * It owns the storage the core asks for (the LUN array) and frees it in
 * pcam_qemu_esp_close().
 *
 * Errors are returned with a message, never turned into an abort: callers
 * decide whether a missing QEMU is a skip, a usage error or a failure.
 *
 * One ::pcam_qemu_esp is used from one thread at a time; the bus lock of
 * the platform is not taken here (the caller is the only thread).
 */
#ifndef PCAM_QEMU_ESP_H
#define PCAM_QEMU_ESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "pcam_qemu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The bus and everything under it. Zero-initialise; filled by pcam_qemu_esp_open(). */
typedef struct pcam_qemu_esp {
    pcam_qemu *q;          /**< The QEMU harness (qtest socket, guest RAM). */
    pcam_platform plat;    /**< The platform table hal/esp and the core use. */
    pcam_qemu_pci_dev pci; /**< The AM53C974's PCI function with its assigned BARs. */
    pcam_esp esp;          /**< hal/esp's state. */
    pcam_hal hal;          /**< hal/esp's ops table as handed to the core. */
    pcam_bus bus;          /**< The core's bus. */
    pcam_lun *luns;        /**< LUN storage handed to pcam_bus_init() (owned here). */
    size_t nluns;          /**< Entries in @ref luns. */
    unsigned irq;          /**< I/O APIC input the controller's interrupt is routed to. */
    uint64_t intrs;        /**< pcam_bus_intr() calls made by pcam_qemu_esp_step(). */
    uint64_t ticks;        /**< pcam_bus_tick() calls made by pcam_qemu_esp_step(). */
    bool bus_up;           /**< pcam_bus_init() succeeded (shutdown is due at close). */
    pcam_qemu_waiter sync; /**< What pcam_qemu_esp_sync() waits on. */
} pcam_qemu_esp;

/** Options for pcam_qemu_esp_open(). Zero-initialise, then set what you need. */
typedef struct pcam_qemu_esp_opts {
    const pcam_qemu_drive *drives; /**< Drives on the controller's bus. */
    size_t ndrives;                /**< Number of entries in @ref drives. */
    /** Bus configuration; NULL for pcam_bus_config_defaults(). polled is forced off. */
    const pcam_bus_config *bus_config;
    const char *const *extra_args; /**< NULL-terminated extra QEMU arguments, or NULL. */
    bool monitor;                  /**< Open a QMP monitor (for pcam_qemu_hmp()). */
    bool no_shared_ram;            /**< See pcam_qemu_opts::no_shared_ram. */
    uint32_t ram_mb;               /**< Guest RAM in MiB; 0 means 64. */
    const char *qemu;              /**< QEMU binary, or NULL (see pcam_qemu_opts::qemu). */
    FILE *log_file;                /**< Harness log sink, or NULL. */
    pcam_log_level log_level;      /**< Most verbose severity logged. */
} pcam_qemu_esp_opts;

/**
 * @brief Start QEMU with an AM53C974 and the drives, and bring a pcam bus up on it.
 *
 * hal/esp is attached with its DMA engine and ::PCAM_ESP_F_NO_SELATN3
 * (QEMU's model treats SELECT WITH ATN3 as a no-op). The bus is not scanned.
 * On failure everything started is stopped again.
 * @param b the bus to fill (its previous contents are ignored).
 * @param opts options (NULL: no drives, defaults).
 * @param errbuf receives a message on failure (may be NULL).
 * @param errlen size of @p errbuf.
 * @return 0; a negative errno value from pcam_qemu_start() (-ENOENT means
 *         QEMU is not installed); -ENODEV when the controller is not found;
 *         -ENOMEM; or -EIO when hal/esp or the core refused (the message
 *         names the pcam_err).
 */
int pcam_qemu_esp_open(pcam_qemu_esp *b, const pcam_qemu_esp_opts *opts, char *errbuf, size_t errlen);

/**
 * @brief Shut the bus down (pending CCBs complete), stop QEMU, free the storage.
 * @param b the bus (closing a zeroed or closed one does nothing).
 * @return 0 when QEMU stayed healthy until the end, else the harness's
 *         sticky error (a negative errno value).
 */
int pcam_qemu_esp_close(pcam_qemu_esp *b);

/**
 * @brief One step of an interrupt-mode shim.
 *
 * Calls pcam_bus_intr() when the controller's line is high, else
 * pcam_bus_tick() when the core's next deadline has passed, else waits on
 * the qtest socket for the line to rise, for at most @p max_wait_ms or
 * until the next deadline, whichever is sooner.
 * @param b the bus.
 * @param max_wait_ms longest wait when there is nothing to do.
 * @return 1 after an interrupt or a tick, 0 after a wait, or a negative
 *         errno value when QEMU failed (pcam_qemu_error() says how).
 */
int pcam_qemu_esp_step(pcam_qemu_esp *b, uint32_t max_wait_ms);

/**
 * @brief Run one CCB to completion with pcam_qemu_esp_step().
 *
 * Sets ccb->done and ccb->user (to @p b: a CCB that times out and
 * completes later, at the latest in pcam_qemu_esp_close(), then touches
 * only the bus, never the caller's stack).
 * @param b the bus.
 * @param ccb the request, fully built except for its completion fields.
 * @param timeout_ms host time to wait for the completion.
 * @return the CCB's status; 0xFFFFFFFF when it did not complete in time
 *         or QEMU failed (the CCB then stays with the core until it
 *         completes; it must outlive that).
 */
uint32_t pcam_qemu_esp_sync(pcam_qemu_esp *b, pcam_ccb *ccb, uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_ESP_H */
