/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The minimal configuration: the smallest useful core, for small firmware.
 * Phase-level chips only, narrow (8 IDs: no WDTR) and without PPR, no
 * formatters or text tables, no codec helpers the core does not call
 * itself (CDB and sense builders, the INQUIRY parser, the byte-at-a-time
 * message parser, period and LUN conversions), no REPORT
 * LUNS in the scan (LUNs 1-7 are probed with INQUIRY), no invariant
 * checker, no event ring, counters or log texts, 32 tags per LUN, a 16-bucket tag
 * index and a 64-byte scan buffer. Used as an embedder's own
 * configuration file would be:
 *
 *     -DPCAM_CONFIG_FILE='"pcam_minimal.h"' -I.../cmake/configs
 *
 * CI builds the core with it (tests/config, the freestanding size report
 * and the embedded presets) and prints its size. It must only define
 * PCAM_CFG_* switches.
 */
#ifndef PCAM_MINIMAL_H
#define PCAM_MINIMAL_H

#define PCAM_CFG_TEXT 0
#define PCAM_CFG_CMDLEVEL 0
#define PCAM_CFG_CODEC_EXTRAS 0
#define PCAM_CFG_INVARIANTS 0
#define PCAM_CFG_MAX_TARGETS 8
#define PCAM_CFG_WIDE 0 /* implied by 8 targets; said here for the reader */
#define PCAM_CFG_PPR 0
#define PCAM_CFG_REPORT_LUNS 0
#define PCAM_CFG_TAGS 32
#define PCAM_CFG_TAG_HASH 16
#define PCAM_CFG_EVENT_RING 0
#define PCAM_CFG_SCAN_BUF 64
#define PCAM_CFG_COUNTERS 0
#define PCAM_CFG_LOG_TEXT 0

#endif /* PCAM_MINIMAL_H */
