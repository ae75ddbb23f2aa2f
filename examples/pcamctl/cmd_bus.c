/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bus subcommands: negotiate (transfer agreements), tags (queue depth,
 * aging) and reset.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"

void ctl_fmt_xfer(const pcam_xfer_settings *x, char *buf, size_t cap)
{
    const char *w = x->width ? "wide" : "narrow";
    if (x->period == 0 || x->offset == 0) {
        snprintf(buf, cap, "async %s", w);
        return;
    }
    uint32_t ps = pcam_period_factor_to_ps(x->period);
    bool dt = (x->ppr_options & PCAM_PPR_DT_REQ) != 0;
    /* The period factor gives the transfer period (SPI-4): one transfer of
     * 1 or 2 bytes per period, DT or not (DT halves the REQ rate instead),
     * so 09h (12.5 ns) wide is Ultra160's 160 MB/s. */
    double mbs = ps ? 1e6 / (double)ps * (x->width ? 2.0 : 1.0) : 0.0;
    snprintf(buf, cap, "0x%02X (%.2f ns) offset %u %s%s %.1f MB/s", x->period, (double)ps / 1000.0,
             x->offset, w, dt ? " DT" : "", mbs);
}

static int tran(ctl *c, uint8_t func, uint8_t target, pcam_tran_type type, pcam_xfer_settings *s)
{
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = func;
    ccb.target = target;
    ccb.u.tran.type = type;
    if (func == PCAM_FN_SET_TRAN)
        ccb.u.tran.settings = *s;
    uint32_t st = ctl_sync(c, &ccb, 1000);
    if (st != PCAM_REQ_CMP)
        return ctl_err(c, CTL_EOTHER, "%s of target %u failed: %s",
                       func == PCAM_FN_SET_TRAN ? "SET_TRAN" : "GET_TRAN", target, ctl_status_sentence(st));
    if (func == PCAM_FN_GET_TRAN)
        *s = ccb.u.tran.settings;
    return 0;
}

/* A command to the LU, so the core has a reason to (re)negotiate. */
static int poke(ctl *c, uint8_t t, uint8_t l)
{
    uint8_t cdb[16];
    ctl_io io;
    int n = pcam_cdb_test_unit_ready(cdb, sizeof cdb);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_NONE, NULL, 0);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "TEST UNIT READY", &io);
    return 0;
}

static bool on_off(const char *v, bool *out)
{
    if (v == NULL)
        return false;
    if (strcmp(v, "on") == 0)
        *out = true;
    else if (strcmp(v, "off") == 0)
        *out = false;
    else
        return false;
    return true;
}

int cmd_negotiate(ctl *c, int argc, char **argv)
{
    const char *path = NULL;
    bool set_period = false, set_offset = false, set_width = false, set_dt = false, set_disc = false,
         set_tags = false, is_async = false, dt = false, disc = false, tags = false;
    uint64_t period = 0, offset = 0, width = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(a, "--period") == 0) {
            ok = ctl_parse_u64(v, &period) && period <= 0xFF;
            set_period = true;
            i++;
        } else if (strcmp(a, "--offset") == 0) {
            ok = ctl_parse_u64(v, &offset) && offset <= 0xFF;
            set_offset = true;
            i++;
        } else if (strcmp(a, "--width") == 0) {
            ok = ctl_parse_u64(v, &width) && (width == 8 || width == 16);
            set_width = true;
            i++;
        } else if (strcmp(a, "--dt") == 0) {
            ok = on_off(v, &dt);
            set_dt = true;
            i++;
        } else if (strcmp(a, "--disconnect") == 0) {
            ok = on_off(v, &disc);
            set_disc = true;
            i++;
        } else if (strcmp(a, "--tags") == 0) {
            ok = on_off(v, &tags);
            set_tags = true;
            i++;
        } else if (strcmp(a, "--async") == 0) {
            is_async = true;
        } else if (path == NULL && a[0] != '-') {
            path = a;
        } else {
            return ctl_usage(c, "unexpected argument '%s'", a);
        }
        if (!ok)
            return ctl_usage(c, "bad value for %s", a);
    }
    uint8_t t, l;
    int rc = ctl_parse_path(c, path, &t, &l, false);
    if (rc == 0)
        rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, t, 0, NULL);
    if (rc != 0)
        return rc;
    bool changing = set_period || set_offset || set_width || set_dt || set_disc || set_tags || is_async;
    pcam_xfer_settings s[3], before, asked;
    memset(s, 0, sizeof s);
    char change[512] = "";
    if (changing) {
        pcam_ccb pi;
        memset(&pi, 0, sizeof pi);
        pi.func = PCAM_FN_PATH_INQ;
        if (ctl_sync(c, &pi, 1000) != PCAM_REQ_CMP)
            return ctl_err(c, CTL_EOTHER, "path inquiry failed");
        unsigned minp = pi.u.pathinq.min_period, maxo = pi.u.pathinq.max_offset;
        /* Refuse what the chip cannot do rather than let the core quietly clamp it. */
        if (set_period && (period < minp || period > 0xFF))
            return ctl_usage(c, "--period 0x%02llx is out of range: valid 0x%02x..0xff on %s (0x%02x is the "
                             "fastest; --async for asynchronous)",
                             (unsigned long long)period, minp, pi.u.pathinq.chip_name, minp);
        if (set_offset && offset > maxo)
            return ctl_usage(c, "--offset %llu is out of range: valid 0..%u on %s (0 = asynchronous)",
                             (unsigned long long)offset, maxo, pi.u.pathinq.chip_name);
        if (set_width && width == 16 && !(pi.u.pathinq.hal_flags & PCAM_HAL_CAP_WIDE))
            return ctl_usage(c, "--width 16: %s is a narrow chip (valid: 8)", pi.u.pathinq.chip_name);
        rc = tran(c, PCAM_FN_GET_TRAN, t, PCAM_TRAN_USER, &s[0]);
        if (rc != 0)
            return rc;
        before = s[0];
        if (set_period) s[0].period = (uint8_t)period;
        if (set_offset) s[0].offset = (uint8_t)offset;
        if (set_width) s[0].width = width == 16 ? 1 : 0;
        if (set_dt) s[0].ppr_options = dt ? (uint8_t)(s[0].ppr_options | PCAM_PPR_DT_REQ)
                                          : (uint8_t)(s[0].ppr_options & ~PCAM_PPR_DT_REQ);
        if (set_disc) s[0].disconnect = disc;
        if (set_tags) s[0].tagged = tags;
        if (is_async) {
            s[0].period = 0;
            s[0].offset = 0;
        }
        asked = s[0];
        rc = tran(c, PCAM_FN_SET_TRAN, t, PCAM_TRAN_USER, &s[0]);
        if (rc == 0)
            rc = tran(c, PCAM_FN_GET_TRAN, t, PCAM_TRAN_USER, &s[0]);
        if (rc != 0)
            return rc;
        /* Say what changed, and what the core kept different from what was asked. */
        size_t k = 0;
        static const char *const fname[] = {"period", "offset", "width", "ppr_options", "disconnect", "tags"};
        unsigned b[6] = {before.period, before.offset, before.width ? 16u : 8u, before.ppr_options,
                         before.disconnect, before.tagged};
        unsigned a[6] = {s[0].period, s[0].offset, s[0].width ? 16u : 8u, s[0].ppr_options, s[0].disconnect,
                         s[0].tagged};
        unsigned q[6] = {asked.period, asked.offset, asked.width ? 16u : 8u, asked.ppr_options, asked.disconnect,
                         asked.tagged};
        for (int f = 0; f < 6 && k < sizeof change; f++) {
            if (a[f] != b[f])
                k += (size_t)snprintf(change + k, sizeof change - k, "%s%s %u -> %u", k ? ", " : "", fname[f],
                                      b[f], a[f]);
            if (a[f] != q[f] && k < sizeof change)
                k += (size_t)snprintf(change + k, sizeof change - k, "%s%s: asked %u, the core keeps %u",
                                      k ? ", " : "", fname[f], q[f], a[f]);
        }
        if (k == 0)
            snprintf(change, sizeof change, "unchanged (they were already so)");
    }
    rc = poke(c, t, 0);
    for (int k = 0; rc == 0 && k < 3; k++)
        rc = tran(c, PCAM_FN_GET_TRAN, t, (pcam_tran_type)k, &s[k]);
    if (rc != 0)
        return rc;
    pcam_hal_xfer_params tp;
    memset(&tp, 0, sizeof tp);
    bool have_tp = ctl_is_sim(c); /* only the simulator can tell the target's side */
    if (have_tp)
        pcam_sim_target_agreement(c->rig.sim, t, &tp);
    static const char *const names[3] = {"user", "goal", "current"};
    const char *lu_why = NULL;
    bool lu_tagged = ctl_lu_tagged(c, t, 0, &lu_why);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        if (changing)
            j_str("user_change", change);
        for (int k = 0; k < 3; k++) {
            char text[96];
            ctl_fmt_xfer(&s[k], text, sizeof text);
            j_obj(names[k]);
            j_u64("period", s[k].period);
            j_u64("offset", s[k].offset);
            j_u64("width", s[k].width ? 16 : 8);
            j_u64("ppr_options", s[k].ppr_options);
            j_bool("disconnect", s[k].disconnect);
            j_bool("tagged", s[k].tagged);
            j_str("text", text);
            j_end_obj();
        }
        if (have_tp) {
            j_obj("target_side");
            j_u64("period", tp.period);
            j_u64("offset", tp.offset);
            j_u64("width", tp.width ? 16 : 8);
            j_u64("ppr_options", tp.ppr_options);
            j_end_obj();
        } else {
            j_null("target_side");
        }
        j_bool("lun0_tagged", lu_tagged);
        if (lu_why != NULL)
            j_str("lun0_untagged_because", lu_why);
        j_end_obj();
        j_done();
        return 0;
    }
    printf("target %u transfer agreement\n", t);
    if (changing)
        printf("  user limits %s%s\n", strncmp(change, "unchanged", 9) == 0 ? "" : "changed: ", change);
    for (int k = 0; k < 3; k++) {
        char text[96];
        ctl_fmt_xfer(&s[k], text, sizeof text);
        printf("  %-8s %-44s disconnect %-3s tags %s\n", names[k], text, s[k].disconnect ? "on" : "off",
               s[k].tagged ? "on" : "off");
    }
    /* The agreement's "tags on" is the target's; whether LUN 0's commands
     * carry tags also needs its INQUIRY CmdQue. */
    printf("  lun 0    commands go %s%s%s\n", lu_tagged ? "tagged" : "untagged", lu_why != NULL ? ": " : "",
           lu_why != NULL ? lu_why : "");
    if (!have_tp) {
        printf("  %-8s (not known: only the simulated bus shows the target's side)\n", "target");
        return 0;
    }
    pcam_xfer_settings ts;
    memset(&ts, 0, sizeof ts);
    ts.period = tp.period;
    ts.offset = tp.offset;
    ts.width = tp.width;
    ts.ppr_options = tp.ppr_options;
    char text[96];
    ctl_fmt_xfer(&ts, text, sizeof text);
    printf("  %-8s %s   (the simulated target's own record)\n", "target", text);
    return 0;
}

/* ------------------------------------------------------------------ */

typedef struct load_ccb {
    pcam_ccb ccb;
    uint8_t buf[4096];
    bool done;
} load_ccb;

static void load_done(pcam_ccb *ccb)
{
    ((load_ccb *)ccb)->done = true; /* ccb is the first member */
}

/* n tagged 4 KiB reads at scattered LBAs, all handed in at once: the core
 * queues what exceeds the depth, so QUEUE FULL and aging get exercised. */
static int run_load(ctl *c, uint8_t t, uint8_t l, uint32_t n, uint64_t *errors)
{
    uint64_t blocks;
    uint32_t bs;
    int rc = ctl_capacity(c, t, l, &blocks, &bs);
    if (rc != 0)
        return rc;
    uint32_t per = 4096u / bs ? 4096u / bs : 1;
    if (blocks < per)
        return ctl_err(c, CTL_EUSAGE, "%u:%u is too small for the load", t, l);
    load_ccb *j = calloc(n, sizeof *j);
    if (j == NULL)
        return ctl_err(c, CTL_EOTHER, "out of memory");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t cdb[16];
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t lba = x % (blocks - per + 1);
        int len = pcam_cdb_read(cdb, sizeof cdb, lba > 0xFFFFFFFFull - per ? 16 : 10, lba, per, 0);
        pcam_ccb *ccb = &j[i].ccb;
        ccb->func = PCAM_FN_SCSI_IO;
        ccb->target = t;
        ccb->lun = l;
        ccb->flags = PCAM_CCB_TAGGED;
        ccb->done = load_done;
        memcpy(ccb->u.io.cdb, cdb, (size_t)len);
        ccb->u.io.cdb_len = (uint8_t)len;
        ccb->u.io.dir = PCAM_DIR_IN;
        ccb->u.io.data = j[i].buf;
        ccb->u.io.data_len = per * bs;
        ccb->u.io.tag_action = PCAM_TAG_SIMPLE;
        ccb->u.io.retries = 4;
        ctl_submit(c, ccb);
    }
    uint32_t left = n;
    uint64_t until = ctl_now(c) + 600ull * 1000000000ull;
    *errors = 0;
    for (uint32_t i = 0; i < n; i++) {
        while (!j[i].done && ctl_now(c) <= until && ctl_step(c))
            ;
        if (!j[i].done)
            break;
        left--;
        if (j[i].ccb.status != PCAM_REQ_CMP)
            (*errors)++;
    }
    free(j);
    if (left != 0)
        return ctl_err(c, CTL_EOTHER, "%u of %u load commands did not complete", left, n);
    return 0;
}

int cmd_tags(ctl *c, int argc, char **argv)
{
    const char *path = NULL;
    uint64_t depth = 0, load = 0, v64;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-aging") == 0) {
            c->bcfg.aging_enabled = false;
            continue;
        }
        if (path == NULL && a[0] != '-') {
            path = a;
            continue;
        }
        if (v == NULL || !ctl_parse_u64(v, &v64))
            return ctl_usage(c, "'%s' needs a number", a);
        i++;
        if (strcmp(a, "--depth") == 0 && v64 >= 1 && v64 <= 255)
            depth = v64;
        else if (strcmp(a, "--load") == 0 && v64 <= 4096)
            load = v64;
        else if (strcmp(a, "--age-count") == 0 && v64 >= 1 && v64 <= 0xFFFF)
            c->bcfg.age_count = (uint16_t)v64;
        else if (strcmp(a, "--age-ms") == 0 && v64 >= 1 && v64 <= 0xFFFFFFFF)
            c->bcfg.age_ms = (uint32_t)v64;
        else if (strcmp(a, "--starve-ms") == 0 && v64 >= 1 && v64 <= 0xFFFFFFFF)
            c->bcfg.bus_starve_ms = (uint32_t)v64;
        else
            return ctl_usage(c, "bad option or value '%s %s' (--depth 1..255, --load 0..4096)",
                           a, v);
    }
    if (depth > c->bcfg.tag_depth_max)
        c->bcfg.tag_depth_max = (uint16_t)depth;
    pcam_bus_config dflt;
    pcam_bus_config_defaults(&dflt);
    if (c->open && (c->bcfg.aging_enabled != dflt.aging_enabled || c->bcfg.age_count != dflt.age_count ||
                    c->bcfg.age_ms != dflt.age_ms || c->bcfg.bus_starve_ms != dflt.bus_starve_ms ||
                    c->bcfg.tag_depth_max != dflt.tag_depth_max))
        return ctl_usage(c, "--no-aging, --age-*, --starve-ms and a --depth above %u configure the bus when it "
                         "is built: not inside a script", dflt.tag_depth_max);
    uint8_t t, l;
    int rc = ctl_parse_path(c, path, &t, &l, true);
    if (rc == 0)
        rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, t, l, NULL);
    if (rc != 0)
        return rc;
    if (depth != 0) {
        pcam_ccb ccb;
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_REL_QUEUE;
        ccb.target = t;
        ccb.lun = l;
        ccb.u.relq.openings = (uint32_t)depth;
        uint32_t st = ctl_sync(c, &ccb, 1000);
        if (st != PCAM_REQ_CMP)
            return ctl_err(c, CTL_EOTHER, "setting the depth of %u:%u failed: %s", t, l, ctl_status_sentence(st));
    }
    uint64_t errors = 0;
    if (load != 0 && (rc = run_load(c, t, l, (uint32_t)load, &errors)) != 0)
        return rc;
    pcam_xfer_settings cur;
    pcam_counters k;
    memset(&cur, 0, sizeof cur);
    memset(&k, 0, sizeof k);
    if ((rc = tran(c, PCAM_FN_GET_TRAN, t, PCAM_TRAN_CURRENT, &cur)) != 0)
        return rc;
    pcam_bus_get_counters(ctl_bus(c), t, &k);
    const char *why = NULL;
    bool used = ctl_lu_tagged(c, t, l, &why);
    uint16_t now_depth = pcam_lun_depth(ctl_bus(c), t, l);
    const pcam_bus_config *b = &c->bcfg;
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_bool("tagged", used);
        j_bool("target_agreement_tagged", cur.tagged);
        if (why != NULL)
            j_str("untagged_because", why);
        j_u64("depth", now_depth);
        j_u64("depth_start", b->tag_depth);
        j_u64("depth_max", b->tag_depth_max);
        j_u64("depth_floor", b->tag_depth_floor);
        j_u64("ramp_successes", b->qfull_ramp_successes);
        j_obj("aging");
        j_bool("enabled", b->aging_enabled);
        j_u64("age_count", b->age_count);
        j_u64("age_ms", b->age_ms);
        j_u64("bus_starve_ms", b->bus_starve_ms);
        j_end_obj();
        if (load != 0) {
            j_obj("load");
            j_u64("commands", load);
            j_u64("errors", errors);
            j_end_obj();
        }
        j_obj("counters");
        j_u64("commands", k.commands);
        j_u64("errors", k.errors);
        j_u64("queue_fulls", k.queue_fulls);
        j_u64("requeues", k.requeues);
        j_u64("ordered_forced", k.ordered_forced);
        j_u64("starve_boosts", k.starve_boosts);
        j_u64("bus_holds", k.bus_holds);
        j_u64("disconnects", k.disconnects);
        j_u64("reselections", k.reselections);
        j_end_obj();
        j_end_obj();
        j_done();
        return 0;
    }
    printf("%u:%u: tagged queuing %s%s%s, depth %u (start %u, max %u, floor %u, +1 after %u successes)\n", t, l,
           used ? "on" : "off", why != NULL ? ": " : "", why != NULL ? why : "", now_depth, b->tag_depth, b->tag_depth_max, b->tag_depth_floor,
           b->qfull_ramp_successes);
    /* A zero threshold turns that rule off (pcam.h); say so rather than "after 0". */
    char by_count[48];
    if (b->age_count != 0)
        snprintf(by_count, sizeof by_count, "%u later commands or ", b->age_count);
    else
        by_count[0] = '\0';
    printf("  aging %s: ORDERED after %s%u ms; bus starvation %u ms\n", b->aging_enabled ? "on" : "off",
           by_count, b->age_ms, b->bus_starve_ms);
    if (load != 0)
        printf("  load: %llu 4 KiB reads handed in at once, %s, %llu errors\n", (unsigned long long)load,
               used ? "SIMPLE tags" : "sent untagged (one at a time)", (unsigned long long)errors);
    printf("  counters: commands %u, errors %u, QUEUE FULL %u, requeues %u, ORDERED forced %u,"
           " starvation boosts %u, bus holds %u, disconnects %u, reselections %u\n",
           k.commands, k.errors, k.queue_fulls, k.requeues, k.ordered_forced, k.starve_boosts,
           k.bus_holds, k.disconnects, k.reselections);
    return 0;
}

/* ------------------------------------------------------------------ */

int cmd_reset(ctl *c, int argc, char **argv)
{
    const char *kind = argc > 0 ? argv[0] : "";
    bool bus = strcmp(kind, "bus") == 0, lun = strcmp(kind, "lun") == 0;
    if (!bus && !lun && strcmp(kind, "dev") != 0)
        return ctl_usage(c, "want dev PATH, lun PATH or bus");
    if ((bus && argc != 1) || (!bus && argc != 2))
        return ctl_usage(c, "want dev PATH, lun PATH or bus");
    uint8_t t = 0, l = 0;
    int rc = bus ? 0 : ctl_parse_path(c, argv[1], &t, &l, true);
    if (rc == 0)
        rc = ctl_open(c);
    if (rc == 0 && !bus)
        rc = ctl_need_device(c, t, l, NULL);
    if (rc != 0)
        return rc;
    /* Keep the scan's events out of the report. */
    pcam_event drop[PCAM_EVENT_RING];
    while (pcam_bus_read_events(ctl_bus(c), drop, PCAM_EVENT_RING) != 0)
        ;
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = bus ? PCAM_FN_RESET_BUS : PCAM_FN_RESET_DEV;
    ccb.target = t;
    ccb.lun = l;
    if (lun)
        ccb.flags = PCAM_CCB_LUN_RESET;
    uint32_t st = ctl_sync(c, &ccb, 60000);
    const char *what = bus ? "SCSI bus reset" : lun ? "LOGICAL UNIT RESET" : "BUS DEVICE RESET";
    /* The reset raised UNIT ATTENTION; a command afterwards shows the
     * device came back (the core absorbs the UNIT ATTENTION). */
    int after = st == PCAM_REQ_CMP && !bus ? poke(c, t, l) : 0;
    if (c->json) {
        j_obj(NULL);
        j_str("reset", bus ? "bus" : lun ? "lun" : "dev");
        if (!bus) {
            j_u64("target", t);
            j_u64("lun", l);
        }
        j_str("status", st == 0xFFFFFFFFu ? "NOT_COMPLETED" : pcam_status_name(st));
        if (!bus)
            j_bool("ready_after", after == 0);
        ctl_print_events(c);
        j_end_obj();
        j_done();
    } else {
        if (bus)
            printf("%s: %s\n", what, ctl_status_sentence(st));
        else
            printf("%s to %u:%u: %s%s\n", what, t, l, ctl_status_sentence(st),
                   st == PCAM_REQ_CMP ? (after == 0 ? "; ready again" : "; not ready afterwards") : "");
        ctl_print_events(c);
    }
    if (st != PCAM_REQ_CMP)
        return ctl_err(c, st == 0xFFFFFFFFu ? CTL_ETIMEOUT : CTL_EOTHER, "%s failed: %s", what, ctl_status_sentence(st));
    return after;
}
