/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rom16.S: the real-mode part of pcam's legacy option ROM, the whole of
 * what stays in the option-ROM area after init: the ROM header, PCIR,
 * the PnP expansion headers (one BCV each, filled in by init), the BCV
 * and INT 13h entries, and the thunk into the 32-bit C payload.
 *
 * The payload (everything the C compiler built) is linked at address 0
 * and copied by init into permanent PMM memory at B; its code and data
 * segments have base B and a 4 GiB limit, so a pointer p is the linear
 * (and bus) address p + B, with no relocation. The thunk builds its GDT
 * on the caller's stack each call, so nothing here needs writable memory
 * after POST. It must never enable interrupts while in protected mode
 * (there is no IDT) and never touch a drive number that is not its own.
 */
#include "bios_layout.h"

    .code16
    .section .rom16, "ax"
    .globl rom_start
rom_start:
    .byte 0x55, 0xAA
rom_size_blocks:
    .byte 0                     /* filled by mkbiosrom.py, shrunk by init */
    jmp init_entry              /* offset 3: the init vector */
    .org 0x18
    .word pcir                  /* PCI data structure */
    .word pnp0                  /* first PnP expansion header */

    .balign 4
pcir:
    .ascii "PCIR"
    .word 0x1000, 0x0012        /* vendor, device (mkbiosrom.py may rewrite) */
    .word devlist               /* PCI 3.0 device list */
    .word 0x1C                  /* structure length */
    .byte 3                     /* PCI Firmware 3.0 */
    .byte 0x00, 0x00, 0x01      /* class: mass storage, SCSI */
    .word 0                     /* image length (512 units): mkbiosrom.py */
    .word 1                     /* code revision */
    .byte 0                     /* code type 0: x86 PC-AT */
    .byte 0x80                  /* last image (mkbiosrom.py clears it when an image follows) */
    .word 0                     /* maximum run-time image length: mkbiosrom.py */
    .word 0, 0                  /* no configuration utility, no DMTF CLP */
devlist:
    .word 0x0012, 0             /* the LSI53C895A (vendor 1000) */

/* PnP expansion headers: BIOS_MAX_DISKS slots, chained; init fills the
 * BCV, the product-name pointer and the checksum of each used slot and
 * ends the chain after the last disk. */
#define PNP(n, next)                                                   \
pnp##n:                                                                \
    .ascii "$PnP"; .byte 1, 2; .word next; .byte 0, 0;                 \
    .long 0x0000A0C0 + n; .word manufacturer; .word shared + SH_NAMES + n * SH_NAME_LEN; \
    .byte 0x01, 0x00, 0x00;  /* mass storage, SCSI */                  \
    .byte 0x14;              /* IPL device, may be shadowed */          \
    .word 0, 0, 0, 0, 0
    .balign 16
    PNP(0, pnp1)
    PNP(1, pnp2)
    PNP(2, pnp3)
    PNP(3, 0)
manufacturer:
    .asciz "pcam"

/* State shared with the C payload (bios_layout.h gives the offsets).
 * Written only while the option-ROM area is writable: by init and by the
 * BCVs, which SeaBIOS calls before it makes the area read-only. */
    .balign 16
    .globl shared
shared:
    .long 0, 0, 0, 0
    .byte 0, 0, 0, 0
    .word pnp0, pnp1, pnp2, pnp3
    .word bcv0, bcv1, bcv2, bcv3
    .org shared + SH_SIZE

init_entry:
    pushal
    pushw %ds
    pushw %es
    cld
    movw %cs, %bx
    movw %bx, %ds
    movl %eax, shared + SH_BDF      /* AX: the PCI bus/devfn (0 from a file ROM) */
    call pmm_alloc
    testl %eax, %eax
    jz 9f
    addl $4095, %eax                /* page-align B (the allocation has the slack) */
    andl $~4095, %eax
    movl %eax, shared + SH_BASE
    xorl %edx, %edx
    movw %cs, %dx
    shll $4, %edx                   /* the ROM's linear address */
    movl $BIOS_FN_INIT, %eax
    movw $1, %cx                    /* copy the payload first */
    call call32
9:
    popw %es
    popw %ds
    popal
    lret

/* Find $PMM in the F segment and take permanent high memory for the
 * payload image, its bss and its stack. Out: EAX = linear address or 0. */
pmm_alloc:
    pushw %es
    movw $0xF000, %ax
    movw %ax, %es
    xorw %di, %di
1:  cmpl $0x4D4D5024, %es:(%di)     /* "$PMM" */
    jne 2f
    movzbw %es:5(%di), %cx          /* structure length: checksum it */
    xorb %al, %al
    movw %di, %bx
    xorw %si, %si
3:  addb %es:(%bx,%si), %al
    incw %si
    loop 3b
    testb %al, %al
    jz 4f
2:  addw $16, %di
    jnz 1b
    xorl %eax, %eax
    popw %es
    ret
4:  movl %es:7(%di), %eax           /* entry point, seg:off */
    movl %eax, pmm_entry
    pushw $0x000A                   /* flags: extended memory, permanent */
    pushl $0x4D414350               /* handle "PCAM" */
    pushl $payload_paragraphs
    pushw $0                        /* function 0: allocate */
    lcall *pmm_entry
    addw $12, %sp
    shll $16, %edx
    movw %ax, %dx
    movl %edx, %eax
    popw %es
    ret
pmm_entry:
    .long 0

/* One BCV per disk: note this disk's drive number and hook INT 13h. */
#define BCV(n) bcv##n: pushw $n; jmp bcv_common
    BCV(0)
    BCV(1)
    BCV(2)
    BCV(3)
    .globl bcv0, bcv1, bcv2, bcv3
bcv_common:
    pushw %bp
    movw %sp, %bp
    pushw %ax
    pushw %bx
    pushw %ds
    pushw %es
    movw %cs, %ax
    movw %ax, %ds
    xorw %ax, %ax
    movw %ax, %es
    cmpb $0, shared + SH_HOOKED
    jne 1f
    movl %es:(0x13 * 4), %eax
    movl %eax, shared + SH_OLD13
    movw $int13_entry, %es:(0x13 * 4)
    movw %cs, %es:(0x13 * 4 + 2)
    movb $1, shared + SH_HOOKED
1:  movb %es:0x475, %al             /* BDA: number of hard disks */
    movw 2(%bp), %bx                /* this BCV's disk */
    orb $0x80, %al
    movb %al, shared + SH_DRIVES(%bx)
    incb %es:0x475
    popw %es
    popw %ds
    popw %bx
    popw %ax
    popw %bp
    addw $2, %sp
    lret

/* INT 13h: our drives go to the payload, every other one to the vector
 * that was there before us. */
int13_entry:
    testb $0x80, %dl
    jz 3f
    pushw %bx
    xorw %bx, %bx
1:  cmpb %cs:shared + SH_DRIVES(%bx), %dl
    je 2f
    incw %bx
    cmpw $BIOS_MAX_DISKS, %bx
    jb 1b
    popw %bx
3:  ljmp *%cs:shared + SH_OLD13
2:  popw %bx
    pushal
    pushw %ds
    pushw %es
    cld
    xorl %edx, %edx
    movw %ss, %dx
    shll $4, %edx
    movzwl %sp, %eax
    addl %eax, %edx                 /* the frame's linear address */
    movl $BIOS_FN_INT13, %eax
    xorw %cx, %cx
    call call32
    popw %es
    popw %ds
    popal
    iret

/* Descriptor at SS:DI from base EAX and BX = flags:access; DI += 8. */
mkdesc:
    movw $0xFFFF, %ss:(%di)
    movw %ax, %ss:2(%di)
    rorl $16, %eax
    movb %al, %ss:4(%di)
    movb %bl, %ss:5(%di)
    movb %bh, %ss:6(%di)
    movb %ah, %ss:7(%di)
    rorl $16, %eax
    addw $8, %di
    ret

/* call32: run pcam_bios_call(EAX, EDX) in the payload, flat 32-bit
 * protected mode, interrupts off; CX != 0 copies the payload from the ROM
 * to B first (init only). Returns its result in EAX; every other register
 * and the flags are kept. */
#define FRAME 64                    /* gdtr 0..5, far pointer 8..11, GDT 16..63 */
call32:
    pushal
    pushw %ds
    pushw %es
    pushw %fs
    pushw %gs
    pushfl
    cli
    movl %eax, %esi                 /* function */
    movl %edx, %ebp                 /* argument */
    subw $FRAME, %sp
    movzwl %sp, %edi
    movw $47, %ss:(%di)
    xorl %eax, %eax
    movw %ss, %ax
    shll $4, %eax
    addl %edi, %eax
    addl $16, %eax
    movl %eax, %ss:2(%di)
    movw $real16, %ss:8(%di)
    movw %cs, %ss:10(%di)
    addw $16, %di
    movl $0, %ss:(%di)
    movl $0, %ss:4(%di)
    addw $8, %di
    movl %cs:shared + SH_BASE, %eax
    movw $0xCF9A, %bx               /* 0x08: 32-bit code, base B */
    call mkdesc
    movl %cs:shared + SH_BASE, %eax
    movw $0xCF92, %bx               /* 0x10: 32-bit data, base B */
    call mkdesc
    xorl %eax, %eax
    movw %cs, %ax
    shll $4, %eax
    movw $0x009A, %bx               /* 0x18: 16-bit code, this ROM */
    call mkdesc
    xorl %eax, %eax
    movw $0x0092, %bx               /* 0x20: 16-bit data, base 0, 64 KiB */
    call mkdesc
    xorl %eax, %eax
    movw $0xCF92, %bx               /* 0x28: flat 32-bit data, base 0 */
    call mkdesc
    movw %sp, %di
    lgdtl %ss:(%di)
    movl %esp, %ebx                 /* EBX: the whole real-mode ESP (callers such */
    movw %ss, %ax                   /* as SeaBIOS use its upper half), ESI bits */
    shll $16, %eax                  /* 31..16: SS, to come back to */
    movw %si, %ax
    movl %eax, %esi
    inb $0x92, %al                  /* fast A20 on: B is above 1 MiB */
    orb $2, %al
    andb $0xFE, %al
    outb %al, $0x92
    movl %cr0, %eax
    orb $1, %al
    movl %eax, %cr0
    ljmp $0x18, $pm16
pm16:
    jcxz 1f
    movw $0x28, %ax                 /* init: copy the payload to B, zero its bss */
    movw %ax, %ds
    movw %ax, %es
    movzwl %ss:10(%di), %eax        /* the ROM's segment (SS is still real-mode) */
    shll $4, %eax
    addl $payload_lma, %eax
    pushl %esi
    movl %eax, %esi
    movl %cs:shared + SH_BASE, %edi
    movl $payload_filesz, %ecx
    addr32 rep movsb
    movl $payload_zerosz, %ecx
    xorb %al, %al
    addr32 rep stosb
    popl %esi
1:  movl %cs:shared + SH_BASE, %edi /* EDI: B, for the payload */
    ljmpl $0x08, $payload_entry

    .globl ret16
ret16:                              /* from the payload: EDX = result */
    movw $0x20, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    movl %cr0, %eax
    andb $0xFE, %al
    movl %eax, %cr0
    movl %esi, %eax
    shrl $16, %eax
    movw %ax, %ss
    movl %ebx, %esp
    movw %sp, %bx
    ljmp *%ss:8(%bx)
real16:
    addw $FRAME, %sp
    movw %sp, %bx
    movl %edx, %ss:(4 + 8 + 28)(%bx) /* the saved EAX */
    popfl
    popw %gs
    popw %fs
    popw %es
    popw %ds
    popal
    ret

    .byte 0                         /* room for init's checksum byte */
    .balign 512, 0
    .globl rom16_end
rom16_end:

    .section .note.GNU-stack, "", @progbits
