# SPDX-License-Identifier: BSD-2-Clause
# Shared by tests/linux and bench/linux-vs-*.sh (sourced, POSIX sh):
# fetch Debian's kernel image matching linux-headers-amd64 from Debian's
# archive into a cache outside the source tree, unpack its PVH vmlinux,
# build pcam.ko against the headers (W=1, any warning fails), and build
# a busybox initramfs with the guest tools and the libraries they need.
# It never touches the source tree and never pins a kernel version.
#
# Needs: SRC (source root), WORK (scratch dir). Sets KVER, KROOT, KIMG, MODDIR.

vm_log() { echo "linux-vm: $*"; }
vm_die() { echo "linux-vm: FAIL: $*" >&2; exit 1; }

vm_kernel() {
  KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
    sed -E 's/.*linux-headers-([0-9][^ ,]*-amd64).*/\1/')
  [ -n "$KVER" ] || vm_die "linux-headers-amd64 is not installed (scripts/deps.sh installs it)"
  [ -d "/usr/src/linux-headers-$KVER" ] || vm_die "no /usr/src/linux-headers-$KVER"
  if [ -z "${PCAM_LINUX_CACHE:-}" ]; then
    if mkdir -p /var/cache/pcam 2>/dev/null && [ -w /var/cache/pcam ]; then
      PCAM_LINUX_CACHE=/var/cache/pcam
    else
      PCAM_LINUX_CACHE=$WORK/cache
    fi
  fi
  cache=$PCAM_LINUX_CACHE/linux-$KVER
  KROOT=$cache/root
  mkdir -p "$cache"
  if [ ! -e "$KROOT/boot/vmlinuz-$KVER" ]; then
    vm_log "fetching linux-image-$KVER from Debian's archive into $cache"
    rm -rf "$cache/debs" "$KROOT"; mkdir -p "$cache/debs"
    # A clean machine may have no package lists yet: fetch them once (root).
    (cd "$cache/debs" && apt-get download "linux-image-$KVER" >/dev/null 2>&1) ||
      { [ "$(id -u)" -eq 0 ] && apt-get update -qq >/dev/null 2>&1 &&
        (cd "$cache/debs" && apt-get download "linux-image-$KVER" >/dev/null 2>&1); } ||
      vm_die "apt-get download linux-image-$KVER failed (is Debian's archive reachable?)"
    dpkg -x "$cache/debs/linux-image-${KVER}_"*.deb "$KROOT.tmp" && mv "$KROOT.tmp" "$KROOT" ||
      vm_die "dpkg -x failed"
    rm -rf "$cache/debs"
  fi
  MODDIR=$KROOT/lib/modules/$KVER
  [ -e "$MODDIR/modules.dep" ] || depmod -b "$KROOT" "$KVER" || vm_die "depmod failed"
  # The uncompressed ELF vmlinux boots through its PVH note: no xz
  # decompression under TCG on every boot.
  KIMG=$cache/vmlinux
  if [ ! -s "$KIMG" ]; then
    off=$(grep -abo "$(printf '\3757zXZ')" "$KROOT/boot/vmlinuz-$KVER" | head -1 | cut -d: -f1)
    [ -n "$off" ] || vm_die "no xz payload in vmlinuz-$KVER"
    tail -c +$((off + 1)) "$KROOT/boot/vmlinuz-$KVER" | xz -dc --single-stream > "$KIMG.tmp" 2>/dev/null || true
    if readelf -n "$KIMG.tmp" 2>/dev/null | grep -q 'type: (0x00000012)'; then
      mv "$KIMG.tmp" "$KIMG"
    else
      rm -f "$KIMG.tmp"; KIMG=$KROOT/boot/vmlinuz-$KVER
    fi
  fi
  vm_log "kernel $KVER: $KIMG"
}

vm_module() {   # builds $WORK/module/pcam.ko
  rm -rf "$WORK/module"
  # PCAM_LINUX_MODULE: a pcam.ko built elsewhere (linux.boot: the one DKMS
  # built from pcam-dkms, tests/packages) is booted instead; it must be
  # for this kernel.
  if [ -n "${PCAM_LINUX_MODULE:-}" ]; then
    [ -f "$PCAM_LINUX_MODULE" ] || vm_die "PCAM_LINUX_MODULE=$PCAM_LINUX_MODULE does not exist"
    [ "$(modinfo -F vermagic "$PCAM_LINUX_MODULE" | awk '{print $1}')" = "$KVER" ] ||
      vm_die "$PCAM_LINUX_MODULE is not built for $KVER"
    mkdir -p "$WORK/module" && cp "$PCAM_LINUX_MODULE" "$WORK/module/pcam.ko"
    modinfo -F license "$WORK/module/pcam.ko" | grep -qx 'Dual BSD/GPL' || vm_die "bad MODULE_LICENSE"
    vm_log "pcam.ko from $PCAM_LINUX_MODULE (version $(modinfo -F version "$WORK/module/pcam.ko"))"
    return 0
  fi
  make -C "$SRC/osshim/linux" BUILD="$WORK/module" KDIR="/usr/src/linux-headers-$KVER" W=1 \
    > "$WORK/module.log" 2>&1 || { cat "$WORK/module.log"; vm_die "module build failed"; }
  if grep -E 'warning:|error:' "$WORK/module.log"; then
    vm_die "module build (W=1) is not warning-free"
  fi
  modinfo -F license "$WORK/module/pcam.ko" | grep -qx 'Dual BSD/GPL' || vm_die "bad MODULE_LICENSE"
  vm_log "pcam.ko built warning-free with W=1"
}

# Kernel modules in load order (dependencies and soft dependencies first),
# as paths under MODDIR; CPU-specific crypto modules left out (TCG's CPU
# lacks their instructions and the generic ones serve).
vm_modorder() {
  modprobe -d "$KROOT" -S "$KVER" --show-depends -a "$@" 2>/dev/null |
    awk '$1 == "insmod" && !seen[$2]++ {print $2}' | grep -v '/arch/x86/crypto/' |
    sed "s|^$MODDIR/||"
}

# Copy a binary and every shared library it needs.
vm_copy_bin() {
  for b in "$@"; do
    p=$(command -v "$b") || vm_die "$b not installed (scripts/deps.sh installs it)"
    cp "$p" "$IRD/usr/bin/"
    for l in $(ldd "$p" | awk '/=>/ {print $3} /^\t\// {print $1}'); do
      [ -e "$IRD$l" ] && continue
      mkdir -p "$IRD$(dirname "$l")"
      cp -L "$l" "$IRD$l"
    done
  done
}

# vm_setup SUBDIR: Debian's kernel and pcam.ko ready (vm_kernel,
# vm_module) and a fresh W=$WORK/SUBDIR for this run's images and logs.
vm_setup() {
  vm_kernel
  vm_module
  W=$WORK/$1
  rm -rf "$W"
  mkdir -p "$W"
}

# vm_initramfs_base DIR MODULE...: what every guest's initramfs holds
# (sets IRD=DIR): busybox, the named Debian modules in load order (Linux's
# own chip drivers listed apart, in /etc/modules.am53c974,
# /etc/modules.sym53c8xx and /etc/modules.mptsas, loaded only when a guest
# asks), pcam.ko,
# /etc/kver and /etc/guest_lib.sh, which every /init sources first.
vm_initramfs_base() {
  IRD=$1
  shift
  rm -rf "$IRD"
  mkdir -p "$IRD/bin" "$IRD/etc" "$IRD/proc" "$IRD/sys" "$IRD/dev" "$IRD/mnt" "$IRD/lib/modules/$KVER"
  cp /bin/busybox "$IRD/bin/busybox" || vm_die "busybox-static not installed"
  ln -s busybox "$IRD/bin/sh"
  : > "$IRD/etc/modules"
  for m in $(vm_modorder "$@"); do
    mkdir -p "$IRD/lib/modules/$KVER/$(dirname "$m")"
    cp "$MODDIR/$m" "$IRD/lib/modules/$KVER/$m"
    case "$m" in */am53c974.ko|*/esp_scsi.ko) echo "$m" >> "$IRD/etc/modules.am53c974" ;;
      */sym53c8xx.ko) echo "$m" >> "$IRD/etc/modules.sym53c8xx" ;;
      */mptsas.ko|*/mptscsih.ko|*/mptbase.ko|*/scsi_transport_sas.ko) echo "$m" >> "$IRD/etc/modules.mptsas" ;;
      *) echo "$m" >> "$IRD/etc/modules" ;; esac
  done
  cp "$WORK/module/pcam.ko" "$IRD/lib/modules/$KVER/pcam.ko"
  cp "$SRC/tests/linux/guest_lib.sh" "$IRD/etc/guest_lib.sh"
  echo "$KVER" > "$IRD/etc/kver"
}

# vm_initramfs INIT_SCRIPT OUT [extra files dir]: the test kit's initramfs
vm_initramfs() {
  # Debian's modules for sd, sg, SPI transport, ext2 (ext4 serves it), and
  # Linux's own drivers for the chips (loaded only by the benchmark)
  vm_initramfs_base "$WORK/initramfs" crct10dif_generic crc64_rocksoft_generic crc32c_generic \
    sd_mod sg scsi_transport_spi ext4 am53c974 sym53c8xx mptsas
  mkdir -p "$IRD/sbin" "$IRD/usr/bin" "$IRD/tmp" "$IRD/lib64"
  vm_copy_bin sg_inq sg_vpd sg_readcap sg_luns sg_turs sg_requests sg_reset lsscsi fio
  gcc -O2 -static -o "$IRD/bin/sectcheck" "$SRC/tests/linux/sectcheck.c" ||
    vm_die "cannot build tests/linux/sectcheck.c (gcc, libc6-dev)"
  cp "$1" "$IRD/init"
  chmod +x "$IRD/init"
  [ -n "${3:-}" ] && cp -r "$3"/. "$IRD/"
  (cd "$IRD" && find . | cpio -o -H newc -R 0:0 --quiet) > "$2" || vm_die "cpio failed"
  vm_log "initramfs $(du -h "$2" | cut -f1) (uncompressed: no decompression under TCG)"
}

# A raw image where every 512-byte sector holds its own number as 64
# little-endian u64s: any misplaced sector is visible.
vm_pattern_image() {  # FILE MiB
  perl -e 'my $n = $ARGV[0] * 2048; for my $s (0 .. $n - 1) { print pack("Q<", $s) x 64 }' "$2" > "$1"
}
