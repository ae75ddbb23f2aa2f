/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NCR53C9x / FAS2xx / AM53C974 register map and command codes.
 * Facts from the NCR 53C90/94 and FAS216 data manuals, the AMD Am53C974
 * (PCscsi) manual, and as QEMU's hw/scsi/esp*.c and the BSD/Linux drivers
 * use them; written here in pcam's own form.
 */
#ifndef PCAM_ESP_REGS_H
#define PCAM_ESP_REGS_H

/* Register numbers (address = base + n * stride). Where read and write
 * differ the register has two names. */
enum {
    ESP_R_TCLO = 0x0,    /* transfer counter bits 0-7 */
    ESP_R_TCMID = 0x1,   /* transfer counter bits 8-15 */
    ESP_R_FIFO = 0x2,    /* FIFO data, 16 bytes deep */
    ESP_R_CMD = 0x3,     /* command (two deep) */
    ESP_R_STAT = 0x4,    /* read: status */
    ESP_R_BUSID = 0x4,   /* write: destination ID for selection */
    ESP_R_INTR = 0x5,    /* read: interrupt cause; reading clears it */
    ESP_R_STO = 0x5,     /* write: selection time-out */
    ESP_R_SEQ = 0x6,     /* read: sequence step (bits 0-2) */
    ESP_R_STP = 0x6,     /* write: synchronous period in clocks */
    ESP_R_FFLAGS = 0x7,  /* read: FIFO flags, byte count in bits 0-4 */
    ESP_R_SOFF = 0x7,    /* write: synchronous offset */
    ESP_R_CFG1 = 0x8,
    ESP_R_CCF = 0x9,     /* write: clock conversion factor */
    ESP_R_TEST = 0xA,
    ESP_R_CFG2 = 0xB,    /* 53C90A and later */
    ESP_R_CFG3 = 0xC,    /* FAS parts */
    ESP_R_CFG4 = 0xD,    /* AM53C974 */
    ESP_R_TCHI = 0xE     /* FAS: counter bits 16-23; chip ID after reset */
};

/* Commands. */
enum {
    ESP_C_DMA = 0x80,     /* OR'ed into a command: use the DMA interface and the counter */
    ESP_C_NOP = 0x00,
    ESP_C_FLUSH = 0x01,   /* empty the FIFO */
    ESP_C_RESET = 0x02,   /* reset the chip */
    ESP_C_BUSRESET = 0x03,/* assert SCSI RST */
    ESP_C_TI = 0x10,      /* transfer information in the current phase */
    ESP_C_ICCS = 0x11,    /* initiator command complete: status + one message byte */
    ESP_C_MSGACC = 0x12,  /* message accepted: release ACK */
    ESP_C_PAD = 0x18,     /* transfer pad */
    ESP_C_SETATN = 0x1A,
    ESP_C_RSTATN = 0x1B,
    ESP_C_SEL = 0x41,     /* select without ATN, then the CDB */
    ESP_C_SELATN = 0x42,  /* select with ATN, one message byte, then the CDB */
    ESP_C_SELATNS = 0x43, /* select with ATN, one message byte, stop with ATN held */
    ESP_C_ENSEL = 0x44,   /* enable selection/reselection */
    ESP_C_DISSEL = 0x45,
    ESP_C_SELATN3 = 0x46  /* select with ATN, three message bytes, then the CDB */
};

/* Status register. */
enum {
    ESP_S_INT = 0x80,    /* interrupt pending */
    ESP_S_GE = 0x40,     /* gross error */
    ESP_S_PE = 0x20,     /* parity error */
    ESP_S_TC = 0x10,     /* transfer counter reached zero */
    ESP_S_VGC = 0x08,
    ESP_S_PHASE = 0x07   /* MSG/CD/IO: same encoding as pcam_phase */
};

/* Interrupt register. */
enum {
    ESP_I_SR = 0x80,     /* SCSI bus reset seen */
    ESP_I_ILL = 0x40,    /* illegal command */
    ESP_I_DC = 0x20,     /* disconnected (bus free) */
    ESP_I_BS = 0x10,     /* bus service: target asserted REQ */
    ESP_I_FC = 0x08,     /* function complete */
    ESP_I_RSEL = 0x04,   /* reselected */
    ESP_I_SATN = 0x02,   /* selected with ATN (target role) */
    ESP_I_SEL = 0x01     /* selected (target role) */
};

/* CFG1. */
enum {
    ESP_CFG1_SRRDIS = 0x40, /* no interrupt for a SCSI reset */
    ESP_CFG1_PARITY = 0x10, /* check parity on received bytes */
    ESP_CFG1_ID = 0x07
};

/* CFG2. */
enum {
    ESP_CFG2_FE = 0x40,     /* features enable: 24-bit counter, chip ID */
    ESP_CFG2_SCSI2 = 0x08,
    ESP_CFG2_RPE = 0x02     /* register parity (a harmless bit used to probe CFG2) */
};

/* CFG3 as the FAS216/236 and AM53C974 lay it out. */
enum {
    ESP_CFG3_CDB10 = 0x20,  /* group 2 commands are 10 bytes */
    ESP_CFG3_FSCSI = 0x10,  /* fast SCSI timing (periods below 200 ns) */
    ESP_CFG3_FCLK = 0x08    /* input clock above 25 MHz */
};

/* CFG4 (AM53C974). */
enum {
    ESP_CFG4_GE12 = 0x80    /* glitch eater 12 ns; reads back only on the AM53C974 */
};

/* FIFO flags. */
enum { ESP_FF_COUNT = 0x1F };

/* Chip ID family in TCHI bits 3-7 after reset with CFG2 FE set. */
enum { ESP_ID_FAMILY_FAS236 = 0x02 };

/* AM53C974 DMA engine, 32-bit registers at base + 0x40 + 4k. */
enum {
    AMD_DMA_CMD = 0x40,
    AMD_DMA_STC = 0x44,   /* start transfer count */
    AMD_DMA_SPA = 0x48,   /* start physical address */
    AMD_DMA_WBC = 0x4C,   /* working byte counter (bytes left) */
    AMD_DMA_WAC = 0x50,   /* working address counter */
    AMD_DMA_STATUS = 0x54,
    AMD_DMA_SMDLA = 0x58,
    AMD_DMA_WMAC = 0x5C
};

/* DMA command register. */
enum {
    AMD_CMD_IDLE = 0x00,
    AMD_CMD_BLAST = 0x01, /* flush the engine's buffer to memory */
    AMD_CMD_ABORT = 0x02,
    AMD_CMD_START = 0x03,
    AMD_CMD_DIR_IN = 0x80 /* SCSI to memory */
};

/* DMA status register. */
enum {
    AMD_ST_ERROR = 0x02,
    AMD_ST_ABORT = 0x04,
    AMD_ST_DONE = 0x08,
    AMD_ST_SCSIINT = 0x10,
    AMD_ST_BLAST = 0x20   /* BLAST complete */
};

/* Depth of the chip FIFO. */
#define ESP_FIFO_DEPTH 16u

#endif /* PCAM_ESP_REGS_H */
