/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamtest's shared declarations: the bad-packet and random-packet cases
 * live in pt_cases.c, the rest in pcamtest.c. Test code only.
 */
#ifndef PCAM_PCAMTEST_H
#define PCAM_PCAMTEST_H

#include "pt_util.h"

/* The disks tests/uefi attaches to the AM53C974. */
#define T_FAT 0      /* target 0 LUN 0: the FAT disk ScsiDisk mounts */
#define T_PAT 2      /* target 2 LUN 0: pattern disk behind blkdebug */
#define T_CD 4       /* target 4: scsi-cd without medium */
#define INITIATOR 7

int cases_bad(PCAM_EXT_SCSI_PASS_THRU *pt);
int cases_random(PCAM_EXT_SCSI_PASS_THRU *pt, UINTN count, UINT32 seed);

#endif /* PCAM_PCAMTEST_H */
