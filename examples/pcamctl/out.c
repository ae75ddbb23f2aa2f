/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Output: error messages, a small JSON writer, sense and event rendering.
 * The JSON writer keeps one "first member" flag per nesting level so
 * callers only say what to write, never where commas go. A command's
 * documents are held until it has finished, so that each gets the one
 * envelope docs/pcamctl.schema.json describes: "command" (the subcommand's
 * name) and "ok" first, and on a failure "exit_status", "kind" and
 * "error" whatever the command wrote (ctl_json_finish).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_sense.h"

static void vsay(ctl *c, const char *kind, const char *fmt, va_list ap)
{
    char msg[sizeof c->last_err];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (kind == NULL)
        memcpy(c->last_err, msg, sizeof msg);
    fprintf(stderr, "%s: %s%s\n", c->prog != NULL ? c->prog : "pcamctl", kind != NULL ? kind : "", msg);
}

int ctl_err(ctl *c, int code, const char *fmt, ...)
{
    va_list ap;
    if (c == NULL || c->quiet)
        return code;
    va_start(ap, fmt);
    vsay(c, NULL, fmt, ap);
    va_end(ap);
    return code;
}

void ctl_warn(ctl *c, const char *fmt, ...)
{
    va_list ap;
    if (c == NULL || c->quiet)
        return;
    va_start(ap, fmt);
    vsay(c, "warning: ", fmt, ap);
    va_end(ap);
}

int ctl_usage(ctl *c, const char *fmt, ...)
{
    va_list ap;
    char msg[300];
    if (c == NULL || c->quiet)
        return CTL_EUSAGE;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const ctl_cmd *k = c->cmd != NULL ? ctl_find_cmd(c->cmd) : NULL;
    if (k != NULL) {
        ctl_err(c, CTL_EUSAGE, "%s: %s", k->name, msg);
        fprintf(stderr, "usage: pcamctl %s\n(pcamctl help %s for more)\n", k->usage, k->name);
    } else {
        ctl_err(c, CTL_EUSAGE, "%s", msg);
    }
    return CTL_EUSAGE;
}

void ctl_json_error(ctl *c, int rc)
{
    j_obj(NULL);
    j_u64("exit_status", (uint64_t)rc);
    j_str("kind", ctl_exit_kind(rc));
    j_str("error", c->last_err[0] != '\0' ? c->last_err : "failed");
    j_end_obj();
    j_done();
}

/* ------------------------------------------------------------------ */
#define J_DEPTH 16
static bool j_first[J_DEPTH] = {true};
static int j_level;
static unsigned j_ndocs;
/* The documents of the running command, '\n'-separated (a string holds
 * no raw newline: it is escaped). */
static char *jb;
static size_t jb_len, jb_cap;
static bool jb_oom;

static void jput(const char *s, size_t n)
{
    if (jb_oom)
        return;
    if (jb_len + n + 1 > jb_cap) {
        size_t cap = jb_cap != 0 ? jb_cap : 4096;
        while (cap < jb_len + n + 1)
            cap *= 2;
        char *p = realloc(jb, cap);
        if (p == NULL) {
            jb_oom = true;
            return;
        }
        jb = p;
        jb_cap = cap;
    }
    memcpy(jb + jb_len, s, n);
    jb_len += n;
    jb[jb_len] = '\0';
}

static void jputc(char ch) { jput(&ch, 1); }
static void jputs(const char *s) { jput(s, strlen(s)); }

static void jprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void jprintf(const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        jput(tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A string as a JSON string, into out (for the envelope). */
static void jstr_to(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", out);
        else if (ch < 0x20 || ch >= 0x7F)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void j_raw_doc(const char *doc)
{
    jputs(doc);
    j_done();
}

void ctl_json_finish(ctl *c, int rc, unsigned docs_before)
{
    /* A command that stopped inside an object leaves no nesting behind
     * for the next one (a script's next command, fuzz_vpd's next input). */
    j_level = 0;
    j_first[0] = true;
    if (!c->json) {
        jb_len = 0;
        return;
    }
    if (jb_oom) {
        jb_len = 0;
        jb_oom = false;
        ctl_err(c, CTL_EOTHER, "out of memory for the JSON output");
    }
    if (jb_len == 0 && rc != 0 && j_ndocs == docs_before)
        ctl_json_error(c, rc);
    const char *name = c->json_cmd != NULL ? c->json_cmd : c->cmd != NULL ? c->cmd : "pcamctl";
    for (size_t at = 0; at < jb_len;) {
        char *doc = jb + at, *nl = memchr(doc, '\n', jb_len - at);
        size_t n = nl != NULL ? (size_t)(nl - doc) : jb_len - at;
        at += n + 1;
        if (n < 2 || doc[0] != '{' || doc[n - 1] != '}') {
            fwrite(doc, 1, n, stdout); /* not an object: cannot happen, never hidden */
            fputc('\n', stdout);
            continue;
        }
        doc[n] = '\0';
        fputs("{\"command\":", stdout);
        jstr_to(stdout, name);
        fprintf(stdout, ",\"ok\":%s", rc == 0 ? "true" : "false");
        if (n > 2)
            fputc(',', stdout);
        fwrite(doc + 1, 1, n - 2, stdout);
        if (rc != 0 && strstr(doc, "\"exit_status\":") == NULL) {
            fprintf(stdout, ",\"exit_status\":%d,\"kind\":\"%s\",\"error\":", rc, ctl_exit_kind(rc));
            jstr_to(stdout, c->last_err[0] != '\0' ? c->last_err : "failed");
        }
        fputs("}\n", stdout);
    }
    jb_len = 0;
}

unsigned j_docs(void)
{
    return j_ndocs;
}

static void j_string(const char *s)
{
    jputc('"');
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            jprintf("\\%c", ch);
        else if (ch == '\n')
            jputs("\\n");
        else if (ch < 0x20 || ch >= 0x7F)
            jprintf("\\u%04x", ch);
        else
            jputc(ch);
    }
    jputc('"');
}

static void j_key(const char *key)
{
    if (!j_first[j_level])
        jputc(',');
    j_first[j_level] = false;
    if (key != NULL) {
        j_string(key);
        jputc(':');
    }
}

static void j_open(const char *key, char ch)
{
    j_key(key);
    jputc(ch);
    if (j_level + 1 < J_DEPTH)
        j_level++;
    j_first[j_level] = true;
}

void j_obj(const char *key) { j_open(key, '{'); }
void j_arr(const char *key) { j_open(key, '['); }

void j_end_obj(void)
{
    jputc('}');
    if (j_level > 0)
        j_level--;
}

void j_end_arr(void)
{
    jputc(']');
    if (j_level > 0)
        j_level--;
}

void j_str(const char *key, const char *v)
{
    j_key(key);
    j_string(v != NULL ? v : "");
}

void j_u64(const char *key, uint64_t v)
{
    j_key(key);
    jprintf("%llu", (unsigned long long)v);
}

void j_bool(const char *key, bool v)
{
    j_key(key);
    jputs(v ? "true" : "false");
}

void j_null(const char *key)
{
    j_key(key);
    jputs("null");
}

void j_i64(const char *key, int64_t v)
{
    j_key(key);
    jprintf("%lld", (long long)v);
}

void j_done(void)
{
    j_ndocs++;
    jputc('\n');
    j_level = 0;
    j_first[0] = true;
}

void j_sense(const char *key, const uint8_t *sense, size_t len)
{
    pcam_sense s;
    char line[256];
    char hex[3 * 64 + 1];
    size_t n = len < 64 ? len : 64;
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 3 * i, 4, "%02x%s", sense[i], i + 1 < n ? " " : "");
    hex[n ? 3 * n - 1 : 0] = '\0';
    pcam_err e = pcam_sense_decode(sense, len, &s);
    j_obj(key);
    j_str("bytes", hex);
    if (e != PCAM_OK) {
        j_str("error", pcam_strerror(e));
        j_end_obj();
        return;
    }
    pcam_sense_format(&s, line, sizeof line);
    j_u64("response_code", s.response_code);
    j_bool("deferred", s.deferred);
    j_u64("key", s.key);
    j_str("key_name", pcam_sense_key_name(s.key));
    if (s.asc_valid) {
        char text[128];
        pcam_asc_format(s.asc, s.ascq, text, sizeof text);
        j_u64("asc", s.asc);
        j_u64("ascq", s.ascq);
        j_str("asc_text", text);
    }
    if (s.info_valid)
        j_u64("info", s.info);
    else
        j_null("info");
    j_bool("truncated", s.truncated);
    j_str("text", line);
    j_end_obj();
}

void ctl_hexdump(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        printf("  %04zx ", i);
        for (size_t k = 0; k < 16; k++) {
            if (i + k < n)
                printf(" %02x", b[i + k]);
            else
                fputs("   ", stdout);
        }
        fputs("  ", stdout);
        for (size_t k = 0; k < 16 && i + k < n; k++)
            putchar(b[i + k] >= 0x20 && b[i + k] < 0x7F ? b[i + k] : '.');
        putchar('\n');
    }
}

const char *ctl_event_name(uint16_t code)
{
    static const char *const names[] = {
        NULL, "BUS_RESET", "CHIP_RESET", "SEL_TIMEOUT", "NEGOTIATED", "QUEUE_FULL", "TIMEOUT",
        "ABORT_SENT", "BDR_SENT", "LUN_RESET", "PARITY", "UNEXP_FREE", "BAD_PHASE",
        "BAD_RESELECT", "MSG_REJECT", "CHECK_COND", "FOUND", "LOST", "ORDERED", "STARVE",
        "SPEED_DOWN"};
    if (code < sizeof names / sizeof names[0] && names[code] != NULL)
        return names[code];
    return "EVENT";
}

void ctl_print_events(ctl *c)
{
    pcam_event ev[PCAM_EVENT_RING];
    size_t n = pcam_bus_read_events(ctl_bus(c), ev, PCAM_EVENT_RING);
    if (c->json)
        j_arr("events");
    else if (n != 0)
        printf("events:\n");
    for (size_t i = 0; i < n; i++) {
        if (c->json) {
            j_obj(NULL);
            j_u64("time_ns", ev[i].time_ns);
            j_str("event", ctl_event_name(ev[i].code));
            if (ev[i].target != 0xFF)
                j_u64("target", ev[i].target);
            if (ev[i].lun != 0xFF)
                j_u64("lun", ev[i].lun);
            /* The event's argument decoded into what it means for that
             * event, and nothing for events that have none. */
            uint32_t arg = ev[i].arg;
            switch (ev[i].code) {
            case PCAM_EV_BUS_RESET: j_bool("ours", arg == 1); break;
            case PCAM_EV_NEGOTIATED:
                j_u64("period", arg & 0xFFu);
                j_u64("offset", (arg >> 8) & 0xFFu);
                j_u64("width", ((arg >> 16) & 0xFFu) <= 2 ? 8u << ((arg >> 16) & 0xFFu) : 0);
                j_u64("ppr_options", arg >> 24);
                break;
            case PCAM_EV_QUEUE_FULL: j_u64("depth", arg); break;
            case PCAM_EV_TIMEOUT: case PCAM_EV_ABORT_SENT: case PCAM_EV_BAD_RESELECT: j_u64("tag", arg); break;
            case PCAM_EV_PARITY: case PCAM_EV_BAD_PHASE: j_u64("phase", arg); break;
            case PCAM_EV_MSG_REJECT: j_u64("message", arg); break;
            case PCAM_EV_CHECK_COND:
                j_u64("sense_key", (arg >> 16) & 0xFu);
                j_u64("asc", (arg >> 8) & 0xFFu);
                j_u64("ascq", arg & 0xFFu);
                break;
            case PCAM_EV_SPEED_DOWN: j_u64("period", arg); break;
            default: break;
            }
            j_end_obj();
            continue;
        }
        printf("  %10.3f ms  %-12s", (double)ev[i].time_ns / 1e6, ctl_event_name(ev[i].code));
        if (ev[i].target != 0xFF)
            printf(" target %u", ev[i].target);
        if (ev[i].lun != 0xFF)
            printf(" lun %u", ev[i].lun);
        if (ev[i].code == PCAM_EV_CHECK_COND) {
            char text[128];
            unsigned key = (ev[i].arg >> 16) & 0xFu, asc = (ev[i].arg >> 8) & 0xFFu,
                     ascq = ev[i].arg & 0xFFu;
            pcam_asc_format((uint8_t)asc, (uint8_t)ascq, text, sizeof text);
            printf("  %s: %s (%x/%02x/%02x)", pcam_sense_key_name((uint8_t)key), text, key, asc, ascq);
        } else if (ev[i].code == PCAM_EV_NEGOTIATED) {
            pcam_xfer_settings x;
            char text[96];
            memset(&x, 0, sizeof x);
            x.period = (uint8_t)ev[i].arg;
            x.offset = (uint8_t)(ev[i].arg >> 8);
            x.width = (uint8_t)(ev[i].arg >> 16);
            x.ppr_options = (uint8_t)(ev[i].arg >> 24);
            ctl_fmt_xfer(&x, text, sizeof text);
            printf("  %s", text);
        } else if (ev[i].arg != 0) {
            printf("  arg 0x%x", (unsigned)ev[i].arg);
        }
        putchar('\n');
    }
    if (c->json)
        j_end_arr();
}
