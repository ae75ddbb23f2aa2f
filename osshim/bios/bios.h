/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bios.h: what bios_main.c (init, chips, platform) and bios_int13.c (the
 * INT 13h services) share. Addresses: the payload runs with segment base
 * B (bios_base), so a linear address L is the pointer L - B.
 */
#ifndef BIOS_H
#define BIOS_H

#include "fw.h"
#include "bios_layout.h"

extern uint32_t bios_base;

static inline void *bios_ptr(uint32_t linear)
{
    return (void *)(uintptr_t)(linear - bios_base);
}

/* One disk a BCV offers: a direct-access LUN with 512-byte blocks. */
typedef struct bios_disk {
    uint8_t target, lun;
    uint8_t index;              /* its BCV (and PnP header) */
    uint64_t blocks;
    uint32_t cyls, heads, spt;  /* the CHS geometry INT 13h 02h/08h use */
} bios_disk;

extern bios_disk bios_disks[BIOS_MAX_DISKS];
extern unsigned bios_ndisks;
extern uint8_t *bios_shared;   /* the ROM's state block (rom16.S "shared") */

/* Run one SCSI command on a disk, polled; returns the CAM status (masked)
 * and leaves the sense bytes in *sense (sense_len of them valid when
 * PCAM_AUTOSNS_VALID was set: *sense_ok). */
uint32_t bios_scsi(uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len,
                   pcam_dir dir, void *data, uint32_t len, uint8_t *sense, bool *sense_ok);

/* The INT 13h service for the register frame at `frame` (linear). */
void bios_int13(uint32_t frame);

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

#endif /* BIOS_H */
