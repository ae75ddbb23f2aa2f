/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The skeleton back-end's interface: what every chip back-end gives its
 * embedder (docs/porting.md copies and renames it for a new chip); the header is installed from the back-end's folder
 * (include/pcam/<chip>/, on the users' include path), or from
 * include/pcam/ if you move it there. Never include an OS header here:
 * back-ends are freestanding like the core.
 */
#ifndef PCAM_TEMPLATE_H
#define PCAM_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_err.h"
#include "pcam/pcam_hal.h"
#include "pcam/pcam_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The chip's name: what get_caps reports (PATH INQUIRY's chip_name) and what
 * its test program calls itself. */
#define PCAM_TEMPLATE_NAME "template"

/* How to attach to one chip: where it is and what it was wired as. */
typedef struct pcam_template_config {
    uintptr_t base;       /* register 0, as the platform's read8/write8 take it */
    uint8_t initiator_id; /* our SCSI ID, 0..7 */
} pcam_template_config;

/* What the skeleton counts, so its test can check the core's calls. */
typedef struct pcam_template_stats {
    uint32_t chip_resets, bus_resets, selects, set_xfers, bad_calls;
} pcam_template_stats;

/* Storage for one chip's state. The embedder owns it (static is fine: the
 * core and back-ends allocate nothing). Its fields are private; a real
 * back-end hides them behind a word array as pcam_esp does. */
typedef struct pcam_template {
    pcam_platform plat;
    pcam_template_config cfg;
    bool ev_pending;
    pcam_hal_event ev;
    pcam_hal_xfer_params xfer[8];
    pcam_template_stats stats;
} pcam_template;

/* The library's attach: sc_size is the caller's sizeof(pcam_template).
 * Storage the caller sized from other headers is refused with PCAM_ERR_ABI
 * before a byte of it is written (pcam.h, pcam_abi). */
pcam_err pcam_template_attach_abi(size_t sc_size, pcam_template *sc, const pcam_template_config *cfg,
                                  const pcam_platform *plat, pcam_hal *out);

/* Check the configuration, reset the chip (not the bus) and fill *out with
 * the ops table and sc for pcam_bus_init(). Returns PCAM_OK, PCAM_ERR_ABI,
 * PCAM_ERR_NULL or PCAM_ERR_RANGE (bad initiator ID). Inline, so that the
 * size it passes is the caller's. */
static inline pcam_err pcam_template_attach(pcam_template *sc, const pcam_template_config *cfg,
                                            const pcam_platform *plat, pcam_hal *out)
{
    return pcam_template_attach_abi(sizeof(pcam_template), sc, cfg, plat, out);
}

/* Copy the counters (all zero for NULL). */
void pcam_template_get_stats(const pcam_template *sc, pcam_template_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_TEMPLATE_H */
