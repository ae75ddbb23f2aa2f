/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Raw register tests of the ESP model's remaining commands: SELECT without
 * ATN, PIO DATA OUT through the FIFO, TRANSFER PAD, SET ATN / RESET ATN
 * around a message-in byte, DISABLE SELECTION, and the AM53C974 DMA status
 * (SCSI interrupt mirror, write-one-to-clear and clear-on-read).
 * Interrupt and status values as in test_espmodel_xfer.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "espm_rig.h"

static uint8_t msg_byte(espm_rig *r)
{
    wr(r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(r, NULL, NULL), 0x08);
    return rd(r, ER_FIFO);
}

static uint8_t mok(espm_rig *r, uint8_t *st)
{
    wr(r, ER_CMD, 0x12);
    return rig_intr(r, st, NULL);
}

static void complete(espm_rig *r, uint8_t want_status)
{
    uint8_t st;

    wr(r, ER_CMD, 0x11);
    assert_int_equal(rig_intr(r, &st, NULL), 0x08);
    assert_int_equal(rd(r, ER_FFLAGS) & 0x1F, 2);
    assert_int_equal(rd(r, ER_FIFO), want_status);
    assert_int_equal(rd(r, ER_FIFO), 0x00);
    assert_int_equal(mok(r, &st), 0x20);
}

/* SELECT without ATN: no message phase, the 6 CDB bytes from the FIFO,
 * step 4 (the target takes LUN 0 from the CDB, SCSI-1 style). */
static void test_select_without_atn(void **state)
{
    espm_rig r;
    uint8_t st, seq;
    static const uint8_t tur[6] = {0x00, 0, 0, 0, 0, 0};

    (void)state;
    rig_open(&r, ESPM_NCR53C90A, 20000, NULL);
    rig_chip_init(&r, 20000);
    wr(&r, ER_BUSID, 1);
    rig_fifo_put(&r, tur, 6);
    wr(&r, ER_CMD, 0x41);
    assert_int_equal(rig_intr(&r, &st, &seq), 0x18);
    assert_int_equal(seq & 7, 4);
    assert_int_equal(st & 7, 3); /* TEST UNIT READY: straight to STATUS */
    complete(&r, 0x00);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* WRITE(6) of one block by PIO: the driver fills the FIFO with 16 bytes and
 * issues TRANSFER INFORMATION, 32 times; bus service after each. */
static void test_pio_data_out(void **state)
{
    espm_rig r;
    uint8_t st, buf[512];
    static const uint8_t write6[6] = {0x0A, 0, 0, 5, 1, 0};
    unsigned i, chunks = 0;

    (void)state;
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(0xA5 ^ i);
    rig_open(&r, ESPM_NCR53C94, 25000, NULL);
    rig_chip_init(&r, 25000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, write6, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(st & 7, 0);
    while ((st & 7) == 0 && chunks < 40) {
        rig_fifo_put(&r, buf + chunks * 16, 16);
        wr(&r, ER_CMD, 0x10);
        assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
        assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 0);
        chunks++;
    }
    assert_int_equal(chunks, 32);
    assert_memory_equal(r.disk + 5 * 512, buf, 512);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* TRANSFER PAD: take 4 INQUIRY bytes by PIO, then pad with a counter of 64:
 * the remaining 32 bytes are discarded, the target goes to STATUS (bus
 * service) and 64 - 32 = 32 is left in the counter. */
static void test_transfer_pad(void **state)
{
    espm_rig r;
    uint8_t st;
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};
    unsigned i;

    (void)state;
    rig_open(&r, ESPM_FAS216, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inq, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    for (i = 0; i < 4; i++) {
        wr(&r, ER_CMD, 0x10);
        assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
        (void)rd(&r, ER_FIFO);
    }
    assert_int_equal(st & 7, 1);
    rig_tc(&r, 64);
    wr(&r, ER_CMD, 0x98); /* TRANSFER PAD with the counter loaded */
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 7, 3);
    assert_int_equal(rd(&r, ER_TCLO), 32);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 0);
    complete(&r, 0x00);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* SET ATN before MESSAGE ACCEPTED rejects the message: the target goes to
 * MESSAGE OUT; a rejected DISCONNECT keeps it on the bus (hal/sim's rule).
 * RESET ATN before MESSAGE ACCEPTED takes the request back. */
static void test_set_and_reset_atn(void **state)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t st;
    static const uint8_t read6[6] = {0x08, 0, 0, 1, 1, 0};

    (void)state;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    rig_open(&r, ESPM_AM53C974, 40000, &tc);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0);
    rig_fifo_put(&r, read6, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(msg_byte(&r), 0x04);
    wr(&r, ER_CMD, 0x1A);
    assert_int_equal(mok(&r, &st), 0x10);
    assert_int_equal(st & 7, 6);
    wr(&r, ER_FIFO, 0x07); /* MESSAGE REJECT */
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_not_equal(st & 7, 6);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);

    rig_open(&r, ESPM_AM53C974, 40000, &tc);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0);
    rig_fifo_put(&r, read6, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(msg_byte(&r), 0x04);
    wr(&r, ER_CMD, 0x1A);
    wr(&r, ER_CMD, 0x1B);
    assert_int_equal(mok(&r, &st), 0x20); /* DISCONNECT taken: bus free */
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* DISABLE SELECTION ends with function complete; ENABLE SELECTION while
 * connected is refused. */
static void test_enable_disable_selection(void **state)
{
    espm_rig r;
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};

    (void)state;
    rig_open(&r, ESPM_FAS236, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_CMD, 0x45);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x08);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inq, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x18);
    wr(&r, ER_CMD, 0x44);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x40);
    assert_int_equal(espm_errors(r.m), 1);
    rig_close(&r);
}

/* AM53C974 DMA status: bit 4 mirrors the SCSI core's interrupt; DONE clears
 * by writing it back, or on read when SBAC bit 24 is set (QEMU 7.2). */
static void test_dma_status_bits(void **state)
{
    espm_rig r;
    uint8_t *buf = malloc(36);
    uint64_t b;
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};

    (void)state;
    assert_non_null(buf);
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inq, 6);
    wr(&r, ER_CMD, 0x42);
    assert_true(espm_run_until_irq(r.m, 1000000000ull));
    assert_int_equal(rd32(&r, ED_STAT) & 0x10, 0x10);
    (void)rd(&r, ER_INTR);
    assert_int_equal(rd32(&r, ED_STAT) & 0x10, 0);
    assert_int_equal(r.p.dma_map(r.p.ctx, buf, 36, PCAM_DMA_FROM_DEVICE, &b), 0);
    wr32(&r, ED_CMD, 0x80);
    rig_tc(&r, 36);
    wr32(&r, ED_STC, 36);
    wr32(&r, ED_SPA, (uint32_t)b);
    wr(&r, ER_CMD, 0x90);
    wr32(&r, ED_CMD, 0x83);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x10);
    assert_int_equal(rd32(&r, ED_STAT), 0x08);
    assert_int_equal(rd32(&r, ED_STAT), 0x08); /* still there: write-one-to-clear mode */
    wr32(&r, ED_STAT, 0x08);
    assert_int_equal(rd32(&r, ED_STAT), 0x00);
    r.p.dma_unmap(r.p.ctx, buf, 36, PCAM_DMA_FROM_DEVICE, b);
    /* Clear-on-read mode, with INITIATOR COMMAND COMPLETE by DMA: status
     * and message land in memory, FC, DONE after the 2 bytes. */
    wr32(&r, 0x70, 1u << 24);
    assert_int_equal(rd32(&r, 0x70), 1u << 24);
    memset(buf, 0xEE, 2);
    assert_int_equal(r.p.dma_map(r.p.ctx, buf, 2, PCAM_DMA_FROM_DEVICE, &b), 0);
    wr32(&r, ED_CMD, 0x80);
    rig_tc(&r, 2);
    wr32(&r, ED_STC, 2);
    wr32(&r, ED_SPA, (uint32_t)b);
    wr(&r, ER_CMD, 0x91);
    wr32(&r, ED_CMD, 0x83);
    assert_true(espm_run_until_irq(r.m, 1000000000ull));
    assert_int_equal(rd32(&r, ED_STAT), 0x18); /* DONE + SCSI interrupt */
    assert_int_equal(rd32(&r, ED_STAT), 0x10); /* DONE cleared by the read */
    assert_int_equal(rd(&r, ER_INTR), 0x08);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 0);
    r.p.dma_unmap(r.p.ctx, buf, 2, PCAM_DMA_FROM_DEVICE, b);
    assert_int_equal(buf[0], 0x00);
    assert_int_equal(buf[1], 0x00);
    assert_int_equal(mok(&r, NULL), 0x20);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
    free(buf);
}

/* A DATA IN byte with bad parity, with CFG1 parity checking on: bus service
 * with STATUS parity error (0x20); the chip raised ATN by itself, so the
 * target is in MESSAGE OUT for INITIATOR DETECTED ERROR. With checking off
 * the bit stays clear. */
static void test_parity_error(void **state)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t st;
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};

    (void)state;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.parity_data_ppm = 1000000;
    rig_open(&r, ESPM_AM53C974, 40000, &tc);
    rig_chip_init(&r, 40000); /* CFG1 0x17: parity enable */
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inq, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(st & 7, 1);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 0x20, 0x20);
    assert_int_equal(st & 7, 6);
    assert_int_equal(rd(&r, ER_STAT) & 0x20, 0); /* cleared with INTR */
    (void)rd(&r, ER_FIFO);
    wr(&r, ER_FIFO, 0x05);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 7, 7); /* RESTORE POINTERS comes */
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);

    rig_open(&r, ESPM_AM53C974, 40000, &tc);
    rig_chip_init(&r, 40000);
    wr(&r, ER_CFG1, 0x07);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inq, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 0x20, 0);
    rig_close(&r);
}

/* SET ATN while connected and idle in DATA IN: the target asks for MESSAGE
 * OUT (STATUS phase bits 6); ABORT TASK SET (0x06) then frees the bus. */
static void test_atn_in_data_phase(void **state)
{
    espm_rig r;
    uint8_t st;
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};

    (void)state;
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inq, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(st & 7, 1);
    wr(&r, ER_CMD, 0x1A);
    assert_int_equal(rd(&r, ER_STAT) & 7, 6);
    wr(&r, ER_FIFO, 0x06);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x20);
    assert_int_equal(pcam_sim_task_count(r.sim, 1, 0), 0);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_without_atn),
        cmocka_unit_test(test_pio_data_out),
        cmocka_unit_test(test_transfer_pad),
        cmocka_unit_test(test_set_and_reset_atn),
        cmocka_unit_test(test_enable_disable_selection),
        cmocka_unit_test(test_dma_status_bits),
        cmocka_unit_test(test_parity_error),
        cmocka_unit_test(test_atn_in_data_phase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
