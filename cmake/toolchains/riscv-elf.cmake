# SPDX-License-Identifier: BSD-2-Clause
# Bare-metal RISC-V (Debian's gcc-riscv64-unknown-elf, which also targets
# RV32 through -march/-mabi). PCAM_TARGET_FLAGS picks the ISA and ABI; the
# presets give rv32imac/ilp32 and rv64imac/lp64 (medany). Static libraries
# only, as for Arm.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(PCAM_TARGET_FLAGS "-march=rv32imac_zicsr -mabi=ilp32" CACHE STRING "ISA/ABI flags for the embedded target")
set(CMAKE_C_FLAGS_INIT "${PCAM_TARGET_FLAGS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
