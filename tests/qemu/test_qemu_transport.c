/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The qtest transport on its own: process lifetime, the line protocol, port
 * and memory access, bulk transfers in every mode, the guest RAM allocator,
 * failure reporting, and what one round trip costs.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcam_posix.h"
#include "qemu_rig.h"

static pcam_qemu *start_plain(bool shared)
{
    pcam_qemu_opts o;
    pcam_qemu *q = NULL;
    char err[1024];
    int rc;

    memset(&o, 0, sizeof o);
    o.no_shared_ram = !shared;
    o.ram_mb = 32;
    rc = pcam_qemu_start(&q, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("pcam_qemu_start: %d %s", rc, err);
    return q;
}

/* A process that was reaped is gone: kill(pid, 0) says ESRCH, and it is no
 * longer our child (no zombie left behind). */
static void assert_reaped(pid_t pid)
{
    errno = 0;
    assert_int_equal(kill(pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static unsigned count_shm_files(void)
{
    char prefix[64];
    DIR *d = opendir("/dev/shm");
    struct dirent *de;
    unsigned n = 0;

    snprintf(prefix, sizeof prefix, "pcam-qemu-%ld-", (long)getpid());
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

static unsigned count_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    unsigned n = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_start_stop_reaps(void **state)
{
    pcam_qemu *q;
    pid_t pid;

    (void)state;
    /* QEMU's private dir goes into the scratch dir, which must be empty
     * again once QEMU is up: the BIOS, socket and stderr files are gone. */
    setenv("TMPDIR", qrig_dir(), 1);
    q = start_plain(true);
    unsetenv("TMPDIR");
    assert_int_equal(count_entries(qrig_dir()), 0);
    pid = pcam_qemu_pid(q);
    assert_true(pid > 0);
    assert_int_equal(kill(pid, 0), 0);
    /* The RAM file is unlinked once QEMU has it open. */
    assert_int_equal(count_shm_files(), 0);
    assert_string_equal(pcam_qemu_error(q), "");
    assert_int_equal(pcam_qemu_stop(q), 0);
    assert_reaped(pid);
}

static void test_missing_binary(void **state)
{
    pcam_qemu_opts o;
    pcam_qemu *q = (pcam_qemu *)&o; /* must be overwritten with NULL */
    char err[512];

    (void)state;
    memset(&o, 0, sizeof o);
    o.qemu = "/nonexistent/bin/qemu-system-x86_64";
    assert_int_equal(pcam_qemu_start(&q, &o, err, sizeof err), -ENOENT);
    assert_null(q);
    printf("missing QEMU reads: %s\n", err);
    assert_non_null(strstr(err, "/nonexistent/bin/qemu-system-x86_64"));
    assert_non_null(strstr(err, "apt-get install qemu-system-x86"));

    o.qemu = "pcam-no-such-qemu-binary";
    assert_int_equal(pcam_qemu_start(&q, &o, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "not found on PATH"));
    assert_non_null(strstr(err, "apt-get install qemu-system-x86"));

    /* An existing file that cannot be executed as QEMU. */
    o.qemu = "/dev/null";
    assert_true(pcam_qemu_start(&q, &o, err, sizeof err) < 0);
    assert_null(q);
}

static void test_qemu_exits_early_shows_stderr(void **state)
{
    static const char *const extra[] = { "-device", "pcam-no-such-device", NULL };
    pcam_qemu_opts o;
    pcam_qemu *q = NULL;
    char err[2048];

    (void)state;
    memset(&o, 0, sizeof o);
    o.extra_args = extra;
    assert_int_equal(pcam_qemu_start(&q, &o, err, sizeof err), -ECHILD);
    assert_null(q);
    printf("start-up failure reads: %s\n", err);
    assert_non_null(strstr(err, "exited during start-up"));
    /* QEMU's own complaint is part of the message. */
    assert_non_null(strstr(err, "pcam-no-such-device"));
    assert_int_equal(count_shm_files(), 0);
}

static void test_bad_options(void **state)
{
    pcam_qemu_opts o;
    pcam_qemu_drive d;
    pcam_qemu *q = NULL;
    char err[256];

    (void)state;
    memset(&o, 0, sizeof o);
    o.ndrives = 1; /* but no array */
    assert_int_equal(pcam_qemu_start(&q, &o, err, sizeof err), -EINVAL);
    memset(&d, 0, sizeof d); /* a disk without an image */
    o.drives = &d;
    assert_int_equal(pcam_qemu_start(&q, &o, err, sizeof err), -EINVAL);
    o.ndrives = 0;
    o.ram_mb = 2;
    assert_int_equal(pcam_qemu_start(&q, &o, err, sizeof err), -EINVAL);
    assert_int_equal(pcam_qemu_start(NULL, &o, err, sizeof err), -EINVAL);
}

static void test_qemu_dies_midway(void **state)
{
    pcam_qemu *q;
    uint32_t v = 0;
    pid_t pid;

    (void)state;
    q = start_plain(true);
    pid = pcam_qemu_pid(q);
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(pcam_qemu_in(q, 0xcfc, 4, &v), -EPIPE);
    assert_int_equal(v, 0xffffffffu);
    assert_non_null(strstr(pcam_qemu_error(q), "closed the qtest socket"));
    assert_non_null(strstr(pcam_qemu_error(q), "killed by signal 9"));
    /* Sticky: later calls fail at once. */
    assert_int_equal(pcam_qemu_out(q, 0x80, 1, 0), -EPIPE);
    assert_int_equal(pcam_qemu_wait_irq(q, 11, 10), -EPIPE);
    assert_int_equal(pcam_qemu_stop(q), -EIO);
    assert_reaped(pid);
}

static bool dead_or_zombie(pid_t pid)
{
    char path[64], buf[256], *p;
    FILE *f;
    size_t n;

    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return true;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

/* A harness that dies without pcam_qemu_stop() takes QEMU with it. */
static void test_qemu_dies_with_parent(void **state)
{
    int fds[2], st, i;
    pid_t child, qpid = 0;

    (void)state;
    (void)qrig_dir(); /* created here so this process removes it at exit */
    assert_int_equal(pipe(fds), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pcam_qemu_opts o;
        pcam_qemu *q = NULL;
        char err[256];
        close(fds[0]);
        memset(&o, 0, sizeof o);
        o.no_shared_ram = true;
        /* Its temp dir lands in the rig's scratch dir, removed at exit. */
        setenv("TMPDIR", qrig_dir(), 1);
        if (pcam_qemu_start(&q, &o, err, sizeof err) == 0) {
            pid_t p = pcam_qemu_pid(q);
            if (write(fds[1], &p, sizeof p) != (ssize_t)sizeof p)
                _exit(2);
        }
        _exit(0); /* no stop, no atexit handlers */
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &qpid, sizeof qpid), (ssize_t)sizeof qpid);
    close(fds[0]);
    assert_int_equal(waitpid(child, &st, 0), child);
    for (i = 0; i < 300 && !dead_or_zombie(qpid); i++)
        pcam_posix_delay_us(10000);
    assert_true(dead_or_zombie(qpid));
}

static void test_port_and_config_space(void **state)
{
    pcam_qemu *q;
    uint32_t v;

    (void)state;
    q = start_plain(true);
    /* Config mechanism #1, 00:00.0: the i440FX host bridge is 8086:1237
     * (QEMU hw/pci-host/i440fx.c; Intel 82441FX datasheet). */
    assert_int_equal(pcam_qemu_out(q, 0xcf8, 4, 0x80000000u), 0);
    assert_int_equal(pcam_qemu_in(q, 0xcfc, 4, &v), 0);
    assert_int_equal(v, 0x12378086u);
    assert_int_equal(pcam_qemu_in(q, 0xcfc, 2, &v), 0);
    assert_int_equal(v, 0x8086u);
    assert_int_equal(pcam_qemu_in(q, 0xcfe, 2, &v), 0);
    assert_int_equal(v, 0x1237u);
    assert_int_equal(pcam_qemu_in(q, 0xcfd, 1, &v), 0);
    assert_int_equal(v, 0x80u);
    /* Requests QEMU would abort on are refused before they are sent. */
    assert_int_equal(pcam_qemu_in(q, 0xffff, 2, &v), -EINVAL);
    assert_int_equal(pcam_qemu_in(q, 0x10000, 1, &v), -EINVAL);
    assert_int_equal(pcam_qemu_in(q, 0xffffffffu, 2, &v), -EINVAL);
    assert_int_equal(pcam_qemu_out(q, 0xfffffffeu, 4, 0), -EINVAL);
    assert_int_equal(pcam_qemu_out(q, 0x80, 3, 0), -EINVAL);
    assert_int_equal(pcam_qemu_in(q, 0x80, 8, &v), -EINVAL);
    assert_string_equal(pcam_qemu_error(q), "");
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_mmio_widths(void **state)
{
    pcam_qemu *q;
    uint64_t v;
    uint8_t *ram;
    size_t size;

    (void)state;
    q = start_plain(true);
    ram = pcam_qemu_ram(q, &size);
    assert_non_null(ram);
    assert_int_equal(size, 32u << 20);
    assert_int_equal(pcam_qemu_mmio_write(q, 0x200000, 4, 0xdeadbeefu), 0);
    /* x86 is little-endian: the low byte is at the lowest address. */
    assert_int_equal(pcam_qemu_mmio_read(q, 0x200000, 1, &v), 0);
    assert_int_equal(v, 0xef);
    assert_int_equal(pcam_qemu_mmio_read(q, 0x200002, 2, &v), 0);
    assert_int_equal(v, 0xdead);
    assert_int_equal(pcam_qemu_mmio_write(q, 0x200008, 8, 0x0123456789abcdefull), 0);
    assert_int_equal(pcam_qemu_mmio_read(q, 0x200008, 8, &v), 0);
    assert_int_equal(v, 0x0123456789abcdefull);
    /* The same bytes through the shared mapping. */
    assert_int_equal(ram[0x200000], 0xef);
    assert_int_equal(ram[0x200003], 0xde);
    assert_int_equal(ram[0x200008], 0xef);
    assert_int_equal(ram[0x20000f], 0x01);
    /* And the other way: a write through the mapping is what QEMU reads. */
    ram[0x300000] = 0x5a;
    assert_int_equal(pcam_qemu_mmio_read(q, 0x300000, 1, &v), 0);
    assert_int_equal(v, 0x5a);
    assert_int_equal(pcam_qemu_mmio_read(q, 0x300000, 3, &v), -EINVAL);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void bulk_round_trip(pcam_qemu *q, pcam_qemu_bulk mode, const uint8_t *ram)
{
    static const size_t lens[] = { 1, 2, 3, 4, 5, 511, 4096, 70001 };
    uint8_t *src = malloc(70001), *dst = malloc(70001);
    size_t i, k;

    assert_int_equal(pcam_qemu_set_bulk(q, mode), 0);
    for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        uint64_t addr = 0x400000 + 0x20000 * k + k;
        for (i = 0; i < lens[k]; i++)
            src[i] = (uint8_t)(i * 7 + k + mode);
        memset(dst, 0xee, lens[k]);
        assert_int_equal(pcam_qemu_memwrite(q, addr, src, lens[k]), 0);
        assert_int_equal(pcam_qemu_memread(q, addr, dst, lens[k]), 0);
        assert_memory_equal(src, dst, lens[k]);
        if (ram != NULL)
            assert_memory_equal(ram + addr, src, lens[k]);
        /* The byte after the range is untouched by a short transfer. */
        assert_int_equal(pcam_qemu_memread(q, addr + lens[k], dst, 1), 0);
        assert_int_not_equal(dst[0], src[lens[k] - 1] + 0x100);
    }
    assert_int_equal(pcam_qemu_memwrite(q, 0x400000, src, 0), 0);
    free(src);
    free(dst);
}

static void test_bulk_modes(void **state)
{
    pcam_qemu *q;
    pcam_qemu_stats st;

    (void)state;
    q = start_plain(true);
    bulk_round_trip(q, PCAM_QEMU_BULK_B64, pcam_qemu_ram(q, NULL));
    bulk_round_trip(q, PCAM_QEMU_BULK_HEX, pcam_qemu_ram(q, NULL));
    pcam_qemu_get_stats(q, &st);
    assert_int_equal(st.shm_bytes, 0);
    assert_true(st.bulk_bytes > 2 * 70001);
    bulk_round_trip(q, PCAM_QEMU_BULK_SHM, pcam_qemu_ram(q, NULL));
    pcam_qemu_get_stats(q, &st);
    assert_true(st.shm_bytes > 70001);
    assert_int_equal(pcam_qemu_stop(q), 0);

    /* Without shared RAM only the socket modes exist. */
    q = start_plain(false);
    assert_null(pcam_qemu_ram(q, NULL));
    assert_int_equal(pcam_qemu_set_bulk(q, PCAM_QEMU_BULK_SHM), -EINVAL);
    bulk_round_trip(q, PCAM_QEMU_BULK_B64, NULL);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_monitor(void **state)
{
    pcam_qemu_drive d;
    pcam_qemu_opts o;
    pcam_qemu *q = NULL;
    char err[1024], out[512];

    (void)state;
    memset(&d, 0, sizeof d);
    d.image = qrig_image("monitor.img", 64, 0);
    d.blkdebug = ""; /* blkdebug with no rules: breakpoints come later */
    memset(&o, 0, sizeof o);
    o.drives = &d;
    o.ndrives = 1;
    o.monitor = true;
    o.no_shared_ram = true;
    if (pcam_qemu_start(&q, &o, err, sizeof err) != 0)
        fail_msg("pcam_qemu_start: %s", err);
    assert_int_equal(pcam_qemu_hmp(q, "info version", out, sizeof out), 0);
    assert_int_equal(strncmp(out, "7.", 2) == 0 || strncmp(out, "8.", 2) == 0 ||
                         strncmp(out, "9.", 2) == 0,
                     1);
    /* A monitor command QEMU does not know is reported as text, not failure. */
    assert_int_equal(pcam_qemu_hmp(q, "pcam-no-such-command", out, sizeof out), 0);
    assert_non_null(strstr(out, "unknown command"));
    /* Quotes survive the JSON round trip: qemu-io sees one argument. */
    assert_int_equal(pcam_qemu_hmp(q, "qemu-io d0 \"break read_aio A\"", out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(pcam_qemu_hmp(q, "qemu-io d0 \"remove_break A\"", out, sizeof out), 0);
    assert_string_equal(out, "");
    /* A failing monitor command explains itself in its output. */
    assert_int_equal(pcam_qemu_hmp(q, "qemu-io no-such-drive \"help\"", out, sizeof out), 0);
    assert_true(strlen(out) > 0);
    assert_string_equal(pcam_qemu_error(q), "");
    assert_int_equal(pcam_qemu_stop(q), 0);

    /* Without a monitor the call says so. */
    q = start_plain(false);
    assert_int_equal(pcam_qemu_hmp(q, "info version", out, sizeof out), -ENOTCONN);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_guest_allocator(void **state)
{
    pcam_qemu *q;
    uint64_t a, b, c, big;
    uint8_t *pa;
    unsigned n = 0;

    (void)state;
    q = start_plain(true);
    pa = pcam_qemu_guest_alloc(q, 100, &a);
    assert_non_null(pa);
    assert_int_equal(a, 0x100000u); /* the pool starts at 1 MiB */
    assert_ptr_equal(pa, (uint8_t *)pcam_qemu_ram(q, NULL) + a);
    assert_int_equal(pcam_qemu_guest_alloc_gpa(q, 64, &b), 0);
    assert_int_equal(b, 0x100080u); /* 100 rounds up to 128 */
    assert_int_equal(pcam_qemu_guest_alloc_gpa(q, 1, &c), 0);
    assert_int_equal(c, 0x1000c0u);
    assert_int_equal(pcam_qemu_guest_free(q, b), 0);
    assert_int_equal(pcam_qemu_guest_free(q, b), -EINVAL);
    /* First fit reuses the hole. */
    assert_int_equal(pcam_qemu_guest_alloc_gpa(q, 60, &b), 0);
    assert_int_equal(b, 0x100080u);
    /* Larger than what is left (32 MiB RAM, 31 MiB pool). */
    assert_int_equal(pcam_qemu_guest_alloc_gpa(q, 31u << 20, &big), -ENOMEM);
    assert_int_equal(pcam_qemu_guest_live(q), 3);
    pcam_qemu_guest_free(q, a);
    pcam_qemu_guest_free(q, b);
    pcam_qemu_guest_free(q, c);
    assert_int_equal(pcam_qemu_guest_live(q), 0);
    /* The table of live allocations has a bound and says so. */
    while (pcam_qemu_guest_alloc_gpa(q, 64, &a) == 0)
        n++;
    assert_int_equal(n, 512);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_platform_dma_bounce(void **state)
{
    pcam_qemu *q;
    pcam_platform p;
    pcam_qemu_stats st;
    uint8_t buf[300], *g;
    uint64_t bus, gbus, v;
    unsigned i;

    (void)state;
    q = start_plain(true);
    pcam_qemu_platform(q, &p);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)i;
    /* A host buffer is bounced: the device sees a copy in guest RAM. */
    assert_int_equal(p.dma_map(p.ctx, buf, sizeof buf, PCAM_DMA_TO_DEVICE, &bus), 0);
    assert_true(bus >= 0x100000u);
    assert_int_equal(pcam_qemu_mmio_read(q, bus + 299, 1, &v), 0);
    assert_int_equal(v, 299 & 0xff);
    p.dma_unmap(p.ctx, buf, sizeof buf, PCAM_DMA_TO_DEVICE, bus);
    assert_int_equal(pcam_qemu_guest_live(q), 0);

    /* FROM_DEVICE: what the "device" wrote comes back on unmap; bytes it
     * did not write keep the caller's values. */
    assert_int_equal(p.dma_map(p.ctx, buf, sizeof buf, PCAM_DMA_FROM_DEVICE, &bus), 0);
    assert_int_equal(pcam_qemu_mmio_write(q, bus + 10, 4, 0xa1b2c3d4u), 0);
    p.dma_unmap(p.ctx, buf, sizeof buf, PCAM_DMA_FROM_DEVICE, bus);
    assert_int_equal(buf[10], 0xd4);
    assert_int_equal(buf[13], 0xa1);
    assert_int_equal(buf[9], 9);
    assert_int_equal(buf[14], 14);
    assert_int_equal(pcam_qemu_guest_live(q), 0);

    /* A buffer in guest RAM is used in place, no bounce. */
    g = pcam_qemu_guest_alloc(q, 512, &gbus);
    assert_non_null(g);
    assert_int_equal(p.dma_map(p.ctx, g + 16, 100, PCAM_DMA_FROM_DEVICE, &bus), 0);
    assert_int_equal(bus, gbus + 16);
    p.dma_unmap(p.ctx, g + 16, 100, PCAM_DMA_FROM_DEVICE, bus);
    assert_int_equal(pcam_qemu_guest_live(q), 1);
    pcam_qemu_get_stats(q, &st);
    assert_int_equal(st.dma_maps, 3);
    assert_int_equal(st.dma_bounced, 2);

    /* Bad requests are refused. */
    assert_int_equal(p.dma_map(p.ctx, buf, 0, PCAM_DMA_TO_DEVICE, &bus), -EINVAL);
    assert_int_equal(p.dma_map(p.ctx, NULL, 4, PCAM_DMA_TO_DEVICE, &bus), -EINVAL);
    assert_int_equal(p.dma_map(p.ctx, buf, 4, (pcam_dma_dir)0, &bus), -EINVAL);
    /* A full bounce space is an error, not a crash or an overlap. */
    {
        static uint8_t huge[40u << 20];
        assert_int_equal(p.dma_map(p.ctx, huge, sizeof huge, PCAM_DMA_TO_DEVICE, &bus), -ENOMEM);
    }
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_platform_basics(void **state)
{
    pcam_posix px;
    pcam_platform p;
    pcam_posix_lock lk;
    uint64_t t0, t1;
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    (void)state;
    f = open_memstream(&text, &len);
    assert_non_null(f);
    pcam_posix_init(&px, f, PCAM_LOG_WARN);
    pcam_posix_platform(&px, &p);
    assert_null(p.read8);
    assert_null(p.dma_map);
    t0 = p.now_ns(p.ctx);
    p.delay_us(p.ctx, 2000);
    t1 = p.now_ns(p.ctx);
    assert_true(t1 - t0 >= 2000000u);
    p.log(p.ctx, PCAM_LOG_ERROR, "first");
    p.log(p.ctx, PCAM_LOG_DEBUG, "filtered out");
    pcam_posix_logf(&px, PCAM_LOG_WARN, "second %d", 2);
    fflush(f);
    assert_non_null(strstr(text, "E: first\n"));
    assert_non_null(strstr(text, "W: second 2\n"));
    assert_null(strstr(text, "filtered"));
    fclose(f);
    free(text);

    assert_int_equal(pcam_posix_lock_init(&lk), 0);
    assert_int_equal(pcam_posix_lock_acquire(&lk), 0);
    assert_int_equal(pcam_posix_lock_acquire(&lk), EDEADLK);
    assert_int_equal(pcam_posix_lock_destroy(&lk), EBUSY);
    assert_int_equal(pcam_posix_lock_release(&lk), 0);
    assert_int_equal(pcam_posix_lock_release(&lk), EPERM);
    assert_int_equal(pcam_posix_lock_destroy(&lk), 0);
}

/* The number every qtest-driven back-end lives with. Printed for the record;
 * the bound only catches a harness that has become pathologically slow. */
static void test_round_trip_cost(void **state)
{
    pcam_qemu *q;
    pcam_qemu_stats st;
    uint8_t *buf = malloc(4096);
    uint64_t t0, t_in, t_b64, t_shm;
    uint32_t v;
    unsigned i, n = getenv("PCAM_UNDER_MEMCHECK") ? 200 : 2000;

    (void)state;
    q = start_plain(true);
    memset(buf, 0x3c, 4096);
    t0 = pcam_posix_now_ns();
    for (i = 0; i < n; i++)
        assert_int_equal(pcam_qemu_in(q, 0xcfc, 1, &v), 0);
    t_in = pcam_posix_now_ns() - t0;
    assert_int_equal(pcam_qemu_set_bulk(q, PCAM_QEMU_BULK_B64), 0);
    t0 = pcam_posix_now_ns();
    for (i = 0; i < n / 10; i++) {
        assert_int_equal(pcam_qemu_memwrite(q, 0x200000, buf, 4096), 0);
        assert_int_equal(pcam_qemu_memread(q, 0x200000, buf, 4096), 0);
    }
    t_b64 = pcam_posix_now_ns() - t0;
    assert_int_equal(pcam_qemu_set_bulk(q, PCAM_QEMU_BULK_SHM), 0);
    t0 = pcam_posix_now_ns();
    for (i = 0; i < n / 10; i++) {
        assert_int_equal(pcam_qemu_memwrite(q, 0x200000, buf, 4096), 0);
        assert_int_equal(pcam_qemu_memread(q, 0x200000, buf, 4096), 0);
    }
    t_shm = pcam_posix_now_ns() - t0;
    pcam_qemu_get_stats(q, &st);
    printf("qtest round trip (inb): %.1f us over %u calls (%.0f/s)\n", t_in / 1e3 / n, n,
           n / (t_in / 1e9));
    printf("4 KiB b64 write+read: %.1f us per pair; shared RAM: %.2f us per pair\n",
           t_b64 / 1e3 / (n / 10), t_shm / 1e3 / (n / 10));
    printf("harness-side mean wait per round trip: %.1f us over %llu round trips\n",
           st.round_trip_ns / 1e3 / (double)st.round_trips, (unsigned long long)st.round_trips);
    /* < 2 ms per round trip natively, 20 ms under Valgrind on a loaded machine. */
    assert_true(t_in / n < (getenv("PCAM_UNDER_MEMCHECK") ? 20000000u : 2000000u));
    assert_true(t_shm < t_b64);
    free(buf);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_platform_basics),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_missing_binary),
        cmocka_unit_test(test_start_stop_reaps),
        cmocka_unit_test(test_qemu_exits_early_shows_stderr),
        cmocka_unit_test(test_qemu_dies_midway),
        cmocka_unit_test(test_qemu_dies_with_parent),
        cmocka_unit_test(test_port_and_config_space),
        cmocka_unit_test(test_mmio_widths),
        cmocka_unit_test(test_bulk_modes),
        cmocka_unit_test(test_guest_allocator),
        cmocka_unit_test(test_monitor),
        cmocka_unit_test(test_platform_dma_bounce),
        cmocka_unit_test(test_round_trip_cost),
    };

    qrig_require_qemu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
