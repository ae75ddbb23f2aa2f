#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Shows tests/layering/check.sh failing: each case plants one violation in a
# fresh copy of core/ and expects check.sh to exit 1 with the line that
# names it, after the untouched copy has passed (so a failure is the
# plant's). The cases are the ones the check exists for: an upward
# #include, the same reached only through a chain of headers, a sibling's
# header, another folder's private header, and an upward call.
# It never touches the source tree it is given.
# usage: plant.sh [SOURCE_DIR]
set -eu
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
check="$src/tests/layering/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

fresh() {
  rm -rf "$tmp/t"
  mkdir -p "$tmp/t"
  cp -R "$src/core" "$tmp/t/core"
}
# case NAME EXPECTED-LINE-PATTERN: check.sh on $tmp/t must exit 1 and print it
expect_fail() {
  rc=0
  sh "$check" "$tmp/t" > "$tmp/out" 2>&1 || rc=$?
  if [ "$rc" -eq 1 ] && grep -q -- "$2" "$tmp/out"; then
    echo "ok: $1: check.sh fails with: $(grep -- "$2" "$tmp/out" | head -n 1)"
    pass=$((pass + 1))
  else
    echo "FAIL: $1: check.sh exited $rc without a line matching '$2':"
    sed 's/^/  | /' "$tmp/out"
    fail=$((fail + 1))
  fi
}
# append a line to a file of the copy
plant() { printf '%s\n' "$2" >> "$tmp/t/core/$1"; }

fresh
if sh "$check" "$tmp/t" > "$tmp/out" 2>&1; then
  echo "ok: the untouched copy passes"
  pass=$((pass + 1))
else
  echo "FAIL: the untouched copy of core/ fails already:"
  sed 's/^/  | /' "$tmp/out"
  exit 1
fi

fresh
plant proto/cdb.c '#include "../queue/queue.h"'
expect_fail "a codec includes the queue's header" \
  'core/proto/cdb.c (layer 0) reaches core/queue/queue.h (layer 2, above it): core/proto/cdb.c -> core/queue/queue.h$'

fresh
# the bottom header reaches the engine: every codec does, through it
plant include/pcam_util.h '#include "../engine/engine.h"'
expect_fail "an include chain from layer 0 to the engine" \
  'core/proto/sense.c (layer 0) reaches core/engine/engine.h (layer 4, above it): core/proto/sense.c -> core/include/pcam_util.h -> core/engine/engine.h$'
expect_fail "the same chain, two headers deep, from core/common" \
  'core/common/ccbq.c (layer 1) reaches core/engine/engine.h (layer 4, above it): core/common/ccbq.c -> core/common/common.h -> core/include/pcam_util.h -> core/engine/engine.h$'

fresh
plant queue/queue.h '#include "../nego/nego.h"'
expect_fail "the queue's header includes its sibling's" \
  'core/queue/queue.h (layer 2) reaches core/nego/nego.h (layer 2, a sibling)'

fresh
plant xpt/xpt.c '#include "../engine/engine_internal.h"'
expect_fail "xpt includes the engine's private header" \
  "core/xpt/xpt.c (layer 5) reaches core/engine/engine_internal.h (another folder's private header)"

fresh
plant proto/cdb.c 'void pcam_planted(pcam_bus *bus) { pcam_q_touch(bus); }'
expect_fail "a codec calls into the queue" \
  'core/proto/cdb.c (layer 0, proto) calls pcam_q_touch of core/queue (layer 2)'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
