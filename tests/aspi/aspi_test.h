/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared fixture of the ASPI tests: the ASPI manager with one simulated
 * adapter (narrow bus, initiator 7): disks at IDs 0 and 2 (LUN 0, 2048
 * blocks), a CD-ROM without medium at ID 4, nothing elsewhere; and a
 * recorder that counts posting calls per SRB.
 */
#ifndef PCAM_ASPI_TEST_H
#define PCAM_ASPI_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aspi_simhost.h"
#include "wnaspi32.h"

#define DISK_BLOCKS 2048u

/* Build the fixture. sc NULL: defaults with width 8. 0 on success. */
int fix_setup(aspi_simhost *h, const pcam_sim_config *sc, bool threaded, size_t nreqs);
/* The same with the host services given (NULL: the sim host's) and, on
 * a threaded host, notifications on the service thread only. */
int fix_setup_ex(aspi_simhost *h, const pcam_sim_config *sc, const pcam_aspi_host *host,
                 bool threaded, size_t nreqs, bool post_on_service);
void fix_teardown(aspi_simhost *h);

/* The posting routine the tests install, and its per-SRB call count. */
void ASPI_CDECL fix_post(void *srb);
unsigned fix_post_count(const void *srb);
unsigned fix_post_total(void);
void fix_post_reset(void);
/* Put a function into a pointer field (ISO C has no cast for it). */
void fix_set_proc(LPVOID *field, void(ASPI_CDECL *fn)(void *));

/* An exec SRB with room for sense beyond the 16 bytes of SenseArea. */
typedef struct big_exec {
    SRB_ExecSCSICmd srb;
    BYTE more_sense[240];
} big_exec;

void fix_exec(SRB_ExecSCSICmd *s, BYTE ha, BYTE target, BYTE lun, BYTE flags, void *buf,
              DWORD len, const BYTE *cdb, BYTE cdb_len, BYTE sense_len);
/* Read SRB_Status with acquire ordering. */
BYTE fix_status(const SRB_ExecSCSICmd *s);
/* Wait until the status is no longer SS_PENDING: drains a polled host,
 * spins (with yields) on a threaded one. Returns it, 0xFF on a hang. */
BYTE fix_wait(aspi_simhost *h, BYTE *status);

/* Wait until no request of the adapter is in flight (completed and
 * notified). False on a hang. */
bool fix_idle(aspi_simhost *h);

/* True under Valgrind (shorter workloads). */
bool fix_memcheck(void);

#endif /* PCAM_ASPI_TEST_H */
