/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SRB layouts, checked at compile time. In a 32-bit build they must be
 * byte for byte the Win32 ones binary clients were built against; in a
 * 64-bit build they must be the layout wnaspi32.h documents. A wrong
 * offset stops the build here rather than corrupting a client's memory.
 */
#include <stddef.h>
#include <stdint.h>

#include "wnaspi32.h"

/* C99 has no _Static_assert: an array of negative size fails instead. */
#define ASPI_ASSERT(name, cond) typedef char aspi_assert_##name[(cond) ? 1 : -1]

#define OFF(type, field) offsetof(type, field)

/* Header, common to all SRBs. */
ASPI_ASSERT(hdr_size, sizeof(SRB_Header) == 0x08);
ASPI_ASSERT(hdr_cmd, OFF(SRB_Header, SRB_Cmd) == 0x00);
ASPI_ASSERT(hdr_status, OFF(SRB_Header, SRB_Status) == 0x01);
ASPI_ASSERT(hdr_haid, OFF(SRB_Header, SRB_HaId) == 0x02);
ASPI_ASSERT(hdr_flags, OFF(SRB_Header, SRB_Flags) == 0x03);
ASPI_ASSERT(hdr_rsvd, OFF(SRB_Header, SRB_Hdr_Rsvd) == 0x04);

/* Pointer-free SRBs: the same in every build. */
ASPI_ASSERT(hai_size, sizeof(SRB_HAInquiry) == 0x3C);
ASPI_ASSERT(hai_count, OFF(SRB_HAInquiry, HA_Count) == 0x08);
ASPI_ASSERT(hai_id, OFF(SRB_HAInquiry, HA_SCSI_ID) == 0x09);
ASPI_ASSERT(hai_mgr, OFF(SRB_HAInquiry, HA_ManagerId) == 0x0A);
ASPI_ASSERT(hai_ident, OFF(SRB_HAInquiry, HA_Identifier) == 0x1A);
ASPI_ASSERT(hai_unique, OFF(SRB_HAInquiry, HA_Unique) == 0x2A);
ASPI_ASSERT(hai_rsvd1, OFF(SRB_HAInquiry, HA_Rsvd1) == 0x3A);

ASPI_ASSERT(gdev_size, sizeof(SRB_GDEVBlock) == 0x0C);
ASPI_ASSERT(gdev_target, OFF(SRB_GDEVBlock, SRB_Target) == 0x08);
ASPI_ASSERT(gdev_lun, OFF(SRB_GDEVBlock, SRB_Lun) == 0x09);
ASPI_ASSERT(gdev_type, OFF(SRB_GDEVBlock, SRB_DeviceType) == 0x0A);
ASPI_ASSERT(gdev_rsvd1, OFF(SRB_GDEVBlock, SRB_Rsvd1) == 0x0B);

ASPI_ASSERT(gdi_size, sizeof(SRB_GetDiskInfo) == 0x18);
ASPI_ASSERT(gdi_target, OFF(SRB_GetDiskInfo, SRB_Target) == 0x08);
ASPI_ASSERT(gdi_lun, OFF(SRB_GetDiskInfo, SRB_Lun) == 0x09);
ASPI_ASSERT(gdi_flags, OFF(SRB_GetDiskInfo, SRB_DriveFlags) == 0x0A);
ASPI_ASSERT(gdi_int13, OFF(SRB_GetDiskInfo, SRB_Int13HDriveInfo) == 0x0B);
ASPI_ASSERT(gdi_heads, OFF(SRB_GetDiskInfo, SRB_Heads) == 0x0C);
ASPI_ASSERT(gdi_sectors, OFF(SRB_GetDiskInfo, SRB_Sectors) == 0x0D);
ASPI_ASSERT(gdi_rsvd1, OFF(SRB_GetDiskInfo, SRB_Rsvd1) == 0x0E);

ASPI_ASSERT(rescan_size, sizeof(SRB_RescanPort) == 0x08);

ASPI_ASSERT(gst_size, sizeof(SRB_GetSetTimeouts) == 0x0E);
ASPI_ASSERT(gst_target, OFF(SRB_GetSetTimeouts, SRB_Target) == 0x08);
ASPI_ASSERT(gst_lun, OFF(SRB_GetSetTimeouts, SRB_Lun) == 0x09);
ASPI_ASSERT(gst_timeout, OFF(SRB_GetSetTimeouts, SRB_Timeout) == 0x0A);

/* Fields before the first pointer, and everything after the reserved
 * bytes, are the same in both layouts. */
ASPI_ASSERT(exec_target, OFF(SRB_ExecSCSICmd, SRB_Target) == 0x08);
ASPI_ASSERT(exec_lun, OFF(SRB_ExecSCSICmd, SRB_Lun) == 0x09);
ASPI_ASSERT(exec_rsvd1, OFF(SRB_ExecSCSICmd, SRB_Rsvd1) == 0x0A);
ASPI_ASSERT(exec_buflen, OFF(SRB_ExecSCSICmd, SRB_BufLen) == 0x0C);
ASPI_ASSERT(exec_bufptr, OFF(SRB_ExecSCSICmd, SRB_BufPointer) == 0x10);
ASPI_ASSERT(exec_cdb, OFF(SRB_ExecSCSICmd, CDBByte) == 0x30);
ASPI_ASSERT(exec_sense, OFF(SRB_ExecSCSICmd, SenseArea) == 0x40);
ASPI_ASSERT(exec_size, sizeof(SRB_ExecSCSICmd) == 0x50);

ASPI_ASSERT(abort_ptr, OFF(SRB_Abort, SRB_ToAbort) == 0x08);

ASPI_ASSERT(bdr_target, OFF(SRB_BusDeviceReset, SRB_Target) == 0x08);
ASPI_ASSERT(bdr_lun, OFF(SRB_BusDeviceReset, SRB_Lun) == 0x09);
ASPI_ASSERT(bdr_rsvd1, OFF(SRB_BusDeviceReset, SRB_Rsvd1) == 0x0A);
ASPI_ASSERT(bdr_hastat, OFF(SRB_BusDeviceReset, SRB_HaStat) == 0x16);
ASPI_ASSERT(bdr_targstat, OFF(SRB_BusDeviceReset, SRB_TargStat) == 0x17);
ASPI_ASSERT(bdr_post, OFF(SRB_BusDeviceReset, SRB_PostProc) == 0x18);
ASPI_ASSERT(bdr_size, sizeof(SRB_BusDeviceReset) == 0x40);

#if UINTPTR_MAX == 0xFFFFFFFFu
/* Win32: 4-byte pointers. */
ASPI_ASSERT(exec_senselen, OFF(SRB_ExecSCSICmd, SRB_SenseLen) == 0x14);
ASPI_ASSERT(exec_cdblen, OFF(SRB_ExecSCSICmd, SRB_CDBLen) == 0x15);
ASPI_ASSERT(exec_hastat, OFF(SRB_ExecSCSICmd, SRB_HaStat) == 0x16);
ASPI_ASSERT(exec_targstat, OFF(SRB_ExecSCSICmd, SRB_TargStat) == 0x17);
ASPI_ASSERT(exec_post, OFF(SRB_ExecSCSICmd, SRB_PostProc) == 0x18);
ASPI_ASSERT(exec_rsvd2, OFF(SRB_ExecSCSICmd, SRB_Rsvd2) == 0x1C);
ASPI_ASSERT(abort_size, sizeof(SRB_Abort) == 0x0C);
ASPI_ASSERT(bdr_rsvd2, OFF(SRB_BusDeviceReset, SRB_Rsvd2) == 0x1C);
ASPI_ASSERT(buff_size, sizeof(ASPI32BUFF) == 0x10);
ASPI_ASSERT(buff_len, OFF(ASPI32BUFF, AB_BufLen) == 0x04);
ASPI_ASSERT(buff_zero, OFF(ASPI32BUFF, AB_ZeroFill) == 0x08);
ASPI_ASSERT(buff_rsvd, OFF(ASPI32BUFF, AB_Reserved) == 0x0C);
#else
/* The documented 64-bit layout: 8-byte pointers, shorter reserved runs. */
ASPI_ASSERT(ptr64, sizeof(void *) == 8);
ASPI_ASSERT(exec_senselen, OFF(SRB_ExecSCSICmd, SRB_SenseLen) == 0x18);
ASPI_ASSERT(exec_cdblen, OFF(SRB_ExecSCSICmd, SRB_CDBLen) == 0x19);
ASPI_ASSERT(exec_hastat, OFF(SRB_ExecSCSICmd, SRB_HaStat) == 0x1A);
ASPI_ASSERT(exec_targstat, OFF(SRB_ExecSCSICmd, SRB_TargStat) == 0x1B);
ASPI_ASSERT(exec_post, OFF(SRB_ExecSCSICmd, SRB_PostProc) == 0x1C);
ASPI_ASSERT(exec_rsvd2, OFF(SRB_ExecSCSICmd, SRB_Rsvd2) == 0x24);
ASPI_ASSERT(abort_size, sizeof(SRB_Abort) == 0x10);
ASPI_ASSERT(bdr_rsvd2, OFF(SRB_BusDeviceReset, SRB_Rsvd2) == 0x20);
ASPI_ASSERT(buff_size, sizeof(ASPI32BUFF) == 0x14);
ASPI_ASSERT(buff_len, OFF(ASPI32BUFF, AB_BufLen) == 0x08);
ASPI_ASSERT(buff_zero, OFF(ASPI32BUFF, AB_ZeroFill) == 0x0C);
ASPI_ASSERT(buff_rsvd, OFF(ASPI32BUFF, AB_Reserved) == 0x10);
#endif

/* A posting routine travels in a pointer field. */
ASPI_ASSERT(fnptr_fits, sizeof(void (*)(void *)) == sizeof(void *));

/* ISO C wants at least one declaration that is not only a typedef. */
extern const int pcam_aspi_layout_checked;
const int pcam_aspi_layout_checked = 1;
