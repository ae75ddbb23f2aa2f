# SPDX-License-Identifier: BSD-2-Clause
# Sourced first by every guest's /init (vm_initramfs_base puts it at
# /etc/guest_lib.sh): busybox's applets, /proc, /sys and /dev, and where
# the kernel's modules are (KVER, M). Each /init then says what it prints
# (its own say() prefix); this file must never print or decide anything.
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
KVER=$(cat /etc/kver)
M=/lib/modules/$KVER
