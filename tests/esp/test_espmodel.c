/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Raw register tests of the ESP model (tests/esp/model): chip
 * identification, reset state, selection timeout, illegal commands, FIFO
 * limits, bus resets. Expected values are the datasheet facts the model
 * documents (register map and bits in espm_internal.h; interrupts in
 * espm_cmd.c), worked out by hand below.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "espm_rig.h"

/* ---- identification ---- */

typedef struct probe {
    bool cfg2, cfg3, cfg4;
    uint8_t tchi;
} probe;

/* The probe drivers do (Linux esp_get_revision, FreeBSD ncr53c9x): a CFG2
 * value that reads back means CFG2 exists; same for CFG3 = 5; after RESET +
 * DMA NOP + CFG2 features enable, TCHI holds the part-unique ID; the
 * AM53C974's CFG4 glitch-eater bit (0x80) reads back. */
static probe run_probe(espm_chip chip)
{
    espm_rig r;
    probe p;

    rig_open(&r, chip, chip == ESPM_AM53C974 ? 40000 : 25000, NULL);
    wr(&r, ER_CMD, 0x02);
    wr(&r, ER_CMD, 0x80);
    wr(&r, ER_CFG2, 0x0A);
    p.cfg2 = (rd(&r, ER_CFG2) & 0x1F) == 0x0A;
    wr(&r, ER_CFG3, 0x05);
    p.cfg3 = rd(&r, ER_CFG3) == 0x05;
    wr(&r, ER_CFG3, 0);
    wr(&r, ER_CMD, 0x02);
    wr(&r, ER_CMD, 0x80);
    wr(&r, ER_CFG2, 0x40);
    wr(&r, ER_CMD, 0x80);
    p.tchi = rd(&r, ER_TCHI);
    wr(&r, ER_CFG4, 0x80);
    p.cfg4 = rd(&r, ER_CFG4) == 0x80;
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
    return p;
}

static void test_identify(void **state)
{
    probe p;

    (void)state;
    p = run_probe(ESPM_NCR53C90);
    assert_false(p.cfg2);
    assert_false(p.cfg3);
    assert_int_equal(p.tchi, 0);
    p = run_probe(ESPM_NCR53C90A);
    assert_true(p.cfg2);
    assert_false(p.cfg3);
    p = run_probe(ESPM_NCR53C94);
    assert_true(p.cfg2);
    assert_true(p.cfg3);
    assert_int_equal(p.tchi, 0);
    assert_false(p.cfg4);
    /* FAS family code 0x02 (ID >> 3), version 2 = FAS216 (FreeBSD's rule). */
    p = run_probe(ESPM_FAS216);
    assert_true(p.cfg3);
    assert_int_equal(p.tchi, 0x12);
    assert_false(p.cfg4);
    p = run_probe(ESPM_FAS236);
    assert_int_equal(p.tchi >> 3, 0x02);
    assert_int_not_equal(p.tchi & 7, 2);
    /* AM53C974: TCHI reads 0x12 (QEMU.md), CFG4 GE1 reads back (Linux's PCSCSI test). */
    p = run_probe(ESPM_AM53C974);
    assert_int_equal(p.tchi, 0x12);
    assert_true(p.cfg4);
}

static void test_stride_and_tchi(void **state)
{
    espm_rig r;

    (void)state;
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    assert_int_equal(r.stride, 4);
    /* Once written, TCHI is the counter's high byte (loaded by a DMA command
     * only with CFG2 features enable set). */
    wr(&r, ER_CFG2, 0x40);
    wr(&r, ER_TCLO, 0x34);
    wr(&r, ER_TCMID, 0x12);
    wr(&r, ER_TCHI, 0x01);
    wr(&r, ER_CMD, 0x80);
    assert_int_equal(rd(&r, ER_TCLO), 0x34);
    assert_int_equal(rd(&r, ER_TCMID), 0x12);
    assert_int_equal(rd(&r, ER_TCHI), 0x01);
    /* Without features enable the counter is 16 bits and a non-zero TCHI is a driver bug. */
    wr(&r, ER_CFG2, 0x00);
    wr(&r, ER_TCHI, 0x02);
    assert_int_equal(espm_errors(r.m), 1);
    wr(&r, ER_CMD, 0x80);
    assert_int_equal(rd(&r, ER_TCHI), 0x00);
    rig_close(&r);

    rig_open(&r, ESPM_NCR53C94, 25000, NULL);
    assert_int_equal(r.stride, 1);
    /* A 32-bit access where the 53C94 has no DMA engine. */
    (void)rd32(&r, 0x40);
    assert_int_equal(espm_errors(r.m), 1);
    rig_close(&r);
}

static void test_create_rejects(void **state)
{
    pcam_sim_config sc;
    pcam_sim *wide, *narrow;
    espm_config ec;

    (void)state;
    pcam_sim_config_defaults(&sc);
    wide = pcam_sim_create(&sc); /* width 16 by default */
    sc.width = 8;
    narrow = pcam_sim_create(&sc);
    memset(&ec, 0, sizeof ec);
    ec.chip = ESPM_AM53C974;
    ec.clock_khz = 40000;
    ec.initiator_id = 7;
    assert_null(espm_create(wide, &ec));
    assert_null(espm_create(NULL, &ec));
    assert_null(espm_create(narrow, NULL));
    ec.initiator_id = 6; /* the bus's initiator is 7 */
    assert_null(espm_create(narrow, &ec));
    ec.initiator_id = 7;
    ec.clock_khz = 50000;
    assert_null(espm_create(narrow, &ec));
    ec.clock_khz = 40000;
    ec.chip = (espm_chip)99;
    assert_null(espm_create(narrow, &ec));
    pcam_sim_destroy(wide);
    pcam_sim_destroy(narrow);
}

/* ---- reset and the interrupt latch ---- */

static void test_reset_state(void **state)
{
    espm_rig r;
    uint8_t st, seq;

    (void)state;
    rig_open(&r, ESPM_NCR53C94, 25000, NULL);
    rig_chip_init(&r, 25000);
    /* After RESET: no interrupt, not connected (phase bits 0), FIFO empty. */
    assert_int_equal(rd(&r, ER_STAT), 0x00);
    assert_int_equal(rd(&r, ER_FFLAGS), 0x00);
    assert_false(espm_irq(r.m));
    /* Drivers read INTR once after a reset to clear it: allowed. */
    assert_int_equal(rd(&r, ER_INTR), 0x00);
    assert_int_equal(espm_errors(r.m), 0);
    /* A second read with nothing pending is a lost-interrupt symptom. */
    (void)rd(&r, ER_INTR);
    assert_int_equal(espm_errors(r.m), 1);
    wr(&r, ER_CMD, 0x02); /* CFG1 back to 0: reset interrupts enabled */
    /* A bus reset interrupt, then reading INTR with nothing pending is an error. */
    wr(&r, ER_CMD, 0x03);
    assert_int_equal(rig_intr(&r, &st, &seq), 0x80);
    assert_int_equal(st & 0x80, 0x80);
    assert_false(espm_irq(r.m));
    assert_int_equal(rd(&r, ER_STAT) & 0x80, 0);
    assert_int_equal(espm_errors(r.m), 1);
    (void)rd(&r, ER_INTR);
    assert_int_equal(espm_errors(r.m), 2);
    rig_close(&r);
}

/* ---- selection timeout ---- */

static void test_selection_timeout(void **state)
{
    espm_rig r;
    uint8_t st, seq;
    uint64_t t0, t1;
    static const uint8_t sel[7] = {0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

    (void)state;
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    /* 40 MHz: CCF 8 (register 0); timeout register 250e-3 * 40e6 / (8192 * 8)
     * = 152.6 -> 152, i.e. 152 x 8192 x 8 clocks of 25 ns = 249,036,800 ns. */
    wr(&r, ER_BUSID, 3); /* nobody at ID 3 */
    rig_fifo_put(&r, sel, 7);
    t0 = pcam_sim_now(r.sim);
    wr(&r, ER_CMD, 0x42);
    espm_advance(r.m, t0 + 249036800ull - 1);
    assert_false(espm_irq(r.m));
    assert_true(espm_run_until_irq(r.m, 10000000ull));
    t1 = pcam_sim_now(r.sim);
    /* The timeout runs from arbitration won, which is at most one bus-free
     * settle (800 ns) after the command. */
    assert_true(t1 >= t0 + 249036800ull && t1 <= t0 + 249036800ull + 800u);
    st = rd(&r, ER_STAT);
    assert_int_equal(rd(&r, ER_INTR), 0x20); /* disconnect */
    seq = rd(&r, ER_SEQ);
    assert_int_equal(seq & 7, 0);
    assert_int_equal(st & 0x07, 0);
    /* The selection's bytes never left the FIFO. */
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 7);
    wr(&r, ER_CMD, 0x01);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 0);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* Selection with a wrong clock conversion or own ID is a driver error. */
static void test_selection_checks(void **state)
{
    espm_rig r;
    static const uint8_t tur[7] = {0x80, 0x00, 0, 0, 0, 0, 0};

    (void)state;
    rig_open(&r, ESPM_NCR53C94, 25000, NULL);
    rig_chip_init(&r, 25000);
    wr(&r, ER_CCF, 4);   /* 25 MHz needs CCF 5 */
    wr(&r, ER_CFG1, 0x16); /* own ID 6, but the chip is 7 */
    wr(&r, ER_BUSID, 1);
    rig_fifo_put(&r, tur, 7);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(espm_errors(r.m), 2);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x18);
    rig_close(&r);
}

/* ---- illegal commands ---- */

static void test_illegal_commands(void **state)
{
    espm_rig r;
    uint8_t st, seq;

    (void)state;
    rig_open(&r, ESPM_FAS216, 40000, NULL);
    rig_chip_init(&r, 40000);
    /* TRANSFER INFORMATION while disconnected: illegal command interrupt. */
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, &seq), 0x40);
    assert_int_equal(espm_errors(r.m), 1);
    /* MESSAGE ACCEPTED with nothing held. */
    wr(&r, ER_CMD, 0x12);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x40);
    /* A target-mode command (SEND MESSAGE 0x20). */
    wr(&r, ER_CMD, 0x20);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x40);
    /* An undefined code. */
    wr(&r, ER_CMD, 0x7F);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x40);
    /* A DMA selection on a chip whose DMA engine is not modelled. */
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_CMD, 0xC2);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x40);
    assert_int_equal(espm_errors(r.m), 5);
    rig_close(&r);

    /* SELECT WITH ATN3 does not exist on the 53C90. */
    rig_open(&r, ESPM_NCR53C90, 25000, NULL);
    rig_chip_init(&r, 25000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0);
    wr(&r, ER_FIFO, 0x20);
    wr(&r, ER_FIFO, 0x01);
    wr(&r, ER_CMD, 0x46);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x40);
    assert_int_equal(espm_errors(r.m), 1);
    rig_close(&r);
}

/* ---- FIFO ---- */

static void test_fifo(void **state)
{
    espm_rig r;
    unsigned i;

    (void)state;
    rig_open(&r, ESPM_NCR53C94, 25000, NULL);
    rig_chip_init(&r, 25000);
    for (i = 0; i < 16; i++)
        wr(&r, ER_FIFO, (uint8_t)i);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 16);
    assert_int_equal(espm_errors(r.m), 0);
    wr(&r, ER_FIFO, 0xAA); /* the 17th byte overflows: gross error */
    assert_int_equal(espm_errors(r.m), 1);
    assert_int_equal(rd(&r, ER_STAT) & 0x40, 0x40);
    assert_int_equal(rd(&r, ER_FIFO), 0);
    assert_int_equal(rd(&r, ER_FIFO), 1);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 14);
    wr(&r, ER_CMD, 0x01);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 0);
    (void)rd(&r, ER_FIFO); /* empty */
    assert_int_equal(espm_errors(r.m), 2);
    rig_close(&r);
}

/* ---- bus resets ---- */

static void test_bus_reset(void **state)
{
    espm_rig r;

    (void)state;
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    /* Ours: INTR 0x80 (SCSI reset). */
    wr(&r, ER_CMD, 0x03);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x80);
    /* Another device's. */
    espm_advance(r.m, pcam_sim_now(r.sim) + 100000);
    pcam_sim_bus_reset(r.sim);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x80);
    /* CFG1 bit 6 disables the reset interrupt. */
    espm_advance(r.m, pcam_sim_now(r.sim) + 100000);
    wr(&r, ER_CFG1, 0x57);
    wr(&r, ER_CMD, 0x03);
    espm_advance(r.m, pcam_sim_now(r.sim) + 100000);
    assert_false(espm_irq(r.m));
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identify),
        cmocka_unit_test(test_stride_and_tchi),
        cmocka_unit_test(test_create_rejects),
        cmocka_unit_test(test_reset_state),
        cmocka_unit_test(test_selection_timeout),
        cmocka_unit_test(test_selection_checks),
        cmocka_unit_test(test_illegal_commands),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_bus_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
