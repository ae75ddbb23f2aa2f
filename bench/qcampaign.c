/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamqcampaign: a fault campaign against QEMU's AM53C974 for a set time,
 * through the core and hal/esp over osshim/posix (scripts/qemu-campaign.sh
 * runs it). Random READ(10)/WRITE(10) on three scsi-hd disks, each checked
 * against a host-side reference copy of its image, while faults come at
 * random:
 *   disk 0: blkdebug errors on fixed sectors (read ENODATA -> MEDIUM ERROR
 *           3/11/00, read EIO and write EIO -> ABORTED COMMAND B/00/06, as
 *           QEMU 7.2's scsi-disk maps them); a command over such a sector
 *           must fail with exactly that sense, every other must succeed;
 *   disk 1: requests held in QEMU (blkdebug break / resume from the
 *           monitor) for 0.2-4.5 s, against a 3 s command timeout;
 *   disk 2: I/O throttling switched on and off (block_set_io_throttle);
 *   any:    bus resets and device resets asked for by the caller.
 * Checked: every CCB completes exactly once (lost and doubled otherwise); a
 * READ that completes equals the reference; a WRITE that completes is in
 * the image file; one that fails leaves each byte old or new; at the end
 * the image files equal the references; every error is either the
 * expected sense of a bad sector or a timeout/reset under an active hold or
 * reset (anything else is counted as unexplained). Exit status 0 only when
 * lost, doubled, corrupt, wrong sense and unexplained errors are all 0.
 * Host tooling; never part of the core.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pcam/pcam_sense.h"
#include "pcam_qemu_esp.h"

#define NDISK 3
#define BLOCKS 2048u
#define TIMEOUT_MS 3000u
/* Disk 0's bad sectors (blkdebug inject-error rules below). */
#define BAD_READ_MEDIUM 64u
#define BAD_READ_EIO 128u
#define BAD_WRITE_EIO 192u

typedef struct camp {
    pcam_qemu_chipbus b;
    char dir[64];
    char img[NDISK][96];
    uint8_t *ref[NDISK];
    uint64_t rng;
    uint64_t cmds, ok, expected_err, fault_err, wrong_sense, unexplained, lost, doubled, corrupt;
    uint64_t holds, throttles, bus_resets, dev_resets, held_timeouts;
    bool throttled;
} camp;

static uint64_t rnd(camp *c)
{
    uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct qjob {
    pcam_ccb ccb;
    uint8_t sense[32];
    unsigned done;
} qjob;

static void qdone(pcam_ccb *ccb)
{
    ((qjob *)ccb)->done++;
}

/* Run `j` to completion, resuming a held request at `resume_at` (host
 * time, 0 = none). Returns false when it did not complete at all. */
static bool run(camp *c, qjob *j, double resume_at, double limit_s)
{
    double end = now_s() + limit_s;
    j->done = 0;
    j->ccb.done = qdone;
    pcam_action(&c->b.bus, &j->ccb);
    while (j->done == 0 && now_s() < end) {
        if (resume_at != 0 && now_s() >= resume_at) {
            char out[256];
            (void)pcam_qemu_hmp(c->b.q, "qemu-io d1 \"resume H\"", out, sizeof out);
            resume_at = 0;
        }
        if (pcam_qemu_chipbus_step(&c->b, 5) < 0)
            return false;
    }
    if (resume_at != 0) {
        char out[256];
        (void)pcam_qemu_hmp(c->b.q, "qemu-io d1 \"resume H\"", out, sizeof out);
    }
    return j->done != 0;
}

static bool sense_is(const qjob *j, uint8_t key, uint8_t asc, uint8_t ascq)
{
    pcam_sense s;
    if ((j->ccb.status & PCAM_AUTOSNS_VALID) == 0)
        return false;
    size_t n = (size_t)(j->ccb.u.io.sense_len - j->ccb.u.io.sense_resid);
    return pcam_sense_decode(j->sense, n, &s) == PCAM_OK && s.key == key && s.asc == asc &&
           s.ascq == ascq;
}

static bool covers(uint32_t lba, uint16_t n, uint32_t sector)
{
    return sector >= lba && sector < lba + n;
}

static void mgmt(camp *c, uint8_t func, uint8_t t, uint32_t flags)
{
    qjob m;
    memset(&m, 0, sizeof m);
    m.ccb.func = func;
    m.ccb.target = t;
    m.ccb.flags = flags;
    if (!run(c, &m, 0, 30))
        c->lost++;
    else if (m.done > 1)
        c->doubled++;
}

static void one_io(camp *c)
{
    uint8_t d = (uint8_t)(rnd(c) % NDISK);
    uint16_t n = (uint16_t)(1 + rnd(c) % 8);
    uint32_t lba = (uint32_t)(rnd(c) % (BLOCKS - n));
    bool write = rnd(c) % 100 < 40;
    static uint8_t buf[8 * 512];
    qjob j;
    double resume_at = 0;
    bool hold = false;

    /* Disk 0: aim at a bad sector now and then. */
    if (d == 0 && rnd(c) % 8 == 0) {
        static const uint32_t bad[3] = {BAD_READ_MEDIUM, BAD_READ_EIO, BAD_WRITE_EIO};
        uint32_t s = bad[rnd(c) % 3];
        lba = s >= n ? s - (uint32_t)(rnd(c) % n) : 0;
    }
    if (d == 1 && rnd(c) % 6 == 0) {
        char out[256];
        hold = true;
        c->holds++;
        (void)pcam_qemu_hmp(c->b.q, write ? "qemu-io d1 \"break write_aio H\""
                                          : "qemu-io d1 \"break read_aio H\"", out, sizeof out);
        /* Past the 3 s timeout the core aborts; the hold ends before its
         * abort step (2 s) would reset the bus: QEMU's bus reset drains the
         * held request and the qtest socket would not answer until it is
         * resumed, which this single thread could then never send. */
        resume_at = now_s() + 0.2 + (double)(rnd(c) % 4300) / 1000.0;
    }
    if (write)
        for (unsigned i = 0; i < n * 512u; i++)
            buf[i] = (uint8_t)rnd(c);
    else
        memset(buf, 0xEE, n * 512u);
    memset(&j, 0, sizeof j);
    j.ccb.func = PCAM_FN_SCSI_IO;
    j.ccb.target = d;
    j.ccb.timeout_ms = TIMEOUT_MS;
    j.ccb.u.io.cdb[0] = write ? 0x2A : 0x28;
    j.ccb.u.io.cdb[2] = (uint8_t)(lba >> 24);
    j.ccb.u.io.cdb[3] = (uint8_t)(lba >> 16);
    j.ccb.u.io.cdb[4] = (uint8_t)(lba >> 8);
    j.ccb.u.io.cdb[5] = (uint8_t)lba;
    j.ccb.u.io.cdb[8] = (uint8_t)n;
    j.ccb.u.io.cdb_len = 10;
    j.ccb.u.io.dir = write ? PCAM_DIR_OUT : PCAM_DIR_IN;
    j.ccb.u.io.data = buf;
    j.ccb.u.io.data_len = n * 512u;
    j.ccb.u.io.sense = j.sense;
    j.ccb.u.io.sense_len = sizeof j.sense;
    j.ccb.u.io.retries = 2;
    c->cmds++;
    if (!run(c, &j, resume_at, 60)) {
        c->lost++;
        fprintf(stderr, "campaign: command to %u lba %u did not complete\n", d, (unsigned)lba);
        return;
    }
    if (hold) {
        char out[256];
        (void)pcam_qemu_hmp(c->b.q, "qemu-io d1 \"remove_break H\"", out, sizeof out);
    }
    uint32_t st = j.ccb.status & PCAM_STATUS_MASK;
    size_t off = (size_t)lba * 512u, len = (size_t)n * 512u;
    /* What disk 0's bad sectors make of this command. */
    int expect = 0; /* 0 none, 1 medium error, 2 aborted command (EIO) */
    if (d == 0 && !write && covers(lba, n, BAD_READ_MEDIUM))
        expect = 1;
    else if (d == 0 && !write && covers(lba, n, BAD_READ_EIO))
        expect = 2;
    else if (d == 0 && write && covers(lba, n, BAD_WRITE_EIO))
        expect = 2;
    if (expect != 0) {
        bool right = st == PCAM_SCSI_STATUS_ERROR &&
                     (expect == 1 ? sense_is(&j, 0x3, 0x11, 0x00) : sense_is(&j, 0xB, 0x00, 0x06));
        if (right) {
            c->expected_err++;
        } else {
            c->wrong_sense++;
            fprintf(stderr, "campaign: %s of %u at %u lba %u: %s, want %s\n", write ? "write" : "read",
                    n, d, (unsigned)lba, pcam_status_name(st), expect == 1 ? "3/11/00" : "B/00/06");
        }
    } else if (st == PCAM_REQ_CMP) {
        c->ok++;
        if (!write && memcmp(buf, c->ref[d] + off, len) != 0) {
            c->corrupt++;
            fprintf(stderr, "campaign: read of %u at %u lba %u differs from the image\n", n, d,
                    (unsigned)lba);
        }
    } else if (hold && (st == PCAM_CMD_TIMEOUT || st == PCAM_SCSI_BUS_RESET)) {
        c->fault_err++;
        c->held_timeouts++;
    } else {
        c->unexplained++;
        fprintf(stderr, "campaign: %s of %u at %u lba %u failed: %s (recovery 0x%x)\n",
                write ? "write" : "read", n, d, (unsigned)lba, pcam_status_name(st),
                (unsigned)j.ccb.u.io.recovery);
    }
    if (j.done > 1)
        c->doubled++;
    if (write) {
        /* The image file (QEMU writes a raw image through the host page
         * cache): a completed write is there, a failed one left each byte
         * old or new. */
        uint8_t now[8 * 512];
        int fd = open(c->img[d], O_RDONLY);
        if (fd < 0 || pread(fd, now, len, (off_t)off) != (ssize_t)len) {
            c->corrupt++;
        } else {
            for (size_t i = 0; i < len; i++)
                if ((st == PCAM_REQ_CMP && now[i] != buf[i]) ||
                    (now[i] != buf[i] && now[i] != c->ref[d][off + i])) {
                    c->corrupt++;
                    fprintf(stderr, "campaign: write of %u at %u lba %u: image byte %zu is wrong\n", n,
                            d, (unsigned)lba, i);
                    break;
                }
            memcpy(c->ref[d] + off, now, len);
        }
        if (fd >= 0)
            close(fd);
    }
}

int main(int argc, char **argv)
{
    double seconds = 60;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--seconds S] [--seed X]\n", argv[0]);
            return 2;
        }
    }
    camp *c = calloc(1, sizeof *c);
    if (c == NULL)
        return 2;
    c->rng = seed;
    snprintf(c->dir, sizeof c->dir, "/tmp/pcamcampXXXXXX");
    if (mkdtemp(c->dir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    char cfg[128];
    snprintf(cfg, sizeof cfg, "%s/d0.blkdebug", c->dir);
    FILE *f = fopen(cfg, "w");
    if (f == NULL)
        return 2;
    fprintf(f, "[inject-error]\nevent = \"read_aio\"\nerrno = \"61\"\nsector = \"%u\"\n\n"
               "[inject-error]\nevent = \"read_aio\"\nerrno = \"5\"\nsector = \"%u\"\n\n"
               "[inject-error]\nevent = \"write_aio\"\nerrno = \"5\"\nsector = \"%u\"\n",
            BAD_READ_MEDIUM, BAD_READ_EIO, BAD_WRITE_EIO);
    fclose(f);
    pcam_qemu_drive drv[NDISK];
    memset(drv, 0, sizeof drv);
    for (unsigned d = 0; d < NDISK; d++) {
        snprintf(c->img[d], sizeof c->img[d], "%s/d%u.img", c->dir, d);
        c->ref[d] = malloc((size_t)BLOCKS * 512u);
        for (size_t i = 0; i < (size_t)BLOCKS * 512u; i++)
            c->ref[d][i] = (uint8_t)(i * 13u + d * 101u + (i >> 9));
        int fd = open(c->img[d], O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(fd, c->ref[d], (size_t)BLOCKS * 512u) != (ssize_t)BLOCKS * 512) {
            perror(c->img[d]);
            return 2;
        }
        close(fd);
        drv[d].kind = PCAM_QEMU_HD;
        drv[d].image = c->img[d];
        drv[d].scsi_id = (uint8_t)d;
    }
    drv[0].blkdebug = cfg;
    drv[1].blkdebug = "";
    pcam_qemu_chipbus_opts eo;
    char err[256];
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.default_timeout_ms = TIMEOUT_MS;
    memset(&eo, 0, sizeof eo);
    eo.drives = drv;
    eo.ndrives = NDISK;
    eo.bus_config = &bc;
    eo.monitor = true;
    eo.log_file = stderr;
    eo.log_level = PCAM_LOG_ERROR;
    if (pcam_qemu_chipbus_open(&c->b, &pcam_qemu_chip_am53c974, &eo, err, sizeof err) != 0) {
        fprintf(stderr, "campaign: QEMU: %s\n", err);
        return 77;
    }
    mgmt(c, PCAM_FN_SCAN_BUS, 0, 0);
    double t0 = now_s(), next_report = t0 + 60;
    while (now_s() - t0 < seconds) {
        unsigned r = (unsigned)(rnd(c) % 1000);
        if (r < 3) {
            c->bus_resets++;
            mgmt(c, PCAM_FN_RESET_BUS, 0, 0);
        } else if (r < 6) {
            /* QEMU's AM53C974 does not act on reset messages: MSG_REJECT_REC (issue 16, defect 1). */
            c->dev_resets++;
            mgmt(c, PCAM_FN_RESET_DEV, (uint8_t)(rnd(c) % NDISK), rnd(c) % 2 ? PCAM_CCB_LUN_RESET : 0);
        } else if (r < 12) {
            char out[256];
            c->throttled = !c->throttled;
            c->throttles++;
            (void)pcam_qemu_hmp(c->b.q, c->throttled ? "block_set_io_throttle d2 200000 0 0 40 0 0"
                                                     : "block_set_io_throttle d2 0 0 0 0 0 0",
                                out, sizeof out);
        } else {
            one_io(c);
        }
        if (now_s() >= next_report) {
            fprintf(stderr, "campaign: %.0f s, %llu commands, %llu ok, %llu expected errors, "
                    "lost %llu corrupt %llu wrong sense %llu unexplained %llu\n", now_s() - t0,
                    (unsigned long long)c->cmds, (unsigned long long)c->ok,
                    (unsigned long long)c->expected_err, (unsigned long long)c->lost,
                    (unsigned long long)c->corrupt, (unsigned long long)c->wrong_sense,
                    (unsigned long long)c->unexplained);
            next_report += 60;
        }
    }
    double took = now_s() - t0;
    pcam_qemu_chipbus_close(&c->b);
    for (unsigned d = 0; d < NDISK; d++) {
        uint8_t *img = malloc((size_t)BLOCKS * 512u);
        int fd = open(c->img[d], O_RDONLY);
        if (img == NULL || fd < 0 || pread(fd, img, (size_t)BLOCKS * 512u, 0) != (ssize_t)BLOCKS * 512 ||
            memcmp(img, c->ref[d], (size_t)BLOCKS * 512u) != 0) {
            c->corrupt++;
            fprintf(stderr, "campaign: image %u differs from its reference at the end\n", d);
        }
        if (fd >= 0)
            close(fd);
        free(img);
        unlink(c->img[d]);
    }
    unlink(cfg);
    rmdir(c->dir);
    printf("QEMU AM53C974 fault campaign: %.0f s, seed %llu\n", took, (unsigned long long)seed);
    printf("commands %llu: ok %llu, failed with the expected sense %llu, failed under a hold %llu\n",
           (unsigned long long)c->cmds, (unsigned long long)c->ok,
           (unsigned long long)c->expected_err, (unsigned long long)c->fault_err);
    printf("faults: holds %llu (timed out %llu), throttle toggles %llu, bus resets %llu, device resets %llu\n",
           (unsigned long long)c->holds, (unsigned long long)c->held_timeouts,
           (unsigned long long)c->throttles, (unsigned long long)c->bus_resets,
           (unsigned long long)c->dev_resets);
    printf("lost %llu  doubled %llu  corrupt %llu  wrong sense %llu  unexplained errors %llu\n",
           (unsigned long long)c->lost, (unsigned long long)c->doubled,
           (unsigned long long)c->corrupt, (unsigned long long)c->wrong_sense,
           (unsigned long long)c->unexplained);
    return (c->lost | c->doubled | c->corrupt | c->wrong_sense | c->unexplained) == 0 ? 0 : 1;
}
