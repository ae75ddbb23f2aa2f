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
        return ctl_err(c, CTL_ESANITY, "READ CAPACITY(10) returned short data");
    if (cap.use_rc16) {
        /* Past 2^32 blocks READ CAPACITY(10) answers FFFFFFFFh (SBC). */
        n = pcam_cdb_read_capacity16(cdb, sizeof cdb, PCAM_READ_CAPACITY16_LEN);
        ctl_io_init(&io, target, lun, cdb, n, PCAM_DIR_IN, data, PCAM_READ_CAPACITY16_LEN);
        if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
            return ctl_io_fail(c, "READ CAPACITY(16)", &io);
        if (pcam_read_capacity16_parse(data, PCAM_READ_CAPACITY16_LEN - io.ccb.u.io.resid, &cap) != PCAM_OK)
            return ctl_err(c, CTL_ESANITY, "READ CAPACITY(16) returned short data");
    }
    if (cap.zero_block_length)
        return ctl_err(c, CTL_ESANITY, "the device reports a block length of 0");
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
    bool lng = false, verbose = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "--long") == 0)
            lng = true;
        else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
            verbose = lng = true;
        else
            return ctl_usage(c, "unknown argument '%s'", argv[i]);
    }
    int rc = ctl_open(c);
    if (rc != 0)
        return rc;
    pcam_ccb pi;
    memset(&pi, 0, sizeof pi);
    pi.func = PCAM_FN_PATH_INQ;
    if (ctl_sync(c, &pi, 1000) != PCAM_REQ_CMP)
        return ctl_err(c, CTL_EOTHER, "path inquiry failed");
    if (c->json) {
        j_obj(NULL);
        j_obj("bus");
        j_str("backend", c->be->name);
        j_str("chip", pi.u.pathinq.chip_name);
        j_u64("initiator_id", pi.u.pathinq.initiator_id);
        j_u64("max_target", pi.u.pathinq.max_target);
        j_str("name", ctl_bus_name(c));
        if (verbose) {
            j_u64("hal_flags", pi.u.pathinq.hal_flags);
            j_u64("min_period", pi.u.pathinq.min_period);
            j_u64("max_offset", pi.u.pathinq.max_offset);
            j_u64("max_sg", pi.u.pathinq.max_sg);
            j_u64("max_xfer", pi.u.pathinq.max_xfer);
            j_bool("residuals", pi.u.pathinq.residuals);
        }
        j_end_obj();
        j_arr("devices");
    } else {
        printf("bus 0 (%s): %s (%s back-end), initiator ID %u, targets 0..%u\n", ctl_bus_name(c),
               pi.u.pathinq.chip_name, c->be->name, pi.u.pathinq.initiator_id, pi.u.pathinq.max_target);
        if (verbose) {
            pcam_xfer_settings fast;
            char text[96];
            memset(&fast, 0, sizeof fast);
            fast.period = pi.u.pathinq.min_period;
            fast.offset = pi.u.pathinq.max_offset;
            fast.width = (pi.u.pathinq.hal_flags & PCAM_HAL_CAP_WIDE) != 0;
            ctl_fmt_xfer(&fast, text, sizeof text);
            printf("  chip limits: %s; %u S/G entries, %u bytes per CCB; capabilities 0x%08x%s%s%s%s\n", text,
                   pi.u.pathinq.max_sg, pi.u.pathinq.max_xfer, pi.u.pathinq.hal_flags,
                   pi.u.pathinq.hal_flags & PCAM_HAL_CAP_WIDE ? " wide" : "",
                   pi.u.pathinq.hal_flags & PCAM_HAL_CAP_TAGS ? " tags" : "",
                   pi.u.pathinq.hal_flags & PCAM_HAL_CAP_DT ? " DT" : "",
                   pi.u.pathinq.residuals ? " residuals" : "");
        }
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
            if (ctl_sync(c, &ccb, 1000) != PCAM_REQ_CMP || !ccb.u.dev.present) {
                if (l == 0 && !c->json && (c->scan_trouble & (1u << t)))
                    printf("%-7u (not listed: the scan could not finish with it: %s)\n", t, c->scan_why[t]);
                else if (verbose && l == 0 && !c->json)
                    printf("%-7u (no device)\n", t);
                continue;
            }
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
        j_bool("scan_complete", c->scan_trouble == 0);
        j_arr("scan_failed_targets");
        for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++)
            if (c->scan_trouble & (1u << t)) {
                j_obj(NULL);
                j_u64("target", t);
                j_str("reason", c->scan_why[t]);
                j_end_obj();
            }
        j_end_arr();
        j_end_obj();
        j_done();
    } else {
        printf("%u device%s", found, found == 1 ? "" : "s");
        for (unsigned t = 0, k = 0; t < PCAM_MAX_TARGETS; t++)
            if (c->scan_trouble & (1u << t))
                printf("%s%u", k++ ? " " : "; the scan is incomplete, it could not finish with target ", t);
        putchar('\n');
    }
    /* A table with a target missing for a reason is not a clean answer. */
    unsigned nbad = 0;
    for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++)
        nbad += (c->scan_trouble >> t) & 1u;
    if (nbad != 0)
        return ctl_err(c, CTL_ESCAN, "the scan could not finish with %u target%s (listed above with the reason)", nbad,
                       nbad == 1 ? "" : "s");
    return 0;
}

int cmd_inquiry(ctl *c, int argc, char **argv)
{
    const char *path = NULL;
    bool vpd = false, hex = false;
    uint64_t page = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--vpd") == 0 && i + 1 < argc) {
            /* A number, or sg_vpd's abbreviation of the page's name. */
            static const struct { const char *abbrev; uint8_t page; } ab[] = {
                {"sv", 0x00}, {"sn", 0x80}, {"di", 0x83}, {"ei", 0x86}, {"mpp", 0x87},
                {"sp", 0x88}, {"ai", 0x89}, {"bl", 0xB0}, {"bdc", 0xB1}, {"lbpv", 0xB2}};
            const char *v = argv[++i];
            bool named = false;
            for (size_t k = 0; k < sizeof ab / sizeof ab[0]; k++)
                if (strcmp(v, ab[k].abbrev) == 0) {
                    page = ab[k].page;
                    named = true;
                }
            if (!named && (!ctl_parse_u64(v, &page) || page > 0xFF))
                return ctl_usage(c, "bad VPD page '%s' (0..0xff, or sv sn di ei mpp sp ai bl bdc lbpv)", v);
            vpd = true;
        } else if (strcmp(argv[i], "--hex") == 0) {
            hex = true;
        } else if (path == NULL && argv[i][0] != '-') {
            path = argv[i];
        } else {
            return ctl_usage(c, "unexpected argument '%s'", argv[i]);
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
    return vpd ? ctl_vpd_inquiry(c, t, l, (uint8_t)page, hex) : ctl_std_inquiry(c, t, l, hex);
}

int ctl_one_path(ctl *c, int argc, char **argv, uint8_t *t, uint8_t *l)
{
    if (argc != 1)
        return ctl_usage(c, "takes one device path ([BUS:]TARGET[:LUN]), not %d arguments", argc);
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
    int rc = ctl_one_path(c, argc, argv, &t, &l);
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
    int rc = ctl_one_path(c, argc, argv, &t, &l);
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
