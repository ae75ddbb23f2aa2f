/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPI message names and the one-line formatter (see pcam_msg.h). Only
 * tools, logs and tests read these; the engine never does, so the whole
 * file compiles to nothing with PCAM_CFG_TEXT 0.
 *
 * Code values and names are SPI-2..SPI-5 facts.
 */
#include "pcam/pcam_msg.h"
#include "pcam/pcam_err.h"
#include "pcam_util.h"

#if PCAM_CFG_TEXT

/* Indexed by code 0x00..0x17 (SPI-2 names for the obsolete ones). */
static const char *const one_byte_names[0x18] = {
    "COMMAND COMPLETE",
    "EXTENDED MESSAGE",
    "SAVE DATA POINTER",
    "RESTORE POINTERS",
    "DISCONNECT",
    "INITIATOR DETECTED ERROR",
    "ABORT TASK SET",
    "MESSAGE REJECT",
    "NO OPERATION",
    "MESSAGE PARITY ERROR",
    "LINKED COMMAND COMPLETE",
    "LINKED COMMAND COMPLETE (WITH FLAG)",
    "TARGET RESET",
    "ABORT TASK",
    "CLEAR TASK SET",
    "INITIATE RECOVERY (obsolete)",
    "RELEASE RECOVERY (obsolete)",
    "TERMINATE I/O PROCESS (obsolete)",
    "CONTINUE TASK (obsolete)",
    "TARGET TRANSFER DISABLE (obsolete)",
    NULL,
    NULL,
    "CLEAR ACA",
    "LOGICAL UNIT RESET",
};

static const char *const two_byte_names[5] = {
    "SIMPLE TAG", "HEAD OF QUEUE TAG", "ORDERED TAG", "IGNORE WIDE RESIDUE", "ACA TAG",
};

const char *pcam_msg_name(uint8_t code)
{
    const char *n = NULL;
    if (code >= PCAM_MSG_IDENTIFY)
        return "IDENTIFY";
    if (code < PCAM_ARRAY_SIZE(one_byte_names))
        n = one_byte_names[code];
    else if (code >= 0x20 && code < 0x20 + PCAM_ARRAY_SIZE(two_byte_names))
        n = two_byte_names[code - 0x20];
    else if (code == PCAM_MSG_QAS_REQUEST)
        n = "QAS REQUEST";
    return n != NULL ? n : "RESERVED";
}

const char *pcam_msg_ext_name(uint8_t ext_code)
{
    switch (ext_code) {
    case PCAM_EXT_MODIFY_DATA_POINTER: return "MODIFY DATA POINTER";
    case PCAM_EXT_SDTR: return "SDTR";
    case 0x02: return "EXTENDED IDENTIFY (obsolete)";
    case PCAM_EXT_WDTR: return "WDTR";
    case PCAM_EXT_PPR: return "PPR";
    case 0x05: return "MODIFY BIDIRECTIONAL DATA POINTER";
    default: return "RESERVED";
    }
}

static void put_hex8(pcam_strbuf *sb, uint8_t v)
{
    pcam_sb_puts(sb, "0x");
    pcam_sb_puthex(sb, v, 2);
}

/* "0x0C (50.00 ns)": ns to two decimals from integer picoseconds, rounded
 * half up (3125 ps prints as 3.13). */
static void put_period(pcam_strbuf *sb, uint8_t factor)
{
    uint32_t ps = pcam_period_factor_to_ps(factor);
    uint32_t centi;

    put_hex8(sb, factor);
    if (ps == 0) {
        pcam_sb_puts(sb, " (reserved)");
        return;
    }
    centi = (ps + 5u) / 10u;
    pcam_sb_puts(sb, " (");
    pcam_sb_putu(sb, centi / 100u);
    pcam_sb_putc(sb, '.');
    pcam_sb_putc(sb, (char)('0' + (centi / 10u) % 10u));
    pcam_sb_putc(sb, (char)('0' + centi % 10u));
    pcam_sb_puts(sb, " ns)");
}

static void put_offset(pcam_strbuf *sb, uint8_t offset)
{
    pcam_sb_puts(sb, " offset=");
    pcam_sb_putu(sb, offset);
    if (offset == 0)
        pcam_sb_puts(sb, " (asynchronous)");
}

static void put_width(pcam_strbuf *sb, uint8_t exp)
{
    pcam_sb_puts(sb, " width_exp=");
    pcam_sb_putu(sb, exp);
    switch (exp) {
    case PCAM_WIDTH_8BIT: pcam_sb_puts(sb, " (8 bit)"); break;
    case PCAM_WIDTH_16BIT: pcam_sb_puts(sb, " (16 bit)"); break;
    case PCAM_WIDTH_32BIT: pcam_sb_puts(sb, " (32 bit)"); break;
    default: pcam_sb_puts(sb, " (reserved)"); break;
    }
}

static void put_ppr_options(pcam_strbuf *sb, uint8_t opts)
{
    static const char *const bit_names[8] = {
        "IU_REQ", "DT_REQ", "QAS_REQ", "HOLD_MCS", "WR_FLOW", "RD_STRM", "RTI", "PCOMP_EN",
    };
    unsigned i;
    bool first = true;

    pcam_sb_puts(sb, " options=");
    put_hex8(sb, opts);
    for (i = 0; i < 8; i++) {
        if ((opts & (1u << i)) == 0)
            continue;
        pcam_sb_puts(sb, first ? " (" : " ");
        pcam_sb_puts(sb, bit_names[i]);
        first = false;
    }
    if (!first)
        pcam_sb_putc(sb, ')');
}

/* Identity of a message pcam could not decode: code, names, and whatever
 * extended header bytes arrived before the error. */
static void put_undecoded(pcam_strbuf *sb, const pcam_msg *m)
{
    pcam_sb_puts(sb, m->kind == PCAM_MSGK_RESERVED ? "RESERVED" : "MALFORMED");
    pcam_sb_puts(sb, " code=");
    put_hex8(sb, m->code);
    pcam_sb_puts(sb, " (");
    pcam_sb_puts(sb, pcam_msg_name(m->code));
    pcam_sb_putc(sb, ')');
    if (m->code == PCAM_MSG_EXTENDED && m->length >= 2) {
        pcam_sb_puts(sb, " length=");
        pcam_sb_putu(sb, m->ext_length);
        if (m->length >= 3) {
            pcam_sb_puts(sb, " ext=");
            put_hex8(sb, m->ext_code);
            pcam_sb_puts(sb, " (");
            pcam_sb_puts(sb, pcam_msg_ext_name(m->ext_code));
            pcam_sb_putc(sb, ')');
        }
    } else if (m->code >= 0x20 && m->code <= 0x2F && m->length >= 2) { /* two-byte messages */
        /* The second byte is only kept for IGNORE WIDE RESIDUE. */
        if (m->code == PCAM_MSG_IGNORE_WIDE_RESIDUE) {
            pcam_sb_puts(sb, " count=");
            pcam_sb_putu(sb, m->residue);
        }
    }
}

int pcam_msg_format(const pcam_msg *m, char *buf, size_t cap)
{
    pcam_strbuf sb;

    if (m == NULL || buf == NULL)
        return PCAM_ERR_NULL;
    pcam_sb_init(&sb, buf, cap);

    switch (m->kind) {
    case PCAM_MSGK_IDENTIFY:
        pcam_sb_puts(&sb, "IDENTIFY lun=");
        pcam_sb_putu(&sb, m->identify.lun);
        pcam_sb_puts(&sb, m->identify.disconnect_ok ? " disconnect=yes" : " disconnect=no");
        break;
    case PCAM_MSGK_SIMPLE_TAG:
    case PCAM_MSGK_HEAD_OF_QUEUE_TAG:
    case PCAM_MSGK_ORDERED_TAG:
    case PCAM_MSGK_ACA_TAG:
        pcam_sb_puts(&sb, pcam_msg_name(m->code));
        pcam_sb_puts(&sb, " tag=");
        put_hex8(&sb, m->tag);
        break;
    case PCAM_MSGK_IGNORE_WIDE_RESIDUE:
        pcam_sb_puts(&sb, "IGNORE WIDE RESIDUE count=");
        pcam_sb_putu(&sb, m->residue);
        break;
    case PCAM_MSGK_SDTR:
        pcam_sb_puts(&sb, "SDTR period=");
        put_period(&sb, m->sdtr.period);
        put_offset(&sb, m->sdtr.offset);
        break;
    case PCAM_MSGK_WDTR:
        pcam_sb_puts(&sb, "WDTR");
        put_width(&sb, m->wdtr_width_exp);
        break;
    case PCAM_MSGK_PPR:
        pcam_sb_puts(&sb, "PPR period=");
        put_period(&sb, m->ppr.period);
        put_offset(&sb, m->ppr.offset);
        put_width(&sb, m->ppr.width_exp);
        put_ppr_options(&sb, m->ppr.options);
        break;
    case PCAM_MSGK_MODIFY_DATA_POINTER:
        pcam_sb_puts(&sb, "MODIFY DATA POINTER argument=");
        if (m->mdp_argument < 0) {
            pcam_sb_putc(&sb, '-');
            /* Negate in unsigned arithmetic so INT32_MIN is fine. */
            pcam_sb_putu(&sb, 0u - (uint32_t)m->mdp_argument);
        } else {
            pcam_sb_putu(&sb, (uint32_t)m->mdp_argument);
        }
        break;
    case PCAM_MSGK_MALFORMED:
    case PCAM_MSGK_RESERVED:
        put_undecoded(&sb, m);
        break;
    default:
        /* Every remaining kind is a one-byte message named by its code. */
        pcam_sb_puts(&sb, pcam_msg_name(m->code));
        break;
    }
    return sb.overflow ? PCAM_ERR_NOSPACE : (int)sb.len;
}
#endif /* PCAM_CFG_TEXT */
