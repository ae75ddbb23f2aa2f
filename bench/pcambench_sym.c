/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench --qemu-sym: tagged random reads on a disk image behind QEMU's
 * LSI53C895A, through the core and hal/sym (pcam's SCRIPTS) over qtest.
 * For 4 KiB and 64 KiB reads at queue depths 1, 4 and 16 it prints
 * commands per second (host time), host interrupts per command, register
 * reads and writes per command (pcam_sym_get_stats), qtest round trips per
 * command, and with --scripts the SCRIPTS instructions QEMU executed per
 * command (counted from its lsi_execute_script trace in a separate run, as
 * tracing slows the model). It asserts nothing.
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

#ifndef PCAMBENCH_HAVE_QEMU_SYM
int pcambench_sym_main(int argc, char **argv, const char *name)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "%s: --qemu-sym is not in this build (it needs osshim/posix and hal/sym)\n", name);
    return 2;
}
#else
#include "pcam_qemu_sym.h"

#define MAXD 16

typedef struct sres {
    uint32_t size, depth;
    uint64_t cmds, errors;
    double secs;
    pcam_sym_stats st;
    pcam_qemu_stats qs;
    uint64_t intrs;
    double insns; /* SCRIPTS instructions per command, -1 = not counted */
} sres;

typedef struct sctx {
    pcam_qemu_chipbus b;
    pcam_ccb ccb[MAXD];
    uint8_t sense[MAXD][32];
    uint8_t *buf[MAXD];
    uint64_t gpa[MAXD];
    uint64_t rng, blocks, done, errors, issued, want;
    uint32_t size;
} sctx;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void issue(sctx *x, unsigned i);

static void on_done(pcam_ccb *c)
{
    sctx *x = (sctx *)c->user;
    unsigned i = (unsigned)(c - x->ccb);
    x->done++;
    if ((c->status & PCAM_STATUS_MASK) != PCAM_REQ_CMP)
        x->errors++;
    if (x->issued < x->want)
        issue(x, i);
}

static void issue(sctx *x, unsigned i)
{
    pcam_ccb *c = &x->ccb[i];
    uint32_t nblk = x->size / 512u;
    uint64_t lba = (rnd(&x->rng) % (x->blocks / nblk)) * nblk;
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    c->flags = PCAM_CCB_TAGGED;
    c->timeout_ms = 10000;
    c->u.io.tag_action = PCAM_TAG_SIMPLE;
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

static int run(sctx *x, uint32_t size, uint32_t depth, double seconds, uint64_t commands, sres *r)
{
    pcam_sym_stats s0, s1;
    pcam_qemu_stats q0, q1;
    uint64_t t0, t1, i0;
    memset(r, 0, sizeof *r);
    r->size = size;
    r->depth = depth;
    r->insns = -1;
    for (unsigned i = 0; i < depth; i++)
        if ((x->buf[i] = pcam_qemu_guest_alloc(x->b.q, size, &x->gpa[i])) == NULL)
            return -ENOMEM;
    x->size = size;
    x->done = x->errors = x->issued = 0;
    /* By count when asked, else a count that a first second measures. */
    x->want = commands != 0 ? commands : UINT64_MAX;
    pcam_sym_get_stats(x->b.sc, &s0);
    pcam_qemu_get_stats(x->b.q, &q0);
    i0 = x->b.intrs;
    t0 = pcam_posix_now_ns();
    for (unsigned i = 0; i < depth; i++)
        issue(x, i);
    for (;;) {
        t1 = pcam_posix_now_ns();
        if (commands == 0 && x->want == UINT64_MAX && (double)(t1 - t0) >= seconds * 1e9)
            x->want = x->issued; /* stop issuing; drain */
        if (x->done >= x->issued && x->issued >= x->want)
            break;
        if (pcam_qemu_chipbus_step(&x->b, 50) < 0) {
            fprintf(stderr, "pcambench: QEMU failed: %s\n", pcam_qemu_error(x->b.q));
            return -EIO;
        }
        if ((double)(t1 - t0) > (seconds + 30.0) * 1e9) {
            fprintf(stderr, "pcambench: commands did not complete\n");
            return -ETIMEDOUT;
        }
    }
    t1 = pcam_posix_now_ns();
    r->secs = (double)(t1 - t0) / 1e9;
    r->cmds = x->done;
    r->errors = x->errors;
    pcam_sym_get_stats(x->b.sc, &s1);
    pcam_qemu_get_stats(x->b.q, &q1);
    r->intrs = x->b.intrs - i0;
    r->st.reg_reads = s1.reg_reads - s0.reg_reads;
    r->st.reg_writes = s1.reg_writes - s0.reg_writes;
    r->st.interrupts = s1.interrupts - s0.interrupts;
    r->st.script_irqs = s1.script_irqs - s0.script_irqs;
    r->qs.round_trips = q1.round_trips - q0.round_trips;
    r->qs.round_trip_ns = q1.round_trip_ns - q0.round_trip_ns;
    r->qs.irq_events = q1.irq_events - q0.irq_events;
    for (unsigned i = 0; i < depth; i++)
        pcam_qemu_guest_free(x->b.q, x->gpa[i]);
    return 0;
}

static double per(uint64_t v, uint64_t n)
{
    return n != 0 ? (double)v / (double)n : 0.0;
}

static int open_bus(sctx *x, const pcam_qemu_drive *d, const char *trace)
{
    pcam_qemu_chipbus_opts so;
    char err[2048];
    const char *extra[] = {"-trace", "lsi_execute_script", "-D", trace, NULL};
    memset(&so, 0, sizeof so);
    so.drives = d;
    so.ndrives = 1;
    so.log_file = stderr;
    so.log_level = PCAM_LOG_ERROR;
    so.extra_args = trace != NULL ? extra : NULL;
    if (pcam_qemu_chipbus_open(&x->b, &pcam_qemu_chip_lsi53c895a, &so, err, sizeof err) != 0) {
        fprintf(stderr, "pcambench: QEMU: %s\n", err);
        return -1;
    }
    /* A scan turns tags on; a TEST UNIT READY takes the power-on UNIT ATTENTION. */
    pcam_ccb t;
    uint8_t sense[32];
    memset(&t, 0, sizeof t);
    t.func = PCAM_FN_SCAN_LUN;
    (void)pcam_qemu_chipbus_sync(&x->b, &t, 30000);
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
    while (fgets(line, sizeof line, f) != NULL)
        if (strstr(line, word) != NULL)
            n++;
    fclose(f);
    return n;
}

int pcambench_sym_main(int argc, char **argv, const char *name)
{
    static const uint32_t sizes[2] = {4096, 65536};
    static const uint32_t depths[3] = {1, 4, 16};
    char dir[] = "/tmp/pcambench-sym-XXXXXX", path[96], trace[96];
    double seconds = 3.0;
    uint64_t commands = 0;
    bool json = false, scripts = false;
    sres res[6], r8k;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--qemu-sym") == 0) continue;
        else if (strcmp(a, "--seconds") == 0 && v) { seconds = strtod(v, NULL); i++; }
        else if (strcmp(a, "--commands") == 0 && v) { commands = strtoull(v, NULL, 0); i++; }
        else if (strcmp(a, "--scripts") == 0) scripts = true;
        else if (strcmp(a, "--json") == 0) json = true;
        else {
            fprintf(stderr, "usage: %s --qemu-sym [--seconds S] [--commands N] [--scripts] [--json]\n"
                            "  tagged random READ(10)s of 4 KiB and 64 KiB at depths 1, 4, 16 on QEMU's\n"
                            "  lsi53c895a with hal/sym; --scripts also counts SCRIPTS instructions per\n"
                            "  command from QEMU's trace (a second, traced run of 2000 commands each)\n",
                    name);
            return 2;
        }
    }
    if (!(seconds > 0.0))
        return 2;
    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(path, sizeof path, "%s/disk.img", dir);
    snprintf(trace, sizeof trace, "%s/trace.log", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)64 << 20) != 0) {
        if (fd >= 0)
            close(fd);
        rmdir(dir);
        return 1;
    }
    close(fd);
    pcam_qemu_drive d;
    memset(&d, 0, sizeof d);
    d.image = path;
    d.read_only = true;
    sctx *x = calloc(1, sizeof *x);
    if (x == NULL || open_bus(x, &d, NULL) != 0) {
        rc = 1;
        goto out;
    }
    x->blocks = (uint64_t)64 << 11;
    x->rng = 1;
    for (unsigned s = 0; s < 2 && rc == 0; s++)
        for (unsigned k = 0; k < 3 && rc == 0; k++)
            if (run(x, sizes[s], depths[k], seconds, commands, &res[s * 3 + k]) != 0)
                rc = 1;
    /* 8 KiB at depth 1 for the 1999 overhead estimate 2 t(4K) - t(8K). */
    if (rc == 0 && run(x, 8192, 1, seconds, commands, &r8k) != 0)
        rc = 1;
    if (pcam_qemu_chipbus_close(&x->b) != 0 && rc == 0)
        rc = 1;
    if (rc == 0 && scripts) {
        for (unsigned s = 0; s < 2 && rc == 0; s++) {
            for (unsigned k = 0; k < 3 && rc == 0; k++) {
                sres tr;
                unlink(trace);
                memset(&x->b, 0, sizeof x->b);
                if (open_bus(x, &d, trace) != 0) {
                    rc = 1;
                    break;
                }
                uint64_t before = count_lines(trace, "lsi_execute_script ");
                if (run(x, sizes[s], depths[k], 1.0, 2000, &tr) != 0)
                    rc = 1;
                (void)pcam_qemu_chipbus_close(&x->b);
                uint64_t after = count_lines(trace, "lsi_execute_script ");
                res[s * 3 + k].insns = per(after - before, tr.cmds);
            }
        }
    }
    if (rc == 0) {
        if (json) {
            printf("{\"backend\":\"qemu-lsi53c895a\",\"results\":[");
            for (unsigned i = 0; i < 6; i++) {
                const sres *r = &res[i];
                printf("%s{\"size\":%u,\"depth\":%u,\"commands\":%" PRIu64 ",\"errors\":%" PRIu64
                       ",\"commands_per_s\":%.1f,\"interrupts_per_cmd\":%.3f,\"reg_reads_per_cmd\":%.2f,"
                       "\"reg_writes_per_cmd\":%.2f,\"round_trips_per_cmd\":%.2f,\"scripts_insns_per_cmd\":%.1f}",
                       i ? "," : "", r->size, r->depth, r->cmds, r->errors, r->cmds / r->secs,
                       per(r->intrs, r->cmds), per(r->st.reg_reads, r->cmds), per(r->st.reg_writes, r->cmds),
                       per(r->qs.round_trips, r->cmds), r->insns);
            }
            printf("],\"overhead_us\":%.1f}\n", 2e6 * res[0].secs / (double)res[0].cmds - 1e6 * r8k.secs / (double)r8k.cmds);
        } else {
            printf("QEMU LSI53C895A over qtest, hal/sym: tagged random READ(10)\n");
            printf("%-5s %5s %8s %6s %9s %8s %8s %8s %8s %8s\n", "size", "depth", "commands", "errors",
                   "cmds/s", "intr/cmd", "rd/cmd", "wr/cmd", "rt/cmd", "insn/cmd");
            for (unsigned i = 0; i < 6; i++) {
                const sres *r = &res[i];
                printf("%-5s %5u %8" PRIu64 " %6" PRIu64 " %9.1f %8.3f %8.2f %8.2f %8.2f ",
                       r->size == 4096 ? "4K" : "64K", r->depth, r->cmds, r->errors, r->cmds / r->secs,
                       per(r->intrs, r->cmds), per(r->st.reg_reads, r->cmds),
                       per(r->st.reg_writes, r->cmds), per(r->qs.round_trips, r->cmds));
                if (r->insns >= 0)
                    printf("%8.1f\n", r->insns);
                else
                    printf("%8s\n", "-");
            }
            printf("command overhead at depth 1, 2 t(4K) - t(8K): %.1f us (8K: %.1f cmds/s)\n",
                   2e6 * res[0].secs / (double)res[0].cmds - 1e6 * r8k.secs / (double)r8k.cmds,
                   r8k.cmds / r8k.secs);
            printf("(intr: pcam_bus_intr calls; rd/wr: hal/sym register accesses; rt: qtest round\n"
                   " trips incl. IRQ-line drains; insn: QEMU lsi_execute_script events, traced run)\n");
        }
        for (unsigned i = 0; i < 6; i++)
            if (res[i].errors != 0)
                rc = 1;
    }
out:
    free(x);
    unlink(trace);
    unlink(path);
    rmdir(dir);
    return rc;
}
#endif
