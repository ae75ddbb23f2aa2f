/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Information transfer and messages: DATA through the AM53C974 DMA engine
 * (one run per scatter-gather piece, cut at 16 MiB boundaries of bus space,
 * inside one transfer action) or through the FIFO, COMMAND through the
 * FIFO, STATUS by INITIATOR COMMAND COMPLETE (which also takes the message
 * byte and holds ACK on it), message-out, message-in and MESSAGE ACCEPTED;
 * and the interrupt that ends each.
 */
#include "esp_internal.h"
#include "pcam/pcam_msg.h"

/* ---- scatter-gather cursor ---- */

static void sg_normalize(esp_sc *s)
{
    while (s->sg_idx < s->sg_count && s->sg_off >= s->sg[s->sg_idx].len) {
        s->sg_off -= s->sg[s->sg_idx].len;
        s->sg_idx++;
    }
}

/* Copy up to n bytes from the cursor into buf without moving it. */
static uint32_t sg_gather(const esp_sc *s, uint8_t *buf, uint32_t n)
{
    uint16_t i = s->sg_idx;
    uint32_t off = s->sg_off, got = 0;
    while (got < n && i < s->sg_count) {
        uint32_t len = s->sg[i].len, k;
        if (off >= len) {
            off -= len;
            i++;
            continue;
        }
        k = len - off;
        if (k > n - got)
            k = n - got;
        memcpy(buf + got, (const uint8_t *)s->sg[i].addr + off, k);
        got += k;
        off += k;
    }
    return got;
}

/* Store n bytes at the cursor and move it past them; returns bytes stored. */
static uint32_t sg_scatter(esp_sc *s, const uint8_t *buf, uint32_t n)
{
    uint16_t i = s->sg_idx;
    uint32_t off = s->sg_off, put = 0;
    while (put < n && i < s->sg_count) {
        uint32_t len = s->sg[i].len, k;
        if (off >= len) {
            off -= len;
            i++;
            continue;
        }
        k = len - off;
        if (k > n - put)
            k = n - put;
        memcpy((uint8_t *)s->sg[i].addr + off, buf + put, k);
        put += k;
        off += k;
    }
    s->sg_off += put;
    s->done += put;
    return put;
}

static void sg_advance(esp_sc *s, uint32_t n)
{
    s->sg_off += n;
    s->done += n;
}

/* ---- DMA (AM53C974) ---- */

void esp_dma_release(esp_sc *s)
{
    if (s->dma_dir == 0)
        return;

    if (s->p.dma_unmap != NULL)
        s->p.dma_unmap(s->p.ctx, s->dma_va, s->dma_len, (pcam_dma_dir)s->dma_dir, s->dma_bus);
    s->dma_dir = 0;
}

/* A run cut short (reset, gross error) may still hold the engine: stop it
 * before the buffer is handed back. */
void esp_dma_abort(esp_sc *s)
{
    if (s->dma_dir == 0)
        return;
    amd_wr(s, AMD_DMA_CMD, AMD_CMD_IDLE);
    esp_dma_release(s);
}

static int dma_start(esp_sc *s)
{
    bool in = s->xphase == PCAM_PHASE_DATA_IN;
    uint32_t n, run, left = s->want - s->done;
    uint64_t bus;
    uint8_t *va;

    sg_normalize(s);
    if (s->sg_idx >= s->sg_count || left == 0)
        return PCAM_ERR_RANGE;
    n = s->sg[s->sg_idx].len - s->sg_off;
    if (n > left)
        n = left;
    if (n > 0xFFFFFFu)
        n = 0xFFFFFFu; /* the 24-bit transfer counter */
    va = (uint8_t *)s->sg[s->sg_idx].addr + s->sg_off;
    if (s->p.dma_map(s->p.ctx, va, n, in ? PCAM_DMA_FROM_DEVICE : PCAM_DMA_TO_DEVICE, &bus) < 0 ||
        bus > 0xFFFFFFFFu || bus + n > 0x100000000ull)
        return PCAM_ERR_RANGE;
    /* One run never crosses a 16 MiB boundary (Linux's am53c974 driver
     * keeps to that too): a piece that would is cut there and the rest goes
     * as the next run of this action. The mapping stays the whole piece's.
     * Only pieces longer than a page can reach a boundary. */
    run = n;
    if ((bus & 0xFFFFFFu) + n > 0x1000000u)
        run = 0x1000000u - (uint32_t)(bus & 0xFFFFFFu);
    s->dma_va = va;
    s->dma_bus = bus;
    s->dma_len = n;
    s->dma_dir = (uint8_t)(in ? PCAM_DMA_FROM_DEVICE : PCAM_DMA_TO_DEVICE);
    esp_dma_program(s, run, (uint32_t)bus, in, ESP_C_TI);
    s->chunk = run;
    s->act = EA_XFER_DMA;
    return PCAM_OK;
}

/* Bytes of the finished run that reached memory or the target. */
static uint32_t dma_moved(esp_sc *s, uint8_t stat)
{
    uint32_t n = s->chunk, got;

    if (s->xphase == PCAM_PHASE_DATA_IN) {
        /* The engine's own counter: the chip's may read zero after a short
         * phase (QEMU clears it when the command completes). */
        uint32_t wbc = amd_rd(s, AMD_DMA_WBC);
        if (wbc == 0 || wbc > n)
            return wbc == 0 ? n : 0;
        /* Ended early: push the engine's buffer to memory, then take what
         * still sits in the chip FIFO by hand. Bounded: never wait on the
         * bus here. */
        amd_wr(s, AMD_DMA_CMD, AMD_CMD_BLAST | AMD_CMD_DIR_IN);
        {
            int k;
            for (k = 0; k < 4; k++)
                if ((amd_rd(s, AMD_DMA_STATUS) & AMD_ST_BLAST) != 0)
                    break;
        }
        wbc = amd_rd(s, AMD_DMA_WBC);
        got = wbc > n ? 0 : n - wbc;
        {
            uint8_t ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT), i;
            for (i = 0; i < ff; i++) {
                uint8_t b = esp_rd(s, ESP_R_FIFO);
                if (got < n)
                    ((uint8_t *)s->dma_va)[got++] = b;
            }
            s->st.pio_bytes += ff;
        }
        amd_wr(s, AMD_DMA_CMD, AMD_CMD_IDLE | AMD_CMD_DIR_IN);
        return got;
    }
    if ((stat & ESP_S_TC) != 0)
        return n;
    {
        uint32_t tc = (uint32_t)esp_rd(s, ESP_R_TCLO) | ((uint32_t)esp_rd(s, ESP_R_TCMID) << 8) |
                      ((uint32_t)esp_rd(s, ESP_R_TCHI) << 16);
        uint8_t ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);
        uint32_t left = tc + ff;
        if (ff != 0)
            esp_cmd(s, ESP_C_FLUSH);
        amd_wr(s, AMD_DMA_CMD, AMD_CMD_IDLE);
        return left >= n ? 0 : n - left;
    }
}

/* ---- PIO through the FIFO ---- */

static void pio_start(esp_sc *s)
{
    if (s->xphase == PCAM_PHASE_DATA_OUT) {
        uint8_t buf[ESP_FIFO_DEPTH];
        uint32_t n = s->want - s->done, i;
        if (n > ESP_FIFO_DEPTH)
            n = ESP_FIFO_DEPTH;
        n = sg_gather(s, buf, n);
        for (i = 0; i < n; i++)
            esp_wr(s, ESP_R_FIFO, buf[i]);
        s->chunk = n;
    } else {
        s->chunk = 0;
    }
    esp_cmd(s, ESP_C_TI);
    s->act = EA_XFER_PIO;
}

/* Bytes the PIO run moved; data-in bytes are stored. A data-in TRANSFER
 * INFORMATION without DMA takes one byte, so a request in the same phase
 * means it is in the FIFO; only a phase change needs the FIFO count. */
static uint32_t pio_moved(esp_sc *s, uint8_t stat, uint8_t intr)
{
    uint8_t ff;
    if (s->xphase == PCAM_PHASE_DATA_IN && (stat & ESP_S_PHASE) == PCAM_PHASE_DATA_IN &&
        (intr & (ESP_I_BS | ESP_I_DC)) == ESP_I_BS) {
        uint8_t b = esp_rd(s, ESP_R_FIFO);
        s->st.pio_bytes++;
        return s->done < s->want ? sg_scatter(s, &b, 1) : 0;
    }
    ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);
    if (s->xphase == PCAM_PHASE_DATA_OUT) {
        uint32_t sent = ff >= s->chunk ? 0 : s->chunk - ff;
        if (ff != 0)
            esp_cmd(s, ESP_C_FLUSH);
        sg_advance(s, sent);
        s->st.pio_bytes += sent;
        return sent;
    }
    {
        uint8_t buf[ESP_FIFO_DEPTH * 2];
        uint32_t i, take;
        for (i = 0; i < ff && i < sizeof buf; i++)
            buf[i] = esp_rd(s, ESP_R_FIFO);
        take = i;
        if (take > s->want - s->done)
            take = s->want - s->done; /* more than asked: an overrun; the excess is dropped */
        s->st.pio_bytes += i;
        return sg_scatter(s, buf, take);
    }
}

/* ---- the transfer action ---- */

static bool sg_valid(const pcam_hal_xfer *x)
{
    uint16_t i;
    if (x->sg_count != 0 && x->sg == NULL)
        return false;
    for (i = 0; i < x->sg_count; i++)
        if (x->sg[i].len != 0 && x->sg[i].addr == NULL)
            return false;
    return true;
}

int esp_op_transfer(void *v, const pcam_hal_xfer *x)
{
    esp_sc *s = (esp_sc *)v;

    if (s == NULL || x == NULL)
        return PCAM_ERR_NULL;
    if (s->act != EA_NONE || s->conn == ESP_NO_ID || !sg_valid(x))
        return PCAM_ERR_UNSUPPORTED;
    s->sg = x->sg;
    s->sg_count = x->sg_count;
    s->sg_idx = 0;
    s->sg_off = x->offset;
    s->want = x->len;
    s->done = 0;
    s->xphase = (uint8_t)x->phase;
    s->xparity = false;
    s->may_accept = x->may_accept;
    if (x->len == 0) {
        esp_post(s, PCAM_HAL_EV_XFER_DONE, (uint8_t)x->phase, 0, 0, 0, false);
        return PCAM_OK;
    }
    switch (x->phase) {
    case PCAM_PHASE_STATUS:
        sg_normalize(s);
        if (s->sg_idx >= s->sg_count)
            return PCAM_ERR_RANGE;
        s->status_dst = (uint8_t *)s->sg[s->sg_idx].addr + s->sg_off;
        esp_cmd(s, ESP_C_ICCS);
        s->act = EA_STATUS;
        return PCAM_OK;
    case PCAM_PHASE_COMMAND: {
        uint8_t buf[ESP_FIFO_DEPTH];
        uint32_t n = x->len > ESP_FIFO_DEPTH ? ESP_FIFO_DEPTH : x->len, i;
        n = sg_gather(s, buf, n);
        /* Flushing also takes TRANSFER INFORMATION out of the command
         * register, which some emulations check on FIFO writes. */
        esp_cmd(s, ESP_C_FLUSH);
        for (i = 0; i < n; i++)
            esp_wr(s, ESP_R_FIFO, buf[i]);
        s->st.pio_bytes += n;
        s->chunk = n;
        esp_cmd(s, ESP_C_TI);
        s->act = EA_COMMAND;
        return PCAM_OK;
    }
    case PCAM_PHASE_DATA_IN:
    case PCAM_PHASE_DATA_OUT:
        if ((s->feat & EF_DMA) != 0)
            return dma_start(s);
        pio_start(s);
        return PCAM_OK;
    default:
        return PCAM_ERR_UNSUPPORTED;
    }
}

/* ---- messages ---- */

int esp_op_msg_out(void *v, const uint8_t *msg, size_t len)
{
    esp_sc *s = (esp_sc *)v;
    size_t i;
    if (s == NULL || msg == NULL)
        return PCAM_ERR_NULL;
    if (len == 0 || len > ESP_FIFO_DEPTH)
        return PCAM_ERR_RANGE;
    if (s->act != EA_NONE || s->conn == ESP_NO_ID)
        return PCAM_ERR_UNSUPPORTED;
    for (i = 0; i < len; i++)
        esp_wr(s, ESP_R_FIFO, msg[i]);
    s->st.pio_bytes += len;
    s->mo_len = (uint8_t)len;
    /* The chip drops ATN itself before the last byte. */
    esp_cmd(s, ESP_C_TI);
    s->act = EA_MSGOUT;
    return PCAM_OK;
}

int esp_op_msg_in(void *v)
{
    esp_sc *s = (esp_sc *)v;
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (s->act != EA_NONE || s->conn == ESP_NO_ID)
        return PCAM_ERR_UNSUPPORTED;
    esp_cmd(s, ESP_C_TI);
    s->act = EA_MSGIN;
    return PCAM_OK;
}

int esp_op_msg_accept(void *v, bool atn)
{
    esp_sc *s = (esp_sc *)v;
    if (s == NULL)
        return PCAM_ERR_NULL;
    if (s->act != EA_NONE || s->conn == ESP_NO_ID)
        return PCAM_ERR_UNSUPPORTED;
    if (atn)
        esp_cmd(s, ESP_C_SETATN);
    esp_cmd(s, ESP_C_MSGACC);
    s->act = EA_ACCEPT;
    return PCAM_OK;
}

/* ---- the interrupt that ends a transfer or message action ---- */

static int bus_free(esp_sc *s, pcam_hal_event *ev, uint32_t count)
{
    esp_fill(s, ev, PCAM_HAL_EV_BUS_FREE, PCAM_PHASE_BUS_FREE, count, 0, 0, s->xparity);
    esp_bus_went_free(s);
    return 1;
}

static int data_intr(esp_sc *s, uint8_t stat, uint8_t intr, pcam_hal_event *ev)
{
    uint8_t phase = stat & ESP_S_PHASE;
    uint32_t moved;
    bool dma = s->act == EA_XFER_DMA;

    if (dma) {
        /* A failed bus-master cycle leaves no trace in the chip: only the
         * engine's status tells that the bytes are not what they seem. */
        if ((amd_rd(s, AMD_DMA_STATUS) & (AMD_ST_ERROR | AMD_ST_ABORT)) != 0) {
            esp_log(s, PCAM_LOG_ERROR, "esp: DMA engine error");
            esp_dma_abort(s);
            s->act = EA_NONE;
            esp_fill(s, ev, PCAM_HAL_EV_GROSS_ERROR, phase, s->done, 0, 0, false);
            return 1;
        }
        moved = dma_moved(s, stat);
        esp_dma_release(s);
        sg_advance(s, moved);
    } else {
        moved = pio_moved(s, stat, intr);
    }
    if ((stat & ESP_S_PE) != 0)
        s->xparity = true;
    if ((intr & ESP_I_DC) != 0)
        return bus_free(s, ev, s->done);
    if (phase == s->xphase && s->done < s->want && (intr & ESP_I_BS) != 0 &&
        (dma ? moved == s->chunk : moved != 0)) {
        /* Same phase, more wanted: the next piece inside this action. */
        if (dma) {
            if (dma_start(s) < 0) {
                s->act = EA_NONE;
                esp_fill(s, ev, PCAM_HAL_EV_GROSS_ERROR, phase, s->done, 0, 0, false);
                return 1;
            }
        } else {
            pio_start(s);
        }
        return 0;
    }
    s->act = EA_NONE;
    esp_fill(s, ev, PCAM_HAL_EV_XFER_DONE, phase, s->done, 0, 0, s->xparity);
    return 1;
}

int esp_xfer_intr(esp_sc *s, uint8_t stat, uint8_t intr, pcam_hal_event *ev)
{
    uint8_t phase = stat & ESP_S_PHASE;
    bool pe = (stat & ESP_S_PE) != 0;

    switch (s->act) {
    case EA_XFER_DMA:
    case EA_XFER_PIO:
        return data_intr(s, stat, intr, ev);
    case EA_STATUS:
        if ((intr & ESP_I_DC) != 0)
            return bus_free(s, ev, 0);
        s->act = EA_NONE;
        if ((intr & ESP_I_FC) != 0) {
            /* Status and message byte are in the FIFO, ACK held on the
             * latter: the message byte goes with the event (a chained
             * ending, pcam_hal.h), so the core does not ask for it. */
            uint8_t m;
            *s->status_dst = esp_rd(s, ESP_R_FIFO);
            m = esp_rd(s, ESP_R_FIFO);
            esp_fill(s, ev, PCAM_HAL_EV_XFER_DONE, PCAM_PHASE_MSG_IN, 1, 0, 0, pe);
            ev->took = (uint8_t)(PCAM_HAL_TOOK_MSG | (pe ? PCAM_HAL_TOOK_MSG_PARITY : 0u));
            ev->msg = m;
            if (s->may_accept && !pe && m == PCAM_MSG_COMMAND_COMPLETE) {
                /* COMMAND COMPLETE, which the core would accept as it is:
                 * accept it now and report it all at the bus free. */
                ev->took |= PCAM_HAL_TOOK_ACCEPTED;
                s->chain_ev = *ev;
                esp_cmd(s, ESP_C_MSGACC);
                s->act = EA_ICCS_ACCEPT;
                return 0;
            }
            return 1;
        }
        {
            uint8_t ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);
            uint32_t n = 0;
            if (ff != 0) {
                *s->status_dst = esp_rd(s, ESP_R_FIFO);
                n = 1;
                if (ff > 1)
                    esp_cmd(s, ESP_C_FLUSH);
            }
            esp_fill(s, ev, PCAM_HAL_EV_XFER_DONE, phase, n, 0, 0, pe);
            return 1;
        }
    case EA_COMMAND:
    case EA_MSGOUT: {
        uint8_t ff = (uint8_t)(esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT);
        uint32_t loaded = s->act == EA_COMMAND ? s->chunk : s->mo_len;
        uint32_t sent = ff >= loaded ? 0 : loaded - ff;
        bool cmd = s->act == EA_COMMAND;
        if (ff != 0)
            esp_cmd(s, ESP_C_FLUSH);
        if ((intr & ESP_I_DC) != 0)
            return bus_free(s, ev, sent);
        s->act = EA_NONE;
        esp_fill(s, ev, cmd ? PCAM_HAL_EV_XFER_DONE : PCAM_HAL_EV_MSGOUT_DONE, phase, sent, 0, 0,
                 false);
        return 1;
    }
    case EA_MSGIN:
        if ((intr & ESP_I_DC) != 0)
            return bus_free(s, ev, 0);
        s->act = EA_NONE;
        if ((intr & ESP_I_FC) != 0 ||
            (phase == PCAM_PHASE_MSG_IN && (esp_rd(s, ESP_R_FFLAGS) & ESP_FF_COUNT) != 0)) {
            uint8_t b = esp_rd(s, ESP_R_FIFO);
            s->st.pio_bytes++;
            esp_fill(s, ev, PCAM_HAL_EV_MSG_BYTE, PCAM_PHASE_MSG_IN, 1, 0, b, pe);
            return 1;
        }
        esp_fill(s, ev, PCAM_HAL_EV_PHASE, phase, 0, 0, 0, false);
        return 1;
    case EA_ACCEPT:
        if ((intr & ESP_I_DC) != 0)
            return bus_free(s, ev, 0);
        s->act = EA_NONE;
        esp_fill(s, ev, PCAM_HAL_EV_PHASE, phase, 0, 0, 0, false);
        return 1;
    case EA_ICCS_ACCEPT:
        /* The status transfer's event, with where the target went. */
        *ev = s->chain_ev;
        if ((intr & ESP_I_DC) != 0) {
            ev->phase = PCAM_PHASE_BUS_FREE;
            esp_bus_went_free(s);
            return 1;
        }
        s->act = EA_NONE;
        ev->phase = (pcam_phase)phase;
        return 1;
    default:
        return 0;
    }
}
