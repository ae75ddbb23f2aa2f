#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""bios_boot_time.py: how long SeaBIOS takes to reach a boot program's
first line through pcam's legacy ROM, and through SeaBIOS's own driver
for the same chip, on the same disk image (docs/bios.md).

Each run starts QEMU (TCG) with tests/bios/eddtest on a 64 MiB disk at
ID 3, reads COM1 from a pipe and takes the host's wall-clock time from
QEMU's start to eddtest's first line ("T hello") and to its last
("T end": its 15 INT 13h calls; on this small disk the ones above 2 TiB fail at once). "pcam" boots
with osshim/bios's ROM (-option-rom, bootindex 0), "seabios" without it
(SeaBIOS's lsi or esp driver). Prints one line per run and the medians.
It asserts nothing: figures only. Holds /tmp/pcam-vm.lock per run.
usage: bios_boot_time.py ROM_LSI ROM_ESP EDDTEST_BIN [RUNS]
"""
import fcntl
import os
import statistics
import subprocess
import sys
import tempfile
import time


def boot(chip, rom, img):
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "256", "-display", "none",
           "-no-reboot", "-nodefaults", "-global", "apic-common.vapic=off",
           "-device", chip + ",id=scsi0",
           "-device", "scsi-hd,drive=d0,bus=scsi0.0,scsi-id=3",
           "-drive", "if=none,id=d0,file=%s,format=raw" % img,
           "-serial", "stdio", "-device", "isa-debug-exit,iobase=0xf4", "-monitor", "none"]
    if rom:
        cmd += ["-option-rom", rom + ",bootindex=0"]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    first = end = None
    for line in p.stdout:
        now = time.monotonic() - t0
        if first is None and line.startswith(b"T hello"):
            first = now
        if line.startswith(b"T end"):
            end = now
            break
    p.wait(timeout=60)
    return first, end


def main():
    rom_lsi, rom_esp, prog = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    with tempfile.TemporaryDirectory() as d:
        img = os.path.join(d, "disk.img")
        with open(prog, "rb") as f:
            code = f.read()
        with open(img, "wb") as f:
            f.write(code)
            f.truncate(64 << 20)
        lock = open("/tmp/pcam-vm.lock", "w")
        for chip, rom in (("lsi53c895a", rom_lsi), ("am53c974", rom_esp)):
            for who, r in (("pcam", rom), ("seabios", None)):
                firsts, ends = [], []
                for i in range(runs):
                    fcntl.flock(lock, fcntl.LOCK_EX)
                    try:
                        first, end = boot(chip, r, img)
                    finally:
                        fcntl.flock(lock, fcntl.LOCK_UN)
                    print("%-10s %-7s run %d: first line %.3f s, end %.3f s" %
                          (chip, who, i + 1, first or -1, end or -1))
                    if first is not None and end is not None:
                        firsts.append(first)
                        ends.append(end)
                if firsts:
                    print("%-10s %-7s median: first line %.3f s, end %.3f s (%d runs)" %
                          (chip, who, statistics.median(firsts), statistics.median(ends), len(firsts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
