#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Long fuzzing campaigns over the libFuzzer targets, with a summary.
#
# usage: fuzz/campaign.sh [-s SECONDS] [-j JOBS] [-w WORKERS] [-b BUILD_DIR]
#                         [-o OUT_DIR] [TARGET...]
#
#   -s SECONDS  time per target (default 600)
#   -j JOBS     libFuzzer -jobs (default 1: one in-process fuzzer)
#   -w WORKERS  libFuzzer -workers (default: libFuzzer's, half the cores)
#   -b DIR      build tree of the fuzz preset (default build/fuzz); build it
#               first: cmake --preset fuzz && cmake --build build/fuzz
#   -o DIR      where each target's work goes (default $BUILD_DIR/campaign)
#   TARGET      short names (engine, cdb, sense, ...); default every
#               fuzz_<name> binary found in BUILD_DIR/fuzz
#
# Each target runs on a scratch copy of its committed corpus
# (fuzz/corpus/<name>), with fuzz/dict/<name>.dict when it exists, so the
# committed corpus is never touched; new inputs stay in OUT_DIR/<name>/corpus
# (merge the interesting ones back by hand). Targets run one after another.
#
# Printed per target: executions, exec/s, coverage (cov: and ft: from
# libFuzzer's last status line), the new corpus size (files, and how many
# more than the seeds) and crashes (artifact paths: crash-*, leak-*,
# timeout-*, oom-*). The exit status is non-zero if any target crashed or
# could not run. Crashes do not stop the loop: every target named runs.
set -u

secs=600 jobs=1 workers="" build="" out=""
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

while getopts "s:j:w:b:o:h" opt; do
    case $opt in
    s) secs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    w) workers=$OPTARG ;;
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '2,25p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))

[ -n "$build" ] || build="$root/build/fuzz"
if [ ! -d "$build" ]; then
    echo "campaign: no build tree $build (build the fuzz preset first)" >&2
    exit 2
fi
build=$(cd "$build" && pwd) # the fuzzers run from their own work directories
[ -n "$out" ] || out="$build/campaign"
mkdir -p "$out" && out=$(cd "$out" && pwd)
case $secs in ''|*[!0-9]*) echo "campaign: -s wants seconds" >&2; exit 2 ;; esac

if [ $# -eq 0 ]; then
    for f in "$build"/fuzz/fuzz_*; do
        [ -x "$f" ] || continue
        set -- "$@" "${f##*/fuzz_}"
    done
fi
if [ $# -eq 0 ]; then
    echo "campaign: no fuzz targets in $build/fuzz (build the fuzz preset first)" >&2
    exit 2
fi

mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
status=0

# The last libFuzzer status line that carries cov:/ft: (the final stats block
# has no coverage figures).
last_field() { # FILE FIELD
    grep -E "#[0-9]+.*$2: [0-9]+" "$1" 2>/dev/null | tail -n 1 |
        sed -n "s/.*$2: \([0-9][0-9]*\).*/\1/p"
}
stat_field() { # FILE NAME (from -print_final_stats)
    sed -n "s/^stat::$2:[[:space:]]*\([0-9][0-9]*\).*/\1/p" "$1" 2>/dev/null | tail -n 1
}

printf '%-10s %12s %8s %7s %7s %14s %s\n' target execs exec/s cov ft corpus crashes | tee -a "$summary"
for name in "$@"; do
    bin="$build/fuzz/fuzz_$name"
    if [ ! -x "$bin" ]; then
        printf '%-10s missing %s\n' "$name" "$bin" | tee -a "$summary"
        status=1
        continue
    fi
    work="$out/$name"
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    seeds="$here/corpus/$name"
    nseed=0
    if [ -d "$seeds" ]; then
        cp "$seeds"/* "$work/corpus/" 2>/dev/null || true
        nseed=$(ls "$work/corpus" | wc -l)
    fi
    set -- -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$work/artifacts/"
    [ -f "$here/dict/$name.dict" ] && set -- "$@" -dict="$here/dict/$name.dict"
    if [ "$jobs" -gt 1 ]; then
        set -- "$@" -jobs="$jobs"
        [ -n "$workers" ] && set -- "$@" -workers="$workers"
    fi
    log="$work/fuzz.log"
    t0=$(date +%s)
    (cd "$work" && "$bin" "$@" "$work/corpus" >"$log" 2>&1)
    rc=$?
    ran=$(($(date +%s) - t0))
    # With -jobs the per-job logs are fuzz-<n>.log in the work directory.
    logs="$log"
    for l in "$work"/fuzz-*.log; do [ -f "$l" ] && logs="$logs $l"; done
    execs=0 cov=0 ft=0
    for l in $logs; do
        e=$(stat_field "$l" number_of_executed_units)
        [ -n "$e" ] && execs=$((execs + e))
        c=$(last_field "$l" cov); [ -n "$c" ] && [ "$c" -gt "$cov" ] && cov=$c
        f=$(last_field "$l" ft); [ -n "$f" ] && [ "$f" -gt "$ft" ] && ft=$f
    done
    # Over the time it really ran: a crash ends a run early.
    rate=$((execs / (ran > 0 ? ran : 1)))
    ncorp=$(ls "$work/corpus" | wc -l)
    crashes=$(ls "$work/artifacts" 2>/dev/null | sed "s|^|$work/artifacts/|" | tr '\n' ' ')
    [ -n "$crashes" ] || crashes=none
    printf '%-10s %12s %8s %7s %7s %8s (+%s) %s\n' "$name" "$execs" "$rate" "$cov" "$ft" \
        "$ncorp" "$((ncorp - nseed))" "$crashes" | tee -a "$summary"
    if [ "$crashes" != none ] || { [ "$rc" -ne 0 ] && [ "$jobs" -le 1 ]; }; then
        [ "$crashes" = none ] && echo "  $name: fuzzer exited $rc, see $log" | tee -a "$summary"
        status=1
    fi
done
echo "summary: $summary"
exit $status
