#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Run one libFuzzer target for a few seconds on a scratch copy of its seed
# corpus (new inputs stay in the build tree, the committed corpus is untouched).
# usage: run-brief.sh FUZZER SEED_DIR WORK_DIR SECONDS [-dict=FILE]
set -eu
fuzzer=$1 seeds=$2 work=$3 secs=$4
shift 4
rm -rf "$work"; mkdir -p "$work/corpus"
[ -d "$seeds" ] && cp "$seeds"/* "$work/corpus/" 2>/dev/null || true
cd "$work"
exec "$fuzzer" "$@" -max_total_time="$secs" -print_final_stats=1 "$work/corpus"
