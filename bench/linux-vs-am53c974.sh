#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (not a test): pcam.ko against Linux's esp_scsi + am53c974 on
# QEMU's AM53C974 (bench/linux-side-by-side.sh says how).
# usage: sh bench/linux-vs-am53c974.sh [WORK_DIR]
exec sh "$(dirname "$0")/linux-side-by-side.sh" esp "$@"
