/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the QEMU tests (see qemu_rig.h).
 */
#define _GNU_SOURCE
#include "qemu_rig.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILES 32

static char dir[256];
static char files[MAX_FILES][320];
static unsigned nfiles;

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* The whole tree goes: tests may leave QEMU temp dirs in it on purpose. */
static void cleanup(void)
{
    if (dir[0] != '\0')
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void qrig_require_qemu(void)
{
    const char *name = getenv("PCAM_QEMU");
    char cmd[512];

    if (name == NULL || name[0] == '\0')
        name = "qemu-system-x86_64";
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", name);
    if (system(cmd) != 0) {
        fprintf(stderr,
                "\n*************************************************************\n"
                "*** SKIPPED: %s is not installed.\n"
                "*** The QEMU tests need it: apt-get install qemu-system-x86\n"
                "*************************************************************\n\n",
                name);
        exit(QRIG_SKIP);
    }
}

const char *qrig_dir(void)
{
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/pcam-qtest-XXXXXX");
        if (mkdtemp(dir) == NULL) {
            perror("mkdtemp");
            exit(1);
        }
        atexit(cleanup);
    }
    return dir;
}

static const char *new_file(const char *name)
{
    if (nfiles == MAX_FILES) {
        fprintf(stderr, "qemu_rig: too many scratch files\n");
        exit(1);
    }
    snprintf(files[nfiles], sizeof files[nfiles], "%s/%s", qrig_dir(), name);
    return files[nfiles++];
}

void qrig_sector(uint8_t *out, uint32_t lba, uint32_t salt)
{
    uint32_t v = lba + salt;
    unsigned i;

    for (i = 0; i < 512; i += 4) {
        out[i] = (uint8_t)v;
        out[i + 1] = (uint8_t)(v >> 8);
        out[i + 2] = (uint8_t)(v >> 16);
        out[i + 3] = (uint8_t)(v >> 24);
    }
}

const char *qrig_image(const char *name, uint32_t sectors, uint32_t salt)
{
    const char *path = new_file(name);
    FILE *f = fopen(path, "wb");
    uint8_t s[512];
    uint32_t i;

    if (f == NULL) {
        perror(path);
        exit(1);
    }
    for (i = 0; i < sectors; i++) {
        qrig_sector(s, i, salt);
        if (fwrite(s, 1, sizeof s, f) != sizeof s) {
            perror(path);
            exit(1);
        }
    }
    fclose(f);
    return path;
}

const char *qrig_text_file(const char *name, const char *text)
{
    const char *path = new_file(name);
    FILE *f = fopen(path, "w");

    if (f == NULL || fputs(text, f) < 0) {
        perror(path);
        exit(1);
    }
    fclose(f);
    return path;
}

bool qrig_read_file(const char *path, uint64_t off, void *buf, size_t len)
{
    int fd = open(path, O_RDONLY);
    ssize_t n;

    if (fd < 0)
        return false;
    n = pread(fd, buf, len, (off_t)off);
    close(fd);
    return n == (ssize_t)len;
}

/* ---- minimal AM53C974 driver ------------------------------------------ */

void qrig_esp_w(qrig_esp *e, unsigned reg, uint8_t v)
{
    e->plat.write8(e->plat.ctx, e->base + 4u * reg, v);
}

uint8_t qrig_esp_r(qrig_esp *e, unsigned reg)
{
    return e->plat.read8(e->plat.ctx, e->base + 4u * reg);
}

static void dma_w(qrig_esp *e, unsigned off, uint32_t v)
{
    e->plat.write32(e->plat.ctx, e->base + off, v);
}

static uint32_t dma_r(qrig_esp *e, unsigned off)
{
    return e->plat.read32(e->plat.ctx, e->base + off);
}

int qrig_esp_attach(qrig_esp *e, pcam_qemu *q)
{
    int rc;

    memset(e, 0, sizeof *e);
    e->q = q;
    pcam_qemu_platform(q, &e->plat);
    rc = pcam_qemu_find_pci(q, 0x1022, 0x2020, 0, 11, &e->pci);
    if (rc != 0)
        return rc;
    e->base = (uintptr_t)e->pci.bar[0].addr;
    e->irq = e->pci.irq;
    qrig_esp_w(e, ESP_CMD, ESPC_RESET);
    qrig_esp_w(e, ESP_CMD, ESPC_NOP);
    qrig_esp_w(e, ESP_CFG1, 0x07); /* own ID 7, parity off */
    qrig_esp_w(e, ESP_TIMEOUT, 0x99);
    return 0;
}

/* Wait for INTR, then read STAT, SEQ and INTR (the INTR read clears it). */
static int wait_intr(qrig_esp *e, uint8_t *stat, uint8_t *intr)
{
    int rc = pcam_qemu_wait_irq(e->q, e->irq, 3000);

    if (rc <= 0)
        return rc < 0 ? rc : -ETIMEDOUT;
    (void)dma_r(e, DMA_STAT);
    *stat = qrig_esp_r(e, ESP_STAT);
    (void)qrig_esp_r(e, ESP_SEQ);
    *intr = qrig_esp_r(e, ESP_INTR);
    return 0;
}

static void arm(qrig_esp *e, uint64_t bus, uint32_t n, bool to_mem)
{
    uint32_t dir = to_mem ? DMA_CMD_TO_MEM : 0;

    dma_w(e, DMA_CMD, DMA_CMD_IDLE | dir);
    dma_w(e, DMA_STC, n);
    dma_w(e, DMA_SPA, (uint32_t)bus);
    qrig_esp_w(e, ESP_TCLO, (uint8_t)n);
    qrig_esp_w(e, ESP_TCMID, (uint8_t)(n >> 8));
    qrig_esp_w(e, ESP_TCHI, (uint8_t)(n >> 16));
}

int qrig_esp_command(qrig_esp *e, uint8_t target, uint8_t lun, const uint8_t *cdb, size_t cdb_len,
                     void *data, size_t data_len, bool data_in, qrig_result *res)
{
    uint8_t out[17], stat = 0, intr = 0;
    uint64_t bus;
    int rc, loops;

    memset(res, 0, sizeof *res);
    if (cdb_len > 16)
        return -EINVAL;
    out[0] = (uint8_t)(0x80u | lun); /* IDENTIFY, no disconnect privilege */
    memcpy(out + 1, cdb, cdb_len);
    rc = e->plat.dma_map(e->plat.ctx, out, cdb_len + 1, PCAM_DMA_TO_DEVICE, &bus);
    if (rc != 0)
        return rc;
    qrig_esp_w(e, ESP_BUSID, target);
    arm(e, bus, (uint32_t)(cdb_len + 1), false);
    qrig_esp_w(e, ESP_CMD, ESPC_SELATN | ESPC_DMA);
    /* The model starts the selection only once the DMA engine runs. */
    dma_w(e, DMA_CMD, DMA_CMD_START);
    rc = wait_intr(e, &stat, &intr);
    e->plat.dma_unmap(e->plat.ctx, out, cdb_len + 1, PCAM_DMA_TO_DEVICE, bus);
    if (rc != 0)
        return rc;
    if (intr & INTR_DC)
        return 0;
    res->selected = true;
    for (loops = 0; loops < 4 && (stat & 7u) <= 1u; loops++) {
        bool in = (stat & 7u) == 1u;
        size_t n = data_len - res->data_len;
        uint32_t left;
        if (n == 0 || in != data_in)
            return -EPROTO;
        rc = e->plat.dma_map(e->plat.ctx, (uint8_t *)data + res->data_len, n,
                             in ? PCAM_DMA_FROM_DEVICE : PCAM_DMA_TO_DEVICE, &bus);
        if (rc != 0)
            return rc;
        arm(e, bus, (uint32_t)n, in);
        qrig_esp_w(e, ESP_CMD, ESPC_TI | ESPC_DMA);
        dma_w(e, DMA_CMD, DMA_CMD_START | (in ? DMA_CMD_TO_MEM : 0u));
        rc = wait_intr(e, &stat, &intr);
        left = dma_r(e, DMA_WBC);
        e->plat.dma_unmap(e->plat.ctx, (uint8_t *)data + res->data_len, n,
                          in ? PCAM_DMA_FROM_DEVICE : PCAM_DMA_TO_DEVICE, bus);
        if (rc != 0)
            return rc;
        res->data_len += n - (left <= n ? left : n);
    }
    qrig_esp_w(e, ESP_CMD, ESPC_ICCS);
    rc = wait_intr(e, &stat, &intr);
    if (rc != 0)
        return rc;
    res->status = qrig_esp_r(e, ESP_FIFO);
    res->msg = qrig_esp_r(e, ESP_FIFO);
    qrig_esp_w(e, ESP_CMD, ESPC_MSGACC);
    return wait_intr(e, &stat, &intr);
}
