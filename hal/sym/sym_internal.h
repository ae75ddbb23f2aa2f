/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the 53C8xx back-end, the register map, the layout of the
 * DMA area and of a command block, and the entry points of the script. The
 * register offsets and bits are facts from the 53C8xx data manuals (QEMU's
 * hw/scsi/lsi53c895a.c agrees); the layout and labels are pcam's own.
 * Every register access goes through sym_rd8/sym_wr8/sym_rd32/sym_wr32 so it
 * is counted; nothing here touches hardware any other way.
 */
#ifndef PCAM_SYM_INTERNAL_H
#define PCAM_SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_sym.h"
#include "pcam/pcam.h"
#include "pcam/pcam_msg.h"
#include "pcam_util.h"

/* ---- registers (offsets from base) ---- */
enum {
    R_SCNTL0 = 0x00, R_SCNTL1 = 0x01, R_SCNTL2 = 0x02, R_SCNTL3 = 0x03, R_SCID = 0x04,
    R_SXFER = 0x05, R_SDID = 0x06, R_GPREG = 0x07, R_SFBR = 0x08, R_SOCL = 0x09, R_SSID = 0x0A,
    R_SBCL = 0x0B, R_DSTAT = 0x0C, R_SSTAT0 = 0x0D, R_SSTAT1 = 0x0E, R_SSTAT2 = 0x0F,
    R_DSA = 0x10, R_ISTAT = 0x14, R_CTEST2 = 0x1A, R_CTEST3 = 0x1B, R_TEMP = 0x1C,
    R_DFIFO = 0x20, R_CTEST4 = 0x21, R_CTEST5 = 0x22, R_DBC = 0x24, R_DCMD = 0x27,
    R_DNAD = 0x28, R_DSP = 0x2C, R_DSPS = 0x30, R_SCRATCHA = 0x34, R_DMODE = 0x38,
    R_DIEN = 0x39, R_DCNTL = 0x3B, R_SIEN0 = 0x40, R_SIEN1 = 0x41, R_SIST0 = 0x42,
    R_SIST1 = 0x43, R_STIME0 = 0x48, R_RESPID0 = 0x4A, R_RESPID1 = 0x4B, R_STEST1 = 0x4D,
    R_STEST2 = 0x4E, R_STEST3 = 0x4F, R_SCRATCHB = 0x5C
};

/* ISTAT */
enum { ISTAT_DIP = 0x01, ISTAT_SIP = 0x02, ISTAT_INTF = 0x04, ISTAT_CON = 0x08,
       ISTAT_SIGP = 0x20, ISTAT_SRST = 0x40, ISTAT_ABRT = 0x80 };
/* DSTAT */
enum { DSTAT_IID = 0x01, DSTAT_SIR = 0x04, DSTAT_SSI = 0x08, DSTAT_ABRT = 0x10,
       DSTAT_BF = 0x20, DSTAT_MDPE = 0x40, DSTAT_DFE = 0x80 };
/* SIST0 / SIST1 */
enum { SIST0_PAR = 0x01, SIST0_RST = 0x02, SIST0_UDC = 0x04, SIST0_SGE = 0x08,
       SIST0_RSL = 0x10, SIST0_SEL = 0x20, SIST0_CMP = 0x40, SIST0_MA = 0x80 };
enum { SIST1_HTH = 0x01, SIST1_GEN = 0x02, SIST1_STO = 0x04, SIST1_SBMC = 0x10 };
/* SCNTL0: full arbitration, parity checking, ATN on parity error. */
enum { SCNTL0_ARB = 0xC0, SCNTL0_EPC = 0x08, SCNTL0_AAP = 0x02 };
enum { SCNTL1_RST = 0x08 };
enum { SCNTL3_ULTRA = 0x80, SCNTL3_EWS = 0x08 };
enum { SCID_RRE = 0x40 };
enum { DCNTL_COM = 0x01 };
enum { CTEST3_CLF = 0x04 };
enum { STEST3_CSF = 0x02 };
enum { SSTAT0_OLF = 0x20, SSTAT0_ORF = 0x40 };

/* ---- the DMA area (offsets from its 256-byte aligned start) ---- */
enum {
    A_SQ = 0x000,       /* start ring: 64 block bus addresses, low byte 0xFF = empty */
    A_DQ = 0x100,       /* done ring: the same */
    A_RESEL = 0x200,    /* reselection message bytes: IDENTIFY, tag message, tag */
    A_OVR_IN = 0x204,   /* bus address of the data-in overrun bucket (loaded into blocks) */
    A_OVR_OUT = 0x208,  /* the same for data out */
    A_BUCKET = 0x20C,   /* overrun bytes go here (and zeros come from here) */
    A_NOP = 0x210,      /* a NO OPERATION message byte */
    A_PEND = 0x214,     /* DSA of a selection that lost to a reselection */
    A_SCRIPT = 0x300,   /* the script */
    A_SCRIPT_MAX = 0xB00,
    A_BLOCKS = 0xB00,   /* per-command blocks, 256 bytes each */
    A_END = A_BLOCKS + 64 * 256
};

/* ---- one command block (256 bytes, DSA points at it) ---- */
enum {
    B_SEL = 0x00,       /* SCNTL3 << 24 | ID << 16 | SXFER << 8: table-indirect SELECT */
    B_AFTER_MO = 0x04,  /* script address after the selection's message-out (into TEMP) */
    B_IN = 0x08,        /* where DATA IN continues: an address in the data-in chain, or the bucket */
    B_OUT = 0x0C,       /* the same for DATA OUT */
    B_T_MSGOUT = 0x10,  /* table entries: count (24 bits), address */
    B_T_CMD = 0x18,
    B_T_STATUS = 0x20,
    B_T_MSGIN = 0x28,
    B_T_EXTLEN = 0x30,
    B_T_EXTBODY = 0x38,
    B_SLOT = 0x40,      /* this block's slot number */
    B_TGT = 0x41,       /* 0x80 | target while the command is live, else 0xFF */
    B_OVR = 0x42,       /* set by the script when the target moved more data than asked */
    B_STATUS = 0x44,    /* the status byte (0xFF until one arrives) */
    B_MSGOUT = 0x50,    /* 16 bytes */
    B_CDB = 0x60,       /* 16 bytes */
    B_MSGIN = 0x70,     /* 16 bytes: [0] the message, [1] extended length, [2..] the rest */
    B_SG = 0x80,        /* PCAM_SYM_MAX_SG table entries */
    B_SIZE = 0x100
};

/* Script stops with INT: the code in DSPS. */
enum {
    SIR_DONE = 0x10,          /* interrupt-on-the-fly: the done ring has entries */
    SIR_BAD_PHASE = 0x20,     /* a phase SCRIPTS has no use for */
    SIR_RESEL_UNTAGGED = 0x21,
    SIR_RESEL_BAD = 0x22,     /* reselection by a tag that names no live command of that target */
    SIR_NEGO_NOANSWER = 0x23, /* our SDTR/WDTR/PPR went out and the target went on to COMMAND */
    SIR_EXT = 0x24,           /* an extended message is in B_MSGIN, ACK held */
    SIR_EXT_BAD = 0x25,
    SIR_REJECT = 0x26,        /* MESSAGE REJECT received, ACK held */
    SIR_IWR = 0x27,           /* IGNORE WIDE RESIDUE, ACK held */
    SIR_RESTORE = 0x28,       /* RESTORE POINTERS, ACK held */
    SIR_MSGIN_OTHER = 0x29,   /* any other message, ACK held */
    SIR_MGMT_DONE = 0x2A,     /* ABORT TASK / TARGET RESET taken, bus free */
    SIR_MGMT_REJECTED = 0x2B,
    SIR_ABORTED = 0x2C        /* our ABORT TASK after an error went out, bus free */
};

/* Script entry points and places the host needs. */
enum {
    L_KICK, L_INIT, L_IDLE, L_WAIT, L_RETRY, L_SEL_LOST, L_SELECT, L_CMD, L_NEGO_CHECK, L_MGMT,
    L_MGMT_REJ, L_DISPATCH, L_DIN_GO, L_DOUT_GO, L_CHAIN_IN, L_CHAIN_IN_END, L_CHAIN_OUT,
    L_CHAIN_OUT_END, L_OVR_IN, L_OVR_OUT, L_STATUS, L_MSGIN, L_CC, L_SDP, L_DISC, L_EXT,
    L_EXT_BAD, L_IWR, L_REJ, L_RESTORE, L_ACK_GO, L_REPLY, L_REPLY_ABORT, L_MSGOUT_NOP, L_RESEL,
    L_RESEL_UNTAGGED, L_RESEL_BAD, L_BAD_PHASE, L_SQ_LOAD, L_SQ_CLR, L_DQ_PUT, L_END, L_COUNT
};

#define SYM_SLOTS 64u                        /* PCAM_SYM_MAX_CMDS + abort + reset */
#define SYM_ABORT_SLOT (PCAM_SYM_MAX_CMDS)
#define SYM_RESET_SLOT (PCAM_SYM_MAX_CMDS + 1u)
#define SYM_TARGETS 16u

typedef enum sym_slot_state {
    SS_FREE = 0,
    SS_LIVE,    /* handed to SCRIPTS, not yet reported */
    SS_ZOMBIE   /* taken back by the core but still in the start ring: runs, then is dropped */
} sym_slot_state;

typedef enum sym_slot_kind { SK_CMD = 0, SK_ABORT, SK_RESET } sym_slot_kind;

typedef struct sym_slot {
    const void *handle;
    uint8_t state, kind;
    uint8_t target, lun;
    uint8_t tag_msg;     /* what went on the wire (0 = untagged) */
    uint8_t last_msg;    /* first byte of the last message we sent: what a MESSAGE REJECT means */
    bool nego;           /* a negotiation message is out, unanswered */
    bool lun_reset;
    uint8_t dir;         /* pcam_dir */
    uint8_t nseg;
    uint8_t iwr;         /* IGNORE WIDE RESIDUE bytes */
    uint8_t victim;      /* for SK_ABORT: the slot being aborted */
    uint32_t err;        /* a failure found on the way (reported instead of the status) */
    uint32_t data_len;
    uint32_t progress;   /* bytes moved before the last phase mismatch */
    bool mismatch;
    void *seg_va[PCAM_SYM_MAX_SG];
    uint32_t seg_len[PCAM_SYM_MAX_SG];
    uint32_t seg_bus[PCAM_SYM_MAX_SG];
} sym_slot;

typedef struct sym_sc {
    pcam_platform p;
    uintptr_t base;
    const pcam_sym_chip_info *chip;
    struct pcam_bus *bus;
    uint32_t cfg_flags;
    uint32_t sclk_khz;      /* SCSI core clock after the doubler/quadrupler */
    uint8_t id;
    uint8_t ccf;            /* SCNTL3 clock conversion factor for asynchronous */
    uint8_t ntargets;
    bool attached;
    uint8_t *dma;           /* 256-aligned start of the DMA area */
    uint32_t dma_bus;
    uint32_t lbl[L_COUNT];  /* bus addresses of the script's labels */
    uint32_t script_words;
    uint8_t sq_idx, dq_idx; /* host's ring positions */
    uint8_t next_slot;      /* where the slot search starts */
    uint32_t gen;           /* chip resets so far: a stop handled across one must not restart the script */
    uint32_t stop_gen;
    uint8_t t_scntl3[SYM_TARGETS], t_sxfer[SYM_TARGETS];
    uint8_t conn;           /* target the stopped script is connected to, 0xFF none */
    bool ev_reset;          /* a bus reset to report from poll */
    bool ev_gross;
    uint16_t live;
    sym_slot slot[SYM_SLOTS];
    pcam_sym_stats st;
} sym_sc;

/* sym.c */
uint8_t sym_rd8(sym_sc *s, unsigned reg);
void sym_wr8(sym_sc *s, unsigned reg, uint8_t v);
uint32_t sym_rd32(sym_sc *s, unsigned reg);
void sym_wr32(sym_sc *s, unsigned reg, uint32_t v);
uint8_t *sym_blk(sym_sc *s, unsigned slot);
uint32_t sym_blk_bus(const sym_sc *s, unsigned slot);
void sym_chip_init(sym_sc *s, bool kick);
void sym_forget_all(sym_sc *s);
void sym_free_slot(sym_sc *s, unsigned i);
void sym_report(sym_sc *s, unsigned i, uint32_t status, uint8_t scsi_status, uint32_t resid);
void sym_report_slot(sym_sc *s, unsigned i);
void sym_enqueue(sym_sc *s, unsigned i);
void sym_internal_bus_reset(sym_sc *s);
void sym_mgmt_reset_done(sym_sc *s, uint32_t status);

/* sym_script.c */
int sym_script_build(sym_sc *s);

/* sym_intr.c */
int sym_poll(void *sc, pcam_hal_event *ev);

#endif /* PCAM_SYM_INTERNAL_H */
