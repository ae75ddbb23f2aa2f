/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * aspiscan: list host adapters, targets and LUNs with their INQUIRY strings
 * and capacity, the way the classic ASPI utilities did. Written against
 * wnaspi32.h alone: on Windows it links against any wnaspi32.dll; here the
 * host program (host_sim.c) brings up pcam on a simulated bus first.
 */
#include <stdio.h>
#include <string.h>

#include "wnaspi32.h"

int aspiscan_main(int argc, char **argv);

static const char *type_name(BYTE type)
{
    static const char *const names[] = {
        "Disk", "Tape", "Printer", "Processor", "WORM", "CD-ROM", "Scanner", "Optical", "Changer", "Comm",
    };
    return type < sizeof names / sizeof names[0] ? names[type] : "Other";
}

/* Copy a space-padded field and trim it. */
static void field(char *out, const BYTE *in, size_t len)
{
    memcpy(out, in, len);
    out[len] = '\0';
    while (len > 0 && (out[len - 1] == ' ' || out[len - 1] == '\0'))
        out[--len] = '\0';
}

/* Send an exec SRB and poll its status, as simple ASPI clients do. */
static BYTE exec(BYTE ha, BYTE target, BYTE lun, const BYTE *cdb, BYTE cdb_len, BYTE *buf, DWORD len,
                 SRB_ExecSCSICmd *srb)
{
    memset(srb, 0, sizeof *srb);
    srb->SRB_Cmd = SC_EXEC_SCSI_CMD;
    srb->SRB_HaId = ha;
    srb->SRB_Flags = len != 0 ? SRB_DIR_IN : 0;
    srb->SRB_Target = target;
    srb->SRB_Lun = lun;
    srb->SRB_BufLen = len;
    srb->SRB_BufPointer = buf;
    srb->SRB_SenseLen = SENSE_LEN;
    srb->SRB_CDBLen = cdb_len;
    memcpy(srb->CDBByte, cdb, cdb_len);
    SendASPI32Command(srb);
    while (*(volatile BYTE *)&srb->SRB_Status == SS_PENDING)
        ;
    return srb->SRB_Status;
}

static void show_device(BYTE ha, BYTE target, BYTE lun, BYTE type)
{
    SRB_ExecSCSICmd srb;
    BYTE inq[36];
    static const BYTE inquiry[6] = {0x12, 0, 0, 0, 36, 0};
    char vendor[9] = "", product[17] = "", rev[5] = "";
    memset(inq, 0, sizeof inq);
    if (exec(ha, target, lun, inquiry, 6, inq, sizeof inq, &srb) == SS_COMP) {
        field(vendor, inq + 8, 8);
        field(product, inq + 16, 16);
        field(rev, inq + 32, 4);
    }
    printf("  %u:%u:%u  %-9s %-8s %-16s %-4s", ha, target, lun, type_name(type), vendor, product, rev);

    /* Capacity: TEST UNIT READY until a pending UNIT ATTENTION is gone. */
    static const BYTE tur[6] = {0, 0, 0, 0, 0, 0};
    BYTE st = SS_ERR;
    for (int i = 0; i < 3 && st != SS_COMP; i++)
        st = exec(ha, target, lun, tur, 6, NULL, 0, &srb);
    if (st != SS_COMP) {
        BYTE key = srb.SenseArea[2] & 0x0F;
        printf("  not ready (sense %X/%02X/%02X)\n", key, srb.SenseArea[12], srb.SenseArea[13]);
        return;
    }
    static const BYTE readcap[10] = {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    BYTE cap[8];
    if (exec(ha, target, lun, readcap, 10, cap, sizeof cap, &srb) != SS_COMP) {
        printf("\n");
        return;
    }
    unsigned long last = ((unsigned long)cap[0] << 24) | ((unsigned long)cap[1] << 16) |
                         ((unsigned long)cap[2] << 8) | cap[3];
    unsigned long bsize = ((unsigned long)cap[4] << 24) | ((unsigned long)cap[5] << 16) |
                          ((unsigned long)cap[6] << 8) | cap[7];
    unsigned long long bytes = (unsigned long long)(last + 1) * bsize;
    printf("  %lu blocks x %lu = %llu MB\n", last + 1, bsize, bytes / (1024ull * 1024ull));
}

int aspiscan_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    DWORD info = GetASPI32SupportInfo();
    BYTE status = (BYTE)(info >> 8), count = (BYTE)info;
    if (status == SS_NO_ADAPTERS) {
        printf("ASPI: no host adapters\n");
        return 0;
    }
    if (status != SS_COMP) {
        fprintf(stderr, "aspiscan: ASPI not available (status %02X)\n", status);
        return 1;
    }
    DWORD ver = GetASPI32DLLVersion();
    printf("ASPI manager version %u.%02u, %u host adapter(s)\n", (unsigned)(ver & 0xFF),
           (unsigned)((ver >> 8) & 0xFF), count);
    unsigned devices = 0;
    for (BYTE ha = 0; ha < count; ha++) {
        SRB_HAInquiry hai;
        memset(&hai, 0, sizeof hai);
        hai.SRB_Cmd = SC_HA_INQUIRY;
        hai.SRB_HaId = ha;
        if (SendASPI32Command(&hai) != SS_COMP)
            continue;
        char mgr[17], ident[17];
        field(mgr, hai.HA_ManagerId, 16);
        field(ident, hai.HA_Identifier, 16);
        unsigned targets = hai.HA_Unique[3] == 16 ? 16 : 8;
        unsigned long maxx = (unsigned long)hai.HA_Unique[4] | ((unsigned long)hai.HA_Unique[5] << 8) |
                             ((unsigned long)hai.HA_Unique[6] << 16) | ((unsigned long)hai.HA_Unique[7] << 24);
        printf("HA %u: %s / %s, SCSI ID %u, %u targets, alignment mask %u, residuals %s, max transfer %lu\n",
               ha, mgr, ident, hai.HA_SCSI_ID, targets,
               (unsigned)(hai.HA_Unique[0] | (hai.HA_Unique[1] << 8)), hai.HA_Unique[2] ? "yes" : "no", maxx);
        for (BYTE t = 0; t < targets; t++) {
            for (BYTE l = 0; l < 8; l++) {
                SRB_GDEVBlock g;
                memset(&g, 0, sizeof g);
                g.SRB_Cmd = SC_GET_DEV_TYPE;
                g.SRB_HaId = ha;
                g.SRB_Target = t;
                g.SRB_Lun = l;
                if (SendASPI32Command(&g) != SS_COMP) {
                    if (l == 0)
                        break; /* no LUN 0: nothing at this target */
                    continue;
                }
                show_device(ha, t, l, g.SRB_DeviceType);
                devices++;
            }
        }
    }
    printf("%u device(s)\n", devices);
    return 0;
}
