#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The main job: build pcam (embedded default: the core plus the simulated
# bus) with pcamctl, and run the demo. Installs what it needs when run as root.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh demo
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DPCAM_BUILD_TESTS=OFF >/dev/null
cmake --build build/demo -j "$(nproc 2>/dev/null || echo 2)" --target pcamctl pcambench scenes >/dev/null
exec sh scripts/demo-run.sh build/demo
