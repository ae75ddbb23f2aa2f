/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest program of the deterministic Linux benchmark
 * (PCAM_BENCH_CLOCK=icount, bench/linux-side-by-side.sh): reads a disk a
 * fixed number of times and prints how much guest time the vCPU was busy
 * (not idle) per read. Under QEMU's -icount shift=0 a busy guest
 * nanosecond is one guest instruction, so that figure is the instructions
 * the kernel, the driver and this loop spend per read; the idle part
 * (waiting for the device, which QEMU completes on host threads) is what
 * host timing moves and is measured apart, from the idle and iowait sleep
 * times the kernel keeps per CPU in nanoseconds (/proc/timer_list).
 *   linux_icbench DEV reread BYTES COUNT  re-reads at offset 0 (pread)
 *   linux_icbench DEV rand DEPTH COUNT    random 4 KiB reads (Linux AIO)
 * prints "PCAMB: ic <what> n COUNT busy_ns B elapsed_ns E irqs I" (I: the
 * controller's interrupts in the window, /proc/interrupts); O_DIRECT, one
 * vCPU (the first CPU's counters only). Measures, asserts nothing; never
 * writes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#define MAXDEPTH 256

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* cpu 0's idle + iowait sleep time, ns (0 when the kernel has no such lines) */
static uint64_t idle_ns(void)
{
    static char buf[1 << 20];
    uint64_t sum = 0;
    int fd = open("/proc/timer_list", O_RDONLY), seen = 0;
    ssize_t n, got = 0;
    if (fd < 0)
        return 0;
    while (got < (ssize_t)sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
        got += n;
    close(fd);
    buf[got] = 0;
    for (char *p = strstr(buf, "\ncpu: 0\n"); p && seen < 2; p++) {
        if (!strncmp(p, ".idle_sleeptime", 15) || !strncmp(p, ".iowait_sleeptime", 17)) {
            sum += strtoull(strchr(p, ':') + 1, NULL, 10);
            seen++;
        }
    }
    return sum;
}

/* interrupts taken so far by the SCSI controller's driver, whichever */
static uint64_t irqs(void)
{
    static char line[4096];
    uint64_t sum = 0;
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, ':');
        if (!p || !(strstr(line, "pcam") || strstr(line, "sym53c8xx") || strstr(line, "am53c974")))
            continue;
        sum += strtoull(p + 1, NULL, 10); /* one vCPU: one count column */
    }
    fclose(f);
    return sum;
}

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return *x >> 33;
}

static int rand_reads(int fd, unsigned depth, unsigned count, uint64_t blocks, char *buf)
{
    aio_context_t ctx = 0;
    struct iocb cb[MAXDEPTH], *cbp[MAXDEPTH];
    struct io_event ev[MAXDEPTH];
    uint64_t x = 12345;
    unsigned issued = 0, done = 0;
    if (syscall(SYS_io_setup, depth, &ctx) < 0)
        return -1;
    for (unsigned i = 0; i < depth; i++) {
        memset(&cb[i], 0, sizeof cb[i]);
        cb[i].aio_fildes = (uint32_t)fd;
        cb[i].aio_lio_opcode = IOCB_CMD_PREAD;
        cb[i].aio_buf = (uint64_t)(uintptr_t)(buf + (size_t)i * 4096);
        cb[i].aio_nbytes = 4096;
        cb[i].aio_data = i;
    }
    for (; issued < depth && issued < count; issued++) {
        cb[issued].aio_offset = (int64_t)(lcg(&x) % blocks) * 4096;
        cbp[issued] = &cb[issued];
    }
    if (syscall(SYS_io_submit, ctx, (long)issued, cbp) != (long)issued)
        return -1;
    while (done < count) {
        long n = syscall(SYS_io_getevents, ctx, 1L, (long)depth, ev, NULL), k = 0;
        if (n <= 0)
            return -1;
        for (long i = 0; i < n; i++) {
            if ((long)ev[i].res != 4096)
                return -1;
            done++;
            if (issued < count) {
                struct iocb *c = &cb[ev[i].data];
                c->aio_offset = (int64_t)(lcg(&x) % blocks) * 4096;
                cbp[k++] = c;
                issued++;
            }
        }
        if (k && syscall(SYS_io_submit, ctx, k, cbp) != k)
            return -1;
    }
    syscall(SYS_io_destroy, ctx);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long arg, count;
    uint64_t size = 0, t0, i0, t1, i1, q0, q1;
    char *buf;
    int fd;
    if (argc != 5 || (strcmp(argv[2], "reread") && strcmp(argv[2], "rand"))) {
        fprintf(stderr, "usage: %s DEV reread BYTES COUNT | DEV rand DEPTH COUNT\n", argv[0]);
        return 2;
    }
    arg = strtoul(argv[3], NULL, 10);
    count = strtoul(argv[4], NULL, 10);
    if (count == 0 || arg == 0 || (argv[2][1] == 'e' ? arg > (1u << 20) || arg % 512 : arg > MAXDEPTH)) {
        fprintf(stderr, "linux_icbench: bad size, depth or count\n");
        return 2;
    }
    fd = open(argv[1], O_RDONLY | O_DIRECT);
    if (fd >= 0 && ioctl(fd, BLKGETSIZE64, &size) < 0) /* a file: its length */
        size = (uint64_t)lseek(fd, 0, SEEK_END);
    if (fd < 0 || size < (1u << 20)) {
        perror(argv[1]);
        return 1;
    }
    if (posix_memalign((void **)&buf, 4096, MAXDEPTH * 4096 > (1 << 20) ? MAXDEPTH * 4096 : (1 << 20)))
        return 1;
    /* warm up: the path's first-touch costs (page tables, caches of the
     * kernel's slabs) out of the measured window */
    for (int w = 0; w < 100; w++)
        if (pread(fd, buf, 4096, 0) != 4096)
            return 1;
    q0 = irqs();
    t0 = now_ns();
    i0 = idle_ns();
    if (argv[2][1] == 'e') {
        for (unsigned long k = 0; k < count; k++)
            if (pread(fd, buf, arg, 0) != (ssize_t)arg) {
                perror("pread");
                return 1;
            }
    } else if (rand_reads(fd, (unsigned)arg, (unsigned)count, size / 4096, buf) < 0) {
        perror("aio");
        return 1;
    }
    i1 = idle_ns();
    t1 = now_ns();
    q1 = irqs();
    if (i0 == 0 && i1 == 0)
        printf("PCAMB: ic %s%lu n %lu busy_ns - elapsed_ns %llu irqs %llu\n", argv[2], arg, count,
               (unsigned long long)(t1 - t0), (unsigned long long)(q1 - q0));
    else
        printf("PCAMB: ic %s%lu n %lu busy_ns %llu elapsed_ns %llu irqs %llu\n", argv[2], arg, count,
               (unsigned long long)((t1 - t0) - (i1 - i0)), (unsigned long long)(t1 - t0),
               (unsigned long long)(q1 - q0));
    return 0;
}
