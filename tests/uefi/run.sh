#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# tests/uefi's main boot: boot.sh boots OVMF with pcam's driver and runs
# main.nsh, then check.sh asserts on the serial log and the disk images.
# usage: run.sh EFI_DIR MKPATTERN WORK
set -eu
here=$(dirname "$0")
t0=$(date +%s)
sh "$here/boot.sh" "$1" "$2" "$3" "$here/main.nsh"
sh "$here/check.sh" "$3"
echo "uefi.main: $(($(date +%s) - t0)) s in all"
