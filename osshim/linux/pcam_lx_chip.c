/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The chip table of pcam.ko: which PCI IDs bind, and for each back-end the
 * few steps that differ (map the BAR the back-end wants, give it the memory
 * it needs, attach it, read its interrupt and statistics counters). The AMD
 * AM53C974 runs on hal/esp, and a Tekram DC-390 (the same IDs) with the
 * settings of its EEPROM; the 53C8xx family (QEMU: LSI53C895A, 1000:0012)
 * runs on hal/sym with its script-level profile; the Fusion-MPT SAS1068
 * (QEMU: mptsas1068, 1000:0054) on hal/mpt, command level. Everything else (queueing,
 * tags, negotiation, recovery) is the core's; nothing here may decide it.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/pci.h>

#include "pcam_lx.h"

/* ---------------------------------------------------------------- AM53C974 */

/* A Tekram DC-390 has the AM53C974's IDs; its 93C46 answers on pins in
 * configuration space, a plain AM53C974 does not. */
static u8 plx_cfg_rd(void *ctx, u8 off)
{
	u8 v = 0xff;

	pci_read_config_byte(ctx, off, &v);
	return v;
}

static void plx_cfg_wr(void *ctx, u8 off, u8 v)
{
	pci_write_config_byte(ctx, off, v);
}

static void plx_cfg_delay(void *ctx, u32 us)
{
	udelay(us);
}

static void plx_dc390_read(struct plx_host *h)
{
	const pcam_dc390_cfg_io io = { h->pdev, plx_cfg_rd, plx_cfg_wr, plx_cfg_delay };
	u8 raw[PCAM_DC390_EEPROM_BYTES];
	const char *why = "no EEPROM answers";

	if (pcam_dc390_read_eeprom(&io, raw) != PCAM_OK) {
		h->nvram.valid = false;
		return; /* a plain AM53C974 */
	}
	if (pcam_dc390_parse(raw, sizeof(raw), &h->nvram, &why) == PCAM_OK)
		dev_info(&h->pdev->dev, "Tekram DC-390 EEPROM: host ID %u, %u tags per LUN\n",
			 h->nvram.host_id, h->nvram.max_tags);
	else
		dev_warn(&h->pdev->dev, "DC-390 EEPROM: %s; AM53C974 defaults\n", why);
}

static int plx_esp_attach(struct plx_host *h)
{
	struct pci_dev *pdev = h->pdev;
	pcam_esp_config ec = { 0 };
	int rc;

	rc = pcim_iomap_regions(pdev, BIT(0), PLX_NAME);
	if (rc)
		return rc;
	h->regs = pcim_iomap_table(pdev)[0];
	ec.chip = PCAM_ESP_AUTO;
	ec.stride = 4; /* AM53C974: ESP register n at BAR0 + 4n */
	ec.clock_khz = 40000;
	ec.initiator_id = 7;
	ec.use_dma = true;
	if (pdev->subsystem_vendor == PCI_SUBVENDOR_ID_REDHAT_QUMRANET)
		ec.flags = PCAM_ESP_F_NO_SELATN3; /* QEMU's model: SELATN3 is a no-op */
	plx_dc390_read(h);
	pcam_dc390_apply(&h->nvram, &ec, NULL);
	if (pcam_esp_attach(&h->u.esp, &ec, &h->plat, &h->hal) != PCAM_OK ||
	    pcam_esp_get_chip(&h->u.esp) != PCAM_ESP_AM53C974) {
		dev_err(&pdev->dev, "no AM53C974 answers at BAR0\n");
		return -ENODEV;
	}
	return 0;
}

static u64 plx_esp_interrupts(struct plx_host *h)
{
	pcam_esp_stats st;

	pcam_esp_get_stats(&h->u.esp, &st);
	return st.interrupts;
}

/* Nothing to stop: after the core's chip reset the ESP does not DMA. */
static void plx_esp_stop(struct plx_host *h)
{
}

static void plx_esp_report(struct plx_host *h)
{
	pcam_esp_stats st;

	pcam_esp_get_stats(&h->u.esp, &st);
	dev_info(&h->pdev->dev, "pcam: esp: %llu chip interrupts\n", st.interrupts);
}

/* ---------------------------------------------------------------- 53C8xx */

/*
 * hal/sym runs its script from host memory: the script, the start and done
 * rings and the per-command blocks go in one coherent area below 4 GiB (the
 * 32-bit DMA mask). Registers through the memory BAR (BAR1), as writel
 * orders the area's stores before the SIGP that tells the chip to look.
 */
static int plx_sym_attach(struct plx_host *h)
{
	struct pci_dev *pdev = h->pdev;
	pcam_sym_config sc = { 0 };
	const pcam_sym_chip_info *ci;
	dma_addr_t bus;
	pcam_err e;
	void *va;
	int rc;

	ci = pcam_sym_chip_lookup(pdev->device, pdev->revision);
	if (!ci) {
		dev_err(&pdev->dev, "PCI 1000:%04x rev %u is not in hal/sym's chip table\n",
			pdev->device, pdev->revision);
		return -ENODEV;
	}
	if (!(pci_resource_flags(pdev, 1) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "%s: BAR1 is not a memory BAR\n", ci->name);
		return -ENODEV;
	}
	rc = pcim_iomap_regions(pdev, BIT(1), PLX_NAME);
	if (rc)
		return rc;
	h->regs = pcim_iomap_table(pdev)[1];
	va = dmam_alloc_coherent(&pdev->dev, PCAM_SYM_DMA_BYTES, &bus, GFP_KERNEL);
	if (!va)
		return -ENOMEM;
	sc.base = 0; /* the platform's accessors add h->regs */
	sc.pci_device = pdev->device;
	sc.pci_revision = pdev->revision;
	sc.initiator_id = 7;
	sc.dma_va = va;
	sc.dma_bus = bus;
	sc.dma_len = PCAM_SYM_DMA_BYTES;
	e = pcam_sym_attach(&h->u.sym, &sc, &h->plat, &h->hal);
	if (e != PCAM_OK) {
		dev_err(&pdev->dev, "%s: hal/sym attach failed: %s\n", ci->name, pcam_strerror(e));
		return e == PCAM_ERR_UNSUPPORTED ? -ENODEV : -EIO;
	}
	dev_info(&pdev->dev, "%s rev %u, %zu-byte script in host memory at %pad\n",
		 ci->name, pdev->revision, pcam_sym_script_bytes(&h->u.sym), &bus);
	return 0;
}

static u64 plx_sym_interrupts(struct plx_host *h)
{
	pcam_sym_stats st;

	pcam_sym_get_stats(&h->u.sym, &st);
	return st.interrupts;
}

/* The script runs again after the core's chip reset: halt it before the
 * managed DMA area is freed with the device. */
static void plx_sym_stop(struct plx_host *h)
{
	pcam_sym_stop(&h->u.sym);
}

static void plx_sym_report(struct plx_host *h)
{
	pcam_sym_stats st;

	pcam_sym_get_stats(&h->u.sym, &st);
	dev_info(&h->pdev->dev,
		 "pcam: sym: %llu chip interrupts, %llu script stops, %llu done batches, %llu started, %llu retired, at most %u outstanding\n",
		 st.interrupts, st.script_irqs, st.done_batches, st.started, st.completed,
		 st.max_outstanding);
}

/* ---------------------------------------------------------------- Fusion-MPT */

/*
 * hal/mpt keeps its request, chain, sense and reply frames in one coherent
 * area below 4 GiB; registers through the memory BAR (BAR1: the same
 * registers as the I/O BAR0), whose writel orders the frame stores before
 * the request FIFO write that posts them.
 */
static int plx_mpt_attach(struct plx_host *h)
{
	struct pci_dev *pdev = h->pdev;
	pcam_mpt_config mc = { 0 };
	pcam_mpt_facts f;
	dma_addr_t bus;
	pcam_err e;
	void *va;
	int rc;

	if (!(pci_resource_flags(pdev, 1) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "SAS1068: BAR1 is not a memory BAR\n");
		return -ENODEV;
	}
	rc = pcim_iomap_regions(pdev, BIT(1), PLX_NAME);
	if (rc)
		return rc;
	h->regs = pcim_iomap_table(pdev)[1];
	va = dmam_alloc_coherent(&pdev->dev, PCAM_MPT_DMA_BYTES, &bus, GFP_KERNEL);
	if (!va)
		return -ENOMEM;
	mc.base = 0; /* the platform's accessors add h->regs */
	mc.dma_va = va;
	mc.dma_bus = bus;
	mc.dma_len = PCAM_MPT_DMA_BYTES;
	e = pcam_mpt_attach(&h->u.mpt, &mc, &h->plat, &h->hal);
	if (e != PCAM_OK) {
		dev_err(&pdev->dev, "SAS1068: hal/mpt attach failed: %s\n", pcam_strerror(e));
		return e == PCAM_ERR_UNSUPPORTED ? -ENODEV : -EIO;
	}
	pcam_mpt_get_facts(&h->u.mpt, &f);
	dev_info(&pdev->dev, "SAS1068: MPI %x.%02x, firmware %08x, %u credits, port ID %u, frames at %pad\n",
		 f.msg_version >> 8, f.msg_version & 0xff, f.fw_version, f.credits_used,
		 f.port_scsi_id, &bus);
	return 0;
}

static u64 plx_mpt_interrupts(struct plx_host *h)
{
	pcam_mpt_stats st;

	pcam_mpt_get_stats(&h->u.mpt, &st);
	return st.interrupts;
}

/* The IOC keeps replying into the area after the core's chip reset: a
 * message unit reset with interrupts masked before it is freed. */
static void plx_mpt_stop(struct plx_host *h)
{
	pcam_mpt_stop(&h->u.mpt);
}

static void plx_mpt_report(struct plx_host *h)
{
	pcam_mpt_stats st;

	pcam_mpt_get_stats(&h->u.mpt, &st);
	dev_info(&h->pdev->dev,
		 "pcam: mpt: %llu interrupts, %llu started, %llu completed, %llu context and %llu address replies, %llu refused, at most %u outstanding\n",
		 st.interrupts, st.started, st.completed, st.context_replies, st.address_replies,
		 st.bad_replies, st.max_outstanding);
}

/* ---------------------------------------------------------------- table */

const struct plx_chip plx_chips[] = {
	[PLX_CHIP_ESP] = { "AM53C974", plx_esp_attach, plx_esp_interrupts, plx_esp_report,
			   plx_esp_stop, 1 },
	[PLX_CHIP_SYM] = { "53C8xx", plx_sym_attach, plx_sym_interrupts, plx_sym_report,
			   plx_sym_stop, PLX_SINGLES },
	[PLX_CHIP_MPT] = { "SAS1068", plx_mpt_attach, plx_mpt_interrupts, plx_mpt_report,
			   plx_mpt_stop, PLX_SINGLES },
};

/* 53C8xx IDs: the entries of hal/sym's chip table with LOAD/STORE, which
 * its script needs (pcam_sym_attach refuses the older revisions of 0x0001
 * and 0x0003 with a message). */
#define PLX_SYM(dev) { PCI_DEVICE(PCI_VENDOR_ID_LSI_LOGIC, dev), .driver_data = PLX_CHIP_SYM }
const struct pci_device_id plx_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_AMD, PCI_DEVICE_ID_AMD_SCSI), .driver_data = PLX_CHIP_ESP },
	PLX_SYM(0x0001), /* 53C810A */
	PLX_SYM(0x0003), /* 53C825A */
	PLX_SYM(0x0006), /* 53C860 */
	PLX_SYM(0x000B), /* 53C896 */
	PLX_SYM(0x000C), /* 53C895 */
	PLX_SYM(0x000D), /* 53C885 */
	PLX_SYM(0x000F), /* 53C875 */
	PLX_SYM(0x0012), /* 53C895A (QEMU's lsi53c895a) */
	PLX_SYM(0x0013), /* 53C875A */
	PLX_SYM(0x0020), /* 53C1010-33 */
	PLX_SYM(0x0021), /* 53C1010-66 */
	PLX_SYM(0x008F), /* 53C875J */
	{ PCI_DEVICE(PCI_VENDOR_ID_LSI_LOGIC, 0x0054), .driver_data = PLX_CHIP_MPT }, /* SAS1068 (QEMU's mptsas1068) */
	{ }
};
MODULE_DEVICE_TABLE(pci, plx_ids);
