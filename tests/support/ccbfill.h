/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one way the test rigs fill a SCSI I/O CCB (simrig's rig_ccb_io,
 * chiprig's chiprig_io, the iowork workload), so a field the CCB gains is
 * set in one place. Clears the CCB first; touches nothing around it.
 */
#ifndef PCAM_CCBFILL_H
#define PCAM_CCBFILL_H

#include <stdint.h>
#include <string.h>

#include "pcam/pcam.h"

static inline void ccbfill_io(pcam_ccb *c, uint8_t target, uint8_t lun, const uint8_t *cdb,
                              uint8_t cdb_len, pcam_dir dir, void *data, uint32_t len)
{
    memset(c, 0, sizeof *c);
    c->func = PCAM_FN_SCSI_IO;
    c->target = target;
    c->lun = lun;
    memcpy(c->u.io.cdb, cdb, cdb_len);
    c->u.io.cdb_len = cdb_len;
    c->u.io.dir = dir;
    c->u.io.data = data;
    c->u.io.data_len = len;
    c->u.io.retries = 4;
}

#endif /* PCAM_CCBFILL_H */
