/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The phase log (pcam_sim_set_log) prints a message as a message: a
 * two-byte tag message (SIMPLE 20h / HEAD OF QUEUE 21h / ORDERED 22h + tag,
 * SPI-3) is one line naming the tag, in both directions, so a tag byte 00h
 * is never read as COMMAND COMPLETE; an extended message's length and
 * argument bytes carry no message name. The trace ring keeps one entry per
 * byte (checked too: the log is a view, the ring is the record).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_msg.h"
#include "simrig.h"

static bool has_line(FILE *f, const char *a, const char *b)
{
    char line[256];
    rewind(f);
    while (fgets(line, sizeof line, f) != NULL)
        if (strstr(line, a) != NULL && (b == NULL || strstr(line, b) != NULL))
            return true;
    return false;
}

static void tag_pairs_print_as_one(void **state)
{
    (void)state;
    simrig r;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    assert_int_equal(simrig_init(&r, &sc, NULL, false), 0);
    pcam_sim_target_config tc;
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = PCAM_SIM_DISC_ALWAYS; /* the reselection sends the tag back */
    assert_non_null(simrig_add_disk(&r, 0, 0, 256, &tc));
    FILE *log = tmpfile();
    assert_non_null(log);
    pcam_sim_set_log(r.sim, log);

    rig_ccb rc;
    memset(&rc, 0, sizeof rc);
    rc.ccb.func = PCAM_FN_SCAN_BUS;
    assert_int_equal(rig_sync(&r, &rc, RIG_S(10)), PCAM_REQ_CMP);
    /* The first tagged command on a fresh LUN gets tag 00h. */
    uint8_t cdb[16], buf[512];
    assert_int_equal(pcam_cdb_read(cdb, sizeof cdb, 10, 3, 1, 0), 10);
    memset(&rc, 0, sizeof rc);
    rig_ccb_io(&rc, 0, 0, cdb, 10, PCAM_DIR_IN, buf, sizeof buf);
    rc.ccb.flags = PCAM_CCB_TAGGED;
    rc.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    assert_int_equal(rig_sync(&r, &rc, RIG_S(10)), PCAM_REQ_CMP);
    pcam_sim_set_log(r.sim, NULL);
    fflush(log);

    assert_true(has_line(log, "MSG OUT 0x20 0x00 ", "tag 0x00"));
    assert_true(has_line(log, "MSG IN 0x20 0x00 ", "tag 0x00"));
    /* The tag byte is no message of its own. */
    assert_false(has_line(log, "MSG OUT 0x00 COMMAND COMPLETE", NULL));
    /* The real COMMAND COMPLETE still prints by name. */
    assert_true(has_line(log, "MSG IN 0x00 COMMAND COMPLETE", NULL));
    /* Negotiation at the scan: an extended message is one line, its bytes
     * and core/proto's decoding as pcamdecode msg prints it (SDTR: 01h,
     * length 03h, code 01h), never byte by byte (its length 03h is not
     * RESTORE POINTERS). */
    assert_true(has_line(log, "MSG OUT 01 03 01 ", "SDTR period=0x"));
    assert_true(has_line(log, "MSG IN 01 03 01 ", "SDTR period=0x"));
    assert_false(has_line(log, "(message byte)", NULL));
    assert_false(has_line(log, "MSG OUT 0x03 RESTORE POINTERS", NULL));

    /* The ring still has the two bytes of the tag message as two entries
     * (an ATN change may come between them). */
    pcam_sim_trace_entry e;
    int last = -1; /* the previous MSG OUT byte */
    bool pair = false;
    for (size_t i = 0; pcam_sim_trace_get(r.sim, i, &e); i++) {
        if (e.kind != PCAM_SIM_TR_MSG_OUT)
            continue;
        pair = pair || (last == 0x20 && e.byte == 0x00);
        last = e.byte;
    }
    assert_true(pair);
    fclose(log);
    simrig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tag_pairs_print_as_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
