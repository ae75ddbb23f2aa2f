/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated bus topology: a short text that says which IDs hold which
 * devices and how they behave, so one command line reproduces a whole bus.
 *
 *   SPEC    := ITEM { "," ITEM }          whitespace around items is ignored;
 *                                         a file may also separate items by
 *                                         newlines and comment with '#'
 *   ITEM    := TARGET | "bus" { ":" BUSOPT }
 *   BUSOPT  := "narrow" | "wide" | "seed=" N | "id=" N
 *   TARGET  := ID ":" KIND { ":" OPTION }
 *   ID      := 0..15 (not the initiator's ID, 7; 8..15 only on a wide bus)
 *   KIND    := "disk" | "cd"
 *   OPTION  := SIZE                 medium size per LUN: N, NK, NM, NG, NT (binary)
 *            | "bs=" N              disk block size: 512, 1024, 2048 or 4096
 *            | "luns=" N            LUNs 0..N-1 present (1..8)
 *            | "empty"              CD: no medium in the tray
 *            | "file=" PATH         disk: the medium is this file (kept between runs)
 *            | "vendor=" T | "product=" T     INQUIRY strings
 *            | "wide" | "narrow"    the target's data width
 *            | "async" | "fast5" | "fast10" | "fast20" | "fast40" | "fast80"
 *            | "period=" N | "offset=" N      the target's fastest period factor, largest offset
 *            | ("sdtr" | "wdtr" | "ppr") "=" ("accept" | "counter" | "ignore" | "reject")
 *            | "notags"             reject tag messages (commands run untagged)
 *            | "qfull=" N           QUEUE FULL (TASK SET FULL) beyond N tasks
 *            | "busy=" N            answer BUSY to the next N commands
 *            | "merr=" LBA          a MEDIUM ERROR at that block (up to 8)
 *            | "hang=" N            never finish the next N commands
 *            | "busfree=" N         drop off the bus in the middle of the next N commands
 *            | "badphase=" N        go to a reserved bus phase after the CDB of the next N
 *            | "parity=" PPM        parity errors per million data bytes
 *            | "disc=" ("seek" | "always" | "never")   disconnect policy
 *            | "noua"               no UNIT ATTENTION at power-on
 *            | "pulled"             found by the scan, then off the bus: no
 *                                   selection after the scan is answered
 *            | "afterscan"          busy= hang= busfree= badphase= start after the scan, so
 *                                   they reach the command a one-shot run gives
 *
 * Defaults: a wide bus, initiator 7, seed 1; a disk is 64M of 512-byte
 * blocks, a CD holds a 64M medium of 2048-byte blocks; targets are wide
 * Fast-20 (period 0x0C, offset 16), take tags, reject PPR, and report a
 * power-on UNIT ATTENTION that the core's scan clears.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_msg.h"

#define MAX_ITEM 512

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return CTL_EUSAGE;
}

bool ctl_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == '-' || isspace((unsigned char)*s))
        return false;
    /* Base 10 unless 0x: strtoull's base 0 would read "0100" as octal 64,
     * and a block number or target ID typed with a leading zero would go
     * somewhere else than the user meant. */
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!isxdigit((unsigned char)*s))
            return false;
    } else if (!isdigit((unsigned char)*s)) {
        return false;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

/* N with an optional binary suffix. */
static bool parse_size(const char *s, uint64_t *out)
{
    char num[32];
    size_t n = strlen(s);
    uint64_t mul = 1, v;
    if (n == 0 || n >= sizeof num)
        return false;
    memcpy(num, s, n + 1);
    switch (toupper((unsigned char)num[n - 1])) {
    case 'K': mul = 1ull << 10; break;
    case 'M': mul = 1ull << 20; break;
    case 'G': mul = 1ull << 30; break;
    case 'T': mul = 1ull << 40; break;
    default: break;
    }
    if (mul != 1)
        num[n - 1] = '\0';
    if (!isdigit((unsigned char)num[0]) || !ctl_parse_u64(num, &v))
        return false;
    if (v > UINT64_MAX / mul)
        return false;
    *out = v * mul;
    return true;
}

static bool parse_nego(const char *v, pcam_sim_nego *out)
{
    if (strcmp(v, "accept") == 0) *out = PCAM_SIM_NEGO_ACCEPT;
    else if (strcmp(v, "counter") == 0) *out = PCAM_SIM_NEGO_COUNTER;
    else if (strcmp(v, "ignore") == 0) *out = PCAM_SIM_NEGO_IGNORE;
    else if (strcmp(v, "reject") == 0) *out = PCAM_SIM_NEGO_REJECT;
    else return false;
    return true;
}

static bool copy_text(char *dst, size_t cap, const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n >= cap)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isprint((unsigned char)v[i]))
            return false;
    memcpy(dst, v, n + 1);
    return true;
}

/* One ":"-separated option of a target. Returns NULL or the reason. */
static const char *target_opt(spec_target *t, char *o, char *why, size_t whycap)
{
    char *eq = strchr(o, '=');
    const char *k = o, *v = NULL;
    uint64_t n = 0;
    if (eq != NULL) {
        *eq = '\0';
        v = eq + 1;
    }
    if (v == NULL) {
        if (isdigit((unsigned char)o[0])) {
            if (!parse_size(o, &t->bytes) || t->bytes == 0)
                return "bad size (N, NK, NM, NG or NT)";
            t->size_given = true;
        } else if (strcmp(k, "empty") == 0) {
            if (t->kind != SPEC_CD)
                return "'empty' is for a cd";
            t->bytes = 0;
            t->size_given = true;
        } else if (strcmp(k, "wide") == 0) {
            t->tc.wide = true;
        } else if (strcmp(k, "narrow") == 0) {
            t->tc.wide = false;
        } else if (strcmp(k, "async") == 0) {
            t->tc.min_period = 0;
            t->tc.max_offset = 0;
        } else if (strcmp(k, "fast5") == 0) {
            t->tc.min_period = 0x32;
        } else if (strcmp(k, "fast10") == 0) {
            t->tc.min_period = 0x19;
        } else if (strcmp(k, "fast20") == 0) {
            t->tc.min_period = 0x0C;
        } else if (strcmp(k, "fast40") == 0) {
            t->tc.min_period = 0x0A;
        } else if (strcmp(k, "fast80") == 0) {
            /* Ultra160 needs DT clocking, which only PPR can agree. */
            t->tc.min_period = 0x09;
            t->tc.ppr = PCAM_SIM_NEGO_ACCEPT;
            t->tc.ppr_options = PCAM_PPR_DT_REQ;
        } else if (strcmp(k, "notags") == 0) {
            t->tc.reject_tags = true;
        } else if (strcmp(k, "afterscan") == 0) {
            t->after_scan = true;
        } else if (strcmp(k, "pulled") == 0) {
            t->pulled = true;
        } else if (strcmp(k, "noua") == 0) {
            t->tc.ua_power_on = false;
        } else {
            snprintf(why, whycap, "unknown option '%s'", k);
            return why;
        }
        return NULL;
    }
    if (strcmp(k, "vendor") == 0)
        return copy_text(t->vendor, sizeof t->vendor, v) ? NULL : "vendor= takes 1-8 printable characters";
    if (strcmp(k, "product") == 0)
        return copy_text(t->product, sizeof t->product, v) ? NULL : "product= takes 1-16 printable characters";
    if (strcmp(k, "file") == 0) {
        if (t->kind != SPEC_DISK)
            return "file= is for a disk";
        return copy_text(t->file, sizeof t->file, v) ? NULL : "file= needs a path (under 256 characters)";
    }
    if (strcmp(k, "sdtr") == 0)
        return parse_nego(v, &t->tc.sdtr) ? NULL : "sdtr= takes accept, counter, ignore or reject";
    if (strcmp(k, "wdtr") == 0)
        return parse_nego(v, &t->tc.wdtr) ? NULL : "wdtr= takes accept, counter, ignore or reject";
    if (strcmp(k, "ppr") == 0)
        return parse_nego(v, &t->tc.ppr) ? NULL : "ppr= takes accept, counter, ignore or reject";
    if (strcmp(k, "disc") == 0) {
        if (strcmp(v, "seek") == 0) t->tc.disconnect = PCAM_SIM_DISC_ON_SEEK;
        else if (strcmp(v, "always") == 0) t->tc.disconnect = PCAM_SIM_DISC_ALWAYS;
        else if (strcmp(v, "never") == 0) t->tc.disconnect = PCAM_SIM_DISC_NEVER;
        else return "disc= takes seek, always or never";
        return NULL;
    }
    if (!ctl_parse_u64(v, &n)) {
        snprintf(why, whycap, "%s= needs a number", k);
        return why;
    }
    if (strcmp(k, "bs") == 0) {
        if (t->kind != SPEC_DISK || (n != 512 && n != 1024 && n != 2048 && n != 4096))
            return "bs= is for a disk: 512, 1024, 2048 or 4096";
        t->block_size = (uint32_t)n;
    } else if (strcmp(k, "luns") == 0) {
        if (n < 1 || n > PCAM_SIM_LUNS)
            return "luns= takes 1..8";
        t->luns = (uint8_t)n;
    } else if (strcmp(k, "period") == 0) {
        if (n > 0xFF)
            return "period= takes a period factor 0..255";
        t->tc.min_period = (uint8_t)n;
    } else if (strcmp(k, "offset") == 0) {
        if (n > 0xFF)
            return "offset= takes 0..255";
        t->tc.max_offset = (uint8_t)n;
    } else if (strcmp(k, "qfull") == 0) {
        if (n < 1 || n > 256)
            return "qfull= takes 1..256";
        t->tc.task_set_limit = (uint16_t)n;
    } else if (strcmp(k, "busy") == 0) {
        t->tc.busy_next = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    } else if (strcmp(k, "hang") == 0) {
        t->tc.hang_next = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    } else if (strcmp(k, "busfree") == 0) {
        t->tc.unexpected_free_next = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    } else if (strcmp(k, "badphase") == 0) {
        t->tc.illegal_phase_next = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    } else if (strcmp(k, "parity") == 0) {
        if (n > 1000000)
            return "parity= takes 0..1000000 (per million bytes)";
        t->tc.parity_data_ppm = (uint32_t)n;
    } else if (strcmp(k, "merr") == 0) {
        if (t->kind != SPEC_DISK)
            return "merr= is for a disk";
        if (t->nmerr == SPEC_MAX_MERR)
            return "at most 8 merr= per target";
        t->merr[t->nmerr++] = n;
    } else {
        snprintf(why, whycap, "unknown option '%s'", k);
        return why;
    }
    return NULL;
}

static int parse_bus(simspec *s, char *item, char *err, size_t cap)
{
    char *save = NULL;
    char *o = strtok_r(item, ":", &save); /* "bus" */
    while ((o = strtok_r(NULL, ":", &save)) != NULL) {
        uint64_t n;
        if (strcmp(o, "narrow") == 0)
            s->width = 8;
        else if (strcmp(o, "wide") == 0)
            s->width = 16;
        else if (strncmp(o, "seed=", 5) == 0 && ctl_parse_u64(o + 5, &n))
            s->seed = n;
        else if (strncmp(o, "id=", 3) == 0 && ctl_parse_u64(o + 3, &n) && n < 16)
            s->initiator = (uint8_t)n;
        else
            return fail(err, cap, "bus option '%s': expected narrow, wide, seed=N or id=N", o);
    }
    return 0;
}

static int parse_target(simspec *s, char *item, char *err, size_t cap)
{
    char copy[MAX_ITEM];
    char why[96];
    char *save = NULL;
    uint64_t id;
    snprintf(copy, sizeof copy, "%s", item);
    char *f = strtok_r(item, ":", &save);
    if (f == NULL || !ctl_parse_u64(f, &id) || !isdigit((unsigned char)f[0]))
        return fail(err, cap, "'%s': expected ID:KIND (for example 0:disk:64M)", copy);
    if (id >= PCAM_SIM_MAX_IDS)
        return fail(err, cap, "'%s': target ID %llu is outside 0..15", copy, (unsigned long long)id);
    spec_target *t = &s->t[id];
    if (t->kind != SPEC_NONE)
        return fail(err, cap, "'%s': target %llu is given twice", copy, (unsigned long long)id);
    f = strtok_r(NULL, ":", &save);
    if (f == NULL)
        return fail(err, cap, "'%s': missing the kind (disk or cd)", copy);
    if (strcmp(f, "disk") == 0) {
        t->kind = SPEC_DISK;
        t->block_size = 512;
    } else if (strcmp(f, "cd") == 0) {
        t->kind = SPEC_CD;
        t->block_size = 2048;
    } else {
        return fail(err, cap, "'%s': unknown kind '%s' (disk or cd)", copy, f);
    }
    t->bytes = 64ull << 20;
    t->luns = 1;
    pcam_sim_target_config_defaults(&t->tc);
    /* CD-ROM drives of the period were narrow (their INQUIRY says so too). */
    if (t->kind == SPEC_CD)
        t->tc.wide = false;
    snprintf(t->vendor, sizeof t->vendor, "PCAMSIM");
    snprintf(t->product, sizeof t->product, "%s", t->kind == SPEC_DISK ? "SIMDISK" : "SIMCD");
    while ((f = strtok_r(NULL, ":", &save)) != NULL) {
        const char *bad = target_opt(t, f, why, sizeof why);
        if (bad != NULL)
            return fail(err, cap, "'%s': %s", copy, bad);
    }
    if (t->bytes % t->block_size != 0)
        return fail(err, cap, "'%s': size is not a whole number of %u-byte blocks", copy,
                    (unsigned)t->block_size);
    /* Media are sparse (unbacked anonymous pages, or a sparse file), so
     * only written blocks cost; 16T reaches past LBA 2^32 at 512 bytes (a
     * disk over 2 TiB needs 16-byte CDBs) and leaves a few such disks room
     * in a 47-bit address space. */
    if (t->bytes > (16ull << 40))
        return fail(err, cap, "'%s': size above 16T", copy);
    if (t->file[0] != '\0' && t->luns != 1)
        return fail(err, cap, "'%s': file= needs a single LUN", copy);
    for (unsigned i = 0; i < t->nmerr; i++)
        if (t->merr[i] >= t->bytes / t->block_size)
            return fail(err, cap, "'%s': merr=%llu is beyond the last block (%llu)", copy,
                        (unsigned long long)t->merr[i],
                        (unsigned long long)(t->bytes / t->block_size - 1));
    return 0;
}

int simspec_parse(const char *text, simspec *s, char *err, size_t cap)
{
    char item[MAX_ITEM];
    memset(s, 0, sizeof *s);
    s->width = 16;
    s->initiator = 7;
    s->seed = 1;
    if (text == NULL)
        return fail(err, cap, "empty topology");
    const char *p = text;
    bool any = false;
    while (*p != '\0') {
        const char *e = strchr(p, ',');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        while (n > 0 && isspace((unsigned char)*p)) {
            p++;
            n--;
        }
        while (n > 0 && isspace((unsigned char)p[n - 1]))
            n--;
        if (n >= sizeof item)
            return fail(err, cap, "an item is longer than %u characters", (unsigned)(sizeof item - 1));
        memcpy(item, p, n);
        item[n] = '\0';
        if (n > 0) {
            int rc = strncmp(item, "bus", 3) == 0 && (item[3] == ':' || item[3] == '\0')
                         ? parse_bus(s, item, err, cap)
                         : parse_target(s, item, err, cap);
            if (rc != 0)
                return rc;
            any = true;
        }
        if (e == NULL)
            break;
        p = e + 1;
    }
    if (!any)
        return fail(err, cap, "empty topology");
    /* Checked once the whole topology is read: "bus:id=9:narrow" and
     * "bus:narrow:id=9" are the same bus (fuzz_simspec found the first
     * accepted, and the bus model then refusing it with no reason given). */
    if (s->initiator >= s->width)
        return fail(err, cap, "the initiator's ID %u does not fit on a narrow bus (IDs 0..7)",
                    (unsigned)s->initiator);
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        if (s->t[id].kind == SPEC_NONE)
            continue;
        if (id == s->initiator)
            return fail(err, cap, "target %u is the initiator's ID", id);
        if (id >= s->width)
            return fail(err, cap, "target %u does not fit on a narrow bus (IDs 0..7)", id);
    }
    return 0;
}

pcam_sim_target_config simspec_scan_config(const spec_target *t)
{
    pcam_sim_target_config tc = t->tc;
    if (t->after_scan) {
        tc.busy_next = 0;
        tc.hang_next = 0;
        tc.unexpected_free_next = 0;
        tc.illegal_phase_next = 0;
    }
    return tc;
}

void simspec_arm_after_scan(const simspec *s, pcam_sim *sim)
{
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        const spec_target *t = &s->t[id];
        pcam_sim_target_config *tc;
        if (t->kind == SPEC_NONE || (!t->after_scan && !t->pulled) ||
            (tc = pcam_sim_target_cfg(sim, (uint8_t)id)) == NULL)
            continue;
        tc->off_bus = t->pulled;
        if (!t->after_scan)
            continue;
        tc->busy_next = t->tc.busy_next;
        tc->hang_next = t->tc.hang_next;
        tc->unexpected_free_next = t->tc.unexpected_free_next;
        tc->illegal_phase_next = t->tc.illegal_phase_next;
    }
}

char *simspec_read_file(const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fail(err, cap, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, size = 1024;
    char *out = malloc(size);
    int ch;
    bool comment = false;
    while (out != NULL && (ch = fgetc(f)) != EOF) {
        if (ch == '#')
            comment = true;
        if (ch == '\n' || ch == '\r') {
            comment = false;
            ch = ',';
        }
        if (comment)
            continue;
        if (len + 2 > size) {
            char *bigger = size < (1u << 20) ? realloc(out, size * 2) : NULL;
            if (bigger == NULL) {
                free(out);
                out = NULL;
                break;
            }
            out = bigger;
            size *= 2;
        }
        out[len++] = (char)ch;
    }
    fclose(f);
    if (out == NULL) {
        fail(err, cap, "%s is too large", path);
        return NULL;
    }
    out[len] = '\0';
    return out;
}
