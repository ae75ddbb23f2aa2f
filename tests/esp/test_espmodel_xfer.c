/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Raw register tests of the ESP model moving data: INQUIRY by PIO and by
 * the AM53C974 DMA engine, a tagged READ with disconnect and reselection,
 * SDTR through SELECT WITH ATN AND STOP with the synchronous registers
 * checked against the target's agreement, and DMA residuals.
 *
 * Interrupt values (NCR53C9x datasheet facts, as Linux's esp_scsi expects
 * them): selection done 0x18 (FC|BS), bus service 0x10, function complete
 * 0x08, disconnect 0x20, reselected 0x0C (RSEL|FC). STATUS low bits are the
 * phase: 0 DATA OUT, 1 DATA IN, 2 COMMAND, 3 STATUS, 6 MSG OUT, 7 MSG IN;
 * 0x10 is TC zero, 0x80 the interrupt bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "espm_rig.h"

/* TRANSFER INFORMATION in MESSAGE IN (non-DMA): one byte, FC, ACK held. */
static uint8_t msg_byte(espm_rig *r)
{
    uint8_t st;

    wr(r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(r, &st, NULL), 0x08);
    assert_int_equal(st & 7, 7);
    assert_int_equal(rd(r, ER_FFLAGS) & 0x1F, 1);
    return rd(r, ER_FIFO);
}

/* MESSAGE ACCEPTED: returns INTR (BS in the next phase, or DC). */
static uint8_t mok(espm_rig *r, uint8_t *st)
{
    wr(r, ER_CMD, 0x12);
    return rig_intr(r, st, NULL);
}

/* PIO DATA IN: one byte per TRANSFER INFORMATION, bus service after each. */
static uint32_t pio_in(espm_rig *r, uint8_t *buf, uint32_t cap, uint8_t *st)
{
    uint32_t n = 0;

    *st = rd(r, ER_STAT);
    while ((*st & 7) == 1) {
        wr(r, ER_CMD, 0x10);
        assert_int_equal(rig_intr(r, st, NULL), 0x10);
        assert_int_equal(rd(r, ER_FFLAGS) & 0x1F, 1);
        if (n < cap)
            buf[n] = rd(r, ER_FIFO);
        else
            (void)rd(r, ER_FIFO);
        n++;
    }
    return n;
}

/* STATUS phase: INITIATOR COMMAND COMPLETE (status + message in the FIFO,
 * FC), then MESSAGE ACCEPTED (the target frees the bus: DC). */
static void complete(espm_rig *r, uint8_t want_status)
{
    uint8_t st;

    wr(r, ER_CMD, 0x11);
    assert_int_equal(rig_intr(r, &st, NULL), 0x08);
    assert_int_equal(st & 7, 7);
    assert_int_equal(rd(r, ER_FFLAGS) & 0x1F, 2);
    assert_int_equal(rd(r, ER_FIFO), want_status);
    assert_int_equal(rd(r, ER_FIFO), 0x00); /* COMMAND COMPLETE */
    assert_int_equal(mok(r, &st), 0x20);
    assert_int_equal(st & 7, 0);
}

static const uint8_t inquiry[6] = {0x12, 0, 0, 0, 36, 0};

/* ---- INQUIRY by PIO ---- */

static void test_inquiry_pio(void **state)
{
    espm_rig r;
    uint8_t st, seq, ref[36], got[36];
    espm_stats s;

    (void)state;
    rig_ref_inquiry(ref);
    rig_open(&r, ESPM_NCR53C94, 25000, NULL);
    rig_chip_init(&r, 25000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80); /* IDENTIFY, LUN 0, no disconnect */
    rig_fifo_put(&r, inquiry, 6);
    wr(&r, ER_CMD, 0x42);
    /* Selection with ATN, 1 message byte and 6 CDB bytes sent: step 4,
     * target in DATA IN, nothing left in the FIFO. */
    assert_int_equal(rig_intr(&r, &st, &seq), 0x18);
    assert_int_equal(seq & 7, 4);
    assert_int_equal(st & 7, 1);
    assert_int_equal(rd(&r, ER_FFLAGS), 0x80); /* count 0, step 4 in bits 7..5 */
    assert_int_equal(pio_in(&r, got, sizeof got, &st), 36);
    assert_memory_equal(got, ref, 36);
    assert_int_equal(st & 7, 3);
    complete(&r, 0x00);
    espm_stats_get(r.m, &s);
    assert_int_equal(s.dma_bytes, 0);
    assert_true(s.pio_bytes >= 36 + 7 + 2);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* ---- INQUIRY by DMA (AM53C974) ---- */

/* Program the DMA engine the way Linux's am53c974 does: IDLE with the
 * direction, ESP counter, STC, SPA, the ESP command, then START. */
static void dma_cmd(espm_rig *r, uint64_t bus, uint32_t len, bool to_mem, uint8_t cmd)
{
    uint32_t dir = to_mem ? 0x80u : 0u;

    wr32(r, ED_CMD, dir);
    rig_tc(r, len);
    wr32(r, ED_STC, len);
    wr32(r, ED_SPA, (uint32_t)bus);
    wr(r, ER_CMD, cmd);
    wr32(r, ED_CMD, dir | 0x03u);
}

static void test_inquiry_dma(void **state)
{
    espm_rig r;
    uint8_t st, seq, ref[36];
    uint8_t *blk = malloc(7), *data = malloc(36);
    uint64_t b1, b2;

    (void)state;
    assert_non_null(blk);
    assert_non_null(data);
    rig_ref_inquiry(ref);
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    blk[0] = 0x80;
    memcpy(blk + 1, inquiry, 6);
    assert_int_equal(r.p.dma_map(r.p.ctx, blk, 7, PCAM_DMA_TO_DEVICE, &b1), 0);
    assert_true(b1 <= 0xFFFFFFFFu);
    wr(&r, ER_BUSID, 1);
    /* The DMA selection waits for the engine's START. */
    wr32(&r, ED_CMD, 0);
    rig_tc(&r, 7);
    wr32(&r, ED_STC, 7);
    wr32(&r, ED_SPA, (uint32_t)b1);
    wr(&r, ER_CMD, 0xC2);
    espm_advance(r.m, pcam_sim_now(r.sim) + 1000000);
    assert_false(espm_irq(r.m));
    wr32(&r, ED_CMD, 0x03);
    assert_int_equal(rig_intr(&r, &st, &seq), 0x18);
    assert_int_equal(seq & 7, 4);
    /* All 7 bytes went: counter zero (0x10), DATA IN. */
    assert_int_equal(st & 0x17, 0x11);
    assert_int_equal(rd32(&r, ED_WBC), 0);
    r.p.dma_unmap(r.p.ctx, blk, 7, PCAM_DMA_TO_DEVICE, b1);

    memset(data, 0xEE, 36);
    assert_int_equal(r.p.dma_map(r.p.ctx, data, 36, PCAM_DMA_FROM_DEVICE, &b2), 0);
    dma_cmd(&r, b2, 36, true, 0x90);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 0x17, 0x13); /* TC zero, STATUS phase */
    assert_int_equal(rd(&r, ER_TCLO), 0);
    assert_int_equal(rd(&r, ER_TCMID), 0);
    /* DMA status: DONE (0x08); the engine's count is spent and its address moved. */
    assert_int_equal(rd32(&r, ED_STAT) & 0x08, 0x08);
    assert_int_equal(rd32(&r, ED_WBC), 0);
    assert_int_equal(rd32(&r, ED_WAC), (uint32_t)b2 + 36);
    r.p.dma_unmap(r.p.ctx, data, 36, PCAM_DMA_FROM_DEVICE, b2);
    assert_memory_equal(data, ref, 36);
    complete(&r, 0x00);
    assert_int_equal(espm_dma_live_maps(r.m), 0);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
    free(blk);
    free(data);
}

/* DMA to memory that was never mapped, or with the direction bit wrong. */
static void test_dma_checks(void **state)
{
    espm_rig r;
    uint8_t st, *data = malloc(36);
    uint64_t b;

    (void)state;
    assert_non_null(data);
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inquiry, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(st & 7, 1);
    /* Direction bit says "from memory" for a DATA IN. */
    assert_int_equal(r.p.dma_map(r.p.ctx, data, 36, PCAM_DMA_FROM_DEVICE, &b), 0);
    dma_cmd(&r, b, 36, false, 0x90);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 0x40, 0x40); /* gross error */
    assert_int_equal(espm_errors(r.m), 1);
    /* An address outside any mapping. */
    dma_cmd(&r, b + 0x100000u, 36, true, 0x90);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(espm_errors(r.m), 2);
    assert_int_equal(rd32(&r, ED_STAT) & 0x02, 0x02); /* DMA ERROR */
    r.p.dma_unmap(r.p.ctx, data, 36, PCAM_DMA_FROM_DEVICE, b);
    /* Unmapping twice. */
    r.p.dma_unmap(r.p.ctx, data, 36, PCAM_DMA_FROM_DEVICE, b);
    assert_int_equal(espm_errors(r.m), 3);
    rig_close(&r);
    free(data);
}

/* ---- tagged READ(10) with disconnect and reselection ---- */

static void test_tagged_reselection(void **state)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t st, seq, b, got[512];
    static const uint8_t read10[10] = {0x28, 0, 0, 0, 0, 2, 0, 0, 1, 0};
    int guard;

    (void)state;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    rig_open(&r, ESPM_AM53C974, 40000, &tc);
    rig_chip_init(&r, 40000);
    wr(&r, ER_CFG2, 0x48); /* SCSI-2 + features enable */
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0); /* IDENTIFY with disconnect privilege, LUN 0 */
    wr(&r, ER_FIFO, 0x20); /* SIMPLE QUEUE TAG */
    wr(&r, ER_FIFO, 0x05); /* tag 5 */
    rig_fifo_put(&r, read10, 10);
    wr(&r, ER_CMD, 0x46);
    /* SELECT WITH ATN3: 3 message bytes + 10 CDB bytes, step 4. */
    assert_int_equal(rig_intr(&r, &st, &seq), 0x18);
    assert_int_equal(seq & 7, 4);
    assert_true(pcam_sim_target_tags_in_use(r.sim, 1));
    /* The target disconnects: messages until the bus goes free. */
    assert_int_equal(st & 7, 7);
    for (guard = 0; guard < 4; guard++) {
        b = msg_byte(&r);
        if (mok(&r, &st) == 0x20)
            break;
        assert_int_equal(st & 7, 7);
    }
    assert_int_equal(b, 0x04); /* DISCONNECT */
    /* Listen for reselection. */
    wr(&r, ER_CMD, 0x44);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x0C);
    assert_int_equal(st & 7, 7);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 2);
    assert_int_equal(rd(&r, ER_FIFO), 0x82); /* ID bits: 7 and 1 */
    assert_int_equal(rd(&r, ER_FIFO), 0x80); /* IDENTIFY LUN 0 */
    /* Accept IDENTIFY, then the tag message comes as message-in. */
    assert_int_equal(mok(&r, &st), 0x10);
    assert_int_equal(st & 7, 7);
    assert_int_equal(msg_byte(&r), 0x20);
    assert_int_equal(mok(&r, &st), 0x10);
    assert_int_equal(msg_byte(&r), 0x05);
    assert_int_equal(mok(&r, &st), 0x10);
    assert_int_equal(st & 7, 1);
    assert_int_equal(pio_in(&r, got, sizeof got, &st), 512);
    /* LBA 2 of the disk. */
    assert_memory_equal(got, r.disk + 2 * 512, 512);
    assert_int_equal(st & 7, 3);
    complete(&r, 0x00);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* Reselection by DMA of the tag bytes, the way Linux's esp_reconnect_with_tag
 * does it: TI|DMA for 2 bytes with MESSAGE ACCEPTED stacked behind it. */
static void test_tag_by_dma(void **state)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t st, *tag = malloc(2);
    uint64_t b;
    static const uint8_t read10[10] = {0x28, 0, 0, 0, 0, 1, 0, 0, 1, 0};

    (void)state;
    assert_non_null(tag);
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    rig_open(&r, ESPM_AM53C974, 40000, &tc);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0);
    wr(&r, ER_FIFO, 0x20);
    wr(&r, ER_FIFO, 0x09);
    rig_fifo_put(&r, read10, 10);
    wr(&r, ER_CMD, 0x46);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x18);
    while (msg_byte(&r) != 0x04)
        assert_int_equal(mok(&r, NULL), 0x10);
    assert_int_equal(mok(&r, NULL), 0x20);
    wr(&r, ER_CMD, 0x44);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x0C);
    wr(&r, ER_CMD, 0x01); /* flush ID bits and IDENTIFY */
    assert_int_equal(mok(&r, &st), 0x10);
    assert_int_equal(r.p.dma_map(r.p.ctx, tag, 2, PCAM_DMA_FROM_DEVICE, &b), 0);
    dma_cmd(&r, b, 2, true, 0x90);
    wr(&r, ER_CMD, 0x12); /* stacked */
    /* TI ends with FC (ACK held on the tag byte), then the stacked MOK's BS. */
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x08);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 7, 1);
    r.p.dma_unmap(r.p.ctx, tag, 2, PCAM_DMA_FROM_DEVICE, b);
    assert_int_equal(tag[0], 0x20);
    assert_int_equal(tag[1], 0x09);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
    free(tag);
}

/* ---- SDTR by SELECT WITH ATN AND STOP, then synchronous data ---- */

static void test_sdtr_and_sync(void **state)
{
    espm_rig r;
    uint8_t st, seq, ans[5], ref[36], got[36];
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x19, 0x08}; /* 100 ns, offset 8 */
    pcam_hal_xfer_params ag, chip;
    unsigned i;

    (void)state;
    rig_ref_inquiry(ref);
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    wr(&r, ER_CMD, 0x43);
    /* Stopped after the IDENTIFY with ATN still up: step 1, MESSAGE OUT. */
    assert_int_equal(rig_intr(&r, &st, &seq), 0x18);
    assert_int_equal(seq & 7, 1);
    assert_int_equal(st & 7, 6);
    rig_fifo_put(&r, sdtr, 5);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 7, 7);
    for (i = 0; i < 5; i++) {
        ans[i] = msg_byte(&r);
        assert_int_equal(mok(&r, &st), 0x10);
    }
    /* The target (fastest 0x0C, offset up to 16) accepts 0x19 / 8 as asked. */
    assert_memory_equal(ans, sdtr, 5);
    assert_int_equal(st & 7, 2);
    /* Period 100 ns at 40 MHz (25 ns clock) = 4 clocks; below 200 ns the
     * AM53C974 needs CFG3 fast SCSI (0x10). */
    wr(&r, ER_STP, 4);
    wr(&r, ER_SOFF, 8);
    wr(&r, ER_CFG3, 0x18);
    rig_fifo_put(&r, inquiry, 6);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 7, 1);
    assert_int_equal(pio_in(&r, got, sizeof got, &st), 36);
    assert_memory_equal(got, ref, 36);
    pcam_sim_target_agreement(r.sim, 1, &ag);
    pcam_sim_chip_xfer(r.sim, 1, &chip);
    assert_int_equal(ag.period, 0x19);
    assert_int_equal(ag.offset, 8);
    /* 4 clocks x 25 ns = 100 ns -> factor 25 (0x19). */
    assert_int_equal(chip.period, 0x19);
    assert_int_equal(chip.offset, 8);
    complete(&r, 0x00);
    assert_int_equal(espm_errors(r.m), 0);

    /* Next command with the synchronous registers left at asynchronous: the
     * data transfer is lost (gross error) and the model says why. */
    wr(&r, ER_STP, 0);
    wr(&r, ER_SOFF, 0);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, inquiry, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    wr(&r, ER_CMD, 0x10);
    assert_true(espm_run_until_irq(r.m, 1000000000ull));
    assert_int_equal(rd(&r, ER_STAT) & 0x40, 0x40);
    (void)rd(&r, ER_INTR);
    assert_true(espm_errors(r.m) >= 1);
    assert_non_null(strstr(espm_last_error(r.m), "agreed offset 8"));
    rig_close(&r);
}

/* A fast period without CFG3 fast SCSI is a driver error. */
static void test_sync_register_checks(void **state)
{
    espm_rig r;
    uint8_t st;
    static const uint8_t sdtr[5] = {0x01, 0x03, 0x01, 0x19, 0x08};
    unsigned i;

    (void)state;
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    wr(&r, ER_CMD, 0x43);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x18);
    rig_fifo_put(&r, sdtr, 5);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x10);
    for (i = 0; i < 5; i++) {
        (void)msg_byte(&r);
        assert_int_equal(mok(&r, &st), 0x10);
    }
    wr(&r, ER_STP, 4);
    wr(&r, ER_SOFF, 8); /* CFG3 left 0 */
    rig_fifo_put(&r, inquiry, 6);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(espm_errors(r.m), 1);
    assert_non_null(strstr(espm_last_error(r.m), "CFG3"));
    (void)rig_intr(&r, NULL, NULL);
    rig_close(&r);
}

/* ---- DMA data out that the target cuts short ---- */

static void test_dma_out_residual(void **state)
{
    espm_rig r;
    uint8_t st, *buf = malloc(1024);
    uint64_t b;
    static const uint8_t write6[6] = {0x0A, 0, 0, 3, 1, 0}; /* WRITE(6) LBA 3, 1 block */
    unsigned i;

    (void)state;
    assert_non_null(buf);
    for (i = 0; i < 1024; i++)
        buf[i] = (uint8_t)(i * 7u + 1u);
    rig_open(&r, ESPM_AM53C974, 40000, NULL);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, write6, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x18);
    assert_int_equal(st & 7, 0);
    /* The driver offers 1024 bytes; the target takes its 512 and changes
     * phase. The chip had prefetched a FIFO's worth (16) beyond: counter =
     * 1024 - 512 - 16 = 496 (0x01F0), FIFO flags 16, DMA count 1024 - 528. */
    assert_int_equal(r.p.dma_map(r.p.ctx, buf, 1024, PCAM_DMA_TO_DEVICE, &b), 0);
    dma_cmd(&r, b, 1024, false, 0x90);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_not_equal(st & 7, 0);
    assert_int_equal(st & 0x10, 0);
    assert_int_equal(rd(&r, ER_TCLO), 0xF0);
    assert_int_equal(rd(&r, ER_TCMID), 0x01);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 16);
    assert_int_equal(rd32(&r, ED_WBC), 1024 - 528);
    assert_int_equal(rd(&r, ER_FIFO), buf[512]);
    wr(&r, ER_CMD, 0x01);
    r.p.dma_unmap(r.p.ctx, buf, 1024, PCAM_DMA_TO_DEVICE, b);
    assert_memory_equal(r.disk + 3 * 512, buf, 512);
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
    free(buf);
}

/* ---- sequence step 2: the target leaves MESSAGE OUT before COMMAND ---- */

/* A target that rejects tags answers the tag message with MESSAGE REJECT:
 * the selection stops after the 3 message bytes (step 2) with the CDB still
 * in the FIFO; after the reject the target asks for the command, and a
 * TRANSFER INFORMATION sends those same FIFO bytes. */
static void test_tag_rejected_step2(void **state)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t st, seq, ref[36], got[36];

    (void)state;
    rig_ref_inquiry(ref);
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.reject_tags = true;
    rig_open(&r, ESPM_FAS236, 40000, &tc);
    rig_chip_init(&r, 40000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0);
    wr(&r, ER_FIFO, 0x20);
    wr(&r, ER_FIFO, 0x03);
    rig_fifo_put(&r, inquiry, 6);
    wr(&r, ER_CMD, 0x46);
    assert_int_equal(rig_intr(&r, &st, &seq), 0x18);
    assert_int_equal(seq & 7, 2);
    assert_int_equal(st & 7, 7);
    assert_int_equal(rd(&r, ER_FFLAGS), 0x46); /* 6 CDB bytes, step 2 in bits 7..5 */
    /* Reading the MESSAGE REJECT with TI would put it behind the CDB bytes:
     * a real driver saves them first; here we read them out and put them back. */
    {
        uint8_t cdb[6];
        unsigned i;

        for (i = 0; i < 6; i++)
            cdb[i] = rd(&r, ER_FIFO);
        assert_memory_equal(cdb, inquiry, 6);
        assert_int_equal(msg_byte(&r), 0x07);
        assert_int_equal(mok(&r, &st), 0x10);
        assert_int_equal(st & 7, 2);
        rig_fifo_put(&r, cdb, 6);
    }
    wr(&r, ER_CMD, 0x10);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x10);
    assert_int_equal(st & 7, 1);
    assert_int_equal(pio_in(&r, got, sizeof got, &st), 36);
    assert_memory_equal(got, ref, 36);
    complete(&r, 0x00);
    assert_false(pcam_sim_target_tags_in_use(r.sim, 1));
    assert_int_equal(espm_errors(r.m), 0);
    rig_close(&r);
}

/* ---- a reselection waiting for ENABLE SELECTION wins over a selection ---- */

static void test_held_reselection(void **state)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t st;
    static const uint8_t read10[10] = {0x28, 0, 0, 0, 0, 4, 0, 0, 1, 0};
    static const uint8_t tur[6] = {0, 0, 0, 0, 0, 0};
    espm_stats s;

    (void)state;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    rig_open(&r, ESPM_NCR53C94, 25000, &tc);
    rig_chip_init(&r, 25000);
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0xC0);
    rig_fifo_put(&r, read10, 10);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, NULL, NULL), 0x18);
    while (msg_byte(&r) != 0x04)
        assert_int_equal(mok(&r, NULL), 0x10);
    assert_int_equal(mok(&r, NULL), 0x20);
    /* No ENABLE SELECTION: the target's reselection (after the 100 us
     * mechanism) is not answered, so no interrupt. */
    espm_advance(r.m, pcam_sim_now(r.sim) + 1000000);
    assert_false(espm_irq(r.m));
    /* A selection now loses to it: RSEL|FC, and the FIFO has only the
     * reselection's ID bits and IDENTIFY. */
    wr(&r, ER_BUSID, 1);
    wr(&r, ER_FIFO, 0x80);
    rig_fifo_put(&r, tur, 6);
    wr(&r, ER_CMD, 0x42);
    assert_int_equal(rig_intr(&r, &st, NULL), 0x0C);
    assert_int_equal(st & 7, 7);
    assert_int_equal(rd(&r, ER_FFLAGS) & 0x1F, 2);
    assert_int_equal(rd(&r, ER_FIFO), 0x82);
    assert_int_equal(rd(&r, ER_FIFO), 0x80);
    assert_int_equal(mok(&r, &st), 0x10);
    assert_int_equal(st & 7, 1);
    assert_int_equal(espm_errors(r.m), 0);
    espm_stats_get(r.m, &s);
    assert_true(s.reg_reads > 10);
    assert_true(s.reg_writes > 20);
    /* RESET, DMA NOP, SELATN, TI, MOK, SELATN, MOK. */
    assert_int_equal(s.commands, 7);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inquiry_pio),
        cmocka_unit_test(test_inquiry_dma),
        cmocka_unit_test(test_dma_checks),
        cmocka_unit_test(test_tagged_reselection),
        cmocka_unit_test(test_tag_by_dma),
        cmocka_unit_test(test_sdtr_and_sync),
        cmocka_unit_test(test_sync_register_checks),
        cmocka_unit_test(test_dma_out_residual),
        cmocka_unit_test(test_tag_rejected_step2),
        cmocka_unit_test(test_held_reselection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
