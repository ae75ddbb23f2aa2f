/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The UEFI Driver Model side of osshim/uefi: the image entry point, driver
 * binding (Supported and Start through uefi_chip.c's attach table: the
 * AM53C974 on hal/esp, 53C8xx on hal/sym; Stop), COMPONENT_NAME2, image
 * unload, and the ExitBootServices quiesce. Start attaches the chip's
 * back-end and the core in polled mode, scans the bus and installs
 * EXT_SCSI_PASS_THRU on the controller handle, where EDK2's ScsiBusDxe
 * binds. It must never make a bus decision of its own.
 */
#include "uefi_internal.h"
#include "pcam/pcam_version.h"

static EFI_HANDLE g_image;
static UINTN g_started;

static EFI_GUID pci_io_guid = EFI_PCI_IO_PROTOCOL_GUID;
static EFI_GUID binding_guid = EFI_DRIVER_BINDING_PROTOCOL_GUID;
static EFI_GUID name2_guid = EFI_COMPONENT_NAME2_PROTOCOL_GUID;
static EFI_GUID loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;

static EFI_STATUS EFIAPI drv_supported(EFI_DRIVER_BINDING_PROTOCOL *This, EFI_HANDLE Controller,
                                       EFI_DEVICE_PATH *RemainingDevicePath);
/* A DC-390's per-target limits become the core's user limits. */
static void user_limits(pcam_uefi_ctrl *c)
{
    EFI_TPL old = pcam_uefi_lock();

    (void)pcam_dc390_set_limits(&c->bus, &c->nvram);
    pcam_uefi_unlock(old);
}

static EFI_STATUS EFIAPI drv_start(EFI_DRIVER_BINDING_PROTOCOL *This, EFI_HANDLE Controller,
                                   EFI_DEVICE_PATH *RemainingDevicePath);
static EFI_STATUS EFIAPI drv_stop(EFI_DRIVER_BINDING_PROTOCOL *This, EFI_HANDLE Controller,
                                  UINTN NumberOfChildren, EFI_HANDLE *ChildHandleBuffer);

static EFI_DRIVER_BINDING_PROTOCOL g_binding = {
    drv_supported, drv_start, drv_stop, 0x10, NULL, NULL,
};

/* ---- COMPONENT_NAME2 ---- */

/* The version as every other build reports it (pcam_version.h). */
static CHAR16 g_driver_name[] = L"pcam SCSI pass-thru driver (AM53C974, 53C8xx) " PCAM_VERSION_STRING;

static BOOLEAN lang_en(const CHAR8 *lang)
{
    /* RFC 4646: "en" or "en-..." */
    return lang[0] == 'e' && lang[1] == 'n' && (lang[2] == '\0' || lang[2] == '-');
}

static EFI_STATUS EFIAPI name_driver(EFI_COMPONENT_NAME2_PROTOCOL *This, CHAR8 *Language,
                                     CHAR16 **DriverName)
{
    if (This == NULL || Language == NULL || DriverName == NULL)
        return EFI_INVALID_PARAMETER;
    if (!lang_en(Language))
        return EFI_UNSUPPORTED;
    *DriverName = g_driver_name;
    return EFI_SUCCESS;
}

static pcam_uefi_ctrl *ctrl_of(EFI_HANDLE Controller)
{
    PCAM_EXT_SCSI_PASS_THRU *pt = NULL;
    pcam_uefi_ctrl *c;

    if (EFI_ERROR(BS->OpenProtocol(Controller, &pcam_uefi_pt_guid, (VOID **)&pt,
                                   g_binding.DriverBindingHandle, Controller,
                                   EFI_OPEN_PROTOCOL_GET_PROTOCOL)) ||
        pt == NULL)
        return NULL;
    c = PCAM_UEFI_FROM_PT(pt);
    /* Another driver's pass-thru on the same handle is not ours to name or stop. */
    return c->signature == PCAM_UEFI_SIGNATURE && c->handle == Controller ? c : NULL;
}

static EFI_STATUS EFIAPI name_controller(EFI_COMPONENT_NAME2_PROTOCOL *This,
                                         EFI_HANDLE ControllerHandle, EFI_HANDLE ChildHandle,
                                         CHAR8 *Language, CHAR16 **ControllerName)
{
    pcam_uefi_ctrl *c;

    if (This == NULL || ControllerHandle == NULL || Language == NULL || ControllerName == NULL)
        return EFI_INVALID_PARAMETER;
    c = ctrl_of(ControllerHandle);
    if (ChildHandle != NULL || c == NULL)
        return EFI_UNSUPPORTED;
    if (!lang_en(Language))
        return EFI_UNSUPPORTED;
    *ControllerName = c->name;
    return EFI_SUCCESS;
}

static EFI_COMPONENT_NAME2_PROTOCOL g_name2 = {
    name_driver, name_controller, (CHAR8 *)"en",
};

/* ---- driver binding ---- */

static EFI_STATUS EFIAPI drv_supported(EFI_DRIVER_BINDING_PROTOCOL *This, EFI_HANDLE Controller,
                                       EFI_DEVICE_PATH *RemainingDevicePath)
{
    EFI_PCI_IO *pci = NULL;
    EFI_STATUS st;
    const pcam_uefi_chip *chip;

    (void)RemainingDevicePath;
    st = BS->OpenProtocol(Controller, &pci_io_guid, (VOID **)&pci, This->DriverBindingHandle,
                          Controller, EFI_OPEN_PROTOCOL_BY_DRIVER);
    if (EFI_ERROR(st))
        return st;
    chip = pcam_uefi_chip_find(pci, NULL, NULL);
    BS->CloseProtocol(Controller, &pci_io_guid, This->DriverBindingHandle, Controller);
    return chip != NULL ? EFI_SUCCESS : EFI_UNSUPPORTED;
}

static void EFIAPI on_exit_boot_services(EFI_EVENT ev, VOID *ctx)
{
    pcam_uefi_ctrl *c = ctx;

    (void)ev;
    /* No allocation, no event signalling, no unmapping past this point:
     * stop the chip so the OS finds it idle, and nothing else. */
    c->quiesced = TRUE;
    if (c->bus_up) {
        pcam_bus_shutdown(&c->bus);
        c->chip->stop(c);
    }
}

static void release(pcam_uefi_ctrl *c, EFI_HANDLE Controller)
{
    if (c->timer != NULL)
        BS->CloseEvent(c->timer);
    if (c->exit_bs != NULL)
        BS->CloseEvent(c->exit_bs);
    if (c->bus_up) {
        EFI_TPL old = pcam_uefi_lock();
        /* Every request still in the core completes (aborted) and its
         * event is signalled before the memory goes. */
        pcam_bus_shutdown(&c->bus);
        pcam_uefi_deliver(c);
        c->bus_up = FALSE;
        pcam_uefi_unlock(old);
    }
    if (c->chip != NULL) {
        if (!c->quiesced)
            c->chip->stop(c);
        c->chip->detach(c);
    }
    if (c->attrs_saved)
        c->pci->Attributes(c->pci, EfiPciIoAttributeOperationSet, c->saved_attrs, NULL);
    BS->CloseProtocol(Controller, &pci_io_guid, g_binding.DriverBindingHandle, Controller);
    c->signature = 0;
    BS->FreePool(c);
}

static EFI_STATUS EFIAPI drv_start(EFI_DRIVER_BINDING_PROTOCOL *This, EFI_HANDLE Controller,
                                   EFI_DEVICE_PATH *RemainingDevicePath)
{
    pcam_uefi_ctrl *c = NULL;
    EFI_PCI_IO *pci = NULL;
    pcam_bus_config cfg;
    const pcam_uefi_chip *chip;
    EFI_STATUS st;
    UINT16 device = 0;
    UINT8 revision = 0;
    UINT64 supported = 0;
    uint32_t sst;

    (void)RemainingDevicePath;
    st = BS->OpenProtocol(Controller, &pci_io_guid, (VOID **)&pci, This->DriverBindingHandle,
                          Controller, EFI_OPEN_PROTOCOL_BY_DRIVER);
    if (EFI_ERROR(st))
        return st;
    chip = pcam_uefi_chip_find(pci, &device, &revision);
    if (chip == NULL) {
        BS->CloseProtocol(Controller, &pci_io_guid, This->DriverBindingHandle, Controller);
        return EFI_UNSUPPORTED;
    }
    st = BS->AllocatePool(EfiBootServicesData, sizeof *c, (VOID **)&c);
    if (EFI_ERROR(st)) {
        BS->CloseProtocol(Controller, &pci_io_guid, This->DriverBindingHandle, Controller);
        return EFI_OUT_OF_RESOURCES;
    }
    SetMem(c, sizeof *c, 0);
    c->signature = PCAM_UEFI_SIGNATURE;
    c->handle = Controller;
    c->pci = pci;

    st = pci->Attributes(pci, EfiPciIoAttributeOperationGet, 0, &c->saved_attrs);
    if (!EFI_ERROR(st))
        c->attrs_saved = TRUE;
    st = pci->Attributes(pci, EfiPciIoAttributeOperationSupported, 0, &supported);
    if (!EFI_ERROR(st))
        st = pci->Attributes(pci, EfiPciIoAttributeOperationEnable,
                             supported & (EFI_PCI_IO_ATTRIBUTE_IO | EFI_PCI_IO_ATTRIBUTE_BUS_MASTER),
                             NULL);
    if (EFI_ERROR(st))
        goto fail;

    pcam_uefi_platform_init(c);
    st = chip->attach(c, device, revision);
    if (EFI_ERROR(st))
        goto fail;
    c->chip = chip;
    pcam_bus_config_defaults(&cfg);
    cfg.polled = true; /* UEFI has no interrupts for drivers */
    cfg.luns_per_target = PCAM_UEFI_LUNS;
    pcam_dc390_apply(&c->nvram, NULL, &cfg); /* a DC-390's tag count */
    if (pcam_bus_init(&c->bus, &cfg, &c->hal, &c->plat, c->luns,
                      PCAM_BUS_LUNS(PCAM_UEFI_TARGETS, PCAM_UEFI_LUNS)) != PCAM_OK) {
        st = EFI_DEVICE_ERROR;
        goto fail;
    }
    c->bus_up = TRUE;
    user_limits(c);
    pcam_uefi_pt_init(c);

    /* The device table must be filled before ScsiBus asks for it. */
    sst = pcam_uefi_mgmt(c, PCAM_FN_SCAN_BUS, 0, 0, 0);
    if ((sst & PCAM_STATUS_MASK) != PCAM_REQ_CMP)
        Print(L"pcam: bus scan ended with %a\r\n", pcam_status_name(sst));

    st = BS->CreateEvent(EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_CALLBACK, pcam_uefi_timer, c, &c->timer);
    if (!EFI_ERROR(st))
        st = BS->SetTimer(c->timer, TimerPeriodic, 10000); /* 1 ms, or the firmware's tick */
    if (!EFI_ERROR(st))
        st = BS->CreateEvent(EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_CALLBACK, on_exit_boot_services, c,
                             &c->exit_bs);
    if (!EFI_ERROR(st))
        st = BS->InstallProtocolInterface(&c->handle, &pcam_uefi_pt_guid, EFI_NATIVE_INTERFACE,
                                          &c->pt);
    if (EFI_ERROR(st))
        goto fail;
    g_started++;
    return EFI_SUCCESS;

fail:
    release(c, Controller);
    return st;
}

static EFI_STATUS EFIAPI drv_stop(EFI_DRIVER_BINDING_PROTOCOL *This, EFI_HANDLE Controller,
                                  UINTN NumberOfChildren, EFI_HANDLE *ChildHandleBuffer)
{
    pcam_uefi_ctrl *c;
    EFI_STATUS st;

    (void)This;
    (void)NumberOfChildren;
    (void)ChildHandleBuffer;
    c = ctrl_of(Controller);
    if (c == NULL)
        return EFI_DEVICE_ERROR;
    /* Fails (and we stay up) while ScsiBus cannot let go of the protocol. */
    st = BS->UninstallProtocolInterface(Controller, &pcam_uefi_pt_guid, &c->pt);
    if (EFI_ERROR(st))
        return st;
    release(c, Controller);
    g_started--;
    return EFI_SUCCESS;
}

/* ---- image entry and unload ---- */

static EFI_STATUS EFIAPI drv_unload(EFI_HANDLE ImageHandle)
{
    EFI_HANDLE *h = NULL;
    UINTN n = 0;

    if (ImageHandle != g_image)
        return EFI_INVALID_PARAMETER;
    if (!EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &pci_io_guid, NULL, &n, &h))) {
        for (UINTN i = 0; i < n; i++)
            BS->DisconnectController(h[i], g_binding.DriverBindingHandle, NULL);
        BS->FreePool(h);
    }
    if (g_started != 0)
        return EFI_DEVICE_ERROR; /* a controller would keep running our code */
    BS->UninstallMultipleProtocolInterfaces(g_binding.DriverBindingHandle, &binding_guid, &g_binding,
                                            &name2_guid, &g_name2, NULL);
    return EFI_SUCCESS;
}

EFI_STATUS efi_main(EFI_HANDLE ImageHandle, EFI_SYSTEM_TABLE *SystemTable)
{
    EFI_LOADED_IMAGE *li = NULL;
    EFI_STATUS st;

    InitializeLib(ImageHandle, SystemTable);
    g_image = ImageHandle;
    g_binding.ImageHandle = ImageHandle;
    g_binding.DriverBindingHandle = ImageHandle;
    st = BS->InstallMultipleProtocolInterfaces(&g_binding.DriverBindingHandle, &binding_guid,
                                               &g_binding, &name2_guid, &g_name2, NULL);
    if (EFI_ERROR(st))
        return st;
    if (!EFI_ERROR(BS->OpenProtocol(ImageHandle, &loaded_image_guid, (VOID **)&li, ImageHandle,
                                    NULL, EFI_OPEN_PROTOCOL_GET_PROTOCOL)))
        li->Unload = drv_unload;
    return EFI_SUCCESS;
}
