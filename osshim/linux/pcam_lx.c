/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcam.ko: a SCSI low-level driver made of pcam's core and one of its chip
 * back-ends: hal/esp for the AM53C974 (PCI 1022:2020), hal/sym for the
 * 53C8xx SCRIPTS family (QEMU's LSI53C895A, 1000:0012); which IDs bind and
 * how each back-end attaches is pcam_lx_chip.c. This file is the translation layer:
 * PCI attach, the platform services over the kernel's I/O and DMA API,
 * queuecommand into CCBs, one status table back to the midlayer, the
 * error-handler entry points as core abort/reset CCBs, rmmod.
 *
 * It must never make a decision of its own about queueing, tags, retries,
 * negotiation or recovery: those belong to core/. It never calls the core
 * without plx_host::lock held.
 *
 * Timeouts: the midlayer owns them (the block layer's request timeout
 * starts Linux's error handler, which calls our eh_* handlers, which ask
 * the core to abort or reset). The CCB carries the core's backstop for a
 * host that owns timeouts (pcam_host_backstop_ms()), so the core's own
 * ladder only acts if Linux's error handler itself is stuck. Retries, the
 * depth of an untagged LUN, whether a LUN is tagged and how long a handler
 * waits are the core's answers too (pcam.h, "Policies for a host").
 *
 * Completions: scsi_done() runs from the core's callback with the bus lock
 * held. A SCSI host has one blk-mq hardware queue, so blk-mq defers the
 * rest of the completion to BLOCK_SOFTIRQ and never re-enters
 * queuecommand from inside scsi_done(); a scsi_done() on a command the
 * midlayer has already timed out is ignored by the midlayer itself.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <scsi/scsi.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_eh.h>
#include <scsi/scsi_tcq.h>

#include "pcam_lx.h"
#include "pcam/pcam_version.h"

bool plx_param_tags = true;
module_param_named(tags, plx_param_tags, bool, 0444);
MODULE_PARM_DESC(tags, "Tagged queuing where INQUIRY reports CmdQue and the core agrees (default 1)");
static uint plx_param_depth;
module_param_named(depth, plx_param_depth, uint, 0444);
MODULE_PARM_DESC(depth, "Starting tag depth per LUN (0 = core default, 32)");
static uint plx_param_max_depth;
module_param_named(max_depth, plx_param_max_depth, uint, 0444);
MODULE_PARM_DESC(max_depth, "Tag depth ceiling after QUEUE FULL ramp-up (0 = core default, 64)");
static uint plx_param_sync_period;
module_param_named(sync_period, plx_param_sync_period, uint, 0444);
MODULE_PARM_DESC(sync_period, "Fastest SDTR period factor to offer (0 = chip limit; 0x19 = 10 MB/s)");
static int plx_param_sync_offset = -1;
module_param_named(sync_offset, plx_param_sync_offset, int, 0444);
MODULE_PARM_DESC(sync_offset, "Largest SDTR offset to offer (-1 = chip limit, 0 = asynchronous only)");
static int plx_param_aging = -1;
module_param_named(aging, plx_param_aging, int, 0444);
MODULE_PARM_DESC(aging, "Anti-starvation aging, per LUN and per bus (-1 = core default, on)");
static uint plx_param_age_ms;
module_param_named(age_ms, plx_param_age_ms, uint, 0444);
MODULE_PARM_DESC(age_ms, "Per-LUN aging: force ORDERED after the oldest command waited this long (0 = default 1000)");

/* ---------------------------------------------------------------- status */

/* The one status table: every pcam status to a midlayer host byte. The
 * SCSI status byte and the sense data are passed through unchanged. */
static const struct {
	u8 pcam;
	u8 did;
} plx_status_map[] = {
	{ PCAM_REQ_CMP, DID_OK },
	{ PCAM_SCSI_STATUS_ERROR, DID_OK },
	{ PCAM_REQ_ABORTED, DID_ABORT },
	{ PCAM_REQ_CMP_ERR, DID_ERROR },
	{ PCAM_BUSY, DID_BUS_BUSY },
	{ PCAM_REQ_INVALID, DID_ERROR },
	{ PCAM_PATH_INVALID, DID_BAD_TARGET },
	{ PCAM_DEV_NOT_THERE, DID_NO_CONNECT },
	{ PCAM_SEL_TIMEOUT, DID_NO_CONNECT },
	{ PCAM_CMD_TIMEOUT, DID_TIME_OUT },
	{ PCAM_SCSI_BUS_RESET, DID_RESET },
	{ PCAM_UNCOR_PARITY, DID_PARITY },
	{ PCAM_AUTOSENSE_FAIL, DID_ERROR },
	{ PCAM_NO_HBA, DID_NO_CONNECT },
	{ PCAM_DATA_RUN_ERR, DID_ERROR },
	{ PCAM_UNEXP_BUSFREE, DID_ERROR },
	{ PCAM_SEQUENCE_FAIL, DID_ERROR },
	{ PCAM_BDR_SENT, DID_RESET },
	{ PCAM_REQ_TOO_BIG, DID_ERROR },
	{ PCAM_REQUEUE_REQ, DID_REQUEUE },
	{ PCAM_MSG_REJECT_REC, DID_ERROR },
	{ PCAM_RESRC_UNAVAIL, DID_SOFT_ERROR },
	{ PCAM_FUNC_NOTAVAIL, DID_ERROR },
};

static u8 plx_host_byte(u32 status)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(plx_status_map); i++)
		if (plx_status_map[i].pcam == (status & PCAM_STATUS_MASK))
			return plx_status_map[i].did;
	return DID_ERROR;
}

/* ---------------------------------------------------------------- platform */

static u64 plx_now(void *ctx)
{
	return ktime_get_ns();
}

static void plx_log(void *ctx, pcam_log_level level, const char *line)
{
	struct plx_host *h = ctx;

	switch (level) {
	case PCAM_LOG_ERROR:
		dev_err(&h->pdev->dev, "%s\n", line);
		break;
	case PCAM_LOG_WARN:
		dev_warn(&h->pdev->dev, "%s\n", line);
		break;
	case PCAM_LOG_INFO:
		dev_info(&h->pdev->dev, "%s\n", line);
		break;
	default:
		dev_dbg(&h->pdev->dev, "%s\n", line);
		break;
	}
}

/* Register access: the back-end's addresses are offsets into BAR0. */
#define PLX_IO(bits) \
	static u##bits plx_rd##bits(void *ctx, uintptr_t a) \
	{ return ioread##bits(((struct plx_host *)ctx)->regs + a); } \
	static void plx_wr##bits(void *ctx, uintptr_t a, u##bits v) \
	{ iowrite##bits(v, ((struct plx_host *)ctx)->regs + a); }
PLX_IO(8)
PLX_IO(16)
PLX_IO(32)

static bool plx_sg_lookup(struct plx_cmd *c, u8 *va, size_t len, u64 *bus)
{
	struct scsi_cmnd *cmd = c->ccb.user;
	struct scatterlist *sg;
	int i;

	if (!c->mapped)
		return false;
	scsi_for_each_sg(cmd, sg, c->nseg, i) {
		u8 *base = sg_virt(sg);

		if (va >= base && va + len <= base + sg->length) {
			*bus = sg_dma_address(sg) + (u64)(va - base);
			return true;
		}
	}
	return false;
}

/*
 * The back-end asks for one segment piece at a time by virtual address.
 * Data segments were mapped once per command by scsi_dma_map(): find the
 * piece there. Anything else (selection bytes, sense, the core's own
 * buffers, all in kmalloc'ed memory) is mapped singly, in one of the chip's
 * slots: hal/esp has one DMA run out at a time (one slot, reused), hal/sym
 * maps every command's buffers when it starts it (PLX_SINGLES slots).
 */
static int plx_dma_map(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t *bus)
{
	struct plx_host *h = ctx;
	struct plx_cmd *c;
	dma_addr_t a;
	unsigned int i;

	if (h->last_hit && plx_sg_lookup(h->last_hit, va, len, bus))
		return 0;
	list_for_each_entry(c, &h->inflight, node) {
		if (plx_sg_lookup(c, va, len, bus)) {
			h->last_hit = c;
			return 0;
		}
	}
	for (i = 0; i < h->chip->singles && h->single[i].used; i++)
		;
	if (i == h->chip->singles) {
		if (i != 1)
			return -1; /* the back-end fails the command with a defined status */
		/* hal/esp: one DMA run at a time; a new run means the last ended
		 * (its paths do not all unmap before mapping again). */
		dma_unmap_single(&h->pdev->dev, h->single[0].addr, h->single[0].len,
				 h->single[0].dir);
		h->single[0].used = false;
		i = 0;
	}
	h->single[i].dir = dir == PCAM_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	a = dma_map_single(&h->pdev->dev, va, len, h->single[i].dir);
	if (dma_mapping_error(&h->pdev->dev, a))
		return -1;
	h->single[i].used = true;
	h->single[i].addr = a;
	h->single[i].len = len;
	*bus = a;
	return 0;
}

static void plx_dma_unmap(void *ctx, void *va, size_t len, pcam_dma_dir dir, uint64_t bus)
{
	struct plx_host *h = ctx;
	unsigned int i;

	/* Pieces of a scsi_dma_map() list are not in single[]: they are
	 * unmapped with their command. */
	for (i = 0; i < h->chip->singles; i++) {
		if (h->single[i].used && h->single[i].addr == bus) {
			dma_unmap_single(&h->pdev->dev, bus, h->single[i].len, h->single[i].dir);
			h->single[i].used = false;
			return;
		}
	}
}

static void plx_delay(void *ctx, uint32_t us)
{
	udelay(us);
}

/* ---------------------------------------------------------------- timer */

void plx_arm_timer(struct plx_host *h)
{
	u64 d = pcam_bus_next_deadline(&h->bus);

	/* A later deadline leaves the earlier timer armed: it fires, ticks
	 * a core with nothing due, and re-arms. Cheaper than re-arming on
	 * every command. */
	if (d == U64_MAX || d >= h->armed)
		return;
	h->armed = d;
	hrtimer_start(&h->timer, ns_to_ktime(d), HRTIMER_MODE_ABS);
}

static enum hrtimer_restart plx_timer_fn(struct hrtimer *t)
{
	struct plx_host *h = container_of(t, struct plx_host, timer);
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	h->armed = U64_MAX;
	if (!h->dying)
		pcam_bus_tick(&h->bus);
	plx_arm_timer(h);
	spin_unlock_irqrestore(&h->lock, flags);
	return HRTIMER_NORESTART;
}

static irqreturn_t plx_irq(int irq, void *dev_id)
{
	struct plx_host *h = dev_id;
	unsigned long flags;
	u64 before, after;

	spin_lock_irqsave(&h->lock, flags);
	before = h->chip->interrupts(h);
	pcam_bus_intr(&h->bus);
	after = h->chip->interrupts(h);
	plx_arm_timer(h);
	spin_unlock_irqrestore(&h->lock, flags);
	/* Shared line: ours only if the back-end decoded a chip interrupt. */
	return after != before ? IRQ_HANDLED : IRQ_NONE;
}

/* Completion of a CCB run by plx_sync_action(): the caller reads it. */
void plx_nop_done(pcam_ccb *ccb)
{
}

u32 plx_sync_action(struct plx_host *h, pcam_ccb *ccb)
{
	ccb->status = PCAM_REQ_INPROG;
	pcam_action(&h->bus, ccb);
	return ccb->status;
}

/* ---------------------------------------------------------------- I/O */

static void plx_io_done(pcam_ccb *ccb)
{
	struct scsi_cmnd *cmd = ccb->user;
	struct plx_cmd *c = scsi_cmd_priv(cmd);
	struct plx_host *h = shost_priv(cmd->device->host);
	u32 st = ccb->status;

	/* The core's contract: once. A second completion would be a core bug;
	 * say so loudly instead of completing a reused command. */
	if (WARN_ON_ONCE(!c->in_core))
		return;
	h->completed++;
	list_del(&c->node);
	c->in_core = false;
	if (h->last_hit == c)
		h->last_hit = NULL;
	if (c->mapped)
		scsi_dma_unmap(cmd);
	c->mapped = false;
	cmd->result = 0;
	set_host_byte(cmd, plx_host_byte(st));
	if ((st & PCAM_STATUS_MASK) == PCAM_SCSI_STATUS_ERROR ||
	    (st & PCAM_STATUS_MASK) == PCAM_AUTOSENSE_FAIL)
		set_status_byte(cmd, ccb->u.io.scsi_status);
	if ((st & PCAM_AUTOSNS_VALID) == 0 && cmd->sense_buffer)
		memset(cmd->sense_buffer, 0, SCSI_SENSE_BUFFERSIZE);
	scsi_set_resid(cmd, ccb->u.io.resid);
	if (waitqueue_active(&h->wq))
		wake_up_all(&h->wq);
	scsi_done(cmd);
}

static int plx_queuecommand(struct Scsi_Host *sh, struct scsi_cmnd *cmd)
{
	struct plx_host *h = shost_priv(sh);
	struct plx_cmd *c = scsi_cmd_priv(cmd);
	struct scsi_device *sdev = cmd->device;
	pcam_ccb *ccb = &c->ccb;
	pcam_scsiio *io = &ccb->u.io;
	struct scatterlist *sg;
	unsigned long flags;
	unsigned int to_ms;
	int n, i;

	if (cmd->cmd_len > PCAM_CDB_BYTES || sdev->lun >= PLX_LUNS ||
	    cmd->sc_data_direction == DMA_BIDIRECTIONAL) {
		cmd->result = DID_ERROR << 16;
		scsi_done(cmd);
		return 0;
	}
	n = scsi_dma_map(cmd);
	if (n < 0)
		return SCSI_MLQUEUE_HOST_BUSY;
	memset(ccb, 0, offsetof(pcam_ccb, priv));
	c->nseg = (u16)n;
	c->mapped = n > 0;
	/* A merging IOMMU would make the bus list differ from the CPU list;
	 * then each piece is mapped on its own by plx_dma_map(). */
	if (n > 0 && n != scsi_sg_count(cmd)) {
		scsi_dma_unmap(cmd);
		c->mapped = false;
	}
	scsi_for_each_sg(cmd, sg, scsi_sg_count(cmd), i) {
		c->sg[i].addr = sg_virt(sg);
		c->sg[i].len = sg->length;
	}
	ccb->func = PCAM_FN_SCSI_IO;
	ccb->target = (u8)sdev_id(sdev);
	ccb->lun = (u8)sdev->lun;
	if (h->tagged[ccb->target][ccb->lun]) {
		ccb->flags |= PCAM_CCB_TAGGED;
		io->tag_action = PCAM_TAG_SIMPLE;
	}
	to_ms = jiffies_to_msecs(scsi_cmd_to_rq(cmd)->timeout);
	ccb->timeout_ms = pcam_host_backstop_ms(to_ms);
	ccb->done = plx_io_done;
	ccb->user = cmd;
	memcpy(io->cdb, cmd->cmnd, cmd->cmd_len);
	io->cdb_len = (u8)cmd->cmd_len;
	io->data_len = scsi_bufflen(cmd);
	io->sg = c->sg;
	io->sg_count = (u16)scsi_sg_count(cmd);
	io->dir = io->data_len == 0 ? PCAM_DIR_NONE :
		  cmd->sc_data_direction == DMA_FROM_DEVICE ? PCAM_DIR_IN : PCAM_DIR_OUT;
	io->sense = cmd->sense_buffer;
	io->sense_len = SCSI_SENSE_BUFFERSIZE;
	io->retries = PCAM_HOST_RETRIES; /* the midlayer retries */

	spin_lock_irqsave(&h->lock, flags);
	list_add_tail(&c->node, &h->inflight);
	c->in_core = true;
	h->submitted++;
	pcam_action(&h->bus, ccb);
	plx_arm_timer(h);
	spin_unlock_irqrestore(&h->lock, flags);
	return 0;
}

static int plx_init_cmd_priv(struct Scsi_Host *sh, struct scsi_cmnd *cmd)
{
	memset(scsi_cmd_priv(cmd), 0, sizeof(struct plx_cmd));
	return 0;
}

/* ---------------------------------------------------------------- devices */

static bool plx_get_dev(struct plx_host *h, u8 t, u8 l, pcam_dev *out)
{
	pcam_ccb ccb = { .func = PCAM_FN_GET_DEV, .target = t, .lun = l };
	unsigned long flags;
	u32 st;

	ccb.done = plx_nop_done;
	spin_lock_irqsave(&h->lock, flags);
	st = plx_sync_action(h, &ccb);
	spin_unlock_irqrestore(&h->lock, flags);
	*out = ccb.u.dev;
	return (st & PCAM_STATUS_MASK) == PCAM_REQ_CMP && out->present;
}

static pcam_ccb *plx_mgmt_get(struct plx_host *h, int slot, u8 func);
static u32 plx_mgmt(struct plx_host *h, int slot, unsigned int wait_ms);
static unsigned int plx_eh_wait_ms(struct plx_host *h);

/*
 * Linux only sees logical units the core's scan found. A path the core does
 * not know (a disk added after attach, found by a host rescan through
 * /sys/class/scsi_host/hostN/scan) is first probed by the core itself
 * (PCAM_FN_SCAN_LUN), which then knows it as it knows the ones found at
 * attach; without that a rescan could never find a new disk.
 */
static int plx_slave_alloc(struct scsi_device *sdev)
{
	struct plx_host *h = shost_priv(sdev->host);
	u8 t = (u8)sdev_id(sdev), l = (u8)sdev->lun;
	pcam_ccb *scan;
	pcam_dev d;

	if (sdev->lun >= PLX_LUNS)
		return -ENXIO;
	if (plx_get_dev(h, t, l, &d))
		return 0;
	mutex_lock(&h->eh_mutex);
	scan = plx_mgmt_get(h, PLX_M_BUS, PCAM_FN_SCAN_LUN);
	if (scan) {
		scan->target = t;
		scan->lun = l;
		plx_mgmt(h, PLX_M_BUS, plx_eh_wait_ms(h));
	}
	mutex_unlock(&h->eh_mutex);
	return plx_get_dev(h, t, l, &d) ? 0 : -ENXIO;
}

static int plx_change_queue_depth(struct scsi_device *sdev, int depth)
{
	struct plx_host *h = shost_priv(sdev->host);
	u8 t = (u8)sdev_id(sdev), l = (u8)sdev->lun;
	pcam_ccb ccb = { .func = PCAM_FN_REL_QUEUE, .target = t, .lun = l };
	unsigned long flags;

	depth = pcam_host_queue_depth(&h->bus, h->tagged[t][l], depth);
	if (!h->tagged[t][l])
		return scsi_change_queue_depth(sdev, depth);
	/* count 1 with no freeze of ours held drops nothing; openings sets
	 * the core's depth for the LUN. */
	ccb.u.relq.count = 1;
	ccb.u.relq.openings = (u32)depth;
	ccb.done = plx_nop_done;
	spin_lock_irqsave(&h->lock, flags);
	plx_sync_action(h, &ccb);
	spin_unlock_irqrestore(&h->lock, flags);
	return scsi_change_queue_depth(sdev, depth);
}

static int plx_slave_configure(struct scsi_device *sdev)
{
	struct plx_host *h = shost_priv(sdev->host);
	u8 t = (u8)sdev_id(sdev), l = (u8)sdev->lun;
	unsigned long flags;
	bool tag;

	/* Tags when Linux read CmdQue, the core runs the LUN tagged, and the
	 * user allows them; the core still drops them for a target that
	 * rejects the tag message. */
	spin_lock_irqsave(&h->lock, flags);
	tag = pcam_lun_tagged(&h->bus, t, l);
	spin_unlock_irqrestore(&h->lock, flags);
	tag = tag && plx_param_tags && sdev->tagged_supported;
	h->tagged[t][l] = tag;
	sdev->simple_tags = tag;
	plx_change_queue_depth(sdev, h->bus.cfg.tag_depth);
	return 0;
}

static void plx_slave_destroy(struct scsi_device *sdev)
{
	struct plx_host *h = shost_priv(sdev->host);

	if (sdev->lun < PLX_LUNS)
		h->tagged[sdev_id(sdev)][sdev->lun] = false;
}

/* ---------------------------------------------------------------- management */

static void plx_mgmt_done(pcam_ccb *ccb)
{
	struct plx_host *h = ccb->user;

	container_of(ccb, struct plx_mgmt, ccb)->done = true;
	wake_up_all(&h->wq);
}

/* The CCB of an earlier handler that gave up may still be in the core. */
static bool plx_mgmt_free(struct plx_host *h, int slot)
{
	return h->mgmt[slot].ccb.priv.state == 0 || READ_ONCE(h->mgmt[slot].done);
}

/* Prepare slot's CCB for func, or NULL while the core still owns it. */
static pcam_ccb *plx_mgmt_get(struct plx_host *h, int slot, u8 func)
{
	pcam_ccb *ccb = &h->mgmt[slot].ccb;

	if (!plx_mgmt_free(h, slot))
		return NULL;
	memset(ccb, 0, sizeof(*ccb));
	ccb->func = func;
	return ccb;
}

/* Run a slot's CCB (filled by the caller) and wait for it; eh_mutex held.
 * Returns its status, or 0xFFFFFFFF if the core did not finish in time (the
 * CCB then stays owned by the core until it does). */
static u32 plx_mgmt(struct plx_host *h, int slot, unsigned int wait_ms)
{
	struct plx_mgmt *m = &h->mgmt[slot];
	unsigned long flags;

	m->ccb.user = h;
	m->ccb.done = plx_mgmt_done;
	spin_lock_irqsave(&h->lock, flags);
	m->done = false;
	pcam_action(&h->bus, &m->ccb);
	plx_arm_timer(h);
	spin_unlock_irqrestore(&h->lock, flags);
	if (!wait_event_timeout(h->wq, READ_ONCE(m->done), msecs_to_jiffies(wait_ms)))
		return 0xFFFFFFFFu;
	return m->ccb.status;
}

/* How long a handler waits: every rung of the core's ladder plus a settle. */
static unsigned int plx_eh_wait_ms(struct plx_host *h)
{
	return pcam_host_recovery_wait_ms(&h->bus);
}

static bool plx_in_core(struct plx_host *h, int target)
{
	struct plx_cmd *c;
	unsigned long flags;
	bool any = false;

	spin_lock_irqsave(&h->lock, flags);
	list_for_each_entry(c, &h->inflight, node)
		if (target < 0 || c->ccb.target == target)
			any = true;
	spin_unlock_irqrestore(&h->lock, flags);
	return any;
}

/*
 * After a reset the midlayer owns every command it had outstanding there;
 * the core requeued the bystanders, so take them back out (abort of a
 * queued CCB completes it at once) and wait until none is left.
 */
static bool plx_drain(struct plx_host *h, int target)
{
	struct plx_cmd *c;
	unsigned long flags;
	bool again;

	spin_lock_irqsave(&h->lock, flags);
	list_for_each_entry(c, &h->inflight, node)
		c->drained = false;
	do {
		again = false;
		list_for_each_entry(c, &h->inflight, node) {
			pcam_ccb ab = { .func = PCAM_FN_ABORT, .done = plx_nop_done };

			if (c->drained || (target >= 0 && c->ccb.target != target))
				continue;
			c->drained = true;
			ab.u.abort.victim = &c->ccb;
			plx_sync_action(h, &ab);
			again = true; /* the list may have changed: walk it again */
			break;
		}
	} while (again);
	plx_arm_timer(h);
	spin_unlock_irqrestore(&h->lock, flags);
	return wait_event_timeout(h->wq, !plx_in_core(h, target),
				  msecs_to_jiffies(plx_eh_wait_ms(h))) != 0;
}

static int plx_eh_abort(struct scsi_cmnd *cmd)
{
	struct plx_host *h = shost_priv(cmd->device->host);
	struct plx_cmd *c = scsi_cmd_priv(cmd);
	unsigned long flags;
	pcam_ccb *ab;
	bool gone;
	u32 st;

	mutex_lock(&h->eh_mutex);
	spin_lock_irqsave(&h->lock, flags);
	gone = !c->in_core;
	spin_unlock_irqrestore(&h->lock, flags);
	ab = gone ? NULL : plx_mgmt_get(h, PLX_M_ABORT, PCAM_FN_ABORT);
	if (ab) {
		scmd_printk(KERN_WARNING, cmd, "pcam: eh_abort: asking the core\n");
		ab->u.abort.victim = &c->ccb;
		st = plx_mgmt(h, PLX_M_ABORT, plx_eh_wait_ms(h));
		scmd_printk(KERN_WARNING, cmd, "pcam: abort requested: %s\n",
			    st == 0xFFFFFFFFu ? "no answer" : pcam_status_name(st));
		gone = wait_event_timeout(h->wq, !READ_ONCE(c->in_core),
					  msecs_to_jiffies(plx_eh_wait_ms(h))) != 0;
	}
	mutex_unlock(&h->eh_mutex);
	scmd_printk(KERN_WARNING, cmd, "pcam: eh_abort %s\n", gone ? "SUCCESS" : "FAILED");
	return gone ? SUCCESS : FAILED;
}

/* func: PCAM_FN_RESET_DEV or PCAM_FN_RESET_BUS; target -1 = whole bus. */
static int plx_eh_reset(struct scsi_cmnd *cmd, u8 func, int target, const char *what)
{
	struct plx_host *h = shost_priv(cmd->device->host);
	int slot = func == PCAM_FN_RESET_DEV ? PLX_M_DEV : PLX_M_BUS;
	bool ok = false;
	u32 st = 0xFFFFFFFFu;
	pcam_ccb *r;

	mutex_lock(&h->eh_mutex);
	r = plx_mgmt_get(h, slot, func);
	if (r) {
		shost_printk(KERN_WARNING, h->shost, "pcam: %s: asking the core\n", what);
		r->target = (u8)sdev_id(cmd->device);
		r->lun = (u8)cmd->device->lun;
		st = plx_mgmt(h, slot, plx_eh_wait_ms(h));
		ok = (st & PCAM_STATUS_MASK) == PCAM_REQ_CMP;
		/* Inside Linux's error handler every command still out is the
		 * handler's; from an ioctl (sg_reset) the others are live I/O the
		 * core requeued, and they run again. scsi_host_in_recovery()
		 * alone cannot tell: the ioctl sets tmf_in_progress, which it
		 * counts as recovery (draining there failed other disks' live
		 * reads with DID_ABORT under sg_reset -b). */
		if (ok && cmd->submitter != SUBMITTED_BY_SCSI_RESET_IOCTL &&
		    scsi_host_in_recovery(h->shost))
			ok = plx_drain(h, target);
	}
	mutex_unlock(&h->eh_mutex);
	shost_printk(KERN_WARNING, h->shost, "pcam: %s: %s -> %s\n", what,
		     st == 0xFFFFFFFFu ? "no answer" : pcam_status_name(st),
		     ok ? "SUCCESS" : "FAILED");
	return ok ? SUCCESS : FAILED;
}

static int plx_eh_device_reset(struct scsi_cmnd *cmd)
{
	return plx_eh_reset(cmd, PCAM_FN_RESET_DEV, sdev_id(cmd->device), "device reset");
}

static int plx_eh_bus_reset(struct scsi_cmnd *cmd)
{
	return plx_eh_reset(cmd, PCAM_FN_RESET_BUS, -1, "bus reset");
}

/* The core has no separate host reset: its bus reset escalates to a chip
 * reset by itself when the bus reset does not finish. */
static int plx_eh_host_reset(struct scsi_cmnd *cmd)
{
	return plx_eh_reset(cmd, PCAM_FN_RESET_BUS, -1, "host reset (bus reset, chip reset if needed)");
}

/* ---------------------------------------------------------------- host */

static struct scsi_transport_template *plx_spi_tt;

static struct scsi_host_template plx_template = {
	.module = THIS_MODULE,
	.name = PLX_NAME,
	.proc_name = PLX_NAME,
	.queuecommand = plx_queuecommand,
	.init_cmd_priv = plx_init_cmd_priv,
	.slave_alloc = plx_slave_alloc,
	.slave_configure = plx_slave_configure,
	.slave_destroy = plx_slave_destroy,
	.change_queue_depth = plx_change_queue_depth,
	.eh_abort_handler = plx_eh_abort,
	.eh_device_reset_handler = plx_eh_device_reset,
	.eh_bus_reset_handler = plx_eh_bus_reset,
	.eh_host_reset_handler = plx_eh_host_reset,
	.shost_groups = plx_host_groups,
	.can_queue = 64,
	.cmd_per_lun = PCAM_HOST_UNTAGGED_DEPTH,
	.this_id = 7,
	.sg_tablesize = PLX_SG,
	.max_sectors = 1024,
	/* Physically contiguous pages merge into one segment, as with the
	 * block layer's default that Linux's own drivers keep: each segment
	 * is one DMA run on the AM53C974 (no scatter-gather in its engine),
	 * so a 64 KiB write from a contiguous buffer is one run, not 16. */
	.max_segment_size = SZ_64K,
	.cmd_size = sizeof(struct plx_cmd),
	/* The core settles the bus after every reset itself
	 * (pcam_bus_config::reset_settle_ms, holding new commands meanwhile):
	 * the midlayer's own 10 s sleep on top would be a second policy. */
	.skip_settle_delay = 1,
};

static void plx_config(pcam_bus_config *cfg)
{
	pcam_bus_config_defaults(cfg);
	cfg->luns_per_target = PLX_LUNS;
	if (plx_param_depth)
		cfg->tag_depth = (u16)plx_param_depth;
	if (plx_param_max_depth)
		cfg->tag_depth_max = (u16)plx_param_max_depth;
	if (cfg->tag_depth > cfg->tag_depth_max)
		cfg->tag_depth = cfg->tag_depth_max;
	if (plx_param_aging >= 0)
		cfg->aging_enabled = plx_param_aging != 0;
	if (plx_param_age_ms)
		cfg->age_ms = plx_param_age_ms;
}

/* The core's scan, then each logical unit it found goes to Linux. */
static int plx_scan(struct plx_host *h)
{
	unsigned int t, l;
	pcam_dev d;
	u32 st;

	mutex_lock(&h->eh_mutex);
	plx_mgmt_get(h, PLX_M_BUS, PCAM_FN_SCAN_BUS); /* free: nothing ran yet */
	st = plx_mgmt(h, PLX_M_BUS, 120000);
	mutex_unlock(&h->eh_mutex);
	if ((st & PCAM_STATUS_MASK) != PCAM_REQ_CMP) {
		dev_err(&h->pdev->dev, "bus scan failed: %s\n",
			st == 0xFFFFFFFFu ? "no answer" : pcam_status_name(st));
		return -EIO;
	}
	for (t = 0; t < h->shost->max_id; t++)
		for (l = 0; l < PLX_LUNS; l++)
			if (t != h->shost->this_id && plx_get_dev(h, (u8)t, (u8)l, &d))
				scsi_add_device(h->shost, 0, t, l);
	return 0;
}

static void plx_user_limits(struct plx_host *h)
{
	unsigned int t;

	for (t = 0; t < h->shost->max_id; t++) {
		pcam_ccb ccb = { .func = PCAM_FN_GET_TRAN, .target = (u8)t };
		unsigned long flags;

		if (t == h->shost->this_id)
			continue;
		ccb.done = plx_nop_done;
		ccb.u.tran.type = PCAM_TRAN_USER;
		spin_lock_irqsave(&h->lock, flags);
		plx_sync_action(h, &ccb);
		if (h->nvram.valid && t < PCAM_DC390_TARGETS)
			ccb.u.tran.settings = h->nvram.target[t].limits;
		if (plx_param_sync_period && ccb.u.tran.settings.period < plx_param_sync_period)
			ccb.u.tran.settings.period = (u8)plx_param_sync_period;
		if (plx_param_sync_offset >= 0 && ccb.u.tran.settings.offset > plx_param_sync_offset)
			ccb.u.tran.settings.offset = (u8)plx_param_sync_offset;
		ccb.func = PCAM_FN_SET_TRAN;
		plx_sync_action(h, &ccb);
		spin_unlock_irqrestore(&h->lock, flags);
	}
}

static int plx_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct Scsi_Host *sh;
	struct plx_host *h;
	pcam_bus_config cfg;
	pcam_hal_caps caps;
	int rc;

	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	pci_set_master(pdev);
	rc = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (rc)
		return rc;
	sh = scsi_host_alloc(&plx_template, sizeof(*h));
	if (!sh)
		return -ENOMEM;
	h = shost_priv(sh);
	h->shost = sh;
	h->pdev = pdev;
	h->chip = &plx_chips[id->driver_data];
	spin_lock_init(&h->lock);
	mutex_init(&h->eh_mutex);
	init_waitqueue_head(&h->wq);
	INIT_LIST_HEAD(&h->inflight);
	h->armed = U64_MAX;
	hrtimer_init(&h->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	h->timer.function = plx_timer_fn;
	h->plat = (pcam_platform){ .ctx = h, .now_ns = plx_now, .log = plx_log,
		.read8 = plx_rd8, .read16 = plx_rd16, .read32 = plx_rd32,
		.write8 = plx_wr8, .write16 = plx_wr16, .write32 = plx_wr32,
		.dma_map = plx_dma_map, .dma_unmap = plx_dma_unmap, .delay_us = plx_delay };
	rc = h->chip->attach(h);
	if (rc)
		goto free;
	plx_config(&cfg);
	pcam_dc390_apply(&h->nvram, NULL, &cfg); /* a DC-390's tag count */
	h->hal.ops->get_caps(h->hal.sc, &caps);
	if (pcam_bus_init(&h->bus, &cfg, &h->hal, &h->plat, h->luns,
			  PCAM_BUS_LUNS(caps.max_targets, cfg.luns_per_target)) != PCAM_OK) {
		rc = -EINVAL;
		goto stop;
	}
	/* Queue limits from the chip's capabilities, capped by our SG array. */
	sh->sg_tablesize = min_t(u32, PLX_SG, caps.max_sg);
	sh->max_sectors = min_t(u32, plx_template.max_sectors, caps.max_xfer / 512);
	sh->max_id = caps.max_targets;
	sh->max_lun = PLX_LUNS;
	/* The core takes CDBs up to PCAM_CDB_BYTES; left at the midlayer's
	 * default of 12, READ CAPACITY(16) and READ/WRITE(16) never reach it
	 * and a disk over 2 TiB cannot be used. */
	sh->max_cmd_len = PCAM_CDB_BYTES;
	sh->max_channel = 0;
	sh->this_id = caps.initiator_id;
	sh->irq = pdev->irq;
	sh->transportt = plx_spi_tt;
	plx_user_limits(h);
	pci_set_drvdata(pdev, h);
	rc = request_irq(pdev->irq, plx_irq, IRQF_SHARED, PLX_NAME, h);
	if (rc)
		goto shut;
	rc = scsi_add_host(sh, &pdev->dev);
	if (rc)
		goto irq;
	dev_info(&pdev->dev, "pcam %s, irq %d, tags %s\n", caps.name, pdev->irq,
		 plx_param_tags ? "allowed" : "off");
	if (plx_scan(h) != 0)
		dev_warn(&pdev->dev, "no devices added\n");
	return 0;
irq:
	free_irq(pdev->irq, h);
shut:
	pcam_bus_shutdown(&h->bus);
stop:
	h->chip->stop(h);
free:
	hrtimer_cancel(&h->timer);
	scsi_host_put(sh);
	return rc;
}

/*
 * rmmod / unbind: the midlayer first drains what it queued (sd writes back
 * and syncs) while the bus still runs; then the core's shutdown completes
 * whatever is left exactly once (as aborted) and resets the chip.
 */
static void plx_remove(struct pci_dev *pdev)
{
	struct plx_host *h = pci_get_drvdata(pdev);
	unsigned long flags;

	scsi_remove_host(h->shost);
	spin_lock_irqsave(&h->lock, flags);
	pcam_bus_shutdown(&h->bus);
	h->dying = true;
	spin_unlock_irqrestore(&h->lock, flags);
	hrtimer_cancel(&h->timer);
	free_irq(pdev->irq, h);
	h->chip->stop(h); /* before the managed DMA area goes with the device */
	h->chip->report(h);
	dev_info(&pdev->dev, "pcam: bus shut down, chip reset, %llu commands in, %llu completed, %s\n",
		 h->submitted, h->completed,
		 list_empty(&h->inflight) ? "no command left" : "COMMANDS LEFT");
	scsi_host_put(h->shost);
}

static struct pci_driver plx_driver = {
	.name = PLX_NAME,
	.id_table = plx_ids,
	.probe = plx_probe,
	.remove = plx_remove,
};

static int __init plx_init(void)
{
	int rc;

	plx_spi_tt = plx_spi_attach();
	if (!plx_spi_tt)
		return -ENODEV;
	rc = pci_register_driver(&plx_driver);
	if (rc)
		plx_spi_release(plx_spi_tt);
	return rc;
}

static void __exit plx_exit(void)
{
	pci_unregister_driver(&plx_driver);
	plx_spi_release(plx_spi_tt);
}

module_init(plx_init);
module_exit(plx_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(PCAM_VERSION_STRING);
MODULE_DESCRIPTION("pcam portable SCSI core on the AMD AM53C974 (hal/esp) and the 53C8xx SCRIPTS family (hal/sym)");
