#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Boots OVMF under QEMU TCG with pcam's UEFI driver, a SCSI controller
# (PCAM_UEFI_CHIP=esp: an AM53C974, the default; lsi: an LSI53C895A) and
# its disks, runs a UEFI shell script (every "@CHIP@" in it replaced by the
# chip's name), and serves the script's requests over the QEMU monitor (a
# read throttle for the timeout check). Prepares every image at run time;
# leaves the serial log, QEMU's trace and the images in WORK for check.sh.
# Never asserts anything itself except that the VM ran.
# The lsi boot also has a SAS1068 (mptsas1068, hal/mpt in the same driver)
# at PCI 00:07 with a FAT disk at target 1 holding mptdisk.txt.
# Target 3 is a 3 TiB sparse disk (16-byte CDBs only), filled in places
# by tests/linux/sectcheck.c, whose host build PCAM_SECTCHECK names.
# usage: [PCAM_UEFI_CHIP=esp|lsi] PCAM_SECTCHECK=... boot.sh EFI_DIR MKPATTERN WORK NSH_BODY_FILE [EXTRA_QEMU_ARGS...]
set -eu
efidir=$1 mkpattern=$2 work=$3 body=$4
sectcheck=${PCAM_SECTCHECK:?PCAM_SECTCHECK must name the host build of tests/linux/sectcheck.c}
shift 4
chip=${PCAM_UEFI_CHIP:-esp}
# The same disks on both; QEMU's lsi53c895a has no LUNs above 0, so the
# small pattern disk moves from target 0 LUN 1 to target 1 LUN 0 there.
# The trace records what reached the bus (selections; on the LSI also the
# commands that disconnected and the reselections).
case $chip in
  esp) ctrl=am53c974 pat1=scsi-id=0,lun=1
       trace="-trace esp_get_cmd" ;;
  lsi) ctrl=lsi53c895a pat1=scsi-id=1,lun=0
       trace="-trace lsi_execute_script_io_selected -trace lsi_bad_selection -trace lsi_queue_command -trace lsi_reselect" ;;
  *) echo "boot.sh: unknown PCAM_UEFI_CHIP '$chip' (esp or lsi)" >&2; exit 1 ;;
esac
qemu=${QEMU:-qemu-system-x86_64}
code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE.fd}
vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS.fd}
limit=${PCAM_UEFI_BOOT_LIMIT:-900}

for t in "$qemu" mkfs.fat mcopy mkfifo; do
  command -v "$t" >/dev/null 2>&1 || { echo "boot.sh: $t missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
for f in "$code" "$vars" "$efidir/pcamscsi.efi" "$efidir/pcamtest.efi" "$efidir/hello.efi"; do
  [ -f "$f" ] || { echo "boot.sh: $f missing" >&2; exit 1; }
done

rm -rf "$work"
mkdir -p "$work/boot"
cp "$vars" "$work/vars.fd"

# The boot FAT (virtio-blk): the driver, the test apps and startup.nsh.
# CRLF line ends: the shell wants them.
{
  printf '@echo -off\n'
  grep -v "^#" "$body" | sed "s/@CHIP@/$chip/g"
  printf 'echo @SCRIPT-DONE\nreset -s\n'
} | sed 's/$/\r/' >"$work/boot/startup.nsh"
mkfs.fat -C -n PCAMBOOT "$work/boot.img" 16384 >/dev/null
mcopy -i "$work/boot.img" "$work/boot/startup.nsh" "$efidir/pcamscsi.efi" "$efidir/pcamtest.efi" ::/
[ -f "$efidir/pcambench.efi" ] && mcopy -i "$work/boot.img" "$efidir/pcambench.efi" ::/

# Target 0 LUN 0: a FAT disk with a text file whose content only this run
# knows, and the marker application.
printf 'pcam-uefi-disk-file %s %s\nsecond line of the file\n' "$$" "$(date +%s)" >"$work/pcamdisk.txt"
mkfs.fat -C -n PCAMSCSI "$work/fat.img" 16384 >/dev/null
mcopy -i "$work/fat.img" "$work/pcamdisk.txt" "$efidir/hello.efi" ::/
# Target 0 LUN 1 and target 2: pattern disks (see mkpattern.c).
"$mkpattern" "$work/pat1.img" 2048
"$mkpattern" "$work/pat2.img" 16384
# Target 3: 3 TiB, sparse; sectcheck's pattern at sectors 0-2047, around
# LBA 2^32 and at the end (pcamtest big reads and writes there).
big=6442450944
truncate -s $((big * 512)) "$work/big.img"
for r in "0 2048" "$((4294967296 - 2048)) 4096" "$((big - 2048)) 2048"; do
  "$sectcheck" -w "$work/big.img" $r >/dev/null
done

# The SAS1068 beside the LSI53C895A: a FAT disk with a file only this run
# knows.
mpt=
if [ "$chip" = lsi ]; then
  printf 'pcam-uefi-mpt-file %s %s\n' "$$" "$(date +%s)" >"$work/mptdisk.txt"
  mkfs.fat -C -n PCAMMPT "$work/mpt.img" 8192 >/dev/null
  mcopy -i "$work/mpt.img" "$work/mptdisk.txt" ::/
  mpt="-device mptsas1068,id=scsi1,addr=0x7 -drive if=none,id=m0,format=raw,file=$work/mpt.img
    -device scsi-hd,drive=m0,bus=scsi1.0,scsi-id=1,lun=0"
fi

mkfifo "$work/ser.in" "$work/ser.out" "$work/mon.in" "$work/mon.out"
: >"$work/serial.log"
: >"$work/monitor.log"

"$qemu" -M pc -accel tcg -m 256 -nodefaults -display none -no-reboot \
  -drive if=pflash,format=raw,readonly=on,file="$code" \
  -drive if=pflash,format=raw,file="$work/vars.fd" \
  -drive if=none,id=boot,format=raw,file="$work/boot.img" \
  -device virtio-blk-pci,drive=boot,addr=0x5 \
  -device "$ctrl",id=scsi0,addr=0x6 \
  -drive if=none,id=d0,format=raw,file="$work/fat.img" \
  -device scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0,lun=0 \
  -drive if=none,id=d1,format=raw,file="$work/pat1.img" \
  -device scsi-hd,drive=d1,bus=scsi0.0,"$pat1" \
  -drive if=none,id=d2,format=raw,file="$work/pat2.img" \
  -device scsi-hd,drive=d2,bus=scsi0.0,scsi-id=2,lun=0 \
  -drive if=none,id=d3,format=raw,file="$work/big.img" \
  -device scsi-hd,drive=d3,bus=scsi0.0,scsi-id=3,lun=0 \
  -device scsi-cd,id=cd0,bus=scsi0.0,scsi-id=4,lun=0 $mpt \
  -serial pipe:"$work/ser" -monitor pipe:"$work/mon" \
  $trace -D "$work/trace.log" \
  "$@" >"$work/qemu.out" 2>&1 &
qpid=$!
# Drain both output pipes so QEMU never blocks on them.
cat "$work/ser.out" >>"$work/serial.log" &
spid=$!
cat "$work/mon.out" >>"$work/monitor.log" &
mpid=$!
cleanup() {
  # A wedged QEMU ignores SIGTERM.
  kill "$qpid" 2>/dev/null && sleep 1 && kill -9 "$qpid" 2>/dev/null || true
  kill "$spid" "$mpid" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# One writer each for the whole run: a FIFO whose last writer closes reads
# as end of file, and QEMU then stops reading that pipe for good.
exec 3<>"$work/ser.in" 4<>"$work/mon.in"
mon() { printf '%s\n' "$1" >&4; }
key() { printf '%s' "$1" >&3; }
seen() { tr -d '\r' <"$work/serial.log" | grep -c -- "$1" || true; }

start=$(date +%s)
skipped=0 armed=0 resumed=0 ebs=0
while kill -0 "$qpid" 2>/dev/null; do
  now=$(date +%s)
  if [ $((now - start)) -gt "$limit" ]; then
    echo "boot.sh: the VM ran past ${limit}s; killed" >&2
    echo "@BOOT-LIMIT" >>"$work/serial.log"
    break
  fi
  # Any key but ESC skips the shell's 5 s countdown before startup.nsh.
  if [ $skipped -eq 0 ] && [ "$(seen 'any other key')" -gt 0 ]; then
    key ' '
    skipped=1
  fi
  if [ "$(seen '@ARM')" -gt $armed ]; then
    # About 64 bytes a second for reads on target 2 (see pcamtest's t_timeout).
    mon 'block_set_io_throttle d2 0 64 0 0 0 0'
    sleep 1
    key 'g'
    armed=$((armed + 1))
  fi
  if [ $ebs -eq 0 ] && [ "$(seen '@EBSARM')" -gt 0 ]; then
    mon 'block_set_io_throttle d2 0 64 0 0 0 0'
    sleep 1
    key 'g'
    ebs=1
  fi
  if [ "$(seen '@RESUME')" -gt $resumed ]; then
    mon 'block_set_io_throttle d2 0 0 0 0 0 0'
    sleep 1
    key 'g'
    resumed=$((resumed + 1))
  fi
  sleep 0.3
done
end=$(date +%s)
wait "$qpid" 2>/dev/null || true
sleep 0.2
echo "boot.sh: VM ran $((end - start)) s" >&2
trap - EXIT INT TERM
cleanup
tr -d '\r' <"$work/serial.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$work/serial.txt"
grep -q '@SCRIPT-DONE' "$work/serial.txt" || {
  echo "boot.sh: the shell script did not finish; serial log tail:" >&2
  tail -n 40 "$work/serial.txt" >&2
  cat "$work/qemu.out" >&2
  exit 1
}
