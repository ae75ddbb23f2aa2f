/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench: a workload generator over the simulated bus. It prints figures
 * (simulated IOPS and MB/s, bus utilisation as a share of the modelled
 * bandwidth, per-target share, latency percentiles, and host time per
 * command); it asserts nothing. Instructions per command spent in core/ are
 * measured by scripts/bench.sh under callgrind, which counts only inside
 * bench_steady_state(). Results can also go to files for plotting
 * (bench/plots.sh): --csv appends a summary row, --series-csv writes the
 * per-target completions per interval, --latency-csv the latency
 * histogram, --json-file all of it as one JSON document.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"
#include "pcambench.h"
#include "soak.h"
#include "simrig.h"

enum pattern { PAT_RAND4K, PAT_SEQ32K, PAT_FILESERVER, PAT_MIXED };

typedef struct opts {
    unsigned targets, depth;
    enum pattern pattern;
    const char *pattern_name;
    uint8_t period;       /* period factor of the bus */
    bool wide, dt, polled, aging, json;
    double seconds;
    uint64_t commands;    /* stop after this many (0: by time) */
    uint64_t warmup;
    uint32_t disk_mb;
    uint64_t seed;
    uint32_t starve_ms, age_ms;
    uint32_t timeout_ms;  /* the bus's default_timeout_ms (0: the core's default) */
    enum pcambench_disk disk;
    /* result files (see "Result files" below) */
    const char *csv, *series_csv, *latency_csv, *json_file;
    uint32_t interval_ms;
} opts;

typedef struct summary {
    double sim_s, iops, mbps, util, busy, share, host_ns;
    uint32_t p50, p99, pmax;
} summary;

typedef struct job {
    rig_ccb rc;
    struct bench *b;
    unsigned target;
    uint8_t *buf;
} job;

typedef struct bench {
    opts o;
    simrig r;
    job *jobs;
    uint64_t rng;
    uint64_t next_seq[PCAM_SIM_MAX_IDS];
    uint64_t done, done_measured, errors, timeouts;
    uint64_t worst_wait_ns; /* longest submit-to-completion while measuring */
    uint64_t per_target[PCAM_SIM_MAX_IDS];
    uint64_t bytes;
    uint32_t *lat_us;
    uint64_t lat_n, lat_cap;
    uint64_t measure_start_ns;
    bool measuring, stop;
    uint64_t disk_blocks;
    /* completions per target per interval of interval_ms, while measuring */
    uint32_t *series;
    uint64_t series_n, series_cap;
    /* chip events the core fetched (hal_counting_poll), and at the start of measuring */
    pcam_hal_ops counting_ops;
    uint64_t events, events_at_start;
    summary m;  /* the figures of the run (bench_run) */
    double bw;  /* the bus's modelled bandwidth, bytes per second */
} bench;

/* The chip's events as the core fetches them, counted. Named hal_* so the
 * instruction count of scripts/bench.sh leaves it out with the chip; it
 * calls the simulated chip's poll itself, not the ops table's hal_poll,
 * whose own hal_* toggle would switch the count back on inside it. */
static uint64_t *event_count;
static int hal_counting_poll(void *sc, pcam_hal_event *ev)
{
    int rc = pcam_sim_i_poll(sc, ev);
    if (rc >= 1)
        (*event_count)++;
    return rc;
}

/* The same behind the command-level adapter (PCAM_SIM_LEVEL=cmd). Named
 * hal_* like the one above, so scripts/bench.sh's toggles leave it out of
 * the core's count; the adapter's poll runs inside it (collection stays
 * off) and its calls back into the core switch collection on again. */
static int (*adapter_poll)(void *sc, pcam_hal_event *ev);
static int hal_adapter_counting_poll(void *sc, pcam_hal_event *ev)
{
    int rc = adapter_poll(sc, ev);
    if (rc >= 1)
        (*event_count)++;
    return rc;
}

static void series_count(bench *b, uint64_t now, unsigned t);

/* Target IDs in use: 0, 1, ... skipping the initiator's 7. */
static uint8_t id_of(unsigned t)
{
    return (uint8_t)(t < 7u ? t : t + 1u);
}

static uint64_t rnd(bench *b)
{
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 7;
    b->rng ^= b->rng << 17;
    return b->rng;
}

static void submit(bench *b, job *j);

static void job_done(rig_ccb *rc)
{
    job *j = (job *)rc;
    bench *b = j->b;
    if ((rc->ccb.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP)
        b->errors++;
    if ((rc->ccb.status & PCAM_STATUS_MASK) == PCAM_CMD_TIMEOUT)
        b->timeouts++;
    b->done++;
    if (b->measuring) {
        uint64_t now = pcam_sim_now(b->r.sim);
        b->done_measured++;
        if (now - rc->submit_ns > b->worst_wait_ns)
            b->worst_wait_ns = now - rc->submit_ns;
        b->per_target[j->target < 7 ? j->target : j->target - 1]++;
        series_count(b, now, j->target < 7 ? j->target : j->target - 1);
        b->bytes += rc->ccb.u.io.data_len - rc->ccb.u.io.resid;
        if (b->lat_n < b->lat_cap)
            b->lat_us[b->lat_n++] = (uint32_t)((now - rc->submit_ns) / 1000u);
    } else if (b->done >= b->o.warmup) {
        b->measuring = true;
        b->measure_start_ns = pcam_sim_now(b->r.sim);
        b->events_at_start = b->events;
    }
    if (b->o.commands != 0 && b->done_measured >= b->o.commands)
        b->stop = true;
    if (!b->stop)
        submit(b, j);
}

static void submit(bench *b, job *j)
{
    uint8_t cdb[16];
    uint32_t blocks;
    uint64_t lba;
    bool write = false;
    switch (b->o.pattern) {
    case PAT_SEQ32K:
        blocks = 64;
        lba = (b->next_seq[j->target] * 64u) % (b->disk_blocks - 64u);
        b->next_seq[j->target]++;
        break;
    case PAT_FILESERVER: {
        uint64_t p = rnd(b) % 10u;
        if (p < 6) {
            blocks = 16;
            lba = rnd(b) % (b->disk_blocks - 16u);
        } else if (p < 8) {
            blocks = 128;
            lba = (b->next_seq[j->target] * 128u) % (b->disk_blocks - 128u);
            b->next_seq[j->target]++;
        } else {
            blocks = 16;
            lba = rnd(b) % (b->disk_blocks - 16u);
            write = true;
        }
        break;
    }
    case PAT_MIXED:
        blocks = 8u << (rnd(b) % 4u); /* 4, 8, 16 or 32 KiB */
        lba = rnd(b) % (b->disk_blocks - blocks);
        break;
    case PAT_RAND4K:
    default:
        blocks = 8;
        lba = rnd(b) % (b->disk_blocks - 8u);
        break;
    }
    int len = write ? pcam_cdb_write(cdb, sizeof cdb, 10, lba, blocks, 0)
                    : pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    rig_ccb_io(&j->rc, (uint8_t)j->target, 0, cdb, (uint8_t)len, write ? PCAM_DIR_OUT : PCAM_DIR_IN,
               j->buf, blocks * 512u);
    j->rc.ccb.flags = PCAM_CCB_TAGGED;
    j->rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    j->rc.on_done = job_done;
    rig_submit(&b->r, &j->rc);
}

/* The measured loop: callgrind's --toggle-collect names this function. */
__attribute__((noinline)) void bench_steady_state(bench *b, uint64_t end_ns)
{
    while (!b->stop && pcam_sim_now(b->r.sim) < end_ns)
        if (!simrig_step(&b->r))
            break;
}

static const char *const disk_names[] = {"ultra2", "1995", "fast", "cdrom"};

const char *pcambench_disk_name(enum pcambench_disk d)
{
    return (unsigned)d < sizeof disk_names / sizeof disk_names[0] ? disk_names[d] : "?";
}

int pcambench_disk_parse(const char *s)
{
    for (unsigned i = 0; i < sizeof disk_names / sizeof disk_names[0]; i++)
        if (strcmp(s, disk_names[i]) == 0)
            return (int)i;
    return -1;
}

/* The disks' mechanism. hal/sim has two models, the 1995 7,200 rpm disk
 * and the 1995 quad-speed CD-ROM (here on a disk that queues, so the core
 * meets its timing under tags); the bench adds two variants of the disk. */
static void set_timing(pcam_simlu_timing *tm, enum pcambench_disk d)
{
    pcam_simlu_default_timing(tm);
    switch (d) {
    case PCAMBENCH_DISK_1995:
        break;
    case PCAMBENCH_DISK_CDROM:
        pcam_simlu_cdrom_timing(tm);
        break;
    case PCAMBENCH_DISK_FAST:
        /* Disks that each stream far faster than a quarter of a Fast-10
         * bus even on random I/O: the bus is the bottleneck, which is
         * when arbitration by ID starves the low IDs. */
        tm->media_kbps = 25000;
        tm->overhead_ns = 100000;
        tm->seek_min_ns = 200000;
        tm->seek_max_ns = 2000000;
        tm->rotation_ns = 2000000;
        break;
    case PCAMBENCH_DISK_ULTRA2:
    default:
        /* Disks of the Ultra2 era: they stream 25 MB/s off the media into
         * their buffer. */
        tm->media_kbps = 25000;
        break;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static const char *prog = "pcambench";

static int usage(void)
{
    fprintf(stderr,
            "usage: %s [--targets N] [--depth D] [--pattern rand4k|seq32k|fileserver|mixed]\n"
            "                 [--bus fast10|fast20|ultra2|ultra160] [--narrow] [--seconds S]\n"
            "                 [--commands N] [--disk-mb M] [--seed X] [--no-aging] [--polled] [--json]\n"
            "                 [--starve-ms MS] [--age-ms MS]   (override the aging settings)\n"
            "                 [--disk ultra2|1995|fast|cdrom]   (the disks' mechanism, default ultra2)\n"
            "                 [--fast-disks]   (= --disk fast: the bus, not the disks, is the bottleneck)\n"
            "                 [--timeout-ms MS]   (the bus's default command timeout, default 30000)\n"
            "                 [--csv FILE] [--series-csv FILE] [--interval-ms MS] [--latency-csv FILE]\n"
            "                 [--json-file FILE]   (results for plotting: bench/plots.sh)\n"
            "       %s --qemu [--chip am53c974|lsi53c895a|mptsas1068|virtio-scsi] [--seconds S] [--commands N] [--image FILE]\n"
            "                 [--bounce] [--scripts] [--record FILE] [--json]\n"
            "                 (random reads on a QEMU controller; --qemu --help for more)\n"
            "       %s --sweep [--short] [--seeds N] [--seconds S] ...   (the fairness sweep; --sweep --help)\n",
            prog, prog, prog);
    return 2;
}

static int parse(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->targets = 4;
    o->depth = 32;
    o->pattern = PAT_RAND4K;
    o->pattern_name = "rand4k";
    o->period = 0x0C;
    o->wide = true;
    o->aging = true;
    o->seconds = 10.0;
    o->warmup = 256;
    o->disk_mb = 64;
    o->seed = 1;
    o->interval_ms = 1000;
    o->timeout_ms = 30000;
    o->disk = PCAMBENCH_DISK_ULTRA2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--targets") == 0 && v) { o->targets = (unsigned)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--depth") == 0 && v) { o->depth = (unsigned)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--seconds") == 0 && v) { o->seconds = strtod(v, NULL); i++; }
        else if (strcmp(a, "--commands") == 0 && v) { o->commands = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--disk-mb") == 0 && v) { o->disk_mb = (uint32_t)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--seed") == 0 && v) { o->seed = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--starve-ms") == 0 && v) { o->starve_ms = (uint32_t)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--age-ms") == 0 && v) { o->age_ms = (uint32_t)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--timeout-ms") == 0 && v) { o->timeout_ms = (uint32_t)strtoul(v, NULL, 0); i++; }
        else if (strcmp(a, "--disk") == 0 && v) {
            int d = pcambench_disk_parse(v);
            if (d < 0)
                return usage();
            o->disk = (enum pcambench_disk)d;
            i++;
        }
        else if (strcmp(a, "--csv") == 0 && v) { o->csv = v; i++; }
        else if (strcmp(a, "--series-csv") == 0 && v) { o->series_csv = v; i++; }
        else if (strcmp(a, "--latency-csv") == 0 && v) { o->latency_csv = v; i++; }
        else if (strcmp(a, "--json-file") == 0 && v) { o->json_file = v; i++; }
        else if (strcmp(a, "--interval-ms") == 0 && v) {
            char *end;
            unsigned long ms = strtoul(v, &end, 10);
            if (*v == '\0' || *end != '\0' || ms == 0 || ms > 3600000ul) {
                fprintf(stderr, "%s: --interval-ms takes 1..3600000, not '%s'\n", prog, v);
                return 2;
            }
            o->interval_ms = (uint32_t)ms;
            i++;
        }
        else if (strcmp(a, "--pattern") == 0 && v) {
            o->pattern_name = v;
            if (strcmp(v, "rand4k") == 0) o->pattern = PAT_RAND4K;
            else if (strcmp(v, "seq32k") == 0) o->pattern = PAT_SEQ32K;
            else if (strcmp(v, "fileserver") == 0) o->pattern = PAT_FILESERVER;
            else if (strcmp(v, "mixed") == 0) o->pattern = PAT_MIXED;
            else return usage();
            i++;
        } else if (strcmp(a, "--bus") == 0 && v) {
            if (strcmp(v, "fast10") == 0) o->period = 0x19;
            else if (strcmp(v, "fast20") == 0) o->period = 0x0C;
            else if (strcmp(v, "ultra2") == 0) o->period = 0x0A;
            else if (strcmp(v, "ultra160") == 0) { o->period = 0x09; o->dt = true; }
            else return usage();
            i++;
        } else if (strcmp(a, "--narrow") == 0) o->wide = false;
        else if (strcmp(a, "--no-aging") == 0) o->aging = false;
        else if (strcmp(a, "--fast-disks") == 0) o->disk = PCAMBENCH_DISK_FAST;
        else if (strcmp(a, "--polled") == 0) o->polled = true;
        else if (strcmp(a, "--json") == 0) o->json = true;
        else return usage();
    }
    unsigned max_t = o->wide ? 15 : 7;
    if (o->targets == 0 || o->targets > max_t || o->depth == 0 || o->depth > 255 || o->disk_mb == 0) {
        fprintf(stderr, "%s: targets must be 1..%u, depth 1..255, disk-mb > 0\n", prog, max_t);
        return 2;
    }
    return 0;
}

/* ---- Result files (--csv, --series-csv, --latency-csv, --json-file) ----
 * For bench/plots.sh and anyone who wants the numbers in a spreadsheet. The
 * figures are the ones printed; nothing here changes the run. */

static void series_count(bench *b, uint64_t now, unsigned t)
{
    uint64_t k = (now - b->measure_start_ns) / ((uint64_t)b->o.interval_ms * 1000000u);
    size_t w = b->o.targets;
    if (b->o.series_csv == NULL && b->o.json_file == NULL)
        return;
    if (k >= b->series_cap) {
        uint64_t cap = b->series_cap ? b->series_cap : 64;
        while (cap <= k)
            cap *= 2;
        uint32_t *n = realloc(b->series, (size_t)cap * w * sizeof *n);
        if (n == NULL)
            return; /* the series is best effort; the summary stays exact */
        memset(n + b->series_cap * w, 0, (size_t)(cap - b->series_cap) * w * sizeof *n);
        b->series = n;
        b->series_cap = cap;
    }
    b->series[k * w + t]++;
    if (k + 1 > b->series_n)
        b->series_n = k + 1;
}

/* Latency histogram in quarter-octave buckets from 1 us (each edge 2^(1/4)
 * times the last), over the sorted latencies. Calls out(lo, hi, count). */
static void latency_hist(const bench *b, void (*out)(void *, uint32_t, uint32_t, uint64_t), void *arg)
{
    double edge = 1.0;
    uint64_t i = 0;
    while (i < b->lat_n) {
        double next = edge * 1.18920711500272106672;
        uint32_t lo = (uint32_t)(edge + 0.5), hi = (uint32_t)(next + 0.5);
        uint64_t n = 0;
        while (i < b->lat_n && (double)b->lat_us[i] < next) {
            n++;
            i++;
        }
        if (n != 0 || (i > 0 && i < b->lat_n))
            out(arg, lo, hi > lo ? hi : lo + 1, n);
        edge = next;
    }
}

typedef struct hist_ctx {
    FILE *f;
    uint64_t total, cum;
    bool first;
} hist_ctx;

static void hist_csv_row(void *arg, uint32_t lo, uint32_t hi, uint64_t n)
{
    hist_ctx *h = arg;
    h->cum += n;
    fprintf(h->f, "%u,%u,%" PRIu64 ",%.6f,%.6f\n", lo, hi, n, (double)n / (double)h->total,
            1.0 - (double)h->cum / (double)h->total);
}

static void hist_json_row(void *arg, uint32_t lo, uint32_t hi, uint64_t n)
{
    hist_ctx *h = arg;
    fprintf(h->f, "%s[%u,%u,%" PRIu64 "]", h->first ? "" : ",", lo, hi, n);
    h->first = false;
}

static FILE *open_out(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (f == NULL)
        fprintf(stderr, "%s: cannot write %s\n", prog, path);
    return f;
}

/* Returns 0, or 1 when a file could not be written. */
static int write_results(bench *b, const summary *m)
{
    const opts *o = &b->o;
    int rc = 0;
    FILE *f;
    if (o->csv != NULL && (f = open_out(o->csv, "a")) != NULL) {
        if (ftell(f) == 0)
            fprintf(f, "pattern,targets,depth,outstanding,period,wide,aging,sim_seconds,commands,errors,"
                       "iops,mbps,bus_utilisation,bus_busy,min_max_share,lat_us_p50,lat_us_p99,"
                       "lat_us_max,host_ns_per_cmd\n");
        fprintf(f, "%s,%u,%u,%u,%u,%d,%d,%.3f,%" PRIu64 ",%" PRIu64 ",%.1f,%.2f,%.4f,%.4f,%.4f,%u,%u,%u,%.1f\n",
                o->pattern_name, o->targets, o->depth, o->targets * o->depth, o->period, o->wide,
                o->aging, m->sim_s, b->done_measured, b->errors, m->iops, m->mbps, m->util, m->busy,
                m->share, m->p50, m->p99, m->pmax, m->host_ns);
        rc |= fclose(f) != 0;
    } else if (o->csv != NULL) {
        rc = 1;
    }
    if (o->series_csv != NULL && (f = open_out(o->series_csv, "w")) != NULL) {
        fprintf(f, "t_s,total");
        for (unsigned t = 0; t < o->targets; t++)
            fprintf(f, ",count_id%u", id_of(t));
        for (unsigned t = 0; t < o->targets; t++)
            fprintf(f, ",share_id%u", id_of(t));
        fprintf(f, "\n");
        for (uint64_t k = 0; k < b->series_n; k++) {
            const uint32_t *row = b->series + k * o->targets;
            uint64_t total = 0;
            for (unsigned t = 0; t < o->targets; t++)
                total += row[t];
            fprintf(f, "%.3f,%" PRIu64, (double)(k + 1) * o->interval_ms / 1000.0, total);
            for (unsigned t = 0; t < o->targets; t++)
                fprintf(f, ",%u", row[t]);
            for (unsigned t = 0; t < o->targets; t++)
                fprintf(f, ",%.4f", total ? (double)row[t] / (double)total : 0.0);
            fprintf(f, "\n");
        }
        rc |= fclose(f) != 0;
    } else if (o->series_csv != NULL) {
        rc = 1;
    }
    if (o->latency_csv != NULL && (f = open_out(o->latency_csv, "w")) != NULL) {
        hist_ctx h = {f, b->lat_n ? b->lat_n : 1, 0, true};
        fprintf(f, "lat_us_lo,lat_us_hi,count,fraction,fraction_above\n");
        latency_hist(b, hist_csv_row, &h);
        rc |= fclose(f) != 0;
    } else if (o->latency_csv != NULL) {
        rc = 1;
    }
    if (o->json_file != NULL && (f = open_out(o->json_file, "w")) != NULL) {
        fprintf(f, "{\"pattern\":\"%s\",\"targets\":%u,\"depth\":%u,\"outstanding\":%u,\"period\":%u,"
                   "\"wide\":%s,\"dt\":%s,\"aging\":%s,\"sim_seconds\":%.3f,\"commands\":%" PRIu64 ","
                   "\"errors\":%" PRIu64 ",\"iops\":%.1f,\"mbps\":%.2f,\"bus_utilisation\":%.4f,"
                   "\"bus_busy\":%.4f,\"min_max_share\":%.4f,\"lat_us_p50\":%u,\"lat_us_p99\":%u,"
                   "\"lat_us_max\":%u,\"host_ns_per_cmd\":%.1f,\"target_ids\":[",
                o->pattern_name, o->targets, o->depth, o->targets * o->depth, o->period,
                o->wide ? "true" : "false", o->dt ? "true" : "false", o->aging ? "true" : "false",
                m->sim_s, b->done_measured, b->errors, m->iops, m->mbps, m->util, m->busy, m->share,
                m->p50, m->p99, m->pmax, m->host_ns);
        for (unsigned t = 0; t < o->targets; t++)
            fprintf(f, "%s%u", t ? "," : "", id_of(t));
        fprintf(f, "],\"per_target\":[");
        for (unsigned t = 0; t < o->targets; t++)
            fprintf(f, "%s%" PRIu64, t ? "," : "", b->per_target[t]);
        fprintf(f, "],\"interval_ms\":%u,\"series\":[", o->interval_ms);
        for (uint64_t k = 0; k < b->series_n; k++) {
            fprintf(f, "%s[", k ? "," : "");
            for (unsigned t = 0; t < o->targets; t++)
                fprintf(f, "%s%u", t ? "," : "", b->series[k * o->targets + t]);
            fprintf(f, "]");
        }
        fprintf(f, "],\"latency_hist_us\":[");
        hist_ctx h = {f, 1, 0, true};
        latency_hist(b, hist_json_row, &h);
        fprintf(f, "]}\n");
        rc |= fclose(f) != 0;
    } else if (o->json_file != NULL) {
        rc = 1;
    }
    return rc;
}

/* Build the bus, scan, warm up and measure; the figures land in b->m and
 * the counters of b. Returns 0, or 1 when the bus could not be built. */
static int bench_run(bench *b)
{
    opts *o = &b->o;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = o->wide ? 16 : 8;
    sc.seed = o->seed;
    sc.cap_min_period = o->period;
    sc.cap_max_offset = 31;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.aging_enabled = o->aging;
    if (o->starve_ms != 0)
        bc.bus_starve_ms = o->starve_ms;
    if (o->age_ms != 0)
        bc.age_ms = o->age_ms;
    if (o->depth > bc.tag_depth_max)
        bc.tag_depth_max = (uint16_t)o->depth;
    bc.tag_depth = (uint16_t)o->depth;
    if (bc.tag_depth_floor > bc.tag_depth)
        bc.tag_depth_floor = bc.tag_depth;
    if (o->timeout_ms != 0)
        bc.default_timeout_ms = o->timeout_ms;
    if (simrig_init(&b->r, &sc, &bc, o->polled) != 0) {
        fprintf(stderr, "pcambench: cannot build the simulated bus\n");
        return 1;
    }
    b->r.check_every = 0;
    b->r.lazy_deadline = true;
    event_count = &b->events;
    adapter_poll = b->r.bus.hal.ops->poll;
    b->counting_ops = *b->r.bus.hal.ops;
    b->counting_ops.poll = b->r.cmd != NULL ? hal_adapter_counting_poll : hal_counting_poll;
    b->r.bus.hal.ops = &b->counting_ops;
    b->disk_blocks = (uint64_t)o->disk_mb * 2048u;
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.min_period = o->period;
    tc.max_offset = 31;
    tc.wide = o->wide;
    tc.ppr = o->dt ? PCAM_SIM_NEGO_ACCEPT : PCAM_SIM_NEGO_REJECT;
    tc.ppr_options = o->dt ? PCAM_PPR_DT_REQ : 0;
    tc.ua_power_on = false;
    /* The disks disconnect while the mechanism works, reconnecting to burst
     * at bus speed (the disconnect-reconnect page's buffer ratios). */
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    for (unsigned t = 0; t < o->targets; t++) {
        if (simrig_add_disk(&b->r, id_of(t), 0, b->disk_blocks, &tc) == NULL) {
            fprintf(stderr, "pcambench: out of memory for %u MiB disks\n", o->disk_mb);
            return 1;
        }
        set_timing(&pcam_sim_lu(b->r.sim, id_of(t), 0)->timing, o->disk);
    }
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    if (rig_sync(&b->r, &scan, RIG_S(60)) != PCAM_REQ_CMP) {
        fprintf(stderr, "pcambench: scan failed\n");
        return 1;
    }
    b->rng = o->seed * 0x9E3779B97F4A7C15ull + 1;
    b->lat_cap = 4u << 20;
    b->lat_us = malloc(b->lat_cap * sizeof *b->lat_us);
    b->jobs = calloc((size_t)o->targets * o->depth, sizeof *b->jobs);
    if (b->lat_us == NULL || b->jobs == NULL)
        return 1;
    for (unsigned t = 0; t < o->targets; t++)
        for (unsigned d = 0; d < o->depth; d++) {
            job *j = &b->jobs[t * o->depth + d];
            j->b = b;
            j->target = id_of(t);
            j->buf = malloc(128u * 512u);
            submit(b, j);
        }
    /* Warm up (negotiation, first seeks), then measure. */
    while (!b->measuring && simrig_step(&b->r))
        ;
    pcam_sim_bus_stats s0, s1;
    pcam_sim_bus_stats_get(b->r.sim, &s0);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    uint64_t end = o->commands != 0 ? UINT64_MAX
                                    : b->measure_start_ns + (uint64_t)(o->seconds * 1e9);
    bench_steady_state(b, end);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    pcam_sim_bus_stats_get(b->r.sim, &s1);

    double sim_s = (double)(pcam_sim_now(b->r.sim) - b->measure_start_ns) / 1e9;
    double wall_ns = (double)(w1.tv_sec - w0.tv_sec) * 1e9 + (double)(w1.tv_nsec - w0.tv_nsec);
    double bw = (o->wide ? 2.0 : 1.0) * (o->dt ? 2.0 : 1.0) * 1e12 /
                (double)pcam_period_factor_to_ps(o->period); /* bytes per second */
    double util = (double)(s1.data_bytes - s0.data_bytes) / (sim_s * bw);
    double busy = (double)(s1.busy_ns - s0.busy_ns) / (sim_s * 1e9);
    /* Every job is outstanding at the end (a completion resubmits it), so
     * a command that never completed counts with the wait it has so far:
     * starvation cannot hide past the end of the run. */
    for (unsigned i = 0; i < o->targets * o->depth; i++)
        if (pcam_sim_now(b->r.sim) - b->jobs[i].rc.submit_ns > b->worst_wait_ns)
            b->worst_wait_ns = pcam_sim_now(b->r.sim) - b->jobs[i].rc.submit_ns;
    qsort(b->lat_us, b->lat_n, sizeof *b->lat_us, cmp_u32);
    uint32_t p50 = b->lat_n ? b->lat_us[b->lat_n / 2] : 0;
    uint32_t p99 = b->lat_n ? b->lat_us[(b->lat_n * 99) / 100] : 0;
    uint32_t pmax = b->lat_n ? b->lat_us[b->lat_n - 1] : 0;
    uint64_t min_t = UINT64_MAX, max_t = 0;
    for (unsigned t = 0; t < o->targets; t++) {
        if (b->per_target[t] < min_t) min_t = b->per_target[t];
        if (b->per_target[t] > max_t) max_t = b->per_target[t];
    }
    b->m = (summary){sim_s, (double)b->done_measured / sim_s, (double)b->bytes / sim_s / 1e6, util, busy,
                     max_t ? (double)min_t / (double)max_t : 0.0,
                     b->done_measured ? wall_ns / (double)b->done_measured : 0.0, p50, p99, pmax};
    b->bw = bw;
    return 0;
}

static void bench_free(bench *b)
{
    b->stop = true; /* shutdown aborts what is in flight: resubmit nothing */
    if (b->r.sim != NULL)
        simrig_fini(&b->r);
    /* Free everything: pcamctl runs this as a subcommand under sanitizers. */
    if (b->jobs != NULL)
        for (unsigned i = 0; i < b->o.targets * b->o.depth; i++)
            free(b->jobs[i].buf);
    free(b->jobs);
    free(b->lat_us);
    free(b->series);
    free(b);
}

int pcambench_main(int argc, char **argv, const char *name)
{
    if (name != NULL)
        prog = name;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--qemu") == 0 || strcmp(argv[i], "--qemu-sym") == 0)
            return pcambench_qemu_main(argc, argv, prog); /* bench/pcambench_qemu.c */
    }
    bench *b = calloc(1, sizeof *b);
    if (b == NULL || parse(argc, argv, &b->o) != 0) {
        free(b);
        return 2;
    }
    if (bench_run(b) != 0) {
        bench_free(b);
        return 1;
    }
    opts *o = &b->o;
    const summary *m = &b->m;
    double sim_s = m->sim_s, util = m->util, busy = m->busy, bw = b->bw;
    double wall_ns = m->host_ns * (double)b->done_measured;
    uint32_t p50 = m->p50, p99 = m->p99, pmax = m->pmax;
    if (o->json) {
        printf("{\"pattern\":\"%s\",\"targets\":%u,\"depth\":%u,\"outstanding\":%u,\"period\":%u,"
               "\"wide\":%s,\"dt\":%s,\"aging\":%s,\"sim_seconds\":%.3f,\"commands\":%" PRIu64 ","
               "\"errors\":%" PRIu64 ",\"iops\":%.1f,\"mbps\":%.2f,\"bus_utilisation\":%.4f,"
               "\"bus_busy\":%.4f,\"min_max_share\":%.4f,\"lat_us_p50\":%u,\"lat_us_p99\":%u,"
               "\"lat_us_max\":%u,\"host_ns_per_cmd\":%.1f,\"per_target\":[",
               o->pattern_name, o->targets, o->depth, o->targets * o->depth, o->period,
               o->wide ? "true" : "false", o->dt ? "true" : "false", o->aging ? "true" : "false",
               sim_s, b->done_measured, b->errors, (double)b->done_measured / sim_s,
               (double)b->bytes / sim_s / 1e6, util, busy,
               m->share, p50, p99, pmax,
               b->done_measured ? wall_ns / (double)b->done_measured : 0.0);
        for (unsigned t = 0; t < o->targets; t++)
            printf("%s%" PRIu64, t ? "," : "", b->per_target[t]);
        printf("]}\n");
    } else {
        printf("pcambench: %s, %u targets x depth %u (%u outstanding), period 0x%02X %s%s, aging %s, %s disks\n",
               o->pattern_name, o->targets, o->depth, o->targets * o->depth, o->period,
               o->wide ? "wide" : "narrow", o->dt ? " DT" : "", o->aging ? "on" : "off",
               pcambench_disk_name(o->disk));
        printf("  simulated time      %.3f s, %" PRIu64 " commands, %" PRIu64 " errors (%" PRIu64 " timeouts)\n",
               sim_s, b->done_measured, b->errors, b->timeouts);
        printf("  worst wait          %.3f s (%.1f%% of the %u ms command timeout)\n",
               (double)b->worst_wait_ns / 1e9, (double)b->worst_wait_ns / 1e4 / (double)b->r.bus.cfg.default_timeout_ms,
               (unsigned)b->r.bus.cfg.default_timeout_ms);
        printf("  throughput          %.1f IOPS, %.2f MB/s\n", (double)b->done_measured / sim_s,
               (double)b->bytes / sim_s / 1e6);
        printf("  bus utilisation     %.1f%% of %.1f MB/s modelled (bus busy %.1f%%)\n", util * 100.0,
               bw / 1e6, busy * 100.0);
        printf("  latency             p50 %u us, p99 %u us, max %u us\n", p50, p99, pmax);
        printf("  per-target share   ");
        for (unsigned t = 0; t < o->targets; t++)
            printf(" %u:%.1f%%", t, 100.0 * (double)b->per_target[t] / (double)(b->done_measured ? b->done_measured : 1));
        printf("  (min/max %.2f)\n", m->share);
        printf("  core counters      ");
        for (unsigned t = 0; t < o->targets; t++) {
            pcam_counters c;
            pcam_bus_get_counters(&b->r.bus, id_of(t), &c);
            printf(" %u:[starve %u held %u ordered %u qfull %u]", t, c.starve_boosts, c.bus_holds,
                   c.ordered_forced, c.queue_fulls);
        }
        printf("\n");
        if (b->r.cmd != NULL)
            printf("  chip events         none polled (hal/sim's command-level adapter, PCAM_SIM_LEVEL=cmd,\n"
                   "                      reports through the pcam_bus_hal_* callbacks)\n");
        else
            printf("  chip events         %.2f per command (the simulated chip %s its endings, pcam_hal.h)\n",
                   b->done_measured ? (double)(b->events - b->events_at_start) / (double)b->done_measured : 0.0,
                   b->r.chained ? "chains" : "does not chain");
        printf("  host time           %.0f ns per command (core + simulator, wall clock)\n",
               b->done_measured ? wall_ns / (double)b->done_measured : 0.0);
    }
    int rc = b->errors != 0;
    if (write_results(b, m) != 0)
        rc = 1;
    bench_free(b);
    return rc;
}

int pcambench_fair_run(const pcambench_cell *c, pcambench_fair *out)
{
    bench *b = calloc(1, sizeof *b);
    if (b == NULL || c == NULL || out == NULL) {
        free(b);
        return 1;
    }
    char *argv[] = {(char *)"pcambench", NULL};
    parse(1, argv, &b->o); /* the defaults */
    opts *o = &b->o;
    o->targets = c->targets;
    o->depth = c->depth;
    o->wide = c->wide;
    o->period = c->period;
    o->dt = c->dt;
    o->disk = c->disk;
    o->seed = c->seed;
    o->seconds = c->seconds;
    o->disk_mb = c->disk_mb;
    o->pattern = PAT_MIXED;
    o->pattern_name = "mixed";
    o->aging = c->aging;
    o->age_ms = c->age_ms;
    o->starve_ms = c->starve_ms;
    o->timeout_ms = c->timeout_ms;
    if (bench_run(b) != 0) {
        bench_free(b);
        return 1;
    }
    out->min_max_share = b->m.share;
    out->worst_wait_ns = b->worst_wait_ns;
    out->timeout_ms = b->r.bus.cfg.default_timeout_ms;
    out->commands = b->done_measured;
    out->errors = b->errors;
    out->timeouts = b->timeouts;
    out->sim_s = b->m.sim_s;
    out->mean_wait_ns = b->m.sim_s * 1e9 * (double)(o->targets * o->depth) /
                        (double)(b->done_measured ? b->done_measured : 1);
    bench_free(b);
    return 0;
}

#ifndef PCAMBENCH_NO_MAIN
int main(int argc, char **argv)
{
    /* --soak (bench/soak.c) is pcambench's own, not pcamctl bench's. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--soak") == 0)
            return soak_main(argc, argv, "pcambench");
    /* So is --sweep (bench/pcambench_sweep.c): pcamctl bench runs single workloads. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--sweep") == 0)
            return pcambench_sweep_main(argc, argv, "pcambench");
    return pcambench_main(argc, argv, "pcambench");
}
#endif
