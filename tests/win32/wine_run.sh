#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run one program of a mingw tree under Wine, in a folder of its own with its
# wnaspi32.dll beside it (as a legacy program is installed), and pass its
# output and exit status on. Skips only where the prefix fixture found that
# this ABI cannot run here (and says why); a missing prefix otherwise fails.
# usage: wine_run.sh PREFIX win32|win64 BIN_DIR WORK_DIR PROGRAM.exe [INI_FILE|-] [ARGS...]
# INI_FILE is copied beside the program as wnaspi32.ini ("-": none).
# From the environment:
#   PCAM_INI_FORM=crlf-bom|utf16le  store that ini as Notepad would: CR LF
#                                   with a UTF-8 byte-order mark, or UTF-16
#   PCAM_DLL_DIR=NAME               the DLL goes into WORK_DIR/NAME instead
#                                   (the program loads it by path), with
#   PCAM_DLL_INI=FILE               copied beside it as wnaspi32.ini
#   PCAM_WINEDEBUG=...              WINEDEBUG (+debugstr shows the DLL's
#                                   debugger output)
# The program's stdout comes first, then its stderr (Wine's debug output
# included) after a line "== stderr", then every *.log and *.img under
# WORK_DIR with its size and each log's text: one fixed order for the
# tests' regexes, whatever the pipes interleave.
set -eu
PCAM_WINEPREFIX=$1 PCAM_ABI=$2 bin=$3 work=$4 prog=$5 ini=$6
shift 6
. "$(dirname "$0")/wine_env.sh"
[ -f "$skip_file" ] && wine_skip "$(cat "$skip_file")"
[ -f "$PCAM_WINEPREFIX/system.reg" ] || wine_fail "no WINEPREFIX $PCAM_WINEPREFIX (the $PCAM_ABI.prefix fixture failed)"
rm -rf "$work"
mkdir -p "$work"
cp "$bin/$prog" "$work/"
if [ -n "${PCAM_DLL_DIR:-}" ]; then
  mkdir -p "$work/$PCAM_DLL_DIR"
  cp "$bin/wnaspi32.dll" "$work/$PCAM_DLL_DIR/"
  [ -z "${PCAM_DLL_INI:-}" ] || cp "$PCAM_DLL_INI" "$work/$PCAM_DLL_DIR/wnaspi32.ini"
else
  cp "$bin/wnaspi32.dll" "$work/"
fi
if [ "$ini" != - ]; then
  case "${PCAM_INI_FORM:-}" in
    "") cp "$ini" "$work/wnaspi32.ini" ;;
    crlf-bom) { printf '\357\273\277'; sed 's/$/\r/' "$ini"; } > "$work/wnaspi32.ini" ;;
    utf16le) { printf "\377\376"; sed "s/$/\r/" "$ini" | iconv -f UTF-8 -t UTF-16LE; } > "$work/wnaspi32.ini" ;;
    *) wine_fail "PCAM_INI_FORM must be crlf-bom or utf16le, not '$PCAM_INI_FORM'" ;;
  esac
fi
cd "$work"
rc=0
timeout 300 "$WINELOADER" "./$prog" "$@" 2> "$work.stderr" || rc=$?
echo "== stderr"
cat "$work.stderr"
rm -f "$work.stderr"
find . -name '*.log' -o -name '*.img' | LC_ALL=C sort | while read -r f; do
  echo "== $f ($(wc -c < "$f") bytes)"
  case "$f" in *.log) cat "$f" ;; esac
done
exit $rc
