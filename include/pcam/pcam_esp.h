/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_esp.h
 * @brief The NCR53C9x / FAS2xx / AM53C974 ("ESP") phase-level chip back-end.
 *
 * The back-end reaches the chip only through pcam_platform: ESP register n
 * at @c base + n * @c stride with read8/write8, the AM53C974 DMA engine at
 * @c base + 0x40 + 4k with read32/write32, and buffers through dma_map. It
 * allocates nothing: the embedder provides a pcam_esp and keeps it alive
 * (and unmoved) as long as the pcam_hal it filled is in use; with DMA the
 * chip also fetches long selections (message + CDB) from inside it, so it
 * must be memory the platform's dma_map accepts (not a stack). Like the core
 * it is freestanding C99, so the same source serves a kernel module, a UEFI
 * driver, and host userspace against QEMU or a register model.
 */
#ifndef PCAM_ESP_H
#define PCAM_ESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_err.h"
#include "pcam_hal.h"
#include "pcam_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Chip variants; they differ in registers, commands and speed. */
typedef enum pcam_esp_chip {
    PCAM_ESP_AUTO = 0,      /**< Identify the variant from the registers at attach. */
    PCAM_ESP_NCR53C90 = 1,  /**< Original part: no CFG2/CFG3, 16-bit counter, no SELECT WITH ATN3. */
    PCAM_ESP_NCR53C90A = 2, /**< Adds CFG2 and SELECT WITH ATN3. */
    PCAM_ESP_NCR53C94 = 3,  /**< 53C94/96: adds CFG3; no fast timing, no part ID. */
    PCAM_ESP_FAS216 = 4,    /**< Fast part: 24-bit counter, fast SCSI, part ID in TCHI (family 2, version 2). */
    PCAM_ESP_FAS236 = 5,    /**< As the FAS216, another version of the same ID family. */
    PCAM_ESP_AM53C974 = 6   /**< AMD PCscsi: FAS core plus a 32-bit PCI DMA engine. */
} pcam_esp_chip;

/** Flags in pcam_esp_config::flags. */
enum {
    /**
     * Never use SELECT WITH ATN3: tag messages go out with SELECT WITH ATN
     * AND STOP plus a message-out transfer instead. For emulations that lack
     * the command (QEMU's am53c974 treats it as a no-op).
     */
    PCAM_ESP_F_NO_SELATN3 = 1u << 0,
    /** Do not enable parity checking in CFG1 (boards with a broken parity line). */
    PCAM_ESP_F_NO_PARITY = 1u << 1
};

/** How to attach to one chip. Zero-initialise, then fill. */
typedef struct pcam_esp_config {
    pcam_esp_chip chip;    /**< Variant, or #PCAM_ESP_AUTO to identify it. */
    uintptr_t base;        /**< Address of register 0 as the platform's read8/write8 take it. */
    uint8_t stride;        /**< Distance between registers: 1, or 4 on the AM53C974. */
    uint32_t clock_khz;    /**< Input clock in kHz (e.g. 40000); 10000..40000 are valid. */
    uint8_t initiator_id;  /**< The chip's own SCSI ID, 0..7. */
    bool use_dma;          /**< Move data with the AM53C974 DMA engine; false (or another chip) = PIO through the FIFO. */
    uint32_t flags;        /**< PCAM_ESP_F_* bits; 0 for real chips. */
} pcam_esp_config;

/** Words of private state in a pcam_esp (checked at compile time by the back-end). */
#define PCAM_ESP_STORAGE_WORDS 96

/**
 * One chip's back-end state. The embedder owns the storage; its contents
 * are private to the back-end.
 */
typedef struct pcam_esp {
    uint64_t priv[PCAM_ESP_STORAGE_WORDS]; /**< Private state; do not touch. */
} pcam_esp;

/**
 * Identify (or take as given) the chip, reset it, and fill @p out with the
 * back-end's ops and softc for pcam_bus_init(). The chip is reset but the
 * SCSI bus is not; the core resets it when it wants to.
 *
 * @param sc   storage for the back-end state (the pcam_hal points at it).
 * @param cfg  where and what the chip is.
 * @param plat platform services; read8, write8 and now_ns are required,
 *             read32, write32 and dma_map as well when DMA is used. The
 *             table is copied.
 * @param out  filled with the ops table and @p sc.
 * @return #PCAM_OK; #PCAM_ERR_ABI (nothing written) when the caller's
 *         pcam_esp has another size than the library's; #PCAM_ERR_NULL for a missing argument or required
 *         service; #PCAM_ERR_RANGE for a bad stride, clock or ID;
 *         #PCAM_ERR_UNSUPPORTED when AUTO finds no ESP-family chip.
 */
static inline pcam_err pcam_esp_attach(pcam_esp *sc, const pcam_esp_config *cfg,
                                       const pcam_platform *plat, pcam_hal *out);

/**
 * pcam_esp_attach() with the caller's sizeof(pcam_esp) (see ::pcam_abi):
 * storage of another size, from headers of another version, is refused
 * with #PCAM_ERR_ABI before anything is written. Call pcam_esp_attach(),
 * which passes it.
 * @param sc_size the caller's sizeof(pcam_esp).
 * @param sc see pcam_esp_attach(). @param cfg see there. @param plat see there.
 * @param out see there.
 * @return as pcam_esp_attach().
 */
pcam_err pcam_esp_attach_abi(size_t sc_size, pcam_esp *sc, const pcam_esp_config *cfg,
                             const pcam_platform *plat, pcam_hal *out);

static inline pcam_err pcam_esp_attach(pcam_esp *sc, const pcam_esp_config *cfg,
                                       const pcam_platform *plat, pcam_hal *out)
{
    return pcam_esp_attach_abi(sizeof(pcam_esp), sc, cfg, plat, out);
}

/**
 * The variant in use (the one identified, for AUTO).
 * @param sc an attached back-end. @return the variant, #PCAM_ESP_AUTO if @p sc is NULL.
 */
pcam_esp_chip pcam_esp_get_chip(const pcam_esp *sc);

/** Register and work counters of one back-end, since attach. */
typedef struct pcam_esp_stats {
    uint64_t reg_reads;     /**< 8- and 32-bit register reads. */
    uint64_t reg_writes;    /**< 8- and 32-bit register writes. */
    uint64_t interrupts;    /**< Chip interrupts decoded (INTR register reads). */
    uint64_t dma_transfers; /**< DMA runs started (one per segment piece). */
    uint64_t pio_bytes;     /**< Data, command and message bytes moved through the FIFO by the CPU. */
} pcam_esp_stats;

/**
 * Copy the counters.
 * @param sc  an attached back-end.
 * @param out filled (all zero when @p sc is NULL).
 */
void pcam_esp_get_stats(const pcam_esp *sc, pcam_esp_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_ESP_H */
