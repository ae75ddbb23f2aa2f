/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * INQUIRY and REPORT LUNS parameter data (see pcam_inquiry.h); READ
 * CAPACITY is in capacity.c.
 * Byte and bit positions: SPC-4 "standard INQUIRY data", SAM-5 "logical unit
 * number" and SBC-3 "READ CAPACITY parameter data"; the SPI byte 56 bits
 * are from SPC-3 (they moved to SPI-specific text in SPC-4).
 */
#include "pcam/pcam_inquiry.h"
#include "pcam_util.h"

/* ---- INQUIRY ---- */

/* The scan reads the three fields it needs itself (core/xpt/scan.c). */
#if PCAM_CFG_CODEC_EXTRAS

/* Copy a fixed-width ASCII field: padding (spaces or NULs) at the end is
 * dropped, anything else outside printable ASCII becomes '?', so the
 * result is always safe to print. */
static void copy_id(char *dst, const uint8_t *src, size_t n)
{
    size_t end = n;
    size_t i;

    while (end > 0 && (src[end - 1] == ' ' || src[end - 1] == 0))
        end--;
    for (i = 0; i < end; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7F) ? (char)src[i] : '?';
    dst[end] = '\0';
}

static bool bit(uint8_t b, unsigned n)
{
    return ((b >> n) & 1u) != 0;
}

/* The one-bit flags: where each lives in the data and in pcam_inquiry, and
 * how many valid bytes it needs (bytes 5-7 come as a group). A table walked
 * once instead of a load, shift and store written out per flag. */
#define FLAG(field, byte, bitno, need) {(uint8_t)offsetof(pcam_inquiry, field), byte, bitno, need}
static const struct inq_flag {
    uint8_t field, byte, bit, need;
} inq_flags[] = {
    FLAG(rmb, 1, 7, 2),      FLAG(lu_cong, 1, 6, 2),  FLAG(normaca, 3, 5, 4),
    FLAG(hisup, 3, 4, 4),    FLAG(sccs, 5, 7, 8),     FLAG(acc, 5, 6, 8),
    FLAG(threepc, 5, 3, 8),  FLAG(protect, 5, 0, 8),  FLAG(encserv, 6, 6, 8),
    FLAG(multip, 6, 4, 8),   FLAG(mchngr, 6, 3, 8),   FLAG(addr16, 6, 0, 8),
    FLAG(wbus16, 7, 5, 8),   FLAG(sync, 7, 4, 8),     FLAG(linked, 7, 3, 8),
    FLAG(trandis, 7, 2, 8),  FLAG(cmdque, 7, 1, 8),   FLAG(qas, 56, 1, 57),
    FLAG(ius, 56, 0, 57),
};
#undef FLAG

pcam_err pcam_inquiry_parse(const uint8_t *buf, size_t len, pcam_inquiry *out)
{
    size_t valid;
    unsigned i;

    if (out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (buf == NULL && len != 0)
        return PCAM_ERR_NULL;

    /* Bytes 0-3 are still worth having from a short response. */
    valid = len < 5 ? len : (size_t)buf[4] + 5;
    if (valid > len)
        valid = len;
    out->bytes_valid = (uint16_t)valid;

    for (i = 0; i < sizeof inq_flags / sizeof inq_flags[0]; i++) {
        const struct inq_flag *f = &inq_flags[i];
        if (valid >= f->need)
            *(bool *)((char *)out + f->field) = bit(buf[f->byte], f->bit);
    }
    if (valid >= 1) {
        out->qualifier = (uint8_t)(buf[0] >> 5);
        out->device_type = (uint8_t)(buf[0] & 0x1F);
    }
    if (valid >= 3)
        out->version = buf[2];
    if (valid >= 4)
        out->response_format = (uint8_t)(buf[3] & 0x0F);
    if (len < 5)
        return PCAM_ERR_TRUNCATED;
    out->additional_length = buf[4];

    if (valid >= 8) {
        out->have_flags = true;
        out->tpgs = (uint8_t)((buf[5] >> 4) & 3u);
    }
    if (valid >= 16) {
        out->have_vendor = true;
        copy_id(out->vendor, buf + 8, 8);
    }
    if (valid >= 32) {
        out->have_product = true;
        copy_id(out->product, buf + 16, 16);
    }
    if (valid >= 36) {
        out->have_revision = true;
        copy_id(out->revision, buf + 32, 4);
    }
    if (valid >= 57) {
        out->have_spi = true;
        out->clocking = (uint8_t)((buf[56] >> 2) & 3u);
    }
    for (i = 0; i < 8 && valid >= 58 + 2 * (i + 1); i++)
        out->version_desc[i] = pcam_get_be16(buf + 58 + 2 * i);
    out->version_desc_count = (uint8_t)i;
    return PCAM_OK;
}
#endif /* PCAM_CFG_CODEC_EXTRAS */

#if PCAM_CFG_TEXT
/* SPC-4 peripheral device type table (facts; pcam's wording). */
static const char *const type_names[0x20] = {
    "Direct-access block device",
    "Sequential-access device",
    "Printer device",
    "Processor device",
    "Write-once device",
    "CD/DVD device",
    "Scanner device (obsolete)",
    "Optical memory device",
    "Medium changer device",
    "Communications device (obsolete)",
    "Graphic arts pre-press device (obsolete)",
    "Graphic arts pre-press device (obsolete)",
    "Storage array controller device",
    "Enclosure services device",
    "Simplified direct-access device",
    "Optical card reader/writer device",
    "Bridge controller commands",
    "Object-based storage device",
    "Automation/drive interface",
    "Security manager device",
    "Host managed zoned block device",
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    "Well known logical unit",
    "Unknown or no device type",
};

const char *pcam_device_type_name(uint8_t type)
{
    const char *n = type_names[type & 0x1F];
    return n != NULL ? n : "Reserved device type";
}
#endif /* PCAM_CFG_TEXT */

/* ---- REPORT LUNS ---- */

/* The core reads REPORT LUNS data only in its scan. */
#if PCAM_CFG_REPORT_LUNS || PCAM_CFG_CODEC_EXTRAS

static bool any_nonzero(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != 0)
            return true;
    return false;
}

static uint64_t get_be40(const uint8_t *p)
{
    return ((uint64_t)p[0] << 32) | pcam_get_be32(p + 1);
}

pcam_err pcam_lun_decode(const uint8_t lun8[8], pcam_lun_addr *out)
{
    const uint8_t *b = lun8;

    if (out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (b == NULL)
        return PCAM_ERR_NULL;
    memcpy(out->raw, b, 8);
    out->method = (pcam_lun_method)(b[0] >> 6);
    out->level_bytes = 2;

    switch (out->method) {
    case PCAM_LUN_PERIPHERAL:
        out->form = PCAM_LUNF_PERIPHERAL;
        out->bus = (uint8_t)(b[0] & 0x3F);
        /* Bus 0 means "a LUN at this level"; otherwise byte 1 is a target
         * behind a bridge and the LUN is in the next level. */
        if (out->bus == 0) {
            out->has_lun = true;
            out->lun = b[1];
        } else {
            out->target = b[1];
        }
        break;
    case PCAM_LUN_FLAT:
        out->form = PCAM_LUNF_FLAT;
        out->has_lun = true;
        out->lun = ((uint32_t)(b[0] & 0x3F) << 8) | b[1];
        break;
    case PCAM_LUN_LOGICAL_UNIT:
        out->form = PCAM_LUNF_LOGICAL_UNIT;
        out->target = (uint8_t)(b[0] & 0x3F);
        out->bus = (uint8_t)(b[1] >> 5);
        out->has_lun = true;
        out->lun = b[1] & 0x1Fu;
        break;
    case PCAM_LUN_EXTENDED:
    default:
        out->ext_length = (uint8_t)((b[0] >> 4) & 3u);
        out->ext_method = (uint8_t)(b[0] & 0x0F);
        out->level_bytes = (uint8_t)(2u * (out->ext_length + 1u));
        if (out->ext_length == 0 && out->ext_method == 1) {
            out->form = PCAM_LUNF_WELL_KNOWN;
            out->ext_value = b[1];
        } else if (out->ext_length == 1 && out->ext_method == 2) {
            out->form = PCAM_LUNF_EXTENDED_FLAT;
            out->ext_value = pcam_get_be24(b + 1);
            out->has_lun = true;
            out->lun = (uint32_t)out->ext_value;
        } else if (out->ext_length == 2 && out->ext_method == 2) {
            /* 40 bits do not fit the 32-bit convenience value. */
            out->form = PCAM_LUNF_LONG_EXTENDED_FLAT;
            out->ext_value = get_be40(b + 1);
        } else if (out->ext_length == 3 && out->ext_method == 0x0F) {
            out->form = PCAM_LUNF_NOT_SPECIFIED;
        } else {
            out->form = PCAM_LUNF_EXTENDED_RESERVED;
        }
        break;
    }
    out->has_next_level =
        out->form != PCAM_LUNF_NOT_SPECIFIED && any_nonzero(b + out->level_bytes, 8u - out->level_bytes);
    return PCAM_OK;
}

pcam_err pcam_report_luns_header(const uint8_t *buf, size_t len, uint32_t *list_bytes,
                                 uint32_t *count_present)
{
    uint32_t claimed;
    size_t room;

    if (list_bytes == NULL || count_present == NULL)
        return PCAM_ERR_NULL;
    *list_bytes = 0;
    *count_present = 0;
    if (buf == NULL && len != 0)
        return PCAM_ERR_NULL;
    if (len < PCAM_REPORT_LUNS_HEADER_LEN)
        return PCAM_ERR_TRUNCATED;

    claimed = pcam_get_be32(buf);
    room = len - PCAM_REPORT_LUNS_HEADER_LEN;
    *list_bytes = claimed;
    /* Only whole entries that are both claimed and transferred count. */
    *count_present = (uint32_t)((claimed < room ? claimed : room) / PCAM_LUN_LEN);
    if (claimed % PCAM_LUN_LEN != 0)
        return PCAM_ERR_LENGTH;
    if (claimed > room)
        return PCAM_ERR_TRUNCATED;
    return PCAM_OK;
}

pcam_err pcam_report_luns_get(const uint8_t *buf, size_t len, uint32_t index, pcam_lun_addr *out)
{
    uint32_t claimed;
    size_t off;

    if (out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (buf == NULL && len != 0)
        return PCAM_ERR_NULL;
    if (len < PCAM_REPORT_LUNS_HEADER_LEN)
        return PCAM_ERR_TRUNCATED;
    claimed = pcam_get_be32(buf);
    if (index >= claimed / PCAM_LUN_LEN)
        return PCAM_ERR_RANGE;
    /* index < 2^29 here, so the offset cannot overflow a 32-bit size_t. */
    off = PCAM_REPORT_LUNS_HEADER_LEN + (size_t)index * PCAM_LUN_LEN;
    if (off > len || len - off < PCAM_LUN_LEN)
        return PCAM_ERR_TRUNCATED;
    return pcam_lun_decode(buf + off, out);
}
#endif /* PCAM_CFG_REPORT_LUNS || PCAM_CFG_CODEC_EXTRAS */
