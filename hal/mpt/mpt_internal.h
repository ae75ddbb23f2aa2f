/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the Fusion-MPT back-end, the MPI register map, message
 * layouts and codes, and the layout of the DMA area. The MPI values are
 * facts from the MPI 1.5 specification as QEMU's hw/scsi/mpi.h and
 * mptsas.c (7.2) carry them (Linux's drivers/message/fusion/lsi agrees);
 * offsets are written here as byte positions in pcam's own form. Nothing
 * here touches the IOC except through mpt_rd/mpt_wr.
 */
#ifndef PCAM_MPT_INTERNAL_H
#define PCAM_MPT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_mpt.h"
#include "pcam/pcam.h"
#include "pcam_util.h"

/* ---- registers (offsets from base) ---- */
enum {
    R_DOORBELL = 0x00, R_WRSEQ = 0x04, R_DIAG = 0x08, R_HIS = 0x30, R_HIM = 0x34,
    R_REQ_FIFO = 0x40, R_REPLY_FIFO = 0x44 /* read: reply post, write: reply free */
};
/* Doorbell: IOC state in the top nibble, fault code in the low 16 bits. */
#define DB_STATE_MASK 0xF0000000u
#define DB_RESET 0x00000000u
#define DB_READY 0x10000000u
#define DB_OPERATIONAL 0x20000000u
#define DB_FAULT 0x40000000u
#define DB_ACTIVE 0x08000000u
#define DB_DATA_MASK 0x0000FFFFu
#define DB_FUNC_SHIFT 24
#define DB_DWORDS_SHIFT 16
/* Host interrupt status / mask. */
#define HIS_DOORBELL 0x00000001u
#define HIS_REPLY 0x00000008u
#define HIS_IOP_DOORBELL 0x80000000u
#define HIM_DIM 0x00000001u
#define HIM_RIM 0x00000008u
/* Diagnostic register and its write-enable key sequence. */
#define DIAG_RESET_ADAPTER 0x00000004u
#define DIAG_DRWE 0x00000080u
#define ADDRESS_REPLY_BIT 0x80000000u
#define FIFO_EMPTY 0xFFFFFFFFu

/* ---- functions ---- */
enum {
    F_SCSI_IO = 0x00, F_TASK_MGMT = 0x01, F_IOC_INIT = 0x02, F_IOC_FACTS = 0x03,
    F_CONFIG = 0x04, F_PORT_FACTS = 0x05, F_PORT_ENABLE = 0x06, F_EVENT_NOTIFY = 0x07,
    F_EVENT_ACK = 0x08, F_MSG_UNIT_RESET = 0x40, F_HANDSHAKE = 0x42
};

/* ---- IOCStatus (low 15 bits; bit 15 says log info is there) ---- */
enum {
    IOC_SUCCESS = 0x0000, IOC_INVALID_FUNCTION = 0x0001, IOC_BUSY = 0x0002,
    IOC_INVALID_SGL = 0x0003, IOC_INTERNAL = 0x0004, IOC_INSUFFICIENT = 0x0006,
    IOC_INVALID_FIELD = 0x0007, IOC_INVALID_STATE = 0x0008,
    IOC_RECOVERED = 0x0040, IOC_INVALID_BUS = 0x0041, IOC_INVALID_TARGETID = 0x0042,
    IOC_DEVICE_NOT_THERE = 0x0043, IOC_DATA_OVERRUN = 0x0044, IOC_DATA_UNDERRUN = 0x0045,
    IOC_IO_DATA_ERROR = 0x0046, IOC_PROTOCOL_ERROR = 0x0047, IOC_TASK_TERMINATED = 0x0048,
    IOC_RESIDUAL_MISMATCH = 0x0049, IOC_TM_FAILED = 0x004A, IOC_IOC_TERMINATED = 0x004B,
    IOC_EXT_TERMINATED = 0x004C
};
#define IOC_STATUS_MASK 0x7FFFu

/* SCSI IO reply SCSIState bits. */
enum { SS_AUTOSENSE_VALID = 0x01, SS_AUTOSENSE_FAILED = 0x02, SS_NO_STATUS = 0x04,
       SS_TERMINATED = 0x08 };

/* SCSI IO Control word: data direction and task attribute. */
#define CTL_WRITE 0x01000000u
#define CTL_READ 0x02000000u
#define CTL_SIMPLEQ 0x00000000u
#define CTL_HEADOFQ 0x00000100u
#define CTL_ORDEREDQ 0x00000200u
#define CTL_UNTAGGED 0x00000500u

/* Scatter-gather element flags (the top byte of FlagsLength). */
#define SGE_LAST 0x80000000u
#define SGE_EOB 0x40000000u
#define SGE_SIMPLE 0x10000000u
#define SGE_CHAIN 0x30000000u
#define SGE_TYPE_MASK 0x30000000u
#define SGE_HOST_TO_IOC 0x04000000u
#define SGE_EOL 0x01000000u
#define SGE_LEN_MASK 0x00FFFFFFu

/* Task management types and response codes. */
enum { TM_ABORT_TASK = 0x01, TM_TARGET_RESET = 0x03, TM_RESET_BUS = 0x04, TM_LUN_RESET = 0x05 };
enum { TMR_COMPLETE = 0x00, TMR_SUCCEEDED = 0x08, TMR_INVALID_LUN = 0x09 };

/* Events. */
enum {
    EV_EVENT_CHANGE = 0x0A, EV_IOC_BUS_RESET = 0x04, EV_EXT_BUS_RESET = 0x05,
    EV_RESCAN = 0x06, EV_SAS_DEVICE_STATUS = 0x0F
};
/* SAS device status change reason codes. */
enum { DEV_RC_ADDED = 0x03, DEV_RC_NOT_RESPONDING = 0x04 };

/* Message byte positions: the header common to every request and reply. */
enum {
    M_FUNC_SPECIFIC0 = 0, M_FUNC_SPECIFIC1 = 1, M_CHAIN_OR_LEN = 2, M_FUNCTION = 3,
    M_MSGFLAGS = 7, M_CONTEXT = 8, M_IOCSTATUS = 14, M_LOGINFO = 16
};
/* SCSI IO request (48 bytes, SGL at 48) and reply (36 bytes). */
enum {
    IO_TARGET = 0, IO_BUS = 1, IO_CHAIN_OFFSET = 2, IO_CDB_LEN = 4, IO_SENSE_LEN = 5,
    IO_LUN = 12, IO_CONTROL = 20, IO_CDB = 24, IO_DATA_LEN = 40, IO_SENSE_LO = 44, IO_SGL = 48,
    IOR_SCSI_STATUS = 12, IOR_SCSI_STATE = 13, IOR_XFER = 20, IOR_SENSE_COUNT = 24, IOR_SIZE = 36
};
/* Task management request (52 bytes) and reply (24 bytes). */
enum { TM_TYPE = 5, TM_LUN = 12, TM_TASK_CONTEXT = 48, TM_SIZE = 52,
       TMR_RESPONSE = 4, TMR_TERM_COUNT = 20, TMR_SIZE = 24 };
/* Event notification reply. */
enum { EVR_DATA_LEN = 0, EVR_ACK_REQUIRED = 6, EVR_EVENT = 20, EVR_CONTEXT = 24, EVR_DATA = 28 };
/* Smallest reply every function carries (the default reply). */
#define REPLY_MIN 20u

/* ---- the DMA area (offsets from its 128-byte aligned start) ---- */
#define MPT_SLOTS (PCAM_MPT_MAX_CMDS + 5u)
enum { S_ABORT = PCAM_MPT_MAX_CMDS, S_RESET, S_BUSRESET, S_EVENT, S_ACK };
#define FRAME_BYTES 128u
#define CHAIN_BYTES 256u
#define SENSE_BYTES 64u
#define REPLY_BYTES 128u
#define SGE_BYTES 8u
#define FRAME_SGES ((FRAME_BYTES - IO_SGL) / SGE_BYTES) /* 10 */
#define A_FRAMES 0u
#define A_CHAINS (A_FRAMES + MPT_SLOTS * FRAME_BYTES)
#define A_SENSE (A_CHAINS + PCAM_MPT_MAX_CMDS * CHAIN_BYTES)
#define A_REPLIES (A_SENSE + PCAM_MPT_MAX_CMDS * SENSE_BYTES)
#define A_END (A_REPLIES + PCAM_MPT_REPLY_FRAMES * REPLY_BYTES)

/* A command context: slot in the low byte, the slot's generation above it,
 * bits 29..31 clear (bit 31 would make it an address reply). */
#define CTX_GEN_MASK 0x3FFFu
#define CTX(slot, gen) ((((uint32_t)(gen) & CTX_GEN_MASK) << 8) | (uint32_t)(slot))

typedef enum { SL_FREE = 0, SL_LIVE, SL_HELD } mpt_slot_state;

typedef struct mpt_slot {
    const void *handle;
    uint8_t state;        /* mpt_slot_state */
    uint8_t target, lun;
    uint8_t dir;          /* pcam_dir */
    bool autosense;
    bool abort_asked;     /* an ABORT TASK names it: a termination is the abort's answer */
    bool lun_reset;       /* S_RESET: which reset */
    uint8_t sense_cap;    /* bytes of the core's sense buffer */
    uint8_t *sense;
    uint16_t gen;
    uint8_t victim;       /* S_ABORT: the slot it aborts */
    uint8_t nseg;
    uint32_t data_len;
    void *seg_va[PCAM_MPT_MAX_SG];
    uint32_t seg_len[PCAM_MPT_MAX_SG];
    uint32_t seg_bus[PCAM_MPT_MAX_SG];
} mpt_slot;

typedef struct mpt_sc {
    pcam_platform p;
    uintptr_t base;
    struct pcam_bus *bus;
    uint8_t *dma;          /* aligned start */
    uint64_t dma_bus;
    uint8_t ntargets;
    uint8_t want_targets;
    uint8_t id;
    bool attached;
    bool ev_reset;         /* a bus reset happened: poll reports it */
    bool ev_gross;         /* the IOC faulted or left the operational state */
    bool fault_logged;
    bool ack_pending;      /* an event wants EVENT ACK and the ACK frame was busy */
    uint32_t ack_event, ack_context;
    uint8_t lent[(PCAM_MPT_REPLY_FRAMES + 7u) / 8u]; /* reply frames the IOC holds */
    uint8_t back[PCAM_MPT_REPLY_FRAMES]; /* frames read in this drain, lent again after it */
    uint8_t nback;
    uint16_t credits;      /* commands held at once */
    uint16_t live;
    uint8_t next_slot;
    pcam_mpt_facts facts;
    pcam_mpt_stats st;
    mpt_slot slot[MPT_SLOTS];
} mpt_sc;

/* The result of decoding one reply frame (mpt_reply.c), before it is acted on. */
typedef struct mpt_reply {
    uint8_t function;
    uint8_t msg_len;      /* 32-bit words the IOC says it wrote */
    uint32_t context;
    uint16_t ioc_status;  /* masked */
    uint32_t log_info;
    /* SCSI IO */
    uint8_t target, scsi_status, scsi_state;
    uint32_t xfer, sense_count;
    /* task management */
    uint8_t tm_type, tm_response;
    uint32_t term_count;
    /* events */
    uint32_t event, event_context;
    bool ack_required;
    uint16_t data_words;
    const uint8_t *data;  /* inside the frame, data_words * 4 bytes */
} mpt_reply;

/* mpt.c: registers, log, slots (little-endian fields: pcam_util.h). */
uint32_t mpt_rd(mpt_sc *s, unsigned reg);
void mpt_wr(mpt_sc *s, unsigned reg, uint32_t v);
void mpt_log(mpt_sc *s, pcam_log_level lv, const char *what, uint32_t value);
uint8_t *mpt_frame(mpt_sc *s, unsigned slot);
uint32_t mpt_frame_bus(const mpt_sc *s, unsigned slot);
void mpt_free_slot(mpt_sc *s, unsigned i);
void mpt_forget_all(mpt_sc *s);
void mpt_post(mpt_sc *s, unsigned slot);

/* mpt_ioc.c: bring-up and resets, with bounded waits. */
int mpt_ioc_bringup(mpt_sc *s);
void mpt_ioc_quiesce(mpt_sc *s);

/* mpt_reply.c: the reply FIFO and what replies mean. */
int mpt_decode_reply(const uint8_t *frame, size_t cap, mpt_reply *out);
int mpt_poll(void *sc, pcam_hal_event *ev);
/* Process one reply FIFO word (exposed for the fuzz target's lying IOC). */
void mpt_reply_word(mpt_sc *s, uint32_t word);
/* Take every reply the FIFO holds if the reply interrupt is up; false when it is not. */
bool mpt_drain(mpt_sc *s);

#endif /* PCAM_MPT_INTERNAL_H */
