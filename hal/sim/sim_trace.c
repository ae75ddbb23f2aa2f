/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Observability of the simulated bus: the trace ring, the readable phase log
 * and the VCD writer.
 *
 * VCD: signal changes are produced slightly ahead of time (a byte run knows
 * all its handshakes when it starts), so they are buffered and written in
 * time order once the clock has passed them; anything produced later always
 * lies at or after the current time, so the order in the file is the order
 * on the bus. Values equal to the last written one are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "pcam/pcam_err.h"

/* ---- names ---- */

const char *sim_phase_name(pcam_phase p)
{
    switch (p) {
    case PCAM_PHASE_DATA_OUT:
        return "DATA OUT";
    case PCAM_PHASE_DATA_IN:
        return "DATA IN";
    case PCAM_PHASE_COMMAND:
        return "COMMAND";
    case PCAM_PHASE_STATUS:
        return "STATUS";
    case PCAM_PHASE_RESERVED4:
        return "RESERVED(4)";
    case PCAM_PHASE_RESERVED5:
        return "RESERVED(5)";
    case PCAM_PHASE_MSG_OUT:
        return "MESSAGE OUT";
    case PCAM_PHASE_MSG_IN:
        return "MESSAGE IN";
    case PCAM_PHASE_BUS_FREE:
        return "BUS FREE";
    }
    return "?";
}

static const char *event_name(uint32_t type)
{
    static const char *const names[] = {"NONE",     "SELECT_DONE", "SEL_TIMEOUT", "RESELECTED",
                                        "XFER_DONE", "MSGOUT_DONE", "MSG_BYTE",    "PHASE",
                                        "BUS_FREE",  "BUS_RESET",   "GROSS_ERROR"};

    return type < sizeof names / sizeof names[0] ? names[type] : "?";
}

static const char *call_name(uint32_t call)
{
    static const char *const names[] = {"?",      "select", "transfer", "msg_out",
                                        "msg_in", "msg_accept", "set_xfer"};

    return call < sizeof names / sizeof names[0] ? names[call] : "?";
}

static const char *note_name(uint32_t note)
{
    static const char *const names[] = {"QUEUED", "START", "READY", "DONE", "ABORTED", "DROPPED"};

    return note < sizeof names / sizeof names[0] ? names[note] : "?";
}

/* ---- formatting ---- */

int pcam_sim_trace_format(const pcam_sim_trace_entry *e, char *buf, size_t cap)
{
    char who[8], what[96];
    int n;

    if (e == NULL || buf == NULL)
        return PCAM_ERR_NULL;
    if (e->target < PCAM_SIM_MAX_IDS)
        snprintf(who, sizeof who, "T%u", (unsigned)e->target);
    else
        snprintf(who, sizeof who, "--");
    switch (e->kind) {
    case PCAM_SIM_TR_ARBITRATION:
        snprintf(what, sizeof what, "ARBITRATION won by %u (contenders 0x%04X)", (unsigned)e->target,
                 (unsigned)e->value);
        break;
    case PCAM_SIM_TR_SELECTION:
        snprintf(what, sizeof what, "SELECTION%s", e->value ? " with ATN" : "");
        break;
    case PCAM_SIM_TR_SEL_TIMEOUT:
        snprintf(what, sizeof what, "SELECTION TIMEOUT");
        break;
    case PCAM_SIM_TR_RESELECTION:
        snprintf(what, sizeof what, "RESELECTION IDENTIFY 0x%02X", (unsigned)e->byte);
        break;
    case PCAM_SIM_TR_PHASE:
        snprintf(what, sizeof what, "PHASE %s", sim_phase_name(e->phase));
        break;
    case PCAM_SIM_TR_MSG_OUT:
    case PCAM_SIM_TR_MSG_IN:
        snprintf(what, sizeof what, "%s 0x%02X %s", e->kind == PCAM_SIM_TR_MSG_OUT ? "MSG OUT" : "MSG IN",
                 (unsigned)e->byte, pcam_msg_name(e->byte));
        break;
    case PCAM_SIM_TR_COMMAND:
        snprintf(what, sizeof what, "COMMAND %u bytes, opcode 0x%02X", (unsigned)e->count, (unsigned)e->byte);
        break;
    case PCAM_SIM_TR_DATA:
        snprintf(what, sizeof what, "%s %u bytes in %u ns", sim_phase_name(e->phase), (unsigned)e->count,
                 (unsigned)e->value);
        break;
    case PCAM_SIM_TR_STATUS:
        snprintf(what, sizeof what, "STATUS 0x%02X", (unsigned)e->byte);
        break;
    case PCAM_SIM_TR_ATN:
        snprintf(what, sizeof what, "ATN %s", e->value ? "on" : "off");
        break;
    case PCAM_SIM_TR_BUS_FREE:
        snprintf(what, sizeof what, "BUS FREE");
        break;
    case PCAM_SIM_TR_BUS_RESET:
        snprintf(what, sizeof what, "BUS RESET (%s)", e->value ? "initiator" : "another device");
        break;
    case PCAM_SIM_TR_PARITY:
        snprintf(what, sizeof what, "PARITY ERROR injected in %s at byte %u", sim_phase_name(e->phase),
                 (unsigned)e->count);
        break;
    case PCAM_SIM_TR_EVENT:
        snprintf(what, sizeof what, "-> %s phase %s count %u byte 0x%02X", event_name(e->value),
                 sim_phase_name(e->phase), (unsigned)e->count, (unsigned)e->byte);
        break;
    case PCAM_SIM_TR_GROSS_ERROR:
        snprintf(what, sizeof what, "GROSS ERROR: %s refused (error -%u)", call_name(e->value),
                 (unsigned)e->count);
        break;
    case PCAM_SIM_TR_TASK:
        snprintf(what, sizeof what, "TASK lun %u %s tag 0x%02X opcode 0x%02X %s", (unsigned)e->lun,
                 e->tag_type == 0 ? "untagged" : pcam_msg_name(e->tag_type),
                 (unsigned)e->byte, (unsigned)e->count, note_name(e->value));
        break;
    default:
        snprintf(what, sizeof what, "?");
        break;
    }
    n = snprintf(buf, cap, "%10llu.%03u us  %-3s %s", (unsigned long long)(e->t_ns / 1000u),
                 (unsigned)(e->t_ns % 1000u), who, what);
    if (n < 0)
        return PCAM_ERR_NULL;
    if ((size_t)n >= cap)
        return PCAM_ERR_NOSPACE;
    return n;
}

/* ---- ring and log ---- */

static void log_line(pcam_sim *s, const pcam_sim_trace_entry *e)
{
    char line[160];

    if (pcam_sim_trace_format(e, line, sizeof line) != PCAM_ERR_NULL)
        fprintf(s->log, "%s\n", line);
}

static void log_flush(pcam_sim *s)
{
    for (unsigned i = 0; i < s->log_nheld; i++)
        log_line(s, &s->log_held[i]);
    s->log_nheld = 0;
}

/* One line for a two-byte message (SIMPLE / HEAD OF QUEUE / ORDERED tag and
 * the rest of the 0x20-0x2F group): its code and its argument byte, which
 * alone would read as a message of its own (a tag 0x00 as COMMAND COMPLETE). */
static void log_pair(pcam_sim *s, const pcam_sim_trace_entry *first, const pcam_sim_trace_entry *second)
{
    char line[160];
    unsigned code = first->byte;
    const char *who = first->kind == PCAM_SIM_TR_MSG_OUT ? "MSG OUT" : "MSG IN";
    int n;

    if (first->target < PCAM_SIM_MAX_IDS)
        n = snprintf(line, sizeof line, "%10llu.%03u us  T%-2u %s 0x%02X 0x%02X %s%s0x%02X",
                     (unsigned long long)(first->t_ns / 1000u), (unsigned)(first->t_ns % 1000u),
                     (unsigned)first->target, who, code, (unsigned)second->byte, pcam_msg_name((uint8_t)code),
                     code <= PCAM_MSG_ORDERED_TAG ? " tag " : " ", (unsigned)second->byte);
    else
        n = snprintf(line, sizeof line, "%10llu.%03u us  --  %s 0x%02X 0x%02X %s", (unsigned long long)(first->t_ns / 1000u),
                     (unsigned)(first->t_ns % 1000u), who, code, (unsigned)second->byte,
                     pcam_msg_name((uint8_t)code));
    if (n > 0)
        fprintf(s->log, "%s\n", line);
}

/* Where a message byte falls in its message, per SPI: the first byte says
 * how long the message is (1, 2, or extended with a length byte). */
static bool log_first_byte(pcam_sim *s, unsigned dir, uint8_t b)
{
    bool first = s->log_left[dir] == 0;

    if (first) {
        if (b == PCAM_MSG_EXTENDED)
            s->log_left[dir] = 0x100;
        else if (b >= 0x20 && b <= 0x2F)
            s->log_left[dir] = 1;
    } else if (s->log_left[dir] == 0x100) {
        s->log_left[dir] = b != 0 ? b : 256; /* the extended length byte */
    } else {
        s->log_left[dir]--;
    }
    return first;
}

/* An extended message (SDTR, WDTR, PPR...) as one line with its bytes and
 * what core/proto's decoder makes of them, as pcamdecode msg prints it;
 * stamped with its last byte. A message cut short says so. */
static void log_ext_line(pcam_sim *s, const pcam_sim_trace_entry *last, unsigned dir, bool complete)
{
    char hex[3 * 16 + 1], text[PCAM_MSG_TEXT_MAX];
    unsigned n = s->log_ext_n[dir] < 16u ? s->log_ext_n[dir] : 16u;
    pcam_msg m;
    size_t used = 0;

    for (unsigned i = 0; i < n; i++)
        snprintf(hex + 3 * i, 4, " %02X", (unsigned)s->log_ext[dir][i]);
    hex[3 * n] = '\0';
    if (!complete)
        snprintf(text, sizeof text, "(extended message cut short after %u bytes)", (unsigned)s->log_ext_n[dir]);
    else if (pcam_msg_decode(s->log_ext[dir], n, &m, &used) != 0 || pcam_msg_format(&m, text, sizeof text) < 0)
        snprintf(text, sizeof text, "(malformed extended message)");
    fprintf(s->log, "%10llu.%03u us  T%-2u %s%s  %s\n", (unsigned long long)(last->t_ns / 1000u),
            (unsigned)(last->t_ns % 1000u), (unsigned)(last->target < PCAM_SIM_MAX_IDS ? last->target : 0u),
            dir != 0 ? "MSG IN" : "MSG OUT", hex, text);
    s->log_ext_n[dir] = 0;
}

static void sim_log(pcam_sim *s, const pcam_sim_trace_entry *e)
{
    bool msg = e->kind == PCAM_SIM_TR_MSG_OUT || e->kind == PCAM_SIM_TR_MSG_IN;

    if (msg) {
        unsigned dir = e->kind == PCAM_SIM_TR_MSG_IN;
        bool first = log_first_byte(s, dir, e->byte);

        if ((first && e->byte == PCAM_MSG_EXTENDED) || (!first && s->log_ext_n[dir] > 0)) {
            if (first) {
                log_flush(s);
                s->log_ext_n[dir] = 0;
            }
            if (s->log_ext_n[dir] < 16u)
                s->log_ext[dir][s->log_ext_n[dir]] = e->byte;
            if (s->log_ext_n[dir] < 0xFFFFu)
                s->log_ext_n[dir]++;
            if (s->log_left[dir] == 0)
                log_ext_line(s, e, dir, true);
            return;
        }

        if (s->log_nheld > 0 && !first && s->log_held[0].kind == e->kind) {
            /* The second byte of the held pair: print both as one. */
            log_pair(s, &s->log_held[0], e);
            for (unsigned i = 1; i < s->log_nheld; i++)
                log_line(s, &s->log_held[i]);
            s->log_nheld = 0;
            return;
        }
        log_flush(s);
        if (first && e->byte >= 0x20 && e->byte <= 0x2F) {
            s->log_held[0] = *e;
            s->log_nheld = 1;
            return;
        }
        if (!first) {
            /* An extended message's length or argument byte: no name. */
            fprintf(s->log, "%10llu.%03u us  T%-2u %s 0x%02X (message byte)\n",
                    (unsigned long long)(e->t_ns / 1000u), (unsigned)(e->t_ns % 1000u),
                    (unsigned)(e->target < PCAM_SIM_MAX_IDS ? e->target : 0u),
                    dir != 0 ? "MSG IN" : "MSG OUT", (unsigned)e->byte);
            return;
        }
        log_line(s, e);
        return;
    }
    /* A target asks for each message-in byte in MESSAGE IN again: that is
     * no new phase for the message in progress. Any other phase, a
     * selection or a reset ends whatever message was in progress. */
    bool same = e->kind == PCAM_SIM_TR_PHASE &&
                ((e->phase == PCAM_PHASE_MSG_IN && s->log_left[1] != 0) ||
                 (e->phase == PCAM_PHASE_MSG_OUT && s->log_left[0] != 0));
    if (!same && (e->kind == PCAM_SIM_TR_PHASE || e->kind == PCAM_SIM_TR_SELECTION ||
        e->kind == PCAM_SIM_TR_RESELECTION || e->kind == PCAM_SIM_TR_BUS_FREE ||
        e->kind == PCAM_SIM_TR_BUS_RESET || e->kind == PCAM_SIM_TR_SEL_TIMEOUT)) {
        for (unsigned d = 0; d < 2; d++)
            if (s->log_ext_n[d] > 0)
                log_ext_line(s, e, d, false);
        s->log_left[0] = 0;
        s->log_left[1] = 0;
        log_flush(s);
        log_line(s, e);
        return;
    }
    /* Events and ATN changes between the two bytes wait with the first. */
    if (s->log_nheld > 0 && s->log_nheld < sizeof s->log_held / sizeof s->log_held[0]) {
        s->log_held[s->log_nheld++] = *e;
        return;
    }
    log_flush(s);
    log_line(s, e);
}

void sim_ring_push(pcam_sim *s, const pcam_sim_trace_entry *e)
{
    if (s->ring_cap != 0) {
        s->ring[(s->ring_head + s->ring_count) % s->ring_cap] = *e;
        if (s->ring_count < s->ring_cap) {
            s->ring_count++;
        } else {
            s->ring_head = (s->ring_head + 1) % s->ring_cap;
            s->ring_dropped++;
        }
    }
    if (s->log != NULL)
        sim_log(s, e);
}

size_t pcam_sim_trace_count(const pcam_sim *s)
{
    return s != NULL ? s->ring_count : 0;
}

bool pcam_sim_trace_get(const pcam_sim *s, size_t index, pcam_sim_trace_entry *out)
{
    if (s == NULL || out == NULL || index >= s->ring_count)
        return false;
    *out = s->ring[(s->ring_head + index) % s->ring_cap];
    return true;
}

uint64_t pcam_sim_trace_dropped(const pcam_sim *s)
{
    return s != NULL ? s->ring_dropped : 0;
}

void pcam_sim_trace_clear(pcam_sim *s)
{
    if (s == NULL)
        return;
    s->ring_head = 0;
    s->ring_count = 0;
    s->ring_dropped = 0;
}

void pcam_sim_set_log(pcam_sim *s, FILE *f)
{
    if (s == NULL)
        return;
    if (s->log != NULL)
        log_flush(s); /* a pair's first byte still waiting */
    s->log = f;
}

/* ---- VCD ---- */

static const char *const vcd_names[V_NSIG] = {"BSY", "SEL", "ATN", "RST", "C_D", "I_O",
                                              "MSG", "REQ", "ACK", "DB",  "DBP", "DBP1"};

/* Identifier codes: plain capitals, so no parser can take one for a time
 * ('#'), a keyword ('$') or a value. */
static char vcd_id(unsigned sig)
{
    return (char)('A' + sig);
}

void sim_vcd_set(pcam_sim *s, uint64_t t, unsigned sig, uint32_t value)
{
    sim_vcd_change *c;

    if (s->vcd == NULL || sig >= V_NSIG)
        return;
    if (s->vcd_n == s->vcd_cap) {
        size_t cap = s->vcd_cap != 0 ? s->vcd_cap * 2 : 1024;
        sim_vcd_change *nb = realloc(s->vcd_buf, cap * sizeof *nb);

        if (nb == NULL) {
            s->vcd_error = true;
            return;
        }
        s->vcd_buf = nb;
        s->vcd_cap = cap;
    }
    c = &s->vcd_buf[s->vcd_n++];
    c->t = t;
    c->seq = s->vcd_seq++;
    c->sig = (uint8_t)sig;
    c->value = value;
}

static int cmp_change(const void *a, const void *b)
{
    const sim_vcd_change *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

static void vcd_write_value(pcam_sim *s, unsigned sig, uint32_t v)
{
    if (sig == V_DB) {
        char bits[17];
        int i;

        if (v == SIM_VCD_X) {
            fprintf(s->vcd, "bx %c\n", vcd_id(sig));
            return;
        }
        for (i = 0; i < 16; i++)
            bits[i] = (v >> (15 - i)) & 1u ? '1' : '0';
        bits[16] = '\0';
        fprintf(s->vcd, "b%s %c\n", bits, vcd_id(sig));
        return;
    }
    fprintf(s->vcd, "%c%c\n", v ? '1' : '0', vcd_id(sig));
}

void sim_vcd_flush(pcam_sim *s, uint64_t upto)
{
    size_t i, keep = 0;

    if (s->vcd == NULL || s->vcd_n == 0)
        return;
    qsort(s->vcd_buf, s->vcd_n, sizeof *s->vcd_buf, cmp_change);
    for (i = 0; i < s->vcd_n; i++) {
        sim_vcd_change *c = &s->vcd_buf[i];
        uint64_t t = c->t < s->vcd_last_t ? s->vcd_last_t : c->t;

        if (c->t > upto) {
            s->vcd_buf[keep++] = *c;
            continue;
        }
        if (c->value == s->vcd_val[c->sig])
            continue;
        if (t != s->vcd_last_t || !s->vcd_time_written) {
            fprintf(s->vcd, "#%llu\n", (unsigned long long)t);
            s->vcd_last_t = t;
            s->vcd_time_written = true;
        }
        vcd_write_value(s, c->sig, c->value);
        s->vcd_val[c->sig] = c->value;
    }
    s->vcd_n = keep;
}

void sim_vcd_drop_after(pcam_sim *s, uint64_t t)
{
    size_t i, keep = 0;

    for (i = 0; i < s->vcd_n; i++)
        if (s->vcd_buf[i].t <= t)
            s->vcd_buf[keep++] = s->vcd_buf[i];
    s->vcd_n = keep;
}

int pcam_sim_vcd_open(pcam_sim *s, const char *path)
{
    FILE *f;
    unsigned sig;

    if (s == NULL || path == NULL)
        return PCAM_ERR_NULL;
    if (s->vcd != NULL)
        return PCAM_ERR_UNSUPPORTED;
    f = fopen(path, "w");
    if (f == NULL)
        return PCAM_ERR_NOSPACE;
    fprintf(f, "$date\n  simulated time\n$end\n$version\n  pcam_sim\n$end\n$timescale 1ns $end\n");
    fprintf(f, "$scope module scsi $end\n");
    for (sig = 0; sig < V_NSIG; sig++) {
        if (sig == V_DB)
            fprintf(f, "$var wire 16 %c DB [15:0] $end\n", vcd_id(sig));
        else
            fprintf(f, "$var wire 1 %c %s $end\n", vcd_id(sig), vcd_names[sig]);
    }
    fprintf(f, "$upscope $end\n$enddefinitions $end\n");
    fprintf(f, "#%llu\n$dumpvars\n", (unsigned long long)s->now);
    s->vcd = f;
    memset(s->vcd_val, 0, sizeof s->vcd_val);
    for (sig = 0; sig < V_NSIG; sig++)
        vcd_write_value(s, sig, 0);
    fprintf(f, "$end\n");
    s->vcd_last_t = s->now;
    s->vcd_time_written = true;
    s->vcd_n = 0;
    s->vcd_error = false;
    return PCAM_OK;
}

int pcam_sim_vcd_close(pcam_sim *s)
{
    int rc;

    if (s == NULL)
        return PCAM_ERR_NULL;
    if (s->vcd == NULL)
        return PCAM_OK;
    sim_vcd_flush(s, SIM_NEVER);
    if (s->now > s->vcd_last_t)
        fprintf(s->vcd, "#%llu\n", (unsigned long long)s->now);
    rc = ferror(s->vcd) || s->vcd_error ? PCAM_ERR_NOSPACE : PCAM_OK;
    if (fclose(s->vcd) != 0)
        rc = PCAM_ERR_NOSPACE;
    s->vcd = NULL;
    free(s->vcd_buf);
    s->vcd_buf = NULL;
    s->vcd_n = 0;
    s->vcd_cap = 0;
    return rc;
}

void sim_trace_free(pcam_sim *s)
{
    free(s->ring);
    s->ring = NULL;
    free(s->vcd_buf);
    s->vcd_buf = NULL;
}
