/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A marker application that tests/uefi stores on the SCSI disk: when the
 * shell starts it from there, the firmware is running code read through
 * pcam. Prints one line and nothing else.
 */
#include <efi.h>
#include <efilib.h>

EFI_STATUS efi_main(EFI_HANDLE ImageHandle, EFI_SYSTEM_TABLE *SystemTable)
{
    InitializeLib(ImageHandle, SystemTable);
    Print(L"@HELLO-FROM-SCSI-DISK\r\n");
    return EFI_SUCCESS;
}
