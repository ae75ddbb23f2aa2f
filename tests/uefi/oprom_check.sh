#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Asserts on one of oprom_boot.sh's boots (WORK/KIND): the serial log
# (OVMF's boot manager lines, the kernel's, the guest's "PCAMU:" facts),
# QEMU's trace and the disk image QEMU left behind, against what the host
# knows on its own: which disk it made bootable and where, the file and
# data it put there, the seed file before the boot, the pattern the guest
# was told to write. Prints every failed expectation; exit 1 if any.
# usage: oprom_check.sh WORK KIND
set -eu
W=$1/$2
kind=$2
log=$W/serial.txt
fails=0
fail() { echo "FAIL: $kind: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $kind: $*"; }
expect() { if grep -Eq -- "$1" "$log"; then ok "$2"; else fail "$2 (no line matches: $1)"; fi; }
absent() { if grep -Eq -- "$1" "$log"; then fail "$2 (found: $(grep -E -m1 -- "$1" "$log"))"; else ok "$2"; fi; }
val() { sed -n "s/^PCAMU: $1 //p" "$log" | head -n 1; }
md5() { md5sum | cut -d' ' -f1; }
[ -f "$log" ] || { echo "FAIL: $kind: no serial log (did the boot run?)"; exit 1; }
if grep -q '@BOOT-LIMIT' "$W/times"; then fail "the VM ran past its time limit"; fi
sed 's/^/  time: /' "$W/times"

end_of_list() {
  expect 'BdsDxe: starting Boot[0-9A-F]{4} "EFI Internal Shell"' "the boot manager went on to its next option, OVMF's shell"
  if grep -Eq '^(shell|no-bootable) ' "$W/times"; then
    ok "the end of the boot list reached in $(sed -n 's/^\(shell\|no-bootable\) //p' "$W/times" | head -n 1) s: no hang"
  else
    fail "the boot manager never reached the end of its list"
  fi
}
if [ "$kind" = badrom ]; then
  # The ROM with a wrong EFI signature: OVMF never ran it, so nothing
  # touched the LSI's registers and its bootable disk never showed up.
  # (lsi_reset is QEMU resetting the device at power-on, not a driver)
  n=$(grep '^lsi_' "$W/trace.log" | grep -vc '^lsi_reset' || true)
  if [ "$n" -eq 0 ]; then ok "the LSI53C895A's ROM (EFI signature 0x0EF0) was refused: nothing but QEMU's own reset in its lsi_* trace"
  else fail "something drove the LSI53C895A whose ROM is bad ($n trace lines)"; fi
  absent 'Pci\(0x6,0x0\)/Scsi' "the disk behind the refused ROM is never a boot option"
  end_of_list
fi
if [ "$kind" = noesp ]; then
  n=$(grep -c '^esp_pci_dma_write' "$W/trace.log" || true)
  if [ "$n" -gt 0 ]; then ok "pcam ran from the AM53C974s' ROM ($n DMA register writes)"
  else fail "no DMA register write on the AM53C974s: pcam's ROM did not run"; fi
  expect 'BdsDxe: failed to load Boot[0-9A-F]{4} .*Pci\(0x6,0x0\)/Scsi\(0x3,0x1\).*Not Found' \
    "the disk with no ESP (ID 3 LUN 1) is a boot option that fails with Not Found, and the boot manager goes on"
  absent 'Pci\(0x7,0x0\)/Scsi' "the controller with no disk offers no boot option"
  expect 'pcam: Tekram DC-390 EEPROM: host ID 7, 32 tags per LUN' \
    "the DC-390's EEPROM (QEMU's own image) read through PciIo and taken"
  end_of_list
fi
case $kind in badrom|noesp)
  [ $fails -eq 0 ] && echo "oprom ($kind): all checks passed" || echo "oprom ($kind): $fails failed"
  exit $((fails != 0)) ;;
esac

case $kind in
  esp) bt=3 bl=1 drv=pcam ;;
  lsi) bt=5 bl=0 drv=pcam ;;
  lsi-sym53c8xx) bt=5 bl=0 drv=sym53c8xx ;;
esac
# ---- firmware era: the option ROM's driver found the disk and booted it
expect "BdsDxe: starting Boot[0-9A-F]{4} .*Pci\\(0x6,0x0\\)/Scsi\\(0x$bt,0x$bl\\)" \
  "the boot manager starts the SCSI disk at ID $bt LUN $bl (found through pcam's option ROM)"
if grep -Eq 'BdsDxe: failed to load Boot[0-9A-F]{4} .*Scsi\(0x0,0x0\)' "$log"; then
  ok "the disk with no ESP at ID 0 was tried first and fell through"
fi
expect 'Linux version' "Debian's kernel, loaded by systemd-boot from the SCSI disk, prints its first line"
expect 'EFI stub: Loaded initrd' "the EFI stub took the initramfs systemd-boot read from the disk"
# ---- hand-over: a Linux driver binds the same chip and finds the same disk
if [ $drv = pcam ]; then
  expect '^PCAMU: insmod pcam rc=0$' "pcam.ko loads after pcam's firmware driver"
else
  expect "^PCAMU: insmod $drv done\$" "Linux's $drv loads after pcam's firmware driver"
fi
expect "^PCAMU: disk $bt:$bl sd[a-z]+ " "the boot disk found again at ID $bt LUN $bl"
host=$(val host)
case $drv/$host in pcam/*pcam*|sym53c8xx/sym53c8xx) ok "the disk's host is $drv's ($host)" ;;
  *) fail "the disk's host is '$host', not $drv's" ;; esac
# The file systemd-boot rewrote in the firmware era (random-seed-mode
# always), read by Linux, equals what the image holds now and is not what
# the host wrote: a write through pcam's UEFI driver read back by Linux.
mcopy -n -i "$W/boot.img@@1M" ::/loader/random-seed "$W/seed.after" 2>/dev/null || fail "no random-seed in the ESP after the run"
orig=$(md5 <"$W/seed.orig")
after=$(md5 <"$W/seed.after" 2>/dev/null || true)
seen=$(val seed)
if [ "$after" != "$orig" ] && [ "$seen" = "$after" ]; then
  ok "loader/random-seed rewritten in the firmware era, read back by Linux ($seen)"
else
  fail "random-seed: host wrote $orig, image holds $after, Linux read '$seen'"
fi
if [ "$(val hostfile)" = "$(cat "$W/fromhost.txt")" ]; then ok "Linux reads the host's file on the ESP"
else fail "the ESP file Linux read: '$(val hostfile)', host wrote '$(cat "$W/fromhost.txt")'"; fi
data_off=$((2048 + 98304))
want=$(dd if="$W/data.img" bs=64k count=16 2>/dev/null | md5)
if [ "$(val data-read)" = "$want" ]; then ok "the data partition's first MiB as the host wrote it"
else fail "data partition read: $(val data-read), want $want"; fi
pat=$(yes PCAM-LINUX-AFTER-UEFI | head -c 1048576 | md5)
img=$(dd if="$W/boot.img" bs=512 skip=$((data_off + 4096)) count=2048 2>/dev/null | md5)
expect '^PCAMU: data-write rc=0$' "Linux's write to the data partition succeeds"
if [ "$img" = "$pat" ] && [ "$(val data-reread)" = "$pat" ]; then
  ok "the MiB Linux wrote is in the image after QEMU exits"
else
  fail "Linux's write: image $img, reread $(val data-reread), want $pat"
fi
expect '^PCAMU: kernel-bugs 0$' "no kernel WARNING/BUG/Oops"
expect '^PCAMU: DONE' "the guest ran to its end"
[ $fails -eq 0 ] && echo "oprom ($kind): all checks passed" || echo "oprom ($kind): $fails failed"
exit $((fails != 0))
