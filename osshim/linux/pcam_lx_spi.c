/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SPI transport class for pcam.ko: /sys/class/spi_transport shows
 * the agreement the core has in force with each target (period factor,
 * offset, width, DT, IU, QAS); a write sets the core's user limit for that
 * value, and the core renegotiates on the target's next command. Only
 * translation: the core clamps to the chip and runs the negotiation.
 */
#include <linux/module.h>
#include <scsi/scsi_transport.h>
#include <scsi/scsi_transport_spi.h>

#include "pcam_lx.h"

enum plx_field { PF_PERIOD, PF_OFFSET, PF_WIDTH, PF_DT, PF_IU, PF_QAS };

/* PPR protocol option bits as pcam_xfer_settings carries them (SPI-5). */
static const u8 plx_ppr_bit[] = { [PF_DT] = 0x02, [PF_IU] = 0x01, [PF_QAS] = 0x04 };

static struct plx_host *plx_of(struct scsi_target *st)
{
	return shost_priv(dev_to_shost(st->dev.parent));
}

static void plx_tran(struct scsi_target *st, pcam_tran_type type, pcam_xfer_settings *s, bool set)
{
	struct plx_host *h = plx_of(st);
	pcam_ccb ccb = { .func = set ? PCAM_FN_SET_TRAN : PCAM_FN_GET_TRAN,
			 .target = (u8)st->id, .done = plx_nop_done };
	unsigned long flags;

	ccb.u.tran.type = type;
	if (set)
		ccb.u.tran.settings = *s;
	spin_lock_irqsave(&h->lock, flags);
	plx_sync_action(h, &ccb);
	plx_arm_timer(h);
	spin_unlock_irqrestore(&h->lock, flags);
	if (!set)
		*s = ccb.u.tran.settings;
}

static void plx_get(struct scsi_target *st, enum plx_field f)
{
	pcam_xfer_settings s;

	plx_tran(st, PCAM_TRAN_CURRENT, &s, false);
	switch (f) {
	case PF_PERIOD:
		spi_period(st) = s.period;
		break;
	case PF_OFFSET:
		spi_offset(st) = s.offset;
		break;
	case PF_WIDTH:
		spi_width(st) = s.width;
		break;
	case PF_DT:
		spi_dt(st) = (s.ppr_options & plx_ppr_bit[PF_DT]) != 0;
		break;
	case PF_IU:
		spi_iu(st) = (s.ppr_options & plx_ppr_bit[PF_IU]) != 0;
		break;
	case PF_QAS:
		spi_qas(st) = (s.ppr_options & plx_ppr_bit[PF_QAS]) != 0;
		break;
	}
}

static void plx_set(struct scsi_target *st, enum plx_field f, int v)
{
	pcam_xfer_settings s;

	if (v < 0 || v > 255)
		return;
	plx_tran(st, PCAM_TRAN_USER, &s, false);
	switch (f) {
	case PF_PERIOD:
		s.period = (u8)v;
		break;
	case PF_OFFSET:
		s.offset = (u8)v;
		break;
	case PF_WIDTH:
		s.width = (u8)v;
		break;
	default:
		if (v)
			s.ppr_options |= plx_ppr_bit[f];
		else
			s.ppr_options &= (u8)~plx_ppr_bit[f];
		break;
	}
	plx_tran(st, PCAM_TRAN_USER, &s, true);
}

#define PLX_ATTR(name, field) \
	static void plx_get_##name(struct scsi_target *st) { plx_get(st, field); } \
	static void plx_set_##name(struct scsi_target *st, int v) { plx_set(st, field, v); }
PLX_ATTR(period, PF_PERIOD)
PLX_ATTR(offset, PF_OFFSET)
PLX_ATTR(width, PF_WIDTH)
PLX_ATTR(dt, PF_DT)
PLX_ATTR(iu, PF_IU)
PLX_ATTR(qas, PF_QAS)

static struct spi_function_template plx_spi_ft = {
	.get_period = plx_get_period, .set_period = plx_set_period, .show_period = 1,
	.get_offset = plx_get_offset, .set_offset = plx_set_offset, .show_offset = 1,
	.get_width = plx_get_width, .set_width = plx_set_width, .show_width = 1,
	.get_dt = plx_get_dt, .set_dt = plx_set_dt, .show_dt = 1,
	.get_iu = plx_get_iu, .set_iu = plx_set_iu, .show_iu = 1,
	.get_qas = plx_get_qas, .set_qas = plx_set_qas, .show_qas = 1,
};

struct scsi_transport_template *plx_spi_attach(void)
{
	return spi_attach_transport(&plx_spi_ft);
}

void plx_spi_release(struct scsi_transport_template *t)
{
	spi_release_transport(t);
}
