/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPI transfer period factors (see pcam_msg.h). The table is an SPI-4/SPI-5
 * fact (the same values as Linux's scsi_transport_spi.c ppr_to_ps table):
 * 0x07..0x0C are special, above 0x0C the period is factor x 4 ns, below
 * 0x07 reserved. The core negotiates in factors and never converts them,
 * so the file compiles to nothing with PCAM_CFG_CODEC_EXTRAS 0.
 */
#include "pcam/pcam_msg.h"
#include "pcam_util.h"

#if PCAM_CFG_CODEC_EXTRAS

/* Periods of the special factors 0x07..0x0C, in ps. */
static const uint32_t special_ps[6] = {3125u, 6250u, 12500u, 25000u, 30300u, 50000u};

#define FIRST_SPECIAL 0x07u
#define FIRST_LINEAR 0x0Du

uint32_t pcam_period_factor_to_ps(uint8_t factor)
{
    if (factor < FIRST_SPECIAL)
        return 0;
    if (factor < FIRST_LINEAR)
        return special_ps[factor - FIRST_SPECIAL];
    return (uint32_t)factor * 4000u;
}

uint8_t pcam_period_ps_to_factor(uint32_t ps)
{
    unsigned i;
    uint32_t f;

    for (i = 0; i < PCAM_ARRAY_SIZE(special_ps); i++) {
        if (ps <= special_ps[i])
            return (uint8_t)(FIRST_SPECIAL + i);
    }
    /* Round up so the period is never shorter than asked. Past the last
     * special period (50 ns) that is at least 0x0D (52 ns), the first
     * linear factor, so no clamp from below is needed. */
    f = ps / 4000u + (ps % 4000u != 0 ? 1u : 0u);
    return f > 0xFFu ? 0xFFu : (uint8_t)f;
}

uint32_t pcam_period_factor_to_khz(uint8_t factor)
{
    uint32_t ps = pcam_period_factor_to_ps(factor);
    /* 1 transfer per period: 1/ps THz = 10^9/ps kHz. */
    return ps == 0 ? 0 : 1000000000u / ps;
}
#endif /* PCAM_CFG_CODEC_EXTRAS */
