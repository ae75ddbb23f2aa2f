/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sense (decode bytes, no bus), trace (any command with a VCD of the bus)
 * and bench (the benchmark, shared with bench/pcambench).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "pcam/pcam_sense.h"
#include "pcambench.h"
#ifdef PCAMCTL_HAVE_QEMU
#include "pcam_qemu_chip.h"
#endif

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

int ctl_parse_hex(ctl *c, int argc, char **argv, uint8_t *out, size_t cap)
{
    size_t n = 0;
    if (argc == 0) {
        ctl_usage(c, "no bytes given");
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        /* As camcontrol and sg_raw users type them: a byte per word in one
         * or two hex digits, 0x optional ("0x12 0 0 0 0x24 0"), or a run of
         * hex pairs in one word ("120000002400"). */
        const char *s = argv[i];
        bool prefixed = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        if (prefixed)
            s += 2;
        size_t len = strlen(s);
        char pair[3] = {'0', s[0], '\0'};
        if (len == 1)
            s = pair, len = 2;
        if (len == 0 || len % 2 != 0 || (prefixed && len > 2)) {
            ctl_usage(c, "'%s' is not a byte (1 or 2 hex digits, 0x optional) or a run of hex pairs", argv[i]);
            return -1;
        }
        for (size_t k = 0; k < len; k += 2) {
            int hi = hexval((unsigned char)s[k]), lo = hexval((unsigned char)s[k + 1]);
            if (hi < 0 || lo < 0) {
                ctl_usage(c, "'%s' is not hex", argv[i]);
                return -1;
            }
            if (n == cap) {
                ctl_usage(c, "more than %zu bytes", cap);
                return -1;
            }
            out[n++] = (uint8_t)(hi << 4 | lo);
        }
    }
    return (int)n;
}

int cmd_sense(ctl *c, int argc, char **argv)
{
    uint8_t b[PCAM_SENSE_MAX_LEN];
    int got = ctl_parse_hex(c, argc, argv, b, sizeof b);
    if (got < 0)
        return CTL_EUSAGE;
    size_t n = (size_t)got;
    pcam_sense s;
    pcam_err e = pcam_sense_decode(b, n, &s);
    if (e != PCAM_OK) {
        int rc = ctl_err(c, CTL_ESANITY, "invalid sense data: %s", pcam_strerror(e));
        if (c->json) {
            j_obj(NULL);
            j_u64("exit_status", CTL_ESANITY);
            j_str("kind", ctl_exit_kind(CTL_ESANITY));
            j_sense("sense", b, n);
            j_str("error", c->last_err);
            j_end_obj();
            j_done();
        }
        return rc;
    }
    if (c->json) {
        /* Under "sense", as requests and a failed command have it: one
         * schema, where a top-level "bytes" is a byte count. */
        j_obj(NULL);
        j_sense("sense", b, n);
        j_end_obj();
        j_done();
    }
    if (c->json)
        return 0;
    char line[256];
    pcam_sense_format(&s, line, sizeof line);
    printf("%s\n", line);
    printf("  response code 0x%02x (%s, %s), key 0x%x %s", s.response_code,
           s.response_code >= 0x72 && s.response_code <= 0x73 ? "descriptor" : "fixed",
           s.deferred ? "deferred" : "current", s.key, pcam_sense_key_name(s.key));
    if (s.asc_valid) {
        char text[128];
        pcam_asc_format(s.asc, s.ascq, text, sizeof text);
        printf(", ASC 0x%02x ASCQ 0x%02x: %s", s.asc, s.ascq, text);
    }
    putchar('\n');
    if (s.info_valid)
        printf("  information %llu (0x%llx)\n", (unsigned long long)s.info, (unsigned long long)s.info);
    return 0;
}

int cmd_trace(ctl *c, int argc, char **argv)
{
    const char *out = "pcam.vcd";
    int i;
    for (i = 0; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--scan") == 0)
            c->vcd_with_scan = true;
        else if (strcmp(argv[i], "--phases") == 0)
            c->phases = true;
        else
            return ctl_usage(c, "unknown option '%s'", argv[i]);
    }
    if (i >= argc)
        return ctl_usage(c, "missing the COMMAND to trace");
    const char *sub = argv[i];
    if (strcmp(sub, "trace") == 0 || strcmp(sub, "sense") == 0 || strcmp(sub, "bench") == 0)
        return ctl_err(c, CTL_EUSAGE, "trace: '%s' does not run on the traced bus", sub);
    if (strcmp(c->be->name, "sim") != 0)
        return ctl_err(c, CTL_EUSAGE, "trace needs the sim back-end (the bus signals come from the simulator)");
    if (c->phases && c->json)
        return ctl_err(c, CTL_EUSAGE, "trace: --phases and --json would share stdout");
    /* devlist's work is the scan itself. */
    if (strcmp(sub, "devlist") == 0)
        c->vcd_with_scan = true;
    c->vcd_path = out;
    int rc = ctl_dispatch(c, sub, argc - i - 1, argv + i + 1);
    if (rc < 0)
        return ctl_usage(c, "unknown command '%s'", sub);
    bool opened = c->open;
    ctl_close(c);
    if (opened) {
        FILE *f = c->json ? stderr : stdout;
        fprintf(f, "VCD trace of the bus written to %s\n", out);
    }
    return rc;
}

/* pcambench reads its numbers with strtoul(..., 0) and strtod without
 * checking: "010" would be 8 and "abc" 0 (a -nan result). Every number is
 * checked here first and handed on in plain decimal, so what pcamctl bench
 * runs is what the user typed. */
static const struct {
    const char *opt;
    uint64_t min, max;
} bench_nums[] = {
    {"--targets", 1, 15},  {"--depth", 1, 255},        {"--commands", 1, 1000000000ull},
    {"--disk-mb", 1, 1048576}, {"--seed", 0, UINT64_MAX}, {"--starve-ms", 1, 0xFFFFFFFFull},
    {"--age-ms", 1, 0xFFFFFFFFull},
};

static int bench_arg(ctl *c, const char *opt, const char *v, char *out, size_t cap)
{
    if (strcmp(opt, "--seconds") == 0) {
        char *end;
        double d;
        if (v == NULL)
            return ctl_usage(c, "option --seconds needs a value");
        d = strtod(v, &end);
        /* NaN fails both comparisons; so does anything past an hour. */
        if (end == v || *end != '\0' || !(d > 0.0) || !(d <= 3600.0))
            return ctl_usage(c, "bad --seconds '%s' (a number of seconds, more than 0 and at most 3600)", v);
        snprintf(out, cap, "%.6f", d);
        return 0;
    }
    for (size_t k = 0; k < sizeof bench_nums / sizeof bench_nums[0]; k++) {
        if (strcmp(opt, bench_nums[k].opt) != 0)
            continue;
        uint64_t n;
        if (v == NULL)
            return ctl_usage(c, "option %s needs a value", opt);
        if (!ctl_parse_u64(v, &n) || n < bench_nums[k].min || n > bench_nums[k].max)
            return ctl_usage(c, "bad %s '%s' (valid: %llu..%llu)", opt, v, (unsigned long long)bench_nums[k].min,
                             (unsigned long long)bench_nums[k].max);
        snprintf(out, cap, "%llu", (unsigned long long)n);
        return 0;
    }
    return 1; /* not a number option */
}

int cmd_bench(ctl *c, int argc, char **argv)
{
    /* pcambench parses argv[1..]: give it a program slot and, with --json,
     * the flag. The benchmark builds its own bus of identical disks. */
    char **args = calloc((size_t)argc + 8, sizeof *args);
    static char nums[64][32];
    unsigned nnum = 0;
    if (args == NULL)
        return ctl_err(c, CTL_EOTHER, "out of memory");
    int n = 0;
    args[n++] = (char *)"pcamctl bench";
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            free(args);
            fputs("usage: pcamctl bench [--targets N] [--depth D] [--pattern rand4k|seq32k|fileserver|mixed]\n"
                  "                     [--bus fast10|fast20|ultra2|ultra160] [--narrow] [--seconds S]\n"
                  "                     [--commands N] [--disk-mb M] [--seed X] [--no-aging] [--polled]\n"
                  "                     [--starve-ms MS] [--age-ms MS] [--fast-disks]\n"
                  "  (the same options and figures as bench/pcambench; --sim does not apply;\n"
                  "   --seconds is more than 0 and at most 3600, numbers are decimal unless 0x...)\n"
                  "  with --backend qemu-esp or qemu-mpt: pcambench --qemu --chip (the back-end's)\n"
                  "  [--seconds S] [--commands N] [--bounce]\n"
                  "  on the first --qemu-drive disk (read-only), else on a scratch image\n",
                  stdout);
            return 0;
        }
        if (nnum < 64) {
            int r = bench_arg(c, argv[i], i + 1 < argc ? argv[i + 1] : NULL, nums[nnum], sizeof nums[nnum]);
            if (r == CTL_EUSAGE) {
                free(args);
                return r;
            }
            if (r == 0) {
                args[n++] = argv[i++];
                args[n++] = nums[nnum++];
                continue;
            }
        }
        args[n++] = argv[i];
    }
    if (c->json)
        args[n++] = (char *)"--json";
    if (!ctl_is_sim(c)) {
        /* On QEMU the benchmark is pcambench --qemu on the back-end's chip
         * (pcambench names it as QEMU's model does), on the first disk given. */
        char **more = realloc(args, ((size_t)n + 6) * sizeof *args);
        if (more == NULL) {
            free(args);
            return ctl_err(c, CTL_EOTHER, "out of memory");
        }
        args = more;
        args[n++] = (char *)"--qemu";
#ifdef PCAMCTL_HAVE_QEMU
        if (c->be->chip != NULL) {
            args[n++] = (char *)"--chip";
            args[n++] = (char *)c->be->chip->controller;
        }
#endif
        for (size_t k = 0; k < c->nqdrives; k++)
            if (!c->qdrives[k].cd && c->qdrives[k].image[0] != '\0') {
                args[n++] = (char *)"--image";
                args[n++] = c->qdrives[k].image;
                break;
            }
    }
    if (c->polled)
        args[n++] = (char *)"--polled";
    fflush(stdout);
    /* With --json, pcambench's result lines (one object per run) go through
     * pcamctl's JSON envelope like every other command's: they are caught
     * in a temporary file and handed over as documents. */
    FILE *tmp = c->json ? tmpfile() : NULL;
    int saved = tmp != NULL ? dup(1) : -1;
    if (tmp != NULL && (saved < 0 || dup2(fileno(tmp), 1) < 0)) {
        if (saved >= 0)
            close(saved);
        fclose(tmp);
        tmp = NULL;
    }
    int rc = pcambench_main(n, args, "pcamctl bench");
    free(args);
    if (tmp != NULL) {
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
        rewind(tmp);
        char line[4096];
        while (fgets(line, sizeof line, tmp) != NULL) {
            size_t len = strlen(line);
            while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                line[--len] = '\0';
            if (len > 1 && line[0] == '{' && line[len - 1] == '}')
                j_raw_doc(line);
            else if (len > 0)
                fprintf(stderr, "%s\n", line);
        }
        fclose(tmp);
    }
    return rc;
}
