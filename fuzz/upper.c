/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The upper layer of the command-level fuzz targets (upper.h). Data and
 * sense buffers are exact-size heap blocks, so ASan and Valgrind see a
 * back-end that writes past them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upper.h"

#define NCCB 24

static unsigned done_count[NCCB];
static pcam_ccb ccbs[NCCB];
static bool busy[NCCB];

static void on_done(pcam_ccb *c)
{
    unsigned i = (unsigned)(c - ccbs);
    if (++done_count[i] > 1) {
        fprintf(stderr, "CCB %u completed twice\n", i);
        abort();
    }
    busy[i] = false;
    free(c->u.io.data);
    free(c->u.io.sense);
    c->u.io.data = NULL;
    c->u.io.sense = NULL;
}

void upper_check(pcam_bus *bus)
{
    const char *v = pcam_bus_check_invariants(bus);
    if (v != NULL) {
        fprintf(stderr, "invariant: %s\n", v);
        abort();
    }
}

void upper_submit(pcam_bus *bus, uint8_t a, uint8_t b, uint8_t c)
{
    unsigned i = a % NCCB;
    pcam_ccb *k = &ccbs[i];
    if (busy[i])
        return;
    memset(k, 0, sizeof *k);
    done_count[i] = 0;
    k->func = PCAM_FN_SCSI_IO;
    k->target = (uint8_t)(b & 0x0F);
    k->lun = (uint8_t)((b >> 4) & 1);
    k->done = on_done;
    k->timeout_ms = 100u * (1u + (c & 0x1F));
    uint32_t len = (c & 0x20) != 0 ? 512u * (1u + (a >> 5)) : 0;
    uint8_t cdb[10] = {len != 0 ? 0x28 : 0x00};
    if (len != 0) {
        cdb[8] = (uint8_t)(len / 512u);
        k->u.io.dir = (c & 0x40) != 0 ? PCAM_DIR_OUT : PCAM_DIR_IN;
        if (k->u.io.dir == PCAM_DIR_OUT)
            cdb[0] = 0x2A;
        k->u.io.data = calloc(1, len);
        k->u.io.data_len = len;
    }
    memcpy(k->u.io.cdb, cdb, 10);
    k->u.io.cdb_len = len != 0 ? 10 : 6;
    k->u.io.sense_len = (uint8_t)(18u + (b & 0x0E));
    k->u.io.sense = calloc(1, k->u.io.sense_len); /* a lying device may claim sense it never wrote */
    if ((c & 0x80) != 0) {
        k->flags |= PCAM_CCB_TAGGED;
        k->u.io.tag_action = (uint8_t)(0x20 + (a & 1) + ((b & 1) << 1) % 3);
    }
    busy[i] = true;
    pcam_action(bus, k);
}

static pcam_ccb mccb;
static unsigned mdone;
static bool mbusy;

static void misc_done(pcam_ccb *c)
{
    (void)c;
    if (++mdone > 1) {
        fprintf(stderr, "management CCB completed twice\n");
        abort();
    }
    mbusy = false;
}

void upper_misc(pcam_bus *bus, uint8_t a, uint8_t b)
{
    if (mbusy)
        return;
    memset(&mccb, 0, sizeof mccb);
    mccb.target = (uint8_t)(b & 0x0F);
    mccb.done = misc_done;
    switch (a % 4u) {
    case 0:
        if (!busy[b % NCCB])
            return;
        mccb.func = PCAM_FN_ABORT;
        mccb.u.abort.victim = &ccbs[b % NCCB];
        break;
    case 1:
        mccb.func = PCAM_FN_RESET_DEV;
        mccb.flags = (b & 0x80) != 0 ? PCAM_CCB_LUN_RESET : 0;
        break;
    case 2:
        mccb.func = PCAM_FN_RESET_BUS;
        break;
    default:
        mccb.func = PCAM_FN_SCAN_LUN;
        break;
    }
    mdone = 0;
    mbusy = true;
    pcam_action(bus, &mccb);
}

void upper_reset(void)
{
    memset(ccbs, 0, sizeof ccbs);
    memset(busy, 0, sizeof busy);
    memset(done_count, 0, sizeof done_count);
    mbusy = false;
}

void upper_finish(void)
{
    if (mbusy) {
        fprintf(stderr, "management CCB never completed\n");
        abort();
    }
    for (unsigned i = 0; i < NCCB; i++) {
        if (busy[i]) {
            fprintf(stderr, "CCB %u never completed\n", i);
            abort();
        }
    }
}
