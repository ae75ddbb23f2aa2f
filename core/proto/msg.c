/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPI message decoder and the builders the core sends in every
 * configuration (see pcam_msg.h); the incremental parser is in
 * msg_parser.c, the other builders in msg_build.c, names and the formatter
 * in msg_text.c.
 *
 * Code values and layouts are SPI-2..SPI-5 facts; cross-checked against
 * FreeBSD cam/scsi/scsi_message.h and Linux include/scsi/scsi_proto.h.
 */
#include "pcam/pcam_msg.h"
#include "pcam/pcam_err.h"
#include "pcam_util.h"

/* Length byte an extended code must carry, or 0 if pcam does not decode it. */
static uint8_t ext_expected_length(uint8_t ext_code)
{
    switch (ext_code) {
    case PCAM_EXT_MODIFY_DATA_POINTER: return PCAM_EXT_MODIFY_DATA_POINTER_LEN;
    case PCAM_EXT_SDTR: return PCAM_EXT_SDTR_LEN;
    case PCAM_EXT_WDTR: return PCAM_EXT_WDTR_LEN;
    case PCAM_EXT_PPR: return PCAM_EXT_PPR_LEN;
    default: return 0;
    }
}

static bool is_two_byte(uint8_t code)
{
    return code >= 0x20 && code <= 0x2F;
}



/* Fill the identity part of *out from the first `have` bytes of a message. */
static void take_header(const uint8_t *b, size_t have, pcam_msg *out)
{
    memset(out, 0, sizeof *out);
    out->code = b[0];
    out->length = (uint16_t)have;
    if (out->code == PCAM_MSG_EXTENDED) {
        if (have >= 2)
            out->ext_length = b[1];
        if (have >= 3)
            out->ext_code = b[2];
    }
}

/* Kinds of the one-byte codes below 0x18, 0 (never a one-byte kind) for
 * the reserved ones: 0x0F..0x13 are obsolete SCSI-2 recovery / I/O-process
 * messages an initiator never needs, 0x14, 0x15 and 0x18..0x1F reserved,
 * and 0x01 is EXTENDED, which never comes here. A table, not a switch: a
 * third of the size. */
static const uint8_t one_byte_kinds[0x18] = {
    [PCAM_MSG_COMMAND_COMPLETE] = PCAM_MSGK_COMMAND_COMPLETE,
    [PCAM_MSG_SAVE_DATA_POINTER] = PCAM_MSGK_SAVE_DATA_POINTER,
    [PCAM_MSG_RESTORE_POINTERS] = PCAM_MSGK_RESTORE_POINTERS,
    [PCAM_MSG_DISCONNECT] = PCAM_MSGK_DISCONNECT,
    [PCAM_MSG_INITIATOR_DETECTED_ERROR] = PCAM_MSGK_INITIATOR_DETECTED_ERROR,
    [PCAM_MSG_ABORT_TASK_SET] = PCAM_MSGK_ABORT_TASK_SET,
    [PCAM_MSG_MESSAGE_REJECT] = PCAM_MSGK_MESSAGE_REJECT,
    [PCAM_MSG_NO_OPERATION] = PCAM_MSGK_NO_OPERATION,
    [PCAM_MSG_MESSAGE_PARITY_ERROR] = PCAM_MSGK_MESSAGE_PARITY_ERROR,
    [PCAM_MSG_LINKED_COMMAND_COMPLETE] = PCAM_MSGK_LINKED_COMMAND_COMPLETE,
    [PCAM_MSG_LINKED_COMMAND_COMPLETE_FLAG] = PCAM_MSGK_LINKED_COMMAND_COMPLETE,
    [PCAM_MSG_TARGET_RESET] = PCAM_MSGK_TARGET_RESET,
    [PCAM_MSG_ABORT_TASK] = PCAM_MSGK_ABORT_TASK,
    [PCAM_MSG_CLEAR_TASK_SET] = PCAM_MSGK_CLEAR_TASK_SET,
    [PCAM_MSG_CLEAR_ACA] = PCAM_MSGK_CLEAR_ACA,
    [PCAM_MSG_LOGICAL_UNIT_RESET] = PCAM_MSGK_LOGICAL_UNIT_RESET,
};

static int one_byte_kind(uint8_t code, pcam_msg *out)
{
    uint8_t kind = code < sizeof one_byte_kinds ? one_byte_kinds[code] : 0;
    if (code == PCAM_MSG_QAS_REQUEST)
        kind = PCAM_MSGK_QAS_REQUEST;
    if (kind == 0) {
        /* Reserved or obsolete: either way the answer is MESSAGE REJECT. */
        out->kind = PCAM_MSGK_RESERVED;
        return PCAM_ERR_RESERVED;
    }
    out->kind = (pcam_msg_kind)kind;
    out->linked_flag = code == PCAM_MSG_LINKED_COMMAND_COMPLETE_FLAG;
    return PCAM_OK;
}

static int identify_kind(uint8_t code, pcam_msg *out)
{
    if ((code & PCAM_MSG_IDENTIFY_RESERVED) != 0) {
        out->kind = PCAM_MSGK_MALFORMED;
        return PCAM_ERR_FORMAT;
    }
    if ((code & PCAM_MSG_IDENTIFY_LUNTAR) != 0) {
        /* Target routines were dropped after SCSI-2. */
        out->kind = PCAM_MSGK_RESERVED;
        return PCAM_ERR_RESERVED;
    }
    out->kind = PCAM_MSGK_IDENTIFY;
    out->identify.lun = (uint8_t)(code & PCAM_MSG_IDENTIFY_LUN_MASK);
    out->identify.disconnect_ok = (code & PCAM_MSG_IDENTIFY_DISCPRIV) != 0;
    return PCAM_OK;
}

static int two_byte_kind(const uint8_t *b, pcam_msg *out)
{
    /* Kinds of 0x20..0x24; 0x25..0x2F are reserved. */
    static const uint8_t kinds[5] = {PCAM_MSGK_SIMPLE_TAG, PCAM_MSGK_HEAD_OF_QUEUE_TAG,
                                     PCAM_MSGK_ORDERED_TAG, PCAM_MSGK_IGNORE_WIDE_RESIDUE,
                                     PCAM_MSGK_ACA_TAG};
    unsigned i = (unsigned)b[0] - PCAM_MSG_SIMPLE_TAG;

    if (i >= sizeof kinds) {
        out->kind = PCAM_MSGK_RESERVED;
        return PCAM_ERR_RESERVED;
    }
    if (b[0] == PCAM_MSG_IGNORE_WIDE_RESIDUE) {
        /* Counts 00h and 04h..FFh are reserved (SPI-3). */
        out->residue = b[1];
        if (b[1] == 0 || b[1] > 3) {
            out->kind = PCAM_MSGK_MALFORMED;
            return PCAM_ERR_RANGE;
        }
    } else {
        out->tag = b[1];
    }
    out->kind = (pcam_msg_kind)kinds[i];
    return PCAM_OK;
}

/* Only called once the length byte has been checked against the code. */
static int extended_kind(const uint8_t *b, pcam_msg *out)
{
    switch (b[2]) {
    case PCAM_EXT_SDTR:
        out->kind = PCAM_MSGK_SDTR;
        out->sdtr.period = b[3];
        out->sdtr.offset = b[4];
        return PCAM_OK;
    case PCAM_EXT_WDTR:
        out->kind = PCAM_MSGK_WDTR;
        out->wdtr_width_exp = b[3];
        return PCAM_OK;
    case PCAM_EXT_PPR:
        out->kind = PCAM_MSGK_PPR;
        out->ppr.period = b[3];
        /* b[4] is reserved. */
        out->ppr.offset = b[5];
        out->ppr.width_exp = b[6];
        out->ppr.options = b[7];
        return PCAM_OK;
    case PCAM_EXT_MODIFY_DATA_POINTER:
        out->kind = PCAM_MSGK_MODIFY_DATA_POINTER;
        /* Two's complement on the wire; convert without relying on the
         * implementation-defined unsigned-to-signed cast. */
        {
            uint32_t u = pcam_get_be32(b + 3);
            out->mdp_argument = (u & 0x80000000u) != 0
                                    ? (int32_t)(u - 0x80000000u) - INT32_MAX - 1
                                    : (int32_t)u;
        }
        return PCAM_OK;
    default:
        out->kind = PCAM_MSGK_RESERVED;
        return PCAM_ERR_RESERVED;
    }
}

/* The message is the `have` bytes at b, all of them there. */
static int complete(const uint8_t *b, size_t have, pcam_msg *out)
{
    uint8_t code = b[0];

    take_header(b, have, out);
    if (code >= PCAM_MSG_IDENTIFY)
        return identify_kind(code, out);
    if (code == PCAM_MSG_EXTENDED)
        return extended_kind(b, out);
    if (is_two_byte(code))
        return two_byte_kind(b, out);
    return one_byte_kind(code, out);
}


/* Straight from the buffer, without the incremental parser (msg_parser.c),
 * which the core does not need: it has every byte so far at hand. */
int pcam_msg_decode(const uint8_t *buf, size_t len, pcam_msg *out, size_t *consumed)
{
    size_t total = 1;
    int rc;

    if (consumed != NULL)
        *consumed = 0;
    if (out == NULL || (buf == NULL && len != 0))
        return PCAM_ERR_NULL;
    if (len == 0)
        return 1;
    if (buf[0] == PCAM_MSG_EXTENDED) {
        if (len < 2)
            return 1;
        total = 2u + buf[1];
        /* The length byte is checked as soon as it is there, and against
         * the code as soon as that is: the message ends at the bad byte. */
        if (buf[1] == 0 || (len >= 3 && ext_expected_length(buf[2]) != 0 &&
                            buf[1] != ext_expected_length(buf[2]))) {
            total = buf[1] == 0 ? 2u : 3u;
            take_header(buf, total, out);
            out->kind = PCAM_MSGK_MALFORMED;
            rc = PCAM_ERR_LENGTH;
            goto done;
        }
    } else if (is_two_byte(buf[0])) {
        total = 2;
    }
    if (len < total)
        return (int)(total - len);
    rc = complete(buf, total, out);
done:
    if (consumed != NULL)
        *consumed = total;
    return rc;
}

/* ---- builders ---- */

int pcam_msg_build_identify(uint8_t *buf, size_t cap, uint8_t lun, bool disconnect_ok)
{
    uint8_t b;
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (lun > PCAM_MSG_IDENTIFY_LUN_MASK)
        return PCAM_ERR_RANGE;
    b = (uint8_t)(PCAM_MSG_IDENTIFY | (disconnect_ok ? PCAM_MSG_IDENTIFY_DISCPRIV : 0) | lun);
    return pcam_put_bytes(buf, cap, &b, 1);
}

int pcam_msg_build_tag(uint8_t *buf, size_t cap, uint8_t code, uint8_t tag)
{
    uint8_t b[2];
    if (buf == NULL)
        return PCAM_ERR_NULL;
    if (code != PCAM_MSG_SIMPLE_TAG && code != PCAM_MSG_HEAD_OF_QUEUE_TAG &&
        code != PCAM_MSG_ORDERED_TAG && code != PCAM_MSG_ACA_TAG)
        return PCAM_ERR_RANGE;
    b[0] = code;
    b[1] = tag;
    return pcam_put_bytes(buf, cap, b, 2);
}

int pcam_msg_build_sdtr(uint8_t *buf, size_t cap, uint8_t period, uint8_t offset)
{
    uint8_t b[5];
    b[0] = PCAM_MSG_EXTENDED;
    b[1] = PCAM_EXT_SDTR_LEN;
    b[2] = PCAM_EXT_SDTR;
    b[3] = period;
    b[4] = offset;
    return pcam_put_bytes(buf, cap, b, sizeof b);
}

