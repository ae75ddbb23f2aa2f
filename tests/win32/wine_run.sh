#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run one Win32 program of the mingw tree under Wine, in a folder of its
# own with its wnaspi32.dll beside it (as a legacy program is installed),
# and pass its output and exit status on.
# usage: wine_run.sh PREFIX BIN_DIR WORK_DIR PROGRAM.exe [INI_FILE|-] [ARGS...]
# INI_FILE is copied beside the DLL as wnaspi32.ini ("-": none).
set -eu
PCAM_WINEPREFIX=$1 bin=$2 work=$3 prog=$4 ini=$5
shift 5
. "$(dirname "$0")/wine_env.sh"
[ -f "$PCAM_WINEPREFIX/system.reg" ] || wine_skip "no WINEPREFIX (the win32.prefix fixture skipped or failed)"
rm -rf "$work"
mkdir -p "$work"
cp "$bin/wnaspi32.dll" "$bin/$prog" "$work/"
[ "$ini" = - ] || cp "$ini" "$work/wnaspi32.ini"
cd "$work"
timeout 300 wine "./$prog" "$@"
