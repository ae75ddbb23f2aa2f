/* SPDX-License-Identifier: BSD-2-Clause */
/* The completion list as the other concerns see it (whether anything
 * waits), and the device table: what is known of each target and LUN
 * (flags, INQUIRY identity), which the scan, the engine and the retry
 * policy all learn and write only through these. Nothing outside
 * core/common touches bus->ev or writes a LUN's or target's dev; included
 * by pcam_core.h. */
#ifndef PCAM_COMMON_INLINE_H
#define PCAM_COMMON_INLINE_H

/* Are completions waiting for their callbacks? */
static inline bool pcam_core_has_done(const pcam_bus *bus)
{
    return bus->ev.done_q.head != NULL;
}

/* Set then clear PCAM_LUNF_* bits of a LUN. */
static inline void pcam_dev_lun_flags(pcam_lun *l, uint8_t set, uint8_t clear)
{
    l->dev.flags &= (uint8_t)~clear;
    l->dev.flags |= set;
}
/* Set then clear PCAM_TGTF_* bits of a target. */
static inline void pcam_dev_tgt_flags(pcam_target *t, uint8_t set, uint8_t clear)
{
    t->dev.flags &= (uint8_t)~clear;
    t->dev.flags |= set;
}
/* What a LUN says it is: qualifier and type, and the first `len` bytes of
 * its standard INQUIRY data kept (0: none). */
static inline void pcam_dev_lun_id(pcam_lun *l, uint8_t qualifier, uint8_t type, const uint8_t *inq, uint32_t len)
{
    l->dev.qualifier = qualifier;
    l->dev.type = type;
    l->dev.inquiry_len = (uint8_t)(len < PCAM_INQ_BYTES ? len : PCAM_INQ_BYTES);
    if (l->dev.inquiry_len != 0)
        memcpy(l->dev.inquiry, inq, l->dev.inquiry_len);
}

#endif /* PCAM_COMMON_INLINE_H */
