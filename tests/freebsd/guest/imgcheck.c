/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host side of the FreeBSD guest test: makes a data disk image with the host
 * pattern before the boot and, after QEMU has exited, checks it block by
 * block. The guest's write range must hold the guest
 * pattern, every other block the host pattern the image was made with
 * (pattern.h), so a write that went to the wrong place or a read-back that
 * only came from a cache both fail here.
 * usage: imgcheck make|check IMAGE BLOCKS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

int main(int argc, char **argv)
{
    unsigned char b[512];
    unsigned long n, blocks, bad = 0, first_bad = 0;
    FILE *f;

    if (argc != 4 || (strcmp(argv[1], "make") != 0 && strcmp(argv[1], "check") != 0)) {
        fprintf(stderr, "usage: imgcheck make|check IMAGE BLOCKS\n");
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
