# SPDX-License-Identifier: BSD-2-Clause
# Sourced by the Wine test scripts with PCAM_WINEPREFIX and PCAM_ABI
# (win32|win64) set: the Wine environment every one of them uses (no
# display, no Mono/Gecko installers, no debug chatter, pcam's wnaspi32.dll
# instead of Wine's builtin) and the loader of that ABI. Debian's wine32
# loader is an i386 Linux program; wine64 runs 64-bit PE code natively.
: "${PCAM_WINEPREFIX:?PCAM_WINEPREFIX not set}"
: "${PCAM_ABI:?PCAM_ABI not set}"
export WINEPREFIX="$PCAM_WINEPREFIX"
export WINEDEBUG="${PCAM_WINEDEBUG:--all}"
export WINEDLLOVERRIDES="mscoree,mshtml=;wnaspi32=n"
unset DISPLAY WAYLAND_DISPLAY
wine_skip() {
  echo "SKIPPED: $*" >&2
  echo "SKIPPED: $*"
  exit 77
}
wine_fail() {
  echo "FAILED: $*" >&2
  exit 1
}
case "$PCAM_ABI" in
  win32) export WINEARCH=win32 WINELOADER=/usr/lib/wine/wine wine_pkg=wine32 ;;
  win64) export WINEARCH=win64 WINELOADER=/usr/lib/wine/wine64 wine_pkg=wine64 ;;
  *) wine_fail "unknown ABI $PCAM_ABI" ;;
esac
# A missing package is a failure that names it, never a skip: CI installs
# both loaders (scripts/deps.sh, group win32).
[ -x "$WINELOADER" ] || wine_fail "no Wine loader $WINELOADER (scripts/deps.sh installs $wine_pkg)"
command -v wineserver >/dev/null 2>&1 || wine_fail "wineserver is not installed (scripts/deps.sh installs wine)"
# The state the prefix fixture left: why this ABI's programs cannot run here.
skip_file="$PCAM_WINEPREFIX.skip"
