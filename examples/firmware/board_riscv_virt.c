/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * board_riscv_virt.c: QEMU `-M virt` for riscv64 and riscv32 with `-bios
 * none`: the firmware runs in M-mode with no SBI underneath. Addresses are QEMU's
 * virt memory map (hw/riscv/virt.c): ns16550 UART 0x10000000, sifive_test
 * 0x100000 (exit with a status), CLINT 0x2000000 (mtime, 10 MHz), PLIC
 * 0xC000000, PCIe ECAM 0x30000000, PCI I/O at 0x3000000, 32-bit PCI memory
 * at 0x40000000; PCI INTA..D are PLIC sources 32..35, swizzled by slot.
 * It must stay a list of facts about the board: no SCSI, no allocation.
 */
#include "fw.h"

#define UART 0x10000000u
#define TEST_DEV 0x100000u
#define CLINT_MTIMECMP 0x2004000u /* hart 0 */
#define CLINT_MTIME 0x200BFF8u
#define PLIC 0x0C000000u
#define PLIC_ENABLE (PLIC + 0x2000u)     /* context 0 = hart 0, M-mode */
#define PLIC_THRESHOLD (PLIC + 0x200000u)
#define PLIC_CLAIM (PLIC + 0x200004u)
#define ECAM 0x30000000u
#define PCI_IRQ_BASE 32u

#define MSTATUS_MIE (1u << 3)
#define MIE_MTIE (1u << 7)
#define MIE_MEIE (1u << 11)

const fw_board_info board_info = {
#if __riscv_xlen == 64
    .name = "riscv64-virt",
#else
    .name = "riscv32-virt",
#endif
    .io = {.cpu = 0x03001000u, .pci = 0x1000u, .size = 0xF000u},
    .mem = {.cpu = 0x40000000u, .pci = 0x40000000u, .size = 0x40000000u},
    .tick_mul = 100u, /* 10 MHz */
    .tick_shift = 0,
    .counter = "minstret",
    .insn_mul = 1,
};

void (*volatile board_irq_handler)(void);

static inline void w32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint32_t r32(uintptr_t a) { return *(volatile uint32_t *)a; }

void board_init(void)
{
    /* QEMU's 16550 needs no divisor to print; FIFO on for the host's sake. */
    *(volatile uint8_t *)(UART + 2) = 0x07;
}

void board_putc(char c)
{
    while ((*(volatile uint8_t *)(UART + 5) & 0x20u) == 0)
        ;
    *(volatile uint8_t *)UART = (uint8_t)c;
}

void board_exit(int status)
{
    /* sifive_test: 0x5555 = pass (QEMU exits 0), code << 16 | 0x3333 = fail. */
    w32(TEST_DEV, status == 0 ? 0x5555u : ((uint32_t)status << 16) | 0x3333u);
    for (;;)
        __asm__ volatile("wfi");
}

#if __riscv_xlen == 64
uint64_t board_ticks(void)
{
    return *(volatile uint64_t *)CLINT_MTIME;
}

uint64_t board_instret(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}
#else
/* RV32 reads the 64-bit counters in halves: high, low, high again until
 * the high half held still. */
uint64_t board_ticks(void)
{
    uint32_t hi, lo;

    do {
        hi = r32(CLINT_MTIME + 4);
        lo = r32(CLINT_MTIME);
    } while (r32(CLINT_MTIME + 4) != hi);
    return (uint64_t)hi << 32 | lo;
}

uint64_t board_instret(void)
{
    uint32_t hi, lo, hi2;

    do {
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi));
        __asm__ volatile("csrr %0, minstret" : "=r"(lo));
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi2));
    } while (hi != hi2);
    return (uint64_t)hi << 32 | lo;
}
#endif

/* PCI configuration goes through fw_ecam.c. */
const uintptr_t board_ecam_base = ECAM;

bool board_irq_attach(unsigned dev, unsigned fn)
{
    unsigned pin = (board_pci_cfg_read(dev, fn, 0x3C) >> 8) & 0xFFu;

    if (pin < 1 || pin > 4)
        return false;
    unsigned irq = PCI_IRQ_BASE + (dev + pin - 1u) % 4u;
    w32(PLIC + 4u * irq, 1); /* priority */
    w32(PLIC_ENABLE + 4u * (irq / 32u), r32(PLIC_ENABLE + 4u * (irq / 32u)) | 1u << (irq % 32u));
    w32(PLIC_THRESHOLD, 0);
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MEIE));
    fw_printf("irq: 00:%02u.%u INT%c# -> PLIC source %u\n", dev, fn, 'A' + pin - 1, irq);
    return true;
}

void board_irq_enable(bool on)
{
    if (on)
        __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE) : "memory");
    else
        __asm__ volatile("csrc mstatus, %0" ::"r"(MSTATUS_MIE) : "memory");
}

void board_wait(uint64_t deadline)
{
    /* Called with MIE clear: wfi still wakes for a pending enabled source,
     * and the caller's enable then takes it. */
#if __riscv_xlen == 64
    *(volatile uint64_t *)CLINT_MTIMECMP = deadline;
#else
    w32(CLINT_MTIMECMP + 4, 0xFFFFFFFFu); /* no early match while the halves change */
    w32(CLINT_MTIMECMP, (uint32_t)deadline);
    w32(CLINT_MTIMECMP + 4, (uint32_t)(deadline >> 32));
#endif
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MTIE));
    if (board_ticks() < deadline)
        __asm__ volatile("wfi" ::: "memory");
    __asm__ volatile("csrc mie, %0" ::"r"(MIE_MTIE));
}

void board_trap(uintptr_t cause, uintptr_t epc, uintptr_t tval);
void board_trap(uintptr_t cause, uintptr_t epc, uintptr_t tval)
{
    if ((intptr_t)cause < 0 && (cause & 0xFFu) == 11u) {
        uint32_t src = r32(PLIC_CLAIM);
        if (src != 0 && board_irq_handler != NULL)
            board_irq_handler();
        if (src != 0)
            w32(PLIC_CLAIM, src);
        return;
    }
    fw_printf("trap: mcause 0x%lx mepc 0x%lx mtval 0x%lx\nRESULT FAIL\n", (unsigned long)cause,
              (unsigned long)epc, (unsigned long)tval);
    board_exit(4);
}
