/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the QEMU tests: skipping when QEMU is absent, scratch
 * images with a known pattern, and a minimal AM53C974 register driver used
 * to prove the transport before any back-end is involved.
 */
#ifndef QEMU_RIG_H
#define QEMU_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcam_qemu.h"

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE). */
#define QRIG_SKIP 77

/* Exit with QRIG_SKIP and a loud banner when qemu-system-x86_64 is not on PATH. */
void qrig_require_qemu(void);

/* A private scratch directory, removed (with its files) at exit. */
const char *qrig_dir(void);

/* Create DIR/name with `sectors` 512-byte sectors, sector n holding the
 * 32-bit little-endian value n + salt repeated; returns the path (static storage
 * per call index, at most 16 images). */
const char *qrig_image(const char *name, uint32_t sectors, uint32_t salt);

/* The bytes sector `lba` of an image made by qrig_image holds. */
void qrig_sector(uint8_t *out, uint32_t lba, uint32_t salt);

/* Read `len` bytes at `off` from a host file; returns false on error. */
bool qrig_read_file(const char *path, uint64_t off, void *buf, size_t len);

/* Write a small text file into the scratch dir; returns its path. */
const char *qrig_text_file(const char *name, const char *text);

/* ---- a tiny AM53C974 driver over pcam_platform (transport tests only) ---- */

/* ESP register numbers (the datasheets; QEMU hw/scsi/esp.h agrees). */
enum {
    ESP_TCLO = 0x0, ESP_TCMID = 0x1, ESP_FIFO = 0x2, ESP_CMD = 0x3, ESP_STAT = 0x4,
    ESP_BUSID = 0x4, ESP_INTR = 0x5, ESP_TIMEOUT = 0x5, ESP_SEQ = 0x6, ESP_FFLAGS = 0x7,
    ESP_CFG1 = 0x8, ESP_CFG2 = 0xb, ESP_CFG3 = 0xc, ESP_TCHI = 0xe
};
/* ESP commands; bit 7 selects DMA. */
enum {
    ESPC_NOP = 0x00, ESPC_FLUSH = 0x01, ESPC_RESET = 0x02, ESPC_BUSRESET = 0x03,
    ESPC_TI = 0x10, ESPC_ICCS = 0x11, ESPC_MSGACC = 0x12, ESPC_SELATN = 0x42, ESPC_DMA = 0x80
};
/* AM53C974 DMA engine, 32-bit registers at BAR0 + 0x40 (AMD PCscsi). */
enum { DMA_CMD = 0x40, DMA_STC = 0x44, DMA_SPA = 0x48, DMA_WBC = 0x4c, DMA_STAT = 0x54 };
enum { DMA_CMD_IDLE = 0x00, DMA_CMD_START = 0x03, DMA_CMD_TO_MEM = 0x80 };
enum { INTR_FC = 0x08, INTR_BS = 0x10, INTR_DC = 0x20, INTR_RST = 0x80 };

typedef struct qrig_esp {
    pcam_qemu *q;
    pcam_platform plat;
    pcam_qemu_pci_dev pci;
    uintptr_t base;
    unsigned irq;
} qrig_esp;

/* Find the AM53C974, set it up, reset the chip; returns 0 or negative. */
int qrig_esp_attach(qrig_esp *e, pcam_qemu *q);
void qrig_esp_w(qrig_esp *e, unsigned reg, uint8_t v);
uint8_t qrig_esp_r(qrig_esp *e, unsigned reg);

/* Result of one command driven by qrig_esp_command. */
typedef struct qrig_result {
    bool selected;      /* false: the target did not answer selection */
    uint8_t status;     /* SCSI status byte */
    uint8_t msg;        /* message-in byte (COMMAND COMPLETE = 0) */
    size_t data_len;    /* bytes moved in the data phase */
} qrig_result;

/* One untagged command: select with ATN (IDENTIFY + CDB by DMA), one data
 * phase by DMA through the platform's dma_map/unmap, then status and message.
 * Returns 0, or negative when an interrupt did not come in time. */
int qrig_esp_command(qrig_esp *e, uint8_t target, uint8_t lun, const uint8_t *cdb, size_t cdb_len,
                     void *data, size_t data_len, bool data_in, qrig_result *res);

#endif /* QEMU_RIG_H */
