/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The QEMU back-ends: QEMU's AM53C974 (qemu-esp, hal/esp) or SAS1068
 * (qemu-mpt, hal/mpt) with the --qemu-drive images, driven over the qtest
 * socket; each is its chip's entry of osshim/posix's table
 * (pcam_qemu_chip.h), the rest is the same code.
 * Like the simulated bus, it lives for one process run: each command starts
 * QEMU, scans, acts and stops it; the images are what persists. In script
 * mode one QEMU serves every command of the script. --qemu-arg adds QEMU
 * arguments, --qemu-fault puts blkdebug under a drive, and hmp passes a
 * monitor command (a blkdebug break point, say) through QMP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam_qemu_esp.h"
#include "pcam_qemu_mpt.h"

int ctl_qdrive_parse(const char *text, ctl_qdrive *out, char *err, size_t errcap)
{
    char buf[SPEC_PATH + 32];
    char *p, *kind, *rest;
    uint64_t v;

    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof buf) {
        snprintf(err, errcap, "'%s' is too long", text);
        return CTL_EUSAGE;
    }
    memcpy(buf, text, strlen(text) + 1);
    p = strchr(buf, ':');
    if (p == NULL) {
        snprintf(err, errcap, "'%s': want ID[:LUN]:hd|cd|hd-ro[:IMAGE]", text);
        return CTL_EUSAGE;
    }
    *p++ = '\0';
    /* The back-end's own range is checked when it opens (qemu_open). */
    if (!ctl_parse_u64(buf, &v) || v >= PCAM_MAX_TARGETS) {
        snprintf(err, errcap, "'%s': the target ID must be 0..%u", text, PCAM_MAX_TARGETS - 1u);
        return CTL_EUSAGE;
    }
    out->id = (uint8_t)v;
    kind = p;
    p = strchr(kind, ':');
    if (p != NULL)
        *p++ = '\0';
    if (kind[0] >= '0' && kind[0] <= '9') {
        /* A LUN comes first. */
        if (!ctl_parse_u64(kind, &v) || v > 7) {
            snprintf(err, errcap, "'%s': the LUN must be 0..7", text);
            return CTL_EUSAGE;
        }
        out->lun = (uint8_t)v;
        if (p == NULL) {
            snprintf(err, errcap, "'%s': missing hd or cd after the LUN", text);
            return CTL_EUSAGE;
        }
        kind = p;
        p = strchr(kind, ':');
        if (p != NULL)
            *p++ = '\0';
    }
    rest = p; /* the image path: everything after the kind, ':' included */
    if (strcmp(kind, "hd") == 0) {
        out->cd = false;
    } else if (strcmp(kind, "hd-ro") == 0) {
        out->read_only = true;
    } else if (strcmp(kind, "cd") == 0) {
        out->cd = true;
        out->read_only = true;
    } else {
        snprintf(err, errcap, "'%s': the kind must be hd, hd-ro or cd, not '%s'", text, kind);
        return CTL_EUSAGE;
    }
    if (rest == NULL || rest[0] == '\0') {
        if (!out->cd) {
            snprintf(err, errcap, "'%s': a disk needs an image file", text);
            return CTL_EUSAGE;
        }
        return 0;
    }
    if (strchr(rest, ',') != NULL) {
        /* QEMU's option syntax would split it. */
        snprintf(err, errcap, "'%s': the image path may not contain ','", text);
        return CTL_EUSAGE;
    }
    memcpy(out->image, rest, strlen(rest) + 1);
    return 0;
}

static int qemu_open(ctl *c)
{
    pcam_qemu_drive d[CTL_QEMU_MAX_DRIVES];
    pcam_qemu_chipbus_opts o;
    char err[2048];
    pcam_hal_caps caps;
    int rc;

    memset(d, 0, sizeof d);
    for (size_t i = 0; i < c->nqdrives; i++) {
        const ctl_qdrive *q = &c->qdrives[i];
        if (q->id >= c->be->ids)
            return ctl_err(c, CTL_EUSAGE, "--qemu-drive %u: QEMU's %s takes target IDs 0..%u", q->id,
                           c->be->chip->controller, c->be->ids - 1u);
        d[i].kind = q->cd ? PCAM_QEMU_CD : PCAM_QEMU_HD;
        d[i].image = q->image[0] != '\0' ? q->image : NULL;
        d[i].scsi_id = q->id;
        d[i].lun = q->lun;
        d[i].read_only = q->read_only;
        d[i].blkdebug = q->blkdebug ? q->blkdebug_conf : NULL;
    }
    c->qe = calloc(1, sizeof *c->qe);
    if (c->qe == NULL)
        return ctl_err(c, CTL_EOTHER, "out of memory");
    memset(&o, 0, sizeof o);
    o.drives = d;
    o.ndrives = c->nqdrives;
    o.bus_config = &c->bcfg;
    c->qemu_args[c->nqargs] = NULL;
    o.extra_args = c->nqargs != 0 ? c->qemu_args : NULL;
    /* The monitor carries blkdebug's break/resume and the hmp command. */
    o.monitor = c->qemu_monitor || c->script;
    /* The harness's error lines come back in err and pcam_qemu_error(),
     * which pcamctl says once; its log is for PCAMCTL_QEMU_DEBUG only, or a
     * start-up error would be printed twice. */
    bool debug = getenv("PCAMCTL_QEMU_DEBUG") != NULL;
    o.log_file = debug ? stderr : NULL;
    o.log_level = debug ? PCAM_LOG_DEBUG : PCAM_LOG_ERROR;
    rc = pcam_qemu_chipbus_open(c->qe, c->be->chip, &o, err, sizeof err);
    if (rc != 0) {
        free(c->qe);
        c->qe = NULL;
        if (rc == -ENOENT)
            return ctl_err(c, CTL_EBACKEND, "back-end '%s': %s", c->be->name, err);
        return ctl_err(c, rc == -ECHILD || rc == -ETIMEDOUT ? CTL_EBACKEND : CTL_EOTHER,
                       "back-end '%s' could not start: %s", c->be->name, err);
    }
    /* ctl_need_device() names the controller's own ID. */
    c->qe->hal.ops->get_caps(c->qe->hal.sc, &caps);
    c->spec.initiator = caps.initiator_id;
    c->open = true;
    return 0;
}

static void qemu_submit(ctl *c, pcam_ccb *ccb)
{
    pcam_action(&c->qe->bus, ccb);
}

static bool qemu_step(ctl *c)
{
    int rc = pcam_qemu_chipbus_step(c->qe, 100);
    if (rc < 0) {
        ctl_err(c, CTL_EOTHER, "QEMU failed: %s", pcam_qemu_error(c->qe->q));
        return false;
    }
    return true;
}

static uint64_t qemu_now(ctl *c)
{
    (void)c;
    return pcam_posix_now_ns();
}

static void qemu_close(ctl *c)
{
    if (c->qe != NULL) {
        int rc = pcam_qemu_chipbus_close(c->qe);
        if (rc != 0)
            ctl_err(c, CTL_EOTHER, "QEMU ended badly: %d", rc);
        free(c->qe);
        c->qe = NULL;
    }
    c->open = false;
}

/* IDs: the AM53C974 is 7 on its narrow bus; QEMU's SAS1068 has 8 devices
 * (MPTSAS_NUM_PORTS, hw/scsi/mptsas.h), the port's own ID is 8, and
 * hal/mpt addresses 16 IDs (docs/mpt.md). */
const ctl_backend ctl_qemu_esp_backend = {"qemu-esp", qemu_open, qemu_submit, qemu_step, qemu_now,
                                          qemu_close, &pcam_qemu_chip_am53c974, "esp0", 7, 7};
const ctl_backend ctl_qemu_mpt_backend = {"qemu-mpt", qemu_open, qemu_submit, qemu_step, qemu_now,
                                          qemu_close, &pcam_qemu_chip_mptsas1068, "mpt0", 15, 8};

/* The human monitor answers an error as text, not as a failure: these are
 * the forms QEMU's messages take (a line starting so). */
static bool hmp_error(const char *out, const char **line)
{
    static const char *const starts[] = {"unknown command", "Error", "error", "qemu-io: ", "Try \"help",
                                         "Device '", "Invalid", "invalid", "Could not", "could not",
                                         "Parameter '", "Missing", "No "};
    for (const char *p = out; *p != '\0';) {
        for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
            if (strncmp(p, starts[i], strlen(starts[i])) == 0) {
                *line = p;
                return true;
            }
        const char *nl = strchr(p, '\n');
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return false;
}

int cmd_hmp(ctl *c, int argc, char **argv)
{
    char cmd[1024], out[8192];
    size_t k = 0;
    if (ctl_is_sim(c))
        return ctl_err(c, CTL_EUSAGE, "hmp: the QEMU monitor needs --backend qemu-esp or qemu-mpt");
    if (argc == 0)
        return ctl_usage(c, "missing the monitor command");
    /* The shell (or the script's quotes) took the quotes off: a word with a
     * blank in it gets them back, as the monitor's own syntax wants
     * (qemu-io d0 "break read_aio A"). */
    for (int i = 0; i < argc; i++) {
        bool quote = strpbrk(argv[i], " \t") != NULL || argv[i][0] == '\0';
        if (quote && strchr(argv[i], '"') != NULL)
            return ctl_usage(c, "a monitor word with both a blank and a '\"' cannot be passed on");
        int n = snprintf(cmd + k, sizeof cmd - k, "%s%s%s%s", i ? " " : "", quote ? "\"" : "", argv[i],
                         quote ? "\"" : "");
        if (n < 0 || (size_t)n >= sizeof cmd - k)
            return ctl_usage(c, "the monitor command is too long");
        k += (size_t)n;
    }
    /* A one-shot hmp needs the monitor too, not only a script or --qemu-fault. */
    if (!c->open)
        c->qemu_monitor = true;
    int rc = ctl_open(c);
    if (rc != 0)
        return rc;
    out[0] = '\0';
    rc = pcam_qemu_hmp(c->qe->q, cmd, out, sizeof out);
    if (rc != 0)
        return ctl_err(c, CTL_EOTHER, "monitor command '%s' failed: %s", cmd, out[0] ? out : strerror(-rc));
    /* The monitor ends its lines with CR LF. */
    size_t w = 0;
    for (size_t r = 0; out[r] != '\0'; r++)
        if (out[r] != '\r')
            out[w++] = out[r];
    out[w] = '\0';
    const char *bad = NULL;
    if (hmp_error(out, &bad)) {
        char first[256];
        size_t n = strcspn(bad, "\n");
        snprintf(first, sizeof first, "%.*s", (int)(n < sizeof first ? n : sizeof first - 1), bad);
        fputs(out, stderr);
        return ctl_err(c, CTL_EOTHER, "monitor command '%s' failed: QEMU answered \"%s\"", cmd, first);
    }
    if (c->json) {
        j_obj(NULL);
        j_str("hmp", cmd);
        j_str("output", out);
        j_end_obj();
        j_done();
    } else {
        fputs(out, stdout);
        if (out[0] != '\0' && out[strlen(out) - 1] != '\n')
            putchar('\n');
    }
    return 0;
}
