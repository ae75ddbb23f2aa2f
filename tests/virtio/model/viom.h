/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scriptable virtio-scsi device in the platform hooks (viom.c): what
 * hal/virtio's host tests and fuzz_virtio drive it with.
 */
#ifndef VIOM_H
#define VIOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_virtio.h"

/* Register regions as the platform's addresses. */
#define VIOM_COMMON 0x1000u
#define VIOM_NOTIFY 0x2000u
#define VIOM_ISR 0x3000u
#define VIOM_DEVICE 0x4000u
#define VIOM_DMA_BUS 0x20000000u

/* How the bring-up goes: honest; offered features, queue sizes and
 * configuration from the input; a device that never resets; one that
 * refuses FEATURES_OK. */
enum { VIOM_HONEST = 0, VIOM_LIE_CONFIG = 1, VIOM_NEVER_RESETS = 2, VIOM_REFUSES = 3 };
/* Queues. */
enum { VIOM_CTL = 0, VIOM_EVT = 1, VIOM_REQ = 2 };

typedef void (*viom_log_fn)(pcam_log_level lv, const char *line);

/* A fresh device reading its lies from in[0..len); plat gets its hooks,
 * cfg the regions and a DMA area of PCAM_VIRTIO_DMA_BYTES. */
void viom_start(const uint8_t *in, size_t len, uint8_t lie, pcam_platform *plat, pcam_virtio_config *cfg,
                viom_log_fn fn);
void viom_end(void);
uint8_t viom_in8(void);
size_t viom_left(void);
/* The DMA area's host address. */
uint8_t *viom_dma(void);
/* Heads made available and not yet returned on queue q; the k-th (mod count). */
unsigned viom_pending(unsigned q);
uint16_t viom_pending_head(unsigned q, unsigned k);
/* The request named by pending[k] on the request queue: its CDB's first
 * byte and its data direction (0 none, 1 in, 2 out) and length. */
void viom_request(unsigned k, uint8_t *op, int *dir, uint32_t *len);
/* Return request pending[k] (mod count): response code, status, residual,
 * sense bytes claimed (the sense itself is 70h/key 5/24h); data in is
 * filled with the byte `fill`. id < 0 and len < 0 mean the honest ones. */
void viom_complete(unsigned k, uint8_t response, uint8_t status, uint32_t resid, uint32_t sense_len,
                   uint8_t fill, long id, long len);
/* Answer control request pending[k] with response byte resp. */
void viom_ctl_answer(unsigned k, uint8_t resp);
/* Fill an event buffer (the first pending) and return it; false when none is lent. */
bool viom_event(uint32_t event, const uint8_t lun[8], uint32_t reason, long len);
/* Raw lies: a used entry nobody made available, an index moved by n. */
void viom_push_used(unsigned q, uint32_t id, uint32_t len);
void viom_bump_used(unsigned q, uint16_t n);
/* The device sets DEVICE_NEEDS_RESET and raises a configuration interrupt. */
void viom_needs_reset(void);
/* Is the interrupt line (ISR) up. */
bool viom_irq(void);
void viom_advance(uint64_t ns);
/* Data buffers still mapped; device resets seen (status written 0). */
unsigned viom_mapped(void);
unsigned viom_resets(void);
/* A PCI configuration space with the four virtio capabilities, BAR 4. */
void viom_cfgspace(uint8_t cfg[256]);

#endif /* VIOM_H */
