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
#include <stdio.h>
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

static char logged[200];
static void capture_log(void *ctx, pcam_log_level level, const char *line)
{
    (void)ctx;
    if (level == PCAM_LOG_ERROR)
        snprintf(logged, sizeof logged, "%s", line);
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
    plat.log = capture_log;
    logged[0] = '\0';
    /* Unsupported by this build, not a missing pointer, and the log says
     * which switch to turn on. */
    assert_int_equal(pcam_bus_init(&bus, NULL, &hal, &plat, luns, 8 * 8), PCAM_ERR_UNSUPPORTED);
    assert_non_null(strstr(logged, "PCAM_CFG_CMDLEVEL is 0"));
    pcam_sim_destroy(sim);
}

/* The scan clears a found LU's power-on UNIT ATTENTION with TEST UNIT
 * READY; its sense goes into the bus's scan buffer, which the minimal
 * configuration makes 64 bytes. A single-LUN scan ends with that TUR, so
 * the internal CCB still says where the sense went: inside the buffer, and
 * the UNIT ATTENTION is there. (It used to go to offset 200, over the bus
 * fields past the buffer.) */
static void scan_sense_stays_in_the_scan_buffer(void **state)
{
    simrig r;
    rig_ccb scan;
    (void)state;
    assert_int_equal(simrig_init(&r, NULL, NULL, false), 0);
    assert_non_null(simrig_add_disk(&r, 2, 0, 256, NULL)); /* power-on UA by default */
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_LUN;
    scan.ccb.target = 2;
    scan.ccb.lun = 0;
    assert_int_equal(rig_sync(&r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    const uint8_t *buf = r.bus.xpt.internal_buf;
    const pcam_scsiio *io = &r.bus.xpt.internal.u.io;
    assert_int_equal(sizeof r.bus.xpt.internal_buf, 64);
    assert_int_equal(io->cdb[0], 0x00); /* the last command was the TEST UNIT READY */
    assert_non_null(io->sense);
    assert_true(io->sense >= buf + PCAM_INQ_BYTES);
    assert_true(io->sense + io->sense_len <= buf + sizeof r.bus.xpt.internal_buf);
    assert_true(io->sense_len >= 18);
    assert_int_equal(io->sense[0] & 0x7F, 0x70);     /* fixed format, current */
    assert_int_equal(io->sense[2] & 0x0F, 0x06);     /* UNIT ATTENTION */
    assert_int_equal(r.bus.luns[2 * r.bus.cfg.luns_per_target].dev.type, 0x00); /* a disk */
    assert_null(r.violation);
    simrig_fini(&r);
}

/* The short names stay in every configuration, kept as one string each
 * (no pointer tables): every code still gets its own name, and any other
 * code the catch-all. */
static void short_names_are_complete(void **state)
{
    static const struct {
        uint32_t code;
        const char *name;
    } st[] = {
        {PCAM_REQ_INPROG, "REQ_INPROG"}, {PCAM_REQ_CMP, "REQ_CMP"},
        {PCAM_REQ_ABORTED, "REQ_ABORTED"}, {PCAM_REQ_CMP_ERR, "REQ_CMP_ERR"},
        {PCAM_BUSY, "BUSY"}, {PCAM_REQ_INVALID, "REQ_INVALID"},
        {PCAM_PATH_INVALID, "PATH_INVALID"}, {PCAM_DEV_NOT_THERE, "DEV_NOT_THERE"},
        {PCAM_SEL_TIMEOUT, "SEL_TIMEOUT"}, {PCAM_CMD_TIMEOUT, "CMD_TIMEOUT"},
        {PCAM_SCSI_STATUS_ERROR, "SCSI_STATUS_ERROR"}, {PCAM_SCSI_BUS_RESET, "SCSI_BUS_RESET"},
        {PCAM_UNCOR_PARITY, "UNCOR_PARITY"}, {PCAM_AUTOSENSE_FAIL, "AUTOSENSE_FAIL"},
        {PCAM_NO_HBA, "NO_HBA"}, {PCAM_DATA_RUN_ERR, "DATA_RUN_ERR"},
        {PCAM_UNEXP_BUSFREE, "UNEXP_BUSFREE"}, {PCAM_SEQUENCE_FAIL, "SEQUENCE_FAIL"},
        {PCAM_BDR_SENT, "BDR_SENT"}, {PCAM_REQ_TOO_BIG, "REQ_TOO_BIG"},
        {PCAM_REQUEUE_REQ, "REQUEUE_REQ"}, {PCAM_MSG_REJECT_REC, "MSG_REJECT_REC"},
        {PCAM_RESRC_UNAVAIL, "RESRC_UNAVAIL"}, {PCAM_FUNC_NOTAVAIL, "FUNC_NOTAVAIL"},
        {0x03, "UNKNOWN_STATUS"}, {0x3F, "UNKNOWN_STATUS"},
        /* The flag bits above the mask do not change the name. */
        {PCAM_REQ_CMP | PCAM_AUTOSNS_VALID, "REQ_CMP"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        assert_string_equal(pcam_status_name(st[i].code), st[i].name);
    assert_string_equal(pcam_strerror(PCAM_OK), "success");
    assert_string_equal(pcam_strerror(PCAM_ERR_NULL), "required pointer argument is NULL");
    assert_string_equal(pcam_strerror(PCAM_ERR_TRUNCATED), "input is truncated");
    assert_string_equal(pcam_strerror(PCAM_ERR_LENGTH), "length does not match the format");
    assert_string_equal(pcam_strerror(PCAM_ERR_RANGE), "value out of range for its field");
    assert_string_equal(pcam_strerror(PCAM_ERR_NOSPACE), "output buffer too small");
    assert_string_equal(pcam_strerror(PCAM_ERR_FORMAT), "unknown or invalid format");
    assert_string_equal(pcam_strerror(PCAM_ERR_RESERVED), "reserved or undefined code");
    assert_string_equal(pcam_strerror(PCAM_ERR_UNSUPPORTED), "not supported");
    assert_string_equal(pcam_strerror(PCAM_ERR_ABI), "caller and library configurations differ");
    assert_string_equal(pcam_strerror(-10), "unknown error");
    assert_string_equal(pcam_strerror(1), "unknown error");
    assert_string_equal(pcam_strerror(-2147483647 - 1), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counters_and_events_report_absence),
        cmocka_unit_test(command_level_backend_refused),
        cmocka_unit_test(short_names_are_complete),
        cmocka_unit_test(scan_sense_stays_in_the_scan_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
