/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to the simulated command-level adapter (sim_cmdlevel.c: state,
 * selection, reporting and the ops; sim_cmdlevel_bus.c: what happens on the
 * bus once connected).
 */
#ifndef PCAM_SIM_CMDLEVEL_H
#define PCAM_SIM_CMDLEVEL_H

#include <stdlib.h>
#include <string.h>

#include "pcam_sim.h"
#include "pcam/pcam.h"
#include "pcam/pcam_msg.h"

#define SC_MSG 16

enum { SL_FREE = 0, SL_QUEUED, SL_ACTIVE, SL_DISC };
enum { CN_IDLE = 0, CN_SELECTING, CN_CONNECTED, CN_RESETTING };
enum { SK_CMD = 0, SK_ABORT, SK_RESET };
enum { EX_NONE = 0, EX_COMPLETE, EX_DISC, EX_ABORT };
enum { XK_DATA = 0, XK_CMD, XK_STATUS, XK_BUCKET };

typedef struct sc_slot {
    uint8_t state;
    pcam_hal_cmd cmd;     /* the core's descriptor; cmd.cdb points at cdb */
    uint8_t cdb[16];
    pcam_sg flat;         /* the flat buffer as a one-element list */
    pcam_sg sense_sg;     /* where our own REQUEST SENSE lands */
    uint32_t ptr, saved;  /* data pointer and saved pointer */
    uint8_t cdb_sent;
    uint8_t status;
    bool untagged_wire;   /* the target rejected its tag */
    bool sensing;         /* running our own REQUEST SENSE after CHECK CONDITION */
    uint8_t sense_cdb[6];
    uint8_t orig_status;
    uint32_t orig_resid;
    uint32_t err;         /* transport failure to report, 0 = none */
    bool abort_req;
    uint32_t seq;         /* FIFO order; 0 = ahead of everything */
} sc_slot;

struct pcam_simcmd {
    pcam_sim *sim;
    struct pcam_bus *bus;
    pcam_simcmd_config cfg;
    sc_slot *slots;
    uint32_t next_seq;
    uint8_t conn;
    int cur;              /* connected slot, -1 none */
    bool refused;         /* this connection: the target rejected our abort or reset message */
    bool stray;           /* this reselection named a tag we do not have: whatever the target
                             does next is not one of ours, even if it never sends a tag again */
    uint8_t t, l;         /* connected target and LUN */
    uint8_t sel_kind;
    int sel_slot;
    uint8_t sel_msg[SC_MSG];
    uint8_t sel_len, tag_end, nego_end; /* message layout of the selection */
    bool nego_pending;    /* our negotiation message awaits its answer */
    uint8_t last_msg;     /* first byte of the last message that went out */
    uint8_t msgout[SC_MSG];
    uint8_t msgout_len;
    uint8_t msgin[SC_MSG];
    uint8_t msgin_len;
    uint8_t expect;
    uint8_t xk;
    uint8_t scratch[4];
    pcam_sg scratch_sg, cmd_sg;
    bool reset_pending, rs_lun;
    uint8_t rs_t, rs_l;
    pcam_simcmd_stats st;
};

/* sim_cmdlevel.c */
void sc_accept(pcam_simcmd *a, bool atn);
void sc_queue_out(pcam_simcmd *a, const uint8_t *m, size_t n);
void sc_abandon(pcam_simcmd *a, uint8_t msg);
void sc_xfer(pcam_simcmd *a, pcam_phase ph, uint8_t kind, const pcam_sg *sg, uint16_t n,
             uint32_t off, uint32_t len);
void sc_bucket(pcam_simcmd *a, pcam_phase ph);
bool sc_is_tag_msg(uint8_t b);
bool sc_wire_tagged(const sc_slot *s);
void sc_report(pcam_simcmd *a, int i, const pcam_hal_cmd_result *r);
void sc_report_status(pcam_simcmd *a, int i, uint32_t status);
void sc_finish_slot(pcam_simcmd *a, int i);
void sc_note_sel_msgs(pcam_simcmd *a, uint32_t count);
/* sim_cmdlevel_bus.c */
void sc_on_event(pcam_simcmd *a, const pcam_hal_event *ev);

#endif /* PCAM_SIM_CMDLEVEL_H */
