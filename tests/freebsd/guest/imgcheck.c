/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host side of the FreeBSD guest test: makes a data disk image with the host
 * pattern before the boot and, after QEMU has exited, checks it block by
 * block. The guest's write range must hold the guest
 * pattern, every other block the host pattern the image was made with
 * (pattern.h), so a write that went to the wrong place or a read-back that
 * only came from a cache both fail here.
 * A disk over 2 TiB is a sparse image ("big"): only the blocks around
 * PAT_BIG_BASE are written and checked ("checkbig").
 * "dump" checks a disk the guest's kernel dumped to (made with "make"):
 * FreeBSD's layout (sys/kern/kern_shutdown.c dump_start, sys/sys/kerneldump.h;
 * facts only): the trailing kerneldumpheader in the last block, the dump
 * extent before it, the leading header (the same bytes) in the block before
 * the extent, the amd64 minidump's magic at the extent's start, and every
 * block before the leader still the host pattern.
 * "soak" checks a disk of the sustained-load boot: every block is either
 * the host pattern or a soak sector (pattern.h) of that disk's unit and
 * that very LBA; it prints how many of each.
 * usage: imgcheck make|check|big|checkbig IMAGE BLOCKS
 *        imgcheck dump IMAGE BLOCKS PANICSTRING MB   (MB: the console's "Dumping MB out of")
 *        imgcheck soak IMAGE BLOCKS UNIT
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* Block n of f against the host (guest 0) or guest (1) pattern; 0 = match. */
static int block_differs(FILE *f, unsigned long long n, int guest)
{
    unsigned char b[512];
    if (fseeko(f, (off_t)(n * 512u), SEEK_SET) != 0 || fread(b, 1, sizeof b, f) != sizeof b)
        return 1;
    for (unsigned j = 0; j < sizeof b; j++)
        if (b[j] != (guest ? pat_guest(n, j) : pat_host(n, j)))
            return 1;
    return 0;
}

static int big(const char *path, unsigned long long blocks, int check)
{
    unsigned char b[512];
    unsigned long long n, bad = 0;
    FILE *f = fopen(path, check ? "rb" : "wb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    if (!check) {
        for (n = PAT_BIG_BASE; n < PAT_BIG_BASE + PAT_BIG_BLOCKS; n++) {
            for (unsigned j = 0; j < sizeof b; j++)
                b[j] = pat_host(n, j);
            if (fseeko(f, (off_t)(n * 512u), SEEK_SET) != 0 || fwrite(b, 1, sizeof b, f) != sizeof b) {
                perror(path);
                return 1;
            }
        }
        /* The last block makes the file its full (sparse) size. */
        memset(b, 0, sizeof b);
        if (fseeko(f, (off_t)((blocks - 1) * 512u), SEEK_SET) != 0 || fwrite(b, 1, sizeof b, f) != sizeof b) {
            perror(path);
            return 1;
        }
        return fclose(f) == 0 ? 0 : 1;
    }
    for (n = PAT_BIG_BASE; n < PAT_BIG_BASE + PAT_BIG_BLOCKS; n++)
        bad += (unsigned long long)block_differs(f, n, 0);
    for (n = PAT_BIG_BASE + PAT_WRITE_LBA; n < PAT_BIG_BASE + PAT_WRITE_LBA + PAT_WRITE_BLOCKS; n++)
        bad += (unsigned long long)block_differs(f, n, 1);
    fclose(f);
    if (bad != 0) {
        printf("%s: %llu blocks wrong above block 2^32\n", path, bad);
        return 1;
    }
    printf("%s: blocks 2^32+0..%u (host) and 2^32+%u..%u (written by the guest) as expected\n", path,
           PAT_BIG_BLOCKS - 1, PAT_WRITE_LBA, PAT_WRITE_LBA + PAT_WRITE_BLOCKS - 1);
    return 0;
}

static unsigned long long be(const unsigned char *p, unsigned n)
{
    unsigned long long v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* struct kerneldumpheader (512 bytes; integers big-endian, as htod32/64 store them). */
enum { KDH_ARCH = 20, KDH_VERSION = 32, KDH_ARCHVER = 36, KDH_LENGTH = 40, KDH_KEYSIZE = 56, KDH_BLOCKSIZE = 60,
       KDH_PANIC = 320, KDH_COMPRESSION = 495, KDH_EXTENT = 496 };

static int dump(const char *path, unsigned long long blocks, const char *panic, unsigned long long mb)
{
    unsigned char tr[512], ld[512], b[512];
    unsigned long long len, ext, lead, bad = 0;
    unsigned parity = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    if (fseeko(f, (off_t)((blocks - 1) * 512u), SEEK_SET) != 0 || fread(tr, 1, 512, f) != 512) {
        fprintf(stderr, "%s: cannot read the last block\n", path);
        return 1;
    }
    for (unsigned i = 0; i < 512; i += 4)
        parity ^= (unsigned)tr[i] | (unsigned)tr[i + 1] << 8 | (unsigned)tr[i + 2] << 16 | (unsigned)tr[i + 3] << 24;
    len = be(tr + KDH_LENGTH, 8);
    ext = be(tr + KDH_EXTENT, 8);
    if (memcmp(tr, "FreeBSD Kernel Dump", 20) != 0 || strcmp((const char *)tr + KDH_ARCH, "amd64") != 0 ||
        be(tr + KDH_VERSION, 4) != 4 || be(tr + KDH_ARCHVER, 4) != 2 || be(tr + KDH_BLOCKSIZE, 4) != 512 ||
        be(tr + KDH_KEYSIZE, 4) != 0 || tr[KDH_COMPRESSION] != 0 || parity != 0 ||
        strncmp((const char *)tr + KDH_PANIC, panic, 175) != 0) {
        fprintf(stderr, "%s: the last block is no kerneldumpheader of an uncompressed amd64 dump with panic '%s' "
                "(magic '%.19s', arch '%.11s', version %llu, blocksize %llu, parity %08x, panic '%.40s')\n",
                path, panic, (const char *)tr, (const char *)tr + KDH_ARCH, be(tr + KDH_VERSION, 4),
                be(tr + KDH_BLOCKSIZE, 4), parity, (const char *)tr + KDH_PANIC);
        return 1;
    }
    if (len == 0 || len != ext || len % 512 != 0 || len / 512 + 2 > blocks || len >> 20 != mb) {
        fprintf(stderr, "%s: dump length %llu, extent %llu: not the console's %llu MB within %llu blocks\n", path,
                len, ext, mb, blocks);
        return 1;
    }
    lead = blocks - 2 - len / 512;
    if (fseeko(f, (off_t)(lead * 512u), SEEK_SET) != 0 || fread(ld, 1, 512, f) != 512 || fread(b, 1, 512, f) != 512 ||
        memcmp(ld, tr, 512) != 0 || memcmp(b, "minidump FreeBSD/amd64", 23) != 0) {
        fprintf(stderr, "%s: block %llu is not the same header, or block %llu no minidump header\n", path, lead,
                lead + 1);
        return 1;
    }
    for (unsigned long long n = 0; n < lead; n++)
        bad += (unsigned long long)block_differs(f, n, 0);
    fclose(f);
    if (bad != 0) {
        printf("%s: %llu blocks before the dump are not the host pattern\n", path, bad);
        return 1;
    }
    printf("%s: kernel dump of %llu bytes (%llu MB) in blocks %llu..%llu, headers the same, panic '%s', "
           "blocks 0..%llu untouched\n", path, len, mb, lead, blocks - 1, panic, lead - 1);
    return 0;
}

static int soak(const char *path, unsigned long long blocks, unsigned unit)
{
    unsigned char b[512];
    unsigned long long host = 0, soaked = 0, bad = 0, first_bad = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    for (unsigned long long n = 0; n < blocks; n++) {
        int ok = 1;
        if (fread(b, 1, sizeof b, f) != sizeof b) {
            fprintf(stderr, "%s: short at block %llu\n", path, n);
            return 1;
        }
        for (unsigned j = 0; j < sizeof b && ok; j++)
            ok = b[j] == pat_host((unsigned long)n, j);
        if (ok) {
            host++;
            continue;
        }
        unsigned gen = (unsigned)b[17] | (unsigned)b[18] << 8;
        ok = gen != 0;
        for (unsigned j = 0; j < sizeof b && ok; j++)
            ok = b[j] == pat_soak(unit, (unsigned long)n, gen, j);
        if (ok) {
            soaked++;
        } else if (bad++ == 0) {
            first_bad = n;
        }
    }
    fclose(f);
    if (bad != 0) {
        printf("%s: %llu blocks neither the host pattern nor da%u's soak sector for their LBA, the first %llu\n",
               path, bad, unit, first_bad);
        return 1;
    }
    printf("%s: %llu blocks: %llu soak sectors of da%u at their own LBA, %llu host pattern\n", path, blocks,
           soaked, unit, host);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned char b[512];
    unsigned long n, blocks, bad = 0, first_bad = 0;
    FILE *f;

    if (argc == 5 && strcmp(argv[1], "soak") == 0)
        return soak(argv[2], strtoull(argv[3], NULL, 0), (unsigned)strtoul(argv[4], NULL, 0));
    if (argc == 6 && strcmp(argv[1], "dump") == 0)
        return dump(argv[2], strtoull(argv[3], NULL, 0), argv[4], strtoull(argv[5], NULL, 0));
    if (argc != 4) {
        fprintf(stderr, "usage: imgcheck make|check|big|checkbig IMAGE BLOCKS\n");
        return 2;
    }
    if (strcmp(argv[1], "big") == 0 || strcmp(argv[1], "checkbig") == 0)
        return big(argv[2], strtoull(argv[3], NULL, 0), argv[1][0] == 'c');
    if (strcmp(argv[1], "make") != 0 && strcmp(argv[1], "check") != 0) {
        fprintf(stderr, "usage: imgcheck make|check|big|checkbig IMAGE BLOCKS\n");
        return 2;
    }
    blocks = strtoul(argv[3], NULL, 0);
    if (strcmp(argv[1], "make") == 0) {
        f = fopen(argv[2], "wb");
        if (f == NULL) {
            perror(argv[2]);
            return 1;
        }
        for (n = 0; n < blocks; n++) {
            for (unsigned j = 0; j < sizeof b; j++)
                b[j] = pat_host(n, j);
            if (fwrite(b, 1, sizeof b, f) != sizeof b) {
                perror(argv[2]);
                return 1;
            }
        }
        return fclose(f) == 0 ? 0 : 1;
    }
    argv++;
    f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    for (n = 0; n < blocks; n++) {
        int guest = n >= PAT_WRITE_LBA && n < PAT_WRITE_LBA + PAT_WRITE_BLOCKS;
        if (fread(b, 1, sizeof b, f) != sizeof b) {
            fprintf(stderr, "%s: short at block %lu\n", argv[1], n);
            return 1;
        }
        for (unsigned j = 0; j < sizeof b; j++) {
            if (b[j] != (guest ? pat_guest(n, j) : pat_host(n, j))) {
                if (bad++ == 0)
                    first_bad = n;
                break;
            }
        }
    }
    fclose(f);
    if (bad != 0) {
        printf("%s: %lu of %lu blocks wrong, the first %lu\n", argv[1], bad, blocks, first_bad);
        return 1;
    }
    printf("%s: %lu blocks as expected (blocks %u..%u written by the guest)\n", argv[1], blocks,
           PAT_WRITE_LBA, PAT_WRITE_LBA + PAT_WRITE_BLOCKS - 1);
    return 0;
}
