#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest fixture of the win32 tests: the mingw-w64 i686 tree of this source
# (wnaspi32.dll, aspiscan.exe, aspi_client.exe), warning-free with the
# project's flags (-Werror). usage: build_mingw.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1 build=$2
command -v i686-w64-mingw32-gcc >/dev/null 2>&1 || {
  echo "SKIPPED: i686-w64-mingw32-gcc is not installed (scripts/deps.sh installs gcc-mingw-w64-i686)"
  exit 77
}
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/mingw-i686.cmake" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCAM_BUILD_TESTS=OFF -DPCAM_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j 2 -t wnaspi32 aspiscan aspi_client
for f in wnaspi32.dll aspiscan.exe aspi_client.exe; do
  [ -f "$build/bin/$f" ] || { echo "missing $build/bin/$f" >&2; exit 1; }
done
# What a legacy program finds: the six exports, and only system DLLs to load.
i686-w64-mingw32-objdump -p "$build/bin/wnaspi32.dll" > "$build/wnaspi32.exports"
for e in GetASPI32SupportInfo SendASPI32Command GetASPI32DLLVersion TranslateASPI32Address \
         GetASPI32Buffer FreeASPI32Buffer; do
  grep -q "] $e\$" "$build/wnaspi32.exports" || { echo "wnaspi32.dll does not export $e" >&2; exit 1; }
done
if grep 'DLL Name' "$build/wnaspi32.exports" | grep -viqE 'KERNEL32.dll|msvcrt.dll'; then
  grep 'DLL Name' "$build/wnaspi32.exports" >&2
  echo "wnaspi32.dll needs a DLL beyond KERNEL32 and msvcrt" >&2
  exit 1
fi
echo "mingw i686 tree built in $build"
