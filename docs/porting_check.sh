#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# docs.porting: a new back-end made exactly as docs/porting.md says works.
#
# On a copy of the source tree: run the guide's copy-and-rename block, taken
# from the guide itself (the indented lines from "cp -r hal/template"), and
# check that its sed left the template's name nowhere in the copy; compile
# the back-end with the guide's freestanding line, also taken from the
# guide; build it in a hosted build (hal/CMakeLists.txt must add it with no
# edit) and in an embedded one for Cortex-M3 (PCAM_BACKENDS=mychip); install
# the core and the new component; build the copied attach.c against the
# install, with pkg-config and with find_package, and run it: it attaches
# the back-end to a bus and checks what an empty bus must look like.
# usage: porting_check.sh SRC_DIR WORK_DIR CC
set -eu
src=$1 work=$2 cc=$3
guide=$src/docs/porting.md
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"; mkdir -p "$work/tree"
tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -C "$work/tree" -xf -
tree=$work/tree

# The guide's block: the indented lines starting at the copy, up to the
# first line that is not indented.
awk '/^    cp -r hal\/template hal\/mychip$/ {on = 1}
     on && !/^    / {exit}
     on {sub(/^    /, ""); print}' "$guide" >"$work/steps.sh"
[ "$(wc -l <"$work/steps.sh")" -ge 3 ] || fail "no copy-and-rename block found in docs/porting.md"
echo "docs.porting: the guide's steps:"; sed 's/^/  /' "$work/steps.sh"
(cd "$tree" && sh -eu "$work/steps.sh") || fail "the guide's steps failed"
for f in CMakeLists.txt mychip.c pcam_mychip.h attach.c; do
  [ -f "$tree/hal/mychip/$f" ] || fail "hal/mychip/$f missing after the guide's steps"
done
# The copy calls itself by its new name only: no "template" in any spelling
# is left in it (code, strings, comments, file names), and no comment was
# turned into a pointer at something that does not exist (the template's
# own test and folder, renamed).
grep -q 'pcam_mychip_attach' "$tree/hal/mychip/mychip.c" || fail "pcam_template_attach was not renamed"
grep -q 'PCAM_MYCHIP_NAME "mychip"' "$tree/hal/mychip/pcam_mychip.h" || fail "the chip's name was not renamed"
if grep -n -i 'template' "$tree"/hal/mychip/*; then
  fail "the copy still says 'template' (lines above)"
fi
if ls "$tree"/hal/mychip | grep -i template; then fail "a file of the copy is still named after the template"; fi
if grep -n -e 'docs\.mychip' -e 'hal/mychip' "$tree"/hal/mychip/*; then
  fail "the guide's sed made a comment name a test or folder of the template's (lines above)"
fi

# The guide's freestanding compile line, as written (cc is the host compiler).
line=$(grep -E '^    cc .*-ffreestanding -nostdinc' "$guide" | head -n 1 | sed 's/^    //')
[ -n "$line" ] || fail "no freestanding compile line in docs/porting.md"
(cd "$tree" && sh -euc "$line") || fail "the guide's freestanding line failed: $line"

# Hosted: the new back-end is built with no edit outside hal/mychip.
cmake -S "$tree" -B "$work/host" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
      -DPCAM_BUILD_TESTS=OFF -DPCAM_BUILD_EXAMPLES=OFF >"$work/host.log" 2>&1 ||
  { cat "$work/host.log" >&2; fail "hosted configure"; }
# The whole hosted build (tests and examples off): the installed package
# file names every component's library, so all must exist.
cmake --build "$work/host" -j2 >>"$work/host.log" 2>&1 ||
  { cat "$work/host.log" >&2; fail "hosted build"; }
[ -f "$work/host/hal/mychip/libpcam_mychip.a" ] || fail "the hosted build made no libpcam_mychip.a"

# Embedded, Cortex-M3: the back-end named in PCAM_BACKENDS.
command -v arm-none-eabi-gcc >/dev/null 2>&1 ||
  fail "arm-none-eabi-gcc not found (scripts/deps.sh installs it)"
cmake -S "$tree" -B "$work/m3" -DCMAKE_TOOLCHAIN_FILE="$tree/cmake/toolchains/arm-none-eabi.cmake" \
      -DCMAKE_BUILD_TYPE=MinSizeRel -DPCAM_BACKENDS=mychip >"$work/m3.log" 2>&1 ||
  { cat "$work/m3.log" >&2; fail "embedded configure"; }
cmake --build "$work/m3" --target pcam_mychip >>"$work/m3.log" 2>&1 ||
  { cat "$work/m3.log" >&2; fail "embedded build of pcam_mychip"; }
[ -f "$work/m3/hal/mychip/libpcam_mychip.a" ] || fail "no Cortex-M3 libpcam_mychip.a"

# Install the core and the new component, then use them as a user would.
P=$work/prefix
cmake --install "$work/host" --prefix "$P" >/dev/null
ls "$P"/lib*/libpcam_mychip.a >/dev/null 2>&1 || fail "libpcam_mychip.a not installed"
[ -f "$P/include/pcam/mychip/pcam_mychip.h" ] || fail "pcam_mychip.h not installed"
pcdir=$(dirname "$(find "$P" -name pcam-mychip.pc | head -n 1)")
[ -f "$pcdir/pcam-mychip.pc" ] || fail "pcam-mychip.pc not installed"
# shellcheck disable=SC2046
"$cc" "$tree/hal/mychip/attach.c" -o "$work/attach-pc" \
      $(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$pcdir pkg-config --cflags --libs pcam-mychip) ||
  fail "attach.c does not build against the install with pkg-config"
"$work/attach-pc" | tee "$work/attach-pc.out"
# What the copy's test program prints names the new chip, never the template.
grep -q '^mychip: attached' "$work/attach-pc.out" || fail "attach does not report itself as mychip"
if grep -i template "$work/attach-pc.out"; then fail "attach's output still says 'template'"; fi
mkdir -p "$work/consumer"
cp "$tree/hal/mychip/attach.c" "$work/consumer/"
cat >"$work/consumer/CMakeLists.txt" <<'EOT'
cmake_minimum_required(VERSION 3.20)
project(mychip_consumer LANGUAGES C)
find_package(pcam REQUIRED COMPONENTS core mychip)
add_executable(attach attach.c)
target_link_libraries(attach PRIVATE pcam::mychip)
EOT
cmake -S "$work/consumer" -B "$work/consumer/b" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_PREFIX_PATH="$P" >"$work/consumer.log" 2>&1 &&
  cmake --build "$work/consumer/b" >>"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "attach.c does not build against the install with find_package"; }
"$work/consumer/b/attach" >/dev/null || fail "attach (find_package build) failed"
echo "docs.porting: hal/mychip made as the guide says: freestanding, hosted and Cortex-M3 builds, installed, attached"
