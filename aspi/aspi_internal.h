/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to aspi/: the manager's global state and the helpers the
 * command files share.
 */
#ifndef PCAM_ASPI_INTERNAL_H
#define PCAM_ASPI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pcam/pcam_aspi.h"
#include "wnaspi32.h"

/* Request slot states. */
enum { REQ_FREE = 0, REQ_CORE = 1, REQ_QUEUED = 2, REQ_NOTIFYING = 3 };
/* How a request is notified. */
enum { NOTIFY_NONE = 0, NOTIFY_POST = 1, NOTIFY_EVENT = 2 };

typedef struct aspi_buf {
    void *p;
    size_t len;
} aspi_buf;

typedef struct aspi_mgr {
    bool up;
    pcam_aspi_host host;
    pcam_aspi_adapter *ad[PCAM_ASPI_MAX_ADAPTERS];
    uint8_t count;
    aspi_buf bufs[PCAM_ASPI_MAX_BUFFERS];
} aspi_mgr;

extern aspi_mgr pcam_aspi_mgr;

/* The adapter for a HaId, or NULL. */
pcam_aspi_adapter *pcam_aspi_adapter_for(uint8_t ha_id);

/* Store a final SRB_Status: everything written before it is visible
 * first to a thread that sees the new status (release ordering). */
static inline void aspi_store_status(BYTE *status, BYTE value)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(status, value, __ATOMIC_RELEASE);
#else
    *(volatile BYTE *)status = value;
#endif
}

/* With the lock held: whether this thread may run notifications itself
 * (pcam_aspi_adapter_ops::may_deliver). */
static inline bool pcam_aspi_may_deliver(pcam_aspi_adapter *ad)
{
    return ad->ops.may_deliver == NULL || ad->ops.may_deliver(ad->ctx);
}

/* Run one client notification. */
void pcam_aspi_notify(uint8_t mode, void *post, void *srb);

/* Wait, with the adapter lock held, until done(arg) holds; delivers queued
 * notifications itself while it waits. */
void pcam_aspi_wait_until(pcam_aspi_adapter *ad, bool (*done)(void *arg), void *arg);

/* Submit a synchronous-function CCB (built by the caller) and wait for its
 * completion; returns its status. The caller holds the lock. */
uint32_t pcam_aspi_run_ccb(pcam_aspi_adapter *ad, pcam_ccb *ccb);

/* Commands (aspi_exec.c): the SRB is known to be at least the size of its
 * kind; they return what SendASPI32Command returns. */
DWORD pcam_aspi_exec(SRB_ExecSCSICmd *srb);
DWORD pcam_aspi_reset_dev(SRB_BusDeviceReset *srb);
DWORD pcam_aspi_abort(SRB_Abort *srb);

#endif /* PCAM_ASPI_INTERNAL_H */
