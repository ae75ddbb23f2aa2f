#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CTest packages.build (label packages): pcam as a Debian user meets it.
#  1. dpkg-buildpackage -us -uc -b on a copy of the source tree (the tree
#     itself is never written to: its debian/ and obj-* checked with git);
#     the five packages, each at the version of include/pcam/pcam_version.h;
#  2. lintian with no error and no warning on every package (.changes);
#  3. the packages unpacked into a scratch root (dpkg -x), and from there
#     alone: tests/consumer built with find_package(pcam) and with plain
#     pkg-config and run; tests/abi/abi_use.c built with the library's
#     configuration (works) and with another (PCAM_ERR_ABI, nothing written);
#  4. one version everywhere: the packages, pkg-config, CMake, pcamctl
#     --version, the UEFI driver's COMPONENT_NAME2 name, dkms.conf, the
#     DKMS-built module's modinfo, the FreeBSD port (and its pkg-plist
#     against the packages' files);
#  5. dkms add/build/install of pcam-dkms's sources for the kernel the Linux
#     boot test boots (linux-headers-amd64's, tests/linux/vm_lib.sh), in a
#     scratch DKMS tree; a kernel with no headers gets DKMS's own error, and
#     dpkg -i pcam-dkms with no headers (in a mount namespace over scratch
#     copies) leaves the package configured with DKMS's message.
# It leaves WORK/pcam.ko, the DKMS-built module: linux.boot boots it
# (tests/linux/CMakeLists.txt: fixture pcam_packages).
# usage: test_packages.sh SOURCE_DIR WORK_DIR
set -eu
SRC=$(cd "$1" && pwd)
WORK=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "packages: $*"; }
t0=$(date +%s)
# dpkg -i and DKMS run in mount namespaces over scratch copies (below).
[ "$(id -u)" -eq 0 ] || fail "run as root: the DKMS and dpkg -i checks need mount namespaces"
rm -rf "$WORK"; mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
VER=$(sed -n 's/^#define PCAM_VERSION_STRING "\(.*\)"$/\1/p' "$SRC/include/pcam/pcam_version.h")
[ -n "$VER" ] || fail "no PCAM_VERSION_STRING in include/pcam/pcam_version.h"
# What an in-tree dpkg-buildpackage would leave (debian/tmp, debian/files,
# obj-*, ...): the build runs on a copy, so none of it may appear here.
git_state() { git -C "$SRC" status --porcelain --ignored -- debian 'obj-*' 2>/dev/null || true; }
before=$(git_state)

# ---- 1. build from a copy
B=$WORK/build
mkdir -p "$B/pcam-$VER"
tar -C "$SRC" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude='./obj-*' \
    --exclude=./debian/tmp -cf - . | tar -C "$B/pcam-$VER" -xf -
(cd "$B/pcam-$VER" && dpkg-buildpackage -us -uc -b -j2) > "$WORK/build.log" 2>&1 ||
  { tail -40 "$WORK/build.log"; fail "dpkg-buildpackage failed (log: $WORK/build.log)"; }
[ "$(git_state)" = "$before" ] || fail "building the packages changed the source tree"
arch=$(dpkg --print-architecture)
for p in libpcam-dev_${VER}_$arch pcamctl_${VER}_$arch pcam-dkms_${VER}_all \
         pcam-efi_${VER}_$arch pcam-win32_${VER}_all; do
  [ -f "$B/$p.deb" ] || { ls "$B" >&2; fail "$p.deb was not built"; }
done
log "built in $(($(date +%s) - t0)) s: $(cd "$B" && ls ./*.deb | tr '\n' ' ')"

# ---- 2. lintian (no override: docs/releasing.md)
lintian --fail-on error,warning --tag-display-limit 0 "$B/pcam_${VER}_$arch.changes" \
  > "$WORK/lintian.log" 2>&1 || { cat "$WORK/lintian.log"; fail "lintian found errors or warnings"; }
grep -E '^[EW]: ' "$WORK/lintian.log" && fail "lintian: errors or warnings"
log "lintian: no error, no warning ($(grep -c '^[IPX]: ' "$WORK/lintian.log" || true) info/pedantic tags)"

# ---- 3. the scratch root, and programs built from it only
R=$WORK/root
for d in "$B"/*.deb; do dpkg -x "$d" "$R"; done
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PCDIR=$R/usr/lib/$ma/pkgconfig
[ -f "$PCDIR/pcam-core.pc" ] || fail "libpcam-dev has no pcam-core.pc"
C=$WORK/consumer
cmake -S "$SRC/tests/consumer" -B "$C/cmake" -DCMAKE_PREFIX_PATH="$R/usr" > "$C.cmake.log" 2>&1 ||
  { cat "$C.cmake.log"; fail "tests/consumer does not configure against libpcam-dev"; }
cmake --build "$C/cmake" > "$C.build.log" 2>&1 || { cat "$C.build.log"; fail "tests/consumer does not build"; }
comps="core esp aspi sim"
"$C/cmake/consumer" > /dev/null || fail "consumer (find_package) failed"
for c in $comps; do "$C/cmake/consumer_$c" > /dev/null || fail "consumer_$c (find_package) failed"; done
pc() { PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$PCDIR pkg-config "$@"; }
# shellcheck disable=SC2046
cc -std=c99 "$SRC/tests/consumer/main.c" -o "$C/pc-consumer" $(pc --cflags --libs pcam) &&
  "$C/pc-consumer" > /dev/null || fail "consumer (pkg-config pcam) failed"
for c in $comps; do
  # shellcheck disable=SC2046
  cc -std=c99 "$SRC/tests/consumer/use_$c.c" -o "$C/pc-$c" $(pc --cflags --libs "pcam-$c") &&
    "$C/pc-$c" > /dev/null || fail "consumer pcam-$c (pkg-config) failed"
done
abi() { # name expect reason flags...
  n=$1 e=$2 r=$3; shift 3
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Wextra -Werror "$@" "$SRC/tests/abi/abi_use.c" -o "$C/$n" \
     $(pc --cflags --libs pcam-core) || fail "abi_use ($n) does not build"
  "$C/$n" "$e" > "$C/$n.out" 2>&1 || { cat "$C/$n.out"; fail "abi_use $e ($n)"; }
  [ -z "$r" ] || grep -qF "$r" "$C/$n.out" || { cat "$C/$n.out"; fail "$n: no \"$r\""; }
}
abi abi-match ok ""
abi abi-8-targets abi "PCAM_CFG_MAX_TARGETS: caller 8, library 16" -DPCAM_CFG_MAX_TARGETS=8
log "consumer: $comps built and run from the packages (find_package and pkg-config);" \
    "another configuration gets PCAM_ERR_ABI"

# ---- 5. DKMS, for the kernel tests/linux boots
KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
  sed -E 's/.*linux-headers-([0-9][^ ,]*-amd64).*/\1/')
[ -n "$KVER" ] && [ -d "/usr/src/linux-headers-$KVER" ] ||
  fail "linux-headers-amd64 is not installed (scripts/deps.sh linux)"
D=$WORK/dkms
mkdir -p "$D/tree" "$D/inst/$KVER" "$D/varlib" "$D/modules/$KVER"
# DKMS keeps its module-signing key in /var/lib/dkms and runs depmod on
# /lib/modules/KVER whatever the trees: scratch ones there too, in a mount
# namespace, so the host's stay untouched.
dk() {
  unshare -m --propagation private sh -c \
    'mount --bind "$1" /var/lib/dkms && mount --bind "$2" /lib/modules && shift 2 && exec dkms "$@"' \
    sh "$D/varlib" "$D/modules" "$@" -m pcam -v "$VER" --dkmstree "$D/tree" --sourcetree "$R/usr/src" --installtree "$D/inst"
}
dk add > "$D.log" 2>&1 || { cat "$D.log"; fail "dkms add"; }
dk build -k "$KVER" --kernelsourcedir "/usr/src/linux-headers-$KVER" >> "$D.log" 2>&1 ||
  { cat "$D.log"; cat "$D"/tree/pcam/"$VER"/build/make.log 2>/dev/null; fail "dkms build for $KVER"; }
dk install -k "$KVER" >> "$D.log" 2>&1 || { cat "$D.log"; fail "dkms install for $KVER"; }
KO=$(find "$D/inst/$KVER" -name 'pcam.ko*' | head -1)
[ -n "$KO" ] || { cat "$D.log"; fail "dkms install put no pcam.ko under $D/inst/$KVER"; }
dk status | grep -q "pcam/$VER, $KVER, .*: installed" || { dk status; fail "dkms status: not installed"; }
[ "$(modinfo -F vermagic "$KO" | awk '{print $1}')" = "$KVER" ] || fail "DKMS's pcam.ko is not for $KVER"
cp "$KO" "$WORK/pcam.ko"
# No headers for a kernel: DKMS's own error, and nothing built.
if dk build -k 0.0.0-noheaders > "$D.noheaders.log" 2>&1; then fail "dkms build with no kernel headers succeeded"; fi
grep -q 'Your kernel headers for kernel 0.0.0-noheaders cannot be found' "$D.noheaders.log" ||
  { cat "$D.noheaders.log"; fail "dkms did not say the headers are missing"; }
log "dkms: pcam/$VER built and installed for $KVER; with no headers: $(grep -o 'Your kernel headers.*found' "$D.noheaders.log")"
# dpkg -i pcam-dkms on a system with a kernel but no headers for it, in a
# mount namespace whose dpkg database, DKMS tree, /usr/src, /lib/modules,
# docs and dpkg log are scratch copies (the host's stay untouched): DKMS's
# postinst says why it built nothing, and the package is configured.
N=$WORK/noheaders
mkdir -p "$N/dpkg" "$N/dkms" "$N/src" "$N/modules/$KVER" "$N/doc"
cp -a /var/lib/dpkg/. "$N/dpkg/"
: > "$N/dpkg.log"
unshare -m --propagation private sh -eu -c '
  N=$1
  mount --bind "$N/dpkg" /var/lib/dpkg
  mkdir -p /var/lib/dkms && mount --bind "$N/dkms" /var/lib/dkms
  mount --bind "$N/src" /usr/src
  mount --bind "$N/modules" /lib/modules
  mount --bind "$N/doc" /usr/share/doc
  [ ! -e /var/log/dpkg.log ] || mount --bind "$N/dpkg.log" /var/log/dpkg.log
  dpkg -i "$2"
  echo "status: $(dpkg-query -W -f="\${Status}" pcam-dkms)"' sh "$N" "$B/pcam-dkms_${VER}_all.deb" \
  > "$N.log" 2>&1 || { cat "$N.log"; fail "dpkg -i pcam-dkms with no kernel headers failed"; }
grep -q 'kernel headers for this kernel do not seem to be installed' "$N.log" ||
  { cat "$N.log"; fail "pcam-dkms's postinst did not say the headers are missing"; }
grep -q '^status: install ok installed$' "$N.log" || { cat "$N.log"; fail "pcam-dkms is not configured"; }
[ ! -e "/usr/src/pcam-$VER" ] || fail "the scratch install reached the host's /usr/src"
log "dpkg -i pcam-dkms with no headers: $(grep -o 'kernel headers for this kernel do not seem to be installed' "$N.log"); package configured"

# ---- 4. one version
v() { [ "$2" = "$VER" ] && log "version: $1 $2" || fail "version: $1 says '$2', pcam_version.h $VER"; }
for d in "$B"/*.deb; do v "$(basename "$d" | cut -d_ -f1) package" "$(dpkg-deb -f "$d" Version)"; done
v "pkg-config pcam-core" "$(pc --modversion pcam-core)"
v "CMake pcam_VERSION" "$(sed -n 's/.*PACKAGE_VERSION "\(.*\)".*/\1/p' "$R"/usr/lib/"$ma"/cmake/pcam/pcamConfigVersion.cmake | head -1)"
v "pcamctl --version" "$("$R/usr/bin/pcamctl" --version | sed -n 's/^pcamctl \([^ ]*\) .*/\1/p')"
v "dkms.conf" "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$R/usr/src/pcam-$VER/dkms.conf")"
v "modinfo pcam.ko (DKMS)" "$(modinfo -F version "$KO")"
v "pcamscsi.efi COMPONENT_NAME2" "$(strings -el "$R/usr/lib/pcam/efi/pcamscsi.efi" |
  sed -n 's/^pcam SCSI pass-thru driver .* \([0-9.]*\)$/\1/p')"
# pcam-efi's option ROMs: each holds the packaged pcamscsi.efi, compressed
# (tests/uefi/efi_decompress.py, a decoder apart from the encoder), for its
# vendor and device.
for r in am53c974:0x1022:0x2020 53c895a:0x1000:0x0012; do
  python3 - "$SRC/tests/uefi" "$R/usr/lib/pcam/efi" "$r" <<'PY' || fail "pcam-efi: option ROM ${r%%:*}"
import struct, sys
sys.path.insert(0, sys.argv[1])
import efi_decompress
name, ven, dev = sys.argv[3].split(":")
rom = open("%s/pcamscsi-%s.rom" % (sys.argv[2], name), "rb").read()
efi = open("%s/pcamscsi.efi" % sys.argv[2], "rb").read()
h = struct.unpack_from("<HHIHHH", rom, 0)
assert (h[0], h[2], h[5]) == (0xAA55, 0x0EF1, 1), "ROM/EFI signature, compression"
pcir = struct.unpack_from("<H", rom, 0x18)[0]
assert rom[pcir:pcir + 4] == b"PCIR" and struct.unpack_from("<HH", rom, pcir + 4) == (int(ven, 16), int(dev, 16)), "PCIR IDs"
assert efi_decompress.decompress(rom[struct.unpack_from("<H", rom, 0x16)[0]:]) == efi, "image differs"
PY
done
log "pcam-efi: both option ROMs hold the packaged pcamscsi.efi, compressed, for their IDs"
PORT=$SRC/packaging/freebsd/sysutils/pcam
v "FreeBSD port" "$(sed -n 's/^DISTVERSION=[[:space:]]*//p' "$PORT/Makefile")"
# The port's plist: the files libpcam-dev and pcamctl install, FreeBSD's way.
sh "$SRC/packaging/freebsd/plist.sh" "$B/libpcam-dev_${VER}_$arch.deb" "$B/pcamctl_${VER}_$arch.deb" > "$WORK/pkg-plist"
diff "$PORT/pkg-plist" "$WORK/pkg-plist" ||
  fail "packaging/freebsd/sysutils/pcam/pkg-plist is not what the packages install (plist.sh regenerates it)"
log "FreeBSD port: pkg-plist lists the packages' $(wc -l < "$WORK/pkg-plist") files (the port itself is not built here)"
log "$(($(date +%s) - t0)) s in all"
