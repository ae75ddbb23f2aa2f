/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * embed: the smallest complete pcam program. It brings up one bus on the
 * simulated chip with nothing but static storage, scans it, and reads one
 * block. Read it top to bottom as a first look at the API; everything a
 * real embedding adds (a real chip back-end, interrupts, a lock) is noted
 * where it would go.
 *
 * Build: part of the normal build (examples/embed). Run: ./embed
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pcam/pcam.h"  /* the CCB API: the only header an embedder needs... */
#include "pcam_sim.h"   /* ...plus its chip back-end; here the simulated bus */

/*
 * pcam allocates nothing. The bus and one slot per (target, LUN) live
 * where the embedder puts them, here in static storage. The LUN array must
 * hold max_targets x luns_per_target entries (PCAM_BUS_LUNS in
 * pcam_bus_storage.h); pcam_bus_init() refuses anything smaller, so sizing
 * it for a wide bus (16 IDs) is always safe. Each slot carries its tag
 * bitmap and queues, which is why it is worth keeping luns_per_target to
 * what the devices really have.
 */
#define LUNS_PER_TARGET 1
static pcam_bus bus;
static pcam_lun luns[PCAM_BUS_LUNS(PCAM_MAX_TARGETS, LUNS_PER_TARGET)];

/* The simulated disk's medium: 64 blocks of 512 bytes, owned by us. */
#define DISK_BLOCKS 64u
#define BLOCK 512u
static uint8_t medium[DISK_BLOCKS * BLOCK];

/* A CCB's completion callback runs exactly once, whatever happens. This one
 * just raises a flag the main loop waits for. */
static void on_done(pcam_ccb *ccb)
{
    *(volatile int *)ccb->user = 1;
}

/*
 * The part a shim plays. The core never waits: it starts chip actions and
 * returns. Someone must deliver the chip's events and the passing of time.
 * This bus is polled (pcam_bus_config::polled), as in UEFI or a crash dump,
 * so one loop does both: poll the core while it finds work, and when it
 * finds none, let the simulated hardware run until its next happening or
 * the core's next timer, whichever is first. An interrupt-driven shim
 * would call pcam_bus_intr() from its ISR and pcam_bus_tick() from a timer
 * instead, holding its bus lock around each call.
 */
static int run(pcam_sim *sim, pcam_ccb *ccb)
{
    volatile int done = 0;
    ccb->done = on_done;
    ccb->user = (void *)&done;
    pcam_action(&bus, ccb);
    while (!done) {
        if (pcam_bus_poll(&bus))
            continue;
        uint64_t t = pcam_sim_next_time(sim);
        uint64_t d = pcam_bus_next_deadline(&bus);
        if (d < t)
            t = d;
        if (t == UINT64_MAX)
            return -1; /* nothing can ever happen again: a bug, not a wait */
        pcam_sim_advance(sim, t);
    }
    return 0;
}

int main(void)
{
    /* 1. The hardware. On a real board this is a chip at an address; here
     *    it is a simulated bus with one disk at target 0. */
    pcam_sim *sim = pcam_sim_create(NULL);
    if (sim == NULL || pcam_sim_add_target(sim, 0, NULL) != 0)
        return 1;
    static const char hello[] = "Hello from block 0 of the simulated disk.";
    memcpy(medium, hello, sizeof hello);
    pcam_simlu_init_disk(pcam_sim_lu(sim, 0, 0), medium, DISK_BLOCKS, BLOCK, "PCAMSIM", "EMBED",
                         "E0");

    /* 2. The two tables the core is given: the chip back-end (an ops table
     *    plus its softc) and the platform services (here the simulator's
     *    clock; a shim would give its monotonic clock and its logger). */
    pcam_hal hal;
    pcam_platform plat;
    pcam_sim_get_hal(sim, &hal);
    pcam_sim_get_platform(sim, &plat);

    /* 3. The bus. Every threshold has a documented default; change only
     *    what the platform needs. */
    pcam_bus_config cfg;
    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = LUNS_PER_TARGET;
    cfg.polled = true;
    if (pcam_bus_init(&bus, &cfg, &hal, &plat, luns, sizeof luns / sizeof luns[0]) != PCAM_OK)
        return 1;

    /* 4. Scan: the core probes every ID, negotiates width and speed, and
     *    fills its device table. The CCB is ours (a local here) and must
     *    stay put until its callback has run. */
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCAN_BUS;
    if (run(sim, &ccb) != 0 || ccb.status != PCAM_REQ_CMP)
        return 1;

    /* 5. Read block 0 with READ(10): opcode 28h, LBA in bytes 2-5,
     *    transfer length in blocks in bytes 7-8 (SBC). The core runs the
     *    whole exchange: selection, IDENTIFY, the CDB, DATA IN, status,
     *    and fetches the sense itself if the disk says CHECK CONDITION (a
     *    fresh disk does: UNIT ATTENTION after power-on, which the core
     *    absorbs by retrying, so the retries count matters). */
    static uint8_t block[BLOCK];
    static const uint8_t read10[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    uint8_t sense[32];
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCSI_IO;
    ccb.target = 0;
    ccb.lun = 0;
    memcpy(ccb.u.io.cdb, read10, sizeof read10);
    ccb.u.io.cdb_len = sizeof read10;
    ccb.u.io.dir = PCAM_DIR_IN;
    ccb.u.io.data = block;
    ccb.u.io.data_len = sizeof block;
    ccb.u.io.sense = sense;
    ccb.u.io.sense_len = sizeof sense;
    ccb.u.io.retries = 4;
    if (run(sim, &ccb) != 0)
        return 1;

    /* 6. The status word is a CAM status plus flags: mask it before
     *    comparing. The residual says how much did not arrive. */
    if ((ccb.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP || ccb.u.io.resid != 0) {
        fprintf(stderr, "embed: READ failed: %s\n", pcam_status_name(ccb.status));
        return 1;
    }
    printf("read %u bytes from target 0: \"%s\"\n", (unsigned)(sizeof block - ccb.u.io.resid),
           (const char *)block);
    printf("storage: bus %zu bytes + %zu LUN slots x %zu bytes, all static\n", sizeof bus,
           sizeof luns / sizeof luns[0], sizeof luns[0]);

    /* 7. Shutdown completes anything still queued (nothing here) before
     *    the hardware goes away. */
    pcam_bus_shutdown(&bus);
    pcam_sim_destroy(sim);
    return 0;
}
