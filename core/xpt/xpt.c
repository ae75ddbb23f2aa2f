/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CCB dispatch: bus bring-up, the entry points a shim calls, validation of
 * every request, and the drain of completions (core/common/complete.c) at
 * the outermost entry point. The top layer: it calls every concern, and no
 * concern calls it.
 */
#include "xpt.h"
#include "../nego/nego.h"
#include "pcam/pcam_cdb.h"

void pcam_bus_config_defaults(pcam_bus_config *cfg)
{
    if (cfg == NULL)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->luns_per_target = 8;
    cfg->default_timeout_ms = 10000;
    cfg->default_retries = 4;
    /* A build with fewer tags per LUN lowers the defaults to fit. */
    cfg->tag_depth = PCAM_TAGS > 32 ? 32 : PCAM_TAGS - 1;
    cfg->tag_depth_max = PCAM_TAGS > 64 ? 64 : PCAM_TAGS - 1;
    cfg->tag_depth_floor = 2;
    cfg->qfull_ramp_successes = 128;
    /* Per-LUN aging by time only: being overtaken by 64 later commands is
     * what a seek-sorting disk does to most commands at depth 64, and the
     * barriers that rule forced cost 9% of IOPS with nobody starving. A
     * command 1 s old is at risk: the fairness sweep (pcambench --sweep,
     * docs/bench.md) needs the oldest command forced within 1 s for the
     * worst wait to stay under a quarter of the default timeout on slow
     * mechanisms (2 s let a quad-speed CD-ROM's depth-8 queue reach 0.33). */
    cfg->age_count = 0;
    cfg->age_ms = 1000;
    cfg->bus_starve_ms = 20;
    cfg->busy_delay_ms = 100;
    cfg->not_ready_wait_ms = 30000;
    cfg->abort_timeout_ms = 2000;
    cfg->reset_settle_ms = 2000;
    cfg->parity_stepdown = 2;
    cfg->scan_report_luns = true;
    cfg->aging_enabled = true;
    cfg->polled = false;
}

pcam_err pcam_bus_init_abi(const pcam_abi *abi, pcam_bus *bus, const pcam_bus_config *cfg,
                           const pcam_hal *hal, const pcam_platform *plat, pcam_lun *luns,
                           size_t nluns)
{
    /* Before anything is written: storage laid out by other switches than
     * ours would be overrun (or only partly set up) by what follows. */
    char why[64];
    if (pcam_abi_check(abi, why, sizeof why) != PCAM_OK) {
        if (plat != NULL && plat->log != NULL) {
            char line[128];
            pcam_strbuf sb;
            pcam_sb_init(&sb, line, sizeof line);
            pcam_sb_puts(&sb, "pcam: bus storage refused, configurations differ: ");
            pcam_sb_puts(&sb, why);
            plat->log(plat->ctx, PCAM_LOG_ERROR, line);
        }
        return PCAM_ERR_ABI;
    }
    if (bus == NULL || hal == NULL || hal->ops == NULL || plat == NULL || plat->now_ns == NULL ||
        luns == NULL)
        return PCAM_ERR_NULL;
    const pcam_hal_ops *o = hal->ops;
    if (o->get_caps == NULL)
        return PCAM_ERR_NULL;
    memset(bus, 0, sizeof *bus);
    if (cfg != NULL)
        bus->cfg = *cfg;
    else
        pcam_bus_config_defaults(&bus->cfg);
    bus->hal = *hal;
    bus->plat = *plat;
    o->get_caps(hal->sc, &bus->caps);
    /* A core built without the script/command-level path cannot drive such
     * a chip: say which switch, rather than blame a missing op. The switch
     * name is the log line's detail, kept with PCAM_CFG_LOG_TEXT 0 too. */
    if (!PCAM_CFG_CMDLEVEL && (bus->caps.profile == PCAM_HAL_SCRIPT_LEVEL ||
                               bus->caps.profile == PCAM_HAL_COMMAND_LEVEL)) {
        pcam_core_log(bus, PCAM_LOG_ERROR, "script- and command-level back-ends are not built in",
                      "PCAM_CFG_CMDLEVEL is 0");
        return PCAM_ERR_UNSUPPORTED;
    }
    /* Which ops are required depends on who runs the phases. */
    if (!pcam_dec_hal_ok(hal, bus->caps.profile))
        return PCAM_ERR_NULL;

    const pcam_bus_config *c = &bus->cfg;
    /* A narrow-only build drives a wide chip as a narrow one. */
    if (bus->caps.max_targets > PCAM_MAX_TARGETS) {
        bus->caps.max_targets = PCAM_MAX_TARGETS;
        bus->caps.flags &= ~(uint32_t)PCAM_HAL_CAP_WIDE;
    }
    if (bus->caps.max_targets != 8 && bus->caps.max_targets != 16)
        return PCAM_ERR_RANGE;
    if (bus->caps.initiator_id >= bus->caps.max_targets)
        return PCAM_ERR_RANGE;
    if (c->luns_per_target == 0 || c->luns_per_target > PCAM_MAX_LUNS)
        return PCAM_ERR_RANGE;
    if (nluns < PCAM_BUS_LUNS(bus->caps.max_targets, c->luns_per_target))
        return PCAM_ERR_RANGE;
    if (c->tag_depth == 0 || c->tag_depth_floor == 0 || c->tag_depth_floor > c->tag_depth ||
        c->tag_depth > c->tag_depth_max || c->tag_depth_max > PCAM_TAGS - 1)
        return PCAM_ERR_RANGE;
    if (c->default_timeout_ms == 0)
        return PCAM_ERR_RANGE;

    bus->luns = luns;
    bus->nluns = PCAM_BUS_LUNS(bus->caps.max_targets, c->luns_per_target);
    memset(luns, 0, bus->nluns * sizeof *luns);
    for (size_t i = 0; i < bus->nluns; i++)
        pcam_q_lun_init(bus, &luns[i]);
    for (uint8_t t = 0; t < bus->caps.max_targets; t++)
        pcam_nego_init(bus, t);
    pcam_engine_init(bus);
    pcam_dec_attach(bus);
    bus->xpt.next_deadline_ns = pcam_engine_next_deadline(bus);
    bus->xpt.deadline_cached = true;
    return PCAM_OK;
}

/* Every public entry point runs inside enter/leave: callbacks are delivered
 * only at the outermost level, when the engine is consistent, and a callback
 * that calls pcam_action() just queues more work for the same drain loop. */
static bool enter(pcam_bus *bus)
{
    bool outer = !bus->xpt.in_core;
    bus->xpt.in_core = true;
    bus->xpt.deadline_cached = false;
    return outer;
}

/* Inlined into each entry point, as it was before completion delivery moved
 * to core/common: an out-of-line copy costs a prologue per chip event. */
#if defined(__GNUC__) || defined(__clang__)
#define XPT_INLINE inline __attribute__((__always_inline__))
#else
#define XPT_INLINE inline
#endif
static XPT_INLINE void leave(pcam_bus *bus, bool outer)
{
    if (!outer)
        return;
    for (;;) {
        pcam_engine_kick(bus);
        if (!pcam_core_has_done(bus))
            break;
        pcam_core_run_completions(bus);
    }
    /* The deadline only moves inside the core, and a shim asks for it after
     * every call (or every polling step): work it out once here. */
    bus->xpt.next_deadline_ns = pcam_engine_next_deadline(bus);
    bus->xpt.deadline_cached = true;
    bus->xpt.touched = false;
    bus->xpt.in_core = false;
}

/* An interrupt or a polling step that found nothing: the chip reported no
 * event and the back-end made no pcam_bus_hal_*() call (a command-level
 * adapter's firmware often runs a bus step of its own and has nothing for
 * the core). Everything is as the last way out left it: the kick found
 * nothing to start then (what it waits for, a settle delay or a hold, is a
 * timer, and the tick comes at the deadline), no completion waits, and the
 * deadline worked out then is still the answer. Outer level only. */
static XPT_INLINE bool idle_way_out(pcam_bus *bus, bool outer, bool any)
{
    if (any || !outer || bus->xpt.touched)
        return false;
    bus->xpt.deadline_cached = true;
    bus->xpt.in_core = false;
    return true;
}
/* ---- request validation ---- */

static uint32_t check_path(const pcam_bus *bus, const pcam_ccb *ccb)
{
    if (ccb->target >= bus->caps.max_targets || ccb->target == bus->caps.initiator_id ||
        ccb->lun >= bus->cfg.luns_per_target)
        return PCAM_PATH_INVALID;
    return PCAM_REQ_CMP;
}

static uint32_t sg_total(const pcam_scsiio *io, uint32_t *total)
{
    uint64_t sum = 0;
    for (uint16_t i = 0; i < io->sg_count; i++) {
        if (io->sg[i].addr == NULL && io->sg[i].len != 0)
            return PCAM_REQ_INVALID;
        sum += io->sg[i].len;
    }
    if (sum > UINT32_MAX)
        return PCAM_REQ_TOO_BIG;
    *total = (uint32_t)sum;
    return PCAM_REQ_CMP;
}

/* Is the CDB's length the one its opcode group gives? The fixed-length
 * groups answer at once, as every read and write does; the others
 * (variable length, reserved, vendor specific) are pcam_cdb_check()'s to
 * judge in full. */
static bool cdb_len_ok(const uint8_t *cdb, uint8_t len)
{
    int want = pcam_cdb_len_for_opcode(cdb[0]);
    if (want != 0)
        return len == want;
    return pcam_cdb_check(cdb, len) == PCAM_OK;
}

static uint32_t check_scsiio(const pcam_bus *bus, const pcam_ccb *ccb)
{
    const pcam_scsiio *io = &ccb->u.io;
    uint32_t st = check_path(bus, ccb);
    if (st != PCAM_REQ_CMP)
        return st;
    if (io->cdb_len == 0 || io->cdb_len > PCAM_CDB_BYTES)
        return PCAM_REQ_INVALID;
    /* The CDB length must agree with the opcode group, unless the caller
     * is a pass-through that leaves that judgement to the target. */
    if ((ccb->flags & PCAM_CCB_PASSTHRU) == 0 && !cdb_len_ok(io->cdb, io->cdb_len))
        return PCAM_REQ_INVALID;
    if (io->dir > PCAM_DIR_OUT)
        return PCAM_REQ_INVALID;
    if (io->dir == PCAM_DIR_NONE) {
        if (io->data_len != 0)
            return PCAM_REQ_INVALID;
    } else {
        if (io->data_len == 0)
            return PCAM_REQ_INVALID;
        if (io->sg_count == 0) {
            if (io->data == NULL)
                return PCAM_REQ_INVALID;
            if ((((uintptr_t)io->data) & bus->caps.align_mask) != 0)
                return PCAM_REQ_INVALID;
        } else {
            uint32_t total = 0;
            if (io->sg == NULL)
                return PCAM_REQ_INVALID;
            if (bus->caps.max_sg != 0 && io->sg_count > bus->caps.max_sg)
                return PCAM_REQ_TOO_BIG;
            st = sg_total(io, &total);
            if (st != PCAM_REQ_CMP)
                return st;
            if (total < io->data_len)
                return PCAM_REQ_INVALID;
        }
        if (bus->caps.max_xfer != 0 && io->data_len > bus->caps.max_xfer)
            return PCAM_REQ_TOO_BIG;
    }
    if (io->sense_len != 0 && io->sense == NULL)
        return PCAM_REQ_INVALID;
    if ((ccb->flags & PCAM_CCB_TAGGED) != 0 && io->tag_action != PCAM_TAG_SIMPLE &&
        io->tag_action != PCAM_TAG_HEAD_OF_QUEUE && io->tag_action != PCAM_TAG_ORDERED)
        return PCAM_REQ_INVALID;
    return PCAM_REQ_CMP;
}

/* ---- functions that finish at once ---- */

static void path_inquiry(const pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_pathinq *pi = &ccb->u.pathinq;
    const pcam_hal_caps *c = &bus->caps;
    memset(pi, 0, sizeof *pi);
    const char *name = c->name != NULL ? c->name : "unknown";
    size_t i = 0;
    for (; name[i] != '\0' && i + 1 < sizeof pi->chip_name; i++)
        pi->chip_name[i] = name[i];
    pi->chip_name[i] = '\0';
    pi->hal_flags = c->flags;
    pi->initiator_id = c->initiator_id;
    pi->max_target = (uint8_t)(c->max_targets - 1);
    pi->max_lun = (uint8_t)(bus->cfg.luns_per_target - 1);
    pi->min_period = c->min_period;
    pi->max_offset = c->max_offset;
    pi->max_sg = c->max_sg;
    pi->max_xfer = c->max_xfer;
    pi->align_mask = c->align_mask;
    pi->residuals = true;
}

static uint32_t get_dev(pcam_bus *bus, pcam_ccb *ccb)
{
    const pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
    pcam_dev *d = &ccb->u.dev;
    memset(d, 0, sizeof *d);
    if (l == NULL)
        return PCAM_PATH_INVALID;
    d->present = (l->dev.flags & PCAM_LUNF_PRESENT) != 0;
    d->qualifier = l->dev.qualifier;
    d->type = l->dev.type;
    d->inquiry_len = l->dev.inquiry_len;
    memcpy(d->inquiry, l->dev.inquiry, l->dev.inquiry_len);
    return d->present ? PCAM_REQ_CMP : PCAM_DEV_NOT_THERE;
}

static uint32_t release_queue(pcam_bus *bus, pcam_ccb *ccb)
{
    pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
    if (l == NULL)
        return PCAM_PATH_INVALID;
    uint32_t n = ccb->u.relq.count;
    pcam_q_touch(bus);
    /* The freezes the core holds while autosense runs are not the caller's
     * to drop: nothing may reach the LUN before its sense is read. */
    uint16_t keep = 0;
    for (const pcam_ccb *c = l->q.active.head; c != NULL; c = c->priv.next)
        if ((c->priv.flags & PCAM_CF_SENSE) != 0)
            keep++;
    pcam_q_release(l, n, keep);
    uint32_t open = ccb->u.relq.openings;
    if (open != 0) {
        if (open > bus->cfg.tag_depth_max)
            return PCAM_REQ_INVALID;
        pcam_q_set_depth(l, (uint16_t)open);
    }
    return PCAM_REQ_CMP;
}

static void dispatch(pcam_bus *bus, pcam_ccb *ccb)
{
    uint32_t st;
    switch (ccb->func) {
    case PCAM_FN_NOOP:
        pcam_core_complete(bus, ccb, PCAM_REQ_CMP);
        return;
    case PCAM_FN_SCSI_IO: {
        st = check_scsiio(bus, ccb);
        if (st != PCAM_REQ_CMP) {
            pcam_core_complete(bus, ccb, st);
            return;
        }
        pcam_lun *l = pcam_core_lun(bus, ccb->target, ccb->lun);
        ccb->priv.retries_left = ccb->u.io.retries;
        pcam_q_submit(bus, l, ccb);
        /* Its life in the core is bounded even if it is never issued. */
        pcam_engine_note_life(bus, pcam_core_life_end(bus, ccb));
        return;
    }
    case PCAM_FN_PATH_INQ:
        path_inquiry(bus, ccb);
        pcam_core_complete(bus, ccb, PCAM_REQ_CMP);
        return;
    case PCAM_FN_GET_TRAN:
    case PCAM_FN_SET_TRAN:
        if (ccb->target >= bus->caps.max_targets || ccb->target == bus->caps.initiator_id) {
            pcam_core_complete(bus, ccb, PCAM_PATH_INVALID);
            return;
        }
        if (ccb->func == PCAM_FN_SET_TRAN)
            pcam_nego_set_user(bus, ccb->target, &ccb->u.tran.settings);
        else if (ccb->u.tran.type > PCAM_TRAN_CURRENT) {
            pcam_core_complete(bus, ccb, PCAM_REQ_INVALID);
            return;
        }
        else
            pcam_nego_get(bus, ccb->target, ccb->u.tran.type, &ccb->u.tran.settings);
        pcam_core_complete(bus, ccb, PCAM_REQ_CMP);
        return;
    case PCAM_FN_GET_DEV:
        pcam_core_complete(bus, ccb, get_dev(bus, ccb));
        return;
    case PCAM_FN_SET_ASYNC:
        pcam_core_complete(bus, ccb, pcam_core_set_async(bus, ccb));
        return;
    case PCAM_FN_REL_QUEUE:
        pcam_core_complete(bus, ccb, release_queue(bus, ccb));
        return;
    case PCAM_FN_SCAN_BUS:
    case PCAM_FN_SCAN_LUN:
        if (ccb->func == PCAM_FN_SCAN_LUN && check_path(bus, ccb) != PCAM_REQ_CMP) {
            pcam_core_complete(bus, ccb, PCAM_PATH_INVALID);
            return;
        }
        pcam_scan_start(bus, ccb);
        return;
    case PCAM_FN_ABORT:
        if (!pcam_scan_abort(bus, ccb))
            pcam_engine_abort(bus, ccb);
        return;
    case PCAM_FN_RESET_DEV:
        if (check_path(bus, ccb) != PCAM_REQ_CMP) {
            pcam_core_complete(bus, ccb, PCAM_PATH_INVALID);
            return;
        }
        pcam_engine_reset_dev(bus, ccb);
        return;
    case PCAM_FN_RESET_BUS:
        pcam_engine_reset_bus(bus, ccb);
        return;
    default:
        pcam_core_complete(bus, ccb, PCAM_FUNC_NOTAVAIL);
        return;
    }
}

void pcam_action(pcam_bus *bus, pcam_ccb *ccb)
{
    if (bus == NULL || ccb == NULL)
        return; /* nothing to complete through: the only case with no callback */
    if (ccb->done == NULL)
        return;
    /* A CCB the core still owns must not come in again: completing it now
     * would complete it twice, so it is dropped loudly instead. */
    if (ccb->priv.magic == PCAM_CCB_MAGIC && ccb->priv.state != PCAM_CS_FREE) {
        pcam_core_log(bus, PCAM_LOG_ERROR, "CCB submitted while still in the core", NULL);
        return;
    }
    bool outer = enter(bus);
    memset(&ccb->priv, 0, sizeof ccb->priv);
    ccb->priv.magic = PCAM_CCB_MAGIC;
    ccb->priv.queued_ns = pcam_core_now(bus);
    ccb->status = PCAM_REQ_INPROG;
    if (ccb->func == PCAM_FN_SCSI_IO) {
        /* Nothing has moved yet: a request refused here or by validation
         * reports its whole length as not transferred. */
        ccb->u.io.scsi_status = 0;
        ccb->u.io.recovery = 0;
        ccb->u.io.resid = ccb->u.io.data_len;
        ccb->u.io.sense_resid = ccb->u.io.sense_len;
    }
    if (pcam_engine_shut_down(bus))
        pcam_core_complete(bus, ccb, PCAM_NO_HBA);
    else
        dispatch(bus, ccb);
    leave(bus, outer);
}

void pcam_bus_intr(pcam_bus *bus)
{
    bool outer = enter(bus);
    if (idle_way_out(bus, outer, pcam_engine_events(bus)))
        return;
    leave(bus, outer);
}

void pcam_bus_tick(pcam_bus *bus)
{
    bool outer = enter(bus);
    pcam_engine_tick(bus, pcam_core_now(bus));
    leave(bus, outer);
}

bool pcam_bus_poll(pcam_bus *bus)
{
    bool outer = enter(bus);
    bool did = pcam_engine_events(bus);
    uint64_t now = pcam_core_now(bus);
    if (pcam_engine_next_deadline(bus) <= now) {
        pcam_engine_tick(bus, now);
        did = true;
    }
    if (idle_way_out(bus, outer, did))
        return false;
    bool had_done = pcam_core_has_done(bus);
    leave(bus, outer);
    return did || had_done;
}

uint64_t pcam_bus_next_deadline(const pcam_bus *bus)
{
    /* Not cached inside the core (a callback asking), nor after a back-end
     * report made outside an entry point (below). */
    return bus->xpt.deadline_cached ? bus->xpt.next_deadline_ns : pcam_engine_next_deadline(bus);
}

#if PCAM_CFG_CMDLEVEL
/* What a script/command-level back-end reports and asks (pcam_hal.h,
 * hal_cmd): decide.c answers; here the call is noted, so the way out of
 * the core that follows does its whole work (idle_way_out()). The contract
 * has the back-end call from inside an op the core called, where the
 * deadline cache is already off; a call from anywhere else (a harness, an
 * adapter's own interrupt handler) must not leave it stale either: a
 * report can set a retry delay or a hold, or end a recovery step. */
static XPT_INLINE void reported(pcam_bus *bus)
{
    bus->xpt.touched = true;
    bus->xpt.deadline_cached = false;
}

int pcam_bus_hal_done(pcam_bus *bus, const void *handle, uint8_t target, uint8_t lun,
                      const pcam_hal_cmd_result *res)
{
    if (bus == NULL)
        return PCAM_ERR_NULL;
    reported(bus);
    return pcam_dec_done(bus, handle, target, lun, res);
}

int pcam_bus_hal_reset_done(pcam_bus *bus, uint8_t target, uint8_t lun, bool lun_reset, uint32_t status)
{
    if (bus == NULL)
        return PCAM_ERR_NULL;
    reported(bus);
    return pcam_dec_reset_done(bus, target, lun, lun_reset, status);
}

int pcam_bus_hal_nego_start(pcam_bus *bus, uint8_t target, uint8_t *buf, size_t cap)
{
    if (bus == NULL)
        return PCAM_ERR_NULL;
    reported(bus);
    return pcam_dec_nego_start(bus, target, buf, cap);
}

void pcam_bus_hal_nego_end(pcam_bus *bus, uint8_t target, bool sent)
{
    if (bus == NULL)
        return;
    reported(bus);
    pcam_dec_nego_end(bus, target, sent);
}

int pcam_bus_hal_msg_in(pcam_bus *bus, uint8_t target, uint8_t lun, const uint8_t *msg, size_t len,
                        uint8_t *reply, size_t cap)
{
    if (bus == NULL)
        return PCAM_ERR_NULL;
    reported(bus);
    return pcam_dec_msg_in(bus, target, lun, msg, len, reply, cap);
}

int pcam_bus_hal_msg_reject(pcam_bus *bus, uint8_t target, uint8_t rejected, uint8_t *next,
                            size_t cap)
{
    if (bus == NULL)
        return PCAM_ERR_NULL;
    reported(bus);
    return pcam_dec_msg_reject(bus, target, rejected, next, cap);
}

void pcam_bus_hal_parity(pcam_bus *bus, uint8_t target)
{
    if (bus == NULL)
        return;
    reported(bus);
    pcam_dec_parity(bus, target);
}

int pcam_bus_hal_device_changed(pcam_bus *bus, uint8_t target, uint8_t lun, bool added)
{
    if (bus == NULL)
        return PCAM_ERR_NULL;
    reported(bus);
    return pcam_scan_device_changed(bus, target, lun, added);
}
#endif

void pcam_bus_shutdown(pcam_bus *bus)
{
    bool outer = enter(bus);
    pcam_engine_shutdown(bus);
    pcam_scan_cancel(bus, PCAM_REQ_ABORTED);
    leave(bus, outer);
}

uint16_t pcam_lun_depth(const pcam_bus *bus, uint8_t target, uint8_t lun)
{
    if (bus == NULL || target >= PCAM_MAX_TARGETS || lun >= bus->cfg.luns_per_target)
        return 0;
    size_t i = (size_t)target * bus->cfg.luns_per_target + lun;
    return i < bus->nluns ? bus->luns[i].q.depth : 0;
}

bool pcam_lun_tagged(const pcam_bus *bus, uint8_t target, uint8_t lun)
{
    if (bus == NULL || target >= PCAM_MAX_TARGETS || lun >= bus->cfg.luns_per_target)
        return false;
    size_t i = (size_t)target * bus->cfg.luns_per_target + lun;
    if (i >= bus->nluns)
        return false;
    /* The same facts the queue asks before it sends a tag message
     * (pcam_q_wants_tag()): CmdQue in INQUIRY, no MESSAGE REJECT of a tag, and
     * the user's limits allow tags. */
    const pcam_lun *l = &bus->luns[i];
    return (l->dev.flags & PCAM_LUNF_PRESENT) != 0 && (l->dev.flags & PCAM_LUNF_TAGGED) != 0 &&
           (bus->targets[target].dev.flags & PCAM_TGTF_NO_TAGS) == 0 && bus->targets[target].nego.user.tagged;
}
