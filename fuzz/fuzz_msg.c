/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Message parser fuzz target. Arbitrary bytes go through the incremental
 * parser one at a time; at every message boundary the whole-buffer decoder
 * and pcam_msg_bytes_needed must agree with it, every message must format
 * into a bounded buffer, and every decoded message must rebuild into the
 * exact bytes it came from.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_msg.h"

#define CHECK(c)            \
    do {                    \
        if (!(c))           \
            abort();        \
    } while (0)

static int same(const pcam_msg *a, const pcam_msg *b)
{
    return a->kind == b->kind && a->code == b->code && a->ext_code == b->ext_code &&
           a->ext_length == b->ext_length && a->length == b->length &&
           a->identify.lun == b->identify.lun &&
           a->identify.disconnect_ok == b->identify.disconnect_ok && a->tag == b->tag &&
           a->residue == b->residue && a->sdtr.period == b->sdtr.period &&
           a->sdtr.offset == b->sdtr.offset && a->wdtr_width_exp == b->wdtr_width_exp &&
           a->ppr.period == b->ppr.period && a->ppr.offset == b->ppr.offset &&
           a->ppr.width_exp == b->ppr.width_exp && a->ppr.options == b->ppr.options &&
           a->mdp_argument == b->mdp_argument && a->linked_flag == b->linked_flag;
}

static void check_text(const pcam_msg *m)
{
    char big[PCAM_MSG_TEXT_MAX];
    char small[12];
    int n = pcam_msg_format(m, big, sizeof big);
    int s;

    CHECK(n >= 0 && (size_t)n == strlen(big) && (size_t)n < sizeof big);
    s = pcam_msg_format(m, small, sizeof small);
    CHECK(strlen(small) < sizeof small);
    if ((size_t)n < sizeof small)
        CHECK(s == n && strcmp(small, big) == 0);
    else
        CHECK(s < 0 && strncmp(small, big, sizeof small - 1) == 0);
}

static void check_rebuild(const pcam_msg *m, const uint8_t *src)
{
    uint8_t b[PCAM_MSG_MAX_LEN];
    int n;

    switch (m->kind) {
    case PCAM_MSGK_MALFORMED:
    case PCAM_MSGK_RESERVED:
        return;
    case PCAM_MSGK_IDENTIFY:
        n = pcam_msg_build_identify(b, sizeof b, m->identify.lun, m->identify.disconnect_ok);
        break;
    case PCAM_MSGK_SIMPLE_TAG:
    case PCAM_MSGK_HEAD_OF_QUEUE_TAG:
    case PCAM_MSGK_ORDERED_TAG:
    case PCAM_MSGK_ACA_TAG:
        n = pcam_msg_build_tag(b, sizeof b, m->code, m->tag);
        break;
    case PCAM_MSGK_IGNORE_WIDE_RESIDUE:
        n = pcam_msg_build_ignore_wide_residue(b, sizeof b, m->residue);
        break;
    case PCAM_MSGK_SDTR:
        n = pcam_msg_build_sdtr(b, sizeof b, m->sdtr.period, m->sdtr.offset);
        break;
    case PCAM_MSGK_WDTR:
        /* The builder refuses reserved widths the decoder passes on. */
        if (m->wdtr_width_exp > PCAM_WIDTH_32BIT)
            return;
        n = pcam_msg_build_wdtr(b, sizeof b, m->wdtr_width_exp);
        break;
    case PCAM_MSGK_PPR:
        /* ...and the reserved byte is always sent as zero. */
        if (m->ppr.width_exp > PCAM_WIDTH_32BIT || src[4] != 0)
            return;
        n = pcam_msg_build_ppr(b, sizeof b, m->ppr.period, m->ppr.offset, m->ppr.width_exp,
                               m->ppr.options);
        break;
    case PCAM_MSGK_MODIFY_DATA_POINTER:
        n = pcam_msg_build_modify_data_pointer(b, sizeof b, m->mdp_argument);
        break;
    default:
        n = pcam_msg_build_byte(b, sizeof b, m->code);
        break;
    }
    CHECK(n > 0 && n == (int)m->length && memcmp(b, src, (size_t)n) == 0);
}

static void check_period(const uint8_t *data, size_t size)
{
    uint32_t ps = 0;
    size_t i;
    uint8_t f;

    for (i = 0; i < size && i < 3; i++)
        ps = (ps << 8) | data[i];
    f = pcam_period_ps_to_factor(ps);
    CHECK(f >= 0x07);
    CHECK(pcam_period_factor_to_ps(f) >= ps || f == 0xFF);
    if (size > 0) {
        uint32_t p = pcam_period_factor_to_ps(data[0]);
        CHECK((p == 0) == (data[0] < 0x07));
        if (p != 0)
            CHECK(pcam_period_ps_to_factor(p) == data[0]);
        CHECK(pcam_period_factor_to_khz(data[0]) == (p ? 1000000000u / p : 0u));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcam_msg_parser p;
    size_t start = 0, i;
    pcam_msg m, d;
    size_t used;
    int rc, rc2;

    check_period(data, size);
    pcam_msg_parser_init(&p);
    for (i = 0; i < size; i++) {
        size_t n = i + 1 - start;
        rc = pcam_msg_parser_feed(&p, data[i], &m);
        /* Re-scanning every prefix is quadratic; long unknown extended
         * messages are only checked at their end. */
        if (n <= 16 || rc <= 0)
            CHECK(rc == pcam_msg_bytes_needed(data + start, n));
        if (rc > 0) {
            CHECK(rc <= 255 && pcam_msg_parser_busy(&p));
            continue;
        }
        CHECK(!pcam_msg_parser_busy(&p));
        CHECK(m.length == n);
        if (rc < 0)
            CHECK(m.kind == PCAM_MSGK_MALFORMED || m.kind == PCAM_MSGK_RESERVED);
        else
            CHECK(m.kind != PCAM_MSGK_MALFORMED && m.kind != PCAM_MSGK_RESERVED);
        rc2 = pcam_msg_decode(data + start, size - start, &d, &used);
        CHECK(rc2 == rc && used == n && same(&m, &d));
        check_text(&m);
        if (rc == 0)
            check_rebuild(&m, data + start);
        start = i + 1;
    }
    if (start < size) {
        rc2 = pcam_msg_decode(data + start, size - start, &d, &used);
        CHECK(rc2 > 0 && used == 0);
    }
    return 0;
}
