/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated-bus back-end of wnaspi32.dll: hal/sim with the devices a
 * user describes, as ASPI host adapter 0.
 *
 * The topology is the grammar of pcamctl's --sim (examples/pcamctl/
 * simspec.c, built in here unchanged so both read one grammar; file= takes
 * Windows paths, w32_config.c):
 *   1. the environment variable PCAM_ASPI_SIM: a topology, or @FILE;
 *   2. else the [topology] of the wnaspi32.ini w32_setup.c found;
 *   3. else the default below.
 * Media live in memory (zeros at start) unless a disk says file=PATH, which
 * maps that file (kept between runs, as with pcamctl). The adapter calls
 * itself what it is: HA_Identifier "Simulated SCSI".
 *
 * Time: the bus runs on simulated time, paced against real time at
 * PACE simulated ns per real ns, so a command timeout of seconds passes in
 * milliseconds but never all at once. Must never call a client or take the
 * adapter lock (the host holds it around step()).
 */
#include "w32_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam_sim.h"
#include "w32_config.h"

/* A disk, a two-LUN disk and a CD-ROM with a medium: enough for a scanner
 * to show something of every kind. */
#define DEFAULT_TOPOLOGY "0:disk:16M,1:disk:4M:luns=2,4:cd:8M"
#define PACE 1000u
/* Simulated time the pacing may bank while idle before it re-marks. */
#define PACE_BANK_NS 1000000000ull

typedef struct sim_media {
    uint8_t *p;
    HANDLE map; /* file= disks: the mapping (p is its view) */
} sim_media;

typedef struct w32_sim {
    simspec spec;
    pcam_sim *sim;
    pcam_bus bus;
    pcam_lun *luns;
    size_t nluns;
    sim_media media[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
    uint64_t sim_mark, real_mark;
    bool marked;
} w32_sim;

static w32_sim g_sim;

/* The topology, first found wins: PCAM_ASPI_SIM (a topology, or @FILE in
 * wnaspi32.ini's format), the ini's [topology], the default. */
static int get_topology(simspec *spec, char *err, size_t cap, const char **where)
{
    char buf[4096];
    const w32_config *cfg = w32_setup_config();
    DWORD n = GetEnvironmentVariableA("PCAM_ASPI_SIM", buf, sizeof buf);
    if (n >= sizeof buf) {
        snprintf(err, cap, "PCAM_ASPI_SIM is longer than %u characters", (unsigned)sizeof buf - 1);
        return -1;
    }
    if (n != 0) {
        *where = "PCAM_ASPI_SIM";
        w32_note("topology: PCAM_ASPI_SIM=%s%s", buf,
                 cfg->has_topology ? " (it overrides the ini's [topology])" : "");
        /* Relative paths: the working folder, as for any file named on the
         * command line. */
        if (buf[0] == '@')
            return w32_setup_topology_file(buf + 1, spec, err, cap);
        return w32_config_topology(buf, "", spec, err, cap);
    }
    if (cfg->has_topology) {
        *where = "wnaspi32.ini";
        w32_note("topology: the ini's [topology]");
        *spec = cfg->spec;
        return 0;
    }
    *where = "the default topology";
    w32_note("topology: the default, %s", DEFAULT_TOPOLOGY);
    return w32_config_topology(DEFAULT_TOPOLOGY, "", spec, err, cap);
}

static uint8_t *map_file(sim_media *m, const char *path, uint64_t len, char *err, size_t cap)
{
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, NULL, OPEN_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE) {
        snprintf(err, cap, "cannot open the media file %s (error %lu)", path, (unsigned long)GetLastError());
        return NULL;
    }
    /* A mapping of this size grows a shorter file to it. */
    m->map = CreateFileMappingA(f, NULL, PAGE_READWRITE, (DWORD)(len >> 32), (DWORD)len, NULL);
    CloseHandle(f);
    if (m->map == NULL) {
        snprintf(err, cap, "cannot map the media file %s (error %lu)", path, (unsigned long)GetLastError());
        return NULL;
    }
    m->p = MapViewOfFile(m->map, FILE_MAP_WRITE, 0, 0, (SIZE_T)len);
    if (m->p == NULL) {
        snprintf(err, cap, "cannot map %llu bytes of %s (error %lu)", (unsigned long long)len, path,
                 (unsigned long)GetLastError());
        CloseHandle(m->map);
        m->map = NULL;
    }
    return m->p;
}

static int add_target(w32_sim *s, uint8_t id, char *err, size_t cap)
{
    const spec_target *t = &s->spec.t[id];
    pcam_sim_target_config tc = t->tc;
    if (t->after_scan) {
        /* "afterscan": busy=, hang=, busfree= and badphase= start once the scan is done (sim_build). */
        tc.busy_next = 0;
        tc.hang_next = 0;
        tc.unexpected_free_next = 0;
        tc.illegal_phase_next = 0;
    }
    if (pcam_sim_add_target(s->sim, id, &tc) != 0) {
        snprintf(err, cap, "cannot add target %u", id);
        return -1;
    }
    for (uint8_t l = 0; l < t->luns; l++) {
        sim_media *m = &s->media[id][l];
        char serial[21];
        snprintf(serial, sizeof serial, "PCS%02u%u", (unsigned)id, (unsigned)l);
        if (t->bytes != 0) {
            if (t->bytes > (uint64_t)SIZE_MAX / 2) {
                snprintf(err, cap, "target %u: %llu bytes do not fit in this process", id,
                         (unsigned long long)t->bytes);
                return -1;
            }
            if (t->file[0] != '\0') {
                if (map_file(m, t->file, t->bytes, err, cap) == NULL)
                    return -1;
            } else if ((m->p = calloc(1, (size_t)t->bytes)) == NULL) {
                snprintf(err, cap, "cannot allocate %llu bytes for target %u", (unsigned long long)t->bytes,
                         id);
                return -1;
            }
        }
        pcam_simlu *lu = pcam_sim_lu(s->sim, id, l);
        if (t->kind == SPEC_DISK) {
            pcam_simlu_init_disk(lu, m->p, t->bytes / t->block_size, t->block_size, t->vendor, t->product,
                                 serial);
            for (unsigned i = 0; i < t->nmerr; i++)
                (void)pcam_simlu_add_medium_error(lu, t->merr[i]);
        } else {
            pcam_simlu_init_cdrom(lu, m->p, t->bytes / t->block_size, t->vendor, t->product);
        }
    }
    return 0;
}

/* One step, lock held: an interrupt, else simulated time up to the next
 * happening or core deadline, paced. */
static bool sim_step(w32_adapter *a, DWORD *sleep_ms)
{
    w32_sim *s = a->be_ctx;
    *sleep_ms = INFINITE;
    if (pcam_sim_event_pending(s->sim)) {
        pcam_bus_intr(&s->bus);
        return true;
    }
    uint64_t now = pcam_sim_now(s->sim);
    uint64_t t = pcam_sim_next_time(s->sim);
    uint64_t d = pcam_bus_next_deadline(&s->bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX) {
        s->marked = false; /* idle: the next work starts a fresh mark */
        return false;
    }
    uint64_t real = w32_real_ns();
    if (!s->marked) {
        s->sim_mark = now;
        s->real_mark = real;
        s->marked = true;
    }
    uint64_t allowed = s->sim_mark + (real - s->real_mark) * PACE;
    if (t > allowed) {
        uint64_t ms = (t - allowed) / PACE / 1000000u + 1u;
        *sleep_ms = ms > 20 ? 20 : (DWORD)ms;
        return false;
    }
    if (t < now)
        t = now;
    pcam_sim_advance(s->sim, t);
    if (d <= t)
        pcam_bus_tick(&s->bus);
    if (allowed > pcam_sim_now(s->sim) + PACE_BANK_NS)
        s->marked = false;
    return true;
}

static void scan_done(pcam_ccb *ccb)
{
    *(bool *)ccb->user = true;
}

static void free_media(w32_sim *s)
{
    for (unsigned i = 0; i < PCAM_SIM_MAX_IDS; i++) {
        for (unsigned l = 0; l < PCAM_SIM_LUNS; l++) {
            sim_media *m = &s->media[i][l];
            if (m->map != NULL) {
                UnmapViewOfFile(m->p);
                CloseHandle(m->map);
            } else {
                free(m->p);
            }
            m->p = NULL;
            m->map = NULL;
        }
    }
}

static int sim_build(w32_sim *s, char *err, size_t cap)
{
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = s->spec.width;
    sc.initiator_id = s->spec.initiator;
    sc.seed = s->spec.seed;
    /* SC_HA_INQUIRY's HA_Identifier, which device lists show. */
    sc.chip_name = "Simulated SCSI";
    if (sc.width == 8)
        sc.cap_flags &= ~(uint32_t)PCAM_HAL_CAP_WIDE;
    s->sim = pcam_sim_create(&sc);
    if (s->sim == NULL) {
        snprintf(err, cap, "cannot create the simulated bus");
        return -1;
    }
    for (uint8_t id = 0; id < PCAM_SIM_MAX_IDS; id++)
        if (s->spec.t[id].kind != SPEC_NONE && add_target(s, id, err, cap) != 0)
            return -1;

    pcam_hal hal;
    pcam_platform plat;
    pcam_hal_caps caps;
    pcam_bus_config cfg;
    pcam_bus_config_defaults(&cfg);
    cfg.polled = false;
    pcam_sim_get_hal(s->sim, &hal);
    pcam_sim_get_platform(s->sim, &plat);
    hal.ops->get_caps(hal.sc, &caps);
    s->nluns = PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target);
    s->luns = calloc(s->nluns, sizeof *s->luns);
    if (s->luns == NULL) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    pcam_err rc = pcam_bus_init(&s->bus, &cfg, &hal, &plat, s->luns, s->nluns);
    if (rc != PCAM_OK) {
        snprintf(err, cap, "cannot start the bus: %s", pcam_strerror(rc));
        return -1;
    }
    /* Scan before any client runs (single-threaded here), as a manager
     * that has its device table ready at GetASPI32SupportInfo. */
    pcam_ccb ccb;
    bool done = false;
    DWORD ms;
    w32_adapter probe;
    memset(&probe, 0, sizeof probe);
    probe.be_ctx = s;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCAN_BUS;
    ccb.done = scan_done;
    ccb.user = &done;
    pcam_action(&s->bus, &ccb);
    while (!done) {
        if (!sim_step(&probe, &ms)) {
            if (ms == INFINITE)
                break;
            Sleep(ms);
        }
    }
    if (!done || (ccb.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP) {
        snprintf(err, cap, "the bus scan failed (status %#x)", (unsigned)ccb.status);
        return -1;
    }
    /* Faults given with "afterscan" start now, as in pcamctl (one grammar). */
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        const spec_target *t = &s->spec.t[id];
        pcam_sim_target_config *tc;
        if (t->kind == SPEC_NONE || !t->after_scan || (tc = pcam_sim_target_cfg(s->sim, (uint8_t)id)) == NULL)
            continue;
        tc->busy_next = t->tc.busy_next;
        tc->hang_next = t->tc.hang_next;
        tc->unexpected_free_next = t->tc.unexpected_free_next;
        tc->illegal_phase_next = t->tc.illegal_phase_next;
    }
    return 0;
}

static int sim_open(char *err, size_t cap)
{
    w32_sim *s = &g_sim;
    const char *where = "";
    char perr[500];
    memset(s, 0, sizeof *s);
    if (get_topology(&s->spec, perr, sizeof perr, &where) != 0) {
        snprintf(err, cap, "bad topology in %s: %s", where, perr);
        return -1;
    }
    if (sim_build(s, perr, sizeof perr) != 0 || w32_attach(&w32_sim_backend, s, &s->bus, perr, sizeof perr) != 0) {
        snprintf(err, cap, "simulated bus (%s): %s", where, perr);
        if (s->sim != NULL)
            pcam_sim_destroy(s->sim);
        free(s->luns);
        free_media(s);
        memset(s, 0, sizeof *s);
        return -1;
    }
    return 0;
}

const w32_backend w32_sim_backend = {"sim", sim_open, sim_step};
