/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * start_mips.S: entry and exception vector of the mips-malta board (MIPS32
 * big-endian, KSEG0, entered from QEMU's small Malta boot loader, which has
 * already moved the GT-64120 to 0x1BE00000 and opened its PCI windows).
 * Stack, .bss cleared, EBase pointed at our vector page, BEV/ERL/EXL/IE
 * off, then C. It must stay this small: the C board file does the rest.
 */
    .set    noreorder
    .set    noat
    .section .text.start, "ax"
    .globl  _start
_start:
    la      $sp, __stack_top
    la      $t0, __bss_start
    la      $t1, __bss_end
1:  sltu    $t2, $t0, $t1
    beqz    $t2, 2f
    nop
    sw      $zero, 0($t0)
    b       1b
    addiu   $t0, $t0, 4
2:  la      $t0, vectors
    mtc0    $t0, $15, 1             /* EBase */
    mfc0    $t0, $12                /* Status: clear BEV, ERL, EXL, IE */
    li      $t1, ~0x00400007
    and     $t0, $t0, $t1
    mtc0    $t0, $12
    ehb
    jal     fw_main
    nop
3:  b       3b
    nop

/* General exception vector at EBase + 0x180: save what C may clobber,
 * call board_trap(Cause, EPC), restore, eret. */
    .section .text.vectors, "ax"
    .align  12
vectors:
    .space  0x180
    addiu   $sp, $sp, -88
    sw      $at, 0($sp)
    sw      $v0, 4($sp)
    sw      $v1, 8($sp)
    sw      $a0, 12($sp)
    sw      $a1, 16($sp)
    sw      $a2, 20($sp)
    sw      $a3, 24($sp)
    sw      $t0, 28($sp)
    sw      $t1, 32($sp)
    sw      $t2, 36($sp)
    sw      $t3, 40($sp)
    sw      $t4, 44($sp)
    sw      $t5, 48($sp)
    sw      $t6, 52($sp)
    sw      $t7, 56($sp)
    sw      $t8, 60($sp)
    sw      $t9, 64($sp)
    sw      $ra, 68($sp)
    mfhi    $t0
    sw      $t0, 72($sp)
    mflo    $t0
    sw      $t0, 76($sp)
    mfc0    $a0, $13                /* Cause */
    mfc0    $a1, $14                /* EPC */
    jal     board_trap
    addiu   $sp, $sp, -16           /* o32 argument save area (delay slot) */
    addiu   $sp, $sp, 16
    lw      $t0, 72($sp)
    mthi    $t0
    lw      $t0, 76($sp)
    mtlo    $t0
    lw      $at, 0($sp)
    lw      $v0, 4($sp)
    lw      $v1, 8($sp)
    lw      $a0, 12($sp)
    lw      $a1, 16($sp)
    lw      $a2, 20($sp)
    lw      $a3, 24($sp)
    lw      $t0, 28($sp)
    lw      $t1, 32($sp)
    lw      $t2, 36($sp)
    lw      $t3, 40($sp)
    lw      $t4, 44($sp)
    lw      $t5, 48($sp)
    lw      $t6, 52($sp)
    lw      $t7, 56($sp)
    lw      $t8, 60($sp)
    lw      $t9, 64($sp)
    lw      $ra, 68($sp)
    addiu   $sp, $sp, 88
    eret
