#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The QEMU fault campaign (bench/qcampaign.c): random verified reads and
# writes on QEMU's AM53C974 with blkdebug errors, held requests, throttling
# and caller resets, for CAMPAIGN_SECONDS (default 1800) with CAMPAIGN_SEED.
# Prints progress every minute and the totals; non-zero exit when anything
# was lost, doubled, corrupt, reported with the wrong sense or unexplained.
# usage: scripts/qemu-campaign.sh [BUILD_DIR]   (default build/default)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/default}
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
    echo "qemu-campaign: qemu-system-x86_64 is not installed (scripts/deps.sh installs it)" >&2
    exit 77
fi
if [ ! -x "$build/bench/pcamqcampaign" ]; then
    cmake -S "$root" -B "$build" >/dev/null
    cmake --build "$build" -t pcamqcampaign >/dev/null
fi
exec nice "$build/bench/pcamqcampaign" --seconds "${CAMPAIGN_SECONDS:-1800}" --seed "${CAMPAIGN_SEED:-1}"
