/* SPDX-License-Identifier: BSD-2-Clause */
/* The completion list as the other concerns see it: whether anything waits.
 * Nothing outside core/common touches bus->ev; included by pcam_core.h. */
#ifndef PCAM_COMMON_INLINE_H
#define PCAM_COMMON_INLINE_H

/* Are completions waiting for their callbacks? */
static inline bool pcam_core_has_done(const pcam_bus *bus)
{
    return bus->ev.done_q.head != NULL;
}

#endif /* PCAM_COMMON_INLINE_H */
