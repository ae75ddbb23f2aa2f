/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pcam bus on QEMU's AM53C974 (or, built with QBUS_SYM, its LSI53C895A
 * with hal/sym: tests/sym; with QBUS_MPT its SAS1068 with hal/mpt:
 * tests/mpt; with QBUS_VIRTIO its virtio-scsi-pci with hal/virtio:
 * tests/virtio): the core plus the back-end over the qtest
 * platform, driven the way an interrupt-mode shim drives it (pcam_bus_intr()
 * while the intercepted line is high, pcam_bus_tick() at the core's
 * deadlines, otherwise wait on the socket for the next IRQ line): a cmocka
 * front end to osshim/posix/pcam_qemu_chip.h on the chip's entry that fails the test on errors
 * and checks the core's invariants after every entry point.
 */
#ifndef QEMU_BUS_H
#define QEMU_BUS_H

#include <stdbool.h>
#include <stdint.h>

#include "pcam/pcam.h"
#include "pcam_qemu.h"
#if defined(QBUS_SYM)
#include "pcam_qemu_sym.h"
#elif defined(QBUS_MPT)
#include "pcam_qemu_mpt.h"
#elif defined(QBUS_VIRTIO)
#include "pcam_qemu_virtio.h"
#else
#include "pcam_qemu_esp.h"
#endif

/* The bus is osshim/posix's pcam_qemu_chipbus (fields q, bus, sc, intrs...)
 * on the AM53C974, the LSI53C895A, the SAS1068 or virtio-scsi; the first core invariant violation is kept by
 * qemu_bus.c. QBUS_ENTRY is the chip's entry. */
typedef pcam_qemu_chipbus qbus;
typedef pcam_qemu_chipbus_opts qbus_opts;
#if defined(QBUS_SYM)
#define QBUS_ENTRY pcam_qemu_chip_lsi53c895a
#define QBUS_CHIP "LSI53C895A"
#elif defined(QBUS_MPT)
#define QBUS_ENTRY pcam_qemu_chip_mptsas1068
#define QBUS_CHIP "SAS1068"
#elif defined(QBUS_VIRTIO)
#define QBUS_ENTRY pcam_qemu_chip_virtio_scsi
#define QBUS_CHIP "virtio-scsi"
#else
#define QBUS_ENTRY pcam_qemu_chip_am53c974
#define QBUS_CHIP "AM53C974"
#endif

/* A CCB whose completions are counted (exactly once is the rule). */
typedef struct qccb {
    pcam_ccb ccb;
    uint8_t sense[32];      /* autosense lands here (qccb_io sets it up) */
    unsigned done_count;
    uint64_t done_ns;
    void (*on_done)(struct qccb *c);
    void *arg;
} qccb;

/* Start QEMU with `drives` on the chip (QBUS_CHIP) and bring a pcam bus up on it.
 * bcfg NULL = defaults. extra: NULL-terminated extra QEMU args or NULL.
 * Fails the calling cmocka test on error. */
void qbus_start(qbus *b, const pcam_qemu_drive *drives, size_t ndrives, const pcam_bus_config *bcfg,
                const char *const *extra);
/* The same with a QMP monitor for pcam_qemu_hmp(). */
void qbus_start_monitor(qbus *b, const pcam_qemu_drive *drives, size_t ndrives,
                        const pcam_bus_config *bcfg);
/* Shut the bus down, stop QEMU; asserts no DMA mapping was left behind. */
void qbus_stop(qbus *b);

/* One shim step: an interrupt, a due tick, or a wait of at most max_wait_ms. */
void qbus_step(qbus *b, uint32_t max_wait_ms);
/* Step until *count >= target or timeout_ms passes; true when reached. */
bool qbus_run_until(qbus *b, const unsigned *count, unsigned target, uint32_t timeout_ms);

void qccb_io(qccb *c, uint8_t target, uint8_t lun, const uint8_t *cdb, uint8_t cdb_len, pcam_dir dir,
             void *data, uint32_t len);
void qbus_submit(qbus *b, qccb *c);
/* Submit and run to completion; returns the status, 0xFFFFFFFF on timeout. */
uint32_t qbus_sync(qbus *b, qccb *c, uint32_t timeout_ms);

/* Fail the test with the status, SCSI status and sense when the CCB did not
 * complete exactly once with status `want` (flags ignored). */
void qbus_expect(const qccb *c, uint32_t want);

/*
 * QEMU 7.2 cannot report sense for a LUN above 0: after a CHECK CONDITION
 * there, REQUEST SENSE is answered by the bus's target emulation, which says
 * ILLEGAL REQUEST / LOGICAL UNIT NOT SUPPORTED (hw/scsi/scsi-bus.c,
 * scsi_target_send_command) instead of the stored sense. So the power-on
 * UNIT ATTENTION of such a LUN reaches the core as 5/25/00 and cannot be
 * retried by policy. This sends one TEST UNIT READY there to use it up,
 * accepting exactly that outcome (or GOOD, should QEMU be fixed).
 */
void qbus_absorb_lun_ua(qbus *b, uint8_t target, uint8_t lun);

/* Convenience: a non-I/O CCB (scan, reset, get dev...) run to completion. */
uint32_t qbus_func(qbus *b, qccb *c, uint8_t func, uint8_t target, uint8_t lun, uint32_t timeout_ms);

/* The image file's bytes (writes through QEMU land there too); fails the
 * test when the file cannot be read. */
void qbus_image_blocks(const char *image, uint32_t lba, uint32_t n, uint8_t *out);
/* A deterministic pattern to write through the bus. */
void qbus_fill(uint8_t *p, size_t n, uint32_t seed);
/* READ or WRITE (10, or 16 with c16) of n blocks at lba on target t, LUN 0,
 * into buf or through sg (nsg > 0); fails the test unless it ends GOOD with
 * no residual. */
void qbus_rw(qbus *b, uint8_t t, bool write, bool c16, uint32_t lba, uint32_t n, void *buf,
             const pcam_sg *sg, uint16_t nsg);

/* The read/write scenario every chip's QEMU test runs on a fresh bus: on
 * target 0 (whose image is `image`), READ/WRITE 10 and 16 of 1, 128 and 17
 * blocks compared with the image file and read back; on target t2 two
 * blocks of the pattern qrig_image() wrote with salt2; target 0's counters
 * show the power-on UNIT ATTENTION retried away and no error. */
void qbus_check_read_write(qbus *b, const char *image, uint8_t t2, uint32_t salt2);

/* From a QEMU trace file (-trace EVENT -D path): how many lines name
 * in_event, and the most in_events not yet matched by an out_event at any
 * point: the commands a model held at once. QBUS_TRACE_DUMP=1 prints the
 * first lines. */
void qbus_trace_depth(const char *path, const char *in_event, const char *out_event, int *entered,
                      int *most);

/* The recovery tests' steps, one per chip's faults test: SCAN LUN of (t, 0)
 * ending REQ_CMP; a READ/WRITE 10 of n blocks at lba on (t, 0), SIMPLE-tagged
 * when `tagged`; one block read and compared with qrig_sector(lba, salt);
 * a device reset CCB (LOGICAL UNIT RESET when lun_reset) run to its end,
 * its status returned. */
void qbus_scan_lun0(qbus *b, uint8_t t);
void qbus_io10(qccb *c, uint8_t t, bool write, uint32_t lba, uint16_t n, uint8_t *buf, bool tagged);
void qbus_read_check(qbus *b, uint8_t t, uint32_t lba, uint32_t salt);
uint32_t qbus_reset_dev(qbus *b, uint8_t t, bool lun_reset);

/* The scenarios every command-level chip's QEMU tests run (tests/mpt,
 * tests/virtio), on a running bus; the caller checks its back-end's own
 * counters after each.
 * - sg_and_short_inquiry: on target 0 (image `image`), a 20-segment READ
 *   and WRITE (10) of 24 blocks compared with the image, nothing written
 *   past a segment; an INQUIRY for 200 bytes ends with the residual the
 *   data's additional length implies.
 * - media_errors: target 0 behind blkdebug failing writes of sector 16 and
 *   reads of sector 40 with EIO: CHECK CONDITION with autosense ABORTED
 *   COMMAND / I/O PROCESS TERMINATED; the neighbours are fine; a TEST
 *   UNIT READY at the empty ID 5 is a selection timeout.
 * - bus_reset_in_flight: 16 tagged reads on target 0, a bus reset: every
 *   CCB completes once, GOOD, with the image's data (one may meet the
 *   reset's UNIT ATTENTION with its sense gone: resid 4096), then a read.
 * - abort_held (a bus with a monitor): a read held at a blkdebug break
 *   point, its ABORT TASK answered once the break point is resumed; the
 *   read ends aborted, once, and the next read is right.
 * - hot_removal (a bus with a monitor, scanned): device_del of `dev` (the
 *   disk at target t): a read there is a selection timeout, the next scan
 *   drops it, and target 0 still reads right. */
void qbus_check_sg_and_short_inquiry(qbus *b, const char *image);
void qbus_check_media_errors(qbus *b, uint32_t salt);
void qbus_check_bus_reset_in_flight(qbus *b, uint32_t salt);
void qbus_check_abort_held(qbus *b, uint32_t salt);
void qbus_check_hot_removal(qbus *b, const char *dev, uint8_t t, uint32_t salt0);
/* - scan_two_disks: SCAN BUS, then every ID 0..15 but `skip` (the
 *   initiator's) has a QEMU disk at 0 and 2 and nothing elsewhere.
 * - device_resets: on scanned target 0, a target reset and a LUN reset
 *   each followed by a right read, counted by the core; returns the status
 *   of a LUN reset at the empty ID 5.
 * - tagged_depth: `rounds` x `depth` 4 KiB tagged reads (simple, ordered,
 *   head of queue in turn) on scanned target t, whose image is `image`,
 *   all submitted before any is waited for; each completes once with the
 *   image's bytes and the core counts no error. */
void qbus_check_scan_two_disks(qbus *b, uint8_t skip);
uint32_t qbus_check_device_resets(qbus *b, uint32_t salt);
void qbus_check_tagged_depth(qbus *b, uint8_t t, const char *image, unsigned depth, unsigned rounds);

/* CDB builders (SBC-3 layouts, big-endian fields). */
void cdb_rw6(uint8_t *c, bool write, uint32_t lba, uint8_t blocks);
void cdb_rw10(uint8_t *c, bool write, uint32_t lba, uint16_t blocks);
void cdb_rw16(uint8_t *c, bool write, uint64_t lba, uint32_t blocks);

#endif /* QEMU_BUS_H */
