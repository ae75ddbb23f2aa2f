/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The synchronous side of ASPI for Win32 over the simulated bus: support
 * info, DLL version, host adapter inquiry, device type, disk info, rescan,
 * timeouts, the buffer calls, address translation, the status table, and
 * the SRBs refused before any bus work. Expected values come from ASPI.md
 * (codes and layouts) and the fixture's simulated configuration.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
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

static void support_info_before_and_after(void **state)
{
    (void)state;
    /* Before any manager: SS_FAILED_INIT in bits 15..8, no adapters. */
    fix_teardown(&H);
    assert_int_equal(GetASPI32SupportInfo(), 0xE400);
    SRB_HAInquiry hai;
    memset(&hai, 0, sizeof hai);
    hai.SRB_Cmd = SC_HA_INQUIRY;
    assert_int_equal(SendASPI32Command(&hai), SS_NO_ASPI);
    assert_int_equal(hai.SRB_Status, SS_NO_ASPI);
    /* A manager without adapters. */
    assert_int_equal(pcam_aspi_init(NULL), PCAM_OK);
    assert_int_equal(GetASPI32SupportInfo(), 0xE800);
    pcam_aspi_shutdown();
    /* The fixture: one adapter -> SS_COMP << 8 | 1. */
    assert_int_equal(fix_setup(&H, NULL, false, 0), 0);
    assert_int_equal(GetASPI32SupportInfo(), 0x0101);
    /* 4.60: major in bits 7..0, minor in 15..8. */
    assert_int_equal(GetASPI32DLLVersion(), 0x3C04);
}

static void init_rejects_half_services(void **state)
{
    (void)state;
    pcam_aspi_host host;
    memset(&host, 0, sizeof host);
    aspi_simhost_services(&host);
    host.buf_free = NULL;
    assert_int_equal(pcam_aspi_init(&host), PCAM_ERR_NULL);
    aspi_simhost_services(&host);
    host.unlock = NULL;
    assert_int_equal(pcam_aspi_init(&host), PCAM_ERR_NULL);
    /* The failed calls left the fixture's manager alone. */
    assert_int_equal(GetASPI32SupportInfo(), 0x0101);
}

static void ha_inquiry_fields(void **state)
{
    (void)state;
    SRB_HAInquiry s;
    memset(&s, 0xAA, sizeof s);
    s.SRB_Cmd = SC_HA_INQUIRY;
    s.SRB_HaId = 0;
    s.SRB_Flags = 0;
    assert_int_equal(SendASPI32Command(&s), SS_COMP);
    assert_int_equal(s.SRB_Status, SS_COMP);
    assert_int_equal(s.HA_Count, 1);
    assert_int_equal(s.HA_SCSI_ID, 7);
    assert_memory_equal(s.HA_ManagerId, "pcam ASPI Win32 ", 16);
    assert_memory_equal(s.HA_Identifier, "pcam-sim        ", 16);
    /* Alignment mask 0 (bytes), residuals supported, 8 targets on a narrow
     * bus, max transfer 16 MiB = 0x01000000 little-endian, rest zero. */
    static const BYTE unique[16] = {0, 0, 1, 8, 0x00, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(s.HA_Unique, unique, 16);
    assert_int_equal(s.HA_Rsvd1, 0);
}

static void ha_inquiry_bad_haid(void **state)
{
    (void)state;
    SRB_HAInquiry s;
    memset(&s, 0, sizeof s);
    s.SRB_Cmd = SC_HA_INQUIRY;
    s.SRB_HaId = 1;
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_HA);
    assert_int_equal(s.SRB_Status, SS_INVALID_HA);
    /* The count is still there for a client that asked the wrong adapter. */
    assert_int_equal(s.HA_Count, 1);
}

static BYTE gdt(BYTE ha, BYTE target, BYTE lun, BYTE *type)
{
    SRB_GDEVBlock s;
    memset(&s, 0, sizeof s);
    s.SRB_Cmd = SC_GET_DEV_TYPE;
    s.SRB_HaId = ha;
    s.SRB_Target = target;
    s.SRB_Lun = lun;
    s.SRB_DeviceType = 0x55;
    DWORD rc = SendASPI32Command(&s);
    assert_int_equal(rc, s.SRB_Status);
    *type = s.SRB_DeviceType;
    return s.SRB_Status;
}

static void get_dev_type(void **state)
{
    (void)state;
    BYTE type;
    assert_int_equal(gdt(0, 0, 0, &type), SS_COMP);
    assert_int_equal(type, DTYPE_DASD);
    assert_int_equal(gdt(0, 2, 0, &type), SS_COMP);
    assert_int_equal(type, DTYPE_DASD);
    assert_int_equal(gdt(0, 4, 0, &type), SS_COMP);
    assert_int_equal(type, DTYPE_CDROM);
    /* LUN 1 of a disk: the simulated target answers qualifier 3 / type 1Fh. */
    assert_int_equal(gdt(0, 0, 1, &type), SS_NO_DEVICE);
    assert_int_equal(type, DTYPE_UNKNOWN);
    /* Nobody at ID 5 (selection timeout during the scan). */
    assert_int_equal(gdt(0, 5, 0, &type), SS_NO_DEVICE);
    /* The adapter's own ID, a target beyond a narrow bus, a LUN beyond 7. */
    assert_int_equal(gdt(0, 7, 0, &type), SS_NO_DEVICE);
    assert_int_equal(gdt(0, 8, 0, &type), SS_NO_DEVICE);
    assert_int_equal(gdt(0, 0, 8, &type), SS_NO_DEVICE);
    assert_int_equal(gdt(3, 0, 0, &type), SS_INVALID_HA);
}

static bool hook_disk_info(void *ctx, uint8_t target, uint8_t lun, pcam_aspi_disk_info *out)
{
    (void)ctx;
    if (target != 2 || lun != 0)
        return false;
    out->drive_flags = DISK_INT13;
    out->int13_drive = 0x81;
    out->heads = 64;
    out->sectors = 32;
    return true;
}

static BYTE gdi(BYTE target, SRB_GetDiskInfo *s)
{
    memset(s, 0x77, sizeof *s);
    s->SRB_Cmd = SC_GET_DISK_INFO;
    s->SRB_HaId = 0;
    s->SRB_Flags = 0;
    s->SRB_Target = target;
    s->SRB_Lun = 0;
    DWORD rc = SendASPI32Command(s);
    assert_int_equal(rc, s->SRB_Status);
    return s->SRB_Status;
}

static void get_disk_info(void **state)
{
    (void)state;
    SRB_GetDiskInfo s;
    assert_int_equal(gdi(0, &s), SS_COMP);
    assert_int_equal(s.SRB_DriveFlags, DISK_NOT_INT13);
    assert_int_equal(s.SRB_Int13HDriveInfo, 0);
    assert_int_equal(s.SRB_Heads, 0);
    assert_int_equal(s.SRB_Sectors, 0);
    /* A CD-ROM is not a disk. */
    assert_int_equal(gdi(4, &s), SS_COMP);
    assert_int_equal(s.SRB_DriveFlags, DISK_INVALID);
    assert_int_equal(gdi(5, &s), SS_NO_DEVICE);
    /* With the embedder's BIOS mapping. */
    H.ad.ops.disk_info = hook_disk_info;
    assert_int_equal(gdi(2, &s), SS_COMP);
    assert_int_equal(s.SRB_DriveFlags, DISK_INT13);
    assert_int_equal(s.SRB_Int13HDriveInfo, 0x81);
    assert_int_equal(s.SRB_Heads, 64);
    assert_int_equal(s.SRB_Sectors, 32);
    /* The hook declines disk 0: back to the default answer. */
    assert_int_equal(gdi(0, &s), SS_COMP);
    assert_int_equal(s.SRB_DriveFlags, DISK_NOT_INT13);
    s.SRB_HaId = 2;
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_HA);
}

static void rescan_finds_new_device(void **state)
{
    (void)state;
    BYTE type;
    assert_int_equal(gdt(0, 3, 0, &type), SS_NO_DEVICE);
    assert_non_null(aspi_simhost_add_disk(&H, 3, 0, 64, NULL));
    /* The device table is as the last scan left it... */
    assert_int_equal(gdt(0, 3, 0, &type), SS_NO_DEVICE);
    SRB_RescanPort r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESCAN_SCSI_BUS;
    r.SRB_HaId = 0;
    assert_int_equal(SendASPI32Command(&r), SS_COMP);
    assert_int_equal(r.SRB_Status, SS_COMP);
    /* ...until the rescan. */
    assert_int_equal(gdt(0, 3, 0, &type), SS_COMP);
    assert_int_equal(type, DTYPE_DASD);
    r.SRB_HaId = 1;
    assert_int_equal(SendASPI32Command(&r), SS_INVALID_HA);
}

static BYTE timeouts(BYTE flags, BYTE ha, BYTE target, BYTE lun, DWORD *secs)
{
    SRB_GetSetTimeouts s;
    memset(&s, 0, sizeof s);
    s.SRB_Cmd = SC_GETSET_TIMEOUTS;
    s.SRB_HaId = ha;
    s.SRB_Flags = flags;
    s.SRB_Target = target;
    s.SRB_Lun = lun;
    s.SRB_Timeout = *secs;
    DWORD rc = SendASPI32Command(&s);
    assert_int_equal(rc, s.SRB_Status);
    *secs = s.SRB_Timeout;
    return s.SRB_Status;
}

static void getset_timeouts(void **state)
{
    (void)state;
    DWORD t = 99;
    /* Unset: 0, the bus default. */
    assert_int_equal(timeouts(SRB_DIR_IN, 0, 2, 0, &t), SS_COMP);
    assert_int_equal(t, 0);
    t = 30;
    assert_int_equal(timeouts(SRB_DIR_OUT, 0, 2, 0, &t), SS_COMP);
    t = 0;
    assert_int_equal(timeouts(SRB_DIR_IN, 0, 2, 0, &t), SS_COMP);
    assert_int_equal(t, 30);
    assert_int_equal(H.ad.timeout_s[2][0], 30);
    assert_int_equal(H.ad.timeout_s[2][1], 0);
    /* Wildcards: every LUN of target 3, then everything on every adapter. */
    t = 5;
    assert_int_equal(timeouts(SRB_DIR_OUT, 0, 3, 0xFF, &t), SS_COMP);
    assert_int_equal(H.ad.timeout_s[3][0], 5);
    assert_int_equal(H.ad.timeout_s[3][7], 5);
    assert_int_equal(H.ad.timeout_s[2][0], 30);
    t = 108000; /* the 30-hour maximum */
    assert_int_equal(timeouts(SRB_DIR_OUT, 0xFF, 0xFF, 0xFF, &t), SS_COMP);
    assert_int_equal(H.ad.timeout_s[0][0], 108000);
    assert_int_equal(H.ad.timeout_s[15][7], 108000);
    t = 108001;
    assert_int_equal(timeouts(SRB_DIR_OUT, 0, 0, 0, &t), SS_INVALID_SRB);
    /* A get names one path; direction must be exactly one of IN/OUT. */
    assert_int_equal(timeouts(SRB_DIR_IN, 0, 0xFF, 0, &t), SS_INVALID_SRB);
    assert_int_equal(timeouts(0, 0, 0, 0, &t), SS_INVALID_SRB);
    assert_int_equal(timeouts(SRB_DIR_IN | SRB_DIR_OUT, 0, 0, 0, &t), SS_INVALID_SRB);
    assert_int_equal(timeouts(SRB_DIR_IN, 1, 0, 0, &t), SS_INVALID_HA);
    assert_int_equal(timeouts(SRB_DIR_IN, 0, 16, 0, &t), SS_NO_DEVICE);
    assert_int_equal(timeouts(SRB_DIR_IN, 0, 0, 8, &t), SS_NO_DEVICE);
}

static void unknown_and_dos_commands(void **state)
{
    (void)state;
    SRB_Header h;
    memset(&h, 0, sizeof h);
    h.SRB_Cmd = SC_SET_HA_PARMS;
    assert_int_equal(SendASPI32Command(&h), SS_INVALID_CMD);
    assert_int_equal(h.SRB_Status, SS_INVALID_CMD);
    h.SRB_Cmd = 0x09;
    assert_int_equal(SendASPI32Command(&h), SS_INVALID_CMD);
    h.SRB_Cmd = 0xFF;
    assert_int_equal(SendASPI32Command(&h), SS_INVALID_CMD);
    assert_int_equal(SendASPI32Command(NULL), SS_INVALID_SRB);
}

static void buffers(void **state)
{
    (void)state;
    ASPI32BUFF b;
    memset(&b, 0, sizeof b);
    b.AB_BufLen = 512u * 1024u;
    b.AB_ZeroFill = 1;
    assert_true(GetASPI32Buffer(&b));
    assert_non_null(b.AB_BufPointer);
    assert_int_equal((uintptr_t)b.AB_BufPointer & 4095u, 0);
    for (size_t i = 0; i < b.AB_BufLen; i += 4093)
        assert_int_equal(b.AB_BufPointer[i], 0);
    assert_int_equal(b.AB_BufPointer[b.AB_BufLen - 1], 0);
    ASPI32BUFF copy = b;
    assert_true(FreeASPI32Buffer(&b));
    assert_null(b.AB_BufPointer);
    /* A second free of the same buffer, and a pointer never handed out. */
    assert_false(FreeASPI32Buffer(&copy));
    BYTE local[16];
    copy.AB_BufPointer = local;
    assert_false(FreeASPI32Buffer(&copy));
    assert_false(FreeASPI32Buffer(NULL));
    /* One byte over the cap, and zero bytes. */
    b.AB_BufLen = 512u * 1024u + 1u;
    assert_false(GetASPI32Buffer(&b));
    assert_null(b.AB_BufPointer);
    b.AB_BufLen = 0;
    assert_false(GetASPI32Buffer(&b));
    assert_false(GetASPI32Buffer(NULL));
    /* The table holds 32; the 33rd is refused, and freeing one makes room. */
    ASPI32BUFF many[PCAM_ASPI_MAX_BUFFERS + 1];
    for (unsigned i = 0; i < PCAM_ASPI_MAX_BUFFERS; i++) {
        memset(&many[i], 0, sizeof many[i]);
        many[i].AB_BufLen = 100;
        assert_true(GetASPI32Buffer(&many[i]));
    }
    memset(&many[PCAM_ASPI_MAX_BUFFERS], 0, sizeof many[0]);
    many[PCAM_ASPI_MAX_BUFFERS].AB_BufLen = 100;
    assert_false(GetASPI32Buffer(&many[PCAM_ASPI_MAX_BUFFERS]));
    assert_true(FreeASPI32Buffer(&many[5]));
    assert_true(GetASPI32Buffer(&many[PCAM_ASPI_MAX_BUFFERS]));
    for (unsigned i = 0; i <= PCAM_ASPI_MAX_BUFFERS; i++)
        if (i != 5)
            assert_true(FreeASPI32Buffer(&many[i]));
}

static void buffers_left_out_are_freed_at_shutdown(void **state)
{
    (void)state;
    ASPI32BUFF b;
    memset(&b, 0, sizeof b);
    b.AB_BufLen = 4096;
    assert_true(GetASPI32Buffer(&b));
    /* teardown shuts the manager down; Valgrind would see a leak otherwise. */
}

static bool hook_translate(void *ctx, uint32_t *path, uint32_t *devnode)
{
    (void)ctx;
    if (*path != 0) {
        *devnode = 0x1000 + *path;
        return true;
    }
    return false;
}

static void translate_address(void **state)
{
    (void)state;
    DWORD path = 0x00010200, devnode = 0;
    assert_false(TranslateASPI32Address(&path, &devnode));
    assert_false(TranslateASPI32Address(NULL, &devnode));
    pcam_aspi_host host;
    aspi_simhost_services(&host);
    host.translate = hook_translate;
    fix_teardown(&H);
    assert_int_equal(pcam_aspi_init(&host), PCAM_OK);
    assert_true(TranslateASPI32Address(&path, &devnode));
    assert_int_equal(devnode, 0x1000 + 0x00010200);
    path = 0;
    assert_false(TranslateASPI32Address(&path, &devnode));
    pcam_aspi_shutdown();
    assert_int_equal(fix_setup(&H, NULL, false, 0), 0);
}

static void status_table(void **state)
{
    (void)state;
    /* Every CAM status the core defines, against ASPI.md's codes. */
    static const struct {
        uint32_t cam;
        uint8_t ss, ha;
    } want[] = {
        {PCAM_REQ_CMP, 0x01, 0x00},          {PCAM_REQ_ABORTED, 0x02, 0x00},
        {PCAM_REQ_CMP_ERR, 0x04, 0x00},      {PCAM_BUSY, 0x04, 0x00},
        {PCAM_REQ_INVALID, 0xE0, 0x00},      {PCAM_PATH_INVALID, 0x82, 0x00},
        {PCAM_DEV_NOT_THERE, 0x82, 0x00},    {PCAM_SEL_TIMEOUT, 0x82, 0x11}, /* issue 41: no device, HaStat why */
        {PCAM_CMD_TIMEOUT, 0x04, 0x0B},      {PCAM_SCSI_STATUS_ERROR, 0x04, 0x00},
        {PCAM_SCSI_BUS_RESET, 0x04, 0x0E},   {PCAM_UNCOR_PARITY, 0x04, 0x0F},
        {PCAM_AUTOSENSE_FAIL, 0x04, 0x10},   {PCAM_NO_HBA, 0x81, 0x00},
        {PCAM_DATA_RUN_ERR, 0x04, 0x12},     {PCAM_UNEXP_BUSFREE, 0x04, 0x13},
        {PCAM_SEQUENCE_FAIL, 0x04, 0x14},    {PCAM_BDR_SENT, 0x04, 0x0E},
        {PCAM_REQ_TOO_BIG, 0xE6, 0x00},      {PCAM_REQUEUE_REQ, 0xE5, 0x00},
        {PCAM_MSG_REJECT_REC, 0x04, 0x0D},   {PCAM_RESRC_UNAVAIL, 0xE5, 0x00},
        {PCAM_FUNC_NOTAVAIL, 0x80, 0x00},
        /* Flags are ignored; unknown codes and "in progress" are errors. */
        {PCAM_SCSI_STATUS_ERROR | PCAM_AUTOSNS_VALID | PCAM_DEV_QFRZN, 0x04, 0x00},
        {PCAM_REQ_INPROG, 0x04, 0x00},       {0x3F, 0x04, 0x00},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint8_t ss = 0xAA, ha = 0xAA;
        pcam_aspi_map_status(want[i].cam, &ss, &ha);
        assert_int_equal(ss, want[i].ss);
        assert_int_equal(ha, want[i].ha);
    }
    pcam_aspi_map_status(PCAM_REQ_CMP, NULL, NULL); /* NULL outputs are allowed */
}

static void add_adapter_arguments(void **state)
{
    (void)state;
    pcam_aspi_adapter ad;
    pcam_aspi_req reqs[2];
    uint8_t ha = 0xEE;
    assert_int_equal(pcam_aspi_add_adapter(NULL, &H.bus, &H.ad.ops, &H, reqs, 2, &ha), PCAM_ERR_NULL);
    assert_int_equal(pcam_aspi_add_adapter(&ad, &H.bus, &H.ad.ops, &H, reqs, 0, &ha), PCAM_ERR_RANGE);
    pcam_aspi_adapter_ops ops = H.ad.ops;
    ops.wait = NULL;
    assert_int_equal(pcam_aspi_add_adapter(&ad, &H.bus, &ops, &H, reqs, 2, &ha), PCAM_ERR_NULL);
    /* The same bus a second time is a second adapter (HaId 1). */
    assert_int_equal(pcam_aspi_add_adapter(&ad, &H.bus, &H.ad.ops, &H, reqs, 2, &ha), PCAM_OK);
    assert_int_equal(ha, 1);
    assert_int_equal(GetASPI32SupportInfo(), 0x0102);
    for (unsigned i = 2; i < PCAM_ASPI_MAX_ADAPTERS; i++)
        assert_int_equal(pcam_aspi_add_adapter(&ad, &H.bus, &H.ad.ops, &H, reqs, 2, &ha), PCAM_OK);
    assert_int_equal(pcam_aspi_add_adapter(&ad, &H.bus, &H.ad.ops, &H, reqs, 2, &ha), PCAM_ERR_RANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(support_info_before_and_after, setup, teardown),
        cmocka_unit_test_setup_teardown(init_rejects_half_services, setup, teardown),
        cmocka_unit_test_setup_teardown(ha_inquiry_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(ha_inquiry_bad_haid, setup, teardown),
        cmocka_unit_test_setup_teardown(get_dev_type, setup, teardown),
        cmocka_unit_test_setup_teardown(get_disk_info, setup, teardown),
        cmocka_unit_test_setup_teardown(rescan_finds_new_device, setup, teardown),
        cmocka_unit_test_setup_teardown(getset_timeouts, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_and_dos_commands, setup, teardown),
        cmocka_unit_test_setup_teardown(buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(buffers_left_out_are_freed_at_shutdown, setup, teardown),
        cmocka_unit_test_setup_teardown(translate_address, setup, teardown),
        cmocka_unit_test_setup_teardown(status_table, setup, teardown),
        cmocka_unit_test_setup_teardown(add_adapter_arguments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
