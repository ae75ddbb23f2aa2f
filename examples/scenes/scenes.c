/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scenes: two of the core's headline behaviours, each told in a few lines
 * on the simulated bus, for the demo (scripts/demo-run.sh):
 *
 *   scenes qfull   a disk whose task set holds 5 commands, under 32 tagged
 *                  reads: the depth settles at 5 without failing or
 *                  retrying anything, then climbs back once the limit is
 *                  lifted, one step per qfull_ramp_successes successes;
 *   scenes ladder  a command that hangs on a target deaf to ABORT TASK and
 *                  TARGET RESET, on a chip whose first bus reset wedges:
 *                  the timeout walks every rung of the recovery ladder.
 *
 * Each scene also checks its outcome against what docs/design.md and
 * pcam.h promise (the depth equals the target's limit, rungs come in order
 * abort_timeout_ms apart) and exits 1 when it differs, so the demo cannot
 * show a story the code no longer tells. It never asserts host timing:
 * every time shown is simulated.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"
#include "simrig.h"

static int failed;
#define EXPECT(c, ...)                            \
    do {                                          \
        if (!(c)) {                               \
            fprintf(stderr, "scenes: " __VA_ARGS__); \
            fputc('\n', stderr);                  \
            failed = 1;                           \
        }                                         \
    } while (0)

static double ms(const simrig *r, uint64_t t0)
{
    return (double)(pcam_sim_now(r->sim) - t0) / 1e6;
}

/* ---- QUEUE FULL ---- */

#define QF_DEPTH 32
#define QF_LIMIT 5
#define QF_RAMP 16 /* qfull_ramp_successes, lowered from 128 to keep the scene short */
#define QF_BLOCKS 8192u

typedef struct qf {
    simrig r;
    rig_ccb jobs[QF_DEPTH];
    uint8_t bufs[QF_DEPTH][4096];
    uint64_t rng, done, errors;
    bool stop;
} qf;

static void qf_submit(qf *q, rig_ccb *rc);

static void qf_done(rig_ccb *rc)
{
    qf *q = rc->test;
    q->done++;
    if (rc->ccb.status != PCAM_REQ_CMP)
        q->errors++;
    if (!q->stop)
        qf_submit(q, rc);
}

static void qf_submit(qf *q, rig_ccb *rc)
{
    uint8_t cdb[10];
    q->rng = q->rng * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t lba = (q->rng >> 33) % (QF_BLOCKS - 8u);
    pcam_cdb_read(cdb, sizeof cdb, 10, lba, 8, 0);
    uint8_t *buf = q->bufs[rc - q->jobs];
    rig_ccb_io(rc, 0, 0, cdb, 10, PCAM_DIR_IN, buf, 4096);
    rc->ccb.flags = PCAM_CCB_TAGGED;
    rc->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    rc->test = q;
    rc->on_done = qf_done;
    rig_submit(&q->r, rc);
}

static int scene_qfull(void)
{
    qf *q = calloc(1, sizeof *q);
    if (q == NULL)
        return 1;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.luns_per_target = 1;
    bc.tag_depth = QF_DEPTH;
    bc.tag_depth_max = QF_DEPTH;
    bc.qfull_ramp_successes = QF_RAMP;
    if (simrig_init(&q->r, NULL, &bc, false) != 0)
        return 1;
    q->r.check_every = 0;
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.task_set_limit = QF_LIMIT;
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    if (simrig_add_disk(&q->r, 0, 0, QF_BLOCKS, &tc) == NULL)
        return 1;
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    if (rig_sync(&q->r, &scan, RIG_S(10)) != PCAM_REQ_CMP)
        return 1;
    q->rng = 7;

    printf("disk at ID 0 holds at most %d tasks; %d tagged 4 KiB reads kept outstanding;\n"
           "the core starts at depth %u (qfull_ramp_successes = %d for this scene)\n",
           QF_LIMIT, QF_DEPTH, (unsigned)pcam_lun_depth(&q->r.bus, 0, 0), QF_RAMP);
    uint64_t t0 = pcam_sim_now(q->r.sim);
    for (unsigned i = 0; i < QF_DEPTH; i++)
        qf_submit(q, &q->jobs[i]);

    /* Phase 1: the limit holds. Watch the depth over 600 completions. */
    uint16_t lo = UINT16_MAX, hi = 0, first = 0;
    double t_first = 0;
    while (q->done < 600 && simrig_step(&q->r)) {
        uint16_t d = pcam_lun_depth(&q->r.bus, 0, 0);
        if (first == 0 && d != QF_DEPTH) {
            first = d;
            t_first = ms(&q->r, t0);
        }
        if (q->done > 64) {
            if (d < lo) lo = d;
            if (d > hi) hi = d;
        }
    }
    pcam_counters c;
    pcam_bus_get_counters(&q->r.bus, 0, &c);
    printf("  limit 5:  QUEUE FULL at %.1f ms sets the depth to %u; over %" PRIu64 " commands it stays"
           " %u..%u\n            (probing one deeper every %d successes), %u QUEUE FULLs, %u retries,"
           " %" PRIu64 " errors\n",
           t_first, first, q->done, lo, hi, QF_RAMP, c.queue_fulls, c.retries, q->errors);
    EXPECT(first == QF_LIMIT && lo == QF_LIMIT && hi <= QF_LIMIT + 1,
           "qfull: the depth went to %u and stayed %u..%u, not %d", first, lo, hi, QF_LIMIT);
    EXPECT(q->errors == 0 && c.retries == 0, "qfull: %" PRIu64 " errors, %u retries spent", q->errors,
           c.retries);

    /* Phase 2: lift the limit; the depth climbs back by one per QF_RAMP. */
    pcam_sim_target_cfg(q->r.sim, 0)->task_set_limit = 0;
    pcam_counters c1;
    pcam_bus_get_counters(&q->r.bus, 0, &c1);
    uint64_t base = q->done;
    uint16_t last = pcam_lun_depth(&q->r.bus, 0, 0);
    printf("  lifted:   depth");
    uint64_t steps_at[QF_DEPTH + 1] = {0};
    printf(" %u", last);
    while (last < QF_DEPTH && q->done < base + 4000 && simrig_step(&q->r)) {
        uint16_t d = pcam_lun_depth(&q->r.bus, 0, 0);
        if (d != last) {
            if (d <= QF_DEPTH)
                steps_at[d] = q->done - base;
            if (d % 4 == 0 || d == QF_DEPTH)
                printf(" %u", d);
            last = d;
        }
    }
    pcam_counters c2;
    pcam_bus_get_counters(&q->r.bus, 0, &c2);
    printf("  after %" PRIu64 " more commands\n", q->done - base);
    printf("            (%u QUEUE FULLs since the limit was lifted, %" PRIu64 " errors in all)\n",
           c2.queue_fulls - c1.queue_fulls, q->errors);
    EXPECT(last == QF_DEPTH, "qfull: the depth climbed only to %u", last);
    /* Each step needs QF_RAMP successes at the depth below (a completion
     * may land between the lift and the next check, hence the slack). */
    uint64_t need = (uint64_t)(QF_DEPTH - QF_LIMIT - 1) * QF_RAMP;
    EXPECT(steps_at[QF_DEPTH] >= need && steps_at[QF_DEPTH] <= need + 2 * QF_RAMP,
           "qfull: depth %d reached after %" PRIu64 " commands, expected about %" PRIu64, QF_DEPTH,
           steps_at[QF_DEPTH], need);
    EXPECT(c2.queue_fulls == c1.queue_fulls, "qfull: QUEUE FULL after the limit was lifted");
    q->stop = true;
    simrig_fini(&q->r);
    free(q);
    return 0;
}

/* ---- the recovery ladder ---- */

static const char *ev_text(const pcam_event *e, char *buf, size_t n)
{
    switch (e->code) {
    case PCAM_EV_TIMEOUT: snprintf(buf, n, "command timeout on ID %u", e->target); break;
    case PCAM_EV_ABORT_SENT: snprintf(buf, n, "ABORT TASK taken by ID %u", e->target); break;
    case PCAM_EV_MSG_REJECT:
        snprintf(buf, n, "ID %u answers %s with MESSAGE REJECT", e->target,
                 e->arg == PCAM_MSG_ABORT_TASK ? "ABORT TASK"
                 : e->arg == PCAM_MSG_TARGET_RESET ? "TARGET RESET (BUS DEVICE RESET)" : "a message");
        break;
    case PCAM_EV_BDR_SENT: snprintf(buf, n, "BUS DEVICE RESET taken by ID %u", e->target); break;
    case PCAM_EV_BUS_RESET: snprintf(buf, n, "SCSI bus reset (%s)", e->arg == 1 ? "ours" : "seen"); break;
    case PCAM_EV_CHIP_RESET: snprintf(buf, n, "chip reset"); break;
    default: return NULL;
    }
    return buf;
}

static int scene_ladder(void)
{
    simrig *r = calloc(1, sizeof *r);
    if (r == NULL)
        return 1;
    pcam_bus_config bc;
    pcam_bus_config_defaults(&bc);
    bc.luns_per_target = 1;
    if (simrig_init(r, NULL, &bc, false) != 0)
        return 1;
    r->check_every = 0;
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    if (simrig_add_disk(r, 0, 0, 4096, &tc) == NULL)
        return 1;
    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_SCAN_BUS;
    if (rig_sync(r, &rc, RIG_S(10)) != PCAM_REQ_CMP)
        return 1;
    pcam_event evs[PCAM_EVENT_RING];
    pcam_bus_read_events(&r->bus, evs, PCAM_EVENT_RING); /* forget the scan's */

    pcam_sim_target_config *t0 = pcam_sim_target_cfg(r->sim, 0);
    t0->refuse_abort = true;
    t0->refuse_reset = true;
    t0->ua_after_reset = false;
    t0->hang_next = 1;
    pcam_sim_chip_stall_bus_reset(r->sim, 1);
    printf("ID 0 takes a READ and never finishes it, ignores ABORT TASK and TARGET RESET,\n"
           "and the chip's first bus reset wedges; timeout 500 ms, abort_timeout_ms %u:\n",
           (unsigned)bc.abort_timeout_ms);
    static uint8_t buf[4096];
    uint8_t cdb[10];
    pcam_cdb_read(cdb, sizeof cdb, 10, 100, 8, 0);
    rig_ccb_io(&rc, 0, 0, cdb, 10, PCAM_DIR_IN, buf, sizeof buf);
    rc.ccb.timeout_ms = 500;
    rc.ccb.u.io.retries = 0;
    uint64_t t0ns = pcam_sim_now(r->sim);
    uint32_t st = rig_sync(r, &rc, RIG_S(30));
    double took = ms(r, t0ns);

    size_t n = pcam_bus_read_events(&r->bus, evs, PCAM_EVENT_RING);
    /* The rungs in order: timeout, ABORT TASK refused, TARGET RESET refused,
     * (bus reset swallowed), chip reset, bus reset. */
    static const uint16_t want[] = {PCAM_EV_TIMEOUT, PCAM_EV_MSG_REJECT, PCAM_EV_MSG_REJECT,
                                    PCAM_EV_CHIP_RESET, PCAM_EV_BUS_RESET};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char text[96];
        if (ev_text(&evs[i], text, sizeof text) == NULL)
            continue;
        printf("  %7.1f ms  %s\n", (double)(evs[i].time_ns - t0ns) / 1e6, text);
        if (k < sizeof want / sizeof want[0] && evs[i].code == want[k])
            k++;
    }
    printf("  (the bus reset asked for at %.1f ms never came: the chip was wedged)\n",
           500.0 + 2.0 * bc.abort_timeout_ms);
    printf("  the READ completes once, %s, after %.1f ms;", pcam_status_name(st), took);
    EXPECT(k == sizeof want / sizeof want[0], "ladder: only %zu of the 5 rungs seen in order", k);
    EXPECT(st == PCAM_CMD_TIMEOUT && rc.done_count == 1, "ladder: the READ ended %s (%u times)",
           pcam_status_name(st), rc.done_count);
    /* 0.5 s timeout, three rungs of abort_timeout_ms, then the settle delay. */
    double expect = 500.0 + 3.0 * bc.abort_timeout_ms;
    EXPECT(took >= expect && took < expect + bc.reset_settle_ms + 500.0,
           "ladder: took %.1f ms, expected %.1f to %.1f", took, expect,
           expect + bc.reset_settle_ms + 500.0);
    rig_ccb_io(&rc, 0, 0, cdb, 10, PCAM_DIR_IN, buf, sizeof buf);
    st = rig_sync(r, &rc, RIG_S(30));
    printf(" the same READ again: %s\n", pcam_status_name(st));
    EXPECT(st == PCAM_REQ_CMP, "ladder: the READ after recovery ended %s", pcam_status_name(st));
    simrig_fini(r);
    free(r);
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    int rc;
    if (strcmp(which, "qfull") == 0)
        rc = scene_qfull();
    else if (strcmp(which, "ladder") == 0)
        rc = scene_ladder();
    else {
        fprintf(stderr, "usage: scenes qfull|ladder\n");
        return 2;
    }
    if (rc != 0)
        fprintf(stderr, "scenes: could not build the simulated bus\n");
    return rc != 0 || failed ? 1 : 0;
}
