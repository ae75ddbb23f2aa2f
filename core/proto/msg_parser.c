/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The incremental message parser (see pcam_msg.h), for target models and
 * tools that see one byte at a time and keep no buffer of their own. It
 * holds the first PCAM_MSG_MAX_LEN bytes and decodes them with
 * pcam_msg_decode(), so both give the same answers (fuzz_msg checks it).
 * The core decodes from its own message buffer and never calls it, so the
 * file compiles to nothing with PCAM_CFG_CODEC_EXTRAS 0.
 */
#include "pcam/pcam_msg.h"
#include "pcam/pcam_err.h"
#include "pcam_util.h"

#if PCAM_CFG_CODEC_EXTRAS

void pcam_msg_parser_init(pcam_msg_parser *p)
{
    if (p == NULL)
        return;
    memset(p, 0, sizeof *p);
}

bool pcam_msg_parser_busy(const pcam_msg_parser *p)
{
    return p != NULL && p->have != 0;
}

int pcam_msg_parser_feed(pcam_msg_parser *p, uint8_t byte, pcam_msg *out)
{
    int rc;

    if (p == NULL || out == NULL)
        return PCAM_ERR_NULL;
    /* A corrupted or foreign struct must not index past buf. */
    if (p->have >= 2 + 255 || (p->have >= PCAM_MSG_MAX_LEN && p->total == 0) ||
        (p->total != 0 && p->have >= p->total))
        pcam_msg_parser_init(p);

    if (p->have < PCAM_MSG_MAX_LEN)
        p->buf[p->have] = byte;
    p->have++;

    if (p->have <= PCAM_MSG_MAX_LEN) {
        size_t used;
        rc = pcam_msg_decode(p->buf, p->have, out, &used);
        if (rc > 0) {
            /* The total is known except after a lone EXTENDED byte. */
            if (p->have >= 2 || p->buf[0] != PCAM_MSG_EXTENDED)
                p->total = (uint16_t)(p->have + (unsigned)rc);
            return rc;
        }
        pcam_msg_parser_init(p);
        return rc;
    }
    /* Past the buffer: an extended message of a code pcam does not decode
     * (the ones it does are shorter), whose length came with byte 2. */
    if (p->have < p->total)
        return (int)(p->total - p->have);
    memset(out, 0, sizeof *out);
    out->code = p->buf[0];
    out->length = p->have;
    out->ext_length = p->buf[1];
    out->ext_code = p->buf[2];
    out->kind = PCAM_MSGK_RESERVED;
    pcam_msg_parser_init(p);
    return PCAM_ERR_RESERVED;
}

#endif /* PCAM_CFG_CODEC_EXTRAS */
