/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_version.h
 * @brief pcam's version: the one number every build and package reports.
 *
 * This file is the only place the version is written. CMake reads it for
 * project(VERSION) (so pkg-config, the CMake package and `pcamctl
 * --version` follow), the Linux module reports it through MODULE_VERSION,
 * the UEFI driver in its COMPONENT_NAME2 name and the DKMS, Debian and
 * FreeBSD packaging check theirs against it (docs/releasing.md says how it
 * moves). Only preprocessor definitions: it needs no library and no OS.
 */
#ifndef PCAM_VERSION_H
#define PCAM_VERSION_H

/** Major version: changes when the library's ABI breaks (docs/releasing.md). */
#define PCAM_VERSION_MAJOR 0
/** Minor version: new interfaces, the ABI of the previous minor kept. */
#define PCAM_VERSION_MINOR 1
/** Patch version: fixes only, no interface change. */
#define PCAM_VERSION_PATCH 0
/** The version as "MAJOR.MINOR.PATCH", a string literal. */
#define PCAM_VERSION_STRING "0.1.0"
/** The version as one number, 0xMMmmpp, for compile-time comparisons. */
#define PCAM_VERSION_NUMBER \
    ((PCAM_VERSION_MAJOR << 16) | (PCAM_VERSION_MINOR << 8) | PCAM_VERSION_PATCH)

#endif /* PCAM_VERSION_H */
