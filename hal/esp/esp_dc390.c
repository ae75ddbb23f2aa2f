/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Tekram DC-390's serial EEPROM (pcam_esp.h): a 93C46 read by
 * bit-banging the card's pins in PCI configuration space, and the decoder
 * of Tekram's layout into the core's per-target limits. Freestanding: the
 * shim supplies the configuration-space accessors; nothing here touches a
 * chip register or a bus, and a bad image only ever yields the defaults.
 *
 * Facts, taken as data: the pin wiring, the layout, the bit meanings and
 * the 0x1234 checksum as Linux's am53c974 and tmscsim drivers and QEMU's
 * dc390 model (hw/scsi/esp-pci.c) have them; the 93C46 READ sequence from
 * the part's data sheet (as QEMU's hw/nvram/eeprom93xx.c models it).
 */
#include "pcam/pcam_esp.h"
#include "pcam_util.h"

/* Configuration bytes the card routes to the EEPROM. */
enum {
    DC_PINS = 0x80,   /* write: CS high, SK = bit 7, DI = bit 6 */
    DC_CS_LOW = 0xC0, /* write: CS low */
    DC_DO = 0x00,     /* read: 0 while DO is low */
    DC_SK = 0x80,
    DC_DI = 0x40
};

/* Layout: four bytes per target from 0, the adapter's bytes from 64. */
enum {
    EE_TGT_STRIDE = 4,
    EE_HOST_ID = 64,
    EE_MODE2 = 65,
    EE_DELAY = 66,
    EE_TAGS = 67,
    EE_MODE_PARITY = 0x01,
    EE_MODE_SYNC = 0x02,
    EE_MODE_DISC = 0x04,
    EE_MODE_START = 0x08,
    EE_MODE_TAGS = 0x10,
    EE_MAX_SPEED = 7,
    EE_MAX_TAGCODE = 5 /* 2 << 5 = 64 tags */
};

/* Period factor per speed index: the card's 40 MHz clock times 4, 5, 6,
 * 7, 8, 10, 13 or 20 clocks per byte (100 .. 500 ns), over 4 ns, truncated
 * as SPI's factors are, so that hal/esp's period conversion lands on the
 * same clock count again. */
static const uint8_t speed_factor[EE_MAX_SPEED + 1] = {25, 31, 37, 43, 50, 62, 81, 125};

static void pins(const pcam_dc390_cfg_io *io, uint8_t v)
{
    io->cfg_write8(io->ctx, DC_PINS, v);
    if (io->delay_us != NULL)
        io->delay_us(io->ctx, 1);
}

/* One bit into the EEPROM, clocked on SK's rising edge. */
static void bit_out(const pcam_dc390_cfg_io *io, bool one)
{
    uint8_t di = one ? DC_DI : 0;
    pins(io, di);
    pins(io, (uint8_t)(di | DC_SK));
    pins(io, di);
}

static bool do_high(const pcam_dc390_cfg_io *io)
{
    return io->cfg_read8(io->ctx, DC_DO) != 0;
}

/* READ of one word. Returns false when DO does not show the dummy 0 that
 * precedes the data: nothing answered. */
static bool read_word(const pcam_dc390_cfg_io *io, uint8_t addr, uint16_t *w)
{
    uint16_t v = 0;
    unsigned i;

    io->cfg_write8(io->ctx, DC_CS_LOW, 0);
    /* Start bit, opcode 10, six address bits. */
    bit_out(io, true);
    bit_out(io, true);
    bit_out(io, false);
    for (i = 0; i < 6; i++)
        bit_out(io, ((addr >> (5 - i)) & 1u) != 0);
    if (do_high(io)) {
        io->cfg_write8(io->ctx, DC_CS_LOW, 0);
        return false;
    }
    for (i = 0; i < 16; i++) {
        pins(io, DC_SK);
        v = (uint16_t)((v << 1) | (do_high(io) ? 1u : 0u));
        pins(io, 0);
    }
    io->cfg_write8(io->ctx, DC_CS_LOW, 0);
    *w = v;
    return true;
}

pcam_err pcam_dc390_read_eeprom(const pcam_dc390_cfg_io *io, uint8_t raw[PCAM_DC390_EEPROM_BYTES])
{
    uint8_t a;

    if (io == NULL || raw == NULL || io->cfg_read8 == NULL || io->cfg_write8 == NULL)
        return PCAM_ERR_NULL;
    memset(raw, 0xFF, PCAM_DC390_EEPROM_BYTES);
    for (a = 0; a < PCAM_DC390_EEPROM_BYTES / 2u; a++) {
        uint16_t w;
        if (!read_word(io, a, &w)) {
            memset(raw, 0xFF, PCAM_DC390_EEPROM_BYTES);
            return PCAM_ERR_UNSUPPORTED;
        }
        raw[2u * a] = (uint8_t)w;
        raw[2u * a + 1u] = (uint8_t)(w >> 8);
    }
    return PCAM_OK;
}

static void defaults(pcam_dc390_settings *out)
{
    unsigned t;

    memset(out, 0, sizeof *out);
    out->host_id = 7;
    for (t = 0; t < PCAM_DC390_TARGETS; t++) {
        pcam_dc390_target *d = &out->target[t];
        d->mode = EE_MODE_PARITY | EE_MODE_SYNC | EE_MODE_DISC | EE_MODE_TAGS;
        d->parity = true;
        d->limits.period = speed_factor[0];
        d->limits.offset = 15;
        d->limits.disconnect = true;
        d->limits.tagged = true;
    }
}

static pcam_err refuse(pcam_dc390_settings *out, const char **why, pcam_err e, const char *text)
{
    defaults(out);
    if (why != NULL)
        *why = text;
    return e;
}

pcam_err pcam_dc390_parse(const uint8_t *raw, size_t len, pcam_dc390_settings *out, const char **why)
{
    uint16_t sum = 0;
    size_t i;
    unsigned t;

    if (out == NULL)
        return PCAM_ERR_NULL;
    if (raw == NULL)
        return refuse(out, why, PCAM_ERR_NULL, "no EEPROM image");
    if (len != PCAM_DC390_EEPROM_BYTES)
        return refuse(out, why, PCAM_ERR_LENGTH, "the EEPROM image is not 128 bytes");
    for (i = 0; i < len; i += 2)
        sum = (uint16_t)(sum + (raw[i] | (uint16_t)raw[i + 1] << 8));
    if (sum != PCAM_DC390_CHECKSUM)
        return refuse(out, why, PCAM_ERR_FORMAT, "the EEPROM checksum is wrong (blank or corrupt)");
    if (raw[EE_HOST_ID] > 7)
        return refuse(out, why, PCAM_ERR_RANGE, "the EEPROM's host ID is above 7");
    if (raw[EE_TAGS] > EE_MAX_TAGCODE)
        return refuse(out, why, PCAM_ERR_RANGE, "the EEPROM's tag count code is above 5");
    for (t = 0; t < PCAM_DC390_TARGETS; t++)
        if (raw[t * EE_TGT_STRIDE + 1] > EE_MAX_SPEED)
            return refuse(out, why, PCAM_ERR_RANGE, "a target's speed index in the EEPROM is above 7");

    memset(out, 0, sizeof *out);
    out->valid = true;
    out->host_id = raw[EE_HOST_ID];
    out->mode2 = raw[EE_MODE2];
    out->reset_delay_s = raw[EE_DELAY];
    out->max_tags = (uint16_t)(2u << raw[EE_TAGS]);
    for (t = 0; t < PCAM_DC390_TARGETS; t++) {
        uint8_t m = raw[t * EE_TGT_STRIDE], sp = raw[t * EE_TGT_STRIDE + 1];
        pcam_dc390_target *d = &out->target[t];
        d->mode = m;
        d->speed = sp;
        d->start_unit = (m & EE_MODE_START) != 0;
        d->parity = (m & EE_MODE_PARITY) != 0;
        if ((m & EE_MODE_SYNC) != 0) {
            d->limits.period = speed_factor[sp];
            d->limits.offset = 15;
        }
        d->limits.disconnect = (m & EE_MODE_DISC) != 0;
        /* Tagged commands are queued while disconnected: without the
         * privilege a tag buys nothing (tmscsim ties them the same way). */
        d->limits.tagged = (m & EE_MODE_TAGS) != 0 && d->limits.disconnect;
    }
    if (why != NULL)
        *why = "valid";
    return PCAM_OK;
}

void pcam_dc390_apply(const pcam_dc390_settings *s, pcam_esp_config *ec, pcam_bus_config *bc)
{
    unsigned t;
    bool parity = false;

    if (s == NULL || !s->valid)
        return;
    for (t = 0; t < PCAM_DC390_TARGETS; t++)
        if (t != s->host_id && s->target[t].parity)
            parity = true;
    if (ec != NULL) {
        ec->initiator_id = s->host_id;
        if (!parity)
            ec->flags |= PCAM_ESP_F_NO_PARITY;
    }
    if (bc != NULL && s->max_tags != 0) {
        if (bc->tag_depth > s->max_tags)
            bc->tag_depth = s->max_tags;
        if (bc->tag_depth_max > s->max_tags)
            bc->tag_depth_max = s->max_tags;
    }
}

static void limits_done(pcam_ccb *ccb)
{
    (void)ccb;
}

pcam_err pcam_dc390_set_limits(pcam_bus *bus, const pcam_dc390_settings *s)
{
    uint8_t t;

    if (bus == NULL || s == NULL)
        return PCAM_ERR_NULL;
    if (!s->valid)
        return PCAM_OK; /* the core's own limits are the defaults */
    for (t = 0; t < PCAM_DC390_TARGETS; t++) {
        pcam_ccb ccb;

        if (t == s->host_id)
            continue;
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_SET_TRAN;
        ccb.target = t;
        ccb.done = limits_done;
        ccb.u.tran.type = PCAM_TRAN_USER;
        ccb.u.tran.settings = s->target[t].limits;
        pcam_action(bus, &ccb); /* a synchronous function: completed on return */
        if ((ccb.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP)
            return PCAM_ERR_RANGE;
    }
    return PCAM_OK;
}
