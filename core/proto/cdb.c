/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CDB lengths and the builders the core sends itself (INQUIRY and REPORT
 * LUNS, SPC-4 layouts; REPORT LUNS only with PCAM_CFG_REPORT_LUNS, or for
 * tools with PCAM_CFG_CODEC_EXTRAS). The builders for tools, shims and target models are
 * in cdb_build.c; the decoder and its opcode table in cdb_table.c.
 */
#include "pcam/pcam_cdb.h"
#include "pcam_util.h"

int pcam_cdb_len_for_opcode(uint8_t opcode)
{
    /* By group code; 0 for group 3 (variable length / reserved) and the
     * vendor groups 6 and 7. */
    static const uint8_t by_group[8] = {6, 10, 10, 0, 16, 12, 0, 0};
    return by_group[opcode >> 5];
}

pcam_err pcam_cdb_check(const uint8_t *cdb, size_t len)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    if (len == 0)
        return PCAM_ERR_LENGTH;
    uint8_t op = cdb[0];
    int want = pcam_cdb_len_for_opcode(op);
    if (want != 0)
        return len == (size_t)want ? PCAM_OK : PCAM_ERR_LENGTH;
    if ((op >> 5) >= 6)
        return (len >= 6 && len <= PCAM_CDB_MAX) ? PCAM_OK : PCAM_ERR_LENGTH;
    if (op == 0x7E)
        return PCAM_ERR_UNSUPPORTED;
    if (op != PCAM_CDB_VARLEN_OPCODE)
        return PCAM_ERR_RESERVED;
    if (len < 8)
        return PCAM_ERR_LENGTH;
    /* A zero additional length would leave no room for the service action
     * that every variable-length CDB carries in bytes 8-9. */
    if (cdb[7] == 0 || (cdb[7] % 4u) != 0 || len != 8u + cdb[7])
        return PCAM_ERR_LENGTH;
    return PCAM_OK;
}

const char *pcam_dir_name(pcam_dir d)
{
    switch (d) {
    case PCAM_DIR_NONE: return "none";
    case PCAM_DIR_IN: return "in";
    case PCAM_DIR_OUT: return "out";
    default: return "unknown";
    }
}

/* The room check comes last so that a caller learns about a bad value even
 * when it also passed a short buffer; zeroing here makes every reserved
 * field and the control byte 0 without each builder listing them. */
int pcam_cdb_claim(uint8_t *cdb, size_t cap, unsigned n)
{
    if (cap < n)
        return PCAM_ERR_NOSPACE;
    memset(cdb, 0, n);
    return (int)n;
}


int pcam_cdb_inquiry(uint8_t *cdb, size_t cap, bool evpd, uint8_t page, uint16_t alloc_len)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    /* SPC: a page code without EVPD is an ILLEGAL REQUEST, so refuse to
     * build a CDB that cannot succeed. */
    if (!evpd && page != 0)
        return PCAM_ERR_RANGE;
    int n = pcam_cdb_claim(cdb, cap, 6);
    if (n < 0)
        return n;
    cdb[0] = 0x12;
    cdb[1] = evpd ? 0x01 : 0x00;
    cdb[2] = page;
    pcam_put_be16(cdb + 3, alloc_len);
    return n;
}


#if PCAM_CFG_REPORT_LUNS || PCAM_CFG_CODEC_EXTRAS
int pcam_cdb_report_luns(uint8_t *cdb, size_t cap, uint8_t select_report, uint32_t alloc_len)
{
    if (cdb == NULL)
        return PCAM_ERR_NULL;
    int n = pcam_cdb_claim(cdb, cap, 12);
    if (n < 0)
        return n;
    cdb[0] = 0xA0;
    cdb[2] = select_report;
    pcam_put_be32(cdb + 6, alloc_len);
    return n;
}
#endif
