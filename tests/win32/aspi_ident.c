/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a legacy program sees of wnaspi32.dll: support info, the adapter's
 * names (SC_HA_INQUIRY, as device lists show them) and the devices
 * (SC_GET_DEV_TYPE), through export ordinals 1 and 2 only. Built twice
 * (aspi/win32/CMakeLists.txt):
 *   aspi_ordinal.exe   imports GetASPI32SupportInfo and SendASPI32Command
 *                      by ordinal (#1, #2) through an import library that
 *                      has no names, as some 2001-era firmware updaters do;
 *                      Windows loads the DLL beside it at start-up.
 *   aspi_loadpath.exe  LoadLibrary of the path in argv[1], then
 *                      GetProcAddress by ordinal: a DLL in another folder
 *                      than the program (which wnaspi32.ini is read).
 * Prints one line per fact; "ident: N device(s)" last, or "ident: FAIL".
 */
#include <stdio.h>
#include <string.h>

#include "wnaspi32.h"

#ifdef PCAM_IDENT_LOADPATH
typedef DWORD(ASPI_CDECL *support_fn)(void);
typedef DWORD(ASPI_CDECL *send_fn)(LPSRB);
static support_fn p_support;
static send_fn p_send;
#define SUPPORT() p_support()
#define SEND(srb) p_send(srb)
#else
#define SUPPORT() GetASPI32SupportInfo()
#define SEND(srb) SendASPI32Command(srb)
#endif

/* A fixed-width, space-padded field without its padding. */
static void print_field(const char *label, const BYTE *f, size_t n)
{
    while (n > 0 && f[n - 1] == ' ')
        n--;
    printf("%s \"%.*s\"", label, (int)n, (const char *)f);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
#ifdef PCAM_IDENT_LOADPATH
    if (argc != 2) {
        printf("usage: aspi_loadpath.exe PATH\\wnaspi32.dll\nident: FAIL\n");
        return 2;
    }
    HMODULE m = LoadLibraryA(argv[1]);
    if (m == NULL) {
        printf("LoadLibrary(%s): error %lu\nident: FAIL\n", argv[1], (unsigned long)GetLastError());
        return 1;
    }
    p_support = (support_fn)(void (*)(void))GetProcAddress(m, MAKEINTRESOURCEA(1));
    p_send = (send_fn)(void (*)(void))GetProcAddress(m, MAKEINTRESOURCEA(2));
    if (p_support == NULL || p_send == NULL) {
        printf("no export at ordinal 1 or 2\nident: FAIL\n");
        return 1;
    }
#else
    (void)argc;
    (void)argv;
    HMODULE m = GetModuleHandleA("wnaspi32.dll");
#endif
    char path[MAX_PATH] = "?";
    if (m != NULL)
        GetModuleFileNameA(m, path, sizeof path);
    printf("wnaspi32.dll: %s\n", path);
    DWORD info = SUPPORT();
    BYTE status = (BYTE)(info >> 8), count = (BYTE)info;
    printf("GetASPI32SupportInfo (ordinal 1): status %02X, %u adapter(s)\n", status, count);
    if (status != SS_COMP) {
        printf("ident: ASPI not available (status %02X)\n", status);
        return 1;
    }
    SRB_HAInquiry ha;
    memset(&ha, 0, sizeof ha);
    ha.SRB_Cmd = SC_HA_INQUIRY;
    DWORD rc = SEND((LPSRB)&ha);
    if (rc != SS_COMP) {
        printf("SC_HA_INQUIRY (ordinal 2): %02lX\nident: FAIL\n", (unsigned long)rc);
        return 1;
    }
    printf("HA 0:");
    print_field(" manager", ha.HA_ManagerId, sizeof ha.HA_ManagerId);
    print_field(", adapter", ha.HA_Identifier, sizeof ha.HA_Identifier);
    printf(", SCSI ID %u\n", ha.HA_SCSI_ID);
    unsigned found = 0, targets = ha.HA_Unique[3] != 0 ? ha.HA_Unique[3] : 8;
    for (BYTE t = 0; t < targets; t++) {
        for (BYTE l = 0; l < 8; l++) {
            SRB_GDEVBlock d;
            memset(&d, 0, sizeof d);
            d.SRB_Cmd = SC_GET_DEV_TYPE;
            d.SRB_Target = t;
            d.SRB_Lun = l;
            if (SEND((LPSRB)&d) != SS_COMP)
                continue;
            printf("  0:%u:%u type %u\n", t, l, d.SRB_DeviceType);
            found++;
        }
    }
    printf("ident: %u device(s)\n", found);
    return 0;
}
