/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_sym.h
 * @brief The 53C8xx SCRIPTS back-end (SYM/LSI 53C810 .. 53C896, 53C895A,
 *        53C1010): a script-level chip over the core's hal_cmd contract.
 *
 * The chip runs pcam's own SCRIPTS program (hal/sym/sym_script.c) from host
 * memory: selection with ATN, IDENTIFY, tag, CDB, scatter-gather data,
 * status, COMMAND COMPLETE, SAVE DATA POINTER and DISCONNECT, and tagged
 * reselection, all without a host interrupt. Finished commands go into a
 * done ring and the chip raises one interrupt-on-the-fly that retires every
 * command in the ring. Everything SCRIPTS cannot decide (negotiation,
 * MESSAGE REJECT, unknown messages, phase mismatch, untagged reselection,
 * selection timeout, parity, resets) stops the script with an interrupt and
 * is handed to the core through the pcam_bus_hal_*() entry points.
 *
 * Memory: the back-end allocates nothing. The embedder gives it
 * - a ::pcam_sym for the host-side state (normal memory), and
 * - a DMA area of at least #PCAM_SYM_DMA_BYTES bytes that the chip and the
 *   CPU see coherently, with its bus address (e.g. dma_alloc_coherent() in a
 *   Linux module, a common buffer in UEFI, pcam_qemu_guest_alloc() over
 *   qtest). The script, the start and done rings and the per-command blocks
 *   live there.
 * Data buffers are mapped per command with pcam_platform::dma_map.
 *
 * Registers are reached only through pcam_platform read8/write8/read32/
 * write32 at @c base + register offset (I/O or memory BAR, as the platform
 * addresses it). A platform's register write must order earlier writes to
 * the DMA area before it (as Linux's writel does).
 *
 * On the wire a command's tag number is the back-end's slot number, unique
 * on the whole bus while the command is outstanding, so a reselection is
 * resolved by SCRIPTS with one table step.
 */
#ifndef PCAM_SYM_H
#define PCAM_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_err.h"
#include "pcam_hal.h"
#include "pcam_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Chip features in pcam_sym_chip_info::flags. */
enum {
    PCAM_SYM_F_WIDE = 1u << 0,    /**< 16-bit SCSI bus. */
    PCAM_SYM_F_ULTRA = 1u << 1,   /**< Fast-20 (period factor 0x0C). */
    PCAM_SYM_F_ULTRA2 = 1u << 2,  /**< Fast-40 (period factor 0x0A). */
    PCAM_SYM_F_DT = 1u << 3,      /**< Ultra3: double-transition clocking via PPR (factor 0x09). */
    PCAM_SYM_F_DBLR = 1u << 4,    /**< SCSI clock doubler (40 to 80 MHz). */
    PCAM_SYM_F_QUAD = 1u << 5,    /**< SCSI clock quadrupler (40 to 160 MHz). */
    PCAM_SYM_F_LDSTR = 1u << 6,   /**< LOAD and STORE instructions. */
    PCAM_SYM_F_RAM = 1u << 7,     /**< On-chip SCRIPTS RAM (size in pcam_sym_chip_info::ram_bytes). */
    PCAM_SYM_F_BIGFIFO = 1u << 8  /**< Large DMA FIFO: 10-bit byte count (DFIFO + CTEST5). */
};

/** One entry of the chip table: what a PCI device ID and revision are. */
typedef struct pcam_sym_chip_info {
    const char *name;    /**< Marketing name, e.g. "53C895A". */
    uint16_t device;     /**< PCI device ID (vendor 0x1000). */
    uint8_t rev_min;     /**< Lowest PCI revision this entry covers. */
    uint8_t rev_max;     /**< Highest PCI revision this entry covers. */
    uint32_t flags;      /**< PCAM_SYM_F_* bits. */
    uint8_t max_offset;  /**< Largest synchronous REQ/ACK offset. */
    uint16_t ram_bytes;  /**< On-chip SCRIPTS RAM (0 = none). */
    uint16_t fifo_bytes; /**< DMA FIFO depth. */
} pcam_sym_chip_info;

/**
 * Look a chip up in the table.
 * @param device PCI device ID (vendor 0x1000, LSI/Symbios/NCR).
 * @param revision PCI revision ID.
 * @return the entry, or NULL when the ID is not a SCRIPTS chip pcam knows.
 */
const pcam_sym_chip_info *pcam_sym_chip_lookup(uint16_t device, uint8_t revision);

/**
 * The whole chip table, for listings and tests.
 * @param count receives the number of entries (may be NULL).
 * @return the first entry.
 */
const pcam_sym_chip_info *pcam_sym_chip_table(size_t *count);

/** Bytes of DMA area pcam_sym_attach() needs (includes 256 bytes of alignment slack). */
#define PCAM_SYM_DMA_BYTES 19712u

/** Commands the back-end holds at once (slots; two more are kept for ABORT TASK and device resets). */
#define PCAM_SYM_MAX_CMDS 62u

/** Scatter-gather elements per command (each up to 16 MiB - 1 bytes). */
#define PCAM_SYM_MAX_SG 16u

/** Flags in pcam_sym_config::flags. */
enum {
    /** Do not enable SCSI parity checking (boards with a broken parity line). */
    PCAM_SYM_CF_NO_PARITY = 1u << 0,
    /** Never offer wide or synchronous transfers (the core then stays asynchronous, narrow). */
    PCAM_SYM_CF_ASYNC = 1u << 1
};

/** How to attach to one chip. Zero-initialise, then fill. */
typedef struct pcam_sym_config {
    uintptr_t base;        /**< Register 0 as the platform's read8/write8 address it. */
    uint16_t pci_device;   /**< PCI device ID, for the chip table. */
    uint8_t pci_revision;  /**< PCI revision ID. */
    uint8_t initiator_id;  /**< The chip's own SCSI ID (0..7, or 0..15 on wide chips). */
    uint32_t clock_khz;    /**< Input clock in kHz before any doubler; 0 means 40000. */
    void *dma_va;          /**< CPU address of the coherent DMA area. */
    uint64_t dma_bus;      /**< Its bus address as the chip sees it (below 4 GiB). */
    size_t dma_len;        /**< Its size: at least #PCAM_SYM_DMA_BYTES. */
    uint32_t flags;        /**< PCAM_SYM_CF_* bits. */
} pcam_sym_config;

/** Words of host-side state in a pcam_sym (checked at compile time by the back-end). */
#define PCAM_SYM_STORAGE_WORDS 3200

/** One chip's host-side back-end state; the embedder owns it, the contents are private. */
typedef struct pcam_sym {
    uint64_t priv[PCAM_SYM_STORAGE_WORDS]; /**< Private state; do not touch. */
} pcam_sym;

/**
 * Identify the chip, reset it, load the script and fill @p out for
 * pcam_bus_init(). The SCSI bus is not reset.
 * @param sc host-side storage (the pcam_hal points at it).
 * @param cfg where and what the chip is.
 * @param plat platform services: now_ns, read8, write8, read32, write32 and
 *        dma_map are required. The table is copied.
 * @param out filled with the ops tables and @p sc.
 * @return #PCAM_OK; #PCAM_ERR_ABI (nothing written) when the caller's
 *         pcam_sym has another size than the library's; #PCAM_ERR_NULL for a missing argument or service;
 *         #PCAM_ERR_RANGE for a bad ID, clock, or a DMA area that is too
 *         small or above 4 GiB; #PCAM_ERR_UNSUPPORTED for an unknown PCI ID
 *         or a chip without LOAD/STORE (53C810, 53C815, 53C820, 53C825 before
 *         the A parts), which pcam's script needs.
 */
static inline pcam_err pcam_sym_attach(pcam_sym *sc, const pcam_sym_config *cfg,
                                       const pcam_platform *plat, pcam_hal *out);

/**
 * pcam_sym_attach() with the caller's sizeof(pcam_sym) (see ::pcam_abi):
 * storage of another size, from headers of another version, is refused
 * with #PCAM_ERR_ABI before anything is written. Call pcam_sym_attach(),
 * which passes it.
 * @param sc_size the caller's sizeof(pcam_sym).
 * @param sc see pcam_sym_attach(). @param cfg see there. @param plat see there.
 * @param out see there.
 * @return as pcam_sym_attach().
 */
pcam_err pcam_sym_attach_abi(size_t sc_size, pcam_sym *sc, const pcam_sym_config *cfg,
                             const pcam_platform *plat, pcam_hal *out);

static inline pcam_err pcam_sym_attach(pcam_sym *sc, const pcam_sym_config *cfg,
                                       const pcam_platform *plat, pcam_hal *out)
{
    return pcam_sym_attach_abi(sizeof(pcam_sym), sc, cfg, plat, out);
}

/**
 * The chip identified at attach.
 * @param sc an attached back-end. @return its table entry, NULL if @p sc is NULL or not attached.
 */
const pcam_sym_chip_info *pcam_sym_get_chip(const pcam_sym *sc);

/** Counters of one back-end since attach. */
typedef struct pcam_sym_stats {
    uint64_t reg_reads;      /**< Register reads (8 and 32 bit). */
    uint64_t reg_writes;     /**< Register writes. */
    uint64_t interrupts;     /**< Times poll found the chip interrupting (ISTAT with DIP, SIP or INTF). */
    uint64_t script_irqs;    /**< Of those, script stops (SIR, phase mismatch, selection timeout...). */
    uint64_t done_batches;   /**< Interrupts-on-the-fly that retired at least one command. */
    uint64_t completed;      /**< Commands retired from the done ring. */
    uint64_t started;        /**< Commands put in the start ring. */
    uint64_t mismatches;     /**< Phase mismatches inside a data move (residual fixed up by the host). */
    uint64_t resel_host;     /**< Reselections the host resolved (untagged). */
    uint64_t sel_timeouts;   /**< Selection timeouts. */
    uint64_t bus_resets;     /**< SCSI bus resets seen. */
    uint64_t wide_residues;  /**< IGNORE WIDE RESIDUE messages taken. */
    uint32_t max_outstanding; /**< Most commands held at once. */
} pcam_sym_stats;

/**
 * Copy the counters.
 * @param sc an attached back-end. @param out filled (all zero when @p sc is NULL).
 */
void pcam_sym_get_stats(const pcam_sym *sc, pcam_sym_stats *out);

/**
 * Bytes of pcam's SCRIPTS program as loaded (for listings and footprint).
 * @param sc an attached back-end. @return the size, 0 if not attached.
 */
size_t pcam_sym_script_bytes(const pcam_sym *sc);

/**
 * Halt the chip for good: a soft reset stops SCRIPTS and disables its
 * interrupts, so the DMA area may be freed afterwards. Call it after
 * pcam_bus_shutdown() (which resets the chip and starts the script again)
 * and before the DMA area goes away; the back-end is detached (attach it
 * again to reuse @p sc).
 * @param sc an attached back-end (NULL or not attached: nothing happens).
 */
void pcam_sym_stop(pcam_sym *sc);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_SYM_H */
