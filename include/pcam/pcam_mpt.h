/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_mpt.h
 * @brief The LSI Fusion-MPT back-end (SAS1068 as QEMU models it,
 *        `-device mptsas1068`): a command-level adapter over the core's
 *        hal_cmd contract.
 *
 * The IOC (I/O controller) runs whole SCSI commands from request message
 * frames the host posts to its request FIFO, and answers each with either a
 * context reply (the command's 32-bit context in the reply FIFO: it ended
 * GOOD with every byte moved) or an address reply (the bus address of a
 * reply frame the host lent it, holding the status, residual and sense
 * count). Bring-up goes through the doorbell handshake: IOC FACTS, PORT
 * FACTS, IOC INIT, PORT ENABLE; then the reply free queue is filled and
 * event notification is switched on.
 *
 * Memory: the back-end allocates nothing. The embedder gives it
 * - a ::pcam_mpt for the host-side state (normal memory), and
 * - a DMA area of at least #PCAM_MPT_DMA_BYTES bytes that the IOC and the
 *   CPU see coherently, with its bus address, not crossing a 4 GiB
 *   boundary: request frames, chain buffers, sense buffers and reply
 *   frames live there. A smaller area is refused with #PCAM_ERR_RANGE.
 * Data buffers are mapped per command with pcam_platform::dma_map and must
 * map below 4 GiB (32-bit scatter-gather elements).
 *
 * Registers (doorbell, interrupt status and mask, request and reply FIFOs,
 * diagnostic) are reached only through pcam_platform read32/write32 at
 * @c base + offset (the I/O BAR or the memory BAR, as the platform
 * addresses it). A platform's register write must order earlier writes to
 * the DMA area before it.
 *
 * Every wait on the IOC (handshake words, state changes, resets) is bounded
 * by pcam_platform::now_ns; an IOC that does not answer in time is reset
 * (message unit reset, then a hard reset through the diagnostic register)
 * and, if it still does not answer, attach and reset_chip fail.
 */
#ifndef PCAM_MPT_H
#define PCAM_MPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_err.h"
#include "pcam_hal.h"
#include "pcam_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Commands the back-end holds at once (five more frames serve task management and events). */
#define PCAM_MPT_MAX_CMDS 60u

/** Scatter-gather elements per command (9 in the request frame, the rest in its chain buffer). */
#define PCAM_MPT_MAX_SG 32u

/** Reply frames lent to the IOC (at most its reply queue depth are posted). */
#define PCAM_MPT_REPLY_FRAMES 96u

/** Bytes of DMA area pcam_mpt_attach() needs (includes 128 bytes of alignment slack). */
#define PCAM_MPT_DMA_BYTES 39936u

/** Words of host-side state in a pcam_mpt (checked at compile time by the back-end). */
#define PCAM_MPT_STORAGE_WORDS 5120

/** One IOC's host-side back-end state; the embedder owns it, the contents are private. */
typedef struct pcam_mpt {
    uint64_t priv[PCAM_MPT_STORAGE_WORDS]; /**< Private state; do not touch. */
} pcam_mpt;

/** How to attach to one IOC. Zero-initialise, then fill. */
typedef struct pcam_mpt_config {
    uintptr_t base;   /**< Register 0 (the doorbell) as the platform's read32/write32 address it. */
    void *dma_va;     /**< CPU address of the coherent DMA area. */
    uint64_t dma_bus; /**< Its bus address as the IOC sees it. */
    size_t dma_len;   /**< Its size: at least #PCAM_MPT_DMA_BYTES. */
    /** Most target IDs to address (8 or 16); 0: 16, the SAS IOC's port decides which answer. */
    uint8_t max_targets;
} pcam_mpt_config;

/** What the IOC said about itself at bring-up (IOC FACTS and PORT FACTS). */
typedef struct pcam_mpt_facts {
    uint16_t msg_version;       /**< MPI version the firmware speaks (0x0105 = MPI 1.5). */
    uint16_t product_id;        /**< Product ID (family, type). */
    uint32_t fw_version;        /**< Firmware version, major in the top byte. */
    uint16_t global_credits;    /**< Request frames the IOC accepts at once. */
    uint16_t reply_queue_depth; /**< Reply FIFO depth. */
    uint16_t request_frame_words; /**< Largest request frame, in 32-bit words. */
    uint8_t max_chain_depth;    /**< Chain elements per request. */
    uint8_t number_of_ports;    /**< Ports of the IOC. */
    uint8_t port_type;          /**< PORT FACTS PortType of port 0 (0x30 = SAS, 0x01 = SCSI). */
    uint16_t port_max_devices;  /**< Devices port 0 addresses. */
    uint16_t port_scsi_id;      /**< The port's own ID. */
    uint16_t credits_used;      /**< Commands the back-end holds at once with this IOC. */
    uint16_t replies_posted;    /**< Reply frames given to the IOC. */
} pcam_mpt_facts;

/** Counters of one back-end since attach. */
typedef struct pcam_mpt_stats {
    uint64_t reg_reads;        /**< Register reads. */
    uint64_t reg_writes;       /**< Register writes. */
    uint64_t interrupts;       /**< Polls that found the reply interrupt up. */
    uint64_t started;          /**< SCSI IO requests posted. */
    uint64_t completed;        /**< Commands reported to the core. */
    uint64_t context_replies;  /**< Context (turbo) replies taken. */
    uint64_t address_replies;  /**< Address replies taken. */
    uint64_t bad_replies;      /**< Replies refused: unknown context, foreign frame, absurd length. */
    uint64_t stale_replies;    /**< Replies for commands already forgotten (after a reset). */
    uint64_t task_mgmt;        /**< Task management requests posted. */
    uint64_t events;           /**< Event notification replies taken. */
    uint64_t dev_changes;      /**< Device added / not responding events. */
    uint64_t bus_resets;       /**< Bus resets seen (ours or the IOC's). */
    uint64_t ioc_resets;       /**< Message unit resets. */
    uint64_t hard_resets;      /**< Hard resets through the diagnostic register. */
    uint64_t faults;           /**< Times the IOC was found in the FAULT state. */
    uint32_t last_fault;       /**< The fault code of the last fault. */
    uint32_t max_outstanding;  /**< Most commands held at once. */
} pcam_mpt_stats;

/**
 * Bring the IOC up (reset it if it is not READY, the handshakes, the reply
 * queue, port enable, event notification) and fill @p out for
 * pcam_bus_init().
 * @param sc host-side storage (the pcam_hal points at it).
 * @param cfg where the IOC and the DMA area are.
 * @param plat platform services: now_ns, read32, write32 and dma_map are
 *        required. The table is copied.
 * @param out filled with the ops tables and @p sc.
 * @return #PCAM_OK; #PCAM_ERR_ABI (nothing written) when the caller's
 *         pcam_mpt has another size than the library's; #PCAM_ERR_NULL for
 *         a missing argument or service; #PCAM_ERR_RANGE for a DMA area
 *         that is too small or crosses a 4 GiB boundary, or a bad
 *         max_targets; #PCAM_ERR_UNSUPPORTED when the IOC never became
 *         ready or operational, or refused a bring-up message (the log
 *         says which); #PCAM_ERR_FORMAT when a bring-up reply was malformed.
 */
static inline pcam_err pcam_mpt_attach(pcam_mpt *sc, const pcam_mpt_config *cfg,
                                       const pcam_platform *plat, pcam_hal *out);

/**
 * pcam_mpt_attach() with the caller's sizeof(pcam_mpt) (see ::pcam_abi).
 * @param sc_size the caller's sizeof(pcam_mpt).
 * @param sc see pcam_mpt_attach(). @param cfg see there. @param plat see there.
 * @param out see there.
 * @return as pcam_mpt_attach().
 */
pcam_err pcam_mpt_attach_abi(size_t sc_size, pcam_mpt *sc, const pcam_mpt_config *cfg,
                             const pcam_platform *plat, pcam_hal *out);

static inline pcam_err pcam_mpt_attach(pcam_mpt *sc, const pcam_mpt_config *cfg,
                                       const pcam_platform *plat, pcam_hal *out)
{
    return pcam_mpt_attach_abi(sizeof(pcam_mpt), sc, cfg, plat, out);
}

/**
 * The facts read at the last bring-up.
 * @param sc an attached back-end. @param out filled (all zero when @p sc is NULL or not attached).
 */
void pcam_mpt_get_facts(const pcam_mpt *sc, pcam_mpt_facts *out);

/**
 * Copy the counters.
 * @param sc an attached back-end. @param out filled (all zero when @p sc is NULL).
 */
void pcam_mpt_get_stats(const pcam_mpt *sc, pcam_mpt_stats *out);

/**
 * Quiesce the IOC for detach: a message unit reset, interrupts masked, so
 * it neither reads nor writes the DMA area any more. Call after
 * pcam_bus_shutdown(), before the DMA area is freed.
 * @param sc an attached back-end (NULL or not attached: nothing happens).
 */
void pcam_mpt_stop(pcam_mpt *sc);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_MPT_H */
