/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SC_EXEC_SCSI_CMD and SC_RESET_DEV over the simulated bus, with a polled
 * host (the bus runs only when the test drains it, so "pending" is
 * observable): data both ways, direction from the flags or from the CDB,
 * 16-byte CDBs (a disk over 2 TiB), autosense of every length, residuals,
 * every error status the simulated targets can produce, the checks made
 * before any bus work, and exactly one notification per request, by posting
 * and by event.
 *
 * Expected bytes: INQUIRY data as hal/sim's disk model builds it (36 bytes,
 * vendor "PCAMSIM", product "DISK", revision "1.00"); fixed-format sense
 * (SPC-3 4.5.3: 70h, key in byte 2, additional length 0Ah in byte 7, ASC in
 * byte 12, ASCQ in byte 13 -> 18 bytes); media filled by aspi_simhost with
 * byte i = i*7 + id*13 + lun.
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

static int setup_one_slot(void **state)
{
    (void)state;
    return fix_setup(&H, NULL, false, 1);
}

static int setup_strict(void **state)
{
    (void)state;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    sc.cap_align_mask = 3;
    sc.cap_max_xfer = 65536;
    return fix_setup(&H, &sc, false, 0);
}

static int teardown(void **state)
{
    (void)state;
    fix_teardown(&H);
    return 0;
}

static const BYTE cdb_tur[6] = {0x00, 0, 0, 0, 0, 0};
static const BYTE cdb_inq36[6] = {0x12, 0, 0, 0, 36, 0};
static const BYTE cdb_inq100[6] = {0x12, 0, 0, 0, 100, 0};

static uint8_t pattern(unsigned id, unsigned lun, size_t i)
{
    return (uint8_t)(i * 7u + id * 13u + lun);
}

/* Run one exec to completion; checks it was pending first and notified once. */
static BYTE run(SRB_ExecSCSICmd *s)
{
    unsigned before = fix_post_count(s);
    DWORD rc = SendASPI32Command(s);
    BYTE st = (BYTE)rc;
    if (rc == SS_PENDING)
        st = fix_wait(&H, &s->SRB_Status);
    assert_true(fix_idle(&H));
    if ((s->SRB_Flags & SRB_POSTING) != 0)
        assert_int_equal(fix_post_count(s), before + 1);
    return st;
}

/* The first command to a simulated LU reports the power-on UNIT ATTENTION. */
static void clear_ua(BYTE target)
{
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, target, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_TargStat, 0x02);
    assert_int_equal(s.SenseArea[2] & 0x0F, 0x06);
    fix_exec(&s, 0, target, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
}

static void inquiry_posting(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[36];
    memset(buf, 0xEE, sizeof buf);
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, buf, sizeof buf, cdb_inq36, 6, SENSE_LEN);
    s.SRB_HaStat = 0x55;
    s.SRB_TargStat = 0x55;
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    /* Nothing ran yet: pending, and no posting. */
    assert_int_equal(s.SRB_Status, SS_PENDING);
    assert_int_equal(fix_post_count(&s), 0);
    assert_true(fix_idle(&H));
    assert_int_equal(s.SRB_Status, SS_COMP);
    assert_int_equal(fix_post_count(&s), 1);
    assert_int_equal(s.SRB_HaStat, HASTAT_OK);
    assert_int_equal(s.SRB_TargStat, 0);
    assert_int_equal(s.SRB_BufLen, 36); /* residual not asked: untouched */
    assert_int_equal(buf[0], 0x00);
    assert_int_equal(buf[2], 5);
    assert_memory_equal(buf + 8, "PCAMSIM DISK            1.00", 28);
    /* A second drain runs nothing again. */
    assert_int_equal(pcam_aspi_deliver(&H.ad), 0);
    assert_int_equal(fix_post_count(&s), 1);
}

static void residual_when_asked(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[100];
    /* 36 of 100 bytes move: residual 64 in SRB_BufLen. */
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 100,
             cdb_inq100, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(s.SRB_BufLen, 64);
    /* Not asked: the length stays as given. */
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, buf, 100, cdb_inq100, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(s.SRB_BufLen, 100);
    /* A CDB without data phase moves none of the offered bytes. */
    clear_ua(0);
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_ENABLE_RESIDUAL_COUNT, buf, 100, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(s.SRB_BufLen, 100);
}

static void read_write_direction_from_cdb(void **state)
{
    (void)state;
    clear_ua(2);
    SRB_ExecSCSICmd s;
    static BYTE buf[1024];
    /* READ(10) LBA 5, 2 blocks, direction 00: the CDB says DATA IN. */
    const BYTE rd[10] = {0x28, 0, 0, 0, 0, 5, 0, 0, 2, 0};
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_SCSI, buf, sizeof buf, rd, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], pattern(2, 0, 5 * 512 + i));
    /* WRITE(10) LBA 7, 1 block, direction 00: DATA OUT reaches the medium. */
    const BYTE wr[10] = {0x2A, 0, 0, 0, 0, 7, 0, 0, 1, 0};
    for (size_t i = 0; i < 512; i++)
        buf[i] = (BYTE)(0xA5 ^ i);
    fix_exec(&s, 0, 2, 0, SRB_POSTING, buf, 512, wr, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    for (size_t i = 0; i < 512; i++)
        assert_int_equal(H.stores[2][0][7 * 512 + i], (BYTE)(0xA5 ^ i));
    /* The same with an explicit SRB_DIR_OUT. */
    buf[0] = 0x11;
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_OUT, buf, 512, wr, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(H.stores[2][0][7 * 512], 0x11);
    /* A direction flag on a command without data and no buffer is fine. */
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
}

/* A disk over 2 TiB needs 16-byte CDBs (SRB_CDBLen 16, CDBByte holds 16):
 * READ CAPACITY(16) sizes the disk, WRITE(16) and READ(16) find their
 * direction in the CDB and move the data, and a READ(16) at LBA 2^32 + 9
 * reaches the 2048-block target whole (ILLEGAL REQUEST 21/00; an LBA cut to
 * its low 32 bits would read block 9 and succeed). */
static void cdb16_over_2tib(void **state)
{
    (void)state;
    clear_ua(2);
    SRB_ExecSCSICmd s;
    static BYTE buf[512];
    const BYTE rc16[16] = {0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0};
    memset(buf, 0xEE, 32);
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, buf, 32, rc16, 16, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    static const BYTE last_lba_bs[12] = {0, 0, 0, 0, 0, 0, 0x07, 0xFF, 0, 0, 0x02, 0};
    assert_memory_equal(buf, last_lba_bs, 12); /* last LBA 2047, 512-byte blocks */
    const BYTE wr[16] = {0x8A, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0};
    for (size_t i = 0; i < 512; i++)
        buf[i] = (BYTE)(0x3C ^ i);
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_SCSI, buf, 512, wr, 16, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    for (size_t i = 0; i < 512; i++)
        assert_int_equal(H.stores[2][0][9 * 512 + i], (BYTE)(0x3C ^ i));
    const BYTE rd[16] = {0x88, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0};
    memset(buf, 0, sizeof buf);
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_SCSI, buf, 512, rd, 16, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    for (size_t i = 0; i < 512; i++)
        assert_int_equal(buf[i], (BYTE)(0x3C ^ i));
    const BYTE far[16] = {0x88, 0, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0};
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, buf, 512, far, 16, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_TargStat, 0x02);
    assert_int_equal(s.SenseArea[2] & 0x0F, 0x05); /* ILLEGAL REQUEST */
    assert_int_equal(s.SenseArea[12], 0x21);       /* LOGICAL BLOCK ADDRESS OUT OF RANGE */
}

static void autosense_any_length(void **state)
{
    (void)state;
    big_exec b;
    /* 18 bytes asked: the whole fixed-format sense, past SenseArea's 16. */
    fix_exec(&b.srb, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, 18);
    memset(b.srb.SenseArea, 0xEE, sizeof b.srb.SenseArea);
    memset(b.more_sense, 0xEE, sizeof b.more_sense);
    assert_int_equal(run(&b.srb), SS_ERR);
    assert_int_equal(b.srb.SRB_HaStat, HASTAT_OK);
    assert_int_equal(b.srb.SRB_TargStat, 0x02);
    assert_int_equal(b.srb.SenseArea[0], 0x70);
    assert_int_equal(b.srb.SenseArea[2], 0x06); /* UNIT ATTENTION */
    assert_int_equal(b.srb.SenseArea[7], 0x0A);
    assert_int_equal(b.srb.SenseArea[12], 0x29); /* power on, reset */
    assert_int_equal(b.srb.SenseArea[13], 0x00);
    assert_int_equal(b.more_sense[0], 0x00); /* sense byte 16 was written */
    assert_int_equal(b.more_sense[1], 0x00); /* byte 17 */
    assert_int_equal(b.more_sense[2], 0xEE); /* nothing beyond 18 */

    /* 64 asked of a target that has 18: 18 written, the rest untouched. */
    pcam_simlu_unit_attention(pcam_sim_lu(H.sim, 2, 0), 0x29, 0x00);
    fix_exec(&b.srb, 0, 2, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, 64);
    memset(b.srb.SenseArea, 0xEE, sizeof b.srb.SenseArea);
    memset(b.more_sense, 0xEE, sizeof b.more_sense);
    assert_int_equal(run(&b.srb), SS_ERR);
    assert_int_equal(b.srb.SenseArea[12], 0x29);
    assert_int_equal(b.more_sense[1], 0x00);
    assert_int_equal(b.more_sense[2], 0xEE);
    assert_int_equal(b.more_sense[47], 0xEE);

    /* 8 asked: only 8 bytes land. */
    fix_exec(&b.srb, 0, 4, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, 8);
    memset(b.srb.SenseArea, 0xEE, sizeof b.srb.SenseArea);
    assert_int_equal(run(&b.srb), SS_ERR);
    assert_int_equal(b.srb.SenseArea[0], 0x70);
    assert_int_equal(b.srb.SenseArea[7], 0x0A);
    assert_int_equal(b.srb.SenseArea[8], 0xEE);
}

static void no_sense_wanted(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    /* SenseLen 0: CHECK CONDITION is reported, nothing is written. */
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, 0);
    memset(s.SenseArea, 0xEE, sizeof s.SenseArea);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_OK);
    assert_int_equal(s.SRB_TargStat, 0x02);
    for (size_t i = 0; i < sizeof s.SenseArea; i++)
        assert_int_equal(s.SenseArea[i], 0xEE);
}

static void medium_error_sense(void **state)
{
    (void)state;
    clear_ua(0);
    assert_int_equal(pcam_simlu_add_medium_error(pcam_sim_lu(H.sim, 0, 0), 9), 0);
    SRB_ExecSCSICmd s;
    BYTE buf[512];
    const BYTE rd[10] = {0x28, 0, 0, 0, 0, 9, 0, 0, 1, 0};
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, buf, 512, rd, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_TargStat, 0x02);
    assert_int_equal(s.SenseArea[2] & 0x0F, 0x03); /* MEDIUM ERROR */
    assert_int_equal(s.SenseArea[12], 0x11);       /* unrecovered read error */
    /* INFORMATION = the failing LBA, big-endian in bytes 3..6. */
    assert_int_equal(s.SenseArea[6], 9);
}

/* Issue 41 defect 2 (docs/aspi.md, "An empty ID"): an ID the scan found
 * empty is SS_NO_DEVICE at once, never selected (libscg reads SS_ERR as
 * "retry" and lists a phantom); a device the scan found that stops
 * answering selection is SS_NO_DEVICE too, with HaStat 11h saying why. */
static void selection_timeout(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    pcam_sim_bus_stats before, after;
    pcam_sim_bus_stats_get(H.sim, &before);
    fix_exec(&s, 0, 5, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_NO_DEVICE);
    assert_int_equal(s.SRB_Status, SS_NO_DEVICE);
    assert_int_equal(fix_post_count(&s), 1);
    assert_int_equal(s.SRB_HaStat, HASTAT_OK);
    assert_int_equal(s.SRB_TargStat, 0);
    pcam_sim_bus_stats_get(H.sim, &after);
    assert_int_equal(after.sel_timeouts, before.sel_timeouts); /* not selected */
    /* Every LUN counts: target 2's LUN 5 is absent but the target is there,
     * so the command goes to it (its INQUIRY says qualifier 3). */
    BYTE buf[36];
    fix_exec(&s, 0, 2, 5, SRB_POSTING | SRB_DIR_IN, buf, 36, cdb_inq36, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(buf[0] >> 5, 3);
    /* Target 2 pulled from the bus after the scan. */
    clear_ua(2);
    pcam_sim_target_cfg(H.sim, 2)->off_bus = true;
    fix_exec(&s, 0, 2, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_NO_DEVICE);
    assert_int_equal(s.SRB_HaStat, HASTAT_SEL_TO);
    assert_int_equal(s.SRB_TargStat, 0);
    pcam_sim_bus_stats_get(H.sim, &after);
    assert_int_equal(after.sel_timeouts, before.sel_timeouts + 1);
}

static void busy_is_an_error(void **state)
{
    (void)state;
    clear_ua(2);
    pcam_sim_target_cfg(H.sim, 2)->busy_next = 1;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 2, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_OK);
    assert_int_equal(s.SRB_TargStat, 0x08);
    fix_exec(&s, 0, 2, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
}

static void transport_errors(void **state)
{
    (void)state;
    clear_ua(2);
    SRB_ExecSCSICmd s;
    static BYTE buf[1024];
    const BYTE rd2[10] = {0x28, 0, 0, 0, 0, 1, 0, 0, 2, 0};
    /* The target drops the bus half-way through the data. */
    pcam_sim_target_cfg(H.sim, 2)->unexpected_free_next = 1;
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, buf, 1024, rd2, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_BUS_FREE);
    /* A reserved phase after the CDB. */
    pcam_sim_target_cfg(H.sim, 2)->illegal_phase_next = 1;
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, buf, 1024, rd2, 10, SENSE_LEN);
    BYTE st = run(&s);
    assert_int_equal(st, SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_PHASE_ERR);
    /* Two blocks into a one-block buffer: data overrun. The resets above
     * left a UNIT ATTENTION behind; clear it first. */
    for (int i = 0; i < 3; i++) {
        fix_exec(&s, 0, 2, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
        if (run(&s) == SS_COMP)
            break;
    }
    assert_int_equal(s.SRB_Status, SS_COMP);
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, buf, 512, rd2, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_DO_DU);
}

static void command_timeout(void **state)
{
    (void)state;
    clear_ua(2);
    SRB_GetSetTimeouts t;
    memset(&t, 0, sizeof t);
    t.SRB_Cmd = SC_GETSET_TIMEOUTS;
    t.SRB_Flags = SRB_DIR_OUT;
    t.SRB_Target = 2;
    t.SRB_Lun = 0;
    t.SRB_Timeout = 2;
    assert_int_equal(SendASPI32Command(&t), SS_COMP);
    pcam_sim_target_cfg(H.sim, 2)->hang_next = 1;
    SRB_ExecSCSICmd s;
    BYTE buf[512];
    const BYTE rd[10] = {0x28, 0, 0, 0, 0, 1, 0, 0, 1, 0};
    uint64_t t0 = pcam_sim_now(H.sim);
    fix_exec(&s, 0, 2, 0, SRB_POSTING | SRB_DIR_IN, buf, 512, rd, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_ERR);
    assert_int_equal(s.SRB_HaStat, HASTAT_COMMAND_TIMEOUT);
    /* It took the 2 s asked for, not the bus default of 10 s. */
    uint64_t took = pcam_sim_now(H.sim) - t0;
    assert_true(took >= 2000000000ull);
    assert_true(took < 10000000000ull);
}

static void refused_before_the_bus(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[64];
    struct {
        BYTE ha, target, flags, cdb_len;
        const BYTE *cdb;
        void *buf;
        DWORD len;
        BYTE want;
    } cases[] = {
        {1, 0, SRB_POSTING, 6, cdb_tur, NULL, 0, SS_INVALID_HA},                /* bad HaId */
        {0xFF, 0, SRB_POSTING, 6, cdb_tur, NULL, 0, SS_INVALID_HA},
        {0, 0, SRB_POSTING | SRB_DIR_IN | SRB_DIR_OUT, 6, cdb_inq36, buf, 36, SS_INVALID_SRB},
        {0, 0, SRB_POSTING | 0x02, 6, cdb_tur, NULL, 0, SS_INVALID_SRB},        /* LINKING */
        {0, 0, SRB_POSTING | 0x80, 6, cdb_tur, NULL, 0, SS_INVALID_SRB},        /* reserved bit */
        {0, 0, SRB_POSTING, 0, cdb_tur, NULL, 0, SS_INVALID_SRB},               /* CDBLen 0 */
        {0, 0, SRB_POSTING, 17, cdb_tur, NULL, 0, SS_INVALID_SRB},              /* CDBLen 17 */
        {0, 0, SRB_POSTING | SRB_DIR_IN, 6, cdb_inq36, NULL, 36, SS_INVALID_SRB}, /* no buffer */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fix_post_reset();
        fix_exec(&s, cases[i].ha, cases[i].target, 0, cases[i].flags, cases[i].buf, cases[i].len,
                 cases[i].cdb, 6, SENSE_LEN);
        s.SRB_CDBLen = cases[i].cdb_len;
        s.SRB_HaStat = 0x55;
        assert_int_equal(SendASPI32Command(&s), cases[i].want);
        assert_int_equal(s.SRB_Status, cases[i].want);
        assert_int_equal(s.SRB_HaStat, 0);
        /* Refused at once, still notified exactly once. */
        assert_int_equal(fix_post_count(&s), 1);
    }
    /* A vendor opcode with data and no direction: the CDB cannot say. */
    const BYTE vendor[6] = {0xC1, 0, 0, 0, 0, 0};
    fix_post_reset();
    fix_exec(&s, 0, 0, 0, SRB_POSTING, buf, 16, vendor, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_SRB);
    assert_int_equal(fix_post_count(&s), 1);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
}

static void refused_by_the_core(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    /* LUN 8 on a bus of 8 LUNs: the core refuses it (PATH_INVALID) through
     * the completion path, inside the call, still one posting. (A CDB whose
     * length does not match its group is no longer refused: the layer
     * passes it through, see test_aspi_defects.) */
    fix_exec(&s, 0, 0, 8, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    /* It completed inside the call: status final and posted already. */
    assert_int_equal(s.SRB_Status, SS_NO_DEVICE);
    assert_int_equal(fix_post_count(&s), 1);
    /* The adapter's own ID is not a path (CAM path invalid): no device
     * there, on a valid adapter. */
    fix_exec(&s, 0, 7, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_NO_DEVICE);
    assert_int_equal(fix_post_count(&s), 2);
}

static void both_notify_flags_not_notified(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_SRB);
    assert_int_equal(s.SRB_Status, SS_INVALID_SRB);
    assert_int_equal(fix_post_total(), 0);
}

static void event_notify(void **state)
{
    (void)state;
    aspi_sim_event ev;
    aspi_sim_event_init(&ev);
    SRB_ExecSCSICmd s;
    BYTE buf[36];
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY | SRB_DIR_IN, buf, 36, cdb_inq36, 6, SENSE_LEN);
    s.SRB_PostProc = &ev;
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_int_equal(aspi_sim_event_count(&ev), 0);
    assert_true(fix_idle(&H));
    assert_int_equal(s.SRB_Status, SS_COMP);
    assert_int_equal(aspi_sim_event_count(&ev), 1);
    assert_true(aspi_sim_event_wait(&ev, 0));
    /* An immediate refusal signals too, once. */
    fix_exec(&s, 2, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = &ev;
    assert_int_equal(SendASPI32Command(&s), SS_INVALID_HA);
    assert_int_equal(aspi_sim_event_count(&ev), 2);
    /* An empty ID (SS_NO_DEVICE at once), once. */
    fix_exec(&s, 0, 6, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = &ev;
    assert_int_equal(SendASPI32Command(&s), SS_NO_DEVICE);
    assert_true(fix_idle(&H));
    assert_int_equal(aspi_sim_event_count(&ev), 3);
    /* A selection timeout (a disk pulled after the scan), once. */
    pcam_sim_target_cfg(H.sim, 0)->off_bus = true;
    fix_exec(&s, 0, 0, 0, SRB_EVENT_NOTIFY, NULL, 0, cdb_tur, 6, SENSE_LEN);
    s.SRB_PostProc = &ev;
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(s.SRB_Status, SS_NO_DEVICE);
    assert_int_equal(s.SRB_HaStat, HASTAT_SEL_TO);
    assert_int_equal(aspi_sim_event_count(&ev), 4);
    /* No posting happened at all. */
    assert_int_equal(fix_post_total(), 0);
    aspi_sim_event_destroy(&ev);
}

static void polling_client(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    BYTE buf[36];
    fix_exec(&s, 0, 0, 0, SRB_DIR_IN, buf, 36, cdb_inq36, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 1);
    assert_int_equal(fix_wait(&H, &s.SRB_Status), SS_COMP);
    /* Nothing to notify: the slot is free as soon as the status is final. */
    assert_int_equal(pcam_aspi_in_flight(&H.ad), 0);
    assert_int_equal(fix_post_total(), 0);
}

static void slots_exhausted_and_resubmission(void **state)
{
    (void)state;
    SRB_ExecSCSICmd a, b;
    fix_exec(&a, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    fix_exec(&b, 0, 2, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&a), SS_PENDING);
    /* One slot, taken: busy, notified. */
    assert_int_equal(SendASPI32Command(&b), SS_ASPI_IS_BUSY);
    assert_int_equal(b.SRB_Status, SS_ASPI_IS_BUSY);
    assert_int_equal(fix_post_count(&b), 1);
    /* The in-flight SRB handed in again: refused without touching it. */
    assert_int_equal(SendASPI32Command(&a), SS_INVALID_SRB);
    assert_int_equal(a.SRB_Status, SS_PENDING);
    assert_int_equal(fix_post_count(&a), 0);
    assert_true(fix_idle(&H));
    assert_int_equal(a.SRB_Status, SS_ERR); /* the power-on UNIT ATTENTION */
    assert_int_equal(fix_post_count(&a), 1);
}

static void resubmit_before_notification(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    /* Completed, its posting not yet run. */
    H.ad.ops.lock(H.ad.ctx);
    while (fix_status(&s) == SS_PENDING)
        H.ad.ops.wait(H.ad.ctx);
    H.ad.ops.unlock(H.ad.ctx);
    assert_int_equal(s.SRB_Status, SS_ERR); /* power-on UNIT ATTENTION */
    assert_int_equal(fix_post_count(&s), 0);
    /* The status is final: the client may send it again. */
    assert_int_equal(SendASPI32Command(&s), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(s.SRB_Status, SS_COMP);
    assert_int_equal(fix_post_count(&s), 2);
}

static void misaligned_and_oversized(void **state)
{
    (void)state;
    SRB_HAInquiry hai;
    memset(&hai, 0, sizeof hai);
    hai.SRB_Cmd = SC_HA_INQUIRY;
    assert_int_equal(SendASPI32Command(&hai), SS_COMP);
    /* Dword alignment (mask 3) and 64 KiB = 0x00010000 little-endian. */
    static const BYTE unique[8] = {3, 0, 1, 8, 0x00, 0x00, 0x01, 0x00};
    assert_memory_equal(hai.HA_Unique, unique, 8);

    static BYTE big[65536 + 8];
    BYTE *aligned = big + ((4u - ((uintptr_t)big & 3u)) & 3u);
    SRB_ExecSCSICmd s;
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, aligned + 1, 36, cdb_inq36, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_BUFFER_ALIGN);
    assert_int_equal(s.SRB_Status, SS_BUFFER_ALIGN);
    const BYTE rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 129, 0};
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, aligned, 65536 + 4, rd, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_BUFFER_TO_BIG);
    /* Exactly the limit, aligned, is fine. */
    clear_ua(0);
    const BYTE rd128[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 128, 0};
    fix_exec(&s, 0, 0, 0, SRB_POSTING | SRB_DIR_IN, aligned, 65536, rd128, 10, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
    assert_int_equal(aligned[65535], pattern(0, 0, 65535));
    /* No buffer with length 0 is never misaligned. */
    fix_exec(&s, 0, 0, 0, SRB_POSTING, (BYTE *)1, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(run(&s), SS_COMP);
}

static void reset_device(void **state)
{
    (void)state;
    SRB_BusDeviceReset r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESET_DEV;
    r.SRB_Flags = SRB_POSTING;
    r.SRB_Target = 2;
    fix_set_proc(&r.SRB_PostProc, fix_post);
    r.SRB_HaStat = 0x55;
    assert_int_equal(SendASPI32Command(&r), SS_PENDING);
    assert_int_equal(r.SRB_Status, SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(r.SRB_Status, SS_COMP);
    assert_int_equal(r.SRB_HaStat, HASTAT_OK);
    assert_int_equal(fix_post_count(&r), 1);
    pcam_sim_target_stats st;
    pcam_sim_target_stats_get(H.sim, 2, &st);
    assert_int_equal(st.target_resets, 1);
    /* Nobody at ID 5 when the bus was scanned: refused at once, posted once. */
    r.SRB_Target = 5;
    assert_int_equal(SendASPI32Command(&r), SS_NO_DEVICE);
    assert_int_equal(r.SRB_Status, SS_NO_DEVICE);
    assert_true(fix_idle(&H));
    assert_int_equal(fix_post_count(&r), 2);
    /* Target 2 pulled: the reset's selection times out. */
    pcam_sim_target_cfg(H.sim, 2)->off_bus = true;
    r.SRB_Target = 2;
    assert_int_equal(SendASPI32Command(&r), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(r.SRB_Status, SS_NO_DEVICE);
    assert_int_equal(r.SRB_HaStat, HASTAT_SEL_TO);
    pcam_sim_target_cfg(H.sim, 2)->off_bus = false;
    r.SRB_Target = 5;
    /* Bad HaId and both notify flags, refused at once. */
    assert_int_equal(fix_post_count(&r), 3);
    r.SRB_HaId = 4;
    assert_int_equal(SendASPI32Command(&r), SS_INVALID_HA);
    assert_int_equal(fix_post_count(&r), 4);
    r.SRB_HaId = 0;
    r.SRB_Flags = SRB_POSTING | SRB_EVENT_NOTIFY;
    assert_int_equal(SendASPI32Command(&r), SS_INVALID_SRB);
    assert_int_equal(fix_post_count(&r), 4);
    /* By event. */
    aspi_sim_event ev;
    aspi_sim_event_init(&ev);
    r.SRB_Flags = SRB_EVENT_NOTIFY;
    r.SRB_Target = 0;
    r.SRB_PostProc = &ev;
    assert_int_equal(SendASPI32Command(&r), SS_PENDING);
    assert_true(fix_idle(&H));
    assert_int_equal(r.SRB_Status, SS_COMP);
    assert_int_equal(aspi_sim_event_count(&ev), 1);
    aspi_sim_event_destroy(&ev);
}

static void commands_after_shutdown(void **state)
{
    (void)state;
    SRB_ExecSCSICmd s;
    pcam_aspi_shutdown();
    fix_exec(&s, 0, 0, 0, SRB_POSTING, NULL, 0, cdb_tur, 6, SENSE_LEN);
    assert_int_equal(SendASPI32Command(&s), SS_NO_ASPI);
    assert_int_equal(fix_post_count(&s), 1);
    SRB_BusDeviceReset r;
    memset(&r, 0, sizeof r);
    r.SRB_Cmd = SC_RESET_DEV;
    assert_int_equal(SendASPI32Command(&r), SS_NO_ASPI);
    SRB_Abort a;
    memset(&a, 0, sizeof a);
    a.SRB_Cmd = SC_ABORT_SRB;
    a.SRB_ToAbort = &s;
    assert_int_equal(SendASPI32Command(&a), SS_NO_ASPI);
    ASPI32BUFF b;
    memset(&b, 0, sizeof b);
    b.AB_BufLen = 16;
    assert_false(GetASPI32Buffer(&b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(inquiry_posting, setup, teardown),
        cmocka_unit_test_setup_teardown(residual_when_asked, setup, teardown),
        cmocka_unit_test_setup_teardown(read_write_direction_from_cdb, setup, teardown),
        cmocka_unit_test_setup_teardown(cdb16_over_2tib, setup, teardown),
        cmocka_unit_test_setup_teardown(autosense_any_length, setup, teardown),
        cmocka_unit_test_setup_teardown(no_sense_wanted, setup, teardown),
        cmocka_unit_test_setup_teardown(medium_error_sense, setup, teardown),
        cmocka_unit_test_setup_teardown(selection_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(busy_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(transport_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(command_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_before_the_bus, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_by_the_core, setup, teardown),
        cmocka_unit_test_setup_teardown(both_notify_flags_not_notified, setup, teardown),
        cmocka_unit_test_setup_teardown(event_notify, setup, teardown),
        cmocka_unit_test_setup_teardown(polling_client, setup, teardown),
        cmocka_unit_test_setup_teardown(slots_exhausted_and_resubmission, setup_one_slot, teardown),
        cmocka_unit_test_setup_teardown(resubmit_before_notification, setup, teardown),
        cmocka_unit_test_setup_teardown(misaligned_and_oversized, setup_strict, teardown),
        cmocka_unit_test_setup_teardown(reset_device, setup, teardown),
        cmocka_unit_test_setup_teardown(commands_after_shutdown, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
