#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# docs.readme: README.md's "Layout" block and "Installing" table name what the
# tree and its install really hold, so that a newcomer who reads them learns
# of every back-end and every component.
#  1. Layout: every hal/<chip>/ and osshim/<os>/ folder with a CMakeLists.txt
#     or a Kbuild, and every top-level folder git tracks, is named there.
#  2. Installing: the build is installed into a scratch prefix, and every
#     pkg-config file (pcam-<name>.pc) the install writes and every CMake
#     component its pcamConfig.cmake offers (pcam_AVAILABLE_COMPONENTS) has
#     its row: `<name>` in the first column, `pcam-<name>` and `pcam::<name>`
#     on the same row. A row for a component the install does not write
#     fails too.
# The demo's figures the README quotes are checked by pcamctl.demo, which
# runs the demo (tests/pcamctl/run.sh).
# usage: readme_check.sh SRC_DIR BUILD_DIR WORK_DIR
set -eu
src=$1 build=$2 work=$3
readme=$src/README.md
bad=0
fail() { echo "docs.readme: $*" >&2; bad=1; }
rm -rf "$work"; mkdir -p "$work"

# The block between "## Layout" and the next "## " heading.
awk '/^## Layout$/ {on = 1; next} on && /^## / {exit} on' "$readme" >"$work/layout"
[ -s "$work/layout" ] || { echo "docs.readme: README.md has no '## Layout' section" >&2; exit 1; }
for d in "$src"/hal/*/ "$src"/osshim/*/; do
  [ -f "$d/CMakeLists.txt" ] || [ -f "$d/Kbuild" ] || continue
  rel=${d#"$src"/}; rel=${rel%/}
  grep -q "$rel\\b" "$work/layout" || fail "README's Layout does not name $rel/"
done
for d in "$src"/*/; do
  name=$(basename "$d")
  # Only folders the project tracks (a build tree in the source is not one).
  if [ -d "$src/.git" ] || [ -f "$src/.git" ]; then
    git -C "$src" ls-files --error-unmatch "$name" >/dev/null 2>&1 || continue
  fi
  case $name in build|build-*) continue ;; esac
  grep -q "^    $name/" "$work/layout" || fail "README's Layout has no line for the top-level folder $name/"
done

# The install: what the build really writes.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; echo "docs.readme: cmake --install failed" >&2; exit 1; }
awk '/^## Installing$/ {on = 1; next} on && /^## / {exit} on && /^\| `/' "$readme" >"$work/table"
[ -s "$work/table" ] || { echo "docs.readme: README.md's Installing section has no component table" >&2; exit 1; }
find "$work/prefix" -name 'pcam-*.pc' | sed 's,.*/pcam-,,; s,\.pc$,,' >"$work/pc"
# The CMake components: the list the installed pcamConfig.cmake offers.
cfg=$(find "$work/prefix" -name pcamConfig.cmake | head -n 1)
[ -n "$cfg" ] || { echo "docs.readme: the install wrote no pcamConfig.cmake" >&2; exit 1; }
sed -n 's/^set(pcam_AVAILABLE_COMPONENTS \(.*\))$/\1/p' "$cfg" | tr ' ;' '\n\n' | sed '/^$/d' >"$work/cm"
[ -s "$work/cm" ] || { echo "docs.readme: $cfg lists no components" >&2; exit 1; }
[ -s "$work/pc" ] || { echo "docs.readme: the install wrote no pcam-*.pc file" >&2; exit 1; }
sort -u "$work/pc" "$work/cm" >"$work/installed"
while read -r name; do
  row=$(grep "^| \`$name\` |" "$work/table" || true)
  if [ -z "$row" ]; then
    fail "the install writes component '$name' but README's Installing table has no row for it"
    continue
  fi
  if grep -qx "$name" "$work/pc"; then
    printf '%s\n' "$row" | grep -q "\`pcam-$name\`" || fail "README's row for '$name' does not name pcam-$name"
  fi
  if grep -qx "$name" "$work/cm"; then
    printf '%s\n' "$row" | grep -q "\`pcam::$name\`" || fail "README's row for '$name' does not name pcam::$name"
  fi
done <"$work/installed"
sed 's/^| `\([^`]*\)`.*/\1/' "$work/table" | while read -r name; do
  grep -qx "$name" "$work/installed" ||
    echo "docs.readme: README's Installing table has a row for '$name', which the install does not write" >&2
done >"$work/extra" 2>&1
if [ -s "$work/extra" ]; then cat "$work/extra" >&2; bad=1; fi

[ "$bad" -eq 0 ] || exit 1
echo "docs.readme: the Layout names every back-end, platform and top-level folder;" \
     "the Installing table matches the $(wc -l <"$work/installed") components the install writes"
