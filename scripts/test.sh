#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The whole test suite, as CI runs it: installs what it needs, then builds and
# tests seven ways (gcc with Valgrind, the whole-system VM boots, gcc with
# ASan+UBSan, a gcc Release build running the demo, clang, the embedded
# cross builds, and the clang libFuzzer build). Any failure, or any
# stage that runs no test, fails.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
sh scripts/deps.sh test

stage() { printf '\n==== %s\n' "$*"; }

stage "gcc: build, unit/sim/fuzz-replay tests, Valgrind memcheck, freestanding, docs, install"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -LE '^(uefi|linux|win32)$'

stage "whole-system boots (OVMF, the Linux guest, Wine): each once"
# Each VM test boots its own guest; they run here only, not again under the
# sanitizer builds. The OVMF and Linux boots take one core each in turn
# (RESOURCE_LOCK pcam_vm_alone: tests/linux says why), the Wine tests run
# beside them. No test collected is a failure, as in every stage.
ctest --preset default -L '^(uefi|linux|win32)$' -j 2

stage "gcc + ASan/UBSan: unit, sim and fuzz-replay tests"
cmake --preset debug >/dev/null
cmake --build --preset debug -j "$jobs"
ctest --preset debug -L 'unit|sim|esp|aspi|pcamctl|fuzz|qemu'

stage "gcc Release (-O2, the demo's build): warning-free, then the demo itself"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
sh scripts/demo-run.sh build/release >/dev/null

stage "clang: warning-free build and unit tests"
cmake -S . -B build/clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPCAM_MEMCHECK=OFF >/dev/null
cmake --build build/clang -j "$jobs"
ctest --test-dir build/clang --output-on-failure --no-tests=error -j "$jobs" -L 'unit|sim|esp|aspi'

stage "embedded presets (Cortex-M0+/M3/M4F, RV32/RV64, minimal): warning-free, no forced PIC, sizes"
sh scripts/embedded.sh

stage "clang libFuzzer: every fuzz target briefly on its seed corpus"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
ctest --preset fuzz

stage "all stages passed"
