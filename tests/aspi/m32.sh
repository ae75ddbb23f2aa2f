#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Build the ASPI layer with -m32 (4-byte pointers: aspi_layout.c then
# asserts the exact Win32 SRB layouts) together with the core, hal/sim and
# the sim host, and run the plain-C check program: natively where the
# kernel runs i386 programs, else under qemu-i386 (package qemu-user).
# Fails loudly when the compiler cannot build or link 32-bit code
# (gcc-multilib) or nothing can run it.
# usage: m32.sh SOURCE_DIR WORK_DIR      (CC from the environment, default gcc)
set -eu
src=$1
out=$2
cc=${CC:-gcc}
mkdir -p "$out"
# shellcheck disable=SC2046
if ! $cc -m32 -std=c99 -g -O1 -Wall -Wextra -Wpedantic -Werror -pthread \
    -I"$src/include" -I"$src/core/include" -I"$src/hal/sim" \
    -I"$src/aspi/include" -I"$src/aspi/simhost" \
    $(ls "$src"/core/*/*.c) $(ls "$src"/hal/sim/*.c) $(ls "$src"/aspi/*.c) \
    "$src/aspi/simhost/aspi_simhost.c" "$src/tests/aspi/m32_main.c" \
    -o "$out/aspi_m32"; then
    echo "m32.sh: FAILED to build the -m32 ASPI check with $cc (is gcc-multilib installed?)" >&2
    exit 1
fi
# A kernel without IA-32 emulation refuses the binary: use qemu-user.
if "$out/aspi_m32" 2>"$out/native.err"; then
    exit 0
fi
if grep -q "Exec format error" "$out/native.err"; then
    if command -v qemu-i386 >/dev/null 2>&1; then
        exec qemu-i386 "$out/aspi_m32"
    fi
    echo "m32.sh: FAILED: this kernel cannot run i386 programs and qemu-i386 (qemu-user) is missing" >&2
    exit 1
fi
cat "$out/native.err" >&2
exit 1
