/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A CHECK CONDITION whose sense is gone by the time the core's REQUEST
 * SENSE arrives: the target answers NO SENSE with nothing in it. QEMU does
 * this when another tagged command of the LUN completes in between (it
 * keeps one sense per LUN and a completion without sense clears it); the
 * UEFI test on the 53C8xx once got a read reported done with no data that
 * way. The command is retried like a lost condition and ends with its own
 * outcome: data for a condition that cleared (a UNIT ATTENTION), MEDIUM
 * ERROR for one that comes back; with no retries left, the CHECK
 * CONDITION, never success.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "sim_lu.h"
#include "simrig.h"

#define ID 3
#define BLOCKS 2048u

typedef struct world {
    simrig r;
    uint8_t *media;
    pcam_simlu *lu;
} world;

static void world_init(world *w)
{
    rig_ccb scan;
    assert_int_equal(simrig_init(&w->r, NULL, NULL, false), 0);
    w->media = simrig_add_disk(&w->r, ID, 0, BLOCKS, NULL);
    assert_non_null(w->media);
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&w->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    w->lu = pcam_sim_lu(w->r.sim, ID, 0);
    assert_non_null(w->lu);
}

static uint32_t check_conditions(world *w)
{
    pcam_sim_target_stats st;
    pcam_sim_target_stats_get(w->r.sim, ID, &st);
    return st.check_conditions;
}

/* Run `c`, and make the target forget the sense of its first `lose`
 * CHECK CONDITIONs as soon as it has sent their status. */
static uint32_t run_losing(world *w, rig_ccb *c, unsigned lose)
{
    uint32_t seen = check_conditions(w);
    rig_submit(&w->r, c);
    for (unsigned steps = 0; c->done_count == 0 && steps < 1000000u; steps++) {
        if (!simrig_step(&w->r))
            break;
        if (lose > 0 && check_conditions(w) != seen) {
            seen = check_conditions(w);
            w->lu->sense_valid = false; /* what QEMU does when another task completes */
            lose--;
        }
    }
    assert_int_equal(c->done_count, 1);
    assert_null(w->r.violation);
    return c->ccb.status;
}

static void read10(rig_ccb *c, uint32_t lba, void *buf, uint8_t *sense, uint8_t retries)
{
    uint8_t cdb[10];
    memset(c, 0, sizeof *c);
    pcam_cdb_read(cdb, sizeof cdb, 10, lba, 8, 0);
    rig_ccb_io(c, ID, 0, cdb, 10, PCAM_DIR_IN, buf, 4096);
    c->ccb.u.io.sense = sense;
    c->ccb.u.io.sense_len = 32;
    c->ccb.u.io.retries = retries;
}

static void lost_unit_attention_is_retried(void **state)
{
    (void)state;
    world w;
    rig_ccb c;
    static uint8_t buf[4096], sense[32];
    world_init(&w);
    pcam_simlu_unit_attention(w.lu, 0x2A, 0x09); /* CAPACITY DATA HAS CHANGED */
    memset(buf, 0, sizeof buf);
    pcam_counters k0, k1;
    assert_int_equal(pcam_bus_get_counters(&w.r.bus, ID, &k0), PCAM_OK);
    read10(&c, 40, buf, sense, 2);
    assert_int_equal(run_losing(&w, &c, 1), PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 0);
    assert_memory_equal(buf, w.media + 40 * 512, sizeof buf);
    assert_int_equal(pcam_bus_get_counters(&w.r.bus, ID, &k1), PCAM_OK);
    assert_int_equal(k1.retries - k0.retries, 1); /* the lost condition cost one */
    simrig_fini(&w.r);
}

static void lost_medium_error_comes_back(void **state)
{
    (void)state;
    world w;
    rig_ccb c;
    static uint8_t buf[4096], sense[32];
    world_init(&w);
    assert_int_equal(pcam_simlu_add_medium_error(w.lu, 100), 0);
    read10(&c, 100, buf, sense, 2);
    uint32_t st = run_losing(&w, &c, 1);
    assert_int_equal(st & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_true((st & PCAM_AUTOSNS_VALID) != 0);
    assert_int_equal(sense[2] & 0x0F, 0x03); /* the retry's own MEDIUM ERROR */
    assert_int_equal(sense[12], 0x11);
    simrig_fini(&w.r);
}

static void no_retries_left_fails_as_check_condition(void **state)
{
    (void)state;
    world w;
    rig_ccb c;
    static uint8_t buf[4096], sense[32];
    world_init(&w);
    pcam_simlu_unit_attention(w.lu, 0x2A, 0x09);
    read10(&c, 40, buf, sense, 0);
    uint32_t st = run_losing(&w, &c, 1);
    assert_int_equal(st & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR); /* not REQ_CMP */
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(sense[2] & 0x0F, 0x00);
    simrig_fini(&w.r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lost_unit_attention_is_retried),
        cmocka_unit_test(lost_medium_error_comes_back),
        cmocka_unit_test(no_retries_left_fails_as_check_condition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
