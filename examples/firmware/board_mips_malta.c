/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * board_mips_malta.c: QEMU `-M malta -semihosting` with a big-endian MIPS32
 * CPU (24Kf) and no firmware but QEMU's small boot loader, which moves the
 * GT-64120 system controller to 0x1BE00000 and opens its PCI windows: I/O
 * at 0x18000000 (PCI I/O 0), memory at 0x10000000 (PCI addresses equal to
 * CPU physical ones); bus masters see RAM at its physical address. The
 * console is the PIIX4's COM1 (I/O 0x3F8), interrupts go PCI INTx ->
 * PIIX4 PIRQ routing -> the i8259 pair (IRQ 11 here, level) -> CPU IP2;
 * the clock is CP0 Count (one tick per 6 ns in QEMU). Exit is the
 * UHI semihosting exit call. All addresses come from QEMU's Malta model
 * (hw/mips/malta.c, hw/pci-host/gt64120.c). The GT-64120's own registers
 * are little-endian whatever the CPU is. It must stay a list of facts
 * about the board: no SCSI, no allocation.
 */
#include "fw.h"

#define KSEG1(pa) (0xA0000000u | (pa))
#define GT KSEG1(0x1BE00000u)
#define GT_CFGADDR 0xCF8u
#define GT_CFGDATA 0xCFCu
#define PCI_IO KSEG1(0x18000000u)
#define COM1 (PCI_IO + 0x3F8u)
#define PIIX4_DEV 10u
#define ISA_IRQ 11u

const fw_board_info board_info = {
    .name = "mips-malta",
    .io = {.cpu = PCI_IO + 0x4000u, .pci = 0x4000u, .size = 0xC000u},
    .mem = {.cpu = KSEG1(0x10000000u), .pci = 0x10000000u, .size = 0x07E00000u},
    /* Count: half the 320 MHz CPU clock, 6.25 ns, which QEMU 7.2 rounds
     * to a whole 6 ns per tick (target/mips/cpu.c, cp0_count_ns). */
    .tick_mul = 6u,
    .tick_shift = 0,
    .counter = "CP0 Count as -icount virtual ns",
    .insn_mul = 6, /* Count's step (above), one instruction a ns under -icount shift=0 */
};

void (*volatile board_irq_handler)(void);
static volatile bool woken;

static uint32_t swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static void outb(unsigned port, uint8_t v) { *(volatile uint8_t *)(PCI_IO + port) = v; }
static uint8_t inb(unsigned port) { return *(volatile uint8_t *)(PCI_IO + port); }

void board_putc(char c)
{
    while ((*(volatile uint8_t *)(COM1 + 5) & 0x20u) == 0)
        ;
    *(volatile uint8_t *)COM1 = (uint8_t)c;
}

void board_exit(int status)
{
    /* UHI exit: operation 1 in $25 (t9), the status in $4 (a0), SDBBP 1. */
    register uint32_t op __asm__("$25") = 1;
    register int32_t a0 __asm__("$4") = status;
    __asm__ volatile("sdbbp 1" ::"r"(op), "r"(a0) : "memory");
    for (;;)
        ;
}

void board_init(void)
{
}

/* Count is 32 bits (26 s at 160 MHz): extended here, with interrupts off
 * so that an ISR reading it in between cannot count a wrap twice. */
uint64_t board_ticks(void)
{
    static uint32_t last, wraps;
    uint32_t v, st;

    __asm__ volatile("di %0; ehb" : "=r"(st)::"memory");
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    if (v < last)
        wraps++;
    last = v;
    uint64_t t = (uint64_t)wraps << 32 | v;
    if (st & 1u)
        __asm__ volatile("ei; ehb" ::: "memory");
    return t;
}

/* MIPS32 has no retired-instruction counter QEMU models; under -icount
 * shift=0 one instruction is one ns of virtual time, which Count measures
 * in 6 ns steps (insn_mul). Count itself, one mfc0: the meters take 32-bit
 * differences over single calls, so it needs no extension, and reading it
 * through board_ticks() (interrupts off, the wrap test, the 64-bit scale)
 * cost tens of instructions at every op call the meters wrap. */
uint64_t board_instret(void)
{
    uint32_t v;
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    return v;
}

static void gt_write(unsigned reg, uint32_t v)
{
    *(volatile uint32_t *)(GT + reg) = swap32(v);
}

/* Configuration data: with PCI0_CMD's MByteSwap bit clear (as the boot
 * loader leaves it) the GT-64120 byte-swaps the data of every device but
 * itself, so another device's dword arrives in CPU order, and the
 * GT-64120's own (device 0) in its little-endian register order. */
uint32_t board_pci_cfg_read(unsigned dev, unsigned fn, unsigned off)
{
    gt_write(GT_CFGADDR, 0x80000000u | dev << 11 | fn << 8 | (off & 0xFCu));
    uint32_t v = *(volatile uint32_t *)(GT + GT_CFGDATA);
    return dev == 0 ? swap32(v) : v;
}

void board_pci_cfg_write(unsigned dev, unsigned fn, unsigned off, uint32_t v)
{
    gt_write(GT_CFGADDR, 0x80000000u | dev << 11 | fn << 8 | (off & 0xFCu));
    *(volatile uint32_t *)(GT + GT_CFGDATA) = dev == 0 ? swap32(v) : v;
}

uint64_t board_dma_addr(const void *va)
{
    return (uintptr_t)va & 0x1FFFFFFFu; /* KSEG0/KSEG1 -> physical */
}

bool board_irq_attach(unsigned dev, unsigned fn)
{
    unsigned pin = (board_pci_cfg_read(dev, fn, 0x3C) >> 8) & 0xFFu, pirq;

    if (pin < 1 || pin > 4)
        return false;
    /* Malta's slot-to-PIRQ wiring (QEMU's gt64120_pci_map_irq). */
    if (dev >= 18 && dev <= 21)
        pirq = (dev - 18u + pin - 1u) & 3u;
    else if (dev == 10)
        pirq = 3;
    else if (dev == 11)
        pirq = 1;
    else if (dev == 12)
        pirq = 2;
    else
        pirq = pin - 1u;
    /* PIIX4 function 0, PIRQRC[A..D] at 0x60..0x63: our PIRQ -> IRQ 11. */
    uint32_t r = board_pci_cfg_read(PIIX4_DEV, 0, 0x60);
    r = (r & ~(0xFFu << (8 * pirq))) | ISA_IRQ << (8 * pirq);
    board_pci_cfg_write(PIIX4_DEV, 0, 0x60, r);
    /* The i8259 pair: cascade on IRQ 2, IRQ 11 level-triggered (ELCR),
     * everything else masked; the CPU side is IP2. */
    outb(0x20, 0x11);
    outb(0x21, 0x00);
    outb(0x21, 0x04);
    outb(0x21, 0x01);
    outb(0xA0, 0x11);
    outb(0xA1, 0x08);
    outb(0xA1, 0x02);
    outb(0xA1, 0x01);
    outb(0x4D1, (uint8_t)(1u << (ISA_IRQ - 8)));
    outb(0x21, (uint8_t)~(1u << 2));
    outb(0xA1, (uint8_t)~(1u << (ISA_IRQ - 8)));
    uint32_t st;
    __asm__ volatile("mfc0 %0, $12" : "=r"(st));
    st |= 1u << 10; /* IM2 */
    __asm__ volatile("mtc0 %0, $12; ehb" ::"r"(st));
    fw_printf("irq: 00:%02u.%u INT%c# -> PIRQ%c -> i8259 IRQ %u -> CPU IP2\n", dev, fn,
              'A' + pin - 1, 'A' + pirq, ISA_IRQ);
    return true;
}

void board_irq_enable(bool on)
{
    if (on)
        __asm__ volatile("ei; ehb" ::: "memory");
    else
        __asm__ volatile("di; ehb" ::: "memory");
}

/* The 24Kf's WAIT does not wake for an interrupt masked by Status.IE (QEMU
 * models that, as release 6 would not), so the board idles with interrupts
 * on in a short spin until one was taken or the deadline passed. */
void board_wait(uint64_t deadline)
{
    woken = false;
    board_irq_enable(true);
    while (!woken && board_ticks() < deadline)
        ;
    board_irq_enable(false);
}

void board_trap(uint32_t cause, uint32_t epc);
void board_trap(uint32_t cause, uint32_t epc)
{
    if (((cause >> 2) & 0x1Fu) == 0 && (cause & (1u << 10)) != 0) {
        outb(0x20, 0x0C); /* OCW3 poll: the highest pending IRQ, acknowledged */
        uint8_t m = inb(0x20), irq = m & 7u;
        if ((m & 0x80u) != 0 && irq == 2) {
            outb(0xA0, 0x0C);
            uint8_t s = inb(0xA0);
            irq = (s & 0x80u) != 0 ? 8u + (s & 7u) : 0xFF;
        }
        if (irq == ISA_IRQ && board_irq_handler != NULL)
            board_irq_handler();
        if (irq >= 8 && irq != 0xFF)
            outb(0xA0, 0x20);
        outb(0x20, 0x20);
        woken = true;
        return;
    }
    fw_printf("trap: cause 0x%x epc 0x%x\nRESULT FAIL\n", (unsigned)cause, (unsigned)epc);
    board_exit(4);
}
