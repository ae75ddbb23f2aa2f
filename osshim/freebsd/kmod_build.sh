#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Build pcam.ko (core + hal/esp + hal/sym + hal/mpt + this shim) on Linux against a
# FreeBSD kmod sysroot (../shared/freebsd/kmod-sdk: the kernel's headers,
# the generated *_if.h, opt_*.h, cflags.txt = the exact flags bsd.kmod.mk
# passed, ldscript.kmod.amd64), linked as bsd.kmod.mk links a module:
# ld -r with the kmod linker script, every global made local
# (EXPORT_SYMS=NO), debug info stripped. The FreeBSD Makefile beside this
# script is the same build on a FreeBSD machine.
#
# Compiler: Debian's clang-19/ld.lld-19, not clang 14. Clang 14 leaves the
# stack protector's __stack_chk_guard non-dso_local for FreeBSD targets and
# reaches it through the GOT (R_X86_64_REX_GOTPCRELX), which FreeBSD 13.2's
# kernel linker refuses; no flag changes that (-fno-pic, -fno-pie,
# -fdirect-access-external-data, -mstack-protector-guard=global and
# -mcmodel=kernel were tried, the relocation stays), while clang 19 emits a
# plain R_X86_64_PC32. The stack protector stays on, as the kernel has it.
#
# usage: kmod_build.sh SDK OUTDIR [NAME SOURCE...]
# (NAME and its sources: another module with the same flags, e.g. the FreeBSD
# boots' test module tests/freebsd/guest/abortmod.c; default pcam.ko.)
# env: CC (clang-19), LD (ld.lld-19), OBJCOPY (llvm-objcopy-19), NM (llvm-nm-19)
# Prints every compiler diagnostic and fails on any, warnings included.
set -eu
sdk=$(cd "$1" && pwd)
out=$2
name=pcam
if [ $# -gt 2 ]; then
  name=$3
  shift 3
  srcs=""
  for s in "$@"; do srcs="$srcs $(cd "$(dirname "$s")" && pwd)/$(basename "$s")"; done
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-clang-19} LD=${LD:-ld.lld-19}
OBJCOPY=${OBJCOPY:-llvm-objcopy-19} NM=${NM:-llvm-nm-19}
for t in "$CC" "$LD" "$OBJCOPY" "$NM"; do
  command -v "$t" >/dev/null 2>&1 || { echo "kmod_build: $t missing (scripts/deps.sh freebsd installs it)" >&2; exit 1; }
done
[ -f "$sdk/cflags.txt" ] || { echo "kmod_build: $sdk/cflags.txt missing" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out"
rm -rf obj "$name.ko" machine x86 ./*_if.h
mkdir obj
# bsd.kmod.mk's machine/ and x86/ links, and the generated interface headers.
ln -s "$sdk/src/sys/amd64/include" machine
ln -s "$sdk/src/sys/x86/include" x86
cp "$sdk"/gen/*.h .
# cflags.txt: one argument a line, with the sysroot's and our paths as
# placeholders. hal/sym's and hal/mpt's private headers are found beside their sources.
sed -e "s|@KERN@|$sdk/kernbuild|g" -e "s|@SYS@|$sdk/src/sys|g" -e "s|@PCAM@|$top|g" \
  "$sdk/cflags.txt" >cflags.args
printf '%s\n' "-I$top/hal/sym" "-I$top/hal/mpt" >>cflags.args

# The same sources as the Makefile: the glue, the translator, core/ and
# both back-ends, whole folders.
if [ $name = pcam ]; then
  srcs="$top/osshim/freebsd/pcam_fbsd_kmod.c $top/osshim/freebsd/fbsd_xlate.c"
  for d in core/proto core/common core/xpt core/queue core/nego core/retry core/engine hal/esp hal/sym hal/mpt; do
    srcs="$srcs $(ls "$top/$d"/*.c)"
  done
fi
fail=0
objs=""
for s in $srcs; do
  o=obj/$(echo "${s#"$top"/}" | tr / _ | sed 's/\.c$/.o/')
  # xargs keeps each line of cflags.args one argument.
  if ! tr '\n' '\0' <cflags.args | xargs -0 sh -c '"$0" "$@" -c "'"$s"'" -o "'"$o"'"' "$CC" \
       >obj/diag.txt 2>&1; then
    fail=1
  fi
  if [ -s obj/diag.txt ]; then
    cat obj/diag.txt
    fail=1
  fi
  objs="$objs $o"
done
[ $fail -eq 0 ] || { echo "kmod_build: compiler errors or warnings (above)" >&2; exit 1; }
# shellcheck disable=SC2086
"$LD" -m elf_x86_64_fbsd -d -warn-common --build-id=sha1 \
  -T "$sdk/src/sys/conf/ldscript.kmod.amd64" -r -o "$name.ko" $objs
# EXPORT_SYMS=NO (kmod_syms.awk): every defined global becomes local.
args=$("$NM" -g "$name.ko" | awk '$2 !~ /^[AU]$/ && NF == 3 { print ($2 == "C" ? "-N" : "-L") $3 }')
# shellcheck disable=SC2086
[ -z "$args" ] || "$OBJCOPY" $args "$name.ko"
"$OBJCOPY" --strip-debug "$name.ko"
echo "kmod_build: $out/$name.ko ($(wc -c <"$name.ko") bytes) with $CC"
