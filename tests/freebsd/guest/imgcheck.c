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
 * usage: imgcheck make|check|big|checkbig IMAGE BLOCKS
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

int main(int argc, char **argv)
{
    unsigned char b[512];
    unsigned long n, blocks, bad = 0, first_bad = 0;
    FILE *f;

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
