/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Task sets of the simulated targets: tagged reselection, tag rejection,
 * shortest-seek-first reordering, ORDERED and HEAD OF QUEUE, TASK SET FULL,
 * BUSY, overlapped commands (SAM-2: ABORTED COMMAND 4D/tag and 4E/00) and
 * multiple LUNs with REPORT LUNS (SPC-3 6.21).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "simraw.h"
#include "pcam/pcam_msg.h"

#define T 2
#define BLOCKS 4096u

typedef struct fixture {
    pcam_sim *sim;
    simraw r;
    uint8_t *store[2];
    uint8_t bufs[8][512];
    uint8_t cdbs[8][10];
    simraw_cmd c[8];
} fixture;

static int setup_with(void **state, pcam_sim_disc policy, uint16_t limit)
{
    fixture *f = calloc(1, sizeof *f);
    pcam_sim_target_config tc;
    pcam_simlu *lu;

    assert_non_null(f);
    f->sim = pcam_sim_create(NULL);
    assert_non_null(f->sim);
    simraw_init(&f->r, f->sim);
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.disconnect = policy;
    tc.task_set_limit = limit;
    f->store[0] = simraw_add_disk(f->sim, T, 0, &tc, BLOCKS, 200000);
    assert_non_null(f->store[0]);
    /* Seeks cost 1 ms to the next block-track, up to 10 ms full stroke. */
    lu = pcam_sim_lu(f->sim, T, 0);
    lu->timing.seek_min_ns = 1000000;
    lu->timing.seek_max_ns = 10000000;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_with(state, PCAM_SIM_DISC_ALWAYS, 0);
}

static int setup_limit3(void **state)
{
    return setup_with(state, PCAM_SIM_DISC_ALWAYS, 3);
}

static int teardown(void **state)
{
    fixture *f = *state;

    pcam_sim_destroy(f->sim);
    free(f->store[0]);
    free(f->store[1]);
    free(f);
    return 0;
}

/* Command i: READ(10) of one block at lba with the given tag. */
static simraw_cmd *read_cmd(fixture *f, int i, uint32_t lba, uint8_t tag_type, uint8_t tag)
{
    uint8_t *cdb = f->cdbs[i];

    memset(cdb, 0, 10);
    cdb[0] = 0x28;
    cdb[2] = (uint8_t)(lba >> 24);
    cdb[3] = (uint8_t)(lba >> 16);
    cdb[4] = (uint8_t)(lba >> 8);
    cdb[5] = (uint8_t)lba;
    cdb[8] = 1;
    simraw_cmd_init(&f->c[i], T, 0, cdb, 10, f->bufs[i], 512);
    f->c[i].disc = true;
    f->c[i].tag_type = tag_type;
    f->c[i].tag = tag;
    return &f->c[i];
}

static void check_data(fixture *f, int i, uint32_t lba)
{
    assert_true(f->c[i].done);
    assert_int_equal(f->c[i].status, 0);
    assert_memory_equal(f->bufs[i], f->store[0] + (size_t)lba * 512u, 512);
}

static void tagged_reselection_sends_identify_then_tag(void **state)
{
    fixture *f = *state;
    static const uint8_t msg[3] = {0xC0, PCAM_MSG_SIMPLE_TAG, 0x2A};
    uint8_t buf[512];

    read_cmd(f, 0, 7, 0, 0);
    assert_int_equal(simraw_select(&f->r, T, true, msg, 3, f->cdbs[0], 10), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(f->r.ev.count, 3);
    assert_int_equal(f->r.ev.count2, 10);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_DISCONNECT);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 1);
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_RESELECTED);
    assert_int_equal(f->r.ev.target, T);
    assert_int_equal(f->r.ev.byte, 0x80);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_SIMPLE_TAG);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, 0x2A);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 512), PCAM_HAL_EV_XFER_DONE);
    assert_memory_equal(buf, f->store[0] + 7 * 512, 512);
    assert_true(pcam_sim_target_tags_in_use(f->sim, T));
}

static void rejected_tag_runs_the_command_untagged(void **state)
{
    fixture *f = *state;
    static const uint8_t msg[3] = {0xC0, PCAM_MSG_SIMPLE_TAG, 0x05};
    pcam_sim_target_stats st;
    uint8_t buf[512];

    pcam_sim_target_cfg(f->sim, T)->reject_tags = true;
    read_cmd(f, 0, 3, 0, 0);
    assert_int_equal(simraw_select(&f->r, T, true, msg, 3, f->cdbs[0], 10), PCAM_HAL_EV_SELECT_DONE);
    /* MESSAGE REJECT right after the tag: CDB not sent. */
    assert_int_equal(f->r.ev.count, 3);
    assert_int_equal(f->r.ev.count2, 0);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_MSG_IN);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_MESSAGE_REJECT);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_COMMAND);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_COMMAND, f->cdbs[0], 0, 10), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(simraw_msg_in(&f->r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(f->r.ev.byte, PCAM_MSG_DISCONNECT);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_BUS_FREE);
    /* Reselection of an untagged task: no tag message after IDENTIFY. */
    assert_int_equal(simraw_wait(&f->r), PCAM_HAL_EV_RESELECTED);
    assert_int_equal(simraw_accept(&f->r, false), PCAM_HAL_EV_PHASE);
    assert_int_equal(f->r.ev.phase, PCAM_PHASE_DATA_IN);
    assert_int_equal(simraw_xfer(&f->r, PCAM_PHASE_DATA_IN, buf, 0, 512), PCAM_HAL_EV_XFER_DONE);
    pcam_sim_target_stats_get(f->sim, T, &st);
    assert_int_equal(st.tags_rejected, 1);
    assert_int_equal(st.untagged, 1);
    assert_int_equal(st.simple, 0);
    assert_false(pcam_sim_target_tags_in_use(f->sim, T));
}

/* X at LBA 0 keeps the mechanism busy while four more queue up; then the
 * head (at LBA 1 after X) serves the nearest first: 10, 20, 500, 1000. */
static void simple_tasks_go_shortest_seek_first(void **state)
{
    fixture *f = *state;
    static const uint32_t lba[5] = {0, 1000, 10, 500, 20};
    int i;

    for (i = 0; i < 5; i++) {
        read_cmd(f, i, lba[i], PCAM_MSG_SIMPLE_TAG, (uint8_t)(i + 1));
        assert_int_equal(simraw_start(&f->r, &f->c[i]), 0);
    }
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 5);
    assert_int_equal(simraw_drain(&f->r), 5);
    for (i = 0; i < 5; i++)
        check_data(f, i, lba[i]);
    assert_true(f->c[0].done_ns < f->c[2].done_ns);
    assert_true(f->c[2].done_ns < f->c[4].done_ns);
    assert_true(f->c[4].done_ns < f->c[3].done_ns);
    assert_true(f->c[3].done_ns < f->c[1].done_ns);
}

/* ORDERED is a barrier: the far SIMPLE task queued before it finishes first,
 * the near SIMPLE task queued after it waits for it. */
static void ordered_task_is_a_barrier(void **state)
{
    fixture *f = *state;
    pcam_sim_target_stats st;

    read_cmd(f, 0, 2, PCAM_MSG_SIMPLE_TAG, 1);
    read_cmd(f, 1, 3000, PCAM_MSG_SIMPLE_TAG, 2);
    read_cmd(f, 2, 0, PCAM_MSG_ORDERED_TAG, 3);
    read_cmd(f, 3, 5, PCAM_MSG_SIMPLE_TAG, 4);
    assert_int_equal(simraw_start(&f->r, &f->c[0]), 0);
    assert_int_equal(simraw_start(&f->r, &f->c[1]), 0);
    assert_int_equal(simraw_start(&f->r, &f->c[2]), 0);
    assert_int_equal(simraw_start(&f->r, &f->c[3]), 0);
    assert_true(simraw_drain(&f->r) >= 0);
    assert_int_equal(f->r.nout, 0);
    check_data(f, 1, 3000);
    check_data(f, 2, 0);
    check_data(f, 3, 5);
    assert_true(f->c[0].done_ns < f->c[1].done_ns);
    assert_true(f->c[1].done_ns < f->c[2].done_ns);
    assert_true(f->c[2].done_ns < f->c[3].done_ns);
    pcam_sim_target_stats_get(f->sim, T, &st);
    assert_int_equal(st.ordered, 1);
    assert_int_equal(st.simple, 3);
}

static void head_of_queue_goes_first(void **state)
{
    fixture *f = *state;
    pcam_sim_target_stats st;

    read_cmd(f, 0, 0, PCAM_MSG_SIMPLE_TAG, 1);
    read_cmd(f, 1, 10, PCAM_MSG_SIMPLE_TAG, 2);
    read_cmd(f, 2, 4000, PCAM_MSG_HEAD_OF_QUEUE_TAG, 3);
    assert_int_equal(simraw_start(&f->r, &f->c[0]), 0);
    assert_int_equal(simraw_start(&f->r, &f->c[1]), 0);
    assert_int_equal(simraw_start(&f->r, &f->c[2]), 0);
    assert_int_equal(simraw_drain(&f->r), 3);
    check_data(f, 2, 4000);
    assert_true(f->c[2].done_ns < f->c[1].done_ns);
    pcam_sim_target_stats_get(f->sim, T, &st);
    assert_int_equal(st.head_of_queue, 1);
}

static void task_set_full_beyond_the_limit(void **state)
{
    fixture *f = *state;
    pcam_sim_target_stats st;
    int i;

    for (i = 0; i < 3; i++) {
        read_cmd(f, i, (uint32_t)(i * 100), PCAM_MSG_SIMPLE_TAG, (uint8_t)i);
        assert_int_equal(simraw_start(&f->r, &f->c[i]), 0);
        assert_true(f->c[i].disconnected);
    }
    read_cmd(f, 3, 300, PCAM_MSG_SIMPLE_TAG, 3);
    assert_int_equal(simraw_start(&f->r, &f->c[3]), 0);
    assert_true(f->c[3].done);
    assert_int_equal(f->c[3].status, 0x28);
    assert_int_equal(f->c[3].ptr, 0);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 3);
    assert_int_equal(simraw_drain(&f->r), 3);
    pcam_sim_target_stats_get(f->sim, T, &st);
    assert_int_equal(st.task_set_full, 1);
    assert_int_equal(st.max_tasks, 3);
}

static void busy_for_the_next_commands(void **state)
{
    fixture *f = *state;
    static const uint8_t tur[6] = {0};
    pcam_sim_target_stats st;
    simraw_cmd c;

    pcam_sim_target_cfg(f->sim, T)->busy_next = 2;
    assert_int_equal(simraw_simple(&f->r, T, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0x08);
    assert_int_equal(simraw_simple(&f->r, T, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0x08);
    assert_int_equal(simraw_simple(&f->r, T, tur, 6, NULL, 0, &c), 0);
    assert_int_equal(c.status, 0x00);
    pcam_sim_target_stats_get(f->sim, T, &st);
    assert_int_equal(st.busy, 2);
    assert_int_equal(pcam_sim_target_cfg(f->sim, T)->busy_next, 0);
}

static void overlapped_untagged_aborts_both(void **state)
{
    fixture *f = *state;
    static const uint8_t tur[6] = {0};
    uint8_t sense[18];
    simraw_cmd c;

    read_cmd(f, 0, 100, 0, 0);
    assert_int_equal(simraw_start(&f->r, &f->c[0]), 0);
    assert_true(f->c[0].disconnected);
    simraw_cmd_init(&c, T, 0, tur, 6, NULL, 0);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 2);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[2] & 0x0F, 0x0B); /* ABORTED COMMAND */
    assert_int_equal(sense[12], 0x4E);       /* OVERLAPPED COMMANDS ATTEMPTED */
    /* The first read never comes back. */
    assert_int_equal(simraw_serve(&f->r), 0);
}

static void duplicate_tag_is_overlapped(void **state)
{
    fixture *f = *state;
    uint8_t sense[18];

    read_cmd(f, 0, 100, PCAM_MSG_SIMPLE_TAG, 5);
    read_cmd(f, 1, 200, PCAM_MSG_SIMPLE_TAG, 5);
    assert_int_equal(simraw_start(&f->r, &f->c[0]), 0);
    assert_int_equal(simraw_start(&f->r, &f->c[1]), 0);
    assert_true(f->c[1].done);
    assert_int_equal(f->c[1].status, 2);
    assert_int_equal(simraw_sense(&f->r, T, 0, sense), 18);
    assert_int_equal(sense[2] & 0x0F, 0x0B);
    assert_int_equal(sense[12], 0x4D); /* TAGGED OVERLAPPED COMMANDS, ASCQ = tag */
    assert_int_equal(sense[13], 0x05);
    assert_int_equal(pcam_sim_task_count(f->sim, T, 0), 0);
}

static void second_lun_and_report_luns(void **state)
{
    fixture *f = *state;
    static const uint8_t rl[12] = {0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0};
    static const uint8_t want[24] = {0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 1, 0, 0, 0, 0, 0, 0};
    uint8_t buf[64];
    simraw_cmd c;

    f->store[1] = simraw_add_disk(f->sim, T, 1, NULL, 64, 1000);
    assert_non_null(f->store[1]);
    read_cmd(f, 0, 9, 0, 0);
    f->c[0].lun = 1;
    assert_int_equal(simraw_run(&f->r, &f->c[0]), 0);
    assert_int_equal(f->c[0].status, 0);
    assert_memory_equal(f->bufs[0], f->store[1] + 9 * 512, 512);
    /* SPC-3: list length 16, then LUN 0 and LUN 1 (peripheral addressing). */
    simraw_cmd_init(&c, T, 0, rl, 12, buf, sizeof buf);
    assert_int_equal(simraw_run(&f->r, &c), 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.ptr, 24);
    assert_memory_equal(buf, want, 24);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(tagged_reselection_sends_identify_then_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(rejected_tag_runs_the_command_untagged, setup, teardown),
        cmocka_unit_test_setup_teardown(simple_tasks_go_shortest_seek_first, setup, teardown),
        cmocka_unit_test_setup_teardown(ordered_task_is_a_barrier, setup, teardown),
        cmocka_unit_test_setup_teardown(head_of_queue_goes_first, setup, teardown),
        cmocka_unit_test_setup_teardown(task_set_full_beyond_the_limit, setup_limit3, teardown),
        cmocka_unit_test_setup_teardown(busy_for_the_next_commands, setup, teardown),
        cmocka_unit_test_setup_teardown(overlapped_untagged_aborts_both, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicate_tag_is_overlapped, setup, teardown),
        cmocka_unit_test_setup_teardown(second_lun_and_report_luns, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
