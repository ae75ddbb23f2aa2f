/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One object of each storage type an embedder provides, so that nm -S can
 * read their real sizes for any target without running anything
 * (docs/check.sh sizes builds it for the host, -m32 and Cortex-M3 and
 * checks the table in docs/porting.md against them). Not part of any
 * library.
 */
#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"

pcam_bus pcam_size_bus;
pcam_lun pcam_size_lun;
pcam_ccb pcam_size_ccb;
pcam_esp pcam_size_esp;
