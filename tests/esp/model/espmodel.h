/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * espmodel.h - a register-level NCR53C9x / FAS2xx / AM53C974 chip model for
 * tests, sitting on hal/sim's bus and targets (pcam_sim_i_*).
 *
 * The interface to a back-end is the chip itself: its registers, reached
 * through the pcam_platform returned by espm_get_platform() (read8/write8 for
 * ESP register n at espm_base() + n * espm_stride(); read32/write32 for the
 * AM53C974 DMA engine at espm_base() + 0x40 + 4 * k, SBAC at + 0x70), and
 * host memory at the bus addresses dma_map returns.
 *
 * Anything a buggy back-end does that the real chip would not tolerate (a
 * command in the wrong state, a FIFO overflow, reading INTR with no interrupt
 * pending, ...) is counted as a protocol error and logged, so tests can assert
 * that a back-end run left espm_errors() at zero.
 *
 * Behaviour in brief (details and fact sources in espm_cmd.c / espm_sel.c):
 * - one command runs at a time and one more may be written behind it (it
 *   starts when the first ends; its interrupt is stacked behind the first's);
 * - a DMA command (bit 0x80) loads the counter from TCLO/TCMID(/TCHI with
 *   CFG2 0x40); on the AM53C974 it waits for the DMA engine's START;
 * - reselection is answered only after ENABLE SELECTION (0x44); until then
 *   the target waits, and a selection issued meanwhile loses to it (0x0C);
 * - STP/SOFF/CFG3 are turned into the bus's mode for the connected target at
 *   every data-phase TRANSFER INFORMATION, so hal/sim's strict mode catches
 *   registers that disagree with what the target agreed;
 * - non-DMA TRANSFER INFORMATION moves one byte in DATA IN / STATUS /
 *   MESSAGE IN and the whole FIFO towards the target;
 * - SET ATN while connected and idle in DATA/COMMAND/STATUS: the target asks
 *   for MESSAGE OUT at once (STATUS phase bits 6, no interrupt).
 * Not modelled: target mode, wide (FAS366), the FIFO bottom register, MDL
 * scatter-gather of the AM53C974, DMA engines of the other variants, parity
 * on bytes sent, chip timing (commands take no time; the bus's timing is
 * hal/sim's).
 *
 * Host-only test code (it uses the C library).
 */
#ifndef ESPMODEL_H
#define ESPMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam/pcam_platform.h"
#include "pcam_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chip variants, as the datasheets distinguish them (what a driver's probe
 * sees: which of CFG2/CFG3/CFG4 read back what was written, and TCHI's
 * part-unique ID after RESET CHIP + DMA NOP). */
typedef enum espm_chip {
    ESPM_NCR53C90,   /* no CFG2, no CFG3, no TCHI, no SELECT WITH ATN3 */
    ESPM_NCR53C90A,  /* + CFG2, SELECT WITH ATN3 */
    ESPM_NCR53C94,   /* + CFG3 (also stands for the 53C96); no TCHI */
    ESPM_FAS216,     /* + TCHI (24-bit counter with CFG2 0x40), ID 0x12 (family 2, version 2) */
    ESPM_FAS236,     /* as FAS216, ID 0x13 (family 2; the version is the model's choice) */
    ESPM_AM53C974    /* FAS216 core (ID 0x12), + CFG4, + the DMA engine at +0x40; stride 4 */
} espm_chip;

/* The opaque model. */
typedef struct espm espm;

/* Configuration of one model instance. */
typedef struct espm_config {
    espm_chip chip;
    uint32_t clock_khz;      /* input clock, e.g. 40000 for the AM53C974 */
    uint8_t initiator_id;    /* the chip's own ID; hal/sim's initiator must match */
} espm_config;

/* Create a model on @p sim (the bus must outlive it). NULL on bad config:
 * unknown chip, clock outside 10..40 MHz, initiator_id > 7 or different from the bus's initiator, or a wide bus
 * (the ESP is narrow: create the bus with pcam_sim_config::width = 8). */
espm *espm_create(pcam_sim *sim, const espm_config *cfg);
/* Free the model (not the bus). NULL is ignored. */
void espm_destroy(espm *m);

/* Platform services for a back-end: now_ns = simulated time; read/write
 * 8/16/32 decode the registers; log goes to the sim log; delay_us advances
 * simulated time. dma_map returns a 32-bit bus address for the buffer (the
 * AM53C974's address registers are 32 bits and a 64-bit host's heap is not,
 * so each live mapping gets its own window, like an IOMMU; within a mapping
 * bus addresses are linear and keep the buffer's offset in its 4 KiB page).
 * Program SPA with what dma_map returned, plus the offset into the buffer. */
void espm_get_platform(espm *m, pcam_platform *out);
/* The base address to give the back-end. */
uintptr_t espm_base(const espm *m);
/* Register stride: 4 for the AM53C974, else 1. */
unsigned espm_stride(const espm *m);
/* The INTR line (level). */
bool espm_irq(const espm *m);
/* Simulated ns of the next model/bus event, UINT64_MAX if none. */
uint64_t espm_next_time(const espm *m);
/* Run the model and hal/sim up to time t. */
void espm_advance(espm *m, uint64_t t);

/* Counters. */
typedef struct espm_stats {
    uint64_t reg_reads, reg_writes, dma_bytes, pio_bytes, commands;
} espm_stats;
void espm_stats_get(const espm *m, espm_stats *out);

/* ---- additions beyond the contract (test helpers) ---- */

/* Protocol errors the model detected (back-end misuse of the chip). */
uint64_t espm_errors(const espm *m);
/* The text of the most recent protocol error ("" if none). */
const char *espm_last_error(const espm *m);
/* Send the model's log lines (protocol errors and commands) to stderr. */
void espm_set_verbose(espm *m, bool on);
/* From now on each new mapping starts @p skew bytes (a multiple of 4 KiB,
 * below 16 MiB) into its window instead of at its start, and the windows are
 * 32 MiB apart, so a mapping longer than 16 MiB - skew crosses a 16 MiB
 * boundary of bus space: a back-end must cut its DMA runs there (the model
 * reports a run that crosses one). */
void espm_set_map_skew(espm *m, uint32_t skew);
/* dma_map mappings not yet unmapped (a back-end leak check). */
unsigned espm_dma_live_maps(const espm *m);
/* Advance until the INTR line is up or @p limit_ns of simulated time passed;
 * returns espm_irq(). */
bool espm_run_until_irq(espm *m, uint64_t limit_ns);

#ifdef __cplusplus
}
#endif

#endif /* ESPMODEL_H */
