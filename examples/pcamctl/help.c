/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command table: each subcommand's usage line, summary and options, the
 * help pages built from it, and the dispatcher that checks a command's
 * options (a value given, no unknown option) before the command runs.
 *
 * This table is the one reference for what pcamctl accepts: the man page
 * (pcamctl.1) and the bash completion list the same names, and
 * tests/pcamctl checks they do. It never touches the bus.
 */
#include <string.h>

#include "ctl.h"

#ifndef PCAMCTL_VERSION
#define PCAMCTL_VERSION "0.0.0"
#endif
const char ctl_version[] = PCAMCTL_VERSION;

/* Value options and flags are listed " -a --bee " so a lookup is strstr of " NAME ". */
static const ctl_cmd cmds[] = {
    {"devlist", cmd_devlist, "devlist [-l] [-v]",
     "scan and list the devices (-l: capacity, agreement; -v: every ID); exit 45 if one was not scanned", " ",
     " -l --long -v --verbose ", false},
    {"inquiry", cmd_inquiry, "inquiry PATH [--vpd PAGE] [--hex]",
     "standard INQUIRY decoded, or a VPD page (number, or sg_vpd's sn, di, bl...)", " --vpd ",
     " --hex ", false},
    {"readcap", cmd_readcap, "readcap PATH", "READ CAPACITY: last LBA, block size, size", " ", " ",
     false},
    {"tur", cmd_tur, "tur PATH", "TEST UNIT READY", " ", " ", false},
    {"requests", cmd_requests, "requests PATH", "REQUEST SENSE, decoded", " ", " ", false},
    {"reportluns", cmd_reportluns, "reportluns PATH [--select N]", "REPORT LUNS: the LUNs a target has",
     " --select ", " ", false},
    {"read", cmd_read, "read PATH --lba N --count N -o FILE [--progress|--no-progress]",
     "blocks to a file ('-' = stdout); on an error the good blocks are kept and counted", " --lba --count -o --file ", " --progress --no-progress ", false},
    {"write", cmd_write, "write PATH --lba N [--count N] -i FILE [--progress|--no-progress]",
     "blocks from a file (a whole number of blocks, or --count)", " --lba --count -i --file ",
     " --progress --no-progress ", false},
    {"verify", cmd_verify, "verify PATH [--lba N] [--count N]",
     "VERIFY(10/16) of blocks on the medium (default: all)", " --lba --count ",
     " --progress --no-progress ", false},
    {"cmd", cmd_cmd,
     "cmd PATH CDB-HEX... [-r LEN [-o FILE]] [-s LEN [-i FILE]] [--timeout MS] [--retries N] [--hex] [--force]",
     "a raw CDB: -r reads LEN bytes of data in, -s sends LEN bytes out (from FILE, else standard input)",
     " -r --in -s --out -i -o --timeout --retries ", " --hex --force ", false},
    {"modepage", cmd_modepage, "modepage PATH [--page P] [--pc cur|chg|def|sav] [--set OFF=BYTE,...] [--yes]",
     "MODE SENSE(10) of a page, decoded; --set changes bytes with MODE SELECT (none if nothing changes)",
     " --page --pc --set ", " --yes --hex ", false},
    {"start", cmd_start, "start PATH", "START STOP UNIT: spin up", " ", " ", false},
    {"stop", cmd_stop, "stop PATH", "START STOP UNIT: spin down", " ", " ", false},
    {"eject", cmd_eject, "eject PATH", "START STOP UNIT with LoEj: stop and eject the medium", " ", " ",
     false},
    {"load", cmd_load, "load PATH", "START STOP UNIT with LoEj: load the medium and start", " ", " ",
     false},
    {"rescan", cmd_rescan, "rescan", "scan the bus again: what was found and lost, what it could not scan (45)", " ", " ",
     false},
    {"negotiate", cmd_negotiate,
     "negotiate TARGET [--period F] [--offset N] [--width 8|16] [--dt on|off] [--disconnect on|off] "
     "[--tags on|off] [--async]",
     "show the user/goal/current agreement; options set the user limits first",
     " --period --offset --width --dt --disconnect --tags ", " --async ", false},
    {"tags", cmd_tags,
     "tags PATH [--depth N] [--load N] [--age-count N] [--age-ms MS] [--starve-ms MS] [--no-aging]",
     "queue depth, aging settings and counters; --load runs N tagged reads at once",
     " --depth --load --age-count --age-ms --starve-ms ", " --no-aging ", false},
    {"reset", cmd_reset, "reset dev PATH | reset lun PATH | reset bus",
     "BUS DEVICE RESET, LOGICAL UNIT RESET or a SCSI bus reset, with the events", " ", " ", false},
    {"vpd", cmd_vpd, "vpd HEX...", "decode VPD page bytes, header included (no bus)", " ", " ", false},
    {"sense", cmd_sense, "sense HEX...", "decode sense bytes (no bus)", " ", " ", false},
    {"trace", cmd_trace, "trace [-o FILE] [--scan] [--phases] COMMAND [ARGS]",
     "run COMMAND and write a VCD of the simulated bus (default pcam.vcd)", " -o ", " --scan --phases ",
     true},
    {"bench", cmd_bench, "bench [pcambench options]", "the benchmark on its own bus (bench --help)", " ",
     " ", true},
    {"script", cmd_script, "script [FILE]",
     "subcommands from FILE (default stdin) on one bus; '!' expects a bus failure, '!N' exit N", " ", " ", false},
    {"hmp", cmd_hmp, "hmp MONITOR-COMMAND...",
     "qemu-esp, qemu-mpt: a QEMU monitor command (e.g. qemu-io d0 \"break read_aio A\"); an error answer fails it",
     " ", " ", true},
    {"help", cmd_help, "help [COMMAND]", "this text, or one command's", " ", " ", true},
};

const ctl_cmd *ctl_find_cmd(const char *name)
{
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmds[i].name, name) == 0)
            return &cmds[i];
    return NULL;
}

static const char global_text[] =
    "usage: pcamctl [GLOBAL OPTIONS] COMMAND [ARGS]   (options may come anywhere; --opt=value works)\n"
    "\n"
    "global options:\n"
    "  --backend NAME   sim (default), qemu-esp or qemu-mpt (QEMU's AM53C974 or SAS1068 over qtest)\n"
    "  --sim SPEC|@FILE simulated topology, e.g. \"0:disk:64M,2:disk:1G:fast10,3:cd,5:disk:luns=3\"\n"
    "                   (default: $PCAMCTL_SIM, else \"0:disk:64M,3:cd\")\n"
    "  --qemu-drive ID[:LUN]:hd|hd-ro|cd[:IMAGE]   qemu-*: a drive (repeatable; IDs 0..6, qemu-mpt 0..7)\n"
    "  --qemu-fault ID[:LUN][:CONFIG]  qemu-*: put blkdebug (CONFIG: [inject-error] rules) under that drive\n"
    "  --qemu-arg ARG   qemu-*: one more QEMU argument (repeatable)\n"
    "  --json           JSON on stdout, one schema (docs/pcamctl.schema.json): command, ok, ...\n"
    "  --polled         drive the core in polled mode (no interrupts)\n"
    "  --yes            confirm changes (modepage --set) without asking\n"
    "  --version        the version\n"
    "\n"
    "PATH is [BUS:]TARGET[:LUN]: TARGET, TARGET:LUN or BUS:TARGET:LUN; BUS is 0 or the back-end's\n"
    "name for it (sim0, esp0, mpt0); LUN 0 when omitted. Numbers are decimal unless written 0x...\n"
    "\n"
    "commands:\n";

static const char exit_text[] =
    "\n"
    "exit status, in sg3_utils' categories: 0 done, 1 syntax error (usage, topology),\n"
    "  2 not ready, 3 medium or hardware error, 5 illegal request, 6 unit attention,\n"
    "  7 data protect, 9 invalid opcode, 11 aborted command, 14 miscompare, 15 file error,\n"
    "  22 LBA out of range, 24 reservation conflict, 26 busy, 27 task set full,\n"
    "  28 ACA active, 29 task aborted, 33 timeout, 97 malformed response, 98 other sense,\n"
    "  99 other error (the bus, QEMU, memory); pcamctl's own: 42 no device at PATH,\n"
    "  43 back-end not available, 44 change not confirmed, 45 scan incomplete,\n"
    "  46 a script line did not fail as its '!' expected\n";

void ctl_print_help(FILE *f)
{
    fputs(global_text, f);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
    fputs("\n'pcamctl help COMMAND' or 'pcamctl COMMAND --help' shows a command's options.\n", f);
    fputs(exit_text, f);
}

int ctl_cmd_help(ctl *c, const char *name)
{
    const ctl_cmd *k = ctl_find_cmd(name);
    if (k == NULL)
        return ctl_usage(c, "no command '%s' (pcamctl help lists them)", name);
    printf("usage: pcamctl %s\n  %s\n", k->usage, k->summary);
    if (strcmp(name, "bench") == 0)
        return cmd_bench(c, 1, (char *[]){(char *)"--help", NULL});
    fputs(exit_text, stdout);
    return 0;
}

int cmd_help(ctl *c, int argc, char **argv)
{
    if (argc > 1)
        return ctl_usage(c, "help takes one command name");
    if (argc == 1 && !c->json)
        return ctl_cmd_help(c, argv[0]);
    if (c->json) {
        j_obj(NULL);
        j_str("version", ctl_version);
        j_arr("commands");
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
            if (argc == 1 && strcmp(argv[0], cmds[i].name) != 0)
                continue;
            j_obj(NULL);
            j_str("name", cmds[i].name);
            j_str("usage", cmds[i].usage);
            j_str("summary", cmds[i].summary);
            j_end_obj();
        }
        j_end_arr();
        j_end_obj();
        j_done();
        return 0;
    }
    ctl_print_help(stdout);
    return 0;
}

static bool listed(const char *list, const char *opt)
{
    char key[64];
    if (strlen(opt) + 3 > sizeof key)
        return false;
    snprintf(key, sizeof key, " %s ", opt);
    return strstr(list, key) != NULL;
}

int ctl_dispatch(ctl *c, const char *name, int argc, char **argv)
{
    const ctl_cmd *k = ctl_find_cmd(name);
    if (k == NULL)
        return -1;
    const char *outer = c->cmd;
    c->cmd = k->name;
    /* The command a script line, the command line or trace names: its
     * name heads the JSON documents (ctl_json_finish). */
    if (outer == NULL || strcmp(outer, "script") == 0 || strcmp(outer, "trace") == 0)
        c->json_cmd = k->name;
    int rc = 0;
    for (int i = 0; i < argc && !k->own_args; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            rc = ctl_cmd_help(c, k->name);
            goto out;
        }
        if (a[0] != '-' || a[1] == '\0')
            continue;
        if (listed(k->valopts, a)) {
            /* A value may itself start with '-' ("-o -"), not with "--". */
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0) {
                rc = ctl_usage(c, "option %s needs a value", a);
                goto out;
            }
            i++;
        } else if (!listed(k->flags, a)) {
            rc = ctl_usage(c, "unknown option '%s'", a);
            goto out;
        }
    }
    if (k->own_args)
        for (int i = 0; i < argc && strcmp(k->name, "help") != 0 && strcmp(k->name, "hmp") != 0; i++) {
            /* trace's COMMAND has its own --help; only trace's own options come first. */
            if (strcmp(k->name, "trace") == 0 && argv[i][0] != '-')
                break;
            if (strcmp(k->name, "trace") == 0 && strcmp(argv[i], "-o") == 0) {
                i++;
                continue;
            }
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                rc = ctl_cmd_help(c, k->name);
                goto out;
            }
        }
    rc = k->fn(c, argc, argv);
out:
    c->cmd = outer != NULL ? outer : c->cmd;
    return rc;
}
