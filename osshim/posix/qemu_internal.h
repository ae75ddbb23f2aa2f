/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private state of the QEMU qtest harness, shared by its source files.
 */
#ifndef PCAM_QEMU_INTERNAL_H
#define PCAM_QEMU_INTERNAL_H

#include "pcam_qemu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The I/O APIC has 24 inputs; qtest reports each by number. */
#define QEMU_NIRQ 24u
/* Guest RAM below this is left to the machine (IVT, BIOS data, option ROM holes). */
#define QEMU_GUEST_POOL_START 0x100000u
#define QEMU_GUEST_ALIGN 64u
/* Live guest allocations at once; each DMA mapping in flight uses one. */
#define QEMU_MAX_EXTENTS 512u

/* One allocation in guest RAM: a caller's buffer or a DMA bounce buffer. */
typedef struct qemu_extent {
    uint64_t gpa;
    uint64_t size;
    bool bounce;       /* dma_map made it; dma_unmap frees it */
    void *va;          /* the caller's buffer a bounce stands for */
    size_t len;
    pcam_dma_dir dir;
} qemu_extent;

struct pcam_qemu {
    pcam_posix px;
    pid_t pid;
    int fd;                 /* the qtest socket */
    char dir[256];          /* private temp dir: BIOS, socket, stderr */
    char errpath[300];
    int errfd;              /* QEMU's stderr, readable after the file is unlinked */
    char shmpath[300];      /* guest RAM backend until unlinked */
    bool shm_linked;

    /* line reader */
    char *rbuf;
    size_t rlen, rcap;
    size_t rskip;           /* length of the line handed out last, with its newline */
    /* command builder (b64 payloads make it grow) */
    char *wbuf;
    size_t wcap;

    int qmp_fd;             /* QMP monitor, or -1 */
    char *qbuf;             /* QMP line reader */
    size_t qlen, qcap, qskip;

    bool failed;
    char err[4096];
    bool irq_level[QEMU_NIRQ];
    bool intercepted;

    uint8_t *ram;           /* shared guest RAM, or NULL */
    size_t ram_size;
    pcam_qemu_bulk bulk;

    qemu_extent ext[QEMU_MAX_EXTENTS]; /* sorted by gpa */
    size_t next;

    uint32_t next_io;       /* BAR assignment cursors */
    uint64_t next_mem;

    pcam_qemu_stats stats;
};

/* qemu_qtest.c: the line protocol */
int qemu_fail(pcam_qemu *q, int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int qemu_cmd(pcam_qemu *q, const char *line, const char **reply);
int qemu_read_line(pcam_qemu *q, int timeout_ms, const char **line);
int qemu_drain(pcam_qemu *q, int timeout_ms);
int qemu_cmd_big(pcam_qemu *q, const char *buf, size_t len, const char **reply);
void qemu_append_stderr(pcam_qemu *q);

/* qemu_qmp.c */
int qemu_qmp_connect(pcam_qemu *q, const char *path);

/* qemu_dma.c */
int qemu_bulk_read(pcam_qemu *q, uint64_t addr, void *buf, size_t len);
int qemu_bulk_write(pcam_qemu *q, uint64_t addr, const void *buf, size_t len);

#endif /* PCAM_QEMU_INTERNAL_H */
