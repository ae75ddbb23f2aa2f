/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamtest.efi: a UEFI shell application that drives pcam's
 * EXT_SCSI_PASS_THRU the way a firmware client would and prints one
 * "@..." line per observation on the console (the serial port under
 * tests/uefi). It decides nothing: the host-side harness holds the
 * expectations and asserts on these lines.
 * usage: pcamtest [-c esp|lsi] scan|cd|read|big|nonblock|tagged|reset|timeout|bad|random N SEED|cycle N|unload|ebs
 */
#include "pcamtest.h"

/* BAR0 0x40: the AM53C974 DMA command register, START|direction while the
 * engine runs; BAR0 0x15: the 53C895A's ISTAT1, SRUN while SCRIPTS run. */
static const chip_profile g_chips[] = {
    {L"esp", 0x1022, 0x2020, 8, T_FAT, 1, 0x40, 0x03, FALSE},
    {L"lsi", 0x1000, 0x0012, 16, 1, 0, 0x15, 0x02, TRUE},
};
const chip_profile *g_chip = &g_chips[0];

static EFI_GUID name2_guid = EFI_COMPONENT_NAME2_PROTOCOL_GUID;
static EFI_GUID binding_guid = EFI_DRIVER_BINDING_PROTOCOL_GUID;

static EFI_HANDLE g_ctrl;

static UINTN count_handles(EFI_GUID *g)
{
    EFI_HANDLE *hs = NULL;
    UINTN n = 0;

    if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, g, NULL, &n, &hs)))
        return 0;
    BS->FreePool(hs);
    return n;
}

static void print_packet(const CHAR16 *tag, EFI_STATUS st, const pt_cmd *c)
{
    const PCAM_EXT_SCSI_PACKET *p = &c->p;

    Print(L"%s st=%s ha=%02x ts=%02x in=%d out=%d slen=%d", tag, pt_stname(st), p->HostAdapterStatus,
          p->TargetStatus, p->InTransferLength, p->OutTransferLength, p->SenseDataLength);
    if (p->SenseDataLength >= 14)
        Print(L" key=%x asc=%02x ascq=%02x", c->sense[2] & 0xF, c->sense[12], c->sense[13]);
    Print(L"\r\n");
}

static UINTN g_absent_signals;

static void EFIAPI absent_notify(EFI_EVENT ev, VOID *ctx)
{
    (void)ev;
    (void)ctx;
    g_absent_signals++;
}

/* Every function against an address in range that the scan did not find:
 * the statuses docs/uefi.md ("Addresses with no device") promises. */
static void absent(PCAM_EXT_SCSI_PASS_THRU *pt, UINT8 target, UINT64 lun)
{
    UINT8 tb[16], back[16], *bp = back;
    UINT64 bl = 99;
    EFI_DEVICE_PATH *dp = NULL;
    SCSI_DEVICE_PATH node;
    EFI_EVENT ev = NULL;
    EFI_STATUS bst, gst, pst, est, rst;
    pt_cmd c;

    SetMem(tb, sizeof tb, 0);
    tb[0] = target;
    bst = pt->BuildDevicePath(pt, tb, lun, &dp);
    if (!EFI_ERROR(bst))
        BS->FreePool(dp);
    SetMem(&node, sizeof node, 0);
    node.Header.Type = MESSAGING_DEVICE_PATH;
    node.Header.SubType = MSG_SCSI_DP;
    node.Header.Length[0] = (UINT8)sizeof node;
    node.Pun = target;
    node.Lun = (UINT16)lun;
    gst = pt->GetTargetLun(pt, (EFI_DEVICE_PATH *)&node, &bp, &bl);
    SetMem(&c, sizeof c, 0);
    c.target = target;
    c.lun = lun;
    c.cdb_len = 6; /* TEST UNIT READY */
    c.timeout = 100000000ull;
    pst = pt_send(pt, &c);
    g_absent_signals = 0;
    est = BS->CreateEvent(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, absent_notify, NULL, &ev);
    if (!EFI_ERROR(est)) {
        SetMem(&c, sizeof c, 0);
        c.target = target;
        c.lun = lun;
        c.cdb_len = 6;
        c.timeout = 100000000ull;
        c.p.Cdb = c.cdb;
        c.p.CdbLength = 6;
        c.p.Timeout = c.timeout;
        c.p.DataDirection = PCAM_EXT_SCSI_DIR_READ;
        est = pt->PassThru(pt, tb, lun, &c.p, ev);
        BS->Stall(200000); /* a queued request would have signalled by now */
    }
    rst = pt->ResetTargetLun(pt, tb, lun);
    Print(L"@ABSENT t=%d l=%d build=%s get=%s pt=%s ev=%s signals=%d reset=%s\r\n", target, lun,
          pt_stname(bst), pt_stname(gst), pt_stname(pst), pt_stname(est), g_absent_signals,
          pt_stname(rst));
    if (ev != NULL)
        BS->CloseEvent(ev);
}

/* Device discovery as ScsiBus sees it, plus the protocol's other queries. */
static int t_scan(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    UINT8 tb[16], *t = tb;
    UINT64 lun = 0;
    EFI_DEVICE_PATH *dp = NULL;
    EFI_HANDLE *hs = NULL;
    UINTN n = 0;
    EFI_STATUS st;

    Print(L"@MODE id=%d attrs=%x ioalign=%d\r\n", pt->Mode->AdapterId, pt->Mode->Attributes,
          pt->Mode->IoAlign);
    SetMem(tb, sizeof tb, 0xFF);
    while (!EFI_ERROR(pt->GetNextTargetLun(pt, &t, &lun))) {
        pt_cmd c;
        UINT8 inq[36];
        SetMem(&c, sizeof c, 0);
        SetMem(inq, sizeof inq, 0);
        c.target = t[0];
        c.lun = lun;
        c.cdb[0] = 0x12;
        c.cdb[4] = sizeof inq;
        c.cdb_len = 6;
        c.dir = PCAM_EXT_SCSI_DIR_READ;
        c.buf = inq;
        c.len = sizeof inq;
        c.timeout = 100000000ull;
        st = pt_send(pt, &c);
        Print(L"@LUN t=%d l=%d inq=%s type=%d\r\n", t[0], lun, pt_stname(st), inq[0] & 0x1F);
        Print(L"@INQ t=%d l=%d cmdque=%d\r\n", t[0], lun, (inq[7] >> 1) & 1);
    }
    st = pt->GetNextTargetLun(pt, &t, &lun);
    Print(L"@LUNEND st=%s\r\n", pt_stname(st));
    SetMem(tb, sizeof tb, 0xFF);
    while (!EFI_ERROR(pt->GetNextTarget(pt, &t)))
        Print(L"@TGT t=%d\r\n", t[0]);
    /* A target address the previous call never returned is refused. */
    SetMem(tb, sizeof tb, 0);
    tb[0] = 5;
    lun = 0;
    Print(L"@NEXTBAD st=%s\r\n", pt_stname(pt->GetNextTargetLun(pt, &t, &lun)));

    SetMem(tb, sizeof tb, 0);
    tb[0] = g_chip->pat1_target;
    st = pt->BuildDevicePath(pt, tb, g_chip->pat1_lun, &dp);
    if (!EFI_ERROR(st)) {
        UINT8 back[16], *bp = back;
        UINT64 bl = 99;
        EFI_STATUS st2 = pt->GetTargetLun(pt, dp, &bp, &bl);
        Print(L"@DP build=%s type=%d sub=%d len=%d get=%s t=%d l=%d\r\n", pt_stname(st), dp->Type,
              dp->SubType, dp->Length[0], pt_stname(st2), back[0], bl);
        BS->FreePool(dp);
    } else {
        Print(L"@DP build=%s\r\n", pt_stname(st));
    }
    tb[0] = (UINT8)(g_chip->ntargets + 1); /* 9 or 17: no such ID on the chip */
    Print(L"@DPBAD st=%s\r\n", pt_stname(pt->BuildDevicePath(pt, tb, 0, &dp)));
    absent(pt, 5, 0); /* an ID nobody has, on either chip */
    absent(pt, T_PAT, 1); /* a LUN its target does not have */

    if (!EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &name2_guid, NULL, &n, &hs))) {
        for (UINTN i = 0; i < n; i++) {
            EFI_COMPONENT_NAME2_PROTOCOL *cn = NULL;
            CHAR16 *dn = NULL, *cnm = NULL;
            if (EFI_ERROR(BS->HandleProtocol(hs[i], &name2_guid, (VOID **)&cn)))
                continue;
            if (EFI_ERROR(cn->GetDriverName(cn, (CHAR8 *)"en", &dn)) || dn == NULL ||
                StrnCmp(dn, L"pcam", 4) != 0)
                continue;
            st = cn->GetControllerName(cn, g_ctrl, NULL, (CHAR8 *)"en", &cnm);
            Print(L"@NAME driver=\"%s\" controller=%s \"%s\" fr=%s\r\n", dn, pt_stname(st),
                  EFI_ERROR(st) ? L"" : cnm,
                  pt_stname(cn->GetDriverName(cn, (CHAR8 *)"fr", &dn)));
        }
        BS->FreePool(hs);
    }
    return 0;
}

/* A CD drive without a medium: NOT READY with its sense. */
static int t_cd(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    pt_cmd c;
    EFI_STATUS st;

    SetMem(&c, sizeof c, 0);
    c.target = T_CD;
    c.cdb_len = 6; /* TEST UNIT READY */
    c.dir = PCAM_EXT_SCSI_DIR_READ;
    c.timeout = 100000000ull;
    st = pt_send(pt, &c);
    print_packet(L"@CD", st, &c);
    return 0;
}

/* ---- the 3 TiB disk at T_BIG: every path of a 16-byte CDB ----
 * tests/uefi/boot.sh fills sectors 0-2047, 2^32-2048 .. 2^32+2047 and the
 * last 2048 with tests/linux/sectcheck.c's pattern (sector n holds n as 64
 * little-endian UINT64s), which, unlike pt_pattern, differs between n and
 * n + 2^32. The writes use n + BIG_BASE; check.sh finds them in the image. */
#define BIG_BASE 0x7063616d00000000ull
#define BIG_LAST 0x17FFFFFFFull /* 3 TiB of 512-byte sectors, less one */

static void big_cdb16(pt_cmd *c, UINT8 op, UINT64 lba, UINT32 count, UINT8 dir, VOID *buf, UINT32 len)
{
    SetMem(c, sizeof *c, 0);
    c->target = T_BIG;
    c->cdb[0] = op;
    for (UINTN i = 0; i < 8; i++)
        c->cdb[2 + i] = (UINT8)(lba >> (56 - 8 * i));
    for (UINTN i = 0; i < 4; i++)
        c->cdb[10 + i] = (UINT8)(count >> (24 - 8 * i));
    c->cdb_len = 16;
    c->dir = dir;
    c->buf = buf;
    c->len = len;
    c->timeout = 300000000ull; /* 30 s */
}

static void big_fill(UINT8 *b, UINT64 lba, UINT32 n, UINT64 base)
{
    for (UINT32 k = 0; k < n; k++) {
        UINT64 v = lba + k + base;
        for (UINTN i = 0; i < 64; i++)
            CopyMem(b + 512 * k + 8 * i, &v, 8);
    }
}

static UINT32 big_wrong(const UINT8 *b, UINT64 lba, UINT32 n, UINT64 base)
{
    UINT32 bad = 0;

    for (UINT32 k = 0; k < n; k++) {
        UINT64 v;
        BOOLEAN same = TRUE;
        for (UINTN i = 0; i < 64; i++) {
            CopyMem(&v, b + 512 * k + 8 * i, 8);
            same = same && v == lba + k + base;
        }
        bad += same ? 0 : 1;
    }
    return bad;
}

static void big_read(PCAM_EXT_SCSI_PASS_THRU *pt, const CHAR16 *tag, UINT64 lba, UINT64 base, UINT8 *b)
{
    pt_cmd c;
    EFI_STATUS st;

    SetMem(b, 4096, 0xA5);
    big_cdb16(&c, 0x88, lba, 8, PCAM_EXT_SCSI_DIR_READ, b, 4096); /* READ(16) */
    st = pt_send(pt, &c);
    Print(L"%s lba=%lx st=%s in=%d wrong=%d\r\n", tag, lba, pt_stname(st), c.p.InTransferLength,
          EFI_ERROR(st) ? 8 : big_wrong(b, lba, 8, base));
}

static int t_big(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    static const UINT64 reads[] = {0, 0xFFFFFFFCull, BIG_LAST - 7};
    static const UINT64 writes[] = {0xFFFFFFFCull, 0x140000000ull};
    UINT8 *b = pt_alloc(4096);
    UINT64 last = 0;
    UINT32 bs = 0;
    pt_cmd c;
    EFI_STATUS st;

    if (b == NULL)
        return 1;
    /* READ CAPACITY(10) says the disk is too big for it; (16) gives its size. */
    SetMem(&c, sizeof c, 0);
    c.target = T_BIG;
    c.cdb[0] = 0x25;
    c.cdb_len = 10;
    c.dir = PCAM_EXT_SCSI_DIR_READ;
    c.buf = b;
    c.len = 8;
    c.timeout = 300000000ull;
    st = pt_send(pt, &c);
    Print(L"@BIGRC10 st=%s last=%02x%02x%02x%02x\r\n", pt_stname(st), b[0], b[1], b[2], b[3]);
    big_cdb16(&c, 0x9E, 0, 32, PCAM_EXT_SCSI_DIR_READ, b, 32); /* SERVICE ACTION IN(16) */
    c.cdb[1] = 0x10;                                            /* READ CAPACITY(16) */
    st = pt_send(pt, &c);
    for (UINTN i = 0; i < 8; i++)
        last = last << 8 | b[i];
    for (UINTN i = 8; i < 12; i++)
        bs = bs << 8 | b[i];
    Print(L"@BIGRC16 st=%s in=%d last=%lx bs=%d\r\n", pt_stname(st), c.p.InTransferLength, last, bs);
    for (UINTN i = 0; i < sizeof reads / sizeof reads[0]; i++)
        big_read(pt, L"@BIGREAD", reads[i], 0, b);
    for (UINTN i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        big_fill(b, writes[i], 8, BIG_BASE);
        big_cdb16(&c, 0x8A, writes[i], 8, PCAM_EXT_SCSI_DIR_WRITE, b, 4096); /* WRITE(16) */
        st = pt_send(pt, &c);
        Print(L"@BIGWRITE lba=%lx st=%s out=%d\r\n", writes[i], pt_stname(st), c.p.OutTransferLength);
        big_read(pt, L"@BIGREREAD", writes[i], BIG_BASE, b);
    }
    pt_free(b, 4096);
    return 0;
}

/* Data, residuals and overrun on the pattern disks (T_PAT and the small one). */
static int t_read(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    UINT8 *b = pt_alloc(8192);
    pt_cmd c;
    EFI_STATUS st;
    BOOLEAN ok = TRUE;

    if (b == NULL)
        return 1;
    for (UINT32 lba = 0; lba < 64; lba += 8) {
        pt_read10(&c, T_PAT, 0, lba, 8, b, 4096);
        st = pt_send(pt, &c);
        for (UINT32 k = 0; k < 8; k++)
            ok = ok && !EFI_ERROR(st) && pt_check_block(b + 512 * k, lba + k);
    }
    Print(L"@READ t=%d l=0 data=%s\r\n", T_PAT, ok ? L"ok" : L"bad");
    SetMem(b, 4096, 0);
    pt_read10(&c, g_chip->pat1_target, g_chip->pat1_lun, 5, 1, b, 512);
    st = pt_send(pt, &c);
    Print(L"@READ t=%d l=%d st=%s data=%s\r\n", g_chip->pat1_target, g_chip->pat1_lun, pt_stname(st),
          !EFI_ERROR(st) && pt_check_block(b, 5) ? L"ok" : L"bad");
    /* One block asked for, two blocks of buffer: the residual comes back. */
    pt_read10(&c, T_PAT, 0, 7, 1, b, 1024);
    st = pt_send(pt, &c);
    print_packet(L"@UNDERRUN", st, &c);
    /* Two blocks asked for, one block of buffer: the target wants more. */
    pt_read10(&c, T_PAT, 0, 7, 2, b, 512);
    st = pt_send(pt, &c);
    print_packet(L"@OVERRUN", st, &c);
    pt_read10(&c, T_PAT, 0, 9, 1, b, 512);
    st = pt_send(pt, &c);
    Print(L"@AFTEROVERRUN st=%s data=%s\r\n", pt_stname(st),
          !EFI_ERROR(st) && pt_check_block(b, 9) ? L"ok" : L"bad");
    pt_free(b, 8192);
    return 0;
}

/* ---- non-blocking requests ---- */

#define NB 12
static volatile UINTN g_signals[NB];

static void EFIAPI nb_notify(EFI_EVENT ev, VOID *ctx)
{
    (void)ev;
    g_signals[(UINTN)ctx]++;
}

typedef struct nb_req {
    PCAM_EXT_SCSI_PACKET p;
    UINT8 cdb[10];
    UINT8 sense[32];
    UINT8 *buf;
    UINT32 lba;
    EFI_EVENT ev;
    EFI_STATUS st;
} nb_req;

static nb_req g_nb[NB];

static EFI_STATUS nb_submit(PCAM_EXT_SCSI_PASS_THRU *pt, UINTN i, UINT8 target, UINT32 lba)
{
    nb_req *r = &g_nb[i];
    UINT8 tgt[16];

    SetMem(tgt, sizeof tgt, 0);
    tgt[0] = target;
    g_signals[i] = 0;
    r->lba = lba;
    SetMem(r->buf, 4096, 0);
    SetMem(&r->p, sizeof r->p, 0);
    SetMem(r->cdb, sizeof r->cdb, 0);
    r->cdb[0] = 0x28;
    r->cdb[4] = (UINT8)(lba >> 8);
    r->cdb[5] = (UINT8)lba;
    r->cdb[8] = 8;
    r->p.Cdb = r->cdb;
    r->p.CdbLength = 10;
    r->p.DataDirection = PCAM_EXT_SCSI_DIR_READ;
    r->p.InDataBuffer = r->buf;
    r->p.InTransferLength = 4096;
    r->p.SenseData = r->sense;
    r->p.SenseDataLength = sizeof r->sense;
    r->p.Timeout = 300000000ull;
    r->st = pt->PassThru(pt, tgt, 0, &r->p, r->ev);
    return r->st;
}

static BOOLEAN nb_setup(void)
{
    for (UINTN i = 0; i < NB; i++) {
        g_nb[i].buf = pt_alloc(4096);
        if (g_nb[i].buf == NULL ||
            EFI_ERROR(BS->CreateEvent(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, nb_notify, (VOID *)i, &g_nb[i].ev)))
            return FALSE;
    }
    return TRUE;
}

/* Wait until every submitted request signalled, then a little more so a
 * second signal would be seen. */
static void nb_wait(UINTN n)
{
    for (UINTN ms = 0; ms < 60000; ms += 10) {
        UINTN done = 0;
        for (UINTN i = 0; i < n; i++)
            if (g_nb[i].st != EFI_SUCCESS || g_signals[i] != 0)
                done++;
        if (done == n)
            break;
        BS->Stall(10000);
    }
    BS->Stall(300000);
}

static void nb_report(const CHAR16 *tag, UINTN n)
{
    for (UINTN i = 0; i < n; i++) {
        nb_req *r = &g_nb[i];
        BOOLEAN ok = TRUE;
        for (UINT32 k = 0; k < 8; k++)
            ok = ok && pt_check_block(r->buf + 512 * k, r->lba + k);
        Print(L"%s i=%d submit=%s signals=%d ha=%02x ts=%02x in=%d data=%s", tag, i,
              pt_stname(r->st), g_signals[i], r->p.HostAdapterStatus, r->p.TargetStatus,
              r->p.InTransferLength, ok ? L"ok" : L"bad");
        if (r->p.SenseDataLength >= 14)
            Print(L" key=%x asc=%02x", r->sense[2] & 0xF, r->sense[12]);
        Print(L"\r\n");
    }
}

static int t_nonblock(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    pt_cmd c;
    EFI_STATUS st;
    UINT8 *b = pt_alloc(4096);

    if (!nb_setup() || b == NULL)
        return 1;
    for (UINTN i = 0; i < NB; i++)
        nb_submit(pt, i, T_PAT, (UINT32)(8 * i + 100));
    /* A blocking request while they are in flight. */
    pt_read10(&c, T_PAT, 0, 3, 1, b, 512);
    st = pt_send(pt, &c);
    Print(L"@NBMIX st=%s data=%s\r\n", pt_stname(st),
          !EFI_ERROR(st) && pt_check_block(b, 3) ? L"ok" : L"bad");
    nb_wait(NB);
    nb_report(L"@NB", NB);
    return 0;
}

/* Resets while requests are in flight: each must complete exactly once. */
static int t_reset(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    UINT8 tgt[16];
    UINT8 *b = pt_alloc(4096);
    pt_cmd c;
    EFI_STATUS st;

    if (!nb_setup() || b == NULL)
        return 1;
    for (UINTN i = 0; i < 6; i++)
        nb_submit(pt, i, T_PAT, (UINT32)(8 * i + 200));
    st = pt->ResetChannel(pt);
    Print(L"@RESETCH st=%s\r\n", pt_stname(st));
    nb_wait(6);
    nb_report(L"@RSTCH", 6);

    for (UINTN i = 0; i < 6; i++)
        nb_submit(pt, i, T_PAT, (UINT32)(8 * i + 300));
    SetMem(tgt, sizeof tgt, 0);
    tgt[0] = T_PAT;
    st = pt->ResetTargetLun(pt, tgt, 0);
    Print(L"@RESETLUN st=%s\r\n", pt_stname(st));
    nb_wait(6);
    nb_report(L"@RSTLUN", 6);
    tgt[0] = (UINT8)(g_chip->ntargets + 1);
    Print(L"@RESETLUNBAD st=%s\r\n", pt_stname(pt->ResetTargetLun(pt, tgt, 0)));

    pt_read10(&c, T_PAT, 0, 11, 1, b, 512);
    st = pt_send(pt, &c);
    Print(L"@AFTERRESET st=%s data=%s\r\n", pt_stname(st),
          !EFI_ERROR(st) && pt_check_block(b, 11) ? L"ok" : L"bad");
    return 0;
}

/* Disconnect the drivers that opened the pass-thru on h (ScsiBus). */
static EFI_STATUS disconnect_users(EFI_HANDLE h)
{
    EFI_OPEN_PROTOCOL_INFORMATION_ENTRY *e = NULL;
    UINTN n = 0;
    EFI_STATUS st = EFI_NOT_FOUND;

    if (EFI_ERROR(BS->OpenProtocolInformation(h, &pt_guid, &e, &n)))
        return EFI_NOT_FOUND;
    for (UINTN i = 0; i < n; i++)
        if ((e[i].Attributes & EFI_OPEN_PROTOCOL_BY_DRIVER) != 0)
            st = BS->DisconnectController(h, e[i].AgentHandle, NULL);
    BS->FreePool(e);
    return st;
}

/* Between @ARM and the key it then sends, the host throttles target 2's
 * drive in QEMU to a few bytes a second: the first read passes and fills
 * the throttle's bucket, the second is held for about a minute, far past
 * its 2 s Packet->Timeout. (A blkdebug break would hold it too, but QEMU's
 * bus reset then drains the drive and waits for the held request forever;
 * a drain lifts throttling, so the core's reset ladder can run to its end.)
 * After @RESUME and the next key the throttle is gone again. */
static int t_timeout(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    UINT8 *b = pt_alloc(4096);
    pt_cmd c;
    EFI_STATUS st;
    UINT64 t0, t1;
    BOOLEAN ok;

    if (b == NULL)
        return 1;
    Print(L"@ARM\r\n");
    if (!pt_wait_key(120000)) {
        Print(L"@TIMEOUT nokey\r\n");
        return 1;
    }
    pt_read10(&c, T_PAT, 0, 492, 8, b, 4096);
    st = pt_send(pt, &c);
    Print(L"@PRIME st=%s\r\n", pt_stname(st));
    pt_read10(&c, T_PAT, 0, 500, 8, b, 4096);
    c.timeout = 20000000ull; /* 2 s */
    t0 = pt_now_us();
    st = pt_send(pt, &c);
    t1 = pt_now_us();
    Print(L"@TIMEOUT st=%s ha=%02x ts=%02x ms=%d\r\n", pt_stname(st), c.p.HostAdapterStatus,
          c.p.TargetStatus, (UINTN)((t1 - t0) / 1000u));
    /* Stop with requests in flight: the throttle still holds target 2's
     * reads, so one is on the bus and three wait in the core. ScsiBus goes
     * first, while nothing is in flight (its disks' own commands on the way
     * out would otherwise wait behind the held read); at TPL_CALLBACK the
     * driver's timer cannot move the requests either. */
    Print(L"@STOPBUS st=%s\r\n", pt_stname(disconnect_users(g_ctrl)));
    if (nb_setup()) {
        EFI_TPL old = BS->RaiseTPL(TPL_CALLBACK);
        EFI_STATUS d;
        for (UINTN j = 0; j < 4; j++)
            nb_submit(pt, j, T_PAT, (UINT32)(8 * j + 700));
        d = BS->DisconnectController(g_ctrl, NULL, NULL);
        BS->RestoreTPL(old);
        nb_wait(4);
        Print(L"@STOPDISC st=%s\r\n", pt_stname(d));
        for (UINTN j = 0; j < 4; j++)
            Print(L"@STOPREQ i=%d submit=%s signals=%d ha=%02x\r\n", j, pt_stname(g_nb[j].st),
                  g_signals[j], g_nb[j].p.HostAdapterStatus);
    }
    Print(L"@RESUME\r\n");
    pt_wait_key(120000);
    Print(L"@STOPCONN st=%s\r\n", pt_stname(BS->ConnectController(g_ctrl, NULL, NULL, TRUE)));
    if (EFI_ERROR(pt_find(g_chip->vendor, g_chip->device, &g_ctrl, &pt))) {
        Print(L"@AFTERTIMEOUT st=NOPT\r\n");
        return 1;
    }
    pt_read10(&c, T_PAT, 0, 508, 8, b, 4096);
    st = pt_send(pt, &c);
    ok = !EFI_ERROR(st);
    for (UINT32 k = 0; k < 8; k++)
        ok = ok && pt_check_block(b + 512 * k, 508 + k);
    Print(L"@AFTERTIMEOUT st=%s data=%s\r\n", pt_stname(st), ok ? L"ok" : L"bad");
    return 0;
}

/* Several tagged reads outstanding at once (chips and models that take
 * tags and disconnect: the 53C895A): the host throttles target 2 after
 * @ARM, so each read QEMU takes waits there, disconnected, and QEMU's trace
 * counts them; after @RESUME they complete and their data is checked. */
#define TAGGED 8
static int t_tagged(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    UINT8 *b = pt_alloc(4096);
    pt_cmd c;

    if (!g_chip->tags) {
        Print(L"@TAGSKIP\r\n"); /* QEMU's AM53C974: no tags, no disconnection */
        return 0;
    }
    if (b == NULL || !nb_setup())
        return 1;
    Print(L"@ARM\r\n");
    if (!pt_wait_key(120000))
        return 1;
    pt_read10(&c, T_PAT, 0, 900, 8, b, 4096); /* fills the throttle's bucket */
    pt_send(pt, &c);
    for (UINTN j = 0; j < TAGGED; j++)
        nb_submit(pt, j, T_PAT, (UINT32)(8 * j + 1000));
    BS->Stall(2000000); /* the driver's timer starts them all meanwhile */
    Print(L"@RESUME\r\n");
    pt_wait_key(120000);
    nb_wait(TAGGED);
    nb_report(L"@TAGGED", TAGGED);
    pt_free(b, 4096);
    return 0;
}

/* disconnect/connect cycles on the controller: the stack comes back. */
static int t_cycle(UINTN n)
{
    EFI_GUID bio = BLOCK_IO_PROTOCOL;
    UINTN before = count_handles(&bio);

    for (UINTN i = 0; i < n; i++) {
        PCAM_EXT_SCSI_PASS_THRU *pt = NULL;
        EFI_HANDLE h;
        EFI_STATUS d = BS->DisconnectController(g_ctrl, NULL, NULL);
        UINTN gone = count_handles(&bio);
        BOOLEAN had = !EFI_ERROR(BS->HandleProtocol(g_ctrl, &pt_guid, (VOID **)&pt));
        EFI_STATUS k = BS->ConnectController(g_ctrl, NULL, NULL, TRUE);
        UINT8 *b = pt_alloc(4096);
        pt_cmd c;
        EFI_STATUS r = EFI_NOT_FOUND;
        if (!EFI_ERROR(pt_find(g_chip->vendor, g_chip->device, &h, &pt)) && b != NULL) {
            pt_read10(&c, T_PAT, 0, 1, 1, b, 512);
            r = pt_send(pt, &c);
            if (!EFI_ERROR(r) && !pt_check_block(b, 1))
                r = EFI_DEVICE_ERROR;
        }
        pt_free(b, 4096);
        Print(L"@CYCLE i=%d disconnect=%s blkio_before=%d blkio_down=%d pt_down=%d connect=%s "
              L"read=%s blkio_after=%d\r\n",
              i, pt_stname(d), before, gone, had ? 1 : 0, pt_stname(k), pt_stname(r),
              count_handles(&bio));
    }
    return 0;
}

/* Unload pcam's image through the firmware, as `unload` would. */
static int t_unload(void)
{
    EFI_HANDLE *hs = NULL;
    UINTN n = 0;
    EFI_STATUS st = EFI_NOT_FOUND;
    PCAM_EXT_SCSI_PASS_THRU *pt;
    EFI_HANDLE h;

    if (!EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &binding_guid, NULL, &n, &hs))) {
        for (UINTN i = 0; i < n; i++) {
            EFI_COMPONENT_NAME2_PROTOCOL *cn = NULL;
            EFI_DRIVER_BINDING_PROTOCOL *db = NULL;
            CHAR16 *dn = NULL;
            if (EFI_ERROR(BS->HandleProtocol(hs[i], &name2_guid, (VOID **)&cn)) ||
                EFI_ERROR(BS->HandleProtocol(hs[i], &binding_guid, (VOID **)&db)) ||
                EFI_ERROR(cn->GetDriverName(cn, (CHAR8 *)"en", &dn)) || StrnCmp(dn, L"pcam", 4) != 0)
                continue;
            st = BS->UnloadImage(db->ImageHandle);
            break;
        }
        BS->FreePool(hs);
    }
    Print(L"@UNLOAD st=%s left=%d\r\n", pt_stname(st),
          EFI_ERROR(pt_find(g_chip->vendor, g_chip->device, &h, &pt)) ? 0 : 1);
    return 0;
}

/* ---- ExitBootServices: the OS must find the chip idle ---- */

static UINT8 port_in8(UINT16 port)
{
    UINT8 v;
    __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static void port_out8(UINT16 port, UINT8 v)
{
    __asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

/* COM1 by hand: after ExitBootServices there is no console. */
static void com1_puts(const char *s)
{
    for (; *s != '\0'; s++) {
        for (UINTN i = 0; i < 100000 && (port_in8(0x3FD) & 0x20) == 0; i++)
            ;
        port_out8(0x3F8, (UINT8)*s);
    }
}

static void hex2(char *d, UINT8 v)
{
    static const char x[] = "0123456789abcdef";
    d[0] = x[v >> 4];
    d[1] = x[v & 15];
}

/* A read is held on the bus (the host throttles target 2 after @EBSARM),
 * so the chip is at work (g_chip->busy_reg) when ExitBootServices runs; the
 * driver's handler must leave it idle. Ends the VM. */
static int t_ebs(EFI_HANDLE image, PCAM_EXT_SCSI_PASS_THRU *pt)
{
    EFI_PCI_IO *pci = NULL;
    EFI_GUID pci_guid = EFI_PCI_IO_PROTOCOL_GUID;
    UINT8 *b = pt_alloc(4096);
    UINT32 bar = 0;
    UINT16 base;
    UINT8 pre, post;
    UINTN entries, key = 0, dsize;
    UINT32 dver;
    EFI_MEMORY_DESCRIPTOR *map;
    EFI_STATUS st = EFI_NOT_READY;
    pt_cmd c;
    char line[] = "@EBS pre=.. post=.. ebs=.\r\n@SCRIPT-DONE after ExitBootServices\r\n";

    if (b == NULL || !nb_setup() || EFI_ERROR(BS->HandleProtocol(g_ctrl, &pci_guid, (VOID **)&pci)))
        return 1;
    pci->Pci.Read(pci, EfiPciIoWidthUint32, 0x10, 1, &bar);
    base = (UINT16)(bar & ~3u);
    Print(L"@EBSARM\r\n");
    if (!pt_wait_key(120000))
        return 1;
    pt_read10(&c, T_PAT, 0, 800, 8, b, 4096); /* fills the throttle's bucket */
    pt_send(pt, &c);
    nb_submit(pt, 0, T_PAT, 808);
    /* The driver's timer event moves the command on meanwhile; wait (up to
     * 10 s, for a busy host) until the DMA engine is started. */
    pre = port_in8((UINT16)(base + g_chip->busy_reg));
    for (UINTN i = 0; i < 1000 && (pre & g_chip->busy_mask) != g_chip->busy_mask; i++) {
        BS->Stall(10000);
        pre = port_in8((UINT16)(base + g_chip->busy_reg));
    }
    for (UINTN tries = 0; tries < 4 && EFI_ERROR(st); tries++) {
        map = LibMemoryMap(&entries, &key, &dsize, &dver);
        if (map == NULL)
            break;
        st = BS->ExitBootServices(image, key);
    }
    post = port_in8((UINT16)(base + g_chip->busy_reg));
    hex2(line + 9, pre);
    hex2(line + 17, post);
    line[24] = EFI_ERROR(st) ? '0' : '1';
    com1_puts(line);
    RT->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
    return 0;
}

static UINTN arg_num(CHAR16 *s, UINTN dflt)
{
    return s != NULL ? Atoi(s) : dflt;
}

EFI_STATUS efi_main(EFI_HANDLE ImageHandle, EFI_SYSTEM_TABLE *SystemTable)
{
    CHAR16 **argv = NULL;
    INTN argc;
    PCAM_EXT_SCSI_PASS_THRU *pt = NULL;
    int rc = 1;

    InitializeLib(ImageHandle, SystemTable);
    argc = GetShellArgcArgv(ImageHandle, &argv);
    if (argc >= 3 && StrCmp(argv[1], L"-c") == 0) {
        UINTN i = 0;
        while (i < sizeof g_chips / sizeof g_chips[0] && StrCmp(argv[2], g_chips[i].name) != 0)
            i++;
        if (i == sizeof g_chips / sizeof g_chips[0]) {
            Print(L"@NOCHIP %s\r\n", argv[2]);
            return EFI_INVALID_PARAMETER;
        }
        g_chip = &g_chips[i];
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        Print(L"usage: pcamtest [-c esp|lsi] scan|cd|read|big|nonblock|tagged|reset|timeout|bad|random N SEED|cycle N|unload|ebs\r\n");
        return EFI_INVALID_PARAMETER;
    }
    if (StrCmp(argv[1], L"unload") == 0) {
        t_unload();
        return EFI_SUCCESS;
    }
    if (EFI_ERROR(pt_find(g_chip->vendor, g_chip->device, &g_ctrl, &pt))) {
        Print(L"@NOPT %s\r\n", argv[1]);
        return EFI_NOT_FOUND;
    }
    if (StrCmp(argv[1], L"scan") == 0)
        rc = t_scan(pt);
    else if (StrCmp(argv[1], L"cd") == 0)
        rc = t_cd(pt);
    else if (StrCmp(argv[1], L"read") == 0)
        rc = t_read(pt);
    else if (StrCmp(argv[1], L"nonblock") == 0)
        rc = t_nonblock(pt);
    else if (StrCmp(argv[1], L"reset") == 0)
        rc = t_reset(pt);
    else if (StrCmp(argv[1], L"timeout") == 0)
        rc = t_timeout(pt);
    else if (StrCmp(argv[1], L"bad") == 0)
        rc = cases_bad(pt);
    else if (StrCmp(argv[1], L"random") == 0)
        rc = cases_random(pt, arg_num(argc > 2 ? argv[2] : NULL, 300),
                          (UINT32)arg_num(argc > 3 ? argv[3] : NULL, 1));
    else if (StrCmp(argv[1], L"ebs") == 0)
        rc = t_ebs(ImageHandle, pt);
    else if (StrCmp(argv[1], L"tagged") == 0)
        rc = t_tagged(pt);
    else if (StrCmp(argv[1], L"big") == 0)
        rc = t_big(pt);
    else if (StrCmp(argv[1], L"cycle") == 0)
        rc = t_cycle(arg_num(argc > 2 ? argv[2] : NULL, 3));
    Print(L"@END %s rc=%d\r\n", argv[1], rc);
    return EFI_SUCCESS;
}
