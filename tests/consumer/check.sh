#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The install, as a user meets it. Install the built tree into a scratch
# prefix, then MOVE the prefix elsewhere (an install must not remember where
# it was put), and from the moved tree build, with no flag but the prefix:
#  - examples/embed as its own CMake project (find_package(pcam COMPONENTS
#    core sim)), and run it: it scans a simulated bus and reads a block;
#  - tests/consumer with find_package, one program per component plus the
#    old pcam::pcam name, and run each;
#  - the same programs and embed.c with plain pkg-config (no
#    --define-prefix, PKG_CONFIG_PATH only), and run each;
# that one component installs alone (cmake --install --component esp);
# and check that find_package refuses a component that does not exist (and
# names it), and
# that no installed .pc or CMake file names the scratch or configure prefix.
# usage: check.sh BUILD_DIR CONSUMER_SRC EMBED_SRC WORK_DIR CC
set -eu
build=$1 csrc=$2 esrc=$3 work=$4 cc=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/prefix"
P="$work/prefix"
comps="core esp aspi sim"

# Nothing installed may point back at where it was installed or configured.
conf_prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:[A-Z]*=//p' "$build/CMakeCache.txt")
if grep -rl -e "$work/first" -e "$conf_prefix/" "$P/lib" >/dev/null 2>&1; then
  grep -rl -e "$work/first" -e "$conf_prefix/" "$P/lib" >&2
  fail "installed files above name an absolute prefix"
fi
for c in $comps; do
  lib=libpcam_$c.a
  [ "$c" = core ] && lib=libpcam.a
  ls "$P"/lib*/"$lib" >/dev/null 2>&1 || fail "$lib (component $c) not installed"
done

# Components install on their own: esp brings its library, header and .pc
# file, and nothing of the simulator.
cmake --install "$build" --prefix "$work/esp-only" --component esp >/dev/null
for f in "libpcam_esp.a" "pkgconfig/pcam-esp.pc"; do
  ls "$work/esp-only"/lib*/"$f" >/dev/null 2>&1 || fail "--component esp did not install $f"
done
[ -f "$work/esp-only/include/pcam/pcam_esp.h" ] || fail "--component esp did not install pcam_esp.h"
if find "$work/esp-only" -name 'libpcam_sim.a' -o -name 'pcam_sim.h' | grep -q .; then
  fail "--component esp installed parts of the simulator"
fi

# 1. CMake: the consumer project and examples/embed, against the moved tree.
cmake -S "$csrc" -B "$work/cmake-consumer" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$work/cmake-consumer" >/dev/null
"$work/cmake-consumer/consumer"
for c in $comps; do "$work/cmake-consumer/consumer_$c"; done
cmake -S "$esrc" -B "$work/cmake-embed" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$work/cmake-embed" >/dev/null
"$work/cmake-embed/embed" | tee "$work/embed-cmake.out"
grep -q 'Hello from block 0' "$work/embed-cmake.out" || fail "embed (find_package) read the wrong data"

# A component nobody installed must make find_package fail.
mkdir -p "$work/bogus"
cat >"$work/bogus/CMakeLists.txt" <<'EOT'
cmake_minimum_required(VERSION 3.20)
project(bogus LANGUAGES C)
find_package(pcam REQUIRED COMPONENTS core no_such_component)
EOT
if cmake -S "$work/bogus" -B "$work/bogus/b" -DCMAKE_PREFIX_PATH="$P" >"$work/bogus.log" 2>&1; then
  fail "find_package(pcam COMPONENTS no_such_component) succeeded"
fi
# ... and say which component it lacks, and which it has.
grep -q "pcam has no component no_such_component in this install (it has: core" "$work/bogus.log" ||
  { cat "$work/bogus.log" >&2; fail "find_package did not name the missing component"; }

# 2. pkg-config, exactly as a Makefile would call it: no flag but its output.
pcdir=$(dirname "$(find "$P" -name pcam-core.pc | head -n 1)")
[ -f "$pcdir/pcam-core.pc" ] || fail "pcam-core.pc not installed"
PKG_CONFIG_PATH=$pcdir
PKG_CONFIG_LIBDIR=$pcdir
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
for m in pcam $(for c in $comps; do printf 'pcam-%s ' "$c"; done); do
  pkg-config --exists "$m" || fail "pkg-config does not know $m"
  pfx=$(pkg-config --variable=prefix "$m")
  [ "$(cd "$pfx" && pwd -P)" = "$(cd "$P" && pwd -P)" ] ||
    fail "$m: prefix $pfx is not the moved install $P"
done
# shellcheck disable=SC2046
$cc "$csrc/main.c" -o "$work/pc-consumer" $(pkg-config --cflags --libs pcam)
"$work/pc-consumer"
for c in $comps; do
  # shellcheck disable=SC2046
  $cc "$csrc/use_$c.c" -o "$work/pc-$c" $(pkg-config --cflags --libs "pcam-$c")
  "$work/pc-$c"
done
# shellcheck disable=SC2046
$cc "$esrc/embed.c" -o "$work/pc-embed" $(pkg-config --cflags --libs pcam-sim)
"$work/pc-embed" | tee "$work/embed-pc.out"
grep -q 'Hello from block 0' "$work/embed-pc.out" || fail "embed (pkg-config) read the wrong data"
echo "install: components $comps installed, moved, and used through find_package and pkg-config"
