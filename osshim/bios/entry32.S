/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * entry32.S: the payload's one way in, at payload offset 0. rom16.S jumps
 * here in 32-bit protected mode (CS 0x08, base B) with ESI = real-mode
 * SS (bits 31..16) and function (15..0), EBP = argument, EBX = the
 * real-mode ESP to go back to,
 * EDI = B. It switches to
 * the payload's own stack, calls pcam_bios_call and goes back to ret16
 * (16-bit code, 0x18) with the result in EDX. Nothing else lives here.
 */
    .code32
    .section .entry32, "ax"
    .globl payload_entry
payload_entry:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    movl %edi, bios_base
    movl $stack_top, %esp
    pushl %ebx
    pushl %esi
    pushl %ebp
    movzwl %si, %esi
    pushl %esi
    call pcam_bios_call
    addl $8, %esp
    popl %esi
    popl %ebx
    movl %eax, %edx
    ljmp $0x18, $ret16

    .section .note.GNU-stack, "", @progbits
