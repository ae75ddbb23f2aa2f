/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bios_main.c: pcam's legacy option ROM, the payload side of init: the
 * x86 "board" the shared firmware files need (COM1 console, a clock from
 * the TSC calibrated against PIT channel 2, port I/O for chips that only
 * have an I/O BAR), finding the chip, attaching its back-end in polled
 * mode, scanning the bus and filling one PnP header (BCV, boot-menu name)
 * per disk in the ROM. A second chip is one row of `chips` (each ROM is
 * built for one chip: BIOS_HAL_<back-end> says which rows it has).
 *
 * It must never enable interrupts (the thunk runs it with IF clear and no
 * IDT), assign PCI resources (the BIOS did), or keep any state in the ROM
 * except the state block rom16.S reserves for it.
 */
#include "bios.h"

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_esp.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_sym.h"

uint32_t bios_base;
uint8_t *bios_shared;
bios_disk bios_disks[BIOS_MAX_DISKS];
unsigned bios_ndisks;

extern char rom16_end[], shared[], stack_top[];

/* ---- the board: what fw_lib.c and fw_platform.c ask of one ---- */

const fw_board_info board_info = {"x86-bios", {0, 0, 0}, {0, 0, 0}, 1, 0, "none", 1};
static uint64_t tsc_per_10ms = 1;

void board_putc(char c)
{
    for (unsigned i = 0; i < 100000u && (inb(0x3FD) & 0x20) == 0; i++)
        ;
    outb(0x3F8, (uint8_t)c);
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* board_info says a tick is 1 ns. */
uint64_t board_ticks(void)
{
    uint64_t rem, t = rdtsc();
    uint64_t q = fw_divmod(t, tsc_per_10ms, &rem);
    return q * 10000000u + fw_divmod(rem * 10000000u, tsc_per_10ms, NULL);
}

uint64_t board_dma_addr(const void *va)
{
    return (uint32_t)((uintptr_t)va + bios_base);
}

/* PIT channel 2, mode 0, 11932 counts = 10 ms: its output rises at the end. */
static void calibrate_tsc(void)
{
    outb(0x61, (uint8_t)((inb(0x61) & ~0x02u) | 0x01u));
    outb(0x43, 0xB0);
    outb(0x42, 11932u & 0xFF);
    outb(0x42, 11932u >> 8);
    uint64_t t0 = rdtsc();
    while ((inb(0x61) & 0x20) == 0)
        ;
    tsc_per_10ms = rdtsc() - t0;
    if (tsc_per_10ms == 0)
        tsc_per_10ms = 1;
}

static uint32_t pci_cfg(unsigned bdf, unsigned off)
{
    uint32_t v;
    uint32_t a = 0x80000000u | (bdf << 8) | (off & 0xFCu);
    __asm__ volatile("outl %0, %1" : : "a"(a), "Nd"((uint16_t)0xCF8));
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"((uint16_t)0xCFC));
    return v;
}

#ifdef BIOS_HAL_esp
/* Port I/O for an I/O BAR: the back-end's addresses are port numbers. */
static uint8_t io_rd8(void *ctx, uintptr_t a)
{
    (void)ctx;
    return inb((uint16_t)a);
}
static uint16_t io_rd16(void *ctx, uintptr_t a)
{
    uint16_t v;
    (void)ctx;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"((uint16_t)a));
    return v;
}
static uint32_t io_rd32(void *ctx, uintptr_t a)
{
    uint32_t v;
    (void)ctx;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"((uint16_t)a));
    return v;
}
static void io_wr8(void *ctx, uintptr_t a, uint8_t v)
{
    (void)ctx;
    outb((uint16_t)a, v);
}
static void io_wr16(void *ctx, uintptr_t a, uint16_t v)
{
    (void)ctx;
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"((uint16_t)a));
}
static void io_wr32(void *ctx, uintptr_t a, uint32_t v)
{
    (void)ctx;
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"((uint16_t)a));
}
#endif

/* ---- the chips: one row each ---- */

static pcam_bus bus;
static pcam_lun luns[PCAM_BUS_LUNS(PCAM_MAX_TARGETS, 1)];
static union {
#ifdef BIOS_HAL_esp
    pcam_esp esp;
#endif
#ifdef BIOS_HAL_sym
    pcam_sym sym;
#endif
} chip_sc;
#ifdef BIOS_HAL_sym
static uint8_t sym_dma[PCAM_SYM_DMA_BYTES] __attribute__((aligned(256)));
#endif
static pcam_hal hal;
static pcam_platform plat;

static uint32_t bar(unsigned bdf, unsigned i)
{
    return pci_cfg(bdf, 0x10 + 4 * i);
}

#ifdef BIOS_HAL_esp
static pcam_err attach_esp(unsigned bdf)
{
    pcam_esp_config c;

    memset(&c, 0, sizeof c);
    plat.read8 = io_rd8;
    plat.read16 = io_rd16;
    plat.read32 = io_rd32;
    plat.write8 = io_wr8;
    plat.write16 = io_wr16;
    plat.write32 = io_wr32;
    c.chip = PCAM_ESP_AUTO;
    c.base = bar(bdf, 0) & 0xFFFCu;
    c.stride = 4;
    c.clock_khz = 40000;
    c.initiator_id = 7;
    c.use_dma = true;
    /* QEMU's model (subsystem vendor 1AF4) takes SELECT WITH ATN3 as a no-op. */
    if ((pci_cfg(bdf, 0x2C) & 0xFFFFu) == 0x1AF4u)
        c.flags |= PCAM_ESP_F_NO_SELATN3;
    return pcam_esp_attach(&chip_sc.esp, &c, &plat, &hal);
}
#endif

#ifdef BIOS_HAL_sym
static pcam_err attach_sym(unsigned bdf)
{
    pcam_sym_config c;

    memset(&c, 0, sizeof c);
    c.base = (uintptr_t)bios_ptr(bar(bdf, 1) & ~0xFu); /* the memory BAR */
    c.pci_device = (uint16_t)(pci_cfg(bdf, 0) >> 16);
    c.pci_revision = (uint8_t)pci_cfg(bdf, 8);
    c.initiator_id = 7;
    c.dma_va = sym_dma;
    c.dma_bus = board_dma_addr(sym_dma);
    c.dma_len = sizeof sym_dma;
    return pcam_sym_attach(&chip_sc.sym, &c, &plat, &hal);
}
#endif

static const struct chip {
    uint16_t vendor, device;
    const char *name;
    pcam_err (*attach)(unsigned bdf);
} chips[] = {
#ifdef BIOS_HAL_sym
    {0x1000, 0x0012, "lsi53c895a", attach_sym},
#endif
#ifdef BIOS_HAL_esp
    {0x1022, 0x2020, "am53c974", attach_esp},
#endif
};

static const struct chip *chip_of(unsigned bdf)
{
    uint32_t id = pci_cfg(bdf, 0);

    for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++)
        if (id == ((uint32_t)chips[i].device << 16 | chips[i].vendor))
            return &chips[i];
    return NULL;
}

/* The function init was given (AX), or, from a file ROM (AX 0), the first
 * supported one on bus 0. Returns its bdf, or -1. */
static int find_chip(unsigned ax)
{
    if (ax != 0 && chip_of(ax) != NULL)
        return (int)ax;
    for (unsigned d = 0; d < 256; d++)
        if (chip_of(d) != NULL)
            return (int)d;
    return -1;
}

/* ---- commands, polled ---- */

static volatile bool cmd_done;
static void on_done(pcam_ccb *c)
{
    (void)c;
    cmd_done = true;
}

/* Poll until the CCB completes. The core's own timeout and recovery end
 * every command; past their longest wait (the command's timeout and the
 * whole recovery ladder) a chip that stopped answering is reported and
 * the bus reset, so a caller never hangs. */
static void run(pcam_ccb *c)
{
    uint64_t wait_ms = (uint64_t)bus.cfg.default_timeout_ms + pcam_host_recovery_wait_ms(&bus);
    uint64_t limit = fw_now_ns() + wait_ms * 1000000u;

    c->done = on_done;
    cmd_done = false;
    pcam_action(&bus, c);
    while (!cmd_done && fw_now_ns() < limit)
        pcam_bus_poll(&bus);
    if (!cmd_done) {
        fw_printf("pcam bios: a command did not end; resetting the bus\n");
        pcam_ccb r;
        memset(&r, 0, sizeof r);
        r.func = PCAM_FN_RESET_BUS;
        r.done = on_done;
        cmd_done = false;
        pcam_action(&bus, &r);
        limit = fw_now_ns() + (uint64_t)pcam_host_recovery_wait_ms(&bus) * 1000000u;
        while (!cmd_done && fw_now_ns() < limit)
            pcam_bus_poll(&bus);
    }
}

uint32_t bios_scsi(uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len,
                   pcam_dir dir, void *data, uint32_t len, uint8_t *sense, bool *sense_ok)
{
    static pcam_ccb c;

    memset(&c, 0, sizeof c);
    c.func = PCAM_FN_SCSI_IO;
    c.target = target;
    c.lun = lun;
    memcpy(c.u.io.cdb, cdb, cdb_len);
    c.u.io.cdb_len = cdb_len;
    c.u.io.dir = dir;
    c.u.io.data = data;
    c.u.io.data_len = len;
    c.u.io.sense = sense;
    c.u.io.sense_len = 18;
    c.u.io.retries = bus.cfg.default_retries;
    run(&c);
    *sense_ok = (c.status & PCAM_AUTOSNS_VALID) != 0;
    return c.status & PCAM_STATUS_MASK;
}

/* ---- init ---- */

static uint64_t capacity(uint8_t t, uint8_t l, uint32_t *blen)
{
    static uint8_t d[32];
    uint8_t cdb[16], sense[18];
    pcam_capacity cap;
    bool sok;
    int n = pcam_cdb_read_capacity10(cdb, sizeof cdb);

    if (bios_scsi(t, l, cdb, (uint8_t)n, PCAM_DIR_IN, d, 8, sense, &sok) != PCAM_REQ_CMP ||
        pcam_read_capacity10_parse(d, 8, &cap) != PCAM_OK)
        return 0;
    if (cap.use_rc16) {
        n = pcam_cdb_read_capacity16(cdb, sizeof cdb, sizeof d);
        if (bios_scsi(t, l, cdb, (uint8_t)n, PCAM_DIR_IN, d, sizeof d, sense, &sok) != PCAM_REQ_CMP ||
            pcam_read_capacity16_parse(d, sizeof d, &cap) != PCAM_OK)
            return 0;
    }
    *blen = cap.block_length;
    return cap.last_lba + 1;
}

/* The conventional translation: 255 heads, 63 sectors, at most 1024 cylinders. */
static void geometry(bios_disk *d)
{
    uint64_t cyl = fw_divmod(d->blocks, 255u * 63u, NULL);
    d->heads = 255;
    d->spt = 63;
    d->cyls = cyl > 1024 ? 1024 : (cyl == 0 ? 1 : (uint32_t)cyl);
}

/* "pcam: <vendor> <model> ID t LUN l", from the core's INQUIRY parse. */
static void put_str(char *out, size_t *n, size_t cap, const char *s)
{
    while (*s != '\0' && *n < cap)
        out[(*n)++] = *s++;
}

static void name_disk(char *out, const pcam_dev *dev, unsigned t, unsigned l)
{
    pcam_inquiry inq;
    size_t n = 0, cap = SH_NAME_LEN - 1;
    char num[3];

    memset(&inq, 0, sizeof inq);
    (void)pcam_inquiry_parse(dev->inquiry, dev->inquiry_len, &inq);
    put_str(out, &n, cap, "pcam: ");
    put_str(out, &n, cap, inq.vendor);
    put_str(out, &n, cap, " ");
    put_str(out, &n, cap, inq.product);
    put_str(out, &n, cap, " ID ");
    num[0] = (char)(t >= 10 ? '1' : '0' + t);
    num[1] = (char)('0' + t % 10);
    num[2] = '\0';
    put_str(out, &n, cap, t >= 10 ? num : num + 1);
    put_str(out, &n, cap, " LUN ");
    num[0] = (char)('0' + l / 10 % 10);
    num[1] = (char)('0' + l % 10);
    put_str(out, &n, cap, l >= 10 ? num : num + 1);
    out[n] = '\0';
}

static uint8_t sum8(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n-- > 0)
        s = (uint8_t)(s + *p++);
    return s;
}

static uint16_t rd16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void init(uint32_t rom_lin)
{
    uint8_t *rom = bios_ptr(rom_lin);
    pcam_bus_config cfg;
    pcam_err e;

    bios_shared = rom + (uintptr_t)shared;
    calibrate_tsc();
    int bdf = find_chip(rd16le(bios_shared + SH_BDF));
    fw_printf("pcam bios: payload at 0x%x, ROM at 0x%x, TSC %u per 10 ms\n", (unsigned)bios_base,
              (unsigned)rom_lin, (unsigned)tsc_per_10ms);
    if (bdf < 0) {
        fw_printf("pcam bios: no supported SCSI chip\n");
    } else {
        const struct chip *ch = chip_of((unsigned)bdf);
        fw_platform_get(&plat);
        e = ch->attach((unsigned)bdf);
        fw_printf("pcam bios: %s at %02x:%02x.%x: %s\n", ch->name, (unsigned)bdf >> 8,
                  ((unsigned)bdf >> 3) & 31u, (unsigned)bdf & 7u, pcam_strerror(e));
        pcam_bus_config_defaults(&cfg);
        cfg.luns_per_target = 1;
        cfg.polled = true;
        cfg.reset_settle_ms = 250;
        if (e == PCAM_OK)
            e = pcam_bus_init(&bus, &cfg, &hal, &plat, luns, sizeof luns / sizeof luns[0]);
        if (e == PCAM_OK) {
            static pcam_ccb c;
            memset(&c, 0, sizeof c);
            c.func = PCAM_FN_SCAN_BUS;
            run(&c);
            for (uint8_t t = 0; t < PCAM_MAX_TARGETS && bios_ndisks < BIOS_MAX_DISKS; t++) {
                memset(&c, 0, sizeof c);
                c.func = PCAM_FN_GET_DEV;
                c.target = t;
                run(&c);
                if ((c.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP || !c.u.dev.present ||
                    (c.u.dev.type & 0x1F) != 0)
                    continue;
                bios_disk *d = &bios_disks[bios_ndisks];
                uint32_t blen = 0;
                d->target = t;
                d->lun = 0;
                d->index = (uint8_t)bios_ndisks;
                d->blocks = capacity(t, 0, &blen);
                if (blen != 512 || d->blocks == 0) {
                    fw_printf("pcam bios: ID %u: %u-byte blocks, not offered\n", t, (unsigned)blen);
                    continue;
                }
                geometry(d);
                name_disk((char *)bios_shared + SH_NAMES + bios_ndisks * SH_NAME_LEN, &c.u.dev,
                          t, 0);
                fw_printf("pcam bios: disk %u: %s, %u MiB\n", bios_ndisks,
                          (char *)bios_shared + SH_NAMES + bios_ndisks * SH_NAME_LEN,
                          (unsigned)(d->blocks >> 11));
                bios_ndisks++;
            }
        }
    }
    /* One PnP header per disk, the chain ended after the last; no disk:
     * the first header offers nothing. */
    for (unsigned i = 0; i < BIOS_MAX_DISKS; i++) {
        uint8_t *pnp = rom + rd16le(bios_shared + SH_PNP + 2 * i);
        uint16_t bcv = i < bios_ndisks ? rd16le(bios_shared + SH_BCV + 2 * i) : 0;
        uint16_t next = i + 1 < bios_ndisks ? rd16le(bios_shared + SH_PNP + 2 * i + 2) : 0;
        pnp[0x16] = (uint8_t)bcv;
        pnp[0x17] = (uint8_t)(bcv >> 8);
        pnp[6] = (uint8_t)next;
        pnp[7] = (uint8_t)(next >> 8);
        pnp[9] = 0;
        pnp[9] = (uint8_t)-sum8(pnp, 32);
    }
    bios_shared[SH_NDISKS] = (uint8_t)bios_ndisks;
    /* Only rom16.S stays in the option-ROM area: the payload runs from B. */
    size_t keep = (size_t)(uintptr_t)rom16_end;
    rom[2] = (uint8_t)(keep / 512);
    rom[keep - 1] = 0;
    rom[keep - 1] = (uint8_t)-sum8(rom, keep);
}

/* The payload's one entry point (entry32.S). */
uint32_t pcam_bios_call(uint32_t fn, uint32_t arg);
uint32_t pcam_bios_call(uint32_t fn, uint32_t arg)
{
    switch (fn) {
    case BIOS_FN_INIT:
        init(arg);
        return bios_ndisks;
    case BIOS_FN_INT13:
        bios_int13(arg);
        return 0;
    default:
        return 0;
    }
}
