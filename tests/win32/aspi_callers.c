/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Three shapes of ASPI caller that pcam's wnaspi32.dll must tell the truth
 * to (issue 41, docs/aspi.md "An empty ID" and "Event notification"), run
 * under Wine on the topology the test sets in PCAM_ASPI_SIM:
 *   bus:narrow,0:disk:64K:noua,3:cd:empty:noua,5:disk:64K:noua:pulled
 * (disk 5 is found by the DLL's scan, then leaves the bus).
 *
 *  1. libscg's (cdrtools' Win32 ASPI transport, scsi-wnt.c, as the Cygwin
 *     cdda2wav and cdrecord use it): every command by SRB_EVENT_NOTIFY on
 *     a fresh manual-reset event, waited for only when the call returned
 *     SS_PENDING, then closed; a status other than SS_COMP is "retryable"
 *     for SS_ERR, SS_ABORTED, SS_ABORT_FAIL, SS_ASPI_IS_BUSY and codes it
 *     does not know, "fatal" for SS_NO_DEVICE, SS_INVALID_HA/CMD/SRB and
 *     the set-up failures. Its bus scan keeps an ID whose TEST UNIT READY
 *     failed with anything but "fatal" and prints that ID's INQUIRY data,
 *     zeros if the INQUIRY failed too: the phantom "'' '' '' NON CCS
 *     Disk". Printed here as "scg 0,ID,0 ...".
 *  2. one that follows the ASPI for Win32 documentation: SC_HA_INQUIRY for
 *     the number of targets, SC_GET_DEV_TYPE for each, SC_EXEC_SCSI_CMD
 *     INQUIRY to those it lists, and SRB_Status then SRB_HaStat read as
 *     documented. Printed as "doc 0:ID ...".
 *  3. an unmodified legacy program: SRB_EVENT_NOTIFY, but it polls
 *     SRB_Status, and closes its event as soon as the status is final; its
 *     next event often gets the same handle number. A signal of the old
 *     handle after that would wake the new request early (counted), and
 *     the DLL must print nothing into the program's stderr.
 */
#include "aspi_classic.h"

#define SCG_NO_ERROR 0
#define SCG_RETRYABLE 1
#define SCG_FATAL 2

/* libscg's send: one command, its event made and closed around it. */
static int scg_send(BYTE target, const BYTE *cdb, BYTE cdb_len, BYTE *buf, DWORD len, BYTE *status)
{
    SRB_ExecSCSICmd s;
    memset(&s, 0, sizeof s);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    s.SRB_Cmd = SC_EXEC_SCSI_CMD;
    s.SRB_Flags = SRB_EVENT_NOTIFY | (len != 0 ? SRB_DIR_IN : 0);
    s.SRB_Target = target;
    s.SRB_BufLen = len;
    s.SRB_BufPointer = buf;
    s.SRB_CDBLen = cdb_len;
    s.SRB_PostProc = ev;
    s.SRB_SenseLen = SENSE_LEN;
    memcpy(s.CDBByte, cdb, cdb_len);
    ResetEvent(ev);
    if (SendASPI32Command(&s) == SS_PENDING && WaitForSingleObject(ev, 10000) == WAIT_OBJECT_0)
        ResetEvent(ev);
    CloseHandle(ev);
    *status = s.SRB_Status;
    switch (s.SRB_Status) {
    case SS_COMP:
        return SCG_NO_ERROR;
    case SS_NO_DEVICE:
    case SS_INVALID_HA:
    case SS_INVALID_SRB:
    case 0x80: /* SS_INVALID_CMD */
    case 0xE1: /* SS_BUFFER_ALIGN */
    case 0xE2: case 0xE3: case 0xE4: case 0xE7: case 0xE8: case 0xEA: case 0xEB:
        return SCG_FATAL;
    default: /* SS_PENDING, SS_ABORTED, SS_ABORT_FAIL, SS_ERR, busy, unknown */
        return SCG_RETRYABLE;
    }
}

static const char *type_name(BYTE t)
{
    return t == 0 ? "Disk" : t == 5 ? "CD-ROM" : "other";
}

static void scg_scan(void)
{
    static const BYTE tur[6] = {0x00, 0, 0, 0, 0, 0}, inq[6] = {0x12, 0, 0, 0, 36, 0};
    unsigned phantoms = 0;
    for (BYTE t = 0; t < 8; t++) {
        BYTE st, buf[36];
        if (t == 7)
            continue; /* the adapter itself */
        int err = scg_send(t, tur, 6, NULL, 0, &st);
        if (err == SCG_FATAL) {
            printf("scg 0,%u,0 %u) *\n", t, t);
            continue;
        }
        memset(buf, 0, sizeof buf);
        int ierr = scg_send(t, inq, 6, buf, 36, &st);
        printf("scg 0,%u,0 %u) '%.8s' '%.16s' '%.4s' %s\n", t, t, (const char *)buf + 8, (const char *)buf + 16,
               (const char *)buf + 32, type_name(buf[0] & 0x1F));
        if (ierr != SCG_NO_ERROR)
            phantoms++;
    }
    CHECK(phantoms == 0, "libscg's scan lists %u ID(s) whose INQUIRY failed", phantoms);
}

static void doc_scan(void)
{
    static const BYTE inq[6] = {0x12, 0, 0, 0, 36, 0};
    SRB_HAInquiry h;
    memset(&h, 0, sizeof h);
    h.SRB_Cmd = SC_HA_INQUIRY;
    CHECK(SendASPI32Command(&h) == SS_COMP, "HA inquiry: %02X", h.SRB_Status);
    unsigned targets = h.HA_Unique[3] == 8 || h.HA_Unique[3] == 16 ? h.HA_Unique[3] : 8;
    for (BYTE t = 0; t < targets; t++) {
        SRB_GDEVBlock g;
        memset(&g, 0, sizeof g);
        g.SRB_Cmd = SC_GET_DEV_TYPE;
        g.SRB_Target = t;
        if (SendASPI32Command(&g) != SS_COMP)
            continue;
        SRB_ExecSCSICmd s;
        BYTE buf[36];
        memset(&s, 0, sizeof s);
        memset(buf, 0, sizeof buf);
        s.SRB_Cmd = SC_EXEC_SCSI_CMD;
        s.SRB_Flags = SRB_DIR_IN;
        s.SRB_Target = t;
        s.SRB_BufLen = sizeof buf;
        s.SRB_BufPointer = buf;
        s.SRB_SenseLen = SENSE_LEN;
        s.SRB_CDBLen = 6;
        memcpy(s.CDBByte, inq, 6);
        SendASPI32Command(&s);
        ULONGLONG t0 = GetTickCount64();
        while (*(volatile BYTE *)&s.SRB_Status == SS_PENDING && GetTickCount64() - t0 < 10000)
            Sleep(1);
        if (s.SRB_Status == SS_COMP)
            printf("doc 0:%u %s '%.8s' '%.16s'\n", t, type_name(g.SRB_DeviceType), (const char *)buf + 8,
                   (const char *)buf + 16);
        else
            printf("doc 0:%u listed, INQUIRY status %02X HaStat %02X%s\n", t, s.SRB_Status, s.SRB_HaStat,
                   s.SRB_Status == SS_NO_DEVICE && s.SRB_HaStat == HASTAT_SEL_TO ? " (gone: selection timeout)"
                                                                                  : "");
    }
}

static void legacy_close_early(void)
{
    static const BYTE tur[6] = {0x00, 0, 0, 0, 0, 0};
    unsigned early = 0, reused = 0, n = 300;
    for (unsigned i = 0; i < n; i++) {
        SRB_ExecSCSICmd s;
        memset(&s, 0, sizeof s);
        HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
        s.SRB_Cmd = SC_EXEC_SCSI_CMD;
        s.SRB_Flags = SRB_EVENT_NOTIFY;
        s.SRB_SenseLen = SENSE_LEN;
        s.SRB_CDBLen = 6;
        s.SRB_PostProc = ev;
        memcpy(s.CDBByte, tur, 6);
        SendASPI32Command(&s);
        while (*(volatile BYTE *)&s.SRB_Status == SS_PENDING)
            ;
        CloseHandle(ev);
        HANDLE next = CreateEventA(NULL, TRUE, FALSE, NULL);
        reused += next == ev;
        Sleep(1);
        early += WaitForSingleObject(next, 0) == WAIT_OBJECT_0;
        CloseHandle(next);
        CHECK(s.SRB_Status == SS_COMP, "legacy TUR %u: %02X", i, s.SRB_Status);
    }
    printf("legacy: %u requests, the next event reused the handle %u times, %u woken early\n", n, reused, early);
    CHECK(early == 0, "%u events signalled by an earlier request", early);
}

int main(void)
{
    load_aspi();
    CHECK((GetASPI32SupportInfo() & 0xFF00) == 0x0100, "ASPI not up: %08lX",
          (unsigned long)GetASPI32SupportInfo());
    scg_scan();
    doc_scan();
    legacy_close_early();
    printf("%u checks, %u failed\n", checks, failures);
    return (int)(failures > 99 ? 99 : failures);
}
