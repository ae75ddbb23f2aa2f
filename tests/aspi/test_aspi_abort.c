/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SC_ABORT_SRB: the abort returns only when the SRB is quiet, completed and
 * notified, so a client may reuse or abandon it at once (ASPI.md rule 7),
 * also when the SRB lived on a stack frame that is gone. Polled and
 * threaded hosts; commands queued, disconnected and hung, and already done.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sched.h>
#include <string.h>

#include "aspi_test.h"

static aspi_simhost H;

static int setup_polled(void **state)
{
    (void)state;
    return fix_setup(&H, NULL, false, 0);
}

static int setup_threaded(void **state)
{
    (void)state;
    return fix_setup(&H, NULL, true, 0);
}

static int teardown(void **state)
{
    (void)state;
    fix_teardown(&H);
    return 0;
}

static const BYTE cdb_tur[6] = {0x00, 0, 0, 0, 0, 0};
static const BYTE cdb_rd[10] = {0x28, 0, 0, 0, 0, 3, 0, 0, 1, 0};

static BYTE run_sync(SRB_ExecSCSICmd *s)
{
    DWORD rc = SendASPI32Command(s);
    if (rc != SS_PENDING)
        return (BYTE)rc;
    BYTE st = fix_wait(&H, &s->SRB_Status);
    assert_true(fix_idle(&H));
    return st;
}

static void clear_ua(BYTE target)
{
    SRB_ExecSCSICmd s;
    for (int i = 0; i < 3; i++) {
        fix_exec(&s, 0, target, 0, 0, NULL, 0, cdb_tur, 6, SENSE_LEN);
        if (run_sync(&s) == SS_COMP)
            return;
    }
    fail_msg("target %u stays in error", target);
}

static DWORD abort_srb(BYTE ha, void *victim)
{
    SRB_Abort a;
    memset(&a, 0, sizeof a);
    a.SRB_Cmd = SC_ABORT_SRB;
    a.SRB_HaId = ha;
    a.SRB_ToAbort = victim;
    DWORD rc = SendASPI32Command(&a);
    assert_int_equal(rc, a.SRB_Status);
    return rc;
}

/* Wait until the target holds the task (issued, then hung) and, when
 * `disconnects` is given, until the core saw one more DISCONNECT from it,
 * so each test aborts a command in a known state. */
static void until_target_has_task(BYTE target, const uint32_t *disconnects)
{
    for (int i = 0; i < 1000000; i++) {
        pcam_counters c;
        H.ad.ops.lock(H.ad.ctx);
        unsigned n = pcam_sim_task_count(H.sim, target, 0);
        pcam_bus_get_counters(&H.bus, target, &c);
        H.ad.ops.unlock(H.ad.ctx);
        if (n != 0 && (disconnects == NULL || c.disconnects > *disconnects))
            return;
        if (!H.threaded)
            aspi_simhost_run_for(&H, 100000);
        else
            sched_yield();
    }
    fail_msg("target %u never got the command", target);
}

static uint32_t disconnects_of(BYTE target)
{
    pcam_counters c;
    H.ad.ops.lock(H.ad.ctx);
    pcam_bus_get_counters(&H.bus, target, &c);
    H.ad.ops.unlock(H.ad.ctx);
    return c.disconnects;
}

static BYTE seen_status, seen_hastat;
static unsigned seen_posts;

/* The client: an SRB on this frame, a hung command, an abort, and gone. */
static void __attribute__((noinline)) submit_hang_abort(BYTE target)
{
    BYTE buf[512];
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, target, 0, SRB_POSTING | SRB_DIR_IN, buf, sizeof buf, cdb_rd, 10, SENSE_LEN);
    uint32_t disc = disconnects_of(target);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    until_target_has_task(target, &disc);
    assert_int_equal(fix_status(&s), SS_PENDING);
    assert_int_equal(abort_srb(0, &s), SS_COMP);
    /* Quiet: final status and its one posting are both done. */
    seen_status = fix_status(&s);
    seen_hastat = s.SRB_HaStat;
    seen_posts = fix_post_count(&s);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
}

/* Overwrite the stack where the client's frame was. */
static void __attribute__((noinline)) scribble(void)
{
    volatile BYTE junk[8192];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0x5A;
    (void)junk[100];
}

static void set_timeout(BYTE target, DWORD secs)
{
    SRB_GetSetTimeouts t;
    memset(&t, 0, sizeof t);
    t.SRB_Cmd = SC_GETSET_TIMEOUTS;
    t.SRB_Flags = SRB_DIR_OUT;
    t.SRB_Target = target;
    t.SRB_Lun = 0;
    t.SRB_Timeout = secs;
    assert_int_equal(SendASPI32Command(&t), SS_COMP);
}

static void abort_stack_srb(void)
{
    clear_ua(2);
    /* 60 s of simulated time: 60 ms of real time on the threaded host. */
    set_timeout(2, 60);
    pcam_sim_target_cfg(H.sim, 2)->hang_next = 1;
    unsigned total = fix_post_total();
    submit_hang_abort(2);
    /* The abort ends the command, whenever it lands (selecting, connected,
     * disconnecting or disconnected), polled or threaded. */
    if (seen_status != SS_ABORTED)
        fail_msg("status %02x hastat %02x", seen_status, seen_hastat);
    assert_int_equal(seen_posts, 1);
    assert_int_equal(fix_post_total(), total + 1);
    scribble();
    /* Whatever recovery is left runs on; nothing reaches the dead frame. */
    if (!H.threaded)
        aspi_simhost_run_for(&H, 5000000000ull);
    assert_int_equal(fix_post_total(), total + 1);
    H.ad.ops.lock(H.ad.ctx);
    assert_null(pcam_bus_check_invariants(&H.bus));
    H.ad.ops.unlock(H.ad.ctx);
    /* The target still works. */
    clear_ua(2);
}

static void abort_stack_srb_polled(void **state)
{
    (void)state;
    abort_stack_srb();
}

static void abort_stack_srb_threaded(void **state)
{
    (void)state;
    abort_stack_srb();
}

static void abort_queued_behind_untagged(void **state)
{
    (void)state;
    /* Disk 2 made untagged (CmdQue off, rescanned) and always
     * disconnecting: a second command waits in the core while the first
     * one hangs, disconnected, on the target. */
    pcam_sim_lu(H.sim, 2, 0)->cmdque = false;
    pcam_sim_target_cfg(H.sim, 2)->disconnect = PCAM_SIM_DISC_ALWAYS;
    SRB_RescanPort rs;
    memset(&rs, 0, sizeof rs);
    rs.SRB_Cmd = SC_RESCAN_SCSI_BUS;
    assert_int_equal(SendASPI32Command(&rs), SS_COMP);
    clear_ua(2);
    SRB_ExecSCSICmd a, b;
    BYTE bufa[512], bufb[512];
    fix_exec(&a, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, bufa, 512, cdb_rd, 10, SENSE_LEN);
    fix_exec(&b, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, bufb, 512, cdb_rd, 10, SENSE_LEN);
    pcam_sim_target_cfg(H.sim, 2)->hang_next = 1;
    uint32_t disc = disconnects_of(2);
    assert_int_equal(SendASPI32Command(&a), SS_PENDING);
    until_target_has_task(2, &disc);
    assert_int_equal(SendASPI32Command(&b), SS_PENDING);
    aspi_simhost_run_for(&H, 1000000);
    assert_int_equal(fix_status(&b), SS_PENDING);
    assert_int_equal(pcam_sim_task_count(H.sim, 2, 0), 1);
    /* The queued one goes at once, without the bus. */
    assert_int_equal(abort_srb(0, &b), SS_COMP);
    assert_int_equal(b.SRB_Status, SS_ABORTED);
    assert_int_equal(fix_post_count(&b), 1);
    assert_int_equal(fix_status(&a), SS_PENDING);
    /* The hung one needs the target: ABORT TASK on a new selection. */
    assert_int_equal(abort_srb(0, &a), SS_COMP);
    assert_int_equal(a.SRB_Status, SS_ABORTED);
    assert_int_equal(fix_post_count(&a), 1);
    assert_int_equal(pcam_sim_task_count(H.sim, 2, 0), 0);
    /* Reuse right away: the layer no longer writes to them. */
    a.SRB_Status = 0x77;
    b.SRB_Status = 0x77;
    aspi_simhost_run_for(&H, 5000000000ull);
    assert_int_equal(a.SRB_Status, 0x77);
    assert_int_equal(b.SRB_Status, 0x77);
    assert_int_equal(fix_post_count(&a), 1);
    assert_int_equal(fix_post_count(&b), 1);
}

static void abort_bus_hog(void **state)
{
    (void)state;
    /* A CD-ROM TUR does not disconnect: hung, it holds the bus; the abort
     * raises ATN on the live nexus and sends ABORT TASK there. */
    SRB_ExecSCSICmd u, a;
    fix_exec(&u, 0, 4, 0, 0, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run_sync(&u), SS_ERR); /* power-on UNIT ATTENTION */
    pcam_sim_target_cfg(H.sim, 4)->hang_next = 1;
    fix_exec(&a, 0, 4, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&a), SS_PENDING);
    until_target_has_task(4, NULL);
    assert_int_equal(abort_srb(0, &a), SS_COMP);
    assert_int_equal(a.SRB_Status, SS_ABORTED);
    assert_int_equal(a.SRB_HaStat, HASTAT_OK);
    assert_int_equal(fix_post_count(&a), 1);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
}

static void abort_completed_not_yet_notified(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    /* Run the bus without delivering: completed, posting still queued. */
    H.ad.ops.lock(H.ad.ctx);
    while (fix_status(&s) == SS_PENDING) {
        H.ad.ops.wait(H.ad.ctx);
    }
    H.ad.ops.unlock(H.ad.ctx);
    assert_int_equal(fix_post_count(&s), 0);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 1);
    /* The abort finds nothing to stop, but returns only after the posting. */
    assert_int_equal(abort_srb(0, &s), SS_COMP);
    assert_int_equal(fix_post_count(&s), 1);
    assert_int_equal(s.SRB_Status, SS_ERR); /* the power-on UNIT ATTENTION, not aborted */
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
}

static void abort_event_srb(void **state)
{
    (void)state;
    aspi_sim_event ev;
    aspi_sim_event_init(&ev);
    clear_ua(0);
    pcam_sim_target_cfg(H.sim, 0)->hang_next = 1;
    SRB_ExecSCSICmd s;
    BYTE buf[512];
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY | SRB_DIR_IN, buf, 512, cdb_rd, 10, SENSE_LEN);
    s.SRB_PostProc = &ev;
    uint32_t disc = disconnects_of(0);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    until_target_has_task(0, &disc);
    assert_int_equal(abort_srb(0, &s), SS_COMP);
    assert_int_equal(s.SRB_Status, SS_ABORTED);
    assert_int_equal(aspi_sim_event_count(&ev), 1);
    aspi_simhost_run_for(&H, 5000000000ull);
    assert_int_equal(aspi_sim_event_count(&ev), 1);
    aspi_sim_event_destroy(&ev);
}

static void abort_reset_dev_srb(void **state)
{
    (void)state;
    /* A reset request waits behind the hung command's target... it is on
     * the bus or done by the time the abort looks; either way the abort
     * returns with it quiet. */
    SRB_BusDeviceReset r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESET_DEV;
    r.SRB_Flags = SRB_POSTING;
    r.SRB_Target = 2;
    fix_set_proc(&r.SRB_PostProc, fix_post);
    assert_int_equal(SendASPI32Command(&r), SS_PENDING);
    assert_int_equal(abort_srb(0, &r), SS_COMP);
    assert_int_not_equal(r.SRB_Status, SS_PENDING);
    assert_int_equal(fix_post_count(&r), 1);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
}

static void abort_arguments(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    memset(&s, 0, sizeof s);
    s.SRB_Status = 0x42;
    /* Not in flight: nothing to do, the SRB is not touched. */
    assert_int_equal(abort_srb(0, &s), SS_COMP);
    assert_int_equal(s.SRB_Status, 0x42);
    assert_int_equal(abort_srb(0, NULL), SS_INVALID_SRB);
    assert_int_equal(abort_srb(1, &s), SS_INVALID_HA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(abort_stack_srb_polled, setup_polled, teardown),
        cmocka_unit_test_setup_teardown(abort_stack_srb_threaded, setup_threaded, teardown),
        cmocka_unit_test_setup_teardown(abort_queued_behind_untagged, setup_polled, teardown),
        cmocka_unit_test_setup_teardown(abort_bus_hog, setup_polled, teardown),
        cmocka_unit_test_setup_teardown(abort_completed_not_yet_notified, setup_polled, teardown),
        cmocka_unit_test_setup_teardown(abort_event_srb, setup_polled, teardown),
        cmocka_unit_test_setup_teardown(abort_reset_dev_srb, setup_polled, teardown),
        cmocka_unit_test_setup_teardown(abort_arguments, setup_polled, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
