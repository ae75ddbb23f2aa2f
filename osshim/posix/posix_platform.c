/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Clock, log, delay and bus lock for host userspace.
 */
#include "pcam_posix.h"

#include <errno.h>
#include <stdarg.h>
#include <time.h>

uint64_t pcam_posix_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pcam_posix_delay_us(uint32_t us)
{
    struct timespec ts;

    ts.tv_sec = (time_t)(us / 1000000u);
    ts.tv_nsec = (long)(us % 1000000u) * 1000L;
    /* A signal must not shorten a chip-reset settle time. */
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void pcam_posix_init(pcam_posix *px, FILE *log_file, pcam_log_level level)
{
    px->log_file = log_file;
    px->log_level = level;
    px->t0_ns = pcam_posix_now_ns();
}

void pcam_posix_log(pcam_posix *px, pcam_log_level level, const char *line)
{
    static const char tag[] = "EWID";
    uint64_t t;

    if (px == NULL || px->log_file == NULL || level > px->log_level || line == NULL)
        return;
    t = pcam_posix_now_ns() - px->t0_ns;
    fprintf(px->log_file, "[%5lu.%06lu] %c: %s\n", (unsigned long)(t / 1000000000u),
            (unsigned long)(t % 1000000000u / 1000u), tag[(unsigned)level & 3u], line);
    fflush(px->log_file);
}

void pcam_posix_logf(pcam_posix *px, pcam_log_level level, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    if (px == NULL || px->log_file == NULL || level > px->log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pcam_posix_log(px, level, line);
}

static uint64_t px_now(void *ctx)
{
    (void)ctx;
    return pcam_posix_now_ns();
}

static void px_log(void *ctx, pcam_log_level level, const char *line)
{
    pcam_posix_log(ctx, level, line);
}

static void px_delay(void *ctx, uint32_t us)
{
    (void)ctx;
    pcam_posix_delay_us(us);
}

void pcam_posix_platform(pcam_posix *px, pcam_platform *out)
{
    out->ctx = px;
    out->now_ns = px_now;
    out->log = px_log;
    out->read8 = NULL;
    out->read16 = NULL;
    out->read32 = NULL;
    out->write8 = NULL;
    out->write16 = NULL;
    out->write32 = NULL;
    out->dma_map = NULL;
    out->dma_unmap = NULL;
    out->delay_us = px_delay;
}

int pcam_posix_lock_init(pcam_posix_lock *lk)
{
    pthread_mutexattr_t a;
    int rc;

    rc = pthread_mutexattr_init(&a);
    if (rc != 0)
        return rc;
    rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    if (rc == 0)
        rc = pthread_mutex_init(&lk->mutex, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

int pcam_posix_lock_acquire(pcam_posix_lock *lk)
{
    return pthread_mutex_lock(&lk->mutex);
}

int pcam_posix_lock_release(pcam_posix_lock *lk)
{
    return pthread_mutex_unlock(&lk->mutex);
}

int pcam_posix_lock_destroy(pcam_posix_lock *lk)
{
    return pthread_mutex_destroy(&lk->mutex);
}
