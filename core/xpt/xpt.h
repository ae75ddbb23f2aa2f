/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layer 5 of the core (docs/design.md, "Layers inside the core"): what
 * core/xpt's files share among themselves, the bus scan (scan.c) as the CCB
 * dispatch (xpt.c) drives it. Nothing below xpt includes this
 * (tests/layering/check.sh follows the #include chains): the layers below
 * reach xpt only by returning to it.
 */
#ifndef PCAM_XPT_H
#define PCAM_XPT_H

#include "../engine/engine.h"

void pcam_scan_start(pcam_bus *bus, pcam_ccb *ccb);
/* PCAM_FN_ABORT of a scan request: false if the victim is none (the engine's). */
bool pcam_scan_abort(pcam_bus *bus, pcam_ccb *ccb);
/* Complete every scan request, waiting or running, with `status`. */
void pcam_scan_cancel(pcam_bus *bus, uint32_t status);
/* pcam_bus_hal_device_changed(): a LU lost now, or a target owed a scan. */
int pcam_scan_device_changed(pcam_bus *bus, uint8_t target, uint8_t lun, bool added);

#endif /* PCAM_XPT_H */
