/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Chained endings (pcam_hal.h): a chip that reads the status byte and the
 * first message-in byte itself and reports them with the action that led
 * there. The same commands run on a chip that chains and on one that
 * reports every step; they must end the same (status, data, sense,
 * residual), and the chip must report exactly the events worked out by
 * hand below for a tagged 4 KiB read that disconnects (6 events against 13).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"
#include "simrig.h"

#define BLOCKS 2048u
#define LOG_MAX 64

/* Every event the core fetched, with what was taken. */
static pcam_hal_event seen[LOG_MAX];
static unsigned nseen;
static const pcam_hal_ops *real_ops;

static int logging_poll(void *sc, pcam_hal_event *ev)
{
    int rc = real_ops->poll(sc, ev);
    if (rc == 1 && nseen < LOG_MAX)
        seen[nseen++] = *ev;
    return rc;
}

typedef struct world {
    simrig r;
    pcam_hal_ops ops;
    uint8_t *media;
} world;

static void world_init(world *w, bool chain)
{
    pcam_sim_target_config tc;
    rig_ccb scan;
    setenv("PCAM_SIM_CHAIN", chain ? "1" : "0", 1);
    assert_int_equal(simrig_init(&w->r, NULL, NULL, false), 0);
    unsetenv("PCAM_SIM_CHAIN");
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    w->media = simrig_add_disk(&w->r, 2, 0, BLOCKS, &tc);
    assert_non_null(w->media);
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&w->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    real_ops = w->r.bus.hal.ops;
    w->ops = *real_ops;
    w->ops.poll = logging_poll;
    w->r.bus.hal.ops = &w->ops;
}

static void read10(rig_ccb *c, uint32_t lba, uint16_t blocks, void *buf, uint32_t len)
{
    uint8_t cdb[10];
    pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    rig_ccb_io(c, 2, 0, cdb, 10, PCAM_DIR_IN, buf, len);
    c->ccb.flags |= PCAM_CCB_TAGGED;
    c->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
}

/* The hand-worked sequence of a tagged read that disconnects at once. */
static void events_of_one_read(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    for (int chain = 1; chain >= 0; chain--) {
        world w;
        rig_ccb c;
        world_init(&w, chain != 0);
        nseen = 0;
        read10(&c, 100, 8, buf, sizeof buf);
        assert_int_equal(rig_sync(&w.r, &c, RIG_S(5)), PCAM_REQ_CMP);
        assert_memory_equal(buf, w.media + 100 * 512, sizeof buf);
        if (chain) {
            /* select, +DISCONNECT accepted, free | reselect | +SIMPLE |
             * +tag | DATA IN | data, +status, +COMMAND COMPLETE accepted, free */
            assert_int_equal(nseen, 6);
            assert_int_equal(seen[0].type, PCAM_HAL_EV_SELECT_DONE);
            assert_int_equal(seen[0].took, PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_ACCEPTED);
            assert_int_equal(seen[0].msg, PCAM_MSG_DISCONNECT);
            assert_int_equal(seen[0].phase, PCAM_PHASE_BUS_FREE);
            assert_int_equal(seen[1].type, PCAM_HAL_EV_RESELECTED);
            assert_int_equal(seen[2].type, PCAM_HAL_EV_PHASE);
            assert_int_equal(seen[2].took, PCAM_HAL_TOOK_MSG); /* not a CC or DISCONNECT: held */
            assert_int_equal(seen[2].msg, PCAM_MSG_SIMPLE_TAG);
            assert_int_equal(seen[3].type, PCAM_HAL_EV_PHASE);
            assert_int_equal(seen[3].took, PCAM_HAL_TOOK_MSG);
            assert_int_equal(seen[4].type, PCAM_HAL_EV_PHASE);
            assert_int_equal(seen[4].took, 0);
            assert_int_equal(seen[4].phase, PCAM_PHASE_DATA_IN);
            assert_int_equal(seen[5].type, PCAM_HAL_EV_XFER_DONE);
            assert_int_equal(seen[5].count, 4096);
            assert_int_equal(seen[5].took,
                             PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_ACCEPTED);
            assert_int_equal(seen[5].status, 0x00);
            assert_int_equal(seen[5].msg, PCAM_MSG_COMMAND_COMPLETE);
            assert_int_equal(seen[5].phase, PCAM_PHASE_BUS_FREE);
        } else {
            /* Each step its own event: select, DISCONNECT, free |
             * reselect, MESSAGE IN, SIMPLE, MESSAGE IN, tag, DATA IN | data,
             * status, COMMAND COMPLETE, free. */
            assert_int_equal(nseen, 13);
            for (unsigned i = 0; i < nseen; i++)
                assert_int_equal(seen[i].took, 0);
        }
        assert_null(w.r.violation);
        simrig_fini(&w.r);
    }
}

/* Commands that end otherwise end the same on both chips. */
static void same_outcomes(void **state)
{
    (void)state;
    uint32_t st[2][3];
    uint8_t key[2];
    uint32_t resid[2];
    static uint8_t buf[2][4096];
    for (int chain = 0; chain < 2; chain++) {
        world w;
        rig_ccb c;
        uint8_t sense[32];
        world_init(&w, chain != 0);
        /* 1: good read; 2: past the end (CHECK CONDITION + autosense);
         * 3: TEST UNIT READY (no data: CDB, then STATUS at once). */
        read10(&c, 7, 8, buf[chain], sizeof buf[chain]);
        st[chain][0] = rig_sync(&w.r, &c, RIG_S(5));
        read10(&c, BLOCKS - 1, 8, buf[chain], sizeof buf[chain]);
        c.ccb.u.io.sense = sense;
        c.ccb.u.io.sense_len = sizeof sense;
        c.ccb.u.io.retries = 0;
        memset(sense, 0, sizeof sense);
        st[chain][1] = rig_sync(&w.r, &c, RIG_S(5));
        key[chain] = sense[2] & 0x0F;
        resid[chain] = c.ccb.u.io.resid;
        uint8_t tur[6] = {0};
        rig_ccb_io(&c, 2, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
        st[chain][2] = rig_sync(&w.r, &c, RIG_S(5));
        assert_null(w.r.violation);
        simrig_fini(&w.r);
    }
    assert_int_equal(st[1][0], PCAM_REQ_CMP);
    assert_int_equal(st[1][1] & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_true((st[1][1] & PCAM_AUTOSNS_VALID) != 0);
    assert_int_equal(key[1], 0x05); /* ILLEGAL REQUEST: LBA out of range */
    assert_int_equal(st[1][2], PCAM_REQ_CMP);
    assert_memory_equal(st[0], st[1], sizeof st[0]);
    assert_int_equal(key[0], key[1]);
    assert_int_equal(resid[0], resid[1]);
    assert_memory_equal(buf[0], buf[1], sizeof buf[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_of_one_read),
        cmocka_unit_test(same_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
