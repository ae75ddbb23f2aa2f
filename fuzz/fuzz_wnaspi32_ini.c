/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target for wnaspi32.ini (aspi/win32/w32_ini.c and w32_config.c, with
 * pcamctl's topology parser): the input is the file as stored. It is
 * decoded and parsed as the DLL does, under an ini folder long enough that
 * resolved paths meet their limit; the decoded text is also read as
 * PCAM_ASPI_SIM's one-line topology. Whatever is accepted must be sane:
 * resolved paths terminated and within MAX_PATH, every present target a
 * disk or CD with 1..8 LUNs, file= only on single-LUN disks.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "w32_config.h"
#include "w32_ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_spec(const simspec *s)
{
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        const spec_target *t = &s->t[id];
        if (memchr(t->file, '\0', sizeof t->file) == NULL)
            abort();
        if (t->kind == SPEC_NONE)
            continue;
        if ((t->kind != SPEC_DISK && t->kind != SPEC_CD) || t->luns < 1 || t->luns > PCAM_SIM_LUNS)
            abort();
        if (t->file[0] != '\0' && (t->kind != SPEC_DISK || t->luns != 1))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[W32_INI_MAX_FILE + 1];
    static w32_config c;
    static simspec s;
    static const char *dirs[] = {"C:\\app\\", "\\\\server\\share\\a\\",
                                 "C:\\a-folder-whose-name-takes-up-most-of-the-room-a-path-has-"
                                 "so-that-relative-paths-reach-max-path-quickly-0123456789-0123456789-"
                                 "0123456789-0123456789-0123456789-0123456789-0123456789-0123\\"};
    char err[256];
    if (size > W32_INI_MAX_FILE + 16)
        return 0;
    if (w32_ini_decode(data, size, text, sizeof text, err, sizeof err) != 0) {
        if (memchr(err, '\0', sizeof err) == NULL)
            abort();
        return 0;
    }
    const char *dir = dirs[size % 3];
    if (w32_config_ini(text, dir, &c, err, sizeof err) == 0) {
        if (memchr(c.log, '\0', sizeof c.log) == NULL)
            abort();
        if (c.has_topology)
            check_spec(&c.spec);
    }
    if (strlen(text) < 4096 && w32_config_topology(text, dir, &s, err, sizeof err) == 0)
        check_spec(&s);
    return 0;
}
