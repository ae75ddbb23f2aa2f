/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SCRIPTS-level 53C8xx model (symm.h): the bus-addressed memory arena,
 * the registers as host and script see them, the platform services and the
 * API. Register semantics follow the 53C8xx data manuals as far as hal/sym
 * uses them; where a detail is the model's choice it says so.
 */
#include "symm_internal.h"

void symm_err(symm *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->last, sizeof m->last, fmt, ap);
    va_end(ap);
    m->errors++;
    if (m->verbose)
        fprintf(stderr, "symm: %s\n", m->last);
}

uint32_t symm_r32(const symm *m, unsigned r)
{
    return (uint32_t)m->reg[r] | ((uint32_t)m->reg[r + 1] << 8) | ((uint32_t)m->reg[r + 2] << 16) |
           ((uint32_t)m->reg[r + 3] << 24);
}

void symm_w32(symm *m, unsigned r, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        m->reg[r + i] = (uint8_t)(v >> (8 * i));
}

int32_t symm_sext24(uint32_t v)
{
    return (int32_t)((v & 0xFFFFFFu) ^ 0x800000u) - 0x800000;
}

/* ---- memory ---- */

uint8_t *symm_mem(symm *m, uint32_t bus, uint32_t len)
{
    if (bus < ARENA_BUS || len > ARENA_SIZE || bus - ARENA_BUS > ARENA_SIZE - len)
        return NULL;
    return m->arena + (bus - ARENA_BUS);
}

static int arena_get(symm *m, uint32_t len, uint32_t *off)
{
    uint32_t at = 0;
    len = (len + 63u) & ~63u;
    for (;;) {
        bool clash = false;
        for (int i = 0; i < MAX_MAPS; i++) {
            const map *p = &m->maps[i];
            if (p->used && at < p->off + p->len && p->off < at + len) {
                at = (p->off + p->len + 63u) & ~63u;
                clash = true;
            }
        }
        if (!clash)
            break;
    }
    if (at + len > ARENA_SIZE)
        return -1;
    for (int i = 0; i < MAX_MAPS; i++) {
        if (!m->maps[i].used) {
            m->maps[i].used = true;
            m->maps[i].off = at;
            m->maps[i].len = len;
            *off = at;
            return i;
        }
    }
    return -1;
}

void *symm_alloc(symm *m, size_t len, uint64_t *bus)
{
    uint32_t off;
    int i = arena_get(m, (uint32_t)len, &off);
    if (i < 0)
        return NULL;
    m->maps[i].va = NULL; /* permanent */
    *bus = ARENA_BUS + off;
    return m->arena + off;
}

/* ---- registers as the host sees them ---- */

static bool irq_level(const symm *m)
{
    return (m->reg[0x0C] & m->reg[0x39]) != 0 || (m->reg[0x42] & m->reg[0x40]) != 0 ||
           (m->reg[0x43] & m->reg[0x41]) != 0 || m->intf;
}

static void stop(symm *m)
{
    m->run = R_STOP;
}

void symm_scsi_int(symm *m, uint8_t s0, uint8_t s1)
{
    m->reg[0x42] |= s0;
    m->reg[0x43] |= s1;
    stop(m);
}

void symm_dma_int(symm *m, uint8_t d)
{
    m->reg[0x0C] |= d;
    stop(m);
}

void symm_apply_xfer(symm *m, uint8_t target)
{
    static const uint8_t scf_half[8] = {2, 2, 3, 4, 6, 8, 8, 8};
    uint8_t sc3 = m->reg[0x03], sx = m->reg[0x05];
    pcam_hal_xfer_params p;
    memset(&p, 0, sizeof p);
    p.width = (sc3 & 0x08) != 0 ? 1 : 0;
    p.offset = sx & 0x1F;
    if (p.offset != 0) {
        uint64_t x = (uint64_t)((sx >> 5) + 4u);
        uint64_t num = x * scf_half[(sc3 >> 4) & 7u] * 10000000u;
        uint64_t den = (uint64_t)2u * m->sclk_khz * ((sc3 & 0x80) != 0 ? 2u : 1u);
        uint32_t t = (uint32_t)(num / den); /* tenths of ns */
        p.period = t <= 125 ? 0x09 : t <= 250 ? 0x0A : t <= 303 ? 0x0B : t <= 500 ? 0x0C
                                                                      : (uint8_t)((t + 39u) / 40u);
    }
    (void)pcam_sim_i_set_xfer(m->sim, target, &p);
}


static void chip_reset(symm *m)
{
    memset(m->reg, 0, sizeof m->reg);
    m->reg[0x04] = 7;
    m->run = R_STOP;
    m->pend = P_NONE;
    m->sigp = m->intf = m->carry = false;
    m->sel_lazy = false;
    /* The bus is not touched: a connection the chip forgot stays with the target. */
    if (m->connected)
        symm_err(m, "chip reset while connected to target %u", m->target);
}

uint8_t symm_reg_read(symm *m, unsigned r, bool host)
{
    uint8_t v;
    switch (r) {
    case 0x0A:
        return m->connected ? (uint8_t)(0x80u | m->target) : 0;
    case 0x0C:
        v = m->reg[0x0C] | 0x80; /* DFE */
        if (host)
            m->reg[0x0C] = 0;
        else
            symm_err(m, "script read DSTAT");
        return v;
    case 0x0D:
    case 0x20:
    case 0x22:
        return 0; /* FIFOs empty: every byte counted moved */
    case 0x0E:
        return (uint8_t)(m->connected ? (m->phase & 7) : 0);
    case 0x14:
        return (uint8_t)((m->reg[0x0C] != 0 ? 0x01 : 0) | ((m->reg[0x42] | m->reg[0x43]) != 0 ? 0x02 : 0) |
                         (m->intf ? 0x04 : 0) | (m->connected ? 0x08 : 0) | (m->sigp ? 0x20 : 0));
    case 0x1A:
        v = (uint8_t)(m->reg[0x1A] | (m->sigp ? 0x40 : 0));
        m->sigp = false;
        return v;
    case 0x42:
    case 0x43:
        v = m->reg[r];
        if (host)
            m->reg[r] = 0;
        else
            symm_err(m, "script read SIST");
        return v;
    default:
        return m->reg[r & 0xFF];
    }
}

void symm_reg_write(symm *m, unsigned r, uint8_t v, bool host)
{
    switch (r) {
    case 0x01:
        if ((v & 0x08) != 0 && (m->reg[0x01] & 0x08) == 0) {
            (void)pcam_sim_i_reset_bus(m->sim); /* BUS_RESET comes as an event */
            m->connected = m->held = m->resel_byte_pending = m->atn = false;
            m->sel_lazy = false;
            m->phase = PCAM_PHASE_BUS_FREE;
            if (m->run == R_WAIT || m->run == R_RESEL)
                m->run = R_STOP;
            m->pend = P_NONE;
        }
        m->reg[0x01] = v;
        return;
    case 0x03:
    case 0x05:
        m->reg[r] = v;
        if (m->connected)
            symm_apply_xfer(m, m->target);
        return;
    case 0x08:
        if (host)
            symm_err(m, "host wrote SFBR");
        m->reg[0x08] = v;
        return;
    case 0x0C:
    case 0x0D:
    case 0x0E:
    case 0x0F:
    case 0x42:
    case 0x43:
        symm_err(m, "write to read-only register 0x%02x", r);
        return;
    case 0x14:
        if (!host) {
            symm_err(m, "script wrote ISTAT");
            return;
        }
        if ((v & 0x40) != 0) {
            chip_reset(m);
            return;
        }
        if ((v & 0x04) != 0)
            m->intf = false;
        if ((v & 0x80) != 0)
            symm_dma_int(m, 0x10);
        if ((v & 0x20) != 0) {
            m->sigp = true;
            if (m->run == R_RESEL) {
                symm_w32(m, 0x2C, symm_r32(m, 0x28)); /* WAIT RESELECT kept its alternate address in DNAD */
                m->run = R_RUN;
                symm_run_script(m);
            }
        }
        return;
    case 0x2F:
        m->reg[0x2F] = v;
        if (!host)
            return;
        if (m->run != R_STOP) {
            symm_err(m, "DSP written while the script runs (state %d)", m->run);
            return;
        }
        m->run = R_RUN;
        symm_run_script(m);
        return;
    default:
        m->reg[r & 0xFF] = v;
        return;
    }
}

/* ---- platform ---- */

static uint64_t p_now(void *ctx)
{
    return pcam_sim_now(((symm *)ctx)->sim);
}

static void p_log(void *ctx, pcam_log_level l, const char *line)
{
    symm *m = ctx;
    if (m->simplat.log != NULL)
        m->simplat.log(m->simplat.ctx, l, line);
}

static uint8_t p_rd8(void *ctx, uintptr_t a)
{
    symm *m = ctx;
    m->st.reg_reads++;
    if (a < BASE || a >= BASE + 256) {
        symm_err(m, "read8 outside the chip at %lx", (unsigned long)a);
        return 0xFF;
    }
    return symm_reg_read(m, (unsigned)(a - BASE), true);
}

static void p_wr8(void *ctx, uintptr_t a, uint8_t v)
{
    symm *m = ctx;
    m->st.reg_writes++;
    if (a < BASE || a >= BASE + 256) {
        symm_err(m, "write8 outside the chip at %lx", (unsigned long)a);
        return;
    }
    symm_reg_write(m, (unsigned)(a - BASE), v, true);
}

static uint32_t p_rd32(void *ctx, uintptr_t a)
{
    symm *m = ctx;
    uint32_t v = 0;
    m->st.reg_reads++;
    if (a < BASE || a + 4 > BASE + 256 || (a & 3) != 0) {
        symm_err(m, "read32 at %lx", (unsigned long)a);
        return 0xFFFFFFFFu;
    }
    for (unsigned i = 0; i < 4; i++)
        v |= (uint32_t)symm_reg_read(m, (unsigned)(a - BASE) + i, true) << (8 * i);
    return v;
}

static void p_wr32(void *ctx, uintptr_t a, uint32_t v)
{
    symm *m = ctx;
    m->st.reg_writes++;
    if (a < BASE || a + 4 > BASE + 256 || (a & 3) != 0) {
        symm_err(m, "write32 at %lx", (unsigned long)a);
        return;
    }
    for (unsigned i = 0; i < 4; i++)
        symm_reg_write(m, (unsigned)(a - BASE) + i, (uint8_t)(v >> (8 * i)), true);
}

static int p_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
    symm *m = ctx;
    uint8_t *p = va;
    if (p >= m->arena && p + len <= m->arena + ARENA_SIZE) {
        *bus = ARENA_BUS + (uint64_t)(p - m->arena);
        return 0;
    }
    uint32_t off;
    int i = arena_get(m, (uint32_t)len, &off);
    if (i < 0)
        return -1;
    m->maps[i].va = va;
    m->maps[i].dir = (int)dir;
    m->maps[i].bounce = true;
    if (dir == PCAM_DMA_TO_DEVICE)
        memcpy(m->arena + off, va, len);
    else
        memset(m->arena + off, 0xA5, len);
    *bus = ARENA_BUS + off;
    return 0;
}

static void p_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
    symm *m = ctx;
    uint8_t *p = va;
    if (p >= m->arena && p + len <= m->arena + ARENA_SIZE)
        return;
    for (int i = 0; i < MAX_MAPS; i++) {
        map *mp = &m->maps[i];
        if (mp->used && mp->bounce && mp->va == va && ARENA_BUS + mp->off == bus) {
            if (dir == PCAM_DMA_FROM_DEVICE)
                memcpy(va, m->arena + mp->off, len);
            memset(mp, 0, sizeof *mp);
            return;
        }
    }
    symm_err(m, "dma_unmap of a buffer that is not mapped");
}

static void p_delay(void *ctx, uint32_t us)
{
    symm *m = ctx;
    symm_advance(m, pcam_sim_now(m->sim) + (uint64_t)us * 1000u);
}

void symm_get_platform(symm *m, pcam_platform *out)
{
    memset(out, 0, sizeof *out);
    out->ctx = m;
    out->now_ns = p_now;
    out->log = p_log;
    out->read8 = p_rd8;
    out->write8 = p_wr8;
    out->read32 = p_rd32;
    out->write32 = p_wr32;
    out->dma_map = p_map;
    out->dma_unmap = p_unmap;
    out->delay_us = p_delay;
}

/* ---- public ---- */

symm *symm_create(pcam_sim *sim, uint32_t sclk_khz)
{
    pcam_hal_caps caps;
    if (sim == NULL || sclk_khz < 20000u)
        return NULL;
    pcam_sim_i_caps(sim, &caps);
    if (caps.max_targets != 16 || caps.initiator_id != 7)
        return NULL;
    symm *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->arena = calloc(1, ARENA_SIZE);
    if (m->arena == NULL) {
        free(m);
        return NULL;
    }
    m->sim = sim;
    m->sclk_khz = sclk_khz;
    m->phase = PCAM_PHASE_BUS_FREE;
    pcam_sim_get_platform(sim, &m->simplat);
    chip_reset(m);
    return m;
}

void symm_destroy(symm *m)
{
    if (m == NULL)
        return;
    free(m->arena);
    free(m);
}

uintptr_t symm_base(const symm *m)
{
    (void)m;
    return BASE;
}

bool symm_irq(const symm *m)
{
    return irq_level(m);
}

uint64_t symm_next_time(const symm *m)
{
    return pcam_sim_next_time(m->sim);
}

void symm_advance(symm *m, uint64_t t)
{
    symm_poll_bus(m);
    for (;;) {
        uint64_t nt = pcam_sim_next_time(m->sim);
        if (nt == UINT64_MAX || nt > t)
            break;
        pcam_sim_advance(m->sim, nt);
        symm_poll_bus(m);
    }
    pcam_sim_advance(m->sim, t);
    symm_poll_bus(m);
}

void symm_stats_get(const symm *m, symm_stats *out)
{
    *out = m->st;
}

uint64_t symm_errors(const symm *m)
{
    return m->errors;
}

const char *symm_last_error(const symm *m)
{
    return m->last;
}

unsigned symm_live_maps(const symm *m)
{
    unsigned n = 0;
    for (int i = 0; i < MAX_MAPS; i++)
        if (m->maps[i].used && m->maps[i].bounce)
            n++;
    return n;
}

void symm_set_verbose(symm *m, bool on)
{
    m->verbose = on;
}
