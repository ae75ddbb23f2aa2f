#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Compile every core/ source with no C library headers reachable: only the
# compiler's own freestanding headers (stdint.h, stddef.h, stdbool.h) are on
# the include path, so any libc or OS include fails the build.
# usage: check.sh host|m32|cortex-m3 SOURCE_DIR WORK_DIR
set -eu
variant=$1 src=$2 work=$3
cc=${CC:-cc}
flags="-std=c99 -ffreestanding -nostdinc -fno-builtin -Wall -Wextra -Wpedantic -Werror"
size=size
case $variant in
  host) arch="" ;;
  m32) arch="-m32" ;;
  cortex-m3)
    cc=arm-none-eabi-gcc size=arm-none-eabi-size
    arch="-mcpu=cortex-m3 -mthumb -Os" ;;
  *) echo "unknown variant $variant" >&2; exit 2 ;;
esac
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "FAIL: $cc not found; install it with: apt-get install gcc-arm-none-eabi" >&2
  exit 1
fi
inc=$($cc $arch -print-file-name=include)
rm -rf "$work"; mkdir -p "$work"
objs=""
n=0
# The core and the chip back-ends that run inside kernels and firmware.
dirs="$src/core"
[ -d "$src/hal/esp" ] && dirs="$dirs $src/hal/esp"
[ -d "$src/hal/sym" ] && dirs="$dirs $src/hal/sym"
for f in $(find $dirs -name '*.c' | sort); do
  o="$work/$(echo "${f#$src/}" | tr / _).o"
  # shellcheck disable=SC2086
  $cc $flags $arch -isystem "$inc" -I"$src/include" -I"$src/core/include" -c "$f" -o "$o"
  objs="$objs $o"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no core sources found under $src/core" >&2; exit 1; }
# shellcheck disable=SC2086
text=$($size $objs | awk 'NR>1 {t += $1} END {print t}')
echo "freestanding $variant: $n files (core/, hal/esp/, hal/sym/) compiled warning-free; .text = $text bytes"
if [ -d "$src/hal/sym" ]; then
  # shellcheck disable=SC2086
  symtext=$($size $work/hal_sym_*.o | awk 'NR>1 {t += $1} END {print t}')
  echo "freestanding $variant: hal/sym .text = $symtext bytes"
fi
