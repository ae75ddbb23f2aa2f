/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The per-chip attach table of osshim/uefi: which PCI functions the driver
 * takes and how each back-end is attached over EFI_PCI_IO_PROTOCOL.
 *  - AM53C974 (1022:2020): hal/esp, registers in BAR0 (I/O), its own small
 *    DMA through the platform's Map/Unmap; a Tekram DC-390 (the same IDs)
 *    with its EEPROM's settings (host ID here, limits after bus init).
 *  - 53C8xx (1000:xxxx, hal/sym's chip table, parts with LOAD/STORE):
 *    hal/sym, registers in BAR0 (I/O), the script and per-command blocks in
 *    one PciIo common buffer (AllocateBuffer + Map(CommonBuffer), below
 *    4 GiB), data mapped per request through the platform.
 *  - SAS1068 (1000:0054, QEMU's mptsas1068): hal/mpt, registers in BAR0
 *    (I/O, the same as the memory BAR), its request, chain, sense and reply
 *    frames in such a common buffer too.
 * Everything after attach (the core, PassThru, the status table) is shared.
 * It must never make a bus decision: only where the chip is and what memory
 * it gets.
 */
#include "uefi_internal.h"

#define PCI_VENDOR_AMD 0x1022u
#define PCI_DEVICE_AM53C974 0x2020u
#define PCI_VENDOR_LSI 0x1000u /* NCR / Symbios / LSI Logic */
#define PCI_DEVICE_SAS1068 0x0054u
/* QEMU's PCI devices carry this subsystem vendor (Red Hat, Inc.). */
#define QEMU_SUBSYS_VENDOR 0x1AF4u

/* COMPONENT_NAME2's controller name: "<family> [<model>] (pcam)". */
static void set_name(pcam_uefi_ctrl *c, const CHAR16 *family, const char *model)
{
    static const CHAR16 tail[] = L" (pcam)";
    UINTN n = 0, max = sizeof c->name / sizeof c->name[0] - sizeof tail / sizeof tail[0];

    for (; *family != 0 && n < max; family++)
        c->name[n++] = *family;
    if (model != NULL && n < max)
        c->name[n++] = L' ';
    for (; model != NULL && *model != '\0' && n < max; model++)
        c->name[n++] = (CHAR16)(UINT8)*model;
    for (UINTN i = 0; i < sizeof tail / sizeof tail[0]; i++)
        c->name[n++] = tail[i];
}

/* ---- AM53C974 through hal/esp ---- */

static BOOLEAN esp_match(UINT16 vendor, UINT16 device, UINT8 revision)
{
    (void)revision;
    return vendor == PCI_VENDOR_AMD && device == PCI_DEVICE_AM53C974;
}

/* A Tekram DC-390 has the AM53C974's IDs; its 93C46 answers on pins in
 * configuration space (pcam_esp.h), a plain AM53C974's do not. */
static uint8_t cfg_rd(void *ctx, uint8_t off)
{
    pcam_uefi_ctrl *c = ctx;
    UINT8 v = 0xFF;

    c->pci->Pci.Read(c->pci, EfiPciIoWidthUint8, off, 1, &v);
    return v;
}

static void cfg_wr(void *ctx, uint8_t off, uint8_t v)
{
    pcam_uefi_ctrl *c = ctx;

    c->pci->Pci.Write(c->pci, EfiPciIoWidthUint8, off, 1, &v);
}

static void dc390_read(pcam_uefi_ctrl *c)
{
    /* The platform's context is c as well, so its delay serves the pins. */
    const pcam_dc390_cfg_io io = {c, cfg_rd, cfg_wr, c->plat.delay_us};
    uint8_t raw[PCAM_DC390_EEPROM_BYTES];
    const char *why = "no EEPROM answers";

    if (pcam_dc390_read_eeprom(&io, raw) != PCAM_OK) {
        c->nvram.valid = FALSE;
        return; /* a plain AM53C974 */
    }
    if (pcam_dc390_parse(raw, sizeof raw, &c->nvram, &why) == PCAM_OK)
        Print(L"pcam: Tekram DC-390 EEPROM: host ID %d, %d tags per LUN\r\n", (INT32)c->nvram.host_id,
              (INT32)c->nvram.max_tags);
    else
        Print(L"pcam: DC-390 EEPROM: %a; AM53C974 defaults\r\n", why);
}

static EFI_STATUS esp_attach(pcam_uefi_ctrl *c, UINT16 device, UINT8 revision)
{
    pcam_esp_config ec;
    UINT16 subsys = 0;

    (void)device;
    (void)revision;
    SetMem(&ec, sizeof ec, 0);
    ec.chip = PCAM_ESP_AUTO;
    ec.base = 0; /* offsets into BAR0, which the platform's Io.Read/Write take */
    ec.stride = 4;
    ec.clock_khz = 40000;
    ec.initiator_id = 7;
    ec.use_dma = true;
    c->pci->Pci.Read(c->pci, EfiPciIoWidthUint16, 0x2C, 1, &subsys);
    /* QEMU's model takes SELECT WITH ATN3 as a no-op (a fact of the model). */
    if (subsys == QEMU_SUBSYS_VENDOR)
        ec.flags |= PCAM_ESP_F_NO_SELATN3;
    dc390_read(c);
    pcam_dc390_apply(&c->nvram, &ec, NULL);
    if (pcam_esp_attach(&c->be.esp, &ec, &c->plat, &c->hal) != PCAM_OK ||
        pcam_esp_get_chip(&c->be.esp) != PCAM_ESP_AM53C974)
        return EFI_DEVICE_ERROR;
    set_name(c, c->nvram.valid ? L"Tekram DC-390" : L"AMD AM53C974 PCscsi", NULL);
    return EFI_SUCCESS;
}

/* The core's shutdown reset leaves the ESP idle; nothing is held. */
static void esp_nothing(pcam_uefi_ctrl *c)
{
    (void)c;
}

/* ---- 53C8xx through hal/sym ---- */

static BOOLEAN sym_match(UINT16 vendor, UINT16 device, UINT8 revision)
{
    const pcam_sym_chip_info *ci;

    if (vendor != PCI_VENDOR_LSI)
        return FALSE;
    ci = pcam_sym_chip_lookup(device, revision);
    /* pcam's script needs LOAD/STORE (pcam_sym_attach refuses the rest). */
    return ci != NULL && (ci->flags & PCAM_SYM_F_LDSTR) != 0;
}

/* hal/sym's reset restarts the script; the firmware must not leave it
 * fetching from memory that is about to be freed or handed to the OS. */
static void sym_stop(pcam_uefi_ctrl *c)
{
    pcam_sym_stop(&c->be.sym);
}

/* Give the common buffer back (hal/sym's and hal/mpt's DMA area). */
static void common_detach(pcam_uefi_ctrl *c)
{
    if (c->dma_mapping != NULL)
        c->pci->Unmap(c->pci, c->dma_mapping);
    if (c->dma_va != NULL)
        c->pci->FreeBuffer(c->pci, c->dma_pages, c->dma_va);
    c->dma_mapping = NULL;
    c->dma_va = NULL;
}

/* A zeroed PciIo common buffer of `need` bytes below 4 GiB in c->dma_*. */
static EFI_STATUS common_buffer(pcam_uefi_ctrl *c, UINTN need)
{
    EFI_PHYSICAL_ADDRESS bus = 0;
    UINTN bytes;
    EFI_STATUS st;

    c->dma_pages = (need + 4095u) / 4096u;
    bytes = c->dma_pages * 4096u;
    /* No DUAL_ADDRESS_CYCLE attribute: the root bridge allocates below 4 GiB. */
    st = c->pci->AllocateBuffer(c->pci, AllocateAnyPages, EfiBootServicesData, c->dma_pages,
                                &c->dma_va, 0);
    if (EFI_ERROR(st)) {
        c->dma_va = NULL;
        return EFI_OUT_OF_RESOURCES;
    }
    st = c->pci->Map(c->pci, EfiPciIoOperationBusMasterCommonBuffer, c->dma_va, &bytes, &bus,
                     &c->dma_mapping);
    if (EFI_ERROR(st) || bytes < need) {
        if (!EFI_ERROR(st))
            c->pci->Unmap(c->pci, c->dma_mapping);
        c->dma_mapping = NULL;
        common_detach(c);
        return EFI_OUT_OF_RESOURCES;
    }
    c->dma_bus = bus;
    SetMem(c->dma_va, need, 0);
    return EFI_SUCCESS;
}

static EFI_STATUS sym_attach(pcam_uefi_ctrl *c, UINT16 device, UINT8 revision)
{
    pcam_sym_config sc;

    if (EFI_ERROR(common_buffer(c, PCAM_SYM_DMA_BYTES)))
        return EFI_OUT_OF_RESOURCES;
    SetMem(&sc, sizeof sc, 0);
    sc.base = 0; /* offsets into BAR0 (I/O), as for the ESP */
    sc.pci_device = device;
    sc.pci_revision = revision;
    sc.initiator_id = 7;
    sc.dma_va = c->dma_va;
    sc.dma_bus = c->dma_bus;
    sc.dma_len = PCAM_SYM_DMA_BYTES;
    if (pcam_sym_attach(&c->be.sym, &sc, &c->plat, &c->hal) != PCAM_OK) {
        common_detach(c);
        return EFI_DEVICE_ERROR;
    }
    set_name(c, L"LSI", pcam_sym_get_chip(&c->be.sym)->name);
    return EFI_SUCCESS;
}

/* ---- SAS1068 through hal/mpt ---- */

static BOOLEAN mpt_match(UINT16 vendor, UINT16 device, UINT8 revision)
{
    (void)revision;
    return vendor == PCI_VENDOR_LSI && device == PCI_DEVICE_SAS1068;
}

static EFI_STATUS mpt_attach(pcam_uefi_ctrl *c, UINT16 device, UINT8 revision)
{
    pcam_mpt_config mc;

    (void)device;
    (void)revision;
    if (EFI_ERROR(common_buffer(c, PCAM_MPT_DMA_BYTES)))
        return EFI_OUT_OF_RESOURCES;
    SetMem(&mc, sizeof mc, 0);
    mc.base = 0; /* offsets into BAR0 (I/O) */
    mc.dma_va = c->dma_va;
    mc.dma_bus = c->dma_bus;
    mc.dma_len = PCAM_MPT_DMA_BYTES;
    if (pcam_mpt_attach(&c->be.mpt, &mc, &c->plat, &c->hal) != PCAM_OK) {
        common_detach(c);
        return EFI_DEVICE_ERROR;
    }
    set_name(c, L"LSI SAS1068 Fusion-MPT", NULL);
    return EFI_SUCCESS;
}

/* The IOC keeps writing replies into the common buffer: a message unit
 * reset, interrupts masked, before it is freed or handed to the OS. */
static void mpt_stop(pcam_uefi_ctrl *c)
{
    pcam_mpt_stop(&c->be.mpt);
}

static const pcam_uefi_chip chips[] = {
    {esp_match, esp_attach, esp_nothing, esp_nothing},
    {sym_match, sym_attach, sym_stop, common_detach},
    {mpt_match, mpt_attach, mpt_stop, common_detach},
};

const pcam_uefi_chip *pcam_uefi_chip_find(EFI_PCI_IO *pci, UINT16 *device, UINT8 *revision)
{
    UINT32 id = 0;
    UINT8 rev = 0;

    if (EFI_ERROR(pci->Pci.Read(pci, EfiPciIoWidthUint32, 0, 1, &id)) ||
        EFI_ERROR(pci->Pci.Read(pci, EfiPciIoWidthUint8, 8, 1, &rev)))
        return NULL;
    for (UINTN i = 0; i < sizeof chips / sizeof chips[0]; i++) {
        if (chips[i].match((UINT16)id, (UINT16)(id >> 16), rev)) {
            if (device != NULL)
                *device = (UINT16)(id >> 16);
            if (revision != NULL)
                *revision = rev;
            return &chips[i];
        }
    }
    return NULL;
}
