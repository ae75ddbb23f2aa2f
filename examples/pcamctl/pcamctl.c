/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamctl: a camcontrol-like tool over pcam's CCB API.
 *
 *   pcamctl [GLOBAL OPTIONS] COMMAND [ARGS]     (options anywhere, --opt=value too)
 *
 * This file: the command line (global options wherever they appear), device
 * paths, the SCSI I/O helpers every subcommand shares. The command table is
 * in help.c, the topology grammar in simspec.c, the man page in pcamctl.1.
 * Nothing here talks to a chip: only CCBs through the back-end seam.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_cdb.h"
#include "pcam/pcam_inquiry.h"
#include "pcam/pcam_sense.h"

#define DEFAULT_SIM "0:disk:64M,3:cd"

unsigned ctl_max_target(const ctl *c)
{
    if (c->be != NULL && !ctl_is_sim(c))
        return c->be->max_target;
    return c->spec.width == 8 ? 7u : 15u;
}

const char *ctl_bus_name(const ctl *c)
{
    return c->be != NULL ? c->be->bus : "sim0";
}

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* [BUS:]TARGET[:LUN]: one part is a target, two are TARGET:LUN unless the
 * first is the bus's name (sim0:3), three are BUS:TARGET:LUN. */
int ctl_parse_path(ctl *c, const char *s, uint8_t *target, uint8_t *lun, bool allow_lun)
{
    uint64_t t, l = 0, b = 0;
    char buf[64];
    char *part[4];
    int n = 0;
    unsigned maxt = ctl_max_target(c), maxl = (unsigned)c->bcfg.luns_per_target - 1u;
    if (s == NULL)
        return ctl_usage(c, "missing the device path ([BUS:]TARGET[:LUN])");
    if (strlen(s) >= sizeof buf)
        return ctl_usage(c, "'%s' is not a device path", s);
    snprintf(buf, sizeof buf, "%s", s);
    for (char *p = buf; n < 4;) {
        part[n++] = p;
        p = strchr(p, ':');
        if (p == NULL)
            break;
        *p++ = '\0';
    }
    if (n > 3)
        return ctl_usage(c, "'%s': a path is [BUS:]TARGET[:LUN]", s);
    uint64_t dummy;
    bool named_bus = n == 2 && !ctl_parse_u64(part[0], &dummy); /* "sim0:3", not "0x5:1" */
    if (n == 3 || named_bus) {
        const char *bs = part[0];
        if (strcmp(bs, ctl_bus_name(c)) != 0 && (!ctl_parse_u64(bs, &b) || b != 0))
            return ctl_usage(c, "'%s': no bus '%s': the %s back-end has one bus, 0 (%s)", s, bs,
                             c->be != NULL ? c->be->name : "sim", ctl_bus_name(c));
        part[0] = part[1];
        part[1] = n == 3 ? part[2] : NULL;
        n--;
    }
    if (n == 2) {
        if (!allow_lun)
            return ctl_usage(c, "'%s': this command takes a target, not a LUN", s);
        if (!ctl_parse_u64(part[1], &l) || l > maxl)
            return ctl_usage(c, "'%s': bad LUN '%s' (valid: 0..%u)", s, part[1], maxl);
    }
    if (!ctl_parse_u64(part[0], &t) || t > maxt)
        return ctl_usage(c, "'%s': bad target '%s' (valid: 0..%u, not %u, the initiator's own ID)", s,
                         part[0], maxt, c->spec.initiator);
    *target = (uint8_t)t;
    *lun = (uint8_t)l;
    return 0;
}

bool ctl_parse_size(const char *s, uint64_t *out)
{
    static const struct { const char *suffix; uint64_t mult; } sfx[] = {
        {"k", 1024}, {"K", 1024}, {"KiB", 1024}, {"KB", 1000},
        {"m", 1048576}, {"M", 1048576}, {"MiB", 1048576}, {"MB", 1000000}};
    char num[32];
    size_t n = 0;
    if (s == NULL)
        return false;
    if (ctl_parse_u64(s, out))
        return true;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    if (n == 0 || n >= sizeof num)
        return false;
    memcpy(num, s, n);
    num[n] = '\0';
    uint64_t v;
    if (!ctl_parse_u64(num, &v))
        return false;
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
        if (strcmp(s + n, sfx[i].suffix) == 0) {
            if (v > UINT64_MAX / sfx[i].mult)
                return false;
            *out = v * sfx[i].mult;
            return true;
        }
    return false;
}

int ctl_need_device(ctl *c, uint8_t target, uint8_t lun, pcam_dev *dev)
{
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_GET_DEV;
    ccb.target = target;
    ccb.lun = lun;
    uint32_t st = ctl_sync(c, &ccb, 1000);
    if ((st & PCAM_STATUS_MASK) == PCAM_REQ_CMP && ccb.u.dev.present) {
        if (dev != NULL)
            *dev = ccb.u.dev;
        return 0;
    }
    if (target == c->spec.initiator)
        return ctl_err(c, CTL_EUSAGE, "%u is the initiator's own ID, not a target", target);
    /* The scan did not list it: ask once more, so a target that is there
     * but BUSY, hung or failing says so instead of "no device". */
    uint8_t cdb[16], data[36];
    ctl_io io;
    int n = pcam_cdb_inquiry(cdb, sizeof cdb, false, 0, sizeof data);
    ctl_io_init(&io, target, lun, cdb, n, PCAM_DIR_IN, data, sizeof data);
    bool q = c->quiet;
    c->quiet = true;
    uint32_t ist = ctl_io_run(c, &io);
    c->quiet = q;
    /* Only a selection timeout or "no LU here" means no device; a target
     * that answers BUSY, hangs or fails is there and the failure is said. */
    if ((ist & PCAM_STATUS_MASK) == PCAM_SEL_TIMEOUT && ist != 0xFFFFFFFFu)
        return ctl_err(c, CTL_ENODEV, "no device at %u:%u (selection timeout: nothing answers at that ID)",
                       target, lun);
    if (ist == 0xFFFFFFFFu)
        return ctl_err(c, CTL_ETIMEOUT, "%u:%u is not in the scan's table and did not finish an INQUIRY (it hangs)",
                       target, lun);
    if ((ist & PCAM_STATUS_MASK) == PCAM_REQ_CMP) {
        pcam_inquiry inq;
        if (pcam_inquiry_parse(data, sizeof data - io.ccb.u.io.resid, &inq) == PCAM_OK && inq.qualifier != 0)
            return ctl_err(c, CTL_ENODEV, "no device at %u:%u (target %u answers, peripheral qualifier %u: no LU there)",
                           target, lun, target, inq.qualifier);
        return ctl_err(c, CTL_EOTHER,
                       c->script ? "%u:%u is not in the scan's table, but INQUIRY answers now: run 'rescan'"
                                 : "%u:%u is not in the scan's table (the scan of this run failed with it, see the "
                                   "warnings), but INQUIRY answers now: run the command again, which scans again",
                       target, lun);
    }
    char why[256];
    ctl_io_describe(&io, why, sizeof why);
    if ((ist & PCAM_STATUS_MASK) == PCAM_SCSI_STATUS_ERROR && io.ccb.u.io.scsi_status == 0x08)
        snprintf(why, sizeof why, "the target answers BUSY (SCSI status 0x08) after the core's retries");
    return ctl_err(c, ctl_io_exit(&io), "%u:%u is not in the scan's table: %s", target, lun, why);
}

void ctl_io_init(ctl_io *io, uint8_t target, uint8_t lun, const uint8_t *cdb, int cdb_len,
                 pcam_dir dir, void *data, uint32_t len)
{
    memset(io, 0, sizeof *io);
    io->ccb.func = PCAM_FN_SCSI_IO;
    io->ccb.target = target;
    io->ccb.lun = lun;
    memcpy(io->ccb.u.io.cdb, cdb, (size_t)cdb_len);
    io->ccb.u.io.cdb_len = (uint8_t)cdb_len;
    io->ccb.u.io.dir = dir;
    io->ccb.u.io.data = data;
    io->ccb.u.io.data_len = len;
    io->ccb.u.io.sense = io->sense;
    io->ccb.u.io.sense_len = sizeof io->sense;
    io->ccb.u.io.retries = 4;
}

uint32_t ctl_io_run(ctl *c, ctl_io *io)
{
    /* Simulated time: generous against the bus's 10 s command timeout plus
     * its whole recovery ladder. */
    io->status = ctl_sync(c, &io->ccb, 120000);
    return io->status;
}

const char *ctl_status_sentence(uint32_t st)
{
    if (st == 0xFFFFFFFFu)
        return "the command never completed, not even through the core's recovery: the back-end or the target hangs";
    switch ((pcam_status)(st & PCAM_STATUS_MASK)) {
    case PCAM_REQ_CMP: return "done";
    case PCAM_REQ_INPROG: return "the command is still in the core";
    case PCAM_REQ_ABORTED: return "the command was aborted before it finished (an abort, a reset or shutdown); run it again";
    case PCAM_REQ_CMP_ERR: return "the command failed in a way the core could not classify; 'reset --json' shows the bus's events";
    case PCAM_BUSY: return "the bus or the device stayed busy through every retry; try again later";
    case PCAM_REQ_INVALID: return "the core refused the request before the bus: the CDB length, direction or buffer does not fit";
    case PCAM_PATH_INVALID: return "there is no such target or LUN on this bus";
    case PCAM_DEV_NOT_THERE: return "no device answers at this path";
    case PCAM_SEL_TIMEOUT: return "the target did not answer selection: check that it is powered, its ID, cabling and termination";
    case PCAM_CMD_TIMEOUT:
        return "the target took the command but did not finish it in time, and the core stopped it; check the device, "
               "or allow more time (cmd --timeout)";
    case PCAM_SCSI_STATUS_ERROR: return "the target ended the command with an error status";
    case PCAM_SCSI_BUS_RESET: return "the command was lost to a SCSI bus reset; run it again";
    case PCAM_UNCOR_PARITY:
        return "parity errors on the bus that retries and slower transfers did not cure: check cabling and termination";
    case PCAM_AUTOSENSE_FAIL: return "the target reported CHECK CONDITION, but fetching its sense data failed";
    case PCAM_NO_HBA: return "the controller is gone or shut down";
    case PCAM_DATA_RUN_ERR:
        return "the target moved more data than the command's buffer holds (a data overrun): check the CDB's "
               "allocation or transfer length against the data length given";
    case PCAM_UNEXP_BUSFREE:
        return "the target let go of the bus in the middle of the command (an unexpected bus free): it may have "
               "reset or crashed";
    case PCAM_SEQUENCE_FAIL:
        return "the target went to a bus phase the protocol does not allow at that point; a firmware or cabling problem";
    case PCAM_BDR_SENT: return "the command was lost to a device or LUN reset; run it again";
    case PCAM_REQ_TOO_BIG: return "the transfer is larger than the controller moves in one command; ask for less";
    case PCAM_REQUEUE_REQ: return "the command was not run; run it again";
    case PCAM_MSG_REJECT_REC: return "the target rejected a message the command depends on (a tag, or a negotiation)";
    case PCAM_RESRC_UNAVAIL: return "no tag or storage was free for the command; try again";
    case PCAM_FUNC_NOTAVAIL: return "the controller does not implement this function";
    }
    return "the command failed with an unknown status";
}

void ctl_io_describe(const ctl_io *io, char *buf, size_t cap)
{
    uint32_t st = io->status;
    if (st == 0xFFFFFFFFu) {
        snprintf(buf, cap, "%s", ctl_status_sentence(st));
        return;
    }
    if ((st & PCAM_STATUS_MASK) == PCAM_SCSI_STATUS_ERROR && io->ccb.u.io.scsi_status == 0x02 &&
        (st & PCAM_AUTOSNS_VALID)) {
        pcam_sense s;
        char line[200];
        size_t n = (size_t)(io->ccb.u.io.sense_len - io->ccb.u.io.sense_resid);
        if (pcam_sense_decode(io->sense, n, &s) == PCAM_OK && pcam_sense_format(&s, line, sizeof line) >= 0)
            snprintf(buf, cap, "CHECK CONDITION: %s", line);
        else
            snprintf(buf, cap, "CHECK CONDITION with undecodable sense");
        return;
    }
    if ((st & PCAM_STATUS_MASK) == PCAM_SCSI_STATUS_ERROR) {
        static const struct { uint8_t s; const char *text; } ss[] = {
            {0x08, "the target answered BUSY (SCSI status 0x08) through every retry; try again later"},
            {0x18, "the target answered RESERVATION CONFLICT (SCSI status 0x18): another initiator holds it"},
            {0x28, "the target answered TASK SET FULL (SCSI status 0x28) through every retry"},
            {0x30, "the target answered ACA ACTIVE (SCSI status 0x30)"},
            {0x40, "the target answered TASK ABORTED (SCSI status 0x40)"}};
        for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++)
            if (ss[i].s == io->ccb.u.io.scsi_status) {
                snprintf(buf, cap, "%s", ss[i].text);
                return;
            }
        snprintf(buf, cap, "the target ended the command with SCSI status 0x%02x", io->ccb.u.io.scsi_status);
        return;
    }
    if (io->ccb.u.io.recovery != 0) {
        /* Name the recovery the core ran and how it went (issue 16). */
        char r[128];
        (void)pcam_recovery_format(io->ccb.u.io.recovery, r, sizeof r);
        snprintf(buf, cap, "%s (the core's recovery: %s)", ctl_status_sentence(st), r);
        return;
    }
    snprintf(buf, cap, "%s", ctl_status_sentence(st));
}

int ctl_io_exit(const ctl_io *io)
{
    uint32_t st = io->status;
    if (st == 0xFFFFFFFFu || (st & PCAM_STATUS_MASK) == PCAM_CMD_TIMEOUT)
        return CTL_ETIMEOUT;
    if ((st & PCAM_STATUS_MASK) == PCAM_REQ_CMP)
        return CTL_ESANITY; /* GOOD with data missing */
    if ((st & PCAM_STATUS_MASK) == PCAM_SEL_TIMEOUT || (st & PCAM_STATUS_MASK) == PCAM_DEV_NOT_THERE)
        return CTL_ENODEV;
    if ((st & PCAM_STATUS_MASK) == PCAM_BUSY)
        return CTL_EBUSY;
    if ((st & PCAM_STATUS_MASK) != PCAM_SCSI_STATUS_ERROR)
        return CTL_EOTHER;
    switch (io->ccb.u.io.scsi_status) {
    case 0x02: break;
    case 0x08: return CTL_EBUSY;
    case 0x18: return CTL_ERESV;
    case 0x28: return CTL_ETASKFULL;
    case 0x30: return CTL_EACA;
    case 0x40: return CTL_ETASKABORTED;
    default: return CTL_ESANITY;
    }
    pcam_sense s;
    size_t n = (size_t)(io->ccb.u.io.sense_len - io->ccb.u.io.sense_resid);
    if (!(st & PCAM_AUTOSNS_VALID) || pcam_sense_decode(io->sense, n, &s) != PCAM_OK)
        return CTL_ESENSE;
    switch (s.key) {
    case 0x2: return CTL_ENOTREADY;
    case 0x3: case 0x4: case 0x8: return CTL_EMEDIUM;
    case 0x5:
        if (s.asc_valid && s.asc == 0x20 && s.ascq == 0x00)
            return CTL_EOPCODE;
        if (s.asc_valid && s.asc == 0x21 && s.ascq == 0x00)
            return CTL_ELBA;
        return CTL_EILLEGAL;
    case 0x6: return CTL_EUA;
    case 0x7: return CTL_EPROTECT;
    case 0xB: return CTL_EABORTED;
    case 0xE: return CTL_EMISCOMPARE;
    default: return CTL_ESENSE;
    }
}

bool ctl_exit_is_scsi(int rc)
{
    return (rc >= CTL_ENOTREADY && rc <= CTL_EMISCOMPARE) || (rc >= CTL_ELBA && rc <= CTL_ETIMEOUT) ||
           rc == CTL_ESANITY || rc == CTL_ESENSE || rc == CTL_EOTHER;
}

const char *ctl_exit_kind(int rc)
{
    static const struct { int rc; const char *kind; } k[] = {
        {CTL_OK, "ok"}, {CTL_EUSAGE, "usage"}, {CTL_ENOTREADY, "not_ready"}, {CTL_EMEDIUM, "medium_error"},
        {CTL_EILLEGAL, "illegal_request"}, {CTL_EUA, "unit_attention"}, {CTL_EPROTECT, "data_protect"},
        {CTL_EOPCODE, "invalid_opcode"}, {CTL_EABORTED, "aborted_command"}, {CTL_EMISCOMPARE, "miscompare"},
        {CTL_EFILE, "file"}, {CTL_ELBA, "lba_out_of_range"}, {CTL_ERESV, "reservation_conflict"},
        {CTL_EBUSY, "busy"}, {CTL_ETASKFULL, "task_set_full"}, {CTL_EACA, "aca_active"},
        {CTL_ETASKABORTED, "task_aborted"}, {CTL_ETIMEOUT, "timeout"}, {CTL_ENODEV, "no_device"},
        {CTL_EBACKEND, "backend"}, {CTL_ENOTCONF, "not_confirmed"}, {CTL_ESCAN, "scan_incomplete"},
        {CTL_EEXPECT, "expectation"}, {CTL_ESANITY, "bad_response"}, {CTL_ESENSE, "sense_other"},
        {CTL_EOTHER, "other"}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (k[i].rc == rc)
            return k[i].kind;
    return "other";
}

int ctl_io_fail(ctl *c, const char *what, const ctl_io *io)
{
    return ctl_io_fail_at(c, what, io, NULL);
}

int ctl_io_fail_at(ctl *c, const char *what, const ctl_io *io, const ctl_partial *part)
{
    char why[256];
    ctl_io_describe(io, why, sizeof why);
    if (c->json && !c->quiet) {
        j_obj(NULL);
        j_str("operation", what);
        j_u64("exit_status", (uint64_t)ctl_io_exit(io));
        j_str("kind", ctl_exit_kind(ctl_io_exit(io)));
        j_str("status", io->status == 0xFFFFFFFFu ? "NOT_COMPLETED" : pcam_status_name(io->status));
        j_u64("scsi_status", io->ccb.u.io.scsi_status);
        if (io->status != 0xFFFFFFFFu && (io->status & PCAM_AUTOSNS_VALID))
            j_sense("sense", io->sense, (size_t)(io->ccb.u.io.sense_len - io->ccb.u.io.sense_resid));
        j_str("error", why);
        if (part != NULL && part->valid) {
            j_u64("good_blocks", part->good_blocks);
            j_u64("error_lba", part->error_lba);
            if (part->file != NULL)
                j_str("file", part->file);
        }
        j_end_obj();
        j_done();
    }
    return ctl_err(c, ctl_io_exit(io), "%s failed: %s", what, why);
}

#define MAX_ARGS 512
#define MAX_FAULTS CTL_QEMU_MAX_DRIVES

/* --qemu-fault ID[:LUN][:CONFIG]: blkdebug under that drive (given anywhere). */
static int apply_fault(ctl *c, const char *v)
{
    char buf[SPEC_PATH + 16];
    uint64_t id, lun = 0;
    snprintf(buf, sizeof buf, "%s", v);
    char *p = strchr(buf, ':'), *conf = NULL;
    if (p != NULL) {
        *p++ = '\0';
        char *q = strchr(p, ':');
        if (all_digits(p) || (q != NULL && (*q = '\0', all_digits(p)))) {
            if (!ctl_parse_u64(p, &lun))
                lun = 99;
            conf = q != NULL ? q + 1 : NULL;
        } else {
            if (q != NULL)
                *q = ':';
            conf = p;
        }
    }
    /* Any ID a drive may have: it must name one of them (below). */
    if (!ctl_parse_u64(buf, &id) || id >= PCAM_MAX_TARGETS || lun > 7)
        return ctl_err(c, CTL_EUSAGE, "--qemu-fault %s: want ID[:LUN][:CONFIG] with ID 0..%u, LUN 0..7", v,
                       PCAM_MAX_TARGETS - 1u);
    for (size_t k = 0; k < c->nqdrives; k++) {
        ctl_qdrive *d = &c->qdrives[k];
        if (d->id != id || d->lun != lun)
            continue;
        if (d->image[0] == '\0')
            return ctl_err(c, CTL_EUSAGE, "--qemu-fault %s: drive %u:%u has no image to put blkdebug under", v,
                           d->id, d->lun);
        if (conf != NULL && strchr(conf, ',') != NULL)
            return ctl_err(c, CTL_EUSAGE, "--qemu-fault %s: the CONFIG path may not contain ','", v);
        d->blkdebug = true;
        snprintf(d->blkdebug_conf, sizeof d->blkdebug_conf, "%s", conf != NULL ? conf : "");
        c->qemu_monitor = true;
        return 0;
    }
    return ctl_err(c, CTL_EUSAGE, "--qemu-fault %s: no --qemu-drive %u:%u", v, (unsigned)id, (unsigned)lun);
}

/* An error before the command runs: the message, and with --json its object. */
static int early(ctl *c, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int early(ctl *c, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctl_err(c, code, "%s", msg);
    return code;
}

static ctl c;

static int run(int argc, char **argv);

/* Whatever the command did, output that did not reach stdout (a full disk,
 * a closed pipe, /dev/full) is a failure: nothing may be lost with exit 0.
 * The last flush and the close are checked, and any earlier write error
 * stdio remembers. */
int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    ctl_json_finish(&c, rc, 0);
    errno = 0;
    bool bad = fflush(stdout) != 0;
    int e = errno;
    bad = ferror(stdout) != 0 || bad;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (bad && !c.stdout_failed) {
        c.quiet = false;
        ctl_err(&c, CTL_EFILE, "writing standard output failed: %s",
                e != 0 ? strerror(e) : "an earlier write failed");
        if (rc == 0)
            rc = CTL_EFILE;
    }
    if (bad && rc == 0)
        rc = CTL_EFILE;
    return rc;
}

static int run(int argc, char **argv)
{
    static char *args[MAX_ARGS];
    static char *rest[MAX_ARGS];
    static char split[MAX_ARGS][256];
    const char *faults[MAX_FAULTS];
    size_t nfaults = 0;
    const char *sim = getenv("PCAMCTL_SIM");
    char *file_text = NULL;
    char err[512];
    int n = 0, nrest = 0;
    bool version = false, help = false, dashdash = false;

    c.prog = "pcamctl";
    c.backend_name = "sim";
    c.scan = true;
    c.spec.initiator = 7;
    c.spec.width = 16;
    pcam_bus_config_defaults(&c.bcfg);
    if (sim == NULL || *sim == '\0')
        sim = DEFAULT_SIM;
    /* --json anywhere (before "--") makes even an early error a JSON object. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            c.json = true;
    /* --opt=value becomes --opt value (before a "--"). */
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *eq = strchr(a, '=');
        if (n + 2 > MAX_ARGS)
            return early(&c, CTL_EUSAGE, "more than %d arguments", MAX_ARGS - 2);
        if (strcmp(a, "--") == 0)
            dashdash = true;
        if (!dashdash && strncmp(a, "--", 2) == 0 && eq != NULL && (size_t)(eq - a) < sizeof split[0]) {
            memcpy(split[n], a, (size_t)(eq - a));
            split[n][eq - a] = '\0';
            args[n] = split[n];
            n++;
            args[n++] = eq + 1;
        } else {
            args[n++] = a;
        }
    }
    /* Global options wherever they are: before the command, after it, or
     * inside trace's COMMAND. */
    dashdash = false;
    for (int i = 0; i < n; i++) {
        const char *a = args[i];
        const char *v = i + 1 < n ? args[i + 1] : NULL;
        bool takes = strcmp(a, "--backend") == 0 || strcmp(a, "--sim") == 0 || strcmp(a, "--qemu-drive") == 0 ||
                     strcmp(a, "--qemu-fault") == 0 || strcmp(a, "--qemu-arg") == 0;
        if (dashdash) {
            rest[nrest++] = args[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            dashdash = true;
            continue;
        }
        if (takes && v == NULL)
            return early(&c, CTL_EUSAGE, "option %s needs a value (pcamctl help)", a);
        if (strcmp(a, "--json") == 0) {
            c.json = true;
        } else if (strcmp(a, "--polled") == 0) {
            c.polled = true;
        } else if (strcmp(a, "--yes") == 0) {
            c.yes = true;
        } else if (strcmp(a, "--version") == 0) {
            version = true;
        } else if ((strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) && nrest == 0) {
            help = true;
        } else if (strcmp(a, "--backend") == 0) {
            c.backend_name = v;
            i++;
        } else if (strcmp(a, "--sim") == 0) {
            sim = v;
            i++;
        } else if (strcmp(a, "--qemu-arg") == 0) {
            if (c.nqargs == CTL_QEMU_MAX_ARGS)
                return early(&c, CTL_EUSAGE, "at most %d --qemu-arg options", CTL_QEMU_MAX_ARGS);
            c.qemu_args[c.nqargs++] = v;
            i++;
        } else if (strcmp(a, "--qemu-fault") == 0) {
            if (nfaults == MAX_FAULTS)
                return early(&c, CTL_EUSAGE, "at most %d --qemu-fault options", MAX_FAULTS);
            faults[nfaults++] = v;
            i++;
        } else if (strcmp(a, "--qemu-drive") == 0) {
            if (c.nqdrives == CTL_QEMU_MAX_DRIVES)
                return early(&c, CTL_EUSAGE, "at most %d --qemu-drive options", CTL_QEMU_MAX_DRIVES);
            if (ctl_qdrive_parse(v, &c.qdrives[c.nqdrives], err, sizeof err) != 0)
                return early(&c, CTL_EUSAGE, "--qemu-drive %s", err);
            for (size_t k = 0; k < c.nqdrives; k++)
                if (c.qdrives[k].id == c.qdrives[c.nqdrives].id && c.qdrives[k].lun == c.qdrives[c.nqdrives].lun)
                    return early(&c, CTL_EUSAGE, "--qemu-drive %s: %u:%u is given twice", v,
                                   c.qdrives[k].id, c.qdrives[k].lun);
            c.nqdrives++;
            i++;
        } else if (nrest == 0 && a[0] == '-') {
            ctl_err(&c, CTL_EUSAGE, "unknown option '%s'", a);
            fputs("usage: pcamctl [GLOBAL OPTIONS] COMMAND [ARGS]; 'pcamctl help' lists them\n", stderr);
            return CTL_EUSAGE;
        } else {
            rest[nrest++] = args[i];
        }
    }
    rest[nrest] = NULL;
    if (version) {
        if (c.json) {
            j_obj(NULL);
            j_str("program", "pcamctl");
            j_str("version", ctl_version);
            j_end_obj();
            j_done();
        } else {
            printf("pcamctl %s (pcam %s)\n", ctl_version, ctl_version);
        }
        return 0;
    }
    if (help) {
        ctl_print_help(stdout);
        return 0;
    }
    int rc = 0;
    c.be = ctl_find_backend(c.backend_name);
    if (nrest == 0) {
        rc = ctl_err(&c, CTL_EUSAGE, "missing the command");
        fputs("usage: pcamctl [GLOBAL OPTIONS] COMMAND [ARGS]; 'pcamctl help' lists them\n", stderr);
    } else if (c.be == NULL) {
        rc = ctl_err(&c, CTL_EUSAGE, "unknown back-end '%s' (sim, qemu-esp or qemu-mpt)", c.backend_name);
    } else if (c.nqdrives != 0 && ctl_is_sim(&c)) {
        rc = ctl_err(&c, CTL_EUSAGE, "--qemu-drive needs --backend qemu-esp or qemu-mpt");
    } else if ((nfaults != 0 || c.nqargs != 0) && ctl_is_sim(&c)) {
        rc = ctl_err(&c, CTL_EUSAGE, "--qemu-fault and --qemu-arg need --backend qemu-esp or qemu-mpt");
    } else if (c.polled && !ctl_is_sim(&c)) {
        rc = ctl_err(&c, CTL_EUSAGE, "--polled: the %s back-end runs on interrupts only", c.be->name);
    }
    for (size_t k = 0; rc == 0 && k < nfaults; k++)
        rc = apply_fault(&c, faults[k]);
    c.spec_text = sim;
    if (rc == 0 && sim[0] == '@') {
        file_text = simspec_read_file(sim + 1, err, sizeof err);
        if (file_text == NULL)
            rc = ctl_err(&c, CTL_EFILE, "--sim: %s", err);
        else
            sim = file_text;
    }
    if (rc == 0 && strcmp(c.be->name, "sim") == 0 && simspec_parse(sim, &c.spec, err, sizeof err) != 0)
        rc = ctl_err(&c, CTL_EUSAGE, "bad --sim topology: %s", err);
    free(file_text);
    if (rc == 0) {
        rc = ctl_dispatch(&c, rest[0], nrest - 1, rest + 1);
        if (rc < 0) {
            rc = ctl_err(&c, CTL_EUSAGE, "unknown command '%s'", rest[0]);
            fputs("usage: pcamctl [GLOBAL OPTIONS] COMMAND [ARGS]; 'pcamctl help' lists the commands\n", stderr);
        }
        ctl_close(&c);
    }
    return rc; /* main writes the JSON (ctl_json_finish) */
}
