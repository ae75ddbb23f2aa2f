#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The FreeBSD port's pkg-plist from the Debian packages libpcam-dev and
# pcamctl (their files, in FreeBSD's places: lib/ for the multiarch
# directory, libdata/pkgconfig, the Release build's CMake targets file).
# tests/packages compares sysutils/pcam/pkg-plist with its output; after
# an install change: plist.sh DEB... > sysutils/pcam/pkg-plist
# usage: plist.sh libpcam-dev_*.deb pcamctl_*.deb
set -eu
for d in "$@"; do dpkg-deb -c "$d"; done | awk '$1 !~ /^d/ {print $6}' |
  sed -e 's|^\./usr/||' -e '/^share\/doc\//d' \
      -e 's|^lib/[^/]*-linux-gnu[^/]*/pkgconfig/|libdata/pkgconfig/|' \
      -e 's|^lib/[^/]*-linux-gnu[^/]*/|lib/|' \
      -e 's|pcamTargets-none\.cmake$|pcamTargets-release.cmake|' | LC_ALL=C sort
