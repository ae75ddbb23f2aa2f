/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * start_arm.S: reset entry and exception vectors of the arm-virt board
 * (32-bit Cortex-A15, entered in SVC mode with the MMU off by QEMU's ELF
 * loader). Stacks for SVC and IRQ mode, .bss cleared, VBAR set, then C.
 * It must stay this small: the C board file does everything else.
 */
    .syntax unified
    .arm
    .section .text.start, "ax"
    .globl _start
_start:
    cpsid   if
    cps     #0x12                   /* IRQ mode: its own small stack */
    ldr     sp, =__irq_stack_top
    cps     #0x13                   /* SVC mode: the firmware's stack */
    ldr     sp, =__stack_top
    ldr     r0, =__bss_start
    ldr     r1, =__bss_end
    mov     r2, #0
1:  cmp     r0, r1
    strlo   r2, [r0], #4
    blo     1b
    ldr     r0, =vectors
    mcr     p15, 0, r0, c12, c0, 0  /* VBAR */
    isb
    bl      fw_main
2:  wfi
    b       2b

    .align  5
vectors:
    b       _start                  /* reset */
    b       bad                     /* undefined instruction */
    b       bad                     /* SVC */
    b       bad                     /* prefetch abort */
    b       bad                     /* data abort */
    b       bad
    b       irq
    b       bad                     /* FIQ */

irq:
    sub     lr, lr, #4
    push    {r0-r3, r12, lr}
    bl      board_irq
    pop     {r0-r3, r12, lr}
    movs    pc, lr

bad:
    mrs     r0, cpsr
    mov     r1, lr
    bl      board_fault
    b       bad
