/* SPDX-License-Identifier: BSD-2-Clause */
/* The text of a pcam_err result code (pcam_strerror). */
#include "pcam/pcam_err.h"
#include "pcam_util.h"

/* The texts of PCAM_OK, PCAM_ERR_NULL (-1) ... PCAM_ERR_ABI (-9) in
 * that order, then the text of any other value: one string, no pointer table. */
static const char err_texts[] =
    "success\0"
    "required pointer argument is NULL\0"
    "input is truncated\0"
    "length does not match the format\0"
    "value out of range for its field\0"
    "output buffer too small\0"
    "unknown or invalid format\0"
    "reserved or undefined code\0"
    "not supported\0"
    "caller and library configurations differ\0"
    "unknown error";

const char *pcam_strerror(int err)
{
    const char *p = err_texts;
    unsigned skip = err <= 0 && err >= PCAM_ERR_ABI ? (unsigned)-err : 10u;
    while (skip-- > 0)
        while (*p++ != '\0')
            ;
    return p;
}
