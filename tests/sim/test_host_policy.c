/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The policies a shim asks the core for instead of deciding them itself
 * (pcam.h, "Policies for a host"; docs/design.md rule 2), against values
 * worked out by hand from their documentation and against the simulated
 * bus: whether a LUN is tagged comes from the target's INQUIRY CmdQue bit
 * as the simulated LU reports it, and a target that answers a tag message
 * with MESSAGE REJECT (SPI-2: it does not do tagged queuing) makes it
 * untagged. tests/shims/check.sh checks the other half: that the shims
 * use these instead of numbers and INQUIRY bytes of their own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "simrig.h"

static void backstop_and_waits(void **state)
{
    simrig r;
    (void)state;
    /* host timeout x 3 + 30 s */
    assert_int_equal(pcam_host_backstop_ms(0), 30000u);
    assert_int_equal(pcam_host_backstop_ms(30000u), 120000u); /* Linux's default 30 s: 2 min */
    assert_int_equal(pcam_host_backstop_ms(1431645765u), 4294967295u); /* exactly UINT32_MAX */
    assert_int_equal(pcam_host_backstop_ms(1431645766u), UINT32_MAX);  /* saturates */
    assert_int_equal(pcam_host_backstop_ms(UINT32_MAX), UINT32_MAX);
    assert_int_equal(PCAM_HOST_RETRIES, 0);

    assert_int_equal(simrig_init(&r, NULL, NULL, false), 0);
    /* Defaults (pcam.h): tag_depth 32, tag_depth_max 64, abort_timeout_ms
     * 2000, reset_settle_ms 2000. */
    assert_int_equal(pcam_host_queue_depth(&r.bus, false, 100), 2);
    assert_int_equal(pcam_host_queue_depth(&r.bus, false, 0), PCAM_HOST_UNTAGGED_DEPTH);
    assert_int_equal(pcam_host_queue_depth(&r.bus, true, 10), 10);
    assert_int_equal(pcam_host_queue_depth(&r.bus, true, 32), 32);
    assert_int_equal(pcam_host_queue_depth(&r.bus, true, 1000), 64);
    assert_int_equal(pcam_host_queue_depth(&r.bus, true, 0), 1);
    assert_int_equal(pcam_host_queue_depth(&r.bus, true, -7), 1);
    /* four rungs of 2 s, a 2 s settle, 2 s slack */
    assert_int_equal(pcam_host_recovery_wait_ms(&r.bus), 12000u);
    simrig_fini(&r);
}

static uint32_t read_tagged(simrig *r, uint8_t t, uint8_t l)
{
    static uint8_t buf[512];
    uint8_t cdb[10];
    rig_ccb rc;
    int n = pcam_cdb_read(cdb, sizeof cdb, 10, 0, 1, 0);
    assert_int_equal(n, 10);
    memset(&rc, 0, sizeof rc);
    rig_ccb_io(&rc, t, l, cdb, 10, PCAM_DIR_IN, buf, sizeof buf);
    rc.ccb.flags |= PCAM_CCB_TAGGED;
    rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    rc.ccb.u.io.retries = 4;
    return rig_sync(r, &rc, RIG_S(60)) & PCAM_STATUS_MASK;
}

static void tagged_is_the_cores_answer(void **state)
{
    simrig r;
    rig_ccb scan;
    pcam_sim_target_config rejecter;
    (void)state;
    assert_int_equal(simrig_init(&r, NULL, NULL, false), 0);
    assert_non_null(simrig_add_disk(&r, 1, 0, 256, NULL));  /* CmdQue (the model's default) */
    assert_non_null(simrig_add_disk(&r, 3, 0, 256, NULL));
    pcam_sim_lu(r.sim, 3, 0)->cmdque = false;               /* ... and one without */
    pcam_sim_target_config_defaults(&rejecter);
    rejecter.reject_tags = true;
    assert_non_null(simrig_add_disk(&r, 4, 0, 256, &rejecter));
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &scan, RIG_S(60)) & PCAM_STATUS_MASK, PCAM_REQ_CMP);

    assert_true(pcam_lun_tagged(&r.bus, 1, 0));
    assert_false(pcam_lun_tagged(&r.bus, 3, 0));   /* INQUIRY without CmdQue */
    assert_false(pcam_lun_tagged(&r.bus, 5, 0));   /* nobody there */
    assert_false(pcam_lun_tagged(&r.bus, 1, 1));   /* no such LUN on the target */
    assert_false(pcam_lun_tagged(&r.bus, PCAM_MAX_TARGETS, 0));
    assert_false(pcam_lun_tagged(&r.bus, 1, 200));
    assert_false(pcam_lun_tagged(NULL, 1, 0));

    /* Target 4 claims CmdQue, so it starts tagged; its MESSAGE REJECT of the
     * first tag message ends that, and the command still completes. */
    assert_true(pcam_lun_tagged(&r.bus, 4, 0));
    assert_int_equal(read_tagged(&r, 4, 0), PCAM_REQ_CMP);
    assert_false(pcam_lun_tagged(&r.bus, 4, 0));
    /* The other target is not affected. */
    assert_int_equal(read_tagged(&r, 1, 0), PCAM_REQ_CMP);
    assert_true(pcam_lun_tagged(&r.bus, 1, 0));
    assert_null(r.violation);
    simrig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backstop_and_waits),
        cmocka_unit_test(tagged_is_the_cores_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
