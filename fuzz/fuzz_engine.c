/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The whole engine against an adversarial target. A pcam bus runs on the
 * simulated SCSI bus (hal/sim) with a few disk targets whose decisions come
 * from the input through the simulator's oracle hook: what phase comes
 * next, the message bytes, the status byte, data lengths, whether to
 * disconnect, the IDENTIFY of a reselection (hence LUN and, through the
 * tag message, the tag), reselections with nothing to reselect for. The
 * input also plays the upper layer: it submits SCSI I/O with varied CDBs,
 * directions, tag actions, buffers or scatter-gather lists, sense buffers
 * and timeouts, and aborts, resets, releases queues and scans.
 *
 * Checked on every input:
 *  - every CCB handed to the core completes exactly once (at once if it
 *    completes twice; after the drain and pcam_bus_shutdown(), none left);
 *  - no access outside any buffer: data, sense and sg lists are exact-size
 *    heap blocks (ASan, Valgrind), sg segments sit between canary bytes
 *    checked after completion, and under ASan a completed CCB's buffers are
 *    poisoned so a late write by the core is caught;
 *  - results are in range (resid, sense_resid, a defined status);
 *  - pcam_bus_check_invariants() returns NULL after every step that entered
 *    the core;
 *  - the run ends within a step budget, and the core never goes idle with
 *    a CCB outstanding (that is a lost command). Either is a hang: abort.
 *
 * Input layout:
 *   byte 0   configuration bits (see setup())
 *   byte 1   N (bits 0-6): number of 4-byte operations that follow; bit 7:
 *            the chip chains (endings and reselections, pcam_hal.h)
 *   N * 4    operations (op, a, b, c): see run_op()
 *   rest     the oracle stream, read front to back, one decision at a time
 *            (see the oracle_* functions). Every decision takes at least one
 *            byte and 0x00 means "no opinion", so the adversary's influence
 *            ends with the input and the model's normal behaviour then lets
 *            the run finish.
 *
 * Set PCAM_FUZZ_TRACE=1 to get the bus phase log and the core's log on stderr.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam_sim.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#endif
#ifdef HAVE_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define NSLOT 24          /* CCBs one input may hand in */
#define NREL 32           /* queue releases issued from completion callbacks */
#define STEP_BUDGET 20000 /* steps for the whole run; more is a hang */
#define LPT 2             /* LUN slots per target in the core */
#define CANARY 0xA5
#define GAP 8             /* canary bytes around each sg segment */

static void fail(const char *why)
{
    fprintf(stderr, "fuzz_engine: %s\n", why);
    abort();
}

#define CHECK(c, why)       \
    do {                    \
        if (!(c))           \
            fail(why);      \
    } while (0)

/* ---- the oracle: an input stream of decisions ---- */

static const uint8_t *orc;
static size_t orc_len, orc_pos;

static bool orc_byte(uint8_t *b)
{
    if (orc_pos >= orc_len)
        return false;
    *b = orc[orc_pos++];
    return true;
}

static uint8_t orc_next(void)
{
    uint8_t b = 0;
    (void)orc_byte(&b);
    return b;
}

static bool trace_on;

static bool oracle(void *ctx, pcam_sim_oracle_query *q)
{
    uint8_t b;
    unsigned i;

    (void)ctx;
    if (trace_on)
        fprintf(stderr, "oracle: ask %d at stream byte %zu (T%u phase %d value %u)\n", (int)q->what,
                orc_pos, q->target, (int)q->phase, (unsigned)q->value);
    if (!orc_byte(&b) || b == 0)
        return false;
    switch (q->what) {
    case PCAM_SIM_DEC_NEXT:
        /* b: action in bits 0-1, phase or message length in bits 2-4. */
        q->action = (pcam_sim_next_action)(b & 3u);
        if (q->action == PCAM_SIM_NEXT_REQ) {
            q->phase = (pcam_phase)((b >> 2) & 7u);
            q->value = orc_next();
        } else if (q->action == PCAM_SIM_NEXT_MSG) {
            q->len = (uint8_t)(1u + ((b >> 2) & 7u));
            for (i = 0; i < q->len; i++)
                q->bytes[i] = orc_next();
        } else if (q->action == PCAM_SIM_NEXT_HANG && (b & 0x80u) == 0) {
            return false; /* hangs only on purpose: they cost a whole recovery */
        }
        return true;
    case PCAM_SIM_DEC_MESSAGE:
        q->len = (uint8_t)(1u + (b & 7u));
        for (i = 0; i < q->len; i++)
            q->bytes[i] = orc_next();
        return true;
    case PCAM_SIM_DEC_STATUS:
    case PCAM_SIM_DEC_RESELECT:
        q->value = orc_next();
        return true;
    case PCAM_SIM_DEC_DATA_LEN:
        q->value = (uint32_t)orc_next() << ((b & 1u) ? 8u : 0u);
        q->value |= orc_next();
        return true;
    case PCAM_SIM_DEC_DISCONNECT:
        q->value = b & 1u;
        return true;
    default:
        return false;
    }
}

/* ---- tracked CCBs ---- */

typedef struct slot {
    pcam_ccb ccb;
    bool used;          /* handed to the core */
    unsigned done;      /* completions seen */
    uint32_t first_status; /* status at the first completion */
    uint8_t *data;      /* exact-size data buffer, or NULL */
    size_t data_len;
    uint8_t *arena;     /* sg segments with canary gaps */
    size_t arena_len;
    pcam_sg *sg;        /* exact-size sg list */
    uint16_t sg_count;
    uint8_t *sense;     /* exact-size sense buffer */
    size_t sense_len;
} slot;

static slot slots[NSLOT];
static pcam_ccb rel[NREL];
static unsigned rel_used, rel_done;
static uint8_t rel_count[NREL];
static unsigned outstanding;

static pcam_bus bus;
static pcam_lun *luns;
static pcam_sim *sim;
static bool polled, release_in_callback;
static uint64_t steps;
static uint8_t frozen[PCAM_MAX_TARGETS]; /* LUN bits whose queue a completion left frozen */

static void check_canaries(const slot *s)
{
    size_t i;
    if (s->arena == NULL)
        return;
    /* Every byte of the arena outside the segments is a canary. */
    const uint8_t *p = s->arena;
    size_t pos = 0;
    for (uint16_t k = 0; k < s->sg_count; k++) {
        size_t start = (size_t)((uint8_t *)s->sg[k].addr - p);
        for (i = pos; i < start; i++)
            CHECK(p[i] == CANARY, "write into an sg gap");
        pos = start + s->sg[k].len;
    }
    for (i = pos; i < s->arena_len; i++)
        CHECK(p[i] == CANARY, "write past the last sg segment");
}

static void release_ccb(pcam_ccb *c);

static void slot_done(pcam_ccb *c)
{
    slot *s = (slot *)c; /* ccb is the first member */

    CHECK(s >= slots && s < slots + NSLOT, "completion of a CCB nobody handed in");
    CHECK(s->used, "completion of a CCB not handed in");
    if (s->done != 0)
        fprintf(stderr, "fuzz_engine: slot %u (func %u, T%u) completes again with %s after %s\n",
                (unsigned)(s - slots), c->func, c->target, pcam_status_name(c->status),
                pcam_status_name(s->first_status));
    CHECK(++s->done == 1, "CCB completed twice");
    s->first_status = c->status;
    CHECK((c->status & PCAM_STATUS_MASK) != PCAM_REQ_INPROG, "completed with REQ_INPROG");
    CHECK(outstanding > 0, "more completions than submissions");
    outstanding--;
    if (c->func == PCAM_FN_SCSI_IO) {
        CHECK(c->u.io.resid <= c->u.io.data_len, "resid above data_len");
        CHECK(c->u.io.sense_resid <= c->u.io.sense_len, "sense_resid above sense_len");
        check_canaries(s);
        /* From here on the buffers are the caller's again. */
        if (s->data != NULL)
            POISON(s->data, s->data_len);
        if (s->arena != NULL)
            POISON(s->arena, s->arena_len);
        if (s->sense != NULL)
            POISON(s->sense, s->sense_len);
    }
    if ((c->status & PCAM_DEV_QFRZN) != 0 && c->target < PCAM_MAX_TARGETS && c->lun < 8) {
        frozen[c->target] |= (uint8_t)(1u << c->lun);
        if (release_in_callback)
            release_ccb(c);
    }
}

static void rel_done_fn(pcam_ccb *c)
{
    CHECK(c >= rel && c < rel + NREL, "release completion of a stranger");
    CHECK(++rel_count[c - rel] == 1, "release CCB completed twice");
    rel_done++;
}

/* A peripheral driver releases the queue a completion left frozen. */
static void release_lun(uint8_t target, uint8_t lun)
{
    pcam_ccb *c;

    if (rel_used >= NREL)
        return;
    c = &rel[rel_used++];
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_REL_QUEUE;
    c->target = target;
    c->lun = lun;
    c->done = rel_done_fn;
    pcam_action(&bus, c);
}

static void release_ccb(pcam_ccb *c)
{
    frozen[c->target] &= (uint8_t)~(1u << c->lun);
    release_lun(c->target, c->lun);
}

static bool release_all(void)
{
    bool any = false;
    for (uint8_t t = 0; t < PCAM_MAX_TARGETS; t++)
        for (uint8_t l = 0; l < 8; l++)
            if (frozen[t] & (1u << l)) {
                frozen[t] &= (uint8_t)~(1u << l);
                release_lun(t, l);
                any = true;
            }
    return any;
}

/* ---- running the bus ---- */

/* The core's view of the chip goes through this shim, which counts the
 * events it fetches: one pcam_bus_intr() that never returns (a zero-time
 * loop between the core and the chip) is a hang the step count cannot see. */
static pcam_hal sim_hal;
static pcam_hal_ops shim_ops;
static uint64_t polls;

static int shim_poll(void *sc, pcam_hal_event *ev)
{
    CHECK(++polls <= 4u * STEP_BUDGET, "the core keeps polling the chip (hang)");
    return sim_hal.ops->poll(sc, ev);
}

static void check_core(void)
{
    const char *why = pcam_bus_check_invariants(&bus);
    if (why != NULL)
        fail(why);
}

/* One scheduling step, as a shim would take it. False when nothing at all
 * is pending in the bus model or the core. */
static bool step(void)
{
    CHECK(++steps <= STEP_BUDGET, "step budget exceeded (hang)");
    if (!polled && pcam_sim_event_pending(sim)) {
        pcam_bus_intr(&bus);
        check_core();
        return true;
    }
    if (polled && pcam_bus_poll(&bus)) {
        check_core();
        return true;
    }
    uint64_t now = pcam_sim_now(sim);
    uint64_t t = pcam_sim_next_time(sim);
    uint64_t d = pcam_bus_next_deadline(&bus);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        return false;
    if (t < now)
        t = now;
    pcam_sim_advance(sim, t);
    /* Only an entry into the core can change its state: check after those. */
    if (!polled && d <= t) {
        pcam_bus_tick(&bus);
        check_core();
    }
    return true;
}

/* ---- building requests ---- */

static const uint8_t target_ids[8] = {0, 1, 2, 3, 0, 1, 5, 7};
static const uint32_t data_lens[8] = {0, 1, 7, 18, 36, 512, 513, 4096};
static const uint8_t sense_lens[4] = {0, 1, 18, 252};
static const uint32_t timeouts[4] = {0, 1, 40, 3000};

static slot *new_slot(void)
{
    for (unsigned i = 0; i < NSLOT; i++)
        if (!slots[i].used)
            return &slots[i];
    return NULL;
}

static void submit(slot *s)
{
    s->used = true;
    outstanding++;
    pcam_action(&bus, &s->ccb);
}

/* A CDB of one of the command groups, bytes from the input. */
static uint8_t make_cdb(uint8_t *cdb, uint8_t sel, uint8_t x, uint8_t y, pcam_dir *dir, uint32_t *len)
{
    static const uint8_t ops[16] = {0x00, 0x03, 0x12, 0x25, 0x08, 0x0A, 0x28, 0x2A,
                                    0x88, 0x8A, 0x1A, 0x5A, 0x35, 0xA0, 0x9E, 0x2F};
    uint8_t op = ops[sel & 15u], n;
    uint32_t blocks = 1u + (y & 7u);

    if ((sel & 0x10u) != 0)
        op = x; /* any opcode */
    memset(cdb, 0, PCAM_CDB_BYTES);
    cdb[0] = op;
    n = op < 0x20 ? 6 : op < 0x60 ? 10 : op < 0x80 ? 10 : op < 0xA0 ? 16 : op < 0xC0 ? 12 : 10;
    *dir = PCAM_DIR_NONE;
    *len = 0;
    switch (op) {
    case 0x03: case 0x12:
        cdb[4] = (uint8_t)(y | 1u);
        *dir = PCAM_DIR_IN;
        *len = cdb[4];
        break;
    case 0x25:
        *dir = PCAM_DIR_IN;
        *len = 8;
        break;
    case 0x08: case 0x0A:
        cdb[3] = x & 63u;
        cdb[4] = (uint8_t)blocks;
        *dir = op == 0x08 ? PCAM_DIR_IN : PCAM_DIR_OUT;
        *len = blocks * 512u;
        break;
    case 0x28: case 0x2A: case 0x2F:
        cdb[5] = x & 63u;
        cdb[8] = (uint8_t)blocks;
        *dir = op == 0x28 ? PCAM_DIR_IN : op == 0x2A ? PCAM_DIR_OUT : PCAM_DIR_NONE;
        *len = op == 0x2F ? 0 : blocks * 512u;
        break;
    case 0x88: case 0x8A:
        cdb[9] = x & 63u;
        cdb[13] = (uint8_t)blocks;
        *dir = op == 0x88 ? PCAM_DIR_IN : PCAM_DIR_OUT;
        *len = blocks * 512u;
        break;
    case 0x1A:
        cdb[2] = 0x3F;
        cdb[4] = y;
        *dir = PCAM_DIR_IN;
        *len = y;
        break;
    case 0x5A:
        cdb[2] = 0x3F;
        cdb[8] = y;
        *dir = PCAM_DIR_IN;
        *len = y;
        break;
    case 0xA0:
        cdb[9] = y;
        *dir = PCAM_DIR_IN;
        *len = y;
        break;
    case 0x9E:
        cdb[1] = 0x10;
        cdb[13] = 32;
        *dir = PCAM_DIR_IN;
        *len = 32;
        break;
    default:
        if ((sel & 0x10u) != 0) {
            cdb[1] = y;
            cdb[4] = x;
        }
        break;
    }
    return n;
}

/*
 * Submit a SCSI I/O. op: bits 3-4 sense buffer size, bit 5 NO_RECOVERY,
 * bit 6 a LUN beyond the core's slots. a: bits 0-2 target, bit 3 LUN, bits
 * 4-5 retries, bit 6 scatter-gather, bit 7 DIS_AUTOSENSE. b: bits 0-3 the
 * command, bit 4 any opcode (c is the opcode; with c bit 7 also any CDB
 * length), bit 5 direction and length from c instead of the CDB, bits 6-7
 * timeout. c: bit 0 tagged, bits 1-2 tag action, bit 3 FREEZE_ON_ERROR,
 * bit 4 DIS_DISCONNECT, bits 5-7 sg segments - 1; also the LBA.
 */
static void op_submit(uint8_t op, uint8_t a, uint8_t b, uint8_t c)
{
    slot *s = new_slot();
    pcam_ccb *ccb;
    pcam_scsiio *io;
    pcam_dir dir;
    uint32_t len;

    if (s == NULL)
        return;
    memset(s, 0, sizeof *s);
    ccb = &s->ccb;
    io = &ccb->u.io;
    ccb->func = PCAM_FN_SCSI_IO;
    ccb->target = target_ids[a & 7u];
    ccb->lun = (uint8_t)((a >> 3) & 1u);
    if (op & 0x40u)
        ccb->lun = (uint8_t)(2u + ((a >> 4) & 3u)); /* beyond the core's LUN slots */
    ccb->done = slot_done;
    ccb->timeout_ms = timeouts[(b >> 6) & 3u];
    io->cdb_len = make_cdb(io->cdb, b, c, (uint8_t)(a ^ c), &dir, &len);
    if ((b & 0x10u) != 0 && (c & 0x80u) != 0)
        io->cdb_len = (uint8_t)(c & 31u); /* maybe a length that does not match */
    if ((b & 0x20u) != 0) {
        dir = (pcam_dir)(c % 3u);
        len = data_lens[(c >> 2) & 7u];
    }
    io->dir = dir;
    io->data_len = len;
    io->retries = (uint8_t)((a >> 4) & 3u);
    if (c & 0x01u)
        ccb->flags |= PCAM_CCB_TAGGED;
    if (c & 0x10u)
        ccb->flags |= PCAM_CCB_DIS_DISCONNECT;
    if (c & 0x08u)
        ccb->flags |= PCAM_CCB_FREEZE_ON_ERROR;
    if (a & 0x80u)
        ccb->flags |= PCAM_CCB_DIS_AUTOSENSE;
    if (op & 0x20u)
        ccb->flags |= PCAM_CCB_NO_RECOVERY;
    io->tag_action = (uint8_t)(PCAM_TAG_SIMPLE + ((c >> 1) & 3u)); /* 0x23 is not a tag action */
    /* Buffers: one exact-size block, or an sg list of segments between canaries. */
    if (len != 0 && (a & 0x40u) == 0) {
        s->data = malloc(len);
        s->data_len = len;
        memset(s->data, 0x3C, len);
        io->data = s->data;
    } else if (len != 0) {
        uint16_t n = (uint16_t)(1u + (c >> 5));
        if (n > len)
            n = (uint16_t)len;
        s->sg = malloc(n * sizeof *s->sg);
        s->sg_count = n;
        s->arena_len = len + (size_t)(n + 1) * GAP;
        s->arena = malloc(s->arena_len);
        memset(s->arena, CANARY, s->arena_len);
        uint32_t left = len;
        size_t pos = GAP;
        for (uint16_t k = 0; k < n; k++) {
            uint32_t seg = k + 1u == n ? left : (left / (n - k)) + (k & 1u);
            if (seg > left)
                seg = left;
            s->sg[k].addr = s->arena + pos;
            s->sg[k].len = seg;
            memset(s->arena + pos, 0x3C, seg);
            pos += seg + GAP;
            left -= seg;
        }
        io->sg = s->sg;
        io->sg_count = n;
    }
    s->sense_len = sense_lens[(op >> 3) & 3u];
    if (s->sense_len != 0) {
        s->sense = malloc(s->sense_len);
        memset(s->sense, 0, s->sense_len);
        io->sense = s->sense;
        io->sense_len = (uint8_t)s->sense_len;
    }
    submit(s);
}

/* A control CCB: abort, device reset, bus reset, release, scans, settings. */
static void op_control(uint8_t kind, uint8_t a, uint8_t b)
{
    slot *s = new_slot();
    pcam_ccb *ccb;

    if (s == NULL)
        return;
    memset(s, 0, sizeof *s);
    ccb = &s->ccb;
    ccb->done = slot_done;
    ccb->target = target_ids[a & 7u];
    ccb->lun = (uint8_t)((a >> 3) & 1u);
    switch (kind % 9u) {
    case 0: /* abort another CCB, maybe one already done or never handed in */
        ccb->func = PCAM_FN_ABORT;
        ccb->u.abort.victim = &slots[b % NSLOT].ccb;
        if (slots[b % NSLOT].ccb.func == 0 && !slots[b % NSLOT].used)
            ccb->u.abort.victim = (b & 0x80u) ? NULL : ccb->u.abort.victim;
        break;
    case 1:
        ccb->func = PCAM_FN_RESET_DEV;
        if (b & 1u)
            ccb->flags |= PCAM_CCB_LUN_RESET;
        break;
    case 2:
        ccb->func = PCAM_FN_RESET_BUS;
        break;
    case 3:
        ccb->func = PCAM_FN_REL_QUEUE;
        ccb->u.relq.count = b & 3u;
        ccb->u.relq.openings = (b >> 2) & 7u;
        break;
    case 4:
        ccb->func = (b & 1u) ? PCAM_FN_SCAN_LUN : PCAM_FN_SCAN_BUS;
        break;
    case 5:
        ccb->func = PCAM_FN_SET_TRAN;
        ccb->u.tran.type = PCAM_TRAN_USER;
        ccb->u.tran.settings.period = (uint8_t)(b & 0x3Fu);
        ccb->u.tran.settings.offset = (uint8_t)((b >> 3) & 0x1Fu);
        ccb->u.tran.settings.width = (uint8_t)((b >> 6) & 1u);
        ccb->u.tran.settings.ppr_options = (uint8_t)((b & 0x80u) ? 0x02u : 0u);
        ccb->u.tran.settings.disconnect = (b & 0x02u) != 0;
        ccb->u.tran.settings.tagged = (b & 0x04u) != 0;
        break;
    case 6:
        ccb->func = PCAM_FN_GET_TRAN;
        ccb->u.tran.type = (pcam_tran_type)(b % 3u);
        break;
    case 7:
        ccb->func = (b & 1u) ? PCAM_FN_GET_DEV : PCAM_FN_PATH_INQ;
        break;
    default:
        ccb->func = b; /* any function code */
        break;
    }
    submit(s);
}

/* Change a target's behaviour through the model's own knobs. */
static void op_target(uint8_t a, uint8_t b)
{
    pcam_sim_target_config *tc = pcam_sim_target_cfg(sim, target_ids[a & 7u]);

    if (tc == NULL)
        return;
    switch ((a >> 3) & 15u) {
    case 0: tc->busy_next = b & 3u; break;
    case 1: tc->hang_next = b & 1u; break;
    case 2: tc->unexpected_free_next = b & 3u; break;
    case 3: tc->illegal_phase_next = b & 1u; tc->illegal_phase = (uint8_t)(4u + ((b >> 1) & 1u)); break;
    case 4: tc->lie_tag_next = b & 3u; break;
    case 5: tc->lie_lun_next = b & 3u; break;
    case 6: tc->parity_data_ppm = (uint32_t)b * 40u; break;
    case 7: tc->parity_msg_ppm = (uint32_t)b * 400u; break;
    case 8: tc->reject_tags = (b & 1u) != 0; break;
    case 9: tc->task_set_limit = b & 7u; break;
    case 10: tc->phantom_resel_next = 1u + (b & 1u); break;
    case 11: tc->sdtr = (pcam_sim_nego)(b & 3u); tc->wdtr = (pcam_sim_nego)((b >> 2) & 3u); tc->ppr = (pcam_sim_nego)((b >> 4) & 3u); break;
    case 12: tc->initiate_sdtr = (b & 1u) != 0; tc->initiate_wdtr = (b & 2u) != 0; break;
    case 13: tc->disconnect = (pcam_sim_disc)(b % 3u); break;
    case 14: tc->wide_residue = (b & 1u) != 0; break;
    default: tc->ppr_options = b & 7u; tc->min_period = (uint8_t)(8u + (b >> 3)); break;
    }
}

static void run_steps(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!step())
            break;
}

static void run_op(uint8_t op, uint8_t a, uint8_t b, uint8_t c)
{
    switch (op % 8u) {
    case 0:
    case 1:
        op_submit(op, a, b, c);
        break;
    case 2:
        run_steps(1u + c);
        break;
    case 3:
        op_control(a >> 4, (uint8_t)(a << 4 | (c & 15u)), b);
        break;
    case 4:
        op_target(a, b);
        break;
    case 5: /* another device resets the bus */
        if ((a & 7u) == 0)
            pcam_sim_bus_reset(sim);
        else
            run_steps(a & 7u);
        break;
    case 6: /* time passes with nothing new */
        run_steps(64u + c);
        break;
    default:
        (void)release_all();
        break;
    }
    if (op & 0x80u)
        run_steps(1u + (op >> 3 & 15u)); /* for a submit: the sense and flag bits too */
}

/* ---- set-up and the run ---- */

/* The disks' media outlive an input (a fresh 32 KiB block per disk per
 * input was the largest part of the set-up: new pages, ASan's allocator);
 * each input zeroes them, so every input starts on the same blank media. */
static uint8_t store0[64 * 512], store1[64 * 512], store2[64 * 512], store3[64 * 512];
static uint8_t *const stores[4] = {store0, store1, store2, store3}; /* separate: ASan's redzones between them */

static void add_disk(uint8_t id, uint8_t lun, const pcam_sim_target_config *tc, unsigned k)
{
    if (pcam_sim_target_cfg(sim, id) == NULL && pcam_sim_add_target(sim, id, tc) != 0)
        fail("add target");
    memset(stores[k], 0, sizeof store0);
    pcam_simlu_init_disk(pcam_sim_lu(sim, id, lun), stores[k], 64, 512, "PCAMFUZZ", "DISK", "F1");
}

static void setup(uint8_t cfgbits, bool chain)
{
    pcam_sim_config sc;
    pcam_sim_target_config tc;
    pcam_bus_config bc;
    pcam_hal hal;
    pcam_platform plat;
    pcam_hal_caps caps;
    bool trace = getenv("PCAM_FUZZ_TRACE") != NULL;

    trace_on = trace;

    pcam_sim_config_defaults(&sc);
    sc.width = (cfgbits & 0x02u) ? 8 : 16;
    sc.chain_endings = chain;
    sc.trace_entries = 0;
    sc.verbose = trace;
    sim = pcam_sim_create(&sc);
    if (sim == NULL)
        fail("sim create");
    if (trace)
        pcam_sim_set_log(sim, stderr);

    pcam_sim_target_config_defaults(&tc);
    tc.oracle = oracle;
    tc.initiate_sdtr = (cfgbits & 0x04u) != 0;
    tc.initiate_wdtr = (cfgbits & 0x08u) != 0;
    tc.disconnect = (pcam_sim_disc)(((cfgbits >> 4) & 3u) % 3u);
    tc.ua_power_on = (cfgbits & 0x80u) != 0;
    add_disk(0, 0, &tc, 0);
    add_disk(1, 0, &tc, 1);
    add_disk(1, 1, &tc, 2);
    add_disk(2, 0, &tc, 3);
    /* ID 3: a target with no logical units; ID 5: nobody. */
    if (pcam_sim_add_target(sim, 3, &tc) != 0)
        fail("add target 3");

    pcam_bus_config_defaults(&bc);
    bc.luns_per_target = LPT;
    bc.default_timeout_ms = 2000;
    bc.default_retries = 2;
    bc.tag_depth = 4;
    bc.tag_depth_max = 6;
    bc.tag_depth_floor = 1;
    bc.qfull_ramp_successes = 4;
    bc.age_count = 8;
    bc.age_ms = 50;
    bc.bus_starve_ms = 20;
    bc.abort_timeout_ms = 100;
    bc.reset_settle_ms = 50;
    bc.busy_delay_ms = 5;
    bc.not_ready_wait_ms = 200;
    bc.aging_enabled = (cfgbits & 0x40u) == 0;
    polled = (cfgbits & 0x01u) != 0;
    bc.polled = polled;
    release_in_callback = (cfgbits & 0x20u) != 0;

    pcam_sim_get_hal(sim, &sim_hal);
    shim_ops = *sim_hal.ops;
    shim_ops.poll = shim_poll;
    hal = sim_hal;
    hal.ops = &shim_ops;
    pcam_sim_get_platform(sim, &plat);
    hal.ops->get_caps(hal.sc, &caps);
    size_t n = PCAM_BUS_LUNS(caps.max_targets, bc.luns_per_target);
    luns = calloc(n, sizeof *luns);
    if (pcam_bus_init(&bus, &bc, &hal, &plat, luns, n) != PCAM_OK)
        fail("bus init");
    check_core();
}

static void teardown(void)
{
    for (unsigned i = 0; i < NSLOT; i++) {
        slot *s = &slots[i];
        if (s->data != NULL)
            UNPOISON(s->data, s->data_len);
        if (s->arena != NULL)
            UNPOISON(s->arena, s->arena_len);
        if (s->sense != NULL)
            UNPOISON(s->sense, s->sense_len);
        free(s->data);
        free(s->arena);
        free(s->sg);
        free(s->sense);
    }
    memset(slots, 0, sizeof slots);
    pcam_sim_destroy(sim);
    sim = NULL;
    free(luns);
    luns = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t nops = data[1] & 0x7Fu;
    if (2 + nops * 4 > size)
        nops = (size - 2) / 4;
    orc = data + 2 + nops * 4;
    orc_len = size - 2 - nops * 4;
    orc_pos = 0;
    steps = 0;
    polls = 0;
    outstanding = 0;
    rel_used = rel_done = 0;
    memset(rel_count, 0, sizeof rel_count);
    memset(frozen, 0, sizeof frozen);
    memset(slots, 0, sizeof slots);
    memset(&bus, 0, sizeof bus);

    setup(data[0], (data[1] & 0x80u) != 0);
    for (size_t i = 0; i < nops; i++) {
        const uint8_t *o = data + 2 + i * 4;
        run_op(o[0], o[1], o[2], o[3]);
    }
    /* Drain: run until every CCB completed; release queues a completion
     * left frozen, as a peripheral driver would. */
    while (outstanding > 0) {
        if (step())
            continue;
        if (release_all())
            continue;
        /* Name the lost CCBs and where the core left them, for diagnosis. */
        for (size_t i = 0; i < NSLOT; i++)
            if (slots[i].used && slots[i].done == 0)
                fprintf(stderr, "fuzz_engine: lost: slot %zu func 0x%02x %u:%u state %u flags 0x%02x\n", i,
                        slots[i].ccb.func, slots[i].ccb.target, slots[i].ccb.lun,
                        (unsigned)slots[i].ccb.priv.state, (unsigned)slots[i].ccb.priv.flags);
        fail("idle with a CCB outstanding (lost command)");
    }
    (void)release_all();
    pcam_bus_shutdown(&bus);
    check_core();
    CHECK(outstanding == 0, "shutdown left a CCB outstanding");
    for (unsigned i = 0; i < NSLOT; i++)
        CHECK(!slots[i].used || slots[i].done == 1, "CCB not completed exactly once");
    CHECK(rel_done == rel_used, "queue release not completed");
    if (trace_on) {
        fprintf(stderr, "fuzz_engine: %llu steps\n", (unsigned long long)steps);
        for (unsigned i = 0; i < NSLOT; i++)
            if (slots[i].used)
                fprintf(stderr, "  ccb %u func %u T%u L%u status %s%s scsi 0x%02X resid %u\n", i,
                        slots[i].ccb.func, slots[i].ccb.target, slots[i].ccb.lun,
                        pcam_status_name(slots[i].ccb.status),
                        (slots[i].ccb.status & PCAM_DEV_QFRZN) ? "+QFRZN" : "",
                        slots[i].ccb.u.io.scsi_status, (unsigned)slots[i].ccb.u.io.resid);
    }
    teardown();
    return 0;
}
