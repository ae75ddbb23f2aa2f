#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# One of tests/uefi's boots: boot.sh boots OVMF with pcam's driver and a
# controller (esp: AM53C974, the default; lsi: LSI53C895A) and runs
# main.nsh, then check.sh asserts on the serial log, QEMU's trace and the
# disk images.
# usage: run.sh EFI_DIR MKPATTERN WORK [esp|lsi]
set -eu
here=$(dirname "$0")
chip=${4:-esp}
t0=$(date +%s)
# One VM at a time on the machine (the lock every QEMU run takes).
PCAM_UEFI_CHIP=$chip flock "${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}" sh "$here/boot.sh" "$1" "$2" "$3" "$here/main.nsh"
sh "$here/check.sh" "$3" "$chip"
echo "uefi ($chip): $(($(date +%s) - t0)) s in all"
