/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamctl: a camcontrol-like tool over pcam's CCB API.
 *
 *   pcamctl [--backend sim|qemu-esp] [--sim SPEC | --sim @FILE]
 *           [--qemu-drive ID[:LUN]:hd|hd-ro|cd[:IMAGE]]... [--json] [--polled] COMMAND [ARGS]
 *
 * The command table and the usage text below are the reference; the
 * topology grammar is in simspec.c and examples/pcamctl/README.md.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pcam/pcam_sense.h"

#define DEFAULT_SIM "0:disk:64M,3:cd"

static const char usage_text[] =
    "usage: pcamctl [GLOBAL OPTIONS] COMMAND [ARGS]\n"
    "\n"
    "global options:\n"
    "  --backend NAME   sim (default) or qemu-esp (QEMU's AM53C974 over qtest)\n"
    "  --qemu-drive ID[:LUN]:hd|hd-ro|cd[:IMAGE]\n"
    "                   qemu-esp: a drive on the controller (repeatable; IDs 0..6; a cd\n"
    "                   without IMAGE has no medium); QEMU binary from $PCAM_QEMU or PATH\n"
    "  --sim SPEC       simulated topology, e.g. \"0:disk:64M,2:disk:1G:fast10,3:cd,5:disk:luns=3\"\n"
    "  --sim @FILE      the topology from a file ('#' comments, items on lines or comma-separated)\n"
    "                   (default: $PCAMCTL_SIM, else \"" DEFAULT_SIM "\")\n"
    "  --json           machine-readable output on stdout\n"
    "  --polled         drive the core in polled mode (no interrupts)\n"
    "\n"
    "commands (PATH is TARGET or TARGET:LUN; LUN defaults to 0):\n"
    "  devlist [-l]                      scan and list the devices (-l: capacity and agreement)\n"
    "  inquiry PATH [--vpd PAGE] [--hex] standard INQUIRY data, or a VPD page (0x00, 0x80, 0x83)\n"
    "  readcap PATH                      READ CAPACITY: last LBA, block size, size\n"
    "  tur PATH                          TEST UNIT READY\n"
    "  read PATH --lba N --count N -o FILE   blocks to a file ('-' = stdout)\n"
    "  write PATH --lba N [--count N] -i FILE  blocks from a file (a whole number of blocks)\n"
    "  negotiate TARGET [--period F] [--offset N] [--width 8|16] [--dt on|off]\n"
    "            [--disconnect on|off] [--tags on|off] [--async]\n"
    "                                    show user/goal/current; options set the user limits first\n"
    "  tags PATH [--depth N] [--load N] [--age-count N] [--age-ms MS] [--starve-ms MS] [--no-aging]\n"
    "                                    queue depth, aging settings and counters\n"
    "  reset dev|lun PATH | reset bus    BUS DEVICE RESET, LOGICAL UNIT RESET or a SCSI bus reset\n"
    "  sense HEX...                      decode sense bytes (no bus)\n"
    "  trace [-o FILE] [--scan] [--phases] COMMAND [ARGS]\n"
    "                                    run COMMAND and write a VCD of the bus (default pcam.vcd)\n"
    "  bench [pcambench options]         the benchmark on its own simulated bus (--help for options)\n"
    "\n"
    "exit status: 0 done, 1 the command failed on the bus, 2 bad usage or topology,\n"
    "             3 no device at PATH, 4 back-end not available\n";

static int usage(ctl *c, const char *why)
{
    if (why != NULL)
        ctl_err(c, 0, "%s", why);
    fputs(usage_text, stderr);
    return CTL_EUSAGE;
}

int ctl_parse_path(ctl *c, const char *s, uint8_t *target, uint8_t *lun, bool allow_lun)
{
    uint64_t t, l = 0;
    char buf[32];
    if (s == NULL)
        return ctl_err(c, CTL_EUSAGE, "missing the device path (TARGET or TARGET:LUN)");
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    if (colon != NULL) {
        *colon = '\0';
        if (!allow_lun)
            return ctl_err(c, CTL_EUSAGE, "'%s': this command takes a target ID, not a LUN", s);
        if (!ctl_parse_u64(colon + 1, &l) || l >= PCAM_MAX_LUNS)
            return ctl_err(c, CTL_EUSAGE, "'%s': bad LUN", s);
    }
    if (!ctl_parse_u64(buf, &t) || t >= PCAM_MAX_TARGETS)
        return ctl_err(c, CTL_EUSAGE, "'%s': bad target ID (0..15)", s);
    *target = (uint8_t)t;
    *lun = (uint8_t)l;
    return 0;
}

int ctl_need_device(ctl *c, uint8_t target, uint8_t lun, pcam_dev *dev)
{
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_GET_DEV;
    ccb.target = target;
    ccb.lun = lun;
    uint32_t st = ctl_sync(c, &ccb, 1000);
    if ((st & PCAM_STATUS_MASK) != PCAM_REQ_CMP || !ccb.u.dev.present) {
        if (target == c->spec.initiator)
            return ctl_err(c, CTL_ENODEV, "%u is the initiator's own ID", target);
        return ctl_err(c, CTL_ENODEV, "no device at %u:%u", target, lun);
    }
    if (dev != NULL)
        *dev = ccb.u.dev;
    return 0;
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

void ctl_io_describe(const ctl_io *io, char *buf, size_t cap)
{
    uint32_t st = io->status;
    if (st == 0xFFFFFFFFu) {
        snprintf(buf, cap, "did not complete");
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
        snprintf(buf, cap, "SCSI status 0x%02x", io->ccb.u.io.scsi_status);
        return;
    }
    if (io->ccb.u.io.recovery != 0) {
        /* Name the recovery the core ran and how it went (issue 16). */
        char r[128];
        (void)pcam_recovery_format(io->ccb.u.io.recovery, r, sizeof r);
        snprintf(buf, cap, "%s after %s", pcam_status_name(st), r);
        return;
    }
    snprintf(buf, cap, "%s", pcam_status_name(st));
}

int ctl_io_fail(ctl *c, const char *what, const ctl_io *io)
{
    char why[256];
    ctl_io_describe(io, why, sizeof why);
    if (c->json && !c->quiet) {
        j_obj(NULL);
        j_bool("ok", false);
        j_str("command", what);
        j_str("status", io->status == 0xFFFFFFFFu ? "NOT_COMPLETED" : pcam_status_name(io->status));
        j_u64("scsi_status", io->ccb.u.io.scsi_status);
        if (io->status != 0xFFFFFFFFu && (io->status & PCAM_AUTOSNS_VALID))
            j_sense("sense", io->sense, (size_t)(io->ccb.u.io.sense_len - io->ccb.u.io.sense_resid));
        j_str("error", why);
        j_end_obj();
        j_done();
    }
    return ctl_err(c, CTL_EFAIL, "%s failed: %s", what, why);
}

static const struct {
    const char *name;
    int (*fn)(ctl *, int, char **);
} commands[] = {
    {"devlist", cmd_devlist},   {"inquiry", cmd_inquiry}, {"readcap", cmd_readcap},
    {"tur", cmd_tur},           {"read", cmd_read},       {"write", cmd_write},
    {"negotiate", cmd_negotiate}, {"tags", cmd_tags},     {"reset", cmd_reset},
    {"sense", cmd_sense},       {"trace", cmd_trace},     {"bench", cmd_bench},
};

int ctl_dispatch(ctl *c, const char *name, int argc, char **argv)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].fn(c, argc, argv);
    return -1;
}

int main(int argc, char **argv)
{
    static ctl c;
    const char *sim = getenv("PCAMCTL_SIM");
    char *file_text = NULL;
    char err[512];
    int i;

    c.prog = "pcamctl";
    c.backend_name = "sim";
    c.scan = true;
    pcam_bus_config_defaults(&c.bcfg);
    if (sim == NULL || *sim == '\0')
        sim = DEFAULT_SIM;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0) {
            c.json = true;
        } else if (strcmp(a, "--polled") == 0) {
            c.polled = true;
        } else if (strcmp(a, "--backend") == 0 && v != NULL) {
            c.backend_name = v;
            i++;
        } else if (strcmp(a, "--qemu-drive") == 0 && v != NULL) {
            if (c.nqdrives == CTL_QEMU_MAX_DRIVES)
                return ctl_err(&c, CTL_EUSAGE, "at most %d --qemu-drive options", CTL_QEMU_MAX_DRIVES);
            if (ctl_qdrive_parse(v, &c.qdrives[c.nqdrives], err, sizeof err) != 0)
                return ctl_err(&c, CTL_EUSAGE, "--qemu-drive %s", err);
            for (size_t k = 0; k < c.nqdrives; k++)
                if (c.qdrives[k].id == c.qdrives[c.nqdrives].id && c.qdrives[k].lun == c.qdrives[c.nqdrives].lun)
                    return ctl_err(&c, CTL_EUSAGE, "--qemu-drive %s: %u:%u is given twice", v,
                                   c.qdrives[k].id, c.qdrives[k].lun);
            c.nqdrives++;
            i++;
        } else if (strcmp(a, "--sim") == 0 && v != NULL) {
            sim = v;
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            char why[128];
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", a);
            return usage(&c, why);
        }
    }
    if (i >= argc)
        return usage(&c, "missing the command");
    c.be = ctl_find_backend(c.backend_name);
    if (c.be == NULL)
        return ctl_err(&c, CTL_EUSAGE, "unknown back-end '%s' (sim or qemu-esp)", c.backend_name);
    if (c.nqdrives != 0 && strcmp(c.be->name, "qemu-esp") != 0)
        return ctl_err(&c, CTL_EUSAGE, "--qemu-drive needs --backend qemu-esp");
    if (c.polled && strcmp(c.be->name, "qemu-esp") == 0)
        return ctl_err(&c, CTL_EUSAGE, "--polled: the qemu-esp back-end runs on interrupts only");
    c.spec_text = sim;
    if (sim[0] == '@') {
        file_text = simspec_read_file(sim + 1, err, sizeof err);
        if (file_text == NULL)
            return ctl_err(&c, CTL_EUSAGE, "--sim: %s", err);
        sim = file_text;
    }
    if (strcmp(c.be->name, "sim") == 0 && simspec_parse(sim, &c.spec, err, sizeof err) != 0) {
        free(file_text);
        return ctl_err(&c, CTL_EUSAGE, "bad --sim topology: %s", err);
    }
    free(file_text);
    int rc = ctl_dispatch(&c, argv[i], argc - i - 1, argv + i + 1);
    if (rc < 0) {
        char why[128];
        snprintf(why, sizeof why, "unknown command '%s'", argv[i]);
        return usage(&c, why);
    }
    ctl_close(&c);
    return rc;
}
