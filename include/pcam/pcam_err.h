/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_err.h
 * @brief Result codes shared by every pcam codec and helper.
 *
 * Codecs never crash on bad input: they return one of these codes and leave
 * their output in a defined state. ::pcam_strerror gives a one-line reason.
 */
#ifndef PCAM_ERR_H
#define PCAM_ERR_H

#include "pcam_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a pcam codec or helper call. Zero is success; errors are negative. */
typedef enum pcam_err {
    PCAM_OK = 0,              /**< Success. */
    PCAM_ERR_NULL = -1,       /**< A required pointer argument was NULL. */
    PCAM_ERR_TRUNCATED = -2,  /**< The input ends before a field the format requires. */
    PCAM_ERR_LENGTH = -3,     /**< A length does not match what the format or opcode implies. */
    PCAM_ERR_RANGE = -4,      /**< A value does not fit the field that must carry it. */
    PCAM_ERR_NOSPACE = -5,    /**< The caller's output buffer is too small. */
    PCAM_ERR_FORMAT = -6,     /**< The input is not in a format this codec knows (e.g. a sense response code). */
    PCAM_ERR_RESERVED = -7,   /**< The input uses a reserved or undefined code. */
    PCAM_ERR_UNSUPPORTED = -8, /**< Valid input that this codec does not handle. */
    PCAM_ERR_ABI = -9         /**< The caller was built with other configuration switches (or
                                   other headers) than the library, so its storage does not have
                                   the library's layout; nothing was written (see ::pcam_abi). */
} pcam_err;

/**
 * @brief A short, static, human-readable description of a result code.
 * @param err any value, including ones not in ::pcam_err.
 * @return a NUL-terminated string; never NULL.
 */
const char *pcam_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_ERR_H */
