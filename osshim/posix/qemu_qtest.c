/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The qtest line protocol: one command line, one OK/FAIL answer, with
 * "IRQ raise N" / "IRQ lower N" lines arriving at any moment in between.
 */
#include "qemu_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A command that takes longer than this means QEMU is wedged. */
#define REPLY_TIMEOUT_MS 20000

int qemu_fail(pcam_qemu *q, int err, const char *fmt, ...)
{
    va_list ap;

    if (q->failed)
        return err;
    q->failed = true;
    va_start(ap, fmt);
    vsnprintf(q->err, sizeof q->err, fmt, ap);
    va_end(ap);
    if (err == -EPIPE)
        qemu_append_stderr(q);
    pcam_posix_logf(&q->px, PCAM_LOG_ERROR, "qemu: %s", q->err);
    return err;
}

/* Take one whole line out of the buffer, reading from the socket while
 * none is complete. The returned text stays valid until the next call. */
int qemu_read_line(pcam_qemu *q, int timeout_ms, const char **line)
{
    uint64_t deadline = 0;
    char *nl;

    if (q->rskip > 0) {
        memmove(q->rbuf, q->rbuf + q->rskip, q->rlen - q->rskip);
        q->rlen -= q->rskip;
        q->rskip = 0;
    }
    if (q->failed)
        return -EPIPE;
    if (timeout_ms > 0)
        deadline = pcam_posix_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        nl = q->rlen ? memchr(q->rbuf, '\n', q->rlen) : NULL;
        if (nl != NULL)
            break;
        if (q->rcap - q->rlen < 4096) {
            size_t cap = q->rcap ? q->rcap * 2 : 65536;
            char *b = realloc(q->rbuf, cap);
            if (b == NULL)
                return qemu_fail(q, -ENOMEM, "out of memory for a qtest reply");
            q->rbuf = b;
            q->rcap = cap;
        }
        {
            struct pollfd p = { q->fd, POLLIN, 0 };
            int wait = 0, r;
            ssize_t n;
            if (timeout_ms > 0) {
                uint64_t now = pcam_posix_now_ns();
                wait = now >= deadline ? 0 : (int)((deadline - now + 999999u) / 1000000u);
            }
            r = poll(&p, 1, wait);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return qemu_fail(q, -errno, "poll on the qtest socket: %s", strerror(errno));
            if (r == 0)
                return 0;
            n = recv(q->fd, q->rbuf + q->rlen, q->rcap - q->rlen - 1, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return qemu_fail(q, -EPIPE, "QEMU closed the qtest socket%s%s",
                                 n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
            q->rlen += (size_t)n;
        }
    }
    *nl = '\0';
    /* The caller reads the line in place; it is dropped on the next call. */
    q->rskip = (size_t)(nl - q->rbuf) + 1;
    *line = q->rbuf;
    return 1;
}

/* An "IRQ raise N" / "IRQ lower N" line updates the line level. */
static int handle_async(pcam_qemu *q, const char *line)
{
    const char *p;
    char *end;
    unsigned long n;
    bool raise;

    if (strncmp(line, "IRQ ", 4) != 0)
        return 0;
    p = line + 4;
    if (strncmp(p, "raise ", 6) == 0)
        raise = true;
    else if (strncmp(p, "lower ", 6) == 0)
        raise = false;
    else
        return qemu_fail(q, -EPROTO, "malformed qtest line '%s'", line);
    n = strtoul(p + 6, &end, 10);
    if (*end != '\0' || end == p + 6 || n >= QEMU_NIRQ)
        return qemu_fail(q, -EPROTO, "malformed qtest line '%s'", line);
    q->irq_level[n] = raise;
    q->stats.irq_events++;
    return 1;
}

int qemu_drain(pcam_qemu *q, int timeout_ms)
{
    const char *line;
    int r;

    for (;;) {
        r = qemu_read_line(q, timeout_ms, &line);
        if (r <= 0)
            return r;
        r = handle_async(q, line);
        if (r == 0)
            return qemu_fail(q, -EPROTO, "unsolicited qtest line '%.100s'", line);
        if (r < 0)
            return r;
        return 1;
    }
}

/* How much of a command to quote in a message: up to its newline, at most 60. */
static int cmd_len(const char *buf, size_t len)
{
    const char *nl = memchr(buf, '\n', len);
    size_t n = nl ? (size_t)(nl - buf) : len;

    return (int)(n < 60 ? n : 60);
}

/* Send one whole command (ending in '\n') and wait for its answer. The
 * reply text after "OK" (or "") is valid until the next command. */
static int send_recv(pcam_qemu *q, const char *buf, size_t len, const char **reply)
{
    uint64_t t0;
    const char *line;
    size_t off = 0;
    int r;

    if (q->failed)
        return -EPIPE;
    t0 = pcam_posix_now_ns();
    while (off < len) {
        ssize_t n = send(q->fd, buf + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        /* A QEMU that died before the send reads the same as one that died
         * before its answer: whichever side sees it first says so alike. */
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            return qemu_fail(q, -EPIPE, "QEMU closed the qtest socket: %s", strerror(errno));
        if (n < 0)
            return qemu_fail(q, -EPIPE, "sending to QEMU failed: %s", strerror(errno));
        off += (size_t)n;
    }
    for (;;) {
        r = qemu_read_line(q, REPLY_TIMEOUT_MS, &line);
        if (r == 0)
            return qemu_fail(q, -ETIMEDOUT, "no qtest answer in %d ms to '%.*s'", REPLY_TIMEOUT_MS,
                         cmd_len(buf, len), buf);
        if (r < 0)
            return r;
        r = handle_async(q, line);
        if (r < 0)
            return r;
        if (r > 0)
            continue;
        break;
    }
    q->stats.round_trips++;
    q->stats.round_trip_ns += pcam_posix_now_ns() - t0;
    if (strcmp(line, "OK") == 0) {
        *reply = line + 2;
        return 0;
    }
    if (strncmp(line, "OK ", 3) == 0) {
        *reply = line + 3;
        return 0;
    }
    return qemu_fail(q, -EIO, "QEMU answered '%.200s' to '%.*s'", line, cmd_len(buf, len), buf);
}

int qemu_cmd(pcam_qemu *q, const char *line, const char **reply)
{
    char buf[256];
    size_t n = strlen(line);

    if (n + 2 > sizeof buf)
        return -EINVAL;
    memcpy(buf, line, n);
    buf[n] = '\n';
    return send_recv(q, buf, n + 1, reply);
}

/* Bulk commands are built by the caller and may be long. */
int qemu_cmd_big(pcam_qemu *q, const char *buf, size_t len, const char **reply)
{
    return send_recv(q, buf, len, reply);
}

static int parse_hex(pcam_qemu *q, const char *reply, uint64_t *v)
{
    char *end;

    if (strncmp(reply, "0x", 2) != 0)
        return qemu_fail(q, -EPROTO, "qtest value reply '%s' is not hex", reply);
    *v = strtoull(reply, &end, 16);
    if (*end != '\0' || end == reply + 2)
        return qemu_fail(q, -EPROTO, "qtest value reply '%s' is not hex", reply);
    return 0;
}

static char width_suffix(unsigned width)
{
    switch (width) {
    case 1: return 'b';
    case 2: return 'w';
    case 4: return 'l';
    case 8: return 'q';
    default: return '\0';
    }
}

int pcam_qemu_in(pcam_qemu *q, uint32_t port, unsigned width, uint32_t *value)
{
    char line[64];
    const char *reply;
    uint64_t v = 0;
    int rc;

    *value = 0xffffffffu;
    /* QEMU asserts on a port above 0xFFFF: never send one. */
    if (width == 8 || width_suffix(width) == '\0' || port > 0xffffu - (width - 1u))
        return -EINVAL;
    snprintf(line, sizeof line, "in%c 0x%x", width_suffix(width), (unsigned)port);
    rc = qemu_cmd(q, line, &reply);
    if (rc == 0)
        rc = parse_hex(q, reply, &v);
    if (rc != 0)
        return rc;
    *value = (uint32_t)v;
    return 0;
}

int pcam_qemu_out(pcam_qemu *q, uint32_t port, unsigned width, uint32_t value)
{
    char line[64];
    const char *reply;

    if (width == 8 || width_suffix(width) == '\0' || port > 0xffffu - (width - 1u))
        return -EINVAL;
    if (width < 4)
        value &= (1u << (8 * width)) - 1u;
    snprintf(line, sizeof line, "out%c 0x%x 0x%x", width_suffix(width), (unsigned)port,
             (unsigned)value);
    return qemu_cmd(q, line, &reply);
}

int pcam_qemu_mmio_read(pcam_qemu *q, uint64_t addr, unsigned width, uint64_t *value)
{
    char line[64];
    const char *reply;
    int rc;

    *value = ~(uint64_t)0;
    if (width_suffix(width) == '\0')
        return -EINVAL;
    snprintf(line, sizeof line, "read%c 0x%llx", width_suffix(width), (unsigned long long)addr);
    rc = qemu_cmd(q, line, &reply);
    if (rc == 0)
        rc = parse_hex(q, reply, value);
    return rc;
}

int pcam_qemu_mmio_write(pcam_qemu *q, uint64_t addr, unsigned width, uint64_t value)
{
    char line[80];
    const char *reply;

    if (width_suffix(width) == '\0')
        return -EINVAL;
    if (width < 8)
        value &= ((uint64_t)1 << (8 * width)) - 1u;
    snprintf(line, sizeof line, "write%c 0x%llx 0x%llx", width_suffix(width),
             (unsigned long long)addr, (unsigned long long)value);
    return qemu_cmd(q, line, &reply);
}

bool pcam_qemu_irq(pcam_qemu *q, unsigned irq)
{
    if (irq >= QEMU_NIRQ)
        return false;
    /* Lines already in the socket are absorbed; nothing waits. */
    while (!q->failed && qemu_drain(q, 0) > 0) {
    }
    return q->irq_level[irq];
}

int pcam_qemu_wait_irq(pcam_qemu *q, unsigned irq, uint32_t timeout_ms)
{
    uint64_t deadline = pcam_posix_now_ns() + (uint64_t)timeout_ms * 1000000u;

    if (irq >= QEMU_NIRQ)
        return -EINVAL;
    for (;;) {
        uint64_t now;
        int r;
        while (!q->failed && qemu_drain(q, 0) > 0) {
        }
        if (q->failed)
            return -EPIPE;
        if (q->irq_level[irq])
            return 1;
        now = pcam_posix_now_ns();
        if (now >= deadline)
            return 0;
        r = qemu_drain(q, (int)((deadline - now + 999999u) / 1000000u));
        if (r < 0)
            return r;
    }
}
