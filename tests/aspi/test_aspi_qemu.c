/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ASPI for Win32 over QEMU's AM53C974 (labels aspi and qemu), through the
 * polled host of aspi_qemuhost.c: the manager reports the adapter, SC_HA_INQUIRY
 * names the chip, SC_GET_DEV_TYPE gives the types the scan found, and
 * SC_EXEC_SCSI_CMD runs INQUIRY, READ(10) (compared with the image) and a
 * TEST UNIT READY that fails with sense in the SRB.
 *
 * Expectations: a disk at ID 1 on an image made by qrig_image (sector n
 * holds qrig_sector(n)), an empty CD-ROM at ID 4, nothing at ID 2; QEMU 7.2's
 * INQUIRY strings "QEMU" / "QEMU HARDDISK"; peripheral types 0 and 5
 * (SPC-4 table 83); sense 2/3A/00 for no medium; wnaspi32.h for SS_*,
 * DTYPE_* and the 0x0101 of GetASPI32SupportInfo (SS_COMP, one adapter).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "aspi_qemuhost.h"
#include "qemu_rig.h"
#include "wnaspi32.h"

#define BLOCKS 512u
#define SALT 0x710000u

static pcam_qemu_drive drives[2];

static void exec_init(SRB_ExecSCSICmd *s, BYTE ha, BYTE target, BYTE flags, void *buf, DWORD len,
                      const BYTE *cdb, BYTE cdb_len)
{
    memset(s, 0, sizeof *s);
    s->SRB_Cmd = SC_EXEC_SCSI_CMD;
    s->SRB_HaId = ha;
    s->SRB_Flags = flags;
    s->SRB_Target = target;
    s->SRB_BufLen = len;
    s->SRB_BufPointer = buf;
    s->SRB_SenseLen = SENSE_LEN;
    s->SRB_CDBLen = cdb_len;
    memcpy(s->CDBByte, cdb, cdb_len);
}

/* Send and run the bus until the SRB is done (polled host). */
static BYTE exec_run(aspi_qemuhost *h, SRB_ExecSCSICmd *s)
{
    DWORD rc = SendASPI32Command((LPSRB)s);
    if (rc == SS_PENDING)
        assert_true(aspi_qemuhost_drain(h, 15000));
    if (s->SRB_Status != SS_COMP)
        printf("CDB %02x to %u: status 0x%02x, HaStat 0x%02x, TargStat 0x%02x, sense %x/%02x/%02x\n",
               s->CDBByte[0], s->SRB_Target, s->SRB_Status, s->SRB_HaStat, s->SRB_TargStat,
               s->SenseArea[2] & 0x0f, s->SenseArea[12], s->SenseArea[13]);
    return s->SRB_Status;
}

static void test_aspi_over_qemu(void **state)
{
    static const BYTE inq[6] = { 0x12, 0, 0, 0, 36, 0 };
    static const BYTE tur[6] = { 0 };
    BYTE read10[10] = { 0x28, 0, 0, 0, 0, 10, 0, 0, 8, 0 }; /* LBA 10, 8 blocks */
    pcam_aspi_host host;
    aspi_qemuhost h;
    SRB_HAInquiry hai;
    SRB_GDEVBlock gd;
    SRB_ExecSCSICmd x;
    BYTE data[36], buf[8 * 512], want[512];
    char err[2048];
    int rc;

    (void)state;
    aspi_qemuhost_services(&host);
    assert_int_equal(pcam_aspi_init(&host), PCAM_OK);
    rc = aspi_qemuhost_open(&h, drives, 2, err, sizeof err);
    if (rc != 0)
        fail_msg("aspi_qemuhost_open: %d: %s", rc, err);
    assert_int_equal(aspi_qemuhost_attach(&h), PCAM_OK);
    assert_int_equal(h.ha_id, 0);
    assert_int_equal(GetASPI32SupportInfo(), 0x0101);

    memset(&hai, 0, sizeof hai);
    hai.SRB_Cmd = SC_HA_INQUIRY;
    assert_int_equal(SendASPI32Command((LPSRB)&hai), SS_COMP);
    assert_int_equal(hai.HA_Count, 1);
    assert_int_equal(hai.HA_SCSI_ID, 7);
    assert_memory_equal(hai.HA_ManagerId, "pcam ASPI Win32 ", 16);
    assert_memory_equal(hai.HA_Identifier, "AM53C974        ", 16);

    memset(&gd, 0, sizeof gd);
    gd.SRB_Cmd = SC_GET_DEV_TYPE;
    gd.SRB_Target = 1;
    gd.SRB_DeviceType = 0x55;
    assert_int_equal(SendASPI32Command((LPSRB)&gd), SS_COMP);
    assert_int_equal(gd.SRB_DeviceType, DTYPE_DASD);
    gd.SRB_Target = 4;
    assert_int_equal(SendASPI32Command((LPSRB)&gd), SS_COMP);
    assert_int_equal(gd.SRB_DeviceType, DTYPE_CDROM);
    gd.SRB_Target = 2;
    assert_int_equal(SendASPI32Command((LPSRB)&gd), SS_NO_DEVICE);

    /* The scan used up the disk's power-on UNIT ATTENTION. */
    memset(data, 0, sizeof data);
    exec_init(&x, 0, 1, SRB_DIR_IN, data, sizeof data, inq, 6);
    assert_int_equal(exec_run(&h, &x), SS_COMP);
    assert_int_equal(x.SRB_HaStat, HASTAT_OK);
    assert_int_equal(data[0] & 0x1f, 0x00);
    assert_memory_equal(data + 8, "QEMU    ", 8);
    assert_memory_equal(data + 16, "QEMU HARDDISK   ", 16);

    /* INQUIRY does not clear scsi-hd's power-on UNIT ATTENTION (SPC-4
     * 5.14), but the core's scan did, with its TEST UNIT READY loop (issue
     * 16): the client's first media command finds the disk ready. */
    exec_init(&x, 0, 1, SRB_DIR_SCSI, NULL, 0, tur, 6);
    assert_int_equal(exec_run(&h, &x), SS_COMP);
    assert_int_equal(x.SRB_HaStat, HASTAT_OK);
    assert_int_equal(x.SRB_TargStat, 0x00);

    memset(buf, 0, sizeof buf);
    exec_init(&x, 0, 1, SRB_DIR_IN, buf, sizeof buf, read10, 10);
    assert_int_equal(exec_run(&h, &x), SS_COMP);
    for (unsigned i = 0; i < 8; i++) {
        qrig_sector(want, 10 + i, SALT);
        assert_memory_equal(buf + 512 * i, want, 512);
    }

    /* The empty CD-ROM: CHECK CONDITION, sense NOT READY 3A/00 in the SRB. */
    exec_init(&x, 0, 4, SRB_DIR_SCSI, NULL, 0, tur, 6);
    assert_int_equal(exec_run(&h, &x), SS_ERR);
    if ((x.SenseArea[2] & 0x0f) == 0x06) {
        /* Its own power-on UNIT ATTENTION first, as for the disk. */
        assert_int_equal(x.SenseArea[12], 0x29);
        exec_init(&x, 0, 4, SRB_DIR_SCSI, NULL, 0, tur, 6);
        assert_int_equal(exec_run(&h, &x), SS_ERR);
    }
    assert_int_equal(x.SRB_HaStat, HASTAT_OK);
    assert_int_equal(x.SRB_TargStat, 0x02);
    assert_int_equal(x.SenseArea[2] & 0x0f, 0x02);
    assert_int_equal(x.SenseArea[12], 0x3a);
    assert_int_equal(x.SenseArea[13], 0x00);

    assert_int_equal(aspi_qemuhost_close(&h), 0);
    pcam_aspi_shutdown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aspi_over_qemu),
    };

    qrig_require_qemu();
    memset(drives, 0, sizeof drives);
    drives[0].image = qrig_image("aspi.img", BLOCKS, SALT);
    drives[0].scsi_id = 1;
    drives[1].kind = PCAM_QEMU_CD;
    drives[1].scsi_id = 4;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
