/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamtest's shared declarations: the bad-packet and random-packet cases
 * live in pt_cases.c, the rest in pcamtest.c. Test code only.
 */
#ifndef PCAM_PCAMTEST_H
#define PCAM_PCAMTEST_H

#include "pt_util.h"

/* The disks tests/uefi attaches to either controller. */
#define T_FAT 0      /* target 0 LUN 0: the FAT disk ScsiDisk mounts */
#define T_PAT 2      /* target 2 LUN 0: pattern disk, throttled from the monitor */
#define T_CD 4       /* target 4: scsi-cd without medium */
#define T_BIG 3      /* target 3 LUN 0: a 3 TiB sparse disk (16-byte CDBs only) */
#define INITIATOR 7

/* What differs between the controllers the boot test runs on (pcamtest's
 * first arguments "-c esp" or "-c lsi"): which pass-thru to use, the
 * chip's ID count, where the small pattern disk sits (QEMU's lsi53c895a has
 * no LUNs above 0), a BAR0 register that shows the chip at work, and
 * whether the model takes tags. */
typedef struct chip_profile {
    const CHAR16 *name;
    UINT16 vendor, device;
    UINT8 ntargets;
    UINT8 pat1_target, pat1_lun;
    UINT8 busy_reg, busy_mask;
    BOOLEAN tags; /* the model queues tagged commands (pcamtest tagged) */
} chip_profile;
extern const chip_profile *g_chip;

int cases_bad(PCAM_EXT_SCSI_PASS_THRU *pt);
int cases_random(PCAM_EXT_SCSI_PASS_THRU *pt, UINTN count, UINT32 seed);

#endif /* PCAM_PCAMTEST_H */
