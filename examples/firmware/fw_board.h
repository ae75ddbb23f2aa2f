/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_board.h: everything the shared firmware (fw_main.c, fw_platform.c,
 * fw_pci.c, fw_lib.c) asks of a board. One board_<name>.c implements it
 * (plus its start-up assembler and linker script); nothing board-specific
 * may appear in the shared files, and a board file must never make a SCSI
 * or PCI-allocation decision: it only says where things are and how the
 * CPU reaches them.
 */
#ifndef FW_BOARD_H
#define FW_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the host bridge puts PCI I/O and memory space in the CPU's address
 * space: a BAR value v of that kind is reached at cpu + (v - pci). */
typedef struct fw_pci_window {
    uintptr_t cpu;  /* CPU address of PCI address `pci` */
    uint32_t pci;   /* first PCI address we may hand out */
    uint32_t size;  /* bytes available from `pci` */
} fw_pci_window;

typedef struct fw_board_info {
    const char *name;      /* "riscv64-virt", ... (printed, and used by the host test) */
    fw_pci_window io;      /* PCI I/O space */
    fw_pci_window mem;     /* 32-bit PCI memory space */
    uint32_t tick_mul;     /* board_ticks() period in ns is tick_mul / 2^tick_shift */
    uint32_t tick_shift;
    const char *counter;   /* what board_instret() counts ("minstret", ...) */
    uint32_t insn_mul;     /* instructions per board_instret() step (1; MIPS: 6) */
} fw_board_info;

extern const fw_board_info board_info;

/* Bring up what the firmware needs before main: the UART, the counters. */
void board_init(void);
/* One character out of the console UART (polled; may be called with
 * interrupts off). */
void board_putc(char c);
/* Leave QEMU with a status: 0 = every proof passed. Never returns. */
void board_exit(int status) __attribute__((noreturn));

/* A free-running counter that never goes backwards (64-bit, extended by
 * the board if the hardware's is narrower; call at least every few
 * seconds). */
uint64_t board_ticks(void);
/* The CPU's own retired-instruction count (or the closest counter the CPU
 * has: board_info.counter says which), in steps of board_info.insn_mul
 * instructions. Only the difference of two reads around one call into
 * pcam counts, taken as 32 bits, so a narrow counter need not be extended:
 * it is read around every call, and must cost next to nothing. */
uint64_t board_instret(void);

/* PCI configuration space, 32-bit aligned dwords of bus 0. Reads of an
 * absent function return 0xFFFFFFFF. */
/* The ECAM window of a board that uses fw_ecam.c for the three below. */
extern const uintptr_t board_ecam_base;
uint32_t board_pci_cfg_read(unsigned dev, unsigned fn, unsigned off);
void board_pci_cfg_write(unsigned dev, unsigned fn, unsigned off, uint32_t v);

/* The address a bus master uses for the CPU's address `va`. */
uint64_t board_dma_addr(const void *va);

/* Interrupts. board_irq_attach() routes the PCI function's INTx to the
 * CPU and makes board_irq_handler run for it (in interrupt context, with
 * further interrupts masked). board_irq_enable(true/false) is the CPU-wide
 * mask (the firmware's "bus lock"); board_wait() sleeps until an interrupt
 * or `deadline` (board ticks), whichever comes first, and returns with the
 * mask as it was. */
bool board_irq_attach(unsigned dev, unsigned fn);
void board_irq_enable(bool on);
void board_wait(uint64_t deadline);
extern void (*volatile board_irq_handler)(void);

#endif /* FW_BOARD_H */
