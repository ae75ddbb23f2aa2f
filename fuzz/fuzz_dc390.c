/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Tekram DC-390 EEPROM path of hal/esp against a lying card. The input
 * is, in turn, an EEPROM image of any length for pcam_dc390_parse(), and
 * the DO line of a fake 93C46 behind pcam_dc390_read_eeprom() (one input
 * bit per read of configuration byte 0, 1s when the input ends), whose
 * 128 bytes are parsed again. Checked on every input: the reader touches
 * only configuration bytes 0, 0x80 and 0xC0 and reports no EEPROM exactly
 * when a dummy bit was missing (then all 0xFF); a decode that succeeds has
 * a host ID 0..7, 2..64 tags, every target narrow, synchronous only at a
 * factor of the card's speed table with offset 15, tags only with
 * disconnect; a decode that fails is the defaults, marked invalid;
 * pcam_dc390_apply() never moves a configuration out of range.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_esp.h"

typedef struct pins {
    const uint8_t *data;
    size_t size;
    size_t bit;
    unsigned reads;
} pins;

static uint8_t rd(void *ctx, uint8_t off)
{
    pins *p = ctx;
    size_t i = p->bit++;

    if (off != 0x00)
        abort();
    p->reads++;
    if (i / 8 >= p->size)
        return 0x22;
    return ((p->data[i / 8] >> (i % 8)) & 1u) != 0 ? 0x22 : 0x00;
}

static void wr(void *ctx, uint8_t off, uint8_t v)
{
    (void)ctx;
    if (off != 0x80 && off != 0xC0)
        abort();
    if (off == 0x80 && (v & 0x3F) != 0)
        abort(); /* only SK and DI are driven */
}

static void check(const pcam_dc390_settings *s, pcam_err e)
{
    static const uint8_t factors[] = {25, 31, 37, 43, 50, 62, 81, 125};
    unsigned t;

    if ((e == PCAM_OK) != s->valid)
        abort();
    if (!s->valid) {
        if (s->host_id != 7 || s->max_tags != 0)
            abort();
    } else if (s->host_id > 7 || s->max_tags < 2 || s->max_tags > 64) {
        abort();
    }
    for (t = 0; t < PCAM_DC390_TARGETS; t++) {
        const pcam_xfer_settings *l = &s->target[t].limits;
        if (l->width != 0 || l->ppr_options != 0 || (l->tagged && !l->disconnect))
            abort();
        if (l->offset == 0) {
            if (l->period != 0)
                abort();
        } else if (l->offset != 15 || s->target[t].speed > 7 || l->period != factors[s->target[t].speed]) {
            abort();
        }
        if (!s->valid && (l->period != 25 || !l->disconnect || !l->tagged))
            abort();
    }
}

static void apply(const pcam_dc390_settings *s)
{
    pcam_esp_config ec;
    pcam_bus_config bc;

    memset(&ec, 0, sizeof ec);
    ec.initiator_id = 7;
    pcam_bus_config_defaults(&bc);
    pcam_dc390_apply(s, &ec, &bc);
    if (ec.initiator_id > 7 || bc.tag_depth == 0 || bc.tag_depth > bc.tag_depth_max)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcam_dc390_settings s;
    const char *why = NULL;
    pcam_err e;
    uint8_t raw[PCAM_DC390_EEPROM_BYTES];
    pins p = {data, size, 0, 0};
    pcam_dc390_cfg_io io = {&p, rd, wr, NULL};
    size_t i;

    e = pcam_dc390_parse(data, size, &s, &why);
    if (why == NULL)
        abort();
    check(&s, e);
    apply(&s);

    e = pcam_dc390_read_eeprom(&io, raw);
    if (e == PCAM_ERR_UNSUPPORTED) {
        for (i = 0; i < sizeof raw; i++)
            if (raw[i] != 0xFF)
                abort();
    } else if (e != PCAM_OK || p.reads != 64u * 17u) {
        abort();
    }
    e = pcam_dc390_parse(raw, sizeof raw, &s, &why);
    check(&s, e);
    apply(&s);
    return 0;
}
