/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A QMP monitor beside the qtest socket, used only to run human-monitor
 * commands (blkdebug break/resume through qemu-io). QMP speaks one JSON
 * object per line; asynchronous {"event": ...} lines are skipped.
 */
#include "qemu_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define QMP_TIMEOUT_MS 10000

/* One line from the monitor, valid until the next call. */
static int qmp_line(pcam_qemu *q, char **line)
{
    uint64_t deadline = pcam_posix_now_ns() + (uint64_t)QMP_TIMEOUT_MS * 1000000u;
    char *nl;

    if (q->qskip > 0) {
        memmove(q->qbuf, q->qbuf + q->qskip, q->qlen - q->qskip);
        q->qlen -= q->qskip;
        q->qskip = 0;
    }
    for (;;) {
        struct pollfd p = { q->qmp_fd, POLLIN, 0 };
        uint64_t now;
        ssize_t n;
        int r;

        nl = q->qlen ? memchr(q->qbuf, '\n', q->qlen) : NULL;
        if (nl != NULL)
            break;
        if (q->qcap - q->qlen < 4096) {
            size_t cap = q->qcap ? q->qcap * 2 : 16384;
            char *b = realloc(q->qbuf, cap);
            if (b == NULL)
                return -ENOMEM;
            q->qbuf = b;
            q->qcap = cap;
        }
        now = pcam_posix_now_ns();
        if (now >= deadline)
            return -ETIMEDOUT;
        r = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -errno : -ETIMEDOUT;
        n = recv(q->qmp_fd, q->qbuf + q->qlen, q->qcap - q->qlen - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -EPIPE;
        q->qlen += (size_t)n;
    }
    *nl = '\0';
    q->qskip = (size_t)(nl - q->qbuf) + 1;
    *line = q->qbuf;
    return 0;
}

/* Skip events; stop at the answer ("return" or "error"). */
static int qmp_answer(pcam_qemu *q, char **line)
{
    int rc;

    for (;;) {
        rc = qmp_line(q, line);
        if (rc != 0)
            return rc;
        if (strstr(*line, "\"event\"") != NULL && strstr(*line, "\"return\"") == NULL)
            continue;
        if (strstr(*line, "\"return\"") != NULL)
            return 0;
        if (strstr(*line, "\"error\"") != NULL)
            return -EIO;
    }
}

static int qmp_send(pcam_qemu *q, const char *buf, size_t len)
{
    size_t off = 0;

    while (off < len) {
        ssize_t n = send(q->qmp_fd, buf + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -EPIPE;
        off += (size_t)n;
    }
    return 0;
}

int qemu_qmp_connect(pcam_qemu *q, const char *path)
{
    static const char caps[] = "{\"execute\":\"qmp_capabilities\"}\n";
    struct sockaddr_un sa;
    char *line;
    int rc;

    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path)
        return qemu_fail(q, -ENAMETOOLONG, "QMP socket path too long");
    memcpy(sa.sun_path, path, strlen(path) + 1);
    q->qmp_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (q->qmp_fd < 0 || connect(q->qmp_fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        return qemu_fail(q, -errno, "cannot connect to QMP at %s: %s", path, strerror(errno));
    /* The greeting, then capabilities negotiation leaves command mode on. */
    rc = qmp_line(q, &line);
    if (rc == 0 && strstr(line, "\"QMP\"") == NULL)
        rc = -EPROTO;
    if (rc == 0)
        rc = qmp_send(q, caps, sizeof caps - 1);
    if (rc == 0)
        rc = qmp_answer(q, &line);
    if (rc != 0)
        return qemu_fail(q, rc, "QMP handshake failed (%d)", rc);
    return 0;
}

/* JSON string escaping for the command, and unescaping of the answer. */
static size_t json_escape(const char *in, char *out, size_t len)
{
    size_t j = 0;

    for (; *in != '\0' && j + 3 < len; in++) {
        unsigned char c = (unsigned char)*in;
        if (c == '"' || c == '\\') {
            out[j++] = '\\';
            out[j++] = (char)c;
        } else if (c >= 0x20) {
            out[j++] = (char)c;
        }
    }
    out[j] = '\0';
    return j;
}

static void json_unescape_string(const char *p, char *out, size_t len)
{
    size_t j = 0;

    if (out == NULL || len == 0)
        return;
    for (; *p != '\0' && *p != '"' && j + 1 < len; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
            out[j++] = *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p == 't' ? '\t' : *p;
        } else {
            out[j++] = *p;
        }
    }
    out[j] = '\0';
}

int pcam_qemu_hmp(pcam_qemu *q, const char *cmd, char *out, size_t outlen)
{
    char esc[1024], req[1200];
    char *line, *p;
    int rc, n;

    if (out != NULL && outlen > 0)
        out[0] = '\0';
    if (q->qmp_fd < 0)
        return -ENOTCONN;
    if (q->failed)
        return -EPIPE;
    if (strlen(cmd) > 500)
        return -EINVAL;
    json_escape(cmd, esc, sizeof esc);
    n = snprintf(req, sizeof req,
                 "{\"execute\":\"human-monitor-command\",\"arguments\":{\"command-line\":\"%s\"}}\n",
                 esc);
    rc = qmp_send(q, req, (size_t)n);
    if (rc == 0)
        rc = qmp_answer(q, &line);
    if (rc == -EIO) {
        p = strstr(line, "\"desc\"");
        if (p != NULL && (p = strchr(p + 6, '"')) != NULL)
            json_unescape_string(p + 1, out, outlen);
        return rc;
    }
    if (rc != 0)
        return qemu_fail(q, rc, "QMP monitor failed (%d) on '%.60s'", rc, cmd);
    p = strstr(line, "\"return\"");
    if (p != NULL && (p = strchr(p + 8, '"')) != NULL)
        json_unescape_string(p + 1, out, outlen);
    pcam_posix_logf(&q->px, PCAM_LOG_DEBUG, "qemu: monitor '%s'", cmd);
    return 0;
}
