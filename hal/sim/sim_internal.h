/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals of the simulated bus, shared by sim_bus.c (bus, arbitration,
 * chip actions), sim_target.c (target protocol), sim_task.c (task sets and
 * the mechanism), sim_nego.c (negotiation answers), sim_trace.c (ring, log,
 * VCD) and sim_hal.c (the pcam_hal adapter).
 *
 * The model is a discrete-event one: at most one bus step is scheduled at a
 * time (the bus is a single resource), plus one mechanism completion per
 * LU, plus arbitration whenever the bus is free and somebody wants it.
 * Target decisions are taken at the instant a phase ends, so ATN raised
 * during a transfer is seen at its end.
 */
#ifndef PCAM_SIM_INTERNAL_H
#define PCAM_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcam_sim.h"
#include "pcam/pcam_msg.h"

#define SIM_NEVER UINT64_MAX
#define SIM_NO_ID 0xFFu
#define SIM_CDB_MAX 260u          /* the longest variable-length CDB */
#define SIM_MI_MAX 8u             /* message-in queue depth */
#define SIM_EVQ 16u               /* chip event queue */
#define SIM_DEFAULT_BUF 65536u    /* data buffer when a CDB's length is unknown */
#define SIM_FILLER 256u           /* most filler bytes of one oracle-forced DATA phase */

/* SCSI status bytes (SAM). */
#define SIM_ST_GOOD 0x00u
#define SIM_ST_CHECK 0x02u
#define SIM_ST_BUSY 0x08u
#define SIM_ST_TASK_SET_FULL 0x28u

/* ---- tasks ---- */

typedef enum sim_task_state {
    TK_CONNECTED = 0, /* being worked while connected (not in the mechanism queue) */
    TK_QUEUED,        /* waiting for the mechanism */
    TK_SERVICE,       /* the mechanism works on it */
    TK_READY,         /* mechanism done: wants to reselect */
    TK_HUNG           /* accepted and forgotten: never finishes */
} sim_task_state;

typedef struct sim_task {
    struct sim_task *next;
    uint64_t seq;             /* arrival order within the target */
    uint8_t lun;
    bool tagged;
    uint8_t tag_type;         /* PCAM_MSG_SIMPLE_TAG / ORDERED / HEAD_OF_QUEUE */
    uint8_t tag;
    bool disc_ok;             /* IDENTIFY granted disconnect privilege */
    bool in_set;              /* counts in the LU's task set (not for BUSY / TASK SET FULL answers) */
    sim_task_state state;
    bool hold;                /* connected, waiting for the mechanism without disconnecting */
    bool media;               /* needs the mechanism */
    bool drop;                /* injected unexpected bus free at drop_at */
    uint32_t drop_at;
    bool out_parity;          /* a DATA OUT byte arrived with bad parity */
    uint8_t parity_retries;
    uint8_t cdb[SIM_CDB_MAX];
    uint16_t cdb_len;
    pcam_simlu_cmd cmd;
    uint8_t *buf;
    uint32_t cap;
    uint32_t data_len;        /* bytes of the data phase */
    uint32_t data_pos;        /* target's current data pointer */
    uint32_t saved_pos;       /* target's saved data pointer */
    uint8_t status;
    uint64_t ready_at;
} sim_task;

/* ---- one connection (a target holds at most one) ---- */

typedef enum sim_stage {
    CS_NONE = 0,
    CS_NEED_CDB,
    CS_DATA_IN,
    CS_DATA_OUT,
    CS_STATUS,
    CS_CC,            /* queue COMMAND COMPLETE next */
    CS_DISCONNECTING, /* DISCONNECT queued; its acceptance frees the bus */
    CS_HOLD,          /* holding the bus while the mechanism works */
    CS_RESERVED,      /* requesting in a reserved phase */
    CS_HANG,          /* holding the bus forever without REQ */
    CS_FREE           /* release the bus at the next decision */
} sim_stage;

/* What a queued message-in does once accepted without ATN. */
typedef enum sim_msg_kind {
    MK_PLAIN = 0,
    MK_IDENTIFY,
    MK_TAG,
    MK_SDP,
    MK_RP,
    MK_DISC,
    MK_CC,
    MK_REJECT,
    MK_NEGO_REPLY,    /* answer to the initiator's SDTR/WDTR/PPR */
    MK_NEGO_INIT,     /* the target's own SDTR/WDTR: needs the initiator's answer */
    MK_REFUSE         /* MESSAGE REJECT of an abort or reset (refuse_*): free if no task is connected */
} sim_msg_kind;

typedef struct sim_msg {
    uint8_t b[PCAM_MSG_MAX_LEN];
    uint8_t len;
    uint8_t kind;             /* sim_msg_kind */
    bool asked;               /* the oracle has seen it (PCAM_SIM_DEC_MESSAGE) */
} sim_msg;

typedef struct sim_conn {
    bool active;
    bool reselect;            /* opened by reselection */
    bool identified;
    uint8_t lun;
    bool disc_ok;
    bool have_tag;            /* a tag message arrived in this selection (and was kept) */
    uint8_t tag_type, tag;
    bool sel_msgs;            /* still in the selection's first MESSAGE OUT */
    bool nego_seen;           /* the initiator negotiated in this connection */
    sim_task *task;
    sim_stage stage;
    pcam_phase phase;         /* phase the target requests in */
    pcam_phase last_info;     /* phase before the last switch to MESSAGE OUT */
    pcam_msg_parser parser;
    uint8_t cdb[SIM_CDB_MAX];
    uint16_t cdb_have, cdb_need;
    uint8_t status;           /* status byte to send when there is no task */
    sim_msg mi[SIM_MI_MAX];   /* message-in queue */
    uint8_t mi_count;
    uint8_t mi_pos;           /* bytes of mi[0] already accepted */
    sim_msg last;             /* last message sent, for MESSAGE REJECT / PARITY ERROR */
    bool last_valid;
    bool last_pending;        /* accepted with ATN (or abandoned): not yet committed */
    bool last_partial;        /* abandoned before its last byte */
    bool leave;               /* leave MESSAGE OUT at the next decision, ATN or not */
    bool holding;             /* the last decision was SN_HOLD: the bus waits for the mechanism */
    uint8_t tinit;            /* target-initiated negotiation in flight: 0, PCAM_EXT_WDTR or PCAM_EXT_SDTR */
    bool tinit_sdtr_next;     /* send SDTR after the WDTR exchange */
    uint16_t filler_left;     /* oracle-forced DATA bytes still to move when the task has none */
    uint8_t filler[SIM_FILLER];
} sim_conn;

typedef struct sim_mech {
    sim_task *cur;            /* task being serviced, or NULL */
    uint64_t done_at;
} sim_mech;

typedef struct sim_target {
    uint8_t id;
    pcam_sim_target_config cfg;
    pcam_sim_target_stats stats;
    pcam_hal_xfer_params agreed;
    bool tags_used;
    bool nego_needed;         /* power-on / reset: may start negotiation itself */
    bool lu_seen[PCAM_SIM_LUNS];
    pcam_simlu lu[PCAM_SIM_LUNS];
    sim_mech mech[PCAM_SIM_LUNS];
    sim_task *tasks;
    uint64_t seq;
    sim_conn conn;
} sim_target;

/* ---- the bus ---- */

typedef enum sim_bus_state {
    BUS_FREE = 0,
    BUS_ARB_SEL,              /* the initiator won and selects */
    BUS_RESEL,                /* a target won and reselects */
    BUS_CONNECTED,
    BUS_RESETTING
} sim_bus_state;

typedef enum sim_action {
    A_NONE = 0,
    A_SELECT,
    A_TRANSFER,
    A_MSGOUT,
    A_MSGIN,
    A_ACCEPT,
    A_RESET,
    A_CHAIN                   /* a status byte read on the chip's own (chained endings) */
} sim_action;

typedef enum sim_step {
    ST_NONE = 0,
    ST_SEL_RESP,              /* the selected target answers */
    ST_SEL_TIMEOUT,
    ST_RESEL_DONE,
    ST_DECIDE,                /* a phase ended: the target decides what next */
    ST_REQ,                   /* the target requests in step_phase */
    ST_MSGIN_BYTE,            /* msg_in latched its byte */
    ST_ACK,                   /* msg_accept released ACK */
    ST_FREE,                  /* the target releases BSY */
    ST_RESET_END              /* RST deasserted */
} sim_step;

/* Result of a target decision. */
typedef enum sim_next_kind { SN_REQ = 0, SN_FREE, SN_HOLD, SN_HANG } sim_next_kind;

typedef struct sim_next {
    sim_next_kind kind;
    pcam_phase phase;
} sim_next;

/* VCD signal numbers. */
enum { V_BSY = 0, V_SEL, V_ATN, V_RST, V_CD, V_IO, V_MSG, V_REQ, V_ACK, V_DB, V_DBP, V_DBP1, V_NSIG };
#define SIM_VCD_X 0xFFFFFFFFu     /* DB unknown (summarised gap) */

typedef struct sim_vcd_change {
    uint64_t t;
    uint64_t seq;
    uint8_t sig;
    uint32_t value;
} sim_vcd_change;

struct pcam_sim {
    pcam_sim_config cfg;
    uint64_t now;
    uint64_t rng;
    sim_target *tgt[PCAM_SIM_MAX_IDS];

    /* chip */
    pcam_hal_xfer_params chip_xfer[PCAM_SIM_MAX_IDS];
    sim_action action;
    bool chip_connected;
    uint8_t conn_id;
    bool atn;
    bool ack_held;
    uint8_t held_byte;
    bool held_parity;
    /* Chained endings: the event of the action that ended, held back while
     * the chip reads the status byte and the first message byte itself. */
    bool chain_active;
    bool may_accept;          /* the action in progress allows accepting CC / DISCONNECT */
    bool chain_may_accept;    /* ... and so does the chain it led to */
    bool chain_tag_code;      /* chained reselection: a tag code accepted, its tag byte next */
    pcam_hal_event chain_ev;
    bool sel_pending;
    uint64_t sel_ready;
    uint8_t sel_target;
    bool sel_atn;
    bool sel_keep_atn;        /* select-with-ATN-and-stop: ATN stays up after the last message byte */
    uint8_t sel_msg[256];
    uint16_t sel_msg_len, sel_msg_sent;
    uint8_t sel_cdb[256];
    uint16_t sel_cdb_len, sel_cdb_sent;
    uint8_t mo_buf[256];      /* msg_out bytes waiting for MESSAGE OUT */
    uint16_t mo_len, mo_sent;
    uint32_t act_count, act_count2;
    bool act_parity;

    /* bus */
    sim_bus_state bus;
    pcam_phase phase;
    uint64_t free_since;
    uint64_t busy_since;
    sim_step step;
    uint64_t step_t;
    pcam_phase step_phase;

    /* events */
    pcam_hal_event evq[SIM_EVQ];
    unsigned ev_head, ev_count;
    uint64_t ev_dropped;

    pcam_sim_bus_stats bstats;

    uint32_t stall_reset_next; /* reset_bus requests still to swallow (pcam_sim_chip_stall_bus_reset) */
    /* trace ring and log */
    pcam_sim_trace_entry *ring;
    size_t ring_cap, ring_head, ring_count;
    uint64_t ring_dropped;
    FILE *log;
    /* phase log: a two-byte message's first byte (and the events logged
     * while its second is awaited) waits to print as one line with it */
    pcam_sim_trace_entry log_held[4];
    unsigned log_nheld;
    uint16_t log_left[2];      /* message bytes still to come, per direction (out, in); 0x100: extended length next */
    uint8_t log_ext[2][16];    /* an extended message's bytes so far, per direction, for one line */
    uint16_t log_ext_n[2];     /* how many (0: none in progress) */

    /* VCD */
    FILE *vcd;
    uint32_t vcd_val[V_NSIG];     /* last written values */
    uint64_t vcd_last_t;
    bool vcd_time_written;
    sim_vcd_change *vcd_buf;
    size_t vcd_n, vcd_cap;
    uint64_t vcd_seq;
    bool vcd_error;
};

/* ---- sim_bus.c: services for the target side and sim_chip.c ---- */
void sim_post(pcam_sim *s, pcam_hal_event_type type, uint32_t count, uint32_t count2, uint8_t target,
              uint8_t byte, bool parity);
bool sim_event_queued(const pcam_sim *s, pcam_hal_event_type type);
void sim_clear_events(pcam_sim *s);
void sim_schedule(pcam_sim *s, sim_step st, uint64_t t, pcam_phase ph);
sim_target *sim_conn_target(pcam_sim *s);
void sim_decide(pcam_sim *s);
void sim_do_reset(pcam_sim *s, bool by_initiator);
void sim_bus_released(pcam_sim *s, uint64_t t);
void sim_vcd_phase(pcam_sim *s, uint64_t t, pcam_phase p);
void sim_vcd_bytes(pcam_sim *s, uint64_t t0, uint64_t dur, const uint8_t *b, uint32_t n, bool wide,
                   uint32_t bad_index);
void sim_vcd_msgin_byte(pcam_sim *s, uint64_t t, uint8_t byte, bool bad);
uint64_t sim_rand(pcam_sim *s);
bool sim_chance_ppm(pcam_sim *s, uint32_t ppm);
void sim_bus_target_ready(pcam_sim *s, sim_target *t); /* a holding target wants to decide now */
void sim_trace_at(pcam_sim *s, uint64_t t, pcam_sim_trace_kind kind, uint8_t target, pcam_phase phase,
                  uint8_t byte, uint32_t count, uint32_t value);
void sim_trace(pcam_sim *s, pcam_sim_trace_kind kind, uint8_t target, pcam_phase phase, uint8_t byte,
               uint32_t count, uint32_t value);
void sim_trace_task(pcam_sim *s, const sim_target *t, const sim_task *k, pcam_sim_task_note note);
uint32_t sim_period_ps(uint8_t factor);

/* ---- sim_chip.c: byte runs started by actions ---- */
void sim_run_msgout(pcam_sim *s, const uint8_t *b, uint16_t n);
uint8_t sim_run_status(pcam_sim *s, sim_target *t);
void sim_run_msgin(pcam_sim *s, sim_target *t);
bool sim_msgin_parity(pcam_sim *s, sim_target *t, uint8_t *byte);
void sim_run_cdb(pcam_sim *s, const uint8_t *b, uint16_t n);

/* ---- sim_target.c: the protocol ---- */
void simt_init(sim_target *t, uint8_t id, const pcam_sim_target_config *cfg);
void simt_destroy(sim_target *t);
void simt_selected(pcam_sim *s, sim_target *t);
bool simt_msgout_byte(pcam_sim *s, sim_target *t, uint8_t b, bool atn);
uint32_t simt_cmd_need(const sim_target *t, uint8_t first);
void simt_cmd_byte(sim_target *t, uint8_t b);
uint32_t simt_data_avail(const sim_target *t);
uint8_t *simt_data_ptr(sim_target *t);
bool simt_data_pad(const sim_target *t, uint32_t n);
void simt_data_done(pcam_sim *s, sim_target *t, uint32_t n, bool parity);
uint8_t simt_status_byte(const sim_target *t);
uint8_t simt_status_pick(sim_target *t); /* the status byte to send now (the oracle may change it) */
bool simt_ask(const sim_target *t, pcam_sim_oracle_query *q, pcam_sim_decision what);
void simt_status_done(pcam_sim *s, sim_target *t);
uint8_t simt_msgin_peek(const sim_target *t);
void simt_msgin_ack(pcam_sim *s, sim_target *t, bool atn);
sim_next simt_next(pcam_sim *s, sim_target *t, bool atn);
void simt_atn_switch(sim_target *t);
void simt_bus_free(pcam_sim *s, sim_target *t);
bool simt_resel_ready(const sim_target *t, uint64_t *at);
uint8_t simt_reselect(pcam_sim *s, sim_target *t);
void simt_reset(pcam_sim *s, sim_target *t);
void simt_mech_done_held(pcam_sim *s, sim_target *t, sim_task *k);

/* ---- sim_msg.c: the message-in queue and MESSAGE OUT handling ---- */
void simm_msg1(sim_msg *m, uint8_t code, sim_msg_kind kind);
void simm_push(sim_conn *c, const sim_msg *m);
void simm_push_front(sim_conn *c, const sim_msg *m); /* only at a message boundary */
void simm_start_nego(pcam_sim *s, sim_target *t, uint8_t ext);
void simm_resolve_pending(pcam_sim *s, sim_target *t);
void simm_ua_all(sim_target *t, uint8_t asc, uint8_t ascq);

/* ---- sim_task.c: task sets and the mechanism ---- */
sim_task *simk_new(sim_target *t, uint8_t lun);
void simk_free(sim_target *t, sim_task *k);
void simk_drop(pcam_sim *s, sim_target *t, sim_task *k, pcam_sim_task_note why);
void simk_drop_lu(pcam_sim *s, sim_target *t, uint8_t lun);
void simk_drop_all(pcam_sim *s, sim_target *t);
unsigned simk_count(const sim_target *t, uint8_t lun);
sim_task *simk_find_tag(sim_target *t, uint8_t lun, uint8_t tag);
sim_task *simk_find_untagged(sim_target *t, uint8_t lun);
bool simk_mech_busy(const sim_target *t, uint8_t lun);
bool simk_others_waiting(const sim_target *t, uint8_t lun, const sim_task *self);
void simk_enqueue(pcam_sim *s, sim_target *t, sim_task *k);
void simk_kick(pcam_sim *s, sim_target *t, uint8_t lun);
uint64_t simk_next_time(const sim_target *t);
void simk_advance(pcam_sim *s, sim_target *t, uint64_t now);
void simk_finish_media(sim_target *t, sim_task *k);

/* ---- sim_nego.c: negotiation answers ---- */
/* Answer the initiator's SDTR/WDTR/PPR: true with *reply filled (a negotiation
 * message or MESSAGE REJECT), false to ignore it. Updates the agreement. */
bool simn_answer(sim_target *t, const pcam_msg *m, bool bus_wide, sim_msg *reply);
/* The initiator answered the target's own SDTR/WDTR; false means reject it. */
bool simn_take_answer(sim_target *t, uint8_t asked_ext, const pcam_msg *m);
/* Build the target's own WDTR / SDTR. */
void simn_build_init(const sim_target *t, uint8_t ext, bool bus_wide, sim_msg *out);
/* MESSAGE REJECT of a negotiation message the target sent. */
void simn_rejected(sim_target *t, uint8_t ext);
void simn_reset(sim_target *t);

/* ---- sim_trace.c ---- */
void sim_ring_push(pcam_sim *s, const pcam_sim_trace_entry *e);
void sim_vcd_set(pcam_sim *s, uint64_t t, unsigned sig, uint32_t value);
void sim_vcd_flush(pcam_sim *s, uint64_t upto);
void sim_vcd_drop_after(pcam_sim *s, uint64_t t);
void sim_trace_free(pcam_sim *s);
const char *sim_phase_name(pcam_phase p);

/* ---- sim_hal.c ---- */
void sim_log_line(pcam_sim *s, pcam_log_level level, const char *line);

#endif /* PCAM_SIM_INTERNAL_H */
