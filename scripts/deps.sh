#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Install the Debian 12 packages pcam's build, tests and demo need.
# As root it runs apt-get; otherwise it names what is missing and fails.
# usage: scripts/deps.sh [demo|test]   (default: test, the full set)
set -eu
what=${1:-test}
pkgs="build-essential cmake pkg-config"
if [ "$what" = test ]; then
  pkgs="$pkgs libcmocka-dev doxygen valgrind clang libclang-rt-14-dev gcc-multilib gcc-arm-none-eabi qemu-system-x86 qemu-user"
else
  pkgs="$pkgs libcmocka-dev doxygen valgrind"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "deps: missing Debian packages:$missing" >&2
  echo "deps: run as root, or: sudo apt-get install$missing" >&2
  exit 1
fi
