/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_platform.h
 * @brief Services a shim provides to the core and to chip back-ends.
 *
 * The core needs only a monotonic clock and a log sink. Chip back-ends also
 * use the register and DMA services, so one back-end source runs unchanged in
 * a kernel module, a UEFI driver or host userspace (over QEMU qtest or a
 * simulated bus). Every function pointer may be called with the bus lock held
 * and must not sleep.
 */
#ifndef PCAM_PLATFORM_H
#define PCAM_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Log severities passed to pcam_platform::log. */
typedef enum pcam_log_level {
    PCAM_LOG_ERROR = 0, /**< Something failed that the user should see. */
    PCAM_LOG_WARN = 1,  /**< Recovery happened (reset, renegotiation, retry storm avoided). */
    PCAM_LOG_INFO = 2,  /**< Device found, agreement reached. */
    PCAM_LOG_DEBUG = 3  /**< Per-command and per-phase detail. */
} pcam_log_level;

/** DMA direction for pcam_platform::dma_map. */
typedef enum pcam_dma_dir {
    PCAM_DMA_TO_DEVICE = 1,  /**< Memory is read by the device (DATA OUT). */
    PCAM_DMA_FROM_DEVICE = 2 /**< Memory is written by the device (DATA IN). */
} pcam_dma_dir;

/** The services table. Unused entries may be NULL where noted. */
typedef struct pcam_platform {
    /** Opaque context handed back to every call. */
    void *ctx;
    /**
     * Monotonic time in nanoseconds. Required. It need not start at zero,
     * but must never go backwards.
     */
    uint64_t (*now_ns)(void *ctx);
    /** Log one line (no trailing newline). May be NULL to discard logs. */
    void (*log)(void *ctx, pcam_log_level level, const char *line);
    /** Read an 8-bit register at a back-end defined address (port or MMIO). */
    uint8_t (*read8)(void *ctx, uintptr_t addr);
    /** Read a 16-bit register. */
    uint16_t (*read16)(void *ctx, uintptr_t addr);
    /** Read a 32-bit register. */
    uint32_t (*read32)(void *ctx, uintptr_t addr);
    /** Write an 8-bit register. */
    void (*write8)(void *ctx, uintptr_t addr, uint8_t value);
    /** Write a 16-bit register. */
    void (*write16)(void *ctx, uintptr_t addr, uint16_t value);
    /** Write a 32-bit register. */
    void (*write32)(void *ctx, uintptr_t addr, uint32_t value);
    /**
     * Make @p len bytes at @p va visible to the device and give their bus
     * address. Returns 0, or a negative value when the buffer cannot be
     * mapped (the back-end then fails the transfer). May be NULL for
     * back-ends that never DMA.
     */
    int (*dma_map)(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus_addr);
    /** Undo dma_map once the transfer ended; copies back where needed. May be NULL. */
    void (*dma_unmap)(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus_addr);
    /** Busy-wait; for chip-reset settle times only, never by the core. May be NULL. */
    void (*delay_us)(void *ctx, uint32_t us);
} pcam_platform;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_PLATFORM_H */
