#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Install the built tree into a scratch prefix, then build a consumer both with
# find_package(pcam) and with pkg-config, and run each.
# usage: check.sh BUILD_DIR CONSUMER_SRC WORK_DIR CC
set -eu
build=$1 csrc=$2 work=$3 cc=$4
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$csrc" -B "$work/cmake-build" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer"
pcdir=$(find "$work/prefix" -name pcam.pc -exec dirname {} \; | head -n 1)
[ -n "$pcdir" ] || { echo "FAIL: pcam.pc not installed" >&2; exit 1; }
# shellcheck disable=SC2046
$cc "$csrc/main.c" -o "$work/consumer-pc" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --define-prefix --cflags --libs pcam)
"$work/consumer-pc"
