#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest fixture of the win32 tests: a fresh WINEPREFIX, once per test run,
# outside the source tree (wineboot takes tens of seconds the first time).
# usage: wine_prefix.sh setup|cleanup PREFIX
set -eu
action=$1
PCAM_WINEPREFIX=$2
. "$(dirname "$0")/wine_env.sh"
case "$action" in
  cleanup)
    wineserver -k >/dev/null 2>&1 || true
    rm -rf "$PCAM_WINEPREFIX" "$PCAM_WINEPREFIX.boot.log"
    exit 0 ;;
  setup) ;;
  *) echo "usage: $0 setup|cleanup PREFIX" >&2; exit 2 ;;
esac
# A stale prefix (an earlier run killed half-way) is not trusted.
WINEPREFIX="$PCAM_WINEPREFIX" wineserver -k >/dev/null 2>&1 || true
rm -rf "$PCAM_WINEPREFIX"
mkdir -p "$(dirname "$PCAM_WINEPREFIX")"
# No 32-bit loader (wine32) means no Win32 program can run at all.
[ -x /usr/lib/wine/wine ] || wine_skip "no 32-bit Wine loader /usr/lib/wine/wine (package wine32)"
start=$(date +%s)
if ! timeout 600 wineboot -i >"$PCAM_WINEPREFIX.boot.log" 2>&1; then
  cat "$PCAM_WINEPREFIX.boot.log" >&2
  echo "wineboot failed" >&2
  exit 1
fi
timeout 600 wineserver -w
[ -f "$PCAM_WINEPREFIX/system.reg" ] || { cat "$PCAM_WINEPREFIX.boot.log" >&2; echo "no prefix made" >&2; exit 1; }
echo "WINEPREFIX $PCAM_WINEPREFIX ready in $(( $(date +%s) - start )) s"
