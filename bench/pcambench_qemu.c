/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench --qemu: random reads on a disk image behind QEMU's AM53C974,
 * through the core and hal/esp over the qtest socket. For each transfer
 * size it prints commands per second (host time), register reads and
 * writes per command (pcam_esp_get_stats), qtest round trips per command
 * and IRQ lines per command (pcam_qemu_get_stats). The model runs one
 * command at a time (no disconnect, no tags), so the queue depth is 1.
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

#ifndef PCAMBENCH_HAVE_QEMU
int pcambench_qemu_main(int argc, char **argv, const char *name)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "%s: --qemu is not in this build (it needs osshim/posix and hal/esp)\n", name);
    return 2;
}
#else
#include "pcam_qemu_esp.h"

typedef struct qopts {
    double seconds;      /* per size */
    uint64_t commands;   /* per size; 0 = by time */
    uint32_t disk_mb;
    uint64_t seed;
    const char *image;   /* NULL: a scratch image */
    bool json;
    bool bounce;         /* buffers outside guest RAM (bounce-buffered DMA) */
} qopts;

typedef struct qresult {
    uint32_t size;
    uint64_t cmds, errors;
    double secs;
    pcam_esp_stats esp;
    pcam_qemu_stats qs;
    uint64_t intrs;
} qresult;

static int qusage(const char *name)
{
    fprintf(stderr,
            "usage: %s --qemu [--seconds S] [--commands N] [--disk-mb M] [--seed X]\n"
            "                 [--image FILE] [--bounce] [--json]\n"
            "  4 KiB and 64 KiB random READ(10)s on QEMU's AM53C974 (one at a time);\n"
            "  --image reads an existing raw image (opened read-only), else a scratch\n"
            "  image of --disk-mb MiB (default 64) is made and removed; --bounce uses\n"
            "  buffers outside guest RAM so every transfer is bounce-buffered.\n",
            name);
    return 2;
}

static uint64_t rnd(uint64_t *s)
{
    /* xorshift64*: any cheap generator will do for LBAs. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static int run_size(pcam_qemu_chipbus *b, const qopts *o, uint32_t size, uint64_t blocks, uint64_t *rng,
                    qresult *r)
{
    pcam_esp_stats e0, e1;
    pcam_qemu_stats q0, q1;
    uint64_t gpa = 0, t0, t1, intrs0;
    uint8_t *buf, *own = NULL;
    uint32_t nblk = size / 512u;
    pcam_ccb ccb;
    uint8_t sense[32];

    if (o->bounce) {
        own = malloc(size);
        buf = own;
    } else {
        buf = pcam_qemu_guest_alloc(b->q, size, &gpa);
    }
    if (buf == NULL)
        return -ENOMEM;
    memset(r, 0, sizeof *r);
    r->size = size;
    pcam_esp_get_stats(b->sc, &e0);
    pcam_qemu_get_stats(b->q, &q0);
    intrs0 = b->intrs;
    t0 = pcam_posix_now_ns();
    for (;;) {
        uint64_t lba = (rnd(rng) % (blocks / nblk)) * nblk;
        uint32_t st;

        t1 = pcam_posix_now_ns();
        if (o->commands != 0 ? r->cmds >= o->commands : (double)(t1 - t0) >= o->seconds * 1e9)
            break;
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_SCSI_IO;
        ccb.target = 0;
        ccb.timeout_ms = 10000;
        ccb.u.io.cdb[0] = 0x28; /* READ(10), SBC-3 */
        ccb.u.io.cdb[2] = (uint8_t)(lba >> 24);
        ccb.u.io.cdb[3] = (uint8_t)(lba >> 16);
        ccb.u.io.cdb[4] = (uint8_t)(lba >> 8);
        ccb.u.io.cdb[5] = (uint8_t)lba;
        ccb.u.io.cdb[7] = (uint8_t)(nblk >> 8);
        ccb.u.io.cdb[8] = (uint8_t)nblk;
        ccb.u.io.cdb_len = 10;
        ccb.u.io.dir = PCAM_DIR_IN;
        ccb.u.io.data = buf;
        ccb.u.io.data_len = size;
        ccb.u.io.sense = sense;
        ccb.u.io.sense_len = sizeof sense;
        ccb.u.io.retries = 2;
        st = pcam_qemu_chipbus_sync(b, &ccb, 15000);
        if (st == 0xFFFFFFFFu) {
            fprintf(stderr, "pcambench: READ(10) at %" PRIu64 " did not complete: %s\n", lba,
                    pcam_qemu_error(b->q));
            free(own);
            return -ETIMEDOUT;
        }
        if ((st & PCAM_STATUS_MASK) != PCAM_REQ_CMP)
            r->errors++;
        r->cmds++;
    }
    r->secs = (double)(t1 - t0) / 1e9;
    pcam_esp_get_stats(b->sc, &e1);
    pcam_qemu_get_stats(b->q, &q1);
    r->intrs = b->intrs - intrs0;
    r->esp.reg_reads = e1.reg_reads - e0.reg_reads;
    r->esp.reg_writes = e1.reg_writes - e0.reg_writes;
    r->esp.interrupts = e1.interrupts - e0.interrupts;
    r->esp.dma_transfers = e1.dma_transfers - e0.dma_transfers;
    r->esp.pio_bytes = e1.pio_bytes - e0.pio_bytes;
    r->qs.round_trips = q1.round_trips - q0.round_trips;
    r->qs.round_trip_ns = q1.round_trip_ns - q0.round_trip_ns;
    r->qs.irq_events = q1.irq_events - q0.irq_events;
    r->qs.bulk_bytes = q1.bulk_bytes - q0.bulk_bytes;
    r->qs.shm_bytes = q1.shm_bytes - q0.shm_bytes;
    if (own != NULL)
        free(own);
    else
        pcam_qemu_guest_free(b->q, gpa);
    return 0;
}

static double per(uint64_t v, uint64_t n)
{
    return n != 0 ? (double)v / (double)n : 0.0;
}

static void print(const qopts *o, const qresult *r, size_t n)
{
    if (o->json) {
        printf("{\"backend\":\"qemu-am53c974\",\"queue_depth\":1,\"bounce\":%s,\"results\":[",
               o->bounce ? "true" : "false");
        for (size_t i = 0; i < n; i++)
            printf("%s{\"size\":%u,\"commands\":%" PRIu64 ",\"errors\":%" PRIu64
                   ",\"seconds\":%.3f,\"commands_per_s\":%.1f,\"reg_reads_per_cmd\":%.2f,"
                   "\"reg_writes_per_cmd\":%.2f,\"round_trips_per_cmd\":%.2f,\"irq_lines_per_cmd\":%.2f,"
                   "\"us_per_round_trip\":%.1f,\"dma_runs_per_cmd\":%.2f}",
                   i ? "," : "", r[i].size, r[i].cmds, r[i].errors, r[i].secs,
                   per(r[i].cmds * 1000, (uint64_t)(r[i].secs * 1000.0)),
                   per(r[i].esp.reg_reads, r[i].cmds), per(r[i].esp.reg_writes, r[i].cmds),
                   per(r[i].qs.round_trips, r[i].cmds), per(r[i].qs.irq_events, r[i].cmds),
                   per(r[i].qs.round_trip_ns / 1000, r[i].qs.round_trips),
                   per(r[i].esp.dma_transfers, r[i].cmds));
        printf("]}\n");
        return;
    }
    printf("QEMU AM53C974 over qtest: random READ(10), one command at a time%s\n",
           o->bounce ? ", bounce-buffered DMA" : ", buffers in guest RAM");
    printf("%-6s %8s %6s %9s %10s %11s %10s %9s %9s\n", "size", "commands", "errors", "cmds/s",
           "reg reads", "reg writes", "round", "IRQ lines", "us/round");
    printf("%-6s %8s %6s %9s %10s %11s %10s %9s %9s\n", "", "", "", "", "per cmd", "per cmd",
           "trips/cmd", "per cmd", "trip");
    for (size_t i = 0; i < n; i++)
        printf("%-6s %8" PRIu64 " %6" PRIu64 " %9.1f %10.2f %11.2f %10.2f %9.2f %9.1f\n",
               r[i].size == 4096 ? "4K" : "64K", r[i].cmds, r[i].errors,
               r[i].secs > 0 ? (double)r[i].cmds / r[i].secs : 0.0, per(r[i].esp.reg_reads, r[i].cmds),
               per(r[i].esp.reg_writes, r[i].cmds), per(r[i].qs.round_trips, r[i].cmds),
               per(r[i].qs.irq_events, r[i].cmds),
               per(r[i].qs.round_trip_ns / 1000, r[i].qs.round_trips));
    printf("(register accesses: hal/esp's counters; round trips: qtest commands answered,\n"
           " register accesses plus IRQ-line drains and bulk copies)\n");
}

int pcambench_qemu_main(int argc, char **argv, const char *name)
{
    static const uint32_t sizes[2] = {4096, 65536};
    char dir[] = "/tmp/pcambench-XXXXXX", path[64], err[2048];
    pcam_qemu_chipbus_opts eo;
    pcam_qemu_drive d;
    pcam_qemu_chipbus b;
    qresult res[2];
    qopts o;
    uint64_t blocks, rng;
    bool scratch = false;
    int rc = 0;

    memset(&o, 0, sizeof o);
    o.seconds = 3.0;
    o.disk_mb = 64;
    o.seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--qemu") == 0) continue;
        else if (strcmp(a, "--seconds") == 0 && v) { o.seconds = strtod(v, NULL); i++; }
        else if (strcmp(a, "--commands") == 0 && v) { o.commands = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--disk-mb") == 0 && v) { o.disk_mb = (uint32_t)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--seed") == 0 && v) { o.seed = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--image") == 0 && v) { o.image = v; i++; }
        else if (strcmp(a, "--bounce") == 0) o.bounce = true;
        else if (strcmp(a, "--json") == 0) o.json = true;
        else return qusage(name);
    }
    if (o.disk_mb == 0 || o.disk_mb > 65536 || !(o.seconds > 0.0))
        return qusage(name);

    memset(&d, 0, sizeof d);
    d.kind = PCAM_QEMU_HD;
    d.scsi_id = 0;
    if (o.image != NULL) {
        struct stat st;
        if (stat(o.image, &st) != 0 || st.st_size < 65536) {
            fprintf(stderr, "%s: %s: not a readable image of at least 64 KiB\n", name, o.image);
            return 1;
        }
        blocks = (uint64_t)st.st_size / 512u;
        d.image = o.image;
        d.read_only = true;
    } else {
        int fd;
        if (mkdtemp(dir) == NULL) {
            fprintf(stderr, "%s: mkdtemp: %s\n", name, strerror(errno));
            return 1;
        }
        snprintf(path, sizeof path, "%s/disk.img", dir);
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
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

    memset(&eo, 0, sizeof eo);
    eo.drives = &d;
    eo.ndrives = 1;
    eo.log_file = stderr;
    eo.log_level = PCAM_LOG_ERROR;
    rc = pcam_qemu_chipbus_open(&b, &pcam_qemu_chip_am53c974, &eo, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s: QEMU: %s\n", name, err);
        rc = 1;
        goto out;
    }
    {
        /* TEST UNIT READY takes the power-on UNIT ATTENTION out of the figures. */
        pcam_ccb t;
        uint8_t sense[32];
        memset(&t, 0, sizeof t);
        t.func = PCAM_FN_SCSI_IO;
        t.timeout_ms = 5000;
        t.u.io.cdb_len = 6;
        t.u.io.dir = PCAM_DIR_NONE;
        t.u.io.sense = sense;
        t.u.io.sense_len = sizeof sense;
        t.u.io.retries = 2;
        (void)pcam_qemu_chipbus_sync(&b, &t, 10000);
    }
    rng = o.seed != 0 ? o.seed : 1;
    for (size_t i = 0; i < 2 && rc == 0; i++)
        if (run_size(&b, &o, sizes[i], blocks, &rng, &res[i]) != 0)
            rc = 1;
    if (rc == 0) {
        print(&o, res, 2);
        if (res[0].errors != 0 || res[1].errors != 0)
            rc = 1;
    }
    if (pcam_qemu_chipbus_close(&b) != 0 && rc == 0)
        rc = 1;
out:
    if (scratch) {
        unlink(path);
        rmdir(dir);
    }
    return rc;
}
#endif
