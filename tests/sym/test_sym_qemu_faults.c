/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym with the core on QEMU's lsi53c895a (label qemu), the error paths:
 * a write error injected by blkdebug reaches the CCB as CHECK CONDITION
 * with its sense (fetched by the core's REQUEST SENSE through the script);
 * a selection timeout; a bus reset with 16 tagged reads in flight, after
 * which every CCB has completed exactly once and each that moved data holds
 * the image's bytes; a BUS DEVICE RESET after which I/O goes on; ABORT TASK
 * of a read held disconnected by a blkdebug break point; and a mixed run of
 * reads and writes at depth 16 checked against a shadow copy and the image.
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

#define BLOCKS 4096u
#define SALT 0x40000u

static pcam_qemu_drive drive;

static void scan0(qbus *b)
{
    qccb c;
    memset(&c, 0, sizeof c);
    assert_int_equal(qbus_func(b, &c, PCAM_FN_SCAN_LUN, 0, 0, 30000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
}

/*
 * QEMU's scsi-disk keeps one sense per device and any GOOD completion
 * clears it (hw/scsi/scsi-bus.c, scsi_req_complete): with tagged commands
 * in flight, the sense of a CHECK CONDITION is gone before the core's
 * REQUEST SENSE gets there (the core then sees NO SENSE and reports the
 * command done with its whole length as residual). Power-on and reset UNIT
 * ATTENTIONs are therefore used up untagged before tagged work.
 */
static void absorb_ua(qbus *b)
{
    static const uint8_t tur[6] = {0};
    qccb c;
    qccb_io(&c, 0, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
}

static void io(qccb *c, bool write, uint32_t lba, uint16_t n, uint8_t *buf, bool tagged)
{
    uint8_t cdb[10];
    cdb_rw10(cdb, write, lba, n);
    qccb_io(c, 0, 0, cdb, 10, write ? PCAM_DIR_OUT : PCAM_DIR_IN, buf, n * 512u);
    if (tagged) {
        c->ccb.flags |= PCAM_CCB_TAGGED;
        c->ccb.u.io.tag_action = PCAM_TAG_SIMPLE;
    }
}

static void test_write_error_and_sel_timeout(void **state)
{
    uint8_t buf[4096];
    qbus b;
    qccb c;
    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    scan0(&b);
    /* blkdebug fails writes of sector 16 with EIO: scsi-disk reports
     * ABORTED COMMAND, I/O PROCESS TERMINATED (0B/00/06). */
    memset(buf, 0x3c, sizeof buf);
    io(&c, true, 16, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SCSI_STATUS_ERROR);
    assert_true(c.ccb.status & PCAM_AUTOSNS_VALID);
    assert_int_equal(c.ccb.u.io.scsi_status, 0x02);
    assert_int_equal(c.sense[0] & 0x7f, 0x70);
    assert_int_equal(c.sense[2] & 0x0f, 0x0b);
    /* Its neighbour writes fine and reads back. */
    io(&c, true, 17, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    memset(buf, 0, 512);
    io(&c, false, 17, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    assert_int_equal(buf[0], 0x3c);
    assert_int_equal(buf[511], 0x3c);
    /* Nobody at ID 5. */
    static const uint8_t tur[6] = {0};
    qccb_io(&c, 5, 0, tur, 6, PCAM_DIR_NONE, NULL, 0);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_SEL_TIMEOUT);
    qbus_stop(&b);
}

#define N 16
static unsigned ndone;
static void count_cb(qccb *c)
{
    (void)c;
    ndone++;
}

static void test_bus_reset_in_flight(void **state)
{
    qccb *c = calloc(N, sizeof *c);
    uint8_t *buf = malloc(N * 4096), want[4096];
    pcam_sym_stats st;
    qbus b;
    qccb r;
    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    scan0(&b);
    ndone = 0;
    for (unsigned i = 0; i < N; i++) {
        io(&c[i], false, 200 + 8 * i, 8, buf + 4096 * i, true);
        c[i].on_done = count_cb;
        qbus_submit(&b, &c[i]);
    }
    memset(&r, 0, sizeof r);
    assert_int_equal(qbus_func(&b, &r, PCAM_FN_RESET_BUS, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(&b, &ndone, N, 30000));
    unsigned full = 0, lost = 0;
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(c[i].done_count, 1);
        uint32_t s = c[i].ccb.status & PCAM_STATUS_MASK;
        /* Finished before the reset, or requeued and finished after it;
         * the one that met the reset's UNIT ATTENTION may have lost its
         * sense to QEMU (see absorb_ua) and then says so by its residual. */
        assert_int_equal(s, PCAM_REQ_CMP);
        if (c[i].ccb.u.io.resid == 4096) {
            lost++;
            continue;
        }
        assert_int_equal(c[i].ccb.u.io.resid, 0);
        qrig_sector(want, 200 + 8 * i, SALT);
        assert_memory_equal(buf + 4096 * i, want, 512);
        full++;
    }
    printf("bus reset with %d in flight: %u verified, %u moved nothing (sense lost by QEMU)\n", N, full, lost);
    assert_true(lost <= 1);
    /* After the reset the disk reads right again. */
    absorb_ua(&b);
    io(&r, false, 250, 1, want, true);
    qbus_sync(&b, &r, 15000);
    qbus_expect(&r, PCAM_REQ_CMP);
    qrig_sector(buf, 250, SALT);
    assert_memory_equal(want, buf, 512);
    pcam_sym_get_stats(b.sc, &st);
    assert_true(st.bus_resets >= 1);
    free(c);
    free(buf);
    qbus_stop(&b);
}

static void test_mixed_run(void **state)
{
    enum { ROUNDS = 12, D = 16 };
    qccb *c = calloc(D, sizeof *c);
    uint8_t *buf = malloc(D * 8192), *shadow = malloc(1024 * 512), *want = malloc(8192);
    pcam_sym_stats st;
    qbus b;
    uint32_t seed = 12345;
    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    scan0(&b);
    absorb_ua(&b);
    /* A shadow copy of blocks 1024..2047 (each command owns a disjoint range). */
    for (unsigned k = 0; k < 1024; k++)
        qrig_sector(shadow + 512 * k, 1024 + k, SALT);
    ndone = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        for (unsigned i = 0; i < D; i++) {
            seed = seed * 1103515245u + 12345u;
            bool w = (seed >> 16) & 1u;
            uint16_t n = (uint16_t)(1u + ((seed >> 20) % 16u));
            uint32_t lba = 1024u + 64u * i + ((seed >> 8) % 48u);
            uint8_t *p = buf + 8192 * i;
            if (w)
                for (unsigned k = 0; k < n * 512u; k++)
                    p[k] = (uint8_t)(seed + k * 7u + r);
            io(&c[i], w, lba, n, p, true);
            c[i].on_done = count_cb;
            c[i].arg = (void *)(uintptr_t)lba;
            qbus_submit(&b, &c[i]);
        }
        assert_true(qbus_run_until(&b, &ndone, (r + 1) * D, 30000));
        for (unsigned i = 0; i < D; i++) {
            qbus_expect(&c[i], PCAM_REQ_CMP);
            uint32_t lba = (uint32_t)(uintptr_t)c[i].arg;
            uint32_t len = c[i].ccb.u.io.data_len;
            uint8_t *p = buf + 8192 * i;
            assert_int_equal(c[i].ccb.u.io.resid, 0);
            if (c[i].ccb.u.io.dir == PCAM_DIR_OUT)
                memcpy(shadow + 512u * (lba - 1024u), p, len);
            else
                assert_memory_equal(p, shadow + 512u * (lba - 1024u), len);
        }
    }
    /* And the image file agrees with the shadow. */
    for (unsigned k = 0; k < 1024; k += 16) {
        assert_true(qrig_read_file(drive.image, (uint64_t)(1024 + k) * 512u, want, 8192));
        assert_memory_equal(want, shadow + 512 * k, 8192);
    }
    pcam_sym_get_stats(b.sc, &st);
    printf("mixed: %llu commands, %llu interrupts (%.2f per command), max %u outstanding\n",
           (unsigned long long)st.completed, (unsigned long long)st.interrupts,
           (double)st.interrupts / (double)st.completed, st.max_outstanding);
    free(c);
    free(buf);
    free(shadow);
    free(want);
    qbus_stop(&b);
}

static void test_bdr(void **state)
{
    uint8_t buf[512], want[512];
    pcam_counters c0, c1;
    qbus b;
    qccb r, c;
    (void)state;
    qbus_start(&b, &drive, 1, NULL, NULL);
    scan0(&b);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    memset(&r, 0, sizeof r);
    assert_int_equal(qbus_func(&b, &r, PCAM_FN_RESET_DEV, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.resets, c0.resets + 1);
    io(&c, false, 300, 1, buf, true);
    qbus_sync(&b, &c, 15000);
    qbus_expect(&c, PCAM_REQ_CMP);
    qrig_sector(want, 300, SALT);
    assert_memory_equal(buf, want, 512);
    qbus_stop(&b);
}

static void test_abort_disconnected(void **state)
{
    uint8_t buf[512], want[512];
    char out[256];
    pcam_counters c0, c1;
    qbus b;
    qccb c, a, d;
    (void)state;
    qbus_start_monitor(&b, &drive, 1, NULL);
    scan0(&b);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c0), PCAM_OK);
    /* Hold the next read in the block layer: the target has disconnected
     * (SAVE DATA POINTER, DISCONNECT) and keeps the task. */
    assert_int_equal(pcam_qemu_hmp(b.q, "qemu-io d0 \"break read_aio A\"", out, sizeof out), 0);
    io(&c, false, 400, 1, buf, true);
    qbus_submit(&b, &c);
    for (int i = 0; i < 20; i++)
        qbus_step(&b, 10);
    assert_int_equal(c.done_count, 0);
    memset(&a, 0, sizeof a);
    a.ccb.u.abort.victim = &c.ccb;
    assert_int_equal(qbus_func(&b, &a, PCAM_FN_ABORT, 0, 0, 15000) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    assert_true(qbus_run_until(&b, &c.done_count, 1, 15000));
    qbus_expect(&c, PCAM_REQ_ABORTED);
    (void)pcam_qemu_hmp(b.q, "qemu-io d0 \"resume A\"", out, sizeof out);
    assert_int_equal(pcam_bus_get_counters(&b.bus, 0, &c1), PCAM_OK);
    assert_int_equal(c1.aborts, c0.aborts + 1);
    /* The bus goes on. */
    io(&d, false, 401, 1, buf, true);
    qbus_sync(&b, &d, 15000);
    qbus_expect(&d, PCAM_REQ_CMP);
    qrig_sector(want, 401, SALT);
    assert_memory_equal(buf, want, 512);
    qbus_stop(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_run),
        cmocka_unit_test(test_bus_reset_in_flight),
        cmocka_unit_test(test_write_error_and_sel_timeout),
        cmocka_unit_test(test_bdr),
        cmocka_unit_test(test_abort_disconnected),
    };
    qrig_require_qemu();
    memset(&drive, 0, sizeof drive);
    drive.image = qrig_image("symf.img", BLOCKS, SALT);
    drive.scsi_id = 0;
    drive.blkdebug = qrig_text_file("blkdebug.cfg", "[inject-error]\nevent = \"write_aio\"\n"
                                                    "errno = \"5\"\nsector = \"16\"\n");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
