/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_config.h
 * @brief Compile-time configuration: what an embedder may leave out.
 *
 * Every switch has a default that gives the full library. An embedder
 * overrides switches in one of two ways, as lwIP's lwipopts.h and TinyUSB's
 * tusb_config.h do:
 *
 * - define @c PCAM_CONFIG_FILE to the name of its own header (for example
 *   `-DPCAM_CONFIG_FILE='"board_pcam.h"'`), which is included first and
 *   defines the switches it wants; or
 * - define single switches on the compiler command line (`-DPCAM_CFG_SENSE_TEXT=0`).
 *
 * The same settings must be used for the core and for everything that
 * includes pcam's headers. A switch that is off removes the code behind it,
 * not only its use: the CI size report (tests/freestanding) builds the
 * minimal and the default configuration and prints both.
 *
 * This header must never include anything but the embedder's own file: it
 * is read by the core, which is freestanding.
 */
#ifndef PCAM_CONFIG_H
#define PCAM_CONFIG_H

#ifdef PCAM_CONFIG_FILE
#include PCAM_CONFIG_FILE
#endif

/**
 * @def PCAM_CFG_SENSE_TEXT
 * @brief 1: pcam_asc_format() and pcam_sense_format() give the T10 text of
 * every ASC/ASCQ pair (a compressed table of about 15 KB). 0: they print the
 * codes only ("ASC 0x11 ASCQ 0x00"), and the table is not linked.
 */
#ifndef PCAM_CFG_SENSE_TEXT
#define PCAM_CFG_SENSE_TEXT 1
#endif

/**
 * @def PCAM_CFG_CDB_NAMES
 * @brief 1: pcam_cdb_name() and the CDB formatter name every T10 opcode
 * ("READ(10)"). 0: the formatter prints the opcode in hex and
 * pcam_cdb_name() returns NULL (about 6 KB of names left out).
 */
#ifndef PCAM_CFG_CDB_NAMES
#define PCAM_CFG_CDB_NAMES 1
#endif

#endif /* PCAM_CONFIG_H */
