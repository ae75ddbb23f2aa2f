#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Coverage of the fuzz corpora over the core: every fuzz target is built
# with clang's source-based coverage (build-ossfuzz.sh, the corpus replay
# driver as the engine), replays fuzz/corpus/<target> (and, if given, more
# corpus directories per target in $EXTRA_CORPUS/<target>), and llvm-cov
# writes an HTML report of core/ to build/fuzz-coverage/html plus a summary
# of the core files with the most lines no input reaches.
# usage: fuzz/coverage.sh
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/build/fuzz-coverage
mkdir -p "$out/prof"
cflags="-O0 -g -fprofile-instr-generate -fcoverage-mapping"
clang $cflags -c "$src/fuzz/replay_main.c" -o "$out/replay_main.o"
CC=clang CFLAGS="$cflags" LIB_FUZZING_ENGINE="$out/replay_main.o" OUT="$out/bin" \
    sh "$src/fuzz/build-ossfuzz.sh" >/dev/null
rm -f "$out"/prof/*.profraw
objects=""
for b in "$out"/bin/fuzz_*; do
    case $b in *.zip|*.dict) continue ;; esac
    t=$(basename "$b"); t=${t#fuzz_}
    dirs="$src/fuzz/corpus/$t"
    [ -n "${EXTRA_CORPUS:-}" ] && [ -d "$EXTRA_CORPUS/$t" ] && dirs="$dirs $EXTRA_CORPUS/$t"
    for d in $dirs; do
        LLVM_PROFILE_FILE="$out/prof/$t-%p.profraw" nice "$b" "$d" >/dev/null 2>&1 || true
    done
    if [ -z "$objects" ]; then objects=$b; else objects="$objects -object=$b"; fi
done
llvm-profdata merge -sparse "$out"/prof/*.profraw -o "$out/fuzz.profdata"
# shellcheck disable=SC2086
llvm-cov show -format=html -output-dir="$out/html" -instr-profile="$out/fuzz.profdata" \
    $objects "$src/core" >/dev/null
# shellcheck disable=SC2086
llvm-cov report -instr-profile="$out/fuzz.profdata" $objects "$src/core" > "$out/summary.txt"
echo "fuzz corpus coverage of core/ (HTML: $out/html/index.html):"
tail -1 "$out/summary.txt"
echo "core files with the most lines no fuzz input reaches:"
awk 'NR > 2 && $1 != "TOTAL" && NF >= 13 { print $9, $1, $10 }' "$out/summary.txt" | sort -rn | head -12 |
    awk '{ printf "  %5d lines missed  core/%s (%s of its lines covered)\n", $1, $2, $3 }'
