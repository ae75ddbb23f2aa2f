/* SPDX-License-Identifier: BSD-2-Clause */
/* The FreeBSD shim's harness on hal/sim: a simulated bus with disks, the
 * translator on its pcam bus, and the CAM stand-in driving it. */
#ifndef FBSD_SIMFX_H
#define FBSD_SIMFX_H

#include "cam_model.h"
#include "simrig.h"

typedef struct fbsd_fx {
    simrig r;
    cam_model m;
    bool poll_only; /* step with the SIM poll routine only (a dump: interrupts off) */
} fbsd_fx;

/* A bus (scfg/bcfg NULL = defaults) with the translator attached. */
fbsd_fx *fx_new(const pcam_sim_config *scfg, const pcam_bus_config *bcfg);
void fx_free(fbsd_fx *f);
/* A disk of `blocks` 512-byte blocks at id/lun, no power-on UNIT ATTENTION
 * unless ua is true; returns its medium. */
uint8_t *fx_disk(fbsd_fx *f, uint8_t id, uint8_t lun, uint64_t blocks, bool ua);
/* The bytes the rig's pattern holds at a block of a disk it made. */
bool fx_media_ok(fbsd_fx *f, uint8_t id, uint8_t lun, uint32_t lba, const uint8_t *buf, size_t len);

#define FX_MS 1000000ull

#endif /* FBSD_SIMFX_H */
