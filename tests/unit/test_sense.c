/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sense data codec. Byte vectors are worked out by hand from SPC-5 clause
 * 4.4: fixed format (byte 0 VALID|70h/71h, byte 2 FILEMARK/EOM/ILI/key,
 * 3..6 INFORMATION, 7 additional length, 8..11 CSI, 12 ASC, 13 ASCQ, 14 FRU,
 * 15..17 SKSV|sense-key specific) and descriptor format (byte 0 72h/73h,
 * 1 key, 2 ASC, 3 ASCQ, 7 additional length, descriptors from byte 8, each
 * type + additional length + body). ASC/ASCQ texts are T10's asc-num.txt.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam_sense.h"

/* Decode and format in one go; the line must decode with PCAM_OK. */
static const char *line_of(const uint8_t *b, size_t len, pcam_sense *s)
{
    static char line[512];
    assert_int_equal(pcam_sense_decode(b, len, s), PCAM_OK);
    int n = pcam_sense_format(s, line, sizeof line);
    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(line));
    return line;
}

static void key_names(void **state)
{
    (void)state;
    static const char *const want[16] = {
        "NO SENSE",       "RECOVERED ERROR", "NOT READY",      "MEDIUM ERROR",
        "HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
        "BLANK CHECK",    "VENDOR SPECIFIC", "COPY ABORTED",   "ABORTED COMMAND",
        "EQUAL",          "VOLUME OVERFLOW", "MISCOMPARE",     "COMPLETED",
    };
    for (unsigned k = 0; k < 16; k++)
        assert_string_equal(pcam_sense_key_name((uint8_t)k), want[k]);
    /* Only the low nibble is a key; the rest of byte 2 is flags. */
    assert_string_equal(pcam_sense_key_name(0xE3), "MEDIUM ERROR");
}

/* The whole table, pair by pair, is checked in test_asc_table.c against the
 * plain list; these are spot checks a reader can verify by eye. */
static const char *asc_str(uint8_t asc, uint8_t ascq)
{
    static char buf[128];
    assert_true(pcam_asc_format(asc, ascq, buf, sizeof buf) > 0);
    return buf;
}

static void well_known_entries(void **state)
{
    (void)state;
    assert_string_equal(asc_str(0x00, 0x00), "No additional sense information");
    assert_string_equal(asc_str(0x04, 0x01), "Logical unit is in process of becoming ready");
    assert_string_equal(asc_str(0x11, 0x00), "Unrecovered read error");
    assert_string_equal(asc_str(0x20, 0x00), "Invalid command operation code");
    assert_string_equal(asc_str(0x24, 0x00), "Invalid field in cdb");
    assert_string_equal(asc_str(0x25, 0x00), "Logical unit not supported");
    assert_string_equal(asc_str(0x28, 0x00), "Not ready to ready change, medium may have changed");
    assert_string_equal(asc_str(0x29, 0x00), "Power on, reset, or bus device reset occurred");
    assert_string_equal(asc_str(0x3A, 0x00), "Medium not present");
    assert_string_equal(asc_str(0x3F, 0x0E), "Reported luns data has changed");
    assert_string_equal(asc_str(0x5D, 0x00), "Failure prediction threshold exceeded");
    /* The last T10 entry, and the one entry the source list had out of order. */
    assert_string_equal(asc_str(0x74, 0x79), "Security conflict in translated device");
    assert_string_equal(asc_str(0x2A, 0x0A), "Error history i_t nexus cleared");
    /* Exact "should use 40 NN" entries win over the ranges. */
    assert_string_equal(asc_str(0x40, 0x00), "Ram failure (should use 40 nn)");
    /* Ranged codes are known; vendor and unassigned ones are not. */
    assert_true(pcam_asc_known(0x40, 0x85));
    assert_true(pcam_asc_known(0x4D, 0x00));
    assert_true(pcam_asc_known(0x11, 0x00));
    assert_false(pcam_asc_known(0x80, 0x00));
    assert_false(pcam_asc_known(0x00, 0xFF));
    assert_false(pcam_asc_known(0xFF, 0xFF));
    assert_false(pcam_asc_known(0x11, 0x7F));
}

static void check_asc_format(uint8_t asc, uint8_t ascq, const char *want)
{
    char buf[128];
    int n = pcam_asc_format(asc, ascq, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
}

static void ranged_and_fallback_formatting(void **state)
{
    (void)state;
    check_asc_format(0x40, 0x85, "Diagnostic failure on component 85h");
    check_asc_format(0x40, 0x80, "Diagnostic failure on component 80h");
    check_asc_format(0x40, 0xFF, "Diagnostic failure on component FFh");
    check_asc_format(0x40, 0x01, "Ram failure 01h");
    check_asc_format(0x40, 0x7F, "Ram failure 7Fh");
    check_asc_format(0x40, 0x00, "Ram failure (should use 40 nn)");
    check_asc_format(0x41, 0x23, "Data path failure 23h");
    check_asc_format(0x41, 0x00, "Data path failure (should use 40 nn)");
    check_asc_format(0x42, 0xFF, "Power-on or self-test failure FFh");
    check_asc_format(0x4D, 0x00, "Tagged overlapped commands (task tag 00h)");
    check_asc_format(0x4D, 0xA5, "Tagged overlapped commands (task tag A5h)");
    check_asc_format(0x70, 0x00, "Decompression exception short algorithm id of 00h");
    check_asc_format(0x70, 0xFF, "Decompression exception short algorithm id of FFh");
    check_asc_format(0x11, 0x00, "Unrecovered read error");
    check_asc_format(0x80, 0x01, "ASC 0x80 ASCQ 0x01 (vendor specific)");
    check_asc_format(0x11, 0x80, "ASC 0x11 ASCQ 0x80 (vendor specific)");
    check_asc_format(0xFF, 0xFF, "ASC 0xFF ASCQ 0xFF (vendor specific)");
    check_asc_format(0x01, 0x7F, "Unknown ASC/ASCQ");
    check_asc_format(0x7F, 0x00, "Unknown ASC/ASCQ");

    char buf[64];
    memset(buf, 'x', sizeof buf);
    /* "Unrecovered read error" is 22 characters: 23 bytes fit exactly. */
    assert_int_equal(pcam_asc_format(0x11, 0x00, buf, 23), 22);
    assert_int_equal(pcam_asc_format(0x11, 0x00, buf, 22), PCAM_ERR_NOSPACE);
    assert_string_equal(buf, "Unrecovered read erro");
    /* "Diagnostic failure on component 85h" is 35: a cut inside the number. */
    assert_int_equal(pcam_asc_format(0x40, 0x85, buf, 36), 35);
    assert_int_equal(pcam_asc_format(0x40, 0x85, buf, 34), PCAM_ERR_NOSPACE);
    assert_string_equal(buf, "Diagnostic failure on component 8");
    assert_int_equal(pcam_asc_format(0x40, 0x85, buf, 10), PCAM_ERR_NOSPACE);
    assert_string_equal(buf, "Diagnosti");
    assert_int_equal(pcam_asc_format(0x40, 0x85, buf, 0), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_asc_format(0x40, 0x85, NULL, 10), PCAM_ERR_NULL);
}

/* The example: MEDIUM ERROR, 11/00, VALID with INFORMATION 1234h. */
static const uint8_t medium_fixed[18] = {
    0xF0, 0x00, 0x03, 0x00, 0x00, 0x12, 0x34, 0x0A, 0x00, 0x00,
    0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void fixed_medium_error(void **state)
{
    (void)state;
    pcam_sense s;
    assert_string_equal(line_of(medium_fixed, sizeof medium_fixed, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x1234");
    assert_int_equal(s.response_code, 0x70);
    assert_int_equal(s.format, PCAM_SENSE_FIXED);
    assert_false(s.deferred);
    assert_true(s.key_valid);
    assert_int_equal(s.key, PCAM_SK_MEDIUM_ERROR);
    assert_true(s.asc_valid);
    assert_int_equal(s.asc, 0x11);
    assert_int_equal(s.ascq, 0x00);
    assert_true(s.info_valid);
    assert_true(s.info == 0x1234);
    assert_false(s.csi_valid);
    assert_false(s.sks_valid);
    assert_false(s.fru_valid);
    assert_false(s.filemark || s.eom || s.ili || s.sdat_ovfl);
    assert_false(s.truncated);
    assert_int_equal(s.additional_length, 10);
    assert_int_equal(s.used, 18);
}

static void fixed_deferred_and_info_not_valid(void **state)
{
    (void)state;
    pcam_sense s;
    /* 71h deferred UNIT ATTENTION 29/00; INFORMATION bytes set but VALID clear. */
    const uint8_t b[18] = {0x71, 0, 0x06, 0xDE, 0xAD, 0xBE, 0xEF, 0x0A, 0, 0, 0, 0, 0x29, 0x00};
    assert_string_equal(line_of(b, sizeof b, &s),
                        "UNIT ATTENTION: Power on, reset, or bus device reset occurred (6/29/00), deferred");
    assert_true(s.deferred);
    assert_false(s.info_valid);
    assert_true(s.info == 0);
}

static void fixed_field_pointer(void **state)
{
    (void)state;
    pcam_sense s;
    /* Byte 15 = SKSV 80h | C/D 40h | BPV 08h | bit 5 = CDh; field pointer 0002h. */
    uint8_t b[18] = {0x70, 0, 0x05, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x24, 0x00, 0, 0xCD, 0x00, 0x02};
    assert_string_equal(line_of(b, sizeof b, &s),
                        "ILLEGAL REQUEST: Invalid field in cdb (5/24/00) field pointer byte 2 bit 5 in CDB");
    assert_true(s.sks_valid);
    assert_int_equal(s.sks.kind, PCAM_SKS_FIELD_POINTER);
    assert_true(s.sks.c_d);
    assert_true(s.sks.bpv);
    assert_int_equal(s.sks.bit_pointer, 5);
    assert_int_equal(s.sks.field_pointer, 2);
    assert_memory_equal(s.sks.raw, b + 15, 3);

    /* Parameter list error (26/00): C/D clear, BPV clear, byte 0104h = 260. */
    b[12] = 0x26;
    b[15] = 0x85; /* bit pointer bits set but BPV clear: must be ignored */
    b[16] = 0x01;
    b[17] = 0x04;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "ILLEGAL REQUEST: Invalid field in parameter list (5/26/00) field pointer byte 260 in parameter data");
    assert_false(s.sks.c_d);
    assert_false(s.sks.bpv);
    assert_int_equal(s.sks.bit_pointer, 0);

    /* SKSV clear: the three bytes mean nothing. */
    b[15] = 0x4D;
    assert_string_equal(line_of(b, sizeof b, &s), "ILLEGAL REQUEST: Invalid field in parameter list (5/26/00)");
    assert_false(s.sks_valid);
}

static void fixed_progress(void **state)
{
    (void)state;
    pcam_sense s;
    /* NOT READY 04/04 (format in progress), progress 8000h of 10000h = 50%. */
    uint8_t b[18] = {0x70, 0, 0x02, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x04, 0x04, 0, 0x80, 0x80, 0x00};
    assert_string_equal(line_of(b, sizeof b, &s),
                        "NOT READY: Logical unit not ready, format in progress (2/04/04) progress 50%");
    assert_int_equal(s.sks.kind, PCAM_SKS_PROGRESS);
    assert_int_equal(s.sks.progress, 0x8000);
    /* FFFFh * 100 / 65536 = 99.998 -> 99 (rounded down, never 100 early). */
    b[16] = 0xFF;
    b[17] = 0xFF;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "NOT READY: Logical unit not ready, format in progress (2/04/04) progress 99%");
    /* 028Fh = 655: 655 * 100 / 65536 = 0.999 -> 0. */
    b[16] = 0x02;
    b[17] = 0x8F;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "NOT READY: Logical unit not ready, format in progress (2/04/04) progress 0%");
    /* 028Fh + 1 = 656: 1.0009 -> 1. */
    b[17] = 0x90;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "NOT READY: Logical unit not ready, format in progress (2/04/04) progress 1%");
    /* NO SENSE also carries progress (e.g. sanitize via REQUEST SENSE). */
    b[2] = 0x00;
    b[12] = 0x00;
    b[13] = 0x00;
    b[16] = 0x40;
    b[17] = 0x00;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "NO SENSE: No additional sense information (0/00/00) progress 25%");
}

static void fixed_retry_count_and_csi_fru(void **state)
{
    (void)state;
    pcam_sense s;
    /* RECOVERED ERROR 17/01, CSI 0000002Ah, FRU 07h, retry count 0005h. */
    uint8_t b[18] = {0x70, 0, 0x01, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0x2A, 0x17, 0x01, 0x07, 0x80, 0x00, 0x05};
    assert_string_equal(line_of(b, sizeof b, &s),
                        "RECOVERED ERROR: Recovered data with retries (1/17/01) csi=0x2A fru=0x07 retries=5");
    assert_int_equal(s.sks.kind, PCAM_SKS_RETRY_COUNT);
    assert_int_equal(s.sks.retry_count, 5);
    assert_true(s.csi_valid);
    assert_true(s.csi == 0x2A);
    assert_true(s.fru_valid);
    assert_int_equal(s.fru, 7);
    /* MEDIUM and HARDWARE ERROR use the same interpretation. */
    b[2] = 0x04;
    b[12] = 0x44;
    b[13] = 0x00;
    b[16] = 0x01;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "HARDWARE ERROR: Internal target failure (4/44/00) csi=0x2A fru=0x07 retries=261");
}

static void fixed_segment_pointer_and_raw(void **state)
{
    (void)state;
    pcam_sense s;
    /* COPY ABORTED 0D/01: SKSV | SD 20h | BPV 08h | bit 3 = ABh, byte 0010h. */
    uint8_t b[18] = {0x70, 0, 0x0A, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x0D, 0x01, 0, 0xAB, 0x00, 0x10};
    assert_string_equal(line_of(b, sizeof b, &s),
                        "COPY ABORTED: Third party device failure (A/0D/01) segment pointer byte 16 bit 3 in segment descriptor");
    assert_int_equal(s.sks.kind, PCAM_SKS_SEGMENT_POINTER);
    assert_true(s.sks.sd);
    assert_true(s.sks.bpv);
    assert_int_equal(s.sks.bit_pointer, 3);
    assert_int_equal(s.sks.field_pointer, 16);
    b[15] = 0x80;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "COPY ABORTED: Third party device failure (A/0D/01) segment pointer byte 16 in parameter list");
    /* UNIT ATTENTION: the queue-overflow form is left raw. */
    b[2] = 0x06;
    b[12] = 0x29;
    b[13] = 0x00;
    b[15] = 0x80;
    b[16] = 0x00;
    b[17] = 0x01;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "UNIT ATTENTION: Power on, reset, or bus device reset occurred (6/29/00) sks=0x000001");
    assert_int_equal(s.sks.kind, PCAM_SKS_RAW);
    assert_int_equal(s.sks.raw[0], 0x80);
}

static void fixed_tape_flags(void **state)
{
    (void)state;
    pcam_sense s;
    /* Tape READ hits a filemark: NO SENSE, FILEMARK, 00/01, residue 1. */
    uint8_t b[18] = {0xF0, 0, 0x80, 0, 0, 0, 0x01, 0x0A, 0, 0, 0, 0, 0x00, 0x01};
    assert_string_equal(line_of(b, sizeof b, &s), "NO SENSE: Filemark detected (0/00/01) info=0x1 FILEMARK");
    assert_true(s.filemark);
    /* EOM and ILI (60h), key NO SENSE, 00/02 end of medium, SDAT_OVFL 10h. */
    b[2] = 0x70;
    b[13] = 0x02;
    assert_string_equal(line_of(b, sizeof b, &s),
                        "NO SENSE: End-of-partition/medium detected (0/00/02) info=0x1 EOM ILI SDAT_OVFL");
    assert_false(s.filemark);
    assert_true(s.eom && s.ili && s.sdat_ovfl);
}

/* Every prefix of a full fixed record: fields appear exactly when their
 * last byte is in. */
static void fixed_truncation_sweep(void **state)
{
    (void)state;
    const uint8_t b[18] = {0xF0, 0, 0xE5, 0x00, 0x00, 0x00, 0x09, 0x0A, 0, 0, 0, 0x01,
                           0x24, 0x00, 0x03, 0xCD, 0x00, 0x02};
    char line[256];
    for (size_t len = 0; len <= sizeof b; len++) {
        pcam_sense s;
        pcam_err rc = pcam_sense_decode(b, len, &s);
        if (len < 3) {
            assert_int_equal(rc, PCAM_ERR_TRUNCATED);
            assert_false(s.key_valid);
            assert_true(s.truncated);
        } else {
            assert_int_equal(rc, PCAM_OK);
            assert_true(s.key_valid);
            assert_int_equal(s.key, 5);
            assert_true(s.filemark && s.eom && s.ili);
            assert_int_equal(s.truncated, len < 18);
        }
        if (len >= 1) {
            assert_int_equal(s.response_code, 0x70);
            assert_int_equal(s.format, PCAM_SENSE_FIXED);
        }
        assert_int_equal(s.info_valid, len >= 7);
        assert_int_equal(s.csi_valid, len >= 12);
        assert_int_equal(s.asc_valid, len >= 14);
        assert_int_equal(s.fru_valid, len >= 15);
        assert_int_equal(s.sks_valid, len >= 18);
        assert_int_equal(s.additional_length, len >= 8 ? 10 : 0);
        assert_int_equal(s.used, len);
        int n = pcam_sense_format(&s, line, sizeof line);
        assert_true(n > 0);
        assert_int_equal((size_t)n, strlen(line));
    }
    pcam_sense s;
    assert_int_equal(pcam_sense_decode(b, 13, &s), PCAM_OK);
    assert_string_equal((pcam_sense_format(&s, line, sizeof line), line),
                        "ILLEGAL REQUEST (5) info=0x9 csi=0x1 FILEMARK EOM ILI (truncated)");
    assert_int_equal(pcam_sense_decode(b, 2, &s), PCAM_ERR_TRUNCATED);
    assert_string_equal((pcam_sense_format(&s, line, sizeof line), line),
                        "Sense data without a sense key (response code 0x70) (truncated)");
}

static void fixed_length_field_rules(void **state)
{
    (void)state;
    pcam_sense s;
    /* Additional length FFh but only 18 bytes arrived: decode what is there. */
    uint8_t b[18] = {0xF0, 0, 0x03, 0, 0, 0x12, 0x34, 0xFF, 0, 0, 0, 0, 0x11, 0x00, 0, 0, 0, 0};
    assert_string_equal(line_of(b, sizeof b, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x1234 (truncated)");
    assert_true(s.truncated);
    assert_int_equal(s.additional_length, 0xFF);
    assert_int_equal(s.used, 18);

    /* Additional length 6 (through ASCQ): bytes beyond are not sense data,
     * even though the buffer has them and SKSV looks set. */
    b[7] = 6;
    b[14] = 0x55;
    b[15] = 0xCD;
    assert_string_equal(line_of(b, sizeof b, &s), "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x1234");
    assert_false(s.truncated);
    assert_false(s.fru_valid);
    assert_false(s.sks_valid);
    assert_int_equal(s.used, 14);

    /* Additional length 0: the old 8-byte form; key only. */
    b[7] = 0;
    assert_string_equal(line_of(b, sizeof b, &s), "MEDIUM ERROR (3) info=0x1234");
    assert_false(s.asc_valid);
    assert_int_equal(s.used, 8);
}

/* Header + information (12) + command-specific (12) + sense-key specific
 * (8) + stream commands (4) = 44 bytes; additional length 36 = 24h. */
static const uint8_t desc_full[44] = {
    0x73, 0x03, 0x11, 0x00, 0x00, 0x00, 0x00, 0x24,
    0x00, 0x0A, 0x80, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A,
    0x01, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A,
    0x02, 0x06, 0x00, 0x00, 0x80, 0x00, 0x03, 0x00,
    0x04, 0x02, 0x00, 0xE0,
};

static void descriptor_full(void **state)
{
    (void)state;
    pcam_sense s;
    assert_string_equal(line_of(desc_full, sizeof desc_full, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00), deferred info=0x123456789A "
                        "csi=0x2A retries=3 FILEMARK EOM ILI");
    assert_int_equal(s.format, PCAM_SENSE_DESCRIPTOR);
    assert_int_equal(s.response_code, 0x73);
    assert_true(s.deferred);
    assert_true(s.info == 0x123456789Aull);
    assert_true(s.csi == 0x2A);
    assert_int_equal(s.sks.kind, PCAM_SKS_RETRY_COUNT);
    assert_int_equal(s.sks.retry_count, 3);
    assert_false(s.truncated);
    assert_int_equal(s.used, 44);
}

/* NO SENSE 00/00 with a progress indication descriptor (SPC-5: type 0Ah,
 * additional length 06h, then SENSE KEY, ASC, ASCQ, reserved, PROGRESS
 * INDICATION): a FORMAT UNIT in progress, NOT READY 04/04 "Logical unit not
 * ready, format in progress", 4000h of 10000h done = 25%. Header 8 + 8 =
 * 16 bytes, additional length 8. A second 0Ah descriptor (50%) is ignored:
 * the first of a type counts. */
static const uint8_t desc_progress[24] = {
    0x72, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
    0x0A, 0x06, 0x02, 0x04, 0x04, 0x00, 0x40, 0x00,
    0x0A, 0x06, 0x02, 0x04, 0x04, 0x00, 0x80, 0x00,
};

static void descriptor_progress(void **state)
{
    (void)state;
    pcam_sense s;
    assert_string_equal(line_of(desc_progress, sizeof desc_progress, &s),
                        "NO SENSE: No additional sense information (0/00/00) progress 25% of "
                        "NOT READY: Logical unit not ready, format in progress (2/04/04)");
    assert_true(s.progress_valid);
    assert_int_equal(s.progress_key, 2);
    assert_int_equal(s.progress_asc, 0x04);
    assert_int_equal(s.progress_ascq, 0x04);
    assert_int_equal(s.progress, 0x4000);
    /* Cut inside the first descriptor: nothing of it is reported. */
    assert_int_equal(pcam_sense_decode(desc_progress, 15, &s), PCAM_OK);
    assert_false(s.progress_valid);
    assert_true(s.truncated);
    /* A descriptor too short for its type (length 4) is ignored. */
    uint8_t shortd[14] = {0x72, 0x02, 0x04, 0x04, 0, 0, 0, 0x06, 0x0A, 0x04, 0x02, 0x04, 0x04, 0x00};
    assert_int_equal(pcam_sense_decode(shortd, sizeof shortd, &s), PCAM_OK);
    assert_false(s.progress_valid);
}

static void descriptor_truncation_sweep(void **state)
{
    (void)state;
    char line[256];
    for (size_t len = 0; len <= sizeof desc_full; len++) {
        pcam_sense s;
        pcam_err rc = pcam_sense_decode(desc_full, len, &s);
        assert_int_equal(rc, len < 2 ? PCAM_ERR_TRUNCATED : PCAM_OK);
        assert_int_equal(s.key_valid, len >= 2);
        assert_int_equal(s.asc_valid, len >= 4);
        /* Descriptor ends: info at 20, csi at 32, sks at 40, stream at 44. */
        assert_int_equal(s.info_valid, len >= 20);
        assert_int_equal(s.csi_valid, len >= 32);
        assert_int_equal(s.sks_valid, len >= 40);
        assert_int_equal(s.filemark, len >= 44);
        assert_int_equal(s.truncated, len < 44);
        assert_int_equal(s.used, len);
        int n = pcam_sense_format(&s, line, sizeof line);
        assert_true(n > 0);
        assert_int_equal((size_t)n, strlen(line));
    }
}

static void descriptor_chain_faults(void **state)
{
    (void)state;
    pcam_sense s;

    /* Information descriptor claims 20h bytes, only 10 follow. */
    const uint8_t overrun[20] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0x0C,
                                 0x00, 0x20, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};
    assert_string_equal(line_of(overrun, sizeof overrun, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00) (truncated)");
    assert_false(s.info_valid);
    assert_true(s.truncated);

    /* Unknown type 80h (4 bytes) is skipped; a too-short information
     * descriptor (length 2) is ignored; the next block-commands one counts. */
    const uint8_t chain[22] = {0x72, 0x05, 0x21, 0x00, 0, 0, 0, 0x0E,
                               0x80, 0x02, 0xAA, 0xBB,
                               0x00, 0x02, 0x80, 0x00,
                               0x05, 0x02, 0x00, 0x20,
                               0x0A, 0x00};
    assert_string_equal(line_of(chain, sizeof chain, &s),
                        "ILLEGAL REQUEST: Logical block address out of range (5/21/00) ILI");
    assert_false(s.info_valid);
    assert_false(s.truncated);

    /* One stray byte after a whole descriptor. */
    const uint8_t stray[21] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0x0D,
                               0x00, 0x0A, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x07, 0x99};
    assert_string_equal(line_of(stray, sizeof stray, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x7 (truncated)");

    /* Two information descriptors: the first counts. VALID clear in the
     * first means no information even though the second has it. */
    const uint8_t twice[32] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0x18,
                               0x00, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x01,
                               0x00, 0x0A, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x02};
    assert_string_equal(line_of(twice, sizeof twice, &s), "MEDIUM ERROR: Unrecovered read error (3/11/00)");
    assert_false(s.info_valid);

    /* Zero-length descriptors must not stall the walk. */
    uint8_t zeros[8 + 200];
    memset(zeros, 0, sizeof zeros);
    zeros[0] = 0x72;
    zeros[1] = 0x0B;
    zeros[7] = 200;
    for (size_t i = 8; i < sizeof zeros; i += 2)
        zeros[i] = 0x0A;
    assert_string_equal(line_of(zeros, sizeof zeros, &s),
                        "ABORTED COMMAND: No additional sense information (B/00/00)");

    /* Additional length FFh with only the header and one descriptor. */
    const uint8_t big[20] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0xFF,
                             0x00, 0x0A, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};
    assert_string_equal(line_of(big, sizeof big, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x1234 (truncated)");
    assert_int_equal(s.additional_length, 0xFF);

    /* Additional length shorter than the descriptor that is there. */
    const uint8_t shortlen[20] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0x04,
                                  0x00, 0x0A, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};
    assert_string_equal(line_of(shortlen, sizeof shortlen, &s),
                        "MEDIUM ERROR: Unrecovered read error (3/11/00) (truncated)");
    assert_int_equal(s.used, 12);

    /* Sense-key specific descriptor with progress (NOT READY 04/04, 4000h
     * = 25%), SDAT_OVFL in byte 4, and a FRU descriptor. */
    const uint8_t prog[20] = {0x72, 0x02, 0x04, 0x04, 0x80, 0, 0, 0x0C,
                              0x02, 0x06, 0x00, 0x00, 0x80, 0x40, 0x00, 0x00,
                              0x03, 0x02, 0x00, 0x11};
    assert_string_equal(line_of(prog, sizeof prog, &s),
                        "NOT READY: Logical unit not ready, format in progress (2/04/04) fru=0x11 progress 25% SDAT_OVFL");
}

static void response_codes(void **state)
{
    (void)state;
    pcam_sense s;
    char line[128];
    uint8_t b[18];
    memcpy(b, medium_fixed, sizeof b);
    static const uint8_t bad[] = {0x00, 0x6F, 0x74, 0x7E, 0xFE, 0x01};
    for (size_t i = 0; i < sizeof bad; i++) {
        b[0] = bad[i];
        assert_int_equal(pcam_sense_decode(b, sizeof b, &s), PCAM_ERR_FORMAT);
        assert_int_equal(s.response_code, bad[i] & 0x7F);
        assert_false(s.key_valid);
    }
    /* 7Fh: vendor format, accepted but nothing past byte 0 is decoded. */
    b[0] = 0x7F;
    assert_int_equal(pcam_sense_decode(b, sizeof b, &s), PCAM_OK);
    assert_int_equal(s.format, PCAM_SENSE_VENDOR);
    assert_false(s.key_valid);
    assert_false(s.asc_valid);
    assert_int_equal(pcam_sense_format(&s, line, sizeof line), 47);
    assert_string_equal(line, "VENDOR SPECIFIC sense data (response code 0x7F)");
    assert_int_equal(pcam_sense_decode(b, 1, &s), PCAM_OK);
    /* Bit 7 of byte 0 is reserved in descriptor format: ignored. */
    const uint8_t d[8] = {0xF2, 0x06, 0x28, 0x00, 0, 0, 0, 0};
    assert_string_equal(line_of(d, sizeof d, &s),
                        "UNIT ATTENTION: Not ready to ready change, medium may have changed (6/28/00)");
    /* Bad arguments. */
    assert_int_equal(pcam_sense_decode(b, sizeof b, NULL), PCAM_ERR_NULL);
    assert_int_equal(pcam_sense_decode(NULL, 4, &s), PCAM_ERR_NULL);
    assert_int_equal(pcam_sense_decode(NULL, 0, &s), PCAM_ERR_TRUNCATED);
    assert_int_equal(pcam_sense_format(NULL, line, sizeof line), PCAM_ERR_NULL);
    assert_int_equal(pcam_sense_format(&s, NULL, 10), PCAM_ERR_NULL);
}

static void format_cuts_cleanly(void **state)
{
    (void)state;
    pcam_sense s;
    char full[256], cut[256];
    assert_int_equal(pcam_sense_decode(desc_full, sizeof desc_full, &s), PCAM_OK);
    int n = pcam_sense_format(&s, full, sizeof full);
    assert_true(n > 0);
    assert_int_equal(pcam_sense_format(&s, cut, 0), PCAM_ERR_NOSPACE);
    for (size_t cap = 1; cap <= (size_t)n; cap++) {
        memset(cut, 'x', sizeof cut);
        assert_int_equal(pcam_sense_format(&s, cut, cap), PCAM_ERR_NOSPACE);
        assert_int_equal(strlen(cut), cap - 1);
        assert_memory_equal(cut, full, cap - 1);
        assert_int_equal(cut[cap], 'x');
    }
    assert_int_equal(pcam_sense_format(&s, cut, (size_t)n + 1), n);
    assert_string_equal(cut, full);
}

static void build_fixed(void **state)
{
    (void)state;
    uint8_t b[32];
    memset(b, 0xEE, sizeof b);
    assert_int_equal(pcam_sense_build_fixed(b, sizeof b, 0x3, 0x11, 0x00, true, 0x1234), 18);
    assert_memory_equal(b, medium_fixed, 18);
    assert_int_equal(b[18], 0xEE);

    const uint8_t no_info[18] = {0x70, 0, 0x06, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x29, 0x02, 0, 0, 0, 0};
    assert_int_equal(pcam_sense_build_fixed(b, 18, 0x6, 0x29, 0x02, false, 0xFFFFFFFFu), 18);
    assert_memory_equal(b, no_info, 18);

    assert_int_equal(pcam_sense_build_fixed(b, 17, 0x3, 0x11, 0, true, 1), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_sense_build_fixed(b, 18, 0x10, 0x11, 0, true, 1), PCAM_ERR_RANGE);
    assert_int_equal(pcam_sense_build_fixed(NULL, 18, 0x3, 0x11, 0, true, 1), PCAM_ERR_NULL);
}

static void build_descriptor(void **state)
{
    (void)state;
    uint8_t b[32];
    pcam_sense s;
    /* 72h, key 3, 11/00, additional length 0Ch, then 00h 0Ah 80h 00h + 8-byte info. */
    const uint8_t want[20] = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0x0C,
                              0x00, 0x0A, 0x80, 0x00, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9A};
    memset(b, 0xEE, sizeof b);
    assert_int_equal(pcam_sense_build_descriptor(b, sizeof b, 0x3, 0x11, 0x00, true, 0x123456789Aull), 20);
    assert_memory_equal(b, want, 20);
    assert_int_equal(b[20], 0xEE);
    assert_string_equal(line_of(b, 20, &s), "MEDIUM ERROR: Unrecovered read error (3/11/00) info=0x123456789A");

    const uint8_t bare[8] = {0x72, 0x05, 0x20, 0x00, 0, 0, 0, 0x00};
    assert_int_equal(pcam_sense_build_descriptor(b, 8, 0x5, 0x20, 0x00, false, 99), 8);
    assert_memory_equal(b, bare, 8);
    assert_string_equal(line_of(b, 8, &s), "ILLEGAL REQUEST: Invalid command operation code (5/20/00)");

    assert_int_equal(pcam_sense_build_descriptor(b, 19, 0x3, 0x11, 0, true, 1), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_sense_build_descriptor(b, 7, 0x3, 0x11, 0, false, 1), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_sense_build_descriptor(b, 20, 0x10, 0x11, 0, true, 1), PCAM_ERR_RANGE);
    assert_int_equal(pcam_sense_build_descriptor(NULL, 20, 0x3, 0x11, 0, true, 1), PCAM_ERR_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_names),
        cmocka_unit_test(well_known_entries),
        cmocka_unit_test(ranged_and_fallback_formatting),
        cmocka_unit_test(fixed_medium_error),
        cmocka_unit_test(fixed_deferred_and_info_not_valid),
        cmocka_unit_test(fixed_field_pointer),
        cmocka_unit_test(fixed_progress),
        cmocka_unit_test(fixed_retry_count_and_csi_fru),
        cmocka_unit_test(fixed_segment_pointer_and_raw),
        cmocka_unit_test(fixed_tape_flags),
        cmocka_unit_test(fixed_truncation_sweep),
        cmocka_unit_test(fixed_length_field_rules),
        cmocka_unit_test(descriptor_full),
        cmocka_unit_test(descriptor_progress),
        cmocka_unit_test(descriptor_truncation_sweep),
        cmocka_unit_test(descriptor_chain_faults),
        cmocka_unit_test(response_codes),
        cmocka_unit_test(format_cuts_cleanly),
        cmocka_unit_test(build_fixed),
        cmocka_unit_test(build_descriptor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
