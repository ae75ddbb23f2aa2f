/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_virtio.h
 * @brief The virtio-scsi back-end (virtio 1.0 over PCI, QEMU's
 *        `-device virtio-scsi-pci`): a command-level adapter over the
 *        core's hal_cmd contract.
 *
 * The device takes whole SCSI commands from a request virtqueue (a split
 * ring of descriptors, an available ring the driver fills and a used ring
 * the device fills) and is told of new work by a write to its notify
 * register, the doorbell. Task management (ABORT TASK, I_T NEXUS RESET,
 * LOGICAL UNIT RESET) goes through the control virtqueue; hot add and
 * removal come back as buffers the driver lends the event virtqueue.
 *
 * Only the modern (virtio 1.0) interface is driven: VIRTIO_F_VERSION_1 and
 * VIRTIO_RING_F_INDIRECT_DESC must be offered. A transitional device (PCI
 * 1AF4:1004, QEMU's default on a PCI bus) has it beside the legacy I/O
 * BAR; a modern-only one is 1AF4:1048. docs/virtio.md says what the legacy
 * interface would take.
 *
 * Finding the registers: the modern interface lives in BAR windows named by
 * vendor-specific PCI capabilities. pcam_virtio_parse_caps() reads them from
 * a copy of the function's configuration space that the embedder made (the
 * back-end has no configuration-space access of its own); the embedder then
 * turns each (BAR, offset) into an address its pcam_platform read/write
 * reaches, and passes them in ::pcam_virtio_config.
 *
 * Memory: the back-end allocates nothing. The embedder gives it a
 * ::pcam_virtio for host-side state and a DMA area of at least
 * #PCAM_VIRTIO_DMA_BYTES bytes, coherent with the device, with its bus
 * address: the three virtqueues, the request and response headers, the
 * indirect descriptor tables and the event buffers live there. A smaller
 * area is refused with #PCAM_ERR_RANGE. Data buffers are mapped per command
 * with pcam_platform::dma_map (64-bit addresses).
 *
 * Everything the device writes (used ring indexes and entries, response
 * headers, events) is checked before it is believed; a lie gets a defined
 * status for the command it names (if any), a log line and a counter, and
 * nothing is written outside the command's own buffers. Every wait (the
 * device reset at bring-up) is bounded by pcam_platform::now_ns.
 */
#ifndef PCAM_VIRTIO_H
#define PCAM_VIRTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_err.h"
#include "pcam_hal.h"
#include "pcam_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Commands the back-end holds at once (the request virtqueue's size). */
#define PCAM_VIRTIO_MAX_CMDS 64u

/** Scatter-gather elements per command (in its indirect descriptor table). */
#define PCAM_VIRTIO_MAX_SG 32u

/** Event buffers lent to the device's event virtqueue. */
#define PCAM_VIRTIO_EVENTS 8u

/** Bytes of DMA area pcam_virtio_attach() needs (includes 64 bytes of alignment slack). */
#define PCAM_VIRTIO_DMA_BYTES 51456u

/** Words of host-side state in a pcam_virtio (checked at compile time by the back-end). */
#define PCAM_VIRTIO_STORAGE_WORDS 6400

/** One device's host-side back-end state; the embedder owns it, the contents are private. */
typedef struct pcam_virtio {
    uint64_t priv[PCAM_VIRTIO_STORAGE_WORDS]; /**< Private state; do not touch. */
} pcam_virtio;

/** One register region named by a virtio PCI capability. */
typedef struct pcam_virtio_region {
    uint8_t bar;     /**< BAR index (0-5). */
    uint32_t offset; /**< Offset inside the BAR. */
    uint32_t length; /**< Length of the region. */
} pcam_virtio_region;

/** Where the modern interface's regions are (pcam_virtio_parse_caps()). */
typedef struct pcam_virtio_caps {
    pcam_virtio_region common; /**< Common configuration (features, status, queues). */
    pcam_virtio_region notify; /**< Notification (doorbell) region. */
    pcam_virtio_region isr;    /**< ISR status byte (reading it lowers INTx). */
    pcam_virtio_region device; /**< Device configuration (struct virtio_scsi_config). */
    uint32_t notify_mult;      /**< notify_off_multiplier of the notify capability. */
} pcam_virtio_caps;

/**
 * Find the modern interface in a copy of a function's PCI configuration
 * space: walk the capability list from offset 34h, keep the first virtio
 * capability (vendor 09h) of each type in a BAR that exists.
 * @param cfg the configuration space, from offset 0. @param len its length (at least 64, 256 for all of it).
 * @param out filled.
 * @return #PCAM_OK; #PCAM_ERR_NULL; #PCAM_ERR_UNSUPPORTED when the common,
 *         notify, ISR or device region is missing (a legacy-only device);
 *         #PCAM_ERR_FORMAT for a capability list that loops, points outside
 *         @p cfg, or has a capability too short for its type.
 */
pcam_err pcam_virtio_parse_caps(const uint8_t *cfg, size_t len, pcam_virtio_caps *out);

/** How to attach to one device. Zero-initialise, then fill. */
typedef struct pcam_virtio_config {
    uintptr_t common;     /**< Common configuration region, as platform read/write address it. */
    uintptr_t notify;     /**< Notification region. */
    uint32_t notify_mult; /**< pcam_virtio_caps::notify_mult. */
    uint32_t notify_len;  /**< Length of the notification region (a queue's notify offset is checked against it). */
    uintptr_t isr;        /**< ISR status byte. */
    uintptr_t device;     /**< Device configuration region. */
    void *dma_va;         /**< CPU address of the coherent DMA area. */
    uint64_t dma_bus;     /**< Its bus address as the device sees it. */
    size_t dma_len;       /**< Its size: at least #PCAM_VIRTIO_DMA_BYTES. */
    /** Target IDs to address (8 or 16); 0: 16, or fewer if the device's max_target says so. */
    uint8_t max_targets;
} pcam_virtio_config;

/** What the device said at bring-up. */
typedef struct pcam_virtio_facts {
    uint64_t offered;        /**< Feature bits the device offered. */
    uint64_t accepted;       /**< Feature bits the back-end accepted. */
    uint32_t num_queues;     /**< Request queues (num_queues of the device configuration). */
    uint32_t seg_max;        /**< Segments per command the device takes. */
    uint32_t max_sectors;    /**< Sectors per command. */
    uint32_t cmd_per_lun;    /**< Commands per LUN it suggests. */
    uint16_t max_target;     /**< Highest target number. */
    uint32_t max_lun;        /**< Highest LUN. */
    uint16_t queue_max[3];   /**< Largest size of the control, event and first request queue. */
} pcam_virtio_facts;

/** Counters of one back-end since attach. */
typedef struct pcam_virtio_stats {
    uint64_t reg_reads;       /**< Register reads (common, device, ISR regions). */
    uint64_t reg_writes;      /**< Register writes (doorbells included). */
    uint64_t notifies;        /**< Doorbell writes. */
    uint64_t interrupts;      /**< Polls whose ISR read had a bit set. */
    uint64_t started;         /**< Commands put on the request queue. */
    uint64_t completed;       /**< Commands reported to the core. */
    uint64_t bad_used;        /**< Used entries refused: an id that names no request in flight, a bogus length. */
    uint64_t bad_index;       /**< Used index moves past what was made available (ring reset). */
    uint64_t task_mgmt;       /**< Task management requests sent. */
    uint64_t events;          /**< Event buffers the device returned. */
    uint64_t bad_events;      /**< Events refused (address out of range, too short, unknown). */
    uint64_t dev_added;       /**< Hot add (rescan) events for a target. */
    uint64_t dev_removed;     /**< Hot removal events. */
    uint64_t events_missed;   /**< Events the device says it dropped. */
    uint64_t device_resets;   /**< Device resets (bring-up, bus reset, chip reset). */
    uint32_t max_outstanding; /**< Most commands held at once. */
} pcam_virtio_stats;

/**
 * Reset the device, negotiate features, set up the control, event and first
 * request queue, lend the event buffers, set DRIVER_OK, and fill @p out for
 * pcam_bus_init().
 * @param sc host-side storage. @param cfg where the regions and the DMA area are.
 * @param plat platform services: now_ns, read8/16/32, write8/16/32 and
 *        dma_map are required. The table is copied.
 * @param out filled with the ops tables and @p sc.
 * @return #PCAM_OK; #PCAM_ERR_ABI (nothing written) when the caller's
 *         pcam_virtio has another size than the library's; #PCAM_ERR_NULL
 *         for a missing argument or service; #PCAM_ERR_RANGE for a DMA area
 *         that is too small or a bad max_targets; #PCAM_ERR_UNSUPPORTED when
 *         the device does not reset, lacks VERSION_1 or INDIRECT_DESC,
 *         refuses the features, or has a queue too small (the log says
 *         which).
 */
static inline pcam_err pcam_virtio_attach(pcam_virtio *sc, const pcam_virtio_config *cfg,
                                          const pcam_platform *plat, pcam_hal *out);

/**
 * pcam_virtio_attach() with the caller's sizeof(pcam_virtio) (see ::pcam_abi).
 * @param sc_size the caller's sizeof(pcam_virtio).
 * @param sc see pcam_virtio_attach(). @param cfg see there. @param plat see there.
 * @param out see there.
 * @return as pcam_virtio_attach().
 */
pcam_err pcam_virtio_attach_abi(size_t sc_size, pcam_virtio *sc, const pcam_virtio_config *cfg,
                                const pcam_platform *plat, pcam_hal *out);

static inline pcam_err pcam_virtio_attach(pcam_virtio *sc, const pcam_virtio_config *cfg,
                                          const pcam_platform *plat, pcam_hal *out)
{
    return pcam_virtio_attach_abi(sizeof(pcam_virtio), sc, cfg, plat, out);
}

/**
 * The facts read at the last bring-up.
 * @param sc an attached back-end. @param out filled (all zero when @p sc is NULL or not attached).
 */
void pcam_virtio_get_facts(const pcam_virtio *sc, pcam_virtio_facts *out);

/**
 * Copy the counters.
 * @param sc an attached back-end. @param out filled (all zero when @p sc is NULL).
 */
void pcam_virtio_get_stats(const pcam_virtio *sc, pcam_virtio_stats *out);

/**
 * Reset the device for detach, so it neither reads nor writes the DMA area
 * any more. Call after pcam_bus_shutdown(), before the DMA area is freed.
 * @param sc an attached back-end (NULL or not attached: nothing happens).
 */
void pcam_virtio_stop(pcam_virtio *sc);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_VIRTIO_H */
