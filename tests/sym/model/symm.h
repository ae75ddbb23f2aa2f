/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A SCRIPTS-level model of a 53C8xx (53C895A-like: wide, LOAD/STORE) on
 * hal/sim's bus and targets, for testing hal/sym where QEMU's model cannot
 * go (negotiation answers, wide, parity, LUNs above 0, ORDERED and HEAD OF
 * QUEUE, QUEUE FULL, deaf targets). It has the registers hal/sym uses, a
 * bus-addressed memory arena (the DMA area and bounce buffers), and an
 * interpreter for the SCRIPTS instructions: block moves (absolute and
 * table indirect) with phase mismatch, SELECT, WAIT DISCONNECT, WAIT
 * RESELECT, SET/CLEAR ATN/ACK, register moves, jumps/calls/returns with
 * phase and data compares, INT and INTFLY, LOAD/STORE. Bus actions go
 * through the pcam_sim_i_*() initiator interface. Every misuse it can see
 * is recorded (symm_errors()) rather than ignored. Host-side test code:
 * it uses the C library freely.
 */
#ifndef SYMM_H
#define SYMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_platform.h"
#include "pcam_sim.h"

typedef struct symm symm;

/* Create on @p sim (16 IDs, initiator 7); NULL on bad arguments. */
symm *symm_create(pcam_sim *sim, uint32_t sclk_khz);
void symm_destroy(symm *m);

/* Platform services: registers at symm_base(), dma_map into the arena. */
void symm_get_platform(symm *m, pcam_platform *out);
uintptr_t symm_base(const symm *m);
/* Memory in the arena for hal/sym's DMA area: host pointer and bus address. */
void *symm_alloc(symm *m, size_t len, uint64_t *bus);

bool symm_irq(const symm *m);
uint64_t symm_next_time(const symm *m);
void symm_advance(symm *m, uint64_t t);

typedef struct symm_stats {
    uint64_t insns, reg_reads, reg_writes, selections, reselections, int_stops, intfly;
} symm_stats;
void symm_stats_get(const symm *m, symm_stats *out);

uint64_t symm_errors(const symm *m);
const char *symm_last_error(const symm *m);
unsigned symm_live_maps(const symm *m);
void symm_set_verbose(symm *m, bool on);

#endif /* SYMM_H */
