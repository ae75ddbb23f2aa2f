/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fwcheck: the host side of the firmware boots' data proof. After QEMU has
 * exited, it reads the disk image and checks that each range the firmware
 * wrote holds the pattern (block n: n big-endian, "PCAM", then
 * (n * 7 + j * 3 + seed) mod 256, as examples/firmware/fw_main.c says) and
 * that the blocks just before and after each range are still zero, so a
 * write that landed one block off or not at all is caught from the image
 * itself, not from anything the firmware reported.
 * usage: fwcheck IMAGE LBA BLOCKS SEED [LBA BLOCKS SEED ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_block(FILE *f, unsigned long lba, unsigned char *b)
{
    return fseek(f, (long)(lba * 512ul), SEEK_SET) == 0 && fread(b, 1, 512, f) == 512 ? 0 : -1;
}

int main(int argc, char **argv)
{
    unsigned char b[512], want[512], zero[512];
    FILE *f;
    int bad = 0;

    if (argc < 5 || (argc - 2) % 3 != 0) {
        fprintf(stderr, "usage: fwcheck IMAGE LBA BLOCKS SEED [LBA BLOCKS SEED ...]\n");
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    memset(zero, 0, sizeof zero);
    for (int a = 2; a + 2 < argc; a += 3) {
        unsigned long lba = strtoul(argv[a], NULL, 0), n = strtoul(argv[a + 1], NULL, 0);
        unsigned seed = (unsigned)strtoul(argv[a + 2], NULL, 0);
        unsigned long diff = 0;
        for (unsigned long k = 0; k < n; k++) {
            unsigned long l = lba + k;
            for (unsigned j = 0; j < 512; j++)
                want[j] = (unsigned char)(l * 7u + j * 3u + seed);
            want[0] = (unsigned char)(l >> 24);
            want[1] = (unsigned char)(l >> 16);
            want[2] = (unsigned char)(l >> 8);
            want[3] = (unsigned char)l;
            memcpy(want + 4, "PCAM", 4);
            if (read_block(f, l, b) != 0 || memcmp(b, want, 512) != 0)
                diff++;
        }
        int edges = (lba == 0 || (read_block(f, lba - 1, b) == 0 && memcmp(b, zero, 512) == 0)) &&
                    read_block(f, lba + n, b) == 0 && memcmp(b, zero, 512) == 0;
        printf("fwcheck: %s LBA %lu..%lu seed 0x%02x: %lu of %lu blocks differ; neighbours %s\n",
               argv[1], lba, lba + n - 1, seed, diff, n, edges ? "untouched" : "WRITTEN");
        bad += diff != 0 || !edges;
    }
    fclose(f);
    return bad != 0;
}
