/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read, write and verify: blocks between a device and a file (or checked on
 * the medium), in chunks of at most 64 KiB per command (and never more than
 * the chip takes per CCB). Long transfers show progress with rate and ETA
 * on a terminal (stderr; --progress forces it, --no-progress stops it) and
 * end with a throughput summary like sg_dd's time=1. Timing is only shown,
 * never used to decide anything.
 */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_sense.h"

#define CHUNK_BYTES 65536u

typedef struct io_args {
    const char *path, *file;
    uint64_t lba, count;
    bool have_lba, have_count;
    uint8_t t, l;
    int progress;      /* -1 off, 0 on a terminal, 1 on */
} io_args;

/* Progress and the summary. */
typedef struct meter {
    bool show;
    uint64_t t0, last, bus0, total;
    const char *what;
} meter;

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void meter_start(ctl *c, meter *m, int progress, const char *what, uint64_t total)
{
    memset(m, 0, sizeof *m);
    m->show = progress > 0 || (progress == 0 && isatty(2));
    m->t0 = wall_ns();
    m->bus0 = ctl_now(c);
    m->total = total;
    m->what = what;
}

static void meter_tick(meter *m, uint64_t done)
{
    if (!m->show)
        return;
    uint64_t now = wall_ns();
    if (done != m->total && m->last != 0 && now - m->last < 500000000ull)
        return;
    m->last = now;
    double s = (double)(now - m->t0) / 1e9, rate = s > 0 ? (double)done / s : 0.0;
    double eta = rate > 0 ? (double)(m->total - done) / rate : 0.0;
    fprintf(stderr, "\r%s %.1f of %.1f MiB (%3.0f%%) %.2f MB/s ETA %u:%02u  ", m->what, (double)done / 1048576.0,
            (double)m->total / 1048576.0, m->total ? 100.0 * (double)done / (double)m->total : 100.0, rate / 1e6,
            (unsigned)eta / 60u, (unsigned)eta % 60u);
    if (done == m->total)
        fputc('\n', stderr);
}

/* sg_dd time=1: elapsed time and rate, and on the simulated bus the
 * simulated time (what the bus would take). Each figure is called what it
 * is: on qemu-esp the back-end's clock is the wall clock, so there is no
 * second figure; a verify moves no data, so it has no transfer rate, only
 * its times and its command count. */
static void meter_end(ctl *c, meter *m, uint64_t bytes, uint64_t commands)
{
    bool verify = strcmp(m->what, "verify") == 0, sim = ctl_is_sim(c);
    double s = (double)(wall_ns() - m->t0) / 1e9;
    double bs = (double)(ctl_now(c) - m->bus0) / 1e9;
    if (c->json) {
        j_obj("time");
        j_u64("wall_us", (uint64_t)(s * 1e6));
        j_u64("bus_us", (uint64_t)(bs * 1e6));
        j_str("bus_time_kind", sim ? "simulated" : "wall");
        if (verify) {
            j_u64("commands", commands);
        } else {
            j_u64("data_bytes_per_s_wall", s > 0 ? (uint64_t)((double)bytes / s) : 0);
            if (sim)
                j_u64("data_bytes_per_s_bus", bs > 0 ? (uint64_t)((double)bytes / bs) : 0);
        }
        j_end_obj();
        return;
    }
    if (verify && sim)
        fprintf(stderr, "verify: %llu VERIFY command%s in %.6f secs of wall time, %.6f secs of simulated bus time "
                        "(no data crosses the bus, so there is no transfer rate)\n",
                (unsigned long long)commands, commands == 1 ? "" : "s", s, bs);
    else if (verify)
        fprintf(stderr, "verify: %llu VERIFY command%s in %.6f secs of wall time (no data crosses the bus, so there "
                        "is no transfer rate)\n",
                (unsigned long long)commands, commands == 1 ? "" : "s", s);
    else if (sim)
        fprintf(stderr, "time to transfer data: %.6f secs of wall time at %.2f MB/sec; %.6f secs of simulated bus "
                        "time at %.2f MB/sec\n",
                s, s > 0 ? (double)bytes / s / 1e6 : 0.0, bs, bs > 0 ? (double)bytes / bs / 1e6 : 0.0);
    else
        fprintf(stderr, "time to transfer data: %.6f secs of wall time at %.2f MB/sec (through QEMU's emulated chip)\n",
                s, s > 0 ? (double)bytes / s / 1e6 : 0.0);
}

static int parse_io(ctl *c, bool write, int argc, char **argv, io_args *a)
{
    const char *fopt = write ? "-i" : "-o";
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--lba") == 0 && v != NULL) {
            if (!ctl_parse_u64(v, &a->lba))
                return ctl_usage(c, "bad --lba '%s' (a block number: decimal, or hex after 0x)", v);
            a->have_lba = true;
            i++;
        } else if (strcmp(argv[i], "--count") == 0 && v != NULL) {
            if (!ctl_parse_u64(v, &a->count) || a->count == 0)
                return ctl_usage(c, "bad --count '%s' (1 or more blocks)", v);
            a->have_count = true;
            i++;
        } else if ((strcmp(argv[i], fopt) == 0 || strcmp(argv[i], "--file") == 0) && v != NULL) {
            a->file = v;
            i++;
        } else if (strcmp(argv[i], "--progress") == 0) {
            a->progress = 1;
        } else if (strcmp(argv[i], "--no-progress") == 0) {
            a->progress = -1;
        } else if (a->path == NULL && argv[i][0] != '-') {
            a->path = argv[i];
        } else {
            return ctl_usage(c, "unexpected argument '%s'", argv[i]);
        }
    }
    if (a->path == NULL || !a->have_lba || a->file == NULL || (!write && !a->have_count))
        return ctl_usage(c, "missing %s", a->path == NULL ? "the device path" : !a->have_lba ? "--lba N" : a->file == NULL ? (write ? "-i FILE" : "-o FILE") : "--count N");
    if (!write && strcmp(a->file, "-") == 0 && c->json)
        return ctl_err(c, CTL_EUSAGE, "read: --json and -o - would share stdout");
    return ctl_parse_path(c, a->path, &a->t, &a->l, true);
}

static int setup(ctl *c, io_args *a, uint32_t *bs, uint32_t *chunk)
{
    uint64_t blocks;
    int rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, a->t, a->l, NULL);
    if (rc == 0)
        rc = ctl_capacity(c, a->t, a->l, &blocks, bs);
    if (rc != 0)
        return rc;
    if (a->lba >= blocks || a->count > blocks - a->lba)
        return ctl_err(c, CTL_ELBA, "blocks %llu..%llu are beyond the last block of %u:%u (%llu)",
                       (unsigned long long)a->lba, (unsigned long long)(a->lba + a->count - 1), a->t,
                       a->l, (unsigned long long)(blocks - 1));
    pcam_ccb pi;
    memset(&pi, 0, sizeof pi);
    pi.func = PCAM_FN_PATH_INQ;
    uint32_t max = CHUNK_BYTES;
    if (ctl_sync(c, &pi, 1000) == PCAM_REQ_CMP && pi.u.pathinq.max_xfer != 0 && pi.u.pathinq.max_xfer < max)
        max = pi.u.pathinq.max_xfer;
    *chunk = max / *bs != 0 ? max / *bs : 1;
    return 0;
}

/* The text naming one READ or WRITE command in messages. */
static void xfer_what(const io_args *a, bool write, uint64_t lba, uint32_t n, char *what, size_t cap)
{
    unsigned size = lba + n - 1 > 0xFFFFFFFFull ? 16 : 10;
    snprintf(what, cap, "%s(%u) of %u block%s at LBA %llu on %u:%u", write ? "WRITE" : "READ", size, n,
             n == 1 ? "" : "s", (unsigned long long)lba, a->t, a->l);
}

/* One READ or WRITE of n blocks; (10) while the LBA fits 32 bits, else
 * (16). True when every byte moved; *io says what happened. Prints nothing. */
static bool xfer_run(ctl *c, const io_args *a, bool write, uint64_t lba, uint32_t n, uint8_t *buf, uint32_t bs,
                     ctl_io *io)
{
    uint8_t cdb[16];
    unsigned size = lba + n - 1 > 0xFFFFFFFFull ? 16 : 10;
    int len = write ? pcam_cdb_write(cdb, sizeof cdb, size, lba, n, 0)
                    : pcam_cdb_read(cdb, sizeof cdb, size, lba, n, 0);
    if (len < 0) {
        memset(io, 0, sizeof *io);
        io->status = 0xFFFFFFFFu;
        return false;
    }
    ctl_io_init(io, a->t, a->l, cdb, len, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * bs);
    /* SIMPLE tags, as a disk driver sends them; the core sends the command
     * untagged to a LU that does not queue. */
    io->ccb.flags |= PCAM_CCB_TAGGED;
    io->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    return ctl_io_run(c, io) == PCAM_REQ_CMP && io->ccb.u.io.resid == 0;
}

/* Say why a command failed (a residual on a GOOD status, or the failure). */
static int xfer_fail(ctl *c, const io_args *a, bool write, uint64_t lba, uint32_t n, const ctl_io *io,
                     const ctl_partial *part)
{
    char what[96];
    xfer_what(a, write, lba, n, what, sizeof what);
    if (io->status == PCAM_REQ_CMP)
        return ctl_err(c, CTL_ESANITY, "%s: %u bytes not transferred", what, (unsigned)io->ccb.u.io.resid);
    return ctl_io_fail_at(c, what, io, part);
}

static int transfer(ctl *c, const io_args *a, bool write, uint64_t lba, uint32_t n, uint8_t *buf,
                    uint32_t bs)
{
    ctl_io io;
    if (xfer_run(c, a, write, lba, n, buf, bs, &io))
        return 0;
    return xfer_fail(c, a, write, lba, n, &io, NULL);
}

/* A READ of n blocks at lba failed (*io): find how many of its first blocks
 * are good, as sg_dd does, so that they are kept. The sense's INFORMATION
 * names the bad block when it is valid; else each block is read alone up to
 * the first that fails (a one-block READ has nothing to split: it is not
 * sent again). Only a CHECK CONDITION is worth it: a hang or a bus
 * failure would only repeat. Returns the good blocks (read into buf), the
 * first bad block in *bad_lba and the failing command in *io (its LBA and
 * length in *cmd_lba, *cmd_n). */
static uint32_t salvage(ctl *c, const io_args *a, uint64_t lba, uint32_t n, uint8_t *buf, uint32_t bs, ctl_io *io,
                        uint64_t *bad_lba, uint64_t *cmd_lba, uint32_t *cmd_n)
{
    *bad_lba = *cmd_lba = lba;
    *cmd_n = n;
    if (io->status == 0xFFFFFFFFu || (io->status & PCAM_STATUS_MASK) != PCAM_SCSI_STATUS_ERROR ||
        io->ccb.u.io.scsi_status != 0x02 || !(io->status & PCAM_AUTOSNS_VALID))
        return 0;
    pcam_sense s;
    ctl_io probe;
    size_t sn = (size_t)(io->ccb.u.io.sense_len - io->ccb.u.io.sense_resid);
    if (pcam_sense_decode(io->sense, sn, &s) == PCAM_OK && s.info_valid && s.info >= lba && s.info < lba + n) {
        uint32_t good = (uint32_t)(s.info - lba);
        if (good == 0 || xfer_run(c, a, false, lba, good, buf, bs, &probe)) {
            *bad_lba = s.info;
            return good;
        }
    }
    /* One block is already the finest split: reading it again would send
     * the failed command twice (and run the core's retries twice). */
    if (n == 1)
        return 0;
    uint32_t k = 0;
    for (; k < n; k++) {
        if (!xfer_run(c, a, false, lba + k, 1, buf + (size_t)k * bs, bs, &probe)) {
            *io = probe;
            break;
        }
    }
    *bad_lba = *cmd_lba = lba + k;
    *cmd_n = 1;
    return k;
}

static void report(ctl *c, const io_args *a, const char *what, uint32_t bs, bool data_on_stdout, meter *m,
                   uint64_t commands)
{
    bool write = strcmp(what, "write") == 0, verify = strcmp(what, "verify") == 0;
    if (c->json) {
        j_obj(NULL);
        j_u64("target", a->t);
        j_u64("lun", a->l);
        j_u64("lba", a->lba);
        j_u64("blocks", a->count);
        j_u64("block_size", bs);
        j_u64("bytes", a->count * bs);
        if (!verify)
            j_str("file", a->file);
        meter_end(c, m, a->count * bs, commands);
        j_end_obj();
        j_done();
        return;
    }
    if (verify)
        printf("verified %llu block%s (%llu bytes) of %u:%u LBA %llu..%llu: no error\n",
               (unsigned long long)a->count, a->count == 1 ? "" : "s", (unsigned long long)(a->count * bs), a->t,
               a->l, (unsigned long long)a->lba, (unsigned long long)(a->lba + a->count - 1));
    else
        fprintf(data_on_stdout ? stderr : stdout,
                "%s %llu block%s (%llu bytes) %s %u:%u LBA %llu..%llu %s %s\n", write ? "wrote" : "read",
                (unsigned long long)a->count, a->count == 1 ? "" : "s", (unsigned long long)(a->count * bs),
                write ? "to" : "from", a->t, a->l, (unsigned long long)a->lba,
                (unsigned long long)(a->lba + a->count - 1), write ? "from" : "to", a->file);
    meter_end(c, m, a->count * bs, commands);
}

int cmd_read(ctl *c, int argc, char **argv)
{
    io_args a;
    uint32_t bs, chunk;
    meter m;
    int rc = parse_io(c, false, argc, argv, &a);
    if (rc == 0)
        rc = setup(c, &a, &bs, &chunk);
    if (rc != 0)
        return rc;
    bool to_stdout = strcmp(a.file, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(a.file, "wb");
    if (f == NULL)
        return ctl_err(c, CTL_EFILE, "cannot create %s: %s", a.file, strerror(errno));
    uint8_t *buf = malloc((size_t)chunk * bs);
    if (buf == NULL) {
        if (!to_stdout)
            fclose(f);
        return ctl_err(c, CTL_EOTHER, "out of memory");
    }
    meter_start(c, &m, a.progress, "read", a.count * bs);
    /* What was read is kept: on a failed READ the blocks before the bad one
     * are read again on their own and written out, and the failure says how
     * many blocks are good and where the error is. */
    ctl_io io;
    ctl_partial part;
    memset(&part, 0, sizeof part);
    uint64_t done = 0;
    bool failed = false;
    while (rc == 0 && done < a.count) {
        uint32_t n = a.count - done < chunk ? (uint32_t)(a.count - done) : chunk, good = n;
        uint64_t bad_lba = a.lba + done, cmd_lba = a.lba + done;
        uint32_t cmd_n = n;
        if (!xfer_run(c, &a, false, a.lba + done, n, buf, bs, &io)) {
            failed = true;
            good = io.status == PCAM_REQ_CMP ? 0 : salvage(c, &a, a.lba + done, n, buf, bs, &io, &bad_lba, &cmd_lba, &cmd_n);
        }
        if (good != 0 && fwrite(buf, bs, good, f) != good) {
            rc = ctl_err(c, CTL_EFILE, "writing %s failed: %s", to_stdout ? "standard output" : a.file,
                         strerror(errno));
            c->stdout_failed = to_stdout;
        }
        done += good;
        if (rc == 0 && failed) {
            part.valid = true;
            part.good_blocks = done;
            part.error_lba = bad_lba;
            part.file = a.file;
            rc = xfer_fail(c, &a, false, cmd_lba, cmd_n, &io, &part);
        }
        if (rc == 0)
            meter_tick(&m, done * bs);
    }
    free(buf);
    if (!to_stdout && fclose(f) != 0 && (rc == 0 || failed))
        rc = ctl_err(c, CTL_EFILE, "writing %s failed: %s", a.file, strerror(errno));
    if (to_stdout && fflush(stdout) != 0 && (rc == 0 || failed)) {
        rc = ctl_err(c, CTL_EFILE, "writing standard output failed: %s", strerror(errno));
        c->stdout_failed = true;
    }
    if (failed && part.valid) {
        if (done == 0)
            ctl_err(c, rc, "read: no good block before the error at LBA %llu; %s holds nothing",
                    (unsigned long long)part.error_lba, to_stdout ? "standard output" : a.file);
        else
            ctl_err(c, rc, "read: %llu good block%s (LBA %llu..%llu, %llu bytes) %s in %s; the error is at LBA %llu",
                    (unsigned long long)done, done == 1 ? "" : "s", (unsigned long long)a.lba,
                    (unsigned long long)(a.lba + done - 1), (unsigned long long)(done * bs),
                    done == 1 ? "is" : "are", to_stdout ? "standard output" : a.file,
                    (unsigned long long)part.error_lba);
    }
    if (rc == 0)
        report(c, &a, "read", bs, to_stdout, &m, 0);
    return rc;
}

int cmd_write(ctl *c, int argc, char **argv)
{
    io_args a;
    uint32_t bs, chunk;
    meter m;
    int rc = parse_io(c, true, argc, argv, &a);
    if (rc != 0)
        return rc;
    if (strcmp(a.file, "-") == 0 && !a.have_count)
        return ctl_usage(c, "reading stdin needs --count");
    FILE *f = strcmp(a.file, "-") == 0 ? stdin : fopen(a.file, "rb");
    if (f == NULL)
        return ctl_err(c, CTL_EFILE, "cannot open %s: %s", a.file, strerror(errno));
    /* Size the transfer before touching the device, so a bad file writes
     * nothing. Only a regular file has a size; a pipe or a device needs
     * --count, a directory is no data at all. */
    long size = -1;
    struct stat st;
    if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return ctl_err(c, CTL_EFILE, "%s is a directory, not a file of blocks", a.file);
    }
    if (f != stdin && S_ISREG(st.st_mode) && fseek(f, 0, SEEK_END) == 0) {
        size = ftell(f);
        rewind(f);
    }
    if (size < 0 && !a.have_count) {
        if (f != stdin)
            fclose(f);
        return ctl_usage(c, "%s has no size to take the block count from: give --count", a.file);
    }
    if (!a.have_count) {
        a.count = 1; /* for setup's range check; fixed below */
    }
    rc = setup(c, &a, &bs, &chunk);
    if (rc == 0 && !a.have_count) {
        if (size <= 0 || (uint64_t)size % bs != 0) {
            rc = ctl_err(c, CTL_EUSAGE, "%s is %ld bytes, not a whole number of %u-byte blocks (give --count)",
                         a.file, size, bs);
        } else {
            a.count = (uint64_t)size / bs;
            uint64_t blocks;
            uint32_t bs2;
            rc = ctl_capacity(c, a.t, a.l, &blocks, &bs2);
            if (rc == 0 && a.count > blocks - a.lba)
                rc = ctl_err(c, CTL_ELBA, "%s needs %llu blocks; only %llu fit from LBA %llu", a.file,
                             (unsigned long long)a.count, (unsigned long long)(blocks - a.lba),
                             (unsigned long long)a.lba);
        }
    } else if (rc == 0 && size >= 0 && (uint64_t)size < a.count * bs) {
        rc = ctl_err(c, CTL_EUSAGE, "%s holds %ld bytes; --count %llu needs %llu", a.file, size,
                     (unsigned long long)a.count, (unsigned long long)(a.count * bs));
    }
    uint8_t *buf = rc == 0 ? malloc((size_t)chunk * bs) : NULL;
    if (rc == 0 && buf == NULL)
        rc = ctl_err(c, CTL_EOTHER, "out of memory");
    meter_start(c, &m, a.progress, "write", a.count * bs);
    for (uint64_t done = 0; rc == 0 && done < a.count;) {
        uint32_t n = a.count - done < chunk ? (uint32_t)(a.count - done) : chunk;
        if (fread(buf, bs, n, f) != n) {
            rc = ctl_err(c, CTL_EFILE, "%s ended before %llu blocks", a.file, (unsigned long long)a.count);
            break;
        }
        rc = transfer(c, &a, true, a.lba + done, n, buf, bs);
        done += n;
        if (rc == 0)
            meter_tick(&m, done * bs);
    }
    free(buf);
    if (f != stdin)
        fclose(f);
    if (rc == 0)
        report(c, &a, "write", bs, false, &m, 0);
    return rc;
}

/* VERIFY(10) (16 past 32-bit LBAs) with BYTCHK 0: the device checks the
 * medium, no data moves. Without --lba/--count: the whole medium. */
int cmd_verify(ctl *c, int argc, char **argv)
{
    io_args a;
    uint32_t bs, chunk;
    uint64_t blocks;
    meter m;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--lba") == 0) {
            if (!ctl_parse_u64(v, &a.lba))
                return ctl_usage(c, "bad --lba '%s' (a block number: decimal, or hex after 0x)", v);
            a.have_lba = true;
            i++;
        } else if (strcmp(argv[i], "--count") == 0) {
            if (!ctl_parse_u64(v, &a.count) || a.count == 0)
                return ctl_usage(c, "bad --count '%s' (1 or more blocks)", v);
            a.have_count = true;
            i++;
        } else if (strcmp(argv[i], "--progress") == 0) {
            a.progress = 1;
        } else if (strcmp(argv[i], "--no-progress") == 0) {
            a.progress = -1;
        } else if (a.path == NULL) {
            a.path = argv[i];
        } else {
            return ctl_usage(c, "unexpected argument '%s'", argv[i]);
        }
    }
    int rc = ctl_parse_path(c, a.path, &a.t, &a.l, true);
    if (rc == 0)
        rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, a.t, a.l, NULL);
    if (rc == 0)
        rc = ctl_capacity(c, a.t, a.l, &blocks, &bs);
    if (rc != 0)
        return rc;
    if (!a.have_count)
        a.count = a.lba < blocks ? blocks - a.lba : 1;
    rc = setup(c, &a, &bs, &chunk);
    if (rc != 0)
        return rc;
    /* No data moves: a command may cover up to 0xFFFF blocks (VERIFY(10)'s limit). */
    meter_start(c, &m, a.progress, "verify", a.count * bs);
    uint64_t ncmd = 0;
    for (uint64_t done = 0; done < a.count; ncmd++) {
        uint32_t n = a.count - done < 0xFFFFu ? (uint32_t)(a.count - done) : 0xFFFFu;
        uint64_t lba = a.lba + done;
        uint8_t cdb[16];
        ctl_io io;
        int len = pcam_cdb_verify(cdb, sizeof cdb, lba + n - 1 > 0xFFFFFFFFull ? 16 : 10, lba, n, 0);
        if (len < 0)
            return ctl_err(c, CTL_EOTHER, "cannot build the CDB: %s", pcam_strerror(len));
        ctl_io_init(&io, a.t, a.l, cdb, len, PCAM_DIR_NONE, NULL, 0);
        io.ccb.timeout_ms = 60000;
        if (ctl_io_run(c, &io) != PCAM_REQ_CMP) {
            char what[96];
            snprintf(what, sizeof what, "VERIFY of %u blocks at LBA %llu on %u:%u", n, (unsigned long long)lba,
                     a.t, a.l);
            return ctl_io_fail(c, what, &io);
        }
        done += n;
        meter_tick(&m, done * bs);
    }
    report(c, &a, "verify", bs, false, &m, ncmd);
    return 0;
}
