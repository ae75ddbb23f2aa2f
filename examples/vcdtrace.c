/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vcdtrace: one tagged READ(10) on the simulated bus, written as a VCD
 * waveform and as a phase log.
 *
 *   vcdtrace [out.vcd]        (default tagged-read.vcd)
 *
 * A wide disk at target 0 that always disconnects is scanned first (the
 * scan negotiates width and speed and finds out that the disk takes tags),
 * so the traced command is only the READ: selection with ATN, IDENTIFY and
 * SIMPLE QUEUE TAG, the CDB, DISCONNECT, bus free, reselection, IDENTIFY and
 * the tag again, 4 KiB of DATA IN, GOOD status and COMMAND COMPLETE.
 * docs/trace.md shows the picture made from the VCD.
 *
 * The bus is driven by the test harness (tests/support/simrig.c), which
 * plays the part of a shim: it takes interrupts to the core and moves the
 * simulated clock when both sides are waiting.
 */
#include <stdio.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam_sim.h"
#include "simrig.h"

#define BLOCKS 8u
#define BLOCK_BYTES 512u

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "tagged-read.vcd";
    static uint8_t buf[BLOCKS * BLOCK_BYTES];
    pcam_sim_target_config tc;
    simrig r;
    rig_ccb scan, rd;
    uint32_t st;

    if (simrig_init(&r, NULL, NULL, false) != 0) {
        fprintf(stderr, "vcdtrace: cannot set up the simulated bus\n");
        return 1;
    }
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    /* No power-on UNIT ATTENTION: the traced READ should not need a retry. */
    tc.ua_power_on = false;
    if (simrig_add_disk(&r, 0, 0, 2048, &tc) == NULL) {
        fprintf(stderr, "vcdtrace: cannot add the disk\n");
        simrig_fini(&r);
        return 1;
    }

    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    st = rig_sync(&r, &scan, RIG_S(30));
    if (st != PCAM_REQ_CMP) {
        fprintf(stderr, "vcdtrace: bus scan failed (status 0x%x)\n", (unsigned)st);
        simrig_fini(&r);
        return 1;
    }

    /* READ(10) of blocks 0x100..0x107 (SBC: opcode 0x28, LBA in bytes 2-5,
     * transfer length in bytes 7-8). */
    const uint8_t cdb[10] = {0x28, 0, 0x00, 0x00, 0x01, 0x00, 0, 0x00, BLOCKS, 0};
    rig_ccb_io(&rd, 0, 0, cdb, sizeof cdb, PCAM_DIR_IN, buf, sizeof buf);
    rd.ccb.flags |= PCAM_CCB_TAGGED;
    rd.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;

    if (pcam_sim_vcd_open(r.sim, path) != 0) {
        fprintf(stderr, "vcdtrace: cannot create %s\n", path);
        simrig_fini(&r);
        return 1;
    }
    printf("Phase log of one tagged READ(10), %u blocks, target 0 (VCD: %s)\n", BLOCKS, path);
    pcam_sim_set_log(r.sim, stdout);
    st = rig_sync(&r, &rd, RIG_S(1));
    pcam_sim_set_log(r.sim, NULL);
    /* Two idle microseconds, so the waveform ends with the bus free. */
    pcam_sim_advance(r.sim, pcam_sim_now(r.sim) + 2000);
    int vcd_rc = pcam_sim_vcd_close(r.sim);

    printf("status 0x%02x, SCSI status 0x%02x, residual %u\n", (unsigned)st,
           (unsigned)rd.ccb.u.io.scsi_status, (unsigned)rd.ccb.u.io.resid);
    simrig_fini(&r);
    if (vcd_rc != 0) {
        fprintf(stderr, "vcdtrace: writing %s failed\n", path);
        return 1;
    }
    return st == PCAM_REQ_CMP ? 0 : 1;
}
