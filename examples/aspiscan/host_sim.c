/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host side of aspiscan on this machine: what loading wnaspi32.dll does
 * on Windows. Brings up pcam on a simulated wide bus (two disks, one with a
 * second LUN, and a CD-ROM without medium), registers it as ASPI host
 * adapter 0 with a service thread running the bus, and runs the scanner.
 */
#include <stdio.h>

#include "aspi_simhost.h"

int aspiscan_main(int argc, char **argv);

int main(int argc, char **argv)
{
    aspi_simhost h;
    pcam_aspi_host host;
    aspi_simhost_services(&host);
    if (pcam_aspi_init(&host) != PCAM_OK || aspi_simhost_init(&h, NULL, NULL) != 0) {
        fprintf(stderr, "aspiscan: cannot bring up the simulated bus\n");
        return 1;
    }
    if (aspi_simhost_add_disk(&h, 0, 0, 20480, NULL) == NULL ||
        aspi_simhost_add_disk(&h, 3, 0, 8192, NULL) == NULL ||
        aspi_simhost_add_disk(&h, 3, 1, 4096, NULL) == NULL ||
        pcam_sim_add_target(h.sim, 5, NULL) != 0) {
        fprintf(stderr, "aspiscan: cannot build the simulated devices\n");
        return 1;
    }
    pcam_simlu_init_cdrom(pcam_sim_lu(h.sim, 5, 0), NULL, 0, "PCAMSIM", "CDROM");
    if (aspi_simhost_scan(&h) != 0 || aspi_simhost_attach(&h, 0, true) != 0) {
        fprintf(stderr, "aspiscan: cannot register the adapter\n");
        return 1;
    }
    int rc = aspiscan_main(argc, argv);
    aspi_simhost_fini(&h);
    pcam_aspi_shutdown();
    return rc;
}
