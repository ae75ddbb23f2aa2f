/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcam.ko's counters as one read-only host attribute,
 * /sys/class/scsi_host/hostN/pcam_counters: the CCBs the shim handed to the
 * core and got back, those the core still owns, and the core's own
 * per-target counters (pcam_bus_get_counters()) for every target that has
 * seen a command. Tests and users compare them with the block layer's
 * counts (every request completes exactly once).
 *
 * It only reads: it never changes the core's state or resets a counter.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "pcam_lx.h"

static ssize_t pcam_counters_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct plx_host *h = shost_priv(class_to_shost(dev));
	struct plx_cmd *c;
	pcam_counters k;
	unsigned long flags;
	unsigned int t, owned = 0;
	ssize_t n;

	spin_lock_irqsave(&h->lock, flags);
	list_for_each_entry(c, &h->inflight, node)
		owned++;
	n = sysfs_emit(buf, "submitted %llu completed %llu in_core %u\n",
		       h->submitted, h->completed, owned);
	for (t = 0; t < PCAM_MAX_TARGETS; t++) {
		if (pcam_bus_get_counters(&h->bus, (uint8_t)t, &k) != PCAM_OK || k.commands == 0)
			continue;
		n += sysfs_emit_at(buf, n, "target %u commands %u errors %u check_conditions %u "
				   "timeouts %u aborts %u resets %u retries %u requeues %u\n",
				   t, k.commands, k.errors, k.check_conditions, k.timeouts,
				   k.aborts, k.resets, k.retries, k.requeues);
	}
	spin_unlock_irqrestore(&h->lock, flags);
	return n;
}
static DEVICE_ATTR_RO(pcam_counters);

static struct attribute *plx_host_attrs[] = {
	&dev_attr_pcam_counters.attr,
	NULL,
};

static const struct attribute_group plx_host_group = {
	.attrs = plx_host_attrs,
};

const struct attribute_group *plx_host_groups[] = {
	&plx_host_group,
	NULL,
};
