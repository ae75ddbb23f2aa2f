# SPDX-License-Identifier: BSD-2-Clause
# Sourced by the win32 test scripts: the Wine environment every one of them
# uses (no display, no Mono/Gecko installers, no debug chatter, pcam's
# wnaspi32.dll instead of Wine's builtin), and the loud skip when Wine truly
# cannot run on this machine (CI installs it: scripts/deps.sh).
: "${PCAM_WINEPREFIX:?PCAM_WINEPREFIX not set}"
export WINEPREFIX="$PCAM_WINEPREFIX"
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml=;wnaspi32=n"
unset DISPLAY WAYLAND_DISPLAY
wine_skip() {
  echo "SKIPPED: $*" >&2
  echo "SKIPPED: $*"
  exit 77
}
command -v wine >/dev/null 2>&1 || wine_skip "wine is not installed (scripts/deps.sh installs wine and wine32)"
command -v wineserver >/dev/null 2>&1 || wine_skip "wineserver is not installed"
