#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# freebsd.manpage: osshim/freebsd/pcam.4 is clean mdoc and its DIAGNOSTICS
# are the driver's real console lines.
#  - `mandoc -Tlint` reports nothing but "referenced manual not found" for
#    the FreeBSD pages it cross-references (cam(4), da(4), ...), which a
#    Debian host does not have;
#  - every `.It "pcam%d: ..."` of the DIAGNOSTICS list is a message the
#    source prints: the glue's device_printf() format in pcam_fbsd_kmod.c,
#    the core's text (core/, which prefixes "pcam: ", a ": %s" detail
#    after it) or hal/esp's ("esp: ...");
#  - and every device_printf() format in pcam_fbsd_kmod.c is listed.
# usage: manpage_check.sh PROJECT_SOURCE_DIR
set -eu
src=$1
page=$src/osshim/freebsd/pcam.4
kmod=$src/osshim/freebsd/pcam_fbsd_kmod.c
command -v mandoc >/dev/null 2>&1 || { echo "FAIL: mandoc missing (scripts/deps.sh freebsd installs it)" >&2; exit 1; }
fail=0
no() { echo "FAIL: $*" >&2; fail=1; }

lint=$(mandoc -Tlint "$page" 2>&1 | grep -v 'STYLE: referenced manual not found' || true)
[ -z "$lint" ] || no "mandoc -Tlint: $lint"

# C sources with adjacent string literals joined, one line each.
joined() { cat "$@" | tr '\n' ' ' | sed 's/"[[:space:]]*"//g'; }
core=$(joined "$src"/core/*/*.c)
esp=$(joined "$src"/hal/esp/*.c "$src"/hal/esp/*.h)
glue=$(joined "$kmod")

diags=$(sed -n '/^\.Sh DIAGNOSTICS/,/^\.Sh /p' "$page" | sed -n 's/^\.It "pcam%d: \(.*\)"$/\1/p')
[ -n "$diags" ] || no "no '.It \"pcam%d: ...\"' items in the DIAGNOSTICS section"
n=0
while IFS= read -r m; do
  [ -n "$m" ] || continue
  n=$((n + 1))
  case $m in
    "pcam: "*) t=${m#pcam: }; t=${t%: %s}
               printf '%s' "$core" | grep -qF "\"$t\"" ||
                 no "the page lists 'pcam%d: $m', which core/ does not print" ;;
    "esp: "*) printf '%s' "$esp" | grep -qF "\"$m\"" || no "the page lists 'pcam%d: $m', which hal/esp does not print" ;;
    *) printf '%s' "$glue" | grep -qF "\"$m\\n\"" || no "the page lists 'pcam%d: $m', which pcam_fbsd_kmod.c does not print" ;;
  esac
done <<EOF
$diags
EOF

# The other way: each of the glue's own messages is on the page ("%s" is
# plat_log() passing the core's and hal/esp's lines on).
printf '%s' "$glue" | grep -o 'device_printf([^"]*"[^"]*"' | sed 's/^[^"]*"//; s/\\n"$//; s/"$//' | grep -vxF '%s' |
  while IFS= read -r f; do
    printf '%s\n' "$diags" | grep -qxF "$f" || { echo "FAIL: pcam_fbsd_kmod.c prints '$f', which pcam.4 does not list" >&2; echo x; }
  done | grep -q x && fail=1
[ $fail -eq 0 ] && echo "PASS: pcam.4 lint-clean, $n diagnostics, each printed by the source, and every glue message listed"
exit $fail
