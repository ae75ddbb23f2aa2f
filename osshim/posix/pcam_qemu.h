/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_qemu.h
 * @brief Drive QEMU's own device models from host userspace over the qtest
 *        socket, and present them to a chip back-end as a ::pcam_platform.
 *
 * pcam_qemu_start() spawns qemu-system-x86_64 with a halted BIOS (generated
 * in a private temporary directory), so no firmware touches the devices and
 * the virtual clock runs with host time. The harness then owns the machine:
 * it enumerates PCI bus 0 through ports 0xCF8/0xCFC, assigns BARs, routes
 * INTx through the PIIX3 to an I/O APIC pin whose level it intercepts, and
 * maps guest RAM (a shared-memory backend in /dev/shm) so DMA buffers need no
 * socket round trips.
 *
 * Every call that talks to QEMU returns a negative errno value on failure;
 * the first failure (QEMU died, a FAIL reply, a protocol error) is sticky:
 * later calls fail at once and pcam_qemu_error() says what happened,
 * including QEMU's captured stderr. Value-returning register reads give
 * all-ones after a failure, like a bus with nothing on it.
 *
 * One ::pcam_qemu is used from one thread at a time (the bus lock does that).
 */
#ifndef PCAM_QEMU_H
#define PCAM_QEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pcam/pcam.h"

#include "pcam_posix.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The opaque harness; created by pcam_qemu_start(), freed by pcam_qemu_stop(). */
typedef struct pcam_qemu pcam_qemu;

/** What sits behind a SCSI ID/LUN. */
typedef enum pcam_qemu_drive_kind {
    PCAM_QEMU_HD = 0, /**< scsi-hd: a disk backed by a raw image file. */
    PCAM_QEMU_CD = 1  /**< scsi-cd: a CD-ROM; a NULL image means no medium. */
} pcam_qemu_drive_kind;

/** One SCSI device on the emulated controller. */
typedef struct pcam_qemu_drive {
    pcam_qemu_drive_kind kind; /**< Disk or CD-ROM. */
    const char *image;         /**< Raw image path (one file per drive: QEMU locks images). */
    uint8_t scsi_id;           /**< Target ID on the bus. */
    uint8_t lun;               /**< Logical unit number. */
    /**
     * Path of a blkdebug configuration ([inject-error] sections) placed
     * between the device and its image; "" for blkdebug with no
     * configuration (break points set later through pcam_qemu_hmp());
     * NULL for none. The drive's id is "d<index>" in pcam_qemu_opts::drives.
     */
    const char *blkdebug;
    bool read_only;            /**< Open the image read-only. */
    /** Extra ",key=value" properties appended to the -device option, or NULL. */
    const char *device_props;
} pcam_qemu_drive;

/** How bulk guest-memory transfers travel when the harness has a choice. */
typedef enum pcam_qemu_bulk {
    PCAM_QEMU_BULK_SHM = 0, /**< memcpy through the shared guest RAM (the default). */
    PCAM_QEMU_BULK_B64 = 1, /**< qtest b64read/b64write commands. */
    PCAM_QEMU_BULK_HEX = 2  /**< qtest read/write commands with hex payloads. */
} pcam_qemu_bulk;

/** Options for pcam_qemu_start(). Zero-initialise, then set what you need. */
typedef struct pcam_qemu_opts {
    /**
     * QEMU binary: a path, or a name searched on PATH. NULL means
     * $PCAM_QEMU when set, else qemu-system-x86_64.
     */
    const char *qemu;
    /** Controller device model; NULL means "am53c974". Its QOM id is "scsi0". */
    const char *controller;
    const pcam_qemu_drive *drives; /**< Drives on the controller's bus. */
    size_t ndrives;                /**< Number of entries in @ref drives. */
    uint32_t ram_mb;               /**< Guest RAM in MiB; 0 means 64. At least 4. */
    /**
     * Do not share guest RAM with the harness: every bulk transfer then goes
     * through the socket (slower; useful to measure and to test that path).
     */
    bool no_shared_ram;
    /** NULL-terminated extra QEMU arguments, or NULL. */
    const char *const *extra_args;
    FILE *log_file;                /**< Harness log sink, or NULL. */
    pcam_log_level log_level;      /**< Most verbose severity logged. */
    /** How long to wait for QEMU to connect, in ms; 0 means 10000. */
    uint32_t connect_timeout_ms;
    /**
     * Also open a QMP monitor, so pcam_qemu_hmp() can run monitor commands
     * (e.g. `qemu-io d0 "break read_aio A"` to hold a request in flight).
     */
    bool monitor;
} pcam_qemu_opts;

/** Round-trip and traffic counters (pcam_qemu_get_stats()). */
typedef struct pcam_qemu_stats {
    uint64_t round_trips;   /**< Commands sent and answered. */
    uint64_t round_trip_ns; /**< Host time spent waiting for those answers. */
    uint64_t irq_events;    /**< Asynchronous "IRQ raise/lower" lines received. */
    uint64_t bulk_bytes;    /**< Bytes moved by b64/hex bulk commands. */
    uint64_t shm_bytes;     /**< Bytes copied through shared guest RAM. */
    uint64_t dma_maps;      /**< dma_map calls that succeeded. */
    uint64_t dma_bounced;   /**< Of those, how many needed a bounce buffer. */
} pcam_qemu_stats;

/**
 * @brief Start QEMU and connect to its qtest socket.
 *
 * On failure nothing is left behind (no process, no files) and @p errbuf
 * says why: a missing binary names `apt-get install qemu-system-x86`; a
 * QEMU that exits early shows its stderr.
 * @param out receives the harness on success, NULL on failure.
 * @param opts options (NULL for all defaults: am53c974, no drives).
 * @param errbuf receives a message on failure (may be NULL).
 * @param errlen size of @p errbuf.
 * @return 0, or a negative errno value (-ENOENT: QEMU not found; -ECHILD:
 *         QEMU exited; -ETIMEDOUT: QEMU did not connect; -EINVAL: bad opts).
 */
int pcam_qemu_start(pcam_qemu **out, const pcam_qemu_opts *opts, char *errbuf, size_t errlen);

/**
 * @brief Run a human-monitor command through QMP (needs pcam_qemu_opts::monitor).
 * @param q the harness.
 * @param cmd the command line, e.g. `qemu-io d0 "resume A"`.
 * @param out receives the command's text output (may be NULL).
 * @param outlen size of @p out.
 * @return 0, -ENOTCONN without a monitor, or a negative errno value when
 *         QMP reports an error (its text in @p out) or the monitor fails.
 */
int pcam_qemu_hmp(pcam_qemu *q, const char *cmd, char *out, size_t outlen);

/**
 * @brief Kill QEMU (SIGTERM, then SIGKILL), reap it, and free everything.
 * @param q the harness (NULL is ignored).
 * @return 0 when QEMU was still healthy until the end, else the sticky error.
 */
int pcam_qemu_stop(pcam_qemu *q);

/**
 * @brief The first error that stopped the harness, or "" when none.
 * @param q the harness.
 * @return a string owned by @p q.
 */
const char *pcam_qemu_error(const pcam_qemu *q);

/**
 * @brief QEMU's process id (for tests that check it was reaped).
 * @param q the harness.
 * @return the pid.
 */
pid_t pcam_qemu_pid(const pcam_qemu *q);

/**
 * @brief Read the counters.
 * @param q the harness.
 * @param out filled with the counters.
 */
void pcam_qemu_get_stats(const pcam_qemu *q, pcam_qemu_stats *out);

/**
 * @brief Port input of @p width bytes (1, 2 or 4).
 * @param q the harness.
 * @param port I/O port; port + width - 1 must not exceed 0xFFFF.
 * @param width 1, 2 or 4.
 * @param value receives the value (all-ones on failure).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_in(pcam_qemu *q, uint32_t port, unsigned width, uint32_t *value);

/**
 * @brief Port output of @p width bytes (1, 2 or 4).
 * @param q the harness.
 * @param port I/O port; port + width - 1 must not exceed 0xFFFF.
 * @param width 1, 2 or 4.
 * @param value the value (truncated to @p width).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_out(pcam_qemu *q, uint32_t port, unsigned width, uint32_t value);

/**
 * @brief Guest-physical (MMIO or RAM) read of @p width bytes (1, 2, 4 or 8).
 * @param q the harness.
 * @param addr guest-physical address.
 * @param width 1, 2, 4 or 8.
 * @param value receives the value (all-ones on failure).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_mmio_read(pcam_qemu *q, uint64_t addr, unsigned width, uint64_t *value);

/**
 * @brief Guest-physical (MMIO or RAM) write of @p width bytes (1, 2, 4 or 8).
 * @param q the harness.
 * @param addr guest-physical address.
 * @param width 1, 2, 4 or 8.
 * @param value the value (truncated to @p width).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_mmio_write(pcam_qemu *q, uint64_t addr, unsigned width, uint64_t value);

/**
 * @brief Copy guest-physical memory into @p buf.
 *
 * RAM inside the shared backend is copied directly when the bulk mode is
 * ::PCAM_QEMU_BULK_SHM; anything else goes through the socket.
 * @param q the harness.
 * @param addr guest-physical address.
 * @param buf destination.
 * @param len bytes (0 does nothing).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_memread(pcam_qemu *q, uint64_t addr, void *buf, size_t len);

/**
 * @brief Copy @p buf into guest-physical memory.
 * @param q the harness.
 * @param addr guest-physical address.
 * @param buf source.
 * @param len bytes (0 does nothing).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_memwrite(pcam_qemu *q, uint64_t addr, const void *buf, size_t len);

/**
 * @brief Choose how bulk transfers travel.
 * @param q the harness.
 * @param mode ::PCAM_QEMU_BULK_SHM needs shared RAM (see
 *        pcam_qemu_opts::no_shared_ram).
 * @return 0, or -EINVAL when the mode is not available.
 */
int pcam_qemu_set_bulk(pcam_qemu *q, pcam_qemu_bulk mode);

/**
 * @brief Guest RAM as mapped into this process.
 * @param q the harness.
 * @param size receives the RAM size in bytes (may be NULL).
 * @return the host address of guest-physical 0, or NULL without shared RAM.
 */
void *pcam_qemu_ram(const pcam_qemu *q, size_t *size);

/**
 * @brief Allocate a buffer in guest RAM (above 1 MiB).
 *
 * A buffer from here is DMA'd in place: pcam_platform::dma_map gives its
 * guest-physical address with no copy. Bounce buffers come from the same
 * space, so it is released with pcam_qemu_guest_free().
 * @param q the harness.
 * @param len bytes (rounded up to 64).
 * @param gpa receives the guest-physical address (may be NULL).
 * @return the host pointer (NULL without shared RAM: then use @p gpa with
 *         pcam_qemu_memread()/pcam_qemu_memwrite()), or NULL when full.
 */
void *pcam_qemu_guest_alloc(pcam_qemu *q, size_t len, uint64_t *gpa);

/**
 * @brief Allocate guest RAM by guest-physical address only.
 * @param q the harness.
 * @param len bytes (rounded up to 64).
 * @param gpa receives the guest-physical address.
 * @return 0, or -ENOMEM when the space is full.
 */
int pcam_qemu_guest_alloc_gpa(pcam_qemu *q, size_t len, uint64_t *gpa);

/**
 * @brief Free a guest RAM allocation.
 * @param q the harness.
 * @param gpa the address pcam_qemu_guest_alloc() or pcam_qemu_guest_alloc_gpa() gave.
 * @return 0, or -EINVAL when nothing is allocated there.
 */
int pcam_qemu_guest_free(pcam_qemu *q, uint64_t gpa);

/**
 * @brief How many guest RAM allocations are live (bounce buffers included).
 * @param q the harness.
 * @return the count; a leak shows up as a count that keeps growing.
 */
size_t pcam_qemu_guest_live(const pcam_qemu *q);

/** One PCI BAR as found (and, after pcam_qemu_find_pci(), assigned). */
typedef struct pcam_qemu_pci_bar {
    uint64_t addr; /**< Assigned base (port or guest-physical address); 0 if unassigned. */
    uint64_t size; /**< Window size in bytes; 0 when the BAR is not implemented. */
    bool io;       /**< I/O space (else memory space). */
    bool is64;     /**< A 64-bit memory BAR (it also uses the next slot). */
} pcam_qemu_pci_bar;

/** One PCI function on bus 0. */
typedef struct pcam_qemu_pci_dev {
    uint8_t bus;            /**< Bus number (always 0 here). */
    uint8_t dev;            /**< Device (slot) number. */
    uint8_t fn;             /**< Function number. */
    uint16_t vendor;        /**< Vendor ID. */
    uint16_t device;        /**< Device ID. */
    uint32_t class_code;    /**< Class, subclass and programming interface. */
    uint8_t irq_pin;        /**< INTx pin (1 = INTA .. 4 = INTD), 0 for none. */
    uint8_t irq;            /**< I/O APIC input the interrupt was routed to, 0 if none. */
    pcam_qemu_pci_bar bar[6]; /**< The six BARs of a type-0 header. */
} pcam_qemu_pci_dev;

/**
 * @brief List the functions on PCI bus 0 (identity and class only).
 * @param q the harness.
 * @param out array to fill.
 * @param max entries in @p out.
 * @param count receives the number found (may exceed @p max).
 * @return 0 or a negative errno value.
 */
int pcam_qemu_pci_scan(pcam_qemu *q, pcam_qemu_pci_dev *out, size_t max, size_t *count);

/**
 * @brief Find a function by ID and make it usable by a driver.
 *
 * Sizes and assigns every BAR (I/O windows from 0xC000, memory windows from
 * 0xE0000000), enables I/O, memory and bus mastering, routes its INTx pin
 * through the PIIX3 (00:01.0, registers 0x60-0x63, with the standard slot
 * swizzle) to ISA IRQ @p irq, writes the interrupt line register, and
 * intercepts the I/O APIC inputs so the line's level can be observed.
 * @param q the harness.
 * @param vendor vendor ID (e.g. 0x1022).
 * @param device device ID (e.g. 0x2020 for the AM53C974).
 * @param index which match to take (0 for the first).
 * @param irq ISA IRQ to route to: 5, 9, 10 or 11 (0 means 11).
 * @param out receives the function with its assigned BARs.
 * @return 0, -ENODEV when no such function exists, or a negative errno value.
 */
int pcam_qemu_find_pci(pcam_qemu *q, uint16_t vendor, uint16_t device, unsigned index,
                       unsigned irq, pcam_qemu_pci_dev *out);

/**
 * @brief Read PCI configuration space (mechanism #1).
 * @param q the harness.
 * @param d the function (bus, dev, fn are used).
 * @param off register offset (aligned to @p width).
 * @param width 1, 2 or 4.
 * @param value receives the value.
 * @return 0 or a negative errno value.
 */
int pcam_qemu_pci_cfg_read(pcam_qemu *q, const pcam_qemu_pci_dev *d, uint8_t off, unsigned width,
                           uint32_t *value);

/**
 * @brief Write PCI configuration space (mechanism #1).
 * @param q the harness.
 * @param d the function (bus, dev, fn are used).
 * @param off register offset (aligned to @p width).
 * @param width 1, 2 or 4.
 * @param value the value.
 * @return 0 or a negative errno value.
 */
int pcam_qemu_pci_cfg_write(pcam_qemu *q, const pcam_qemu_pci_dev *d, uint8_t off, unsigned width,
                            uint32_t value);

/**
 * @brief Current level of an intercepted I/O APIC input.
 *
 * Drains the IRQ lines QEMU has already sent, without waiting.
 * @param q the harness.
 * @param irq the input (0..23).
 * @return true while the line is raised.
 */
bool pcam_qemu_irq(pcam_qemu *q, unsigned irq);

/**
 * @brief Wait until an intercepted input is raised.
 * @param q the harness.
 * @param irq the input (0..23).
 * @param timeout_ms how long to wait.
 * @return 1 when raised (at once if already high), 0 on timeout, or a
 *         negative errno value.
 */
int pcam_qemu_wait_irq(pcam_qemu *q, unsigned irq, uint32_t timeout_ms);

/**
 * @brief A ::pcam_platform whose register and DMA services reach this QEMU.
 *
 * read/write 8/16/32 are port I/O for addresses below 0x10000 (I/O BARs)
 * and guest-physical MMIO above. dma_map gives a guest-physical address:
 * in place for buffers from pcam_qemu_guest_alloc(), else through a bounce
 * buffer in guest RAM that dma_unmap copies back for FROM_DEVICE and frees.
 * now_ns is CLOCK_MONOTONIC (QEMU's devices run on host time), log goes to
 * the options' log sink, delay_us sleeps.
 * @param q the harness; it must outlive the table.
 * @param out table to fill.
 */
void pcam_qemu_platform(pcam_qemu *q, pcam_platform *out);

/**
 * @brief One step of a pcam bus whose controller sits in this QEMU, as a
 * shim's interrupt handler and timer would drive it: pcam_bus_intr() if the
 * controller's line is high, else pcam_bus_tick() if the core's deadline
 * has passed, else wait for the line up to the deadline or @p max_wait_ms.
 * Shared by every chip's bring-up (pcam_qemu_esp.h, pcam_qemu_sym.h).
 * @param q the harness.
 * @param irq the controller's I/O APIC input.
 * @param bus the bus, up.
 * @param intrs incremented per pcam_bus_intr() call.
 * @param ticks incremented per pcam_bus_tick() call.
 * @param max_wait_ms longest wait when nothing is due.
 * @return 1 when the core ran, 0 when the wait ended with nothing to do, or
 *         a negative errno value (-EIO once QEMU has failed).
 */
int pcam_qemu_bus_step(pcam_qemu *q, unsigned irq, pcam_bus *bus, uint64_t *intrs, uint64_t *ticks,
                       uint32_t max_wait_ms);

/** What pcam_qemu_bus_sync() waits on; it lives as long as the bus, so a
 *  CCB that completes after its wait timed out finds it still there. */
typedef struct pcam_qemu_waiter {
    pcam_ccb *ccb; /**< The CCB being waited for. */
    bool done;     /**< It has completed. */
} pcam_qemu_waiter;

/**
 * @brief Hand @p ccb to the core and step the bus (pcam_qemu_bus_step())
 * until it completes or @p timeout_ms passes. Sets the CCB's done and user.
 * @param q the harness. @param irq the controller's input. @param bus the bus.
 * @param intrs as for pcam_qemu_bus_step(). @param ticks likewise.
 * @param w the bus's waiter. @param ccb the request.
 * @param timeout_ms how long to wait.
 * @return the CCB's status, or 0xFFFFFFFF if it did not complete in time.
 */
uint32_t pcam_qemu_bus_sync(pcam_qemu *q, unsigned irq, pcam_bus *bus, uint64_t *intrs,
                            uint64_t *ticks, pcam_qemu_waiter *w, pcam_ccb *ccb,
                            uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_QEMU_H */
