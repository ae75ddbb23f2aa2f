/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Chained endings (pcam_hal.h): a chip that reads the status byte and the
 * first message-in byte itself and reports them with the action that led
 * there. The same commands run on a chip that chains and on one that
 * reports every step; they must end the same (status, data, sense,
 * residual), and the chip must report exactly the events worked out by
 * hand below for a tagged 4 KiB read that disconnects (4 events against 13,
 * the reselection chained too). Then the chained reselection against
 * lying and failing targets, each fault also run on a chip that does not
 * chain as the reference (PCAM_CHAIN_LOG=1 prints both outcomes).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"
#include "simrig.h"

#define BLOCKS 2048u
#define LOG_MAX 64

/* Every event the core fetched, with what was taken. */
static pcam_hal_event seen[LOG_MAX];
static unsigned nseen;
static const pcam_hal_ops *real_ops;

static int logging_poll(void *sc, pcam_hal_event *ev)
{
    int rc = real_ops->poll(sc, ev);
    if (rc == 1 && nseen < LOG_MAX)
        seen[nseen++] = *ev;
    return rc;
}

typedef struct world {
    simrig r;
    pcam_hal_ops ops;
    uint8_t *media;
} world;

static void world_init(world *w, bool chain)
{
    pcam_sim_target_config tc;
    rig_ccb scan;
    setenv("PCAM_SIM_CHAIN", chain ? "1" : "0", 1);
    assert_int_equal(simrig_init(&w->r, NULL, NULL, false), 0);
    unsetenv("PCAM_SIM_CHAIN");
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    w->media = simrig_add_disk(&w->r, 2, 0, BLOCKS, &tc);
    assert_non_null(w->media);
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&w->r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    real_ops = w->r.bus.hal.ops;
    w->ops = *real_ops;
    w->ops.poll = logging_poll;
    w->r.bus.hal.ops = &w->ops;
}

static void read10(rig_ccb *c, uint32_t lba, uint16_t blocks, void *buf, uint32_t len)
{
    uint8_t cdb[10];
    pcam_cdb_read(cdb, sizeof cdb, 10, lba, blocks, 0);
    rig_ccb_io(c, 2, 0, cdb, 10, PCAM_DIR_IN, buf, len);
    c->ccb.flags |= PCAM_CCB_TAGGED;
    c->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
}

/* The hand-worked sequence of a tagged read that disconnects at once. */
static void events_of_one_read(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    for (int chain = 1; chain >= 0; chain--) {
        world w;
        rig_ccb c;
        world_init(&w, chain != 0);
        nseen = 0;
        read10(&c, 100, 8, buf, sizeof buf);
        assert_int_equal(rig_sync(&w.r, &c, RIG_S(5)), PCAM_REQ_CMP);
        assert_memory_equal(buf, w.media + 100 * 512, sizeof buf);
        if (chain) {
            /* select, +DISCONNECT accepted, free | reselect, +IDENTIFY
             * accepted, +SIMPLE accepted, +tag held | DATA IN | data,
             * +status, +COMMAND COMPLETE accepted, free */
            assert_int_equal(nseen, 4);
            assert_int_equal(seen[0].type, PCAM_HAL_EV_SELECT_DONE);
            assert_int_equal(seen[0].took, PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_ACCEPTED);
            assert_int_equal(seen[0].msg, PCAM_MSG_DISCONNECT);
            assert_int_equal(seen[0].phase, PCAM_PHASE_BUS_FREE);
            assert_int_equal(seen[1].type, PCAM_HAL_EV_RESELECTED);
            assert_int_equal(seen[1].byte, PCAM_MSG_IDENTIFY | 0); /* LUN 0, no disconnect bit from a target */
            assert_int_equal(seen[1].took,
                             PCAM_HAL_TOOK_IDENTIFY | PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_TAG);
            assert_int_equal(seen[1].msg, PCAM_MSG_SIMPLE_TAG);
            assert_int_equal(seen[1].tag, c.ccb.priv.tag); /* the tag the core gave it */
            assert_int_equal(seen[1].phase, PCAM_PHASE_MSG_IN);
            assert_int_equal(seen[2].type, PCAM_HAL_EV_PHASE);
            assert_int_equal(seen[2].took, 0);
            assert_int_equal(seen[2].phase, PCAM_PHASE_DATA_IN);
            assert_int_equal(seen[3].type, PCAM_HAL_EV_XFER_DONE);
            assert_int_equal(seen[3].count, 4096);
            assert_int_equal(seen[3].took,
                             PCAM_HAL_TOOK_STATUS | PCAM_HAL_TOOK_MSG | PCAM_HAL_TOOK_ACCEPTED);
            assert_int_equal(seen[3].status, 0x00);
            assert_int_equal(seen[3].msg, PCAM_MSG_COMMAND_COMPLETE);
            assert_int_equal(seen[3].phase, PCAM_PHASE_BUS_FREE);
        } else {
            /* Each step its own event: select, DISCONNECT, free |
             * reselect, MESSAGE IN, SIMPLE, MESSAGE IN, tag, DATA IN | data,
             * status, COMMAND COMPLETE, free. */
            assert_int_equal(nseen, 13);
            for (unsigned i = 0; i < nseen; i++)
                assert_int_equal(seen[i].took, 0);
        }
        assert_null(w.r.violation);
        simrig_fini(&w.r);
    }
}

/* Commands that end otherwise end the same on both chips. */
static void same_outcomes(void **state)
{
    (void)state;
    uint32_t st[2][3];
    uint8_t key[2];
    uint32_t resid[2];
    static uint8_t buf[2][4096];
    for (int chain = 0; chain < 2; chain++) {
        world w;
        rig_ccb c;
        uint8_t sense[32];
        world_init(&w, chain != 0);
        /* 1: good read; 2: past the end (CHECK CONDITION + autosense);
         * 3: TEST UNIT READY (no data: CDB, then STATUS at once). */
        read10(&c, 7, 8, buf[chain], sizeof buf[chain]);
        st[chain][0] = rig_sync(&w.r, &c, RIG_S(5));
        read10(&c, BLOCKS - 1, 8, buf[chain], sizeof buf[chain]);
        c.ccb.u.io.sense = sense;
        c.ccb.u.io.sense_len = sizeof sense;
        c.ccb.u.io.retries = 0;
        memset(sense, 0, sizeof sense);
        st[chain][1] = rig_sync(&w.r, &c, RIG_S(5));
        key[chain] = sense[2] & 0x0F;
        resid[chain] = c.ccb.u.io.resid;
        uint8_t tur[6] = {0};
        rig_ccb_io(&c, 2, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
        st[chain][2] = rig_sync(&w.r, &c, RIG_S(5));
        assert_null(w.r.violation);
        simrig_fini(&w.r);
    }
    assert_int_equal(st[1][0], PCAM_REQ_CMP);
    assert_int_equal(st[1][1] & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_true((st[1][1] & PCAM_AUTOSNS_VALID) != 0);
    assert_int_equal(key[1], 0x05); /* ILLEGAL REQUEST: LBA out of range */
    assert_int_equal(st[1][2], PCAM_REQ_CMP);
    assert_memory_equal(st[0], st[1], sizeof st[0]);
    assert_int_equal(key[0], key[1]);
    assert_int_equal(resid[0], resid[1]);
    assert_memory_equal(buf[0], buf[1], sizeof buf[0]);
}

/* Several targets kept busy, a finished read replaced between chip steps
 * as an upper layer would: the core then selects while a chip that chains
 * may still be taking a reselection it has not reported. That select must
 * come to nothing (the reselection is its outcome), as for one the core
 * has heard of: no call-order violation, no chip reset, every read
 * complete with its data. */
static void select_during_chained_reselection(void **state)
{
    (void)state;
    enum { T = 4, N = 4, ROUNDS = 400 };
    static uint8_t buf[T][N][4096];
    static rig_ccb c[T][N];
    static uint32_t lba[T][N];
    static unsigned wait[T][N];
    world w;
    pcam_sim_target_config tc;
    pcam_sim_bus_stats bs;
    uint8_t *media[T];
    unsigned done = 0, next = 0;
    world_init(&w, true);
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    media[0] = w.media;
    for (uint8_t t = 1; t < T; t++) {
        media[t] = simrig_add_disk(&w.r, (uint8_t)(2 + t), 0, BLOCKS, &tc);
        assert_non_null(media[t]);
    }
    rig_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&w.r, &scan, RIG_S(30)), PCAM_REQ_CMP);
    for (uint8_t t = 0; t < T; t++)
        for (unsigned i = 0; i < N; i++)
            c[t][i].done_count = 1; /* free: filled below */
    while (done < ROUNDS * T) {
        for (uint8_t t = 0; t < T; t++)
            for (unsigned i = 0; i < N; i++) {
                if (c[t][i].done_count == 0)
                    continue;
                if (c[t][i].ccb.func == PCAM_FN_SCSI_IO) {
                    assert_int_equal(c[t][i].done_count, 1);
                    assert_int_equal(c[t][i].ccb.status, PCAM_REQ_CMP);
                    assert_memory_equal(buf[t][i], media[t] + lba[t][i] * 512, 4096);
                    done++;
                    c[t][i].ccb.func = 0;
                    wait[t][i] = next % 5u; /* a few chip steps later, not at the bus free */
                }
                if (wait[t][i] != 0) {
                    wait[t][i]--;
                    continue;
                }
                lba[t][i] = (next++ * 37u) % (BLOCKS - 8);
                read10(&c[t][i], lba[t][i], 8, buf[t][i], sizeof buf[t][i]);
                c[t][i].ccb.target = (uint8_t)(2 + t);
                rig_submit(&w.r, &c[t][i]);
            }
        assert_true(simrig_step(&w.r));
    }
    pcam_sim_bus_stats_get(w.r.sim, &bs);
    assert_int_equal(bs.gross_errors, 0);
    assert_null(w.r.violation);
    simrig_fini(&w.r);
}

/* ---- chained reselection against a lying or failing target ---- */

/*
 * Each fault is run on a chip that chains the reselection (IDENTIFY and
 * tag message taken in one event) and on one that reports every byte. The
 * chip that does not chain is the reference: the core must end the faulty
 * read the same way, send the target the same messages and leave the bus
 * as usable. The chained run must also really have taken the fault in a
 * chained event, or the comparison would prove nothing.
 */
typedef enum fault { F_LIE_TAG, F_LIE_LUN, F_TAG_PARITY, F_FREE_AFTER_IDENTIFY, F_BREACH } fault;

typedef struct outcome {
    uint32_t st1, st2;         /* the faulty read, then a plain one */
    unsigned done1;            /* completions of the faulty read */
    bool data2_ok;
    uint32_t timeouts, parity_errors;
    bool chained_fault;        /* the fault arrived in a chained RESELECTED event */
    uint8_t out[64];           /* every message-out byte to the target, in order */
    unsigned nout;
} outcome;

/* How many of the message-out bytes were `msg`. */
static unsigned sent(const outcome *o, uint8_t msg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < o->nout; i++)
        n += o->out[i] == msg;
    return n;
}

static fault cur_fault;
static bool armed;

/* Fault injection at the back-end boundary: a parity error on the tag byte
 * (on the chained event, or on the tag byte's own MSG_BYTE event). */
static int fault_poll(void *sc, pcam_hal_event *ev)
{
    static bool after_code;
    int rc = logging_poll(sc, ev);
    if (rc == 1 && cur_fault == F_BREACH && armed && ev->type == PCAM_HAL_EV_RESELECTED &&
        (ev->took & PCAM_HAL_TOOK_IDENTIFY) != 0) {
        ev->parity_error = true; /* "accepted" an IDENTIFY that came with bad parity */
        armed = false;
    }
    if (rc != 1 || cur_fault != F_TAG_PARITY || !armed)
        return rc;
    if (ev->type == PCAM_HAL_EV_RESELECTED) {
        after_code = false;
        if ((ev->took & PCAM_HAL_TOOK_TAG) != 0) {
            ev->took |= PCAM_HAL_TOOK_MSG_PARITY;
            armed = false;
        }
    } else if (ev->type == PCAM_HAL_EV_MSG_BYTE || (ev->took & PCAM_HAL_TOOK_MSG) != 0) {
        uint8_t b = ev->type == PCAM_HAL_EV_MSG_BYTE ? ev->byte : ev->msg;
        if (after_code) {
            if (ev->type == PCAM_HAL_EV_MSG_BYTE)
                ev->parity_error = true;
            else
                ev->took |= PCAM_HAL_TOOK_MSG_PARITY;
            armed = false;
        }
        after_code = b >= PCAM_MSG_SIMPLE_TAG && b <= PCAM_MSG_ORDERED_TAG;
    }
    return rc;
}

/* The target lets go of the bus right after its IDENTIFY. */
static bool free_oracle(void *ctx, pcam_sim_oracle_query *q)
{
    (void)ctx;
    if (cur_fault != F_FREE_AFTER_IDENTIFY)
        return false;
    if (q->what == PCAM_SIM_DEC_RESELECT && armed) {
        armed = false; /* the next decision is the one after the IDENTIFY */
        return false;
    }
    if (q->what == PCAM_SIM_DEC_NEXT && q->target == 2 && !armed && q->phase == PCAM_PHASE_MSG_IN) {
        cur_fault = (fault)-1; /* once */
        q->action = PCAM_SIM_NEXT_FREE;
        return true;
    }
    return false;
}

static void run_fault(fault f, bool chain, outcome *o)
{
    static uint8_t buf[4096];
    world w;
    rig_ccb c;
    pcam_counters pc;
    size_t from;
    world_init(&w, chain);
    from = pcam_sim_trace_count(w.r.sim); /* after the scan */
    w.ops.poll = fault_poll;
    pcam_sim_target_cfg(w.r.sim, 2)->oracle = free_oracle;
    memset(o, 0, sizeof *o);
    cur_fault = f;
    armed = true;
    nseen = 0;
    if (f == F_LIE_TAG)
        pcam_sim_target_cfg(w.r.sim, 2)->lie_tag_next = 1;
    if (f == F_LIE_LUN)
        pcam_sim_target_cfg(w.r.sim, 2)->lie_lun_next = 1;
    read10(&c, 100, 8, buf, sizeof buf);
    c.ccb.timeout_ms = 1000;
    o->st1 = rig_sync(&w.r, &c, RIG_S(30));
    o->done1 = c.done_count;
    for (unsigned i = 0; i < nseen; i++)
        if (seen[i].type == PCAM_HAL_EV_RESELECTED && (seen[i].took & PCAM_HAL_TOOK_IDENTIFY) != 0 &&
            (f == F_FREE_AFTER_IDENTIFY ? seen[i].phase == PCAM_PHASE_BUS_FREE
                                        : (seen[i].took & PCAM_HAL_TOOK_TAG) != 0))
            o->chained_fault = true;
    cur_fault = (fault)-1;
    memset(buf, 0, sizeof buf);
    read10(&c, 200, 8, buf, sizeof buf);
    o->st2 = rig_sync(&w.r, &c, RIG_S(30));
    o->data2_ok = memcmp(buf, w.media + 200 * 512, sizeof buf) == 0;
    assert_int_equal(pcam_sim_trace_dropped(w.r.sim), 0);
    pcam_sim_trace_entry e;
    for (size_t i = from; pcam_sim_trace_get(w.r.sim, i, &e); i++)
        if (e.kind == PCAM_SIM_TR_MSG_OUT && e.target == 2) {
            assert_true(o->nout < sizeof o->out); /* none left out of the comparison */
            o->out[o->nout++] = e.byte;
        }
    assert_int_equal(pcam_bus_get_counters(&w.r.bus, 2, &pc), PCAM_OK);
    o->timeouts = pc.timeouts;
    o->parity_errors = pc.parity_errors;
    assert_null(w.r.violation);
    simrig_fini(&w.r);
}

static void check_fault(fault f, outcome *chained)
{
    outcome plain;
    run_fault(f, false, &plain);
    run_fault(f, true, chained);
    if (getenv("PCAM_CHAIN_LOG") != NULL)
        for (int i = 0; i < 2; i++) {
            const outcome *o = i ? chained : &plain;
            fprintf(stderr, "%s: st %x/%x done %u data %d ABORT TASK %u ABORT TASK SET %u MPE %u timeouts %u parity %u chained %d\n",
                    i ? "chained" : "plain", o->st1, o->st2, o->done1, o->data2_ok,
                    sent(o, PCAM_MSG_ABORT_TASK), sent(o, PCAM_MSG_ABORT_TASK_SET),
                    sent(o, PCAM_MSG_MESSAGE_PARITY_ERROR), o->timeouts, o->parity_errors, o->chained_fault);
        }
    assert_true(chained->chained_fault);
    assert_false(plain.chained_fault);
    assert_int_equal(chained->done1, 1);
    assert_int_equal(chained->st2, PCAM_REQ_CMP);
    assert_true(chained->data2_ok);
    assert_int_equal(chained->st1, plain.st1);
    assert_int_equal(chained->done1, plain.done1);
    assert_int_equal(chained->timeouts, plain.timeouts);
    assert_int_equal(chained->parity_errors, plain.parity_errors);
    /* The same messages to the target in the same order. */
    assert_int_equal(chained->nout, plain.nout);
    assert_memory_equal(chained->out, plain.out, plain.nout);
}

/* A tag that is none of ours: ABORT TASK on that nexus at once; the read
 * the target dropped for it times out and is aborted by its own tag. */
static void resel_lying_tag(void **state)
{
    (void)state;
    outcome o;
    check_fault(F_LIE_TAG, &o);
    assert_int_equal(o.st1, PCAM_CMD_TIMEOUT);
    assert_int_equal(sent(&o, PCAM_MSG_ABORT_TASK), 2);
    assert_int_equal(o.timeouts, 1);
}

/* An IDENTIFY of a LUN with nothing disconnected: the core answers the
 * byte it holds (the chained tag) with ATN and ABORT TASK SET. */
static void resel_lying_lun(void **state)
{
    (void)state;
    outcome o;
    check_fault(F_LIE_LUN, &o);
    assert_int_equal(sent(&o, PCAM_MSG_ABORT_TASK_SET), 1);
    assert_int_not_equal(o.st1, PCAM_REQ_CMP);
}

/* The chained tag byte with a parity error: MESSAGE PARITY ERROR, the
 * target sends the tag message again and the read completes. */
static void resel_tag_parity(void **state)
{
    (void)state;
    outcome o;
    check_fault(F_TAG_PARITY, &o);
    assert_int_equal(o.st1, PCAM_REQ_CMP);
    assert_int_equal(sent(&o, PCAM_MSG_MESSAGE_PARITY_ERROR), 1);
    assert_int_equal(o.parity_errors, 1);
    assert_int_equal(o.timeouts, 0);
}

/* The target drops the bus after the IDENTIFY the chip accepted: an
 * unexpected bus free; the read it forgot times out. */
static void resel_free_after_identify(void **state)
{
    (void)state;
    outcome o;
    check_fault(F_FREE_AFTER_IDENTIFY, &o);
    assert_int_equal(o.st1, PCAM_CMD_TIMEOUT);
    assert_int_equal(o.timeouts, 1);
}

/* A back-end that accepts an IDENTIFY with a parity error has broken the
 * contract (the core would have asked for it again): the core trusts
 * nothing more from the chip, resets it and the bus, and the read goes out
 * again and completes, once. */
static void resel_contract_breach(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    world w;
    rig_ccb c;
    pcam_sim_bus_stats b0, b1;
    world_init(&w, true);
    w.ops.poll = fault_poll;
    cur_fault = F_BREACH;
    armed = true;
    pcam_sim_bus_stats_get(w.r.sim, &b0);
    read10(&c, 300, 8, buf, sizeof buf);
    assert_int_equal(rig_sync(&w.r, &c, RIG_S(30)), PCAM_REQ_CMP);
    assert_false(armed); /* the breach was made */
    assert_int_equal(c.done_count, 1);
    assert_memory_equal(buf, w.media + 300 * 512, sizeof buf);
    pcam_sim_bus_stats_get(w.r.sim, &b1);
    assert_int_equal(b1.bus_resets - b0.bus_resets, 1);
    cur_fault = (fault)-1;
    assert_null(w.r.violation);
    simrig_fini(&w.r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_of_one_read),
        cmocka_unit_test(same_outcomes),
        cmocka_unit_test(select_during_chained_reselection),
        cmocka_unit_test(resel_lying_tag),
        cmocka_unit_test(resel_lying_lun),
        cmocka_unit_test(resel_tag_parity),
        cmocka_unit_test(resel_free_after_identify),
        cmocka_unit_test(resel_contract_breach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
