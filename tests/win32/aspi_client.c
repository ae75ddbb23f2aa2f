/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A Win32 ASPI client of the old school, run under Wine against pcam's
 * wnaspi32.dll (built i686 with the classic SRB layout, and x86_64 with the
 * 64-bit layout wnaspi32.h documents): it loads the DLL with LoadLibrary and finds the exports
 * with GetProcAddress (no import library, no pcam header), declares the
 * classic packed SRB structures itself, calls everything __cdecl, and runs
 * every ASPI command, the asynchronous ones in each of the three modes a
 * client may use (polling SRB_Status, SRB_EVENT_NOTIFY, SRB_POSTING).
 *
 * The topology it expects is set by the test (tests/win32/CMakeLists.txt)
 * in PCAM_ASPI_SIM, and every expected value below follows from it and from
 * the published definitions, not from running pcam:
 *   bus:narrow                     IDs 0..7, initiator 7 -> 8 targets
 *   0:disk:1M:noua:vendor=ACME:product=TESTDISK:merr=100
 *                                  2048 blocks of 512; MEDIUM ERROR at 100
 *   2:disk:64K:noua:luns=2         128 blocks, LUNs 0 and 1
 *   3:cd:empty:noua                a CD-ROM drive, no medium
 *   5:disk:64K:noua:hang=4:afterscan  found by the DLL's bus scan, then
 *                                  its next 4 commands never finish: three
 *                                  are aborted, one times out
 *   4:disk:64K:noua:pulled         found by the scan, then off the bus: a
 *                                  command to it times out in selection
 *                                  (SS_NO_DEVICE, HaStat 11h, docs/aspi.md)
 * An ID the scan found empty (1, 6) is SS_NO_DEVICE at once.
 * Sense is fixed format (SPC-3 4.5.3: 70h, with bit 7 set when the
 * INFORMATION field holds the LBA; key byte 2, ASC 12, ASCQ 13).
 * ASC/ASCQ: 21/00 LBA out of range, 11/00 unrecovered read error, 3A/00
 * medium not present, 29/03 bus device reset occurred (SPC-3 annex D).
 * Prints one line per failed check and "N checks, 0 failed" at the end;
 * the exit status is the number of failures.
 */
#include "aspi_classic.h"

/* ---- the three modes ---- */
enum { M_POLL = 0, M_EVENT = 1, M_POST = 2 };
static const char *const mode_name[] = {"poll", "event", "post"};

static DWORD caller_thread;
static volatile LONG posts, posts_on_caller, pending_posts_on_caller;
static void *volatile last_posted;

static void __cdecl post_proc(void *srb)
{
    last_posted = srb;
    if (GetCurrentThreadId() == caller_thread)
        InterlockedIncrement(&posts_on_caller);
    InterlockedIncrement(&posts);
}

static void set_proc(VOID **field, void(__cdecl *fn)(void *))
{
    memcpy(field, &fn, sizeof fn);
}

static HANDLE event;

/* Status byte as a polling client reads it. */
static BYTE status_of(const volatile BYTE *st)
{
    return *st;
}

/*
 * Send an asynchronous SRB (exec or reset) in a mode and wait for it the
 * way that mode's clients do; check exactly one notification. flags_at and
 * proc_at point into the SRB. Returns the final SRB_Status.
 */
static BYTE run_async(void *srb, BYTE *flags_at, VOID **proc_at, volatile BYTE *status, int mode,
                      const char *what)
{
    LONG before = posts;
    if (mode == M_EVENT) {
        *flags_at |= SRB_EVENT_NOTIFY;
        *proc_at = event;
        ResetEvent(event);
    } else if (mode == M_POST) {
        *flags_at |= SRB_POSTING;
        set_proc(proc_at, post_proc);
    }
    DWORD rc = SendASPI32Command(srb);
    ULONGLONG t0 = GetTickCount64();
    if (mode == M_EVENT) {
        if (rc == SS_PENDING)
            CHECK(WaitForSingleObject(event, 30000) == WAIT_OBJECT_0, "%s/%s: event never signalled", what,
                  mode_name[mode]);
        else
            CHECK(WaitForSingleObject(event, 5000) == WAIT_OBJECT_0, "%s/%s: immediate answer %02lX not signalled",
                  what, mode_name[mode], (unsigned long)rc);
        /* Auto-reset: a second signal for the same request would show here. */
        Sleep(20);
        CHECK(WaitForSingleObject(event, 0) == WAIT_TIMEOUT, "%s/%s: event signalled twice", what,
              mode_name[mode]);
    } else if (mode == M_POST) {
        LONG on_caller = posts_on_caller;
        while (posts == before && GetTickCount64() - t0 < 30000)
            Sleep(1);
        if (rc == SS_PENDING && posts_on_caller != on_caller)
            InterlockedIncrement(&pending_posts_on_caller);
        Sleep(20);
        CHECK(posts == before + 1, "%s/%s: %ld postings", what, mode_name[mode], (long)(posts - before));
        CHECK(last_posted == srb, "%s/%s: posted with another SRB", what, mode_name[mode]);
    }
    while (status_of(status) == SS_PENDING && GetTickCount64() - t0 < 30000)
        Sleep(0);
    CHECK(status_of(status) != SS_PENDING, "%s/%s: still pending after 30 s", what, mode_name[mode]);
    if (rc != SS_PENDING)
        CHECK(rc == status_of(status), "%s/%s: returned %02lX, status %02X", what, mode_name[mode],
              (unsigned long)rc, status_of(status));
    return status_of(status);
}

static void exec_srb(SRB_ExecSCSICmd *s, BYTE target, BYTE lun, BYTE flags, void *buf, DWORD len,
                     const BYTE *cdb, BYTE cdb_len)
{
    memset(s, 0, sizeof *s);
    s->SRB_Cmd = SC_EXEC_SCSI_CMD;
    s->SRB_Flags = flags;
    s->SRB_Target = target;
    s->SRB_Lun = lun;
    s->SRB_BufLen = len;
    s->SRB_BufPointer = buf;
    s->SRB_SenseLen = SENSE_LEN;
    s->SRB_CDBLen = cdb_len;
    memcpy(s->CDBByte, cdb, cdb_len);
}

static BYTE exec(SRB_ExecSCSICmd *s, int mode, const char *what)
{
    return run_async(s, &s->SRB_Flags, &s->SRB_PostProc, &s->SRB_Status, mode, what);
}

/* A sense check: SS_ERR, HASTAT_OK, CHECK CONDITION, key/ASC/ASCQ. */
static void check_sense(const SRB_ExecSCSICmd *s, BYTE st, BYTE key, BYTE asc, BYTE ascq, const char *what,
                        int mode)
{
    CHECK(st == SS_ERR && s->SRB_HaStat == HASTAT_OK && s->SRB_TargStat == 0x02,
          "%s/%s: status %02X hastat %02X targstat %02X", what, mode_name[mode], st, s->SRB_HaStat,
          s->SRB_TargStat);
    CHECK((s->SenseArea[0] & 0x7F) == 0x70 && (s->SenseArea[2] & 0x0F) == key && s->SenseArea[12] == asc &&
              s->SenseArea[13] == ascq,
          "%s/%s: sense %02X key %X asc %02X/%02X", what, mode_name[mode], s->SenseArea[0],
          s->SenseArea[2] & 0x0F, s->SenseArea[12], s->SenseArea[13]);
}

static void put_be32(BYTE *p, DWORD v)
{
    p[0] = (BYTE)(v >> 24);
    p[1] = (BYTE)(v >> 16);
    p[2] = (BYTE)(v >> 8);
    p[3] = (BYTE)v;
}

static void rw10(BYTE *cdb, BYTE op, DWORD lba, WORD blocks)
{
    memset(cdb, 0, 10);
    cdb[0] = op;
    put_be32(cdb + 2, lba);
    cdb[7] = (BYTE)(blocks >> 8);
    cdb[8] = (BYTE)blocks;
}

static BYTE pattern(int mode, unsigned i)
{
    return (BYTE)(i * 31u + (unsigned)mode * 101u + 7u);
}

/* ---- the commands ---- */

static void exports_and_info(void)
{
    DWORD info = GetASPI32SupportInfo();
    CHECK(((info >> 8) & 0xFF) == SS_COMP && (info & 0xFF) == 1, "support info %08lX", (unsigned long)info);
    /* pcam answers ASPI level 4.60: major in bits 7..0, minor in 15..8. */
    DWORD ver = GetASPI32DLLVersion();
    CHECK(ver == (4u | (60u << 8)), "DLL version %08lX", (unsigned long)ver);
    DWORD path = 0, node = 0;
    CHECK(!TranslateASPI32Address(&path, &node), "TranslateASPI32Address answered TRUE on NT");
}

static void ha_inquiry(void)
{
    SRB_HAInquiry h;
    memset(&h, 0xEE, sizeof h);
    h.SRB_Cmd = SC_HA_INQUIRY;
    h.SRB_HaId = 0;
    h.SRB_Flags = 0;
    h.SRB_Hdr_Rsvd = 0;
    DWORD rc = SendASPI32Command(&h);
    CHECK(rc == SS_COMP && h.SRB_Status == SS_COMP, "HA inquiry %02lX", (unsigned long)rc);
    CHECK(h.HA_Count == 1 && h.HA_SCSI_ID == 7, "count %u id %u", h.HA_Count, h.HA_SCSI_ID);
    CHECK(memcmp(h.HA_ManagerId, "pcam ASPI Win32 ", 16) == 0, "manager id %.16s", (const char *)h.HA_ManagerId);
    CHECK(memcmp(h.HA_Identifier, "Simulated SCSI  ", 16) == 0, "identifier %.16s", (const char *)h.HA_Identifier);
    /* HA_Unique: byte 2 residuals supported, byte 3 targets (narrow: 8). */
    CHECK(h.HA_Unique[2] == 1 && h.HA_Unique[3] == 8, "unique %02X %02X", h.HA_Unique[2], h.HA_Unique[3]);
    memset(&h, 0, sizeof h);
    h.SRB_Cmd = SC_HA_INQUIRY;
    h.SRB_HaId = 1;
    rc = SendASPI32Command(&h);
    CHECK(rc == SS_INVALID_HA && h.HA_Count == 1, "HA 1: %02lX count %u", (unsigned long)rc, h.HA_Count);
}

static void dev_types(bool rescanned)
{
    static const struct {
        BYTE target, lun, status, type;
    } want[] = {
        {0, 0, SS_COMP, 0}, {2, 0, SS_COMP, 0},      {2, 1, SS_COMP, 0},      {3, 0, SS_COMP, 5},
        {5, 0, SS_COMP, 0}, {4, 0, SS_COMP, 0},      {0, 1, SS_NO_DEVICE, 0}, {1, 0, SS_NO_DEVICE, 0},
        {7, 0, SS_NO_DEVICE, 0}, {0, 8, SS_NO_DEVICE, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        SRB_GDEVBlock g;
        memset(&g, 0, sizeof g);
        g.SRB_Cmd = SC_GET_DEV_TYPE;
        g.SRB_Target = want[i].target;
        g.SRB_Lun = want[i].lun;
        DWORD rc = SendASPI32Command(&g);
        /* A rescan finds the pulled disk gone. */
        BYTE expect = rescanned && want[i].target == 4 ? SS_NO_DEVICE : want[i].status;
        CHECK(rc == expect && g.SRB_Status == rc, "dev type %u:%u: %02lX", want[i].target, want[i].lun,
              (unsigned long)rc);
        if (rc == SS_COMP)
            CHECK(g.SRB_DeviceType == want[i].type, "dev type %u:%u: type %u", want[i].target, want[i].lun,
                  g.SRB_DeviceType);
    }
}

static void exec_all(int mode)
{
    SRB_ExecSCSICmd s;
    BYTE buf[2048], cdb[16];
    static const BYTE inq36[6] = {0x12, 0, 0, 0, 36, 0};
    static const BYTE tur[6] = {0, 0, 0, 0, 0, 0};

    /* INQUIRY, data compared with the topology's strings. */
    memset(buf, 0xEE, sizeof buf);
    exec_srb(&s, 0, 0, SRB_DIR_IN, buf, 36, inq36, 6);
    BYTE st = exec(&s, mode, "INQUIRY");
    CHECK(st == SS_COMP && s.SRB_HaStat == 0 && s.SRB_TargStat == 0, "INQUIRY/%s: %02X %02X %02X",
          mode_name[mode], st, s.SRB_HaStat, s.SRB_TargStat);
    CHECK(buf[0] == 0x00 && memcmp(buf + 8, "ACME    TESTDISK        ", 24) == 0 && buf[36] == 0xEE,
          "INQUIRY/%s: data %.24s", mode_name[mode], (const char *)buf + 8);

    /* READ CAPACITY(10): 1M of 512-byte blocks -> last LBA 2047. */
    memset(cdb, 0, 10);
    cdb[0] = 0x25;
    exec_srb(&s, 0, 0, SRB_DIR_IN, buf, 8, cdb, 10);
    st = exec(&s, mode, "READ CAPACITY");
    CHECK(st == SS_COMP && memcmp(buf, "\x00\x00\x07\xFF\x00\x00\x02\x00", 8) == 0,
          "READ CAPACITY/%s: %02X %02X%02X%02X%02X", mode_name[mode], st, buf[0], buf[1], buf[2], buf[3]);

    /* WRITE(10) 2 blocks, then READ(10) them back, residual 0. */
    DWORD lba = 10u + (DWORD)mode * 4u;
    for (unsigned i = 0; i < 1024; i++)
        buf[i] = pattern(mode, i);
    rw10(cdb, 0x2A, lba, 2);
    exec_srb(&s, 0, 0, SRB_DIR_OUT | SRB_ENABLE_RESIDUAL_COUNT, buf, 1024, cdb, 10);
    st = exec(&s, mode, "WRITE(10)");
    CHECK(st == SS_COMP && s.SRB_BufLen == 0, "WRITE/%s: %02X resid %lu", mode_name[mode], st,
          (unsigned long)s.SRB_BufLen);
    memset(buf, 0, sizeof buf);
    rw10(cdb, 0x28, lba, 2);
    exec_srb(&s, 0, 0, SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 1024, cdb, 10);
    st = exec(&s, mode, "READ(10)");
    unsigned bad = 0;
    for (unsigned i = 0; i < 1024; i++)
        bad += buf[i] != pattern(mode, i);
    CHECK(st == SS_COMP && s.SRB_BufLen == 0 && bad == 0, "READ/%s: %02X resid %lu, %u bytes differ",
          mode_name[mode], st, (unsigned long)s.SRB_BufLen, bad);

    /* Underrun: 1 block into 2048 bytes, residual 1536 (asked) or the
     * length untouched (not asked). */
    rw10(cdb, 0x28, lba, 1);
    exec_srb(&s, 0, 0, SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 2048, cdb, 10);
    st = exec(&s, mode, "READ short");
    CHECK(st == SS_COMP && s.SRB_BufLen == 1536, "READ short/%s: %02X resid %lu", mode_name[mode], st,
          (unsigned long)s.SRB_BufLen);
    exec_srb(&s, 0, 0, SRB_DIR_IN, buf, 2048, cdb, 10);
    st = exec(&s, mode, "READ short, no residual");
    CHECK(st == SS_COMP && s.SRB_BufLen == 2048, "READ short no resid/%s: %02X len %lu", mode_name[mode], st,
          (unsigned long)s.SRB_BufLen);

    /* Overrun: 2 blocks into 512 bytes: DO_DU, the buffer filled, residual 0. */
    memset(buf, 0, sizeof buf);
    rw10(cdb, 0x28, lba, 2);
    exec_srb(&s, 0, 0, SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 512, cdb, 10);
    st = exec(&s, mode, "READ overrun");
    bad = 0;
    for (unsigned i = 0; i < 512; i++)
        bad += buf[i] != pattern(mode, i);
    CHECK(st == SS_ERR && s.SRB_HaStat == HASTAT_DO_DU && s.SRB_BufLen == 0 && bad == 0 && buf[512] == 0,
          "overrun/%s: %02X hastat %02X resid %lu, %u bytes differ", mode_name[mode], st, s.SRB_HaStat,
          (unsigned long)s.SRB_BufLen, bad);

    /* CHECK CONDITIONs with autosense. */
    rw10(cdb, 0x28, 5000, 1);
    exec_srb(&s, 0, 0, SRB_DIR_IN, buf, 512, cdb, 10);
    check_sense(&s, exec(&s, mode, "READ beyond the end"), 0x5, 0x21, 0x00, "READ beyond the end", mode);
    rw10(cdb, 0x28, 100, 1);
    exec_srb(&s, 0, 0, SRB_DIR_IN, buf, 512, cdb, 10);
    check_sense(&s, exec(&s, mode, "READ medium error"), 0x3, 0x11, 0x00, "READ medium error", mode);
    exec_srb(&s, 3, 0, 0, NULL, 0, tur, 6);
    check_sense(&s, exec(&s, mode, "TUR empty CD"), 0x2, 0x3A, 0x00, "TUR empty CD", mode);

    /* Second LUN of target 2: its own medium, 128 blocks. */
    memset(cdb, 0, 10);
    cdb[0] = 0x25;
    exec_srb(&s, 2, 1, SRB_DIR_IN, buf, 8, cdb, 10);
    st = exec(&s, mode, "READ CAPACITY 2:1");
    CHECK(st == SS_COMP && memcmp(buf, "\x00\x00\x00\x7F\x00\x00\x02\x00", 8) == 0,
          "READ CAPACITY 2:1/%s: %02X", mode_name[mode], st);

    /* Nobody at ID 6 when the bus was scanned: no device, not selected. */
    exec_srb(&s, 6, 0, 0, NULL, 0, tur, 6);
    st = exec(&s, mode, "TUR absent");
    CHECK(st == SS_NO_DEVICE && s.SRB_HaStat == HASTAT_OK, "absent/%s: %02X hastat %02X", mode_name[mode], st,
          s.SRB_HaStat);
    /* The disk pulled after the scan: no device, and HaStat says why. */
    exec_srb(&s, 4, 0, 0, NULL, 0, tur, 6);
    st = exec(&s, mode, "TUR pulled");
    CHECK(st == SS_NO_DEVICE && s.SRB_HaStat == HASTAT_SEL_TO, "pulled/%s: %02X hastat %02X", mode_name[mode],
          st, s.SRB_HaStat);
    /* No device slot: the adapter's own ID, LUN 8 (a valid adapter). */
    exec_srb(&s, 7, 0, SRB_DIR_IN, buf, 36, inq36, 6);
    st = exec(&s, mode, "INQUIRY own ID");
    CHECK(st == SS_NO_DEVICE, "own ID/%s: %02X", mode_name[mode], st);
    exec_srb(&s, 0, 8, SRB_DIR_IN, buf, 36, inq36, 6);
    st = exec(&s, mode, "INQUIRY LUN 8");
    CHECK(st == SS_NO_DEVICE, "LUN 8/%s: %02X", mode_name[mode], st);
    /* Bad HaId, refused at once but still notified. */
    exec_srb(&s, 0, 0, 0, NULL, 0, tur, 6);
    s.SRB_HaId = 3;
    st = exec(&s, mode, "TUR on HA 3");
    CHECK(st == SS_INVALID_HA, "HA 3/%s: %02X", mode_name[mode], st);
    /* An INQUIRY opcode in a 10-byte CDB goes to the target (which takes
     * the 6 bytes its group says). */
    memset(cdb, 0, 10);
    memcpy(cdb, inq36, 6);
    exec_srb(&s, 0, 0, SRB_DIR_IN, buf, 36, cdb, 10);
    st = exec(&s, mode, "INQUIRY in 10 bytes");
    CHECK(st == SS_COMP && memcmp(buf + 8, "ACME", 4) == 0, "INQUIRY(10 bytes)/%s: %02X", mode_name[mode], st);
}

static void reset_all(int mode)
{
    SRB_BusDeviceReset r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESET_DEV;
    r.SRB_Target = 2;
    BYTE st = run_async(&r, &r.SRB_Flags, &r.SRB_PostProc, &r.SRB_Status, mode, "RESET DEV");
    CHECK(st == SS_COMP && r.SRB_HaStat == 0 && r.SRB_TargStat == 0, "reset/%s: %02X %02X", mode_name[mode], st,
          r.SRB_HaStat);
    /* The target really was reset: its LUNs report it once. */
    SRB_ExecSCSICmd s;
    static const BYTE tur[6] = {0, 0, 0, 0, 0, 0};
    for (BYTE lun = 0; lun < 2; lun++) {
        exec_srb(&s, 2, lun, 0, NULL, 0, tur, 6);
        check_sense(&s, exec(&s, M_POLL, "TUR after reset"), 0x6, 0x29, 0x03, "TUR after reset", mode);
        exec_srb(&s, 2, lun, 0, NULL, 0, tur, 6);
        CHECK(exec(&s, M_POLL, "TUR after the UA") == SS_COMP, "TUR after UA/%s", mode_name[mode]);
    }
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESET_DEV;
    r.SRB_Target = 6;
    st = run_async(&r, &r.SRB_Flags, &r.SRB_PostProc, &r.SRB_Status, mode, "RESET absent");
    CHECK(st == SS_NO_DEVICE && r.SRB_HaStat == HASTAT_OK, "reset absent/%s: %02X %02X", mode_name[mode], st,
          r.SRB_HaStat);
}

/* Abort a command that the target never finishes (target 5, hang=5). */
static void abort_one(int mode)
{
    SRB_ExecSCSICmd s;
    BYTE buf[512], cdb[10];
    rw10(cdb, 0x28, 0, 1);
    exec_srb(&s, 5, 0, SRB_DIR_IN, buf, 512, cdb, 10);
    LONG before = posts;
    if (mode == M_EVENT) {
        s.SRB_Flags |= SRB_EVENT_NOTIFY;
        s.SRB_PostProc = event;
        ResetEvent(event);
    } else if (mode == M_POST) {
        s.SRB_Flags |= SRB_POSTING;
        set_proc(&s.SRB_PostProc, post_proc);
    }
    CHECK(SendASPI32Command(&s) == SS_PENDING, "hung READ/%s not pending", mode_name[mode]);
    Sleep(50);
    CHECK(status_of(&s.SRB_Status) == SS_PENDING, "hung READ/%s finished: %02X", mode_name[mode], s.SRB_Status);
    SRB_Abort a;
    memset(&a, 0, sizeof a);
    a.SRB_Cmd = SC_ABORT_SRB;
    a.SRB_ToAbort = &s;
    DWORD rc = SendASPI32Command(&a);
    CHECK(rc == SS_COMP && a.SRB_Status == SS_COMP, "abort/%s: %02lX", mode_name[mode], (unsigned long)rc);
    /* Quiet when the abort returns: final status, notification done. */
    CHECK(status_of(&s.SRB_Status) == SS_ABORTED, "aborted/%s: %02X", mode_name[mode], s.SRB_Status);
    if (mode == M_EVENT)
        CHECK(WaitForSingleObject(event, 0) == WAIT_OBJECT_0, "aborted/event: not signalled");
    if (mode == M_POST)
        CHECK(posts == before + 1, "aborted/post: %ld postings", (long)(posts - before));
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
    CHECK(SendASPI32Command(&t) == SS_COMP, "set timeout %lu: %02X", (unsigned long)secs, t.SRB_Status);
}

static void abort_all(void)
{
    /* The bus runs on simulated time, paced at 1000x real time: give the
     * hung commands 30 simulated hours (108 s real), so only the abort can
     * end them. */
    set_timeout(5, 108000);
    for (int m = M_POLL; m <= M_POST; m++)
        abort_one(m);
    /* An SRB not in flight, and a bad adapter. */
    SRB_ExecSCSICmd idle;
    memset(&idle, 0, sizeof idle);
    SRB_Abort a;
    memset(&a, 0, sizeof a);
    a.SRB_Cmd = SC_ABORT_SRB;
    a.SRB_ToAbort = &idle;
    CHECK(SendASPI32Command(&a) == SS_COMP, "abort of an idle SRB: %02X", a.SRB_Status);
    a.SRB_HaId = 1;
    CHECK(SendASPI32Command(&a) == SS_INVALID_HA, "abort on HA 1: %02X", a.SRB_Status);
}

static void timeouts(void)
{
    SRB_GetSetTimeouts t;
    memset(&t, 0, sizeof t);
    t.SRB_Cmd = SC_GETSET_TIMEOUTS;
    t.SRB_Flags = SRB_DIR_OUT;
    t.SRB_Target = 5;
    t.SRB_Lun = 0;
    t.SRB_Timeout = 2;
    CHECK(SendASPI32Command(&t) == SS_COMP, "set timeout: %02X", t.SRB_Status);
    memset(&t, 0, sizeof t);
    t.SRB_Cmd = SC_GETSET_TIMEOUTS;
    t.SRB_Flags = SRB_DIR_IN;
    t.SRB_Target = 5;
    t.SRB_Timeout = 99;
    CHECK(SendASPI32Command(&t) == SS_COMP && t.SRB_Timeout == 2, "get timeout: %02X %lu", t.SRB_Status,
          (unsigned long)t.SRB_Timeout);
    t.SRB_Flags = 0;
    CHECK(SendASPI32Command(&t) == SS_INVALID_SRB, "timeouts without direction: %02X", t.SRB_Status);
    /* The last hung command times out after its 2 s (simulated). */
    SRB_ExecSCSICmd s;
    BYTE buf[512], cdb[10];
    rw10(cdb, 0x28, 0, 1);
    exec_srb(&s, 5, 0, SRB_DIR_IN, buf, 512, cdb, 10);
    BYTE st = exec(&s, M_EVENT, "READ timing out");
    CHECK(st == SS_ERR && s.SRB_HaStat == HASTAT_COMMAND_TIMEOUT, "timeout: %02X hastat %02X", st, s.SRB_HaStat);
    /* Target 5 no longer hangs: the same READ completes (zeros). */
    memset(buf, 0xEE, sizeof buf);
    exec_srb(&s, 5, 0, SRB_DIR_IN, buf, 512, cdb, 10);
    st = exec(&s, M_POLL, "READ after the hangs");
    CHECK(st == SS_COMP && buf[0] == 0 && buf[511] == 0, "READ after hangs: %02X hastat %02X", st, s.SRB_HaStat);
}

static void disk_info_and_rescan(void)
{
    SRB_GetDiskInfo d;
    memset(&d, 0xEE, sizeof d);
    d.SRB_Cmd = SC_GET_DISK_INFO;
    d.SRB_HaId = 0;
    d.SRB_Flags = 0;
    d.SRB_Hdr_Rsvd = 0;
    d.SRB_Target = 0;
    d.SRB_Lun = 0;
    /* A disk, not reachable through INT 13h (DISK_NOT_INT13 = 0). */
    CHECK(SendASPI32Command(&d) == SS_COMP && d.SRB_DriveFlags == 0x00, "disk info: %02X flags %02X",
          d.SRB_Status, d.SRB_DriveFlags);
    d.SRB_Target = 1;
    CHECK(SendASPI32Command(&d) == SS_NO_DEVICE, "disk info 1: %02X", d.SRB_Status);
    SRB_RescanPort r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESCAN_SCSI_BUS;
    CHECK(SendASPI32Command(&r) == SS_COMP, "rescan: %02X", r.SRB_Status);
    dev_types(true); /* the same table, less the pulled disk */
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = 0x05; /* SC_SET_HA_PARMS: DOS only */
    CHECK(SendASPI32Command(&r) == 0x80, "SC_SET_HA_PARMS: %02X", r.SRB_Status);
}

static void buffers(void)
{
    ASPI32BUFF b;
    memset(&b, 0, sizeof b);
    b.AB_BufLen = 65536;
    b.AB_ZeroFill = 1;
    CHECK(GetASPI32Buffer(&b) && b.AB_BufPointer != NULL, "GetASPI32Buffer 64K");
    if (b.AB_BufPointer == NULL)
        return;
    CHECK(((ULONG_PTR)b.AB_BufPointer & 4095u) == 0 && b.AB_BufPointer[0] == 0 && b.AB_BufPointer[65535] == 0,
          "buffer %p not aligned or not zeroed", (void *)b.AB_BufPointer);
    /* Used for a READ of 128 blocks (written as zeros never: pattern). */
    SRB_ExecSCSICmd s;
    BYTE cdb[10];
    rw10(cdb, 0x28, 10, 2);
    exec_srb(&s, 0, 0, SRB_DIR_IN, b.AB_BufPointer, 1024, cdb, 10);
    CHECK(exec(&s, M_POLL, "READ into an ASPI buffer") == SS_COMP && b.AB_BufPointer[1] == pattern(M_POLL, 1),
          "READ into ASPI buffer");
    CHECK(FreeASPI32Buffer(&b), "FreeASPI32Buffer");
    CHECK(!FreeASPI32Buffer(&b), "FreeASPI32Buffer twice answered TRUE");
    memset(&b, 0, sizeof b);
    b.AB_BufLen = 512u * 1024u + 1u;
    CHECK(!GetASPI32Buffer(&b) && b.AB_BufPointer == NULL, "GetASPI32Buffer above 512K answered TRUE");
}

/* A posting routine that sends the next SRB, as streaming clients do: the
 * manager calls it without holding anything the new request needs. */
static SRB_ExecSCSICmd chain_first, chain_second;
static volatile LONG chain_steps;
static volatile DWORD chain_rc = 0xFFFFFFFFu;

static void __cdecl chain_post2(void *srb)
{
    (void)srb;
    InterlockedIncrement(&chain_steps);
}

static void __cdecl chain_post1(void *srb)
{
    static const BYTE tur[6] = {0, 0, 0, 0, 0, 0};
    (void)srb;
    exec_srb(&chain_second, 2, 0, SRB_POSTING, NULL, 0, tur, 6);
    set_proc(&chain_second.SRB_PostProc, chain_post2);
    chain_rc = SendASPI32Command(&chain_second);
    InterlockedIncrement(&chain_steps);
}

static void post_chain(void)
{
    static const BYTE inq36[6] = {0x12, 0, 0, 0, 36, 0};
    BYTE buf[36];
    exec_srb(&chain_first, 0, 0, SRB_DIR_IN | SRB_POSTING, buf, 36, inq36, 6);
    set_proc(&chain_first.SRB_PostProc, chain_post1);
    DWORD rc = SendASPI32Command(&chain_first);
    ULONGLONG t0 = GetTickCount64();
    while (chain_steps < 2 && GetTickCount64() - t0 < 30000)
        Sleep(1);
    CHECK(rc == SS_PENDING && chain_steps == 2, "chained posting: rc %02lX, %ld steps", (unsigned long)rc,
          (long)chain_steps);
    CHECK(chain_first.SRB_Status == SS_COMP && chain_rc == SS_PENDING && chain_second.SRB_Status == SS_COMP,
          "chained posting: first %02X, second returned %02lX status %02X", chain_first.SRB_Status,
          (unsigned long)chain_rc, chain_second.SRB_Status);
}

int main(void)
{
    HMODULE m = load_aspi();
    char path[MAX_PATH];
    GetModuleFileNameA(m, path, sizeof path);
    printf("loaded %s\n", path);
    /* The same functions by ordinal (wnaspi32.def). */
    CHECK((void (*)(void))GetProcAddress(m, (LPCSTR)1) == (void (*)(void))GetASPI32SupportInfo, "ordinal 1");
    CHECK((void (*)(void))GetProcAddress(m, (LPCSTR)2) == (void (*)(void))SendASPI32Command, "ordinal 2");
    CHECK((void (*)(void))GetProcAddress(m, (LPCSTR)14) == (void (*)(void))FreeASPI32Buffer, "ordinal 14");

    caller_thread = GetCurrentThreadId();
    event = CreateEventA(NULL, FALSE, FALSE, NULL); /* auto-reset */

    exports_and_info();
    ha_inquiry();
    dev_types(false);
    for (int mode = M_POLL; mode <= M_POST; mode++) {
        exec_all(mode);
        reset_all(mode);
    }
    abort_all();
    timeouts();
    disk_info_and_rescan();
    buffers();
    post_chain();
    /* Real ASPI managers call posting routines on their own thread; only a
     * request refused inside the call (not pending) is posted there. */
    CHECK(posts > 0 && pending_posts_on_caller == 0, "%ld postings of pending requests ran on the caller's thread",
          (long)pending_posts_on_caller);
    printf("%ld postings, %ld of them (immediate refusals) on the caller's thread\n", (long)posts,
           (long)posts_on_caller);
    printf("%u checks, %u failed\n", checks, failures);
    return (int)(failures > 99 ? 99 : failures);
}
