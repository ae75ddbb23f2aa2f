/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A scriptable Fusion-MPT IOC in the platform hooks (mptm.c): what hal/mpt's
 * host tests and fuzz_mpt drive it with.
 */
#ifndef MPTM_H
#define MPTM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_mpt.h"

#define MPTM_DMA_BUS 0x10000000u
#define MPTM_READY 0x10000000u
#define MPTM_OPERATIONAL 0x20000000u
#define MPTM_FAULT 0x40000000u

/* How the bring-up goes: honest, facts rewritten from the input, never
 * ready, a handshake the IOC never takes. */
enum { MPTM_HONEST = 0, MPTM_LIE_FACTS = 1, MPTM_NEVER_READY = 2, MPTM_STALL = 3 };

typedef void (*mptm_log_fn)(pcam_log_level lv, const char *line);

/* A fresh IOC reading its lies from in[0..len); plat gets its hooks. */
void mptm_start(const uint8_t *in, size_t len, uint8_t lie, pcam_platform *plat, mptm_log_fn fn);
void mptm_end(void);
/* The next byte of the input (0 when it ran out), and how many are left. */
uint8_t mptm_in8(void);
size_t mptm_left(void);
/* The DMA area (PCAM_MPT_DMA_BYTES at MPTM_DMA_BUS), and len bytes at a bus address in it or NULL. */
uint8_t *mptm_dma(void);
uint8_t *mptm_at(uint32_t bus, size_t len);
/* Requests posted so far; the context and function of the k-th (mod count). */
unsigned mptm_nposted(void);
uint32_t mptm_posted_ctx(unsigned k, uint8_t *func);
/* The k-th request posted (128 bytes), or NULL; the host memory behind a
 * data buffer's bus address (one of the last 16 mappings), or NULL. */
const uint8_t *mptm_posted_frame(unsigned k);
void *mptm_mapped(uint64_t bus, size_t len);
/* The next reply frame the host lent (0: none), and how many it holds. */
uint32_t mptm_take_free(void);
unsigned mptm_free_count(void);
/* Put a word in the reply FIFO; is one waiting. */
void mptm_push(uint32_t w);
bool mptm_pending(void);
void mptm_set_state(uint32_t state);
uint32_t mptm_state(void);
void mptm_advance(uint64_t ns);
void mptm_put16(uint8_t *p, uint16_t v);
void mptm_put32(uint8_t *p, uint32_t v);
uint32_t mptm_get32(const uint8_t *p);

#endif /* MPTM_H */
