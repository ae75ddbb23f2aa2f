/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layer 2 of the core (docs/design.md, "Layers inside the core"): the
 * interface of core/nego, the per-target user / goal / current agreements
 * and the SDTR, WDTR and PPR exchanges. Nothing outside core/nego writes a
 * target's nego; the others go through these.
 * It includes only the layers below (common); core/queue, beside it, never
 * sees it (tests/layering/check.sh follows the #include chains).
 */
#ifndef PCAM_NEGO_H
#define PCAM_NEGO_H

#include "../common/common.h"

void pcam_nego_init(pcam_bus *bus, uint8_t target);
/* Bus reset, UNIT ATTENTION, BDR: back to asynchronous narrow on both ends,
 * renegotiate on the next command. */
void pcam_nego_invalidate(pcam_bus *bus, uint8_t target);
/* Should the next selection of `target` carry a negotiation message? */
bool pcam_nego_wanted(const pcam_bus *bus, uint8_t target);
/* Write the negotiation message to send (PPR, WDTR or SDTR) into buf; marks
 * it in flight. Returns bytes written, 0 for none, negative on error. */
int pcam_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap);
/* A complete extended message (SDTR/WDTR/PPR bytes, starting 0x01) from
 * the target. Returns bytes of reply written to `reply` (our answer to a
 * target-initiated request, or our next message in the WDTR-then-SDTR
 * sequence), 0 when nothing is to be sent, or -1 when the engine must send
 * MESSAGE REJECT. */
int pcam_nego_msg_in(pcam_bus *bus, uint8_t target, const uint8_t *msg, size_t len,
                     uint8_t *reply, size_t cap);
/* Our in-flight negotiation message was answered with MESSAGE REJECT. */
void pcam_nego_rejected(pcam_bus *bus, uint8_t target);
/* The target left MESSAGE OUT without answering our negotiation. */
void pcam_nego_no_answer(pcam_bus *bus, uint8_t target);
/* A parity (or CRC) error on this target: count it, step down when due. */
void pcam_nego_parity(pcam_bus *bus, uint8_t target);
/* PCAM_FN_SET_TRAN / PCAM_FN_GET_TRAN. */
void pcam_nego_set_user(pcam_bus *bus, uint8_t target, const pcam_xfer_settings *s);
void pcam_nego_get(const pcam_bus *bus, uint8_t target, pcam_tran_type type, pcam_xfer_settings *out);
/* The negotiation message pcam_nego_start wrote never reached the target
 * (lost arbitration, selection timeout, target left MESSAGE OUT early for
 * another reason): forget it was in flight, keep it wanted. */
void pcam_nego_cancel(pcam_bus *bus, uint8_t target);
/* Is a negotiation message of ours in flight (awaiting the target's answer)? */
bool pcam_nego_in_flight(const pcam_bus *bus, uint8_t target);

#endif /* PCAM_NEGO_H */
