/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CDB builders for tools, shims and tests: TEST UNIT READY, REQUEST SENSE
 * (SPC-4), READ/WRITE, READ CAPACITY, MODE SENSE/SELECT, START STOP UNIT,
 * SYNCHRONIZE CACHE and VERIFY (SBC-3). The core sends none of these
 * itself, so the file compiles to nothing with PCAM_CFG_CODEC_EXTRAS 0.
 */
#include "pcam/pcam_cdb.h"
#include "pcam_util.h"

#if PCAM_CFG_CODEC_EXTRAS

#define LBA21_MAX 0x1FFFFFu
#define LBA32_MAX 0xFFFFFFFFull

int pcam_cdb_test_unit_ready(uint8_t *cdb, size_t cap)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int n = pcam_cdb_claim(cdb, cap, 6);
    if (n > 0)
        cdb[0] = 0x00;
    return n;
}

int pcam_cdb_request_sense(uint8_t *cdb, size_t cap, uint8_t alloc_len, bool desc)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int n = pcam_cdb_claim(cdb, cap, 6);
    if (n < 0)
        return n;
    cdb[0] = 0x03;
    cdb[1] = desc ? 0x01 : 0x00;
    cdb[4] = alloc_len;
    return n;
}

int pcam_cdb_read_capacity10(uint8_t *cdb, size_t cap)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int n = pcam_cdb_claim(cdb, cap, 10);
    if (n > 0)
        cdb[0] = 0x25;
    return n;
}

int pcam_cdb_read_capacity16(uint8_t *cdb, size_t cap, uint32_t alloc_len)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int n = pcam_cdb_claim(cdb, cap, 16);
    if (n < 0)
        return n;
    cdb[0] = 0x9E;
    cdb[1] = 0x10;
    pcam_put_be32(cdb + 10, alloc_len);
    return n;
}

/* Sets of CDB sizes a builder accepts. */
enum { SZ6 = 1, SZ10 = 2, SZ12 = 4, SZ16 = 8 };

static unsigned size_bit(unsigned size)
{
    switch (size) {
    case 6: return SZ6;
    case 10: return SZ10;
    case 12: return SZ12;
    case 16: return SZ16;
    default: return 0;
    }
}

/* Checks an explicit size, or picks one for size 0, among `allowed`. */
static int choose(unsigned allowed, unsigned size, uint64_t lba, uint32_t blocks, bool six_ok)
{
    if (size == 0) {
        if ((allowed & SZ6) && six_ok && lba <= LBA21_MAX && blocks >= 1 && blocks <= 256)
            return 6;
        if ((allowed & SZ10) && lba <= LBA32_MAX && blocks <= 0xFFFFu)
            return 10;
        if ((allowed & SZ12) && lba <= LBA32_MAX)
            return 12;
        /* Every caller allows the 16-byte form, which says any LBA and
         * count: the last choice never fails. */
        return 16;
    }
    if ((allowed & size_bit(size)) == 0)
        return PCAM_ERR_RANGE;
    switch (size) {
    case 6:
        /* READ(6)/WRITE(6) send 256 blocks as 0, so 0 blocks cannot be said. */
        if (!six_ok || lba > LBA21_MAX || blocks < 1 || blocks > 256)
            return PCAM_ERR_RANGE;
        break;
    case 10:
        if (lba > LBA32_MAX || blocks > 0xFFFFu)
            return PCAM_ERR_RANGE;
        break;
    case 12:
        if (lba > LBA32_MAX)
            return PCAM_ERR_RANGE;
        break;
    default:
        break;
    }
    return (int)size;
}

/*
 * The block commands share one layout per size (SBC-3): LBA at byte 2 (21
 * bits from byte 1 for 6; 8 bytes for 16) and the block count at byte 4 (6),
 * 7 (10, two bytes), 6 (12) or 10 (16). Byte 1 carries the flags except in
 * the 6-byte form, where it holds the top LBA bits.
 */
static void put_block_cdb(uint8_t *cdb, unsigned size, uint8_t op, uint8_t byte1, uint64_t lba,
                          uint32_t blocks)
{
    cdb[0] = op;
    switch (size) {
    case 6:
        cdb[1] = (uint8_t)((lba >> 16) & 0x1Fu);
        cdb[2] = (uint8_t)(lba >> 8);
        cdb[3] = (uint8_t)lba;
        cdb[4] = (uint8_t)(blocks == 256 ? 0 : blocks);
        break;
    case 10:
        cdb[1] = byte1;
        pcam_put_be32(cdb + 2, (uint32_t)lba);
        pcam_put_be16(cdb + 7, (uint16_t)blocks);
        break;
    case 12:
        cdb[1] = byte1;
        pcam_put_be32(cdb + 2, (uint32_t)lba);
        pcam_put_be32(cdb + 6, blocks);
        break;
    default:
        cdb[1] = byte1;
        pcam_put_be64(cdb + 2, lba);
        pcam_put_be32(cdb + 10, blocks);
        break;
    }
}

static uint8_t opcode_for(unsigned size, uint8_t op6, uint8_t op10, uint8_t op12, uint8_t op16)
{
    switch (size) {
    case 6: return op6;
    case 10: return op10;
    case 12: return op12;
    default: return op16;
    }
}

static int build_rw(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                    uint8_t flags, bool write)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int size = choose(SZ6 | SZ10 | SZ12 | SZ16, cdb_size, lba, blocks, flags == 0);
    if (size < 0)
        return size;
    int n = pcam_cdb_claim(cdb, cap, (unsigned)size);
    if (n < 0)
        return n;
    uint8_t op = write ? opcode_for((unsigned)size, 0x0A, 0x2A, 0xAA, 0x8A)
                       : opcode_for((unsigned)size, 0x08, 0x28, 0xA8, 0x88);
    put_block_cdb(cdb, (unsigned)size, op, flags, lba, blocks);
    return n;
}

int pcam_cdb_read(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                  uint8_t flags)
{
    return build_rw(cdb, cap, cdb_size, lba, blocks, flags, false);
}

int pcam_cdb_write(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                   uint8_t flags)
{
    return build_rw(cdb, cap, cdb_size, lba, blocks, flags, true);
}

int pcam_cdb_mode_sense(uint8_t *cdb, size_t cap, unsigned cdb_size, bool dbd, uint8_t pc,
                        uint8_t page, uint8_t subpage, uint16_t alloc_len)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    if ((cdb_size != 6 && cdb_size != 10) || pc > 3 || page > 0x3F ||
        (cdb_size == 6 && alloc_len > 0xFF))
        return PCAM_ERR_RANGE;
    int n = pcam_cdb_claim(cdb, cap, cdb_size);
    if (n < 0)
        return n;
    cdb[0] = cdb_size == 6 ? 0x1A : 0x5A;
    cdb[1] = dbd ? 0x08 : 0x00;
    cdb[2] = (uint8_t)((pc << 6) | page);
    cdb[3] = subpage;
    if (cdb_size == 6)
        cdb[4] = (uint8_t)alloc_len;
    else
        pcam_put_be16(cdb + 7, alloc_len);
    return n;
}

int pcam_cdb_mode_select(uint8_t *cdb, size_t cap, unsigned cdb_size, bool pf, bool sp,
                         uint16_t param_len)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    if ((cdb_size != 6 && cdb_size != 10) || (cdb_size == 6 && param_len > 0xFF))
        return PCAM_ERR_RANGE;
    int n = pcam_cdb_claim(cdb, cap, cdb_size);
    if (n < 0)
        return n;
    cdb[0] = cdb_size == 6 ? 0x15 : 0x55;
    cdb[1] = (uint8_t)((pf ? 0x10 : 0x00) | (sp ? 0x01 : 0x00));
    if (cdb_size == 6)
        cdb[4] = (uint8_t)param_len;
    else
        pcam_put_be16(cdb + 7, param_len);
    return n;
}

int pcam_cdb_start_stop_unit(uint8_t *cdb, size_t cap, bool immed, uint8_t power_condition,
                             bool loej, bool start)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    if (power_condition > 0x0F)
        return PCAM_ERR_RANGE;
    int n = pcam_cdb_claim(cdb, cap, 6);
    if (n < 0)
        return n;
    cdb[0] = 0x1B;
    cdb[1] = immed ? 0x01 : 0x00;
    cdb[4] = (uint8_t)((power_condition << 4) | (loej ? 0x02 : 0x00) | (start ? 0x01 : 0x00));
    return n;
}

int pcam_cdb_synchronize_cache(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba,
                               uint32_t blocks, bool immed)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int size = choose(SZ10 | SZ16, cdb_size, lba, blocks, false);
    if (size < 0)
        return size;
    int n = pcam_cdb_claim(cdb, cap, (unsigned)size);
    if (n < 0)
        return n;
    put_block_cdb(cdb, (unsigned)size, size == 10 ? 0x35 : 0x91, immed ? 0x02 : 0x00, lba,
                  blocks);
    return n;
}

int pcam_cdb_verify(uint8_t *cdb, size_t cap, unsigned cdb_size, uint64_t lba, uint32_t blocks,
                    uint8_t bytchk)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    if (bytchk > 3)
        return PCAM_ERR_RANGE;
    if (bytchk == 2)
        return PCAM_ERR_RESERVED;
    int size = choose(SZ10 | SZ12 | SZ16, cdb_size, lba, blocks, false);
    if (size < 0)
        return size;
    int n = pcam_cdb_claim(cdb, cap, (unsigned)size);
    if (n < 0)
        return n;
    put_block_cdb(cdb, (unsigned)size, opcode_for((unsigned)size, 0, 0x2F, 0xAF, 0x8F),
                  (uint8_t)(bytchk << 1), lba, blocks);
    return n;
}

#endif /* PCAM_CFG_CODEC_EXTRAS */
