/* SPDX-License-Identifier: BSD-2-Clause */
/* Uses pcam::core / pcam-core from an install: a codec and the bus setup.
 * Expected values are from the headers' documentation (defaults) and SBC
 * (READ(10) is opcode 28h with the LBA in bytes 2-5). */
#include <stdio.h>
#include <string.h>
#include "pcam/pcam.h"
#include "pcam/pcam_cdb.h"

int main(void)
{
    pcam_bus_config cfg;
    uint8_t cdb[16];
    pcam_bus_config_defaults(&cfg);
    int n = pcam_cdb_read(cdb, sizeof cdb, 10, 0x01020304u, 8, 0);
    if (n != 10 || cdb[0] != 0x28 || cdb[2] != 1 || cdb[5] != 4 || cdb[8] != 8 ||
        cfg.default_timeout_ms != 10000 || strcmp(pcam_status_name(PCAM_SEL_TIMEOUT), "SEL_TIMEOUT") != 0) {
        fprintf(stderr, "consumer_core: unexpected result (n %d)\n", n);
        return 1;
    }
    puts("consumer_core: pcam-core works from the install");
    return 0;
}
