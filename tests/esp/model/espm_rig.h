/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * espm_rig.h - helpers for raw register tests of the ESP model: a narrow
 * simulated bus with disks, the model on it, and register accessors that go
 * through the platform table exactly as a back-end would.
 *
 * Include after <cmocka.h>.
 */
#ifndef ESPM_RIG_H
#define ESPM_RIG_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "espmodel.h"
#include "pcam_sim.h"
#include "simraw.h"

/* Register numbers (the datasheets' layout). */
enum {
    ER_TCLO = 0x0, ER_TCMID = 0x1, ER_FIFO = 0x2, ER_CMD = 0x3, ER_STAT = 0x4, ER_BUSID = 0x4,
    ER_INTR = 0x5, ER_TIMEO = 0x5, ER_SEQ = 0x6, ER_STP = 0x6, ER_FFLAGS = 0x7, ER_SOFF = 0x7,
    ER_CFG1 = 0x8, ER_CCF = 0x9, ER_TEST = 0xA, ER_CFG2 = 0xB, ER_CFG3 = 0xC, ER_CFG4 = 0xD,
    ER_TCHI = 0xE
};
/* AM53C974 DMA engine registers (byte offsets from the base). */
enum { ED_CMD = 0x40, ED_STC = 0x44, ED_SPA = 0x48, ED_WBC = 0x4C, ED_WAC = 0x50, ED_STAT = 0x54 };

typedef struct espm_rig {
    pcam_sim *sim;
    espm *m;
    pcam_platform p;
    uintptr_t base;
    unsigned stride;
    uint8_t *disk;      /* medium of the disk at ID 1, LUN 0 */
} espm_rig;

/* A narrow bus (initiator 7) with a disk of 64 blocks at ID 1 (no power-on
 * UNIT ATTENTION; disconnect policy from tc, or defaults), and the model. */
static inline void rig_open(espm_rig *r, espm_chip chip, uint32_t khz, const pcam_sim_target_config *tc)
{
    pcam_sim_config sc;
    espm_config ec;
    pcam_sim_target_config def;

    memset(r, 0, sizeof *r);
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    sc.initiator_id = 7;
    r->sim = pcam_sim_create(&sc);
    assert_non_null(r->sim);
    if (tc == NULL) {
        pcam_sim_target_config_defaults(&def);
        def.ua_power_on = false;
        tc = &def;
    }
    r->disk = simraw_add_disk(r->sim, 1, 0, tc, 64, 100000);
    assert_non_null(r->disk);
    memset(&ec, 0, sizeof ec);
    ec.chip = chip;
    ec.clock_khz = khz;
    ec.initiator_id = 7;
    r->m = espm_create(r->sim, &ec);
    assert_non_null(r->m);
    if (getenv("ESPM_VERBOSE") != NULL) {
        espm_set_verbose(r->m, true);
        pcam_sim_set_log(r->sim, stderr);
    }
    espm_get_platform(r->m, &r->p);
    r->base = espm_base(r->m);
    r->stride = espm_stride(r->m);
}

static inline void rig_close(espm_rig *r)
{
    espm_destroy(r->m);
    pcam_sim_destroy(r->sim);
    free(r->disk);
}

static inline uint8_t rd(espm_rig *r, unsigned reg)
{
    return r->p.read8(r->p.ctx, r->base + reg * r->stride);
}

static inline void wr(espm_rig *r, unsigned reg, uint8_t v)
{
    r->p.write8(r->p.ctx, r->base + reg * r->stride, v);
}

static inline uint32_t rd32(espm_rig *r, unsigned off)
{
    return r->p.read32(r->p.ctx, r->base + off);
}

static inline void wr32(espm_rig *r, unsigned off, uint32_t v)
{
    r->p.write32(r->p.ctx, r->base + off, v);
}

/* The reset a driver does at attach: RESET CHIP, DMA NOP, CFG1 = own ID 7
 * with parity, clock conversion for the clock, the 250 ms timeout value
 * (250 ms x f / (8192 x CCF), as Linux's esp_scsi computes it), async. */
static inline void rig_chip_init(espm_rig *r, uint32_t khz)
{
    unsigned ccf = (khz + 4999u) / 5000u;
    uint32_t to;

    if (ccf < 2)
        ccf = 2;
    to = (uint32_t)((250ull * khz) / (8192ull * ccf));
    wr(r, ER_CMD, 0x02);
    wr(r, ER_CMD, 0x80);
    wr(r, ER_CFG1, 0x17);
    wr(r, ER_CCF, (uint8_t)(ccf & 7u));
    wr(r, ER_TIMEO, (uint8_t)to);
    wr(r, ER_STP, 0);
    wr(r, ER_SOFF, 0);
}

/* Wait for the interrupt line, then read STATUS, INTR, SEQSTEP in the order
 * a driver does. Returns INTR. */
static inline uint8_t rig_intr(espm_rig *r, uint8_t *stat, uint8_t *seq)
{
    uint8_t s, i, q;

    assert_true(espm_run_until_irq(r->m, 2000000000ull));
    s = rd(r, ER_STAT);
    i = rd(r, ER_INTR);
    q = rd(r, ER_SEQ);
    if (stat != NULL)
        *stat = s;
    if (seq != NULL)
        *seq = q;
    return i;
}

static inline void rig_fifo_put(espm_rig *r, const uint8_t *b, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++)
        wr(r, ER_FIFO, b[i]);
}

static inline void rig_tc(espm_rig *r, uint32_t n)
{
    wr(r, ER_TCLO, (uint8_t)n);
    wr(r, ER_TCMID, (uint8_t)(n >> 8));
}

/* The data a sim disk answers to INQUIRY(36), fetched through hal/sim's own
 * function-level interface on a separate bus: the reference the model's
 * transfers are compared with. */
static inline void rig_ref_inquiry(uint8_t out[36])
{
    pcam_sim_config sc;
    pcam_sim *s;
    simraw raw;
    simraw_cmd c;
    uint8_t *d;
    static const uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};

    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    s = pcam_sim_create(&sc);
    assert_non_null(s);
    d = simraw_add_disk(s, 1, 0, NULL, 64, 100000);
    assert_non_null(d);
    simraw_init(&raw, s);
    memset(out, 0xEE, 36);
    assert_int_equal(simraw_simple(&raw, 1, inq, 6, out, 36, &c), 0);
    assert_int_equal(c.status, 0);
    pcam_sim_destroy(s);
    free(d);
}

#endif /* ESPM_RIG_H */
