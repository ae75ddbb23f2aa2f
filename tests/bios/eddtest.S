/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * eddtest.S: a boot program for pcam's legacy ROM (tests/bios/run.sh).
 * Sector 0 (the MBR) loads the rest through INT 13h 42h, then every
 * check calls INT 13h and prints one line on COM1:
 *   "T <name> cf=<0|1> ah=<hh> <bytes in hex>"
 * and run.sh compares them with what it put in the disk image. It ends
 * with "T end" and leaves QEMU through isa-debug-exit. It judges
 * nothing itself: the host does.
 */
    .code16
    .section .text
    .globl _start
_start:
    cli
    xorw %ax, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movw $0x7C00, %sp
    sti
    ljmp $0, $1f
1:  movb %dl, drive
    movw $dap_load, %si
    movb $0x42, %ah
    int $0x13
    jc load_failed
    jmp main

load_failed:
    movw $s_loadfail, %si
    call puts
    jmp finish

/* putc: AL on COM1 */
putc:
    pushw %dx
    pushw %ax
    movw $0x3FD, %dx
1:  inb %dx, %al
    testb $0x20, %al
    jz 1b
    popw %ax
    movw $0x3F8, %dx
    outb %al, %dx
    popw %dx
    ret
/* puts: the string at DS:SI */
puts:
    pushw %ax
1:  lodsb
    testb %al, %al
    jz 2f
    call putc
    jmp 1b
2:  popw %ax
    ret
/* hex8: AL as two digits */
hex8:
    pushw %ax
    shrb $4, %al
    call nib
    popw %ax
    pushw %ax
    call nib
    popw %ax
    ret
nib:
    andb $15, %al
    addb $'0', %al
    cmpb $'9', %al
    jbe 1f
    addb $7, %al
1:  jmp putc
/* hexmem: CX bytes at DS:SI, in memory order */
hexmem:
    pushw %ax
1:  lodsb
    call hex8
    loop 1b
    popw %ax
    ret

finish:
    movb $0, %al
    outb %al, $0xF4                 /* isa-debug-exit */
    cli
    hlt
    jmp finish

s_loadfail: .asciz "T load cf=1\r\n"
drive: .byte 0
    .balign 4
dap_load:
    .byte 0x10, 0
    .word 15                        /* sectors 1..15 */
    .word 0x7E00, 0
    .quad 1

    .org 446
    .fill 64, 1, 0                  /* partition table: run.sh may fill it */
    .byte 0x55, 0xAA

/* ---------------- past the MBR ---------------- */

/* report: "T <name at SI> cf=c ah=hh " from the last call13 */
report:
    pushw %si
    movw $s_t, %si
    call puts
    popw %si
    call puts
    movw $s_cf, %si
    call puts
    movb saved_cf, %al
    addb $'0', %al
    call putc
    movw $s_ah, %si
    call puts
    movb saved_ah, %al
    call hex8
    movb $' ', %al
    call putc
    ret
eol:
    movw $s_eol, %si
    jmp puts

/* call13: INT 13h with the caller's registers; keeps CF and AH */
call13:
    int $0x13
    pushf
    movb %ah, saved_ah
    popf
    setc saved_cf
    ret

/* ask pcam's own function 0FEh (BX 'pc' -> 'PC', CX:DX sectors read, SI written) */
counters:
    pushw %si
    movb $0xFE, %ah
    movw $0x7063, %bx
    movb drive, %dl
    call call13
    movw %bx, t_bx
    movw %cx, t_cx
    movw %dx, t_dx
    movw %si, t_si
    popw %si
    call report
    movw $t_bx, %si
    movw $8, %cx
    call hexmem
    jmp eol

/* the first 16 bytes at 1000:0000 */
dump_buf:
    pushw %ds
    movw $0x1000, %ax
    movw %ax, %ds
    xorw %si, %si
    movw $16, %cx
    call hexmem
    popw %ds
    jmp eol

/* EDD call AH=function(AX) with the packet at SI, then report name BP */
eddcall:
    movb drive, %dl
    call call13
    movw %bp, %si
    jmp report

main:
    movw $s_hello, %si
    call puts
    movb drive, %al
    call hex8
    call eol

    movw $n_pcam, %si
    call counters

    /* 41h: EDD installed? */
    movb $0x41, %ah
    movw $0x55AA, %bx
    movb drive, %dl
    call call13
    movw %bx, t_bx
    movw %cx, t_cx
    movw $n_41, %si
    call report
    movw $t_bx, %si
    movw $4, %cx
    call hexmem
    call eol

    /* 48h: parameters into a 26-byte buffer */
    movw $26, params
    movb $0x48, %ah
    movb drive, %dl
    movw $params, %si
    call call13
    movw $n_48, %si
    call report
    movw $params, %si
    movw $26, %cx
    call hexmem
    call eol

    /* 08h: legacy parameters */
    movb $0x08, %ah
    movb drive, %dl
    pushw %es
    call call13
    popw %es
    movw %cx, t_cx
    movw %dx, t_dx
    movw $n_08, %si
    call report
    movw $t_cx, %si
    movw $4, %cx
    call hexmem
    call eol

    /* 02h: CHS read of C0 H0 S17 (LBA 16) into 1000:0000 */
    movw $0x1000, %ax
    movw %ax, %es
    xorw %bx, %bx
    movw $0x0201, %ax
    movw $0x0011, %cx
    movb $0, %dh
    movb drive, %dl
    call call13
    xorw %ax, %ax
    movw %ax, %es
    movw $n_chs, %si
    call report
    call dump_buf

    /* 42h above 2^32 */
    movw $dap_hi, %si
    movw $0x4200, %ax
    movw $n_readhi, %bp
    call eddcall
    call dump_buf
    /* 43h: one sector at the next LBA from wpattern */
    movw $dap_whi, %si
    movw $0x4300, %ax
    movw $n_writehi, %bp
    call eddcall
    call eol
    /* 42h at the block count: past the end */
    movw $dap_past, %si
    movw $0x4200, %ax
    movw $n_past, %bp
    call eddcall
    call eol
    /* 42h, FFFF:FFFF in a 16-byte packet: no flat address to use */
    movw $dap_ffff16, %si
    movw $0x4200, %ax
    movw $n_ffff16, %bp
    call eddcall
    call eol
    /* 42h, FFFF:FFFF and the flat address 0x10000 (EDD 3.0) */
    movw $0x1000, %ax
    movw %ax, %es
    movl $0, %es:0
    xorw %ax, %ax
    movw %ax, %es
    movw $dap_ffff24, %si
    movw $0x4200, %ax
    movw $n_ffff24, %bp
    call eddcall
    call dump_buf
    /* 02h, two sectors at 1000:FF00: the buffer would cross its segment */
    movw $0x1000, %ax
    movw %ax, %es
    movw $0xFF00, %bx
    movw $0x0202, %ax
    movw $0x0001, %cx
    movb $0, %dh
    movb drive, %dl
    call call13
    xorw %ax, %ax
    movw %ax, %es
    movw $n_cross, %si
    call report
    call eol
    /* 02h on a drive number nobody has */
    movw $0x1000, %ax
    movw %ax, %es
    xorw %bx, %bx
    movw $0x0201, %ax
    movw $0x0001, %cx
    movb $0, %dh
    movb $0xF0, %dl
    call call13
    xorw %ax, %ax
    movw %ax, %es
    movw $n_baddrive, %si
    call report
    call eol
    /* a function INT 13h does not have, on our drive */
    movb $0x77, %ah
    movb drive, %dl
    call call13
    movw $n_badfn, %si
    call report
    call eol

    movw $n_pcam2, %si
    call counters
    movw $s_end, %si
    call puts
    jmp finish

s_hello: .asciz "T hello drive="
s_t: .asciz "T "
s_cf: .asciz " cf="
s_ah: .asciz " ah="
s_eol: .asciz "\r\n"
s_end: .asciz "T end\r\n"
n_pcam: .asciz "pcam"
n_pcam2: .asciz "pcam2"
n_41: .asciz "edd41"
n_48: .asciz "edd48"
n_08: .asciz "params08"
n_chs: .asciz "chs"
n_readhi: .asciz "readhi"
n_writehi: .asciz "writehi"
n_past: .asciz "past"
n_ffff16: .asciz "ffff16"
n_ffff24: .asciz "ffff24"
n_cross: .asciz "cross"
n_baddrive: .asciz "baddrive"
n_badfn: .asciz "badfn"
saved_cf: .byte 0
saved_ah: .byte 0
t_bx: .word 0
t_cx: .word 0
t_dx: .word 0
t_si: .word 0
    .balign 16
/* The packets; run.sh writes the disk's block count into dap_past's LBA
 * (at the offset `nm` gives for dap_past + 8). */
dap_hi:
    .byte 0x10, 0
    .word 1
    .word 0, 0x1000
    .quad 0x100000010
dap_whi:
    .byte 0x10, 0
    .word 1
    .word wpattern, 0
    .quad 0x100000011
    .globl dap_past
dap_past:
    .byte 0x10, 0
    .word 1
    .word 0, 0x1000
    .quad 0
dap_ffff16:
    .byte 0x10, 0
    .word 1
    .word 0xFFFF, 0xFFFF
    .quad 1
dap_ffff24:
    .byte 0x18, 0
    .word 1
    .word 0xFFFF, 0xFFFF
    .quad 0x100000010
    .quad 0x10000
wpattern:
    .ascii "PCAM-BIOS-WRITE-ABOVE-2TiB"
    .fill 512 - 26, 1, 0x5A
params:
    .space 32
    .org 16 * 512

    .section .note.GNU-stack, "", @progbits
