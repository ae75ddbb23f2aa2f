/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * INQUIRY decoded as sg_inq does: the standard data field by field, and the
 * VPD pages 00h, 80h, 83h, 86h, 89h, B0h, B1h and B2h (SPC-4 7.8, SBC-3
 * 6.6, SAT-2 for 89h); any other page as hex. Field layouts are facts from
 * those standards; the text is pcamctl's own. `vpd HEX...` decodes bytes
 * without a bus. Decoders only read the bytes they were given: a short page
 * shows what it holds, never more.
 */
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_inquiry.h"

static const char *spc_name(uint8_t v)
{
    switch (v) {
    case 0: return "no standard claimed";
    case 3: return "SPC";
    case 4: return "SPC-2";
    case 5: return "SPC-3";
    case 6: return "SPC-4";
    case 7: return "SPC-5";
    default: return "?";
    }
}

/* Version descriptors (SPC-4 table 29): the families, by their code ranges. */
static const char *vdesc_name(uint16_t v)
{
    static const struct { uint16_t lo, hi; const char *name; } r[] = {
        {0x0020, 0x003F, "SAM"},    {0x0040, 0x005F, "SAM-2"},  {0x0060, 0x007F, "SAM-3"},
        {0x0080, 0x009F, "SAM-4"},  {0x0120, 0x013F, "SPC"},    {0x0260, 0x027F, "SPC-2"},
        {0x0300, 0x031F, "SPC-3"},  {0x0460, 0x047F, "SPC-4"},  {0x0180, 0x019F, "SBC"},
        {0x0320, 0x033F, "SBC-2"},  {0x04C0, 0x04DF, "SBC-3"},  {0x0140, 0x015F, "MMC"},
        {0x0240, 0x025F, "MMC-2"},  {0x02A0, 0x02BF, "MMC-3"},  {0x03A0, 0x03BF, "MMC-4"},
        {0x0900, 0x091F, "SPI"},    {0x0920, 0x093F, "Fast-20"}, {0x0940, 0x095F, "SPI-2"},
        {0x0960, 0x097F, "SPI-3"},  {0x0980, 0x099F, "EPI"},    {0x09A0, 0x09BF, "SPI-4"},
        {0x09C0, 0x09DF, "SPI-5"},  {0x1EA0, 0x1EBF, "SAT"},    {0x1EC0, 0x1EDF, "SAT-2"},
        {0x2000, 0x2000, "SCSI-2"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (v >= r[i].lo && v <= r[i].hi)
            return r[i].name;
    return "?";
}

int ctl_std_inquiry(ctl *c, uint8_t t, uint8_t l, bool hex)
{
    uint8_t cdb[16], data[96];
    pcam_inquiry q;
    ctl_io io;
    int n = pcam_cdb_inquiry(cdb, sizeof cdb, false, 0, sizeof data);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, data, sizeof data);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "INQUIRY", &io);
    size_t got = sizeof data - io.ccb.u.io.resid;
    if (pcam_inquiry_parse(data, got, &q) != PCAM_OK)
        return ctl_err(c, CTL_ESANITY, "INQUIRY data is malformed (%zu bytes)", got);
    const char *why = NULL;
    bool used = ctl_lu_tagged(c, t, l, &why);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_u64("qualifier", q.qualifier);
        j_u64("type", q.device_type);
        j_str("type_name", pcam_device_type_name(q.device_type));
        j_str("vendor", q.vendor);
        j_str("product", q.product);
        j_str("revision", q.revision);
        j_u64("version", q.version);
        j_str("version_name", spc_name(q.version));
        j_u64("response_format", q.response_format);
        j_bool("removable", q.rmb);
        j_bool("lu_cong", q.lu_cong);
        j_bool("normaca", q.normaca);
        j_bool("hisup", q.hisup);
        j_bool("sccs", q.sccs);
        j_bool("acc", q.acc);
        j_u64("tpgs", q.tpgs);
        j_bool("3pc", q.threepc);
        j_bool("protect", q.protect);
        j_bool("encserv", q.encserv);
        j_bool("multip", q.multip);
        j_bool("mchngr", q.mchngr);
        j_bool("addr16", q.addr16);
        j_bool("wbus16", q.wbus16);
        j_bool("sync", q.sync);
        j_bool("linked", q.linked);
        j_bool("cmdque", q.cmdque);
        j_bool("tagged_in_use", used);
        if (q.have_spi) {
            j_u64("clocking", q.clocking);
            j_bool("qas", q.qas);
            j_bool("ius", q.ius);
        }
        j_arr("version_descriptors");
        for (unsigned i = 0; i < q.version_desc_count; i++)
            if (q.version_desc[i] != 0)
                j_u64(NULL, q.version_desc[i]);
        j_end_arr();
        j_u64("length", got);
        j_end_obj();
        j_done();
        return 0;
    }
    printf("%u:%u: <%s %s %s> %s, SCSI version %u (%s), response format %u\n", t, l, q.vendor, q.product,
           q.revision, pcam_device_type_name(q.device_type), q.version, spc_name(q.version),
           q.response_format);
    printf("  qualifier %u, removable %s, tagged queuing %s, sync %s, wide-16 %s\n", q.qualifier,
           q.rmb ? "yes" : "no", q.cmdque ? "yes" : "no", q.sync ? "yes" : "no", q.wbus16 ? "yes" : "no");
    printf("  PQual=%u  Device_type=0x%02x  RMB=%u  LU_CONG=%u  version=0x%02x  [%s]\n", q.qualifier,
           q.device_type, q.rmb, q.lu_cong, q.version, spc_name(q.version));
    printf("  [AERC=%u]  [TrmTsk=%u]  NormACA=%u  HiSUP=%u  Resp_data_format=%u\n", (data[3] >> 7) & 1,
           (data[3] >> 6) & 1, q.normaca, q.hisup, q.response_format);
    if (q.have_flags) {
        printf("  SCCS=%u  ACC=%u  TPGS=%u  3PC=%u  Protect=%u  [BQue=%u]\n", q.sccs, q.acc, q.tpgs, q.threepc,
               q.protect, (data[6] >> 7) & 1);
        printf("  EncServ=%u  MultiP=%u  [MChngr=%u]  [ACKREQQ=%u]  Addr16=%u\n", q.encserv, q.multip, q.mchngr,
               (data[6] >> 2) & 1, q.addr16);
        printf("  [RelAdr=%u]  WBus16=%u  Sync=%u  [Linked=%u]  [TranDis=%u]  CmdQue=%u\n", (data[7] >> 7) & 1,
               q.wbus16, q.sync, q.linked, q.trandis, q.cmdque);
    }
    printf("  length=%zu (0x%zx), additional length %u\n", got, got, q.additional_length);
    if (q.have_spi)
        printf("  Clocking=%s  QAS=%u  IUS=%u\n",
               q.clocking == PCAM_INQ_CLOCKING_ST ? "ST" : q.clocking == PCAM_INQ_CLOCKING_DT ? "DT"
               : q.clocking == PCAM_INQ_CLOCKING_ST_DT ? "ST and DT" : "reserved", q.qas, q.ius);
    for (unsigned i = 0; i < q.version_desc_count; i++)
        if (q.version_desc[i] != 0)
            printf("  version descriptor: 0x%04x (%s)\n", q.version_desc[i], vdesc_name(q.version_desc[i]));
    printf("  commands to this LU go %s%s%s\n", used ? "tagged" : "untagged", why != NULL ? ": " : "",
           why != NULL ? why : "");
    if (hex)
        ctl_hexdump(data, got);
    return 0;
}

/* ------------------------------------------------------------------ */
/* VPD pages */

static const char *page_name(uint8_t p)
{
    switch (p) {
    case 0x00: return "Supported VPD pages";
    case 0x80: return "Unit serial number";
    case 0x83: return "Device identification";
    case 0x86: return "Extended INQUIRY data";
    case 0x87: return "Mode page policy";
    case 0x88: return "SCSI ports";
    case 0x89: return "ATA information";
    case 0xB0: return "Block limits";
    case 0xB1: return "Block device characteristics";
    case 0xB2: return "Logical block provisioning";
    default: return p >= 0xC0 ? "vendor specific" : "?";
    }
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* A field of bytes [off, off+len) if the page holds them. */
#define HAVE(off, len) ((size_t)(off) + (size_t)(len) <= n)

static void out_u(ctl *c, const char *key, const char *text, uint64_t v)
{
    if (c->json)
        j_u64(key, v);
    else
        printf("  %-44s %llu\n", text, (unsigned long long)v);
}

static void out_s(ctl *c, const char *key, const char *text, const char *v)
{
    if (c->json)
        j_str(key, v);
    else
        printf("  %-44s %s\n", text, v);
}

/* ASCII bytes, trailing spaces trimmed, others as '?'. */
static void ascii(const uint8_t *p, size_t len, char *out, size_t cap, bool swap16)
{
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < cap; i++) {
        uint8_t b = swap16 ? p[i ^ 1u] : p[i];
        out[k++] = b >= 0x20 && b < 0x7F ? (char)b : '?';
    }
    while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '?'))
        k--;
    out[k] = '\0';
}

static void vpd_83(ctl *c, const uint8_t *p, size_t n)
{
    static const char *const tnames[] = {"vendor specific", "T10 vendor ID", "EUI-64", "NAA",
                                         "relative target port", "target port group",
                                         "logical unit group", "MD5 logical unit ID", "SCSI name string",
                                         "protocol specific port ID"};
    static const char *const anames[] = {"logical unit", "target port", "target device", "reserved"};
    char text[256];
    if (c->json)
        j_arr("designators");
    for (size_t off = 0; off + 4 <= n;) {
        size_t dl = p[off + 3];
        if (off + 4 + dl > n)
            break;
        unsigned codeset = p[off] & 0x0Fu, proto = p[off] >> 4, type = p[off + 1] & 0x0Fu,
                 assoc = (p[off + 1] >> 4) & 3u, piv = p[off + 1] >> 7;
        size_t k = 0;
        for (size_t i = 0; i < dl && k + 3 < sizeof text; i++) {
            uint8_t b = p[off + 4 + i];
            if (codeset == 2 || codeset == 3) {
                text[k++] = b >= 0x20 && b < 0x7F ? (char)b : '?';
            } else {
                static const char hx[] = "0123456789abcdef";
                text[k++] = hx[b >> 4];
                text[k++] = hx[b & 15];
            }
        }
        text[k] = '\0';
        const char *tn = type < sizeof tnames / sizeof tnames[0] ? tnames[type] : "reserved";
        if (c->json) {
            j_obj(NULL);
            j_u64("code_set", codeset);
            j_u64("association", assoc);
            j_str("association_name", anames[assoc]);
            j_u64("type", type);
            j_str("type_name", tn);
            if (piv)
                j_u64("protocol", proto);
            j_str("value", text);
            j_end_obj();
        } else {
            printf("  %s (association %u, %s, code set %s): %s\n", tn, assoc, anames[assoc],
                   codeset == 1 ? "binary" : codeset == 2 ? "ASCII" : codeset == 3 ? "UTF-8" : "reserved", text);
        }
        off += 4 + dl;
    }
    if (c->json)
        j_end_arr();
}

static void vpd_86(ctl *c, const uint8_t *p, size_t n)
{
    /* SPC-4 7.8.7: page bytes 4.. are p[0..]. */
    static const struct { uint8_t byte, shift, width; const char *key, *text; } f[] = {
        {0, 6, 2, "activate_microcode", "ACTIVATE_MICROCODE"}, {0, 3, 3, "spt", "SPT"},
        {0, 2, 1, "grd_chk", "GRD_CHK"},   {0, 1, 1, "app_chk", "APP_CHK"},   {0, 0, 1, "ref_chk", "REF_CHK"},
        {1, 5, 1, "uask_sup", "UASK_SUP"}, {1, 4, 1, "group_sup", "GROUP_SUP"}, {1, 3, 1, "prior_sup", "PRIOR_SUP"},
        {1, 2, 1, "headsup", "HEADSUP"},   {1, 1, 1, "ordsup", "ORDSUP"},     {1, 0, 1, "simpsup", "SIMPSUP"},
        {2, 3, 1, "wu_sup", "WU_SUP"},     {2, 2, 1, "crd_sup", "CRD_SUP"},   {2, 1, 1, "nv_sup", "NV_SUP"},
        {2, 0, 1, "v_sup", "V_SUP"},       {3, 4, 1, "p_i_i_sup", "P_I_I_SUP"}, {3, 0, 1, "luiclr", "LUICLR"},
        {4, 4, 1, "r_sup", "R_SUP"},       {4, 0, 1, "cbcs", "CBCS"},
        {5, 0, 4, "multi_it_nexus_microcode", "Multi I_T nexus microcode download"},
        {8, 7, 1, "poa_sup", "POA_SUP"},   {8, 6, 1, "hra_sup", "HRA_SUP"},   {8, 5, 1, "vsa_sup", "VSA_SUP"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (HAVE(f[i].byte, 1))
            out_u(c, f[i].key, f[i].text, (uint64_t)(p[f[i].byte] >> f[i].shift) & ((1u << f[i].width) - 1u));
    if (HAVE(6, 2))
        out_u(c, "self_test_minutes", "Extended self-test completion minutes", be16(p + 6));
    if (HAVE(9, 1))
        out_u(c, "max_sense_length", "Maximum supported sense data length", p[9]);
}

static void vpd_89(ctl *c, const uint8_t *p, size_t n)
{
    /* SAT-2 12.4.2: page bytes 8-15 SAT vendor, 16-31 product, 32-35
     * revision, 36-55 the ATA signature, 56 the command code, 60-571
     * IDENTIFY (PACKET) DEVICE data (ATA words: byte-swapped strings). */
    char text[48];
    if (HAVE(4, 8)) {
        ascii(p + 4, 8, text, sizeof text, false);
        out_s(c, "sat_vendor", "SAT vendor", text);
    }
    if (HAVE(12, 16)) {
        ascii(p + 12, 16, text, sizeof text, false);
        out_s(c, "sat_product", "SAT product", text);
    }
    if (HAVE(28, 4)) {
        ascii(p + 28, 4, text, sizeof text, false);
        out_s(c, "sat_revision", "SAT revision", text);
    }
    if (HAVE(32, 1))
        out_u(c, "signature_type", "ATA device signature: transport ID", p[32]);
    if (HAVE(52, 1)) {
        out_u(c, "command_code", "IDENTIFY command code", p[52]);
        out_s(c, "command_name", "  that is",
              p[52] == 0xEC ? "IDENTIFY DEVICE" : p[52] == 0xA1 ? "IDENTIFY PACKET DEVICE" : "none or other");
    }
    const uint8_t *id = p + 56;
    if (HAVE(56 + 20, 20)) {
        ascii(id + 20, 20, text, sizeof text, true);
        out_s(c, "ata_serial", "ATA serial number", text);
    }
    if (HAVE(56 + 46, 8)) {
        ascii(id + 46, 8, text, sizeof text, true);
        out_s(c, "ata_firmware", "ATA firmware revision", text);
    }
    if (HAVE(56 + 54, 40)) {
        ascii(id + 54, 40, text, sizeof text, true);
        out_s(c, "ata_model", "ATA model number", text);
    }
}

static void vpd_b0(ctl *c, const uint8_t *p, size_t n)
{
    /* SBC-3 6.6.4: page bytes 4.. are p[0..]. */
    if (HAVE(0, 1))
        out_u(c, "wsnz", "Write same non-zero (WSNZ)", p[0] & 1u);
    if (HAVE(1, 1))
        out_u(c, "max_compare_write", "Maximum COMPARE AND WRITE length (blocks)", p[1]);
    if (HAVE(2, 2))
        out_u(c, "opt_xfer_granularity", "Optimal transfer length granularity (blocks)", be16(p + 2));
    if (HAVE(4, 4))
        out_u(c, "max_xfer", "Maximum transfer length (blocks; 0 = none)", be32(p + 4));
    if (HAVE(8, 4))
        out_u(c, "opt_xfer", "Optimal transfer length (blocks)", be32(p + 8));
    if (HAVE(12, 4))
        out_u(c, "max_prefetch", "Maximum prefetch length (blocks)", be32(p + 12));
    if (HAVE(16, 4))
        out_u(c, "max_unmap_lba_count", "Maximum unmap LBA count", be32(p + 16));
    if (HAVE(20, 4))
        out_u(c, "max_unmap_descriptors", "Maximum unmap block descriptor count", be32(p + 20));
    if (HAVE(24, 4))
        out_u(c, "opt_unmap_granularity", "Optimal unmap granularity (blocks)", be32(p + 24));
    if (HAVE(28, 4)) {
        out_u(c, "ugavalid", "Unmap granularity alignment valid (UGAVALID)", p[28] >> 7);
        out_u(c, "unmap_alignment", "Unmap granularity alignment", be32(p + 28) & 0x7FFFFFFFu);
    }
    if (HAVE(32, 8)) {
        uint64_t v = (uint64_t)be32(p + 32) << 32 | be32(p + 36);
        out_u(c, "max_write_same", "Maximum WRITE SAME length (blocks)", v);
    }
}

static void vpd_b1(ctl *c, const uint8_t *p, size_t n)
{
    /* SBC-3 6.6.2: bytes 4-5 rotation rate, 7 form factor, 8 ZONED/FUAB/VBULS. */
    static const char *const forms[] = {"not reported", "5.25 inch", "3.5 inch", "2.5 inch", "1.8 inch",
                                        "less than 1.8 inch"};
    char text[48];
    if (HAVE(0, 2)) {
        uint16_t r = be16(p);
        out_u(c, "rotation_rate", "Medium rotation rate", r);
        if (r == 0)
            snprintf(text, sizeof text, "not reported");
        else if (r == 1)
            snprintf(text, sizeof text, "non-rotating medium (solid state)");
        else if (r >= 0x401 && r <= 0xFFFE)
            snprintf(text, sizeof text, "%u rpm", r);
        else
            snprintf(text, sizeof text, "reserved");
        out_s(c, "rotation_text", "  that is", text);
    }
    if (HAVE(2, 1))
        out_u(c, "product_type", "Product type", p[2]);
    if (HAVE(3, 1)) {
        unsigned ff = p[3] & 0x0Fu;
        out_u(c, "wabereq", "WABEREQ", p[3] >> 6);
        out_u(c, "wacereq", "WACEREQ", (p[3] >> 4) & 3u);
        out_s(c, "form_factor", "Nominal form factor", ff < sizeof forms / sizeof forms[0] ? forms[ff] : "reserved");
    }
    if (HAVE(4, 1)) {
        out_u(c, "zoned", "ZONED", (p[4] >> 4) & 3u);
        out_u(c, "fuab", "FUAB", (p[4] >> 1) & 1u);
        out_u(c, "vbuls", "VBULS", p[4] & 1u);
    }
}

static void vpd_b2(ctl *c, const uint8_t *p, size_t n)
{
    /* SBC-3 6.6.5: byte 4 threshold exponent, 5 LBPU/LBPWS/LBPWS10/LBPRZ/ANC_SUP/DP, 6 type. */
    static const char *const types[] = {"not reported (full provisioning)", "resource provisioned",
                                        "thin provisioned"};
    if (HAVE(0, 1))
        out_u(c, "threshold_exponent", "Threshold exponent", p[0]);
    if (HAVE(1, 1)) {
        out_u(c, "lbpu", "Unmap command supported (LBPU)", p[1] >> 7);
        out_u(c, "lbpws", "Write same (16) with unmap (LBPWS)", (p[1] >> 6) & 1u);
        out_u(c, "lbpws10", "Write same (10) with unmap (LBPWS10)", (p[1] >> 5) & 1u);
        out_u(c, "lbprz", "Unmapped blocks read as zero (LBPRZ)", (p[1] >> 2) & 7u);
        out_u(c, "anc_sup", "Anchored LBAs supported (ANC_SUP)", (p[1] >> 1) & 1u);
        out_u(c, "dp", "Provisioning group descriptor present (DP)", p[1] & 1u);
    }
    if (HAVE(2, 1)) {
        unsigned t = p[2] & 7u;
        out_u(c, "min_percentage", "Minimum percentage", p[2] >> 3);
        out_s(c, "provisioning_type", "Provisioning type", t < 3 ? types[t] : "reserved");
    }
    if (HAVE(3, 1))
        out_u(c, "threshold_percentage", "Threshold percentage", p[3]);
}

/* Decode a whole page (header included) as received. */
/* Decode a VPD page of got bytes; cap is the buffer it was read into (0:
 * bytes given on the command line). A page whose header promises more
 * than came is decoded as far as it goes and then fails (97): the device
 * (or the user) sent a truncated page. Only when it filled pcamctl's own
 * buffer is that the buffer's limit, said as a warning. */
static int decode_page(ctl *c, const uint8_t *data, size_t got, size_t cap, int t, int l, uint8_t want, bool hex)
{
    if (got < 4 || (want != 0xFF && data[1] != want))
        return ctl_err(c, CTL_ESANITY, "VPD page 0x%02x: malformed answer (%zu bytes)", want, got);
    uint8_t page = data[1];
    size_t declared = (size_t)be16(data + 2), n = declared;
    bool truncated = n > got - 4;
    if (truncated)
        n = got - 4;
    const uint8_t *p = data + 4;
    if (c->json) {
        j_obj(NULL);
        if (t >= 0) {
            j_u64("target", (uint64_t)t);
            j_u64("lun", (uint64_t)l);
        }
        j_u64("page", page);
        j_str("page_name", page_name(page));
        j_u64("length", n);
        j_u64("page_length", declared);
        j_bool("truncated", truncated);
    } else if (t >= 0) {
        printf("%d:%d: VPD page 0x%02x (%s), %zu bytes\n", t, l, page, page_name(page), n);
    } else {
        printf("VPD page 0x%02x (%s), %zu bytes\n", page, page_name(page), n);
    }
    switch (page) {
    case 0x00:
        if (c->json)
            j_arr("pages");
        else
            printf("  supported pages:");
        for (size_t i = 0; i < n; i++) {
            if (c->json)
                j_u64(NULL, p[i]);
            else
                printf(" 0x%02x", p[i]);
        }
        if (c->json) {
            j_end_arr();
        } else {
            putchar('\n');
            for (size_t i = 0; i < n; i++)
                printf("    0x%02x  %s\n", p[i], page_name(p[i]));
        }
        break;
    case 0x80: {
        char text[256];
        ascii(p, n, text, sizeof text, false);
        if (c->json)
            j_str("serial", text);
        else
            printf("  unit serial number: %s\n", text);
        break;
    }
    case 0x83: vpd_83(c, p, n); break;
    case 0x86: vpd_86(c, p, n); break;
    case 0x89: vpd_89(c, p, n); break;
    case 0xB0: vpd_b0(c, p, n); break;
    case 0xB1: vpd_b1(c, p, n); break;
    case 0xB2: vpd_b2(c, p, n); break;
    default:
        if (c->json) {
            char hx[3 * 64 + 1];
            size_t k = 0;
            for (size_t i = 0; i < n && i < 64; i++)
                k += (size_t)snprintf(hx + k, sizeof hx - k, "%s%02x", i ? " " : "", p[i]);
            hx[k] = '\0';
            j_str("data", hx);
        } else {
            hex = true;
        }
        break;
    }
    if (c->json) {
        j_end_obj();
        j_done();
    } else if (hex) {
        ctl_hexdump(data, got);
    }
    if (truncated && cap != 0 && got == cap) {
        ctl_warn(c, "VPD page 0x%02x has %zu bytes; only the first %zu fit pcamctl's buffer and are decoded", page,
                 declared, got - 4);
    } else if (truncated) {
        return ctl_err(c, CTL_ESANITY,
                       "VPD page 0x%02x is truncated: its header says %zu bytes, %zu came; only those are decoded above",
                       page, declared, got - 4);
    }
    return 0;
}

int ctl_vpd_inquiry(ctl *c, uint8_t t, uint8_t l, uint8_t page, bool hex)
{
    static uint8_t data[1024]; /* 89h is 572 bytes */
    uint8_t cdb[16];
    ctl_io io;
    int n = pcam_cdb_inquiry(cdb, sizeof cdb, true, page, sizeof data);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, data, sizeof data);
    char what[64];
    snprintf(what, sizeof what, "INQUIRY VPD page 0x%02x", page);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, what, &io);
    return decode_page(c, data, sizeof data - io.ccb.u.io.resid, sizeof data, t, l, page, hex);
}

int cmd_vpd(ctl *c, int argc, char **argv)
{
    uint8_t b[1024];
    int n = ctl_parse_hex(c, argc, argv, b, sizeof b);
    if (n < 0)
        return CTL_EUSAGE;
    if (n < 4)
        return ctl_usage(c, "a VPD page has a 4-byte header: give at least 4 bytes");
    return decode_page(c, b, (size_t)n, 0, -1, -1, 0xFF, false);
}
