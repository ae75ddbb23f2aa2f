/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A skeleton phase-level chip back-end, as docs/porting.md copies it. It
 * compiles, attaches and runs: it is a chip on an empty bus, so every
 * selection times out. Replace each op's body with what the comment above
 * it says a real chip must do. It must never
 * include an OS or C library header, allocate, wait for the bus, or make a
 * policy decision (retries, timeouts, negotiation): those are the core's.
 *
 * What a back-end must do (docs/porting.md has the whole story):
 *  1. Give the core one ops table (pcam_hal_ops) and a softc, through an
 *     attach function that checks its configuration and resets the chip.
 *  2. Report its capabilities truthfully in get_caps: profile, ID count,
 *     initiator ID, fastest period and largest offset, SG and transfer
 *     limits, DMA alignment. The core clamps every agreement to them.
 *  3. Touch the hardware only through pcam_platform (read8..write32,
 *     dma_map/unmap, delay_us for chip-reset settling), never directly.
 *  4. Start one action per call (select, transfer, msg_out, msg_in,
 *     msg_accept, reset_bus) and return at once; never poll the bus.
 *  5. Report exactly one event per action through poll, decoded into a
 *     pcam_hal_event (what ended it, bytes moved, the phase now), and any
 *     unsolicited event: reselection, bus reset, a gross error. A chip
 *     that reads the status and first message byte itself says so in the
 *     same event (pcam_hal_event::took, "chained endings" in pcam_hal.h);
 *     this skeleton leaves took 0.
 *  6. Keep set_xfer's per-target period/offset/width and program them into
 *     the chip at every selection and reselection of that target.
 *  7. Listen for reselection whenever the bus is free, and report it with
 *     the target's IDENTIFY byte still held (the core accepts it), or
 *     accepted with the tag message taken ("chained reselection" in
 *     pcam_hal.h; this skeleton does not).
 *  8. Refuse a call in the wrong state (an action while one runs, a
 *     transfer in the wrong phase) with a negative pcam_err and a
 *     PCAM_HAL_EV_GROSS_ERROR event: the core then resets the chip.
 *  9. Leave timing to the core: no timers, no sleeps; a chip that needs a
 *     settle time after reset uses delay_us in reset_chip only.
 * 10. Pass the back-end checklist in docs/porting.md, and prove it on a
 *     device model nobody on the project wrote (tests/qemu is the way).
 */
#include "pcam_template.h"

/* A real chip's register map goes here, as data with its source noted
 * (data sheet section), e.g. enum { REG_CMD = 0x03, REG_STATUS = 0x04 }. */

static void queue_event(pcam_template *s, pcam_hal_event_type type, uint8_t target)
{
    /* One event owed per action: a real chip latches it in its interrupt
     * status registers; poll reads and decodes them. */
    s->ev.type = type;
    s->ev.phase = PCAM_PHASE_BUS_FREE;
    s->ev.count = 0;
    s->ev.count2 = 0;
    s->ev.target = target;
    s->ev.byte = 0;
    s->ev.parity_error = false;
    s->ev.took = 0; /* a chip that reads status + message itself reports it here (pcam_hal.h) */
    s->ev.status = 0;
    s->ev.msg = 0;
    s->ev_pending = true;
}

/* A call the state does not allow (rule 8). */
static int bad_call(pcam_template *s)
{
    s->stats.bad_calls++;
    queue_event(s, PCAM_HAL_EV_GROSS_ERROR, 0xFF);
    return PCAM_ERR_RANGE;
}

/* Synchronous. Fill caps from what the chip and its board can really do
 * (a part ID register, the clock the board feeds it). */
static void tpl_get_caps(void *sc, pcam_hal_caps *caps)
{
    pcam_template *s = sc;
    caps->name = PCAM_TEMPLATE_NAME;
    caps->profile = PCAM_HAL_PHASE_LEVEL;
    caps->flags = 0;              /* add SYNC, WIDE, TAGS, PARITY, DMA as the chip does them */
    caps->max_targets = 8;        /* 16 for a wide chip */
    caps->initiator_id = s->cfg.initiator_id;
    caps->min_period = 0;         /* no synchronous transfers: async only */
    caps->max_offset = 0;
    caps->max_sg = 1;             /* elements one transfer() may walk */
    caps->max_xfer = 0xFFFFFFu;   /* a 24-bit transfer counter */
    caps->align_mask = 0;
}

/* Synchronous. Soft-reset the chip: drop any action, queued event, ATN and
 * held ACK, forget set_xfer's modes, re-enable reselection, wait the part's
 * settle time with plat.delay_us. Returns 0, or negative if the chip does
 * not come back (the core then fails the bus with PCAM_NO_HBA). */
static int tpl_reset_chip(void *sc)
{
    pcam_template *s = sc;
    s->stats.chip_resets++;
    s->ev_pending = false;
    for (unsigned t = 0; t < 8; t++) {
        s->xfer[t].period = 0;
        s->xfer[t].offset = 0;
        s->xfer[t].width = 0;
        s->xfer[t].ppr_options = 0;
    }
    return 0;
}

/* Action. Assert RST for the SPI minimum (25 us) and report
 * PCAM_HAL_EV_BUS_RESET when the chip says it happened. May be called at
 * any time, even while another action runs (that action then owes no
 * event). */
static int tpl_reset_bus(void *sc)
{
    pcam_template *s = sc;
    s->stats.bus_resets++;
    queue_event(s, PCAM_HAL_EV_BUS_RESET, 0xFF);
    return 0;
}

/* Action. Program the target's agreed mode (rule 6), load the message
 * bytes and CDB into the FIFO, and start selection with or without ATN.
 * Event: SELECT_DONE with the message and CDB bytes the target took and
 * the phase it is in; SEL_TIMEOUT when nobody answered (the chip's own
 * selection timeout, 250 ms by SPI); RESELECTED if a target won the bus
 * first (the select did not happen). Here: an empty bus. */
static int tpl_select(void *sc, const pcam_hal_select *sel)
{
    pcam_template *s = sc;
    if (s->ev_pending || sel == NULL || sel->target >= 8)
        return bad_call(s);
    s->stats.selects++;
    queue_event(s, PCAM_HAL_EV_SEL_TIMEOUT, sel->target);
    return 0;
}

/* Action. Move up to xfer->len bytes in the current information phase from
 * xfer->offset into the SG list (DMA after plat.dma_map, or PIO through
 * the FIFO), stopping early when the target changes phase. Event:
 * XFER_DONE with the bytes really moved (count what left the FIFO, not
 * what was loaded) and the phase now; parity_error for bad bytes in. */
static int tpl_transfer(void *sc, const pcam_hal_xfer *xfer)
{
    (void)xfer;
    return bad_call(sc); /* nobody is ever connected on this bus */
}

/* Action. Send message bytes in MESSAGE OUT, dropping ATN before the last
 * one. Event: MSGOUT_DONE with the bytes the target took, the phase now
 * (or BUS_FREE after ABORT TASK / TARGET RESET). */
static int tpl_msg_out(void *sc, const uint8_t *msg, size_t len)
{
    (void)msg;
    (void)len;
    return bad_call(sc);
}

/* Action. Take one MESSAGE IN byte and keep ACK asserted, so that the core
 * can still reject it. Event: MSG_BYTE with the byte. */
static int tpl_msg_in(void *sc)
{
    return bad_call(sc);
}

/* Action. Release ACK for the held byte, raising ATN first when asked (the
 * core wants to answer or reject). Event: PHASE with the next phase, or
 * BUS_FREE when the target let go (after COMMAND COMPLETE, DISCONNECT). */
static int tpl_msg_accept(void *sc, bool atn)
{
    (void)atn;
    return bad_call(sc);
}

/* Synchronous. Raise ATN now; the target goes to MESSAGE OUT at its next
 * phase change. Allowed while an action runs. */
static int tpl_set_atn(void *sc)
{
    return bad_call(sc);
}

/* Synchronous. Remember the agreed mode for a target (applied at every
 * selection and reselection of it, rule 6); 0 period/offset = async. */
static int tpl_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *params)
{
    pcam_template *s = sc;
    if (target >= 8 || params == NULL || params->width != 0 || params->offset != 0)
        return PCAM_ERR_RANGE; /* an async narrow chip: nothing else is possible */
    s->xfer[target] = *params;
    s->stats.set_xfers++;
    return 0;
}

/* Fetch the next event: read the chip's interrupt status (one read clears
 * it on most parts, so decode everything from that one read), turn it into
 * a pcam_hal_event, and return 1; 0 when nothing is pending; negative when
 * the chip is gone (reads all ones). Called from pcam_bus_intr() in the
 * ISR path and from pcam_bus_poll() in polled mode. */
static int tpl_poll(void *sc, pcam_hal_event *ev)
{
    pcam_template *s = sc;
    if (!s->ev_pending)
        return 0;
    *ev = s->ev;
    s->ev_pending = false;
    return 1;
}

/* The one ops table (rule 1). */
static const pcam_hal_ops tpl_ops = {
    .get_caps = tpl_get_caps,
    .reset_chip = tpl_reset_chip,
    .reset_bus = tpl_reset_bus,
    .select = tpl_select,
    .transfer = tpl_transfer,
    .msg_out = tpl_msg_out,
    .msg_in = tpl_msg_in,
    .msg_accept = tpl_msg_accept,
    .set_atn = tpl_set_atn,
    .set_xfer = tpl_set_xfer,
    .poll = tpl_poll,
};

pcam_err pcam_template_attach_abi(size_t sc_size, pcam_template *sc, const pcam_template_config *cfg,
                                  const pcam_platform *plat, pcam_hal *out)
{
    if (sc_size != sizeof(pcam_template))
        return PCAM_ERR_ABI; /* storage from other headers: not ours to write */
    if (sc == NULL || cfg == NULL || plat == NULL || out == NULL || plat->now_ns == NULL)
        return PCAM_ERR_NULL;
    if (cfg->initiator_id > 7)
        return PCAM_ERR_RANGE;
    /* A real back-end also requires the register services it uses
     * (read8/write8...) and identifies the part from its registers here,
     * refusing with PCAM_ERR_UNSUPPORTED when it is not there. */
    sc->plat = *plat;
    sc->cfg = *cfg;
    sc->stats = (pcam_template_stats){0};
    (void)tpl_reset_chip(sc);
    sc->stats.chip_resets = 0;
    out->ops = &tpl_ops;
    out->sc = sc;
    out->cmd = NULL; /* phase level: no script/command-level ops */
    return PCAM_OK;
}

void pcam_template_get_stats(const pcam_template *sc, pcam_template_stats *out)
{
    if (out == NULL)
        return;
    if (sc == NULL)
        *out = (pcam_template_stats){0};
    else
        *out = sc->stats;
}
