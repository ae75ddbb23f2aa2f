#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# freebsd.kmod: pcam.ko (core + hal/esp + hal/sym + hal/mpt + osshim/freebsd) compiled
# against FreeBSD 13.2's kmod sysroot with the kernel's own flags, -Werror
# and no diagnostic at all (osshim/freebsd/kmod_build.sh), then checked for
# what FreeBSD's kernel linker would refuse at kldload time:
#  - relocation types: link_elf_obj on amd64 applies R_X86_64_64, PC32,
#    PLT32, 32 and 32S to a module; a GOT-relative one (GOTPCREL,
#    REX_GOTPCRELX, what clang 14 emits for __stack_chk_guard) makes it
#    fail with "unexpected relocation type";
#  - every undefined symbol must be one the kernel defines (the sysroot's
#    kernel is the one the boot tests load the module into; memcpy and
#    memset are ifuncs there, nm type i);
#  - the module metadata (DRIVER_MODULE) is there, for both chips' strings.
# usage: kmod_check.sh PROJECT_SOURCE_DIR WORKDIR
set -eu
src=$1 work=$2
# The FreeBSD sysroot: CI's read-only copy beside the clone, else the
# machine's shared one.
fbsd=""
for d in "$src/../shared/freebsd" /work/shared/freebsd; do
  if [ -f "$d/kmod-sdk/cflags.txt" ]; then fbsd=$(cd "$d" && pwd); break; fi
done
[ -n "$fbsd" ] || { echo "FAIL: no FreeBSD sysroot at $src/../shared/freebsd or /work/shared/freebsd" >&2; exit 1; }
echo "sysroot: $fbsd"
NM=${NM:-llvm-nm-19} READELF=${READELF:-llvm-readelf-19}
sh "$src/osshim/freebsd/kmod_build.sh" "$fbsd/kmod-sdk" "$work"
ko=$work/pcam.ko
fail=0

"$READELF" -r "$ko" | awk '/R_X86_64_/ { print $3 }' | sort | uniq -c >"$work/reloc-types.txt"
echo "relocation types:"; cat "$work/reloc-types.txt"
bad=$(awk '$2 !~ /^R_X86_64_(64|PC32|PLT32|32|32S)$/ { print $2 }' "$work/reloc-types.txt")
if [ -n "$bad" ]; then
  echo "FAIL: relocations FreeBSD's kernel linker refuses: $bad" >&2
  "$READELF" -r "$ko" | grep 'R_X86_64_' | grep -vE 'R_X86_64_(64|PC32|PLT32|32|32S) ' | head -5 >&2
  fail=1
fi
grep -q 'R_X86_64_PC32' "$work/reloc-types.txt" || { echo "FAIL: no PC32 relocation at all?" >&2; fail=1; }
"$NM" -u "$ko" | awk '$1 == "U" { print $2 }' | sort >"$work/undef.txt"
"$NM" "$fbsd/kernel" | awk 'NF == 3 && $2 ~ /^[TtDdBbRrAWi]$/ { print $3 }' | sort -u >"$work/kernel-syms.txt"
missing=$(comm -23 "$work/undef.txt" "$work/kernel-syms.txt")
if [ -n "$missing" ]; then
  echo "FAIL: symbols the kernel does not define: $missing" >&2
  fail=1
fi
grep -qx '__stack_chk_guard' "$work/undef.txt" || { echo "FAIL: no stack protector in the module" >&2; fail=1; }
echo "$(wc -l <"$work/undef.txt") kernel symbols used, all defined by $fbsd/kernel"
"$READELF" -S "$ko" | grep -q 'set_modmetadata_set' || { echo "FAIL: no module metadata" >&2; fail=1; }
for s in "AMD Am53C974" "LSI " "53C895A" "SCSI (pcam)"; do
  grep -aqF "$s" "$ko" || { echo "FAIL: '$s' not in pcam.ko" >&2; fail=1; }
done
[ $fail -eq 0 ] && echo "PASS: pcam.ko links for FreeBSD 13.2"
exit $fail
