/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Starting and stopping QEMU: the private temp dir, the halted BIOS, the
 * shared guest RAM file, the command line, and reaping the child.
 */
#include "qemu_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_QEMU "qemu-system-x86_64"
#define INSTALL_HINT "install it with: apt-get install qemu-system-x86"
#define BIOS_SIZE 65536u

/* A growing argv; every string is owned so it can be freed in one place. */
typedef struct argvec {
    char **v;
    size_t n, cap;
    bool oom;
} argvec;

static void av_add(argvec *a, const char *s)
{
    char *d;

    if (a->oom)
        return;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        char **v = realloc(a->v, cap * sizeof *v);
        if (v == NULL) {
            a->oom = true;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    d = strdup(s);
    if (d == NULL) {
        a->oom = true;
        return;
    }
    a->v[a->n++] = d;
    a->v[a->n] = NULL;
}

static void av_addf(argvec *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void av_addf(argvec *a, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        a->oom = true;
        return;
    }
    av_add(a, buf);
}

static void av_free(argvec *a)
{
    size_t i;

    for (i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

/* QEMU option values separate keys with commas; a literal comma is doubled. */
static const char *qopt_escape(const char *s, char *buf, size_t len)
{
    size_t j = 0;

    for (; *s != '\0' && j + 2 < len; s++) {
        buf[j++] = *s;
        if (*s == ',')
            buf[j++] = ',';
    }
    buf[j] = '\0';
    return buf;
}

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (errbuf == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
}

/* Resolve the binary the way execvp would, so a missing QEMU is reported
 * before anything is spawned. */
static bool find_binary(const char *name, char *out, size_t len)
{
    const char *path, *p;

    if (strchr(name, '/') != NULL) {
        if (access(name, X_OK) != 0)
            return false;
        snprintf(out, len, "%s", name);
        return true;
    }
    path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t dl = e ? (size_t)(e - p) : strlen(p);
        if (dl > 0 && dl + strlen(name) + 2 <= len) {
            memcpy(out, p, dl);
            out[dl] = '/';
            strcpy(out + dl + 1, name);
            if (access(out, X_OK) == 0)
                return true;
        }
        if (e == NULL)
            break;
        p = e + 1;
    }
    return false;
}

static int write_bios(const char *path)
{
    static const uint8_t reset_vector[4] = { 0xfa, 0xf4, 0xeb, 0xfd }; /* cli; hlt; jmp $-1 */
    uint8_t *img;
    int fd;
    ssize_t w;

    img = malloc(BIOS_SIZE);
    if (img == NULL)
        return -ENOMEM;
    /* Every byte is hlt, so a vCPU that strays still idles. */
    memset(img, 0xf4, BIOS_SIZE);
    memcpy(img + 0xfff0, reset_vector, sizeof reset_vector);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        free(img);
        return -errno;
    }
    w = write(fd, img, BIOS_SIZE);
    free(img);
    close(fd);
    return w == (ssize_t)BIOS_SIZE ? 0 : -EIO;
}

static void build_argv(pcam_qemu *q, const pcam_qemu_opts *o, const char *bin, const char *sock,
                       uint32_t ram_mb, argvec *a)
{
    const char *ctrl = o->controller ? o->controller : "am53c974";
    char e1[600], e2[600];
    size_t i;

    av_add(a, bin);
    av_add(a, "-M");
    av_add(a, "pc");
    av_add(a, "-accel");
    av_add(a, "tcg");
    av_add(a, "-bios");
    av_addf(a, "%s/hlt.bin", q->dir);
    av_add(a, "-qtest");
    av_addf(a, "unix:%s", sock);
    /* An undrained qtest log pipe would block QEMU: the log goes to a
     * file named by $PCAM_QEMU_QTEST_LOG (for debugging), else nowhere. */
    av_add(a, "-qtest-log");
    if (getenv("PCAM_QEMU_QTEST_LOG") != NULL && getenv("PCAM_QEMU_QTEST_LOG")[0] != '\0') {
        static unsigned seq;
        av_addf(a, "%s.%ld.%u", getenv("PCAM_QEMU_QTEST_LOG"), (long)getpid(), seq++);
    } else {
        av_add(a, "none");
    }
    av_add(a, "-display");
    av_add(a, "none");
    av_add(a, "-nodefaults");
    av_add(a, "-monitor");
    av_add(a, "none");
    av_add(a, "-serial");
    av_add(a, "none");
    av_add(a, "-m");
    av_addf(a, "%uM", (unsigned)ram_mb);
    if (q->ram != NULL) {
        av_add(a, "-object");
        av_addf(a, "memory-backend-file,id=ram0,size=%uM,mem-path=%s,share=on", (unsigned)ram_mb,
                qopt_escape(q->shmpath, e1, sizeof e1));
        av_add(a, "-machine");
        av_add(a, "memory-backend=ram0");
    }
    av_add(a, "-device");
    av_addf(a, "%s,id=scsi0", ctrl);
    for (i = 0; i < o->ndrives; i++) {
        const pcam_qemu_drive *d = &o->drives[i];
        const char *ro = d->read_only || d->kind == PCAM_QEMU_CD ? ",readonly=on" : "";
        av_add(a, "-drive");
        if (d->image == NULL)
            av_addf(a, "if=none,id=d%zu%s", i, d->kind == PCAM_QEMU_CD ? ",media=cdrom" : "");
        else if (d->blkdebug != NULL && d->blkdebug[0] == '\0')
            av_addf(a, "if=none,id=d%zu,driver=raw,file.driver=blkdebug,file.image.filename=%s%s", i,
                    qopt_escape(d->image, e2, sizeof e2), ro);
        else if (d->blkdebug != NULL)
            av_addf(a, "if=none,id=d%zu,driver=raw,file.driver=blkdebug,file.config=%s,"
                       "file.image.filename=%s%s",
                    i, qopt_escape(d->blkdebug, e1, sizeof e1), qopt_escape(d->image, e2, sizeof e2),
                    ro);
        else
            av_addf(a, "if=none,id=d%zu,file=%s,format=raw%s%s", i,
                    qopt_escape(d->image, e1, sizeof e1),
                    d->kind == PCAM_QEMU_CD ? ",media=cdrom" : "", ro);
        av_add(a, "-device");
        av_addf(a, "%s,drive=d%zu,bus=scsi0.0,scsi-id=%u,lun=%u%s%s",
                d->kind == PCAM_QEMU_CD ? "scsi-cd" : "scsi-hd", i, (unsigned)d->scsi_id,
                (unsigned)d->lun, d->device_props ? "," : "",
                d->device_props ? d->device_props : "");
    }
    if (o->monitor) {
        av_add(a, "-chardev");
        av_addf(a, "socket,id=pcamqmp,path=%s/qmp.sock,server=on,wait=off",
                qopt_escape(q->dir, e1, sizeof e1));
        av_add(a, "-mon");
        av_add(a, "chardev=pcamqmp,mode=control");
    }
    if (o->extra_args != NULL)
        for (i = 0; o->extra_args[i] != NULL; i++)
            av_add(a, o->extra_args[i]);
}

static void cleanup_files(pcam_qemu *q)
{
    char p[320];

    if (q->shm_linked) {
        unlink(q->shmpath);
        q->shm_linked = false;
    }
    if (q->dir[0] != '\0') {
        snprintf(p, sizeof p, "%s/hlt.bin", q->dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/qtest.sock", q->dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/qmp.sock", q->dir);
        unlink(p);
        unlink(q->errpath);
        rmdir(q->dir);
        q->dir[0] = '\0';
    }
}

/* Reap QEMU: SIGTERM lets it close its images cleanly; SIGKILL if it lingers. */
static void reap(pcam_qemu *q, int *status)
{
    int st = 0, i;

    if (q->pid <= 0)
        return;
    kill(q->pid, SIGTERM);
    for (i = 0; i < 300; i++) {
        pid_t r = waitpid(q->pid, &st, WNOHANG);
        if (r == q->pid || (r < 0 && errno == ECHILD))
            break;
        pcam_posix_delay_us(10000);
    }
    if (i == 300) {
        kill(q->pid, SIGKILL);
        while (waitpid(q->pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    if (status != NULL)
        *status = st;
    q->pid = 0;
}

static void destroy(pcam_qemu *q)
{
    reap(q, NULL);
    if (q->fd >= 0)
        close(q->fd);
    if (q->errfd >= 0)
        close(q->errfd);
    if (q->qmp_fd >= 0)
        close(q->qmp_fd);
    free(q->qbuf);
    if (q->ram != NULL)
        munmap(q->ram, q->ram_size);
    cleanup_files(q);
    free(q->rbuf);
    free(q->wbuf);
    free(q);
}

/* Wait for QEMU to connect, noticing at once when it exits instead. */
static int accept_qemu(pcam_qemu *q, int lfd, uint32_t timeout_ms, int *status)
{
    uint64_t deadline = pcam_posix_now_ns() + (uint64_t)timeout_ms * 1000000u;

    for (;;) {
        struct pollfd p = { lfd, POLLIN, 0 };
        int r = poll(&p, 1, 50);
        if (r > 0) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0)
                return fd;
            if (errno != EINTR && errno != EAGAIN)
                return -errno;
        }
        if (waitpid(q->pid, status, WNOHANG) == q->pid) {
            q->pid = 0;
            return -ECHILD;
        }
        if (pcam_posix_now_ns() > deadline)
            return -ETIMEDOUT;
    }
}

static void read_stderr(pcam_qemu *q, char *out, size_t len)
{
    ssize_t r;
    size_t n = 0;

    out[0] = '\0';
    if (q->errfd < 0)
        return;
    do {
        r = pread(q->errfd, out + n, len - 1 - n, (off_t)n);
        if (r > 0)
            n += (size_t)r;
    } while ((r > 0 || (r < 0 && errno == EINTR)) && n < len - 1);
    out[n] = '\0';
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
        out[--n] = '\0';
}

static int setup_shared_ram(pcam_qemu *q, uint32_t ram_mb)
{
    int fd;

    snprintf(q->shmpath, sizeof q->shmpath, "/dev/shm/pcam-qemu-%ld-XXXXXX", (long)getpid());
    fd = mkstemp(q->shmpath);
    if (fd < 0)
        return -errno;
    q->shm_linked = true;
    q->ram_size = (size_t)ram_mb << 20;
    if (ftruncate(fd, (off_t)q->ram_size) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    q->ram = mmap(NULL, q->ram_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (q->ram == MAP_FAILED) {
        q->ram = NULL;
        return -errno;
    }
    return 0;
}

static int spawn(pcam_qemu *q, char *const *argv, int *exec_errno)
{
    int pipefd[2], nullfd, errfd;
    pid_t parent = getpid();
    ssize_t r;
    int e = 0;

    nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
    errfd = open(q->errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (errfd >= 0 && q->errfd < 0)
        q->errfd = open(q->errpath, O_RDONLY | O_CLOEXEC);
    if (nullfd < 0 || errfd < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
        e = -errno;
        if (nullfd >= 0)
            close(nullfd);
        if (errfd >= 0)
            close(errfd);
        return e;
    }
    q->pid = fork();
    if (q->pid < 0) {
        e = -errno;
        q->pid = 0;
    } else if (q->pid == 0) {
        /* Child: only async-signal-safe calls from here to exec. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(nullfd, 0);
        dup2(nullfd, 1);
        dup2(errfd, 2);
        execv(argv[0], argv);
        e = errno;
        r = write(pipefd[1], &e, sizeof e);
        (void)r;
        _exit(127);
    }
    close(pipefd[1]);
    close(nullfd);
    close(errfd);
    *exec_errno = 0;
    if (e == 0) {
        /* EOF means exec succeeded (the pipe closed on exec). */
        do
            r = read(pipefd[0], exec_errno, sizeof *exec_errno);
        while (r < 0 && errno == EINTR);
        if (r != (ssize_t)sizeof *exec_errno)
            *exec_errno = 0;
    }
    close(pipefd[0]);
    return e;
}

int pcam_qemu_start(pcam_qemu **out, const pcam_qemu_opts *opts, char *errbuf, size_t errlen)
{
    static const pcam_qemu_opts defaults;
    const pcam_qemu_opts *o = opts ? opts : &defaults;
    const char *name;
    char bin[512], sock[320], tail[2048];
    const char *tmp;
    struct sockaddr_un sa;
    uint32_t ram_mb = o->ram_mb ? o->ram_mb : 64;
    argvec av = { NULL, 0, 0, false };
    pcam_qemu *q;
    int lfd = -1, rc, st = 0, exec_errno = 0;
    const char *reply;
    size_t i;

    if (out == NULL)
        return -EINVAL;
    *out = NULL;
    set_err(errbuf, errlen, "%s", "");
    if ((o->ndrives > 0 && o->drives == NULL) || ram_mb < 4 || ram_mb > 2048) {
        set_err(errbuf, errlen, "pcam_qemu_start: bad options (drives or ram_mb out of range)");
        return -EINVAL;
    }
    for (i = 0; i < o->ndrives; i++)
        if (o->drives[i].image == NULL && o->drives[i].kind != PCAM_QEMU_CD) {
            set_err(errbuf, errlen, "pcam_qemu_start: drive %zu is a disk with no image", i);
            return -EINVAL;
        }
    name = o->qemu ? o->qemu : getenv("PCAM_QEMU");
    if (name == NULL || name[0] == '\0')
        name = DEFAULT_QEMU;
    if (!find_binary(name, bin, sizeof bin)) {
        set_err(errbuf, errlen, "QEMU binary '%s' not found%s; %s", name,
                strchr(name, '/') ? "" : " on PATH", INSTALL_HINT);
        return -ENOENT;
    }

    q = calloc(1, sizeof *q);
    if (q == NULL)
        return -ENOMEM;
    q->fd = -1;
    q->errfd = -1;
    q->qmp_fd = -1;
    q->next_io = 0xc000;
    q->next_mem = 0xe0000000u;
    pcam_posix_init(&q->px, o->log_file, o->log_level);

    tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0' || strlen(tmp) > 60)
        tmp = "/tmp"; /* a UNIX socket path must fit in 108 bytes */
    snprintf(q->dir, sizeof q->dir, "%s/pcam-qemu-XXXXXX", tmp);
    if (mkdtemp(q->dir) == NULL) {
        rc = -errno;
        set_err(errbuf, errlen, "cannot create a temp dir in %s: %s", tmp, strerror(-rc));
        q->dir[0] = '\0';
        goto fail;
    }
    snprintf(q->errpath, sizeof q->errpath, "%s/qemu.stderr", q->dir);
    snprintf(sock, sizeof sock, "%s/qtest.sock", q->dir);
    snprintf(tail, sizeof tail, "%s/hlt.bin", q->dir);
    rc = write_bios(tail);
    if (rc != 0) {
        set_err(errbuf, errlen, "cannot write the halted BIOS: %s", strerror(-rc));
        goto fail;
    }
    if (!o->no_shared_ram) {
        rc = setup_shared_ram(q, ram_mb);
        if (rc != 0) {
            set_err(errbuf, errlen, "cannot create shared guest RAM in /dev/shm: %s",
                    strerror(-rc));
            goto fail;
        }
    }
    q->bulk = q->ram ? PCAM_QEMU_BULK_SHM : PCAM_QEMU_BULK_B64;
    if (q->ram == NULL)
        q->ram_size = (size_t)ram_mb << 20;

    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(sock) >= sizeof sa.sun_path) {
        rc = -ENAMETOOLONG;
        set_err(errbuf, errlen, "socket path %s is too long", sock);
        goto fail;
    }
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 1) != 0) {
        rc = -errno;
        set_err(errbuf, errlen, "cannot listen on %s: %s", sock, strerror(-rc));
        goto fail;
    }

    build_argv(q, o, bin, sock, ram_mb, &av);
    if (av.oom) {
        rc = -ENOMEM;
        set_err(errbuf, errlen, "QEMU command line too long or out of memory");
        goto fail;
    }
    if (q->px.log_file != NULL && q->px.log_level >= PCAM_LOG_DEBUG) {
        char line[4096];
        size_t n = 0;
        for (i = 0; i < av.n && n + 2 < sizeof line; i++)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", i ? " " : "", av.v[i]);
        pcam_posix_logf(&q->px, PCAM_LOG_DEBUG, "qemu: %s", line);
    }
    rc = spawn(q, av.v, &exec_errno);
    if (rc != 0 || exec_errno != 0) {
        if (exec_errno != 0) {
            rc = exec_errno == ENOENT ? -ENOENT : -exec_errno;
            set_err(errbuf, errlen, "cannot run QEMU '%s': %s; %s", bin, strerror(exec_errno),
                    INSTALL_HINT);
        } else {
            set_err(errbuf, errlen, "fork failed: %s", strerror(-rc));
        }
        goto fail;
    }
    rc = accept_qemu(q, lfd, o->connect_timeout_ms ? o->connect_timeout_ms : 10000, &st);
    if (rc < 0) {
        read_stderr(q, tail, sizeof tail);
        if (rc == -ECHILD)
            set_err(errbuf, errlen, "QEMU exited during start-up (%s %d); stderr: %s",
                    WIFEXITED(st) ? "status" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), tail);
        else
            set_err(errbuf, errlen, "QEMU did not connect to the qtest socket: %s; stderr: %s",
                    strerror(-rc), tail);
        goto fail;
    }
    q->fd = rc;
    close(lfd);
    lfd = -1;
    unlink(sock);
    av_free(&av);
    av.v = NULL;
    av.n = 0;

    /* The first answer means the machine is built and the RAM file is
     * open in QEMU: its name is no longer needed. */
    rc = qemu_cmd(q, "endianness", &reply);
    if (rc != 0) {
        /* QEMU connects before it builds the devices, so a bad -device
         * option shows up here as a closed socket. */
        if (q->pid == 0) {
            rc = -ECHILD;
            set_err(errbuf, errlen, "QEMU exited during start-up: %s", q->err);
        } else {
            set_err(errbuf, errlen, "%s", q->err);
        }
        goto fail;
    }
    if (strcmp(reply, "little") != 0) {
        set_err(errbuf, errlen, "unexpected endianness reply '%s'", reply);
        rc = -EPROTO;
        goto fail;
    }
    if (o->monitor) {
        char path[320];
        snprintf(path, sizeof path, "%s/qmp.sock", q->dir);
        rc = qemu_qmp_connect(q, path);
        if (rc != 0) {
            set_err(errbuf, errlen, "cannot open the QMP monitor: %s", q->err);
            goto fail;
        }
    }
    /* QEMU has read its BIOS and opened its RAM file: nothing on disk is
     * needed any more, so even a crashed harness leaves no files behind. */
    cleanup_files(q);
    pcam_posix_logf(&q->px, PCAM_LOG_INFO, "qemu: pid %ld up, %u MiB guest RAM%s", (long)q->pid,
                    (unsigned)ram_mb, q->ram ? " shared" : "");
    *out = q;
    return 0;

fail:
    if (lfd >= 0)
        close(lfd);
    av_free(&av);
    pcam_posix_logf(&q->px, PCAM_LOG_ERROR, "qemu: %s", errbuf ? errbuf : "start failed");
    destroy(q);
    return rc < 0 ? rc : -EIO;
}

int pcam_qemu_stop(pcam_qemu *q)
{
    int rc;

    if (q == NULL)
        return 0;
    rc = q->failed ? -EIO : 0;
    destroy(q);
    return rc;
}

const char *pcam_qemu_error(const pcam_qemu *q)
{
    return q->failed ? q->err : "";
}

pid_t pcam_qemu_pid(const pcam_qemu *q)
{
    return q->pid;
}

void pcam_qemu_get_stats(const pcam_qemu *q, pcam_qemu_stats *out)
{
    *out = q->stats;
}

/* Called once the socket has failed: add how QEMU ended and what it said. */
void qemu_append_stderr(pcam_qemu *q)
{
    char tail[2048];
    size_t n = strlen(q->err);
    int st = 0, i;

    if (q->pid > 0) {
        /* The socket closes while the process is still being torn down. */
        for (i = 0; i < 300; i++) {
            if (waitpid(q->pid, &st, WNOHANG) == q->pid) {
                q->pid = 0;
                snprintf(q->err + n, sizeof q->err - n, "; QEMU %s %d",
                         WIFEXITED(st) ? "exited with status" : "was killed by signal",
                         WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                break;
            }
            pcam_posix_delay_us(10000);
        }
    }
    read_stderr(q, tail, sizeof tail);
    n = strlen(q->err);
    if (tail[0] != '\0')
        snprintf(q->err + n, sizeof q->err - n, "; QEMU stderr: %s", tail);
}
