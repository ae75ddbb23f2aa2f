#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# docs.names: every pcam name the documentation promises exists in the code.
#
# The names checked: each pcam_... or PCAM_... name inside backticks in
# docs/*.md and README.md, and each such name anywhere in the comments of
# the installed headers (include/pcam, hal/sim, aspi/include). The code they
# must be found in: the tree's C sources and headers with their comments
# stripped (the compiler's preprocessor does it, so a comment cannot vouch
# for a name) and its CMake and shell files without their comment lines
# (build options, targets, CMake functions).
#
#   pcam_x()             a name
#   PCAM_CFG_* pcam_y_*  a prefix: some name must start with it
#   pcam_<chip>, mychip  a placeholder or the guide's example: not checked
#   pcam_sim.h, pcam_lx.ko   a file: a file of that name, or a target or
#                        name of that stem, must exist
#   pcam_x::y            the type pcam_x and a member or name y
#
# usage: names_check.sh SRC_DIR WORK_DIR CC
set -eu
src=$1 work=$2 cc=$3
rm -rf "$work"; mkdir -p "$work"
cd "$src"

# ---- the code's names
files=$(find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||')
: >"$work/code.txt"
for f in $files; do
  case $f in
    *.c | *.h)
      "$cc" -fpreprocessed -dD -E -P -w "$f" 2>/dev/null >>"$work/code.txt" ||
        cat "$f" >>"$work/code.txt" ;;
    *CMakeLists.txt | *.cmake | *.cmake.in | *.pc.in | *.sh | *.json | *.def)
      sed -e 's/^[[:space:]]*#.*//' "$f" >>"$work/code.txt" ;;
  esac
done
grep -oE '[A-Za-z_][A-Za-z0-9_]*' "$work/code.txt" | sort -u >"$work/names.txt"
for f in $files; do basename "$f"; done | sort -u >"$work/basenames.txt"

# ---- the names the documentation promises, as "where<TAB>token<TAB>rest"
: >"$work/promised.txt"
for f in docs/*.md README.md; do
  # Backticked spans, one per line, with the file and line they are on.
  awk -v f="$f" '{
      line = $0
      while (match(line, /`[^`]+`/)) {
        print f ":" NR "\t" substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, RSTART + RLENGTH)
      }
    }' "$f" >>"$work/promised.txt"
done
for f in include/pcam/*.h hal/sim/pcam_sim.h hal/sim/sim_lu.h aspi/include/*.h; do
  # Comment text only (block and line comments), with its line number.
  awk -v f="$f" '{
      line = $0; out = ""
      while (line != "") {
        if (inc) {
          e = index(line, "*/")
          if (e == 0) { out = out " " line; line = "" }
          else { out = out " " substr(line, 1, e - 1); line = substr(line, e + 2); inc = 0 }
        } else {
          b = index(line, "/*"); l = index(line, "//")
          if (l > 0 && (b == 0 || l < b)) { out = out " " substr(line, l + 2); line = "" }
          else if (b > 0) { line = substr(line, b + 2); inc = 1 }
          else line = ""
        }
      }
      if (out != "") print f ":" NR "\t" out
    }' "$f" >>"$work/promised.txt"
done

# ---- resolve
bad=0 checked=0
while IFS='	' read -r where text; do
  # Each pcam name in the span, with what follows it (a "*", "<", ".h",
  # "::member").
  for tok in $(printf '%s\n' "$text" |
               grep -oE '(pcam|PCAM)_[A-Za-z0-9_]*(\*|<|\.[a-z]+|::[A-Za-z_][A-Za-z0-9_]*)?' || true); do
    case $tok in
      *mychip* | *MYCHIP* | *myshim* | *MYSHIM* | *'<') continue ;; # examples, placeholders
    esac
    checked=$((checked + 1))
    case $tok in
      *'*')
        p=${tok%\*}
        grep -q "^$p" "$work/names.txt" && continue ;;
      *::*)
        t=${tok%%::*} m=${tok#*::}
        grep -qx "$t" "$work/names.txt" && grep -qx "$m" "$work/names.txt" && continue ;;
      *.*)
        stem=${tok%%.*}
        { grep -qx "$tok" "$work/basenames.txt" || grep -qx "$stem" "$work/names.txt"; } && continue ;;
      *)
        grep -qx "$tok" "$work/names.txt" && continue ;;
    esac
    echo "$where: \`$tok\` is not in the code" >&2
    bad=$((bad + 1))
  done
done <"$work/promised.txt"
[ "$checked" -gt 500 ] || { echo "FAIL: only $checked names found to check; the extraction is broken" >&2; exit 1; }
if [ "$bad" -gt 0 ]; then
  echo "FAIL: $bad documented names (of $checked) do not exist" >&2
  exit 1
fi
echo "docs.names: $checked documented pcam names, each found in the code"
