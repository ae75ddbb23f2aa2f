/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcambench.efi: a shell-side loop timing blocking 4 KiB READ(10) PassThru
 * calls on one controller's EXT_SCSI_PASS_THRU, so pcam's driver (on the
 * AM53C974 or the 53C895A) and OVMF's own virtio-scsi driver can be
 * compared in the same VM on the same image. A figure, not a test: it
 * asserts nothing.
 * usage: pcambench pcam|lsi|virtio [N] [TARGET]
 */
#include "pt_util.h"

EFI_STATUS efi_main(EFI_HANDLE ImageHandle, EFI_SYSTEM_TABLE *SystemTable)
{
    CHAR16 **argv = NULL;
    INTN argc;
    PCAM_EXT_SCSI_PASS_THRU *pt = NULL;
    EFI_HANDLE h;
    BOOLEAN virtio;
    UINTN n, errors = 0;
    UINT8 target;
    UINT8 *b;
    UINT64 t0, t1;
    UINT32 lba = 1;
    EFI_STATUS st;

    InitializeLib(ImageHandle, SystemTable);
    argc = GetShellArgcArgv(ImageHandle, &argv);
    if (argc < 2) {
        Print(L"usage: pcambench pcam|lsi|virtio [N] [TARGET]\r\n");
        return EFI_INVALID_PARAMETER;
    }
    virtio = StrCmp(argv[1], L"virtio") == 0;
    n = argc > 2 ? Atoi(argv[2]) : 2000;
    target = (UINT8)(argc > 3 ? Atoi(argv[3]) : 0);
    /* virtio-scsi: Red Hat vendor 0x1AF4, any device ID (legacy or modern). */
    if (virtio)
        st = pt_find(0x1AF4, 0, &h, &pt);
    else if (StrCmp(argv[1], L"lsi") == 0)
        st = pt_find(0x1000, 0x0012, &h, &pt); /* pcam on the 53C895A */
    else
        st = pt_find(0x1022, 0x2020, &h, &pt); /* pcam on the AM53C974 */
    if (EFI_ERROR(st)) {
        Print(L"@BENCH driver=%s missing\r\n", argv[1]);
        return EFI_NOT_FOUND;
    }
    b = pt_alloc(4096);
    if (b == NULL)
        return EFI_OUT_OF_RESOURCES;
    t0 = pt_now_us();
    for (UINTN i = 0; i < n; i++) {
        pt_cmd c;
        /* A 61-block stride walks the first 8 MiB without cache-line luck. */
        lba = (lba + 61) % 16000u;
        pt_read10(&c, target, 0, lba, 8, b, 4096);
        if (EFI_ERROR(pt_send(pt, &c)) || c.p.InTransferLength != 4096)
            errors++;
    }
    t1 = pt_now_us();
    Print(L"@BENCH driver=%s n=%d errors=%d us=%ld rps=%ld\r\n", argv[1], n, errors, t1 - t0,
          t1 > t0 ? (UINT64)n * 1000000u / (t1 - t0) : 0);
    pt_free(b, 4096);
    return EFI_SUCCESS;
}
