/* SPDX-License-Identifier: BSD-2-Clause */
/* Uses pcam::aspi / pcam-aspi from an install, with wnaspi32.h included by
 * its own name as ASPI programs do. A selection timeout is SS_NO_DEVICE with
 * HASTAT_SEL_TO (0x11): the device is not there, and libscg-style callers
 * must not retry it (docs/aspi.md, "An empty ID, and a device that went away"). */
#include <stdio.h>
#include "pcam/pcam_aspi.h"
#include "wnaspi32.h"

int main(void)
{
    uint8_t ss = 0, ha = 0;
    pcam_aspi_map_status(PCAM_SEL_TIMEOUT, &ss, &ha);
    if (ss != SS_NO_DEVICE || ha != 0x11) {
        fprintf(stderr, "consumer_aspi: SEL_TIMEOUT -> SS %02x HASTAT %02x\n", ss, ha);
        return 1;
    }
    puts("consumer_aspi: pcam-aspi works from the install");
    return 0;
}
