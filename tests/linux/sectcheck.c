/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest-side (and host-side) check of a pattern disk (tests/linux/vm_lib.sh's
 * vm_pattern_image: every 512-byte sector holds its own number as 64
 * little-endian u64s). It names the first sectors that hold something else,
 * and what they hold, so that a wrong checksum says whether data went to the
 * wrong place, came from the wrong LBA, or never arrived: the first eight
 * wrong sectors one by one, then up to 32 runs of them.
 *
 *   sectcheck DEVICE
 *     reads the whole device (or a pipe: the very bytes another reader of
 *     the stream sees) the way dd reads it (page cache, 1 MiB reads) and
 *     checks that sector n holds n.
 *   sectcheck [-d] [-w] [-b BASE] DEVICE FIRST COUNT
 *     checks (or, with -w, writes) COUNT sectors from sector FIRST, in reads
 *     or writes of at most 1 MiB each, sector n holding n + BASE (BASE in
 *     hex or decimal, default 0: a second writer's pattern differs from the
 *     first's in every sector). -d uses O_DIRECT, so every read or write is
 *     one request to the driver, starting at FIRST (an unaligned FIRST makes
 *     one of them straddle a given LBA). Sector numbers are 64-bit: the
 *     over-2-TiB check writes and reads sectors above 2^32 with it and the
 *     host checks the image with the same program.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)

/* Consecutive wrong sectors, each holding the next of a run of sectors
 * (a misplaced block of data shows as one line), or one mixed sector. */
struct wrong_run {
    uint64_t at, holds, len;
    int same;
};

static void flush_run(struct wrong_run *r)
{
    static unsigned shown;
    if (r->len != 0 && shown++ < 32)
        printf("sectcheck: run: sectors %llu..%llu hold %s%llu..%llu\n", (unsigned long long)r->at,
               (unsigned long long)(r->at + r->len - 1), r->same ? "" : "mixed data starting ",
               (unsigned long long)r->holds, (unsigned long long)(r->holds + r->len - 1));
    r->len = 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: sectcheck DEVICE | sectcheck [-d] [-w] [-b BASE] DEVICE FIRST COUNT\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned char *buf;
    uint64_t sector = 0, end = UINT64_MAX, base = 0, bad = 0, done = 0;
    int fd, opt, direct = 0, write_mode = 0, ranged;
    struct wrong_run run = {0, 0, 0, 0};

    while ((opt = getopt(argc, argv, "dwb:")) != -1) {
        switch (opt) {
        case 'd': direct = 1; break;
        case 'w': write_mode = 1; break;
        case 'b': base = strtoull(optarg, NULL, 0); break;
        default: return usage();
        }
    }
    ranged = argc - optind == 3;
    if (!ranged && (argc - optind != 1 || direct || write_mode || base != 0))
        return usage();
    if (ranged) {
        sector = strtoull(argv[optind + 1], NULL, 0);
        end = sector + strtoull(argv[optind + 2], NULL, 0);
    }
    if (posix_memalign((void **)&buf, 4096, CHUNK) != 0)
        return 2;
    fd = open(argv[optind], (write_mode ? O_WRONLY : O_RDONLY) | (direct ? O_DIRECT : 0));
    if (fd < 0) {
        perror(argv[optind]);
        return 2;
    }
    while (sector < end) {
        uint64_t left = end - sector;
        size_t want = left < CHUNK / 512 ? (size_t)left * 512 : CHUNK;
        off_t at = (off_t)(sector * 512);
        ssize_t n;
        if (write_mode) {
            for (size_t off = 0; off < want; off += 512) {
                uint64_t v = sector + off / 512 + base;
                for (int i = 0; i < 64; i++)
                    memcpy(buf + off + 8 * i, &v, 8);
            }
            n = pwrite(fd, buf, want, at);
            if (n != (ssize_t)want) {
                printf("sectcheck: write of %zu bytes at sector %llu failed (%zd)\n", want,
                       (unsigned long long)sector, n);
                return 1;
            }
            sector += want / 512;
            done += want / 512;
            continue;
        }
        if (ranged) {
            n = pread(fd, buf, want, at);
        } else {
            /* whole sectors even from a pipe, whose reads may end anywhere */
            ssize_t got;
            n = 0;
            while ((size_t)n < want && (got = read(fd, buf + n, want - (size_t)n)) > 0)
                n += got;
        }
        if (n <= 0) {
            if (ranged)
                printf("sectcheck: read of %zu bytes at sector %llu failed (%zd)\n", want,
                       (unsigned long long)sector, n);
            break;
        }
        for (ssize_t off = 0; off + 512 <= n; off += 512, sector++, done++) {
            uint64_t first, v;
            int same = 1;
            memcpy(&first, buf + off, 8);
            for (int i = 1; i < 64; i++) {
                memcpy(&v, buf + off + 8 * i, 8);
                same &= v == first;
            }
            if (first == sector + base && same) {
                flush_run(&run);
                continue;
            }
            if (run.len != 0 && run.same && same && sector == run.at + run.len &&
                first - base == run.holds + run.len) {
                run.len++;
            } else {
                flush_run(&run);
                run = (struct wrong_run){sector, first - base, 1, same};
            }
            if (bad++ < 8)
                printf("sectcheck: sector %llu holds %s%llu%s\n", (unsigned long long)sector,
                       same ? "sector " : "mixed data starting ",
                       (unsigned long long)(first - base), base != 0 ? " (less the base)" : "");
        }
    }
    flush_run(&run);
    if (write_mode && fsync(fd) != 0) {
        perror("fsync");
        return 1;
    }
    close(fd);
    if (write_mode) {
        printf("sectcheck: %llu sectors written\n", (unsigned long long)done);
        return 0;
    }
    printf("sectcheck: %llu sectors read, %llu wrong\n", (unsigned long long)done,
           (unsigned long long)bad);
    return bad != 0 || (ranged && sector != end);
}
