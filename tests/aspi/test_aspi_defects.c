/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The five defects an unmodified legacy ASPI program found in the layer
 * (issue 17), each pinned by the behaviour a real ASPI manager shows:
 *  1. a path that is no device on a valid adapter (the adapter's own ID,
 *     LUN 8) is SS_NO_DEVICE, never SS_INVALID_HA (a scanner stops at 81h);
 *  2. a request the core refuses before the bus reports the whole length as
 *     not transferred;
 *  3. a CDB whose length does not match its opcode group reaches the target;
 *  4. on a data overrun the residual says what really moved;
 *  5. the SRB's event handle is opaque: the host decides what it is.
 * Polled host (nothing runs until the test drains it). Expectations: the
 * hal/sim disk model (36-byte INQUIRY "PCAMSIM DISK 1.00", 512-byte blocks,
 * media byte i = i*7 + id*13 + lun), fixed-format sense of SPC-3 4.5.3.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "aspi_test.h"

static aspi_simhost H;

static int setup(void **state)
{
    (void)state;
    return fix_setup(&H, NULL, false, 0);
}

static int teardown(void **state)
{
    (void)state;
    fix_teardown(&H);
    return 0;
}

static const BYTE cdb_tur[6] = {0x00, 0, 0, 0, 0, 0};
static const BYTE cdb_inq36[6] = {0x12, 0, 0, 0, 36, 0};

static BYTE run(SRB_ExecSCSICmd *s)
{
    unsigned before = fix_post_count(s);
    DWORD rc = SendASPI32Command(s);
    BYTE st = (BYTE)rc;
    if (rc == SS_PENDING)
        st = fix_wait(&H, &s->SRB_Status);
    assert_true(fix_idle(&H));
    assert_int_equal(fix_post_count(s), before + 1);
    return st;
}

static BYTE gdt(BYTE target, BYTE lun)
{
    SRB_GDEVBlock g;
    memset(&g, 0, sizeof g);
    g.SRB_Cmd = SC_GET_DEV_TYPE;
    g.SRB_Target = target;
    g.SRB_Lun = lun;
    return (BYTE)SendASPI32Command(&g);
}

/* The power-on UNIT ATTENTION of a simulated LU, taken once. */
static void clear_ua(BYTE target)
{
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, target, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    (void)run(&s);
    fix_exec(&s, 0, target, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
}

/* 1. INQUIRY and SC_GET_DEV_TYPE agree: no device at 0.7.0 and 0.0.8. */
static void no_device_paths(void **state)
{
    (void)state;
    static const BYTE paths[][2] = {{7, 0}, {0, 8}, {2, 31}};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        SRB_ExecSCSICmd s;
        BYTE buf[36];
        fix_exec(&s, 0, paths[i][0], paths[i][1], SRB_POSTING | SRB_DIR_IN, buf, 36, cdb_inq36, 6,
                 SENSE_LEN);
        assert_int_equal(run(&s), SS_NO_DEVICE);
        assert_int_equal(s.SRB_HaStat, HASTAT_OK);
        assert_int_equal(s.SRB_TargStat, 0);
        assert_int_equal(gdt(paths[i][0], paths[i][1]), SS_NO_DEVICE);
    }
    /* Adapter 0 itself is fine, and a real bad HaId is still 81h. */
    assert_int_equal(gdt(0, 0), SS_COMP);
    SRB_ExecSCSICmd s;
    fix_exec(&s, 1, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_INVALID_HA);
}

/* 2. Refused by the core before the bus: nothing moved, on every path. */
static void refused_reports_whole_length(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[512];
    const BYTE read1[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    /* Validation: LUN 8 (path), and a target beyond the bus width. */
    fix_exec(&s, 0, 0, 8, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 512, read1, 10,
             SENSE_LEN);
    assert_int_equal(run(&s), SS_NO_DEVICE);
    assert_int_equal(s.SRB_BufLen, 512);
    fix_exec(&s, 0, 9, 0, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 512, read1, 10,
             SENSE_LEN);
    assert_int_equal(run(&s), SS_NO_DEVICE);
    assert_int_equal(s.SRB_BufLen, 512);
    /* The bus shut down: the core completes the request before dispatch. */
    aspi_simhost_drain(&H, 1000);
    H.ad.ops.lock(H.ad.ctx);
    pcam_bus_shutdown(&H.bus);
    H.ad.ops.unlock(H.ad.ctx);
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 512, read1, 10,
             SENSE_LEN);
    assert_int_equal(run(&s), SS_INVALID_HA);
    assert_int_equal(s.SRB_BufLen, 512);
}

/* 3. A CDB whose length does not match its opcode group is the target's to
 * judge: it reaches the bus instead of being refused as SS_INVALID_SRB.
 * What the target then does is the bus's truth (SPC-4 4.2.5: the group code
 * tells a target how many CDB bytes to take): one longer than its group is
 * taken as the group says, one shorter leaves the target asking for bytes the
 * initiator does not have (a phase error), a reserved opcode is ILLEGAL
 * REQUEST / INVALID COMMAND OPERATION CODE (20h/00h). */
static void mismatched_cdb_reaches_target(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[36];
    clear_ua(0);
    pcam_sim_target_stats st0, st1;
    pcam_sim_target_stats_get(H.sim, 0, &st0);
    /* INQUIRY opcode in 10 bytes: the target takes 6 and answers. */
    const BYTE inq10[10] = {0x12, 0, 0, 0, 36, 0, 0, 0, 0, 0};
    memset(buf, 0xEE, sizeof buf);
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 36, inq10, 10,
             SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(s.SRB_BufLen, 0);
    assert_memory_equal(buf + 8, "PCAMSIM DISK            1.00", 28);
    /* A reserved opcode (group 3) in 6 bytes: the target refuses it. */
    const BYTE resv[6] = {0x60, 0, 0, 0, 0, 0};
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, resv, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_OK);
    assert_int_equal(s.SRB_TargStat, 0x02);
    assert_int_equal(s.SenseArea[2] & 0x0F, 0x05);
    assert_int_equal(s.SenseArea[12], 0x20);
    assert_int_equal(s.SenseArea[13], 0x00);
    /* READ(10) opcode in 6 bytes: the target waits for 4 more. */
    const BYTE read6[6] = {0x28, 0, 0, 0, 0, 0};
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, read6, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_PHASE_ERR);
    pcam_sim_target_stats_get(H.sim, 0, &st1);
    /* All three were selected; whole CDBs: INQUIRY, the reserved opcode and
     * the REQUEST SENSE of its autosense (the third never got whole). */
    assert_true(st1.selections - st0.selections >= 3);
    assert_int_equal(st1.commands - st0.commands, 3);
}

static void ccb_done(pcam_ccb *ccb)
{
    (void)ccb;
}

/* 3b. Strict stays the default of the CCB API: the same CDB without
 * PCAM_CCB_PASSTHRU is refused, and the flag still checks lengths and
 * buffers. */
static void strict_by_default(void **state)
{
    (void)state;
    static const struct {
        uint32_t flags;
        uint8_t cdb_len;
        bool buffer;
        uint32_t want;
    } cases[] = {
        {0, 6, false, PCAM_REQ_INVALID},                /* READ(10) opcode in 6 bytes */
        {PCAM_CCB_PASSTHRU, 0, false, PCAM_REQ_INVALID}, /* no CDB */
        {PCAM_CCB_PASSTHRU, 17, false, PCAM_REQ_INVALID}, /* longer than 16 */
        {PCAM_CCB_PASSTHRU, 6, true, PCAM_REQ_INVALID}, /* data length, no buffer */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pcam_ccb c;
        memset(&c, 0, sizeof c);
        c.func = PCAM_FN_SCSI_IO;
        c.flags = cases[i].flags;
        c.done = ccb_done;
        c.u.io.cdb[0] = 0x28;
        c.u.io.cdb_len = cases[i].cdb_len;
        c.u.io.dir = cases[i].buffer ? PCAM_DIR_IN : PCAM_DIR_NONE;
        c.u.io.data_len = cases[i].buffer ? 512 : 0;
        H.ad.ops.lock(H.ad.ctx);
        pcam_action(&H.bus, &c);
        H.ad.ops.unlock(H.ad.ctx);
        assert_int_equal(c.status & PCAM_STATUS_MASK, cases[i].want);
        assert_int_equal(c.u.io.resid, c.u.io.data_len);
    }
}

/* 4. Data overrun: HASTAT_DO_DU, and the residual says what moved: the
 * whole buffer was filled, so nothing of it is left (0), and the bytes are
 * the target's. */
static void overrun_residual(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[512], inq[16];
    clear_ua(0);
    /* READ(10) of 2 blocks into 512 bytes. */
    const BYTE read2[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 2, 0};
    memset(buf, 0xEE, sizeof buf);
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 512, read2, 10,
             SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_DO_DU);
    assert_int_equal(s.SRB_BufLen, 0);
    for (unsigned i = 0; i < 512; i++)
        assert_int_equal(buf[i], (BYTE)(i * 7u));
    /* INQUIRY of 36 bytes into 16. */
    memset(inq, 0xEE, sizeof inq);
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, inq, 16, cdb_inq36, 6,
             SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_DO_DU);
    assert_int_equal(s.SRB_BufLen, 0);
    assert_int_equal(inq[0], 0x00);
    assert_memory_equal(inq + 8, "PCAMSIM ", 8);
}

/* 5. The event handle is the host's business. A host whose handles are
 * small numbers (as Win32 HANDLEs are) gets back exactly the value the SRB
 * carried, once per request; a host that cannot signal refuses event
 * requests instead of leaving their client waiting forever; and a host that
 * wants posting routines on its own worker thread gets them there even for
 * a request the core completes inside SendASPI32Command. */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static void *rec_handle[8];
static unsigned rec_n;

static void rec_signal(void *ctx, void *event)
{
    (void)ctx;
    pthread_mutex_lock(&rec_lock);
    if (rec_n < 8)
        rec_handle[rec_n] = event;
    rec_n++;
    pthread_mutex_unlock(&rec_lock);
}

static unsigned rec_count(void)
{
    pthread_mutex_lock(&rec_lock);
    unsigned n = rec_n;
    pthread_mutex_unlock(&rec_lock);
    return n;
}

static int setup_handles(void **state)
{
    (void)state;
    pcam_aspi_host host;
    aspi_simhost_services(&host);
    host.signal_event = rec_signal;
    rec_n = 0;
    return fix_setup_ex(&H, NULL, &host, false, 0, false);
}

static void event_handle_opaque(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[36];
    void *handle = (void *)(uintptr_t)0x7Cu; /* not an address */
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY | SRB_DIR_IN, buf, 36, cdb_inq36, 6, SENSE_LEN);
    s.SRB_PostProc = handle;
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_int_equal(rec_count(), 0);
    assert_true(fix_idle(&H));
    assert_int_equal(fix_status(&s), SS_COMP);
    assert_int_equal(rec_count(), 1);
    assert_ptr_equal(rec_handle[0], handle);
    /* A reset by event, and a refusal: same handle back, once each. */
    SRB_BusDeviceReset r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESET_DEV;
    r.SRB_Flags = SRB_EVENT_NOTIFY;
    r.SRB_Target = 2;
    r.SRB_PostProc = (void *)(uintptr_t)0x80u;
    assert_int_equal(SendASPI32Command(&r), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(r.SRB_Status, SS_COMP);
    fix_exec(&s, 3, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = (void *)(uintptr_t)0x84u;
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_HA);
    assert_int_equal(rec_count(), 3);
    assert_ptr_equal(rec_handle[1], (void *)(uintptr_t)0x80u);
    assert_ptr_equal(rec_handle[2], (void *)(uintptr_t)0x84u);
}

/* Issue 41 defect 3: the host's own reference to the handle, taken when
 * the request is accepted (the client may close its handle once it sees the
 * status final), is what gets signalled; a handle the host cannot hold is
 * never signalled. held[] maps a client handle to the host's reference. */
static unsigned held_n;
static void *hold_rec(void *ctx, void *event)
{
    (void)ctx;
    held_n++;
    return (uintptr_t)event == 0x99u ? NULL : (void *)((uintptr_t)event + 0x1000u);
}

static int setup_hold(void **state)
{
    (void)state;
    pcam_aspi_host host;
    aspi_simhost_services(&host);
    host.signal_event = rec_signal;
    host.hold_event = hold_rec;
    rec_n = 0;
    held_n = 0;
    return fix_setup_ex(&H, NULL, &host, false, 0, false);
}

static void event_held_by_host(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = (void *)(uintptr_t)0x7Cu;
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_int_equal(held_n, 1); /* taken inside the call */
    assert_true(fix_idle(&H));
    assert_int_equal(rec_count(), 1);
    assert_ptr_equal(rec_handle[0], (void *)(uintptr_t)0x107Cu);
    /* Not a handle: the command runs, nothing is signalled. */
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = (void *)(uintptr_t)0x99u;
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(fix_status(&s), SS_COMP);
    assert_int_equal(rec_count(), 1);
    /* Refused inside the call: held and signalled before the call returns
     * (signal_event always gets, and releases, the host's reference). */
    fix_exec(&s, 3, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = (void *)(uintptr_t)0x84u;
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_HA);
    assert_int_equal(held_n, 3);
    assert_int_equal(rec_count(), 2);
    assert_ptr_equal(rec_handle[1], (void *)(uintptr_t)0x1084u);
}

static int setup_no_signal(void **state)
{
    (void)state;
    pcam_aspi_host host;
    aspi_simhost_services(&host);
    host.signal_event = NULL;
    return fix_setup_ex(&H, NULL, &host, false, 0, false);
}

static void event_without_signaller_refused(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = (void *)(uintptr_t)0x7Cu;
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_SRB);
    assert_int_equal(s.SRB_Status, SS_INVALID_SRB);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
    /* Posting and polling still work on such a host. */
    fix_exec(&s, 0, 0, 0, 0, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_not_equal(fix_status(&s), SS_PENDING);
}

static pthread_t main_thread;
static volatile int posted_on_main;

static void ASPI_CDECL thread_post(void *srb)
{
    if (pthread_equal(pthread_self(), main_thread))
        posted_on_main = 1;
    fix_post(srb);
}

static int setup_service_posts(void **state)
{
    (void)state;
    main_thread = pthread_self();
    posted_on_main = 0;
    return fix_setup_ex(&H, NULL, NULL, true, 0, true);
}

static void posting_on_worker_thread(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[36];
    /* LUN 8: the core completes it inside the call. */
    fix_exec(&s, 0, 0, 8, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    fix_set_proc(&s.SRB_PostProc, thread_post);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_int_equal(fix_status(&s), SS_NO_DEVICE);
    assert_true(fix_idle(&H));
    assert_int_equal(fix_post_count(&s), 1);
    /* A real command, and an abort waiting for a posting it may not run. */
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, buf, 36, cdb_inq36, 6, SENSE_LEN);
    fix_set_proc(&s.SRB_PostProc, thread_post);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    SRB_Abort a;
    memset(&a, 0, sizeof a);
    a.SRB_Cmd = SC_ABORT_SRB;
    a.SRB_ToAbort = &s;
    assert_int_equal(SendASPI32Command(&a), SS_COMP);
    /* Quiet: completed (or aborted) and posted, by the service thread. */
    assert_int_equal(fix_post_count(&s), 2);
    assert_int_not_equal(fix_status(&s), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(posted_on_main, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(no_device_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_reports_whole_length, setup, teardown),
        cmocka_unit_test_setup_teardown(mismatched_cdb_reaches_target, setup, teardown),
        cmocka_unit_test_setup_teardown(strict_by_default, setup, teardown),
        cmocka_unit_test_setup_teardown(overrun_residual, setup, teardown),
        cmocka_unit_test_setup_teardown(event_handle_opaque, setup_handles, teardown),
        cmocka_unit_test_setup_teardown(event_held_by_host, setup_hold, teardown),
        cmocka_unit_test_setup_teardown(event_without_signaller_refused, setup_no_signal, teardown),
        cmocka_unit_test_setup_teardown(posting_on_worker_thread, setup_service_posts, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
