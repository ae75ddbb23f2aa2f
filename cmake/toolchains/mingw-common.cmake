# SPDX-License-Identifier: BSD-2-Clause
# Shared part of the mingw-w64 toolchain files: compilers by triple, the
# target's own sysroot for headers and libraries, host programs from the host.
set(CMAKE_C_COMPILER ${PCAM_MINGW_TRIPLE}-gcc)
set(CMAKE_RC_COMPILER ${PCAM_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${PCAM_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
