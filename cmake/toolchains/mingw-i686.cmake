# SPDX-License-Identifier: BSD-2-Clause
# Cross build for 32-bit Windows (i686, the classic Win32 ABI of legacy ASPI
# programs) with Debian's mingw-w64: cmake -S . -B build/win32
# -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-i686.cmake (or the preset
# "win32"). Builds the core, hal/sim, aspi/ and aspi/win32 (wnaspi32.dll).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(PCAM_MINGW_TRIPLE i686-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-common.cmake)
