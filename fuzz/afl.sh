#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run the fuzz targets under AFL++ (Debian's afl++) on the same corpora as
# libFuzzer: build them with build-ossfuzz.sh (CC=afl-clang-fast, AFL++'s
# libAFLDriver.a as $LIB_FUZZING_ENGINE), then afl-fuzz each for
# AFL_SECONDS (default 60) and print its executions, paths and crashes.
# Crashes stay in build/afl/<target>/default/crashes: keep a reproducer in
# fuzz/corpus/<target>/ once fixed.
# usage: fuzz/afl.sh [target ...]   (default: every fuzz/fuzz_*.c)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/build/afl
secs=${AFL_SECONDS:-60}
if [ ! -x "$out/bin/fuzz_engine" ] || [ "${AFL_REBUILD:-0}" = 1 ]; then
    CC=afl-clang-fast CXX=afl-clang-fast++ CFLAGS="-O1 -g" \
    LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a OUT=$out/bin sh "$src/fuzz/build-ossfuzz.sh"
fi
targets=${*:-$(cd "$src/fuzz" && ls fuzz_*.c | sed 's/\.c$//; s/^fuzz_//')}
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
for t in $targets; do
    rm -rf "$out/$t"
    mkdir -p "$out/$t"
    dict=""
    [ -f "$src/fuzz/dict/$t.dict" ] && dict="-x $src/fuzz/dict/$t.dict"
    # shellcheck disable=SC2086
    nice afl-fuzz -V "$secs" -i "$src/fuzz/corpus/$t" -o "$out/$t" $dict -- "$out/bin/fuzz_$t" \
        >"$out/$t/afl.log" 2>&1 || true
    s=$out/$t/default/fuzzer_stats
    if [ -f "$s" ]; then
        printf '%-8s execs %s  exec/s %s  corpus %s  crashes %s  hangs %s\n' "$t" \
            "$(sed -n 's/^execs_done *: //p' "$s")" "$(sed -n 's/^execs_per_sec *: //p' "$s")" \
            "$(sed -n 's/^corpus_count *: //p' "$s")" "$(sed -n 's/^saved_crashes *: //p' "$s")" \
            "$(sed -n 's/^saved_hangs *: //p' "$s")"
    else
        echo "$t: afl-fuzz did not start (see $out/$t/afl.log)"
    fi
done
