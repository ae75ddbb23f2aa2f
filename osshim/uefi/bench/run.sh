#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# requests/s of blocking 4 KiB READ(10) PassThru calls, pcam's driver on
# one controller (esp: the AM53C974, the default; lsi: the LSI53C895A)
# beside OVMF's own virtio-scsi driver, in the same VM on the same image
# (target 2's pattern disk, opened a second time read-only for
# virtio-scsi). A figure for docs/uefi.md, not a test: it asserts nothing.
# usage: run.sh BUILD_DIR [N] [REPEATS] [esp|lsi]   (BUILD_DIR: a CMake build with pcam_uefi built)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=$(cd "$1" && pwd)
n=${2:-2000}
reps=${3:-3}
chip=${4:-esp}
case $chip in esp) drv=pcam ;; lsi) drv=lsi ;; *) echo "run.sh: chip esp or lsi" >&2; exit 1 ;; esac
efi=$build/osshim/uefi/efi
work=$build/uefi-bench-$chip
body=$(mktemp)
trap 'rm -f "$body"' EXIT
{
  echo 'load fs0:\pcamscsi.efi'
  echo 'map -r'
  i=0
  while [ "$i" -lt "$reps" ]; do
    echo "fs0:\\pcambench.efi $drv $n 2"
    echo "fs0:\\pcambench.efi virtio $n 0"
    i=$((i + 1))
  done
} >"$body"
PCAM_UEFI_CHIP=$chip sh "$src/tests/uefi/boot.sh" "$efi" "$build/tests/uefi/uefi_mkpattern" "$work" "$body" \
  -device virtio-scsi-pci,id=vs0,addr=0x7 \
  -drive if=none,id=v0,format=raw,readonly=on,file.locking=off,file="$work/pat2.img" \
  -device scsi-hd,bus=vs0.0,drive=v0,scsi-id=0,lun=0
grep '^@BENCH' "$work/serial.txt"
awk '/^@BENCH/ { for (f = 2; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
                 s[v["driver"]] += v["rps"]; c[v["driver"]]++ }
     END { for (d in s) printf "mean %s: %d requests/s (4 KiB READ(10), %d runs)\n", d, s[d] / c[d], c[d] }' \
  "$work/serial.txt"
printf 'pcamscsi.efi: %s bytes\n' "$(wc -c <"$efi/pcamscsi.efi")"
