/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bios_layout.h: the few numbers rom16.S and the C payload must agree on:
 * the functions of the thunk and the layout of the state block in the ROM
 * that both read. Plain #defines, so the assembler can include it too.
 */
#ifndef BIOS_LAYOUT_H
#define BIOS_LAYOUT_H

#define BIOS_MAX_DISKS 4    /* PnP headers (one BCV each) in the ROM */

#define BIOS_FN_INIT 0      /* argument: the linear address of the ROM */
#define BIOS_FN_INT13 1     /* argument: the linear address of the register frame */

/* The state block ("shared" in rom16.S), offsets in bytes. */
#define SH_BASE 0           /* u32: B, where the payload runs */
#define SH_OLD13 4          /* u32: the INT 13h vector before ours (seg:off) */
#define SH_BDF 8            /* u32: AX at init (PCI bus/devfn) */
#define SH_HOOKED 12        /* u8: INT 13h hooked */
#define SH_NDISKS 13        /* u8: disks init found */
#define SH_DRIVES 16        /* u8[BIOS_MAX_DISKS]: drive number of each BCV's disk (0: none) */
#define SH_PNP 20           /* u16[BIOS_MAX_DISKS]: offset of each PnP header */
#define SH_BCV 28           /* u16[BIOS_MAX_DISKS]: offset of each BCV entry */
#define SH_NAMES 48         /* char[BIOS_MAX_DISKS][SH_NAME_LEN]: boot menu names */
#define SH_NAME_LEN 48
#define SH_SIZE (SH_NAMES + BIOS_MAX_DISKS * SH_NAME_LEN)

#endif /* BIOS_LAYOUT_H */
