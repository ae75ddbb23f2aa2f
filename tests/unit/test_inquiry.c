/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * INQUIRY, REPORT LUNS and READ CAPACITY parsers. Vectors are built by hand
 * from the SPC-3/SPC-4 standard INQUIRY data table, the SAM-5 LUN formats
 * and the SBC-3 READ CAPACITY parameter data tables; the QEMU-like vector
 * follows what QEMU's scsi-disk returns (vendor "QEMU", product
 * "QEMU HARDDISK", revision "2.5+", version 5, HiSup, format 2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_err.h"

/* 36 bytes: type 0 disk, SPC-3, HiSup, format 2, additional length 31,
 * byte 7 = SYNC (0x10) | CMDQUE (0x02). */
static const uint8_t qemu36[36] = {
    0x00, 0x00, 0x05, 0x12, 0x1F, 0x00, 0x00, 0x12,
    'Q', 'E', 'M', 'U', ' ', ' ', ' ', ' ',
    'Q', 'E', 'M', 'U', ' ', 'H', 'A', 'R', 'D', 'D', 'I', 'S', 'K', ' ', ' ', ' ',
    '2', '.', '5', '+',
};

/* 96 bytes of an Ultra320 wide disk: SPC (version 3), format 2, additional
 * length 91, byte 6 ADDR16, byte 7 WBUS16|SYNC|CMDQUE = 0x32, byte 56
 * CLOCKING=11b QAS IUS = 0x0F, version descriptors 0x0040 0x0300 0x0320
 * then zeros. Filled in by make_u320(). */
static uint8_t u320[96];

static void make_u320(void)
{
    static const char id[] = "SEAGATE ST336607LW      0007";
    memset(u320, 0, sizeof u320);
    u320[2] = 0x03;
    u320[3] = 0x02;
    u320[4] = 91;
    u320[6] = 0x01;
    u320[7] = 0x32;
    memcpy(u320 + 8, id, 28);
    u320[56] = 0x0F;
    u320[58] = 0x00;
    u320[59] = 0x40;
    u320[60] = 0x03;
    u320[61] = 0x00;
    u320[62] = 0x03;
    u320[63] = 0x20;
}

static void inquiry_qemu_36(void **state)
{
    (void)state;
    pcam_inquiry q;
    assert_int_equal(pcam_inquiry_parse(qemu36, sizeof qemu36, &q), PCAM_OK);
    assert_int_equal(q.bytes_valid, 36);
    assert_int_equal(q.qualifier, 0);
    assert_int_equal(q.device_type, PCAM_TYPE_DISK);
    assert_false(q.rmb);
    assert_int_equal(q.version, 5);
    assert_true(q.hisup);
    assert_false(q.normaca);
    assert_int_equal(q.response_format, 2);
    assert_int_equal(q.additional_length, 31);
    assert_true(q.have_flags);
    assert_true(q.sync);
    assert_true(q.cmdque);
    assert_false(q.wbus16);
    assert_false(q.linked);
    assert_false(q.addr16);
    assert_string_equal(q.vendor, "QEMU");
    assert_string_equal(q.product, "QEMU HARDDISK");
    assert_string_equal(q.revision, "2.5+");
    assert_true(q.have_revision);
    assert_false(q.have_spi);
    assert_int_equal(q.version_desc_count, 0);

    /* Additional length governs: junk after byte 35 of a longer transfer
     * is not SPI data. */
    uint8_t big[96];
    memset(big, 0xFF, sizeof big);
    memcpy(big, qemu36, sizeof qemu36);
    assert_int_equal(pcam_inquiry_parse(big, sizeof big, &q), PCAM_OK);
    assert_int_equal(q.bytes_valid, 36);
    assert_false(q.have_spi);
    assert_false(q.qas);
}

static void inquiry_u320_96(void **state)
{
    (void)state;
    pcam_inquiry q;
    make_u320();
    assert_int_equal(pcam_inquiry_parse(u320, sizeof u320, &q), PCAM_OK);
    assert_int_equal(q.bytes_valid, 96);
    assert_int_equal(q.version, 3);
    assert_false(q.hisup);
    assert_true(q.addr16);
    assert_true(q.wbus16);
    assert_true(q.sync);
    assert_true(q.cmdque);
    assert_false(q.trandis);
    assert_string_equal(q.vendor, "SEAGATE");
    assert_string_equal(q.product, "ST336607LW");
    assert_string_equal(q.revision, "0007");
    assert_true(q.have_spi);
    assert_int_equal(q.clocking, PCAM_INQ_CLOCKING_ST_DT);
    assert_true(q.qas);
    assert_true(q.ius);
    assert_int_equal(q.version_desc_count, 8);
    assert_int_equal(q.version_desc[0], 0x0040);
    assert_int_equal(q.version_desc[1], 0x0300);
    assert_int_equal(q.version_desc[2], 0x0320);
    assert_int_equal(q.version_desc[3], 0);

    /* Every flag bit of bytes 1, 3, 5-7 lands in its own field. */
    uint8_t f[36];
    memcpy(f, qemu36, sizeof f);
    f[1] = 0xC0;
    f[3] = 0x32;
    f[5] = 0xF9; /* SCCS ACC TPGS=11b 3PC PROTECT */
    f[6] = 0x59; /* ENCSERV MULTIP MCHNGR ADDR16 */
    f[7] = 0x3E; /* WBUS16 SYNC LINKED TRANDIS CMDQUE */
    assert_int_equal(pcam_inquiry_parse(f, sizeof f, &q), PCAM_OK);
    assert_true(q.rmb && q.lu_cong && q.normaca && q.hisup);
    assert_true(q.sccs && q.acc && q.threepc && q.protect);
    assert_int_equal(q.tpgs, 3);
    assert_true(q.encserv && q.multip && q.mchngr && q.addr16);
    assert_true(q.wbus16 && q.sync && q.linked && q.trandis && q.cmdque);
}

static void inquiry_truncated_at_every_length(void **state)
{
    (void)state;
    size_t len;
    make_u320();
    for (len = 0; len <= sizeof u320; len++) {
        pcam_inquiry q;
        /* An exact-size copy, so a read past len shows up under ASan and
         * Valgrind. */
        uint8_t *b = test_malloc(len ? len : 1);
        memcpy(b, u320, len);
        pcam_err rc = pcam_inquiry_parse(b, len, &q);
        assert_int_equal(rc, len < 5 ? PCAM_ERR_TRUNCATED : PCAM_OK);
        assert_int_equal(q.bytes_valid, len);
        assert_int_equal(q.have_flags, len >= 8);
        assert_int_equal(q.have_vendor, len >= 16);
        assert_int_equal(q.have_product, len >= 32);
        assert_int_equal(q.have_revision, len >= 36);
        assert_int_equal(q.have_spi, len >= 57);
        assert_int_equal(q.version_desc_count, len < 60 ? 0 : (len - 58) / 2 > 8 ? 8 : (len - 58) / 2);
        assert_int_equal(q.version, len >= 3 ? 3 : 0);
        assert_int_equal(q.response_format, len >= 4 ? 2 : 0);
        assert_string_equal(q.vendor, len >= 16 ? "SEAGATE" : "");
        assert_string_equal(q.product, len >= 32 ? "ST336607LW" : "");
        assert_int_equal(q.wbus16, len >= 8);
        assert_int_equal(q.ius, len >= 57);
        test_free(b);
    }
    pcam_inquiry q;
    assert_int_equal(pcam_inquiry_parse(NULL, 0, &q), PCAM_ERR_TRUNCATED);
    assert_int_equal(pcam_inquiry_parse(NULL, 5, &q), PCAM_ERR_NULL);
    assert_int_equal(pcam_inquiry_parse(qemu36, 36, NULL), PCAM_ERR_NULL);

    /* Additional length smaller than the strings: they are absent. */
    uint8_t shortlen[36];
    memcpy(shortlen, qemu36, sizeof shortlen);
    shortlen[4] = 11; /* 16 bytes valid: vendor only */
    assert_int_equal(pcam_inquiry_parse(shortlen, sizeof shortlen, &q), PCAM_OK);
    assert_int_equal(q.bytes_valid, 16);
    assert_true(q.have_vendor);
    assert_false(q.have_product);
    assert_string_equal(q.product, "");
}

static void inquiry_no_lun_and_strings(void **state)
{
    (void)state;
    pcam_inquiry q;
    uint8_t b[36];
    memcpy(b, qemu36, sizeof b);

    /* Qualifier 011b, type 1Fh: nothing can be at this LUN. */
    b[0] = 0x7F;
    assert_int_equal(pcam_inquiry_parse(b, sizeof b, &q), PCAM_OK);
    assert_int_equal(q.qualifier, PCAM_INQ_QUAL_NO_LUN);
    assert_int_equal(q.device_type, PCAM_TYPE_NONE);
    assert_string_equal(pcam_device_type_name(q.device_type), "Unknown or no device type");
    /* Qualifier 001b: supported but not connected; removable CD. */
    b[0] = 0x25;
    b[1] = 0x80;
    assert_int_equal(pcam_inquiry_parse(b, sizeof b, &q), PCAM_OK);
    assert_int_equal(q.qualifier, PCAM_INQ_QUAL_NOT_CONNECTED);
    assert_int_equal(q.device_type, PCAM_TYPE_CDROM);
    assert_true(q.rmb);

    /* Control bytes and 8-bit bytes become '?', padding NULs and spaces go. */
    memcpy(b + 8, "AB\x01" "C\xC3 \0\0", 8);
    memcpy(b + 16, "  lead space\0\0\0\0", 16);
    memcpy(b + 32, "    ", 4);
    assert_int_equal(pcam_inquiry_parse(b, sizeof b, &q), PCAM_OK);
    assert_string_equal(q.vendor, "AB?C?");
    assert_string_equal(q.product, "  lead space");
    assert_string_equal(q.revision, "");
    memcpy(b + 16, "X\0Y             ", 16);
    assert_int_equal(pcam_inquiry_parse(b, sizeof b, &q), PCAM_OK);
    assert_string_equal(q.product, "X?Y");
}

static void device_type_names(void **state)
{
    (void)state;
    assert_string_equal(pcam_device_type_name(0x00), "Direct-access block device");
    assert_string_equal(pcam_device_type_name(0x01), "Sequential-access device");
    assert_string_equal(pcam_device_type_name(0x05), "CD/DVD device");
    assert_string_equal(pcam_device_type_name(0x08), "Medium changer device");
    assert_string_equal(pcam_device_type_name(0x0D), "Enclosure services device");
    assert_string_equal(pcam_device_type_name(0x14), "Host managed zoned block device");
    assert_string_equal(pcam_device_type_name(0x15), "Reserved device type");
    assert_string_equal(pcam_device_type_name(0x1E), "Well known logical unit");
    assert_string_equal(pcam_device_type_name(0x1F), "Unknown or no device type");
    /* Only bits 4-0 are the type. */
    assert_string_equal(pcam_device_type_name(0x60), "Direct-access block device");
}

/* Header with the given list length, then the entries. */
static size_t make_luns(uint8_t *out, uint32_t list_len, const uint8_t (*e)[8], size_t n)
{
    size_t i;
    memset(out, 0, 8);
    out[0] = (uint8_t)(list_len >> 24);
    out[1] = (uint8_t)(list_len >> 16);
    out[2] = (uint8_t)(list_len >> 8);
    out[3] = (uint8_t)list_len;
    for (i = 0; i < n; i++)
        memcpy(out + 8 + 8 * i, e[i], 8);
    return 8 + 8 * n;
}

static void report_luns_peripheral_and_flat(void **state)
{
    (void)state;
    static const uint8_t e[5][8] = {
        {0x00, 0x00}, /* peripheral, bus 0, LUN 0 */
        {0x00, 0x01}, /* LUN 1 */
        {0x00, 0xFF}, /* LUN 255 */
        {0x41, 0x00}, /* flat, LUN 256 */
        {0x7F, 0xFF}, /* flat, LUN 16383 */
    };
    static const uint32_t luns[5] = {0, 1, 255, 256, 16383};
    uint8_t buf[8 + 40];
    uint32_t list, count, i;
    size_t len = make_luns(buf, 40, e, 5);

    assert_int_equal(pcam_report_luns_header(buf, len, &list, &count), PCAM_OK);
    assert_int_equal(list, 40);
    assert_int_equal(count, 5);
    for (i = 0; i < 5; i++) {
        pcam_lun_addr a;
        uint8_t enc[8];
        assert_int_equal(pcam_report_luns_get(buf, len, i, &a), PCAM_OK);
        assert_int_equal(a.method, i < 3 ? PCAM_LUN_PERIPHERAL : PCAM_LUN_FLAT);
        assert_int_equal(a.form, i < 3 ? PCAM_LUNF_PERIPHERAL : PCAM_LUNF_FLAT);
        assert_true(a.has_lun);
        assert_int_equal(a.lun, luns[i]);
        assert_int_equal(a.level_bytes, 2);
        assert_false(a.has_next_level);
        assert_memory_equal(a.raw, e[i], 8);
        /* The encoder picks the same forms SAM-4 recommends. */
        assert_int_equal(pcam_lun_encode(luns[i], enc), PCAM_OK);
        assert_memory_equal(enc, e[i], 8);
    }
    pcam_lun_addr a;
    assert_int_equal(pcam_report_luns_get(buf, len, 5, &a), PCAM_ERR_RANGE);
    uint8_t enc[8];
    assert_int_equal(pcam_lun_encode(16384, enc), PCAM_ERR_RANGE);
    assert_int_equal(pcam_lun_encode(0, NULL), PCAM_ERR_NULL);
}

static void report_luns_other_methods(void **state)
{
    (void)state;
    static const uint8_t e[8][8] = {
        /* Peripheral, bus 2, target 5, then LUN 3 at the second level. */
        {0x02, 0x05, 0x00, 0x03},
        /* Logical unit addressing: 10b target 5; bus 2 (010b), LUN 3. */
        {0x85, 0x43},
        /* Extended 00b/1h: well known LUN 01h (REPORT LUNS W-LUN). */
        {0xC1, 0x01},
        /* Extended 01b/2h: 24-bit flat LUN 123456h. */
        {0xD2, 0x12, 0x34, 0x56},
        /* Extended 10b/2h: 40-bit LUN 0102030405h. */
        {0xE2, 0x01, 0x02, 0x03, 0x04, 0x05},
        /* Extended 11b/Fh: logical unit not specified. */
        {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
        /* Extended 00b/5h: undefined, kept raw. */
        {0xC5, 0xAA, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01},
        /* Extended flat with a second level after its 4 bytes. */
        {0xD2, 0x00, 0x00, 0x07, 0x00, 0x01},
    };
    uint8_t buf[8 + 64];
    uint32_t list, count;
    size_t len = make_luns(buf, 64, e, 8);
    pcam_lun_addr a;

    assert_int_equal(pcam_report_luns_header(buf, len, &list, &count), PCAM_OK);
    assert_int_equal(count, 8);

    assert_int_equal(pcam_report_luns_get(buf, len, 0, &a), PCAM_OK);
    assert_int_equal(a.form, PCAM_LUNF_PERIPHERAL);
    assert_int_equal(a.bus, 2);
    assert_int_equal(a.target, 5);
    assert_false(a.has_lun);
    assert_true(a.has_next_level);

    assert_int_equal(pcam_report_luns_get(buf, len, 1, &a), PCAM_OK);
    assert_int_equal(a.method, PCAM_LUN_LOGICAL_UNIT);
    assert_int_equal(a.target, 5);
    assert_int_equal(a.bus, 2);
    assert_true(a.has_lun);
    assert_int_equal(a.lun, 3);
    assert_false(a.has_next_level);

    assert_int_equal(pcam_report_luns_get(buf, len, 2, &a), PCAM_OK);
    assert_int_equal(a.method, PCAM_LUN_EXTENDED);
    assert_int_equal(a.form, PCAM_LUNF_WELL_KNOWN);
    assert_int_equal(a.ext_length, 0);
    assert_int_equal(a.ext_method, 1);
    assert_int_equal(a.ext_value, 0x01);
    assert_false(a.has_lun);
    assert_int_equal(a.level_bytes, 2);

    assert_int_equal(pcam_report_luns_get(buf, len, 3, &a), PCAM_OK);
    assert_int_equal(a.form, PCAM_LUNF_EXTENDED_FLAT);
    assert_int_equal(a.level_bytes, 4);
    assert_true(a.has_lun);
    assert_int_equal(a.lun, 0x123456);
    assert_false(a.has_next_level);

    assert_int_equal(pcam_report_luns_get(buf, len, 4, &a), PCAM_OK);
    assert_int_equal(a.form, PCAM_LUNF_LONG_EXTENDED_FLAT);
    assert_int_equal(a.level_bytes, 6);
    assert_true(a.ext_value == 0x0102030405ull);
    assert_false(a.has_lun);

    assert_int_equal(pcam_report_luns_get(buf, len, 5, &a), PCAM_OK);
    assert_int_equal(a.form, PCAM_LUNF_NOT_SPECIFIED);
    assert_int_equal(a.level_bytes, 8);
    assert_false(a.has_next_level);

    assert_int_equal(pcam_report_luns_get(buf, len, 6, &a), PCAM_OK);
    assert_int_equal(a.form, PCAM_LUNF_EXTENDED_RESERVED);
    assert_int_equal(a.ext_method, 5);
    assert_memory_equal(a.raw, e[6], 8);
    assert_true(a.has_next_level);

    assert_int_equal(pcam_report_luns_get(buf, len, 7, &a), PCAM_OK);
    assert_int_equal(a.lun, 7);
    assert_true(a.has_next_level);
}

static void report_luns_lying_headers(void **state)
{
    (void)state;
    static const uint8_t e[3][8] = {{0, 0}, {0, 1}, {0, 2}};
    uint8_t buf[8 + 24];
    uint32_t list = 9, count = 9;
    pcam_lun_addr a;

    /* Not a multiple of 8: only whole claimed entries count. */
    size_t len = make_luns(buf, 20, e, 3);
    assert_int_equal(pcam_report_luns_header(buf, len, &list, &count), PCAM_ERR_LENGTH);
    assert_int_equal(list, 20);
    assert_int_equal(count, 2);
    assert_int_equal(pcam_report_luns_get(buf, len, 1, &a), PCAM_OK);
    assert_int_equal(a.lun, 1);
    assert_int_equal(pcam_report_luns_get(buf, len, 2, &a), PCAM_ERR_RANGE);

    /* Longer than the transfer (allocation length too small). */
    len = make_luns(buf, 256, e, 2);
    assert_int_equal(pcam_report_luns_header(buf, len, &list, &count), PCAM_ERR_TRUNCATED);
    assert_int_equal(list, 256);
    assert_int_equal(count, 2);
    assert_int_equal(pcam_report_luns_get(buf, len, 1, &a), PCAM_OK);
    assert_int_equal(pcam_report_luns_get(buf, len, 2, &a), PCAM_ERR_TRUNCATED);
    assert_int_equal(pcam_report_luns_get(buf, len, 32, &a), PCAM_ERR_RANGE);

    /* A partial last entry is not counted. */
    make_luns(buf, 24, e, 3);
    assert_int_equal(pcam_report_luns_header(buf, 8 + 20, &list, &count), PCAM_ERR_TRUNCATED);
    assert_int_equal(count, 2);
    assert_int_equal(pcam_report_luns_get(buf, 8 + 20, 2, &a), PCAM_ERR_TRUNCATED);

    /* An absurd claim cannot push reads past the buffer. */
    make_luns(buf, 0xFFFFFFF8u, e, 3);
    assert_int_equal(pcam_report_luns_header(buf, sizeof buf, &list, &count), PCAM_ERR_TRUNCATED);
    assert_int_equal(count, 3);
    assert_int_equal(pcam_report_luns_get(buf, sizeof buf, 0x1FFFFFFEu, &a), PCAM_ERR_TRUNCATED);
    assert_int_equal(pcam_report_luns_get(buf, sizeof buf, 0x1FFFFFFFu, &a), PCAM_ERR_RANGE);
    assert_int_equal(pcam_report_luns_get(buf, sizeof buf, UINT32_MAX, &a), PCAM_ERR_RANGE);

    /* Empty list; header cut short. */
    make_luns(buf, 0, e, 0);
    assert_int_equal(pcam_report_luns_header(buf, 8, &list, &count), PCAM_OK);
    assert_int_equal(count, 0);
    assert_int_equal(pcam_report_luns_get(buf, 8, 0, &a), PCAM_ERR_RANGE);
    assert_int_equal(pcam_report_luns_header(buf, 7, &list, &count), PCAM_ERR_TRUNCATED);
    assert_int_equal(list, 0);
    assert_int_equal(count, 0);
    assert_int_equal(pcam_report_luns_get(buf, 7, 0, &a), PCAM_ERR_TRUNCATED);
    assert_int_equal(pcam_report_luns_header(NULL, 0, &list, &count), PCAM_ERR_TRUNCATED);
    assert_int_equal(pcam_report_luns_header(buf, 8, NULL, &count), PCAM_ERR_NULL);
    assert_int_equal(pcam_report_luns_get(buf, 8, 0, NULL), PCAM_ERR_NULL);
    assert_int_equal(pcam_lun_decode(NULL, &a), PCAM_ERR_NULL);
}

static void read_capacity10(void **state)
{
    (void)state;
    /* 4 GiB in 512-byte blocks: last LBA 007FFFFFh, length 200h. */
    static const uint8_t d[8] = {0x00, 0x7F, 0xFF, 0xFF, 0x00, 0x00, 0x02, 0x00};
    pcam_capacity c;
    size_t len;

    assert_int_equal(pcam_read_capacity10_parse(d, 8, &c), PCAM_OK);
    assert_int_equal(c.last_lba, 0x7FFFFF);
    assert_int_equal(c.block_length, 512);
    assert_false(c.use_rc16);
    assert_false(c.zero_block_length);
    assert_false(c.have_protection);
    for (len = 0; len < 8; len++)
        assert_int_equal(pcam_read_capacity10_parse(d, len, &c), PCAM_ERR_TRUNCATED);

    static const uint8_t big[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x10, 0x00};
    assert_int_equal(pcam_read_capacity10_parse(big, 8, &c), PCAM_OK);
    assert_true(c.use_rc16);
    assert_int_equal(c.block_length, 4096);

    /* Block length 0 is reported, not refused. */
    static const uint8_t zero[8] = {0x00, 0x00, 0x10, 0x00, 0, 0, 0, 0};
    assert_int_equal(pcam_read_capacity10_parse(zero, 8, &c), PCAM_OK);
    assert_true(c.zero_block_length);
    assert_int_equal(c.last_lba, 0x1000);

    uint8_t b[8];
    static const uint8_t want[8] = {0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x08, 0x00};
    assert_int_equal(pcam_read_capacity10_build(b, 8, 0x12345678u, 2048), 8);
    assert_memory_equal(b, want, 8);
    assert_int_equal(pcam_read_capacity10_build(b, 7, 0, 512), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_read_capacity10_build(NULL, 8, 0, 512), PCAM_ERR_NULL);
    assert_int_equal(pcam_read_capacity10_parse(d, 8, NULL), PCAM_ERR_NULL);
}

static void read_capacity16(void **state)
{
    (void)state;
    /* LBA 0000000123456789h, 4096-byte blocks, byte 12 = 13h (RC BASIS 01b,
     * P_TYPE 001b, PROT_EN), byte 13 = 23h (P_I_EXPONENT 2, LBPPBE 3),
     * bytes 14-15 = C1h 02h (LBPME, LBPRZ, lowest aligned LBA 0102h). */
    uint8_t d[32] = {0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89,
                     0x00, 0x00, 0x10, 0x00, 0x13, 0x23, 0xC1, 0x02};
    pcam_capacity c;
    size_t len;

    assert_int_equal(pcam_read_capacity16_parse(d, 32, &c), PCAM_OK);
    assert_true(c.last_lba == 0x123456789ull);
    assert_int_equal(c.block_length, 4096);
    assert_false(c.use_rc16);
    assert_true(c.have_protection);
    assert_int_equal(c.rc_basis, 1);
    assert_int_equal(c.p_type, 1);
    assert_true(c.prot_en);
    assert_int_equal(c.p_i_exponent, 2);
    assert_int_equal(c.lbppb_exponent, 3);
    assert_true(c.lbpme);
    assert_true(c.lbprz);
    assert_int_equal(c.lowest_aligned_lba, 0x0102);

    for (len = 0; len < 12; len++)
        assert_int_equal(pcam_read_capacity16_parse(d, len, &c), PCAM_ERR_TRUNCATED);
    for (len = 12; len < 16; len++) {
        assert_int_equal(pcam_read_capacity16_parse(d, len, &c), PCAM_OK);
        assert_int_equal(c.block_length, 4096);
        assert_false(c.have_protection);
        assert_false(c.prot_en);
    }

    uint8_t b[32];
    memset(b, 0xEE, sizeof b);
    assert_int_equal(pcam_read_capacity16_build(b, 32, 0xFFFFFFFFFFFFFFFEull, 520), 32);
    static const uint8_t want[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
                                     0x00, 0x00, 0x02, 0x08, 0, 0, 0, 0};
    assert_memory_equal(b, want, 16);
    for (len = 16; len < 32; len++)
        assert_int_equal(b[len], 0);
    assert_int_equal(pcam_read_capacity16_parse(b, 32, &c), PCAM_OK);
    assert_true(c.last_lba == 0xFFFFFFFFFFFFFFFEull);
    assert_int_equal(c.block_length, 520);
    assert_false(c.prot_en);
    assert_int_equal(pcam_read_capacity16_build(b, 31, 0, 512), PCAM_ERR_NOSPACE);

    d[8] = d[9] = d[10] = d[11] = 0;
    assert_int_equal(pcam_read_capacity16_parse(d, 32, &c), PCAM_OK);
    assert_true(c.zero_block_length);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inquiry_qemu_36),
        cmocka_unit_test(inquiry_u320_96),
        cmocka_unit_test(inquiry_truncated_at_every_length),
        cmocka_unit_test(inquiry_no_lun_and_strings),
        cmocka_unit_test(device_type_names),
        cmocka_unit_test(report_luns_peripheral_and_flat),
        cmocka_unit_test(report_luns_other_methods),
        cmocka_unit_test(report_luns_lying_headers),
        cmocka_unit_test(read_capacity10),
        cmocka_unit_test(read_capacity16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
