/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes a pattern disk image for tests/uefi: byte j of 512-byte block n is
 * n's big-endian bytes for j < 4, else (n * 13 + j) mod 256. The UEFI test
 * application checks what it reads through pcam against the same rule, so
 * the expectation is QEMU's image file, not anything pcam computed.
 * usage: mkpattern FILE BLOCKS
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned char b[512];
    unsigned long n, blocks;
    FILE *f;

    if (argc != 3) {
        fprintf(stderr, "usage: mkpattern FILE BLOCKS\n");
        return 2;
    }
    blocks = strtoul(argv[2], NULL, 0);
    f = fopen(argv[1], "wb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    for (n = 0; n < blocks; n++) {
        for (unsigned j = 0; j < sizeof b; j++)
            b[j] = j < 4 ? (unsigned char)(n >> (24 - 8 * j)) : (unsigned char)(n * 13u + j);
        if (fwrite(b, 1, sizeof b, f) != sizeof b) {
            perror(argv[1]);
            return 1;
        }
    }
    return fclose(f) == 0 ? 0 : 1;
}
