#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Install the Debian 12 packages pcam's build, tests and demo need.
# As root it runs apt-get; otherwise it names what is missing and fails.
# usage: scripts/deps.sh [demo|test|AREA]   (default: test, the full set;
#        AREA: one area below, with base)
#
# One variable per area, so that each area's tests name what they need:
#   base    the build and the demo
#   check   unit/sim tests, Valgrind, Doxygen, clang/libFuzzer, -m32, Cortex-M
#   qemu    QEMU for the qtest back-end tests and every VM boot
#   uefi    OVMF, gnu-efi and the FAT tools for osshim/uefi's boots; systemd-boot
#           and sfdisk (fdisk) for the option-ROM boot's GPT disk
#   linux   the Debian kernel headers (the image itself is unpacked by
#           tests/linux, see there), the initramfs and the guest tools
#   win32   mingw cross compilers and Wine: wine64 runs the x86_64 DLL
#           everywhere, wine32 (the i386 arch) the i686 one where the
#           kernel runs i386 programs
#   freebsd clang/lld 19 to build pcam.ko and the guest's init against
#           ../shared/freebsd (clang 14 reaches __stack_chk_guard through
#           the GOT, which FreeBSD 13.2's kernel linker refuses:
#           osshim/freebsd/kmod_build.sh); its boots also need qemu and uefi;
#           mandoc lints the man page pcam(4) (freebsd.manpage)
#   tools   AFL++, llvm-cov and gnuplot for fuzzing reports and plots
#   packages the Debian packages (debian/, tests/packages): debhelper and
#           dh-dkms to build them, lintian to check them, DKMS to build
#           pcam-dkms's module, abigail-tools for the ABI check (tests/abi);
#           building them also needs uefi's gnu-efi, win32's mingw compilers
#           and linux's kernel headers
#   coverage gcovr: line and branch coverage of the gcc tests (scripts/coverage.sh)
#   bios    osshim/bios's legacy option ROM and its SeaBIOS boots: the -m32
#           toolchain, QEMU with its SeaBIOS (bios-256k.bin), python3; SYSLINUX,
#           mtools, dosfstools and sfdisk for the Linux boot's MBR disk (its kernel
#           and initramfs come from the linux area)
#   firmware the bare-metal boots (examples/firmware): QEMU's RISC-V, Arm and
#           MIPS boards, the RISC-V and Arm gcc cross compilers, clang and
#           ld.lld for the big-endian MIPS build
set -eu
what=${1:-test}
base="build-essential cmake pkg-config"
check="libcmocka-dev doxygen valgrind clang libclang-rt-14-dev gcc-multilib gcc-arm-none-eabi gcc-riscv64-unknown-elf"
qemu="qemu-system-x86 qemu-user"
uefi="ovmf gnu-efi mtools dosfstools systemd-boot-efi fdisk"
linux="linux-headers-amd64 busybox-static cpio kmod xz-utils e2fsprogs sg3-utils lsscsi fio"
win32="gcc-mingw-w64-i686 gcc-mingw-w64-x86-64 wine wine64 wine32"
freebsd="clang-19 lld-19 llvm-19 mandoc"
tools="afl++ llvm gnuplot"
packages="debhelper dh-dkms dkms lintian abigail-tools dpkg-dev python3"
coverage="gcovr"
bios="gcc-multilib qemu-system-x86 seabios python3 syslinux syslinux-common mtools dosfstools fdisk"
firmware="qemu-system-misc qemu-system-arm qemu-system-mips gcc-riscv64-unknown-elf gcc-arm-none-eabi clang lld"
case "$what" in
  test) pkgs="$base $check $qemu $uefi $linux $win32 $freebsd $tools $packages $firmware $coverage $bios" ;;
  demo) pkgs="$base libcmocka-dev doxygen valgrind" ;;
  check|qemu|uefi|linux|win32|freebsd|tools|packages|firmware|coverage|bios) eval "pkgs=\"\$base \$$what\"" ;;
  *) echo "usage: $0 [demo|test|check|qemu|uefi|linux|win32|freebsd|tools|packages|firmware|coverage|bios]" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  # wine32 is an i386 package: the architecture must be known to dpkg first.
  case "$missing" in *wine32*)
    dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386 ;;
  esac
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "deps: missing Debian packages:$missing" >&2
  echo "deps: run as root, or: sudo apt-get install$missing" >&2
  exit 1
fi
