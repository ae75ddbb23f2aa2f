/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to aspi/win32: one ASPI host adapter of wnaspi32.dll and the seam
 * between the Win32 host (w32_host.c: locks, service thread, events,
 * buffers, exports) and the back-end that owns the bus (w32_sim.c, the
 * simulated bus; a real chip would be a second table of the same kind).
 * A back-end never takes the adapter lock itself and never calls a client.
 */
#ifndef PCAM_W32_HOST_H
#define PCAM_W32_HOST_H

#include <windows.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam.h"
#include "pcam/pcam_aspi.h"

/* Request slots per adapter: SRBs one adapter may have in flight at once. */
#define W32_REQS 64

struct w32_adapter;

typedef struct w32_backend {
    const char *name;
    /* Build and scan the bus(es) of the back-end, registering each as an
     * ASPI adapter through w32_attach(). 0, or -1 with a reason in err. */
    int (*open)(char *err, size_t cap);
    /*
     * With the adapter lock held: make one step of progress. Returns true
     * when it did something; false when idle, with *sleep_ms the longest
     * the caller may sleep before stepping again (INFINITE: until new work
     * arrives through a wake).
     */
    bool (*step)(struct w32_adapter *a, DWORD *sleep_ms);
    /* No close: once initialised the DLL stays (it pins itself) and
     * Windows ends its threads at process exit. */
} w32_backend;

typedef struct w32_adapter {
    const w32_backend *be;
    void *be_ctx;                 /* the back-end's own state */
    pcam_bus *bus;                /* owned by the back-end */
    CRITICAL_SECTION cs;          /* the adapter lock around every core entry */
    CONDITION_VARIABLE cv;        /* wait/wake and the service thread's sleep */
    HANDLE thread;
    DWORD thread_id;
    volatile LONG stop;
    pcam_aspi_adapter ad;
    pcam_aspi_req reqs[W32_REQS];
} w32_adapter;

/* Register a bus (scanned) as the next ASPI adapter and start its service
 * thread. 0, or -1 with a reason in err. */
int w32_attach(const w32_backend *be, void *be_ctx, pcam_bus *bus, char *err, size_t cap);

#if defined(__GNUC__)
#define W32_PRINTF __attribute__((format(printf, 1, 2)))
#else
#define W32_PRINTF
#endif

/* An error for the user: stderr (console programs show it), the debugger
 * (OutputDebugString) and the log file (w32_setup.c). */
void w32_log(const char *fmt, ...) W32_PRINTF;
/* Information (which ini was read): the debugger and the log file only. */
void w32_note(const char *fmt, ...) W32_PRINTF;

/* ---- settings (w32_setup.c) ---- */
struct w32_config;
struct simspec;
/* Find wnaspi32.ini (beside the program, then beside the DLL), say which,
 * and read it. 0 (also when there is none), or -1 with the reason. */
int w32_setup_read(char *err, size_t cap);
/* What it said (all empty without an ini). */
const struct w32_config *w32_setup_config(void);
/* PCAM_ASPI_SIM=@FILE: the [topology] of that file (wnaspi32.ini's
 * format, paths relative to its folder). 0, or -1 with the reason. */
int w32_setup_topology_file(const char *path, struct simspec *spec, char *err, size_t cap);
/* The initialisation ended (failed: ASPI answers SS_FAILED_INIT): write
 * its lines to the log the ini names, or on failure to the default log,
 * and say where. Later messages go straight to the log in use. */
void w32_setup_done(bool failed);

/* The folder wnaspi32.dll was loaded from, with a trailing backslash. */
const char *w32_dll_dir(void);
/* Its full path ("" when unknown). */
const char *w32_dll_path(void);

/* Real time in nanoseconds (QueryPerformanceCounter). */
uint64_t w32_real_ns(void);

/* The simulated-bus back-end (w32_sim.c). */
extern const w32_backend w32_sim_backend;

#endif /* PCAM_W32_HOST_H */
