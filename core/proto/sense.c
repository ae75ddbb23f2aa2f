/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sense data decoding, building and formatting (SPC-5 clause 4.4). The
 * ASC/ASCQ texts are in asc_table.c, compressed (see asc_table.h).
 *
 * Decoding trusts nothing the target sent: the end of the sense data is the
 * smaller of the bytes received and 8 + the additional sense length, and a
 * field is reported only when it lies wholly before that end. Some targets
 * send a short transfer with a full additional length, others pad a short
 * additional length with garbage; both are handled by that one rule.
 */
#include "pcam/pcam_sense.h"
#include "pcam_util.h"
#include "asc_table.h"

/* Bit positions shared by the fixed format's byte 2 and the stream
 * commands descriptor's byte 3. */
#define SENSE_FILEMARK 0x80u
#define SENSE_EOM 0x40u
#define SENSE_ILI 0x20u
#define SENSE_SDAT_OVFL 0x10u
#define SENSE_VALID 0x80u /* fixed byte 0, information descriptor byte 2 */
#define SENSE_SKSV 0x80u

/* Descriptor types (SPC-5 table "Sense data descriptor types"). */
#define DESC_INFORMATION 0x00u
#define DESC_COMMAND_SPECIFIC 0x01u
#define DESC_SENSE_KEY_SPECIFIC 0x02u
#define DESC_FRU 0x03u
#define DESC_STREAM_COMMANDS 0x04u
#define DESC_BLOCK_COMMANDS 0x05u
#define DESC_PROGRESS 0x0Au /* SPC-4/5 progress indication: key, ASC, ASCQ, reserved, progress */

#if PCAM_CFG_TEXT
const char *pcam_sense_key_name(uint8_t key)
{
    /* 0Ch is obsolete in SPC but SCSI-2 devices, which a parallel SCSI
     * initiator meets, still report it as EQUAL. */
    static const char *const names[16] = {
        "NO SENSE",        "RECOVERED ERROR", "NOT READY",       "MEDIUM ERROR",
        "HARDWARE ERROR",  "ILLEGAL REQUEST", "UNIT ATTENTION",  "DATA PROTECT",
        "BLANK CHECK",     "VENDOR SPECIFIC", "COPY ABORTED",    "ABORTED COMMAND",
        "EQUAL",           "VOLUME OVERFLOW", "MISCOMPARE",      "COMPLETED",
    };
    return names[key & 0x0Fu];
}

#if PCAM_CFG_SENSE_TEXT
static int asc_find(uint8_t asc, uint8_t ascq)
{
    unsigned want = ((unsigned)asc << 8) | ascq;
    unsigned lo = 0, hi = PCAM_ASC_COUNT;

    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2u;
        unsigned have = pcam_asc_keys[mid];
        if (have == want)
            return (int)mid;
        if (have < want)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return -1;
}

/* Expand entry i straight into the output: the stack holds the right
 * halves still to come, never more than the deepest token nests. */
static void put_asc_entry(pcam_strbuf *sb, unsigned i)
{
    uint8_t stack[PCAM_ASC_DEPTH];
    unsigned sp;

    for (unsigned at = pcam_asc_offs[i]; at < pcam_asc_offs[i + 1u]; at++) {
        uint8_t c = pcam_asc_stream[at];
        sp = 0;
        for (;;) {
            while (!PCAM_ASC_IS_CHAR(c)) {
                const uint8_t *pair = pcam_asc_pairs[PCAM_ASC_TOKEN(c)];
                if (sp < PCAM_ASC_DEPTH)
                    stack[sp++] = pair[1];
                c = pair[0];
            }
            pcam_sb_putc(sb, (char)c);
            if (sp == 0)
                break;
            c = stack[--sp];
        }
    }
}

static const pcam_asc_range_entry *asc_range_find(uint8_t asc, uint8_t ascq)
{
    /* A handful of entries: a scan is smaller than a search. */
    for (unsigned i = 0; i < PCAM_ASC_RANGES; i++) {
        const pcam_asc_range_entry *r = &pcam_asc_ranges[i];
        if (r->asc == asc && ascq >= r->ascq_lo && ascq <= r->ascq_hi)
            return r;
    }
    return NULL;
}
#endif

bool pcam_asc_known(uint8_t asc, uint8_t ascq)
{
#if PCAM_CFG_SENSE_TEXT
    return asc_find(asc, ascq) >= 0 || asc_range_find(asc, ascq) != NULL;
#else
    (void)asc;
    (void)ascq;
    return false;
#endif
}

static void put_asc(pcam_strbuf *sb, uint8_t asc, uint8_t ascq)
{
#if PCAM_CFG_SENSE_TEXT
    int i = asc_find(asc, ascq);
    const pcam_asc_range_entry *r;

    if (i >= 0) {
        put_asc_entry(sb, (unsigned)i);
        return;
    }
    r = asc_range_find(asc, ascq);
    if (r != NULL) {
        for (const char *p = r->text; *p != '\0'; p++) {
            if (p[0] == 'N' && p[1] == 'N') {
                pcam_sb_puthex(sb, ascq, 2);
                p++;
            } else {
                pcam_sb_putc(sb, *p);
            }
        }
        return;
    }
#endif
    /* SPC reserves codes 80h..FFh in either byte for vendors. */
    if (!PCAM_CFG_SENSE_TEXT || asc >= 0x80u || ascq >= 0x80u) {
        pcam_sb_puts(sb, "ASC 0x");
        pcam_sb_puthex(sb, asc, 2);
        pcam_sb_puts(sb, " ASCQ 0x");
        pcam_sb_puthex(sb, ascq, 2);
        if (asc >= 0x80u || ascq >= 0x80u)
            pcam_sb_puts(sb, " (vendor specific)");
        return;
    }
    pcam_sb_puts(sb, "Unknown ASC/ASCQ");
}

static int sb_result(const pcam_strbuf *sb)
{
    return sb->overflow ? PCAM_ERR_NOSPACE : (int)sb->len;
}

int pcam_asc_format(uint8_t asc, uint8_t ascq, char *buf, size_t cap)
{
    pcam_strbuf sb;

    if (buf == NULL)
        return PCAM_ERR_NULL;
    pcam_sb_init(&sb, buf, cap);
    put_asc(&sb, asc, ascq);
    return sb_result(&sb);
}
#endif /* PCAM_CFG_TEXT */

/* The meaning of the three sense-key specific bytes depends on the key. */
static void decode_sks(uint8_t key, const uint8_t *p, pcam_sense *out)
{
    pcam_sense_sks *sks = &out->sks;

    out->sks_valid = true;
    sks->raw[0] = p[0];
    sks->raw[1] = p[1];
    sks->raw[2] = p[2];
    switch (key) {
    case PCAM_SK_ILLEGAL_REQUEST:
        sks->kind = PCAM_SKS_FIELD_POINTER;
        sks->c_d = (p[0] & 0x40u) != 0;
        break;
    case PCAM_SK_COPY_ABORTED:
        sks->kind = PCAM_SKS_SEGMENT_POINTER;
        sks->sd = (p[0] & 0x20u) != 0;
        break;
    case PCAM_SK_NO_SENSE:
    case PCAM_SK_NOT_READY:
        sks->kind = PCAM_SKS_PROGRESS;
        sks->progress = pcam_get_be16(p + 1);
        return;
    case PCAM_SK_RECOVERED_ERROR:
    case PCAM_SK_MEDIUM_ERROR:
    case PCAM_SK_HARDWARE_ERROR:
        sks->kind = PCAM_SKS_RETRY_COUNT;
        sks->retry_count = pcam_get_be16(p + 1);
        return;
    default:
        sks->kind = PCAM_SKS_RAW;
        return;
    }
    /* Field and segment pointers share BPV, the bit pointer and the byte. */
    sks->bpv = (p[0] & 0x08u) != 0;
    if (sks->bpv)
        sks->bit_pointer = (uint8_t)(p[0] & 0x07u);
    sks->field_pointer = pcam_get_be16(p + 1);
}

/* `end` is the end of the sense data (see the top of the file). */
static pcam_err decode_fixed(const uint8_t *b, size_t end, pcam_sense *out)
{
    if (end < 3)
        return PCAM_ERR_TRUNCATED;
    out->key_valid = true;
    out->key = (uint8_t)(b[2] & 0x0Fu);
    out->filemark = (b[2] & SENSE_FILEMARK) != 0;
    out->eom = (b[2] & SENSE_EOM) != 0;
    out->ili = (b[2] & SENSE_ILI) != 0;
    out->sdat_ovfl = (b[2] & SENSE_SDAT_OVFL) != 0;
    if (end >= 7 && (b[0] & SENSE_VALID) != 0) {
        out->info_valid = true;
        out->info = pcam_get_be32(b + 3);
    }
    if (end >= 12) {
        out->csi = pcam_get_be32(b + 8);
        out->csi_valid = out->csi != 0;
    }
    if (end >= 14) {
        out->asc_valid = true;
        out->asc = b[12];
        out->ascq = b[13];
    }
    if (end >= 15) {
        out->fru = b[14];
        out->fru_valid = out->fru != 0;
    }
    if (end >= 18 && (b[15] & SENSE_SKSV) != 0)
        decode_sks(out->key, b + 15, out);
    return PCAM_OK;
}

/* One descriptor; `d` holds 2 + dlen bytes. A descriptor too short for its
 * type carries nothing usable and is ignored like an unknown type. */
static void decode_descriptor(const uint8_t *d, size_t dlen, pcam_sense *out)
{
    switch (d[0]) {
    case DESC_INFORMATION:
        if (dlen >= 10 && (d[2] & SENSE_VALID) != 0) {
            out->info_valid = true;
            out->info = pcam_get_be64(d + 4);
        }
        break;
    case DESC_COMMAND_SPECIFIC:
        if (dlen >= 10) {
            out->csi_valid = true;
            out->csi = pcam_get_be64(d + 4);
        }
        break;
    case DESC_SENSE_KEY_SPECIFIC:
        if (dlen >= 6 && (d[4] & SENSE_SKSV) != 0)
            decode_sks(out->key, d + 4, out);
        break;
    case DESC_FRU:
        if (dlen >= 2) {
            out->fru = d[3];
            out->fru_valid = out->fru != 0;
        }
        break;
    case DESC_STREAM_COMMANDS:
        if (dlen >= 2) {
            out->filemark = (d[3] & SENSE_FILEMARK) != 0;
            out->eom = (d[3] & SENSE_EOM) != 0;
            out->ili = out->ili || (d[3] & SENSE_ILI) != 0;
        }
        break;
    case DESC_BLOCK_COMMANDS:
        if (dlen >= 2)
            out->ili = out->ili || (d[3] & SENSE_ILI) != 0;
        break;
    case DESC_PROGRESS:
        if (dlen >= 6) {
            out->progress_valid = true;
            out->progress_key = (uint8_t)(d[2] & 0x0Fu);
            out->progress_asc = d[3];
            out->progress_ascq = d[4];
            out->progress = pcam_get_be16(d + 6);
        }
        break;
    }
    /* No default: the caller hands in only the types above. */
}

static pcam_err decode_descriptor_format(const uint8_t *b, size_t end, pcam_sense *out)
{
    unsigned seen = 0; /* bit per known descriptor type: the first one counts */
    size_t off = PCAM_SENSE_HEADER_LEN;

    if (end < 2)
        return PCAM_ERR_TRUNCATED;
    out->key_valid = true;
    out->key = (uint8_t)(b[1] & 0x0Fu);
    if (end >= 4) {
        out->asc_valid = true;
        out->asc = b[2];
        out->ascq = b[3];
    }
    if (end >= 5)
        out->sdat_ovfl = (b[4] & 0x80u) != 0; /* byte 4 here, not byte 2 */
    while (off < end) {
        size_t dlen;
        uint8_t type;
        if (end - off < 2) {
            out->truncated = true;
            break;
        }
        type = b[off];
        dlen = b[off + 1];
        if (dlen > end - off - 2) {
            out->truncated = true;
            break;
        }
        if ((type <= DESC_BLOCK_COMMANDS || type == DESC_PROGRESS) && (seen & (1u << type)) == 0) {
            seen |= 1u << type;
            decode_descriptor(b + off, dlen, out);
        }
        off += 2 + dlen;
    }
    return PCAM_OK;
}

pcam_err pcam_sense_decode(const uint8_t *buf, size_t len, pcam_sense *out)
{
    size_t end;

    if (out == NULL)
        return PCAM_ERR_NULL;
    memset(out, 0, sizeof *out);
    if (buf == NULL && len > 0)
        return PCAM_ERR_NULL;
    if (len == 0) {
        out->truncated = true;
        return PCAM_ERR_TRUNCATED;
    }
    out->response_code = (uint8_t)(buf[0] & 0x7Fu);
    if (len >= PCAM_SENSE_HEADER_LEN) {
        out->additional_length = buf[7];
        end = PCAM_SENSE_HEADER_LEN + (size_t)buf[7];
        if (end > len) {
            out->truncated = true;
            end = len;
        }
    } else {
        out->truncated = true;
        end = len;
    }
    out->used = (uint16_t)end;

    switch (out->response_code) {
    case PCAM_SENSE_RC_FIXED_CURRENT:
    case PCAM_SENSE_RC_FIXED_DEFERRED:
        out->format = PCAM_SENSE_FIXED;
        out->deferred = out->response_code == PCAM_SENSE_RC_FIXED_DEFERRED;
        return decode_fixed(buf, end, out);
    case PCAM_SENSE_RC_DESC_CURRENT:
    case PCAM_SENSE_RC_DESC_DEFERRED:
        out->format = PCAM_SENSE_DESCRIPTOR;
        out->deferred = out->response_code == PCAM_SENSE_RC_DESC_DEFERRED;
        return decode_descriptor_format(buf, end, out);
    case PCAM_SENSE_RC_VENDOR:
        /* Nothing past byte 0 is defined, so no length can be trusted. */
        out->format = PCAM_SENSE_VENDOR;
        out->additional_length = 0;
        out->truncated = false;
        out->used = (uint16_t)(len < PCAM_SENSE_MAX_LEN ? len : PCAM_SENSE_MAX_LEN);
        return PCAM_OK;
    default:
        out->additional_length = 0;
        out->truncated = false;
        out->used = 0;
        return PCAM_ERR_FORMAT;
    }
}

#if PCAM_CFG_TEXT
static void put_sks(pcam_strbuf *sb, const pcam_sense_sks *sks)
{
    switch (sks->kind) {
    case PCAM_SKS_FIELD_POINTER:
    case PCAM_SKS_SEGMENT_POINTER:
        pcam_sb_puts(sb, sks->kind == PCAM_SKS_FIELD_POINTER ? " field pointer byte "
                                                             : " segment pointer byte ");
        pcam_sb_putu(sb, sks->field_pointer);
        if (sks->bpv) {
            pcam_sb_puts(sb, " bit ");
            pcam_sb_putu(sb, sks->bit_pointer);
        }
        if (sks->kind == PCAM_SKS_FIELD_POINTER)
            pcam_sb_puts(sb, sks->c_d ? " in CDB" : " in parameter data");
        else
            pcam_sb_puts(sb, sks->sd ? " in segment descriptor" : " in parameter list");
        break;
    case PCAM_SKS_PROGRESS:
        /* The field is a fraction of 65536; integer percent, rounded down. */
        pcam_sb_puts(sb, " progress ");
        pcam_sb_putu(sb, ((uint32_t)sks->progress * 100u) >> 16);
        pcam_sb_putc(sb, '%');
        break;
    case PCAM_SKS_RETRY_COUNT:
        pcam_sb_puts(sb, " retries=");
        pcam_sb_putu(sb, sks->retry_count);
        break;
    case PCAM_SKS_RAW:
    default:
        pcam_sb_puts(sb, " sks=0x");
        pcam_sb_puthex(sb, ((uint32_t)(sks->raw[0] & 0x7Fu) << 16) |
                               ((uint32_t)sks->raw[1] << 8) | sks->raw[2], 6);
        break;
    }
}

int pcam_sense_format(const pcam_sense *s, char *buf, size_t cap)
{
    pcam_strbuf sb;

    if (s == NULL || buf == NULL)
        return PCAM_ERR_NULL;
    pcam_sb_init(&sb, buf, cap);
    if (s->format == PCAM_SENSE_VENDOR || !s->key_valid) {
        pcam_sb_puts(&sb, s->format == PCAM_SENSE_VENDOR ? "VENDOR SPECIFIC sense data"
                                                         : "Sense data without a sense key");
        pcam_sb_puts(&sb, " (response code 0x");
        pcam_sb_puthex(&sb, s->response_code, 2);
        pcam_sb_putc(&sb, ')');
    } else {
        pcam_sb_puts(&sb, pcam_sense_key_name(s->key));
        if (s->asc_valid) {
            pcam_sb_puts(&sb, ": ");
            put_asc(&sb, s->asc, s->ascq);
        }
        pcam_sb_puts(&sb, " (");
        pcam_sb_puthex(&sb, s->key & 0x0Fu, 1);
        if (s->asc_valid) {
            pcam_sb_putc(&sb, '/');
            pcam_sb_puthex(&sb, s->asc, 2);
            pcam_sb_putc(&sb, '/');
            pcam_sb_puthex(&sb, s->ascq, 2);
        }
        pcam_sb_putc(&sb, ')');
    }
    if (s->deferred)
        pcam_sb_puts(&sb, ", deferred");
    if (s->info_valid) {
        pcam_sb_puts(&sb, " info=0x");
        pcam_sb_puthex(&sb, s->info, 1);
    }
    if (s->csi_valid) {
        pcam_sb_puts(&sb, " csi=0x");
        pcam_sb_puthex(&sb, s->csi, 1);
    }
    if (s->fru_valid) {
        pcam_sb_puts(&sb, " fru=0x");
        pcam_sb_puthex(&sb, s->fru, 2);
    }
    if (s->sks_valid)
        put_sks(&sb, &s->sks);
    if (s->progress_valid) {
        /* Integer percent rounded down, as for the sense-key specific field. */
        pcam_sb_puts(&sb, " progress ");
        pcam_sb_putu(&sb, ((uint32_t)s->progress * 100u) >> 16);
        pcam_sb_puts(&sb, "% of ");
        pcam_sb_puts(&sb, pcam_sense_key_name(s->progress_key));
        pcam_sb_puts(&sb, ": ");
        put_asc(&sb, s->progress_asc, s->progress_ascq);
        pcam_sb_puts(&sb, " (");
        pcam_sb_puthex(&sb, s->progress_key, 1);
        pcam_sb_putc(&sb, '/');
        pcam_sb_puthex(&sb, s->progress_asc, 2);
        pcam_sb_putc(&sb, '/');
        pcam_sb_puthex(&sb, s->progress_ascq, 2);
        pcam_sb_putc(&sb, ')');
    }
    if (s->filemark)
        pcam_sb_puts(&sb, " FILEMARK");
    if (s->eom)
        pcam_sb_puts(&sb, " EOM");
    if (s->ili)
        pcam_sb_puts(&sb, " ILI");
    if (s->sdat_ovfl)
        pcam_sb_puts(&sb, " SDAT_OVFL");
    if (s->truncated)
        pcam_sb_puts(&sb, " (truncated)");
    return sb_result(&sb);
}

#endif /* PCAM_CFG_TEXT */
