/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The recovery report of a command (pcam_scsiio::recovery) in words, so an
 * error message can say what the core did about it ("failed: CMD_TIMEOUT
 * after ABORT TASK refused, BUS DEVICE RESET not answered, bus reset").
 * Formatting only: the engine sets the bits as its ladder runs. The core
 * never calls it, so like the other formatters it is compiled only with
 * PCAM_CFG_TEXT.
 */
#include "pcam/pcam.h"
#include "pcam_util.h"

#if PCAM_CFG_TEXT

static void step(pcam_strbuf *sb, bool *first, const char *name, uint16_t bits, uint16_t sent,
                 uint16_t ok, uint16_t refused)
{
    if ((bits & sent) == 0)
        return;
    if (!*first)
        pcam_sb_puts(sb, ", ");
    *first = false;
    pcam_sb_puts(sb, name);
    if ((bits & ok) != 0)
        pcam_sb_puts(sb, " taken");
    else if ((bits & refused) != 0)
        pcam_sb_puts(sb, " refused");
    else
        pcam_sb_puts(sb, " not answered");
}

int pcam_recovery_format(uint16_t bits, char *buf, size_t cap)
{
    pcam_strbuf sb;
    bool first = true;
    if (buf == NULL)
        return PCAM_ERR_NULL;
    pcam_sb_init(&sb, buf, cap);
    if (bits == 0) {
        pcam_sb_puts(&sb, "none");
        return sb.overflow ? PCAM_ERR_NOSPACE : 0;
    }
    if ((bits & PCAM_RCV_NOT_ISSUED) != 0) {
        pcam_sb_puts(&sb, "its time ran out before it reached the target");
        first = false;
    }
    step(&sb, &first, "ABORT TASK", bits, PCAM_RCV_ABORT, PCAM_RCV_ABORT_OK, PCAM_RCV_ABORT_REFUSED);
    step(&sb, &first, "BUS DEVICE RESET", bits, PCAM_RCV_DEV_RESET, PCAM_RCV_DEV_RESET_OK,
         PCAM_RCV_DEV_RESET_REFUSED);
    if ((bits & (PCAM_RCV_BUS_RESET | PCAM_RCV_CHIP_RESET)) != 0) {
        if (!first)
            pcam_sb_puts(&sb, ", ");
        pcam_sb_puts(&sb, (bits & PCAM_RCV_CHIP_RESET) != 0 ? "chip and bus reset" : "bus reset");
    }
    return sb.overflow ? PCAM_ERR_NOSPACE : (int)sb.len;
}
#endif /* PCAM_CFG_TEXT */
