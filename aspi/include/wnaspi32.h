/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wnaspi32.h - the ASPI for Win32 programming interface, as pcam provides it.
 *
 * Written for pcam from the published facts of the interface (command codes,
 * status codes, flag bits, SRB layouts and export names; see
 * /work/shared/ASPI.md). Client programs written for the classic header
 * compile against this one unchanged: the names are the ones they expect.
 *
 * Layout. Every SRB is packed (1-byte alignment).
 *  - 32-bit builds (4-byte pointers): exactly the Win32 layout. Every offset
 *    and size is checked by static assertions in aspi/aspi_layout.c, so a
 *    binary client built against the original header talks to pcam.
 *  - 64-bit builds (8-byte pointers) have their own layout, documented here:
 *    each pointer field is 8 bytes, and the reserved bytes that follow the
 *    pointers shrink so that everything after them keeps its Win32 offset
 *    and every SRB keeps its Win32 size. In SRB_ExecSCSICmd, SRB_BufPointer
 *    is at 0x10 (8 bytes), SRB_SenseLen 0x18, SRB_CDBLen 0x19, SRB_HaStat
 *    0x1A, SRB_TargStat 0x1B, SRB_PostProc 0x1C (8 bytes), SRB_Rsvd2[12]
 *    0x24, and CDBByte stays at 0x30, SenseArea at 0x40, size 0x50 (clients
 *    that check offsetof(CDBByte) == 0x30 keep working). SRB_Abort grows to
 *    0x10 (its pointer is its last field); SRB_BusDeviceReset keeps 0x40
 *    with SRB_PostProc at 0x18 and SRB_Rsvd2[32] at 0x20.
 */
#ifndef PCAM_WNASPI32_H
#define PCAM_WNASPI32_H

#ifdef _WIN32
#include <windows.h>
#define ASPI_CDECL __cdecl
#else
#include <stdint.h>
#define ASPI_CDECL
/** The Win32 base types this interface is written in, for other systems. */
typedef uint8_t BYTE;
typedef uint16_t WORD;
typedef uint32_t DWORD;
typedef int BOOL;
typedef void VOID;
typedef void *LPVOID;
typedef BYTE *LPBYTE;
typedef DWORD *PDWORD;
typedef void *HANDLE;
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Command codes (SRB_Cmd) ---- */
#define SC_HA_INQUIRY 0x00 /**< host adapter inquiry (synchronous) */
#define SC_GET_DEV_TYPE 0x01 /**< device type of a target/LUN (synchronous) */
#define SC_EXEC_SCSI_CMD 0x02 /**< execute a SCSI command (asynchronous) */
#define SC_ABORT_SRB 0x03 /**< abort an SRB (synchronous) */
#define SC_RESET_DEV 0x04 /**< BUS DEVICE RESET (asynchronous) */
#define SC_SET_HA_PARMS 0x05 /**< DOS ASPI only: SS_INVALID_CMD here */
#define SC_GET_DISK_INFO 0x06 /**< drive information (Win9x) */
#define SC_RESCAN_SCSI_BUS 0x07 /**< rescan the bus (synchronous) */
#define SC_GETSET_TIMEOUTS 0x08 /**< get or set per-device timeouts (synchronous) */

/* ---- SRB_Status values ---- */
#define SS_PENDING 0x00 /**< still running */
#define SS_COMP 0x01 /**< completed without error */
#define SS_ABORTED 0x02 /**< aborted by SC_ABORT_SRB */
#define SS_ABORT_FAIL 0x03 /**< the abort could not be done */
#define SS_ERR 0x04 /**< completed with an error: see HaStat/TargStat */
#define SS_INVALID_CMD 0x80 /**< unknown SRB_Cmd */
#define SS_INVALID_HA 0x81 /**< no such host adapter */
#define SS_NO_DEVICE 0x82 /**< no device at that target/LUN */
#define SS_INVALID_SRB 0xE0 /**< malformed SRB */
#define SS_OLD_MANAGER 0xE1 /**< same value as SS_BUFFER_ALIGN (older name) */
#define SS_BUFFER_ALIGN 0xE1 /**< buffer not aligned as HA_Unique asks */
#define SS_ILLEGAL_MODE 0xE2 /**< not supported in this mode */
#define SS_NO_ASPI 0xE3 /**< no ASPI manager */
#define SS_FAILED_INIT 0xE4 /**< the manager failed to initialise */
#define SS_ASPI_IS_BUSY 0xE5 /**< cannot take the request now: retry */
#define SS_BUFFER_TO_BIG 0xE6 /**< transfer longer than the adapter can do */
#define SS_BUFFER_TOO_BIG 0xE6 /**< the same, spelled correctly */
#define SS_MISMATCHED_COMPONENTS 0xE7 /**< components of different versions */
#define SS_NO_ADAPTERS 0xE8 /**< no host adapters */
#define SS_INSUFFICIENT_RESOURCES 0xE9 /**< out of resources */
#define SS_ASPI_IS_SHUTDOWN 0xEA /**< the manager is shutting down */
#define SS_BAD_INSTALL 0xEB /**< bad installation */

/* ---- SRB_HaStat values ---- */
#define HASTAT_OK 0x00 /**< no host adapter error */
#define HASTAT_TIMEOUT 0x09 /**< timed out while queued */
#define HASTAT_COMMAND_TIMEOUT 0x0B /**< timed out while running */
#define HASTAT_MESSAGE_REJECT 0x0D /**< the target rejected a message */
#define HASTAT_BUS_RESET 0x0E /**< lost to a bus (or device) reset */
#define HASTAT_PARITY_ERROR 0x0F /**< unrecovered parity error */
#define HASTAT_REQUEST_SENSE_FAILED 0x10 /**< CHECK CONDITION, REQUEST SENSE failed */
#define HASTAT_SEL_TO 0x11 /**< selection timeout */
#define HASTAT_DO_DU 0x12 /**< data overrun or underrun */
#define HASTAT_BUS_FREE 0x13 /**< unexpected bus free */
#define HASTAT_PHASE_ERR 0x14 /**< illegal phase sequence */

/* ---- SRB_Flags bits ---- */
#define SRB_POSTING 0x01 /**< call SRB_PostProc(srb) on completion */
#define SRB_ENABLE_RESIDUAL_COUNT 0x04 /**< report the residual in SRB_BufLen */
#define SRB_DIR_SCSI 0x00 /**< direction: the CDB decides */
#define SRB_DIR_IN 0x08 /**< data from the target */
#define SRB_DIR_OUT 0x10 /**< data to the target */
#define SRB_EVENT_NOTIFY 0x40 /**< signal the event in SRB_PostProc */

/** Sense bytes in the SRB's own SenseArea (SENSE_LEN + 2 = 16). Clients may
 * allocate more after the SRB and set SRB_SenseLen up to 255. */
#define SENSE_LEN 14

/* ---- Peripheral device types (SRB_DeviceType) ---- */
#define DTYPE_DASD 0x00 /**< direct access (disk) */
#define DTYPE_SEQD 0x01 /**< sequential access (tape) */
#define DTYPE_PRNT 0x02 /**< printer */
#define DTYPE_PROC 0x03 /**< processor */
#define DTYPE_WORM 0x04 /**< write once */
#define DTYPE_CDROM 0x05 /**< CD-ROM */
#define DTYPE_SCAN 0x06 /**< scanner */
#define DTYPE_OPTI 0x07 /**< optical memory */
#define DTYPE_JUKE 0x08 /**< medium changer */
#define DTYPE_COMM 0x09 /**< communications */
#define DTYPE_UNKNOWN 0x1F /**< unknown or no device */

/* ---- SRB_DriveFlags of SC_GET_DISK_INFO ---- */
#define DISK_NOT_INT13 0x00 /**< not reachable through INT 13h */
#define DISK_INT13_AND_DOS 0x01 /**< INT 13h and a DOS drive letter */
#define DISK_INT13 0x02 /**< INT 13h only */
#define DISK_INVALID 0x03 /**< not a disk this call describes */

#pragma pack(push, 1)

/** Header shared by every SRB. */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code */
    BYTE SRB_Status; /**< 01 status */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
} SRB_Header, *PSRB_Header;

/** SC_HA_INQUIRY */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    BYTE HA_Count; /**< 08 number of host adapters */
    BYTE HA_SCSI_ID; /**< 09 the adapter's own SCSI ID */
    BYTE HA_ManagerId[16]; /**< 0A manager name, space padded */
    BYTE HA_Identifier[16]; /**< 1A adapter name, space padded */
    BYTE HA_Unique[16]; /**< 2A alignment, residual, max targets, max transfer */
    WORD HA_Rsvd1; /**< 3A */
} SRB_HAInquiry, *PSRB_HAInquiry, *LPSRB_HAInquiry;

/** SC_GET_DEV_TYPE */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    BYTE SRB_Target; /**< 08 */
    BYTE SRB_Lun; /**< 09 */
    BYTE SRB_DeviceType; /**< 0A peripheral device type */
    BYTE SRB_Rsvd1; /**< 0B */
} SRB_GDEVBlock, *PSRB_GDEVBlock, *LPSRB_GDEVBlock;

/** SC_EXEC_SCSI_CMD */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    BYTE SRB_Target; /**< 08 */
    BYTE SRB_Lun; /**< 09 */
    WORD SRB_Rsvd1; /**< 0A */
    DWORD SRB_BufLen; /**< 0C data length in; residual out when asked */
    BYTE *SRB_BufPointer; /**< 10 data buffer */
    BYTE SRB_SenseLen; /**< 14 sense bytes wanted in SenseArea */
    BYTE SRB_CDBLen; /**< 15 */
    BYTE SRB_HaStat; /**< 16 host adapter status */
    BYTE SRB_TargStat; /**< 17 SCSI status byte */
    LPVOID SRB_PostProc; /**< 18 posting routine or event handle */
#if defined(_WIN64) || (!defined(_WIN32) && UINTPTR_MAX > 0xFFFFFFFFu)
    BYTE SRB_Rsvd2[12]; /**< 24 (64-bit layout) */
#else
    BYTE SRB_Rsvd2[20]; /**< 1C */
#endif
    BYTE CDBByte[16]; /**< 30 the CDB */
    BYTE SenseArea[SENSE_LEN + 2]; /**< 40 sense data (may run past the SRB) */
} SRB_ExecSCSICmd, *PSRB_ExecSCSICmd, *LPSRB_ExecSCSICmd;

/** SC_ABORT_SRB */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    LPVOID SRB_ToAbort; /**< 08 the SRB to abort */
} SRB_Abort, *PSRB_Abort, *LPSRB_Abort;

/** SC_RESET_DEV */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    BYTE SRB_Target; /**< 08 */
    BYTE SRB_Lun; /**< 09 */
    BYTE SRB_Rsvd1[12]; /**< 0A */
    BYTE SRB_HaStat; /**< 16 */
    BYTE SRB_TargStat; /**< 17 */
    LPVOID SRB_PostProc; /**< 18 */
#if defined(_WIN64) || (!defined(_WIN32) && UINTPTR_MAX > 0xFFFFFFFFu)
    BYTE SRB_Rsvd2[32]; /**< 20 (64-bit layout) */
#else
    BYTE SRB_Rsvd2[36]; /**< 1C */
#endif
} SRB_BusDeviceReset, *PSRB_BusDeviceReset, *LPSRB_BusDeviceReset;

/** SC_GET_DISK_INFO */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    BYTE SRB_Target; /**< 08 */
    BYTE SRB_Lun; /**< 09 */
    BYTE SRB_DriveFlags; /**< 0A DISK_* */
    BYTE SRB_Int13HDriveInfo; /**< 0B BIOS drive number */
    BYTE SRB_Heads; /**< 0C translated geometry */
    BYTE SRB_Sectors; /**< 0D */
    BYTE SRB_Rsvd1[10]; /**< 0E */
} SRB_GetDiskInfo, *PSRB_GetDiskInfo, *LPSRB_GetDiskInfo;

/** SC_RESCAN_SCSI_BUS */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
} SRB_RescanPort, *PSRB_RescanPort, *LPSRB_RescanPort;

/** SC_GETSET_TIMEOUTS: SRB_DIR_IN reads, SRB_DIR_OUT sets; 0xFF in HaId,
 * Target or Lun is a wildcard when setting. Timeouts are in seconds. */
typedef struct {
    BYTE SRB_Cmd; /**< 00 command code (SC_*) */
    BYTE SRB_Status; /**< 01 status (SS_*) */
    BYTE SRB_HaId; /**< 02 host adapter number */
    BYTE SRB_Flags; /**< 03 request flags (SRB_*) */
    DWORD SRB_Hdr_Rsvd; /**< 04 reserved, 0 */
    BYTE SRB_Target; /**< 08 */
    BYTE SRB_Lun; /**< 09 */
    DWORD SRB_Timeout; /**< 0A (unaligned) */
} SRB_GetSetTimeouts, *PSRB_GetSetTimeouts, *LPSRB_GetSetTimeouts;

/** GetASPI32Buffer / FreeASPI32Buffer */
typedef struct tag_ASPI32BUFF {
    LPBYTE AB_BufPointer; /**< the buffer (out of GetASPI32Buffer) */
    DWORD AB_BufLen; /**< its length, at most 512 KiB */
    DWORD AB_ZeroFill; /**< nonzero: zero the buffer */
    DWORD AB_Reserved; /**< 0 */
} ASPI32BUFF, *PASPI32BUFF, *LPASPI32BUFF;

#pragma pack(pop)

/** Longest buffer GetASPI32Buffer hands out. */
#define ASPI32BUFF_MAX (512u * 1024u)

/** Any SRB. */
typedef void *LPSRB;

/** The exports (cdecl). */
DWORD ASPI_CDECL GetASPI32SupportInfo(void);
DWORD ASPI_CDECL SendASPI32Command(LPSRB srb);
DWORD ASPI_CDECL GetASPI32DLLVersion(void);
BOOL ASPI_CDECL TranslateASPI32Address(PDWORD path, PDWORD devnode);
BOOL ASPI_CDECL GetASPI32Buffer(PASPI32BUFF buf);
BOOL ASPI_CDECL FreeASPI32Buffer(PASPI32BUFF buf);

#ifdef __cplusplus
}
#endif

#endif /* PCAM_WNASPI32_H */
