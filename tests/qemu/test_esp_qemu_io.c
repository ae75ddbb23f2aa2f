/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 5 on QEMU's AM53C974 with the core and hal/esp: READ/WRITE 6, 10 and
 * 16, single and multi-block, plain buffers and scatter-gather lists (host
 * memory, bounced, and guest RAM, in place), every byte compared with the
 * image file on the host; the power-on and bus-reset UNIT ATTENTIONs
 * absorbed by recovery; a bus reset while commands are queued and in
 * flight, after which every CCB has completed exactly once and the data
 * read still verifies.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_bus.h"
#include "qemu_rig.h"

#define BLOCKS 8192u
#define SALT 0x10000u

static const char *image;
static pcam_qemu_drive drive;

/* The image's bytes, read from the host file (writes land there too). */
static void host_blocks(uint32_t lba, uint32_t n, uint8_t *out)
{
    assert_true(qrig_read_file(image, (uint64_t)lba * 512u, out, (size_t)n * 512u));
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    size_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 9)) ^ (seed >> 3));
}

static void build(uint8_t *cdb, uint8_t *len, unsigned kind, bool write, uint32_t lba, uint32_t n)
{
    if (kind == 6) {
        cdb_rw6(cdb, write, lba, (uint8_t)n);
        *len = 6;
    } else if (kind == 10) {
        cdb_rw10(cdb, write, lba, (uint16_t)n);
        *len = 10;
    } else {
        cdb_rw16(cdb, write, lba, n);
        *len = 16;
    }
}

static void rw(qbus *b, unsigned kind, bool write, uint32_t lba, uint32_t n, void *buf,
               const pcam_sg *sg, uint16_t nsg)
{
    uint8_t cdb[16], len;
    qccb c;

    build(cdb, &len, kind, write, lba, n);
    qccb_io(&c, 0, 0, cdb, len, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * 512u);
    c.ccb.u.io.sg = sg;
    c.ccb.u.io.sg_count = nsg;
    if (nsg > 0)
        c.ccb.u.io.data = NULL;
    qbus_sync(b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(c.ccb.u.io.resid, 0);
}

static void test_read_write_6_10_16(void **state)
{
    static const unsigned kinds[3] = { 6, 10, 16 };
    uint8_t *buf = malloc(64 * 512), *want = malloc(64 * 512);
    pcam_counters cnt;
    unsigned k;
    qbus b;

    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    for (k = 0; k < 3; k++) {
        uint32_t base = 100 + 300 * k;
        /* single block */
        memset(buf, 0xa5, 512);
        rw(&b, kinds[k], false, base, 1, buf, NULL, 0);
        host_blocks(base, 1, want);
        assert_memory_equal(buf, want, 512);
        /* multi-block: 64 blocks (32 KiB) */
        memset(buf, 0x5a, 64 * 512);
        rw(&b, kinds[k], false, base + 1, 64, buf, NULL, 0);
        host_blocks(base + 1, 64, want);
        assert_memory_equal(buf, want, 64 * 512);
        /* write single and multi, then read back, and check the host file */
        fill(buf, 512, k);
        rw(&b, kinds[k], true, base + 100, 1, buf, NULL, 0);
        fill(buf, 17 * 512, k + 10);
        rw(&b, kinds[k], true, base + 101, 17, buf, NULL, 0);
        host_blocks(base + 100, 1, want);
        fill(buf, 512, k);
        assert_memory_equal(want, buf, 512);
        host_blocks(base + 101, 17, want);
        fill(buf, 17 * 512, k + 10);
        assert_memory_equal(want, buf, 17 * 512);
        memset(buf, 0, 18 * 512);
        rw(&b, kinds[k], false, base + 100, 18, buf, NULL, 0);
        host_blocks(base + 100, 18, want);
        assert_memory_equal(buf, want, 18 * 512);
    }
    /* An untouched region still holds the pattern the image was made with. */
    rw(&b, 10, false, 5000, 2, buf, NULL, 0);
    qrig_sector(want, 5000, SALT);
    qrig_sector(want + 512, 5001, SALT);
    assert_memory_equal(buf, want, 1024);
    /* The power-on UNIT ATTENTION met the first READ and was retried away. */
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &cnt), PCAM_OK);
    assert_int_equal(cnt.check_conditions, 1);
    assert_int_equal(cnt.retries, 1);
    assert_int_equal(cnt.errors, 0);
    free(buf);
    free(want);
    qbus_stop(&b);
}

static void sg_round_trip(qbus *b, uint8_t *mem, uint32_t lba)
{
    /* Uneven segments, none a multiple of the block size, 12 blocks total. */
    static const uint32_t seg[5] = { 100, 1000, 3, 2997, 2044 };
    uint8_t *want = malloc(6144), *flat = malloc(6144);
    pcam_sg sg[5];
    uint32_t off = 0, i;

    for (i = 0; i < 5; i++) {
        /* Gaps between the segments catch a DMA that runs past one. */
        sg[i].addr = mem + off + 16u * i;
        sg[i].len = seg[i];
        off += seg[i];
    }
    assert_int_equal(off, 6144);
    memset(mem, 0xee, 6144 + 80);
    rw(b, 10, false, lba, 12, NULL, sg, 5);
    host_blocks(lba, 12, want);
    for (off = 0, i = 0; i < 5; i++) {
        assert_memory_equal(sg[i].addr, want + off, seg[i]);
        off += seg[i];
        if (i < 4)
            assert_int_equal(((uint8_t *)sg[i].addr)[seg[i]], 0xee); /* the gap */
    }
    /* Write through the same list, then compare the file. */
    fill(flat, 6144, lba);
    for (off = 0, i = 0; i < 5; i++) {
        memcpy(sg[i].addr, flat + off, seg[i]);
        off += seg[i];
    }
    rw(b, 16, true, lba + 20, 12, NULL, sg, 5);
    host_blocks(lba + 20, 12, want);
    assert_memory_equal(want, flat, 6144);
    free(want);
    free(flat);
}

static void test_scatter_gather(void **state)
{
    pcam_qemu_stats st0, st1;
    uint8_t *host = malloc(8192), *guest;
    uint64_t gpa;
    qbus b;

    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    /* Host memory: every segment goes through a bounce buffer. */
    pcam_qemu_get_stats(b.q, &st0);
    sg_round_trip(&b, host, 2000);
    pcam_qemu_get_stats(b.q, &st1);
    assert_true(st1.dma_bounced > st0.dma_bounced);
    /* Guest RAM: the device reads and writes the segments in place. */
    guest = pcam_qemu_guest_alloc(b.q, 8192, &gpa);
    assert_non_null(guest);
    pcam_qemu_get_stats(b.q, &st0);
    sg_round_trip(&b, guest, 3000);
    pcam_qemu_get_stats(b.q, &st1);
    assert_true(st1.dma_maps > st0.dma_maps);
    /* Only the back-end's own command/message bytes may still bounce. */
    assert_true(st1.dma_bounced - st0.dma_bounced < st1.dma_maps - st0.dma_maps);
    assert_int_equal(pcam_qemu_guest_free(b.q, gpa), 0);
    free(host);
    qbus_stop(&b);
}

static unsigned resets_seen;
static void on_async(void *arg, uint32_t code, uint8_t target, uint8_t lun)
{
    (void)arg;
    (void)target;
    (void)lun;
    if (code == PCAM_AC_BUS_RESET)
        resets_seen++;
}

static void register_async(qbus *b)
{
    qccb c;

    memset(&c, 0, sizeof c);
    c.ccb.u.async.events = PCAM_AC_BUS_RESET;
    c.ccb.u.async.cb = on_async;
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SET_ASYNC, 0, 0, 1000) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
}

static void test_bus_reset_unit_attention_absorbed(void **state)
{
    uint8_t buf[1024], want[1024];
    pcam_counters c0, c1;
    qbus b;
    qccb c;

    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    register_async(&b);
    rw(&b, 10, false, 10, 2, buf, NULL, 0); /* power-on UA used up */
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    resets_seen = 0;
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_RESET_BUS, 0, 0, 10000) & PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    assert_int_equal(c.done_count, 1);
    assert_int_equal(resets_seen, 1);
    /* The next command meets 6/29/xx and still completes OK. */
    rw(&b, 10, false, 20, 2, buf, NULL, 0);
    host_blocks(20, 2, want);
    assert_memory_equal(buf, want, 1024);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.check_conditions, c0.check_conditions + 1);
    assert_int_equal(c1.errors, c0.errors);
    qbus_stop(&b);
}

#define NIO 8
#define IO_BLOCKS 64u

static void test_bus_reset_with_io_in_flight(void **state)
{
    uint8_t *bufs[NIO], *want = malloc(IO_BLOCKS * 512);
    uint8_t cdb[16], len;
    qccb io[NIO], rst;
    unsigned i, ok = 0, lost = 0, total = 0;
    pcam_counters cnt;
    qbus b;

    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    register_async(&b);
    rw(&b, 10, false, 0, 1, want, NULL, 0); /* power-on UA used up */
    for (i = 0; i < NIO; i++) {
        bufs[i] = malloc(IO_BLOCKS * 512);
        memset(bufs[i], 0xcc, IO_BLOCKS * 512);
        build(cdb, &len, 10, false, 1000 + IO_BLOCKS * i, IO_BLOCKS);
        qccb_io(&io[i], 0, 0, cdb, len, PCAM_DIR_IN, bufs[i], IO_BLOCKS * 512);
        qbus_submit(&b, &io[i]);
    }
    /* Let the first command get onto the bus (selected, data moving). */
    while (b.intrs < 1)
        qbus_step(&b, 50);
    resets_seen = 0;
    memset(&rst, 0, sizeof rst);
    rst.ccb.func = PCAM_FN_RESET_BUS;
    qbus_submit(&b, &rst);
    for (i = 0; i < NIO; i++)
        total += 1;
    {
        unsigned done = 0;
        uint64_t end = pcam_posix_now_ns() + 30000000000ull;
        while (pcam_posix_now_ns() < end) {
            done = rst.done_count;
            for (i = 0; i < NIO; i++)
                done += io[i].done_count;
            if (done >= NIO + 1)
                break;
            qbus_step(&b, 50);
        }
        /* A little longer: a second completion would show up here. */
        end = pcam_posix_now_ns() + 200000000ull;
        while (pcam_posix_now_ns() < end)
            qbus_step(&b, 20);
    }
    assert_int_equal(rst.done_count, 1);
    assert_int_equal(rst.ccb.status & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(resets_seen, 1);
    for (i = 0; i < NIO; i++) {
        uint32_t st = io[i].ccb.status & PCAM_STATUS_MASK;
        if (io[i].done_count != 1)
            fail_msg("CCB %u completed %u times", i, io[i].done_count);
        if (st == PCAM_REQ_CMP) {
            ok++;
            host_blocks(1000 + IO_BLOCKS * i, IO_BLOCKS, want);
            assert_memory_equal(bufs[i], want, IO_BLOCKS * 512);
        } else {
            /* Only the reset may take a command; nothing else is allowed. */
            lost++;
            if (st != PCAM_SCSI_BUS_RESET)
                qbus_expect(&io[i], PCAM_SCSI_BUS_RESET);
        }
    }
    printf("bus reset with %u reads queued: %u completed OK and verified, %u lost to the reset\n",
           total, ok, lost);
    /* Bystanders are requeued, so at most the one on the bus can be lost. */
    assert_true(lost <= 1);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &cnt), PCAM_OK);
    printf("target 0: %u commands, %u retries, %u requeues, %u check conditions\n", cnt.commands,
           cnt.retries, cnt.requeues, cnt.check_conditions);
    for (i = 0; i < NIO; i++)
        free(bufs[i]);
    free(want);
    qbus_stop(&b);
}

static void test_throughput(void **state)
{
    uint8_t *buf = malloc(8 * 512);
    pcam_qemu_stats st0, st1;
    pcam_esp_stats es;
    uint64_t t0, t;
    unsigned i, n = getenv("PCAM_UNDER_MEMCHECK") ? 20 : 200;
    qbus b;

    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    rw(&b, 10, false, 0, 1, buf, NULL, 0);
    pcam_qemu_get_stats(b.q, &st0);
    t0 = pcam_posix_now_ns();
    for (i = 0; i < n; i++)
        rw(&b, 10, false, (i * 37u) % (BLOCKS - 8), 8, buf, NULL, 0);
    t = pcam_posix_now_ns() - t0;
    pcam_qemu_get_stats(b.q, &st1);
    pcam_esp_get_stats(b.sc, &es);
    printf("%u x 4 KiB READ(10) through core + hal/esp + qtest: %.0f IOPS, %.1f round trips "
           "and %.0f us each\n",
           n, n / (t / 1e9), (double)(st1.round_trips - st0.round_trips) / n, t / 1e3 / n);
    printf("hal/esp since attach: %llu register reads, %llu writes, %llu interrupts, %llu DMA runs\n",
           (unsigned long long)es.reg_reads, (unsigned long long)es.reg_writes,
           (unsigned long long)es.interrupts, (unsigned long long)es.dma_transfers);
    free(buf);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_write_6_10_16),
        cmocka_unit_test(test_scatter_gather),
        cmocka_unit_test(test_bus_reset_unit_attention_absorbed),
        cmocka_unit_test(test_bus_reset_with_io_in_flight),
        cmocka_unit_test(test_throughput),
    };

    qrig_require_qemu();
    image = qrig_image("io.img", BLOCKS, SALT);
    memset(&drive, 0, sizeof drive);
    drive.image = image;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
