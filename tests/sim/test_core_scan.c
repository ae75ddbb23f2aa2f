/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scenario 1: bus scan. Disks at several IDs, a multi-LUN target, a CD-ROM
 * without medium and absent IDs; the device table must match the simulated
 * configuration exactly, in interrupt and in polled mode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "simrig.h"

typedef struct expect {
    uint8_t id, lun, type;
} expect;

static const expect present[] = {
    {0, 0, 0x00}, {2, 0, 0x00}, {3, 0, 0x00}, {3, 2, 0x00}, {3, 5, 0x00}, {4, 0, 0x05}, {6, 0, 0x00},
};

static bool is_present(uint8_t id, uint8_t lun, uint8_t *type)
{
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++)
        if (present[i].id == id && present[i].lun == lun) {
            *type = present[i].type;
            return true;
        }
    return false;
}

static unsigned found_events, lost_events;
static void on_async(void *arg, uint32_t code, uint8_t target, uint8_t lun)
{
    (void)arg;
    (void)target;
    (void)lun;
    if (code == PCAM_AC_FOUND_DEVICE)
        found_events++;
    if (code == PCAM_AC_LOST_DEVICE)
        lost_events++;
}

static void build(simrig *r, bool polled)
{
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    assert_int_equal(simrig_init(r, &sc, NULL, polled), 0);
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++) {
        if (present[i].type == 0x00) {
            assert_non_null(simrig_add_disk(r, present[i].id, present[i].lun, 2048, NULL));
        } else {
            if (pcam_sim_target_cfg(r->sim, present[i].id) == NULL)
                assert_int_equal(pcam_sim_add_target(r->sim, present[i].id, NULL), 0);
            pcam_simlu_init_cdrom(pcam_sim_lu(r->sim, present[i].id, present[i].lun), NULL, 0,
                                  "PCAMSIM", "CDROM");
        }
    }
    /* LUN 5 of target 3 is only reachable through REPORT LUNS (the default
     * probe stops at 7, so both paths find it; make target 3 claim SPC-3). */
}

static void scan_and_check(bool polled)
{
    simrig r;
    rig_ccb scan, reg;
    build(&r, polled);
    found_events = lost_events = 0;

    memset(&reg, 0, sizeof reg);
    reg.ccb.func = PCAM_FN_SET_ASYNC;
    reg.ccb.u.async.events = PCAM_AC_FOUND_DEVICE | PCAM_AC_LOST_DEVICE;
    reg.ccb.u.async.cb = on_async;
    assert_int_equal(rig_sync(&r, &reg, RIG_S(1)), PCAM_REQ_CMP);

    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    assert_int_equal(scan.done_count, 1);
    assert_null(r.violation);

    unsigned n_present = 0;
    for (uint8_t id = 0; id < 8; id++) {
        for (uint8_t lun = 0; lun < 8; lun++) {
            rig_ccb g;
            uint8_t want_type = 0;
            if (id == 7)
                continue;
            memset(&g, 0, sizeof g);
            g.ccb.func = PCAM_FN_GET_DEV;
            g.ccb.target = id;
            g.ccb.lun = lun;
            uint32_t st = rig_sync(&r, &g, RIG_S(1));
            if (is_present(id, lun, &want_type)) {
                n_present++;
                assert_int_equal(st, PCAM_REQ_CMP);
                assert_true(g.ccb.u.dev.present);
                assert_int_equal(g.ccb.u.dev.type, want_type);
                assert_int_equal(g.ccb.u.dev.qualifier, 0);
                assert_memory_equal(g.ccb.u.dev.inquiry + 8, "PCAMSIM ", 8);
            } else {
                assert_int_equal(st, PCAM_DEV_NOT_THERE);
                assert_false(g.ccb.u.dev.present);
            }
        }
    }
    assert_int_equal(n_present, sizeof present / sizeof present[0]);
    assert_int_equal(found_events, n_present);
    assert_int_equal(lost_events, 0);

    /* Take the CD-ROM target away: a rescan reports it lost. */
    pcam_simlu_init_absent(pcam_sim_lu(r.sim, 4, 0));
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    assert_int_equal(lost_events, 1);
    assert_null(r.violation);
    simrig_fini(&r);
}

static void scan_interrupt_mode(void **state)
{
    (void)state;
    scan_and_check(false);
}

static void scan_polled_mode(void **state)
{
    (void)state;
    scan_and_check(true);
}

static void path_inquiry_reports_chip(void **state)
{
    (void)state;
    simrig r;
    rig_ccb p;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 16;
    assert_int_equal(simrig_init(&r, &sc, NULL, false), 0);
    memset(&p, 0, sizeof p);
    p.ccb.func = PCAM_FN_PATH_INQ;
    assert_int_equal(rig_sync(&r, &p, RIG_S(1)), PCAM_REQ_CMP);
    /* A narrow-only build (tests/config) drives the wide chip as narrow. */
    assert_int_equal(p.ccb.u.pathinq.max_target, PCAM_MAX_TARGETS - 1);
    assert_int_equal(p.ccb.u.pathinq.initiator_id, 7);
    assert_string_equal(p.ccb.u.pathinq.chip_name, "pcam-sim");
    simrig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(path_inquiry_reports_chip),
        cmocka_unit_test(scan_interrupt_mode),
        cmocka_unit_test(scan_polled_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
