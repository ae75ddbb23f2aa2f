# SPDX-License-Identifier: BSD-2-Clause
# Cross build for 64-bit Windows with Debian's mingw-w64 (preset "win64").
# The SRBs then have 8-byte pointers: the documented 64-bit layout of
# aspi/include/wnaspi32.h, for 64-bit clients only.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(PCAM_MINGW_TRIPLE x86_64-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-common.cmake)
