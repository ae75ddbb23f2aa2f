/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Linux shim's private state, shared by its files: one pcam bus on one
 * chip (an AM53C974 on hal/esp, or a 53C8xx on hal/sym) per SCSI host. The
 * shim only translates between the SCSI midlayer and the CCB API; every policy (queueing, tags, negotiation,
 * recovery) stays in core/. Never call into the core without h->lock.
 */
#ifndef PCAM_LX_H
#define PCAM_LX_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_host.h>

/* pcam_bus_storage.h has a field named "current", which is a macro in
 * kernel code; the glue never touches that field. */
#pragma push_macro("current")
#undef current
#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "pcam/pcam_sym.h"
#include "pcam/pcam_mpt.h"
#pragma pop_macro("current")

#define PLX_NAME "pcam"
/* Scatter-gather elements per command, before the chip's own limit. */
#define PLX_SG 128
/* dma_map_single() mappings out at once (sense and the core's own buffers;
 * hal/sym can have several commands' ones outstanding). */
#define PLX_SINGLES 8
#define PLX_LUNS 8
enum { PLX_M_ABORT, PLX_M_DEV, PLX_M_BUS };

/* Per-command private data (scsi_cmd_priv). */
struct plx_cmd {
	pcam_ccb ccb;
	struct list_head node;	/* on plx_host::inflight while the core owns ccb */
	bool in_core;
	bool mapped;		/* sg[] is scsi_dma_map()'s list, one to one */
	bool drained;		/* plx_drain() asked the core to abort it */
	u16 nseg;
	pcam_sg sg[PLX_SG];
};

struct plx_host {
	struct Scsi_Host *shost;
	struct pci_dev *pdev;
	void __iomem *regs;
	spinlock_t lock;	/* the bus lock: held around every core entry */
	struct mutex eh_mutex;	/* one management request of ours at a time */
	wait_queue_head_t wq;	/* management and EH waits */
	struct hrtimer timer;
	u64 armed;		/* expiry of the armed timer, U64_MAX = none */
	struct list_head inflight;
	struct plx_cmd *last_hit;	/* dma_map lookup cache */
	struct plx_single {
		dma_addr_t addr;
		size_t len;
		enum dma_data_direction dir;
		bool used;
	} single[PLX_SINGLES];
	const struct plx_chip *chip;
	bool dying;
	u64 submitted, completed;	/* SCSI I/O CCBs handed to / back from the core */
	/* One management CCB per rung, so a step the core has not finished
	 * (its CCB still owned by the core) never blocks the next rung. */
	struct plx_mgmt {
		pcam_ccb ccb;
		bool done;
	} mgmt[3];		/* PLX_M_*, used under eh_mutex */
	bool tagged[PCAM_MAX_TARGETS][PLX_LUNS];
	pcam_platform plat;
	pcam_hal hal;
	pcam_dc390_settings nvram;	/* a DC-390's EEPROM; valid false: none */
	union {
		pcam_esp esp;
		pcam_sym sym;
		pcam_mpt mpt;
	} u;			/* the back-end's storage, by chip */
	pcam_lun luns[PCAM_MAX_TARGETS * PLX_LUNS];
	pcam_bus bus;
};

/* pcam_lx_chip.c: what differs per back-end; indexed by pci_device_id's
 * driver_data. attach maps the BAR, sets h->regs and fills h->hal. */
enum { PLX_CHIP_ESP, PLX_CHIP_SYM, PLX_CHIP_MPT };
struct plx_chip {
	const char *name;
	int (*attach)(struct plx_host *h);
	u64 (*interrupts)(struct plx_host *h);	/* chip interrupts decoded so far */
	void (*report)(struct plx_host *h);	/* the back-end's counters, to the log */
	void (*stop)(struct plx_host *h);	/* after the core's shutdown: the chip uses no memory */
	/* dma_map_single() slots the back-end may hold; 1 means it has one DMA
	 * run out at a time, so a new mapping ends the previous one. */
	unsigned int singles;
};
extern const struct plx_chip plx_chips[];
extern const struct pci_device_id plx_ids[];

/* Settings from module parameters (pcam_lx.c). */
extern bool plx_param_tags;

/* The bus lock must be held; arms the timer for the core's next deadline. */
void plx_arm_timer(struct plx_host *h);
/* Run a CCB the core finishes before pcam_action() returns (lock held). */
u32 plx_sync_action(struct plx_host *h, pcam_ccb *ccb);
void plx_nop_done(pcam_ccb *ccb);

/* pcam_lx_stats.c: the host's sysfs attributes (pcam_counters). */
extern const struct attribute_group *plx_host_groups[];

/* pcam_lx_spi.c: the SPI transport class. */
struct scsi_transport_template *plx_spi_attach(void);
void plx_spi_release(struct scsi_transport_template *t);

#endif /* PCAM_LX_H */
