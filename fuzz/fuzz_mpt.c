/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/mpt against a lying IOC. The IOC is played in the platform's
 * register hooks: it goes through the doorbell handshake like the real
 * thing (QEMU's mptsas1068 is the model) unless the input makes it lie
 * there too, and then answers the requests the back-end posts with reply
 * FIFO words and reply frames taken from the input: context replies for
 * live, finished, or made-up contexts; address replies in frames of its
 * own choosing (lent or not, aligned or not) with any function, length,
 * IOCStatus, SCSI state, transfer and sense count; events with any code and
 * data length; faults. The core above it is real, and the input also
 * plays the upper layer (upper.c: I/O with and without data, scatter-gather,
 * sense buffers, tags; aborts and resets), and time (timeouts walk the ladder).
 *
 * Checked on every input: every CCB completes exactly once (at once if
 * twice; after pcam_bus_shutdown() none is left); the DMA area, data and
 * sense buffers are exact-size heap blocks (ASan and Valgrind see a write
 * outside them); pcam_bus_check_invariants() holds after each step; the
 * run ends (every wait in the back-end is bounded by the fake clock).
 *
 * Input layout:
 *   byte 0   bits 0-1: how the bring-up lies (0 honest, 1 facts from the
 *            input, 2 never ready, 3 a handshake that stalls); bits 2-7 seed
 *   then     4-byte operations (op, a, b, c) until the input ends
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_mpt.h"
#include "mptm.h"
#include "upper.h"

static void address_reply(uint8_t a, uint8_t b, uint8_t c)
{
    uint32_t frame;
    if ((a & 0x80) != 0 || mptm_free_count() == 0)
        frame = MPTM_DMA_BUS + ((uint32_t)b << 8 | c); /* anywhere: a lie */
    else
        frame = mptm_take_free();
    uint8_t *r = mptm_at(frame, 128);
    if (r != NULL) {
        uint8_t func = 0;
        uint32_t ctx = mptm_nposted() != 0 ? mptm_posted_ctx(b, &func) : mptm_in8();
        memset(r, 0, 128);
        r[3] = (a & 0x40) != 0 ? mptm_in8() : func;
        r[2] = (a & 0x20) != 0 ? mptm_in8() : (func == 0x01 ? 6 : func == 0x07 ? (uint8_t)(7 + (c & 3)) : 9);
        mptm_put32(r + 8, (a & 0x10) != 0 ? mptm_get32((const uint8_t[4]){mptm_in8(), mptm_in8(), mptm_in8(), mptm_in8()}) : ctx);
        mptm_put16(r + 14, (uint16_t)((a & 0x08) != 0 ? (mptm_in8() | mptm_in8() << 8) : (c & 1 ? 0x45 : 0)));
        if (r[3] == 0x07) {
            mptm_put16(r + 0, (uint16_t)(c & 7));
            r[6] = (uint8_t)(c >> 7);
            mptm_put32(r + 20, mptm_in8());
            for (unsigned k = 0; k < 12; k++)
                r[28 + k] = mptm_in8();
        } else {
            r[4] = mptm_in8();  /* TM ResponseCode */
            r[12] = mptm_in8(); /* SCSI status */
            r[13] = mptm_in8(); /* SCSI state */
            mptm_put32(r + 20, (uint32_t)mptm_in8() << (c & 0x18));
            mptm_put32(r + 24, mptm_in8());
        }
    }
    mptm_push(0x80000000u | (frame >> 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pcam_mpt sc;
    pcam_platform plat;
    pcam_mpt_config cfg;
    pcam_hal hal;
    pcam_bus_config bcfg;
    static pcam_bus bus;
    static pcam_lun luns[PCAM_BUS_LUNS(16, 2)];

    if (size < 1)
        return 0;
    mptm_start(data + 1, size - 1, data[0] & 3u, &plat, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.dma_va = mptm_dma();
    cfg.dma_bus = MPTM_DMA_BUS;
    cfg.dma_len = PCAM_MPT_DMA_BYTES;
    upper_reset();
    if (pcam_mpt_attach(&sc, &cfg, &plat, &hal) != PCAM_OK) {
        mptm_end();
        return 0;
    }
    pcam_bus_config_defaults(&bcfg);
    bcfg.luns_per_target = 2;
    bcfg.abort_timeout_ms = 200;
    bcfg.reset_settle_ms = 50;
    if (pcam_bus_init(&bus, &bcfg, &hal, &plat, luns, PCAM_BUS_LUNS(16, 2)) != PCAM_OK) {
        mptm_end();
        return 0;
    }
    unsigned steps = 0;
    while (mptm_left() >= 4 && steps++ < 2000) {
        uint8_t op = mptm_in8(), a = mptm_in8(), b = mptm_in8(), c = mptm_in8();
        switch (op % 8u) {
        case 0:
        case 1:
            upper_submit(&bus, a, b, c);
            break;
        case 2: { /* a context reply */
            uint8_t func = 0;
            uint32_t ctx = (a & 1) != 0 || mptm_nposted() == 0 ? ((uint32_t)b << 8 | c) : mptm_posted_ctx(b, &func);
            mptm_push(ctx & 0x7FFFFFFFu);
            break;
        }
        case 3:
            address_reply(a, b, c);
            break;
        case 4:
            if ((a & 7) == 0)
                mptm_set_state(MPTM_FAULT | b);
            break;
        case 5:
            upper_misc(&bus, a, b);
            break;
        case 6:
            mptm_advance((uint64_t)(a + 1) * 20000000u);
            pcam_bus_tick(&bus);
            break;
        default:
            break;
        }
        if (mptm_pending() || (op & 0x10) != 0)
            pcam_bus_intr(&bus);
        upper_check(&bus);
    }
    pcam_bus_shutdown(&bus);
    upper_finish();
    pcam_mpt_stop(&sc);
    mptm_end();
    return 0;
}
