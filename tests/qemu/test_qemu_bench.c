/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The QEMU benchmark front end (pcambench --qemu, bench/pcambench_qemu.c)
 * on every chip it has, briefly, against expectations it does not compute
 * itself: the image is made here (sector n holds n + salt, qrig_image), so
 * each read's data is known before QEMU serves it; every command the bench
 * issues must complete exactly once, row by row (the chip's depths, 4 KiB
 * and 64 KiB, then 8 KiB at depth 1), without error and with the bytes
 * asked for; its JSON summary must agree with what it recorded, and its
 * per-command counters must be those of a chip that served the commands
 * (at least one interrupt per command batch, register traffic). It says
 * nothing about speed. pcambench's path comes from CMake (PCAMBENCH_PATH).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu_rig.h"

#define SECTORS 8192u /* 4 MiB */
#define SALT 0x5eed0000u
#define PER_ROW 40u

static int failures;

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);         \
            fprintf(stderr, __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                       \
            failures++;                                                  \
        }                                                                \
    } while (0)

static uint64_t fnv64(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* What a read of `bytes` at `lba` must return, from the pattern alone. */
static uint64_t expected_digest(uint32_t lba, uint32_t bytes)
{
    uint8_t sec[512];
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t k = 0; k < bytes / 512u; k++) {
        qrig_sector(sec, lba + k, SALT);
        h = fnv64(h, sec, sizeof sec);
    }
    return h;
}

static int run_bench(const char *chip, const char *image, const char *rec, const char *out)
{
    char n[16];
    snprintf(n, sizeof n, "%u", PER_ROW);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(out, "w", stdout);
        if (f == NULL)
            _exit(126);
        execl(PCAMBENCH_PATH, "pcambench", "--qemu", "--chip", chip, "--image", image, "--commands", n,
              "--record", rec, "--json", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after "key": in the JSON object starting at p (first match). */
static bool json_num(const char *p, const char *key, double *v)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *at = strstr(p, k);
    const char *end = strchr(p, '}');
    if (at == NULL || (end != NULL && at > end))
        return false;
    *v = strtod(at + strlen(k), NULL);
    return true;
}

typedef struct row {
    uint32_t size, depth;
    unsigned recorded;
} row;

static void check_chip(const char *chip, const uint32_t *depths, unsigned ndepths, const char *image)
{
    char rec[512], out[512];
    snprintf(rec, sizeof rec, "%s/%s.rec", qrig_dir(), chip);
    snprintf(out, sizeof out, "%s/%s.json", qrig_dir(), chip);
    int rc = run_bench(chip, image, rec, out);
    CHECK(rc == 0, "%s: pcambench exited %d", chip, rc);

    /* The rows the front end must run, in order: sizes x the chip's depths, then 8K x 1. */
    row rows[8];
    unsigned nrows = 0;
    for (unsigned s = 0; s < 2; s++)
        for (unsigned d = 0; d < ndepths; d++)
            rows[nrows++] = (row){s ? 65536u : 4096u, depths[d], 0};
    rows[nrows++] = (row){8192u, 1u, 0};

    FILE *f = fopen(rec, "r");
    CHECK(f != NULL, "%s: no record %s", chip, rec);
    unsigned lines = 0, bad = 0;
    if (f != NULL) {
        unsigned size, depth, lba, bytes;
        uint64_t digest;
        while (fscanf(f, "%u %u %u %u %" SCNx64, &size, &depth, &lba, &bytes, &digest) == 5) {
            lines++;
            unsigned r = 0;
            while (r < nrows && !(rows[r].size == size && rows[r].depth == depth))
                r++;
            if (r == nrows) {
                CHECK(false, "%s: a read of %u at depth %u that no row asked for", chip, size, depth);
                continue;
            }
            rows[r].recorded++;
            CHECK(bytes == size, "%s: READ at %u returned %u bytes, not %u", chip, lba, bytes, size);
            CHECK(lba % (size / 512u) == 0 && lba + size / 512u <= SECTORS,
                  "%s: LBA %u is not a %u-byte slot of the image", chip, lba, size);
            if (bytes == size && lba + size / 512u <= SECTORS && digest != expected_digest(lba, bytes))
                bad++;
        }
        CHECK(feof(f), "%s: record line %u is malformed", chip, lines + 1);
        fclose(f);
    }
    CHECK(bad == 0, "%s: %u of %u reads returned data other than the image's", chip, bad, lines);
    for (unsigned r = 0; r < nrows; r++)
        CHECK(rows[r].recorded == PER_ROW, "%s: %u KiB at depth %u: %u reads completed of %u issued", chip,
              rows[r].size / 1024u, rows[r].depth, rows[r].recorded, PER_ROW);

    /* The summary must say the same as the record, and show a chip at work. */
    static char json[16384];
    size_t n = 0;
    f = fopen(out, "r");
    if (f != NULL) {
        n = fread(json, 1, sizeof json - 1, f);
        fclose(f);
    }
    json[n] = '\0';
    char want[64];
    snprintf(want, sizeof want, "\"chip\":\"%s\"", chip);
    CHECK(strstr(json, want) != NULL, "%s: the summary names another chip: %.200s", chip, json);
    const char *p = strstr(json, "\"results\":[");
    for (unsigned r = 0; r + 1 < nrows; r++) {
        p = p != NULL ? strstr(p, "{\"size\":") : NULL;
        CHECK(p != NULL, "%s: the summary has %u rows, not %u", chip, r, nrows - 1);
        if (p == NULL)
            break;
        double size = 0, depth = 0, cmds = 0, errs = -1, bytes = 0, intr = 0, rt = 0;
        json_num(p, "size", &size);
        json_num(p, "depth", &depth);
        json_num(p, "commands", &cmds);
        json_num(p, "errors", &errs);
        json_num(p, "bytes", &bytes);
        json_num(p, "interrupts_per_cmd", &intr);
        json_num(p, "round_trips_per_cmd", &rt);
        CHECK((uint32_t)size == rows[r].size && (uint32_t)depth == rows[r].depth,
              "%s: summary row %u is %.0f at depth %.0f", chip, r, size, depth);
        CHECK((unsigned)cmds == PER_ROW && errs == 0.0, "%s: summary row %u: %.0f commands, %.0f errors", chip, r,
              cmds, errs);
        CHECK(bytes == (double)PER_ROW * rows[r].size, "%s: summary row %u: %.0f bytes", chip, r, bytes);
        /* Every batch of up to `depth` completions takes an interrupt at least. */
        CHECK(intr * rows[r].depth >= 0.99 && intr <= 64.0, "%s: row %u: %.3f interrupts per command", chip, r,
              intr);
        CHECK(rt >= 1.0, "%s: row %u: %.2f qtest round trips per command", chip, r, rt);
        p++;
    }
}

int main(void)
{
    qrig_require_qemu();
    const char *image = qrig_image("bench.img", SECTORS, SALT);
    unsigned chips = 0;
#ifdef HAVE_ESP
    static const uint32_t esp_depths[] = {1};
    check_chip("am53c974", esp_depths, 1, image);
    chips++;
#endif
#ifdef HAVE_SYM
    static const uint32_t sym_depths[] = {1, 4, 16};
    check_chip("lsi53c895a", sym_depths, 3, image);
    chips++;
#endif
#ifdef HAVE_VIRTIO
    static const uint32_t virtio_depths[] = {1, 4, 16};
    check_chip("virtio-scsi", virtio_depths, 3, image);
    chips++;
#endif
    CHECK(chips > 0, "no QEMU chip in this build");
    if (failures != 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("pcambench --qemu on %u chip(s): every read completed once with the image's data\n", chips);
    return 0;
}
