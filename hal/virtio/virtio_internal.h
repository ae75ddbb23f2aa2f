/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the virtio-scsi back-end, the virtio 1.0 register and
 * ring layouts, the virtio-scsi request, response and event formats, and
 * the layout of the DMA area. The values are facts of the virtio 1.0
 * specification (sections 4.1 virtio over PCI, 2.4 split virtqueues, 5.6
 * SCSI host device), as QEMU 7.2's hw/scsi/virtio-scsi.c and Linux's
 * virtio_scsi carry them; written here as byte positions in pcam's own
 * form. Nothing here touches the device except through vio_rd/vio_wr.
 */
#ifndef PCAM_VIRTIO_INTERNAL_H
#define PCAM_VIRTIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_virtio.h"
#include "pcam/pcam.h"
#include "pcam_util.h"

/* ---- PCI capabilities (4.1.4) ---- */
enum { CAP_VNDR = 0x09, CAP_COMMON = 1, CAP_NOTIFY = 2, CAP_ISR = 3, CAP_DEVICE = 4, CAP_PCI = 5 };
enum { CAPF_TYPE = 3, CAPF_BAR = 4, CAPF_OFFSET = 8, CAPF_LENGTH = 12, CAPF_MULT = 16 };

/* ---- common configuration (4.1.4.3): byte offsets, accessed at their width ---- */
enum {
    CC_DFSELECT = 0, CC_DF = 4, CC_GFSELECT = 8, CC_GF = 12, CC_MSIX = 16, CC_NUMQ = 18,
    CC_STATUS = 20, CC_CFGGEN = 21, CC_Q_SELECT = 22, CC_Q_SIZE = 24, CC_Q_MSIX = 26,
    CC_Q_ENABLE = 28, CC_Q_NOFF = 30, CC_Q_DESC = 32, CC_Q_AVAIL = 40, CC_Q_USED = 48
};
enum { ST_ACK = 1, ST_DRIVER = 2, ST_DRIVER_OK = 4, ST_FEATURES_OK = 8, ST_NEEDS_RESET = 0x40,
       ST_FAILED = 0x80 };
#define NO_VECTOR 0xFFFFu
enum { ISR_QUEUE = 1, ISR_CONFIG = 2 };

/* ---- feature bits ---- */
#define F_SCSI_INOUT 0
#define F_SCSI_HOTPLUG 1
#define F_RING_INDIRECT 28
#define F_RING_EVENT_IDX 29
#define F_VERSION_1 32
#define FBIT(b) ((uint64_t)1 << (b))

/* ---- virtio-scsi device configuration (5.6.4) ---- */
enum {
    DC_NUM_QUEUES = 0, DC_SEG_MAX = 4, DC_MAX_SECTORS = 8, DC_CMD_PER_LUN = 12,
    DC_EVENT_INFO = 16, DC_SENSE_SIZE = 20, DC_CDB_SIZE = 24, DC_MAX_CHANNEL = 28,
    DC_MAX_TARGET = 30, DC_MAX_LUN = 32
};

/* ---- split virtqueue (2.4) ---- */
enum { D_ADDR = 0, D_LEN = 8, D_FLAGS = 12, D_NEXT = 14, DESC_BYTES = 16 };
enum { DF_NEXT = 1, DF_WRITE = 2, DF_INDIRECT = 4 };
/* avail: flags, idx, ring[n]; used: flags, idx, ring[n] of {id le32, len le32} */
enum { R_FLAGS = 0, R_IDX = 2, R_RING = 4 };

/* ---- virtio-scsi requests (5.6.6) ---- */
#define CDB_SIZE 32u
#define SENSE_SIZE 96u
enum { RQ_LUN = 0, RQ_TAG = 8, RQ_ATTR = 16, RQ_PRIO = 17, RQ_CRN = 18, RQ_CDB = 19 };
#define REQ_BYTES (RQ_CDB + CDB_SIZE) /* 51 */
enum { RS_SENSE_LEN = 0, RS_RESID = 4, RS_QUALIFIER = 8, RS_STATUS = 10, RS_RESPONSE = 11,
       RS_SENSE = 12 };
#define RESP_BYTES (RS_SENSE + SENSE_SIZE) /* 108 */
#define RESP_MIN RS_SENSE                  /* what a response must have to be read */
enum { ATTR_SIMPLE = 0, ATTR_ORDERED = 1, ATTR_HEAD = 2 };
/* response codes */
enum {
    VS_OK = 0, VS_OVERRUN = 1, VS_ABORTED = 2, VS_BAD_TARGET = 3, VS_RESET = 4, VS_BUSY = 5,
    VS_TRANSPORT_FAILURE = 6, VS_TARGET_FAILURE = 7, VS_NEXUS_FAILURE = 8, VS_FAILURE = 9,
    VS_FUNCTION_SUCCEEDED = 10, VS_FUNCTION_REJECTED = 11, VS_INCORRECT_LUN = 12
};
/* control queue: task management */
enum { TMF_TYPE = 0, TMF_SUBTYPE = 4, TMF_LUN = 8, TMF_TAG = 16, TMF_BYTES = 24 };
enum { T_TMF = 0, T_AN_QUERY = 1 };
enum { AN_LUN = 4, AN_EVENTS = 12, AN_BYTES = 16, AN_RESP_BYTES = 5 };
enum { TMF_ABORT_TASK = 0, TMF_I_T_NEXUS_RESET = 4, TMF_LUN_RESET = 5 };
/* event queue */
enum { EV_EVENT = 0, EV_LUN = 4, EV_REASON = 12, EV_BYTES = 16 };
enum { E_NO_EVENT = 0, E_TRANSPORT_RESET = 1, E_ASYNC_NOTIFY = 2, E_PARAM_CHANGE = 3 };
#define E_MISSED 0x80000000u
enum { ER_HARD = 0, ER_RESCAN = 1, ER_REMOVED = 2 };

/* ---- queues and the DMA area ---- */
enum { Q_CTL = 0, Q_EVT = 1, Q_REQ = 2, NQ = 3 };
#define QN_REQ PCAM_VIRTIO_MAX_CMDS
#define QN_CTL 8u
#define QN_EVT PCAM_VIRTIO_EVENTS
#define ALIGN(x, a) (((x) + (a) - 1u) & ~((a) - 1u))
#define VQ_AVAIL(n) (DESC_BYTES * (n))
#define VQ_USED(n) ALIGN(VQ_AVAIL(n) + 6u + 2u * (n), 4u)
#define VQ_BYTES(n) ALIGN(VQ_USED(n) + 6u + 8u * (n), 64u)
#define IND_ENTRIES (PCAM_VIRTIO_MAX_SG + 2u)
#define S_REQ 0u
#define S_RESP 64u
#define S_IND 176u
#define SLOT_BYTES (S_IND + IND_ENTRIES * DESC_BYTES)
#define TM_BYTES 32u
#define TM_RESP 24u
#define EVBUF_BYTES 32u
#define A_VQ_REQ 0u
#define A_VQ_CTL (A_VQ_REQ + VQ_BYTES(QN_REQ))
#define A_VQ_EVT (A_VQ_CTL + VQ_BYTES(QN_CTL))
#define A_SLOTS (A_VQ_EVT + VQ_BYTES(QN_EVT))
#define A_TM (A_SLOTS + PCAM_VIRTIO_MAX_CMDS * SLOT_BYTES)
#define A_EVBUF (A_TM + 3u * TM_BYTES)
#define A_END (A_EVBUF + QN_EVT * EVBUF_BYTES)

/* Control queue heads: three requests of two descriptors each, the third
 * an asynchronous-notification query whose answer ends a bus reset. */
enum { TM_ABORT = 0, TM_RESET = 1, TM_QUERY = 2 };

/* A command's tag: its slot in the low byte, the slot's generation above. */
#define GEN_MASK 0xFFFFu
#define TAG(slot, gen) ((((uint32_t)(gen) & GEN_MASK) << 8) | (uint32_t)(slot))

/* FREE; LIVE: the device has it; HELD: the device returned it terminated
 * by a reset of ours whose answer decides. A slot is free again only when
 * the device has returned it or been reset, so a tag is never reused while
 * the device may still hold it. */
typedef enum { SL_FREE = 0, SL_LIVE, SL_HELD } vio_slot_state;

typedef struct vio_slot {
    const void *handle;
    uint8_t state;       /* vio_slot_state */
    uint8_t target, lun;
    uint8_t dir;         /* pcam_dir */
    bool autosense;
    bool abort_asked;
    uint8_t sense_cap;
    uint8_t nseg;
    uint8_t *sense;
    uint16_t gen;
    uint32_t data_len;
    void *seg_va[PCAM_VIRTIO_MAX_SG];
    uint32_t seg_len[PCAM_VIRTIO_MAX_SG];
    uint64_t seg_bus[PCAM_VIRTIO_MAX_SG];
} vio_slot;

typedef struct vio_queue {
    uint8_t *ring;        /* its descriptor table; avail and used follow */
    uint64_t bus;
    uint16_t size;
    uint16_t avail_idx;   /* next avail index to publish */
    uint16_t used_seen;   /* used entries consumed */
    uint16_t in_flight;   /* heads made available and not yet used */
    uint32_t notify_off;  /* byte offset of its doorbell in the notify region */
} vio_queue;

typedef struct vio_tm {
    bool live;
    uint8_t target, lun;
    uint8_t subtype;
    uint8_t victim;       /* TM_ABORT: the slot */
} vio_tm;

typedef struct vio_sc {
    pcam_platform p;
    pcam_virtio_config cfg;
    struct pcam_bus *bus;
    uint8_t *dma;         /* aligned start */
    uint64_t dma_bus;
    uint8_t ntargets;
    uint8_t id;
    bool attached;
    bool ev_reset;        /* a bus reset happened: poll reports it */
    bool ev_gross;        /* the device wants a reset or the rings are corrupt */
    bool reset_query;     /* a bus reset waits for the device's answer to its query */
    uint8_t ev_lent;      /* event buffers the device holds, one bit each */
    uint8_t ev_back;      /* those it returned in this drain */
    uint16_t live;
    uint8_t next_slot;
    vio_queue q[NQ];
    vio_tm tm[3];
    pcam_virtio_facts facts;
    pcam_virtio_stats st;
    vio_slot slot[PCAM_VIRTIO_MAX_CMDS];
} vio_sc;

/* virtio.c: registers, log, slots. */
void vio_log(vio_sc *s, pcam_log_level lv, const char *what, uint32_t value);
void vio_free_slot(vio_sc *s, unsigned i);
void vio_forget_all(vio_sc *s);

/* virtio_ring.c: bring-up, the rings, what the device hands back. */
int vio_bringup(vio_sc *s);
void vio_device_reset(vio_sc *s);
void vio_push(vio_sc *s, unsigned q, uint16_t head);
void vio_put_desc(uint8_t *d, uint64_t addr, uint32_t len, uint16_t flags, uint16_t next);
void vio_put_lun(uint8_t *p, uint8_t target, uint8_t lun);
void vio_send_ctl(vio_sc *s, unsigned k, const uint8_t *req, uint32_t req_len, uint32_t resp_len);
int vio_poll(void *sc, pcam_hal_event *ev);
/* Drain one queue's used ring (exposed for the fuzz target's lying device). */
void vio_drain(vio_sc *s, unsigned q);

#endif /* PCAM_VIRTIO_INTERNAL_H */
