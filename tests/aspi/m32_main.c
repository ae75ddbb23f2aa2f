/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ASPI layer in a 32-bit build, without cmocka (no i386 package):
 * the Win32 layout (offsets checked again at run time, next to the
 * compile-time assertions of aspi_layout.c), and the main paths over the
 * simulated bus, polled and threaded. Every check aborts with its line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aspi_simhost.h"
#include "wnaspi32.h"

static int checks;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        checks++;                                                                       \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "m32_main.c:%d: check failed: %s\n", __LINE__, #cond);     \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static unsigned posts;
static void ASPI_CDECL post(void *srb)
{
    (void)srb;
    __atomic_add_fetch(&posts, 1, __ATOMIC_SEQ_CST);
}

static void set_post(SRB_ExecSCSICmd *s)
{
    void (*fn)(void *) = post;
    memcpy(&s->SRB_PostProc, &fn, sizeof fn);
}

static void layout(void)
{
    CHECK(sizeof(void *) == 4);
    CHECK(sizeof(SRB_HAInquiry) == 0x3C);
    CHECK(offsetof(SRB_HAInquiry, HA_Unique) == 0x2A);
    CHECK(sizeof(SRB_GDEVBlock) == 0x0C);
    CHECK(sizeof(SRB_ExecSCSICmd) == 0x50);
    CHECK(offsetof(SRB_ExecSCSICmd, SRB_BufPointer) == 0x10);
    CHECK(offsetof(SRB_ExecSCSICmd, SRB_SenseLen) == 0x14);
    CHECK(offsetof(SRB_ExecSCSICmd, SRB_HaStat) == 0x16);
    CHECK(offsetof(SRB_ExecSCSICmd, SRB_PostProc) == 0x18);
    CHECK(offsetof(SRB_ExecSCSICmd, SRB_Rsvd2) == 0x1C);
    CHECK(offsetof(SRB_ExecSCSICmd, CDBByte) == 0x30);
    CHECK(offsetof(SRB_ExecSCSICmd, SenseArea) == 0x40);
    CHECK(sizeof(SRB_Abort) == 0x0C);
    CHECK(sizeof(SRB_BusDeviceReset) == 0x40);
    CHECK(offsetof(SRB_BusDeviceReset, SRB_PostProc) == 0x18);
    CHECK(sizeof(SRB_GetDiskInfo) == 0x18);
    CHECK(sizeof(SRB_RescanPort) == 0x08);
    CHECK(sizeof(SRB_GetSetTimeouts) == 0x0E);
    CHECK(offsetof(SRB_GetSetTimeouts, SRB_Timeout) == 0x0A);
    CHECK(sizeof(ASPI32BUFF) == 0x10);
    /* Byte image of a filled exec SRB, as a Win32 client lays it out. */
    SRB_ExecSCSICmd s;
    memset(&s, 0, sizeof s);
    s.SRB_BufLen = 0x11223344u;
    s.SRB_CDBLen = 6;
    s.CDBByte[0] = 0x12;
    const BYTE *b = (const BYTE *)&s;
    CHECK(b[0x0C] == 0x44 && b[0x0F] == 0x11); /* little-endian DWORD at 0x0C */
    CHECK(b[0x15] == 6 && b[0x30] == 0x12);
}

static BYTE wait_status(aspi_simhost *h, SRB_ExecSCSICmd *s)
{
    if (!h->threaded)
        aspi_simhost_drain(h, 10000000);
    for (long i = 0; i < 100000000L; i++) {
        BYTE st = __atomic_load_n(&s->SRB_Status, __ATOMIC_ACQUIRE);
        if (st != SS_PENDING)
            return st;
    }
    return 0xFF;
}

static void exec(SRB_ExecSCSICmd *s, BYTE target, BYTE flags, void *buf, DWORD len,
                 const BYTE *cdb, BYTE cdb_len, BYTE sense_len)
{
    memset(s, 0, sizeof *s);
    s->SRB_Cmd = SC_EXEC_SCSI_CMD;
    s->SRB_Flags = flags;
    s->SRB_Target = target;
    s->SRB_BufLen = len;
    s->SRB_BufPointer = buf;
    s->SRB_CDBLen = cdb_len;
    s->SRB_SenseLen = sense_len;
    memcpy(s->CDBByte, cdb, cdb_len);
    if (flags & SRB_POSTING)
        set_post(s);
}

static void run(bool threaded)
{
    aspi_simhost h;
    pcam_aspi_host host;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    aspi_simhost_services(&host);
    CHECK(pcam_aspi_init(&host) == PCAM_OK);
    CHECK(aspi_simhost_init(&h, &sc, NULL) == 0);
    CHECK(aspi_simhost_add_disk(&h, 1, 0, 256, NULL) != NULL);
    CHECK(aspi_simhost_scan(&h) == 0);
    /* The scan cleared the power-on UNIT ATTENTION (issue 16): raise it again,
     * it is the first error this program checks. */
    pcam_sim_lu(h.sim, 1, 0)->ua_pending = true;
    pcam_sim_lu(h.sim, 1, 0)->ua_asc = 0x29;
    pcam_sim_lu(h.sim, 1, 0)->ua_ascq = 0x00;
    CHECK(aspi_simhost_attach(&h, 0, threaded) == 0);
    posts = 0;

    CHECK(GetASPI32SupportInfo() == 0x0101);
    SRB_HAInquiry hai;
    memset(&hai, 0, sizeof hai);
    hai.SRB_Cmd = SC_HA_INQUIRY;
    CHECK(SendASPI32Command(&hai) == SS_COMP);
    CHECK(hai.HA_SCSI_ID == 7 && hai.HA_Unique[2] == 1 && hai.HA_Unique[3] == 8);
    SRB_GDEVBlock g;
    memset(&g, 0, sizeof g);
    g.SRB_Cmd = SC_GET_DEV_TYPE;
    g.SRB_Target = 1;
    CHECK(SendASPI32Command(&g) == SS_COMP && g.SRB_DeviceType == DTYPE_DASD);
    g.SRB_Target = 2;
    CHECK(SendASPI32Command(&g) == SS_NO_DEVICE);

    /* The power-on UNIT ATTENTION with 18 bytes of sense. */
    struct {
        SRB_ExecSCSICmd s;
        BYTE more[16];
    } big;
    static const BYTE tur[6] = {0, 0, 0, 0, 0, 0};
    exec(&big.s, 1, SRB_POSTING, NULL, 0, tur, 6, 18);
    memset(big.more, 0xEE, sizeof big.more);
    CHECK(SendASPI32Command(&big.s) == SS_PENDING);
    CHECK(wait_status(&h, &big.s) == SS_ERR);
    CHECK(big.s.SRB_TargStat == 2 && big.s.SenseArea[2] == 6 && big.s.SenseArea[12] == 0x29);
    CHECK(big.more[1] == 0x00 && big.more[2] == 0xEE);

    /* INQUIRY with a residual. */
    SRB_ExecSCSICmd s;
    BYTE buf[100];
    static const BYTE inq[6] = {0x12, 0, 0, 0, 100, 0};
    exec(&s, 1, SRB_POSTING | SRB_DIR_IN | SRB_ENABLE_RESIDUAL_COUNT, buf, 100, inq, 6, SENSE_LEN);
    CHECK(SendASPI32Command(&s) == SS_PENDING);
    CHECK(wait_status(&h, &s) == SS_COMP);
    CHECK(s.SRB_BufLen == 64 && memcmp(buf + 8, "PCAMSIM ", 8) == 0);

    /* READ(10), direction from the CDB. */
    static const BYTE rd[10] = {0x28, 0, 0, 0, 0, 3, 0, 0, 2, 0};
    BYTE data[1024];
    exec(&s, 1, SRB_POSTING, data, 1024, rd, 10, SENSE_LEN);
    CHECK(SendASPI32Command(&s) == SS_PENDING);
    CHECK(wait_status(&h, &s) == SS_COMP);
    for (unsigned i = 0; i < 1024; i++)
        CHECK(data[i] == (BYTE)((3 * 512 + i) * 7u + 13u));

    /* Refused at once, notified once; a bad HaId. */
    exec(&s, 1, SRB_POSTING, NULL, 0, tur, 6, SENSE_LEN);
    s.SRB_HaId = 3;
    CHECK(SendASPI32Command(&s) == SS_INVALID_HA);

    /* Buffers. */
    ASPI32BUFF ab;
    memset(&ab, 0, sizeof ab);
    ab.AB_BufLen = 512u * 1024u;
    ab.AB_ZeroFill = 1;
    CHECK(GetASPI32Buffer(&ab) && ((uintptr_t)ab.AB_BufPointer & 4095u) == 0 && ab.AB_BufPointer[100] == 0);
    CHECK(FreeASPI32Buffer(&ab));

    /* Wait until every notification ran, then count them. */
    if (threaded) {
        while (pcam_aspi_in_flight(&h.ad) != 0)
            ;
    } else {
        CHECK(aspi_simhost_drain(&h, 10000000));
    }
    CHECK(posts == 4);
    aspi_simhost_fini(&h);
    pcam_aspi_shutdown();
}

int main(void)
{
    layout();
    run(false);
    run(true);
    printf("aspi -m32: %d checks passed\n", checks);
    return 0;
}
