#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The whole test suite, as CI runs it: installs what it needs, then builds and
# tests eight ways (gcc with Valgrind, gcc with --coverage against the floors
# of scripts/coverage-floors.txt, the whole-system VM boots, gcc with
# ASan+UBSan, a gcc Release build running the demo, clang, the embedded
# cross builds, and the clang libFuzzer build). Any failure, or any
# stage that runs no test, fails. Every skipped test's reason is printed
# after its stage, and each stage's wall time at the end (pass or fail).
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# The VM-backed labels: run in their own stage only, never twice.
vm='^(uefi|linux|packages|win32|firmware|freebsd-vm|bios)$'

stage_name="" stage_start=0 suite_start=$(date +%s) times=""
end_stage() {
  [ -n "$stage_name" ] || return 0
  times="$times$(printf '%7s  %s' "$(( $(date +%s) - stage_start )) s" "$stage_name")$1
"
  stage_name=""
}
stage() {
  end_stage ""
  stage_name=$1
  stage_start=$(date +%s)
  shift
  printf '\n==== %s\n' "$*"
}
report() {
  rc=$?
  [ $rc -eq 0 ] && end_stage "" || end_stage "   <- FAILED"
  printf '\n==== wall time per stage\n%s%7s  total\n' "$times" "$(( $(date +%s) - suite_start )) s"
  exit $rc
}
trap report EXIT
# What ctest skipped in the run just made, and why (one line per reason).
skips() {
  log=$1/Testing/Temporary/LastTest.log
  [ -f "$log" ] || return 0
  grep -h '^SKIPPED: ' "$log" | sort -u | sed 's/^SKIPPED: /skipped: /' || true
}

stage deps "packages (scripts/deps.sh test)"
sh scripts/deps.sh test

stage gcc "gcc: build, unit/sim/fuzz-replay tests, Valgrind memcheck, freestanding, docs, install"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -LE "$vm"
skips build/default

stage coverage "gcc --coverage: the host tests again, lines and branches per folder against scripts/coverage-floors.txt"
# A build of its own, without the Valgrind twins (scripts/coverage.sh says
# why): the gcc stage's timings stay as they were.
sh scripts/coverage.sh build/coverage

stage vm "whole-system boots (OVMF, SeaBIOS, the Linux guest, FreeBSD, firmware boards, Wine): each once"
# Each VM test boots its own guest; they run here only, not again under the
# sanitizer builds. The Debian packages are built here too (label
# packages): linux.boot boots the module DKMS built from them. The OVMF and
# Linux boots take one core each in turn (RESOURCE_LOCK pcam_vm_alone:
# tests/linux says why), the Wine tests run beside them. No test collected is a failure, as in every stage.
ctest --preset default -L "$vm" -j 2
skips build/default

stage asan "gcc + ASan/UBSan: unit, sim and fuzz-replay tests"
cmake --preset debug >/dev/null
cmake --build --preset debug -j "$jobs"
ctest --preset debug -L 'unit|sim|esp|aspi|pcamctl|fuzz|qemu'
skips build/debug

stage release "gcc Release (-O2, the demo's build): warning-free, then the demo itself"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
sh scripts/demo-run.sh build/release >/dev/null

stage clang "clang: warning-free build and unit tests"
cmake -S . -B build/clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPCAM_MEMCHECK=OFF >/dev/null
cmake --build build/clang -j "$jobs"
ctest --test-dir build/clang --output-on-failure --no-tests=error -j "$jobs" -L 'unit|sim|esp|aspi'
skips build/clang

stage embedded "embedded presets (Cortex-M0+/M3/M4F, RV32/RV64, minimal): warning-free, no forced PIC, sizes"
sh scripts/embedded.sh

stage fuzz "clang libFuzzer: every fuzz target briefly on its seed corpus"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
ctest --preset fuzz
skips build/fuzz

end_stage ""
printf '\n==== all stages passed\n'
