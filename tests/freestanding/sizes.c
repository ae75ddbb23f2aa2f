/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Storage sizes as seen by the target compiler: each array's size is one
 * sizeof, read back with nm -S by check.sh (a cross build cannot run code).
 * Never linked into anything.
 */
#include "pcam/pcam.h"

char pcam_sizeof_bus[sizeof(pcam_bus)];
char pcam_sizeof_lun[sizeof(pcam_lun)];
char pcam_sizeof_ccb[sizeof(pcam_ccb)];
