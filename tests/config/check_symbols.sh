#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# "A switch that is off removes its code": every symbol behind a switch the
# minimal configuration turns off is defined in the default library and
# absent from the minimal one; the core's entry points are in both.
# usage: check_symbols.sh LIBPCAM_DEFAULT LIBPCAM_MINIMAL
set -eu
full=$1 min=$2
defined() { nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u; }
defined "$full" > "${TMPDIR:-/tmp}/pcam-sym-full.$$"
defined "$min" > "${TMPDIR:-/tmp}/pcam-sym-min.$$"
trap 'rm -f "${TMPDIR:-/tmp}/pcam-sym-full.$$" "${TMPDIR:-/tmp}/pcam-sym-min.$$"' EXIT
bad=0
# switch: symbols it removes
gone="PCAM_CFG_TEXT:pcam_sense_format PCAM_CFG_TEXT:pcam_asc_format PCAM_CFG_TEXT:pcam_sense_key_name
PCAM_CFG_TEXT:pcam_msg_format PCAM_CFG_TEXT:pcam_msg_name PCAM_CFG_TEXT:pcam_device_type_name
PCAM_CFG_TEXT:pcam_cdb_decode PCAM_CFG_TEXT:pcam_cdb_format PCAM_CFG_SENSE_TEXT:pcam_asc_stream
PCAM_CFG_CMDLEVEL:pcam_bus_hal_done PCAM_CFG_CMDLEVEL:pcam_bus_hal_msg_in PCAM_CFG_CMDLEVEL:pcam_dec_kick
PCAM_CFG_CODEC_EXTRAS:pcam_cdb_read PCAM_CFG_CODEC_EXTRAS:pcam_sense_build_fixed
PCAM_CFG_CODEC_EXTRAS:pcam_read_capacity16_parse PCAM_CFG_INVARIANTS:pcam_q_check PCAM_CFG_INVARIANTS:pcam_engine_check
PCAM_CFG_TEXT:pcam_recovery_format PCAM_CFG_TEXT:pcam_sb_putu PCAM_CFG_TEXT:pcam_sb_puthex
PCAM_CFG_CODEC_EXTRAS:pcam_lun_encode PCAM_CFG_CODEC_EXTRAS:pcam_period_factor_to_ps
PCAM_CFG_CODEC_EXTRAS:pcam_period_ps_to_factor PCAM_CFG_CODEC_EXTRAS:pcam_msg_build_byte
PCAM_CFG_CODEC_EXTRAS:pcam_msg_build_ignore_wide_residue PCAM_CFG_CODEC_EXTRAS:pcam_msg_build_modify_data_pointer
PCAM_CFG_CODEC_EXTRAS:pcam_msg_bytes_needed PCAM_CFG_CODEC_EXTRAS:pcam_msg_parser_feed
PCAM_CFG_CODEC_EXTRAS:pcam_inquiry_parse
PCAM_CFG_WIDE:pcam_msg_build_wdtr PCAM_CFG_PPR:pcam_msg_build_ppr PCAM_CFG_PPR:pcam_nego_chip_ppr
PCAM_CFG_REPORT_LUNS:pcam_cdb_report_luns PCAM_CFG_REPORT_LUNS:pcam_report_luns_header
PCAM_CFG_REPORT_LUNS:pcam_report_luns_get PCAM_CFG_REPORT_LUNS:pcam_lun_decode"
for e in $gone; do
  sw=${e%%:*} sym=${e#*:}
  grep -qx "$sym" "${TMPDIR:-/tmp}/pcam-sym-full.$$" || { echo "FAIL: $sym missing from the default library"; bad=1; }
  if grep -qx "$sym" "${TMPDIR:-/tmp}/pcam-sym-min.$$"; then
    echo "FAIL: $sym is still in the minimal library although $sw is 0"; bad=1
  fi
done
for sym in pcam_bus_init_abi pcam_abi_check pcam_action pcam_bus_poll pcam_sense_decode pcam_status_name pcam_cdb_inquiry pcam_msg_decode; do
  grep -qx "$sym" "${TMPDIR:-/tmp}/pcam-sym-min.$$" || { echo "FAIL: entry point $sym missing from the minimal library"; bad=1; }
done
[ $bad -eq 0 ] && echo "check_symbols: every switched-off symbol is gone from the minimal library, the entry points stay"
exit $bad
