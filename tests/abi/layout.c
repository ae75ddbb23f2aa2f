/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sizes of every caller-allocated type that no entry point checks
 * against the library's (pcam.h, pcam_abi): tests/abi/check.sh builds this
 * with each configuration and requires the same output every time, which
 * is why those entry points need no check. The last line is a type that
 * does change (pcam_bus), to show the build really saw the switches.
 */
#include <stdio.h>

#include "pcam/pcam.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_esp.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_msg.h"
#include "pcam/pcam_sense.h"
#include "pcam/pcam_sym.h"
#include "pcam/pcam_mpt.h"
#include "pcam/pcam_virtio.h"

#define SZ(t) printf("%-22s %zu\n", #t, sizeof(t))

int main(void)
{
    /* Handed to the core with pcam_action() (its size is also in pcam_abi). */
    SZ(pcam_ccb);
    /* Settings and tables the library copies in. */
    SZ(pcam_bus_config);
    SZ(pcam_hal);
    SZ(pcam_hal_caps);
    SZ(pcam_platform);
    SZ(pcam_esp_config);
    SZ(pcam_sym_config);
    SZ(pcam_mpt_config);
    SZ(pcam_virtio_config);
    /* Out-parameters and codec state the library writes. */
    SZ(pcam_counters);
    SZ(pcam_event);
    SZ(pcam_msg_parser);
    SZ(pcam_msg);
    SZ(pcam_sense);
    SZ(pcam_inquiry);
    SZ(pcam_cdb_info);
    SZ(pcam_capacity);
    SZ(pcam_lun_addr);
    SZ(pcam_esp_stats);
    SZ(pcam_sym_stats);
    SZ(pcam_mpt_stats);
    SZ(pcam_mpt_facts);
    SZ(pcam_virtio_stats);
    SZ(pcam_virtio_facts);
    SZ(pcam_virtio_caps);
    /* The back-ends' storage (checked by size at attach all the same). */
    SZ(pcam_esp);
    SZ(pcam_sym);
    SZ(pcam_mpt);
    SZ(pcam_virtio);
    printf("changes: sizeof(pcam_bus) %zu\n", sizeof(pcam_bus));
    return 0;
}
