/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcam's SCRIPTS program for the 53C8xx, written here as a table of
 * instructions in a small macro set, and the loader that places it in the
 * DMA area with its addresses filled in. The instruction encodings are facts
 * from the 53C8xx programming guides (the SCRIPTS instruction set); the
 * program is pcam's own and copies no other driver's script.
 *
 * Register use: DSA = the current command block; TEMP = an indirect jump
 * target (LOAD TEMP, RETURN); SCRATCHA0 = scratch; SCRATCHA1 = 0xFF;
 * SCRATCHB0 / SCRATCHB1 = the chip's start-ring and done-ring positions,
 * which the script stores into the low address byte of its own ring LOAD
 * and STORE instructions (self-modifying, so a ring step costs two
 * instructions instead of an address computation);
 * SCRATCHB2 = 1 while a selection that lost to a reselection waits at
 * A_PEND. The host never writes these while the script runs.
 *
 * Flow: IDLE takes a block address from the start ring (4-byte entries,
 * 0xFF in the low byte = empty) and selects; the message-out (IDENTIFY, tag, negotiation) and the
 * CDB go out by table-indirect moves; DISPATCH follows the target's phases;
 * the data chain is PCAM_SYM_MAX_SG table-indirect moves entered at the
 * element the command needs; COMMAND COMPLETE writes the slot number into
 * the done ring and raises an interrupt-on-the-fly; a tagged reselection
 * turns the tag (= slot) back into the block address and checks the target.
 * This file must never grow host-side policy: the script stops with INT for
 * everything it cannot decide (sym_intr.c).
 */
#include "sym_internal.h"

/* How the loader completes an entry. */
enum { K_PLAIN, K_DEF, K_LABEL, K_DATA, K_IMM, K_CHAIN, K_PATCH };
/* Areas whose address bytes K_IMM puts into a register-move's data field. */
enum { AR_BLOCKS = 0, AR_SQ = 1, AR_DQ = 2 };

typedef struct sym_insn {
    uint32_t op;
    uint32_t arg;
    uint8_t kind;
} sym_insn;

/* Phases (MSG, C/D, I/O as bits 26..24 of a move or a jump). */
#define PH_DOUT 0u
#define PH_DIN 1u
#define PH_CMD 2u
#define PH_ST 3u
#define PH_MOUT 6u
#define PH_MIN 7u

/* ---- the macro set ---- */
#define LABEL(l) {0u, (l), K_DEF}
/* Block moves: table indirect (count and address at DSA + off) or absolute. */
#define MOVE_TBL(ph, off) {0x18000000u | ((ph) << 24), (off), K_PLAIN}
#define MOVE_ABS(ph, n, a) {0x08000000u | ((ph) << 24) | (n), (a), K_DATA}
/* The data chain: PCAM_SYM_MAX_SG table moves over the B_SG entries. */
#define CHAIN(ph) {0x18000000u | ((ph) << 24), B_SG, K_CHAIN}
/* I/O: SELECT with ATN from the table at DSA + off, else (reselected) jump to l. */
#define SELECT_ATN_TBL(off, l) {0x43000000u | (off), (l), K_LABEL}
#define WAIT_DISC {0x48000000u, 0u, K_PLAIN}
#define WAIT_RESEL(l) {0x50000000u, (l), K_LABEL}
#define SET_ATN {0x58000008u, 0u, K_PLAIN}
#define CLR_ACK {0x60000040u, 0u, K_PLAIN}
/* Register moves (operator OR 0 copies; QEMU and the chips agree on that form). */
#define TO_SFBR(r) {0x72000000u | ((uint32_t)(r) << 16), 0u, K_PLAIN}
#define TO_SFBR_AND(r, d) {0x74000000u | ((uint32_t)(r) << 16) | ((uint32_t)(d) << 8), 0u, K_PLAIN}
#define FROM_SFBR(r) {0x6A000000u | ((uint32_t)(r) << 16), 0u, K_PLAIN}
#define FROM_SFBR_ADD_AREA(r, ar, b) {0x6E000000u | ((uint32_t)(r) << 16), ((ar) << 8) | (b), K_IMM}
#define REG_IMM(r, d) {0x78000000u | ((uint32_t)(r) << 16) | ((uint32_t)(d) << 8), 0u, K_PLAIN}
#define REG_IMM_AREA(r, ar, b) {0x78000000u | ((uint32_t)(r) << 16), ((ar) << 8) | (b), K_IMM}
#define REG_ADD(r, d) {0x7E000000u | ((uint32_t)(r) << 16) | ((uint32_t)(d) << 8), 0u, K_PLAIN}
#define REG_ADC(r, d) {0x7F000000u | ((uint32_t)(r) << 16) | ((uint32_t)(d) << 8), 0u, K_PLAIN}
#define REG_XOR_SFBR(r) {0x7B800000u | ((uint32_t)(r) << 16), 0u, K_PLAIN}
/* Transfer control. WHEN waits for REQ in the new phase; IF does not. */
#define JUMP(l) {0x80080000u, (l), K_LABEL}
#define JUMP_WHEN(ph, l) {0x800B0000u | ((ph) << 24), (l), K_LABEL}
#define JUMP_IF_PH(ph, l) {0x800A0000u | ((ph) << 24), (l), K_LABEL}
#define JUMP_WHEN_NOT(ph, l) {0x80030000u | ((ph) << 24), (l), K_LABEL}
#define JUMP_IF(d, l) {0x800C0000u | (d), (l), K_LABEL}
#define JUMP_IF_NOT(d, l) {0x80040000u | (d), (l), K_LABEL}
/* Jump unless (SFBR & ~mask) == d: the mask bits are not compared. */
#define JUMP_IF_NOT_MASKED(d, m, l) {0x80040000u | ((uint32_t)(m) << 8) | (d), (l), K_LABEL}
#define RETURN {0x90080000u, 0u, K_PLAIN}
#define INT(code) {0x98080000u, (code), K_PLAIN}
#define INTFLY(code) {0x98180000u, (code), K_PLAIN}
/* LOAD / STORE n bytes of register r: DSA-relative or absolute (in the DMA area). */
#define LOAD_REL(r, n, off) {0xF1000000u | ((uint32_t)(r) << 16) | (n), (off), K_PLAIN}
#define STORE_REL(r, n, off) {0xF0000000u | ((uint32_t)(r) << 16) | (n), (off), K_PLAIN}
#define LOAD_ABS(r, n, a) {0xE1000000u | ((uint32_t)(r) << 16) | (n), (a), K_DATA}
#define STORE_ABS(r, n, a) {0xE0000000u | ((uint32_t)(r) << 16) | (n), (a), K_DATA}
/* STORE register r (1 byte) into the low address byte of the instruction at label l:
 * the ring instructions below are 256-aligned rings indexed by a SCRATCHB byte. */
#define PATCH(r, l) {0xE0000000u | ((uint32_t)(r) << 16) | 1u, (l), K_PATCH}

#define SA0 R_SCRATCHA
#define SA1 (R_SCRATCHA + 1)
#define SB0 R_SCRATCHB
#define SB1 (R_SCRATCHB + 1)
#define SB2 (R_SCRATCHB + 2)
#define DSA0 R_DSA
#define DSA1 (R_DSA + 1)
#define DSA2 (R_DSA + 2)
#define DSA3 (R_DSA + 3)

/* DSA = blocks + SFBR * 256 (the blocks are 256-aligned: byte 0 is 0). */
#define SLOT_TO_DSA                                                                       \
    FROM_SFBR_ADD_AREA(DSA1, AR_BLOCKS, 1), REG_IMM(DSA0, 0), REG_IMM_AREA(DSA2, AR_BLOCKS, 2), \
        REG_ADC(DSA2, 0), REG_IMM_AREA(DSA3, AR_BLOCKS, 3), REG_ADC(DSA3, 0)

static const sym_insn sym_prog[] = {
    /* After a reset: one interrupt so the host reports it from poll. */
    LABEL(L_KICK),
    INTFLY(SIR_DONE),
    LABEL(L_INIT),
    REG_IMM(SA1, 0xFF), REG_IMM(SB0, 0), REG_IMM(SB1, 0), REG_IMM(SB2, 0),

    /* Take the next slot from the start ring; the CTEST2 read clears SIGP
     * first, so a signal that comes after this look is not lost. */
    LABEL(L_IDLE),
    TO_SFBR(R_CTEST2),
    TO_SFBR(SB2),
    JUMP_IF(0x01, L_RETRY),
    PATCH(SB0, L_SQ_LOAD),
    PATCH(SB0, L_SQ_CLR),
    LABEL(L_SQ_LOAD),
    LOAD_ABS(DSA0, 4, A_SQ),
    TO_SFBR(DSA0),
    JUMP_IF(0xFF, L_WAIT),
    LABEL(L_SQ_CLR),
    STORE_ABS(SA1, 1, A_SQ),
    REG_ADD(SB0, 4),
    LABEL(L_SELECT),
    SELECT_ATN_TBL(B_SEL, L_SEL_LOST),
    MOVE_TBL(PH_MOUT, B_T_MSGOUT),
    LOAD_REL(R_TEMP, 4, B_AFTER_MO),
    RETURN,

    LABEL(L_CMD),
    MOVE_TBL(PH_CMD, B_T_CMD),
    JUMP_WHEN(PH_MIN, L_MSGIN), /* a disk that disconnects before its data */
    LABEL(L_DISPATCH),
    JUMP_WHEN(PH_DIN, L_DIN_GO),
    JUMP_IF_PH(PH_DOUT, L_DOUT_GO),
    JUMP_IF_PH(PH_ST, L_STATUS),
    JUMP_IF_PH(PH_MIN, L_MSGIN),
    JUMP_IF_PH(PH_MOUT, L_MSGOUT_NOP),
    JUMP_IF_PH(PH_CMD, L_CMD), /* after a negotiation in the selection's MESSAGE OUT */
    LABEL(L_BAD_PHASE),
    INT(SIR_BAD_PHASE),

    /* Nothing to do: wait for a reselection or the host's SIGP. */
    LABEL(L_WAIT),
    WAIT_RESEL(L_IDLE),
    JUMP(L_RESEL),

    LABEL(L_RETRY),
    REG_IMM(SB2, 0),
    LOAD_ABS(DSA0, 4, A_PEND),
    JUMP(L_SELECT),

    LABEL(L_SEL_LOST),
    STORE_ABS(DSA0, 4, A_PEND),
    REG_IMM(SB2, 1),
    JUMP(L_RESEL),

    /* A negotiation went out with the selection: an answer comes as MESSAGE IN. */
    LABEL(L_NEGO_CHECK),
    JUMP_WHEN(PH_MIN, L_MSGIN),
    INT(SIR_NEGO_NOANSWER),

    /* ABORT TASK / TARGET RESET: the target goes bus free. */
    LABEL(L_MGMT),
    JUMP_IF_PH(PH_MIN, L_MGMT_REJ),
    WAIT_DISC,
    INT(SIR_MGMT_DONE),
    LABEL(L_MGMT_REJ), /* MESSAGE REJECT: take it, let the target go */
    MOVE_TBL(PH_MIN, B_T_MSGIN),
    CLR_ACK,
    WAIT_DISC,
    INT(SIR_MGMT_REJECTED),

    LABEL(L_DIN_GO),
    LOAD_REL(R_TEMP, 4, B_IN),
    RETURN,
    LABEL(L_DOUT_GO),
    LOAD_REL(R_TEMP, 4, B_OUT),
    RETURN,

    LABEL(L_CHAIN_IN),
    CHAIN(PH_DIN),
    LABEL(L_CHAIN_IN_END),
    LOAD_ABS(R_TEMP, 4, A_OVR_IN),
    STORE_REL(R_TEMP, 4, B_IN),
    JUMP_WHEN(PH_ST, L_STATUS),
    JUMP(L_DISPATCH), /* e.g. SAVE DATA POINTER + DISCONNECT before the status */

    LABEL(L_CHAIN_OUT),
    CHAIN(PH_DOUT),
    LABEL(L_CHAIN_OUT_END),
    LOAD_ABS(R_TEMP, 4, A_OVR_OUT),
    STORE_REL(R_TEMP, 4, B_OUT),
    JUMP_WHEN(PH_ST, L_STATUS),
    JUMP(L_DISPATCH),

    /* More data than the command asked for: take it (or send zeros), flag it. */
    LABEL(L_OVR_IN),
    MOVE_ABS(PH_DIN, 1, A_BUCKET),
    REG_IMM(SA0, 1),
    STORE_REL(SA0, 1, B_OVR),
    JUMP_WHEN(PH_DIN, L_OVR_IN),
    JUMP(L_DISPATCH),
    LABEL(L_OVR_OUT),
    MOVE_ABS(PH_DOUT, 1, A_BUCKET),
    REG_IMM(SA0, 1),
    STORE_REL(SA0, 1, B_OVR),
    JUMP_WHEN(PH_DOUT, L_OVR_OUT),
    JUMP(L_DISPATCH),

    LABEL(L_STATUS),
    MOVE_TBL(PH_ST, B_T_STATUS),
    LABEL(L_MSGIN),
    MOVE_TBL(PH_MIN, B_T_MSGIN),
    JUMP_IF(0x00, L_CC),
    JUMP_IF(0x04, L_DISC),
    JUMP_IF(0x02, L_SDP),
    JUMP_IF(0x01, L_EXT),
    JUMP_IF(0x07, L_REJ),
    JUMP_IF(0x23, L_IWR),
    JUMP_IF(0x03, L_RESTORE),
    INT(SIR_MSGIN_OTHER),

    /* COMMAND COMPLETE: slot number into the done ring, interrupt on the fly. */
    LABEL(L_CC),
    CLR_ACK,
    WAIT_DISC,
    PATCH(SB1, L_DQ_PUT),
    LOAD_REL(SA0, 1, B_SLOT),
    LABEL(L_DQ_PUT),
    STORE_ABS(SA0, 1, A_DQ),
    REG_ADD(SB1, 1),
    INTFLY(SIR_DONE),
    JUMP(L_IDLE),

    /* The current pointers are the saved ones (see sym_intr.c on RESTORE POINTERS). */
    LABEL(L_SDP),
    CLR_ACK,
    JUMP_WHEN(PH_MIN, L_MSGIN),
    JUMP(L_DISPATCH),

    LABEL(L_DISC),
    CLR_ACK,
    WAIT_DISC,
    JUMP(L_IDLE),

    /* Extended message: length byte, then at most 7 more, then the host decides. */
    LABEL(L_EXT),
    CLR_ACK,
    MOVE_TBL(PH_MIN, B_T_EXTLEN),
    JUMP_IF(0x00, L_EXT_BAD),
    JUMP_IF_NOT_MASKED(0x00, 0x07, L_EXT_BAD),
    FROM_SFBR(SA0),
    STORE_REL(SA0, 1, B_T_EXTBODY),
    CLR_ACK,
    MOVE_TBL(PH_MIN, B_T_EXTBODY),
    INT(SIR_EXT),
    LABEL(L_EXT_BAD),
    INT(SIR_EXT_BAD),

    LABEL(L_IWR),
    CLR_ACK,
    MOVE_TBL(PH_MIN, B_T_EXTLEN),
    INT(SIR_IWR),

    LABEL(L_REJ),
    INT(SIR_REJECT),
    LABEL(L_RESTORE),
    INT(SIR_RESTORE),

    /* The host restarts here after deciding a message. */
    LABEL(L_ACK_GO),
    CLR_ACK,
    JUMP(L_DISPATCH),
    LABEL(L_REPLY),
    SET_ATN,
    CLR_ACK,
    MOVE_TBL(PH_MOUT, B_T_MSGOUT),
    JUMP(L_DISPATCH),
    LABEL(L_REPLY_ABORT),
    SET_ATN,
    CLR_ACK,
    MOVE_TBL(PH_MOUT, B_T_MSGOUT),
    WAIT_DISC,
    INT(SIR_ABORTED),

    /* The target wants a message we do not have: NO OPERATION. */
    LABEL(L_MSGOUT_NOP),
    MOVE_ABS(PH_MOUT, 1, A_NOP),
    JUMP(L_DISPATCH),

    /* Reselected: IDENTIFY, then SIMPLE/ORDERED/HEAD OF QUEUE + tag = our slot. */
    LABEL(L_RESEL),
    MOVE_ABS(PH_MIN, 1, A_RESEL),
    CLR_ACK,
    JUMP_WHEN_NOT(PH_MIN, L_RESEL_UNTAGGED),
    MOVE_ABS(PH_MIN, 2, A_RESEL + 1),
    CLR_ACK,
    LOAD_ABS(SA0, 1, A_RESEL + 2),
    TO_SFBR(SA0),
    JUMP_IF_NOT_MASKED(0x00, 0x3F, L_RESEL_BAD),
    SLOT_TO_DSA,
    TO_SFBR_AND(R_SSID, 0x8F),
    LOAD_REL(SA0, 1, B_TGT),
    REG_XOR_SFBR(SA0),
    TO_SFBR(SA0),
    JUMP_IF_NOT(0x00, L_RESEL_BAD),
    LOAD_REL(R_SCNTL3, 1, B_SEL + 3),
    LOAD_REL(R_SXFER, 1, B_SEL + 1),
    JUMP(L_DISPATCH),
    LABEL(L_RESEL_UNTAGGED),
    INT(SIR_RESEL_UNTAGGED),
    LABEL(L_RESEL_BAD),
    INT(SIR_RESEL_BAD),
    LABEL(L_END)
};

static uint32_t area_base(const sym_sc *s, uint32_t ar)
{
    if (ar == AR_SQ)
        return s->dma_bus + A_SQ;
    if (ar == AR_DQ)
        return s->dma_bus + A_DQ;
    return s->dma_bus + A_BLOCKS;
}

/* Two passes: the first places the labels, the second writes the words. */
int sym_script_build(sym_sc *s)
{
    uint8_t *out = s->dma + A_SCRIPT;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t pos = 0; /* bytes from A_SCRIPT */
        for (size_t i = 0; i < PCAM_ARRAY_SIZE(sym_prog); i++) {
            const sym_insn *in = &sym_prog[i];
            uint32_t op = in->op, arg = in->arg;
            if (in->kind == K_DEF) {
                if (pass == 0)
                    s->lbl[arg] = s->dma_bus + A_SCRIPT + pos;
                continue;
            }
            unsigned reps = in->kind == K_CHAIN ? PCAM_SYM_MAX_SG : 1u;
            for (unsigned k = 0; k < reps; k++) {
                if (A_SCRIPT + pos + 8u > A_SCRIPT_MAX)
                    return PCAM_ERR_NOSPACE;
                if (pass == 1) {
                    uint32_t w0 = op, w1 = arg;
                    switch (in->kind) {
                    case K_LABEL:
                        w1 = s->lbl[arg];
                        break;
                    case K_DATA:
                        w1 = s->dma_bus + arg;
                        break;
                    case K_IMM:
                        w0 |= ((area_base(s, arg >> 8) >> (8u * (arg & 3u))) & 0xFFu) << 8;
                        w1 = 0;
                        break;
                    case K_CHAIN:
                        w1 = arg + 8u * k;
                        break;
                    case K_PATCH:
                        w1 = s->lbl[arg] + 4u; /* the address word, low byte first */
                        break;
                    default:
                        break;
                    }
                    pcam_put_le32(out + pos, w0);
                    pcam_put_le32(out + pos + 4, w1);
                }
                pos += 8;
            }
        }
        s->script_words = pos / 4u;
    }
    return PCAM_OK;
}
