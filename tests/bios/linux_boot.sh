#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Boots Linux from a SCSI disk through pcam's legacy ROM (osshim/bios) in
# QEMU's own SeaBIOS: an MBR disk at ID 3 LUN 0 with syslinux's MBR code,
# a FAT boot partition (SYSLINUX from Debian's archive, Debian's kernel and
# an initramfs with pcam.ko) and a data partition. The initramfs's /init is
# tests/uefi/oprom_init.sh: pcam.ko takes the chip over, reads the data
# partition and writes 1 MiB into it. The host then asserts:
#   - pcam's init offered the disk, SeaBIOS called its BCV and booted 80h;
#   - pcam's INT 13h read at least the kernel and the initramfs (its
#     "sectors read" lines; SeaBIOS's own driver would print none);
#   - Linux's first line, pcam.ko on the disk, the data partition's MD5 as
#     the host wrote it, and the host finds Linux's write in the image.
# edd=off: Linux's real-mode setup would read the MBR of every BIOS drive,
# 81h too, which is SeaBIOS's own driver's view of the same disk; that
# driver polls the chip pcam now runs with no bound (src/hw/lsi-scsi.c's
# "for (;;)") and the boot stops there. A test-rig conflict: on a card's own
# ROM there is no second driver. docs/bios.md says more.
# usage: linux_boot.sh SRC WORK lsi|esp
set -eu
SRC=$(cd "$1" && pwd)
WORK=$2 kind=$3
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
die() { echo "bios linux: FAIL: $*" >&2; exit 1; }
case $kind in
  lsi) chip=lsi53c895a ;;
  esp) chip=am53c974 ;;
  *) die "unknown kind $kind" ;;
esac
mbr=/usr/lib/syslinux/mbr/mbr.bin
for t in syslinux mkfs.fat mcopy sfdisk flock qemu-system-x86_64; do
  command -v "$t" >/dev/null 2>&1 || die "$t missing (scripts/deps.sh bios installs it)"
done
[ -f "$mbr" ] || die "$mbr missing (syslinux-common)"

make -s -f "$SRC/osshim/bios/Makefile" OUT="$WORK/rom" CHIP=$chip EXTRA_CFLAGS="${PCAM_BIOS_CFLAGS:-}" >"$WORK/rom.log" 2>&1 ||
  { cat "$WORK/rom.log"; die "osshim/bios build failed"; }
rom=$WORK/rom/pcam-bios.rom

. "$SRC/tests/linux/vm_lib.sh"
vm_kernel
vm_module
vm_initramfs_base "$WORK/initramfs" crct10dif_generic crc64_rocksoft_generic crc32c_generic \
  sd_mod scsi_transport_spi vfat nls_cp437 nls_utf8 nls_ascii
cp "$SRC/tests/uefi/oprom_init.sh" "$IRD/init"
chmod +x "$IRD/init"
(cd "$IRD" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$WORK/initrd.img" || die "cpio failed"
VMLINUZ=$KROOT/boot/vmlinuz-$KVER

# The boot partition: FAT, SYSLINUX installed with mtools (no mount).
BOOT_SECTORS=98304 DATA_SECTORS=16384
part=$WORK/boot.img
rm -f "$part"
mkfs.fat -C -n PCAMBOOT "$part" $((BOOT_SECTORS / 2)) >/dev/null || die "mkfs.fat failed"
syslinux --install "$part" || die "syslinux --install failed"
printf 'DEFAULT pcam\nPROMPT 0\nTIMEOUT 0\nLABEL pcam\n  LINUX /vmlinuz\n  INITRD /initrd.img\n  APPEND console=ttyS0 earlyprintk=ttyS0 edd=off panic=-1 pcamdrv=pcam pcamtgt=3 pcamlun=0\n' \
  >"$WORK/syslinux.cfg"
mcopy -i "$part" "$WORK/syslinux.cfg" ::/syslinux.cfg
mmd -i "$part" ::/loader
head -c 512 /dev/urandom >"$WORK/seed"
mcopy -i "$part" "$WORK/seed" ::/loader/random-seed
printf 'pcam-bios-host-file %s %s\n' "$$" "$(date +%s)" >"$WORK/fromhost.txt"
mcopy -i "$part" "$WORK/fromhost.txt" ::/fromhost.txt
mcopy -i "$part" "$VMLINUZ" ::/vmlinuz
mcopy -i "$part" "$WORK/initrd.img" ::/initrd.img

# The MBR disk: syslinux's MBR code, partition 1 FAT (active), 2 data.
img=$WORK/disk.img
total=$((2048 + BOOT_SECTORS + DATA_SECTORS + 2048))
rm -f "$img"
truncate -s $((total * 512)) "$img"
printf 'label: dos\nstart=2048, size=%d, type=e, bootable\nstart=%d, size=%d, type=83\n' \
  $BOOT_SECTORS $((2048 + BOOT_SECTORS)) $DATA_SECTORS | sfdisk -q "$img" || die "sfdisk failed"
dd if="$mbr" of="$img" bs=440 count=1 conv=notrunc status=none
dd if="$part" of="$img" bs=512 seek=2048 conv=notrunc status=none
head -c $((DATA_SECTORS * 512)) /dev/urandom >"$WORK/data.img"
dd if="$WORK/data.img" of="$img" bs=512 seek=$((2048 + BOOT_SECTORS)) conv=notrunc status=none

log=$WORK/serial.log dbg=$WORK/debugcon.log
rm -f "$log" "$dbg"
set +e
flock /tmp/pcam-vm.lock sh -c 't0=$(date +%s.%N); timeout 900 "$@"; rc=$?
  echo "$t0 $(date +%s.%N)" | awk "{ printf \"%.1f\n\", \$2 - \$1 }" >"$0"; exit $rc' "$WORK/time" \
  qemu-system-x86_64 -M pc -accel tcg -m 512 -nodefaults -display none -no-reboot \
  -global apic-common.vapic=off -device $chip,id=scsi0 \
  -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=3,lun=0 -drive if=none,id=d0,file="$img",format=raw \
  -option-rom "$rom,bootindex=0" -chardev file,id=dbg,path="$dbg" \
  -device isa-debugcon,iobase=0x402,chardev=dbg -serial file:"$log" -monitor none \
  </dev/null >"$WORK/qemu.log" 2>&1
rc=$?
set -e
tr -d '\r' <"$log" >"$WORK/serial.txt"
grep -E "pcam bios|PCAMU:|Linux version" "$WORK/serial.txt" | sed "s/^/[bios linux $kind] /" | head -60
echo "bios linux $kind: QEMU exit status $rc after $(cat "$WORK/time") s"
[ $rc -ne 124 ] || die "QEMU was killed after 900 s"

fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
t=$WORK/serial.txt
grep -Eq "pcam bios: disk 0: pcam: QEMU QEMU HARDDISK ID 3 LUN 0" "$t" &&
  ok "pcam's init offered the disk at ID 3 LUN 0" || bad "pcam's init did not offer the disk"
grep -Eq "Running option rom at [0-9a-f]{4}:(0[0-9a-f]{3}|[1-9a-f][0-9a-f]{3})" "$dbg" &&
  grep -q "Booting from Hard Disk..." "$dbg" && ok "SeaBIOS called pcam's BCV and booted drive 80h" ||
  bad "SeaBIOS's log shows no BCV call or no hard-disk boot"
need=$(( ($(stat -c %s "$VMLINUZ") + $(stat -c %s "$WORK/initrd.img")) / 512 ))
got=$(sed -n 's/^pcam bios: drive 80h: \([0-9]*\) sectors read$/\1/p' "$t" | tail -n 1)
[ -n "$got" ] && [ "$got" -ge $(( need / 8192 * 8192 )) ] &&
  ok "pcam's INT 13h read $got sectors (kernel and initramfs: $need)" ||
  bad "pcam's INT 13h read ${got:-no} sectors; the kernel and initramfs are $need"
grep -q "Linux version" "$t" && ok "Debian's kernel printed its first line" || bad "no kernel line"
grep -q "PCAMU: disk 3:0 sd[a-z]* driver pcam" "$t" && ok "pcam.ko has the boot disk" ||
  bad "pcam.ko did not bring up the boot disk"
want=$(head -c 1048576 "$WORK/data.img" | md5sum | cut -d' ' -f1)
grep -q "PCAMU: data-read $want" "$t" && ok "Linux read the data partition as the host wrote it" ||
  bad "data-read MD5 is not the host's ($want)"
grep -q "PCAMU: hostfile $(cat "$WORK/fromhost.txt")" "$t" && ok "Linux read the host's file on the FAT" ||
  bad "the host's file on the FAT was not read back"
wrote=$(dd if="$img" bs=512 skip=$((2048 + BOOT_SECTORS + 4096)) count=2048 status=none | md5sum | cut -d' ' -f1)
exp=$(yes PCAM-LINUX-AFTER-UEFI | head -c 1048576 | md5sum | cut -d' ' -f1)
[ "$wrote" = "$exp" ] && ok "the host finds Linux's 1 MiB write in the data partition" ||
  bad "the data partition does not hold Linux's write"
grep -q "PCAMU: kernel-bugs 0" "$t" && ok "no kernel warnings" || bad "kernel warnings (see serial.txt)"
[ $fails -eq 0 ] || { echo "bios linux $kind: $fails check(s) failed"; exit 1; }
echo "PASS: bios linux $kind: Linux booted through pcam's INT 13h; pcam.ko read and wrote the data partition"
