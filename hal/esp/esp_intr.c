/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Interrupt decoding: read STATUS (and SEQUENCE STEP while selecting) before
 * INTERRUPT, whose read clears the cause, then turn the cause into exactly
 * one pcam_hal event, or continue an action internally (the next DMA piece,
 * the rest of a message-out) and look again.
 */
#include "esp_internal.h"

/* A bus reset, gross error or illegal command ends whatever was going on. */
static void drop_action(esp_sc *s)
{
    esp_dma_abort(s);
    s->act = EA_NONE;
}

/* Reselection: the FIFO ends with the ID bits of the bus (ours and the
 * target's) and the target's IDENTIFY, on which ACK is held. Bytes of a
 * selection we had loaded may come before them. */
static int reselected(esp_sc *s, uint8_t stat, pcam_hal_event *ev)
{
    uint8_t buf[ESP_FIFO_DEPTH], ff, i, bits, other, target = 0;

    drop_action(s);
    ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);
    if (ff > ESP_FIFO_DEPTH)
        ff = ESP_FIFO_DEPTH;
    for (i = 0; i < ff; i++)
        buf[i] = esp_rd(s, ESP_R_FIFO);
    if (ff < 2)
        goto bad;
    bits = buf[ff - 2];
    if ((bits & (1u << s->id)) == 0)
        goto bad;
    other = (uint8_t)(bits & ~(1u << s->id));
    if (other == 0 || (other & (other - 1u)) != 0)
        goto bad;
    while ((other >> target) != 1u)
        target++;
    s->conn = target;
    esp_load_target(s, target);
    esp_fill(s, ev, PCAM_HAL_EV_RESELECTED, PCAM_PHASE_MSG_IN, 0, 0, buf[ff - 1],
             (stat & ESP_S_PE) != 0);
    ev->target = target;
    return 1;
bad:
    esp_log(s, PCAM_LOG_ERROR, "esp: reselection without a valid ID byte");
    esp_fill(s, ev, PCAM_HAL_EV_GROSS_ERROR, PCAM_PHASE_BUS_FREE, 0, 0, 0, false);
    return 1;
}

/* 1 = *ev filled; 0 = handled, nothing to report. */
static int decode(esp_sc *s, uint8_t stat, uint8_t seq, uint8_t intr, pcam_hal_event *ev)
{
    if ((intr & ESP_I_SR) != 0) {
        drop_action(s);
        s->conn = ESP_NO_ID;
        esp_fill(s, ev, PCAM_HAL_EV_BUS_RESET, PCAM_PHASE_BUS_FREE, 0, 0, 0, false);
        ev->target = ESP_NO_ID;
        esp_cmd(s, ESP_C_ENSEL);
        return 1;
    }
    if ((stat & ESP_S_GE) != 0 || (intr & ESP_I_ILL) != 0) {
        drop_action(s);
        esp_log(s, PCAM_LOG_ERROR, (intr & ESP_I_ILL) ? "esp: illegal command" : "esp: gross error");
        esp_fill(s, ev, PCAM_HAL_EV_GROSS_ERROR, stat & ESP_S_PHASE, 0, 0, 0, false);
        return 1;
    }
    if ((intr & ESP_I_RSEL) != 0)
        return reselected(s, stat, ev);
    switch (s->act) {
    case EA_SEL_HELD:
        /* The cause pending at select time was not a reselection: go now. */
        esp_select_fire(s);
        return 0;
    case EA_SELECT:
    case EA_SEL_MSGOUT:
        return esp_select_intr(s, stat, seq, intr, ev);
    case EA_NONE:
    case EA_RESET:
        /* Nothing asked for: a stray disconnect or service request. */
        if ((intr & ESP_I_DC) != 0 && s->conn != ESP_NO_ID) {
            esp_fill(s, ev, PCAM_HAL_EV_BUS_FREE, PCAM_PHASE_BUS_FREE, 0, 0, 0, false);
            esp_bus_went_free(s);
            return 1;
        }
        return 0;
    default:
        return esp_xfer_intr(s, stat, intr, ev);
    }
}

int esp_op_poll(void *v, pcam_hal_event *ev)
{
    esp_sc *s = (esp_sc *)v;
    int guard;

    if (s == NULL || ev == NULL)
        return PCAM_ERR_NULL;
    if (s->pend) {
        s->pend = false;
        *ev = s->pev;
        return 1;
    }
    /* Bounded: continuing an action may raise the next cause at once. */
    for (guard = 0; guard < 64; guard++) {
        uint8_t stat = esp_rd(s, ESP_R_STAT), seq = 0, intr;
        int rc;
        if ((stat & ESP_S_INT) == 0)
            return 0;
        if (s->act == EA_SELECT)
            seq = (uint8_t)(esp_rd(s, ESP_R_SEQ) & 0x07u);
        intr = esp_rd(s, ESP_R_INTR);
        s->st.interrupts++;
        rc = decode(s, stat, seq, intr, ev);
        if (rc != 0)
            return rc;
        if (s->pend) {
            s->pend = false;
            *ev = s->pev;
            return 1;
        }
    }
    return 0;
}
