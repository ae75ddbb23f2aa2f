/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SendASPI32Command with arbitrary SRB bytes over a simulated bus: a disk
 * at ID 0, a CD-ROM at ID 4, nothing elsewhere; the chip takes at most
 * 4096 bytes per command and wants word-aligned buffers. A polled host with
 * no-op locks that count their depth (a double lock or an unlock without a
 * lock aborts) and a wait that runs the bus (waiting when nothing can run
 * aborts: the layer would spin forever).
 *
 * Input: a sequence of operations, each one selector byte then its bytes:
 *   0 s n <n bytes>  copy n bytes over pool SRB s (s % 4), then patch:
 *                    the byte after the copy picks SRB_BufPointer (bits 0-1:
 *                    none, aligned, odd, even offset), PostProc (bit 3: NULL,
 *                    else what the flags ask for) and SRB_ToAbort (bit 2:
 *                    NULL, bits 5-6: pool SRB) from harness objects, so every
 *                    pointer is valid memory with its size, and send it
 *   1 k              run the bus k steps, delivering notifications
 *   2 s              abort pool SRB s
 *   3                deliver notifications
 * After the input: drain until idle. Checks: every request completed and
 * was notified at most once per submission, nothing left in flight, the
 * core's invariants hold, and the sanitizers see no bad access.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_aspi.h"
#include "pcam_sim.h"
#include "wnaspi32.h"

#define POOL 4
#define SRB_BYTES (0x50 + 256)
#define DATA_BYTES (4096 + 16)

typedef struct fz {
    pcam_sim *sim;
    pcam_bus bus;
    pcam_lun *luns;
    pcam_aspi_adapter ad;
    pcam_aspi_req reqs[3];
    int lock_depth;
    uint8_t store[64 * 512];
    uint64_t srb_words[POOL][SRB_BYTES / 8];   /* 8-byte aligned storage */
    uint64_t data_words[POOL][DATA_BYTES / 8];
    unsigned posted[POOL], signalled[POOL], asked[POOL];
    unsigned events[POOL];
} fz;

static fz *F;

#define SRB(s) ((uint8_t *)F->srb_words[s])
#define DATA(s) ((uint8_t *)F->data_words[s])

static void die(void)
{
    abort();
}

static void op_lock(void *ctx)
{
    (void)ctx;
    if (F->lock_depth++ != 0)
        die();
}

static void op_unlock(void *ctx)
{
    (void)ctx;
    if (--F->lock_depth != 0)
        die();
}

static bool step(void)
{
    if (pcam_sim_event_pending(F->sim)) {
        pcam_bus_intr(&F->bus);
        return true;
    }
    uint64_t now = pcam_sim_now(F->sim);
    uint64_t t = pcam_sim_next_time(F->sim);
    uint64_t d = pcam_bus_next_deadline(&F->bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        return false;
    if (t < now)
        t = now;
    pcam_sim_advance(F->sim, t);
    if (d <= t)
        pcam_bus_tick(&F->bus);
    return true;
}

static void op_wait(void *ctx)
{
    (void)ctx;
    if (F->lock_depth != 1)
        die();
    if (!step())
        die(); /* waiting for something that can never happen */
}

static const pcam_aspi_adapter_ops ops = {op_lock, op_unlock, op_wait, NULL, NULL, NULL, NULL};

static int pool_index(const void *p)
{
    for (int i = 0; i < POOL; i++)
        if (p == SRB(i) || p == &F->events[i])
            return i;
    return -1;
}

static void post(void *srb)
{
    int i = pool_index(srb);
    if (i < 0 || F->lock_depth != 0)
        die(); /* posting with a foreign pointer, or under the lock */
    F->posted[i]++;
}

static void signal_event(void *ctx, void *event)
{
    (void)ctx;
    int i = pool_index(event);
    if (i < 0 || F->lock_depth != 0)
        die();
    F->signalled[i]++;
}

static void *buf_alloc(void *ctx, size_t len, size_t align)
{
    (void)ctx;
    void *p = NULL;
    return posix_memalign(&p, align, len) == 0 ? p : NULL;
}

static void buf_free(void *ctx, void *p, size_t len)
{
    (void)ctx;
    (void)len;
    free(p);
}

static void scan_done(pcam_ccb *ccb)
{
    *(bool *)ccb->user = true;
}

static bool bring_up(void)
{
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    sc.cap_max_xfer = 4096;
    sc.cap_align_mask = 1;
    sc.trace_entries = 0;
    F->sim = pcam_sim_create(&sc);
    if (F->sim == NULL)
        return false;
    pcam_hal hal;
    pcam_platform plat;
    pcam_bus_config cfg;
    pcam_bus_config_defaults(&cfg);
    pcam_sim_get_hal(F->sim, &hal);
    pcam_sim_get_platform(F->sim, &plat);
    size_t n = PCAM_BUS_LUNS(8, cfg.luns_per_target);
    F->luns = calloc(n, sizeof *F->luns);
    if (F->luns == NULL || pcam_bus_init(&F->bus, &cfg, &hal, &plat, F->luns, n) != PCAM_OK)
        return false;
    if (pcam_sim_add_target(F->sim, 0, NULL) != 0 || pcam_sim_add_target(F->sim, 4, NULL) != 0)
        return false;
    pcam_simlu_init_disk(pcam_sim_lu(F->sim, 0, 0), F->store, 64, 512, "PCAMSIM", "DISK", "F0");
    pcam_simlu_init_cdrom(pcam_sim_lu(F->sim, 4, 0), NULL, 0, "PCAMSIM", "CDROM");
    pcam_ccb scan;
    bool done = false;
    memset(&scan, 0, sizeof scan);
    scan.func = PCAM_FN_SCAN_BUS;
    scan.done = scan_done;
    scan.user = &done;
    pcam_action(&F->bus, &scan);
    while (!done && step())
        ;
    pcam_aspi_host host;
    memset(&host, 0, sizeof host);
    host.buf_alloc = buf_alloc;
    host.buf_free = buf_free;
    host.signal_event = signal_event;
    if (!done || pcam_aspi_init(&host) != PCAM_OK)
        return false;
    return pcam_aspi_add_adapter(&F->ad, &F->bus, &ops, F, F->reqs, 3, NULL) == PCAM_OK;
}

static void run_steps(unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        op_lock(F);
        bool did = step();
        op_unlock(F);
        pcam_aspi_deliver(&F->ad);
        if (!did)
            break;
    }
}

/* Point the SRB's pointer fields at harness objects, as `pick` says. */
static void patch(int s, uint8_t pick)
{
    SRB_Header *h = (SRB_Header *)SRB(s);
    uint8_t *data = DATA(s);
    if (h->SRB_Cmd == SC_EXEC_SCSI_CMD) {
        SRB_ExecSCSICmd *e = (SRB_ExecSCSICmd *)h;
        static const size_t offs[4] = {0, 0, 1, 2};
        e->SRB_BufPointer = (pick & 3) == 0 ? NULL : data + offs[pick & 3];
    }
    if (h->SRB_Cmd == SC_ABORT_SRB) {
        SRB_Abort *a = (SRB_Abort *)h;
        a->SRB_ToAbort = (pick & 4) != 0 ? NULL : SRB((pick >> 5) % POOL);
        return;
    }
    if (h->SRB_Cmd == SC_EXEC_SCSI_CMD || h->SRB_Cmd == SC_RESET_DEV) {
        LPVOID *pp = h->SRB_Cmd == SC_EXEC_SCSI_CMD ? &((SRB_ExecSCSICmd *)h)->SRB_PostProc
                                                    : &((SRB_BusDeviceReset *)h)->SRB_PostProc;
        /* What PostProc holds must match the flags (a handle called as a
         * function is the client's crash, not the layer's); bit 3 of
         * pick leaves it NULL. */
        LPVOID v = NULL;
        BYTE fl = h->SRB_Flags;
        bool p = (fl & SRB_POSTING) != 0, ev = (fl & SRB_EVENT_NOTIFY) != 0;
        if ((pick & 8) == 0 && p && !ev) {
            void (*fn)(void *) = post;
            memcpy(&v, &fn, sizeof v);
        } else if ((pick & 8) == 0 && ev && !p) {
            v = &F->events[s];
        }
        memcpy(pp, &v, sizeof v);
        if (v != NULL)
            F->asked[s]++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    F = calloc(1, sizeof *F);
    if (F == NULL)
        return 0;
    if (!bring_up())
        die();
    size_t i = 0;
    while (i < size) {
        uint8_t op = data[i++];
        switch (op % 4) {
        case 0: {
            if (i + 2 > size)
                goto out;
            int s = data[i] % POOL;
            size_t n = data[i + 1];
            i += 2;
            if (n > SRB_BYTES)
                n = SRB_BYTES;
            if (n > size - i)
                n = size - i;
            memcpy(SRB(s), data + i, n);
            i += n;
            uint8_t pick = i < size ? data[i++] : 0;
            patch(s, pick);
            /* The layer reads at most SRB_BYTES: its largest SRB plus 255
             * bytes of sense. */
            (void)SendASPI32Command(SRB(s));
            break;
        }
        case 1:
            if (i < size)
                run_steps(data[i++]);
            break;
        case 2:
            if (i < size) {
                SRB_Abort a;
                memset(&a, 0, sizeof a);
                a.SRB_Cmd = SC_ABORT_SRB;
                a.SRB_ToAbort = SRB(data[i++] % POOL);
                (void)SendASPI32Command(&a);
            }
            break;
        default:
            pcam_aspi_deliver(&F->ad);
            break;
        }
        if (F->lock_depth != 0)
            die();
    }
out:
    for (unsigned n = 0; n < 10000000 && pcam_aspi_in_flight(&F->ad) != 0; n++)
        run_steps(1);
    if (pcam_aspi_in_flight(&F->ad) != 0)
        die();
    for (int s = 0; s < POOL; s++)
        if (F->posted[s] + F->signalled[s] > F->asked[s])
            die(); /* more notifications than requests that asked for one */
    if (pcam_bus_check_invariants(&F->bus) != NULL)
        die();
    pcam_bus_shutdown(&F->bus);
    pcam_aspi_deliver(&F->ad);
    pcam_aspi_shutdown();
    pcam_sim_destroy(F->sim);
    free(F->luns);
    free(F);
    F = NULL;
    return 0;
}
