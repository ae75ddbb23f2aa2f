/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the minimal configuration (cmake/configs/pcam_minimal.h) promises
 * beyond "it still works" (the scan and integrity scenarios run on it
 * too): the parts it leaves out answer with defined results instead of
 * vanishing silently. Built only against pcam_cfgmin and pcam_sim_min.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "simrig.h"

#if PCAM_CFG_TEXT || PCAM_CFG_CMDLEVEL || PCAM_CFG_COUNTERS || PCAM_CFG_EVENT_RING
#error "test_config_min.c is for the minimal configuration only"
#endif

/* No counters and no event ring: defined "nothing kept" answers. */
static void counters_and_events_report_absence(void **state)
{
    simrig r;
    rig_ccb scan;
    pcam_counters c;
    pcam_event ev[4];
    (void)state;
    assert_int_equal(simrig_init(&r, NULL, NULL, false), 0);
    assert_non_null(simrig_add_disk(&r, 2, 0, 256, NULL));
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    memset(&c, 0xA5, sizeof c);
    assert_int_equal(pcam_bus_get_counters(&r.bus, 2, &c), PCAM_ERR_UNSUPPORTED);
    assert_int_equal(c.commands, 0);
    assert_int_equal(pcam_bus_read_events(&r.bus, ev, 4), 0);
    simrig_fini(&r);
}

/* A back-end of the profile the build left out is refused at init. */
static pcam_hal_ops cmd_ops;
static void (*sim_get_caps)(void *sc, pcam_hal_caps *caps);
static void caps_as_command_level(void *sc, pcam_hal_caps *caps)
{
    sim_get_caps(sc, caps);
    caps->profile = PCAM_HAL_COMMAND_LEVEL;
}
static void stub_attach(void *sc, struct pcam_bus *bus) { (void)sc; (void)bus; }
static int stub_start(void *sc, const pcam_hal_cmd *cmd) { (void)sc; (void)cmd; return 0; }
static int stub_abort(void *sc, const void *handle) { (void)sc; (void)handle; return 0; }
static int stub_reset_dev(void *sc, uint8_t target, uint8_t lun, bool lun_reset)
{
    (void)sc; (void)target; (void)lun; (void)lun_reset;
    return 0;
}

static void command_level_backend_refused(void **state)
{
    static pcam_hal_cmd_ops stubs;
    pcam_sim *sim = pcam_sim_create(NULL);
    pcam_hal hal;
    pcam_platform plat;
    pcam_bus bus;
    pcam_lun luns[8 * 8];
    (void)state;
    assert_non_null(sim);
    pcam_sim_get_hal(sim, &hal);
    pcam_sim_get_platform(sim, &plat);
    cmd_ops = *hal.ops;
    sim_get_caps = hal.ops->get_caps;
    cmd_ops.get_caps = caps_as_command_level;
    stubs.attach = stub_attach;
    stubs.start = stub_start;
    stubs.abort = stub_abort;
    stubs.reset_dev = stub_reset_dev;
    hal.ops = &cmd_ops;
    hal.cmd = &stubs;
    assert_int_equal(pcam_bus_init(&bus, NULL, &hal, &plat, luns, 8 * 8), PCAM_ERR_NULL);
    pcam_sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counters_and_events_report_absence),
        cmocka_unit_test(command_level_backend_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
