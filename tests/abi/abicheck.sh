#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The ABI check (label abi; docs/releasing.md): the public interface of the
# installed libraries against the stored baseline of the last release,
# tests/abi/baseline/pcam-X.Y.Z.abi, with libabigail.
#
# pcam's libraries are static only (docs/releasing.md says why), and
# libabigail reads ELF objects with DWARF, so the interface is made into
# one: the five installed archives linked whole into a scratch shared object
# that exports only the symbols the installed headers name (a version
# script), read by abidw with the installed headers (--headers-dir,
# --drop-private-types), compared by abidiff.
#
# A change that removes or changes a function, a variable or a type they
# use is an ABI break. It fails unless pcam_version.h says so: a new major
# version (for 0.x, a new minor) than the baseline's. Additions pass (the
# report lists them). The check's own test: a library built with other
# configuration switches (PCAM_CFG_MAX_TARGETS=8, a smaller pcam_bus) must
# be found to break the ABI, and must pass once the version claims it.
# usage: abicheck.sh SRC_DIR BUILD_DIR WORK_DIR CC        (the check)
#        abicheck.sh --update SRC_DIR BUILD_DIR WORK_DIR CC  (a release:
#        writes tests/abi/baseline/pcam-VERSION.abi)
set -eu
update=0
[ "$1" = --update ] && { update=1; shift; }
src=$1 build=$2 work=$3 cc=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
command -v abidw > /dev/null && command -v abidiff > /dev/null ||
  fail "abidw/abidiff not installed (scripts/deps.sh packages: abigail-tools)"
ver() { sed -n 's/^#define PCAM_VERSION_STRING "\(.*\)"$/\1/p' "$1"; }
VER=$(ver "$src/include/pcam/pcam_version.h")
comps="core esp sym aspi sim"

# abi_of BUILD PREFIX OUT: install BUILD's libraries into PREFIX, write the
# ABI of their public interface to OUT.
abi_of() {
  b=$1 p=$2 out=$3
  for c in $comps; do cmake --install "$b" --prefix "$p" --component "$c" > /dev/null; done
  libs=$(find "$p" -name 'libpcam*.a' | sort)
  [ "$(echo "$libs" | wc -l)" -eq 5 ] || fail "$b: expected 5 libraries, got: $libs"
  if ! readelf -S $(echo "$libs" | head -1) 2>/dev/null | grep -q '\.debug_info'; then
    skip "$b has no debug information (-g): the ABI check needs it (the default preset, RelWithDebInfo, has it)"
  fi
  # extra_c: one more source in the interface (the check's own test: an
  # addition), its declaration in an installed header.
  [ -z "${extra_c:-}" ] || printf 'int pcam_abi_added(int x);\n' > "$p/include/pcam/pcam_abi_added.h"
  # The public symbols: defined in a library and named in an installed header.
  { nm -g --defined-only $libs 2>/dev/null; [ -z "${extra_c:-}" ] || echo "0 T pcam_abi_added"; } | awk 'NF == 3 {print $3}' | sort -u > "$p.defined"
  cat $(find "$p/include" -name '*.h') | tr -c 'A-Za-z0-9_' '\n' | sort -u > "$p.words"
  comm -12 "$p.defined" "$p.words" > "$p.public"
  [ -s "$p.public" ] || fail "no public symbol found in $b"
  { echo "{ global:"; sed 's/$/;/' "$p.public"; echo "local: *; };"; } > "$p.map"
  # shellcheck disable=SC2086
  "$cc" -shared -g -o "$p.so" ${extra_c:-} -Wl,--whole-archive $libs -Wl,--no-whole-archive \
        -Wl,--version-script="$p.map" -lpthread || fail "$b: cannot link the interface object"
  abidw --headers-dir "$p/include" --drop-private-types --no-show-locs --no-corpus-path \
        --no-comp-dir-path --type-id-style hash --out-file "$out" "$p.so" || fail "abidw $b"
}
abi_of "$build" "$work/current" "$work/current.abi"
n=$(wc -l < "$work/current.public")

if [ $update -eq 1 ]; then
  cp "$work/current.abi" "$src/tests/abi/baseline/pcam-$VER.abi"
  echo "abi: baseline tests/abi/baseline/pcam-$VER.abi written ($n public symbols)"
  exit 0
fi

base=$(ls "$src"/tests/abi/baseline/pcam-*.abi 2>/dev/null |
  sed 's|.*/pcam-\(.*\)\.abi$|\1|' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
[ -n "$base" ] || fail "no baseline in tests/abi/baseline"

# judge BASE_VERSION VERSION ABI: 0 compatible, 1 broken and not declared.
judge() {
  rc=0
  abidiff "$src/tests/abi/baseline/pcam-$1.abi" "$3" > "$3.diff" 2>&1 || rc=$?
  [ $((rc & 3)) -eq 0 ] || { cat "$3.diff"; fail "abidiff could not compare ($rc)"; }
  # Removed or changed functions or variables are a break; additions only
  # are not (abidiff reports those as a change too).
  broken=0
  if [ $rc -ne 0 ] && grep -qE '^(Functions|Variables) changes summary: ([1-9][0-9]* Removed|[0-9]+ Removed, [1-9][0-9]* Changed)' "$3.diff"; then
    broken=1
  fi
  [ $((rc & 8)) -eq 0 ] || broken=1
  if [ $broken -eq 0 ]; then return 0; fi
  bmaj=${1%%.*} bmin=$(echo "$1" | cut -d. -f2)
  maj=${2%%.*} min=$(echo "$2" | cut -d. -f2)
  if [ "$maj" -gt "$bmaj" ] || { [ "$maj" -eq 0 ] && [ "$bmaj" -eq 0 ] && [ "$min" -gt "$bmin" ]; }; then
    echo "abi: $2 breaks the ABI of $1, and its version says so"
    return 0
  fi
  return 1
}
if ! judge "$base" "$VER" "$work/current.abi"; then
  cat "$work/current.abi.diff"
  fail "the ABI of $VER breaks the ABI of release $base: a new major version (0.x: minor) is needed (docs/releasing.md)"
fi
echo "abi: $VER against the $base baseline: no break ($n public symbols; abidiff: $(grep -E '^Functions changes summary' "$work/current.abi.diff" || echo 'no change'))"

# An addition is no break: the same libraries and one more public function.
printf 'int pcam_abi_added(int x) { return x + 1; }\n' > "$work/added.c"
extra_c=$work/added.c
abi_of "$build" "$work/added" "$work/added.abi"
extra_c=
judge "$base" "$base" "$work/added.abi" || { cat "$work/added.abi.diff"; fail "an added function was taken for a break"; }
grep -q '1 Added function' "$work/added.abi.diff" || { cat "$work/added.abi.diff"; fail "abidiff did not see the added function"; }
echo "abi: one function added to $base: reported ($(grep -E '^Functions changes summary' "$work/added.abi.diff")), no break"

# The check can fail: a library whose pcam_bus is another size breaks it.
cmake -S "$src" -B "$work/build-8" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPCAM_BUILD_TESTS=OFF -DPCAM_BUILD_EXAMPLES=OFF -DPCAM_UEFI_EFIINC=/nonexistent \
      -DCMAKE_C_FLAGS=-DPCAM_CFG_MAX_TARGETS=8 > "$work/build-8.log" 2>&1 ||
  { cat "$work/build-8.log"; fail "configuring the 8-target library"; }
cmake --build "$work/build-8" -j2 --target pcam pcam_esp pcam_sym pcam_aspi pcam_sim > "$work/build-8.log" 2>&1 ||
  { cat "$work/build-8.log"; fail "building the 8-target library"; }
abi_of "$work/build-8" "$work/narrow" "$work/narrow.abi"
if judge "$base" "$base" "$work/narrow.abi"; then
  cat "$work/narrow.abi.diff"; fail "an 8-target pcam_bus was not found to break the $base ABI"
fi
bump=$(echo "$base" | awk -F. '$1 == 0 {print "0." $2 + 1 ".0"; next} {print $1 + 1 ".0.0"}')
judge "$base" "$bump" "$work/narrow.abi" > /dev/null || fail "a declared break ($bump) was refused"
echo "abi: an 8-target library breaks the $base ABI ($(grep -cE '^  \[C\]' "$work/narrow.abi.diff") changed functions): refused as $base, accepted as $bump"
