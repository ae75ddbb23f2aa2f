#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""menu_keys.py: the keys of run.sh's "menu" boot, typed through QEMU's
monitor, each when SeaBIOS's debug log shows it waits for it: ESC at
"Press ESC for boot menu", then "1" at "Select boot device". Judges
nothing; gives up after 60 s per key.
usage: menu_keys.py MONITOR_SOCKET DEBUGCON_LOG
"""
import os
import socket
import sys
import time


def wait(path, text, limit=60):
    t0 = time.time()
    while time.time() - t0 < limit:
        try:
            with open(path, "rb") as f:
                if text in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def main():
    mon, dbg = sys.argv[1:3]
    t0 = time.time()
    while not os.path.exists(mon) and time.time() - t0 < 30:
        time.sleep(0.05)
    s = socket.socket(socket.AF_UNIX)
    s.connect(mon)
    if wait(dbg, b"Press ESC for boot menu"):
        s.sendall(b"sendkey esc\n")
    if wait(dbg, b"Select boot device"):
        time.sleep(0.5)
        s.sendall(b"sendkey 1\n")
    time.sleep(1)
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
