/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the Wine test clients of tests/win32 share: the classic ASPI for
 * Win32 definitions (Adaptec's names and packed SRB layouts, written out
 * here: no pcam header), the exports found with GetProcAddress, and the
 * CHECK counter. One translation unit per program includes it.
 */
#ifndef PCAM_ASPI_CLASSIC_H
#define PCAM_ASPI_CLASSIC_H

#include <windows.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- the classic ASPI for Win32 definitions (Adaptec's names) ---- */
#define SS_PENDING 0x00
#define SS_COMP 0x01
#define SS_ABORTED 0x02
#define SS_ERR 0x04
#define SS_INVALID_HA 0x81
#define SS_NO_DEVICE 0x82
#define SS_INVALID_SRB 0xE0

#define SC_HA_INQUIRY 0x00
#define SC_GET_DEV_TYPE 0x01
#define SC_EXEC_SCSI_CMD 0x02
#define SC_ABORT_SRB 0x03
#define SC_RESET_DEV 0x04
#define SC_GET_DISK_INFO 0x06
#define SC_RESCAN_SCSI_BUS 0x07
#define SC_GETSET_TIMEOUTS 0x08

#define SRB_POSTING 0x01
#define SRB_ENABLE_RESIDUAL_COUNT 0x04
#define SRB_DIR_IN 0x08
#define SRB_DIR_OUT 0x10
#define SRB_EVENT_NOTIFY 0x40

#define HASTAT_OK 0x00
#define HASTAT_COMMAND_TIMEOUT 0x0B
#define HASTAT_SEL_TO 0x11
#define HASTAT_DO_DU 0x12

#define SENSE_LEN 14

/*
 * 64-bit clients: each pointer is 8 bytes and the reserved run after the
 * last pointer shrinks by the 4 bytes each pointer before it grew, so CDBByte, SenseArea and
 * every SRB size keep their Win32 values (the 64-bit layout wnaspi32.h
 * documents in words; written out here, not included).
 */
#ifdef _WIN64
#define PTR_GROWTH 4
#else
#define PTR_GROWTH 0
#endif

#pragma pack(push, 1)
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    BYTE HA_Count, HA_SCSI_ID, HA_ManagerId[16], HA_Identifier[16], HA_Unique[16];
    WORD HA_Rsvd1;
} SRB_HAInquiry;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    BYTE SRB_Target, SRB_Lun, SRB_DeviceType, SRB_Rsvd1;
} SRB_GDEVBlock;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    BYTE SRB_Target, SRB_Lun;
    WORD SRB_Rsvd1;
    DWORD SRB_BufLen;
    BYTE *SRB_BufPointer;
    BYTE SRB_SenseLen, SRB_CDBLen, SRB_HaStat, SRB_TargStat;
    VOID *SRB_PostProc;
    BYTE SRB_Rsvd2[20 - 2 * PTR_GROWTH]; /* after two pointers */
    BYTE CDBByte[16];
    BYTE SenseArea[SENSE_LEN + 2];
} SRB_ExecSCSICmd;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    VOID *SRB_ToAbort;
} SRB_Abort;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    BYTE SRB_Target, SRB_Lun, SRB_Rsvd1[12], SRB_HaStat, SRB_TargStat;
    VOID *SRB_PostProc;
    BYTE SRB_Rsvd2[36 - PTR_GROWTH];
} SRB_BusDeviceReset;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    BYTE SRB_Target, SRB_Lun, SRB_DriveFlags, SRB_Int13HDriveInfo, SRB_Heads, SRB_Sectors;
    BYTE SRB_Rsvd1[10];
} SRB_GetDiskInfo;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
} SRB_RescanPort;
typedef struct {
    BYTE SRB_Cmd, SRB_Status, SRB_HaId, SRB_Flags;
    DWORD SRB_Hdr_Rsvd;
    BYTE SRB_Target, SRB_Lun;
    DWORD SRB_Timeout;
} SRB_GetSetTimeouts;
typedef struct {
    BYTE *AB_BufPointer;
    DWORD AB_BufLen, AB_ZeroFill, AB_Reserved;
} ASPI32BUFF;
#pragma pack(pop)

/* The layout a binary client was compiled with: Win32 (i686), or the
 * documented 64-bit one (x86_64; only SRB_Abort, whose pointer ends it,
 * grows, to 0x10). */
typedef char layout_ok[(sizeof(void *) == 4 + PTR_GROWTH && offsetof(SRB_ExecSCSICmd, CDBByte) == 0x30 &&
                        offsetof(SRB_ExecSCSICmd, SRB_SenseLen) == 0x14 + PTR_GROWTH &&
                        offsetof(SRB_ExecSCSICmd, SRB_PostProc) == 0x18 + PTR_GROWTH &&
                        offsetof(SRB_ExecSCSICmd, SRB_Rsvd2) == 0x1C + 2 * PTR_GROWTH &&
                        sizeof(SRB_ExecSCSICmd) == 0x50 && sizeof(SRB_HAInquiry) == 0x3C &&
                        sizeof(SRB_BusDeviceReset) == 0x40 && offsetof(SRB_BusDeviceReset, SRB_PostProc) == 0x18 &&
                        sizeof(SRB_GetDiskInfo) == 0x18 && sizeof(SRB_GetSetTimeouts) == 0x0E &&
                        sizeof(SRB_Abort) == 0x0C + PTR_GROWTH)
                           ? 1
                           : -1];

typedef DWORD(__cdecl *fn_info)(void);
typedef DWORD(__cdecl *fn_send)(void *);
typedef BOOL(__cdecl *fn_buf)(ASPI32BUFF *);
typedef BOOL(__cdecl *fn_xlat)(DWORD *, DWORD *);

static fn_info GetASPI32SupportInfo, GetASPI32DLLVersion;
static fn_send SendASPI32Command;
static fn_buf GetASPI32Buffer, FreeASPI32Buffer;
static fn_xlat TranslateASPI32Address;

static unsigned checks, failures;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        checks++;                                                                                            \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            printf("FAIL line %d: %s: ", __LINE__, #cond);                                                   \
            printf(__VA_ARGS__);                                                                             \
            printf("\n");                                                                                    \
        }                                                                                                    \
    } while (0)


static FARPROC must_find(HMODULE m, const char *name)
{
    FARPROC f = GetProcAddress(m, name);
    if (f == NULL) {
        printf("FAIL: wnaspi32.dll has no export %s\n", name);
        ExitProcess(100);
    }
    return f;
}

/* FARPROC to the real type, through the generic function pointer type
 * (what GetProcAddress users do, without a cast warning). */
#define FIND(m, var, type) var = (type)(void (*)(void))must_find(m, #var)

/* LoadLibrary and GetProcAddress, as such programs find the DLL: its six
 * exports by name, or exit 100 saying which is missing. */
static HMODULE load_aspi(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    HMODULE m = LoadLibraryA("wnaspi32.dll");
    if (m == NULL) {
        printf("FAIL: LoadLibrary(wnaspi32.dll): error %lu\n", (unsigned long)GetLastError());
        ExitProcess(100);
    }
    FIND(m, GetASPI32SupportInfo, fn_info);
    FIND(m, GetASPI32DLLVersion, fn_info);
    FIND(m, SendASPI32Command, fn_send);
    FIND(m, GetASPI32Buffer, fn_buf);
    FIND(m, FreeASPI32Buffer, fn_buf);
    FIND(m, TranslateASPI32Address, fn_xlat);
    return m;
}

#endif /* PCAM_ASPI_CLASSIC_H */
