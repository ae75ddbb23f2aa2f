#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Line and branch coverage of the gcc test run (issue 41), as CI measures
# it: a build of its own (gcc --coverage, -O0, no Valgrind twins: memcheck
# under --coverage is slow and adds no line the plain run misses) running
# the host tests of the gcc stage (unit, sim, esp, aspi, pcamctl, fuzz
# replay, qemu qtest, the FreeBSD CAM translator; no VM boot), then gcovr
# over core/, hal/, osshim/ and aspi/ (the files a host build compiles:
# osshim/linux and osshim/uefi are covered only by their VM boots, which
# gcov cannot see). Prints a table per folder and fails when a folder is
# below its floor in scripts/coverage-floors.txt (coverage_check.py).
# usage: scripts/coverage.sh [BUILD_DIR]   (default build/coverage)
set -eu
cd "$(dirname "$0")/.."
b=${1:-build/coverage}
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2
command -v gcovr >/dev/null 2>&1 || { echo "coverage: gcovr is not installed (scripts/deps.sh coverage)" >&2; exit 1; }
start=$(date +%s)
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O0 -g --coverage -fprofile-update=atomic" \
      -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage -DPCAM_MEMCHECK=OFF >/dev/null
cmake --build "$b" -j "$jobs"
built=$(date +%s)
find "$b" -name '*.gcda' -delete
ctest --test-dir "$b" --no-tests=error --output-on-failure -j "$jobs" \
      -L '^(unit|sim|esp|aspi|pcamctl|fuzz|qemu|freebsd)$' -LE '^(uefi|linux|win32|firmware|freebsd-vm|soak|bench)$'
tested=$(date +%s)
# tests/config builds the core again with other switches: gcovr 5.2 stops
# (an assertion) when one function sits at two lines across builds of a
# file, so those objects stay out; the default build's are what counts.
# hal/template is the skeleton a porter copies: compiled, never run.
gcovr --root . --object-directory "$b" --json-summary "$b/coverage.json" --branches \
      --exclude-unreachable-branches --exclude-throw-branches --exclude-directories "$b/tests/config" \
      --filter 'core/' --filter 'hal/' --filter 'osshim/' --filter 'aspi/' --exclude 'hal/template/' >/dev/null
python3 scripts/coverage_check.py "$b/coverage.json" scripts/coverage-floors.txt
echo "coverage: build $((built - start)) s, tests $((tested - built)) s, report $(( $(date +%s) - tested )) s"
