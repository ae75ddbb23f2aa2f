/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym with the core on QEMU's lsi53c895a (label qemu): the bus scan
 * (a disk at ID 0 and one at ID 2, absent IDs time out at selection), the
 * power-on UNIT ATTENTION absorbed, READ/WRITE 10 and 16 compared byte for
 * byte with the image file on the host, scatter-gather lists with uneven
 * segments (a phase mismatch inside the chain leaves the right residual),
 * and tagged reads at depth 24 through SCRIPTS disconnect and reselection:
 * the back-end held many commands at once and the chip retired several per
 * interrupt, every CCB completing exactly once with the right data.
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

#include "qemu_rig.h"
#include "qemu_bus.h" /* built with QBUS_SYM */

#define BLOCKS 8192u
#define SALT 0x20000u
#define SALT2 0x30000u
#define SALT3 0x50000u

static const char *image, *image2, *image3;
static pcam_qemu_drive drives[2];

static void test_scan(void **state)
{
    qbus b;
    qccb c;
    pcam_sym_stats st;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    assert_string_equal(pcam_sym_get_chip(b.sc)->name, "53C895A");
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(&b, &c, PCAM_FN_SCAN_BUS, PCAM_WILDCARD, PCAM_WILDCARD, 60000) &
                         PCAM_STATUS_MASK,
                     PCAM_REQ_CMP);
    for (uint8_t t = 0; t < 16; t++) {
        if (t == 7)
            continue;
        bool want = t == 0 || t == 2;
        memset(&c, 0, sizeof c);
        uint32_t s = qbus_func(&b, &c, PCAM_FN_GET_DEV, t, 0, 1000) & PCAM_STATUS_MASK;
        assert_int_equal(s, want ? PCAM_REQ_CMP : PCAM_DEV_NOT_THERE);
        if (want) {
            assert_int_equal(c.ccb.u.dev.type, 0);
            assert_memory_equal(c.ccb.u.dev.inquiry + 8, "QEMU    ", 8);
        }
    }
    pcam_sym_get_stats(b.sc, &st);
    /* 13 absent IDs: each a selection timeout the script reported. */
    assert_true(st.sel_timeouts >= 13);
    printf("scan: %llu commands, %llu interrupts (%llu script stops), %llu selection timeouts\n",
           (unsigned long long)st.completed, (unsigned long long)st.interrupts,
           (unsigned long long)st.script_irqs, (unsigned long long)st.sel_timeouts);
    qbus_stop(&b);
}

static void test_read_write(void **state)
{
    qbus b;
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    qbus_check_read_write(&b, image, 2, SALT2);
    qbus_stop(&b);
}

static void test_sg_and_short_read(void **state)
{
    static const uint32_t seg[5] = {100, 1000, 3, 2997, 2044};
    uint8_t *mem = malloc(8192), *want = malloc(8192);
    pcam_sg sg[5];
    pcam_sym_stats st;
    uint32_t off = 0;
    qbus b;
    qccb c;
    uint8_t cdb[16];
    (void)state;
    qbus_start(&b, drives, 2, NULL, NULL);
    for (unsigned i = 0; i < 5; i++) {
        sg[i].addr = mem + off + 16u * i;
        sg[i].len = seg[i];
        off += seg[i];
    }
    memset(mem, 0xee, 8192);
    qbus_rw(&b, 0, false, false, 3000, 12, NULL, sg, 5);
    qbus_image_blocks(image, 3000, 12, want);
    off = 0;
    for (unsigned i = 0; i < 5; i++) {
        assert_memory_equal(sg[i].addr, want + off, seg[i]);
        if (i < 4)
            assert_int_equal(mem[off + 16u * i + seg[i]], 0xee); /* nothing past a segment */
        off += seg[i];
    }
    /* Write through the same list, read back flat. */
    for (unsigned i = 0; i < 5; i++)
        qbus_fill(sg[i].addr, sg[i].len, 40 + i);
    qbus_rw(&b, 0, true, false, 3100, 12, NULL, sg, 5);
    qbus_image_blocks(image, 3100, 12, want);
    off = 0;
    for (unsigned i = 0; i < 5; i++) {
        assert_memory_equal(sg[i].addr, want + off, seg[i]);
        off += seg[i];
    }
    /* INQUIRY with room for 200 bytes: the target sends fewer, the data
     * chain stops in a phase mismatch, and the residual says how many. */
    memset(cdb, 0, 6);
    cdb[0] = 0x12;
    cdb[4] = 200;
    qccb_io(&c, 0, 0, cdb, 6, PCAM_DIR_IN, mem, 200);
    qbus_sync(&b, &c, 10000);
    qbus_expect(&c, PCAM_REQ_CMP);
    uint8_t addl = mem[4];
    assert_int_equal(c.ccb.u.io.resid, 200u - (5u + addl));
    pcam_sym_get_stats(b.sc, &st);
    assert_true(st.mismatches >= 1);
    free(mem);
    free(want);
    qbus_stop(&b);
}

#define DEPTH 24
static unsigned deep_done;
static void deep_cb(qccb *c)
{
    (void)c;
    deep_done++;
}

static void test_tagged_depth(void **state)
{
    qccb *c = calloc(DEPTH, sizeof *c);
    uint8_t *buf = malloc((size_t)DEPTH * 4096), *want = malloc(4096);
    pcam_sym_stats st;
    pcam_counters cnt;
    pcam_bus_config cfg;
    qbus b;
    (void)state;
    pcam_bus_config_defaults(&cfg);
    /* QEMU's own trace of its model: a command queued when it disconnects,
     * unqueued when it reselects (hw/scsi/trace-events). */
    static char tracefile[512];
    snprintf(tracefile, sizeof tracefile, "%s/lsi-trace.log", qrig_dir());
    /* A third disk, at ID 3, behind QEMU's I/O throttling: its reads wait
     * in the block layer, so the model really holds many tagged commands. */
    static char drv[700];
    snprintf(drv, sizeof drv, "if=none,id=dthr,file=%s,format=raw,throttling.iops-total=200", image3);
    const char *extra[] = {"-trace", "lsi_queue_command", "-trace", "lsi_reselect", "-D", tracefile,
                           "-drive", drv, "-device", "scsi-hd,drive=dthr,bus=scsi0.0,scsi-id=3", NULL};
    qbus_start(&b, drives, 2, &cfg, extra);
    qccb sc;
    memset(&sc, 0, sizeof sc);
    assert_int_equal(qbus_func(&b, &sc, PCAM_FN_SCAN_LUN, 3, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    /* Settle the power-on UNIT ATTENTION and the tag decision first. */
    qbus_rw(&b, 3, false, false, 0, 1, buf, NULL, 0);
    /* Errors are counted from here: the scan's own commands may meet the
     * power-on UNIT ATTENTION before this (the core's scan clears it). */
    pcam_counters before;
    assert_int_equal(pcam_bus_get_counters(&b.bus, 3, &before), PCAM_OK);
    unsigned rounds = 4;
    deep_done = 0;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < DEPTH; i++) {
            uint8_t cdb[10];
            cdb_rw10(cdb, false, 1000 + (r * DEPTH + i) * 8u, 8);
            qccb_io(&c[i], 3, 0, cdb, 10, PCAM_DIR_IN, buf + (size_t)i * 4096, 4096);
            c[i].ccb.flags |= PCAM_CCB_TAGGED;
            c[i].ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
            c[i].ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
            c[i].on_done = deep_cb;
            qbus_submit(&b, &c[i]);
        }
        assert_true(qbus_run_until(&b, &deep_done, (r + 1) * DEPTH, 30000));
        for (unsigned i = 0; i < DEPTH; i++) {
            qbus_expect(&c[i], PCAM_REQ_CMP);
            qbus_image_blocks(image3, 1000 + (r * DEPTH + i) * 8u, 8, want);
            assert_memory_equal(buf + (size_t)i * 4096, want, 4096);
        }
    }
    pcam_sym_get_stats(b.sc, &st);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 3, &cnt), PCAM_OK);
    printf("depth %d: %llu commands, max %u held by the chip, %llu interrupts, %llu done batches, "
           "%llu host-resolved reselections\n",
           DEPTH, (unsigned long long)st.completed, st.max_outstanding,
           (unsigned long long)st.interrupts, (unsigned long long)st.done_batches,
           (unsigned long long)st.resel_host);
    /* Many commands were at the target at once (QEMU queues each one it
     * disconnects), and one interrupt often retired more than one. */
    assert_true(st.max_outstanding >= 16);
    assert_true(st.done_batches < st.completed);
    assert_int_equal(cnt.errors - before.errors, 0);
    free(c);
    free(buf);
    free(want);
    qbus_stop(&b);
    /* From QEMU's side: how many tagged commands its model held at once. */
    int queued = 0, most = 0;
    qbus_trace_depth(tracefile, "lsi_queue_command", "lsi_reselect", &queued, &most);
    printf("QEMU trace: %d commands queued by the model on disconnect, at most %d at once\n", queued, most);
    assert_true(queued >= 4 * DEPTH);
    assert_true(most >= 8); /* "several": 24 when the host keeps up, fewer under load */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_sg_and_short_read),
        cmocka_unit_test(test_tagged_depth),
    };
    qrig_require_qemu();
    image = qrig_image("sym0.img", BLOCKS, SALT);
    image2 = qrig_image("sym2.img", BLOCKS, SALT2);
    image3 = qrig_image("sym3.img", BLOCKS, SALT3);
    memset(drives, 0, sizeof drives);
    drives[0].image = image;
    drives[0].scsi_id = 0;
    drives[1].image = image2;
    drives[1].scsi_id = 2;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
