/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the SCRIPTS-level 53C8xx model (symm.h) and the helpers
 * its two files share: symm.c (memory, registers, platform, API) and
 * symm_exec.c (the SCRIPTS interpreter and the bus events).
 */
#ifndef SYMM_INTERNAL_H
#define SYMM_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symm.h"

#define ARENA_BUS 0x10000000u
#define ARENA_SIZE (16u << 20)
#define MAX_MAPS 512
#define BASE 0xC000u
#define BUDGET 20000u

enum { R_STOP, R_RUN, R_WAIT, R_RESEL };
enum { P_NONE, P_SELECT, P_XFER, P_MSGOUT, P_MSGIN, P_ACCEPT_MV, P_ACCEPT, P_WAITDISC };

typedef struct map {
    uint32_t off, len;
    void *va;
    int dir;
    bool bounce, used;
} map;

struct symm {
    pcam_sim *sim;
    pcam_platform simplat;
    uint32_t sclk_khz;
    uint8_t reg[256];
    uint8_t *arena;
    map maps[MAX_MAPS];
    int run, pend;
    bool sigp, intf, carry;
    /* bus */
    bool connected, held, resel_byte_pending, resel_parity, atn;
    uint8_t target, resel_byte;
    int phase;
    /* the move or select in progress */
    int mv_phase;
    uint32_t mv_count, mv_done, mv_bus;
    bool sel_lazy;
    uint8_t sel_target;
    uint32_t sel_alt;
    uint64_t errors;
    char last[200];
    bool verbose;
    symm_stats st;
};

void symm_err(symm *m, const char *fmt, ...);
uint32_t symm_r32(const symm *m, unsigned r);
void symm_w32(symm *m, unsigned r, uint32_t v);
int32_t symm_sext24(uint32_t v);
uint8_t *symm_mem(symm *m, uint32_t bus, uint32_t len);
void symm_scsi_int(symm *m, uint8_t s0, uint8_t s1);
void symm_dma_int(symm *m, uint8_t d);
void symm_apply_xfer(symm *m, uint8_t target);
uint8_t symm_reg_read(symm *m, unsigned r, bool host);
void symm_reg_write(symm *m, unsigned r, uint8_t v, bool host);
void symm_run_script(symm *m);
void symm_poll_bus(symm *m);


#endif /* SYMM_INTERNAL_H */
