/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sense data builders (SPC-5 fixed and descriptor formats), for target
 * models and tests. The core only decodes sense (sense.c), so this file
 * compiles to nothing with PCAM_CFG_CODEC_EXTRAS 0.
 */
#include "pcam/pcam_sense.h"
#include "pcam_util.h"

#if PCAM_CFG_CODEC_EXTRAS

/* Fixed format byte 0 and the information descriptor's byte 2 (SPC-5). */
#define SENSE_VALID 0x80u
/* Descriptor type 00h, the information descriptor. */
#define DESC_INFORMATION 0x00u

int pcam_sense_build_fixed(uint8_t *buf, size_t cap, uint8_t key, uint8_t asc,
                           uint8_t ascq, bool info_valid, uint32_t info)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (key > 0x0Fu)
        return PCAM_ERR_RANGE;
    if (cap < PCAM_SENSE_FIXED_LEN)
        return PCAM_ERR_NOSPACE;
    memset(buf, 0, PCAM_SENSE_FIXED_LEN);
    buf[0] = (uint8_t)(PCAM_SENSE_RC_FIXED_CURRENT | (info_valid ? SENSE_VALID : 0u));
    buf[2] = key;
    if (info_valid)
        pcam_put_be32(buf + 3, info);
    buf[7] = (uint8_t)(PCAM_SENSE_FIXED_LEN - PCAM_SENSE_HEADER_LEN);
    buf[12] = asc;
    buf[13] = ascq;
    return (int)PCAM_SENSE_FIXED_LEN;
}

int pcam_sense_build_descriptor(uint8_t *buf, size_t cap, uint8_t key, uint8_t asc,
                                uint8_t ascq, bool info_valid, uint64_t info)
{
    size_t total = PCAM_SENSE_HEADER_LEN + (info_valid ? 12u : 0u);

    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (key > 0x0Fu)
        return PCAM_ERR_RANGE;
    if (cap < total)
        return PCAM_ERR_NOSPACE;
    memset(buf, 0, total);
    buf[0] = (uint8_t)PCAM_SENSE_RC_DESC_CURRENT;
    buf[1] = key;
    buf[2] = asc;
    buf[3] = ascq;
    buf[7] = (uint8_t)(total - PCAM_SENSE_HEADER_LEN);
    if (info_valid) {
        uint8_t *d = buf + PCAM_SENSE_HEADER_LEN;
        d[0] = DESC_INFORMATION;
        d[1] = 0x0A;
        d[2] = SENSE_VALID;
        pcam_put_be64(d + 4, info);
    }
    return (int)total;
}

#endif /* PCAM_CFG_CODEC_EXTRAS */
