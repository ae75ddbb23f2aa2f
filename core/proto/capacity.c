/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ CAPACITY (10) and (16) parameter data (SBC-3): parsers for tools and
 * shims, builders for target models. The core never reads a capacity, so
 * the file compiles to nothing with PCAM_CFG_CODEC_EXTRAS 0.
 */
#include "pcam/pcam_inquiry.h"
#include "pcam_util.h"

#if PCAM_CFG_CODEC_EXTRAS

static bool bit(uint8_t b, unsigned n)
{
    return ((b >> n) & 1u) != 0;
}

pcam_err pcam_read_capacity10_parse(const uint8_t *buf, size_t len, pcam_capacity *out)
{
    uint32_t lba;

    if (out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (buf == NULL && len != 0)
        return PCAM_ERR_NULL;
    if (len < PCAM_READ_CAPACITY10_LEN)
        return PCAM_ERR_TRUNCATED;
    lba = pcam_get_be32(buf);
    out->last_lba = lba;
    out->block_length = pcam_get_be32(buf + 4);
    out->use_rc16 = lba == 0xFFFFFFFFu;
    out->zero_block_length = out->block_length == 0;
    return PCAM_OK;
}

pcam_err pcam_read_capacity16_parse(const uint8_t *buf, size_t len, pcam_capacity *out)
{
    if (out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (buf == NULL && len != 0)
        return PCAM_ERR_NULL;
    if (len < 12)
        return PCAM_ERR_TRUNCATED;
    out->last_lba = pcam_get_be64(buf);
    out->block_length = pcam_get_be32(buf + 8);
    out->zero_block_length = out->block_length == 0;
    if (len >= 16) {
        out->have_protection = true;
        out->rc_basis = (uint8_t)((buf[12] >> 4) & 3u);
        out->p_type = (uint8_t)((buf[12] >> 1) & 7u);
        out->prot_en = bit(buf[12], 0);
        out->p_i_exponent = (uint8_t)(buf[13] >> 4);
        out->lbppb_exponent = (uint8_t)(buf[13] & 0x0F);
        out->lbpme = bit(buf[14], 7);
        out->lbprz = bit(buf[14], 6);
        out->lowest_aligned_lba = (uint16_t)(((buf[14] & 0x3Fu) << 8) | buf[15]);
    }
    return PCAM_OK;
}

int pcam_read_capacity10_build(uint8_t *buf, size_t cap, uint32_t last_lba, uint32_t block_len)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (cap < PCAM_READ_CAPACITY10_LEN)
        return PCAM_ERR_NOSPACE;
    pcam_put_be32(buf, last_lba);
    pcam_put_be32(buf + 4, block_len);
    return PCAM_READ_CAPACITY10_LEN;
}

int pcam_read_capacity16_build(uint8_t *buf, size_t cap, uint64_t last_lba, uint32_t block_len)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (cap < PCAM_READ_CAPACITY16_LEN)
        return PCAM_ERR_NOSPACE;
    memset(buf, 0, PCAM_READ_CAPACITY16_LEN);
    pcam_put_be64(buf, last_lba);
    pcam_put_be32(buf + 8, block_len);
    return PCAM_READ_CAPACITY16_LEN;
}

#endif /* PCAM_CFG_CODEC_EXTRAS */
