#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# One SeaBIOS boot of pcam's legacy option ROM (osshim/bios), QEMU's own
# bios-256k.bin, no kernel: label bios, a few seconds each.
# usage: run.sh SRC OUT CASE [pcamscsi.efi]
#   lsi, esp    the chip's ROM and a sparse 3 TiB disk at ID 3 whose MBR is
#               tests/bios/eddtest.S; check_eddtest.py judges the boot
#   combined-lsi, combined-esp  the same with the card's whole ROM: the
#               legacy image, then pcamscsi.efi compressed (osshim/uefi/
#               mkoprom.py --legacy --compress), the ROM OVMF boots too
#   seabios     the control: the same disk on the LSI with no pcam ROM, so
#               SeaBIOS's own lsi driver serves INT 13h; the checks must
#               fail (pcam's function FEh, counters, BCV), or they prove nothing
#   menu        as lsi, with SeaBIOS's boot menu: ESC when it offers the
#               menu, then "1" (the first entry), which must be pcam's,
#               named "pcam: <vendor> <product> ID 3 LUN 0", before
#               SeaBIOS's own entry for the same disk
#   badrom      the LSI ROM with one byte changed (checksum wrong): SeaBIOS
#               must refuse it, and the boot must go on without pcam
#   badread     an AM53C974 disk whose first READ fails (blkdebug, ENODATA
#               at sector 0, which QEMU reports as MEDIUM ERROR): pcam's
#               INT 13h answers AH 10h, SeaBIOS passes on to its next boot
#               device (not on the LSI: QEMU's model loses the status of a
#               failed disconnected read and then aborts, ../shared/QEMU.md)
# The ROM goes in through -option-rom (fw_cfg genroms/), not romfile=:
# SeaBIOS 1.16 skips the PCI ROM of a device one of its own drivers has
# claimed (pci->have_driver, set by its lsi and esp drivers), so a
# romfile= ROM on these two chips is never run. docs/bios.md says more.
# SeaBIOS copies a genroms/ file whole into the option-ROM area before it
# runs it; QEMU's kvmvapic.bin is turned off (apic vapic=off, a KVM aid
# that does nothing under TCG) so that the 160 KiB combined ROM fits.
# Each QEMU run holds /tmp/pcam-vm.lock.
set -eu
src=$1 out=$2 case=$3 efi=${4:-}
mkdir -p "$out"
log=$out/serial.log dbg=$out/debugcon.log img=$out/disk.img
chip=lsi53c895a dev=lsi53c895a
case $case in esp|combined-esp|badread) chip=am53c974 dev=am53c974 ;; esac
rom=$out/rom-$chip/pcam-bios.rom
flock "$out/build.lock" nice -n 10 make -s -f "$src/osshim/bios/Makefile" OUT="$out/rom-$chip" \
  CHIP=$chip >"$out/build.log" 2>&1 || { cat "$out/build.log"; echo "FAIL: ROM build"; exit 1; }
tail -n 1 "$out/build.log"
case $case in combined-*)
  ids="--vendor 0x1000 --device 0x0012"
  [ $chip = am53c974 ] && ids="--vendor 0x1022 --device 0x2020"
  [ -f "$efi" ] || { echo "FAIL: no pcamscsi.efi ($efi)"; exit 1; }
  # shellcheck disable=SC2086
  python3 "$src/osshim/uefi/mkoprom.py" --compress $ids --legacy "$rom" "$efi" "$out/combined.rom" ||
    { echo "FAIL: mkoprom.py --legacy"; exit 1; }
  echo "combined ROM: $(wc -c <"$out/combined.rom") bytes (legacy $(wc -c <"$rom"))"
  rom=$out/combined.rom ;;
esac

# eddtest: its own boot program, at LBA 0..15.
gcc -m32 -c "$src/tests/bios/eddtest.S" -o "$out/eddtest.o"
ld -m elf_i386 --no-warn-rwx-segments -T "$src/tests/bios/eddtest.lds" "$out/eddtest.o" -o "$out/eddtest.elf"
objcopy -O binary "$out/eddtest.elf" "$out/eddtest.bin"
rm -f "$img"
truncate -s 3T "$img"
dd if="$out/eddtest.bin" of="$img" conv=notrunc status=none
# The disk's block count into eddtest's past-the-end packet, and the
# bytes the reads must find (LBA 16, and LBA 2^32 + 16).
past=$(nm "$out/eddtest.elf" | awk '$3 == "dap_past" { print $1 }')
python3 - "$img" "$past" <<'EOF'
import os, struct, sys
img, past = sys.argv[1], int(sys.argv[2], 16)
with open(img, "r+b") as f:
    f.seek(past - 0x7C00 + 8)
    f.write(struct.pack("<Q", os.path.getsize(img) // 512))
    f.seek(16 * 512)
    f.write(b"CHS-SECTOR-16..." + os.urandom(496))
    f.seek((2**32 + 16) * 512)
    f.write(b"ABOVE-2TIB-" + os.urandom(501))
EOF

romarg="-option-rom $rom,bootindex=0"
drive="file=$img,format=raw"
case $case in
  lsi|esp|combined-*|menu) ;;
  seabios) romarg="" ;;
  badrom)
    cp "$rom" "$out/bad.rom"
    printf '\001' | dd of="$out/bad.rom" bs=1 seek=1000 conv=notrunc status=none
    romarg="-option-rom $out/bad.rom,bootindex=0" ;;
  badread)
    printf '[inject-error]\nevent = "read_aio"\nerrno = "61"\nsector = "0"\n' >"$out/blkdebug.conf"
    drive="driver=raw,file.driver=blkdebug,file.config=$out/blkdebug.conf,file.image.filename=$img" ;;
  *) echo "run.sh: unknown case $case" >&2; exit 2 ;;
esac
rm -f "$log" "$dbg"
menu="" monarg="-monitor none"
if [ "$case" = menu ]; then
  # Keys through the monitor, each when SeaBIOS's log shows it waits for it.
  menu="-boot menu=on,splash-time=5000"
  mon=$out/monitor.sock
  rm -f "$mon"
  python3 "$src/tests/bios/menu_keys.py" "$mon" "$dbg" &
  keys=$!
  monarg="-monitor unix:$mon,server,nowait"
fi
set +e
# shellcheck disable=SC2086
flock /tmp/pcam-vm.lock timeout 120 qemu-system-x86_64 -accel tcg -m 256 -display none -no-reboot \
  -nodefaults -global apic-common.vapic=off -device $dev,id=scsi0 -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=3 \
  -drive if=none,id=d0,$drive,rerror=report,werror=report $romarg \
  -chardev file,id=dbg,path="$dbg" -device isa-debugcon,iobase=0x402,chardev=dbg \
  -serial file:"$log" -device isa-debug-exit,iobase=0xf4 -boot strict=off,reboot-timeout=1000 \
  $menu $monarg </dev/null >"$out/qemu.log" 2>&1
rc=$?
[ -z "$menu" ] || wait "$keys" || true
set -e
sed "s/^/[$case] /" "$log"
fail() { echo "FAIL: bios $case: $*"; exit 1; }
[ $rc -ne 124 ] || fail "QEMU was killed after 120 s (a hang)"
case $case in
  menu)
    grep -q "Select boot device" "$dbg" || fail "SeaBIOS's boot menu never showed"
    sed -n '/Select boot device/,/Booting from/p' "$dbg" | grep -E '^[0-9]+\. ' | sed 's/^/[menu] /'
    grep -Eq "^1\. pcam: QEMU QEMU HARDDISK ID 3 LUN 0\$" "$dbg" ||
      fail "the menu's first entry is not pcam's BCV named 'pcam: QEMU QEMU HARDDISK ID 3 LUN 0'"
    [ $rc -eq 1 ] || fail "QEMU exit status $rc (eddtest did not reach its end)"
    python3 "$src/tests/bios/check_eddtest.py" "$log" "$dbg" "$img" || fail "checks failed"
    echo "PASS: bios menu: the boot menu names pcam's disk first; chosen, it booted through pcam" ;;
  lsi|esp|combined-*)
    # isa-debug-exit: status (0 << 1) | 1
    [ $rc -eq 1 ] || fail "QEMU exit status $rc (eddtest did not reach its end)"
    python3 "$src/tests/bios/check_eddtest.py" "$log" "$dbg" "$img" || fail "checks failed"
    echo "PASS: bios $case: pcam's INT 13h served the boot and every check" ;;
  seabios)
    grep -q "Booting from 0000:7c00" "$dbg" || fail "SeaBIOS's own driver did not boot the disk"
    if python3 "$src/tests/bios/check_eddtest.py" "$log" "$dbg" "$img" >"$out/control.txt"; then
      cat "$out/control.txt"; fail "the checks passed with SeaBIOS's driver: they cannot tell"
    fi
    grep FAIL "$out/control.txt"
    grep -q "FAIL the boot drive is pcam's" "$out/control.txt" || fail "not the check expected to fail"
    echo "PASS: bios seabios: with SeaBIOS's own driver the pcam checks fail, as they must" ;;
  badrom)
    grep -q "Found option rom with bad checksum" "$dbg" || fail "SeaBIOS did not report the checksum"
    ! grep -q "pcam bios:" "$log" || fail "the bad ROM ran"
    grep -q "Booting from 0000:7c00" "$dbg" || fail "the boot did not go on without pcam"
    echo "PASS: bios badrom: refused for its checksum, the boot went on without it" ;;
  badread)
    grep -q "pcam bios: disk 0:" "$log" || fail "pcam's init did not offer the disk"
    grep -Eq "pcam bios: INT 13h function (02|42)h, drive 80h: status 10h" "$log" ||
      fail "no AH 10h (MEDIUM ERROR) for the failed first read"
    awk '/Booting from Hard Disk/ { hd = 1 } hd && /Boot failed/ { f = 1 } f && /Booting from/ { n = 1 }
         END { exit !n }' "$dbg" || fail "SeaBIOS did not pass on to its next boot device"
    echo "PASS: bios badread: the failed first READ gave an error status; SeaBIOS went on" ;;
esac
