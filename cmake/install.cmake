# SPDX-License-Identifier: BSD-2-Clause
# Install rules: the library, the public headers, an exported CMake package
# (find_package(pcam) gives pcam::pcam) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS pcam EXPORT pcamTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pcam
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT pcamTargets NAMESPACE pcam::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pcam)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pcamConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pcamConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pcam)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pcamConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pcamConfig.cmake
              ${PROJECT_BINARY_DIR}/pcamConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pcam)
configure_file(${PROJECT_SOURCE_DIR}/cmake/pcam.pc.in ${PROJECT_BINARY_DIR}/pcam.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pcam.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
