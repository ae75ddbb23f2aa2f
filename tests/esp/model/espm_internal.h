/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals of the register-level ESP model (espmodel.h), shared by
 * espm_regs.c (life cycle, register decode, interrupt latch, time),
 * espm_cmd.c (the command engine on top of pcam_sim_i_*), espm_sel.c
 * (selection, reselection, clock and synchronous registers) and
 * espm_dma.c (the AM53C974 DMA engine and the host-memory side of DMA).
 *
 * Register, bit and command values are facts of the NCR53C9x family as the
 * NCR/Emulex/AMD datasheets define them; they were read from Linux
 * (drivers/scsi/esp_scsi.h, am53c974.c), NetBSD/FreeBSD (ncr53c9xreg.h,
 * ncr53c9x.c) and QEMU 7.2 (hw/scsi/esp.c, esp-pci.c) and are written here
 * in this model's own form.
 */
#ifndef ESPM_INTERNAL_H
#define ESPM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espmodel.h"

/* ---- register numbers (register n at base + n * stride) ---- */
#define R_TCLO 0x00   /* transfer counter low (w: start count, r: current) */
#define R_TCMID 0x01  /* transfer counter middle */
#define R_FIFO 0x02   /* FIFO data */
#define R_CMD 0x03    /* command */
#define R_STAT 0x04   /* r: status; w: bus ID (destination) */
#define R_INTR 0x05   /* r: interrupt (read clears); w: select timeout */
#define R_SEQ 0x06    /* r: sequence step; w: synchronous period */
#define R_FFLAGS 0x07 /* r: FIFO flags; w: synchronous offset */
#define R_CFG1 0x08   /* configuration 1 */
#define R_CCF 0x09    /* w: clock conversion factor */
#define R_TEST 0x0A   /* w: test mode */
#define R_CFG2 0x0B   /* configuration 2 (not on the 53C90) */
#define R_CFG3 0x0C   /* configuration 3 (53C94/96, FAS, AM53C974) */
#define R_CFG4 0x0D   /* configuration 4 (AM53C974) */
#define R_TCHI 0x0E   /* transfer counter high / part-unique ID (FAS, AM53C974) */
#define R_FIFOB 0x0F  /* FIFO bottom (FAS): not modelled */

/* ---- STATUS bits ---- */
#define ST_PHASE 0x07 /* MSG, C/D, I/O: the pcam_phase encoding */
#define ST_TC 0x10    /* transfer counter zero */
#define ST_PE 0x20    /* parity error */
#define ST_GE 0x40    /* gross error */
#define ST_INT 0x80   /* interrupt pending */

/* ---- INTR bits ---- */
#define IN_SEL 0x01   /* selected (target mode) */
#define IN_SATN 0x02  /* selected with ATN (target mode) */
#define IN_RSEL 0x04  /* reselected */
#define IN_FC 0x08    /* function complete */
#define IN_BS 0x10    /* bus service */
#define IN_DC 0x20    /* disconnect */
#define IN_IC 0x40    /* illegal command */
#define IN_SR 0x80    /* SCSI bus reset */

/* ---- commands (bit 7 = DMA) ---- */
#define C_DMA 0x80
#define C_NOP 0x00
#define C_FLUSH 0x01
#define C_RESET 0x02
#define C_BUSRESET 0x03
#define C_TI 0x10
#define C_ICCS 0x11
#define C_MOK 0x12
#define C_PAD 0x18
#define C_SATN 0x1A
#define C_RATN 0x1B
#define C_SEL 0x41
#define C_SELATN 0x42
#define C_SELATNS 0x43
#define C_ESEL 0x44
#define C_DSEL 0x45
#define C_SELATN3 0x46

/* ---- CFG bits ---- */
#define CFG1_ID 0x07
#define CFG1_PARITY 0x10
#define CFG1_SRRDIS 0x40     /* do not interrupt on a SCSI reset */
#define CFG2_FEN 0x40        /* FAS / AM53C974: features enable (24-bit counter) */
#define CFG3_FSCSI 0x10      /* FAS216/236, AM53C974: fast SCSI (period below 200 ns) */
#define CFG4_GE1 0x80        /* AM53C974 glitch eater bit Linux probes for */

/* ---- AM53C974 DMA engine (32-bit registers at +0x40) ---- */
#define D_CMD 0
#define D_STC 1
#define D_SPA 2
#define D_WBC 3
#define D_WAC 4
#define D_STAT 5
#define D_SMDLA 6
#define D_WMAC 7
#define DC_MASK 0x03 /* 0 IDLE, 1 BLAST, 2 ABORT, 3 START */
#define DC_IDLE 0
#define DC_BLAST 1
#define DC_ABORT 2
#define DC_START 3
#define DC_DIAG 0x04
#define DC_MDL 0x10
#define DC_INTE_P 0x20
#define DC_INTE_D 0x40
#define DC_DIR 0x80  /* 1: SCSI to memory (DATA IN) */
#define DS_PWDN 0x01
#define DS_ERROR 0x02
#define DS_ABORT 0x04
#define DS_DONE 0x08
#define DS_SCSIINT 0x10
#define DS_BCMPLT 0x20
#define SBAC_STATUS (1u << 24) /* DMA status clears on read (else write-1-to-clear) */

#define ESPM_FIFO 16u
#define ESPM_IRQQ 8u
#define ESPM_MAPS 64u
#define ESPM_BASE ((uintptr_t)0xE5000u)
#define ESPM_BUS0 0x10000000u   /* first DMA window in bus space */
#define ESPM_WINDOW 0x01000000u /* 16 MiB per mapping */

/* What the command engine is doing (one command at a time, one stacked). */
typedef enum espm_op {
    OP_NONE = 0,
    OP_SELECT,     /* any selection command */
    OP_MSGOUT,     /* TRANSFER INFORMATION in MESSAGE OUT */
    OP_MSGIN,      /* TRANSFER INFORMATION in MESSAGE IN (1 byte, or TC bytes by DMA) */
    OP_MSGIN_ACK,  /* ... between two DMA message bytes: ACK released, waiting for REQ */
    OP_XFER,       /* TRANSFER INFORMATION / TRANSFER PAD in COMMAND, DATA or STATUS */
    OP_ICCS_ST,    /* INITIATOR COMMAND COMPLETE: the status byte */
    OP_ICCS_MSG,   /* ... the message byte */
    OP_MOK,        /* MESSAGE ACCEPTED */
    OP_BUSRESET    /* RESET SCSI BUS */
} espm_op;

typedef struct espm_irq_ent {
    uint8_t intr;
    uint8_t seq;
    bool set_seq;
    uint8_t stat; /* PE / GE bits */
} espm_irq_ent;

typedef struct espm_map {
    void *va;
    uint64_t bus;
    size_t len;              /* 0: slot free */
    pcam_dma_dir dir;
} espm_map;

struct espm {
    pcam_sim *sim;
    espm_config cfg;
    pcam_platform simplat;   /* the bus's own platform (clock, log) */
    bool verbose;

    /* written registers */
    uint8_t w_tc[3];         /* start count lo / mid / hi */
    uint8_t busid, timeout, stp, soff, cfg1, ccf, test, cfg2, cfg3, cfg4;
    bool id_readable;        /* TCHI reads the part-unique ID (after reset, until written) */

    /* chip state */
    uint32_t tc;             /* current transfer counter */
    bool tc_zero;
    uint8_t fifo[ESPM_FIFO];
    unsigned fifo_n;
    uint8_t last_cmd;
    uint8_t seq;             /* sequence step */
    uint8_t stat_err;        /* PE / GE latched with the interrupt */
    uint8_t intr;            /* latched interrupt register */
    bool irq;                /* STATUS INT */
    espm_irq_ent irqq[ESPM_IRQQ];
    unsigned irqq_n;
    bool fresh_reset;        /* INTR may be read with nothing pending (drivers eat bitrot) */

    /* bus state as the chip sees it */
    bool connected;
    uint8_t target;
    pcam_phase phase;
    bool ack_held;
    bool resel_enabled;
    bool held_resel;         /* a reselection waits for ENABLE SELECTION */
    pcam_hal_event held_ev;

    /* the command engine */
    espm_op op;
    uint8_t op_cmd;
    bool op_dma;
    bool op_waiting_dma;     /* DMA command written; the DMA engine is not started yet */
    bool have_stacked;
    uint8_t stacked;
    uint8_t sel_kind;        /* the selection command */
    uint16_t sel_msg_len, sel_cdb_len;
    uint8_t sel_buf[272];    /* message + CDB bytes of the selection */
    uint32_t op_len;         /* bytes the operation wants */
    uint32_t op_done;        /* bytes it moved so far */
    uint64_t op_addr;        /* DMA address of the operation's next byte */
    pcam_phase op_phase;
    uint8_t xbuf[ESPM_FIFO]; /* PIO bytes handed to the bus */
    bool op_pad;             /* TRANSFER PAD */
    uint8_t *op_buf;         /* the transfer's buffer */
    uint8_t *padbuf;         /* TRANSFER PAD's bytes (allocated) */

    /* AM53C974 DMA engine */
    uint32_t dreg[8];
    uint32_t sbac;
    espm_map maps[ESPM_MAPS];
    uint32_t map_skew; /* espm_set_map_skew(): where in its window a mapping starts */

    /* bookkeeping */
    espm_stats stats;
    uint64_t errors;
    char last_err[200];
};

/* espm_regs.c */
void espm_error(espm *m, const char *fmt, ...);
void espm_log(espm *m, const char *fmt, ...);
void espm_raise(espm *m, uint8_t intr, int seq, uint8_t stat);
bool espm_has_tchi(const espm *m);
bool espm_is_fas(const espm *m);
uint32_t espm_tc_max(const espm *m);
void espm_fifo_push(espm *m, uint8_t b);
void espm_chip_reset(espm *m);

/* espm_cmd.c */
void espm_command(espm *m, uint8_t cmd);
void espm_start_cmd(espm *m, uint8_t cmd);
void espm_poll_bus(espm *m);
void espm_dma_started(espm *m);
void espm_illegal(espm *m, const char *why, uint8_t cmd);
void espm_finish(espm *m, uint8_t intr, int seq, uint8_t stat); /* end the op, start a stacked command */
void espm_disconnected(espm *m);
void espm_fifo_unshift(espm *m, const uint8_t *b, uint32_t k); /* unsent bytes back in front */
uint32_t espm_tc_len(const espm *m);                              /* counter, 0 = the maximum */
uint8_t *espm_dma_buf(espm *m, uint32_t len, bool to_mem);
void espm_dma_out_done(espm *m, const uint8_t *src, uint32_t len, uint32_t sent);
void espm_dma_in_done(espm *m, uint32_t len, uint32_t got);

/* espm_sel.c */
void espm_check_clock(espm *m);
void espm_apply_sync(espm *m);
void espm_do_select(espm *m, uint8_t cmd);
void espm_ev_select(espm *m, const pcam_hal_event *ev);
void espm_present_resel(espm *m, const pcam_hal_event *ev);

/* espm_dma.c */
uint32_t espm_dma_read32(espm *m, unsigned k);
void espm_dma_write32(espm *m, unsigned k, uint32_t v);
bool espm_dma_ready(const espm *m);
bool espm_dma_check(espm *m, uint64_t addr, uint32_t len, bool to_mem, void **host);
void espm_dma_advance(espm *m, uint32_t n);
void espm_dma_reset(espm *m);
unsigned espm_dma_live_maps(const espm *m);
int espm_dma_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus);
void espm_dma_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus);

#endif /* ESPM_INTERNAL_H */
