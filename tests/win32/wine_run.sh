#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run one program of a mingw tree under Wine, in a folder of its own with its
# wnaspi32.dll beside it (as a legacy program is installed), and pass its
# output and exit status on. Skips only where the prefix fixture found that
# this ABI cannot run here (and says why); a missing prefix otherwise fails.
# usage: wine_run.sh PREFIX win32|win64 BIN_DIR WORK_DIR PROGRAM.exe [INI_FILE|-] [ARGS...]
# INI_FILE is copied beside the DLL as wnaspi32.ini ("-": none).
set -eu
PCAM_WINEPREFIX=$1 PCAM_ABI=$2 bin=$3 work=$4 prog=$5 ini=$6
shift 6
. "$(dirname "$0")/wine_env.sh"
[ -f "$skip_file" ] && wine_skip "$(cat "$skip_file")"
[ -f "$PCAM_WINEPREFIX/system.reg" ] || wine_fail "no WINEPREFIX $PCAM_WINEPREFIX (the $PCAM_ABI.prefix fixture failed)"
rm -rf "$work"
mkdir -p "$work"
cp "$bin/wnaspi32.dll" "$bin/$prog" "$work/"
[ "$ini" = - ] || cp "$ini" "$work/wnaspi32.ini"
cd "$work"
timeout 300 "$WINELOADER" "./$prog" "$@"
