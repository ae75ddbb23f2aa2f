/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench --qemu: random READ(10)s on a disk image behind one of QEMU's
 * SCSI controllers, through the core and the chip's back-end over the
 * qtest socket. For each transfer size (4 KiB, 64 KiB) and each queue
 * depth the chip's entry names, it prints commands per second (host time),
 * host interrupts (pcam_bus_intr calls), register reads and writes, qtest
 * round trips and IRQ-line events per command, plus the depth-1 command
 * overhead estimate 2 t(4K) - t(8K). --record writes every completed read
 * with a digest of its data, so a test can check it against the image.
 *
 * What differs per chip is one qb_chip entry (the bring-up entry of
 * osshim/posix's pcam_qemu_chip, its depths, whether it is scanned for
 * tags, its register counters, its SCRIPTS trace event): a third chip
 * costs an entry, not a copy of this file. It asserts nothing about speed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcambench.h"

#if !defined(PCAMBENCH_HAVE_QEMU) && !defined(PCAMBENCH_HAVE_QEMU_SYM) && !defined(PCAMBENCH_HAVE_QEMU_MPT) && \
    !defined(PCAMBENCH_HAVE_QEMU_VIRTIO)
int pcambench_qemu_main(int argc, char **argv, const char *name)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "%s: --qemu is not in this build (it needs osshim/posix and hal/esp, hal/sym, hal/mpt or hal/virtio)\n", name);
    return 2;
}
#else
#include "pcam_qemu_chip.h"
#ifdef PCAMBENCH_HAVE_QEMU
#include "pcam_qemu_esp.h"
#endif
#ifdef PCAMBENCH_HAVE_QEMU_SYM
#include "pcam_qemu_sym.h"
#endif
#ifdef PCAMBENCH_HAVE_QEMU_MPT
#include "pcam_qemu_mpt.h"
#endif
#ifdef PCAMBENCH_HAVE_QEMU_VIRTIO
#include "pcam_qemu_virtio.h"
#endif

#define MAXD 16

/* A back-end's own counters, as far as the chips share them. */
typedef struct qb_regs {
    uint64_t reads, writes;
    uint64_t dma_runs; /* DMA runs started; UINT64_MAX: the back-end does not count them */
} qb_regs;

/* One chip: everything this file needs to know about it. */
typedef struct qb_chip {
    const char *name;                  /* --chip NAME */
    const char *backend;               /* JSON "backend" */
    const char *hal;                   /* the back-end, as the header line names it */
    const pcam_qemu_chip *chip;        /* osshim/posix's bring-up entry */
    uint32_t depths[3];                /* queue depths measured (0: unused) */
    bool tagged;                       /* scan first (tags on) and send SIMPLE tags */
    const char *trace_event;           /* QEMU's per-SCRIPTS-instruction trace event, or NULL */
    void (*regs)(void *sc, qb_regs *r);
} qb_chip;

#ifdef PCAMBENCH_HAVE_QEMU
static void esp_regs(void *sc, qb_regs *r)
{
    pcam_esp_stats s;
    pcam_esp_get_stats(sc, &s);
    r->reads = s.reg_reads;
    r->writes = s.reg_writes;
    r->dma_runs = s.dma_transfers;
}
#endif
#ifdef PCAMBENCH_HAVE_QEMU_SYM
static void sym_regs(void *sc, qb_regs *r)
{
    pcam_sym_stats s;
    pcam_sym_get_stats(sc, &s);
    r->reads = s.reg_reads;
    r->writes = s.reg_writes;
    r->dma_runs = UINT64_MAX;
}
#endif
#ifdef PCAMBENCH_HAVE_QEMU_MPT
static void mpt_regs(void *sc, qb_regs *r)
{
    pcam_mpt_stats s;
    pcam_mpt_get_stats(sc, &s);
    r->reads = s.reg_reads;
    r->writes = s.reg_writes;
    r->dma_runs = UINT64_MAX;
}
#endif
#ifdef PCAMBENCH_HAVE_QEMU_VIRTIO
static void virtio_regs(void *sc, qb_regs *r)
{
    pcam_virtio_stats s;
    pcam_virtio_get_stats(sc, &s);
    r->reads = s.reg_reads;
    r->writes = s.reg_writes;
    r->dma_runs = UINT64_MAX;
}
#endif

static const qb_chip chips[] = {
#ifdef PCAMBENCH_HAVE_QEMU
    /* QEMU's AM53C974 model runs one command at a time (no disconnect), so
     * deeper queues would only wait in the core. */
    {"am53c974", "qemu-am53c974", "hal/esp", &pcam_qemu_chip_am53c974, {1, 0, 0}, false, NULL, esp_regs},
#endif
#ifdef PCAMBENCH_HAVE_QEMU_SYM
    {"lsi53c895a", "qemu-lsi53c895a", "hal/sym", &pcam_qemu_chip_lsi53c895a, {1, 4, 16}, true,
     "lsi_execute_script", sym_regs},
#endif
#ifdef PCAMBENCH_HAVE_QEMU_MPT
    /* The IOC runs whole commands: no SCRIPTS to count. */
    {"mptsas1068", "qemu-mptsas1068", "hal/mpt", &pcam_qemu_chip_mptsas1068, {1, 4, 16}, true, NULL, mpt_regs},
#endif
#ifdef PCAMBENCH_HAVE_QEMU_VIRTIO
    {"virtio-scsi", "qemu-virtio-scsi", "hal/virtio", &pcam_qemu_chip_virtio_scsi, {1, 4, 16}, true, NULL,
     virtio_regs},
#endif
};
#define NCHIPS (sizeof chips / sizeof chips[0])

typedef struct qopts {
    const qb_chip *chip;
    double seconds;      /* per row */
    uint64_t commands;   /* per row; 0 = by time */
    uint32_t disk_mb;
    uint64_t seed;
    const char *image;   /* NULL: a scratch image */
    const char *record;  /* --record FILE */
    bool json, bounce, scripts;
} qopts;

typedef struct qres {
    uint32_t size, depth;
    uint64_t cmds, errors, bytes;
    double secs;
    qb_regs regs;
    pcam_qemu_stats qs;
    uint64_t intrs;
    double insns; /* SCRIPTS instructions per command, -1 = not counted */
} qres;

typedef struct qctx {
    const qopts *o;
    pcam_qemu_chipbus b;
    pcam_ccb ccb[MAXD];
    uint8_t sense[MAXD][32];
    uint8_t *buf[MAXD];
    uint64_t gpa[MAXD];
    uint64_t rng, blocks, done, errors, bytes, issued, want;
    uint32_t size, depth;
    FILE *record;
} qctx;

static uint64_t rnd(uint64_t *s)
{
    /* xorshift64*: any cheap generator will do for LBAs. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* FNV-1a, 64 bits: what --record says a read returned. */
static uint64_t fnv64(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void issue(qctx *x, unsigned i);

static void on_done(pcam_ccb *c)
{
    qctx *x = (qctx *)c->user;
    unsigned i = (unsigned)(c - x->ccb);
    x->done++;
    if ((c->status & PCAM_STATUS_MASK) != PCAM_REQ_CMP) {
        x->errors++;
    } else {
        uint32_t got = c->u.io.data_len - c->u.io.resid;
        x->bytes += got;
        if (x->record != NULL) {
            const uint8_t *cdb = c->u.io.cdb;
            uint32_t lba = (uint32_t)cdb[2] << 24 | (uint32_t)cdb[3] << 16 | (uint32_t)cdb[4] << 8 | cdb[5];
            fprintf(x->record, "%u %u %u %u %016" PRIx64 "\n", x->size, x->depth, lba, got,
                    fnv64(x->buf[i], got));
        }
    }
    if (x->issued < x->want)
        issue(x, i);
}

static void issue(qctx *x, unsigned i)
{
    pcam_ccb *c = &x->ccb[i];
    uint32_t nblk = x->size / 512u;
    uint64_t lba = (rnd(&x->rng) % (x->blocks / nblk)) * nblk;
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    if (x->o->chip->tagged) {
        c->flags = PCAM_CCB_TAGGED;
        c->u.io.tag_action = PCAM_TAG_SIMPLE;
    }
    c->timeout_ms = 10000;
    c->u.io.cdb[0] = 0x28; /* READ(10), SBC-3 */
    c->u.io.cdb[2] = (uint8_t)(lba >> 24);
    c->u.io.cdb[3] = (uint8_t)(lba >> 16);
    c->u.io.cdb[4] = (uint8_t)(lba >> 8);
    c->u.io.cdb[5] = (uint8_t)lba;
    c->u.io.cdb[7] = (uint8_t)(nblk >> 8);
    c->u.io.cdb[8] = (uint8_t)nblk;
    c->u.io.cdb_len = 10;
    c->u.io.dir = PCAM_DIR_IN;
    c->u.io.data = x->buf[i];
    c->u.io.data_len = x->size;
    c->u.io.sense = x->sense[i];
    c->u.io.sense_len = sizeof x->sense[i];
    c->u.io.retries = 2;
    c->user = x;
    c->done = on_done;
    x->issued++;
    pcam_action(&x->b.bus, c);
}

static void free_bufs(qctx *x, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++) {
        if (x->buf[i] == NULL)
            continue;
        if (x->o->bounce)
            free(x->buf[i]);
        else
            pcam_qemu_guest_free(x->b.q, x->gpa[i]);
        x->buf[i] = NULL;
    }
}

/* One row: `depth` commands of `size` bytes kept in flight for `seconds`
 * (or until `commands` have been issued), then drained. */
static int run(qctx *x, uint32_t size, uint32_t depth, double seconds, uint64_t commands, qres *r)
{
    qb_regs g0, g1;
    pcam_qemu_stats q0, q1;
    uint64_t t0, t1, i0;
    memset(r, 0, sizeof *r);
    r->size = size;
    r->depth = depth;
    r->insns = -1;
    for (unsigned i = 0; i < depth; i++) {
        /* --bounce: buffers outside guest RAM, so every transfer is copied. */
        x->buf[i] = x->o->bounce ? malloc(size) : pcam_qemu_guest_alloc(x->b.q, size, &x->gpa[i]);
        if (x->buf[i] == NULL) {
            free_bufs(x, depth);
            return -ENOMEM;
        }
    }
    x->size = size;
    x->depth = depth;
    x->done = x->errors = x->bytes = x->issued = 0;
    x->want = commands != 0 ? commands : UINT64_MAX;
    x->o->chip->regs(x->b.sc, &g0);
    pcam_qemu_get_stats(x->b.q, &q0);
    i0 = x->b.intrs;
    t0 = pcam_posix_now_ns();
    for (unsigned i = 0; i < depth && x->issued < x->want; i++)
        issue(x, i);
    for (;;) {
        t1 = pcam_posix_now_ns();
        if (commands == 0 && x->want == UINT64_MAX && (double)(t1 - t0) >= seconds * 1e9)
            x->want = x->issued; /* stop issuing; drain */
        if (x->done >= x->issued && x->issued >= x->want)
            break;
        if (pcam_qemu_chipbus_step(&x->b, 50) < 0) {
            fprintf(stderr, "pcambench: QEMU failed: %s\n", pcam_qemu_error(x->b.q));
            free_bufs(x, depth);
            return -EIO;
        }
        if ((double)(t1 - t0) > (seconds + 30.0) * 1e9) {
            fprintf(stderr, "pcambench: commands did not complete\n");
            free_bufs(x, depth); /* safe: the bus is closed right after, aborting them */
            return -ETIMEDOUT;
        }
    }
    t1 = pcam_posix_now_ns();
    r->secs = (double)(t1 - t0) / 1e9;
    r->cmds = x->done;
    r->errors = x->errors;
    r->bytes = x->bytes;
    x->o->chip->regs(x->b.sc, &g1);
    pcam_qemu_get_stats(x->b.q, &q1);
    r->intrs = x->b.intrs - i0;
    r->regs.reads = g1.reads - g0.reads;
    r->regs.writes = g1.writes - g0.writes;
    r->regs.dma_runs = g1.dma_runs == UINT64_MAX ? UINT64_MAX : g1.dma_runs - g0.dma_runs;
    r->qs.round_trips = q1.round_trips - q0.round_trips;
    r->qs.round_trip_ns = q1.round_trip_ns - q0.round_trip_ns;
    r->qs.irq_events = q1.irq_events - q0.irq_events;
    free_bufs(x, depth);
    return 0;
}

static double per(uint64_t v, uint64_t n)
{
    return n != 0 ? (double)v / (double)n : 0.0;
}

static int open_bus(qctx *x, const pcam_qemu_drive *d, const char *trace)
{
    pcam_qemu_chipbus_opts so;
    char err[2048];
    const char *extra[] = {"-trace", x->o->chip->trace_event, "-D", trace, NULL};
    memset(&so, 0, sizeof so);
    so.drives = d;
    so.ndrives = 1;
    so.log_file = stderr;
    so.log_level = PCAM_LOG_ERROR;
    so.extra_args = trace != NULL ? extra : NULL;
    if (pcam_qemu_chipbus_open(&x->b, x->o->chip->chip, &so, err, sizeof err) != 0) {
        fprintf(stderr, "pcambench: QEMU: %s\n", err);
        return -1;
    }
    pcam_ccb t;
    uint8_t sense[32];
    if (x->o->chip->tagged) {
        /* A scan turns tags on. */
        memset(&t, 0, sizeof t);
        t.func = PCAM_FN_SCAN_LUN;
        (void)pcam_qemu_chipbus_sync(&x->b, &t, 30000);
    }
    /* TEST UNIT READY takes the power-on UNIT ATTENTION out of the figures. */
    memset(&t, 0, sizeof t);
    t.func = PCAM_FN_SCSI_IO;
    t.timeout_ms = 5000;
    t.u.io.cdb_len = 6;
    t.u.io.dir = PCAM_DIR_NONE;
    t.u.io.sense = sense;
    t.u.io.sense_len = sizeof sense;
    t.u.io.retries = 2;
    (void)pcam_qemu_chipbus_sync(&x->b, &t, 10000);
    return 0;
}

static uint64_t count_lines(const char *path, const char *word)
{
    FILE *f = fopen(path, "r");
    char line[512];
    uint64_t n = 0;
    if (f == NULL)
        return 0;
    size_t len = strlen(word);
    while (fgets(line, sizeof line, f) != NULL) {
        const char *at = strstr(line, word);
        if (at != NULL && at[len] == ' ') /* the event itself, not one it prefixes */
            n++;
    }
    fclose(f);
    return n;
}

static void print(const qopts *o, const qres *r, size_t n, const qres *r8k)
{
    double overhead = 2e6 * r[0].secs / (double)r[0].cmds - 1e6 * r8k->secs / (double)r8k->cmds;
    if (o->json) {
        printf("{\"backend\":\"%s\",\"chip\":\"%s\",\"tagged\":%s,\"bounce\":%s,\"results\":[", o->chip->backend,
               o->chip->name, o->chip->tagged ? "true" : "false", o->bounce ? "true" : "false");
        for (size_t i = 0; i < n; i++) {
            printf("%s{\"size\":%u,\"depth\":%u,\"commands\":%" PRIu64 ",\"errors\":%" PRIu64
                   ",\"bytes\":%" PRIu64 ",\"seconds\":%.3f,\"commands_per_s\":%.1f,\"interrupts_per_cmd\":%.3f,"
                   "\"reg_reads_per_cmd\":%.2f,\"reg_writes_per_cmd\":%.2f,\"round_trips_per_cmd\":%.2f,"
                   "\"irq_lines_per_cmd\":%.2f,\"us_per_round_trip\":%.1f",
                   i ? "," : "", r[i].size, r[i].depth, r[i].cmds, r[i].errors, r[i].bytes, r[i].secs,
                   r[i].secs > 0 ? (double)r[i].cmds / r[i].secs : 0.0, per(r[i].intrs, r[i].cmds),
                   per(r[i].regs.reads, r[i].cmds), per(r[i].regs.writes, r[i].cmds),
                   per(r[i].qs.round_trips, r[i].cmds), per(r[i].qs.irq_events, r[i].cmds),
                   per(r[i].qs.round_trip_ns / 1000, r[i].qs.round_trips));
            if (r[i].regs.dma_runs != UINT64_MAX)
                printf(",\"dma_runs_per_cmd\":%.2f", per(r[i].regs.dma_runs, r[i].cmds));
            if (r[i].insns >= 0)
                printf(",\"scripts_insns_per_cmd\":%.1f", r[i].insns);
            printf("}");
        }
        printf("],\"overhead_us\":%.1f}\n", overhead);
        return;
    }
    printf("QEMU %s over qtest, %s: random READ(10), %s%s\n", o->chip->chip->name, o->chip->hal,
           o->chip->tagged ? "tagged" : "untagged", o->bounce ? ", bounce-buffered DMA" : ", buffers in guest RAM");
    printf("%-5s %5s %8s %6s %9s %8s %8s %8s %8s %8s %8s %8s %8s\n", "size", "depth", "commands", "errors",
           "cmds/s", "intr/cmd", "rd/cmd", "wr/cmd", "rt/cmd", "irq/cmd", "us/rt", "dma/cmd", "insn/cmd");
    for (size_t i = 0; i < n; i++) {
        printf("%-5s %5u %8" PRIu64 " %6" PRIu64 " %9.1f %8.3f %8.2f %8.2f %8.2f %8.2f %8.1f ",
               r[i].size == 4096 ? "4K" : "64K", r[i].depth, r[i].cmds, r[i].errors,
               r[i].secs > 0 ? (double)r[i].cmds / r[i].secs : 0.0, per(r[i].intrs, r[i].cmds),
               per(r[i].regs.reads, r[i].cmds), per(r[i].regs.writes, r[i].cmds),
               per(r[i].qs.round_trips, r[i].cmds), per(r[i].qs.irq_events, r[i].cmds),
               per(r[i].qs.round_trip_ns / 1000, r[i].qs.round_trips));
        if (r[i].regs.dma_runs != UINT64_MAX)
            printf("%8.2f ", per(r[i].regs.dma_runs, r[i].cmds));
        else
            printf("%8s ", "-");
        if (r[i].insns >= 0)
            printf("%8.1f\n", r[i].insns);
        else
            printf("%8s\n", "-");
    }
    printf("command overhead at depth 1, 2 t(4K) - t(8K): %.1f us (8K: %.1f cmds/s)\n", overhead,
           r8k->secs > 0 ? (double)r8k->cmds / r8k->secs : 0.0);
    printf("(intr: pcam_bus_intr calls; rd/wr: %s register accesses; rt: qtest round trips incl.\n"
           " IRQ-line drains and bulk copies; irq: IRQ-line events; dma: DMA runs; insn: QEMU %s\n"
           " events per command in a separate traced run, --scripts)\n",
           o->chip->hal, o->chip->trace_event != NULL ? o->chip->trace_event : "SCRIPTS trace");
}

static int qusage(const char *name)
{
    fprintf(stderr,
            "usage: %s --qemu [--chip NAME] [--seconds S] [--commands N] [--disk-mb M] [--seed X]\n"
            "                 [--image FILE] [--bounce] [--scripts] [--record FILE] [--json]\n"
            "       %s --qemu-sym ...   (the same as --qemu --chip lsi53c895a)\n"
            "  4 KiB and 64 KiB random READ(10)s, then 8 KiB at depth 1, on a QEMU\n"
            "  controller: the chip's depths, tagged when its back-end queues. Chips:",
            name, name);
    for (size_t i = 0; i < NCHIPS; i++) {
        fprintf(stderr, "\n    %s%s: %s, depths", chips[i].name, i == 0 ? " (default)" : "", chips[i].hal);
        for (unsigned k = 0; k < 3 && chips[i].depths[k] != 0; k++)
            fprintf(stderr, " %u", chips[i].depths[k]);
        fprintf(stderr, ", %s", chips[i].tagged ? "tagged" : "untagged");
    }
    fprintf(stderr, "\n"
            "  --image reads an existing raw image (opened read-only), else a scratch\n"
            "  image of --disk-mb MiB (default 64) is made and removed; --bounce uses\n"
            "  buffers outside guest RAM so every transfer is bounce-buffered;\n"
            "  --scripts counts SCRIPTS instructions per command from QEMU's trace (a\n"
            "  second, traced run of 2000 commands per row; chips with SCRIPTS only);\n"
            "  --record writes 'size depth lba bytes fnv1a64' per completed read.\n");
    return 2;
}

int pcambench_qemu_main(int argc, char **argv, const char *name)
{
    static const uint32_t sizes[2] = {4096, 65536};
    char dir[] = "/tmp/pcambench-XXXXXX", path[96], trace[96];
    pcam_qemu_drive d;
    qres res[6], r8k;
    qopts o;
    uint64_t blocks;
    bool scratch = false;
    int rc = 0;

    memset(&o, 0, sizeof o);
    o.chip = &chips[0];
    o.seconds = 3.0;
    o.disk_mb = 64;
    o.seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--qemu") == 0) continue;
        else if (strcmp(a, "--qemu-sym") == 0 || (strcmp(a, "--chip") == 0 && v)) {
            const char *want = a[2] == 'q' ? "lsi53c895a" : v;
            size_t k = 0;
            while (k < NCHIPS && strcmp(chips[k].name, want) != 0)
                k++;
            if (k == NCHIPS) {
                fprintf(stderr, "%s: chip %s is not in this build\n", name, want);
                return qusage(name);
            }
            o.chip = &chips[k];
            i += a[2] == 'c';
        }
        else if (strcmp(a, "--seconds") == 0 && v) { o.seconds = strtod(v, NULL); i++; }
        else if (strcmp(a, "--commands") == 0 && v) { o.commands = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--disk-mb") == 0 && v) { o.disk_mb = (uint32_t)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--seed") == 0 && v) { o.seed = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--image") == 0 && v) { o.image = v; i++; }
        else if (strcmp(a, "--record") == 0 && v) { o.record = v; i++; }
        else if (strcmp(a, "--bounce") == 0) o.bounce = true;
        else if (strcmp(a, "--scripts") == 0) o.scripts = true;
        else if (strcmp(a, "--json") == 0) o.json = true;
        else return qusage(name);
    }
    if (o.disk_mb == 0 || o.disk_mb > 65536 || !(o.seconds > 0.0))
        return qusage(name);
    if (o.scripts && o.chip->trace_event == NULL) {
        fprintf(stderr, "%s: --scripts: the %s runs no SCRIPTS\n", name, o.chip->name);
        return 2;
    }
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "%s: mkdtemp: %s\n", name, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/disk.img", dir);
    snprintf(trace, sizeof trace, "%s/trace.log", dir);
    memset(&d, 0, sizeof d);
    d.kind = PCAM_QEMU_HD;
    d.scsi_id = 0;
    d.read_only = true;
    if (o.image != NULL) {
        struct stat st;
        if (stat(o.image, &st) != 0 || st.st_size < 65536) {
            fprintf(stderr, "%s: %s: not a readable image of at least 64 KiB\n", name, o.image);
            rmdir(dir);
            return 1;
        }
        blocks = (uint64_t)st.st_size / 512u;
        d.image = o.image;
    } else {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        /* Sparse: QEMU reads holes as zeros without touching storage. */
        if (fd < 0 || ftruncate(fd, (off_t)o.disk_mb << 20) != 0) {
            fprintf(stderr, "%s: %s: %s\n", name, path, strerror(errno));
            if (fd >= 0)
                close(fd);
            rmdir(dir);
            return 1;
        }
        close(fd);
        scratch = true;
        blocks = (uint64_t)o.disk_mb << 11;
        d.image = path;
    }
    qctx *x = calloc(1, sizeof *x);
    if (x == NULL) {
        rc = 1;
        goto out;
    }
    x->o = &o;
    x->blocks = blocks;
    x->rng = o.seed != 0 ? o.seed : 1;
    if (o.record != NULL && (x->record = fopen(o.record, "w")) == NULL) {
        fprintf(stderr, "%s: cannot write %s\n", name, o.record);
        rc = 1;
        goto out;
    }
    if (open_bus(x, &d, NULL) != 0) {
        rc = 1;
        goto out;
    }
    size_t n = 0;
    for (unsigned s = 0; s < 2 && rc == 0; s++)
        for (unsigned k = 0; k < 3 && o.chip->depths[k] != 0 && rc == 0; k++, n++)
            if (run(x, sizes[s], o.chip->depths[k], o.seconds, o.commands, &res[n]) != 0)
                rc = 1;
    /* 8 KiB at depth 1 for the 1999 overhead estimate 2 t(4K) - t(8K). */
    if (rc == 0 && run(x, 8192, 1, o.seconds, o.commands, &r8k) != 0)
        rc = 1;
    if (pcam_qemu_chipbus_close(&x->b) != 0 && rc == 0)
        rc = 1;
    if (x->record != NULL) {
        if (fclose(x->record) != 0 && rc == 0) {
            fprintf(stderr, "%s: cannot write %s\n", name, o.record);
            rc = 1;
        }
        x->record = NULL;
    }
    if (rc == 0 && o.scripts) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            qres tr;
            unlink(trace);
            if (open_bus(x, &d, trace) != 0) {
                rc = 1;
                break;
            }
            uint64_t before = count_lines(trace, o.chip->trace_event);
            if (run(x, res[i].size, res[i].depth, 1.0, 2000, &tr) != 0)
                rc = 1;
            (void)pcam_qemu_chipbus_close(&x->b);
            uint64_t after = count_lines(trace, o.chip->trace_event);
            res[i].insns = per(after - before, tr.cmds);
        }
    }
    if (rc == 0) {
        print(&o, res, n, &r8k);
        for (size_t i = 0; i < n; i++)
            if (res[i].errors != 0)
                rc = 1;
        if (r8k.errors != 0)
            rc = 1;
    }
out:
    if (x != NULL && x->record != NULL)
        fclose(x->record);
    free(x);
    unlink(trace);
    if (scratch)
        unlink(path);
    rmdir(dir);
    return rc;
}
#endif
