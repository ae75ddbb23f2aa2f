/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/virtio against a lying device. The device is tests/virtio's
 * scriptable one (viom.c): it goes through bring-up like QEMU's
 * virtio-scsi-pci unless the input makes it lie there too (features,
 * queue sizes, configuration from the input; a device that never resets;
 * one that refuses the features), checks every descriptor the back-end
 * makes available against memory the back-end owns, and answers with what
 * the input says: completions for requests in flight or never sent, ids
 * past the ring, lengths no buffer has, any response code, status,
 * residual and sense length; used indexes moved past what was made
 * available; task management answers of any code; events of any kind for
 * any address, of any length; a device that needs a reset. The core above
 * it is real, and the input also plays the upper layer (upper.c) and time
 * (timeouts walk the ladder).
 *
 * Checked on every input: every CCB completes exactly once; the DMA area,
 * data and sense buffers are exact-size heap blocks (ASan and Valgrind see
 * a write outside them); pcam_bus_check_invariants() holds after each
 * step; every mapping is undone by the end; the run ends.
 *
 * Input layout:
 *   byte 0   bits 0-1: how the bring-up lies (viom.h: 0 honest, 1 config
 *            from the input, 2 never resets, 3 refuses the features)
 *   then     4-byte operations (op, a, b, c) until the input ends: op
 *            bits 0-3 say which (the switch below), bit 4 calls
 *            pcam_bus_intr() after it even with no interrupt pending
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam/pcam_virtio.h"
#include "upper.h"
#include "viom.h"

static void complete(uint8_t a, uint8_t b, uint8_t c)
{
    static const uint8_t codes[8] = {0, 0, 0, 1, 2, 3, 4, 5};
    uint8_t resp = (a & 0x80) != 0 ? viom_in8() : codes[a & 7];
    uint8_t status = (b & 1) != 0 ? 0x02 : (b & 2) != 0 ? 0x28 : 0;
    uint32_t resid = (c & 0x80) != 0 ? (uint32_t)viom_in8() << (c & 0x18) : 0;
    uint32_t sense = (a & 0x40) != 0 ? viom_in8() : 18;
    long id = (a & 0x20) != 0 ? (long)viom_in8() : -1;
    long len = (a & 0x10) != 0 ? (long)(viom_in8() | viom_in8() << 8) : -1;
    viom_complete(b, resp, status, resid, sense, c, id, len);
}

static void event(uint8_t a, uint8_t b, uint8_t c)
{
    static const uint32_t kinds[8] = {1, 1, 0x80000001u, 0x80000000u, 2, 3, 0, 7};
    uint8_t lun[8] = {1, (uint8_t)(b & 0x1F), 0x40, (uint8_t)(c & 1), 0, 0, 0, 0};
    if ((a & 0x80) != 0)
        for (unsigned k = 0; k < 8; k++)
            lun[k] = viom_in8();
    (void)viom_event(kinds[a & 7], lun, (a >> 3) & 3u, (a & 0x40) != 0 ? (long)viom_in8() : -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pcam_virtio sc;
    pcam_platform plat;
    pcam_virtio_config cfg;
    pcam_hal hal;
    pcam_bus_config bcfg;
    static pcam_bus bus;
    static pcam_lun luns[PCAM_BUS_LUNS(16, 2)];

    if (size < 1)
        return 0;
    viom_start(data + 1, size - 1, data[0] & 3u, &plat, &cfg, NULL);
    upper_reset();
    if (pcam_virtio_attach(&sc, &cfg, &plat, &hal) != PCAM_OK) {
        viom_end();
        return 0;
    }
    pcam_bus_config_defaults(&bcfg);
    bcfg.luns_per_target = 2;
    bcfg.abort_timeout_ms = 200;
    bcfg.reset_settle_ms = 50;
    if (pcam_bus_init(&bus, &bcfg, &hal, &plat, luns, PCAM_BUS_LUNS(16, 2)) != PCAM_OK) {
        pcam_virtio_stop(&sc);
        viom_end();
        return 0;
    }
    unsigned steps = 0;
    while (viom_left() >= 4 && steps++ < 2000) {
        uint8_t op = viom_in8(), a = viom_in8(), b = viom_in8(), c = viom_in8();
        switch (op & 0x0Fu) { /* 12-15: nothing; 0x10: an interrupt after it */
        case 0:
        case 1:
            upper_submit(&bus, a, b, c);
            break;
        case 2:
        case 3:
            complete(a, b, c);
            break;
        case 4:
            viom_push_used(b % 3u, (uint32_t)viom_in8() << (c & 8), viom_in8());
            break;
        case 5:
            viom_bump_used(b % 3u, (uint16_t)((a & 0x80) != 0 ? (unsigned)(a << 8 | c) : (a & 0x3Fu) + 1u));
            break;
        case 6:
            event(a, b, c);
            break;
        case 7:
            viom_ctl_answer(b, (a & 0x80) != 0 ? viom_in8() : (uint8_t)(a & 0x0F));
            break;
        case 8:
            if ((a & 7) == 0)
                viom_needs_reset();
            break;
        case 9:
            upper_misc(&bus, a, b);
            break;
        case 10:
            viom_advance((uint64_t)(a + 1) * 20000000u);
            pcam_bus_tick(&bus);
            break;
        default:
            break;
        }
        if (viom_irq() || (op & 0x10) != 0)
            pcam_bus_intr(&bus);
        upper_check(&bus);
    }
    pcam_bus_shutdown(&bus);
    upper_finish();
    pcam_virtio_stop(&sc);
    if (viom_mapped() != 0) {
        fprintf(stderr, "%u data buffers still mapped after stop\n", viom_mapped());
        abort();
    }
    viom_end();
    return 0;
}
