#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The long soak: pcambench --soak with a million verified commands (or
# $SOAK_COMMANDS) on each path (phase-level, command-level adapter, hal/esp
# on the ESP model), faults drawn at random, progress on stderr and the
# table per fault kind at the end of each. Seeded: SOAK_SEED reproduces a
# run. Exits non-zero when any path lost, doubled, corrupted or stranded a
# command or broke an invariant.
# usage: scripts/soak.sh [BUILD_DIR]   (default build/default; built if needed)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/default}
n=${SOAK_COMMANDS:-1000000}
seed=${SOAK_SEED:-20261201}
if [ ! -x "$build/bench/pcambench" ]; then
    cmake -S "$root" -B "$build" >/dev/null
    cmake --build "$build" -t pcambench >/dev/null
fi
rc=0
for path in phase cmd esp; do
    nice "$build/bench/pcambench" --soak --path "$path" --commands "$n" --seed "$seed" \
        --progress $((n / 10)) || rc=1
done
exit $rc
