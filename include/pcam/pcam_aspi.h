/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_aspi.h
 * @brief Binding of the ASPI for Win32 layer (aspi/, header wnaspi32.h):
 *        how an embedder turns pcam buses into ASPI host adapters.
 *
 * The ASPI exports (SendASPI32Command() and friends) take no context, so the
 * layer keeps one global manager: pcam_aspi_init() sets it up with the
 * host services (buffers, event signalling, optional global lock), and
 * pcam_aspi_add_adapter() makes each pcam bus one host adapter, numbered
 * from 0 in the order added. Register every adapter before clients run and
 * call pcam_aspi_shutdown() only after they stopped.
 *
 * Locking and progress. The layer never runs the bus itself: the embedder
 * does (interrupt, timer tick, polled loop, or the simulated time of
 * hal/sim), holding the adapter's lock around every core entry point, the
 * same lock this layer takes through pcam_aspi_adapter_ops::lock. When a
 * synchronous command must wait for the bus (a rescan, an abort), the layer
 * calls pcam_aspi_adapter_ops::wait in a loop with the lock held; the
 * embedder either runs the bus there (polled) or sleeps until its own
 * service context has run it (threaded). The layer wakes waiters through
 * pcam_aspi_adapter_ops::wake whenever a request it tracks changes state.
 *
 * Notification. Completions arrive inside the core with the lock held;
 * calling a client's posting routine there would deadlock the first client
 * that submits from it. So completions are queued, and
 * pcam_aspi_deliver() runs them without the lock: the embedder calls it
 * after every time it ran the bus and released the lock (the layer also
 * calls it itself on its own paths). Each queued notification is run by
 * exactly one caller.
 */
#ifndef PCAM_ASPI_H
#define PCAM_ASPI_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "pcam.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most host adapters the manager keeps (HaId 0..7). */
#define PCAM_ASPI_MAX_ADAPTERS 8
/** Most GetASPI32Buffer buffers outstanding at once. */
#define PCAM_ASPI_MAX_BUFFERS 32
/** Longest GetASPI32Buffer buffer (512 KiB). */
#define PCAM_ASPI_BUFFER_MAX (512u * 1024u)
/** Alignment of GetASPI32Buffer buffers (a page: enough for any adapter's DMA). */
#define PCAM_ASPI_BUFFER_ALIGN 4096u
/** LUNs per target whose timeouts SC_GETSET_TIMEOUTS keeps. */
#define PCAM_ASPI_TIMEOUT_LUNS 8
/** Longest timeout SC_GETSET_TIMEOUTS accepts, in seconds (30 hours). */
#define PCAM_ASPI_TIMEOUT_MAX_S 108000u

/** Services of the manager as a whole. Entries marked optional may be NULL. */
typedef struct pcam_aspi_host {
    /** Passed back to every call. */
    void *ctx;
    /** Optional: serialise the buffer table between threads. @param ctx pcam_aspi_host::ctx. */
    void (*lock)(void *ctx);
    /** Optional: release pcam_aspi_host::lock. @param ctx pcam_aspi_host::ctx. */
    void (*unlock)(void *ctx);
    /**
     * Optional: memory for GetASPI32Buffer (without it that call fails).
     * @param ctx pcam_aspi_host::ctx. @param len bytes (1..#PCAM_ASPI_BUFFER_MAX).
     * @param align power of two the address must be a multiple of.
     * @return the memory, or NULL.
     */
    void *(*buf_alloc)(void *ctx, size_t len, size_t align);
    /** Optional: give back buf_alloc memory. @param ctx pcam_aspi_host::ctx.
     *  @param p the memory. @param len its length as allocated. */
    void (*buf_free)(void *ctx, void *p, size_t len);
    /**
     * Signal the event whose handle an SRB with SRB_EVENT_NOTIFY carries in
     * SRB_PostProc. The handle is the host's business: the layer copies it
     * at submission and hands it back here, never reading through it (on
     * Win32 it is a HANDLE for SetEvent, a small number rather than an
     * address; a test host may use its own objects). Called without any
     * lock, exactly once per such SRB. Optional: without it the layer
     * refuses SRB_EVENT_NOTIFY requests with SS_INVALID_SRB instead of
     * accepting requests whose client would wait forever.
     * @param ctx pcam_aspi_host::ctx. @param event the handle.
     */
    void (*signal_event)(void *ctx, void *event);
    /**
     * Optional: take the host's own reference to an SRB_EVENT_NOTIFY
     * handle before the request's status can be final (in the client's
     * thread, inside SendASPI32Command, possibly with the adapter's lock
     * held: it must not call into the layer). signal_event then gets what
     * this returned,
     * signals it and releases it. A client may close its handle as soon as
     * it sees SRB_Status final, and its next event may get the same handle
     * number: without a reference of the host's own, the signal that
     * follows the final status could hit a closed handle or wake a later
     * request (issue 41; on Win32 this is DuplicateHandle). NULL: the
     * handle names no event and nothing is signalled. Without this entry
     * signal_event gets the client's handle itself.
     * @param ctx pcam_aspi_host::ctx. @param event the client's handle.
     * @return the reference for signal_event, or NULL.
     */
    void *(*hold_event)(void *ctx, void *event);
    /**
     * Optional: TranslateASPI32Address (Win9x devnodes). Without it the
     * call answers FALSE. @param ctx pcam_aspi_host::ctx.
     * @param path the path DWORD, in or out. @param devnode the devnode, in or out.
     * @return true when translated.
     */
    bool (*translate)(void *ctx, uint32_t *path, uint32_t *devnode);
} pcam_aspi_host;

/** SC_GET_DISK_INFO answer an embedder may give (BIOS mapping). */
typedef struct pcam_aspi_disk_info {
    uint8_t drive_flags; /**< DISK_* value of wnaspi32.h. */
    uint8_t int13_drive; /**< BIOS drive number. */
    uint8_t heads;       /**< Translated heads. */
    uint8_t sectors;     /**< Translated sectors per track. */
} pcam_aspi_disk_info;

/** Services of one adapter. lock, unlock and wait are required. */
typedef struct pcam_aspi_adapter_ops {
    /** Take the bus lock (the one held around every core entry point). @param ctx the adapter's context. */
    void (*lock)(void *ctx);
    /** Release it. @param ctx the adapter's context. */
    void (*unlock)(void *ctx);
    /**
     * Called with the lock held while the layer waits for the bus. Let the
     * bus make progress, then return with the lock held: run it here
     * (polled), or release the lock and sleep until the service context ran
     * it or pcam_aspi_adapter_ops::wake was called. Returning without either
     * would spin. @param ctx the adapter's context.
     */
    void (*wait)(void *ctx);
    /** Optional: called with the lock held when a tracked request changed
     *  state; wakes threads sleeping in wait. @param ctx the adapter's context. */
    void (*wake)(void *ctx);
    /** Optional: called with the lock held after the layer gave the core new
     *  work (a service thread may be asleep). @param ctx the adapter's context. */
    void (*kick)(void *ctx);
    /**
     * Optional: SC_GET_DISK_INFO for a present direct-access LUN, called
     * without the lock. Without it such a disk is DISK_NOT_INT13 with no
     * geometry. @param ctx the adapter's context. @param target target ID.
     * @param lun LUN. @param out the answer. @return true when filled.
     */
    bool (*disk_info)(void *ctx, uint8_t target, uint8_t lun, pcam_aspi_disk_info *out);
    /**
     * Optional: called with the lock held; whether the calling thread may
     * run queued notifications itself. The layer delivers on its own paths
     * (after a submission, while a synchronous command waits) only when
     * this is NULL or answers true. A host whose posting routines must
     * always run on its own worker thread, as real ASPI managers call them,
     * answers true only there; its worker then delivers whenever the queue
     * is not empty (pcam_aspi_adapter_ops::wake tells it so).
     * Refusals made before a request slot is taken are still notified at
     * once, on the caller's thread. @param ctx the adapter's context.
     */
    bool (*may_deliver)(void *ctx);
} pcam_aspi_adapter_ops;

struct pcam_aspi_adapter;

/** One request slot: an SRB in flight and its CCB. Storage only; fields are private. */
typedef struct pcam_aspi_req {
    pcam_ccb ccb;                    /**< The CCB handed to the core. */
    struct pcam_aspi_adapter *ad;    /**< Owner. */
    struct pcam_aspi_req *next;      /**< Notification queue link. */
    void *srb;                       /**< The client's SRB while it is ours. */
    void *post;                      /**< Posting routine or event, copied at submission. */
    uint32_t gen;                    /**< Bumped each time the slot is freed. */
    uint32_t buflen;                 /**< SRB_BufLen as submitted (for the residual). */
    uint8_t state;                   /**< Free, in the core, queued for notification, notifying. */
    uint8_t cmd;                     /**< SC_EXEC_SCSI_CMD or SC_RESET_DEV. */
    uint8_t notify;                  /**< None, posting or event. */
    uint8_t residual;                /**< Report the residual in SRB_BufLen. */
} pcam_aspi_req;

/** One host adapter. Storage only; fields are private. */
typedef struct pcam_aspi_adapter {
    pcam_bus *bus;                   /**< The bus. */
    pcam_aspi_adapter_ops ops;       /**< Copied at registration. */
    void *ctx;                       /**< Passed to ops. */
    pcam_aspi_req *reqs;             /**< Request slots. */
    size_t nreqs;                    /**< Their number. */
    pcam_aspi_req *nq_head;          /**< Completed, waiting for notification. */
    pcam_aspi_req *nq_tail;          /**< Its tail. */
    pcam_pathinq pathinq;            /**< Path inquiry taken at registration. */
    uint32_t timeout_s[PCAM_MAX_TARGETS][PCAM_ASPI_TIMEOUT_LUNS]; /**< SC_GETSET_TIMEOUTS (0: bus default). */
    uint8_t ha_id;                   /**< Its HaId. */
} pcam_aspi_adapter;

/**
 * Set up the manager (again): forget every adapter and buffer.
 * @param host services, copied; NULL for none.
 * @return PCAM_OK, or PCAM_ERR_NULL when exactly one of lock/unlock or of
 *         buf_alloc/buf_free is given.
 */
pcam_err pcam_aspi_init(const pcam_aspi_host *host);

/** Stop the manager: later calls answer SS_NO_ASPI / SS_FAILED_INIT. Buffers
 *  still out are freed. Adapters must be idle. */
void pcam_aspi_shutdown(void);

/**
 * Make a bus the next host adapter. Scan the bus first (PCAM_FN_SCAN_BUS)
 * or let clients send SC_RESCAN_SCSI_BUS: SC_GET_DEV_TYPE reads the device
 * table as the last scan left it.
 * @param ad storage for the adapter, overwritten.
 * @param bus an initialised bus.
 * @param ops its services (copied); lock, unlock and wait are required.
 * @param ctx passed to @p ops.
 * @param reqs request slots: one per SRB that may be in flight at once.
 * @param nreqs their number (at least 1).
 * @param ha_id receives the HaId; may be NULL.
 * @return PCAM_OK; #PCAM_ERR_ABI (nothing written) when this program was
 *         built with other configuration switches than the library;
 *         PCAM_ERR_NULL; PCAM_ERR_RANGE when @p nreqs is 0, the
 *         manager is not initialised, or #PCAM_ASPI_MAX_ADAPTERS are registered.
 */
static inline pcam_err pcam_aspi_add_adapter(pcam_aspi_adapter *ad, pcam_bus *bus,
                                             const pcam_aspi_adapter_ops *ops, void *ctx,
                                             pcam_aspi_req *reqs, size_t nreqs, uint8_t *ha_id);

/**
 * pcam_aspi_add_adapter() with the caller's view of the storage (see
 * ::pcam_abi); call pcam_aspi_add_adapter(), which passes it.
 * @param abi          the caller's #PCAM_ABI_INITIALIZER.
 * @param adapter_size the caller's sizeof(pcam_aspi_adapter), which
 *                     #PCAM_CFG_MAX_TARGETS changes.
 * @param req_size     the caller's sizeof(pcam_aspi_req).
 * @param ad see pcam_aspi_add_adapter(). @param bus see there.
 * @param ops see there. @param ctx see there. @param reqs see there.
 * @param nreqs see there. @param ha_id see there.
 * @return as pcam_aspi_add_adapter(); #PCAM_ERR_ABI, with nothing written,
 *         when any of the three differs from the library's.
 */
pcam_err pcam_aspi_add_adapter_abi(const pcam_abi *abi, size_t adapter_size, size_t req_size,
                                   pcam_aspi_adapter *ad, pcam_bus *bus,
                                   const pcam_aspi_adapter_ops *ops, void *ctx,
                                   pcam_aspi_req *reqs, size_t nreqs, uint8_t *ha_id);

static inline pcam_err pcam_aspi_add_adapter(pcam_aspi_adapter *ad, pcam_bus *bus,
                                             const pcam_aspi_adapter_ops *ops, void *ctx,
                                             pcam_aspi_req *reqs, size_t nreqs, uint8_t *ha_id)
{
    const pcam_abi mine = PCAM_ABI_INITIALIZER;
    return pcam_aspi_add_adapter_abi(&mine, sizeof(pcam_aspi_adapter), sizeof(pcam_aspi_req), ad,
                                     bus, ops, ctx, reqs, nreqs, ha_id);
}

/**
 * Run queued notifications (posting routines, events), without the lock.
 * @param ad the adapter.
 * @return how many were run.
 */
size_t pcam_aspi_deliver(pcam_aspi_adapter *ad);

/**
 * Requests of an adapter not yet finished (in the core, or not yet
 * notified). Takes the lock. @param ad the adapter.
 * @return the count.
 */
size_t pcam_aspi_in_flight(pcam_aspi_adapter *ad);

/**
 * The one table from CAM status to ASPI status (docs/design.md rule 2).
 * @param cam_status a pcam_ccb::status (flags are ignored).
 * @param ss receives the SS_* value.
 * @param hastat receives the HASTAT_* value.
 */
void pcam_aspi_map_status(uint32_t cam_status, uint8_t *ss, uint8_t *hastat);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_ASPI_H */
