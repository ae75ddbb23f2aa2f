/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bios_pcam_config.h: pcam's configuration in the legacy option ROM, the
 * minimal one (cmake/configs/pcam_minimal.h) plus the script-level
 * profile hal/sym needs and the codec the shim builds its CDBs and reads
 * INQUIRY and READ CAPACITY data with: a narrow bus, no text tables, no invariant
 * checks, so that the whole legacy image stays under 64 KiB.
 */
#ifndef BIOS_PCAM_CONFIG_H
#define BIOS_PCAM_CONFIG_H
#include "pcam_minimal.h"
#undef PCAM_CFG_CMDLEVEL
#define PCAM_CFG_CMDLEVEL 1 /* hal/sym is script-level */
#undef PCAM_CFG_CODEC_EXTRAS
#define PCAM_CFG_CODEC_EXTRAS 1 /* the CDB builders and the INQUIRY and READ CAPACITY parsers */
#endif /* BIOS_PCAM_CONFIG_H */
