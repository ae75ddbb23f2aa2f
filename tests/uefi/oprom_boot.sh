#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Boots from a SCSI disk with no UEFI shell and no startup.nsh: pcamscsi.efi
# sits in the controller's option ROM (osshim/uefi/mkoprom.py), OVMF's PCI
# bus driver dispatches it, EDK2's ScsiBus/ScsiDisk/partition/FAT drivers
# expose the GPT disk's EFI system partition, and the boot manager's
# default boot of a disk (\EFI\BOOT\BOOTX64.EFI, the removable-media path:
# OVMF's boot variables start empty on every run) starts systemd-boot,
# which loads Debian's kernel and an initramfs from the same disk. The
# kernel's EFI stub calls ExitBootServices (pcam quiesces the chip) and the
# initramfs (oprom_init.sh) loads a Linux driver for the same chip.
# Kinds of boot (one VM each; every image made here at run time):
#   esp  AM53C974, boot disk at ID 3 LUN 1, pcam.ko in Linux
#   lsi  LSI53C895A, boot disk at ID 5 LUN 0 (the model has no LUN above 0),
#        pcam.ko in Linux
#   lsi-sym53c8xx  as lsi, but Linux's own sym53c8xx takes the chip over
#   badrom  no kernel: an LSI53C895A whose ROM has a wrong EFI signature,
#        with a bootable disk, and nothing else: OVMF must never run it
#        (a VM of its own: pcam from any good ROM binds every chip it knows)
#   noesp   no kernel: an AM53C974 with a disk that has no ESP and one with
#        no disk; OVMF must fall through both and reach the end of its
#        boot list (its shell) without a hang
# Every kind but bad has a disk with no ESP at ID 0 LUN 0 besides.
# Leaves serial.txt, trace.log, times and the images in WORK/KIND for
# oprom_check.sh; asserts nothing but that the VM ran.
# usage: oprom_boot.sh SRC EFI_DIR WORK KIND...
set -eu
SRC=$(cd "$1" && pwd)
efidir=$2
WORK=$3
shift 3
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
qemu=${QEMU:-qemu-system-x86_64}
code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE.fd}
vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS.fd}
sdboot=${PCAM_SDBOOT:-/usr/lib/systemd/boot/efi/systemd-bootx64.efi}
lock=${PCAM_VM_LOCK:-/tmp/pcam-vm.lock}
die() { echo "oprom_boot: FAIL: $*" >&2; exit 1; }
for t in "$qemu" python3 mkfs.fat mcopy mmd sfdisk flock; do
  command -v "$t" >/dev/null 2>&1 || die "$t missing (scripts/deps.sh uefi installs it)"
done
for f in "$code" "$vars" "$sdboot" "$efidir/pcamscsi.efi"; do
  [ -f "$f" ] || die "$f missing (scripts/deps.sh uefi installs it)"
done

# ---- pieces shared by the boots: ROMs, kernel, pcam.ko, initramfs
# The boots' ROMs are the card's whole ROM: osshim/bios's legacy image
# (code type 0) first, then the driver compressed (CompressionType 1), as
# a card's ROM would carry them. OVMF must find the EFI image behind the
# legacy one and its own decompressor must undo eficompress.py's stream,
# or the driver never loads and the boot fails.
mkrom() {  # OUT vendor device chip [corrupt]
  flock "$WORK/bios-$4.lock" make -s -f "$SRC/osshim/bios/Makefile" OUT="$WORK/bios-$4" CHIP="$4" \
    >"$WORK/bios-$4.log" 2>&1 || { cat "$WORK/bios-$4.log"; die "osshim/bios build failed"; }
  python3 "$SRC/osshim/uefi/mkoprom.py" --compress --vendor "$2" --device "$3" ${5:+--corrupt "$5"} \
    --legacy "$WORK/bios-$4/pcam-bios.rom" "$efidir/pcamscsi.efi" "$1" || die "mkoprom.py failed"
}
mkrom "$WORK/pcam-esp.rom" 0x1022 0x2020 am53c974
mkrom "$WORK/pcam-lsi.rom" 0x1000 0x0012 lsi53c895a
mkrom "$WORK/bad-lsi.rom" 0x1000 0x0012 lsi53c895a efisig
need_kernel=0
for k in "$@"; do case $k in badrom|noesp) ;; *) need_kernel=1 ;; esac; done
if [ $need_kernel -eq 1 ]; then
  . "$SRC/tests/linux/vm_lib.sh"
  vm_kernel
  vm_module
  # A small initramfs of our own: busybox, sd, vfat, pcam.ko and Linux's
  # drivers for both chips (vm_initramfs's carries the whole test kit).
  vm_initramfs_base "$WORK/initramfs" crct10dif_generic crc64_rocksoft_generic crc32c_generic \
    sd_mod vfat nls_cp437 nls_utf8 nls_ascii am53c974 sym53c8xx
  cp "$SRC/tests/uefi/oprom_init.sh" "$IRD/init"
  chmod +x "$IRD/init"
  (cd "$IRD" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$WORK/initrd.img" || die "cpio failed"
  VMLINUZ=$KROOT/boot/vmlinuz-$KVER
fi

# GPT disk image: OUT ESP_FAT_IMAGE_OR_- DATA_IMAGE
ESP_SECTORS=98304 DATA_SECTORS=16384
mkdisk() {
  out=$1 esp=$2 data=$3
  total=$((2048 + ESP_SECTORS + DATA_SECTORS + 2048))
  rm -f "$out"
  truncate -s $((total * 512)) "$out"
  if [ "$esp" = - ]; then
    # no ESP: one Linux partition over the same space
    printf 'label: gpt\nstart=2048, size=%d, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="noesp"\n' \
      $((ESP_SECTORS + DATA_SECTORS)) | sfdisk -q "$out" || die "sfdisk failed"
  else
    printf 'label: gpt\nstart=2048, size=%d, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="ESP"\nstart=%d, size=%d, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="pcamdata"\n' \
      $ESP_SECTORS $((2048 + ESP_SECTORS)) $DATA_SECTORS | sfdisk -q "$out" || die "sfdisk failed"
    dd if="$esp" of="$out" bs=512 seek=2048 conv=notrunc status=none
  fi
  dd if="$data" of="$out" bs=512 seek=$((2048 + ESP_SECTORS)) conv=notrunc status=none
}

# ESP: OUT DRIVER TARGET LUN
mkesp() {
  e=$1
  rm -f "$e"
  mkfs.fat -C -n PCAMESP "$e" $((ESP_SECTORS / 2)) >/dev/null || die "mkfs.fat failed"
  mmd -i "$e" ::/EFI ::/EFI/BOOT ::/loader ::/loader/entries
  mcopy -i "$e" "$sdboot" ::/EFI/BOOT/BOOTX64.EFI
  printf 'default pcam.conf\ntimeout 0\nrandom-seed-mode always\n' >"$WORK/loader.conf"
  printf 'title pcam\nlinux /vmlinuz\ninitrd /initrd.img\noptions console=ttyS0 panic=-1 pcamdrv=%s pcamtgt=%s pcamlun=%s\n' \
    "$2" "$3" "$4" >"$WORK/pcam.conf"
  mcopy -i "$e" "$WORK/loader.conf" ::/loader/loader.conf
  mcopy -i "$e" "$WORK/pcam.conf" ::/loader/entries/pcam.conf
  # rewritten by systemd-boot in the firmware era (random-seed-mode always)
  head -c 512 /dev/urandom >"$W/seed.orig"
  mcopy -i "$e" "$W/seed.orig" ::/loader/random-seed
  printf 'pcam-oprom-host-file %s %s\n' "$$" "$(date +%s)" >"$W/fromhost.txt"
  mcopy -i "$e" "$W/fromhost.txt" ::/fromhost.txt
  mcopy -i "$e" "$VMLINUZ" ::/vmlinuz
  mcopy -i "$e" "$WORK/initrd.img" ::/initrd.img
}

# run KIND: one VM
run() {
  kind=$1
  W=$WORK/$kind
  rm -rf "$W"
  mkdir -p "$W"
  cp "$vars" "$W/vars.fd"
  head -c $((DATA_SECTORS * 512)) /dev/zero >"$W/data.img"
  head -c 1048576 /dev/urandom | dd of="$W/data.img" conv=notrunc status=none
  mkdisk "$W/noesp.img" - "$W/data.img"
  limit=600
  case $kind in
    esp) ctrl=am53c974 rom=$WORK/pcam-esp.rom bt=3 bl=1 drv=pcam ;;
    lsi) ctrl=lsi53c895a rom=$WORK/pcam-lsi.rom bt=5 bl=0 drv=pcam ;;
    lsi-sym53c8xx) ctrl=lsi53c895a rom=$WORK/pcam-lsi.rom bt=5 bl=0 drv=sym53c8xx ;;
    badrom|noesp) limit=240 ;;
    *) die "unknown kind $kind" ;;
  esac
  set -- -M pc -accel tcg -m 512 -nodefaults -display none -no-reboot \
    -drive if=pflash,format=raw,readonly=on,file="$code" \
    -drive if=pflash,format=raw,file="$W/vars.fd" -serial file:"$W/serial.log"
  if [ "$kind" = badrom ]; then
    # a bootable disk behind a ROM OVMF must refuse: never seen
    mkfs.fat -C -n PCAMESP "$W/esp.img" $((ESP_SECTORS / 2)) >/dev/null
    mmd -i "$W/esp.img" ::/EFI ::/EFI/BOOT
    mcopy -i "$W/esp.img" "$sdboot" ::/EFI/BOOT/BOOTX64.EFI
    mkdisk "$W/boot.img" "$W/esp.img" "$W/data.img"
    set -- "$@" -device lsi53c895a,id=scsi0,addr=0x6,romfile="$WORK/bad-lsi.rom" \
      -drive if=none,id=d1,format=raw,file="$W/boot.img" \
      -device scsi-hd,drive=d1,bus=scsi0.0,scsi-id=5,lun=0 \
      -trace 'lsi_*' -D "$W/trace.log"
  elif [ "$kind" = noesp ]; then
    # a disk with no ESP, and a controller with no disk at all (a Tekram
    # DC-390: the AM53C974 with the EEPROM QEMU fills, which pcam reads)
    set -- "$@" -device am53c974,id=scsi0,addr=0x6,romfile="$WORK/pcam-esp.rom" \
      -drive if=none,id=d0,format=raw,file="$W/noesp.img" \
      -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=3,lun=1 \
      -device dc390,id=scsi1,addr=0x7,romfile="$WORK/pcam-esp.rom" \
      -trace esp_pci_dma_write -D "$W/trace.log"
  else
    mkesp "$W/esp.img" "$drv" "$bt" "$bl"
    mkdisk "$W/boot.img" "$W/esp.img" "$W/data.img"
    set -- "$@" -device "$ctrl",id=scsi0,addr=0x6,romfile="$rom" \
      -drive if=none,id=d0,format=raw,file="$W/noesp.img" \
      -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0,lun=0 \
      -drive if=none,id=d1,format=raw,file="$W/boot.img" \
      -device scsi-hd,drive=d1,bus=scsi0.0,scsi-id=$bt,lun=$bl
  fi
  : >"$W/serial.log"
  echo "oprom_boot: $kind: waiting for $lock" >&2
  # The lock is held for the VM only; the marks are timed from QEMU's start.
  flock "$lock" sh -c '
    W=$1 limit=$2 qemu=$3; shift 3
    now() { date +%s.%N | cut -c1-14; }
    t0=$(now)
    since() { awk -v a="$(now)" -v b="$t0" "BEGIN { printf \"%.1f\", a - b }"; }
    "$qemu" "$@" >"$W/qemu.out" 2>&1 &
    q=$!
    : >"$W/times"
    mark() { grep -q "$2" "$W/times" 2>/dev/null && return; tr -d "\r" <"$W/serial.log" | grep -q -- "$1" &&
      echo "$2 $(since)" >>"$W/times"; }
    while kill -0 $q 2>/dev/null; do
      mark "BdsDxe: starting" bootmgr-start
      mark "Linux version" kernel-first-line
      mark "PCAMU: init" initramfs
      mark "PCAMU: insmod" driver-loaded
      mark "PCAMU: disk" disk-found
      mark "PCAMU: DONE" done
      # The end of the boot list: the shell (last boot option) or the
      # boot manager'"'"'s own message; nothing more to see.
      if tr -d "\r" <"$W/serial.log" | grep -q -e "Shell>" -e "any other key" -e "No bootable option"; then
        mark "any other key" shell; mark "No bootable option" no-bootable; mark "Shell>" shell
        sleep 1; kill $q; break
      fi
      if [ "$(since | cut -d. -f1)" -gt "$limit" ]; then
        echo "oprom_boot: the VM ran past ${limit}s; killed" >&2
        echo "@BOOT-LIMIT" >>"$W/times"; kill $q; sleep 1; kill -9 $q 2>/dev/null; break
      fi
      sleep 0.2
    done
    wait $q 2>/dev/null
    echo "vm-exit $(since)" >>"$W/times"
  ' sh "$W" "$limit" "$qemu" "$@"
  tr -d '\r' <"$W/serial.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$W/serial.txt"
  echo "oprom_boot: $kind: $(tr '\n' ' ' <"$W/times")" >&2
}

for k in "$@"; do run "$k"; done
