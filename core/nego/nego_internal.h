/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to core/nego: the state encoding of struct pcam_nego and the
 * limit arithmetic shared by the message exchange (nego.c) and the policy
 * side (nego_policy.c: init, user limits, parity step-down, invalidation).
 *
 * Representation rules every function keeps:
 * - asynchronous is period 0, offset 0, options 0, so "offset 0 iff async"
 *   can be checked by looking at one field;
 * - PPR options are only ever DT, IU and QAS, only on a wide bus, and IU and
 *   QAS only with DT;
 * - a period factor below 0x0A only with DT.
 */
#ifndef PCAM_NEGO_INTERNAL_H
#define PCAM_NEGO_INTERNAL_H

#include "nego.h"
#include "pcam/pcam_msg.h"

/* pcam_nego.state: which message of ours awaits the target's answer. */
enum {
    PCAM_NS_IDLE = 0,
    PCAM_NS_PPR = 1,
    PCAM_NS_WDTR = 2,
    PCAM_NS_SDTR = 3
};

/* pcam_nego.ladder: what the target rejected (or ignored). Bits rather than
 * a level because a target may do wide but not sync, and an SDTR reject must
 * not undo a WDTR agreement that already stands. */
enum {
    PCAM_NL_NO_PPR = 1u << 0,
    PCAM_NL_NO_WIDE = 1u << 1,
    PCAM_NL_NO_SYNC = 1u << 2
};

/* pcam_nego.flags */
enum {
    PCAM_NF_NEEDED = 1u << 0,     /* negotiate on the next selection */
    PCAM_NF_STEP_ASYNC = 1u << 1  /* parity step-down reached asynchronous */
};

/* Period factors with a meaning of their own (SPI-3/SPI-4 period table). */
#define PCAM_NEGO_FAST80 0x09u    /* 12.5 ns: DT only */
#define PCAM_NEGO_FAST40 0x0Au    /* 25 ns: fastest ST factor */
#define PCAM_NEGO_LINEAR 0x0Du    /* from here on the factor is period / 4 ns */
#define PCAM_NEGO_FASTEST 0x08u   /* 6.25 ns; 0x07 needs SPI-5 paced transfers pcam does not drive */
/* Step-down cut-off: a factor above 0x32 (200 ns, 5 MT/s, the SCSI-1
 * synchronous rate) moves data no faster than asynchronous handshaking
 * does on a short bus, so the step after that is asynchronous. */
#define PCAM_NEGO_SLOWEST_SYNC 0x32u

/* The PPR options pcam negotiates; the rest (HOLD_MCS, flow control,
 * streaming, RTI, precompensation) belong to paced SPI-4/5 transfers that no
 * supported chip does. */
#define PCAM_NEGO_OPTS (PCAM_PPR_DT_REQ | PCAM_PPR_IU_REQ | PCAM_PPR_QAS_REQ)

/* Force the representation rules above onto s. */
void pcam_nego_normalize(pcam_xfer_settings *s);
/* Clamp s to what the chip and its bus can do, then normalize. */
void pcam_nego_clamp_caps(const pcam_bus *bus, pcam_xfer_settings *s);
/* goal = user, limited by the ladder and the parity step-down. */
void pcam_nego_compute_goal(pcam_bus *bus, uint8_t target);
/* Does the chip do any PPR option? Without one PPR buys nothing SDTR and
 * WDTR cannot, and a chip that cannot do DT cannot take the fast factors. */
bool pcam_nego_chip_ppr(const pcam_bus *bus);
/* Does s need PPR to be expressed? (DT/IU/QAS, or a factor below 0x0A.) */
bool pcam_nego_needs_ppr(const pcam_xfer_settings *s);
/* Same period/offset/width/options? */
bool pcam_nego_same_link(const pcam_xfer_settings *a, const pcam_xfer_settings *b);
/* Make `next` the agreement in force: program the chip, and when it differs
 * from the old one log PCAM_EV_NEGOTIATED and raise PCAM_AC_TRANSFER_NEG;
 * `exchange` counts it as a completed negotiation. */
void pcam_nego_apply(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *next, bool exchange);
/* The agreement left after a failed exchange of message kind `ns`
 * (PCAM_NS_*): SDTR falls back to asynchronous keeping the width, WDTR and
 * PPR to asynchronous narrow. */
void pcam_nego_fall_back(pcam_bus *bus, uint8_t target, uint8_t ns);

#endif /* PCAM_NEGO_INTERNAL_H */
