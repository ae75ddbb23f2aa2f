# SPDX-License-Identifier: BSD-2-Clause
# Install rules: one install component per library whose header is
# installed, each an exported CMake target (find_package(pcam COMPONENTS
# ...) gives pcam::<name>) and a pkg-config file pcam-<name>.pc whose
# prefix comes from ${pcfiledir}, so an install tree can move.
#
# A library joins the install with one call in its own CMakeLists.txt
# (docs/porting.md, "Installing a new library"):
#
#   pcam_install_component(NAME sym TARGET pcam_sym REQUIRES core
#     HEADERS ${PROJECT_SOURCE_DIR}/include/pcam/pcam_sym.h
#     DESCRIPTION "pcam 53C8xx SCRIPTS back-end")
#
# NAME       component, target pcam::<NAME> and pkg-config module pcam-<NAME>
# TARGET     the library target
# HEADERS    its public headers, installed in include/pcam (users write
#            #include "pcam/<file>.h")
# HEADER_DIR, DIR_HEADERS   headers installed in include/pcam/<HEADER_DIR>,
#            which goes on users' include path (#include "<file>.h"): for
#            headers with names of their own, such as wnaspi32.h
# REQUIRES   components it links against (their targets and .pc modules)
# LIBS       extra link flags for pkg-config users (e.g. -lpthread)
# DEPENDS    a CMake package the installed config must find first (Threads)
# HEADERS_REST DIR   (core only) every header in DIR no other component lists
#
# Never install a header here without the library that defines it: a user
# who includes it must be able to link it.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(PCAM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pcam)
set(PCAM_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The .pc files find the prefix from their own directory: the way back from
# <prefix>/<libdir>/pkgconfig to <prefix>.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "pcam: CMAKE_INSTALL_LIBDIR must be relative to the prefix "
                      "for a relocatable install (it is ${CMAKE_INSTALL_LIBDIR})")
endif()
file(RELATIVE_PATH PCAM_PC_UP /x/${PCAM_PC_DIR} /x)
string(REGEX REPLACE "/$" "" PCAM_PC_UP "${PCAM_PC_UP}")

function(pcam_install_component)
  cmake_parse_arguments(C "" "NAME;TARGET;HEADER_DIR;DESCRIPTION;HEADERS_REST"
                        "HEADERS;DIR_HEADERS;REQUIRES;LIBS;DEPENDS" ${ARGN})
  if(NOT C_NAME OR NOT C_TARGET OR NOT TARGET ${C_TARGET})
    message(FATAL_ERROR "pcam_install_component: NAME and an existing TARGET are required "
                        "(got NAME '${C_NAME}' TARGET '${C_TARGET}')")
  endif()
  get_property(done GLOBAL PROPERTY PCAM_INSTALL_COMPONENTS)
  if(C_NAME IN_LIST done)
    message(FATAL_ERROR "pcam_install_component: component '${C_NAME}' registered twice")
  endif()
  foreach(req ${C_REQUIRES})
    if(NOT req IN_LIST done)
      message(FATAL_ERROR "pcam_install_component(${C_NAME}): REQUIRES '${req}', "
                          "which is not (yet) a registered component")
    endif()
  endforeach()
  if(NOT C_DESCRIPTION)
    set(C_DESCRIPTION "pcam ${C_NAME}")
  endif()

  set_target_properties(${C_TARGET} PROPERTIES EXPORT_NAME ${C_NAME})
  if(NOT TARGET pcam::${C_NAME})
    add_library(pcam::${C_NAME} ALIAS ${C_TARGET})
  endif()
  install(TARGETS ${C_TARGET} EXPORT pcamTargets COMPONENT ${C_NAME}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

  set(hdir ${CMAKE_INSTALL_INCLUDEDIR}/pcam)
  set(extra_cflags "")
  if(C_DIR_HEADERS)
    if(NOT C_HEADER_DIR)
      message(FATAL_ERROR "pcam_install_component(${C_NAME}): DIR_HEADERS needs HEADER_DIR")
    endif()
    install(FILES ${C_DIR_HEADERS} DESTINATION ${hdir}/${C_HEADER_DIR} COMPONENT ${C_NAME})
    target_include_directories(${C_TARGET} INTERFACE
                               $<INSTALL_INTERFACE:${hdir}/${C_HEADER_DIR}>)
    set(extra_cflags " -I\${includedir}/pcam/${C_HEADER_DIR}")
  endif()
  # Every installed header, for the API reference's input (docs/CMakeLists.txt).
  set_property(GLOBAL APPEND PROPERTY PCAM_INSTALL_HEADER_FILES ${C_HEADERS} ${C_DIR_HEADERS})
  if(C_HEADERS)
    install(FILES ${C_HEADERS} DESTINATION ${hdir} COMPONENT ${C_NAME})
    set_property(GLOBAL APPEND PROPERTY PCAM_INSTALL_CLAIMED ${C_HEADERS})
  endif()
  if(C_HEADERS_REST)
    file(GLOB rest CONFIGURE_DEPENDS ${C_HEADERS_REST}/*.h)
    set_property(GLOBAL APPEND PROPERTY PCAM_INSTALL_HEADER_FILES ${rest})
    set_property(GLOBAL PROPERTY PCAM_INSTALL_REST_DIR ${C_HEADERS_REST})
    set_property(GLOBAL PROPERTY PCAM_INSTALL_REST_COMP ${C_NAME})
  endif()
  foreach(dep ${C_DEPENDS})
    set_property(GLOBAL APPEND PROPERTY PCAM_INSTALL_DEPENDS ${dep})
  endforeach()

  # The pkg-config module. Static libraries: what a component links against
  # goes in Requires (not Requires.private) so --libs names it.
  set(PC_NAME pcam-${C_NAME})
  set(PC_DESCRIPTION ${C_DESCRIPTION})
  set(PC_UP ${PCAM_PC_UP})
  list(TRANSFORM C_REQUIRES PREPEND "pcam-" OUTPUT_VARIABLE reqs)
  string(REPLACE ";" ", " PC_REQUIRES "${reqs}")
  get_target_property(out ${C_TARGET} OUTPUT_NAME)
  if(NOT out)
    set(out ${C_TARGET})
  endif()
  string(JOIN " " PC_LIBS "-L\${libdir} -l${out}" ${C_LIBS})
  set(PC_CFLAGS "-I\${includedir}${extra_cflags}")
  # Informational: the switches the installed headers already carry
  # (cmake/config.cmake); nothing a user must add to the flags.
  get_property(PC_CONFIG GLOBAL PROPERTY PCAM_CONFIG_SUMMARY)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pcam-component.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${PC_NAME}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${PC_NAME}.pc
          DESTINATION ${PCAM_PC_DIR} COMPONENT ${C_NAME})
  set_property(GLOBAL APPEND PROPERTY PCAM_INSTALL_COMPONENTS ${C_NAME})
endfunction()

# Runs once the whole tree is configured (deferred): the headers no
# component claimed, the exported targets and the package files, which must
# know every component.
function(_pcam_install_finish)
  get_property(comps GLOBAL PROPERTY PCAM_INSTALL_COMPONENTS)
  if(NOT comps)
    return()
  endif()
  get_property(rest_dir GLOBAL PROPERTY PCAM_INSTALL_REST_DIR)
  get_property(rest_comp GLOBAL PROPERTY PCAM_INSTALL_REST_COMP)
  get_property(claimed GLOBAL PROPERTY PCAM_INSTALL_CLAIMED)
  if(rest_dir)
    file(GLOB rest CONFIGURE_DEPENDS ${rest_dir}/*.h)
    # By name: a component may install a generated header in place of the
    # source one (the core's recorded pcam_config.h, cmake/config.cmake).
    foreach(h ${claimed})
      get_filename_component(n ${h} NAME)
      list(REMOVE_ITEM rest ${rest_dir}/${n})
    endforeach()
    # A header named after a library target (pcam_sym.h and pcam_sym) is that
    # library's: installing it with the core would ship it without its code.
    foreach(h ${rest})
      get_filename_component(base ${h} NAME_WE)
      if(TARGET ${base} AND NOT base STREQUAL "pcam")
        get_target_property(exported ${base} EXPORT_NAME)
        if(NOT exported OR NOT exported IN_LIST comps)
          message(FATAL_ERROR "pcam install: ${h} belongs to library ${base}, which is not installed: "
                              "call pcam_install_component(NAME ... TARGET ${base} HEADERS ${h}) "
                              "in its CMakeLists.txt (docs/porting.md, \"Installing a new library\")")
        endif()
      endif()
    endforeach()
    install(FILES ${rest} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pcam COMPONENT ${rest_comp})
  endif()

  install(EXPORT pcamTargets NAMESPACE pcam:: DESTINATION ${PCAM_CMAKE_DIR} COMPONENT core)
  get_property(deps GLOBAL PROPERTY PCAM_INSTALL_DEPENDS)
  list(REMOVE_DUPLICATES deps)
  set(PCAM_FIND_DEPS "")
  foreach(d ${deps})
    string(APPEND PCAM_FIND_DEPS "find_dependency(${d})\n")
  endforeach()
  set(PCAM_COMPONENTS ${comps})
  get_property(PCAM_CONFIG_SUMMARY GLOBAL PROPERTY PCAM_CONFIG_SUMMARY)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pcamConfig.cmake.in
    ${PROJECT_BINARY_DIR}/pcamConfig.cmake INSTALL_DESTINATION ${PCAM_CMAKE_DIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/pcamConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/pcamConfig.cmake ${PROJECT_BINARY_DIR}/pcamConfigVersion.cmake
          DESTINATION ${PCAM_CMAKE_DIR} COMPONENT core)

  # pcam.pc as before: the core (kept for users of the single-library install).
  set(PC_UP ${PCAM_PC_UP})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pcam.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/pcam.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/pcam.pc DESTINATION ${PCAM_PC_DIR} COMPONENT core)
endfunction()

cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _pcam_install_finish)
