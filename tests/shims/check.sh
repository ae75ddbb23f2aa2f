#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# lint.shims: the shims only translate (docs/design.md, rule 2; issue 27).
#
# In the code of every shim (osshim/*/ and aspi/, comments stripped by the
# preprocessor so that prose may name what the code must not do), fail on:
#  - a read of INQUIRY bytes (an "inquiry[...]" or "inq[...]" subscript):
#    whether a LUN is tagged, and what it is, is the core's to say
#    (pcam_lun_tagged(), PCAM_FN_GET_DEV for the host's own tables);
#  - a number the core did not give on a line that sets a timeout, a retry
#    budget, a queue depth or openings, or a wait on the core's recovery:
#    those are the core's policies (pcam.h, "Policies for a host"), and a
#    shim uses them or passes on the host's own value.
# Each rule is also run on a sample of what it must catch, so that the check
# cannot pass by matching nothing.
# usage: check.sh SRC_DIR WORK_DIR CC
set -eu
src=$1 work=$2 cc=$3
rm -rf "$work"; mkdir -p "$work"

inquiry_re='(inquiry|inq)[A-Za-z0-9_]*[[:space:]]*\['
policy_re='(timeout|retries|retry|depth|openings|cmd_per_lun)'
number_re='(^|[^a-z0-9_.])[1-9][0-9]*([^a-z0-9_.]|$)'
# A retry budget of 0 is a number too: the host's "I retry" is PCAM_HOST_RETRIES.
retries0_re='retries[[:space:]]*=[[:space:]]*0([^a-z0-9_.x]|$)'

# strip FILE OUT: the code without comments, one line per source line kept
strip() {
  "$cc" -fpreprocessed -dD -E -P -w "$1" >"$2" 2>/dev/null || cp "$1" "$2"
}
# scan FILE LABEL: print the offending lines, return 1 when any
scan() {
  awk -v f="$2" -v inq="$inquiry_re" -v pol="$policy_re" -v num="$number_re" -v r0="$retries0_re" '
    /^#include/ { next }
    { gsub(/"([^"\\]|\\.)*"/, "\"\"") } # string literals: messages, not policy
    { l = tolower($0) }
    l ~ inq { print f ": reads INQUIRY bytes: " $0; bad = 1 }
    l ~ pol && (l ~ num || l ~ r0) { print f ": a number of its own for a core policy: " $0; bad = 1 }
    END { exit bad }' "$1"
}

# The rules catch what they are for (the Linux shim's old lines).
cat >"$work/sample.c" <<'EOT'
tag = d.inquiry_len > 7 && (d.inquiry[7] & 0x02) != 0;
ccb->timeout_ms = to_ms * 3 + 30000;
return scsi_change_queue_depth(sdev, 2);
return 4 * h->bus.cfg.abort_timeout_ms + h->bus.cfg.reset_settle_ms + 2000;
io->retries = 0;
#define PLX_UNTAGGED_DEPTH 2
EOT
n=$(scan "$work/sample.c" sample 2>/dev/null | wc -l || true)
[ "$n" -eq 6 ] || { echo "FAIL: the rules caught $n of the 6 sample lines" >&2; exit 1; }

# The shims proper: not osshim/posix (the host userspace platform the tests
# and tools run on, whose waits are its own), nor test programs.
files=$(cd "$src" && find osshim aspi -name '*.c' ! -path '*/compat/*' ! -path '*/tests/*' \
          ! -path 'osshim/posix/*' | sort)
[ -n "$files" ] || { echo "FAIL: no shim sources found" >&2; exit 1; }
fail=0 count=0
for f in $files; do
  out=$work/$(echo "$f" | tr / _)
  strip "$src/$f" "$out"
  scan "$out" "$f" || fail=1
  count=$((count + 1))
done
[ $fail -eq 0 ] || { echo "FAIL: a shim decides what the core should (lines above)" >&2; exit 1; }
echo "lint.shims: $count shim sources read no INQUIRY bytes and invent no policy numbers"
