/* SPDX-License-Identifier: BSD-2-Clause */
/* The ASPI host over hal/sim (see aspi_simhost.h). */
#define _POSIX_C_SOURCE 200809L
#include "aspi_simhost.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void must(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "aspi_simhost: %s failed (%d)\n", what, rc);
        abort();
    }
}

/* ---- manager-wide services ---- */

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

static void g_lock(void *ctx)
{
    (void)ctx;
    must(pthread_mutex_lock(&global_lock), "global lock");
}

static void g_unlock(void *ctx)
{
    (void)ctx;
    must(pthread_mutex_unlock(&global_lock), "global unlock");
}

static void *buf_alloc(void *ctx, size_t len, size_t align)
{
    void *p = NULL;
    (void)ctx;
    if (posix_memalign(&p, align, len) != 0)
        return NULL;
    return p;
}

static void buf_free(void *ctx, void *p, size_t len)
{
    (void)ctx;
    (void)len;
    free(p);
}

static void signal_event(void *ctx, void *event)
{
    (void)ctx;
    aspi_sim_event_signal(event);
}

void aspi_simhost_services(pcam_aspi_host *out)
{
    memset(out, 0, sizeof *out);
    out->lock = g_lock;
    out->unlock = g_unlock;
    out->buf_alloc = buf_alloc;
    out->buf_free = buf_free;
    out->signal_event = signal_event;
}

/* ---- running the bus ---- */

/* One step with the lock held: an interrupt, else simulated time up to the
 * next happening or core deadline. False when nothing at all is pending. */
static bool step_until(aspi_simhost *h, uint64_t limit)
{
    h->steps++;
    if (pcam_sim_event_pending(h->sim)) {
        pcam_bus_intr(&h->bus);
        return true;
    }
    uint64_t now = pcam_sim_now(h->sim);
    uint64_t t = pcam_sim_next_time(h->sim);
    uint64_t d = pcam_bus_next_deadline(&h->bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        return false;
    if (t < now)
        t = now;
    if (t > limit) {
        if (limit > now)
            pcam_sim_advance(h->sim, limit);
        return false;
    }
    pcam_sim_advance(h->sim, t);
    if (d <= t)
        pcam_bus_tick(&h->bus);
    return true;
}

static bool step(aspi_simhost *h)
{
    return step_until(h, UINT64_MAX);
}

static uint64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Unused simulated time the pacing may bank (then it re-marks). */
#define PACE_BANK_NS 1000000000ull

/* The service thread's step: like step(), but simulated time may not run
 * ahead of real time x time_scale. Returns 1 when it did something, 0 when
 * idle, and sleeps (releasing the lock) when the next happening is later. */
static int paced_step(aspi_simhost *h)
{
    if (pcam_sim_event_pending(h->sim) || h->time_scale == 0)
        return step(h) ? 1 : 0;
    uint64_t t = pcam_sim_next_time(h->sim);
    uint64_t d = pcam_bus_next_deadline(&h->bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        return 0;
    uint64_t real = real_ns();
    uint64_t allowed = h->sim_mark + (real - h->real_mark) * h->time_scale;
    if (t > allowed) {
        uint64_t wait_ns = (t - allowed) / h->time_scale + 1;
        if (wait_ns > 20000000ull)
            wait_ns = 20000000ull;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)wait_ns;
        while (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        int rc = pthread_cond_timedwait(&h->cv, &h->lock, &ts);
        if (rc != 0 && rc != ETIMEDOUT)
            must(rc, "cond timedwait");
        return 1;
    }
    bool did = step(h);
    if (allowed > pcam_sim_now(h->sim) + PACE_BANK_NS) {
        h->sim_mark = pcam_sim_now(h->sim);
        h->real_mark = real;
    }
    return did ? 1 : 0;
}

static void *service(void *arg)
{
    aspi_simhost *h = arg;
    must(pthread_mutex_lock(&h->lock), "lock");
    h->sim_mark = pcam_sim_now(h->sim);
    h->real_mark = real_ns();
    while (!h->stop) {
        /* Completions queued by a client thread that may not deliver
         * (post_on_service) are this thread's to run. */
        if (paced_step(h) || h->ad.nq_head != NULL) {
            must(pthread_mutex_unlock(&h->lock), "unlock");
            pcam_aspi_deliver(&h->ad);
            must(pthread_mutex_lock(&h->lock), "lock");
            continue;
        }
        must(pthread_cond_wait(&h->cv, &h->lock), "cond wait");
        h->sim_mark = pcam_sim_now(h->sim);
        h->real_mark = real_ns();
    }
    must(pthread_mutex_unlock(&h->lock), "unlock");
    return NULL;
}

static void op_lock(void *ctx)
{
    aspi_simhost *h = ctx;
    must(pthread_mutex_lock(&h->lock), "adapter lock");
}

static void op_unlock(void *ctx)
{
    aspi_simhost *h = ctx;
    must(pthread_mutex_unlock(&h->lock), "adapter unlock");
}

/* A client thread sleeps until the service thread changes something; the
 * service thread itself (a posting routine that waits) and a polled host
 * run the bus here instead. */
static void op_wait(void *ctx)
{
    aspi_simhost *h = ctx;
    if (h->running && !pthread_equal(pthread_self(), h->thread)) {
        must(pthread_cond_wait(&h->cv, &h->lock), "cond wait");
        return;
    }
    if (!step(h)) {
        fprintf(stderr, "aspi_simhost: waiting with nothing left to run\n");
        abort();
    }
}

static void op_wake(void *ctx)
{
    aspi_simhost *h = ctx;
    must(pthread_cond_broadcast(&h->cv), "broadcast");
}

/* post_on_service: only the service thread runs posting routines. */
static bool op_may_deliver(void *ctx)
{
    aspi_simhost *h = ctx;
    return !h->running || pthread_equal(pthread_self(), h->thread);
}

static const pcam_aspi_adapter_ops host_ops = {
    op_lock, op_unlock, op_wait, op_wake, op_wake, NULL, NULL,
};

static const pcam_aspi_adapter_ops host_ops_service = {
    op_lock, op_unlock, op_wait, op_wake, op_wake, NULL, op_may_deliver,
};

int aspi_simhost_init(aspi_simhost *h, const pcam_sim_config *scfg, const pcam_bus_config *bcfg)
{
    pcam_hal hal;
    pcam_platform plat;
    pcam_hal_caps caps;
    pcam_bus_config cfg;
    pthread_mutexattr_t ma;

    memset(h, 0, sizeof *h);
    h->sim = pcam_sim_create(scfg);
    if (h->sim == NULL)
        return PCAM_ERR_RANGE;
    if (bcfg != NULL)
        cfg = *bcfg;
    else
        pcam_bus_config_defaults(&cfg);
    cfg.polled = false;
    pcam_sim_get_hal(h->sim, &hal);
    pcam_sim_get_platform(h->sim, &plat);
    hal.ops->get_caps(hal.sc, &caps);
    h->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    h->luns = calloc(h->nluns, sizeof *h->luns);
    if (h->luns == NULL)
        return PCAM_ERR_NOSPACE;
    must(pthread_mutexattr_init(&ma), "mutexattr");
    must(pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK), "mutexattr type");
    must(pthread_mutex_init(&h->lock, &ma), "mutex");
    pthread_mutexattr_destroy(&ma);
    must(pthread_cond_init(&h->cv, NULL), "cond");
    h->time_scale = 1000;
    return pcam_bus_init(&h->bus, &cfg, &hal, &plat, h->luns, h->nluns);
}

uint8_t *aspi_simhost_add_disk(aspi_simhost *h, uint8_t id, uint8_t lun, uint64_t blocks,
                               const pcam_sim_target_config *tc)
{
    if (pcam_sim_target_cfg(h->sim, id) == NULL && pcam_sim_add_target(h->sim, id, tc) != 0)
        return NULL;
    uint8_t *store = malloc((size_t)blocks * 512u);
    if (store == NULL)
        return NULL;
    for (size_t i = 0; i < (size_t)blocks * 512u; i++)
        store[i] = (uint8_t)(i * 7u + id * 13u + lun);
    char serial[8];
    snprintf(serial, sizeof serial, "S%02u%u", (unsigned)id, (unsigned)lun);
    pcam_simlu_init_disk(pcam_sim_lu(h->sim, id, lun), store, blocks, 512, "PCAMSIM", "DISK", serial);
    h->stores[id][lun] = store;
    return store;
}

static void scan_done(pcam_ccb *ccb)
{
    *(bool *)ccb->user = true;
}

int aspi_simhost_scan(aspi_simhost *h)
{
    pcam_ccb ccb;
    bool done = false;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCAN_BUS;
    ccb.done = scan_done;
    ccb.user = &done;
    op_lock(h);
    pcam_action(&h->bus, &ccb);
    while (!done && step(h))
        ;
    op_unlock(h);
    return done && (ccb.status & PCAM_STATUS_MASK) == PCAM_REQ_CMP ? 0 : -1;
}

int aspi_simhost_attach(aspi_simhost *h, size_t nreqs, bool threaded)
{
    if (nreqs == 0 || nreqs > ASPI_SIMHOST_REQS)
        nreqs = ASPI_SIMHOST_REQS;
    h->nreqs = nreqs;
    const pcam_aspi_adapter_ops *ops = threaded && h->post_on_service ? &host_ops_service : &host_ops;
    int rc = pcam_aspi_add_adapter(&h->ad, &h->bus, ops, h, h->reqs, nreqs, &h->ha_id);
    if (rc != PCAM_OK)
        return rc;
    h->threaded = threaded;
    if (threaded) {
        op_lock(h);
        must(pthread_create(&h->thread, NULL, service, h), "thread");
        h->running = true;
        op_unlock(h);
    }
    return 0;
}

bool aspi_simhost_drain(aspi_simhost *h, uint64_t max_steps)
{
    for (uint64_t i = 0; i < max_steps; i++) {
        pcam_aspi_deliver(&h->ad);
        if (pcam_aspi_in_flight(&h->ad) == 0)
            return true;
        op_lock(h);
        bool did = step(h);
        op_unlock(h);
        if (!did && h->ad.nq_head == NULL)
            return pcam_aspi_in_flight(&h->ad) == 0;
    }
    return pcam_aspi_in_flight(&h->ad) == 0;
}

void aspi_simhost_run_for(aspi_simhost *h, uint64_t ns)
{
    op_lock(h);
    uint64_t until = pcam_sim_now(h->sim) + ns;
    while (pcam_sim_now(h->sim) < until && step_until(h, until)) {
        op_unlock(h);
        pcam_aspi_deliver(&h->ad);
        op_lock(h);
    }
    op_unlock(h);
    pcam_aspi_deliver(&h->ad);
}

void aspi_simhost_fini(aspi_simhost *h)
{
    if (h->running) {
        op_lock(h);
        h->stop = true;
        must(pthread_cond_broadcast(&h->cv), "broadcast");
        op_unlock(h);
        must(pthread_join(h->thread, NULL), "join");
        h->running = false;
    }
    op_lock(h);
    pcam_bus_shutdown(&h->bus);
    op_unlock(h);
    /* Shutdown completions queue notifications like any other. */
    if (h->nreqs != 0)
        pcam_aspi_deliver(&h->ad);
    pcam_sim_destroy(h->sim);
    for (unsigned i = 0; i < PCAM_SIM_MAX_IDS; i++)
        for (unsigned l = 0; l < PCAM_SIM_LUNS; l++)
            free(h->stores[i][l]);
    free(h->luns);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->lock);
    memset(h, 0, sizeof *h);
}

/* ---- events ---- */

void aspi_sim_event_init(aspi_sim_event *e)
{
    memset(e, 0, sizeof *e);
    must(pthread_mutex_init(&e->m, NULL), "event mutex");
    must(pthread_cond_init(&e->c, NULL), "event cond");
}

void aspi_sim_event_destroy(aspi_sim_event *e)
{
    pthread_cond_destroy(&e->c);
    pthread_mutex_destroy(&e->m);
}

void aspi_sim_event_signal(aspi_sim_event *e)
{
    must(pthread_mutex_lock(&e->m), "event lock");
    e->signals++;
    must(pthread_cond_broadcast(&e->c), "event broadcast");
    must(pthread_mutex_unlock(&e->m), "event unlock");
}

bool aspi_sim_event_wait(aspi_sim_event *e, unsigned timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(timeout_ms / 1000u);
    ts.tv_nsec += (long)(timeout_ms % 1000u) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    must(pthread_mutex_lock(&e->m), "event lock");
    int rc = 0;
    while (e->taken == e->signals && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&e->c, &e->m, &ts);
    bool got = e->taken < e->signals;
    if (got)
        e->taken++;
    must(pthread_mutex_unlock(&e->m), "event unlock");
    return got;
}

unsigned aspi_sim_event_count(aspi_sim_event *e)
{
    must(pthread_mutex_lock(&e->m), "event lock");
    unsigned n = e->signals;
    must(pthread_mutex_unlock(&e->m), "event unlock");
    return n;
}
