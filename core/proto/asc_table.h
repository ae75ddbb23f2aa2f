/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The compressed ASC/ASCQ table's layout, shared by the generated data
 * (asc_table.c) and its one reader (sense.c). Private to core/proto: the
 * public way in is pcam_asc_format().
 *
 * pcam_asc_keys is sorted (asc << 8 | ascq) for a binary search; entry i's
 * text is pcam_asc_stream[pcam_asc_offs[i] .. pcam_asc_offs[i + 1] - 1],
 * where bytes 0x20..0x7E are characters and any other byte c is a token
 * whose two halves are pcam_asc_pairs[PCAM_ASC_TOKEN(c)].
 */
#ifndef PCAM_ASC_TABLE_H
#define PCAM_ASC_TABLE_H

#include <stdint.h>
#include "pcam/pcam_config.h"
#include "asc_sizes.h"

#define PCAM_ASC_IS_CHAR(c) ((c) >= 0x20u && (c) <= 0x7Eu)
/* Token codes are 0x01..0x1F, then 0x7F..0xFF. */
#define PCAM_ASC_TOKEN(c) ((c) < 0x20u ? (unsigned)(c) - 0x01u : (unsigned)(c) - 0x7Fu + 31u)

/* An ASC whose ASCQ is a parameter; "NN" in the text stands for the ASCQ. */
typedef struct pcam_asc_range_entry {
    uint8_t asc;
    uint8_t ascq_lo;
    uint8_t ascq_hi;
    const char *text;
} pcam_asc_range_entry;

#if PCAM_CFG_SENSE_TEXT
extern const uint16_t pcam_asc_keys[PCAM_ASC_COUNT];
extern const uint16_t pcam_asc_offs[PCAM_ASC_COUNT + 1];
extern const uint8_t pcam_asc_pairs[PCAM_ASC_TOKENS][2];
extern const uint8_t pcam_asc_stream[];
extern const pcam_asc_range_entry pcam_asc_ranges[PCAM_ASC_RANGES];
#endif

#endif /* PCAM_ASC_TABLE_H */
