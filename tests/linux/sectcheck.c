/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest-side check of a pattern disk (tests/linux/vm_lib.sh's
 * vm_pattern_image: every 512-byte sector holds its own number as 64
 * little-endian u64s), read the way dd reads it. It names the first sectors
 * that hold something else, and what they hold, so that a wrong checksum
 * says whether data went to the wrong place, came from the wrong LBA, or
 * never arrived. Only reads.
 * usage: sectcheck DEVICE
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static unsigned char buf[1 << 20];
    uint64_t sector = 0, bad = 0;
    ssize_t n;
    int fd;

    if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0) {
        fprintf(stderr, "usage: sectcheck DEVICE\n");
        return 2;
    }
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off + 512 <= n; off += 512, sector++) {
            uint64_t first, v;
            int same = 1;
            memcpy(&first, buf + off, 8);
            for (int i = 1; i < 64; i++) {
                memcpy(&v, buf + off + 8 * i, 8);
                same &= v == first;
            }
            if (first == sector && same)
                continue;
            if (bad++ < 8)
                printf("sectcheck: sector %llu holds %s%llu\n", (unsigned long long)sector,
                       same ? "sector " : "mixed data starting ", (unsigned long long)first);
        }
    }
    close(fd);
    printf("sectcheck: %llu sectors read, %llu wrong\n", (unsigned long long)sector,
           (unsigned long long)bad);
    return bad != 0;
}
