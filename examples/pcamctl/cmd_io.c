/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read and write: blocks between a device and a file, in chunks of at most
 * 64 KiB per command (and never more than the chip takes per CCB).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"

#define CHUNK_BYTES 65536u

typedef struct io_args {
    const char *path, *file;
    uint64_t lba, count;
    bool have_lba, have_count;
    uint8_t t, l;
} io_args;

static int parse_io(ctl *c, const char *name, bool write, int argc, char **argv, io_args *a)
{
    const char *fopt = write ? "-i" : "-o";
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--lba") == 0 && v != NULL) {
            if (!ctl_parse_u64(v, &a->lba))
                return ctl_err(c, CTL_EUSAGE, "%s: bad --lba '%s'", name, v);
            a->have_lba = true;
            i++;
        } else if (strcmp(argv[i], "--count") == 0 && v != NULL) {
            if (!ctl_parse_u64(v, &a->count) || a->count == 0)
                return ctl_err(c, CTL_EUSAGE, "%s: bad --count '%s' (1 or more blocks)", name, v);
            a->have_count = true;
            i++;
        } else if ((strcmp(argv[i], fopt) == 0 || strcmp(argv[i], "--file") == 0) && v != NULL) {
            a->file = v;
            i++;
        } else if (a->path == NULL && argv[i][0] != '-') {
            a->path = argv[i];
        } else {
            return ctl_err(c, CTL_EUSAGE, "%s: unexpected argument '%s'", name, argv[i]);
        }
    }
    if (a->path == NULL || !a->have_lba || a->file == NULL || (!write && !a->have_count))
        return ctl_err(c, CTL_EUSAGE, "usage: pcamctl %s PATH --lba N %s %s FILE", name,
                       write ? "[--count N]" : "--count N", fopt);
    if (!write && strcmp(a->file, "-") == 0 && c->json)
        return ctl_err(c, CTL_EUSAGE, "read: --json and -o - would share stdout");
    return ctl_parse_path(c, a->path, &a->t, &a->l, true);
}

static int setup(ctl *c, io_args *a, uint32_t *bs, uint32_t *chunk)
{
    uint64_t blocks;
    int rc = ctl_open(c);
    if (rc == 0)
        rc = ctl_need_device(c, a->t, a->l, NULL);
    if (rc == 0)
        rc = ctl_capacity(c, a->t, a->l, &blocks, bs);
    if (rc != 0)
        return rc;
    if (a->lba >= blocks || a->count > blocks - a->lba)
        return ctl_err(c, CTL_EUSAGE, "blocks %llu..%llu are beyond the last block of %u:%u (%llu)",
                       (unsigned long long)a->lba, (unsigned long long)(a->lba + a->count - 1), a->t,
                       a->l, (unsigned long long)(blocks - 1));
    pcam_ccb pi;
    memset(&pi, 0, sizeof pi);
    pi.func = PCAM_FN_PATH_INQ;
    uint32_t max = CHUNK_BYTES;
    if (ctl_sync(c, &pi, 1000) == PCAM_REQ_CMP && pi.u.pathinq.max_xfer != 0 && pi.u.pathinq.max_xfer < max)
        max = pi.u.pathinq.max_xfer;
    *chunk = max / *bs != 0 ? max / *bs : 1;
    return 0;
}

/* One READ or WRITE of n blocks; (10) while the LBA fits 32 bits, else (16). */
static int transfer(ctl *c, const io_args *a, bool write, uint64_t lba, uint32_t n, uint8_t *buf,
                    uint32_t bs)
{
    uint8_t cdb[16];
    ctl_io io;
    unsigned size = lba + n - 1 > 0xFFFFFFFFull ? 16 : 10;
    int len = write ? pcam_cdb_write(cdb, sizeof cdb, size, lba, n, 0)
                    : pcam_cdb_read(cdb, sizeof cdb, size, lba, n, 0);
    if (len < 0)
        return ctl_err(c, CTL_EFAIL, "cannot build the CDB: %s", pcam_strerror(len));
    ctl_io_init(&io, a->t, a->l, cdb, len, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * bs);
    /* SIMPLE tags, as a disk driver sends them; the core sends the command
     * untagged to a LU that does not queue. */
    io.ccb.flags |= PCAM_CCB_TAGGED;
    io.ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    if (ctl_io_run(c, &io) != PCAM_REQ_CMP || io.ccb.u.io.resid != 0) {
        char what[96];
        snprintf(what, sizeof what, "%s(%u) of %u block%s at LBA %llu on %u:%u", write ? "WRITE" : "READ",
                 size, n, n == 1 ? "" : "s", (unsigned long long)lba, a->t, a->l);
        if (io.status == PCAM_REQ_CMP)
            return ctl_err(c, CTL_EFAIL, "%s: %u bytes not transferred", what, (unsigned)io.ccb.u.io.resid);
        return ctl_io_fail(c, what, &io);
    }
    return 0;
}

static void report(ctl *c, const io_args *a, bool write, uint32_t bs, bool data_on_stdout)
{
    if (c->json) {
        j_obj(NULL);
        j_str("command", write ? "write" : "read");
        j_u64("target", a->t);
        j_u64("lun", a->l);
        j_u64("lba", a->lba);
        j_u64("blocks", a->count);
        j_u64("block_size", bs);
        j_u64("bytes", a->count * bs);
        j_str("file", a->file);
        j_end_obj();
        j_done();
        return;
    }
    fprintf(data_on_stdout ? stderr : stdout, "%s %llu block%s (%llu bytes) %s %u:%u LBA %llu..%llu %s %s\n",
            write ? "wrote" : "read", (unsigned long long)a->count, a->count == 1 ? "" : "s",
            (unsigned long long)(a->count * bs), write ? "to" : "from", a->t, a->l,
            (unsigned long long)a->lba, (unsigned long long)(a->lba + a->count - 1),
            write ? "from" : "to", a->file);
}

int cmd_read(ctl *c, int argc, char **argv)
{
    io_args a;
    uint32_t bs, chunk;
    int rc = parse_io(c, "read", false, argc, argv, &a);
    if (rc == 0)
        rc = setup(c, &a, &bs, &chunk);
    if (rc != 0)
        return rc;
    bool to_stdout = strcmp(a.file, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(a.file, "wb");
    if (f == NULL)
        return ctl_err(c, CTL_EFAIL, "cannot create %s: %s", a.file, strerror(errno));
    uint8_t *buf = malloc((size_t)chunk * bs);
    if (buf == NULL) {
        if (!to_stdout)
            fclose(f);
        return ctl_err(c, CTL_EFAIL, "out of memory");
    }
    for (uint64_t done = 0; rc == 0 && done < a.count;) {
        uint32_t n = a.count - done < chunk ? (uint32_t)(a.count - done) : chunk;
        rc = transfer(c, &a, false, a.lba + done, n, buf, bs);
        if (rc == 0 && fwrite(buf, bs, n, f) != n)
            rc = ctl_err(c, CTL_EFAIL, "writing %s failed: %s", a.file, strerror(errno));
        done += n;
    }
    free(buf);
    if (!to_stdout && fclose(f) != 0 && rc == 0)
        rc = ctl_err(c, CTL_EFAIL, "writing %s failed: %s", a.file, strerror(errno));
    if (to_stdout)
        fflush(stdout);
    if (rc == 0)
        report(c, &a, false, bs, to_stdout);
    return rc;
}

int cmd_write(ctl *c, int argc, char **argv)
{
    io_args a;
    uint32_t bs, chunk;
    int rc = parse_io(c, "write", true, argc, argv, &a);
    if (rc != 0)
        return rc;
    if (strcmp(a.file, "-") == 0 && !a.have_count)
        return ctl_err(c, CTL_EUSAGE, "write: reading stdin needs --count");
    FILE *f = strcmp(a.file, "-") == 0 ? stdin : fopen(a.file, "rb");
    if (f == NULL)
        return ctl_err(c, CTL_EFAIL, "cannot open %s: %s", a.file, strerror(errno));
    /* Size the transfer before touching the device, so a bad file writes nothing. */
    long size = -1;
    if (f != stdin && fseek(f, 0, SEEK_END) == 0) {
        size = ftell(f);
        rewind(f);
    }
    if (!a.have_count) {
        a.count = 1; /* for setup's range check; fixed below */
    }
    rc = setup(c, &a, &bs, &chunk);
    if (rc == 0 && !a.have_count) {
        if (size <= 0 || (uint64_t)size % bs != 0) {
            rc = ctl_err(c, CTL_EUSAGE, "%s is %ld bytes, not a whole number of %u-byte blocks (give --count)",
                         a.file, size, bs);
        } else {
            a.count = (uint64_t)size / bs;
            uint64_t blocks;
            uint32_t bs2;
            rc = ctl_capacity(c, a.t, a.l, &blocks, &bs2);
            if (rc == 0 && a.count > blocks - a.lba)
                rc = ctl_err(c, CTL_EUSAGE, "%s needs %llu blocks; only %llu fit from LBA %llu", a.file,
                             (unsigned long long)a.count, (unsigned long long)(blocks - a.lba),
                             (unsigned long long)a.lba);
        }
    } else if (rc == 0 && size >= 0 && (uint64_t)size < a.count * bs) {
        rc = ctl_err(c, CTL_EUSAGE, "%s holds %ld bytes; --count %llu needs %llu", a.file, size,
                     (unsigned long long)a.count, (unsigned long long)(a.count * bs));
    }
    uint8_t *buf = rc == 0 ? malloc((size_t)chunk * bs) : NULL;
    if (rc == 0 && buf == NULL)
        rc = ctl_err(c, CTL_EFAIL, "out of memory");
    for (uint64_t done = 0; rc == 0 && done < a.count;) {
        uint32_t n = a.count - done < chunk ? (uint32_t)(a.count - done) : chunk;
        if (fread(buf, bs, n, f) != n) {
            rc = ctl_err(c, CTL_EFAIL, "%s ended before %llu blocks", a.file, (unsigned long long)a.count);
            break;
        }
        rc = transfer(c, &a, true, a.lba + done, n, buf, bs);
        done += n;
    }
    free(buf);
    if (f != stdin)
        fclose(f);
    if (rc == 0)
        report(c, &a, true, bs, false);
    return rc;
}
