/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The LUN encoder (see pcam_inquiry.h), for target models building REPORT
 * LUNS data and for tools. The core only decodes LUNs, so the file compiles
 * to nothing with PCAM_CFG_CODEC_EXTRAS 0.
 */
#include "pcam/pcam_inquiry.h"
#include "pcam_util.h"

#if PCAM_CFG_CODEC_EXTRAS

int pcam_lun_encode(uint32_t lun, uint8_t out[8])
{
    if (out == NULL)
        return PCAM_ERR_NULL;
    if (lun >= 16384u)
        return PCAM_ERR_RANGE;
    memset(out, 0, 8);
    if (lun < 256u) {
        out[1] = (uint8_t)lun;
    } else {
        out[0] = (uint8_t)(0x40u | (lun >> 8));
        out[1] = (uint8_t)lun;
    }
    return PCAM_OK;
}

#endif /* PCAM_CFG_CODEC_EXTRAS */
