#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Host-side smoke of the IOMeter job files (ctest bench.fio_jobs): every
# spec bench/linux-iometer-guest.sh runs exists, fio parses it with the
# variables the guest sets, and every bssplit adds up to 100% (fio accepts
# a short one silently). Runs no I/O.
set -eu
D=$(cd "$(dirname "$0")" && pwd)
command -v fio >/dev/null 2>&1 || { echo "SKIP: fio is not installed (sh scripts/deps.sh test)"; exit 0; }
bad=0
for s in fileserver webserver database workstation seqread seqwrite; do
  f=$D/$s.fio
  [ -f "$f" ] || { echo "FAIL: $s.fio missing"; bad=1; continue; }
  DEV=/dev/null-a:/dev/null-b QD=64 RT=3 RAMP=1 fio --parse-only "$f" > /dev/null 2>&1 ||
    { echo "FAIL: fio cannot parse $s.fio"; bad=1; }
  sum=$(awk -F= '/^bssplit=/ {n = split($2, p, ":"); for (i = 1; i <= n; i++) {split(p[i], q, "/"); t += q[2]}; print t; f = 1}
    END {if (!f) print 100}' "$f")
  [ "$sum" = 100 ] || { echo "FAIL: $s.fio bssplit adds up to $sum%"; bad=1; }
done
[ $bad = 0 ] && echo "fio jobs: 6 specs parse, bssplits add up to 100%"
exit $bad
