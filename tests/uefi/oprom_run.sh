#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# One ctest of the option-ROM boots: oprom_boot.sh boots each KIND (each
# VM under the machine's VM lock), then oprom_check.sh asserts on each.
# usage: oprom_run.sh SRC EFI_DIR WORK KIND...
set -eu
here=$(dirname "$0")
src=$1 efidir=$2 work=$3
shift 3
t0=$(date +%s)
sh "$here/oprom_boot.sh" "$src" "$efidir" "$work" "$@"
rc=0
for k in "$@"; do sh "$here/oprom_check.sh" "$work" "$k" || rc=1; done
echo "uefi oprom ($*): $(($(date +%s) - t0)) s in all"
exit $rc
