/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcam_bus_hal_device_changed() (pcam_hal.h, hal_cmd) on the simulated bus
 * through the command-level adapter: what an adapter learns on its own
 * about its devices moves the core's device table, with the async events a
 * caller's scan would raise, and no request CCB of the caller's.
 *  - a disk added after the scan is scanned by the core itself: found, with
 *    its INQUIRY, and no other target is probed;
 *  - a removal is believed at once: lost, with no command sent to ask;
 *  - "something changed" (wildcard) scans every target and finds it again;
 *  - a report for the target the caller's scan is on waits for that scan,
 *    whose CCB completes exactly once, and the target is scanned again;
 *  - bad reports are refused and change nothing.
 * Expectations: the disks simrig_add_disk() makes (INQUIRY type 0), the
 * async codes of pcam.h; the counts are this file's own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cmdrig.h"

static uint64_t found[16], lost[16];

static void on_async(void *arg, uint32_t code, uint8_t t, uint8_t l)
{
    (void)arg;
    if (t < 16 && l == 0) {
        found[t] += code == PCAM_AC_FOUND_DEVICE;
        lost[t] += code == PCAM_AC_LOST_DEVICE;
    }
}

static uint32_t func(cmdrig *c, uint8_t fn, uint8_t t)
{
    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = fn;
    rc.ccb.target = t;
    rc.ccb.u.async.events = PCAM_AC_FOUND_DEVICE | PCAM_AC_LOST_DEVICE;
    rc.ccb.u.async.cb = on_async;
    if (fn == PCAM_FN_GET_DEV)
        memset(&rc.ccb.u.dev, 0, sizeof rc.ccb.u.dev);
    return rig_sync(&c->r, &rc, RIG_S(1)) & PCAM_STATUS_MASK;
}

static uint32_t commands(cmdrig *c, uint8_t t)
{
    pcam_sim_target_stats st;
    pcam_sim_target_stats_get(c->r.sim, t, &st);
    return st.commands;
}

static uint32_t t0_at_done;

static void at_scan_done(rig_ccb *rc)
{
    t0_at_done = commands(rc->test, 0);
}

static void run_quiet(cmdrig *c)
{
    for (int i = 0; i < 100000 && simrig_step(&c->r); i++)
        ;
}

static void test_devchange(void **state)
{
    cmdrig c;
    (void)state;
    memset(found, 0, sizeof found);
    memset(lost, 0, sizeof lost);
    assert_int_equal(cmdrig_init(&c, NULL, NULL, NULL, false), PCAM_OK);
    assert_non_null(simrig_add_disk(&c.r, 0, 0, 256, NULL));
    assert_non_null(simrig_add_disk(&c.r, 1, 0, 256, NULL));
    assert_int_equal(func(&c, PCAM_FN_SET_ASYNC, 0), PCAM_REQ_CMP);
    assert_int_equal(cmdrig_scan(&c), PCAM_REQ_CMP);
    assert_int_equal(found[0], 1);
    assert_int_equal(found[1], 1);

    /* A disk comes at ID 5 after the scan: the adapter says so. */
    assert_non_null(simrig_add_disk(&c.r, 5, 0, 256, NULL));
    uint32_t t1 = commands(&c, 1);
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 5, PCAM_WILDCARD, true), PCAM_OK);
    assert_true(simrig_run_until_count(&c.r, &found[5], 1, RIG_S(10)));
    run_quiet(&c);
    assert_int_equal(found[5], 1);
    assert_int_equal(func(&c, PCAM_FN_GET_DEV, 5), PCAM_REQ_CMP);
    assert_int_equal(commands(&c, 1), t1); /* only the reported target was probed */
    assert_true(commands(&c, 5) >= 1);

    /* It goes: believed at once, nothing sent to it. */
    uint32_t t5 = commands(&c, 5);
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 5, PCAM_WILDCARD, false), PCAM_OK);
    assert_int_equal(lost[5], 1);
    run_quiet(&c);
    assert_int_equal(commands(&c, 5), t5);
    assert_int_equal(func(&c, PCAM_FN_GET_DEV, 5), PCAM_DEV_NOT_THERE);
    /* Reported gone twice: lost once. */
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 5, 0, false), PCAM_OK);
    assert_int_equal(lost[5], 1);

    /* Something changed somewhere: every target is scanned, 5 is back. */
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, PCAM_WILDCARD, PCAM_WILDCARD, true), PCAM_OK);
    assert_true(simrig_run_until_count(&c.r, &found[5], 2, RIG_S(30)));
    run_quiet(&c);
    assert_int_equal(found[1], 1); /* present all along: no event */
    assert_int_equal(lost[1], 0);

    /* A report while the caller's scan runs (its cursor is on target 0,
     * where the scan starts): the caller's CCB ends once, then the core
     * scans target 0 again on its own. */
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    scan.test = &c;
    scan.on_done = at_scan_done;
    rig_submit(&c.r, &scan);
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 0, 0, true), PCAM_OK);
    run_quiet(&c);
    assert_int_equal(scan.done_count, 1);
    assert_int_equal(scan.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(commands(&c, 0) > t0_at_done);
    assert_int_equal(found[0], 1); /* present all along */
    assert_int_equal(func(&c, PCAM_FN_GET_DEV, 0), PCAM_REQ_CMP);
    assert_null(pcam_bus_check_invariants(&c.r.bus));
    t1 = commands(&c, 1);

    /* Refused, nothing changes. */
    assert_int_equal(pcam_bus_hal_device_changed(NULL, 1, 0, true), PCAM_ERR_NULL);
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 16, 0, true), PCAM_ERR_RANGE);
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 7, 0, true), PCAM_ERR_RANGE); /* the initiator */
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 1, 200, false), PCAM_ERR_RANGE);
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, PCAM_WILDCARD, 0, false), PCAM_ERR_RANGE);
    run_quiet(&c);
    assert_int_equal(commands(&c, 1), t1);
    assert_int_equal(lost[1], 0);
    assert_int_equal(func(&c, PCAM_FN_GET_DEV, 1), PCAM_REQ_CMP);

    /* Owed a scan at shutdown: dropped, nothing completes twice. */
    assert_int_equal(pcam_bus_hal_device_changed(&c.r.bus, 1, 0, true), PCAM_OK);
    cmdrig_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devchange),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
