/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Device subcommands: devlist, inquiry, readcap, tur.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_inquiry.h"

int ctl_capacity(ctl *c, uint8_t target, uint8_t lun, uint64_t *blocks, uint32_t *block_size)
{
    uint8_t cdb[16], data[PCAM_READ_CAPACITY16_LEN];
    pcam_capacity cap;
    ctl_io io;
    int n = pcam_cdb_read_capacity10(cdb, sizeof cdb);
    ctl_io_init(&io, target, lun, cdb, n, PCAM_DIR_IN, data, PCAM_READ_CAPACITY10_LEN);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "READ CAPACITY(10)", &io);
    if (pcam_read_capacity10_parse(data, PCAM_READ_CAPACITY10_LEN - io.ccb.u.io.resid, &cap) != PCAM_OK)
        return ctl_err(c, CTL_EFAIL, "READ CAPACITY(10) returned short data");
    if (cap.use_rc16) {
        /* Past 2^32 blocks READ CAPACITY(10) answers FFFFFFFFh (SBC). */
        n = pcam_cdb_read_capacity16(cdb, sizeof cdb, PCAM_READ_CAPACITY16_LEN);
        ctl_io_init(&io, target, lun, cdb, n, PCAM_DIR_IN, data, PCAM_READ_CAPACITY16_LEN);
        if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
            return ctl_io_fail(c, "READ CAPACITY(16)", &io);
        if (pcam_read_capacity16_parse(data, PCAM_READ_CAPACITY16_LEN - io.ccb.u.io.resid, &cap) != PCAM_OK)
            return ctl_err(c, CTL_EFAIL, "READ CAPACITY(16) returned short data");
    }
    if (cap.zero_block_length)
        return ctl_err(c, CTL_EFAIL, "the device reports a block length of 0");
    *blocks = cap.last_lba + 1;
    *block_size = cap.block_length;
    return 0;
}

/* "64 MiB", "1.5 GiB". */
static void fmt_size(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    uint64_t whole = bytes, frac = 0;
    while (whole >= 1024 && u < 4) {
        frac = whole % 1024;
        whole /= 1024;
        u++;
    }
    if (frac == 0 || u == 0)
        snprintf(buf, cap, "%llu %s", (unsigned long long)whole, unit[u]);
    else
        snprintf(buf, cap, "%llu.%llu %s", (unsigned long long)whole,
                 (unsigned long long)(frac * 10 / 1024), unit[u]);
}

static int get_tran(ctl *c, uint8_t target, pcam_tran_type type, pcam_xfer_settings *out)
{
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_GET_TRAN;
    ccb.target = target;
    ccb.u.tran.type = type;
    if (ctl_sync(c, &ccb, 1000) != PCAM_REQ_CMP)
        return -1;
    *out = ccb.u.tran.settings;
    return 0;
}

int cmd_devlist(ctl *c, int argc, char **argv)
{
    bool lng = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "--long") == 0)
            lng = true;
        else
            return ctl_err(c, CTL_EUSAGE, "devlist: unknown argument '%s'", argv[i]);
    }
    int rc = ctl_open(c);
    if (rc != 0)
        return rc;
    pcam_ccb pi;
    memset(&pi, 0, sizeof pi);
    pi.func = PCAM_FN_PATH_INQ;
    if (ctl_sync(c, &pi, 1000) != PCAM_REQ_CMP)
        return ctl_err(c, CTL_EFAIL, "path inquiry failed");
    if (c->json) {
        j_obj(NULL);
        j_obj("bus");
        j_str("backend", c->be->name);
        j_str("chip", pi.u.pathinq.chip_name);
        j_u64("initiator_id", pi.u.pathinq.initiator_id);
        j_u64("max_target", pi.u.pathinq.max_target);
        j_end_obj();
        j_arr("devices");
    } else {
        printf("bus 0: %s (%s back-end), initiator ID %u, targets 0..%u\n", pi.u.pathinq.chip_name,
               c->be->name, pi.u.pathinq.initiator_id, pi.u.pathinq.max_target);
        printf("%-7s %-6s %-8s %-16s %-4s%s\n", "ID:LUN", "TYPE", "VENDOR", "PRODUCT", "REV",
               lng ? "  CAPACITY                   TRANSFER" : "");
    }
    unsigned found = 0;
    for (unsigned t = 0; t <= pi.u.pathinq.max_target; t++) {
        if (t == pi.u.pathinq.initiator_id)
            continue;
        for (unsigned l = 0; l < c->bcfg.luns_per_target; l++) {
            pcam_ccb ccb;
            pcam_inquiry inq;
            memset(&ccb, 0, sizeof ccb);
            ccb.func = PCAM_FN_GET_DEV;
            ccb.target = (uint8_t)t;
            ccb.lun = (uint8_t)l;
            if (ctl_sync(c, &ccb, 1000) != PCAM_REQ_CMP || !ccb.u.dev.present)
                continue;
            found++;
            memset(&inq, 0, sizeof inq);
            (void)pcam_inquiry_parse(ccb.u.dev.inquiry, ccb.u.dev.inquiry_len, &inq);
            uint64_t blocks = 0;
            uint32_t bs = 0;
            bool have_cap = false;
            pcam_xfer_settings cur;
            memset(&cur, 0, sizeof cur);
            if (lng) {
                /* A CD without a medium fails READ CAPACITY: show that, not an error. */
                c->quiet = true;
                have_cap = ctl_capacity(c, (uint8_t)t, (uint8_t)l, &blocks, &bs) == 0;
                c->quiet = false;
                (void)get_tran(c, (uint8_t)t, PCAM_TRAN_CURRENT, &cur);
            }
            char size[32], xfer[96];
            if (have_cap)
                fmt_size(blocks * bs, size, sizeof size);
            else
                snprintf(size, sizeof size, "%s", ccb.u.dev.type == PCAM_TYPE_CDROM ? "no medium" : "unknown");
            ctl_fmt_xfer(&cur, xfer, sizeof xfer);
            if (c->json) {
                j_obj(NULL);
                j_u64("target", t);
                j_u64("lun", l);
                j_u64("type", ccb.u.dev.type);
                j_str("type_name", pcam_device_type_name(ccb.u.dev.type));
                j_str("vendor", inq.vendor);
                j_str("product", inq.product);
                j_str("revision", inq.revision);
                if (lng) {
                    if (have_cap) {
                        j_u64("blocks", blocks);
                        j_u64("block_size", bs);
                        j_u64("bytes", blocks * bs);
                    }
                    j_str("transfer", xfer);
                }
                j_end_obj();
            } else {
                char idl[16];
                snprintf(idl, sizeof idl, "%u:%u", t, l);
                printf("%-7s %-6s %-8s %-16s %-4s", idl,
                       ccb.u.dev.type == PCAM_TYPE_DISK    ? "disk"
                       : ccb.u.dev.type == PCAM_TYPE_CDROM ? "cd"
                                                           : "other",
                       inq.vendor, inq.product, inq.revision);
                if (lng) {
                    char capt[64];
                    if (have_cap)
                        snprintf(capt, sizeof capt, "%s (%llu x %u)", size, (unsigned long long)blocks, bs);
                    else
                        snprintf(capt, sizeof capt, "%s", size);
                    printf("  %-26s %s", capt, xfer);
                }
                putchar('\n');
            }
        }
    }
    if (c->json) {
        j_end_arr();
        j_u64("count", found);
        j_end_obj();
        j_done();
    } else {
        printf("%u device%s\n", found, found == 1 ? "" : "s");
    }
    return 0;
}

static int std_inquiry(ctl *c, uint8_t t, uint8_t l, bool hex)
{
    uint8_t cdb[16], data[96];
    pcam_inquiry inq;
    ctl_io io;
    int n = pcam_cdb_inquiry(cdb, sizeof cdb, false, 0, sizeof data);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, data, sizeof data);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "INQUIRY", &io);
    size_t got = sizeof data - io.ccb.u.io.resid;
    if (pcam_inquiry_parse(data, got, &inq) != PCAM_OK)
        return ctl_err(c, CTL_EFAIL, "INQUIRY data is malformed (%zu bytes)", got);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_u64("qualifier", inq.qualifier);
        j_u64("type", inq.device_type);
        j_str("type_name", pcam_device_type_name(inq.device_type));
        j_str("vendor", inq.vendor);
        j_str("product", inq.product);
        j_str("revision", inq.revision);
        j_u64("version", inq.version);
        j_u64("response_format", inq.response_format);
        j_bool("removable", inq.rmb);
        j_bool("cmdque", inq.cmdque);
        j_bool("sync", inq.sync);
        j_bool("wbus16", inq.wbus16);
        j_u64("length", got);
        j_end_obj();
        j_done();
        return 0;
    }
    printf("%u:%u: <%s %s %s> %s, SCSI version %u (SPC-%s), response format %u\n", t, l, inq.vendor,
           inq.product, inq.revision, pcam_device_type_name(inq.device_type), inq.version,
           inq.version == 3 ? "1" : inq.version == 4 ? "2" : inq.version == 5 ? "3"
                               : inq.version == 6 ? "4" : inq.version == 7 ? "5" : "?",
           inq.response_format);
    printf("  qualifier %u, removable %s, tagged queuing %s, sync %s, wide-16 %s\n", inq.qualifier,
           inq.rmb ? "yes" : "no", inq.cmdque ? "yes" : "no", inq.sync ? "yes" : "no",
           inq.wbus16 ? "yes" : "no");
    if (hex)
        ctl_hexdump(data, got);
    return 0;
}

static int vpd_inquiry(ctl *c, uint8_t t, uint8_t l, uint8_t page, bool hex)
{
    uint8_t cdb[16], data[255];
    ctl_io io;
    int n = pcam_cdb_inquiry(cdb, sizeof cdb, true, page, sizeof data);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, data, sizeof data);
    char what[40];
    snprintf(what, sizeof what, "INQUIRY VPD page 0x%02x", page);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, what, &io);
    size_t got = sizeof data - io.ccb.u.io.resid;
    /* SPC: byte 1 is the page code, bytes 2-3 the page length after byte 3. */
    if (got < 4 || data[1] != page)
        return ctl_err(c, CTL_EFAIL, "%s: malformed answer", what);
    size_t len = (size_t)(data[2] << 8 | data[3]);
    if (len > got - 4)
        len = got - 4;
    const uint8_t *p = data + 4;
    char text[256];
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_u64("page", page);
        j_u64("length", len);
    } else {
        printf("%u:%u: VPD page 0x%02x, %zu bytes\n", t, l, page, len);
    }
    if (page == 0x00) {
        if (c->json)
            j_arr("pages");
        else
            printf("  supported pages:");
        for (size_t i = 0; i < len; i++) {
            if (c->json)
                j_u64(NULL, p[i]);
            else
                printf(" 0x%02x", p[i]);
        }
        if (c->json)
            j_end_arr();
        else
            putchar('\n');
    } else if (page == 0x80) {
        size_t k = 0;
        for (size_t i = 0; i < len && k + 1 < sizeof text; i++)
            text[k++] = p[i] >= 0x20 && p[i] < 0x7F ? (char)p[i] : '?';
        text[k] = '\0';
        if (c->json)
            j_str("serial", text);
        else
            printf("  unit serial number: %s\n", text);
    } else if (page == 0x83) {
        /* Designation descriptors (SPC-3 7.6.3): code set, association and
         * type, length, then the designator. */
        if (c->json)
            j_arr("designators");
        for (size_t off = 0; off + 4 <= len;) {
            size_t dl = p[off + 3];
            if (off + 4 + dl > len)
                break;
            unsigned codeset = p[off] & 0x0Fu, type = p[off + 1] & 0x0Fu, assoc = (p[off + 1] >> 4) & 3u;
            size_t k = 0;
            for (size_t i = 0; i < dl && k + 2 < sizeof text; i++) {
                uint8_t b = p[off + 4 + i];
                if (codeset == 2 || codeset == 3)
                    text[k++] = b >= 0x20 && b < 0x7F ? (char)b : '?';
                else {
                    static const char hx[] = "0123456789abcdef";
                    text[k++] = hx[b >> 4];
                    text[k++] = hx[b & 15];
                }
            }
            text[k] = '\0';
            static const char *const tnames[] = {"vendor specific", "T10 vendor ID", "EUI-64", "NAA",
                                                 "relative port", "target port group",
                                                 "logical unit group", "MD5 LU ID", "SCSI name"};
            const char *tn = type < sizeof tnames / sizeof tnames[0] ? tnames[type] : "reserved";
            if (c->json) {
                j_obj(NULL);
                j_u64("code_set", codeset);
                j_u64("association", assoc);
                j_u64("type", type);
                j_str("type_name", tn);
                j_str("value", text);
                j_end_obj();
            } else {
                printf("  %s (association %u): %s\n", tn, assoc, text);
            }
            off += 4 + dl;
        }
        if (c->json)
            j_end_arr();
    } else if (!c->json) {
        hex = true;
    }
    if (c->json) {
        j_end_obj();
        j_done();
    } else if (hex) {
        ctl_hexdump(data, got);
    }
    return 0;
}

int cmd_inquiry(ctl *c, int argc, char **argv)
{
    const char *path = NULL;
    bool vpd = false, hex = false;
    uint64_t page = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--vpd") == 0 && i + 1 < argc) {
            if (!ctl_parse_u64(argv[++i], &page) || page > 0xFF)
                return ctl_err(c, CTL_EUSAGE, "inquiry: bad VPD page '%s'", argv[i]);
            vpd = true;
        } else if (strcmp(argv[i], "--hex") == 0) {
            hex = true;
        } else if (path == NULL && argv[i][0] != '-') {
            path = argv[i];
        } else {
            return ctl_err(c, CTL_EUSAGE, "inquiry: unexpected argument '%s'", argv[i]);
        }
    }
    uint8_t t, l;
    int rc = ctl_parse_path(c, path, &t, &l, true);
    if (rc == 0)
        rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, t, l, NULL);
    if (rc != 0)
        return rc;
    return vpd ? vpd_inquiry(c, t, l, (uint8_t)page, hex) : std_inquiry(c, t, l, hex);
}

/* Commands of the form "NAME PATH" with nothing else. */
static int one_path(ctl *c, const char *name, int argc, char **argv, uint8_t *t, uint8_t *l)
{
    if (argc != 1)
        return ctl_err(c, CTL_EUSAGE, "%s takes one device path (TARGET or TARGET:LUN)", name);
    int rc = ctl_parse_path(c, argv[0], t, l, true);
    if (rc == 0)
        rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, *t, *l, NULL);
    return rc;
}

int cmd_readcap(ctl *c, int argc, char **argv)
{
    uint8_t t, l;
    uint64_t blocks;
    uint32_t bs;
    int rc = one_path(c, "readcap", argc, argv, &t, &l);
    if (rc == 0)
        rc = ctl_capacity(c, t, l, &blocks, &bs);
    if (rc != 0)
        return rc;
    char size[32];
    fmt_size(blocks * bs, size, sizeof size);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_u64("last_lba", blocks - 1);
        j_u64("blocks", blocks);
        j_u64("block_size", bs);
        j_u64("bytes", blocks * bs);
        j_end_obj();
        j_done();
    } else {
        printf("%u:%u: last LBA %llu, block size %u, %llu blocks, %llu bytes (%s)\n", t, l,
               (unsigned long long)(blocks - 1), bs, (unsigned long long)blocks,
               (unsigned long long)(blocks * bs), size);
    }
    return 0;
}

int cmd_tur(ctl *c, int argc, char **argv)
{
    uint8_t t, l, cdb[16];
    ctl_io io;
    int rc = one_path(c, "tur", argc, argv, &t, &l);
    if (rc != 0)
        return rc;
    int n = pcam_cdb_test_unit_ready(cdb, sizeof cdb);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_NONE, NULL, 0);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "TEST UNIT READY", &io);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_bool("ready", true);
        j_end_obj();
        j_done();
    } else {
        printf("%u:%u: ready\n", t, l);
    }
    return 0;
}
