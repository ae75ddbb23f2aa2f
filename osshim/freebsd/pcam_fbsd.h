/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_fbsd.h
 * @brief The FreeBSD CAM SIM translator: CAM CCBs (our view of them,
 *        pcam_fbsd_cam.h) to and from pcam CCBs, one status table, and the
 *        core's async events as CAM async codes.
 *
 * Portable C99 with no FreeBSD header, so the same file runs in the kernel
 * module and in the userspace harness that replays CAM's call order
 * (tests/freebsd). It only translates: retries, recovery and queue policy
 * stay in the core and in CAM's peripheral drivers; the OS work (xpt_done,
 * xpt_freeze_devq, xpt_async, locks, DMA) is the caller's, through
 * ::pcam_fbsd_ops. Every entry point runs with the bus lock (the SIM mutex)
 * held, like every pcam entry point.
 */
#ifndef PCAM_FBSD_H
#define PCAM_FBSD_H

#include <stdbool.h>
#include <stdint.h>

#include "pcam/pcam.h"
#include "pcam_fbsd_cam.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most CAM_DATA_SG segments one request may carry. */
#define PCAM_FBSD_MAX_SEGS 64

/** One CAM request as the translator holds it while the core runs it. */
typedef struct pcam_fbsd_req {
    pcam_fbsd_ccb cc;          /**< The CAM view: filled by the caller, results written back. */
    void *os;                  /**< The caller's own pointer (the kernel's union ccb). */
    struct pcam_fbsd_sim *sim; /**< Set by pcam_fbsd_action(). */
    pcam_ccb pc;               /**< The pcam CCB it became (private). */
    pcam_ccb pc2;              /**< A second step (SET_TRAN after its GET_TRAN; private). */
    pcam_sg sg[PCAM_FBSD_MAX_SEGS]; /**< The S/G list handed to the core (private). */
} pcam_fbsd_req;

/** What the translator needs from its caller (the kernel glue or a test). */
typedef struct pcam_fbsd_ops {
    /** The request finished: copy the results back and call xpt_done(). */
    void (*done)(void *ctx, pcam_fbsd_req *r);
    /** xpt_freeze_devq(path, 1): called just before done() when the status carries CAM_DEV_QFRZN. */
    void (*freeze_devq)(void *ctx, pcam_fbsd_req *r);
    /**
     * xpt_async(code, path of target/lun, arg). @p cts is the new current
     * agreement for AC_TRANSFER_NEG, else NULL. target/lun may be the CAM
     * wildcards.
     */
    void (*async)(void *ctx, uint32_t code, uint32_t target, uint32_t lun, const pcam_fbsd_cts *cts);
    /**
     * Optional (NULL: not called). @p r is refused as a request CAM never
     * sends in normal operation: it completes, just after this call, with
     * @p cam_status CAM_REQ_INVALID, CAM_PATH_INVALID or CAM_REQ_TOO_BIG
     * (as the translator or the core decided) without reaching a target.
     * XPT_ABORT is not reported: an abort that finds nothing is an
     * ordinary race. For the caller's console line.
     */
    void (*refused)(void *ctx, const pcam_fbsd_req *r, uint32_t cam_status);
} pcam_fbsd_ops;

/** Identity fields path inquiry reports that the core does not know. */
typedef struct pcam_fbsd_ident {
    const char *sim_vid;  /**< e.g. "FreeBSD" */
    const char *hba_vid;  /**< e.g. "AMD" */
    const char *dev_name; /**< cam_sim_name(), e.g. "pcam" */
    uint32_t unit_number; /**< cam_sim_unit() */
    uint32_t bus_id;      /**< cam_sim_bus() */
    uint32_t maxio;       /**< Largest transfer the glue can map (0: the chip's limit). */
    uint16_t hba_vendor;  /**< PCI vendor ID. */
    uint16_t hba_device;  /**< PCI device ID. */
} pcam_fbsd_ident;

/** The translator's state for one SIM (one pcam bus). */
typedef struct pcam_fbsd_sim {
    pcam_bus *bus;                       /**< The core's bus. */
    pcam_fbsd_ops ops;                   /**< The caller's services. */
    void *ctx;                           /**< Passed to every op. */
    pcam_fbsd_ident id;                  /**< Copied at init (the strings are not). */
    pcam_ccb async_reg;                  /**< The core registration for async events. */
    pcam_ccb neg[PCAM_MAX_TARGETS];      /**< GET_TRAN for AC_TRANSFER_NEG, one per target. */
    bool neg_busy[PCAM_MAX_TARGETS];     /**< neg[] is with the core. */
    bool neg_again[PCAM_MAX_TARGETS];    /**< Another negotiation came while neg[] was out. */
} pcam_fbsd_sim;

/**
 * Attach the translator to a bus that pcam_bus_init() brought up, and
 * register for the core's async events.
 * @return 0, or -1 when an argument is missing or the core refused the registration.
 */
int pcam_fbsd_sim_init(pcam_fbsd_sim *s, pcam_bus *bus, const pcam_fbsd_ops *ops, void *ctx,
                       const pcam_fbsd_ident *id);

/**
 * The SIM action routine: translate @p r->cc and run it. ops->done runs
 * exactly once for it, possibly before this returns.
 */
void pcam_fbsd_action(pcam_fbsd_sim *s, pcam_fbsd_req *r);

/** The SIM poll routine (dump path: interrupts off): one pass of the core's poll. */
bool pcam_fbsd_poll(pcam_fbsd_sim *s);

/**
 * The one status table: a pcam status (flags ignored) as a cam_status code.
 * @param pcam_status a ::pcam_status. @return its CAM code; CAM_REQ_CMP_ERR for an unknown one.
 */
uint32_t pcam_fbsd_status(uint32_t pcam_status);

/** One pcam async code as its CAM ac_code (0 for one CAM has no code for). */
uint32_t pcam_fbsd_async_code(uint32_t pcam_code);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_FBSD_H */
