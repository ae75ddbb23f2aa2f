/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamabort.ko, a test module for the FreeBSD boots: XPT_ABORT as FreeBSD
 * code sends it. In 13.2 only kernel code can name a held request: no
 * userland interface takes one (xpt(4)'s CAMIOCOMMAND does not accept
 * XPT_ABORT, pass(4) would hand the SIM the caller's own user-space
 * pointer, and CAM's peripherals send XPT_ABORT only for target-mode
 * CCBs), so this module plays the peripheral.
 *
 * Writing a target number to debug.pcamabort.run (the guest's init, once
 * the host has throttled that target's drive) sends two 4 KiB READs to
 * scbus0:target:0 with a 60 s timeout; the first fills QEMU's throttle
 * bucket and completes, the second is held. After a second it sends
 * XPT_ABORT for the held one, waits up to 30 s for it to complete and 2 s
 * more for a second completion that must never come, and releases the
 * device queue the SIM froze. debug.pcamabort.result then reads
 * "first F abort A held H completions N after T ms" (CAM statuses in hex,
 * masked; N the held CCB's completions, T from XPT_ABORT to the first). Test code: never built into pcam.ko.
 */
#include <sys/param.h>
#include <sys/systm.h>
#include <sys/kernel.h>
#include <sys/lock.h>
#include <sys/malloc.h>
#include <sys/module.h>
#include <sys/mutex.h>
#include <sys/sysctl.h>

#include <cam/cam.h>
#include <cam/cam_ccb.h>
#include <cam/cam_periph.h>
#include <cam/cam_xpt.h>
#include <cam/scsi/scsi_all.h>
#include <cam/scsi/scsi_message.h>

static char pcamabort_result[96] = "not run";
static int pcamabort_done[2], pcamabort_done_ticks;

static void pcamabort_cb(struct cam_periph *periph, union ccb *ccb)
{
    (void)periph;
    pcamabort_done[ccb->ccb_h.periph_priv.entries[0].field]++;
    pcamabort_done_ticks = ticks;
    wakeup(ccb);
}

static void pcamabort_read(union ccb *ccb, struct cam_path *path, int which, uint8_t *data, uint64_t lba)
{
    xpt_setup_ccb(&ccb->ccb_h, path, CAM_PRIORITY_NORMAL);
    scsi_read_write(&ccb->csio, 0, pcamabort_cb, MSG_SIMPLE_Q_TAG, 1, 0, 10, lba, 8, data, 4096,
                    SSD_FULL_SIZE, 60000);
    ccb->ccb_h.periph_priv.entries[0].field = which;
    pcamabort_done[which] = 0;
    xpt_action(ccb);
}

/* Sleeps (the path's lock held) until `which` completed, at most ms. */
static void pcamabort_wait(union ccb *ccb, struct cam_path *path, int which, int ms)
{
    for (int i = 0; i < ms / 100 && pcamabort_done[which] == 0; i++)
        mtx_sleep(ccb, xpt_path_mtx(path), 0, "pcamabt", hz / 10);
}

static int pcamabort_run(SYSCTL_HANDLER_ARGS)
{
    int target = -1, error = sysctl_handle_int(oidp, &target, 0, req);
    struct cam_path *path;
    union ccb *first, *held, *ab;
    uint8_t *data;
    uint32_t st_first, st_abort, st_held;
    int t0;

    (void)arg1, (void)arg2;
    if (error != 0 || req->newptr == NULL)
        return error;
    if (xpt_create_path(&path, NULL, 0, (target_id_t)target, 0) != CAM_REQ_CMP)
        return ENXIO;
    first = xpt_alloc_ccb();
    held = xpt_alloc_ccb();
    ab = xpt_alloc_ccb();
    data = malloc(2 * 4096, M_TEMP, M_WAITOK | M_ZERO);
    xpt_path_lock(path);
    pcamabort_read(first, path, 0, data, 0);
    pcamabort_wait(first, path, 0, 30000);
    st_first = first->ccb_h.status;
    pcamabort_read(held, path, 1, data + 4096, 64);
    pcamabort_wait(held, path, 1, 1000); /* must still be held */
    xpt_setup_ccb(&ab->ccb_h, path, CAM_PRIORITY_NORMAL);
    ab->ccb_h.func_code = XPT_ABORT;
    ab->cab.abort_ccb = held;
    t0 = ticks;
    xpt_action(ab); /* an immediate CCB: its status is set on return */
    st_abort = ab->ccb_h.status;
    pcamabort_wait(held, path, 1, 30000);
    mtx_sleep(held, xpt_path_mtx(path), 0, "pcamabt", 2 * hz); /* a second completion would show */
    st_held = held->ccb_h.status;
    xpt_path_unlock(path);
    for (union ccb *c = first; c != NULL; c = c == first ? held : NULL)
        if ((c->ccb_h.status & CAM_DEV_QFRZN) != 0)
            cam_release_devq(c->ccb_h.path, 0, 0, 0, FALSE);
    snprintf(pcamabort_result, sizeof(pcamabort_result),
             "first 0x%02x abort 0x%02x held 0x%02x completions %d after %d ms", st_first & CAM_STATUS_MASK,
             st_abort & CAM_STATUS_MASK, st_held & CAM_STATUS_MASK, pcamabort_done[1],
             pcamabort_done[1] != 0 ? (pcamabort_done_ticks - t0) * 1000 / hz : -1);
    free(data, M_TEMP);
    xpt_free_ccb(ab);
    xpt_free_ccb(held);
    xpt_free_ccb(first);
    xpt_free_path(path);
    return 0;
}

static SYSCTL_NODE(_debug, OID_AUTO, pcamabort, CTLFLAG_RD | CTLFLAG_MPSAFE, NULL, "pcam XPT_ABORT test");
SYSCTL_PROC(_debug_pcamabort, OID_AUTO, run, CTLTYPE_INT | CTLFLAG_WR | CTLFLAG_MPSAFE, NULL, 0, pcamabort_run, "I",
            "target to read from and abort");
SYSCTL_STRING(_debug_pcamabort, OID_AUTO, result, CTLFLAG_RD, pcamabort_result, 0, "the last run's statuses");

static moduledata_t pcamabort_mod = {"pcamabort", NULL, NULL};
DECLARE_MODULE(pcamabort, pcamabort_mod, SI_SUB_DRIVERS, SI_ORDER_ANY);
MODULE_VERSION(pcamabort, 1);
MODULE_DEPEND(pcamabort, cam, 1, 1, 1);
