/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Back-ends: where pcamctl's bus comes from.
 *
 * "sim" builds the simulated bus of hal/sim from the topology, drives it
 * with the test harness (tests/support/simrig.c, which plays the shim: it
 * delivers interrupts and moves simulated time when both sides wait), and
 * scans it. A simulated bus lives for one process run, so every subcommand
 * builds, scans and acts; only file= media persist.
 *
 * "qemu-esp" and "qemu-mpt" (qemu_backend.c) start QEMU with an AM53C974
 * or a SAS1068 (an entry each of osshim/posix's chip table) and the
 * --qemu-drive images and drive hal/esp or hal/mpt over the qtest socket.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS and MAP_NORESERVE in glibc */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#ifdef PCAMCTL_HAVE_QEMU
#include "pcam_qemu_chip.h"
#endif

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

/* ------------------------------------------------------------------ */
/* sim */

static void *map_file(ctl *c, const char *path, size_t len, int *rc)
{
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    struct stat st;
    void *p;
    if (fd < 0) {
        *rc = ctl_err(c, CTL_EFILE, "cannot open the media file %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || ((size_t)st.st_size < len && ftruncate(fd, (off_t)len) != 0)) {
        *rc = ctl_err(c, CTL_EFILE, "cannot size the media file %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        *rc = ctl_err(c, CTL_EFILE, "cannot map the media file %s: %s", path, strerror(errno));
        return NULL;
    }
    return p;
}

static int add_target(ctl *c, uint8_t id)
{
    const spec_target *t = &c->spec.t[id];
    pcam_sim_target_config tc = simspec_scan_config(t); /* "afterscan" faults: armed later */
    int rc = pcam_sim_add_target(c->rig.sim, id, &tc);
    if (rc != 0)
        return ctl_err(c, CTL_EUSAGE, "cannot add target %u: %s", id, pcam_strerror(rc));
    for (uint8_t l = 0; l < t->luns; l++) {
        pcam_simlu *lu = pcam_sim_lu(c->rig.sim, id, l);
        uint8_t *store = NULL;
        char serial[21];
        size_t len = (size_t)t->bytes;
        snprintf(serial, sizeof serial, "PCS%02u%u", (unsigned)id, (unsigned)l);
        if (len != 0) {
            if (t->file[0] != '\0') {
                rc = 0;
                store = map_file(c, t->file, len, &rc);
                if (store == NULL)
                    return rc;
            } else {
                /* Anonymous pages stay unbacked until written, so a 1G disk
                 * costs only what the run writes (a fresh disk reads zeros),
                 * also under sanitizers, which would clear a calloc'd one. */
                void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                               -1, 0);
                if (p == MAP_FAILED)
                    return ctl_err(c, CTL_EOTHER, "cannot allocate %zu bytes for target %u", len, id);
                store = p;
            }
            c->media[id][l] = store;
            c->media_len[id][l] = len;
        }
        if (t->kind == SPEC_DISK) {
            pcam_simlu_init_disk(lu, store, t->bytes / t->block_size, t->block_size, t->vendor,
                                 t->product, serial);
            for (unsigned i = 0; i < t->nmerr; i++)
                (void)pcam_simlu_add_medium_error(lu, t->merr[i]);
        } else {
            pcam_simlu_init_cdrom(lu, store, t->bytes / t->block_size, t->vendor, t->product);
            pcam_simlu_set_serial(lu, serial); /* VPD 80h answers with it, as for a disk */
        }
    }
    return 0;
}

static void sim_close(ctl *c);

static int sim_open(ctl *c)
{
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = c->spec.width;
    sc.initiator_id = c->spec.initiator;
    sc.seed = c->spec.seed;
    if (sc.width == 8)
        sc.cap_flags &= ~(uint32_t)PCAM_HAL_CAP_WIDE;
    int rc = simrig_init(&c->rig, &sc, &c->bcfg, c->polled);
    if (rc != 0) {
        if (c->rig.sim != NULL)
            simrig_fini(&c->rig);
        return ctl_err(c, CTL_EUSAGE, "cannot build the simulated bus: %s", pcam_strerror(rc));
    }
    c->open = true;
    c->rig.check_every = 0;
    for (uint8_t id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        if (c->spec.t[id].kind == SPEC_NONE)
            continue;
        rc = add_target(c, id);
        if (rc != 0) {
            sim_close(c);
            return rc;
        }
    }
    return 0;
}

static void sim_submit(ctl *c, pcam_ccb *ccb)
{
    pcam_action(&c->rig.bus, ccb);
    /* The rig asks the core for its next deadline only after its own entry
     * points; a CCB handed in here may have moved it. */
    c->rig.deadline = pcam_bus_next_deadline(&c->rig.bus);
}

static bool sim_step(ctl *c)
{
    return simrig_step(&c->rig);
}

static uint64_t sim_now(ctl *c)
{
    return pcam_sim_now(c->rig.sim);
}

static void sim_close(ctl *c)
{
    if (!c->open)
        return;
    if (c->vcd_path != NULL) {
        /* A few idle microseconds so the waveform ends with the bus free. */
        pcam_sim_advance(c->rig.sim, pcam_sim_now(c->rig.sim) + 2000);
        if (pcam_sim_vcd_close(c->rig.sim) != 0)
            ctl_err(c, CTL_EFILE, "writing %s failed", c->vcd_path);
    }
    pcam_sim_set_log(c->rig.sim, NULL);
    simrig_fini(&c->rig);
    for (unsigned i = 0; i < PCAM_SIM_MAX_IDS; i++)
        for (unsigned l = 0; l < PCAM_SIM_LUNS; l++) {
            if (c->media[i][l] == NULL)
                continue;
            munmap(c->media[i][l], c->media_len[i][l]);
            c->media[i][l] = NULL;
        }
    c->open = false;
}

static const ctl_backend sim_backend = {"sim", sim_open, sim_submit, sim_step, sim_now, sim_close, NULL, "sim0", 0, 0};

#ifndef PCAMCTL_HAVE_QEMU
/* Built without osshim/posix and the back-ends: the QEMU back-ends say so. */
static int qemu_open(ctl *c)
{
    return ctl_err(c, CTL_EBACKEND,
                   "back-end '%s' is not in this build (it needs osshim/posix and the chip's hal/); "
                   "use --backend sim", c->be->name);
}

const ctl_backend ctl_qemu_esp_backend = {"qemu-esp", qemu_open, NULL, NULL, NULL, NULL, NULL, "esp0", 7, 0};
const ctl_backend ctl_qemu_mpt_backend = {"qemu-mpt", qemu_open, NULL, NULL, NULL, NULL, NULL, "mpt0", 15, 0};

int cmd_hmp(ctl *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return ctl_err(c, ctl_is_sim(c) ? CTL_EUSAGE : CTL_EBACKEND,
                   "hmp: the QEMU monitor needs --backend qemu-esp or qemu-mpt");
}
#endif

bool ctl_is_sim(const ctl *c)
{
    return c->be == &sim_backend;
}

static const ctl_backend *const backends[] = {&sim_backend, &ctl_qemu_esp_backend, &ctl_qemu_mpt_backend};

const ctl_backend *ctl_find_backend(const char *name)
{
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

/* ------------------------------------------------------------------ */

static void sync_done(pcam_ccb *ccb)
{
    *(bool *)ccb->user = true;
}

uint32_t ctl_sync(ctl *c, pcam_ccb *ccb, uint32_t limit_ms)
{
    bool done = false;
    void *saved = ccb->user;
    ccb->user = &done;
    ccb->done = sync_done;
    uint64_t until = ctl_now(c) + (uint64_t)limit_ms * 1000000u;
    ctl_submit(c, ccb);
    while (!done && ctl_now(c) <= until && ctl_step(c))
        ;
    ccb->user = saved;
    return done ? ccb->status : 0xFFFFFFFFu;
}

void ctl_submit(ctl *c, pcam_ccb *ccb)
{
    c->be->submit(c, ccb);
}

bool ctl_step(ctl *c)
{
    return c->be->step(c);
}

uint64_t ctl_now(ctl *c)
{
    return c->be->now(c);
}

pcam_bus *ctl_bus(ctl *c)
{
#ifdef PCAMCTL_HAVE_QEMU
    if (!ctl_is_sim(c) && c->qe != NULL)
        return &c->qe->bus;
#endif
    return &c->rig.bus;
}

/* What went wrong during a scan: a target that answered BUSY to the end,
 * timed out, needed a reset or broke the protocol is left out of the table,
 * and the user should hear why instead of seeing one device fewer. The
 * event ring names what the core did (read here, so it is gone for later
 * readers; reset reads its own), the per-target counters since `before`
 * (NULL: a new bus) what the target answered. A target the table holds
 * after all (the recovery worked) is not one the scan failed on. */
void ctl_scan_review(ctl *c, const pcam_counters *before)
{
    pcam_event ev[PCAM_EVENT_RING];
    size_t n = pcam_bus_read_events(ctl_bus(c), ev, PCAM_EVENT_RING);
    uint32_t seen[PCAM_MAX_TARGETS];
    memset(seen, 0, sizeof seen);
    c->scan_trouble = 0;
    memset(c->scan_why, 0, sizeof c->scan_why);
    for (size_t i = 0; i < n; i++) {
        uint16_t code = ev[i].code;
        if (code != PCAM_EV_TIMEOUT && code != PCAM_EV_ABORT_SENT && code != PCAM_EV_BDR_SENT &&
            code != PCAM_EV_PARITY && code != PCAM_EV_UNEXP_FREE && code != PCAM_EV_BAD_PHASE &&
            code != PCAM_EV_LUN_RESET && code != PCAM_EV_BUS_RESET)
            continue;
        if (ev[i].target < PCAM_MAX_TARGETS) {
            if (seen[ev[i].target] & (1u << code))
                continue;
            seen[ev[i].target] |= 1u << code;
            const char *what = code == PCAM_EV_TIMEOUT     ? "it accepted a command and did not finish it in time"
                               : code == PCAM_EV_ABORT_SENT ? "the core sent it ABORT TASK"
                               : code == PCAM_EV_BDR_SENT   ? "the core sent it BUS DEVICE RESET"
                               : code == PCAM_EV_LUN_RESET  ? "the core sent it LOGICAL UNIT RESET"
                               : code == PCAM_EV_PARITY     ? "a parity error on its bytes"
                               : code == PCAM_EV_UNEXP_FREE ? "it let go of the bus in the middle of a command"
                               : code == PCAM_EV_BAD_PHASE  ? "it went to a bus phase the protocol does not allow there"
                                                            : "the bus was reset";
            ctl_warn(c, "scan: target %u: %s (event %s)", ev[i].target, what, ctl_event_name(code));
        } else if (code == PCAM_EV_BUS_RESET) {
            ctl_warn(c, "scan: the bus was reset (recovery)");
        }
    }
    for (unsigned t = 0; t < PCAM_MAX_TARGETS && t <= ctl_max_target(c); t++) {
        pcam_counters k, z;
        pcam_ccb ccb;
        memset(&z, 0, sizeof z);
        const pcam_counters *b = before != NULL ? &before[t] : &z;
        if (t == c->spec.initiator || pcam_bus_get_counters(ctl_bus(c), (uint8_t)t, &k) != PCAM_OK)
            continue;
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_GET_DEV;
        ccb.target = (uint8_t)t;
        if (ctl_sync(c, &ccb, 1000) == PCAM_REQ_CMP && ccb.u.dev.present)
            continue;
        const char *why = NULL;
        if (k.timeouts != b->timeouts || (seen[t] & (1u << PCAM_EV_TIMEOUT)))
            why = "it accepted a command and did not finish it (timeout)";
        else if (k.busy != b->busy)
            why = "it answered BUSY to the end of the core's retries";
        else if (k.queue_fulls != b->queue_fulls)
            why = "it answered TASK SET FULL to the end of the core's retries";
        else if (k.parity_errors != b->parity_errors || (seen[t] & (1u << PCAM_EV_PARITY)))
            why = "parity errors on its bytes";
        else if (seen[t] & ((1u << PCAM_EV_UNEXP_FREE) | (1u << PCAM_EV_BAD_PHASE)))
            why = "it broke the protocol (an unexpected bus free or phase)";
        else if (k.check_conditions != b->check_conditions)
            why = "INQUIRY ended in CHECK CONDITION";
        else if (k.aborts != b->aborts || k.resets != b->resets || seen[t] != 0)
            why = "the core had to abort or reset it";
        if (why == NULL)
            continue;
        c->scan_trouble |= (uint16_t)(1u << t);
        snprintf(c->scan_why[t], sizeof c->scan_why[t], "%s", why);
        ctl_warn(c, "scan: target %u could not be scanned: %s", t, why);
    }
}

/* The VCD and the phase log start together, before or after the scan. */
static int start_trace(ctl *c)
{
    if (c->vcd_path == NULL && !c->phases)
        return 0;
    if (c->vcd_path != NULL && pcam_sim_vcd_open(c->rig.sim, c->vcd_path) != 0) {
        const char *path = c->vcd_path;
        int e = errno;
        c->vcd_path = NULL;
        ctl_close(c);
        return ctl_err(c, CTL_EFILE, "cannot create the trace %s: %s", path, e != 0 ? strerror(e) : "failed");
    }
    if (c->phases)
        pcam_sim_set_log(c->rig.sim, stdout);
    return 0;
}

int ctl_open(ctl *c)
{
    if (c->open)
        return 0; /* script mode: the bus is already up */
    int rc = c->be->open(c);
    if (rc != 0)
        return rc;
    if (c->vcd_with_scan && (rc = start_trace(c)) != 0)
        return rc;
    if (c->scan) {
        pcam_ccb scan;
        memset(&scan, 0, sizeof scan);
        scan.func = PCAM_FN_SCAN_BUS;
        uint32_t st = ctl_sync(c, &scan, 120000);
        if (st != PCAM_REQ_CMP) {
            ctl_close(c);
            return ctl_err(c, CTL_EOTHER, "bus scan failed: %s",
                           ctl_status_sentence(st));
        }
        ctl_scan_review(c, NULL);
    }
    if (ctl_is_sim(c))
        simspec_arm_after_scan(&c->spec, c->rig.sim); /* a one-shot run's command meets them */
    if (!c->vcd_with_scan && (rc = start_trace(c)) != 0)
        return rc;
    return 0;
}

void ctl_close(ctl *c)
{
    if (c->open && c->be->close != NULL)
        c->be->close(c);
}
