/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Robustness of the ESP model against a driver gone mad: seeded random
 * register reads and writes (commands included, DMA engine too), with
 * simulated time moving in between. The model must never crash, hang or
 * touch memory outside live mappings (run under ASan and Valgrind), its FIFO
 * count must stay within 16, and it must have counted protocol errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "espm_rig.h"

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Commands a confused driver would write, mostly valid ones. */
static const uint8_t cmds[] = {0x00, 0x01, 0x10, 0x10, 0x10, 0x11, 0x12, 0x18, 0x1A, 0x1B, 0x41, 0x42,
                               0x43, 0x44, 0x45, 0x46, 0x90, 0x91, 0x98, 0xC2, 0xC6, 0x80, 0x20,
                               0x7E};

static void chaos(espm_chip chip, uint64_t seed, unsigned steps)
{
    espm_rig r;
    pcam_sim_target_config tc;
    uint8_t *buf = calloc(1, 4096);
    uint64_t b = 0, s = seed;
    bool mapped = false;
    unsigned i;

    assert_non_null(buf);
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS;
    rig_open(&r, chip, 40000, &tc);
    rig_chip_init(&r, 40000);
    for (i = 0; i < steps; i++) {
        uint64_t x = rng_next(&s);
        unsigned what = (unsigned)(x % 16u);

        switch (what) {
        case 0:
        case 1:
        case 2:
            wr(&r, ER_CMD, cmds[(x >> 8) % sizeof cmds]);
            break;
        case 3:
        case 4:
            wr(&r, ER_FIFO, (uint8_t)(x >> 16));
            break;
        case 5:
            (void)rd(&r, (unsigned)((x >> 8) % 16u));
            break;
        case 6:
            wr(&r, (unsigned)((x >> 8) % 16u) == ER_CMD ? ER_FIFO : (unsigned)((x >> 8) % 16u),
               (uint8_t)(x >> 24));
            break;
        case 7:
            wr(&r, ER_BUSID, (uint8_t)((x >> 8) % 3u)); /* IDs 0..2: 1 is the disk */
            break;
        case 8:
            rig_tc(&r, (uint32_t)((x >> 8) % 5000u));
            break;
        case 9:
            if (chip == ESPM_AM53C974) {
                if (!mapped && r.p.dma_map(r.p.ctx, buf, 4096,
                                           (x >> 9) & 1u ? PCAM_DMA_FROM_DEVICE : PCAM_DMA_TO_DEVICE,
                                           &b) == 0)
                    mapped = true;
                wr32(&r, ED_STC, (uint32_t)((x >> 12) % 5000u));
                wr32(&r, ED_SPA, (uint32_t)(b + ((x >> 24) % 64u)));
                wr32(&r, ED_CMD, (uint32_t)((x >> 32) & 0x83u));
            }
            break;
        case 10:
            if (mapped && ((x >> 8) & 7u) == 0) {
                r.p.dma_unmap(r.p.ctx, buf, 4096, PCAM_DMA_FROM_DEVICE, b);
                r.p.dma_unmap(r.p.ctx, buf, 4096, PCAM_DMA_TO_DEVICE, b);
                mapped = false;
            }
            break;
        case 11:
            if (((x >> 8) & 63u) == 0)
                pcam_sim_bus_reset(r.sim);
            else if (((x >> 8) & 63u) == 1)
                wr(&r, ER_CMD, 0x03);
            break;
        case 12: {
            /* A plausible command now and then, so data phases and
             * reselections happen too. */
            static const uint8_t c6[3][6] = {{0x08, 0, 0, 2, 1, 0}, {0x12, 0, 0, 0, 36, 0}, {0x0A, 0, 0, 4, 1, 0}};

            wr(&r, ER_CMD, 0x01);
            wr(&r, ER_BUSID, 1);
            wr(&r, ER_FIFO, (x >> 8) & 1u ? 0xC0 : 0x80);
            rig_fifo_put(&r, c6[(x >> 9) % 3u], 6);
            wr(&r, ER_CMD, 0x42);
            break;
        }
        case 13:
            wr(&r, ER_CMD, (x >> 8) & 1u ? 0x12 : 0x44);
            break;
        default:
            espm_advance(r.m, pcam_sim_now(r.sim) + (x >> 8) % 300000u);
            break;
        }
        assert_true((rd(&r, ER_FFLAGS) & 0x1Fu) <= 16u);
    }
    espm_advance(r.m, pcam_sim_now(r.sim) + 1000000000ull);
    assert_true(espm_errors(r.m) > 0);
    if (getenv("ESPM_CHAOS_STATS") != NULL) {
        espm_stats st;
        pcam_sim_bus_stats bs;

        espm_stats_get(r.m, &st);
        pcam_sim_bus_stats_get(r.sim, &bs);
        fprintf(stderr, "chaos: %llu commands, %llu DMA bytes, %llu errors; bus: %u selections, %u reselections, %llu data bytes\n",
                (unsigned long long)st.commands, (unsigned long long)st.dma_bytes,
                (unsigned long long)espm_errors(r.m), bs.selections, bs.reselections,
                (unsigned long long)bs.data_bytes);
    }
    if (mapped) {
        r.p.dma_unmap(r.p.ctx, buf, 4096, PCAM_DMA_FROM_DEVICE, b);
        r.p.dma_unmap(r.p.ctx, buf, 4096, PCAM_DMA_TO_DEVICE, b);
    }
    assert_int_equal(espm_dma_live_maps(r.m), 0);
    rig_close(&r);
    free(buf);
}

static unsigned steps(void)
{
    return getenv("PCAM_UNDER_MEMCHECK") != NULL ? 3000u : 30000u;
}

static void test_chaos_am53c974(void **state)
{
    uint64_t seed;

    (void)state;
    for (seed = 1; seed <= 4; seed++)
        chaos(ESPM_AM53C974, seed * 0x9E3779B97F4A7C15ull, steps());
}

static void test_chaos_ncr53c90(void **state)
{
    (void)state;
    chaos(ESPM_NCR53C90, 0x1234567ull, steps());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chaos_am53c974),
        cmocka_unit_test(test_chaos_ncr53c90),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
