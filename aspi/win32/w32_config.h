/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What wnaspi32.ini means (docs/aspi.md): its [wnaspi32] and [topology]
 * sections, the topology items (pcamctl's --sim grammar, one per line as
 * ID = KIND:OPTIONS, with file= taking Windows paths), and how a path in it
 * is resolved against the ini file's folder. Plain C with no Windows call:
 * the host build unit-tests and fuzzes it as the DLL runs it.
 */
#ifndef PCAM_W32_CONFIG_H
#define PCAM_W32_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "ctl.h"

/* A Windows path (MAX_PATH) with its NUL. */
#define W32_PATH 260

typedef struct w32_config {
    simspec spec;        /* the topology, when has_topology */
    bool has_topology;   /* [topology] held at least one item */
    bool log_given;      /* [wnaspi32] log= was read (even if later lines are bad) */
    char log[W32_PATH];  /* the log file, resolved; "" = no log (the default) */
} w32_config;

/*
 * Parse a decoded wnaspi32.ini (w32_ini_decode). dir is the ini's folder
 * with its trailing backslash: relative paths resolve against it. 0, or -1
 * with "line N: why" in err; c->log and c->log_given hold what was read
 * before the error, so a broken file's own log= still names the log.
 */
int w32_config_ini(const char *text, const char *dir, w32_config *c, char *err, size_t errcap);

/*
 * Parse a topology written on one line (PCAM_ASPI_SIM): items separated by
 * commas, each ID:KIND:OPTIONS or bus:OPTIONS, with the same file= as the
 * ini. Relative paths resolve against dir ("" leaves them relative to the
 * working folder). 0, or -1 with the reason in err.
 */
int w32_config_topology(const char *text, const char *dir, simspec *spec, char *err, size_t errcap);

/*
 * Resolve path against dir (a folder with its trailing separator):
 * "C:\x" and "\\server\share\x" (and "\\?\...") stay as they are, "\x"
 * takes dir's drive or share, anything else is appended to dir. "C:x"
 * (relative to a drive's current folder) is refused. 0, or -1 with err.
 */
int w32_path_resolve(const char *dir, const char *path, char *out, size_t outcap, char *err, size_t errcap);

#endif /* PCAM_W32_CONFIG_H */
