/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ESP back-end: attach and chip identification, chip reset, clock-derived
 * settings, per-target synchronous registers, and the synchronous ops.
 */
#include "esp_internal.h"

/* The softc must fit the storage the public header reserves. */
typedef char esp_sc_fits[(sizeof(esp_sc) <= sizeof(((pcam_esp *)0)->priv)) ? 1 : -1];

static esp_sc *SC(void *v)
{
    return (esp_sc *)v;
}

/* ---- events ---- */

void esp_fill(esp_sc *s, pcam_hal_event *ev, pcam_hal_event_type type, uint8_t phase,
              uint32_t count, uint32_t count2, uint8_t byte, bool parity)
{
    ev->type = type;
    ev->phase = (pcam_phase)phase;
    ev->count = count;
    ev->count2 = count2;
    ev->target = s->conn != ESP_NO_ID ? s->conn : s->sel_target;
    ev->byte = byte;
    ev->parity_error = parity;
    ev->took = 0; /* chained steps only where an ending sets them (esp_xfer.c) */
    ev->status = 0;
    ev->msg = 0;
}

void esp_post(esp_sc *s, pcam_hal_event_type type, uint8_t phase, uint32_t count,
              uint32_t count2, uint8_t byte, bool parity)
{
    esp_fill(s, &s->pev, type, phase, count, count2, byte, parity);
    s->pend = true;
}

/* The chip is off the bus: listen for reselection again. */
void esp_bus_went_free(esp_sc *s)
{
    s->conn = ESP_NO_ID;
    s->act = EA_NONE;
    esp_cmd(s, ESP_C_ENSEL);
}

/* ---- per-target synchronous settings ---- */

/* Registers are written only when they change: most commands go to a
 * target whose values the chip already holds. */
void esp_load_target(esp_sc *s, uint8_t target)
{
    if (target >= ESP_TARGETS)
        return;
    if (!s->regs_known || s->cur_soff != s->t_soff[target]) {
        s->cur_soff = s->t_soff[target];
        esp_wr(s, ESP_R_SOFF, s->cur_soff);
    }
    if (!s->regs_known || s->cur_stp != s->t_stp[target]) {
        s->cur_stp = s->t_stp[target];
        esp_wr(s, ESP_R_STP, s->cur_stp);
    }
    if ((s->feat & EF_CFG3) != 0 && (!s->regs_known || s->cur_cfg3 != s->t_cfg3[target])) {
        s->cur_cfg3 = s->t_cfg3[target];
        esp_wr(s, ESP_R_CFG3, s->cur_cfg3);
    }
    s->regs_known = true;
}

/* One DMA run on the AM53C974: the engine idle while it is programmed, then
 * START, then the chip command, whose DMA request finds the engine running.
 * Not command then START (Linux's am53c974 order): QEMU's model (7.2) loads
 * the chip's counter with the command and, until START, lets a data-in
 * chunk its disk delivers in that window go through the previous TRANSFER
 * INFORMATION into the idle engine, whose count is spent: nothing reaches
 * memory, the bytes are gone, and every later piece of the transfer lands
 * one piece early (issue 30; docs/linux.md, "Whole-disk reads under host
 * load"). An engine started first waits for the core's DMA request; that
 * the real chip takes this order too is assumed, not tried on hardware. */
void esp_dma_program(esp_sc *s, uint32_t n, uint32_t bus, bool in, uint8_t cmd)
{
    uint32_t dirbit = in ? AMD_CMD_DIR_IN : 0;
    amd_wr(s, AMD_DMA_CMD, AMD_CMD_IDLE | dirbit);
    esp_wr(s, ESP_R_TCLO, (uint8_t)n);
    if (!s->tc_known || s->cur_tcmid != (uint8_t)(n >> 8)) {
        s->cur_tcmid = (uint8_t)(n >> 8);
        esp_wr(s, ESP_R_TCMID, s->cur_tcmid);
    }
    if ((s->feat & EF_TC24) != 0 && (!s->tc_known || s->cur_tchi != (uint8_t)(n >> 16))) {
        s->cur_tchi = (uint8_t)(n >> 16);
        esp_wr(s, ESP_R_TCHI, s->cur_tchi);
    }
    if (!s->tc_known || s->cur_stc != n) {
        s->cur_stc = n;
        amd_wr(s, AMD_DMA_STC, n);
    }
    s->tc_known = true;
    amd_wr(s, AMD_DMA_SPA, bus);
    amd_wr(s, AMD_DMA_CMD, AMD_CMD_START | dirbit);
    esp_cmd(s, (uint8_t)(cmd | ESP_C_DMA));
    s->st.dma_transfers++;
}

/* Clocks per byte for a period factor (SPI: factor x 4 ns from 0x0C up). */
static uint32_t period_clocks(const esp_sc *s, uint8_t factor)
{
    uint32_t ns = factor < 0x0C ? 50u : (uint32_t)factor * 4u;
    return (ns * s->clock_khz + 999999u) / 1000000u;
}

static int op_set_xfer(void *v, uint8_t target, const pcam_hal_xfer_params *prm)
{
    esp_sc *s = SC(v);
    uint32_t cpb;
    uint8_t stp = s->min_cpb, soff = 0, cfg3 = s->cfg3;

    if (s == NULL || prm == NULL)
        return PCAM_ERR_NULL;
    if (target >= ESP_TARGETS || prm->width != 0)
        return PCAM_ERR_RANGE;
    if (prm->offset != 0) {
        cpb = period_clocks(s, prm->period);
        if (cpb < s->min_cpb)
            cpb = s->min_cpb;
        if (cpb > 35u) {
            esp_log(s, PCAM_LOG_WARN, "esp: agreed period slower than the chip can clock; using its slowest");
            cpb = 35u;
        }
        /* The period register holds 5 bits; 32..35 clocks wrap to 0..3. */
        stp = (uint8_t)(cpb & 0x1Fu);
        soff = prm->offset > 15u ? 15u : prm->offset;
        if ((s->feat & EF_FAST) != 0 && prm->period < 50u)
            cfg3 |= ESP_CFG3_FSCSI;
    }
    s->t_stp[target] = stp;
    s->t_soff[target] = soff;
    s->t_cfg3[target] = cfg3;
    /* Mid-connection (the answer to our SDTR): the next data phase uses it. */
    if (s->conn == target)
        esp_load_target(s, target);
    return PCAM_OK;
}

/* ---- chip reset and identification ---- */

static void write_config(esp_sc *s)
{
    uint8_t t;

    esp_wr(s, ESP_R_CFG1, s->cfg1);
    esp_wr(s, ESP_R_CCF, s->ccf);
    esp_wr(s, ESP_R_STO, s->sto);
    if ((s->feat & EF_CFG2) != 0)
        esp_wr(s, ESP_R_CFG2, s->cfg2);
    for (t = 0; t < ESP_TARGETS; t++) {
        s->t_stp[t] = s->min_cpb;
        s->t_soff[t] = 0;
        s->t_cfg3[t] = s->cfg3;
    }
    s->regs_known = false;
    esp_load_target(s, 0);
    if (s->chip == PCAM_ESP_AM53C974)
        esp_wr(s, ESP_R_CFG4, 0);
}

static void raw_reset(esp_sc *s)
{
    if ((s->feat & EF_DMA) != 0)
        amd_wr(s, AMD_DMA_CMD, AMD_CMD_IDLE);
    esp_cmd(s, ESP_C_RESET);
    s->tc_known = false;
    /* The data manuals want a NOP after a chip reset before anything else. */
    esp_cmd(s, ESP_C_NOP);
    if (s->p.delay_us != NULL)
        s->p.delay_us(s->p.ctx, 10);
}

static int op_reset_chip(void *v)
{
    esp_sc *s = SC(v);
    if (s == NULL)
        return PCAM_ERR_NULL;
    raw_reset(s); /* idles the DMA engine first */
    s->act = EA_NONE;
    esp_dma_release(s);
    write_config(s);
    s->cur_busid = ESP_NO_ID;
    s->conn = ESP_NO_ID;
    s->act = EA_NONE;
    s->pend = false;
    /* Nothing should be pending after a reset; a stale cause would be
     * taken for the answer to our next action. */
    if ((esp_rd(s, ESP_R_STAT) & ESP_S_INT) != 0)
        (void)esp_rd(s, ESP_R_INTR);
    esp_cmd(s, ESP_C_ENSEL);
    return PCAM_OK;
}

static bool reads_back(esp_sc *s, unsigned reg, uint8_t v, uint8_t mask)
{
    esp_wr(s, reg, v);
    return (esp_rd(s, reg) & mask) == (v & mask);
}

static bool amd_engine_present(esp_sc *s)
{
    uint32_t v;
    if (s->stride != 4 || s->p.read32 == NULL || s->p.write32 == NULL)
        return false;
    amd_wr(s, AMD_DMA_SPA, 0x5A3C0F00u);
    v = amd_rd(s, AMD_DMA_SPA);
    amd_wr(s, AMD_DMA_SPA, 0);
    return v == 0x5A3C0F00u;
}

/* Tell the variants apart the way the data manuals allow: CFG2 exists from
 * the 90A on, CFG3 on the FAS parts, whose ID shows in TCHI after a reset
 * with CFG2 FE set; CFG4 exists only on the AM53C974. */
static pcam_esp_chip identify(esp_sc *s)
{
    uint8_t id;

    raw_reset(s);
    if (!reads_back(s, ESP_R_CFG2, ESP_CFG2_SCSI2 | ESP_CFG2_RPE, 0x1F))
        return PCAM_ESP_NCR53C90;
    if (!reads_back(s, ESP_R_CFG3, 0x05, 0xFF)) {
        esp_wr(s, ESP_R_CFG2, 0);
        return PCAM_ESP_NCR53C90A;
    }
    esp_wr(s, ESP_R_CFG3, 0);
    raw_reset(s);
    esp_wr(s, ESP_R_CFG2, ESP_CFG2_FE);
    id = esp_rd(s, ESP_R_TCHI);
    if (reads_back(s, ESP_R_CFG4, ESP_CFG4_GE12, ESP_CFG4_GE12) || amd_engine_present(s)) {
        esp_wr(s, ESP_R_CFG4, 0);
        return PCAM_ESP_AM53C974;
    }
    esp_wr(s, ESP_R_CFG2, 0);
    if ((id >> 3) != ESP_ID_FAMILY_FAS236)
        return PCAM_ESP_NCR53C94; /* CFG3 but no part ID: the 53C94/96 */
    /* Version 2 of the family is the FAS216. */
    return (id & 7u) == 2u ? PCAM_ESP_FAS216 : PCAM_ESP_FAS236;
}

static void derive_settings(esp_sc *s, const pcam_esp_config *cfg)
{
    uint32_t ccf = (cfg->clock_khz + 4999u) / 5000u, ccf8, sto;

    switch ((pcam_esp_chip)s->chip) {
    case PCAM_ESP_NCR53C90:
        s->feat = 0;
        break;
    case PCAM_ESP_NCR53C90A:
        s->feat = EF_CFG2 | EF_ATN3;
        break;
    case PCAM_ESP_NCR53C94:
        s->feat = EF_CFG2 | EF_CFG3 | EF_ATN3;
        break;
    default:
        s->feat = EF_CFG2 | EF_CFG3 | EF_TC24 | EF_ATN3 | EF_FAST;
        break;
    }
    if ((cfg->flags & PCAM_ESP_F_NO_SELATN3) != 0)
        s->feat &= (uint8_t)~EF_ATN3;
    if (s->chip == PCAM_ESP_AM53C974 && cfg->use_dma)
        s->feat |= EF_DMA;
    if ((cfg->flags & PCAM_ESP_F_NO_PARITY) == 0)
        s->feat |= EF_PARITY;

    /* Clock conversion factor: MHz / 5 rounded up; 1 is not allowed and 8
     * is written as 0. */
    if (ccf < 2u)
        ccf = 2u;
    ccf8 = ccf;
    s->ccf = (uint8_t)(ccf & 7u);
    /* Selection time-out register = 250 ms x clock / (8192 x CCF). */
    sto = (cfg->clock_khz * 250u + 8192u * ccf8 - 1u) / (8192u * ccf8);
    s->sto = (uint8_t)(sto > 255u ? 255u : sto);

    s->cfg1 = (uint8_t)((cfg->initiator_id & ESP_CFG1_ID) | ((s->feat & EF_PARITY) ? ESP_CFG1_PARITY : 0));
    s->cfg2 = (s->feat & EF_CFG2) ? ESP_CFG2_SCSI2 : 0;
    if (s->feat & EF_TC24)
        s->cfg2 |= ESP_CFG2_FE;
    s->cfg3 = 0;
    if ((s->feat & EF_FAST) != 0 && cfg->clock_khz > 25000u)
        s->cfg3 = ESP_CFG3_FCLK;
    /* Fast parts do 4 clocks per byte with FSCSI, older ones 5; without
     * fast timing 200 ns is the floor. */
    s->min_cpb = (s->feat & EF_FAST) ? 4u : 5u;
    {
        uint32_t ns = ((uint32_t)s->min_cpb * 1000000u + cfg->clock_khz - 1u) / cfg->clock_khz;
        uint32_t f = (ns + 3u) / 4u;
        if ((s->feat & EF_FAST) == 0 && f < 50u)
            f = 50u;
        if (f < 25u)
            f = 25u;
        s->min_period = (uint8_t)(f > 255u ? 255u : f);
    }
}

/* ---- the other synchronous ops and the action that has no file of its own ---- */

static const char *chip_name(uint8_t chip)
{
    switch ((pcam_esp_chip)chip) {
    case PCAM_ESP_NCR53C90: return "NCR53C90";
    case PCAM_ESP_NCR53C90A: return "NCR53C90A";
    case PCAM_ESP_NCR53C94: return "NCR53C94";
    case PCAM_ESP_FAS216: return "FAS216";
    case PCAM_ESP_FAS236: return "FAS236";
    case PCAM_ESP_AM53C974: return "AM53C974";
    default: return "ESP";
    }
}

static void op_get_caps(void *v, pcam_hal_caps *caps)
{
    esp_sc *s = SC(v);
    if (caps == NULL)
        return;
    memset(caps, 0, sizeof *caps);
    if (s == NULL)
        return;
    caps->name = chip_name(s->chip);
    caps->profile = PCAM_HAL_PHASE_LEVEL;
    caps->flags = PCAM_HAL_CAP_SYNC | PCAM_HAL_CAP_TAGS;
    if (s->feat & EF_PARITY)
        caps->flags |= PCAM_HAL_CAP_PARITY;
    if (s->feat & EF_DMA)
        caps->flags |= PCAM_HAL_CAP_DMA;
    caps->max_targets = ESP_TARGETS;
    caps->initiator_id = s->id;
    caps->min_period = s->min_period;
    caps->max_offset = 15;
    caps->max_sg = 0xFFFFu;
    caps->max_xfer = 0xFFFFFFFFu;
    caps->align_mask = 0;
}

static int op_reset_bus(void *v)
{
    esp_sc *s = SC(v);
    if (s == NULL)
        return PCAM_ERR_NULL;
    esp_dma_abort(s);
    s->pend = false;
    s->act = EA_RESET;
    esp_cmd(s, ESP_C_BUSRESET);
    return PCAM_OK;
}

static int op_set_atn(void *v)
{
    esp_sc *s = SC(v);
    if (s == NULL)
        return PCAM_ERR_NULL;
    esp_cmd(s, ESP_C_SETATN);
    return PCAM_OK;
}

static const pcam_hal_ops esp_ops = {
    op_get_caps,   op_reset_chip,     op_reset_bus, esp_op_select, esp_op_transfer, esp_op_msg_out,
    esp_op_msg_in, esp_op_msg_accept, op_set_atn,   op_set_xfer,   esp_op_poll,
};

pcam_err pcam_esp_attach_abi(size_t sc_size, pcam_esp *sc, const pcam_esp_config *cfg,
                             const pcam_platform *plat, pcam_hal *out)
{
    esp_sc *s = (esp_sc *)(void *)sc;

    if (sc_size != sizeof(pcam_esp))
        return PCAM_ERR_ABI; /* storage from other headers: not ours to write */
    if (sc == NULL || cfg == NULL || plat == NULL || out == NULL)
        return PCAM_ERR_NULL;
    if (plat->read8 == NULL || plat->write8 == NULL || plat->now_ns == NULL)
        return PCAM_ERR_NULL;
    if ((cfg->stride != 1 && cfg->stride != 4) || cfg->initiator_id > 7 ||
        cfg->clock_khz < 10000u || cfg->clock_khz > 40000u || cfg->chip > PCAM_ESP_AM53C974)
        return PCAM_ERR_RANGE;
    if (cfg->use_dma && (cfg->chip == PCAM_ESP_AM53C974 || cfg->chip == PCAM_ESP_AUTO) &&
        (plat->read32 == NULL || plat->write32 == NULL || plat->dma_map == NULL))
        return PCAM_ERR_NULL;
    memset(s, 0, sizeof *s);
    s->p = *plat;
    s->base = cfg->base;
    s->stride = cfg->stride;
    s->clock_khz = cfg->clock_khz;
    s->cfg_flags = cfg->flags;
    s->id = cfg->initiator_id;
    s->conn = ESP_NO_ID;
    s->sel_target = ESP_NO_ID;
    s->cur_busid = ESP_NO_ID;

    /* A chip must at least keep CFG1, which every variant has. */
    if (!reads_back(s, ESP_R_CFG1, (uint8_t)(0x10u | cfg->initiator_id), 0x17))
        return PCAM_ERR_UNSUPPORTED;
    s->chip = (uint8_t)(cfg->chip == PCAM_ESP_AUTO ? identify(s) : cfg->chip);
    derive_settings(s, cfg);
    (void)op_reset_chip(s);
    memset(out, 0, sizeof *out);
    out->ops = &esp_ops;
    out->sc = s;
    return PCAM_OK;
}

pcam_esp_chip pcam_esp_get_chip(const pcam_esp *sc)
{
    if (sc == NULL)
        return PCAM_ESP_AUTO;
    return (pcam_esp_chip)((const esp_sc *)(const void *)sc)->chip;
}

void pcam_esp_get_stats(const pcam_esp *sc, pcam_esp_stats *out)
{
    if (out == NULL)
        return;
    memset(out, 0, sizeof *out);
    if (sc != NULL)
        *out = ((const esp_sc *)(const void *)sc)->st;
}
