/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * INQUIRY / REPORT LUNS / READ CAPACITY fuzz target: the same bytes go
 * through all three parsers. Beyond "no crash, no out-of-bounds read",
 * results must stay inside the buffer, strings must be printable and
 * bounded, and what the builders/encoder produce must parse back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam_inquiry.h"

#define CHECK(c)            \
    do {                    \
        if (!(c))           \
            abort();        \
    } while (0)

static void check_str(const char *s, size_t max)
{
    size_t n = strlen(s);
    size_t i;
    CHECK(n <= max);
    for (i = 0; i < n; i++)
        CHECK(s[i] >= 0x20 && s[i] < 0x7F);
    CHECK(n == 0 || s[n - 1] != ' ');
}

static void run_inquiry(const uint8_t *data, size_t size)
{
    pcam_inquiry q;
    pcam_err rc = pcam_inquiry_parse(data, size, &q);
    CHECK(rc == (size < 5 ? PCAM_ERR_TRUNCATED : PCAM_OK));
    CHECK(q.bytes_valid <= size && q.bytes_valid <= PCAM_INQUIRY_MAX_LEN);
    CHECK(q.qualifier < 8 && q.device_type < 32 && q.clocking < 4);
    CHECK(q.version_desc_count <= 8);
    check_str(q.vendor, 8);
    check_str(q.product, 16);
    check_str(q.revision, 4);
    CHECK(pcam_device_type_name(q.device_type) != NULL);
}

static void run_luns(const uint8_t *data, size_t size)
{
    uint32_t list, count, i;
    pcam_lun_addr a;
    pcam_err rc = pcam_report_luns_header(data, size, &list, &count);

    if (size < 8) {
        CHECK(rc == PCAM_ERR_TRUNCATED && count == 0);
        return;
    }
    CHECK((uint64_t)count * 8 <= list && (size_t)count * 8 + 8 <= size);
    for (i = 0; i < count; i++) {
        uint8_t enc[8];
        CHECK(pcam_report_luns_get(data, size, i, &a) == PCAM_OK);
        CHECK(memcmp(a.raw, data + 8 + 8 * (size_t)i, 8) == 0);
        CHECK(a.level_bytes == 2 || a.level_bytes == 4 || a.level_bytes == 6 ||
              a.level_bytes == 8);
        /* Single-level LUNs in the forms the encoder uses re-encode exactly. */
        if (!a.has_next_level &&
            ((a.form == PCAM_LUNF_PERIPHERAL && a.bus == 0) ||
             (a.form == PCAM_LUNF_FLAT && a.lun >= 256))) {
            CHECK(pcam_lun_encode(a.lun, enc) == PCAM_OK);
            CHECK(memcmp(enc, a.raw, 8) == 0);
        }
    }
    CHECK(pcam_report_luns_get(data, size, count, &a) != PCAM_OK);
}

static void run_capacity(const uint8_t *data, size_t size)
{
    pcam_capacity c;
    uint8_t b[PCAM_READ_CAPACITY16_LEN];

    if (pcam_read_capacity10_parse(data, size, &c) == PCAM_OK) {
        CHECK(size >= 8);
        CHECK(pcam_read_capacity10_build(b, sizeof b, (uint32_t)c.last_lba, c.block_length) == 8);
        CHECK(memcmp(b, data, 8) == 0);
        CHECK(c.use_rc16 == (c.last_lba == 0xFFFFFFFFu));
    } else {
        CHECK(size < 8);
    }
    if (pcam_read_capacity16_parse(data, size, &c) == PCAM_OK) {
        CHECK(size >= 12 && c.have_protection == (size >= 16));
        CHECK(c.zero_block_length == (c.block_length == 0));
        CHECK(pcam_read_capacity16_build(b, sizeof b, c.last_lba, c.block_length) == 32);
        CHECK(memcmp(b, data, 12) == 0);
    } else {
        CHECK(size < 12);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_inquiry(data, size);
    run_luns(data, size);
    run_capacity(data, size);
    return 0;
}
