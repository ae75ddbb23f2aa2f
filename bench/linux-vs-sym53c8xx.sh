#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (not a test): pcam.ko (hal/sym) against Linux's sym53c8xx on
# QEMU's LSI53C895A (bench/linux-side-by-side.sh says how).
# usage: sh bench/linux-vs-sym53c8xx.sh [WORK_DIR]
exec sh "$(dirname "$0")/linux-side-by-side.sh" sym "$@"
