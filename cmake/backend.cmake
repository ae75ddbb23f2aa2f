# SPDX-License-Identifier: BSD-2-Clause
# A chip back-end joins the build with one call in its own
# hal/<chip>/CMakeLists.txt (docs/porting.md); hal/CMakeLists.txt adds every
# such folder by itself, and an embedded build adds those named in
# PCAM_BACKENDS. The call makes the library pcam_<chip>, freestanding like
# the core, and installs it as the component <chip> (pcam::<chip>,
# pkg-config pcam-<chip>) through pcam_install_component():
#
#   pcam_add_backend(NAME mychip SOURCES mychip.c HEADERS pcam_mychip.h
#     DESCRIPTION "pcam MyChip back-end")
#
# NAME        the chip: library pcam_<NAME>, component <NAME>
# SOURCES     its sources (relative to the folder)
# HEADERS     its public headers. One in include/pcam/ installs there
#             (#include "pcam/pcam_esp.h"); one in the back-end's own folder
#             installs in include/pcam/<NAME>/, which goes on the users'
#             include path, as the folder does in the tree, so that
#             #include "pcam_mychip.h" works in both.
# DESCRIPTION one line for pkg-config
include_guard(GLOBAL)

function(pcam_add_backend)
  cmake_parse_arguments(B "" "NAME;DESCRIPTION" "SOURCES;HEADERS" ${ARGN})
  if(NOT B_NAME OR NOT B_SOURCES OR NOT B_HEADERS)
    message(FATAL_ERROR "pcam_add_backend: NAME, SOURCES and HEADERS are required "
                        "(in ${CMAKE_CURRENT_SOURCE_DIR})")
  endif()
  if(NOT B_DESCRIPTION)
    set(B_DESCRIPTION "pcam ${B_NAME} back-end")
  endif()
  set(t pcam_${B_NAME})
  add_library(${t} STATIC ${B_SOURCES})
  target_include_directories(${t} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                  PRIVATE ${PROJECT_SOURCE_DIR}/core/include
                                          ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${t} PUBLIC pcam)
  # As for the core: -Wundef catches a file that forgot pcam_config.h, and
  # firmware builds are freestanding (docs/embedded.md).
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${t} PRIVATE -Wundef $<$<BOOL:${PCAM_EMBEDDED}>:-ffreestanding>)
  endif()

  set(pub "")
  set(own "")
  foreach(h ${B_HEADERS})
    get_filename_component(h ${h} ABSOLUTE)
    if(h MATCHES "^${PROJECT_SOURCE_DIR}/include/pcam/")
      list(APPEND pub ${h})
    else()
      list(APPEND own ${h})
    endif()
  endforeach()
  set(args NAME ${B_NAME} TARGET ${t} REQUIRES core DESCRIPTION "${B_DESCRIPTION}")
  if(pub)
    list(APPEND args HEADERS ${pub})
  endif()
  if(own)
    target_include_directories(${t} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>)
    list(APPEND args HEADER_DIR ${B_NAME} DIR_HEADERS ${own})
  endif()
  pcam_install_component(${args})
endfunction()
