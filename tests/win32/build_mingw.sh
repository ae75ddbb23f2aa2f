#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest fixture of the Wine tests: one mingw-w64 tree, built with exactly the
# commands docs/aspi.md gives (cmake --preset ABI && cmake --build --preset
# ABI), so the documented build and the tested one cannot drift: every
# target the preset configures, warning-free (-Werror). Then the DLL's
# exports and imports, as a legacy program finds them.
# usage: build_mingw.sh SOURCE_DIR win32|win64
set -eu
src=$1 abi=$2
case "$abi" in
  win32) triple=i686-w64-mingw32 pkg=gcc-mingw-w64-i686 ;;
  win64) triple=x86_64-w64-mingw32 pkg=gcc-mingw-w64-x86-64 ;;
  *) echo "usage: $0 SOURCE_DIR win32|win64" >&2; exit 2 ;;
esac
command -v $triple-gcc >/dev/null 2>&1 || {
  echo "FAILED: $triple-gcc is not installed (scripts/deps.sh installs $pkg)" >&2
  exit 1
}
cd "$src"
cmake --preset "$abi" >/dev/null
cmake --build --preset "$abi" -j 2
bin=$src/build/$abi/bin
for f in wnaspi32.dll aspiscan.exe aspi_client.exe aspi_callers.exe aspi_ordinal.exe aspi_loadpath.exe; do
  [ -f "$bin/$f" ] || { echo "missing $bin/$f" >&2; exit 1; }
done
# What a legacy program finds: the six exports, and only system DLLs to load.
$triple-objdump -p "$bin/wnaspi32.dll" > "$src/build/$abi/wnaspi32.exports"
for e in GetASPI32SupportInfo SendASPI32Command GetASPI32DLLVersion TranslateASPI32Address \
         GetASPI32Buffer FreeASPI32Buffer; do
  grep -q "] $e\$" "$src/build/$abi/wnaspi32.exports" || { echo "wnaspi32.dll does not export $e" >&2; exit 1; }
done
if grep 'DLL Name' "$src/build/$abi/wnaspi32.exports" | grep -viqE 'KERNEL32.dll|msvcrt.dll'; then
  grep 'DLL Name' "$src/build/$abi/wnaspi32.exports" >&2
  echo "wnaspi32.dll needs a DLL beyond KERNEL32 and msvcrt" >&2
  exit 1
fi
# aspi_ordinal.exe imports from wnaspi32.dll by ordinal only: #1 and #2,
# no name (objdump: the ordinal, then "<none>" where a name would be).
$triple-objdump -p "$bin/aspi_ordinal.exe" |
  awk '/DLL Name:/ { in_dll = ($3 == "wnaspi32.dll") } in_dll && /^\t[0-9a-f]+\t/ { print $2, $3 }' \
  > "$src/build/$abi/aspi_ordinal.imports"
if [ "$(tr '\n' ' ' < "$src/build/$abi/aspi_ordinal.imports")" != "000000001 <none> 000000002 <none> " ] &&
   [ "$(tr '\n' ' ' < "$src/build/$abi/aspi_ordinal.imports")" != "1 <none> 2 <none> " ]; then
  cat "$src/build/$abi/aspi_ordinal.imports" >&2
  echo "aspi_ordinal.exe does not import exactly ordinals 1 and 2 of wnaspi32.dll, without names" >&2
  exit 1
fi
echo "mingw $abi tree built in $src/build/$abi (cmake --build --preset $abi)"
