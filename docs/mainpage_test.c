/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Runs the code fragment of docs/mainpage.md (extracted by docs/check.sh
 * fragment and compiled next to this file) on the template back-end in
 * polled mode: the bring-up must succeed and a bus scan through the bus it
 * set up must complete, exactly once, with REQ_CMP (an empty bus).
 */
#include <stdio.h>
#include <string.h>

#include "pcam/pcam.h"
#include "pcam_template.h"

pcam_err my_bus_start(const pcam_hal *my_chip_hal, const pcam_platform *my_platform, bool polled);
pcam_bus *my_bus(void);

static uint64_t now;
static uint64_t clock_now(void *ctx) { (void)ctx; return now; }
static int done;
static void on_done(pcam_ccb *ccb) { (void)ccb; done++; }

int main(void)
{
    static pcam_template chip;
    pcam_platform plat;
    pcam_hal hal;
    memset(&plat, 0, sizeof plat);
    plat.now_ns = clock_now;
    if (pcam_template_attach(&chip, &(pcam_template_config){.initiator_id = 7}, &plat, &hal) != PCAM_OK ||
        my_bus_start(&hal, &plat, true) != PCAM_OK) {
        fputs("mainpage: the fragment's bring-up failed\n", stderr);
        return 1;
    }
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_SCAN_BUS;
    ccb.done = on_done;
    pcam_action(my_bus(), &ccb);
    for (long i = 0; done == 0 && i < 1000000; i++) {
        if (pcam_bus_poll(my_bus()))
            continue;
        uint64_t d = pcam_bus_next_deadline(my_bus());
        if (d == UINT64_MAX)
            break;
        if (d > now)
            now = d;
    }
    if (done != 1 || (ccb.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP) {
        fprintf(stderr, "mainpage: scan completed %d times, status %s\n", done, pcam_status_name(ccb.status));
        return 1;
    }
    puts("mainpage: the fragment brings up a polled bus that scans");
    return 0;
}
