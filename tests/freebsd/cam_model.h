/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A stand-in for the parts of FreeBSD's CAM that sit around a SIM, so the
 * translator can be driven the way CAM drives it: xpt_action() with the
 * per-device queue and its freeze count (CCBs sent to a frozen device wait
 * in xpt, XPT_REL_SIMQ is xpt's own and releases them), xpt_done() as a
 * queue drained after the SIM returns, the SIM's xpt_freeze_devq() and
 * xpt_async() calls recorded, and the part of cam_periph_error() every
 * peripheral runs: a CAM_REQUEUE_REQ goes back through xpt_action() and
 * every CAM_DEV_QFRZN is released once the peripheral has seen it.
 * The behaviour is read from FreeBSD's cam_xpt.c (xpt_done_process,
 * xpt_action_default) and cam_periph.c (cam_periph_error); none of its
 * code is used. The bus below is stepped by the test (hal/sim or QEMU).
 */
#ifndef CAM_MODEL_H
#define CAM_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "pcam/pcam.h"
#include "pcam_fbsd.h"

#define CM_TARGETS 16
#define CM_LUNS 8
#define CM_EVENTS 64

/* One CCB as a peripheral owns it. */
typedef struct cm_req {
    pcam_fbsd_req r;        /* first: the translator's request */
    struct cm_req *next;    /* xpt queue link (done queue or a device queue) */
    unsigned sim_done;      /* times the SIM completed it (xpt_done calls) */
    unsigned requeued;      /* CAM_REQUEUE_REQ completions sent back through xpt */
    bool finished;          /* the peripheral has its final status */
    uint32_t status;        /* that status (with CAM_DEV_QFRZN / CAM_AUTOSNS_VALID as the SIM set them) */
    uint32_t order;         /* completion order of the final status (1, 2, ...) */
} cm_req;

typedef struct cm_dev {
    uint32_t frozen;        /* xpt's devq freeze count */
    cm_req *head, *tail;    /* CCBs xpt holds while frozen */
} cm_dev;

typedef struct cm_event {
    uint32_t code, target, lun;
    bool has_cts;
    pcam_fbsd_cts cts;
} cm_event;

typedef struct cam_model {
    pcam_bus *bus;
    pcam_fbsd_sim sim;
    cm_dev dev[CM_TARGETS][CM_LUNS];
    cm_req *done_head, *done_tail;
    cm_event ev[CM_EVENTS];
    unsigned nev;
    unsigned freezes;       /* xpt_freeze_devq calls by the SIM */
    unsigned releases;      /* devq releases by peripherals */
    unsigned sim_actions;   /* CCBs xpt handed to the SIM's action routine */
    uint32_t completions;   /* final completions so far */
    unsigned refusals;      /* the SIM's refused() calls (the glue's console line) */
    uint32_t refused_status, refused_func; /* the last one's CAM status and function */
    bool refused_before_done; /* every refused() came before that CCB's done */
    bool manual_release;    /* the test releases frozen queues itself (cm_release) */
    /* How the bus moves: one step; false when nothing at all can happen. */
    bool (*step)(void *ctx);
    void *step_ctx;
    uint64_t (*now_ns)(void *ctx);
} cam_model;

/* Attach the translator to an initialised bus. */
void cm_init(cam_model *m, pcam_bus *bus, bool (*step)(void *), uint64_t (*now_ns)(void *), void *ctx);

/* xpt_action(): device-queued CCBs wait while their device is frozen. */
void cm_action(cam_model *m, cm_req *q);
/* The xpt_done() queue, as CAM's done thread drains it (outside the SIM). */
void cm_drain(cam_model *m);
/* XPT_REL_SIMQ as xpt handles it: drop n freezes, run the queue at zero. */
void cm_release(cam_model *m, uint32_t target, uint32_t lun, uint32_t n);
/* Step and drain until q is finished (or `ms` of bus time passes). */
bool cm_wait(cam_model *m, const cm_req *q, uint32_t ms);
/* Step and drain until every request is finished. */
bool cm_wait_all(cam_model *m, cm_req *const *qs, unsigned n, uint32_t ms);
/* cm_action + cm_wait; returns the final status, 0xFFFFFFFF if none came. */
uint32_t cm_sync(cam_model *m, cm_req *q, uint32_t ms);

/* CCB builders, filled as FreeBSD's cam_fill_csio() and friends leave them. */
void cm_csio(cm_req *q, uint32_t target, uint32_t lun, const uint8_t *cdb, uint8_t cdb_len,
             uint32_t flags, void *data, uint32_t dxfer_len, uint8_t tag_action, uint32_t timeout_ms);
void cm_func(cm_req *q, uint32_t func, uint32_t target, uint32_t lun);

/* The n-th recorded async event with this code (0 = first), or NULL. */
const cm_event *cm_event_find(const cam_model *m, uint32_t code, unsigned n);
unsigned cm_event_count(const cam_model *m, uint32_t code);

/* CDBs (SPC/SBC layouts, big-endian fields). */
void cm_cdb_inquiry(uint8_t *c, uint8_t alloc);
void cm_cdb_rw10(uint8_t *c, bool write, uint32_t lba, uint16_t blocks);
void cm_cdb_readcap10(uint8_t *c);
void cm_cdb_report_luns(uint8_t *c, uint32_t alloc);

#endif /* CAM_MODEL_H */
