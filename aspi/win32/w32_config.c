/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wnaspi32.ini's meaning (w32_config.h, docs/aspi.md). The topology items
 * are pcamctl's --sim grammar, checked by its own parser
 * (examples/pcamctl/simspec.c, unchanged); only file= is taken out first,
 * because a Windows path holds ':' (C:\...) and pcamctl's ':' separates
 * options. Its rule: the path ends at the next ':' that is not a drive
 * letter's, or it is written in double quotes.
 */
#include "w32_config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "w32_ini.h"

/* bus plus one item per ID, each at most a line long. */
#define TOPO_TEXT ((PCAM_SIM_MAX_IDS + 1u) * (W32_INI_MAX_LINE + 8u))

typedef struct topo {
    const char *dir;
    bool in_ini;  /* messages count lines (ini) or items (one-line topology) */
    bool in_section; /* the ini has a [topology] header */
    char text[TOPO_TEXT];
    size_t len;
    bool any;
    unsigned seen[PCAM_SIM_MAX_IDS + 1]; /* the line (or item) of each ID, bus last */
    char file[PCAM_SIM_MAX_IDS][SPEC_PATH];
} topo;

typedef struct ini_ctx {
    w32_config *c;
    topo t;
    unsigned log_line;
} ini_ctx;


static bool is_sep(char c)
{
    return c == '\\' || c == '/';
}

static bool is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int w32_path_resolve(const char *dir, const char *path, char *out, size_t outcap, char *err, size_t cap)
{
    char prefix[W32_PATH] = "";
    size_t n;
    if (path[0] == '\0')
        return w32_ini_fail(err, cap, "an empty path");
    if (is_sep(path[0]) && is_sep(path[1])) {
        /* \\server\share\..., \\?\C:\...: complete already. */
    } else if (is_letter(path[0]) && path[1] == ':') {
        if (!is_sep(path[2]))
            return w32_ini_fail(err, cap,
                        "'%s' is relative to the current folder of drive %c:, which depends on the "
                        "program: write %c:\\%s, or a path relative to the ini file's folder",
                        path, path[0], path[0], path + 2);
    } else if (is_sep(path[0])) {
        /* Rooted: on the ini file's drive or share, not the program's. */
        if (is_letter(dir[0]) && dir[1] == ':') {
            memcpy(prefix, dir, 2);
            prefix[2] = '\0';
        } else if (is_sep(dir[0]) && is_sep(dir[1])) {
            /* \\server\share: up to the separator after the share name. */
            const char *p = dir + 2;
            int seps = 0;
            while (*p != '\0' && !(is_sep(*p) && ++seps == 2))
                p++;
            n = (size_t)(p - dir);
            if (n < sizeof prefix) {
                memcpy(prefix, dir, n);
                prefix[n] = '\0';
            }
        }
    } else {
        if (strlen(dir) >= sizeof prefix)
            return w32_ini_fail(err, cap, "the ini file's folder is too long");
        memcpy(prefix, dir, strlen(dir) + 1);
    }
    n = strlen(prefix) + strlen(path);
    if (n >= outcap)
        return w32_ini_fail(err, cap, "a path longer than %u characters: %s%s", (unsigned)outcap - 1, prefix, path);
    snprintf(out, outcap, "%s%s", prefix, path);
    return 0;
}

/* Whether the ':' at p[i] is a drive letter's: "C:\" at the start or
 * after "\\?\" or "\\.\". */
static bool drive_colon(const char *p, size_t i)
{
    if (i == 0 || !is_letter(p[i - 1]) || !is_sep(p[i + 1]))
        return false;
    return i == 1 || (i == 5 && is_sep(p[0]) && is_sep(p[1]) && (p[2] == '?' || p[2] == '.') && is_sep(p[3]));
}

/* Take file= out of a target's options (v, after "ID:"): the rest goes to
 * rest for pcamctl's parser, the path (as written) to path; *at_end says
 * whether an unquoted path ran to the end of v (a comment after it may
 * have cut it short). */
static int split_file(const char *v, char *rest, size_t restcap, char *path, size_t pathcap, bool *at_end, char *err,
                      size_t cap)
{
    size_t rn = 0;
    bool have = false;
    *at_end = false;
    const char *o = v;
    for (;;) {
        const char *next;
        if (strncmp(o, "file=", 5) == 0) {
            const char *p = o + 5, *end;
            if (have)
                return w32_ini_fail(err, cap, "file= is given twice");
            have = true;
            if (*p == '"') {
                end = strchr(p + 1, '"');
                if (end == NULL)
                    return w32_ini_fail(err, cap, "file=\" without its closing '\"'");
                p++;
                next = end + 1;
                if (*next != '\0' && *next != ':')
                    return w32_ini_fail(err, cap, "text after file=\"...\" (options are separated by ':')");
            } else {
                size_t i = 0;
                while (p[i] != '\0' && (p[i] != ':' || drive_colon(p, i)))
                    i++;
                /* "C:x" would otherwise read as the path "C" and an option. */
                if (i == 1 && p[1] == ':' && is_letter(p[0]))
                    return w32_ini_fail(err, cap, "file=%c:...: a drive letter without a '\\' after it (a path relative "
                                          "to drive %c:'s current folder, which depends on the program)",
                                p[0], p[0]);
                end = p + i;
                next = end;
                *at_end = *end == '\0';
            }
            if (end == p)
                return w32_ini_fail(err, cap, "file= needs a path");
            if ((size_t)(end - p) >= pathcap)
                return w32_ini_fail(err, cap, "file= holds a path longer than %u characters", (unsigned)pathcap - 1);
            if (memchr(p, '"', (size_t)(end - p)) != NULL)
                return w32_ini_fail(err, cap, "a '\"' inside the path of file= (quote the whole path)");
            memcpy(path, p, (size_t)(end - p));
            path[end - p] = '\0';
        } else {
            next = strchr(o, ':');
            if (next == NULL)
                next = o + strlen(o);
            for (const char *q = o; q < next; q++)
                if (*q == '"' || *q == ',')
                    return w32_ini_fail(err, cap, "a '%c' in the option '%.*s' (only file= may be quoted; one target per "
                                          "item)", *q, (int)(next - o), o);
            size_t n = (size_t)(next - o);
            if (rn + n + 2 > restcap)
                return w32_ini_fail(err, cap, "the options are too long");
            if (rn > 0)
                rest[rn++] = ':';
            memcpy(rest + rn, o, n);
            rn += n;
        }
        if (*next == '\0')
            break;
        o = next + 1;
    }
    rest[rn] = '\0';
    return 0;
}

/* Names compare as Windows compares them: case aside. */
static bool same(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

static int append(topo *t, const char *s, char *err, size_t cap)
{
    size_t n = strlen(s);
    if (t->len + n + 2 > sizeof t->text)
        return w32_ini_fail(err, cap, "the topology is too long");
    if (t->len > 0)
        t->text[t->len++] = ',';
    memcpy(t->text + t->len, s, n + 1);
    t->len += n;
    t->any = true;
    return 0;
}

/* An unquoted path that a comment follows: the ';' or '#' may be the
 * path's own (issue 41: "my disk #0.img" became "my disk"). Refused, never
 * guessed. */
static int cut_path(const char *what, const char *path, const char *comment, char *err, size_t cap)
{
    return w32_ini_fail(err, cap,
                        "a comment ('%s') right after the unquoted path of %s ('%s'): if the '%c' belongs to the "
                        "path, quote the path (%s\"...\"); a comment after a path goes on a line of its own",
                        comment, what, path, comment[0], what);
}

/* One item: key "bus" or a target ID, value its options (comment: the
 * line's comment, NULL for none). Checked alone by pcamctl's parser, so
 * the message can name the line. */
static int topo_item(topo *t, unsigned line, const char *key, const char *value, const char *comment, char *err,
                     size_t cap)
{
    char item[W32_INI_MAX_LINE + 16], rest[W32_INI_MAX_LINE + 1], why[300];
    char path[SPEC_PATH] = "";
    simspec alone;
    if (same(key, "bus")) {
        if (t->seen[PCAM_SIM_MAX_IDS] != 0)
            return w32_ini_fail(err, cap, "bus is given twice (first on %s %u)", t->in_ini ? "line" : "item",
                        t->seen[PCAM_SIM_MAX_IDS]);
        t->seen[PCAM_SIM_MAX_IDS] = line;
        if (strchr(value, ',') != NULL || strchr(value, '"') != NULL)
            return w32_ini_fail(err, cap, "bus = %s: a ',' or '\"' in the bus options", value);
        snprintf(item, sizeof item, "bus%s%s", value[0] != '\0' ? ":" : "", value);
        if (simspec_parse(item, &alone, why, sizeof why) != 0)
            return w32_ini_fail(err, cap, "%s", why);
        return append(t, item, err, cap);
    }
    unsigned id = 0;
    if (key[0] == '\0' || strlen(key) > 2)
        return w32_ini_fail(err, cap, "'%s' is neither bus nor a target ID (0..15)", key);
    for (const char *k = key; *k != '\0'; k++) {
        if (!isdigit((unsigned char)*k))
            return w32_ini_fail(err, cap, "'%s' is neither bus nor a target ID (0..15)", key);
        id = id * 10u + (unsigned)(*k - '0');
    }
    if (id >= PCAM_SIM_MAX_IDS)
        return w32_ini_fail(err, cap, "target ID %u is outside 0..15", id);
    if (t->seen[id] != 0)
        return w32_ini_fail(err, cap, "target %u is given twice (first on %s %u)", id, t->in_ini ? "line" : "item",
                    t->seen[id]);
    t->seen[id] = line;
    bool at_end;
    if (split_file(value, rest, sizeof rest, path, sizeof path, &at_end, why, sizeof why) != 0)
        return w32_ini_fail(err, cap, "target %u: %s", id, why);
    if (at_end && comment != NULL) {
        cut_path("file=", path, comment, why, sizeof why);
        return w32_ini_fail(err, cap, "target %u: %s", id, why);
    }
    snprintf(item, sizeof item, "%u:%s", id, rest);
    if (path[0] != '\0' &&
        w32_path_resolve(t->dir, path, t->file[id], sizeof t->file[id], why, sizeof why) != 0)
        return w32_ini_fail(err, cap, "target %u: file=: %s", id, why);
    char probe[W32_INI_MAX_LINE + 32];
    snprintf(probe, sizeof probe, "bus:id=%u,%s", id == 0 ? 1u : 0u, item);
    if (simspec_parse(probe, &alone, why, sizeof why) != 0)
        return w32_ini_fail(err, cap, "%s", why);
    if (path[0] != '\0' && alone.t[id].kind != SPEC_DISK)
        return w32_ini_fail(err, cap, "target %u: file= is for a disk", id);
    if (path[0] != '\0' && alone.t[id].luns != 1)
        return w32_ini_fail(err, cap, "target %u: file= needs a single LUN", id);
    return append(t, item, err, cap);
}

static int topo_finish(topo *t, simspec *spec, char *err, size_t cap)
{
    if (simspec_parse(t->text, spec, err, cap) != 0)
        return -1;
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++)
        if (t->file[id][0] != '\0')
            memcpy(spec->t[id].file, t->file[id], sizeof spec->t[id].file);
    return 0;
}

int w32_config_topology(const char *text, const char *dir, simspec *spec, char *err, size_t cap)
{
    static topo t; /* large; the DLL initialises once, the tests run one at a time */
    char item[W32_INI_MAX_LINE + 1];
    memset(&t, 0, sizeof t);
    t.dir = dir;
    unsigned nitem = 0;
    const char *p = text;
    while (*p != '\0') {
        /* An item ends at a ',' outside double quotes. */
        const char *e = p;
        bool quoted = false;
        while (*e != '\0' && (quoted || *e != ',')) {
            if (*e == '"')
                quoted = !quoted;
            e++;
        }
        const char *b = p, *end = e;
        while (b < end && isspace((unsigned char)*b))
            b++;
        while (end > b && isspace((unsigned char)end[-1]))
            end--;
        size_t n = (size_t)(end - b);
        if (n >= sizeof item)
            return w32_ini_fail(err, cap, "an item is longer than %u characters", (unsigned)sizeof item - 1);
        memcpy(item, b, n);
        item[n] = '\0';
        if (n > 0) {
            nitem++;
            char *colon = strchr(item, ':');
            const char *value = "";
            if (colon != NULL) {
                *colon = '\0';
                value = colon + 1;
            } else if (!same(item, "bus")) {
                return w32_ini_fail(err, cap, "'%s': expected ID:KIND (for example 0:disk:64M)", item);
            }
            if (topo_item(&t, nitem, item, value, NULL, err, cap) != 0)
                return -1;
        }
        if (*e == '\0')
            break;
        p = e + 1;
    }
    return topo_finish(&t, spec, err, cap);
}

/* "bus" or a number: what belongs under [topology]. */
static bool topology_key(const char *key)
{
    if (same(key, "bus"))
        return true;
    for (const char *k = key; *k != '\0'; k++)
        if (!isdigit((unsigned char)*k))
            return false;
    return key[0] != '\0';
}

static int on_ini(void *ctx, unsigned line, const char *section, const char *key, const char *value,
                  const char *comment, char *err, size_t cap)
{
    ini_ctx *x = ctx;
    w32_config *c = x->c;
    if (key == NULL) {
        if (same(section, "topology"))
            x->t.in_section = true;
        if (same(section, "wnaspi32") || same(section, "topology"))
            return 0;
        return w32_ini_fail(err, cap, "unknown section [%s] (wnaspi32.ini has [wnaspi32] and [topology])", section);
    }
    if (section[0] == '\0') {
        /* "1:disk:2M:vendor=X": a line of the one-line format, whose '='
         * belongs to an option. Said whole, with what to write instead. */
        const char *colon = strchr(key, ':');
        if (colon != NULL)
            return w32_ini_fail(err, cap,
                                "'%s=%s' is a device line of the one-line format of earlier versions: devices go "
                                "under [topology] as %.*s = %s=%s",
                                key, value, (int)(colon - key), key, colon + 1, value);
        return w32_ini_fail(err, cap, "'%s' comes before any [section] (the topology goes under [topology], "
                              "one target per line: ID = KIND:OPTIONS)", key);
    }
    if (same(section, "topology"))
        return topo_item(&x->t, line, key, value, comment, err, cap);
    if (!same(key, "log"))
        return w32_ini_fail(err, cap, "unknown key '%s' in [wnaspi32] (it has log%s)", key,
                            topology_key(key) ? "; devices and bus go under [topology]" : "");
    if (x->log_line != 0)
        return w32_ini_fail(err, cap, "log is given twice (first on line %u)", x->log_line);
    x->log_line = line;
    char path[W32_PATH];
    size_t n = strlen(value);
    if (n >= 2 && value[0] == '"' && value[n - 1] == '"') {
        value++;
        n -= 2;
    }
    if (n >= sizeof path)
        return w32_ini_fail(err, cap, "log= holds a path longer than %u characters", (unsigned)sizeof path - 1);
    memcpy(path, value, n);
    path[n] = '\0';
    if (strchr(path, '"') != NULL)
        return w32_ini_fail(err, cap, "a '\"' inside the log path");
    if (comment != NULL && n == strlen(value) && n != 0 && !same(path, "off"))
        return cut_path("log=", path, comment, err, cap);
    c->log_given = true;
    if (n == 0 || same(path, "off"))
        return 0;
    return w32_path_resolve(x->t.dir, path, c->log, sizeof c->log, err, cap);
}

int w32_config_ini(const char *text, const char *dir, w32_config *c, char *err, size_t cap)
{
    static ini_ctx x; /* large; see w32_config_topology */
    memset(c, 0, sizeof *c);
    memset(&x, 0, sizeof x);
    x.c = c;
    x.t.dir = dir;
    x.t.in_ini = true;
    if (w32_ini_parse(text, on_ini, &x, err, cap) != 0)
        return -1;
    if (!x.t.in_section)
        return 0;
    /* An empty [topology] is a bus with no device, not the default. */
    if (!x.t.any && append(&x.t, "bus", err, cap) != 0)
        return -1;
    if (topo_finish(&x.t, &c->spec, err, cap) != 0) {
        char why[400];
        snprintf(why, sizeof why, "%s", err);
        return w32_ini_fail(err, cap, "[topology]: %s", why);
    }
    c->has_topology = true;
    return 0;
}
