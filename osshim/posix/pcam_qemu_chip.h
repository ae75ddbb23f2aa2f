/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu_chip.h
 * @brief A pcam bus on a SCSI controller in QEMU, brought up in one call
 *        for any chip that has a ::pcam_qemu_chip entry, and the
 *        interrupt-mode service step a userspace shim runs it with.
 *
 * This is the glue every host-side user of an emulated controller needs
 * (the QEMU tests, pcamctl's qemu-esp back-end, pcambench's QEMU modes, the
 * ASPI host over QEMU): start QEMU with the controller and the drives, find
 * and enable its PCI function, give the back-end its state (and, when it
 * asks, a DMA area in shared guest RAM), attach it, and init the core's bus.
 * What differs per chip (device model, PCI IDs, how its back-end is
 * configured) is one ::pcam_qemu_chip entry: pcam_qemu_esp.h,
 * pcam_qemu_sym.h and pcam_qemu_mpt.h declare today's three. The bus owns
 * the storage the core and the back-end ask for and frees it in
 * pcam_qemu_chipbus_close().
 *
 * Errors are returned with a message, never turned into an abort: callers
 * decide whether a missing QEMU is a skip, a usage error or a failure.
 *
 * One ::pcam_qemu_chipbus is used from one thread at a time; the bus lock
 * of the platform is not taken here (the caller is the only thread).
 */
#ifndef PCAM_QEMU_CHIP_H
#define PCAM_QEMU_CHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcam/pcam.h"
#include "pcam_qemu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pcam_qemu_chip;

/** The bus and everything under it. Filled by pcam_qemu_chipbus_open(). */
typedef struct pcam_qemu_chipbus {
    const struct pcam_qemu_chip *chip; /**< The chip entry it was opened with. */
    pcam_qemu *q;          /**< The QEMU harness (qtest socket, guest RAM). */
    pcam_platform plat;    /**< The platform table the back-end and the core use. */
    pcam_qemu_pci_dev pci; /**< The controller's PCI function with its assigned BARs. */
    /** The back-end's state (a pcam_esp, a pcam_sym, a pcam_mpt: ::pcam_qemu_chip::sc_size bytes, owned). */
    void *sc;
    void *dma;             /**< The back-end's DMA area in shared guest RAM, or NULL. */
    uint64_t dma_gpa;      /**< Its guest-physical address (0: none). */
    pcam_hal hal;          /**< The back-end's ops table as handed to the core. */
    pcam_bus bus;          /**< The core's bus. */
    pcam_lun *luns;        /**< LUN storage handed to pcam_bus_init() (owned). */
    size_t nluns;          /**< Entries in @ref luns. */
    unsigned irq;          /**< I/O APIC input the controller's interrupt is routed to. */
    uint64_t intrs;        /**< pcam_bus_intr() calls made by pcam_qemu_chipbus_step(). */
    uint64_t ticks;        /**< pcam_bus_tick() calls made by pcam_qemu_chipbus_step(). */
    bool bus_up;           /**< pcam_bus_init() succeeded (shutdown is due at close). */
    pcam_qemu_waiter sync; /**< What pcam_qemu_chipbus_sync() waits on. */
} pcam_qemu_chipbus;

/**
 * What one chip needs to come up in QEMU: a table entry, so that a new
 * chip costs an entry and an attach function, not a copy of the bring-up.
 */
typedef struct pcam_qemu_chip {
    const char *name;       /**< As messages name it ("AM53C974"). */
    const char *controller; /**< QEMU's device model (pcam_qemu_opts::controller). */
    uint16_t vendor;        /**< PCI vendor ID the function is found by. */
    uint16_t device;        /**< PCI device ID. */
    size_t sc_size;         /**< Bytes of back-end state to allocate (zeroed). */
    size_t dma_bytes;       /**< Shared guest RAM the back-end needs for DMA; 0: none. */
    /**
     * Attach the back-end to @p b->sc with @p b->plat (b->pci, b->dma and
     * b->dma_gpa are set), filling b->hal.
     */
    pcam_err (*attach)(pcam_qemu_chipbus *b);
    /** The chip the back-end found is the one QEMU models; NULL: not checked. */
    bool (*identified)(const pcam_qemu_chipbus *b);
    /**
     * The board's settings, read at attach (a DC-390's EEPROM), folded into
     * the bus configuration before pcam_bus_init(); NULL: none.
     */
    void (*bus_config)(const pcam_qemu_chipbus *b, pcam_bus_config *cfg);
    /** The board's per-target limits handed to the bus once it is up (#PCAM_FN_SET_TRAN); NULL: none. */
    pcam_err (*configure)(pcam_qemu_chipbus *b);
} pcam_qemu_chip;

/** Options for pcam_qemu_chipbus_open(). Zero-initialise, then set what you need. */
typedef struct pcam_qemu_chipbus_opts {
    const pcam_qemu_drive *drives; /**< Drives on the controller's bus. */
    size_t ndrives;                /**< Number of entries in @ref drives. */
    /** Bus configuration; NULL for pcam_bus_config_defaults(). polled is forced off. */
    const pcam_bus_config *bus_config;
    const char *const *extra_args; /**< NULL-terminated extra QEMU arguments, or NULL. */
    bool monitor;                  /**< Open a QMP monitor (for pcam_qemu_hmp()). */
    /** See pcam_qemu_opts::no_shared_ram (a chip with a DMA area then fails to open). */
    bool no_shared_ram;
    uint32_t ram_mb;               /**< Guest RAM in MiB; 0 means 64. */
    const char *qemu;              /**< QEMU binary, or NULL (see pcam_qemu_opts::qemu). */
    FILE *log_file;                /**< Harness log sink, or NULL. */
    pcam_log_level log_level;      /**< Most verbose severity logged. */
    /**
     * Called once the function is found and enabled, before the back-end
     * attaches (a test writes a board's EEPROM here); nonzero fails the
     * open with that value. NULL: none.
     */
    int (*before_attach)(pcam_qemu_chipbus *b, void *arg);
    void *before_attach_arg;       /**< Handed to @ref before_attach. */
} pcam_qemu_chipbus_opts;

/**
 * @brief Start QEMU with the chip and the drives, and bring a pcam bus up on it.
 *
 * The bus is not scanned. On failure everything started is stopped again.
 * @param b the bus to fill (its previous contents are ignored).
 * @param chip the chip's entry.
 * @param opts options (NULL: no drives, defaults).
 * @param errbuf receives a message on failure (may be NULL).
 * @param errlen size of @p errbuf.
 * @return 0; a negative errno value from pcam_qemu_start() (-ENOENT means
 *         QEMU is not installed); -ENODEV when the controller is not found
 *         or is not the chip; -ENOMEM; or -EIO when the back-end or the
 *         core refused (the message names the pcam_err).
 */
int pcam_qemu_chipbus_open(pcam_qemu_chipbus *b, const pcam_qemu_chip *chip,
                           const pcam_qemu_chipbus_opts *opts, char *errbuf, size_t errlen);

/**
 * @brief Shut the bus down (pending CCBs complete), stop QEMU, free the storage.
 * @param b the bus (closing a zeroed or closed one does nothing).
 * @return 0 when QEMU stayed healthy until the end, else the harness's
 *         sticky error (a negative errno value).
 */
int pcam_qemu_chipbus_close(pcam_qemu_chipbus *b);

/**
 * @brief One step of an interrupt-mode shim (pcam_qemu_bus_step()).
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
int pcam_qemu_chipbus_step(pcam_qemu_chipbus *b, uint32_t max_wait_ms);

/**
 * @brief Run one CCB to completion with pcam_qemu_chipbus_step().
 *
 * Sets ccb->done and ccb->user (to @p b: a CCB that times out and
 * completes later, at the latest in pcam_qemu_chipbus_close(), then touches
 * only the bus, never the caller's stack).
 * @param b the bus.
 * @param ccb the request, fully built except for its completion fields.
 * @param timeout_ms host time to wait for the completion.
 * @return the CCB's status; 0xFFFFFFFF when it did not complete in time
 *         or QEMU failed (the CCB then stays with the core until it
 *         completes; it must outlive that).
 */
uint32_t pcam_qemu_chipbus_sync(pcam_qemu_chipbus *b, pcam_ccb *ccb, uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_CHIP_H */
