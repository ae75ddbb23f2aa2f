/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A host for the ASPI layer over the simulated bus, with POSIX threads:
 * what an embedder writes around pcam_aspi.h, as a working example and as
 * the rig of the ASPI tests, the aspiscan example and the -m32 check.
 *
 * One simulated bus is one adapter. Its lock is an error-checking mutex
 * (a double lock aborts instead of hanging). Threaded: a service thread
 * runs the bus (interrupts, simulated time, core timers) whenever there is
 * anything to run, and delivers notifications after each step; client
 * threads that wait sleep on a condition variable. Polled: nobody runs the
 * bus until someone waits; aspi_simhost_drain() runs it until idle.
 */
#ifndef PCAM_ASPI_SIMHOST_H
#define PCAM_ASPI_SIMHOST_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pcam/pcam.h"
#include "pcam/pcam_aspi.h"
#include "pcam_sim.h"

#define ASPI_SIMHOST_REQS 32

typedef struct aspi_simhost {
    pcam_sim *sim;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t thread;
    bool threaded;
    bool running;
    bool stop;
    /* Threaded only, set before attach: notifications run on the service
     * thread alone, never on a client's thread (as a Win32 manager does). */
    bool post_on_service;
    uint64_t steps;
    /* Threaded pacing: simulated ns per real ns (0: as fast as possible).
     * A free-running service thread would let every hung command time out
     * at once in real time; paced, a 10 s timeout takes 10 ms at 1000. */
    uint64_t time_scale;
    uint64_t sim_mark, real_mark;
    pcam_aspi_adapter ad;
    pcam_aspi_req reqs[ASPI_SIMHOST_REQS];
    size_t nreqs;
    uint8_t ha_id;
    uint8_t *stores[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
} aspi_simhost;

/* The event object of this host's SRB_EVENT_NOTIFY: its address is the
 * "handle" that aspi_simhost_services() signals. Only this host's choice:
 * the layer treats the handle as opaque, and an embedder may install its
 * own pcam_aspi_host::signal_event (a Win32 host calls SetEvent). */
typedef struct aspi_sim_event {
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned signals;
    unsigned taken;
} aspi_sim_event;

/* Host services for pcam_aspi_init(): a global mutex, page-aligned
 * buffers from the C library, and aspi_sim_event signalling (replace
 * out->signal_event for handles of another kind). */
void aspi_simhost_services(pcam_aspi_host *out);

/* Create the bus (scfg/bcfg NULL: defaults). 0 or a negative pcam_err. */
int aspi_simhost_init(aspi_simhost *h, const pcam_sim_config *scfg, const pcam_bus_config *bcfg);
/* A disk of `blocks` 512-byte blocks (tc NULL: target defaults); the
 * medium, filled with a pattern, is owned by the host. */
uint8_t *aspi_simhost_add_disk(aspi_simhost *h, uint8_t id, uint8_t lun, uint64_t blocks,
                               const pcam_sim_target_config *tc);
/* Scan the bus now, single-threaded (before attach). 0 or -1. */
int aspi_simhost_scan(aspi_simhost *h);
/* Register the bus with the ASPI manager (already initialised) with nreqs
 * request slots (0: all), and start the service thread if threaded
 * (paced at time_scale, default 1000: set it before attach to change). */
int aspi_simhost_attach(aspi_simhost *h, size_t nreqs, bool threaded);
/* Polled hosts: run the bus and deliver until no request is in flight
 * (bounded by max_steps). True when idle. */
bool aspi_simhost_drain(aspi_simhost *h, uint64_t max_steps);
/* Polled hosts: run the bus for `ns` of simulated time (or until nothing
 * is pending), delivering notifications. */
void aspi_simhost_run_for(aspi_simhost *h, uint64_t ns);
/* Stop the thread, shut the bus down, free everything. */
void aspi_simhost_fini(aspi_simhost *h);

void aspi_sim_event_init(aspi_sim_event *e);
void aspi_sim_event_destroy(aspi_sim_event *e);
void aspi_sim_event_signal(aspi_sim_event *e);
/* Wait for one signal not yet taken (up to timeout_ms of real time). */
bool aspi_sim_event_wait(aspi_sim_event *e, unsigned timeout_ms);
/* Signals so far. */
unsigned aspi_sim_event_count(aspi_sim_event *e);

#endif /* PCAM_ASPI_SIMHOST_H */
