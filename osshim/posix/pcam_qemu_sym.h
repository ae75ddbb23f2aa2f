/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_sym.h
 * @brief A pcam bus on QEMU's LSI53C895A, brought up in one call, and the
 *        interrupt-mode service step a userspace shim runs it with.
 *
 * Starts QEMU with `-device lsi53c895a` and the drives, finds and enables
 * PCI 1000:0012, places hal/sym's DMA area (script, rings, command blocks)
 * in shared guest RAM, attaches hal/sym and inits the core's bus. It owns
 * the LUN array, the back-end state and the DMA area and frees them in
 * pcam_qemu_sym_close(). Errors come back with a message, never an abort.
 * One ::pcam_qemu_sym is used from one thread at a time.
 */
#ifndef PCAM_QEMU_SYM_H
#define PCAM_QEMU_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcam/pcam.h"
#include "pcam/pcam_sym.h"
#include "pcam_qemu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The bus and everything under it. Filled by pcam_qemu_sym_open(). */
typedef struct pcam_qemu_sym {
    pcam_qemu *q;          /**< The QEMU harness. */
    pcam_platform plat;    /**< Platform table hal/sym and the core use. */
    pcam_qemu_pci_dev pci; /**< The controller's PCI function. */
    pcam_sym *sym;         /**< hal/sym's host-side state (owned). */
    uint64_t dma_gpa;      /**< Guest-physical address of the DMA area. */
    pcam_hal hal;          /**< hal/sym's ops as handed to the core. */
    pcam_bus bus;          /**< The core's bus. */
    pcam_lun *luns;        /**< LUN storage (owned). */
    size_t nluns;          /**< Entries in @ref luns. */
    unsigned irq;          /**< I/O APIC input of the controller. */
    uint64_t intrs;        /**< pcam_bus_intr() calls made by pcam_qemu_sym_step(). */
    uint64_t ticks;        /**< pcam_bus_tick() calls made by pcam_qemu_sym_step(). */
    bool bus_up;           /**< pcam_bus_init() succeeded. */
    pcam_qemu_waiter sync; /**< What pcam_qemu_sym_sync() waits on. */
} pcam_qemu_sym;

/** Options for pcam_qemu_sym_open(). Zero-initialise, then set what you need. */
typedef struct pcam_qemu_sym_opts {
    const pcam_qemu_drive *drives; /**< Drives on the controller's bus. */
    size_t ndrives;                /**< Entries in @ref drives. */
    const pcam_bus_config *bus_config; /**< NULL for the defaults; polled is forced off. */
    const char *const *extra_args; /**< NULL-terminated extra QEMU arguments, or NULL. */
    bool monitor;                  /**< Open a QMP monitor (for pcam_qemu_hmp()). */
    uint32_t ram_mb;               /**< Guest RAM in MiB; 0 means 64. */
    const char *qemu;              /**< QEMU binary, or NULL. */
    FILE *log_file;                /**< Harness log sink, or NULL. */
    pcam_log_level log_level;      /**< Most verbose severity logged. */
} pcam_qemu_sym_opts;

/**
 * @brief Start QEMU with an LSI53C895A and the drives, and bring a pcam bus up on it.
 * @param b the bus to fill. @param opts options (NULL: no drives).
 * @param errbuf receives a message on failure (may be NULL). @param errlen its size.
 * @return 0; a negative errno from pcam_qemu_start() (-ENOENT: no QEMU);
 *         -ENODEV when the controller is missing; -ENOMEM; -EIO when hal/sym
 *         or the core refused.
 */
int pcam_qemu_sym_open(pcam_qemu_sym *b, const pcam_qemu_sym_opts *opts, char *errbuf, size_t errlen);

/**
 * @brief Shut the bus down, stop QEMU, free everything.
 * @param b the bus. @return 0 when QEMU stayed healthy, else the harness's sticky error.
 */
int pcam_qemu_sym_close(pcam_qemu_sym *b);

/**
 * @brief One interrupt-mode step: intr when the line is high, tick when a
 *        deadline passed, else wait for the line at most @p max_wait_ms.
 * @param b the bus. @param max_wait_ms longest wait.
 * @return 1 after an interrupt or tick, 0 after a wait, negative when QEMU failed.
 */
int pcam_qemu_sym_step(pcam_qemu_sym *b, uint32_t max_wait_ms);

/**
 * @brief Run one CCB to completion (sets ccb->done and ccb->user).
 * @param b the bus. @param ccb the request. @param timeout_ms host time to wait.
 * @return its status, or 0xFFFFFFFF when it did not complete in time.
 */
uint32_t pcam_qemu_sym_sync(pcam_qemu_sym *b, pcam_ccb *ccb, uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_SYM_H */
