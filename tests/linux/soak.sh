#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# On demand, not in CI: the faults-under-load guest (guest_faults.sh) as a
# soak on both controllers, pcam.ko on the AM53C974 then on the LSI53C895A:
# fio verify=crc32c (random 4-64 KiB writes 8 deep, 128 KiB sequential
# writes) and a sector-pattern reader on one disk for SECONDS, while the
# other disk gets a read error, a write error, sg_reset -d and -b every few
# seconds. test_linux_faults.sh asserts 0 wrong data and every command back
# once, and prints the counts. Each QEMU run holds /tmp/pcam-vm.lock.
# usage: tests/linux/soak.sh [SECONDS (default 1800)] [WORK_DIR]
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-1800}
WORK=${2:-${TMPDIR:-/tmp}/pcam-soak}
rc=0
for chip in esp sym; do
  echo "== soak $SECS s, pcam.ko on $chip"
  sh "$SRC/tests/linux/test_linux_faults.sh" "$SRC" "$WORK/$chip" $chip soak "$SECS" || rc=1
done
exit $rc
