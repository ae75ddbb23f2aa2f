#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# freebsd-vm.boot.CHIP: FreeBSD 13.2 (../shared/freebsd's kernel) with our
# pcam.ko preloaded, booted under QEMU TCG: OVMF -> loader.efi from a FAT
# image -> the kernel, with one SCSI controller and its disks:
#   esp: -device am53c974 (hal/esp): disks at target 0 LUN 0, target 0
#        LUN 1 (a LUN above 0), target 2 LUN 0, target 3 (3 TiB, sparse);
#        a CD at target 4
#   sym: -device lsi53c895a (hal/sym): disks at targets 0, 1, 2 and 3 (3
#        TiB; QEMU's model answers no LUN above 0); a CD at target 4
# Every disk has its own size, so the console shows which one CAM found
# where. Target 0 LUN 0 is a FAT root file system that the kernel mounts
# through pcam (vfs.root.mountfrom=msdosfs:/dev/da0, da0 wired to it by
# hints); its /sbin/init is our own static program (guest/init.c, no
# libc), which reads and writes every other disk through /dev/daN, prints
# PCAMTEST lines and powers the VM off. The other disks hold a pattern
# (guest/pattern.h). The host then asserts on the console: the pcam attach
# line, every `daN at pcam0 (or sym0) bus 0 scbus0 target T lun L` with `daN: S MB
# (B 512 byte sectors)` for that disk's size, the cd, no panic, linker
# refusal or CAM error, and every PCAMTEST result for every data disk; and
# checks each data image after QEMU has exited (guest/imgcheck.c).
# The sym chip's I/O boot with pcam.ko also has a SAS1068 (-device
# mptsas1068, hal/mpt in the same pcam.ko, pcam1) with a 20 MiB pattern
# disk at target 6 (an ID no disk of the LSI bus has, so QEMU's trace,
# which names no bus, keeps them apart), wired to da7 by hints so that the
# LSI bus's disks keep their numbers: init.c tests it like every other
# disk, and the host asserts its attach, its results, its image and that
# CAM logged nothing on pcam1.
# After its I/O the guest resets the bus (XPT_RESET_BUS through
# /dev/xpt0) and reads the disk again, then sends bad input through that
# disk's pass(4) device; the host asserts the statuses it printed and, in
# QEMU's trace, the reset's UNIT ATTENTION and the re-reads after it.
# With pcam.ko the guest then has a read held past its CAM timeout (the
# host throttles target 2's drive through QEMU's monitor), the same read
# aborted by XPT_ABORT from the test module pcamabort.ko (guest/abort.c,
# guest/abortmod.c), and disks removed
# and added (device_del / device_add through the monitor); see the checks
# near the end.
# Target 2's disk fails block PAT_FAULT_LBA with MEDIUM ERROR (blkdebug,
# ENODATA: 3/11/00) on reads on the AM53C974 and on writes on the LSI53C895A
# (whose model loses the status of a failed read that disconnected,
# ../shared/QEMU.md): the guest must get EIO for exactly that operation and
# the console must show CAM's decoded sense for it.
# The init also times the seed's disklate method on da1 (see init.c); the
# host prints command overhead, rate and random reads per second from it.
# With DRIVER sym (chip sym only) the loader loads FreeBSD's own sym.ko
# instead of pcam.ko: the same image, I/O checks and timing with sym(4), the
# peer for the disklate table (osshim/freebsd/README.md).
# With MODE dump (freebsd-vm.dump.CHIP) the root is a memory disk the
# loader preloads (md0) and the disks are a 16 MiB and a 256 MiB pattern
# disk at targets 0 and 1; the guest first unloads and loads pcam.ko
# (guest/reload.c, the checks near the end), then makes da1 the dump device
# (DIOCSKERNELDUMP, as dumpon(8)) and panics (debug.kdb.panic, the debugger
# off): the kernel writes its minidump through pcam's SIM poll routine with
# interrupts off and resets; the host finds the dump's headers and the
# minidump on the image (imgcheck dump) and its size as the console gave it.
# With MODE soak (freebsd-vm.soak.sym) the disks are the root and two
# 64 MiB pattern disks at targets 1 and 2; the guest runs two workers per
# disk (init.c soak()) for PCAM_FBSD_SOAK_S seconds (default 30) of random
# reads and writes of self-identifying sectors, every read checked, then
# reads back every chunk; the host requires 0 wrong sectors and 0 I/O
# errors, that the targets saw exactly as many WRITE commands as the
# workers issued (QEMU's trace), and that every block of both images is the
# host pattern or that disk's soak sector for that LBA (imgcheck soak).
# With MODE bench (bench/freebsd-icount.sh, freebsd-vm.bench.sym) the disks
# are the root and a null-co disk at target 1 whose reads QEMU completes
# PCAM_BENCH_LATENCY_NS (1 ms) of host time later, under QEMU's
# instruction-counting clock (-icount shift=0); the guest (init.c icbench())
# prints the vCPU's busy guest time per read, i.e. guest instructions
# (osshim/freebsd/README.md, "Deterministic benchmark"); the host requires
# the three figures.
# usage: boot.sh PROJECT_SOURCE_DIR WORKDIR esp|sym IMGCHECK [pcam|sym] [io|dump|soak|bench]
# env: PCAM_FBSD_SOAK_S (soak seconds); for debugging by hand:
# PCAM_FBSD_BOOT_LIMIT (seconds, 900), PCAM_FBSD_QEMU_EXTRA (more QEMU arguments,
# e.g. "-trace scsi_req_parsed -D trace.log"), PCAM_FBSD_LOADER_EXTRA
# (more loader.conf lines, e.g. boot_verbose="YES")
set -eu
src=$1 work=$2 chip=$3 imgcheck=$4 driver=${5:-pcam} mode=${6:-io}
limit=${PCAM_FBSD_BOOT_LIMIT:-900}
qemu=${QEMU:-qemu-system-x86_64}
code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE.fd}
vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS.fd}
fbsd=""
for d in "$src/../shared/freebsd" /work/shared/freebsd; do
  if [ -f "$d/kernel" ] && [ -f "$d/loader.efi" ]; then fbsd=$(cd "$d" && pwd); break; fi
done
[ -n "$fbsd" ] || { echo "FAIL: no FreeBSD sysroot at $src/../shared/freebsd or /work/shared/freebsd" >&2; exit 1; }
for t in "$qemu" mkfs.fat mmd mcopy clang-19 ld.lld-19; do
  command -v "$t" >/dev/null 2>&1 || { echo "FAIL: $t missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
for f in "$code" "$vars"; do [ -f "$f" ] || { echo "FAIL: $f missing (ovmf)" >&2; exit 1; }; done

# target:lun:MiB of each disk (the first is the FAT root, the others
# pattern disks), and the controller.
case $chip in
  esp) dev=am53c974 desc="AMD Am53C974 SCSI (pcam)" disks="0:0:16 0:1:24 2:0:40 3:0:3145728"
       fault_ev=read fault_op=fault-read ;;
  sym) dev=lsi53c895a desc="LSI 53C895A SCSI (pcam)" disks="0:0:16 1:0:24 2:0:40 3:0:3145728"
       fault_ev=write fault_op=fault-write ;;
  *) echo "usage: boot.sh SRC WORK esp|sym IMGCHECK [pcam|sym]" >&2; exit 2 ;;
esac
[ "$mode" = dump ] && disks="0:0:16 1:0:256"
# The AM53C974's dump boot runs on QEMU's Tekram DC-390 (the same chip and
# IDs with an EEPROM, which pcam.ko reads; the I/O boot keeps the plain one).
[ "$mode" = dump ] && [ "$chip" = esp ] && dev=dc390
[ "$mode" = soak ] && disks="0:0:16 1:0:64 2:0:64"
[ "$mode" = bench ] && disks="0:0:16"
soak_s=${PCAM_FBSD_SOAK_S:-30}
# Hot removal and addition (init.c's hotplug(), pcam.ko's I/O boots only):
# disk index 3 (target 3, 3 TiB) goes while idle, index 2 (target 2, 40 MiB)
# during reads, and a 32 MiB disk comes at target 5.
hotplug=0
[ "$mode" = io ] && [ "$driver" = pcam ] && hotplug=1
mpt=0
[ $hotplug = 1 ] && [ "$chip" = sym ] && mpt=1
mptdesc="LSI SAS1068 SCSI (pcam)" mpt_t=6 mpt_mb=20
# hba: the SIM's name on the console.
case $driver in
  pcam) hba=pcam0 ;;
  sym) hba=sym0; [ "$chip" = sym ] || { echo "boot.sh: sym.ko drives the sym chip only" >&2; exit 2; } ;;
  *) echo "usage: boot.sh SRC WORK esp|sym IMGCHECK [pcam|sym]" >&2; exit 2 ;;
esac

rm -rf "$work"
mkdir -p "$work"
sh "$src/osshim/freebsd/kmod_build.sh" "$fbsd/kmod-sdk" "$work/ko" >"$work/kmod_build.log" 2>&1 ||
  { cat "$work/kmod_build.log"; echo "FAIL: pcam.ko did not build" >&2; exit 1; }
# The XPT_ABORT test module (guest/abortmod.c), preloaded in the hot-plug
# boots; the same flags.
sh "$src/osshim/freebsd/kmod_build.sh" "$fbsd/kmod-sdk" "$work/ko" pcamabort "$src/tests/freebsd/guest/abortmod.c" \
  >>"$work/kmod_build.log" 2>&1 || { cat "$work/kmod_build.log"; echo "FAIL: pcamabort.ko did not build" >&2; exit 1; }

# The root file system: da0 through pcam, but in the dump boots a memory
# disk the loader preloads (md_image; md(4) attaches preloaded images
# without MD_ROOT, and vfs.root.mountfrom names it), so that pcam.ko can be
# unloaded and loaded again under it (guest/reload.c).
rootdev=da0 mdroot="" abortmod="" mpthints=""
[ $hotplug = 1 ] && abortmod='pcamabort_load="YES"
'
[ $mpt = 1 ] && mpthints="hint.scbus.1.at=\"pcam1\"
hint.da.7.at=\"scbus1\"
hint.da.7.target=\"$mpt_t\"
hint.da.7.unit=\"0\"
"

if [ "$mode" = dump ]; then
  rootdev=md0
  mdroot='mdroot_load="YES"
mdroot_type="md_image"
mdroot_name="/boot/mdroot.img"
'
fi

# The boot FAT: loader.efi as the removable-media boot program, /boot with
# the kernel, pcam.ko and the loader's lua and defaults, and a loader.conf
# that preloads pcam and puts the console on the serial port.
st=$work/stage
mkdir -p "$st/EFI/BOOT" "$st/boot/kernel" "$st/boot/lua" "$st/boot/defaults"
cp "$fbsd/loader.efi" "$st/EFI/BOOT/BOOTX64.EFI"
cp "$fbsd/kernel" "$work/ko/pcam.ko" "$work/ko/pcamabort.ko" "$fbsd/sym.ko" "$st/boot/kernel/"
cp "$fbsd"/boot/lua/*.lua "$st/boot/lua/"
cp "$fbsd/boot/defaults/loader.conf" "$st/boot/defaults/"
cat >"$st/boot/loader.conf" <<EOF
autoboot_delay="0"
beastie_disable="YES"
console="comconsole"
boot_serial="YES"
comconsole_speed="115200"
${driver}_load="YES"
hint.scbus.0.at="$hba"
hint.da.0.at="scbus0"
hint.da.0.target="0"
hint.da.0.unit="0"
vfs.root.mountfrom="msdosfs:/dev/$rootdev"
${mdroot}${abortmod}${mpthints}pcamtest.mode="$mode"
pcamtest.soak_s="$soak_s"
pcamtest.hotplug="$hotplug"
kern.cam.da.default_timeout="10"
kern.panic_reboot_wait_time="0"
${PCAM_FBSD_LOADER_EXTRA:-}
EOF
# FAT16 of 48 MiB: room for the 6 MiB kernel, and enough clusters that
# mkfs.fat does not pick FAT12.
mkfs.fat -C -n FBSDBOOT "$work/boot.img" 49152 >/dev/null
(cd "$st" && find . -mindepth 1 -type d | sed 's|^\./||' | sort | while read -r d; do mmd -i "$work/boot.img" "::$d"; done
 find . -type f | sed 's|^\./||' | while read -r f; do mcopy -i "$work/boot.img" "$f" "::$f"; done)

# /sbin/init: static, FreeBSD-branded, no libc, no stack protector (that
# would need libc's guard).
for g in init reload abort; do
  clang-19 -target x86_64-unknown-freebsd13.2 -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror \
    -ffreestanding -fno-builtin -fno-stack-protector -fno-pic -c "$src/tests/freebsd/guest/$g.c" -o "$work/$g.o"
done
ld.lld-19 -m elf_x86_64_fbsd -static -e _start -o "$work/init" "$work/init.o" "$work/reload.o" "$work/abort.o"
if [ "$mode" = dump ]; then
  # The memory-disk root: /sbin/init, /dev for devfs and a pcam.ko to kldload.
  mkfs.fat -C -n PCAMMD "$work/mdroot.img" 2048 >/dev/null
  mmd -i "$work/mdroot.img" ::sbin ::dev
  mcopy -i "$work/mdroot.img" "$work/init" ::sbin/init
  mcopy -i "$work/mdroot.img" "$work/ko/pcam.ko" ::pcam.ko
  mcopy -i "$work/boot.img" "$work/mdroot.img" ::boot/mdroot.img
fi

# The disks: the FAT root (with /dev for devfs), the pattern disks, and the
# CD medium (2 MiB = 1024 sectors of 2048).
scsi=""
n=0
for d in $disks; do
  t=${d%%:*} rest=${d#*:}; l=${rest%%:*} mb=${rest#*:}
  if [ $n -eq 0 ] && [ $rootdev = da0 ]; then
    mkfs.fat -C -n PCAMROOT "$work/disk0.img" $((mb * 1024)) >/dev/null
    mmd -i "$work/disk0.img" ::sbin ::dev
    mcopy -i "$work/disk0.img" "$work/init" ::sbin/init
  elif [ "$mb" -gt 2097152 ]; then
    "$imgcheck" big "$work/disk$n.img" $((mb * 2048))
  else
    "$imgcheck" make "$work/disk$n.img" $((mb * 2048))
  fi
  if [ "$t" -eq 2 ] && [ "$mode" = io ]; then
    # The fault: ENODATA on one block, every time (CAM retries, then EIO).
    # (iotype: without it the rule, once its event fired, fails every kind
    # of I/O on the block)
    printf '[inject-error]\nevent = "%s_aio"\niotype = "%s"\nerrno = "61"\nsector = "20000"\n' \
      "$fault_ev" "$fault_ev" >"$work/blkdebug.conf"
    scsi="$scsi -drive if=none,id=d$n,driver=raw,file.driver=blkdebug,file.config=$work/blkdebug.conf,file.image.filename=$work/disk$n.img"
  else
    scsi="$scsi -drive if=none,id=d$n,format=raw,file=$work/disk$n.img"
  fi
  scsi="$scsi -device scsi-hd,drive=d$n,id=hd$n,bus=scsi0.0,scsi-id=$t,lun=$l"
  n=$((n + 1))
done
icount=""
if [ "$mode" = bench ]; then
  icount="-icount shift=0,sleep=on,align=off"
  scsi="$scsi -blockdev driver=null-co,node-name=nul1,size=1073741824,read-zeroes=on,latency-ns=${PCAM_BENCH_LATENCY_NS:-1000000}"
  scsi="$scsi -device scsi-hd,drive=nul1,id=hd1,bus=scsi0.0,scsi-id=1,lun=0"
fi
mptdev=""
if [ $mpt = 1 ]; then
  "$imgcheck" make "$work/mpt.img" $((mpt_mb * 2048))
  mptdev="-device mptsas1068,id=scsi1 -drive if=none,id=dm,format=raw,file=$work/mpt.img
    -device scsi-hd,drive=dm,id=hdm,bus=scsi1.0,scsi-id=$mpt_t,lun=0"
fi
truncate -s 2M "$work/cd.iso"
cp "$vars" "$work/vars.fd"
: >"$work/console.log"

t0=$(date +%s)
# QEMU's trace: each command as the target saw it (target, LUN, opcode),
# each sense it built, each UNIT ATTENTION a reset set and each BUS DEVICE
# RESET message the LSI53C895A took.
# shellcheck disable=SC2086
# The monitor on two pipes, for the hot-plug commands (mon.in) and their
# answers (mon.out, drained into mon.log); the hot disk's drive is there
# from the start, its device comes with device_add.
rm -f "$work/mon.in" "$work/mon.out"
mkfifo "$work/mon.in" "$work/mon.out"
cat "$work/mon.out" >"$work/mon.log" &
catpid=$!
"$imgcheck" make "$work/hot.img" $((32 * 2048))
# shellcheck disable=SC2086
"$qemu" -M pc -accel tcg -m 512 -smp 1 -display none -no-reboot $icount \
  -chardev pipe,id=mon,path="$work/mon" -mon chardev=mon,mode=readline \
  -drive if=none,id=dhot,format=raw,file="$work/hot.img" \
  -drive if=pflash,format=raw,readonly=on,file="$code" \
  -drive if=pflash,format=raw,file="$work/vars.fd" \
  -drive if=none,id=boot,format=raw,file="$work/boot.img" \
  -device virtio-blk-pci,drive=boot,bootindex=0 \
  -device "$dev",id=scsi0 $scsi \
  -drive if=none,id=cd,format=raw,media=cdrom,readonly=on,file="$work/cd.iso" \
  -device scsi-cd,drive=cd,bus=scsi0.0,scsi-id=4,lun=0 $mptdev \
  -trace scsi_req_parsed -trace scsi_req_build_sense -trace scsi_device_set_ua -trace lsi_do_msgout_busdevicereset -trace lsi_do_msgout_abort -trace scsi_req_cancel -D "$work/trace.log" \
  -serial file:"$work/console.log" ${PCAM_FBSD_QEMU_EXTRA:-} >"$work/qemu.out" 2>&1 &
qpid=$!
trap 'kill $qpid $catpid 2>/dev/null || true' EXIT INT TERM
result=limit
mon() { echo "$1" >"$work/mon.in"; echo "monitor: $1"; }
hp=0
while kill -0 $qpid 2>/dev/null; do
  sleep 1
  if [ $hotplug = 1 ]; then
    case $hp in
      0) grep -aqE '^PCAMTEST hold da[0-9]+ ready' "$work/console.log" && { mon "block_set_io_throttle d2 200 0 0 0 0 0"; hp=1; } ;;
      1) grep -aqE "^\(da[0-9]+:$hba:0:2:0\): CAM status: Command timeout" "$work/console.log" &&
           { mon "block_set_io_throttle d2 0 0 0 0 0 0"; hp=2; } ;;
      2) grep -aqE '^PCAMTEST abort ready' "$work/console.log" && { mon "block_set_io_throttle d2 200 0 0 0 0 0"; hp=20; } ;;
      20) grep -aqE '^PCAMTEST abort end' "$work/console.log" && { mon "block_set_io_throttle d2 0 0 0 0 0 0"; hp=21; } ;;
      21) grep -aqE '^PCAMTEST hot-del-idle da[0-9]+ ready' "$work/console.log" && { mon "device_del hd3"; hp=3; } ;;
      3) grep -aqE '^PCAMTEST hot-del-io da[0-9]+ ready' "$work/console.log" && { sleep 1; mon "device_del hd2"; hp=4; } ;;
      4) grep -aqE '^PCAMTEST hot-add ready' "$work/console.log" &&
           { mon "device_add scsi-hd,drive=dhot,id=hdhot,bus=scsi0.0,scsi-id=5,lun=0"; hp=5; } ;;
    esac
  fi
  if grep -aq 'mountroot>' "$work/console.log"; then result=mountroot; sleep 1; break; fi
  if [ "$mode" = io ] && grep -aqE 'panic:|Fatal trap' "$work/console.log"; then result=panic; sleep 5; break; fi
  [ $(($(date +%s) - t0)) -lt "$limit" ] || break
done
kill -0 $qpid 2>/dev/null || result=poweroff
kill $qpid 2>/dev/null || true
wait $qpid 2>/dev/null || true
kill $catpid 2>/dev/null || true
wait $catpid 2>/dev/null || true
trap - EXIT INT TERM
secs=$(($(date +%s) - t0))
tr -d '\r' <"$work/console.log" >"$work/console.txt"
# The I/O checks read the console up to the hot-plug part (pre), which
# removes disks and reuses their unit numbers; that part is checked on its own (post).
pre=$work/console.pre post=$work/console.post
sed '/^PCAMTEST hot-del-idle da[0-9]* ready$/q' "$work/console.txt" >"$pre"
sed -n '/^PCAMTEST hot-del-idle da[0-9]* ready$/,$p' "$work/console.txt" >"$post"
echo "boot ($chip): $result after $secs s; console in $work/console.txt"
grep -aE 'pcam|^da[0-9]|^cd[0-9]|KLD|reloc|panic|Fatal|mountroot|PCAMTEST' "$work/console.txt" | head -80

fail=0
no() { echo "FAIL: $*" >&2; fail=1; }
[ $result = poweroff ] || no "the guest did not power off ($result; QEMU said: $(head -c 300 "$work/qemu.out"))"
if [ "$mode" = bench ]; then
  grep -a '^PCAMTEST icount ' "$work/console.txt" | tee "$work/icount.txt"
  for w in reread4096 reread8192 rand1; do
    grep -aqE "^PCAMTEST icount $w n 2000 busy_ns [1-9][0-9]* elapsed_ns [1-9][0-9]*\$" "$work/console.txt" ||
      no "no busy time for $w"
  done
  [ $fail -eq 0 ] && echo "PASS: FreeBSD 13.2 + $driver.ko on $dev under -icount: busy guest time per read printed, $secs s"
  exit $fail
fi
grep -aqE 'unexpected relocation|KLD .*failed|cannot load|error loading' "$work/console.txt" && no "a module load error on the console"
if [ $driver = pcam ]; then
  grep -aqF "pcam0: <$desc>" "$work/console.txt" || no "no 'pcam0: <$desc>' attach line"
  # Nothing from pcam but its attach line (it logs warnings and errors
  # only), the bad CCBs the guest sends through pass(4) below (one
  # "refused CCB" line each), on the AM53C974 the refused device reset, and
  # on the DC-390 (the dump boot) the EEPROM it read.
  refused="pcam0: pcam: target went on to a command instead of acting on our abort or reset message: COMMAND"
  # The held read on the AM53C974 (below): still connected (the model never
  # disconnects), so the ladder goes from the abort straight to a bus reset.
  heldbus="pcam0: pcam: abort did not finish and the target holds the bus; resetting the bus"
  # In the hot-plug part also the core's recovery of a read whose target
  # vanished under it (the AM53C974 and LSI53C895A models may drop it):
  # abort, device reset, bus reset.
  { cat "$pre"; grep -avxE "pcam0: pcam: (abort did not finish; sending BUS DEVICE RESET|device reset did not finish; resetting the bus|abort did not finish and the target holds the bus; resetting the bus)" "$post" | tail -n +2; } |
    grep -a '^pcam0: ' | grep -avF "pcam0: <$desc>" | grep -avxF "pcam0: detach refused: da0 is open" | grep -avxF "pcam0: detached" | grep -avE '^pcam0: refused CCB: function 0x(901|30) target [0-9]+ lun 0, CAM status 0x06$' |
    grep -avxF "pcam0: Tekram DC-390 EEPROM: host ID 7, 32 tags per LUN" |
    { if [ $chip = esp ]; then grep -avxF "$refused" | grep -avxF "$heldbus"; else cat; fi; } |
    sed 's/^/unexpected: /' | grep . && no "pcam0 logged more than its attach line"
fi
# The crash dump boot: the guest set da1 (target 1) as the dump device and
# panicked; the kernel dumped through pcam with interrupts off (da(4)'s
# dadump -> xpt_polled_action -> the SIM poll routine) and reset, which
# ends QEMU (-no-reboot). The console must show the panic, minidumpsys's
# "Dumping N out of M MB:" and "Dump complete"; the image the trailing and
# leading headers, the minidump, N MB of it, and its other blocks untouched.
# The sustained load (init.c soak()): each worker's counters, the WRITE
# commands the targets saw (WRITE(6) 10, WRITE(10) 42 in QEMU's trace) equal
# to the workers' writes, tagged queuing on both disks, and the images.
if [ "$mode" = soak ]; then
  grep -aqxF "PCAMTEST soak start $soak_s s" "$work/console.txt" || no "no 'PCAMTEST soak start $soak_s s'"
  grep -aqxF "PCAMTEST soak end, workers 4" "$work/console.txt" || no "no 'PCAMTEST soak end, workers 4'"
  grep -aqxF "PCAMTEST done, failures 0" "$work/console.txt" || no "no 'PCAMTEST done, failures 0'"
  nw=$(grep -acE '^PCAMTEST soak da[12] w[01] reads [0-9]+ writes [0-9]+ sectors-in [0-9]+ sectors-out [0-9]+ wrong 0 ioerr 0$' "$work/console.txt" || true)
  [ "$nw" -eq 4 ] || no "$nw of 4 soak workers reported 0 wrong sectors and 0 I/O errors: $(grep -a '^PCAMTEST soak da' "$work/console.txt")"
  for u in 1 2; do
    grep -aqxF "da$u at $hba bus 0 scbus0 target $u lun 0" "$work/console.txt" || no "da$u is not target $u"
    [ $chip = sym ] && { grep -aqxF "da$u: Command Queueing enabled" "$work/console.txt" || no "no tagged queuing on da$u"; }
  done
  sum() { awk -v f="$1" '/^PCAMTEST soak da[12] w[01] reads/ { for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1) } END { print s + 0 }' "$work/console.txt"; }
  gw=$(sum writes) gr=$(sum reads) gi=$(sum sectors-in) go=$(sum sectors-out)
  tw=$(grep -cE '^scsi_req_parsed target [12] lun 0 tag [0-9]+ command (10|42) ' "$work/trace.log" || true)
  tr_=$(grep -cE '^scsi_req_parsed target [12] lun 0 tag [0-9]+ command (8|40) ' "$work/trace.log" || true)
  [ "$gw" -gt 0 ] && [ "$tw" -eq "$gw" ] || no "the workers wrote $gw times, the targets saw $tw WRITE commands"
  [ "$tr_" -ge "$gr" ] || no "the workers read $gr times, the targets saw only $tr_ READ commands"
  for n in 1 2; do
    "$imgcheck" soak "$work/disk$n.img" $((64 * 2048)) $n || no "disk$n.img holds a block that is neither the host pattern nor da$n's soak sector for it"
  done
  [ $fail -eq 0 ] && echo "PASS: FreeBSD 13.2 + $driver.ko on $dev: $soak_s s of random I/O on two disks by 4 workers: $gr reads ($gi sectors, every one checked), $gw writes ($go sectors) = $tw WRITE commands at the targets, 0 wrong, $secs s"
  exit $fail
fi
# Detach and reload before the dump (guest/reload.c; root on md0): kldunload
# refused (EBUSY) while da0 is held open, with pcam's one console line, and
# the held disk still reading; then unloaded, its disks and its interrupt
# gone; ten load/I/O/unload cycles and a last load: each load attaches
# pcam0 and the same two disks at the same numbers (12 attach lines each,
# no other daN), each unload detaches both.
if [ "$mode" = dump ]; then
  for l in "PCAMTEST reload boot-disks 0" "PCAMTEST reload preloaded-intr 1" "PCAMTEST reload unload-open -16" "PCAMTEST reload held-read 0" \
           "PCAMTEST reload unload-closed 0" "PCAMTEST reload loaded-again 0" "$hba: detach refused: da0 is open"; do
    grep -aqxF "$l" "$work/console.txt" || no "no '$l' on the console"
  done
  [ "$(grep -acxF "$hba: detach refused: da0 is open" "$work/console.txt")" -eq 1 ] || no "more than one 'detach refused' line"
  nc=$(grep -acE '^PCAMTEST reload cycle [0-9]+ ok, disks after [0-9]+ ms, wired [0-9]+$' "$work/console.txt" || true)
  [ "$nc" -eq 10 ] || no "$nc of 10 reload cycles ok: $(grep -a '^PCAMTEST reload ' "$work/console.txt" | tail -n 3)"
  # (da(4) prints "daN at ..." again when it detaches: 12 + 11.)
  for tmb in 0:16 1:256; do
    tu=${tmb%%:*} mb=${tmb#*:}
    na=$(grep -acxF "da$tu at $hba bus 0 scbus0 target $tu lun 0" "$work/console.txt" || true)
    ns=$(grep -acxF "da$tu: ${mb}MB ($((mb * 2048)) 512 byte sectors)" "$work/console.txt" || true)
    nd=$(grep -acE "^da$tu: <.*> +detached\$" "$work/console.txt" || true)
    [ "$na" -eq 23 ] && [ "$ns" -eq 12 ] && [ "$nd" -eq 11 ] ||
      no "da$tu (target $tu): $na 'at' lines (23 expected), $ns size lines (12), $nd detached (11)"
  done
  na=$(grep -acF "pcam0: <$desc>" "$work/console.txt" || true)
  nd=$(grep -acxF "pcam0: detached" "$work/console.txt" || true)
  [ "$na" -eq 12 ] && [ "$nd" -eq 11 ] || no "$na 'pcam0: <$desc>' attach lines (12 expected), $nd 'pcam0: detached' (11)"
  grep -aE "^da([2-9]|[0-9][0-9]+) at " "$work/console.txt" | sed 's/^/unexpected: /' | grep . && no "a disk attached at a new number"
  "$imgcheck" check "$work/disk0.img" $((16 * 2048)) || no "disk0.img (target 0) is not what the reload cycles wrote"
  w0=$(sed -n 's/^PCAMTEST reload wired-after-unload \([0-9]*\)$/\1/p' "$work/console.txt")
  w10=$(sed -n 's/^PCAMTEST reload cycle 10 ok, .*, wired \([0-9]*\)$/\1/p' "$work/console.txt")
  w1=$(sed -n 's/^PCAMTEST reload cycle 1 ok, .*, wired \([0-9]*\)$/\1/p' "$work/console.txt")
  echo "reload: 10 cycles; wired pages after the first unload ${w0:-?}, after cycle 1 ${w1:-?}, after cycle 10 ${w10:-?}; load to disks (ms): $(sed -n 's/^PCAMTEST reload cycle [0-9]* ok, disks after \([0-9]*\) ms.*/\1/p' "$work/console.txt" | tr '\n' ' ')"
  # The LSI53C895A's DMA area (32 windows of 64 KiB, wired and contiguous)
  # is 512 pages: the nine cycles after the first must not have kept one.
  # (Both chips grow by about 9 pages a cycle, the area's size not
  # mattering: the kernel's own caches; the AM53C974's 16-page window is
  # too small to tell apart from that.)
  if [ $chip = sym ] && [ -n "$w1" ] && [ -n "$w10" ] && [ $((w10 - w1)) -ge 512 ]; then
    no "wired pages grew by $((w10 - w1)) over nine load/unload cycles: the DMA area is not freed"
  fi
  for l in "PCAMTEST dumpon da1 0" "PCAMTEST debugger_on_panic 0: 0" "PCAMTEST panic now" "panic: kdb_sysctl_panic" \
           "Dump complete"; do
    grep -aqxF "$l" "$work/console.txt" || no "no '$l' on the console"
  done
  grep -aqxF "da1 at $hba bus 0 scbus0 target 1 lun 0" "$work/console.txt" || no "no 'da1 at $hba bus 0 scbus0 target 1 lun 0'"
  if [ "$dev" = dc390 ]; then
    grep -aqxF "pcam0: Tekram DC-390 EEPROM: host ID 7, 32 tags per LUN" "$work/console.txt" ||
      no "no 'pcam0: Tekram DC-390 EEPROM: host ID 7, 32 tags per LUN' (QEMU's own EEPROM image)"
  fi
  grep -aiE "^\((da|cd|pass|probe)[0-9]+:$hba:[0-9]+:[0-9]+:[0-9]+\): .*(error|retry|retrying|timeout)" "$work/console.txt" &&
    no "CAM reported errors on $hba"
  dmb=$(sed -n 's/^Dumping \([0-9]*\) out of [0-9]* MB:.*/\1/p' "$work/console.txt" | head -n 1)
  if [ -z "$dmb" ]; then
    no "no 'Dumping N out of M MB:' on the console"
  else
    "$imgcheck" dump "$work/disk1.img" $((256 * 2048)) kdb_sysctl_panic "$dmb" || no "disk1.img holds no good $dmb MB dump"
  fi
  [ $fail -eq 0 ] && echo "PASS: FreeBSD 13.2 + $driver.ko on $dev: a $dmb MB kernel dump written through pcam's poll routine, $secs s"
  exit $fail
fi
# No CAM error, retry or timeout on the bus but the injected one on target
# 2 (GEOM has read every disk), and for that one CAM's decoded sense.
grep -aiE "^\((da|cd|pass|probe)[0-9]+:$hba:[0-9]+:[013-9]:[0-9]+\): .*(error|retry|retrying|timeout|status)" "$pre" &&
  no "CAM reported errors on $hba"
grep -aqE "^\(da[0-9]+:$hba:0:2:0\): SCSI sense: MEDIUM ERROR asc:11,0 " "$pre" ||
  no "no MEDIUM ERROR asc:11,0 sense for target 2 on the console"
grep -aqE "^$hba: .* (port|irq) " "$pre" || no "$hba got no port/irq from the PCI bus"
# Each disk: the unit CAM gave it at that target and LUN, then its size.
# A LUN above 0 on the AM53C974 is what QEMU 7.2 makes special: at boot
# CAM's probe sends it INQUIRY, the VPD pages and TEST UNIT READY, which
# meets the UNIT ATTENTION (29/00) the model holds after a reset; pcam's
# REQUEST SENSE to that LUN is answered 5/25/00 LOGICAL UNIT NOT SUPPORTED
# by the model's target-command path (../shared/QEMU.md), and CAM drops a
# LUN that says so. The guest's rescan after its bus reset (XPT_SCAN_BUS,
# init.c) probes it again the same way through pcam, and then it attaches:
# every disk must attach, at boot or by that rescan (the host says which),
# and is then checked like the others (init.c tests a disk the rescan
# found after the rescan).
attached=0
rescan_at=$(grep -anxF "PCAMTEST reset-bus 0 status 1" "$pre" | head -n 1 | cut -d: -f1)
n=-1
for d in $disks; do
  n=$((n + 1))
  t=${d%%:*} rest=${d#*:}; l=${rest%%:*} mb=${rest#*:}
  unit=$(sed -n "s/^\(da[0-9]*\) at $hba bus 0 scbus0 target $t lun $l\$/\1/p" "$pre" | head -n 1)
  if [ -z "$unit" ]; then no "no 'daN at $hba bus 0 scbus0 target $t lun $l'"; continue; fi
  at=$(grep -anxF "$unit at $hba bus 0 scbus0 target $t lun $l" "$pre" | head -n 1 | cut -d: -f1)
  if [ -n "$rescan_at" ] && [ "$at" -gt "$rescan_at" ]; then
    seen() { grep -c "^scsi_req_parsed target $t lun $l tag [0-9]* command $1 " "$work/trace.log" || true; }
    echo "ok: target $t lun $l found by the guest's rescan (XPT_SCAN_BUS) as $unit; INQUIRY $(seen 18)x, TEST UNIT READY $(seen 0)x, REQUEST SENSE $(seen 3)x at that LUN in QEMU's trace"
  fi
  attached=$((attached + 1))
  line="$unit: ${mb}MB ($((mb * 2048)) 512 byte sectors)"
  if grep -aqxF "$line" "$pre"; then
    echo "ok: $unit at target $t lun $l: $line"
  else
    no "expected '$line' (target $t lun $l), got: $(grep -a "^$unit: [0-9]*MB" "$pre" | head -n 1)"
  fi
  if [ $n -eq 0 ]; then
    [ "$unit" = da0 ] || no "the root disk is $unit, not da0"
    continue
  fi
  # The guest's results for this disk, then the image itself.
  grep -aqxF "PCAMTEST $unit size $((mb * 1048576))" "$pre" || no "no 'PCAMTEST $unit size $((mb * 1048576))'"
  # Over 2 TiB: the reads and writes above block 2^32 only.
  if [ "$mb" -gt 2097152 ]; then whats="read-2t write-2t readback-2t" mode=checkbig
  else whats="read-block0 read-block1 read-last read-4k read-192k write-64k readback-64k" mode=check; fi
  for what in $whats; do
    grep -aqxF "PCAMTEST $unit $what ok" "$pre" ||
      no "no 'PCAMTEST $unit $what ok': $(grep -a "^PCAMTEST $unit $what" "$pre")"
  done
  "$imgcheck" $mode "$work/disk$n.img" $((mb * 2048)) || no "disk$n.img (target $t lun $l) is not what the guest wrote"
  # The fault block: EIO (5) for the faulted operation on target 2 only.
  if [ $mode = check ]; then
    for op in fault-read fault-write; do
      want=4096
      [ "$t" -eq 2 ] && [ $op = "$fault_op" ] && want=-5
      grep -aqxF "PCAMTEST $unit $op $want" "$pre" ||
        no "expected 'PCAMTEST $unit $op $want', got: $(grep -a "^PCAMTEST $unit $op " "$pre")"
    done
  fi
  # ... and they went as READ(16)/WRITE(16) (0x88/0x8a) on the wire.
  if [ $mode = checkbig ]; then
    for op in 136 138; do
      grep -q "^scsi_req_parsed target $t lun $l tag [0-9]* command $op " "$work/trace.log" ||
        no "no command $op (READ/WRITE(16)) at target $t lun $l in QEMU's trace"
    done
  fi
done
# The SAS1068 (hal/mpt): pcam1 attached, its disk is da7 at target 6 of
# its own bus (scbus1) with its size and tagged queuing, every read of the
# host pattern and the guest's write and read-back ok, the fault block read
# and written back (no fault is injected there), the image holds what the
# guest wrote, and neither pcam1 nor CAM logged anything for that bus (no
# timeout, retry or recovery).
if [ $mpt = 1 ]; then
  grep -aqF "pcam1: <$mptdesc>" "$work/console.txt" || no "no 'pcam1: <$mptdesc>' attach line"
  grep -aqE "^pcam1: .* (port|irq|mem) " "$pre" || no "pcam1 got no resources from the PCI bus"
  mline="da7 at pcam1 bus 0 scbus1 target $mpt_t lun 0"
  grep -aqxF "$mline" "$pre" || no "no '$mline'"
  grep -aqxF "da7: ${mpt_mb}MB ($((mpt_mb * 2048)) 512 byte sectors)" "$pre" ||
    no "expected 'da7: ${mpt_mb}MB ($((mpt_mb * 2048)) 512 byte sectors)', got: $(grep -a '^da7: [0-9]*MB' "$pre" | head -n 1)"
  grep -aqxF "da7: Command Queueing enabled" "$pre" || no "no tagged queuing on da7 (SAS1068)"
  grep -aqxF "PCAMTEST da7 size $((mpt_mb * 1048576))" "$pre" || no "no 'PCAMTEST da7 size $((mpt_mb * 1048576))'"
  for what in read-block0 read-block1 read-last read-4k read-192k write-64k readback-64k; do
    grep -aqxF "PCAMTEST da7 $what ok" "$pre" || no "no 'PCAMTEST da7 $what ok' (SAS1068): $(grep -a "^PCAMTEST da7 $what" "$pre")"
  done
  for op in fault-read fault-write; do
    grep -aqxF "PCAMTEST da7 $op 4096" "$pre" || no "expected 'PCAMTEST da7 $op 4096' (SAS1068), got: $(grep -a "^PCAMTEST da7 $op " "$pre")"
  done
  "$imgcheck" check "$work/mpt.img" $((mpt_mb * 2048)) || no "mpt.img (SAS1068 target $mpt_t) is not what the guest wrote"
  grep -a '^pcam1: ' "$work/console.txt" | grep -avF "pcam1: <$mptdesc>" | sed 's/^/unexpected: /' | grep . &&
    no "pcam1 logged more than its attach line"
  grep -aiE "^\((da|pass|probe)[0-9]+:pcam1:[0-9]+:[0-9]+:[0-9]+\): .*(error|retry|retrying|timeout|status|reset|abort)" "$work/console.txt" &&
    no "CAM reported errors or recovery on pcam1"
  [ $fail -eq 0 ] && echo "ok: SAS1068 (pcam1): $mline, ${mpt_mb} MB, pattern read, guest's write read back and in the host image"
fi
# The bus reset from the guest (XPT_RESET_BUS through /dev/xpt0, init.c):
# refused (EINVAL) with the LUN wildcard written as 64-bit all ones, done
# (CAM_REQ_CMP) with CAM_LUN_WILDCARD; then the disk read and checked
# again. In QEMU's trace the reset must come after the guest's disklate
# reads on that disk's target (the bus reset sets a UNIT ATTENTION 29/00
# on every LUN) and be followed by that UNIT ATTENTION reported and the
# re-reads (8 KiB, then 192 KiB in maxio pieces).
grep -aqxF "PCAMTEST reset-bus-lun64 -22" "$pre" ||
  no "expected 'PCAMTEST reset-bus-lun64 -22', got: $(grep -a '^PCAMTEST reset-bus-lun64' "$pre")"
grep -aqxF "PCAMTEST reset-bus 0 status 1" "$pre" ||
  no "expected 'PCAMTEST reset-bus 0 status 1', got: $(grep -a '^PCAMTEST reset-bus ' "$pre")"
# Then a rescan (XPT_SCAN_BUS through /dev/xpt0, as camcontrol rescan):
# done, and CAM finds the same disks (the attach-line count below).
grep -aqxF "PCAMTEST scan-bus 0 status 1" "$pre" ||
  no "expected 'PCAMTEST scan-bus 0 status 1', got: $(grep -a '^PCAMTEST scan-bus ' "$pre")"
ru=$(sed -n 's/^PCAMTEST \(da[1-9]\) after-reset ok$/\1/p' "$pre" | head -n 1)
if [ -z "$ru" ]; then
  no "no 'PCAMTEST daN after-reset ok': $(grep -a '^PCAMTEST da[0-9]* after-reset' "$pre")"
else
  grep -aqxF "PCAMTEST $ru after-reset-192k ok" "$pre" || no "no 'PCAMTEST $ru after-reset-192k ok'"
  rt=$(sed -n "s/^$ru at $hba bus 0 scbus0 target \([0-9]*\) lun 0\$/\1/p" "$pre" | head -n 1)
  if [ -z "$rt" ]; then
    no "no target for $ru"
  else
    # The guest's reset is the first to set a UNIT ATTENTION after its
    # disklate reads (later ones come from the hold and hot-plug parts).
    ua="" before=0
    for c in $(grep -n "^scsi_device_set_ua target $rt lun 0 key 0x06 asc 0x29 " "$work/trace.log" | cut -d: -f1); do
      before=$(head -n "$c" "$work/trace.log" | grep -c "^scsi_req_parsed target $rt lun 0 tag [0-9]* command \(8\|40\) dir 1 length \(4096\|8192\)\$" || true)
      [ "$before" -ge 18000 ] && { ua=$c; break; }
    done
    after() { tail -n +"${ua:-1}" "$work/trace.log" | grep -c "$1" || true; }
    if [ -z "$ua" ] || [ "$before" -lt 18000 ]; then
      no "no bus reset (UNIT ATTENTION 29 set on target $rt) after the guest's $before reads in QEMU's trace"
    elif [ "$(after "^scsi_req_build_sense target $rt lun 0 tag [0-9]* key 0x06 asc 0x29 ")" -lt 1 ] ||
         [ "$(after "^scsi_req_parsed target $rt lun 0 tag [0-9]* command \(8\|40\) dir 1 length 8192\$")" -lt 1 ] ||
         [ "$(after "^scsi_req_parsed target $rt lun 0 tag [0-9]* command \(8\|40\) dir 1 length ")" -lt 2 ]; then
      no "after the bus reset on target $rt: no UNIT ATTENTION reported or no re-reads in QEMU's trace"
    else
      echo "ok: bus reset from the guest (after $before reads on target $rt), UNIT ATTENTION 29 reported, $ru read and checked again"
    fi
  fi
fi
# Bad input through pass(4) (init.c): CAMIOCOMMAND on the pass device of
# the disk above. pcam's SIM refuses a 17-byte CDB with CAM_REQ_INVALID (6)
# and completes a READ(10) of 0 blocks without data (CAM_REQ_CMP, 1), as
# test_fbsd_cam.c's bad_requests and the QEMU test's TEST UNIT READY
# promise; a transfer one block past the 64 KiB maxio never reaches the
# SIM: pass(4) maps the buffer with cam_periph_mapmem, which refuses more
# than the maxio the SIM announced (E2BIG, 7, and its console line). The
# good READ(10)s before and after read block 0's pattern (CAM_REQ_CMP).
# Then XPT_RESET_DEV through the same pass device and a good READ(10): on
# the LSI53C895A the BUS DEVICE RESET message reaches the target (QEMU's
# trace) and the reset completes (CAM_REQ_CMP); QEMU's AM53C974 model takes
# one message byte with the selection and goes on to the command phase
# (../shared/QEMU.md), so there pcam reports the refused reset as
# CAM_MSG_REJECT_REC (13) with its one console line. The read after it
# works on both.
# With sym.ko (other limits) the lines are only shown.
if [ $driver = pcam ]; then
  rdev=1
  [ $chip = esp ] && rdev=13
  for l in "read 0 status 1" "cdb17 0 status 6" "zero-length 0 status 1" "oversize -7 status 0" \
           "ptr-no-length 0 status 6" "en-lun 0 status 6" "read-again 0 status 1" \
           "reset-dev 0 status $rdev" "read-after-reset-dev 0 status 1"; do
    grep -aqxF "PCAMTEST pass $l" "$pre" ||
      no "expected 'PCAMTEST pass $l', got: $(grep -a "^PCAMTEST pass ${l%% *} " "$pre")"
  done
  # pcam's console line for each CCB it refused before the bus: the 17-byte
  # CDB and the data pointer without a length (XPT_SCSI_IO, 0x901), and
  # XPT_EN_LUN (0x30), each CAM_REQ_INVALID (0x06) on the pass device's path.
  pu=$(sed -n 's/^PCAMTEST pass da\([1-9]\) is .*$/\1/p' "$pre" | head -n 1)
  pt=$(sed -n "s/^da$pu at $hba bus 0 scbus0 target \([0-9]*\) lun 0\$/\1/p" "$pre" | head -n 1)
  for fc in 901:2 30:1; do
    got=$(grep -acxF "pcam0: refused CCB: function 0x${fc%%:*} target ${pt:-?} lun 0, CAM status 0x06" "$pre" || true)
    [ "$got" -eq "${fc#*:}" ] ||
      no "$got 'pcam0: refused CCB: function 0x${fc%%:*} target ${pt:-?} lun 0, CAM status 0x06' lines, ${fc#*:} expected"
  done
  grep -aqxF "cam_periph_mapmem: attempt to map 66048 bytes, which is greater than 65536" "$pre" ||
    no "no 'cam_periph_mapmem: attempt to map 66048 bytes, which is greater than 65536' on the console"
  if [ $chip = esp ]; then
    grep -aqxF "$refused" "$pre" || no "no '$refused' for the device reset on the AM53C974"
  else
    grep -q "^lsi_do_msgout_busdevicereset " "$work/trace.log" || no "no BUS DEVICE RESET message in QEMU's trace"
  fi
else
  grep -a '^PCAMTEST pass ' "$pre" | sed 's/^/NOTE: sym.ko: /'
fi
# A request held by the target past its CAM timeout (init.c's hold()): the
# host throttles target 2's drive to 200 bytes/s when the guest is ready
# (QEMU holds the second 4 KiB read in its block layer; the target has
# disconnected), and lifts it when CAM reports the command timeout. pcam's
# core ends the held read: on the LSI53C895A with ABORT TAG, which the
# model acts on (its trace: lsi_do_msgout_abort, then the request
# cancelled); QEMU's AM53C974 model never disconnects, so the read is still
# connected and no phase change comes for the abort's ATN: the core goes
# from the abort straight to a bus reset (no device reset: it would need a
# selection, and the target holds the bus), saying so once ($heldbus), a
# UNIT ATTENTION set on every target and the request cancelled. Either way it completes once with CAM_CMD_TIMEOUT,
# da(4) retries, and the read returns the host pattern after more than the
# 10 s timeout; the other disks go on working (the hot-plug part after it).
if [ $hotplug = 1 ]; then
  hu=$(sed -n "s/^\(da[0-9]*\) at $hba bus 0 scbus0 target 2 lun 0\$/\1/p" "$pre" | head -n 1)
  ms=$(sed -n "s/^PCAMTEST hold $hu read 4096 ms \([0-9]*\)\$/\1/p" "$pre")
  if [ -z "$hu" ] || [ -z "$ms" ] || [ "$ms" -lt 10000 ]; then
    no "expected 'PCAMTEST hold ${hu:-daN} read 4096 ms T' with T >= 10000, got: $(grep -a '^PCAMTEST hold .* read' "$pre")"
  else
    grep -aqxF "PCAMTEST $hu hold-data ok" "$pre" || no "no 'PCAMTEST $hu hold-data ok'"
    grep -aqxF "($hu:$hba:0:2:0): CAM status: Command timeout" "$pre" || no "no command timeout for the held read on target 2"
    held=$(grep -n "^PCAMTEST hold $hu ready" "$pre" | cut -d: -f1)
    if [ $chip = sym ]; then
      ab=$(grep -n "^lsi_do_msgout_abort " "$work/trace.log" | head -n 1 | cut -d: -f1)
      [ -n "$ab" ] && tail -n +"$ab" "$work/trace.log" | grep -q "^scsi_req_cancel target 2 lun 0 " ||
        no "no ABORT message and cancelled request at target 2 in QEMU's trace"
      how="ABORT TAG (QEMU's trace), the request cancelled"
    else
      cn=$(grep -n "^scsi_req_cancel target 2 lun 0 " "$work/trace.log" | head -n 1 | cut -d: -f1)
      [ -n "$cn" ] && head -n $((cn + 8)) "$work/trace.log" | tail -n 16 | grep -q "^scsi_device_set_ua target 0 lun 0 key 0x06 asc 0x29 " ||
        no "no bus reset (UNIT ATTENTION on target 0 beside target 2's cancelled request) in QEMU's trace"
      nh=$(grep -acxF "$heldbus" "$pre" || true)
      [ "$nh" -eq 1 ] || no "$nh '$heldbus' lines for the held read, 1 expected"
      how="a bus reset straight after the abort, the target holding the bus ('$heldbus'; UNIT ATTENTION on every target in QEMU's trace), the request cancelled"
    fi
    echo "ok: target 2's read held past its 10 s CAM timeout ended by $how; CAM_CMD_TIMEOUT, retried, data right after $ms ms (guest line $held)"
  fi
fi
# XPT_ABORT as FreeBSD code sends it (guest/abort.c; the test module
# pcamabort.ko, guest/abortmod.c, plays a peripheral: no userland interface
# of 13.2 can name a held CCB). The host throttles target 2's drive again;
# the module's first READ completes, the second is held, XPT_ABORT for it
# completes CAM_REQ_CMP (1) and the held READ completes once, with
# CAM_REQ_ABORTED (2); after the throttle is lifted a read elsewhere on the
# disk returns the host pattern. On the LSI53C895A the abort is an ABORT
# TAG the model acts on (a second one in QEMU's trace after the hold's,
# each followed by its request cancelled). QEMU's AM53C974 model holds the
# selection of the throttled READ open (no interrupt until the data
# comes), so the core has no nexus to send the abort on: it marks the
# command and reports it aborted when the target finishes it, once the
# throttle has let the data through (the time printed; no ATN, no reset).
if [ $hotplug = 1 ]; then
  for l in "run 0" "first 0x01 abort 0x01 held 0x02 completions 1 after [0-9]+ ms" "after-read 0"; do
    grep -aqxE "PCAMTEST abort $l" "$pre" || no "expected 'PCAMTEST abort $l', got: $(grep -a '^PCAMTEST abort ' "$pre" | tr '\n' '|')"
  done
  abms=$(sed -n 's/^PCAMTEST abort first .* after \([0-9]*\) ms$/\1/p' "$pre")
  if [ $chip = sym ]; then
    na=0
    for ab in $(grep -n "^lsi_do_msgout_abort " "$work/trace.log" | cut -d: -f1); do
      tail -n +"$ab" "$work/trace.log" | head -n 20 | grep -q "^scsi_req_cancel target 2 lun 0 " && na=$((na + 1))
    done
    [ "$na" -ge 2 ] || no "$na ABORT TAG messages followed by a cancelled request at target 2 in QEMU's trace, 2 expected (the hold's and XPT_ABORT's)"
  fi
  echo "ok: XPT_ABORT from a kernel module on a held READ at target 2: CAM_REQ_CMP, the READ completed once with CAM_REQ_ABORTED ${abms:-?} ms later, the disk reads right afterwards"
fi
# Hot removal and addition (init.c's hotplug(), the monitor commands in the
# wait loop above). The 3 TiB disk (target 3) is removed while idle: the
# guest's next read meets selection timeouts until CAM's retries run out,
# fails with ENXIO (6), CAM reports the device lost ("detached", "Periph
# destroyed") and its /dev node goes (ENOENT, 2). The 40 MiB disk (target 2)
# is removed during a run of reads: the same, after at least one good read.
# Nothing else may go wrong meanwhile: the only CAM errors allowed are the
# selection timeouts of those two targets and da(4)'s retries after them
# ("Retrying command, N more tries remain"), a command timeout on target 2
# (QEMU's AM53C974 model drops the command in flight when its disk goes:
# pcam's core ends it with CAM_CMD_TIMEOUT when da(4)'s timeout, 10 s
# here, runs out), and pcam prints nothing (the
# check above covers the whole console). Then a 32 MiB disk at target 5 is
# added; the guest's XPT_SCAN_BUS finds it and tests it like the others.
if [ $hotplug = 1 ]; then
  unit_at() { sed -n "s/^\(da[0-9]*\) at $hba bus 0 scbus0 target $1 lun 0\$/\1/p" "$2" | head -n 1; }
  for hv in idle:3 io:2; do
    what=hot-del-${hv%%:*} t=${hv#*:}
    u=$(unit_at "$t" "$pre")
    reads=$(sed -n "s/^PCAMTEST $what $u reads \([0-9]*\) then -6\$/\1/p" "$post")
    if [ -z "$u" ] || [ -z "$reads" ]; then
      no "expected 'PCAMTEST $what ${u:-daN} reads N then -6', got: $(grep -a "^PCAMTEST $what .* reads " "$post")"
    elif [ "$reads" -lt 1 ]; then
      no "$what: no good read before the removal"
    else
      grep -aqxF "PCAMTEST $what $u gone -2" "$post" || no "no 'PCAMTEST $what $u gone -2': $(grep -a "^PCAMTEST $what $u " "$post")"
      grep -aqE "^$u: <.*> +detached\$" "$post" || no "no '$u: <...> detached' for target $t"
      grep -aqxF "($u:$hba:0:$t:0): Periph destroyed" "$post" || no "no '($u:$hba:0:$t:0): Periph destroyed'"
      grep -aqxF "($u:$hba:0:$t:0): CAM status: Selection Timeout" "$post" || no "no selection timeout for target $t"
      echo "ok: target $t ($u) removed $( [ $t = 3 ] && echo while idle || echo during reads, after $reads good 64 KiB reads): ENXIO, lost, node gone"
    fi
  done
  grep -aE "^\((da|cd|pass|probe)[0-9]+:$hba:[0-9]+:[0-9]+:[0-9]+\): " "$post" | grep -aiE "error|retry|timeout|status" |
    grep -avE "^\(da[0-9]+:$hba:0:[23]:0\): (CAM status: Selection Timeout|Retrying command, [0-9]+ more tries remain)\$" |
    grep -avE "^\(da[0-9]+:$hba:0:2:0\): CAM status: Command timeout\$" |
    sed 's/^/unexpected: /' | grep . &&
    no "CAM errors during the hot-plug part other than the removed disks' selection timeouts and da(4)'s retries of them"
  grep -aqE "^\(da[0-9]+:$hba:0:2:0\): CAM status: Command timeout\$" "$post" &&
    echo "NOTE: the read in flight when target 2 went was never answered (QEMU's model dropped it); pcam ended it with CAM_CMD_TIMEOUT after da(4)'s timeout, then CAM's retries met selection timeouts"
  hu=$(unit_at 5 "$post")
  if [ -z "$hu" ]; then
    no "no 'daN at $hba bus 0 scbus0 target 5 lun 0' for the added disk"
  else
    grep -aqxF "$hu: 32MB (65536 512 byte sectors)" "$post" || no "no '$hu: 32MB (65536 512 byte sectors)'"
    grep -aqE "^PCAMTEST hot-add $hu after scans [0-9]+\$" "$post" || no "no 'PCAMTEST hot-add $hu after scans N'"
    grep -aqxF "PCAMTEST $hu size 33554432" "$post" || no "no 'PCAMTEST $hu size 33554432'"
    for what in read-block0 read-block1 read-last read-4k read-192k write-64k readback-64k; do
      grep -aqxF "PCAMTEST $hu $what ok" "$post" || no "no 'PCAMTEST $hu $what ok' for the added disk"
    done
    for op in fault-read fault-write; do
      grep -aqxF "PCAMTEST $hu $op 4096" "$post" || no "no 'PCAMTEST $hu $op 4096' for the added disk"
    done
    "$imgcheck" check "$work/hot.img" $((32 * 2048)) || no "hot.img (target 5) is not what the guest wrote"
    echo "ok: a disk added at target 5 found by $(sed -n "s/^PCAMTEST hot-add $hu after scans \([0-9]*\)\$/\1/p" "$post") XPT_SCAN_BUS as $hu, I/O checked"
  fi
fi
grep -aqxF "PCAMTEST done, failures 0" "$work/console.txt" || no "no 'PCAMTEST done, failures 0'"
ndisk=$(grep -acE "^da[0-9]+ at $hba bus 0 scbus0 target" "$pre" || true)
[ "$ndisk" -eq "$attached" ] || no "$ndisk disks attached to $hba, $attached of them expected"
cdu=$(sed -n "s/^\\(cd[0-9]*\\) at $hba bus 0 scbus0 target 4 lun 0\$/\\1/p" "$pre" | head -n 1)
if [ -z "$cdu" ]; then
  no "no 'cdN at $hba bus 0 scbus0 target 4 lun 0'"
else
  grep -aqF "$cdu: 2MB (1024 2048 byte sectors)" "$pre" && echo "ok: $cdu at target 4: 2MB (1024 2048 byte sectors)" ||
    no "expected '$cdu: 2MB (1024 2048 byte sectors)', got: $(grep -a "^$cdu: .*MB" "$pre" | head -n 1)"
fi
# disklate: per-read times of the 4 KiB and 8 KiB re-reads (each kind's
# fastest of 3 rounds) give the command overhead 2*t(4K) - t(8K) and the
# rate 4 KiB / (t(8K) - t(4K)).
grep -aqx "PCAMTEST da[1-9] disklate-data ok" "$pre" || no "no 'PCAMTEST daN disklate-data ok'"
fastest() { sed -n "s/^PCAMTEST disklate $1 2000 \\([1-9][0-9]*\\)\$/\\1/p" "$pre" | sort -n | head -n 1; }
rounds=$(grep -ac '^PCAMTEST disklate ' "$pre" || true)
[ "$rounds" -eq 9 ] || no "$rounds disklate rounds on the console, 9 expected"
ns4=$(fastest reread-4k) ns8=$(fastest reread-8k) nsr=$(fastest random-4k)
if [ -n "$ns4" ] && [ -n "$ns8" ] && [ -n "$nsr" ] && [ "$ns4" -gt 0 ] && [ "$ns8" -gt 0 ] && [ "$nsr" -gt 0 ]; then
  awk -v a="$ns4" -v b="$ns8" -v r="$nsr" -v d="$driver" -v c="$dev" 'BEGIN {
    t4 = a / 2000 / 1000; t8 = b / 2000 / 1000
    printf "DISKLATE %s on %s: t(4K) %.1f us, t(8K) %.1f us, overhead %.1f us, rate %s, random 4K %.0f/s\n",
      d, c, t4, t8, 2 * t4 - t8, (t8 > t4 ? sprintf("%.2f MB/s", 4.096 / (t8 - t4)) : "n/a (t8 <= t4)"), 2000 / (r / 1e9) }' |
    tee "$work/disklate.txt"
else
  no "no disklate times on the console"
fi
extra=""
[ $mpt = 1 ] && extra=" and a SAS1068 disk (da7 on pcam1)"
[ $fail -eq 0 ] && echo "PASS: FreeBSD 13.2 + $driver.ko on $dev: $attached disks and a CD$extra, root through $driver, I/O checked, $secs s"
exit $fail
