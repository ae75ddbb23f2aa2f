/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench --soak: verified random reads and writes, a million or more, on
 * the simulated bus (soak_path.c: phase-level, command-level adapter, or
 * hal/esp on the ESP model), with faults drawn at random from what hal/sim
 * can inject, one at a time, each for a window of commands.
 *
 * Checked all along: the core's invariants after every step; every CCB
 * completes exactly once (doubled otherwise); data: a READ that completes
 * must equal the reference copy of its disk, a WRITE that completes must be
 * on the medium, a WRITE that fails may leave each byte old or new and
 * nothing else (corrupt otherwise); no command outlives its bound (stuck:
 * 2 timeouts + the recovery ladder + settle + margin, in simulated time);
 * after the drain and pcam_bus_shutdown() none is left (lost). At the end
 * the medium equals the reference. A command outstanding on a faulted
 * target while its fault was active counts for that fault: recovered when
 * it completed REQ_CMP, else failed to the caller, by status.
 * A seed reproduces a run exactly. Exit status 0 only when lost, doubled,
 * corrupt, stuck and invariant violations are all 0.
 */
#define _POSIX_C_SOURCE 200809L
#include "soak.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NDISK 3
#define DBLOCKS 4096u
#define SLOT 16u                    /* blocks per slot; commands stay in one */
#define NSLOT (DBLOCKS / SLOT)
#define QD 8u                       /* outstanding commands per disk */
#define NJOB (NDISK * QD)
#define TIMEOUT_MS 4000u
#define NSTATUS 64u

enum {
    F_BUS_RESET_OURS, F_BUS_RESET_THEIRS, F_HANG, F_DEAF_ABORT, F_DEAF_ALL, F_WEDGED_CHIP,
    F_QUEUE_FULL, F_BUSY, F_UA, F_NOT_READY, F_MEDIUM, F_PARITY_DATA, F_PARITY_MSG,
    F_UNEXP_FREE, F_ILLEGAL_PHASE, F_LIE_TAG, F_LIE_LUN, F_PHANTOM_RESEL, F_NEGO_CHANGE,
    F_TAG_REJECT, F_USER_ABORT, F_USER_DEV_RESET, F_COUNT
};
static const char *const fault_names[F_COUNT] = {
    "bus reset (ours)", "bus reset (target side)", "hung target", "deaf to ABORT",
    "deaf to ABORT and resets", "wedged chip", "QUEUE FULL (depth)", "BUSY",
    "UNIT ATTENTION", "NOT READY -> ready", "medium error", "parity (data)",
    "parity (messages)", "unexpected bus free", "illegal phase", "lying resel (tag)",
    "lying resel (LUN)", "phantom reselection", "negotiation change", "tag rejection",
    "user abort", "user device reset",
};

typedef struct fstat {
    uint64_t injected, affected, recovered, failed;
    uint64_t by_status[NSTATUS];
} fstat;

typedef struct job {
    pcam_ccb ccb;
    uint8_t sense[32];
    struct soak *s;
    bool busy;
    bool write;
    bool stuck;
    int fault;          /* fault kind active while it was outstanding, -1 none */
    uint8_t disk;
    uint16_t slot;
    uint32_t lba;
    uint16_t blocks;
    unsigned done;
    uint64_t submit_ns;
    uint8_t buf[SLOT * 512u];
} job;

typedef struct mjob {
    pcam_ccb ccb;
    struct soak *s;
    bool busy;
    unsigned done;
} mjob;

typedef struct soak {
    soak_path p;
    uint64_t rng;
    uint8_t *store[NDISK];   /* the media (hal/sim reads and writes them) */
    uint8_t *ref[NDISK];     /* what they must hold */
    bool slot_busy[NDISK][NSLOT];
    unsigned outstanding[NDISK];
    job jobs[NJOB];
    mjob mgmt;
    uint64_t submitted, completed, target_n;
    uint64_t lost, doubled, corrupt, stuck, violations;
    uint64_t by_status[NSTATUS];
    uint64_t reads, writes;
    fstat fs[F_COUNT];
    int fault;               /* active fault, -1 none */
    int fault_target;        /* its target, -1 = the whole bus */
    uint64_t fault_left;     /* completions until it is reverted */
    uint64_t fault_until_ns; /* ... or this simulated time */
    uint64_t gap;            /* completion count at which the next fault comes */
    uint64_t medium_lba;
    const char *first_violation;
    uint64_t stuck_ns;
    bool quiet;
    int watch_disk;          /* PCAM_SOAK_WATCH=disk:lba: every command over that block */
    uint32_t watch_lba;
} soak;

static uint64_t rnd(soak *s)
{
    /* splitmix64: one seed reproduces the whole run. */
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static unsigned rn(soak *s, unsigned n)
{
    return (unsigned)(rnd(s) % n);
}

static bool hits(const soak *s, uint8_t t)
{
    return s->fault >= 0 && (s->fault_target < 0 || s->fault_target == t);
}

static void report_corrupt(soak *s, const job *j, const char *what, uint32_t st)
{
    s->corrupt++;
    if (!s->quiet)
        fprintf(stderr, "soak: CORRUPT (%s): %s of %u block(s) at %u:0 lba %u, status %s, resid %u, "
                "recovery 0x%x, at %.6f s, fault %s\n", what, j->write ? "write" : "read", j->blocks,
                j->disk, (unsigned)j->lba, pcam_status_name(st), (unsigned)j->ccb.u.io.resid,
                (unsigned)j->ccb.u.io.recovery, (double)pcam_sim_now(s->p.sim) / 1e9,
                j->fault >= 0 ? fault_names[j->fault] : "none");
}

static void job_done(pcam_ccb *ccb)
{
    job *j = (job *)ccb;
    soak *s = j->s;
    uint32_t st = ccb->status & PCAM_STATUS_MASK;
    size_t off = (size_t)j->lba * 512u, len = (size_t)j->blocks * 512u;
    if (++j->done > 1) {
        s->doubled++;
        return;
    }
    s->completed++;
    s->by_status[st]++;
    if (s->watch_disk >= 0 && j->disk == s->watch_disk && s->watch_lba >= j->lba &&
        s->watch_lba < j->lba + j->blocks)
        fprintf(stderr, "soak watch: %.6f s %s lba %u+%u status %s recovery 0x%x fault %s submitted %.6f\n",
                (double)pcam_sim_now(s->p.sim) / 1e9, j->write ? "WRITE" : "read", (unsigned)j->lba,
                j->blocks, pcam_status_name(st), (unsigned)ccb->u.io.recovery,
                j->fault >= 0 ? fault_names[j->fault] : "none", (double)j->submit_ns / 1e9);
    if (j->write) {
        uint8_t *m = s->store[j->disk] + off, *r = s->ref[j->disk] + off;
        if (st == PCAM_REQ_CMP) {
            if (memcmp(m, j->buf, len) != 0)
                report_corrupt(s, j, "completed write not on the medium", st);
        } else {
            /* A failed write leaves each byte old or new, nothing else. */
            for (size_t i = 0; i < len; i++)
                if (m[i] != j->buf[i] && m[i] != r[i]) {
                    report_corrupt(s, j, "failed write left bytes neither old nor new", st);
                    break;
                }
        }
        memcpy(r, m, len);
    } else if (st == PCAM_REQ_CMP) {
        if (memcmp(j->buf, s->ref[j->disk] + off, len) != 0 || ccb->u.io.resid != 0)
            report_corrupt(s, j, "completed read differs from the reference", st);
    }
    if (j->fault >= 0) {
        fstat *f = &s->fs[j->fault];
        f->affected++;
        if (st == PCAM_REQ_CMP)
            f->recovered++;
        else {
            f->failed++;
            f->by_status[st]++;
        }
    }
    if (s->fault >= 0 && hits(s, j->disk) && s->fault_left > 0)
        s->fault_left--;
    s->slot_busy[j->disk][j->slot] = false;
    s->outstanding[j->disk]--;
    j->busy = false;
}

static void mgmt_done(pcam_ccb *ccb)
{
    mjob *m = (mjob *)ccb;
    if (++m->done > 1)
        m->s->doubled++;
    m->busy = false;
}

static void submit_one(soak *s, uint8_t d)
{
    job *j = NULL;
    for (unsigned i = 0; i < NJOB; i++)
        if (!s->jobs[i].busy) {
            j = &s->jobs[i];
            break;
        }
    if (j == NULL)
        return;
    unsigned slot = rn(s, NSLOT);
    for (unsigned k = 0; k < NSLOT && s->slot_busy[d][slot]; k++)
        slot = (slot + 1) % NSLOT;
    if (s->slot_busy[d][slot])
        return;
    memset(&j->ccb, 0, sizeof j->ccb);
    j->s = s;
    j->busy = true;
    j->done = 0;
    j->stuck = false;
    j->disk = d;
    j->slot = (uint16_t)slot;
    j->blocks = (uint16_t)(1 + rn(s, SLOT));
    j->lba = slot * SLOT + rn(s, SLOT - j->blocks + 1);
    j->write = rn(s, 100) < 40;
    j->fault = hits(s, d) ? s->fault : -1;
    if (j->write) {
        for (unsigned i = 0; i < j->blocks * 512u; i += 8) {
            uint64_t v = rnd(s);
            memcpy(j->buf + i, &v, 8);
        }
        s->writes++;
    } else {
        memset(j->buf, 0xEE, j->blocks * 512u);
        s->reads++;
    }
    pcam_ccb *c = &j->ccb;
    c->func = PCAM_FN_SCSI_IO;
    c->target = d;
    c->lun = 0;
    c->done = job_done;
    c->timeout_ms = TIMEOUT_MS;
    unsigned tag = rn(s, 16);
    if (tag != 0) {
        c->flags = PCAM_CCB_TAGGED;
        c->u.io.tag_action = tag == 1 ? PCAM_TAG_ORDERED : tag == 2 ? PCAM_TAG_HEAD_OF_QUEUE
                                                                     : PCAM_TAG_SIMPLE;
    }
    c->u.io.cdb[0] = j->write ? 0x2A : 0x28; /* WRITE(10) / READ(10), SBC-3 */
    c->u.io.cdb[2] = (uint8_t)(j->lba >> 24);
    c->u.io.cdb[3] = (uint8_t)(j->lba >> 16);
    c->u.io.cdb[4] = (uint8_t)(j->lba >> 8);
    c->u.io.cdb[5] = (uint8_t)j->lba;
    c->u.io.cdb[8] = (uint8_t)j->blocks;
    c->u.io.cdb_len = 10;
    c->u.io.dir = j->write ? PCAM_DIR_OUT : PCAM_DIR_IN;
    c->u.io.data = j->buf;
    c->u.io.data_len = j->blocks * 512u;
    c->u.io.sense = j->sense;
    c->u.io.sense_len = sizeof j->sense;
    c->u.io.retries = 3;
    j->submit_ns = pcam_sim_now(s->p.sim);
    s->slot_busy[d][slot] = true;
    s->outstanding[d]++;
    s->submitted++;
    pcam_action(&s->p.bus, c);
}

static void mgmt(soak *s, uint8_t func, uint8_t t, uint32_t flags, pcam_ccb *victim)
{
    mjob *m = &s->mgmt;
    if (m->busy)
        return;
    memset(&m->ccb, 0, sizeof m->ccb);
    m->s = s;
    m->busy = true;
    m->done = 0;
    m->ccb.func = func;
    m->ccb.target = t;
    m->ccb.lun = 0;
    m->ccb.flags = flags;
    m->ccb.done = mgmt_done;
    if (func == PCAM_FN_ABORT)
        m->ccb.u.abort.victim = victim;
    pcam_action(&s->p.bus, &m->ccb);
}

/* Mark what is outstanding on the faulted target(s) as under the fault. */
static void mark_affected(soak *s)
{
    for (unsigned i = 0; i < NJOB; i++)
        if (s->jobs[i].busy && s->jobs[i].fault < 0 && hits(s, s->jobs[i].disk))
            s->jobs[i].fault = s->fault;
}

static void inject(soak *s)
{
    int f = (int)rn(s, F_COUNT);
    uint8_t t = (uint8_t)rn(s, NDISK);
    pcam_sim_target_config *tc = pcam_sim_target_cfg(s->p.sim, t);
    pcam_simlu *lu = pcam_sim_lu(s->p.sim, t, 0);
    uint64_t now = pcam_sim_now(s->p.sim);
    s->fault = f;
    s->fault_target = t;
    s->fault_left = 16 + rn(s, 48);
    s->fault_until_ns = now + 20000000000ull;
    s->fs[f].injected++;
    switch (f) {
    case F_BUS_RESET_OURS:
        s->fault_target = -1;
        mgmt(s, PCAM_FN_RESET_BUS, 0, 0, NULL);
        break;
    case F_BUS_RESET_THEIRS:
        s->fault_target = -1;
        pcam_sim_bus_reset(s->p.sim);
        break;
    case F_HANG: tc->hang_next = 1; break;
    case F_DEAF_ABORT: tc->hang_next = 1; tc->refuse_abort = true; break;
    case F_DEAF_ALL: tc->hang_next = 1; tc->refuse_abort = tc->refuse_reset = true; break;
    case F_WEDGED_CHIP:
        tc->hang_next = 1;
        tc->refuse_abort = tc->refuse_reset = true;
        pcam_sim_chip_stall_bus_reset(s->p.sim, 1);
        s->fault_target = -1;
        break;
    case F_QUEUE_FULL: tc->task_set_limit = (uint16_t)(1 + rn(s, 6)); break;
    case F_BUSY: tc->busy_next = 1 + rn(s, 3); break;
    case F_UA:
        lu->ua_pending = true;
        lu->ua_asc = rn(s, 2) ? 0x29 : 0x2A;
        lu->ua_ascq = lu->ua_asc == 0x2A ? 0x01 : 0x00;
        break;
    case F_NOT_READY: lu->not_ready_until_ns = now + 100000000ull + rnd(s) % 700000000ull; break;
    case F_MEDIUM:
        if (lu->medium_errors < 8) {
            s->medium_lba = rnd(s) % DBLOCKS;
            lu->medium_error_lba[lu->medium_errors++] = s->medium_lba;
        }
        break;
    case F_PARITY_DATA: tc->parity_data_ppm = 100 + rn(s, 400); break;
    case F_PARITY_MSG: tc->parity_msg_ppm = 5000 + rn(s, 20000); break;
    case F_UNEXP_FREE: tc->unexpected_free_next = 1; break;
    case F_ILLEGAL_PHASE: tc->illegal_phase_next = 1; tc->illegal_phase = rn(s, 2) ? 4 : 5; break;
    case F_LIE_TAG: tc->lie_tag_next = 1; break;
    case F_LIE_LUN: tc->lie_lun_next = 1; break;
    case F_PHANTOM_RESEL: tc->phantom_resel_next = 1; break;
    case F_NEGO_CHANGE: {
        /* The user limits change: the core renegotiates on the next command. */
        static const uint8_t periods[4] = {0x0C, 0x19, 0x32, 0};
        pcam_ccb c;
        memset(&c, 0, sizeof c);
        c.func = PCAM_FN_SET_TRAN;
        c.target = t;
        c.done = mgmt_done; /* completes at once */
        c.u.tran.settings.period = periods[rn(s, 4)];
        c.u.tran.settings.offset = c.u.tran.settings.period != 0 ? (uint8_t)(1 + rn(s, 15)) : 0;
        c.u.tran.settings.disconnect = true;
        c.u.tran.settings.tagged = true;
        mjob tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.s = s;
        tmp.ccb = c;
        pcam_action(&s->p.bus, &tmp.ccb);
        if (tmp.done != 1)
            s->lost++;
        break;
    }
    case F_TAG_REJECT: tc->reject_tags = true; break;
    case F_USER_ABORT: {
        unsigned start = rn(s, NJOB);
        for (unsigned k = 0; k < NJOB; k++) {
            job *j = &s->jobs[(start + k) % NJOB];
            if (j->busy && j->disk == t) {
                mgmt(s, PCAM_FN_ABORT, t, 0, &j->ccb);
                break;
            }
        }
        break;
    }
    case F_USER_DEV_RESET:
        mgmt(s, PCAM_FN_RESET_DEV, t, rn(s, 2) ? PCAM_CCB_LUN_RESET : 0, NULL);
        break;
    default:
        break;
    }
    mark_affected(s);
}

static void revert(soak *s)
{
    for (uint8_t t = 0; t < NDISK; t++) {
        pcam_sim_target_config *tc = pcam_sim_target_cfg(s->p.sim, t);
        pcam_simlu *lu = pcam_sim_lu(s->p.sim, t, 0);
        tc->refuse_abort = tc->refuse_reset = false;
        tc->task_set_limit = 0;
        tc->parity_data_ppm = tc->parity_msg_ppm = 0;
        tc->reject_tags = false;
        lu->medium_errors = 0;
    }
    s->fault = -1;
    s->fault_target = -1;
    s->gap = s->completed + rn(s, 64); /* the next fault after this many completions */
}

static void check_stuck(soak *s)
{
    uint64_t now = pcam_sim_now(s->p.sim);
    for (unsigned i = 0; i < NJOB; i++) {
        job *j = &s->jobs[i];
        if (j->busy && !j->stuck && now - j->submit_ns > s->stuck_ns) {
            j->stuck = true;
            s->stuck++;
            if (!s->quiet)
                fprintf(stderr, "soak: command to %u:0 (lba %u, %s) outstanding %.1f s\n", j->disk,
                        (unsigned)j->lba, j->write ? "write" : "read",
                        (double)(now - j->submit_ns) / 1e9);
        }
    }
}

static void step(soak *s)
{
    if (!soak_path_step(&s->p)) {
        /* Nothing pending anywhere while commands are outstanding: lost. */
        return;
    }
    const char *why = pcam_bus_check_invariants(&s->p.bus);
    if (why != NULL) {
        if (s->violations++ == 0)
            s->first_violation = why;
    }
}

static void print_table(const soak *s, double wall, uint64_t sim_ns)
{
    printf("\nsoak on the %s path: %llu commands (%llu reads, %llu writes), %.1f s simulated, "
           "%.1f s wall\n", soak_kind_name(s->p.kind), (unsigned long long)s->completed,
           (unsigned long long)s->reads, (unsigned long long)s->writes, (double)sim_ns / 1e9, wall);
    printf("%-26s %9s %9s %10s %9s  %s\n", "fault", "injected", "affected", "recovered", "failed",
           "failed to the caller, by status");
    for (unsigned f = 0; f < F_COUNT; f++) {
        const fstat *x = &s->fs[f];
        printf("%-26s %9llu %9llu %10llu %9llu ", fault_names[f], (unsigned long long)x->injected,
               (unsigned long long)x->affected, (unsigned long long)x->recovered,
               (unsigned long long)x->failed);
        for (unsigned st = 0; st < NSTATUS; st++)
            if (x->by_status[st] != 0)
                printf(" %s=%llu", pcam_status_name(st), (unsigned long long)x->by_status[st]);
        printf("\n");
    }
    printf("all commands by status:");
    for (unsigned st = 0; st < NSTATUS; st++)
        if (s->by_status[st] != 0)
            printf(" %s=%llu", pcam_status_name(st), (unsigned long long)s->by_status[st]);
    printf("\nlost %llu  doubled %llu  corrupt %llu  stuck %llu  invariant violations %llu%s%s\n",
           (unsigned long long)s->lost, (unsigned long long)s->doubled,
           (unsigned long long)s->corrupt, (unsigned long long)s->stuck,
           (unsigned long long)s->violations, s->first_violation ? " (first: " : "",
           s->first_violation ? s->first_violation : "");
    if (s->first_violation)
        printf(")\n");
}

static int run(soak_kind kind, uint64_t n, uint64_t seed, uint64_t progress, bool quiet)
{
    soak *s = calloc(1, sizeof *s);
    pcam_bus_config cfg;
    int rc = 1;
    if (s == NULL)
        return 2;
    s->rng = seed * 0x2545F4914F6CDD1Dull + (uint64_t)kind;
    s->quiet = quiet;
    s->watch_disk = -1;
    {
        const char *w = getenv("PCAM_SOAK_WATCH");
        unsigned wd, wl;
        if (w != NULL && sscanf(w, "%u:%u", &wd, &wl) == 2) {
            s->watch_disk = (int)wd;
            s->watch_lba = wl;
        }
    }
    s->fault = -1;
    s->fault_target = -1;
    s->target_n = n;
    pcam_bus_config_defaults(&cfg);
    cfg.default_timeout_ms = TIMEOUT_MS;
    cfg.luns_per_target = 1;
    /* Bound for "stuck": the core's own (2 timeouts from submission plus
     * the ladder of abort, device reset, bus and chip reset) and the settle
     * delay, with a generous margin for a reset landing on a requeue. */
    s->stuck_ns = (2ull * TIMEOUT_MS + 5ull * cfg.abort_timeout_ms + cfg.reset_settle_ms + 10000ull) *
                  1000000ull;
    if (!soak_path_init(&s->p, kind, seed, &cfg)) {
        fprintf(stderr, "soak: cannot bring up the %s path\n", soak_kind_name(kind));
        soak_path_fini(&s->p);
        free(s);
        return 2;
    }
    for (uint8_t d = 0; d < NDISK; d++) {
        pcam_sim_target_config tc;
        pcam_sim_target_config_defaults(&tc);
        tc.ua_power_on = true;
        if (pcam_sim_add_target(s->p.sim, d, &tc) != 0)
            goto out;
        s->store[d] = malloc((size_t)DBLOCKS * 512u);
        s->ref[d] = malloc((size_t)DBLOCKS * 512u);
        if (s->store[d] == NULL || s->ref[d] == NULL)
            goto out;
        for (size_t i = 0; i < (size_t)DBLOCKS * 512u; i++)
            s->store[d][i] = (uint8_t)(i * 31u + d * 7u + (i >> 9));
        memcpy(s->ref[d], s->store[d], (size_t)DBLOCKS * 512u);
        char serial[8] = {'S', 'O', 'A', 'K', (char)('0' + d), 0, 0, 0};
        pcam_simlu_init_disk(pcam_sim_lu(s->p.sim, d, 0), s->store[d], DBLOCKS, 512, "PCAMSIM",
                             "SOAKDISK", serial);
    }
    mgmt(s, PCAM_FN_SCAN_BUS, 0, 0, NULL);
    for (uint64_t k = 0; s->mgmt.busy && k < 10000000ull; k++)
        step(s);
    if (s->mgmt.busy) {
        fprintf(stderr, "soak: the scan did not finish\n");
        goto out;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t sim0 = pcam_sim_now(s->p.sim), next_progress = progress, steps = 0;
    const char *lg = getenv("PCAM_SOAK_LOG");
    uint64_t log_from_ns = lg != NULL ? (uint64_t)(strtod(lg, NULL) * 1e9) : 0;
    s->gap = 32;
    while (s->completed < n) {
        for (uint8_t d = 0; d < NDISK; d++)
            while (s->outstanding[d] < QD && s->submitted < n) {
                uint64_t before = s->submitted;
                submit_one(s, d);
                if (s->submitted == before)
                    break;
            }
        step(s);
        if (log_from_ns != 0 && pcam_sim_now(s->p.sim) >= log_from_ns) {
            pcam_sim_set_log(s->p.sim, stderr); /* PCAM_SOAK_LOG=seconds: the bus log from then on */
            log_from_ns = 0;
        }
        if ((++steps & 1023u) == 0)
            check_stuck(s);
        if (s->fault >= 0) {
            if (s->fault_left == 0 || pcam_sim_now(s->p.sim) > s->fault_until_ns)
                revert(s);
        } else if (s->completed >= s->gap && s->completed < n) {
            inject(s);
        }
        if (progress != 0 && s->completed >= next_progress) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double w = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
            fprintf(stderr, "soak %s: %llu/%llu commands, %.0f s simulated, %.0f commands/s, "
                    "lost %llu doubled %llu corrupt %llu stuck %llu violations %llu\n",
                    soak_kind_name(kind), (unsigned long long)s->completed, (unsigned long long)n,
                    (double)(pcam_sim_now(s->p.sim) - sim0) / 1e9, (double)s->completed / w,
                    (unsigned long long)s->lost, (unsigned long long)s->doubled,
                    (unsigned long long)s->corrupt, (unsigned long long)s->stuck,
                    (unsigned long long)s->violations);
            next_progress += progress;
        }
        if (steps > 2000000000ull)
            break;
    }
    if (s->fault >= 0)
        revert(s);
    /* Drain: what is outstanding must still complete, within the bound. */
    uint64_t drain_end = pcam_sim_now(s->p.sim) + s->stuck_ns;
    for (;;) {
        bool any = s->mgmt.busy;
        for (unsigned i = 0; i < NJOB; i++)
            any = any || s->jobs[i].busy;
        if (!any || pcam_sim_now(s->p.sim) > drain_end)
            break;
        step(s);
    }
    check_stuck(s);
    for (unsigned i = 0; i < NJOB; i++)
        if (s->jobs[i].busy && !s->jobs[i].stuck) {
            s->jobs[i].stuck = true;
            s->stuck++;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t sim_ns = pcam_sim_now(s->p.sim) - sim0;
    /* Shutdown completes whatever is left; what still is not is lost. */
    pcam_bus_shutdown(&s->p.bus);
    for (unsigned i = 0; i < NJOB; i++)
        if (s->jobs[i].busy)
            s->lost++;
    if (s->mgmt.busy)
        s->lost++;
    for (uint8_t d = 0; d < NDISK; d++)
        if (memcmp(s->store[d], s->ref[d], (size_t)DBLOCKS * 512u) != 0)
            s->corrupt++;
    print_table(s, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, sim_ns);
    rc = (s->lost | s->doubled | s->corrupt | s->stuck | s->violations) == 0 && s->completed >= n ? 0 : 1;
out:
    soak_path_fini(&s->p);
    for (uint8_t d = 0; d < NDISK; d++) {
        free(s->store[d]);
        free(s->ref[d]);
    }
    free(s);
    return rc;
}

int soak_main(int argc, char **argv, const char *prog)
{
    uint64_t n = 100000, seed = 1, progress = 0;
    bool quiet = false;
    int paths[3] = {SOAK_PHASE, -1, -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--soak") == 0)
            continue;
        if (strcmp(a, "--commands") == 0 && v) { n = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--seed") == 0 && v) { seed = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--progress") == 0 && v) { progress = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--quiet") == 0) quiet = true;
        else if (strcmp(a, "--path") == 0 && v) {
            i++;
            if (strcmp(v, "phase") == 0) paths[0] = SOAK_PHASE;
            else if (strcmp(v, "cmd") == 0) paths[0] = SOAK_CMD;
            else if (strcmp(v, "esp") == 0) paths[0] = SOAK_ESP;
            else if (strcmp(v, "all") == 0) { paths[0] = SOAK_PHASE; paths[1] = SOAK_CMD; paths[2] = SOAK_ESP; }
            else { fprintf(stderr, "%s: --path phase|cmd|esp|all\n", prog); return 2; }
        } else {
            fprintf(stderr, "usage: %s --soak [--path phase|cmd|esp|all] [--commands N] [--seed S]\n"
                            "                [--progress N] [--quiet]\n", prog);
            return 2;
        }
    }
    int worst = 0;
    for (unsigned k = 0; k < 3; k++) {
        if (paths[k] < 0)
            continue;
        int rc = run((soak_kind)paths[k], n, seed, progress, quiet);
        if (rc > worst)
            worst = rc;
    }
    return worst;
}
