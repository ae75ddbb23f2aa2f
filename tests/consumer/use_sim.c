/* SPDX-License-Identifier: BSD-2-Clause */
/* Uses pcam::sim / pcam-sim from an install: a simulated bus with one
 * disk, whose back-end reports the phase-level profile (pcam_sim.h). */
#include <stdio.h>
#include "pcam/pcam_hal.h"
#include "pcam_sim.h"

int main(void)
{
    pcam_sim *sim = pcam_sim_create(NULL);
    if (sim == NULL || pcam_sim_add_target(sim, 2, NULL) != 0) {
        fputs("consumer_sim: cannot build the simulated bus\n", stderr);
        return 1;
    }
    pcam_hal hal;
    pcam_hal_caps caps;
    pcam_sim_get_hal(sim, &hal);
    hal.ops->get_caps(hal.sc, &caps);
    pcam_sim_destroy(sim);
    if (caps.profile != PCAM_HAL_PHASE_LEVEL) {
        fprintf(stderr, "consumer_sim: profile %d\n", (int)caps.profile);
        return 1;
    }
    puts("consumer_sim: pcam-sim works from the install");
    return 0;
}
