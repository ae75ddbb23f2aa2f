/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/esp against the register-level ESP model: data integrity with tags
 * and disconnect/reselection at depth, synchronous negotiation (the chip's
 * programmed period/offset must equal the agreement), PIO both ways, DMA
 * scatter-gather, bus reset with I/O in flight, and register accesses per
 * command. Every scenario ends with zero protocol errors in the model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "esp_rig.h"
#include "iowork.h"

static bool under_memcheck(void)
{
    return getenv("PCAM_UNDER_MEMCHECK") != NULL;
}

static void no_model_errors(const chiprig *r)
{
    erig_print_model_errors(r);
    assert_int_equal(espm_errors(r->model), 0);
    assert_null(r->violation);
}

/* ---- integrity: random tagged reads/writes with disconnects ---- */

#define DISKS 3
#define DEPTH 8
#define BLOCKS 2048u
#define MAX_BLOCKS 32u

typedef struct run {
    chiprig r;
    iowork w;
    chiprig_ccb rc[DISKS * DEPTH];
} run;

static void slot_done(chiprig_ccb *rc)
{
    iowork_done(rc->test);
}

static void submit(void *rig, iowork_slot *s)
{
    chiprig_submit(rig, (chiprig_ccb *)s->ccb);
}

static void integrity(espm_chip chip, bool dma, bool polled, uint32_t esp_flags, uint64_t count)
{
    run *u = calloc(1, sizeof *u);
    uint8_t *media[DISKS];
    erig_opts o;
    pcam_sim_target_config tc;
    assert_non_null(u);
    erig_opts_default(&o, chip);
    o.use_dma = dma;
    o.polled = polled;
    o.esp_flags = esp_flags;
    assert_int_equal(erig_init(&u->r, &o), 0);
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS; /* every command disconnects and reselects */
    for (uint8_t d = 0; d < DISKS; d++) {
        media[d] = chiprig_add_disk(&u->r, d, 0, BLOCKS, &tc);
        assert_non_null(media[d]);
    }
    /* PIO costs a model step per byte: fewer commands there. */
    iowork_cfg wc = {.name = "esp integrity", .disks = DISKS, .depth = DEPTH, .blocks = BLOCKS,
                     .max_blocks = MAX_BLOCKS, .commands = under_memcheck() ? count / 10 : count,
                     .seed = 0x9E3779B97F4A7C15ull ^ (uint64_t)chip, .rig = &u->r, .submit = submit};
    assert_true(iowork_init(&u->w, &wc, media));
    IOWORK_BIND(&u->w, u->rc, slot_done);
    assert_int_equal(chiprig_scan(&u->r), PCAM_REQ_CMP);
    iowork_start(&u->w);
    uint64_t until = pcam_sim_now(u->r.sim) + CHIPRIG_S(600);
    while (u->w.completed < wc.commands && pcam_sim_now(u->r.sim) < until && chiprig_step(&u->r))
        ;
    if (u->w.completed != wc.commands)
        erig_print_model_errors(&u->r);
    assert_true(iowork_verify(&u->w, media));
    for (uint8_t d = 0; d < DISKS; d++) {
        pcam_sim_target_stats ts;
        pcam_sim_target_stats_get(u->r.sim, d, &ts);
        assert_true(ts.simple > 0);       /* tagged on the wire */
        assert_true(ts.reselections > 0); /* and reconnected */
        assert_true(ts.max_tasks > 1);    /* several tasks queued at once */
    }
    no_model_errors(&u->r);
    iowork_fini(&u->w);
    chiprig_fini(&u->r);
    free(u);
}

static void integrity_am53c974_dma(void **state)
{
    (void)state;
    integrity(ESPM_AM53C974, true, false, 0, 2000);
}

static void integrity_am53c974_dma_polled_no_atn3(void **state)
{
    (void)state;
    /* Tags go out with SELECT WITH ATN AND STOP + message-out, as on QEMU. */
    integrity(ESPM_AM53C974, true, true, PCAM_ESP_F_NO_SELATN3, 1000);
}

static void integrity_fas236_pio(void **state)
{
    (void)state;
    integrity(ESPM_FAS236, false, false, 0, 200);
}

static void integrity_ncr53c90_pio(void **state)
{
    (void)state;
    /* No SELECT WITH ATN3 on the 53C90: the stop path carries every tag. */
    integrity(ESPM_NCR53C90, false, false, 0, 200);
}

/* ---- synchronous negotiation ---- */

static void sync_agreement(espm_chip chip, uint8_t want_period)
{
    chiprig r;
    erig_opts o;
    pcam_sim_target_config fast, async;
    pcam_hal_xfer_params a, c;
    uint8_t buf[16 * 512];
    erig_opts_default(&o, chip);
    assert_int_equal(erig_init(&r, &o), 0);
    pcam_sim_target_config_defaults(&fast);
    fast.wide = false;
    pcam_sim_target_config_defaults(&async);
    async.wide = false;
    async.min_period = 0;
    async.max_offset = 0;
    uint8_t *s0 = chiprig_add_disk(&r, 0, 0, 256, &fast);
    uint8_t *s5 = chiprig_add_disk(&r, 5, 0, 256, &async);
    assert_non_null(s0);
    assert_non_null(s5);
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    /* Alternate targets so the per-target registers are reloaded at each
     * selection and reselection (hal/sim's strict mode fails a data phase
     * whose chip mode differs from the target's agreement). */
    for (int i = 0; i < 6; i++) {
        uint8_t id = (i & 1) ? 5 : 0;
        uint8_t *st = id == 0 ? s0 : s5;
        memset(buf, 0, sizeof buf);
        assert_int_equal(chiprig_rw(&r, id, 0, false, (uint32_t)(i * 16), 16, buf, false), PCAM_REQ_CMP);
        assert_memory_equal(buf, st + i * 16 * 512, sizeof buf);
    }
    pcam_sim_target_agreement(r.sim, 0, &a);
    pcam_sim_chip_xfer(r.sim, 0, &c);
    /* The chip's fastest: 4 clocks at 40 MHz = 100 ns (factor 25) on fast
     * parts, 5 clocks at 25 MHz = 200 ns (factor 50) on the 53C94; offset
     * 15 is the family's deepest FIFO offset. */
    assert_int_equal(a.period, want_period);
    assert_int_equal(a.offset, 15);
    assert_int_equal(c.period, a.period);
    assert_int_equal(c.offset, a.offset);
    pcam_sim_target_agreement(r.sim, 5, &a);
    pcam_sim_chip_xfer(r.sim, 5, &c);
    assert_int_equal(a.offset, 0);
    assert_int_equal(c.offset, 0);
    no_model_errors(&r);
    chiprig_fini(&r);
}

static void sync_am53c974(void **state)
{
    (void)state;
    sync_agreement(ESPM_AM53C974, 25);
}

static void sync_fas216(void **state)
{
    (void)state;
    sync_agreement(ESPM_FAS216, 25);
}

static void sync_ncr53c94(void **state)
{
    (void)state;
    sync_agreement(ESPM_NCR53C94, 50);
}

/* ---- PIO both ways, DMA scatter-gather ---- */

static void pio_large(void **state)
{
    (void)state;
    chiprig r;
    erig_opts o;
    pcam_esp_stats st;
    uint16_t blocks = under_memcheck() ? 8 : 64;
    size_t n = (size_t)blocks * 512u;
    uint8_t *buf = malloc(n), *pat = malloc(n);
    assert_non_null(buf);
    assert_non_null(pat);
    erig_opts_default(&o, ESPM_AM53C974);
    o.use_dma = false;
    assert_int_equal(erig_init(&r, &o), 0);
    uint8_t *store = chiprig_add_disk(&r, 3, 0, 1024, NULL);
    assert_non_null(store);
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    for (size_t i = 0; i < n; i++)
        pat[i] = (uint8_t)(i ^ (i >> 8) ^ 0x5A);
    assert_int_equal(chiprig_rw(&r, 3, 0, true, 200, blocks, pat, false), PCAM_REQ_CMP);
    assert_memory_equal(store + 200 * 512, pat, n);
    memset(buf, 0, n);
    assert_int_equal(chiprig_rw(&r, 3, 0, false, 200, blocks, buf, false), PCAM_REQ_CMP);
    assert_memory_equal(buf, pat, n);
    pcam_esp_get_stats(r.sc, &st);
    assert_int_equal(st.dma_transfers, 0);
    assert_true(st.pio_bytes >= 2 * n);
    no_model_errors(&r);
    chiprig_fini(&r);
    free(buf);
    free(pat);
}

/* The AM53C974 with DMA and one scanned 128 KiB disk at ID 1; its media. */
static uint8_t *dma_rig(chiprig *r)
{
    erig_opts o;
    erig_opts_default(&o, ESPM_AM53C974);
    assert_int_equal(erig_init(r, &o), 0);
    uint8_t *store = chiprig_add_disk(r, 1, 0, 256, NULL);
    assert_non_null(store);
    assert_int_equal(chiprig_scan(r), PCAM_REQ_CMP);
    return store;
}

static void dma_scatter_gather(void **state)
{
    (void)state;
    chiprig r;
    chiprig_ccb rc;
    pcam_esp_stats before, after;
    static uint8_t buf[16 * 512];
    pcam_sg sg[5];
    /* Odd pieces, one of a single byte: 1 + 511 + 3000 + 4000 + 680 = 8192. */
    const uint32_t len[5] = {1, 511, 3000, 4000, 680};
    uint8_t cdb[10] = {0x28, 0, 0, 0, 0, 64, 0, 0, 16, 0}; /* READ(10) LBA 64, 16 blocks */
    uint8_t *store = dma_rig(&r);
    uint32_t off = 0;
    for (int i = 0; i < 5; i++) {
        sg[i].addr = buf + off;
        sg[i].len = len[i];
        off += len[i];
    }
    assert_int_equal(off, sizeof buf);
    memset(buf, 0xEE, sizeof buf);
    chiprig_io(&rc, 1, 0, cdb, 10, PCAM_DIR_IN, NULL, sizeof buf);
    rc.ccb.u.io.sg = sg;
    rc.ccb.u.io.sg_count = 5;
    pcam_esp_get_stats(r.sc, &before);
    assert_int_equal(chiprig_sync(&r, &rc, CHIPRIG_S(5)), PCAM_REQ_CMP);
    pcam_esp_get_stats(r.sc, &after);
    assert_memory_equal(buf, store + 64 * 512, sizeof buf);
    assert_int_equal(rc.ccb.u.io.resid, 0);
    assert_true(after.dma_transfers - before.dma_transfers >= 5); /* one run per piece */
    /* And back out: WRITE(10) LBA 128 from the same list. */
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 13u + 1u);
    cdb[0] = 0x2A;
    cdb[5] = 128;
    chiprig_io(&rc, 1, 0, cdb, 10, PCAM_DIR_OUT, NULL, sizeof buf);
    rc.ccb.u.io.sg = sg;
    rc.ccb.u.io.sg_count = 5;
    assert_int_equal(chiprig_sync(&r, &rc, CHIPRIG_S(5)), PCAM_REQ_CMP);
    assert_memory_equal(store + 128 * 512, buf, sizeof buf);
    no_model_errors(&r);
    chiprig_fini(&r);
}

/* One 8 KiB piece at page offset 0x123 whose mapping the model places 4 KiB
 * before a 16 MiB boundary of bus space: the first run stops at the boundary
 * (3,805 bytes); the rest is mapped again, again 4 KiB before a boundary
 * (now at page offset 0), so 4,096 bytes, then 291: three data runs where
 * an unskewed mapping takes one, none crossing (the model reports any that
 * does), and the bytes where they belong, in both directions. */
static void dma_16mib_boundary(void **state)
{
    (void)state;
    chiprig r;
    chiprig_ccb rc;
    pcam_esp_stats before, after;
    static uint8_t raw[8192 + 8192];
    uint8_t *buf = raw + ((4096u - ((uintptr_t)raw & 0xFFFu)) & 0xFFFu) + 0x123u;
    pcam_sg sg[1];
    uint8_t cdb[10] = {0x28, 0, 0, 0, 0, 64, 0, 0, 16, 0}; /* READ(10) LBA 64, 16 blocks */
    uint8_t *store = dma_rig(&r);
    sg[0].addr = buf;
    sg[0].len = 8192;
    /* The same command with the mapping inside one window first: how many
     * runs the command takes besides its one data run (selection bytes). */
    uint64_t plain = 0;
    for (int skewed = 0; skewed < 2; skewed++) {
        if (skewed)
            espm_set_map_skew(r.model, 0x1000000u - 0x1000u);
        memset(buf, 0xEE, 8192);
        chiprig_io(&rc, 1, 0, cdb, 10, PCAM_DIR_IN, NULL, 8192);
        rc.ccb.u.io.sg = sg;
        rc.ccb.u.io.sg_count = 1;
        pcam_esp_get_stats(r.sc, &before);
        assert_int_equal(chiprig_sync(&r, &rc, CHIPRIG_S(5)), PCAM_REQ_CMP);
        pcam_esp_get_stats(r.sc, &after);
        assert_memory_equal(buf, store + 64 * 512, 8192);
        assert_int_equal(rc.ccb.u.io.resid, 0);
        if (!skewed)
            plain = after.dma_transfers - before.dma_transfers;
        else
            assert_int_equal(after.dma_transfers - before.dma_transfers, plain + 2);
    }
    for (size_t i = 0; i < 8192; i++)
        buf[i] = (uint8_t)(i * 7u + 3u);
    cdb[0] = 0x2A;
    cdb[5] = 128;
    chiprig_io(&rc, 1, 0, cdb, 10, PCAM_DIR_OUT, NULL, 8192);
    rc.ccb.u.io.sg = sg;
    rc.ccb.u.io.sg_count = 1;
    pcam_esp_get_stats(r.sc, &before);
    assert_int_equal(chiprig_sync(&r, &rc, CHIPRIG_S(5)), PCAM_REQ_CMP);
    pcam_esp_get_stats(r.sc, &after);
    assert_memory_equal(store + 128 * 512, buf, 8192);
    assert_int_equal(after.dma_transfers - before.dma_transfers, plain + 2);
    no_model_errors(&r);
    chiprig_fini(&r);
}

/* A data-in shorter than asked (INQUIRY with a large allocation length):
 * the residual comes from the DMA engine's counter. */
static void dma_short_read_residual(void **state)
{
    (void)state;
    chiprig r;
    erig_opts o;
    chiprig_ccb rc;
    uint8_t buf[255];
    uint8_t cdb[6] = {0x12, 0, 0, 0, 255, 0};
    erig_opts_default(&o, ESPM_AM53C974);
    assert_int_equal(erig_init(&r, &o), 0);
    assert_non_null(chiprig_add_disk(&r, 0, 0, 64, NULL));
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    memset(buf, 0xEE, sizeof buf);
    chiprig_io(&rc, 0, 0, cdb, 6, PCAM_DIR_IN, buf, sizeof buf);
    assert_int_equal(chiprig_sync(&r, &rc, CHIPRIG_S(5)) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    /* Standard INQUIRY data: byte 4 = additional length, total = n + 5. */
    assert_int_equal(rc.ccb.u.io.resid, sizeof buf - (buf[4] + 5u));
    assert_memory_equal(buf + 8, "PCAMSIM ", 8);
    no_model_errors(&r);
    chiprig_fini(&r);
}

/* ---- bus reset with I/O in flight ---- */

typedef struct rslot {
    chiprig_ccb rc;
    uint8_t buf[8 * 512];
    uint32_t lba;
    uint8_t disk;
} rslot;

static void bus_reset_in_flight(void **state)
{
    (void)state;
    chiprig r;
    erig_opts o;
    pcam_sim_target_config tc;
    static rslot s[24];
    chiprig_ccb reset;
    unsigned ok = 0, lost = 0;
    erig_opts_default(&o, ESPM_AM53C974);
    assert_int_equal(erig_init(&r, &o), 0);
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    for (uint8_t d = 0; d < 3; d++)
        assert_non_null(chiprig_add_disk(&r, d, 0, 1024, &tc));
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    for (unsigned i = 0; i < 24; i++) {
        uint8_t cdb[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0};
        s[i].disk = (uint8_t)(i % 3);
        s[i].lba = i * 16u;
        cdb[4] = (uint8_t)(s[i].lba >> 8);
        cdb[5] = (uint8_t)s[i].lba;
        memset(s[i].buf, 0xEE, sizeof s[i].buf);
        chiprig_io(&s[i].rc, s[i].disk, 0, cdb, 10, PCAM_DIR_IN, s[i].buf, sizeof s[i].buf);
        s[i].rc.ccb.flags = PCAM_CCB_TAGGED;
        s[i].rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
        chiprig_submit(&r, &s[i].rc);
    }
    /* Let some reach the targets and disconnect. */
    unsigned before = 0;
    for (int k = 0; k < 60; k++)
        chiprig_step(&r);
    for (unsigned i = 0; i < 24; i++)
        before += s[i].rc.done_count != 0;
    /* The reset must find work in flight at the targets, or the test
     * proves nothing. */
    assert_true(before < 24);
    {
        uint32_t at_targets = 0;
        for (uint8_t d = 0; d < 3; d++) {
            pcam_sim_target_stats ts;
            pcam_sim_target_stats_get(r.sim, d, &ts);
            at_targets += ts.commands;
        }
        assert_true(at_targets > 0);
    }
    memset(&reset, 0, sizeof reset);
    reset.ccb.func = PCAM_FN_RESET_BUS;
    assert_int_equal(chiprig_sync(&r, &reset, CHIPRIG_S(10)) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    uint64_t until = pcam_sim_now(r.sim) + CHIPRIG_S(30);
    for (;;) {
        unsigned done = 0;
        for (unsigned i = 0; i < 24; i++)
            done += s[i].rc.done_count != 0;
        if (done == 24 || pcam_sim_now(r.sim) > until || !chiprig_step(&r))
            break;
    }
    for (unsigned i = 0; i < 24; i++) {
        assert_int_equal(s[i].rc.done_count, 1);
        if ((s[i].rc.ccb.status & PCAM_STATUS_MASK) == PCAM_REQ_CMP) {
            ok++;
            assert_memory_equal(s[i].buf, r.stores[s[i].disk][0] + s[i].lba * 512u, sizeof s[i].buf);
        } else {
            lost++;
        }
    }
    assert_int_equal(ok + lost, 24);
    {
        uint32_t dropped = 0;
        for (uint8_t d = 0; d < 3; d++) {
            pcam_sim_target_stats ts;
            pcam_sim_target_stats_get(r.sim, d, &ts);
            dropped += ts.aborted_tasks;
        }
        assert_true(dropped > 0); /* the reset really took tasks away */
    }
    fprintf(stderr, "esp bus reset: %u of 24 done before it; then %u completed, %u ended by the reset\n",
            before, ok, lost);
    /* The bus works after the reset (UNIT ATTENTION is recovery's business). */
    {
        uint8_t b[512];
        assert_int_equal(chiprig_rw(&r, 2, 0, false, 7, 1, b, false), PCAM_REQ_CMP);
        assert_memory_equal(b, r.stores[2][0] + 7 * 512, 512);
    }
    no_model_errors(&r);
    chiprig_fini(&r);
}

/* ---- register accesses per command ---- */

static void measure(bool dma, double *rd, double *wr)
{
    chiprig r;
    erig_opts o;
    pcam_sim_target_config tc;
    pcam_esp_stats a, b;
    static uint8_t buf[4096];
    const int n = under_memcheck() ? 4 : 50;
    erig_opts_default(&o, ESPM_AM53C974);
    o.use_dma = dma;
    assert_int_equal(erig_init(&r, &o), 0);
    pcam_sim_target_config_defaults(&tc);
    tc.disconnect = PCAM_SIM_DISC_NEVER;
    tc.min_period = 0; /* asynchronous: no negotiation in the measured commands */
    tc.max_offset = 0;
    uint8_t *store = chiprig_add_disk(&r, 0, 0, 1024, &tc);
    assert_non_null(store);
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    assert_int_equal(chiprig_rw(&r, 0, 0, false, 0, 8, buf, false), PCAM_REQ_CMP);
    pcam_esp_get_stats(r.sc, &a);
    for (int i = 0; i < n; i++) {
        assert_int_equal(chiprig_rw(&r, 0, 0, false, (uint32_t)(8 * i), 8, buf, false), PCAM_REQ_CMP);
        assert_memory_equal(buf, store + (size_t)i * 4096u, 4096);
    }
    pcam_esp_get_stats(r.sc, &b);
    *rd = (double)(b.reg_reads - a.reg_reads) / n;
    *wr = (double)(b.reg_writes - a.reg_writes) / n;
    no_model_errors(&r);
    chiprig_fini(&r);
}

static void register_accesses_per_command(void **state)
{
    (void)state;
    double drd, dwr, prd, pwr;
    measure(true, &drd, &dwr);
    measure(false, &prd, &pwr);
    fprintf(stderr, "esp: 4 KiB READ(10), AM53C974 on the model: DMA %.1f reads + %.1f writes; "
                    "PIO %.1f reads + %.1f writes per command\n", drd, dwr, prd, pwr);
    /* A DMA read is select (11 FIFO/BUSID/command writes, 4 reads), one DMA
     * run (8 writes, 3 reads), status (1 write, 4 reads), accept (1 write,
     * 3 reads) and re-enabling reselection: well under 20 of each. */
    assert_true(drd <= 20.0);
    assert_true(dwr <= 25.0);
    /* PIO moves each byte through the FIFO register. */
    assert_true(prd >= 4096.0);
    assert_true(pwr >= 10.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrity_am53c974_dma),
        cmocka_unit_test(integrity_am53c974_dma_polled_no_atn3),
        cmocka_unit_test(integrity_fas236_pio),
        cmocka_unit_test(integrity_ncr53c90_pio),
        cmocka_unit_test(sync_am53c974),
        cmocka_unit_test(sync_fas216),
        cmocka_unit_test(sync_ncr53c94),
        cmocka_unit_test(pio_large),
        cmocka_unit_test(dma_scatter_gather),
        cmocka_unit_test(dma_16mib_boundary),
        cmocka_unit_test(dma_short_read_residual),
        cmocka_unit_test(bus_reset_in_flight),
        cmocka_unit_test(register_accesses_per_command),
    };
    if (getenv("PCAM_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("PCAM_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
