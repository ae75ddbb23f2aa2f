/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_types.h
 * @brief Small vocabulary types shared by the codecs and the CCB API.
 */
#ifndef PCAM_TYPES_H
#define PCAM_TYPES_H

#include "pcam_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of a command's data phase, seen from the initiator. */
typedef enum pcam_dir {
    PCAM_DIR_NONE = 0,   /**< No data phase. */
    PCAM_DIR_IN = 1,     /**< Target to initiator (DATA IN). */
    PCAM_DIR_OUT = 2,    /**< Initiator to target (DATA OUT). */
    PCAM_DIR_UNKNOWN = 3 /**< Not known from the CDB alone (unknown or vendor command). */
} pcam_dir;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_TYPES_H */
