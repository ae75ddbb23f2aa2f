/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SCSI commands people reach for beside read and write: cmd (a raw CDB,
 * like camcontrol cmd and sg_raw), reportluns, modepage (read, and set after
 * a confirmation), start / stop / eject / load, requests (REQUEST SENSE),
 * rescan. Each builds its CDB with core/proto's builders and goes through
 * the CCB API like every other subcommand; none keeps state between runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_sense.h"

#define CMD_MAX_DATA (16u << 20)

bool ctl_lu_tagged(ctl *c, uint8_t t, uint8_t l, const char **why)
{
    pcam_ccb ccb;
    pcam_inquiry inq;
    pcam_xfer_settings user, cur;
    *why = NULL;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_GET_DEV;
    ccb.target = t;
    ccb.lun = l;
    if (ctl_sync(c, &ccb, 1000) != PCAM_REQ_CMP || !ccb.u.dev.present ||
        pcam_inquiry_parse(ccb.u.dev.inquiry, ccb.u.dev.inquiry_len, &inq) != PCAM_OK) {
        *why = "no device";
        return false;
    }
    for (int k = 0; k < 2; k++) {
        memset(&ccb, 0, sizeof ccb);
        ccb.func = PCAM_FN_GET_TRAN;
        ccb.target = t;
        ccb.u.tran.type = k == 0 ? PCAM_TRAN_USER : PCAM_TRAN_CURRENT;
        if (ctl_sync(c, &ccb, 1000) != PCAM_REQ_CMP) {
            *why = "the agreement is unknown";
            return false;
        }
        if (k == 0)
            user = ccb.u.tran.settings;
        else
            cur = ccb.u.tran.settings;
    }
    /* The core tags a command only when INQUIRY says CmdQue and the target
     * has not rejected a tag message (core/queue/queue.c). */
    if (!inq.cmdque)
        *why = "the LU's INQUIRY says CmdQue=0";
    else if (!user.tagged)
        *why = "tags are off in the user settings (or the chip cannot send them)";
    else if (!cur.tagged)
        *why = "the target rejected a tag message";
    return *why == NULL;
}

/* ------------------------------------------------------------------ */

static void j_hex(const char *key, const uint8_t *b, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    char *s = malloc(3 * n + 1);
    if (s == NULL) {
        j_null(key);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            s[k++] = ' ';
        s[k++] = hx[b[i] >> 4];
        s[k++] = hx[b[i] & 15];
    }
    s[k] = '\0';
    j_str(key, s);
    free(s);
}

int cmd_cmd(ctl *c, int argc, char **argv)
{
    const char *path = NULL, *ifile = NULL, *ofile = NULL;
    uint64_t rlen = 0, slen = 0, tmo = 0, retries = 4;
    bool have_r = false, have_s = false, hex = false, force = false;
    char *hexargs[64];
    int nhex = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-r") == 0 || strcmp(a, "--in") == 0) {
            if (!ctl_parse_size(v, &rlen) || rlen == 0 || rlen > CMD_MAX_DATA)
                return ctl_usage(c, "bad %s '%s' (1..%u bytes; k, KiB, M, MiB = 1024s, KB, MB = 1000s)", a, v,
                                 CMD_MAX_DATA);
            have_r = true;
            i++;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "--out") == 0) {
            if (!ctl_parse_size(v, &slen) || slen == 0 || slen > CMD_MAX_DATA)
                return ctl_usage(c, "bad %s '%s' (1..%u bytes; k, KiB, M, MiB = 1024s, KB, MB = 1000s)", a, v,
                                 CMD_MAX_DATA);
            have_s = true;
            i++;
        } else if (strcmp(a, "-i") == 0) {
            ifile = v;
            i++;
        } else if (strcmp(a, "-o") == 0) {
            ofile = v;
            i++;
        } else if (strcmp(a, "--timeout") == 0) {
            if (!ctl_parse_u64(v, &tmo) || tmo == 0 || tmo > 3600000)
                return ctl_usage(c, "bad --timeout '%s' (1..3600000 ms)", v);
            i++;
        } else if (strcmp(a, "--retries") == 0) {
            if (!ctl_parse_u64(v, &retries) || retries > 16)
                return ctl_usage(c, "bad --retries '%s' (0..16)", v);
            i++;
        } else if (strcmp(a, "--hex") == 0) {
            hex = true;
        } else if (strcmp(a, "--force") == 0) {
            force = true;
        } else if (path == NULL) {
            path = a;
        } else if (nhex < 64) {
            hexargs[nhex++] = argv[i];
        }
    }
    if (have_r && have_s)
        return ctl_usage(c, "-r (data in) and -s (data out) exclude each other: a command moves data one way");
    if (ifile != NULL && !have_s)
        return ctl_usage(c, "-i FILE needs -s LEN (the bytes to send)");
    /* -s without -i sends what standard input holds, as sg_raw does; never
     * zeros nobody asked for (-i /dev/zero asks for them). */
    if (have_s && ifile == NULL) {
        if (c->stdin_script)
            return ctl_usage(c, "-s LEN without -i: standard input holds the script; give -i FILE");
        if (isatty(0))
            return ctl_usage(c, "-s LEN without -i reads the data from standard input, which is a terminal; "
                                "give -i FILE (-i /dev/zero sends zeros)");
        ifile = "-";
    }
    if (ofile != NULL && !have_r)
        return ctl_usage(c, "-o FILE needs -r LEN (the bytes to read)");
    if (ofile != NULL && strcmp(ofile, "-") == 0 && c->json)
        return ctl_usage(c, "--json and -o - would share stdout");
    uint8_t cdb[16];
    if (nhex == 0)
        return ctl_usage(c, "missing the CDB bytes (hex, e.g. 12 00 00 00 24 00)");
    int clen = ctl_parse_hex(c, nhex, hexargs, cdb, sizeof cdb);
    if (clen < 0)
        return CTL_EUSAGE;
    /* The opcode's group fixes the CDB length; sg_raw sends whatever it is
     * given, and so does --force (the core's pass-through flag: the target
     * judges it). Without --force a mismatch is one usage error. */
    int want = pcam_cdb_len_for_opcode(cdb[0]);
    if (!force && clen < 6)
        return ctl_usage(c, "a CDB has 6 to 16 bytes, not %d (--force sends it as given)", clen);
    if (want > 0 && want != clen) {
        if (!force)
            return ctl_usage(c, "opcode 0x%02x has a %d-byte CDB by its group, and %d bytes are given; "
                                "--force sends them as given, as sg_raw does",
                             cdb[0], want, clen);
        ctl_warn(c, "opcode 0x%02x has a %d-byte CDB by its group; sending the %d bytes given (--force)", cdb[0],
                 want, clen);
    }
    uint8_t t, l;
    int rc = ctl_parse_path(c, path, &t, &l, true);
    if (rc != 0)
        return rc;
    uint32_t len = (uint32_t)(have_r ? rlen : slen);
    uint8_t *buf = len != 0 ? calloc(1, len) : NULL;
    if (len != 0 && buf == NULL)
        return ctl_err(c, CTL_EOTHER, "out of memory");
    if (ifile != NULL) {
        FILE *f = strcmp(ifile, "-") == 0 ? stdin : fopen(ifile, "rb");
        size_t got = f != NULL ? fread(buf, 1, len, f) : 0;
        if (f != NULL && f != stdin)
            fclose(f);
        if (f == NULL || got != len) {
            free(buf);
            if (f == NULL)
                return ctl_err(c, CTL_EFILE, "cannot open %s: %s", ifile, strerror(errno));
            return ctl_err(c, CTL_EFILE, "%s holds %zu bytes, fewer than the %u that -s asks for; nothing was sent",
                           f == stdin ? "standard input" : ifile, got, len);
        }
    }
    rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, t, l, NULL);
    if (rc != 0) {
        free(buf);
        return rc;
    }
    ctl_io io;
    ctl_io_init(&io, t, l, cdb, clen, have_r ? PCAM_DIR_IN : have_s ? PCAM_DIR_OUT : PCAM_DIR_NONE, buf, len);
    /* The core's retries absorb BUSY, NOT READY and UNIT ATTENTION;
     * --retries 0 shows what the device answers, as sg_raw does. */
    io.ccb.u.io.retries = (uint8_t)retries;
    if (force)
        io.ccb.flags |= PCAM_CCB_PASSTHRU;
    io.ccb.timeout_ms = (uint32_t)tmo;
    char cdbtext[256];
    pcam_cdb_format(cdb, (size_t)clen, 512, cdbtext, sizeof cdbtext);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP) {
        free(buf);
        return ctl_io_fail(c, cdbtext, &io);
    }
    uint32_t moved = len - io.ccb.u.io.resid;
    if (ofile != NULL) {
        FILE *f = strcmp(ofile, "-") == 0 ? stdout : fopen(ofile, "wb");
        bool ok = f != NULL && fwrite(buf, 1, moved, f) == moved;
        if (f != NULL && f != stdout && fclose(f) != 0)
            ok = false;
        if (!ok) {
            free(buf);
            return ctl_err(c, CTL_EFILE, "writing %s failed: %s", ofile, strerror(errno));
        }
    }
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_str("cdb", cdbtext);
        j_str("status", "GOOD");
        j_str("direction", have_r ? "in" : have_s ? "out" : "none");
        j_u64("requested", len);
        j_u64("transferred", moved);
        j_u64("resid", io.ccb.u.io.resid);
        if (have_r && ofile == NULL)
            j_hex("data", buf, moved);
        j_end_obj();
        j_done();
    } else if (ofile == NULL || strcmp(ofile, "-") != 0) {
        printf("%s: GOOD, %u of %u bytes %s\n", cdbtext, moved, len,
               have_r ? "in" : have_s ? "out" : "(no data phase)");
        if (have_r && (ofile == NULL || hex))
            ctl_hexdump(buf, moved);
    }
    free(buf);
    return 0;
}

/* ------------------------------------------------------------------ */

int cmd_reportluns(ctl *c, int argc, char **argv)
{
    const char *path = NULL;
    uint64_t sel = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--select") == 0) {
            if (!ctl_parse_u64(argv[++i], &sel) || sel > 0xFF)
                return ctl_usage(c, "bad --select '%s' (0..255; 0 = all LUNs, 2 = well known)", argv[i]);
        } else if (path == NULL) {
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
    static uint8_t data[8 + 8 * 256];
    uint8_t cdb[16];
    ctl_io io;
    int n = pcam_cdb_report_luns(cdb, sizeof cdb, (uint8_t)sel, sizeof data);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, data, sizeof data);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "REPORT LUNS", &io);
    size_t got = sizeof data - io.ccb.u.io.resid;
    uint32_t bytes = 0, count = 0;
    pcam_err e = pcam_report_luns_header(data, got, &bytes, &count);
    if (e != PCAM_OK && e != PCAM_ERR_TRUNCATED)
        return ctl_err(c, CTL_ESANITY, "REPORT LUNS data is malformed: %s", pcam_strerror(e));
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("list_bytes", bytes);
        j_arr("luns");
    } else {
        printf("target %u: %u LUN%s reported (list %u bytes)\n", t, bytes / 8, bytes / 8 == 1 ? "" : "s", bytes);
    }
    for (uint32_t i = 0; i < count; i++) {
        pcam_lun_addr a;
        if (pcam_report_luns_get(data, got, i, &a) != PCAM_OK)
            break;
        char raw[24];
        snprintf(raw, sizeof raw, "%02x%02x%02x%02x%02x%02x%02x%02x", a.raw[0], a.raw[1], a.raw[2], a.raw[3],
                 a.raw[4], a.raw[5], a.raw[6], a.raw[7]);
        if (c->json) {
            j_obj(NULL);
            if (a.has_lun)
                j_u64("lun", a.lun);
            else
                j_null("lun");
            j_str("raw", raw);
            j_end_obj();
        } else if (a.has_lun) {
            printf("  LUN %u  (%s)\n", a.lun, raw);
        } else {
            printf("  %s (not a single-level LUN)\n", raw);
        }
    }
    if (c->json) {
        j_end_arr();
        j_u64("count", bytes / 8);
        j_end_obj();
        j_done();
    } else if (count < bytes / 8) {
        printf("  (%u more not fetched)\n", bytes / 8 - count);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* modepage */

static int mode_sense(ctl *c, uint8_t t, uint8_t l, uint8_t page, uint8_t pc, bool dbd, uint8_t *buf,
                      size_t cap, size_t *got)
{
    uint8_t cdb[16];
    ctl_io io;
    int n = pcam_cdb_mode_sense(cdb, sizeof cdb, 10, dbd, pc, page, 0, (uint16_t)cap);
    if (n < 0)
        return ctl_err(c, CTL_EUSAGE, "cannot build MODE SENSE: %s", pcam_strerror(n));
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, buf, (uint32_t)cap);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "MODE SENSE(10)", &io);
    *got = cap - io.ccb.u.io.resid;
    if (*got < 8)
        return ctl_err(c, CTL_ESANITY, "MODE SENSE(10) returned %zu bytes, less than its header", *got);
    size_t total = (size_t)(buf[0] << 8 | buf[1]) + 2;
    if (total < *got)
        *got = total;
    return 0;
}

static void decode_page(ctl *c, const uint8_t *p, size_t n)
{
    if ((p[0] & 0x3F) == 0x08 && n >= 3) {
        /* SBC-3 6.4.5 caching page, byte 2. */
        if (c->json) {
            j_bool("wce", (p[2] >> 2) & 1);
            j_bool("rcd", p[2] & 1);
        } else {
            printf("    caching: WCE=%u (write cache %s)  RCD=%u (read cache %s)  MF=%u\n", (p[2] >> 2) & 1,
                   (p[2] >> 2) & 1 ? "on" : "off", p[2] & 1, p[2] & 1 ? "off" : "on", (p[2] >> 1) & 1);
        }
    } else if ((p[0] & 0x3F) == 0x02 && n >= 12) {
        /* SPC-3 7.4.8 disconnect-reconnect page. */
        if (c->json) {
            j_u64("buffer_full_ratio", p[2]);
            j_u64("buffer_empty_ratio", p[3]);
            j_u64("bus_inactivity_limit", (unsigned)(p[4] << 8 | p[5]));
            j_u64("disconnect_time_limit", (unsigned)(p[6] << 8 | p[7]));
            j_u64("connect_time_limit", (unsigned)(p[8] << 8 | p[9]));
            j_u64("max_burst_size", (unsigned)(p[10] << 8 | p[11]));
        } else {
            printf("    disconnect-reconnect: buffer full ratio %u, empty ratio %u, bus inactivity %u,\n"
                   "      disconnect time %u, connect time %u, maximum burst %u (x512 bytes)\n",
                   p[2], p[3], (unsigned)(p[4] << 8 | p[5]), (unsigned)(p[6] << 8 | p[7]),
                   (unsigned)(p[8] << 8 | p[9]), (unsigned)(p[10] << 8 | p[11]));
        }
    }
}

static void show_mode(ctl *c, uint8_t t, uint8_t l, const uint8_t *b, size_t got, bool hex)
{
    size_t bdl = (size_t)(b[6] << 8 | b[7]);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_u64("medium_type", b[2]);
        j_bool("write_protect", b[3] >> 7);
        j_bool("dpofua", (b[3] >> 4) & 1);
        j_arr("block_descriptors");
    } else {
        printf("%u:%u: mode data %zu bytes, medium type 0x%02x, WP=%u DPOFUA=%u, block descriptors %zu bytes\n",
               t, l, got, b[2], b[3] >> 7, (b[3] >> 4) & 1, bdl);
    }
    size_t off = 8;
    for (; off + 8 <= 8 + bdl && off + 8 <= got; off += 8) {
        uint32_t blocks = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 | (uint32_t)b[off + 2] << 8 | b[off + 3];
        uint32_t blen = (uint32_t)b[off + 5] << 16 | (uint32_t)b[off + 6] << 8 | b[off + 7];
        if (c->json) {
            j_obj(NULL);
            j_u64("blocks", blocks);
            j_u64("block_length", blen);
            j_end_obj();
        } else {
            printf("  block descriptor: %u blocks of %u bytes\n", blocks, blen);
        }
    }
    off = 8 + bdl;
    if (c->json) {
        j_end_arr();
        j_arr("pages");
    }
    while (off + 2 <= got) {
        const uint8_t *p = b + off;
        bool spf = (p[0] & 0x40) != 0;
        size_t plen = spf ? (off + 4 <= got ? (size_t)(p[2] << 8 | p[3]) + 4 : got - off) : (size_t)p[1] + 2;
        if (off + plen > got)
            plen = got - off;
        if (c->json) {
            j_obj(NULL);
            j_u64("page", p[0] & 0x3F);
            j_bool("ps", p[0] >> 7);
            j_u64("length", plen);
            j_hex("bytes", p, plen);
            decode_page(c, p, plen);
            j_end_obj();
        } else {
            printf("  page 0x%02x%s, %zu bytes%s\n", p[0] & 0x3F, spf ? " (subpage format)" : "", plen,
                   p[0] & 0x80 ? ", savable" : "");
            decode_page(c, p, plen);
            if (hex || ((p[0] & 0x3F) != 0x08 && (p[0] & 0x3F) != 0x02))
                ctl_hexdump(p, plen);
        }
        off += plen;
    }
    if (c->json) {
        j_end_arr();
        j_end_obj();
        j_done();
    }
}

/* Ask on the terminal; without one (or with --yes) the answer is given. */
static bool confirm(ctl *c, const char *question, bool yes)
{
    if (yes)
        return true;
    if (!isatty(0) || c->script) {
        ctl_err(c, CTL_ENOTCONF, "%s: not confirmed (no terminal to ask on: give --yes)", question);
        return false;
    }
    fprintf(stderr, "%s [y/N] ", question);
    char line[16];
    if (fgets(line, sizeof line, stdin) == NULL || (line[0] != 'y' && line[0] != 'Y')) {
        ctl_err(c, CTL_ENOTCONF, "not confirmed: nothing changed");
        return false;
    }
    return true;
}

int cmd_modepage(ctl *c, int argc, char **argv)
{
    const char *path = NULL, *set = NULL;
    uint64_t page = 0x3F, pcv = 0;
    bool hex = false, yes = c->yes;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--page") == 0) {
            if (!ctl_parse_u64(argv[++i], &page) || page > 0x3F)
                return ctl_usage(c, "bad --page '%s' (0..0x3F; 0x3F = all)", argv[i]);
        } else if (strcmp(a, "--pc") == 0) {
            static const char *const pcs[] = {"cur", "chg", "def", "sav"};
            const char *v = argv[++i];
            for (pcv = 0; pcv < 4 && strncmp(v, pcs[pcv], 3) != 0; pcv++)
                ;
            if (pcv == 4)
                return ctl_usage(c, "bad --pc '%s' (current, changeable, default or saved)", v);
        } else if (strcmp(a, "--set") == 0) {
            set = argv[++i];
        } else if (strcmp(a, "--yes") == 0) {
            yes = true;
        } else if (strcmp(a, "--hex") == 0) {
            hex = true;
        } else if (path == NULL) {
            path = a;
        } else {
            return ctl_usage(c, "unexpected argument '%s'", a);
        }
    }
    if (set != NULL && (page == 0x3F || pcv != 0))
        return ctl_usage(c, "--set needs one --page (not 0x3F) and the current values");
    /* Parse the edits first: OFFSET=BYTE,... with OFFSET counted from the page code byte. */
    struct { unsigned off; uint8_t val; } ed[32];
    unsigned ned = 0;
    if (set != NULL) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", set);
        for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
            char *eq = strchr(tok, '=');
            uint64_t o, v;
            if (eq == NULL || ned == 32)
                return ctl_usage(c, "bad --set '%s' (OFFSET=BYTE,..., at most 32)", set);
            *eq = '\0';
            if (!ctl_parse_u64(tok, &o) || o < 2 || o > 255 || !ctl_parse_u64(eq + 1, &v) || v > 0xFF)
                return ctl_usage(c, "bad --set item '%s=%s' (OFFSET 2..255 within the page, BYTE 0..255)", tok,
                                 eq + 1);
            ed[ned].off = (unsigned)o;
            ed[ned].val = (uint8_t)v;
            ned++;
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
    static uint8_t b[4096], mask[4096];
    size_t got = 0, mgot = 0;
    if (set == NULL) {
        rc = mode_sense(c, t, l, (uint8_t)page, (uint8_t)pcv, false, b, sizeof b, &got);
        if (rc == 0)
            show_mode(c, t, l, b, got, hex);
        return rc;
    }
    rc = mode_sense(c, t, l, (uint8_t)page, 0, true, b, sizeof b, &got);
    if (rc == 0)
        rc = mode_sense(c, t, l, (uint8_t)page, 1, true, mask, sizeof mask, &mgot);
    if (rc != 0)
        return rc;
    size_t bdl = (size_t)(b[6] << 8 | b[7]);
    uint8_t *p = b + 8 + bdl;
    size_t plen = 8 + bdl + 2 <= got ? (size_t)p[1] + 2 : 0;
    if (plen == 0 || 8 + bdl + plen > got || (p[0] & 0x3F) != page)
        return ctl_err(c, CTL_ESANITY, "MODE SENSE did not return page 0x%02x", (unsigned)page);
    const uint8_t *m = mask + 8 + (size_t)(mask[6] << 8 | mask[7]);
    char question[512];
    size_t qn = (size_t)snprintf(question, sizeof question, "%u:%u page 0x%02x:", t, l, (unsigned)page);
    unsigned nchanged = 0;
    for (unsigned i = 0; i < ned; i++) {
        if (ed[i].off >= plen)
            return ctl_usage(c, "--set offset %u is beyond page 0x%02x (%zu bytes)", ed[i].off, (unsigned)page, plen);
        uint8_t changed = (uint8_t)(ed[i].val ^ p[ed[i].off]);
        if ((changed & ~m[ed[i].off]) != 0)
            return ctl_err(c, CTL_EUSAGE, "page 0x%02x byte %u: bits 0x%02x are not changeable (mask 0x%02x)",
                           (unsigned)page, ed[i].off, changed & ~m[ed[i].off], m[ed[i].off]);
        /* A byte that already holds the value is no change: not asked about. */
        if (changed != 0 && qn < sizeof question)
            qn += (size_t)snprintf(question + qn, sizeof question - qn, " byte %u 0x%02x -> 0x%02x", ed[i].off,
                                   p[ed[i].off], ed[i].val);
        nchanged += changed != 0;
        p[ed[i].off] = ed[i].val;
    }
    /* Nothing to change: no MODE SELECT (it would only rewrite the page,
     * and a saved page with it). */
    if (nchanged == 0) {
        if (!c->json)
            printf("%u:%u page 0x%02x: the page already holds these values; nothing sent\n", t, l, (unsigned)page);
        rc = mode_sense(c, t, l, (uint8_t)page, 0, false, b, sizeof b, &got);
        if (rc == 0)
            show_mode(c, t, l, b, got, hex);
        return rc;
    }
    if (qn < sizeof question)
        snprintf(question + qn, sizeof question - qn, "; MODE SELECT?");
    if (!c->json)
        printf("%s\n", question);
    if (!confirm(c, "apply the change", yes))
        return CTL_ENOTCONF;
    /* MODE SELECT(10), PF: the header's mode data length is reserved (0), PS
     * is reserved in the page; no block descriptor (DBD was set). */
    uint8_t param[8 + 256];
    memset(param, 0, 8);
    memcpy(param + 8, p, plen);
    param[8] &= 0x7F;
    uint8_t cdb[16];
    ctl_io io;
    int n = pcam_cdb_mode_select(cdb, sizeof cdb, 10, true, false, (uint16_t)(8 + plen));
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_OUT, param, (uint32_t)(8 + plen));
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "MODE SELECT(10)", &io);
    rc = mode_sense(c, t, l, (uint8_t)page, 0, false, b, sizeof b, &got);
    if (rc == 0)
        show_mode(c, t, l, b, got, hex);
    return rc;
}

/* ------------------------------------------------------------------ */

static int start_stop(ctl *c, int argc, char **argv, bool loej, bool start, const char *what)
{
    uint8_t t, l, cdb[16];
    ctl_io io;
    int rc = ctl_one_path(c, argc, argv, &t, &l);
    if (rc != 0)
        return rc;
    int n = pcam_cdb_start_stop_unit(cdb, sizeof cdb, false, 0, loej, start);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_NONE, NULL, 0);
    io.ccb.timeout_ms = 60000; /* a spin-up takes seconds */
    char name[64];
    snprintf(name, sizeof name, "START STOP UNIT (%s)", what);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, name, &io);
    if (c->json) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_str("action", what);
        j_end_obj();
        j_done();
    } else {
        printf("%u:%u: %s: done\n", t, l, what);
    }
    return 0;
}

int cmd_start(ctl *c, int argc, char **argv) { return start_stop(c, argc, argv, false, true, "start"); }
int cmd_stop(ctl *c, int argc, char **argv) { return start_stop(c, argc, argv, false, false, "stop"); }
int cmd_eject(ctl *c, int argc, char **argv) { return start_stop(c, argc, argv, true, false, "eject"); }
int cmd_load(ctl *c, int argc, char **argv) { return start_stop(c, argc, argv, true, true, "load"); }

int cmd_requests(ctl *c, int argc, char **argv)
{
    uint8_t t, l, cdb[16], s[252];
    ctl_io io;
    int rc = ctl_one_path(c, argc, argv, &t, &l);
    if (rc != 0)
        return rc;
    int n = pcam_cdb_request_sense(cdb, sizeof cdb, sizeof s, false);
    ctl_io_init(&io, t, l, cdb, n, PCAM_DIR_IN, s, sizeof s);
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP)
        return ctl_io_fail(c, "REQUEST SENSE", &io);
    size_t got = sizeof s - io.ccb.u.io.resid;
    pcam_sense d;
    pcam_err e = pcam_sense_decode(s, got, &d);
    if (c->json && e == PCAM_OK) {
        j_obj(NULL);
        j_u64("target", t);
        j_u64("lun", l);
        j_sense("sense", s, got);
        j_end_obj();
        j_done();
    }
    if (e != PCAM_OK)
        return ctl_err(c, CTL_ESANITY, "REQUEST SENSE returned invalid sense data (%zu bytes): %s", got,
                       pcam_strerror(e));
    if (!c->json) {
        char line[256];
        pcam_sense_format(&d, line, sizeof line);
        printf("%u:%u: %s\n", t, l, line);
    }
    return 0;
}

/* ------------------------------------------------------------------ */

/* Which LUNs 0..7 of each target the device table holds. */
static unsigned present(ctl *c, uint8_t m[PCAM_MAX_TARGETS])
{
    unsigned count = 0;
    for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++) {
        m[t] = 0;
        for (unsigned l = 0; l < c->bcfg.luns_per_target && l < 8; l++) {
            pcam_ccb ccb;
            memset(&ccb, 0, sizeof ccb);
            ccb.func = PCAM_FN_GET_DEV;
            ccb.target = (uint8_t)t;
            ccb.lun = (uint8_t)l;
            if (ctl_sync(c, &ccb, 1000) == PCAM_REQ_CMP && ccb.u.dev.present) {
                m[t] |= (uint8_t)(1u << l);
                count++;
            }
        }
    }
    return count;
}

int cmd_rescan(ctl *c, int argc, char **argv)
{
    (void)argv;
    if (argc != 0)
        return ctl_usage(c, "takes no arguments");
    int rc = ctl_open(c);
    if (rc != 0)
        return rc;
    uint8_t before[PCAM_MAX_TARGETS], after[PCAM_MAX_TARGETS];
    unsigned before_n = present(c, before), after_n;
    static pcam_counters k0[PCAM_MAX_TARGETS];
    for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++)
        if (pcam_bus_get_counters(ctl_bus(c), (uint8_t)t, &k0[t]) != PCAM_OK)
            memset(&k0[t], 0, sizeof k0[t]);
    /* What the scan before this one left over is not this scan's news. */
    static pcam_event old[PCAM_EVENT_RING];
    (void)pcam_bus_read_events(ctl_bus(c), old, PCAM_EVENT_RING);
    pcam_ccb scan;
    memset(&scan, 0, sizeof scan);
    scan.func = PCAM_FN_SCAN_BUS;
    uint32_t st = ctl_sync(c, &scan, 120000);
    if (st != PCAM_REQ_CMP)
        return ctl_err(c, CTL_EOTHER, "bus scan failed: %s", ctl_status_sentence(st));
    ctl_scan_review(c, k0);
    after_n = present(c, after);
    if (c->json) {
        j_obj(NULL);
        j_u64("before", before_n);
        j_u64("count", after_n);
        j_arr("found");
    } else {
        printf("rescan: %u device%s (before: %u)", after_n, after_n == 1 ? "" : "s", before_n);
    }
    for (int pass = 0; pass < 2; pass++) {
        unsigned shown = 0;
        if (!c->json)
            printf("%s", pass == 0 ? "; found:" : "; lost:");
        for (unsigned b = 0; b < 8u * PCAM_MAX_TARGETS; b++)
            if (((pass == 0 ? after[b / 8] & ~before[b / 8] : before[b / 8] & ~after[b / 8]) >> (b % 8)) & 1u) {
                char idl[8];
                shown++;
                snprintf(idl, sizeof idl, "%u:%u", b / 8, b % 8);
                if (c->json)
                    j_str(NULL, idl);
                else
                    printf(" %s", idl);
            }
        if (shown == 0 && !c->json)
            printf(" none");
        if (c->json) {
            j_end_arr();
            if (pass == 0)
                j_arr("lost");
        }
    }
    if (c->json) {
        j_bool("scan_complete", c->scan_trouble == 0);
        j_arr("scan_failed_targets");
    }
    for (unsigned t = 0; t < PCAM_MAX_TARGETS; t++) {
        if (!(c->scan_trouble & (1u << t)))
            continue;
        if (c->json) {
            j_obj(NULL);
            j_u64("target", t);
            j_str("reason", c->scan_why[t]);
            j_end_obj();
        } else {
            printf("; not scanned: target %u (%s)", t, c->scan_why[t]);
        }
    }
    if (c->json) {
        j_end_arr();
        j_end_obj();
        j_done();
    } else {
        putchar('\n');
    }
    if (c->scan_trouble != 0)
        return ctl_err(c, CTL_ESCAN, "rescan: the scan is incomplete (targets not scanned are named above)");
    return 0;
}
