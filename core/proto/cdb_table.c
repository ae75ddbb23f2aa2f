/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CDB decoder and formatter, driven by a table of command layouts.
 *
 * Opcode and service action values are facts taken from the T10 operation
 * code list (www.t10.org/lists/op-num.htm) as reproduced in sg3_utils'
 * lib/sg_lib_data.c; field positions are from SPC-4, SBC-3, MMC-6 and SAT-3
 * and were cross-checked against the transfer-length rules of QEMU's
 * hw/scsi/scsi-bus.c. The tables below are pcam's own arrangement of those
 * facts.
 */
#include "pcam/pcam_cdb.h"
#include "pcam_util.h"

#if PCAM_CFG_TEXT

/* How the data phase follows from the fields. */
enum how {
    H_NODATA,        /* never a data phase */
    H_BYTES,         /* length field is an allocation / parameter list length */
    H_BLOCKS,        /* length field counts logical blocks */
    H_BLOCKS6,       /* as H_BLOCKS, but 0 means 256 (READ(6)/WRITE(6)) */
    H_NODATA_BLOCKS, /* counts blocks, but moves no data (SYNCHRONIZE CACHE) */
    H_VERIFY,        /* BYTCHK in bits 2-1 of the flag byte decides */
    H_WRITE_SAME,    /* one block of data-out, none with NDOB */
    H_CAW,           /* COMPARE AND WRITE: twice the blocks of data-out */
    H_FIXED8,        /* READ CAPACITY(10): always 8 bytes in */
    H_FORMAT,        /* FORMAT UNIT: data-out only with FMTDATA */
    H_ATA,           /* ATA PASS-THROUGH: direction from T_DIR / T_LENGTH */
    H_SECPROT,       /* SECURITY PROTOCOL IN/OUT: INC_512 scales the length */
    H_UNKNOWN        /* direction from the table, length not in the CDB */
};

/* Flag bits the flag byte (byte 1, or byte 10 of a 32-byte CDB) carries. */
enum bits {
    B_FUA = 0x01,    /* bit 3 FUA */
    B_DPO = 0x02,    /* bit 4 DPO */
    B_IMMED0 = 0x04, /* bit 0 IMMED */
    B_IMMED1 = 0x08, /* bit 1 IMMED */
    B_SA = 0x10,     /* has a service action (byte 1 bits 4-0; 0x7F: bytes 8-9) */
    B_NDOB = 0x20,   /* bit 0 NDOB: no data-out buffer */
    B_WRUNCOR = 0x40 /* bit 6 WR_UNCOR: no data-out (WRITE LONG) */
};

typedef struct cdb_op {
    uint8_t opcode;
    uint16_t sa;     /* service action, in the service action table only */
    uint8_t dir;     /* pcam_dir of the data phase when there is one */
    uint8_t how;     /* enum how */
    uint8_t bits;    /* enum bits */
    uint8_t lba_at;  /* byte offset of the LBA */
    uint8_t lba_w;   /* its width in bytes, 0 = no LBA; 3 means the 21-bit 6-byte form */
    uint8_t len_at;  /* byte offset of the transfer / allocation length */
    uint8_t len_w;   /* its width in bytes, 0 = none */
    uint8_t fb;      /* byte holding the flag bits */
#if PCAM_CFG_CDB_NAMES
    const char *name;
#endif
} cdb_op;

/* Without names the table keeps only what decoding needs. */
#if PCAM_CFG_CDB_NAMES
#define NAME_(s) , s
#else
#define NAME_(s)
#endif

#define N PCAM_DIR_NONE
#define I PCAM_DIR_IN
#define O PCAM_DIR_OUT
#define U PCAM_DIR_UNKNOWN

/* Opcode-only entry: flags in byte 1. */
#define OP(op, name, dir, how, bits, la, lw, ca, cw) {op, 0, dir, how, bits, la, lw, ca, cw, 1 NAME_(name)}
/* Service action entry (byte 1 bits 4-0). */
#define SA(op, sa, name, dir, how, bits, la, lw, ca, cw) \
    {op, sa, dir, how, bits, la, lw, ca, cw, 1 NAME_(name)}
/* Variable-length (0x7F) entry: 32-byte SBC layout, flags in byte 10. */
#define VL(sa, name, dir, how, bits) {0x7F, sa, dir, how, bits, 12, 8, 28, 4, 10 NAME_(name)}

/* Sorted by opcode. */
static const cdb_op ops[] = {
    /* group 0: 6 bytes */
    OP(0x00, "TEST UNIT READY", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x01, "REZERO UNIT", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x03, "REQUEST SENSE", I, H_BYTES, 0, 0, 0, 4, 1),
    OP(0x04, "FORMAT UNIT", O, H_FORMAT, 0, 0, 0, 0, 0),
    OP(0x07, "REASSIGN BLOCKS", O, H_UNKNOWN, 0, 0, 0, 0, 0),
    OP(0x08, "READ(6)", I, H_BLOCKS6, 0, 1, 3, 4, 1),
    OP(0x0A, "WRITE(6)", O, H_BLOCKS6, 0, 1, 3, 4, 1),
    OP(0x0B, "SEEK(6)", N, H_NODATA, 0, 1, 3, 0, 0),
    OP(0x12, "INQUIRY", I, H_BYTES, 0, 0, 0, 3, 2),
    OP(0x15, "MODE SELECT(6)", O, H_BYTES, 0, 0, 0, 4, 1),
    OP(0x16, "RESERVE(6)", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x17, "RELEASE(6)", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x1A, "MODE SENSE(6)", I, H_BYTES, 0, 0, 0, 4, 1),
    OP(0x1B, "START STOP UNIT", N, H_NODATA, B_IMMED0, 0, 0, 0, 0),
    OP(0x1C, "RECEIVE DIAGNOSTIC RESULTS", I, H_BYTES, 0, 0, 0, 3, 2),
    OP(0x1D, "SEND DIAGNOSTIC", O, H_BYTES, 0, 0, 0, 3, 2),
    OP(0x1E, "PREVENT ALLOW MEDIUM REMOVAL", N, H_NODATA, 0, 0, 0, 0, 0),
    /* group 1: 10 bytes */
    OP(0x23, "READ FORMAT CAPACITIES", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x25, "READ CAPACITY(10)", I, H_FIXED8, 0, 0, 0, 0, 0),
    OP(0x28, "READ(10)", I, H_BLOCKS, B_FUA | B_DPO, 2, 4, 7, 2),
    OP(0x2A, "WRITE(10)", O, H_BLOCKS, B_FUA | B_DPO, 2, 4, 7, 2),
    OP(0x2B, "SEEK(10)", N, H_NODATA, 0, 2, 4, 0, 0),
    OP(0x2E, "WRITE AND VERIFY(10)", O, H_BLOCKS, B_DPO, 2, 4, 7, 2),
    OP(0x2F, "VERIFY(10)", O, H_VERIFY, B_DPO, 2, 4, 7, 2),
    OP(0x34, "PRE-FETCH(10)", N, H_NODATA_BLOCKS, B_IMMED1, 2, 4, 7, 2),
    OP(0x35, "SYNCHRONIZE CACHE(10)", N, H_NODATA_BLOCKS, B_IMMED1, 2, 4, 7, 2),
    OP(0x37, "READ DEFECT DATA(10)", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x3B, "WRITE BUFFER", O, H_BYTES, 0, 0, 0, 6, 3),
    OP(0x3C, "READ BUFFER", I, H_BYTES, 0, 0, 0, 6, 3),
    OP(0x3E, "READ LONG(10)", I, H_BYTES, 0, 2, 4, 7, 2),
    OP(0x3F, "WRITE LONG(10)", O, H_BYTES, B_WRUNCOR, 2, 4, 7, 2),
    OP(0x41, "WRITE SAME(10)", O, H_WRITE_SAME, 0, 2, 4, 7, 2),
    /* group 2: 10 bytes */
    OP(0x42, "UNMAP", O, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x43, "READ TOC/PMA/ATIP", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x45, "PLAY AUDIO(10)", N, H_NODATA_BLOCKS, 0, 2, 4, 7, 2),
    OP(0x46, "GET CONFIGURATION", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x47, "PLAY AUDIO MSF", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x48, "SANITIZE", O, H_BYTES, B_SA, 0, 0, 7, 2),
    OP(0x4A, "GET EVENT STATUS NOTIFICATION", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x4B, "PAUSE/RESUME", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x4C, "LOG SELECT", O, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x4D, "LOG SENSE", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x4E, "STOP PLAY/SCAN", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x51, "READ DISC INFORMATION", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x52, "READ TRACK INFORMATION", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x53, "RESERVE TRACK", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0x54, "SEND OPC INFORMATION", O, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x55, "MODE SELECT(10)", O, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x56, "RESERVE(10)", O, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x57, "RELEASE(10)", O, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x5A, "MODE SENSE(10)", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x5B, "CLOSE TRACK/SESSION", N, H_NODATA, B_IMMED0, 0, 0, 0, 0),
    OP(0x5C, "READ BUFFER CAPACITY", I, H_BYTES, 0, 0, 0, 7, 2),
    OP(0x5D, "SEND CUE SHEET", O, H_BYTES, 0, 0, 0, 6, 3),
    OP(0x5E, "PERSISTENT RESERVE IN", I, H_BYTES, B_SA, 0, 0, 7, 2),
    OP(0x5F, "PERSISTENT RESERVE OUT", O, H_BYTES, B_SA, 0, 0, 5, 4),
    /* group 3: variable length */
    OP(0x7F, "VARIABLE LENGTH", U, H_UNKNOWN, B_SA, 0, 0, 0, 0),
    /* group 4: 16 bytes */
    OP(0x83, "THIRD PARTY COPY OUT", O, H_BYTES, B_SA, 0, 0, 10, 4),
    OP(0x84, "THIRD PARTY COPY IN", I, H_BYTES, B_SA, 0, 0, 10, 4),
    OP(0x85, "ATA PASS-THROUGH(16)", U, H_ATA, 0, 0, 0, 0, 0),
    OP(0x88, "READ(16)", I, H_BLOCKS, B_FUA | B_DPO, 2, 8, 10, 4),
    OP(0x89, "COMPARE AND WRITE", O, H_CAW, B_FUA | B_DPO, 2, 8, 13, 1),
    OP(0x8A, "WRITE(16)", O, H_BLOCKS, B_FUA | B_DPO, 2, 8, 10, 4),
    OP(0x8C, "READ ATTRIBUTE", I, H_BYTES, B_SA, 0, 0, 10, 4),
    OP(0x8D, "WRITE ATTRIBUTE", O, H_BYTES, 0, 0, 0, 10, 4),
    OP(0x8E, "WRITE AND VERIFY(16)", O, H_BLOCKS, B_DPO, 2, 8, 10, 4),
    OP(0x8F, "VERIFY(16)", O, H_VERIFY, B_DPO, 2, 8, 10, 4),
    OP(0x90, "PRE-FETCH(16)", N, H_NODATA_BLOCKS, B_IMMED1, 2, 8, 10, 4),
    OP(0x91, "SYNCHRONIZE CACHE(16)", N, H_NODATA_BLOCKS, B_IMMED1, 2, 8, 10, 4),
    OP(0x93, "WRITE SAME(16)", O, H_WRITE_SAME, B_NDOB, 2, 8, 10, 4),
    OP(0x9E, "SERVICE ACTION IN(16)", I, H_BYTES, B_SA, 0, 0, 10, 4),
    OP(0x9F, "SERVICE ACTION OUT(16)", O, H_UNKNOWN, B_SA, 0, 0, 0, 0),
    /* group 5: 12 bytes */
    OP(0xA0, "REPORT LUNS", I, H_BYTES, 0, 0, 0, 6, 4),
    OP(0xA1, "ATA PASS-THROUGH(12)", U, H_ATA, 0, 0, 0, 0, 0),
    OP(0xA2, "SECURITY PROTOCOL IN", I, H_SECPROT, 0, 0, 0, 6, 4),
    OP(0xA3, "MAINTENANCE IN", I, H_BYTES, B_SA, 0, 0, 6, 4),
    OP(0xA4, "MAINTENANCE OUT", O, H_BYTES, B_SA, 0, 0, 6, 4),
    OP(0xA6, "LOAD/UNLOAD MEDIUM", N, H_NODATA, B_IMMED0, 0, 0, 0, 0),
    OP(0xA8, "READ(12)", I, H_BLOCKS, B_FUA | B_DPO, 2, 4, 6, 4),
    OP(0xAA, "WRITE(12)", O, H_BLOCKS, B_FUA | B_DPO, 2, 4, 6, 4),
    OP(0xAC, "GET PERFORMANCE", I, H_UNKNOWN, 0, 0, 0, 0, 0),
    OP(0xAD, "READ DISC STRUCTURE", I, H_BYTES, 0, 0, 0, 8, 2),
    OP(0xAE, "WRITE AND VERIFY(12)", O, H_BLOCKS, B_DPO, 2, 4, 6, 4),
    OP(0xAF, "VERIFY(12)", O, H_VERIFY, B_DPO, 2, 4, 6, 4),
    OP(0xB5, "SECURITY PROTOCOL OUT", O, H_SECPROT, 0, 0, 0, 6, 4),
    OP(0xB6, "SET STREAMING", O, H_BYTES, 0, 0, 0, 9, 2),
    OP(0xB7, "READ DEFECT DATA(12)", I, H_BYTES, 0, 0, 0, 6, 4),
    OP(0xB9, "READ CD MSF", I, H_UNKNOWN, 0, 0, 0, 0, 0),
    OP(0xBB, "SET CD SPEED", N, H_NODATA, 0, 0, 0, 0, 0),
    OP(0xBD, "MECHANISM STATUS", I, H_BYTES, 0, 0, 0, 8, 2),
    OP(0xBE, "READ CD", I, H_BLOCKS, 0, 2, 4, 6, 3),
    OP(0xBF, "SEND DISC STRUCTURE", O, H_BYTES, 0, 0, 0, 8, 2),
};

/*
 * Named service actions. An entry replaces the opcode's entry whole, so a
 * service action whose fields sit elsewhere (READ LONG(16)) says so here.
 * Service actions not listed keep the opcode's name and layout.
 */
static const cdb_op sa_ops[] = {
    SA(0x83, 0x00, "EXTENDED COPY(LID1)", O, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x83, 0x01, "EXTENDED COPY", O, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x83, 0x10, "POPULATE TOKEN", O, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x83, 0x11, "WRITE USING TOKEN", O, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x83, 0x1C, "COPY OPERATION ABORT", N, H_NODATA, B_SA, 0, 0, 0, 0),
    SA(0x84, 0x00, "RECEIVE COPY STATUS(LID1)", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x01, "RECEIVE COPY DATA(LID1)", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x03, "RECEIVE COPY OPERATING PARAMETERS", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x04, "RECEIVE COPY FAILURE DETAILS(LID1)", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x05, "RECEIVE COPY STATUS", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x06, "RECEIVE COPY DATA", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x07, "RECEIVE ROD TOKEN INFORMATION", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x84, 0x08, "REPORT ALL ROD TOKENS", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x9E, 0x10, "READ CAPACITY(16)", I, H_BYTES, B_SA, 0, 0, 10, 4),
    SA(0x9E, 0x11, "READ LONG(16)", I, H_BYTES, B_SA, 2, 8, 12, 2),
    SA(0x9E, 0x12, "GET LBA STATUS", I, H_BYTES, B_SA, 2, 8, 10, 4),
    SA(0x9E, 0x13, "REPORT REFERRALS", I, H_BYTES, B_SA, 2, 8, 10, 4),
    SA(0x9F, 0x11, "WRITE LONG(16)", O, H_BYTES, B_SA | B_WRUNCOR, 2, 8, 12, 2),
    SA(0xA3, 0x05, "REPORT IDENTIFYING INFORMATION", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x0A, "REPORT TARGET PORT GROUPS", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x0B, "REPORT ALIASES", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x0C, "REPORT SUPPORTED OPERATION CODES", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x0D, "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x0E, "REPORT PRIORITY", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x0F, "REPORT TIMESTAMP", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA3, 0x10, "MANAGEMENT PROTOCOL IN", I, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x06, "SET IDENTIFYING INFORMATION", O, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x0A, "SET TARGET PORT GROUPS", O, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x0B, "CHANGE ALIASES", O, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x0C, "REMOVE I_T NEXUS", O, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x0E, "SET PRIORITY", O, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x0F, "SET TIMESTAMP", O, H_BYTES, B_SA, 0, 0, 6, 4),
    SA(0xA4, 0x10, "MANAGEMENT PROTOCOL OUT", O, H_BYTES, B_SA, 0, 0, 6, 4),
    /* 0x7F: SBC-3 32-byte forms, LBA in bytes 12-19, length in 28-31. */
    VL(0x0009, "READ(32)", I, H_BLOCKS, B_SA | B_FUA | B_DPO),
    VL(0x000A, "VERIFY(32)", O, H_VERIFY, B_SA | B_DPO),
    VL(0x000B, "WRITE(32)", O, H_BLOCKS, B_SA | B_FUA | B_DPO),
    VL(0x000C, "WRITE AND VERIFY(32)", O, H_BLOCKS, B_SA | B_DPO),
    VL(0x000D, "WRITE SAME(32)", O, H_WRITE_SAME, B_SA | B_NDOB),
    {0x7F, 0x1FF0, U, H_UNKNOWN, B_SA, 0, 0, 0, 0, 1 NAME_("ATA PASS-THROUGH(32)")},
};

#undef N
#undef I
#undef O
#undef U

static const cdb_op *find(const cdb_op *t, size_t n, uint8_t opcode, bool match_sa, uint16_t sa)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].opcode == opcode && (!match_sa || t[i].sa == sa))
            return &t[i];
    return NULL;
}

static uint64_t get_be(const uint8_t *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Sets the direction and expected length for a data phase of `bytes`,
 * which may turn out to be empty. */
static void set_xfer(pcam_cdb_info *out, pcam_dir dir, bool known, uint64_t bytes)
{
    out->xfer_known = known;
    out->xfer_bytes = known ? bytes : 0;
    out->dir = (known && bytes == 0) ? PCAM_DIR_NONE : dir;
}

static void set_blocks_xfer(pcam_cdb_info *out, pcam_dir dir, uint32_t block_size,
                            uint64_t nblocks)
{
    if (nblocks == 0)
        set_xfer(out, dir, true, 0);
    else
        set_xfer(out, dir, block_size != 0, nblocks * block_size);
}

static void apply(const cdb_op *e, const uint8_t *cdb, size_t len, uint32_t block_size,
                  pcam_cdb_info *out)
{
    /* Table offsets are within the group's length for fixed CDBs; the
     * bounds checks matter for variable-length ones, which may be shorter
     * than the 32-byte layout. */
    uint8_t fl = e->fb < len ? cdb[e->fb] : 0;
    bool have_len = e->len_w != 0 && (size_t)e->len_at + e->len_w <= len;
    uint32_t n = have_len ? (uint32_t)get_be(cdb + e->len_at, e->len_w) : 0;
    pcam_dir dir = (pcam_dir)e->dir;

#if PCAM_CFG_CDB_NAMES
    out->name = e->name;
#else
    out->name = "CDB";
#endif
    if (e->lba_w != 0 && (size_t)e->lba_at + e->lba_w <= len) {
        out->has_lba = true;
        out->lba = get_be(cdb + e->lba_at, e->lba_w);
        if (e->lba_w == 3)
            out->lba &= 0x1FFFFFu;
    }
    out->fua = (e->bits & B_FUA) && (fl & 0x08);
    out->dpo = (e->bits & B_DPO) && (fl & 0x10);
    out->immed = ((e->bits & B_IMMED0) && (fl & 0x01)) || ((e->bits & B_IMMED1) && (fl & 0x02));

    bool counts_blocks = e->how == H_BLOCKS || e->how == H_BLOCKS6 ||
                         e->how == H_NODATA_BLOCKS || e->how == H_VERIFY ||
                         e->how == H_WRITE_SAME || e->how == H_CAW;
    if (counts_blocks && !have_len) {
        set_xfer(out, dir, false, 0);
        return;
    }
    if (counts_blocks) {
        out->has_blocks = true;
        out->blocks = (e->how == H_BLOCKS6 && n == 0) ? 256u : n;
    }

    switch (e->how) {
    case H_NODATA:
    case H_NODATA_BLOCKS:
        set_xfer(out, PCAM_DIR_NONE, true, 0);
        break;
    case H_BYTES:
        set_xfer(out, dir, have_len, n);
        break;
    case H_SECPROT:
        /* INC_512 (byte 4 bit 7): the length counts 512-byte units. */
        set_xfer(out, dir, have_len, (cdb[4] & 0x80) ? (uint64_t)n * 512u : n);
        break;
    case H_BLOCKS:
    case H_BLOCKS6:
        set_blocks_xfer(out, dir, block_size, out->blocks);
        break;
    case H_VERIFY:
        switch ((fl >> 1) & 3u) {
        case 0: set_xfer(out, PCAM_DIR_NONE, true, 0); break;
        case 1: set_blocks_xfer(out, dir, block_size, out->blocks); break;
        case 3: set_blocks_xfer(out, dir, block_size, out->blocks ? 1 : 0); break;
        default: set_xfer(out, PCAM_DIR_UNKNOWN, false, 0); break; /* reserved */
        }
        break;
    case H_WRITE_SAME:
        /* One block goes out even when the count is 0 (meaning "to the end
         * of the medium"), unless NDOB says the device makes it up. */
        if ((e->bits & B_NDOB) && (fl & 0x01))
            set_xfer(out, PCAM_DIR_NONE, true, 0);
        else
            set_blocks_xfer(out, dir, block_size, 1);
        break;
    case H_CAW:
        /* The verify data and the write data, each `blocks` long. */
        set_blocks_xfer(out, dir, block_size, 2u * (uint64_t)out->blocks);
        break;
    case H_FIXED8:
        set_xfer(out, dir, true, 8);
        break;
    case H_FORMAT:
        if (cdb[1] & 0x10)
            set_xfer(out, dir, false, 0); /* list length is in its own header */
        else
            set_xfer(out, PCAM_DIR_NONE, true, 0);
        break;
    case H_ATA: {
        /* SAT: PROTOCOL in byte 1 bits 4-1; T_DIR (byte 2 bit 3) and
         * T_LENGTH (bits 1-0, 0 = no data). Resets, non-data, diagnostics
         * and "return response information" never move data. */
        unsigned proto = (cdb[1] >> 1) & 0x0Fu;
        bool nodata = proto == 0 || proto == 1 || proto == 3 || proto == 8 || proto == 9 ||
                      proto == 15 || (cdb[2] & 0x03) == 0;
        if (nodata)
            set_xfer(out, PCAM_DIR_NONE, true, 0);
        else
            set_xfer(out, (cdb[2] & 0x08) ? PCAM_DIR_IN : PCAM_DIR_OUT, false, 0);
        break;
    }
    default:
        set_xfer(out, dir, false, 0);
        break;
    }
    if ((e->bits & B_WRUNCOR) && (fl & 0x40))
        set_xfer(out, PCAM_DIR_NONE, true, 0);
}

/* The decoder proper; `known` and `sa_named` tell the formatter whether the
 * name already identifies the opcode and the service action. */
static pcam_err decode(const uint8_t *cdb, size_t len, uint32_t block_size, pcam_cdb_info *out,
                       bool *known, bool *sa_named)
{
    memset(out, 0, sizeof *out);
    out->name = "invalid";
    out->dir = PCAM_DIR_UNKNOWN;
    *known = false;
    *sa_named = false;
    if (cdb != NULL && len > 0)
        out->opcode = cdb[0];
    pcam_err err = pcam_cdb_check(cdb, len);
    if (err != PCAM_OK)
        return err;
    out->cdb_len = (uint16_t)len;

    const cdb_op *e = find(ops, PCAM_ARRAY_SIZE(ops), cdb[0], false, 0);
    if (e == NULL) {
        out->name = "unknown";
        return PCAM_OK;
    }
    *known = true;
    if (e->bits & B_SA) {
        /* pcam_cdb_check() guarantees 0x7F CDBs reach byte 11. */
        uint16_t sa = cdb[0] == PCAM_CDB_VARLEN_OPCODE ? pcam_get_be16(cdb + 8)
                                                       : (uint16_t)(cdb[1] & 0x1Fu);
        out->has_service_action = true;
        out->service_action = sa;
        const cdb_op *s = find(sa_ops, PCAM_ARRAY_SIZE(sa_ops), cdb[0], true, sa);
        if (s != NULL) {
            e = s;
            *sa_named = true;
        }
    }
    apply(e, cdb, len, block_size, out);
#if !PCAM_CFG_CDB_NAMES
    /* No name identifies the command: the formatter prints the opcode. */
    *known = false;
    *sa_named = false;
#endif
    return PCAM_OK;
}

pcam_err pcam_cdb_decode(const uint8_t *cdb, size_t len, uint32_t block_size, pcam_cdb_info *out)
{
    bool known, sa_named;
    if (out == NULL)
        return PCAM_ERR_NULL;
    return decode(cdb, len, block_size, out, &known, &sa_named);
}

static void put_opcode(pcam_strbuf *sb, uint8_t op)
{
    pcam_sb_puts(sb, "opcode 0x");
    pcam_sb_puthex(sb, op, 2);
}

/* The error line says what the length should have been, which is what a
 * reader of a trace needs to spot a mangled CDB. */
static void put_error(pcam_strbuf *sb, pcam_err err, const uint8_t *cdb, size_t len)
{
    pcam_sb_puts(sb, "invalid CDB: ");
    pcam_sb_puts(sb, pcam_strerror(err));
    if (err == PCAM_ERR_NULL)
        return;
    pcam_sb_puts(sb, " (");
    if (len == 0) {
        pcam_sb_puts(sb, "empty CDB)");
        return;
    }
    uint8_t op = cdb[0];
    put_opcode(sb, op);
    if (err != PCAM_ERR_LENGTH) {
        pcam_sb_putc(sb, ')');
        return;
    }
    int want = pcam_cdb_len_for_opcode(op);
    if (want != 0) {
        pcam_sb_puts(sb, " needs ");
        pcam_sb_putu(sb, (uint64_t)want);
    } else if ((op >> 5) >= 6) {
        pcam_sb_puts(sb, " needs 6 to 16");
    } else if (len < 8) {
        pcam_sb_puts(sb, " needs at least 8");
    } else if (cdb[7] == 0 || (cdb[7] % 4u) != 0) {
        pcam_sb_puts(sb, " additional length ");
        pcam_sb_putu(sb, cdb[7]);
        pcam_sb_puts(sb, " is not a nonzero multiple of 4)");
        return;
    } else {
        pcam_sb_puts(sb, " needs ");
        pcam_sb_putu(sb, 8u + cdb[7]);
    }
    pcam_sb_puts(sb, " bytes, got ");
    pcam_sb_putu(sb, (uint64_t)len);
    pcam_sb_putc(sb, ')');
}

static void put_info(pcam_strbuf *sb, const pcam_cdb_info *in, bool known, bool sa_named)
{
    pcam_sb_puts(sb, in->name);
    /* Without a name, the raw identity is all a reader gets. */
    if (!known) {
        pcam_sb_puts(sb, " opcode=0x");
        pcam_sb_puthex(sb, in->opcode, 2);
    }
    if (in->has_service_action && !sa_named) {
        pcam_sb_puts(sb, " sa=0x");
        pcam_sb_puthex(sb, in->service_action, in->opcode == PCAM_CDB_VARLEN_OPCODE ? 4 : 2);
    }
    if (!known || (in->opcode == PCAM_CDB_VARLEN_OPCODE && !sa_named)) {
        pcam_sb_puts(sb, " len=");
        pcam_sb_putu(sb, in->cdb_len);
    }
    if (in->has_lba) {
        pcam_sb_puts(sb, " lba=");
        pcam_sb_putu(sb, in->lba);
    }
    if (in->has_blocks) {
        pcam_sb_puts(sb, " blocks=");
        pcam_sb_putu(sb, in->blocks);
    }
    if (in->xfer_known && in->dir != PCAM_DIR_NONE) {
        pcam_sb_puts(sb, " bytes=");
        pcam_sb_putu(sb, in->xfer_bytes);
    }
    pcam_sb_puts(sb, " dir=");
    pcam_sb_puts(sb, pcam_dir_name(in->dir));
    if (in->fua)
        pcam_sb_puts(sb, " fua");
    if (in->dpo)
        pcam_sb_puts(sb, " dpo");
    if (in->immed)
        pcam_sb_puts(sb, " immed");
}

int pcam_cdb_format(const uint8_t *cdb, size_t len, uint32_t block_size, char *buf, size_t cap)
{
    if (buf == NULL)
        return PCAM_ERR_NULL;
    pcam_strbuf sb;
    pcam_sb_init(&sb, buf, cap);
    pcam_cdb_info info;
    bool known, sa_named;
    pcam_err err = decode(cdb, len, block_size, &info, &known, &sa_named);
    if (err != PCAM_OK)
        put_error(&sb, err, cdb, len);
    else
        put_info(&sb, &info, known, sa_named);
    return sb.overflow ? PCAM_ERR_NOSPACE : (int)sb.len;
}

#endif /* PCAM_CFG_TEXT */
