/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_posix.h
 * @brief The host-userspace platform: monotonic clock, logging, delays and
 *        the per-bus lock, for shims and tools that run on a POSIX host.
 *
 * The core and the chip back-ends see only ::pcam_platform. This layer fills
 * the parts of it a POSIX process can provide by itself (clock, log, delay);
 * register I/O and DMA come from a transport such as the QEMU qtest harness
 * in pcam_qemu.h, which builds on this one. Unlike core/, this code may use
 * libc, POSIX threads and allocation.
 */
#ifndef PCAM_POSIX_H
#define PCAM_POSIX_H

#include <stdint.h>
#include <stdio.h>
#include <pthread.h>

#include "pcam/pcam_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Log sink and clock origin shared by every platform built on this layer.
 * The embedder owns the storage; fill it with pcam_posix_init().
 */
typedef struct pcam_posix {
    FILE *log_file;          /**< Where log lines go; NULL discards them. */
    pcam_log_level log_level; /**< Lines above this severity are dropped. */
    uint64_t t0_ns;          /**< Clock value at init, so log stamps start near zero. */
} pcam_posix;

/**
 * @brief Prepare a platform context.
 * @param px storage to fill.
 * @param log_file sink for log lines (e.g. stderr), or NULL for none.
 * @param level most verbose severity written (PCAM_LOG_ERROR .. PCAM_LOG_DEBUG).
 */
void pcam_posix_init(pcam_posix *px, FILE *log_file, pcam_log_level level);

/**
 * @brief Fill a services table with this layer's clock, log and delay.
 *
 * Register I/O and DMA entries are set to NULL: a transport adds them.
 * @param px context from pcam_posix_init(); it must outlive the table.
 * @param out table to fill; ctx points at @p px.
 */
void pcam_posix_platform(pcam_posix *px, pcam_platform *out);

/**
 * @brief CLOCK_MONOTONIC in nanoseconds.
 * @return the current monotonic time; never goes backwards.
 */
uint64_t pcam_posix_now_ns(void);

/**
 * @brief Sleep for at least @p us microseconds (interrupted sleeps resume).
 * @param us the delay.
 */
void pcam_posix_delay_us(uint32_t us);

/**
 * @brief Write one log line through the context's filter.
 *
 * The line is stamped with the time since pcam_posix_init() and the severity.
 * @param px the context (NULL discards).
 * @param level severity of the line.
 * @param line text without a trailing newline.
 */
void pcam_posix_log(pcam_posix *px, pcam_log_level level, const char *line);

/**
 * @brief printf-style wrapper around pcam_posix_log() (lines are cut at 512 bytes).
 * @param px the context (NULL discards).
 * @param level severity of the line.
 * @param fmt printf format.
 * @param ... format arguments.
 */
void pcam_posix_logf(pcam_posix *px, pcam_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/**
 * The lock a shim holds around every core entry point of one bus. It is an
 * error-checking mutex: relocking from the owner or unlocking from another
 * thread is reported instead of deadlocking silently.
 */
typedef struct pcam_posix_lock {
    pthread_mutex_t mutex; /**< The underlying POSIX mutex. */
} pcam_posix_lock;

/**
 * @brief Initialise a bus lock.
 * @param lk storage to initialise.
 * @return 0, or an errno value from pthread.
 */
int pcam_posix_lock_init(pcam_posix_lock *lk);

/**
 * @brief Take the lock, blocking while another thread holds it.
 * @param lk the lock.
 * @return 0, or EDEADLK when the calling thread already holds it.
 */
int pcam_posix_lock_acquire(pcam_posix_lock *lk);

/**
 * @brief Release the lock.
 * @param lk the lock.
 * @return 0, or EPERM when the calling thread does not hold it.
 */
int pcam_posix_lock_release(pcam_posix_lock *lk);

/**
 * @brief Destroy the lock.
 * @param lk the lock; it must not be held.
 * @return 0, or EBUSY when it is still held.
 */
int pcam_posix_lock_destroy(pcam_posix_lock *lk);

#ifdef __cplusplus
}
#endif

#include "pcam_qemu.h"

#endif /* PCAM_POSIX_H */
