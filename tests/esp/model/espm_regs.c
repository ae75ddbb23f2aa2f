/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ESP model's life cycle, register decode, interrupt latch and time.
 *
 * Which registers a variant has (datasheet facts, as Linux's esp_get_revision
 * and FreeBSD's ncr53c9x probe tell them apart):
 *   53C90:    CFG2 and CFG3 absent (a value written does not read back);
 *   53C90A:   CFG2 present, CFG3 absent;
 *   53C94/96: CFG2 and CFG3 present; no TCHI, no part-unique ID;
 *   FAS216/236: + TCHI (24-bit counter with CFG2 features enable) and the
 *             part-unique ID in TCHI after a chip reset (family code 0x02:
 *             version 2 = FAS216, others FAS236);
 *   AM53C974: the FAS216 core (ID 0x12, as QEMU reports it), + CFG4 whose
 *             glitch-eater bit reads back, + the DMA engine at +0x40.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espm_internal.h"

#define ID_FAS216 0x12u
#define ID_FAS236 0x13u   /* family 0x02 with a version other than 2 (the model's choice) */
#define ID_AM53C974 0x12u

/* ---- errors and log ---- */

static void log_line(espm *m, pcam_log_level lv, const char *line)
{
    if (m->simplat.log != NULL)
        m->simplat.log(m->simplat.ctx, lv, line);
    if (m->verbose)
        fprintf(stderr, "%10llu ns espm: %s\n", (unsigned long long)pcam_sim_now(m->sim), line);
}

void espm_error(espm *m, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(m->last_err, sizeof m->last_err, fmt, ap);
    va_end(ap);
    m->errors++;
    {
        char line[240];

        snprintf(line, sizeof line, "PROTOCOL ERROR: %s", m->last_err);
        log_line(m, PCAM_LOG_ERROR, line);
    }
}

void espm_log(espm *m, const char *fmt, ...)
{
    char line[240];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log_line(m, PCAM_LOG_DEBUG, line);
}

/* ---- variant facts ---- */

static bool has_cfg2(const espm *m)
{
    return m->cfg.chip != ESPM_NCR53C90;
}

static bool has_cfg3(const espm *m)
{
    return m->cfg.chip != ESPM_NCR53C90 && m->cfg.chip != ESPM_NCR53C90A;
}

bool espm_is_fas(const espm *m)
{
    return m->cfg.chip == ESPM_FAS216 || m->cfg.chip == ESPM_FAS236 || m->cfg.chip == ESPM_AM53C974;
}

bool espm_has_tchi(const espm *m)
{
    return espm_is_fas(m);
}

/* The counter is 24 bits only with the FAS features enabled; else 16. */
uint32_t espm_tc_max(const espm *m)
{
    return espm_has_tchi(m) && (m->cfg2 & CFG2_FEN) ? 0x1000000u : 0x10000u;
}

static uint8_t chip_id(const espm *m)
{
    switch (m->cfg.chip) {
    case ESPM_FAS236:
        return ID_FAS236;
    case ESPM_AM53C974:
        return ID_AM53C974;
    default:
        return ID_FAS216;
    }
}

/* ---- FIFO ---- */

void espm_fifo_push(espm *m, uint8_t b)
{
    if (m->fifo_n >= ESPM_FIFO) {
        espm_error(m, "FIFO overflow receiving 0x%02x (16 bytes not read)", b);
        m->stat_err |= ST_GE;
        return;
    }
    m->fifo[m->fifo_n++] = b;
}

static uint8_t fifo_pop(espm *m)
{
    uint8_t b;

    if (m->fifo_n == 0) {
        espm_error(m, "FIFO read while empty");
        return 0;
    }
    b = m->fifo[0];
    memmove(m->fifo, m->fifo + 1, --m->fifo_n);
    return b;
}

/* ---- interrupt latch ---- */

static void latch(espm *m, const espm_irq_ent *e)
{
    m->intr = e->intr;
    if (e->set_seq)
        m->seq = e->seq;
    m->stat_err |= e->stat;
    m->irq = true;
}

/* seq < 0 leaves the sequence step alone. */
void espm_raise(espm *m, uint8_t intr, int seq, uint8_t stat)
{
    espm_irq_ent e;

    if ((intr & IN_SR) && (m->cfg1 & CFG1_SRRDIS)) {
        intr = (uint8_t)(intr & ~IN_SR);
        if (intr == 0)
            return;
    }
    e.intr = intr;
    e.seq = (uint8_t)(seq < 0 ? 0 : seq);
    e.set_seq = seq >= 0;
    e.stat = stat;
    m->fresh_reset = false;
    if (!m->irq) {
        latch(m, &e);
        return;
    }
    if (m->irqq_n >= ESPM_IRQQ) {
        espm_error(m, "interrupts not serviced: %u stacked, INTR 0x%02x lost", m->irqq_n, intr);
        return;
    }
    m->irqq[m->irqq_n++] = e;
}

static uint8_t read_intr(espm *m)
{
    uint8_t v = m->intr;

    if (!m->irq) {
        /* Drivers read INTR once after a reset to clear leftovers; any
         * other read with nothing pending means an interrupt was lost. */
        if (!m->fresh_reset)
            espm_error(m, "INTR read with no interrupt pending");
        m->fresh_reset = false;
        return 0;
    }
    m->intr = 0;
    m->irq = false;
    m->stat_err = 0;
    if (m->irqq_n != 0) {
        espm_irq_ent e = m->irqq[0];

        memmove(m->irqq, m->irqq + 1, (m->irqq_n - 1) * sizeof m->irqq[0]);
        m->irqq_n--;
        latch(m, &e);
    }
    return v;
}

/* ---- reset ---- */

void espm_chip_reset(espm *m)
{
    m->w_tc[0] = m->w_tc[1] = m->w_tc[2] = 0;
    m->busid = m->timeout = m->stp = m->soff = 0;
    m->cfg1 = m->ccf = m->test = m->cfg2 = m->cfg3 = m->cfg4 = 0;
    m->id_readable = true;
    m->tc = 0;
    m->tc_zero = false;
    m->fifo_n = 0;
    m->seq = 0;
    m->stat_err = 0;
    m->intr = 0;
    m->irq = false;
    m->irqq_n = 0;
    m->fresh_reset = true;
    m->connected = false;
    m->phase = PCAM_PHASE_BUS_FREE;
    m->ack_held = false;
    m->resel_enabled = false;
    m->held_resel = false;
    m->op = OP_NONE;
    m->op_waiting_dma = false;
    m->have_stacked = false;
    espm_dma_reset(m);
}

/* ---- register decode ---- */

static unsigned reg_index(const espm *m, uintptr_t addr, bool *is_dma, bool *ok)
{
    uintptr_t off;
    unsigned stride = espm_stride(m);

    *ok = false;
    *is_dma = false;
    if (addr < ESPM_BASE)
        return 0;
    off = addr - ESPM_BASE;
    if (m->cfg.chip == ESPM_AM53C974 && off >= 0x40 && off < 0x60) {
        if (off & 3u)
            return 0;
        *is_dma = true;
        *ok = true;
        return (unsigned)((off - 0x40) / 4u);
    }
    if (m->cfg.chip == ESPM_AM53C974 && off == 0x70) {
        *is_dma = true;
        *ok = true;
        return 0x70;
    }
    if (off % stride != 0 || off / stride > 0x0F)
        return 0;
    *ok = true;
    return (unsigned)(off / stride);
}

static uint8_t esp_read(espm *m, unsigned r)
{
    switch (r) {
    case R_TCLO:
        return (uint8_t)m->tc;
    case R_TCMID:
        return (uint8_t)(m->tc >> 8);
    case R_FIFO:
        m->stats.pio_bytes++;
        return fifo_pop(m);
    case R_CMD:
        return m->last_cmd;
    case R_STAT: {
        uint8_t v = m->stat_err;

        if (m->connected)
            v |= (uint8_t)(m->phase & ST_PHASE);
        if (m->tc_zero)
            v |= ST_TC;
        if (m->irq)
            v |= ST_INT;
        return v;
    }
    case R_INTR:
        return read_intr(m);
    case R_SEQ:
        return m->seq;
    case R_FFLAGS:
        return (uint8_t)((m->fifo_n & 0x1Fu) | (uint8_t)(m->seq << 5));
    case R_CFG1:
        return m->cfg1;
    case R_CFG2:
        return has_cfg2(m) ? m->cfg2 : 0;
    case R_CFG3:
        return has_cfg3(m) ? m->cfg3 : 0;
    case R_CFG4:
        return m->cfg.chip == ESPM_AM53C974 ? m->cfg4 : 0;
    case R_TCHI:
        if (!espm_has_tchi(m))
            return 0;
        return m->id_readable ? chip_id(m) : (uint8_t)(m->tc >> 16);
    default:
        /* Write-only registers (CCF, TEST) and FIFO bottom read as 0 here. */
        return 0;
    }
}

static void esp_write(espm *m, unsigned r, uint8_t v)
{
    switch (r) {
    case R_TCLO:
    case R_TCMID:
        m->w_tc[r] = v;
        m->tc_zero = false;
        break;
    case R_TCHI:
        if (espm_has_tchi(m)) {
            m->w_tc[2] = v;
            m->id_readable = false;
            m->tc_zero = false;
            if (v != 0 && !(m->cfg2 & CFG2_FEN))
                espm_error(m, "TCHI written 0x%02x with CFG2 features enable clear: the counter is 16 bits", v);
        }
        break;
    case R_FIFO:
        m->stats.pio_bytes++;
        if (m->fifo_n >= ESPM_FIFO) {
            espm_error(m, "FIFO overflow: byte 0x%02x written to a full FIFO", v);
            m->stat_err |= ST_GE;
        } else {
            m->fifo[m->fifo_n++] = v;
        }
        break;
    case R_CMD:
        m->last_cmd = v;
        m->stats.commands++;
        espm_command(m, v);
        break;
    case R_STAT:
        m->busid = v;
        break;
    case R_INTR:
        m->timeout = v;
        break;
    case R_SEQ:
        m->stp = v;
        break;
    case R_FFLAGS:
        m->soff = v;
        break;
    case R_CFG1:
        m->cfg1 = v;
        break;
    case R_CCF:
        m->ccf = v;
        if ((v & 7u) == 1u)
            espm_error(m, "clock conversion factor 1 is reserved");
        break;
    case R_TEST:
        m->test = v;
        if (v != 0)
            espm_error(m, "TEST register written 0x%02x: test modes are not for drivers", v);
        break;
    case R_CFG2:
        if (has_cfg2(m))
            m->cfg2 = v;
        break;
    case R_CFG3:
        if (has_cfg3(m))
            m->cfg3 = v;
        break;
    case R_CFG4:
        if (m->cfg.chip == ESPM_AM53C974)
            m->cfg4 = v;
        break;
    default:
        break;
    }
}

/* ---- platform ---- */

static uint64_t p_now(void *ctx)
{
    return pcam_sim_now(((espm *)ctx)->sim);
}

static void p_log(void *ctx, pcam_log_level lv, const char *line)
{
    espm *m = ctx;

    if (m->simplat.log != NULL)
        m->simplat.log(m->simplat.ctx, lv, line);
}

static uint8_t p_read8(void *ctx, uintptr_t addr)
{
    espm *m = ctx;
    bool dma, ok;
    unsigned r = reg_index(m, addr, &dma, &ok);

    m->stats.reg_reads++;
    if (!ok || dma) {
        espm_error(m, "read8 at 0x%lx: no 8-bit register there", (unsigned long)addr);
        return 0xFF;
    }
    return esp_read(m, r);
}

static void p_write8(void *ctx, uintptr_t addr, uint8_t v)
{
    espm *m = ctx;
    bool dma, ok;
    unsigned r = reg_index(m, addr, &dma, &ok);

    m->stats.reg_writes++;
    if (!ok || dma) {
        espm_error(m, "write8 0x%02x at 0x%lx: no 8-bit register there", v, (unsigned long)addr);
        return;
    }
    esp_write(m, r, v);
}

static uint16_t p_read16(void *ctx, uintptr_t addr)
{
    espm *m = ctx;

    m->stats.reg_reads++;
    espm_error(m, "read16 at 0x%lx: the chip has no 16-bit registers", (unsigned long)addr);
    return 0xFFFF;
}

static void p_write16(void *ctx, uintptr_t addr, uint16_t v)
{
    espm *m = ctx;

    m->stats.reg_writes++;
    espm_error(m, "write16 0x%04x at 0x%lx: the chip has no 16-bit registers", v, (unsigned long)addr);
}

static uint32_t p_read32(void *ctx, uintptr_t addr)
{
    espm *m = ctx;
    bool dma, ok;
    unsigned k = reg_index(m, addr, &dma, &ok);

    m->stats.reg_reads++;
    if (!ok || !dma) {
        espm_error(m, "read32 at 0x%lx: no DMA engine register there", (unsigned long)addr);
        return 0xFFFFFFFFu;
    }
    if (k == 0x70)
        return m->sbac;
    return espm_dma_read32(m, k);
}

static void p_write32(void *ctx, uintptr_t addr, uint32_t v)
{
    espm *m = ctx;
    bool dma, ok;
    unsigned k = reg_index(m, addr, &dma, &ok);

    m->stats.reg_writes++;
    if (!ok || !dma) {
        espm_error(m, "write32 0x%08lx at 0x%lx: no DMA engine register there", (unsigned long)v,
                   (unsigned long)addr);
        return;
    }
    if (k == 0x70) {
        m->sbac = v;
        return;
    }
    espm_dma_write32(m, k, v);
}

static void p_delay(void *ctx, uint32_t us)
{
    espm *m = ctx;

    espm_advance(m, pcam_sim_now(m->sim) + (uint64_t)us * 1000u);
}

/* ---- public API ---- */

espm *espm_create(pcam_sim *sim, const espm_config *cfg)
{
    pcam_hal_caps caps;
    espm *m;

    if (sim == NULL || cfg == NULL || (unsigned)cfg->chip > (unsigned)ESPM_AM53C974)
        return NULL;
    if (cfg->clock_khz < 10000u || cfg->clock_khz > 40000u || cfg->initiator_id > 7)
        return NULL;
    pcam_sim_i_caps(sim, &caps);
    if (caps.max_targets != 8 || caps.initiator_id != cfg->initiator_id)
        return NULL;
    m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->sim = sim;
    m->cfg = *cfg;
    pcam_sim_get_platform(sim, &m->simplat);
    espm_chip_reset(m);
    return m;
}

void espm_destroy(espm *m)
{
    if (m == NULL)
        return;
    free(m->padbuf);
    free(m);
}

void espm_get_platform(espm *m, pcam_platform *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    out->ctx = m;
    out->now_ns = p_now;
    out->log = p_log;
    out->read8 = p_read8;
    out->read16 = p_read16;
    out->read32 = p_read32;
    out->write8 = p_write8;
    out->write16 = p_write16;
    out->write32 = p_write32;
    out->dma_map = espm_dma_map;
    out->dma_unmap = espm_dma_unmap;
    out->delay_us = p_delay;
}

uintptr_t espm_base(const espm *m)
{
    (void)m;
    return ESPM_BASE;
}

unsigned espm_stride(const espm *m)
{
    return m != NULL && m->cfg.chip == ESPM_AM53C974 ? 4u : 1u;
}

bool espm_irq(const espm *m)
{
    if (m == NULL)
        return false;
    if (m->irq)
        return true;
    return m->cfg.chip == ESPM_AM53C974 && (m->dreg[D_CMD] & DC_INTE_D) && (m->dreg[D_STAT] & DS_DONE);
}

uint64_t espm_next_time(const espm *m)
{
    return pcam_sim_next_time(m->sim);
}

void espm_advance(espm *m, uint64_t t)
{
    espm_poll_bus(m);
    for (;;) {
        uint64_t nt = pcam_sim_next_time(m->sim);

        if (nt == UINT64_MAX || nt > t)
            break;
        pcam_sim_advance(m->sim, nt);
        espm_poll_bus(m);
    }
    pcam_sim_advance(m->sim, t);
    espm_poll_bus(m);
}

bool espm_run_until_irq(espm *m, uint64_t limit_ns)
{
    uint64_t end = pcam_sim_now(m->sim) + limit_ns;

    espm_poll_bus(m);
    while (!espm_irq(m)) {
        uint64_t nt = pcam_sim_next_time(m->sim);

        if (nt == UINT64_MAX || nt > end) {
            espm_advance(m, end);
            break;
        }
        espm_advance(m, nt);
    }
    return espm_irq(m);
}

void espm_stats_get(const espm *m, espm_stats *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (m != NULL)
        *out = m->stats;
}

uint64_t espm_errors(const espm *m)
{
    return m != NULL ? m->errors : 0;
}

const char *espm_last_error(const espm *m)
{
    return m != NULL ? m->last_err : "";
}

void espm_set_verbose(espm *m, bool on)
{
    if (m != NULL)
        m->verbose = on;
}
