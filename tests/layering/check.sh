#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The core's layering and state ownership (docs/design.md, "Layers inside
# the core"), checked on the source text. What it checks, grep-level:
#  1. calls: a function called in a core/ folder's .c files that is defined
#     (at file scope, not static, or static inline in a folder's header) in
#     another folder must be defined in a LOWER layer; a call sideways or
#     upward fails. Calls through function pointers (the HAL, callbacks)
#     and macros are not seen.
#  2. includes, followed through every chain: no core/ file reaches, by any
#     chain of #include "..." / <...> lines that resolve inside core/ (the
#     including file's folder first, then core/include, as the compilers
#     search), a header of a higher or sibling folder, nor another folder's
#     private header (*_int.h, *_internal.h). core/include holds only layer
#     0's helpers (pcam_util.h) and counts as core/proto. The chain is
#     printed. Includes are read as text: one inside #if 0 counts too.
#  3. ownership: `->SUB.` of a pcam_bus sub-struct (eng, lad, q, scan, ev,
#     xpt) appears only in the folder that owns it (core/include: nowhere).
#     A write is an assignment, ++/--, or taking the address (&...->SUB.).
#  4. ownership of the per-LUN and per-target sub-structs (pcam_lun.q and
#     pcam_target.q: core/queue; pcam_lun.dev and pcam_target.dev:
#     core/common): a write (as in 3, or the first argument of memcpy /
#     memset / memmove) appears only in the owner folder. Reads are free:
#     the engine walks a LUN's lists. A LUN's q is told from the bus's q by
#     its field names (no field name is shared).
# It does not parse C: a write hidden behind a pointer alias (p = &bus->q;
# p->x = 1 is caught at the `&`) is what it catches; a cast is not.
# usage: check.sh [SOURCE_DIR]   (exit 1 and a line per violation;
# tests/layering/plant.sh shows each part failing on a planted violation)
set -eu
cd "${1:-$(dirname "$0")/../..}/core"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# layer of each folder: lower numbers are called by higher ones
layer() {
  case $1 in
    proto) echo 0 ;; common) echo 1 ;; queue|nego) echo 2 ;; retry) echo 3 ;;
    engine) echo 4 ;; xpt) echo 5 ;; include) echo 0 ;; *) echo -1 ;;
  esac
}
# owner folder of each sub-struct of pcam_bus
owner() {
  case $1 in
    eng|lad) echo engine ;; q) echo queue ;; scan|xpt) echo xpt ;; ev) echo common ;;
  esac
}
folders="proto common queue nego retry engine xpt"
# fields of pcam_lun_q / pcam_target_q (none shares a name with the bus's q)
LQ='pending|active|tags_in_use|hold_until_ns|next_seq|issue_count|age_fence|depth|ramp|active_untagged|freeze|next_tag'

# 1. definitions: name folder
for d in $folders; do
  for f in "$d"/*.c; do
    [ -e "$f" ] || continue
    sed -n 's/^[A-Za-z_][A-Za-z0-9_ *]*[ *]\(pcam_[A-Za-z0-9_]*\)(.*/\1/p' "$f" |
      grep -v '^$' | sed "s|\$| $d|"
  done
  for h in "$d"/*.h; do
    [ -e "$h" ] || continue
    sed -n 's/^static inline [A-Za-z0-9_ *]*[ *]\(pcam_[A-Za-z0-9_]*\)(.*/\1/p' "$h" | sed "s|\$| $d|"
  done
done | sort -u > "$tmp/defs"
# core/include's inlines are layer 0's (core/proto's)
sed -n 's/^static inline [A-Za-z0-9_ *]*[ *]\(pcam_[A-Za-z0-9_]*\)(.*/\1 proto/p' include/*.h |
  sort -u > "$tmp/defs0"
sort -u "$tmp/defs" "$tmp/defs0" > "$tmp/defs1" && mv "$tmp/defs1" "$tmp/defs"
grep -v '^static' "$tmp/defs" > /dev/null || true

fail=0
for d in $folders; do
  ld=$(layer "$d")
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] || continue
    # comments out (one-line and block), then every identifier followed by "("
    sed -e 's|/\*.*\*/||g' "$f" | awk '/\/\*/ { c = 1 } !c { print } /\*\// { c = 0 }' |
      grep -o 'pcam_[A-Za-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u > "$tmp/calls"
    join "$tmp/calls" "$tmp/defs" | while read -r fn where; do
      [ "$where" = "$d" ] && continue
      lw=$(layer "$where")
      if [ "$lw" -ge "$ld" ]; then
        echo "layering: core/$f (layer $ld, $d) calls $fn of core/$where (layer $lw)"
      fi
    done
  done
done > "$tmp/out1"

# 2. includes, transitively. Edges first: "file kind name" for every
# #include line of every core/ file, then resolved and walked in awk.
find . -name '*.[ch]' | sed 's|^\./||' | sort > "$tmp/files"
while read -r f; do
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<]\)\([^">]*\)[">].*/\1 \2/p' "$f" |
    sed "s|^|$f |"
done < "$tmp/files" > "$tmp/incs"
awk -v lp="$(for d in $folders include; do printf '%s=%s ' "$d" "$(layer "$d")"; done)" '
  function norm(p,   n, a, i, o, k) {
    n = split(p, a, "/"); k = 0
    for (i = 1; i <= n; i++) {
      if (a[i] == "." || a[i] == "") continue
      if (a[i] == ".." && k > 0 && o[k] != "..") { k--; continue }
      o[++k] = a[i]
    }
    p = ""; for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") o[i]
    return p
  }
  function folder(p,   d) { d = p; sub(/\/.*/, "", d); return d == "include" ? "proto" : d }
  function lay(p,   d) { d = p; sub(/\/.*/, "", d); return (d in L) ? L[d] : -1 }
  function private(p) { return p ~ /_(int|internal)\.h$/ }
  BEGIN { n = split(lp, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); L[kv[1]] = kv[2] + 0 } }
  FILENAME == ARGV[1] { have[$0] = 1; next }
  {
    f = $1; kind = $2; inc = $3; dir = f; sub(/\/[^\/]*$/, "", dir)
    r = ""
    if (kind == "\"" && (norm(dir "/" inc) in have)) r = norm(dir "/" inc)
    else if (norm("include/" inc) in have) r = norm("include/" inc)
    if (r != "" && r != f) { e[f] = e[f] " " r }
  }
  END {
    for (f in have) {
      # breadth first from f, remembering how each header was reached
      delete via; delete seen; head = 0; tail = 0; q[tail++] = f; seen[f] = 1
      while (head < tail) {
        c = q[head++]; m = split(e[c], nx, " ")
        for (i = 1; i <= m; i++) if (!(nx[i] in seen)) { seen[nx[i]] = 1; via[nx[i]] = c; q[tail++] = nx[i] }
      }
      for (r in seen) {
        if (r == f || folder(r) == folder(f)) continue
        why = ""
        if (lay(f) < 0 || lay(r) < 0) why = "a folder outside the layer table"
        else if (lay(r) >= lay(f)) why = "layer " lay(r) (lay(r) == lay(f) ? ", a sibling" : ", above it")
        else if (private(r)) why = "another folder'"'"'s private header"
        if (why == "") continue
        chain = "core/" r; c = r
        while (via[c] != f) { c = via[c]; chain = "core/" c " -> " chain }
        printf "layering: core/%s (layer %d) reaches core/%s (%s): core/%s -> %s\n", f, lay(f), r, why, f, chain
      }
    }
  }' "$tmp/files" "$tmp/incs" | sort > "$tmp/outi"
cat "$tmp/outi" >> "$tmp/out1"

# 3. ownership of the pcam_bus sub-structs
for f in */*.c */*.h; do
  d=${f%%/*}
  # a LUN's or target's q is part 4's
  sed -E "s/->q\.($LQ)\b/->lunq_\1/g" "$f" | grep -n -- '->\(eng\|lad\|q\|scan\|ev\|xpt\)\.' | while IFS= read -r line; do
    for sub in $(echo "$line" | grep -o -- '->\(eng\|lad\|q\|scan\|ev\|xpt\)\.' | sed 's/->//; s/\.//' | sort -u); do
      own=$(owner "$sub")
      [ "$own" = "$d" ] && continue
      write=$(echo "$line" | grep -c -e "->$sub\.[A-Za-z0-9_.]*\(\[[^]]*\]\)*[[:space:]]*\([-+*/|&^]\?=[^=]\|++\|--\)" \
                                    -e "\(++\|--\|&\)[A-Za-z0-9_]*->$sub\." || true)
      if [ "$write" -gt 0 ]; then
        echo "ownership: core/$f writes bus->$sub (owned by core/$own): ${line#*:}"
      else
        echo "ownership: core/$f reads bus->$sub (owned by core/$own) without an accessor: ${line#*:}"
      fi
    done
  done
done > "$tmp/out2"

# 4. ownership of pcam_lun / pcam_target's q and dev: writes only
for f in */*.c */*.h; do
  d=${f%%/*}
  for sub in q dev; do
    case $sub in q) own=queue; fld="($LQ)" ;; dev) own=common; fld='[A-Za-z_]+' ;; esac
    [ "$own" = "$d" ] && continue
    acc="(->|\]\.)$sub\.$fld\b"
    grep -n -E -e "$acc[A-Za-z0-9_.]*(\[[^]]*\])*[[:space:]]*([-+*/|&^]?=[^=]|\+\+|--)" \
               -e "(\+\+|--|&)[A-Za-z0-9_>.()-]*(\[[^]]*\])*$acc" \
               -e "mem(cpy|set|move)\([^,]*$acc" "$f" |
      sed "s|^|ownership: core/$f writes a LUN's or target's $sub (owned by core/$own): |"
  done
done > "$tmp/out3"

cat "$tmp/out1" "$tmp/out2" "$tmp/out3"
n=$(cat "$tmp/out1" "$tmp/out2" "$tmp/out3" | wc -l)
checked=$(wc -l < "$tmp/defs")
if [ "$n" -ne 0 ]; then
  echo "FAIL: $n layering/ownership violations (checked $checked core functions)"
  exit 1
fi
echo "ok: core/ layering (calls, and includes along every chain: $(wc -l < "$tmp/incs") #include lines) and pcam_bus, pcam_lun and pcam_target ownership hold ($checked functions mapped to folders)"
