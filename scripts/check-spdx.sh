#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Fails when a source or build file lacks its SPDX licence line. Every file
# pcam ships goes into FreeBSD, EDK2-based firmware and a "Dual BSD/GPL"
# Linux module, so each must say its licence in its first lines.
# usage: scripts/check-spdx.sh [SOURCE_DIR]
# Which files count: code and build files by name (C, headers, assembler,
# shell, CMake, Kbuild/Makefiles, linker scripts, .def/.inf, awk, Tcl,
# Python, fuzz dictionaries, templates). Prose (.md), data (.json, .txt,
# images) and fuzz corpora carry no comment syntax and are not checked.
set -eu
cd "${1:-$(dirname "$0")/..}"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list() { git ls-files --cached --others --exclude-standard; }
else
  list() { find . -type f ! -path './build/*' ! -path './.git/*' | sed 's|^\./||'; }
fi
bad=0 n=0
for f in $(list); do
  [ -f "$f" ] || continue
  case "$f" in
    fuzz/corpus/*) continue ;;
    *.c|*.h|*.S|*.s|*.sh|*.cmake|*.in|*.awk|*.tcl|*.py|*.dict|*.def|*.inf|*.lds|*.nsh) ;;
    */CMakeLists.txt|CMakeLists.txt|*/Makefile|Makefile|*/Kbuild|Kbuild|.ci/run|*/gtkwaverc) ;;
    *) continue ;;
  esac
  n=$((n + 1))
  if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: BSD-2-Clause'; then
    echo "check-spdx: $f: no 'SPDX-License-Identifier: BSD-2-Clause' in its first 3 lines" >&2
    bad=$((bad + 1))
  fi
done
if [ "$n" -eq 0 ]; then echo "check-spdx: no files found to check" >&2; exit 1; fi
if [ "$bad" -ne 0 ]; then echo "check-spdx: $bad of $n files lack the SPDX line" >&2; exit 1; fi
echo "check-spdx: all $n source and build files carry SPDX-License-Identifier: BSD-2-Clause"
