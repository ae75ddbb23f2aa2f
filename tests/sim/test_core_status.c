/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the core makes of the status bytes and sense a target seldom sends
 * (core/retry/retry.c), a READ(10) of one block at a time with a target
 * whose oracle replaces the status the disk model would send:
 *  - RESERVATION CONFLICT (18h) fails at once, never retried (SAM-5: the
 *    task was not done, and the same I_T nexus will conflict again);
 *  - TASK ABORTED (40h) and ACA ACTIVE (30h) are retried within the
 *    CCB's retries, then fail with that status;
 *  - TASK SET FULL (28h) with PCAM_CCB_NO_RECOVERY fails at once instead
 *    of waiting for the queue to drain;
 *  - CHECK CONDITION with RECOVERED ERROR (key 1h), or with NO SENSE and
 *    ILI (byte 2 bit 5) or a filemark (bit 7), is reported as done
 *    (PCAM_REQ_CMP with PCAM_AUTOSNS_VALID and the sense), not retried.
 * Each case counts the READs the target received: one per time the
 * command was issued. Expected data: the rig's medium.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_cdb.h"
#include "pcam_sim.h"
#include "simrig.h"

#define PASS 0xFFu /* no opinion: the model's own status */

typedef struct script {
    uint8_t status[8]; /* for each READ the target receives, in order; PASS for none */
    unsigned n, pos;
    unsigned reads;    /* READs the target received */
    uint8_t current;   /* the status for the command now at the target */
    uint8_t sense[18]; /* the sense a scripted CHECK CONDITION leaves */
    pcam_sim *sim;
} script;

/* A READ is told from the autosense REQUEST SENSE by its length (one
 * 512-byte block). The status decision may be asked more than once for
 * one STATUS phase (a chip that does not chain its endings reads the byte
 * in a step of its own): the answer belongs to the command, not the ask. */
static bool oracle(void *ctx, pcam_sim_oracle_query *q)
{
    script *s = ctx;
    if (q->what == PCAM_SIM_DEC_DATA_LEN) {
        if (q->value == 512) {
            s->reads++;
            s->current = s->pos < s->n ? s->status[s->pos++] : PASS;
        } else {
            s->current = PASS;
        }
        return false;
    }
    if (q->what != PCAM_SIM_DEC_STATUS || s->current == PASS)
        return false;
    if (s->current == 0x02) {
        pcam_simlu *lu = pcam_sim_lu(s->sim, q->target, q->lun);
        memcpy(lu->sense, s->sense, sizeof lu->sense);
        lu->sense_valid = true;
    }
    q->value = s->current;
    return true;
}

typedef struct fx {
    simrig r;
    script sc;
    const uint8_t *medium;
} fx;

static fx *fx_new(void)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(simrig_init(&f->r, NULL, NULL, false), PCAM_OK);
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.oracle = oracle;
    tc.oracle_ctx = &f->sc;
    f->sc.sim = f->r.sim;
    f->medium = simrig_add_disk(&f->r, 0, 0, 64, &tc);
    assert_non_null(f->medium);
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&f->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    return f;
}

static void fx_free(fx *f)
{
    assert_null(f->r.violation);
    assert_null(pcam_bus_check_invariants(&f->r.bus));
    simrig_fini(&f->r);
    free(f);
}

typedef struct outcome {
    uint32_t status;
    uint8_t scsi_status;
    unsigned issued;
    uint8_t data[512];
    uint8_t sense[18];
    uint8_t sense_resid;
} outcome;

/* READ(10) of block 3 with `retries`, the target scripted as `st`. */
static outcome read_with(fx *f, const uint8_t *st, unsigned n, uint8_t retries, uint32_t flags)
{
    outcome o;
    memset(&o, 0, sizeof o);
    memset(o.data, 0xEE, sizeof o.data);
    memcpy(f->sc.status, st, n);
    f->sc.n = n;
    f->sc.pos = 0;
    f->sc.reads = 0;
    f->sc.current = PASS;
    uint8_t cdb[16];
    int len = pcam_cdb_read(cdb, sizeof cdb, 10, 3, 1, 0);
    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rig_ccb_io(&rc, 0, 0, cdb, (uint8_t)len, PCAM_DIR_IN, o.data, sizeof o.data);
    rc.ccb.u.io.retries = retries;
    rc.ccb.u.io.sense = o.sense;
    rc.ccb.u.io.sense_len = sizeof o.sense;
    rc.ccb.flags |= flags;
    o.status = rig_sync(&f->r, &rc, RIG_S(30));
    assert_int_equal(rc.done_count, 1);
    o.scsi_status = rc.ccb.u.io.scsi_status;
    o.sense_resid = rc.ccb.u.io.sense_resid;
    o.issued = f->sc.reads;
    f->sc.n = 0;
    /* A failure may leave the queue frozen: release it for the next case. */
    if ((o.status & PCAM_DEV_QFRZN) != 0) {
        rig_ccb rel;
        memset(&rel, 0, sizeof rel);
        rel.ccb.func = PCAM_FN_REL_QUEUE;
        assert_int_equal(rig_sync(&f->r, &rel, RIG_S(1)), PCAM_REQ_CMP);
    }
    return o;
}

static void test_reservation_conflict(void **state)
{
    (void)state;
    fx *f = fx_new();
    const uint8_t st[] = {0x18};
    outcome o = read_with(f, st, 1, 3, 0);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(o.scsi_status, 0x18);
    assert_int_equal(o.issued, 1);
    fx_free(f);
}

static void test_task_aborted_and_aca(void **state)
{
    (void)state;
    fx *f = fx_new();
    /* Once, with a retry left: the retry reads the block. */
    const uint8_t once[] = {0x40};
    outcome o = read_with(f, once, 1, 2, 0);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(o.issued, 2);
    assert_memory_equal(o.data, f->medium + 3 * 512, 512);
    /* More often than the retries: fails with the last status, after
     * 1 + retries issues. */
    const uint8_t always[] = {0x30, 0x30, 0x30, 0x30};
    o = read_with(f, always, 4, 2, 0);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(o.scsi_status, 0x30);
    assert_int_equal(o.issued, 3);
    const uint8_t none[] = {0x40};
    o = read_with(f, none, 1, 0, 0);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(o.scsi_status, 0x40);
    assert_int_equal(o.issued, 1);
    fx_free(f);
}

static void test_task_set_full_no_recovery(void **state)
{
    (void)state;
    fx *f = fx_new();
    const uint8_t st[] = {0x28};
    outcome o = read_with(f, st, 1, 3, PCAM_CCB_NO_RECOVERY);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_int_equal(o.scsi_status, 0x28);
    assert_int_equal(o.issued, 1);
    /* Without the flag the core waits for room and issues it again. */
    o = read_with(f, st, 1, 3, 0);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(o.issued, 2);
    assert_memory_equal(o.data, f->medium + 3 * 512, 512);
    fx_free(f);
}

/* Fixed-format sense (SPC-3 4.5.3): byte 2 filemark 80h, EOM 40h, ILI 20h,
 * key in the low nibble; additional length 10 (byte 7); ASC byte 12,
 * ASCQ byte 13. */
static void sense_of(uint8_t *s, uint8_t byte2, uint8_t asc, uint8_t ascq)
{
    memset(s, 0, 18);
    s[0] = 0x70;
    s[2] = byte2;
    s[7] = 10;
    s[12] = asc;
    s[13] = ascq;
}

static void test_done_with_sense(void **state)
{
    (void)state;
    fx *f = fx_new();
    static const struct {
        uint8_t byte2, asc, ascq;
    } cases[] = {
        {0x01, 0x17, 0x01}, /* RECOVERED ERROR: recovered data with retries */
        {0x20, 0x00, 0x00}, /* NO SENSE, ILI */
        {0x80, 0x00, 0x01}, /* NO SENSE, filemark detected */
        {0x40, 0x00, 0x02}, /* NO SENSE, end of partition/medium */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sense_of(f->sc.sense, cases[i].byte2, cases[i].asc, cases[i].ascq);
        const uint8_t st[] = {0x02};
        outcome o = read_with(f, st, 1, 3, 0);
        assert_int_equal(o.status & ~PCAM_DEV_QFRZN, PCAM_REQ_CMP | PCAM_AUTOSNS_VALID);
        assert_int_equal(o.scsi_status, 0x02);
        assert_int_equal(o.issued, 1);
        assert_int_equal(o.sense_resid, 0);
        assert_memory_equal(o.sense, f->sc.sense, 14);
        assert_memory_equal(o.data, f->medium + 3 * 512, 512);
    }
    /* NO SENSE with nothing to say is a lost condition: retried. */
    sense_of(f->sc.sense, 0x00, 0x00, 0x00);
    const uint8_t st[] = {0x02};
    outcome o = read_with(f, st, 1, 3, 0);
    assert_int_equal(o.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(o.issued, 2);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reservation_conflict),
        cmocka_unit_test(test_task_aborted_and_aca),
        cmocka_unit_test(test_task_set_full_no_recovery),
        cmocka_unit_test(test_done_with_sense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
