/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw.h: the shared firmware's internal interface (console, PCI enumeration,
 * the pcam platform layer). Board files see it too but add nothing to it.
 */
#ifndef FW_H
#define FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_board.h"
#include "pcam/pcam.h"
#include "pcam/pcam_hal.h"

/* fw_lib.c provides these; the compiler may also call them on its own. */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

/* fw_lib.c */
size_t fw_strlen(const char *s);
uint64_t fw_divmod(uint64_t n, uint64_t d, uint64_t *rem);
void fw_puts(const char *s);
void fw_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* fw_pci.c: one PCI function as enumeration left it (BARs assigned, I/O,
 * memory and bus mastering enabled). bar_cpu[i] is where the CPU reaches
 * BAR i (0 when unassigned); bar_io says it is an I/O BAR. */
typedef struct fw_pci_fn {
    unsigned dev, fn;
    uint16_t vendor, device;
    uint8_t revision;
    uintptr_t bar_cpu[6];
    uint32_t bar_pci[6];
    uint32_t bar_size[6];
    bool bar_io[6];
} fw_pci_fn;

/* Walk bus 0, assign every BAR of every function from the board's windows,
 * enable decoding and bus mastering; print one line per function. Returns
 * the number of functions found. */
unsigned fw_pci_enumerate(void);
/* The n-th function with this vendor:device (after fw_pci_enumerate), or NULL. */
const fw_pci_fn *fw_pci_find(uint16_t vendor, uint16_t device, unsigned n);

/* fw_platform.c: pcam_platform for this firmware. */
void fw_platform_get(pcam_platform *out);
uint64_t fw_now_ns(void);
uint64_t fw_ns_to_ticks(uint64_t ns);
/* Instructions spent inside pcam (core and back-end) since the last reset. */
extern uint64_t fw_pcam_insns;

/* fw_meter.c: count the instructions of a phase-level back-end's ops. */
void fw_meter_wrap(pcam_hal *hal);
extern uint64_t fw_backend_insns;

#endif /* FW_H */
