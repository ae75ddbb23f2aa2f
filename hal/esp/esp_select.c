/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Selection: choose the select command for the message bytes asked for,
 * load the FIFO (or the DMA engine for long ones), and turn the chip's
 * answer (interrupt cause, sequence step, FIFO count) into one event.
 *
 * One message byte goes with SELECT WITH ATN, a tag (three bytes) with
 * SELECT WITH ATN3 where the chip has it; anything else (negotiation, tags
 * on a 53C90) with SELECT WITH ATN AND STOP, after which the remaining
 * message bytes go out by a message-out transfer and the CDB is left for the
 * COMMAND phase.
 */
#include "esp_internal.h"

static bool is_tag_msg(uint8_t m)
{
    return m >= 0x20 && m <= 0x22; /* SIMPLE, HEAD OF QUEUE, ORDERED */
}

/* Load the DMA engine with the selection bytes. */
static int sel_dma(esp_sc *s, uint8_t n)
{
    uint64_t bus;
    if (s->p.dma_map(s->p.ctx, s->sel_bytes, n, PCAM_DMA_TO_DEVICE, &bus) < 0 || bus > 0xFFFFFFFFu)
        return PCAM_ERR_RANGE;
    s->dma_va = s->sel_bytes;
    s->dma_bus = bus;
    s->dma_len = n;
    s->dma_dir = PCAM_DMA_TO_DEVICE;
    esp_dma_program(s, n, (uint32_t)bus, false, s->sel_cmd);
    return PCAM_OK;
}

/* Issue the prepared selection. */
void esp_select_fire(esp_sc *s)
{
    uint8_t n = (uint8_t)(s->sel_msg_in + s->sel_cdb_in), i;

    esp_load_target(s, s->sel_target);
    if (s->cur_busid != s->sel_target) {
        s->cur_busid = s->sel_target;
        esp_wr(s, ESP_R_BUSID, s->sel_target);
    }
    s->act = EA_SELECT;
    if (s->sel_dma) {
        if (sel_dma(s, n) == PCAM_OK)
            return;
        /* Unmappable: fall back to the FIFO with stop after the message. */
        s->sel_dma = false;
        s->sel_cmd = ESP_C_SELATNS;
        s->sel_cdb_in = 0;
        s->sel_msg_in = 1;
        n = 1;
        if (s->sel_rest_len == 0) {
            s->sel_rest[0] = 0x08; /* NO OPERATION ends the message-out */
            s->sel_rest_len = 1;
        }
    }
    for (i = 0; i < n; i++)
        esp_wr(s, ESP_R_FIFO, s->sel_bytes[i]);
    s->st.pio_bytes += n;
    esp_cmd(s, s->sel_cmd);
}

int esp_op_select(void *v, const pcam_hal_select *sel)
{
    esp_sc *s = (esp_sc *)v;
    uint8_t msg_len, cdb_len, i, n;
    bool can_dma;

    if (s == NULL || sel == NULL)
        return PCAM_ERR_NULL;
    msg_len = sel->atn ? sel->msg_len : 0;
    cdb_len = sel->cdb_len;
    if (s->act != EA_NONE || s->conn != ESP_NO_ID)
        return PCAM_ERR_UNSUPPORTED;
    if (sel->target >= ESP_TARGETS || sel->target == s->id || msg_len > ESP_FIFO_DEPTH ||
        cdb_len > ESP_FIFO_DEPTH)
        return PCAM_ERR_RANGE;
    if ((msg_len != 0 && sel->msg == NULL) || (cdb_len != 0 && sel->cdb == NULL))
        return PCAM_ERR_NULL;

    s->sel_target = sel->target;
    s->sel_msg_len = msg_len;
    s->sel_rest_len = 0;
    s->sel_rest_real = 0;
    s->sel_dma = false;
    can_dma = (s->feat & EF_DMA) != 0;

    if (msg_len == 0) {
        s->sel_cmd = ESP_C_SEL;
        s->sel_msg_in = 0;
    } else if (msg_len == 1) {
        s->sel_cmd = ESP_C_SELATN;
        s->sel_msg_in = 1;
    } else if (msg_len == 3 && (s->feat & EF_ATN3) != 0 && is_tag_msg(sel->msg[1])) {
        s->sel_cmd = ESP_C_SELATN3;
        s->sel_msg_in = 3;
    } else {
        s->sel_cmd = ESP_C_SELATNS;
        s->sel_msg_in = 1;
    }
    s->sel_cdb_in = s->sel_cmd == ESP_C_SELATNS ? 0 : cdb_len;
    n = (uint8_t)(s->sel_msg_in + s->sel_cdb_in);
    /* With the DMA engine in use, selection bytes always go by DMA: QEMU
     * 7.2's AM53C974 loses the interrupt of a FIFO-loaded selection whose
     * command ends in STATUS before any data moves (a failed READ(6)), and
     * DMA is also the only way past the FIFO's 16 bytes. */
    if (can_dma && n != 0 && s->sel_cmd != ESP_C_SELATNS) {
        s->sel_dma = true;
    } else if (n > ESP_FIFO_DEPTH) {
        if (can_dma) {
            s->sel_dma = true;
        } else {
            /* Too long for the FIFO: stop after the first message byte and
             * let the COMMAND phase carry the CDB. */
            s->sel_cmd = ESP_C_SELATNS;
            s->sel_msg_in = 1;
            s->sel_cdb_in = 0;
        }
    }
    for (i = 0; i < s->sel_msg_in; i++)
        s->sel_bytes[i] = sel->msg[i];
    for (i = 0; i < s->sel_cdb_in; i++)
        s->sel_bytes[s->sel_msg_in + i] = sel->cdb[i];
    if (s->sel_cmd == ESP_C_SELATNS) {
        s->sel_rest_real = (uint8_t)(msg_len - 1);
        for (i = 1; i < msg_len; i++)
            s->sel_rest[i - 1] = sel->msg[i];
        s->sel_rest_len = s->sel_rest_real;
        if (s->sel_rest_len == 0) {
            /* ATN is still up after the stop, so the target wants another
             * byte: NO OPERATION is the harmless one. */
            s->sel_rest[0] = 0x08;
            s->sel_rest_len = 1;
        }
    }
    /* A cause already pending (a reselection won the bus) is served first;
     * the selection goes out only if it turns out to be something else. */
    if ((esp_rd(s, ESP_R_STAT) & ESP_S_INT) != 0) {
        s->act = EA_SEL_HELD;
        return PCAM_OK;
    }
    esp_select_fire(s);
    return PCAM_OK;
}

/* Bytes of the selection that left the chip, from what is still in it. */
static uint32_t sel_sent(esp_sc *s, uint8_t stat)
{
    uint32_t loaded = (uint32_t)s->sel_msg_in + s->sel_cdb_in, left;
    uint8_t ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);

    left = ff;
    if (s->sel_dma && (stat & ESP_S_TC) == 0)
        left += (uint32_t)esp_rd(s, ESP_R_TCLO) | ((uint32_t)esp_rd(s, ESP_R_TCMID) << 8);
    if (ff != 0)
        esp_cmd(s, ESP_C_FLUSH);
    return left >= loaded ? 0 : loaded - left;
}

static void sel_counts(esp_sc *s, uint8_t stat, uint8_t seq, uint32_t *msgs, uint32_t *cdbs)
{
    uint32_t total;
    if (seq == 4) {
        /* The whole sequence ran. */
        *msgs = s->sel_msg_in;
        *cdbs = s->sel_cdb_in;
        return;
    }
    if (seq == 0) {
        *msgs = 0;
        *cdbs = 0;
        return;
    }
    total = sel_sent(s, stat);
    *msgs = total < s->sel_msg_in ? total : s->sel_msg_in;
    *cdbs = seq >= 3 ? total - *msgs : 0;
    if (seq <= 2 && s->sel_cmd != ESP_C_SELATN3)
        *msgs = s->sel_msg_in;
}

static void sel_release_dma(esp_sc *s)
{
    if (s->sel_dma)
        esp_dma_release(s);
}

/* Start the message-out that follows SELECT WITH ATN AND STOP. */
static void sel_msgout(esp_sc *s)
{
    uint8_t i;
    for (i = 0; i < s->sel_rest_len; i++)
        esp_wr(s, ESP_R_FIFO, s->sel_rest[i]);
    s->st.pio_bytes += s->sel_rest_len;
    esp_cmd(s, ESP_C_TI);
    s->act = EA_SEL_MSGOUT;
}

int esp_select_intr(esp_sc *s, uint8_t stat, uint8_t seq, uint8_t intr, pcam_hal_event *ev)
{
    uint8_t phase = stat & ESP_S_PHASE;
    uint32_t msgs, cdbs;

    if (s->act == EA_SEL_MSGOUT) {
        uint8_t ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);
        uint32_t sent = ff >= s->sel_rest_len ? 0u : (uint32_t)(s->sel_rest_len - ff);
        if (ff != 0)
            esp_cmd(s, ESP_C_FLUSH);
        msgs = 1u + (sent < s->sel_rest_real ? sent : s->sel_rest_real);
        if (intr & ESP_I_DC) {
            esp_fill(s, ev, PCAM_HAL_EV_BUS_FREE, PCAM_PHASE_BUS_FREE, msgs, 0, 0, false);
            esp_bus_went_free(s);
            return 1;
        }
        s->act = EA_NONE;
        esp_fill(s, ev, PCAM_HAL_EV_SELECT_DONE, phase, msgs, 0, 0, (stat & ESP_S_PE) != 0);
        return 1;
    }

    if (intr & ESP_I_DC) {
        /* Step 0 with a disconnect: nobody answered within the time-out. */
        bool timeout = seq == 0;
        sel_counts(s, stat, seq, &msgs, &cdbs);
        sel_release_dma(s);
        s->conn = ESP_NO_ID;
        if (timeout) {
            /* The loaded bytes never left: they must not go out next time. */
            esp_cmd(s, ESP_C_FLUSH);
            esp_fill(s, ev, PCAM_HAL_EV_SEL_TIMEOUT, PCAM_PHASE_BUS_FREE, 0, 0, 0, false);
            ev->target = s->sel_target;
        } else {
            s->conn = s->sel_target;
            esp_fill(s, ev, PCAM_HAL_EV_BUS_FREE, PCAM_PHASE_BUS_FREE, msgs, cdbs, 0, false);
        }
        esp_bus_went_free(s);
        return 1;
    }
    if ((intr & (ESP_I_FC | ESP_I_BS)) == 0)
        return 0; /* nothing for us; keep waiting */

    s->conn = s->sel_target;
    if (s->sel_cmd == ESP_C_SELATNS && !s->sel_dma) {
        if (phase == PCAM_PHASE_MSG_OUT && seq != 0) {
            sel_msgout(s);
            return 0;
        }
        sel_counts(s, stat, seq, &msgs, &cdbs);
        if (seq == 4 || seq == 1)
            msgs = 1;
        s->act = EA_NONE;
        esp_fill(s, ev, PCAM_HAL_EV_SELECT_DONE, phase, msgs, 0, 0, (stat & ESP_S_PE) != 0);
        return 1;
    }
    sel_counts(s, stat, seq, &msgs, &cdbs);
    sel_release_dma(s);
    s->act = EA_NONE;
    esp_fill(s, ev, PCAM_HAL_EV_SELECT_DONE, phase, msgs, cdbs, 0, (stat & ESP_S_PE) != 0);
    return 1;
}
