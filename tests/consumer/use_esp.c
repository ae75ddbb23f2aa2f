/* SPDX-License-Identifier: BSD-2-Clause */
/* Uses pcam::esp / pcam-esp from an install: pcam_esp_attach() must refuse
 * a missing platform with PCAM_ERR_NULL (pcam_esp.h) and a stride of 3
 * with PCAM_ERR_RANGE, before touching any register. */
#include <stdio.h>
#include <string.h>
#include "pcam/pcam_esp.h"

static uint64_t now(void *ctx) { (void)ctx; return 0; }
static uint8_t rd8(void *ctx, uintptr_t a) { (void)ctx; (void)a; return 0; }
static void wr8(void *ctx, uintptr_t a, uint8_t v) { (void)ctx; (void)a; (void)v; }

int main(void)
{
    static pcam_esp sc;
    pcam_esp_config cfg;
    pcam_platform plat;
    pcam_hal hal;
    memset(&cfg, 0, sizeof cfg);
    memset(&plat, 0, sizeof plat);
    plat.now_ns = now;
    plat.read8 = rd8;
    plat.write8 = wr8;
    cfg.chip = PCAM_ESP_NCR53C94;
    cfg.stride = 3;
    cfg.clock_khz = 40000;
    cfg.initiator_id = 7;
    pcam_err a = pcam_esp_attach(&sc, &cfg, NULL, &hal);
    pcam_err b = pcam_esp_attach(&sc, &cfg, &plat, &hal);
    if (a != PCAM_ERR_NULL || b != PCAM_ERR_RANGE) {
        fprintf(stderr, "consumer_esp: attach gave %d and %d\n", (int)a, (int)b);
        return 1;
    }
    puts("consumer_esp: pcam-esp works from the install");
    return 0;
}
