/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_pcam_config.h: the firmware's pcam configuration, given to every file
 * with -DPCAM_CONFIG_FILE (docs/embedded.md), as a vendor's own file would
 * be. A narrow bus (the LSI53C895A is then driven narrow, which QEMU's
 * model is anyway), 32 tags per LUN, no event ring; script-level back-ends
 * stay in because hal/sym needs them. It must only define PCAM_CFG_*.
 */
#ifndef FW_PCAM_CONFIG_H
#define FW_PCAM_CONFIG_H
#define PCAM_CFG_MAX_TARGETS 8
#define PCAM_CFG_TAGS 32
#define PCAM_CFG_TAG_HASH 16
#define PCAM_CFG_EVENT_RING 0
#endif
