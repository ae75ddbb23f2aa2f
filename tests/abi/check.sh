#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A configuration mismatch between a program and an installed library is
# refused, never a silent overwrite (issue 27, section 1).
#
# Two installs: the default build (BUILD_DIR), and a build of the core with
# cmake/configs/pcam_minimal.h made here. Against each, abi_use.c is built
# with plain pkg-config flags (the way a Makefile would), so that:
#
#   - with no flag of its own it gets the library's configuration from the
#     installed headers and works (both installs), guards untouched;
#   - built for the default configuration against the minimal library, for
#     the minimal configuration against the default library, or with a
#     different PCAM_CFG_MAX_TARGETS (both ways), pcam_bus_init() returns
#     PCAM_ERR_ABI, writes no byte of the storage or its guards, and the
#     reason names the switch with the program's and the library's values;
#     against the default install the same holds for pcam_aspi_add_adapter().
#
# It also checks that the installed pcam_config_build.h, the pkg-config
# variable pcam_config and the CMake variable pcam_CONFIG say the switches
# the library was built with, and (layout.c) that every caller-allocated
# type no entry point checks has the same size in five configurations.
# usage: check.sh SRC_DIR BUILD_DIR WORK_DIR CC
set -eu
src=$1 build=$2 work=$3 cc=$4
here=$src/tests/abi
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work"

cmake --install "$build" --prefix "$work/default" >/dev/null

# The minimal library: only the core (and the freestanding back-ends the
# embedded build adds), hosted compiler, position-independent so that it
# links into the program.
cmake -S "$src" -B "$work/build-min" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
      -DPCAM_EMBEDDED=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
      -DPCAM_CONFIG_FILE=pcam_minimal.h -DPCAM_CONFIG_DIR="$src/cmake/configs" >"$work/min-config.log" 2>&1 ||
  { cat "$work/min-config.log" >&2; fail "configuring the minimal library"; }
cmake --build "$work/build-min" --target pcam >"$work/min-build.log" 2>&1 ||
  { cat "$work/min-build.log" >&2; fail "building the minimal library"; }
cmake --install "$work/build-min" --prefix "$work/minimal" --component core >/dev/null

# The recorded configuration, as each install states it.
for inst in default minimal; do
  h="$work/$inst/include/pcam/pcam_config_build.h"
  [ -f "$h" ] || fail "$inst: pcam_config_build.h not installed"
  grep -q '^#define PCAM_CONFIG_INSTALLED 1' "$work/$inst/include/pcam/pcam_config.h" ||
    fail "$inst: the installed pcam_config.h does not read the recorded switches"
done
want_default="PCAM_CFG_MAX_TARGETS 16|PCAM_CFG_TAGS 256|PCAM_CFG_CMDLEVEL 1|PCAM_CFG_EVENT_RING 64"
want_minimal="PCAM_CFG_MAX_TARGETS 8|PCAM_CFG_TAGS 32|PCAM_CFG_CMDLEVEL 0|PCAM_CFG_EVENT_RING 0"
for inst in default minimal; do
  eval "want=\$want_$inst"
  IFS='|'
  for d in $want; do
    grep -qx "#define $d" "$work/$inst/include/pcam/pcam_config_build.h" ||
      fail "$inst: pcam_config_build.h lacks \"#define $d\""
  done
  unset IFS
done

pc() { # install, then pkg-config arguments
  d=$(dirname "$(find "$work/$1" -name pcam-core.pc | head -n 1)")
  shift
  PKG_CONFIG_PATH=$d PKG_CONFIG_LIBDIR=$d pkg-config "$@"
}
pc minimal --variable=pcam_config pcam-core | grep -q 'PCAM_CFG_MAX_TARGETS=8 ' ||
  fail "pcam-core.pc of the minimal install does not record PCAM_CFG_MAX_TARGETS=8"
pc default --variable=pcam_config pcam-core | grep -q 'PCAM_CFG_MAX_TARGETS=16 ' ||
  fail "pcam-core.pc of the default install does not record PCAM_CFG_MAX_TARGETS=16"
grep -q 'set(pcam_CONFIG ".*PCAM_CFG_TAGS=32 ' "$work"/minimal/lib*/cmake/pcam/pcamConfig.cmake ||
  fail "pcamConfig.cmake of the minimal install does not record PCAM_CFG_TAGS=32"

# name install expectation reason-to-find extra-flags...
run() {
  name=$1 inst=$2 expect=$3 reason=$4
  shift 4
  mods=pcam-core
  [ "$inst" = default ] && mods="pcam-core pcam-aspi"
  aspi=""
  [ "$inst" = default ] && aspi=-DABI_USE_ASPI
  # shellcheck disable=SC2046
  "$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror $aspi "$@" "$here/abi_use.c" \
        -o "$work/$name" $(pc "$inst" --cflags --libs $mods) ||
    fail "$name: does not build"
  "$work/$name" "$expect" >"$work/$name.out" 2>&1 || { cat "$work/$name.out" >&2; fail "$name"; }
  if [ -n "$reason" ]; then
    grep -qF "$reason" "$work/$name.out" ||
      { cat "$work/$name.out" >&2; fail "$name: the reason does not say \"$reason\""; }
  fi
  sed "s/^/$name: /" "$work/$name.out"
}

run match-default default ok ""
run match-minimal minimal ok ""
run lib-minimal-prog-default minimal abi "PCAM_CFG_MAX_TARGETS: caller 16, library 8" \
    -I"$here" '-DPCAM_CONFIG_FILE="abi_default.h"'
run lib-default-prog-minimal default abi "PCAM_CFG_MAX_TARGETS: caller 8, library 16" \
    -I"$src/cmake/configs" '-DPCAM_CONFIG_FILE="pcam_minimal.h"'
run lib-default-prog-8-targets default abi "PCAM_CFG_MAX_TARGETS: caller 8, library 16" \
    -DPCAM_CFG_MAX_TARGETS=8
run lib-minimal-prog-16-targets minimal abi "PCAM_CFG_MAX_TARGETS: caller 16, library 8" \
    -DPCAM_CFG_MAX_TARGETS=16
# A switch that changes only the LUN slot: the message names it, not a size.
run lib-default-prog-64-tags default abi "PCAM_CFG_TAGS: caller 64, library 256" \
    -DPCAM_CFG_TAGS=64

# The caller-allocated types no entry point checks keep their size in every
# configuration (the reason they need no check); pcam_bus, last, must not.
for cfg in default minimal narrow tags64 noring; do
  case $cfg in
    default) flags="" ;;
    minimal) flags="-I$src/cmake/configs -DPCAM_CONFIG_FILE=\"pcam_minimal.h\"" ;;
    narrow) flags="-DPCAM_CFG_MAX_TARGETS=8" ;;
    tags64) flags="-DPCAM_CFG_TAGS=64 -DPCAM_CFG_TAG_HASH=16" ;;
    noring) flags="-DPCAM_CFG_EVENT_RING=0 -DPCAM_CFG_COUNTERS=0 -DPCAM_CFG_SCAN_BUF=64" ;;
  esac
  # shellcheck disable=SC2086
  "$cc" -std=c99 -Wall -Wextra -Werror -I"$src/include" $flags "$here/layout.c" -o "$work/layout-$cfg" ||
    fail "layout.c does not build ($cfg)"
  "$work/layout-$cfg" >"$work/layout-$cfg.out"
  grep -v '^changes:' "$work/layout-$cfg.out" >"$work/layout-$cfg.fixed"
  if [ $cfg != default ]; then
    cmp -s "$work/layout-default.fixed" "$work/layout-$cfg.fixed" ||
      { diff "$work/layout-default.fixed" "$work/layout-$cfg.fixed" >&2;
        fail "a type without a storage check changes size with the $cfg configuration"; }
    if cmp -s "$work/layout-default.out" "$work/layout-$cfg.out"; then
      fail "pcam_bus has the same size with the $cfg configuration: the switches were not seen"
    fi
  fi
done
echo "abi: matching programs work, every mismatch is refused with nothing written;"
echo "abi: $(grep -vc '^changes:' "$work/layout-default.out") unchecked caller-allocated types keep their size in 5 configurations"
