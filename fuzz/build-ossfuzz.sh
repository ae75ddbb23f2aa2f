#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Build every fuzz/fuzz_*.c the way OSS-Fuzz builds projects: the compiler
# and flags come from $CC and $CFLAGS, the engine from $LIB_FUZZING_ENGINE
# (libFuzzer's -fsanitize=fuzzer, AFL++'s libAFLDriver.a, or a replay
# driver object), binaries and seed corpora go to $OUT as
# fuzz_<name>, fuzz_<name>_seed_corpus.zip and fuzz_<name>.dict.
# Sources are compiled directly (no CMake), as an OSS-Fuzz build.sh would.
# Example (libFuzzer, ASan):
#   CC=clang CFLAGS="-O1 -g -fsanitize=address,fuzzer-no-link" \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out sh fuzz/build-ossfuzz.sh
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
: "${CC:=clang}"
: "${CFLAGS:=-O1 -g -fsanitize=address,fuzzer-no-link}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:=$src/build/ossfuzz}"
work=$OUT/obj
mkdir -p "$OUT" "$work"
inc="-I$src/include -I$src/core/include -I$src/hal/sim -I$src/aspi/include"
# The libraries the targets link: the core, hal/sim (whole-engine targets),
# the ASPI layer (fuzz_aspi), hal/mpt and hal/virtio (fuzz_mpt, fuzz_virtio).
objs=""
for f in "$src"/core/*/*.c "$src"/hal/sim/*.c "$src"/aspi/*.c "$src"/hal/mpt/*.c "$src"/hal/virtio/*.c; do
    o=$work/$(echo "$f" | sed "s|$src/||; s|/|_|g; s|\.c$|.o|")
    # shellcheck disable=SC2086
    $CC $CFLAGS -std=c99 $inc -c "$f" -o "$o"
    objs="$objs $o"
done
# Parsers outside the libraries: wnaspi32.ini's (aspi/win32, plain C) with
# pcamctl's topology parser, which it calls (fuzz_wnaspi32_ini); pcamctl's
# VPD decoders (fuzz_vpd); the lying IOC and device of fuzz_mpt and
# fuzz_virtio, and the upper layer both play (fuzz/upper.c).
inc="$inc -I$src/aspi/win32 -I$src/examples/pcamctl -I$src/tests/support"
inc="$inc -I$src/tests/mpt/model -I$src/tests/virtio/model -I$src/fuzz"
for f in "$src"/aspi/win32/w32_ini.c "$src"/aspi/win32/w32_config.c "$src"/examples/pcamctl/simspec.c \
         "$src"/examples/pcamctl/vpd.c "$src"/examples/pcamctl/out.c "$src"/tests/mpt/model/mptm.c \
         "$src"/tests/virtio/model/viom.c "$src"/fuzz/upper.c; do
    o=$work/$(echo "$f" | sed "s|$src/||; s|/|_|g; s|\.c$|.o|")
    # shellcheck disable=SC2086
    $CC $CFLAGS -std=c99 -D_POSIX_C_SOURCE=200809L $inc -c "$f" -o "$o"
    objs="$objs $o"
done
ar rcs "$work/libpcamfuzz.a" $objs
for t in "$src"/fuzz/fuzz_*.c; do
    name=$(basename "$t" .c)
    short=${name#fuzz_}
    # shellcheck disable=SC2086
    $CC $CFLAGS -std=c99 $inc -c "$t" -o "$work/$name.o"
    # The engine is linked by the C++ driver where it is one (libFuzzer,
    # AFL++), as OSS-Fuzz does with $CXX; plain $CC works for -fsanitize=fuzzer.
    link=${CXX:-$CC}
    # shellcheck disable=SC2086
    $link $CFLAGS "$work/$name.o" "$work/libpcamfuzz.a" $LIB_FUZZING_ENGINE -lpthread -o "$OUT/$name"
    if [ -d "$src/fuzz/corpus/$short" ]; then
        rm -f "$OUT/${name}_seed_corpus.zip"
        (cd "$src/fuzz/corpus/$short" && zip -q -r "$OUT/${name}_seed_corpus.zip" .) || true
    fi
    [ -f "$src/fuzz/dict/$short.dict" ] && cp "$src/fuzz/dict/$short.dict" "$OUT/$name.dict"
done
echo "build-ossfuzz: $(ls "$OUT"/fuzz_* | grep -v -c '\.') targets in $OUT"
