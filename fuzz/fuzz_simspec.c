/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target for pcamctl's simulated-bus topology (examples/pcamctl/
 * simspec.c: --sim TEXT and --sim @FILE's items, also the grammar of
 * wnaspi32.ini's [topology] and PCAM_ASPI_SIM). The input is the text
 * itself. Whatever is accepted must be a bus pcamctl can build: width 8 or
 * 16, the initiator inside it and no target on it, every present target a
 * disk or CD with 1..8 LUNs, block sizes pcamctl documents, at most
 * SPEC_MAX_MERR medium errors, each on the medium, strings terminated.
 * A refusal must say why (a terminated, non-empty message).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)            \
    do {                    \
        if (!(c))           \
            abort();        \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[8192];
    static simspec s;
    char err[256];
    if (size >= sizeof text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    err[0] = '\0';
    if (simspec_parse(text, &s, err, sizeof err) != 0) {
        CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
        return 0;
    }
    CHECK(s.width == 8 || s.width == 16);
    CHECK(s.initiator < s.width);
    CHECK(s.t[s.initiator].kind == SPEC_NONE);
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        const spec_target *t = &s.t[id];
        CHECK(memchr(t->file, '\0', sizeof t->file) != NULL);
        CHECK(memchr(t->vendor, '\0', sizeof t->vendor) != NULL);
        CHECK(memchr(t->product, '\0', sizeof t->product) != NULL);
        if (t->kind == SPEC_NONE)
            continue;
        CHECK(id < s.width);
        CHECK(t->kind == SPEC_DISK || t->kind == SPEC_CD);
        CHECK(t->luns >= 1 && t->luns <= PCAM_SIM_LUNS);
        CHECK(t->block_size == 512 || t->block_size == 1024 || t->block_size == 2048 || t->block_size == 4096);
        CHECK(t->nmerr <= SPEC_MAX_MERR);
        for (unsigned i = 0; i < t->nmerr; i++)
            CHECK(t->bytes != 0 && t->merr[i] < t->bytes / t->block_size);
    }
    return 0;
}
