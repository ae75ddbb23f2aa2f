#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Build every embedded preset (Cortex-M0+, M3, M4F, RV32, RV64, and the
# minimal configuration on Cortex-M3) and print what a firmware image pays
# for each library: text+data of libpcam.a (the core) and of each back-end,
# as the target's own size tool counts them. Fails on a build error, on a
# warning (the project flags have -Werror), or on position-independent code
# (GOT relocations) in any object, which firmware must not be forced into.
# usage: scripts/embedded.sh [PRESET...]   (default: all embedded presets)
set -eu
cd "$(dirname "$0")/.."
presets=${*:-"cortex-m0plus cortex-m3 cortex-m4f cortex-m3-minimal rv32 rv64"}
jobs=$(nproc 2>/dev/null || echo 2)
printf '%-18s %-12s %10s %10s\n' preset library text+data files
for p in $presets; do
  case $p in
    rv*) tool=riscv64-unknown-elf ;;
    *) tool=arm-none-eabi ;;
  esac
  command -v "$tool-gcc" >/dev/null 2>&1 || {
    echo "embedded: $tool-gcc not found (scripts/deps.sh installs it)" >&2; exit 1; }
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$jobs" >/dev/null
  for lib in build/$p/core/libpcam.a build/$p/hal/*/libpcam_*.a; do
    [ -f "$lib" ] || continue
    bytes=$("$tool-size" -t "$lib" | awk 'END {print $1 + $2}')
    files=$("$tool-ar" t "$lib" | wc -l)
    printf '%-18s %-12s %10s %10s\n' "$p" "$(basename "$lib" .a)" "$bytes" "$files"
    # The compiler runtime helpers (libgcc) the library calls, by object.
    helpers=$("$tool-nm" -u "$lib" | awk '/:$/ {o = $1; sub(/\.c\.obj:$/, "", o); next}
      NF && $NF !~ /^(pcam_|esp_|sym_|mem)/ {h[$NF] = h[$NF] " " o}
      END {for (k in h) printf "%s(%s ) ", k, h[k]}')
    [ -n "$helpers" ] && printf '%-18s   helpers: %s\n' "" "$helpers"
    if "$tool-readelf" -r "$lib" | grep -q 'GOT'; then
      echo "embedded: $lib has GOT relocations: position-independent code was forced" >&2
      exit 1
    fi
  done
done
