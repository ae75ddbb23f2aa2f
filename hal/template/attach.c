/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The skeleton back-end attached to a real pcam bus in polled mode: the
 * smallest shim there is (a clock and a polling loop). CTest runs it
 * (docs/CMakeLists.txt) to prove the skeleton is a back-end the core accepts,
 * not just code that compiles. It checks against what SPI says an empty
 * narrow bus must look like: the scan selects each of the 7 IDs that are
 * not ours exactly once, finds nothing and completes; a command to an
 * absent target fails as a selection timeout; every CCB completes once.
 */
#include <stdio.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam_template.h"

static uint64_t now;
static uint64_t clock_now(void *ctx) { (void)ctx; return now; }

static int completions;
static void on_done(pcam_ccb *ccb)
{
    (void)ccb;
    completions++;
}

static pcam_bus bus;
static pcam_lun luns[PCAM_BUS_LUNS(8, 1)];
static pcam_template chip;

/* Polled mode: run the core until the CCB is done, moving the clock to the
 * core's next deadline whenever it has nothing to do. */
static int run(pcam_ccb *ccb)
{
    int before = completions;
    ccb->done = on_done;
    pcam_action(&bus, ccb);
    for (int spins = 0; completions == before; spins++) {
        if (spins > 1000000)
            return -1;
        if (pcam_bus_poll(&bus))
            continue;
        uint64_t d = pcam_bus_next_deadline(&bus);
        if (d == UINT64_MAX)
            return -1; /* nothing can happen any more */
        if (d > now)
            now = d;
    }
    return completions == before + 1 ? 0 : -1;
}

#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, PCAM_TEMPLATE_NAME ": FAIL: " __VA_ARGS__); \
            fputc('\n', stderr);                                        \
            return 1;                                                   \
        }                                                               \
    } while (0)

int main(void)
{
    pcam_platform plat;
    memset(&plat, 0, sizeof plat);
    plat.now_ns = clock_now;
    pcam_template_config tc = {.base = 0x300, .initiator_id = 7};
    pcam_hal hal;
    CHECK(pcam_template_attach(&chip, &tc, &plat, &hal) == PCAM_OK, "attach");
    CHECK(pcam_template_attach(&chip, &(pcam_template_config){.initiator_id = 8}, &plat, &hal) ==
              PCAM_ERR_RANGE, "attach accepted initiator ID 8");
    CHECK(pcam_template_attach(&chip, &tc, &plat, &hal) == PCAM_OK, "attach again");

    pcam_bus_config cfg;
    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = 1;
    cfg.polled = true;
    CHECK(pcam_bus_init(&bus, &cfg, &hal, &plat, luns, 8) == PCAM_OK, "pcam_bus_init");

    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_PATH_INQ;
    CHECK(run(&ccb) == 0 && ccb.status == PCAM_REQ_CMP, "path inquiry");
    CHECK(strcmp(ccb.u.pathinq.chip_name, PCAM_TEMPLATE_NAME) == 0 && ccb.u.pathinq.initiator_id == 7 &&
              ccb.u.pathinq.max_target == 7, "path inquiry says %s, ID %u, max target %u",
          ccb.u.pathinq.chip_name, ccb.u.pathinq.initiator_id, ccb.u.pathinq.max_target);

    pcam_template_stats st0, st1;
    pcam_template_get_stats(&chip, &st0);
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCAN_BUS;
    CHECK(run(&ccb) == 0, "scan did not complete");
    CHECK((ccb.status & PCAM_STATUS_MASK) == PCAM_REQ_CMP, "scan: %s", pcam_status_name(ccb.status));
    pcam_template_get_stats(&chip, &st1);
    CHECK(st1.selects - st0.selects == 7, "scan selected %u times, not once per ID 0-6",
          (unsigned)(st1.selects - st0.selects));
    CHECK(st1.bad_calls == 0, "the core made %u calls the state did not allow", (unsigned)st1.bad_calls);
    for (uint8_t t = 0; t < 7; t++) {
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_GET_DEV;
        ccb.target = t;
        CHECK(run(&ccb) == 0 && !ccb.u.dev.present, "target %u reported present", t);
    }

    static const uint8_t tur[6] = {0};
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCSI_IO;
    ccb.target = 2;
    memcpy(ccb.u.io.cdb, tur, sizeof tur);
    ccb.u.io.cdb_len = sizeof tur;
    ccb.u.io.dir = PCAM_DIR_NONE;
    CHECK(run(&ccb) == 0, "TEST UNIT READY did not complete");
    CHECK((ccb.status & PCAM_STATUS_MASK) == PCAM_SEL_TIMEOUT, "TEST UNIT READY to an empty ID: %s",
          pcam_status_name(ccb.status));

    pcam_bus_shutdown(&bus);
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_NOOP;
    CHECK(run(&ccb) == 0 && ccb.status == PCAM_NO_HBA, "after shutdown: %s", pcam_status_name(ccb.status));
    printf(PCAM_TEMPLATE_NAME ": attached, scanned 7 IDs (%u selections, all timed out), TUR -> SEL_TIMEOUT, "
           "%d CCBs completed once each\n", (unsigned)(st1.selects - st0.selects), completions);
    return 0;
}
