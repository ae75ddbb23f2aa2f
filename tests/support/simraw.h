/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * simraw: a tiny scripted initiator over the pcam_hal contract of the
 * simulated bus, for tests of hal/sim without the core.
 *
 * Two levels: one-call-one-event helpers (simraw_select, simraw_xfer,
 * simraw_msg_in, ...) for tests that check every event, and a small command
 * runner (simraw_start / simraw_serve / simraw_run) that follows phases the
 * way a simple initiator does: data with save/restore pointers, status,
 * messages (COMMAND COMPLETE, DISCONNECT, SAVE DATA POINTER, RESTORE
 * POINTERS, negotiation replies and target-initiated negotiation, MESSAGE
 * REJECT), reselection with IDENTIFY and tag, and the parity-error
 * answers (MESSAGE PARITY ERROR, INITIATOR DETECTED ERROR).
 */
#ifndef PCAM_TEST_SIMRAW_H
#define PCAM_TEST_SIMRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_sim.h"

#define SIMRAW_MAX_OUT 300

/* One command for the runner. Fill the first block, zero the rest. */
typedef struct simraw_cmd {
    uint8_t target, lun;
    bool disc;                  /* grant disconnect privilege */
    uint8_t tag_type;           /* 0 untagged, else PCAM_MSG_SIMPLE_TAG / ORDERED / HEAD_OF_QUEUE */
    uint8_t tag;
    const uint8_t *extra_msg;   /* appended after IDENTIFY (+ tag) in selection, e.g. SDTR */
    uint8_t extra_len;
    const uint8_t *cdb;
    uint8_t cdb_len;
    uint8_t *buf;               /* data buffer */
    uint32_t len;
    /* results */
    uint32_t ptr, saved;        /* data pointer and saved pointer */
    int status;                 /* -1 until a status byte arrives */
    bool done;                  /* COMMAND COMPLETE accepted */
    bool disconnected;          /* now disconnected, waiting for reselection */
    bool failed;                /* ended without COMMAND COMPLETE */
    int disconnects, reselections, rejects, parity_errors;
    uint64_t done_ns;           /* simulated time of the BUS FREE after COMMAND COMPLETE */
    uint8_t msgs[32];           /* first byte of every message received */
    int nmsgs;
    int end_event;              /* event that ended the command if failed */
} simraw_cmd;

typedef struct simraw {
    pcam_sim *sim;
    pcam_hal hal;
    pcam_hal_event ev;          /* the last event */
    uint64_t wait_limit_ns;     /* simraw_wait gives up after this much simulated time (default 10 s) */
    simraw_cmd *out[SIMRAW_MAX_OUT]; /* disconnected commands */
    int nout;
    int unknown_reselections;   /* reselections with no matching command (aborted) */
    bool reject_target_nego;    /* answer target-initiated SDTR/WDTR with MESSAGE REJECT */
    bool no_parity_recovery;    /* do not answer parity errors (test the raw events) */
    uint8_t nego_ext;           /* extended code of the negotiation we sent, awaiting reply */
    int gross_errors;
} simraw;

void simraw_init(simraw *r, pcam_sim *sim);

/* Advance simulated time until an event is pending and poll it into r->ev.
 * Returns its type, or PCAM_HAL_EV_NONE if nothing comes within the limit. */
int simraw_wait(simraw *r);

/* One action, then wait for its event (returns the event type). */
int simraw_select(simraw *r, uint8_t target, bool atn, const uint8_t *msg, uint8_t msg_len,
                  const uint8_t *cdb, uint8_t cdb_len);
int simraw_xfer(simraw *r, pcam_phase phase, void *buf, uint32_t offset, uint32_t len);
int simraw_msg_in(simraw *r);
int simraw_accept(simraw *r, bool atn);
int simraw_msg_out(simraw *r, const uint8_t *msg, size_t len);

/* Build the selection messages of a command into msg (IDENTIFY, tag, extra). */
uint8_t simraw_build_msgs(const simraw_cmd *c, uint8_t *msg, size_t cap);

/* Select and follow phases until the bus is free (disconnect or complete).
 * Reselections that win over the select are served first. 0 or -1. */
int simraw_start(simraw *r, simraw_cmd *c);
/* Wait for one reselection and serve it: 1 served, 0 nothing came, -1 error. */
int simraw_serve(simraw *r);
/* Serve until no command is disconnected; returns commands served or -1. */
int simraw_drain(simraw *r);
/* simraw_start then serve until this command is done; 0 or -1. */
int simraw_run(simraw *r, simraw_cmd *c);

/* Convenience: a whole untagged command on LUN 0 without disconnect privilege. */
int simraw_simple(simraw *r, uint8_t target, const uint8_t *cdb, uint8_t cdb_len, uint8_t *buf,
                  uint32_t len, simraw_cmd *out);

/* Fill a command for the runner (everything else zero). */
void simraw_cmd_init(simraw_cmd *c, uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len,
                     uint8_t *buf, uint32_t len);

/* Put a disk LU on the bus (adding the target with `tc` if it is not there;
 * NULL: defaults with no power-on UNIT ATTENTION), `blocks` blocks of 512
 * bytes filled with simraw_pattern(); its mechanism timing is all zero but
 * the controller overhead, so every media command takes exactly
 * `overhead_ns`. Returns the medium (malloc'd; the caller frees it). */
uint8_t *simraw_add_disk(pcam_sim *sim, uint8_t id, uint8_t lun, const pcam_sim_target_config *tc,
                         uint32_t blocks, uint64_t overhead_ns);
uint8_t simraw_pattern(uint8_t id, uint8_t lun, uint32_t offset);

/* Fixed-format sense of the LU through REQUEST SENSE (untagged, LUN 0..7). */
int simraw_sense(simraw *r, uint8_t target, uint8_t lun, uint8_t sense[18]);

#endif /* PCAM_TEST_SIMRAW_H */
