# SPDX-License-Identifier: BSD-2-Clause
# Bare-metal Arm (Debian's gcc-arm-none-eabi). The CPU comes from
# PCAM_TARGET_FLAGS, which the presets set per core (Cortex-M0+, M3, M4F);
# only static libraries are built, so nothing needs a C library or startup
# code. Embedded builds compile just the core and PCAM_BACKENDS.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(PCAM_TARGET_FLAGS "-mcpu=cortex-m3 -mthumb" CACHE STRING "CPU flags for the embedded target")
set(CMAKE_C_FLAGS_INIT "${PCAM_TARGET_FLAGS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
