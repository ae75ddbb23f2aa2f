/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SPI message builders the core does not send in every configuration
 * (see pcam_msg.h): WDTR only with PCAM_CFG_WIDE, PPR only with
 * PCAM_CFG_PPR, and the builders the core never sends itself (one-byte
 * messages in general, IGNORE WIDE RESIDUE and MODIFY DATA POINTER, which
 * are a target's, and pcam_msg_bytes_needed()) only with
 * PCAM_CFG_CODEC_EXTRAS, for tools and target models. The parser and the
 * IDENTIFY, tag and SDTR builders are in msg.c.
 */
#include "pcam/pcam_msg.h"
#include "pcam/pcam_err.h"
#include "pcam_util.h"

#if PCAM_CFG_WIDE
int pcam_msg_build_wdtr(uint8_t *buf, size_t cap, uint8_t width_exp)
{
    uint8_t b[4];
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (width_exp > PCAM_WIDTH_32BIT)
        return PCAM_ERR_RANGE;
    b[0] = PCAM_MSG_EXTENDED;
    b[1] = PCAM_EXT_WDTR_LEN;
    b[2] = PCAM_EXT_WDTR;
    b[3] = width_exp;
    return pcam_put_bytes(buf, cap, b, sizeof b);
}
#endif

#if PCAM_CFG_PPR
int pcam_msg_build_ppr(uint8_t *buf, size_t cap, uint8_t period, uint8_t offset,
                       uint8_t width_exp, uint8_t options)
{
    uint8_t b[8];
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (width_exp > PCAM_WIDTH_32BIT)
        return PCAM_ERR_RANGE;
    b[0] = PCAM_MSG_EXTENDED;
    b[1] = PCAM_EXT_PPR_LEN;
    b[2] = PCAM_EXT_PPR;
    b[3] = period;
    b[4] = 0;
    b[5] = offset;
    b[6] = width_exp;
    b[7] = options;
    return pcam_put_bytes(buf, cap, b, sizeof b);
}
#endif

#if PCAM_CFG_CODEC_EXTRAS
static bool is_two_byte(uint8_t code)
{
    return code >= 0x20 && code <= 0x2F;
}

static bool is_one_byte(uint8_t code)
{
    return code != PCAM_MSG_EXTENDED && !is_two_byte(code) && code < PCAM_MSG_IDENTIFY;
}

int pcam_msg_build_byte(uint8_t *buf, size_t cap, uint8_t code)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (!is_one_byte(code))
        return PCAM_ERR_RANGE;
    return pcam_put_bytes(buf, cap, &code, 1);
}

int pcam_msg_build_ignore_wide_residue(uint8_t *buf, size_t cap, uint8_t count)
{
    uint8_t b[2];
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (count == 0 || count > 3)
        return PCAM_ERR_RANGE;
    b[0] = PCAM_MSG_IGNORE_WIDE_RESIDUE;
    b[1] = count;
    return pcam_put_bytes(buf, cap, b, 2);
}

int pcam_msg_build_modify_data_pointer(uint8_t *buf, size_t cap, int32_t argument)
{
    uint8_t b[7];
    b[0] = PCAM_MSG_EXTENDED;
    b[1] = PCAM_EXT_MODIFY_DATA_POINTER_LEN;
    b[2] = PCAM_EXT_MODIFY_DATA_POINTER;
    /* Conversion to unsigned is defined modulo 2^32: two's complement. */
    pcam_put_be32(b + 3, (uint32_t)argument);
    return pcam_put_bytes(buf, cap, b, sizeof b);
}

int pcam_msg_bytes_needed(const uint8_t *buf, size_t have)
{
    pcam_msg scratch;
    return pcam_msg_decode(buf, have, &scratch, NULL);
}
#endif /* PCAM_CFG_CODEC_EXTRAS */
