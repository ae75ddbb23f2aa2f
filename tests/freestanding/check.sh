#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Compile every core/ source with no C library headers reachable: only the
# compiler's own freestanding headers (stdint.h, stddef.h, stdbool.h) are on
# the include path, so any libc or OS include fails the build.
# usage: check.sh host|m32|cortex-m3 SOURCE_DIR WORK_DIR
set -eu
variant=$1 src=$2 work=$3
cc=${CC:-cc}
flags="-std=c99 -ffreestanding -nostdinc -fno-builtin -Wall -Wextra -Wpedantic -Wundef -Werror"
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
# The core and the chip back-ends that run inside kernels and firmware,
# each compiled in the default configuration and in the minimal one
# (cmake/configs/pcam_minimal.h); sizes are text+data, rodata included.
backends=""
for d in "$src"/hal/*/; do
  b=$(basename "$d")
  case $b in
    sim) continue ;;       # host-only: the C library, malloc, stdio
    template) continue ;;  # the porting guide's stub, checked by docs.template.freestanding
  esac
  backends="$backends $b"
done
nm=${size%size}nm
files=0
for cfg in default minimal; do
  cfgflags=""
  [ $cfg = minimal ] && cfgflags="-DPCAM_CONFIG_FILE=\"pcam_minimal.h\" -I$src/cmake/configs"
  line=""
  for part in core $backends; do
    dir=$src/core
    [ $part = core ] || dir=$src/hal/$part
    objs="" n=0
    # attach.c: the template's hosted test program, which a back-end copied
    # from hal/template brings along (docs/porting.md); not library code.
    for f in $(find "$dir" -name '*.c' ! -name attach.c | sort); do
      o="$work/$cfg-$(echo "${f#$src/}" | tr / _).o"
      # shellcheck disable=SC2086
      $cc $flags $arch $cfgflags -isystem "$inc" -I"$src/include" -I"$src/core/include" \
          -I"$dir" -c "$f" -o "$o"
      objs="$objs $o"
      n=$((n + 1))
    done
    [ "$n" -gt 0 ] || { echo "FAIL: no sources found under $dir" >&2; exit 1; }
    files=$((files + n))
    # shellcheck disable=SC2086
    bytes=$($size $objs | awk 'NR > 1 {t += $1 + $2} END {print t}')
    line="$line $part=$bytes"
  done
  # shellcheck disable=SC2086
  $cc $flags $arch $cfgflags -isystem "$inc" -I"$src/include" -c "$src/tests/freestanding/sizes.c" \
      -o "$work/$cfg-sizes.o"
  ram=""
  for sym in bus lun ccb; do
    hex=$($nm -S "$work/$cfg-sizes.o" | awk -v s="pcam_sizeof_$sym" '$4 == s {print $2}')
    ram="$ram $sym=$((0x$hex))"
    eval "sz_$sym=$((0x$hex))"
  done
  # The RAM a narrow bus with one LUN per target needs (CCBs are the caller's).
  echo "freestanding $variant $cfg: text+data bytes:$line; sizeof:$ram;" \
       "bus + 8 LUN slots = $((sz_bus + 8 * sz_lun)) bytes"
done
# The negotiation and scan switches one at a time on the default
# configuration (a wide bus without PPR, a 16-ID bus without wide
# transfers, a scan without REPORT LUNS): every #if they guard must compile
# warning-free in combinations the minimal build does not reach. The core
# only; sizes for the record.
line=""
for sw in PCAM_CFG_PPR PCAM_CFG_WIDE PCAM_CFG_REPORT_LUNS; do
  objs=""
  for f in $(find "$src/core" -name '*.c' | sort); do
    o="$work/$sw-$(echo "${f#$src/}" | tr / _).o"
    # shellcheck disable=SC2086
    $cc $flags $arch -D$sw=0 -isystem "$inc" -I"$src/include" -I"$src/core/include" \
        -I"$src/core" -c "$f" -o "$o"
    objs="$objs $o"
    files=$((files + 1))
  done
  # shellcheck disable=SC2086
  bytes=$($size $objs | awk 'NR > 1 {t += $1 + $2} END {print t}')
  line="$line ${sw#PCAM_CFG_}=0:core=$bytes"
done
echo "freestanding $variant default with one switch off:$line"
echo "freestanding $variant: $files files compiled warning-free (-ffreestanding -nostdinc -Wundef)"
