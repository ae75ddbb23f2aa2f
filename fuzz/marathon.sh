#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The long fuzz campaign of issue 41: every libFuzzer target to a number of
# executions (10^8 by default), the targets in parallel on the machine's
# cores, resumable, its corpus kept and minimised in the tree. On demand
# only: CI runs each target for seconds (fuzz/run-brief.sh).
#
# usage: fuzz/marathon.sh [-n EXECS] [-c CHUNK] [-P JOBS] [-b BUILD_DIR]
#                         [-o OUT_DIR] [-k] [TARGET...]
#
#   -n EXECS  executions per target (default 100000000)
#   -c CHUNK  executions per libFuzzer run (default 10000000): after each
#             run the count, the time and the corpus are saved, so a
#             campaign stopped half-way resumes at its last whole run
#   -P JOBS   targets fuzzed at once (default: the number of cores)
#   -b DIR    build tree of the fuzz preset (default build/fuzz):
#             cmake --preset fuzz && cmake --build build/fuzz
#   -o DIR    state and logs (default BUILD_DIR/marathon); remove it to
#             start over
#   -k        keep fuzz/corpus/ as it is (default: when a target reaches
#             EXECS, libFuzzer -merge=1 adds to fuzz/corpus/<target> the
#             fewest of the campaign's inputs that reach what the committed
#             seeds do not, for committing; the named seeds stay)
#   TARGET    short names (engine, cdb, ...); default every fuzz_<name>
#
# Per target in OUT_DIR/<name>: corpus/ (the working corpus, started from
# fuzz/corpus/<name>), done (executions so far), seconds (fuzzing time so
# far), cov (edges covered: libFuzzer's cov: of its last run), crashes/
# (crash-*, leak-*, timeout-*, oom-* artifacts), log.N (each run). A run
# that found a crash stops that target (fix it, keep the artifact as a
# corpus file, then run again: it resumes). The table at the end is what
# docs/reliability.md records: executions, time, edges, corpus, crashes.
set -u

total=100000000 chunk=10000000 par="" build="" out="" keep=0
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

# One target, to EXECS, chunk by chunk (also how the parallel runs start).
one() {
    t=$1 bin="$build/fuzz/fuzz_$1" d="$out/$1"
    mkdir -p "$d/corpus" "$d/crashes"
    [ -f "$d/done" ] || { cp "$root/fuzz/corpus/$t/"* "$d/corpus/" 2>/dev/null; echo 0 >"$d/done"; echo 0 >"$d/seconds"; }
    dict=""
    [ -f "$root/fuzz/dict/$t.dict" ] && dict="-dict=$root/fuzz/dict/$t.dict"
    while [ "$(cat "$d/done")" -lt "$total" ]; do
        if ls "$d/crashes/"* >/dev/null 2>&1; then
            echo "$t: stopped: $(ls "$d/crashes" | wc -l) artifact(s) in $d/crashes" >&2
            return 1
        fi
        done_n=$(cat "$d/done")
        n=$((total - done_n < chunk ? total - done_n : chunk))
        log="$d/log.$done_n"
        start=$(date +%s)
        # shellcheck disable=SC2086
        (cd "$d" && "$bin" -runs="$n" -print_final_stats=1 -artifact_prefix="$d/crashes/" $dict corpus) >"$log" 2>&1
        rc=$?
        end=$(date +%s)
        ran=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        [ -n "$ran" ] || ran=0
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
        [ -n "$cov" ] && echo "$cov" >"$d/cov"
        echo $((done_n + ran)) >"$d/done"
        echo $(($(cat "$d/seconds") + end - start)) >"$d/seconds"
        if [ $rc -ne 0 ] || [ "$ran" -eq 0 ]; then
            echo "$t: libFuzzer exited $rc after $ran executions (see $log)" >&2
            return 1
        fi
    done
    if [ $keep -eq 0 ] && [ ! -f "$d/merged" ]; then
        # Into the committed corpus: its named seeds stay, and only the
        # campaign's inputs that reach features they do not are added.
        (cd "$d" && "$bin" -merge=1 "$root/fuzz/corpus/$t" corpus) >"$d/log.merge" 2>&1 || return 1
        touch "$d/merged"
    fi
    return 0
}

if [ "${1:-}" = "--one" ]; then
    total=$2 chunk=$3 build=$4 out=$5 keep=$6
    one "$7"
    exit $?
fi

while getopts "n:c:P:b:o:kh" opt; do
    case $opt in
    n) total=$OPTARG ;;
    c) chunk=$OPTARG ;;
    P) par=$OPTARG ;;
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    k) keep=1 ;;
    *) sed -n '2,33p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
for v in "$total" "$chunk"; do
    case $v in ''|*[!0-9]*|0) echo "marathon: -n and -c want a positive count" >&2; exit 2 ;; esac
done
[ -n "$par" ] || par=$(nproc 2>/dev/null || echo 2)
[ -n "$build" ] || build="$root/build/fuzz"
[ -d "$build/fuzz" ] || { echo "marathon: no fuzz binaries in $build (cmake --preset fuzz && cmake --build build/fuzz)" >&2; exit 2; }
build=$(cd "$build" && pwd)
[ -n "$out" ] || out="$build/marathon"
mkdir -p "$out" && out=$(cd "$out" && pwd)
if [ $# -eq 0 ]; then
    for f in "$build"/fuzz/fuzz_*; do
        [ -x "$f" ] && set -- "$@" "${f##*/fuzz_}"
    done
fi
for t in "$@"; do
    [ -x "$build/fuzz/fuzz_$t" ] || { echo "marathon: no target $t in $build/fuzz" >&2; exit 2; }
done

printf '%s\n' "$@" | xargs -P "$par" -I{} sh "$0" --one "$total" "$chunk" "$build" "$out" "$keep" {}
rc=$?

printf '\n%-14s %14s %9s %7s %8s %8s\n' target executions seconds edges corpus crashes
for t in "$@"; do
    d="$out/$t"
    printf '%-14s %14s %9s %7s %8s %8s\n' "$t" "$(cat "$d/done" 2>/dev/null || echo 0)" \
        "$(cat "$d/seconds" 2>/dev/null || echo 0)" "$(cat "$d/cov" 2>/dev/null || echo ?)" \
        "$(ls "$root/fuzz/corpus/$t" 2>/dev/null | wc -l)" "$(ls "$d/crashes" 2>/dev/null | wc -l)"
done
exit $rc
