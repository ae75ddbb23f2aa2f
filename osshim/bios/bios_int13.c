/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bios_int13.c: the INT 13h services for pcam's disks: reset, status,
 * CHS read/write/verify, parameters, disk type, and the EDD 3.0
 * extensions 41h-48h with 64-bit LBAs. Every SCSI result becomes one AH
 * code through `ah_of` (the shim's one status table). Data moves by DMA
 * straight into the caller's buffer: it is checked first to lie below
 * 4 GiB and, for a segment:offset buffer, inside its segment, so a
 * request can never write outside the buffer it names.
 *
 * It must never hang on a bad request (every command is bounded by the
 * core's timeouts) nor serve a drive number that is not its own (rom16.S
 * passes those on).
 */
#include "bios.h"

#include "pcam/pcam_cdb.h"
#include "pcam/pcam_sense.h"

/* The register frame rom16.S's INT 13h entry pushed. */
typedef struct __attribute__((packed)) frame {
    uint16_t es, ds;
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;
    uint16_t ip, cs, flags;
} frame;

#define AH_OK 0x00
#define AH_BAD_CMD 0x01       /* bad command or parameter */
#define AH_NOT_FOUND 0x04     /* sector not found (past the end) */
#define AH_BOUNDARY 0x09      /* data would cross the segment's end */
#define AH_CHANGED 0x06       /* media changed */
#define AH_WPROT 0x03         /* write protected */
#define AH_ECC 0x10           /* uncorrectable data error */
#define AH_CONTROLLER 0x20    /* controller failure */
#define AH_TIMEOUT 0x80       /* drive did not respond */
#define AH_NOT_READY 0xAA
#define AH_UNDEFINED 0xBB
#define AH_WRITE_FAULT 0xCC

static uint8_t last_status[BIOS_MAX_DISKS];
static uint32_t served[2]; /* sectors read, written: the boot test reads them */

/* The status table: CAM status and sense key to AH. */
static uint8_t ah_of(uint32_t st, bool sense_ok, const uint8_t *sense, bool write)
{
    static const uint8_t by_key[16] = {
        [PCAM_SK_NO_SENSE] = AH_UNDEFINED,     [PCAM_SK_RECOVERED_ERROR] = AH_OK,
        [PCAM_SK_NOT_READY] = AH_NOT_READY,    [PCAM_SK_MEDIUM_ERROR] = AH_ECC,
        [PCAM_SK_HARDWARE_ERROR] = AH_CONTROLLER, [PCAM_SK_ILLEGAL_REQUEST] = AH_BAD_CMD,
        [PCAM_SK_UNIT_ATTENTION] = AH_CHANGED, [PCAM_SK_DATA_PROTECT] = AH_WPROT,
        [8] = AH_UNDEFINED, [9] = AH_UNDEFINED, [10] = AH_UNDEFINED,
        [PCAM_SK_ABORTED_COMMAND] = AH_UNDEFINED, [12] = AH_UNDEFINED, [13] = AH_UNDEFINED,
        [14] = AH_UNDEFINED, [15] = AH_UNDEFINED,
    };
    switch (st) {
    case PCAM_REQ_CMP:
        return AH_OK;
    case PCAM_SEL_TIMEOUT:
    case PCAM_CMD_TIMEOUT:
        return AH_TIMEOUT;
    case PCAM_SCSI_STATUS_ERROR:
        if (!sense_ok)
            return AH_UNDEFINED;
        pcam_sense s;
        if (pcam_sense_decode(sense, 18, &s) != PCAM_OK || !s.key_valid)
            return AH_UNDEFINED;
        if (s.key == PCAM_SK_ILLEGAL_REQUEST && s.asc == 0x21)
            return AH_NOT_FOUND; /* LBA out of range */
        if (s.key == PCAM_SK_MEDIUM_ERROR && write)
            return AH_WRITE_FAULT;
        return by_key[s.key & 15];
    default:
        return AH_CONTROLLER;
    }
}

/* READ/WRITE/VERIFY of `count` blocks at `lba` to or from linear `buf`. */
static uint8_t rw(const bios_disk *d, int op, uint64_t lba, uint32_t count, uint32_t buf)
{
    uint8_t cdb[16], sense[18];
    bool sense_ok, big = lba + count > 0xFFFFFFFFu;

    if (count == 0)
        return AH_OK;
    if (lba >= d->blocks || count > d->blocks - lba)
        return AH_NOT_FOUND;
    if (op != 2 && (uint64_t)buf + count * 512u > 0x100000000ull)
        return AH_BAD_CMD;
    int n = op == 0   ? pcam_cdb_read(cdb, sizeof cdb, big ? 16 : 10, lba, count, 0)
            : op == 1 ? pcam_cdb_write(cdb, sizeof cdb, big ? 16 : 10, lba, count, 0)
                      : pcam_cdb_verify(cdb, sizeof cdb, big ? 16 : 10, lba, count, 0);
    if (n < 0)
        return AH_BAD_CMD;
#ifdef BIOS_TRACE
    fw_printf("pcam bios: op %d lba %u count %u buf 0x%x\n", op, (unsigned)lba, (unsigned)count,
              (unsigned)buf);
#endif
    uint32_t st = bios_scsi(d->target, d->lun, cdb, (uint8_t)n,
                            op == 2 ? PCAM_DIR_NONE : op == 1 ? PCAM_DIR_OUT : PCAM_DIR_IN,
                            op == 2 ? NULL : bios_ptr(buf), op == 2 ? 0 : count * 512u, sense,
                            &sense_ok);
    if (st == PCAM_REQ_CMP && op < 2) {
        /* A line per 4 MiB read: the boot tests see pcam serving a
         * boot loader that never asks for the counters. */
        if (op == 0 && (served[0] + count) / 8192u != served[0] / 8192u)
            fw_printf("pcam bios: drive %02xh: %u sectors read\n", bios_shared[SH_DRIVES + d->index],
                      (unsigned)(served[0] + count));
        served[op] += count;
    }
    return ah_of(st, sense_ok, sense, op == 1);
}

/* A segment:offset buffer of n bytes: its linear address, or 0 when it
 * would run past its segment (AH 09h, as a DMA boundary). */
static bool seg_buf(uint16_t seg, uint16_t off, uint32_t n, uint32_t *lin)
{
    if ((uint32_t)off + n > 0x10000u)
        return false;
    *lin = (uint32_t)seg * 16u + off;
    return true;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* EDD 42h-44h: the disk address packet at DS:SI. */
static uint8_t edd_rw(const bios_disk *d, frame *f, int op)
{
    uint32_t plin = (uint32_t)f->ds * 16u + (uint16_t)f->esi;
    const uint8_t *p = bios_ptr(plin);
    uint8_t size = p[0];
    uint32_t count = (uint32_t)p[2] | (uint32_t)p[3] << 8;
    uint16_t off = (uint16_t)get32(p + 4), seg = (uint16_t)(get32(p + 4) >> 16);
    uint64_t lba = get32(p + 8) | (uint64_t)get32(p + 12) << 32;
    uint32_t buf;

    if (size < 0x10 || count > 127)
        return AH_BAD_CMD;
    if (seg == 0xFFFF && off == 0xFFFF) {
        /* The 64-bit flat address that follows (EDD 3.0), which must fit below 4 GiB. */
        if (size < 0x18 || get32(p + 0x14) != 0)
            return AH_BAD_CMD;
        buf = get32(p + 0x10);
    } else if (!seg_buf(seg, off, count * 512u, &buf)) {
        return AH_BOUNDARY;
    }
    return rw(d, op, lba, count, buf);
}

/* EDD 48h: drive parameters into the buffer at DS:SI. */
static uint8_t edd_params(const bios_disk *d, frame *f)
{
    uint8_t *p = bios_ptr((uint32_t)f->ds * 16u + (uint16_t)f->esi);
    uint16_t size = (uint16_t)(p[0] | p[1] << 8);

    if (size < 0x1A)
        return AH_BAD_CMD;
    memset(p + 2, 0, 0x1A - 2);
    put16(p, 0x1A);
    put16(p + 2, 0x0002); /* the CHS fields below are valid */
    put32(p + 4, d->cyls);
    put32(p + 8, d->heads);
    put32(p + 12, d->spt);
    put32(p + 16, (uint32_t)d->blocks);
    put32(p + 20, (uint32_t)(d->blocks >> 32));
    put16(p + 24, 512);
    return AH_OK;
}

static void set_ah(frame *f, uint8_t ah)
{
    f->eax = (f->eax & 0xFFFF00FFu) | (uint32_t)ah << 8;
}

void bios_int13(uint32_t flin)
{
    frame *f = bios_ptr(flin);
    uint8_t ah = (uint8_t)(f->eax >> 8), al = (uint8_t)f->eax, dl = (uint8_t)f->edx;
    unsigned i;
    uint8_t st = AH_OK;

    for (i = 0; i < bios_ndisks; i++)
        if (bios_shared[SH_DRIVES + i] == dl)
            break;
    if (i == bios_ndisks) { /* rom16.S only passes ours; be safe anyway */
        set_ah(f, AH_BAD_CMD);
        f->flags |= 1;
        return;
    }
    const bios_disk *d = &bios_disks[i];
    switch (ah) {
    case 0x00: /* reset */
    case 0x0D:
    case 0x10: /* test ready */
    case 0x11: /* recalibrate */
    case 0x0C: /* seek */
    case 0x47: /* EDD seek */
        break;
    case 0x01: /* status of the last operation */
        st = last_status[i];
        set_ah(f, st);
        f->flags = (uint16_t)((f->flags & ~1u) | (st != 0));
        return;
    case 0x02: /* CHS read, write, verify */
    case 0x03:
    case 0x04: {
        uint16_t cx = (uint16_t)f->ecx;
        uint32_t cyl = (uint32_t)(cx >> 8) | (uint32_t)(cx & 0xC0u) << 2;
        uint32_t sec = cx & 0x3Fu, head = (uint8_t)(f->edx >> 8), lin = 0;
        if (sec == 0 || sec > d->spt || head >= d->heads || cyl >= d->cyls || al == 0) {
            st = AH_BAD_CMD;
            break;
        }
        uint64_t lba = ((uint64_t)cyl * d->heads + head) * d->spt + sec - 1;
        if (ah != 0x04 && !seg_buf(f->es, (uint16_t)f->ebx, al * 512u, &lin)) {
            st = AH_BOUNDARY;
            break;
        }
        st = rw(d, ah - 0x02, lba, al, lin);
        if (st != AH_OK)
            f->eax &= 0xFFFFFF00u; /* no sectors transferred */
        break;
    }
    case 0x08: { /* parameters */
        uint32_t c = d->cyls - 1;
        f->ecx = (f->ecx & 0xFFFF0000u) | (c & 0xFFu) << 8 | (c >> 2 & 0xC0u) | d->spt;
        f->edx = (f->edx & 0xFFFF0000u) | (d->heads - 1) << 8 | *(uint8_t *)bios_ptr(0x475);
        f->eax &= 0xFFFF0000u;
        f->ebx &= 0xFFFF0000u;
        break;
    }
    case 0x15: { /* disk type: a hard disk and its sector count */
        uint32_t n = d->blocks > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)d->blocks;
        f->ecx = (f->ecx & 0xFFFF0000u) | n >> 16;
        f->edx = (f->edx & 0xFFFF0000u) | (n & 0xFFFFu);
        set_ah(f, 0x03);
        f->flags &= (uint16_t)~1u;
        last_status[i] = AH_OK;
        return;
    }
    case 0x41: /* EDD installation check */
        if ((uint16_t)f->ebx != 0x55AA) {
            st = AH_BAD_CMD;
            break;
        }
        f->ebx = (f->ebx & 0xFFFF0000u) | 0xAA55u;
        f->ecx = (f->ecx & 0xFFFF0000u) | 0x0005u; /* fixed-disk access, EDD 48h */
        set_ah(f, 0x30);                            /* EDD 3.0 */
        f->flags &= (uint16_t)~1u;
        return;
    case 0x42:
        st = edd_rw(d, f, 0);
        break;
    case 0x43:
        st = edd_rw(d, f, 1); /* AL 0-2: written the same way */
        break;
    case 0x44:
        st = edd_rw(d, f, 2);
        break;
    case 0x48:
        st = edd_params(d, f);
        break;
    case 0xFE: /* pcam's own: BX 'pc' -> 'PC', CX:DX sectors read, SI written */
        if ((uint16_t)f->ebx != 0x7063) {
            st = AH_BAD_CMD;
            break;
        }
        f->ebx = (f->ebx & 0xFFFF0000u) | 0x5043u;
        f->ecx = (f->ecx & 0xFFFF0000u) | served[0] >> 16;
        f->edx = (f->edx & 0xFFFF0000u) | (served[0] & 0xFFFFu);
        f->esi = (f->esi & 0xFFFF0000u) | (served[1] & 0xFFFFu);
        fw_printf("pcam bios: counters: %u sectors read, %u written\n", (unsigned)served[0],
                  (unsigned)served[1]);
        break;
    default:
        st = AH_BAD_CMD;
        break;
    }
    if (st != AH_OK)
        fw_printf("pcam bios: INT 13h function %02xh, drive %02xh: status %02xh\n", ah, dl, st);
    last_status[i] = st;
    set_ah(f, st);
    f->flags = (uint16_t)((f->flags & ~1u) | (st != AH_OK));
}
