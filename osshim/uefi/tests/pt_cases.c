/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamtest's malformed-packet cases and its random packets. Every case
 * prints its inputs and what PassThru returned; the host-side harness
 * holds the expected status of each (tests/uefi/check.sh). The random
 * packets never write: opcodes come from a read-only list or the vendor
 * range, so the disks stay as the host made them.
 */
#include "pcamtest.h"

static UINTN g_bad_signals;

static void EFIAPI bad_notify(EFI_EVENT ev, VOID *ctx)
{
    (void)ev;
    (void)ctx;
    g_bad_signals++;
}

typedef struct bad_case {
    const CHAR16 *name;
    UINT8 target0;    /* Target[0] */
    UINT8 target1;    /* Target[1] */
    UINT64 lun;
    UINT8 op;
    UINT8 cdb_len;
    UINT8 dir;
    UINT32 len;
    UINT8 buf_kind;   /* 0 none, 1 aligned buffer, 2 buffer + 1 */
    UINT8 special;    /* 1 NULL packet, 2 NULL target, 3 NULL CDB, 4 non-blocking */
} bad_case;

static const bad_case cases[] = {
    {L"null_packet", 0, 0, 0, 0x00, 6, 0, 0, 0, 1},
    {L"null_target", 0, 0, 0, 0x00, 6, 0, 0, 0, 2},
    {L"null_cdb", 0, 0, 0, 0x00, 6, 0, 0, 0, 3},
    {L"cdblen_0", 0, 0, 0, 0x00, 0, 0, 0, 0, 0},
    {L"cdblen_17", 0, 0, 0, 0x00, 17, 0, 0, 0, 0},
    {L"cdblen_255", 0, 0, 0, 0x00, 255, 0, 0, 0, 0},
    {L"group_read10_as_6", 0, 0, 0, 0x28, 6, 0, 512, 1, 0},
    {L"group_tur_as_10", 0, 0, 0, 0x00, 10, 0, 0, 0, 0},
    {L"group_read16_as_12", 0, 0, 0, 0x88, 12, 0, 512, 1, 0},
    {L"group_read12_as_16", 0, 0, 0, 0xA8, 16, 0, 512, 1, 0},
    {L"ioalign_misaligned", 0, 0, 0, 0x28, 10, 0, 512, 2, 0},
    {L"len_null_buffer_in", 0, 0, 0, 0x28, 10, 0, 512, 0, 0},
    {L"len_null_buffer_out", 0, 0, 0, 0x2A, 10, 1, 512, 0, 0},
    {L"bidirectional", 0, 0, 0, 0x00, 6, 2, 0, 0, 0},
    {L"dir_unknown_3", 0, 0, 0, 0x00, 6, 3, 0, 0, 0},
    {L"dir_unknown_255", 0, 0, 0, 0x00, 6, 255, 0, 0, 0},
    {L"target_past_ids", 0xFE, 0, 0, 0x00, 6, 0, 0, 0, 0}, /* 0xFE: the chip's ID count */
    {L"target_255", 255, 0, 0, 0x00, 6, 0, 0, 0, 0},
    {L"target_initiator", INITIATOR, 0, 0, 0x00, 6, 0, 0, 0, 0},
    {L"target_byte1", 0, 1, 0, 0x00, 6, 0, 0, 0, 0},
    {L"lun_8", 0, 0, 8, 0x00, 6, 0, 0, 0, 0},
    {L"lun_64", 0, 0, 64, 0x00, 6, 0, 0, 0, 0},
    {L"lun_2_32", 0, 0, 0x100000000ull, 0x00, 6, 0, 0, 0, 0},
    {L"nonblocking_bad", 0, 0, 0, 0x00, 0, 0, 0, 0, 4},
    {L"good_tur", 0, 0, 0, 0x00, 6, 0, 0, 0, 0},
};

static void fence(PCAM_EXT_SCSI_PASS_THRU *pt, UINT8 a, UINT8 b, UINT8 c)
{
    const UINT8 ids[3] = {a, b, c};

    for (UINTN i = 0; i < 3; i++) {
        pt_cmd k;
        EFI_STATUS st;
        SetMem(&k, sizeof k, 0);
        k.target = ids[i];
        k.cdb_len = 6; /* TEST UNIT READY */
        k.timeout = 100000000ull;
        st = pt_send(pt, &k);
        Print(L"@FENCE t=%d st=%s ha=%02x\r\n", ids[i], pt_stname(st), k.p.HostAdapterStatus);
    }
}

int cases_bad(PCAM_EXT_SCSI_PASS_THRU *pt)
{
    UINT8 *mem = pt_alloc(8192);
    EFI_EVENT ev = NULL;

    if (mem == NULL ||
        EFI_ERROR(BS->CreateEvent(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, bad_notify, NULL, &ev)))
        return 1;
    Print(L"@BADINFO ioalign=%d\r\n", pt->Mode->IoAlign);
    /* Fences in QEMU's trace of selections (TEST UNIT READY to targets 3,
     * 2, 3 before and 2, 3, 2 after, both disks: absent ones never reach
     * the bus): the host counts what reached the bus in between, which
     * must be nothing. */
    fence(pt, T_BIG, T_PAT, T_BIG);
    for (UINTN i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (StrCmp(cases[i].name, L"good_tur") == 0)
            fence(pt, T_PAT, T_BIG, T_PAT);
        const bad_case *k = &cases[i];
        PCAM_EXT_SCSI_PACKET p;
        UINT8 tgt[16], cdb[16], sense[32];
        VOID *buf = NULL;
        EFI_STATUS st;

        if (k->buf_kind == 2 && pt->Mode->IoAlign <= 1) {
            /* No alignment to violate: the case does not exist on this adapter. */
            Print(L"@BAD case=%s st=NA\r\n", k->name);
            continue;
        }
        SetMem(tgt, sizeof tgt, 0);
        SetMem(cdb, sizeof cdb, 0);
        SetMem(&p, sizeof p, 0);
        tgt[0] = k->target0 == 0xFE ? g_chip->ntargets : k->target0;
        tgt[1] = k->target1;
        cdb[0] = k->op;
        if (k->op == 0x28 || k->op == 0x2A || k->op == 0x88 || k->op == 0xA8)
            cdb[k->op == 0x88 ? 13 : k->op == 0xA8 ? 9 : 8] = 1; /* one block */
        if (k->buf_kind != 0)
            buf = mem + (k->buf_kind == 2 ? 1 : 0);
        p.Cdb = k->special == 3 ? NULL : cdb;
        p.CdbLength = k->cdb_len;
        p.DataDirection = k->dir;
        if (k->dir == PCAM_EXT_SCSI_DIR_WRITE) {
            p.OutDataBuffer = buf;
            p.OutTransferLength = k->len;
        } else {
            p.InDataBuffer = buf;
            p.InTransferLength = k->len;
        }
        p.SenseData = sense;
        p.SenseDataLength = sizeof sense;
        p.Timeout = 100000000ull;
        g_bad_signals = 0;
        st = pt->PassThru(pt, k->special == 2 ? NULL : tgt, k->lun, k->special == 1 ? NULL : &p,
                          k->special == 4 ? ev : NULL);
        if (k->special == 4)
            BS->Stall(200000);
        Print(L"@BAD case=%s st=%s signals=%d\r\n", k->name, pt_stname(st), g_bad_signals);
    }
    BS->CloseEvent(ev);
    pt_free(mem, 8192);
    return 0;
}

/* ---- random packets ---- */

static UINT32 g_rng;

static UINT32 rnd(void)
{
    /* xorshift32 */
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* Opcodes that never change a medium. */
static const UINT8 safe_ops[] = {
    0x00, 0x03, 0x12, 0x1A, 0x25, 0x28, 0x08, 0x88, 0xA8, 0x5A, 0xA0, 0x2F, 0x9E, 0x1B, 0x35,
};

int cases_random(PCAM_EXT_SCSI_PASS_THRU *pt, UINTN count, UINT32 seed)
{
    UINT8 *mem = pt_alloc(8192);
    UINT8 tgt[16], cdb[16], sense[32];
    PCAM_EXT_SCSI_PACKET p;
    pt_cmd c;
    EFI_STATUS st;

    if (mem == NULL)
        return 1;
    g_rng = seed != 0 ? seed : 1;
    for (UINTN i = 0; i < count; i++) {
        UINT32 r = rnd();
        UINT8 t = (UINT8)(r % 10);
        UINT64 lun = (r >> 4) % 10;
        UINT8 cl = (UINT8)((r >> 8) % 19);
        UINT8 dir = (UINT8)((r >> 13) % 4);
        UINT32 len = (r >> 16) % 5 == 0 ? 0 : rnd() % 4097;
        BOOLEAN nullbuf = (rnd() % 8) == 0;
        UINT8 op;

        /* The FAT disk at target 0 LUN 0 only gets what cannot write. */
        r = rnd();
        op = (r & 3) == 0 ? (UINT8)(0xC0 | (r >> 2)) : safe_ops[(r >> 2) % sizeof safe_ops];
        for (UINTN j = 0; j < sizeof cdb; j++)
            cdb[j] = (UINT8)rnd();
        cdb[0] = op;
        if (op == 0x1B)
            cdb[4] = 0x01; /* START STOP UNIT: only ever "start" */
        /* Keep transfer lengths small so overruns stay short. */
        if (op == 0x28 || op == 0x2F) {
            cdb[7] = 0;
            cdb[8] &= 0x0F;
        } else if (op == 0x88 || op == 0x9E) {
            cdb[10] = cdb[11] = cdb[12] = 0;
            cdb[13] &= 0x0F;
        } else if (op == 0xA8 || op == 0xA0) {
            cdb[6] = cdb[7] = cdb[8] = 0;
            cdb[9] &= 0x0F;
        } else if (op == 0x08) {
            cdb[4] &= 0x0F;
        }
        SetMem(tgt, sizeof tgt, 0);
        tgt[0] = t;
        SetMem(&p, sizeof p, 0);
        p.Cdb = cdb;
        p.CdbLength = cl;
        p.DataDirection = dir;
        if (dir == PCAM_EXT_SCSI_DIR_WRITE) {
            /* A write direction with a read opcode: the bytes are junk, never a medium write. */
            p.OutDataBuffer = nullbuf ? NULL : mem;
            p.OutTransferLength = len;
        } else {
            p.InDataBuffer = nullbuf ? NULL : mem;
            p.InTransferLength = len;
        }
        p.SenseData = sense;
        p.SenseDataLength = sizeof sense;
        p.Timeout = 50000000ull; /* 5 s */
        st = pt->PassThru(pt, tgt, lun, &p, NULL);
        Print(L"@RND i=%d t=%d l=%d cl=%d op=%02x dir=%d len=%d nullbuf=%d st=%s ha=%02x ts=%02x\r\n",
              i, t, lun, cl, op, dir, len, nullbuf ? 1 : 0, pt_stname(st), p.HostAdapterStatus,
              p.TargetStatus);
    }
    /* The bus still works. */
    pt_read10(&c, T_PAT, 0, 42, 1, mem, 512);
    st = pt_send(pt, &c);
    Print(L"@RNDHEALTH st=%s data=%s\r\n", pt_stname(st),
          !EFI_ERROR(st) && pt_check_block(mem, 42) ? L"ok" : L"bad");
    pt_free(mem, 8192);
    return 0;
}
