/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * board_arm_virt.c: QEMU `-M virt,highmem=off -cpu cortex-a15 -semihosting`,
 * 32-bit Arm with no firmware underneath. Addresses are QEMU's virt memory
 * map (hw/arm/virt.c): GICv2 distributor 0x8000000 and CPU interface
 * 0x8010000, PL011 0x9000000, PCIe ECAM 0x3F000000 (the low one, which
 * highmem=off selects), PCI I/O at 0x3EFF0000, 32-bit PCI memory at
 * 0x10000000; PCI INTA..D are SPIs 3..6 (GIC IDs 35..38), swizzled by
 * slot. The generic timer (CNTPCT, 62.5 MHz in QEMU) is the clock and its
 * physical timer (PPI 14, ID 30) the wake-up; the PMU's INST_RETIRED event
 * is the instruction counter (QEMU counts it under -icount only). Exit is
 * the semihosting SYS_EXIT_EXTENDED call. It must stay a list of facts
 * about the board: no SCSI, no allocation.
 */
#include "fw.h"

#define GICD 0x08000000u
#define GICC 0x08010000u
#define UART 0x09000000u
#define ECAM 0x3F000000u
#define PCI_SPI_BASE 35u
#define TIMER_ID 30u

const fw_board_info board_info = {
    .name = "arm-virt",
    .io = {.cpu = 0x3EFF1000u, .pci = 0x1000u, .size = 0xF000u},
    .mem = {.cpu = 0x10000000u, .pci = 0x10000000u, .size = 0x2EFF0000u},
    .tick_mul = 16u, /* CNTFRQ 62.5 MHz, checked in board_init */
    .tick_shift = 0,
    .counter = "PMU INST_RETIRED",
    .insn_mul = 1,
};

void (*volatile board_irq_handler)(void);

static inline void w32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint32_t r32(uintptr_t a) { return *(volatile uint32_t *)a; }

static void semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("svc 0x123456" : "+r"(r0) : "r"(r1) : "memory");
}

void board_putc(char c)
{
    while ((r32(UART + 0x18) & (1u << 5)) != 0) /* FR.TXFF */
        ;
    w32(UART, (uint8_t)c);
}

void board_exit(int status)
{
    /* SYS_EXIT_EXTENDED: ADP_Stopped_ApplicationExit with the status. */
    uint32_t block[2] = {0x20026u, (uint32_t)status};
    semihost(0x20, block);
    for (;;)
        __asm__ volatile("wfi");
}

void board_init(void)
{
    uint32_t frq, pmcr;

    __asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(frq));
    if (frq != 62500000u) {
        fw_printf("arm-virt: CNTFRQ is %u Hz, the clock assumes 62500000\n", (unsigned)frq);
        board_exit(5);
    }
    /* PMU: counter 0 counts event 0x08 (instructions architecturally
     * executed); PMCR.E on. */
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 5" ::"r"(0u));     /* PMSELR = 0 */
    __asm__ volatile("mcr p15, 0, %0, c9, c13, 1" ::"r"(0x08u));  /* PMXEVTYPER */
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 1" ::"r"(1u));     /* PMCNTENSET */
    __asm__ volatile("mrc p15, 0, %0, c9, c12, 0" : "=r"(pmcr));
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 0" ::"r"(pmcr | 3u)); /* E, reset counters */
    /* GICv2: distributor and CPU interface on, every priority passes. */
    w32(GICD, 1);
    w32(GICC + 0x04, 0xFF); /* PMR */
    w32(GICC, 1);
}

uint64_t board_ticks(void)
{
    uint32_t lo, hi;
    __asm__ volatile("isb; mrrc p15, 0, %0, %1, c14" : "=r"(lo), "=r"(hi)); /* CNTPCT */
    return (uint64_t)hi << 32 | lo;
}

/* The event counter is 32 bits: extended here, with IRQs off so that an
 * ISR reading it in between cannot count a wrap twice. */
uint64_t board_instret(void)
{
    static uint32_t last, wraps;
    uint32_t v, cpsr;

    __asm__ volatile("mrs %0, cpsr; cpsid i" : "=r"(cpsr)::"memory");
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 5" ::"r"(0u));
    __asm__ volatile("isb; mrc p15, 0, %0, c9, c13, 2" : "=r"(v)); /* PMXEVCNTR */
    if (v < last)
        wraps++;
    last = v;
    uint64_t n = (uint64_t)wraps << 32 | v;
    if ((cpsr & 0x80u) == 0)
        __asm__ volatile("cpsie i" ::: "memory");
    return n;
}

/* PCI configuration goes through fw_ecam.c. */
const uintptr_t board_ecam_base = ECAM;

static void gic_enable(unsigned id, bool level)
{
    volatile uint8_t *prio = (volatile uint8_t *)(GICD + 0x400u);
    volatile uint8_t *target = (volatile uint8_t *)(GICD + 0x800u);
    uintptr_t cfg = GICD + 0xC00u + 4u * (id / 16u);

    prio[id] = 0x80;
    if (id >= 32) {
        target[id] = 1; /* CPU 0 */
        w32(cfg, (r32(cfg) & ~(3u << (2 * (id % 16u)))) | (level ? 0u : 2u) << (2 * (id % 16u)));
    }
    w32(GICD + 0x100u + 4u * (id / 32u), 1u << (id % 32u)); /* ISENABLER */
}

bool board_irq_attach(unsigned dev, unsigned fn)
{
    unsigned pin = (board_pci_cfg_read(dev, fn, 0x3C) >> 8) & 0xFFu;

    if (pin < 1 || pin > 4)
        return false;
    unsigned id = PCI_SPI_BASE + (dev + pin - 1u) % 4u;
    gic_enable(id, true);
    gic_enable(TIMER_ID, true);
    fw_printf("irq: 00:%02u.%u INT%c# -> GIC ID %u\n", dev, fn, 'A' + pin - 1, id);
    return true;
}

void board_irq_enable(bool on)
{
    if (on)
        __asm__ volatile("cpsie i" ::: "memory");
    else
        __asm__ volatile("cpsid i" ::: "memory");
}

void board_wait(uint64_t deadline)
{
    /* Called with IRQs masked: WFI still wakes for a pending interrupt,
     * which the caller's unmask then takes. */
    __asm__ volatile("mcrr p15, 2, %0, %1, c14" ::"r"((uint32_t)deadline), "r"((uint32_t)(deadline >> 32)));
    __asm__ volatile("mcr p15, 0, %0, c14, c2, 1" ::"r"(1u)); /* CNTP_CTL: enable, unmasked */
    __asm__ volatile("isb");
    if (board_ticks() < deadline)
        __asm__ volatile("dsb; wfi" ::: "memory");
    __asm__ volatile("mcr p15, 0, %0, c14, c2, 1" ::"r"(0u)); /* timer off: no level left */
}

void board_irq(void);
void board_irq(void)
{
    uint32_t iar = r32(GICC + 0x0C);
    unsigned id = iar & 0x3FFu;

    if (id >= 1020)
        return; /* spurious */
    if (id == TIMER_ID)
        __asm__ volatile("mcr p15, 0, %0, c14, c2, 1" ::"r"(0u));
    else if (board_irq_handler != NULL)
        board_irq_handler();
    w32(GICC + 0x10, iar); /* EOIR */
}

void board_fault(uint32_t cpsr, uint32_t lr);
void board_fault(uint32_t cpsr, uint32_t lr)
{
    fw_printf("trap: cpsr 0x%x lr 0x%x\nRESULT FAIL\n", (unsigned)cpsr, (unsigned)lr);
    board_exit(4);
}
