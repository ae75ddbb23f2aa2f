/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The upper layer a command-level back-end's fuzz target plays over the
 * real core (fuzz_mpt, fuzz_virtio): I/O with and without data, tags and
 * sense buffers of odd sizes, aborts, device and bus resets and LUN scans,
 * each CCB's completions counted (a second one aborts at once) and the
 * core's invariants checked after each step.
 */
#ifndef FUZZ_UPPER_H
#define FUZZ_UPPER_H

#include <stdint.h>

#include "pcam/pcam.h"

/* Forget every CCB (before a run). */
void upper_reset(void);
/* One SCSI I/O CCB from three input bytes (skipped if its slot is busy). */
void upper_submit(pcam_bus *bus, uint8_t a, uint8_t b, uint8_t c);
/* An abort, device reset, bus reset or LUN scan: one at a time. */
void upper_misc(pcam_bus *bus, uint8_t a, uint8_t b);
/* pcam_bus_check_invariants() holds, or abort. */
void upper_check(pcam_bus *bus);
/* After pcam_bus_shutdown(): every CCB completed, or abort. */
void upper_finish(void);

#endif /* FUZZ_UPPER_H */
