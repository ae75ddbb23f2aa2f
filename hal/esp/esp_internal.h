/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the ESP back-end and the helpers its files share.
 * Register access goes through esp_rd/esp_wr (and amd_rd/amd_wr for the
 * AM53C974 DMA engine) so every access is counted.
 */
#ifndef PCAM_ESP_INTERNAL_H
#define PCAM_ESP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_esp.h"
#include "pcam_util.h"
#include "esp_regs.h"

#define ESP_TARGETS 8u
#define ESP_NO_ID 0xFFu

/* Chip features, decided at attach. */
enum {
    EF_CFG2 = 1u << 0,   /* CFG2 exists */
    EF_CFG3 = 1u << 1,   /* CFG3 exists (FAS parts) */
    EF_TC24 = 1u << 2,   /* 24-bit transfer counter (TCHI, CFG2 FE) */
    EF_ATN3 = 1u << 3,   /* SELECT WITH ATN3 usable */
    EF_DMA = 1u << 4,    /* AM53C974 DMA engine in use */
    EF_PARITY = 1u << 5, /* parity checking enabled */
    EF_FAST = 1u << 6    /* fast SCSI timing (CFG3 FSCSI, 4 clocks per byte) */
};

/* The action in progress (one at a time, per pcam_hal.h). */
typedef enum esp_act {
    EA_NONE = 0,
    EA_SELECT,      /* a select command is out */
    EA_SEL_HELD,    /* select asked while an interrupt was pending: not yet issued */
    EA_SEL_MSGOUT,  /* after SELECT WITH ATN AND STOP: the remaining message bytes */
    EA_XFER_DMA,    /* data through the DMA engine */
    EA_XFER_PIO,    /* data through the FIFO */
    EA_COMMAND,     /* CDB bytes through the FIFO */
    EA_STATUS,      /* INITIATOR COMMAND COMPLETE: status (+ message byte) */
    EA_MSGOUT,
    EA_MSGIN,
    EA_ACCEPT,
    EA_ICCS_ACCEPT, /* COMMAND COMPLETE accepted after ICCS: waiting for the bus free */
    EA_RESET
} esp_act;

typedef struct esp_sc {
    pcam_platform p;
    uintptr_t base;
    uint32_t clock_khz;
    uint32_t cfg_flags;
    uint8_t stride;
    uint8_t chip;        /* pcam_esp_chip */
    uint8_t id;
    uint8_t feat;        /* EF_* */
    uint8_t cfg1, cfg2, cfg3, ccf, sto;
    uint8_t min_cpb;     /* fastest synchronous period, in clocks */
    uint8_t min_period;  /* the same as a period factor */

    /* Per-target synchronous settings and what the chip holds now. */
    uint8_t t_stp[ESP_TARGETS], t_soff[ESP_TARGETS], t_cfg3[ESP_TARGETS];
    uint8_t cur_stp, cur_soff, cur_cfg3, cur_busid;
    bool regs_known;     /* the cur_* shadows are valid */
    /* Start-count registers keep what was written: rewrite only changes. */
    bool tc_known;
    uint8_t cur_tcmid, cur_tchi;
    uint32_t cur_stc;

    uint8_t conn;        /* connected target, ESP_NO_ID when the bus is free */
    uint8_t act;         /* esp_act */

    /* Selection. */
    uint8_t sel_target;
    uint8_t sel_cmd;
    uint8_t sel_msg_len;  /* message bytes the caller asked for */
    uint8_t sel_msg_in;   /* of them, loaded with the select command */
    uint8_t sel_cdb_in;   /* CDB bytes loaded with the select command */
    uint8_t sel_rest_len; /* bytes for the message-out after a stop */
    uint8_t sel_rest_real;/* of them, the caller's (the rest is a NOP filler) */
    bool sel_dma;
    uint8_t sel_bytes[ESP_FIFO_DEPTH * 2]; /* what the select sends (DMA source) */
    uint8_t sel_rest[ESP_FIFO_DEPTH];

    /* Information transfer. */
    const pcam_sg *sg;
    uint16_t sg_count;
    uint16_t sg_idx;     /* current element */
    uint32_t sg_off;     /* offset inside it */
    uint32_t want;       /* bytes asked for */
    uint32_t done;       /* bytes moved */
    uint32_t chunk;      /* bytes in the run in progress */
    uint8_t xphase;      /* phase of the transfer */
    bool xparity;
    uint8_t *status_dst;

    /* DMA mapping of the run in progress. */
    void *dma_va;
    uint64_t dma_bus;
    uint32_t dma_len;
    uint8_t dma_dir;     /* pcam_dma_dir, 0 = nothing mapped */

    uint8_t mo_len;

    /* The status transfer may end with the COMMAND COMPLETE accepted here
     * (pcam_hal_xfer::may_accept); its event waits for the bus free. */
    bool may_accept;
    pcam_hal_event chain_ev;

    /* An event decided without a chip interrupt (served by poll first). */
    bool pend;
    pcam_hal_event pev;

    pcam_esp_stats st;
} esp_sc;

static inline uint8_t esp_rd(esp_sc *s, unsigned reg)
{
    s->st.reg_reads++;
    return s->p.read8(s->p.ctx, s->base + (uintptr_t)reg * s->stride);
}

static inline void esp_wr(esp_sc *s, unsigned reg, uint8_t v)
{
    s->st.reg_writes++;
    s->p.write8(s->p.ctx, s->base + (uintptr_t)reg * s->stride, v);
}

static inline void esp_cmd(esp_sc *s, uint8_t c)
{
    esp_wr(s, ESP_R_CMD, c);
}

static inline uint32_t amd_rd(esp_sc *s, unsigned off)
{
    s->st.reg_reads++;
    return s->p.read32(s->p.ctx, s->base + off);
}

static inline void amd_wr(esp_sc *s, unsigned off, uint32_t v)
{
    s->st.reg_writes++;
    s->p.write32(s->p.ctx, s->base + off, v);
}

static inline void esp_log(esp_sc *s, pcam_log_level lv, const char *msg)
{
    if (s->p.log != NULL)
        s->p.log(s->p.ctx, lv, msg);
}

/* esp.c */
void esp_load_target(esp_sc *s, uint8_t target);
void esp_bus_went_free(esp_sc *s);
void esp_post(esp_sc *s, pcam_hal_event_type type, uint8_t phase, uint32_t count,
              uint32_t count2, uint8_t byte, bool parity);
void esp_fill(esp_sc *s, pcam_hal_event *ev, pcam_hal_event_type type, uint8_t phase,
              uint32_t count, uint32_t count2, uint8_t byte, bool parity);

void esp_dma_program(esp_sc *s, uint32_t n, uint32_t bus, bool in, uint8_t cmd);

/* esp_select.c */
int esp_op_select(void *sc, const pcam_hal_select *sel);
void esp_select_fire(esp_sc *s);
int esp_select_intr(esp_sc *s, uint8_t stat, uint8_t seq, uint8_t intr, pcam_hal_event *ev);

/* esp_xfer.c */
int esp_op_transfer(void *sc, const pcam_hal_xfer *x);
int esp_op_msg_out(void *sc, const uint8_t *msg, size_t len);
int esp_op_msg_in(void *sc);
int esp_op_msg_accept(void *sc, bool atn);
int esp_xfer_intr(esp_sc *s, uint8_t stat, uint8_t intr, pcam_hal_event *ev);
void esp_dma_release(esp_sc *s);
void esp_dma_abort(esp_sc *s);

/* esp_intr.c */
int esp_op_poll(void *sc, pcam_hal_event *ev);

#endif /* PCAM_ESP_INTERNAL_H */
