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

#include "pcam.h"
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


/* ------------------------------------------------------------------ */
/*
 * The Tekram DC-390: an AM53C974 with a 93C46 serial EEPROM of per-target
 * settings. It has the AM53C974's PCI IDs (1022:2020; QEMU's dc390 model
 * sets no other subsystem IDs than its am53c974), so it is told apart the
 * way Linux's am53c974 does it: by reading the EEPROM, which answers only
 * on the DC-390. The reader and the parser are freestanding like the rest
 * of hal/esp; the shim gives them the function's PCI configuration space.
 */

/** Bytes of a DC-390 EEPROM (a 93C46: 64 little-endian 16-bit words). */
#define PCAM_DC390_EEPROM_BYTES 128u
/** What the 64 words of a valid DC-390 EEPROM add up to (modulo 2^16). */
#define PCAM_DC390_CHECKSUM 0x1234u
/** Targets a DC-390 EEPROM describes for the narrow AM53C974 (its 16 slots beyond 7 are unused). */
#define PCAM_DC390_TARGETS 8u

/**
 * The DC-390's EEPROM pins, as the card wires them into the AM53C974's PCI
 * configuration space: a write to configuration byte 0x80 holds chip
 * select high and drives SK (bit 7) and DI (bit 6); a write to byte 0xC0
 * drops chip select; configuration byte 0 (the vendor ID's low byte) reads
 * 0 while the EEPROM's DO is low.
 */
typedef struct pcam_dc390_cfg_io {
    void *ctx; /**< Handed back to every call. */
    /** Read one byte of the function's configuration space. Required. */
    uint8_t (*cfg_read8)(void *ctx, uint8_t offset);
    /** Write one byte of the function's configuration space. Required. */
    void (*cfg_write8)(void *ctx, uint8_t offset, uint8_t value);
    /** Busy-wait between pin changes (the 93C46 wants 1 us); may be NULL (emulations). */
    void (*delay_us)(void *ctx, uint32_t us);
} pcam_dc390_cfg_io;

/**
 * Read the whole EEPROM by bit-banging the 93C46 READ instruction (start
 * bit, opcode 10, six address bits; a 0 dummy bit, then 16 data bits most
 * significant first), word by word.
 * @param io  the pins.
 * @param raw receives the 128 bytes, word n at raw[2n] (low byte) and raw[2n+1].
 * @return #PCAM_OK; #PCAM_ERR_NULL for a missing argument or accessor;
 *         #PCAM_ERR_UNSUPPORTED when no EEPROM answers (DO never shows the
 *         dummy 0 bit: a plain AM53C974), @p raw then all 0xFF.
 */
pcam_err pcam_dc390_read_eeprom(const pcam_dc390_cfg_io *io, uint8_t raw[PCAM_DC390_EEPROM_BYTES]);

/** One target's settings from the EEPROM, decoded. */
typedef struct pcam_dc390_target {
    uint8_t mode;        /**< The raw mode byte (bits: 0x01 parity, 0x02 sync, 0x04 disconnect, 0x08 start unit, 0x10 tags). */
    uint8_t speed;       /**< The raw speed index 0..7 (10.0, 8.0, 6.7, 5.7, 5.0, 4.0, 3.1, 2.0 MB/s). */
    bool start_unit;     /**< Send START UNIT at boot (reported; pcam sends none of its own). */
    bool parity;         /**< Check parity for this target (the AM53C974 checks per chip: see pcam_dc390_apply()). */
    /** The target's limits for #PCAM_FN_SET_TRAN: period and offset from the sync bit and the
     *  speed index, always narrow, disconnect and tags from their bits (tags only with disconnect). */
    pcam_xfer_settings limits;
} pcam_dc390_target;

/** A DC-390 EEPROM, decoded (pcam_dc390_parse()). */
typedef struct pcam_dc390_settings {
    bool valid;          /**< The EEPROM was there, its checksum right and its settings possible; else all defaults. */
    uint8_t host_id;     /**< The adapter's own SCSI ID (default 7). */
    uint8_t mode2;       /**< The raw adapter mode byte (0x08 active negation, 0x20 scan LUNs; the rest are BIOS options). */
    uint8_t reset_delay_s; /**< Seconds to wait after a bus reset (reported, not applied). */
    uint16_t max_tags;   /**< Tagged commands per LUN: 2 << the tag code (2..64; default 0: the core's own). */
    pcam_dc390_target target[PCAM_DC390_TARGETS]; /**< Targets 0..7. */
} pcam_dc390_settings;

/**
 * Decode an EEPROM image: the checksum, then the adapter bytes (host ID at
 * byte 64, mode at 65, reset delay at 66, tag code at 67) and four bytes
 * per target from byte 0 (mode, speed index, two unused). A blank or
 * corrupt image (wrong checksum) or impossible settings (host ID above 7,
 * a speed index above 7, a tag code above 5) give the defaults, a plain
 * AM53C974's: host ID 7, every target synchronous at the chip's fastest,
 * disconnect and tags allowed, start unit off, parity on, @c valid false.
 * @param raw the image (word n little-endian at raw[2n]).
 * @param len its length (#PCAM_DC390_EEPROM_BYTES).
 * @param out filled on every return but #PCAM_ERR_NULL.
 * @param why set to a sentence saying what was wrong (or "valid"); may be NULL.
 * @return #PCAM_OK; #PCAM_ERR_NULL; #PCAM_ERR_LENGTH for a wrong length;
 *         #PCAM_ERR_FORMAT for a wrong checksum; #PCAM_ERR_RANGE for an
 *         impossible setting.
 */
pcam_err pcam_dc390_parse(const uint8_t *raw, size_t len, pcam_dc390_settings *out, const char **why);

/**
 * Fold the adapter-wide settings into the attach and bus configurations:
 * the host ID into @p ec->initiator_id, parity off for the chip
 * (#PCAM_ESP_F_NO_PARITY) when no target wants it, and the tag count as a
 * ceiling on @p bc's tag_depth and tag_depth_max. Invalid settings change
 * nothing. The per-target limits go to the bus once it is up
 * (pcam_dc390_set_limits()).
 * @param s the settings. @param ec the attach configuration, or NULL.
 * @param bc the bus configuration, or NULL.
 */
void pcam_dc390_apply(const pcam_dc390_settings *s, pcam_esp_config *ec, pcam_bus_config *bc);

/**
 * Hand the per-target limits to a bus that is up: one #PCAM_FN_SET_TRAN
 * (user limits) per target but the host, each completed before the next.
 * Call with the bus lock held, as for any pcam_action(). Invalid settings
 * change nothing (the core's own limits are the defaults).
 * @param bus the bus. @param s the settings.
 * @return #PCAM_OK; #PCAM_ERR_NULL; #PCAM_ERR_RANGE when the core refused
 *         a target (one beyond the chip's).
 */
pcam_err pcam_dc390_set_limits(pcam_bus *bus, const pcam_dc390_settings *s);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_ESP_H */
