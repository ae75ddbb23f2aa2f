#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest fixture of the Wine tests: a fresh WINEPREFIX of one ABI, once per
# test run, outside the source tree (wineboot takes tens of seconds the first
# time). For win32 it first finds out, once, whether this kernel runs i386
# programs at all (the 32-bit Wine loader is one): where it does not, the
# fixture skips and leaves the reason in PREFIX.skip for every 32-bit test
# to repeat. PCAM_I386=yes|no forces the finding (to test both branches).
# usage: wine_prefix.sh setup|cleanup PREFIX win32|win64
set -eu
action=$1
PCAM_WINEPREFIX=$2
PCAM_ABI=$3
. "$(dirname "$0")/wine_env.sh"
# A wineserver of an earlier, killed run is stopped, bounded: never hung on.
stop_server() { timeout 60 wineserver -k >/dev/null 2>&1 || true; }
case "$action" in
  cleanup)
    stop_server
    rm -rf "$PCAM_WINEPREFIX" "$PCAM_WINEPREFIX.boot.log" "$skip_file"
    exit 0 ;;
  setup) ;;
  *) echo "usage: $0 setup|cleanup PREFIX win32|win64" >&2; exit 2 ;;
esac
# A stale prefix (an earlier run killed half-way) is not trusted.
stop_server
rm -rf "$PCAM_WINEPREFIX" "$skip_file"
mkdir -p "$(dirname "$PCAM_WINEPREFIX")"
if [ "$PCAM_ABI" = win32 ]; then
  why=""
  case "${PCAM_I386:-detect}" in
    no) why="this kernel refuses i386 programs (forced by PCAM_I386=no)" ;;
    yes) ;;
    detect)
      # The loader itself is the probe: an i386 ELF, as every Win32 program
      # under this Wine needs. "Exec format error" is the kernel's answer
      # without IA-32 emulation; anything else is a real failure.
      if ! out=$("$WINELOADER" --version 2>&1); then
        case "$out" in
          *"Exec format error"*)
            why="this kernel refuses i386 programs: $WINELOADER: Exec format error" ;;
          *) wine_fail "$WINELOADER --version: $out" ;;
        esac
      fi ;;
    *) wine_fail "PCAM_I386 must be yes, no or unset, not '$PCAM_I386'" ;;
  esac
  if [ -n "$why" ]; then
    why="$why; the 32-bit (i686) DLL is built but not run here, its SRB layouts are checked by aspi.m32 (under qemu-i386 where the kernel refuses i386) and its behaviour by the win64.* tests"
    echo "$why" > "$skip_file"
    wine_skip "$why"
  fi
fi
start=$(date +%s)
if ! timeout 600 "$WINELOADER" wineboot -i >"$PCAM_WINEPREFIX.boot.log" 2>&1; then
  cat "$PCAM_WINEPREFIX.boot.log" >&2
  wine_fail "wineboot ($PCAM_ABI) failed"
fi
timeout 600 wineserver -w
[ -f "$PCAM_WINEPREFIX/system.reg" ] || { cat "$PCAM_WINEPREFIX.boot.log" >&2; wine_fail "no prefix made"; }
echo "$PCAM_ABI WINEPREFIX $PCAM_WINEPREFIX ready in $(( $(date +%s) - start )) s"
