/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * start_riscv.S: reset entry and trap vector of the riscv64-virt and
 * riscv32-virt boards (M-mode, loaded at the start of DRAM by `-bios none
 * -kernel`). Hart 0 runs the firmware; any other hart parks. It must stay
 * this small: the C board file does everything else.
 */
#if __riscv_xlen == 64
#define SREG sd
#define LREG ld
#define R(n) ((n) * 8)
#else
#define SREG sw
#define LREG lw
#define R(n) ((n) * 4)
#endif
    .section .text.start, "ax"
    .globl _start
_start:
    csrr    t0, mhartid
    bnez    t0, park
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    SREG    zero, 0(t0)
    addi    t0, t0, R(1)
    j       1b
2:  la      t0, trap_entry
    csrw    mtvec, t0
    call    fw_main
park:
    wfi
    j       park

/* Save the caller-saved registers, let C decide, return with mret. */
    .align  4
trap_entry:
    addi    sp, sp, -R(16)
    SREG    ra, R(0)(sp)
    SREG    t0, R(1)(sp)
    SREG    t1, R(2)(sp)
    SREG    t2, R(3)(sp)
    SREG    a0, R(4)(sp)
    SREG    a1, R(5)(sp)
    SREG    a2, R(6)(sp)
    SREG    a3, R(7)(sp)
    SREG    a4, R(8)(sp)
    SREG    a5, R(9)(sp)
    SREG    a6, R(10)(sp)
    SREG    a7, R(11)(sp)
    SREG    t3, R(12)(sp)
    SREG    t4, R(13)(sp)
    SREG    t5, R(14)(sp)
    SREG    t6, R(15)(sp)
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    call    board_trap
    LREG    ra, R(0)(sp)
    LREG    t0, R(1)(sp)
    LREG    t1, R(2)(sp)
    LREG    t2, R(3)(sp)
    LREG    a0, R(4)(sp)
    LREG    a1, R(5)(sp)
    LREG    a2, R(6)(sp)
    LREG    a3, R(7)(sp)
    LREG    a4, R(8)(sp)
    LREG    a5, R(9)(sp)
    LREG    a6, R(10)(sp)
    LREG    a7, R(11)(sp)
    LREG    t3, R(12)(sp)
    LREG    t4, R(13)(sp)
    LREG    t5, R(14)(sp)
    LREG    t6, R(15)(sp)
    addi    sp, sp, R(16)
    mret
