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
 * includes pcam's headers: the switches size the storage types the caller
 * allocates, and pcam_bus_init() refuses storage laid out with other
 * switches (#PCAM_ERR_ABI, see ::pcam_abi). An installed pcam carries its
 * own: the install's copy of this header reads pcam_config_build.h, the
 * switches the library was built with, unless the program names a
 * @c PCAM_CONFIG_FILE of its own. A switch that is off removes the code
 * behind it, not only its use: the CI size report (tests/freestanding)
 * builds the minimal and the default configuration and prints both.
 *
 * This header must never include anything but the embedder's own file (or,
 * installed, the recorded one): it is read by the core, which is
 * freestanding.
 */
#ifndef PCAM_CONFIG_H
#define PCAM_CONFIG_H

/**
 * @def PCAM_CONFIG_INSTALLED
 * @brief 0 in the source tree; 1 in the copy the install puts in
 * include/pcam (cmake/config.cmake writes it), where this header then reads
 * the recorded switches from pcam_config_build.h.
 */
#define PCAM_CONFIG_INSTALLED 0

#ifdef PCAM_CONFIG_FILE
#include PCAM_CONFIG_FILE
#elif PCAM_CONFIG_INSTALLED
#include "pcam_config_build.h"
#endif

/**
 * @def PCAM_CFG_TEXT
 * @brief 1: the formatters and name tables (pcam_sense_format(),
 * pcam_asc_format(), pcam_sense_key_name(), pcam_msg_format(),
 * pcam_msg_name(), pcam_msg_ext_name(), pcam_device_type_name(), and the
 * CDB decoder and formatter pcam_cdb_decode() / pcam_cdb_format(), the
 * recovery report pcam_recovery_format(), and the number writers of the
 * text builder they share). 0: none of them is compiled; the core never
 * calls them itself. The short
 * name functions (pcam_status_name(), pcam_strerror(), pcam_phase_name(),
 * pcam_dir_name()) stay, since a shim's error messages need them.
 */
#ifndef PCAM_CFG_TEXT
#define PCAM_CFG_TEXT 1
#endif

/**
 * @def PCAM_CFG_CMDLEVEL
 * @brief 1: the script-level and command-level profiles (pcam_hal.h,
 * hal_cmd: pcam_bus_hal_done() and the other decision callbacks). 0: only
 * phase-level back-ends attach (pcam_bus_init() refuses the others with
 * PCAM_ERR_UNSUPPORTED and logs "PCAM_CFG_CMDLEVEL is 0") and
 * core/engine/decide.c compiles to nothing.
 */
#ifndef PCAM_CFG_CMDLEVEL
#define PCAM_CFG_CMDLEVEL 1
#endif

/**
 * @def PCAM_CFG_CODEC_EXTRAS
 * @brief 1: the codec functions the core itself never calls, for tools,
 * shims and target models:
 * - the CDB builders other than INQUIRY and REPORT LUNS (pcam_cdb_read(),
 *   pcam_cdb_mode_sense(), ...) and the sense builders;
 * - READ CAPACITY parsing and building;
 * - the INQUIRY parser pcam_inquiry_parse() (the scan reads the qualifier,
 *   device type and CMDQUE itself) and the LUN encoder pcam_lun_encode();
 * - the period factor conversions (pcam_period_factor_to_ps() and the
 *   others);
 * - the message builders for messages the core never sends
 *   (pcam_msg_build_byte(), pcam_msg_build_ignore_wide_residue(),
 *   pcam_msg_build_modify_data_pointer()), pcam_msg_bytes_needed(), and the
 *   incremental parser pcam_msg_parser_init() / _feed() / _busy() (the core
 *   decodes with pcam_msg_decode()).
 *
 * 0: none of them is compiled (cdb_build.c, sense_build.c, capacity.c,
 * lun_build.c, period.c and msg_parser.c in core/proto compile to nothing,
 * and parts of inquiry.c and msg_build.c).
 */
#ifndef PCAM_CFG_CODEC_EXTRAS
#define PCAM_CFG_CODEC_EXTRAS 1
#endif

/**
 * @def PCAM_CFG_REPORT_LUNS
 * @brief 1: the bus scan asks LUN 0 of a device that claims SPC-3 or later
 * for its LUN list with REPORT LUNS (when
 * pcam_bus_config::scan_report_luns is set), and the REPORT LUNS codec the
 * scan reads it with (pcam_cdb_report_luns(), pcam_report_luns_header(),
 * pcam_report_luns_get(), pcam_lun_decode()) is compiled. 0: the scan
 * probes LUNs 1-7 of every device with INQUIRY, as it does for an older
 * device or with scan_report_luns false (which has no effect then); on
 * SPI, whose IDENTIFY message addresses LUNs 0-7 only, that reaches the
 * same LUNs, with an INQUIRY per absent LUN instead of one REPORT LUNS.
 * The codec functions stay for tools with #PCAM_CFG_CODEC_EXTRAS.
 */
#ifndef PCAM_CFG_REPORT_LUNS
#define PCAM_CFG_REPORT_LUNS 1
#endif

/**
 * @def PCAM_CFG_INVARIANTS
 * @brief 1: pcam_bus_check_invariants() walks the bus's state and names the
 * first broken invariant (tests, fuzzers and the soak call it after every
 * step). 0: the checker is not compiled and always answers NULL.
 */
#ifndef PCAM_CFG_INVARIANTS
#define PCAM_CFG_INVARIANTS 1
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
 * @brief 1: the CDB decoder (pcam_cdb_decode(), pcam_cdb_info::name) and
 * the formatter pcam_cdb_format() name every T10 opcode ("READ(10)"). 0:
 * the formatter prints the opcode in hex and the decoder names every known
 * opcode "CDB" (about 6 KB of names left out).
 */
#ifndef PCAM_CFG_CDB_NAMES
#define PCAM_CFG_CDB_NAMES 1
#endif

/**
 * @def PCAM_CFG_MAX_TARGETS
 * @brief Target IDs the bus storage has room for: 16 (wide buses) or 8.
 * With 8, a wide chip is driven as a narrow one (IDs 0-7, no WDTR:
 * #PCAM_CFG_WIDE is forced to 0), and every per-target array in ::pcam_bus
 * halves.
 */
#ifndef PCAM_CFG_MAX_TARGETS
#define PCAM_CFG_MAX_TARGETS 16
#endif

/**
 * @def PCAM_CFG_WIDE
 * @brief 1: wide (16-bit) transfers are negotiated: the core sends WDTR
 * when its goal is wide, judges the target's WDTR answer, steps down the
 * MESSAGE REJECT ladder's wide rung, and pcam_msg_build_wdtr() is
 * compiled. 0: every transfer is narrow; none of that code is compiled. A
 * target that sends WDTR itself still gets the answer a narrow initiator
 * must give (SPI-3 4.12.3), WDTR with width 0 (8-bit), after which both
 * ends are asynchronous narrow and the core's own SDTR follows. Forced to
 * 0 when #PCAM_CFG_MAX_TARGETS is 8 (a narrow bus has no upper byte lanes).
 */
#ifndef PCAM_CFG_WIDE
#define PCAM_CFG_WIDE 1
#endif

/**
 * @def PCAM_CFG_PPR
 * @brief 1: PARALLEL PROTOCOL REQUEST (DT clocking, IU and QAS, and the
 * period factors 0x08/0x09) is negotiated on chips that report
 * PCAM_HAL_CAP_DT, IU or QAS: the PPR builder pcam_msg_build_ppr(), the
 * check of a target's PPR answer, the ladder's PPR rung and the answer to
 * a target's PPR are compiled. 0: none of that code is compiled and the
 * core negotiates as it does for a chip without DT, IU and QAS: SDTR (and
 * WDTR with #PCAM_CFG_WIDE) only, and a target that sends PPR itself is
 * answered with MESSAGE REJECT, which by SPI leaves both ends asynchronous
 * narrow before the core's own WDTR/SDTR. Forced to 0 when #PCAM_CFG_WIDE
 * is 0: DT, and so every PPR option, is defined on wide buses only.
 */
#ifndef PCAM_CFG_PPR
#define PCAM_CFG_PPR 1
#endif

/**
 * @def PCAM_CFG_TAGS
 * @brief Tags per LUN, a multiple of 32 from 32 to 256: the most commands
 * one LUN can have outstanding (pcam_bus_config::tag_depth_max must stay
 * below it). Each 32 costs 4 bytes per LUN slot.
 */
#ifndef PCAM_CFG_TAGS
#define PCAM_CFG_TAGS 256
#endif

/**
 * @def PCAM_CFG_TAG_HASH
 * @brief Buckets of the per-bus index that finds a reselecting command by
 * its tag, a power of two; one pointer each. Fewer buckets make reselection
 * walk longer chains when many commands are outstanding.
 */
#ifndef PCAM_CFG_TAG_HASH
#define PCAM_CFG_TAG_HASH 256
#endif

/**
 * @def PCAM_CFG_EVENT_RING
 * @brief Entries of the per-bus event ring read by pcam_bus_read_events()
 * (16 bytes each). 0: no ring; pcam_bus_read_events() returns nothing and
 * every event is counted as dropped. Async callbacks are not affected.
 */
#ifndef PCAM_CFG_EVENT_RING
#define PCAM_CFG_EVENT_RING 64
#endif

/**
 * @def PCAM_CFG_SCAN_BUF
 * @brief Bytes of the buffer the core's own commands (scan INQUIRY,
 * REPORT LUNS) read into, at least 64. REPORT LUNS reports
 * (PCAM_CFG_SCAN_BUF - 8) / 8 LUNs at most: 31 with the default 256, 7
 * with 64.
 */
#ifndef PCAM_CFG_SCAN_BUF
#define PCAM_CFG_SCAN_BUF 256
#endif

/**
 * @def PCAM_CFG_COUNTERS
 * @brief 1: per-target statistics (commands, retries, aborts, forced
 * ORDERED tags...) read with pcam_bus_get_counters(). 0: none are kept (64
 * bytes per target saved) and pcam_bus_get_counters() gives zeros and
 * PCAM_ERR_UNSUPPORTED.
 */
#ifndef PCAM_CFG_COUNTERS
#define PCAM_CFG_COUNTERS 1
#endif

/**
 * @def PCAM_CFG_LOG_TEXT
 * @brief 1: the core's log lines (pcam_platform::log) say what happened
 * ("illegal bus phase; resetting the bus: RESERVED(4)"). 0: those texts are
 * not compiled; a log line still comes at the same moment and level, with
 * its detail (a phase or message name) after "pcam: event (message texts
 * not built in)". The event ring and counters are not affected.
 */
#ifndef PCAM_CFG_LOG_TEXT
#define PCAM_CFG_LOG_TEXT 1
#endif

#if PCAM_CFG_MAX_TARGETS != 8 && PCAM_CFG_MAX_TARGETS != 16
#error "PCAM_CFG_MAX_TARGETS must be 8 or 16"
#endif
#if PCAM_CFG_TAGS < 32 || PCAM_CFG_TAGS > 256 || PCAM_CFG_TAGS % 32 != 0
#error "PCAM_CFG_TAGS must be a multiple of 32 from 32 to 256"
#endif
#if PCAM_CFG_TAG_HASH < 1 || (PCAM_CFG_TAG_HASH & (PCAM_CFG_TAG_HASH - 1)) != 0
#error "PCAM_CFG_TAG_HASH must be a power of two"
#endif
#if PCAM_CFG_SCAN_BUF < 64 || PCAM_CFG_SCAN_BUF > 65535
#error "PCAM_CFG_SCAN_BUF must be from 64 to 65535"
#endif

#if PCAM_CFG_WIDE != 0 && PCAM_CFG_WIDE != 1
#error "PCAM_CFG_WIDE must be 0 or 1"
#endif
#if PCAM_CFG_PPR != 0 && PCAM_CFG_PPR != 1
#error "PCAM_CFG_PPR must be 0 or 1"
#endif
#if PCAM_CFG_REPORT_LUNS != 0 && PCAM_CFG_REPORT_LUNS != 1
#error "PCAM_CFG_REPORT_LUNS must be 0 or 1"
#endif

/* Eight IDs is a narrow bus: no wide transfers, and without wide no DT. */
#if PCAM_CFG_MAX_TARGETS == 8
#undef PCAM_CFG_WIDE
#define PCAM_CFG_WIDE 0
#endif
#if !PCAM_CFG_WIDE
#undef PCAM_CFG_PPR
#define PCAM_CFG_PPR 0
#endif

/* Text tables live inside the formatters: no formatters, no tables. */
#if !PCAM_CFG_TEXT
#undef PCAM_CFG_SENSE_TEXT
#define PCAM_CFG_SENSE_TEXT 0
#undef PCAM_CFG_CDB_NAMES
#define PCAM_CFG_CDB_NAMES 0
#endif

#endif /* PCAM_CONFIG_H */
