#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (not a test): pcam.ko (hal/mpt) against Linux's mptsas on
# QEMU's SAS1068 (bench/linux-side-by-side.sh says how).
# usage: sh bench/linux-vs-mptsas.sh [WORK_DIR]
exec sh "$(dirname "$0")/linux-side-by-side.sh" mpt "$@"
