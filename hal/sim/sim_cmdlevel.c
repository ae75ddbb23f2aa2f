/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A command-level adapter on the simulated bus: the firmware of a mailbox
 * host adapter (BusLogic MultiMaster, Adaptec 154x class), written over the
 * same function-level initiator interface (pcam_sim_i_*) the phase-level
 * back-end wraps, so it drives the same bus and targets. It takes whole
 * commands from the core, runs selection, messages, data, status and
 * reselection itself, does what such firmware does on its own (pointers,
 * disconnects, tags, its own REQUEST SENSE when allowed), and asks the core
 * for every decision in pcam_hal.h's hal_cmd contract: which negotiation to
 * start, what to answer to an extended message, what follows a MESSAGE
 * REJECT. The script-level flavour also hands the core every message it does
 * not recognise, as a SCRIPTS chip interrupts its driver for them.
 */
#include "sim_cmdlevel.h"

void pcam_simcmd_config_defaults(pcam_simcmd_config *cfg)
{
    if (cfg == NULL)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->profile = PCAM_HAL_COMMAND_LEVEL;
    cfg->autosense = true;
    cfg->max_cmds = 64;
}

/* ---- bus helpers ---- */

void sc_accept(pcam_simcmd *a, bool atn)
{
    (void)pcam_sim_i_msg_accept(a->sim, atn);
}

void sc_queue_out(pcam_simcmd *a, const uint8_t *m, size_t n)
{
    if (n > SC_MSG)
        n = SC_MSG;
    memcpy(a->msgout, m, n);
    a->msgout_len = (uint8_t)n;
}

void sc_abandon(pcam_simcmd *a, uint8_t msg)
{
    sc_queue_out(a, &msg, 1);
    (void)pcam_sim_i_set_atn(a->sim);
}

void sc_xfer(pcam_simcmd *a, pcam_phase ph, uint8_t kind, const pcam_sg *sg, uint16_t n,
                 uint32_t off, uint32_t len)
{
    pcam_hal_xfer x;
    memset(&x, 0, sizeof x); /* may_accept and any field added later: off */
    x.phase = ph;
    x.sg = sg;
    x.sg_count = n;
    x.offset = off;
    x.len = len;
    a->xk = kind;
    (void)pcam_sim_i_transfer(a->sim, &x);
}

/* Bytes nobody wants, so the target reaches MESSAGE OUT and takes the
 * message queued with ATN. */
void sc_bucket(pcam_simcmd *a, pcam_phase ph)
{
    a->scratch_sg.addr = a->scratch;
    a->scratch_sg.len = 1;
    sc_xfer(a, ph, XK_BUCKET, &a->scratch_sg, 1, 0, 1);
}

bool sc_is_tag_msg(uint8_t b)
{
    return b >= PCAM_MSG_SIMPLE_TAG && b <= PCAM_MSG_ORDERED_TAG;
}

bool sc_wire_tagged(const sc_slot *s)
{
    return s->cmd.tag_msg != 0 && !s->untagged_wire && !s->sensing &&
           (s->cmd.flags & PCAM_HAL_CMD_CORE_SENSE) == 0;
}

/* ---- reporting to the core ---- */

void sc_report(pcam_simcmd *a, int i, const pcam_hal_cmd_result *r)
{
    sc_slot *s = &a->slots[i];
    const void *h = s->cmd.handle;
    uint8_t t = s->cmd.target, l = s->cmd.lun;
    memset(s, 0, sizeof *s);
    if (a->cur == i)
        a->cur = -1;
    if (a->sel_slot == i)
        a->sel_slot = -1;
    a->st.completed++;
    if (a->bus != NULL)
        (void)pcam_bus_hal_done(a->bus, h, t, l, r);
}

void sc_report_status(pcam_simcmd *a, int i, uint32_t status)
{
    pcam_hal_cmd_result r;
    sc_slot *s = &a->slots[i];
    memset(&r, 0, sizeof r);
    r.status = status;
    r.resid = s->cmd.data_len > s->ptr ? s->cmd.data_len - s->ptr : 0;
    sc_report(a, i, &r);
}

static void drop_all(pcam_simcmd *a)
{
    memset(a->slots, 0, (size_t)a->cfg.max_cmds * sizeof *a->slots);
    a->conn = CN_IDLE;
    a->cur = -1;
    a->sel_slot = -1;
    a->reset_pending = false;
    a->nego_pending = false;
    a->msgin_len = 0;
    a->msgout_len = 0;
    a->expect = EX_NONE;
}

void sc_finish_slot(pcam_simcmd *a, int i)
{
    sc_slot *s = &a->slots[i];
    pcam_hal_cmd_result r;
    memset(&r, 0, sizeof r);
    if (s->err != 0) {
        sc_report_status(a, i, s->err);
        return;
    }
    r.status = PCAM_REQ_CMP;
    if (s->sensing) {
        r.scsi_status = s->orig_status;
        r.resid = s->orig_resid;
        r.sense_done = true;
        r.sense_len = s->status == 0 ? (uint8_t)s->ptr : 0;
        sc_report(a, i, &r);
        return;
    }
    uint32_t resid = s->cmd.data_len > s->ptr ? s->cmd.data_len - s->ptr : 0;
    if (s->status == 0x02 && (s->cmd.flags & PCAM_HAL_CMD_AUTOSENSE) != 0 && s->cmd.sense != NULL &&
        s->cmd.sense_len != 0) {
        /* The firmware fetches the sense itself, next on the bus. */
        s->sensing = true;
        s->orig_status = s->status;
        s->orig_resid = resid;
        s->sense_cdb[0] = 0x03;
        s->sense_cdb[4] = s->cmd.sense_len;
        s->sense_sg.addr = s->cmd.sense;
        s->sense_sg.len = s->cmd.sense_len;
        s->ptr = s->saved = 0;
        s->cdb_sent = 0;
        s->state = SL_QUEUED;
        s->seq = 0;
        a->st.autosense++;
        return;
    }
    r.scsi_status = s->status;
    r.resid = resid;
    if (s->status == 0x28) {
        /* TASK SET FULL: what the target held is what we had sent it. */
        r.held_known = true;
        for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
            const sc_slot *o = &a->slots[k];
            if ((int)k != i && o->state == SL_DISC && o->cmd.target == s->cmd.target &&
                o->cmd.lun == s->cmd.lun)
                r.held++;
        }
    }
    sc_report(a, i, &r);
}

/* ---- selection ---- */

static void select_now(pcam_simcmd *a, uint8_t target, const uint8_t *cdb, uint8_t cdb_len)
{
    pcam_hal_select sel;
    memset(&sel, 0, sizeof sel); /* may_accept and any field added later: off */
    sel.target = target;
    sel.atn = true;
    sel.msg = a->sel_msg;
    sel.msg_len = a->sel_len;
    sel.cdb = cdb;
    sel.cdb_len = cdb_len;
    a->conn = CN_SELECTING;
    a->t = target;
    a->last_msg = 0;
    a->expect = EX_NONE;
    a->msgin_len = 0;
    a->msgout_len = 0;
    (void)pcam_sim_i_select(a->sim, &sel);
}

/* Is an untagged nexus (untagged, or its tag rejected) out on this I_T_L?
 * Then nothing else may go there: a second untagged command would be an
 * overlapped command, and a reselection could not say which it is for
 * (found by pcambench --soak: a READ took a WRITE's status and completed
 * short with stale bytes). */
static bool untagged_out(const pcam_simcmd *a, uint8_t t, uint8_t l)
{
    for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
        const sc_slot *o = &a->slots[k];
        if ((o->state == SL_DISC || o->state == SL_ACTIVE) && o->cmd.target == t && o->cmd.lun == l &&
            !sc_wire_tagged(o))
            return true;
    }
    return false;
}

static int pick_queued(const pcam_simcmd *a)
{
    int best = -1;
    for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
        const sc_slot *s = &a->slots[k];
        if (s->state != SL_QUEUED)
            continue;
        if (untagged_out(a, s->cmd.target, s->cmd.lun))
            continue;
        if (best < 0 || s->seq < a->slots[best].seq)
            best = k;
    }
    return best;
}

static void try_select(pcam_simcmd *a)
{
    if (a->conn != CN_IDLE || a->bus == NULL)
        return;
    a->cur = -1;
    a->sel_slot = -1;
    a->nego_end = 0;
    a->refused = false;
    if (a->reset_pending) {
        a->sel_kind = SK_RESET;
        a->sel_msg[0] = (uint8_t)(PCAM_MSG_IDENTIFY | (a->rs_l & 7u));
        a->sel_msg[1] = a->rs_lun ? PCAM_MSG_LOGICAL_UNIT_RESET : PCAM_MSG_TARGET_RESET;
        a->sel_len = 2;
        a->tag_end = 1;
        select_now(a, a->rs_t, NULL, 0);
        a->l = a->rs_l;
        return;
    }
    for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
        sc_slot *s = &a->slots[k];
        if (s->state != SL_DISC || !s->abort_req)
            continue;
        int n = pcam_msg_build_identify(a->sel_msg, SC_MSG, s->cmd.lun, false);
        if (sc_wire_tagged(s))
            n += pcam_msg_build_tag(a->sel_msg + n, (size_t)(SC_MSG - n), s->cmd.tag_msg, s->cmd.tag);
        a->tag_end = (uint8_t)n;
        a->sel_msg[n++] = PCAM_MSG_ABORT_TASK;
        a->sel_len = (uint8_t)n;
        a->sel_kind = SK_ABORT;
        a->sel_slot = k;
        select_now(a, s->cmd.target, NULL, 0);
        a->l = s->cmd.lun;
        return;
    }
    int i = pick_queued(a);
    if (i < 0)
        return;
    sc_slot *s = &a->slots[i];
    bool plain = s->sensing || (s->cmd.flags & PCAM_HAL_CMD_CORE_SENSE) != 0;
    bool disc = !plain && (s->cmd.flags & PCAM_HAL_CMD_DISCONNECT) != 0;
    int n = pcam_msg_build_identify(a->sel_msg, SC_MSG, s->cmd.lun, disc);
    if (sc_wire_tagged(s))
        n += pcam_msg_build_tag(a->sel_msg + n, (size_t)(SC_MSG - n), s->cmd.tag_msg, s->cmd.tag);
    a->tag_end = (uint8_t)n;
    if (!plain) {
        /* The firmware has no negotiation policy of its own: it asks. */
        int k = pcam_bus_hal_nego_start(a->bus, s->cmd.target, a->sel_msg + n, (size_t)(SC_MSG - n));
        a->st.nego_asked++;
        if (k > 0) {
            n += k;
            a->nego_end = (uint8_t)n;
        }
    }
    a->sel_len = (uint8_t)n;
    a->sel_kind = SK_CMD;
    a->sel_slot = i;
    a->cur = i;
    s->state = SL_ACTIVE;
    s->ptr = s->saved = 0;
    s->cdb_sent = 0;
    s->status = 0xFF;
    a->st.selections++;
    select_now(a, s->cmd.target, s->sensing ? s->sense_cdb : s->cdb,
               s->sensing ? 6 : s->cmd.cdb_len);
    a->l = s->cmd.lun;
}

/* What of the selection's messages went out (count bytes). */
void sc_note_sel_msgs(pcam_simcmd *a, uint32_t count)
{
    if (count > 0) {
        if (count > a->tag_end)
            a->last_msg = a->sel_msg[a->tag_end];
        else if (count > 1)
            a->last_msg = a->sel_msg[1];
        else
            a->last_msg = a->sel_msg[0];
    }
    if (a->sel_kind != SK_CMD && count >= a->sel_len)
        a->expect = EX_ABORT;
    if (a->sel_kind == SK_CMD && a->nego_end != 0) {
        if (count < a->nego_end)
            pcam_bus_hal_nego_end(a->bus, a->t, false); /* never left */
        else
            a->nego_pending = true;
        a->nego_end = 0;
    }
}

/* ---- the ops ---- */

static void op_get_caps(void *sc, pcam_hal_caps *caps)
{
    pcam_simcmd *a = sc;
    pcam_sim_i_caps(a->sim, caps);
    caps->profile = a->cfg.profile;
    caps->name = a->cfg.profile == PCAM_HAL_SCRIPT_LEVEL ? "pcam-sim-script" : "pcam-sim-mailbox";
    if (a->cfg.autosense)
        caps->flags |= PCAM_HAL_CAP_AUTOSENSE;
}

static int op_reset_chip(void *sc)
{
    pcam_simcmd *a = sc;
    drop_all(a); /* the core has taken every command back */
    return pcam_sim_i_reset_chip(a->sim);
}

static int op_reset_bus(void *sc)
{
    pcam_simcmd *a = sc;
    a->conn = CN_RESETTING; /* nothing starts before the reset is seen */
    return pcam_sim_i_reset_bus(a->sim);
}

static int op_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *p)
{
    pcam_simcmd *a = sc;
    return pcam_sim_i_set_xfer(a->sim, target, p);
}

static int op_poll(void *sc, pcam_hal_event *ev)
{
    pcam_simcmd *a = sc;
    pcam_hal_event e;
    for (unsigned guard = 0; guard < 1024u; guard++) {
        if (pcam_sim_i_poll(a->sim, &e) <= 0)
            break;
        if (e.type == PCAM_HAL_EV_BUS_RESET) {
            drop_all(a); /* the core requeues or fails them when it sees the event */
            *ev = e;
            return 1;
        }
        if (e.type == PCAM_HAL_EV_GROSS_ERROR) {
            *ev = e;
            return 1;
        }
        sc_on_event(a, &e);
        try_select(a);
    }
    try_select(a);
    return 0;
}

static void op_attach(void *sc, struct pcam_bus *bus)
{
    pcam_simcmd *a = sc;
    a->bus = bus;
}

static int op_start(void *sc, const pcam_hal_cmd *cmd)
{
    pcam_simcmd *a = sc;
    if (cmd == NULL || cmd->cdb == NULL)
        return PCAM_ERR_NULL;
    if (cmd->cdb_len == 0 || cmd->cdb_len > sizeof a->slots[0].cdb)
        return PCAM_ERR_RANGE;
    for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
        sc_slot *s = &a->slots[k];
        if (s->state != SL_FREE)
            continue;
        memset(s, 0, sizeof *s);
        s->cmd = *cmd;
        memcpy(s->cdb, cmd->cdb, cmd->cdb_len);
        s->cmd.cdb = s->cdb;
        s->flat.addr = cmd->data;
        s->flat.len = cmd->data_len;
        s->state = SL_QUEUED;
        s->seq = (cmd->flags & PCAM_HAL_CMD_CORE_SENSE) != 0 ? 0 : ++a->next_seq;
        a->st.started++;
        try_select(a);
        return 0;
    }
    a->st.full++;
    return PCAM_ERR_NOSPACE;
}

static int op_abort(void *sc, const void *handle)
{
    pcam_simcmd *a = sc;
    for (uint16_t k = 0; k < a->cfg.max_cmds; k++) {
        sc_slot *s = &a->slots[k];
        if (s->state == SL_FREE || s->cmd.handle != handle)
            continue;
        a->st.aborts++;
        if (s->state == SL_QUEUED) {
            sc_report_status(a, k, PCAM_REQ_ABORTED); /* never left the adapter */
        } else if (a->conn == CN_CONNECTED && a->cur == (int)k && a->sel_kind == SK_CMD) {
            s->abort_req = true;
            if (a->msgout_len == 0)
                sc_abandon(a, PCAM_MSG_ABORT_TASK);
        } else {
            s->abort_req = true; /* selecting: at SELECT_DONE; disconnected: its own selection */
            try_select(a);
        }
        return 0;
    }
    return PCAM_ERR_RANGE;
}

static int op_reset_dev(void *sc, uint8_t target, uint8_t lun, bool lun_reset)
{
    pcam_simcmd *a = sc;
    if (a->reset_pending)
        return PCAM_ERR_UNSUPPORTED;
    a->reset_pending = true;
    a->rs_t = target;
    a->rs_l = lun;
    a->rs_lun = lun_reset;
    try_select(a);
    return 0;
}

static const pcam_hal_ops simcmd_ops = {
    .get_caps = op_get_caps,
    .reset_chip = op_reset_chip,
    .reset_bus = op_reset_bus,
    .set_xfer = op_set_xfer,
    .poll = op_poll,
};

static const pcam_hal_cmd_ops simcmd_cmd_ops = {
    .attach = op_attach,
    .start = op_start,
    .abort = op_abort,
    .reset_dev = op_reset_dev,
};

pcam_simcmd *pcam_simcmd_create(pcam_sim *sim, const pcam_simcmd_config *cfg)
{
    pcam_simcmd *a;
    if (sim == NULL)
        return NULL;
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    if (cfg != NULL)
        a->cfg = *cfg;
    else
        pcam_simcmd_config_defaults(&a->cfg);
    if ((a->cfg.profile != PCAM_HAL_COMMAND_LEVEL && a->cfg.profile != PCAM_HAL_SCRIPT_LEVEL) ||
        a->cfg.max_cmds == 0) {
        free(a);
        return NULL;
    }
    a->slots = calloc(a->cfg.max_cmds, sizeof *a->slots);
    if (a->slots == NULL) {
        free(a);
        return NULL;
    }
    a->sim = sim;
    a->cur = -1;
    a->sel_slot = -1;
    return a;
}

void pcam_simcmd_destroy(pcam_simcmd *a)
{
    if (a == NULL)
        return;
    free(a->slots);
    free(a);
}

void pcam_simcmd_get_hal(pcam_simcmd *a, pcam_hal *out)
{
    if (out == NULL)
        return;
    out->ops = &simcmd_ops;
    out->sc = a;
    out->cmd = &simcmd_cmd_ops;
}

void pcam_simcmd_stats_get(const pcam_simcmd *a, pcam_simcmd_stats *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (a != NULL)
        *out = a->st;
}
